#!/bin/sh
# Replay, chain verification and index rebuild over a fresh store of
# REPLAY_MATCHES (default 2000) YAHchain matches of 145 events: events/s per
# core (tests/bench/bench_replay.c).  Never fails on a target.
BUILD=${BUILD:-build}
B="$BUILD/tests/bench_replay"
if [ ! -x "$B" ]; then
    echo "replay: $B not built; skipped"
    exit 0
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/arbreplay.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM
"$B" --dir "$T" --matches "${REPLAY_MATCHES:-2000}" || exit 1
# `arbiter verify` as a user runs it (a new process: the file mapped, its
# pages and the report's memory touched for the first time), best of 3.
A=${ARBITER:-bin/arbiter}
if [ -x "$A" ] && [ -f "$T/all.bundle" ]; then
    best=0
    for i in 1 2 3; do
        t0=$(date +%s%N)
        "$A" verify "$T/all.bundle" --pubkey "$T/keys/signing.pub" \
            > "$T/verify.out" 2>&1 || { tail -1 "$T/verify.out"; exit 1; }
        t1=$(date +%s%N)
        n=$(sed -n 's/^verified: [0-9]* matches, \([0-9]*\) events.*/\1/p' \
            "$T/verify.out")
        r=$(( ${n:-0} * 1000000 / (t1 - t0) ))  # events per ms
        [ "$r" -gt "$best" ] && best=$r
    done
    echo "  $A verify FILE (new process, $n events): $((best / 1000)).$(printf '%03d' $((best % 1000))) M/s wall"
fi
