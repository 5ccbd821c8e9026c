# arbiter restore from the replicated stream, against a real nats-server:
# two recorders replicate into one stream; a restore of each recorder's
# prefix, and of the whole stream, gives byte-identical events and a clean
# check, and the restored directory serves as a recorder.  (Incomplete and
# forged streams: test_stream_mirror.)  Ports: ARB_NATS_PORT_BASE (default 16100).
. tests/common.sh
. tests/cluster/nats.sh
nats_test_up nats_restore.sh 1 16100
. tests/cluster/recorders.sh

start_replicating east E.
start_replicating west W.
play east E.1 12; play west W.1 9; play east E.2 5
on east close --match E.2 --reason done > /dev/null
play west W.2 3

nats_wait_msgs "$NATS_DIR" 1 34

# events DATA MATCH: the match's events as the tool prints them.
events() { $A events --db "$1" --match "$2" --json 2>&1; }

out=$($A restore --nats "$URLS" --data "$T/east-r" --prefix E. 2>&1); rc=$?
check "restore east exit" 0 $rc
check "restore east counts" "1" "$(printf '%s' "$out" | grep -c ' 20 events appended')"
for m in E.1 E.2; do
    check "restored $m events identical" "$(events "$T/east" $m)" "$(events "$T/east-r" $m)"
done
check "restored east has no W" "" "$($A events --db "$T/east-r" --match W.1 2>/dev/null)"
out=$($A check --db "$T/east-r" 2>&1); rc=$?
check "check restored east" 0 $rc

out=$($A restore --nats "$URLS" --data "$T/all-r" 2>&1); rc=$?
check "restore whole stream exit" 0 $rc
for m in E.1 E.2 W.1 W.2; do
    d=east; case $m in W.*) d=west ;; esac
    check "whole stream $m identical" "$(events "$T/$d" $m)" "$(events "$T/all-r" $m)"
done

# A restored store is a recorder's data directory: it starts and serves.
bin/arbiterd --data "$T/east-r" --listen "unix:$T/er.sock" --log-level warn \
    2> "$T/er.log" < /dev/null > /dev/null &
pids="$pids $!"
wait_sock "$T/er.sock"
check "restored recorder serves the state" \
    "$(on east state --match E.1 --json)" \
    "$($A state --server "unix:$T/er.sock" --token "$(tok east-r)" --match E.1 --json)"

# The target must be new or empty.
out=$($A restore --nats "$URLS" --data "$T/east-r" 2>&1); rc=$?
check "restore over a store refused" 2 $rc

echo "nats_restore.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
