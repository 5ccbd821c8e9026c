/*
 * stream_mirror.c - a store rebuilt from the stream, every message checked
 * (proto/stream_mirror.h).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/codec.h"
#include "core/deal.h"
#include "core/err.h"
#include "core/event.h"
#include "core/ledger/chain.h"
#include "core/ledger/history.h"
#include "core/match.h"
#include "proto/stream_mirror.h"

#define BATCH_MAX 512
/* Flushes a dealt open outlasts in the batch while it waits for its deal
 * message (which the recorder sends right after the open's PubAck and
 * before its seq 1): then it goes without the secret. */
#define DEAL_PATIENCE 50

/* What the mirror knows of one match. */
typedef struct mt {
    char           id[ARB_STORE_ID_MAX + 1];
    char           recorder[ARB_STREAM_NAME_MAX + 1];  /* who wrote it */
    uint64_t       next;                /* next seq expected */
    unsigned char  head[ARB_HASH_LEN];  /* h(next - 1) */
    int            stopped;
    int            chain_only;          /* dealt, no secret: no rules */
    arb_match_t   *rules;               /* NULL until judged */
    int            has_open;            /* open kept until rules exist */
    arb_event_t    open;
    char          *secret;              /* stored form "<kind> <secret>" */
    int            open_pending;        /* dealt open in the batch, waiting
                                           for its deal message */
    size_t         open_at;             /* its batch index */
    unsigned       deal_waits;          /* flushes it has outlasted */
    arb_stream_msg_t *wait;             /* seqs past next, sorted: they
                                           go in when next arrives */
    size_t         nwait, capwait;
    int            closed;              /* its close is in the batch or
                                           the store */
    int            evicted;             /* rules dropped once committed
                                           closed: rebuilt from the store
                                           when an event comes (a claim) */
    uint64_t       keep_from;           /* stopped: the lowest stream
                                           sequence of a message of t the
                                           store does not hold (0: none) */
    uint64_t       secret_sseq;         /* the stream sequence of a deal
                                           secret held in memory only,
                                           until the close is committed */
    int            looked;              /* its deal asked for out of
                                           order (deal_lookup) */
    int            secret_store;        /* its secret, met after its open
                                           was committed, goes with its
                                           next event */
} mt_t;

typedef struct entry {
    arb_append_t     ap;
    arb_stream_msg_t msg;               /* owns the bytes */
    arb_event_t      ev;                /* owns the client id */
    mt_t            *m;
    int              keep;              /* kept by this flush */
} entry_t;

struct arb_mirror {
    arb_store_t            *store;
    int                     has_key;
    unsigned char           key[ARB_STREAM_KEY_LEN];
    arb_mirror_problem_cb   problem;
    void                   *ud;
    arb_mirror_appended_cb  appended;
    void                   *aud;
    arb_mirror_recorder_cb  recorded;
    void                   *rud;
    arb_mirror_deal_fn      deal_fn;
    void                   *dud;
    arb_mirror_judged_cb    judged;
    void                   *jud;
    mt_t                  **mts;        /* sorted by id: no hash order */
    size_t                  nmt, capmt;
    entry_t                 batch[BATCH_MAX + 1];
    size_t                  n;
    arb_append_t            v[BATCH_MAX + 1];   /* the batch, contiguous */
    size_t                  nwaiting;   /* the sum of the mts' nwait */
    size_t                  wait_max, wait_all;     /* the limits */
    uint64_t                cur_sseq;   /* of the message being applied */
    arb_mirror_stats_t      st;
};

static const unsigned char zero_hash[ARB_HASH_LEN];

/* The lower of two stream sequences, 0 meaning none. */
static uint64_t
min_seq(uint64_t a, uint64_t b)
{
    return a == 0 || (b != 0 && b < a) ? b : a;
}

/* The stream sequence of a read message, where a restart must read from
 * to read it again: 1 when the reader could not tell it (0). */
static uint64_t
read_at(const arb_stream_msg_t *msg)
{
    return msg->stream_seq != 0 ? msg->stream_seq : 1;
}

int
arb_mirror_open(arb_mirror_t **out, arb_store_t *store,
                const unsigned char *key, arb_mirror_problem_cb cb, void *ud)
{
    arb_mirror_t *m = calloc(1, sizeof(*m));

    *out = NULL;
    if (m == NULL)
        return ARB_ENOMEM;
    m->store = store;
    if (key != NULL) {
        memcpy(m->key, key, ARB_STREAM_KEY_LEN);
        m->has_key = 1;
    }
    m->problem = cb;
    m->ud = ud;
    m->wait_max = ARB_MIRROR_WAIT_MAX;
    m->wait_all = ARB_MIRROR_WAIT_ALL;
    *out = m;
    return 0;
}

void
arb_mirror_set_wait(arb_mirror_t *m, size_t per_match, size_t all)
{
    m->wait_max = per_match;
    m->wait_all = all;
}

void
arb_mirror_on_append(arb_mirror_t *m, arb_mirror_appended_cb cb, void *ud)
{
    m->appended = cb;
    m->aud = ud;
}

void
arb_mirror_on_recorder(arb_mirror_t *m, arb_mirror_recorder_cb cb, void *ud)
{
    m->recorded = cb;
    m->rud = ud;
}

void
arb_mirror_on_judged(arb_mirror_t *m, arb_mirror_judged_cb cb, void *ud)
{
    m->judged = cb;
    m->jud = ud;
}

void
arb_mirror_on_deal(arb_mirror_t *m, arb_mirror_deal_fn fn, void *ud)
{
    m->deal_fn = fn;
    m->dud = ud;
}

static void
entry_clear(entry_t *e)
{
    arb_stream_msg_clear(&e->msg);
    arb_event_clear(&e->ev);
    free((char *)e->ap.secret);
    memset(e, 0, sizeof(*e));
}

static void
mt_free(mt_t *t)
{
    size_t i;

    if (t == NULL)
        return;
    for (i = 0; i < t->nwait; i++)
        arb_stream_msg_clear(&t->wait[i]);
    free(t->wait);
    arb_match_free(t->rules);
    if (t->has_open)
        arb_event_clear(&t->open);
    free(t->secret);
    free(t);
}

void
arb_mirror_free(arb_mirror_t *m)
{
    size_t i;

    if (m == NULL)
        return;
    for (i = 0; i < m->n; i++)
        entry_clear(&m->batch[i]);
    for (i = 0; i < m->nmt; i++)
        mt_free(m->mts[i]);
    free(m->mts);
    memset(m->key, 0, sizeof(m->key));
    free(m);
}

void
arb_mirror_stats(const arb_mirror_t *m, arb_mirror_stats_t *out)
{
    size_t i;

    *out = m->st;
    /* A dealt open not judged yet (no move so far) without its secret
     * counts too. */
    for (i = 0; i < m->nmt; i++) {
        if (m->mts[i]->has_open && m->mts[i]->secret == NULL
            && !m->mts[i]->stopped)
            out->chain_only++;
        out->ruled += m->mts[i]->rules != NULL;
    }
}

/* Index of id in the sorted table, or where it would go (*found 0). */
static size_t
mt_find(const arb_mirror_t *m, const char *id, int *found)
{
    size_t lo = 0, hi = m->nmt;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int    c = strcmp(m->mts[mid]->id, id);

        if (c == 0) {
            *found = 1;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = 0;
    return lo;
}

/* Stops following t after a refusal at seq, telling the caller.  Nothing
 * of t is applied any more, so its rule state and the events waiting for
 * a gap leave memory: until 2026-12-03 a stopped match kept them for the
 * replica's life (test_stream_mirror: `ruled`, arb_mirror_waiting).  What
 * the batch holds of t already is committed as before. */
static void __attribute__((format(printf, 4, 5)))
stop(arb_mirror_t *m, mt_t *t, uint64_t seq, const char *fmt, ...)
{
    char    msg[768];
    int     n;
    size_t  i;
    va_list ap;

    t->stopped = 1;
    m->st.problems++;
    /* What of t is not in the store must be read again by a restart,
     * which may find it repaired: the message at fault and every one
     * that waited (arb_mirror_resume_seq). */
    t->keep_from = min_seq(t->keep_from, m->cur_sseq);
    for (i = 0; i < t->nwait; i++)
        t->keep_from = min_seq(t->keep_from, read_at(&t->wait[i]));
    n = snprintf(msg, sizeof(msg), "match %s seq %" PRIu64 ": ", t->id, seq);
    va_start(ap, fmt);
    vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
    va_end(ap);
    if (m->problem != NULL)
        m->problem(m->ud, t->id, seq, msg);
    arb_match_free(t->rules);
    t->rules = NULL;
    for (i = 0; i < t->nwait; i++)
        arb_stream_msg_clear(&t->wait[i]);
    m->nwaiting -= t->nwait;
    free(t->wait);
    t->wait = NULL;
    t->nwait = t->capwait = 0;
}

/* Builds the rule state of t from its kept open (and secret). */
static void
judge_open(arb_mirror_t *m, mt_t *t)
{
    arb_history_t h;
    arb_verdict_t v;
    int           dealt;

    memset(&h, 0, sizeof(h));
    memset(&v, 0, sizeof(v));
    dealt = t->open.setup != NULL
            && t->open.setup->deal.kind == ARB_DEAL_COMMIT;
    if (dealt && t->secret == NULL) {
        t->chain_only = 1;
        m->st.chain_only++;
        goto done;
    }
    /* The reveal of a kept secret is the history's own (one copy). */
    h.open = t->open;
    h.has_open = 1;
    h.secret = t->secret;
    if (arb_history_reveal(&h, &v) != 0
        || arb_match_open(&t->rules, &h.open, &v) != 0) {
        t->rules = NULL;
        stop(m, t, 0, "the open is refused by the rules: %s", v.msg);
    }
    t->open = h.open;
done:
    arb_event_clear(&t->open);
    t->has_open = 0;
}

/* The rule state of t, rebuilt by a replay of what the store holds of it
 * (all of it: nothing of t is in the batch).  Stops t when the stored
 * history does not load or the rules refuse it. */
static void
rules_load(arb_mirror_t *m, mt_t *t)
{
    arb_history_t h;
    arb_verdict_t v;
    size_t        bad = 0;

    memset(&h, 0, sizeof(h));
    memset(&v, 0, sizeof(v));
    if (arb_history_load(&h, m->store, t->id, UINT64_MAX, NULL) != 0) {
        stop(m, t, 0, "the local copy does not load");
        goto done;
    }
    /* A deal message that came after its open was committed is held
     * here only. */
    if (h.secret == NULL && t->secret != NULL
        && (h.secret = strdup(t->secret)) == NULL) {
        stop(m, t, 0, "out of memory reloading its deal secret");
        goto done;
    }
    if (h.open.setup != NULL
        && h.open.setup->deal.kind == ARB_DEAL_COMMIT
        && h.secret == NULL) {
        t->chain_only = 1;
        m->st.chain_only++;
    } else if (arb_history_replay(&h, UINT64_MAX, &t->rules, &bad, &v) != 0) {
        arb_match_free(t->rules);
        t->rules = NULL;
        stop(m, t, bad + 1, "the local copy is refused by the rules: %s",
             v.msg);
    }
done:
    arb_history_clear(&h);
}

/* After its close was committed: t's rule state leaves memory (a mirror
 * of a season's stream would otherwise hold every match it ever saw);
 * what is left is the entry (a few hundred bytes: seq, head, recorder).
 * A later event (a claim after the close) rebuilds it. */
static void
rules_evict(arb_mirror_t *m, mt_t *t)
{
    if (t->rules == NULL || t->has_open || t->open_pending || t->nwait > 0)
        return;
    arb_match_free(t->rules);
    t->rules = NULL;
    t->evicted = 1;
    m->st.evicted++;
}

/* The entry of match id, loading what the store already holds of it.
 * NULL only when out of memory. */
static mt_t *
mt_get(arb_mirror_t *m, const char *id)
{
    arb_match_info_t info;
    size_t           at;
    int              found;
    mt_t            *t;

    at = mt_find(m, id, &found);
    if (found)
        return m->mts[at];
    if (m->nmt == m->capmt) {
        size_t  cap = m->capmt ? 2 * m->capmt : 64;
        mt_t  **v2 = realloc(m->mts, cap * sizeof(*v2));

        if (v2 == NULL)
            return NULL;
        m->mts = v2;
        m->capmt = cap;
    }
    t = calloc(1, sizeof(*t));
    if (t == NULL)
        return NULL;
    snprintf(t->id, sizeof(t->id), "%s", id);
    memmove(m->mts + at + 1, m->mts + at, (m->nmt - at) * sizeof(*m->mts));
    m->mts[at] = t;
    m->nmt++;
    if (arb_store_match(m->store, id, &info, NULL) != 0)
        return t;
    /* Held already (a replica after a restart): continue from the head,
     * with the rules rebuilt by the one replay of a stored history. */
    t->next = info.last_seq + 1;
    t->closed = info.closed;
    memcpy(t->head, info.head, ARB_HASH_LEN);
    /* A closed match is rebuilt only if an event comes (a claim): a
     * replica re-reading the stream after a restart meets every match
     * of it, as duplicates. */
    if (info.closed)
        t->evicted = 1;
    else
        rules_load(m, t);
    return t;
}

static void deal_lookup(arb_mirror_t *m, mt_t *t);

int
arb_mirror_flush(arb_mirror_t *m, arb_buf_t *why)
{
    size_t i, nc = 0, nk = 0;
    int    rc = 0;

    if (m->n == 0)
        return 0;
    /* A dealt open still waiting for its deal message stays in the batch
     * (a replica flushes every few milliseconds, a restore every
     * BATCH_MAX events, and the open then went without its secret: a
     * restored recorder could not judge the match).  The rest is
     * committed: a waiting open has no successor in the batch (its seq 1
     * ends the wait).  Never more than half a batch is kept. */
    for (i = 0; i < m->n; i++) {
        entry_t *e = &m->batch[i];

        if (e->m->open_pending && e->m->open_at == i
            && e->m->deal_waits >= DEAL_PATIENCE)
            deal_lookup(m, e->m);       /* the wait is over */
        e->keep = e->m->open_pending && e->m->open_at == i
                  && e->m->deal_waits < DEAL_PATIENCE;
        nk += e->keep;
    }
    if (nk > BATCH_MAX / 2)
        nk = 0;
    for (i = 0; i < m->n; i++) {
        if (nk > 0 && m->batch[i].keep)
            continue;
        m->batch[i].keep = 0;
        m->v[nc++] = m->batch[i].ap;
    }
    if (nc > 0) {
        rc = arb_store_append_batch(m->store, m->v, nc, why);
        if (rc == 0 && m->appended != NULL)
            m->appended(m->aud, m->v[0].pos, m->v[nc - 1].pos);
        if (rc == 0)
            m->st.events += nc;
    }
    for (i = 0, nk = 0; i < m->n; i++) {
        entry_t *e = &m->batch[i];

        if (rc == 0 && e->keep) {
            e->m->deal_waits++;
            e->m->open_at = nk;
            if (nk != i) {
                m->batch[nk] = *e;
                memset(e, 0, sizeof(*e));
            }
            nk++;
            continue;
        }
        if (e->m != NULL && e->m->open_pending && e->m->open_at == i)
            e->m->open_pending = 0;         /* gone without its secret */
        if (rc == 0 && e->m != NULL && e->ap.secret != NULL)
            e->m->secret_sseq = 0;      /* stored: not read again */
        if (rc == 0 && e->m != NULL && e->m->closed) {
            rules_evict(m, e->m);
            e->m->secret_sseq = 0;      /* the close reveals the deal */
        }
        entry_clear(e);
    }
    m->n = nk;
    return rc;
}

size_t
arb_mirror_held(const arb_mirror_t *m)
{
    return m->n;
}

uint64_t
arb_mirror_resume_seq(const arb_mirror_t *m)
{
    uint64_t low = m->st.last_stream_seq + 1;
    size_t   i, j;

    for (i = 0; i < m->n; i++)
        low = min_seq(low, read_at(&m->batch[i].msg));
    for (i = 0; i < m->nmt; i++) {
        const mt_t *t = m->mts[i];

        for (j = 0; j < t->nwait; j++)
            low = min_seq(low, read_at(&t->wait[j]));
        low = min_seq(low, t->keep_from);
        low = min_seq(low, t->secret_sseq);
    }
    return low;
}

/* A place read after upto moves to upto + 1, where the stream is read
 * again from; a place at or before it (0: not known) stays. */
static uint64_t
replaced(uint64_t sseq, uint64_t upto)
{
    return sseq > upto ? upto + 1 : sseq;
}

void
arb_mirror_restream(arb_mirror_t *m, uint64_t upto)
{
    size_t i, j;

    if (m->st.last_stream_seq > upto)
        m->st.last_stream_seq = upto;
    for (i = 0; i < m->n; i++)
        m->batch[i].msg.stream_seq = replaced(m->batch[i].msg.stream_seq,
                                              upto);
    for (i = 0; i < m->nmt; i++) {
        mt_t *t = m->mts[i];

        for (j = 0; j < t->nwait; j++)
            t->wait[j].stream_seq = replaced(t->wait[j].stream_seq, upto);
        t->keep_from = replaced(t->keep_from, upto);
        t->secret_sseq = replaced(t->secret_sseq, upto);
    }
}

/* h(seq) as held: in the batch or in the store, and whether its bytes
 * are bytes/len (*same).  0 or ARB_ENOTFOUND. */
typedef struct held {
    unsigned char hash[ARB_HASH_LEN];
    int           got, same;
    const void   *bytes;
    size_t        len;
} held_t;

static int
on_held(void *ud, uint64_t seq, int64_t time_ms,
        const unsigned char hash[ARB_HASH_LEN], const void *bytes,
        size_t len)
{
    held_t *h = ud;

    (void)seq; (void)time_ms;
    memcpy(h->hash, hash, ARB_HASH_LEN);
    h->same = len == h->len && memcmp(bytes, h->bytes, len) == 0;
    h->got = 1;
    return 0;
}

static int
held_hash(arb_mirror_t *m, mt_t *t, uint64_t seq,
          unsigned char out[ARB_HASH_LEN], const void *bytes, size_t len,
          int *same)
{
    held_t h;
    size_t i;

    memset(&h, 0, sizeof(h));
    h.bytes = bytes;
    h.len = len;
    /* In the batch: the message's hash, which the chain gave when it
     * went in (ap.hash is the commit's output, stale until then: until
     * 2026-12-04 an event read twice before its commit was taken for a
     * fork and its match stopped). */
    for (i = 0; i < m->n; i++)
        if (m->batch[i].m == t && m->batch[i].ap.seq == seq) {
            memcpy(out, m->batch[i].msg.hash, ARB_HASH_LEN);
            *same = m->batch[i].msg.len == len
                    && memcmp(m->batch[i].msg.bytes, bytes, len) == 0;
            return 0;
        }
    if (arb_store_events(m->store, t->id, seq, seq, on_held, &h, NULL) != 0
        || !h.got)
        return ARB_ENOTFOUND;
    memcpy(out, h.hash, ARB_HASH_LEN);
    *same = h.same;
    return 0;
}

/*
 * A running match judged on its chain only whose deal came after its
 * open was committed (a deal the stream had lost, put back by an
 * anti-entropy pass): judged from now on, its stored events replayed with
 * the secret, which goes to the store with its next event.  Until
 * 2026-12-05 it stayed on its chain only, and its state was refused.
 * Nothing of it may be in the batch for the replay: committed first.
 */
static int
judge_late(arb_mirror_t *m, mt_t *t, arb_buf_t *why)
{
    size_t i;
    int    rc;

    for (i = 0; i < m->n && m->batch[i].m != t; i++)
        ;
    if (i < m->n && (rc = arb_mirror_flush(m, why)) != 0)
        return rc;
    t->chain_only = 0;
    if (m->st.chain_only > 0)
        m->st.chain_only--;
    rules_load(m, t);           /* (stops t when the rules refuse it) */
    return 0;
}

static int
apply_deal(arb_mirror_t *m, mt_t *t, arb_stream_msg_t *msg,
           arb_buf_t *ewhy)
{
    arb_buf_t sec = ARB_BUF_INIT, why = ARB_BUF_INIT;
    int       rc = 0;

    if (!m->has_key || t->secret != NULL || t->stopped)
        goto done;
    if (arb_stream_deal_open(&sec, msg, m->key, &why) != 0) {
        /* why says which: not a sealed secret, not under this key, or
         * a secret no C string spells */
        stop(m, t, 0, "its deal message is refused: %s",
             arb_buf_cstr(&why) ? arb_buf_cstr(&why) : "");
        goto done;
    }
    t->secret = strdup(arb_buf_cstr(&sec) ? arb_buf_cstr(&sec) : "");
    if (t->secret == NULL)
        goto done;
    m->st.deals++;
    if (t->open_pending) {
        entry_t *e = &m->batch[t->open_at];

        e->ap.secret = strdup(t->secret);
        t->open_pending = 0;
    } else if (!t->closed) {
        t->secret_sseq = read_at(msg);  /* not stored with the open */
        t->secret_store = 1;
        if (t->chain_only)
            rc = judge_late(m, t, ewhy);
        /* (Only a secret that is served: one that opens the deal.) */
        if (rc == 0 && m->judged != NULL
            && arb_mirror_secret(m, t->id, &sec) == 0)
            m->judged(m->jud, t->id);
    }
done:
    arb_buf_free(&sec);
    arb_buf_free(&why);
    arb_stream_msg_clear(msg);
    return rc;
}

/*
 * A dealt open about to go without its secret (the wait for its deal
 * message is over: the match's next event came, patience ran out, or the
 * reading ended) asks the stream for the deal once, out of order: an
 * anti-entropy pass puts back a deal the stream lost at the stream's
 * end, after the match's later events (replicate_pass.c), and until
 * 2026-12-05 a restore met it too late and refused the running match.
 */
static void
deal_lookup(arb_mirror_t *m, mt_t *t)
{
    arb_stream_msg_t msg;

    if (m->deal_fn == NULL || !m->has_key || t->secret != NULL
        || t->stopped || t->looked)
        return;
    t->looked = 1;
    memset(&msg, 0, sizeof(msg));
    if (m->deal_fn(m->dud, t->id, &msg) != 0)
        return;
    if (msg.kind == ARB_STREAM_DEAL && strcmp(msg.match_id, t->id) == 0)
        apply_deal(m, t, &msg, NULL);   /* (takes msg; t not chain-only) */
    else
        arb_stream_msg_clear(&msg);
}

/* Stops t at its first missing seq, dropping what waits. */
static void
stop_gap(arb_mirror_t *m, mt_t *t, const char *more)
{
    stop(m, t, t->next, "first missing seq %" PRIu64 " (the stream goes on "
         "at seq %" PRIu64 "%s)", t->next, t->wait[0].seq, more);
}

/* Keeps msg (seq past t->next) until the seqs before it arrive: a
 * republished event comes after its successors on the subject.  Takes
 * msg.  0 or ARB_ENOMEM. */
static int
wait_add(arb_mirror_t *m, mt_t *t, arb_stream_msg_t *msg)
{
    char   hx[ARB_HASH_HEX];
    size_t lo = 0, hi = t->nwait;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (t->wait[mid].seq < msg->seq)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < t->nwait && t->wait[lo].seq == msg->seq) {
        if (memcmp(t->wait[lo].hash, msg->hash, ARB_HASH_LEN) == 0) {
            /* Counted as a copy of a held seq is (apply_ev): its hash
             * header with other bytes is a damaged copy, one of the two
             * (the one kept is judged by its link in its turn). */
            if (t->wait[lo].len == msg->len
                && memcmp(t->wait[lo].bytes, msg->bytes, msg->len) == 0)
                m->st.duplicates++;
            else
                m->st.damaged_copies++;
        } else {
            arb_hex(hx, msg->hash, ARB_HASH_LEN);
            stop(m, t, msg->seq, "the stream holds two events (one with "
                 "hash %s) for this seq: a fork", hx);
        }
        arb_stream_msg_clear(msg);
        return 0;
    }
    if (t->nwait >= m->wait_max || m->nwaiting >= m->wait_all) {
        if (t->nwait == 0)
            stop(m, t, t->next, "first missing seq %" PRIu64 " (the stream "
                 "goes on at seq %" PRIu64 ", and too many events of other "
                 "matches wait)", t->next, msg->seq);
        else
            stop_gap(m, t, ", and too many events wait for it");
        arb_stream_msg_clear(msg);
        return 0;
    }
    if (t->nwait == t->capwait) {
        size_t            cap = t->capwait ? 2 * t->capwait : 16;
        arb_stream_msg_t *w = realloc(t->wait, cap * sizeof(*w));

        if (w == NULL) {
            arb_stream_msg_clear(msg);
            return ARB_ENOMEM;
        }
        t->wait = w;
        t->capwait = cap;
    }
    memmove(&t->wait[lo + 1], &t->wait[lo],
            (t->nwait - lo) * sizeof(*t->wait));
    t->wait[lo] = *msg;
    memset(msg, 0, sizeof(*msg));
    t->nwait++;
    m->nwaiting++;
    return 0;
}

static int apply_ev(arb_mirror_t *m, mt_t *t, arb_stream_msg_t *msg,
                    arb_buf_t *why);

int
arb_mirror_apply(arb_mirror_t *m, arb_stream_msg_t *msg, arb_buf_t *why)
{
    arb_stream_msg_t next;
    mt_t            *t;
    int              rc = 0;

    if (msg->stream_seq > m->st.last_stream_seq)
        m->st.last_stream_seq = msg->stream_seq;
    m->cur_sseq = read_at(msg);
    t = mt_get(m, msg->match_id);
    if (t == NULL) {
        arb_stream_msg_clear(msg);
        rc = ARB_ENOMEM;
        goto out;
    }
    if (msg->recorder[0] != '\0' && strcmp(t->recorder, msg->recorder) != 0) {
        int first = t->recorder[0] == '\0';

        memcpy(t->recorder, msg->recorder, sizeof(t->recorder));
        if (m->recorded != NULL)
            m->recorded(m->rud, t->id, t->recorder, first);
    }
    if (msg->kind == ARB_STREAM_DEAL) {
        rc = apply_deal(m, t, msg, why);
        goto out;
    }
    if (t->stopped) {
        arb_stream_msg_clear(msg);
        goto out;
    }
    if (msg->seq > t->next) {
        rc = wait_add(m, t, msg);
        goto out;
    }
    rc = apply_ev(m, t, msg, why);
    /* What waited for this seq goes in, in seq order. */
    while (rc == 0 && !t->stopped && t->nwait > 0
           && t->wait[0].seq <= t->next) {
        next = t->wait[0];
        t->nwait--;
        m->nwaiting--;
        memmove(&t->wait[0], &t->wait[1], t->nwait * sizeof(*t->wait));
        rc = apply_ev(m, t, &next, why);
    }
out:
    m->cur_sseq = 0;
    return rc;
}

void
arb_mirror_finish(arb_mirror_t *m)
{
    size_t i;

    for (i = 0; i < m->nmt; i++) {
        if (!m->mts[i]->stopped && m->mts[i]->nwait > 0)
            stop_gap(m, m->mts[i], "");
        if (m->mts[i]->open_pending)
            deal_lookup(m, m->mts[i]);
        m->mts[i]->open_pending = 0;    /* no deal message comes now */
    }
}

size_t
arb_mirror_waiting(const arb_mirror_t *m)
{
    return m->nwaiting;
}

/* One event message whose seq is t->next or below.  Takes msg. */
static int
apply_ev(arb_mirror_t *m, mt_t *t, arb_stream_msg_t *msg, arb_buf_t *why)
{
    unsigned char  h[ARB_HASH_LEN], held[ARB_HASH_LEN];
    char           hx[ARB_HASH_HEX], sx[ARB_HASH_HEX];
    arb_buf_t      dwhy = ARB_BUF_INIT;
    arb_verdict_t  v;
    arb_event_t    ev;
    entry_t       *e;
    int            rc = 0, same = 0;

    memset(&ev, 0, sizeof(ev));
    memset(&v, 0, sizeof(v));
    m->cur_sseq = read_at(msg);
    if (msg->seq < t->next) {
        /* Read again (a restart re-reads the stream; anti-entropy may
         * republish): it must be what is held. */
        if (held_hash(m, t, msg->seq, held, msg->bytes, msg->len,
                      &same) == 0
            && memcmp(held, msg->hash, ARB_HASH_LEN) == 0) {
            /* The hash header is the held one's, and so must the bytes
             * be: a copy whose payload differs is damaged, not a fork
             * (what is held is whole), and counted (until 2026-12-06 it
             * passed for a duplicate, unseen). */
            if (same)
                m->st.duplicates++;
            else
                m->st.damaged_copies++;
            goto out;
        }
        arb_hex(hx, msg->hash, ARB_HASH_LEN);
        stop(m, t, msg->seq, "the stream holds a different event (hash "
             "%s) for a seq already recorded: a fork", hx);
        goto out;
    }
    arb_chain_next(t->next == 0 ? zero_hash : t->head, msg->bytes, msg->len,
                   h);
    if (memcmp(h, msg->hash, ARB_HASH_LEN) != 0) {
        arb_hex(hx, h, ARB_HASH_LEN);
        arb_hex(sx, msg->hash, ARB_HASH_LEN);
        stop(m, t, msg->seq, "broken hash link: the chain gives %s, the "
             "stream says %s", hx, sx);
        goto out;
    }
    if (arb_event_decode(&ev, msg->bytes, msg->len, &dwhy) != 0) {
        stop(m, t, msg->seq, "the event does not decode: %s",
             arb_buf_cstr(&dwhy) ? arb_buf_cstr(&dwhy) : "");
        goto out;
    }
    if (ev.seq != msg->seq || (msg->seq == 0) != (ev.kind == ARB_EV_OPEN)
        || (ev.kind == ARB_EV_OPEN
            && (ev.setup == NULL || ev.setup->match_id == NULL
                || strcmp(ev.setup->match_id, t->id) != 0))) {
        stop(m, t, msg->seq, "the event is not the %s of this match at "
             "this seq", msg->seq == 0 ? "open" : "event");
        goto out;
    }
    if (ev.kind == ARB_EV_OPEN) {
        if (arb_event_copy(&t->open, &ev) != 0) {
            rc = ARB_ENOMEM;
            goto out;
        }
        t->has_open = 1;
        if (ev.setup->deal.kind != ARB_DEAL_COMMIT)
            judge_open(m, t);
    } else {
        if (t->has_open)
            deal_lookup(m, t);      /* not come before its next event */
        t->open_pending = 0;        /* its deal, if any, came before */
        if (t->has_open)
            judge_open(m, t);
        if (t->evicted) {
            t->evicted = 0;
            rules_load(m, t);
            if (t->stopped)
                goto out;
        }
        if (t->rules != NULL
            && arb_match_apply(t->rules, &ev, &v) != 0) {
            stop(m, t, msg->seq, "refused by the rules (%s): %s", v.rule,
                 v.msg);
            goto out;
        }
    }
    if (t->stopped)
        goto out;
    /* Recorded: into the batch. */
    e = &m->batch[m->n];
    e->m = t;
    e->msg = *msg;
    memset(msg, 0, sizeof(*msg));
    e->ev = ev;
    memset(&ev, 0, sizeof(ev));
    e->ap.match_id = t->id;
    e->ap.game = e->ev.kind == ARB_EV_OPEN ? e->ev.setup->game : NULL;
    e->ap.seq = e->msg.seq;
    e->ap.time_ms = e->ev.time_ms;
    e->ap.bytes = e->msg.bytes;
    e->ap.len = e->msg.len;
    e->ap.client_id = e->ev.client_id;
    e->ap.closes = e->ev.kind == ARB_EV_CLOSE;
    t->closed |= e->ap.closes;
    e->ap.after_close = e->ev.kind == ARB_EV_CLAIM;
    if (t->secret_store && (e->ap.secret = strdup(t->secret)) != NULL)
        t->secret_store = 0;            /* (else with the next one) */
    if (e->ev.kind == ARB_EV_OPEN && t->has_open && m->has_key) {
        /* A dealt open: its secret may come next. */
        t->open_pending = 1;
        t->open_at = m->n;
        t->deal_waits = 0;
    }
    m->n++;
    t->next = e->ap.seq + 1;
    memcpy(t->head, h, ARB_HASH_LEN);
    if (e->ap.seq == 0)
        m->st.opens++;
    /* Full: commit, unless a dealt open waits for its deal message (it
     * comes right after the open; the batch has one spare slot). */
    if (m->n >= BATCH_MAX
        && !(m->n == BATCH_MAX && t->open_pending))
        rc = arb_mirror_flush(m, why);
out:
    arb_event_clear(&ev);
    arb_buf_free(&dwhy);
    arb_stream_msg_clear(msg);
    return rc;
}

int
arb_mirror_stopped(const arb_mirror_t *m, const char *match_id)
{
    int    found;
    size_t at = mt_find(m, match_id, &found);

    return found && m->mts[at]->stopped;
}

int
arb_mirror_secret(const arb_mirror_t *m, const char *match_id,
                  arb_buf_t *out)
{
    int            found;
    size_t         at = mt_find(m, match_id, &found);
    const mt_t    *t = found ? m->mts[at] : NULL;
    char           kind[ARB_DEAL_KIND_MAX];
    const char    *secret;
    arb_verdict_t  v;

    /* Only a secret that opens the commitment: the match was judged with
     * it (one that did not open it stopped the match), or, its open not
     * judged yet (no move so far), it is checked here.  A match left on
     * its chain only (a deal met after its close) has not tried it. */
    if (t == NULL || t->secret == NULL || t->stopped || t->chain_only)
        return ARB_ENOTFOUND;
    if (t->has_open
        && (t->open.setup == NULL
            || arb_deal_stored_parse(t->secret, kind, &secret) != 0
            || arb_deal_check(t->open.setup->deal.seed_hash, kind, secret,
                              &v) != 0))
        return ARB_ENOTFOUND;
    out->len = 0;
    arb_buf_puts(out, t->secret);
    return out->oom ? ARB_ENOMEM : 0;
}

int
arb_mirror_recorder(const arb_mirror_t *m, const char *match_id, char *out,
                    size_t cap)
{
    int    found;
    size_t at = mt_find(m, match_id, &found);

    if (!found || m->mts[at]->recorder[0] == '\0')
        return ARB_ENOTFOUND;
    snprintf(out, cap, "%s", m->mts[at]->recorder);
    return 0;
}
