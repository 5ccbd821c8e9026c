/*
 * test_live_lean.c - arbiterd's live matches keep no history (daemon/
 * live.c): a ruling reloads the moves from the store and the appends still
 * in flight, and judging afterwards sees exactly the ruled state, also
 * after a restart (the match is then loaded with its ruling, a stands
 * among them).
 */
#include <stdio.h>
#include <string.h>

#include <msgpack.h>

#include "core/mp.h"
#include "tests/daemon_harness.h"
#include "tests/test.h"

static msgpack_unpacked res;
static char             code[64];

static void
pack_move(arb_client_t *cl, const char *match, const char *who,
          const char *card)
{
    msgpack_packer *pk;

    arb_client_begin(cl, &pk, "append", 5);
    arb_mp_pack_cstr(pk, "match"); arb_mp_pack_cstr(pk, match);
    arb_mp_pack_cstr(pk, "kind"); arb_mp_pack_cstr(pk, "move");
    arb_mp_pack_cstr(pk, "player"); arb_mp_pack_cstr(pk, who);
    arb_mp_pack_cstr(pk, "verb"); arb_mp_pack_cstr(pk, "place");
    arb_mp_pack_cstr(pk, "args");
    msgpack_pack_array(pk, 1);
    arb_mp_pack_cstr(pk, card);
}

static void
pack_void(arb_client_t *cl, const char *match, uint64_t target)
{
    msgpack_packer *pk;

    arb_client_begin(cl, &pk, "append", 4);
    arb_mp_pack_cstr(pk, "match"); arb_mp_pack_cstr(pk, match);
    arb_mp_pack_cstr(pk, "kind"); arb_mp_pack_cstr(pk, "void");
    arb_mp_pack_cstr(pk, "target"); msgpack_pack_uint64(pk, target);
    arb_mp_pack_cstr(pk, "text"); arb_mp_pack_cstr(pk, "dropped card");
}

/* An illegal move that stands, as a ruling. */
static void
pack_stands(arb_client_t *cl, const char *match, const char *who,
            const char *card)
{
    msgpack_packer *pk;

    arb_client_begin(cl, &pk, "append", 6);
    arb_mp_pack_cstr(pk, "match"); arb_mp_pack_cstr(pk, match);
    arb_mp_pack_cstr(pk, "kind"); arb_mp_pack_cstr(pk, "stands");
    arb_mp_pack_cstr(pk, "player"); arb_mp_pack_cstr(pk, who);
    arb_mp_pack_cstr(pk, "verb"); arb_mp_pack_cstr(pk, "place");
    arb_mp_pack_cstr(pk, "args");
    msgpack_pack_array(pk, 1);
    arb_mp_pack_cstr(pk, card);
    arb_mp_pack_cstr(pk, "text"); arb_mp_pack_cstr(pk, "out of turn");
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
}

/* Moves and a void of the last one sent back to back: the void is judged
 * while the moves may still be in flight. */
static void
test_pipelined_void(arb_client_t *cl)
{
    arb_buf_t why = ARB_BUF_INIT;
    int       i;

    open_yah(cl, "L1");
    pack_move(cl, "L1", "alice", "4S");
    CHECK_INT(arb_client_send(cl, &why), 0);
    pack_move(cl, "L1", "bob", "5S");
    CHECK_INT(arb_client_send(cl, &why), 0);
    pack_move(cl, "L1", "alice", "6S");
    CHECK_INT(arb_client_send(cl, &why), 0);
    pack_void(cl, "L1", 3);
    CHECK_INT(arb_client_send(cl, &why), 0);
    for (i = 0; i < 4; i++) {
        CHECK_INT(answer(cl), 0);
        CHECK_INT(arb_client_uint(&res, "seq"), (uint64_t)i + 1);
    }
    /* The ruled state: 6S is free again, 4S and 5S are not, alice's turn. */
    pack_move(cl, "L1", "bob", "7S");
    CHECK(call(cl) != 0);
    CHECK_STR(code, "illegal");
    pack_move(cl, "L1", "alice", "4S");
    CHECK(call(cl) != 0);
    CHECK_STR(code, "illegal");
    pack_move(cl, "L1", "alice", "6S");
    CHECK_INT(call(cl), 0);
    CHECK_INT(arb_client_uint(&res, "seq"), 5);
    pack_move(cl, "L1", "bob", "5S");
    CHECK(call(cl) != 0);
    CHECK_STR(code, "illegal");
    /* L3: an illegal move that stands, a ruling too */
    open_yah(cl, "L3");
    pack_move(cl, "L3", "alice", "2C");
    CHECK_INT(call(cl), 0);
    pack_stands(cl, "L3", "alice", "3C");
    CHECK_INT(call(cl), 0);
    CHECK_INT(arb_client_uint(&res, "seq"), 2);
    arb_buf_free(&why);
}

/* After a restart the match is loaded from the store, its ruling with it:
 * a second ruling and the moves after it are judged on the ruled state. */
static void
test_after_restart(arb_client_t *cl)
{
    pack_move(cl, "L1", "bob", "7S");
    CHECK_INT(call(cl), 0);
    CHECK_INT(arb_client_uint(&res, "seq"), 6);
    pack_void(cl, "L1", 6);
    CHECK_INT(call(cl), 0);
    pack_move(cl, "L1", "alice", "7S");
    CHECK(call(cl) != 0);
    CHECK_STR(code, "illegal");     /* bob's turn again */
    pack_move(cl, "L1", "bob", "7S");
    CHECK_INT(call(cl), 0);
    CHECK_INT(arb_client_uint(&res, "seq"), 8);
    /* A match without rulings, loaded lean, takes its first one. */
    open_yah(cl, "L2");
    pack_move(cl, "L2", "alice", "2H");
    CHECK_INT(call(cl), 0);
    pack_void(cl, "L2", 1);
    CHECK_INT(call(cl), 0);
    pack_move(cl, "L2", "bob", "3H");
    CHECK(call(cl) != 0);
    CHECK_STR(code, "illegal");     /* alice's turn after the void */
    pack_move(cl, "L2", "alice", "2H");
    CHECK_INT(call(cl), 0);
    /* A match whose ruling is a stands is loaded whole too: it takes
     * its next move (no test failed when a stands was not counted a
     * ruling, and the lean load refused the match as corrupt). */
    pack_move(cl, "L3", "bob", "4C");
    CHECK_INT(call(cl), 0);
    CHECK_INT(arb_client_uint(&res, "seq"), 3);
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
    if (cl != NULL)
        test_pipelined_void(cl);
    arb_client_close(cl);
    harness_stop(SIGTERM);
    harness_start();
    cl = harness_connect(HARNESS_ARBITER);
    CHECK(cl != NULL);
    if (cl != NULL)
        test_after_restart(cl);
    arb_client_close(cl);
    msgpack_unpacked_destroy(&res);
    harness_done(test_failed_);
    return TEST_END();
}
