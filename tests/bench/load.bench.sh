#!/bin/sh
# Load on arbiterd: T concurrent tables (T = 1, 16, 256), each one
# connection appending one move at a time and waiting for its ack, for
# LOAD_SECS seconds per T (default 5).  Prints appends/s, events per commit
# and ack latency per T, the one-fsync-per-event store baseline, the store's
# own ceiling at 128 events per commit, and the replay throughput of what
# was written; then the targets.  Never fails on a target.
#   LOAD_SECS=1 LOAD_TABLES=1,16,256 LOAD_CID=1 (send a client id too)
#   LOAD_DIR=/some/disk  (scratch directory's parent; default $TMPDIR or /tmp)
BUILD=${BUILD:-build}
B="$BUILD/tests/bench_load"
if [ ! -x "$B" ] || [ ! -x bin/arbiterd ]; then
    echo "load: $B or bin/arbiterd not built; skipped"
    exit 0
fi
T=$(mktemp -d "${LOAD_DIR:-${TMPDIR:-/tmp}}/arbload.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM
"$B" --daemon bin/arbiterd --dir "$T" --secs "${LOAD_SECS:-5}" \
     --tables "${LOAD_TABLES:-1,16,256}"
rc=$?
if [ $rc -ne 0 ]; then
    echo "load: bench_load exited with status $rc; daemon log:"
    tail -n 20 "$T/arbiterd.log" 2>/dev/null
fi
exit $rc
