/*
 * store_read.c - reads, verification and statistics.
 *
 * DESIGN: a read answers from two places that together hold every
 * committed event exactly once: the index (everything up to its mark) and
 * the tail in memory (everything past it).  The tail is always looked at
 * FIRST, and an index transaction opened AFTER: the index writer trims
 * the tail only once its own commit has returned, so whatever a reader
 * did not find in the tail is in any index transaction it opens later.
 * Event bytes and hashes always come from the log, by position.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/ledger/chain.h"
#include "core/ledger/store_int.h"

/* What the tail says of one match, copied out under its lock. */
typedef struct tsnap {
    int               found;
    arb_match_info_t  info;
    uint64_t          first;        /* first seq in the tail */
    uint64_t          from;         /* positions[] are of seqs from.. */
    uint64_t         *pos;
    size_t            npos;
} tsnap_t;

static int
tail_snap(arb_store_t *s, const char *id, size_t idlen, uint64_t from,
          uint64_t to, tsnap_t *t, arb_buf_t *why)
{
    arb__tmatch_t *m;
    uint64_t       lo, hi, q;
    int            rc = 0;

    memset(t, 0, sizeof(*t));
    rc = arb__ro_refresh(s, why);
    if (rc != 0)
        return rc;
    pthread_mutex_lock(&s->tail.lock);
    m = arb__tail_match(&s->tail, id, idlen);
    if (m != NULL) {
        t->found = 1;
        t->info = m->info;
        t->first = m->first;
        lo = from > m->first ? from : m->first;
        hi = to < m->info.last_seq ? to : m->info.last_seq;
        if (lo <= hi) {
            t->pos = malloc((size_t)(hi - lo + 1) * sizeof(*t->pos));
            if (t->pos == NULL) {
                arb__why(why, "out of memory");
                rc = ARB_ENOMEM;
            } else {
                for (q = lo; q <= hi; q++)
                    t->pos[t->npos++] = arb__tail_pos(m, q);
                t->from = lo;
            }
        }
    }
    pthread_mutex_unlock(&s->tail.lock);
    return rc;
}

/* The summary of a match: the tail's, else the index's. */
static int
summary(arb_store_t *s, const tsnap_t *t, MDB_txn *itxn, const char *id,
        size_t idlen, arb_match_info_t *out, arb_buf_t *why)
{
    char rp[ARB__REPR_MAX];

    if (t->found) {
        *out = t->info;
        return 0;
    }
    if (itxn == NULL) {
        arb__why(why, "match \"%s\" not found", arb__repr(rp, id, idlen));
        return ARB_ENOTFOUND;
    }
    return arb__ix_match(s, itxn, id, idlen, out, why);
}

int
arb_store_match(arb_store_t *s, const char *match_id, arb_match_info_t *out,
                arb_buf_t *why)
{
    MDB_txn *itxn = NULL;
    tsnap_t  t;
    size_t   idlen;
    int      rc;

    if (s == NULL || out == NULL ||
        !arb__str_ok(match_id, ARB_STORE_ID_MAX, &idlen)) {
        arb__why(why, "bad match id");
        return ARB_EINVAL;
    }
    rc = tail_snap(s, match_id, idlen, 1, 0, &t, why);
    if (rc == 0 && !t.found && s->have_ix)
        rc = arb__txn_begin(&s->ix, MDB_RDONLY, &itxn, why);
    if (rc == 0)
        rc = summary(s, &t, itxn, match_id, idlen, out, why);
    arb__txn_abort(&s->ix, itxn);
    free(t.pos);
    return rc;
}

/* One event read by position; checks the log record is the one the
 * index or tail said. */
/* What events() hands each event to: the event itself (cb), or only its
 * log position (pcb, when not NULL: nothing is read from the log). */
typedef struct sink {
    arb_store_event_cb  cb;
    arb__pos_cb         pcb;
    void               *ud;
    /* Hash links checked (cb only): each event's stored hash must be
     * BLAKE2b(previous hash || its bytes), the previous one read too when
     * the range starts past seq 0 (`from` is then the first delivered). */
    int                 verify;
    uint64_t            from;
    int                 have_prev;
    unsigned char       prev[ARB_HASH_LEN];
} sink_t;

static int
emit(arb_store_t *s, MDB_txn *ltxn, uint64_t pos, const char *id,
     size_t idlen, uint64_t seq, sink_t *k, arb_buf_t *why)
{
    arb__rec_t r;
    char       rp[ARB__REPR_MAX];
    int        rc;

    if (k->pcb != NULL)
        return k->pcb(k->ud, seq, pos);
    rc = arb__log_get(s, ltxn, pos, &r, why);
    if (rc != 0)
        return rc;
    if (r.seq != seq || r.idlen != idlen || memcmp(r.id, id, idlen) != 0) {
        arb__why(why, "match \"%s\" seq %llu: log key %llu holds another "
                 "event", arb__repr(rp, id, idlen), (unsigned long long)seq,
                 (unsigned long long)pos);
        return ARB_ECORRUPT;
    }
    if (k->verify) {
        /* (The event before the range only gives its hash: its own
         * link is that read's to check.) */
        if (seq < k->from) {
            memcpy(k->prev, r.hash, ARB_HASH_LEN);
            k->have_prev = 1;
            return 0;
        }
        /* (the caller names the match, as for its other refusals) */
        if ((seq == 0 || k->have_prev)
            && (rc = arb__link_check(seq == 0 ? NULL : k->prev, &r, 0,
                                     why)) != 0)
            return rc;
        memcpy(k->prev, r.hash, ARB_HASH_LEN);
        k->have_prev = 1;
    }
    return k->cb(k->ud, seq, r.time_ms, r.hash, r.bytes, r.len);
}

int
arb__link_check(const unsigned char *prev, const arb__rec_t *r,
                int name_match, arb_buf_t *why)
{
    unsigned char h[ARB_HASH_LEN];
    char          rp[ARB__REPR_MAX];

    arb_chain_next(prev, r->bytes, r->len, h);
    if (memcmp(h, r->hash, ARB_HASH_LEN) == 0)
        return 0;
    if (name_match)
        arb__why(why, "match \"%s\" seq %llu: " ARB__LINK_BROKEN,
                 arb__repr(rp, r->id, r->idlen), (unsigned long long)r->seq);
    else
        arb__why(why, "seq %llu: " ARB__LINK_BROKEN,
                 (unsigned long long)r->seq);
    return ARB_ECORRUPT;
}

/* Seqs from..hi of one match from the index, which must hold them all. */
static int
scan_index(arb_store_t *s, MDB_txn *itxn, MDB_txn *ltxn, const char *id,
           size_t idlen, uint64_t from, uint64_t hi, sink_t *sk,
           arb_buf_t *why)
{
    MDB_cursor    *c = NULL;
    MDB_val        k, d;
    unsigned char  want[ARB__SEQKEY_MAX];
    char           rp[ARB__REPR_MAX];
    uint64_t       seq;
    size_t         wlen;
    int            rc = 0, mrc;

    mrc = mdb_cursor_open(itxn, s->dseq, &c);
    if (mrc != 0) {
        rc = arb__mdb_fail(why, mrc, "open index cursor");
        goto fail;
    }
    k.mv_data = want;
    k.mv_size = wlen = arb__seq_key(want, id, idlen, from);
    mrc = mdb_cursor_get(c, &k, &d, MDB_SET_RANGE);
    for (seq = from;; seq++) {
        if (mrc != 0 && mrc != MDB_NOTFOUND) {
            rc = arb__mdb_fail(why, mrc, "read index");
            goto fail;
        }
        arb__put64(want + idlen + 1, seq);  /* the key of seq: id stays */
        if (mrc == MDB_NOTFOUND || k.mv_size != wlen ||
            memcmp(k.mv_data, want, wlen) != 0) {
            arb__why(why, "index seq key \"%s\"/%llu: missing",
                     arb__repr(rp, id, idlen), (unsigned long long)seq);
            rc = ARB_ECORRUPT;
            goto fail;
        }
        if (d.mv_size != 8) {
            arb__why(why, "index seq key \"%s\"/%llu: value is %zu bytes",
                     arb__repr(rp, id, idlen), (unsigned long long)seq,
                     d.mv_size);
            rc = ARB_ECORRUPT;
            goto fail;
        }
        rc = emit(s, ltxn, arb__get64(d.mv_data), id, idlen, seq, sk, why);
        if (rc != 0 || seq == hi)
            goto fail;
        mrc = mdb_cursor_get(c, &k, &d, MDB_NEXT);
    }
fail:
    mdb_cursor_close(c);
    return rc;
}

static int
events(arb_store_t *s, const char *id, size_t idlen, uint64_t from,
       uint64_t to, sink_t *sk, arb_match_info_t *info, arb_buf_t *why);

int
arb__event_positions(arb_store_t *s, const char *id, size_t idlen,
                     arb__pos_cb pcb, void *ud, arb_match_info_t *info,
                     arb_buf_t *why)
{
    sink_t sk = { NULL, pcb, ud, 0, 0, 0, { 0 } };

    return events(s, id, idlen, 0, UINT64_MAX, &sk, info, why);
}

/* The events of one match in seq order: the indexed part, then the tail.
 * *info receives the summary (may be NULL).  A verifying sink (sk->verify)
 * starts a seq early, for the hash the first event links to. */
static int
events(arb_store_t *s, const char *id, size_t idlen, uint64_t from,
       uint64_t to, sink_t *sk, arb_match_info_t *info, arb_buf_t *why)
{
    arb_match_info_t  m;
    MDB_txn          *itxn = NULL, *ltxn = NULL;
    tsnap_t           t;
    uint64_t          hi, ihi;
    size_t            i;
    int               rc;

    sk->from = from;
    if (sk->verify && from > 0 && from <= to)
        from--;
    rc = tail_snap(s, id, idlen, from, to, &t, why);
    if (rc != 0)
        goto fail;
    if (s->have_ix && (!t.found || from < t.first)) {
        rc = arb__txn_begin(&s->ix, MDB_RDONLY, &itxn, why);
        if (rc != 0)
            goto fail;
    }
    rc = summary(s, &t, itxn, id, idlen, &m, why);
    if (rc != 0)
        goto fail;
    if (info != NULL)
        *info = m;
    hi = to < m.last_seq ? to : m.last_seq;
    if (from > hi)
        goto fail;
    rc = arb__txn_begin(&s->log, MDB_RDONLY, &ltxn, why);
    if (rc != 0)
        goto fail;
    ihi = t.found ? (t.first > 0 ? t.first - 1 : 0) : hi;
    if (ihi > hi)
        ihi = hi;
    if ((!t.found || t.first > from) && from <= ihi) {
        if (itxn == NULL) {
            arb__why(why, "match \"%s\": no index for seq %llu",
                     m.match_id, (unsigned long long)from);
            rc = ARB_ECORRUPT;
            goto fail;
        }
        rc = scan_index(s, itxn, ltxn, id, idlen, from, ihi, sk, why);
    }
    for (i = 0; rc == 0 && i < t.npos; i++)
        rc = emit(s, ltxn, t.pos[i], id, idlen, t.from + i, sk, why);
fail:
    arb__txn_abort(&s->log, ltxn);
    arb__txn_abort(&s->ix, itxn);
    free(t.pos);
    return rc;
}

static int
events_of(arb_store_t *s, const char *match_id, uint64_t from, uint64_t to,
          arb_store_event_cb cb, void *ud, int verify, arb_buf_t *why)
{
    size_t idlen;
    sink_t sk = { cb, NULL, ud, verify, 0, 0, { 0 } };

    if (s == NULL || cb == NULL) {
        arb__why(why, "no store or no callback");
        return ARB_EINVAL;
    }
    if (!arb__str_ok(match_id, ARB_STORE_ID_MAX, &idlen)) {
        arb__why(why, "match id must be 1..%d bytes", ARB_STORE_ID_MAX);
        return ARB_EINVAL;
    }
    return events(s, match_id, idlen, from, to, &sk, NULL, why);
}

/* Every link read is checked: a byte of an event changed on the disk is
 * refused here rather than served, extended and signed under the hash it
 * no longer has (until 2026-12-06 only `arbiter check` saw it). */
int
arb_store_events(arb_store_t *s, const char *match_id, uint64_t from,
                 uint64_t to, arb_store_event_cb cb, void *ud,
                 arb_buf_t *why)
{
    return events_of(s, match_id, from, to, cb, ud, 1, why);
}

int
arb_store_events_unchecked(arb_store_t *s, const char *match_id,
                           uint64_t from, uint64_t to, arb_store_event_cb cb,
                           void *ud, arb_buf_t *why)
{
    return events_of(s, match_id, from, to, cb, ud, 0, why);
}

typedef struct hash_at {
    unsigned char *hash;
    int            found;
} hash_at_t;

static int
on_hash(void *ud, uint64_t seq, int64_t t,
        const unsigned char hash[ARB_HASH_LEN], const void *bytes,
        size_t len)
{
    hash_at_t *x = ud;

    (void)seq, (void)t, (void)bytes, (void)len;
    memcpy(x->hash, hash, ARB_HASH_LEN);
    x->found = 1;
    return 1;
}

int
arb_store_event_hash(arb_store_t *s, const char *match_id, uint64_t seq,
                     unsigned char hash[ARB_HASH_LEN], arb_buf_t *why)
{
    hash_at_t x = { hash, 0 };
    sink_t    sk = { on_hash, NULL, &x, 0, 0, 0, { 0 } };
    size_t    idlen;
    int       rc;

    /* The stored hash alone, unchecked: a link is checked where it is
     * read with its bytes (arb_store_events). */
    if (s == NULL || !arb__str_ok(match_id, ARB_STORE_ID_MAX, &idlen)) {
        arb__why(why, "no store, or match id not 1..%d bytes",
                 ARB_STORE_ID_MAX);
        return ARB_EINVAL;
    }
    rc = events(s, match_id, idlen, seq, seq, &sk, NULL, why);
    if (rc != 0 && rc != 1)     /* 1: on_hash stopped the walk */
        return rc;
    return x.found ? 0 : ARB_ENOTFOUND;
}

int
arb__log_walk(arb_store_t *s, uint64_t from_pos, uint64_t max,
              arb__log_rec_cb cb, int (*fin)(void *ud, int rc), void *ud,
              arb_buf_t *why)
{
    MDB_txn       *txn = NULL;
    MDB_cursor    *c = NULL;
    MDB_val        k, d;
    arb__rec_t     r;
    unsigned char  lk[8];
    uint64_t       pos, done = 0;
    int            rc, mrc;

    if (s == NULL || cb == NULL) {
        arb__why(why, "no store or no callback");
        return ARB_EINVAL;
    }
    if (from_pos == 0)
        from_pos = 1;
    rc = arb__txn_begin(&s->log, MDB_RDONLY, &txn, why);
    if (rc != 0)
        goto fail;
    mrc = mdb_cursor_open(txn, s->dlog, &c);
    if (mrc != 0) {
        rc = arb__mdb_fail(why, mrc, "open log cursor");
        goto fail;
    }
    arb__put64(lk, from_pos);
    k.mv_data = lk;
    k.mv_size = 8;
    mrc = mdb_cursor_get(c, &k, &d, MDB_SET_RANGE);
    for (pos = from_pos; mrc == 0 && (max == 0 || done < max); pos++) {
        if (k.mv_size != 8) {
            arb__why(why, "log: a key is %zu bytes, want 8", k.mv_size);
            rc = ARB_ECORRUPT;
            goto unread;
        }
        if (arb__get64(k.mv_data) != pos) {
            arb__why(why, "log key %llu: missing", (unsigned long long)pos);
            rc = ARB_ECORRUPT;
            goto unread;
        }
        rc = arb__rec_parse(&r, pos, &d, why);
        if (rc != 0)
            goto unread;
        rc = cb(ud, &r);
        if (rc != 0)
            goto fail;
        done++;
        mrc = mdb_cursor_get(c, &k, &d, MDB_NEXT);
    }
    if (mrc != 0 && mrc != MDB_NOTFOUND)
        rc = arb__mdb_fail(why, mrc, "read log");
unread:
    /* Still inside the snapshot: what cb kept of it is still valid. */
    if (fin != NULL)
        rc = fin(ud, rc);
fail:
    mdb_cursor_close(c);
    arb__txn_abort(&s->log, txn);
    return rc;
}

/* arb_store_log_unchecked's callback, handed each record with its id
 * ended. */
typedef struct log_pub {
    arb_store_log_cb cb;
    void            *ud;
} log_pub_t;

static int
log_pub(void *ud, const arb__rec_t *r)
{
    const log_pub_t *lp = ud;
    char             id[ARB_STORE_ID_MAX + 1];

    memcpy(id, r->id, r->idlen);
    id[r->idlen] = '\0';
    return lp->cb(lp->ud, r->pos, id, r->seq, r->time_ms, r->hash, r->bytes,
                  r->len);
}

int
arb_store_log_unchecked(arb_store_t *s, uint64_t from_pos, uint64_t max,
                        arb_store_log_cb cb, void *ud, arb_buf_t *why)
{
    log_pub_t lp = { cb, ud };

    if (cb == NULL) {
        arb__why(why, "no store or no callback");
        return ARB_EINVAL;
    }
    return arb__log_walk(s, from_pos, max, log_pub, NULL, &lp, why);
}

static int
by_id(const void *a, const void *b)
{
    return strcmp(((const arb_match_info_t *)a)->match_id,
                  ((const arb_match_info_t *)b)->match_id);
}

/* The tail's matches, sorted by id, copied out under its lock. */
static int
tail_matches(arb_store_t *s, arb_match_info_t **out, size_t *n,
             arb_buf_t *why)
{
    arb__tmatch_t *m;
    size_t         b, i = 0;
    int            rc;

    *out = NULL;
    *n = 0;
    rc = arb__ro_refresh(s, why);
    if (rc != 0)
        return rc;
    pthread_mutex_lock(&s->tail.lock);
    if (s->tail.nm > 0) {
        *out = malloc(s->tail.nm * sizeof(**out));
        if (*out == NULL) {
            pthread_mutex_unlock(&s->tail.lock);
            arb__why(why, "out of memory");
            return ARB_ENOMEM;
        }
        for (b = 0; b < s->tail.nmb; b++)
            for (m = s->tail.mb[b]; m != NULL; m = m->next)
                (*out)[i++] = m->info;
    }
    pthread_mutex_unlock(&s->tail.lock);
    *n = i;
    if (i > 1)
        qsort(*out, i, sizeof(**out), by_id);
    return 0;
}

int
arb_store_matches(arb_store_t *s, arb_store_match_cb cb, void *ud,
                  arb_buf_t *why)
{
    arb_match_info_t  m, *tm = NULL;
    MDB_txn          *txn = NULL;
    MDB_cursor       *c = NULL;
    MDB_val           k, d;
    char              rp[ARB__REPR_MAX], key[ARB_STORE_ID_MAX + 1];
    size_t            ntm = 0, j = 0;
    int               rc, mrc, cmp;

    if (s == NULL || cb == NULL) {
        arb__why(why, "no store or no callback");
        return ARB_EINVAL;
    }
    rc = tail_matches(s, &tm, &ntm, why);
    if (rc != 0 || !s->have_ix)
        goto rest;
    rc = arb__txn_begin(&s->ix, MDB_RDONLY, &txn, why);
    if (rc != 0)
        goto fail;
    mrc = mdb_cursor_open(txn, s->dmatches, &c);
    if (mrc != 0) {
        rc = arb__mdb_fail(why, mrc, "open matches cursor");
        goto fail;
    }
    for (mrc = mdb_cursor_get(c, &k, &d, MDB_FIRST); mrc == 0;
         mrc = mdb_cursor_get(c, &k, &d, MDB_NEXT)) {
        if (!arb__raw_id_ok(k.mv_data, k.mv_size, ARB_STORE_ID_MAX)) {
            arb__why(why, "matches key \"%s\": not a match id",
                     arb__repr(rp, k.mv_data, k.mv_size));
            rc = ARB_ECORRUPT;
            goto fail;
        }
        memcpy(key, k.mv_data, k.mv_size);
        key[k.mv_size] = '\0';
        cmp = -1;
        while (j < ntm && (cmp = strcmp(tm[j].match_id, key)) < 0)
            if ((rc = cb(ud, &tm[j++])) != 0)
                goto fail;
        if (j < ntm && cmp == 0) {
            rc = cb(ud, &tm[j++]);      /* the tail is newer */
        } else {
            rc = arb__rec_decode(&m, &d, k.mv_data, k.mv_size, why);
            if (rc == 0)
                rc = cb(ud, &m);
        }
        if (rc != 0)
            goto fail;
    }
    if (mrc != MDB_NOTFOUND) {
        rc = arb__mdb_fail(why, mrc, "read matches");
        goto fail;
    }
rest:
    while (rc == 0 && j < ntm)
        rc = cb(ud, &tm[j++]);
fail:
    mdb_cursor_close(c);
    arb__txn_abort(&s->ix, txn);
    free(tm);
    return rc;
}

int
arb_store_idem(arb_store_t *s, const char *match_id, const char *client_id,
               uint64_t *seq, unsigned char hash[ARB_HASH_LEN],
               arb_buf_t *why)
{
    return arb_store_idem_at(s, match_id, client_id, seq, NULL, hash, why);
}

int
arb_store_idem_at(arb_store_t *s, const char *match_id,
                  const char *client_id, uint64_t *seq, uint64_t *at_pos,
                  unsigned char hash[ARB_HASH_LEN], arb_buf_t *why)
{
    MDB_txn       *itxn = NULL, *ltxn = NULL;
    MDB_val        k, d;
    arb__tidem_t  *x;
    arb__rec_t     r;
    unsigned char  key[ARB__IDEMKEY_MAX];
    char           rp[ARB__REPR_MAX], rc2[ARB__REPR_MAX];
    uint64_t       q = 0, pos = 0;
    size_t         idlen, cidlen;
    int            rc, mrc, found = 0;

    if (s == NULL || !arb__str_ok(match_id, ARB_STORE_ID_MAX, &idlen) ||
        !arb__str_ok(client_id, ARB_STORE_CLIENT_MAX, &cidlen)) {
        arb__why(why, "bad match id or client id");
        return ARB_EINVAL;
    }
    rc = arb__ro_refresh(s, why);
    if (rc != 0)
        return rc;
    pthread_mutex_lock(&s->tail.lock);
    x = arb__tail_idem(&s->tail, match_id, idlen, client_id, cidlen);
    if (x != NULL) {
        q = x->seq;
        pos = x->pos;
        found = 1;
    }
    pthread_mutex_unlock(&s->tail.lock);
    if (!found && s->have_ix) {
        rc = arb__txn_begin(&s->ix, MDB_RDONLY, &itxn, why);
        if (rc != 0)
            goto fail;
        k.mv_data = key;
        k.mv_size = arb__idem_key(key, match_id, idlen, client_id, cidlen);
        mrc = mdb_get(itxn, s->didem, &k, &d);
        if (mrc == 0 && d.mv_size != 16) {
            arb__why(why, "idem key \"%s\"/\"%s\": value is %zu bytes, "
                     "want 16", arb__repr(rp, match_id, idlen),
                     arb__repr(rc2, client_id, cidlen), d.mv_size);
            rc = ARB_ECORRUPT;
            goto fail;
        }
        if (mrc == 0) {
            q = arb__get64(d.mv_data);
            pos = arb__get64((unsigned char *)d.mv_data + 8);
            found = 1;
        } else if (mrc != MDB_NOTFOUND) {
            rc = arb__mdb_fail(why, mrc, "read idem");
            goto fail;
        }
    }
    if (!found) {
        arb__why(why, "client id \"%s\" not used in match \"%s\"",
                 arb__repr(rc2, client_id, cidlen),
                 arb__repr(rp, match_id, idlen));
        rc = ARB_ENOTFOUND;
        goto fail;
    }
    rc = arb__txn_begin(&s->log, MDB_RDONLY, &ltxn, why);
    if (rc != 0)
        goto fail;
    rc = arb__log_get(s, ltxn, pos, &r, why);
    if (rc == 0 && (r.seq != q || r.idlen != idlen ||
                    memcmp(r.id, match_id, idlen) != 0 ||
                    r.cidlen != cidlen ||
                    memcmp(r.cid, client_id, cidlen) != 0)) {
        arb__why(why, "idem key \"%s\"/\"%s\": log key %llu holds another "
                 "event", arb__repr(rp, match_id, idlen),
                 arb__repr(rc2, client_id, cidlen),
                 (unsigned long long)pos);
        rc = ARB_ECORRUPT;
    }
    if (rc != 0)
        goto fail;
    if (seq != NULL)
        *seq = q;
    if (at_pos != NULL)
        *at_pos = pos;
    if (hash != NULL)
        memcpy(hash, r.hash, ARB_HASH_LEN);
fail:
    arb__txn_abort(&s->log, ltxn);
    arb__txn_abort(&s->ix, itxn);
    return rc;
}

int
arb_store_stats(arb_store_t *s, arb_store_stats_t *out, arb_buf_t *why)
{
    MDB_txn     *ltxn = NULL, *itxn = NULL;
    MDB_stat     st;
    MDB_envinfo  info;
    MDB_val      k, d;
    uint64_t     tmatches, tidem, tlo, imark;
    int          rc, mrc, tries;

    if (s == NULL || out == NULL) {
        arb__why(why, "no store or no output");
        return ARB_EINVAL;
    }
    memset(out, 0, sizeof(*out));
    out->batches = atomic_load_explicit(&s->t_batches, memory_order_relaxed);
    out->check_ns = atomic_load_explicit(&s->t_check, memory_order_relaxed);
    out->put_ns = atomic_load_explicit(&s->t_put, memory_order_relaxed);
    out->commit_ns = atomic_load_explicit(&s->t_commit,
                                          memory_order_relaxed);
    out->publish_ns = atomic_load_explicit(&s->t_publish,
                                           memory_order_relaxed);
    out->syncs = atomic_load_explicit(&s->t_syncs, memory_order_relaxed);
    out->sync_ns = atomic_load_explicit(&s->t_sync, memory_order_relaxed);
    out->synced_free = atomic_load_explicit(&s->t_synced_free,
                                            memory_order_relaxed);
    out->journal = s->jr != NULL;
    out->checkpoints = atomic_load(&s->ck_count);
    out->checkpoint_ns = atomic_load(&s->ck_ns);
    out->journal_bytes = atomic_load(&s->j_bytes);
    out->journal_laps = atomic_load(&s->j_laps);
    out->journal_replayed = s->jr_replayed;
    rc = arb__ro_refresh(s, why);
    if (rc != 0)
        return rc;
    /* The tail and the index must be counted at the same mark, or a
     * record trimmed in between is counted twice. */
    for (tries = 0;; tries++) {
        pthread_mutex_lock(&s->tail.lock);
        tmatches = s->tail.new_matches;
        tidem = s->tail.ni;
        tlo = s->tail.lo;
        out->tail_events = s->tail.qlen;
        out->index_commits = s->ix_commits;
        out->idle_trims = s->idle_trims;
        out->untrimmed = s->untrimmed;
        out->index_wakeups = s->ix_wakeups;
        pthread_mutex_unlock(&s->tail.lock);
        out->matches = tmatches;
        out->client_ids = tidem;
        out->indexed_pos = tlo - 1;
        if (!s->have_ix)
            break;
        rc = arb__txn_begin(&s->ix, MDB_RDONLY, &itxn, why);
        if (rc != 0)
            goto fail;
        k.mv_data = "indexed";
        k.mv_size = 7;
        imark = 0;
        if (mdb_get(itxn, s->dimeta, &k, &d) == 0 && d.mv_size >= 8)
            imark = arb__get64(d.mv_data);
        if (imark == tlo - 1 || tries >= 100) {
            if ((mrc = mdb_stat(itxn, s->dmatches, &st)) != 0) {
                rc = arb__mdb_fail(why, mrc, "stat");
                goto fail;
            }
            out->matches += st.ms_entries;
            if ((mrc = mdb_stat(itxn, s->didem, &st)) != 0) {
                rc = arb__mdb_fail(why, mrc, "stat");
                goto fail;
            }
            out->client_ids += st.ms_entries;
            mdb_env_info(s->ix.env, &info);
            mdb_env_stat(s->ix.env, &st);
            out->index_map_used = ((uint64_t)info.me_last_pgno + 1) *
                                  st.ms_psize;
            break;
        }
        arb__txn_abort(&s->ix, itxn);
        itxn = NULL;
    }
    rc = arb__txn_begin(&s->log, MDB_RDONLY, &ltxn, why);
    if (rc == 0)
        rc = arb__log_last(s, ltxn, &out->log_pos, why);
    if (rc != 0)
        goto fail;
    out->events = out->log_pos;
    mdb_env_info(s->log.env, &info);
    mdb_env_stat(s->log.env, &st);
    out->map_size = info.me_mapsize;
    out->map_max = s->log.map_max;
    out->page_size = st.ms_psize;
    out->map_used = ((uint64_t)info.me_last_pgno + 1) * st.ms_psize;
    out->grows = s->log.grows;
    out->format = ARB_STORE_FORMAT;
    out->readers_max = info.me_maxreaders;
    out->readers_used = info.me_numreaders;
    out->stale_readers = s->stale;
    out->read_only = s->read_only;
    out->failed = atomic_load(&s->state) != ST_OK;
    out->index_failed = atomic_load(&s->ix_failed);
    out->index_rebuilt = s->ix_rebuilt;
fail:
    arb__txn_abort(&s->log, ltxn);
    arb__txn_abort(&s->ix, itxn);
    return rc;
}

/*
 * Verifying.
 */
typedef struct vctx {
    const char    *id;
    size_t         idlen;
    unsigned char  h[ARB_HASH_LEN];
    arb_buf_t     *why;
} vctx_t;

static int
verify_cb(void *ud, uint64_t seq, int64_t time_ms,
          const unsigned char hash[ARB_HASH_LEN], const void *bytes,
          size_t len)
{
    vctx_t *v = ud;
    char    rp[ARB__REPR_MAX];

    (void)time_ms;
    arb_chain_next(seq == 0 ? NULL : v->h, bytes, len, v->h);
    if (memcmp(v->h, hash, ARB_HASH_LEN) != 0) {
        arb__why(v->why, "match \"%s\": seq %llu: stored hash does not "
                 "match the chain", arb__repr(rp, v->id, v->idlen),
                 (unsigned long long)seq);
        return ARB_ECORRUPT;
    }
    return 0;
}

static int
verify_one(arb_store_t *s, const char *id, size_t idlen, arb_buf_t *why)
{
    arb_match_info_t  m;
    vctx_t            v;
    sink_t            sk = { verify_cb, NULL, &v, 0, 0, 0, { 0 } };
    char              rp[ARB__REPR_MAX];
    int               rc;

    memset(&v, 0, sizeof(v));
    v.id = id;
    v.idlen = idlen;
    v.why = why;
    rc = events(s, id, idlen, 0, UINT64_MAX, &sk, &m, why);
    if (rc != 0)
        return rc;
    if (memcmp(v.h, m.head, ARB_HASH_LEN) != 0) {
        arb__why(why, "match \"%s\": seq %llu: head in matches record does "
                 "not match the chain", arb__repr(rp, id, idlen),
                 (unsigned long long)m.last_seq);
        return ARB_ECORRUPT;
    }
    return arb__ix_past_head(s, id, idlen, m.last_seq, why);
}

int
arb__ix_past_head(arb_store_t *s, const char *id, size_t idlen,
                  uint64_t last_seq, arb_buf_t *why)
{
    MDB_txn          *itxn = NULL;
    MDB_cursor       *c = NULL;
    MDB_val           k, d;
    unsigned char     key[ARB__SEQKEY_MAX];
    char              rp[ARB__REPR_MAX];
    int               rc, mrc;

    if (!s->have_ix)
        return 0;
    /* An index entry past the head would be invisible to readers; report
     * it here instead. */
    rc = arb__txn_begin(&s->ix, MDB_RDONLY, &itxn, why);
    if (rc != 0)
        return rc;
    mrc = mdb_cursor_open(itxn, s->dseq, &c);
    if (mrc != 0) {
        rc = arb__mdb_fail(why, mrc, "open index cursor");
        goto fail;
    }
    k.mv_data = key;
    k.mv_size = arb__seq_key(key, id, idlen, last_seq + 1);
    mrc = mdb_cursor_get(c, &k, &d, MDB_SET_RANGE);
    if (mrc == 0 && k.mv_size > idlen &&
        memcmp(k.mv_data, id, idlen) == 0 &&
        ((unsigned char *)k.mv_data)[idlen] == 0) {
        arb__why(why, "match \"%s\": seq %llu: event stored past the head",
                 arb__repr(rp, id, idlen),
                 (unsigned long long)(last_seq + 1));
        rc = ARB_ECORRUPT;
        goto fail;
    }
    if (mrc != 0 && mrc != MDB_NOTFOUND)
        rc = arb__mdb_fail(why, mrc, "read index");
fail:
    mdb_cursor_close(c);
    arb__txn_abort(&s->ix, itxn);
    return rc;
}

typedef struct idlist {
    char   (*id)[ARB_STORE_ID_MAX + 1];
    size_t n, cap;
} idlist_t;

static int
collect_cb(void *ud, const arb_match_info_t *m)
{
    idlist_t *l = ud;

    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 256;
        void  *p = realloc(l->id, nc * sizeof(*l->id));
        if (p == NULL)
            return ARB_ENOMEM;
        l->id = p;
        l->cap = nc;
    }
    memcpy(l->id[l->n++], m->match_id, sizeof(l->id[0]));
    return 0;
}

/*
 * Matches are independent chains, so a whole store is verified on one
 * thread per CPU: thread t takes matches t, t + T, t + 2T ... in id order
 * and stops at its first failure, or as soon as another thread has failed
 * at a match before its next one.  The failure of the lowest match index
 * is reported: the one a serial pass in id order reports, whatever the
 * threads' timing (every match before it was verified and passed).
 */
typedef struct vpart {
    arb_store_t    *s;
    const idlist_t *l;
    size_t          first, step;
    size_t          bad;        /* index of the failing match, or l->n */
    int             rc;
    arb_buf_t       why;
    atomic_size_t  *stop;       /* lowest failing index so far */
} vpart_t;

static void *
vpart_main(void *arg)
{
    vpart_t *p = arg;
    size_t   i, cur;

    for (i = p->first; i < p->l->n && i < atomic_load(p->stop);
         i += p->step) {
        p->rc = verify_one(p->s, p->l->id[i], strlen(p->l->id[i]), &p->why);
        if (p->rc != 0) {
            p->bad = i;
            cur = atomic_load(p->stop);
            while (i < cur && !atomic_compare_exchange_weak(p->stop, &cur, i))
                ;
            break;
        }
    }
    return NULL;
}

static int
verify_many(arb_store_t *s, const idlist_t *l, arb_buf_t *why)
{
    vpart_t       part[16];
    atomic_size_t stop;
    unsigned      t, nt = arb_chain_threads();
    vpart_t      *win = NULL;
    int           rc = 0;

    if (nt > 16)
        nt = 16;
    if (nt > l->n)
        nt = (unsigned)l->n;
    if (nt == 0)
        return 0;
    atomic_init(&stop, l->n);
    for (t = 0; t < nt; t++) {
        memset(&part[t], 0, sizeof(part[t]));
        part[t].s = s;
        part[t].l = l;
        part[t].first = t;
        part[t].step = nt;
        part[t].bad = l->n;
        part[t].stop = &stop;
    }
    arb_chain_run(nt, vpart_main, part, sizeof(part[0]));
    for (t = 0; t < nt; t++)
        if (part[t].rc != 0 && (win == NULL || part[t].bad < win->bad))
            win = &part[t];
    if (win != NULL) {
        rc = win->rc;
        if (why != NULL) {
            why->len = 0;
            arb_buf_puts(why, arb_buf_cstr(&win->why)
                              ? arb_buf_cstr(&win->why) : "");
        }
    }
    for (t = 0; t < nt; t++)
        arb_buf_free(&part[t].why);
    return rc;
}

int
arb_store_verify(arb_store_t *s, const char *match_id, arb_buf_t *why)
{
    idlist_t l = { NULL, 0, 0 };
    size_t   idlen = 0;
    uint64_t end = 0;
    int      rc, erc;

    if (s == NULL || (match_id != NULL &&
                      !arb__str_ok(match_id, ARB_STORE_ID_MAX, &idlen))) {
        arb__why(why, "bad match id");
        return ARB_EINVAL;
    }
    if (match_id != NULL)
        return verify_one(s, match_id, idlen, why);
    /* The ids first, then one match at a time in short transactions, so
     * that a long verification does not hold a map lock for its length.
     * The log's end before the ids: every match the log holds up to it
     * is listed. */
    erc = arb__verify_end(s, &end);
    rc = arb_store_matches(s, collect_cb, &l, why);
    if (rc == ARB_ENOMEM)
        arb__why(why, "out of memory");
    /* In log position order first; at any doubt match by match, which
     * words the problem (store_verify.c). */
    if (rc == 0 && (erc != 0 || arb__verify_by_position(
                       s, (const char (*)[ARB_STORE_ID_MAX + 1])l.id, l.n,
                       end) != 0))
        rc = verify_many(s, &l, why);
    free(l.id);
    return rc;
}

int
arb_store_secret(arb_store_t *s, const char *match_id, arb_buf_t *out,
                 arb_buf_t *why)
{
    MDB_txn *txn = NULL;
    MDB_val  k, d;
    char     sk[8 + ARB_STORE_ID_MAX];
    size_t   idlen;
    int      rc, mrc;

    if (s == NULL || out == NULL ||
        !arb__str_ok(match_id, ARB_STORE_ID_MAX, &idlen)) {
        arb__why(why, "bad argument");
        return ARB_EINVAL;
    }
    rc = arb__txn_begin(&s->log, MDB_RDONLY, &txn, why);
    if (rc != 0)
        return rc;
    memcpy(sk, "secret:", 7);
    memcpy(sk + 7, match_id, idlen);
    k.mv_data = sk;
    k.mv_size = 7 + idlen;
    mrc = mdb_get(txn, s->dmeta, &k, &d);
    if (mrc == MDB_NOTFOUND) {
        rc = ARB_ENOTFOUND;
    } else if (mrc != 0) {
        rc = arb__mdb_fail(why, mrc, "read deal secret");
    } else {
        out->len = 0;
        arb_buf_add(out, d.mv_data, d.mv_size);
        rc = arb_buf_cstr(out) == NULL ? ARB_ENOMEM : 0;
    }
    arb__txn_abort(&s->log, txn);
    return rc;
}

int
arb_store_index_failed(arb_store_t *s, arb_buf_t *why)
{
    if (s == NULL)
        return 0;
    /* ck_why is written before the state changes.  The reason replaces
     * what why held, as every store message does (arb__why): after a
     * commit that succeeded it may still hold the text of a lookup that
     * found nothing, as a new match's does. */
    if (atomic_load(&s->state) != ST_OK && s->ck_why[0] != '\0') {
        arb__why(why, "checkpoint failed: %s", s->ck_why);
        return 1;
    }
    if (!atomic_load(&s->ix_failed))
        return 0;
    pthread_mutex_lock(&s->tail.lock);
    arb__why(why, "index writer stopped: %s", s->ix_why);
    pthread_mutex_unlock(&s->tail.lock);
    return 1;
}
