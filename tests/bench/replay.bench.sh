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
"$B" --dir "$T" --matches "${REPLAY_MATCHES:-2000}"
