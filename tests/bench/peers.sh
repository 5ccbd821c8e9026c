#!/bin/sh
# make bench-peers: arbiterd against Redis 7 Streams in the same run.
#
# For each point T (1, 16, 256 concurrent tables/clients), interleaved so
# that both see the same machine: bench_load with T tables (each waits for
# its ack, client ids on), then redis-server with appendonly yes and
# appendfsync always, XADD of a 60-byte field by redis-benchmark with T
# clients, no pipelining (-P 1: each client waits for its reply), T
# streams.  Prints, per point, both rates, the ratio arbiter/Redis, both
# p99s, the one-fsync-per-event floor and the store-alone ceiling that
# bench_load measured in the same run, and the daemon's CPU per event.
# Redis is a benchmark peer only: when redis-server is not installed the
# peer is skipped with a message.  Never fails on a target.
#   LOAD_SECS (default 4), LOAD_TABLES (default 1,16,256),
#   LOAD_DIR (scratch directory's parent; default $TMPDIR or /tmp)
BUILD=${1:-${BUILD:-build}}
B="$BUILD/tests/bench_load"
SECS=${LOAD_SECS:-4}
POINTS=$(echo "${LOAD_TABLES:-1,16,256}" | tr ',' ' ')
if [ ! -x "$B" ] || [ ! -x bin/arbiterd ]; then
    echo "peers: $B or bin/arbiterd not built; skipped"
    exit 0
fi
T=$(mktemp -d "${LOAD_DIR:-${TMPDIR:-/tmp}}/arbpeers.XXXXXX") || exit 1
RPID=
cleanup() {
    [ -n "$RPID" ] && kill "$RPID" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

have_redis=1
if ! command -v redis-server > /dev/null 2>&1 ||
   ! command -v redis-benchmark > /dev/null 2>&1; then
    have_redis=0
    echo "peers: redis-server/redis-benchmark not installed (Debian package" \
         "redis-server); the Redis peer is skipped"
fi

# redis_point C: prints "rps p99_ms" for XADD with C clients.
redis_point() {
    c=$1
    rm -rf "$T/redis"; mkdir -p "$T/redis"
    redis-server --port 0 --unixsocket "$T/redis/r.sock" --dir "$T/redis" \
        --appendonly yes --appendfsync always --save '' \
        --daemonize yes --pidfile "$T/redis/r.pid" \
        --logfile "$T/redis/r.log" || return 1
    i=0
    until [ -S "$T/redis/r.sock" ] && [ -f "$T/redis/r.pid" ]; do
        i=$((i + 1)); [ $i -gt 100 ] && return 1; sleep 0.05
    done
    RPID=$(cat "$T/redis/r.pid")
    v=$(printf '%060d' 0)
    # A short probe sizes the run to about SECS seconds.
    n=$((c * 20)); [ $n -lt 200 ] && n=200
    rps=$(redis-benchmark -s "$T/redis/r.sock" -c "$c" -n "$n" -P 1 \
              -r "$c" --csv XADD 's:__rand_int__' '*' f "$v" 2>/dev/null |
          awk -F'"' 'NR == 2 { print int($4) }')
    n=$(( ${rps:-100} * SECS )); [ $n -lt $((c * 10)) ] && n=$((c * 10))
    redis-benchmark -s "$T/redis/r.sock" -c "$c" -n "$n" -P 1 -r "$c" \
        --csv XADD 's:__rand_int__' '*' f "$v" 2>/dev/null |
        awk -F'"' 'NR == 2 { print $4, $14 }'
    kill "$RPID"; RPID=
    i=0
    while [ -f "$T/redis/r.pid" ] && [ $i -lt 100 ]; do
        i=$((i + 1)); sleep 0.05
    done
}

echo "peers: arbiterd vs Redis $(redis-server --version 2>/dev/null |
    sed -n 's/.*v=\([^ ]*\).*/\1/p') Streams (appendonly yes, appendfsync" \
     "always, XADD of a 60-byte field), interleaved per point, ${SECS} s" \
     "each, same machine, same run"
: > "$T/rows"
for p in $POINTS; do
    mkdir -p "$T/a$p"
    "$B" --daemon bin/arbiterd --dir "$T/a$p" --secs "$SECS" --tables "$p" \
        --cid > "$T/a$p.out" 2>&1
    sed 's/^/  arbiter: /' "$T/a$p.out" | grep -v 'targets:'
    a=$(awk -v t="$p" '$1 == t && $2 ~ /^[0-9]+$/ && NF >= 12 { print $2, $5, $10 }' "$T/a$p.out")
    # the floor: the mean of the baselines (a 1-table run measures one
    # before and one after it)
    floor=$(sed -n 's/.*fsync baseline.*: \([0-9]*\) events\/s.*/\1/p' "$T/a$p.out" |
        awk '{ s += $1; n++ } END { if (n) printf "%.0f", s / n }')
    ceil=$(sed -n 's/.*store alone.*: \([0-9]*\) events\/s.*/\1/p' "$T/a$p.out")
    # the 1-table target's own measure: slices of the daemon and of the
    # floor alternating (the disk drifts within minutes here)
    pair=$(sed -n 's/.*paired with the floor.*daemon \([0-9]*\) appends\/s, fsync baseline \([0-9]*\) events\/s.*/\1 \2/p' "$T/a$p.out")
    r="- -"
    if [ $have_redis -eq 1 ]; then
        r=$(redis_point "$p")
        [ -z "$r" ] && r="- -"
        echo "  redis:   $p clients: $r (XADD/s, p99 ms)"
    fi
    echo "$p ${a:-- - -} $r ${floor:--} ${ceil:--} ${pair:-- -}" >> "$T/rows"
done

echo
echo "| tables / clients | arbiter appends/s | Redis XADD/s | arbiter / Redis | arbiter p99 | Redis p99 | 1-fsync floor ev/s | store-alone ceiling ev/s | daemon CPU us/event |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
awk '{
    ratio = ($5 != "-" && $5 > 0) ? sprintf("%.2f", $2 / $5) : "-";
    rp99 = ($6 != "-") ? sprintf("%.2f ms", $6) : "-";
    printf "| %s | %s | %s | %s | %.2f ms | %s | %s | %s | %s |\n",
        $1, $2, $5, ratio, $3 / 1000, rp99, $7, $8, $4
}' "$T/rows"
awk 'BEGIN { printf "targets:" } {
    if ($1 == 256 && $5 != "-")
        printf " [256 tables >= 2x Redis: %.2fx, %s] [256 tables >= 150000/s: %s, %s]",
            $2 / $5, ($2 >= 2 * $5) ? "PASS" : "MISSED", $2,
            ($2 >= 150000) ? "PASS" : "MISSED";
    if ($1 == 16)
        printf " [16 tables p99 <= 2 ms: %.2f ms, %s]%s", $3 / 1000,
            ($3 <= 2000) ? "PASS" : "MISSED",
            ($6 != "-") ? sprintf(" [16 tables p99 <= Redis p99 %.2f ms: %s]",
                                  $6, ($3 / 1000 <= $6) ? "PASS" : "MISSED") : "";
    if ($1 == 1 && $10 != "-" && $10 > 0)
        printf " [1 table >= 90%% of the 1-fsync floor (paired slices: %s against %s/s): %.0f%%, %s]",
            $9, $10, 100 * $9 / $10, ($9 >= 0.9 * $10) ? "PASS" : "MISSED";
    else if ($1 == 1 && $7 != "-" && $7 > 0)
        printf " [1 table >= 90%% of the 1-fsync floor: %.0f%%, %s]",
            100 * $2 / $7, ($2 >= 0.9 * $7) ? "PASS" : "MISSED";
} END { print "" }' "$T/rows"
exit 0
