/*
 * replicate.c - the replication thread: publishes the committed log to
 * JetStream in commit order and keeps the durable cursor.
 *
 * DESIGN.  The log is read from the store (thread-safe) from the cursor
 * on, no further than the last durable (acknowledged) commit, into a
 * window, and published as a continuous pipeline: every event that may
 * go is sent with js_PublishMsgAsync on one connection, in commit order
 * (the server stores one connection's messages in that order, so each
 * subject stays in seq order), up to max_pending in flight, without
 * waiting.  The PubAcks come back on libnats' ack thread, in order; the
 * handler marks its event done and moves the cursor over the window's
 * done prefix, and in sync mode wakes the loop at once, so a held ack
 * leaves one PubAck round trip after its commit became durable.  A
 * PubAck that does not come within timeout_ms, or a failed one, stops
 * the sending: what is still in flight is answered or taken back, and
 * the thread resyncs (below).  Exceptions keep the order safe:
 *   - in resync, a match's first send (its probe, which may carry an
 *     expectation the leader checks) is answered before the next;
 *   - an open waits for its ack and its deal message before seq 1 (with
 *     a replication key only: without one there is no deal message);
 *   - an event that failed while a later event of its match was stored
 *     (an election between the two) is a hole in the subject: it is not
 *     sent again by the pipeline (appending it would end the subject on
 *     a lower seq, which the resync reads), its successors wait, and an
 *     anti-entropy pass is asked for at once: it fills the hole as any
 *     other (replicate_check.c) and marks the event done.
 *
 * The cursor ("published up to position P") moves only over events whose
 * PubAck came back, and is written to DATA/replicate.pos (write, fsync,
 * rename) after that: a crash leaves it behind the stream, never ahead.
 * On start and after every failure or reconnect the thread is in resync:
 * before it publishes a match's event it reads the subject's last message
 * (js_GetLastMsg) and drops what the stream already holds, so a restart
 * from an old cursor or past the 2-minute dedupe window publishes nothing
 * twice.  Inside the window the Nats-Msg-Id "<match>/<seq>" dedupes too.
 * The answer is not trusted blindly: the match's next send expects it
 * (ExpectLastSubjectSeq / ExpectNoMessage, checked by the leader), and an
 * answer that ends before the match's earlier acked events (empty, or
 * shorter: a stale node leading after a restart) holds the match until an
 * anti-entropy pass has looked and republished them in order
 * (resync_match).
 *
 * The cursor file is written at most once a second: it only saves work
 * after a restart.
 *
 * libnats' callbacks run on its own threads; they touch only fields under
 * mu.  The loop thread is never blocked: it stores `head` (an atomic) and
 * signals only a thread that sleeps until the next commit; under a steady
 * load in async mode the thread polls every ARB_REPL_POLL_MS instead.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "core/clock.h"
#include "core/err.h"
#include "daemon/log.h"
#include "daemon/replicate_int.h"
#include "daemon/server.h"


/* Window limits: events and bytes read ahead of the cursor. */
#define ARB_REPL_WIN_BYTES (32u << 20)
/* Async mode under load: the thread looks for commits this often
 * (wait_work), for ARB_REPL_BUSY_MS after the last one it found.  (5 ms
 * was tried: docs/SCALE.md, "How events reach the stream".) */
#define ARB_REPL_POLL_MS   2
#define ARB_REPL_BUSY_MS   50
/* Sync mode: a burst sent with nothing else in flight is written at
 * once (lone_flush) unless one was written that way within this many
 * ns: at a venue's pace that takes libnats' 1 ms write delay off every
 * ack, and flat out it bounds what the PING/PONG costs. */
#define ARB_REPL_FLUSH_GAP_NS 5000000u
/* The cursor file is written (and fsync'd) at most this often: it only
 * saves work after a restart (the resync reads what the stream holds). */
#define ARB_REPL_CURSOR_MS 1000
/* A stop waits this long for the thread to end by itself (its last
 * PubAcks, 200 ms, and the cursor file) before it closes the connection
 * under a request of the thread's. */
#define ARB_REPL_STOP_MS   1000

/*
 * A stream is asked only once settled: a leader just elected answers
 * "not found" for what it has not applied yet.  But nats-server 2.9 can
 * leave a replica catching up for good: when a node that lost its disk
 * comes back and leads, a replica that holds entries the leader never
 * had stays "lag 1" and is never current again (docs/SCALE.md).
 * Waiting for it would put every repair and every fencing look off
 * forever, with the stream missing what the recorder holds.  A leader
 * is known and answers reads, and every republish is checked by it
 * (expected last sequence, message id), so once one replica has been
 * behind for ARB_REPL_STUCK_MS the thread goes on without it, saying so
 * once.
 */
int
arb__repl_settle_rule(int rc, int lagging, int64_t now, int64_t *since,
                      int *say)
{
    *say = 0;
    if (rc != ARB_EAGAIN || !lagging) {
        *since = 0;
        return rc;
    }
    if (*since == 0)
        *since = now;
    if (*since > 0 && now - *since < ARB_REPL_STUCK_MS)
        return rc;
    if (*since > 0) {
        *say = 1;
        *since = -1;            /* said once, until the stream settles */
    }
    return 0;
}

int
arb__repl_settled(arb_repl_t *r, arb_buf_t *why)
{
    int lagging, say, rc;

    rc = arb_stream_settled_lag(r->s, &lagging, why);
    rc = arb__repl_settle_rule(rc, lagging, arb_clock_ms(), &r->lag_since,
                               &say);
    if (say)
        arb_log(ARB_LOG_WARN, "replicate: %s for %d s: comparing with the "
                "leader without waiting for it",
                arb_buf_cstr(why) ? arb_buf_cstr(why) : "a replica lags",
                ARB_REPL_STUCK_MS / 1000);
    return rc;
}

void
arb__repl_log_err(arb_repl_t *r, const char *what, int rc, arb_buf_t *why)
{
    int stopping;

    pthread_mutex_lock(&r->mu);
    r->st.errors++;
    stopping = r->stop;
    pthread_mutex_unlock(&r->mu);
    if (stopping)
        return;     /* the connection closed by the stop: no news */
    arb_log_ev(rc == ARB_EAGAIN ? ARB_LOG_WARN : ARB_LOG_ERROR,
               "replicate_error", NULL, "replicate: %s: %s", what,
               why != NULL ? arb_buf_cstr(why) : arb_strerror(rc));
}

/* Whether two reasons are the same but for their numbers: each run of
 * digits matches any other ("replica n3 of leader n2 is catching up (lag
 * 31479)", then "(lag 31442)" 1 ms later). */
static int
same_reason(const char *a, const char *b)
{
    while (*a != '\0' && *b != '\0') {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            while (isdigit((unsigned char)*a))
                a++;
            while (isdigit((unsigned char)*b))
                b++;
            continue;
        }
        if (*a++ != *b++)
            return 0;
    }
    return *a == *b;
}

int
arb__repl_say_rule(arb_repl_said_t *sd, const char *msg, int64_t now,
                   uint64_t *again, int64_t *secs)
{
    int same = sd->last[0] != '\0' && same_reason(sd->last, msg);

    if (same && now - sd->at_ms < ARB_REPL_SAY_AGAIN_MS) {
        sd->again++;
        return 0;
    }
    *again = same ? sd->again : 0;
    *secs = same ? (now - sd->at_ms) / 1000 : 0;
    snprintf(sd->last, sizeof(sd->last), "%s", msg);
    sd->again = 0;
    sd->at_ms = now;
    return 1;
}

void
arb__repl_said_clear(arb_repl_said_t *sd)
{
    sd->last[0] = '\0';
    sd->again = 0;
}

/* A failure, counted in stats.errors, logged as arb__repl_say_rule
 * says. */
static void
say_err(arb_repl_t *r, arb_repl_said_t *sd, const char *what, int rc,
        arb_buf_t *why)
{
    const char *msg = why != NULL && arb_buf_cstr(why) != NULL
                      ? arb_buf_cstr(why) : arb_strerror(rc);
    arb_buf_t   w = ARB_BUF_INIT;
    uint64_t    again;
    int64_t     secs;

    if (!arb__repl_say_rule(sd, msg, arb_clock_ms(), &again, &secs)) {
        pthread_mutex_lock(&r->mu);
        r->st.errors++;
        pthread_mutex_unlock(&r->mu);
        return;
    }
    if (again > 0)
        arb_buf_printf(&w, "%s (again %" PRIu64 " times in %" PRId64 " s)",
                       msg, again, secs);
    arb__repl_log_err(r, what, rc, again > 0 && !w.oom ? &w : why);
    arb_buf_free(&w);
}

/* An existing stream whose max_msg_size is below what this recorder may
 * publish: said each time the stream is (again) in place, not refused (a
 * stream is the operator's, and most events are small), since an event
 * over it would fail its publish until the stream is changed, its match's
 * sync acks held meanwhile (until 2026-12-07 nothing said so before the
 * first such event). */
static void
stream_size_said(arb_repl_t *r)
{
    size_t need = r->conf->event_max + ARB_STREAM_HDR_ROOM;

    if (r->conf->event_max == 0 || r->s->max_msg_size <= 0
        || (size_t)r->s->max_msg_size >= need)
        return;
    arb_log_ev(ARB_LOG_WARN, "replicate_stream_small", NULL, "replicate: "
               "stream %s takes messages of at most %d bytes, and this "
               "recorder takes events of up to %zu (frame_max) and their "
               "headers: an event over about %zu bytes would never be "
               "stored, and its match would wait for it; raise the "
               "stream's max_msg_size to %zu or more, or lower frame_max",
               r->s->name, (int)r->s->max_msg_size, r->conf->event_max,
               (size_t)r->s->max_msg_size > ARB_STREAM_HDR_ROOM
               ? (size_t)r->s->max_msg_size - ARB_STREAM_HDR_ROOM : 0,
               need);
}

/* ---- NATS callbacks (libnats threads) ---------------------------------- */

static void
disconnected_cb(natsConnection *nc, void *ud)
{
    arb_repl_t *r = ud;
    int         stopping;

    (void)nc;
    pthread_mutex_lock(&r->mu);
    if (r->st.connected) {
        r->st.connected = 0;
        r->st.disconnects++;
    }
    stopping = r->stop;
    pthread_mutex_unlock(&r->mu);
    if (stopping)
        return;                 /* our own close at stop */
    arb_log_ev(ARB_LOG_WARN, "replicate_disconnected", NULL,
               "replicate: NATS connection lost; reconnecting (events keep "
               "being committed and acknowledged locally)");
}

/* The last callback libnats makes for a connection: after it, nothing
 * of libnats touches r (arb__repl_thread_stop waits for it). */
static void
closed_cb(natsConnection *nc, void *ud)
{
    arb_repl_t *r = ud;

    (void)nc;
    pthread_mutex_lock(&r->mu);
    r->closed = 1;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

static void
connected_cb(natsConnection *nc, void *ud)
{
    arb_repl_t *r = ud;
    char        url[256] = "";

    natsConnection_GetConnectedUrl(nc, url, sizeof(url));
    pthread_mutex_lock(&r->mu);
    r->st.connected = 1;
    r->resync = 1;
    /* The cluster may have lost what it acked meanwhile (a stale node
     * leading after a restart): a pass compares. */
    r->check_req = 1;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    arb_log_ev(ARB_LOG_INFO, "replicate_connected", NULL,
               "replicate: connected to %s", url);
}

/* Under mu, after events turned done: the cursor moves over the done
 * prefix of the window, and sync acks waiting for it are woken at once
 * (from the ack handler's thread: no hop through the replication
 * thread). */
static void
cursor_move_locked(arb_repl_t *r)
{
    size_t k = r->done_n;

    while (k < r->nwin && r->win[k].state == EV_DONE)
        k++;
    if (k == r->done_n)
        return;
    r->done_n = k;
    r->st.cursor = r->win[k - 1].pos;
    r->st.oldest_ms = k < r->nwin ? r->win[k].time_ms : 0;
    arb__repl_wake_loop(r);
}

/* Under mu: event e is in the stream (with its deal, when it has one). */
static void
ev_done_locked(arb_repl_t *r, arb_repl_ev_t *e)
{
    e->state = EV_DONE;
    r->st.published++;
    cursor_move_locked(r);
}

int
arb__repl_refuse_locked(arb_repl_t *r, arb_repl_ev_t *e)
{
    size_t i;

    if (r->nrefused == r->caprefused) {
        size_t    cap = r->caprefused ? r->caprefused * 2 : 64;
        uint64_t *nr = realloc(r->refused, cap * sizeof(*nr));

        if (nr == NULL)
            return ARB_ENOMEM;
        r->refused = nr;
        r->caprefused = cap;
    }
    /* Positions come in log order, but for holes refused after a later
     * event of another match; one the cursor file kept (a restart before
     * the cursor passed it) is refused again. */
    for (i = r->nrefused; i > 0 && r->refused[i - 1] > e->pos; i--)
        ;
    if (i > 0 && r->refused[i - 1] == e->pos)
        goto done;
    memmove(&r->refused[i + 1], &r->refused[i],
            (r->nrefused - i) * sizeof(*r->refused));
    r->refused[i] = e->pos;
    r->nrefused++;
done:
    e->state = EV_DONE;
    e->hole = 0;
    r->st.refused++;
    cursor_move_locked(r);
    return 0;
}

int
arb__repl_refused_locked(const arb_repl_t *r, uint64_t lo, uint64_t hi)
{
    size_t a = 0, b = r->nrefused;

    while (a < b) {
        size_t mid = (a + b) / 2;

        if (r->refused[mid] < lo)
            a = mid + 1;
        else
            b = mid;
    }
    return a < r->nrefused && r->refused[a] <= hi;
}

/* libnats' ack thread, one PubAck (or failure) at a time.  JetStream
 * acks one connection's publishes in order, so the event is found near
 * the front of what is in flight. */
void
arb__repl_ack_cb(jsCtx *js, natsMsg *msg, jsPubAck *pa, jsPubAckErr *pae,
                 void *ud)
{
    arb_repl_t    *r = ud;
    arb_repl_ev_t *e = NULL;
    size_t         i;
    int            wake = 0;

    (void)js;
    pthread_mutex_lock(&r->mu);
    for (i = r->done_n; r->win != NULL && i < r->nwin; i++)
        if (r->win[i].msg == msg) {
            e = &r->win[i];
            break;
        }
    if (e != NULL && e->state == EV_SENT) {
        e->msg = NULL;
        r->inflight--;
        /* (The last PubAck a quiesce waits for too: until 2026-12-04
         * it slept its 50 ms slice out, and every pass under load held
         * publishing that long at its start and again at its end.) */
        wake = e->probe || r->wave_failed
               || r->inflight + 1 == r->conf->max_pending
               || (r->inflight == 0 && r->draining);
        if (pa != NULL && pae == NULL) {
            if (pa->Duplicate) {
                /* Not proof that the stream holds it: deals() reads
                 * the sequence first (a request: not on this thread). */
                e->state = EV_ACKED;
                e->dup = pa->Sequence;
                r->dups++;
                wake = 1;
            } else if (e->seq == 0 && r->have_key) {
                e->state = EV_ACKED;    /* its deal goes before seq 1 */
                wake = 1;
            } else {
                ev_done_locked(r, e);
            }
        } else {
            e->state = EV_NEW;
            r->wave_failed = 1;
            wake = 1;
            if (pae != NULL) {
                r->wave_err = pae->Err;
                r->wave_jerr = pae->ErrCode;
            }
        }
        if (wake) {
            r->kick = 1;
            pthread_cond_broadcast(&r->cv);
        }
    }
    /* The last touch of r (the stop waits for it; see owed).  Saturating:
     * the unit tests call the handler with messages never published. */
    if (r->owed > 0 && --r->owed == 0 && r->stop)
        pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    natsMsg_Destroy(msg);
}

/* ---- the window --------------------------------------------------------- */

typedef struct {
    arb_repl_t *r;
    uint64_t    head;           /* durable up to here: read no further */
    size_t      bytes;
    int         rc;
} fill_t;

static int
fill_cb(void *ud, uint64_t pos, const char *match_id, uint64_t seq,
        int64_t time_ms, const unsigned char hash[ARB_HASH_LEN],
        const void *bytes, size_t len)
{
    fill_t        *f = ud;
    arb_repl_t    *r = f->r;
    arb_repl_ev_t *e;

    if (pos > f->head)
        return 1;       /* committed, not yet acknowledged: not yet */

    if (r->nwin == r->capwin) {
        size_t         cap = r->capwin ? r->capwin * 2 : 1024;
        arb_repl_ev_t *nw;

        pthread_mutex_lock(&r->mu);     /* the ack handler reads win */
        nw = realloc(r->win, cap * sizeof(*nw));
        if (nw != NULL) {
            r->win = nw;
            r->capwin = cap;
        }
        pthread_mutex_unlock(&r->mu);
        if (nw == NULL)
            return f->rc = ARB_ENOMEM;
    }
    e = &r->win[r->nwin];
    memset(e, 0, sizeof(*e));
    e->bytes = malloc(len);
    if (e->bytes == NULL)
        return f->rc = ARB_ENOMEM;
    memcpy(e->bytes, bytes, len);
    e->len = len;
    e->pos = pos;
    e->seq = seq;
    e->time_ms = time_ms;
    memcpy(e->hash, hash, ARB_HASH_LEN);
    snprintf(e->match, sizeof(e->match), "%s", match_id);
    pthread_mutex_lock(&r->mu);
    r->nwin++;
    pthread_mutex_unlock(&r->mu);
    r->read_pos = pos;
    f->bytes += len;
    return f->bytes >= ARB_REPL_WIN_BYTES ? 1 : 0;
}

static int
fill(arb_repl_t *r, arb_buf_t *why)
{
    fill_t   f = { r, 0, 0, 0 };
    size_t   i, want = r->conf->max_pending * 2;
    int      rc;

    f.head = atomic_load(&r->head);
    if (f.head <= r->read_pos || r->nwin >= want)
        return 0;
    for (i = 0; i < r->nwin; i++)
        f.bytes += r->win[i].len;
    if (f.bytes >= ARB_REPL_WIN_BYTES)
        return 0;
    /* Each link checked: a byte changed on the disk is not published
     * (the read fails, is logged, and is tried again each second).  One
     * memory a daemon: room for every match of a big floor (15 MiB at
     * most, 2.4 MiB for 10,000 matches), so that a window never looks a
     * match's last hash up again. */
    if (r->links == NULL)
        r->links = arb_store_links_new(65536);
    rc = arb_store_log(r->store, r->links, r->read_pos + 1, want - r->nwin,
                       fill_cb, &f, why);
    if (f.rc != 0)
        return f.rc;
    return rc < 0 ? rc : 0;
}

/* Drops the done events at the front (the cursor is past them). */
static void
advance(arb_repl_t *r)
{
    size_t k, i;

    pthread_mutex_lock(&r->mu);
    cursor_move_locked(r);      /* resync and passes mark events done */
    k = r->done_n;
    for (i = 0; i < k; i++) {
        if (r->win[i].dup != 0)     /* done by a pass's filled hole */
            r->dups--;
        free(r->win[i].bytes);
    }
    if (k > 0) {    /* an empty window may have no array yet */
        memmove(r->win, r->win + k, (r->nwin - k) * sizeof(*r->win));
        r->nwin -= k;
    }
    r->done_n = 0;
    r->st.oldest_ms = r->nwin > 0 ? r->win[0].time_ms : 0;
    pthread_mutex_unlock(&r->mu);
}

/* ---- publishing ---------------------------------------------------------- */

/* 1 when stream sequence sseq holds this very event (read by sequence,
 * not through the subject index a stale leader may lack), or, with hash
 * NULL, the deal message of match; 0 when it is gone (deleted); an ARB_E*
 * code when NATS did not answer.  With other not NULL: 2 when it holds
 * match's event seq with another hash, moved into *other. */
static int
held_at(arb_repl_t *r, uint64_t sseq, const char *match, uint64_t seq,
        const unsigned char hash[ARB_HASH_LEN], arb_stream_msg_t *other,
        arb_buf_t *why)
{
    natsMsg         *msg = NULL;
    arb_stream_msg_t m;
    jsErrCode        jerr = 0;
    natsStatus       s;
    int              rc;

    s = js_GetMsg(&msg, r->s->js, r->s->name, sseq, NULL, &jerr);
    if (s != NATS_OK) {
        rc = arb_stream_err(s, jerr, "message by sequence", why);
        return rc == ARB_ENOTFOUND ? 0 : rc;
    }
    if (arb_stream_msg_parse(&m, msg, NULL) != 0)
        return 0;
    if (hash == NULL)
        rc = m.kind == ARB_STREAM_DEAL && strcmp(m.match_id, match) == 0;
    else
        rc = m.kind == ARB_STREAM_EV && m.seq == seq
             && strcmp(m.match_id, match) == 0
             && memcmp(m.hash, hash, ARB_HASH_LEN) == 0;
    if (rc == 0 && other != NULL && hash != NULL && m.kind == ARB_STREAM_EV
        && m.seq == seq && strcmp(m.match_id, match) == 0) {
        *other = m;
        return 2;
    }
    arb_stream_msg_clear(&m);
    return rc;
}

int
arb__repl_put(arb_repl_t *r, const char *match, uint64_t seq,
              const unsigned char hash[ARB_HASH_LEN], const void *bytes,
              size_t len, int copy, uint64_t expect, uint64_t *stream_seq,
              arb_buf_t *why)
{
    natsMsg         *m = NULL;
    jsPubOptions     po;
    jsPubAck        *pa = NULL;
    jsErrCode        jerr = 0;
    natsStatus       s;
    arb_stream_msg_t other;
    arb_match_info_t info;
    uint64_t         dup;
    int              rc, with_id;

    for (with_id = !copy;; with_id = 0) {
        rc = arb_stream_ev_msg(&m, match, seq, hash, r->conf->recorder,
                               bytes, len);
        if (rc != 0)
            return rc;
        if (!with_id)
            natsMsgHeader_Delete(m, ARB_STREAM_HDR_MSGID);
        jsPubOptions_Init(&po);
        po.MaxWait = r->conf->timeout_ms;
        if (expect == 0)
            po.ExpectNoMessage = true;
        else
            po.ExpectLastSubjectSeq = expect;
        s = js_PublishMsg(&pa, r->s->js, m, &po, &jerr);
        natsMsg_Destroy(m);
        m = NULL;
        if (s != NATS_OK) {
            rc = arb_stream_err(s, jerr, "republish", why);
            /* 10071: the subject's last message is not the one the
             * repair was decided on (a stale answer): put off. */
            return jerr == JSStreamWrongLastSequenceErr ? ARB_EEXIST : rc;
        }
        if (!pa->Duplicate)
            break;
        /* The dedupe window knows the event: either the stream holds it
         * (the answer that made it look missing was stale) or it was
         * deleted since.  Its sequence tells which. */
        dup = pa->Sequence;
        jsPubAck_Destroy(pa);
        pa = NULL;
        rc = held_at(r, dup, match, seq, hash, &other, why);
        if (rc < 0)
            return rc;
        if (rc == 2) {
            /* Another writer's event at this seq, under our message id:
             * sent again without the id, it would follow the other, two
             * versions of one seq (until 2026-12-07 it went, and only a
             * later pass that read the subject fenced the match). */
            arb_stream_msg_clear(&other);
            if (arb_store_match(r->store, match, &info, NULL) != 0)
                info.last_seq = seq;
            arb__repl_forked(r, match, 0, seq, info.last_seq, "the "
                             "stream's seq %" PRIu64 " (stream sequence %"
                             PRIu64 ") has another hash than the log: its "
                             "republish was answered as a duplicate of it; "
                             "not repaired", seq, dup);
            return ARB_ECONFLICT;
        }
        if (rc == 1) {
            if (why != NULL) {
                why->len = 0;
                arb_buf_printf(why, "republish of seq %" PRIu64 ": the "
                               "stream holds it (stream seq %" PRIu64 ")",
                               seq, dup);
            }
            return ARB_EEXIST;
        }
        if (!with_id)
            return ARB_EIO;     /* no id, yet a duplicate: cannot be */
    }
    *stream_seq = pa->Sequence;
    jsPubAck_Destroy(pa);
    pthread_mutex_lock(&r->mu);
    r->st.republished++;
    pthread_mutex_unlock(&r->mu);
    /* A republished open: its deal message too, which the stream lost
     * with it or never had. */
    if (seq == 0 && arb__repl_put_deal(r, match, NULL, why) != 0)
        arb_log_ev(ARB_LOG_WARN, "replicate_deal", NULL, "replicate: "
                   "match %s: its open republished, its deal message not: "
                   "%s", match, why != NULL && arb_buf_cstr(why)
                   ? arb_buf_cstr(why) : "");
    return 0;
}

/* The deal secret of a dealt match, sealed under the replication key, on
 * arbiter.deal.<token>, right after its open was acked and before seq 1
 * is sent (docs/DEAL.md: the secret stays outside the chain until the
 * close reveals it).  Its Nats-Msg-Id "<match>/deal" makes a repeat a
 * duplicate; but the duplicate window remembers a deal the stream has
 * lost since (a node killed before its flush), so a duplicate is looked
 * up by its sequence, and, gone, the deal goes again without the id. */
int
arb__repl_put_deal(arb_repl_t *r, const char *match, int *stored,
                   arb_buf_t *why)
{
    arb_buf_t    sec = ARB_BUF_INIT;
    natsMsg     *m = NULL;
    jsPubOptions po;
    jsPubAck    *pa = NULL;
    jsErrCode    jerr = 0;
    natsStatus   s;
    uint64_t     dup = 0;
    int          rc, with_id;

    if (stored != NULL)
        *stored = 0;
    if (!r->have_key)
        return 0;
    rc = arb_store_secret(r->store, match, &sec, NULL);
    if (rc != 0) {
        arb_buf_free(&sec);
        return rc == ARB_ENOTFOUND ? 0 : rc;
    }
    for (with_id = 1;; with_id = 0) {
        rc = arb_stream_deal_msg(&m, match, arb_buf_cstr(&sec), r->key,
                                 r->conf->recorder);
        if (rc != 0)
            break;
        if (!with_id)
            natsMsgHeader_Delete(m, ARB_STREAM_HDR_MSGID);
        jsPubOptions_Init(&po);
        po.MaxWait = r->conf->timeout_ms;
        s = js_PublishMsg(&pa, r->s->js, m, &po, &jerr);
        natsMsg_Destroy(m);
        m = NULL;
        if (s != NATS_OK) {
            rc = arb_stream_err(s, jerr, "deal", why);
            break;
        }
        if (pa->Duplicate)
            dup = pa->Sequence;
        else if (stored != NULL)
            *stored = 1;
        jsPubAck_Destroy(pa);
        pa = NULL;
        if (!with_id || dup == 0)
            break;
        rc = held_at(r, dup, match, 0, NULL, NULL, why);
        if (rc != 0)            /* held (1), or no answer */
            break;
        dup = 0;
    }
    sodium_memzero(sec.data, sec.len);
    arb_buf_free(&sec);
    return rc < 0 ? rc : 0;
}

/* In resync, when the stream's last message m of e->match is not the
 * log's event at its seq (another history: a second writer, or a
 * damaged stream) or a seq past the log: reported and fenced; pump
 * refuses the match's unpublished events. */
static void
resync_fence(arb_repl_t *r, const arb_repl_ev_t *e,
             const arb_stream_msg_t *m, int past)
{
    arb_match_info_t info;
    uint64_t         local = UINT64_MAX;

    if (arb_store_match(r->store, e->match, &info, NULL) == 0)
        local = info.last_seq;
    arb__repl_forked(r, e->match, past, m->seq, local, "the stream's seq %"
                     PRIu64 " %s; not publishing over it, its unpublished "
                     "events from seq %" PRIu64 " are refused as "
                     "unreplicated", m->seq, past ? "is past the log"
                     : "has another hash than the log", e->seq);
}

/* Under mu, in resync: event w, found in the stream, is done.  An open
 * the stream holds may lack its deal message: its PubAck came and the
 * deal's publish failed, or the recorder died in between.  Acked,
 * deals() sends the deal, unless the stream holds it, before the match's
 * next event. */
static void
held_done_locked(arb_repl_t *r, arb_repl_ev_t *w)
{
    if (w->state != EV_NEW || w->hole)
        return;
    w->state = w->seq == 0 && r->have_key ? EV_ACKED : EV_DONE;
    w->found = w->state == EV_ACKED;
    r->st.duplicates++;
}

/*
 * In resync: compares the subject's last message with the log before e,
 * the match's first unpublished event, goes.
 *   - It ends just before e: e expects it (ExpectLastSubjectSeq), so that
 *     a stale answer cannot duplicate: the stream leader refuses a send
 *     whose expectation no longer holds (error 10071) and the resync
 *     looks again.  Empty, for an open: e expects no message.
 *   - It ends on e or a later event of the window (sent before the
 *     failure, PubAck lost): those are taken for published only when
 *     the subject's count says it holds every seq up to its last once;
 *     else a successor was kept while an earlier event was lost (an
 *     election between them): they become holes, which a pass fills
 *     (and then they are done) and meanwhile hold their acks.
 *   - It ends earlier, or is empty while earlier events of the match
 *     were acked (a new leader not caught up, or a loss): held, a pass
 *     decides (1).
 *   - It is not the log's event at its seq, or past the log: fenced (2).
 *   - It is not ours: the last message of ours before it is held to the
 *     log as above (fenced, 2); else e goes after it, expecting it.
 * 0 (e may go), 1 (held), 2 (fenced), or an ARB_E* code when NATS or
 * the store did not answer.  When the subject holds seqs 0..S once each,
 * *held is S + 1 (the match's later windows drop them too).
 */
static int
resync_match(arb_repl_t *r, arb_repl_ev_t *e, uint64_t *held,
             arb_buf_t *why)
{
    char             subj[ARB_STREAM_SUBJECT_MAX];
    unsigned char    hash[ARB_HASH_LEN];
    arb_stream_msg_t m;
    uint64_t         n = 0;
    size_t           i;
    int              rc, whole;

    arb_stream_subject(subj, sizeof(subj), ARB_STREAM_EV, e->match);
    pthread_mutex_lock(&r->mu);
    r->st.resync_looks++;
    pthread_mutex_unlock(&r->mu);
    rc = arb_stream_last(r->s, subj, &m, why);
    if (rc == ARB_EPROTO) {
        uint64_t end = m.stream_seq;

        /* The subject ends with a message arbiter did not write.  Our
         * last message before it is held to the log as a last message
         * is below: another hash at its seq, or a seq past the log, is
         * another history, and e must not go over it (past the duplicate
         * window, or under an id of its own, nothing else stops it:
         * until 2026-12-07 e went, the subject held two events at one
         * seq, and e's sync ack said replicated).  Else, or when none is
         * found (ARB_REPL_FOREIGN_MAX), holding e
         * would hold the match for good (a pass does not repair such a
         * subject): e goes after the message, expecting it (a copy the
         * stream holds already is a duplicate a reader drops: same seq,
         * same hash); the passes report the subject, and writes to the
         * match wait for them (arb_repl_fenced). */
        rc = arb__repl_last_ours(r, subj, end, &m, why);
        if (rc == ARB_ETOOBIG)
            rc = 0;
        if (rc == 1) {
            rc = arb__repl_log_hash(r, e->match, m.seq, hash, why);
            if (rc == 0 || (rc > 0
                            && memcmp(hash, m.hash, ARB_HASH_LEN) != 0)) {
                resync_fence(r, e, &m, rc == 0);
                rc = 2;
            }
            arb_stream_msg_clear(&m);
        }
        if (rc < 0 || rc == 2)
            return rc;
        e->expect = end;
        arb_log_ev(ARB_LOG_WARN, "replicate_foreign", NULL, "replicate: "
                   "match %s: %s; publishing its seq %" PRIu64 " after it",
                   e->match, arb_buf_cstr(why) ? arb_buf_cstr(why) : "",
                   e->seq);
        return 0;
    }
    if (rc == ARB_ENOTFOUND && e->seq == 0) {
        e->expect_none = 1;
        return 0;
    }
    if (rc != 0 && rc != ARB_ENOTFOUND)
        return rc;
    if (rc == ARB_ENOTFOUND || m.seq + 1 < e->seq) {
        if (rc == 0)
            arb_stream_msg_clear(&m);
        pthread_mutex_lock(&r->mu);
        r->check_req = 1;
        pthread_mutex_unlock(&r->mu);
        return 1;
    }
    rc = arb__repl_log_hash(r, e->match, m.seq, hash, why);
    if (rc < 0) {
        arb_stream_msg_clear(&m);
        return rc;
    }
    if (rc == 0 || memcmp(hash, m.hash, ARB_HASH_LEN) != 0) {
        resync_fence(r, e, &m, rc == 0);
        arb_stream_msg_clear(&m);
        return 2;
    }
    if (m.seq + 1 == e->seq) {
        e->expect = m.stream_seq;
        arb_stream_msg_clear(&m);
        return 0;
    }
    /* m.seq >= e->seq: e itself is the last message, or a later one. */
    whole = m.seq == e->seq;
    if (!whole) {
        rc = arb__repl_resync_count(r, subj, &n, why);
        if (rc != 0) {
            arb_stream_msg_clear(&m);
            return rc;
        }
        whole = n == m.seq + 1;
    }
    if (!whole)
        arb_log_ev(ARB_LOG_WARN, "replicate_undecided", NULL, "replicate: "
                   "match %s: the stream ends on its seq %" PRIu64 " but "
                   "holds %" PRIu64 " messages of it; seqs %" PRIu64
                   "..%" PRIu64 " wait for a pass", e->match, m.seq, n,
                   e->seq, m.seq);
    for (i = 0; i < r->nwin; i++) {
        arb_repl_ev_t *w = &r->win[i];

        if (strcmp(w->match, e->match) != 0 || w->seq > m.seq)
            continue;
        pthread_mutex_lock(&r->mu);     /* the ack handler reads it */
        if (w->state == EV_NEW && !w->hole && !whole)
            w->hole = 1;
        else
            held_done_locked(r, w);
        pthread_mutex_unlock(&r->mu);
    }
    if (whole)
        *held = m.seq + 1;      /* its events in later windows too */
    arb_stream_msg_clear(&m);
    if (whole)
        return 0;
    pthread_mutex_lock(&r->mu);
    r->check_req = 1;
    pthread_mutex_unlock(&r->mu);
    return 1;
}

/* A set of match ids (pointers into the window) for one round. */
static uint32_t
fnv(const char *s)
{
    uint32_t h = 2166136261u;

    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static int
hset_reset(arb_repl_hset_t *h, size_t n)
{
    size_t cap = 64;

    while (cap < 2 * n + 2)
        cap *= 2;
    if (cap > h->cap) {
        const char **t = realloc(h->slot, cap * sizeof(*t));

        if (t == NULL)
            return -1;
        h->slot = t;
        h->cap = cap;
    }
    h->n = cap;
    memset(h->slot, 0, cap * sizeof(*h->slot));
    return 0;
}

/* 1 when added, 0 when it was there. */
static int
hset_add(arb_repl_hset_t *h, const char *id)
{
    size_t i = fnv(id) & (h->n - 1);

    while (h->slot[i] != NULL) {
        if (strcmp(h->slot[i], id) == 0)
            return 0;
        i = (i + 1) & (h->n - 1);
    }
    h->slot[i] = id;
    return 1;
}

static int
hset_has(const arb_repl_hset_t *h, const char *id)
{
    size_t i = fnv(id) & (h->n - 1);

    while (h->slot[i] != NULL) {
        if (strcmp(h->slot[i], id) == 0)
            return 1;
        i = (i + 1) & (h->n - 1);
    }
    return 0;
}

/* The index of id in s, or s->n when it is not there. */
static size_t
idset_find(const arb_repl_idset_t *s, const char *id, size_t *at)
{
    size_t lo = 0, hi = s->n;

    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int    c = strcmp(id, s->id[mid]);

        if (c == 0)
            return mid;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    if (at != NULL)
        *at = lo;
    return s->n;
}

/* 1 when added (nothing known held), 0 when it was there, -1: out of
 * memory. */
static int
idset_add(arb_repl_idset_t *s, const char *id)
{
    size_t lo = 0;

    if (idset_find(s, id, &lo) < s->n)
        return 0;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 256;
        void  *p = realloc(s->id, cap * sizeof(*s->id));
        void  *q;

        if (p == NULL)
            return -1;
        s->id = p;
        q = realloc(s->held, cap * sizeof(*s->held));
        if (q == NULL)
            return -1;
        s->held = q;
        s->cap = cap;
    }
    memmove(&s->id[lo + 1], &s->id[lo], (s->n - lo) * sizeof(*s->id));
    memmove(&s->held[lo + 1], &s->held[lo],
            (s->n - lo) * sizeof(*s->held));
    snprintf(s->id[lo], sizeof(s->id[lo]), "%s", id);
    s->held[lo] = 0;
    s->n++;
    return 1;
}

static void
idset_del(arb_repl_idset_t *s, const char *id)
{
    size_t i = idset_find(s, id, NULL);

    if (i == s->n)
        return;
    memmove(&s->id[i], &s->id[i + 1], (s->n - i - 1) * sizeof(*s->id));
    memmove(&s->held[i], &s->held[i + 1],
            (s->n - i - 1) * sizeof(*s->held));
    s->n--;
}

int
arb__repl_ev_cmp(const void *a, const void *b)
{
    const arb_repl_ev_t *x = *(arb_repl_ev_t *const *)a;
    const arb_repl_ev_t *y = *(arb_repl_ev_t *const *)b;
    int                  c = strcmp(x->match, y->match);

    return c != 0 ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

/* After a failure, nothing in flight: an event that failed while a later
 * one of its match was stored (an election between them) left a hole in
 * the subject.  Marked as such; returns how many (SIZE_MAX: out of
 * memory, not looked at: a pass is asked for all the same). */
static size_t
mark_holes(arb_repl_t *r)
{
    arb_repl_ev_t **v;
    size_t          i, j, k, n = 0;

    v = malloc((r->nwin + 1) * sizeof(*v));
    if (v == NULL)
        return SIZE_MAX;
    for (i = 0; i < r->nwin; i++)
        v[i] = &r->win[i];
    qsort(v, r->nwin, sizeof(*v), arb__repl_ev_cmp);
    for (i = 0; i < r->nwin; i = j) {
        size_t last_done = SIZE_MAX;

        for (j = i; j < r->nwin && strcmp(v[j]->match, v[i]->match) == 0;
             j++)
            if (v[j]->state == EV_DONE)
                last_done = j;
        if (last_done == SIZE_MAX)
            continue;
        for (k = i; k < last_done; k++)
            if (v[k]->state != EV_DONE && !v[k]->hole) {
                v[k]->hole = 1;
                n++;
            }
    }
    free(v);
    return n;
}

/* Under mu: waits at most ms for what is in flight to be answered (or
 * for a failure); returns how many are still out. */
static size_t
wait_inflight_locked(arb_repl_t *r, unsigned ms)
{
    int64_t until = arb_clock_ms() + ms;

    r->draining++;      /* the last PubAck wakes us, or a cut */
    while (r->inflight > 0 && !r->wave_failed && !r->cut) {
        int64_t         left = until - arb_clock_ms();
        struct timespec ts;

        if (left <= 0)
            break;
        if (left > 50)
            left = 50;
        arb_clock_deadline(&ts, (long)left);
        pthread_cond_timedwait(&r->cv, &r->mu, &ts);
    }
    r->draining--;
    return r->inflight;
}

/* Takes back from libnats what is still in flight (its PubAck would come
 * too late): those events go again.  A PubAck the handler is delivering
 * meanwhile finds no event and is dropped; its event goes again, a
 * duplicate the stream recognises. */
static void
reclaim(arb_repl_t *r)
{
    natsMsgList left;
    size_t      i, out, owed;

    pthread_mutex_lock(&r->mu);
    out = r->inflight;
    owed = r->owed;
    pthread_mutex_unlock(&r->mu);
    if (out == 0 && owed == 0)
        return;     /* (libnats 3.4.1 crashes asked before any publish) */
    memset(&left, 0, sizeof(left));
    if (js_PublishAsyncGetPendingList(&left, r->s->js) != NATS_OK)
        left.Count = 0;
    pthread_mutex_lock(&r->mu);
    /* Taken back: no handler call comes for these. */
    r->owed -= (size_t)left.Count < r->owed ? (size_t)left.Count : r->owed;
    for (i = 0; i < r->nwin; i++)
        if (r->win[i].state == EV_SENT) {
            r->win[i].state = EV_NEW;
            r->win[i].msg = NULL;
        }
    r->inflight = 0;
    pthread_mutex_unlock(&r->mu);
    natsMsgList_Destroy(&left);
}

/* After a failure: waits (at most ms) for the rest of what is in flight,
 * takes back what did not come, marks the holes and enters resync.
 * Returns the failure's ARB_E* code; ARB_EEXIST when the only one was an
 * event to send again (wave_dup), which replicate_duplicate has said and
 * is not counted in errors: until 2026-12-07 it was logged as the error
 * "nats: publish: Error", by the anti-entropy pass when one ran. */
static int
settle(arb_repl_t *r, unsigned ms, arb_buf_t *why)
{
    natsStatus s;
    jsErrCode  jerr;
    size_t     out;
    int        dup_only;

    pthread_mutex_lock(&r->mu);
    r->wave_failed = 0;         /* so that the wait goes on */
    out = wait_inflight_locked(r, ms);
    pthread_mutex_unlock(&r->mu);
    if (out > 0)
        reclaim(r);
    if (mark_holes(r) > 0) {
        pthread_mutex_lock(&r->mu);
        r->check_req = 1;
        pthread_mutex_unlock(&r->mu);
    }
    pthread_mutex_lock(&r->mu);
    dup_only = r->wave_dup && r->wave_err == NATS_OK && out == 0;
    if (!dup_only)
        r->st.errors++;
    r->resync = 1;
    r->wave_failed = 0;
    r->wave_dup = 0;
    s = r->wave_err != NATS_OK ? r->wave_err : out > 0 ? NATS_TIMEOUT
                                                       : NATS_ERR;
    jerr = r->wave_jerr;
    r->wave_err = NATS_OK;
    r->wave_jerr = 0;
    pthread_mutex_unlock(&r->mu);
    if (dup_only) {
        if (why != NULL) {
            why->len = 0;
            arb_buf_puts(why, "an event acked as a duplicate goes again "
                         "after a resync");
        }
        return ARB_EEXIST;
    }
    return arb_stream_err(s, jerr, "publish", why);
}

/* 1 when the resync's listing of the subjects' counts (or, without
 * one, the server) says the stream holds a deal message of match. */
static int
deal_held(arb_repl_t *r, const char *match)
{
    char     subj[ARB_STREAM_SUBJECT_MAX];
    uint64_t n = 0;

    return arb_stream_subject(subj, sizeof(subj), ARB_STREAM_DEAL,
                              match) == 0
           && arb__repl_count_of(r, &r->resync_counts, subj, &n, NULL) == 0
           && n > 0;
}

/* Under mu, e acked as a duplicate of stream sequence e->dup: 1 when
 * that sequence holds e (then e is acked as any other); 2 when it holds
 * another event of e's match at e's seq (another writer's: the match is
 * fenced and e refused, its sync ack answered unreplicated); 0 when it
 * holds no such event (deleted: e goes again, without its message id,
 * once a resync has compared its match with the stream), or the ARB_E*
 * code of a read that failed (e waits, the wave fails).  mu is let go
 * for the read. */
static int
dup_held_locked(arb_repl_t *r, arb_repl_ev_t *e, arb_buf_t *why)
{
    arb_stream_msg_t m;
    uint64_t         dup = e->dup;
    int              rc;

    pthread_mutex_unlock(&r->mu);
    rc = held_at(r, dup, e->match, e->seq, e->hash, &m, why);
    if (rc == 2) {
        resync_fence(r, e, &m, 0);
        arb_stream_msg_clear(&m);
    } else if (rc == 0) {
        arb_log_ev(ARB_LOG_WARN, "replicate_duplicate", NULL, "replicate: "
                   "match %s: its seq %" PRIu64 " was acked as a duplicate "
                   "of stream seq %" PRIu64 ", which does not hold it; "
                   "compared with the stream again before it goes",
                   e->match, e->seq, dup);
    }
    pthread_mutex_lock(&r->mu);
    if (rc < 0) {
        r->wave_failed = 1;
        r->wave_err = NATS_TIMEOUT;
        return rc;
    }
    e->dup = 0;
    r->dups--;
    if (rc == 1) {
        r->st.duplicates++;
        return 1;
    }
    if (rc == 2 && arb__repl_refuse_locked(r, e) == 0)
        return 2;
    /* (2 unrecorded: the next round refuses it, its match fenced.) */
    e->state = EV_NEW;
    e->no_id = 1;
    r->wave_failed = 1;
    r->wave_dup = 1;
    return rc;
}

/* Events acked as duplicates, looked up by their sequence, then opens
 * acked whose deal message goes before their seq 1; then they are
 * done.  A failed deal sends the open again (a duplicate), and the deal
 * with it.  An open the resync found in the stream sends its deal only
 * when the stream lacks it: past the duplicate window every send is a
 * copy (until 2026-12-05 each restart without its cursor published every
 * dealt match's deal once more; nats_damage.sh counts them).  Until
 * 2026-12-07 a duplicate's PubAck was taken as the stream holding the
 * event, and a sync ack of a retry whose message id another writer's
 * event (deleted since, or kept past a message arbiter did not write)
 * held was answered as replicated (tests/unit/test_repl_retry.c). */
static void
deals(arb_repl_t *r, arb_buf_t *why)
{
    size_t i, dups;

    pthread_mutex_lock(&r->mu);
    dups = r->dups;
    pthread_mutex_unlock(&r->mu);
    for (i = 0; (r->have_key || dups > 0) && i < r->nwin; i++) {
        arb_repl_ev_t *e = &r->win[i];
        int            st, found, rc = 0;

        pthread_mutex_lock(&r->mu);
        st = e->state;
        if (st == EV_ACKED && e->dup != 0) {
            rc = dup_held_locked(r, e, why);
            if (rc == 1 && !(e->seq == 0 && r->have_key))
                ev_done_locked(r, e);
            if (rc != 1 || e->state == EV_DONE)
                st = -1;
            rc = 0;
        }
        found = e->found;
        pthread_mutex_unlock(&r->mu);
        if (st != EV_ACKED || !r->have_key)
            continue;
        if (!found || !deal_held(r, e->match))
            rc = arb__repl_put_deal(r, e->match, NULL, why);
        pthread_mutex_lock(&r->mu);
        if (rc == 0) {
            ev_done_locked(r, e);
        } else {
            e->state = EV_NEW;
            r->wave_failed = 1;
            r->wave_err = NATS_TIMEOUT;
        }
        pthread_mutex_unlock(&r->mu);
    }
}

/* Publishes one event asynchronously; 0, or -1 when the publish failed
 * at once (noted for settle). */
static int
send_one(arb_repl_t *r, arb_repl_ev_t *e)
{
    jsPubOptions eo;
    natsMsg     *m = NULL;
    const void  *id;
    natsStatus   s = NATS_NO_MEMORY;
    int          expect = e->expect_none || e->expect != 0;

    if (arb_stream_ev_msg(&m, e->match, e->seq, e->hash, r->conf->recorder,
                          e->bytes, e->len) == 0) {
        if (e->no_id)   /* the dedupe window holds its id for another */
            natsMsgHeader_Delete(m, ARB_STREAM_HDR_MSGID);
        jsPubOptions_Init(&eo);
        eo.ExpectNoMessage = e->expect_none != 0;
        eo.ExpectLastSubjectSeq = e->expect;
        id = m;
        pthread_mutex_lock(&r->mu);     /* its PubAck may come at once */
        e->state = EV_SENT;
        e->msg = id;
        e->sent_ms = arb_clock_ms();
        r->inflight++;
        r->owed++;
        pthread_mutex_unlock(&r->mu);
        s = js_PublishMsgAsync(r->s->js, &m, expect ? &eo : NULL);
        if (s == NATS_OK && m == NULL) {
            e->expect = 0;      /* for this send only */
            e->expect_none = 0;
            arb__repl_pass_sent(r, e->match);
            return 0;
        }
        pthread_mutex_lock(&r->mu);
        if (m != NULL && e->state == EV_SENT && e->msg == id) {
            e->state = EV_NEW;  /* not taken: still ours */
            e->msg = NULL;
            r->inflight--;
        }
        if (m != NULL && r->owed > 0)
            r->owed--;          /* not taken: no handler call comes */
        pthread_mutex_unlock(&r->mu);
        natsMsg_Destroy(m);
    }
    pthread_mutex_lock(&r->mu);
    r->wave_failed = 1;
    r->wave_err = s != NATS_OK ? s : NATS_ERR;
    pthread_mutex_unlock(&r->mu);
    return -1;
}

/*
 * Sync mode, after a burst that went out with nothing else in flight:
 * libnats' flusher thread writes what was published only after waiting
 * 1 ms for more, and a held ack waits for all of it.  A flush writes the
 * buffer now (with a PING, whose PONG it waits for, at most 1 ms).  Done
 * for every burst flat out, the PING/PONGs and the thread's waits cost
 * 27 µs of CPU per event and raised the p99 (docs/SCALE.md), so at most
 * one in ARB_REPL_FLUSH_GAP_NS: every lone event at a venue's pace, a
 * few hundred a second at most under load.  A failed flush is left to
 * the PubAcks' timeout, as a failed publish would be.
 */
static void
lone_flush(arb_repl_t *r, size_t sent, size_t inflight)
{
    uint64_t now;

    if (r->conf->mode != ARB_REPL_SYNC || sent == 0 || inflight != sent)
        return;
    now = uv_hrtime();
    if (r->flushed_ns != 0 && now - r->flushed_ns < ARB_REPL_FLUSH_GAP_NS)
        return;
    r->flushed_ns = now;
    /* Counted first: the burst's PubAcks (and so its acks, and a stats
     * request right after them) may come before the PONG this call waits
     * for, and a count made after it lagged behind them (test_replicate
     * once saw 2 flushes for 3 lone notes on a busy machine). */
    pthread_mutex_lock(&r->mu);
    r->st.flushes++;
    pthread_mutex_unlock(&r->mu);
    (void)natsConnection_FlushTimeout(r->s->nc, 1);
}

/* Event e of a fenced match was refused: said once per run of refusals
 * of one match, not per event. */
static void
say_refused(arb_repl_t *r, const arb_repl_ev_t *e)
{
    if (strcmp(r->said_refused, e->match) == 0)
        return;
    snprintf(r->said_refused, sizeof(r->said_refused), "%s", e->match);
    arb_log_ev(ARB_LOG_WARN, "replicate_refused", NULL, "replicate: match %s "
               "is fenced: its seq %" PRIu64 " (log position %" PRIu64 ") "
               "and its later unpublished events are not published; their "
               "sync acks are answered unreplicated", e->match, e->seq,
               e->pos);
}

/* The pipeline (replicate_int.h says what it sends and when). */
int
arb__repl_pump(arb_repl_t *r, arb_repl_idset_t *checked, int resync,
               arb_buf_t *why)
{
    size_t i, k, sent = 0, inflight, nheld = 0;
    int    rc, failed, timed_out = 0, clean = 1, probe, lost;
    uint64_t disconnects;

    deals(r, why);
    pthread_mutex_lock(&r->mu);
    lost = r->fence_lost;
    failed = r->wave_failed;
    inflight = r->inflight;
    disconnects = r->st.disconnects;
    for (i = r->done_n; !failed && inflight > 0 && i < r->nwin; i++)
        if (r->win[i].state == EV_SENT) {
            /* The oldest in flight: no PubAck within timeout_ms (a
             * leader gone, a connection lost with its replies). */
            timed_out = arb_clock_ms() - r->win[i].sent_ms
                        >= (int64_t)r->conf->timeout_ms;
            if (timed_out) {
                failed = r->wave_failed = 1;
                r->wave_err = NATS_TIMEOUT;
            }
            break;
        }
    pthread_mutex_unlock(&r->mu);
    if (failed)
        return settle(r, timed_out ? 0 : r->conf->timeout_ms, why);
    if (lost)
        return 0;   /* a fork went unrecorded: nothing goes (fail closed) */
    if (hset_reset(&r->seen, r->nwin) != 0)
        return ARB_ENOMEM;
    if (checked->epoch != disconnects) {
        /* What was compared before a reconnect may have changed since (a
         * NATS node that restarted lost what it had not written; until
         * 2026-12-05 a later window then dropped events as held). */
        checked->n = 0;
        checked->epoch = disconnects;
    }
    if (resync && checked->n == 0)
        arb__repl_counts_drop(r);   /* the resync starts over: counted anew */
    for (i = 0; i < r->nwin; i++) {
        arb_repl_ev_t *e = &r->win[i];
        int            st;

        pthread_mutex_lock(&r->mu);
        st = e->state;
        /* A fenced match's events are not published over the stream's
         * other history: refused, holes included. */
        if (st == EV_NEW && r->nfence > 0
            && arb__repl_fence_find_locked(r, e->match) != NULL
            && arb__repl_refuse_locked(r, e) == 0)
            st = -1;
        pthread_mutex_unlock(&r->mu);
        if (st == -1)
            say_refused(r, e);
        if (st == EV_DONE || st == -1)
            continue;
        if (inflight >= r->conf->max_pending) {
            clean = 0;          /* not looked at */
            break;
        }
        if (e->hole || st == EV_ACKED || (st == EV_SENT && e->probe)) {
            hset_add(&r->seen, e->match);       /* its successors wait */
            nheld++;
            clean = 0;
            continue;
        }
        if (st == EV_SENT)
            continue;
        if (resync && (k = idset_find(checked, e->match, NULL)) < checked->n
            && e->seq < checked->held[k]) {
            /* Compared in an earlier window: the stream holds it (an
             * open acked for its deal is held by the next round). */
            pthread_mutex_lock(&r->mu);
            held_done_locked(r, e);
            pthread_mutex_unlock(&r->mu);
            if (e->state != EV_NEW) {
                clean &= e->state == EV_DONE;
                continue;
            }
        }
        if (nheld > 0 && hset_has(&r->seen, e->match)) {
            clean = 0;
            continue;
        }
        probe = 0;
        if (resync && idset_add(checked, e->match) == 1) {
            uint64_t held = 0;

            rc = resync_match(r, e, &held, why);
            k = idset_find(checked, e->match, NULL);
            if (k < checked->n)
                checked->held[k] = held;
            if (rc == 1) {
                idset_del(checked, e->match);   /* looked at again */
                hset_add(&r->seen, e->match);   /* held, successors too */
                nheld++;
                clean = 0;
                continue;
            }
            if (rc == 2) {                      /* fenced now */
                pthread_mutex_lock(&r->mu);
                rc = arb__repl_refuse_locked(r, e);
                pthread_mutex_unlock(&r->mu);
                if (rc == 0) {
                    say_refused(r, e);
                } else {
                    hset_add(&r->seen, e->match);
                    nheld++;
                    clean = 0;
                }
                continue;
            }
            if (rc != 0)
                return rc;
            if (e->state == EV_DONE)
                continue;
            if (e->state == EV_ACKED) {         /* its deal goes first */
                hset_add(&r->seen, e->match);
                nheld++;
                clean = 0;
                continue;
            }
            probe = 1;
            hset_add(&r->seen, e->match);
            nheld++;
            clean = 0;
        }
        if (e->seq == 0 && r->have_key) {
            hset_add(&r->seen, e->match);
            nheld++;
        }
        e->probe = probe;       /* read by the ack handler once sent */
        if (send_one(r, e) != 0)
            return settle(r, r->conf->timeout_ms, why);
        sent++;
        inflight++;
    }
    lone_flush(r, sent, inflight);
    if (resync && clean && r->read_pos >= r->resync_to) {
        /* Every match left was compared and its probe answered, and the
         * log was read on to where the stream may hold it: what comes
         * next is new to the stream. */
        pthread_mutex_lock(&r->mu);
        if (r->st.disconnects == disconnects) {   /* no reconnect since */
            checked->n = 0;
            r->resync = 0;
            arb__repl_counts_drop(r);
        }
        pthread_mutex_unlock(&r->mu);
    }
    return sent > 0;
}

int
arb__repl_quiesce(arb_repl_t *r, arb_buf_t *why)
{
    int failed;

    pthread_mutex_lock(&r->mu);
    if (wait_inflight_locked(r, r->conf->timeout_ms) > 0) {
        r->wave_failed = 1;
        r->wave_err = NATS_TIMEOUT;
    }
    pthread_mutex_unlock(&r->mu);
    deals(r, why);
    pthread_mutex_lock(&r->mu);
    failed = r->wave_failed;
    pthread_mutex_unlock(&r->mu);
    failed = failed ? settle(r, 0, why) : 0;
    advance(r);
    return failed;
}

/* Nothing was sent: waits for a commit, a PubAck that matters (a
 * failure, an open's, the in-flight limit, resync), a pass wanted or
 * a stop; at most 100 ms (what is in flight is timed out by pump).  In
 * async mode, while commits keep coming, it polls every
 * ARB_REPL_POLL_MS instead: the loop then signals nothing (a wake-up
 * per commit cost the loop thread more than its own work for the
 * commit); an event waits at most that much longer. */
static void
wait_work(arb_repl_t *r)
{
    struct timespec ts;
    int64_t         now = arb_clock_ms();
    int             poll = r->conf->mode != ARB_REPL_SYNC
                           && now < r->busy_until;
    long            ms = poll ? ARB_REPL_POLL_MS : 100;

    arb_clock_deadline(&ts, ms);
    pthread_mutex_lock(&r->mu);
    if (!poll)
        atomic_store(&r->waiting, 1);
    if (!r->stop && !r->kick && !r->check_req && !r->wave_failed
        && (atomic_load(&r->head) <= r->read_pos
            || r->nwin >= r->conf->max_pending * 2))
        pthread_cond_timedwait(&r->cv, &r->mu, &ts);
    atomic_store(&r->waiting, 0);
    r->kick = 0;
    pthread_mutex_unlock(&r->mu);
}

/* ---- the thread ------------------------------------------------------------ */

void
arb__repl_sleep(arb_repl_t *r, unsigned ms)
{
    struct timespec ts;

    arb_clock_deadline(&ts, (long)ms);
    pthread_mutex_lock(&r->mu);
    if (!r->stop)
        pthread_cond_timedwait(&r->cv, &r->mu, &ts);
    pthread_mutex_unlock(&r->mu);
}

/* DATA/replicate.pos, at most once every ARB_REPL_CURSOR_MS unless
 * forced: the cursor, the walked mark and the refused positions (at most
 * ARB_REPL_REFUSED_MAX of them; a retry of one past them is answered
 * from the fences). */
static void
save_cursor(arb_repl_t *r, int force)
{
    int64_t           t = arb_clock_ms();
    arb_repl_cursor_t c;

    if (!force && t - r->last_cursor_write_ms < ARB_REPL_CURSOR_MS)
        return;
    memset(&c, 0, sizeof(c));
    c.walked_ms = r->walked_ms;
    pthread_mutex_lock(&r->mu);
    c.published = r->st.cursor;
    c.nrefused = r->nrefused;
    if (c.nrefused > ARB_REPL_REFUSED_MAX)
        c.nrefused = ARB_REPL_REFUSED_MAX;
    if (c.nrefused > 0
        && (c.refused = malloc(c.nrefused * sizeof(*c.refused))) != NULL)
        memcpy(c.refused, r->refused, c.nrefused * sizeof(*c.refused));
    pthread_mutex_unlock(&r->mu);
    if (c.nrefused > 0 && c.refused == NULL)
        arb_log_ev(ARB_LOG_ERROR, "replicate_error", NULL, "replicate: "
                   "out of memory writing %s", r->cursor_path);
    else if (arb__repl_cursor_save(r->cursor_path, &c) != 0)
        arb_log_ev(ARB_LOG_ERROR, "replicate_error", NULL, "replicate: "
                   "cannot write %s: %s", r->cursor_path, strerror(errno));
    arb__repl_cursor_clear(&c);
    r->last_cursor_write_ms = t;
}

/* A pass failed, or the running one had to be dropped (the connection
 * or the stream lost): tried again a second later, reading what it was
 * to read.  What it repaired before may have
 * moved the subjects: the thread resyncs. */
static void
pass_failed(arb_repl_t *r, int walk, int64_t *retry_at)
{
    arb__repl_pass_drop(r);
    pthread_mutex_lock(&r->mu);
    if (walk > r->check_walk)
        r->check_walk = walk;       /* the retry reads them too */
    r->resync = 1;
    pthread_mutex_unlock(&r->mu);
    *retry_at = arb_clock_ms() + 1000;
}

static void *
thread_main(void *arg)
{
    arb_repl_t       *r = arg;
    arb_buf_t         why = ARB_BUF_INIT;
    arb_repl_idset_t  checked = { NULL, NULL, 0, 0, 0 };
    int64_t           next_check = 0, recheck = 0, next_look = 0;
    int64_t           retry_at = 0;
    size_t            undecided = 0;
    uint64_t          read_pos;
    int               rc, resync, check, walk, connected, stream_ok,
                      verified, fin, moved, resend;
    arb_repl_said_t   stream_err = { "", 0, 0 }, look_err = { "", 0, 0 },
                      pub_err = { "", 0, 0 }, check_err = { "", 0, 0 };

    for (;;) {
        pthread_mutex_lock(&r->mu);
        if (r->stop) {
            pthread_mutex_unlock(&r->mu);
            break;
        }
        connected = r->st.connected;
        stream_ok = r->st.stream_ok;
        pthread_mutex_unlock(&r->mu);
        if ((!connected || !stream_ok) && arb__repl_pass_running(r))
            pass_failed(r, r->pass.walk, &retry_at);
        if (!connected) {
            /* The window still fills: lag_ms shows the outage. */
            if (fill(r, &why) == 0) {
                pthread_mutex_lock(&r->mu);
                r->st.oldest_ms = r->nwin > r->done_n
                                  ? r->win[r->done_n].time_ms : 0;
                pthread_mutex_unlock(&r->mu);
            }
            arb__repl_sleep(r, 200);
            continue;
        }
        if (!stream_ok) {
            int      reps = 0;
            uint64_t cur;

            pthread_mutex_lock(&r->mu);     /* the ack handler moves it */
            cur = r->st.cursor;
            pthread_mutex_unlock(&r->mu);
            /* Created only by a recorder that never published to it. */
            rc = arb_stream_ensure(r->s, r->ever_ok || cur > 0
                                         ? -1 : r->conf->replicas,
                                   &reps, &why);
            if (rc != 0) {
                say_err(r, &stream_err, "stream", rc, &why);
                arb__repl_sleep(r, 1000);
                continue;
            }
            /* Said at first and after a failure that was said: a stream
             * that answers but takes no publish (no leader) is looked at
             * again every second. */
            if (!r->ever_ok || stream_err.last[0] != '\0')
                arb_log_ev(ARB_LOG_INFO, "replicate_stream", NULL,
                           "replicate: stream %s ready (%d replicas)",
                           r->s->name, reps);
            arb__repl_said_clear(&stream_err);
            stream_size_said(r);
            r->ever_ok = 1;
            pthread_mutex_lock(&r->mu);
            r->st.stream_ok = 1;
            r->check_req = 1;   /* a stream (back) in place: a full pass */
            r->resync = 1;
            pthread_mutex_unlock(&r->mu);
        }
        pthread_mutex_lock(&r->mu);
        verified = r->verified;
        pthread_mutex_unlock(&r->mu);
        if (!verified && arb_clock_ms() >= next_look) {
            /* Writes wait for it (fencing); publishing goes on when it
             * fails, and it is tried again in a second. */
            rc = arb__repl_fence_look(r, &why);
            if (rc != 0) {
                /* a match that cannot be compared is tried again every
                 * second */
                say_err(r, &look_err, "comparing with the stream", rc, &why);
                next_look = arb_clock_ms() + 1000;
            } else {
                arb__repl_said_clear(&look_err);
            }
        }
        pthread_mutex_lock(&r->mu);
        /* One pass at a time: a pass asked for while one runs waits. */
        check = !arb__repl_pass_running(r)
                && arb__repl_pass_due(arb_clock_ms(), r->check_req,
                                      r->conf->check_s > 0 ? next_check : 0,
                                      recheck, retry_at);
        walk = check ? r->check_walk : ARB_REPL_WALK_NONE;
        if (check) {
            r->check_req = 0;
            r->check_walk = 0;
            r->check_began = r->st.check_asked;
        }
        resync = r->resync;
        pthread_mutex_unlock(&r->mu);
        read_pos = r->read_pos;
        rc = fill(r, &why);
        if (rc != 0) {
            arb__repl_log_err(r, "reading the log", rc, &why);
            arb__repl_sleep(r, 1000);
            continue;
        }
        if (r->read_pos != read_pos)
            r->busy_until = arb_clock_ms() + ARB_REPL_BUSY_MS;
        pthread_mutex_lock(&r->mu);     /* lag_ms even before any ack */
        r->st.oldest_ms = r->nwin > r->done_n
                          ? r->win[r->done_n].time_ms : 0;
        pthread_mutex_unlock(&r->mu);
        /* The pass begins with nothing in flight; then it runs in
         * slices, publishing between them (replicate_pass.c). */
        rc = 0;
        fin = moved = resend = 0;
        if (check) {
            rc = arb__repl_quiesce(r, &why);
            resend = rc == ARB_EEXIST;  /* said as replicate_duplicate */
            if (rc == 0)
                rc = arb__repl_pass_begin(r, walk, &why);
        }
        if (rc == 0 && arb__repl_pass_running(r) == 1) {
            walk = r->pass.walk;
            rc = arb__repl_pass_step(r, &fin, &undecided, &moved, &why);
        }
        if (rc != 0) {
            pass_failed(r, walk, &retry_at);
            if (!arb__repl_stopping(r) && !resend)  /* else: cut short */
                say_err(r, &check_err, "anti-entropy pass", rc, &why);
        } else if (fin) {
            arb__repl_said_clear(&check_err);
            retry_at = 0;
            next_check = arb_clock_ms() + (int64_t)r->conf->check_s * 1000;
            if (next_check == 0)
                next_check = 1;
            /* Put-off repairs: looked at again soon, publishing goes on
             * meanwhile. */
            recheck = undecided > 0 ? arb_clock_ms() + 2000 : 0;
            /* A pass that repaired nothing, filled no hole and put
             * nothing off left the stream as publishing knew it: no
             * resync (until 2026-12-04 every pass made one, a
             * last-message request per match waiting, 6-18 ms of held
             * publishing a pass in sync runs at 16 tables).  A resync
             * under way starts over all the same. */
            moved |= resync;
            if (moved) {
                pthread_mutex_lock(&r->mu);
                r->resync = 1;  /* what the stream holds may have moved */
                pthread_mutex_unlock(&r->mu);
            }
        }
        if (rc != 0 || moved) {     /* (pass_failed set r->resync) */
            resync = 1;
            checked.n = 0;
        }
        if (resync && r->nwin == 0) {
            /* Caught up: the next events are new to the stream. */
            checked.n = 0;
            arb__repl_counts_drop(r);
            pthread_mutex_lock(&r->mu);
            r->resync = 0;
            pthread_mutex_unlock(&r->mu);
            resync = 0;
        }
        rc = arb__repl_pump(r, &checked, resync, &why);
        advance(r);
        save_cursor(r, 0);
        if (rc == ARB_EEXIST) {     /* an event to send again: now */
            checked.n = 0;
            continue;
        }
        if (rc < 0) {
            say_err(r, &pub_err, "publish", rc, &why);
            checked.n = 0;
            /* A pass running goes on: what was sent is busy for it, and
             * its own requests fail if the stream is electing.  (Dropped
             * here, a pass never ended while a resync's expectations kept
             * failing: the holes it was to fill held their matches.) */
            if (rc == ARB_ENOTFOUND || rc == ARB_EAGAIN) {
                /* No stream, or no leader: look at the stream again. */
                pthread_mutex_lock(&r->mu);
                r->st.stream_ok = 0;
                pthread_mutex_unlock(&r->mu);
            }
            arb__repl_sleep(r, 250);
            continue;
        }
        arb__repl_said_clear(&pub_err);
        if (rc == 0 && arb__repl_pass_running(r) != 1)
            wait_work(r);
    }
    /* What is in flight gets a moment for its PubAcks (the cursor file
     * then says more), the rest is taken back. */
    pthread_mutex_lock(&r->mu);
    wait_inflight_locked(r, 200);
    pthread_mutex_unlock(&r->mu);
    reclaim(r);
    advance(r);
    save_cursor(r, 1);
    arb__repl_pass_drop(r);
    arb__repl_counts_drop(r);
    free(checked.id);
    free(checked.held);
    arb_buf_free(&why);
    pthread_mutex_lock(&r->mu);
    r->thr_done = 1;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

int
arb__repl_thread_start(arb_repl_t *r, arb_buf_t *why)
{
    arb_stream_conf_t sc;
    arb_repl_cursor_t c;
    natsOptions      *opts = NULL;
    jsOptions         jo;
    uint64_t          cur;
    int               rc, connected;

    rc = arb__repl_cursor_load(&c, r->cursor_path, why);
    if (rc != 0)
        return rc;
    cur = c.published;
    r->walked_ms = c.walked_ms;
    r->refused = c.refused;             /* taken */
    r->nrefused = r->caprefused = c.nrefused;
    if (cur > atomic_load(&r->head)) {
        /* A store older than the cursor (restored from a copy): what the
         * stream holds beyond it is found by the passes (fencing). */
        arb_log_ev(ARB_LOG_WARN, "replicate_cursor", NULL, "replicate: "
                   "cursor %" PRIu64 " is past the log (%" PRIu64 "); "
                   "starting from the log's end", cur,
                   (uint64_t)atomic_load(&r->head));
        cur = atomic_load(&r->head);
        while (r->nrefused > 0 && r->refused[r->nrefused - 1] > cur)
            r->nrefused--;      /* positions of another log */
        r->walked_ms = 0;       /* its subjects are read again */
    }
    r->st.cursor = cur;
    r->read_pos = cur;
    r->resync_to = atomic_load(&r->head);
    r->resync = 1;
    /* The first pass reads the subjects of the matches active since the
     * last pass that read them all (every one, when none did). */
    r->check_walk = r->walked_ms > 0 ? ARB_REPL_WALK_RECENT
                                     : ARB_REPL_WALK_ALL;
    memset(&sc, 0, sizeof(sc));
    sc.urls = r->conf->urls;
    sc.stream = r->conf->stream;
    sc.creds = r->conf->credentials;
    sc.client_name = r->conf->recorder;
    sc.timeout_ms = r->conf->timeout_ms;
    sc.replicas = r->conf->replicas;
    rc = arb_stream_opts(&opts, &sc, why);
    if (rc != 0)
        return rc;
    natsOptions_SetDisconnectedCB(opts, disconnected_cb, r);
    natsOptions_SetClosedCB(opts, closed_cb, r);
    natsOptions_SetReconnectedCB(opts, connected_cb, r);
    natsOptions_SetRetryOnFailedConnect(opts, true, connected_cb, r);
    jsOptions_Init(&jo);
    jo.PublishAsync.MaxPending = (int64_t)r->conf->max_pending;
    jo.PublishAsync.AckHandler = arb__repl_ack_cb;
    jo.PublishAsync.AckHandlerClosure = r;
    jo.Wait = r->conf->timeout_ms;
    rc = arb_stream_open(&r->s, &sc, opts, &jo, why);
    natsOptions_Destroy(opts);
    if (rc != 0)
        return rc;
    /* Looked at and said under mu, as disconnected_cb says the loss: a
     * loss between the two would otherwise be overwritten, and stats
     * would say "connected" for the whole outage (ThreadSanitizer,
     * 2026-12-07). */
    pthread_mutex_lock(&r->mu);
    connected = natsConnection_Status(r->s->nc) == NATS_CONN_STATUS_CONNECTED;
    if (connected)
        r->st.connected = 1;
    pthread_mutex_unlock(&r->mu);
    if (connected) {
        arb_log_ev(ARB_LOG_INFO, "replicate_connected", NULL,
                   "replicate: connected to %s", sc.urls);
    } else {
        arb_log_ev(ARB_LOG_WARN, "replicate_disconnected", NULL,
                   "replicate: NATS (%s) not reachable yet; retrying in the "
                   "background", sc.urls);
    }
    if (pthread_create(&r->thr, NULL, thread_main, r) != 0) {
        arb_buf_puts(why, "cannot start the replication thread");
        return ARB_ENOMEM;
    }
    r->thr_started = 1;
    return 0;
}

void
arb__repl_thread_stop(arb_repl_t *r)
{
    struct timespec ts;
    size_t          i;
    int             cut;

    if (r->thr_started) {
        pthread_mutex_lock(&r->mu);
        r->stop = 1;
        pthread_cond_broadcast(&r->cv);
        pthread_mutex_unlock(&r->mu);
        /* The thread ends within ARB_REPL_STOP_MS (its last PubAcks
         * come meanwhile) unless it waits on a request to NATS, for up
         * to timeout_ms: then the connection is closed under it, which
         * answers the request at once.  What it did not publish goes
         * from the cursor at the next start. */
        arb_clock_deadline(&ts, ARB_REPL_STOP_MS);
        pthread_mutex_lock(&r->mu);
        while (!r->thr_done
               && pthread_cond_timedwait(&r->cv, &r->mu, &ts) == 0)
            ;
        cut = r->cut = !r->thr_done;
        pthread_cond_broadcast(&r->cv);
        pthread_mutex_unlock(&r->mu);
        if (cut && r->s != NULL && r->s->nc != NULL)
            natsConnection_Close(r->s->nc);
        pthread_join(r->thr, NULL);
        r->thr_started = 0;
    }
    if (r->s != NULL && r->s->nc != NULL) {
        /* Its callbacks run on threads of libnats, possibly after the
         * close returns: wait for the last one (at most 2 s) before r
         * may be freed.  closed_cb is the last of the connection's
         * (one thread, in order), but a PubAck handler runs on the reply
         * subscription's own thread, which the close does not wait for:
         * one that took its message before the close may still be on
         * its way to r->mu after closed_cb (libnats 3.4.1, js.c
         * _handleAsyncReply, sub.c natsSub_deliverMsgs).  The thread
         * took back what libnats still held (reclaim), so no new call
         * begins, and owed counts those begun. */
        natsConnection_Close(r->s->nc);
        arb_clock_deadline(&ts, 2000);
        pthread_mutex_lock(&r->mu);
        while ((!r->closed || r->owed > 0)
               && pthread_cond_timedwait(&r->cv, &r->mu, &ts) == 0)
            ;
        r->abandoned = !r->closed || r->owed > 0;
        pthread_mutex_unlock(&r->mu);
    }
    arb_stream_close(r->s);
    r->s = NULL;
    pthread_mutex_lock(&r->mu);     /* a late PubAck finds no window */
    for (i = 0; i < r->nwin; i++)
        free(r->win[i].bytes);
    free(r->win);
    r->win = NULL;
    r->nwin = r->done_n = r->inflight = 0;
    pthread_mutex_unlock(&r->mu);
    free(r->seen.slot);
    memset(&r->seen, 0, sizeof(r->seen));
    arb_store_links_free(r->links);
    r->links = NULL;
}
