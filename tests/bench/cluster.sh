#!/bin/sh
# make bench-cluster: arbiterd against a 3-node JetStream cluster on
# loopback, in the same run: local only (no [replicate]), async and sync
# replication, each at 16 and 256 tables (bench_load: one connection per
# table, one move at a time), with the replication lag a stream reader
# sees (bench_lag) during the async and sync runs.  docs/SCALE.md keeps
# the figures.  Never fails on a target.
#   LOAD_SECS=3 (per table count)  ARB_NATS_PORT_BASE=14400
BUILD=${BUILD:-build}
if ! command -v nats-server > /dev/null 2>&1; then
    echo "bench-cluster: nats-server not installed; skipped"; exit 0
fi
for b in "$BUILD/tests/bench_load" "$BUILD/tests/bench_lag" bin/arbiterd; do
    [ -x "$b" ] || { echo "bench-cluster: $b not built; skipped"; exit 0; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/arbclus.XXXXXX") || exit 1
cleanup() { nats_down "$NATS_DIR"; rm -rf "$T"; }
NATS_DIR=$T/nats
. tests/cluster/nats.sh
trap 'exit 1' INT TERM
SECS=${LOAD_SECS:-3}
nats_up "$NATS_DIR" 3 "${ARB_NATS_PORT_BASE:-14400}" || exit 1
URLS=$(nats_urls "$NATS_DIR")
echo "cluster: 3 nodes at $URLS"
for mode in local async sync; do
    conf=$T/$mode.conf
    : > "$conf"
    if [ "$mode" != local ]; then
        printf '[replicate]\nurls = %s\nrecorder = bench-%s\nmode = %s\n' \
            "$URLS" "$mode" "$mode" > "$conf"
    fi
    mkdir -p "$T/$mode"
    if [ "$mode" != local ]; then
        # the baseline and ceiling runs take 2 x min(SECS,3) s first
        "$BUILD/tests/bench_lag" --urls "$URLS" \
            --secs $((SECS * 2 + 2 * (SECS < 3 ? SECS : 3) + 4)) \
            > "$T/$mode.lag" 2>&1 &
        lagpid=$!
    fi
    LOAD_CONFIG=$conf LOAD_TABLES=16,256 LOAD_SECS=$SECS \
        "$BUILD/tests/bench_load" --daemon bin/arbiterd --dir "$T/$mode" \
        > "$T/$mode.out" 2>&1
    rc=$?
    echo "== $mode =="
    grep -E '^ +(tables|16|256) ' "$T/$mode.out"
    [ $rc -eq 0 ] || { echo "bench_load failed ($rc):"; tail -5 "$T/$mode.out"; }
    if [ "$mode" != local ]; then
        wait "$lagpid"
        cat "$T/$mode.lag"
    fi
done
