/*
 * store_verify.c - the chain check of a whole store, reading each batch
 * of matches' events in log position order.
 *
 * DESIGN: a store interleaves its matches in the log, so checking one
 * match at a time reads each of its events with a B-tree lookup of its
 * own, all over the file: more than half of a store verify's time, more
 * than BLAKE2b itself.  So each thread (one per CPU) takes its matches
 * (t, t + T, ... in id order) in batches of up to BATCH_EVENTS events,
 * gathers their positions as arb_store_events would read them (the index,
 * then the tail), reads them in position order with one cursor -- a step
 * to the next record when it is near, as it mostly is -- and checks each
 * match's links in seq order from the stored hashes: link n holds when
 * BLAKE2b(stored h(n-1) || event n) == stored h(n), and a chain whose
 * links all hold is the chain a serial walk recomputes.  Then, as the
 * match by match check, the head against the match's summary and no
 * index entry past it.
 *
 * This pass only shows that everything holds.  At its first doubt
 * (anything that does not hold, or cannot be read) it stops, and the
 * caller verifies match by match (store_read.c), which words the problem
 * and names the first failing match in id order exactly as before.  A
 * batch holds its read transaction only for its own events, so a long
 * verification does not hold a map lock for its length.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/ledger/chain.h"
#include "core/ledger/store_int.h"

#define BATCH_EVENTS 65536      /* events read in one transaction */
#define NEAR         16         /* records stepped over rather than sought */
#define THREADS_MAX  16

typedef struct vev {
    uint64_t             pos, seq;
    size_t               m;         /* its match, within the batch */
    const unsigned char *hash, *bytes;
    size_t               len;
} vev_t;

typedef struct vmatch {
    const char      *id;
    size_t           idlen, first, n;   /* its events: ev[first..first+n) */
    arb_match_info_t info;
} vmatch_t;

/* The order events are read in: by log position. */
typedef struct vord {
    uint64_t pos;
    size_t   i;             /* into t->ev */
} vord_t;

static int
by_pos(const void *a, const void *b)
{
    uint64_t x = ((const vord_t *)a)->pos, y = ((const vord_t *)b)->pos;

    return x < y ? -1 : x > y;
}

typedef struct vthread {
    arb_store_t      *s;
    const char      (*ids)[ARB_STORE_ID_MAX + 1];
    size_t            nids, first, step;
    atomic_int       *doubt;         /* set by the first thread in doubt */
    vev_t            *ev;
    size_t            nev, cap;
    vmatch_t         *m;
    size_t            nm, capm;
    vord_t           *ord;          /* the events in position order */
} vthread_t;

static int
add_pos(void *ud, uint64_t seq, uint64_t pos)
{
    vthread_t *t = ud;
    vev_t     *e;

    if (t->nev == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 4096;
        e = realloc(t->ev, cap * sizeof(*e));
        if (e == NULL)
            return ARB_ENOMEM;
        t->ev = e;
        t->cap = cap;
    }
    e = &t->ev[t->nev++];
    memset(e, 0, sizeof(*e));
    e->pos = pos;
    e->seq = seq;
    e->m = t->nm;
    return 0;
}

/* Reads every event of the batch, in position order, into t->ev. */
static int
read_batch(vthread_t *t, MDB_txn *txn)
{
    MDB_cursor   *c = NULL;
    MDB_val       k, d;
    arb__rec_t    r;
    unsigned char lk[8];
    uint64_t      at = 0;       /* the cursor's position, 0 = none */
    size_t        i;
    vev_t        *e;
    int           rc = 0, mrc;

    if (mdb_cursor_open(txn, t->s->dlog, &c) != 0)
        return ARB_ECORRUPT;
    for (i = 0; rc == 0 && i < t->nev; i++) {
        e = &t->ev[t->ord[i].i];
        if (at != 0 && e->pos > at && e->pos - at <= NEAR) {
            do
                mrc = mdb_cursor_get(c, &k, &d, MDB_NEXT);
            while (mrc == 0 && ++at < e->pos);
        } else {
            arb__put64(lk, e->pos);
            k.mv_data = lk;
            k.mv_size = 8;
            mrc = mdb_cursor_get(c, &k, &d, MDB_SET_KEY);
            at = e->pos;
        }
        if (mrc != 0 || k.mv_size != 8 || arb__get64(k.mv_data) != e->pos
            || arb__rec_parse(&r, e->pos, &d, NULL) != 0
            || r.seq != e->seq || r.idlen != t->m[e->m].idlen
            || memcmp(r.id, t->m[e->m].id, r.idlen) != 0) {
            rc = ARB_ECORRUPT;
            break;
        }
        e->hash = r.hash;
        e->bytes = r.bytes;
        e->len = r.len;
    }
    mdb_cursor_close(c);
    return rc;
}

/* The links and the head of every match of the batch. */
static int
check_batch(vthread_t *t)
{
    unsigned char h[ARB_HASH_LEN];
    vmatch_t     *m;
    vev_t        *e;
    size_t        j, i;

    for (j = 0; j < t->nm; j++) {
        m = &t->m[j];
        if (m->n != m->info.last_seq + 1)
            return ARB_ECORRUPT;
        for (i = 0; i < m->n; i++) {
            e = &t->ev[m->first + i];
            if (e->seq != i)
                return ARB_ECORRUPT;
            arb_chain_next(i == 0 ? NULL : e[-1].hash, e->bytes, e->len, h);
            if (memcmp(h, e->hash, ARB_HASH_LEN) != 0)
                return ARB_ECORRUPT;
        }
        if (memcmp(t->ev[m->first + m->n - 1].hash, m->info.head,
                   ARB_HASH_LEN) != 0)
            return ARB_ECORRUPT;
    }
    return 0;
}

/* t->ord: the batch's events by position.  A batch of interleaved
 * matches covers most positions of its stretch of the log, so each event
 * is placed at its offset in that stretch and the stretch is read in
 * order; a sparse one (a few matches far apart) is sorted.  ARB_ECORRUPT
 * when two events claim one position. */
static int
order(vthread_t *t)
{
    uint64_t lo = UINT64_MAX, hi = 0;
    size_t  *at, i, k = 0, span;

    free(t->ord);
    t->ord = malloc(t->nev * sizeof(*t->ord));
    if (t->ord == NULL)
        return ARB_ENOMEM;
    for (i = 0; i < t->nev; i++) {
        lo = t->ev[i].pos < lo ? t->ev[i].pos : lo;
        hi = t->ev[i].pos > hi ? t->ev[i].pos : hi;
    }
    span = hi - lo < 4 * (uint64_t)t->nev ? (size_t)(hi - lo) + 1 : 0;
    at = span > 0 ? malloc(span * sizeof(*at)) : NULL;
    if (at == NULL) {
        for (i = 0; i < t->nev; i++) {
            t->ord[i].pos = t->ev[i].pos;
            t->ord[i].i = i;
        }
        qsort(t->ord, t->nev, sizeof(*t->ord), by_pos);
        for (i = 1; i < t->nev; i++)
            if (t->ord[i].pos == t->ord[i - 1].pos)
                return ARB_ECORRUPT;
        return 0;
    }
    memset(at, 0xff, span * sizeof(*at));
    for (i = 0; i < t->nev; i++) {
        if (at[t->ev[i].pos - lo] != SIZE_MAX) {
            free(at);
            return ARB_ECORRUPT;
        }
        at[t->ev[i].pos - lo] = i;
    }
    for (i = 0; i < span; i++)
        if (at[i] != SIZE_MAX) {
            t->ord[k].pos = lo + i;
            t->ord[k++].i = at[i];
        }
    free(at);
    return 0;
}

static int
run_batch(vthread_t *t)
{
    MDB_txn *txn = NULL;
    size_t   i;
    int      rc;

    if (t->nev == 0)
        return 0;
    rc = order(t);
    if (rc == 0)
        rc = arb__txn_begin(&t->s->log, MDB_RDONLY, &txn, NULL);
    if (rc == 0)
        rc = read_batch(t, txn);
    if (rc == 0)
        rc = check_batch(t);
    arb__txn_abort(&t->s->log, txn);
    for (i = 0; rc == 0 && i < t->nm; i++)
        rc = arb__ix_past_head(t->s, t->m[i].id, t->m[i].idlen,
                               t->m[i].info.last_seq, NULL);
    t->nev = 0;
    t->nm = 0;
    return rc;
}

static void *
thread_main(void *arg)
{
    vthread_t *t = arg;
    vmatch_t  *m;
    size_t     i;
    int        rc = 0;

    for (i = t->first; rc == 0 && i < t->nids; i += t->step) {
        if (atomic_load(t->doubt))
            return NULL;
        if (t->nm == t->capm) {
            size_t cap = t->capm ? 2 * t->capm : 64;
            m = realloc(t->m, cap * sizeof(*m));
            if (m == NULL) {
                rc = ARB_ENOMEM;
                break;
            }
            t->m = m;
            t->capm = cap;
        }
        m = &t->m[t->nm];
        memset(m, 0, sizeof(*m));
        m->id = t->ids[i];
        m->idlen = strlen(m->id);
        m->first = t->nev;
        rc = arb__event_positions(t->s, m->id, m->idlen, add_pos, t,
                                  &m->info, NULL);
        m->n = t->nev - m->first;
        t->nm++;
        if (rc == 0 && t->nev >= BATCH_EVENTS)
            rc = run_batch(t);
    }
    if (rc == 0)
        rc = run_batch(t);
    if (rc != 0)
        atomic_store(t->doubt, 1);
    return NULL;
}

int
arb__verify_by_position(arb_store_t *s,
                        const char (*ids)[ARB_STORE_ID_MAX + 1], size_t n)
{
    vthread_t  th[THREADS_MAX];
    atomic_int doubt;
    unsigned   t, nt = arb_chain_threads();

    if (nt > THREADS_MAX)
        nt = THREADS_MAX;
    if (nt > n)
        nt = (unsigned)n;
    if (nt == 0)
        return 0;
    atomic_init(&doubt, 0);
    for (t = 0; t < nt; t++) {
        memset(&th[t], 0, sizeof(th[t]));
        th[t].s = s;
        th[t].ids = ids;
        th[t].nids = n;
        th[t].first = t;
        th[t].step = nt;
        th[t].doubt = &doubt;
    }
    arb_chain_run(nt, thread_main, th, sizeof(th[0]));
    for (t = 0; t < nt; t++) {
        free(th[t].ev);
        free(th[t].m);
        free(th[t].ord);
    }
    return atomic_load(&doubt) ? ARB_ECORRUPT : 0;
}
