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

# scorekeeper NAME PREFIX: matches PREFIX1..5, moves dealt round-robin,
# 30 moves each; every answer "MATCH SEQ HASH" to $T/acks.NAME.  A move
# that got no answer (the recorder gone, or not yet verified after its
# restart) is sent again with its client id until it is answered.
scorekeeper() {
    for m in 1 2 3 4 5; do
        until on "$1" open --match "$2$m" --game yahchain \
                --players alice,bob --option mode=3 --cid "$2$m-0" \
                > "$T/open.$1" 2>&1 \
              || grep -q "exists" "$T/open.$1"; do
            sleep 0.1
        done
    done
    n=0
    for suit in S H D C U M W F L G; do
        for type in 2 3 4; do
            n=$((n + 1))
            if [ $((n % 2)) -eq 1 ]; then who=alice; else who=bob; fi
            for m in 1 2 3 4 5; do
                k=0
                until out=$(on "$1" move --match "$2$m" --cid "$2$m-$n" \
                            place $who "$type$suit" 2>&1); do
                    k=$((k + 1))
                    [ $k -gt 300 ] && { echo "$2$m move $n: $out"; break; }
                    sleep 0.1
                done
                printf '%s %s\n' "$2$m" "$out" \
                    | awk '{ print $1, $3, $5 }' >> "$T/acks.$1"
            done
        done
    done
}

scorekeeper east E. > "$T/sk.east" 2>&1 &
sk_east=$!
scorekeeper west W. > "$T/sk.west" 2>&1 &
sk_west=$!
# wait_acks NAME N: until scorekeeper NAME has N answers (20 s).
wait_acks() {
    i=0
    while [ "$(cat "$T/acks.$1" 2>/dev/null | wc -l)" -lt "$2" ] \
          && [ $i -lt 200 ]; do
        sleep 0.1; i=$((i + 1))
    done
}
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
seq_hash='s/^{"seq":\([0-9]*\),.*"hash":"\([0-9a-f]*\)".*/\1 \2/p'
held_acks() {  # DAEMON PREFIX SCOREKEEPER: its acks DAEMON lacks
    for m in 1 2 3 4 5; do
        on "$1" events --match "$2$m" --json 2>/dev/null \
            | sed -n "$seq_hash" | sed "s/^/$2$m /"
    done > "$T/held"
    grep "^$2" "$T/acks.$3" | sort > "$T/want"
    sort "$T/held" | comm -23 "$T/want" - | head -3
}
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
check "replica stopped no match" "" \
    "$(grep replica_stopped_match "$T/rep.log")"

if [ $fail -ne 0 ]; then
    for d in east west rep; do
        tail -n 12 "$T/$d.log" 2>/dev/null | sed "s/^/why: $d.log: /"
    done
fi
echo "nats_kill.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
