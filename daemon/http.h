/*
 * http.h - what the HTTP files of the daemon share (docs/HTTP.md):
 * http.c the server (listener, connections, limits, routing, auth,
 * errors), http_api.c the JSON routes, http_live.c the live streams
 * (Server-Sent Events), http_metrics.c GET /metrics.  Loop thread only.
 */
#ifndef ARB_HTTP_H
#define ARB_HTTP_H

#include <h2o.h>

#include "core/buf.h"
#include "core/view.h"
#include "daemon/http_url.h"
#include "daemon/server.h"

typedef struct arb_http_conn   arb_http_conn_t;
typedef struct arb_http_stream arb_http_stream_t;

/* One accepted connection: our uv handle, which libh2o drives; freed in
 * its close callback. */
struct arb_http_conn {
    uv_tcp_t          tcp;
    struct arb_http  *h;
    arb_http_conn_t  *prev, *next;
};

struct arb_http {
    arb_server_t      *srv;
    h2o_globalconf_t   conf;
    h2o_context_t      ctx;
    h2o_accept_ctx_t   actx;
    int                conf_init, ctx_init;
    uv_tcp_t           listener;
    int                listening;
    arb_http_conn_t   *conns;
    size_t             nconns;
    arb_http_stream_t *streams;
    size_t             nstreams;
    uv_timer_t         ping;        /* http_live.c: keeps idle streams open */
    int                ping_init;
};

/* A request as the routes see it: who asks and what. */
typedef struct arb_http_req {
    h2o_req_t    *req;
    arb_server_t *srv;
    arb_viewer_t  viewer;
    const char   *query;        /* after '?', or NULL */
    size_t        qlen;
} arb_http_req_t;

/* {"error":MSG,"where":WHERE} with `status`. */
void arb_http_error(h2o_req_t *req, int status, const char *where,
                    const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A complete 200 response of `type` (copied). */
void arb_http_send(h2o_req_t *req, const char *type, const void *body,
                   size_t len);
/* The query parameter `key` of q, decoded into out: 1 found, 0 absent,
 * -1 malformed (a 400 naming it has been sent). */
int  arb_http_param(arb_http_req_t *q, const char *key, char *out,
                    size_t cap);
/* The same for a decimal number in lo..hi: 1, 0 or -1 (400 sent). */
int  arb_http_param_u64(arb_http_req_t *q, const char *key, uint64_t lo,
                        uint64_t hi, uint64_t *out);

/* http_api.c */
void arb_http_api_matches(arb_http_req_t *q);
void arb_http_api_state(arb_http_req_t *q, const char *match);
void arb_http_api_events(arb_http_req_t *q, const char *match);
void arb_http_api_stats(arb_http_req_t *q);
/* The last seq of `match` known committed: 0, or ARB_ENOTFOUND. */
int  arb_http_committed_seq(arb_server_t *srv, const char *match,
                            uint64_t *upto);

/* http_tourn.c: /api/t/<id>/board (board) or /standings. */
void arb_http_api_tourn(arb_http_req_t *q, const char *id, int board);

/* http_metrics.c */
void arb_http_metrics(arb_http_req_t *q);

/* http_live.c: match NULL streams every match. */
void arb_http_live(arb_http_req_t *q, const char *match);
/* Starts the streams' keep-alive comment (every ARB_HTTP_PING_MS): 0 or
 * a libuv error. */
int  arb_http_live_init(struct arb_http *h);
/* Ends every stream and stops the keep-alive (at stop). */
void arb_http_live_end_all(struct arb_http *h);

#endif
