# A JetStream cluster of real nats-server processes on loopback, for the
# replication tests.  Sourced by shell tests, or run as a command by C tests
# and make targets:
#
#   sh tests/cluster/nats.sh up DIR N [BASE]   start N nodes, wait for JetStream
#   sh tests/cluster/nats.sh stop|kill|start DIR I   node I (1..N): SIGTERM and
#                                              wait / kill -9 / start again
#   sh tests/cluster/nats.sh urls DIR          nats://127.0.0.1:P,... of all nodes
#   sh tests/cluster/nats.sh msgs DIR I        messages held by node I
#   sh tests/cluster/nats.sh down DIR          stop every node (idempotent)
#
# All state lives under DIR (node I in DIR/nI: config, store, log, pid), so a
# command run later, from another process, finds the cluster again.  Ports
# come from BASE (else $ARB_NATS_PORT_BASE, else 16000): node I listens for
# clients on BASE+I, for routes on BASE+20+I and for monitoring on BASE+40+I;
# give each test its own BASE.  Sourcing scripts call nats_up and get
# nats_down run at exit, before their own cleanup, even when a check fails.

nats_node_conf() {  # DIR N BASE I
    _d=$1; _n=$2; _b=$3; _i=$4
    mkdir -p "$_d/n$_i/store"
    {
        echo "server_name: n$_i"
        echo "listen: 127.0.0.1:$((_b + _i))"
        echo "http: 127.0.0.1:$((_b + 40 + _i))"
        echo "jetstream { store_dir: \"$_d/n$_i/store\" }"
        if [ "$_n" -gt 1 ]; then
            echo "cluster {"
            echo "  name: arbiter-test"
            echo "  listen: 127.0.0.1:$((_b + 20 + _i))"
            echo '  routes: ['
            _j=1
            while [ $_j -le "$_n" ]; do
                [ $_j -ne "$_i" ] && echo "    nats-route://127.0.0.1:$((_b + 20 + _j))"
                _j=$((_j + 1))
            done
            echo '  ]'
            echo "}"
        fi
    } > "$_d/n$_i/nats.conf"
    echo "$((_b + 40 + _i))" > "$_d/n$_i/monitor"
    echo "$((_b + _i))" > "$_d/n$_i/port"
}

nats_start() {  # DIR I
    nats-server -c "$1/n$2/nats.conf" >> "$1/n$2/log" 2>&1 < /dev/null &
    echo $! > "$1/n$2/pid"
}

# Waits until node I answers the JetStream health check (meta leader known,
# its streams current): up to 60 s.  (20 s until 2026-12-05: a node killed
# -9 while leading a stream of 70,000 messages under load, started again
# on a loaded CI machine, was not current by then; test_replicate's
# cluster case failed on it once, and everything after it passed.)
nats_wait() {  # DIR I
    _m=$(cat "$1/n$2/monitor")
    _k=0
    while [ $_k -lt 600 ]; do
        if ! kill -0 "$(nats_pid "$1" "$2")" 2>/dev/null; then
            echo "nats.sh: node n$2 of $1 exited (log: $1/n$2/log)" >&2
            return 1
        fi
        if curl -fs "http://127.0.0.1:$_m/healthz" 2>/dev/null | grep -q ok; then
            return 0
        fi
        sleep 0.1; _k=$((_k + 1))
    done
    echo "nats.sh: node n$2 of $1 not ready after 60 s (log: $1/n$2/log)" >&2
    return 1
}

nats_up() {  # DIR N [BASE]
    _d=$1; _n=$2; _b=${3:-${ARB_NATS_PORT_BASE:-16000}}
    mkdir -p "$_d"
    echo "$_n" > "$_d/nodes"
    _i=1
    while [ $_i -le "$_n" ]; do
        nats_node_conf "$_d" "$_n" "$_b" $_i
        nats_start "$_d" $_i
        _i=$((_i + 1))
    done
    _i=1
    while [ $_i -le "$_n" ]; do
        nats_wait "$_d" $_i || return 1
        _i=$((_i + 1))
    done
}

nats_pid() { [ -f "$1/n$2/pid" ] && cat "$1/n$2/pid"; }

nats_stop() {  # DIR I: SIGTERM, then wait up to 10 s for the exit
    _p=$(nats_pid "$1" "$2") || return 0
    kill "$_p" 2>/dev/null
    _k=0
    while kill -0 "$_p" 2>/dev/null && [ $_k -lt 100 ]; do sleep 0.1; _k=$((_k + 1)); done
    kill -9 "$_p" 2>/dev/null
    rm -f "$1/n$2/pid"
}

nats_kill() {  # DIR I: kill -9, as a machine loss
    _p=$(nats_pid "$1" "$2") || return 0
    kill -9 "$_p" 2>/dev/null
    _k=0
    while kill -0 "$_p" 2>/dev/null && [ $_k -lt 100 ]; do sleep 0.1; _k=$((_k + 1)); done
    rm -f "$1/n$2/pid"
}

nats_restart() {  # DIR I: start a stopped node and wait for it
    nats_start "$1" "$2"
    nats_wait "$1" "$2"
}

nats_urls() {  # DIR
    _n=$(cat "$1/nodes"); _i=1; _u=
    while [ $_i -le "$_n" ]; do
        _u="$_u${_u:+,}nats://127.0.0.1:$(cat "$1/n$_i/port")"
        _i=$((_i + 1))
    done
    echo "$_u"
}

# Messages held by node I's streams (its monitoring port), and waiting
# until they are at least N: for tests that must know the publisher caught
# up.
nats_msgs() {  # DIR I
    curl -fs "http://127.0.0.1:$(cat "$1/n$2/monitor")/jsz" 2>/dev/null |
        sed -n 's/^ *"messages": *\([0-9]*\).*/\1/p' | head -1
}

nats_wait_msgs() {  # DIR I N: up to 10 s
    _k=0
    while [ $_k -lt 100 ]; do
        [ "$(nats_msgs "$1" "$2")" -ge "$3" ] 2>/dev/null && return 0
        sleep 0.1; _k=$((_k + 1))
    done
    echo "nats.sh: node n$2 holds $(nats_msgs "$1" "$2") messages, not $3" >&2
    return 1
}

# The prologue of a test script: NODES nodes at $ARB_NATS_PORT_BASE (else
# BASE) under $NATS_DIR, $URLS set; when nats-server is missing or the
# cluster does not come up, prints "NAME: 0 passed, 1 failed" and exits.
nats_test_up() {  # NAME NODES BASE
    if ! command -v nats-server > /dev/null \
        || ! nats_up "$NATS_DIR" "$2" "${ARB_NATS_PORT_BASE:-$3}"; then
        echo "$1: no nats-server cluster: 0 passed, 1 failed"
        exit 1
    fi
    URLS=$(nats_urls "$NATS_DIR")
}

# The prologue of a benchmark script: the same, except that a benchmark
# never fails on what this machine lacks: without $BUILD/tests/bench_load,
# bin/arbiterd or nats-server it says it skipped and exits 0.
nats_bench_up() {  # NAME NODES BASE
    if [ ! -x "${BUILD:-build}/tests/bench_load" ] || [ ! -x bin/arbiterd ] \
        || ! command -v nats-server > /dev/null; then
        echo "$1: ${BUILD:-build}/tests/bench_load, bin/arbiterd or" \
            "nats-server missing; skipped"
        exit 0
    fi
    nats_up "$NATS_DIR" "$2" "${ARB_NATS_PORT_BASE:-$3}" || exit 1
    URLS=$(nats_urls "$NATS_DIR")
}

nats_down() {  # DIR
    [ -f "$1/nodes" ] || return 0
    _n=$(cat "$1/nodes"); _i=1
    while [ $_i -le "$_n" ]; do nats_stop "$1" $_i; _i=$((_i + 1)); done
}

case "${0##*/}" in
nats.sh)
    cmd=$1; shift
    case "$cmd" in
    up)      nats_up "$@" ;;
    stop)    nats_stop "$@" ;;
    kill)    nats_kill "$@" ;;
    start)   nats_restart "$@" ;;
    urls)    nats_urls "$@" ;;
    msgs)    nats_msgs "$@" ;;
    down)    nats_down "$@" ;;
    *) echo "usage: nats.sh up DIR N [BASE] | stop|kill|start DIR I | urls DIR | down DIR" >&2
       exit 2 ;;
    esac
    ;;
*)
    # Sourced: stop the cluster at exit after the script's own cleanup.
    NATS_DIR=${NATS_DIR:-${T:?source tests/common.sh first}/nats}
    # The nodes first: the script's cleanup waits for its children.
    trap 'nats_down "$NATS_DIR"; cleanup 2>/dev/null' EXIT
    ;;
esac
