/*
 * test_repl_ack.c - the PubAck handler (daemon/replicate.c,
 * arb__repl_ack_cb) moves the durable cursor only over a prefix of the
 * window whose every event has its PubAck.  An event still in flight
 * holds the cursor however many later events are acked (JetStream may
 * ack them, the earlier one may yet fail); a failed publish puts its
 * event back to be sent again and fails the wave, so the cursor never
 * passes it.  A cursor saved past an event the stream never acked skips
 * that event at the next start: it is never published (docs/SCALE.md,
 * "The durable cursor").  Without a server: the handler is called as
 * libnats calls it, with messages made here.
 *
 * A PubAck that never comes is no PubAck either: the pump times the
 * oldest publish in flight out, and the settle takes back what is still
 * out (reclaim).  Those events are sent again; the cursor never passes
 * them, and a PubAck of theirs that comes late finds no event.
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

#define NWIN 4

static arb_repl_t      r;
static arb_repl_ev_t   win[NWIN];
static arb_stream_t    s;               /* no connection: js NULL */

/* Event i as sent: its message in flight. */
static void
sent(int i)
{
    natsMsg *m = NULL;

    CHECK(natsMsg_Create(&m, "arbiter.ev.a-1", NULL, "x", 1) == NATS_OK);
    win[i].state = EV_SENT;
    win[i].msg = m;
    r.inflight++;
}

/* The handler's call for event i: acked, or failed when fail. */
static void
answer(int i, int fail)
{
    jsPubAck    pa;
    jsPubAckErr pae;

    memset(&pa, 0, sizeof(pa));
    memset(&pae, 0, sizeof(pae));
    pa.Sequence = (uint64_t)i + 1;
    pae.Err = NATS_TIMEOUT;
    pae.Msg = (natsMsg *)win[i].msg;
    arb__repl_ack_cb(NULL, (natsMsg *)win[i].msg, fail ? NULL : &pa,
                     fail ? &pae : NULL, &r);
}

/* Sent at 0 to 3, 1 and 3 acked, no PubAck for 0 or 2 by then: the
 * pump times 0 out (its sent time timeout_ms back), settles, and takes
 * both back.  (Until this test, nothing failed when the settle took
 * what timed out for done: the cursor passed events the stream never
 * acked, and a sync ack of one was answered replicated.) */
static void
test_timed_out(void)
{
    arb_repl_idset_t checked = { NULL, NULL, 0, 0, 0 };
    arb_buf_t        why = ARB_BUF_INIT;
    natsMsg         *late[2];
    int              i, rc;

    memset(win, 0, sizeof(win));
    for (i = 0; i < NWIN; i++) {
        snprintf(win[i].match, sizeof(win[i].match), "b-1");
        win[i].seq = (uint64_t)i + 1;
        win[i].pos = (uint64_t)i + 21;
        win[i].state = EV_NEW;
    }
    r.s = &s;
    r.done_n = 0;
    r.inflight = 0;
    r.wave_failed = 0;
    r.resync = 0;
    r.check_req = 0;
    r.st.cursor = 20;
    r.st.published = 0;
    r.st.errors = 0;
    sent(0);
    sent(1);
    sent(2);
    sent(3);
    answer(1, 0);
    answer(3, 0);
    win[0].sent_ms = arb_clock_ms() - 10 * (int64_t)r.conf->timeout_ms;
    win[2].sent_ms = arb_clock_ms();
    late[0] = (natsMsg *)win[0].msg;
    late[1] = (natsMsg *)win[2].msg;

    rc = arb__repl_pump(&r, &checked, 0, &why);
    CHECK(rc < 0);                      /* the timeout, settled */
    CHECK_INT(r.inflight, 0);
    CHECK_INT(win[0].state, EV_NEW);    /* to be sent again */
    CHECK_INT(win[2].state, EV_NEW);
    CHECK(win[0].msg == NULL && win[2].msg == NULL);
    CHECK_INT(win[1].state, EV_DONE);
    CHECK_INT(win[3].state, EV_DONE);
    CHECK_INT(r.st.published, 2);       /* 1 and 3 only were acked */
    CHECK_INT(r.st.cursor, 20);
    CHECK_INT(r.done_n, 0);
    CHECK_INT(r.resync, 1);             /* compared before it goes */
    /* 0 and 2 failed while a later event of their match was stored:
     * holes, which a pass fills, not sent again by the pump. */
    CHECK(win[0].hole && win[2].hole);
    CHECK_INT(r.check_req, 1);
    CHECK(r.st.errors == 1);

    /* Their PubAcks, late: nothing is theirs any more. */
    arb__repl_ack_cb(NULL, late[0], NULL, NULL, &r);
    {
        jsPubAck pa;

        memset(&pa, 0, sizeof(pa));
        pa.Sequence = 3;
        arb__repl_ack_cb(NULL, late[1], &pa, NULL, &r);
    }
    CHECK_INT(win[0].state, EV_NEW);
    CHECK_INT(win[2].state, EV_NEW);
    CHECK_INT(r.st.cursor, 20);
    CHECK_INT(r.st.published, 2);
    CHECK_INT(r.inflight, 0);

    /* One alone in flight, timed out: taken back as well.  (Until this
     * test a take-back that waited for two or more left a lone one in
     * flight for good: timed out at every round, never sent again.) */
    r.wave_failed = 0;
    win[2].hole = 0;
    sent(2);
    win[2].sent_ms = arb_clock_ms() - 10 * (int64_t)r.conf->timeout_ms;
    late[0] = (natsMsg *)win[2].msg;
    rc = arb__repl_pump(&r, &checked, 0, &why);
    CHECK(rc < 0);
    CHECK_INT(r.inflight, 0);
    CHECK_INT(win[2].state, EV_NEW);
    CHECK(win[2].msg == NULL);
    CHECK_INT(r.st.cursor, 20);
    arb__repl_ack_cb(NULL, late[0], NULL, NULL, &r);
    CHECK_INT(win[2].state, EV_NEW);

    free(r.seen.slot);
    r.seen.slot = NULL;
    r.seen.cap = r.seen.n = 0;
    free(checked.id);
    free(checked.held);
    arb_buf_free(&why);
}

int
main(void)
{
    static arb_repl_conf_t conf;
    int                    i;

    CHECK(nats_Open(-1) == NATS_OK);
    pthread_mutex_init(&r.mu, NULL);
    CHECK_INT(arb_cond_init(&r.cv), 0);
    arb_repl_conf_defaults(&conf);
    conf.mode = ARB_REPL_ASYNC;
    r.conf = &conf;
    r.win = win;
    r.nwin = NWIN;
    for (i = 0; i < NWIN; i++) {
        snprintf(win[i].match, sizeof(win[i].match), "a-1");
        win[i].seq = (uint64_t)i + 1;
        win[i].pos = (uint64_t)i + 11;
        win[i].state = EV_NEW;
    }
    r.st.cursor = 10;

    /* 0 and 1 in flight, 1 acked first: the cursor waits for 0. */
    sent(0);
    sent(1);
    answer(1, 0);
    CHECK_INT(win[1].state, EV_DONE);
    CHECK_INT(win[0].state, EV_SENT);
    CHECK_INT(r.st.cursor, 10);
    CHECK_INT(r.done_n, 0);
    CHECK_INT(r.inflight, 1);

    /* 0 fails (a timeout, a lost leader): back to be sent again, the
     * wave failed, the cursor still before it. */
    answer(0, 1);
    CHECK_INT(win[0].state, EV_NEW);
    CHECK(win[0].msg == NULL);
    CHECK_INT(r.wave_failed, 1);
    CHECK_INT(r.inflight, 0);
    CHECK_INT(r.st.cursor, 10);
    CHECK_INT(r.done_n, 0);

    /* A later event acked does not carry the cursor over the failed
     * one either. */
    sent(2);
    answer(2, 0);
    CHECK_INT(win[0].state, EV_NEW);
    CHECK_INT(r.st.cursor, 10);
    CHECK_INT(r.done_n, 0);

    /* 0 sent again and acked: the cursor moves over 0..2, the acked
     * prefix, and stops before 3 (never sent). */
    r.wave_failed = 0;
    sent(0);
    answer(0, 0);
    CHECK_INT(r.st.cursor, 13);
    CHECK_INT(r.done_n, 3);
    CHECK_INT(win[3].state, EV_NEW);
    CHECK_INT(r.st.published, 3);

    test_timed_out();

    pthread_cond_destroy(&r.cv);
    pthread_mutex_destroy(&r.mu);
    nats_Close();
    return TEST_END();
}
