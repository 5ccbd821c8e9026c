/*
 * replicate_loop.c - the loop thread's side of replication: starting and
 * stopping the thread, waking it after commits, sync-mode acks, fencing,
 * and the "replication" part of stats.
 *
 * DESIGN: in sync mode an ack leaves only once the replication cursor has
 * passed the event's position, i.e. the stream has acknowledged it (R3:
 * a quorum holds it).  The events are committed locally first, as in async
 * mode; what waits is the answer.  When the stream does not acknowledge
 * within sync_timeout_ms (an outage, a long election) the request gets an
 * "unreplicated" error naming the seq: the event IS recorded locally (a
 * retry with the same client id finds it), but the client must not take
 * it as surviving the loss of this machine.
 *
 * In async mode with max_lag the same hold bounds how far the stream may
 * fall behind the acks: an ack leaves once the stream is at most max_lag
 * events behind its position.  A stream that takes events slower than
 * the recorder acks them (flat out, on a small machine) then sets the
 * pace, and at most max_lag acknowledged events are missing from it.
 * This is back-pressure, not a promise: an ack is never refused for it.
 * A stream that is unreachable, or takes nothing for sync_timeout_ms,
 * lifts the bound (logged once): every held ack is answered then, in log
 * order, and none waits until the stream is back within max_lag, so an
 * outage costs a venue one wait at most.  max_lag_ms bounds the same in
 * time: while the oldest event the stream lacks was committed more than
 * max_lag_ms ago, every new ack waits (the acknowledged events missing
 * from the stream then span at most max_lag_ms of play).  Both may be
 * set; an ack leaves within both.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/err.h"
#include "core/mp.h"
#include "daemon/dispatch.h"
#include "daemon/log.h"
#include "daemon/replicate_int.h"
#include "daemon/server.h"

#include <sodium.h>

#define ARB_REPL_SYNC_TICK_MS 20

/* Why a held ack is answered "unreplicated". */
enum { HELD_OK = 0, HELD_TIMEOUT, HELD_REFUSED, HELD_STOP };

/* Answers held ack i (ok, or "unreplicated" saying why), frees it and,
 * when it was the last held of a closed match, that match.  Does not
 * touch r->held: the caller compacts it. */
static void
release_one(arb_server_t *srv, arb_repl_t *r, size_t i, int why,
            uint64_t cursor)
{
    arb_pending_t *p = r->held[i];
    arb_live_t    *l = p->live;
    char           msg[512];

    if (why == HELD_OK) {
        arb_commit_ack(srv, p);
    } else if (why == HELD_REFUSED) {
        snprintf(msg, sizeof(msg), "match %s seq %" PRIu64 " is committed "
                 "locally but will not be replicated: the stream holds "
                 "another history of this match (it is fenced; see the "
                 "recorder's log); retry with the same client id once the "
                 "stream is repaired", l->id, p->ap.seq);
        arb_commit_refuse(srv, p, "unreplicated", msg);
    } else {
        char when[64];

        if (why == HELD_STOP)
            snprintf(when, sizeof(when), "before the recorder stopped");
        else
            snprintf(when, sizeof(when), "within %u ms",
                     r->conf->sync_timeout_ms);
        snprintf(msg, sizeof(msg), "match %s seq %" PRIu64 " is committed "
                 "locally but the stream has not acknowledged it %s "
                 "(replicated up to position %" PRIu64 ", this event is %"
                 PRIu64 "); retry with the same client id", l->id,
                 p->ap.seq, when, cursor, p->ap.pos);
        arb_commit_refuse(srv, p, "unreplicated", msg);
    }
    arb_pending_free(p);
    r->held[i] = NULL;
    if (--l->nheld == 0 && l->closed)
        arb_live_release(srv, l);
}

/* Drops the answered (NULL) entries of r->held, keeping the order. */
static void
held_compact(arb_repl_t *r)
{
    size_t i, k = 0;

    for (i = 0; i < r->nheld; i++)
        if (r->held[i] != NULL) {
            r->held[k] = r->held[i];
            r->held_t[k] = r->held_t[i];
            k++;
        }
    r->nheld = k;
}

/* Under mu: whether a held ack the cursor has passed is refused: one of
 * its positions was (the range of a group is its own), or, for a retry,
 * its match is fenced (its event may have been refused by an earlier
 * run of the recorder). */
static int
held_refused_locked(const arb_repl_t *r, const arb_pending_t *p)
{
    return arb__repl_refused_locked(r, p->ap.pos, p->ack_pos)
           || (p->retry && r->nfence > 0
               && arb__repl_fence_find_locked(r, p->live->id) != NULL);
}

/* The bound as the configuration says it, for the log. */
static const char *
bound_text(const arb_repl_t *r, char *buf, size_t cap)
{
    int n = 0;

    buf[0] = '\0';
    if (r->conf->max_lag > 0)
        n = snprintf(buf, cap, "max_lag = %" PRIu64 " events",
                     r->conf->max_lag);
    if (r->conf->max_lag_ms > 0 && n >= 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, "%smax_lag_ms = %u",
                 n > 0 ? " and " : "", r->conf->max_lag_ms);
    return buf;
}

/* How long ago (ms) the oldest event the stream lacks was committed: 0
 * when it lacks none. */
static int64_t
lag_ms_of(const arb_repl_stats_t *s, uint64_t head)
{
    int64_t lag = 0;

    if (s->oldest_ms > 0 && head > s->cursor)
        lag = arb_now_ms() - s->oldest_ms;
    return lag > 0 ? lag : 0;
}

/* Under mu: 1 when the stream is behind by more than max_lag_ms. */
static int
late_locked(arb_repl_t *r)
{
    return r->conf->max_lag_ms > 0
           && lag_ms_of(&r->st, atomic_load(&r->head))
              > (int64_t)r->conf->max_lag_ms;
}

/* async mode, max_lag or max_lag_ms: the bound is lifted (why) until
 * the stream is back within it; said once. */
static void
bound_lift(arb_repl_t *r, const char *why, uint64_t cursor)
{
    char b[96];

    if (r->bound_off)
        return;
    r->bound_off = 1;
    arb_log_ev(ARB_LOG_WARN, "replicate_lag_bound", NULL, "replicate: %s "
               "(published up to position %" PRIu64 "): acks no longer "
               "wait for it until it is back within %s", why, cursor,
               bound_text(r, b, sizeof(b)));
}

/* Async mode with max_lag or max_lag_ms: answers (as acks, fenced or
 * not) the held acks the stream is now within the bound of, in log
 * order (none while it is more than max_lag_ms behind); every one once
 * the bound is lifted: the stream unreachable, or (with timeouts) one
 * held for sync_timeout_ms. */
static void
drain_bound(arb_server_t *srv, int timeouts)
{
    arb_repl_t *r = srv->repl;
    uint64_t    cursor, now = uv_now(srv->loop);
    uint64_t    within = UINT64_MAX;
    size_t      i, n, late = 0;
    int         gone, behind;

    pthread_mutex_lock(&r->mu);
    cursor = r->st.cursor;
    gone = !r->st.connected || !r->st.stream_ok;
    behind = late_locked(r);
    pthread_mutex_unlock(&r->mu);
    if (r->conf->max_lag > 0)
        within = cursor + r->conf->max_lag;
    if (gone)
        bound_lift(r, "the stream is unreachable", cursor);
    for (i = 0; timeouts && i < r->nheld; i++)
        late += now - r->held_t[i] >= r->conf->sync_timeout_ms;
    if (late > 0) {
        char why[96];

        snprintf(why, sizeof(why), "the stream took nothing within "
                 "sync_timeout_ms = %u", r->conf->sync_timeout_ms);
        bound_lift(r, why, cursor);
        r->lag_timeouts += late;
    }
    /* Held in log order (no retry is held in async mode): the first one
     * still past the bound keeps the rest. */
    for (n = 0; n < r->nheld; n++) {
        if (!r->bound_off && (behind || r->held[n]->ack_pos > within))
            break;
        release_one(srv, r, n, HELD_OK, cursor);
    }
    if (n > 0)
        held_compact(r);
    if (r->nheld == 0)
        atomic_store(&r->holding, 0);
}

/* Answers every held ack the cursor has passed (they are held in log
 * order, but a retry joins at the end with an older position); with
 * timeouts, also those held for sync_timeout_ms. */
static void
drain(arb_server_t *srv, int timeouts)
{
    arb_repl_t *r = srv->repl;
    uint64_t    cursor, now = uv_now(srv->loop);
    size_t      i, n = 0, late = 0;
    char       *refused;

    if (r->nheld == 0)
        return;
    if (r->conf->mode != ARB_REPL_SYNC) {
        drain_bound(srv, timeouts);
        return;
    }
    refused = calloc(r->nheld, 1);
    pthread_mutex_lock(&r->mu);
    cursor = r->st.cursor;
    for (i = 0; refused != NULL && i < r->nheld; i++)
        if (r->held[i]->ack_pos <= cursor)
            refused[i] = (char)(1 + held_refused_locked(r, r->held[i]));
    pthread_mutex_unlock(&r->mu);
    if (refused == NULL) {
        /* Out of memory: the acks wait for the next drain, or their
         * timeout. */
        arb_log(ARB_LOG_ERROR, "out of memory answering sync acks");
    }
    for (i = 0; refused != NULL && i < r->nheld; i++)
        if (refused[i] != 0) {
            release_one(srv, r, i, refused[i] == 1 ? HELD_OK : HELD_REFUSED,
                        cursor);
            n++;
        }
    free(refused);
    for (i = 0; timeouts && i < r->nheld; i++)
        if (r->held[i] != NULL
            && now - r->held_t[i] >= r->conf->sync_timeout_ms) {
            release_one(srv, r, i, HELD_TIMEOUT, cursor);
            late++;
        }
    if (late > 0) {
        arb_log_ev(ARB_LOG_WARN, "replicate_sync_timeout", NULL,
                   "replicate: %zu acks refused as unreplicated (stream "
                   "acknowledged up to position %" PRIu64 ")", late, cursor);
        pthread_mutex_lock(&r->mu);
        r->st.sync_timeouts += late;
        pthread_mutex_unlock(&r->mu);
    }
    if (n > 0 || late > 0)
        held_compact(r);
}

static void
async_cb(uv_async_t *a)
{
    drain(a->data, 0);
}

static void
timer_cb(uv_timer_t *t)
{
    arb_server_t *srv = t->data;

    drain(srv, 1);
    if (srv->repl->nheld == 0)
        uv_timer_stop(t);
}

void
arb__repl_wake_loop(arb_repl_t *r)
{
    /* (Async acks held by max_lag: the loop's 20 ms tick drains them
     * too, should this miss a hold that is just beginning.) */
    if (r->conf->mode == ARB_REPL_SYNC || atomic_load(&r->holding))
        uv_async_send(&r->async);
}

/* At start, before the loop runs: up to timeout_ms for the look, in
 * slices of 50 ms so that a stop asked for meanwhile cuts it short. */
void
arb__repl_wait_verified(arb_repl_t *r)
{
    atomic_int      *asked = r->srv != NULL ? r->srv->stop_asked : NULL;
    int64_t          until = arb_clock_ms() + r->conf->timeout_ms;
    struct timespec  ts;

    pthread_mutex_lock(&r->mu);
    while (!r->verified && (asked == NULL || atomic_load(asked) == 0)) {
        int64_t left = until - arb_clock_ms();

        if (left <= 0)
            break;
        arb_clock_deadline(&ts, left < 50 ? (long)left : 50L);
        pthread_cond_timedwait(&r->cv, &r->mu, &ts);
    }
    pthread_mutex_unlock(&r->mu);
}

int
arb_repl_start(arb_server_t *srv)
{
    arb_repl_t       *r;
    arb_store_stats_t st;
    arb_buf_t         why = ARB_BUF_INIT;
    int               rc;

    if (srv->cfg.repl.urls == NULL)
        return 0;
    r = calloc(1, sizeof(*r));
    if (r == NULL)
        return -1;
    r->srv = srv;
    r->store = srv->store;
    r->conf = &srv->cfg.repl;
    pthread_mutex_init(&r->mu, NULL);
    arb_cond_init(&r->cv);
    srv->repl = r;
    snprintf(r->cursor_path, sizeof(r->cursor_path), "%s/"
             ARB_STREAM_CURSOR_FILE, srv->cfg.data);
    if (getenv("ARBITERD_WALK_DROP") != NULL)
        r->walk_drop = strcmp(getenv("ARBITERD_WALK_DROP"), "last") == 0
                       ? ARB_REPL_WALK_DROP_LAST
                       : strtoull(getenv("ARBITERD_WALK_DROP"), NULL, 10);
    if (r->conf->secret_key_file != NULL) {
        rc = arb_stream_key_load(r->key, r->conf->secret_key_file, &why);
        if (rc != 0)
            goto fail;
        r->have_key = 1;
    }
    if (arb_store_stats(srv->store, &st, &why) != 0) {
        rc = ARB_ESTORE;
        goto fail;
    }
    r->st.head = st.log_pos;
    atomic_store(&r->head, st.log_pos);
    if (uv_async_init(srv->loop, &r->async, async_cb) != 0
        || uv_timer_init(srv->loop, &r->timer) != 0) {
        arb_buf_puts(&why, "cannot make the loop handles");
        rc = ARB_ENOMEM;
        goto fail;
    }
    r->async.data = r->timer.data = srv;
    r->async_init = r->timer_init = 1;
    rc = arb__repl_thread_start(r, &why);
    if (rc != 0)
        goto fail;
    arb__repl_wait_verified(r);
    arb_log_ev(ARB_LOG_INFO, "replicate_start", NULL, "replicate: recorder "
               "%s to stream %s (%s mode), from position %" PRIu64,
               r->conf->recorder,
               r->conf->stream ? r->conf->stream : ARB_STREAM_NAME_DEFAULT,
               r->conf->mode == ARB_REPL_SYNC ? "sync" : "async",
               r->st.cursor);
    arb_buf_free(&why);
    return 0;

fail:
    arb_log_ev(ARB_LOG_ERROR, "replicate_error", NULL, "replicate: %s",
               arb_buf_cstr(&why));
    arb_buf_free(&why);
    arb_repl_stop(srv);
    return -1;
}

static void
free_cb(uv_handle_t *h)
{
    (void)h;
}

void
arb_repl_stop(arb_server_t *srv)
{
    arb_repl_t *r = srv->repl;
    size_t      i;

    if (r == NULL)
        return;
    arb__repl_thread_stop(r);
    /* Acks still held are answered: a clean stop has the stream's word
     * for none of them (async ones held by max_lag are acks). */
    for (i = 0; i < r->nheld; i++)
        release_one(srv, r, i, r->conf->mode == ARB_REPL_SYNC ? HELD_STOP
                                                               : HELD_OK,
                    r->st.cursor);
    r->nheld = 0;
    if (r->async_init)
        uv_close((uv_handle_t *)&r->async, free_cb);
    if (r->timer_init)
        uv_close((uv_handle_t *)&r->timer, free_cb);
    r->async_init = r->timer_init = 0;
    sodium_memzero(r->key, sizeof(r->key));
    /* The handles' close callbacks run at the next loop turn; the struct
     * is freed by arb_repl_free once the loop has run them. */
}

void
arb_repl_free(arb_server_t *srv)
{
    arb_repl_t *r = srv->repl;

    if (r == NULL)
        return;
    srv->repl = NULL;
    if (r->abandoned) {
        /* Stopping anyway: a few KiB left to the exit, not a callback
         * into freed memory. */
        arb_log(ARB_LOG_WARN, "replicate: within 2 s, NATS did not "
                "confirm the connection's close or a PubAck being "
                "delivered did not end; its memory is left");
        return;
    }
    arb__repl_mem_free(r);
}

void
arb__repl_mem_free(arb_repl_t *r)
{
    free(r->held);
    free(r->held_t);
    free(r->fence);
    free(r->refused);
    arb__repl_look_free(r);
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv);
    free(r);
}

void
arb_repl_committed(arb_server_t *srv, uint64_t pos)
{
    arb_repl_t *r = srv->repl;

    if (r == NULL)
        return;
    if (pos > atomic_load_explicit(&r->head, memory_order_relaxed))
        atomic_store(&r->head, pos);
    /* After the store: a thread that is about to sleep sets waiting
     * first and reads head then, so one of the two sees the other. */
    if (atomic_load(&r->waiting)) {
        pthread_mutex_lock(&r->mu);
        pthread_cond_broadcast(&r->cv);
        pthread_mutex_unlock(&r->mu);
    }
}

int
arb_repl_sync(const arb_server_t *srv)
{
    return srv->repl != NULL && srv->repl->thr_started
           && srv->repl->conf->mode == ARB_REPL_SYNC;
}

uint64_t
arb_repl_hold_above(arb_server_t *srv)
{
    arb_repl_t *r = srv->repl;
    uint64_t    cursor, within;
    char        b[96];
    int         ok, behind;

    if (r == NULL || !r->thr_started)
        return UINT64_MAX;
    if (r->conf->mode == ARB_REPL_SYNC)
        return 0;
    if (r->conf->max_lag == 0 && r->conf->max_lag_ms == 0)
        return UINT64_MAX;
    if (r->nheld > 0)
        return 0;       /* behind those held: acks leave in order */
    pthread_mutex_lock(&r->mu);
    cursor = r->st.cursor;
    ok = r->st.connected && r->st.stream_ok;
    behind = late_locked(r);
    pthread_mutex_unlock(&r->mu);
    within = r->conf->max_lag > 0 ? cursor + r->conf->max_lag : UINT64_MAX;
    if (!ok) {
        /* Lifted until the stream has taken what piled up meanwhile: a
         * reconnect must not stall the acks for the backlog. */
        bound_lift(r, "the stream is unreachable", cursor);
        return UINT64_MAX;
    }
    if (r->bound_off) {
        if (behind || atomic_load(&r->head) > within)
            return UINT64_MAX;
        r->bound_off = 0;
        arb_log_ev(ARB_LOG_INFO, "replicate_lag_bound", NULL, "replicate: "
                   "the stream is back within %s (published up to "
                   "position %" PRIu64 "): acks wait for it again when it "
                   "falls behind", bound_text(r, b, sizeof(b)), cursor);
    }
    return behind ? cursor : within;
}

void
arb_repl_hold(arb_server_t *srv, arb_pending_t *p)
{
    arb_repl_t *r = srv->repl;

    if (r->nheld == r->capheld) {
        size_t          cap = r->capheld ? r->capheld * 2 : 256;
        arb_pending_t **nh = realloc(r->held, cap * sizeof(*nh));
        uint64_t       *nt;

        if (nh == NULL) {
            arb_log(ARB_LOG_ERROR, "out of memory holding a sync ack");
            abort();
        }
        r->held = nh;
        nt = realloc(r->held_t, cap * sizeof(*nt));
        if (nt == NULL) {
            arb_log(ARB_LOG_ERROR, "out of memory holding a sync ack");
            abort();
        }
        r->held_t = nt;
        r->capheld = cap;
    }
    r->held[r->nheld] = p;
    r->held_t[r->nheld] = uv_now(srv->loop);
    r->nheld++;
    p->live->nheld++;       /* its match stays while this points at it */
    if (r->conf->mode != ARB_REPL_SYNC) {
        r->lag_holds++;
        atomic_store(&r->holding, 1);
        /* The cursor may have moved already: looked at again at once. */
        uv_async_send(&r->async);
    }
    if (!uv_is_active((uv_handle_t *)&r->timer))
        uv_timer_start(&r->timer, timer_cb, ARB_REPL_SYNC_TICK_MS,
                       ARB_REPL_SYNC_TICK_MS);
}

int
arb_repl_hold_retry(arb_server_t *srv, arb_live_t *l, uint64_t seq,
                    uint64_t pos, const unsigned char *hash, arb_conn_t *c,
                    uint64_t req)
{
    arb_repl_t    *r = srv->repl;
    arb_pending_t *p;
    uint64_t       cursor;
    int            refused;

    if (!arb_repl_sync(srv))
        return 0;
    pthread_mutex_lock(&r->mu);
    cursor = r->st.cursor;
    refused = arb__repl_refused_locked(r, pos, pos)
              || (r->nfence > 0 && arb__repl_fence_find_locked(r, l->id));
    pthread_mutex_unlock(&r->mu);
    if (pos <= cursor && !refused)
        return 0;
    p = arb_pending_new();
    if (p == NULL)
        return 0;           /* answered at once: out of memory */
    p->live = l;
    p->ap.seq = seq;
    p->ap.pos = pos;
    p->ack_pos = pos;
    memcpy(p->ap.hash, hash, ARB_HASH_LEN);
    p->retry = 1;
    arb_commit_wait(p, c, req);
    arb_repl_hold(srv, p);
    if (pos <= cursor)
        uv_async_send(&r->async);   /* refused: answered at once */
    return 1;
}

uint64_t
arb_repl_check_now(arb_server_t *srv)
{
    arb_repl_t *r = srv->repl;
    uint64_t    n;

    if (r == NULL)
        return 0;
    pthread_mutex_lock(&r->mu);
    r->check_req = 1;
    r->check_walk = ARB_REPL_WALK_ALL;
    n = ++r->st.check_asked;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    return n;
}

const char *
arb_repl_fenced(arb_server_t *srv, const char *id, arb_buf_t *why)
{
    arb_repl_t *r = srv->repl;
    const arb_repl_fence_t *f;
    const char             *code = NULL;

    if (r == NULL)
        return NULL;
    pthread_mutex_lock(&r->mu);
    if (!r->verified && !arb__repl_look_judged(r, id)) {
        code = "unverified";
        if (why != NULL) {
            why->len = 0;
            arb_buf_printf(why, "match '%s': this recorder has not compared "
                           "it with the stream since it started (%s); "
                           "nothing was written, retry", id,
                           !r->st.connected ? "NATS unreachable"
                           : r->listed ? "its turn has not come, or its "
                                         "subject ends with messages "
                                         "arbiter did not write"
                           : "the stream does not answer yet");
        }
    }
    if (code == NULL && r->fence_lost) {
        code = "fenced";
        if (why != NULL) {
            why->len = 0;
            arb_buf_printf(why, "match '%s': this recorder ran out of "
                           "memory recording a fork it found in the "
                           "stream, and refuses every write until it is "
                           "restarted", id);
        }
    }
    f = code != NULL ? NULL : arb__repl_fence_find_locked(r, id);
    if (f != NULL) {
        code = "fenced";
        if (why != NULL && f->local_seq == UINT64_MAX) {
            why->len = 0;
            arb_buf_printf(why, "match '%s' is fenced: the stream holds "
                           "events of it up to seq %" PRIu64 " at least "
                           "and this recorder's log none (its log is "
                           "older or lost it; restore from the stream "
                           "first)", id, f->stream_seq);
        } else if (why != NULL && f->stream_seq <= f->local_seq) {
            why->len = 0;
            arb_buf_printf(why, "match '%s' is fenced: the stream's seq %"
                           PRIu64 " is not this recorder's (another "
                           "recorder wrote it, or the stream was "
                           "damaged; compare them with arbiter restore "
                           "before writing)", id, f->stream_seq);
        } else if (why != NULL) {
            why->len = 0;
            arb_buf_printf(why, "match '%s' is fenced: the stream holds "
                           "seq %" PRIu64 " and this recorder's log "
                           "ends at %" PRIu64 " (another recorder or a "
                           "newer copy wrote it; restore from the "
                           "stream first)", id, f->stream_seq,
                           f->local_seq);
        }
    }
    pthread_mutex_unlock(&r->mu);
    return code;
}

/* The counters now, whether the look before writes is done, and the lag:
 * how old the oldest unpublished event is. */
static void
repl_snapshot(arb_repl_t *r, arb_repl_stats_t *s, int64_t *lag_ms,
              int *verified)
{
    pthread_mutex_lock(&r->mu);
    *s = r->st;
    *verified = r->verified;
    pthread_mutex_unlock(&r->mu);
    s->head = atomic_load(&r->head);
    *lag_ms = lag_ms_of(s, s->head);
}

int
arb_repl_figures(arb_server_t *srv, arb_repl_figures_t *f)
{
    arb_repl_stats_t s;

    memset(f, 0, sizeof(*f));
    if (srv->repl == NULL)
        return 0;
    repl_snapshot(srv->repl, &s, &f->lag_ms, &f->verified);
    f->connected = s.connected;
    f->stream_ok = s.stream_ok;
    f->lag_events = s.head > s.cursor ? s.head - s.cursor : 0;
    f->published = s.published;
    f->republished = s.republished;
    f->deals_republished = s.deals_republished;
    f->errors = s.errors;
    f->disconnects = s.disconnects;
    f->missing = s.missing;
    f->diverged = s.diverged;
    f->ahead = s.ahead;
    f->refused = s.refused;
    f->sync_timeouts = s.sync_timeouts;
    f->checks = s.checks;
    f->undecided = s.undecided;
    f->held = srv->repl->nheld;         /* [loop]: /metrics runs there */
    f->lag_holds = srv->repl->lag_holds;
    f->lag_timeouts = srv->repl->lag_timeouts;
    return 1;
}

void
arb_repl_stats_pack(arb_server_t *srv, msgpack_packer *pk)
{
    arb_repl_t      *r = srv->repl;
    arb_repl_stats_t s;
    int64_t          lag_ms;
    int              verified;

    arb_mp_pack_cstr(pk, "replication");
    if (r == NULL) {
        msgpack_pack_nil(pk);
        return;
    }
    repl_snapshot(r, &s, &lag_ms, &verified);
    msgpack_pack_map(pk, 36);
    arb_mp_pack_kv_str(pk, "mode", r->conf->mode == ARB_REPL_SYNC ? "sync"
                                                                 : "async");
    arb_mp_pack_kv_str(pk, "recorder", r->conf->recorder);
    arb_mp_pack_kv_bool(pk, "connected", s.connected);
    arb_mp_pack_kv_bool(pk, "stream_ok", s.stream_ok);
    arb_mp_pack_kv_bool(pk, "verified", verified);
    arb_mp_pack_kv_uint(pk, "published_pos", s.cursor);
    arb_mp_pack_kv_uint(pk, "lag_events", s.head > s.cursor
                                          ? s.head - s.cursor : 0);
    arb_mp_pack_kv_int(pk, "lag_ms", lag_ms);
    arb_mp_pack_kv_uint(pk, "published", s.published);
    arb_mp_pack_kv_uint(pk, "duplicates", s.duplicates);
    arb_mp_pack_kv_uint(pk, "republished", s.republished);
    arb_mp_pack_kv_uint(pk, "deals_republished", s.deals_republished);
    arb_mp_pack_kv_uint(pk, "errors", s.errors);
    arb_mp_pack_kv_uint(pk, "disconnects", s.disconnects);
    arb_mp_pack_kv_uint(pk, "checks", s.checks);
    arb_mp_pack_kv_uint(pk, "missing", s.missing);
    arb_mp_pack_kv_uint(pk, "diverged", s.diverged);
    arb_mp_pack_kv_uint(pk, "ahead", s.ahead);
    arb_mp_pack_kv_uint(pk, "sync_timeouts", s.sync_timeouts);
    arb_mp_pack_kv_uint(pk, "flushes", s.flushes);
    arb_mp_pack_kv_uint(pk, "resync_looks", s.resync_looks);
    arb_mp_pack_kv_uint(pk, "undecided", s.undecided);
    arb_mp_pack_kv_uint(pk, "refused", s.refused);
    arb_mp_pack_kv_uint(pk, "held", r->nheld);
    arb_mp_pack_kv_uint(pk, "max_lag", r->conf->max_lag);
    arb_mp_pack_kv_uint(pk, "max_lag_ms", r->conf->max_lag_ms);
    arb_mp_pack_kv_uint(pk, "lag_holds", r->lag_holds);
    arb_mp_pack_kv_uint(pk, "lag_timeouts", r->lag_timeouts);
    arb_mp_pack_kv_uint(pk, "check_asked", s.check_asked);
    arb_mp_pack_kv_uint(pk, "check_done", s.check_done);
    arb_mp_pack_kv_uint(pk, "last_matches", s.last_matches);
    arb_mp_pack_kv_uint(pk, "last_repaired", s.last_repaired);
    arb_mp_pack_kv_uint(pk, "last_put_off", s.last_put_off);
    arb_mp_pack_kv_uint(pk, "last_read", s.last_read);
    arb_mp_pack_kv_uint(pk, "last_counted", s.last_counted);
    arb_mp_pack_kv_uint(pk, "last_busy", s.last_busy);
}

/* {"op":"replicate"}: an anti-entropy pass now (arbiter role).  The
 * answer says the pass was asked for, with its number: the pass has run
 * once stats.replication.check_done reaches it, and last_* are then its
 * findings (they also go to the log and the counters). */
void
arb_op_replicate(arb_request_t *r)
{
    arb_server_t  *srv = r->c->srv;
    arb_buf_t      b = ARB_BUF_INIT;
    msgpack_packer pk;
    uint64_t       ticket;

    if (srv->repl == NULL) {
        arb_reply_error(r->c, r->id, "unsupported", NULL, "replication is "
                        "off: no [replicate] urls in the configuration");
        return;
    }
    ticket = arb_repl_check_now(srv);
    arb_reply_begin(&b, &pk, r->id, 2);
    arb_mp_pack_kv_bool(&pk, "check", 1);
    arb_mp_pack_kv_uint(&pk, "ticket", ticket);
    arb_conn_send(r->c, &b);
}
