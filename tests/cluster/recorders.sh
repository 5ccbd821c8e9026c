# Recorders on one NATS stream, for the replication tests: sourced after
# tests/common.sh and tests/cluster/nats.sh, with $URLS set to the
# cluster's URLs.  Every daemon started here is in $pids and stopped by
# the cleanup, before the nodes.
pids=
cleanup() { for p in $pids; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$T"; }

# wait_sock PATH: until the daemon's socket is there (10 s).
wait_sock() {
    i=0
    while [ ! -S "$1" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
}

# start_replicating NAME PREFIX [KEYFILE]: a recorder on $T/NAME
# replicating to the stream as recorder NAME, owning the ids that start
# with PREFIX, sealing deal secrets under KEYFILE when given; its pid in
# pid_NAME.  $REPL_EXTRA, when set, adds its lines to [replicate];
# with $NO_VERIFY set it does not wait for the recorder's first look at
# the stream.
start_replicating() {
    cat > "$T/$1.conf" <<CONF
data = $T/$1
listen = unix:$T/$1.sock
[replicate]
urls = $URLS
recorder = $1
owns = $2
${3:+secret_key_file = $3}
${REPL_EXTRA:-}
CONF
    bin/arbiterd --config "$T/$1.conf" --log-level ${LOGLEVEL:-warn} 2>> "$T/$1.log" \
        < /dev/null > /dev/null &
    pids="$pids $!"
    eval "pid_$1=$!"
    wait_sock "$T/$1.sock"
    [ -n "${NO_VERIFY:-}" ] || wait_verified "$1"
}

# wait_verified NAME: until recorder NAME has compared its log with the
# stream (stats.replication.verified, 30 s).  Before that every write is
# answered `unverified`: an open sent at once on a loaded machine was
# refused, and every move after it answered "no match".
wait_verified() {
    i=0
    while [ $i -lt 300 ]; do
        on "$1" stats --json 2>/dev/null | grep -Eq '"verified": ?true' \
            && return 0
        sleep 0.1; i=$((i + 1))
    done
    echo "recorder $1 not verified after 30 s"
}

# start_replica NAME [CONFIG]: a read replica of the stream on $T/NAME
# (with the configuration file CONFIG too, when given; and the
# environment settings in $REP_ENV).
start_replica() {
    rm -f "$T/$1.sock"
    env ${REP_ENV:-} \
    bin/arbiterd ${2:+--config "$2"} --replica-of "$URLS" --data "$T/$1" \
        --listen "unix:$T/$1.sock" \
        --log-level ${LOGLEVEL:-warn} 2>> "$T/$1.log" < /dev/null > /dev/null &
    pids="$pids $!"
    eval "pid_$1=$!"
    wait_sock "$T/$1.sock"
}

# bench_daemon [LINES]: $T/d.sh, a daemon for bench_load --daemon (which
# gives --data and --listen) replicating to $URLS as recorder "bench",
# with LINES added to its [replicate] section.
bench_daemon() {
    printf '[replicate]\nurls = %s\nrecorder = bench\n%s\n' "$URLS" "${1:-}" \
        > "$T/c.conf"
    printf '#!/bin/sh\nexec %s/bin/arbiterd --config %s "$@"\n' "$PWD" \
        "$T/c.conf" > "$T/d.sh"
    chmod +x "$T/d.sh"
}

# caught_up MATCH PRIMARY [WHAT]: until the replica "rep" answers WHAT
# (state, else events) of MATCH as the primary does (20 s).
caught_up() {
    want=$(on "$2" "${3:-state}" --match "$1" --json)
    i=0
    while [ $i -lt 200 ]; do
        [ "$(on rep "${3:-state}" --match "$1" --json 2>&1)" = "$want" ] \
            && return 0
        sleep 0.1; i=$((i + 1))
    done
    echo "replica not caught up on $1"
}

# same_as_primary MATCH:PRIMARY...: checks that the replica "rep" holds
# each MATCH's events and state as its PRIMARY does (caught up first).
same_as_primary() {
    for _m in "$@"; do
        caught_up "${_m%%:*}" "${_m##*:}" events
        for _w in events state; do
            check "${_m%%:*}: replica's $_w = primary's" \
                "$(on "${_m##*:}" $_w --match "${_m%%:*}" --json)" \
                "$(on rep $_w --match "${_m%%:*}" --json)"
        done
    done
}

# scorekeeper NAME PREFIX: matches PREFIX1..5, moves dealt round-robin,
# 30 moves each; every answer "MATCH SEQ HASH" to $T/acks.NAME.  A move
# that got no answer (the recorder gone, or not yet verified after its
# restart) is sent again with its client id until it is answered.
scorekeeper() {
    for m in 1 2 3 4 5; do
        until on "$1" open --match "$2$m" --game yahchain \
                --players alice,bob --option mode=3 --cid "$2$m-0" \
                > "$T/open.$1" 2>&1 \
              || grep -q "exists" "$T/open.$1"; do
            sleep 0.1
        done
    done
    n=0
    for suit in S H D C U M W F L G; do
        for type in 2 3 4; do
            n=$((n + 1))
            if [ $((n % 2)) -eq 1 ]; then who=alice; else who=bob; fi
            for m in 1 2 3 4 5; do
                k=0
                until out=$(on "$1" move --match "$2$m" --cid "$2$m-$n" \
                            place $who "$type$suit" 2>&1); do
                    k=$((k + 1))
                    [ $k -gt 300 ] && { echo "$2$m move $n: $out"; break; }
                    sleep 0.1
                done
                printf '%s %s\n' "$2$m" "$out" \
                    | awk '{ print $1, $3, $5 }' >> "$T/acks.$1"
            done
        done
    done
}

# scorekeepers NAME:PREFIX...: a scorekeeper per recorder, in the
# background: its pid in sk_NAME, what it printed in $T/sk.NAME.
scorekeepers() {
    for _s in "$@"; do
        scorekeeper "${_s%%:*}" "${_s##*:}" > "$T/sk.${_s%%:*}" 2>&1 &
        eval "sk_${_s%%:*}=$!"
    done
}

# wait_acks NAME N: until scorekeeper NAME has N answers (20 s).
wait_acks() {
    i=0
    while [ "$(cat "$T/acks.$1" 2>/dev/null | wc -l)" -lt "$2" ] \
          && [ $i -lt 200 ]; do
        sleep 0.1; i=$((i + 1))
    done
}
# held_acks DAEMON|DIR PREFIX SCOREKEEPER: the first acks of scorekeeper
# SCOREKEEPER (matches PREFIX1..5) that the daemon, or the store in
# directory DIR, does not hold at their seq with their hash (all of them
# in $T/lacked).
seq_hash='s/^{"seq":\([0-9]*\),.*"hash":"\([0-9a-f]*\)".*/\1 \2/p'
held_acks() {  # DAEMON|DIR PREFIX SCOREKEEPER: its acks it lacks
    for m in 1 2 3 4 5; do
        if [ -d "$1" ]; then
            $A export --format jsonl --db "$1" --match "$2$m" 2>/dev/null \
                | sed 's/^{"match":"[^"]*",/{/'
        else
            on "$1" events --match "$2$m" --json 2>/dev/null
        fi | sed -n "$seq_hash" | sed "s/^/$2$m /"
    done > "$T/held"
    grep "^$2" "$T/acks.$3" | sort > "$T/want"
    sort "$T/held" | comm -23 "$T/want" - > "$T/lacked"
    head -3 "$T/lacked"
}

# rstat KEY: stats.replica.KEY of the replica "rep".
rstat() { on rep stats | awk -v n="replica.$1" '$1 == n { print $2 }'; }

# restored_same NAME DEALS MATCH...: `arbiter restore` of the stream's
# D. matches, with the replication key $T/repl.key, into $T/restored:
# exit 0, DEALS deal secrets, and every MATCH exported as recorder NAME
# holds it.  What the restore said is in $out.
restored_same() {
    _name=$1; _deals=$2; shift 2
    out=$($A restore --nats "$URLS" --data "$T/restored" --prefix D. \
          --key "$T/repl.key" 2>&1)
    check "restore: exit 0" 0 $?
    check "restore: $_deals deal secrets" 1 \
        "$(printf '%s\n' "$out" | grep -c " $_deals deal secrets, 0 dealt")"
    check "restore: every match = the recorder's" \
        "$(exported "$T/$_name" "$@")" "$(exported "$T/restored" "$@")"
}
# exported DIR MATCH...: the matches of store DIR, as a checksum.
exported() {
    _dir=$1; shift
    for _m in "$@"; do
        $A export --format jsonl --db "$_dir" --match "$_m" 2>&1
    done | cksum
}

# tok NAME: the arbiter token of the daemon on $T/NAME.
tok() { awk '$4 == "arbiter" { print $3 }' "$T/$1/tokens"; }

# on NAME CMD ARGS...: an arbiter command against daemon NAME.
on() { _on=$1; _cmd=$2; shift 2; $A "$_cmd" --server "unix:$T/$_on.sock" --token "$(tok "$_on")" "$@"; }

# play NAME MATCH MOVES [FROM]: opens a yahchain match on recorder NAME
# (unless FROM > 0) and records moves FROM+1..MOVES (at most 36).
play() {
    if [ "${4:-0}" -eq 0 ]; then
        on "$1" open --match "$2" --game yahchain --players alice,bob \
            --option mode=3 > /dev/null || echo "open $2 failed"
    fi
    n=0
    for suit in S H D C U M W F L G Y N; do
        for type in 2 3 4; do
            [ $n -ge "$3" ] && return
            n=$((n + 1))
            [ $n -le "${4:-0}" ] && continue
            if [ $((n % 2)) -eq 1 ]; then who=alice; else who=bob; fi
            on "$1" move --match "$2" place $who "$type$suit" > /dev/null \
                || echo "move $2 $n failed"
        done
    done
}
