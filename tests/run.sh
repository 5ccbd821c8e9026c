#!/bin/sh
# Runs every unit test binary, then every integration script, and prints
# the grand total.  Exit status is non-zero when anything failed.
BUILD=${1:-build}
passed=0; failed=0; broken=""
for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] || continue
    out=$("$t" 2>&1); rc=$?
    printf '%s\n' "$out" | tail -n 40
    p=$(printf '%s\n' "$out" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' | tail -1)
    f=$(printf '%s\n' "$out" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' | tail -1)
    passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
    if [ $rc -ne 0 ]; then
        [ "${f:-0}" -eq 0 ] && failed=$((failed + 1))
        broken="$broken $(basename "$t")"
    fi
done
for t in tests/integration/*.sh; do
    [ -f "$t" ] || continue
    out=$(BUILD="$BUILD" sh "$t" 2>&1); rc=$?
    printf '%s\n' "$out" | tail -n 40
    p=$(printf '%s\n' "$out" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' | tail -1)
    f=$(printf '%s\n' "$out" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' | tail -1)
    passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
    if [ $rc -ne 0 ]; then
        [ "${f:-0}" -eq 0 ] && failed=$((failed + 1))
        broken="$broken $(basename "$t")"
    fi
done
echo "TOTAL: $passed passed, $failed failed"
[ -n "$broken" ] && echo "failing:$broken"
[ $failed -eq 0 ] && [ -z "$broken" ]
