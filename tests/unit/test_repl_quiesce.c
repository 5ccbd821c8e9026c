/*
 * test_repl_quiesce.c - a quiesce ends when the last PubAck comes
 * (daemon/replicate.c, arb__repl_quiesce and arb__repl_ack_cb).  A pass
 * begins, and its last round begins, with nothing in flight.  Until
 * 2026-12-04 the PubAck handler woke the waiting thread only for a probe,
 * a failure or the in-flight limit, so a quiesce slept out its 50 ms
 * slice after the last PubAck: under load every pass held publishing
 * (and every sync ack) 50 ms at its start and again at its end (in sync
 * runs at 16 tables with a pass every second, the last round's quiesce
 * took 50 ms each time, 0-1 ms since).  Here one event is in flight and
 * its PubAck comes 2 ms later, from another thread, as libnats delivers
 * it: the quiesce returns long before a slice would have ended, the
 * event done.  The same again with the loop waiting on the same
 * condition variable for the look before writes, as it does at start
 * (arb__repl_wait_verified): until 2026-12-04 the PubAck's wake-up was
 * a signal, which the loop could take, and the quiesce slept its slice
 * out all the same.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <nats/nats.h>

#include "core/clock.h"
#include "daemon/replicate.h"
#include "daemon/replicate_int.h"
#include "tests/test.h"

static arb_repl_t r;

static void *
acker(void *arg)
{
    struct timespec ts = { 0, 2 * 1000 * 1000 };
    jsPubAck        pa;

    nanosleep(&ts, NULL);
    memset(&pa, 0, sizeof(pa));
    pa.Sequence = 1;
    arb__repl_ack_cb(NULL, arg, &pa, NULL, &r);
    return NULL;
}

/* The loop at start: waits for the look before writes. */
static void *
loop_waiter(void *arg)
{
    (void)arg;
    arb__repl_wait_verified(&r);
    return NULL;
}

/* Five rounds: one event in flight, acked 2 ms later; how many took a
 * slice or more. */
static int
rounds(const char *tag, arb_repl_ev_t *win)
{
    arb_buf_t  why = ARB_BUF_INIT;
    natsMsg   *msg = NULL;
    pthread_t  th;
    int64_t    t0, took;
    int        k, slow = 0;

    for (k = 0; k < 5; k++) {
        memset(win, 0, sizeof(*win));
        snprintf(win[0].match, sizeof(win[0].match), "q-%d", k);
        win[0].pos = (uint64_t)k + 1;
        CHECK(natsMsg_Create(&msg, "arbiter.ev.q", NULL, "x", 1)
              == NATS_OK);
        win[0].msg = msg;
        win[0].state = EV_SENT;
        r.nwin = 1;
        r.done_n = 0;
        r.inflight = 1;
        t0 = arb_clock_ms();
        CHECK(pthread_create(&th, NULL, acker, msg) == 0);
        CHECK_INT(arb__repl_quiesce(&r, &why), 0);
        took = arb_clock_ms() - t0;
        pthread_join(th, NULL);
        CHECK(r.inflight == 0);
        CHECK_INT(r.nwin, 0);           /* done, and passed by advance */
        CHECK_INT(r.draining, 0);
        slow += took >= 40;    /* the 50 ms slice slept out */
        printf("quiesce %s %d: %lld ms\n", tag, k, (long long)took);
    }
    arb_buf_free(&why);
    return slow;
}

int
main(void)
{
    static arb_repl_conf_t conf;
    static arb_repl_ev_t   win[1];
    pthread_t              loop;
    struct timespec        ts = { 0, 20 * 1000 * 1000 };

    CHECK(nats_Open(-1) == NATS_OK);
    pthread_mutex_init(&r.mu, NULL);
    CHECK_INT(arb_cond_init(&r.cv), 0);    /* as the daemon does */
    arb_repl_conf_defaults(&conf);
    conf.mode = ARB_REPL_ASYNC;         /* no event loop to wake */
    conf.timeout_ms = 5000;
    r.conf = &conf;
    r.win = win;
    /* A round may be slow on a loaded machine; most cannot. */
    CHECK(rounds("alone", win) <= 2);
    CHECK(r.st.published == 5);
    /* The loop waiting for verified meanwhile. */
    CHECK(pthread_create(&loop, NULL, loop_waiter, NULL) == 0);
    nanosleep(&ts, NULL);               /* waiting by now */
    CHECK(rounds("beside the loop", win) <= 2);
    CHECK(r.st.published == 10);
    pthread_mutex_lock(&r.mu);
    r.verified = 1;
    pthread_cond_broadcast(&r.cv);
    pthread_mutex_unlock(&r.mu);
    pthread_join(loop, NULL);
    nats_Close();
    return TEST_END();
}
