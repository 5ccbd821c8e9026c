/*
 * test_commit_start.c - when and where arbiterd starts a commit (daemon/
 * commit.c): in the loop's idle phase, once every request the poll read is
 * queued, so requests read together commit together; and a lone event on
 * the loop thread itself (`lone_commit`, on by default), durable before
 * its ack like any other.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <msgpack.h>

#include "core/mp.h"
#include "tests/daemon_harness.h"
#include "tests/test.h"

static msgpack_unpacked res;
static char             code[64];

static void
pack_note(arb_client_t *cl, const char *match, const char *text)
{
    msgpack_packer *pk;

    arb_client_begin(cl, &pk, "append", 3);
    arb_mp_pack_kv_str(pk, "match", match);
    arb_mp_pack_kv_str(pk, "kind", "note");
    arb_mp_pack_kv_str(pk, "text", text);
}

static int
answer(arb_client_t *cl)
{
    return harness_answer(cl, &res, code, sizeof(code));
}

static int
call(arb_client_t *cl)
{
    return harness_call(cl, &res, code, sizeof(code));
}

static void
open_yah(arb_client_t *cl, const char *id)
{
    CHECK_INT(harness_open_yah(cl, id, &res, code, sizeof(code)), 0);
    CHECK_STR(code, "");
}

/* stats → timing.KEY, or UINT64_MAX. */
static uint64_t
timing(arb_client_t *cl, const char *key)
{
    msgpack_packer       *pk;
    const msgpack_object *tm, *v;

    arb_client_begin(cl, &pk, "stats", 0);
    if (call(cl) != 0)
        return UINT64_MAX;
    tm = arb_client_get(&res, "timing");
    v = tm != NULL ? arb_mp_get(tm, key) : NULL;
    return v != NULL && v->type == MSGPACK_OBJECT_POSITIVE_INTEGER
           ? v->via.u64 : UINT64_MAX;
}

/* How many events the match holds, from "events". */
static uint64_t
stored(arb_client_t *cl, const char *match)
{
    msgpack_packer       *pk;
    const msgpack_object *ev;

    arb_client_begin(cl, &pk, "events", 2);
    arb_mp_pack_kv_str(pk, "match", match);
    arb_mp_pack_kv_uint(pk, "from", 0);
    if (call(cl) != 0 || (ev = arb_client_get(&res, "events")) == NULL
        || ev->type != MSGPACK_OBJECT_ARRAY)
        return UINT64_MAX;
    return ev->via.array.size;
}

/* One table appending one note at a time: every commit is lone, on the
 * loop thread, when lone_commit is on, and none is when it is off. */
static void
test_one_at_a_time(arb_client_t *cl, const char *match, int lone,
                   uint64_t seq0)
{
    uint64_t l0 = timing(cl, "lone_commits");
    uint64_t b0 = timing(cl, "store_batches");
    int      i;

    CHECK(l0 != UINT64_MAX && b0 != UINT64_MAX);
    for (i = 0; i < 5; i++) {
        pack_note(cl, match, "one at a time");
        CHECK_INT(call(cl), 0);
        CHECK_INT(arb_client_uint(&res, "seq"), seq0 + 1 + (uint64_t)i);
    }
    CHECK_INT(timing(cl, "store_batches"), b0 + 5);
    CHECK_INT(timing(cl, "lone_commits"), lone ? l0 + 5 : l0);
}

/* Requests read together commit together: the daemon is stopped while
 * three appends are sent, so its next read holds all three, and the
 * commit that takes them is neither lone nor split. */
static void
test_read_together(arb_client_t *cl, const char *match, uint64_t seq0)
{
    arb_buf_t why = ARB_BUF_INIT;
    uint64_t  l0 = timing(cl, "lone_commits");
    uint64_t  b0 = timing(cl, "store_batches");
    int       i;

    kill(harness_pid, SIGSTOP);
    for (i = 0; i < 3; i++) {
        pack_note(cl, match, "read together");
        CHECK_INT(arb_client_send(cl, &why), 0);
    }
    kill(harness_pid, SIGCONT);
    for (i = 0; i < 3; i++) {
        CHECK_INT(answer(cl), 0);
        CHECK_INT(arb_client_uint(&res, "seq"), seq0 + 1 + (uint64_t)i);
    }
    CHECK_INT(timing(cl, "store_batches"), b0 + 1);
    CHECK_INT(timing(cl, "lone_commits"), l0);
    arb_buf_free(&why);
}

static void
append_config(const char *line)
{
    FILE *f = fopen(harness_conf, "a");

    CHECK(f != NULL);
    if (f != NULL) {
        fprintf(f, "%s\n", line);
        fclose(f);
    }
}

int
main(void)
{
    arb_client_t *cl;

    if (harness_init(NULL, 60) != 0)
        return 1;
    msgpack_unpacked_init(&res);
    harness_start();
    cl = harness_connect(HARNESS_ARBITER);
    CHECK(cl != NULL);
    if (cl == NULL)
        return harness_done(1), TEST_END();
    open_yah(cl, "C1");
    test_one_at_a_time(cl, "C1", 1, 0);
    test_read_together(cl, "C1", 5);
    /* Acked lone commits were durable: a kill -9 loses none of them. */
    arb_client_close(cl);
    harness_stop(SIGKILL);
    harness_start();
    cl = harness_connect(HARNESS_ARBITER);
    CHECK(cl != NULL);
    if (cl != NULL)
        CHECK_INT(stored(cl, "C1"), 9);   /* the open and 8 notes */
    arb_client_close(cl);
    /* lone_commit = 0: every commit goes to the worker. */
    harness_stop(SIGTERM);
    append_config("lone_commit = 0");
    harness_start();
    cl = harness_connect(HARNESS_ARBITER);
    CHECK(cl != NULL);
    if (cl != NULL) {
        test_one_at_a_time(cl, "C1", 0, 8);
        test_read_together(cl, "C1", 13);
        CHECK_INT(timing(cl, "lone_commits"), 0);
    }
    arb_client_close(cl);
    msgpack_unpacked_destroy(&res);
    harness_done(test_failed_);
    return TEST_END();
}
