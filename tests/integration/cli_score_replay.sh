#!/bin/sh
# arbiter score / replay as a user runs them: exact output lines and exit
# statuses.
BUILD=${BUILD:-build}
A=bin/arbiter
pass=0; fail=0
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

check() {   # check NAME EXPECTED ACTUAL
    if [ "$2" = "$3" ]; then pass=$((pass + 1))
    else fail=$((fail + 1)); printf 'FAIL %s\n  want: %s\n  got:  %s\n' "$1" "$2" "$3"; fi
}

check "ladder"   "BC-001 15 6 21" "$($A score --mode 3 4♠ 5♥ 6♦)"
check "example"  "BC-001 15 6 21" "$($A score --mode 3 '4♠ → 5♥ → 6♠')"
check "vertex"   "BC-005 36 21 57" "$($A score --mode 3 JS QS KS)"
check "mode4"    "BC4-002 28 20 48" "$($A score --mode 4 7♠ 7♥ 7♦ 7♣)"
check "mode5"    "BC5-004 31 25 56" "$($A score --mode YCWS-144/5 '4♠→7♥→9♦→7♣→4☀')"
check "void"     "VOID" "$($A score --mode 3 6♦ 5♥ 4♠)"
check "badsuit"  "ERROR unknown suit 'Z' in '7Z'" "$($A score --mode 3 7Z 8S 9S)"
check "badtype"  "ERROR type 1 does not exist: types are 2..10, J, Q, K" "$($A score --mode 3 1S 2S 3S)"
check "count"    "ERROR mode 3 needs exactly 3 cards, got 4 (§34.5)" "$($A score --mode 3 2S 3S 4S 5S)"
check "dup"      "ERROR card 7♠ appears twice: each physical card is used once (§34.11.3)" "$($A score --mode 3 7S 8H 7S)"
$A score --mode 3 7Z 8S 9S >/dev/null; check "error exit" 1 $?
$A score --mode 3 4S 5S 6S >/dev/null; check "ok exit" 0 $?
$A score 4S 5S 6S >/dev/null 2>&1; check "no mode exit" 2 $?
$A score --mode 7 4S 5S 6S >/dev/null 2>&1; check "bad mode exit" 2 $?
# mode 6 is no mode either (§34.1: modes 3, 4, 5), refused as usage
$A score --mode 6 2S 3S 4S 5S 6S 7S >/dev/null 2>&1; check "mode 6 exit" 2 $?
# six cards are counted, seven and more are "more than 6" (§34.5)
check "count6"   "ERROR mode 5 needs exactly 5 cards, got 6 (§34.5)" "$($A score --mode 5 2S 3S 4S 5S 6S 7S)"
check "count7"   "ERROR mode 3 needs exactly 3 cards, got more than 6 (§34.5)" "$($A score --mode 3 2S 3S 4S 5S 6S 7S 8S)"
# "->" is the arrow typed in ASCII
check "ascii arrow" "BC-001 15 6 21" "$($A score --mode 3 '4S->5H->6D')"

# stdin: one answer per line, in order, CRLF and blank lines included
printf '4S 5H 6D\r\n\n7S,7H,7D\nJ♠→Q♠→K♠\n6D 5H 4S\n2S 3S 4S' > "$T/in"
printf 'BC-001 15 6 21\nERROR no cards on this line\nBC-002 21 12 33\nBC-005 36 21 57\nVOID\nBC-003 9 15 24\n' > "$T/want"
$A score --mode 3 - < "$T/in" > "$T/got"; rc=$?
check "stdin lines" "$(cat "$T/want")" "$(cat "$T/got")"
check "stdin exit" 1 $rc
printf '4S 5H 6D\n' | $A score --mode 3 - > /dev/null; check "stdin ok exit" 0 $?
# A NUL byte in a line: said as the record console says it (the line
# was cut at it: "unknown suit 'S' in '4S'")
out=$(printf '4S\0 5H 6D\n2S 3S 4S\n' | $A score --mode 3 -); rc=$?
check "stdin line with a NUL byte" "1 ERROR the line holds a NUL byte
BC-003 9 15 24" "$rc $out"

# replay: text, json, --at, a refused event
cat > "$T/m.txt" <<'TXT'
game: yahchain
match: T-2026-001
players: alice bob
mode: 3

1. place alice 4♠
2. place bob 5♥
3. place alice 6♦
4. place bob 7S
5. place alice 7H
6. place bob 7#3
TXT
out=$($A replay --json "$T/m.txt")
check "replay json totals" '"totals":{"alice":21,"bob":33}' "$(printf '%s' "$out" | grep -o '"totals":{[^}]*}')"
check "replay json digest" '"digest":"0f23605b66c28b5d3e792c8526c7d1ffa51d696fd2572b2e48e24a36a219da70"' "$(printf '%s' "$out" | grep -o '"digest":"[0-9a-f]*"')"
check "replay json record" '{"match_id":"T-2026-001","edition":"YAHchain-3e-ch34-3","mode":"YCWS-144/3","sota":1,"owner":"alice","cards":3,"sequence":["4♠","5♥","6♦"],"code":"BC-001","face_sum":15,"bonus":6,"game_points":21,"status":"pending"}' "$(printf '%s' "$out" | grep -o '{"match_id":[^}]*}' | head -1)"
out=$($A replay --json --at 3 "$T/m.txt")
check "replay at" '"totals":{"alice":21,"bob":0}' "$(printf '%s' "$out" | grep -o '"totals":{[^}]*}')"
# the usage errors of replay, each said and exit 2
out=$($A replay "$T/m.txt" "$T/m.txt" 2>&1); rc=$?
check "replay two files" "2 arbiter replay: one transcript at a time" \
    "$rc $out"
out=$($A replay "$T/m.txt" --db "$T" --match T-2026-001 2>&1); rc=$?
check "replay FILE and --db" \
    "2 arbiter replay: --db DIR and --match ID go together, instead of FILE" \
    "$rc $out"
$A replay > /dev/null 2>&1; check "replay no source exit" 2 $?
out=$($A replay --at3 "$T/m.txt" 2>&1 | head -1)
check "replay --at3 is no --at" "arbiter replay: unknown option '--at3'" \
    "$out"
# one line of JSON, ended by its newline
check "replay json: one line" 1 \
    "$($A replay --json "$T/m.txt" | wc -l | tr -d ' ')"
# `--` ends the options: a file named like one is read, and --help after
# it is a file's name too
cp "$T/m.txt" "$T/-m.txt"
check "replay -- -FILE" "$($A replay "$T/m.txt")" \
    "$(cd "$T" && "$OLDPWD/$A" replay -- -m.txt 2>&1)"
(cd "$T" && "$OLDPWD/$A" replay -- --help > /dev/null 2>&1)
check "replay -- --help is a file" 2 $?
printf '7. place alice 7S\n' >> "$T/m.txt"
err=$($A replay "$T/m.txt" 2>&1 >/dev/null); rc=$?
check "replay refused exit" 1 $rc
check "replay refused msg" "$T/m.txt:12: seq 7 'place alice 7S' refused: §34.11.3: card 7♠ already played at seq 4: each physical card is used once per match" "$err"
$A replay "$T/nope.txt" 2>/dev/null; check "replay missing file" 2 $?
$A replay --help | grep -q 'usage: arbiter replay'; check "replay help" 0 $?
$A score --help | grep -q 'usage: arbiter score'; check "score help" 0 $?
$A --help | grep -q 'commands:'; check "help" 0 $?

echo "cli_score_replay.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
