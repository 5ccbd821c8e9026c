#!/bin/sh
# arbiter report --html from every source: a transcript, the data
# directory, the server and an export's jsonl give the same report at
# every seq; the chain is checked where the source has hashes and said
# not to be where it has none; the page needs nothing from the network;
# usage errors are named.  (The pages themselves are looked at in a real
# browser by test_web_report.)
. tests/common.sh
start_recorder

Y=tests/data/yah3-short.txt
$A load "$Y" > /dev/null 2>&1
check "load" 0 $?
M=$(sed -n 's/^match: *\([^ ]*\).*/\1/p' $Y | head -1)
$A export --format jsonl --match "$M" --out "$T/y.jsonl" 2> /dev/null

$A report --html --out "$T/file.html" "$Y"
check "file: exit" 0 $?
$A report --html --out "$T/db.html" --db "$T/data" --match "$M"
check "db: exit" 0 $?
$A report --html --match "$M" > "$T/server.html"
check "server: exit" 0 $?
$A report --html --out "$T/jsonl.html" "$T/y.jsonl"
check "jsonl: exit" 0 $?

# The report at every seq, from the page's data.
reports() { sed -n 's/.*"reports":\(.*\),"chain":.*/\1/p' "$1"; }
check "reports: some" 1 "$(reports "$T/file.html" | grep -c '"seq":8,')"
for s in db server jsonl; do
    check "$s: the same reports as the file" "$(reports "$T/file.html")" \
        "$(reports "$T/$s.html")"
    check "$s: chain checked" 1 \
        "$(grep -c '"chain":{"ok":true,"text":"Hash chain checked' "$T/$s.html")"
done
check "file: chain not checked" 1 \
    "$(grep -c '"chain":{"ok":null,"text":"Hash chain not checked' "$T/file.html")"
# The head named in the page is the recorder's.
head=$($A matches --json | sed -n 's/.*"head":"\([0-9a-f]*\)".*/\1/p')
check "db: head" 1 "$(grep -c "Head $head" "$T/db.html")"

# Self-contained: no asset reference left, no URL but the SVG namespace.
for s in file db server jsonl; do
    check "$s: no /static/" 0 "$(grep -c '/static/' "$T/$s.html")"
    check "$s: no URL" "" "$(grep -o 'https\{0,1\}://[^"]*' "$T/$s.html" \
        | grep -v '^http://www.w3.org/2000/svg$' | sort -u)"
done

# A claim: its differences travel with the page.
$A replay --json "$Y" | sed 's/"bonus":6/"bonus":9/' > "$T/claim.json"
$A report --html --claim "$T/claim.json" --db "$T/data" --match "$M" \
    --out "$T/claim.html"
check "claim: exit" 0 $?
check "claim: difference" 1 \
    "$(grep -c '"type":"field","record":1,"claimed_record":1,"key":{"sota":1},"field":"bonus","claimed":9,"recorded":6,"seq":3' "$T/claim.html")"

# A bundle: verified with the key, then drawn, saying what was verified.
KEY=$($A key --db "$T/data")
$A export --db "$T/data" --match "$M" --format bundle --out "$T/y.bundle" \
    2> /dev/null
$A report --html --pubkey "$KEY" --out "$T/bundle.html" "$T/y.bundle"
check "bundle: exit" 0 $?
check "bundle: the same reports as the file" "$(reports "$T/file.html")" \
    "$(reports "$T/bundle.html")"
check "bundle: says what was verified" 1 "$(grep -c "\"verified\":\"Bundle $T/y.bundle verified when this file was written, with the public key $KEY given to arbiter report: the signature of its checkpoint ([0-9]* events, head $head), every hash link" "$T/bundle.html")"
check "bundle: chain checked" 1 \
    "$(grep -c '"chain":{"ok":true,"text":"Bundle .* Hash chain checked' "$T/bundle.html")"
check "bundle: no URL" "" "$(grep -o 'https\{0,1\}://[^"]*' "$T/bundle.html" \
    | grep -v '^http://www.w3.org/2000/svg$' | sort -u)"
$A report --html --pubkey "$KEY" --match "$M" --out "$T/bundle2.html" \
    "$T/y.bundle"
check "bundle --match: exit" 0 $?
# a tampered bundle (one byte of the last event's bytes) gives no page
cp "$T/y.bundle" "$T/bad.bundle"
size=$(wc -c < "$T/bad.bundle")
printf 'Z' | dd of="$T/bad.bundle" bs=1 seek=$((size - 200)) conv=notrunc \
    2> /dev/null
out=$($A report --html --pubkey "$KEY" --out "$T/bad.html" "$T/bad.bundle" 2>&1); rc=$?
check "tampered: exit" 1 $rc
check "tampered: says so" 1 "$(printf '%s\n' "$out" | grep -c "arbiter report: $T/bad.bundle: FAILED verification (.*): nothing drawn")"
check "tampered: no page" 1 "$([ -e "$T/bad.html" ]; echo $?)"
# the wrong key: refused the same way
other=$(printf '%064d' 0 | tr 0 a)
out=$($A report --html --pubkey "$other" "$T/y.bundle" 2>&1); rc=$?
check "wrong key: exit" 1 $rc
# a bundle without a key is not drawn
out=$($A report --html "$T/y.bundle" 2>&1); rc=$?
check "bundle without key: exit" 2 $rc
check "bundle without key" "arbiter report: $T/y.bundle is a bundle: it is drawn only once verified, give --pubkey KEY (the recorder's public key)" "$out"
out=$($A report --html --pubkey "$KEY" --match nosuch "$T/y.bundle" 2>&1); rc=$?
check "bundle, unknown match: exit" 2 $rc
check "bundle, unknown match" "arbiter report: $T/y.bundle: the bundle holds no match 'nosuch'" "$out"

# A running dealt match from the server: no client can replay it (the
# recorder keeps the deal until the close), so the page is drawn from the
# recorder's own report at every seq, and a claim is read against its
# results; the same reports and differences as the data directory's
# (whose secret lets the tool replay it).  Refused until 2026-12-05.
C=tests/data/chan-draw.txt
CM=$(sed -n 's/^match: *\([^ ]*\).*/\1/p' $C | head -1)
$A load "$C" > /dev/null 2>&1
$A report --html --match "$CM" --out "$T/cs.html"
check "dealt, server: exit" 0 $?
$A report --html --db "$T/data" --match "$CM" --out "$T/cdb.html"
check "dealt, server: the reports --db replays" 49 \
    "$([ "$(reports "$T/cs.html")" = "$(reports "$T/cdb.html")" ] \
       && reports "$T/cs.html" | grep -o '"digest":' | wc -l)"
check "dealt, server: says whose reports" 1 \
    "$(grep -c '"chain":{"ok":true,"text":"Dealt and still running: the '\
'table at each event and the results are the recorder.s own reports' \
       "$T/cs.html")"
$A state --match "$CM" --json | sed 's/"score":[0-9]*/"score":99/' \
    > "$T/cclaim.json"
$A report --html --claim "$T/cclaim.json" --match "$CM" --out "$T/cc.html"
check "dealt, server, claim: exit" 0 $?
$A report --html --claim "$T/cclaim.json" --db "$T/data" --match "$CM" \
    --out "$T/ccdb.html"
claim_of() { sed -n 's/.*"claim":\({.*}\)}.*/\1/p' "$1"; }
check "dealt, server, claim: the difference --db finds" \
    "$(claim_of "$T/ccdb.html")" "$(claim_of "$T/cc.html")"
check "dealt, server, claim: ... at seq 48" 1 \
    "$(grep -c '"field":"score","claimed":99,"recorded":0,"seq":48' \
       "$T/cc.html")"

# Every event is in the page's move list, the last one too.
events() { sed -n 's/.*"events":\(.*\),"reports":.*/\1/p' "$1"; }
check "file: the moves up to the close" '"seq":8' \
    "$(events "$T/file.html" | grep -o '"seq":[0-9]*' | tail -1)"
check "file: the close is a move" 1 \
    "$(events "$T/file.html" | grep -c '"kind":"close","line":"close')"
# An event the rules refuse: the page is still written, saying which,
# its reports stop before it, and the exit status is 1.
{ sed -n '1,/^5\./p' "$Y"; printf '6. place bob 4♠\n'; } > "$T/refused.txt"
$A report --html --out "$T/refused.html" "$T/refused.txt" 2> "$T/err"
check "refused: exit" 1 $?
check "refused: said" "$T/refused.txt: seq 6 'place bob 4♠' refused: §34.11.3: card 4♠ already played at seq 1: each physical card is used once per match" \
    "$(cat "$T/err")"
check "refused: in the page" 1 \
    "$(grep -c '"refused":{"seq":6,"line":"place bob 4♠","rule":"§34.11.3"' \
       "$T/refused.html")"
check "refused: a report at seqs 0..5" 6 \
    "$(reports "$T/refused.html" | grep -o '"digest":' | wc -l | tr -d ' ')"
# --out -: stdout, as for export
(cd "$T" && "$OLDPWD/$A" report --html --out - "$OLDPWD/$Y" > out.html)
check "--out -: stdout" "1 1" \
    "$([ -e "$T/-" ]; echo $?) $(grep -c '^<!doctype html>' "$T/out.html")"

# Usage.
out=$($A report "$Y" 2>&1); rc=$?
check "no format: exit" 2 $rc
check "no format" "arbiter report: say the format: --html" "$out"
out=$($A report --html "$Y" --db "$T/data" --match "$M" 2>&1); rc=$?
check "two sources: exit" 2 $rc
check "two sources" "arbiter report: name one source: FILE, --db DIR --match ID, or --match ID (the server)" "$out"
$A report --html --claim "$T/nosuch.json" --out "$T/noclaim.html" "$Y" \
    2> /dev/null
check "a claim that cannot be read: exit 2, no page" "2 1" \
    "$? $([ -e "$T/noclaim.html" ]; echo $?)"
out=$($A report --html --db "$T/data" "$Y" 2>&1); rc=$?
check "--db without --match" \
    "2 arbiter report: --db DIR needs --match ID" "$rc $out"
out=$($A report --html --pubkey "$KEY" --db "$T/data" --match "$M" \
      "$T/y.bundle" 2>&1)
check "--pubkey with --db" \
    "2 arbiter report: --pubkey goes with one BUNDLE file" "$? $out"
out=$($A report --html --match nosuch 2>&1); rc=$?
check "unknown match: exit" 2 $rc
out=$($A report --html --out /nonexistent/dir/x.html "$Y" 2>&1); rc=$?
check "unwritable: exit" 2 $rc
check "unwritable" "arbiter report: /nonexistent/dir/x.html: No such file or directory" "$out"

echo "report.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
