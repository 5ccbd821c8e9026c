/*
 * test_clock.c - the store's threads keep time on the monotonic clock
 * (core/clock.h), so a wall clock stepped back does not stop them.
 *
 * This program defines clock_gettime itself, so every call in it and in
 * the store linked into it sees a wall clock (CLOCK_REALTIME) an hour
 * ahead of the kernel's: what a thread that took a deadline on the wall
 * clock just before it was set back an hour would see.  A timed wait on
 * that deadline sleeps an hour.  Here the store must still checkpoint
 * and index what it is given within a second or two, and a condition
 * variable made by arb_cond_init must time out when arb_clock_deadline
 * says (an alarm ends the program if a wait outlives it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/err.h"
#include "core/ledger/store.h"
#include "tests/test.h"

#define WALL_AHEAD_S 3600

int
clock_gettime(clockid_t id, struct timespec *ts)
{
    long rc = syscall(SYS_clock_gettime, id, ts);

    if (rc == 0 && id == CLOCK_REALTIME)
        ts->tv_sec += WALL_AHEAD_S;
    return rc == 0 ? 0 : -1;
}

static void
on_alarm(int sig)
{
    static const char msg[] = "test_clock: a timed wait outlived its "
                              "deadline by seconds (see the test's head)\n";

    (void)sig;
    (void)!write(2, msg, sizeof(msg) - 1);
    _exit(1);
}

/* The shim itself: without it the store test below proves nothing. */
static void
test_shim(void)
{
    struct timespec wall;

    CHECK_INT(clock_gettime(CLOCK_REALTIME, &wall), 0);
    CHECK(wall.tv_sec > time(NULL) + WALL_AHEAD_S - 5);
}

static void
test_cond(void)
{
    pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t  cv;
    struct timespec ts;
    int64_t         t0, took;
    int             rc = 0;

    CHECK_INT(arb_cond_init(&cv), 0);
    alarm(10);
    pthread_mutex_lock(&mu);
    t0 = arb_clock_ms();
    arb_clock_deadline(&ts, 200);
    while (rc == 0)
        rc = pthread_cond_timedwait(&cv, &mu, &ts);
    took = arb_clock_ms() - t0;
    pthread_mutex_unlock(&mu);
    alarm(0);
    CHECK_INT(rc, ETIMEDOUT);
    CHECK(took >= 190);             /* not at once: the same clock */
    CHECK(took < 5000);
    if (took < 190 || took >= 5000)
        fprintf(stderr, "  a 200 ms wait took %lld ms\n", (long long)took);
    /* Past a second, and the nanoseconds carried. */
    arb_clock_deadline(&ts, 1999);
    CHECK(ts.tv_nsec >= 0 && ts.tv_nsec < 1000000000L);
    pthread_cond_destroy(&cv);
}

/* A store's checkpoint thread and index writer, with the wall clock an
 * hour off: appends are checkpointed and indexed as usual. */
static void
test_store(void)
{
    char               root[] = "/tmp/arb_clock_XXXXXX";
    arb_store_t       *s = NULL;
    arb_store_stats_t  st;
    arb_append_t       v;
    arb_buf_t          why = ARB_BUF_INIT;
    char               id[16], bytes[64], cmd[64];
    uint64_t           ck0 = 0;
    int64_t            t0;
    int                i, ok = 0;

    if (mkdtemp(root) == NULL) {
        CHECK(!"mkdtemp");
        return;
    }
    CHECK_INT(arb_store_open(&s, root, NULL, &why), 0);
    if (s == NULL) {
        fprintf(stderr, "  %s\n", arb_buf_cstr(&why));
        goto done;
    }
    CHECK_INT(arb_store_stats(s, &st, NULL), 0);
    CHECK(st.journal);
    ck0 = st.checkpoints;
    for (i = 0; i < 20; i++) {
        memset(&v, 0, sizeof(v));
        snprintf(id, sizeof(id), "m%d", i % 2);
        snprintf(bytes, sizeof(bytes), "event %d of %s", i, id);
        v.match_id = id;
        v.game = "yahchain";
        v.seq = (uint64_t)(i / 2);
        v.bytes = bytes;
        v.len = strlen(bytes);
        CHECK_INT(arb_store_append_batch(s, &v, 1, NULL), 0);
    }
    /* Checkpoints come every 50 ms and the index every few ms: a wait
     * on the wall clock would leave both an hour away. */
    t0 = arb_clock_ms();
    while (arb_clock_ms() - t0 < 3000) {
        if (arb_store_stats(s, &st, NULL) == 0 && st.checkpoints > ck0
            && st.log_pos == 20 && st.indexed_pos == st.log_pos) {
            ok = 1;
            break;
        }
        usleep(10 * 1000);
    }
    CHECK(ok);
    if (!ok)
        fprintf(stderr, "  after 3 s: checkpoints %llu (%llu at open), "
                "log %llu, indexed %llu\n",
                (unsigned long long)st.checkpoints,
                (unsigned long long)ck0, (unsigned long long)st.log_pos,
                (unsigned long long)st.indexed_pos);
    alarm(10);                      /* closing joins the threads */
    arb_store_close(s);
    alarm(0);
done:
    arb_buf_free(&why);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
    (void)!system(cmd);
}

int
main(void)
{
    signal(SIGALRM, on_alarm);
    test_shim();
    test_cond();
    test_store();
    return TEST_END();
}
