#!/bin/sh
# arbiter export / verify / key as a user runs them against a live daemon:
# the key pair made on first start, bundles from --db and from --server,
# every export format round trip, time ranges, and tampered bundles
# (edited with od/dd/head/tail only) failing with the exact messages.
BUILD=${BUILD:-build}
A=bin/arbiter
pass=0; fail=0
T=$(mktemp -d)
D=; D2=
cleanup() {
    [ -n "$D" ] && kill "$D" 2>/dev/null && wait "$D" 2>/dev/null
    [ -n "$D2" ] && kill "$D2" 2>/dev/null && wait "$D2" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

check() {   # check NAME EXPECTED ACTUAL
    if [ "$2" = "$3" ]; then pass=$((pass + 1))
    else fail=$((fail + 1)); printf 'FAIL %s\n  want: %s\n  got:  %s\n' "$1" "$2" "$3"; fi
}

bin/arbiterd --data "$T/data" --listen "unix:$T/s.sock" --log-level info \
    2> "$T/daemon.log" &
D=$!
i=0
while [ ! -S "$T/s.sock" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
if [ ! -S "$T/s.sock" ]; then
    echo "export_verify.sh: arbiterd did not start"; cat "$T/daemon.log"
    echo "export_verify.sh: 0 passed, 1 failed"; exit 1
fi
token() { awk -v r="$1" '$1 == "token" && $4 == r { print $3 }' "$T/data/tokens"; }
ARB=$(token arbiter); SCO=$(token scorer); RDR=$(token reader)
export ARBITER_SERVER="unix:$T/s.sock"
unset ARBITER_TOKEN
HEX='[0-9a-f]\{64\}'

# ---- the key pair ---------------------------------------------------------
check "secret key mode" 600 "$(stat -c %a "$T/data/signing.key")"
check "public key mode" 644 "$(stat -c %a "$T/data/signing.pub")"
KEY=$($A key --db "$T/data"); rc=$?
check "key exit" 0 $rc
check "key is hex" 1 "$(printf '%s\n' "$KEY" | grep -c "^$HEX\$")"
check "key = signing.pub" "$(cat "$T/data/signing.pub")" "$KEY"
check "key logged" 1 "$(grep -c "created checkpoint signing key $KEY" "$T/daemon.log")"
$A key --db "$T/nowhere" 2>/dev/null; check "key no dir" 2 $?

# ---- three matches: M1 closed (38 events), M2 with rulings, M3 open -------
$A open --token "$ARB" --match M1 --game yahchain --players alice,bob \
    --option mode=3 > /dev/null
seq=0
for suit in S H D C U M W F L G Y N; do
    for type in 2 3 4; do
        seq=$((seq + 1))
        if [ $((seq % 2)) -eq 1 ]; then who=alice; else who=bob; fi
        $A move --token "$SCO" --match M1 place $who "$type$suit" > /dev/null
    done
done
$A close --token "$ARB" --match M1 --reason "all Sotas done" > /dev/null
$A open --token "$ARB" --match M2 --game yahchain \
    --players alice,bob,carol --option mode=3 > /dev/null
$A move --token "$SCO" --match M2 place alice 4♠ > /dev/null
$A move --token "$SCO" --match M2 place bob 5H > /dev/null
$A move --token "$SCO" --match M2 place carol 6D > /dev/null
$A note --token "$SCO" --match M2 'disputes, "loudly"' > /dev/null
$A rule --token "$ARB" --match M2 void 3 --reason "another deck" > /dev/null
$A move --token "$SCO" --match M2 place carol 6♦ > /dev/null
$A rule --token "$ARB" --match M2 amend 2 place bob 5♥ --reason typo > /dev/null
$A close --token "$ARB" --match M2 > /dev/null
$A open --token "$ARB" --match M3 --game yahchain --players ann,bo \
    --option mode=3 > /dev/null
$A move --token "$SCO" --match M3 place ann 9S > /dev/null

# ---- bundle from --db, verify ---------------------------------------------
err=$($A export --db "$T/data" --match M1 --format bundle --out "$T/m1.bundle" 2>&1); rc=$?
check "export db exit" 0 $rc
check "export db line" "arbiter export: wrote $T/m1.bundle: bundle, 1 match, 38 events, signed by key $KEY" "$err"
out=$($A verify "$T/m1.bundle" --pubkey "$KEY"); rc=$?
check "verify exit" 0 $rc
check "verify first" "bundle $T/m1.bundle: 1 match, key $KEY" "$(printf '%s\n' "$out" | head -1)"
check "verify match" "match M1  game yahchain  edition YAHchain-3e-ch34-3  events 38  closed" \
      "$(printf '%s\n' "$out" | sed -n 2p)"
check "verify last" "verified: 1 match, 38 events: signature, chain, rules and results hold" \
      "$(printf '%s\n' "$out" | tail -1)"
check "verify records = replay --db" \
      "$($A replay --db "$T/data" --match M1 | sed -n '/^records:/,$p')" \
      "$(printf '%s\n' "$out" | sed -n '/^records:/,/^digest/p')"
$A verify "$T/m1.bundle" --pubkey "$T/data/signing.pub" > /dev/null
check "verify key file" 0 $?

# ---- from --server (a reader): the daemon signs ---------------------------
$A export --token "$RDR" --match M1 --format bundle --out "$T/m1s.bundle" 2>/dev/null
check "export server exit" 0 $?
cmp -s "$T/m1.bundle" "$T/m1s.bundle"
check "server bundle = db bundle" 0 $?
$A export --db "$T/data" --token "$RDR" --match M1 --format bundle \
    --out "$T/m1b.bundle" 2>/dev/null
check "export db+server exit" 0 $?
cmp -s "$T/m1.bundle" "$T/m1b.bundle"
check "db+server bundle = db bundle" 0 $?
# --db of another recorder's data whose M3 has as many events as the
# daemon's, but others: the daemon's checkpoint does not match the events
# read, and the export says so (no test failed when it went on and only
# the bundle's own check refused it, naming no cause).
bin/arbiterd --data "$T/data2" --listen "unix:$T/s2.sock" \
    2> "$T/daemon2b.log" &
D2=$!
i=0
while [ ! -S "$T/s2.sock" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
ARB2=$(awk '$1 == "token" && $4 == "arbiter" { print $3 }' "$T/data2/tokens")
$A open --server "unix:$T/s2.sock" --token "$ARB2" --match M3 \
    --game yahchain --players ann,bo --option mode=3 > /dev/null
$A move --server "unix:$T/s2.sock" --token "$ARB2" --match M3 \
    place ann 9H > /dev/null
kill "$D2"; wait "$D2" 2>/dev/null; D2=
err=$($A export --db "$T/data2" --token "$RDR" --match M3 --format bundle \
      --out "$T/m3x.bundle" 2>&1); rc=$?
check "db+server: the daemon's checkpoint is not the events'" \
      "1 arbiter export: match M3: the server's checkpoint (2 events) does not match the events read" \
      "$rc $err"
check "... nothing written" no "$([ -e "$T/m3x.bundle" ] && echo yes || echo no)"
$A export --token "$RDR" --match M1 --match M2 --match M3 --format bundle > "$T/all.bundle"
check "export 3 to stdout" 0 $?
out=$($A verify "$T/all.bundle" --pubkey "$KEY"); rc=$?
check "verify 3 exit" 0 $rc
check "verify 3 last" "verified: 3 matches, 49 events: signature, chain, rules and results hold" \
      "$(printf '%s\n' "$out" | tail -1)"
check "verify open match" "match M3  game yahchain  edition YAHchain-3e-ch34-3  events 2  open" \
      "$(printf '%s\n' "$out" | grep '^match M3')"
check "verify open note" 1 "$(printf '%s\n' "$out" | grep -c 'note: the match was open when exported')"
err=$($A export --token "$RDR" --match NOPE --format bundle 2>&1 > /dev/null); rc=$?
check "export server no match" "1 arbiter export: not_found: no match 'NOPE'" "$rc $err"
err=$($A export --db "$T/data" --match NOPE --format jsonl 2>&1 > /dev/null); rc=$?
check "export db no match" "1 arbiter export: $T/data: no match 'NOPE'" "$rc $err"

# ---- jsonl ----------------------------------------------------------------
$A export --db "$T/data" --match M1 --format jsonl > "$T/m1.jsonl"
check "jsonl exit" 0 $?
check "jsonl lines" 38 "$(wc -l < "$T/m1.jsonl" | tr -d ' ')"
check "jsonl = from server" "$(cat "$T/m1.jsonl")" \
      "$($A export --token "$RDR" --match M1 --format jsonl)"
hashof() { sed 's/.*"hash":"\([0-9a-f]*\)".*/\1/'; }
prevof() { sed 's/.*"prev":"\([0-9a-f]*\)".*/\1/'; }
check "jsonl first prev" "0000000000000000000000000000000000000000000000000000000000000000" \
      "$(head -1 "$T/m1.jsonl" | prevof)"
# every prev is the hash of the line before
hashof < "$T/m1.jsonl" | head -n 37 > "$T/hashes"
prevof < "$T/m1.jsonl" | tail -n 37 > "$T/prevs"
check "jsonl chains" "" "$(diff "$T/hashes" "$T/prevs")"
check "jsonl hashes" 38 "$(hashof < "$T/m1.jsonl" | grep -c "^$HEX\$")"
check "jsonl last hash = head" \
      "$($A matches --token "$RDR" --json | grep '"match":"M1"' | sed 's/.*"head":"\([0-9a-f]*\)".*/\1/')" \
      "$(tail -1 "$T/m1.jsonl" | hashof)"
check "jsonl line 1" '{"match":"M1","seq":1,"time":"T","time_ms":N,"actor":"scorer","kind":"move","body":{"v":1,"kind":"move","seq":1,"time":N,"actor":"scorer","player":"alice","verb":"place","args":["2S"]},"prev":"H","hash":"H","bytes":"B"}' \
      "$(sed -n 2p "$T/m1.jsonl" | sed -e 's/"time":"[^"]*"/"time":"T"/' -e 's/"time\(_ms\)*":[0-9][0-9]*/"time\1":N/g' \
         -e "s/\"\\(prev\\|hash\\)\":\"$HEX\"/\"\\1\":\"H\"/g" -e 's/"bytes":"[0-9a-f]*"/"bytes":"B"/')"
# A line's fields read from its bytes must say what the bytes say: an
# edited body (the chain covers only the bytes) is refused, naming the
# seq and the field (it passed until 2026-12-05).
$A replay "$T/m1.jsonl" > /dev/null 2>&1
check "jsonl replays" 0 $?
sed '2s/"args":\["2S"\]/"args":["QC"]/' "$T/m1.jsonl" > "$T/edited.jsonl"
err=$($A replay "$T/edited.jsonl" 2>&1); rc=$?
check "jsonl with an edited body: refused" 2 $rc
check "... naming the seq and the field" 1 \
    "$(printf '%s\n' "$err" | grep -c 'seq 1: "body" is not what its bytes say')"
sed '3s/"actor":"scorer"/"actor":"chief"/' "$T/m1.jsonl" > "$T/edited.jsonl"
err=$($A replay "$T/edited.jsonl" 2>&1)
check "jsonl with an edited actor: refused" 1 \
    "$(printf '%s\n' "$err" | grep -c 'seq 2: "actor" is not what its bytes say')"
# The time a reader reads names the instant of time_ms (a forged one
# passed until 2026-12-06); written in another ISO form it is the same.
sed '3s/"time":"[^"]*"/"time":"2020-01-01T00:00:00.000Z"/' "$T/m1.jsonl" \
    > "$T/edited.jsonl"
err=$($A replay "$T/edited.jsonl" 2>&1)
check "jsonl with an edited time: refused" 1 \
    "$(printf '%s\n' "$err" | grep -c 'seq 2: "time" is not what its bytes say')"
# ... and its kind; an error names the file's line (1-based, blank
# lines counted); a null time is only for a time_ms of 0.
sed '3s/"kind":"move"/"kind":"note"/' "$T/m1.jsonl" > "$T/edited.jsonl"
err=$($A replay "$T/edited.jsonl" 2>&1)
check "jsonl with an edited kind: refused, naming the line" \
    "$T/edited.jsonl:3: seq 2: \"kind\" is not what its bytes say (the bytes are what the chain covers: the line was changed)" \
    "$err"
{ echo; sed '3s/"time":"[^"]*"/"time":null/' "$T/m1.jsonl"; } \
    > "$T/edited.jsonl"
err=$($A replay "$T/edited.jsonl" 2>&1)
check "jsonl with a null time: refused" \
    "$T/edited.jsonl:4: seq 2: \"time\" is not what its bytes say (the bytes are what the chain covers: the line was changed)" \
    "$err"
# a prev that is not the hash before, though its own hash holds
sed '3{s/"prev":"0/"prev":"1/;t;s/"prev":"./"prev":"0/;}' "$T/m1.jsonl" \
    > "$T/edited.jsonl"
err=$($A replay "$T/edited.jsonl" 2>&1)
check "jsonl with an edited prev: refused" \
    "$T/edited.jsonl:3: seq 2: prev is not the hash of the event before" \
    "$err"
# CRLF line ends, a blank line among them: the same match
{ sed -n 1p "$T/m1.jsonl"; echo; sed 1d "$T/m1.jsonl"; } \
    | sed 's/$/\r/' > "$T/crlf.jsonl"
out=$($A replay "$T/crlf.jsonl" 2>&1); rc=$?
check "jsonl in CRLF with a blank line: replays" \
    "0 $($A replay "$T/m1.jsonl")" "$rc $out"
ms=$(sed -n '3s/.*"time_ms":\([0-9]*\).*/\1/p' "$T/m1.jsonl")
iso=$(date -u -d "@$((ms / 1000))" +%Y-%m-%dT%H:%M:%S)
sed "3s/\"time\":\"[^\"]*\"/\"time\":\"$iso.$(printf %03d $((ms % 1000)))+00:00\"/" \
    "$T/m1.jsonl" > "$T/edited.jsonl"
$A replay "$T/edited.jsonl" > /dev/null 2>&1
check "jsonl with the same time written otherwise: replays" 0 $?
if command -v jq > /dev/null 2>&1; then
    check "jsonl parses (jq)" 38 "$(jq -c .seq "$T/m1.jsonl" | wc -l | tr -d ' ')"
    check "jsonl note body (jq)" 'disputes, "loudly"' \
          "$($A export --db "$T/data" --match M2 --format jsonl | jq -r 'select(.kind == "note") | .body.text')"
fi

# ---- csv ------------------------------------------------------------------
$A export --db "$T/data" --match M1 --match M2 --format csv > "$T/recs.csv"
check "csv exit" 0 $?
check "csv rows" 14 "$(wc -l < "$T/recs.csv" | tr -d ' ')"
check "csv header" "match_id,edition,mode,sota,owner,cards,sequence,code,face_sum,bonus,game_points,status" \
      "$(head -1 "$T/recs.csv" | tr -d '\r')"
check "csv first" "M1,YAHchain-3e-ch34-3,YCWS-144/3,1,alice,3,2♠ 3♠ 4♠,BC-003,9,15,24,pending" \
      "$(sed -n 2p "$T/recs.csv" | tr -d '\r')"
check "csv M2" "M2,YAHchain-3e-ch34-3,YCWS-144/3,1,alice,3,4♠ 5♥ 6♦,BC-001,15,6,21,pending" \
      "$(grep '^M2,' "$T/recs.csv" | tr -d '\r')"
check "csv CRLF" 14 "$(grep -c "$(printf '\r')\$" "$T/recs.csv")"
check "csv = replay records" 12 "$($A replay --db "$T/data" --match M1 --json | grep -o '"code":"BC-003"' | wc -l | tr -d ' ')"

# ---- transcript: re-replays to the same records and digest ---------------
for m in M1 M2 M3; do
    $A export --db "$T/data" --match $m --format transcript > "$T/$m.txt"
    check "transcript $m exit" 0 $?
    check "transcript $m replay" "$($A replay --db "$T/data" --match $m --json)" \
          "$($A replay --json "$T/$m.txt")"
    check "transcript $m text" "$($A replay --db "$T/data" --match $m | sed 1d)" \
          "$($A replay "$T/$m.txt" | sed 1d)"
done
check "transcript note verbatim" 1 "$(grep -c '^4. note disputes, "loudly"$' "$T/M2.txt")"
mkdir "$T/tx"
$A export --db "$T/data" --from 0 --format transcript --out "$T/tx" 2>/dev/null
check "transcripts to dir" "M1.txt M2.txt M3.txt" "$(ls "$T/tx" | tr '\n' ' ' | sed 's/ $//')"
# One match into a directory: ID.txt in it, as for several.
mkdir "$T/tx1"
$A export --db "$T/data" --match M2 --format transcript --out "$T/tx1" \
    2>/dev/null
check "one transcript to dir" "0 $(cat "$T/M2.txt")" "$? $(cat "$T/tx1/M2.txt")"
check "transcript dir = single" "$(cat "$T/M2.txt")" "$(cat "$T/tx/M2.txt")"
err=$($A export --db "$T/data" --from 0 --format transcript 2>&1 >/dev/null); rc=$?
check "transcripts need dir" "2 arbiter export: 3 matches: --out must be a directory (one transcript each, ID.txt)" "$rc $err"

# ---- what --out replaces, and a failed write ------------------------------
# All transcripts or none: M2.txt cannot be written (a directory there).
mkdir "$T/tx2" "$T/tx2/M2.txt"
err=$($A export --db "$T/data" --from 0 --format transcript --out "$T/tx2" \
      2>&1); rc=$?
check "transcripts: one cannot be written" 2 $rc
check "... says how many were written" 1 \
    "$(printf '%s\n' "$err" | grep -c '0 of 3 transcripts written to')"
check "... and leaves none of the others" "M2.txt" "$(ls "$T/tx2")"
# A failed write (the file size limit) leaves an earlier export as it was
# and nothing beside it (until 2026-12-05 the path was emptied, then
# removed).
echo keep > "$T/keep.jsonl"
err=$( (trap '' XFSZ; ulimit -f 1
        $A export --db "$T/data" --from 0 --format jsonl --out "$T/keep.jsonl") \
      2>&1); rc=$?
check "export: a failed write" 2 $rc
check "... names the file" 1 "$(printf '%s\n' "$err" | grep -c "keep.jsonl: File too large")"
check "... the old file kept" keep "$(cat "$T/keep.jsonl")"
check "... nothing left beside it" "keep.jsonl" "$(ls "$T" | grep '^keep')"
echo keep > "$T/keep.html"
err=$( (trap '' XFSZ; ulimit -f 1
        $A report --html --db "$T/data" --match M1 --out "$T/keep.html") 2>&1)
check "report: a failed write, the old file kept" "2 keep" "$? $(cat "$T/keep.html")"
# A device is written in place and never removed: a link to /dev/full.
ln -s /dev/full "$T/full"
$A export --db "$T/data" --match M1 --format jsonl --out "$T/full" 2>/dev/null
check "export to a full device" 2 $?
check "... the link and the device are still there" 1 \
    "$([ -L "$T/full" ] && [ -c /dev/full ] && echo 1)"
# A link to a regular file: the file it names is replaced, the link kept.
echo old > "$T/target.jsonl"; ln -s target.jsonl "$T/link.jsonl"
$A export --db "$T/data" --match M1 --format jsonl --out "$T/link.jsonl" \
    2>/dev/null
check "export through a link" "1 1" \
    "$([ -L "$T/link.jsonl" ] && echo 1) $(grep -c '"match":"M1","seq":0' "$T/target.jsonl")"
# A new file gets the usual mode (0666 less the umask), not mkstemp's.
(umask 022; $A export --db "$T/data" --match M1 --format jsonl \
    --out "$T/mode.jsonl" 2>/dev/null)
check "a new file's mode" "-rw-r--r--" "$(ls -l "$T/mode.jsonl" | cut -c1-10)"
# Progress at a terminal only (ops.sh checks the other long commands).
err=$($A export --db "$T/data" --from 0 --format jsonl --out "$T/p.jsonl" \
      2>&1 >/dev/null)
check "export: no progress in a pipe" 0 \
    "$(printf '%s' "$err" | grep -c "$(printf '\r')")"
if command -v script > /dev/null 2>&1; then
    script -qec "$A export --db $T/data --from 0 --format jsonl --out \
$T/p.jsonl" /dev/null > "$T/tty" 2>&1
    check "export: progress at a terminal" yes \
        "$(grep -q 'export: matches 3/3' "$T/tty" && echo yes)"
    script -qec "$A verify $T/all.bundle --pubkey $KEY" /dev/null \
        > "$T/tty" 2>&1
    check "verify: progress at a terminal" yes \
        "$(grep -q 'verify: events [1-9][0-9]*/[1-9]' "$T/tty" && echo yes)"
    # ... and the line cleared before the verdict is printed on it (no
    # test failed when the verdict followed the progress on its line)
    check "verify: progress cleared before the verdict" 1 \
        "$(grep -c "$(printf '\033')\[Kbundle $T/all.bundle: 3 matches" \
           "$T/tty")"
    # A bundle is binary: never written to a terminal (no test failed
    # when it was).
    script -qec "$A export --db $T/data --match M1 --format bundle; \
echo rc=\$?" /dev/null > "$T/tty" 2>&1
    check "export: no bundle to a terminal" 1 \
        "$(grep -c 'arbiter export: a bundle is binary: use --out FILE or redirect stdout' "$T/tty")"
    check "... exit 2" 1 "$(grep -c '^rc=2' "$T/tty")"
else
    echo "export_verify.sh: 'script' not found: progress cases skipped"
fi
# What a command prints must reach stdout: a full disk is an error.
err=$($A replay --db "$T/data" --match M1 2>&1 > /dev/full); rc=$?
check "replay to a full stdout" "2 arbiter replay: stdout: No space left on device" "$rc $err"
$A verify "$T/m1.bundle" --pubkey "$KEY" > /dev/full 2>/dev/null
check "verify to a full stdout: not a verdict" 2 $?

# ---- time ranges ----------------------------------------------------------
today=$(date -u +%Y-%m-%d)
now=$(($(date +%s) * 1000))
ids() { grep -o '"match":"[^"]*","seq":0' | sed 's/"match":"\([^"]*\)".*/\1/' | tr '\n' ' ' | sed 's/ $//'; }
check "range today" "M1 M2 M3" "$($A export --db "$T/data" --from "$today" --to "$today" --format jsonl | ids)"
check "range ms" "M1 M2 M3" "$($A export --db "$T/data" --from $((now - 3600000)) --format jsonl | ids)"
check "range server" "M1 M2 M3" "$($A export --token "$RDR" --from "${today}T00:00:00Z" --format jsonl | ids)"
check "range offset" "M1 M2 M3" "$($A export --db "$T/data" --to "${today}T23:59:59.999+00:00" --format jsonl | ids)"
# The range is closed at both ends: a match whose last event is at --from,
# or whose open is at --to, is in it (M2's own times, in milliseconds).
ms() { sed -n 's/.*"time_ms":\([0-9]*\).*/\1/p'; }
m2=$($A export --db "$T/data" --match M2 --format jsonl)
m2first=$(printf '%s\n' "$m2" | head -1 | ms)
m2last=$(printf '%s\n' "$m2" | tail -1 | ms)
check "range ends at M2's last event" 1 \
    "$($A export --db "$T/data" --from "$m2last" --to "$m2last" \
       --format jsonl | ids | grep -c M2)"
check "range ends at M2's open" 1 \
    "$($A export --db "$T/data" --from "$m2first" --to "$m2first" \
       --format jsonl | ids | grep -c M2)"
err=$($A export --db "$T/data" --to 2000-01-01 --format jsonl 2>&1); rc=$?
check "range empty" "1 arbiter export: no match in that time range" "$rc $err"
# The last millisecond Unix time can say is a time (no test failed when
# it was refused as no number), one past it is not.
err=$($A export --db "$T/data" --from 9223372036854775807 --format jsonl \
      2>&1); rc=$?
check "range: from the last millisecond" \
    "1 arbiter export: no match in that time range" "$rc $err"
$A export --db "$T/data" --from 9223372036854775808 --format jsonl \
    > /dev/null 2>&1
check "range: one past it refused" 2 $?
err=$($A export --db "$T/data" --from 2026-02-30 --format jsonl 2>&1); rc=$?
check "range bad date" "2 arbiter export: --from wants Unix milliseconds or an ISO 8601 date (2026-03-01, 2026-03-01T10:00:00Z), not '2026-02-30'" "$rc $err"
$A export --token "$RDR" --from 0 --format bundle --out "$T/range.bundle" 2>/dev/null
check "range bundle" 0 $?
$A verify "$T/range.bundle" --pubkey "$KEY" > /dev/null
check "range bundle verifies" 0 $?

# ---- tampering: one edit each, exact messages -----------------------------
recs() {    # recs FILE: "OFFSET TYPE LENGTH SEQ" per record
    od -An -v -tu1 "$1" | awk '{ for (i = 1; i <= NF; i++) b[n++] = $i }
        END { off = 12
              while (off + 5 <= n) {
                  len = ((b[off+1] * 256 + b[off+2]) * 256 + b[off+3]) * 256 + b[off+4]
                  seq = -1
                  if (b[off] == 69) { seq = 0; for (k = 0; k < 8; k++) seq = seq * 256 + b[off+5+k] }
                  printf "%d %c %d %d\n", off, b[off], len + 5, seq
                  off += 5 + len } }'
}
rec() { recs "$1" | awk -v t="$2" -v s="$3" '$2 == t && (t != "E" || $4 == s) { print $1, $3; exit }'; }
setbyte() { # setbyte FILE OFFSET VALUE
    printf "\\$(printf %03o "$3")" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
getbyte() { od -An -tu1 -j "$2" -N1 "$1" | tr -d ' '; }
fails() {   # fails FILE [KEY]: verify's stderr without the FAILED line, and its exit
    e=$($A verify "$1" --pubkey "${2:-$KEY}" 2>&1 >/dev/null); r=$?
    printf '%s\n%s' "$r" "$e" | grep -v ': FAILED (' ; }
B=$T/m1.bundle

cp "$B" "$T/t"; set -- $(rec "$T/t" E 17)
setbyte "$T/t" $(($1 + $2 - 1)) $(( $(getbyte "$T/t" $(($1 + $2 - 1))) ^ 1 ))
check "flip byte seq 17" "1
arbiter verify: $T/t: match M1: hash mismatch at seq 17" "$(fails "$T/t")"
check "failed line" "arbiter verify: $T/t: FAILED (1 problem): do not trust this bundle" \
      "$($A verify "$T/t" --pubkey "$KEY" 2>&1 | tail -1)"

set -- $(rec "$B" E 5)
{ head -c "$1" "$B"; tail -c +$(($1 + $2 + 1)) "$B"; } > "$T/t"
check "drop seq 5" "1
arbiter verify: $T/t: match M1: seq 5 missing" "$(fails "$T/t")"

o5=$1; l5=$2; set -- $(rec "$B" E 6)
{ head -c "$o5" "$B"; dd if="$B" bs=1 skip="$1" count="$2" 2>/dev/null
  dd if="$B" bs=1 skip="$o5" count="$l5" 2>/dev/null; tail -c +$(($1 + $2 + 1)) "$B"; } > "$T/t"
check "swap seq 5 and 6" "1
arbiter verify: $T/t: match M1: seq 6 out of place (found where seq 5 belongs)" "$(fails "$T/t")"

set -- $(rec "$B" E 37)
{ head -c "$1" "$B"; tail -c +$(($1 + $2 + 1)) "$B"; } > "$T/t"
check "drop last" "1
arbiter verify: $T/t: match M1: seq 37 missing: the checkpoint counts 38 events, the bundle holds 37" "$(fails "$T/t")"

OTHER=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
check "other key" "1
arbiter verify: $B: match M1: signature does not verify with key $OTHER (the bundle names key $KEY)" \
      "$(fails "$B" "$OTHER")"

cp "$B" "$T/t"; set -- $(rec "$T/t" C)
setbyte "$T/t" $(($1 + 12)) $(( $(getbyte "$T/t" $(($1 + 12))) + 1 ))
check "checkpoint count" "1
arbiter verify: $T/t: match M1: signature does not verify with key $KEY
arbiter verify: $T/t: match M1: seq 38 missing: the checkpoint counts 39 events, the bundle holds 38" \
      "$(fails "$T/t")"
check "checkpoint count: both problems counted" \
      "arbiter verify: $T/t: FAILED (2 problems): do not trust this bundle" \
      "$($A verify "$T/t" --pubkey "$KEY" 2>&1 | tail -1)"

cp "$B" "$T/t"; set -- $(rec "$T/t" C)
setbyte "$T/t" $(($1 + 5 + 40)) $(( $(getbyte "$T/t" $(($1 + 5 + 40))) ^ 1 ))
check "named key flipped" "1" "$(fails "$T/t" | head -1)"
check "named key message" 1 "$(fails "$T/t" | grep -c "match M1: the checkpoint names signer key .*, but the signature is by key $KEY\$")"

# The exporting engine's name is covered by nothing: verify shows it only
# as the bundle's claim, apart from what it verified.
check "exporter claim" "  unverified: the bundle says it was exported by arbiter 0.1.0 (no signature covers this)" \
      "$($A verify "$B" --pubkey "$KEY" | grep 'exported by')"
cp "$B" "$T/t"; set -- $(rec "$T/t" M)
# In the match record the recording engine comes first, then the exporter.
x=$(grep -boa 'arbiter 0\.1\.0' "$T/t" | cut -d: -f1 | awk -v a="$1" -v n="$2" '$1 > a && $1 < a + n' | sed -n 2p)
setbyte "$T/t" $((x + 12)) 27   # the last '0' of its "0.1.0" becomes ESC
check "exporter flipped, claim escaped" "  unverified: the bundle says it was exported by arbiter 0.1.\\x1b (no signature covers this)" \
      "$($A verify "$T/t" --pubkey "$KEY" | grep 'exported by')"
check "exporter flipped, verified the same" "$($A verify "$B" --pubkey "$KEY" | grep -v 'exported by' | sed 1d)" \
      "$($A verify "$T/t" --pubkey "$KEY" | grep -v 'exported by' | sed 1d)"
# A C1 control (U+009B, a CSI to many terminals) is escaped too; a byte
# that is not UTF-8 is refused (until 2026-12-05 both reached the terminal).
setbyte "$T/t" $((x + 11)) 194; setbyte "$T/t" $((x + 12)) 155
check "exporter C1 escaped" "  unverified: the bundle says it was exported by arbiter 0.1\\xc2\\x9b (no signature covers this)" \
      "$($A verify "$T/t" --pubkey "$KEY" | grep 'exported by')"
# A backslash of the name is escaped too, so that no escape is forged
# (no test failed when it was shown as it is).
setbyte "$T/t" $((x + 11)) 92; setbyte "$T/t" $((x + 12)) 48
check "exporter backslash escaped" "  unverified: the bundle says it was exported by arbiter 0.1\\x5c0 (no signature covers this)" \
      "$($A verify "$T/t" --pubkey "$KEY" | grep 'exported by')"
setbyte "$T/t" $((x + 11)) 155
check "exporter not UTF-8" "1" "$(fails "$T/t" | head -1)"
check "exporter not UTF-8 message" 1 "$(fails "$T/t" | grep -c 'the exporter is not UTF-8')"
# What a problem quotes from the file is shown escaped: a match id of
# the header with an ESC in it (no key needed to write one) reached the
# terminal as it was.
cp "$B" "$T/t"; set -- $(rec "$T/t" M)
setbyte "$T/t" $(($1 + 7)) 27       # "M1" becomes "M<ESC>"
check "a control character in a problem, escaped" "1
arbiter verify: $T/t: match M\\x1b: signature does not verify with key $KEY
arbiter verify: $T/t: match M\\x1b: rule profile: match id 'M\\x1b' differs from the open event's 'M1'" \
      "$(fails "$T/t")"
check "... no ESC on stderr" 0 \
    "$($A verify "$T/t" --pubkey "$KEY" 2>&1 | grep -c "$(printf '\033')")"

set -- $(rec "$B" E 9)
head -c $(($1 + 30)) "$B" > "$T/t"
check "truncated" "1
arbiter verify: $T/t: truncated at byte $(($1 + 30)) (in seq 9)" "$(fails "$T/t")"
head -c $(($1 + $2)) "$B" > "$T/t"
check "truncated after" "1
arbiter verify: $T/t: truncated at byte $(($1 + $2)) (after seq 9)" "$(fails "$T/t")"
printf 'not a bundle\n' > "$T/t"
check "not a bundle" "1
arbiter verify: $T/t: not an arbiter bundle (the file does not start with the bundle magic)" "$(fails "$T/t")"

# ---- only the operator signs from --db ------------------------------------
chmod 644 "$T/data/signing.key"
err=$($A export --db "$T/data" --match M1 --format bundle --out "$T/x.bundle" 2>&1); rc=$?
check "open key refused" "2
arbiter export: $T/data/signing.key: permissions 0644 are too open: only its owner may read the signing key (chmod 600)" \
      "$(printf '%s\n%s' "$rc" "$err" | head -2)"
check "no bundle written" no "$([ -e "$T/x.bundle" ] && echo yes || echo no)"
chmod 600 "$T/data/signing.key"
check "key checks both files" "$KEY" "$($A key --db "$T/data")"
# A signing.pub of another key beside the secret: exit 1, naming the
# file, and no key printed (no test failed when it printed the public
# file's key and exited 0).
cp "$T/data/signing.pub" "$T/pub.keep"
echo "$OTHER" > "$T/data/signing.pub"
out=$($A key --db "$T/data" 2>"$T/key.err"); rc=$?
check "key: the two files disagree" "1 " "$rc $out"
check "... naming the public file" \
    "arbiter key: $T/data/signing.pub: does not hold the public half of signing.key" \
    "$(cat "$T/key.err")"
cp "$T/pub.keep" "$T/data/signing.pub"

# ---- usage and I/O --------------------------------------------------------
$A verify "$T/none.bundle" --pubkey "$KEY" 2>/dev/null; check "verify no file" 2 $?
$A verify "$B" 2>/dev/null; check "verify no key" 2 $?
err=$($A verify "$B" "$B" --pubkey "$KEY" 2>&1); rc=$?
check "verify two bundles" "2 arbiter verify: one bundle at a time" "$rc $err"
err=$($A verify "$B" --pubkey xyz 2>&1); rc=$?
check "verify bad key" "2 arbiter verify: --pubkey: 'xyz' is neither 64 hex digits nor a readable file" "$rc $err"
$A export --db "$T/data" --match M1 2>/dev/null; check "export no format" 2 $?
$A export --db "$T/data" --match M1 --format xml 2>/dev/null; check "export bad format" 2 $?
$A export --db "$T/data" --format jsonl 2>/dev/null; check "export no match" 2 $?
$A export --db "$T/data" --match M1 --from 0 --format jsonl 2>/dev/null; check "export match and range" 2 $?
$A export --db "$T/nowhere" --match M1 --format jsonl 2>/dev/null; check "export no store" 2 $?
for c in export verify key; do
    $A $c --help | grep -q "usage: arbiter $c"; check "$c help" 0 $?
    $A --help | grep -q "^  $c "; check "$c listed" 0 $?
done

# ---- the daemon restarts with the same key -------------------------------
kill "$D"; wait "$D" 2>/dev/null; D=
bin/arbiterd --data "$T/data" --listen "unix:$T/s.sock" --log-level info \
    2> "$T/daemon2.log" &
D=$!
i=0
while ! grep -q ready "$T/daemon2.log" && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
check "key kept" 1 "$(grep -c "loaded checkpoint signing key $KEY" "$T/daemon2.log")"
$A export --token "$RDR" --match M1 --format bundle --out "$T/m1r.bundle" 2>/dev/null
cmp -s "$T/m1.bundle" "$T/m1r.bundle"; check "same bundle after restart" 0 $?

# ---- --out - is stdout --------------------------------------------------------
# (until 2026-12-06 it wrote a file named "-")
check "--out - is stdout" "$($A export --db "$T/data" --match M1 --format jsonl)" \
    "$(cd "$T" && "$OLDPWD/$A" export --db "$T/data" --match M1 --format jsonl --out -)"
check "... no file named -" 0 "$(ls "$T" | grep -c '^-$')"

# ---- a dealt match's transcript loads again ----------------------------------
# Its header holds only the deal's commitment; its close reveals the deal,
# with which load opens the match (until 2026-12-06 the header went
# without its deal: refused, or a Tsukurutenten match opened undealt).
$A open --token "$ARB" --match D1 --game chains --teams long,short \
    --players ann:long,bob:short --option deck=36 --option scoring=square \
    --deal seed:club-night-7 > /dev/null 2> "$T/d1-open.err"
# A short seed can be found by trying it against the public commitment:
# said (until 2026-12-06 nothing warned).
check "dealt: a short seed is warned of" 1 \
    "$(grep -c '^arbiter open: warning: a seed of 12 bytes may be guessed' "$T/d1-open.err")"
# seed:random: 32 random bytes, revealed only by the close (64 hex)
out=$($A open --token "$ARB" --match D2 --game chains --teams long,short \
    --players ann:long,bob:short --option deck=36 --option scoring=square \
    --deal seed:random 2>&1); rc=$?
check "dealt: seed:random opens, without a warning" "0 0" \
    "$rc $(printf '%s\n' "$out" | grep -c warning)"
$A close --token "$ARB" --match D2 > /dev/null
check "... its close reveals 32 random bytes" 1 \
    "$($A export --token "$ARB" --match D2 --format transcript |
       grep -cE '^1\. close seed [0-9a-f]{64}( |$)')"
$A move --token "$ARB" --match D1 place ann 7♣ r0c0 > /dev/null
# Running and dealt: the log holds only the deal's commitment, so the
# bundle export makes fails its own verification and is not written.
err=$($A export --token "$RDR" --match D1 --format bundle \
      --out "$T/d1run.bundle" 2>&1); rc=$?
check "dealt running: no bundle" "1 arbiter export: the bundle does not \
verify; not written:" "$rc $(printf '%s\n' "$err" | head -1)"
check "... saying why" 1 "$(printf '%s\n' "$err" |
    grep -c '^  match D1: the match is dealt and still running: ')"
check "... nothing written" "" "$(ls "$T/d1run.bundle" 2> /dev/null)"
$A export --token "$ARB" --match D1 --format transcript > "$T/d1-run.txt"
$A close --token "$ARB" --match D1 > /dev/null
$A export --token "$ARB" --match D1 --format transcript > "$T/d1.txt"
check "dealt: the export holds the commitment" 1 "$(grep -c '^deal: commit ' "$T/d1.txt")"
sed 's/^match: D1$/match: D1b/' "$T/d1.txt" > "$T/d1b.txt"
out=$($A load --token "$ARB" "$T/d1b.txt" 2>&1); rc=$?
check "dealt: load of a closed one" "0 loaded D1b: events 0..2" "$rc $out"
check "dealt: the same play, the same commitment" \
    "$(sed -n 's/^deal: //p' "$T/d1.txt")" \
    "$($A export --token "$ARB" --match D1b --format transcript | sed -n 's/^deal: //p')"
check "dealt: the same records" \
    "$($A state --token "$ARB" --match D1 --json | sed 's/"digest":"[0-9a-f]*"//')" \
    "$($A state --token "$ARB" --match D1b --json | sed 's/"digest":"[0-9a-f]*"//')"
sed 's/^match: D1$/match: D1c/' "$T/d1-run.txt" > "$T/d1c.txt"
err=$($A load --token "$ARB" "$T/d1c.txt" 2>&1); rc=$?
check "dealt: a running one's export cannot open a match" 2 $rc
check "... saying why" 1 "$(printf '%s\n' "$err" | grep -c 'the deal is only its commitment (a dealt match still running when it was exported)')"
check "... nothing opened" 1 \
    "$($A state --token "$ARB" --match D1c 2>&1 | grep -c 'not_found')"
# A close typed after it that reveals nothing opens no deal either: only
# a close with the reveal's two words is taken for it (no test failed
# when any close was, and its missing words read).
{ sed 's/^match: D1$/match: D1d/' "$T/d1-run.txt"
  echo "2. close -- typed up after the export"; } > "$T/d1d.txt"
err=$($A load --token "$ARB" "$T/d1d.txt" 2>&1); rc=$?
check "dealt: a close revealing nothing cannot open a match" "2 1" \
    "$rc $(printf '%s\n' "$err" | grep -c 'the deal is only its commitment')"
check "... nothing opened" 1 \
    "$($A state --token "$ARB" --match D1d 2>&1 | grep -c 'not_found')"
# One transcript a load: a second word is refused, nothing sent (no test
# failed when it was ignored and the first file loaded).
sed 's/^match: D1$/match: D1e/' "$T/d1.txt" > "$T/d1e.txt"
err=$($A load --token "$ARB" "$T/d1e.txt" "$T/d1b.txt" 2>&1); rc=$?
check "load: a second file refused" "2 1" "$rc $(printf '%s\n' "$err" |
    grep -c "^arbiter load: unexpected '$T/d1b.txt'$")"
check "... nothing opened" 1 \
    "$($A state --token "$ARB" --match D1e 2>&1 | grep -c 'not_found')"

# A Chắn match dealt by `arbiter open --deal order:` (a card a word, the
# five comma groups split): its close reveals 100 words, and its
# transcript replays and loads again (until 2026-12-06 a line held 64
# words: "line 9: more than 64 words").
ord=$(sed -n 's/^deal: order //p' tests/data/chan-declined-win.txt)
$A open --token "$ARB" --match C1 --game chan --players an,binh,chi,dung \
    --deal "order:$ord" > /dev/null 2>&1
$A move --token "$ARB" --match C1 discard an 5V > /dev/null 2>&1
$A close --token "$ARB" --match C1 --reason "end of the session" \
    > /dev/null 2>&1
$A export --token "$ARB" --match C1 --format transcript > "$T/c1.txt"
check "dealt by order: the close reveals a card a word" 1 \
    "$(grep -c '^2\. close order \([^ ]* \)\{100\}-- end of the session$' "$T/c1.txt")"
check "dealt by order: its transcript replays, to the recorder's digest" \
    "$($A state --token "$ARB" --match C1 | grep '^digest')" \
    "$($A replay "$T/c1.txt" 2>&1 | grep '^digest')"
sed 's/^match: C1$/match: C1b/' "$T/c1.txt" > "$T/c1b.txt"
out=$($A load --token "$ARB" "$T/c1b.txt" 2>&1); rc=$?
check "dealt by order: ... and loads again" "0 loaded C1b: events 0..2" \
    "$rc $out"

# ---- a range the server lists in pages ----------------------------------------
# The matches op answers in pages of at most 48 KiB (about 270 matches
# of 64-byte ids); a range over --server asks for each page after the
# last (no test failed when only the first page was exported).
i=0
while [ $i -lt 330 ]; do
    $A open --token "$ARB" --match "P$(printf '%063d' $i)" --game yahchain \
        --players alice,bob --option mode=3 > /dev/null || break
    i=$((i + 1))
done
n=$($A export --db "$T/data" --from 0 --format jsonl | ids | wc -w)
check "pages: every match opened" 1 "$([ "$n" -gt 330 ] && echo 1)"
check "pages: the server's range = the store's" "$n" \
    "$($A export --token "$RDR" --from 0 --format jsonl | ids | wc -w)"

echo "export_verify.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
