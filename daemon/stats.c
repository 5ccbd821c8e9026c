/*
 * stats.c - the daemon's figures, for the `stats` op, GET /api/stats and
 * GET /metrics.
 *
 * DESIGN: every figure is counted once, here or in arb_counters_t, and the
 * three reports read the same arb_stats_t, so a scrape and a `stats`
 * taken between two events always agree.  Histograms are integers
 * (nanoseconds, events); /metrics turns nanoseconds into seconds when it
 * prints them.
 */
#include <string.h>
#include <time.h>

#include "daemon/server.h"

/* 0.5 ms .. 5 s: an ack is one fsync plus the wait for its batch. */
const uint64_t arb_ack_bounds_ns[ARB_ACK_BUCKETS] = {
    500000, 1000000, 2000000, 5000000, 10000000, 20000000, 50000000,
    100000000, 200000000, 500000000, 1000000000, 2000000000, 5000000000u,
};
/* 1 .. batch_max's default: how well group commit shares an fsync. */
const uint64_t arb_batch_bounds[ARB_BATCH_BUCKETS] = {
    1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192,
};

int
arb_stats_collect(arb_server_t *srv, arb_stats_t *out, arb_buf_t *why)
{
    arb_conn_t *c;
    arb_sub_t  *s;
    int         rc;

    memset(out, 0, sizeof(*out));
    /* No figures rather than made-up ones. */
    if ((rc = arb_store_stats(srv->store, &out->st, why)) != 0)
        return rc;
    for (c = srv->conns; c != NULL; c = c->next) {
        out->connections++;
        for (s = c->subs; s != NULL; s = s->next_in_conn)
            if (!s->dead)
                out->subscribers++;
    }
    out->queued = srv->nqueue + srv->nbatch;
    arb_http_count(srv, &out->http_connections, &out->streams);
    out->subscribers += out->streams;
    out->n = &srv->n;
    return 0;
}

void
arb_stats_figures(const arb_stats_t *x, arb_stat_fig_t out[ARB_STAT_FIGS])
{
    /* "log_pos": the store's global commit order, as the wire names it. */
    const arb_stat_fig_t f[ARB_STAT_FIGS] = {
        { "matches",          x->st.matches },
        { "events",           x->st.events },
        { "log_pos",          x->st.log_pos },
        { "map_size",         x->st.map_size },
        { "map_used",         x->st.map_used },
        { "map_max",          x->st.map_max },
        { "connections",      x->connections },
        { "appends",          x->n->appends },
        { "rejected",         x->n->rejected },
        { "commits",          x->n->commits },
        { "events_committed", x->n->events_committed },
        { "queued",           x->queued },
        { "subscribers",      x->subscribers },
        { "subscribers_cut",  x->n->subs_cut + x->n->streams_cut },
        { "http_connections", x->http_connections },
        { "acks",             x->n->acks },
        { "replays",          x->n->replays },
        { "replayed_events",  x->n->replayed_events },
    };

    memcpy(out, f, sizeof(f));
}

uint64_t
arb_thread_cpu_ns(void)
{
    struct timespec ts;

    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void
arb_stats_ack(arb_server_t *srv, const arb_pending_t *p)
{
    uint64_t ns = uv_hrtime() - p->t0;
    size_t   i;

    srv->n.acks++;
    srv->n.ack_ns += ns;
    for (i = 0; i < ARB_ACK_BUCKETS; i++)
        if (ns <= arb_ack_bounds_ns[i])
            srv->n.ack_le[i]++;
}

void
arb_stats_commit(arb_server_t *srv, size_t events)
{
    size_t i;

    srv->n.commits++;
    srv->n.events_committed += events;
    for (i = 0; i < ARB_BATCH_BUCKETS; i++)
        if (events <= arb_batch_bounds[i])
            srv->n.batch_le[i]++;
}

void
arb_stats_reject(arb_server_t *srv, int rc)
{
    srv->n.rejected++;
    srv->n.rejects[rc < 0 && rc >= ARB_E_LAST ? -rc : 0]++;
}
