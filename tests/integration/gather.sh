#!/bin/sh
# Group commit gathers: four scorekeepers loading transcripts at once (each
# sends its next event right after its ack) share commits; the daemon
# counts the commits that waited for every table it had just acked and
# logs the count at stop; few waits run out before the loaders answer.
# Every event is recorded once all the same.
BUILD=${BUILD:-build}
. tests/common.sh
D=
cleanup() {
    [ -n "$D" ] && kill "$D" 2>/dev/null && wait "$D" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

token() { awk -v r="$1" '$1 == "token" && $4 == r { print $3 }' "$T/data/tokens"; }

bin/arbiterd --data "$T/data" --listen "unix:$T/s.sock" --log-level info \
    2>> "$T/d.log" &
D=$!
i=0
until [ -f "$T/data/tokens" ] && $A stats --server "unix:$T/s.sock" \
          --token "$(token reader)" > /dev/null 2>&1; do
    i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.05
done
export ARBITER_SERVER="unix:$T/s.sock" ARBITER_TOKEN="$(token arbiter)"
for k in 1 2 3 4; do
    sed "s/^match: .*/match: G$k/" tests/data/tsuku-simple.txt > "$T/t$k.txt"
done
for k in 1 2 3 4; do
    $A load "$T/t$k.txt" > "$T/load$k.out" 2>&1 &
done
wait_loads() {
    for k in 1 2 3 4; do
        while ! grep -q "^loaded" "$T/load$k.out" 2>/dev/null &&
              ! grep -q "refused\|error" "$T/load$k.out" 2>/dev/null; do
            sleep 0.05
        done
    done
}
wait_loads
for k in 1 2 3 4; do
    check "G$k loaded" "loaded G$k: events 0..120" "$(cat "$T/load$k.out")"
done
kill "$D"; wait "$D" 2>/dev/null; D=
g=$(sed -n 's/.*; \([0-9]*\) commits gathered every acked table.*/\1/p' "$T/d.log")
s=$(sed -n 's/.*commits gathered every acked table, \([0-9]*\) stopped waiting.*/\1/p' "$T/d.log")
check "commits gathered (some)" 1 "$([ "${g:-0}" -gt 0 ] && echo 1)"
# A wait lasts what it says: with libuv's millisecond clock a 1 ms wait
# used to end after 0..1 ms, often before a loader could answer (a
# quarter to a third of the waits ran out here); a loader's last event,
# which nobody follows, still ends one.
check "waits that ran out ($s of $((g + s))) at most a fifth" 1 \
    "$([ $(( ${s:-999} * 4 )) -le "${g:-0}" ] && echo 1)"

echo "gather.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
