# Two recorders under load on a 3-node JetStream cluster, a read replica
# following: one recorder is killed with kill -9 mid-load and restarted,
# and, separately, a NATS node is.  The scorekeepers retry what got no
# answer with the same client id.  Afterwards every acknowledged event is
# on its recorder and on the replica at its seq with its acked hash, the
# stream holds each event of each match exactly once, and the replica's
# events and states equal the primaries'.
# Ports: ARB_NATS_PORT_BASE (default 16800).
. tests/common.sh
. tests/cluster/nats.sh
nats_test_up nats_kill.sh 3 16800
. tests/cluster/recorders.sh

start_replicating east E.
start_replicating west W.
start_replica rep

scorekeepers east:E. west:W.
wait_acks east 15
kill -9 "$pid_east"; wait "$pid_east" 2>/dev/null
acked_at_kill=$(wc -l < "$T/acks.east")
sleep 0.5
start_replicating east E.
nats_kill "$NATS_DIR" 2
acked_at_nats=$(wc -l < "$T/acks.west")
sleep 1.5
nats_restart "$NATS_DIR" 2
wait $sk_east $sk_west
check "scorekeepers: every move answered" "" "$(cat "$T/sk.east" "$T/sk.west")"
check "NATS node killed mid-load" 1 \
    "$([ "$acked_at_nats" -gt 0 ] && [ "$acked_at_nats" -lt 150 ] && echo 1)"
check "east killed mid-load" 1 \
    "$([ "$acked_at_kill" -gt 0 ] && [ "$acked_at_kill" -lt 150 ] && echo 1)"
check "every move acked" "150 150" \
    "$(wc -l < "$T/acks.east") $(wc -l < "$T/acks.west")"

# Every ack on its recorder and on the replica, at its seq, with its hash.
for m in E.1:east E.2:east E.3:east E.4:east E.5:east W.1:west W.2:west \
         W.3:west W.4:west W.5:west; do
    caught_up "${m%%:*}" "${m##*:}" events
done
check "east holds every ack" "" "$(held_acks east E. east)"
check "west holds every ack" "" "$(held_acks west W. west)"
check "the replica holds east's acks" "" "$(held_acks rep E. east)"
check "the replica holds west's acks" "" "$(held_acks rep W. west)"
same_as_primary E.1:east E.4:east W.1:west W.4:west

# Exactly once: the stream holds as many messages as both recorders hold
# events (5 x 31 each), and each recorder's own check of the stream
# finds every subject whole.
nats_wait_msgs "$NATS_DIR" 1 310
check "the stream holds each event once" 310 "$(nats_msgs "$NATS_DIR" 1)"
for d in east west; do
    out=$(on "$d" replicate --check --timeout 60 2>&1); rc=$?
    check "$d: replicate --check finds the stream whole" 0 $rc
    check "$d: nothing repaired" 1 \
        "$(printf '%s\n' "$out" | grep -c ": 0 repaired")"
done
# Each event got there by its own publish or its retry: no pass found a
# match short on the stream (an event skipped, or a match's events sent
# out of order) and published from the log again.  The passes mend
# that, and the checks above see only the mended stream.
for d in east west; do
    check "$d: no match found short, nothing republished" "0 0" \
        "$(on "$d" stats | awk '$1 == "replication.missing" { m = $2 }
             $1 == "replication.republished" { r = $2 }
             END { print m + 0, r + 0 }')"
done
check "replica stopped no match" "" \
    "$(grep replica_stopped_match "$T/rep.log")"

if [ $fail -ne 0 ]; then
    for d in east west rep; do
        tail -n 12 "$T/$d.log" 2>/dev/null | sed "s/^/why: $d.log: /"
    done
fi
echo "nats_kill.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
