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
        "tcp:127.0.0.1:99999999999999999999999"
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
    CHECK_INT(arb_tcp_addr_parse("tcp:a-rather-long-name:80", 0, host, 8,
                                 &port, &why), ARB_EINVAL);
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

int
main(void)
{
    test_reopen();
    test_tcp_addr();
    return TEST_END();
}
