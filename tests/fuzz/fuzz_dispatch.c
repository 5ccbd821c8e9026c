/*
 * fuzz_dispatch.c - the daemon's request dispatch (arb_dispatch(), the
 * one entry point every request frame goes through) with a real store.
 *
 * Each input is one connection: byte 0 picks the token it authenticates
 * with (none, reader, scorer limited to matches "M1" and "T1", arbiter)
 * and whether the loop runs between requests (commits complete, acks go
 * out) or every request is pipelined before the first commit; the rest is
 * the byte stream the client sends, cut into frames by the daemon's frame
 * reader.  The connection is a socketpair whose far end the harness
 * drains; the store is fresh for every input, in a private directory
 * (under /dev/shm when there is one, so commits cost no disk), and the
 * whole server is torn down after it.
 *
 * Invariants: no crash, leak or sanitizer report; the loop ends with no
 * handle or request left over; the store's hash chains verify after any
 * sequence of requests.
 *
 * Corpus: tests/fuzz/corpus/dispatch (request streams of each op).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/err.h"
#include "core/hash.h"
#include "core/keys.h"
#include "core/ledger/store.h"
#include "daemon/config.h"
#include "daemon/log.h"
#include "daemon/server.h"
#include "proto/frame.h"
#include "tests/fuzz/fuzz.h"

static const char *const secrets[] = {
    NULL, "fuzz-reader-0123456789", "fuzz-scorer-0123456789",
    "fuzz-arbiter-0123456789",
};

static char      dir[64];
static char      storedir[96];
static uv_loop_t loop;

static void
rm_store(void)
{
    char p[160];

    snprintf(p, sizeof(p), "%s/data.mdb", storedir);
    unlink(p);
    snprintf(p, sizeof(p), "%s/lock.mdb", storedir);
    unlink(p);
}

static void
cleanup(void)
{
    char p[160];

    rm_store();
    rmdir(storedir);
    snprintf(p, sizeof(p), "%s/%s", dir, ARB_KEY_SECRET_FILE);
    unlink(p);
    snprintf(p, sizeof(p), "%s/%s", dir, ARB_KEY_PUBLIC_FILE);
    unlink(p);
    snprintf(p, sizeof(p), "%s/tokens", dir);
    unlink(p);
    rmdir(dir);
}

/* Once per process: the directory, the signing key, the tokens, the loop. */
static void
setup(arb_config_t *cfg)
{
    static int   ready;
    static arb_config_t base;
    arb_buf_t    why = ARB_BUF_INIT;
    char         p[160];
    FILE        *f;

    if (!ready) {
        arb_log_level = -1;
        snprintf(dir, sizeof(dir), "/dev/shm/arbiter-fuzz-XXXXXX");
        if (mkdtemp(dir) == NULL) {
            snprintf(dir, sizeof(dir), "/tmp/arbiter-fuzz-XXXXXX");
            FUZZ_CHECK(mkdtemp(dir) != NULL);
        }
        atexit(cleanup);
        snprintf(storedir, sizeof(storedir), "%s/store", dir);
        snprintf(p, sizeof(p), "%s/tokens", dir);
        f = fopen(p, "w");
        FUZZ_CHECK(f != NULL);
        fprintf(f, "token = %s reader press\n"
                   "token = %s scorer table-1 M1 T1\n"
                   "token = %s arbiter chief\n",
                secrets[1], secrets[2], secrets[3]);
        FUZZ_CHECK(fclose(f) == 0);
        arb_config_defaults(&base);
        FUZZ_CHECK(arb_config_load_tokens(&base, p, 0, &why) == 0);
        FUZZ_CHECK(uv_loop_init(&loop) == 0);
        ready = 1;
    }
    *cfg = base;
}

static void
drain(int fd)
{
    char buf[65536];

    while (read(fd, buf, sizeof(buf)) > 0)
        ;
}

/* Runs the loop until nothing is committing and every write is done. */
static void
settle(arb_server_t *srv, arb_conn_t *c, int peer)
{
    do {
        drain(peer);
        /* Blocking while the worker commits gives it the CPU. */
        uv_run(&loop, srv->committing ? UV_RUN_ONCE : UV_RUN_NOWAIT);
    } while (srv->committing || srv->nqueue > 0 || c->outq > 0);
}

/* The auth request {"v":1,"id":1,"op":"auth","token":SECRET}, framed. */
static void
auth(arb_conn_t *c, const char *secret)
{
    static const char head[] = "\x84\xa1v\x01\xa2id\x01\xa2op\xa4" "auth"
                               "\xa5token";
    char              f[128];
    size_t            h = sizeof(head) - 1, n = strlen(secret);

    memcpy(f, head, h);
    f[h] = (char)(0xa0 | n);        /* fixstr: secrets are < 32 bytes */
    memcpy(f + h + 1, secret, n);
    arb_dispatch(c, f, h + 1 + n);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static arb_server_t srv;
    arb_conn_t         *c;
    arb_store_opts_t    so;
    arb_buf_t           why = ARB_BUF_INIT;
    const char         *frame;
    size_t              len, off, chunk;
    int                 sv[2], rc, step, mode;

    if (size == 0)
        return 0;
    mode = data[0];
    memset(&srv, 0, sizeof(srv));
    setup(&srv.cfg);
    srv.cfg.data = dir;
    FUZZ_CHECK(arb_checkpoint_init(&srv) == 0);
    srv.loop = &loop;
    rm_store();
    memset(&so, 0, sizeof(so));
    so.map_size = so.map_max = 4u << 20;
    FUZZ_CHECK(arb_store_open(&srv.store, storedir, &so, &why) == 0);

    FUZZ_CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    FUZZ_CHECK(fcntl(sv[1], F_SETFL, O_NONBLOCK) == 0);
    c = calloc(1, sizeof(*c));
    FUZZ_CHECK(c != NULL);
    c->srv = &srv;
    FUZZ_CHECK(uv_pipe_init(&loop, &c->h.pipe, 0) == 0);
    FUZZ_CHECK(uv_pipe_open(&c->h.pipe, sv[0]) == 0);
    c->h.handle.data = c;
    uv_timer_init(&loop, &c->auth_timer);
    c->auth_timer.data = c;
    c->handles = 2;
    c->refs = 1;                    /* ours: c outlives its close */
    FUZZ_CHECK(arb_frame_reader_init(&c->rd, srv.cfg.frame_max) == 0);
    c->num = 1;
    srv.conns = c;

    step = (mode & 4) != 0;
    if (secrets[mode & 3] != NULL) {
        auth(c, secrets[mode & 3]);
        settle(&srv, c, sv[1]);
    }
    /* The client's bytes, in chunks as a socket might deliver them. */
    off = 1;
    while (off < size && !c->closing) {
        chunk = 1 + (size_t)data[off] * 7;
        if (chunk > size - off)
            chunk = size - off;
        rc = arb_frame_reader_feed(&c->rd, (const char *)data + off, chunk);
        off += chunk;
        while (rc >= 0 && !c->closing
               && (rc = arb_frame_reader_next(&c->rd, &frame, &len)) == 1) {
            arb_dispatch(c, frame, len);
            if (step)
                settle(&srv, c, sv[1]);
        }
        if (rc < 0)
            break;
    }
    settle(&srv, c, sv[1]);
    arb_conn_close(c);
    while (c->handles > 0)
        uv_run(&loop, UV_RUN_NOWAIT);
    arb_conn_unref(c);              /* frees it */
    while (uv_run(&loop, UV_RUN_NOWAIT) != 0)
        ;
    FUZZ_CHECK(!uv_loop_alive(&loop));
    close(sv[1]);

    rc = arb_store_verify(srv.store, NULL, &why);
    if (rc != 0)
        fprintf(stderr, "store: %s\n", arb_buf_cstr(&why));
    FUZZ_CHECK(rc == 0);
    arb_live_free_all(&srv);
    arb_store_close(srv.store);
    arb_commit_free(&srv);
    arb_checkpoint_clear(&srv);
    arb_buf_free(&why);
    return 0;
}
