/*
 * store_verify.c - the chain check of a whole store in one pass over the
 * log, its positions split among the threads.
 *
 * DESIGN: a store interleaves its matches in the log, so a check that
 * follows one match at a time reads each event with a lookup of its own
 * (or, match by match on several threads, has every thread step through
 * the whole log to reach its own events).  Here the log is read once, in
 * order: thread t (one per CPU) reads the positions of its own stretch of
 * the log with one cursor and follows every match it meets there.  Link
 * n of a chain holds when BLAKE2b(stored h(n-1) || event n) == stored
 * h(n), and a chain whose links all hold is the chain a serial walk
 * recomputes, so each link is checked where event n is read, from the
 * stored hash of event n-1 -- except the first event of a match in a
 * stretch after the first one, whose predecessor another thread read:
 * its bytes are kept and its link checked when the stretches are joined,
 * in log order, which also checks that each match's seqs run 0, 1, 2, ...
 * across the whole log.
 *
 * Then, on the threads again, match by match: the positions a reader
 * would use (the index, then the tail: arb__event_positions) must be the
 * ones the log holds, seq for seq -- the same count and the same sum of a
 * mix of (seq, position), so no position is stored -- the head in the
 * match's summary must be the last stored hash, and no index entry may
 * lie past it.  A match of the log that no summary lists is a doubt too.
 *
 * What is checked is the log up to `end`, its last position before the
 * caller listed the matches (arb__verify_end), so that every match the
 * log holds up to there is listed: events appended since belong to the
 * next verify (a match that moved on is checked up to end, its head left
 * out).
 *
 * This pass only shows that everything holds.  At its first doubt
 * (anything that does not hold, or cannot be read) it stops, and the
 * caller verifies match by match (store_read.c), which words the problem
 * and names the first failing match in id order.  A read transaction
 * covers at most BATCH_RECORDS records, so a long verification does not
 * keep the writer from reusing pages for its whole length.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/idhash.h"
#include "core/ledger/chain.h"
#include "core/ledger/store_int.h"

#define BATCH_RECORDS 65536     /* records read in one transaction */
#define THREADS_MAX   16

/* store_int.h: the threads (0: one per CPU), and the log length below
 * which one thread reads it all (its threads would cost more). */
unsigned arb__verify_threads;
uint64_t arb__verify_one_thread = 8192;

/* One match as one stretch of the log showed it (or, joined, the log). */
typedef struct vmatch {
    uint64_t       h;                   /* arb_id_hash of the id */
    size_t         idlen;
    char           id[ARB_STORE_ID_MAX + 1];
    uint64_t       first, next;         /* first seq seen, the next due */
    uint64_t       count, sum;          /* events; sum of mix(seq, pos) */
    unsigned char  last[ARB_HASH_LEN];  /* stored h(next - 1) */
    unsigned char  fhash[ARB_HASH_LEN]; /* stored h(first) */
    unsigned char *fbytes;              /* event first when first > 0: */
    size_t         flen;                /* its link is checked at the join */
} vmatch_t;

/* Matches by id: open addressing over index + 1, cap a power of 2. */
typedef struct vtab {
    vmatch_t *m;
    size_t    n, capm;
    size_t   *slot;
    size_t    cap;
} vtab_t;

typedef struct vthread {
    arb_store_t      *s;
    uint64_t          lo, hi;           /* phase 1: the stretch */
    vtab_t            tab;
    const vtab_t     *all;              /* phase 2: the joined matches */
    const char      (*ids)[ARB_STORE_ID_MAX + 1];
    size_t            nids, first, step;
    uint64_t          end;              /* the last position checked */
    size_t            found;            /* ids the log holds */
    atomic_int       *doubt;
} vthread_t;

/* Spreads (seq, pos) over 64 bits (splitmix64's finaliser), so that a
 * sum of them tells two sets of positions apart. */
static uint64_t
mix(uint64_t seq, uint64_t pos)
{
    uint64_t x = pos * 0x9e3779b97f4a7c15u ^ seq;

    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9u;
    x ^= x >> 29;
    return x;
}

static void
tab_free(vtab_t *t)
{
    size_t i;

    for (i = 0; i < t->n; i++)
        free(t->m[i].fbytes);
    free(t->m);
    free(t->slot);
    memset(t, 0, sizeof(*t));
}

/* The slot of id: the one holding it, or the empty one where it goes.
 * Every id passed here has ARB_ID_READABLE(idlen) bytes (core/idhash.h). */
static size_t *
tab_slot(const vtab_t *t, const char *id, size_t idlen, uint64_t h)
{
    size_t j, k;

    for (j = (size_t)h & (t->cap - 1); (k = t->slot[j]) != 0;
         j = (j + 1) & (t->cap - 1))
        if (t->m[k - 1].h == h && t->m[k - 1].idlen == idlen
            && arb_id_same(t->m[k - 1].id, id, idlen))
            break;
    return &t->slot[j];
}

static const vmatch_t *
tab_find(const vtab_t *t, const char *id, size_t idlen)
{
    size_t k;

    if (t->cap == 0)
        return NULL;
    k = *tab_slot(t, id, idlen, arb_id_hash(id, idlen));
    return k != 0 ? &t->m[k - 1] : NULL;
}

/* The match named id, added (zeroed, first = next = seq) when new;
 * NULL out of memory.  Pointers into t->m last until the next add. */
static vmatch_t *
tab_get(vtab_t *t, const char *id, size_t idlen, uint64_t seq)
{
    uint64_t  h = arb_id_hash(id, idlen);
    size_t   *sl, i;
    vmatch_t *m;

    if (t->cap > 0 && (i = *tab_slot(t, id, idlen, h)) != 0)
        return &t->m[i - 1];
    if (2 * (t->n + 1) > t->cap) {
        size_t  cap = t->cap ? 2 * t->cap : 1024;
        size_t *slot = calloc(cap, sizeof(*slot)), *old = t->slot;

        if (slot == NULL)
            return NULL;
        t->slot = slot;
        t->cap = cap;
        for (i = 0; i < t->n; i++)
            *tab_slot(t, t->m[i].id, t->m[i].idlen, t->m[i].h) = i + 1;
        free(old);
    }
    if (t->n == t->capm) {
        size_t cap = t->capm ? 2 * t->capm : 1024;

        m = realloc(t->m, cap * sizeof(*m));
        if (m == NULL)
            return NULL;
        t->m = m;
        t->capm = cap;
    }
    sl = tab_slot(t, id, idlen, h);
    m = &t->m[t->n++];
    memset(m, 0, sizeof(*m));
    m->h = h;
    m->idlen = idlen;
    memcpy(m->id, id, idlen);
    m->first = m->next = seq;
    *sl = t->n;
    return m;
}

/* One record of the stretch: its seq is its match's next, its link holds
 * (or, the match's first in a later stretch, is kept for the join). */
static int
take(vthread_t *t, const arb__rec_t *r)
{
    unsigned char h[ARB_HASH_LEN];
    char          pad[ARB_STORE_ID_MAX + 8];
    vmatch_t     *m;

    if (r->idlen > ARB_STORE_ID_MAX)
        return ARB_ECORRUPT;
    /* The id is followed in its record by the client id, the game and
     * the event: enough to read its last word in place, nearly always. */
    m = tab_get(&t->tab, arb_id_padded(r->id, r->idlen, r->idlen + r->cidlen
                                       + r->glen + r->len, pad),
                r->idlen, r->seq);
    if (m == NULL)
        return ARB_ENOMEM;
    if (r->seq != m->next)
        return ARB_ECORRUPT;
    if (r->seq == m->first && r->seq > 0) {
        m->fbytes = malloc(r->len);
        if (m->fbytes == NULL)
            return ARB_ENOMEM;
        memcpy(m->fbytes, r->bytes, r->len);
        m->flen = r->len;
        memcpy(m->fhash, r->hash, ARB_HASH_LEN);
    } else {
        arb_chain_next(r->seq == 0 ? NULL : m->last, r->bytes, r->len, h);
        if (memcmp(h, r->hash, ARB_HASH_LEN) != 0)
            return ARB_ECORRUPT;
    }
    memcpy(m->last, r->hash, ARB_HASH_LEN);
    m->next++;
    m->count++;
    m->sum += mix(r->seq, r->pos);
    return 0;
}

/* Phase 1: the positions lo..hi, in order, BATCH_RECORDS a transaction. */
static void *
scan_main(void *arg)
{
    vthread_t    *t = arg;
    MDB_txn      *txn = NULL;
    MDB_cursor   *c = NULL;
    MDB_val       k, d;
    arb__rec_t    r;
    unsigned char lk[8];
    uint64_t      pos = t->lo, n;
    int           rc = 0, mrc;

    while (rc == 0 && pos <= t->hi && !atomic_load(t->doubt)) {
        rc = arb__txn_begin(&t->s->log, MDB_RDONLY, &txn, NULL);
        if (rc == 0 && mdb_cursor_open(txn, t->s->dlog, &c) != 0)
            rc = ARB_ECORRUPT;
        for (n = 0; rc == 0 && n < BATCH_RECORDS && pos <= t->hi;
             n++, pos++) {
            if (n == 0) {
                arb__put64(lk, pos);
                k.mv_data = lk;
                k.mv_size = 8;
                mrc = mdb_cursor_get(c, &k, &d, MDB_SET_KEY);
            } else {
                mrc = mdb_cursor_get(c, &k, &d, MDB_NEXT);
            }
            if (mrc != 0 || k.mv_size != 8 || arb__get64(k.mv_data) != pos
                || arb__rec_parse(&r, pos, &d, NULL) != 0)
                rc = ARB_ECORRUPT;
            else
                rc = take(t, &r);
        }
        mdb_cursor_close(c);
        c = NULL;
        arb__txn_abort(&t->s->log, txn);
        txn = NULL;
    }
    if (rc != 0)
        atomic_store(t->doubt, 1);
    return NULL;
}

/* The stretches in log order into all: each match's seqs continue where
 * the previous stretch left them, and the link kept for the join holds. */
static int
join(vthread_t *th, unsigned nt, vtab_t *all)
{
    unsigned char h[ARB_HASH_LEN];
    vmatch_t     *m, *g;
    size_t        i;
    unsigned      t;

    for (t = 0; t < nt; t++)
        for (i = 0; i < th[t].tab.n; i++) {
            m = &th[t].tab.m[i];
            g = tab_get(all, m->id, m->idlen, 0);   /* new: from seq 0 */
            if (g == NULL)
                return ARB_ENOMEM;
            if (m->first != g->next)
                return ARB_ECORRUPT;
            if (m->first > 0) {
                arb_chain_next(g->last, m->fbytes, m->flen, h);
                if (memcmp(h, m->fhash, ARB_HASH_LEN) != 0)
                    return ARB_ECORRUPT;
            }
            g->next = m->next;
            g->count += m->count;
            g->sum += m->sum;
            memcpy(g->last, m->last, ARB_HASH_LEN);
        }
    return 0;
}

typedef struct vpos {
    uint64_t end, count, sum;
} vpos_t;

static int
add_pos(void *ud, uint64_t seq, uint64_t pos)
{
    vpos_t *p = ud;

    if (pos <= p->end) {
        p->count++;
        p->sum += mix(seq, pos);
    }
    return 0;
}

/* Phase 2: matches first, first + step, ...: what a reader would read is
 * what the log holds, and the summary's head is the chain's. */
static void *
match_main(void *arg)
{
    vthread_t        *t = arg;
    arb_match_info_t  info;
    const vmatch_t   *g;
    vpos_t            p;
    size_t            i, idlen;
    int               rc = 0;

    for (i = t->first; rc == 0 && i < t->nids; i += t->step) {
        if (atomic_load(t->doubt))
            return NULL;
        idlen = strlen(t->ids[i]);
        memset(&p, 0, sizeof(p));
        p.end = t->end;
        rc = arb__event_positions(t->s, t->ids[i], idlen, add_pos, &p,
                                  &info, NULL);
        if (rc != 0)
            break;
        g = tab_find(t->all, t->ids[i], idlen);
        if (g == NULL) {
            if (p.count != 0)
                rc = ARB_ECORRUPT;
            continue;           /* opened after the pass began */
        }
        t->found++;
        if (g->count != p.count || g->sum != p.sum
            || info.last_seq + 1 < g->next
            || (info.last_seq + 1 == g->next
                && memcmp(info.head, g->last, ARB_HASH_LEN) != 0))
            rc = ARB_ECORRUPT;
        else
            rc = arb__ix_past_head(t->s, t->ids[i], idlen, info.last_seq,
                                   NULL);
    }
    if (rc != 0)
        atomic_store(t->doubt, 1);
    return NULL;
}

int
arb__verify_end(arb_store_t *s, uint64_t *end)
{
    MDB_txn *txn = NULL;
    int      rc;

    *end = 0;
    rc = arb__txn_begin(&s->log, MDB_RDONLY, &txn, NULL);
    if (rc == 0)
        rc = arb__log_last(s, txn, end, NULL);
    arb__txn_abort(&s->log, txn);
    return rc;
}

int
arb__verify_by_position(arb_store_t *s,
                        const char (*ids)[ARB_STORE_ID_MAX + 1], size_t n,
                        uint64_t end)
{
    vthread_t  th[THREADS_MAX];
    vtab_t     all;
    atomic_int doubt;
    size_t     found = 0;
    unsigned   t, nt = arb__verify_threads ? arb__verify_threads
                                            : arb_chain_threads();

    memset(&all, 0, sizeof(all));
    if (nt > THREADS_MAX)
        nt = THREADS_MAX;
    if (end < arb__verify_one_thread)
        nt = 1;
    atomic_init(&doubt, 0);
    for (t = 0; t < nt; t++) {
        memset(&th[t], 0, sizeof(th[t]));
        th[t].s = s;
        th[t].lo = 1 + end * t / nt;
        th[t].hi = end * (t + 1) / nt;
        th[t].all = &all;
        th[t].ids = ids;
        th[t].nids = n;
        th[t].first = t;
        th[t].step = nt;
        th[t].end = end;
        th[t].doubt = &doubt;
    }
    arb_chain_run(nt, scan_main, th, sizeof(th[0]));
    if (!atomic_load(&doubt) && join(th, nt, &all) != 0)
        atomic_store(&doubt, 1);
    for (t = 0; t < nt; t++)
        tab_free(&th[t].tab);
    if (!atomic_load(&doubt))
        arb_chain_run(nt, match_main, th, sizeof(th[0]));
    for (t = 0; t < nt; t++)
        found += th[t].found;
    /* A match of the log that no summary lists. */
    if (!atomic_load(&doubt) && found != all.n)
        atomic_store(&doubt, 1);
    tab_free(&all);
    return atomic_load(&doubt) ? ARB_ECORRUPT : 0;
}
