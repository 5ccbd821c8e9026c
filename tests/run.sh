#!/bin/sh
# Runs every unit test binary, replays the fuzz corpus, then runs every
# integration script, and prints the grand total.  Exit status is non-zero
# when anything failed (a test that crashes counts as a failure).
BUILD=${1:-build}
export BUILD
passed=0; failed=0; broken=""

# run_one NAME COMMAND...: runs it, adds its "N passed, N failed" line.
run_one() {
    name=$1; shift
    out=$("$@" 2>&1); rc=$?
    printf '%s\n' "$out" | tail -n 40
    p=$(printf '%s\n' "$out" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' | tail -1)
    f=$(printf '%s\n' "$out" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' | tail -1)
    passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
    if [ $rc -ne 0 ]; then
        [ "${f:-0}" -eq 0 ] && failed=$((failed + 1))
        broken="$broken $name"
    fi
}

for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] && run_one "$(basename "$t")" "$t"
done
# Every input that ever broke the codec stays in the corpus for good.
for t in "$BUILD"/tests/fuzz_*; do
    [ -x "$t" ] && run_one "$(basename "$t")" "$t" tests/fuzz/corpus/*
done
for t in tests/integration/*.sh; do
    [ -f "$t" ] && run_one "$(basename "$t")" sh "$t"
done
echo "TOTAL: $passed passed, $failed failed"
[ -n "$broken" ] && echo "failing:$broken"
[ $failed -eq 0 ] && [ -z "$broken" ]
