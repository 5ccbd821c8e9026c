#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

#include "core/err.h"
#include "core/text.h"
#include "proto/addr.h"
#include "proto/client.h"
#include "proto/frame.h"
#include "proto/limits.h"
#include "core/mp.h"

/* The largest response frame a client reads. */
#define CLIENT_FRAME_MAX (64u << 20)

struct arb_client {
    int                fd;
    uint64_t           next_id;
    arb_buf_t          out;
    msgpack_packer     pk;
    arb_frame_reader_t rd;
    char               in[65536];
    size_t             in_len, in_off;
    int                fed;
    int                timeout_ms; /* a send or an answer's wait; 0: none */
    arb_buf_t          last;       /* bytes of the last frame read */
};

static struct timeval
ms_timeval(int ms)
{
    struct timeval tv;

    tv.tv_sec = ms / 1000;
    tv.tv_usec = (ms % 1000) * 1000;
    return tv;
}

/* Connects fd, a new stream socket, to sa within ms (0: as long as the
 * system tries, about two minutes for a host that drops the packets).
 * Linux bounds a blocking connect by the send timeout, which the client
 * keeps afterwards anyway (apply_timeout); past it connect fails with
 * EINPROGRESS (TCP) or EAGAIN (a unix socket whose backlog is full).
 * 0, or -1 with errno; ETIMEDOUT for a timeout. */
static int
connect_within(int fd, const struct sockaddr *sa, socklen_t len, int ms)
{
    struct timeval tv = ms_timeval(ms);

    if (ms > 0
        && setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) != 0)
        return -1;
    if (connect(fd, sa, len) == 0)
        return 0;
    if (ms > 0 && (errno == EINPROGRESS || errno == EAGAIN
                   || errno == EWOULDBLOCK))
        errno = ETIMEDOUT;
    return -1;
}

/* What a connect to addr that failed with errno says. */
static void
connect_failed(const char *addr, int err, int ms, arb_buf_t *why)
{
    if (err == ETIMEDOUT && ms > 0)
        arb_buf_printf(why, "connect %s: the server did not take the "
                       "connection within %d.%03d s", addr, ms / 1000,
                       ms % 1000);
    else
        arb_buf_printf(why, "connect %s: %s", addr, strerror(err));
}

/* A TCP connection to spec's host, a name or an address, within ms each:
 * each address it resolves to is tried in turn.  0 with *fd the socket,
 * ARB_EINVAL (a bad address) or ARB_EIO, with why set. */
static int
tcp_connect(const char *spec, int ms, int *fd, arb_buf_t *why)
{
    struct addrinfo  hints, *res = NULL, *ai;
    char             host[256], port[8];
    unsigned         p;
    int              rc, err = 0, one = 1;

    *fd = -1;
    rc = arb_tcp_addr_parse(spec, 0, host, sizeof(host), &p, why);
    if (rc != 0)
        return rc;
    snprintf(port, sizeof(port), "%u", p);
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0) {
        arb_buf_printf(why, "connect %s: host '%s': %s", spec, host,
                       rc == EAI_SYSTEM ? strerror(errno)
                                        : gai_strerror(rc));
        return ARB_EIO;
    }
    for (ai = res; ai != NULL && *fd < 0; ai = ai->ai_next) {
        *fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
        if (*fd >= 0
            && connect_within(*fd, ai->ai_addr, ai->ai_addrlen, ms) != 0) {
            err = errno;
            close(*fd);
            *fd = -1;
        } else if (*fd < 0) {
            err = errno;
        }
    }
    freeaddrinfo(res);
    if (*fd < 0) {
        connect_failed(spec, err, ms, why);
        return ARB_EIO;
    }
    setsockopt(*fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return 0;
}

/* A connection to addr, "unix:PATH" or a bare path, within ms: as
 * tcp_connect. */
static int
unix_connect(const char *addr, int ms, int *fd, arb_buf_t *why)
{
    struct sockaddr_un sa;
    const char        *path;
    int                err;

    *fd = -1;
    path = strncmp(addr, "unix:", 5) == 0 ? addr + 5 : addr;
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof(sa.sun_path)) {
        arb_buf_printf(why, "bad server address '%s': the socket path is "
                       "too long; use unix:PATH or tcp:HOST:PORT", addr);
        return ARB_EINVAL;
    }
    strcpy(sa.sun_path, path);
    *fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (*fd < 0 || connect_within(*fd, (struct sockaddr *)&sa, sizeof(sa),
                                  ms) != 0) {
        err = errno;
        connect_failed(addr, err, ms, why);
        if (*fd >= 0)
            close(*fd);
        *fd = -1;
        return ARB_EIO;
    }
    return 0;
}

int
arb_client_connect(arb_client_t **out, const char *addr, arb_buf_t *why)
{
    return arb_client_dial(out, addr, 0, why);
}

int
arb_client_dial(arb_client_t **out, const char *addr, int ms,
                arb_buf_t *why)
{
    int fd, rc;

    *out = NULL;
    if (ms < 0) {
        arb_buf_printf(why, "a timeout of %d ms", ms);
        return ARB_EINVAL;
    }
    if (strncmp(addr, "tcp:", 4) == 0)
        rc = tcp_connect(addr, ms, &fd, why);
    else
        rc = unix_connect(addr, ms, &fd, why);
    if (rc == 0)
        rc = arb_client_open_fd(out, fd);
    if (rc == 0 && ms > 0 && (rc = arb_client_timeout(*out, ms, why)) != 0) {
        arb_client_close(*out);
        *out = NULL;
    }
    return rc;
}

int
arb_client_open_fd(arb_client_t **out, int fd)
{
    arb_client_t *cl;

    *out = NULL;
    cl = calloc(1, sizeof(*cl));
    if (cl == NULL || arb_frame_reader_init(&cl->rd, CLIENT_FRAME_MAX) != 0) {
        free(cl);
        close(fd);
        return ARB_ENOMEM;
    }
    cl->fd = fd;
    cl->next_id = 1;
    *out = cl;
    return 0;
}

/* The socket's send and receive timeouts, from cl->timeout_ms. */
static int
apply_timeout(arb_client_t *cl)
{
    struct timeval tv = ms_timeval(cl->timeout_ms);

    if (setsockopt(cl->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) != 0
        || setsockopt(cl->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) != 0)
        return -1;
    return 0;
}

void
arb_client_reopen_fd(arb_client_t *cl, int fd)
{
    close(cl->fd);
    cl->fd = fd;
    cl->next_id = 1;
    cl->out.len = cl->last.len = 0;
    cl->out.oom = cl->last.oom = 0;     /* a failed growth was theirs */
    cl->in_len = cl->in_off = 0;
    cl->fed = 0;
    if (cl->timeout_ms > 0)
        (void)apply_timeout(cl);    /* a socket of its own: as before */
    /* A reader may hold a sticky error or half a frame of the old
     * connection: a new one (its buffer is small: it grows with what
     * arrives).  Init allocates nothing and cannot fail with this max. */
    arb_frame_reader_free(&cl->rd);
    (void)arb_frame_reader_init(&cl->rd, CLIENT_FRAME_MAX);
}

int
arb_client_timeout(arb_client_t *cl, int ms, arb_buf_t *why)
{
    if (ms < 0) {
        arb_buf_printf(why, "a timeout of %d ms", ms);
        return ARB_EINVAL;
    }
    cl->timeout_ms = ms;
    if (apply_timeout(cl) != 0) {
        arb_buf_printf(why, "setting a timeout: %s", strerror(errno));
        return ARB_EIO;
    }
    return 0;
}

/* What a send or a recv that failed with errno says. */
static void
io_failed(const arb_client_t *cl, const char *what, arb_buf_t *why)
{
    if ((errno == EAGAIN || errno == EWOULDBLOCK) && cl->timeout_ms > 0)
        arb_buf_printf(why, "the server did not %s within %d.%03d s",
                       what, cl->timeout_ms / 1000, cl->timeout_ms % 1000);
    else if (strcmp(what, "answer") == 0 || errno == EPIPE
             || errno == ECONNRESET)
        arb_buf_printf(why, "connection closed by the server: %s",
                       strerror(errno));
    else
        arb_buf_printf(why, "send: %s", strerror(errno));
}

void
arb_client_close(arb_client_t *cl)
{
    if (cl == NULL)
        return;
    close(cl->fd);
    arb_buf_free(&cl->out);
    arb_buf_free(&cl->last);
    arb_frame_reader_free(&cl->rd);
    free(cl);
}

int
arb_client_fd(const arb_client_t *cl)
{
    return cl->fd;
}

uint64_t
arb_client_begin(arb_client_t *cl, msgpack_packer **pk, const char *op,
                 size_t n)
{
    static const char hdr[4] = { 0, 0, 0, 0 };
    uint64_t          id = cl->next_id++;

    cl->out.len = 0;
    arb_buf_add(&cl->out, hdr, 4);
    arb_mp_packer_init(&cl->pk, &cl->out);
    msgpack_pack_map(&cl->pk, 3 + n);
    arb_mp_pack_kv_uint(&cl->pk, "v", 1);
    arb_mp_pack_kv_uint(&cl->pk, "id", id);
    arb_mp_pack_kv_str(&cl->pk, "op", op);
    *pk = &cl->pk;
    return id;
}

int
arb_client_send(arb_client_t *cl, arb_buf_t *why)
{
    size_t  body, off = 0;
    ssize_t w;

    if (cl->out.oom || cl->out.len < 4)
        return ARB_ENOMEM;
    body = cl->out.len - 4;
    cl->out.data[0] = (char)(body >> 24);
    cl->out.data[1] = (char)(body >> 16);
    cl->out.data[2] = (char)(body >> 8);
    cl->out.data[3] = (char)body;
    while (off < cl->out.len) {
        w = send(cl->fd, cl->out.data + off, cl->out.len - off, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            io_failed(cl, "take the request", why);
            return ARB_EIO;
        }
        off += (size_t)w;
    }
    return 0;
}

/* What the frame reader refused (rc), named: a server that is not
 * arbiterd (an HTTP server's "HTTP" read as a length) says so here. */
static void
frame_failed(const arb_client_t *cl, int rc, arb_buf_t *why)
{
    if (rc == ARB_ETOOBIG)
        arb_buf_printf(why, "bad frame from server: %zu bytes declared, "
                       "over the limit of %zu", cl->rd.want, cl->rd.max);
    else if (rc == ARB_EPROTO)
        arb_buf_printf(why, "bad frame from server: a frame declared "
                       "empty");
    else
        arb_buf_printf(why, "bad frame from server: %s", arb_strerror(rc));
}

/* The end of the stream: after a whole frame, or inside one (a frame cut
 * short, what it holds dropped). */
static void
closed(const arb_client_t *cl, arb_buf_t *why)
{
    arb_buf_printf(why, "connection closed by the server");
    if (!arb_frame_reader_partial(&cl->rd))
        return;
    if (cl->rd.hdr_len < 4)
        arb_buf_printf(why, " in the middle of a frame (%zu of its 4 "
                       "header bytes came)", cl->rd.hdr_len);
    else
        arb_buf_printf(why, " in the middle of a frame (%zu of its %zu "
                       "bytes came)", cl->rd.have, cl->rd.want);
}

/* The frame of len bytes in cl->last as one response or push map; what
 * is wrong with it is the server's, and said so. */
static int
parse_frame(const arb_client_t *cl, msgpack_unpacked *res, size_t len,
            arb_buf_t *why)
{
    arb_buf_t   reason = ARB_BUF_INIT;
    const char *r;
    int         rc;

    rc = arb_mp_parse_limits(res, cl->last.data, len, ARB_DEPTH_MAX,
                             ARB_RESP_ELEMS_MAX, &reason);
    r = arb_buf_cstr(&reason);
    if (r == NULL)
        r = "out of memory";
    if (rc != 0)
        arb_buf_printf(why, "%s%s", rc != ARB_ENOMEM
                       ? "bad answer from server: " : "", r);
    arb_buf_free(&reason);
    return rc;
}

int
arb_client_read(arb_client_t *cl, msgpack_unpacked *res, arb_buf_t *why)
{
    const char *frame;
    size_t      len;
    ssize_t     r;
    int         rc;

    msgpack_unpacked_destroy(res);
    msgpack_unpacked_init(res);
    for (;;) {
        if (cl->fed) {
            rc = arb_frame_reader_next(&cl->rd, &frame, &len);
            if (rc == 1) {
                /* The objects point into the bytes they were parsed from,
                 * and frame may point into cl->in, which the next recv
                 * reuses: keep a private copy until the next read. */
                cl->last.len = 0;
                arb_buf_add(&cl->last, frame, len);
                if (cl->last.oom)
                    return ARB_ENOMEM;
                return parse_frame(cl, res, len, why);
            }
            if (rc < 0) {
                frame_failed(cl, rc, why);
                return ARB_EPROTO;
            }
            cl->fed = 0;
        }
        r = recv(cl->fd, cl->in, sizeof(cl->in), 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            io_failed(cl, "answer", why);
            return ARB_EIO;
        }
        if (r == 0) {
            closed(cl, why);
            return ARB_EIO;
        }
        rc = arb_frame_reader_feed(&cl->rd, cl->in, (size_t)r);
        if (rc != 0) {
            frame_failed(cl, rc, why);
            return ARB_EPROTO;
        }
        cl->fed = 1;
    }
}

const msgpack_object *
arb_client_get(const msgpack_unpacked *res, const char *key)
{
    return arb_mp_get(&res->data, key);
}

uint64_t
arb_client_uint(const msgpack_unpacked *res, const char *key)
{
    uint64_t v = 0;

    arb_mp_get_uint(&res->data, key, &v);
    return v;
}

const char *
arb_client_error_code(const msgpack_unpacked *res, char *buf, size_t len)
{
    const msgpack_object *e = arb_client_get(res, "error"), *c;

    buf[0] = '\0';
    c = arb_mp_get(e, "code");
    if (c != NULL && c->type == MSGPACK_OBJECT_STR)
        snprintf(buf, len, "%.*s", (int)c->via.str.size, c->via.str.ptr);
    return buf;
}

int
arb_client_call(arb_client_t *cl, msgpack_unpacked *res, arb_buf_t *why)
{
    const msgpack_object *ok, *e, *code, *msg, *rule;
    uint64_t              id = cl->next_id - 1;
    int                   rc;

    rc = arb_client_send(cl, why);
    if (rc != 0)
        return rc;
    for (;;) {
        rc = arb_client_read(cl, res, why);
        if (rc != 0)
            return rc;
        if (arb_client_get(res, "push") != NULL)
            continue;
        if (arb_client_uint(res, "id") == id || arb_client_uint(res, "id") == 0)
            break;
    }
    ok = arb_client_get(res, "ok");
    if (ok != NULL && ok->type == MSGPACK_OBJECT_BOOLEAN
        && ok->via.boolean) {
        if (arb_client_uint(res, "id") == id)
            return 0;
        /* id 0 is for a refusal of a frame whose id could not be read
         * (busy among them): a success there answers no request. */
        arb_buf_free(why);
        arb_buf_printf(why, "bad answer from server: a success without "
                       "the request's id");
        return ARB_EPROTO;
    }
    e = arb_client_get(res, "error");
    code = arb_mp_get(e, "code");
    msg = arb_mp_get(e, "message");
    rule = arb_mp_get(e, "rule");
    arb_buf_free(why);
    if (code == NULL || code->type != MSGPACK_OBJECT_STR
        || code->via.str.size == 0) {
        /* Neither a success nor a refusal: no request was judged. */
        arb_buf_printf(why, "bad answer from server: not ok, and no "
                       "error code");
        return ARB_EPROTO;
    }
    /* The tools print it on a terminal: a server that sends escapes (or
     * bytes that are no UTF-8) gets them shown as \xNN, never obeyed. */
    arb_text_clean(why, code->via.str.ptr, code->via.str.size, 0);
    arb_buf_printf(why, ": ");
    if (rule != NULL && rule->type == MSGPACK_OBJECT_STR) {
        arb_text_clean(why, rule->via.str.ptr, rule->via.str.size, 0);
        arb_buf_printf(why, ": ");
    }
    if (msg != NULL && msg->type == MSGPACK_OBJECT_STR)
        arb_text_clean(why, msg->via.str.ptr, msg->via.str.size, 0);
    return ARB_EINVAL;
}

int
arb_client_auth(arb_client_t *cl, const char *token, arb_buf_t *why)
{
    msgpack_packer  *pk;
    msgpack_unpacked res;
    int              rc;

    msgpack_unpacked_init(&res);
    arb_client_begin(cl, &pk, "auth", 1);
    arb_mp_pack_kv_str(pk, "token", token);
    rc = arb_client_call(cl, &res, why);
    msgpack_unpacked_destroy(&res);
    return rc;
}
