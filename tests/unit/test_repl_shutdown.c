/*
 * test_repl_shutdown.c - the stop waits for a PubAck handler already
 * running (daemon/replicate.c, arb__repl_thread_stop and owed).
 *
 * libnats 3.4.1 delivers PubAcks on the reply subscription's own thread
 * (js.c _handleAsyncReply, started by natsConn_subscribeNoPool), and the
 * closed callback on its one async-callback thread (nats.c
 * _asyncCbsThread).  A close marks the subscription closed but does not
 * wait for a handler call that has already taken its message out of the
 * context's map (sub.c natsSub_deliverMsgs; conn.c _close joins only
 * the read loop, flusher and reconnect threads).  Until 2026-12-07 the
 * stop waited for closed_cb alone, then the daemon freed r: a handler
 * held up between taking its message and locking r->mu locked a freed
 * mutex.
 *
 * Here that handler is held up: pthread_mutex_lock is wrapped
 * (-Wl,--wrap, Makefile) and the first lock of r->mu taken by a thread
 * that is neither the test's nor the replication thread, once armed,
 * sleeps HOLD_MS before it locks (the handler has its message by then).
 * The stop must not return before that handler is done; the old stop
 * returned about 250 ms in.  Then ROUNDS rounds of start, a burst, an
 * immediate stop with PubAcks in flight: the cursor file, written by
 * the stop with the cursor it ended on, never names more than the
 * stream holds, and the cursor never goes back.
 * Last, the server frozen (SIGSTOP) under a burst: no PubAck comes, the
 * publishes time out and are taken back, and neither the cursor nor its
 * file moves past what the stream acked before the freeze; thawed, a
 * restart publishes the rest, each event once.  And an event appended
 * but not yet durable is not published before the head passes it; and
 * a start from a cursor file behind the stream, past the duplicate
 * window, publishes nothing twice.
 * A real nats-server (skipped without one); port chosen by the server
 * or ARB_NATS_PORT_BASE.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <nats/nats.h>

#include "core/clock.h"
#include "core/err.h"
#include "core/ledger/store.h"
#include "daemon/replicate.h"
#include "daemon/replicate_int.h"
#include "proto/stream.h"
#include "tests/repl_harness.h"
#include "tests/test.h"

#define HOLD_MS  1000
#define BURST    300
#define ROUNDS   20

/* ---- the held handler ------------------------------------------------ */

static pthread_mutex_t *slow_mu;        /* r->mu */
static pthread_t        main_th, repl_th;
static atomic_int       armed, inside;

int __real_pthread_mutex_lock(pthread_mutex_t *m);
int __wrap_pthread_mutex_lock(pthread_mutex_t *m);

int
__wrap_pthread_mutex_lock(pthread_mutex_t *m)
{
    /* armed first: slow_mu and repl_th are set before it is. */
    if (atomic_load(&armed) && m == slow_mu
        && !pthread_equal(pthread_self(), main_th)
        && !pthread_equal(pthread_self(), repl_th)
        && atomic_exchange(&armed, 0)) {
        struct timespec ts = { HOLD_MS / 1000,
                               (long)(HOLD_MS % 1000) * 1000000 };

        atomic_store(&inside, 1);
        nanosleep(&ts, NULL);
        atomic_store(&inside, 0);
    }
    return __real_pthread_mutex_lock(m);
}

/* ---- the log ---------------------------------------------------------- */

static uint64_t     seqs[4];

/* n more events, round robin over four matches; the log's head. */
static uint64_t
append(size_t n)
{
    static const unsigned char bytes[] = { 0x81, 0xa1, 0x6b, 0x01 };
    arb_append_t v[BURST];
    char         id[4][8];
    size_t       i, k;
    uint64_t     head = 0;

    for (i = 0; i < n; i += k) {
        memset(v, 0, sizeof(v));
        for (k = 0; k < BURST && i + k < n; k++) {
            int m = (int)((i + k) % 4);

            snprintf(id[m], sizeof(id[m]), "sd-%d", m);
            v[k].match_id = id[m];
            v[k].game = "yahchain";
            v[k].seq = seqs[m]++;
            v[k].time_ms = arb_clock_ms();
            v[k].bytes = bytes;
            v[k].len = sizeof(bytes);
        }
        if (arb_store_append_batch(store, v, k, NULL) != 0)
            return 0;
        head = v[k - 1].pos;
    }
    return head;
}

static uint64_t
stream_msgs(void)
{
    arb_stream_conf_t c;
    arb_stream_t     *st = NULL;
    jsStreamInfo     *si = NULL;
    jsErrCode         jerr = 0;
    uint64_t          n = UINT64_MAX;

    memset(&c, 0, sizeof(c));
    c.urls = nats_url;
    c.timeout_ms = 2000;
    if (arb_stream_open(&st, &c, NULL, NULL, NULL) == 0
        && js_GetStreamInfo(&si, st->js, ARB_STREAM_NAME_DEFAULT, NULL,
                            &jerr) == NATS_OK)
        n = si->State.Msgs;
    jsStreamInfo_Destroy(si);
    arb_stream_close(st);
    return n;
}

static uint64_t
cursor_file(void)
{
    arb_repl_cursor_t c;
    arb_buf_t         why = ARB_BUF_INIT;
    char              path[200];
    uint64_t          n = UINT64_MAX;

    snprintf(path, sizeof(path), "%s/%s", root, ARB_STREAM_CURSOR_FILE);
    if (arb__repl_cursor_load(&c, path, &why) == 0)
        n = c.published;
    else
        printf("cursor: %s\n", arb_buf_cstr(&why));
    arb__repl_cursor_clear(&c);
    arb_buf_free(&why);
    return n;
}

/* A handler held while the stop runs: the stop waits for it. */
static void
test_held_handler(void)
{
    arb_repl_t *r;
    uint64_t    head, checks = 0;
    int64_t     t0, took;
    int         i, was_inside;

    head = append(BURST);
    CHECK(head > 0);
    r = repl_start(head);
    CHECK(r != NULL);
    if (r == NULL)
        return;
    /* Caught up, and the first pass (its lister thread locks r->mu
     * too) over. */
    for (i = 0; i < 400 && (cursor_of(r, &checks) < head || checks < 1);
         i++)
        sleep_ms(50);
    CHECK_INT(cursor_of(r, NULL), head);
    slow_mu = &r->mu;
    repl_th = r->thr;
    atomic_store(&armed, 1);
    head = append(BURST);
    committed(r, head);
    for (i = 0; i < 200 && !atomic_load(&inside); i++)
        sleep_ms(5);
    CHECK(atomic_load(&inside));        /* a PubAck handler is held */
    t0 = arb_clock_ms();
    arb__repl_thread_stop(r);
    took = arb_clock_ms() - t0;
    was_inside = atomic_load(&inside);
    CHECK(!was_inside);                 /* the stop waited for it */
    CHECK(!r->abandoned);
    printf("stop took %lld ms (the handler held %d ms)%s\n",
           (long long)took, HOLD_MS,
           was_inside ? ": returned while it was held" : "");
    while (atomic_load(&inside))
        sleep_ms(10);           /* (the old stop: r is not freed under it) */
    sleep_ms(was_inside ? 100 : 0);
    slow_mu = NULL;
    atomic_store(&armed, 0);
    repl_free(r);
    CHECK(cursor_file() <= stream_msgs());
}

/* Stops with PubAcks in flight, over and over. */
static void
test_rounds(void)
{
    uint64_t last = cursor_file(), head, cur, held, fin;
    size_t   out = 0;
    int      k, i, busy = 0;

    for (k = 0; k < ROUNDS; k++) {
        arb_repl_t *r;

        head = append(BURST);
        r = repl_start(head);
        CHECK(r != NULL);
        if (r == NULL)
            return;
        head = append(BURST);
        committed(r, head);
        /* Until some of the burst is acked, then stop at once. */
        for (i = 0; i < 400 && cursor_of(r, NULL) <= last; i++)
            sleep_ms(1);
        pthread_mutex_lock(&r->mu);
        out += r->inflight;
        busy += r->inflight > 0;
        pthread_mutex_unlock(&r->mu);
        arb__repl_thread_stop(r);
        CHECK(!r->abandoned);
        CHECK(r->owed == 0);
        fin = r->st.cursor;
        repl_free(r);
        cur = cursor_file();
        held = stream_msgs();
        CHECK(cur == fin);      /* a stop writes the cursor it ends on */
        CHECK(cur != UINT64_MAX && cur >= last);
        CHECK(cur <= held);     /* never past what the stream holds */
        last = cur;
    }
    printf("%d of %d stops with PubAcks in flight (%zu in all)\n", busy,
           ROUNDS, out);
}

/* A burst in flight when the server stops answering (SIGSTOP): the pump
 * times it out and takes it back (settle), the stop takes back what is
 * out then, and the cursor stays on the stream's last PubAck.  (Until
 * this test nothing failed when what was taken back counted as done:
 * the cursor, and the file, passed events the stream never acked, and
 * the next start skipped them.) */
static void
test_frozen(void)
{
    arb_repl_t *r;
    uint64_t    head, before, errors;
    unsigned    timeout = conf.timeout_ms;
    size_t      out = 0;
    int         i;

    conf.timeout_ms = 300;
    head = append(BURST);
    r = repl_start(head);
    CHECK(r != NULL);
    if (r == NULL)
        return;
    for (i = 0; i < 400 && cursor_of(r, NULL) < head; i++)
        sleep_ms(10);
    before = cursor_of(r, NULL);
    CHECK_INT(before, head);
    pthread_mutex_lock(&r->mu);
    errors = r->st.errors;
    pthread_mutex_unlock(&r->mu);
    kill(nats_pid, SIGSTOP);
    head = append(BURST);
    committed(r, head);
    for (i = 0; i < 400 && out == 0; i++) {
        sleep_ms(5);
        pthread_mutex_lock(&r->mu);
        out = r->inflight;
        pthread_mutex_unlock(&r->mu);
    }
    CHECK(out > 0);                     /* sent, no PubAck */
    sleep_ms(4 * conf.timeout_ms);      /* timed out, taken back */
    CHECK_INT(cursor_of(r, NULL), before);
    pthread_mutex_lock(&r->mu);
    CHECK(r->st.errors > errors);       /* the timeout, within 4 x */
    CHECK_INT(r->resync, 1);
    pthread_mutex_unlock(&r->mu);
    arb__repl_thread_stop(r);           /* and what went out since */
    CHECK(!r->abandoned);
    CHECK(r->owed == 0);
    repl_free(r);
    CHECK_INT(cursor_file(), before);
    kill(nats_pid, SIGCONT);
    conf.timeout_ms = timeout;

    /* Thawed: a start publishes the burst, and nothing twice. */
    r = repl_start(head);
    CHECK(r != NULL);
    if (r == NULL)
        return;
    for (i = 0; i < 400 && cursor_of(r, NULL) < head; i++)
        sleep_ms(10);
    CHECK_INT(cursor_of(r, NULL), head);
    arb__repl_thread_stop(r);
    repl_free(r);
    CHECK_INT(cursor_file(), head);
    CHECK_INT(stream_msgs(), head);
    printf("frozen: %zu in flight, the cursor held at %llu of %llu\n",
           out, (unsigned long long)before, (unsigned long long)head);
}

/* The last event appended but not yet durable (the head before it): it
 * is not read into the window, so not published, until the head
 * passes it.  (Until this test nothing failed when the window read one
 * event past the head: a crash before its commit was durable left the
 * stream holding an event the log lost.) */
static void
test_head(void)
{
    arb_repl_t *r;
    uint64_t    head, held;
    int         i;

    head = append(BURST);
    r = repl_start(head - 1);
    CHECK(r != NULL);
    if (r == NULL)
        return;
    for (i = 0; i < 400 && cursor_of(r, NULL) < head - 1; i++)
        sleep_ms(10);
    sleep_ms(100);                      /* one more round, or several */
    CHECK_INT(cursor_of(r, NULL), head - 1);
    held = stream_msgs();
    CHECK_INT(held, head - 1);
    committed(r, head);
    for (i = 0; i < 400 && cursor_of(r, NULL) < head; i++)
        sleep_ms(10);
    CHECK_INT(cursor_of(r, NULL), head);
    arb__repl_thread_stop(r);
    repl_free(r);
    CHECK_INT(stream_msgs(), head);
}

/* The stream's duplicate window set to ms; 0 when the server took it. */
static int
dup_window(int64_t ms)
{
    arb_stream_conf_t c;
    arb_stream_t     *st = NULL;
    jsStreamInfo     *si = NULL;
    jsStreamConfig    cfg;
    jsErrCode         jerr = 0;
    int               rc = -1;

    memset(&c, 0, sizeof(c));
    c.urls = nats_url;
    c.timeout_ms = 2000;
    if (arb_stream_open(&st, &c, NULL, NULL, NULL) == 0
        && js_GetStreamInfo(&si, st->js, ARB_STREAM_NAME_DEFAULT, NULL,
                            &jerr) == NATS_OK) {
        cfg = *si->Config;
        cfg.Duplicates = ms * 1000000;
        rc = js_UpdateStream(NULL, st->js, &cfg, NULL, &jerr) == NATS_OK
             ? 0 : -1;
    }
    jsStreamInfo_Destroy(si);
    arb_stream_close(st);
    return rc;
}

/* A start from a cursor file behind the stream (one lost, or restored
 * from a copy), past the duplicate window: the resync reads what each
 * subject holds and publishes none of it again, window after window up
 * to the log's head at the start.  (Until this test nothing failed when
 * a start published from the cursor without a resync, or ended the
 * resync after its first window: inside the duplicate window the
 * message ids dedupe the copies, past it each one went to the stream
 * twice.) */
static void
test_old_cursor(void)
{
    arb_repl_cursor_t c;
    arb_repl_t       *r;
    char              path[200];
    uint64_t          head = append(BURST), held;
    size_t            pending = conf.max_pending;
    int               i;

    r = repl_start(head);
    CHECK(r != NULL);
    if (r == NULL)
        return;
    for (i = 0; i < 400 && cursor_of(r, NULL) < head; i++)
        sleep_ms(10);
    arb__repl_thread_stop(r);
    repl_free(r);
    held = stream_msgs();
    CHECK_INT(held, head);
    CHECK_INT(dup_window(100), 0);
    sleep_ms(300);                      /* past it */
    memset(&c, 0, sizeof(c));
    c.published = head - BURST;
    snprintf(path, sizeof(path), "%s/%s", root, ARB_STREAM_CURSOR_FILE);
    CHECK_INT(arb__repl_cursor_save(path, &c), 0);
    conf.max_pending = 4;               /* the log read in many windows */
    r = repl_start(head);
    CHECK(r != NULL);
    if (r == NULL)
        return;
    for (i = 0; i < 400 && cursor_of(r, NULL) < head; i++)
        sleep_ms(10);
    conf.max_pending = pending;
    CHECK_INT(cursor_of(r, NULL), head);
    pthread_mutex_lock(&r->mu);
    CHECK_INT(r->st.duplicates, BURST);
    CHECK_INT(r->st.republished, 0);
    pthread_mutex_unlock(&r->mu);
    arb__repl_thread_stop(r);
    repl_free(r);
    CHECK_INT(stream_msgs(), head);
    CHECK_INT(dup_window(120000), 0);
}

int
main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (nats_missing("test_repl_shutdown"))
        return 0;
    main_th = pthread_self();
    CHECK_INT(repl_harness_begin(0), 0);
    if (store != NULL && nats_pid > 0) {
        test_held_handler();
        test_rounds();
        test_frozen();
        test_head();
        test_old_cursor();
    }
    repl_harness_end(test_failed_ != 0);
    return TEST_END();
}
