/*
 * test_repl_order.c - the look before writes (daemon/replicate_fence.c):
 * the order in which it compares a restarted recorder's matches with the
 * stream (the most recent activity first, so that the tables in play
 * take writes before old matches are compared; equal times by match id,
 * so the order depends on nothing else), and the matches it takes as
 * compared by their subject's count alone (exactly one message per seq
 * of the log), without asking for their last message.
 */
#include <stdlib.h>
#include <string.h>

#include "daemon/replicate_int.h"
#include "proto/stream.h"
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
    /* By count: a-2 holds seqs 0..1 in the log (last 1). */
    {
        char subj[ARB_STREAM_SUBJECT_MAX];

        CHECK_INT(arb_stream_subject(subj, sizeof(subj), ARB_STREAM_EV,
                                     "a-2"), 0);
        CHECK_INT(arb__repl_look_counted(&l, subj, 2), 1);
        CHECK(arb__repl_look_counted(&l, subj, 1) == SIZE_MAX);  /* lost */
        CHECK(arb__repl_look_counted(&l, subj, 3) == SIZE_MAX);  /* more */
        CHECK(arb__repl_look_counted(&l, subj, 0) == SIZE_MAX);
        CHECK_INT(arb_stream_subject(subj, sizeof(subj), ARB_STREAM_EV,
                                     "a-0"), 0);
        CHECK(arb__repl_look_counted(&l, subj, 1) == SIZE_MAX);  /* not ours */
        CHECK_INT(arb_stream_subject(subj, sizeof(subj), ARB_STREAM_DEAL,
                                     "a-2"), 0);
        CHECK(arb__repl_look_counted(&l, subj, 2) == SIZE_MAX);
        CHECK_INT(arb__repl_list_find(&l, "c-2"), 5);
        CHECK_INT(arb__repl_list_find(&l, "c-3"), N);
    }
    /* An empty log: an empty order, still freeable. */
    l.n = 0;
    order = arb__repl_look_order(&l);
    CHECK(order != NULL);
    free(order);
    return TEST_END();
}
