# A recorder under a bursty load (five matches written at once) on a
# 3-node JetStream cluster that stops answering: every node is frozen
# (SIGSTOP) mid-load, the recorder keeps acknowledging (async), its
# publishes in flight get no PubAck, and its window, read ahead of them
# (max_pending 4: twice that read), holds events it has not sent; it is
# killed with kill -9 while the cluster is still frozen.  Thawed, the
# recorder is started again and the scorekeepers retry what got no
# answer.  Afterwards every acknowledged
# event is on the recorder, the stream holds each event once, and no
# pass had to republish any: the cursor file the killed recorder left
# named no event the stream had not acked (a cursor saved past it, as
# far as the window was read, made the restart skip the events read but
# not sent, and only a pass put them on the stream again).
# Ports: ARB_NATS_PORT_BASE (default 18500).
. tests/common.sh
. tests/cluster/nats.sh
nats_test_up nats_burst.sh 3 18500
. tests/cluster/recorders.sh

# burst_keeper NAME MATCH: opens MATCH and records 30 moves on it, each
# sent again with its client id until answered; the answers ("MATCH SEQ
# HASH") to $T/acks.NAME.
burst_keeper() {
    until on "$1" open --match "$2" --game yahchain --players alice,bob \
            --option mode=3 --cid "$2-0" > "$T/open.$2" 2>&1 \
          || grep -q "exists" "$T/open.$2"; do
        sleep 0.1
    done
    n=0
    for suit in S H D C U M W F L G; do
        for type in 2 3 4; do
            n=$((n + 1))
            if [ $((n % 2)) -eq 1 ]; then who=alice; else who=bob; fi
            k=0
            until out=$(on "$1" move --match "$2" --cid "$2-$n" \
                        place $who "$type$suit" 2>&1); do
                k=$((k + 1))
                [ $k -gt 300 ] && { echo "$2 move $n: $out"; break; }
                sleep 0.1
            done
            printf '%s %s\n' "$2" "$out" | awk '{ print $1, $3, $5 }' \
                >> "$T/acks.$1"
        done
    done
}

REPL_EXTRA="max_pending = 4"
start_replicating east B.
sks=
for m in 1 2 3 4 5; do
    burst_keeper east "B.$m" > "$T/sk.$m" 2>&1 &
    sks="$sks $!"
done
wait_acks east 25
for i in 1 2 3; do kill -STOP "$(nats_pid "$NATS_DIR" $i)"; done
acked_at_freeze=$(wc -l < "$T/acks.east")
sleep 2
acked_frozen=$(($(wc -l < "$T/acks.east") - acked_at_freeze))
kill -9 "$pid_east"; wait "$pid_east" 2>/dev/null
for i in 1 2 3; do kill -CONT "$(nats_pid "$NATS_DIR" $i)"; done
for i in 1 2 3; do nats_wait "$NATS_DIR" $i; done
start_replicating east B.
wait $sks
check "scorekeepers: every move answered" "" "$(cat "$T"/sk.*)"
check "cluster frozen mid-load" 1 \
    "$([ "$acked_at_freeze" -gt 0 ] && [ "$acked_at_freeze" -lt 150 ] \
       && echo 1)"
check "moves acked while the cluster was frozen" 1 \
    "$([ "$acked_frozen" -ge 10 ] && echo 1)"
check "every move acked" 150 "$(wc -l < "$T/acks.east")"
check "east holds every ack" "" "$(held_acks east B. east)"

# Each event once on the stream (5 x 31), the subjects whole, and each
# there by its own publish or its retry: no pass found a match short and
# published from the log again.
nats_wait_msgs "$NATS_DIR" 1 155
check "the stream holds each event once" 155 "$(nats_msgs "$NATS_DIR" 1)"
out=$(on east replicate --check --timeout 60 2>&1); rc=$?
check "replicate --check finds the stream whole" 0 $rc
check "nothing repaired" 1 "$(printf '%s\n' "$out" | grep -c ": 0 repaired")"
check "no match found short, nothing republished" "0 0" \
    "$(on east stats | awk '$1 == "replication.missing" { m = $2 }
         $1 == "replication.republished" { r = $2 }
         END { print m + 0, r + 0 }')"

if [ $fail -ne 0 ]; then
    tail -n 20 "$T/east.log" 2>/dev/null | sed "s/^/why: east.log: /"
fi
echo "nats_burst.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
