# A read replica (arbiterd --replica-of) of a 3-node JetStream cluster fed
# by two recorders: it serves both recorders' matches with the primaries'
# state digest at every seq, feeds an all-matches subscription across
# recorders, refuses writes naming the match's recorder, and resumes
# without a gap after its own restart and a NATS node's kill -9.
# Ports: ARB_NATS_PORT_BASE (default 16300).
. tests/common.sh
. tests/cluster/nats.sh
nats_test_up nats_replica.sh 3 16300
. tests/cluster/recorders.sh

start_replicating east E.
start_replicating west W.
# The replica serves HTTP too (its /metrics).
HTTP_PORT=$((${ARB_NATS_PORT_BASE:-16300} + 60))
printf '[http]\nlisten = tcp:127.0.0.1:%s\n' "$HTTP_PORT" > "$T/rep.conf"
# Who to write to when the stream names no recorder for the match.
printf '[replica]\nprimary = recorder east at tcp:10.0.0.5:7411\n' \
    >> "$T/rep.conf"
start_replica rep "$T/rep.conf"
# Every event of every recorder, in the replica's commit order.
$A watch --server "unix:$T/rep.sock" --token "$(tok rep)" --from 1 --json \
    > "$T/watch" 2> "$T/watch.err" &
watch_pid=$!
pids="$pids $watch_pid"

play east E.1 12; play west W.1 9; play east E.2 5
on east close --match E.2 --reason done > /dev/null
play west W.2 3

# same_every_seq MATCH PRIMARY LAST: the state at each seq 0..LAST.
same_every_seq() {
    bad=
    s=0
    while [ $s -le "$3" ]; do
        [ "$(on "$2" state --match "$1" --at $s --json)" = \
          "$(on rep state --match "$1" --at $s --json)" ] || bad="$bad $s"
        s=$((s + 1))
    done
    check "$1: replica's state = primary's at every seq" "" "$bad"
}
for m in E.1:east:12 E.2:east:6 W.1:west:9 W.2:west:3; do
    IFS=: read -r id prim last <<EOM
$m
EOM
    caught_up "$id" "$prim"
    same_every_seq "$id" "$prim" "$last"
done
check "replica lists both recorders' matches" "E.1 E.2 W.1 W.2" \
    "$(on rep matches | awk '{ print $1 }' | grep -E '^[EW]\.' | tr '\n' ' ' | sed 's/ $//')"
i=0
while [ "$(wc -l < "$T/watch")" -lt 34 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
check "all-matches subscription on the replica: every event once" 34 \
    "$(sort -u "$T/watch" | wc -l | tr -d ' ')"

# The sections of stats, as the tool prints them (text and JSON).
check "stats: the recorder's replication section" "replication.verified true" \
    "$(on east stats | grep '^replication.verified ')"
check "stats --json: replication as an object" 1 \
    "$(on east stats --json | grep -c '"replication":{"mode":"async","recorder":"east","connected":true,')"
check "stats: the replica's section" "replica.connected true" \
    "$(on rep stats | grep '^replica.connected ')"
# /metrics: the replica's figures, the same as stats.replica's (nothing
# recorded meanwhile), and none of a recorder's.  The stream's head is
# looked at once a second: settled first.
sleep 1.2
reader=$(awk '$4 == "reader" { print $3; exit }' "$T/rep/tokens")
metric() { printf '%s\n' "$metrics" | awk -v n="$1" '$1 == n { print $2 }'; }
# The two are read one after the other: the once-a-second look (the
# stream's head, how far behind) may fall between them, so a pair that
# differs there is read again, up to five times.
figs="appended stream_seq stream_head behind reconnects duplicates foreign"
sstat() { printf '%s\n' "$stats" | awk -v n="replica.$1" '$1 == n { print $2 }'; }
tries=0
while :; do
    metrics=$(curl -s -H "Authorization: Bearer $reader" \
        "http://127.0.0.1:$HTTP_PORT/metrics")
    stats=$(on rep stats)
    a=$(for f in $figs; do sstat "$f"; done | tr '\n' ' ')
    b=$(for f in appended_total stream_seq stream_head behind \
            reconnects_total duplicates_total foreign_total; do
            metric "arbiter_replica_$f"; done | tr '\n' ' ')
    tries=$((tries + 1))
    [ "$a" = "$b" ] || [ $tries -ge 5 ] && break
    sleep 0.3
done
check "metrics: replica connected" 1 "$(metric arbiter_replica_connected)"
# a probe is told which it asks: a replica (no test failed when a
# replica said primary)
check "healthz: the replica says so" '{"status":"ok","role":"replica"}' \
    "$(curl -s "http://127.0.0.1:$HTTP_PORT/healthz")"
check "metrics: replica appended = stats" "$(sstat appended)" \
    "$(metric arbiter_replica_appended_total)"
check "metrics: replica stream_seq = stats" "$(sstat stream_seq)" \
    "$(metric arbiter_replica_stream_seq)"
check "metrics: replica stream_head = stats" "$(sstat stream_head)" \
    "$(metric arbiter_replica_stream_head)"
check "metrics: replica behind = stats" "$(sstat behind)" \
    "$(metric arbiter_replica_behind)"
check "metrics: replica lag in seconds" 1 "$(printf '%s\n' "$metrics" \
    | grep -c '^arbiter_replica_lag_seconds [0-9][0-9.]*$')"
check "metrics: replica stopped no match" 0 \
    "$(metric arbiter_replica_stopped_matches)"
check "metrics: replica reconnects = stats" "$(sstat reconnects)" \
    "$(metric arbiter_replica_reconnects_total)"
# (until 2026-12-07 no test read these two: one that showed appended for
# duplicates went unseen)
check "metrics: replica duplicates = stats" "$(sstat duplicates)" \
    "$(metric arbiter_replica_duplicates_total)"
check "metrics: replica foreign = stats" "$(sstat foreign)" \
    "$(metric arbiter_replica_foreign_total)"
check "metrics: no recorder's replication figures on a replica" 0 \
    "$(printf '%s\n' "$metrics" | grep -c '^arbiter_replication_')"

# A match watched on the replica is held in memory there: its new events
# are applied to it, not replayed from its first (until 2026-12-04 every
# commit of the replica replayed it whole); a ruling, which rebuilds the
# state from the moves, is replayed whole.  The state stays the primary's.
play east E.3 6
caught_up E.3 east
$A watch --server "unix:$T/rep.sock" --token "$(tok rep)" --match E.3 \
    --json > "$T/watch3" 2>&1 &
pids="$pids $!"
# the subscription in place: the all-matches one and this one
subs() { on rep stats | awk '$1 == "subscribers" { print $2 }'; }
i=0
while [ "$(subs)" -lt 2 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
adv0=$(rstat advanced); rel0=$(rstat reloaded)
play east E.3 10 6
caught_up E.3 east
check "watched match: its 4 new events applied" $((adv0 + 4)) \
    "$(rstat advanced)"
check "watched match: not replayed whole" "$rel0" "$(rstat reloaded)"
on east rule --match E.3 void 10 --reason "replica test" > /dev/null
caught_up E.3 east
check "watched match: a ruling replays it whole" $((rel0 + 1)) \
    "$(rstat reloaded)"
check "watched match: nothing applied past the ruling" $((adv0 + 4)) \
    "$(rstat advanced)"
same_every_seq E.3 east 11
i=0
while [ "$(wc -l < "$T/watch3")" -lt 5 ] && [ $i -lt 50 ]; do
    sleep 0.1; i=$((i + 1))
done
check "watched match: every event pushed" 5 \
    "$(wc -l < "$T/watch3" | tr -d ' ')"

# A broadcaster's live page reads the replica: its match stream
# (Server-Sent Events) gets each move recorded at the venue, with the
# primary's hash, and the state after it.
curl -s -N -H "Authorization: Bearer $reader" \
    "http://127.0.0.1:$HTTP_PORT/api/m/W.2/live" > "$T/sse" 2>&1 &
sse_pid=$!
curl -s -N -H "Authorization: Bearer $reader" \
    "http://127.0.0.1:$HTTP_PORT/api/live" > "$T/sse.all" 2>&1 &
sse_all=$!
pids="$pids $sse_pid $sse_all"
i=0
while { ! grep -q "^event: state" "$T/sse" \
        || ! grep -q "^: arbiter live" "$T/sse.all"; } && [ $i -lt 50 ]; do
    sleep 0.1; i=$((i + 1))
done
play west W.2 5 3
i=0
while [ "$(grep -c '^event: ack' "$T/sse")" -lt 2 ] && [ $i -lt 100 ]; do
    sleep 0.1; i=$((i + 1))
done
kill "$sse_pid" "$sse_all" 2>/dev/null
check "replica's live page: each new move pushed" "4 5" \
    "$(grep -A1 '^event: ack' "$T/sse" | sed -n 's/^id: //p' |
       tr '\n' ' ' | sed 's/ $//')"
check "replica's live page: the primary's hash" 1 \
    "$(grep '^data: {"match":"W.2","seq":5' "$T/sse" |
       grep -c "$(on west events --match W.2 --from 5 --json |
                  sed 's/.*"hash":"\([0-9a-f]*\)".*/\1/')")"
check "replica's live page: the state after it" 1 \
    "$(grep -A1 '^event: state' "$T/sse" | grep -c '^id: 5$')"
check "replica's all-matches stream: both moves" 2 \
    "$(grep -c '^data: {"match":"W.2","seq":[45],' "$T/sse.all")"

# Writes go to the primary.
err=$(on rep move --match E.1 place bob 5N 2>&1 >/dev/null); rc=$?
check "write to the replica refused" 1 $([ $rc -ne 0 ] && echo 1)
check "refusal names the recorder" 1 \
    "$(printf '%s' "$err" | grep -c "read replica.*recorder east")"
err=$(on rep open --match E.9 --game yahchain --players a,b 2>&1 >/dev/null); rc=$?
check "open on the replica refused" 1 $([ $rc -ne 0 ] && echo 1)
# A match the stream has no recorder for: the configured primary named,
# where a client is to write (until the audit of 2026-12-07 no test set
# primary, and a refusal that dropped it passed).
check "open refused: names the configured primary" 1 \
    "$(printf '%s' "$err" |
       grep -c "write to the primary, recorder east at tcp:10.0.0.5:7411")"

# The replica stops; the recorders go on; a NATS node is killed; both
# come back: the replica resumes where it was, without a gap, and reads
# only what came after what it holds (until 2026-12-04 every start read
# the whole stream again: a restart took time in proportion to the
# stream).
read_before=$(rstat stream_seq)
kill "$pid_rep"; wait "$pid_rep" 2>/dev/null
check "replica.pos saved at the stop" "from $((read_before + 1))" \
    "$(sed -n 3p "$T/rep/replica.pos")"
# ...with the store's log position then: every event it holds, each one
# pushed once to the all-matches subscription (no test failed when the
# position saved was 0, and a store put back from a backup went unseen).
check "replica.pos: the store's log position at the stop" \
    "store $(sort -u "$T/watch" | wc -l | tr -d ' ')" \
    "$(sed -n 4p "$T/rep/replica.pos")"
play east E.1 20 12
nats_kill "$NATS_DIR" 2
play west W.1 15 9
start_replica rep "$T/rep.conf"
play east E.1 24 20
nats_restart "$NATS_DIR" 2
play west W.2 8 5
caught_up E.1 east; caught_up W.1 west; caught_up W.2 west
check "E.1 events after restarts" "$(on east events --match E.1 --json)" \
    "$(on rep events --match E.1 --json)"
check "W.1 events after restarts" "$(on west events --match W.1 --json)" \
    "$(on rep events --match W.1 --json)"
same_every_seq W.2 west 8
check "restart resumed after what was read" $((read_before + 1)) \
    "$(rstat resumed_at)"
check "restart read nothing again" 0 "$(rstat duplicates)"

# A position the replica cannot trust makes it read the whole stream,
# saying why; what it holds is then met as duplicates, nothing doubled.
# restart_rep: stop it, let EDIT change replica.pos, start it, catch up.
restart_rep() {
    kill "$pid_rep"; wait "$pid_rep" 2>/dev/null
    eval "$1"
    start_replica rep "$T/rep.conf"
    caught_up W.2 west
}
whole_read() {  # NAME WHY: the last start read the whole stream
    check "$1: read from the first message" 1 "$(rstat resumed_at)"
    check "$1: said why" 1 "$(grep "reading stream ARBITER from its first" \
        "$T/rep.log" | tail -1 | grep -c "$2")"
    check "$1: what it holds met as duplicates" "$(rstat stream_seq)" \
        "$(rstat duplicates)"
}
restart_rep 'sed -i "1s/ [0-9]*\$/ 12345/" "$T/rep/replica.pos"'
whole_read "stream created again" "was created again"
# The message read last replaced (the stream lost its tail meanwhile):
# read again after the newest place saved with it (a mark line) that the
# stream holds; without places held, the whole stream.
restart_rep 'sed -i "2s/ [0-9]*\$/ 12345/" "$T/rep/replica.pos"'
check "message read replaced: read after a place saved" 1 \
    "$([ "$(rstat resumed_at)" -gt 1 ] && echo 1)"
check "message read replaced: said why" 1 \
    "$(grep "replica_resume\|replica: " "$T/rep.log" | tail -1 | grep -c \
       "no longer holds the message read here .*while this replica was \
stopped): reading it from sequence $(rstat resumed_at) ")"
# ...or from where the store needs it, when that comes first (an event
# held back, a deal secret held in memory only: `from` before the places;
# no test failed when the read began after the place whatever `from` said)
restart_rep 'sed -i -e "2s/ [0-9]*\$/ 12345/" -e "3s/.*/from 1/" \
    "$T/rep/replica.pos"'
check "message read replaced, from before the places: read from there" 1 \
    "$(grep "replica_resume\|replica: " "$T/rep.log" | tail -1 | grep -c \
       "while this replica was stopped): reading it from sequence 1 ")"
restart_rep 'sed -i -e "2s/ [0-9]*\$/ 12345/" -e "5,\$d" "$T/rep/replica.pos"'
whole_read "message read replaced" "no longer holds the message read here"
restart_rep 'sed -i -e "2s/ [0-9]*\$/ 12345/" -e "5,\$s/ [0-9]*\$/ 7/" \
    "$T/rep/replica.pos"'
whole_read "message read and places replaced" \
    "no longer holds the message read here"
restart_rep 'sed -i "4s/ [0-9]*\$/ 99999999/" "$T/rep/replica.pos"'
whole_read "store put back" "holds less than when the position was saved"
restart_rep 'echo junk > "$T/rep/replica.pos"'
check "unreadable replica.pos: read from the first message" 1 \
    "$(rstat resumed_at)"
check "unreadable replica.pos: said" 1 \
    "$(grep -c "replica.pos: not a replica position: line 1" "$T/rep.log")"
restart_rep 'rm -f "$T/rep/replica.pos"'
check "no replica.pos: read from the first message" 1 "$(rstat resumed_at)"
restart_rep :
check "saved again: resumed" 1 \
    "$([ "$(rstat resumed_at)" -gt 1 ] && echo 1)"
check "saved again: nothing read again" 0 "$(rstat duplicates)"
# Nothing read since this start: the recorder of each match is what the
# last life read (replica.owners), still named in a refusal.
err=$(on rep move --match E.2 place bob 5N 2>&1 >/dev/null)
check "resumed: refusal names E.2's recorder" 1 \
    "$(printf '%s' "$err" | grep -c "match 'E.2' to its primary, recorder east")"
err=$(on rep move --match W.1 place bob 5N 2>&1 >/dev/null)
check "resumed: refusal names W.1's recorder" 1 \
    "$(printf '%s' "$err" | grep -c "recorder west")"
# Stopped again with nothing read since this start: the next start
# still resumes where the last one did (until 2026-12-07 a stop that had
# read nothing saved "from 1", and every second restart in a row read
# the whole stream again).
resumed=$(rstat resumed_at)
read_was=$(rstat stream_seq)
restart_rep :
check "restarted, nothing read before the stop: read as far as before" \
    "$read_was 0" "$(rstat stream_seq) $(rstat behind)"
check "restarted, nothing read before the stop: resumed as before" \
    "$resumed" "$(rstat resumed_at)"
check "restarted, nothing read before the stop: nothing read again" 0 \
    "$(rstat duplicates)"
# Killed (-9) once a position past a match it had not read before was
# saved: the restart does not read that match again, and a refusal still
# names its recorder, written out with the position (no test failed when
# the recorders noted were written out only at a clean stop).
play west W.3 2
caught_up W.3 west events
sleep 1.2
play west W.3 3 2
caught_up W.3 west events
sleep 0.3
kill -9 "$pid_rep"; wait "$pid_rep" 2>/dev/null
start_replica rep "$T/rep.conf"
caught_up W.3 west events
err=$(on rep move --match W.3 place bob 5N 2>&1 >/dev/null)
check "killed: refusal names W.3's recorder" 1 \
    "$(printf '%s' "$err" | grep -c "match 'W.3' to its primary, recorder west")"
same_every_seq W.2 west 8
check "E.1 events after the restarts" "$(on east events --match E.1 --json)" \
    "$(on rep events --match E.1 --json)"

out=$($A check --db "$T/rep" 2>&1); rc=$?
check "replica's store checks clean" 0 $rc
check "replica stopped no match" "" "$(grep replica_stopped_match "$T/rep.log")"

# A subscriber of a replica that reads as fast as events come is never
# cut for a backlog the replica applies at once (a NATS node back, the
# replica resumed): what it has not been sent yet is in the replica's
# store.  Here outq_max is 64K and the backlog 4 matches of 145 events
# (some 120 KB of pushes).  For a few hours of 2026-12-06 it was cut as
# `slow` past 3/4 of outq_max.
printf 'outq_max = 64K\n' > "$T/rep2.conf"
start_replica rep2 "$T/rep2.conf"
i=0
while [ "$(on rep2 events --match E.1 --json 2>/dev/null)" != \
        "$(on east events --match E.1 --json)" ] && [ $i -lt 200 ]; do
    sleep 0.1; i=$((i + 1))
done
$A watch --server "unix:$T/rep2.sock" --token "$(tok rep2)" --json \
    > "$T/watch2" 2> "$T/watch2.err" &
watch2_pid=$!
pids="$pids $watch2_pid"
sleep 0.5
kill -STOP "$pid_rep2"
for b in 1 2 3 4; do
    sed "s/^match: .*/match: E.B$b/" tests/data/yah3-cycles4.txt \
        | on east load - > /dev/null || echo "load E.B$b failed"
done
kill -CONT "$pid_rep2"
i=0
while [ "$(wc -l < "$T/watch2")" -lt 580 ] && [ $i -lt 300 ] \
      && kill -0 "$watch2_pid" 2>/dev/null; do
    sleep 0.1; i=$((i + 1))
done
check "replica's backlog: its subscriber not cut" "" \
    "$(grep -i "slow\|keep up" "$T/watch2.err" "$T/rep2.log")"
check "replica's backlog: every event pushed once" 580 \
    "$(sort -u "$T/watch2" | grep -c '"match":"E\.B[1-4]"')"
kill "$watch2_pid" "$pid_rep2" 2>/dev/null

# A restore begun while the JetStream cluster has lost its quorum (two of
# its three nodes stopped: its API answers "temporarily unavailable", or
# not at all) waits for it, up to 30 s, saying so once, instead of failing
# at once (until 2026-12-05: the cluster soak's restore of a lost machine
# just after a frozen NATS node came back, "JetStream error 10008").
# The stream's leader is one of the two: the first look at the stream
# is not answered either.
lead=$(${BUILD:-build}/tests/nats_op "$URLS" show ARBITER leader) || lead=n1
lead=${lead#n}; other=$((lead % 3 + 1))
# The two come back 2 s after the restore has said it waits (8 retries
# meanwhile; 20 s at most for the saying): a fixed 8 s after its start
# until 2026-12-07.
nats_stop "$NATS_DIR" $lead; nats_stop "$NATS_DIR" $other
$A restore --nats "$URLS" --data "$T/r-q" --prefix E. > "$T/r-q.out" 2>&1 &
rq=$!
i=0
while ! grep -q "; trying again for up to 30 s" "$T/r-q.out" \
    && [ $i -lt 200 ]; do
    sleep 0.1; i=$((i + 1))
done
sleep 2; nats_start "$NATS_DIR" $lead; nats_start "$NATS_DIR" $other
wait $rq; rc=$?
out=$(cat "$T/r-q.out")
nats_wait "$NATS_DIR" $lead; nats_wait "$NATS_DIR" $other
check "restore through a lost quorum: exit 0" 0 $rc
check "restore through a lost quorum: said once" 1 \
    "$(printf '%s\n' "$out" | grep -c "; trying again for up to 30 s")"
check "restore through a lost quorum: E.1 = east's" \
    "$($A export --format jsonl --db "$T/east" --match E.1 2>&1)" \
    "$($A export --format jsonl --db "$T/r-q" --match E.1 2>&1)"
[ $rc -eq 0 ] || printf '%s\n' "$out" | tail -n 5 | sed 's/^/why: restore: /'

# On a failure, what the daemons said (the directory goes at exit), on
# "why:" lines that tests/run.sh repeats after its total.
if [ $fail -ne 0 ]; then
    for d in east west rep; do
        tail -n 12 "$T/$d.log" 2>/dev/null | sed "s/^/why: $d.log: /"
    done
fi
echo "nats_replica.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
