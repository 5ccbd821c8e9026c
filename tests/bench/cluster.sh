#!/bin/sh
# make bench-cluster: arbiterd against a 3-node JetStream cluster on
# loopback, in the same run: local only (no [replicate]), async, async
# with max_lag = BOUND_LAG (default 2000; "bounded") and sync
# replication, each at 16 and 256 tables (bench_load: one connection per
# table, one move at a time), with the replication lag a stream reader
# sees (bench_lag) during the replicating runs, per table count and
# with any backlog the stream delivers after the load; a bare synchronous
# R3 publish (bench_pub) just before the sync run, its floor; then a read
# replica's lag (replica_lag.sh, its own cluster) at 16 tables flat out,
# flat out with max_lag = 200 (the recorder's acks paced by the stream)
# and paced at LAG_RATE (default 2000) moves/s, and at 256 tables flat
# out and paced at LAG_RATE256 (default 8000); then a replica's restart,
# resumed and reading the whole stream (replica_restart.sh, BASE+200,
# RESTART_SECS=10 of load).  Ends with the targets,
# PASS or MISSED: replica lag p99 < 100 ms at 16 tables (each run), sync
# p99 ack <= 5 ms at 16 tables, and async within 10% of local-only
# (appends/s and p99 ack) at 16 and 256 tables.
# docs/SCALE.md keeps the figures.  Never fails on a target.
#   LOAD_SECS=3 (per table count)  LAG_RATE=2000, LAG_RATE256=8000 (the
#   paced replica runs)  BOUND_LAG=2000 (the bounded run's max_lag), or
#   BOUND="max_lag_ms = 250" (its [replicate] lines instead)
#   ARB_NATS_PORT_BASE=14400 (this cluster; the replica's gets BASE+100)
#   BENCH_NODES=3 (1: one JetStream node, streams R1: what the recorder's
#   replication costs it, apart from what a 3-node cluster sharing the
#   machine's cores takes)
BUILD=${BUILD:-build}
if ! command -v nats-server > /dev/null 2>&1; then
    echo "bench-cluster: nats-server not installed; skipped"; exit 0
fi
for b in "$BUILD/tests/bench_load" "$BUILD/tests/bench_lag" \
         "$BUILD/tests/bench_pub" bin/arbiterd; do
    [ -x "$b" ] || { echo "bench-cluster: $b not built; skipped"; exit 0; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/arbclus.XXXXXX") || exit 1
cleanup() { nats_down "$NATS_DIR"; rm -rf "$T"; }
NATS_DIR=$T/nats
. tests/cluster/nats.sh
trap 'exit 1' INT TERM
SECS=${LOAD_SECS:-3}
NODES=${BENCH_NODES:-3}
nats_up "$NATS_DIR" "$NODES" "${ARB_NATS_PORT_BASE:-14400}" || exit 1
URLS=$(nats_urls "$NATS_DIR")
echo "cluster: $NODES nodes at $URLS"
for mode in local async bounded sync; do
    conf=$T/$mode.conf
    : > "$conf"
    # bounded: async with max_lag = BOUND_LAG (default 2000), or the
    # [replicate] line(s) of BOUND (e.g. "max_lag_ms = 250")
    m=$mode bound=
    [ "$mode" = bounded ] && m=async bound=${BOUND:-"max_lag = ${BOUND_LAG:-2000}"}
    if [ "$mode" != local ]; then
        printf '[replicate]\nurls = %s\nrecorder = bench-%s\nmode = %s\n%s\n' \
            "$URLS" "$mode" "$m" "$bound" > "$conf"
    fi
    mkdir -p "$T/$mode"
    if [ "$mode" = sync ]; then
        "$BUILD/tests/bench_pub" --urls "$URLS" --secs 2 \
            --replicas "$NODES" > "$T/pub" 2>&1
        cat "$T/pub"
    fi
    if [ "$mode" != local ]; then
        # the baseline and ceiling runs take 2 x min(SECS,3) s first
        "$BUILD/tests/bench_lag" --urls "$URLS" \
            --secs $((SECS * 2 + 2 * (SECS < 3 ? SECS : 3) + 4)) \
            > "$T/$mode.lag" 2>&1 &
        lagpid=$!
    fi
    # the nodes' CPU too: they share this machine's cores
    peers=
    for i in $(seq 1 "$NODES"); do
        p=$(nats_pid "$NATS_DIR" "$i") && peers="$peers${peers:+,}$p"
    done
    LOAD_CONFIG=$conf LOAD_TABLES=16,256 LOAD_SECS=$SECS LOAD_PEER_PIDS=$peers \
        "$BUILD/tests/bench_load" --daemon bin/arbiterd --dir "$T/$mode" \
        > "$T/$mode.out" 2>&1
    rc=$?
    echo "== $mode =="
    grep -E '^ +(tables|16|256) |^  CPU at ' "$T/$mode.out"
    [ $rc -eq 0 ] || { echo "bench_load failed ($rc):"; tail -5 "$T/$mode.out"; }
    if [ "$mode" != local ]; then
        wait "$lagpid"
        cat "$T/$mode.lag"
    fi
done
nats_down "$NATS_DIR"

# The read replica's lag, ack to visible on it, at 16 tables.
ARB_NATS_PORT_BASE=$((${ARB_NATS_PORT_BASE:-14400} + 100)) LAG_TABLES=16 \
    BUILD=$BUILD sh tests/bench/replica_lag.sh > "$T/replica" 2>&1
grep -E '^replica lag|^arbiter restore' "$T/replica"
# Flat out again, with the lag bounded (max_lag: acks wait while the
# stream is more than 200 events behind; docs/SCALE.md).
ARB_NATS_PORT_BASE=$((${ARB_NATS_PORT_BASE:-14400} + 100)) LAG_TABLES=16 \
    LAG_EXTRA="max_lag = 200" BUILD=$BUILD sh tests/bench/replica_lag.sh \
    > "$T/replica_bound" 2>&1
grep -E '^replica lag' "$T/replica_bound"
# The same, paced below the machine's ceiling: flat out, the replica's lag
# is mostly the queues of two saturated cores (docs/REPLICA.md).
ARB_NATS_PORT_BASE=$((${ARB_NATS_PORT_BASE:-14400} + 100)) LAG_TABLES=16 \
    LAG_RATE=${LAG_RATE:-2000} BUILD=$BUILD sh tests/bench/replica_lag.sh \
    > "$T/replica_paced" 2>&1
grep -E '^replica lag' "$T/replica_paced"
# At 256 tables (no target: flat out, a stream that cannot take the
# recorder's rate on these shared cores delivers a growing backlog, and
# the replica's lag is that backlog's age; docs/REPLICA.md).
ARB_NATS_PORT_BASE=$((${ARB_NATS_PORT_BASE:-14400} + 100)) LAG_TABLES=256 \
    BUILD=$BUILD sh tests/bench/replica_lag.sh > "$T/replica256" 2>&1
grep -E '^replica lag' "$T/replica256"
ARB_NATS_PORT_BASE=$((${ARB_NATS_PORT_BASE:-14400} + 100)) LAG_TABLES=256 \
    LAG_RATE=${LAG_RATE256:-8000} BUILD=$BUILD sh tests/bench/replica_lag.sh \
    > "$T/replica256_paced" 2>&1
grep -E '^replica lag' "$T/replica256_paced"
# A replica's restart: resumed where its store ends, and reading the
# whole stream again (its own one-node cluster).
ARB_NATS_PORT_BASE=$((${ARB_NATS_PORT_BASE:-14400} + 200)) \
    BUILD=$BUILD sh tests/bench/replica_restart.sh > "$T/restart" 2>&1
grep -E '^replica restart' "$T/restart"

# The targets: p99 figures in ms (the sync run's 16-table row is in us).
target() {  # NAME VALUE LIMIT (VALUE <= LIMIT passes; "" missing)
    if [ -z "$2" ]; then
        echo "target $1: no figure (MISSED)"
    elif awk -v v="$2" -v l="$3" 'BEGIN { exit !(v <= l) }'; then
        echo "target $1: $2 ms <= $3 ms PASS"
    else
        echo "target $1: $2 ms > $3 ms MISSED"
    fi
}
lag=$(sed -n 's/^replica lag at 16 tables: .*p99 \([0-9]*\) ms.*/\1/p' "$T/replica")
blag=$(sed -n 's/^replica lag at 16 tables, with max_lag.*p99 \([0-9]*\) ms.*/\1/p' "$T/replica_bound")
plag=$(sed -n 's/^replica lag at 16 tables, paced.*p99 \([0-9]*\) ms.*/\1/p' "$T/replica_paced")
ack=$(awk '$1 == 16 && $2 ~ /^[0-9]+$/ { printf "%.1f", $5 / 1000 }' "$T/sync.out")
pub=$(sed -n 's/^bare R[0-9] publish: .*p99 \([0-9]*\) us.*/\1/p' "$T/pub" 2>/dev/null)
target "replica lag p99 at 16 tables, flat out" "$lag" 99.999
target "replica lag p99 at 16 tables, flat out with max_lag = 200" "$blag" 99.999
target "replica lag p99 at 16 tables, paced at ${LAG_RATE:-2000} moves/s" "$plag" 99.999
target "sync p99 ack at 16 tables" "$ack" 5
# Async replication must leave the local figures within 10%: appends/s
# at least 90% of local-only's, p99 ack at most 110% of it (same run,
# same table count); the daemon's CPU per event is shown beside them.
for t in 16 256; do
    l=$(awk -v t=$t '$1 == t && $2 ~ /^[0-9]+$/ { print $2, $5, $10 }' "$T/local.out")
    a=$(awk -v t=$t '$1 == t && $2 ~ /^[0-9]+$/ { print $2, $5, $10 }' "$T/async.out")
    if [ -z "$l" ] || [ -z "$a" ]; then
        echo "target async within 10% of local at $t tables: no figure (MISSED)"
        continue
    fi
    echo "$l $a" | awk -v t=$t '{
        ok = $4 >= 0.9 * $1;
        printf "target async within 10%% of local at %d tables, appends/s: %d vs %d (%.0f%%) %s\n",
            t, $4, $1, 100 * $4 / $1, ok ? "PASS" : "MISSED";
        ok = $5 <= 1.1 * $2;
        printf "target async within 10%% of local at %d tables, p99 ack: %.1f ms vs %.1f ms (%.0f%%) %s\n",
            t, $5 / 1000, $2 / 1000, 100 * $5 / $2, ok ? "PASS" : "MISSED";
        printf "  daemon CPU per event at %d tables: async %s us, local %s us\n", t, $6, $3 }'
done
# What the bound costs and buys (no target): beside async's figures.
for t in 16 256; do
    l=$(awk -v t=$t '$1 == t && $2 ~ /^[0-9]+$/ { print $2, $5 }' "$T/local.out")
    b=$(awk -v t=$t '$1 == t && $2 ~ /^[0-9]+$/ { print $2, $5 }' "$T/bounded.out")
    [ -n "$l" ] && [ -n "$b" ] && echo "$l $b" | awk -v t=$t -v m="${BOUND_LAG:-2000}" '{
        printf "async with max_lag = %d at %d tables: %d appends/s (%.0f%% of local), p99 ack %.1f ms\n",
            m, t, $3, 100 * $3 / $1, $4 / 1000 }'
done
[ -n "$pub" ] && echo "floor: bare R$NODES publish p99 $(awk -v p="$pub" 'BEGIN { printf "%.1f", p / 1000 }') ms"
exit 0
