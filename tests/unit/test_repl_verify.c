/*
 * test_repl_verify.c - a restarted recorder refuses writes as
 * "unverified" until the look before writes has compared the match
 * with the stream (daemon/replicate_loop.c, arb_repl_fenced; daemon/
 * replicate_fence.c, arb__repl_look_judged).  Its log may be older than
 * the stream (restored from a backup, or a second recorder wrote the
 * match): a write taken before the comparison could fork the match.
 * Compared means compared: a match whose subject the look could not
 * judge (looked 2: its last message is not one arbiter wrote) waits for
 * its turn like one not yet looked at; a match not in the log when the
 * look began (a new open) has nothing to compare.  Without a server.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "daemon/replicate.h"
#include "daemon/replicate_int.h"
#include "daemon/server.h"
#include "tests/test.h"

int
main(void)
{
    static arb_server_t  srv;
    static arb_repl_t    r;
    static char          ids[3][ARB_STREAM_ID_MAX + 1] = { "m-a", "m-b",
                                                           "m-c" };
    static uint64_t      last[3] = { 4, 7, 2 };
    static int64_t       last_ms[3] = { 1, 2, 3 };
    static unsigned char looked[4];
    arb_buf_t            why = ARB_BUF_INIT;

    pthread_mutex_init(&r.mu, NULL);
    srv.repl = &r;

    /* Started, the stream not read yet: every write waits. */
    CHECK_STR(arb_repl_fenced(&srv, "m-a", &why), "unverified");
    CHECK(arb_buf_cstr(&why) != NULL
          && strstr(arb_buf_cstr(&why), "NATS unreachable") != NULL);
    CHECK_STR(arb_repl_fenced(&srv, "new-1", NULL), "unverified");

    /* The log listed and the subjects read: m-a compared, m-b not yet,
     * m-c not to be judged by the look. */
    r.st.connected = 1;
    r.look.id = ids;
    r.look.last = last;
    r.look.last_ms = last_ms;
    r.look.n = 3;
    r.looked = looked;
    r.listed = 1;
    looked[0] = 1;
    looked[2] = 2;
    CHECK(arb_repl_fenced(&srv, "m-a", &why) == NULL);
    CHECK_STR(arb_repl_fenced(&srv, "m-b", &why), "unverified");
    CHECK(arb_buf_cstr(&why) != NULL
          && strstr(arb_buf_cstr(&why), "its turn has not come") != NULL);
    CHECK_STR(arb_repl_fenced(&srv, "m-c", &why), "unverified");
    CHECK(arb_repl_fenced(&srv, "new-1", &why) == NULL);

    /* A fence found meanwhile answers for its match. */
    arb__repl_fence_set(&r, "m-a", 9, 4);
    CHECK_STR(arb_repl_fenced(&srv, "m-a", &why), "fenced");

    /* The look done: only fences refuse. */
    r.verified = 1;
    CHECK(arb_repl_fenced(&srv, "m-b", &why) == NULL);
    CHECK(arb_repl_fenced(&srv, "m-c", &why) == NULL);
    CHECK_STR(arb_repl_fenced(&srv, "m-a", &why), "fenced");

    free(r.fence);
    arb_buf_free(&why);
    pthread_mutex_destroy(&r.mu);
    return TEST_END();
}
