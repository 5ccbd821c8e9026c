/*
 * http.h - what the HTTP files of the daemon share (docs/HTTP.md):
 * http.c the server (listener, connections, limits, routing, auth,
 * errors), http_guard.c the early refusal of oversize heads, http_api.c
 * the JSON routes, http_live.c the live streams (Server-Sent Events),
 * http_metrics.c GET /metrics, http_write.c the POST routes that record.
 * Loop thread only.
 */
#ifndef ARB_HTTP_H
#define ARB_HTTP_H

#include <stdarg.h>

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
    uv_read_cb        h2o_read;     /* libh2o's, behind the head guard */
    int               metrics;      /* accepted on metrics_listen */
    int               refused;      /* 431 sent early: input is dropped */
    arb_http_stream_t *stream;      /* its live stream, or NULL (each
                                       points at the other until either
                                       goes: http_live.c) */
    struct arb_http_wr *write;      /* at a stop: its write awaiting the
                                       commit's answer, or NULL (each
                                       points at the other until either
                                       goes: http_write.c) */
    uint64_t          acked;        /* http_stall.c: bytes acknowledged */
    uint64_t          stall_ms;     /* ... unchanged since (uv_now) */
    int               stalled;      /* ... ended for it */
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
    /* metrics_listen: /metrics and /healthz only, with connections of its
     * own (ARB_HTTP_METRICS_CONNS), so that a scrape still gets in when
     * browsers hold every one of max_connections. */
    uv_tcp_t           mlistener;
    int                mlistening;
    h2o_accept_ctx_t   mactx;
    h2o_hostconf_t    *mhosts[2];
    arb_http_conn_t   *conns;           /* both listeners' */
    size_t             nconns, nmconns; /* listen's, metrics_listen's */
    arb_http_stream_t *streams;
    size_t             nstreams;
    struct arb_http_wr *writes;     /* appends awaiting their ack
                                       (http_write.c) */
    uv_timer_t         ping;        /* http_live.c: a tick a second finds
                                       closed streams, pings idle ones */
    int                ping_init;
    unsigned           ticks;
    uv_prepare_t       guard;       /* re-arms the head guard (http.c) */
    int                guard_init;
};

/* Who asks, copied from the token (a SIGHUP may reload the tokens while
 * a stream is open): its role, and a player's one match and seat. */
typedef struct arb_http_who {
    int  role;                          /* -1: no token (public_read) */
    char match[ARB_STORE_ID_MAX + 1];   /* player: its match, or "" */
    char seat[ARB_HASH_HEX];            /* player: its seat's name */
    unsigned char print[ARB_TOKEN_PRINT];   /* its token's (role >= 0) */
} arb_http_who_t;

/* A request as the routes see it: who asks and what. */
typedef struct arb_http_req {
    h2o_req_t    *req;
    arb_server_t *srv;
    arb_http_who_t who;
    arb_viewer_t  viewer;       /* for no match in particular: public or
                                   all (a seat is per match) */
    const char   *query;        /* after '?', or NULL */
    size_t        qlen;
    /* The token of the Authorization header (NULL without one, or when
     * it came in the query); valid while the request is being routed: a
     * SIGHUP reload frees it. */
    const arb_token_t *token;
} arb_http_req_t;

/* The viewer `w` is for `match` opened with `setup` (daemon/viewer.c):
 * a player's seat in its own match, public in any other. */
arb_viewer_t arb_http_viewer(const arb_http_who_t *w, const char *match,
                             const arb_setup_t *setup);

/* Appends {"error":msg,"where":where,"code":code} (no code when NULL)
 * and a newline: every HTTP error body, sent by arb_http_error or
 * (before libh2o has a request) by the head guard.  Out of memory sets
 * b->oom. */
void arb_http_error_body_code(arb_buf_t *b, const char *msg,
                              const char *where, const char *code);
/* {"error":MSG,"where":WHERE,"code":CODE} with `status`, CODE the
 * protocol's for the status (400 proto, 401 unauthenticated, 403
 * forbidden, 404 not_found, 413 and 431 too_big, 503 busy, read_only for
 * `deal`, shutting_down for `stopping`, 500 internal...). */
void arb_http_error(h2o_req_t *req, int status, const char *where,
                    const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The same with the protocol's error `code` named (NULL: the status's). */
void arb_http_error_code(h2o_req_t *req, int status, const char *where,
                         const char *code, const char *fmt, va_list ap)
    __attribute__((format(printf, 5, 0)));
/* A replay's failure rc (arb_live_replay): 503 `deal` for a read
 * replica without a dealt match's secret (its primary answers), else 500
 * `replay`. */
void arb_http_replay_error(h2o_req_t *req, int rc, const char *msg);
/* A complete 200 response of `type` (copied). */
void arb_http_send(h2o_req_t *req, const char *type, const void *body,
                   size_t len);
/* The same with another status (a write's answer). */
void arb_http_send_status(h2o_req_t *req, int status, const char *type,
                          const void *body, size_t len);
/* The query parameter `key` of q, decoded into out: 1 found, 0 absent,
 * -1 malformed (a 400 naming it has been sent). */
int  arb_http_param(arb_http_req_t *q, const char *key, char *out,
                    size_t cap);
/* The same for a decimal number in lo..hi: 1, 0 or -1 (400 sent). */
int  arb_http_param_u64(arb_http_req_t *q, const char *key, uint64_t lo,
                        uint64_t hi, uint64_t *out);
/* 0 when the query holds only the parameters the route reads (the
 * NULL-ended keys after q) and `token`; else -1, a 400 naming the first
 * other one sent.  A route calls it before it reads any. */
int  arb_http_params_only(arb_http_req_t *q, ...);

/* http_api.c */
void arb_http_api_matches(arb_http_req_t *q);
void arb_http_api_state(arb_http_req_t *q, const char *match);
void arb_http_api_events(arb_http_req_t *q, const char *match);
void arb_http_api_stats(arb_http_req_t *q);
/* GET /healthz, without a token: 200 {"status":"ok","role":"primary"|
 * "replica"} when this recorder answers and reads its store; else 503
 * (`where` "stopping" or "store").  It names no match. */
void arb_http_health(arb_http_req_t *q);
/* The last seq of `match` known committed, and (closed not NULL) whether
 * that is its close: 0, ARB_ENOTFOUND, or the store's error with why
 * (may be NULL) saying what. */
int  arb_http_committed_seq(arb_server_t *srv, const char *match,
                            uint64_t *upto, int *closed, arb_buf_t *why);
/* arb_http_committed_seq, and with l not NULL the match's live entry
 * (arb_live_get): 0, or -1 with the request answered: 404 "match" when
 * there is no such match, else 500 "store" naming what failed. */
int  arb_http_match_at(arb_http_req_t *q, const char *match,
                       uint64_t *upto, int *closed, arb_live_t **l);

/* http_tourn.c: /api/t/<id>/board (board) or /standings. */
void arb_http_api_tourn(arb_http_req_t *q, const char *id, int board);

/* http_write.c: POST /api/m/<id>/<route>; route from
 * arb_http_write_route(name), which is -1 for no write route. */
int  arb_http_write_route(const char *name);
void arb_http_write(arb_http_req_t *q, const char *match, int route);
/* At a stop: marks the connection of every append awaiting its ack, which
 * arb_http_stop() then leaves open for the answer (the commit in flight
 * finishes, and its acks are owed); each such answer closes its
 * connection once sent. */
void arb_http_write_hold(struct arb_http *h);
/* hc is closing: its write (if any) no longer points at it. */
void arb_http_write_conn_gone(arb_http_conn_t *hc);

/* http_guard.c: the head guard.  Arms it on a connection libh2o has just
 * accepted (and re-arms it if libh2o restarted reading); starts and stops
 * the prepare handle that re-arms it on every connection. */
void arb_http_guard_conn(arb_http_conn_t *hc);
int  arb_http_guard_init(struct arb_http *h);
void arb_http_guard_stop(struct arb_http *h);

/* http_stall.c: from the HTTP tick (a second), ends each connection
 * whose client has acknowledged none of its pending output for
 * write_timeout_ms. */
void arb_http_stalls(struct arb_http *h);

/* http_metrics.c */
void arb_http_metrics(arb_http_req_t *q);

/* http_live.c: match NULL streams every match. */
void arb_http_live(arb_http_req_t *q, const char *match);
/* Starts the streams' tick (a second: closed peers found, quiet streams
 * pinged every 15 s): 0 or a libuv error. */
int  arb_http_live_init(struct arb_http *h);
/* Ends every stream and stops the keep-alive (at stop). */
void arb_http_live_end_all(struct arb_http *h);
/* Connection hc is closing: its stream (if any) no longer points at it. */
void arb_http_conn_gone(arb_http_conn_t *hc);

#endif
