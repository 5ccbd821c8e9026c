/*
 * http_client.h - a raw-socket HTTP/1.1 client for the tests of the
 * recorder's HTTP server: it sends exactly the bytes a test gives (so a
 * test can send what a browser never would) and reads the answer.
 * Include once per test program (the functions are static).
 */
#ifndef ARB_TESTS_HTTP_CLIENT_H
#define ARB_TESTS_HTTP_CLIENT_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"

/* Milliseconds on a monotonic clock. */
static inline long long
http_now_ms(void)
{
    return arb_clock_ms();
}

/* A blocking TCP connection to 127.0.0.1:port, or -1. */
static inline int
http_connect(int port)
{
    struct sockaddr_in a;
    int                fd = socket(AF_INET, SOCK_STREAM, 0);

    if (fd < 0)
        return -1;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_port = htons((unsigned short)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static inline int
http_write_all(int fd, const char *p, size_t n)
{
    ssize_t w;

    while (n > 0) {
        w = send(fd, p, n, MSG_NOSIGNAL);
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Reads into buf (NUL-terminated, at most cap - 1 bytes) until the peer
 * closes, `until` appears (when not NULL) or timeout_ms pass.  Returns the
 * bytes read; *closed tells whether the peer closed. */
static inline size_t
http_read(int fd, char *buf, size_t cap, const char *until, int timeout_ms,
          int *closed)
{
    struct pollfd p = { fd, POLLIN, 0 };
    long long     end = http_now_ms() + timeout_ms;
    size_t        n = 0;
    ssize_t       r;

    *closed = 0;
    buf[0] = '\0';
    while (n + 1 < cap) {
        long long left = end - http_now_ms();
        /* polled once even with no time left */
        if (poll(&p, 1, left > 0 ? (int)left : 0) <= 0)
            break;
        r = recv(fd, buf + n, cap - 1 - n, 0);
        if (r <= 0) {
            *closed = 1;
            break;
        }
        n += (size_t)r;
        buf[n] = '\0';
        if (until != NULL && strstr(buf, until) != NULL)
            break;
    }
    return n;
}

/* The status of a response ("HTTP/1.1 404 ..."), or -1. */
static inline int
http_status(const char *resp)
{
    int code;

    if (sscanf(resp, "HTTP/1.%*d %d", &code) != 1)
        return -1;
    return code;
}

/* The body of a response, or "". */
static inline const char *
http_body(const char *resp)
{
    const char *p = strstr(resp, "\r\n\r\n");

    return p != NULL ? p + 4 : "";
}

/* Sends the raw request and reads the whole answer (the request should
 * ask for Connection: close) into buf; returns its status or -1. */
static inline int
http_raw(int port, const char *req, size_t len, char *buf, size_t cap)
{
    int fd = http_connect(port), closed, st = -1;

    buf[0] = '\0';
    if (fd < 0)
        return -1;
    if (http_write_all(fd, req, len) == 0) {
        http_read(fd, buf, cap, NULL, 3000, &closed);
        st = http_status(buf);
    }
    close(fd);
    return st;
}

/* The port the daemon's log file `path` says it bound last after `said`
 * ("http: listening on tcp:" for listen, "http: metrics listening on
 * tcp:" for metrics_listen; port 0 in the config), waiting up to 3 s; or
 * -1. */
static inline int
http_log_port_said(const char *path, const char *said)
{
    char  line[512];
    FILE *f;
    int   i, p = -1;
    char *at;

    for (i = 0; i < 300 && p < 0; i++) {
        if ((f = fopen(path, "r")) != NULL) {
            while (fgets(line, sizeof(line), f) != NULL)
                if ((at = strstr(line, said)) != NULL)
                    sscanf(strrchr(at, ':') + 1, "%d", &p);
            fclose(f);
        }
        if (p < 0)
            usleep(10000);
    }
    return p;
}

/* The port of listen in the log file `path`. */
static inline int
http_log_port_file(const char *path)
{
    return http_log_port_said(path, "http: listening on tcp:");
}

/* The same for the log DIR/daemon.log. */
static inline int
http_log_port(const char *dir)
{
    char path[320];

    snprintf(path, sizeof(path), "%s/daemon.log", dir);
    return http_log_port_file(path);
}

/* GET path with an optional bearer token; the answer into buf. */
static inline int
http_get(int port, const char *path, const char *token, char *buf,
         size_t cap)
{
    char req[2048];
    int  n;

    n = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: t\r\n"
                 "Connection: close\r\n%s%s%s\r\n", path,
                 token != NULL ? "Authorization: Bearer " : "",
                 token != NULL ? token : "", token != NULL ? "\r\n" : "");
    return http_raw(port, req, (size_t)n, buf, cap);
}

/* POST body (JSON) to path with an optional bearer token; the answer
 * into buf, its status returned. */
static inline int
http_post(int port, const char *path, const char *token, const char *body,
          char *buf, size_t cap)
{
    static char req[1 << 16];
    int         n;

    n = snprintf(req, sizeof(req), "POST %s HTTP/1.1\r\nHost: t\r\n"
                 "Connection: close\r\nContent-Type: application/json\r\n"
                 "Content-Length: %zu\r\n%s%s%s\r\n%s", path, strlen(body),
                 token != NULL ? "Authorization: Bearer " : "",
                 token != NULL ? token : "", token != NULL ? "\r\n" : "",
                 body);
    return http_raw(port, req, (size_t)n, buf, cap);
}

/* Reads a live stream into buf (appending at *n; NUL-terminated) until
 * the whole message `event` with `id` has arrived ("event: E\nid: N\n...
 * \n\n"), the peer closes or timeout_ms pass.  1 when it arrived. */
static inline int
http_read_sse(int fd, char *buf, size_t cap, size_t *n, const char *event,
              unsigned long long id, int timeout_ms)
{
    struct pollfd p = { fd, POLLIN, 0 };
    long long     end = http_now_ms() + timeout_ms;
    char          want[96];
    const char   *at;
    ssize_t       r;

    snprintf(want, sizeof(want), "event: %s\nid: %llu\n", event, id);
    buf[*n] = '\0';
    for (;;) {
        at = strstr(buf, want);
        if (at != NULL && strstr(at, "\n\n") != NULL)
            return 1;
        if (*n + 1 >= cap)
            return 0;
        long long left = end - http_now_ms();
        if (left <= 0 || poll(&p, 1, (int)left) <= 0)
            return 0;
        r = recv(fd, buf + *n, cap - 1 - *n, 0);
        if (r <= 0)
            return 0;
        *n += (size_t)r;
        buf[*n] = '\0';
    }
}

/* Opens GET path as a live stream with a bearer token (or none) and a
 * Last-Event-ID (or none: NULL): the connection, or -1. */
static inline int
http_live_connect(int port, const char *path, const char *token,
                  const char *last_id)
{
    char req[1024];
    int  fd = http_connect(port), n;

    if (fd < 0)
        return -1;
    n = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: t\r\n"
                 "%s%s%s%s%s%s\r\n", path,
                 token != NULL ? "Authorization: Bearer " : "",
                 token != NULL ? token : "", token != NULL ? "\r\n" : "",
                 last_id != NULL ? "Last-Event-ID: " : "",
                 last_id != NULL ? last_id : "",
                 last_id != NULL ? "\r\n" : "");
    if (http_write_all(fd, req, (size_t)n) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

#endif
