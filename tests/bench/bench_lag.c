/*
 * bench_lag.c - replication lag as a reader of the stream sees it (run by
 * tests/bench/cluster.sh while bench_load writes).
 *
 * Subscribes to every event subject of the arbiter layout (proto/stream.h)
 * and, per message, takes the time it arrived minus the event's own time
 * (stamped by the daemon when it validated the append, just before the
 * commit): commit + publish + PubAck round + delivery, i.e. how old an
 * acknowledged event is when a far reader can see it.
 *
 * It reads for at least S seconds, then on until no event has come for
 * --quiet MS (default 2000; at most 120 s more): a stream that fell
 * behind the recorder delivers its backlog after the load has ended, and
 * a reader that stopped at a fixed time would leave out exactly the
 * oldest events.  (Until 2026-12-04 it did, and printed a p99 of 47 ms
 * for a run whose events at 256 tables reached the stream up to 1.7 s
 * late.)
 *
 * Prints "lag: N events, p50 X ms, p99 Y ms, max Z ms" over all events,
 * then the same line per table count for bench_load's matches (their ids
 * carry "-T<tables>-"): "lag at T tables: ...", and the time the last
 * event came after the first.  Exit 1 when no server answers.
 *
 * With --dump FILE the lags are also written to FILE, one per line in
 * the order the events arrived: a lag that builds up over the run (a
 * reader or writer behind) looks different there from scattered spikes.
 *
 * usage: bench_lag --urls nats://H:P[,..] --secs S [--quiet MS]
 *                  [--dump FILE]
 */
#include <stdatomic.h>
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

#define MAX_WAIT_MS 120000      /* past --secs, waiting for the backlog */
#define NBUCKET     8           /* table counts told apart */

typedef struct {
    unsigned tables;            /* 0: not one of bench_load's */
    int64_t *v;
    size_t   n, cap;
} samples_t;

/* Written by libnats' delivery thread only; read once it has stopped. */
static samples_t all, bucket[NBUCKET];
static size_t    nbucket;
static int       bad;
static int64_t   first_ms;
static _Atomic int64_t last_ms;  /* arrival of the latest event */

static int64_t
now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The table count in a bench_load match id ("L<pid>-R<run>-T<n>-..."),
 * or 0. */
static unsigned
tables_of(const char *id)
{
    const char   *p = id != NULL ? strstr(id, "-T") : NULL;
    unsigned long n;
    char         *end;

    if (p == NULL)
        return 0;
    n = strtoul(p + 2, &end, 10);
    return end != p + 2 && *end == '-' && n < 100000 ? (unsigned)n : 0;
}

static samples_t *
bucket_of(unsigned tables)
{
    size_t i;

    for (i = 0; i < nbucket; i++)
        if (bucket[i].tables == tables)
            return &bucket[i];
    if (nbucket == NBUCKET)
        return NULL;
    bucket[nbucket].tables = tables;
    return &bucket[nbucket++];
}

static void
on_msg(natsConnection *nc, natsSubscription *sub, natsMsg *msg, void *ud)
{
    arb_event_t ev;
    samples_t  *b;
    const char *id = NULL;
    int64_t     t = now_ms();

    (void)nc, (void)sub, (void)ud;
    if (arb_event_decode(&ev, natsMsg_GetData(msg),
                         (size_t)natsMsg_GetDataLength(msg), NULL) == 0) {
        if (all.n == 0)
            first_ms = t;
        bench_sample_add(&all.v, &all.n, &all.cap, t - ev.time_ms);
        (void)natsMsgHeader_Get(msg, ARB_STREAM_HDR_MATCH, &id);
        if ((b = bucket_of(tables_of(id))) != NULL)
            bench_sample_add(&b->v, &b->n, &b->cap, t - ev.time_ms);
        arb_event_clear(&ev);
        atomic_store(&last_ms, t);
    } else {
        bad++;
    }
    natsMsg_Destroy(msg);
}

/* Sorts s and prints its line, headed by what. */
static void
print_line(const char *what, samples_t *s)
{
    qsort(s->v, s->n, sizeof(*s->v), bench_cmp_i64);
    printf("%s: %zu events, p50 %lld ms, p99 %lld ms, max %lld ms\n",
           what, s->n, (long long)s->v[s->n / 2],
           (long long)s->v[s->n * 99 / 100], (long long)s->v[s->n - 1]);
}

static int
dump_to(const char *path)
{
    FILE  *f = fopen(path, "w");
    size_t k;

    if (f == NULL)
        goto fail;
    for (k = 0; k < all.n; k++)
        fprintf(f, "%lld\n", (long long)all.v[k]);
    if (fclose(f) != 0)
        goto fail;
    return 0;
fail:
    fprintf(stderr, "bench_lag: cannot write %s\n", path);
    return -1;
}

int
main(int argc, char **argv)
{
    natsConnection   *nc = NULL;
    natsSubscription *sub = NULL;
    const char       *urls = NULL, *dump = NULL;
    char              what[64];
    double            secs = 3;
    int64_t           quiet = 2000, start, now;
    size_t            i;
    int               k;

    for (k = 1; k < argc; k++) {
        if (!strcmp(argv[k], "--urls") && k + 1 < argc)
            urls = argv[++k];
        else if (!strcmp(argv[k], "--secs") && k + 1 < argc)
            secs = atof(argv[++k]);
        else if (!strcmp(argv[k], "--quiet") && k + 1 < argc)
            quiet = atoll(argv[++k]);
        else if (!strcmp(argv[k], "--dump") && k + 1 < argc)
            dump = argv[++k];
        else {
            fprintf(stderr, "usage: bench_lag --urls URLS --secs S "
                    "[--quiet MS] [--dump FILE]\n");
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
    start = now_ms();
    usleep((useconds_t)(secs * 1e6));
    /* Then on while the backlog still comes. */
    for (now = now_ms(); now - start < (int64_t)(secs * 1000) + MAX_WAIT_MS;
         now = now_ms()) {
        int64_t last = atomic_load(&last_ms);

        if (quiet <= 0 || now - (last > 0 ? last : start) >= quiet)
            break;
        usleep(100000);
    }
    natsSubscription_Unsubscribe(sub);
    natsSubscription_Destroy(sub);
    natsConnection_Destroy(nc);
    nats_Close();
    if (all.n == 0) {
        printf("lag: 0 events\n");
        return 0;
    }
    if (dump != NULL && dump_to(dump) != 0)
        return 1;
    print_line(bad ? "lag (some undecodable)" : "lag", &all);
    for (i = 0; i < nbucket; i++) {
        if (bucket[i].tables == 0)
            continue;
        snprintf(what, sizeof(what), "lag at %u tables", bucket[i].tables);
        print_line(what, &bucket[i]);
    }
    printf("lag: the last event came %.1f s after the first\n",
           (double)(atomic_load(&last_ms) - first_ms) / 1000);
    for (i = 0; i < nbucket; i++)
        free(bucket[i].v);
    free(all.v);
    return 0;
}
