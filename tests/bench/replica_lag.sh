#!/bin/sh
# Replica lag and restore speed on a 3-node JetStream cluster on loopback:
# a recorder replicating in async mode takes LAG_SECS (default 3) of load
# from bench_load at LAG_TABLES tables (default 16); a read replica
# follows the stream and an all-matches subscription on it stamps each
# event on arrival: lag = arrival - the event's time (stamped by the
# primary just before its commit), so it covers commit, publish, the
# stream and the replica's checks and commit.  Then `arbiter restore`
# rebuilds the whole stream and prints its events/s.  Prints
# "replica lag at T tables: N events, p50 X ms, p99 Y ms, max Z ms".
# With LAG_RATE=N the load is paced at N moves/s over all the tables
# (bench_load --rate): an offered load below the machine's ceiling, where
# flat out the lag is mostly the queues of two saturated cores (the three
# nodes, the recorder, the replica and the client share them); the line
# then says "paced at N moves/s".
# LAG_EXTRA adds lines to the recorder's [replicate] section (e.g.
# "max_lag = 200": the stream then sets the recorder's pace; the line
# then says "with max_lag = 200").
# Never fails on a target.  Ports: ARB_NATS_PORT_BASE (default 16700).
BUILD=${BUILD:-build}
B="$BUILD/tests/bench_load"
. tests/common.sh
NATS_DIR=$T/nats
. tests/cluster/nats.sh
nats_bench_up replica_lag 3 16700
. tests/cluster/recorders.sh
TABLES=${LAG_TABLES:-16}

bench_daemon "${LAG_EXTRA:-}"

start_replica rep
i=0; while [ ! -f "$T/rep/tokens" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
$A watch --server "unix:$T/rep.sock" --token "$(tok rep)" --json 2> "$T/watch.err" |
    perl -MTime::HiRes=time -ne '
        BEGIN { $| = 1 }
        print int(time() * 1000 - $1), "\n" if /"time_ms":(\d+)/;' > "$T/lags" &
pids="$pids $!"
sleep 0.3
LOAD_RATE=${LAG_RATE:-} "$B" --daemon "$T/d.sh" --dir "$T" --secs "${LAG_SECS:-3}" --tables "$TABLES" |
    sed -n '2,3p'
# The recorder is stopped at the end of its run: what it published has
# reached the replica once the count stops growing.
prev=-1; n=0
while [ "$n" != "$prev" ]; do prev=$n; sleep 1; n=$(wc -l < "$T/lags"); done
paced=${LAG_RATE:+, paced at $LAG_RATE moves/s}${LAG_EXTRA:+, with $LAG_EXTRA}
sort -n "$T/lags" | awk -v t="$TABLES" -v paced="$paced" '{ a[NR] = $1 }
    END { if (NR == 0) { print "replica lag: no events seen"; exit }
          printf "replica lag at %d tables%s: %d events, p50 %d ms, p99 %d ms, max %d ms\n",
                 t, paced, NR, a[int((NR + 1) * 0.50)], a[int((NR - 1) * 0.99) + 1], a[NR] }'
$A restore --nats "$URLS" --data "$T/restored" | head -1
