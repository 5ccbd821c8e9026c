#!/bin/sh
# make soak-cluster: replication under faults, cycle after cycle, on a
# 3-node JetStream cluster on loopback (docs/FAULTS.md, *The cluster
# soak*).  Recorder "east" replicates in async mode (matches E.), "west"
# in sync mode (W.), and a read replica follows the stream.  Each cycle
# two scorekeepers play five fresh matches on each recorder (30 moves
# each, client ids, retried until answered) while one fault strikes
# after a number of acks that moves from cycle to cycle:
#
#   0  east killed -9 and started again
#   1  a NATS node killed -9, started again 1.5 s later
#   2  west killed -9 and started again
#   3  the replica killed -9 and started again
#   4  a NATS node frozen (SIGSTOP) for 4 s
#   5  west's machine lost: killed -9, its data directory deleted,
#      restored from the stream (`arbiter restore --prefix W.`), started
#   6  the replica's machine lost: killed -9, its data deleted, started
#      again on nothing (it reads the whole stream)
#   7  a NATS node stopped cleanly and started again (a rolling restart)
#   8  the stream's leader killed -9, started again 1.5 s later
#   9  the quorum lost: two NATS nodes killed -9, started again 3 s later
#
# (the node is n1, n2, n3 in turn; with two, the next one too).  After
# each cycle: every move was answered; each recorder and the replica hold
# every ack at its seq with its hash; the replica's events and state
# equal the primary's for one match of each; no daemon that was not
# killed has died.  At the end, after each recorder's anti-entropy pass
# (what it repaired is printed: the stream losing messages is what the
# pass is for), the stream holds each event exactly once.
#
# usage: sh tests/soak/cluster.sh [CYCLES]   (default 20: two of each
# fault); ports: ARB_NATS_PORT_BASE (default 17700).  Prints
# "cluster soak: N passed, N failed" and exits non-zero on a failure.
CYCLES=${1:-20}
BUILD=${BUILD:-build}
. tests/common.sh
NATS_DIR=$T/nats
. tests/cluster/nats.sh
nats_test_up "cluster soak" 3 17700
. tests/cluster/recorders.sh

start_east() { REPL_EXTRA= start_replicating east E.; }
start_west() { REPL_EXTRA="mode = sync" start_replicating west W.; }
start_east
start_west
start_replica rep

# alive NAME...: the daemons among NAME that are not running.
alive() {
    for _d in "$@"; do
        eval "_p=\$pid_$_d"
        kill -0 "$_p" 2>/dev/null || printf '%s ' "$_d"
    done
}

# After a refused restore west has no store to go on from (started on
# none, it refuses every write the stream is ahead of, and its
# scorekeeper would try for ever): the soak stops, saying so.
stop_unrestored() {
    kill "$sk_east" "$sk_west" 2>/dev/null
    echo "cluster soak: stopped at cycle $c: west cannot go on unrestored"
    echo "cluster soak: $pass passed, $fail failed"
    exit 1
}

# fault F NODE: strikes fault F (above) at NATS node NODE.
fault() {
    case $1 in
    0) kill -9 "$pid_east"; wait "$pid_east" 2>/dev/null; start_east ;;
    1) nats_kill "$NATS_DIR" "$2"; sleep 1.5; nats_restart "$NATS_DIR" "$2" ;;
    2) kill -9 "$pid_west"; wait "$pid_west" 2>/dev/null; start_west ;;
    3) kill -9 "$pid_rep"; wait "$pid_rep" 2>/dev/null; start_replica rep ;;
    4) _p=$(nats_pid "$NATS_DIR" "$2"); kill -STOP "$_p"; sleep 4
       kill -CONT "$_p" ;;
    5) kill -9 "$pid_west"; wait "$pid_west" 2>/dev/null
       rm -rf "$T/west"
       _out=$($A restore --nats "$URLS" --data "$T/west" --prefix W. 2>&1) \
           || { check "cycle $c: restore of west" 0 1
                printf '%s\n' "$_out" | tail -n 3 | sed 's/^/why: /'
                stop_unrestored; }
       start_west ;;
    6) kill -9 "$pid_rep"; wait "$pid_rep" 2>/dev/null
       rm -rf "$T/rep"; start_replica rep ;;
    7) nats_stop "$NATS_DIR" "$2"; nats_restart "$NATS_DIR" "$2" ;;
    8) _l=$("$BUILD"/tests/nats_op "$URLS" show ARBITER leader) || _l=n$2
       name="$name (${_l})"
       fault 1 "${_l#n}" ;;
    9) _n2=$(($2 % 3 + 1))
       nats_kill "$NATS_DIR" "$2"; nats_kill "$NATS_DIR" $_n2; sleep 3
       nats_restart "$NATS_DIR" "$2"; nats_restart "$NATS_DIR" $_n2 ;;
    esac
}

names="east killed -9|NATS node killed -9|west (sync) killed -9"
names="$names|replica killed -9|NATS node frozen 4 s|west's machine lost"
names="$names|replica's machine lost|NATS node restarted"
names="$names|the stream's leader killed -9|NATS quorum lost"
t0=$(date +%s)
c=1
while [ $c -le "$CYCLES" ]; do
    f=$(((c - 1) % 10))
    node=$((((c - 1) / 10) % 3 + 1))
    name=$(printf '%s\n' "$names" | cut -d'|' -f$((f + 1)))
    case $f in
    1|4|7) name="$name (n$node)" ;;
    9) name="$name (n$node, n$((node % 3 + 1)))" ;;
    esac
    at=$((5 + (c * 37) % 120))
    fail0=$fail
    rm -f "$T/acks.east" "$T/acks.west"
    scorekeepers east:E.c$c- west:W.c$c-
    case $f in 2|5) wait_acks west $at ;; *) wait_acks east $at ;; esac
    fault $f $node
    wait "$sk_east" "$sk_west"
    check "cycle $c: every move answered" "" \
        "$(cat "$T/sk.east" "$T/sk.west")"
    check "cycle $c: every move acked" "150 150" \
        "$(wc -l < "$T/acks.east") $(wc -l < "$T/acks.west")"
    check "cycle $c: no daemon died" "" "$(alive east west rep)"
    for m in 1 2 3 4 5; do
        caught_up "E.c$c-$m" east events
        caught_up "W.c$c-$m" west events
    done
    check "cycle $c: east holds its acks" "" "$(held_acks east E.c$c- east)"
    check "cycle $c: west holds its acks" "" "$(held_acks west W.c$c- west)"
    check "cycle $c: the replica holds east's acks" "" \
        "$(held_acks rep E.c$c- east)"
    check "cycle $c: the replica holds west's acks" "" \
        "$(held_acks rep W.c$c- west)"
    same_as_primary "E.c$c-$((c % 5 + 1)):east" "W.c$c-$((c % 5 + 1)):west"
    if [ $fail -eq $fail0 ]; then r=ok; else r=FAILED; fi
    printf 'cycle %d/%d: %s after %d acks: %s (%d s)\n' "$c" "$CYCLES" \
        "$name" "$at" "$r" $(($(date +%s) - t0))
    c=$((c + 1))
done

# Exactly once: after each recorder's full anti-entropy pass, the stream
# holds as many messages as the recorders hold events (31 per match: the
# open and 30 moves).
for d in east west; do
    out=$(on "$d" replicate --check --timeout 120 2>&1)
    check "$d: replicate --check ran" 0 $?
    printf '%s: %s\n' "$d" "$(printf '%s\n' "$out" | tail -n 1)"
done
want=$((CYCLES * 2 * 5 * 31))
nats_wait_msgs "$NATS_DIR" 1 $want
check "the stream holds each event once" $want "$(nats_msgs "$NATS_DIR" 1)"
check "the replica stopped no match" "" \
    "$(grep replica_stopped_match "$T/rep.log")"
check "no daemon died" "" "$(alive east west rep)"

if [ $fail -ne 0 ]; then
    for d in east west rep; do
        tail -n 12 "$T/$d.log" 2>/dev/null | sed "s/^/why: $d.log: /"
    done
fi
echo "cluster soak: $CYCLES cycles in $(($(date +%s) - t0)) s"
echo "cluster soak: $pass passed, $fail failed"
[ $fail -eq 0 ]
