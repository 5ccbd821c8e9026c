# arbiter restore from the replicated stream, against a real nats-server:
# two recorders replicate into one stream; a restore of each recorder's
# prefix, and of the whole stream, gives byte-identical events and a clean
# check, and the restored directory serves as a recorder; a prefix no
# match has is refused, and a failed run leaves no DIR.partial it made.
# (Incomplete and forged streams: test_stream_mirror.)  Ports: ARB_NATS_PORT_BASE (default 16100).
. tests/common.sh
. tests/cluster/nats.sh
nats_test_up nats_restore.sh 1 16100
. tests/cluster/recorders.sh

head -c 32 /dev/urandom > "$T/repl.key"; chmod 600 "$T/repl.key"
start_replicating east E. "$T/repl.key"
start_replicating west W.
play east E.1 12; play west W.1 9; play east E.2 5
on east close --match E.2 --reason done > /dev/null
play west W.2 3
# A running dealt match: its secret travels sealed on arbiter.deal.E%2ED1.
on east open --match E.D1 --game tsukurutenten --players ann,bob \
    --deal seed:table-7 > /dev/null || echo "open E.D1 failed"

nats_wait_msgs "$NATS_DIR" 1 36

# events DATA MATCH: the match's events, their bytes and chain links
# (until 2026-12-04 this called `arbiter events --db`, which has no such
# option: both sides were the same usage error, and the checks below
# compared nothing).
events() { $A export --format jsonl --db "$1" --match "$2" 2>&1; }
# has_open TEXT: 1 when the export holds the match's open (seq 0).
has_open() { printf '%s\n' "$1" | grep -c '"seq":0,'; }

out=$($A restore --nats "$URLS" --data "$T/east-r" --prefix E. \
      --key "$T/repl.key" 2>&1); rc=$?
check "restore east exit" 0 $rc
check "restore east counts" "1" \
    "$(printf '%s' "$out" | grep -c ' 21 events appended.* 1 deal secrets, 0 dealt')"
for m in E.1 E.2; do
    want=$(events "$T/east" $m)
    check "$m exported" 1 "$(has_open "$want")"
    check "restored $m events identical" "$want" "$(events "$T/east-r" $m)"
done
check "restored east has no W" "" \
    "$($A export --format jsonl --db "$T/east-r" --match W.1 2>/dev/null)"
check "restore east: no progress drawn in a pipe" 0 \
    "$(printf '%s\n' "$out" | grep -c "$(printf '\033')")"
out=$($A check --db "$T/east-r" 2>&1); rc=$?
check "check restored east" 0 $rc

# Without the replication key a running dealt match cannot be restored
# for its recorder to continue: refused, naming it.
out=$($A restore --nats "$URLS" --data "$T/d-r" --prefix E.D 2>&1); rc=$?
check "without the key: refused" 1 $rc
check "without the key: the dealt match on its chain only" 1 \
    "$(printf '%s' "$out" | grep -c ' 0 deal secrets, 1 dealt matches checked on their chain only')"
check "without the key: named" 1 \
    "$(printf '%s' "$out" | grep -c 'match E.D1: running dealt match: the deal secret is not kept')"
check "without the key: the store that does not verify kept, as said" \
    "yes 1" "$([ -f "$T/d-r.partial/data.mdb" ] && echo yes) \
$(printf '%s\n' "$out" | grep -c "does not verify; it was left in $T/d-r.partial\$")"

out=$($A restore --nats "$URLS" --data "$T/all-r" --key "$T/repl.key" 2>&1); rc=$?
check "restore whole stream exit" 0 $rc
for m in E.1 E.2 W.1 W.2; do
    d=east; case $m in W.*) d=west ;; esac
    want=$(events "$T/$d" $m)
    check "$m exported" 1 "$(has_open "$want")"
    check "whole stream $m identical" "$want" "$(events "$T/all-r" $m)"
done

# A restored store is a recorder's data directory: it starts and serves.
bin/arbiterd --data "$T/east-r" --listen "unix:$T/east-r.sock" --log-level warn \
    2> "$T/er.log" < /dev/null > /dev/null &
pids="$pids $!"
wait_sock "$T/east-r.sock"
check "restored recorder serves the state" \
    "$(on east state --match E.1 --json)" \
    "$(on east-r state --match E.1 --json)"

out=$(on east-r close --match E.D1 2>&1); rc=$?
check "restored dealt match closes (secret restored from the stream)" 0 $rc

# JetStream briefly unavailable (an election) when the restore first
# looks at the stream, makes its consumer and checks the matches' ends
# (ARBITER_RESTORE_UNAVAILABLE: the first 2 answers to each): each is
# tried again, said once, and the restore is whole.
out=$(ARBITER_RESTORE_UNAVAILABLE=2 $A restore --nats "$URLS" \
      --data "$T/blip-r" --prefix W. 2>&1); rc=$?
check "JetStream unavailable at each step: restored" 0 $rc
check "JetStream unavailable at each step: said once" 1 \
    "$(printf '%s\n' "$out" | grep -c 'unavailable (test hook); trying again')"
for m in W.1 W.2; do
    check "JetStream unavailable at each step: $m identical" \
        "$(events "$T/west" $m)" "$(events "$T/blip-r" $m)"
done

# At a terminal the progress is drawn on stderr (no test failed when it
# was never drawn).
if command -v script > /dev/null 2>&1; then
    script -qec "$A restore --nats $URLS --data $T/tty-r --prefix W." \
        /dev/null > "$T/tty" 2>&1
    check "progress at a terminal" yes \
        "$(grep -q 'restore: stream sequence [0-9]*/36' "$T/tty" && echo yes)"
else
    echo "nats_restore.sh: 'script' not found: the terminal case is skipped"
fi

# The target must be new or empty.
out=$($A restore --nats "$URLS" --data "$T/east-r" 2>&1); rc=$?
check "restore over a store refused" 2 $rc
# ... named before NATS is asked anything: with no server there, the
# target is what is said (no test failed when it was named only after
# the connection, and a lost one hid it).
out=$($A restore --nats nats://127.0.0.1:1 --data "$T/east-r" 2>&1); rc=$?
check "restore over a store: said before connecting" "2 arbiter \
restore: $T/east-r exists and is not an empty directory: nothing was \
restored" "$rc $out"

# A prefix no match has (a typo, most often): refused, nothing left (until
# 2026-12-05 an empty store was committed, exit 0, with the advice to
# start a recorder on it).
out=$($A restore --nats "$URLS" --data "$T/typo-r" --prefix NOPE 2>&1); rc=$?
check "a prefix no match has: refused" 1 $rc
check "... said, with what was read" 1 \
    "$(printf '%s\n' "$out" | grep -c "^arbiter restore: no match in the stream starts with 'NOPE' (36 messages read): nothing was restored\$")"
check "... no advice to start a recorder" 0 \
    "$(printf '%s\n' "$out" | grep -c 'start the recorder')"
check "... nothing left" "" "$(ls -d "$T/typo-r"* 2> /dev/null)"

# A write that fails (a full disk: here a file size limit) removes the
# DIR.partial this run made and says so (until 2026-12-05 it was left
# without a word, and every rerun refused until removed by hand); the
# same command then restores.
out=$( (trap '' XFSZ; ulimit -f 1000; $A restore --nats "$URLS" \
        --data "$T/full-r" --prefix W.) 2>&1); rc=$?
check "a restore that cannot write: I/O error" 2 $rc
check "... with its reason (it was \"cannot create the index\")" 1 \
    "$(printf '%s\n' "$out" | grep -c "File too large")"
check "... says what it removed" 1 \
    "$(printf '%s\n' "$out" | grep -c "^arbiter restore: removed $T/full-r.partial\$")"
check "... nothing left" "" "$(ls -d "$T/full-r"* 2> /dev/null)"
$A restore --nats "$URLS" --data "$T/full-r" --prefix W. > /dev/null 2>&1
check "... then restored by the same command" 0 $?
# A DIR.partial the run found is never removed.
mkdir "$T/found-r.partial"; touch "$T/found-r.partial/mine"
$A restore --nats "$URLS" --data "$T/found-r" --prefix W. > /dev/null 2>&1
check "a DIR.partial found: refused" 2 $?
check "... and kept" "mine" "$(ls "$T/found-r.partial")"

echo "nats_restore.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
