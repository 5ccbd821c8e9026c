# A recorder that publishes its log again from an old place: its cursor
# file lost (docs/SCALE.md: "moving it away makes the recorder publish
# from the log's start"), or a store restored from the stream.  Every
# event it then reads is compared with what the stream holds, however
# far the log reaches past one window of events (max_pending x 2) and
# however long ago the stream stored it: the stream's duplicate window
# (two minutes as arbiter creates it; 300 ms on this stream) must not be
# what keeps a copy out.  Until 2026-12-05 the resync ended after the
# first window, and a restored recorder in the cluster soak published
# whole matches a second time.  Then `arbiter restore` leaves a cursor
# at the end of what it restored: the recorder it makes publishes
# nothing again and asks the stream nothing per match.
# Also a read replica, an anti-entropy pass and a restore whose reads
# pass over messages (a NATS node whose copy of the stream differs from
# its leader's): the replica reads again, the pass repairs nothing, the
# restore reads again.
# Ports: ARB_NATS_PORT_BASE (default 17900).
. tests/common.sh
. tests/cluster/nats.sh
nats_test_up nats_resync.sh 1 17900
. tests/cluster/recorders.sh

OP=${BUILD:-build}/tests/nats_op
$OP "$URLS" window ARBITER 300

# stat NAME KEY: stats.replication.KEY of recorder NAME.
stat() { on "$1" stats | awk -v k="replication.$2" '$1 == k { print $2 }'; }

# published NAME: until recorder NAME has published its whole log (20 s).
published() {
    i=0
    while [ "$(stat "$1" lag_events)" != 0 ] && [ $i -lt 200 ]; do
        sleep 0.1; i=$((i + 1))
    done
}

# counts: each match's message count on the stream, on one line.
counts() {
    for m in 1 2 3 4 5 6; do
        printf '%s ' "$($OP "$URLS" count ARBITER E.$m)"
    done
}

# Six matches of 13 events, 78 in all: ten windows of 8 events.
REPL_EXTRA="max_pending = 4" start_replicating east E.
for m in 1 2 3 4 5 6; do play east E.$m 12; done
published east
check "published: 78 events" 78 "$(nats_msgs "$NATS_DIR" 1)"
check "each match once" "13 13 13 13 13 13 " "$(counts)"

# A read replica whose consumer passes over a message without a gap in
# its sequences (ARBITERD_REPLICA_DROP: its 5th, E.1's seq 4), as one on
# a NATS node whose copy of the stream lacks it: E.1's later events wait
# for it; after 10 s the replica reads the stream again and catches up.
REP_ENV="ARBITERD_REPLICA_DROP=5" start_replica rep
caught_up E.1 east events
check "replica, a message passed over: E.1 caught up" \
    "$(on east events --match E.1 --json)" \
    "$(on rep events --match E.1 --json)"
check "replica, a message passed over: read again, said" 1 \
    "$(grep -c "have waited 10 s for an earlier seq of their match; \
reading the stream again" "$T/rep.log")"
same_as_primary E.2:east E.6:east
kill "$pid_rep"; wait "$pid_rep" 2>/dev/null

# A pass whose reads of the subjects pass over a message each
# (ARBITERD_WALK_DROP: every read's 3rd, seq 2), as on a NATS node whose
# copy of the stream lacks it: the holes they find are not filled, since
# each read saw fewer messages than the leader counts (filled, each would
# be a copy once the duplicate window has passed).
# walk_pass HOOK: east restarted with ARBITERD_WALK_DROP=HOOK; what the
# pass it is asked for says, in out.
walk_pass() {
    kill "$pid_east"; wait "$pid_east" 2>/dev/null
    export ARBITERD_WALK_DROP=$1
    REPL_EXTRA="max_pending = 4" start_replicating east E.
    unset ARBITERD_WALK_DROP
    sleep 1
    out=$(on east replicate --check --timeout 60 2>&1)
}
walk_pass 3
check "reads short of a message: every match put off" 1 \
    "$(printf '%s\n' "$out" | grep -c "0 repaired, 6 put off")"
check "reads short of a message: said" 1 \
    "$(grep -q "match E.1: the read of arbiter.ev.E%2E1 found 12 messages, \
the leader counts 13; repair put off" "$T/east.log" && echo 1)"
check "reads short of a message: nothing published again" \
    "13 13 13 13 13 13 " "$(counts)"

# A pass whose reads end at each subject's last stream sequence without
# its message (ARBITERD_WALK_DROP=last), as on a NATS node whose copy of
# the stream is numbered differently: what they saw lacks the match's
# last event, which the leader holds; repairing from it would publish
# that event again.
walk_pass last
check "reads ended before the last message: every match put off" 1 \
    "$(printf '%s\n' "$out" | grep -c "0 repaired, 6 put off")"
check "reads ended before the last message: said" 1 \
    "$(grep -q "match E.1: the read of arbiter.ev.E%2E1 ended before its \
last message (seq 12, stream sequence [0-9]*); repair put off" \
       "$T/east.log" && echo 1)"
check "reads ended before the last message: nothing published again" \
    "13 13 13 13 13 13 " "$(counts)"

# The cursor file lost; started again past the duplicate window.
kill "$pid_east"; wait "$pid_east" 2>/dev/null
rm -f "$T/east/replicate.pos"
sleep 1
REPL_EXTRA="max_pending = 4" start_replicating east E.
published east
check "cursor lost: the log read again to its end" 78 \
    "$(stat east published_pos)"
check "cursor lost: nothing published twice" 78 "$(nats_msgs "$NATS_DIR" 1)"
check "cursor lost: each match still once" "13 13 13 13 13 13 " "$(counts)"
check "cursor lost: every event found in the stream" 78 \
    "$(stat east duplicates)"
check "cursor lost: one look per match" 6 "$(stat east resync_looks)"
play east E.1 14 12
published east
check "cursor lost: new moves published" 80 "$(nats_msgs "$NATS_DIR" 1)"

# The machine lost: the store restored from the stream, the recorder
# started on it past the duplicate window.
kill "$pid_east"; wait "$pid_east" 2>/dev/null
rm -rf "$T/east"
out=$($A restore --nats "$URLS" --data "$T/east" --prefix E. 2>&1)
check "restore: exit 0" 0 $?
check "restore: a cursor at the end of the log" "published 80" \
    "$(head -n 1 "$T/east/replicate.pos" 2>&1)"
sleep 1
REPL_EXTRA="max_pending = 4" start_replicating east E.
published east
check "restored: nothing published twice" 80 "$(nats_msgs "$NATS_DIR" 1)"
check "restored: no look per match" 0 "$(stat east resync_looks)"
play east E.2 14 12
published east
check "restored: new moves published" 82 "$(nats_msgs "$NATS_DIR" 1)"
check "restored: each match once" "15 15 13 13 13 13 " "$(counts)"
# A read that passes over a message (ARBITER_RESTORE_DROP: the first read
# drops the stream's 10th, as a consumer on a NATS replica whose copy of
# the stream lacks it does): the restore reads the stream again with a
# new consumer, and restores it whole.
kill "$pid_east"; wait "$pid_east" 2>/dev/null
out=$(ARBITER_RESTORE_DROP=10 $A restore --nats "$URLS" --data "$T/east2" \
      --prefix E. 2>&1)
check "a read short of a message: exit 0" 0 $?
check "a read short of a message: the gap named, read again" 1 \
    "$(printf '%s\n' "$out" | grep -c "read 1 of at most 3 found 1 match \
incomplete or not verifying; reading the stream again")"
check "a read short of a message: read twice" 2 \
    "$(printf '%s\n' "$out" | grep -c "^arbiter restore: read 82 messages")"
check "a read short of a message: the second read whole" 1 \
    "$(printf '%s\n' "$out" | grep -c "82 events appended")"
check "a read short of a message: the problem not said" 0 \
    "$(printf '%s\n' "$out" | grep -c "first missing seq")"
# Short every time ("10+": every read drops it, as a stream that lacks
# it): three reads, then refused, the gap named once.
out=$(ARBITER_RESTORE_DROP=10+ $A restore --nats "$URLS" --data "$T/east3" \
      --prefix E. 2>&1)
check "short every time: exit 1" 1 $?
check "short every time: three reads" 3 \
    "$(printf '%s\n' "$out" | grep -c "^arbiter restore: read 82 messages")"
check "short every time: the gap named once" 1 \
    "$(printf '%s\n' "$out" | grep -c "first missing seq")"

# A read that ends a match early (its last message passed over) looks
# whole to the chain checks: each match's end is held to the leader's
# last message of its subject.
out=$(ARBITER_RESTORE_DROP=82 $A restore --nats "$URLS" --data "$T/east4" \
      --prefix E. 2>&1)
check "a read short of a match's tail: exit 0" 0 $?
check "a read short of a match's tail: read again" 1 \
    "$(printf '%s\n' "$out" | grep -c "read 1 of at most 3 found 1 match ")"
check "a read short of a match's tail: the second read whole" 1 \
    "$(printf '%s\n' "$out" | grep -c " 82 events appended")"
out=$(ARBITER_RESTORE_DROP=82+ $A restore --nats "$URLS" --data "$T/east5" \
      --prefix E. 2>&1)
check "short of a tail every time: exit 1" 1 $?
check "short of a tail every time: named" 1 \
    "$(printf '%s\n' "$out" | grep -c "match E.2 seq 14: the read ended at \
seq 13 while the stream's leader holds seq 14")"

# A stream that lost seqs of a match from its middle while later ones
# were kept (a NATS node killed before its flush), and a recorder whose
# cursor is behind: its resync finds the subject ending past the window
# and short, and holds the match's events in the window for a pass; the
# window's bound for the pass is the match's first event past it, in the
# log beyond.  Until 2026-12-05 the pass put the match off while the
# subject ended past that bound, and the window, unable to move on past
# its held events, never raised the bound: the recorder stopped
# publishing for good.  Then the pass made the subject whole up to the
# bound (seq 3 again), and the next pass what lay past it (seq 10), a
# pass per few events of the window.  Now, in resync, one pass makes the
# subject whole up to its end (seqs 3 and 10), and the window's resync
# drops the seqs the stream holds.
kill "$pid_east" 2>/dev/null; wait "$pid_east" 2>/dev/null
REPL_EXTRA="max_pending = 4" start_replicating east E.
base=$($OP "$URLS" show ARBITER last)
play east E.7 12
published east
check "lost seqs: E.7 published" 13 "$($OP "$URLS" count ARBITER E.7)"
$OP "$URLS" delete ARBITER $((base + 4)) > /dev/null      # E.7 seq 3
$OP "$URLS" delete ARBITER $((base + 11)) > /dev/null     # E.7 seq 10
kill "$pid_east"; wait "$pid_east" 2>/dev/null
rm -f "$T/east/replicate.pos"
sleep 1
REPL_EXTRA="max_pending = 4" start_replicating east E.
i=0
while [ "$(stat east lag_events)" != 0 ] && [ $i -lt 600 ]; do
    sleep 0.1; i=$((i + 1))
done
check "lost seqs: the recorder published its whole log" 0 \
    "$(stat east lag_events)"
check "lost seqs: E.7 whole again, once each" 13 \
    "$($OP "$URLS" count ARBITER E.7)"
check "lost seqs: seqs 3 and 10 repaired by one pass, past the bound" 1 \
    "$(grep -c "match E.7: the stream lacks 2 seqs up to 12, the first 3, \
and ends on seq 12; published again" "$T/east.log")"
check "lost seqs: E.7 repaired once" 1 \
    "$(grep -c "match E.7: the stream lacks" "$T/east.log")"
out=$($A restore --nats "$URLS" --data "$T/east6" --prefix E.7 2>&1)
check "lost seqs: E.7 restores from the stream" 0 $?
check "lost seqs: restored E.7 = the recorder's" \
    "$($A export --format jsonl --db "$T/east" --match E.7 2>&1)" \
    "$($A export --format jsonl --db "$T/east6" --match E.7 2>&1)"

if [ $fail -ne 0 ]; then
    printf '%s\n' "$out" | tail -n 5 | sed 's/^/why: restore: /'
    tail -n 20 "$T/east.log" | sed 's/^/why: east.log: /'
fi

echo "nats_resync.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
