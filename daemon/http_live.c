/*
 * http_live.c - live streams: GET /api/live and /api/m/<id>/live as
 * Server-Sent Events (docs/HTTP.md).
 *
 * DESIGN: a stream gets, after each ack, `event: ack` with the event in
 * the shape of /api/m/<id>/events (plus its match), and a match's stream
 * also `event: state` with the whole report as its viewer sees it, taken
 * from the live state when nothing of that match is still queued (then it
 * equals the committed state, so no replay is needed); a page therefore
 * updates without fetching anything.  On a read replica without a dealt
 * match's secret the match's stream starts with `event: sealed` (why, and
 * its seq) instead of its state and carries its acks: a spectator's page
 * lists the moves, and the close that reveals the deal brings the first
 * `state`.  libh2o takes one buffer at a time
 * per response, so what arrives meanwhile waits in `pending`; a stream
 * whose pending output would pass stream_max is cut off (counted in
 * subscribers_cut): the writer never waits for a browser, and a reader
 * that cannot keep up reconnects and starts again from the state.
 *
 * Every message carries an `id:` — the event's seq on a match's stream,
 * its position in the global log on the all-matches one — so a reconnect
 * that sends Last-Event-ID gets the acks it missed from the store, up to
 * what the loop knows is committed (live->committed, srv->order_pos, the
 * same bounds arb_http_committed pushes after), then the live ones: none
 * lost, none twice.  A gap too long to send within stream_max, or an id
 * the stream never gave, gets `event: reset` instead: the page refetches.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "core/codec.h"
#include "core/err.h"
#include "core/json.h"
#include "core/json_item.h"
#include "daemon/http.h"
#include "daemon/log.h"

struct arb_http_stream {
    h2o_generator_t    gen;         /* first: libh2o hands it back */
    h2o_req_t         *req;
    struct arb_http   *h;
    char               match[ARB_STORE_ID_MAX + 1];    /* "" = all */
    arb_http_who_t     who;         /* its viewer is per match */
    arb_buf_t          pending;     /* not yet handed to libh2o */
    arb_buf_t          sending;     /* handed over, until proceed */
    /* The `state` message in pending, if any: a newer one replaces it
     * (each is the whole report; the acks around it stay, in order). */
    size_t             state_off, state_len;
    arb_http_conn_t   *hc;          /* its connection, or NULL once gone */
    int                busy, ended;
    arb_http_stream_t *prev, *next;
};

static void
unlink_free(arb_http_stream_t *s)
{
    struct arb_http *h = s->h;

    if (s->prev != NULL)
        s->prev->next = s->next;
    else
        h->streams = s->next;
    if (s->next != NULL)
        s->next->prev = s->prev;
    h->nstreams--;
    if (s->hc != NULL && s->hc->stream == s)
        s->hc->stream = NULL;
    arb_buf_free(&s->pending);
    arb_buf_free(&s->sending);
    free(s);
}

static void
flush(arb_http_stream_t *s)
{
    arb_buf_t   t;
    h2o_iovec_t iov;

    if (s->busy || s->pending.len == 0)
        return;
    t = s->sending;
    s->sending = s->pending;
    s->pending = t;
    s->pending.len = 0;
    s->state_len = 0;
    iov = h2o_iovec_init(s->sending.data, s->sending.len);
    s->busy = 1;
    h2o_send(s->req, &iov, 1, H2O_SEND_STATE_IN_PROGRESS);
}

/* Ends the response once what is queued has gone (a cut stream's queue
 * is emptied first); s may be freed. */
static void
end(arb_http_stream_t *s)
{
    s->ended = 1;
    flush(s);
    if (s->busy)
        return;
    h2o_send(s->req, NULL, 0, H2O_SEND_STATE_FINAL);
    unlink_free(s);
}

static void
on_proceed(h2o_generator_t *g, h2o_req_t *req)
{
    arb_http_stream_t *s = (arb_http_stream_t *)g;

    (void)req;
    s->busy = 0;
    s->sending.len = 0;
    /* What was queued behind the write goes before the end: a revoked
     * stream's last word is `revoked` (until 2026-12-06 the end went
     * first, and the queue was dropped). */
    if (s->ended)
        end(s);
    else
        flush(s);
}

static void
on_stop(h2o_generator_t *g, h2o_req_t *req)
{
    (void)req;
    unlink_free((arb_http_stream_t *)g);
}

/* The connection of s, found once when it starts (the tick asks every
 * second for every stream: a search of every connection each time would
 * cost streams × connections, up to 65536² a second). */
static void
stream_attach(arb_http_stream_t *s)
{
    arb_http_conn_t *hc;
    h2o_socket_t    *sock;

    for (hc = s->h->conns; hc != NULL; hc = hc->next) {
        sock = hc->tcp.data;
        if (sock != NULL && sock->data == (void *)s->req->conn) {
            s->hc = hc;
            hc->stream = s;
            return;
        }
    }
}

/* The socket of s's connection: 0, or -1 when it is gone. */
static int
stream_fd(const arb_http_stream_t *s, uv_os_fd_t *fd)
{
    return s->hc != NULL
           && uv_fileno((uv_handle_t *)&s->hc->tcp, fd) == 0 ? 0 : -1;
}

/* A browser that does not read: its in-flight write never completes, so
 * the socket is shut and libh2o closes the connection (on_stop). */
static void
cut(arb_http_stream_t *s)
{
    uv_os_fd_t fd;

    s->h->srv->n.streams_cut++;
    arb_log(ARB_LOG_WARN, "http: live stream %s cannot keep up (%zu bytes "
            "unsent): cut off", s->match[0] ? s->match : "(all)",
            s->pending.len + s->sending.len);
    s->pending.len = 0;
    s->state_len = 0;
    if (s->busy && stream_fd(s, &fd) == 0)
        shutdown(fd, SHUT_RDWR);
    end(s);
}

/* Queues one SSE message without handing it over (flush does); 0, or
 * -1 when s was cut off (and may be gone).  A `state` replaces the one
 * still queued: a reader that has fallen behind gets the acks it missed
 * and the newest state, not every state between (until 2026-12-06 each
 * queued state counted against stream_max, about 8 KB an ack, and a
 * spectator on a slow link was cut after a few hundred moves). */
static int
push_held(arb_http_stream_t *s, const char *event, uint64_t id,
          const char *data, size_t len)
{
    size_t need = len + 64, at;
    int    state = strcmp(event, "state") == 0;

    if (s->ended)
        return -1;
    if (state && s->state_len > 0) {
        at = s->state_off + s->state_len;
        memmove(s->pending.data + s->state_off, s->pending.data + at,
                s->pending.len - at);
        s->pending.len -= s->state_len;
        s->state_len = 0;
    }
    if (s->pending.len + s->sending.len + need > s->h->srv->cfg.http.stream_max) {
        cut(s);
        return -1;
    }
    at = s->pending.len;
    arb_buf_printf(&s->pending, "event: %s\nid: %" PRIu64 "\ndata: ", event,
                   id);
    /* The JSON writers escape every newline: one data line. */
    arb_buf_add(&s->pending, data, len);
    arb_buf_puts(&s->pending, "\n\n");
    if (s->pending.oom) {
        cut(s);
        return -1;
    }
    if (state) {
        s->state_off = at;
        s->state_len = s->pending.len - at;
    }
    return 0;
}

/* Queues one SSE message and hands what is queued over when the
 * stream is not already writing; as push_held. */
static int
push(arb_http_stream_t *s, const char *event, uint64_t id, const char *data,
     size_t len)
{
    if (push_held(s, event, id, data, len) != 0)
        return -1;
    flush(s);
    return 0;
}

/* At most this many missed events are sent on a resume, and at most
 * stream_max / 2 bytes of them: more is a `reset`. */
#define ARB_HTTP_RESUME_MAX 1000

/* The Last-Event-ID of a reconnect: 1 with *id, 0 none, -1 not a number
 * this daemon could have sent. */
static int
last_event_id(h2o_req_t *req, uint64_t *id)
{
    ssize_t     i = h2o_find_header_by_str(&req->headers,
                                           H2O_STRLIT("last-event-id"), -1);
    h2o_iovec_t v;
    uint64_t    n = 0;
    size_t      k;

    if (i < 0)
        return 0;
    v = req->headers.entries[i].value;
    /* A field's value is without its blanks (RFC 9110, 5.5), and an
     * empty id is no id, as EventSource means it (until 2026-12-06 a
     * trailing blank or an empty value was a reset). */
    while (v.len > 0 && (v.base[0] == ' ' || v.base[0] == '\t')) {
        v.base++;
        v.len--;
    }
    while (v.len > 0 && (v.base[v.len - 1] == ' '
                         || v.base[v.len - 1] == '\t'))
        v.len--;
    if (v.len == 0)
        return 0;
    if (v.len > 19)
        return -1;
    for (k = 0; k < v.len; k++) {
        if (v.base[k] < '0' || v.base[k] > '9')
            return -1;
        n = n * 10 + (uint64_t)(v.base[k] - '0');
    }
    /* No seq or log position passes 2^63 - 1 (a JSON number's range:
     * until 2026-12-05 the reset echoed a larger one as negative). */
    if (n > INT64_MAX)
        return -1;
    *id = n;
    return 1;
}

/* The missed events of a resume, as SSE acks, for one viewer. */
typedef struct {
    arb_server_t         *srv;
    arb_buf_t            *out;
    const arb_http_who_t *who;
    const char           *match;        /* a match's stream: its id */
    const arb_setup_t    *setup;        /* ... its setup and state */
    int                   closed;
    size_t                cap;          /* bytes at most */
    int                   rc;           /* 0, 1 over cap, or ARB_E* */
} resume_ctx_t;

static int
resume_one(resume_ctx_t *x, uint64_t id, const char *match, uint64_t seq,
           int64_t t, const unsigned char *hash, const void *bytes,
           size_t len)
{
    const arb_setup_t *setup = x->setup;
    arb_setup_t        bare;
    arb_live_t        *l;
    arb_event_t        ev;
    arb_viewer_t       v;
    int                closed = x->closed;

    if (x->match == NULL) {
        /* the all-matches stream: each event's own match decides */
        if ((x->rc = arb_live_get(x->srv, match, &l, NULL)) != 0)
            return 1;
        memset(&bare, 0, sizeof(bare));
        bare.game = l->game;
        setup = l->m != NULL ? arb_match_setup(l->m) : &bare;
        closed = l->closed;
    }
    if ((x->rc = arb_event_decode(&ev, bytes, len, NULL)) != 0)
        return 1;
    v = arb_http_viewer(x->who, match, setup);
    arb_buf_printf(x->out, "event: ack\nid: %" PRIu64 "\ndata: ", id);
    if (arb_view_event_json(x->out, match, seq, t, hash, &ev, setup, closed,
                            &v) != 0)
        x->out->oom = 1;
    arb_buf_puts(x->out, "\n\n");
    arb_event_clear(&ev);
    if (x->out->oom)
        x->rc = ARB_ENOMEM;
    else if (x->out->len > x->cap)
        x->rc = 1;
    return x->rc != 0;
}

static int
on_resume_event(void *ud, uint64_t seq, int64_t t,
                const unsigned char hash[ARB_HASH_LEN], const void *bytes,
                size_t len)
{
    resume_ctx_t *x = ud;

    return resume_one(x, seq, x->match, seq, t, hash, bytes, len);
}

static int
on_resume_log(void *ud, uint64_t pos, const char *match, uint64_t seq,
              int64_t t, const unsigned char hash[ARB_HASH_LEN],
              const void *bytes, size_t len)
{
    return resume_one(ud, pos, match, seq, t, hash, bytes, len);
}

/* Fills out with the acks after `last` up to `upto` (a match's seqs, or
 * log positions when x->match is NULL).  0, or 1 when they cannot be
 * resumed (too many, too large, or an id never sent): reset. */
static int
resume(resume_ctx_t *x, uint64_t last, uint64_t upto)
{
    arb_buf_t why = ARB_BUF_INIT;
    int       rc;

    if (last > upto || upto - last > ARB_HTTP_RESUME_MAX)
        return 1;
    if (last == upto)
        return 0;
    if (x->match != NULL)
        rc = arb_store_events(x->srv->store, x->match, last + 1, upto,
                              on_resume_event, x, &why);
    else
        rc = arb_store_log(x->srv->store, NULL, last + 1, upto - last,
                           on_resume_log, x, &why);
    if (rc == ARB_ECORRUPT)
        arb_live_corrupt(x->srv, x->match, &why);
    arb_buf_free(&why);
    return rc != 0 || x->rc != 0 ? 1 : 0;
}

void
arb_http_live(arb_http_req_t *q, const char *match)
{
    struct arb_http   *h = q->srv->http;
    h2o_req_t         *req = q->req;
    arb_http_stream_t *s;
    arb_match_t       *m = NULL;
    arb_live_t        *l;
    arb_viewer_t       v;
    arb_setup_t        bare;
    arb_buf_t          b = ARB_BUF_INIT, why = ARB_BUF_INIT,
                       missed = ARB_BUF_INIT;
    resume_ctx_t       x;
    uint64_t           upto = 0, last = 0;
    int                has_last, reset = 0, rc, own = 1;

    if (arb_http_params_only(q, NULL) != 0)
        return;
    has_last = last_event_id(req, &last);
    memset(&x, 0, sizeof(x));
    x.srv = q->srv;
    x.out = &missed;
    x.who = &q->who;
    x.match = match;
    x.cap = q->srv->cfg.http.stream_max / 2;
    if (match != NULL) {
        if (arb_http_match_at(q, match, &upto, NULL, &l) != 0)
            return;
        /* The stream starts with the state: no separate fetch. */
        rc = arb_live_state(q->srv, match, upto, &m, &own, &why);
        if (rc != 0 && rc != ARB_ESEALED) {
            arb_http_replay_error(req, rc, arb_buf_cstr(&why));
            goto done;
        }
        x.closed = l->closed;
        if (rc == ARB_ESEALED) {
            /* A read replica without the deal: the stream starts with
             * `sealed` instead, then carries the acks (seen as with the
             * game alone, as /events shows them), and the close that
             * reveals the deal brings the first `state`. */
            memset(&bare, 0, sizeof(bare));
            bare.game = l->game;
            x.setup = &bare;
            arb_json_put_new(&b, json_pack(
                "{s:s,s:s,s:I,s:s,s:s}", "match", match, "game", l->game,
                "seq", (json_int_t)upto, "error", arb_buf_cstr(&why)
                ? arb_buf_cstr(&why) : arb_strerror(rc), "where", "deal"));
        } else {
            x.setup = arb_match_setup(m);
            v = arb_http_viewer(&q->who, match, x.setup);
            if (arb_view_report(&b, m, l->closed, &v) != 0)
                b.oom = 1;
        }
        if (b.oom) {
            arb_http_error(req, 500, "server", "out of memory");
            goto done;
        }
    } else {
        upto = q->srv->order_pos;
    }
    if (has_last != 0)
        reset = has_last < 0 || resume(&x, last, upto) != 0;
    s = calloc(1, sizeof(*s));
    if (s == NULL) {
        arb_http_error(req, 500, "server", "out of memory");
        goto done;
    }
    s->gen.proceed = on_proceed;
    s->gen.stop = on_stop;
    s->req = req;
    s->h = h;
    s->who = q->who;
    stream_attach(s);
    snprintf(s->match, sizeof(s->match), "%s", match != NULL ? match : "");
    s->next = h->streams;
    if (h->streams != NULL)
        h->streams->prev = s;
    h->streams = s;
    h->nstreams++;
    req->res.status = 200;
    req->res.reason = "OK";
    h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_CONTENT_TYPE,
                   NULL, H2O_STRLIT("text/event-stream; charset=utf-8"));
    h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_CACHE_CONTROL,
                   NULL, H2O_STRLIT("no-store"));
    h2o_start_response(req, &s->gen);
    if (reset) {
        why.len = 0;
        arb_json_put_new(&why, json_pack(
            "{s:s,s:o,s:I}", "error", "cannot resume after this id: fetch "
            "again", "last_event_id", has_last > 0
            ? json_integer((json_int_t)last) : json_null(),
            "id", (json_int_t)upto));
        if (why.oom) {
            cut(s);             /* as push does when memory runs out */
            goto done;
        }
        if (push(s, "reset", upto, why.data, why.len) != 0)
            goto done;
    } else if (missed.len > 0) {
        arb_buf_add(&s->pending, missed.data, missed.len);
    }
    if (match != NULL)
        push(s, m != NULL ? "state" : "sealed", upto, b.data, b.len);
    else {
        /* the headers go out at once, so the browser's `open` fires */
        arb_buf_puts(&s->pending, ": arbiter live\n\n");
        flush(s);
    }
done:
    if (own)
        arb_match_free(m);
    arb_buf_free(&b);
    arb_buf_free(&why);
    arb_buf_free(&missed);
}

/* The report cache of one round of pushes: a report per viewer (a
 * seat's differs per seat), made once for the streams that share it. */
typedef struct rep_cache {
    arb_buf_t    rep;
    arb_viewer_t have;
    int          cached;
} rep_cache_t;

/* l's live state (its committed state after seq) to stream s as viewer
 * v sees it, queued (the caller flushes); 0, or -1 when s was cut off. */
static int
push_state(arb_http_stream_t *s, const arb_live_t *l, uint64_t seq,
           arb_viewer_t v, rep_cache_t *c)
{
    if (!c->cached || c->have.kind != v.kind || c->have.seat != v.seat) {
        c->rep.len = 0;
        c->rep.oom = 0;
        c->cached = 0;
        if (arb_view_report(&c->rep, l->m, l->closed, &v) != 0
            || c->rep.oom)
            return 0;
        c->have = v;
        c->cached = 1;
    }
    return push_held(s, "state", seq, c->rep.data, c->rep.len);
}

/* One committed event of l (seq, at log position pos) to the streams
 * that show it; whole: l's live state is the committed state after it,
 * so a match's stream also gets that state. */
static void
streams_push(arb_server_t *srv, const arb_live_t *l, uint64_t seq,
             uint64_t pos, int64_t time_ms, const unsigned char *hash,
             const arb_event_t *e, int whole)
{
    struct arb_http   *h = srv->http;
    arb_http_stream_t *s, *next;
    arb_buf_t          evs[2] = { ARB_BUF_INIT, ARB_BUF_INIT },
                       own = ARB_BUF_INIT, *ev;
    arb_setup_t        bare;
    const arb_setup_t *setup;
    arb_viewer_t       v;
    rep_cache_t        c = { ARB_BUF_INIT, { ARB_VIEW_PUBLIC, 0 }, 0 };
    int                k;

    /* The event as each kind of viewer may see it (docs/VIEWS.md); a
     * seat's own is written per stream below. */
    memset(&bare, 0, sizeof(bare));
    bare.game = (char *)l->game;
    setup = l->m != NULL ? arb_match_setup(l->m) : &bare;
    for (k = 0; k < 2; k++) {
        arb_viewer_t who = { k ? ARB_VIEW_ALL : ARB_VIEW_PUBLIC, 0 };
        if (arb_view_event_json(&evs[k], l->id, seq, time_ms, hash, e,
                                setup, l->closed, &who) != 0 || evs[k].oom)
            goto done;
    }
    for (s = h->streams; s != NULL; s = next) {
        next = s->next;
        if (s->match[0] != '\0' && strcmp(s->match, l->id) != 0)
            continue;
        v = arb_http_viewer(&s->who, l->id, setup);
        if (v.kind == ARB_VIEW_SEAT) {
            own.len = 0;
            own.oom = 0;
            if (arb_view_event_json(&own, l->id, seq, time_ms, hash, e,
                                    setup, l->closed, &v) != 0 || own.oom)
                continue;
            ev = &own;
        } else {
            ev = &evs[v.kind == ARB_VIEW_PUBLIC ? 0 : 1];
        }
        /* a match's stream counts its seqs, the all-matches one the log;
         * the ack and the state leave in one write */
        if (push_held(s, "ack", s->match[0] != '\0' ? seq : pos,
                      ev->data, ev->len) != 0
            || (s->match[0] != '\0' && whole
                && push_state(s, l, seq, v, &c) != 0))
            continue;           /* cut off, and maybe gone */
        flush(s);
    }
done:
    arb_buf_free(&evs[0]);
    arb_buf_free(&evs[1]);
    arb_buf_free(&own);
    arb_buf_free(&c.rep);
}

void
arb_http_revoke(arb_server_t *srv)
{
    static const char msg[] = "event: revoked\ndata: {\"error\":\"the token "
        "of this stream was removed or changed by a reload of the tokens\","
        "\"where\":\"token\"}\n\n";
    arb_http_stream_t *s, *next;
    size_t             n = 0;

    if (srv->http == NULL)
        return;
    for (s = srv->http->streams; s != NULL; s = next) {
        next = s->next;
        if (s->ended || s->who.role < 0
            || arb_config_holds(&srv->cfg, s->who.print))
            continue;
        /* (No id: the browser's Last-Event-ID stays its last event's.) */
        arb_buf_add(&s->pending, msg, sizeof(msg) - 1);
        flush(s);
        end(s);
        n++;
    }
    if (n > 0)
        arb_log_ev(ARB_LOG_WARN, "token_revoked", NULL, "http: %zu live "
                   "streams ended: their token was removed or changed by "
                   "the reload", n);
}

void
arb_http_unsealed(arb_server_t *srv, const arb_live_t *l)
{
    arb_http_stream_t *s, *next;
    rep_cache_t        c = { ARB_BUF_INIT, { ARB_VIEW_PUBLIC, 0 }, 0 };

    if (srv->http == NULL || l->m == NULL || l->ninflight > 0)
        return;
    for (s = srv->http->streams; s != NULL; s = next) {
        next = s->next;     /* (a stream whose push fails is cut) */
        if (strcmp(s->match, l->id) == 0
            && push_state(s, l, l->committed, arb_http_viewer(&s->who,
                          l->id, arb_match_setup(l->m)), &c) == 0)
            flush(s);
    }
    arb_buf_free(&c.rep);
}

void
arb_http_committed(arb_server_t *srv, const arb_pending_t *p)
{
    const arb_live_t *l = p->live;

    if (srv->http == NULL || srv->http->streams == NULL)
        return;
    /* The live state is the committed one when nothing is queued behind
     * this event: the last of its match in the batch. */
    streams_push(srv, l, p->ap.seq, p->ap.pos, p->ap.time_ms, p->ap.hash,
                 &p->ev, l->m != NULL && l->ninflight == 0
                         && l->committed == p->ap.seq);
}

int
arb_http_shows(arb_server_t *srv, const char *match)
{
    const arb_http_stream_t *s;

    for (s = srv->http != NULL ? srv->http->streams : NULL; s != NULL;
         s = s->next)
        if (match == NULL || s->match[0] == '\0'
            || strcmp(s->match, match) == 0)
            return 1;
    return 0;
}

void
arb_http_appended(arb_server_t *srv, const arb_live_t *l, uint64_t seq,
                  uint64_t pos, int64_t time_ms, const unsigned char *hash,
                  const void *bytes, size_t len)
{
    arb_event_t ev;

    if (srv->http == NULL || srv->http->streams == NULL)
        return;
    if (arb_event_decode(&ev, bytes, len, NULL) != 0)
        return;
    /* l is at its new head: its state follows its last new event. */
    streams_push(srv, l, seq, pos, time_ms, hash, &ev,
                 l->m != NULL && l->committed == seq);
    arb_event_clear(&ev);
}

/*
 * Once a second every stream is looked at.  While its response streams,
 * libh2o does not read its socket, so a browser that closed the page (a
 * reload, a closed tab: a FIN) would hold its connection, a slot of
 * max_connections and a subscriber until a write failed, up to the next
 * ping: 256 reloads in 15 s locked every new client out (until
 * 2026-12-05).  So a socket that has reached its end of input gets a
 * ping at once: a peer that has gone answers it with a reset, and the
 * write of the next second fails, which ends the connection (on_stop).
 * A client that only shut its sending side and still reads keeps its
 * stream, with a ping a second.  Every 15 s a quiet stream gets a ping
 * anyway: proxies keep it open, and a browser that vanished without a
 * FIN is found by the failed write.
 */
#define ARB_HTTP_TICK_MS    1000
#define ARB_HTTP_PING_TICKS 15

/* 1 when the peer of s's connection has sent its last byte (or reset). */
static int
peer_done(const arb_http_stream_t *s)
{
    uv_os_fd_t fd;
    char       c;
    ssize_t    n;

    if (stream_fd(s, &fd) != 0)
        return 0;
    n = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK
                      && errno != EINTR);
}

static void
on_ping(uv_timer_t *t)
{
    struct arb_http   *h = t->data;
    arb_http_stream_t *s, *next;
    int                all = ++h->ticks % ARB_HTTP_PING_TICKS == 0;

    arb_http_stalls(h);
    for (s = h->streams; s != NULL; s = next) {
        next = s->next;
        if (!s->busy && !s->ended && s->pending.len == 0
            && (all || peer_done(s))) {
            arb_buf_puts(&s->pending, ":\n\n");
            flush(s);
        }
    }
}

int
arb_http_live_init(struct arb_http *h)
{
    int rc = uv_timer_init(h->srv->loop, &h->ping);

    if (rc != 0)
        return rc;
    h->ping.data = h;
    h->ping_init = 1;
    return uv_timer_start(&h->ping, on_ping, ARB_HTTP_TICK_MS,
                          ARB_HTTP_TICK_MS);
}

void
arb_http_conn_gone(arb_http_conn_t *hc)
{
    arb_http_write_conn_gone(hc);
    if (hc->stream != NULL) {
        hc->stream->hc = NULL;
        hc->stream = NULL;
    }
}

void
arb_http_live_end_all(struct arb_http *h)
{
    arb_http_stream_t *s, *next;

    if (h->ping_init) {
        uv_close((uv_handle_t *)&h->ping, NULL);
        h->ping_init = 0;
    }

    for (s = h->streams; s != NULL; s = next) {
        next = s->next;
        end(s);
    }
}
