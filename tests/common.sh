# Sourced by the integration scripts (tests/integration/*.sh): a temp
# directory removed at exit, the check helper and its counters, and the
# recorder started on that directory.  Each script prints its own
# "NAME: N passed, N failed" line from $pass and $fail.
A=bin/arbiter
pass=0; fail=0
T=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT

check() {   # check NAME EXPECTED ACTUAL
    if [ "$2" = "$3" ]; then pass=$((pass + 1))
    else fail=$((fail + 1)); printf 'FAIL %s\n  want: %s\n  got:  %s\n' "$1" "$2" "$3"; fi
}

# Starts arbiterd on $T/data and unix:$T/s.sock, waits for its socket, and
# points the tools at it with the arbiter token it created.
start_recorder() {
    bin/arbiterd --data "$T/data" --listen "unix:$T/s.sock" --log-level warn \
        2> "$T/daemon.log" < /dev/null > /dev/null &
    pid=$!
    i=0
    while [ ! -S "$T/s.sock" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
    export ARBITER_SERVER="unix:$T/s.sock"
    ARBITER_TOKEN=$(awk '$4 == "arbiter" { print $3 }' "$T/data/tokens")
    export ARBITER_TOKEN
}
