/*
 * test_read_committed.c - the reads serve what the loop knows is
 * committed (daemon/op_read.c): a `state` or `events` made after the
 * store took a batch but before the loop's after-commit ran (the commit
 * worker done, its callback not yet on the loop) stops at the match's
 * committed seq, never at the store's last, whose ack has not gone out;
 * and a close in that window is no close yet: a reader still gets no
 * digest of a dealt match.  And, on the same in-process server, a
 * `matches` page ends at ARB_PAGE_BYTES (too many matches for the
 * daemon's tests to open one by one over a socket).
 *
 * DESIGN: that window is a thread's race in the daemon, so it is made
 * here by hand: matches are recorded through arb_dispatch() (the
 * dispatcher's harness), then each live entry's committed seq is set back
 * to where the loop stood before the last events' callback, with
 * those events still in flight.
 */
#define _GNU_SOURCE             /* memmem */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mp.h"
#include "daemon/config.h"
#include "daemon/log.h"
#include "daemon/server.h"
#include "tests/crash/disk.h"
#include "tests/dispatch_harness.h"
#include "tests/test.h"

static const char arbiter[] = "rc-arbiter-0123456789";
static const char reader[]  = "rc-reader-0123456789";

static char         dir[256], storedir[300];
static arb_config_t base;
static uv_loop_t    loop;

static int
setup(void)
{
    char tokens[160];

    snprintf(tokens, sizeof(tokens), "token = %s arbiter chief\n"
             "token = %s reader press\n", arbiter, reader);
    if (dh_setup(dir, sizeof(dir), "readcommitted", tokens, &base,
                 &loop) != 0)
        return -1;
    snprintf(storedir, sizeof(storedir), "%s/store", dir);
    return 0;
}

/* The response to the request just sent: the loop is run until it is
 * read (pushes are skipped).  0 with *u holding it, or -1. */
static int
response(dh_conn_t *d, msgpack_unpacked *u)
{
    char        buf[65536];
    const char *f;
    size_t      len;
    ssize_t     n;
    long        turns;
    int         rc;

    for (turns = 0; turns < 1000000; turns++) {
        while ((rc = arb_frame_reader_next(&d->rd, &f, &len)) == 1) {
            msgpack_unpacked_destroy(u);
            msgpack_unpacked_init(u);
            if (arb_mp_parse_limits(u, f, len, 64, 1u << 24, NULL) != 0)
                return -1;
            if (arb_mp_get(&u->data, "ok") != NULL)
                return 0;
        }
        if (rc != 0)
            return -1;
        uv_run(d->srv->loop, UV_RUN_NOWAIT);
        n = read(d->fd, buf, sizeof(buf));
        if (n > 0 && arb_frame_reader_feed(&d->rd, buf, (size_t)n) != 0)
            return -1;
    }
    return -1;
}

static int
is_ok(const msgpack_unpacked *u)
{
    const msgpack_object *ok = arb_mp_get(&u->data, "ok");

    return ok != NULL && ok->type == MSGPACK_OBJECT_BOOLEAN
           && ok->via.boolean;
}

/* The seqs of an events page, up to max, and whether next is nil. */
static size_t
page_seqs(const msgpack_unpacked *u, uint64_t *seq, size_t max, int *nil)
{
    const msgpack_object *ev = arb_mp_get(&u->data, "events");
    const msgpack_object *next = arb_mp_get(&u->data, "next");
    uint32_t              i;
    size_t                n = 0;

    *nil = next != NULL && next->type == MSGPACK_OBJECT_NIL;
    if (ev == NULL || ev->type != MSGPACK_OBJECT_ARRAY)
        return 0;
    for (i = 0; i < ev->via.array.size && n < max; i++)
        if (arb_mp_get_uint(&ev->via.array.ptr[i], "seq", &seq[n]) == 0)
            n++;
    return n;
}

static void
test_reads_stop_at_committed(void)
{
    arb_server_t     srv;
    arb_buf_t        why = ARB_BUF_INIT, b = ARB_BUF_INIT;
    msgpack_packer   pk;
    msgpack_unpacked u;
    dh_conn_t        d;
    arb_live_t      *l = NULL, *dl = NULL;
    const msgpack_object *js;
    const char      *players[] = { "alice", "bob" };
    const char      *seats[] = { "an", "binh", "chi", "dung" };
    uint64_t         seq[8];
    size_t           n;
    int              k, nil;

    CHECK_INT(dh_server_start(&srv, &base, dir, storedir, &loop,
                              4u << 20), 0);
    if (srv.store == NULL)
        return;
    msgpack_unpacked_init(&u);
    dh_conn_open(&d, &srv);
    dh_auth(&d, arbiter);
    dh_settle(&d);
    CHECK(d.c->authed);
    /* R1: the open (seq 0) and three notes (1..3), all acknowledged. */
    dh_req_begin(&b, &pk, 2, "open", 4);
    arb_mp_pack_kv_str(&pk, "match", "R1");
    arb_mp_pack_kv_str(&pk, "game", "yahchain");
    arb_mp_pack_kv_strv(&pk, "players", (char *const *)players, 2);
    arb_mp_pack_cstr(&pk, "options");
    msgpack_pack_map(&pk, 1);
    arb_mp_pack_kv_str(&pk, "mode", "3");
    dh_send(&d, b.data, b.len);
    dh_settle(&d);
    CHECK_STR(d.code, "");
    for (k = 1; k <= 3; k++) {
        dh_req_begin(&b, &pk, 2 + (uint64_t)k, "append", 3);
        arb_mp_pack_kv_str(&pk, "match", "R1");
        arb_mp_pack_kv_str(&pk, "kind", "note");
        arb_mp_pack_kv_str(&pk, "text", "a note");
        dh_send(&d, b.data, b.len);
        dh_settle(&d);
        CHECK_STR(d.code, "");
    }
    CHECK_INT(d.answers, 5);
    CHECK_INT(arb_live_get(&srv, "R1", &l, NULL), 0);
    CHECK(l != NULL && l->committed == 3);
    if (l == NULL)
        goto out;
    /* The store holds 0..3; the loop has seen the callback of 0..1, and
     * 2..3 are in flight still (their entries are not read here). */
    l->committed = 1;
    l->ninflight = 2;

    dh_req_begin(&b, &pk, 10, "state", 1);
    arb_mp_pack_kv_str(&pk, "match", "R1");
    dh_send(&d, b.data, b.len);
    CHECK_INT(response(&d, &u), 0);
    CHECK(is_ok(&u));
    js = arb_mp_get(&u.data, "json");
    CHECK(js != NULL && js->type == MSGPACK_OBJECT_STR);
    if (js != NULL && js->type == MSGPACK_OBJECT_STR) {
        CHECK(memmem(js->via.str.ptr, js->via.str.size, "\"seq\":1,", 8)
              != NULL);
        CHECK(memmem(js->via.str.ptr, js->via.str.size, "\"seq\":3", 7)
              == NULL);
    }
    /* at 2 is past what is committed: as for any seq not yet recorded */
    dh_req_begin(&b, &pk, 11, "state", 2);
    arb_mp_pack_kv_str(&pk, "match", "R1");
    arb_mp_pack_kv_uint(&pk, "at", 2);
    dh_send(&d, b.data, b.len);
    CHECK_INT(response(&d, &u), 0);
    CHECK(!is_ok(&u));

    dh_req_begin(&b, &pk, 12, "events", 1);
    arb_mp_pack_kv_str(&pk, "match", "R1");
    dh_send(&d, b.data, b.len);
    CHECK_INT(response(&d, &u), 0);
    CHECK(is_ok(&u));
    n = page_seqs(&u, seq, 8, &nil);
    CHECK_INT(n, 2);
    CHECK(n == 2 && seq[0] == 0 && seq[1] == 1);
    CHECK(nil);
    /* A page cut by limit at the committed seq says so: no next. */
    dh_req_begin(&b, &pk, 13, "events", 3);
    arb_mp_pack_kv_str(&pk, "match", "R1");
    arb_mp_pack_kv_uint(&pk, "from", 1);
    arb_mp_pack_kv_uint(&pk, "limit", 1);
    dh_send(&d, b.data, b.len);
    CHECK_INT(response(&d, &u), 0);
    n = page_seqs(&u, seq, 8, &nil);
    CHECK(n == 1 && seq[0] == 1);
    CHECK(nil);

    /* The callback runs: every read sees 0..3. */
    l->committed = 3;
    l->ninflight = 0;
    dh_req_begin(&b, &pk, 14, "events", 1);
    arb_mp_pack_kv_str(&pk, "match", "R1");
    dh_send(&d, b.data, b.len);
    CHECK_INT(response(&d, &u), 0);
    n = page_seqs(&u, seq, 8, &nil);
    CHECK_INT(n, 4);
    CHECK(nil);
    CHECK(!dh_ended(&d));

    /* D1, a dealt Chắn match, opened (0) and closed (1): the close is in
     * the store, not yet past the loop, so D1 still runs for every read
     * and a reader's state withholds the digest, which covers every
     * hand. */
    dh_req_begin(&b, &pk, 20, "open", 4);
    arb_mp_pack_kv_str(&pk, "match", "D1");
    arb_mp_pack_kv_str(&pk, "game", "chan");
    arb_mp_pack_kv_strv(&pk, "players", (char *const *)seats, 4);
    arb_mp_pack_cstr(&pk, "deal");
    msgpack_pack_map(&pk, 2);
    arb_mp_pack_kv_str(&pk, "kind", "seed");
    arb_mp_pack_kv_str(&pk, "seed", "read-committed-seed-1");
    dh_send(&d, b.data, b.len);
    dh_settle(&d);
    CHECK_STR(d.code, "");
    dh_req_begin(&b, &pk, 21, "append", 2);
    arb_mp_pack_kv_str(&pk, "match", "D1");
    arb_mp_pack_kv_str(&pk, "kind", "close");
    dh_send(&d, b.data, b.len);
    dh_settle(&d);
    CHECK_STR(d.code, "");
    CHECK_INT(arb_live_get(&srv, "D1", &dl, NULL), 0);
    CHECK(dl != NULL && dl->committed == 1 && dl->closed);
    d.requests = d.answers;
    dh_conn_close(&d);
    if (dl == NULL)
        goto out;
    dl->committed = 0;
    dl->ninflight = 1;
    dl->closed = 0;
    dh_conn_open(&d, &srv);
    dh_auth(&d, reader);
    dh_settle(&d);
    CHECK(d.c->authed);
    dh_req_begin(&b, &pk, 22, "state", 2);
    arb_mp_pack_kv_str(&pk, "match", "D1");
    arb_mp_pack_kv_uint(&pk, "text", 1);
    dh_send(&d, b.data, b.len);
    CHECK_INT(response(&d, &u), 0);
    CHECK(is_ok(&u));
    js = arb_mp_get(&u.data, "json");
    CHECK(js != NULL && js->type == MSGPACK_OBJECT_STR
          && memmem(js->via.str.ptr, js->via.str.size, "\"digest\":null",
                    13) != NULL);
    js = arb_mp_get(&u.data, "text");
    CHECK(js != NULL && js->type == MSGPACK_OBJECT_STR
          && memmem(js->via.str.ptr, js->via.str.size, "digest withheld",
                    15) != NULL);
    /* Past the loop, the close is everyone's: so is the digest. */
    dl->committed = 1;
    dl->ninflight = 0;
    dl->closed = 1;
    dh_req_begin(&b, &pk, 23, "state", 1);
    arb_mp_pack_kv_str(&pk, "match", "D1");
    dh_send(&d, b.data, b.len);
    CHECK_INT(response(&d, &u), 0);
    js = arb_mp_get(&u.data, "json");
    CHECK(js != NULL && js->type == MSGPACK_OBJECT_STR
          && memmem(js->via.str.ptr, js->via.str.size, "\"digest\":\"",
                    10) != NULL);
out:
    if (l != NULL) {
        l->committed = 3;
        l->ninflight = 0;
    }
    if (dl != NULL) {
        dl->committed = 1;
        dl->ninflight = 0;
        dl->closed = 1;
    }
    d.requests = d.answers;
    if (d.c != NULL)
        dh_conn_close(&d);
    arb_live_free_all(&srv);
    arb_store_close(srv.store);
    arb_commit_free(&srv);
    arb_checkpoint_clear(&srv);
    msgpack_unpacked_destroy(&u);
    arb_buf_free(&b);
    arb_buf_free(&why);
}

/* A page of `matches` ends once it holds ARB_PAGE_BYTES of entries,
 * whatever its limit: 600 matches of about 140 bytes each come in two
 * pages at least, the first ended with a next. */
static void
test_matches_page_bytes(void)
{
    arb_server_t     srv;
    arb_buf_t        why = ARB_BUF_INIT, b = ARB_BUF_INIT;
    msgpack_packer   pk;
    msgpack_unpacked u;
    dh_conn_t        d;
    const msgpack_object *ms, *next;
    const char      *players[] = { "alice", "bob" };
    char             id[32];
    int              k;

    CHECK_INT(dh_server_start(&srv, &base, dir, storedir, &loop,
                              64u << 20), 0);
    if (srv.store == NULL)
        return;
    msgpack_unpacked_init(&u);
    dh_conn_open(&d, &srv);
    dh_auth(&d, arbiter);
    dh_settle(&d);
    for (k = 0; k < 600; k++) {
        snprintf(id, sizeof(id), "P%03d", k);
        dh_req_begin(&b, &pk, 2 + (uint64_t)k, "open", 4);
        arb_mp_pack_kv_str(&pk, "match", id);
        arb_mp_pack_kv_str(&pk, "game", "yahchain");
        arb_mp_pack_kv_strv(&pk, "players", (char *const *)players, 2);
        arb_mp_pack_cstr(&pk, "options");
        msgpack_pack_map(&pk, 1);
        arb_mp_pack_kv_str(&pk, "mode", "3");
        dh_send(&d, b.data, b.len);
        dh_settle(&d);
    }
    CHECK_STR(d.code, "");
    dh_req_begin(&b, &pk, 1000, "matches", 0);
    dh_send(&d, b.data, b.len);
    CHECK_INT(response(&d, &u), 0);
    CHECK(is_ok(&u));
    ms = arb_mp_get(&u.data, "matches");
    next = arb_mp_get(&u.data, "next");
    CHECK(ms != NULL && ms->type == MSGPACK_OBJECT_ARRAY
          && ms->via.array.size > 0 && ms->via.array.size < 600);
    CHECK(next != NULL && next->type == MSGPACK_OBJECT_STR);
    d.requests = d.answers;
    dh_conn_close(&d);
    arb_live_free_all(&srv);
    arb_store_close(srv.store);
    arb_commit_free(&srv);
    arb_checkpoint_clear(&srv);
    msgpack_unpacked_destroy(&u);
    arb_buf_free(&b);
    arb_buf_free(&why);
}

int
main(void)
{
    if (setup() != 0) {
        fprintf(stderr, "setup failed (run from the repository root)\n");
        return 1;
    }
    test_reads_stop_at_committed();
    test_matches_page_bytes();
    uv_loop_close(&loop);
    arb_config_free(&base);
    disk_rm_rf(dir);
    return TEST_END();
}
