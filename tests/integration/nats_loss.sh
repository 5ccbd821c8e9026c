# The recorder's machine lost under load (kill -9 and its data directory
# deleted), then its store restored from the stream and the recorder
# started again on it, a read replica following throughout: in `sync`
# mode every acknowledged event is back; in `async` mode the events
# acknowledged but not yet on the stream are lost (the documented window:
# how many is printed), every other one is back; either way the recorder
# resumes where the stream ends, its scorekeeper's retries are answered,
# and the replica goes on without a gap.
# Ports: ARB_NATS_PORT_BASE (default 17300).
. tests/common.sh
. tests/cluster/nats.sh
nats_test_up nats_loss.sh 3 17300
. tests/cluster/recorders.sh

REPL_EXTRA="mode = sync"
start_replicating east E.
REPL_EXTRA=
start_replicating west W.
start_replica rep

scorekeepers east:E. west:W.
wait_acks east 40
wait_acks west 40
# The venue's machines go: the recorders and their disks, and the
# scorekeepers' devices with them.
kill -9 "$pid_east" "$pid_west" "$sk_east" "$sk_west"
wait "$pid_east" "$pid_west" "$sk_east" "$sk_west" 2>/dev/null
rm -rf "$T/east" "$T/west"
acked_east=$(wc -l < "$T/acks.east")
acked_west=$(wc -l < "$T/acks.west")

# Restored from the stream, each its own prefix.
for d in east:E. west:W.; do
    out=$($A restore --nats "$URLS" --data "$T/${d%%:*}" \
          --prefix "${d##*:}" 2>&1); rc=$?
    check "${d%%:*}: restore exit" 0 $rc
    [ $rc -eq 0 ] || printf '%s\n' "$out" | sed "s/^/why: restore: /"
done
check "sync: every acknowledged event restored" "" \
    "$(held_acks "$T/east" E. east)"
held_acks "$T/west" W. west > /dev/null
lost=$(wc -l < "$T/lacked")
echo "nats_loss.sh: async mode lost $lost of $acked_west acknowledged" \
    "events (the recorder's replication lag at the loss)"
check "async: what is restored is a prefix of each match" "" \
    "$(for m in 1 2 3 4 5; do
         last=$($A export --format jsonl --db "$T/west" --match "W.$m" |
                tail -1 | sed 's/^{"match":"[^"]*","seq":\([0-9]*\),.*/\1/')
         awk -v m="W.$m" -v l="$last" '$1 == m && $2 <= l' "$T/lacked"
       done)"

# The recorders resume as primaries on what was restored; the
# scorekeepers send what got no answer again, with the same client ids,
# and play on.
REPL_EXTRA="mode = sync"
LOGLEVEL=info start_replicating east E.
REPL_EXTRA=
start_replicating west W.
scorekeeper east E. > "$T/sk.east" 2>&1
scorekeeper west W. > "$T/sk.west" 2>&1
check "after the restore: every move answered" "" \
    "$(cat "$T/sk.east" "$T/sk.west")"
check "sync: every ack before the loss still held" "" \
    "$(head -n "$acked_east" "$T/acks.east" > "$T/acks.east0";
       held_acks east E. east0)"
check "every ack after the restore held" "" \
    "$(tail -n +$((acked_east + 1)) "$T/acks.east" > "$T/acks.east1";
       tail -n +$((acked_west + 1)) "$T/acks.west" > "$T/acks.west1";
       held_acks east E. east1; held_acks west W. west1)"
same_as_primary E.1:east E.3:east E.5:east W.1:west W.3:west W.5:west
check "replica stopped no match" "" \
    "$(grep replica_stopped_match "$T/rep.log")"
for d in east west; do
    check "$d: replicate --check repairs nothing" 1 \
        "$(on "$d" replicate --check --timeout 60 2>&1 |
           grep -c ": 0 repaired")"
done

# A closed match leaves memory once the stream has its close: in sync
# mode the close's ack waits for it, and the match is let go with the
# ack (no test failed when a released ack kept its closed match in
# memory until the recorder stopped).
on east open --match E.9 --game yahchain --players alice,bob \
    --option mode=3 > /dev/null
on east close --match E.9 --reason done > /dev/null
kill "$pid_east"; wait "$pid_east" 2>/dev/null
check "sync: the closed match left memory with its ack" 1 \
    "$(grep -c 'stopping: 5 matches held in memory' "$T/east.log")"

if [ $fail -ne 0 ]; then
    for d in east west rep; do
        tail -n 12 "$T/$d.log" 2>/dev/null | sed "s/^/why: $d.log: /"
    done
fi
echo "nats_loss.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
