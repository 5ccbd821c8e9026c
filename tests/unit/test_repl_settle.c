/*
 * test_repl_settle.c - when the replication thread stops waiting for a
 * replica that catches up for good (daemon/replicate.c,
 * arb__repl_settle_rule): a leader unknown is always waited for, a
 * lagging replica for ARB_REPL_STUCK_MS, and once the stream settles the
 * clock starts again.
 */
#include <stdint.h>

#include "core/err.h"
#include "daemon/replicate_int.h"
#include "tests/test.h"

int
main(void)
{
    int64_t since = 0;
    int     say = 0;

    /* settled: 0, nothing to say */
    CHECK_INT(arb__repl_settle_rule(0, 0, 1000, &since, &say), 0);
    CHECK_INT(since, 0);
    CHECK_INT(say, 0);
    /* no leader (lagging 0): waited for however long */
    CHECK_INT(arb__repl_settle_rule(ARB_EAGAIN, 0, 2000, &since, &say),
              ARB_EAGAIN);
    CHECK_INT(arb__repl_settle_rule(ARB_EAGAIN, 0, 2000 + 10 * ARB_REPL_STUCK_MS,
                                    &since, &say), ARB_EAGAIN);
    CHECK_INT(since, 0);
    /* a replica catching up: waited for until ARB_REPL_STUCK_MS */
    CHECK_INT(arb__repl_settle_rule(ARB_EAGAIN, 1, 5000, &since, &say),
              ARB_EAGAIN);
    CHECK_INT(since, 5000);
    CHECK_INT(arb__repl_settle_rule(ARB_EAGAIN, 1, 5000 + ARB_REPL_STUCK_MS - 1,
                                    &since, &say), ARB_EAGAIN);
    CHECK_INT(say, 0);
    /* ... then gone on without, said once */
    CHECK_INT(arb__repl_settle_rule(ARB_EAGAIN, 1, 5000 + ARB_REPL_STUCK_MS,
                                    &since, &say), 0);
    CHECK_INT(say, 1);
    CHECK_INT(arb__repl_settle_rule(ARB_EAGAIN, 1, 90000, &since, &say), 0);
    CHECK_INT(say, 0);
    /* a leader lost meanwhile is waited for again */
    CHECK_INT(arb__repl_settle_rule(ARB_EAGAIN, 0, 91000, &since, &say),
              ARB_EAGAIN);
    /* another error is passed on as it is */
    CHECK_INT(arb__repl_settle_rule(ARB_EIO, 0, 92000, &since, &say),
              ARB_EIO);
    /* settled: the clock starts again at the next lag */
    CHECK_INT(arb__repl_settle_rule(0, 0, 93000, &since, &say), 0);
    CHECK_INT(arb__repl_settle_rule(ARB_EAGAIN, 1, 94000, &since, &say),
              ARB_EAGAIN);
    CHECK_INT(since, 94000);
    CHECK_INT(arb__repl_settle_rule(ARB_EAGAIN, 1, 94000 + ARB_REPL_STUCK_MS,
                                    &since, &say), 0);
    CHECK_INT(say, 1);
    return TEST_END();
}
