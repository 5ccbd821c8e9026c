#!/bin/sh
# arbiter record, the scorekeeper's console, driven from a script against a
# real daemon: a whole Sota and more, illegal moves refused before anything
# is sent, undo with a scorer's and an arbiter's token, following another
# console, and a daemon killed (SIGKILL) mid-match, while the console waits
# and while an append waits for its answer, with every move in the log
# exactly once afterwards.
BUILD=${BUILD:-build}
A=bin/arbiter
pass=0; fail=0
T=$(mktemp -d)
D=; C=
cleanup() {
    exec 3>&- 2>/dev/null
    for p in $C $D; do kill -CONT "$p" 2>/dev/null; kill -9 "$p" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

check() {   # check NAME EXPECTED ACTUAL
    if [ "$2" = "$3" ]; then pass=$((pass + 1))
    else fail=$((fail + 1)); printf 'FAIL %s\n  want: %s\n  got:  %s\n' "$1" "$2" "$3"; fi
}
wait_for() {    # wait_for FILE PATTERN: up to 10 s for a line matching it
    i=0
    while ! grep -q -- "$2" "$1" 2>/dev/null; do
        i=$((i + 1)); [ $i -gt 100 ] && return 1; sleep 0.1
    done
}
start_daemon() {
    # Not holding the console's input open (fd 3), or it never ends.
    bin/arbiterd --data "$T/data" --listen "unix:$T/s.sock" --log-level warn \
        2>> "$T/daemon.log" 3>&- &
    D=$!
    i=0
    until [ -f "$T/data/tokens" ] && $A stats --token "$(token reader)" \
              > /dev/null 2>&1; do
        i=$((i + 1))
        if [ $i -gt 100 ]; then
            echo "record.sh: arbiterd did not start"; cat "$T/daemon.log"
            echo "record.sh: $pass passed, $((fail + 1)) failed"; exit 1
        fi
        sleep 0.05
    done
}
token() { awk -v r="$1" '$1 == "token" && $4 == r { print $3 }' "$T/data/tokens"; }
export ARBITER_SERVER="unix:$T/s.sock"
unset ARBITER_TOKEN
start_daemon
ARB=$(token arbiter); SCO=$(token scorer); RDR=$(token reader)
moves() {   # moves MATCH: the move lines of the log, "seq player card"
    $A events --token "$RDR" --match "$1" --kind move \
        | awk '{ print $1, $5, $6 }'
}

# ---- a whole Sota and more; refusals judged here, never sent -------------
$A open --token "$ARB" --match R1 --game yahchain --players alice,bob \
    --option mode=3 > /dev/null
cat > "$T/in1" <<'EOF'
4S
5♥
6#3
alice 7S
4S
7Z
# a comment, then a blank line: no result line for either

3S @4
place bob 2C
2♦
2H
state
help
9S
bob 2S
7H
EOF
$A record --token "$SCO" --match R1 < "$T/in1" > "$T/out1" 2> "$T/err1"; rc=$?
check "script exit (some refused)" 1 $rc
check "script output" "ok seq 1
ok seq 2
ok seq 3; Sota 1 complete: 4♠→5♥→6♦ BC-001 Ladder 15+6 = 21 for alice
refused §34.11.2: it is bob's turn, not alice's: players place in seat order
refused §34.11.3: card 4♠ already played at seq 1: each physical card is used once per match
refused §34.2: unknown suit 'Z' in '7Z'
refused §34.12: Sota 2 is active, not 4: Sotas are activated 1 to 12 without skipping
ok seq 4
ok seq 5
ok seq 6; Sota 2 complete: 2♣→2♦→2♥ BC-002 Triple 6+12 = 18 for bob
seq 6; Sota 3 []; turn alice; totals alice 21, bob 18
commands: CARD [@N] | PLAYER CARD [@N] | VERB PLAYER ARG... | undo [REASON] | note TEXT | state | help | quit
ok seq 7
ok seq 8
ok seq 9; Sota 3 void: 9♠→2♠→7♥: no category, no points" "$(cat "$T/out1")"
check "script stderr" "" "$(cat "$T/err1")"
check "the log: legal moves only, canonical cards" "1 alice 4♠
2 bob 5♥
3 alice 6♦
4 bob 2♣
5 alice 2♦
6 bob 2♥
7 alice 9♠
8 bob 2♠
9 alice 7♥" "$(moves R1)"
check "nothing refused reached the daemon" "rejected 0" \
      "$($A stats --token "$RDR" | grep '^rejected ')"

# ---- undo: a scorer's asks, an arbiter's voids --------------------------
printf 'undo\n5S\nundo\nundo\n' \
    | $A record --token "$SCO" --match R1 > "$T/out2" 2>&1
check "scorer undo" "error: nothing to undo: this console has recorded no move that still stands
ok seq 10
ok seq 11; undo of seq 10 (place bob 5♠) requested: only an arbiter can void it (arbiter rule --match R1 void 10 --reason ...)
error: the undo of seq 10 was already requested (seq 11); an arbiter rules on it: arbiter rule --match R1 void 10 --reason ..." "$(cat "$T/out2")"
# Declined by an arbiter meanwhile: answered, the move may be asked about
# again (until 2026-12-06 "already requested" for the console's life).
$A open --token "$ARB" --match R9 --game yahchain --players alice,bob \
    --option mode=3 > /dev/null
$A move --token "$ARB" --match R9 place alice 4S > /dev/null
{ printf '5H\nundo\n'; sleep 2; printf 'undo\n'; } \
    | $A record --token "$SCO" --match R9 > "$T/out2b" 2>&1 &
rp=$!
i=0
while [ "$($A events --token "$RDR" --match R9 --from 3 2>/dev/null |
           grep -c 'undo requested')" -lt 1 ] && [ $i -lt 50 ]; do
    sleep 0.1; i=$((i + 1))
done
$A note --token "$ARB" --match R9 "undo declined: seq 2 (5H was played)" \
    > /dev/null
wait $rp
check "a declined undo asked again" "ok seq 5; undo of seq 2 (place bob \
5♥) requested: only an arbiter can void it (arbiter rule --match R9 void 2 \
--reason ...)" "$(tail -1 "$T/out2b")"
check "scorer undo is a note" "11 scorer note undo requested: seq 10 (place bob 5♠)" \
      "$($A events --token "$RDR" --match R1 --from 11 | sed 's/^\([0-9]*\) [0-9T:.-]*Z /\1 /')"
printf '6S\nundo wrong card\nstate\n7S\n' \
    | $A record --token "$ARB" --match R1 > "$T/out3" 2>&1; rc=$?
check "arbiter undo" "ok seq 12
ok seq 13; seq 12 (place alice 6♠) is void
seq 13; Sota 4 [5♠]; turn alice; totals alice 21, bob 18
ok seq 14" "$(cat "$T/out3")"
check "arbiter undo exit" 0 $rc
check "arbiter undo is a void" "13 arbiter void 12 -- wrong card" \
      "$($A events --token "$RDR" --match R1 --from 13 --to 13 | sed 's/^\([0-9]*\) [0-9T:.-]*Z /\1 /')"
# A NUL byte in a piped line: refused as such, not cut short and played.
printf '8S\000 junk\n' | $A record --token "$ARB" --match R1 > "$T/out5" 2>&1; rc=$?
check "a NUL in a line" "1 error: the line holds a NUL byte" "$rc $(cat "$T/out5")"
# A line over 4096 bytes: refused whole, nothing of it recorded (until
# 2026-12-06 its head was, and answered "ok"); the next line goes on.
before=$($A state --json --token "$RDR" --match R1 | sed -n 's/.*"seq":\([0-9]*\).*/\1/p' | tail -1)
{ printf 'note %s\n' "$(head -c 5000 /dev/zero | tr '\0' x)"
  printf 'state\n'; } |
    $A record --token "$ARB" --match R1 > "$T/out5b" 2>&1; rc=$?
check "an over-long line: refused" "1 error: the line is longer than 4096 \
bytes: nothing of it was sent" "$rc $(head -1 "$T/out5b")"
check "... nothing recorded" "$before" \
    "$($A state --json --token "$RDR" --match R1 | sed -n 's/.*"seq":\([0-9]*\).*/\1/p' | tail -1)"
check "... the next line goes on" "seq" \
    "$(sed -n 2p "$T/out5b" | cut -d' ' -f1)"
# A line of 4096 bytes is a line (a comment: no result), one of 4097 is
# refused, a CR before the newline aside, as is one longer than what is
# read at once, and the next line read; a script's CRLF lines are read as
# lines (no test held the bound, a CR or a line past the buffer until
# 2026-12-07).
$A open --token "$ARB" --match R8 --game yahchain --players alice,bob \
    --option mode=3 > /dev/null
{ printf '#%s\r\n' "$(head -c 4095 /dev/zero | tr '\0' x)"
  printf '#%s\n' "$(head -c 4096 /dev/zero | tr '\0' x)"
  printf '#%s\n' "$(head -c 9000 /dev/zero | tr '\0' x)"
  printf 'note crlf\r\n'; } |
    $A record --token "$ARB" --match R8 > "$T/out5d" 2>&1; rc=$?
check "4096 bytes a line, 4097 refused, CRLF read" "1 error: the line is \
longer than 4096 bytes: nothing of it was sent
error: the line is longer than 4096 bytes: nothing of it was sent
ok seq 1" "$rc $(cat "$T/out5d")"
# A line that is not UTF-8: refused saying where, nothing sent.
printf 'note Andr\351 was late\n' \
    | $A record --token "$ARB" --match R1 > "$T/out5c" 2>&1; rc=$?
check "a line not UTF-8: refused, saying where" "1 error: the line is not \
UTF-8 (column 10): nothing of it was sent" "$rc $(cat "$T/out5c")"
# A control character (an escape sequence pasted in a note): refused
# here, saying where, nothing sent (until 2026-12-07 the recorder refused
# it naming a byte of the note's text); a tab between words is a blank.
printf 'note clear\033[2J\nnote\tlate\n' \
    | $A record --token "$ARB" --match R1 > "$T/out5e" 2>&1; rc=$?
check "a control character: refused, saying where" "1 error: a control \
character (U+001B) in column 11: nothing of the line was sent
ok seq 15" "$rc $(cat "$T/out5e")"
# A tab inside a note's text (or an undo's reason), which is recorded as
# typed: refused here, saying where (the recorder refused it naming a
# byte of the note's text).
printf 'note late\tagain\nundo  too\tlate\n' \
    | $A record --token "$ARB" --match R1 > "$T/out5f" 2>&1; rc=$?
check "a tab in a note's text: refused, saying where" "1 error: a tab in \
column 10, inside the note's text (which is recorded as typed: use \
spaces): nothing of the line was sent
error: a tab in column 10, inside the reason's text (which is recorded \
as typed: use spaces): nothing of the line was sent" "$rc $(cat "$T/out5f")"
# A mistyped player is named (until 2026-12-06 "place carol 9S" was read
# as cards of the player whose turn it was: "got 3 arguments").
printf 'place carol 9S\n' | $A record --token "$ARB" --match R1 > "$T/out6" 2>&1; rc=$?
check "a player not seated, named" \
    "1 error: 'carol' is no player of this match (the players: alice bob)" \
    "$rc $(cat "$T/out6")"
# Ended by `quit`, not by the end of input: the refusal still sets the
# exit status (no test ended a script so until 2026-12-07).
printf 'place carol 9S\nquit\n' | $A record --token "$ARB" --match R1 \
    > "$T/out6q" 2>&1; rc=$?
check "a refusal, then quit: exit 1" 1 $rc
# An empty note and a line of more words than any move takes: refused
# here, saying what (no test sent either until 2026-12-07).
{ printf 'note\nnote   \n'; printf 'place alice'
  i=0; while [ $i -lt 33 ]; do printf ' 4S'; i=$((i + 1)); done; echo; } \
    | $A record --token "$ARB" --match R1 > "$T/out6w" 2>&1; rc=$?
check "an empty note, too many words" "1 error: note TEXT: the note is empty
error: note TEXT: the note is empty
error: too many words (at most 34)" "$rc $(cat "$T/out6w")"
# ... and 34 words are not too many: the move is judged (no test failed
# when a line of 34 words was refused as too long).
{ printf 'place alice'
  i=0; while [ $i -lt 32 ]; do printf ' 4S'; i=$((i + 1)); done; echo; } \
    | $A record --token "$ARB" --match R1 > "$T/out6x" 2>&1
check "34 words are judged" "refused move: place takes a card and an \
optional @sota, got 32 arguments" "$(cat "$T/out6x")"
# An arbiter's undo voids this console's moves one by one, the last
# first, and a void that withdraws a result says so (until 2026-12-07 no
# test undid twice: a move already void could have been voided again).
$A open --token "$ARB" --match R5 --game yahchain --players alice,bob \
    --option mode=3 > /dev/null
printf '4S\n5H\n6D\nundo\nundo\nundo\nundo\n' \
    | $A record --token "$ARB" --match R5 > "$T/out6u" 2>&1; rc=$?
check "arbiter undo, again and again" "1 ok seq 1
ok seq 2
ok seq 3; Sota 1 complete: 4♠→5♥→6♦ BC-001 Ladder 15+6 = 21 for alice
ok seq 4; seq 3 (place alice 6♦) is void; 1 result withdrawn
ok seq 5; seq 2 (place bob 5♥) is void
ok seq 6; seq 1 (place alice 4♠) is void
error: nothing to undo: this console has recorded no move that still stands" \
    "$rc $(cat "$T/out6u")"
printf '6S\n' | $A record --token "$RDR" --match R1 > "$T/out4" 2>&1; rc=$?
check "reader refused" "1 refused forbidden: reader is a reader: this console follows the match but cannot record" \
      "$rc $(cat "$T/out4")"
err=$($A record --token "$SCO" --match NOPE < /dev/null 2>&1); rc=$?
check "no such match" "1 arbiter record: not_found: no match 'NOPE'" "$rc $err"
err=$($A record --token "$SCO" --match R1 --as carol < /dev/null 2>&1); rc=$?
check "--as not seated" "2 arbiter record: --as carol: not a player of match R1" "$rc $err"

# An arbiter's ruling that lets a card stand out of turn fills the Sota
# and voids it: a console following says so, as of a move's void (until
# 2026-12-07 nothing was said)
$A open --token "$ARB" --match RST --game yahchain --players alice,bob \
    --option mode=3 > /dev/null
# (its input held open by fd 3 until the case ends, as the live console's
# below: a pipe from `sleep 20` kept the case waiting those 20 s)
mkfifo "$T/fifo_st"
$A record --token "$SCO" --match RST --follow < "$T/fifo_st" \
    > "$T/live_st" 2>&1 &
CS=$!
exec 3> "$T/fifo_st"
$A move --token "$ARB" --match RST place alice 4S > /dev/null
$A move --token "$ARB" --match RST place bob 5H > /dev/null
wait_for "$T/live_st" '^# bob placed 5♥ (seq 2)$'
$A rule --token "$ARB" --match RST stands place bob 6D --reason "out of turn" \
    > /dev/null
wait_for "$T/live_st" '; Sota 1 void: 4♠→5♥→6♦: it holds a card let stand'
check "a ruling that voids the Sota, followed: the void said" 0 $?
# SIGTERM ends a console waiting for input at once, exit 0 (no test
# failed when it went on until the end of its input).
kill "$CS" 2> /dev/null
i=0
while kill -0 "$CS" 2> /dev/null && [ $i -lt 30 ]; do
    sleep 0.1; i=$((i + 1))
done
kill -0 "$CS" 2> /dev/null; alive=$?
kill -9 "$CS" 2> /dev/null; wait "$CS"; rc=$?
check "SIGTERM ends the console at once" "1 0" "$alive $rc"
exec 3>&-

# ---- a live console: follows, survives a daemon killed twice -----------
$A open --token "$ARB" --match R2 --game yahchain --players alice,bob \
    --option mode=3 > /dev/null
mkfifo "$T/fifo"
$A record --token "$SCO" --match R2 --follow --retry 20 < "$T/fifo" \
    > "$T/live" 2> "$T/live.err" &
C=$!
exec 3> "$T/fifo"
echo 4S >&3
wait_for "$T/live" '^ok seq 1$'
$A move --token "$ARB" --match R2 place bob 5H > /dev/null
wait_for "$T/live" '^# bob placed 5♥ (seq 2)$'; check "follows another console" 0 $?

# Killed while the console waits for input: it reconnects and goes on.
kill -9 "$D"; wait "$D" 2>/dev/null
wait_for "$T/live.err" 'lost; reconnecting'; check "notices the loss" 0 $?
start_daemon
wait_for "$T/live.err" 'reconnected; the match is at seq 2'; check "reconnects" 0 $?
echo 6D >&3
wait_for "$T/live" '^ok seq 3'
check "after a restart" "ok seq 3; Sota 1 complete: 4♠→5♥→6♦ BC-001 Ladder 15+6 = 21 for alice" \
      "$(grep '^ok seq 3' "$T/live")"

# Killed while an append waits for its answer: the daemon is stopped, the
# move sits unread in its socket, then the daemon dies.  The console sends
# it again (same cid) to the restarted daemon: recorded once.
kill -STOP "$D"
echo 2C >&3
sleep 0.3
kill -9 "$D"; kill -CONT "$D" 2>/dev/null; wait "$D" 2>/dev/null
start_daemon
wait_for "$T/live" '^ok seq 4$'; check "resent after a lost answer" 0 $?
exec 3>&-
# The end of its input ends it; never wait for ever (make test must end).
i=0
while kill -0 "$C" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill -9 "$C" 2>/dev/null
wait "$C"; rc=$?; C=
check "live console exit" 0 $rc

# An answer lost after the commit (test hook: the connection drops right
# after the request): the resend gets the original seq back, dup.
# Following: the console's own move, found in the log by the resync, is
# its result line alone, never news too.
printf '2D\n' | ARBITER_RECORD_DROP_ACK=1 $A record --token "$SCO" \
    --match R2 --follow > "$T/out5" 2> "$T/err5"; rc=$?
check "lost ack: one result" "0 ok seq 5" "$rc $(cat "$T/out5")"
check "lost ack: the daemon had it" 1 \
      "$(grep -c 'seq 5 was recorded before its answer was lost' "$T/err5")"
printf 'bob 2H\n' | $A record --token "$SCO" --match R2 > "$T/out6" 2>&1
check "the Triple" "ok seq 6; Sota 2 complete: 2♣→2♦→2♥ BC-002 Triple 6+12 = 18 for bob" \
      "$(cat "$T/out6")"
check "every move once, no gap" "1 alice 4♠
2 bob 5H
3 alice 6♦
4 bob 2♣
5 alice 2♦
6 bob 2♥" "$(moves R2)"
check "no other event" 7 "$($A events --token "$RDR" --match R2 | wc -l | tr -d ' ')"
check "replay --db totals" '"totals":{"alice":21,"bob":18}' \
      "$($A replay --db "$T/data" --match R2 --json | grep -o '"totals":{[^}]*}')"

# The answers lost twice, the append's and its resend's: the second
# resync finds the move among what the console knew, and its replay keeps
# it (until 2026-12-07 it was left out: the answer lost its Sota, and the
# next bare card went to the wrong player and was refused).
$A open --token "$ARB" --match RL --game yahchain --players alice,bob \
    --option mode=3 > /dev/null
printf '4S\n5H\n6D\n2C\n' | ARBITER_RECORD_DROP_ACK=3,4 $A record \
    --token "$SCO" --match RL > "$T/outRL" 2> "$T/errRL"; rc=$?
check "an answer lost twice: one result each" "0 ok seq 1
ok seq 2
ok seq 3; Sota 1 complete: 4♠→5♥→6♦ BC-001 Ladder 15+6 = 21 for alice
ok seq 4" "$rc $(cat "$T/outRL")"
check "... recorded once" "1 alice 4♠
2 bob 5♥
3 alice 6♦
4 bob 2♣" "$(moves RL)"

# A move typed while the daemon is down: read once it is back, recorded
# once (no test typed one before the restart until 2026-12-07).
$A open --token "$ARB" --match R6 --game yahchain --players alice,bob \
    --option mode=3 > /dev/null
mkfifo "$T/fifo6"
$A record --token "$SCO" --match R6 --retry 20 < "$T/fifo6" \
    > "$T/live6" 2> "$T/live6.err" &
C=$!
exec 3> "$T/fifo6"
echo 4S >&3
wait_for "$T/live6" '^ok seq 1$'
kill -9 "$D"; wait "$D" 2>/dev/null
wait_for "$T/live6.err" 'lost; reconnecting'
echo 5H >&3
sleep 0.5
start_daemon
wait_for "$T/live6" '^ok seq 2$'
# Subscribed again after the reconnect: another console's move comes in,
# and the next bare card is bob's (no test failed when the reconnect left
# the console unsubscribed: it judged on the old state and was refused).
$A move --token "$ARB" --match R6 place alice 6D > /dev/null
sleep 0.5
echo 2C >&3
wait_for "$T/live6" '^ok seq 4$'
exec 3>&-
i=0
while kill -0 "$C" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill -9 "$C" 2>/dev/null
wait "$C"; rc=$?; C=
check "typed while the daemon was down: one result each" "0 ok seq 1
ok seq 2
ok seq 4" "$rc $(cat "$T/live6")"
check "... recorded once" "1 alice 4♠
2 bob 5♥
3 alice 6D
4 bob 2♣" "$(moves R6)"

# ---- at a terminal: the prompt, the line editor --------------------------
# script(1) gives the console a pseudo-terminal.  Keys: X, backspace, S,
# Home, 4, End, Enter: "4S"; then state; then ^D.
if command -v script > /dev/null 2>&1; then
    $A open --token "$ARB" --match R3 --game yahchain --players alice,bob \
        --option mode=3 > /dev/null
    (sleep 0.5; printf 'X\177S\033[H4\033[F\r'; sleep 0.5; printf 'state\r'
     sleep 0.5; printf '\004') \
        | timeout 10 script -qfec "$A record --token $SCO --match R3" \
            /dev/null > "$T/tty" 2>&1; rc=$?
    check "terminal exit" 0 $rc
    check "terminal prompt" 1 \
          "$(grep -c 'R3 seq 0 | Sota 1 \[\] | alice> 4S' "$T/tty")"
    check "terminal result" 1 "$(grep -c '^ok seq 1' "$T/tty")"
    check "terminal state" 1 "$(grep -c 'Sota 1 (alice.s) \[4♠\]; bob to play' "$T/tty")"
    check "terminal move" "1 alice 4♠" "$(moves R3)"
    # A line over 4096 bytes at a terminal: refused whole, as from a pipe
    # (no test typed one until 2026-12-07).
    (sleep 0.5; head -c 5000 /dev/zero | tr '\0' x; printf '\r'; sleep 0.5
     printf '\004') \
        | timeout 10 script -qfec "$A record --token $SCO --match R3" \
            /dev/null > "$T/tty3l" 2>&1; rc=$?
    check "terminal: an over-long line refused" "1 1" "$rc $(grep -c \
        '^error: the line is longer than 4096 bytes: nothing of it was sent' \
        "$T/tty3l")"
    check "... nothing recorded" "1 alice 4♠" "$(moves R3)"
    # History: the up arrow brings back the line sent last.
    (sleep 0.5; printf 'state\r'; sleep 0.5; printf '\033[A\r'; sleep 0.5
     printf '\004') \
        | timeout 10 script -qfec "$A record --token $SCO --match R3" \
            /dev/null > "$T/tty3h" 2>&1
    check "terminal history" 3 \
          "$(grep -c 'Sota 1 (alice.s) \[4♠\]; bob to play' "$T/tty3h")"

    # Another console's move arrives while "7" is half-typed: it prints
    # above the prompt, the prompt and the "7" come back under it; ^C then
    # drops the "7", so the line sent next is "6d" alone.
    $A open --token "$ARB" --match R4 --game yahchain --players alice,bob \
        --option mode=3 > /dev/null
    (sleep 0.5; printf '4s\r'; sleep 0.5; printf '7'; sleep 0.3
     $A move --token "$SCO" --match R4 place bob 5H > /dev/null
     sleep 0.7; printf '\0036d\r'; sleep 0.5; printf '\004') \
        | timeout 10 script -qfec "$A record --token $SCO --match R4" \
            /dev/null > "$T/tty4" 2>&1; rc=$?
    check "terminal push exit" 0 $rc
    check "terminal push above" 1 \
          "$(grep -c 'bob placed 5♥ (seq 2)' "$T/tty4")"
    check "terminal push keeps the line" 1 \
          "$(grep -a -A1 'bob placed 5♥ (seq 2)' "$T/tty4" \
             | grep -c 'R4 seq 2 | Sota 1 \[4♠ 5♥\] | alice> 7')"
    check "terminal push moves" "1 alice 4♠
2 bob 5H
3 alice 6♦" "$(moves R4)"

    # help at a terminal names the game's verbs (until 2026-12-06 it
    # pointed at the rules' page alone)
    $A open --token "$ARB" --match T5 --game tsukurutenten \
        --players ann,bob > /dev/null
    (sleep 0.5; printf 'help\r'; sleep 0.5; printf '\004') \
        | timeout 10 script -qfec "$A record --token $SCO --match T5" \
            /dev/null > "$T/tty5" 2>&1
    check "terminal help names the verbs" 1 \
          "$(grep -c "(tsukurutenten's verbs: deal, draw, discard, take, finish, pass; docs/rules/tsukurutenten.md)" "$T/tty5")"
fi

# ---- a running dealt match: the recorder judges ----------------------
# The console cannot replay it (the recorder keeps the deal until the
# close): it sends each move for the recorder to judge, and shows the
# recorder's report.  Until 2026-12-05 it would not start on one.  A
# whole Chắn match from its transcript, with an illegal move in it, then
# the state, and an undo; the recorder ends where the transcript's replay
# does.
F=tests/data/chan-draw.txt
ORDER=$(sed -n 's/^deal: order //p' $F)
$A open --token "$ARB" --match CHAN-DRAW-1 --game chan \
    --players an,binh,chi,dung --deal "order:$ORDER" \
    > /dev/null
grep -E '^[0-9]+\. ' $F | sed 's/^[0-9]*\. //; s/ *#.*//' > "$T/chan.moves"
n=$(wc -l < "$T/chan.moves" | tr -d ' ')
{ head -n 1 "$T/chan.moves"; echo "discard an 9W"; tail -n +2 "$T/chan.moves"
  echo state; echo undo; echo help; } \
    | $A record --token "$SCO" --match CHAN-DRAW-1 > "$T/chan.out" 2>&1
check "dealt: exit 1 (one move refused)" 1 $?
check "dealt: every move recorded" "$n" \
    "$(($(grep -c '^ok seq [0-9]*' "$T/chan.out") - 1))"
check "dealt: the illegal move refused by the recorder, with its rule" \
    "refused §3 turn: not an's move" \
    "$(grep '^refused' "$T/chan.out" | cut -d: -f1-2)"
check "dealt: the last move ends the match" 1 \
    "$(grep -c "^ok seq $n; .*the match is over" "$T/chan.out")"
check "dealt: the state, from the recorder's report" 1 \
    "$(grep -c "^seq $n; the match is over.*; totals an " "$T/chan.out")"
# (the match was over before the undo's note: its answer does not say
# so again)
check "dealt: the end said once by a move, once by the state" 2 \
    "$(grep -c 'the match is over' "$T/chan.out")"
check "dealt: undo asks the arbiter" 1 \
    "$(grep -c "^ok seq $((n + 1)); undo of seq $n (.*) requested" \
       "$T/chan.out")"
check "dealt: help names the moves this game takes" 1 \
    "$(grep -c '^commands: VERB PLAYER ARG\.\.\. (VERB: discard take pass draw chiu win declare) | undo' "$T/chan.out")"
check "dealt: the recorder's state = the transcript's replay" \
    "$($A replay $F)" \
    "$($A replay --db "$T/data" --match CHAN-DRAW-1 --at "$n")"
# An undo request is a note every viewer reads: it names the move as a
# spectator sees it, never the chip a draw withholds (until 2026-12-05 the
# note quoted the move as recorded).
F=tests/data/tsuku-simple.txt
$A open --token "$ARB" --match TT-UNDO --game tsukurutenten \
    --players ann,bob --option scoring=simple \
    --deal "order:$(sed -n 's/^deal: order //p' $F)" > /dev/null
printf 'draw ann B2\nundo\n' \
    | $A record --token "$SCO" --match TT-UNDO > "$T/tt.out" 2>&1
check "undo of a draw: the note as a reader reads it" \
    "note undo requested: seq 1 (draw ann)" \
    "$($A events --token "$RDR" --match TT-UNDO --from 2 \
       | sed 's/^2 [^ ]* [^ ]* //')"
# Declined by an arbiter meanwhile, a dealt match's undo may be asked
# again, as an open match's (until 2026-12-07 "already requested" for
# good: only the local replay, which a dealt match has not, was asked).
$A open --token "$ARB" --match TT-UNDO2 --game tsukurutenten \
    --players ann,bob --option scoring=simple \
    --deal "order:$(sed -n 's/^deal: order //p' $F)" > /dev/null
{ printf 'draw ann B2\nundo\n'; sleep 2; printf 'undo\n'; } \
    | $A record --token "$SCO" --match TT-UNDO2 > "$T/tt2.out" 2>&1 &
rp=$!
i=0
while [ "$($A events --token "$RDR" --match TT-UNDO2 --from 2 2>/dev/null |
           grep -c 'undo requested')" -lt 1 ] && [ $i -lt 50 ]; do
    sleep 0.1; i=$((i + 1))
done
$A note --token "$ARB" --match TT-UNDO2 "undo declined: seq 1" > /dev/null
wait $rp
check "dealt: a declined undo asked again" "ok seq 4; undo of seq 1 (draw \
ann B2) requested: only an arbiter can void it (arbiter rule --match \
TT-UNDO2 void 1 --reason ...)" "$(tail -1 "$T/tt2.out")"
# An arbiter's undo in a dealt match voids the move once: the next finds
# nothing left (no test undid twice there until 2026-12-07).
$A open --token "$ARB" --match TT-UNDO3 --game tsukurutenten \
    --players ann,bob --option scoring=simple \
    --deal "order:$(sed -n 's/^deal: order //p' $F)" > /dev/null
printf 'draw ann B2\nundo\nundo\n' \
    | $A record --token "$ARB" --match TT-UNDO3 > "$T/tt3.out" 2>&1
check "dealt: an arbiter's undo, twice" "ok seq 2; seq 1 (draw ann B2) is \
void
error: nothing to undo: this console has recorded no move that still stands" \
    "$(tail -2 "$T/tt3.out")"
# An answer lost after the commit: resent with the same cid, once.
$A open --token "$ARB" --match CHAN-DRAW-2 --game chan \
    --players an,binh,chi,dung --deal "order:$ORDER" \
    > /dev/null
head -n 2 "$T/chan.moves" | ARBITER_RECORD_DROP_ACK=1 $A record \
    --token "$SCO" --match CHAN-DRAW-2 > "$T/out7" 2> "$T/err7"
check "dealt, lost ack: one result each (a draw says the card it flipped)" \
    "0 ok seq 1 ok seq 2; binh flips 6V" \
    "$? $(cat "$T/out7" | tr '\n' ' ' | sed 's/ $//')"
check "dealt, lost ack: the recorder had it" 1 \
    "$(grep -c 'seq 1 was recorded before its answer was lost' "$T/err7")"
check "dealt, lost ack: recorded once" 3 \
    "$($A events --token "$RDR" --match CHAN-DRAW-2 | wc -l | tr -d ' ')"
# Following a dealt match: another console's move is news, marked, told
# from the recorder's report (no test followed one until 2026-12-07).
sleep 2 | $A record --token "$SCO" --match CHAN-DRAW-2 --follow \
    > "$T/out7f" 2>&1 &
rp=$!
sleep 0.7
$A move --token "$ARB" --match CHAN-DRAW-2 $(sed -n 3p "$T/chan.moves") \
    > /dev/null
wait $rp
check "dealt: another console's move followed" 1 \
    "$(grep -c '^# .* (seq 3)' "$T/out7f")"
$A record --help | grep -q "usage: arbiter record"; check "record help" 0 $?
$A --help | grep -q "^  record "; check "record listed" 0 $?

# A recorder that stops answering (SIGSTOP) while a move is sent: after
# 10 s the console takes the connection for lost and reconnects, and the
# move is recorded once when the recorder answers again (until 2026-12-06
# it waited for ever, ^C and quit unheard).
$A open --token "$ARB" --match HG --game yahchain --players alice,bob \
    --option mode=3 > /dev/null
# The recorder stays stopped until the console has said so, and 1 s of
# its reconnecting more (a fixed 13 s until 2026-12-07); the console's
# last line goes once its move is recorded (30 s at most each).
{ printf '4S\n'; sleep 2; printf '5H\n'; i=0
  while ! grep -q '^ok seq 2' "$T/out_hg" 2>/dev/null && [ $i -lt 300 ]; do
      sleep 0.1; i=$((i + 1))
  done
  printf 'state\n'; } \
    | $A record --token "$ARB" --match HG > "$T/out_hg" 2>&1 &
rp=$!
sleep 1; kill -STOP "$D"
i=0
while ! grep -q 'lost; reconnecting' "$T/out_hg" && [ $i -lt 300 ]; do
    sleep 0.1; i=$((i + 1))
done
sleep 1; kill -CONT "$D"
wait $rp; rc=$?
check "a recorder that stopped answering: reconnected, recorded once" \
    "0 1 2" "$rc $(grep -c 'lost; reconnecting' "$T/out_hg") $(moves HG |
    wc -l | tr -d ' ')"

# A recorder stopped for longer than --retry: the reconnect's auth is
# waited for 10 s, as any answer, and the console gives up (until
# 2026-12-07 it waited for that answer for ever).
$A open --token "$ARB" --match HS --game yahchain --players alice,bob \
    --option mode=3 > /dev/null
# Its input is held open (fd 3) until the wait ends: a pipe from `sleep
# 35` kept the case waiting those 35 s after the console gave up.
mkfifo "$T/fifo_hs"
$A record --token "$ARB" --match HS --retry 2 < "$T/fifo_hs" \
    > "$T/out_hs" 2>&1 &
rp=$!
exec 3> "$T/fifo_hs"
sleep 0.5; kill -STOP "$D"
sleep 0.5; (printf '4S\n' >&3) 2> /dev/null
i=0
while kill -0 "$rp" 2>/dev/null && [ $i -lt 300 ]; do
    sleep 0.1; i=$((i + 1))
done
gone=$(kill -0 "$rp" 2>/dev/null && echo waiting || echo ended)
kill -CONT "$D"
exec 3>&-
wait "$rp"; rc=$?
check "a recorder stopped past --retry: the console gives up" "ended 2 1" \
    "$gone $rc $(grep -c 'giving up' "$T/out_hs")"

# The console's token removed by a reload of the recorder's tokens: its
# connections are closed, and the console says at once that its token is
# refused now (until 2026-12-06 "reconnecting" for 30 s, then "giving
# up", a bad token every 200 ms meanwhile).
cp "$T/data/tokens" "$T/tokens.keep"
echo "token = revoke-me-token-0123456789 scorer gone" >> "$T/data/tokens"
kill -HUP "$D"; sleep 0.3
$A open --token "$ARB" --match RV --game yahchain --players alice,bob \
    --option mode=3 > /dev/null
{ printf '4S\n'; sleep 2; printf '5H\n'; } \
    | $A record --token revoke-me-token-0123456789 --match RV \
        > "$T/out_rv" 2>&1 &
rp=$!
# a watch on the same token is told why it ends (until 2026-12-06
# "connection closed by the server")
$A watch --token revoke-me-token-0123456789 --match RV \
    > /dev/null 2> "$T/err_rvw" &
wp=$!
sleep 1
cp "$T/tokens.keep" "$T/data/tokens"
kill -HUP "$D"
t0=$(date +%s)
wait $wp; wrc=$?
check "a revoked token: watch ends saying why" "1 1" "$wrc $(grep -c \
    "^arbiter watch: revoked: the token of this connection was removed" \
    "$T/err_rvw")"
wait $rp; rc=$?
check "a revoked token: the console stops, saying why" "2 1" \
    "$rc $(grep -c "refuses this console's token now (unauthenticated" \
           "$T/out_rv")"
check "... at once" 1 "$([ $(($(date +%s) - t0)) -lt 10 ] && echo 1)"
check "... its move before the reload recorded, none after" "1 alice 4♠" \
    "$(moves RV)"
# A player's token reads but records nothing: the console lets its move
# through, the recorder refuses it, and the console's replay drops it, so
# the same move typed again is refused the same way (no test had the
# recorder refuse a move the console judged legal until 2026-12-07).
$A open --token "$ARB" --match R7 --game yahchain --players alice,bob \
    --option mode=3 > /dev/null
echo "token = player-token-0123456789abcdef player pat R7 alice" \
    >> "$T/data/tokens"
kill -HUP "$D"; sleep 0.3
printf '4S\n4S\n' | $A record --token player-token-0123456789abcdef \
    --match R7 > "$T/out_pl" 2>&1; rc=$?
check "a player's console: each move refused by the recorder" "1 2 0" \
    "$rc $(grep -c '^refused forbidden: ' "$T/out_pl") $(moves R7 | wc -l |
    tr -d ' ')"

# ---- Chains: a placement typed as its card and cell ----------------------
# (until 2026-12-06 only written out, and recorded as typed: "8s R0C0";
# the help told of YAHchain's Sotas)
$A open --token "$ARB" --match K1 --game chains --teams long,short \
    --players ann:long,bob:short --option deck=36 --option scoring=square \
    --deal seed:club-night-7 > /dev/null 2>&1
printf '7c R0C0\nhelp\nbob 6s r-1c0\npass\n' \
    | $A record --token "$SCO" --match K1 > "$T/outk" 2>&1
check "chains: typed placements recorded, canonically" \
    "1 ann 7♣
2 bob 6♠" "$(moves K1)"
check "... as card and cell" 2 "$($A events --token "$RDR" --match K1 \
    --kind move | grep -c ' r0c0$\| r-1c0$')"
check "... its help says so" 1 \
    "$(grep -c '^commands: CARD CELL | PLAYER CARD CELL | VERB PLAYER ARG' "$T/outk")"
check "... a pass is written out" 1 \
    "$(grep -c 'pass needs its player: write pass PLAYER' "$T/outk")"

echo "record.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
