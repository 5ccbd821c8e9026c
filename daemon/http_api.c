/*
 * http_api.c - the JSON read API (docs/HTTP.md): GET /api/matches,
 * /api/m/<id>/state[?at=N], /api/m/<id>/events?from=N&limit=L and
 * /api/stats.
 *
 * DESIGN: the shapes are those of `arbiter matches --json`, `arbiter
 * state --json` and `arbiter events --json`, written by the same
 * functions (core/json_item.h, core/view.h), as JSON arrays instead of
 * lines.  Like the protocol's reads (op_read.c), answers stop at what the
 * loop knows is committed, and a page stops at ARB_HTTP_PAGE_BYTES.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/codec.h"
#include "core/err.h"
#include "core/json.h"
#include "core/json_item.h"
#include "core/version.h"
#include "daemon/http.h"
#include "proto/limits.h"

/* A page of matches or events, in JSON bytes. */
#define ARB_HTTP_PAGE_BYTES (256u * 1024)

static void
send_json(arb_http_req_t *q, arb_buf_t *b)
{
    if (b->oom)
        arb_http_error(q->req, 500, "server", "out of memory");
    else
        arb_http_send(q->req, "application/json", b->data, b->len);
}

int
arb_http_committed_seq(arb_server_t *srv, const char *match, uint64_t *upto,
                       int *closed, arb_buf_t *why)
{
    arb_match_info_t info;
    arb_live_t      *l = NULL;
    int              rc;

    if ((rc = arb_store_match(srv->store, match, &info, why)) != 0)
        return rc;
    *upto = info.last_seq;
    /* Only what the loop knows is committed: never a queued event. */
    if (arb_live_get(srv, match, &l, NULL) == 0 && l->committed < *upto)
        *upto = l->committed;
    if (closed != NULL)
        *closed = info.closed && info.last_seq == *upto;
    return 0;
}

int
arb_http_match_at(arb_http_req_t *q, const char *match, uint64_t *upto,
                  int *closed, arb_live_t **l)
{
    arb_buf_t why = ARB_BUF_INIT;
    int       rc;

    rc = arb_http_committed_seq(q->srv, match, upto, closed, &why);
    if (rc == 0 && l != NULL)
        rc = arb_live_get(q->srv, match, l, &why);
    /* Only a match that is not there is "no match": a store that fails
     * to read it, or a history that does not read, is said as such
     * (until 2026-12-07 every failure here was a 404). */
    if (rc == ARB_ENOTFOUND)
        arb_http_error(q->req, 404, "match", "no match '%s'", match);
    else if (rc != 0)
        arb_http_error(q->req, 500, "store", "match '%s': %s", match,
                       why.len > 0 ? arb_buf_cstr(&why) : arb_strerror(rc));
    arb_buf_free(&why);
    return rc == 0 ? 0 : -1;
}

/* ---- matches ------------------------------------------------------------ */

typedef struct {
    arb_buf_t  *b;
    const char *after, *game;
    int         status;         /* -1 any, 0 open, 1 closed */
    uint64_t    n, limit;
    arb_viewer_t who;           /* heads withheld from some (VIEWS.md) */
} matches_ctx_t;

static int
on_match(void *ud, const arb_match_info_t *m)
{
    matches_ctx_t *x = ud;

    if ((x->after[0] != '\0' && strcmp(m->match_id, x->after) <= 0)
        || (x->game[0] != '\0' && strcmp(x->game, m->game) != 0)
        || (x->status >= 0 && x->status != m->closed))
        return 0;
    if (x->n > 0)
        arb_buf_putc(x->b, ',');
    arb_json_match(x->b, m->match_id, m->game, m->closed, m->last_seq,
                   arb_view_hides_hashes(m->game, m->closed, &x->who)
                   ? NULL : m->head, m->created_ms, m->last_ms);
    return ++x->n >= x->limit || x->b->len >= ARB_HTTP_PAGE_BYTES ? 1 : 0;
}

void
arb_http_api_matches(arb_http_req_t *q)
{
    matches_ctx_t x;
    arb_buf_t     b = ARB_BUF_INIT, why = ARB_BUF_INIT;
    char          after[ARB_STORE_ID_MAX + 1] = "", game[ARB_STORE_ID_MAX + 1] = "",
                  status[64] = "";  /* a word longer than open is named */
    int           rc;

    memset(&x, 0, sizeof(x));
    x.limit = 10000;
    x.who = q->viewer;
    x.status = -1;
    if (arb_http_params_only(q, "after", "game", "status", "limit",
                             NULL) != 0
        || arb_http_param(q, "after", after, sizeof(after)) < 0
        || arb_http_param(q, "game", game, sizeof(game)) < 0
        || arb_http_param(q, "status", status, sizeof(status)) < 0
        || arb_http_param_u64(q, "limit", 1, 10000, &x.limit) < 0)
        return;
    if (status[0] != '\0') {
        if (strcmp(status, "open") != 0 && strcmp(status, "closed") != 0) {
            arb_http_error(q->req, 400, "status", "status is open or closed, "
                           "not '%s'", status);
            return;
        }
        x.status = strcmp(status, "closed") == 0;
    }
    x.after = after;
    x.game = game;
    x.b = &b;
    arb_buf_putc(&b, '[');
    rc = arb_store_matches(q->srv->store, on_match, &x, &why);
    if (rc != 0 && rc != 1)
        arb_http_error(q->req, 500, "store", "%s", arb_buf_cstr(&why));
    else {
        arb_buf_puts(&b, "]\n");
        send_json(q, &b);
    }
    arb_buf_free(&b);
    arb_buf_free(&why);
}

/* ---- state -------------------------------------------------------------- */

void
arb_http_api_state(arb_http_req_t *q, const char *match)
{
    arb_buf_t    b = ARB_BUF_INIT, why = ARB_BUF_INIT;
    arb_match_t *m = NULL;
    arb_viewer_t who;
    uint64_t     upto, at = 0, want = 0;
    int          has_at, hands, rc, own = 1, closed;

    if (arb_http_params_only(q, "at", "hands", NULL) != 0)
        return;
    has_at = arb_http_param_u64(q, "at", 0, UINT64_MAX - 1, &at);
    if (has_at < 0)
        return;
    /* ?hands=1: every seat's concealed cards, for the scorekeeper's page
     * (it offers the cards in hand as buttons); only for those who see
     * everything anyway. */
    hands = arb_http_param_u64(q, "hands", 0, 1, &want);
    if (hands < 0)
        return;
    if (hands && want) {
        if (q->viewer.kind != ARB_VIEW_ALL) {
            arb_http_error(q->req, 403, "hands", "every hand is for an "
                           "arbiter's token, or a scorer's of this match");
            return;
        }
    }
    if (arb_http_match_at(q, match, &upto, &closed, NULL) != 0)
        return;
    if (has_at && at > upto) {
        arb_http_error(q->req, 400, "at", "match '%s' has events 0..%" PRIu64
                       ", not %" PRIu64, match, upto, at);
        return;
    }
    rc = arb_live_state(q->srv, match, has_at ? at : upto, &m, &own, &why);
    if (rc == 0) {
        who = arb_http_viewer(&q->who, match, arb_match_setup(m));
        if (hands && want)
            who.kind = ARB_VIEW_HANDS;
        rc = arb_view_report(&b, m, closed, &who);
    }
    if (rc != 0)
        arb_http_replay_error(q->req, rc, why.len > 0 ? arb_buf_cstr(&why)
                                                      : arb_strerror(rc));
    else {
        arb_buf_putc(&b, '\n');
        send_json(q, &b);
    }
    if (own)
        arb_match_free(m);
    arb_buf_free(&b);
    arb_buf_free(&why);
}

/* ---- events ------------------------------------------------------------- */

typedef struct {
    arb_buf_t         *b;
    uint64_t           n, limit;
    int                kinds;       /* bit mask; 0: all */
    uint64_t           since;       /* Unix ms */
    uint64_t           last;        /* the last seq examined */
    uint64_t           scanned;     /* ARB_PAGE_SCAN at most */
    int                bad;
    const arb_setup_t *setup;       /* the match's, for its viewer */
    int                closed;
    arb_viewer_t       who;
} events_ctx_t;

static int
on_event(void *ud, uint64_t seq, int64_t t,
         const unsigned char hash[ARB_HASH_LEN], const void *bytes,
         size_t len)
{
    events_ctx_t *x = ud;
    arb_event_t   ev;

    x->last = seq;
    x->scanned++;
    /* (as the protocol's `events` skips, op_read.c) */
    if (t < 0 || (uint64_t)t < x->since)
        return x->scanned >= ARB_PAGE_SCAN;
    if (arb_event_decode(&ev, bytes, len, NULL) != 0) {
        x->bad = 1;
        return 1;
    }
    if (x->kinds != 0 && !(x->kinds & (1 << ev.kind))) {
        arb_event_clear(&ev);
        return x->scanned >= ARB_PAGE_SCAN;
    }
    if (x->n > 0)
        arb_buf_putc(x->b, ',');
    /* as this viewer may see it (docs/VIEWS.md) */
    if (arb_view_event_json(x->b, NULL, seq, t, hash, &ev, x->setup,
                            x->closed, &x->who) != 0)
        x->b->oom = 1;
    arb_event_clear(&ev);
    return ++x->n >= x->limit || x->b->len >= ARB_HTTP_PAGE_BYTES
           || x->scanned >= ARB_PAGE_SCAN ? 1 : 0;
}

/* kinds=note,move: the mask of the kinds named, or -1 with a 400 sent. */
static int
kinds_param(arb_http_req_t *q, int *mask)
{
    char        v[256], *p, *comma;
    int         k, rc;

    *mask = 0;
    rc = arb_http_param(q, "kinds", v, sizeof(v));
    if (rc <= 0)
        return rc;
    for (p = v;; p = comma + 1) {
        if ((comma = strchr(p, ',')) != NULL)
            *comma = '\0';
        if ((k = arb_event_kind_parse(p)) < 0) {
            arb_http_error(q->req, 400, "kinds", "no kind '%s' (kinds are "
                           "names as `arbiter events` prints them, "
                           "separated by commas)", p);
            return -1;
        }
        *mask |= 1 << k;
        if (comma == NULL)
            return 1;
    }
}

/* Link: <...?from=N&...>; rel="next": the page ended before `to` (or the
 * head): its limit, its bytes, or ARB_PAGE_SCAN events examined (with
 * kinds or since, a page may then hold none and still go on).  The
 * parameters asked for again, but the token. */
static void
next_link(arb_http_req_t *q, const char *match, uint64_t next, uint64_t to,
          int has_to, const events_ctx_t *x, const char *kinds)
{
    arb_buf_t l = ARB_BUF_INIT;

    arb_buf_printf(&l, "</api/m/%s/events?from=%" PRIu64, match, next);
    if (has_to)
        arb_buf_printf(&l, "&to=%" PRIu64, to);
    if (kinds[0] != '\0')
        arb_buf_printf(&l, "&kinds=%s", kinds);
    if (x->since > 0)
        arb_buf_printf(&l, "&since=%" PRIu64, x->since);
    arb_buf_printf(&l, "&limit=%" PRIu64 ">; rel=\"next\"", x->limit);
    if (!l.oom)
        h2o_add_header(&q->req->pool, &q->req->res.headers, H2O_TOKEN_LINK,
                       NULL, h2o_strdup(&q->req->pool, l.data, l.len).base,
                       l.len);
    arb_buf_free(&l);
}

void
arb_http_api_events(arb_http_req_t *q, const char *match)
{
    events_ctx_t x;
    arb_buf_t    b = ARB_BUF_INIT, why = ARB_BUF_INIT;
    uint64_t     from = 0, to = UINT64_MAX - 1, upto;
    arb_live_t  *l;
    arb_setup_t  bare;
    char         kinds[256] = "";
    int          rc = 0, has_to;

    memset(&x, 0, sizeof(x));
    x.limit = 1000;
    if (arb_http_params_only(q, "from", "to", "kinds", "since", "limit",
                             NULL) != 0
        || arb_http_param_u64(q, "from", 0, UINT64_MAX - 1, &from) < 0
        || (has_to = arb_http_param_u64(q, "to", 0, UINT64_MAX - 1,
                                        &to)) < 0
        || arb_http_param_u64(q, "since", 0, UINT64_MAX - 1, &x.since) < 0
        || arb_http_param_u64(q, "limit", 1, 10000, &x.limit) < 0
        || kinds_param(q, &x.kinds) < 0
        || arb_http_param(q, "kinds", kinds, sizeof(kinds)) < 0)
        return;
    if (arb_http_match_at(q, match, &upto, NULL, &l) != 0)
        return;
    if (to < upto)
        upto = to;
    /* The setup decides what is hidden and whose seat a player holds;
     * without the match at hand its game alone does (and no seat). */
    memset(&bare, 0, sizeof(bare));
    bare.game = l->game;
    x.setup = l->m != NULL ? arb_match_setup(l->m) : &bare;
    x.closed = l->closed;
    x.who = arb_http_viewer(&q->who, match, x.setup);
    x.b = &b;
    arb_buf_putc(&b, '[');
    if (from <= upto)
        rc = arb_store_events(q->srv->store, match, from, upto, on_event, &x,
                              &why);
    if (rc == ARB_ECORRUPT)
        arb_live_corrupt(q->srv, match, &why);
    if ((rc != 0 && rc != 1) || x.bad)
        arb_http_error(q->req, 500, "store", "%s", x.bad
                       ? "a stored event does not decode"
                       : arb_buf_cstr(&why));
    else {
        if (rc == 1 && x.last < upto)
            next_link(q, match, x.last + 1, to, has_to, &x, kinds);
        arb_buf_puts(&b, "]\n");
        send_json(q, &b);
    }
    arb_buf_free(&b);
    arb_buf_free(&why);
}

/* ---- stats -------------------------------------------------------------- */

/* Why: a load balancer or an orchestrator's probe asks whether the
 * recorder is up without holding a token, and the pages answer 200 from
 * compiled-in files without touching the store: this reads the store
 * (the figures `stats` reads) and shows nothing of any match. */
void
arb_http_health(arb_http_req_t *q)
{
    arb_stats_t x;
    arb_buf_t   b = ARB_BUF_INIT, swhy = ARB_BUF_INIT;

    if (q->srv->stopping) {
        arb_http_error(q->req, 503, "stopping", "the recorder is stopping");
        return;
    }
    if (arb_stats_collect(q->srv, &x, &swhy) != 0) {
        arb_buf_free(&swhy);
        arb_http_error(q->req, 503, "store", "the store cannot be read");
        return;
    }
    arb_buf_printf(&b, "{\"status\":\"ok\",\"role\":\"%s\"}\n",
                   q->srv->replica != NULL ? "replica" : "primary");
    send_json(q, &b);
    arb_buf_free(&b);
}

void
arb_http_api_stats(arb_http_req_t *q)
{
    arb_stats_t    x;
    arb_stat_fig_t fig[ARB_STAT_FIGS];
    arb_buf_t      b = ARB_BUF_INIT, swhy = ARB_BUF_INIT;
    json_t        *o;
    size_t         k;
    int            bad;

    if (arb_http_params_only(q, NULL) != 0)
        return;
    if (arb_stats_collect(q->srv, &x, &swhy) != 0) {
        arb_http_error(q->req, 500, "store", "%s", arb_buf_cstr(&swhy));
        arb_buf_free(&swhy);
        return;
    }
    /* the shape of `arbiter stats --json`, without the nested maps */
    o = json_object();
    bad = arb_json_set(o, "engine", arb_json_string(ARB_ENGINE));
    arb_stats_figures(&x, fig);
    for (k = 0; k < ARB_STAT_FIGS; k++)
        bad |= arb_json_set(o, fig[k].name,
                            json_integer((json_int_t)fig[k].value));
    if (bad)
        b.oom = 1;
    else
        arb_json_put(&b, o);
    json_decref(o);
    arb_buf_puts(&b, "\n");
    send_json(q, &b);
    arb_buf_free(&b);
}
