/*
 * http_stall.c - the write timeout: an HTTP connection whose client has
 * taken no byte of its pending output for write_timeout_ms is ended
 * (docs/HTTP.md, "Limits").
 *
 * DESIGN: a client that stops reading (its window shut) while a response
 * or a stream's output waits, or that vanished without a word, held its
 * connection, a slot of max_connections and what libh2o had of the
 * response, forever (until 2026-12-07 there was no write timeout).
 * Progress is what the client acknowledged: the kernel's count of bytes
 * acked (TCP_INFO tcpi_bytes_acked), read once a second by the HTTP tick.
 * While output is pending (in libuv's write queue or the socket's, which
 * SIOCOUTQ counts, sent or not), a count that has not moved for
 * write_timeout_ms ends the connection (shutdown(2): libh2o sees the
 * error and closes it through its own path).  A reader that takes its
 * bytes, however slowly, moves the count and is never cut; an idle
 * keep-alive has nothing pending (header_timeout_ms ends it).  Not
 * TCP_USER_TIMEOUT: the kernel clears its zero-window clock only when a
 * whole queued segment fits the reopened window, so it cut readers that
 * were reading steadily (measured here: 27 KB/s through a 64 KiB buffer,
 * cut after 5 s at a 1 s timeout).
 */
#include <sys/socket.h>

#include "daemon/http.h"
#include "daemon/log.h"
#include "daemon/tcp_acked.h"

/* Bytes the client has acknowledged, and whether output is pending:
 * 0, or -1 when the socket cannot say. */
static int
conn_progress(arb_http_conn_t *hc, uint64_t *acked, int *pending)
{
    uv_os_fd_t fd;
    uint64_t   outq;

    if (uv_fileno((uv_handle_t *)&hc->tcp, &fd) != 0
        || arb_tcp_acked(fd, acked, &outq) != 0)
        return -1;
    *pending = outq > 0 || hc->tcp.write_queue_size > 0;
    return 0;
}

void
arb_http_stalls(struct arb_http *h)
{
    unsigned         ms = h->srv->cfg.http.write_timeout_ms;
    uint64_t         now = uv_now(h->srv->loop), acked;
    arb_http_conn_t *hc;
    uv_os_fd_t       fd;
    int              pending;

    if (ms == 0)
        return;
    for (hc = h->conns; hc != NULL; hc = hc->next) {
        if (hc->stalled || conn_progress(hc, &acked, &pending) != 0)
            continue;
        if (!pending || acked != hc->acked || hc->stall_ms == 0) {
            hc->acked = acked;
            hc->stall_ms = now;
            continue;
        }
        if (now - hc->stall_ms < ms)
            continue;
        hc->stalled = 1;
        if (h->srv->n.http_write_timeouts++ % 1000 == 0)
            arb_log_ev(ARB_LOG_WARN, "http_write_timeout", NULL, "http: a "
                       "client took none of its pending output for %u ms "
                       "(write_timeout_ms): its connection is closed "
                       "(%llu so far)", ms,
                       (unsigned long long)h->srv->n.http_write_timeouts);
        if (uv_fileno((uv_handle_t *)&hc->tcp, &fd) == 0)
            shutdown(fd, SHUT_RDWR);
    }
}
