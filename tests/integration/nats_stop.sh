# A replicating recorder stops at once whatever NATS does: SIGTERM while
# its thread waits on a request to a NATS server that answers nothing
# (SIGSTOPped), and SIGTERM while it starts, waiting for its first look
# at that stream.  Both waits last up to timeout_ms (30 s here); until
# 2026-12-05 the stop waited them out (a service manager's stop hung,
# and test_replicate's fresh start was killed once on a loaded CI
# machine).  So does a read replica following that stream.  What the
# stopped recorder had acknowledged reaches the stream, and the
# replica, once they run again.  And an event changed on the disk before
# it was published is not published.
# Ports: ARB_NATS_PORT_BASE (default 18700).
. tests/common.sh
. tests/cluster/nats.sh
nats_test_up nats_stop.sh 1 18700
. tests/cluster/recorders.sh
OP=${BUILD:-build}/tests/nats_op
NATS_PID=$(nats_pid "$NATS_DIR" 1)

# stops NAME PID [SECS]: SIGTERM to PID; $stopped is then its exit
# status if it ended within SECS (5) seconds, else "hung" (and it is
# killed).  (Not run in a subshell: there the exited daemon, a zombie
# until this shell reaps it, would still seem to run.)
stops() {
    kill -TERM "$2"
    i=0
    while ps -o stat= -p "$2" | grep -qv Z && [ $i -lt $((${3:-5} * 10)) ]
    do
        sleep 0.1; i=$((i + 1))
    done
    if ps -o stat= -p "$2" | grep -qv Z; then
        kill -KILL "$2"; wait "$2" 2>/dev/null
        stopped=hung
        tail -n 5 "$T/$1.log" | sed "s/^/why: $1.log: /"
        return
    fi
    wait "$2"
    stopped=$?
}

# stream_holds MATCH N: until the stream holds N messages of MATCH (10 s).
stream_holds() {
    i=0
    while [ "$($OP "$URLS" count ARBITER "$1")" != "$2" ] && [ $i -lt 100 ]
    do
        sleep 0.1; i=$((i + 1))
    done
}

REPL_EXTRA="timeout_ms = 30000"
start_replicating east E.
play east E.1 6
stream_holds E.1 7
start_replica rep
caught_up E.1 east events

# The stream answers nothing; a pass asked for waits on it, and a move
# is acknowledged locally meanwhile.
kill -STOP "$NATS_PID"
on east replicate --check --no-wait > /dev/null
play east E.1 9 6
sleep 0.5
stops east "$pid_east"
check "stopped while waiting on NATS: exits 0 within 5 s" 0 "$stopped"
# A read replica too: its requests last up to 2 s each, several in a row
# (5.3 s seen until 2026-12-05); now its connection is closed under them
# after a second.
stops rep "$pid_rep" 3
check "replica stopped while NATS answers nothing: exits 0 within 3 s" 0 \
    "$stopped"

# A recorder starting meanwhile waits for its look (up to timeout_ms)
# before it serves; a stop cuts that short.
LOGLEVEL=info NO_VERIFY=1 start_replicating west W.
sleep 3
stops west "$pid_west"
check "stopped while starting: exits 0 within 5 s" 0 "$stopped"
check "stopped while starting: said so" 1 \
    "$(grep -c "signal 15 while starting" "$T/west.log")"

# NATS back: the restarted recorder publishes what it acknowledged.
kill -CONT "$NATS_PID"
start_replicating east E.
stream_holds E.1 10
check "every acknowledged event on the stream" 10 \
    "$($OP "$URLS" count ARBITER E.1)"
start_replica rep
caught_up E.1 east events
check "the replica holds them as the recorder does" \
    "$(on east events --match E.1 --json)" \
    "$(on rep events --match E.1 --json 2>&1)"

# An event changed on the disk before it was published is not published
# under the hash it no longer has (until 2026-12-07 the replicator's read
# of the log trusted the stored hashes): its link is checked, the read
# fails, and that is logged, naming match and seq.  The notes are taken
# while the recorder runs without [replicate], so that they wait past its
# cursor for the next start with it.
start_replicating south S.
play south S.1 3
stream_holds S.1 4
stops south "$pid_south"
printf 'data = %s\nlisten = unix:%s\n' "$T/south" "$T/south.sock" \
    > "$T/plain.conf"
bin/arbiterd --config "$T/plain.conf" 2>> "$T/south.log" < /dev/null \
    > /dev/null &
pid_plain=$!; pids="$pids $pid_plain"
wait_sock "$T/south.sock"
on south note --match S.1 CHANGEDNOTE > /dev/null
on south note --match S.1 LATERNOTE > /dev/null
stops south "$pid_plain"
for off in $(grep -obUa "CHANGEDNOTE" "$T/south/data.mdb" | cut -d: -f1); do
    printf 'X' | dd of="$T/south/data.mdb" bs=1 seek="$off" conv=notrunc \
        2>/dev/null
done
NO_VERIFY=1 start_replicating south S.
i=0
while ! grep -q 'match "S.1" seq 4: stored hash does not match' \
        "$T/south.log" && [ $i -lt 100 ]; do
    sleep 0.1; i=$((i + 1))
done
check "a changed event: the replicator's read of the log says where" 1 \
    "$(grep -c 'reading the log.*match "S.1" seq 4: stored hash does not match the chain' "$T/south.log" | sed 's/^[1-9][0-9]*$/1/')"
check "... and the stream never gets it, nor what follows" 4 \
    "$($OP "$URLS" count ARBITER S.1)"

echo "nats_stop.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
