#!/bin/sh
# A read replica's restart: how long until it serves a move made after
# it started, when it resumes the stream where its store ends
# (DATA/replica.pos) and when it reads the whole stream again (no
# replica.pos: a first start, or before 2026-12-04 every start).  A
# recorder replicating in async mode fills the stream with RESTART_SECS
# (default 10) of bench_load at 256 tables; a replica follows it; then
# each start is timed twice, alternating.  Prints
# "replica restart, stream of N messages: resumed A and B ms, whole
# stream C and D ms (E messages/s)".  One JetStream node (the read path
# is what is timed).  Never fails on a target.  Ports: ARB_NATS_PORT_BASE
# (default 16900).
BUILD=${BUILD:-build}
B="$BUILD/tests/bench_load"
. tests/common.sh
NATS_DIR=$T/nats
. tests/cluster/nats.sh
nats_bench_up replica_restart 1 16900
. tests/cluster/recorders.sh
bench_daemon
mkdir -p "$T/load"
"$B" --daemon "$T/d.sh" --dir "$T/load" --secs "${RESTART_SECS:-10}" \
    --tables 256 > /dev/null
start_replicating east E.
msgs=$(nats_msgs "$NATS_DIR" 1)
ms() { date +%s%3N; }
# start_timed K: starts the replica, makes a move on a new match E.K of
# east, and prints the ms until the replica serves it (60 s at most).
start_timed() {
    k=$1
    t0=$(ms)
    start_replica rep
    play east "E.$k" 1 >&2
    want=$(on east state --match "E.$k" --json)
    i=0
    while [ "$(on rep state --match "E.$k" --json 2>/dev/null)" != "$want" ] \
          && [ $i -lt 3000 ]; do
        sleep 0.02; i=$((i + 1))
    done
    echo $(($(ms) - t0))
    kill "$pid_rep"; wait "$pid_rep" 2>/dev/null
}
start_timed 1 > /dev/null           # the first start reads it all
r1=$(start_timed 2)
rm -f "$T/rep/replica.pos"; w1=$(start_timed 3)
r2=$(start_timed 4)
rm -f "$T/rep/replica.pos"; w2=$(start_timed 5)
echo "replica restart, stream of $msgs messages: resumed $r1 and $r2 ms," \
     "whole stream $w1 and $w2 ms ($(awk -v n="$msgs" -v a="$w1" -v b="$w2" \
     'BEGIN { printf "%.0f", 2 * n / ((a + b) / 1000) }') messages/s)"
