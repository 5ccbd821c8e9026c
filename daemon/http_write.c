/*
 * http_write.c - the HTTP write routes (docs/HTTP.md, "Writing"):
 * POST /api/m/<id>/move, judge, note, undo and close, for the
 * scorekeeper's page (core/web/score.js) and any other HTTP client.
 *
 * DESIGN: a write over HTTP is a protocol request.  Its JSON body becomes
 * the msgpack request the binary protocol would carry ({op:"append",...}
 * or {op:"judge",...}) and is handed to arb_dispatch() on a connection
 * without a socket (arb_conn_new_sink), authenticated with the request's
 * token as op_auth would.  So idempotency by client event id, the expected
 * seq, the role checks, the rules, the group commit and "acknowledged only
 * after the LMDB commit" are the protocol's own code, not a copy; this
 * file only reads JSON, and turns the protocol's one answer back into
 * JSON.  An append is answered when its commit is acknowledged: the HTTP
 * request stays open until the ack reaches the sink.  If the browser goes
 * away first, libh2o disposes the request and the connection is released;
 * the append still commits (as on a protocol connection that closed), and
 * the browser's resend with the same cid gets the original seq back.
 *
 * A move may be sent as typed ("6D", "place alice 6D", core/move_text.h),
 * read against the match's live state; the answer gives it as recorded
 * (player, verb, args), which is what a resend should carry: a bare card
 * names the player whose turn it is, and after the first send commits
 * that is someone else.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/board.h"
#include "core/codec.h"
#include "core/err.h"
#include "core/json.h"
#include "core/json_item.h"
#include "core/jsonin.h"
#include "core/move_text.h"
#include "core/mp.h"
#include "core/transcript.h"
#include "core/view.h"
#include "core/ledger/store.h"
#include "daemon/dispatch.h"
#include "daemon/http.h"
#include "daemon/log.h"
#include "proto/limits.h"

enum { W_MOVE, W_JUDGE, W_NOTE, W_UNDO, W_CLOSE };

static const char *const route_names[] = {
    [W_MOVE] = "move", [W_JUDGE] = "judge", [W_NOTE] = "note",
    [W_UNDO] = "undo", [W_CLOSE] = "close",
};

/* One write in flight.  Held by the HTTP request (until libh2o disposes
 * it) and by the sink connection (until released); freed when neither
 * holds it. */
typedef struct arb_http_wr {
    h2o_req_t  *req;            /* NULL once libh2o disposed it */
    arb_conn_t *c;              /* NULL once released */
    struct arb_http    *h;      /* listed in h->writes: an append awaiting
                                   its ack (NULL: not listed) */
    struct arb_http_wr *prev, *next;
    arb_http_conn_t    *hc;     /* at a stop: its connection, held open
                                   for the answer (arb_http_write_hold) */
    int         route;
    int         dispatching;    /* inside arb_dispatch(): c stays */
    int         answered;
    int         answering;      /* inside answer(): w stays */
    const char *kind;           /* the event's kind (an append): "move",
                                   "note", "close", or an undo's "void"
                                   or "note" */
    char       *line;           /* the move as recorded (move, judge) */
    json_t     *move;           /* {"player","verb","args"} (move, judge) */
} wr_t;

/* Off the list of appends awaiting their ack, and off its connection. */
static void
wr_unlist(wr_t *w)
{
    if (w->hc != NULL) {
        w->hc->write = NULL;
        w->hc = NULL;
    }
    if (w->h == NULL)
        return;
    if (w->prev != NULL)
        w->prev->next = w->next;
    else
        w->h->writes = w->next;
    if (w->next != NULL)
        w->next->prev = w->prev;
    w->h = NULL;
    w->prev = w->next = NULL;
}

void
arb_http_write_hold(struct arb_http *h)
{
    arb_http_conn_t *hc;
    h2o_socket_t    *sock;
    wr_t            *w;

    /* Once, at the stop: a search of the connections for each. */
    for (w = h->writes; w != NULL; w = w->next)
        for (hc = h->conns; w->req != NULL && hc != NULL; hc = hc->next) {
            sock = hc->tcp.data;
            if (sock != NULL && sock->data == (void *)w->req->conn
                && hc->write == NULL) {
                hc->write = w;
                w->hc = hc;
                break;
            }
        }
}

void
arb_http_write_conn_gone(arb_http_conn_t *hc)
{
    if (hc->write != NULL) {
        hc->write->hc = NULL;
        hc->write = NULL;
    }
}

static void
wr_maybe_free(wr_t *w)
{
    if (w->req != NULL || w->c != NULL || w->answering)
        return;
    wr_unlist(w);
    free(w->line);
    json_decref(w->move);
    free(w);
}

static void
wr_release_conn(wr_t *w)
{
    arb_conn_t *c = w->c;

    if (c == NULL)
        return;
    w->c = NULL;
    arb_conn_release(c);
}

/* libh2o disposes the request: answered and sent, or the client gone. */
static void
on_dispose(void *p)
{
    wr_t *w = *(wr_t **)p;

    w->req = NULL;
    wr_unlist(w);
    if (!w->dispatching)
        wr_release_conn(w);
    wr_maybe_free(w);
}

/* ---- the answer --------------------------------------------------------- */

/* A refusal decided here, before the protocol's dispatcher: with the code
 * the protocol gives the same refusal (code NULL: the status's,
 * arb_http_error), so that a client sees one shape whichever side
 * decides (until 2026-12-06 these had no code: a typed move to no match
 * was 404 without it, as fields with it). */
static void
werr(h2o_req_t *req, int status, const char *where, const char *code,
     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void
werr(h2o_req_t *req, int status, const char *where, const char *code,
     const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    arb_http_error_code(req, status, where, code, fmt, ap);
    va_end(ap);
}

static int
status_of(const char *code)
{
    static const struct { const char *code; int status; } map[] = {
        { "proto", 400 }, { "too_big", 400 }, { "invalid", 422 },
        { "illegal", 422 }, { "over", 422 }, { "forbidden", 403 },
        { "unauthenticated", 401 }, { "not_found", 404 },
        { "conflict", 409 }, { "idempotency", 409 }, { "exists", 409 },
        { "read_only", 503 }, { "fenced", 503 }, { "not_owner", 503 },
        { "shutting_down", 503 }, { "busy", 503 }, { "full", 507 },
        /* replication: not yet compared with the stream, or committed
         * here and not yet in the stream; both say send it again, same
         * cid (until 2026-12-08 a 500, which says nothing will help) */
        { "unverified", 503 }, { "unreplicated", 503 },
    };
    size_t i;

    for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (strcmp(map[i].code, code) == 0)
            return map[i].status;
    return 500;
}

/* The request field a refusal is about, for "where". */
static const char *
where_of(const char *code, int route)
{
    if (strcmp(code, "conflict") == 0)
        return "expect";
    if (strcmp(code, "idempotency") == 0)
        return "cid";
    if (strcmp(code, "forbidden") == 0 || strcmp(code, "unauthenticated") == 0)
        return "authorization";
    if (strcmp(code, "not_found") == 0)
        return "match";
    if (strcmp(code, "illegal") == 0 || strcmp(code, "over") == 0
        || strcmp(code, "invalid") == 0)
        return route_names[route];
    return "request";
}

/* A JSON string of the bytes p[0..n) (a msgpack str: not NUL-terminated),
 * or NULL (out of memory). */
static json_t *
bytes_value(const char *p, size_t n)
{
    arb_buf_t tmp = ARB_BUF_INIT;
    json_t   *v;

    arb_buf_add(&tmp, p, n);
    v = arb_json_string(arb_buf_cstr(&tmp) ? arb_buf_cstr(&tmp) : "");
    if (tmp.oom) {
        json_decref(v);
        v = NULL;
    }
    arb_buf_free(&tmp);
    return v;
}

/* "line" and "move" of w's move, when it sent one.  0 or -1. */
static int
set_move(json_t *o, const wr_t *w)
{
    if (w->line == NULL)
        return 0;
    return arb_json_set(o, "line", arb_json_string(w->line))
         | arb_json_set(o, "move", json_incref(w->move));
}

/* The judge's verdict, JSON the recorder wrote (core/json.h) and sent as
 * bytes: read back so that it is written inside this answer as one value;
 * null when absent or not JSON. */
static json_t *
verdict_value(const char *p, size_t n)
{
    json_t *v = json_loadb(p, n, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES,
                           NULL);

    return v != NULL ? v : json_null();
}

/* The protocol's answer msg[0..len) as JSON to w's request. */
static void
answer(wr_t *w, const char *msg, size_t len)
{
    msgpack_unpacked       res;
    const msgpack_object  *ok, *err;
    arb_buf_t              b = ARB_BUF_INIT, why = ARB_BUF_INIT;
    const char            *code = "internal", *p;
    char                   codebuf[32], hex[ARB_HASH_HEX];
    size_t                 n;
    uint64_t               u;
    h2o_req_t             *req = w->req;
    json_t                *o = NULL;
    int                    bad = 0;

    msgpack_unpacked_init(&res);
    if (arb_mp_parse(&res, msg, len, &why) != 0
        || (ok = arb_mp_get(&res.data, "ok")) == NULL
        || ok->type != MSGPACK_OBJECT_BOOLEAN) {
        werr(req, 500, "internal", NULL, "no answer from the recorder");
        goto done;
    }
    o = json_object();
    if (!ok->via.boolean) {
        err = arb_mp_get(&res.data, "error");
        if (err != NULL && arb_mp_get_bytes(err, "code", &p, &n) == 0
            && n < sizeof(codebuf)) {
            memcpy(codebuf, p, n);
            codebuf[n] = '\0';
            code = codebuf;
        }
        req->res.status = status_of(code);
        if (err != NULL && arb_mp_get_bytes(err, "message", &p, &n) == 0)
            bad |= arb_json_set(o, "error", bytes_value(p, n));
        else
            bad |= arb_json_set(o, "error", arb_json_string(code));
        bad |= arb_json_set(o, "where",
                            arb_json_string(where_of(code, w->route)));
        bad |= arb_json_set(o, "code", arb_json_string(code));
        if (err != NULL && arb_mp_get_bytes(err, "rule", &p, &n) == 0)
            bad |= arb_json_set(o, "rule", bytes_value(p, n));
    } else if (w->route == W_JUDGE) {
        if (arb_mp_get_bytes(&res.data, "match", &p, &n) != 0)
            p = "", n = 0;
        bad |= arb_json_set(o, "match", bytes_value(p, n));
        if (arb_mp_get_uint(&res.data, "at", &u) == 0)
            bad |= arb_json_set(o, "at", json_integer((json_int_t)u));
        bad |= set_move(o, w);
        if (arb_mp_get_bytes(&res.data, "json", &p, &n) == 0)
            bad |= arb_json_set(o, "verdict", verdict_value(p, n));
        else
            bad |= arb_json_set(o, "verdict", json_null());
    } else {
        const msgpack_object *dup = arb_mp_get(&res.data, "dup");
        if (arb_mp_get_bytes(&res.data, "match", &p, &n) != 0)
            p = "", n = 0;
        bad |= arb_json_set(o, "match", bytes_value(p, n));
        if (arb_mp_get_uint(&res.data, "seq", &u) == 0)
            bad |= arb_json_set(o, "seq", json_integer((json_int_t)u));
        if (arb_mp_get_bytes(&res.data, "hash", &p, &n) == 0
            && n == ARB_HASH_LEN) {
            arb_hex32(hex, (const unsigned char *)p);
            bad |= arb_json_set(o, "hash", json_string(hex));
        }
        if (arb_mp_get_uint(&res.data, "pos", &u) == 0)
            bad |= arb_json_set(o, "pos", json_integer((json_int_t)u));
        bad |= arb_json_set(o, "duplicate",
                            json_boolean(dup != NULL
                                         && dup->type == MSGPACK_OBJECT_BOOLEAN
                                         && dup->via.boolean));
        if (w->kind != NULL)
            bad |= arb_json_set(o, "kind", json_string(w->kind));
        bad |= set_move(o, w);
    }
    if (bad)
        b.oom = 1;
    else
        arb_json_put(&b, o);
    arb_buf_puts(&b, "\n");
    if (b.oom) {
        werr(req, 500, "internal", NULL, "out of memory");
        goto done;
    }
    if (req->res.status == 0)
        req->res.status = 200;
    arb_http_send_status(req, req->res.status, "application/json", b.data,
                         b.len);
done:
    json_decref(o);
    msgpack_unpacked_destroy(&res);
    arb_buf_free(&b);
    arb_buf_free(&why);
}

static void
on_sink(arb_conn_t *c, const char *msg, size_t len)
{
    wr_t *w = c->sink_data;

    if (w == NULL || w->answered)
        return;
    w->answered = 1;
    /* Should libh2o finish the request within the send, w outlives it. */
    w->answering = 1;
    /* At a stop its connection was held open for this answer: closed
     * once it is sent. */
    if (w->req != NULL && c->srv->stopping)
        w->req->http1_is_persistent = 0;
    wr_unlist(w);
    if (w->req != NULL)
        answer(w, msg, len);
    w->answering = 0;
    /* An ack arrives outside arb_dispatch, and the append it answers
     * still holds c (refs): releasing here cannot free it under the
     * commit code's feet. */
    if (!w->dispatching)
        wr_release_conn(w);
    wr_maybe_free(w);
}

/* ---- the request -------------------------------------------------------- */

/* Fields each route takes; anything else in the body is refused. */
static const char *const route_fields[][7] = {
    [W_MOVE]  = { "text", "player", "verb", "args", "cid", "expect", NULL },
    [W_JUDGE] = { "text", "player", "verb", "args", NULL },
    [W_NOTE]  = { "text", "cid", "expect", NULL },
    [W_UNDO]  = { "seq", "reason", "cid", NULL },
    [W_CLOSE] = { "reason", "cid", NULL },
};

/* The `where` of a body the reader refused: the member it names ("line
 * 1, column 12: expect: 3.0 is not an integer: ...", "args[1]: ...", or
 * a member given twice, 'key "expect" given twice'), when the route
 * takes one of that name, else "body" (until 2026-12-06 the last two
 * were "body"). */
static const char *
body_where(const char *why, int route)
{
    const char *p = why != NULL ? strstr(why, "column ") : NULL;
    const char *const *f;
    size_t      n;
    int         dup;

    if (p == NULL || (p = strstr(p, ": ")) == NULL)
        return "body";
    p += 2;
    dup = strncmp(p, "key \"", 5) == 0;
    p += dup ? 5 : 0;
    n = strcspn(p, dup ? "\"" : ":[. ");
    for (f = route_fields[route]; *f != NULL; f++)
        if (strlen(*f) == n && strncmp(*f, p, n) == 0
            && (dup ? strncmp(p + n, "\" given twice", 13) == 0
                    : p[n] == ':' || p[n] == '['))
            return *f;
    return "body";
}

/* Checks the body's members: known, of the right type, in bounds.  0, or
 * -1 with the 400 sent naming the member. */
static int
check_body(h2o_req_t *req, int route, json_t *o)
{
    const char *key, *const *f;
    json_t     *v, *a;
    size_t      i, max;

    json_object_foreach(o, key, v) {
        for (f = route_fields[route]; *f != NULL; f++)
            if (strcmp(*f, key) == 0)
                break;
        /* (A member named "" is the body's fault: `where` is never
         * empty; until 2026-12-06 it was.) */
        if (*f == NULL) {
            werr(req, 400, *key != '\0' ? key : "body", NULL,
                 "%s takes no '%s'", route_names[route], key);
            return -1;
        }
        if (strcmp(key, "expect") == 0 || strcmp(key, "seq") == 0) {
            if (!json_is_integer(v) || json_integer_value(v) < 0) {
                werr(req, 400, key, NULL, "%s must be a seq (a "
                     "non-negative integer)", key);
                return -1;
            }
            continue;
        }
        /* Over a limit is the protocol's too_big, the wrong shape its
         * proto (until 2026-12-06 both were proto here). */
        if (strcmp(key, "args") == 0) {
            if (!json_is_array(v) || json_array_size(v) > ARB_ARGS_MAX) {
                werr(req, 400, key, json_is_array(v) ? "too_big" : NULL,
                     "args must be an array of at most %d strings",
                     ARB_ARGS_MAX);
                return -1;
            }
            json_array_foreach(v, i, a)
                if (!json_is_string(a) || json_string_length(a) == 0
                    || json_string_length(a) > ARB_ARG_BYTES) {
                    werr(req, 400, key, json_is_string(a)
                         && json_string_length(a) > 0 ? "too_big" : NULL,
                         "args[%zu] must be a string of 1..%d bytes", i,
                         ARB_ARG_BYTES);
                    return -1;
                }
            continue;
        }
        max = strcmp(key, "cid") == 0 ? ARB_STORE_CLIENT_MAX : 1024;
        if (!json_is_string(v) || json_string_length(v) == 0
            || json_string_length(v) > max
            || strlen(json_string_value(v)) != json_string_length(v)) {
            werr(req, 400, key, json_is_string(v)
                 && json_string_length(v) > max ? "too_big" : NULL,
                 "%s must be a string of 1..%zu bytes", key, max);
            return -1;
        }
    }
    return 0;
}

static const char *
str_of(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* The move of a move or judge body into w->move and w->line: "text" as
 * typed, or "verb", "player" and "args".  0, or -1 (answered). */
static int
read_move(arb_http_req_t *q, wr_t *w, const char *match, json_t *o)
{
    arb_event_t ev;
    arb_live_t *l = NULL;
    arb_buf_t   why = ARB_BUF_INIT, line = ARB_BUF_INIT;
    char        buf[1025], *words[ARB_ARGS_MAX + 3];
    json_t     *args;
    size_t      n, i;
    int         rc = -1;

    memset(&ev, 0, sizeof(ev));
    if (str_of(o, "text") != NULL) {
        if (json_object_get(o, "verb") || json_object_get(o, "player")
            || json_object_get(o, "args")) {
            werr(q->req, 400, "text", NULL, "a move is either text or "
                 "verb, player and args");
            goto done;
        }
        snprintf(buf, sizeof(buf), "%s", str_of(o, "text"));
        n = arb_move_words(buf, words, ARB_ARGS_MAX + 3);
        if (n > ARB_ARGS_MAX + 2) {
            werr(q->req, 400, "text", "too_big", "too many words (at most "
                 "%d)", ARB_ARGS_MAX + 2);
            goto done;
        }
        rc = arb_live_get(q->srv, match, &l, &why);
        if (rc == ARB_ENOTFOUND) {
            werr(q->req, 404, "match", NULL, "no match '%s'", match);
            rc = -1;
            goto done;
        }
        /* Sealed here (a read replica without the replication key):
         * said as a state read says it (until 2026-12-06 a 500 "out of
         * memory"). */
        if (rc == 0 && l->m == NULL) {
            werr(q->req, 503, "deal", NULL, "match '%s' is dealt and "
                 "this recorder does not hold its deal (a read "
                 "replica without the replication key): it "
                 "cannot read a typed move; the primary can",
                 match);
            rc = -1;
            goto done;
        }
        if (rc == 0)
            rc = arb_move_from_words(l->m, NULL, words, n, &ev, &why);
        if (rc != 0) {
            werr(q->req, rc == ARB_EINVAL ? 400 : 500, "text",
                 rc == ARB_EINVAL ? "invalid" : NULL,
                 "%s", arb_buf_cstr(&why) ? arb_buf_cstr(&why)
                 : "out of memory");
            rc = -1;
            goto done;
        }
        rc = -1;
        /* The words typed are held to what `args` is held to (until
         * 2026-12-06 a word of 300 bytes reached the rules). */
        for (i = 0; i < ev.nargs; i++)
            if (strlen(ev.args[i]) > ARB_ARG_BYTES) {
                werr(q->req, 400, "text", "too_big", "argument %zu of the "
                     "move is longer than %d bytes", i + 1,
                     ARB_ARG_BYTES);
                goto done;
            }
    } else {
        if (str_of(o, "verb") == NULL || str_of(o, "player") == NULL) {
            werr(q->req, 400, str_of(o, "verb") ? "player"
                 : "verb", NULL, "a move needs text, or verb and "
                 "player (and args)");
            goto done;
        }
        ev.kind = ARB_EV_MOVE;
        ev.player = strdup(str_of(o, "player"));
        ev.verb = strdup(str_of(o, "verb"));
        args = json_object_get(o, "args");
        for (i = 0; i < json_array_size(args); i++)
            if (arb_event_add_arg(&ev, json_string_value(
                                      json_array_get(args, i))) != 0)
                goto oom;
        if (ev.player == NULL || ev.verb == NULL)
            goto oom;
    }
    arb_transcript_event_line(&line, &ev);
    w->move = json_pack("{s:s,s:s,s:[]}", "player", ev.player, "verb",
                        ev.verb, "args");
    for (i = 0; w->move != NULL && i < ev.nargs; i++)
        if (json_array_append_new(json_object_get(w->move, "args"),
                                  json_string(ev.args[i])) != 0)
            goto oom;
    if (w->move == NULL || arb_buf_cstr(&line) == NULL)
        goto oom;
    w->line = line.data;
    line.data = NULL;
    rc = 0;
    goto done;
oom:
    werr(q->req, 500, "internal", NULL, "out of memory");
done:
    arb_event_clear(&ev);
    arb_buf_free(&why);
    arb_buf_free(&line);
    return rc;
}

/* An undo, as the console does it (tools/cmd_record.c): an arbiter's is a
 * void ruling of the move at `seq`, a scorer's a note asking an arbiter to
 * rule (core/board.h), naming the move.  Packs kind (also into *kind),
 * target and text; 0, or -1 (answered). */
static int
pack_undo(arb_http_req_t *q, const arb_token_t *t, const char *match,
          json_t *o, msgpack_packer *pk, const char **kind)
{
    const char      *reason = str_of(o, "reason");
    arb_event_t      ev;
    arb_match_info_t info;
    arb_live_t      *l = NULL;
    arb_buf_t        text = ARB_BUF_INIT, line = ARB_BUF_INIT;
    arb_buf_t        why = ARB_BUF_INIT;
    uint64_t         seq, upto = 0;
    int              rc = -1;

    memset(&ev, 0, sizeof(ev));
    if (json_object_get(o, "seq") == NULL) {
        werr(q->req, 400, "seq", NULL, "undo needs the seq of the move "
             "to undo");
        return -1;
    }
    seq = (uint64_t)json_integer_value(json_object_get(o, "seq"));
    if (arb_store_match(q->srv->store, match, &info, &why) == 0)
        upto = arb_live_committed(q->srv, match, &info);
    else {
        werr(q->req, 404, "match", NULL, "no match '%s'", match);
        goto done;
    }
    /* A move let stand is a move on the table too: voided as `arbiter
     * rule void` voids it (refused here until 2026-12-06). */
    if (seq < 1 || seq > upto || arb_live_event(q->srv, match, seq, &ev) != 0
        || (ev.kind != ARB_EV_MOVE && ev.kind != ARB_EV_STANDS)) {
        werr(q->req, 400, "seq", "invalid", "seq %" PRIu64 " is no recorded "
             "move of match '%s'", seq, match);
        goto done;
    }
    /* The note is public: it names the move as a spectator sees it. */
    if (arb_live_get(q->srv, match, &l, &why) != 0
        || arb_view_public_line(&line, &ev, arb_match_setup(l->m)) != 0) {
        werr(q->req, 500, "internal", NULL, "match '%s': %s", match,
             arb_buf_cstr(&why) ? arb_buf_cstr(&why)
             : "out of memory");
        goto done;
    }
    if (t->role == ARB_ROLE_ARBITER) {
        if (reason != NULL)
            arb_buf_puts(&text, reason);
        else
            arb_buf_printf(&text, "undo at the scorekeeper page of %s",
                           t->identity);
        arb_mp_pack_kv_str(pk, "kind", *kind = "void");
        arb_mp_pack_kv_uint(pk, "target", seq);
    } else {
        arb_undo_note(&text, seq, arb_buf_cstr(&line) ? line.data : "");
        if (reason != NULL)
            arb_buf_printf(&text, ": %s", reason);
        arb_mp_pack_kv_str(pk, "kind", *kind = "note");
    }
    if (arb_buf_cstr(&text) == NULL) {
        werr(q->req, 500, "internal", NULL, "out of memory");
        goto done;
    }
    arb_mp_pack_kv_str(pk, "text", text.data);
    rc = 0;
done:
    arb_event_clear(&ev);
    arb_buf_free(&text);
    arb_buf_free(&line);
    arb_buf_free(&why);
    return rc;
}

/* The connection of the request's token, as op_auth makes it. */
static arb_conn_t *
sink_conn(arb_server_t *srv, const arb_token_t *t, wr_t *w)
{
    arb_conn_t *c = arb_conn_new_sink(srv, on_sink, w);

    if (c != NULL && arb_conn_take_token(c, t) != 0) {
        arb_conn_release(c);
        c = NULL;
    }
    return c;
}

int
arb_http_write_route(const char *name)
{
    size_t i;

    for (i = 0; i < sizeof(route_names) / sizeof(route_names[0]); i++)
        if (strcmp(route_names[i], name) == 0)
            return (int)i;
    return -1;
}

void
arb_http_write(arb_http_req_t *q, const char *match, int route)
{
    h2o_req_t         *req = q->req;
    const arb_token_t *t = q->token;
    json_t            *o = NULL;
    arb_buf_t          why = ARB_BUF_INIT, frame = ARB_BUF_INIT;
    msgpack_packer     pk;
    wr_t              *w, **slot;
    size_t             nf;

    if (t == NULL) {
        werr(req, 401, "authorization", NULL, "a write needs a token "
             "in the Authorization header (Bearer TOKEN)");
        return;
    }
    if (t->role < ARB_ROLE_SCORER) {
        werr(req, 403, "authorization", NULL, "%s needs a scorer's or "
             "an arbiter's token; %s is a %s", route_names[route],
             t->identity, arb_role_name(t->role));
        return;
    }
    if (arb_http_params_only(q, NULL) != 0)
        return;
    if (req->entity.base == NULL || req->entity.len == 0) {
        werr(req, 400, "body", NULL, "the body is a JSON object");
        return;
    }
    if (arb_json_parse(&o, req->entity.base, req->entity.len, &why) != 0) {
        werr(req, 400, body_where(arb_buf_cstr(&why), route), NULL,
             "the body is a JSON object: %s",
             arb_buf_cstr(&why) ? arb_buf_cstr(&why)
             : "it cannot be read");
        goto done;
    }
    if (!json_is_object(o)) {
        werr(req, 400, "body", NULL, "the body is a JSON object, not %s",
             json_is_array(o) ? "an array" : json_is_null(o)
             ? "null" : json_is_string(o) ? "a string"
             : json_is_boolean(o) ? "a boolean" : "a number");
        goto done;
    }
    if (check_body(req, route, o) != 0)
        goto done;
    if (route == W_NOTE && str_of(o, "text") == NULL) {
        werr(req, 400, "text", NULL, "a note needs its text");
        goto done;
    }
    w = calloc(1, sizeof(*w));
    if (w == NULL) {
        werr(req, 500, "internal", NULL, "out of memory");
        goto done;
    }
    w->route = route;
    slot = h2o_mem_alloc_shared(&req->pool, sizeof(*slot), on_dispose);
    *slot = w;
    w->req = req;               /* freed once the request is disposed */
    w->c = sink_conn(q->srv, t, w);
    if (w->c == NULL) {
        werr(req, 500, "internal", NULL, "out of memory");
        goto done;
    }
    /* Before the body is read against the match: a scorer of another
     * match learns nothing of this one. */
    if (!arb_conn_may_record(w->c, match)) {
        werr(req, 403, "authorization", NULL, "%s (%s) may not record "
             "in match '%s'", t->identity, arb_role_name(t->role),
             match);
        goto release;
    }
    if ((route == W_MOVE || route == W_JUDGE)
        && read_move(q, w, match, o) != 0)
        goto release;
    /* The request: what the protocol's client would send. */
    arb_mp_packer_init(&pk, &frame);
    nf = 4 + (route == W_MOVE ? 4 : route == W_JUDGE ? 3 : route == W_NOTE
              ? 2 : route == W_CLOSE ? 1 + (str_of(o, "reason") != NULL)
              : 2 + (t->role == ARB_ROLE_ARBITER))    /* undo */
       + (json_object_get(o, "cid") != NULL)
       + (json_object_get(o, "expect") != NULL);
    msgpack_pack_map(&pk, nf);
    arb_mp_pack_kv_uint(&pk, "v", 1);
    arb_mp_pack_kv_uint(&pk, "id", 1);
    arb_mp_pack_kv_str(&pk, "op", route == W_JUDGE ? "judge" : "append");
    arb_mp_pack_kv_str(&pk, "match", match);
    if (route == W_MOVE || route == W_JUDGE) {
        json_t *args = json_object_get(w->move, "args");
        char   *v[ARB_ARGS_MAX];
        size_t  i, n = json_array_size(args);
        /* (read_move holds a move to ARB_ARGS_MAX; never past v.) */
        n = n < ARB_ARGS_MAX ? n : ARB_ARGS_MAX;
        for (i = 0; i < n; i++)
            v[i] = (char *)json_string_value(json_array_get(args, i));
        if (route == W_MOVE)
            arb_mp_pack_kv_str(&pk, "kind", w->kind = "move");
        arb_mp_pack_kv_str(&pk, "player", str_of(w->move, "player"));
        arb_mp_pack_kv_str(&pk, "verb", str_of(w->move, "verb"));
        arb_mp_pack_kv_strv(&pk, "args", v, n);
    } else if (route == W_NOTE) {
        arb_mp_pack_kv_str(&pk, "kind", w->kind = "note");
        arb_mp_pack_kv_str(&pk, "text", str_of(o, "text"));
    } else if (route == W_CLOSE) {
        arb_mp_pack_kv_str(&pk, "kind", w->kind = "close");
        if (str_of(o, "reason") != NULL)
            arb_mp_pack_kv_str(&pk, "text", str_of(o, "reason"));
    } else if (pack_undo(q, t, match, o, &pk, &w->kind) != 0) {
        goto release;
    }
    if (json_object_get(o, "cid") != NULL)
        arb_mp_pack_kv_str(&pk, "cid", str_of(o, "cid"));
    if (json_object_get(o, "expect") != NULL)
        arb_mp_pack_kv_uint(&pk, "expect", (uint64_t)json_integer_value(
                                json_object_get(o, "expect")));
    if (frame.oom) {
        werr(req, 500, "internal", NULL, "out of memory");
        goto release;
    }
    w->dispatching = 1;
    arb_dispatch(w->c, frame.data, frame.len);
    w->dispatching = 0;
    if (!w->answered) {
        /* an append: answered at its ack */
        w->h = q->srv->http;
        w->next = w->h->writes;
        if (w->next != NULL)
            w->next->prev = w;
        w->h->writes = w;
        goto done;
    }
release:
    wr_release_conn(w);
    wr_maybe_free(w);
done:
    json_decref(o);
    arb_buf_free(&why);
    arb_buf_free(&frame);
}
