/*
 * test_repl_pump.c - publishing fails closed once a fork went unrecorded
 * (daemon/replicate.c, arb__repl_pump; fence_lost is set by
 * arb__repl_fence_set when the fence list cannot grow, test_repl_fence).
 * The fork's match is then unknown, so no event of any match may go
 * over the stream's other history: the pump sends nothing and leaves
 * the window as it was, every event still the log's to send after a
 * restart.  The same window with fence_lost clear is sent: the pump
 * reaches the publish, which fails here (no connection), and settles
 * that failure, so the first half would see a send if the guard went.
 * Then a single fenced match: its events are refused, not sent, and the
 * refused positions answer a held sync ack as refused; and a hole of the
 * window is left to the pass, its match's later events waiting; and
 * nothing goes past max_pending in flight.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nats/nats.h>

#include "core/clock.h"
#include "core/err.h"
#include "daemon/replicate.h"
#include "daemon/replicate_int.h"
#include "tests/test.h"

#define NWIN 3

int
main(void)
{
    static arb_repl_t      r;
    static arb_repl_conf_t conf;
    static arb_repl_ev_t   win[NWIN];
    static arb_stream_t    s;           /* no connection: js NULL */
    static char            recorder[] = "rec-a";
    static unsigned char   bytes[] = { 0x81, 0xa1, 0x6b, 0x01 };
    arb_repl_idset_t       checked = { NULL, NULL, 0, 0, 0 };
    arb_buf_t              why = ARB_BUF_INIT;
    int                    i, rc, round;

    CHECK(nats_Open(-1) == NATS_OK);
    pthread_mutex_init(&r.mu, NULL);
    CHECK_INT(arb_cond_init(&r.cv), 0);
    arb_repl_conf_defaults(&conf);
    conf.mode = ARB_REPL_ASYNC;
    conf.recorder = recorder;
    conf.timeout_ms = 100;
    r.conf = &conf;
    r.s = &s;
    r.win = win;
    r.nwin = NWIN;
    for (i = 0; i < NWIN; i++) {
        snprintf(win[i].match, sizeof(win[i].match), "p-%d", i % 2);
        win[i].seq = (uint64_t)(i / 2) + 1;
        win[i].pos = (uint64_t)i + 1;
        win[i].bytes = bytes;
        win[i].len = sizeof(bytes);
        win[i].state = EV_NEW;
    }

    /* A fork unrecorded: nothing goes, in a resync or not, round after
     * round, and nothing counts as failed. */
    r.fence_lost = 1;
    for (round = 0; round < 3; round++) {
        CHECK_INT(arb__repl_pump(&r, &checked, round == 1, &why), 0);
        for (i = 0; i < NWIN; i++) {
            CHECK_INT(win[i].state, EV_NEW);
            CHECK(win[i].msg == NULL && !win[i].hole);
        }
        CHECK(r.inflight == 0 && r.wave_failed == 0);
        CHECK(r.st.errors == 0 && r.st.resync_looks == 0);
        CHECK(r.nrefused == 0);         /* not refused: not published */
    }
    CHECK_INT(checked.n, 0);            /* no match compared */

    /* The guard clear: the first event is sent (and fails, no
     * connection), the failure settled and counted. */
    r.fence_lost = 0;
    rc = arb__repl_pump(&r, &checked, 0, &why);
    CHECK(rc < 0);
    CHECK(r.st.errors == 1 && r.resync == 1);
    CHECK(r.inflight == 0);
    CHECK_INT(win[0].state, EV_NEW);    /* not taken: still the log's */

    /* One match fenced (a fork found in a pass while its events wait in
     * the window): its events are refused, holes and all, and never
     * sent over the stream's other history; the other match's done
     * event stands for "nothing else to send", so a send shows as a
     * failure.  (Until the audit of 2026-12-07 nothing held the pump to
     * the fence with a single match fenced.) */
    r.wave_failed = 0;
    r.st.errors = 0;
    win[1].state = EV_DONE;
    win[2].hole = 1;
    arb__repl_fence_set(&r, "p-0", 9, 2);
    rc = arb__repl_pump(&r, &checked, 0, &why);
    CHECK_INT(rc, 0);
    CHECK(r.st.errors == 0 && r.inflight == 0);
    CHECK_INT(win[0].state, EV_DONE);
    CHECK_INT(win[2].state, EV_DONE);
    CHECK(!win[2].hole);
    CHECK_INT(r.nrefused, 2);
    CHECK(r.nrefused == 2 && r.refused[0] == 1 && r.refused[1] == 3);
    CHECK_INT(r.st.refused, 2);
    CHECK_INT(r.st.cursor, 3);          /* passed, as refused */
    /* A sync ack held for a refused position is answered unreplicated,
     * never as replicated: each refused position is found, alone or at
     * either end of a group's range, and a position between is not. */
    CHECK(arb__repl_refused_locked(&r, 1, 1));
    CHECK(arb__repl_refused_locked(&r, 3, 3));
    CHECK(arb__repl_refused_locked(&r, 2, 3));
    CHECK(arb__repl_refused_locked(&r, 0, 1));
    CHECK(!arb__repl_refused_locked(&r, 2, 2));
    CHECK(!arb__repl_refused_locked(&r, 4, 9));
    /* A hole refused after a later event of another match lands in
     * order, at the front too, and one refused again is not added.
     * (Until this test nothing failed when a position below every
     * refused one was put second: the list unsorted, a sync ack of it
     * answered replicated.) */
    {
        static const uint64_t order[] = { 7, 4, 6, 4 };
        arb_repl_ev_t         h;
        size_t                j;

        r.nrefused = 0;
        memset(&h, 0, sizeof(h));
        for (j = 0; j < 4; j++) {
            h.pos = order[j];
            CHECK_INT(arb__repl_refuse_locked(&r, &h), 0);
        }
        CHECK_INT(r.nrefused, 3);
        CHECK(r.nrefused == 3 && r.refused[0] == 4 && r.refused[1] == 6
              && r.refused[2] == 7);
        CHECK(arb__repl_refused_locked(&r, 4, 4));
        CHECK(arb__repl_refused_locked(&r, 6, 6));
        CHECK(!arb__repl_refused_locked(&r, 5, 5));
    }

    /* A hole (an event of the window the stream lost after a later one
     * of its match was acked) is not sent by the pump: the pass
     * republishes it in order, and the match's later events wait for
     * it.  Here the only event left to send is that hole. */
    r.nfence = 0;
    r.nrefused = 0;
    r.done_n = 0;
    win[0].state = EV_NEW;
    win[0].hole = 1;
    win[2].state = EV_NEW;
    rc = arb__repl_pump(&r, &checked, 0, &why);
    CHECK_INT(rc, 0);
    CHECK(r.st.errors == 0 && r.inflight == 0);
    CHECK(win[0].state == EV_NEW && win[0].msg == NULL && win[0].hole);
    CHECK(win[2].state == EV_NEW && win[2].msg == NULL);

    /* max_pending in flight: nothing more goes until a PubAck comes
     * (the send would fail here).  Its send time is ahead, so that no
     * stall of this machine times it out. */
    win[0].hole = 0;
    win[0].state = EV_SENT;
    win[0].msg = &s;            /* compared, never dereferenced */
    win[0].sent_ms = arb_clock_ms() + 3600000;
    r.inflight = 1;
    conf.max_pending = 1;
    rc = arb__repl_pump(&r, &checked, 0, &why);
    CHECK_INT(rc, 0);
    CHECK(r.st.errors == 0 && r.inflight == 1 && !r.wave_failed);
    CHECK(win[2].state == EV_NEW && win[2].msg == NULL);
    r.inflight = 0;

    free(r.fence);
    free(r.refused);
    free(r.seen.slot);
    free(checked.id);
    arb_buf_free(&why);
    pthread_cond_destroy(&r.cv);
    pthread_mutex_destroy(&r.mu);
    nats_Close();
    return TEST_END();
}
