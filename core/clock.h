/*
 * clock.h - the clock the recorder's threads time themselves by.
 *
 * Rules never read a clock (a replay must give the same digests on any
 * machine).  The store's threads (checkpoints, the index writer), the
 * replicator and the tools do, to pace their work and to bound their
 * waits, and every such duration and timed wait is on CLOCK_MONOTONIC.
 * The wall clock can be stepped while a tournament runs (an NTP
 * correction just after boot, a virtual machine resumed, `date -s`): a
 * deadline taken on it and then set back an hour sleeps an hour, which
 * stopped the checkpoints, left the index behind and let a sync-mode
 * publish whose PubAck was lost hold its acks for that long.
 *
 * Event times stay on the wall clock (arb_now_ms, daemon/server.h): they
 * are what a scorekeeper reads, and a replica's lag is measured against
 * them.
 */
#ifndef ARB_CLOCK_H
#define ARB_CLOCK_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

/* The monotonic clock in nanoseconds: only a difference of two readings
 * means anything. */
static inline uint64_t
arb_clock_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The same in milliseconds. */
static inline int64_t
arb_clock_ms(void)
{
    return (int64_t)(arb_clock_ns() / 1000000u);
}

/* Initialises *c for waits timed by arb_clock_deadline (the default
 * condition variable times its waits on the wall clock).  Returns 0 or
 * an errno value, as pthread_cond_init does. */
static inline int
arb_cond_init(pthread_cond_t *c)
{
    pthread_condattr_t a;
    int                rc;

    rc = pthread_condattr_init(&a);
    if (rc != 0)
        return rc;
    rc = pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    if (rc == 0)
        rc = pthread_cond_init(c, &a);
    pthread_condattr_destroy(&a);
    return rc;
}

/* *ts = now + ms on the monotonic clock: the deadline of a
 * pthread_cond_timedwait on a condition variable made by arb_cond_init. */
static inline void
arb_clock_deadline(struct timespec *ts, long ms)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_sec += ms / 1000;
    ts->tv_nsec += (ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

#endif
