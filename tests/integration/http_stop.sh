#!/bin/sh
# A SIGTERM while HTTP writes await their commit: every write the stop's
# last commit recorded is answered before its connection closes, and
# none that was not answered is in the log (until 2026-12-06 the HTTP
# connections were shut at once: writes the last commit recorded went
# unanswered, and a client without a cid could not tell them from writes
# lost).  The disk is made slow (the test-only I/O shim sleeps before
# each sync) so that the signal lands while the commit is in flight.
. tests/common.sh
PORT=17012
IOSIM=$PWD/${BUILD:-build}/tests/iosim.so
if [ ! -f "$IOSIM" ]; then
    echo "http_stop.sh: $IOSIM not built: skipped"
    echo "http_stop.sh: 0 passed, 0 failed"
    exit 0
fi
start_recorder
$A open --match HS --game yahchain --players ann,bob --option mode=3 \
    > /dev/null
check "open" 0 $?
kill "$pid"; wait "$pid" 2>/dev/null

printf '[http]\nlisten = tcp:127.0.0.1:%s\n' "$PORT" > "$T/http.conf"
# (the sanitizer's preload check off, as for the other shim users)
ASAN_OPTIONS=verify_asan_link_order=0 LD_PRELOAD="$IOSIM" \
    ARB_IOSIM_DIR="$T/data" ARB_IOSIM_SYNC_SLEEP_MS=250 \
    bin/arbiterd --config "$T/http.conf" --data "$T/data" \
    --listen "unix:$T/s.sock" --log-level warn 2> "$T/slow.log" \
    < /dev/null > /dev/null &
pid=$!
i=0
while ! curl -s -o /dev/null "http://127.0.0.1:$PORT/" && [ $i -lt 400 ]; do
    sleep 0.05; i=$((i + 1)); done
for k in 1 2 3 4 5 6; do
    curl -s -m 20 -o "$T/w$k.out" -w '%{http_code}' -X POST \
        -H "Authorization: Bearer $ARBITER_TOKEN" \
        -H 'Content-Type: application/json' -d "{\"text\":\"stop $k\"}" \
        "http://127.0.0.1:$PORT/api/m/HS/note" > "$T/w$k.code" 2> /dev/null &
done
sleep 0.6           # dispatched, the first commit syncing
kill -TERM "$pid"
wait "$pid"; rc=$?
pid=
sleep 0.2
wait
check "the recorder stops cleanly" 0 "$rc"

start_recorder
answered=0
for k in 1 2 3 4 5 6; do
    code=$(cat "$T/w$k.code")
    n=$($A events --match HS | grep -c "note stop $k$")
    if [ "$code" = 200 ]; then
        answered=$((answered + 1))
        check "write $k: answered 200, in the log once" 1 "$n"
        check "... its answer names its seq" 1 \
            "$(grep -c '"seq":[1-9]' "$T/w$k.out")"
    else
        check "write $k: not answered ($code), not in the log" 0 "$n"
    fi
done
check "the stop's last commit had writes to answer" yes \
    "$([ "$answered" -ge 1 ] && echo yes || echo "no ($answered)")"
echo "http_stop.sh: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
