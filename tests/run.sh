#!/bin/sh
# Runs every unit test binary, replays each fuzz harness's corpus, runs
# every integration script, and prints the grand total.  Exit status is
# non-zero when anything failed: a test that crashes, one that reports no
# "N passed, N failed" line, and a test binary that was never built (every
# tests/unit/test_*.c and tests/fuzz/fuzz_*.c must have its binary in
# BUILD/tests, and bin/ its programs) all count as failures.
#
# TEST_JOBS tests run at once (default: one per CPU, at most 4; 1 runs
# them one after the other, in the old order).  The suite must stay under
# 10 minutes, and most of its time is spent waiting (NATS clusters electing
# leaders, daemons killed and restarted), not computing: on 2 CPUs two at a
# time take about half the time.  Every test has its own temp directory
# and ports (a free one, or a base of its own: tests/cluster/nats.sh), so
# none sees another.  The slowest tests of the last run (BUILD/tests/
# times) start first, so that no long one is left for the end.  A test's
# output is printed whole when it ends: never interleaved with another's.
BUILD=${1:-build}
export BUILD
W=$(mktemp -d "${TMPDIR:-/tmp}/arb-run.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
# Interrupted: the tests running stop too (the shell starts them with
# SIGINT ignored, so a ^C alone would leave them running).
trap 'trap - TERM; kill -TERM 0; exit 1' INT TERM
began=$(date +%s)

# Checked before anything runs: a suite that silently skips what was not
# built would report success for tests that never ran.
missing=""
for src in tests/unit/test_*.c tests/fuzz/fuzz_*.c; do
    [ -f "$src" ] || continue
    b=$(basename "$src" .c)
    [ -x "$BUILD/tests/$b" ] || missing="$missing $BUILD/tests/$b"
done
[ -x bin/arbiter ] || missing="$missing bin/arbiter"
if [ -f daemon/main.c ] && [ ! -x bin/arbiterd ]; then
    missing="$missing bin/arbiterd"
fi
if [ -n "$missing" ]; then
    n=$(echo $missing | wc -w)
    echo "missing (not built; run make):$missing"
    echo "TOTAL: 0 passed, $n failed"
    exit 1
fi

jobs=${TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
case $jobs in
    ''|*[!0-9]*|0) jobs=1 ;;
esac
[ -n "$TEST_JOBS" ] || [ "$jobs" -le 4 ] || jobs=4

# The queue, one test a line: NAME COMMAND...  Every input that ever broke
# a parser or a rule set stays in its harness's corpus
# (tests/fuzz/corpus/NAME for fuzz_NAME) for good.
for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] && echo "${t##*/} $t"
done > "$W/all"
for t in "$BUILD"/tests/fuzz_*; do
    n=${t##*/}
    [ -x "$t" ] && echo "$n $t tests/fuzz/corpus/${n#fuzz_}"
done >> "$W/all"
for t in tests/integration/*.sh; do
    [ -f "$t" ] && echo "${t##*/} sh $t"
done >> "$W/all"
# Longest first (by the last run's times; a test not timed yet first of
# all), the rest in the order above.
if [ "$jobs" -gt 1 ] && [ -f "$BUILD/tests/times" ]; then
    awk 'NR == FNR { t[$2] = $1; next }
         { print ($1 in t ? t[$1] : 100000), FNR, $0 }' \
        "$BUILD/tests/times" "$W/all" | sort -k1,1nr -k2,2n \
        | cut -d' ' -f3- > "$W/queue"
else
    cp "$W/all" "$W/queue"
fi
: > "$W/results"
: > "$W/fails"

# take: the next test of the queue, removed from it (empty: none left).
take() {
    (
        flock 9
        head -n 1 "$W/queue"
        sed -i 1d "$W/queue"
    ) 9> "$W/queue.lock"
}

# run_one NAME COMMAND...: runs it; then, at once under the print lock,
# prints its last 40 lines (and what failed), adds "PASSED FAILED RC SECS
# NAME" to the results and its failures to the fails file.
run_one() {
    name=$1; shift
    out=$W/out.$name
    t0=$(date +%s)
    "$@" > "$out" 2>&1; rc=$?
    secs=$(($(date +%s) - t0))
    pf='s/.*: \([0-9]*\) passed, \([0-9]*\) failed$'
    p=$(sed -n "$pf/\\1/p" "$out" | tail -1)
    f=$(sed -n "$pf/\\2/p" "$out" | tail -1)
    : > "$out.fails"
    if [ $rc -ne 0 ] || [ -z "$p" ]; then
        # what a test printed to explain a failure ("why: ..." lines),
        # then the failed checks themselves, which a long log may have
        # pushed out of the tail: repeated after the total, so that a CI
        # log keeping only its last lines still names them
        grep -E '^why: ' "$out" | head -n 40 | sed "s/^/$name: /" \
            >> "$out.fails"
        grep -E -A2 ': CHECK(_STR|_INT)? failed: |^FAIL ' "$out" \
            | grep -E ': CHECK(_STR|_INT)? failed: |^FAIL |^    (got|want):' \
            | head -n 30 | sed "s/^/$name: /" >> "$out.fails"
        [ -z "$p" ] && echo "$name: no \"N passed, N failed\" line" \
            >> "$out.fails"
        [ $rc -ne 0 ] && echo "$name: exit status $rc" >> "$out.fails"
    fi
    (
        flock 9
        tail -n 40 "$out"
        grep -v '^[^:]*: why: ' "$out.fails"
        echo "${p:--} ${f:-0} $rc $secs $name" >> "$W/results"
        cat "$out.fails" >> "$W/fails"
    ) 9> "$W/print.lock"
    rm -f "$out" "$out.fails"
}

worker() {
    while line=$(take) && [ -n "$line" ]; do
        run_one $line
    done
}

i=0
while [ $i -lt "$jobs" ]; do
    worker &
    i=$((i + 1))
done
wait

# The totals: a test that failed without a failed check (a crash, no
# "N passed" line, a non-zero exit) counts as one failure.
eval "$(awk '{ if ($1 != "-") p += $1; f += $2;
               if ($3 != 0 || $1 == "-") { b = b " " $5; if ($2 == 0) f++ } }
             END { printf "passed=%d failed=%d broken=\"%s\"\n", p, f, b }' \
        "$W/results")"
awk '{ print $4, $5 }' "$W/results" | sort -k1,1nr -k2 > "$W/times"
cp "$W/times" "$BUILD/tests/times" 2>/dev/null
slow=$(head -n 8 "$W/times" | awk '{ printf " %s %ds", $2, $1 }')
echo "time: $(($(date +%s) - began)) s, $jobs at a time; slowest:$slow"
echo "TOTAL: $passed passed, $failed failed"
if [ -n "$broken" ]; then
    cat "$W/fails"
    echo "failing:$broken"
fi
[ "$failed" -eq 0 ] && [ -z "$broken" ]
