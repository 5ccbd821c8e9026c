/*
 * test_repl_order.c - the order in which the look before writes compares
 * a restarted recorder's matches with the stream (daemon/
 * replicate_fence.c): the most recent activity first, so that the tables
 * in play take writes before old matches are compared; equal times by
 * match id, so the order depends on nothing else.
 */
#include <stdlib.h>
#include <string.h>

#include "daemon/replicate_int.h"
#include "tests/test.h"

#define N 6

int
main(void)
{
    /* As the store lists them: sorted by id. */
    static const char *id[N] = { "a-1", "a-2", "b-1", "b-2", "c-1", "c-2" };
    static const int64_t t[N] = { 5000, 9000, 1000, 9000, 7000, 3000 };
    /* 9000 (a-2, b-2 by id), 7000, 5000, 3000, 1000 */
    static const size_t want[N] = { 1, 3, 4, 0, 5, 2 };
    char             ids[N][ARB_STREAM_ID_MAX + 1];
    uint64_t         last[N];
    int64_t          last_ms[N];
    arb_repl_list_t  l;
    size_t          *order, i;

    for (i = 0; i < N; i++) {
        strcpy(ids[i], id[i]);
        last[i] = i;
        last_ms[i] = t[i];
    }
    l.id = ids;
    l.last = last;
    l.last_ms = last_ms;
    l.n = l.cap = N;
    order = arb__repl_look_order(&l);
    CHECK(order != NULL);
    for (i = 0; order != NULL && i < N; i++)
        CHECK_INT(order[i], want[i]);
    free(order);
    /* An empty log: an empty order, still freeable. */
    l.n = 0;
    order = arb__repl_look_order(&l);
    CHECK(order != NULL);
    free(order);
    return TEST_END();
}
