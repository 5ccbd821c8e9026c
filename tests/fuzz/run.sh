#!/bin/sh
# tests/fuzz/run.sh BUILD SECS [NAME...]: runs each libFuzzer harness
# BUILD/tests/fuzz_NAME (all of them by default) for SECS seconds, one at a
# time under nice, and prints its executions.  A harness starts from its
# seed corpus tests/fuzz/corpus/NAME plus what earlier runs found, kept in
# BUILD/fuzz/NAME/corpus (outside the repository: only seeds and crashers
# are committed).  A crasher is written to BUILD/fuzz/NAME/ and the run
# fails; add it to the seed corpus once fixed.  tests/fuzz/NAME.dict is
# the harness's dictionary; tests/fuzz/NAME.options, when present, holds
# libFuzzer flags of its own (one line).  With FUZZ_RUNS=N in the
# environment a harness also stops after N executions (whichever of the two
# limits comes first).  With FUZZ_JOBS=N (default 1) N harnesses run at
# once, one per CPU: the names are dealt out to N queues.
BUILD=${1:?usage: run.sh BUILD SECS [NAME...]}
SECS=${2:?usage: run.sh BUILD SECS [NAME...]}
shift 2
names=$*
if [ -z "$names" ]; then
    for h in "$BUILD"/tests/fuzz_*; do
        [ -x "$h" ] && names="$names ${h##*/fuzz_}"
    done
fi
[ -n "$names" ] || { echo "no harness in $BUILD/tests"; exit 1; }
# A smaller quarantine and shorter allocation stacks than ASan's defaults:
# the same checks, at a fraction of the memory and page faults of a long run.
ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=16:malloc_context_size=8}
export ASAN_OPTIONS
# one NAME: runs harness NAME; its summary line goes to its summary file.
one() {
    n=$1
    h=$BUILD/tests/fuzz_$n
    w=$BUILD/fuzz/$n
    mkdir -p "$w/corpus"
    dict=""
    [ -f "tests/fuzz/$n.dict" ] && dict="-dict=tests/fuzz/$n.dict"
    opts=""
    [ -f "tests/fuzz/$n.options" ] && opts=$(cat "tests/fuzz/$n.options")
    [ -n "$FUZZ_RUNS" ] && opts="$opts -runs=$FUZZ_RUNS"
    nice -n 10 "$h" -max_total_time="$SECS" -print_final_stats=1 \
        -artifact_prefix="$w/" $dict $opts "$w/corpus" "tests/fuzz/corpus/$n" \
        > "$w/log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$w/log")
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$w/log")
    printf 'fuzz_%-12s %12s executions %8s exec/s  %s\n' "$n" \
        "${execs:-?}" "${speed:-?}" "$([ $rc -eq 0 ] && echo ok || echo FAILED)" \
        > "$w/summary"
    if [ $rc -ne 0 ]; then
        grep -m 5 -E 'ERROR|invariant|SUMMARY|artifact' "$w/log" >> "$w/summary"
    fi
}
jobs=${FUZZ_JOBS:-1}
case $jobs in ''|*[!0-9]*|0) echo "FUZZ_JOBS: a positive number, not '$jobs'"; exit 1;; esac
for n in $names; do rm -f "$BUILD/fuzz/$n/summary"; done
q=0
while [ "$q" -lt "$jobs" ]; do
    (   i=0
        for n in $names; do
            [ $((i % jobs)) -eq "$q" ] && one "$n"
            i=$((i + 1))
        done ) &
    q=$((q + 1))
done
wait
bad=""
for n in $names; do
    f=$BUILD/fuzz/$n/summary
    if [ -f "$f" ]; then
        cat "$f"
        grep -q ' ok$' "$f" || bad="$bad $n"
    else
        echo "fuzz_$n: no result"
        bad="$bad $n"
    fi
done
[ -z "$bad" ] || { echo "fuzz failures:$bad (logs in $BUILD/fuzz/NAME/log)"; exit 1; }
