/*
 * store.c - the durable log on LMDB: opening, the format, appends.
 * Layout and contracts: docs/STORE.md and store.h.
 *
 * DESIGN: an acknowledgement costs one sequential write.  The commit
 * transaction appends each event to ONE B-tree keyed by a dense global
 * position (MDB_APPEND: pages fill left to right, no splits, no other
 * tree touched), so a batch of 128 events over 128 matches dirties a few
 * pages instead of four root-to-leaf paths per match.  Everything else a
 * reader needs (seq -> position, client ids, match summaries) is derived
 * from the log by a background writer into a second environment that may
 * lag and may lose its last transactions in a crash: it records how far
 * it got and is rebuilt from there on open (store_index.c).  What the log
 * holds past that mark is indexed in memory (store_tail.c), so a read
 * after an acknowledgement sees the event and a retried client id is
 * recognised however far the index lags.
 *
 * One flush per acknowledgement.  The log's transaction commits without
 * flushing (MDB_NOSYNC), and the batch is then written to the journal
 * and flushed once (store_journal.c, journal.c): that flush makes it
 * durable.  Checkpoints flush the log's file off the acknowledgement
 * path and pin the snapshot they flushed, which is what recovery goes
 * back to before it re-applies the journal.  Opening and the format
 * record still commit the ordinary way (MDB_NOMETASYNC plus
 * mdb_env_sync), before the journal takes over.
 *
 * Locking, in one place:
 *   env.maplock  rwlock per environment.  Shared by every transaction of
 *                that environment for its whole life, exclusive around
 *                mdb_env_set_mapsize(), which remaps the file.
 *   wlock        mutex.  Serialises appends.
 *   tail.lock    mutex.  Guards the in-memory tail; held only for memory
 *                work, never across an LMDB call that can block on I/O.
 * Order: wlock, then a maplock, then tail.lock.  Shares of the maplocks
 * are taken in either order and nested: a read of a match opens the
 * index's before the log's (the log must then hold every position the
 * index names), and a read of the log looks a hash up inside its own
 * (store_links.c).  That is safe because the maplocks prefer readers (set
 * so explicitly: a remap waiting for its exclusive lock never holds up a
 * nested share), and because no thread waits for an exclusive maplock
 * while it holds another: a remap of our own holds only wlock, and the
 * adoption of a size another process chose (arb__txn_begin) does not wait
 * on it but tries, and gives up after a while rather than wait on a share
 * held by a thread that waits on ours (ThreadSanitizer's lock-order
 * report, 2026-12-07).
 */
/* (pthread_rwlockattr_setkind_np: the readers' preference said, not
 * left to glibc's default) */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/err.h"
#include "core/fnv.h"
#include "core/ledger/chain.h"
#include "core/ledger/store_int.h"

#define DEF_MAP_SIZE ((size_t)64 << 20)
#define DEF_MAP_MAX  ARB_STORE_MAP_MAX_DEFAULT

static int
errno_code(int e)
{
    return e == ENOENT ? ARB_ENOTFOUND
         : e == EACCES || e == EPERM || e == EROFS ? ARB_EPERM
         : e == ENOMEM ? ARB_ENOMEM : ARB_EIO;
}

/*
 * Opening.
 */
/* 1 when DIR holds what a migrate interrupted while it moved its files
 * left (ARB_MIGRATE_MARK), after saying so in why; 0 when not; an
 * ARB_E* code when it cannot tell. */
static int
mid_migrate(const char *dir, arb_buf_t *why)
{
    struct stat st;
    char       *path = malloc(strlen(dir) + sizeof("/" ARB_MIGRATE_MARK));
    int         rc = 0;

    if (path == NULL)
        return ARB_ENOMEM;
    strcpy(path, dir);
    strcat(path, "/" ARB_MIGRATE_MARK);
    if (stat(path, &st) == 0) {
        rc = 1;
        arb__why(why, "%s: a migrate was interrupted while it moved the "
                 "new store into place (%s is there): run 'arbiter migrate "
                 "--data %s' to finish it", dir, path, dir);
    } else if (errno != ENOENT) {
        rc = errno_code(errno);
        arb__why(why, "%s: %s", path, strerror(errno));
    }
    free(path);
    return rc;
}

int
arb__store_there(const char *dir, arb_buf_t *why)
{
    struct stat st;
    char       *path;
    int         rc;

    /* (Until 2026-12-06 such a directory, its data.mdb moved out, was
     * "no store there", and a daemon made a new empty store in it.) */
    rc = mid_migrate(dir, why);
    if (rc != 0)
        return rc == 1 ? ARB_ECORRUPT : rc;
    path = malloc(strlen(dir) + sizeof("/data.mdb"));
    if (path == NULL)
        return ARB_ENOMEM;
    strcpy(path, dir);
    strcat(path, "/data.mdb");
    if (stat(path, &st) != 0) {
        rc = errno_code(errno);
        if (rc == ARB_ENOTFOUND)
            arb__why(why, "%s: no store there", dir);
        else
            arb__why(why, "%s: %s", path, strerror(errno));
    } else if (st.st_size == 0) {
        /* LMDB would say "Bad file descriptor". */
        rc = ARB_ECORRUPT;
        arb__why(why, "%s is empty (0 bytes): not a store, or one whose "
                 "first write never finished", path);
    }
    free(path);
    return rc;
}
static void
failed_why(arb_store_t *s, arb_buf_t *why)
{
    if (s->ck_why[0] != '\0')
        arb__why(why, "a checkpoint failed (%s); reopen the store",
                 s->ck_why);
    else
        arb__why(why, "an earlier commit failed; reopen the store");
}

static int
format_get(MDB_txn *txn, MDB_dbi meta, unsigned long *fmt, arb_buf_t *why)
{
    MDB_val        k, d;
    unsigned char  v[4];
    int            mrc;

    k.mv_data = "format";
    k.mv_size = 6;
    mrc = mdb_get(txn, meta, &k, &d);
    if (mrc == MDB_NOTFOUND) {
        *fmt = 0;
        return 0;
    }
    if (mrc != 0)
        return arb__mdb_fail(why, mrc, "read meta");
    if (d.mv_size != 4) {
        arb__why(why, "meta key \"format\": value is %zu bytes, want 4",
                 d.mv_size);
        return ARB_ECORRUPT;
    }
    memcpy(v, d.mv_data, 4);
    *fmt = (unsigned long)v[0] << 24 | (unsigned long)v[1] << 16 |
           (unsigned long)v[2] << 8 | v[3];
    return 0;
}

/* Opens "log" and "meta" and checks the format record; writes it into an
 * empty store when allowed.  The format is read before anything is
 * created, so a store of another format is left untouched. */
static int
init_log(arb_store_t *s, MDB_txn *txn, int may_write, arb_buf_t *why)
{
    MDB_stat       st;
    MDB_val        k, d;
    unsigned char  v[4];
    unsigned long  fmt = 0;
    unsigned       cf = may_write ? MDB_CREATE : 0;
    int            rc, mrc;

    mrc = mdb_dbi_open(txn, "meta", cf, &s->dmeta);
    if (mrc == MDB_NOTFOUND) {
        arb__why(why, "not an arbiter store (no \"meta\" database)");
        return ARB_ENOTFOUND;
    }
    if (mrc != 0)
        return arb__mdb_fail(why, mrc, "open database \"meta\"");
    rc = format_get(txn, s->dmeta, &fmt, why);
    if (rc != 0)
        return rc;
    if (fmt == 1) {
        arb__why(why, "store format 1 is not read by this build (it "
                 "reads %d): migrate it with 'arbiter migrate --data %s'",
                 ARB_STORE_FORMAT, s->dir);
        return ARB_EUNSUPP;
    }
    /* Format 3 is format 2 with the journal: a format-2 store is read
     * as it is, and becomes format 3 when opened for writing. */
    if (fmt != 0 && fmt != 2 && fmt != ARB_STORE_FORMAT) {
        arb__why(why, "store format %lu is not supported (this build "
                 "reads %d)", fmt, ARB_STORE_FORMAT);
        return ARB_EUNSUPP;
    }
    mrc = mdb_dbi_open(txn, "log", cf, &s->dlog);
    if (mrc == MDB_NOTFOUND) {
        arb__why(why, "not an arbiter store (no \"log\" database)");
        return ARB_ENOTFOUND;
    }
    if (mrc != 0)
        return arb__mdb_fail(why, mrc, "open database \"log\"");
    if (fmt != 0 && (fmt == ARB_STORE_FORMAT || !may_write))
        return 0;
    if (fmt != 0)
        goto put;
    mrc = mdb_stat(txn, s->dlog, &st);
    if (mrc != 0)
        return arb__mdb_fail(why, mrc, "stat");
    if (st.ms_entries != 0) {
        arb__why(why, "meta key \"format\" is missing from a store holding "
                 "data");
        return ARB_ECORRUPT;
    }
    if (!may_write) {
        arb__why(why, "meta key \"format\" is missing");
        return ARB_ECORRUPT;
    }
put:
    v[0] = v[1] = v[2] = 0;
    v[3] = ARB_STORE_FORMAT;
    k.mv_data = "format";
    k.mv_size = 6;
    d.mv_data = v;
    d.mv_size = 4;
    mrc = mdb_put(txn, s->dmeta, &k, &d, 0);
    return mrc != 0 ? arb__mdb_fail(why, mrc, "write meta") : 0;
}

static int
open_log_dbs(arb_store_t *s, arb_buf_t *why)
{
    MDB_txn *txn;
    int      rc, mrc;

    rc = arb__txn_begin(&s->log, s->read_only ? MDB_RDONLY : 0, &txn, why);
    if (rc != 0)
        return rc;
    rc = init_log(s, txn, !s->read_only, why);
    if (rc != 0) {
        arb__txn_abort(&s->log, txn);
        return rc;
    }
    /* Committing (not aborting) is what keeps the dbi handles open. */
    mrc = arb__txn_commit(&s->log, txn);
    return mrc != 0 ? arb__mdb_fail(why, mrc, "open databases") : 0;
}

static int
env_init(arb__env_t *e, size_t map_max)
{
    pthread_rwlockattr_t a;
    int                  rc;

    atomic_init(&e->dead, 0);
    e->map_max = map_max;
    if (pthread_rwlockattr_init(&a) != 0)
        return ARB_ENOMEM;
    rc = pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_READER_NP)
         != 0 || pthread_rwlock_init(&e->maplock, &a) != 0;
    pthread_rwlockattr_destroy(&a);
    if (rc != 0)
        return ARB_ENOMEM;
    e->have_lock = 1;
    return 0;
}

static void
env_free(arb__env_t *e)
{
    if (e->env != NULL)
        mdb_env_close(e->env);
    e->env = NULL;
    if (e->have_lock)
        pthread_rwlock_destroy(&e->maplock);
    e->have_lock = 0;
}

/* A read-only open of a store whose writer died with journalled batches
 * not yet in the log (or a meta page a power cut may have left pointing
 * at pages that never reached the disk): recovered first by a writable
 * open, as SQLite rolls back a hot journal before it reads. */
int
arb__ro_recover(const char *dir, const arb_store_opts_t *o, arb_buf_t *why)
{
    arb_store_opts_t rw = *o;
    arb_store_t     *w = NULL;
    arb_buf_t        err = ARB_BUF_INIT;
    int              rc, dirty = 0;

    rc = arb__jr_ro_dirty(dir, &dirty, why);
    if (rc != 0 || !dirty)
        return rc;
    rw.read_only = 0;
    rc = arb_store_open(&w, dir, &rw, &err);
    if (rc != 0)
        arb__why(why, "%s was not closed cleanly and its journal must be "
                 "applied, which needs it writable: %s", dir,
                 arb_buf_cstr(&err));
    arb_store_close(w);
    arb_buf_free(&err);
    return rc;
}

int
arb_store_open(arb_store_t **out, const char *dir,
               const arb_store_opts_t *opts, arb_buf_t *why)
{
    arb_store_t      *s = NULL;
    arb_store_opts_t  o = { 0, 0, 0, 0 };
    struct stat       st;
    MDB_envinfo       info;
    char             *path = NULL;
    size_t            page;
    long              pg;
    int               rc, mrc, exists, jr_started = 0;

    if (out == NULL || dir == NULL || *dir == '\0') {
        arb__why(why, "no store directory given");
        return ARB_EINVAL;
    }
    *out = NULL;
    if (opts != NULL)
        o = *opts;
    pg = sysconf(_SC_PAGESIZE);
    page = pg > 0 ? (size_t)pg : 4096;
    if (o.map_size == 0)
        o.map_size = DEF_MAP_SIZE;
    if (o.map_max == 0)
        o.map_max = DEF_MAP_MAX;
    if (o.map_size > SIZE_MAX - page) {
        arb__why(why, "map_size too large");
        return ARB_EINVAL;
    }
    o.map_size = (o.map_size + page - 1) / page * page;
    o.map_max -= o.map_max % page;
    if (o.map_max < o.map_size) {
        arb__why(why, "map_max (%zu) is below map_size (%zu)", o.map_max,
                 o.map_size);
        return ARB_EINVAL;
    }

    s = calloc(1, sizeof(*s));
    if (s == NULL) {
        rc = ARB_ENOMEM;
        goto fail;
    }
    atomic_init(&s->state, ST_OK);
    atomic_init(&s->ix_failed, 0);
    s->page = page;
    s->map_size0 = o.map_size;
    s->read_only = o.read_only != 0;
    s->skip_index = s->read_only && o.skip_index != 0;
    s->dir = strdup(dir);
    if (s->dir == NULL || env_init(&s->log, o.map_max) != 0 ||
        env_init(&s->ix, o.map_max) != 0 || arb__tail_init(&s->tail) != 0) {
        rc = ARB_ENOMEM;
        goto fail;
    }
    if (pthread_mutex_init(&s->wlock, NULL) != 0) {
        rc = ARB_ENOMEM;
        goto fail;
    }
    s->have_wlock = 1;
    if (pthread_mutex_init(&s->lsync, NULL) != 0) {
        rc = ARB_ENOMEM;
        goto fail;
    }
    s->have_lsync = 1;

    if (!s->read_only && mkdir(dir, 0700) != 0 && errno != EEXIST) {
        rc = errno_code(errno);
        arb__why(why, "create %s: %s", dir, strerror(errno));
        goto fail;
    }
    if (stat(dir, &st) != 0) {
        rc = errno_code(errno);
        arb__why(why, "%s: %s", dir, strerror(errno));
        goto fail;
    }
    if (!S_ISDIR(st.st_mode)) {
        rc = ARB_EINVAL;
        arb__why(why, "%s is not a directory", dir);
        goto fail;
    }
    s->dir_st = st;
    path = malloc(strlen(dir) + sizeof("/data.mdb"));
    if (path == NULL) {
        rc = ARB_ENOMEM;
        goto fail;
    }
    strcpy(path, dir);
    strcat(path, "/data.mdb");
    exists = stat(path, &st) == 0;
    if (s->read_only && (rc = arb__store_there(dir, why)) != 0)
        goto fail;
    if (!s->read_only && (rc = mid_migrate(dir, why)) != 0) {
        rc = rc == 1 ? ARB_ECORRUPT : rc;
        goto fail;
    }
    /* A read-only open first has a handle of its own apply a journal
     * left by a dead writer (ro_recover), then claims the directory,
     * before any environment of this handle opens (store_claim.c). */
    if (s->read_only && (rc = arb__ro_recover(dir, &o, why)) != 0)
        goto fail;
    rc = arb__dir_claim(&s->dir_st, dir, why);
    if (rc != 0)
        goto fail;
    s->claimed = 1;
    if (!s->read_only && (rc = arb__jr_open(s, exists, why)) != 0)
        goto fail;
    /* LMDB maps the file and trusts its meta page: a data.mdb cut short
     * (a copy that did not finish) made every reader and the daemon die
     * of SIGBUS, saying nothing (until 2026-12-06). */
    if (exists && (rc = arb__env_cut_short(path, why)) != 0) {
        if (rc == 1) {
            if (why != NULL)
                arb_buf_puts(why, ": restore it from a backup (arbiter "
                             "restore-backup)");
            rc = ARB_ECORRUPT;
        }
        goto fail;
    }

    mrc = mdb_env_create(&s->log.env);
    if (mrc != 0) {
        s->log.env = NULL;
        rc = arb__mdb_fail(why, mrc, "create environment");
        goto fail;
    }
    mrc = mdb_env_set_maxdbs(s->log.env, 8);
    /* An existing store keeps the map it grew to: LMDB adopts the size
     * recorded in the file when none is set before opening. */
    if (mrc == 0 && !exists)
        mrc = mdb_env_set_mapsize(s->log.env, o.map_size);
    if (mrc == 0)
        mrc = mdb_env_open(s->log.env, dir, MDB_NOTLS |
                           (s->read_only ? MDB_RDONLY : MDB_NOMETASYNC),
                           0600);
    if (mrc != 0) {
        rc = arb__mdb_code(mrc);
        arb__why(why, "open %s: %s", dir, mdb_strerror(mrc));
        goto fail;
    }
    mdb_env_info(s->log.env, &info);
    if (info.me_mapsize < o.map_size) {
        mrc = mdb_env_set_mapsize(s->log.env, o.map_size);
        if (mrc != 0) {
            rc = arb__mdb_fail(why, mrc, "set the map size");
            goto fail;
        }
    }
    mrc = mdb_reader_check(s->log.env, &s->stale);
    if (mrc != 0) {
        rc = arb__mdb_fail(why, mrc, "check readers");
        goto fail;
    }
    rc = open_log_dbs(s, why);
    /* The format record of a new store: durable before anything else. */
    if (rc == 0 && !s->read_only && (mrc = mdb_env_sync(s->log.env, 1)) != 0)
        rc = arb__mdb_fail(why, mrc, "sync the log");
    if (rc == 0 && !s->read_only) {
        jr_started = 1;
        rc = arb__jr_start(s, why);
    }
    if (rc == 0)
        rc = arb__ix_open(s, why);
    if (rc != 0)
        goto fail;
    free(path);
    *out = s;
    return 0;

fail:
    if (rc == ARB_ENOMEM)
        arb__why(why, "out of memory");
    free(path);
    if (s != NULL && !jr_started)
        arb__jr_unmake(s);
    arb_store_close(s);
    return rc;
}

void
arb_store_close(arb_store_t *s)
{
    if (s == NULL)
        return;
    arb__ix_close(s);
    arb__jr_close(s);
    arb_buf_free(&s->jbuf);
    env_free(&s->log);
    env_free(&s->ix);
    arb__tail_free(&s->tail);
    if (s->have_wlock)
        pthread_mutex_destroy(&s->wlock);
    if (s->have_lsync)
        pthread_mutex_destroy(&s->lsync);
    /* Last: the environments are closed, their locks gone. */
    if (s->claimed)
        arb__dir_release(&s->dir_st);
    free(s->dir);
    free(s);
}

int
arb_store_reader_check(arb_store_t *s, int *cleared)
{
    int dead = 0, more = 0, mrc;

    if (s == NULL)
        return ARB_EINVAL;
    mrc = mdb_reader_check(s->log.env, &dead);
    if (mrc == 0 && s->have_ix)
        mrc = mdb_reader_check(s->ix.env, &more);
    if (cleared != NULL)
        *cleared = dead + more;
    return arb__mdb_code(mrc);
}

/*
 * Appending.
 *
 * Before the log transaction, each event is checked against the state of
 * its match: the batch's own earlier events, else the tail, else the
 * index.  The tail is looked at first, under its lock, and the index
 * after, in a transaction opened later: the index writer empties the tail
 * only after its commit, so anything that left the tail in between is in
 * that transaction.  Both lookups are by hash, so a batch costs O(n).
 */
typedef struct bmatch {
    const char       *id;
    size_t            idlen;
    int               known;        /* base holds the pre-batch summary */
    int               looked;       /* the tail was asked */
    arb_match_info_t  base;
    arb_match_info_t  cur;          /* after the batch's events so far */
} bmatch_t;

typedef struct batch {
    arb_append_t  *v;
    size_t         n;
    bmatch_t      *m;               /* distinct matches */
    size_t         nm;
    size_t        *mof;             /* event -> index in m */
    size_t        *mt;              /* hash table of m, by id */
    size_t        *ct;              /* hash table of events, by (id, cid) */
    size_t         tsize;
    int            trust_cids;      /* honour arb_append_t.cid_fresh */
} batch_t;

static void
batch_free(batch_t *b)
{
    free(b->m);
    free(b->mof);
    free(b->mt);
    free(b->ct);
}

/* Groups the events by match, and refuses a client id used twice in the
 * batch. */
static int
batch_index(batch_t *b, arb_buf_t *why)
{
    size_t i, j, h, idlen, cidlen;
    char   rp[ARB__REPR_MAX], rc2[ARB__REPR_MAX];

    for (b->tsize = 16; b->tsize < 2 * b->n; b->tsize *= 2)
        ;
    b->m = calloc(b->n, sizeof(*b->m));
    b->mof = calloc(b->n, sizeof(*b->mof));
    b->mt = malloc(b->tsize * sizeof(*b->mt));
    b->ct = malloc(b->tsize * sizeof(*b->ct));
    if (b->m == NULL || b->mof == NULL || b->mt == NULL || b->ct == NULL) {
        arb__why(why, "out of memory");
        return ARB_ENOMEM;
    }
    memset(b->mt, 0xff, b->tsize * sizeof(*b->mt));
    memset(b->ct, 0xff, b->tsize * sizeof(*b->ct));
    for (i = 0; i < b->n; i++) {
        const arb_append_t *e = &b->v[i];
        idlen = strlen(e->match_id);
        h = arb_fnv1a(e->match_id, idlen, ARB_FNV_SEED) &
            (b->tsize - 1);
        for (;; h = (h + 1) & (b->tsize - 1)) {
            j = b->mt[h];
            if (j == SIZE_MAX) {
                b->mt[h] = j = b->nm++;
                b->m[j].id = e->match_id;
                b->m[j].idlen = idlen;
                break;
            }
            if (b->m[j].idlen == idlen &&
                memcmp(b->m[j].id, e->match_id, idlen) == 0)
                break;
        }
        b->mof[i] = j;
        if (e->client_id == NULL)
            continue;
        cidlen = strlen(e->client_id);
        h = arb_fnv1a(e->client_id, cidlen, arb_fnv1a(e->match_id, idlen + 1,
                ARB_FNV_SEED)) & (b->tsize - 1);
        for (;; h = (h + 1) & (b->tsize - 1)) {
            j = b->ct[h];
            if (j == SIZE_MAX) {
                b->ct[h] = i;
                break;
            }
            if (strcmp(b->v[j].match_id, e->match_id) == 0 &&
                strcmp(b->v[j].client_id, e->client_id) == 0) {
                arb__why(why, "client id \"%s\" already used in match "
                         "\"%s\"", arb__repr(rc2, e->client_id, cidlen),
                         arb__repr(rp, e->match_id, idlen));
                return ARB_EEXIST;
            }
        }
    }
    return 0;
}

static int
idem_used(const arb_append_t *e, arb_buf_t *why)
{
    char rp[ARB__REPR_MAX], rc2[ARB__REPR_MAX];

    arb__why(why, "client id \"%s\" already used in match \"%s\"",
             arb__repr(rc2, e->client_id, strlen(e->client_id)),
             arb__repr(rp, e->match_id, strlen(e->match_id)));
    return ARB_EEXIST;
}

/* The pre-batch summary of every match and the client-id checks: the
 * tail first (under its lock), then the index. */
static int
batch_lookup(arb_store_t *s, batch_t *b, arb_buf_t *why)
{
    MDB_txn       *itxn = NULL;
    MDB_val        k, d;
    unsigned char  key[ARB__IDEMKEY_MAX];
    unsigned char *incheck;
    size_t         i;
    int            rc = 0, mrc, need_ix = 0;

    incheck = calloc(b->n, 1);      /* 1: the client id needs the index */
    if (incheck == NULL) {
        arb__why(why, "out of memory");
        return ARB_ENOMEM;
    }
    pthread_mutex_lock(&s->tail.lock);
    for (i = 0; i < b->nm; i++) {
        arb__tmatch_t *tm = arb__tail_match(&s->tail, b->m[i].id,
                                            b->m[i].idlen);
        if (tm != NULL) {
            b->m[i].base = tm->info;
            b->m[i].known = 1;
        }
        b->m[i].looked = 1;
    }
    for (i = 0; i < b->n && rc == 0; i++) {
        const arb_append_t *e = &b->v[i];
        if (e->client_id == NULL)
            continue;
        if (arb__tail_idem(&s->tail, e->match_id, b->m[b->mof[i]].idlen,
                           e->client_id, strlen(e->client_id)) != NULL)
            rc = idem_used(e, why);
        else if (!(b->trust_cids && e->cid_fresh))
            incheck[i] = 1;
        need_ix |= incheck[i];
    }
    for (i = 0; i < b->nm; i++)
        need_ix |= !b->m[i].known;
    pthread_mutex_unlock(&s->tail.lock);
    /* Every match in the tail and every client id vouched for: the
     * index has nothing to add. */
    if (rc != 0 || !s->have_ix || !need_ix)
        goto fail;
    rc = arb__txn_begin(&s->ix, MDB_RDONLY, &itxn, why);
    if (rc != 0)
        goto fail;
    for (i = 0; i < b->nm && rc == 0; i++) {
        if (b->m[i].known)
            continue;
        rc = arb__ix_match(s, itxn, b->m[i].id, b->m[i].idlen,
                           &b->m[i].base, why);
        if (rc == 0) {
            b->m[i].known = 1;
        } else if (rc == ARB_ENOTFOUND) {
            /* A new match, or one batch_judge refuses naming it: no
             * commit that succeeds may leave a reason behind in why. */
            rc = 0;
            if (why != NULL)
                why->len = 0;
        }
    }
    for (i = 0; i < b->n && rc == 0; i++) {
        const arb_append_t *e = &b->v[i];
        if (!incheck[i])
            continue;
        k.mv_data = key;
        k.mv_size = arb__idem_key(key, e->match_id, b->m[b->mof[i]].idlen,
                                  e->client_id, strlen(e->client_id));
        mrc = mdb_get(itxn, s->didem, &k, &d);
        if (mrc == 0)
            rc = idem_used(e, why);
        else if (mrc != MDB_NOTFOUND)
            rc = arb__mdb_fail(why, mrc, "read idem");
    }
fail:
    arb__txn_abort(&s->ix, itxn);
    free(incheck);
    return rc;
}

/* The checks of store.h, in batch order, and each event's hash. */
static int
batch_judge(batch_t *b, arb_buf_t *why)
{
    size_t i;
    char   rp[ARB__REPR_MAX];

    for (i = 0; i < b->nm; i++)
        b->m[i].cur = b->m[i].base;
    for (i = 0; i < b->n; i++) {
        arb_append_t *e = &b->v[i];
        bmatch_t     *bm = &b->m[b->mof[i]];
        arb_match_info_t *m = &bm->cur;

        if (!bm->known && e->seq == 0) {
            memset(m, 0, sizeof(*m));
            memcpy(m->match_id, e->match_id, bm->idlen);
            strcpy(m->game, e->game);
            m->created_ms = e->time_ms;
            bm->known = 2;          /* opened by this batch */
        } else if (!bm->known) {
            arb__why(why, "match \"%s\" not found",
                     arb__repr(rp, e->match_id, bm->idlen));
            return ARB_ENOTFOUND;
        } else if (e->seq == 0) {
            arb__why(why, "match \"%s\" already exists",
                     arb__repr(rp, e->match_id, bm->idlen));
            return ARB_EEXIST;
        } else if (m->closed && !e->after_close) {
            arb__why(why, "match \"%s\" is closed",
                     arb__repr(rp, e->match_id, bm->idlen));
            return ARB_EOVER;
        } else if (e->seq != m->last_seq + 1) {
            arb__why(why, "expected seq %llu, match is at %llu",
                     (unsigned long long)e->seq,
                     (unsigned long long)m->last_seq);
            return ARB_ECONFLICT;
        }
        arb_chain_next(e->seq == 0 ? NULL : m->head, e->bytes, e->len,
                       e->hash);
        m->last_seq = e->seq;
        m->count = e->seq + 1;
        memcpy(m->head, e->hash, ARB_HASH_LEN);
        m->last_ms = e->time_ms;
        if (e->closes)
            m->closed = 1;
    }
    return 0;
}

static size_t
rec_size(const arb_append_t *e, size_t idlen)
{
    return LR_HDR + idlen + (e->client_id ? strlen(e->client_id) : 0) +
           (e->seq == 0 ? strlen(e->game) : 0) + e->len;
}

/* A record in the journal: u32 length, the record, u16 length and the
 * deal secret that came with it, of a dealt open or, for a read replica
 * that met the deal late, of a later event (store_journal.c reads it
 * back). */
static size_t
jrec_size(const arb_append_t *e, size_t idlen)
{
    return 4 + rec_size(e, idlen) + 2 +
           (e->secret != NULL ? strlen(e->secret) : 0);
}

static void
rec_fill(unsigned char *p, const arb_append_t *e, size_t idlen)
{
    size_t cidlen = e->client_id ? strlen(e->client_id) : 0;
    size_t glen = e->seq == 0 ? strlen(e->game) : 0;

    p[LR_FLAGS] = (unsigned char)((e->closes ? LR_CLOSES : 0) |
                                  (e->after_close ? LR_AFTER : 0));
    p[LR_IDLEN] = (unsigned char)idlen;
    p[LR_CIDLEN] = (unsigned char)cidlen;
    p[LR_GLEN] = (unsigned char)glen;
    arb__put64(p + LR_SEQ, e->seq);
    arb__put64(p + LR_TIME, (uint64_t)e->time_ms);
    memcpy(p + LR_HASH, e->hash, ARB_HASH_LEN);
    p += LR_HDR;
    memcpy(p, e->match_id, idlen);
    p += idlen;
    if (cidlen)
        memcpy(p, e->client_id, cidlen);
    p += cidlen;
    if (glen)
        memcpy(p, e->game, glen);
    p += glen;
    memcpy(p, e->bytes, e->len);
}

/* Room reserved beforehand (arb_buf_reserve in append()). */
static void
jrec_add(arb_buf_t *jb, const void *rec, size_t len, const arb_append_t *e)
{
    unsigned char h[4];
    size_t        sl = e->secret != NULL ? strlen(e->secret) : 0;

    arb_store_be32(h, (uint32_t)len);
    arb_buf_add(jb, h, 4);
    arb_buf_add(jb, rec, len);
    h[0] = (unsigned char)(sl >> 8);
    h[1] = (unsigned char)sl;
    arb_buf_add(jb, h, 2);
    if (sl)
        arb_buf_add(jb, e->secret, sl);
}

/* The log transaction: one MDB_APPEND per event (and the deal secret of
 * a dealt open, in "meta").  ARB_EFULL exactly when LMDB said
 * MDB_MAP_FULL, so the caller can grow and run it again. */
static int
append_txn(arb_store_t *s, batch_t *b, uint64_t *put_ns, arb_buf_t *why)
{
    MDB_txn       *txn;
    MDB_val        k, d;
    unsigned char  lk[8];
    char           sk[8 + ARB_STORE_ID_MAX];
    uint64_t       pos, t0 = arb_clock_ns();
    size_t         i, idlen;
    int            rc, mrc;

    rc = arb__txn_begin(&s->log, 0, &txn, why);
    if (rc != 0)
        return rc;
    rc = arb__log_last(s, txn, &pos, why);
    s->jbuf.len = 0;
    for (i = 0; i < b->n && rc == 0; i++) {
        arb_append_t *e = &b->v[i];
        idlen = b->m[b->mof[i]].idlen;
        arb__put64(lk, ++pos);
        k.mv_data = lk;
        k.mv_size = 8;
        d.mv_data = NULL;
        d.mv_size = rec_size(e, idlen);
        /* MDB_APPEND both saves page splits and insists the key is past
         * the last one, guarding the density of positions. */
        mrc = mdb_put(txn, s->dlog, &k, &d, MDB_APPEND | MDB_RESERVE);
        if (mrc == MDB_KEYEXIST) {
            arb__why(why, "log key %llu is not past the last one",
                     (unsigned long long)pos);
            rc = ARB_ECORRUPT;
            break;
        }
        if (mrc != 0) {
            rc = arb__mdb_fail(why, mrc, "write log");
            break;
        }
        rec_fill(d.mv_data, e, idlen);
        e->pos = pos;
        if (s->jr != NULL)
            jrec_add(&s->jbuf, d.mv_data, d.mv_size, e);
        if (e->secret != NULL) {
            /* The deal's secret: in "meta", never in the chain, so the
             * log can be read by anyone while hands stay hidden. */
            memcpy(sk, "secret:", 7);
            memcpy(sk + 7, e->match_id, idlen);
            k.mv_data = sk;
            k.mv_size = 7 + idlen;
            d.mv_data = (void *)e->secret;
            d.mv_size = strlen(e->secret);
            mrc = mdb_put(txn, s->dmeta, &k, &d, 0);
            if (mrc != 0)
                rc = arb__mdb_fail(why, mrc, "write deal secret");
        }
    }
    if (rc != 0) {
        arb__txn_abort(&s->log, txn);
        return rc;
    }
    *put_ns += arb_clock_ns() - t0;
    mrc = arb__txn_commit(&s->log, txn);
    if (mrc == MDB_MAP_FULL) {
        /* From saving the free list, before any page is written: as safe
         * to retry as a put. */
        arb__why(why, "commit: %s", mdb_strerror(mrc));
        return ARB_EFULL;
    }
    if (mrc != 0) {
        /* Never retried: after a failed write or fsync we cannot know
         * what reached the disk, so the caller must stop. */
        atomic_store(&s->state, ST_NOWRITE);
        arb__why(why, "commit failed: %s", mdb_strerror(mrc));
        return mrc > 0 ? ARB_EIO : ARB_ESTORE;
    }
    return 0;
}

/* After the commit: the batch joins the tail, where readers see it. */
static int
batch_publish(arb_store_t *s, batch_t *b, arb_buf_t *why)
{
    arb__rec_t r;
    uint64_t   hi_before;
    size_t     i;
    int        rc = 0;

    pthread_mutex_lock(&s->tail.lock);
    hi_before = s->tail.hi;
    for (i = 0; i < b->n && rc == 0; i++) {
        const arb_append_t *e = &b->v[i];
        bmatch_t           *bm = &b->m[b->mof[i]];
        memset(&r, 0, sizeof(r));
        r.pos = e->pos;
        r.seq = e->seq;
        r.time_ms = e->time_ms;
        r.flags = (e->closes ? LR_CLOSES : 0) |
                  (e->after_close ? LR_AFTER : 0);
        r.id = e->match_id;
        r.idlen = bm->idlen;
        r.cid = e->client_id;
        r.cidlen = e->client_id ? strlen(e->client_id) : 0;
        r.game = e->seq == 0 ? e->game : NULL;
        r.glen = e->seq == 0 ? strlen(e->game) : 0;
        r.hash = e->hash;
        r.bytes = e->bytes;
        r.len = e->len;
        rc = arb__tail_add(&s->tail, &r, bm->known == 1 ? &bm->base : NULL,
                           why);
    }
    arb__ix_notify(s, hi_before);
    pthread_mutex_unlock(&s->tail.lock);
    return rc;
}

static int
append_check(const arb_append_t *e, size_t i, arb_buf_t *why)
{
    size_t n;

    if (!arb__str_ok(e->match_id, ARB_STORE_ID_MAX, &n)) {
        arb__why(why, "batch item %zu: match id must be 1..%d bytes", i,
                 ARB_STORE_ID_MAX);
        return ARB_EINVAL;
    }
    if (e->seq == 0 && !arb__str_ok(e->game, ARB_STORE_ID_MAX, &n)) {
        arb__why(why, "batch item %zu: seq 0 needs a game of 1..%d bytes",
                 i, ARB_STORE_ID_MAX);
        return ARB_EINVAL;
    }
    if (e->seq == UINT64_MAX) {
        arb__why(why, "batch item %zu: seq out of range", i);
        return ARB_EINVAL;
    }
    if (e->client_id != NULL &&
        !arb__str_ok(e->client_id, ARB_STORE_CLIENT_MAX, &n)) {
        arb__why(why, "batch item %zu: client id must be 1..%d bytes", i,
                 ARB_STORE_CLIENT_MAX);
        return ARB_EINVAL;
    }
    if (e->bytes == NULL || e->len == 0) {
        arb__why(why, "batch item %zu: empty event", i);
        return ARB_EINVAL;
    }
    if (e->len > ARB_STORE_EVENT_MAX) {
        arb__why(why, "batch item %zu: event is %zu bytes (max %u)", i,
                 e->len, ARB_STORE_EVENT_MAX);
        return ARB_ETOOBIG;
    }
    /* (The journal gives a secret's length 16 bits.) */
    if (e->secret != NULL && strlen(e->secret) > 0xffff) {
        arb__why(why, "batch item %zu: deal secret is %zu bytes (max "
                 "65535)", i, strlen(e->secret));
        return ARB_ETOOBIG;
    }
    return 0;
}

/* Every commit that returned is durable (its journal block is flushed):
 * a ticket only says so, and a failed handle refuses. */
int
arb_store_sync(arb_store_t *s, uint64_t ticket, arb_buf_t *why)
{
    if (s == NULL || s->read_only) {
        arb__why(why, "no store, or the store is open read-only");
        return s == NULL ? ARB_EINVAL : ARB_EPERM;
    }
    if (ticket > atomic_load(&s->durable)) {
        arb__why(why, "commit %llu was never made",
                 (unsigned long long)ticket);
        return ARB_ESTORE;
    }
    atomic_fetch_add_explicit(&s->t_synced_free, 1, memory_order_relaxed);
    return 0;
}

/* Room in the journal for the batch and in jbuf for its payload, before
 * anything is written: storage full is refused here, cleanly. */
static int
journal_room(arb_store_t *s, batch_t *b, arb_buf_t *why)
{
    size_t i, len = 0;

    for (i = 0; i < b->n; i++)
        len += jrec_size(&b->v[i], b->m[b->mof[i]].idlen);
    s->jbuf.len = 0;
    if (arb_buf_reserve(&s->jbuf, len) != 0) {
        arb__why(why, "out of memory");
        return ARB_ENOMEM;
    }
    return arb__jr_reserve(s, len, why);
}

/* Checks, commits and publishes a batch; with `sync`, also waits for its
 * meta page to reach the disk.  *ticket names the commit. */
static int
append(arb_store_t *s, arb_append_t *v, size_t n, int sync,
       uint64_t *ticket, arb_buf_t *why)
{
    batch_t  b;
    size_t   i;
    uint64_t t0, t1, t2, t3, put = 0;
    arb_buf_t ckwhy = ARB_BUF_INIT;
    int      rc, locked = 0, ckpt_tried = 0;

    memset(&b, 0, sizeof(b));
    if (s == NULL || (v == NULL && n > 0)) {
        arb__why(why, "no store or no batch");
        return ARB_EINVAL;
    }
    if (s->read_only) {
        arb__why(why, "the store is open read-only");
        rc = ARB_EPERM;
        goto fail;
    }
    for (i = 0; i < n; i++) {
        rc = append_check(&v[i], i, why);
        if (rc != 0)
            goto fail;
    }
    if (n == 0) {
        *ticket = 0;
        return 0;
    }
    b.v = v;
    b.n = n;
    b.trust_cids = !sync;       /* arb_store_append_commit */
    if (pthread_mutex_lock(&s->wlock) != 0) {
        arb__why(why, "cannot take the writer lock");
        rc = ARB_ESTORE;
        goto fail;
    }
    locked = 1;
    if (s->ck_closing) {
        arb__why(why, "the store is being closed");
        rc = ARB_ESTORE;
        goto fail;
    }
    if (atomic_load(&s->state) != ST_OK) {
        failed_why(s, why);
        rc = ARB_ESTORE;
        goto fail;
    }
    t0 = arb_clock_ns();
    rc = batch_index(&b, why);
    if (rc == 0)
        rc = batch_lookup(s, &b, why);
    if (rc == 0)
        rc = batch_judge(&b, why);
    t1 = arb_clock_ns();
    if (rc == 0)
        rc = journal_room(s, &b, why);
    while (rc == 0) {
        rc = append_txn(s, &b, &put, why);
        if (rc != ARB_EFULL)
            break;
        rc = arb__env_grow(&s->log, why);
        if (rc == 0)
            continue;
        /* Full at the cap (the message is the grow's): the pages kept
         * for the last checkpoint's snapshot come free with a newer one.
         * It begins a lap: written into this one it could take the room
         * the batch reserved (its journal write then found none and
         * stopped the store, until 2026-12-07), or find none itself and
         * free nothing.  The batch reserves its room again after it. */
        if (rc == ARB_EFULL && !ckpt_tried) {
            ckpt_tried = 1;
            if ((rc = arb__jr_ckpt(s, 1, 1, &ckwhy)) == 0) {
                rc = journal_room(s, &b, why);
                continue;
            }
            arb_buf_free(why);
            if (why != NULL)
                *why = ckwhy;
            ckwhy = (arb_buf_t)ARB_BUF_INIT;
        }
        break;
    }
    if (rc != 0)
        goto fail;
    /* The one flush that makes the batch durable. */
    t2 = arb_clock_ns();
    rc = arb_journal_append(s->jr, b.v[0].pos, (uint32_t)n, s->jbuf.data,
                            s->jbuf.len, why);
    if (rc != 0) {
        atomic_store(&s->state, ST_NOWRITE);
        rc = rc == ARB_ESTORE ? rc : ARB_EIO;
        goto fail;
    }
    arb__jr_stats_note(s);
    *ticket = atomic_fetch_add(&s->ncommits, 1) + 1;
    atomic_store(&s->durable, *ticket);
    t3 = arb_clock_ns();
    rc = batch_publish(s, &b, why);
    if (rc != 0) {
        /* Committed but not visible: the handle cannot go on serving
         * reads that would miss acknowledged events. */
        atomic_store(&s->state, ST_NOWRITE);
        rc = ARB_ESTORE;
        goto fail;
    }
    atomic_fetch_add_explicit(&s->t_batches, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->t_check, t1 - t0, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->t_put, put, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->t_commit, t2 - t1 - put,
                              memory_order_relaxed);
    atomic_fetch_add_explicit(&s->t_syncs, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->t_sync, t3 - t2, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->t_publish, arb_clock_ns() - t3,
                              memory_order_relaxed);
    pthread_mutex_unlock(&s->wlock);
    batch_free(&b);
    return 0;

fail:
    if (locked)
        pthread_mutex_unlock(&s->wlock);
    arb_buf_free(&ckwhy);
    batch_free(&b);
    /* Nothing was written: make sure no hash can be mistaken for one. */
    for (i = 0; i < n; i++) {
        memset(v[i].hash, 0, sizeof(v[i].hash));
        v[i].pos = 0;
    }
    return rc;
}

int
arb_store_append_batch(arb_store_t *s, arb_append_t *v, size_t n,
                       arb_buf_t *why)
{
    uint64_t ticket;

    return append(s, v, n, 1, &ticket, why);
}

int
arb_store_append_commit(arb_store_t *s, arb_append_t *v, size_t n,
                        uint64_t *ticket, arb_buf_t *why)
{
    uint64_t t = 0;
    int      rc;

    rc = append(s, v, n, 0, &t, why);
    if (ticket != NULL)
        *ticket = rc == 0 ? t : 0;
    return rc;
}
