#!/bin/sh
# The arbiterd client commands as a user runs them against a live daemon:
# open, move, note, rule, close, state, events, watch, matches, stats and
# replay --db; exact output lines and exit statuses.
BUILD=${BUILD:-build}
A=bin/arbiter
pass=0; fail=0
T=$(mktemp -d)
D=; W1=; W2=; D2=
cleanup() {
    for p in $W1 $W2 $D $D2; do kill "$p" 2>/dev/null; done
    [ -n "$D" ] && wait "$D" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

check() {   # check NAME EXPECTED ACTUAL
    if [ "$2" = "$3" ]; then pass=$((pass + 1))
    else fail=$((fail + 1)); printf 'FAIL %s\n  want: %s\n  got:  %s\n' "$1" "$2" "$3"; fi
}

bin/arbiterd --data "$T/data" --listen "unix:$T/s.sock" --log-level warn \
    2> "$T/daemon.log" &
D=$!
i=0
while [ ! -S "$T/s.sock" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
if [ ! -S "$T/s.sock" ]; then
    echo "cli_client.sh: arbiterd did not start"; cat "$T/daemon.log"
    echo "cli_client.sh: 0 passed, 1 failed"; exit 1
fi
token() { awk -v r="$1" '$1 == "token" && $4 == r { print $3 }' "$T/data/tokens"; }
ARB=$(token arbiter); SCO=$(token scorer); RDR=$(token reader)
export ARBITER_SERVER="unix:$T/s.sock"
unset ARBITER_TOKEN
HEX='[0-9a-f]\{64\}'

# ---- a full match: open, 36 moves, close --------------------------------
out=$($A open --token "$ARB" --match M1 --game yahchain --players alice,bob \
      --option mode=3); rc=$?
check "open exit" 0 $rc
check "open line" "opened M1 seq 0 hash" "$(printf '%s' "$out" | sed "s/ $HEX\$//")"

# Both watches start before the moves; --from makes them independent of
# how fast they subscribe.
$A watch --token "$RDR" --match M1 --from 1 > "$T/watch1" 2> "$T/watch1.err" &
W1=$!
$A watch --token "$RDR" --from 1 --json > "$T/watch2" 2> "$T/watch2.err" &
W2=$!

# Sota k takes 2-3-4 of suit letter k, a Single line (BC-003, 9 + 15); the
# seats alternate across Sota boundaries.
printf 'game: yahchain\nmatch: M1\nplayers: alice bob\nmode: 3\n\n' > "$T/m1.txt"
seq=0; bad=""
for suit in S H D C U M W F L G Y N; do
    for type in 2 3 4; do
        seq=$((seq + 1))
        if [ $((seq % 2)) -eq 1 ]; then who=alice; else who=bob; fi
        out=$($A move --token "$SCO" --match M1 place $who "$type$suit")
        [ "$(printf '%s' "$out" | sed "s/ $HEX\$//")" = "seq $seq hash" ] \
            || bad="$bad $seq:$out"
        printf '%d. place %s %s%s\n' $seq $who $type $suit >> "$T/m1.txt"
    done
done
check "36 moves recorded" "" "$bad"
out=$($A close --token "$ARB" --match M1 --reason "all Sotas done"); rc=$?
check "close exit" 0 $rc
check "close line" "seq 37 hash" "$(printf '%s' "$out" | sed "s/ $HEX\$//")"
printf '37. close -- all Sotas done\n' >> "$T/m1.txt"

# ---- the recorded state equals the transcript's --------------------------
part() {    # part NAME JSON: the "records" array, "totals", "digest" or
            # the "rulings" array
    case $1 in
    records) printf '%s' "$2" | sed 's/.*"records":\(\[.*\]\),"totals".*/\1/' ;;
    totals)  printf '%s' "$2" | grep -o '"totals":{[^}]*}' ;;
    digest)  printf '%s' "$2" | grep -o '"digest":"[0-9a-f]*"' ;;
    rulings) printf '%s' "$2" | sed -n 's/.*\("rulings":\[.*\]\),"state".*/\1/p' ;;
    esac
}
file=$($A replay --json "$T/m1.txt"); rc=$?
check "replay file exit" 0 $rc
check "replay file totals" '"totals":{"alice":144,"bob":144}' "$(part totals "$file")"
check "replay file 12 records" 12 "$(printf '%s' "$file" | grep -o '"code":"BC-003"' | wc -l | tr -d ' ')"
state=$($A state --token "$RDR" --match M1 --json); rc=$?
check "state json exit" 0 $rc
db=$($A replay --db "$T/data" --match M1 --json); rc=$?
check "replay db exit" 0 $rc
for p in records totals digest; do
    check "state $p = file" "$(part $p "$file")" "$(part $p "$state")"
    check "replay db $p = file" "$(part $p "$file")" "$(part $p "$db")"
done
check "state json = file json" "$file" "$state"
text=$($A replay "$T/m1.txt")
check "state text = replay text" "$text" "$($A state --token "$RDR" --match M1)"
check "replay db text = replay text" "$text" "$($A replay --db "$T/data" --match M1)"
check "state --at" "$($A replay --json --at 3 "$T/m1.txt")" \
      "$($A state --token "$RDR" --match M1 --at 3 --json)"
check "replay db --at" "$($A replay --json --at 3 "$T/m1.txt")" \
      "$($A replay --db "$T/data" --match M1 --at 3 --json)"
# The largest number is a seq past the end like any other, not "no --at"
# (it was the sentinel for that, and printed the whole match).
U=18446744073709551615
err=$($A replay --at $U "$T/m1.txt" 2>&1); rc=$?
check "replay --at 2^64-1 refused" \
    "2 arbiter replay: --at $U: the transcript has events 0..37" "$rc $err"
out=$($A replay --db "$T/data" --match M1 --at $U 2>&1); rc=$?
check "replay db --at 2^64-1 refused" \
    "2 arbiter replay: --at $U: match 'M1' has events 0..37" "$rc $out"
# The last seq is a seq of the match: --at 37 is the whole match, 38 is
# past it.
out=$($A replay --at 37 "$T/m1.txt"); rc=$?
check "replay --at last" "0 $text" "$rc $out"
out=$($A replay --db "$T/data" --match M1 --at 37); rc=$?
check "replay db --at last" "0 $text" "$rc $out"
err=$($A replay --at 38 "$T/m1.txt" 2>&1); rc=$?
check "replay --at last + 1 refused" \
    "2 arbiter replay: --at 38: the transcript has events 0..37" "$rc $err"
# ... and so is the first seq past the end, as replay says (--at 38)
out=$($A state --token "$RDR" --match M1 --at 38 2>&1); rc=$?
check "state --at last + 1 refused" \
    "1 arbiter state: not_found: at: match 'M1' has events 0..37, not 38" \
    "$rc $out"
out=$($A state --token "$RDR" --match M1 --at $U 2>/dev/null); rc=$?
check "state --at 2^64-1 is no full state" "" "$out"
check "state --at 2^64-1 refused" 1 "$([ $rc -ne 0 ] && echo 1)"
$A replay --db "$T/data" --match NOPE 2>/dev/null; check "replay db no match" 2 $?

# ---- refusals: rules, roles, expected seq --------------------------------
$A open --token "$ARB" --match M2 --game yahchain --players alice,bob \
    --option mode=3 > /dev/null
$A move --token "$SCO" --match M2 place alice 2S > /dev/null
err=$($A move --token "$SCO" --match M2 place bob 2♠ 2>&1 >/dev/null); rc=$?
check "illegal exit" 1 $rc
check "illegal msg" "arbiter move: illegal: §34.11.3: card 2♠ already played at seq 1: each physical card is used once per match" "$err"
err=$($A move --token "$RDR" --match M2 place bob 3S 2>&1 >/dev/null); rc=$?
check "reader move exit" 1 $rc
check "reader move msg" "arbiter move: forbidden: append needs the scorer role; reader is a reader" "$err"
err=$($A rule --token "$SCO" --match M2 void 1 --reason x 2>&1 >/dev/null); rc=$?
check "scorer ruling exit" 1 $rc
check "scorer ruling msg" "arbiter rule: forbidden: void is an arbiter's ruling; scorer is a scorer" "$err"
err=$($A open --token "$SCO" --match M9 --game yahchain --players a 2>&1 >/dev/null); rc=$?
check "scorer open exit" 1 $rc
check "scorer open msg" "arbiter open: forbidden: open needs the arbiter role; scorer is a scorer" "$err"
err=$($A move --token "$SCO" --match M2 --expect 5 place bob 3S 2>&1 >/dev/null); rc=$?
check "expect conflict exit" 1 $rc
check "expect conflict msg" "arbiter move: conflict: expected seq 5, match is at 1" "$err"
out=$($A move --token "$SCO" --match M2 --expect 1 place bob 3S)
check "expect ok" "seq 2 hash" "$(printf '%s' "$out" | sed "s/ $HEX\$//")"
# --judge --expect N: a verdict of another state is a conflict, as the
# append would be (until now --expect was dropped and the move judged at
# whatever event the match had reached)
out=$($A move --judge --token "$SCO" --match M2 --expect 1 place alice 4S \
      2>&1); rc=$?
check "judge --expect behind the match: a conflict" \
    "1 arbiter move: conflict: expected seq 1, match is at 2" "$rc $out"
out=$($A move --judge --token "$SCO" --match M2 --expect 2 place alice 4S \
      2>&1); rc=$?
check "judge --expect at the match: the verdict" "0 {\"legal\":true," \
    "$rc $(printf '%s' "$out" | cut -c1-14)"
# --judge --cid: the id would name an event never recorded (it was
# dropped, the verdict printed, exit 0)
out=$($A move --judge --token "$SCO" --match M2 --cid j-1 place alice 4S \
      2>&1 >/dev/null); rc=$?
check "judge --cid: usage" \
    "2 arbiter move: --cid names an event to record; --judge records nothing" \
    "$rc $(printf '%s' "$out" | head -1)"

# ---- idempotent retry ----------------------------------------------------
first=$($A move --token "$SCO" --match M2 --cid sheet-3 place alice 4S)
$A note --token "$SCO" --match M2 the match moved on > /dev/null
again=$($A move --token "$SCO" --match M2 --cid sheet-3 place alice 4S); rc=$?
check "retry exit" 0 $rc
check "retry same seq" "$first (duplicate)" "$again"
check "retry seq 3" "seq 3 hash" "$(printf '%s' "$first" | sed "s/ $HEX\$//")"
err=$($A move --token "$SCO" --match M2 --cid sheet-3 place alice 5S 2>&1 >/dev/null); rc=$?
check "cid reuse exit" 1 $rc
check "cid reuse msg" "arbiter move: idempotency: client event id 'sheet-3' already names a different event (seq 3)" "$err"

# ---- rulings and notes ---------------------------------------------------
printf '# the scorer of table 2\n%s\n' "$SCO" > "$T/scorer.token"
out=$($A rule --token-file "$T/scorer.token" --match M2 note "seat" swap)
check "rule note (token file)" "seq 5 hash" "$(printf '%s' "$out" | sed "s/ $HEX\$//")"
printf 'ab\377cd\n' > "$T/bad.token"
err=$($A stats --token-file "$T/bad.token" 2>&1); rc=$?
check "a token file not UTF-8: the file named" \
    "2 arbiter stats: $T/bad.token: the token is not valid UTF-8" "$rc $err"
out=$($A rule --token "$ARB" --match M2 void 3 --reason "card of another deck")
check "void" "seq 6 hash" "$(printf '%s' "$out" | sed "s/ $HEX\$//")"
out=$($A rule --token "$ARB" --match M2 amend 2 place bob 3H --reason "typo")
check "amend" "seq 7 hash" "$(printf '%s' "$out" | sed "s/ $HEX\$//")"
out=$($A rule --token "$ARB" --match M2 stands place bob 4S --reason "out of turn")
check "stands" "seq 8 hash" "$(printf '%s' "$out" | sed "s/ $HEX\$//")"
$A rule --token "$ARB" --match M2 void 3 2>/dev/null; check "ruling needs reason" 2 $?
err=$($A rule --token "$ARB" --match M2 stands place alice 2H --reason x 2>&1 >/dev/null); rc=$?
check "legal stands exit" 1 $rc
check "legal stands msg" "arbiter rule: invalid: ruling: the move is legal: record it as a move, not as an illegal move that stands" "$err"
# bob's 4S let stand out of turn completes Sota 1, which counts for nothing
# (YAHchain edition 3, §34.11 item 2; alice's Ladder scored 15 until
# 2026-12-06)
check "ruled totals" '"totals":{"alice":0,"bob":0}' \
      "$(part totals "$($A state --token "$RDR" --match M2 --json)")"
# the state lists the rulings that shaped it (the daemon's reader copy
# keeps them; before 2026-12-06 neither text nor json named them)
check "state text lists the rulings" "rulings: 3
  seq 6: void 3 -- card of another deck
  seq 7: amend 2 place bob 3H -- typo
  seq 8: stands place bob 4S -- out of turn" \
    "$($A state --token "$RDR" --match M2 | sed -n '2,5p')"
check "state json lists the rulings" \
    '"rulings":[{"seq":6,"kind":"void","target":3,"reason":"card of another deck"},{"seq":7,"kind":"amend","target":2,"move":"place bob 3H","reason":"typo"},{"seq":8,"kind":"stands","move":"place bob 4S","reason":"out of turn"}]' \
    "$(part rulings "$($A state --token "$RDR" --match M2 --json)")"

# ---- events --------------------------------------------------------------
ev=$($A events --token "$RDR" --match M2 | sed 's/^\([0-9]*\) [0-9T:.-]*Z /\1 /')
want="0 arbiter open game: yahchain; players: alice bob; mode: 3
1 scorer place alice 2S
2 scorer place bob 3S
3 scorer place alice 4S
4 scorer note the match moved on
5 scorer note seat swap
6 arbiter void 3 -- card of another deck
7 arbiter amend 2 place bob 3H -- typo
8 arbiter stands place bob 4S -- out of turn"
check "events" "$want" "$ev"
check "events kinds" "4 5" "$($A events --token "$RDR" --match M2 --kind note | cut -d' ' -f1 | tr '\n' ' ' | sed 's/ $//')"
check "events from/to" "6 7" "$($A events --token "$RDR" --match M2 --from 6 --to 7 | cut -d' ' -f1 | tr '\n' ' ' | sed 's/ $//')"
# --since MS: the events recorded at or after that Unix time, as the
# times --json gives; one past the last time keeps none, and so does any
# later one, up to the largest number (until 2026-12-07 one past 2^63 - 1
# kept every event); a number past that is a usage error.
evj=$($A events --token "$RDR" --match M2 --json)
ms() { printf '%s\n' "$evj" | sed -n "s/^{\"seq\":$1,.*\"time_ms\":\([0-9]*\),.*/\1/p"; }
since() {   # since MS: the seqs listed, then the exit status
    o=$($A events --token "$RDR" --match M2 --since "$1" 2>&1); r=$?
    printf '%s\n' "$o" | awk -v r=$r 'NF { printf "%s ", $1 } END { print r }'
}
t6=$(ms 6); t8=$(ms 8)
check "events --since event 6's time: it and the later ones" \
    "$(printf '%s\n' "$evj" | awk -v t="$t6" '{ s = $0; sub(/^{"seq":/, "", s)
        sub(/,.*/, "", s); m = $0; sub(/.*"time_ms":/, "", m); sub(/,.*/, "", m)
        if (m + 0 >= t + 0) printf "%s ", s } END { print 0 }')" \
    "$(since "$t6")"
check "events --since 0: all" "0 1 2 3 4 5 6 7 8 0" "$(since 0)"
check "events --since past the last event: none" 0 "$(since $((t8 + 1)))"
check "events --since 2^63: none" 0 "$(since 9223372036854775808)"
check "events --since 2^64 - 1: none" 0 \
    "$(since 18446744073709551615)"
out=$($A events --token "$RDR" --match M2 --since 18446744073709551616 2>&1)
check "events --since 2^64: a usage error" \
    "2 arbiter events: --since wants a number, not '18446744073709551616'" \
    "$? $out"
# An empty range and an unknown kind are usage errors, named.
out=$($A events --token "$RDR" --match M2 --from 10 --to 5 2>&1); rc=$?
check "events --from after --to refused" \
    "2 arbiter events: --from 10 is after --to 5: no event is in between" \
    "$rc $out"
out=$($A events --token "$RDR" --match M2 --from 6 --to 5 2>&1); rc=$?
check "events --from one after --to refused" \
    "2 arbiter events: --from 6 is after --to 5: no event is in between" \
    "$rc $out"
out=$($A events --token "$RDR" --match M2 --kind bogus 2>&1); rc=$?
check "events --kind bogus: a usage error naming the kinds" \
    "2 arbiter events: --kind 'bogus': no such kind; the kinds are open move close note void amend stands claim" \
    "$rc $out"
line=$($A events --token "$RDR" --match M2 --from 1 --to 1 --json)
check "events json" '{"seq":1,"time":"T","time_ms":N,"actor":"scorer","kind":"move","line":"place alice 2S","hash":"H"}' \
      "$(printf '%s' "$line" | sed -e 's/"time":"[^"]*"/"time":"T"/' -e 's/"time_ms":[0-9]*/"time_ms":N/' -e "s/\"hash\":\"$HEX\"/\"hash\":\"H\"/")"
$A events --token "$RDR" --match NOPE 2>/dev/null; check "events no match" 1 $?

# ---- matches, stats ------------------------------------------------------
$A close --token "$ARB" --match M2 > /dev/null
check "matches" "M1 yahchain closed 37
M2 yahchain closed 9" "$($A matches --token "$RDR" | cut -d' ' -f1-4)"
check "matches open" "" "$($A matches --token "$RDR" --status open)"
check "matches json" 2 "$($A matches --token "$RDR" --json | grep -c '^{"match":"M[12]","game":"yahchain","status":"closed"')"
check "stats matches" "matches 2" "$($A stats --token "$RDR" | grep '^matches ')"
check "stats json" 1 "$($A stats --token "$RDR" --json | grep -c '^{"engine":"arbiter .*"matches":2,')"
# sections that are off are null in JSON, as on the wire (until 2026-12-06
# the keys were dropped), and have no line in the text
check "stats json: replication and replica off" 1 \
    "$($A stats --token "$RDR" --json | grep -c '"replication":null,"replica":null')"
check "stats text: no line for them" 0 \
    "$($A stats --token "$RDR" | grep -c '^replica')"

# ---- watch: everything appended after it started -------------------------
i=0
while [ "$(grep -c '"match":"M2","seq":9,' "$T/watch2")" -lt 1 ] && [ $i -lt 100 ]; do
    sleep 0.05; i=$((i + 1))
done
# read while the watches still run: each event is flushed as it comes
check "watch: the last event seen before the watch ends" 1 \
    "$(grep -c '"match":"M2","seq":9,' "$T/watch2")"
kill "$W1" "$W2"; wait "$W1"; rc1=$?; wait "$W2"; rc2=$?; W1=; W2=
check "watch exit on TERM" "0 0" "$rc1 $rc2"
check "watch lines" 37 "$(wc -l < "$T/watch1" | tr -d ' ')"
check "watch first" "1 scorer place alice 2S" "$(head -1 "$T/watch1" | sed 's/^\([0-9]*\) [0-9T:.-]*Z /\1 /')"
check "watch last" "37 arbiter close -- all Sotas done" "$(tail -1 "$T/watch1" | sed 's/^\([0-9]*\) [0-9T:.-]*Z /\1 /')"
check "watch = events" "$($A events --token "$RDR" --match M1 --from 1)" "$(cat "$T/watch1")"
check "watch all" 48 "$(wc -l < "$T/watch2" | tr -d ' ')"
check "watch all M2 open" 1 "$(grep -c '^{"match":"M2","seq":0,.*"kind":"open"' "$T/watch2")"
check "watch stderr" "" "$(cat "$T/watch1.err" "$T/watch2.err")"
err=$($A watch --token "$RDR" --match NOPE 2>&1); rc=$?
check "watch no match" "1 arbiter watch: not_found: no match 'NOPE'" "$rc $err"

# ---- paging: more events than one page (500) -----------------------------
$A open --token "$ARB" --match M3 --game yahchain --players alice,bob \
    --option mode=3 > /dev/null
seq 1 600 | xargs -P 8 -n 1 $A note --token "$SCO" --match M3 n > /dev/null
check "paged events" 601 "$($A events --token "$RDR" --match M3 | wc -l | tr -d ' ')"
check "paged events dense" "" "$($A events --token "$RDR" --match M3 | awk 'NR - 1 != $1 { print NR - 1; exit }')"
check "paged kinds" 600 "$($A events --token "$RDR" --match M3 --kind note | wc -l | tr -d ' ')"
check "paged state" "match M3  game yahchain  events 600" "$($A state --token "$RDR" --match M3 | head -1)"

# ---- the whole store in one pass: the same digest as match by match ------
all=$($A replay --db "$T/data"); rc=$?
check "replay whole store exit" 0 $rc
check "replay whole store ids" "M1 M2 M3" "$(printf '%s\n' "$all" | awk '{ print $2 }' | paste -sd ' ')"
for m in M1 M2 M3; do
    one=$($A replay --db "$T/data" --match $m | grep '^digest ')
    check "replay whole store $m digest" "$one" \
        "$(printf '%s\n' "$all" | awk -v m=$m '$2 == m { print "digest", $NF }')"
done
check "replay whole store M1 line" "match M1  game yahchain  events 37  closed" \
    "$(printf '%s\n' "$all" | awk '$2 == "M1"' | sed 's/  digest .*//')"
check "replay --verify" "$all" "$($A replay --verify --db "$T/data")"
check "replay whole store json lines" 3 "$($A replay --json --db "$T/data" | grep -c '^{"records":')"
$A replay --db "$T/data" --at 3 2>/dev/null; check "replay whole store --at" 2 $?
$A replay --verify "$T/m1.txt" 2>/dev/null; check "replay --verify a file" 2 $?

# ---- usage and connection problems ---------------------------------------
$A move --token "$SCO" place alice 2S 2>/dev/null; check "move no match" 2 $?
$A move --token "$SCO" --match M2 place 2>/dev/null; check "move no player" 2 $?
$A move --match M2 place alice 5S 2>/dev/null; check "no token" 2 $?
err=$($A stats --token '' 2>&1); rc=$?
check "an empty token is none" \
    "2 arbiter stats: no token: use --token, --token-file or \$ARBITER_TOKEN" \
    "$rc $err"
err=$(P=$PWD; cd "$T" && ARBITER_SERVER= "$P/$A" stats --token "$RDR" 2>&1); rc=$?
check "an empty ARBITER_SERVER is the default address" \
    "2 arbiter stats: connect unix:./var/arbiter/arbiterd.sock" \
    "$rc $(printf '%s' "$err" | cut -d: -f1-3)"
err=$($A events --token "$RDR" --match M1 --from -1 2>&1); rc=$?
check "a negative --from is no number" \
    "2 arbiter events: --from wants a number, not '-1'" "$rc $err"
err=$($A stats --token not-a-token-at-all 2>&1); rc=$?
check "bad token" "2 arbiter stats: unauthenticated: unknown token" "$rc $err"
$A stats --token "$RDR" --server "unix:$T/none.sock" 2>/dev/null; check "no server" 2 $?
ARBITER_TOKEN=$RDR $A stats --server "$T/s.sock" > /dev/null; check "env token, bare path" 0 $?
# A recorder that takes the connection and never answers (stopped here:
# the kernel still accepts) fails a request after $ARBITER_TIMEOUT
# seconds, exit 2 (until 2026-12-07 the tool waited for ever); a watch
# waits for news as long as it takes.
kill -STOP "$D"
err=$(ARBITER_TIMEOUT=1 timeout 20 $A stats --token "$RDR" 2>&1); rc=$?
check "a recorder that never answers: the request times out" \
    "2 arbiter stats: authentication: the server did not answer within 1.000 s" \
    "$rc $err"
kill -CONT "$D"
ARBITER_TIMEOUT=1 timeout 3 $A watch --token "$RDR" --match M1 \
    > /dev/null 2>&1
check "ARBITER_TIMEOUT: a watch waits for news past it" 124 $?
err=$(ARBITER_TIMEOUT=1s $A stats --token "$RDR" 2>&1); rc=$?
check "ARBITER_TIMEOUT: not a number" \
    "2 arbiter stats: \$ARBITER_TIMEOUT wants a number, not '1s'" "$rc $err"
err=$(ARBITER_TIMEOUT=86401 $A stats --token "$RDR" 2>&1); rc=$?
check "ARBITER_TIMEOUT: at most a day" \
    "2 arbiter stats: \$ARBITER_TIMEOUT is at most 86400 s (0: for ever), not 86401" \
    "$rc $err"
ARBITER_TIMEOUT=0 $A stats --token "$RDR" > /dev/null
check "ARBITER_TIMEOUT=0: no timeout" 0 $?
# --server tcp:HOST:PORT: the port is 1..65535 digits (atoi took 99999
# as 34463 and 'abc' as 0), HOST a name or an address.
for bad in 99999 abc 0 '' +80 7411x; do
    err=$($A stats --token "$RDR" --server "tcp:127.0.0.1:$bad" 2>&1); rc=$?
    check "tcp port '$bad' refused, naming the address" \
        "2 arbiter stats: bad address 'tcp:127.0.0.1:$bad': the port must be a number from 1 to 65535" \
        "$rc $err"
done
err=$($A stats --token "$RDR" --server "tcp:::1:7411" 2>&1)
check "an IPv6 address without brackets is refused" 1 \
    "$(printf '%s\n' "$err" | grep -c "IPv6 address goes in brackets")"
# A second daemon on TCP (ARB_TCP_PORT, default 19537); the listener's
# port is read as strictly.
TP=${ARB_TCP_PORT:-19537}
# (timeout: a daemon that takes the address would listen for good.)
err=$(timeout 10 bin/arbiterd --data "$T/tcp" \
      --listen "tcp:127.0.0.1:$((TP + 65536))" 2>&1); rc=$?
check "arbiterd --listen: a port over 65535 refused" 1 \
    "$([ $rc -ne 0 ] && printf '%s\n' "$err" | grep -c "bad address 'tcp:127.0.0.1:$((TP + 65536))': the port must be")"
err=$(timeout 10 bin/arbiterd --data "$T/tcp" --listen "tcp:localhost:$TP" \
      2>&1); rc=$?
check "arbiterd --listen: a host name refused as such" 1 \
    "$([ $rc -ne 0 ] && printf '%s\n' "$err" | grep -c "a listener's HOST is a numeric")"
# IPv6 in brackets too, where the loopback has an IPv6 address.
V6=
grep -q '^0\{31\}1 ' /proc/net/if_inet6 2>/dev/null && V6="tcp:[::1]:$TP"
bin/arbiterd --data "$T/tcp" --listen "tcp:127.0.0.1:$TP" \
    ${V6:+--listen "$V6"} --log-level warn 2> "$T/tcp.log" &
D2=$!
i=0
until [ -f "$T/tcp/tokens" ] && $A stats --server "tcp:127.0.0.1:$TP" \
          --token "$(awk '$4 == "reader" { print $3 }' "$T/tcp/tokens")" \
          > /dev/null 2>&1; do
    i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.05
done
TR=$(awk '$4 == "reader" { print $3 }' "$T/tcp/tokens" 2>/dev/null)
$A stats --server "tcp:localhost:$TP" --token "$TR" > /dev/null
check "--server tcp:localhost:PORT resolves the name" 0 $?
if [ -n "$V6" ]; then
    $A stats --server "$V6" --token "$TR" > /dev/null
    check "--server tcp:[::1]:PORT" 0 $?
fi
err=$($A stats --server "tcp:no-such-host.invalid:$TP" --token "$TR" 2>&1)
check "an unknown host is named" 1 \
    "$(printf '%s\n' "$err" | grep -c "^arbiter stats: connect tcp:no-such-host.invalid:$TP: host 'no-such-host.invalid': ")"
# A watch whose recorder stops: said, and exit 2, never the 0 of an
# interrupt (until 2026-12-06 it was 0, as if the user had pressed ^C).
$A watch --server "tcp:127.0.0.1:$TP" --token "$TR" > /dev/null \
    2> "$T/wend.err" &
WE=$!
i=0
until $A stats --server "tcp:127.0.0.1:$TP" --token "$TR" --json \
          | grep -q '"subscribers":1,'; do
    i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.05
done
kill "$D2"; wait "$D2" 2>/dev/null
wait "$WE"; rc=$?
check "watch: the recorder stopped" \
    "2 arbiter watch: connection closed by the server" "$rc $(cat "$T/wend.err")"
# Usage errors name the option and exit 2, before the recorder is asked;
# an option is its whole name, never a prefix or a longer word.
usage() {   # usage NAME "RC MESSAGE" CMD ARGS...
    n=$1; w=$2; c=$3; shift 3
    o=$($A "$c" --token "$SCO" "$@" 2>/dev/null >/dev/null; echo $?)" $(
        $A "$c" --token "$SCO" "$@" 2>&1 >/dev/null | head -1)"
    check "$n" "$w" "$o"
}
usage "move --matchx is no --match" "2 arbiter move: unknown option '--matchx'" \
    move --matchx M2 place alice 2S
usage "events --jsonx is no --json" "2 arbiter events: unknown option '--jsonx'" \
    events --match M2 --jsonx
usage "close takes no words" "2 arbiter close: unexpected 'now'" \
    close --match M2 now
usage "move --expect 1x" "2 arbiter move: --expect wants a number, not '1x'" \
    move --match M2 --expect 1x place alice 2S
usage "close --expect -1" "2 arbiter close: --expect wants a number, not '-1'" \
    close --match M2 --expect -1
usage "state --at 2^64" \
    "2 arbiter state: --at wants a number, not '18446744073709551616'" \
    state --match M2 --at 18446744073709551616
usage "watch --from x" "2 arbiter watch: --from wants a number, not 'x'" \
    watch --match NOPE --from x
usage "open --option =3" "2 arbiter open: --option wants KEY=VALUE, not '=3'" \
    open --match M5 --game yahchain --players a,b --option =3
usage "open --deal orderx" \
    "2 arbiter open: --deal wants seed:TEXT, seed:random or order:CARDS, not 'orderx:2S'" \
    open --match M5 --game yahchain --players a,b --deal orderx:2S
usage "open: a 65th --option" "2 arbiter open: at most 64 options" \
    open --match M5 --game yahchain --players a,b \
    $(seq 1 65 | sed 's/^/--option k/; s/$/=v/')
usage "open: 64 --option are taken" \
    "2 arbiter open: --match, --game and --players are required" \
    open --match M5 $(seq 1 64 | sed 's/^/--option k/; s/$/=v/')
usage "open without --players" \
    "2 arbiter open: --match, --game and --players are required" \
    open --match M5 --game yahchain
usage "move --match needs a value" "2 arbiter move: --match needs a value" \
    move place alice 2S --match
out=$($A move --help); rc=$?
check "move --help exits 0" "0 usage: arbiter move --match ID [--expect N] [--cid ID]" \
    "$rc $(printf '%s\n' "$out" | head -1)"
check "events --from N --to N: that event" "5" \
    "$($A events --token "$RDR" --match M2 --from 5 --to 5 | cut -d' ' -f1)"
check "events: every kind at once" 10 \
    "$($A events --token "$RDR" --match M2 --kind open --kind move --kind close --kind note --kind void --kind amend --kind stands --kind claim | wc -l | tr -d ' ')"
usage "events: a ninth --kind" "2 arbiter events: at most 8 --kind" \
    events --match M2 --kind open --kind move --kind close --kind note \
    --kind void --kind amend --kind stands --kind claim --kind note
check "state --json is one line" 1 \
    "$($A state --token "$RDR" --match M2 --json | wc -l | tr -d ' ')"
# open and close retried with their --cid: the original, said so
first=$($A open --token "$ARB" --match M6 --game yahchain --players a,b \
        --option mode=3 --cid open-6)
again=$($A open --token "$ARB" --match M6 --game yahchain --players a,b \
        --option mode=3 --cid open-6); rc=$?
check "open retried with its cid" "0 $first (duplicate)" "$rc $again"
first=$($A close --token "$ARB" --match M6 --reason time --cid end-6)
again=$($A close --token "$ARB" --match M6 --reason time --cid end-6); rc=$?
check "close retried with its cid" "0 $first (duplicate)" "$rc $again"
check "close --reason recorded" "1 arbiter close -- time" \
    "$($A events --token "$RDR" --match M6 --kind close | sed 's/^\([0-9]*\) [0-9T:.-]*Z /\1 /')"
err=$($A close --token "$ARB" --match M6 --expect 0 2>&1 >/dev/null); rc=$?
check "close --expect behind the match: refused" 1 $rc
for c in open move note rule close state events watch matches stats replay; do
    $A $c --help | grep -q "usage: arbiter $c"; check "$c help" 0 $?
    $A --help | grep -q "^  $c "; check "$c listed" 0 $?
done
# open's help names every rule set the recorder takes (it named only
# yahchain until 2026-12-05).
games=$($A open --help | sed -n '/^  --game GAME/{n;p;}')
check "open help names the rule sets" \
    " yahchain chains tsukurutenten chan tournament" \
    "$(echo "$games" | tr -s ' ' | sed 's/ *$//')"

echo "cli_client.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
