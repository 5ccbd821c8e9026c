/*
 * bench_lag.c - replication lag as a reader of the stream sees it (run by
 * cluster.bench.sh while bench_load writes).
 *
 * Subscribes to every event subject of the arbiter layout (proto/stream.h)
 * for S seconds and, per message, takes the time it arrived minus the
 * event's own time (stamped by the daemon when it validated the append,
 * just before the commit): commit + publish + PubAck round + delivery,
 * i.e. how old an acknowledged event is when a far reader can see it.
 * Prints "lag: N events, p50 X ms, p99 Y ms, max Z ms".  Exit 1 when no
 * server answers.
 *
 * With --dump FILE the lags are also written to FILE, one per line in
 * the order the events arrived: a lag that builds up over the run (a
 * reader or writer behind) looks different there from scattered spikes.
 *
 * usage: bench_lag --urls nats://H:P[,..] --secs S [--dump FILE]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <nats/nats.h>

#include "core/codec.h"
#include "core/event.h"
#include "proto/stream.h"
#include "tests/bench/bench.h"

static int64_t *lag;
static size_t   nlag, caplag;
static int      bad;

static int64_t
now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
on_msg(natsConnection *nc, natsSubscription *sub, natsMsg *msg, void *ud)
{
    arb_event_t ev;
    int64_t     t = now_ms();

    (void)nc, (void)sub, (void)ud;
    if (arb_event_decode(&ev, natsMsg_GetData(msg),
                         (size_t)natsMsg_GetDataLength(msg), NULL) == 0) {
        bench_sample_add(&lag, &nlag, &caplag, t - ev.time_ms);
        arb_event_clear(&ev);
    } else {
        bad++;
    }
    natsMsg_Destroy(msg);
}

int
main(int argc, char **argv)
{
    natsConnection   *nc = NULL;
    natsSubscription *sub = NULL;
    const char       *urls = NULL, *dump = NULL;
    double            secs = 3;
    int               i;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--urls") && i + 1 < argc)
            urls = argv[++i];
        else if (!strcmp(argv[i], "--secs") && i + 1 < argc)
            secs = atof(argv[++i]);
        else if (!strcmp(argv[i], "--dump") && i + 1 < argc)
            dump = argv[++i];
        else {
            fprintf(stderr, "usage: bench_lag --urls URLS --secs S "
                    "[--dump FILE]\n");
            return 2;
        }
    }
    if (urls == NULL || natsConnection_ConnectTo(&nc, urls) != NATS_OK
        || natsConnection_Subscribe(&sub, nc, ARB_STREAM_EV_PREFIX ">",
                                    on_msg, NULL) != NATS_OK) {
        fprintf(stderr, "bench_lag: cannot subscribe at %s\n",
                urls ? urls : "(no --urls)");
        return 1;
    }
    natsSubscription_SetPendingLimits(sub, -1, -1);
    usleep((useconds_t)(secs * 1e6));
    natsSubscription_Unsubscribe(sub);
    natsSubscription_Destroy(sub);
    natsConnection_Destroy(nc);
    nats_Close();
    if (nlag == 0) {
        printf("lag: 0 events\n");
        return 0;
    }
    if (dump != NULL) {
        FILE  *f = fopen(dump, "w");
        size_t k;

        if (f == NULL) {
            fprintf(stderr, "bench_lag: cannot write %s\n", dump);
            return 1;
        }
        for (k = 0; k < nlag; k++)
            fprintf(f, "%lld\n", (long long)lag[k]);
        if (fclose(f) != 0) {
            fprintf(stderr, "bench_lag: cannot write %s\n", dump);
            return 1;
        }
    }
    qsort(lag, nlag, sizeof(*lag), bench_cmp_i64);
    printf("lag: %zu events, p50 %lld ms, p99 %lld ms, max %lld ms%s\n",
           nlag, (long long)lag[nlag / 2], (long long)lag[nlag * 99 / 100],
           (long long)lag[nlag - 1], bad ? " (some undecodable)" : "");
    free(lag);
    return 0;
}
