#!/bin/sh
# The scratch directories of the in-process tests (fuzz_dispatch,
# test_nomem: disk_scratch_make in tests/crash/disk.c): a run removes its
# own at exit, and what runs that crashed or were killed left behind is
# removed by the next run, never a directory whose process still runs.
# ARBITER_TEST_SCRATCH points the harness at a directory of this test.
. tests/common.sh
BUILD=${BUILD:-build}
S=$T/scratch
mkdir -p "$S"
export ARBITER_TEST_SCRATCH=$S

# Left over by a process that is gone: a killed run, and a crashed one of
# the old form (no PID in the name) whose cleanup had begun (no tokens).
( : ) & dead=$!; wait $dead
mkdir -p "$S/arbiter-fuzz-$dead-aaaaaa/store" "$S/arbiter-fuzz-oldaaa/store"
: > "$S/arbiter-fuzz-$dead-aaaaaa/store/data.mdb"
: > "$S/arbiter-fuzz-oldaaa/store/index.mdb"
# Still in use: a directory of a live process, a fresh old-form one with
# its tokens, and another harness's.
mkdir -p "$S/arbiter-fuzz-$$-bbbbbb" "$S/arbiter-fuzz-oldbbb" \
         "$S/arbiter-nomem-$dead-cccccc"
: > "$S/arbiter-fuzz-oldbbb/tokens"

"$BUILD/tests/fuzz_dispatch" > "$T/out" 2>&1
check "fuzz_dispatch ran its corpus" 0 $?
check "left: the live ones, nothing of its own" "arbiter-fuzz-$$-bbbbbb
arbiter-fuzz-oldbbb
arbiter-nomem-$dead-cccccc" "$(ls "$S" | sort)"

echo "scratch.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
