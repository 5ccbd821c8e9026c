/*
 * test_client.c - the blocking client's own state across connections
 * (arb_client_reopen_fd): a client moved to a new connection behaves as a
 * new client, whatever the old connection left in it; and the reading
 * of "tcp:HOST:PORT" (proto/addr.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "core/err.h"
#include "core/mp.h"
#include "proto/addr.h"
#include "proto/client.h"
#include "tests/test.h"

/* The frame of {"v":1,"id":ID,"ok":true}. */
static void
send_ok(int fd, unsigned id)
{
    char f[16] = "\0\0\0\x0c\x83\xa1v\x01\xa2id\x00\xa2ok\xc3";

    f[11] = (char)id;                   /* a positive fixint */
    CHECK_INT(write(fd, f, 16), 16);
}

static void
test_reopen(void)
{
    arb_client_t    *cl;
    msgpack_unpacked res;
    msgpack_packer  *pk;
    arb_buf_t        why = ARB_BUF_INIT;
    int              a[2], b[2], c[2], old;

    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, a) == 0);
    CHECK_INT(arb_client_open_fd(&cl, a[0]), 0);
    msgpack_unpacked_init(&res);
    /* First connection: two requests, then a frame declared 0 bytes long,
     * a sticky error of its reader. */
    CHECK_INT(arb_client_begin(cl, &pk, "stats", 0), 1);
    CHECK_INT(arb_client_begin(cl, &pk, "stats", 0), 2);
    CHECK_INT(write(a[1], "\0\0\0\0", 4), 4);
    CHECK_INT(arb_client_read(cl, &res, &why), ARB_EPROTO);
    CHECK_INT(arb_client_read(cl, &res, &why), ARB_EPROTO);

    /* Second: numbering starts again, the error is gone, the old socket
     * is closed. */
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, b) == 0);
    old = a[0];
    arb_client_reopen_fd(cl, b[0]);
    CHECK(fcntl(old, F_GETFD) == -1 && errno == EBADF);
    CHECK_INT(arb_client_fd(cl), b[0]);
    CHECK_INT(arb_client_begin(cl, &pk, "stats", 0), 1);
    send_ok(b[1], 1);
    CHECK_INT(arb_client_call(cl, &res, &why), 0);
    CHECK_INT(arb_client_uint(&res, "id"), 1);
    /* ... and it leaves half a frame and a whole one unread. */
    send_ok(b[1], 7);
    CHECK_INT(write(b[1], "\0\0\0\x0c\x83\xa1", 6), 6);
    CHECK_INT(arb_client_read(cl, &res, &why), 0);
    CHECK_INT(arb_client_uint(&res, "id"), 7);

    /* Third: only what the new connection sends is read. */
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, c) == 0);
    arb_client_reopen_fd(cl, c[0]);
    send_ok(c[1], 3);
    CHECK(shutdown(c[1], SHUT_WR) == 0);
    CHECK_INT(arb_client_read(cl, &res, &why), 0);
    CHECK_INT(arb_client_uint(&res, "id"), 3);
    CHECK_INT(arb_client_read(cl, &res, &why), ARB_EIO);

    msgpack_unpacked_destroy(&res);
    arb_client_close(cl);
    close(a[1]);
    close(b[1]);
    close(c[1]);
    arb_buf_free(&why);
}

/* A request over 64 KiB (a recorder's frame_max may be up to 16 MiB)
 * goes with its whole length in the header, big-endian: all four bytes
 * (no test failed when the first byte held the second's). */
static void
test_big_request(void)
{
    enum { TEXT = 70000 };
    arb_client_t    *cl;
    msgpack_packer  *pk;
    arb_buf_t        why = ARB_BUF_INIT;
    unsigned char    hdr[4];
    static char      text[TEXT + 1], body[TEXT + 64];
    size_t           n, want, got = 0;
    ssize_t          r;
    int              p[2];

    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, p) == 0);
    CHECK_INT(arb_client_open_fd(&cl, p[0]), 0);
    memset(text, 't', TEXT);
    CHECK_INT(arb_client_begin(cl, &pk, "append", 1), 1);
    arb_mp_pack_kv_str(pk, "text", text);
    CHECK_INT(arb_client_send(cl, &why), 0);
    CHECK_INT(read(p[1], hdr, 4), 4);
    n = (size_t)hdr[0] << 24 | (size_t)hdr[1] << 16 | (size_t)hdr[2] << 8
        | hdr[3];
    /* {v, id, op "append", text}: the map, its keys and values */
    want = 1 + 2 + 1 + 3 + 1 + 3 + 7 + 5 + 5 + TEXT;
    CHECK_INT(n, want);
    while (got < sizeof(body) && (r = read(p[1], body + got,
                                           sizeof(body) - got)) > 0) {
        got += (size_t)r;
        if (got >= want)
            break;
    }
    CHECK_INT(got, want);
    CHECK(got == want && memcmp(body + want - TEXT, text, TEXT) == 0);
    arb_client_close(cl);
    close(p[1]);
    arb_buf_free(&why);
}

/* The port is digits, 1..65535 (0 for a listener only), never wrapped
 * round; an IPv6 address is in brackets; a listener's host is numeric. */
static void
test_tcp_addr(void)
{
    static const char *const bad[] = {
        "tcp:127.0.0.1:99999", "tcp:127.0.0.1:65536", "tcp:127.0.0.1:abc",
        "tcp:127.0.0.1:", "tcp:127.0.0.1:+80", "tcp:127.0.0.1: 80",
        "tcp:127.0.0.1:80x", "tcp:127.0.0.1:0", "tcp::80", "tcp:[]:80",
        "tcp:::1:80", "tcp:127.0.0.1", "unix:/x", "tcp:[::1:80",
        "tcp:127.0.0.1:99999999999999999999999",
        "tcp:127.0.0.1:18446744073709551696", "tcp:[x:80", "tcp:x]:80"
    };
    struct sockaddr_storage ss;
    socklen_t               len;
    arb_client_t           *cl = NULL;
    arb_buf_t               why = ARB_BUF_INIT;
    char                    host[64];
    unsigned                port = 0;
    size_t                  i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        arb_buf_free(&why);
        CHECK_INT(arb_tcp_addr_parse(bad[i], 0, host, sizeof(host), &port,
                                     &why), ARB_EINVAL);
        CHECK(strstr(arb_buf_cstr(&why), bad[i]) != NULL);
    }
    CHECK_INT(arb_tcp_addr_parse("tcp:localhost:65535", 0, host,
                                 sizeof(host), &port, &why), 0);
    CHECK_STR(host, "localhost");
    CHECK_INT(port, 65535);
    CHECK_INT(arb_tcp_addr_parse("tcp:[::1]:1", 0, host, sizeof(host),
                                 &port, &why), 0);
    CHECK_STR(host, "::1");
    CHECK_INT(port, 1);
    CHECK_INT(arb_tcp_addr_parse("tcp:127.0.0.1:0", 1, host, sizeof(host),
                                 &port, &why), 0);
    CHECK_INT(port, 0);
    CHECK_INT(arb_tcp_addr_parse("tcp:127.0.0.1:", 1, host, sizeof(host),
                                 &port, &why), ARB_EINVAL);
    CHECK_INT(arb_tcp_addr_parse("tcp:a-rather-long-name:80", 0, host, 8,
                                 &port, &why), ARB_EINVAL);
    /* the host fills host[] but for its NUL */
    CHECK_INT(arb_tcp_addr_parse("tcp:abcdefgh:80", 0, host, 8, &port,
                                 &why), ARB_EINVAL);
    CHECK_INT(arb_tcp_addr_parse("tcp:abcdefg:80", 0, host, 8, &port,
                                 &why), 0);
    CHECK_STR(host, "abcdefg");
    /* A listener binds an address, not a name. */
    CHECK_INT(arb_tcp_addr_numeric("tcp:127.0.0.2:7411", 0, &ss, &len, &why),
              0);
    CHECK_INT(ss.ss_family, AF_INET);
    CHECK_INT(arb_tcp_addr_loopback(&ss), 1);
    CHECK_INT(arb_tcp_addr_numeric("tcp:[::1]:7411", 0, &ss, &len, &why), 0);
    CHECK_INT(ss.ss_family, AF_INET6);
    CHECK_INT(arb_tcp_addr_loopback(&ss), 1);
    CHECK_INT(arb_tcp_addr_numeric("tcp:10.0.0.5:7411", 0, &ss, &len, &why),
              0);
    CHECK_INT(arb_tcp_addr_loopback(&ss), 0);
    arb_buf_free(&why);
    CHECK_INT(arb_tcp_addr_numeric("tcp:localhost:7411", 0, &ss, &len, &why),
              ARB_EINVAL);
    CHECK(strstr(arb_buf_cstr(&why), "tcp:localhost:7411") != NULL);
    /* A refused address: no connection tried, the address named. */
    arb_buf_free(&why);
    CHECK_INT(arb_client_connect(&cl, "tcp:127.0.0.1:99999", &why),
              ARB_EINVAL);
    CHECK(cl == NULL);
    arb_buf_free(&why);
}

/* A body packed into a frame and written to fd. */
static void
send_body(int fd, const arb_buf_t *body)
{
    unsigned char h[4];
    size_t        n = body->len;

    h[0] = (unsigned char)(n >> 24);
    h[1] = (unsigned char)(n >> 16);
    h[2] = (unsigned char)(n >> 8);
    h[3] = (unsigned char)n;
    CHECK_INT(write(fd, h, 4), 4);
    CHECK_INT(write(fd, body->data, n), (ssize_t)n);
}

/* One call of a new request on cl, the server's frames already sent. */
static int
call(arb_client_t *cl, msgpack_unpacked *res, arb_buf_t *why)
{
    msgpack_packer *pk;

    arb_buf_free(why);
    arb_client_begin(cl, &pk, "stats", 0);
    return arb_client_call(cl, res, why);
}

/* A broken or hostile server: every answer that is no response is said
 * so, never taken for a refusal with no words, and a frame past the
 * limit, a cut frame or a closed socket ends the call. */
static void
test_hostile(void)
{
    arb_client_t    *cl;
    msgpack_unpacked res;
    msgpack_packer   pk, *pkr;
    arb_buf_t        why = ARB_BUF_INIT, b = ARB_BUF_INIT;
    char             code[16];
    int              s[2];

    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, s) == 0);
    CHECK_INT(arb_client_open_fd(&cl, s[0]), 0);
    msgpack_unpacked_init(&res);

    /* a push, then an answer to another request, then ours */
    arb_mp_packer_init(&pk, &b);
    msgpack_pack_map(&pk, 2);
    arb_mp_pack_kv_str(&pk, "push", "event");
    arb_mp_pack_kv_uint(&pk, "id", 1);
    send_body(s[1], &b);
    send_ok(s[1], 9);
    send_ok(s[1], 1);
    CHECK_INT(call(cl, &res, &why), 0);
    CHECK_INT(arb_client_uint(&res, "id"), 1);
    CHECK(arb_client_get(&res, "push") == NULL);
    /* what was sent: {"v":1,"id":1,"op":"stats"} in a frame of its
     * length */
    {
        char             req[64];
        msgpack_unpacked q;

        CHECK_INT(read(s[1], req, sizeof(req)), 4 + 17);
        CHECK(memcmp(req, "\0\0\0\x11", 4) == 0);
        msgpack_unpacked_init(&q);
        CHECK_INT(arb_mp_parse(&q, req + 4, 17, &why), 0);
        CHECK_INT(q.data.type, MSGPACK_OBJECT_MAP);
        CHECK_INT(q.data.via.map.size, 3);
        CHECK_INT(arb_client_uint(&q, "id"), 1);
        msgpack_unpacked_destroy(&q);
    }

    /* a refusal: its code and message */
    b.len = 0;
    msgpack_pack_map(&pk, 3);
    arb_mp_pack_kv_uint(&pk, "id", 2);
    msgpack_pack_str_with_body(&pk, "ok", 2);
    msgpack_pack_false(&pk);
    msgpack_pack_str_with_body(&pk, "error", 5);
    msgpack_pack_map(&pk, 2);
    arb_mp_pack_kv_str(&pk, "code", "illegal");
    arb_mp_pack_kv_str(&pk, "message", "no");
    send_body(s[1], &b);
    CHECK_INT(call(cl, &res, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "illegal: no");
    CHECK_STR(arb_client_error_code(&res, code, sizeof(code)), "illegal");

    /* a code that is no string; whatever why held before is gone */
    b.len = 0;
    msgpack_pack_map(&pk, 2);
    arb_mp_pack_kv_uint(&pk, "id", 3);
    msgpack_pack_str_with_body(&pk, "error", 5);
    msgpack_pack_map(&pk, 1);
    arb_mp_pack_kv_uint(&pk, "code", 7);
    send_body(s[1], &b);
    CHECK_INT(call(cl, &res, &why), ARB_EPROTO);
    CHECK_STR(arb_client_error_code(&res, code, sizeof(code)), "");

    /* "busy" comes with id 0, before any request is read */
    b.len = 0;
    msgpack_pack_map(&pk, 2);
    arb_mp_pack_kv_uint(&pk, "id", 0);
    msgpack_pack_str_with_body(&pk, "error", 5);
    msgpack_pack_map(&pk, 1);
    arb_mp_pack_kv_str(&pk, "code", "busy");
    send_body(s[1], &b);
    arb_client_begin(cl, &pkr, "stats", 0);
    arb_buf_printf(&why, "stale ");
    CHECK_INT(arb_client_call(cl, &res, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "busy: ");

    /* "ok" that is no true is no success; without an error it is no
     * refusal either */
    b.len = 0;
    msgpack_pack_map(&pk, 2);
    arb_mp_pack_kv_uint(&pk, "id", 5);
    arb_mp_pack_kv_uint(&pk, "ok", 1);
    send_body(s[1], &b);
    CHECK_INT(call(cl, &res, &why), ARB_EPROTO);
    CHECK(strstr(arb_buf_cstr(&why), "no error code") != NULL);

    /* an empty code is none */
    b.len = 0;
    msgpack_pack_map(&pk, 2);
    arb_mp_pack_kv_uint(&pk, "id", 6);
    msgpack_pack_str_with_body(&pk, "error", 5);
    msgpack_pack_map(&pk, 1);
    arb_mp_pack_kv_str(&pk, "code", "");
    send_body(s[1], &b);
    CHECK_INT(call(cl, &res, &why), ARB_EPROTO);
    CHECK_STR(arb_buf_cstr(&why), "bad answer from server: not ok, and no "
              "error code");

    /* a success of id 0, or of none, answers no request: until now it
     * was taken for the answer */
    b.len = 0;
    msgpack_pack_map(&pk, 2);
    arb_mp_pack_kv_uint(&pk, "id", 0);
    arb_mp_pack_kv_bool(&pk, "ok", 1);
    send_body(s[1], &b);
    CHECK_INT(call(cl, &res, &why), ARB_EPROTO);
    CHECK_STR(arb_buf_cstr(&why), "bad answer from server: a success "
              "without the request's id");
    b.len = 0;
    msgpack_pack_map(&pk, 1);
    arb_mp_pack_kv_bool(&pk, "ok", 1);
    send_body(s[1], &b);
    CHECK_INT(call(cl, &res, &why), ARB_EPROTO);

    /* an array where a response map belongs */
    b.len = 0;
    msgpack_pack_array(&pk, 2);
    msgpack_pack_uint8(&pk, 6);
    msgpack_pack_true(&pk);
    send_body(s[1], &b);
    CHECK_INT(call(cl, &res, &why), ARB_EPROTO);
    CHECK_STR(arb_buf_cstr(&why), "bad answer from server: message: "
              "expected map, got array");

    /* a response nested deeper than ARB_DEPTH_MAX (a map holding eight
     * arrays, one in the other) is refused before it is unpacked (no
     * test failed when the client took up to the scanner's cap, 64) */
    {
        int d;

        b.len = 0;
        msgpack_pack_map(&pk, 2);
        arb_mp_pack_kv_uint(&pk, "id", 8);
        msgpack_pack_str_with_body(&pk, "x", 1);
        for (d = 0; d < 8; d++)
            msgpack_pack_array(&pk, 1);
        msgpack_pack_uint8(&pk, 1);
        send_body(s[1], &b);
        arb_buf_free(&why);
        CHECK_INT(arb_client_read(cl, &res, &why), ARB_ETOOBIG);
        CHECK(strncmp(arb_buf_cstr(&why), "bad answer from server: ", 24)
              == 0);
        CHECK(strstr(arb_buf_cstr(&why), "nests deeper than 8") != NULL);
    }

    /* a refusal's code, rule and message are shown, not obeyed: an
     * escape, a bell and a byte that is no UTF-8 come as \xNN (no test
     * failed when the code was printed as sent) */
    b.len = 0;
    msgpack_pack_map(&pk, 3);
    arb_mp_pack_kv_uint(&pk, "id", 10);
    msgpack_pack_str_with_body(&pk, "ok", 2);
    msgpack_pack_false(&pk);
    msgpack_pack_str_with_body(&pk, "error", 5);
    msgpack_pack_map(&pk, 3);
    arb_mp_pack_kv_str(&pk, "code", "ill\x1b[2Jegal");
    arb_mp_pack_kv_str(&pk, "rule", "\xff" "34");
    arb_mp_pack_kv_str(&pk, "message", "no\a");
    send_body(s[1], &b);
    CHECK_INT(call(cl, &res, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "ill\\x1b[2Jegal: \\xff34: no\\x07");

    /* a frame declared past the limit */
    CHECK_INT(write(s[1], "\x05\0\0\0", 4), 4);
    CHECK_INT(call(cl, &res, &why), ARB_EPROTO);
    CHECK_STR(arb_buf_cstr(&why), "bad frame from server: 83886080 bytes "
              "declared, over the limit of 67108864");
    close(s[1]);
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, s) == 0);
    arb_client_reopen_fd(cl, s[0]);

    /* an answer to another id, then half a frame and the end */
    send_ok(s[1], 7);
    CHECK_INT(write(s[1], "\0\0\0\x0c\x83\xa1", 6), 6);
    CHECK(shutdown(s[1], SHUT_WR) == 0);
    CHECK_INT(call(cl, &res, &why), ARB_EIO);
    CHECK_STR(arb_buf_cstr(&why), "connection closed by the server in the "
              "middle of a frame (2 of its 12 bytes came)");

    msgpack_unpacked_destroy(&res);
    arb_client_close(cl);
    close(s[1]);
    arb_buf_free(&b);
    arb_buf_free(&why);
}

/* A server that never answers: a call fails once the timeout has passed
 * (it waited for ever until 2026-12-07), also on a socket the client was
 * moved to; the answer that comes in time is taken; 0 waits for ever. */
static void
test_timeout(void)
{
    arb_client_t    *cl;
    msgpack_unpacked res;
    arb_buf_t        why = ARB_BUF_INIT;
    struct timespec  t0, t1;
    long             ms;
    int              s[2];

    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, s) == 0);
    CHECK_INT(arb_client_open_fd(&cl, s[0]), 0);
    msgpack_unpacked_init(&res);
    CHECK_INT(arb_client_timeout(cl, -1, &why), ARB_EINVAL);
    CHECK_INT(arb_client_timeout(cl, 150, &why), 0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK_INT(call(cl, &res, &why), ARB_EIO);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECK_STR(arb_buf_cstr(&why),
              "the server did not answer within 0.150 s");
    ms = (t1.tv_sec - t0.tv_sec) * 1000
         + (t1.tv_nsec - t0.tv_nsec) / 1000000;
    CHECK(ms >= 140 && ms < 10000);
    close(s[1]);
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, s) == 0);
    arb_client_reopen_fd(cl, s[0]);
    CHECK_INT(call(cl, &res, &why), ARB_EIO);
    CHECK(strstr(arb_buf_cstr(&why), "did not answer") != NULL);
    send_ok(s[1], 2);                   /* in time */
    CHECK_INT(call(cl, &res, &why), 0);
    CHECK_INT(arb_client_timeout(cl, 0, &why), 0);
    send_ok(s[1], 3);
    CHECK_INT(call(cl, &res, &why), 0);
    msgpack_unpacked_destroy(&res);
    arb_client_close(cl);
    close(s[1]);
    arb_buf_free(&why);
}

/* Milliseconds since t0. */
static long
ms_since(const struct timespec *t0)
{
    struct timespec t1;

    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (t1.tv_sec - t0->tv_sec) * 1000
           + (t1.tv_nsec - t0->tv_nsec) / 1000000;
}

/* A dial to addr, whose listener never takes another connection, fails
 * within the timeout naming it; before 2026-12-07 the tools waited for
 * the system's two minutes on TCP, for ever on a unix socket. */
static void
dial_blocked(const char *addr)
{
    arb_client_t   *cl = NULL;
    arb_buf_t       why = ARB_BUF_INIT;
    struct timespec t0;
    long            ms;
    char            want[160];

    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK_INT(arb_client_dial(&cl, addr, 200, &why), ARB_EIO);
    ms = ms_since(&t0);
    CHECK(cl == NULL);
    snprintf(want, sizeof(want), "connect %s: the server did not take "
             "the connection within 0.200 s", addr);
    CHECK_STR(arb_buf_cstr(&why), want);
    CHECK(ms >= 150 && ms < 10000);
    arb_buf_free(&why);
}

/* Listeners with a backlog of 0 and one connection queued, which take no
 * other (the kernel drops a TCP SYN, parks a unix connect): a host that
 * drops the packets, a server too busy to accept, without a network. */
static void
test_dial_timeout(void)
{
    struct sockaddr_in sin;
    struct sockaddr_un sun;
    socklen_t          len = sizeof(sin);
    arb_client_t      *cl = NULL;
    arb_buf_t          why = ARB_BUF_INIT;
    char               addr[sizeof(sun.sun_path) + 8], dir[] =
                       "/tmp/arb_dial_XXXXXX";
    int                l, q;

    alarm(60);                  /* a dial that waits for ever fails */
    l = socket(AF_INET, SOCK_STREAM, 0);
    memset(&sin, 0, sizeof(sin));
    sin.sin_family = AF_INET;
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(bind(l, (struct sockaddr *)&sin, sizeof(sin)) == 0);
    CHECK(listen(l, 0) == 0);
    CHECK(getsockname(l, (struct sockaddr *)&sin, &len) == 0);
    snprintf(addr, sizeof(addr), "tcp:127.0.0.1:%u",
             (unsigned)ntohs(sin.sin_port));
    CHECK_INT(arb_client_dial(&cl, addr, -1, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "a timeout of -1 ms");
    arb_buf_free(&why);
    CHECK_INT(arb_client_dial(&cl, addr, 200, &why), 0);  /* queued */
    dial_blocked(addr);
    arb_client_close(cl);
    close(l);

    CHECK(mkdtemp(dir) != NULL);
    memset(&sun, 0, sizeof(sun));
    sun.sun_family = AF_UNIX;
    snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/s", dir);
    l = socket(AF_UNIX, SOCK_STREAM, 0);
    CHECK(bind(l, (struct sockaddr *)&sun, sizeof(sun)) == 0);
    CHECK(listen(l, 0) == 0);
    snprintf(addr, sizeof(addr), "unix:%s", sun.sun_path);
    q = socket(AF_UNIX, SOCK_STREAM, 0);
    CHECK(connect(q, (struct sockaddr *)&sun, sizeof(sun)) == 0);
    dial_blocked(addr);
    /* Taken: the timeout is kept for the answer. */
    CHECK(accept(l, NULL, NULL) >= 0);
    CHECK_INT(arb_client_dial(&cl, addr, 200, &why), 0);
    arb_client_close(cl);
    /* ... also the least, 1 ms: an answer that does not come fails the
     * call (no test failed when a dial of 1 ms waited for ever) */
    CHECK(accept(l, NULL, NULL) >= 0);
    CHECK_INT(arb_client_dial(&cl, addr, 1, &why), 0);
    if (cl != NULL) {
        msgpack_unpacked res;
        msgpack_packer  *pk;

        msgpack_unpacked_init(&res);
        arb_client_begin(cl, &pk, "stats", 0);
        CHECK_INT(arb_client_call(cl, &res, &why), ARB_EIO);
        CHECK_STR(arb_buf_cstr(&why), "the server did not answer within "
                  "0.001 s");
        msgpack_unpacked_destroy(&res);
        arb_buf_free(&why);
    }
    arb_client_close(cl);
    close(q);
    close(l);
    unlink(sun.sun_path);
    rmdir(dir);
    alarm(0);
}

/* A socket path fills sun_path but for its NUL; one byte more is a bad
 * address, said before any socket is made. */
static void
test_unix_path(void)
{
    struct sockaddr_un sa;
    arb_client_t      *cl = NULL;
    arb_buf_t          why = ARB_BUF_INIT;
    char               addr[sizeof(sa.sun_path) + 8];

    memcpy(addr, "unix:/", 6);
    memset(addr + 6, 'x', sizeof(sa.sun_path) - 2);
    addr[sizeof(sa.sun_path) + 4] = '\0';   /* a path of max - 1 */
    CHECK_INT(arb_client_connect(&cl, addr, &why), ARB_EIO);
    CHECK(strstr(arb_buf_cstr(&why), "too long") == NULL);
    arb_buf_free(&why);
    addr[sizeof(sa.sun_path) + 4] = 'x';
    addr[sizeof(sa.sun_path) + 5] = '\0';
    CHECK_INT(arb_client_connect(&cl, addr, &why), ARB_EINVAL);
    CHECK(strstr(arb_buf_cstr(&why), "too long") != NULL);
    CHECK(cl == NULL);
    arb_buf_free(&why);
}

int
main(void)
{
    test_reopen();
    test_big_request();
    test_tcp_addr();
    test_hostile();
    test_timeout();
    test_dial_timeout();
    test_unix_path();
    return TEST_END();
}
