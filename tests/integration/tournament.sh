#!/bin/sh
# A two-round tournament of 8 tables from a pairing list, through the real
# recorder: rounds open their matches in one transaction (and a rerun
# records nothing twice; a rerun with another pairing, or one refused
# when a round begins, is refused and changes nothing; a round recorded
# the old way, act then opens, is finished),
# the board names each table's status, the standings (Game Points and
# match points) equal a sum computed here from each match's own recorded
# totals, also in a team game (SKIM-10 Chains, players credited with their
# side's total), the results file lists every
# closed match, and the tournament bundle verifies offline as a whole and
# fails when a match inside it is altered.
. tests/common.sh
start_recorder

P="a b c d e f g h i j k l m n o p"
{
    echo "round,table,player1,player2"
    set -- $P; t=1
    while [ $# -gt 0 ]; do echo "1,$t,$1,$2"; shift 2; t=$((t + 1)); done
    # round 2: the first player of each table meets the next table's second
    echo "2,1,a,d"; echo "2,2,c,f"; echo "2,3,e,h"; echo "2,4,g,j"
    echo "2,5,i,l"; echo "2,6,k,n"; echo "2,7,m,p"; echo "2,8,o,b"
} > "$T/pairings.csv"

$A tournament create --tournament Open --game yahchain --option mode=3 \
    > /dev/null 2>&1
check "create" 0 $?
$A tournament round --tournament Open --pairings "$T/pairings.csv" \
    > "$T/r1.out" 2>&1
check "round 1" 0 $?
check "round 1 opens 8 matches" 8 "$(grep -c 'opened Open-R1-T' "$T/r1.out")"
check "... none of them said to be a duplicate" 0 \
    "$(grep -c 'duplicate' "$T/r1.out")"
$A tournament round --tournament Open --pairings "$T/pairings.csv" \
    > "$T/r1b.out" 2>&1
# a note is no move: its table has not started, read live or not
# (until 2026-12-06 the daemon's copy of a live table counted it)
$A note --match Open-R1-T2 "players seated" > /dev/null
check "board: 8 tables not started" 8 \
    "$($A tournament board --tournament Open | grep -o '"status":"not_started"' | grep -c .)"
check "round 1 again: nothing twice" 8 "$(grep -c 'duplicate' "$T/r1b.out")"
check "... exit 0" 0 "$(grep -c 'arbiter tournament:' "$T/r1b.out")"
# Run again with another pairing for the round under way: the round
# stands as recorded, and the director is told so, with what to do
# (until 2026-12-05 the file was ignored and the run said it worked).
rnd() {     # rnd NAME: round of Open from $T/NAME.csv, into $T/NAME.out
    $A tournament round --tournament Open --pairings "$T/$1.csv" \
        > "$T/$1.out" 2>&1
    echo $?
}
sed 's/^1,1,a,b$/1,1,a,c/; s/^1,2,c,d$/1,2,b,d/' "$T/pairings.csv" \
    > "$T/fix.csv"
check "another pairing for round 1: refused" 1 "$(rnd fix)"
check "... naming the table, as recorded and as in the file" 1 \
    "$(grep -c '^arbiter tournament: round 1 is already recorded with other tables: table 1 is recorded as a,b, the file says a,c$' "$T/fix.out")"
check "... and what to do" 1 \
    "$(grep -c 'not changed: run again with its tables as recorded (arbiter tournament show --tournament Open), or end it (arbiter tournament end --tournament Open --round 1)' "$T/fix.out")"
check "... nothing opened" 0 "$(grep -c 'opened' "$T/fix.out")"
check "... the round as recorded" "a b c d" \
    "$($A tournament show --tournament Open | awk '$1 == "table" && $2 <= 2 { print $4, $5 }' | tr '\n' ' ' | sed 's/ $//')"
sed '/^1,8,/d' "$T/pairings.csv" > "$T/less.csv"
check "a table left out: refused" 1 "$(rnd less)"
check "... named" 1 \
    "$(grep -c 'table 8 (o,p) is recorded, the file lacks it$' "$T/less.out")"
sed 's/^1,2,c,d$/1,9,c,d/' "$T/pairings.csv" > "$T/label.csv"
check "a table renamed: refused" 1 "$(rnd label)"
check "... named" 1 \
    "$(grep -c 'table 2 (c,d) is recorded where the file has table 9 (c,d)$' "$T/label.out")"
# a label the recorded one begins (10 for 1) is another label too
sed 's/^1,1,a,b$/1,10,a,b/' "$T/pairings.csv" > "$T/label10.csv"
check "a table renamed 1 to 10: refused" 1 "$(rnd label10)"
check "... named" 1 \
    "$(grep -c 'table 1 (a,b) is recorded where the file has table 10 (a,b)$' "$T/label10.out")"
{ cat "$T/pairings.csv"; echo "1,9,q,r"; } > "$T/more.csv"
check "a table more: refused" 1 "$(rnd more)"
check "... with the act that adds it" "1 1" \
    "$(grep -c "the file's table 9 (q,r) is not recorded\$" "$T/more.out") \
$(grep -c '`arbiter move --match Open tables director 1 9:Open-R1-T9:q,r`' "$T/more.out")"
# Files refused on a fresh round are refused so on a retry too: a player
# at two tables, a table twice, by the reader naming both lines (until
# 2026-12-06 by the round's rules, which know no lines).
sed 's/^1,2,c,d$/1,2,a,d/' "$T/pairings.csv" > "$T/dupp.csv"
check "a player at two tables: refused" 2 "$(rnd dupp)"
check "... naming both lines" 1 \
    "$(grep -c 'dupp.csv: line 3: a plays at table 1 (line 2) and at table 2 of round 1$' "$T/dupp.out")"
sed 's/^1,2,c,d$/1,1,c,d/' "$T/pairings.csv" > "$T/dupt.csv"
check "a table twice: refused" 2 "$(rnd dupt)"
check "... naming both lines" 1 \
    "$(grep -c 'dupt.csv: line 3: table 1 of round 1 again (line 2)$' "$T/dupt.out")"
awk 'BEGIN { for (i = 1; i <= 1099; i++) print "1," i ",x" i ",y" i }' \
    > "$T/huge.csv"
check "1,099 tables: refused" 2 "$(rnd huge)"
check "... as when the round begins" 1 \
    "$(grep -c '^arbiter tournament: round 1: more than 1024 tables$' "$T/huge.out")"
awk 'BEGIN { for (i = 1; i <= 1025; i++) print "1," i ",x" i ",y" i }' \
    > "$T/huge.csv"
check "1,025 tables, one more than a round holds: refused so" "2 1" \
    "$(rnd huge) $(grep -c '^arbiter tournament: round 1: more than 1024 tables$' "$T/huge.out")"
check "the same file again: still a retry" "0 8" \
    "$(rnd pairings) $(grep -c '(duplicate)$' "$T/pairings.out")"
# a scorer records the tables' moves, not the director's acts
scorer=$(awk '$4 == "scorer" { print $3; exit }' "$T/data/tokens")
$A move --token "$scorer" --match Open end director 1 > "$T/sc.out" 2>&1
check "a scorer cannot end a round" 1 $?
check "... forbidden" 1 "$(grep -c 'forbidden' "$T/sc.out")"

# Plays table $1 of round $2: p1 wins Sota 1 (21); on odd tables p2 then
# takes Sota 2 (33).
play() {
    m=Open-R$2-T$1
    set -- $(awk -F, -v r="$2" -v t="$1" '$1 == r && $2 == t { print $3, $4 }' \
        "$T/pairings.csv") "$1"
    $A move --match $m place "$1" 4S > /dev/null &&
    $A move --match $m place "$2" 5H > /dev/null &&
    $A move --match $m place "$1" 6D > /dev/null || return 1
    if [ $(($3 % 2)) -eq 1 ]; then
        $A move --match $m place "$2" 7S > /dev/null &&
        $A move --match $m place "$1" 7H > /dev/null &&
        $A move --match $m place "$2" 7D > /dev/null || return 1
    fi
}
# Judging without recording: the verdict and the Sota it would complete,
# and the match is where it was.
m=Open-R1-T1
$A move --match $m place a 4S > /dev/null
$A move --match $m place b 5H > /dev/null
out=$($A move --judge --match $m place a 6D)
check "judge: legal" 0 $?
check "judge: the category and points" 1 \
    "$(echo "$out" | grep -c '"code":"BC-001".*"game_points":21')"
out=$($A move --judge --match $m place b 6D)
check "judge: refused" 1 $?
check "judge: names the rule" 1 "$(echo "$out" | grep -c '"rule":"§34.11.2"')"
check "judge records nothing" 1 \
    "$($A state --match $m | grep -c 'events 2$')"
# `show` counts a table's events as `state` and `matches` do (its last
# seq; until 2026-12-05 it printed one more, counting the open).
check "show: a table's events as state's" 1 \
    "$($A tournament show --tournament Open \
       | grep -c " $m .* events 2  playing$")"
$A rule --match $m void 2 --reason "test reset" > /dev/null
$A rule --match $m void 1 --reason "test reset" > /dev/null
for t in 1 2 3 4 5 6 7 8; do play $t 1 || echo "play R1-T$t failed"; done
check "board: 8 tables playing, each with its seq and last move time" 8 \
    "$($A tournament board --tournament Open | grep -o '"status":"playing","seq":[1-9][0-9]*,"last_move_ms":[1-9][0-9]*' | grep -c .)"
for t in 1 2 3 4 5 6; do $A close --match Open-R1-T$t > /dev/null; done
# table 7 awaits its close with an undo request; table 8 is disputed
$A note --match Open-R1-T7 "undo requested: seq 6 (place n 7D)" > /dev/null
$A close --match Open-R1-T8 > /dev/null
printf 'sota,owner,game_points\n1,o,99\n\nplayer,total\no,99\np,0\n' \
    > "$T/claim.csv"
$A claim --match Open-R1-T8 --by p "$T/claim.csv" > /dev/null 2>&1
$A tournament board --tournament Open > "$T/board.json" 2>&1
check "board" 0 $?
check "board order: disputed, undo, playing..." \
    "disputed undo_requested closed" \
    "$(grep -o '"status":"[a-z_]*"' "$T/board.json" | head -3 | cut -d'"' -f4 \
       | tr '\n' ' ' | sed 's/ $//')"
check "board: the undo names seq 6" 1 "$(grep -c '"undo_seq":6' "$T/board.json")"
check "board: the server's op = the tool's own from the data directory" \
    "$(cat "$T/board.json")" "$($A tournament board --tournament Open --db "$T/data")"
# `show` says what `board` says of each table (until 2026-12-05 it said
# "open" of a table awaiting its close, whatever held it).
$A tournament show --tournament Open > "$T/show.out" 2>&1
check "show: closed, undo with its seq, disputed" \
    "1 closed|7 undo_requested (seq 6)|8 disputed" \
    "$(sed -n 's/^  table \([178]\)  .*  events [0-9]*  \(.*\)$/\1 \2/p' \
       "$T/show.out" | head -3 | tr '\n' '|' | sed 's/|$//')"

$A rule --match Open-R1-T7 void 6 --reason "undo at the table" > /dev/null
# the void answers the request, on the daemon's board as from the data
# directory (until 2026-12-06 the daemon's copy still showed it open)
check "board: a voided move's request answered" 0 \
    "$($A tournament board --tournament Open | grep -c '"undo_seq":6')"
check "board after the void: the server's = the tool's" \
    "$($A tournament board --tournament Open --db "$T/data")" \
    "$($A tournament board --tournament Open)"
$A close --match Open-R1-T7 > /dev/null
$A tournament end --tournament Open --round 1 > /dev/null 2>&1
check "end round 1" 0 $?
$A tournament round --tournament Open --pairings "$T/pairings.csv" \
    > "$T/r2.out" 2>&1
check "round 2 opens 8 matches" 8 "$(grep -c 'opened Open-R2-T' "$T/r2.out")"
check "show: round 1 ended, round 2 not" "1 1" \
    "$($A tournament show --tournament Open | grep -c '^round 1 (ended)$') \
$($A tournament show --tournament Open | grep -c '^round 2$')"
for t in 1 2 3 4 5 6 7 8; do
    play $t 2 || echo "play R2-T$t failed"
    $A close --match Open-R2-T$t > /dev/null
done
$A tournament end --tournament Open --round 2 > /dev/null 2>&1

# The standings against a sum over each match's recorded totals.
for r in 1 2; do for t in 1 2 3 4 5 6 7 8; do
    $A state --match Open-R$r-T$t | awk '/^totals:/ { on = 1; next }
        on && /^  / { print $1, $2 } /^digest/ { on = 0 }'
done; done | awk '{ s[$1] += $2 } END { for (p in s) print p, s[p] }' \
    | sort > "$T/want"
$A tournament standings --tournament Open > "$T/st.csv" 2>&1
check "standings" 0 $?
awk -F, 'NR > 1 { print $2, $4 }' "$T/st.csv" | sort > "$T/got"
check "standings = the sum over the recorded matches" "$(cat "$T/want")" \
    "$(cat "$T/got")"
# ... and the match points: win 2, draw 1, loss 0 from the same totals
for r in 1 2; do for t in 1 2 3 4 5 6 7 8; do
    $A state --match Open-R$r-T$t | awk -v m="R$r-T$t" '/^totals:/ { on = 1
        next } on && /^  / { print m, $1, $2 } /^digest/ { on = 0 }'
done; done | awk '{ m[NR] = $1; p[NR] = $2; v[NR] = $3
        if (!($1 in max) || $3 > max[$1]) max[$1] = $3 }
    END { for (i = 1; i <= NR; i++) if (v[i] == max[m[i]]) n[m[i]]++
          for (i = 1; i <= NR; i++)
              mp[p[i]] += v[i] < max[m[i]] ? 0 : n[m[i]] > 1 ? 1 : 2
          for (q in mp) print q, mp[q] }' | sort > "$T/want_mp"
awk -F, 'NR > 1 { print $2, $5 }' "$T/st.csv" | sort > "$T/got_mp"
check "standings: match points = the results of the recorded totals" \
    "$(cat "$T/want_mp")" "$(cat "$T/got_mp")"
check "match points: 2 for each of the 16 matches (one winner each)" 32 \
    "$(awk '{ s += $2 } END { print s }' "$T/want_mp")"
check "standings: 16 players" 16 "$(wc -l < "$T/got" | tr -d ' ')"
check "standings sorted by points" \
    "$(awk -F, 'NR > 1 { print $3 }' "$T/st.csv" | sort -rn | tr '\n' ' ')" \
    "$(awk -F, 'NR > 1 { print $3 }' "$T/st.csv" | tr '\n' ' ')"
check "a line names its matches and seqs" 1 \
    "$(grep -c '^[0-9]*,a,.*Open-R1-T1@[0-9]*;Open-R2-T1@[0-9]*$' "$T/st.csv")"
$A tournament standings --tournament Open --db "$T/data" > "$T/st2.csv" 2>&1
check "standings from the data directory are the same" \
    "$(cat "$T/st.csv")" "$(cat "$T/st2.csv")"
check "standings JSON: server = data directory" \
    "$($A tournament standings --tournament Open --json)" \
    "$($A tournament standings --tournament Open --json --db "$T/data")"
check "standings of a match that is no tournament refused" 1 \
    "$($A tournament standings --tournament Open-R1-T1 > /dev/null 2>&1; echo $?)"
# not found: 1, as the usage says, from the data directory too
out=$($A tournament standings --tournament Nope --db "$T/data" 2>&1)
check "standings of no tournament (--db): not found" \
    "1 arbiter tournament: $T/data: no match 'Nope'" "$? $out"
# The commands that record take no --db: refused as usage, nothing
# recorded (until 2026-12-07 it was dropped, and the round recorded on
# the recorder)
for sub in create round end forfeit withdraw; do
    out=$($A tournament $sub --tournament Open --db "$T/data" 2>&1)
    check "$sub --db: refused as usage" "2 arbiter tournament: $sub \
records through the recorder (--server) and reads no data directory: --db \
is for show, standings and board" "$? $(printf '%s\n' "$out" | head -n 1)"
done
# ... and a data directory with no store: an I/O error, 2 (until
# 2026-12-07 1, as not found)
out=$($A tournament standings --tournament Open --db "$T/nowhere" 2>&1)
check "standings from no store (--db): an I/O error" \
    "2 arbiter tournament: $T/nowhere: no store there" "$? $out"

$A export --tournament Open --format results --out "$T/results.csv" \
    2> "$T/results.err"
check "export --tournament results" 0 $?
# Table 8 is disputed: a rating body must not rate it yet, nor miss it
# (until 2026-12-06 its claimed-against result went out as any other).
check "results: 2 lines a settled match, table 8 withheld" 30 \
    "$(grep -c '^Open,' "$T/results.csv")"
check "... named in a comment after them" 1 \
    "$(tail -1 "$T/results.csv" | grep -c '^# withheld: round 1, table 8, Open-R1-T8 at seq [0-9]*: disputed: ')"
check "... and on stderr" 1 \
    "$(grep -c '^arbiter export: table 8 of round 1 (Open-R1-T8) is withheld from the results: disputed' "$T/results.err")"
# A claim that agrees with the record settles it: the table is in.
$A state --match Open-R1-T8 --json > "$T/agree.json"
$A claim --match Open-R1-T8 --by p "$T/agree.json" > /dev/null 2>&1
$A export --tournament Open --format results --out "$T/results.csv" \
    2> "$T/results.err"
check "settled: 2 lines a closed match" 32 \
    "$(grep -c '^Open,' "$T/results.csv")"
check "... nothing withheld" 0 "$(grep -c withheld "$T/results.csv" "$T/results.err" | awk -F: '{ s += $2 } END { print s }')"
check "results: the header and the lines" 34 "$(wc -l < "$T/results.csv" | tr -d ' ')"
# each line names the head of its match's chain, as the bundle proves it
# (no test failed when the tool left every head unknown, '-' each)
check "results: every line names its match's head" 32 \
    "$(grep -c '^Open,[0-9]*,[0-9]*,Open-R[0-9]*-T[0-9]*,[0-9]*,[0-9a-f]\{64\},' "$T/results.csv")"
# A claim of one record more than was recorded disputes the result too
# (until 2026-12-06 the board said closed and the file rated it); settled
# again by the agreeing claim.
sed 's/"records":\[/"records":[{"sota":12,"owner":"o","game_points":6},/' \
    "$T/agree.json" > "$T/extra.json"
$A claim --match Open-R1-T8 --by p "$T/extra.json" > /dev/null 2>&1
check "a claimed record that is not recorded: disputed, withheld" "1 1" \
    "$($A tournament show --tournament Open | grep -c '^  table 8  Open-R1-T8 .*  disputed$') $($A export --tournament Open --format results 2>/dev/null | grep -c '^# withheld: round 1, table 8, ')"
$A claim --match Open-R1-T8 --by p "$T/agree.json" > /dev/null 2>&1

$A export --tournament Open --format bundle --out "$T/open.bundle" \
    > /dev/null 2>&1
check "export tournament bundle" 0 $?
$A verify "$T/open.bundle" --pubkey "$T/data/signing.pub" > "$T/v.out" 2>&1
check "tournament bundle verifies" 0 $?
check "it holds the tournament and 16 matches" 1 \
    "$(grep -c 'verified: 17 matches' "$T/v.out")"
# flip one byte inside a table's match (a card of Open-R2-T5)
off=$(grep -abo '6D' "$T/open.bundle" | sed -n 13p | cut -d: -f1)
cp "$T/open.bundle" "$T/bad.bundle"
printf '7' | dd of="$T/bad.bundle" bs=1 seek="$off" conv=notrunc 2>/dev/null
$A verify "$T/bad.bundle" --pubkey "$T/data/signing.pub" > "$T/bad.out" 2>&1
check "an altered match fails the bundle" 1 $?
check "the failure names the match" 1 "$(grep -c 'FAILED' "$T/bad.out")"
# a bundle of the tournament without its other matches does not verify
# (export runs the verification before writing)
$A export --match Open --match Open-R1-T1 --format bundle \
    --out "$T/part.bundle" > "$T/part.out" 2>&1
check "a tournament bundle missing its matches fails" 1 $?
check "... naming a missing table" 1 \
    "$(grep -c 'table 2 of round 1: match Open-R1-T2 is not in the bundle' "$T/part.out")"

# A round recorded the way earlier versions did -- the director's act,
# then each table's open, interrupted before them: `tournament round`
# opens what is missing from the round as recorded.
$A tournament create --tournament Old --game yahchain --option mode=3 \
    > /dev/null 2>&1
$A move --match Old --cid round-1 round director 1 1:Old-R1-T1:a,b \
    2:Old-R1-T2:c,d > /dev/null
printf '1,1,a,b\n1,2,c,d\n' > "$T/old.csv"
$A tournament round --tournament Old --pairings "$T/old.csv" \
    > "$T/old.out" 2>&1
check "an old round: its tables opened" 2 \
    "$(grep -c '^table [12]: opened Old-R1-T[12] seq 0 hash [0-9a-f]*$' "$T/old.out")"

# A round of 70 tables: one act holds 31, so the round is its `round`
# act and two `tables` acts, with the 70 opens, in one transaction
# (until 2026-12-05 a round held at most 31 tables).
{
    echo "round,table,player1,player2"
    i=1
    while [ $i -le 70 ]; do echo "1,$i,p$i,q$i"; i=$((i + 1)); done
} > "$T/big.csv"
$A tournament create --tournament Big --game yahchain --option mode=3 \
    > /dev/null 2>&1
$A tournament round --tournament Big --pairings "$T/big.csv" \
    > "$T/big.out" 2>&1
check "a round of 70 tables" 0 $?
check "... opens 70 matches" 70 "$(grep -c 'opened Big-R1-T' "$T/big.out")"
check "... recorded as 3 acts" "round tables tables" \
    "$($A events --match Big --from 1 | awk '{ printf "%s%s", s, $4; s=" " }')"
check "... on the board" 70 \
    "$($A tournament board --tournament Big \
       | grep -o '"status":"not_started"' | grep -c .)"
$A tournament round --tournament Big --pairings "$T/big.csv" \
    > "$T/big2.out" 2>&1
check "... again: nothing twice" 70 "$(grep -c 'duplicate' "$T/big2.out")"
# A judged act lists the tables it would add (until 2026-12-05 none: a
# tournament's records were fixed at seq 0), and records nothing.
check "judge of a tables act: its table" 1 \
    "$($A move --match Big --judge tables director 1 71:Big-R1-T71:late,comer \
       | grep -c '^{"legal":true,"records":\[{"round":1,"table":"71",')"
# A table added by hand to the round under way: the next `tournament
# round` opens its match, and only it.
$A move --match Big tables director 1 71:Big-R1-T71:late,comer > /dev/null
$A tournament round --tournament Big --pairings "$T/big.csv" \
    > "$T/big3.out" 2>&1
check "a table added by hand: opened by the next round command" \
    "70 1" "$(grep -c 'duplicate' "$T/big3.out") \
$(grep -c '^table 71: opened Big-R1-T71 seq 0 hash [0-9a-f]*$' "$T/big3.out")"
# A tournament's state at any seq (until 2026-12-05 a state read of a
# tournament's results could crash the recorder: they were built on
# uninitialized memory).
check "state of the tournament at each act: its tables" "0 31 62 70 71" \
    "$(for at in 0 1 2 3 4; do
         $A state --match Big --at $at --json | grep -o '"ended":0' | wc -l
       done | tr -s ' \n' ' ' | sed 's/^ //; s/ $//')"
check "the recorder is still up" 0 \
    "$($A state --match Big > /dev/null 2>&1; echo $?)"
$A export --format transcript --match Big --out "$T/big.txt" 2> /dev/null
check "its transcript replays to the recorded digest" \
    "$($A state --match Big --json | grep -o '"digest":"[0-9a-f]*"')" \
    "$($A replay --json "$T/big.txt" | grep -o '"digest":"[0-9a-f]*"')"

# A team game: SKIM-10 Chains, long sides against short sides, each table
# dealt from a seed the recorder draws.  Each player is credited with the
# total and the result of their side (docs/TOURNAMENT.md).
$A tournament create --tournament Ch --game chains --option deck=36 \
    --option scoring=square --deal seed > /dev/null 2>&1
check "create a team tournament" 0 $?
{
    echo "round,table,player1,player2,player3,player4"
    echo "1,1,ann:long,bob:short,cid:long,dan:short"
    echo "1,2,eve:short,fay:long,gus:short,hal:long"
    echo "2,1,ann:long,bob:short,cid:long,dan:short"
    echo "2,2,eve:long,fay:short,gus:long,hal:short"
} > "$T/ch.csv"
$A tournament round --tournament Ch --pairings "$T/ch.csv" > "$T/ch1.out" 2>&1
check "team round: 2 tables opened" 2 "$(grep -c 'opened Ch-R1-T' "$T/ch1.out")"
sed 's/^1,2,.*/1,2,eve:long,fay:short,gus:long,hal:short/' "$T/ch.csv" \
    > "$T/ch-sides.csv"
$A tournament round --tournament Ch --pairings "$T/ch-sides.csv" \
    > "$T/ch-sides.out" 2>&1
check "a team round again with other sides: refused" 1 $?
check "... naming them" 1 \
    "$(grep -c 'table 2 is recorded as eve:short,fay:long,gus:short,hal:long, the file says eve:long,fay:short,gus:long,hal:short$' "$T/ch-sides.out")"
check "a table seats the sides and commits a drawn seed" 1 \
    "$($A events --match Ch-R1-T2 | grep -c 'players: eve:short fay:long gus:short hal:long; .*deal: commit')"
for t in 1 2; do $A close --match Ch-R1-T$t > /dev/null; done
check "the close reveals the seed" 1 \
    "$($A events --match Ch-R1-T1 | grep -c 'close seed [0-9a-f]\{64\}$')"
$A tournament end --tournament Ch --round 1 > /dev/null 2>&1
# round 2: the director's act, its tables recorded from a worked match
# (long 54, short 59) with the players of each table
$A move --match Ch round director 2 1:Ch-R2-T1:ann:long,bob:short,cid:long,dan:short \
    2:Ch-R2-T2:eve:long,fay:short,gus:long,hal:short > /dev/null
check "round 2 as a director's act" 0 $?
sed 's/^match: .*/match: Ch-R2-T1/' tests/data/chains-seed-match.txt \
    > "$T/ch-t1.txt"
sed -e 's/^match: .*/match: Ch-R2-T2/' \
    -e '/^[^#]/{s/ann/eve/g;s/bob/fay/g;s/cid/gus/g;s/dan/hal/g;}' \
    tests/data/chains-seed-match.txt > "$T/ch-t2.txt"
for t in 1 2; do $A load "$T/ch-t$t.txt" > /dev/null; done
check "board: a match the rules ended is finished, awaiting its close" 2 \
    "$($A tournament board --tournament Ch | grep -o '"status":"finished","seq":35,"last_move_ms":[1-9]' | grep -c .)"
for t in 1 2; do $A close --match Ch-R2-T$t > /dev/null; done
for m in 1,1 1,2 2,1 2,2; do
    $A state --match "Ch-R${m%,*}-T${m#*,}" | awk '/^totals:/ { on = 1; next }
        on && /^  / { print $1, $2 } /^digest/ { on = 0 }' > "$T/tot"
    awk -F, -v rt="$m" '$1 "," $2 == rt { for (i = 3; i <= NF; i++) print $i }' \
        "$T/ch.csv" | tr ':' ' ' > "$T/seats"
    awk 'NR == FNR { tot[$1] = $2; next }
        FNR == 1 { max = -1; for (k in tot) if (tot[k] > max) max = tot[k]
                   for (k in tot) if (tot[k] == max) at++ }
        { v = tot[$2] + 0; print $1, v, (v < max ? 0 : at > 1 ? 1 : 2) }' \
        "$T/tot" "$T/seats"
done | awk '{ g[$1] += $2; m[$1] += $3 } END { for (p in g) print p, g[p], m[p] }' \
    | sort > "$T/want_ch"
$A tournament standings --tournament Ch > "$T/ch.csv.st" 2>&1
check "team standings" 0 $?
awk -F, 'NR > 1 { print $2, $4, $5 }' "$T/ch.csv.st" | sort > "$T/got_ch"
check "team standings = each side's recorded total, credited to its players" \
    "$(cat "$T/want_ch")" "$(cat "$T/got_ch")"
check "the short side won round 2: bob 59, win and draw" 1 \
    "$(grep -c '^bob 59 3$' "$T/got_ch")"
check "a team line names its matches and seqs" 1 \
    "$(grep -c '^[0-9]*,eve,.*,Ch-R1-T2@1;Ch-R2-T2@36$' "$T/ch.csv.st")"

# ---- tables recorded by hand -------------------------------------------
# A table added to a round by hand and not opened yet is "not started" to
# every reader (until 2026-12-06 `show` and the results file failed on
# it); a table whose match was opened by hand with other players counts
# for nobody, and says why; a match id that is not the derived one is
# refused (until 2026-12-06 an act could name another tournament's match).
$A tournament create --tournament Hand --game yahchain --option mode=3 \
    > /dev/null 2>&1
printf '1,1,a,b\n' > "$T/hand.csv"
$A tournament round --tournament Hand --pairings "$T/hand.csv" > /dev/null 2>&1
$A move --match Hand tables director 1 2:Hand-R1-T2:c,d > /dev/null 2>&1
check "hand: a table added" 0 $?
out=$($A tournament show --tournament Hand 2>&1); rc=$?
check "hand: show with a table not opened yet" 0 $rc
check "... which is not started" 1 \
    "$(printf '%s\n' "$out" | grep -c '^  table 2  Hand-R1-T2  c d  events 0  not_started$')"
o2=$($A tournament show --tournament Hand --db "$T/data" 2>&1); rc=$?
check "hand: show --db, the same" "0 $out" "$rc $o2"
out=$($A export --tournament Hand --format results 2>&1); rc=$?
check "hand: the results file with a table not opened yet" 0 $rc
out=$($A export --tournament Hand --format jsonl 2>&1); rc=$?
check "hand: an export of the tournament with it" 0 $rc
check "... holds the tournament and the opened table" "Hand Hand-R1-T1" \
    "$(printf '%s\n' "$out" | sed -n 's/^{"match":"\([^"]*\)","seq":0,.*/\1/p' | tr '\n' ' ' | sed 's/ $//')"
# A bundle cannot show that a match is not there: refused, naming the
# table and the way out, from the server and --db (until 2026-12-06 its
# own check refused it: "match Hand-R1-T2 is not in the bundle").
for src in "" "--db $T/data"; do
    out=$($A export --tournament Hand --format bundle --out "$T/hand.bundle" \
          $src 2>&1); rc=$?
    check "hand: a bundle with a table not opened yet: refused${src:+ (--db)}" \
        "1 1 no" "$rc $(printf '%s\n' "$out" | grep -c "table 2 of round 1 \
(Hand-R1-T2) has no match yet (a table added by hand, not opened): a bundle \
cannot show that a match is not there.  Open it (arbiter tournament \
round)") $([ -e "$T/hand.bundle" ] && echo yes || echo no)"
done
$A open --match Hand-R1-T2 --game yahchain --players zed,yan --option mode=3 \
    > /dev/null 2>&1
$A move --match Hand-R1-T2 place zed 4S > /dev/null 2>&1
$A close --match Hand-R1-T2 > /dev/null 2>&1
$A close --match Hand-R1-T1 > /dev/null 2>&1
out=$($A tournament standings --tournament Hand --json)
err=$($A tournament round --tournament Hand --pairings "$T/hand.csv" 2>&1)
check "hand: the round again names the table it cannot open" "1 1" \
    "$? $(printf '%s\n' "$err" | grep -c "table 2 of round 1 (Hand-R1-T2) \
was not opened as the round records it: 'arbiter tournament show' says")"
check "hand: other players: not counted" \
    '"uncounted":["Hand-R1-T2"],"problems":[{"round":1,"table":"2","match":"Hand-R1-T2","why":"its match'"'"'s players are zed yan, the table'"'"'s c d"}]' \
    "$(printf '%s' "$out" | sed 's/.*\("uncounted"\)/\1/; s/}$//')"
check "... c and d played nothing" "c,0,0 d,0,0" \
    "$($A tournament standings --tournament Hand | awk -F, '$2 == "c" || $2 == "d" { print $2 "," $3 "," $9 }' | tr '\n' ' ' | sed 's/ $//')"
check "... show says why" 1 \
    "$($A tournament show --tournament Hand | grep -c '^  table 2  Hand-R1-T2  c d  events 2  closed  (does not count: its match.s players are zed yan, the table.s c d)$')"
check "... the board says why" 1 \
    "$($A tournament board --tournament Hand | grep -c '"match":"Hand-R1-T2",.*"problem":"its match')"
check "... the results file leaves it out" 0 \
    "$($A export --tournament Hand --format results | grep -c 'Hand-R1-T2')"
err=$($A move --match Hand tables director 1 5:Open-R1-T1:e,f 2>&1); rc=$?
check "hand: another tournament's match refused" 1 $rc
check "... saying which id the table has" \
    "arbiter move: illegal: tournament.round: table 5 of round 1 is match Hand-R1-T5, not Open-R1-T1: a table's match id is derived (TOURNAMENT-R<n>-T<table>)" \
    "$err"

# The same board and standings over HTTP, and the board page.
kill "$pid"; wait "$pid" 2>/dev/null
printf '[http]\nlisten = tcp:127.0.0.1:17011\n' > "$T/http.conf"
bin/arbiterd --config "$T/http.conf" --data "$T/data" --listen "unix:$T/s.sock" \
    --log-level warn 2> "$T/daemon2.log" < /dev/null > /dev/null &
pid=$!
i=0
while ! curl -s -o /dev/null http://127.0.0.1:17011/ && [ $i -lt 100 ]; do
    sleep 0.05; i=$((i + 1)); done
reader=$(awk '$4 == "reader" { print $3; exit }' "$T/data/tokens")
get() { curl -s -H "Authorization: Bearer $reader" "http://127.0.0.1:17011$1"; }
check "HTTP board = arbiter tournament board" \
    "$($A tournament board --tournament Open)" "$(get /api/t/Open/board)"
check "HTTP standings CSV = arbiter tournament standings" \
    "$($A tournament standings --tournament Open)" \
    "$(get '/api/t/Open/standings?format=csv')"
check "HTTP standings asked as json = standings" \
    "$(get /api/t/Open/standings)" "$(get '/api/t/Open/standings?format=json')"
# Each answer says what it is: a client parses the CSV as CSV (until
# 2026-12-07 no test looked at the Content-Type of either).
ctype() { curl -s -o /dev/null -w '%{content_type}' \
              -H "Authorization: Bearer $reader" "http://127.0.0.1:17011$1"; }
check "HTTP: the standings JSON is JSON" "application/json; charset=utf-8" \
    "$(ctype /api/t/Open/standings)"
check "HTTP: the standings CSV is CSV" "text/csv; charset=utf-8" \
    "$(ctype '/api/t/Open/standings?format=csv')"
check "HTTP: a match that is no tournament is 404" 404 \
    "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $reader" \
       http://127.0.0.1:17011/api/t/Open-R1-T1/board)"
check "HTTP: a bad format is 400" 400 \
    "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $reader" \
       'http://127.0.0.1:17011/api/t/Open/board?format=csv')"
check "HTTP: the board page" 1 "$(get /t/Open | grep -c '/static/board.js')"

# A forfeit: a no-show recorded as such (until 2026-12-06 there was none
# to record: the match closed at 0-0 gave the absent player a draw and a
# point, and the results file rated it as a game).
$A tournament create --tournament Ff --game yahchain --option mode=3 \
    --standings mp > /dev/null 2>&1
printf '1,1,pat,abe\n1,2,cy,di\n' > "$T/ff.csv"
$A tournament round --tournament Ff --pairings "$T/ff.csv" > /dev/null 2>&1
$A tournament forfeit --tournament Ff --round 1 --table 1 --players abe \
    --reason "did not come" > /dev/null 2>&1
check "forfeit: recorded" 0 $?
out=$($A tournament forfeit --tournament Ff --round 1 --table 1 \
      --players abe --reason "did not come" 2>&1)
check "forfeit: sent again, answered as the original" "0 2" \
    "$? $(printf '%s\n' "$out" | grep -c '(duplicate)')"
out=$($A tournament forfeit --tournament Ff --round 1 --table 1 \
      --players abe --reason "did not come, phoned at 10:05" 2>&1)
check "forfeit: a corrected reason, a second note" 0 $?
# the same player at another table is another act, judged: refused
out=$($A tournament forfeit --tournament Ff --round 1 --table 2 \
      --players abe 2>&1)
check "forfeit: the same player, another table: refused" "1 1" \
    "$? $(printf '%s\n' "$out" | grep -c 'abe is not at table 2 of round 1')"
out=$($A tournament forfeit --tournament Ff --round 1 --table 1 \
      --players pat 2>&1)
check "forfeit: another of the table, refused as such" "1 1" \
    "$? $(printf '%s\n' "$out" | grep -c 'forfeited already (seq 2)')"
out=$($A tournament forfeit --tournament Ff --round 1 --table 1 \
      --players "abe,,x y" 2>&1)
check "forfeit: a name that is none" "2 1" "$? $(printf '%s\n' "$out" |
    grep -c "'x y' is not a player's name")"
check "forfeit: the reason in a note after it" 1 \
    "$($A events --match Ff --from 3 |
       grep -c 'note forfeit of table 1 of round 1 by abe: did not come$')"
out=$($A move --match Ff forfeit director 1 1 pat 2>&1); rc=$?
check "forfeit: once a table" "1 1" "$rc $(printf '%s\n' "$out" |
    grep -c 'table 1 of round 1 is forfeited already (seq 2)')"
for mv in "cy 4S" "di 5H" "cy 6D"; do
    $A move --match Ff-R1-T2 place $mv > /dev/null 2>&1
done
$A close --match Ff-R1-T2 > /dev/null 2>&1
for src in "" "--db $T/data"; do
    check "forfeit: standings${src:+ (--db)}" \
        "rank,player,points,gp,mp,wins,draws,losses,played,matches
1,cy,2,21,2,1,0,0,1,Ff-R1-T2@4
2,pat,2,0,2,1,0,0,1,Ff@2
3,abe,0,0,0,0,0,1,1,Ff@2
3,di,0,0,0,0,0,1,1,Ff-R1-T2@4" \
        "$($A tournament standings --tournament Ff $src 2>&1)"
    check "forfeit: show${src:+ (--db)}" 1 \
        "$($A tournament show --tournament Ff $src |
           grep -c '^  table 1  Ff-R1-T1  pat abe  events 0  forfeit (by abe)$')"
    check "forfeit: not in the results file${src:+ (--db)}" "0 2" \
        "$($A export --tournament Ff --format results $src |
           grep -c Ff-R1-T1) $($A export --tournament Ff --format results \
           $src | grep -c Ff-R1-T2)"
done
# A disqualification after the game (edition 3): the table's match was
# played to its end, so the others keep their totals, ranked by them
# among themselves (until 2026-12-06 they won it with 0).
$A tournament create --tournament Fq --game yahchain --option mode=3 \
    > /dev/null 2>&1
printf '1,1,ka,lu,mo\n' > "$T/fq.csv"
$A tournament round --tournament Fq --pairings "$T/fq.csv" > /dev/null 2>&1
i=0
for f in 2 3 4; do for s in S H D C U M W F L G Y N; do
    set -- ka lu mo; shift $((i % 3))
    $A move --match Fq-R1-T1 place $1 $f$s > /dev/null 2>&1 || echo "move $i"
    i=$((i + 1))
done; done
$A close --match Fq-R1-T1 > /dev/null 2>&1
$A tournament forfeit --tournament Fq --round 1 --table 1 --players mo \
    --reason "disqualified" > /dev/null 2>&1
tot=$($A state --match Fq-R1-T1 | awk '/^totals:/ { on = 1; next }
    on && /^  / { print $1, $2 } /^digest/ { on = 0 }')
want=$(printf '%s\n' "$tot" | awk '$1 != "mo" { n[NR] = $1; v[NR] = $2 }
    END { for (i in n) for (j in n) if (i != j) o[i] = v[i] > v[j] ? "win" : "loss"
          for (i in n) print n[i], v[i], o[i]; print "mo 0 loss" }' | sort)
check "forfeit after the game: the others keep their totals, ranked" \
    "$want" "$($A tournament standings --tournament Fq --json |
    grep -o '"player":"[a-z]*"\|"gp":[0-9]*,"result":"[a-z]*"' |
    sed 's/"player":"\(.*\)"/\1/; s/"gp":\([0-9]*\),"result":"\(.*\)"/\1 \2/' |
    paste -d' ' - - | sort)"
check "... its line names the act and the match" 1 \
    "$($A tournament standings --tournament Fq |
       grep -c '^[0-9]*,ka,.*,Fq@[0-9]*;Fq-R1-T1@[0-9]*$')"
check "... two different totals (a table with a winner)" 2 \
    "$(printf '%s\n' "$tot" | awk '$1 != "mo" { print $2 }' | sort -u | wc -l)"
# The same game not closed: its totals rank the others, so the
# tournament's bundle carries it (until 2026-12-06 a forfeited table's
# match went in only once closed, and the bundle left this one out
# without a word).
$A tournament create --tournament Fr --game yahchain --option mode=3 \
    > /dev/null 2>&1
$A tournament round --tournament Fr --pairings "$T/fq.csv" > /dev/null 2>&1
$A events --match Fq-R1-T1 --kind move | while read -r s t r v p c; do
    $A move --match Fr-R1-T1 $v $p $c > /dev/null 2>&1 || echo "move $s"
done
$A tournament forfeit --tournament Fr --round 1 --table 1 --players mo \
    > /dev/null 2>&1
$A export --tournament Fr --format bundle --out "$T/fr.bundle" > /dev/null 2>&1
check "forfeit after the game, not closed: the bundle" 0 $?
check "... carries the game" 1 \
    "$($A verify "$T/fr.bundle" --pubkey "$T/data/signing.pub" 2>&1 |
       grep -c '^match Fr-R1-T1 ')"

# a forfeited table never opened is no gap in the tournament's bundle
# (one not forfeited is: refused above)
$A move --match Ff tables director 1 3:Ff-R1-T3:xu,yo > /dev/null 2>&1
$A tournament forfeit --tournament Ff --round 1 --table 3 --players xu,yo \
    > /dev/null 2>&1
check "forfeit: a table never opened, by both" 1 \
    "$($A tournament show --tournament Ff |
       grep -c '^  table 3  Ff-R1-T3  xu yo  events 0  forfeit (by xu yo)$')"
$A export --tournament Ff --format bundle --out "$T/ff.bundle" > /dev/null 2>&1
check "forfeit: the tournament's bundle" 0 $?
$A verify "$T/ff.bundle" --pubkey "$T/data/signing.pub" > /dev/null 2>&1
check "forfeit: ... verifies" 0 $?
# A dealt tournament: the forfeited table's match, running and dealt,
# cannot be bundled, and is left out until it is closed (until 2026-12-06
# it kept the whole tournament's bundle out); a forfeited table added by
# hand is not opened by the next run of the round.
$A tournament create --tournament Fd --game tsukurutenten \
    --option scoring=simple --deal seed > /dev/null 2>&1
printf '1,1,una,vic\n' > "$T/fd.csv"
$A tournament round --tournament Fd --pairings "$T/fd.csv" > /dev/null 2>&1
$A move --match Fd tables director 1 2:Fd-R1-T2:wes,xan > /dev/null 2>&1
$A tournament forfeit --tournament Fd --round 1 --table 1 --players vic \
    > /dev/null 2>&1
$A tournament forfeit --tournament Fd --round 1 --table 2 --players xan \
    > /dev/null 2>&1
$A tournament round --tournament Fd --pairings "$T/fd.csv" > /dev/null 2>&1
check "forfeit: a forfeited table added by hand is not opened" 1 \
    "$($A state --match Fd-R1-T2 2>&1 | grep -c "no match 'Fd-R1-T2'")"
for src in "" "--db $T/data"; do
    rm -f "$T/fd.bundle"
    $A export --tournament Fd --format bundle --out "$T/fd.bundle" $src \
        > /dev/null 2>&1
    check "forfeit: a dealt tournament's bundle${src:+ (--db)}" 0 $?
    $A verify "$T/fd.bundle" --pubkey "$T/data/signing.pub" > /dev/null 2>&1
    check "forfeit: ... verifies${src:+ (--db)}" 0 $?
done
check "forfeit: ... without the running match" 0 \
    "$($A verify "$T/fd.bundle" --pubkey "$T/data/signing.pub" 2>&1 |
       grep -c '^match Fd-R1-T1 ')"
check "forfeit: the board" 1 \
    "$($A tournament board --tournament Ff |
       grep -c '"match":"Ff-R1-T1","players":\["pat","abe"\],"status":"forfeit"')"

# A withdrawal: the player leaves after round N; no later round seats
# them (until 2026-12-06 there was no such act: the pairing list of the
# next round that seated them again was recorded).
$A tournament create --tournament Wd --game yahchain --option mode=3 \
    > /dev/null 2>&1
printf '1,1,ann,bob\n1,2,cat,dan,eve\n2,1,ann,cat\n2,2,bob,eve\n' \
    > "$T/wd.csv"
printf '2,1,ann,dan\n2,2,bob,cat,eve\n' > "$T/wd2.csv"
$A tournament round --tournament Wd --pairings "$T/wd.csv" > /dev/null 2>&1
out=$($A tournament withdraw --tournament Wd --round 1 --players dan \
      --reason "left for a train" 2>&1)
check "withdraw: recorded" "0 1" "$? $(printf '%s\n' "$out" |
    grep -c '^seq 2 hash')"
out=$($A tournament withdraw --tournament Wd --round 1 --players dan \
      --reason "left for a train" 2>&1)
check "withdraw: sent again, answered as the original" "0 2" \
    "$? $(printf '%s\n' "$out" | grep -c '(duplicate)')"
out=$($A tournament withdraw --tournament Wd --round 1 --players bob,bob \
      2>&1)
check "withdraw: a name twice" "1 1" "$? $(printf '%s\n' "$out" |
    grep -c 'bob is named twice')"
out=$($A tournament withdraw --tournament Wd --round 1 --players fay 2>&1)
check "withdraw: a player of no table" "1 1" "$? $(printf '%s\n' "$out" |
    grep -c 'fay sits at no table of this tournament')"
out=$($A tournament withdraw --tournament Wd --players dan 2>&1)
check "withdraw: needs --round" "2 1" "$? $(printf '%s\n' "$out" |
    grep -c 'withdraw needs --round N')"
out=$($A tournament withdraw --tournament Wd --round 1 --players dan \
      --table 1 2>&1)
check "withdraw: no --table" "2 1" "$? $(printf '%s\n' "$out" |
    grep -c 'and no --table$')"
# The largest number is a round like any other, not "no --round" (it
# was the sentinel for that: the round in progress was opened again,
# exit 0, and `end` asked for the --round it was given).
U=18446744073709551615
out=$($A tournament round --tournament Wd --round $U --pairings "$T/wd.csv" \
      2>&1)
check "round --round 2^64-1: that round, which the file lacks" \
    "2 arbiter tournament: the pairing list has no table of round $U" \
    "$? $out"
out=$($A tournament end --tournament Wd --round $U 2>&1)
check "end --round 2^64-1: judged, not taken for no --round" "1 0" \
    "$? $(printf '%s\n' "$out" | grep -c 'needs --round')"
out=$($A tournament forfeit --tournament Wd --round 1 --players dan 2>&1)
check "forfeit: needs --table" "2 1" "$? $(printf '%s\n' "$out" |
    grep -c 'forfeit needs --round N, --table T')"
out=$($A tournament forfeit --tournament Wd --round 1 --table 1 \
      --players $(seq -s, -f 'p%g' 17) 2>&1)
check "forfeit: 17 players, one more than a table seats" "2 1" \
    "$? $(printf '%s\n' "$out" | grep -c -- '--players: at most 16$')"
out=$($A tournament create --tournament Wo --game yahchain --option =3 2>&1)
check "create: an option without a key" "2 1" "$? $(printf '%s\n' "$out" |
    grep -c "option wants KEY=VALUE, not '=3'$")"
out=$($A tournament create --tournament Wo --game yahchain \
      $(seq -f '--option k%g=1' 33) 2>&1)
check "create: 33 options, one more than it takes" "2 1" \
    "$? $(printf '%s\n' "$out" | grep -c 'at most 32 options$')"
check "withdraw: the reason in a note after it" 1 \
    "$($A events --match Wd --from 3 |
       grep -c 'note withdrawal of dan after round 1: left for a train$')"
$A tournament end --tournament Wd --round 1 > /dev/null 2>&1
out=$($A tournament round --tournament Wd --pairings "$T/wd2.csv" 2>&1)
check "withdraw: a round that seats them is refused" "1 1" \
    "$? $(printf '%s\n' "$out" | grep -c 'round 2: table 1 seats dan, who withdrew from the tournament after round 1 (seq 2)')"
check "withdraw: ... and nothing of it recorded" 0 \
    "$($A tournament show --tournament Wd | grep -c '^round 2')"
$A tournament round --tournament Wd --pairings "$T/wd.csv" --round 2 \
    > /dev/null 2>&1
check "withdraw: a round without them" 1 \
    "$($A tournament show --tournament Wd | grep -c '^round 2')"
out=$($A tournament round --tournament Wd --pairings "$T/wd.csv" \
      --round 2 2>&1)
check "withdraw: ... sent again, a retry" 0 $?
for src in "" "--db $T/data"; do
    check "withdraw: show${src:+ (--db)}" 1 \
        "$($A tournament show --tournament Wd $src |
           grep -c '^withdrawn: dan after round 1 (seq 2)$')"
    check "withdraw: the standings keep their line, marked${src:+ (--db)}" 1 \
        "$($A tournament standings --tournament Wd --json $src |
           grep -c '"player":"dan","points":0,.*"matches":\[\],"withdrawn":{"after_round":1,"seq":2}}')"
    check "withdraw: the CSV as ever${src:+ (--db)}" 1 \
        "$($A tournament standings --tournament Wd $src | grep -c ',dan,')"
done
check "withdraw: the state's records after the tables" 1 \
    "$($A state --match Wd --json | grep -c '"withdrawn":"dan","after_round":1')"
$A export --tournament Wd --format bundle --out "$T/wd.bundle" > /dev/null 2>&1
check "withdraw: the tournament's bundle" 0 $?
$A verify "$T/wd.bundle" --pubkey "$T/data/signing.pub" > /dev/null 2>&1
check "withdraw: ... verifies" 0 $?
# a withdrawal recorded in error is voided as any act
$A tournament create --tournament Wv --game yahchain --option mode=3 \
    > /dev/null 2>&1
printf '1,1,ann,bob\n2,1,ann,bob\n' > "$T/wv.csv"
$A tournament round --tournament Wv --pairings "$T/wv.csv" > /dev/null 2>&1
$A tournament withdraw --tournament Wv --round 1 --players bob \
    > /dev/null 2>&1
$A rule --match Wv void 2 --reason "the wrong bob" > /dev/null 2>&1
$A tournament end --tournament Wv --round 1 > /dev/null 2>&1
$A tournament round --tournament Wv --pairings "$T/wv.csv" > /dev/null 2>&1
check "withdraw: voided, they are paired again" "1 0" \
    "$($A tournament show --tournament Wv | grep -c '^  table 1  Wv-R2-T1  ann bob ') $($A tournament show --tournament Wv | grep -c '^withdrawn')"
# An act voided, then sent again by the director, is recorded anew (until
# 2026-12-06 it was answered "(duplicate)" and nothing was recorded);
# sent once more, it is the duplicate of the new one.
$A tournament create --tournament Wr --game yahchain --option mode=3 \
    > /dev/null 2>&1
printf '1,1,ann,bob\n1,2,cat,dan\n' > "$T/wr.csv"
$A tournament round --tournament Wr --pairings "$T/wr.csv" > /dev/null 2>&1
$A tournament withdraw --tournament Wr --round 1 --players dan \
    --reason "train" > /dev/null 2>&1
$A rule --match Wr void 2 --reason "he stays" > /dev/null 2>&1
out=$($A tournament withdraw --tournament Wr --round 1 --players dan \
      --reason "train" 2>&1)
check "withdraw: voided, sent again: recorded anew" "0 1 1 1" \
    "$? $(printf '%s\n' "$out" |
          grep -c '^seq 2 was this act, voided at seq 4: recorded anew$') $(
          printf '%s\n' "$out" | grep -c '^seq 5 hash [0-9a-f]*$') $(
          printf '%s\n' "$out" | grep -c '^seq 6 hash [0-9a-f]*$')"
check "withdraw: ... in force" 1 \
    "$($A tournament show --tournament Wr |
       grep -c '^withdrawn: dan after round 1 (seq 5)$')"
out=$($A tournament withdraw --tournament Wr --round 1 --players dan \
      --reason "train" 2>&1)
check "withdraw: ... sent once more, the duplicate of the new one" "0 2 0" \
    "$? $(printf '%s\n' "$out" | grep -c '^seq [56] hash .* (duplicate)$') $(
          printf '%s\n' "$out" | grep -c 'anew')"
$A tournament forfeit --tournament Wr --round 1 --table 1 --players bob \
    > /dev/null 2>&1
$A rule --match Wr void 7 --reason "bob came" > /dev/null 2>&1
out=$($A tournament forfeit --tournament Wr --round 1 --table 1 \
      --players bob 2>&1)
check "forfeit: voided, sent again: recorded anew" "0 1" \
    "$? $(printf '%s\n' "$out" |
          grep -c '^seq 7 was this act, voided at seq 8: recorded anew$')"
check "forfeit: ... in force" 1 \
    "$($A tournament board --tournament Wr |
       grep -c '"match":"Wr-R1-T1","players":\["ann","bob"\],"status":"forfeit"')"
# Amended: recorded anew when the amend took it out (dan's withdrawal
# amended to cat's), answered as recorded when the amend keeps it in
# force (amended to dan's and cat's: a second would be refused).
$A tournament create --tournament Wa --game yahchain --option mode=3 \
    > /dev/null 2>&1
printf '1,1,ann,bob\n1,2,cat,dan\n' > "$T/wa.csv"
$A tournament round --tournament Wa --pairings "$T/wa.csv" > /dev/null 2>&1
$A tournament withdraw --tournament Wa --round 1 --players dan \
    > /dev/null 2>&1
$A rule --match Wa amend 2 withdraw director 1 cat --reason "not dan" \
    > /dev/null 2>&1
out=$($A tournament withdraw --tournament Wa --round 1 --players dan 2>&1)
check "withdraw: amended to another, sent again: recorded anew" "0 1" \
    "$? $(printf '%s\n' "$out" |
          grep -c '^seq 2 was this act, amended at seq 3: recorded anew$')"
$A rule --match Wa amend 4 withdraw director 1 dan bob --reason "bob too" \
    > /dev/null 2>&1
out=$($A tournament withdraw --tournament Wa --round 1 --players dan 2>&1)
check "withdraw: amended and in force, sent again: answered as recorded" \
    "0 1" "$? $(printf '%s\n' "$out" | grep -c '^seq 2 hash [0-9a-f]* (duplicate; amended at seq 3, and not taken again now: dan withdrew already, after round 1 (seq 4))$')"
check "withdraw: ... nothing recorded" 5 \
    "$($A events --match Wa | tail -1 | awk '{ print $1 }')"
# A reason too long for a frame: the act stands, and the tool says so.
long=$(head -c 70000 /dev/zero | tr '\0' r)
out=$($A tournament withdraw --tournament Wr --round 1 --players cat \
      --reason "$long" 2>&1)
check "withdraw: a reason too long: recorded, said so" "1 1" \
    "$? $(printf '%s\n' "$out" | grep -c 'the withdraw act is recorded (seq 10) but its reason is not')"
check "withdraw: HTTP standings = arbiter tournament standings" \
    "$($A tournament standings --tournament Wd --json)" \
    "$(get /api/t/Wd/standings)"

echo "tournament.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
