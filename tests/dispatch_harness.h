/*
 * dispatch_harness.h - one connection to an in-process server, driven
 * request by request through arb_dispatch() (no listener, no daemon
 * process): for the fuzz harness of the dispatcher and the tests that
 * inject faults into it.
 *
 * The connection is a socketpair: the server's end is the connection's
 * pipe handle, the client's end is read here frame by frame, and every
 * frame the server sends is checked to be a response ("ok") or a push
 * ("push") and counted.  Include once per program (the functions are
 * static); the caller owns the server (its loop, config, store, and the
 * commit and checkpoint state, as arb_server_t says).
 */
#ifndef ARB_TESTS_DISPATCH_HARNESS_H
#define ARB_TESTS_DISPATCH_HARNESS_H

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/mp.h"
#include "daemon/config.h"
#include "daemon/log.h"
#include "daemon/server.h"
#include "proto/frame.h"
#include "tests/crash/disk.h"
#include "tests/fuzz/fuzz.h"

typedef struct dh_conn {
    arb_server_t      *srv;
    arb_conn_t        *c;
    int                fd;              /* the client's end */
    arb_frame_reader_t rd;
    size_t             requests;        /* frames dispatched */
    size_t             answers, pushes; /* frames received */
    char               code[32];        /* last response: error code, or
                                           "" when it was ok */
    long               items;           /* last response: the length of
                                           its "events", or -1 */
} dh_conn_t;

/* Opens a connection to srv (whose loop must be set).  Aborts on failure:
 * the harness itself failing is no finding. */
static void
dh_conn_open(dh_conn_t *d, arb_server_t *srv)
{
    arb_conn_t *c;
    int         sv[2];

    memset(d, 0, sizeof(*d));
    d->srv = srv;
    FUZZ_CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    FUZZ_CHECK(fcntl(sv[1], F_SETFL, O_NONBLOCK) == 0);
    d->fd = sv[1];
    FUZZ_CHECK(arb_frame_reader_init(&d->rd, 1u << 24) == 0);
    c = calloc(1, sizeof(*c));
    FUZZ_CHECK(c != NULL);
    c->srv = srv;
    FUZZ_CHECK(uv_pipe_init(srv->loop, &c->h.pipe, 0) == 0);
    FUZZ_CHECK(uv_pipe_open(&c->h.pipe, sv[0]) == 0);
    c->h.handle.data = c;
    uv_timer_init(srv->loop, &c->auth_timer);
    c->auth_timer.data = c;
    c->handles = 2;
    c->refs = 1;                    /* ours: c outlives its close */
    FUZZ_CHECK(arb_frame_reader_init(&c->rd, srv->cfg.frame_max) == 0);
    c->num = 1;
    srv->conns = c;
    d->c = c;
}

/* Reads and counts what the server has sent so far. */
static void
dh_drain(dh_conn_t *d)
{
    char                  buf[65536];
    const char           *f;
    size_t                len;
    ssize_t               n;
    msgpack_unpacked      u;
    const msgpack_object *e, *code, *items;
    int                   rc;

    while ((n = read(d->fd, buf, sizeof(buf))) > 0) {
        FUZZ_CHECK(arb_frame_reader_feed(&d->rd, buf, (size_t)n) == 0);
        while ((rc = arb_frame_reader_next(&d->rd, &f, &len)) == 1) {
            msgpack_unpacked_init(&u);
            rc = arb_mp_parse_limits(&u, f, len, 64, 1u << 24, NULL);
            if (rc != 0) {
                size_t i;
                fprintf(stderr, "malformed frame of %zu bytes:", len);
                for (i = 0; i < len && i < 96; i++)
                    fprintf(stderr, "%s%02x", i % 32 ? " " : "\n  ",
                            (unsigned char)f[i]);
                fprintf(stderr, "\n");
            }
            FUZZ_CHECK(rc == 0);
            if (arb_mp_get(&u.data, "ok") != NULL) {
                d->answers++;
                d->code[0] = '\0';
                e = arb_mp_get(&u.data, "error");
                code = e != NULL ? arb_mp_get(e, "code") : NULL;
                if (code != NULL && code->type == MSGPACK_OBJECT_STR)
                    snprintf(d->code, sizeof(d->code), "%.*s",
                             (int)code->via.str.size, code->via.str.ptr);
                items = arb_mp_get(&u.data, "events");
                d->items = items != NULL
                           && items->type == MSGPACK_OBJECT_ARRAY
                           ? (long)items->via.array.size : -1;
            } else {
                FUZZ_CHECK(arb_mp_get(&u.data, "push") != NULL);
                d->pushes++;
            }
            msgpack_unpacked_destroy(&u);
        }
        FUZZ_CHECK(rc == 0);
    }
}

/* 1 once the server has ended the connection or is ending it (flushing a
 * last message): it reads no more requests. */
static int
dh_ended(const dh_conn_t *d)
{
    return d->c->closing || d->c->finishing;
}

/* A commit gathering the next batch waits (1..5 ms) for the connections
 * it acknowledged to send again; here nothing more comes until the loop
 * has settled, so its timer is made due now: the same path as when a
 * table sends nothing within the window, without the wait.  (timer_cb is
 * where libuv keeps a timer's callback, declared in uv.h.) */
static void
dh_gather_now(arb_server_t *srv)
{
    if (srv->gathering && uv_is_active((uv_handle_t *)&srv->gather_timer)
        && uv_timer_get_due_in(&srv->gather_timer) > 0)
        FUZZ_CHECK(uv_timer_start(&srv->gather_timer,
                                  srv->gather_timer.timer_cb, 0, 0) == 0);
}

/* Runs the loop until nothing is committing or gathering and every write
 * is done, or until the server has stopped itself (srv->exit_code: a
 * fail-stop). */
static void
dh_settle(dh_conn_t *d)
{
    arb_server_t *srv = d->srv;

    do {
        dh_drain(d);
        dh_gather_now(srv);
        /* Blocking while the worker commits gives it the CPU. */
        uv_run(srv->loop, srv->committing ? UV_RUN_ONCE : UV_RUN_NOWAIT);
    } while (srv->committing
             || (srv->exit_code == 0
                 && (srv->gathering || srv->nqueue > 0
                     || d->c->outq > 0)));
    dh_drain(d);
}

/* One request frame (a msgpack map), dispatched. */
static void
dh_send(dh_conn_t *d, const char *frame, size_t len)
{
    arb_dispatch(d->c, frame, len);
    d->requests++;
}

/* The auth request {"v":1,"id":1,"op":"auth","token":SECRET}. */
static void
dh_auth(dh_conn_t *d, const char *secret)
{
    static const char head[] = "\x84\xa1v\x01\xa2id\x01\xa2op\xa4" "auth"
                               "\xa5token";
    char              f[128];
    size_t            h = sizeof(head) - 1, n = strlen(secret);

    FUZZ_CHECK(n < 32);             /* a fixstr */
    memcpy(f, head, h);
    f[h] = (char)(0xa0 | n);
    memcpy(f + h + 1, secret, n);
    dh_send(d, f, h + 1 + n);
}

/* Closes the connection, runs the loop until its handles are closed and
 * reads what was flushed before the close. */
static void
dh_conn_close(dh_conn_t *d)
{
    uv_loop_t *loop = d->srv->loop;

    arb_conn_close(d->c);
    while (d->c->handles > 0)
        uv_run(loop, UV_RUN_NOWAIT);
    arb_conn_unref(d->c);           /* frees it */
    do
        dh_gather_now(d->srv);
    while (uv_run(loop, UV_RUN_NOWAIT) != 0);
    FUZZ_CHECK(!uv_loop_alive(loop));
    dh_drain(d);
    close(d->fd);
    arb_frame_reader_free(&d->rd);
    d->c = NULL;
    d->srv->conns = NULL;
}

/* Packs into b (emptied first) the head of a request, {"v":1, "id":id,
 * "op":op} and room for n more pairs.  (Inline: not every includer
 * packs requests itself.) */
static inline void
dh_req_begin(arb_buf_t *b, msgpack_packer *pk, uint64_t id, const char *op,
             size_t n)
{
    b->len = 0;
    arb_mp_packer_init(pk, b);
    msgpack_pack_map(pk, 3 + n);
    arb_mp_pack_kv_uint(pk, "v", 1);
    arb_mp_pack_kv_uint(pk, "id", id);
    arb_mp_pack_kv_str(pk, "op", op);
}

/* A test's scratch directory dir (disk_scratch_make's `name`, in memory
 * when it can be), a tokens file in it holding the lines `tokens` loaded
 * into *cfg over its defaults, and *loop initialised; the log silenced.
 * 0, or -1 (said on stderr when the tokens are refused). */
static inline int
dh_setup(char *dir, size_t cap, const char *name, const char *tokens,
         arb_config_t *cfg, uv_loop_t *loop)
{
    arb_buf_t why = ARB_BUF_INIT;
    char      p[320];
    FILE     *f;

    arb_log_level = -1;
    if (disk_scratch_make(dir, cap, name) != 0)
        return -1;
    snprintf(p, sizeof(p), "%s/tokens", dir);
    f = fopen(p, "w");
    if (f == NULL)
        return -1;
    fputs(tokens, f);
    if (fclose(f) != 0)
        return -1;
    arb_config_defaults(cfg);
    if (arb_config_load_tokens(cfg, p, 0, &why) != 0) {
        fprintf(stderr, "%s\n", arb_buf_cstr(&why));
        arb_buf_free(&why);
        return -1;
    }
    arb_buf_free(&why);
    return uv_loop_init(loop);
}

/* Starts *srv (emptied first) as a test's in-process server: cfg with
 * dir as its data directory, loop, and a new store at storedir (what was
 * there removed) of map bytes.  0, or -1 said on stderr. */
static inline int
dh_server_start(arb_server_t *srv, const arb_config_t *cfg, char *dir,
                const char *storedir, uv_loop_t *loop, size_t map)
{
    arb_store_opts_t so;
    arb_buf_t        why = ARB_BUF_INIT;

    memset(srv, 0, sizeof(*srv));
    srv->cfg = *cfg;
    srv->cfg.data = dir;
    srv->loop = loop;
    if (arb_checkpoint_init(srv) != 0)
        return -1;
    disk_rm_rf(storedir);
    memset(&so, 0, sizeof(so));
    so.map_size = so.map_max = map;
    if (arb_store_open(&srv->store, storedir, &so, &why) != 0) {
        fprintf(stderr, "store: %s\n", arb_buf_cstr(&why));
        arb_buf_free(&why);
        return -1;
    }
    arb_buf_free(&why);
    return 0;
}

#endif
