/*
 * server.c - listeners and connections.
 *
 * DESIGN: a connection is freed only when both its uv handles are closed
 * and no queued append still points at it (refs), because an ack may come
 * back from the commit worker after the peer has gone.  Output is bounded
 * per connection (outq_max): a peer that does not read is disconnected
 * rather than allowed to grow the daemon's memory.  Reading pauses while a
 * connection has inq_max appends awaiting commit, which is how backpressure
 * reaches a client that pipelines faster than the disk commits, and while
 * its unsent output is past half of outq_max, which is how it reaches one
 * that does not read its acks (arb_conn_flow: acks are owed, never cut).
 * A pause stops the next read, not the read in hand: its frames point into
 * the one slab all reads share, so they are all handled, and a connection
 * may hold up to one read's worth (64 KiB) of appends past inq_max.
 *
 * Output is written with uv_try_write first (no write request, no
 * callback, no change to the poll set when the socket takes it all, which
 * it nearly always does), and corked around each read callback and each
 * commit's after-work: everything sent to one connection meanwhile (a
 * commit's acks and pushes, the answers to one read) goes out in one
 * write per connection.  Corked bytes count in outq like queued ones, so
 * outq_max and the subscribers' pauses see them.
 *
 * A close that carries news (acks at shutdown, the `slow` push, a last error)
 * goes through arb_conn_finish(): uv_close() would drop whatever is still
 * queued, so the connection first drains, then half-closes and waits for the
 * peer's EOF, which also keeps unread input from turning the close into a
 * TCP reset that could destroy the last message on its way.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "core/err.h"
#include "daemon/log.h"
#include "daemon/server.h"
#include "daemon/replicate.h"
#include "proto/addr.h"

static void on_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf);
static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf);

typedef struct wreq {
    uv_write_t  req;
    arb_conn_t *conn;
    size_t      len;
    char       *data;
} wreq_t;

int64_t
arb_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
conn_maybe_free(arb_conn_t *c)
{
    size_t i;

    if (c->handles > 0 || c->refs > 0)
        return;
    arb_sub_free_conn(c);
    arb_frame_reader_free(&c->rd);
    arb_buf_free(&c->cork);
    for (i = 0; i < c->nmatches; i++)
        free(c->matches[i]);
    free(c->matches);
    free(c);
}

static void
on_handle_closed(uv_handle_t *h)
{
    arb_conn_t *c = h->data;

    c->handles--;
    conn_maybe_free(c);
}

void
arb_conn_unref(arb_conn_t *c)
{
    c->refs--;
    conn_maybe_free(c);
}

void
arb_conn_close(arb_conn_t *c)
{
    arb_server_t *srv = c->srv;

    if (c->closing)
        return;
    c->closing = 1;
    if (c->sink != NULL)
        return;     /* its holder releases it (arb_conn_release) */
    arb_sub_drop_conn(c);
    if (c->prev != NULL)
        c->prev->next = c->next;
    else
        srv->conns = c->next;
    if (c->next != NULL)
        c->next->prev = c->prev;
    if (c->turned)
        srv->nturned--;
    else
        srv->nopen--;
    arb_log(ARB_LOG_DEBUG, "conn %llu: closed", (unsigned long long)c->num);
    uv_close(&c->h.handle, on_handle_closed);
    uv_close((uv_handle_t *)&c->auth_timer, on_handle_closed);
}

static void
on_linger_timeout(uv_timer_t *t)
{
    arb_conn_t *c = t->data;

    if (c->closing)
        return;
    arb_log(ARB_LOG_INFO, "conn %llu: did not drain within %u ms (%zu bytes "
            "unsent): closing", (unsigned long long)c->num,
            (unsigned)ARB_LINGER_MS, c->outq);
    arb_conn_close(c);
}

/* A connection whose reading is paused on its unsent output, and whose
 * output has not moved for stall_timeout_ms, is closed.  A peer that
 * stopped reading, or vanished without a word, otherwise held its slot,
 * its subscriptions and up to half of outq_max for as long as TCP kept
 * the socket: minutes for one gone, for ever for one still answering
 * window probes (until 2026-12-06; a catch-up that paused at half of
 * outq_max is never cut as a live subscriber is). */
static void
on_stall_timeout(uv_timer_t *t)
{
    arb_conn_t *c = t->data;

    c->stalling = 0;
    if (c->closing || c->finishing)
        return;
    arb_log_ev(ARB_LOG_WARN, "client_stalled", NULL, "conn %llu (%s): its "
               "%zu bytes unsent have not moved for %u ms, and it is not "
               "read while they wait: closed", (unsigned long long)c->num,
               c->identity, c->outq, c->srv->cfg.stall_timeout_ms);
    arb_conn_close(c);
}

/* Counts stall_timeout_ms from now (again, when `moved`). */
static void
stall_arm(arb_conn_t *c, int moved)
{
    if (c->sink != NULL || !c->authed || c->closing || c->finishing
        || (c->stalling && !moved))
        return;
    c->stalling = 1;
    uv_timer_start(&c->auth_timer, on_stall_timeout,
                   c->srv->cfg.stall_timeout_ms, 0);
}

static void
stall_stop(arb_conn_t *c)
{
    if (c->stalling) {
        c->stalling = 0;
        uv_timer_stop(&c->auth_timer);
    }
}

static void
on_shutdown(uv_shutdown_t *req, int status)
{
    arb_conn_t *c = req->data;

    /* Cancelled by a close already under way, or the peer is gone. */
    if (status < 0 && !c->closing)
        arb_conn_close(c);
}

/* Once nothing is queued and no ack is owed, sends FIN; the close follows
 * the peer's EOF (on_read) or the linger timer. */
static void
conn_finish_step(arb_conn_t *c)
{
    if (c->closing || c->outq > 0 || c->inflight > 0 || c->shut.data != NULL)
        return;
    c->shut.data = c;
    if (uv_shutdown(&c->shut, &c->h.stream, on_shutdown) != 0)
        arb_conn_close(c);
}

void
arb_conn_finish(arb_conn_t *c)
{
    if (c->closing || c->finishing)
        return;
    if (c->sink != NULL) {
        arb_conn_close(c);
        return;
    }
    c->finishing = 1;
    c->stalling = 0;
    arb_sub_drop_conn(c);
    uv_timer_stop(&c->auth_timer);
    uv_timer_start(&c->auth_timer, on_linger_timeout, ARB_LINGER_MS, 0);
    /* Read on (and discard) so that the peer's EOF is seen. */
    if (!c->reading) {
        uv_read_start(&c->h.stream, on_alloc, on_read);
        c->reading = 1;
    }
    conn_finish_step(c);
}

static void
on_write(uv_write_t *req, int status)
{
    wreq_t     *w = (wreq_t *)req;
    arb_conn_t *c = w->conn;

    c->outq -= w->len;
    free(w->data);
    free(w);
    if (status < 0 && !c->closing) {
        arb_log(ARB_LOG_DEBUG, "conn %llu: write: %s",
                (unsigned long long)c->num, uv_strerror(status));
        arb_conn_close(c);
    } else if (c->finishing) {
        conn_finish_step(c);
    } else if (!c->closing) {
        if (c->stalling)
            stall_arm(c, 1);            /* it moved */
        arb_sub_pump_conn(c);
        arb_conn_flow(c);
    }
    arb_conn_unref(c);
}

static int conn_send(arb_conn_t *c, arb_buf_t *b, int capped);

int
arb_conn_send(arb_conn_t *c, arb_buf_t *b)
{
    return conn_send(c, b, 1);
}

int
arb_conn_send_owed(arb_conn_t *c, arb_buf_t *b)
{
    return conn_send(c, b, 0);
}

/* Writes len bytes of data (malloc'd; taken) to c's socket: at once as
 * far as the socket takes them (uv_try_write: no request, no callback, no
 * change to the poll set), the rest through a queued uv_write.  libuv's
 * try-write refuses while earlier writes are queued, so order holds. */
static int
conn_write(arb_conn_t *c, char *data, size_t len)
{
    wreq_t  *w;
    uv_buf_t ub;
    int      n, rc;

    ub = uv_buf_init(data, (unsigned)len);
    n = uv_try_write(&c->h.stream, &ub, 1);
    if (n >= 0 && (size_t)n == len) {
        free(data);
        return 0;
    }
    if (n < 0 && n != UV_EAGAIN && n != UV_ENOSYS) {
        arb_log(ARB_LOG_DEBUG, "conn %llu: write: %s",
                (unsigned long long)c->num, uv_strerror(n));
        free(data);
        arb_conn_close(c);
        return -1;
    }
    if (n < 0)
        n = 0;
    w = malloc(sizeof(*w));
    if (w == NULL) {
        free(data);
        arb_conn_close(c);
        return -1;
    }
    w->conn = c;
    w->len = len - (size_t)n;
    /* What waits is kept in a buffer of its own size: a message's may be
     * twice its length (it grew by doubling), and a slow peer's queue is
     * held to outq_max in memory, not only in bytes to send (until
     * 2026-12-06 a slow subscriber held 1.5 to 2 times outq_max).  A
     * copy only when the socket is full. */
    w->data = malloc(w->len);
    if (w->data != NULL) {
        memcpy(w->data, data + n, w->len);
        free(data);
        n = 0;
    } else {
        w->data = data;         /* (kept whole) */
    }
    ub = uv_buf_init(w->data + n, (unsigned)w->len);
    rc = uv_write(&w->req, &c->h.stream, &ub, 1, on_write);
    if (rc != 0) {
        /* The callback never runs for a synchronous failure. */
        free(w->data);
        free(w);
        arb_conn_close(c);
        return -1;
    }
    c->outq += w->len;
    c->refs++;
    if (c->outq > c->srv->cfg.outq_max / 2)
        arb_conn_flow(c);
    return 0;
}

static int
conn_send(arb_conn_t *c, arb_buf_t *b, int capped)
{
    char  *data;
    size_t body, len;

    if (c->closing || b->oom || b->len < 4) {
        /* A message that could not be built (out of memory) is lost: the
         * connection ends, so the client sees EOF instead of waiting for
         * an answer that will never come. */
        if (!c->closing && b->oom)
            arb_conn_close(c);
        arb_buf_free(b);
        return -1;
    }
    if (c->sink != NULL) {
        c->sink(c, b->data + 4, b->len - 4);
        arb_buf_free(b);
        return 0;
    }
    body = b->len - 4;
    b->data[0] = (char)(body >> 24);
    b->data[1] = (char)(body >> 16);
    b->data[2] = (char)(body >> 8);
    b->data[3] = (char)body;
    if (capped && c->outq + b->len > c->srv->cfg.outq_max) {
        arb_log(ARB_LOG_WARN, "conn %llu (%s): %zu bytes pending, over "
                "outq_max %zu: disconnecting", (unsigned long long)c->num,
                c->identity, c->outq + b->len, c->srv->cfg.outq_max);
        arb_buf_free(b);
        arb_conn_close(c);
        return -1;
    }
    /* Held for the uncork; a connection corked once stays so until then,
     * even if it starts finishing, so nothing overtakes what it holds. */
    if (c->corked || c->srv->corking > 0) {
        if (!c->corked) {
            c->corked = 1;
            c->cnext = c->srv->corked;
            c->srv->corked = c;
            c->refs++;
        }
        len = b->len;
        if (c->cork.data == NULL && !c->cork.oom) {
            c->cork = *b;       /* the first message: taken, not copied */
            memset(b, 0, sizeof(*b));
        } else {
            arb_buf_add(&c->cork, b->data, b->len);
            arb_buf_free(b);
        }
        if (c->cork.oom) {
            arb_conn_close(c);
            return -1;
        }
        c->outq += len;
        return 0;
    }
    data = b->data;
    len = b->len;
    b->data = NULL;
    b->len = b->cap = 0;
    return conn_write(c, data, len);
}

void
arb_server_cork(arb_server_t *srv)
{
    srv->corking++;
}

void
arb_server_uncork(arb_server_t *srv)
{
    arb_conn_t *c, *next;
    char       *data;
    size_t      len;

    if (srv->corking == 0 || --srv->corking > 0)
        return;
    for (c = srv->corked, srv->corked = NULL; c != NULL; c = next) {
        next = c->cnext;
        c->corked = 0;
        c->cnext = NULL;
        data = c->cork.data;
        len = c->cork.len;
        memset(&c->cork, 0, sizeof(c->cork));
        c->outq -= len;
        if (c->closing || len == 0)
            free(data);
        else
            conn_write(c, data, len);
        if (c->finishing) {
            conn_finish_step(c);
        } else if (!c->closing) {
            /* All written at once: no write callback will resume a
             * catch-up that paused on the corked bytes, nor reading
             * paused on them (arb_conn_flow). */
            if (c->outq == 0)
                arb_sub_pump_conn(c);
            arb_conn_flow(c);
        }
        arb_conn_unref(c);
    }
}

static void
on_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
    static char slab[65536];    /* the loop is single-threaded */

    (void)h;
    (void)hint;
    *buf = uv_buf_init(slab, sizeof(slab));
}

static void
on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    arb_conn_t   *c = s->data;
    arb_server_t *srv = c->srv;     /* c may be freed by a request */
    const char   *frame;
    size_t        len;
    uint64_t      t0, t1;
    int           rc;

    if (nread < 0) {
        if (nread != UV_EOF)
            arb_log(ARB_LOG_DEBUG, "conn %llu: read: %s",
                    (unsigned long long)c->num, uv_strerror((int)nread));
        else if (arb_frame_reader_partial(&c->rd))
            arb_log(ARB_LOG_INFO, "conn %llu: closed mid-frame (truncated)",
                    (unsigned long long)c->num);
        arb_conn_close(c);
        return;
    }
    if (nread == 0 || c->closing || c->finishing)
        return;     /* a finishing connection discards what it reads */
    srv->probing = srv->n.reads++ % ARB_PROBE_EVERY == 0;
    t0 = arb_probe_start(srv);
    arb_server_cork(srv);   /* the answers to this read: one write */
    rc = arb_frame_reader_feed(&c->rd, buf->base, (size_t)nread);
    /* A connection that ends stops at the frame that ended it: what
     * follows in the read is discarded, as later reads are (until
     * 2026-12-07 it was served: a refused auth, then another in the same
     * write, was a second try on the same connection). */
    while (rc == 0 && !c->closing && !c->finishing) {
        rc = arb_frame_reader_next(&c->rd, &frame, &len);
        if (rc == 1) {
            t1 = arb_probe_start(srv);
            arb_dispatch(c, frame, len);
            srv->n.frames++;
            arb_probe_add(srv, &srv->n.dispatch_ns, t1);
            rc = 0;
            continue;
        }
        if (rc == 0)
            break;
    }
    arb_server_uncork(srv);
    arb_probe_add(srv, &srv->n.read_ns, t0);
    srv->probing = 0;
    if (rc == 0)
        return;
    if (rc < 0 && !c->closing) {
        c->srv->n.frames_bad++;
        arb_log(ARB_LOG_WARN, "conn %llu: bad frame header (%s; max %zu "
                "bytes): disconnecting", (unsigned long long)c->num,
                arb_strerror(rc), c->srv->cfg.frame_max);
        if (rc == ARB_ETOOBIG)
            arb_reply_error(c, 0, "too_big", NULL, "frame header declares "
                            "%zu bytes: the largest frame is %zu bytes "
                            "(the recorder's frame_max)", c->rd.want,
                            c->srv->cfg.frame_max);
        else if (rc == ARB_EPROTO)
            arb_reply_error(c, 0, "proto", NULL, "frame header declares 0 "
                            "bytes: a frame carries one msgpack map, at "
                            "least 1 byte");
        else
            arb_reply_error(c, 0, "internal", NULL, "frame: %s",
                            arb_strerror(rc));
        arb_conn_finish(c);
    }
}

void
arb_conn_pause(arb_conn_t *c)
{
    if (c->sink == NULL && c->reading && !c->closing) {
        uv_read_stop(&c->h.stream);
        c->reading = 0;
    }
}

void
arb_conn_flow(arb_conn_t *c)
{
    if (c->finishing || c->closing)
        return;
    if (c->inflight < c->srv->cfg.inq_max
        && c->outq <= c->srv->cfg.outq_max / 2) {
        arb_conn_resume(c);
        stall_stop(c);
    } else {
        arb_conn_pause(c);
        if (c->outq > c->srv->cfg.outq_max / 2)
            stall_arm(c, 0);
    }
}

void
arb_conn_resume(arb_conn_t *c)
{
    if (c->sink == NULL && !c->reading && !c->closing && !c->srv->stopping) {
        uv_read_start(&c->h.stream, on_alloc, on_read);
        c->reading = 1;
    }
}

arb_conn_t *
arb_conn_new_sink(arb_server_t *srv,
                  void (*sink)(arb_conn_t *, const char *, size_t),
                  void *data)
{
    arb_conn_t *c = calloc(1, sizeof(*c));

    if (c == NULL)
        return NULL;
    c->srv = srv;
    c->sink = sink;
    c->sink_data = data;
    c->handles = 1;             /* the caller's hold */
    c->num = ++srv->conn_seq;
    return c;
}

void
arb_conn_release(arb_conn_t *c)
{
    c->closing = 1;
    c->sink_data = NULL;
    c->handles--;
    conn_maybe_free(c);
}

static void
on_auth_timeout(uv_timer_t *t)
{
    arb_conn_t *c = t->data;

    if (c->authed || c->closing || c->finishing)
        return;
    arb_log(ARB_LOG_INFO, "conn %llu: no auth within %u ms: disconnecting",
            (unsigned long long)c->num, c->srv->cfg.auth_timeout_ms);
    arb_reply_error(c, 0, "unauthenticated", NULL,
                    "authenticate within %u ms", c->srv->cfg.auth_timeout_ms);
    arb_conn_finish(c);
}

/* A connection past max_connections is closed at once: the file
 * descriptors the store, the HTTP side and a tokens reload need stay
 * free (until 2026-12-06 there was no limit: at the open-file limit every
 * new client, /healthz and SIGHUP failed, and nothing was logged).  One
 * line a second at most, counting the others. */
static void
turn_away(arb_server_t *srv, arb_conn_t *c)
{
    srv->refused_quiet++;
    if (arb_now_ms() - srv->refused_logged_ms >= 1000) {
        arb_log_ev(ARB_LOG_WARN, "accept_failed", NULL, "accept: %zu "
                   "connections open, the most max_connections allows "
                   "(%zu): %llu turned away since the last such line",
                   srv->nopen - 1, srv->open_max,
                   (unsigned long long)srv->refused_quiet);
        srv->refused_logged_ms = arb_now_ms();
        srv->refused_quiet = 0;
    }
    /* Told why, then closed once the peer has read it (its request
     * unread would turn the close into a reset that destroys the
     * answer), lingering a quarter of a second at most; past linger_max
     * at once (a flood), closed at once without an answer, so the
     * descriptors kept stay free. */
    srv->nopen--;
    srv->nturned++;
    c->turned = 1;
    if (srv->nturned > srv->linger_max) {
        arb_conn_close(c);
        return;
    }
    arb_reply_error(c, 0, "busy", NULL, "the recorder holds %zu "
                    "connections, the most it takes (max_connections): "
                    "try again later", srv->open_max);
    arb_conn_finish(c);
    if (!c->closing)
        uv_timer_start(&c->auth_timer, on_linger_timeout, 250, 0);
}

int
arb_server_limits(arb_server_t *srv)
{
    arb_http_config_t *h = &srv->cfg.http;
    struct rlimit      rl;
    size_t             total, kept, left, http = 0, share;

    /* As many open files as allowed: the soft limit is often 1,024
     * where the hard one is far higher. */
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return ARB_EIO;
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        (void)setrlimit(RLIMIT_NOFILE, &rl);
        (void)getrlimit(RLIMIT_NOFILE, &rl);
    }
    total = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (1u << 20)
            ? 1u << 20 : (size_t)rl.rlim_cur;
    /* ARB_FDS_KEPT for the rest (the store's files, the listeners, a
     * tokens reload, NATS, the journal) and ARB_FDS_LINGER for the
     * protocol connections turned away, which linger (config.h); a
     * small limit keeps a share of it instead (the daemon itself holds
     * about 24).  What is left is shared by the two kinds of clients:
     * the HTTP side's own caps come out of it (until 2026-12-06 they did
     * not: idle HTTP sockets could take every descriptor, locking the
     * protocol out and failing a reload, with nothing logged). */
    kept = total >= 4 * ARB_FDS_KEPT ? ARB_FDS_KEPT
           : total / 4 > ARB_FDS_MIN ? total / 4 : ARB_FDS_MIN;
    srv->linger_max = total >= 4 * ARB_FDS_KEPT ? ARB_FDS_LINGER : total / 8;
    left = total > kept + srv->linger_max + 2
           ? total - kept - srv->linger_max : 2;
    if (h->metrics_listen != NULL)
        http += ARB_HTTP_METRICS_CONNS;
    if (h->listen != NULL) {
        /* At most half of what is left, unless the protocol's own cap
         * is set and leaves more. */
        share = srv->cfg.max_connections != 0
                && srv->cfg.max_connections < left / 2
                ? left - srv->cfg.max_connections : left / 2;
        share = share > http + 1 ? share - http : 1;
        if (h->max_conns > share) {
            arb_log(ARB_LOG_WARN, "http: max_connections %zu is more than "
                    "the open-file limit leaves it (%zu files: %zu kept, "
                    "the rest shared with the protocol's connections): "
                    "%zu", h->max_conns, total, kept + srv->linger_max,
                    share);
            h->max_conns = share;
        }
        http += h->max_conns;
    }
    left = left > http + 1 ? left - http : 1;
    srv->open_max = srv->cfg.max_connections != 0 ? srv->cfg.max_connections
                                                  : left;
    if (srv->open_max > left) {
        arb_log(ARB_LOG_WARN, "max_connections %zu is more than the "
                "open-file limit leaves (%zu files: %zu kept, %zu for "
                "HTTP): %zu", srv->open_max, total, kept + srv->linger_max,
                http, left);
        srv->open_max = left;
    }
    return 0;
}

void
arb_server_accept_failed(arb_server_t *srv, const char *side, int status)
{
    srv->accept_quiet++;
    if (arb_now_ms() - srv->accept_logged_ms < 1000)
        return;
    arb_log_ev(ARB_LOG_WARN, "accept_failed", NULL, "%saccept: %s (%llu "
               "since the last such line)", side, uv_strerror(status),
               (unsigned long long)srv->accept_quiet);
    srv->accept_logged_ms = arb_now_ms();
    srv->accept_quiet = 0;
}

static void
on_connection(uv_stream_t *server, int status)
{
    arb_server_t *srv = server->data;
    arb_conn_t   *c;
    int           rc;

    if (status < 0) {
        arb_server_accept_failed(srv, "", status);
        return;
    }
    c = calloc(1, sizeof(*c));
    if (c == NULL)
        return;
    c->srv = srv;
    if (server->type == UV_TCP)
        rc = uv_tcp_init(srv->loop, &c->h.tcp);
    else
        rc = uv_pipe_init(srv->loop, &c->h.pipe, 0);
    if (rc != 0) {
        free(c);
        return;
    }
    c->h.handle.data = c;
    c->handles = 1;
    uv_timer_init(srv->loop, &c->auth_timer);
    c->auth_timer.data = c;
    c->handles++;
    arb_frame_reader_init(&c->rd, srv->cfg.frame_max);
    c->num = ++srv->conn_seq;
    c->next = srv->conns;
    if (srv->conns != NULL)
        srv->conns->prev = c;
    srv->conns = c;
    srv->n.conns++;
    srv->nopen++;
    if (uv_accept(server, &c->h.stream) != 0 || srv->stopping) {
        arb_conn_close(c);
        return;
    }
    if (srv->nopen > srv->open_max) {
        turn_away(srv, c);
        return;
    }
    if (server->type == UV_TCP)
        uv_tcp_nodelay(&c->h.tcp, 1);
    uv_timer_start(&c->auth_timer, on_auth_timeout, srv->cfg.auth_timeout_ms,
                   0);
    arb_conn_resume(c);
    arb_log(ARB_LOG_DEBUG, "conn %llu: accepted", (unsigned long long)c->num);
}

/* 1 when a process accepts connections on the Unix socket `path`: a
 * connect that is not refused (a full backlog is someone listening). */
static int
unix_listened(const char *path)
{
    struct sockaddr_un sa;
    int                fd, rc;

    if (strlen(path) >= sizeof(sa.sun_path))
        return 0;
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return 0;
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    memcpy(sa.sun_path, path, strlen(path) + 1);
    rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
    rc = rc == 0 || errno == EAGAIN || errno == EINPROGRESS;
    close(fd);
    return rc;
}

/* Binds and listens on the Unix socket `path`.  The socket file is the
 * daemon's sign of readiness to clients and scripts that wait for it, so it
 * appears only once connections are accepted: bound under a temporary name,
 * listening, then renamed into place (a client connecting between a bind
 * and a listen at the same name would be refused).  A path too long for
 * the temporary name's suffix is bound in place.  0 or a libuv error. */
static int
listen_unix(arb_server_t *srv, uv_pipe_t *p, const char *path)
{
    static const char suffix[] = ".new";
    struct sockaddr_un sa;
    struct stat        st;
    char               tmp[sizeof(sa.sun_path)];
    const char        *at = path;
    int                rc;

    /* A socket file left by a crash would make bind fail; anything else at
     * the path is not ours to replace, nor a socket another process still
     * listens on (until 2026-12-06 a second daemon took a running
     * recorder's socket over, and removed it when it stopped: the
     * recorder ran on, unreachable, and said nothing). */
    if (lstat(path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode)) {
            arb_log(ARB_LOG_ERROR, "listen unix:%s: there is a %s there, "
                    "not a socket: not replaced", path,
                    S_ISDIR(st.st_mode) ? "directory" : "file");
            return UV_EADDRINUSE;
        }
        if (unix_listened(path)) {
            arb_log(ARB_LOG_ERROR, "listen unix:%s: another process is "
                    "listening there (is a recorder already running on "
                    "this socket?); not taken over", path);
            return UV_EADDRINUSE;
        }
        unlink(path);
    }
    if (strlen(path) + sizeof(suffix) <= sizeof(tmp)) {
        snprintf(tmp, sizeof(tmp), "%s%s", path, suffix);
        if (lstat(tmp, &st) == 0 && S_ISSOCK(st.st_mode))
            unlink(tmp);
        at = tmp;
    }
    rc = uv_pipe_bind(p, at);
    if (rc == 0) {
        chmod(at, 0660);
        p->data = srv;
        rc = uv_listen((uv_stream_t *)p, 511, on_connection);
    }
    if (rc != 0 || at == path)
        return rc;      /* libuv removes the name it bound at the close */
    if (rename(at, path) != 0)
        return uv_translate_sys_error(errno);
    srv->sock_paths[srv->nsock_paths++] = path;
    return 0;
}

static int
listen_one(arb_server_t *srv, const char *spec)
{
    uv_stream_t *s = NULL;
    arb_buf_t    why = ARB_BUF_INIT;
    int          rc;

    if (strncmp(spec, "unix:", 5) == 0) {
        uv_pipe_t *p = calloc(1, sizeof(*p));
        if (p == NULL)
            return UV_ENOMEM;
        uv_pipe_init(srv->loop, p, 0);
        s = (uv_stream_t *)p;
        rc = listen_unix(srv, p, spec + 5);
    } else {
        struct sockaddr_storage addr;
        socklen_t               len;
        uv_tcp_t               *t = calloc(1, sizeof(*t));
        if (t == NULL)
            return UV_ENOMEM;
        uv_tcp_init(srv->loop, t);
        s = (uv_stream_t *)t;
        /* The port read strictly: atoi took 99999 as 34463. */
        rc = arb_tcp_addr_numeric(spec, 0, &addr, &len, &why) != 0
             ? UV_EINVAL : 0;
        if (rc == 0 && !arb_tcp_addr_loopback(&addr))
            arb_log(ARB_LOG_WARN, "listening on %s, not loopback: "
                    "tokens cross the network in clear", spec);
        if (rc == 0)
            rc = uv_tcp_bind(t, (const struct sockaddr *)&addr, 0);
    }
    if (rc == 0 && s->type == UV_TCP)
        rc = uv_listen(s, 511, on_connection);
    s->data = srv;
    srv->listeners[srv->nlisteners++] = s;
    if (rc != 0 && why.len > 0)     /* it names spec */
        arb_log(ARB_LOG_ERROR, "listen: %s", arb_buf_cstr(&why));
    else if (rc != 0)
        arb_log(ARB_LOG_ERROR, "listen %s: %s", spec, uv_strerror(rc));
    else
        arb_log(ARB_LOG_INFO, "listening on %s", spec);
    arb_buf_free(&why);
    return rc;
}

int
arb_server_listen(arb_server_t *srv)
{
    size_t i;
    int    rc;

    for (i = 0; i < srv->cfg.nlisten; i++) {
        rc = listen_one(srv, srv->cfg.listen[i]);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static void
on_listener_closed(uv_handle_t *h)
{
    free(h);
}

/* The last step of a clean stop: nothing is queued or committing, so every
 * ack is in a connection's output; each connection drains, then closes. */
static void
finish_stop(arb_server_t *srv)
{
    arb_conn_t *c, *next;

    /* Held sync acks are answered before the connections drain. */
    arb_repl_stop(srv);
    arb_replica_stop(srv);
    for (c = srv->conns; c != NULL; c = next) {
        next = c->next;
        arb_conn_finish(c);
    }
    arb_http_stop_held(srv);
    uv_close((uv_handle_t *)&srv->sig_term, NULL);
    uv_close((uv_handle_t *)&srv->sig_int, NULL);
    uv_close((uv_handle_t *)&srv->sig_hup, NULL);
    uv_close((uv_handle_t *)&srv->stop_async, NULL);
    arb_commit_close(srv);
    arb_sub_close(srv);
}

void
arb_server_revoke(arb_server_t *srv)
{
    arb_conn_t *c, *next;

    for (c = srv->conns; c != NULL; c = next) {
        next = c->next;
        /* (A sink is one HTTP write of before the reload: it ends with
         * its answer.) */
        if (!c->authed || c->closing || c->finishing || c->sink != NULL
            || arb_config_holds(&srv->cfg, c->print))
            continue;
        /* What it sent before the reload stands (an append already
         * queued commits and is answered); nothing after. */
        arb_log_ev(ARB_LOG_WARN, "token_revoked", NULL, "conn %llu: the "
                   "token of %s (%s) was removed or changed by the reload: "
                   "closed", (unsigned long long)c->num, c->identity,
                   arb_role_name(c->role));
        /* Told why, as a live HTTP stream is (`revoked`): a `watch`
         * said "connection closed by the server" (until 2026-12-06). */
        arb_reply_push_error(c, 0, "revoked", "the token of this "
                             "connection was removed or changed by a "
                             "reload of the recorder's tokens: connection "
                             "closed; connect again with a token it "
                             "holds");
        arb_conn_finish(c);
    }
    arb_http_revoke(srv);
}

void
arb_server_stop(arb_server_t *srv)
{
    size_t      i;
    arb_conn_t *c;

    if (!srv->stopping) {
        srv->stopping = 1;
        arb_log(ARB_LOG_INFO, "stopping: no new connections or requests");
        for (i = 0; i < srv->nlisteners; i++)
            uv_close((uv_handle_t *)srv->listeners[i], on_listener_closed);
        srv->nlisteners = 0;
        for (i = 0; i < srv->nsock_paths; i++)
            unlink(srv->sock_paths[i]);
        srv->nsock_paths = 0;
        for (c = srv->conns; c != NULL; c = c->next)
            arb_conn_pause(c);
        arb_http_stop(srv);
    }
    if (srv->committing || srv->nqueue > 0) {
        /* commit.c calls us again when the batch is done; a stop does
         * not wait for a gather */
        arb_commit_kick(srv);
        return;
    }
    finish_stop(srv);
}
