#!/bin/sh
# make soak: the long fault runs, one after the other, each printing its
# figures: >= 1,000 power cuts, >= 1,000 kill -9 under load, the I/O-error
# loop over a larger workload, the load-with-faults soak, and (with
# nats-server) 50 rounds of random damage to a replication stream.
# usage: tests/soak/run.sh BUILD SECS   (run from the repository root)
BUILD=${1:-build}
SECS=${2:-600}
export BUILD
failed=""
run() {  # run NAME CMD...: its last 25 lines, the daemons' fail-stop logs
    # left out, after the lines that say why a step failed (a load's
    # settling, a restart), which may come before them
    name=$1; shift
    echo "== $name ($(date -u +%H:%M:%S) UTC)"
    "$@" > "$T/out.$name" 2>&1
    grep -m 10 'healthy restart failed\|^settling:\|timed out' "$T/out.$name"
    grep -v ' error commit failed\| error exiting after' "$T/out.$name" |
        tail -n 25
}
check() { # check NAME OUTPUT-FILE: its last line must be "N passed, 0 failed"
    # with N > 0: a test that skipped itself (no daemon built) ran nothing.
    tail -n 1 "$2" | grep -q ': [1-9][0-9]* passed, 0 failed$' || failed="$failed $1"
}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
ARB_POWERCUT_CYCLES=${ARB_POWERCUT_CYCLES:-1000} run powercut \
    "$BUILD"/tests/test_powercut > "$T/powercut"; cat "$T/powercut"; check powercut "$T/powercut"
ARB_CRASH_ROUNDS=${ARB_CRASH_ROUNDS:-1000} run crash \
    "$BUILD"/tests/test_crash > "$T/crash"; cat "$T/crash"; check crash "$T/crash"
ARB_IOERR_REQUESTS=${ARB_IOERR_REQUESTS:-40} run ioerr \
    "$BUILD"/tests/test_ioerr > "$T/ioerr"; cat "$T/ioerr"; check ioerr "$T/ioerr"
run soak "$BUILD"/tests/soak_faults "$SECS" 256 > "$T/soak"; cat "$T/soak"; check soak "$T/soak"
# Random stream damage and cursor places, with a seed of the run's own
# (printed: ARB_DAMAGE_SEED=S replays it).
if command -v nats-server > /dev/null; then
    seed=${ARB_DAMAGE_SEED:-$(od -An -N3 -tu4 /dev/urandom | tr -d ' ')}
    ARB_DAMAGE_ROUNDS=${ARB_DAMAGE_ROUNDS:-50} ARB_DAMAGE_SEED=$seed \
        run damage sh tests/integration/nats_damage.sh > "$T/damage"
    cat "$T/damage"; check damage "$T/damage"
fi
if [ -n "$failed" ]; then
    echo "soak: FAILED:$failed"
    exit 1
fi
echo "soak: all passed"
