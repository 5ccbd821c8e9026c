/*
 * op_read.c - the ops that only read: state, events, matches, stats,
 * subscribe / unsubscribe and checkpoint (signed in checkpoint.c).
 *
 * DESIGN: reads serve committed events only.  Each read caps what it
 * returns at what the loop knows is committed (live->committed), never at
 * the live, possibly queued state, so an answer never shows an event whose
 * commit may still fail.  A page of events or matches also ends at
 * ARB_PAGE_BYTES, so a reader cannot make the daemon build a response
 * larger than a connection may hold.
 */
#include <stdlib.h>
#include <string.h>

#include "core/codec.h"
#include "core/err.h"
#include "core/mp.h"
#include "core/replay.h"
#include "core/version.h"
#include "daemon/dispatch.h"
#include "proto/limits.h"

/* ---- state ------------------------------------------------------------ */

enum { ST_MATCH, ST_AT, ST_TEXT, ST_SEQS, ST_N };
static const arb_req_field_t state_fields[ST_N] = {
    [ST_MATCH] = { "match", ARB_REQ_STR,  ARB_REQ_REQUIRED, 0, 0 },
    [ST_AT]    = { "at",    ARB_REQ_UINT, ARB_REQ_OPTIONAL, 0, 0 },
    [ST_TEXT]  = { "text",  ARB_REQ_UINT, ARB_REQ_OPTIONAL, 0, 1 },
    [ST_SEQS]  = { "seqs",  ARB_REQ_UINT, ARB_REQ_OPTIONAL, 0, 1 },
};

void
arb_op_state(arb_request_t *r)
{
    arb_conn_t      *c = r->c;
    arb_req_val_t    f[ST_N];
    arb_match_info_t info;
    arb_match_t     *m = NULL;
    const char      *match;
    uint64_t         at, upto;
    arb_buf_t        json = ARB_BUF_INIT, b = ARB_BUF_INIT;
    arb_buf_t        text = ARB_BUF_INIT;
    arb_results_t    res;
    msgpack_packer   pk;
    arb_viewer_t     who;
    size_t           i;
    int              rc, with_text, with_seqs, own = 1, closed;

    memset(&res, 0, sizeof(res));
    if (arb_request_fields(r, state_fields, ST_N, f) != 0)
        goto done;
    match = f[ST_MATCH].str;
    at = f[ST_AT].u;
    with_text = f[ST_TEXT].present && f[ST_TEXT].u == 1;
    with_seqs = f[ST_SEQS].present && f[ST_SEQS].u == 1;
    rc = arb_store_match(c->srv->store, match, &info, &r->why);
    if (rc != 0) {
        arb_reply_error(c, r->id, arb_reply_code(rc), NULL, "no match '%s'",
                        match);
        goto done;
    }
    /* Only what the loop knows is committed: never a queued event. */
    upto = arb_live_committed(c->srv, match, &info);
    /* Closed now (an earlier seq's digest is everyone's then too). */
    closed = info.closed && info.last_seq == upto;
    if (f[ST_AT].present && at > upto) {
        /* Named like every other refusal of a field (until 2026-12-08
         * the message did not say which field). */
        arb_reply_error(c, r->id, "not_found", NULL, "at: match '%s' has "
                        "events 0..%llu, not %llu", match,
                        (unsigned long long)upto, (unsigned long long)at);
        goto done;
    }
    rc = arb_live_state(c->srv, match, f[ST_AT].present ? at : upto, &m,
                        &own, &r->why);
    if (rc == 0) {
        who = arb_conn_viewer(c, match, arb_match_setup(m));
        rc = arb_view_report(&json, m, closed, &who);
    }
    /* The text holds records and totals, which every viewer sees, and
     * the digest where the viewer may have it: a client that cannot
     * replay the match itself (a running dealt one, whose deal only the
     * recorder keeps) prints it. */
    if (rc == 0 && with_text)
        rc = arb_view_report_text(&text, m, closed, &who);
    /* The seq of each record, in the report's order: what such a client
     * needs beside the records to say which event fixed each (arbiter
     * diff --claim). */
    if (rc == 0 && with_seqs)
        rc = arb_match_results(m, &res);
    if (rc != 0) {
        arb_reply_error(c, r->id, arb_reply_code(rc), NULL, "%s",
                        rc == ARB_ENOMEM ? "out of memory"
                                         : arb_buf_cstr(&r->why));
        goto done;
    }
    arb_reply_begin(&b, &pk, r->id, 2 + with_text + with_seqs);
    arb_mp_pack_kv_str(&pk, "match", match);
    arb_mp_pack_cstr(&pk, "json");
    msgpack_pack_str(&pk, json.len);
    msgpack_pack_str_body(&pk, json.data, json.len);
    if (with_text) {
        arb_mp_pack_cstr(&pk, "text");
        msgpack_pack_str(&pk, text.len);
        msgpack_pack_str_body(&pk, text.data, text.len);
    }
    if (with_seqs) {
        arb_mp_pack_cstr(&pk, "seqs");
        msgpack_pack_array(&pk, res.nrecords);
        for (i = 0; i < res.nrecords; i++)
            msgpack_pack_uint64(&pk, res.records[i].seq);
    }
    arb_conn_send(c, &b);
done:
    arb_results_clear(&res);
    if (own)
        arb_match_free(m);
    arb_buf_free(&json);
    arb_buf_free(&text);
    arb_req_clear(f, ST_N);
}

/* ---- events ----------------------------------------------------------- */

enum { EV_MATCH, EV_FROM, EV_TO, EV_LIMIT, EV_SINCE, EV_KINDS, EV_N };
static const arb_req_field_t events_fields[EV_N] = {
    [EV_MATCH] = { "match", ARB_REQ_STR,  ARB_REQ_REQUIRED, 0, 0 },
    [EV_FROM]  = { "from",  ARB_REQ_UINT, ARB_REQ_OPTIONAL, 0, 0 },
    [EV_TO]    = { "to",    ARB_REQ_UINT, ARB_REQ_OPTIONAL, 0, 0 },
    [EV_LIMIT] = { "limit", ARB_REQ_UINT, ARB_REQ_OPTIONAL, 1, 10000 },
    [EV_SINCE] = { "since", ARB_REQ_UINT, ARB_REQ_OPTIONAL, 0, 0 },
    [EV_KINDS] = { "kinds", ARB_REQ_STRV, ARB_REQ_OPTIONAL, 0,
                   ARB_EV_KIND_MAX },
};

typedef struct events_ctx {
    msgpack_packer *pk;
    arb_buf_t      *b;
    int             kinds;      /* bit mask; 0 = all */
    uint64_t        since;      /* Unix ms; past INT64_MAX: after all */
    uint64_t        limit, n, last;
    uint64_t        scanned;    /* examined, ARB_PAGE_SCAN at most */
    arb_conn_t     *c;          /* whose view (viewer.c) */
    arb_live_t     *l;
    const char     *match;
    int             err;        /* a failed view: stop, answer it */
    int             oom;        /* an event could not be read: no page */
} events_ctx_t;

static int
kind_of(const void *bytes, size_t len)
{
    arb_event_t ev;
    int         k;

    k = arb_event_decode(&ev, bytes, len, NULL);
    if (k != 0)
        return k;
    k = ev.kind;
    arb_event_clear(&ev);
    return k;
}

static int
on_events(void *ud, uint64_t seq, int64_t t,
          const unsigned char hash[ARB_HASH_LEN], const void *bytes,
          size_t len)
{
    events_ctx_t *x = ud;
    arb_buf_t     tmp = ARB_BUF_INIT;
    int           k;

    x->last = seq;
    x->scanned++;
    if (t < 0 || (uint64_t)t < x->since)
        return x->scanned >= ARB_PAGE_SCAN;
    if (x->kinds != 0) {
        k = kind_of(bytes, len);
        if (k == ARB_ENOMEM) {
            /* Skipping it would leave a hole in the page. */
            x->oom = 1;
            return 1;
        }
        if (k < 0 || !(x->kinds & (1 << k)))
            return x->scanned >= ARB_PAGE_SCAN;
    }
    if ((x->err = arb_conn_event_view(x->c, x->l, x->match, 0, &bytes, &len,
                                      &hash, &tmp)) != 0) {
        /* A re-encoding cut short by memory holds what it had grown. */
        arb_buf_free(&tmp);
        return 1;
    }
    msgpack_pack_map(x->pk, hash != NULL ? 4 : 3);
    arb_mp_pack_kv_uint(x->pk, "seq", seq);
    arb_mp_pack_kv_int(x->pk, "time", t);
    if (hash != NULL)
        arb_mp_pack_kv_bin(x->pk, "hash", hash, ARB_HASH_LEN);
    arb_mp_pack_kv_bin(x->pk, "event", bytes, len);
    arb_buf_free(&tmp);
    return ++x->n >= x->limit || x->b->len >= ARB_PAGE_BYTES
           || x->scanned >= ARB_PAGE_SCAN ? 1 : 0;
}

void
arb_op_events(arb_request_t *r)
{
    arb_conn_t      *c = r->c;
    arb_req_val_t    f[EV_N];
    const char      *match;
    size_t           i;
    uint64_t         from, to, limit;
    arb_live_t      *l = NULL;
    arb_match_info_t info;
    arb_buf_t        items = ARB_BUF_INIT, b = ARB_BUF_INIT;
    msgpack_packer   pk, ipk;
    events_ctx_t     x;
    int              rc, k;

    memset(&x, 0, sizeof(x));
    if (arb_request_fields(r, events_fields, EV_N, f) != 0)
        goto done;
    match = f[EV_MATCH].str;
    from = f[EV_FROM].present ? f[EV_FROM].u : 0;
    to = f[EV_TO].present ? f[EV_TO].u : UINT64_MAX;
    limit = f[EV_LIMIT].present ? f[EV_LIMIT].u : 1000;
    for (i = 0; i < f[EV_KINDS].n; i++) {
        k = arb_event_kind_parse(f[EV_KINDS].v[i]);
        if (k < 0) {
            arb_reply_error(c, r->id, "proto", NULL, "kinds[%zu]: no kind "
                            "'%s'", i, f[EV_KINDS].v[i]);
            goto done;
        }
        x.kinds |= 1 << k;
    }
    rc = arb_store_match(c->srv->store, match, &info, NULL);
    if (rc != 0) {
        arb_reply_error(c, r->id, "not_found", NULL, "no match '%s'", match);
        goto done;
    }
    if (arb_live_get(c->srv, match, &l, NULL) == 0 && l->committed < to)
        to = l->committed;
    if (to > info.last_seq)
        to = info.last_seq;
    arb_mp_packer_init(&ipk, &items);
    x.pk = &ipk;
    x.b = &items;
    x.c = c;
    x.l = l;
    x.match = match;
    x.limit = limit;
    x.since = f[EV_SINCE].u;
    x.last = from ? from - 1 : 0;
    rc = from <= to ? arb_store_events(c->srv->store, match, from, to,
                                       on_events, &x, &r->why) : 0;
    if (rc == ARB_ECORRUPT)
        arb_live_corrupt(c->srv, match, &r->why);
    if (rc != 0 && rc != 1) {
        arb_reply_error(c, r->id, arb_reply_code(rc), NULL, "%s",
                        arb_buf_cstr(&r->why));
        goto done;
    }
    if (x.oom || items.oom) {
        /* Never a page with events missing, nor a malformed one. */
        arb_reply_error(c, r->id, "internal", NULL, "out of memory");
        goto done;
    }
    if (x.err != 0) {
        arb_reply_error(c, r->id, arb_reply_code(x.err), NULL, "match '%s' "
                        "seq %llu: %s", match, (unsigned long long)x.last,
                        arb_strerror(x.err));
        goto done;
    }
    arb_reply_begin(&b, &pk, r->id, 3);
    arb_mp_pack_kv_str(&pk, "match", match);
    arb_mp_pack_cstr(&pk, "events");
    msgpack_pack_array(&pk, (size_t)x.n);
    arb_buf_add(&b, items.data, items.len);
    arb_mp_pack_cstr(&pk, "next");
    if (rc == 1 && x.last < to)
        msgpack_pack_uint64(&pk, x.last + 1);
    else
        msgpack_pack_nil(&pk);
    arb_conn_send(c, &b);
done:
    arb_buf_free(&items);
    arb_req_clear(f, EV_N);
}

/* ---- matches ---------------------------------------------------------- */

enum { MA_GAME, MA_STATUS, MA_AFTER, MA_LIMIT, MA_N };
static const arb_req_field_t matches_fields[MA_N] = {
    [MA_GAME]   = { "game",   ARB_REQ_STR,  ARB_REQ_OPTIONAL, 0, 0 },
    [MA_STATUS] = { "status", ARB_REQ_STR,  ARB_REQ_OPTIONAL, 0, 0 },
    [MA_AFTER]  = { "after",  ARB_REQ_STR,  ARB_REQ_OPTIONAL, 0, 0 },
    [MA_LIMIT]  = { "limit",  ARB_REQ_UINT, ARB_REQ_OPTIONAL, 1, 10000 },
};

typedef struct list_ctx {
    msgpack_packer *pk;
    const char     *game;
    int             status;     /* -1 any, 0 open, 1 closed */
    uint64_t        n, limit;
    const char     *after;      /* page after this match id, or NULL */
    arb_viewer_t    who;        /* whose view (viewer.c) */
    arb_buf_t      *b;
    char            last[ARB_STORE_ID_MAX + 1];
} list_ctx_t;

static int
on_match(void *ud, const arb_match_info_t *m)
{
    list_ctx_t  *x = ud;
    int          head;

    if ((x->after && strcmp(m->match_id, x->after) <= 0)
        || (x->game && strcmp(x->game, m->game) != 0)
        || (x->status >= 0 && x->status != m->closed))
        return 0;
    snprintf(x->last, sizeof(x->last), "%s", m->match_id);
    /* The head is the last event's hash: withheld where event hashes are
     * (viewer.c), or it would check a guess of a hidden chip. */
    head = !arb_view_hides_hashes(m->game, m->closed, &x->who);
    msgpack_pack_map(x->pk, head ? 7 : 6);
    arb_mp_pack_kv_str(x->pk, "match", m->match_id);
    arb_mp_pack_kv_str(x->pk, "game", m->game);
    arb_mp_pack_kv_str(x->pk, "status", m->closed ? "closed" : "open");
    arb_mp_pack_kv_uint(x->pk, "last_seq", m->last_seq);
    if (head)
        arb_mp_pack_kv_bin(x->pk, "head", m->head, ARB_HASH_LEN);
    arb_mp_pack_kv_int(x->pk, "created", m->created_ms);
    arb_mp_pack_kv_int(x->pk, "last", m->last_ms);
    return ++x->n >= x->limit || x->b->len >= ARB_PAGE_BYTES ? 1 : 0;
}

void
arb_op_matches(arb_request_t *r)
{
    arb_req_val_t  f[MA_N];
    const char    *status;
    arb_buf_t      items = ARB_BUF_INIT, b = ARB_BUF_INIT;
    msgpack_packer pk, ipk;
    list_ctx_t     x;
    int            rc;

    if (arb_request_fields(r, matches_fields, MA_N, f) != 0)
        goto done;
    status = f[MA_STATUS].str;
    x.status = -1;
    if (status != NULL) {
        if (strcmp(status, "open") == 0)
            x.status = 0;
        else if (strcmp(status, "closed") == 0)
            x.status = 1;
        else {
            arb_reply_error(r->c, r->id, "proto", NULL, "status: open or "
                            "closed, not '%s'", status);
            goto done;
        }
    }
    arb_mp_packer_init(&ipk, &items);
    x.pk = &ipk;
    x.b = &items;
    x.game = f[MA_GAME].str;
    /* Every match at once: a scorer limited to some reads the list as a
     * reader, its own matches too, as HTTP's list and the feed of every
     * match are (until 2026-12-08 its own tables' heads were in it). */
    x.who = arb_role_viewer(arb_seen_role(r->c->role, r->c->matches,
                                          r->c->nmatches, NULL),
                            NULL, NULL, NULL, NULL);
    x.after = f[MA_AFTER].str;
    x.last[0] = '\0';
    x.n = 0;
    x.limit = f[MA_LIMIT].present ? f[MA_LIMIT].u : 10000;
    rc = arb_store_matches(r->c->srv->store, on_match, &x, &r->why);
    if (rc != 0 && rc != 1) {
        arb_reply_error(r->c, r->id, arb_reply_code(rc), NULL, "%s",
                        arb_buf_cstr(&r->why));
        goto done;
    }
    if (items.oom) {
        /* Never a page with matches missing, nor a malformed one. */
        arb_reply_error(r->c, r->id, "internal", NULL, "out of memory");
        goto done;
    }
    arb_reply_begin(&b, &pk, r->id, 2);
    arb_mp_pack_cstr(&pk, "matches");
    msgpack_pack_array(&pk, (size_t)x.n);
    arb_buf_add(&b, items.data, items.len);
    /* More may follow: ask again with "after": next. */
    arb_mp_pack_cstr(&pk, "next");
    if (rc == 1)
        arb_mp_pack_cstr(&pk, x.last);
    else
        msgpack_pack_nil(&pk);
    arb_conn_send(r->c, &b);
done:
    arb_buf_free(&items);
    arb_req_clear(f, MA_N);
}

/* ---- stats ------------------------------------------------------------ */

/* "timing": where the time of appends went (daemon/server.h,
 * arb_store_stats_t), summed ns since the start. */
static void
pack_timing(msgpack_packer *pk, const arb_stats_t *x)
{
    arb_mp_pack_cstr(pk, "timing");
    msgpack_pack_map(pk, 25);
    /* a lone commit's CPU counts as the commit's, not the loop's */
    arb_mp_pack_kv_uint(pk, "loop_cpu_ns",
                        arb_thread_cpu_ns() - x->n->lone_cpu_ns);
    arb_mp_pack_kv_uint(pk, "work_cpu_ns", x->n->work_cpu_ns);
    arb_mp_pack_kv_uint(pk, "reads", x->n->reads);
    arb_mp_pack_kv_uint(pk, "read_ns", x->n->read_ns);
    arb_mp_pack_kv_uint(pk, "frames", x->n->frames);
    arb_mp_pack_kv_uint(pk, "dispatch_ns", x->n->dispatch_ns);
    arb_mp_pack_kv_uint(pk, "encode_ns", x->n->encode_ns);
    arb_mp_pack_kv_uint(pk, "validate_ns", x->n->validate_ns);
    arb_mp_pack_kv_uint(pk, "work_ns", x->n->work_ns);
    arb_mp_pack_kv_uint(pk, "start_ns", x->n->start_ns);
    arb_mp_pack_kv_uint(pk, "back_ns", x->n->back_ns);
    arb_mp_pack_kv_uint(pk, "after_ns", x->n->after_ns);
    arb_mp_pack_kv_uint(pk, "store_batches", x->st.batches);
    arb_mp_pack_kv_uint(pk, "store_check_ns", x->st.check_ns);
    arb_mp_pack_kv_uint(pk, "store_put_ns", x->st.put_ns);
    arb_mp_pack_kv_uint(pk, "store_commit_ns", x->st.commit_ns);
    arb_mp_pack_kv_uint(pk, "store_publish_ns", x->st.publish_ns);
    arb_mp_pack_kv_uint(pk, "index_commits", x->st.index_commits);
    arb_mp_pack_kv_uint(pk, "store_syncs", x->st.syncs);
    arb_mp_pack_kv_uint(pk, "store_sync_ns", x->st.sync_ns);
    arb_mp_pack_kv_uint(pk, "store_checkpoints", x->st.checkpoints);
    arb_mp_pack_kv_uint(pk, "store_checkpoint_ns", x->st.checkpoint_ns);
    arb_mp_pack_kv_uint(pk, "gathered", x->n->gathered);
    arb_mp_pack_kv_uint(pk, "gather_timeouts", x->n->gather_timeouts);
    arb_mp_pack_kv_uint(pk, "lone_commits", x->n->lone_commits);
}

void
arb_op_stats(arb_request_t *r)
{
    arb_stats_t    x;
    arb_stat_fig_t fig[ARB_STAT_FIGS];
    arb_buf_t      b = ARB_BUF_INIT, why = ARB_BUF_INIT;
    msgpack_packer pk;
    size_t         k;
    int            rc;

    rc = arb_stats_collect(r->c->srv, &x, &why);
    if (rc != 0) {
        arb_reply_error(r->c, r->id, arb_reply_code(rc), NULL, "%s",
                        arb_buf_cstr(&why));
        arb_buf_free(&why);
        return;
    }
    /* engine, the figures, timing, replication, replica */
    arb_reply_begin(&b, &pk, r->id, 1 + ARB_STAT_FIGS + 3);
    arb_mp_pack_kv_str(&pk, "engine", ARB_ENGINE);
    arb_stats_figures(&x, fig);
    for (k = 0; k < ARB_STAT_FIGS; k++)
        arb_mp_pack_kv_uint(&pk, fig[k].name, fig[k].value);
    pack_timing(&pk, &x);
    arb_repl_stats_pack(r->c->srv, &pk);
    arb_replica_stats_pack(r->c->srv, &pk);
    arb_conn_send(r->c, &b);
}

/* ---- subscriptions ---------------------------------------------------- */

enum { SU_MATCH, SU_FROM, SU_N };
static const arb_req_field_t subscribe_fields[SU_N] = {
    [SU_MATCH] = { "match", ARB_REQ_STR,  ARB_REQ_OPTIONAL, 0, 0 },
    [SU_FROM]  = { "from",  ARB_REQ_UINT, ARB_REQ_OPTIONAL, 0, 0 },
};

void
arb_op_subscribe(arb_request_t *r)
{
    arb_req_val_t f[SU_N];
    const char   *match;
    arb_live_t   *l = NULL;
    int           rc;

    if (arb_request_fields(r, subscribe_fields, SU_N, f) != 0)
        goto done;
    match = f[SU_MATCH].str;
    /* Nothing is clamped (until 2026-12-05 a 0 was taken as 1). */
    if (match == NULL && f[SU_FROM].present && f[SU_FROM].u == 0) {
        arb_reply_error(r->c, r->id, "proto", NULL, "from: 0, but the log's "
                        "positions start at 1 (a match's seqs start at 0)");
        goto done;
    }
    if (match != NULL) {
        rc = arb_live_get(r->c->srv, match, &l, &r->why);
        if (rc != 0) {
            arb_reply_error(r->c, r->id, arb_reply_code(rc), NULL,
                            rc == ARB_ENOTFOUND ? "no match '%s'" : "%s",
                            rc == ARB_ENOTFOUND ? match
                                                : arb_buf_cstr(&r->why));
            goto done;
        }
    }
    arb_sub_start(r->c, r->id, l, f[SU_FROM].present, f[SU_FROM].u);
done:
    arb_req_clear(f, SU_N);
}

enum { UN_SUB, UN_N };
static const arb_req_field_t unsubscribe_fields[UN_N] = {
    [UN_SUB] = { "sub", ARB_REQ_UINT, ARB_REQ_REQUIRED, 0, 0 },
};

void
arb_op_unsubscribe(arb_request_t *r)
{
    arb_req_val_t f[UN_N];

    if (arb_request_fields(r, unsubscribe_fields, UN_N, f) == 0) {
        arb_sub_cancel(r->c, f[UN_SUB].u);
        arb_request_ok(r);
    }
    arb_req_clear(f, UN_N);
}

/* ---- checkpoint ------------------------------------------------------- */

enum { CP_MATCH, CP_N };
static const arb_req_field_t checkpoint_fields[CP_N] = {
    [CP_MATCH] = { "match", ARB_REQ_STR, ARB_REQ_REQUIRED, 0, 0 },
};

void
arb_op_checkpoint(arb_request_t *r)
{
    arb_req_val_t f[CP_N];

    if (arb_request_fields(r, checkpoint_fields, CP_N, f) == 0)
        arb_checkpoint_reply(r->c, r->id, f[CP_MATCH].str);
    arb_req_clear(f, CP_N);
}
