/*
 * http_guard.c - the head guard: a request head over header_max is
 * refused with 431 as soon as that much of it has arrived (docs/HTTP.md).
 *
 * DESIGN: libh2o 2.2.5 reads a connection into its socket's input buffer
 * (uv_read_start with its own callbacks, lib/common/socket/uv-binding.c.h)
 * and parses the head only once it is complete, or refuses it at
 * H2O_MAX_REQLEN (408 KiB), a compile-time constant; its configuration has
 * no head limit.  So header_max is enforced on the bytes themselves: the
 * stream's read callback is wrapped (the handle is ours; its read_cb is a
 * public field of uv_stream_t), and after libh2o has taken each read, an
 * unparsed input of more than header_max bytes with no end of head in it
 * is answered 431 at once and the connection half-closed.  What arrives
 * after that is read and dropped (never counted into libh2o's buffer)
 * until the client closes or header_timeout_ms ends it.  libh2o restarts
 * reading with uv_read_start, which resets read_cb: the wrapper re-arms
 * itself after each read, and a prepare handle re-arms it before the loop
 * polls, so no read reaches libh2o unguarded.  A connection thus holds at
 * most header_max plus one read (libh2o reserves 4 KiB and more as its
 * buffer grows) of head.
 */
#define _GNU_SOURCE     /* memmem */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "daemon/http.h"
#include "daemon/log.h"

static void on_read_guard(uv_stream_t *st, ssize_t nread,
                          const uv_buf_t *buf);

/* The end of a head within p[0..n): an empty line after a line's end,
 * as picohttpparser reads it, where a line ends in "\n" or "\r\n" and
 * the empty line is "\n" or "\r\n" ("\r\n\r\n", "\n\n", "\r\n\n"
 * and "\n\r\n"; until 2026-12-07 the last was missed, and a parsed head
 * ending so, its body taking the input past header_max, was answered
 * 431 over its own answer). */
static int
has_head_end(const char *p, size_t n)
{
    /* (No input has no end.  Said for GCC 12, whose -Wnonnull took
     * libh2o's buffer for a possible NULL under -fsanitize -O1 and
     * failed `make asan`.) */
    if (p == NULL)
        return 0;
    return memmem(p, n, "\n\n", 2) != NULL
        || memmem(p, n, "\n\r\n", 3) != NULL;
}

static void
refuse_head(arb_http_conn_t *hc)
{
    struct arb_http *h = hc->h;
    char             why[96], msg[400];
    arb_buf_t        body = ARB_BUF_INIT;
    uv_buf_t         b;
    uv_os_fd_t       fd;
    int              n;

    hc->refused = 1;
    /* A response as those libh2o sends: counted by its class too (until
     * 2026-12-07 only here, and arbiter_http_responses_total{code="4xx"}
     * missed every head refused early). */
    h->srv->n.http_status[3]++;
    if (h->srv->n.http_heads_refused++ % 1000 == 0)
        arb_log_ev(ARB_LOG_WARN, "http_head_refused", NULL, "http: a "
                   "request head over header_max (%zu bytes): answered 431 "
                   "before it ended (%llu so far)",
                   h->srv->cfg.http.header_max,
                   (unsigned long long)h->srv->n.http_heads_refused);
    snprintf(why, sizeof(why), "request line and headers over %zu bytes",
             h->srv->cfg.http.header_max);
    arb_http_error_body_code(&body, why, "headers", "too_big");
    /* Nothing else is being written: libh2o answers a request only once
     * its head has been parsed.  A full send buffer (or no memory for the
     * body) loses the answer, not the refusal. */
    if (arb_buf_cstr(&body) != NULL) {
        n = snprintf(msg, sizeof(msg), "HTTP/1.1 431 Request Header Fields "
                     "Too Large\r\nContent-Type: application/json\r\n"
                     "Content-Length: %d\r\nCache-Control: no-store\r\n"
                     "Connection: close\r\n\r\n%s", (int)body.len,
                     body.data);
        b = uv_buf_init(msg, (unsigned)n);
        uv_try_write((uv_stream_t *)&hc->tcp, &b, 1);
    }
    arb_buf_free(&body);
    if (uv_fileno((uv_handle_t *)&hc->tcp, &fd) == 0)
        shutdown(fd, SHUT_WR);
}

/* Re-arms the wrapper if libh2o restarted reading, then checks the head
 * being read. */
void
arb_http_guard_conn(arb_http_conn_t *hc)
{
    h2o_socket_t *sock = hc->tcp.data;
    size_t        limit = hc->h->srv->cfg.http.header_max + 4;

    if (sock == NULL || uv_is_closing((uv_handle_t *)&hc->tcp))
        return;
    if (hc->tcp.read_cb != NULL && hc->tcp.read_cb != on_read_guard) {
        hc->h2o_read = hc->tcp.read_cb;
        hc->tcp.read_cb = on_read_guard;
    }
    /* A head whose end is in the input is libh2o's: it has parsed it and
     * on_req answers it (431 too when it is over header_max). */
    if (!hc->refused && sock->input != NULL && sock->input->size > limit
        && !has_head_end(sock->input->bytes, sock->input->size))
        refuse_head(hc);
}

static void
on_read_guard(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf)
{
    arb_http_conn_t *hc = (arb_http_conn_t *)st;

    /* refused: the bytes were read into libh2o's spare room and are left
     * uncounted; an end or error still goes to libh2o, which closes */
    if (hc->refused && nread >= 0)
        return;
    hc->h2o_read(st, nread, buf);
    arb_http_guard_conn(hc);
}

static void
on_guard_prepare(uv_prepare_t *p)
{
    struct arb_http *h = p->data;
    arb_http_conn_t *hc;

    for (hc = h->conns; hc != NULL; hc = hc->next)
        arb_http_guard_conn(hc);
}

int
arb_http_guard_init(struct arb_http *h)
{
    int rc = uv_prepare_init(h->srv->loop, &h->guard);

    if (rc != 0)
        return rc;
    h->guard.data = h;
    h->guard_init = 1;
    rc = uv_prepare_start(&h->guard, on_guard_prepare);
    /* like libh2o's timers: it must not keep the loop running */
    uv_unref((uv_handle_t *)&h->guard);
    return rc;
}

void
arb_http_guard_stop(struct arb_http *h)
{
    if (h->guard_init) {
        uv_close((uv_handle_t *)&h->guard, NULL);
        h->guard_init = 0;
    }
}
