/*
 * test_repl_turn.c - which matches a regular pass reads in turn
 * (daemon/replicate_pass.c, arb__repl_turn; docs/SCALE.md, "Holes in the
 * middle of a subject"): from the match past the last one read, round the
 * list sorted by id, as many as check_read messages allow, at least one;
 * matches with nothing published, or longer than ARB_REPL_TURN_LONGEST,
 * are passed over and cost nothing.
 */
#include <stdint.h>
#include <string.h>

#include "daemon/replicate_int.h"
#include "tests/test.h"

#define N 5

int
main(void)
{
    static const char *id[N] = { "a", "b", "c", "d", "e" };
    /* messages: a 10, b 5, c none published, d 30, e 1 */
    static const uint64_t lastv[N] = { 9, 4, UINT64_MAX, 29, 0 };
    char             ids[N][ARB_STREAM_ID_MAX + 1];
    uint64_t         last[N];
    int64_t          last_ms[N];
    arb_repl_list_t  l;
    size_t           i, at;

    for (i = 0; i < N; i++) {
        strcpy(ids[i], id[i]);
        last[i] = lastv[i];
        last_ms[i] = 0;
    }
    l.id = ids;
    l.last = last;
    l.last_ms = last_ms;
    l.n = l.cap = N;

    /* No budget, or no match: nothing read in turn. */
    CHECK_INT(arb__repl_turn(&l, "", 0, 0, &at), 0);
    l.n = 0;
    CHECK_INT(arb__repl_turn(&l, "", 0, 100, &at), 0);
    l.n = N;
    /* From a given start (after a restart): a (10) and b (5) fit in 15;
     * c costs nothing; d (30) does not fit: a, b, c. */
    CHECK_INT(arb__repl_turn(&l, "", 0, 15, &at), 3);
    CHECK_INT(at, 0);
    /* The start is taken modulo the list. */
    CHECK_INT(arb__repl_turn(&l, "", 7, 15, &at), 2);    /* c, d */
    CHECK_INT(at, 2);
    /* Past the last match read: after b comes c; d alone exceeds the
     * budget but is read, being the first with messages. */
    CHECK_INT(arb__repl_turn(&l, "b", 0, 15, &at), 2);
    CHECK_INT(at, 2);
    /* Round the end of the list: after d, e (1) then a (10), not b. */
    CHECK_INT(arb__repl_turn(&l, "d", 0, 12, &at), 2);
    CHECK_INT(at, 4);
    /* After the last id: from the first again. */
    CHECK_INT(arb__repl_turn(&l, "e", 0, 10, &at), 1);
    CHECK_INT(at, 0);
    /* An id no longer listed (or never): from the next one after it. */
    CHECK_INT(arb__repl_turn(&l, "bb", 0, 1000, &at), N);
    CHECK_INT(at, 2);
    /* A budget for all: every match once, round from the start. */
    CHECK_INT(arb__repl_turn(&l, "c", 3, 1000, &at), N);
    CHECK_INT(at, 3);
    /* A budget of one message: one match a pass, however long (b, and
     * c, which costs nothing). */
    CHECK_INT(arb__repl_turn(&l, "a", 0, 1, &at), 2);
    CHECK_INT(at, 1);
    CHECK_INT(arb__repl_turn(&l, "b", 0, 1, &at), 2);    /* c, d */
    CHECK_INT(at, 2);
    /* A match longer than ARB_REPL_TURN_LONGEST is passed over, as c
     * (nothing published) is: not read in turn, not counted. */
    last[3] = ARB_REPL_TURN_LONGEST;            /* d: one message more */
    CHECK_INT(arb__repl_turn_takes(&l, 3), 0);
    CHECK_INT(arb__repl_turn_takes(&l, 2), 0);
    CHECK_INT(arb__repl_turn_takes(&l, 4), 1);
    CHECK_INT(arb__repl_turn(&l, "b", 0, 1, &at), 3);    /* c, d, e */
    CHECK_INT(at, 2);
    last[3] = ARB_REPL_TURN_LONGEST - 1;        /* d: just taken */
    CHECK_INT(arb__repl_turn_takes(&l, 3), 1);
    return TEST_END();
}
