#!/bin/sh
# tests/run.sh itself, in a sandbox tree of fake tests: a suite whose
# binaries were never built, or a test that reports no count, must fail;
# the complete fake suite must pass (so the checks can tell the two apart).
pass=0; fail=0
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM

check() {   # check NAME EXPECTED ACTUAL
    if [ "$2" = "$3" ]; then pass=$((pass + 1))
    else fail=$((fail + 1)); printf 'FAIL %s\n  want: %s\n  got:  %s\n' "$1" "$2" "$3"; fi
}

# fake NAME LINE: an executable that prints LINE and exits 0.
fake() {
    printf '#!/bin/sh\necho "%s"\n' "$2" > "$1"
    chmod +x "$1"
}

S=$T/tree
mkdir -p "$S/tests/unit" "$S/tests/fuzz/corpus/a" "$S/tests/integration" \
         "$S/build/tests" "$S/bin" "$S/daemon"
cp tests/run.sh "$S/tests/run.sh"
: > "$S/tests/unit/test_one.c"; : > "$S/tests/unit/test_two.c"
: > "$S/tests/fuzz/fuzz_a.c"; : > "$S/tests/fuzz/corpus/a/seed"
: > "$S/daemon/main.c"
fake "$S/build/tests/test_one" "test_one.c: 3 passed, 0 failed"
fake "$S/build/tests/test_two" "test_two.c: 2 passed, 0 failed"
fake "$S/build/tests/fuzz_a" "fuzz_a.c: 1 passed, 0 failed"
fake "$S/bin/arbiter" ""
fake "$S/bin/arbiterd" ""
printf 'echo "ok.sh: 4 passed, 0 failed"\n' > "$S/tests/integration/ok.sh"

runit() {   # runit BUILD: "<exit status> <TOTAL line>"
    out=$(cd "$S" && sh tests/run.sh "$1" 2>&1); rc=$?
    printf '%s %s' "$rc" "$(printf '%s\n' "$out" | grep '^TOTAL')"
}

check "complete suite passes" "0 TOTAL: 10 passed, 0 failed" "$(runit build)"
check "build dir that does not exist" "1 TOTAL: 0 passed, 3 failed" \
      "$(runit nonexistent)"

rm "$S/build/tests/test_two"
check "one unit binary missing" "1 TOTAL: 0 passed, 1 failed" "$(runit build)"
out=$(cd "$S" && sh tests/run.sh build 2>&1)
case $out in *"build/tests/test_two"*) r=named ;; *) r=unnamed ;; esac
check "the missing binary is named" named "$r"
fake "$S/build/tests/test_two" "test_two.c: 2 passed, 0 failed"

rm "$S/build/tests/fuzz_a"
check "fuzz harness missing" "1 TOTAL: 0 passed, 1 failed" "$(runit build)"
fake "$S/build/tests/fuzz_a" "fuzz_a.c: 1 passed, 0 failed"

rm "$S/bin/arbiterd"
check "daemon missing" "1 TOTAL: 0 passed, 1 failed" "$(runit build)"
fake "$S/bin/arbiterd" ""

chmod -x "$S/build/tests/test_one"
check "unit binary not executable" "1 TOTAL: 0 passed, 1 failed" \
      "$(runit build)"
chmod +x "$S/build/tests/test_one"

fake "$S/build/tests/test_one" "something else"
check "a test without a count line fails" "1 TOTAL: 7 passed, 1 failed" \
      "$(runit build)"
fake "$S/build/tests/test_one" "test_one.c: 3 passed, 0 failed"

# a failed check is repeated after the total, where a CI log's tail keeps it
printf '#!/bin/sh\necho "t.c:9: CHECK failed: x == 1"\necho "test_one.c: 2 passed, 1 failed"\nexit 1\n' \
    > "$S/build/tests/test_one"
out=$(cd "$S" && sh tests/run.sh build 2>&1)
check "a failed check is counted" "TOTAL: 9 passed, 1 failed" \
      "$(printf '%s\n' "$out" | grep '^TOTAL')"
check "the failed check follows the total" \
      "test_one: t.c:9: CHECK failed: x == 1|test_one: exit status 1|failing: test_one" \
      "$(printf '%s\n' "$out" | sed -n '/^TOTAL/,$p' | sed 1d | paste -sd'|' -)"
fake "$S/build/tests/test_one" "test_one.c: 3 passed, 0 failed"

check "restored suite passes" "0 TOTAL: 10 passed, 0 failed" "$(runit build)"

echo "run_sh.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
