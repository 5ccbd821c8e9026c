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

    free(r.seen.slot);
    free(checked.id);
    arb_buf_free(&why);
    pthread_cond_destroy(&r.cv);
    pthread_mutex_destroy(&r.mu);
    nats_Close();
    return TEST_END();
}
