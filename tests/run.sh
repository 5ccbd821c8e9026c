#!/bin/sh
# Runs every unit test binary, replays each fuzz harness's corpus, then runs
# every integration script, and prints the grand total.  Exit status is
# non-zero when anything failed: a test that crashes, one that reports no
# "N passed, N failed" line, and a test binary that was never built (every
# tests/unit/test_*.c and tests/fuzz/fuzz_*.c must have its binary in
# BUILD/tests, and bin/ its programs) all count as failures.
BUILD=${1:-build}
export BUILD
passed=0; failed=0; broken=""
# The failed checks of every test, repeated after the total: a CI log that
# keeps only its last lines must still say what failed.
fails=$(mktemp "${TMPDIR:-/tmp}/arb-fails.XXXXXX") || exit 1
# Each test's wall time, for the slowest ones printed at the end: the
# whole suite must stay under 10 minutes.
times=$(mktemp "${TMPDIR:-/tmp}/arb-times.XXXXXX") || exit 1
trap 'rm -f "$fails" "$times"' EXIT
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

# run_one NAME COMMAND...: runs it, adds its "N passed, N failed" line.
run_one() {
    name=$1; shift
    t0=$(date +%s)
    out=$("$@" 2>&1); rc=$?
    echo "$(($(date +%s) - t0)) $name" >> "$times"
    printf '%s\n' "$out" | tail -n 40
    p=$(printf '%s\n' "$out" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' | tail -1)
    f=$(printf '%s\n' "$out" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' | tail -1)
    passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
    if [ $rc -ne 0 ] || [ -z "$p" ]; then
        # what a test printed to explain a failure ("why: ..." lines),
        # then the failed checks themselves, which a long log may have
        # pushed out of the tail above: last, so that a CI log keeping
        # only its last lines still names them
        printf '%s\n' "$out" | grep -E '^why: ' | head -n 40 \
            | sed "s/^/$name: /" >> "$fails"
        printf '%s\n' "$out" \
            | grep -E -A2 ': CHECK(_STR|_INT)? failed: |^FAIL ' \
            | grep -E ': CHECK(_STR|_INT)? failed: |^FAIL |^    (got|want):' \
            | head -n 30 | sed "s/^/$name: /" | tee -a "$fails"
        [ "${f:-0}" -eq 0 ] && failed=$((failed + 1))
        [ -z "$p" ] && echo "$name: no \"N passed, N failed\" line" \
            | tee -a "$fails"
        [ $rc -ne 0 ] && echo "$name: exit status $rc" | tee -a "$fails"
        broken="$broken $name"
    fi
}

for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] && run_one "$(basename "$t")" "$t"
done
# Every input that ever broke a parser or a rule set stays in its harness's
# corpus (tests/fuzz/corpus/NAME for fuzz_NAME) for good.
for t in "$BUILD"/tests/fuzz_*; do
    n=$(basename "$t")
    [ -x "$t" ] && run_one "$n" "$t" "tests/fuzz/corpus/${n#fuzz_}"
done
for t in tests/integration/*.sh; do
    [ -f "$t" ] && run_one "$(basename "$t")" sh "$t"
done
slow=$(sort -rn "$times" | head -n 8 | awk '{ printf " %s %ds", $2, $1 }')
echo "time: $(($(date +%s) - began)) s; slowest:$slow"
echo "TOTAL: $passed passed, $failed failed"
if [ -n "$broken" ]; then
    cat "$fails"
    echo "failing:$broken"
fi
[ $failed -eq 0 ] && [ -z "$broken" ]
