/*
 * store_index.c - the derived index: seq -> position, client ids, match
 * summaries, in a second environment (index.mdb beside data.mdb).
 *
 * DESIGN: everything here can be recomputed from the log, so it is kept
 * off the acknowledgement path and synced lazily.
 *   - One writer thread per read-write handle turns log records into
 *     index entries in bulk: it waits a few milliseconds for the tail to
 *     fill, then indexes everything past its mark in one transaction.  So
 *     the index costs a handful of commits per second, whatever the rate
 *     of acknowledgements.
 *   - The mark ("indexed": position and the hash of the record there) is
 *     written in the same transaction as the entries it covers, so the
 *     index is always exactly the log up to its mark.
 *   - The environment uses MDB_NOMETASYNC: data pages are flushed at
 *     commit, the meta page is not, so a machine crash loses at most the
 *     last index transactions, never the index's consistency; the log
 *     still has every record and the next open indexes them again.
 *   - On open the mark is checked against the log (position present, same
 *     hash).  A mark the log does not bear out (a log restored from a
 *     backup, an index file from another store), an index file that does
 *     not open, or one of another format, is deleted and rebuilt.
 *   - Then whatever the log holds past the mark is indexed before open
 *     returns (a crash while doing so keeps the chunks already committed).
 * Read-only handles never write here: they rebuild the tail in memory
 * from the mark to the end of the log, and refresh it before each read.
 */
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/err.h"
#include "core/fnv.h"
#include "core/ledger/store_int.h"

#define IX_FORMAT   2
#define IX_CHUNK    262144          /* records per index transaction */
#define IX_DELAY_MS 1000            /* let the tail fill for 1 s */
#define IX_TRIM_RECORDS 16384       /* trim the heap after this many */

int
arb__ix_match(arb_store_t *s, MDB_txn *itxn, const char *id, size_t idlen,
              arb_match_info_t *m, arb_buf_t *why)
{
    MDB_val k, d;
    char    rp[ARB__REPR_MAX];
    int     mrc;

    k.mv_data = (void *)id;
    k.mv_size = idlen;
    mrc = mdb_get(itxn, s->dmatches, &k, &d);
    if (mrc == MDB_NOTFOUND) {
        arb__why(why, "match \"%s\" not found", arb__repr(rp, id, idlen));
        return ARB_ENOTFOUND;
    }
    if (mrc != 0)
        return arb__mdb_fail(why, mrc, "read matches");
    return arb__rec_decode(m, &d, id, idlen, why);
}

static int
ix_path(arb_store_t *s, char *out, size_t cap, const char *suffix)
{
    int n = snprintf(out, cap, "%s/index.mdb%s", s->dir, suffix);

    return n > 0 && (size_t)n < cap ? 0 : ARB_ETOOBIG;
}

/* Reads the mark; 0 with *pos 0 when there is none. */
static int
mark_get(arb_store_t *s, MDB_txn *itxn, uint64_t *pos,
         unsigned char hash[ARB_HASH_LEN], arb_buf_t *why)
{
    MDB_val k, d;
    int     mrc;

    *pos = 0;
    memset(hash, 0, ARB_HASH_LEN);
    k.mv_data = "indexed";
    k.mv_size = 7;
    mrc = mdb_get(itxn, s->dimeta, &k, &d);
    if (mrc == MDB_NOTFOUND)
        return 0;
    if (mrc != 0)
        return arb__mdb_fail(why, mrc, "read index mark");
    if (d.mv_size != 8 + ARB_HASH_LEN) {
        arb__why(why, "index meta key \"indexed\": value is %zu bytes",
                 d.mv_size);
        return ARB_ECORRUPT;
    }
    *pos = arb__get64(d.mv_data);
    memcpy(hash, (unsigned char *)d.mv_data + 8, ARB_HASH_LEN);
    return 0;
}

static int
open_dbis(arb_store_t *s, MDB_txn *txn, unsigned flags, arb_buf_t *why)
{
    static const char *const names[] = { "seq", "idem", "matches", "meta" };
    MDB_dbi *dbis[] = { &s->dseq, &s->didem, &s->dmatches, &s->dimeta };
    size_t   i;
    int      mrc;

    for (i = 0; i < 4; i++) {
        mrc = mdb_dbi_open(txn, names[i], flags, dbis[i]);
        if (mrc != 0) {
            arb__why(why, "index database \"%s\": %s", names[i],
                     mdb_strerror(mrc));
            return arb__mdb_code(mrc);
        }
    }
    return 0;
}

/* Opens the index environment and checks its format and mark against the
 * log.  *usable is 0 when the file should be rebuilt. */
static int
ix_env_open(arb_store_t *s, int *usable, arb_buf_t *why)
{
    MDB_txn       *itxn = NULL, *ltxn = NULL;
    MDB_val        k, d;
    arb__rec_t     r;
    char           path[4096];
    unsigned char  v[4] = { 0, 0, 0, IX_FORMAT }, h[ARB_HASH_LEN];
    struct stat    st;
    MDB_envinfo    info;
    MDB_stat       ms;
    uint64_t       pos, last;
    size_t         used;
    int            rc, mrc, exists, wm, fresh = 0;

    *usable = 0;
    if (ix_path(s, path, sizeof(path), "") != 0) {
        arb__why(why, "%s: path too long", s->dir);
        return ARB_ETOOBIG;
    }
    exists = stat(path, &st) == 0;
    if ((!exists && s->read_only) || s->skip_index)
        return 0;
    /* Cut short, it would make LMDB fault (SIGBUS) where it reads past
     * the end: unreadable, so rebuilt (or, read-only, not used), as a
     * missing one (until 2026-12-06 `arbiter check` died on it). */
    if (exists && (rc = arb__env_cut_short(path, NULL)) != 0)
        return rc == 1 ? 0 : arb__mdb_fail(why, EIO, "read the index");
    /* The writer writes through the map (MDB_WRITEMAP), with the file
     * allocated on disk to the map's size first; where that allocation
     * fails it opens again the ordinary way (docs/STORE.md, "Memory"). */
    for (wm = !s->read_only;; wm = 0) {
        mrc = mdb_env_create(&s->ix.env);
        if (mrc != 0) {
            s->ix.env = NULL;
            return arb__mdb_fail(why, mrc, "create index environment");
        }
        mrc = mdb_env_set_maxdbs(s->ix.env, 8);
        if (mrc == 0 && !exists)
            mrc = mdb_env_set_mapsize(s->ix.env, s->map_size0);
        if (mrc == 0)
            mrc = mdb_env_open(s->ix.env, path, MDB_NOSUBDIR | MDB_NOTLS |
                               (s->read_only ? MDB_RDONLY : MDB_NOMETASYNC)
                               | (wm ? MDB_WRITEMAP : 0), 0600);
        if (mrc != 0 || !wm)
            break;
        mdb_env_info(s->ix.env, &info);
        if (arb__env_reserve(&s->ix, info.me_mapsize, NULL) == 0)
            break;
        /* What the failed allocation took is given back: the file down
         * to its pages in use (LMDB with MDB_WRITEMAP set its size to
         * the map's; without, it grows the file as it writes).  Until
         * 2026-12-06 it kept them: on a disk with less than the map free
         * a start failed, the disk full (a restored recorder fail-
         * stopped 155 appends later). */
        used = mdb_env_stat(s->ix.env, &ms) == 0
               ? ((size_t)info.me_last_pgno + 1) * ms.ms_psize : 0;
        mdb_env_close(s->ix.env);
        if (used > 0 && truncate(path, (off_t)used) != 0)
            return arb__mdb_fail(why, errno, "give back the index's room");
    }
    s->ix.writemap = wm;
    if (mrc == 0 && !s->read_only)
        mrc = mdb_reader_check(s->ix.env, NULL);
    if (mrc != 0) {
        mdb_env_close(s->ix.env);
        s->ix.env = NULL;
        /* An I/O error is the disk failing, not a bad index: the store
         * does not open (and does not try again) rather than rebuild on
         * a disk that just failed a call.  A file size limit, a quota or
         * a read-only file system is the same (until 2026-12-05 these
         * were taken for a bad index: "cannot create the index", the
         * reason lost). */
        if (mrc == EIO || mrc == ENOSPC || mrc == EACCES || mrc == EFBIG
            || mrc == EDQUOT || mrc == EROFS || mrc == EPERM)
            return arb__mdb_fail(why, mrc, "open the index");
        return 0;                   /* rebuilt (or ignored read-only) */
    }
    rc = arb__txn_begin(&s->ix, s->read_only ? MDB_RDONLY : 0, &itxn, why);
    if (rc != 0)
        goto fail;
    if (open_dbis(s, itxn, s->read_only ? 0 : MDB_CREATE, why) != 0)
        goto done;                  /* not usable */
    k.mv_data = "format";
    k.mv_size = 6;
    mrc = mdb_get(itxn, s->dimeta, &k, &d);
    if (mrc == MDB_NOTFOUND && !s->read_only) {
        d.mv_data = v;
        d.mv_size = 4;
        if (mdb_put(itxn, s->dimeta, &k, &d, 0) != 0)
            goto done;
        fresh = 1;
    } else if (mrc != 0 || d.mv_size != 4 || memcmp(d.mv_data, v, 4) != 0) {
        goto done;
    }
    if (mark_get(s, itxn, &pos, h, NULL) != 0)
        goto done;
    rc = arb__txn_begin(&s->log, MDB_RDONLY, &ltxn, why);
    if (rc == 0)
        rc = arb__log_last(s, ltxn, &last, why);
    if (rc != 0)
        goto fail;
    if (pos > last)
        goto done;
    if (pos > 0 && (arb__log_get(s, ltxn, pos, &r, NULL) != 0 ||
                    memcmp(r.hash, h, ARB_HASH_LEN) != 0))
        goto done;
    if (fresh && pos != 0)
        goto done;
    s->mark = pos;
    *usable = 1;
done:
    arb__txn_abort(&s->log, ltxn);
    ltxn = NULL;
    if (*usable) {
        /* Committing keeps the dbi handles open. */
        mrc = arb__txn_commit(&s->ix, itxn);
        itxn = NULL;
        if (mrc != 0) {
            *usable = 0;
            rc = arb__mdb_fail(why, mrc, "open the index");
            goto fail;
        }
        s->have_ix = 1;
        return 0;
    }
    arb__txn_abort(&s->ix, itxn);
    mdb_env_close(s->ix.env);
    s->ix.env = NULL;
    return 0;
fail:
    arb__txn_abort(&s->log, ltxn);
    arb__txn_abort(&s->ix, itxn);
    mdb_env_close(s->ix.env);
    s->ix.env = NULL;
    return rc;
}

/* The summaries a step changes, by match id: read once from the index,
 * updated in memory for every record, written once at the end of the
 * step (a chunk of records touches a match many times).  Sized by the
 * matches a step touches, not by its records: it starts small and
 * doubles at half full (up to MCACHE_MAX slots, then it is written out
 * and emptied), and `used` lists the filled slots in the order they
 * were filled, so writing it out never scans empty slots. */
#define MCACHE_MIN 64
#define MCACHE_MAX 32768

typedef struct mcache {
    arb_match_info_t *m;
    size_t           *used;         /* filled slots, in fill order */
    size_t            size, n;      /* open addressing, size a power of 2 */
} mcache_t;

static int
mcache_init(mcache_t *c, size_t size)
{
    c->size = size;
    c->n = 0;
    c->m = calloc(size, sizeof(*c->m));
    c->used = malloc(size / 2 * sizeof(*c->used));
    if (c->m == NULL || c->used == NULL) {
        free(c->m);
        free(c->used);
        c->m = NULL;
        c->used = NULL;
        return ARB_ENOMEM;
    }
    return 0;
}

static void
mcache_free(mcache_t *c)
{
    free(c->m);
    free(c->used);
}

/* Empties it, touching only the filled slots. */
static void
mcache_clear(mcache_t *c)
{
    size_t i;

    for (i = 0; i < c->n; i++)
        c->m[c->used[i]].match_id[0] = '\0';
    c->n = 0;
}

/* Index of the slot of a match: its own, or the empty one it would take. */
static size_t
mcache_find(const mcache_t *c, const char *id, size_t idlen)
{
    size_t i = arb_fnv1a(id, idlen, ARB_FNV_SEED) & (c->size - 1);

    for (;; i = (i + 1) & (c->size - 1)) {
        const arb_match_info_t *m = &c->m[i];
        if (m->match_id[0] == '\0')
            return i;
        if (strncmp(m->match_id, id, idlen) == 0 &&
            m->match_id[idlen] == '\0')
            return i;
    }
}

/* Doubles the table; 0, or ARB_ENOMEM (the caller writes it out). */
static int
mcache_grow(mcache_t *c)
{
    mcache_t nc;
    size_t   i, j;

    if (c->size >= MCACHE_MAX || mcache_init(&nc, c->size * 2) != 0)
        return ARB_ENOMEM;
    for (i = 0; i < c->n; i++) {
        const arb_match_info_t *m = &c->m[c->used[i]];
        j = mcache_find(&nc, m->match_id, strlen(m->match_id));
        nc.m[j] = *m;
        nc.used[nc.n++] = j;
    }
    mcache_free(c);
    *c = nc;
    return 0;
}

/* The summary slot of a match (empty: match_id[0] == 0, and then counted
 * as filled), or NULL when the cache is full. */
static arb_match_info_t *
mcache_slot(mcache_t *c, const char *id, size_t idlen)
{
    size_t i = mcache_find(c, id, idlen);

    if (c->m[i].match_id[0] != '\0')
        return &c->m[i];
    if (c->n + 1 > c->size / 2) {
        if (mcache_grow(c) != 0)
            return NULL;
        i = mcache_find(c, id, idlen);
    }
    c->used[c->n++] = i;
    return &c->m[i];
}

static int
mcache_flush(arb_store_t *s, MDB_txn *itxn, mcache_t *c, arb_buf_t *why)
{
    MDB_val       k, d;
    unsigned char rec[REC_LEN];
    size_t        i;
    int           mrc;

    for (i = 0; i < c->n; i++) {
        arb_match_info_t *m = &c->m[c->used[i]];
        if (m->match_id[0] == '\0')
            continue;
        arb__rec_encode(rec, m);
        k.mv_data = m->match_id;
        k.mv_size = strlen(m->match_id);
        d.mv_data = rec;
        d.mv_size = REC_LEN;
        mrc = mdb_put(itxn, s->dmatches, &k, &d, 0);
        if (mrc != 0)
            return arb__mdb_fail(why, mrc, "write index matches");
    }
    mcache_clear(c);
    return 0;
}

/* Index entries of one record. */
static int
ix_put(arb_store_t *s, MDB_txn *itxn, mcache_t *mc, const arb__rec_t *r,
       arb_buf_t *why)
{
    arb_match_info_t *m;
    MDB_val           k, d;
    unsigned char     key[ARB__IDEMKEY_MAX], v[16];
    char              rp[ARB__REPR_MAX];
    int               rc, mrc, known;

    m = mcache_slot(mc, r->id, r->idlen);
    if (m == NULL) {
        rc = mcache_flush(s, itxn, mc, why);
        if (rc != 0)
            return rc;
        m = mcache_slot(mc, r->id, r->idlen);
    }
    known = m->match_id[0] != '\0';
    if (!known) {
        if (r->seq == 0) {
            memset(m, 0, sizeof(*m));
            memcpy(m->game, r->game, r->glen);
            m->created_ms = r->time_ms;
        } else {
            rc = arb__ix_match(s, itxn, r->id, r->idlen, m, why);
            if (rc != 0) {
                m->match_id[0] = '\0';
                return rc;
            }
            known = 1;
        }
        memcpy(m->match_id, r->id, r->idlen);
        m->match_id[r->idlen] = '\0';
    }
    /* As the read-only tail words it (store_tail.c). */
    if (known && r->seq == 0)
        return arb__opened_twice(r, why);
    if (known && m->last_seq + 1 != r->seq) {
        arb__why(why, "log key %llu: match \"%s\" seq %llu follows %llu",
                 (unsigned long long)r->pos, arb__repr(rp, r->id, r->idlen),
                 (unsigned long long)r->seq,
                 (unsigned long long)m->last_seq);
        return ARB_ECORRUPT;
    }
    /* Never over an entry: the index holds the log up to its mark and
     * nothing past it, so an entry already there means the log holds a
     * seq or a client id of one match twice (a damaged store: an open of
     * a match the cache did not hold, met as new above, or a client id
     * used before).  Overwritten, the second would hide the first from
     * every read and from verify, where the read-only tail refuses the
     * same log. */
    k.mv_data = key;
    k.mv_size = arb__seq_key(key, r->id, r->idlen, r->seq);
    arb__put64(v, r->pos);
    d.mv_data = v;
    d.mv_size = 8;
    mrc = mdb_put(itxn, s->dseq, &k, &d, MDB_NOOVERWRITE);
    if (mrc == MDB_KEYEXIST)
        return arb__opened_twice(r, why);   /* (other seqs: follows) */
    if (mrc != 0)
        return arb__mdb_fail(why, mrc, "write index seq");
    if (r->cidlen > 0) {
        k.mv_size = arb__idem_key(key, r->id, r->idlen, r->cid, r->cidlen);
        arb__put64(v, r->seq);
        arb__put64(v + 8, r->pos);
        d.mv_size = 16;
        mrc = mdb_put(itxn, s->didem, &k, &d, MDB_NOOVERWRITE);
        if (mrc == MDB_KEYEXIST)
            return arb__cid_twice(r, why);
        if (mrc != 0)
            return arb__mdb_fail(why, mrc, "write index idem");
    }
    m->last_seq = r->seq;
    m->count = r->seq + 1;
    memcpy(m->head, r->hash, ARB_HASH_LEN);
    m->last_ms = r->time_ms;
    if (r->flags & LR_CLOSES)
        m->closed = 1;
    return 0;
}

/* Indexes the records s->mark+1 .. upto in one transaction.  Only the
 * index writer (or open, before it starts) calls this, and then moves
 * s->mark (under tail.lock once the writer runs). */
static int
ix_step(arb_store_t *s, uint64_t upto, arb_buf_t *why)
{
    MDB_txn       *ltxn, *itxn;
    MDB_cursor    *c;
    MDB_val        k, d;
    arb__rec_t     r;
    unsigned char  lk[8], mv[8 + ARB_HASH_LEN];
    mcache_t       mc;
    uint64_t       pos;
    int            rc, mrc;

    if (mcache_init(&mc, MCACHE_MIN) != 0) {
        arb__why(why, "out of memory");
        return ARB_ENOMEM;
    }
    for (;;) {
        ltxn = itxn = NULL;
        c = NULL;
        rc = arb__txn_begin(&s->log, MDB_RDONLY, &ltxn, why);
        if (rc == 0)
            rc = arb__txn_begin(&s->ix, 0, &itxn, why);
        if (rc == 0 && (mrc = mdb_cursor_open(ltxn, s->dlog, &c)) != 0)
            rc = arb__mdb_fail(why, mrc, "open log cursor");
        arb__put64(lk, s->mark + 1);
        k.mv_data = lk;
        k.mv_size = 8;
        mrc = rc == 0 ? mdb_cursor_get(c, &k, &d, MDB_SET_KEY) : 0;
        for (pos = s->mark + 1; rc == 0 && pos <= upto; pos++) {
            if (mrc != 0 || k.mv_size != 8 || arb__get64(k.mv_data) != pos) {
                arb__why(why, "log key %llu: missing",
                         (unsigned long long)pos);
                rc = ARB_ECORRUPT;
                break;
            }
            rc = arb__rec_parse(&r, pos, &d, why);
            if (rc == 0)
                rc = ix_put(s, itxn, &mc, &r, why);
            if (rc == 0 && pos == upto)
                memcpy(mv + 8, r.hash, ARB_HASH_LEN);
            if (rc == 0 && pos < upto)
                mrc = mdb_cursor_get(c, &k, &d, MDB_NEXT);
        }
        mdb_cursor_close(c);
        if (rc == 0)
            rc = mcache_flush(s, itxn, &mc, why);
        if (rc == 0) {
            arb__put64(mv, upto);
            k.mv_data = "indexed";
            k.mv_size = 7;
            d.mv_data = mv;
            d.mv_size = sizeof(mv);
            mrc = mdb_put(itxn, s->dimeta, &k, &d, 0);
            if (mrc != 0)
                rc = arb__mdb_fail(why, mrc, "write index mark");
        }
        arb__txn_abort(&s->log, ltxn);
        if (rc == 0) {
            mrc = arb__txn_commit(&s->ix, itxn);
            if (mrc == 0) {
                mcache_free(&mc);
                return 0;       /* the caller moves s->mark */
            }
            rc = mrc == MDB_MAP_FULL ? ARB_EFULL
                                     : arb__mdb_fail(why, mrc,
                                                     "commit the index");
        } else {
            arb__txn_abort(&s->ix, itxn);
        }
        /* A retry starts from the index as committed: forget the cache. */
        mcache_clear(&mc);
        if (rc == ARB_EFULL)
            rc = arb__env_grow(&s->ix, why);
        if (rc != 0)
            break;
    }
    mcache_free(&mc);
    return rc;
}

void
arb__ix_notify(arb_store_t *s, uint64_t hi_before)
{
    /* The writer waits for the first record past its mark without a
     * deadline, and then gathers for IX_DELAY_MS or half a chunk: only
     * those two need a wake-up.  Waking it at every commit cost a futex
     * call and two thread switches per commit, for a writer that went
     * back to its wait. */
    if (hi_before <= s->mark || s->tail.hi - s->mark >= IX_CHUNK / 2)
        pthread_cond_broadcast(&s->tail.cond);
}

/* Returns the heap's free pages to the system (glibc keeps them). */
static void
heap_trim(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

static void *
ix_main(void *arg)
{
    arb_store_t     *s = arg;
    arb_buf_t        why = ARB_BUF_INIT;
    struct timespec  ts;
    uint64_t         upto;
    int              rc, give_back = 0;

    pthread_mutex_lock(&s->tail.lock);
    while (!s->stop) {
        if (atomic_load(&s->ix_failed)
            || (s->tail.hi <= s->mark && s->untrimmed == 0)) {
            pthread_cond_wait(&s->tail.cond, &s->tail.lock);
            continue;
        }
        if (s->tail.hi <= s->mark) {
            /* Caught up with heap left to return: once no record has come
             * for IX_DELAY_MS, the daemon is idle and trimming costs
             * nobody anything; what it holds then no longer depends on
             * how many records the last trims happened to leave. */
            arb_clock_deadline(&ts, IX_DELAY_MS);
            if (pthread_cond_timedwait(&s->tail.cond, &s->tail.lock, &ts)
                    == ETIMEDOUT
                && s->tail.hi <= s->mark && !s->stop) {
                s->untrimmed = 0;
                s->idle_trims++;
                pthread_mutex_unlock(&s->tail.lock);
                heap_trim();
                pthread_mutex_lock(&s->tail.lock);
            }
            continue;
        }
        /* Let records gather: one index commit per IX_DELAY_MS or per
         * half a chunk, whichever comes first (appends wake us only for
         * the second: arb__ix_notify). */
        arb_clock_deadline(&ts, IX_DELAY_MS);
        while (!s->stop && !s->flush && s->tail.hi - s->mark < IX_CHUNK / 2
               && pthread_cond_timedwait(&s->tail.cond, &s->tail.lock,
                                         &ts) == 0)
            s->ix_wakeups++;
        if (s->stop)
            break;
        upto = s->tail.hi;
        if (upto - s->mark > IX_CHUNK)
            upto = s->mark + IX_CHUNK;
        pthread_mutex_unlock(&s->tail.lock);
        rc = ix_step(s, upto, &why);
        /* Each step reads the log records it indexes and dirties index
         * pages: unmapped again, the resident set stays the size of one
         * step instead of growing with the files (docs/STORE.md). */
        arb__env_unmap_pages(&s->log);
        arb__env_unmap_pages(&s->ix);
        pthread_mutex_lock(&s->tail.lock);
        if (rc != 0) {
            /* Reads stay right (the tail keeps everything); the index
             * is rebuilt from its mark at the next open. */
            snprintf(s->ix_why, sizeof(s->ix_why), "%s",
                     arb_buf_cstr(&why) ? arb_buf_cstr(&why) : "error");
            atomic_store(&s->ix_failed, 1);
        } else {
            s->untrimmed += upto - s->mark;
            s->mark = upto;
            arb__tail_trim(&s->tail, upto);
            /* glibc keeps freed heap (the tail just trimmed) mapped.
             * Returned once a few MiB of it are free, not after every
             * step: each trim unmaps pages (a TLB flush on every CPU)
             * that the next appends fault back in. */
            if (s->untrimmed >= IX_TRIM_RECORDS) {
                give_back = 1;
                s->untrimmed = 0;
            }
            s->ix_commits++;
        }
        if (s->tail.hi <= s->mark)
            s->flush = 0;
        pthread_cond_broadcast(&s->tail.cond);
        if (give_back) {
            /* Not under the tail's lock, which every commit takes to
             * publish its batch: malloc_trim walks the whole heap (1.5-5
             * ms each at 256 tables, measured).  The ack's p99 did not
             * move with it (docs/STORE.md), but a commit no longer waits
             * on the index writer's housekeeping. */
            give_back = 0;
            pthread_mutex_unlock(&s->tail.lock);
            heap_trim();
            pthread_mutex_lock(&s->tail.lock);
        }
    }
    pthread_mutex_unlock(&s->tail.lock);
    arb_buf_free(&why);
    return NULL;
}

static int
ix_unlink(arb_store_t *s, arb_buf_t *why)
{
    char path[4096];

    ix_path(s, path, sizeof(path), "");
    if (unlink(path) != 0 && errno != ENOENT) {
        arb__why(why, "remove %s: %s", path, strerror(errno));
        return ARB_EIO;
    }
    ix_path(s, path, sizeof(path), "-lock");
    if (unlink(path) != 0 && errno != ENOENT) {
        arb__why(why, "remove %s: %s", path, strerror(errno));
        return ARB_EIO;
    }
    return 0;
}

int
arb__ro_refresh(arb_store_t *s, arb_buf_t *why)
{
    MDB_txn          *itxn = NULL, *ltxn = NULL;
    MDB_cursor       *c = NULL;
    MDB_val           k, d;
    arb__rec_t        r;
    arb_match_info_t  base;
    unsigned char     h[ARB_HASH_LEN], lk[8];
    uint64_t          mark = 0, last, pos;
    int               rc = 0, mrc, brc;

    if (!s->read_only)
        return 0;
    pthread_mutex_lock(&s->wlock);
    pthread_mutex_lock(&s->tail.lock);
    if (s->have_ix) {
        rc = arb__txn_begin(&s->ix, MDB_RDONLY, &itxn, why);
        if (rc == 0)
            rc = mark_get(s, itxn, &mark, h, why);
        if (rc != 0)
            goto fail;
    }
    if (mark + 1 < s->tail.lo) {
        /* The index went back (rebuilt by its writer): start again. */
        arb__tail_free(&s->tail);
        rc = arb__tail_init(&s->tail);
        if (rc != 0)
            goto fail;
    }
    arb__tail_trim(&s->tail, mark);
    rc = arb__txn_begin(&s->log, MDB_RDONLY, &ltxn, why);
    if (rc == 0)
        rc = arb__log_last(s, ltxn, &last, why);
    if (rc != 0 || last <= s->tail.hi)
        goto fail;
    mrc = mdb_cursor_open(ltxn, s->dlog, &c);
    if (mrc != 0) {
        rc = arb__mdb_fail(why, mrc, "open log cursor");
        goto fail;
    }
    arb__put64(lk, s->tail.hi + 1);
    k.mv_data = lk;
    k.mv_size = 8;
    mrc = mdb_cursor_get(c, &k, &d, MDB_SET_KEY);
    for (pos = s->tail.hi + 1; pos <= last; pos++) {
        if (mrc != 0 || k.mv_size != 8 || arb__get64(k.mv_data) != pos) {
            arb__why(why, "log key %llu: missing", (unsigned long long)pos);
            rc = ARB_ECORRUPT;
            goto fail;
        }
        rc = arb__rec_parse(&r, pos, &d, why);
        if (rc != 0)
            goto fail;
        /* The index's summary of a match the tail meets first (for an
         * open too: one the index holds is a second open, refused). */
        brc = ARB_ENOTFOUND;
        if (itxn != NULL &&
            arb__tail_match(&s->tail, r.id, r.idlen) == NULL) {
            brc = arb__ix_match(s, itxn, r.id, r.idlen, &base, why);
            if (brc != 0 && brc != ARB_ENOTFOUND) {
                rc = brc;
                goto fail;
            }
        }
        rc = arb__tail_add(&s->tail, &r, brc == 0 ? &base : NULL, why);
        if (rc != 0)
            goto fail;
        mrc = mdb_cursor_get(c, &k, &d, MDB_NEXT);
    }
fail:
    mdb_cursor_close(c);
    arb__txn_abort(&s->log, ltxn);
    arb__txn_abort(&s->ix, itxn);
    pthread_mutex_unlock(&s->tail.lock);
    pthread_mutex_unlock(&s->wlock);
    return rc;
}

int
arb__ix_open(arb_store_t *s, arb_buf_t *why)
{
    MDB_txn  *ltxn;
    uint64_t  last, upto;
    int       rc, usable, tries;

    for (tries = 0;; tries++) {
        rc = ix_env_open(s, &usable, why);
        if (rc != 0)
            return rc;
        if (usable || s->read_only)
            break;
        if (tries > 0) {
            arb__why(why, "%s/index.mdb: cannot create the index", s->dir);
            return ARB_ESTORE;
        }
        rc = ix_unlink(s, why);
        if (rc != 0)
            return rc;
    }
    if (s->read_only) {
        s->tail.lo = 1;
        s->tail.hi = 0;
        return arb__ro_refresh(s, why);
    }
    rc = arb__txn_begin(&s->log, MDB_RDONLY, &ltxn, why);
    if (rc == 0)
        rc = arb__log_last(s, ltxn, &last, why);
    arb__txn_abort(&s->log, ltxn);
    if (rc != 0)
        return rc;
    /* Index what the log holds past the mark, a chunk per transaction,
     * so a crash during a long rebuild keeps what it did. */
    s->ix_rebuilt = last - s->mark;
    if (s->mark == 0 && last > 0) {
        rc = arb__ix_bulk(s, last, why);
        if (rc == 0)
            s->mark = last;
        else if (rc == ARB_ETOOBIG || rc == ARB_EEXIST
                 || rc == ARB_ENOMEM)
            rc = 0;
    }
    while (rc == 0 && s->mark < last) {
        upto = last - s->mark > IX_CHUNK ? s->mark + IX_CHUNK : last;
        rc = ix_step(s, upto, why);
        if (rc == 0)
            s->mark = upto;
    }
    if (rc != 0)
        return rc;
    arb__tail_trim(&s->tail, last);
    if (pthread_create(&s->ixthread, NULL, ix_main, s) != 0) {
        arb__why(why, "cannot start the index writer");
        return ARB_ENOMEM;
    }
    s->have_thread = 1;
    return 0;
}

void
arb__ix_close(arb_store_t *s)
{
    if (s->have_thread) {
        /* Index what is left, so the next open has nothing to do. */
        pthread_mutex_lock(&s->tail.lock);
        s->flush = 1;
        pthread_cond_broadcast(&s->tail.cond);
        while (!atomic_load(&s->ix_failed) && s->tail.hi > s->mark &&
               atomic_load(&s->state) == ST_OK)
            pthread_cond_wait(&s->tail.cond, &s->tail.lock);
        s->stop = 1;
        pthread_cond_broadcast(&s->tail.cond);
        pthread_mutex_unlock(&s->tail.lock);
        pthread_join(s->ixthread, NULL);
        s->have_thread = 0;
    }
    /* No sync here: a close cannot report a failure, and an index that
     * did not reach the disk is checked against the log and rebuilt from
     * its mark at the next open.  arb_store_index_wait() syncs and says. */
}

int
arb_store_index_wait(arb_store_t *s, arb_buf_t *why)
{
    int rc = 0;

    if (s == NULL)
        return ARB_EINVAL;
    if (s->read_only)
        return arb__ro_refresh(s, why);
    pthread_mutex_lock(&s->tail.lock);
    s->flush = 1;
    pthread_cond_broadcast(&s->tail.cond);
    while (!atomic_load(&s->ix_failed) && s->tail.hi > s->mark)
        pthread_cond_wait(&s->tail.cond, &s->tail.lock);
    if (atomic_load(&s->ix_failed)) {
        arb__why(why, "the index stopped: %s", s->ix_why);
        rc = ARB_ESTORE;
    }
    pthread_mutex_unlock(&s->tail.lock);
    /* Made durable here, where a failure can be told (never retried: a
     * failed sync marks the index failed). */
    if (rc == 0 && s->have_ix && s->ix.env != NULL
        && mdb_env_sync(s->ix.env, 1) != 0) {
        pthread_mutex_lock(&s->tail.lock);
        snprintf(s->ix_why, sizeof(s->ix_why), "index sync failed");
        atomic_store(&s->ix_failed, 1);
        pthread_mutex_unlock(&s->tail.lock);
        arb__why(why, "the index stopped: index sync failed");
        rc = ARB_ESTORE;
    }
    return rc;
}
