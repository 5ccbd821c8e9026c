/*
 * replicate_fence.c - fencing: what the stream holds past the recorder's
 * own log, and the look that finds it before the first write.
 *
 * DESIGN: a match whose subject holds events past the local log (a
 * restored or stale copy of this recorder, or a second recorder writing
 * the same ids) must refuse every write, or the recorder forks it.  The
 * passes (replicate_check.c) find such matches as they go; before the
 * first write after a start, arb__repl_fence_look compares every match's
 * last message with the log (and the stream's subjects with the matches
 * the log holds) and fences what the stream has past it: a pass, with its
 * 2-second second look, would come too late for a write made right after
 * the start.  It is judged per match: a match's writes wait only for that
 * match's comparison (most recent activity first), an open of an id the
 * log lacks only for the subject list (docs/SCALE.md, "Fencing").
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "daemon/log.h"
#include "daemon/replicate_int.h"
#include "proto/stream_read.h"

/* Under mu: where id is or would go in the sorted fence table. */
static size_t
fence_lower(const arb_repl_t *r, const char *id)
{
    size_t lo = 0, hi = r->nfence;

    while (lo < hi) {
        size_t mid = (lo + hi) / 2;

        if (strcmp(r->fence[mid].match, id) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const arb_repl_fence_t *
arb__repl_fence_find_locked(const arb_repl_t *r, const char *id)
{
    size_t i = fence_lower(r, id);

    return i < r->nfence && strcmp(r->fence[i].match, id) == 0
           ? &r->fence[i] : NULL;
}

void
arb__repl_forked(arb_repl_t *r, const char *match, int ahead,
                 uint64_t stream_seq, uint64_t local_seq, const char *fmt,
                 ...)
{
    char    msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    arb_log_ev(ARB_LOG_ERROR, ahead ? "replicate_ahead" : "replicate_diverged",
               NULL, "replicate: match %s: %s", match, msg);
    pthread_mutex_lock(&r->mu);
    if (ahead)
        r->st.ahead++;
    else
        r->st.diverged++;
    pthread_mutex_unlock(&r->mu);
    arb__repl_fence_set(r, match, stream_seq, local_seq);
}

void
arb__repl_fence_set(arb_repl_t *r, const char *match, uint64_t stream_seq,
                    uint64_t local_seq)
{
    size_t i;

    pthread_mutex_lock(&r->mu);
    i = fence_lower(r, match);
    if (i < r->nfence && strcmp(r->fence[i].match, match) == 0) {
        r->fence[i].stream_seq = stream_seq;
        r->fence[i].local_seq = local_seq;
        pthread_mutex_unlock(&r->mu);
        return;
    }
    if (r->nfence == r->capfence) {
        size_t            cap = r->capfence ? r->capfence * 2 : 16;
        arb_repl_fence_t *nf = realloc(r->fence, cap * sizeof(*nf));

        if (nf == NULL) {
            /* Fail closed: a fork not recorded must not let writes or
             * publishes through to it; the next start looks again. */
            int said = r->fence_lost;

            r->fence_lost = 1;
            pthread_mutex_unlock(&r->mu);
            if (!said)
                arb_log_ev(ARB_LOG_ERROR, "replicate_error", NULL,
                           "replicate: out of memory recording the fence "
                           "of match %s: every write is refused and "
                           "nothing is published until a restart", match);
            return;
        }
        r->fence = nf;
        r->capfence = cap;
    }
    memmove(&r->fence[i + 1], &r->fence[i],
            (r->nfence - i) * sizeof(*r->fence));
    snprintf(r->fence[i].match, sizeof(r->fence[i].match), "%s", match);
    r->fence[i].stream_seq = stream_seq;
    r->fence[i].local_seq = local_seq;
    r->nfence++;
    pthread_mutex_unlock(&r->mu);
}

/* ---- the fence look: before the first write ------------------------------ */

typedef struct {
    arb_repl_t            *r;
    size_t                 fenced;
    const arb_repl_list_t *l;           /* the log's matches */
    unsigned char         *looked;      /* per entry of l */
    size_t                 counted;     /* judged by their count */
    arb_buf_t             *why;
} look_t;

size_t
arb__repl_look_counted(const arb_repl_list_t *l, const char *subject,
                       uint64_t msgs)
{
    char   id[ARB_STREAM_ID_MAX + 1];
    size_t i;

    if (msgs == 0
        || arb_stream_subject_parse(subject, id, sizeof(id)) != ARB_STREAM_EV)
        return SIZE_MAX;
    i = arb__repl_list_find(l, id);
    return i < l->n && l->last[i] != UINT64_MAX && msgs == l->last[i] + 1
           ? i : SIZE_MAX;
}

/* A subject of the stream: when it holds one message per seq of its
 * match in the log, the match is taken as compared (the stream cannot
 * hold seqs past the log without holding more messages, unless it also
 * lost as many before them; the look would otherwise ask every match's
 * last message, 2.5 ms each on a stream of 100,000 subjects, while
 * writes to the matches not yet asked are refused).  When its match is
 * one this recorder owns but does not hold (its log lost the match, or
 * is an older copy), an open would fork it: fenced. */
static int
look_subject_cb(void *ud, const char *subject, uint64_t msgs)
{
    look_t          *k = ud;
    arb_match_info_t info;
    char             id[ARB_STREAM_ID_MAX + 1];
    size_t           i = arb__repl_look_counted(k->l, subject, msgs);
    int              fenced;

    if (i != SIZE_MAX) {
        k->looked[i] = 1;
        k->counted++;
        return 0;
    }
    if (msgs == 0
        || arb_stream_subject_parse(subject, id, sizeof(id)) != ARB_STREAM_EV
        || arb_repl_owner(k->r->conf, id) != NULL
        || arb_store_match(k->r->store, id, &info, NULL) != ARB_ENOTFOUND)
        return 0;
    /* Fenced by a listing that failed after it, which this one retries:
     * said and counted then. */
    pthread_mutex_lock(&k->r->mu);
    fenced = arb__repl_fence_find_locked(k->r, id) != NULL;
    pthread_mutex_unlock(&k->r->mu);
    if (fenced)
        return 0;
    arb_log_ev(ARB_LOG_ERROR, "replicate_ahead", NULL, "replicate: match "
               "%s: the stream holds %" PRIu64 " events of it and the log "
               "none; opening it is refused", id, msgs);
    arb__repl_fence_set(k->r, id, msgs - 1, UINT64_MAX);
    k->fenced++;
    return 0;
}

int
arb__repl_look_judged(const arb_repl_t *r, const char *id)
{
    size_t i;

    if (!r->listed)
        return 0;
    i = arb__repl_list_find(&r->look, id);
    /* not in the log when the look began: listed */
    return i == r->look.n || r->looked[i] == 1;
}

void
arb__repl_look_free(arb_repl_t *r)
{
    arb__repl_list_free(&r->look);
    free(r->looked);
    r->looked = NULL;
}

/* The look's order: the most recent activity first (a table in play is
 * compared before an old match), then by id. */
static const arb_repl_list_t *recent_l;

static int
recent_cmp(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;

    if (recent_l->last_ms[x] != recent_l->last_ms[y])
        return recent_l->last_ms[x] > recent_l->last_ms[y] ? -1 : 1;
    return (x > y) - (x < y);           /* the list is sorted by id */
}

size_t *
arb__repl_look_order(const arb_repl_list_t *l)
{
    size_t *order = malloc((l->n + 1) * sizeof(*order));
    size_t  i;

    if (order == NULL)
        return NULL;
    for (i = 0; i < l->n; i++)
        order[i] = i;
    recent_l = l;
    qsort(order, l->n, sizeof(*order), recent_cmp);
    return order;
}

/* Lists the log's matches and reads the stream's subjects (fencing an
 * open of what only the stream holds), then publishes the list: from
 * then on, an open of an id outside it is judged at once.  The log is
 * listed first: nothing is written before this is done, so it is the log
 * every later comparison holds against. */
static int
look_list(arb_repl_t *r, arb_buf_t *why)
{
    arb_repl_list_t l = { NULL, NULL, NULL, 0, 0 };
    look_t          k;
    unsigned char  *looked = NULL;      /* 1 compared, 2 cannot be */
    int             rc;

    rc = arb_store_matches(r->store, arb__repl_list_cb, &l, why);
    if (rc == 0 && (looked = calloc(l.n + 1, 1)) == NULL)
        rc = ARB_ENOMEM;
    memset(&k, 0, sizeof(k));
    k.r = r;
    k.l = &l;
    k.looked = looked;
    k.why = why;
    if (rc == 0)
        rc = arb_stream_subjects(r->s, ARB_STREAM_EV_PREFIX ">",
                                 look_subject_cb, &k, why);
    if (rc == 0 && r->list_hook != NULL)
        rc = r->list_hook(r, why);
    if (rc != 0) {
        free(looked);
        looked = NULL;
    }
    /* What it fenced stays fenced when the listing fails: counted now,
     * once (the retry passes over what is fenced already).  Until
     * 2026-12-07 the retry counted and said it again. */
    pthread_mutex_lock(&r->mu);
    r->st.ahead += k.fenced;
    if (rc == 0) {
        r->look = l;
        r->looked = looked;
        r->listed = 1;
    }
    pthread_mutex_unlock(&r->mu);
    if (rc != 0)
        arb__repl_list_free(&l);
    return rc;
}

int
arb__repl_last_ours(arb_repl_t *r, const char *subj, uint64_t before,
                    arb_stream_msg_t *m, arb_buf_t *why)
{
    natsMsg   *msg;
    jsErrCode  jerr;
    natsStatus s;
    uint64_t   sseq;
    int        k, rc;

    for (k = 0; k < ARB_REPL_FOREIGN_MAX; k++) {
        rc = arb_stream_prev_seq(r->s, before, subj, &sseq, why);
        if (rc != 0 || sseq == 0)
            return rc;
        if (r->look_back_hook != NULL)
            r->look_back_hook(r, sseq);
        msg = NULL;
        jerr = 0;
        s = js_GetMsg(&msg, r->s->js, r->s->name, sseq, NULL, &jerr);
        if (s != NATS_OK
            && arb_stream_err(s, jerr, "message by sequence", NULL)
               != ARB_ENOTFOUND)
            return arb_stream_err(s, jerr, "message by sequence", why);
        if (s == NATS_OK && arb_stream_msg_parse(m, msg, NULL) == 0)
            return 1;
        before = sseq;
    }
    return ARB_ETOOBIG;
}

int
arb__repl_fence_look(arb_repl_t *r, arb_buf_t *why)
{
    arb_stream_msg_t m;
    char             subj[ARB_STREAM_SUBJECT_MAX];
    size_t          *order = NULL, i, j, n, fenced = 0, left = 0;
    int              rc, listed;

    /* A leader elected a moment ago may not know the latest messages. */
    rc = arb__repl_settled(r, why);
    if (rc != 0)
        return rc;
    pthread_mutex_lock(&r->mu);
    listed = r->listed;
    pthread_mutex_unlock(&r->mu);
    if (!listed && (rc = look_list(r, why)) != 0)
        return rc;
    /* Only this thread writes look and looked: read without mu. */
    n = r->look.n;
    order = arb__repl_look_order(&r->look);
    if (order == NULL)
        return ARB_ENOMEM;
    for (j = 0; rc == 0 && j < n; j++) {
        i = order[j];
        if (r->looked[i] == 1)
            continue;
        if (arb__repl_stopping(r)) {
            rc = ARB_EAGAIN;
            break;
        }
        if (arb_stream_subject(subj, sizeof(subj), ARB_STREAM_EV,
                               r->look.id[i]) != 0)
            rc = ARB_ENOTFOUND;         /* no subject: nothing to fence */
        else
            rc = arb_stream_last(r->s, subj, &m, why);
        if (rc == ARB_EPROTO) {
            /* Not a message we wrote: the match is judged by the last
             * message of ours before it (as the resync judges it), or,
             * the subject holding none, has nothing to fence.  Until
             * 2026-12-07 it stayed unverified: one stray message on its
             * subject refused every write to the match for good. */
            uint64_t end = m.stream_seq;

            rc = arb__repl_last_ours(r, subj, end, &m, why);
            if (rc == 1)
                rc = 0;
            else if (rc == 0)
                rc = ARB_ENOTFOUND;
            else if (rc == ARB_ETOOBIG && why != NULL) {
                why->len = 0;
                arb_buf_printf(why, "its subject ends with more than %d "
                               "messages arbiter did not write (the last "
                               "at stream sequence %" PRIu64 ")",
                               ARB_REPL_FOREIGN_MAX, end);
            }
        }
        if (rc == ARB_ETOOBIG) {
            /* What the stream holds of the match cannot be told; it
             * stays unverified, the others go on. */
            if (r->looked[i] == 0)      /* said once, not every retry */
                arb_log_ev(ARB_LOG_ERROR, "replicate_error", NULL,
                           "replicate: match %s: %s; writes to it wait",
                           r->look.id[i], arb_buf_cstr(why));
            pthread_mutex_lock(&r->mu);
            r->looked[i] = 2;
            pthread_mutex_unlock(&r->mu);
            left++;
            rc = 0;
            continue;
        }
        if (rc == 0 && m.seq > r->look.last[i]) {
            arb__repl_forked(r, r->look.id[i], 1, m.seq, r->look.last[i],
                             "the stream holds seq %" PRIu64 " past the "
                             "log's %" PRIu64 "; writes to it are refused",
                             m.seq, r->look.last[i]);
            fenced++;
        }
        if (rc == 0)
            arb_stream_msg_clear(&m);
        if (rc == ARB_ENOTFOUND)
            rc = 0;
        if (rc == 0) {
            pthread_mutex_lock(&r->mu);
            r->looked[i] = 1;           /* its writes are judged now */
            pthread_mutex_unlock(&r->mu);
        }
    }
    free(order);
    if (rc == 0 && left > 0) {
        if (why != NULL) {
            why->len = 0;
            arb_buf_printf(why, "%zu matches could not be compared with "
                           "the stream", left);
        }
        rc = ARB_EAGAIN;
    }
    if (rc != 0)
        return rc;
    pthread_mutex_lock(&r->mu);
    r->verified = 1;
    arb__repl_look_free(r);
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    arb_log_ev(fenced > 0 ? ARB_LOG_WARN : ARB_LOG_INFO, "replicate_verified",
               NULL, "replicate: %zu matches compared with the stream, %zu "
               "fenced; every write is judged now", n, fenced);
    return 0;
}
