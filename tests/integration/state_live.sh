#!/bin/sh
# A match's state at its head is read from the live match when nothing of
# it is in flight (daemon/live.c, arb_live_state), not replayed from its
# whole history per read (until 2026-12-06: 2.7 s on the loop for one of
# 600,000 events, every ack waiting behind it).  It must be the replay's,
# byte for byte: the states read while the matches are live (each just
# written) equal those read after a restart, when no match is held and
# every read replays, over the protocol and HTTP, as the arbiter and as a
# reader (who sees no concealed card), at the head and at `at` = head;
# four games, one match with rulings (its live match keeps its history),
# three dealt ones still open (their hands concealed).
. tests/common.sh
PORT=17013
printf '[http]\nlisten = tcp:127.0.0.1:%s\n' "$PORT" > "$T/http.conf"
start_http() {
    bin/arbiterd --config "$T/http.conf" --data "$T/data" \
        --listen "unix:$T/s.sock" --log-level warn 2>> "$T/daemon.log" \
        < /dev/null > /dev/null &
    pid=$!
    i=0
    while ! curl -s -o /dev/null "http://127.0.0.1:$PORT/" \
          && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
}
start_recorder
kill "$pid"; wait "$pid" 2>/dev/null
start_http
R=$(awk '$4 == "reader" { print $3 }' "$T/data/tokens")
ids=
for f in yah3-stands-void tsuku-simple chains-1v1-36-square chan-chiu-u; do
    $A load "tests/data/$f.txt" > /dev/null 2>&1
    check "load $f" 0 $?
    ids="$ids $(awk '$1 == "match:" { print $2; exit }' "tests/data/$f.txt")"
done

# snap FILE: every way of reading every match's state at its head.
snap() {
    for m in $ids; do
        head=$($A events --match "$m" | tail -1 | awk '{ print $1 }')
        echo "== $m (head $head)"
        $A state --match "$m" --json
        $A state --match "$m"
        $A state --match "$m" --json --at "$head"
        ARBITER_TOKEN=$R $A state --match "$m" --json
        ARBITER_TOKEN=$R $A state --match "$m"
        curl -s -H "Authorization: Bearer $ARBITER_TOKEN" \
            "http://127.0.0.1:$PORT/api/m/$m/state"
        curl -s -H "Authorization: Bearer $ARBITER_TOKEN" \
            "http://127.0.0.1:$PORT/api/m/$m/state?hands=1"
        curl -s -H "Authorization: Bearer $R" \
            "http://127.0.0.1:$PORT/api/m/$m/state"
        curl -s -m 1 -H "Authorization: Bearer $R" \
            "http://127.0.0.1:$PORT/api/m/$m/live" | grep -A2 '^event: state'
    done > "$1" 2>&1
}

# A note on each match after the load: every match live, nothing in
# flight once acknowledged.
for m in $ids; do $A note --match "$m" "before the snapshot" > /dev/null; done
snap "$T/live.txt"
kill "$pid"; wait "$pid" 2>/dev/null
start_http
snap "$T/replayed.txt"
check "state at the head: live = replayed" "" \
    "$(cmp "$T/live.txt" "$T/replayed.txt" 2>&1)"
check "... every match read" 4 "$(grep -c '^== ' "$T/live.txt")"
check "... the hands only in the arbiter's ?hands=1 of the dealt three" 3 \
    "$(grep -c '"hand_cards"' "$T/live.txt")"
check "... nothing refused" 0 "$(grep -c '"error"\|^arbiter' "$T/live.txt")"
check "... the rulings listed" 1 \
    "$($A state --match Y-STANDS --json | grep -c '"rulings":\[')"
echo "state_live.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
