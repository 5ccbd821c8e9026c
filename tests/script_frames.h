/*
 * script_frames.h - the frames of a scripted recorder: the tests that run
 * the real bin/arbiter against a server of their own on a unix socket
 * (test_cli_net, test_record_net) answer and read with these.  Test-only.
 */
#ifndef ARB_TEST_SCRIPT_FRAMES_H
#define ARB_TEST_SCRIPT_FRAMES_H

#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/mp.h"

/* The scratch directory (mkdtemp) and the server's socket in it. */
static char dir[64];
static char sock_path[96];

/* Makes dir from the mkdtemp pattern tmpl, with sock_path in it, once
 * bin/arbiter is there: 0, or -1 said on stderr. */
static int
script_begin(const char *tmpl)
{
    if (access("bin/arbiter", X_OK) != 0) {
        fprintf(stderr, "bin/arbiter missing: build it first\n");
        return -1;
    }
    snprintf(dir, sizeof(dir), "%s", tmpl);
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        return -1;
    }
    snprintf(sock_path, sizeof(sock_path), "%s/s.sock", dir);
    signal(SIGPIPE, SIG_IGN);
    return 0;
}

/* Removes the socket, the command's out and err files and dir. */
static void
script_end(void)
{
    static const char *const f[] = { "s.sock", "out", "err" };
    char                     p[128];
    size_t                   i;

    for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
        snprintf(p, sizeof(p), "%s/%s", dir, f[i]);
        unlink(p);
    }
    rmdir(dir);
}

static void
put_frame(arb_buf_t *out, const arb_buf_t *body)
{
    arb_buf_u32be(out, (uint32_t)body->len);
    arb_buf_add(out, body->data, body->len);
}

/* Starts a response body {v, id, ok: true, + extra fields}. */
static void
ok_head(msgpack_packer *pk, uint64_t id, size_t extra)
{
    msgpack_pack_map(pk, 3 + extra);
    arb_mp_pack_kv_uint(pk, "v", 1);
    arb_mp_pack_kv_uint(pk, "id", id);
    arb_mp_pack_kv_bool(pk, "ok", 1);
}

/* A refusal {v, id, ok: false, error: {code, message}}; code NULL: an
 * error map without it. */
static void
put_refusal(arb_buf_t *out, uint64_t id, const char *code, const char *msg)
{
    arb_buf_t      b = ARB_BUF_INIT;
    msgpack_packer pk;

    arb_mp_packer_init(&pk, &b);
    msgpack_pack_map(&pk, 4);
    arb_mp_pack_kv_uint(&pk, "v", 1);
    arb_mp_pack_kv_uint(&pk, "id", id);
    arb_mp_pack_kv_bool(&pk, "ok", 0);
    msgpack_pack_str_with_body(&pk, "error", 5);
    msgpack_pack_map(&pk, code != NULL ? 2 : 1);
    if (code != NULL)
        arb_mp_pack_kv_str(&pk, "code", code);
    arb_mp_pack_kv_str(&pk, "message", msg);
    put_frame(out, &b);
    arb_buf_free(&b);
}

/* Reads one frame from fd within 5 s into body: 1, or 0 at its end or
 * on a timeout. */
static int
read_frame(int fd, arb_buf_t *body)
{
    unsigned char h[4];
    char          c[4096];
    size_t        want, got = 0;
    struct pollfd p = { .fd = fd, .events = POLLIN };
    ssize_t       r;

    body->len = 0;
    while (got < 4) {
        if (poll(&p, 1, 5000) != 1)
            return 0;
        r = read(fd, h + got, 4 - got);
        if (r <= 0)
            return 0;
        got += (size_t)r;
    }
    want = (size_t)h[0] << 24 | (size_t)h[1] << 16 | (size_t)h[2] << 8
           | h[3];
    while (body->len < want) {
        if (poll(&p, 1, 5000) != 1)
            return 0;
        r = read(fd, c, want - body->len < sizeof(c) ? want - body->len
                                                      : sizeof(c));
        if (r <= 0)
            return 0;
        arb_buf_add(body, c, (size_t)r);
    }
    return 1;
}

static void
slurp(const char *path, char *buf, size_t len)
{
    FILE  *f = fopen(path, "r");
    size_t n = 0;

    if (f != NULL) {
        n = fread(buf, 1, len - 1, f);
        fclose(f);
    }
    buf[n] = '\0';
}

#endif
