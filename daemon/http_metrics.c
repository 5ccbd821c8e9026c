/*
 * http_metrics.c - GET /metrics in the Prometheus text exposition format
 * 0.0.4, named by its conventions: <app>_<what>_<unit>, counters end in
 * _total, latencies are _seconds histograms (docs/HTTP.md lists them).
 *
 * DESIGN: every figure comes from arb_stats_collect, the same as the
 * `stats` op's, so a scrape and `stats` agree.  Durations are counted in
 * integer nanoseconds and printed as decimal seconds without floating
 * point, so the text is exact.
 */
#include <inttypes.h>
#include <string.h>

#include "daemon/http.h"
#include "daemon/replica.h"
#include "daemon/replicate.h"

/* ns as seconds: "0.0005", "2", "1.25" */
static void
put_seconds(arb_buf_t *b, uint64_t ns)
{
    char     frac[16];
    int      n;

    arb_buf_printf(b, "%" PRIu64, ns / 1000000000u);
    if (ns % 1000000000u == 0)
        return;
    n = snprintf(frac, sizeof(frac), "%09" PRIu64, ns % 1000000000u);
    while (n > 0 && frac[n - 1] == '0')
        frac[--n] = '\0';
    arb_buf_printf(b, ".%s", frac);
}

static void
head(arb_buf_t *b, const char *name, const char *type, const char *help)
{
    arb_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void
one(arb_buf_t *b, const char *name, const char *type, const char *help,
    uint64_t v)
{
    head(b, name, type, help);
    arb_buf_printf(b, "%s %" PRIu64 "\n", name, v);
}

/* A gauge of ms shown as seconds. */
static void
one_seconds(arb_buf_t *b, const char *name, const char *help, uint64_t ms)
{
    head(b, name, "gauge", help);
    arb_buf_printf(b, "%s ", name);
    put_seconds(b, ms * 1000000u);
    arb_buf_putc(b, '\n');
}

void
arb_http_metrics(arb_http_req_t *q)
{
    arb_stats_t           x;
    const arb_counters_t *n;
    arb_buf_t             b = ARB_BUF_INIT;
    arb_repl_figures_t    rf;
    arb_replica_figures_t pf;
    uint64_t              sum;
    size_t                i, j;
    const char           *why;

    arb_buf_t   swhy = ARB_BUF_INIT;

    if (arb_http_params_only(q, NULL) != 0)
        return;
    if (arb_stats_collect(q->srv, &x, &swhy) != 0) {
        arb_http_error(q->req, 500, "store", "%s", arb_buf_cstr(&swhy));
        arb_buf_free(&swhy);
        return;
    }
    n = x.n;
    one(&b, "arbiter_appends_total", "counter",
        "Appends accepted and queued for commit.", n->appends);
    one(&b, "arbiter_commits_total", "counter",
        "LMDB write transactions committed (one fsync each).", n->commits);
    one(&b, "arbiter_events_committed_total", "counter",
        "Events committed.", n->events_committed);
    head(&b, "arbiter_rejects_total", "counter",
         "Appends refused when judged, by reason (the error code).");
    /* Several ARB_E* codes share a reply code: one line per code. */
    for (i = 0; i < sizeof(n->rejects) / sizeof(n->rejects[0]); i++) {
        why = arb_reply_code(-(int)i);
        for (j = 0; j < i; j++)
            if (strcmp(arb_reply_code(-(int)j), why) == 0)
                break;
        if (j < i)
            continue;
        for (sum = 0, j = i; j < sizeof(n->rejects) / sizeof(n->rejects[0]);
             j++)
            if (strcmp(arb_reply_code(-(int)j), why) == 0)
                sum += n->rejects[j];
        arb_buf_printf(&b, "arbiter_rejects_total{reason=\"%s\"} %" PRIu64
                       "\n", why, sum);
    }
    head(&b, "arbiter_ack_seconds", "histogram",
         "From an append's arrival to its acknowledgement (after commit).");
    for (i = 0; i < ARB_ACK_BUCKETS; i++) {
        arb_buf_puts(&b, "arbiter_ack_seconds_bucket{le=\"");
        put_seconds(&b, arb_ack_bounds_ns[i]);
        arb_buf_printf(&b, "\"} %" PRIu64 "\n", n->ack_le[i]);
    }
    arb_buf_printf(&b, "arbiter_ack_seconds_bucket{le=\"+Inf\"} %" PRIu64
                   "\narbiter_ack_seconds_sum ", n->acks);
    put_seconds(&b, n->ack_ns);
    arb_buf_printf(&b, "\narbiter_ack_seconds_count %" PRIu64 "\n", n->acks);
    head(&b, "arbiter_commit_events", "histogram",
         "Events per commit (group commit: one fsync for them all).");
    for (i = 0; i < ARB_BATCH_BUCKETS; i++)
        arb_buf_printf(&b, "arbiter_commit_events_bucket{le=\"%" PRIu64
                       "\"} %" PRIu64 "\n", arb_batch_bounds[i],
                       n->batch_le[i]);
    arb_buf_printf(&b, "arbiter_commit_events_bucket{le=\"+Inf\"} %" PRIu64
                   "\narbiter_commit_events_sum %" PRIu64
                   "\narbiter_commit_events_count %" PRIu64 "\n",
                   n->commits, n->events_committed, n->commits);
    one(&b, "arbiter_queued_appends", "gauge",
        "Appends validated and waiting for their commit.", x.queued);
    one(&b, "arbiter_connections", "gauge",
        "Open protocol connections.", x.connections);
    one(&b, "arbiter_connections_total", "counter",
        "Protocol connections accepted.", n->conns);
    one(&b, "arbiter_http_connections", "gauge",
        "Open HTTP connections.", x.http_connections);
    one(&b, "arbiter_http_connections_total", "counter",
        "HTTP connections accepted.", n->http_conns);
    one(&b, "arbiter_http_connections_refused_total", "counter",
        "HTTP connections closed at once: max_connections reached.",
        n->http_refused);
    one(&b, "arbiter_http_metrics_connections_refused_total", "counter",
        "Connections to metrics_listen closed at once: its 8 were open.",
        n->metrics_refused);
    one(&b, "arbiter_http_heads_refused_total", "counter",
        "Request heads over header_max answered 431 before they ended.",
        n->http_heads_refused);
    one(&b, "arbiter_http_write_timeouts_total", "counter",
        "HTTP connections ended: their client took none of its pending "
        "output for write_timeout_ms.", n->http_write_timeouts);
    one(&b, "arbiter_http_auth_failed_total", "counter",
        "HTTP requests answered 401: a token that is no token.",
        n->http_auth_failed);
    one(&b, "arbiter_http_requests_total", "counter",
        "HTTP requests answered or streamed.", n->http_requests);
    head(&b, "arbiter_http_responses_total", "counter",
         "HTTP responses done (a live stream when it ends), by status "
         "class.");
    for (i = 0; i < 5; i++)
        arb_buf_printf(&b, "arbiter_http_responses_total{code=\"%zuxx\"} %"
                       PRIu64 "\n", i + 1, n->http_status[i]);
    one(&b, "arbiter_subscribers", "gauge",
        "Protocol subscriptions and HTTP live streams.", x.subscribers);
    one(&b, "arbiter_subscribers_cut_total", "counter",
        "Subscribers and live streams cut off for not keeping up.",
        n->subs_cut + n->streams_cut);
    one(&b, "arbiter_replays_total", "counter",
        "Matches replayed from the store on the loop (a first touch since "
        "the start, a state read at another seq than the live one, a "
        "judge while an append is in flight).", n->replays);
    one(&b, "arbiter_replayed_events_total", "counter",
        "Events those replays applied.", n->replayed_events);
    one(&b, "arbiter_matches", "gauge", "Matches stored.", x.st.matches);
    one(&b, "arbiter_events", "gauge", "Events stored.", x.st.events);
    one(&b, "arbiter_storage_used_bytes", "gauge",
        "Bytes of the LMDB map holding data.", x.st.map_used);
    one(&b, "arbiter_storage_map_size_bytes", "gauge",
        "Current size of the LMDB map.", x.st.map_size);
    one(&b, "arbiter_storage_map_max_bytes", "gauge",
        "Ceiling the LMDB map may grow to.", x.st.map_max);
    /* Replication to NATS JetStream (docs/SCALE.md), only when it is on:
     * the same figures as stats.replication. */
    if (arb_repl_figures(q->srv, &rf)) {
        one(&b, "arbiter_replication_connected", "gauge",
            "1 while connected to NATS.", (uint64_t)rf.connected);
        one(&b, "arbiter_replication_stream_ok", "gauge",
            "1 while the stream is there and fits the configuration.",
            (uint64_t)rf.stream_ok);
        one(&b, "arbiter_replication_verified", "gauge",
            "1 once the log was compared with the stream after the start; "
            "until then writes are refused as unverified.",
            (uint64_t)rf.verified);
        one(&b, "arbiter_replication_lag_events", "gauge",
            "Committed events not yet acknowledged by the stream.",
            rf.lag_events);
        one_seconds(&b, "arbiter_replication_lag_seconds",
                    "Age of the oldest committed event not yet in the "
                    "stream.", (uint64_t)rf.lag_ms);
        one(&b, "arbiter_replication_published_total", "counter",
            "Events the stream acknowledged.", rf.published);
        one(&b, "arbiter_replication_republished_total", "counter",
            "Events anti-entropy put back into the stream.",
            rf.republished);
        one(&b, "arbiter_replication_deals_republished_total", "counter",
            "Deal messages anti-entropy put back into the stream.",
            rf.deals_republished);
        one(&b, "arbiter_replication_missing_total", "counter",
            "Events anti-entropy found missing from the stream.",
            rf.missing);
        one(&b, "arbiter_replication_diverged_total", "counter",
            "Stream messages that differed from the log.", rf.diverged);
        one(&b, "arbiter_replication_ahead_total", "counter",
            "Matches whose stream held seqs past the log (written "
            "elsewhere: fenced).", rf.ahead);
        one(&b, "arbiter_replication_checks_total", "counter",
            "Anti-entropy passes done.", rf.checks);
        one(&b, "arbiter_replication_undecided_total", "counter",
            "Repairs put off: the stream's answers disagreed.",
            rf.undecided);
        one(&b, "arbiter_replication_errors_total", "counter",
            "Failed publishes.", rf.errors);
        one(&b, "arbiter_replication_disconnects_total", "counter",
            "Connections to NATS lost.", rf.disconnects);
        one(&b, "arbiter_replication_refused_total", "counter",
            "Events of fenced matches not published (their sync acks "
            "answered unreplicated).", rf.refused);
        one(&b, "arbiter_replication_sync_timeouts_total", "counter",
            "Sync acks answered unreplicated after sync_timeout_ms.",
            rf.sync_timeouts);
        one(&b, "arbiter_replication_held", "gauge",
            "Acks waiting for the stream (sync mode, or a lag bound).",
            rf.held);
        one(&b, "arbiter_replication_lag_holds_total", "counter",
            "Async acks that waited for the stream (max_lag, max_lag_ms).",
            rf.lag_holds);
        one(&b, "arbiter_replication_lag_timeouts_total", "counter",
            "Async acks answered after sync_timeout_ms, lifting the bound.",
            rf.lag_timeouts);
    }
    /* A read replica (docs/REPLICA.md): the same figures as
     * stats.replica. */
    if (arb_replica_figures(q->srv, &pf)) {
        one(&b, "arbiter_replica_connected", "gauge",
            "1 while connected to NATS.", (uint64_t)pf.connected);
        one(&b, "arbiter_replica_stream_seq", "gauge",
            "Stream sequence of the last message read.", pf.stream_seq);
        one(&b, "arbiter_replica_stream_head", "gauge",
            "The stream's last sequence (looked at once a second).",
            pf.stream_head);
        one(&b, "arbiter_replica_behind", "gauge",
            "Stream sequences past the last message read.", pf.behind);
        one_seconds(&b, "arbiter_replica_lag_seconds",
                    "Age of the oldest stream message not yet read.",
                    pf.lag_ms);
        one(&b, "arbiter_replica_appended_total", "counter",
            "Events verified and stored.", pf.appended);
        one(&b, "arbiter_replica_duplicates_total", "counter",
            "Stream messages already stored (dropped).", pf.duplicates);
        one(&b, "arbiter_replica_stopped_matches", "gauge",
            "Matches not followed any further: an event failed its "
            "checks.", pf.stopped_matches);
        one(&b, "arbiter_replica_foreign_total", "counter",
            "Stream messages arbiter did not write (skipped).",
            pf.foreign);
        one(&b, "arbiter_replica_reconnects_total", "counter",
            "Stream readers made again (NATS lost and back, a consumer "
            "that stalled).", pf.reconnects);
    }
    if (b.oom)
        arb_http_error(q->req, 500, "server", "out of memory");
    else
        arb_http_send(q->req, "text/plain; version=0.0.4; charset=utf-8",
                      b.data, b.len);
    arb_buf_free(&b);
}
