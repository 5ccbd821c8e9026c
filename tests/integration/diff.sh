#!/bin/sh
# Settling a dispute with the real daemon and bin/arbiter: a claim against
# a transcript, a store and a server (arbiter diff --claim), claims on
# record after the close (arbiter claim; statuses in state and replay), a
# CSV claim, the roles, a restart, and two scorekeepers' sheets that part
# at move 9 (arbiter diff A B).  Exact output lines and exit statuses.
BUILD=${BUILD:-build}
A=${ARBITER:-bin/arbiter}
pass=0; fail=0
T=$(mktemp -d)
D=
cleanup() {
    [ -n "$D" ] && kill "$D" 2>/dev/null && wait "$D" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

check() {   # check NAME EXPECTED ACTUAL
    if [ "$2" = "$3" ]; then pass=$((pass + 1))
    else fail=$((fail + 1)); printf 'FAIL %s\n  want: %s\n  got:  %s\n' "$1" "$2" "$3"; fi
}

start() {
    bin/arbiterd --data "$T/data" --listen "unix:$T/s.sock" --log-level warn \
        2>> "$T/daemon.log" &
    D=$!
    i=0
    while [ ! -S "$T/s.sock" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
    if [ ! -S "$T/s.sock" ]; then
        echo "diff.sh: arbiterd did not start"; cat "$T/daemon.log"
        echo "diff.sh: 0 passed, 1 failed"; exit 1
    fi
}
start
token() { awk -v r="$1" '$1 == "token" && $4 == r { print $3 }' "$T/data/tokens"; }
ARB=$(token arbiter); SCO=$(token scorer); RDR=$(token reader)
export ARBITER_SERVER="unix:$T/s.sock"
unset ARBITER_TOKEN
HEX='[0-9a-f]\{64\}'
nohash() { sed "s/ $HEX\$//"; }

# ---- a closed match, recorded and transcribed ------------------------------
# Sota k takes 2-3-4 of suit letter k: a Single line, BC-003, 9 + 15 = 24.
$A open --token "$ARB" --match M1 --game yahchain --players alice,bob \
    --option mode=3 > /dev/null
printf 'game: yahchain\nmatch: M1\nplayers: alice bob\nmode: 3\n\n' > "$T/m1.txt"
seq=0
for suit in S H D C U M W F L G Y N; do
    for type in 2 3 4; do
        seq=$((seq + 1))
        if [ $((seq % 2)) -eq 1 ]; then who=alice; else who=bob; fi
        $A move --token "$SCO" --match M1 place $who "$type$suit" > /dev/null
        printf '%d. place %s %s%s\n' $seq $who $type $suit >> "$T/m1.txt"
    done
done
$A close --token "$ARB" --match M1 --reason "all Sotas done" > /dev/null
printf '37. close -- all Sotas done\n' >> "$T/m1.txt"

# ---- a claim that agrees, from every source --------------------------------
$A replay --json "$T/m1.txt" > "$T/good.json"
out=$($A diff --claim "$T/good.json" "$T/m1.txt"); rc=$?
check "diff file exit" 0 $rc
check "diff file" "identical: 12 records, 2 totals" "$out"
out=$($A diff --token "$RDR" --claim "$T/good.json" --match M1); rc=$?
check "diff server exit" 0 $rc
check "diff server" "identical: 12 records, 2 totals" "$out"
out=$($A diff --claim "$T/good.json" --db "$T/data" --match M1); rc=$?
check "diff db exit" 0 $rc
check "diff db" "identical: 12 records, 2 totals" "$out"

# ---- a doctored claim: every difference, with the seq that fixed it --------
sed -e 's/"sota":3,"owner":"alice","cards":3,"sequence":\["2♦","3♦","4♦"\],"code":"BC-003","face_sum":9,"bonus":15/"sota":3,"owner":"alice","cards":3,"sequence":["2♦","3♦","4♦"],"code":"BC-003","face_sum":9,"bonus":12/' \
    -e 's/"sequence":\["2☀","3☀","4☀"\]/"sequence":["2☀","4☀","3☀"]/' \
    -e 's/"totals":{"alice":144/"totals":{"alice":141/' "$T/good.json" > "$T/bad.json"
out=$($A diff --token "$RDR" --claim "$T/bad.json" --match M1); rc=$?
check "diff bad exit" 1 $rc
check "diff bad" 'record 3 (Sota 3): bonus: claimed 12, recorded 15, fixed at seq 9
record 5 (Sota 5): sequence: claimed ["2☀","4☀","3☀"], recorded ["2☀","3☀","4☀"], fixed at seq 15
total alice: claimed 141, recorded 144
3 differences' "$out"
out=$($A diff --json --claim "$T/bad.json" "$T/m1.txt"); rc=$?
check "diff json exit" 1 $rc
check "diff json head" '{"identical":false,"records":{"recorded":12,"claimed":12},"totals":{"recorded":2,"claimed":2},"differences":[{"type":"field","record":3,"claimed_record":3,"key":{"sota":3},"field":"bonus","claimed":12,"recorded":15,"seq":9},' \
    "$(printf '%s' "$out" | sed 's/\(,"seq":9}\),.*/\1,/')"
check "diff json one line" 1 \
    "$($A diff --json --claim "$T/bad.json" "$T/m1.txt" | wc -l | tr -d ' ')"
err=$($A diff --claim "$T/nope.json" "$T/m1.txt" 2>&1); rc=$?
check "diff no claim file exit" 2 $rc
printf '{"records":[],"totals":{},}\n' > "$T/broken.json"
err=$($A diff --claim "$T/broken.json" "$T/m1.txt" 2>&1); rc=$?
check "diff broken claim exit" 2 $rc
check "diff broken claim msg" "$T/broken.json: line 1, column 27: trailing comma in an object" "$err"
# What the JSON parser itself refuses names the field too, in our words.
printf '{"records":[{"sota":1},\n{"sota":2,"game_points":1.5}],"totals":{}}\n' > "$T/real.json"
err=$($A diff --claim "$T/real.json" "$T/m1.txt" 2>&1); rc=$?
check "diff fraction exit" 2 $rc
check "diff fraction msg" "$T/real.json: line 2, column 25: records[1].game_points: 1.5 is not an integer: whole numbers only (no fraction, no exponent)" "$err"
printf '{"records":[],"totals":{"alice":99999999999999999999999}}\n' > "$T/huge.json"
err=$($A diff --claim "$T/huge.json" "$T/m1.txt" 2>&1); rc=$?
check "diff huge exit" 2 $rc
check "diff huge msg" "$T/huge.json: line 1, column 33: totals.alice: 99999999999999999999999 is out of range (at most 9223372036854775807)" "$err"
printf '{"records":[{"owner":"a\\u0000n"}],"totals":{}}\n' > "$T/nul.json"
err=$($A diff --claim "$T/nul.json" "$T/m1.txt" 2>&1); rc=$?
check "diff nul exit" 2 $rc
check "diff nul msg" "$T/nul.json: line 1, column 22: records[0].owner: a NUL character (\\u0000) is not allowed" "$err"

# ---- claims on record, after the close ------------------------------------
out=$($A claim --token "$SCO" --match M1 --by alice "$T/bad.json"); rc=$?
check "claim after close exit" 0 $rc
check "claim after close" 'seq 38 hash
record 3 (Sota 3): disputed: bonus
record 5 (Sota 5): disputed: sequence
12 records: 10 confirmed, 2 disputed' "$(printf '%s\n' "$out" | nohash)"
state=$($A state --token "$RDR" --match M1 --json)
check "state disputed" 2 "$(printf '%s' "$state" | grep -o '"status":"disputed"' | wc -l | tr -d ' ')"
check "state confirmed" 10 "$(printf '%s' "$state" | grep -o '"status":"confirmed"' | wc -l | tr -d ' ')"
check "state disputed fields" '"game_points":24,"status":"disputed","disputed_fields":["bonus"]' \
    "$(printf '%s' "$state" | grep -o '"game_points":24,"status":"disputed","disputed_fields":\["bonus"\]')"
check "state closed" '"closed":true' "$(printf '%s' "$state" | grep -o '"closed":true')"
out=$($A state --token "$RDR" --match M1); rc=$?
check "state text exit" 0 $rc
check "state text record 5" "  mode=YCWS-144/3 sota=5 owner=alice cards=3 sequence=2☀→3☀→4☀ code=BC-003 face_sum=9 bonus=15 game_points=24 status=disputed disputed_fields=sequence  (seq 15)" \
    "$(printf '%s\n' "$out" | grep 'sota=5 ')"
check "replay db = state" "$($A replay --db "$T/data" --match M1 --json)" "$state"
# A rating body reads the statuses from the CSV export, from either side.
for src in "--db $T/data" "--token $RDR"; do
    csv=$($A export $src --match M1 --format csv | tr -d '\r')
    check "csv statuses ($src)" "10 2" \
        "$(printf '%s\n' "$csv" | grep -c ',confirmed,') $(printf '%s\n' \
           "$csv" | grep -c ',disputed,[a-z]')"
    check "csv Sota 5 ($src)" "M1,YAHchain-3e-ch34-3,YCWS-144/3,5,alice,3,\
2☀ 3☀ 4☀,BC-003,9,15,24,disputed,sequence" \
        "$(printf '%s\n' "$csv" | grep '^M1,[^,]*,[^,]*,5,')"
done
check "matches still closed" "M1 yahchain closed 38" "$($A matches --token "$RDR" | cut -d' ' -f1-4)"

# The event, as the events listing and a transcript line show it.
out=$($A events --token "$RDR" --match M1 --kind claim | cut -d' ' -f4-)
check "events claim" "claim alice -- $($A claim --dry-run --by alice "$T/bad.json" | sed 's/^claim alice -- //')" "$out"
# --dry-run checks a claim without sending it: a good one exits 0.
$A claim --dry-run "$T/bad.json" > /dev/null
check "claim dry-run exit" 0 $?

# Everything else stays sealed.
err=$($A move --token "$SCO" --match M1 place alice KS 2>&1 >/dev/null); rc=$?
check "move after close exit" 1 $rc
check "move after close msg" "arbiter move: over: close: the match is closed: nothing may follow" "$err"
err=$($A note --token "$SCO" --match M1 late 2>&1 >/dev/null); rc=$?
check "note after close exit" 1 $rc
err=$($A claim --token "$RDR" --match M1 "$T/good.json" 2>&1 >/dev/null); rc=$?
check "reader claim exit" 1 $rc
check "reader claim msg" "arbiter claim: forbidden: append needs the scorer role; reader is a reader" "$err"

# A CSV claim (a spreadsheet's export, ';' and a byte order mark) by the
# arbiter; the latest claim decides.
{
    printf '\357\273\277match_id;edition;mode;sota;owner;cards;sequence;code;face_sum;bonus;game_points;status\r\n'
    n=0
    for s in ♠ ♥ ♦ ♣ ☀ ☾ ☸ ✿ ❦ ⚙ ☯ ♪; do
        n=$((n + 1))
        if [ $((n % 2)) -eq 1 ]; then o=alice; else o=bob; fi
        printf 'M1;YAHchain-3e-ch34-3;YCWS-144/3;%d;%s;3;2%s 3%s 4%s;BC-003;9;15;24;pending\r\n' $n $o "$s" "$s" "$s"
    done
    printf ';;;;;;;;;;;\r\nplayer;total;;;;;;;;;;\r\nalice;144;;;;;;;;;;\r\nbob;144;;;;;;;;;;\r\n'
} > "$T/good.csv"
out=$($A diff --claim "$T/good.csv" "$T/m1.txt"); rc=$?
check "diff csv exit" 0 $rc
out=$($A claim --token "$ARB" --match M1 --by rating-body --cid rb-1 "$T/good.csv"); rc=$?
check "claim csv exit" 0 $rc
check "claim csv" 'seq 39 hash
12 records: 12 confirmed, 0 disputed' "$(printf '%s\n' "$out" | nohash)"
out=$($A claim --token "$ARB" --match M1 --by rating-body --cid rb-1 "$T/good.json"); rc=$?
check "claim retry exit" 0 $rc
check "claim retry" "seq 39 hash (duplicate)" "$(printf '%s\n' "$out" | head -1 | sed "s/ $HEX / /")"
check "state all confirmed" 12 "$($A state --token "$RDR" --match M1 --json | grep -o '"status":"confirmed"' | wc -l | tr -d ' ')"

# A claim the recorder cannot read is refused before anything is written.
printf '{"records":[{"sota":true}],"totals":{}}\n' > "$T/typed.json"
err=$($A claim --token "$SCO" --match M1 "$T/typed.json" 2>&1 >/dev/null); rc=$?
check "bad claim exit" 2 $rc
check "bad claim msg" "$T/typed.json: line 1, column 21: records[0].sota: expected an integer, a string or a list of strings, got true/false" "$err"
# A file that opens as JSON is JSON to claim as to diff: a claim is an
# object, and an array is refused as such (it was taken for CSV).
printf '[{"records":[],"totals":{}}]\n' > "$T/arr.json"
err=$($A claim --dry-run "$T/arr.json" 2>&1 >/dev/null); rc=$?
check "array claim exit" 2 $rc
check "array claim msg" "$T/arr.json: line 1, column 1: a claim is an \
object {\"records\": [...], \"totals\": {...}}, not array" "$err"
# A byte order mark before the JSON is no CSV (it asked for --match).
printf '\357\273\277{"records":[],"totals":{}}\n' > "$T/bom.json"
out=$($A claim --dry-run "$T/bom.json"); rc=$?
check "bom claim exit" 0 $rc
check "bom claim" 'claim -- {"records":[],"totals":{}}' "$out"
check "nothing written" "M1 yahchain closed 39" "$($A matches --token "$RDR" | cut -d' ' -f1-4)"

# ---- the verdicts survive a restart (replayed from the store) -------------
kill "$D"; wait "$D" 2>/dev/null; D=
rm -f "$T/s.sock"
start
check "restart state" "$($A replay --db "$T/data" --match M1 --json)" \
    "$($A state --token "$RDR" --match M1 --json)"
out=$($A claim --token "$SCO" --match M1 --by bob "$T/bad.json" | tail -1); rc=$?
check "claim after restart" "12 records: 10 confirmed, 2 disputed" "$out"

# ---- the record against its transcript: the claims are what differs -------
out=$($A diff "$T/m1.txt" --db "$T/data" --match M1); rc=$?
check "diff transcript db exit" 1 $rc
check "diff transcript db" "A: $T/m1.txt
B: $T/data: match M1
first divergence at seq 38: A ends at seq 37, B has 'claim alice -- {\"records\":[{\"match_id\":\"M1\"" \
    "$(printf '%s\n' "$out" | head -3 | sed 's/\("match_id":"M1"\).*/\1/')"
out=$($A diff --token "$RDR" "$T/m1.txt" --match M1 | sed -n 3p | cut -c1-60); rc=$?
check "diff transcript server" "first divergence at seq 38: A ends at seq 37, B has 'claim a" "$out"

# An export's jsonl is a source too; its hash chain is checked.
$A export --format jsonl --db "$T/data" --match M1 > "$T/m1.jsonl"
out=$($A diff --claim "$T/good.json" "$T/m1.jsonl"); rc=$?
check "diff jsonl exit" 0 $rc
check "diff jsonl" "identical: 12 records, 2 totals" "$out"
out=$($A diff "$T/m1.jsonl" --db "$T/data" --match M1 | sed -n 3p | sed "s/ $HEX\$//"); rc=$?
check "jsonl = db" "identical: 40 events, digest" "$out"
Z=0000000000000000000000000000000000000000000000000000000000000000
sed "3s/\"hash\":\"[0-9a-f]*\"/\"hash\":\"$Z\"/" "$T/m1.jsonl" > "$T/bad.jsonl"
err=$($A diff --claim "$T/good.json" "$T/bad.jsonl" 2>&1); rc=$?
check "tampered jsonl exit" 2 $rc
check "tampered jsonl" "$T/bad.jsonl:3: seq 2: hash does not match its bytes" "$err"

# A transcript with the claim lines reads back to the recorded state.
{ cat "$T/m1.txt"
  printf '38. %s\n' "$($A claim --dry-run --by alice "$T/bad.json")"
  printf '39. %s\n' "$($A claim --dry-run --by rating-body "$T/good.json")"
  printf '40. %s\n' "$($A claim --dry-run --by bob "$T/bad.json")"
} > "$T/m1c.txt"
out=$($A diff "$T/m1c.txt" --db "$T/data" --match M1); rc=$?
check "transcript with claims = db exit" 0 $rc
check "transcript with claims = db" "identical: 40 events, digest" \
    "$(printf '%s\n' "$out" | sed -n 3p | sed "s/ $HEX\$//")"
check "transcript with claims digest" "$($A replay --db "$T/data" --match M1 --json | grep -o '"digest":"[0-9a-f]*"')" \
    "$($A replay --json "$T/m1c.txt" | grep -o '"digest":"[0-9a-f]*"')"

# ---- a claim of more records than a move has arguments ---------------------
# Four cycles, 48 records: until 2026-12-05 a claim carried at most 32
# (a move's arguments), and such a match could not be claimed at all.
$A load --token "$ARB" tests/data/yah3-cycles4.txt > /dev/null
$A replay --json tests/data/yah3-cycles4.txt > "$T/c4.json"
out=$($A claim --token "$ARB" --match C4 --by rating-body "$T/c4.json" \
      | tail -1); rc=$?
check "claim of 48 records exit" 0 $rc
check "claim of 48 records" "48 records: 48 confirmed, 0 disputed" "$out"
check "claim of 48 records: state" 48 \
    "$($A state --token "$RDR" --match C4 --json \
       | grep -o '"status":"confirmed"' | wc -l | tr -d ' ')"
{ cat tests/data/yah3-cycles4.txt
  printf '145. %s\n' "$($A claim --dry-run --by rating-body "$T/c4.json")"
} > "$T/c4c.txt"
check "claim of 48 records: transcript = db" "identical: 145 events, digest" \
    "$($A diff "$T/c4c.txt" --db "$T/data" --match C4 | sed -n 3p \
       | sed "s/ $HEX\$//")"
# A claim past the recorder's frame (64 KiB by default: about 250 such
# records) is refused whole, naming the setting to raise.
r8='[\1,\1,\1,\1,\1,\1,\1,\1]'
sed "s/\"records\":\[\(.*\)\],\"totals\"/\"records\":$r8,\"totals\"/" \
    "$T/c4.json" > "$T/c4x8.json"
err=$($A claim --token "$ARB" --match C4 "$T/c4x8.json" 2>&1 >/dev/null)
rc=$?
check "claim past the frame exit" 1 $rc
check "claim past the frame" "arbiter claim: too_big: frame header declares \
N bytes: the largest frame is 65536 bytes (the recorder's frame_max)" \
    "$(printf '%s' "$err" | sed 's/declares [1-9][0-9]* bytes/declares N bytes/')"
check "claim past the frame: nothing written" 145 \
    "$($A state --token "$RDR" --match C4 --json | grep -o '"seq":[0-9]*' \
       | tail -1 | cut -d: -f2)"

# Every field a record is disputed on is named, in the record's order.
sed 's/"face_sum":6,"bonus":12,/"face_sum":7,"bonus":13,/' "$T/c4.json" \
    > "$T/c4bad.json"
out=$($A claim --token "$ARB" --match C4 "$T/c4bad.json" | sed -n 2,3p)
check "claim disputing two fields" "record 1 (Sota 1): disputed: face_sum, \
bonus
48 records: 47 confirmed, 1 disputed" "$out"

# Past the log's bound (1 MiB an event) on a recorder whose frame_max lets
# such a claim in: refused alone, naming the bound, and the next event is
# recorded (at the commit it would have refused the whole batch).
printf 'frame_max = 4M\n' > "$T/big.conf"
bin/arbiterd --config "$T/big.conf" --data "$T/data2" \
    --listen "unix:$T/s2.sock" --log-level warn 2>> "$T/daemon2.log" &
D2=$!
i=0
while [ ! -S "$T/s2.sock" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
ARB2=$(awk '$1 == "token" && $4 == "arbiter" { print $3 }' "$T/data2/tokens")
$A load --server "unix:$T/s2.sock" --token "$ARB2" \
    tests/data/yah3-cycles4.txt > /dev/null
awk 'BEGIN { s = sprintf("%1100s", ""); gsub(/ /, "a", s)
             printf "{\"records\":["
             for (i = 0; i < 1000; i++)
                 printf "%s{\"sota\":%d,\"x\":\"%s\"}", (i ? "," : ""), i, s
             printf "],\"totals\":{\"ann\":1,\"bob\":2}}\n" }' > "$T/1m.json"
err=$($A claim --server "unix:$T/s2.sock" --token "$ARB2" --match C4 \
      "$T/1m.json" 2>&1 >/dev/null)
check "claim past the log's bound" "arbiter claim: too_big: the event is \
1121981 bytes encoded, at most 1048576" "$err"
check "... the next event recorded" "seq 145" \
    "$($A note --server "unix:$T/s2.sock" --token "$ARB2" --match C4 next \
       | cut -d' ' -f1-2)"
kill "$D2"; wait "$D2" 2>/dev/null

# ---- two scorekeepers' sheets that part at move 9 -------------------------
head=$(printf 'game: yahchain\nmatch: R2-T4\nplayers: alice bob\nmode: 3\n\n1. place alice 2♠\n2. place bob 3♠\n3. place alice 4♠\n4. place bob 2♥\n5. place alice 3♥\n6. place bob 4♥\n7. place alice 5♦\n8. place bob 6♦')
printf '%s\n9. place alice 7♠\n10. place bob 8♥\n' "$head" > "$T/alice.txt"
printf '%s\n9. place alice 7♣\n10. place bob 8♥\n' "$head" > "$T/bob.txt"
out=$($A diff "$T/alice.txt" "$T/bob.txt"); rc=$?
check "sheets exit" 1 $rc
check "sheets line" "first divergence at seq 9: A has 'place alice 7♠', B has 'place alice 7♣'" \
    "$(printf '%s\n' "$out" | sed -n 3p)"
check "sheets before" "both before seq 9: digest $(printf '%s\n' "$($A replay --at 8 "$T/alice.txt")" | sed -n 's/^digest //p')" \
    "$(printf '%s\n' "$out" | sed -n 4p)"
check "sheets A after" "A after seq 9: digest $(printf '%s\n' "$($A replay --at 9 "$T/alice.txt")" | sed -n 's/^digest //p')" \
    "$(printf '%s\n' "$out" | sed -n 5p)"
check "sheets B after" "B after seq 9: digest $(printf '%s\n' "$($A replay --at 9 "$T/bob.txt")" | sed -n 's/^digest //p')" \
    "$(printf '%s\n' "$out" | sed -n 6p)"
$A diff "$T/alice.txt" "$T/alice.txt" > /dev/null; check "same sheet exit" 0 $?
$A diff "$T/alice.txt" > /dev/null 2>&1; check "one sheet exit" 2 $?
err=$($A diff "$T/alice.txt" "$T/bob.txt" "$T/alice.txt" 2>&1); rc=$?
check "three sheets exit" 2 $rc
check "three sheets" "arbiter diff: at most two sources" "$err"

# ---- refusals, each naming what is wrong, exit 2 ---------------------------
# A source that does not replay: its file, line and seq.
printf '%s\n9. place bob 7♠\n' "$head" > "$T/turn.txt"
printf '{"records":[],"totals":{}}\n' > "$T/none.json"
err=$($A diff --claim "$T/none.json" "$T/turn.txt" 2>&1); rc=$?
check "refused source exit" 2 $rc
check "refused source" "$T/turn.txt:14: seq 9 'place bob 7♠' refused: \
§34.11.2: it is alice's turn, not bob's: players place in seat order" "$err"
err=$($A diff --db "$T/data" "$T/alice.txt" "$T/bob.txt" 2>&1); rc=$?
check "db without match exit" 2 $rc
check "db without match" "arbiter diff: --db DIR needs --match ID" "$err"
err=$($A claim --dry-run --by 'a b' "$T/none.json" 2>&1); rc=$?
check "claim bad by exit" 2 $rc
check "claim bad by" "arbiter claim: --by 'a b' is not a name (1..64 of \
A-Z a-z 0-9 _ . @ + -)" "$err"
printf 'sota\n1\n\nplayer,total\n' > "$T/nomatch.csv"
err=$($A claim --dry-run "$T/nomatch.csv" 2>&1); rc=$?
check "csv claim without match exit" 2 $rc
check "csv claim without match" "arbiter claim: a CSV claim is read against \
the match's records: give --match" "$err"
awk 'BEGIN { printf "{\"records\":["
             for (i = 0; i < 1025; i++) printf "%s{}", (i ? "," : "")
             printf "],\"totals\":{}}\n" }' > "$T/1025.json"
err=$($A claim --dry-run "$T/1025.json" 2>&1); rc=$?
check "claim of 1025 records exit" 2 $rc
check "claim of 1025 records" "arbiter claim: $T/1025.json: 1025 records; \
one claim carries at most 1024" "$err"
err=$($A claim --dry-run "$T/none.json" "$T/none.json" 2>&1); rc=$?
check "claim of two files exit" 2 $rc
check "claim of two files" "arbiter claim: one claim file at a time" "$err"

# A CSV claim's dry run reads the match's records from the recorder: the
# same claim as its JSON.
check "csv claim dry-run" "$($A claim --dry-run "$T/good.json")" \
    "$($A claim --dry-run --token "$RDR" --match M1 "$T/good.csv")"
# A record the claim leaves out is disputed as not in it.
sed 's/{[^{}]*"sota":6,[^{}]*},//' "$T/good.json" > "$T/no6.json"
out=$($A claim --token "$SCO" --match M1 "$T/no6.json"); rc=$?
check "claim without Sota 6 exit" 0 $rc
check "claim without Sota 6" 'record 6 (Sota 6): disputed: not in the claim
12 records: 11 confirmed, 1 disputed' "$(printf '%s\n' "$out" | sed 1d)"

echo "diff.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
