/*
 * replicate_pass.c - the anti-entropy pass as it goes: every match of the
 * log against the stream (arb__repl_check_match, replicate_check.c), in
 * slices between the publishing rounds of the replication thread.
 *
 * DESIGN: a pass that reads subjects message by message (at start, on
 * demand) or asks for last messages costs seconds on a large store.
 * Until 2026-12-03 it ran with publishing stopped, so sync acks waited
 * for it and were answered `unreplicated` after sync_timeout_ms, and
 * async lag grew by its length.  Now it runs in slices of about
 * ARB_REPL_SLICE_MS, and the thread publishes between them.  Why that is
 * sound:
 *   - the pass begins with nothing in flight (the thread quiesces): each
 *     match's upto (the seq before its first unpublished event) and the
 *     one listing of the subjects' counts agree with each other then;
 *   - publishing meanwhile appends only to the subjects of the matches it
 *     publishes, and pump tells the pass which (arb__repl_pass_sent).  A
 *     match not published since the pass began is still what upto and
 *     the listing say, whatever the others do: its looks are sound;
 *   - a match published since (busy) is not looked at: its subject ends
 *     past upto and its count is stale.  It is *late*: looked at in a
 *     last round with nothing in flight and publishing waiting, its upto
 *     and the counts taken again, with the same two looks.  Only the
 *     matches busy during the pass wait for it, not the whole store;
 *   - a failed publish does not stop it: what was sent is busy, and the
 *     pass's own requests fail if the stream is electing (then it is
 *     dropped and tried again a second later, as any failed pass); a
 *     lost connection or stream drops it;
 *   - a repair of a match runs within a slice, so it is stored before
 *     pump sends that match's next events.
 * The pause of 2 s between the looks no longer holds publishing either,
 * except in the late round, nor do the listings of the counts (at the
 * start and before the second look), taken on a thread of their own
 * (replicate_lister.c): a listing taken after the pass began is as
 * sound as a slice, for the same reason.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "core/clock.h"
#include "core/err.h"
#include "daemon/log.h"
#include "daemon/replicate_int.h"
#include "daemon/server.h"

enum {
    PASS_F_WHOLE = 1,       /* its subject holds every seq 0..upto */
    PASS_F_READ = 2,        /* read message by message (walk) */
    PASS_F_BUSY = 4,        /* published since the pass began */
    PASS_F_TURN = 8,        /* read in turn (roll) */
    PASS_F_EV = 16,         /* the second look acts on its events */
    PASS_F_DEAL = 32        /* the second look acts on its deal */
};

/* The first event of match id still in the window (not yet published),
 * from the sorted list, or NULL. */
static const arb_repl_ev_t *
first_unpublished(arb_repl_ev_t **v, size_t n, const char *id)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = (lo + hi) / 2;

        if (strcmp(v[mid]->match, id) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && strcmp(v[lo]->match, id) == 0 ? v[lo] : NULL;
}

/* upto of match i of l capped to the seq before an unpublished seq. */
static void
cap_upto(arb_repl_list_t *l, size_t i, uint64_t unpublished)
{
    if (unpublished == 0)
        l->last[i] = UINT64_MAX;
    else if (l->last[i] != UINT64_MAX && unpublished - 1 < l->last[i])
        l->last[i] = unpublished - 1;
}

static int
tail_cb(void *ud, uint64_t pos, const char *match_id, uint64_t seq,
        int64_t time_ms, const unsigned char hash[ARB_HASH_LEN],
        const void *bytes, size_t len)
{
    arb_repl_list_t *l = ud;
    size_t           i = arb__repl_list_find(l, match_id);

    (void)pos, (void)time_ms, (void)hash, (void)bytes, (void)len;
    if (i < l->n)
        cap_upto(l, i, seq);
    return 0;
}

/* Nothing in flight: upto (l->last) of the matches of l given by idx
 * (every one when idx is NULL) capped to the seq before its first event
 * not yet published (UINT64_MAX: none published, not compared): those
 * the window holds, and those the log holds past the window (committed
 * since the window was read, or beyond its size after an outage), which
 * a pass once took for missing and published itself.  0 or an ARB_E*
 * code. */
static int
uptos(arb_repl_t *r, arb_repl_list_t *l, const size_t *idx, size_t n,
      arb_buf_t *why)
{
    arb_repl_ev_t       **v;
    const arb_repl_ev_t  *e;
    size_t                i, k, nv = 0;

    if ((v = malloc((r->nwin + 1) * sizeof(*v))) == NULL)
        return ARB_ENOMEM;
    for (i = 0; i < r->nwin; i++)
        if (r->win[i].state != EV_DONE && !r->win[i].hole)
            v[nv++] = &r->win[i];
    qsort(v, nv, sizeof(*v), arb__repl_ev_cmp);
    for (k = 0; k < n; k++) {
        i = idx != NULL ? idx[k] : k;
        if ((e = first_unpublished(v, nv, l->id[i])) != NULL)
            cap_upto(l, i, e->seq);
    }
    free(v);
    /* (Every match of l, not only idx: a lower upto is only more
     * cautious.) */
    return arb_store_log_unchecked(r->store, r->read_pos + 1, 0, tail_cb, l,
                                   why);
}

/* 1 when the pass's listing says match id's subject holds n messages. */
static int
count_is(arb_repl_t *r, const char *id, uint64_t n)
{
    char     subj[ARB_STREAM_SUBJECT_MAX];
    uint64_t have;

    return r->pass.counts.have
           && arb_stream_subject(subj, sizeof(subj), ARB_STREAM_EV, id) == 0
           && arb__repl_count_of(r, &r->pass.counts, subj, &have, NULL) == 0
           && have == n;
}

void
arb__repl_pass_drop(arb_repl_t *r)
{
    arb_repl_pass_t *p = &r->pass;

    arb__repl_lister_cancel(&p->lister);
    arb__repl_list_free(&p->l);
    arb__repl_counts_free(&p->counts);
    free(p->flag);
    free(p->cand);
    free(p->late);
    memset(p, 0, sizeof(*p));
}

int
arb__repl_pass_running(const arb_repl_t *r)
{
    const arb_repl_pass_t *p = &r->pass;

    if (p->phase == ARB_PASS_NONE)
        return 0;
    if (p->phase == ARB_PASS_LIST)
        return arb__repl_lister_busy(&p->lister) ? 2 : 1;
    return p->phase == ARB_PASS_PAUSE && !p->quiet
           && arb_clock_ms() < p->second_at ? 2 : 1;
}

int
arb__repl_pass_due(int64_t now, int asked, int64_t next_check,
                   int64_t recheck, int64_t retry_at)
{
    if (retry_at != 0)
        return now >= retry_at;
    return asked || (next_check != 0 && now >= next_check)
           || (recheck != 0 && now >= recheck);
}

void
arb__repl_pass_sent(arb_repl_t *r, const char *match)
{
    arb_repl_pass_t *p = &r->pass;
    size_t           i;

    if (p->phase == ARB_PASS_NONE || p->quiet)
        return;
    i = arb__repl_list_find(&p->l, match);
    if (i < p->l.n)
        p->flag[i] |= PASS_F_BUSY;
}

/* The counts are listed for n matches, then the pass goes to phase
 * `next`.  For a few matches (the busy ones of the late round, the
 * candidates of a second look) each subject's count is asked when needed
 * instead: about a tenth of a listing each here (10 against 130 ms at
 * 50,000 subjects, 40 against 600 at 150,000), and the server holds the
 * stream's writes while it lists (docs/SCALE.md).  Else, out of the late
 * round, the listing is taken on a thread of its own and publishing goes
 * on meanwhile (replicate_lister.c). */
static int
list_counts(arb_repl_t *r, int next, size_t n, arb_buf_t *why)
{
    arb_repl_pass_t *p = &r->pass;
    int              rc = 0;

    arb__repl_counts_free(&p->counts);          /* (have 0: asked) */
    if (n <= ARB_REPL_ASK_MAX || p->quiet) {
        if (n > ARB_REPL_ASK_MAX)
            rc = arb__repl_counts_load(r, &p->counts, why);
        p->phase = next;
        return rc;
    }
    rc = arb__repl_lister_start(r, &p->lister, why);
    p->phase = ARB_PASS_LIST;
    p->next = next;
    return rc;
}

/*
 * Besides what its kind reads, a pass that does not read every subject
 * reads some in turn: at most check_read messages' worth of subjects,
 * from the match after the last one the previous pass read in turn,
 * round the sorted list (at least one match, however long).  A count
 * cannot show a copy together with a hole, or a second history of a
 * seq: until 2026-12-04 only a pass that read found them, and a match
 * idle since the start was read only by a pass asked for.  Now every
 * subject is read within total / check_read passes (a random match to
 * begin with after a start, so that restarts do not favour the first
 * ids).  A subject is read whole within one slice, publishing waiting,
 * at 55-77 us a message here: a match of more than ARB_REPL_TURN_LONGEST
 * events is passed over (read at start and on demand, as before), and a
 * match that turns busy is not read in the last round (the turn has
 * passed it, and it is read at the next start, being active).
 */
int
arb__repl_turn_takes(const arb_repl_list_t *l, size_t i)
{
    return l->last[i] != UINT64_MAX
           && l->last[i] < ARB_REPL_TURN_LONGEST;
}

size_t
arb__repl_turn(const arb_repl_list_t *l, const char *after, size_t start,
               uint64_t budget, size_t *at)
{
    uint64_t used = 0, n;
    size_t   k, i;

    *at = 0;
    if (budget == 0 || l->n == 0)
        return 0;
    if (after[0] != '\0') {
        *at = arb__repl_list_lower(l, after);
        /* (past it: not the same id again if it is still there) */
        if (*at < l->n && strcmp(l->id[*at], after) == 0)
            (*at)++;
        *at %= l->n;
    } else {
        *at = start % l->n;
    }
    for (k = 0; k < l->n; k++) {
        i = (*at + k) % l->n;
        if (!arb__repl_turn_takes(l, i))
            continue;
        n = l->last[i] + 1;
        if (used > 0 && n > budget - used)
            break;
        used = n >= budget - used ? budget : used + n;
    }
    return k;
}

static void
roll(arb_repl_t *r)
{
    arb_repl_pass_t *p = &r->pass;
    size_t           k, i, at, span;

    span = arb__repl_turn(&p->l, r->rolled, randombytes_random(),
                          r->conf->check_read, &at);
    for (k = 0; k < span; k++) {
        i = (at + k) % p->l.n;
        if (!arb__repl_turn_takes(&p->l, i))
            continue;
        if (!(p->flag[i] & PASS_F_READ)) {
            p->flag[i] |= PASS_F_READ | PASS_F_TURN;
            p->walked++;
        }
        snprintf(p->rolled, sizeof(p->rolled), "%s", p->l.id[i]);
    }
}

int
arb__repl_pass_begin(arb_repl_t *r, int walk, arb_buf_t *why)
{
    arb_repl_pass_t *p = &r->pass;
    int64_t          since = r->walked_ms - ARB_REPL_WALK_SLACK_MS;
    size_t           i, n;
    int              rc;

    arb__repl_pass_drop(r);
    p->t0 = arb_clock_ms();
    p->began = arb_now_ms();
    p->walk = walk;
    /* Only a settled stream is asked: a leader just elected answers "not
     * found" for what it has not applied yet. */
    rc = arb__repl_settled(r, why);
    /* The list first (a callback must not call back into the store),
     * then the window read up to it: what is still in the window is not
     * published yet and is not compared. */
    if (rc == 0)
        rc = arb_store_matches(r->store, arb__repl_list_cb, &p->l, why);
    if (rc == 0)
        rc = uptos(r, &p->l, NULL, p->l.n, why);
    n = p->l.n > 0 ? p->l.n : 1;
    if (rc == 0 && ((p->flag = calloc(n, 1)) == NULL
                    || (p->cand = malloc(n * sizeof(*p->cand))) == NULL
                    || (p->late = malloc(n * sizeof(*p->late))) == NULL))
        rc = ARB_ENOMEM;
    if (rc != 0) {
        arb__repl_pass_drop(r);
        return rc;
    }
    for (i = 0; i < p->l.n; i++)
        if (walk == ARB_REPL_WALK_ALL
            || (walk == ARB_REPL_WALK_RECENT && p->l.last_ms[i] >= since)) {
            p->flag[i] |= PASS_F_READ;
            p->walked++;
        }
    if (walk != ARB_REPL_WALK_ALL)
        roll(r);
    rc = list_counts(r, ARB_PASS_FIRST, p->l.n, why);
    if (rc != 0)
        arb__repl_pass_drop(r);
    return rc;
}

/* The late round begins: nothing in flight, publishing waits until the
 * pass ends.  The busy matches are listed again (their last seq moved),
 * their upto taken from the window, their counts taken again. */
static int
late_begin(arb_repl_t *r, arb_buf_t *why)
{
    arb_repl_pass_t  *p = &r->pass;
    arb_match_info_t  info;
    size_t            k, i;
    int               rc;

    p->quiet = 1;
    p->busy = p->nlate;
    rc = arb__repl_quiesce(r, why);
    if (rc == 0)
        rc = arb__repl_settled(r, why);
    for (k = 0; rc == 0 && k < p->nlate; k++) {
        i = p->late[k];
        rc = arb_store_match(r->store, p->l.id[i], &info, why);
        if (rc == 0)
            p->l.last[i] = info.last_seq;
    }
    if (rc == 0)
        rc = uptos(r, &p->l, p->late, p->nlate, why);
    p->ncand = 0;
    p->at = 0;
    p->phase = ARB_PASS_FIRST;
    if (rc == 0)
        rc = list_counts(r, ARB_PASS_FIRST, p->nlate, why);
    return rc;
}

/* The look's k-th match: an index into l (the whole list in the first
 * round, the late ones in the last). */
static size_t
look_at(const arb_repl_pass_t *p, size_t k)
{
    return p->quiet ? p->late[k] : k;
}

/* A hole is filled once its match's subject was found, or made, whole up
 * to it: not by a pass that repaired nothing (put off, or a match found
 * ahead or different, whose holes pump refuses).  Whole is known only
 * from a look at a match not busy then (put_late clears it).  Returns
 * how many it filled. */
static size_t
fill_holes(arb_repl_t *r)
{
    arb_repl_pass_t *p = &r->pass;
    size_t           k, i, n = 0;

    for (k = 0; k < r->nwin; k++) {
        arb_repl_ev_t *h = &r->win[k];

        if (!h->hole)
            continue;
        i = arb__repl_list_find(&p->l, h->match);
        if (i < p->l.n && (p->flag[i] & PASS_F_WHOLE)
            && p->l.last[i] != UINT64_MAX && h->seq <= p->l.last[i]) {
            pthread_mutex_lock(&r->mu);     /* the ack handler reads it */
            h->hole = 0;
            h->state = EV_DONE;
            pthread_mutex_unlock(&r->mu);
            n++;
        }
    }
    return n;
}

/* The match and seq at one log position (arb_store_log's callback). */
typedef struct {
    char     match[ARB_STREAM_ID_MAX + 1];
    uint64_t seq;
    int      found;
} at_pos_t;

static int
at_pos_cb(void *ud, uint64_t pos, const char *match_id, uint64_t seq,
          int64_t time_ms, const unsigned char hash[ARB_HASH_LEN],
          const void *bytes, size_t len)
{
    at_pos_t *a = ud;

    (void)pos, (void)time_ms, (void)hash, (void)bytes, (void)len;
    snprintf(a->match, sizeof(a->match), "%s", match_id);
    a->seq = seq;
    a->found = 1;
    return 0;           /* (one asked for) */
}

static int
u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return (x > y) - (x < y);
}

/*
 * Refused positions (arb__repl_refuse_locked) whose events the stream now
 * holds: the pass found, or made, their match's subject whole past them,
 * and the match is not fenced.  That is a stream an operator repaired
 * (the other history removed, the recorder restarted) and this pass
 * republished what had been refused.  They are refused no more: a retry
 * of one is answered as any other (until 2026-12-03 it stayed
 * `unreplicated` for good).  A position that cannot be read stays
 * refused: refusing is the safe side.  Each refused position costs a log
 * lookup, so only a pass that read subjects (at start, on demand) or
 * repaired something looks: a refused event reaches the stream only by
 * a repair.
 */
static void
unrefuse(arb_repl_t *r)
{
    arb_repl_pass_t *p = &r->pass;
    uint64_t        *v;
    size_t           n, k, i, ndrop = 0, keep;
    at_pos_t         at;

    if (p->walk == ARB_REPL_WALK_NONE && p->fixed == 0)
        return;
    pthread_mutex_lock(&r->mu);
    n = r->nrefused;
    v = n > 0 ? malloc(n * sizeof(*v)) : NULL;
    if (v != NULL)
        memcpy(v, r->refused, n * sizeof(*v));
    pthread_mutex_unlock(&r->mu);
    if (v == NULL)
        return;
    for (k = 0; k < n; k++) {
        memset(&at, 0, sizeof(at));
        if (arb_store_log_unchecked(r->store, v[k], 1, at_pos_cb, &at,
                                    NULL) < 0
            || !at.found)
            continue;
        i = arb__repl_list_find(&p->l, at.match);
        if (i == p->l.n || !(p->flag[i] & PASS_F_WHOLE)
            || p->l.last[i] == UINT64_MAX || at.seq > p->l.last[i])
            continue;
        pthread_mutex_lock(&r->mu);
        if (arb__repl_fence_find_locked(r, at.match) == NULL
            && !r->fence_lost)
            v[ndrop++] = v[k];
        pthread_mutex_unlock(&r->mu);
    }
    if (ndrop > 0) {
        pthread_mutex_lock(&r->mu);     /* (ascending, as r->refused) */
        for (k = 0, keep = 0; k < r->nrefused; k++)
            if (bsearch(&r->refused[k], v, ndrop, sizeof(*v), u64_cmp)
                == NULL)
                r->refused[keep++] = r->refused[k];
        r->nrefused = keep;
        pthread_mutex_unlock(&r->mu);
        arb_log_ev(ARB_LOG_WARN, "replicate_unrefused", NULL, "replicate: "
                   "%zu refused events are in the stream now (republished "
                   "from the log); a retry of one is acknowledged", ndrop);
    }
    free(v);
}

static void
pass_end(arb_repl_t *r)
{
    arb_repl_pass_t *p = &r->pass;

    pthread_mutex_lock(&r->mu);
    r->st.checks++;
    r->st.check_done = r->check_began;
    r->st.last_matches = p->l.n;
    r->st.last_repaired = p->fixed;
    r->st.last_put_off = p->undecided;
    r->st.last_read = p->walked;
    r->st.last_counted = p->counted;
    r->st.last_busy = p->busy;
    /* Every subject is known whole as of `began`: the next start reads
     * only those of matches active since.  Not while a match is fenced:
     * a fork in the middle of a subject is found only by reading it,
     * and the fences live in memory, so every start reads it again. */
    if (p->walk != ARB_REPL_WALK_NONE && p->undecided == 0 && r->nfence == 0)
        r->walked_ms = p->began;
    pthread_mutex_unlock(&r->mu);
    if (p->rolled[0] != '\0')      /* the turn goes on past it */
        memcpy(r->rolled, p->rolled, sizeof(r->rolled));
    arb_log_ev(p->fixed > 0 || p->undecided > 0 ? ARB_LOG_WARN : ARB_LOG_INFO,
               "replicate_check", NULL, "replicate: anti-entropy pass over "
               "%zu matches, %zu subjects read: %zu repaired, %zu put off "
               "(%zu whole by their count, %zu busy looked at with "
               "publishing waiting; %" PRId64 " ms)", p->l.n, p->walked,
               p->fixed, p->undecided, p->counted, p->busy,
               arb_clock_ms() - p->t0);
}

/*
 * A dealt match's deal message goes once, after its open's PubAck
 * (replicate.c), and a NATS node killed before its flush loses it as it
 * loses events.  Until 2026-12-05 no pass looked: the deal stayed lost, a
 * restore refused the running match ("the deal secret is not kept") and
 * a replica could not judge it.  Now, with a replication key, each look
 * counts the deal subject of every match whose open is published (the
 * listing holds the deal subjects then, replicate_check.c), and the
 * second look publishes a deal both looks found missing again from the
 * store (arb__repl_put_deal: inside the duplicate window too).
 * *lost is 1 when match i's open is published, the store keeps a
 * secret for it and its deal subject is empty.  0 or an ARB_E* code.
 */
static int
deal_lost(arb_repl_t *r, size_t i, int *lost, arb_buf_t *why)
{
    arb_repl_pass_t *p = &r->pass;
    char             subj[ARB_STREAM_SUBJECT_MAX];
    arb_buf_t        sec = ARB_BUF_INIT;
    uint64_t         n = 0;
    int              rc;

    *lost = 0;
    if (!r->have_key || p->l.last[i] == UINT64_MAX
        || arb_stream_subject(subj, sizeof(subj), ARB_STREAM_DEAL,
                              p->l.id[i]) != 0)
        return 0;
    /* With a listing, its count first: most matches hold their deal or
     * have none, and the store is not asked.  Without one (a few
     * matches), the store first: the server is asked per subject. */
    if (p->counts.have
        && (arb__repl_count_of(r, &p->counts, subj, &n, why) != 0
            || n > 0))
        return 0;
    rc = arb_store_secret(r->store, p->l.id[i], &sec, why);
    sodium_memzero(sec.data, sec.len);
    arb_buf_free(&sec);
    if (rc != 0)
        return rc == ARB_ENOTFOUND ? 0 : rc;
    if (!p->counts.have
        && (rc = arb__repl_count_of(r, &p->counts, subj, &n, why)) != 0)
        return rc;
    *lost = n == 0;
    return 0;
}

/* The second look: match i's deal, still missing, published again, but
 * not over a history that is not ours (a fenced match). */
static int
deal_repair(arb_repl_t *r, size_t i, int *stored, arb_buf_t *why)
{
    arb_repl_pass_t *p = &r->pass;
    int              rc, lost, fenced;

    *stored = 0;
    rc = deal_lost(r, i, &lost, why);
    if (rc != 0 || !lost)
        return rc;
    pthread_mutex_lock(&r->mu);
    fenced = arb__repl_fence_find_locked(r, p->l.id[i]) != NULL;
    pthread_mutex_unlock(&r->mu);
    if (fenced)
        return 0;
    rc = arb__repl_put_deal(r, p->l.id[i], stored, why);
    if (rc != 0 || !*stored)    /* (not stored: the stream held it) */
        return rc;
    pthread_mutex_lock(&r->mu);
    r->st.deals_republished++;
    pthread_mutex_unlock(&r->mu);
    arb_log_ev(ARB_LOG_WARN, "replicate_deal_missing", NULL, "replicate: "
               "match %s: its deal message is missing from the stream; "
               "published again from the store", p->l.id[i]);
    return 0;
}

/* One match of the first look: taken as whole by its count, or compared
 * with nothing acted on (a candidate for the second look).  A regular
 * pass takes a subject holding exactly one message per seq published as
 * whole without asking for its last message (2.5 ms each on a stream of
 * 100,000 subjects): a loss shows in the count.  What a count cannot
 * show (a copy and a hole together, another hash at a seq) is read by
 * the passes that walk. */
static int
first_look(arb_repl_t *r, size_t i, arb_buf_t *why)
{
    arb_repl_pass_t *p = &r->pass;
    uint64_t         upto = p->l.last[i];     /* (a dry look: unchanged) */
    int              rc, rep = 0, ok, lost;

    if ((rc = deal_lost(r, i, &lost, why)) != 0)
        return rc;
    if (!(p->flag[i] & PASS_F_READ)
        && count_is(r, p->l.id[i], upto + 1)) {
        p->flag[i] |= PASS_F_WHOLE;
        p->counted++;
    } else {
        rc = arb__repl_check_match(r, p->l.id[i], &upto,
                                   (p->flag[i] & PASS_F_READ) != 0, 1,
                                   &rep, &ok, why);
        if (rep)
            p->flag[i] |= PASS_F_EV;
        else if (rc == 0 && ok)
            p->flag[i] |= PASS_F_WHOLE;
    }
    if (lost)
        p->flag[i] |= PASS_F_DEAL;
    if (rep || lost)
        p->cand[p->ncand++] = i;
    return rc;
}

/* One candidate of the second look: what still differs is acted on,
 * every republish checked by the leader (expected last subject sequence,
 * message id). */
static int
second_look(arb_repl_t *r, size_t i, arb_buf_t *why)
{
    arb_repl_pass_t *p = &r->pass;
    int              rc = 0, rep = 0, ok, dealt = 0;

    if (p->flag[i] & PASS_F_EV) {
        /* (Raised when a repair made the subject whole past it: the
         * holes and refused events up to it are filled then.) */
        rc = arb__repl_check_match(r, p->l.id[i], &p->l.last[i],
                                   (p->flag[i] & PASS_F_READ) != 0, 0,
                                   &rep, &ok, why);
        if (rc == 0 && ok)
            p->flag[i] |= PASS_F_WHOLE;
        if (rc == ARB_EEXIST) {
            p->undecided++;
            rc = 0;
        }
    }
    /* Its deal once its open is known to be in the stream (a republished
     * open took its deal with it, arb__repl_put). */
    if (rc == 0 && (p->flag[i] & PASS_F_DEAL)
        && (p->flag[i] & PASS_F_WHOLE))
        rc = deal_repair(r, i, &dealt, why);
    p->fixed += (size_t)(rep || dealt);
    return rc;
}

/* A busy match is put to the late round instead of being looked at: 1. */
static int
put_late(arb_repl_pass_t *p, size_t i)
{
    if (p->quiet || !(p->flag[i] & PASS_F_BUSY))
        return 0;
    p->flag[i] &= (unsigned char)~(PASS_F_WHOLE | PASS_F_EV
                                   | PASS_F_DEAL);
    if (p->flag[i] & PASS_F_TURN) {     /* not read with publishing held */
        p->flag[i] &= (unsigned char)~(PASS_F_READ | PASS_F_TURN);
        p->walked--;
    }
    p->late[p->nlate++] = i;
    return 1;
}

int
arb__repl_pass_step(arb_repl_t *r, int *fin, size_t *undecided,
                    int *moved, arb_buf_t *why)
{
    arb_repl_pass_t *p = &r->pass;
    int64_t          until = arb_clock_ms() + ARB_REPL_SLICE_MS;
    size_t           i, n;
    int              rc = 0;

    *fin = 0;
    *undecided = 0;
    *moved = 0;
    while (rc == 0 && (p->quiet || arb_clock_ms() < until)) {
        if (arb__repl_stopping(r)) {
            rc = ARB_EAGAIN;    /* stopping: the next start passes again */
            break;
        }
        switch (p->phase) {
        case ARB_PASS_FIRST:
            n = p->quiet ? p->nlate : p->l.n;
            if (p->at == n) {
                p->at = 0;
                p->phase = p->ncand > 0 ? ARB_PASS_PAUSE : ARB_PASS_END;
                p->second_at = arb_clock_ms() + 2000;
                if (p->ncand > 0 && !p->quiet && r->pause_hook != NULL)
                    r->pause_hook(r);
                break;
            }
            i = look_at(p, p->at++);
            if (p->l.last[i] != UINT64_MAX && !put_late(p, i))
                rc = first_look(r, i, why);
            break;
        case ARB_PASS_PAUSE:
            /* A stale "not found" has had time to go.  In the first
             * round publishing goes on meanwhile. */
            if (arb_clock_ms() < p->second_at) {
                if (!p->quiet)
                    return 0;
                arb__repl_sleep(r, (unsigned)(p->second_at
                                              - arb_clock_ms()));
                break;
            }
            rc = arb__repl_settled(r, why);
            if (rc == 0)
                rc = list_counts(r, ARB_PASS_SECOND, p->ncand, why);
            break;
        case ARB_PASS_LIST:
            rc = arb__repl_lister_take(&p->lister, &p->counts, why);
            if (rc == 1)
                return 0;   /* publishing goes on; done, it wakes us */
            p->phase = p->next;
            break;
        case ARB_PASS_SECOND:
            if (p->at == p->ncand) {
                p->phase = ARB_PASS_END;
                break;
            }
            i = p->cand[p->at++];
            if (!put_late(p, i))
                rc = second_look(r, i, why);
            break;
        default:
            if (!p->quiet && p->nlate > 0) {
                rc = late_begin(r, why);
                break;
            }
            *moved = fill_holes(r) > 0 || p->fixed > 0 || p->undecided > 0;
            unrefuse(r);
            pass_end(r);
            *undecided = p->undecided;
            *fin = 1;
            arb__repl_pass_drop(r);
            return 0;
        }
    }
    if (rc != 0)
        arb__repl_pass_drop(r);
    return rc;
}
