/*
 * test_client.c - the blocking client's own state across connections
 * (arb_client_reopen_fd): a client moved to a new connection behaves as a
 * new client, whatever the old connection left in it.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/err.h"
#include "core/mp.h"
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

int
main(void)
{
    test_reopen();
    return TEST_END();
}
