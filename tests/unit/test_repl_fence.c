/*
 * test_repl_fence.c - fencing fails closed when memory runs out
 * (daemon/replicate_fence.c, arb__repl_fence_set; tests/nomem).  A fork
 * the recorder found in the stream but could not record (the fence list
 * could not grow) used to be dropped silently: writes to that match went
 * on, and its events were published over the other history.  Now every
 * write is refused as `fenced`, saying why, until a restart looks again;
 * the fences already recorded still answer as before.  A match fenced
 * again (each pass finds its fork again) keeps one entry.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "daemon/replicate.h"
#include "daemon/replicate_int.h"
#include "daemon/server.h"
#include "tests/nomem/failalloc.h"
#include "tests/test.h"

int
main(void)
{
    static arb_server_t srv;
    static arb_repl_t   r;
    arb_buf_t           why = ARB_BUF_INIT;
    const char         *code;
    char                id[32];
    int                 i;

    pthread_mutex_init(&r.mu, NULL);
    r.verified = 1;             /* the look before writes is done */
    srv.repl = &r;

    /* Recorded fences: the fenced match refuses, the others write. */
    arb__repl_fence_set(&r, "m-a", 5, 3);
    CHECK_STR(arb_repl_fenced(&srv, "m-a", &why), "fenced");
    CHECK(arb_repl_fenced(&srv, "m-b", &why) == NULL);
    /* Fenced again (every pass finds the fork again): one entry, its
     * seqs the latest.  No test failed when each pass added one more,
     * the list growing for as long as the recorder ran. */
    arb__repl_fence_set(&r, "m-a", 7, 3);
    arb__repl_fence_set(&r, "m-a", 7, 3);
    CHECK_INT(r.nfence, 1);
    pthread_mutex_lock(&r.mu);
    CHECK(arb__repl_fence_find_locked(&r, "m-a") != NULL
          && arb__repl_fence_find_locked(&r, "m-a")->stream_seq == 7);
    pthread_mutex_unlock(&r.mu);
    /* Fill the list up to its first size, then fail its growth. */
    for (i = 0; r.nfence < r.capfence; i++) {
        snprintf(id, sizeof(id), "m-%03d", i);
        arb__repl_fence_set(&r, id, 9, 8);
    }
    CHECK(r.nfence >= 2 && r.fence_lost == 0);
    arb_failalloc_arm(1);
    arb__repl_fence_set(&r, "m-x", 9, 8);
    CHECK_INT(arb_failalloc_disarm(), 1);
    CHECK_INT(r.fence_lost, 1);
    pthread_mutex_lock(&r.mu);
    CHECK(arb__repl_fence_find_locked(&r, "m-x") == NULL);
    pthread_mutex_unlock(&r.mu);
    /* The fork not recorded: no write gets through, to it or any other,
     * and the answer says why. */
    CHECK_STR(arb_repl_fenced(&srv, "m-x", &why), "fenced");
    CHECK(arb_buf_cstr(&why) != NULL
          && strstr(arb_buf_cstr(&why), "out of memory") != NULL);
    code = arb_repl_fenced(&srv, "m-b", NULL);
    CHECK_STR(code, "fenced");
    /* A recorded fence still names its own seqs. */
    CHECK_STR(arb_repl_fenced(&srv, "m-a", &why), "fenced");
    /* Another failure later says nothing new and changes nothing. */
    arb_failalloc_arm(1);
    arb__repl_fence_set(&r, "m-y", 9, 8);
    arb_failalloc_disarm();
    CHECK_INT(r.fence_lost, 1);

    free(r.fence);
    arb_buf_free(&why);
    pthread_mutex_destroy(&r.mu);
    return TEST_END();
}
