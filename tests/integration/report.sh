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

# Usage.
out=$($A report "$Y" 2>&1); rc=$?
check "no format: exit" 2 $rc
check "no format" "arbiter report: say the format: --html" "$out"
out=$($A report --html "$Y" --db "$T/data" --match "$M" 2>&1); rc=$?
check "two sources: exit" 2 $rc
check "two sources" "arbiter report: name one source: FILE, --db DIR --match ID, or --match ID (the server)" "$out"
out=$($A report --html --match nosuch 2>&1); rc=$?
check "unknown match: exit" 2 $rc
out=$($A report --html --out /nonexistent/dir/x.html "$Y" 2>&1); rc=$?
check "unwritable: exit" 2 $rc
check "unwritable" "arbiter report: /nonexistent/dir/x.html: No such file or directory" "$out"

echo "report.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
