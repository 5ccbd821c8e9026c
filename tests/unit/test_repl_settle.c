/*
 * test_repl_settle.c - when the replication thread stops waiting for a
 * replica that catches up for good (daemon/replicate.c,
 * arb__repl_settle_rule): a leader unknown is always waited for, a
 * lagging replica for ARB_REPL_STUCK_MS, and once the stream settles the
 * clock starts again.  And how often a repeating failure is logged
 * (arb__repl_say_rule), and when an anti-entropy pass begins
 * (arb__repl_pass_due).
 */
#include <stdint.h>

#include "core/err.h"
#include "daemon/replicate_int.h"
#include "tests/test.h"

static void
test_say(void)
{
    arb_repl_said_t sd = { "", 0, 0 };
    uint64_t        again = 99;
    int64_t         secs = 99, t;

    /* a new reason: said at once */
    CHECK_INT(arb__repl_say_rule(&sd, "no leader", 1000, &again, &secs), 1);
    CHECK(again == 0 && secs == 0);
    /* the same one, every 250 ms for a minute: quiet, counted */
    for (t = 1250; t < 1000 + ARB_REPL_SAY_AGAIN_MS; t += 250)
        CHECK_INT(arb__repl_say_rule(&sd, "no leader", t, &again, &secs), 0);
    CHECK(sd.again == 239);
    /* a minute on: said again, with how often it came */
    CHECK_INT(arb__repl_say_rule(&sd, "no leader", 1000
                                 + ARB_REPL_SAY_AGAIN_MS, &again, &secs), 1);
    CHECK(again == 239 && secs == 60);
    /* another reason: said at once, a fresh count */
    CHECK_INT(arb__repl_say_rule(&sd, "timeout", 62000, &again, &secs), 1);
    CHECK(again == 0);
    CHECK_INT(arb__repl_say_rule(&sd, "timeout", 62100, &again, &secs), 0);
    /* over (a success): the same reason again is news */
    arb__repl_said_clear(&sd);
    CHECK_INT(arb__repl_say_rule(&sd, "timeout", 62200, &again, &secs), 1);
    CHECK(again == 0);
    /* A reason that differs only in its numbers is the same reason: a
     * replica catching up said its lag in every message, and the pass
     * retried in a loop logged 30 lines in 250 ms (2026-12-03). */
    CHECK_INT(arb__repl_say_rule(&sd, "replica n3 of leader n2 is catching "
                                 "up (lag 49832)", 70000, &again, &secs), 1);
    CHECK_INT(arb__repl_say_rule(&sd, "replica n3 of leader n2 is catching "
                                 "up (lag 37277)", 70010, &again, &secs), 0);
    CHECK_INT(arb__repl_say_rule(&sd, "replica n1 of leader n2 is catching "
                                 "up (lag 5)", 70020, &again, &secs), 0);
    CHECK(sd.again == 2);
    /* other words are another reason, a longer one too */
    CHECK_INT(arb__repl_say_rule(&sd, "replica n1 of leader n2 is caught "
                                 "up (lag 5)", 70030, &again, &secs), 1);
    CHECK_INT(arb__repl_say_rule(&sd, "replica n1 of leader n2 is caught "
                                 "up (lag 5) again", 70040, &again, &secs),
              1);
    CHECK_INT(arb__repl_say_rule(&sd, "replica n1 of leader n2 is caught "
                                 "up (lag 5)", 70050, &again, &secs), 1);
}

/* When a pass begins (arb__repl_pass_due). */
static void
test_pass_due(void)
{
    /* nothing asked, nothing due */
    CHECK_INT(arb__repl_pass_due(5000, 0, 0, 0, 0), 0);
    /* asked: at once */
    CHECK_INT(arb__repl_pass_due(5000, 1, 0, 0, 0), 1);
    /* check_interval: when next_check comes */
    CHECK_INT(arb__repl_pass_due(5000, 0, 6000, 0, 0), 0);
    CHECK_INT(arb__repl_pass_due(6000, 0, 6000, 0, 0), 1);
    /* a put-off repair: when recheck comes */
    CHECK_INT(arb__repl_pass_due(5000, 0, 0, 7000, 0), 0);
    CHECK_INT(arb__repl_pass_due(7000, 0, 0, 7000, 0), 1);
    /* a failed pass: tried again a second on, not before, however
     * often it is asked for meanwhile (a resync holding a match asks at
     * every round: a pass every few ms asked the stream for its state) */
    CHECK_INT(arb__repl_pass_due(5000, 1, 0, 0, 6000), 0);
    CHECK_INT(arb__repl_pass_due(5999, 1, 5000, 5000, 6000), 0);
    CHECK_INT(arb__repl_pass_due(6000, 0, 0, 0, 6000), 1);
    CHECK_INT(arb__repl_pass_due(6000, 1, 0, 0, 6000), 1);
}

int
main(void)
{
    int64_t since = 0;
    int     say = 0;

    test_say();
    test_pass_due();

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
