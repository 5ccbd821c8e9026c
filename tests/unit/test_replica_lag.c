/*
 * test_replica_lag.c - how far a read replica is behind its stream
 * (daemon/replica_lag.h): sequences past the last read and the age of the
 * oldest not read; 0 when caught up, when the stream's head is not known
 * yet, and when the leader said the rest was deleted, until the stream
 * grows again.
 */
#include "daemon/replica_lag.h"
#include "tests/test.h"

static uint64_t behind, lag;

static void
at(uint64_t head, uint64_t read, uint64_t s_read, uint64_t s_head,
   int64_t unread_ns, int64_t now_ns)
{
    arb_replica_lag_in_t in = { head, read, s_read, s_head, unread_ns,
                                now_ns };

    behind = lag = 99;
    arb_replica_lag(&in, &behind, &lag);
}

int
main(void)
{
    const int64_t now = 1764892800LL * 1000000000;  /* 2025-12-05 */

    /* Not looked at yet, and caught up. */
    at(0, 0, 0, 0, 0, now);
    CHECK_INT(behind, 0);
    CHECK_INT(lag, 0);
    at(0, 40, 0, 0, 0, now);
    CHECK_INT(behind, 0);
    at(40, 40, 0, 0, now - 5000000000LL, now);
    CHECK_INT(behind, 0);
    CHECK_INT(lag, 0);
    at(39, 40, 0, 0, 0, now);       /* read past the last look */
    CHECK_INT(behind, 0);

    /* Behind: the sequences, and the age of the oldest not read. */
    at(50, 40, 0, 0, now - 2500000000LL, now);
    CHECK_INT(behind, 10);
    CHECK_INT(lag, 2500);
    at(50, 40, 0, 0, 0, now);       /* its time not known */
    CHECK_INT(behind, 10);
    CHECK_INT(lag, 0);
    at(50, 40, 0, 0, now + 3000000LL, now);     /* a clock ahead */
    CHECK_INT(behind, 10);
    CHECK_INT(lag, 0);

    /* The leader held nothing past 40 while the stream ended at 42 (41
     * and 42 deleted): caught up, until the stream grows... */
    at(42, 40, 40, 42, 0, now);
    CHECK_INT(behind, 0);
    CHECK_INT(lag, 0);
    at(43, 40, 40, 42, now - 1000000, now);
    CHECK_INT(behind, 3);
    CHECK_INT(lag, 1);
    /* ...or unless what was read is before what was settled (read again
     * from an earlier place). */
    at(42, 30, 40, 42, now - 7000000, now);
    CHECK_INT(behind, 12);
    CHECK_INT(lag, 7);
    /* Read on past the settled place: the settling still holds. */
    at(42, 41, 40, 42, 0, now);
    CHECK_INT(behind, 0);
    return TEST_END();
}
