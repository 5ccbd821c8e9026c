/*
 * http.c - the recorder's HTTP server (docs/HTTP.md): libh2o's HTTP/1.1
 * on the daemon's own libuv loop; pages, the JSON read API, live streams
 * and /metrics.
 *
 * DESIGN: libh2o parses HTTP; this file only routes.  Every connection is
 * a uv_tcp_t of ours handed to h2o_uv_socket_create, so the connection cap
 * is counted at accept and the close callback, and the daemon can end a
 * connection libh2o holds (shutdown(2) on its socket: libh2o sees the
 * error and closes it through its own path).  Nothing here waits for
 * anything: every response is built from committed data at once, and the
 * live streams (http_live.c) hold at most stream_max bytes each, so no
 * browser can slow the writer.  Limits: a request head over header_max is
 * answered 431 as soon as that many bytes have arrived without its end
 * (the head guard, http_guard.c), or once libh2o has parsed it when it
 * came whole in one read (libh2o alone would buffer up to H2O_MAX_REQLEN,
 * 8 KiB + 100 x 4 KiB, before answering 400); a body over body_max is
 * answered 413 by libh2o; a head not complete within header_timeout_ms
 * (slowloris) or an idle keep-alive connection is closed by libh2o's
 * request timeout; connections over max_connections are closed at
 * accept.
 */
#include <arpa/inet.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "core/err.h"
#include "core/event.h"
#include "core/json.h"
#include "core/web/assets.h"
#include "daemon/http.h"
#include "daemon/log.h"
#include "proto/addr.h"

/* ---- responses ---------------------------------------------------------- */

static const char *
reason_of(int status)
{
    switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 409: return "Conflict";
    case 413: return "Payload Too Large";
    case 422: return "Unprocessable Entity";
    case 431: return "Request Header Fields Too Large";
    case 503: return "Service Unavailable";
    case 507: return "Insufficient Storage";
    default:  return "Internal Server Error";
    }
}

static void
send_body(h2o_req_t *req, int status, const char *type, const void *body,
          size_t len)
{
    req->res.status = status;
    req->res.reason = reason_of(status);
    req->res.content_length = len;
    h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_CONTENT_TYPE,
                   NULL, type, strlen(type));
    h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_CACHE_CONTROL,
                   NULL, H2O_STRLIT("no-store"));
    h2o_send_inline(req, body, len);
}

void
arb_http_send(h2o_req_t *req, const char *type, const void *body, size_t len)
{
    send_body(req, 200, type, body, len);
}

void
arb_http_send_status(h2o_req_t *req, int status, const char *type,
                     const void *body, size_t len)
{
    send_body(req, status, type, body, len);
}

void
arb_http_error_body_code(arb_buf_t *b, const char *msg, const char *where,
                         const char *code)
{
    json_t *o = json_object();
    int     bad;

    bad = arb_json_set(o, "error", arb_json_string(msg));
    bad |= arb_json_set(o, "where", arb_json_string(where));
    if (code != NULL)
        bad |= arb_json_set(o, "code", arb_json_string(code));
    if (bad)
        b->oom = 1;
    else
        arb_json_put(b, o);
    json_decref(o);
    arb_buf_putc(b, '\n');
}

void
arb_http_replay_error(h2o_req_t *req, int rc, const char *msg)
{
    if (rc == ARB_ESEALED)
        arb_http_error(req, 503, "deal", "%s", msg);
    else
        arb_http_error(req, 500, "replay", "%s", msg);
}

void
arb_http_error(h2o_req_t *req, int status, const char *where,
               const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    arb_http_error_code(req, status, where, NULL, fmt, ap);
    va_end(ap);
}

/* The protocol's error code of an HTTP refusal with `status` and
 * `where`, when its caller names none: every error carries one (until
 * 2026-12-06 only those the protocol's dispatcher answered). */
static const char *
code_of(int status, const char *where)
{
    switch (status) {
    case 400: return "proto";
    case 401: return "unauthenticated";
    case 403: return "forbidden";
    case 404: return "not_found";
    case 405: return "unsupported";
    case 409: return "conflict";
    case 413: case 431: return "too_big";
    case 422: return "invalid";
    case 503: return strcmp(where, "deal") == 0 ? "read_only"
                   : strcmp(where, "stopping") == 0 ? "shutting_down"
                   : "busy";
    case 507: return "full";
    default:  return "internal";
    }
}

void
arb_http_error_code(h2o_req_t *req, int status, const char *where,
                    const char *code, const char *fmt, va_list ap)
{
    arb_buf_t b = ARB_BUF_INIT;
    char      msg[512];

    if (code == NULL)
        code = code_of(status, where);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    arb_http_error_body_code(&b, msg, where, code);
    if (status == 401)
        h2o_add_header(&req->pool, &req->res.headers,
                       H2O_TOKEN_WWW_AUTHENTICATE, NULL,
                       H2O_STRLIT("Bearer realm=\"arbiter\""));
    if (status == 405
        && h2o_find_header(&req->res.headers, H2O_TOKEN_ALLOW, -1) < 0)
        h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_ALLOW, NULL,
                       H2O_STRLIT("GET"));
    if (b.oom)
        send_body(req, 500, "application/json",
                  H2O_STRLIT("{\"error\":\"out of memory\",\"where\":\"\"}\n"));
    else
        send_body(req, status, "application/json", b.data, b.len);
    arb_buf_free(&b);
}

/* ---- URL pieces ------------------------------------------------------- */

int
arb_http_param(arb_http_req_t *q, const char *key, char *out, size_t cap)
{
    const char *v;
    size_t      n;
    int         rc;

    if (q->query == NULL)
        return 0;
    /* "?at" or "?hands": asked for, and no answer can say what (until
     * 2026-12-08 dropped without a word, and the answer taken for what
     * was asked) */
    if (arb_http_query_bare(q->query, q->qlen, key)) {
        arb_http_error(q->req, 400, key, "%s given without a value "
                       "(%s=...)", key, key);
        return -1;
    }
    if ((rc = arb_http_query_find(q->query, q->qlen, key, &v, &n)) == 0)
        return 0;
    /* Refused, as a second Content-Length is: a cache or proxy in front
     * may have read the other one (until 2026-12-07 the first won). */
    if (rc == 2) {
        arb_http_error(q->req, 400, key, "%s given twice: one of each",
                       key);
        return -1;
    }
    if (arb_http_unescape(v, n, out, cap) != 0) {
        arb_http_error(q->req, 400, key, "bad percent-encoding or too long "
                       "(at most %zu bytes)", cap - 1);
        return -1;
    }
    return 1;
}

int
arb_http_param_u64(arb_http_req_t *q, const char *key, uint64_t lo,
                   uint64_t hi, uint64_t *out)
{
    char v[24];
    int  rc;

    rc = arb_http_param(q, key, v, sizeof(v));
    if (rc <= 0)
        return rc;
    if (arb_http_u64_parse(v, lo, hi, out) == 0)
        return 1;
    arb_http_error(q->req, 400, key, "%s must be a number from %llu to %llu",
                   key, (unsigned long long)lo, (unsigned long long)hi);
    return -1;
}

/* A parameter misspelt ("?form=5") would otherwise be dropped without a
 * word, and the answer taken for what was asked (until 2026-12-07 every
 * unknown one was): refused, as a write's unknown member is. */
int
arb_http_params_only(arb_http_req_t *q, ...)
{
    const char *names[8], *key, *n;
    size_t      nn = 0, klen;
    char        list[128];
    size_t      i, at = 0;
    va_list     ap;

    names[nn++] = "token";
    va_start(ap, q);
    while ((n = va_arg(ap, const char *)) != NULL && nn < 8)
        names[nn++] = n;
    va_end(ap);
    if (q->query == NULL
        || !arb_http_query_unknown(q->query, q->qlen, names, nn, &key, &klen))
        return 0;
    list[0] = '\0';
    for (i = 1; i < nn && at < sizeof(list); i++)
        at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%s",
                               i > 1 ? ", " : "", names[i]);
    arb_http_error(q->req, 400, "query", "unknown parameter '%.*s': this "
                   "route reads %s%s",
                   klen > 64 ? 64 : (int)klen, key,
                   nn > 1 ? list : "none", nn > 1 ? " (and token)"
                   : " but token");
    return -1;
}

/* ---- auth --------------------------------------------------------------- */

arb_viewer_t
arb_http_viewer(const arb_http_who_t *w, const char *match,
                const arb_setup_t *setup)
{
    return arb_role_viewer(w->role, w->match[0] != '\0' ? w->match : NULL,
                           w->seat, match, setup);
}

/* Sets q->who and q->viewer from the request's token, for the route's
 * match (NULL: none, or every match): 0, or -1 (401 sent). */
static int
authenticate(arb_http_req_t *q, const char *match)
{
    h2o_req_t         *req = q->req;
    const arb_token_t *t = NULL;
    ssize_t            i;
    char               tok[80];
    int                rc;

    q->who.role = -1;
    i = h2o_find_header(&req->headers, H2O_TOKEN_AUTHORIZATION, -1);
    if (i >= 0) {
        h2o_iovec_t v = req->headers.entries[i].value;
        size_t      n;

        if (v.len < 7 || strncasecmp(v.base, "Bearer ", 7) != 0) {
            arb_http_error(req, 401, "authorization", "Authorization takes "
                           "'Bearer TOKEN'");
            return -1;
        }
        /* Blanks around the token are no part of it (RFC 9110, 5.5: a
         * field value's surrounding whitespace is not) */
        for (n = 7; n < v.len && (v.base[n] == ' ' || v.base[n] == '\t'); n++)
            ;
        while (v.len > n && (v.base[v.len - 1] == ' '
                             || v.base[v.len - 1] == '\t'))
            v.len--;
        t = arb_config_auth(&q->srv->cfg, v.base + n, v.len - n);
        q->token = t;
    } else {
        /* EventSource cannot set headers: a token may come in the query */
        rc = arb_http_param(q, "token", tok, sizeof(tok));
        if (rc < 0)
            return -1;
        if (rc == 0) {
            if (q->srv->cfg.http.public_read) {
                q->viewer.kind = ARB_VIEW_PUBLIC;
                return 0;
            }
            arb_http_error(req, 401, "authorization", "a token is needed "
                           "(Authorization: Bearer TOKEN)");
            return -1;
        }
        t = arb_config_auth(&q->srv->cfg, tok, strlen(tok));
    }
    if (t == NULL) {
        /* As a bad token on the protocol is (auth_failed, an event to
         * alert on: someone guessing tokens), but a line for the first
         * and then every 100th, so that guessing cannot flood the log
         * (until 2026-12-06 none, and no count). */
        if (q->srv->n.http_auth_failed++ % 100 == 0)
            arb_log_ev(ARB_LOG_WARN, "auth_failed", NULL, "http: bad token "
                       "(%llu so far)",
                       (unsigned long long)q->srv->n.http_auth_failed);
        arb_http_error(req, 401, "authorization", "bad token");
        return -1;
    }
    /* A scorer sees all of the matches it scores only: of another, and
     * of every match at once when it scores some, a spectator's view. */
    q->who.role = arb_seen_role(t->role, t->matches, t->nmatches, match);
    memcpy(q->who.print, t->print, sizeof(q->who.print));
    if (t->role == ARB_ROLE_PLAYER && t->nmatches == 1 && t->seat != NULL) {
        snprintf(q->who.match, sizeof(q->who.match), "%s", t->matches[0]);
        snprintf(q->who.seat, sizeof(q->who.seat), "%s", t->seat);
    }
    /* A scorer enters every move and an arbiter rules: both see all.  A
     * player sees its seat in its own match: the routes of a match ask
     * arb_http_viewer; anything else it reads as a spectator. */
    q->viewer.kind = q->who.role >= ARB_ROLE_SCORER ? ARB_VIEW_ALL
                                                    : ARB_VIEW_PUBLIC;
    return 0;
}

/* ---- routing ------------------------------------------------------------ */

static void
serve_asset(h2o_req_t *req, const char *name)
{
    const arb_web_asset_t *a = arb_web_asset(name);

    if (a == NULL) {
        arb_http_error(req, 404, "path", "no file '%s'", name);
        return;
    }
    send_body(req, 200, a->type, a->data, a->len);
}

/* The request head's size, near enough: the request line and the
 * headers libh2o lists, with Host and Upgrade, which it takes out of
 * the list (until 2026-12-07 they were left out, and a head over
 * header_max of one long Host line that came in one read was served). */
static size_t
head_size(const h2o_req_t *req)
{
    size_t i, n = req->input.method.len + req->input.path.len + 12
                  + (req->input.authority.base != NULL
                     ? req->input.authority.len + 8 : 0)
                  + (req->upgrade.base != NULL ? req->upgrade.len + 11 : 0);

    for (i = 0; i < req->headers.size; i++)
        n += req->headers.entries[i].name->len
           + req->headers.entries[i].value.len + 4;
    return n;
}

/* Every response by its status class, when it is done (a live stream
 * when it ends), for arbiter_http_responses_total{code} (until
 * 2026-12-06 the requests had one counter, no status: a rate of 5xx
 * could not be alerted on). */
static void
count_status(h2o_logger_t *self, h2o_req_t *req)
{
    struct arb_http *h = *(struct arb_http **)(self + 1);
    int              c = req->res.status / 100;

    if (c >= 1 && c <= 5)
        h->srv->n.http_status[c - 1]++;
}

/* How many times the request's head has header t (among req->headers:
 * not Content-Length, which libh2o keeps apart). */
static int
header_count(h2o_req_t *req, const h2o_token_t *t)
{
    ssize_t i = -1;
    int     n = 0;

    while ((i = h2o_find_header(&req->headers, t, i)) != -1)
        n++;
    return n;
}

/* How many lines of header `name` (lowercase, with its ':') the head of
 * req has: Content-Length and Transfer-Encoding, which libh2o takes for
 * itself and lists none of in req->headers, so the head's own bytes are
 * read: the input of the request's connection starts with them until
 * the answer is sent (libh2o 2.2.5 lib/http1.c consumes a request once
 * answered, and has lowercased the names in place). */
static int
head_count(struct arb_http *h, h2o_req_t *req, const char *name)
{
    size_t           len = strlen(name);
    arb_http_conn_t *hc;
    h2o_socket_t    *sock = NULL;
    const char      *p, *end, *nl;
    int              n = 0;

    /* A head that names no length has no body: nothing to look at, and
     * no search of the connections for the GETs that make most of the
     * traffic. */
    if (req->entity.base == NULL)
        return 0;
    for (hc = h->conns; hc != NULL; hc = hc->next)
        if ((sock = hc->tcp.data) != NULL && sock->data == (void *)req->conn)
            break;
    if (hc == NULL || sock->input == NULL || sock->input->bytes == NULL)
        return 0;
    p = sock->input->bytes;
    end = p + sock->input->size;
    for (; p < end && (nl = memchr(p, '\n', (size_t)(end - p))) != NULL;
         p = nl + 1) {
        if (nl == p || (nl == p + 1 && *p == '\r'))
            break;                      /* the head's end */
        if ((size_t)(nl - p) >= len && memcmp(p, name, len) == 0)
            n++;
    }
    return n;
}

static int
on_req(h2o_handler_t *self, h2o_req_t *req)
{
    struct arb_http *h = *(struct arb_http **)(self + 1);
    arb_http_req_t   q;
    arb_http_url_t   u;
    char           (*seg)[ARB_STORE_ID_MAX + 1];
    size_t           nseg;
    int              post, get, route, nlen, nte;

    h->srv->n.http_requests++;
    memset(&q, 0, sizeof(q));
    q.req = req;
    q.srv = h->srv;
    if (head_size(req) > h->srv->cfg.http.header_max) {
        req->http1_is_persistent = 0;
        arb_http_error(req, 431, "headers", "request line and headers over "
                       "%zu bytes", h->srv->cfg.http.header_max);
        return 0;
    }
    /* A request that gives its body's length twice, or two ways (a
     * Content-Length and a Transfer-Encoding), or two tokens, is
     * ambiguous: a proxy in front may read it otherwise than libh2o,
     * which takes the first length, or the chunks over any length
     * (request smuggling, RFC 9112 6.3).  Refused, and the connection
     * closed after the answer, so nothing after it is read (until
     * 2026-12-06 the rest ran as a request of its own; until 2026-12-07
     * so did what a Content-Length beside chunks covered, and two
     * Transfer-Encoding lines, of which libh2o reads the last and a
     * proxy may read the first). */
    nlen = head_count(h, req, "content-length:");
    nte = head_count(h, req, "transfer-encoding:");
    if (nlen > 1 || nte > 1 || (nlen > 0 && nte > 0)) {
        req->http1_is_persistent = 0;
        arb_http_error(req, 400, "headers", "%s: one request, one length",
                       nlen > 1 ? "Content-Length given twice"
                       : nte > 1 ? "Transfer-Encoding given twice"
                       : "Content-Length and Transfer-Encoding both given");
        return 0;
    }
    if (header_count(req, H2O_TOKEN_AUTHORIZATION) > 1) {
        req->http1_is_persistent = 0;
        arb_http_error(req, 400, "headers", "Authorization given twice: "
                       "one request, one of each");
        return 0;
    }
    post = h2o_memis(req->method.base, req->method.len, H2O_STRLIT("POST"));
    get = h2o_memis(req->method.base, req->method.len, H2O_STRLIT("GET"));
    /* Each segment is decoded on its own, so an encoded '/' stays inside
     * its segment; names are then checked exactly (match ids, the asset
     * table), which leaves nothing to traverse. */
    switch (arb_http_url_parse(&u, req->path.base, req->path.len)) {
    case 0:
        break;
    case ARB_EINVAL:
        arb_http_error(req, 400, "path", "a path starts with '/'");
        return 0;
    case ARB_ETOOBIG:
        arb_http_error(req, 404, "path", "no such page");
        return 0;
    default:
        arb_http_error(req, 400, "path", "bad percent-encoding or a "
                       "segment over %d bytes", ARB_STORE_ID_MAX);
        return 0;
    }
    q.query = u.query;
    q.qlen = u.qlen;
    seg = u.seg;
    nseg = u.nseg;
#define IS(i, s) (nseg > (i) && strcmp(seg[i], s) == 0)
    /* The write routes (http_write.c) take POST, and nothing else does. */
    route = nseg == 4 && IS(0, "api") && IS(1, "m")
            ? arb_http_write_route(seg[3]) : -1;
    /* Allow names what this path takes (a PUT to a write route was told
     * GET until 2026-12-05). */
    if (!post && !get) {
        if (route >= 0)
            h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_ALLOW,
                           NULL, H2O_STRLIT("POST"));
        arb_http_error(req, 405, "method", "only GET, and POST to the write "
                       "routes");
        return 0;
    }
    if (post != (route >= 0)) {
        if (route >= 0)
            h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_ALLOW,
                           NULL, H2O_STRLIT("POST"));
        if (route >= 0)
            arb_http_error(req, 405, "method", "%s takes POST", seg[3]);
        else
            arb_http_error(req, 405, "method", "only the write routes take "
                           "POST");
        return 0;
    }
    /* The pages are public shells: their data comes from the API. */
    if (nseg == 0 || (nseg == 1 && seg[0][0] == '\0')) {
        serve_asset(req, "index.html");
        return 0;
    }
    if (IS(0, "m") && nseg == 2) {
        if (!arb_name_valid(seg[1]))
            arb_http_error(req, 404, "match", "no match '%s'", seg[1]);
        else
            serve_asset(req, "match.html");
        return 0;
    }
    if (IS(0, "s") && nseg == 2) {
        if (!arb_name_valid(seg[1]))
            arb_http_error(req, 404, "match", "no match '%s'", seg[1]);
        else
            serve_asset(req, "score.html");
        return 0;
    }
    if (IS(0, "t") && nseg == 2) {
        if (!arb_name_valid(seg[1]))
            arb_http_error(req, 404, "tournament", "no tournament '%s'",
                           seg[1]);
        else
            serve_asset(req, "board.html");
        return 0;
    }
    if (IS(0, "static") && nseg == 2) {
        serve_asset(req, seg[1]);
        return 0;
    }
    if (IS(0, "healthz") && nseg == 1) {
        arb_http_health(&q);            /* no token: it names no match */
        return 0;
    }
    if (!(IS(0, "api") || (IS(0, "metrics") && nseg == 1))) {
        arb_http_error(req, 404, "path", "no such page");
        return 0;
    }
    if (authenticate(&q, nseg == 4 && IS(1, "m") ? seg[2] : NULL) != 0)
        return 0;
    if (IS(0, "metrics"))
        arb_http_metrics(&q);
    else if (nseg == 2 && IS(1, "matches"))
        arb_http_api_matches(&q);
    else if (nseg == 2 && IS(1, "stats"))
        arb_http_api_stats(&q);
    else if (nseg == 2 && IS(1, "live"))
        arb_http_live(&q, NULL);
    else if (nseg == 4 && IS(1, "m") && !arb_name_valid(seg[2]))
        arb_http_error(req, 404, "match", "no match '%s'", seg[2]);
    else if (route >= 0)
        arb_http_write(&q, seg[2], route);
    else if (nseg == 4 && IS(1, "m") && IS(3, "state"))
        arb_http_api_state(&q, seg[2]);
    else if (nseg == 4 && IS(1, "m") && IS(3, "events"))
        arb_http_api_events(&q, seg[2]);
    else if (nseg == 4 && IS(1, "m") && IS(3, "live"))
        arb_http_live(&q, seg[2]);
    else if (nseg == 4 && IS(1, "t") && !arb_name_valid(seg[2]))
        arb_http_error(req, 404, "tournament", "no tournament '%s'", seg[2]);
    else if (nseg == 4 && IS(1, "t") && (IS(3, "board") || IS(3, "standings")))
        arb_http_api_tourn(&q, seg[2], IS(3, "board"));
    else
        arb_http_error(req, 404, "path", "no such API route");
#undef IS
    return 0;
}

/* On metrics_listen: GET /metrics and /healthz, as on listen (the same
 * token), and nothing else, so that its connections of its own are no
 * way around max_connections for the pages and the API.  The path is
 * read as on listen, so the spellings listen takes ("/metrics/",
 * "//metrics", "/%6Detrics") are taken here too (until 2026-12-07 only
 * "/metrics" and "/healthz" were), and a malformed one gets listen's 400. */
static int
on_metrics_req(h2o_handler_t *self, h2o_req_t *req)
{
    arb_http_url_t u;
    int            rc, ours;

    rc = arb_http_url_parse(&u, req->path.base, req->path.len);
    ours = rc == 0 && u.nseg == 1 && (strcmp(u.seg[0], "metrics") == 0
                                      || strcmp(u.seg[0], "healthz") == 0);
    if ((rc == 0 || rc == ARB_ETOOBIG) && !ours) {
        (*(struct arb_http **)(self + 1))->srv->n.http_requests++;
        arb_http_error(req, 404, "path", "this address (metrics_listen) "
                       "serves /metrics and /healthz only");
        return 0;
    }
    return on_req(self, req);
}

/* ---- connections -------------------------------------------------------- */

/* Largest kernel send buffer of an HTTP connection. */
#define ARB_HTTP_SNDBUF_MAX (256 * 1024)

static void
on_conn_closed(uv_handle_t *hd)
{
    arb_http_conn_t *hc = (arb_http_conn_t *)hd;
    struct arb_http *h = hc->h;

    arb_http_conn_gone(hc);
    if (hc->prev != NULL)
        hc->prev->next = hc->next;
    else
        h->conns = hc->next;
    if (hc->next != NULL)
        hc->next->prev = hc->prev;
    if (hc->metrics)
        h->nmconns--;
    else
        h->nconns--;
    free(hc);
}

static void
free_handle(uv_handle_t *hd)
{
    free(hd);
}

static void
on_accept(uv_stream_t *l, int status)
{
    struct arb_http *h = l->data;
    arb_http_conn_t *hc;
    h2o_socket_t    *sock;
    int              sndbuf, metrics = l == (uv_stream_t *)&h->mlistener;
    size_t           open = metrics ? h->nmconns : h->nconns;
    size_t           cap = metrics ? ARB_HTTP_METRICS_CONNS
                                   : h->srv->cfg.http.max_conns;

    /* (Said: until 2026-12-06 an accept error went unlogged.) */
    if (status != 0) {
        arb_server_accept_failed(h->srv, "http: ", status);
        return;
    }
    hc = calloc(1, sizeof(*hc));
    if (hc == NULL)
        return;
    hc->h = h;
    uv_tcp_init(l->loop, &hc->tcp);
    if (uv_accept(l, (uv_stream_t *)&hc->tcp) != 0) {
        uv_close((uv_handle_t *)&hc->tcp, free_handle);
        return;
    }
    if (h->srv->stopping) {
        uv_close((uv_handle_t *)&hc->tcp, free_handle);
        return;
    }
    if (open >= cap) {
        /* Over the cap: closed at once, before libh2o allocates.  Each
         * listener counts and says its own (one count hid the other's
         * first refusal until 2026-12-06). */
        uint64_t *n = metrics ? &h->srv->n.metrics_refused
                              : &h->srv->n.http_refused;

        if ((*n)++ % 1000 == 0)
            arb_log_ev(ARB_LOG_WARN, "http_conn_refused", NULL, "http: %zu "
                       "connections open%s, %s reached: closing new ones "
                       "(%llu so far)", open,
                       metrics ? " on metrics_listen" : "",
                       metrics ? "its limit" : "max_connections",
                       (unsigned long long)*n);
        uv_close((uv_handle_t *)&hc->tcp, free_handle);
        return;
    }
    /* The kernel's share of a slow reader's backlog is bounded too (it
     * would otherwise grow its send buffer up to tcp_wmem's maximum);
     * Linux doubles what is asked for its bookkeeping. */
    sndbuf = (int)(h->srv->cfg.http.stream_max < ARB_HTTP_SNDBUF_MAX
                   ? h->srv->cfg.http.stream_max : ARB_HTTP_SNDBUF_MAX) / 2;
    uv_send_buffer_size((uv_handle_t *)&hc->tcp, &sndbuf);
    hc->next = h->conns;
    if (h->conns != NULL)
        h->conns->prev = hc;
    h->conns = hc;
    hc->metrics = metrics;
    if (metrics)
        h->nmconns++;
    else
        h->nconns++;
    h->srv->n.http_conns++;
    sock = h2o_uv_socket_create((uv_stream_t *)&hc->tcp, on_conn_closed);
    if (sock == NULL) {
        uv_close((uv_handle_t *)&hc->tcp, on_conn_closed);
        return;
    }
    h2o_accept(metrics ? &h->mactx : &h->actx, sock);
    arb_http_guard_conn(hc);
}

/* libh2o's timers and its resolver queue must not keep the loop running
 * once the daemon's own handles are closed. */
static void
unref_async(uv_handle_t *hd, void *arg)
{
    (void)arg;
    if (hd->type == UV_ASYNC)
        uv_unref(hd);
}

static void
unref_timers(h2o_context_t *ctx)
{
    h2o_timeout_t *t[] = {
        &ctx->zero_timeout, &ctx->one_sec_timeout, &ctx->hundred_ms_timeout,
        &ctx->handshake_timeout, &ctx->http1.req_timeout,
        &ctx->http2.idle_timeout, &ctx->http2.graceful_shutdown_timeout,
        &ctx->proxy.io_timeout,
    };
    size_t i;

    for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        uv_unref((uv_handle_t *)&t[i]->_backend.timer);
}

/* Binds l to addr (tcp:HOST:PORT, numeric) and listens; port 0 picks a
 * free one, which the log says ("http: WHAT on tcp:HOST:PORT" + note).
 * 0 or -1, said in the log. */
static int
listen_on(struct arb_http *h, uv_tcp_t *l, int *inited, const char *addr,
          const char *what, const char *note)
{
    struct sockaddr_storage ss, bound;
    socklen_t               sslen;
    arb_buf_t               why = ARB_BUF_INIT;
    int                     rc, len = sizeof(bound);
    char                    ip[64] = "?";

    if (arb_tcp_addr_numeric(addr, 1, &ss, &sslen, &why) != 0) {
        arb_log(ARB_LOG_ERROR, "http: cannot listen on %s: %s", addr,
                arb_buf_cstr(&why));
        arb_buf_free(&why);
        return -1;
    }
    uv_tcp_init(h->srv->loop, l);
    l->data = h;
    *inited = 1;                /* closed at the stop, even when failed */
    rc = uv_tcp_bind(l, (struct sockaddr *)&ss, 0);
    if (rc == 0)
        rc = uv_listen((uv_stream_t *)l, 511, on_accept);
    if (rc != 0) {
        arb_log(ARB_LOG_ERROR, "http: cannot listen on %s: %s", addr,
                uv_strerror(rc));
        return -1;
    }
    if (uv_tcp_getsockname(l, (struct sockaddr *)&bound, &len) == 0) {
        if (bound.ss_family == AF_INET6)
            uv_ip6_name((struct sockaddr_in6 *)&bound, ip, sizeof(ip));
        else
            uv_ip4_name((struct sockaddr_in *)&bound, ip, sizeof(ip));
        arb_log_ev(ARB_LOG_INFO, "http_ready", NULL, "http: %s on tcp:%s%s%s"
                   ":%d%s", what, bound.ss_family == AF_INET6 ? "[" : "", ip,
                   bound.ss_family == AF_INET6 ? "]" : "",
                   ntohs(((struct sockaddr_in *)&bound)->sin_port), note);
    }
    return 0;
}

/* A path "/" of host whose requests go to fn, their responses counted. */
static void
route_all(struct arb_http *h, h2o_hostconf_t *host,
          int (*fn)(h2o_handler_t *, h2o_req_t *))
{
    h2o_pathconf_t *path = h2o_config_register_path(host, "/", 0);
    h2o_handler_t  *hd = h2o_create_handler(path, sizeof(*hd) + sizeof(h));
    h2o_logger_t   *lg = h2o_create_logger(path, sizeof(*lg) + sizeof(h));

    hd->on_req = fn;
    *(struct arb_http **)(hd + 1) = h;
    lg->log_access = count_status;
    *(struct arb_http **)(lg + 1) = h;
}

int
arb_http_start(arb_server_t *srv)
{
    struct arb_http         *h;
    const arb_http_config_t *c = &srv->cfg.http;
    h2o_hostconf_t          *host;
    char                     note[80];
    int                      rc = 0;

    if (c->listen == NULL && c->metrics_listen == NULL)
        return 0;
    h = calloc(1, sizeof(*h));
    if (h == NULL)
        return -1;
    h->srv = srv;
    srv->http = h;
    h2o_config_init(&h->conf);
    h->conf_init = 1;
    h->conf.max_request_entity_size = c->body_max;
    h->conf.http1.req_timeout = c->header_timeout_ms;
    h->conf.http1.upgrade_to_http2 = 0;
    h->conf.server_name = h2o_iovec_init(H2O_STRLIT("arbiterd"));
    /* The first host is the one a request naming no other gets: the
     * pages and the API.  metrics_listen's accept context knows only the
     * second. */
    host = h2o_config_register_host(&h->conf,
                                    h2o_iovec_init(H2O_STRLIT("default")),
                                    65535);
    route_all(h, host, on_req);
    h->mhosts[0] = h2o_config_register_host(&h->conf,
                                            h2o_iovec_init(H2O_STRLIT(
                                                "metrics")), 65535);
    route_all(h, h->mhosts[0], on_metrics_req);
    h2o_context_init(&h->ctx, srv->loop, &h->conf);
    h->ctx_init = 1;
    uv_walk(srv->loop, unref_async, NULL);
    unref_timers(&h->ctx);
    h->actx.ctx = &h->ctx;
    h->actx.hosts = h->conf.hosts;
    h->mactx.ctx = &h->ctx;
    h->mactx.hosts = h->mhosts;
    rc = arb_http_live_init(h);
    if (rc == 0)
        rc = arb_http_guard_init(h);
    if (rc != 0) {
        arb_log(ARB_LOG_ERROR, "http: cannot start: %s", uv_strerror(rc));
        return -1;
    }
    if (c->listen != NULL
        && listen_on(h, &h->listener, &h->listening, c->listen, "listening",
                     c->public_read ? " (public read)" : "") != 0)
        return -1;
    snprintf(note, sizeof(note), " (/metrics and /healthz only, at most %d "
             "connections)", ARB_HTTP_METRICS_CONNS);
    if (c->metrics_listen != NULL
        && listen_on(h, &h->mlistener, &h->mlistening, c->metrics_listen,
                     "metrics listening", note) != 0)
        return -1;
    return 0;
}

void
arb_http_stop(arb_server_t *srv)
{
    struct arb_http *h = srv->http;
    arb_http_conn_t *hc;
    uv_os_fd_t       fd;

    if (h == NULL)
        return;
    if (h->listening) {
        uv_close((uv_handle_t *)&h->listener, NULL);
        h->listening = 0;
    }
    if (h->mlistening) {
        uv_close((uv_handle_t *)&h->mlistener, NULL);
        h->mlistening = 0;
    }
    arb_http_live_end_all(h);
    arb_http_guard_stop(h);
    /* libh2o closes each connection when it sees its socket shut; one
     * whose append awaits its ack is answered first (until 2026-12-06 it
     * was shut too, and a write committed by the stop's last batch went
     * unanswered: a client without a cid could not tell it from one
     * lost). */
    arb_http_write_hold(h);
    for (hc = h->conns; hc != NULL; hc = hc->next)
        if (hc->write == NULL && uv_fileno((uv_handle_t *)&hc->tcp, &fd) == 0)
            shutdown(fd, SHUT_RDWR);
}

void
arb_http_stop_held(arb_server_t *srv)
{
    struct arb_http *h = srv->http;
    arb_http_conn_t *hc;
    uv_os_fd_t       fd;

    if (h == NULL)
        return;
    for (hc = h->conns; hc != NULL; hc = hc->next)
        if (hc->write != NULL && uv_fileno((uv_handle_t *)&hc->tcp, &fd) == 0)
            shutdown(fd, SHUT_RDWR);
}

void
arb_http_free(arb_server_t *srv)
{
    struct arb_http *h = srv->http;

    if (h == NULL)
        return;
    if (h->ctx_init)
        h2o_context_dispose(&h->ctx);
    if (h->conf_init)
        h2o_config_dispose(&h->conf);
    free(h);
    srv->http = NULL;
}

void
arb_http_count(arb_server_t *srv, uint64_t *conns, uint64_t *streams)
{
    *conns = srv->http != NULL ? srv->http->nconns + srv->http->nmconns : 0;
    *streams = srv->http != NULL ? srv->http->nstreams : 0;
}
