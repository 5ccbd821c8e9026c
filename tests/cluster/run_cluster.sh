#!/bin/sh
# make run-cluster: a 3-node JetStream cluster on loopback, two recorders
# replicating to it (venue-a owns match ids A-..., venue-b owns B-...), and
# a read replica following the whole stream when this arbiterd has
# --replica-of.  Everything lives in ./var/cluster; Ctrl-C stops it all.
#   ARB_NATS_PORT_BASE=14500 (nodes on BASE+1..3)
D=${ARB_CLUSTER_DIR:-./var/cluster}
BASE=${ARB_NATS_PORT_BASE:-14500}
mkdir -p "$D"
D=$(cd "$D" && pwd)
NATS_DIR=$D/nats
pids=
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null; done
    for p in $pids; do wait "$p" 2>/dev/null; done
    nats_down "$NATS_DIR"
}
T=$D
. tests/cluster/nats.sh
trap 'exit 0' INT TERM
nats_up "$NATS_DIR" 3 "$BASE" || exit 1
URLS=$(nats_urls "$NATS_DIR")
for v in a b; do
    P=$(echo $v | tr ab AB)
    mkdir -p "$D/$v"
    other=$([ $v = a ] && echo b || echo a)
    O=$(echo $other | tr ab AB)
    cat > "$D/$v.conf" <<CONF
data = $D/$v
listen = unix:$D/$v/arbiterd.sock
[replicate]
urls = $URLS
recorder = venue-$v
owns = $P-
peer = venue-$other $O-
CONF
    bin/arbiterd --config "$D/$v.conf" 2>> "$D/$v.log" &
    pids="$pids $!"
done
replica=
if bin/arbiterd --help 2>&1 | grep -q -- --replica-of; then
    mkdir -p "$D/replica"
    bin/arbiterd --replica-of "$URLS" --data "$D/replica" \
        --listen "unix:$D/replica/arbiterd.sock" 2>> "$D/replica.log" &
    pids="$pids $!"
    replica=1
fi
i=0
while [ ! -f "$D/b/tokens" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.5
tok() { awk '$4 == "arbiter" { print $3 }' "$1/tokens"; }
cat <<MSG

NATS JetStream cluster: $URLS (stream ARBITER)
Recorder venue-a (opens A-...):
  export ARBITER_SERVER=unix:$D/a/arbiterd.sock ARBITER_TOKEN=$(tok "$D/a")
  bin/arbiter open --match A-1 --game yahchain --players ann,bob --option mode=3
Recorder venue-b (opens B-...):
  export ARBITER_SERVER=unix:$D/b/arbiterd.sock ARBITER_TOKEN=$(tok "$D/b")
MSG
if [ -n "$replica" ]; then
    echo "Read replica of both (reads and subscriptions only):"
    echo "  export ARBITER_SERVER=unix:$D/replica/arbiterd.sock ARBITER_TOKEN=<a token from $D/replica/tokens>"
fi
echo "Logs: $D/*.log and $NATS_DIR/n*/log.  Ctrl-C stops everything."
wait
