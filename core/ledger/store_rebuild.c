/*
 * store_rebuild.c - the sorted bulk build of an empty index from the log.
 *
 * DESIGN: indexing record by record (store_index.c) inserts keys in log
 * order, which interleaves matches, so every index transaction rewrites a
 * leaf per tree for each match it touches: with many matches in play a
 * full rebuild rewrites far more pages than it keeps.  An empty index
 * instead is built in key order: one pass over the log collects every
 * entry (pointers into the log's map, held by one read transaction), the
 * entries are sorted the way LMDB orders the keys (bytewise, a shorter
 * key first when one is a prefix of the other), and each tree is written
 * with MDB_APPEND, filling each page once, in one transaction that also
 * writes the mark.  A crash during it loses the whole build (the next
 * open starts again); the chunked path keeps its chunks, but this one is
 * several times faster.  Memory: about 40 bytes per record, so a log
 * larger than ARB__BULK_MAX records takes the chunked path instead.
 */
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/ledger/store_int.h"

typedef struct sent {              /* one "seq" entry */
    const char *id;
    uint64_t    seq, pos;
    uint32_t    idlen;
    uint32_t    flags;              /* LR_* of its record */
} sent_t;

typedef struct ient {              /* one "idem" entry */
    const char *id, *cid;
    uint64_t    seq, pos;
    uint32_t    idlen, cidlen;
} ient_t;

/* LMDB's default order of byte keys: memcmp, then the shorter first. */
static int
cmp_bytes(const void *a, size_t na, const void *b, size_t nb)
{
    int c = memcmp(a, b, na < nb ? na : nb);

    return c != 0 ? c : na < nb ? -1 : na > nb;
}

/* Keys are id 0x00 seq/cid, and ids hold no NUL: comparing the ids first
 * (a prefix first) is comparing the keys.  Equal keys (a damaged log: a
 * seq or a client id used twice) go in log order, so that the refusal
 * names the later record whatever qsort does with ties (glibc's keeps
 * them in order only while its merge sort gets the memory it asks for). */
static int
cmp_pos(uint64_t a, uint64_t b)
{
    return a < b ? -1 : a > b;
}

static int
cmp_sent(const void *pa, const void *pb)
{
    const sent_t *a = pa, *b = pb;
    int           c = cmp_bytes(a->id, a->idlen, b->id, b->idlen);

    if (c == 0)
        c = cmp_pos(a->seq, b->seq);
    return c != 0 ? c : cmp_pos(a->pos, b->pos);
}

static int
cmp_ient(const void *pa, const void *pb)
{
    const ient_t *a = pa, *b = pb;
    int           c = cmp_bytes(a->id, a->idlen, b->id, b->idlen);

    if (c == 0)
        c = cmp_bytes(a->cid, a->cidlen, b->cid, b->cidlen);
    return c != 0 ? c : cmp_pos(a->pos, b->pos);
}

typedef struct bulk {
    sent_t *s;
    ient_t *i;
    size_t  ns, ni, capi;
} bulk_t;

/* Collects the entries of log records 1..last. */
static int
collect(arb_store_t *s, MDB_txn *ltxn, uint64_t last, bulk_t *b,
        arb_buf_t *why)
{
    MDB_cursor   *c = NULL;
    MDB_val       k, d;
    arb__rec_t    r;
    uint64_t      pos;
    int           rc = 0, mrc;

    b->s = malloc((size_t)last * sizeof(*b->s));
    if (b->s == NULL) {
        arb__why(why, "out of memory");
        return ARB_ENOMEM;
    }
    mrc = mdb_cursor_open(ltxn, s->dlog, &c);
    if (mrc != 0)
        return arb__mdb_fail(why, mrc, "open log cursor");
    mrc = mdb_cursor_get(c, &k, &d, MDB_FIRST);
    for (pos = 1; rc == 0 && pos <= last; pos++) {
        if (mrc != 0 || k.mv_size != 8 || arb__get64(k.mv_data) != pos) {
            arb__why(why, "log key %llu: missing", (unsigned long long)pos);
            rc = ARB_ECORRUPT;
            break;
        }
        rc = arb__rec_parse(&r, pos, &d, why);
        if (rc != 0)
            break;
        b->s[b->ns].id = r.id;
        b->s[b->ns].idlen = (uint32_t)r.idlen;
        b->s[b->ns].seq = r.seq;
        b->s[b->ns].pos = pos;
        b->s[b->ns].flags = r.flags;
        b->ns++;
        if (r.cidlen > 0) {
            if (b->ni == b->capi) {
                size_t  cap = b->capi ? 2 * b->capi : 1024;
                ient_t *ni = realloc(b->i, cap * sizeof(*ni));
                if (ni == NULL) {
                    arb__why(why, "out of memory");
                    rc = ARB_ENOMEM;
                    break;
                }
                b->i = ni;
                b->capi = cap;
            }
            b->i[b->ni].id = r.id;
            b->i[b->ni].idlen = (uint32_t)r.idlen;
            b->i[b->ni].cid = r.cid;
            b->i[b->ni].cidlen = (uint32_t)r.cidlen;
            b->i[b->ni].seq = r.seq;
            b->i[b->ni].pos = pos;
            b->ni++;
        }
        mrc = mdb_cursor_get(c, &k, &d, MDB_NEXT);
    }
    mdb_cursor_close(c);
    return rc;
}

static int
put(MDB_txn *itxn, MDB_dbi dbi, const void *k, size_t kn, const void *v,
    size_t vn, arb_buf_t *why, const char *what)
{
    MDB_val key = { kn, (void *)k }, val = { vn, (void *)v };
    int     mrc = mdb_put(itxn, dbi, &key, &val, MDB_APPEND);

    return mrc == 0 ? 0 : mrc == MDB_MAP_FULL ? ARB_EFULL
                                              : arb__mdb_fail(why, mrc, what);
}

/* The summary of the match whose sorted entries are e[0..n): its seqs
 * must be 0..n-1, as the chunked path checks them one by one. */
static int
summary(arb_store_t *s, MDB_txn *ltxn, const sent_t *e, size_t n,
        arb_match_info_t *m, arb_buf_t *why)
{
    arb__rec_t r;
    char       rp[ARB__REPR_MAX];
    size_t     j;
    int        rc;

    memset(m, 0, sizeof(*m));
    for (j = 0; j < n; j++) {
        if (e[j].seq != j) {
            arb__why(why, "log key %llu: match \"%s\" seq %llu follows %zu "
                     "earlier events", (unsigned long long)e[j].pos,
                     arb__repr(rp, e[j].id, e[j].idlen),
                     (unsigned long long)e[j].seq, j);
            return ARB_ECORRUPT;
        }
        if (e[j].flags & LR_CLOSES)
            m->closed = 1;
    }
    rc = arb__log_get(s, ltxn, e[0].pos, &r, why);
    if (rc != 0)
        return rc;
    memcpy(m->match_id, e[0].id, e[0].idlen);
    memcpy(m->game, r.game, r.glen);
    m->created_ms = r.time_ms;
    rc = arb__log_get(s, ltxn, e[n - 1].pos, &r, why);
    if (rc != 0)
        return rc;
    m->last_seq = n - 1;
    m->count = n;
    memcpy(m->head, r.hash, ARB_HASH_LEN);
    m->last_ms = r.time_ms;
    return 0;
}

/* Writes every tree in key order and the mark, in itxn. */
static int
write_all(arb_store_t *s, MDB_txn *ltxn, MDB_txn *itxn, const bulk_t *b,
          uint64_t last, arb_buf_t *why)
{
    unsigned char    key[ARB__IDEMKEY_MAX], v[16], rec[REC_LEN];
    unsigned char    mv[8 + ARB_HASH_LEN];
    arb_match_info_t m;
    arb__rec_t       r;
    MDB_stat         st;
    MDB_dbi          dbis[3] = { s->dseq, s->didem, s->dmatches };
    size_t           j, k, n;
    int              rc = 0;

    /* MDB_APPEND needs empty trees: anything else takes the chunked path. */
    for (j = 0; j < 3; j++)
        if (mdb_stat(itxn, dbis[j], &st) != 0 || st.ms_entries != 0)
            return ARB_EEXIST;
    for (j = 0; rc == 0 && j < b->ns; j++) {
        n = arb__seq_key(key, b->s[j].id, b->s[j].idlen, b->s[j].seq);
        arb__put64(v, b->s[j].pos);
        rc = put(itxn, s->dseq, key, n, v, 8, why, "write index seq");
    }
    for (j = 0; rc == 0 && j < b->ni; j++) {
        if (j > 0 && cmp_ient(&b->i[j - 1], &b->i[j]) == 0) {
            arb__rec_t dup;

            memset(&dup, 0, sizeof(dup));
            dup.pos = b->i[j].pos;
            dup.id = b->i[j].id;
            dup.idlen = b->i[j].idlen;
            dup.cid = b->i[j].cid;
            dup.cidlen = b->i[j].cidlen;
            return arb__cid_twice(&dup, why);
        }
        n = arb__idem_key(key, b->i[j].id, b->i[j].idlen, b->i[j].cid,
                          b->i[j].cidlen);
        arb__put64(v, b->i[j].seq);
        arb__put64(v + 8, b->i[j].pos);
        rc = put(itxn, s->didem, key, n, v, 16, why, "write index idem");
    }
    for (j = 0; rc == 0 && j < b->ns; j = k) {
        for (k = j + 1; k < b->ns && b->s[k].idlen == b->s[j].idlen
             && memcmp(b->s[k].id, b->s[j].id, b->s[j].idlen) == 0; k++)
            ;
        rc = summary(s, ltxn, &b->s[j], k - j, &m, why);
        if (rc == 0) {
            arb__rec_encode(rec, &m);
            rc = put(itxn, s->dmatches, m.match_id, b->s[j].idlen, rec,
                     REC_LEN, why, "write index matches");
        }
    }
    if (rc == 0)
        rc = arb__log_get(s, ltxn, last, &r, why);
    if (rc == 0) {
        MDB_val mk = { 7, "indexed" }, md = { sizeof(mv), mv };
        int     mrc;

        arb__put64(mv, last);
        memcpy(mv + 8, r.hash, ARB_HASH_LEN);
        mrc = mdb_put(itxn, s->dimeta, &mk, &md, 0);
        if (mrc != 0)
            rc = mrc == MDB_MAP_FULL ? ARB_EFULL
                                     : arb__mdb_fail(why, mrc,
                                                     "write index mark");
    }
    return rc;
}

int
arb__ix_bulk(arb_store_t *s, uint64_t last, arb_buf_t *why)
{
    MDB_txn *ltxn = NULL, *itxn;
    bulk_t   b;
    int      rc, mrc;

    memset(&b, 0, sizeof(b));
    if (last == 0 || last > ARB__BULK_MAX)
        return ARB_ETOOBIG;
    rc = arb__txn_begin(&s->log, MDB_RDONLY, &ltxn, why);
    if (rc == 0)
        rc = collect(s, ltxn, last, &b, why);
    if (rc != 0)
        goto out;
    if (b.ns > 1)
        qsort(b.s, b.ns, sizeof(*b.s), cmp_sent);
    if (b.ni > 1)
        qsort(b.i, b.ni, sizeof(*b.i), cmp_ient);
    for (;;) {
        rc = arb__txn_begin(&s->ix, 0, &itxn, why);
        if (rc != 0)
            break;
        rc = write_all(s, ltxn, itxn, &b, last, why);
        if (rc == 0) {
            mrc = arb__txn_commit(&s->ix, itxn);
            if (mrc == 0)
                break;
            rc = mrc == MDB_MAP_FULL ? ARB_EFULL
                                     : arb__mdb_fail(why, mrc,
                                                     "commit the index");
        } else {
            arb__txn_abort(&s->ix, itxn);
        }
        if (rc != ARB_EFULL)
            break;
        rc = arb__env_grow(&s->ix, why);
        if (rc != 0)
            break;
    }
out:
    arb__txn_abort(&s->log, ltxn);
    free(b.s);
    free(b.i);
    return rc;
}
