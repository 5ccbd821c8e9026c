/*
 * store.c - the event log on LMDB.  Layout and contracts: docs/STORE.md
 * and store.h.
 *
 * Locking, in one place:
 *   maplock  rwlock.  Shared by every transaction (read or write) for its
 *            whole life, exclusive around mdb_env_set_mapsize(), which
 *            remaps the file and so must not run while any transaction of
 *            this process holds pointers into the old map.
 *   wlock    mutex.  Serialises appends, so that abort/grow/retry of one
 *            batch is not interleaved with another writer.
 * Order: wlock before maplock; readers never take wlock.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lmdb.h>

#include "core/ledger/chain.h"
#include "core/err.h"
#include "core/ledger/store.h"

#define DEF_MAP_SIZE ((size_t)64 << 20)
#if SIZE_MAX > 0xffffffffu
#define DEF_MAP_MAX  ((size_t)64 << 30)
#else
#define DEF_MAP_MAX  ((size_t)1 << 30)
#endif

#define EVKEY_MAX   (ARB_STORE_ID_MAX + 1 + 8)
#define IDEMKEY_MAX (ARB_STORE_ID_MAX + 1 + ARB_STORE_CLIENT_MAX)
#define EVHDR       40                      /* hash(32) + time_ms(8) */
#define LOGVAL_MIN  (16 + 1)                /* seq + time + id */
#define LOGVAL_MAX  (16 + ARB_STORE_ID_MAX)
#define REC_VERSION 1
#define REC_LEN     132
#define REPR_MAX    (4 * ARB_STORE_CLIENT_MAX + 8)

/* Offsets in a "matches" record (see docs/STORE.md). */
#define REC_VER     0
#define REC_STATUS  1
#define REC_GLEN    2
#define REC_RSVD    3
#define REC_GAME    4
#define REC_LAST    68
#define REC_COUNT   76
#define REC_HEAD    84
#define REC_CREATED 116
#define REC_LASTMS  124

enum { ST_OK = 0, ST_NOWRITE, ST_DEAD };

struct arb_store {
    MDB_env          *env;
    MDB_dbi           events, matches, log, idem, meta;
    pthread_rwlock_t  maplock;
    pthread_mutex_t   wlock;
    int               have_maplock;
    int               have_wlock;
    size_t            map_max;
    size_t            page;
    int               read_only;
    int               stale;
    uint64_t          grows;    /* written only with maplock exclusive */
    atomic_int        state;    /* ST_*: only ever moves forward */
};

typedef struct ev {
    int64_t              time_ms;
    const unsigned char *hash;
    const unsigned char *bytes;
    size_t               len;
} ev_t;

static void why_set(arb_buf_t *why, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
why_set(arb_buf_t *why, const char *fmt, ...)
{
    char    msg[512];
    va_list ap;

    if (why == NULL)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    why->len = 0;
    arb_buf_puts(why, msg);
}

/* Ids in messages may come from a corrupt file: escape what is not
 * plain printable ASCII so a message stays one readable line. */
static const char *
repr(char out[REPR_MAX], const void *p, size_t n)
{
    const unsigned char *s = p;
    size_t               i, o = 0;

    for (i = 0; i < n && o + 8 < REPR_MAX; i++) {
        if (s[i] > 0x20 && s[i] < 0x7f && s[i] != '"' && s[i] != '\\')
            out[o++] = (char)s[i];
        else
            o += (size_t)snprintf(out + o, REPR_MAX - o, "\\x%02x", s[i]);
    }
    if (i < n) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
    return out;
}

static int
mdb_code(int rc)
{
    switch (rc) {
    case MDB_SUCCESS:
        return 0;
    case MDB_NOTFOUND:
    case ENOENT:
        return ARB_ENOTFOUND;
    case MDB_KEYEXIST:
        return ARB_EEXIST;
    case MDB_MAP_FULL:
        return ARB_EFULL;
    case MDB_CORRUPTED:
    case MDB_PAGE_NOTFOUND:
    case MDB_INVALID:
        return ARB_ECORRUPT;
    case MDB_VERSION_MISMATCH:
    case MDB_INCOMPATIBLE:
        return ARB_EUNSUPP;
    case MDB_TXN_FULL:
    case MDB_BAD_VALSIZE:
    case MDB_DBS_FULL:
        return ARB_ETOOBIG;
    case MDB_READERS_FULL:
        return ARB_EAGAIN;
    case ENOMEM:
        return ARB_ENOMEM;
    case EACCES:
    case EPERM:
    case EROFS:
        return ARB_EPERM;
    default:
        return rc > 0 ? ARB_EIO : ARB_ESTORE;
    }
}

static int
mdb_fail(arb_buf_t *why, int rc, const char *what)
{
    why_set(why, "%s: %s", what, mdb_strerror(rc));
    return mdb_code(rc);
}

static int
errno_code(int e)
{
    return e == ENOENT ? ARB_ENOTFOUND
         : e == EACCES || e == EPERM || e == EROFS ? ARB_EPERM
         : e == ENOMEM ? ARB_ENOMEM : ARB_EIO;
}

static void
put64(unsigned char *p, uint64_t v)
{
    int i;

    for (i = 7; i >= 0; i--, v >>= 8)
        p[i] = (unsigned char)(v & 0xff);
}

static uint64_t
get64(const unsigned char *p)
{
    uint64_t v = 0;
    int      i;

    for (i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

/* Two's complement both ways without implementation-defined casts. */
static int64_t
u2i(uint64_t u)
{
    return u <= INT64_MAX ? (int64_t)u : -(int64_t)(UINT64_MAX - u) - 1;
}

static int
str_ok(const char *s, size_t max, size_t *len)
{
    size_t n;

    if (s == NULL)
        return 0;
    n = strnlen(s, max + 1);
    if (n == 0 || n > max)
        return 0;
    *len = n;
    return 1;
}

/* An id read from disk: 1..max bytes and no NUL, or it cannot be handed
 * out as a C string. */
static int
raw_id_ok(const void *p, size_t n, size_t max)
{
    return n >= 1 && n <= max && memchr(p, '\0', n) == NULL;
}

static size_t
ev_key(unsigned char *k, const char *id, size_t idlen, uint64_t seq)
{
    memcpy(k, id, idlen);
    k[idlen] = 0;
    put64(k + idlen + 1, seq);
    return idlen + 9;
}

static size_t
idem_key(unsigned char *k, const char *id, size_t idlen, const char *cid,
         size_t cidlen)
{
    memcpy(k, id, idlen);
    k[idlen] = 0;
    memcpy(k + idlen + 1, cid, cidlen);
    return idlen + 1 + cidlen;
}

static void
rec_encode(unsigned char r[REC_LEN], const arb_match_info_t *m)
{
    size_t glen = strlen(m->game);

    memset(r, 0, REC_LEN);
    r[REC_VER] = REC_VERSION;
    r[REC_STATUS] = m->closed ? 1 : 0;
    r[REC_GLEN] = (unsigned char)glen;
    memcpy(r + REC_GAME, m->game, glen);
    put64(r + REC_LAST, m->last_seq);
    put64(r + REC_COUNT, m->count);
    memcpy(r + REC_HEAD, m->head, ARB_HASH_LEN);
    put64(r + REC_CREATED, (uint64_t)m->created_ms);
    put64(r + REC_LASTMS, (uint64_t)m->last_ms);
}

static int
rec_decode(arb_match_info_t *m, const MDB_val *d, const char *id,
           size_t idlen, arb_buf_t *why)
{
    const unsigned char *r = d->mv_data;
    char                 rp[REPR_MAX];
    const char          *bad = NULL;
    size_t               glen, i;

    if (d->mv_size != REC_LEN) {
        why_set(why, "matches key \"%s\": record is %zu bytes, want %d",
                repr(rp, id, idlen), d->mv_size, REC_LEN);
        return ARB_ECORRUPT;
    }
    glen = r[REC_GLEN];
    if (r[REC_VER] != REC_VERSION)
        bad = "unknown record version";
    else if (r[REC_STATUS] > 1)
        bad = "bad status";
    else if (r[REC_RSVD] != 0)
        bad = "reserved byte set";
    else if (!raw_id_ok(r + REC_GAME, glen, ARB_STORE_ID_MAX))
        bad = "bad game name";
    else if (get64(r + REC_LAST) == UINT64_MAX ||
             get64(r + REC_COUNT) != get64(r + REC_LAST) + 1)
        bad = "count is not last_seq + 1";
    for (i = REC_GAME + glen; bad == NULL && i < REC_LAST; i++)
        if (r[i] != 0)
            bad = "game padding not zero";
    if (bad != NULL) {
        why_set(why, "matches key \"%s\": %s", repr(rp, id, idlen), bad);
        return ARB_ECORRUPT;
    }
    memset(m, 0, sizeof(*m));
    memcpy(m->match_id, id, idlen);
    memcpy(m->game, r + REC_GAME, glen);
    m->closed = r[REC_STATUS];
    m->last_seq = get64(r + REC_LAST);
    m->count = get64(r + REC_COUNT);
    memcpy(m->head, r + REC_HEAD, ARB_HASH_LEN);
    m->created_ms = u2i(get64(r + REC_CREATED));
    m->last_ms = u2i(get64(r + REC_LASTMS));
    return 0;
}

static int
ev_decode(ev_t *ev, const MDB_val *d, const char *id, size_t idlen,
          uint64_t seq, arb_buf_t *why)
{
    const unsigned char *p = d->mv_data;
    char                 rp[REPR_MAX];

    if (d->mv_size <= EVHDR || d->mv_size - EVHDR > ARB_STORE_EVENT_MAX) {
        why_set(why, "events key \"%s\"/%llu: value is %zu bytes",
                repr(rp, id, idlen), (unsigned long long)seq, d->mv_size);
        return ARB_ECORRUPT;
    }
    ev->hash = p;
    ev->time_ms = u2i(get64(p + 32));
    ev->bytes = p + EVHDR;
    ev->len = d->mv_size - EVHDR;
    return 0;
}

/*
 * Transactions.  txn_begin takes maplock shared for the life of the
 * transaction; txn_abort/txn_commit release it.
 */
static int
txn_begin(arb_store_t *s, unsigned flags, MDB_txn **txn, arb_buf_t *why)
{
    int rc, tries;

    *txn = NULL;
    for (tries = 0;; tries++) {
        if (pthread_rwlock_rdlock(&s->maplock) != 0) {
            why_set(why, "cannot take the map lock");
            return ARB_ESTORE;
        }
        if (atomic_load(&s->state) == ST_DEAD) {
            pthread_rwlock_unlock(&s->maplock);
            why_set(why, "the map could not be remapped; reopen the store");
            return ARB_ESTORE;
        }
        rc = mdb_txn_begin(s->env, NULL, flags, txn);
        if (rc == 0)
            return 0;
        *txn = NULL;
        pthread_rwlock_unlock(&s->maplock);
        if (rc != MDB_MAP_RESIZED || tries >= 3)
            return mdb_fail(why, rc, "begin transaction");
        /* Another process grew the map past ours: adopt its size, which
         * like any remap needs all our transactions finished. */
        pthread_rwlock_wrlock(&s->maplock);
        rc = mdb_env_set_mapsize(s->env, 0);
        if (rc != 0)
            atomic_store(&s->state, ST_DEAD);
        pthread_rwlock_unlock(&s->maplock);
        if (rc != 0)
            return mdb_fail(why, rc, "adopt the new map size");
    }
}

static void
txn_abort(arb_store_t *s, MDB_txn *txn)
{
    if (txn == NULL)
        return;
    mdb_txn_abort(txn);
    pthread_rwlock_unlock(&s->maplock);
}

static int
txn_commit(arb_store_t *s, MDB_txn *txn)
{
    int rc = mdb_txn_commit(txn);

    pthread_rwlock_unlock(&s->maplock);
    return rc;
}

/* Doubles the map up to map_max.  Called by the writer with wlock held
 * and no transaction open. */
static int
grow(arb_store_t *s, arb_buf_t *why)
{
    MDB_envinfo info;
    size_t      cur, next;
    int         rc;

    pthread_rwlock_wrlock(&s->maplock);
    mdb_env_info(s->env, &info);
    cur = info.me_mapsize;
    if (cur >= s->map_max) {
        why_set(why, "storage full: map is %zu bytes (max %zu)", cur,
                s->map_max);
        rc = ARB_EFULL;
        goto fail;
    }
    next = cur <= s->map_max / 2 ? cur * 2 : s->map_max;
    rc = mdb_env_set_mapsize(s->env, next);
    if (rc != 0) {
        /* LMDB unmaps before mapping again: a failure leaves no map. */
        atomic_store(&s->state, ST_DEAD);
        rc = mdb_fail(why, rc, "grow the map");
        goto fail;
    }
    mdb_env_info(s->env, &info);
    if (info.me_mapsize <= cur) {
        why_set(why, "grow the map: still %zu bytes", cur);
        rc = ARB_ESTORE;
        goto fail;
    }
    s->grows++;
    rc = 0;
fail:
    pthread_rwlock_unlock(&s->maplock);
    return rc;
}

/* Does the work of a write transaction; returns ARB_EFULL exactly when
 * LMDB said MDB_MAP_FULL, which makes write_txn grow and call it again
 * in a fresh transaction. */
typedef int (*write_fn)(arb_store_t *s, MDB_txn *txn, void *ctx,
                        arb_buf_t *why);

static int
write_txn(arb_store_t *s, write_fn fn, void *ctx, arb_buf_t *why)
{
    MDB_txn *txn;
    int      rc, mrc;

    if (pthread_mutex_lock(&s->wlock) != 0) {
        why_set(why, "cannot take the writer lock");
        return ARB_ESTORE;
    }
    for (;;) {
        if (atomic_load(&s->state) != ST_OK) {
            why_set(why, "an earlier commit failed; reopen the store");
            rc = ARB_ESTORE;
            break;
        }
        rc = txn_begin(s, 0, &txn, why);
        if (rc != 0)
            break;
        rc = fn(s, txn, ctx, why);
        if (rc != 0) {
            txn_abort(s, txn);
            if (rc != ARB_EFULL)
                break;
        } else {
            mrc = txn_commit(s, txn);
            if (mrc == 0)
                break;
            if (mrc != MDB_MAP_FULL) {
                /* Never retried: after a failed write or fsync we cannot
                 * know what reached the disk, so the caller must stop. */
                atomic_store(&s->state, ST_NOWRITE);
                why_set(why, "commit failed: %s", mdb_strerror(mrc));
                rc = mrc > 0 ? ARB_EIO : ARB_ESTORE;
                break;
            }
            /* MAP_FULL from commit comes from saving the free list,
             * before any page is written: as safe to retry as a put. */
        }
        rc = grow(s, why);
        if (rc != 0)
            break;
    }
    pthread_mutex_unlock(&s->wlock);
    return rc;
}

static int
log_last(arb_store_t *s, MDB_txn *txn, uint64_t *pos, arb_buf_t *why)
{
    MDB_cursor *c = NULL;
    MDB_val     k, d;
    int         rc, mrc;

    *pos = 0;
    mrc = mdb_cursor_open(txn, s->log, &c);
    if (mrc != 0) {
        rc = mdb_fail(why, mrc, "open log cursor");
        goto fail;
    }
    mrc = mdb_cursor_get(c, &k, &d, MDB_LAST);
    if (mrc == MDB_NOTFOUND) {
        rc = 0;
        goto fail;
    }
    if (mrc != 0) {
        rc = mdb_fail(why, mrc, "read log");
        goto fail;
    }
    if (k.mv_size != 8) {
        why_set(why, "log: a key is %zu bytes, want 8", k.mv_size);
        rc = ARB_ECORRUPT;
        goto fail;
    }
    *pos = get64(k.mv_data);
    rc = 0;
fail:
    mdb_cursor_close(c);
    return rc;
}

static int
match_get(arb_store_t *s, MDB_txn *txn, const char *id, size_t idlen,
          arb_match_info_t *m, arb_buf_t *why)
{
    MDB_val k, d;
    char    rp[REPR_MAX];
    int     mrc;

    k.mv_data = (void *)id;
    k.mv_size = idlen;
    mrc = mdb_get(txn, s->matches, &k, &d);
    if (mrc == MDB_NOTFOUND) {
        why_set(why, "match \"%s\" not found", repr(rp, id, idlen));
        return ARB_ENOTFOUND;
    }
    if (mrc != 0)
        return mdb_fail(why, mrc, "read matches");
    return rec_decode(m, &d, id, idlen, why);
}

/*
 * Opening.
 */
static int
open_dbis(arb_store_t *s, MDB_txn *txn, unsigned flags, arb_buf_t *why)
{
    static const char *const names[] = {
        "events", "matches", "log", "idem", "meta"
    };
    MDB_dbi *dbis[] = { &s->events, &s->matches, &s->log, &s->idem,
                        &s->meta };
    size_t   i;
    int      mrc;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        mrc = mdb_dbi_open(txn, names[i], flags, dbis[i]);
        if (mrc == MDB_NOTFOUND) {
            why_set(why, "not an arbiter store (no \"%s\" database)",
                    names[i]);
            return ARB_ENOTFOUND;
        }
        if (mrc != 0) {
            why_set(why, "open database \"%s\": %s", names[i],
                    mdb_strerror(mrc));
            return mdb_code(mrc);
        }
    }
    return 0;
}

/* Checks the format record; writes it into an empty store when allowed. */
static int
check_format(arb_store_t *s, MDB_txn *txn, int may_write, arb_buf_t *why)
{
    MDB_dbi        data[] = { s->events, s->matches, s->log, s->idem };
    MDB_stat       st;
    MDB_val        k, d;
    unsigned char  v[4];
    unsigned long  fmt;
    size_t         i;
    int            mrc;

    k.mv_data = "format";
    k.mv_size = 6;
    mrc = mdb_get(txn, s->meta, &k, &d);
    if (mrc == 0) {
        if (d.mv_size != 4) {
            why_set(why, "meta key \"format\": value is %zu bytes, want 4",
                    d.mv_size);
            return ARB_ECORRUPT;
        }
        memcpy(v, d.mv_data, 4);
        fmt = (unsigned long)v[0] << 24 | (unsigned long)v[1] << 16 |
              (unsigned long)v[2] << 8 | v[3];
        if (fmt != ARB_STORE_FORMAT) {
            why_set(why, "store format %lu is not supported (this build "
                    "reads %d)", fmt, ARB_STORE_FORMAT);
            return ARB_EUNSUPP;
        }
        return 0;
    }
    if (mrc != MDB_NOTFOUND)
        return mdb_fail(why, mrc, "read meta");
    for (i = 0; i < sizeof(data) / sizeof(data[0]); i++) {
        mrc = mdb_stat(txn, data[i], &st);
        if (mrc != 0)
            return mdb_fail(why, mrc, "stat");
        if (st.ms_entries != 0) {
            why_set(why, "meta key \"format\" is missing from a store "
                    "holding data");
            return ARB_ECORRUPT;
        }
    }
    if (!may_write) {
        why_set(why, "meta key \"format\" is missing");
        return ARB_ECORRUPT;
    }
    v[0] = v[1] = v[2] = 0;
    v[3] = ARB_STORE_FORMAT;
    d.mv_data = v;
    d.mv_size = 4;
    mrc = mdb_put(txn, s->meta, &k, &d, 0);
    return mrc != 0 ? mdb_fail(why, mrc, "write meta") : 0;
}

static int
init_fn(arb_store_t *s, MDB_txn *txn, void *ctx, arb_buf_t *why)
{
    int rc;

    (void)ctx;
    rc = open_dbis(s, txn, MDB_CREATE, why);
    if (rc == 0)
        rc = check_format(s, txn, 1, why);
    return rc;
}

static int
init_ro(arb_store_t *s, arb_buf_t *why)
{
    MDB_txn *txn;
    int      rc, mrc;

    rc = txn_begin(s, MDB_RDONLY, &txn, why);
    if (rc != 0)
        return rc;
    rc = open_dbis(s, txn, 0, why);
    if (rc == 0)
        rc = check_format(s, txn, 0, why);
    if (rc != 0) {
        txn_abort(s, txn);
        return rc;
    }
    /* Committing (not aborting) is what keeps the dbi handles open. */
    mrc = txn_commit(s, txn);
    return mrc != 0 ? mdb_fail(why, mrc, "open databases") : 0;
}

int
arb_store_open(arb_store_t **out, const char *dir,
               const arb_store_opts_t *opts, arb_buf_t *why)
{
    arb_store_t      *s = NULL;
    arb_store_opts_t  o = { 0, 0, 0 };
    struct stat       st;
    MDB_envinfo       info;
    char             *path = NULL;
    size_t            page;
    long              pg;
    int               rc, mrc, exists;

    if (out == NULL || dir == NULL || *dir == '\0') {
        why_set(why, "no store directory given");
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
        why_set(why, "map_size too large");
        return ARB_EINVAL;
    }
    o.map_size = (o.map_size + page - 1) / page * page;
    o.map_max -= o.map_max % page;
    if (o.map_max < o.map_size) {
        why_set(why, "map_max (%zu) is below map_size (%zu)", o.map_max,
                o.map_size);
        return ARB_EINVAL;
    }

    s = calloc(1, sizeof(*s));
    if (s == NULL) {
        rc = ARB_ENOMEM;
        goto fail;
    }
    atomic_init(&s->state, ST_OK);
    s->map_max = o.map_max;
    s->page = page;
    s->read_only = o.read_only != 0;
    if (pthread_rwlock_init(&s->maplock, NULL) != 0) {
        rc = ARB_ENOMEM;
        goto fail;
    }
    s->have_maplock = 1;
    if (pthread_mutex_init(&s->wlock, NULL) != 0) {
        rc = ARB_ENOMEM;
        goto fail;
    }
    s->have_wlock = 1;

    if (!s->read_only && mkdir(dir, 0700) != 0 && errno != EEXIST) {
        rc = errno_code(errno);
        why_set(why, "create %s: %s", dir, strerror(errno));
        goto fail;
    }
    if (stat(dir, &st) != 0) {
        rc = errno_code(errno);
        why_set(why, "%s: %s", dir, strerror(errno));
        goto fail;
    }
    if (!S_ISDIR(st.st_mode)) {
        rc = ARB_EINVAL;
        why_set(why, "%s is not a directory", dir);
        goto fail;
    }
    path = malloc(strlen(dir) + sizeof("/data.mdb"));
    if (path == NULL) {
        rc = ARB_ENOMEM;
        goto fail;
    }
    strcpy(path, dir);
    strcat(path, "/data.mdb");
    exists = stat(path, &st) == 0;
    if (!exists && s->read_only) {
        rc = ARB_ENOTFOUND;
        why_set(why, "%s: no store there", dir);
        goto fail;
    }

    mrc = mdb_env_create(&s->env);
    if (mrc != 0) {
        s->env = NULL;
        rc = mdb_fail(why, mrc, "create environment");
        goto fail;
    }
    mrc = mdb_env_set_maxdbs(s->env, 8);
    /* An existing store keeps the map it grew to: LMDB adopts the size
     * recorded in the file when none is set before opening. */
    if (mrc == 0 && !exists)
        mrc = mdb_env_set_mapsize(s->env, o.map_size);
    if (mrc == 0)
        mrc = mdb_env_open(s->env, dir,
                           MDB_NOTLS | (s->read_only ? MDB_RDONLY : 0),
                           0600);
    if (mrc != 0) {
        rc = mdb_code(mrc);
        why_set(why, "open %s: %s", dir, mdb_strerror(mrc));
        goto fail;
    }
    mdb_env_info(s->env, &info);
    if (info.me_mapsize < o.map_size) {
        mrc = mdb_env_set_mapsize(s->env, o.map_size);
        if (mrc != 0) {
            rc = mdb_fail(why, mrc, "set the map size");
            goto fail;
        }
    }
    mrc = mdb_reader_check(s->env, &s->stale);
    if (mrc != 0) {
        rc = mdb_fail(why, mrc, "check readers");
        goto fail;
    }
    rc = s->read_only ? init_ro(s, why) : write_txn(s, init_fn, NULL, why);
    if (rc != 0)
        goto fail;
    free(path);
    *out = s;
    return 0;

fail:
    if (rc == ARB_ENOMEM)
        why_set(why, "out of memory");
    free(path);
    arb_store_close(s);
    return rc;
}

void
arb_store_close(arb_store_t *s)
{
    if (s == NULL)
        return;
    if (s->env != NULL)
        mdb_env_close(s->env);
    if (s->have_wlock)
        pthread_mutex_destroy(&s->wlock);
    if (s->have_maplock)
        pthread_rwlock_destroy(&s->maplock);
    free(s);
}

int
arb_store_reader_check(arb_store_t *s, int *cleared)
{
    int dead = 0, mrc;

    if (s == NULL)
        return ARB_EINVAL;
    mrc = mdb_reader_check(s->env, &dead);
    if (cleared != NULL)
        *cleared = dead;
    return mdb_code(mrc);
}

/*
 * Appending.
 */
typedef struct batch {
    arb_append_t *v;
    size_t        n;
} batch_t;

static int
append_fn(arb_store_t *s, MDB_txn *txn, void *ctx, arb_buf_t *why)
{
    batch_t          *b = ctx;
    arb_append_t     *e;
    arb_match_info_t  m;
    MDB_val           k, d;
    unsigned char     key[IDEMKEY_MAX], rec[REC_LEN], lk[8];
    unsigned char     lv[LOGVAL_MAX], sv[8];
    char              rp[REPR_MAX], rc2[REPR_MAX];
    uint64_t          pos;
    size_t            i, idlen, cidlen;
    int               rc, mrc;

    rc = log_last(s, txn, &pos, why);
    if (rc != 0)
        goto fail;
    for (i = 0; i < b->n; i++) {
        e = &b->v[i];
        idlen = strlen(e->match_id);        /* validated by the caller */
        rc = match_get(s, txn, e->match_id, idlen, &m, why);
        if (rc == ARB_ENOTFOUND && e->seq == 0) {
            memset(&m, 0, sizeof(m));
            memcpy(m.match_id, e->match_id, idlen);
            strcpy(m.game, e->game);
            m.created_ms = e->time_ms;
        } else if (rc != 0) {
            goto fail;
        } else if (e->seq == 0) {
            why_set(why, "match \"%s\" already exists",
                    repr(rp, e->match_id, idlen));
            rc = ARB_EEXIST;
            goto fail;
        } else if (m.closed && !e->after_close) {
            why_set(why, "match \"%s\" is closed",
                    repr(rp, e->match_id, idlen));
            rc = ARB_EOVER;
            goto fail;
        } else if (e->seq != m.last_seq + 1) {
            why_set(why, "expected seq %llu, match is at %llu",
                    (unsigned long long)e->seq,
                    (unsigned long long)m.last_seq);
            rc = ARB_ECONFLICT;
            goto fail;
        }
        arb_chain_next(e->seq == 0 ? NULL : m.head, e->bytes, e->len,
                       e->hash);

        k.mv_data = key;
        k.mv_size = ev_key(key, e->match_id, idlen, e->seq);
        d.mv_data = NULL;
        d.mv_size = EVHDR + e->len;
        mrc = mdb_put(txn, s->events, &k, &d, MDB_NOOVERWRITE | MDB_RESERVE);
        if (mrc == MDB_KEYEXIST) {
            why_set(why, "events key \"%s\"/%llu exists past the match head",
                    repr(rp, e->match_id, idlen),
                    (unsigned long long)e->seq);
            rc = ARB_ECORRUPT;
            goto fail;
        }
        if (mrc != 0) {
            rc = mdb_fail(why, mrc, "write events");
            goto fail;
        }
        /* MDB_RESERVE: fill LMDB's buffer in place, before the next put. */
        memcpy(d.mv_data, e->hash, ARB_HASH_LEN);
        put64((unsigned char *)d.mv_data + 32, (uint64_t)e->time_ms);
        memcpy((unsigned char *)d.mv_data + EVHDR, e->bytes, e->len);

        if (e->client_id != NULL) {
            cidlen = strlen(e->client_id);
            k.mv_size = idem_key(key, e->match_id, idlen, e->client_id,
                                 cidlen);
            put64(sv, e->seq);
            d.mv_data = sv;
            d.mv_size = 8;
            mrc = mdb_put(txn, s->idem, &k, &d, MDB_NOOVERWRITE);
            if (mrc == MDB_KEYEXIST) {
                why_set(why, "client id \"%s\" already used in match \"%s\"",
                        repr(rc2, e->client_id, cidlen),
                        repr(rp, e->match_id, idlen));
                rc = ARB_EEXIST;
                goto fail;
            }
            if (mrc != 0) {
                rc = mdb_fail(why, mrc, "write idem");
                goto fail;
            }
        }

        if (e->secret != NULL && e->seq == 0) {
            /* The deal's secret: in "meta", never in the chain, so the
             * log can be read by anyone while hands stay hidden. */
            char   sk[8 + ARB_STORE_ID_MAX];
            memcpy(sk, "secret:", 7);
            memcpy(sk + 7, e->match_id, idlen);
            k.mv_data = sk;
            k.mv_size = 7 + idlen;
            d.mv_data = (void *)e->secret;
            d.mv_size = strlen(e->secret);
            mrc = mdb_put(txn, s->meta, &k, &d, 0);
            if (mrc != 0) {
                rc = mdb_fail(why, mrc, "write deal secret");
                goto fail;
            }
        }

        pos++;
        put64(lk, pos);
        put64(lv, e->seq);
        put64(lv + 8, (uint64_t)e->time_ms);
        memcpy(lv + 16, e->match_id, idlen);
        k.mv_data = lk;
        k.mv_size = 8;
        d.mv_data = lv;
        d.mv_size = 16 + idlen;
        /* MDB_APPEND both saves page splits and insists the key is
         * past the last one, guarding the density of positions. */
        mrc = mdb_put(txn, s->log, &k, &d, MDB_APPEND);
        if (mrc == MDB_KEYEXIST) {
            why_set(why, "log key %llu is not past the last one",
                    (unsigned long long)pos);
            rc = ARB_ECORRUPT;
            goto fail;
        }
        if (mrc != 0) {
            rc = mdb_fail(why, mrc, "write log");
            goto fail;
        }

        m.last_seq = e->seq;
        m.count = e->seq + 1;
        memcpy(m.head, e->hash, ARB_HASH_LEN);
        m.last_ms = e->time_ms;
        if (e->closes)
            m.closed = 1;
        rec_encode(rec, &m);
        k.mv_data = (void *)e->match_id;
        k.mv_size = idlen;
        d.mv_data = rec;
        d.mv_size = REC_LEN;
        mrc = mdb_put(txn, s->matches, &k, &d, 0);
        if (mrc != 0) {
            rc = mdb_fail(why, mrc, "write matches");
            goto fail;
        }
        e->pos = pos;
    }
    return 0;

fail:
    return rc;
}

static int
append_check(const arb_append_t *e, size_t i, arb_buf_t *why)
{
    size_t n;

    if (!str_ok(e->match_id, ARB_STORE_ID_MAX, &n)) {
        why_set(why, "batch item %zu: match id must be 1..%d bytes", i,
                ARB_STORE_ID_MAX);
        return ARB_EINVAL;
    }
    if (e->seq == 0 && !str_ok(e->game, ARB_STORE_ID_MAX, &n)) {
        why_set(why, "batch item %zu: seq 0 needs a game of 1..%d bytes",
                i, ARB_STORE_ID_MAX);
        return ARB_EINVAL;
    }
    if (e->seq == UINT64_MAX) {
        why_set(why, "batch item %zu: seq out of range", i);
        return ARB_EINVAL;
    }
    if (e->client_id != NULL &&
        !str_ok(e->client_id, ARB_STORE_CLIENT_MAX, &n)) {
        why_set(why, "batch item %zu: client id must be 1..%d bytes", i,
                ARB_STORE_CLIENT_MAX);
        return ARB_EINVAL;
    }
    if (e->bytes == NULL || e->len == 0) {
        why_set(why, "batch item %zu: empty event", i);
        return ARB_EINVAL;
    }
    if (e->len > ARB_STORE_EVENT_MAX) {
        why_set(why, "batch item %zu: event is %zu bytes (max %u)", i,
                e->len, ARB_STORE_EVENT_MAX);
        return ARB_ETOOBIG;
    }
    return 0;
}

int
arb_store_append_batch(arb_store_t *s, arb_append_t *v, size_t n,
                       arb_buf_t *why)
{
    batch_t b;
    size_t  i;
    int     rc;

    if (s == NULL || (v == NULL && n > 0)) {
        why_set(why, "no store or no batch");
        return ARB_EINVAL;
    }
    if (s->read_only) {
        why_set(why, "the store is open read-only");
        rc = ARB_EPERM;
        goto fail;
    }
    for (i = 0; i < n; i++) {
        rc = append_check(&v[i], i, why);
        if (rc != 0)
            goto fail;
    }
    if (n == 0)
        return 0;
    b.v = v;
    b.n = n;
    rc = write_txn(s, append_fn, &b, why);
    if (rc != 0)
        goto fail;
    return 0;

fail:
    /* Nothing was written: make sure no hash can be mistaken for one. */
    for (i = 0; i < n; i++) {
        memset(v[i].hash, 0, sizeof(v[i].hash));
        v[i].pos = 0;
    }
    return rc;
}

/*
 * Reading.
 */
int
arb_store_match(arb_store_t *s, const char *match_id, arb_match_info_t *out,
                arb_buf_t *why)
{
    MDB_txn *txn = NULL;
    size_t   idlen;
    int      rc;

    if (s == NULL || out == NULL ||
        !str_ok(match_id, ARB_STORE_ID_MAX, &idlen)) {
        why_set(why, "bad match id");
        return ARB_EINVAL;
    }
    rc = txn_begin(s, MDB_RDONLY, &txn, why);
    if (rc != 0)
        goto fail;
    rc = match_get(s, txn, match_id, idlen, out, why);
fail:
    txn_abort(s, txn);
    return rc;
}

/* Walks seqs from..hi of one match, which must all be present. */
static int
scan_events(arb_store_t *s, MDB_txn *txn, const char *id, size_t idlen,
            uint64_t from, uint64_t hi, arb_store_event_cb cb, void *ud,
            arb_buf_t *why)
{
    MDB_cursor    *c = NULL;
    MDB_val        k, d;
    ev_t           ev;
    unsigned char  want[EVKEY_MAX];
    char           rp[REPR_MAX];
    uint64_t       seq;
    size_t         wlen;
    int            rc, mrc;

    mrc = mdb_cursor_open(txn, s->events, &c);
    if (mrc != 0) {
        rc = mdb_fail(why, mrc, "open events cursor");
        goto fail;
    }
    k.mv_data = want;
    k.mv_size = ev_key(want, id, idlen, from);
    mrc = mdb_cursor_get(c, &k, &d, MDB_SET_RANGE);
    for (seq = from;; seq++) {
        if (mrc != 0 && mrc != MDB_NOTFOUND) {
            rc = mdb_fail(why, mrc, "read events");
            goto fail;
        }
        wlen = ev_key(want, id, idlen, seq);
        if (mrc == MDB_NOTFOUND || k.mv_size != wlen ||
            memcmp(k.mv_data, want, wlen) != 0) {
            why_set(why, "events key \"%s\"/%llu: missing",
                    repr(rp, id, idlen), (unsigned long long)seq);
            rc = ARB_ECORRUPT;
            goto fail;
        }
        rc = ev_decode(&ev, &d, id, idlen, seq, why);
        if (rc != 0)
            goto fail;
        rc = cb(ud, seq, ev.time_ms, ev.hash, ev.bytes, ev.len);
        if (rc != 0 || seq == hi)
            goto fail;
        mrc = mdb_cursor_get(c, &k, &d, MDB_NEXT);
    }
fail:
    mdb_cursor_close(c);
    return rc;
}

int
arb_store_events(arb_store_t *s, const char *match_id, uint64_t from,
                 uint64_t to, arb_store_event_cb cb, void *ud,
                 arb_buf_t *why)
{
    arb_match_info_t  m;
    MDB_txn          *txn = NULL;
    size_t            idlen;
    uint64_t          hi;
    int               rc;

    if (s == NULL || cb == NULL ||
        !str_ok(match_id, ARB_STORE_ID_MAX, &idlen)) {
        why_set(why, "bad match id or no callback");
        return ARB_EINVAL;
    }
    rc = txn_begin(s, MDB_RDONLY, &txn, why);
    if (rc != 0)
        goto fail;
    rc = match_get(s, txn, match_id, idlen, &m, why);
    if (rc != 0)
        goto fail;
    hi = to < m.last_seq ? to : m.last_seq;
    if (from <= hi)
        rc = scan_events(s, txn, match_id, idlen, from, hi, cb, ud, why);
fail:
    txn_abort(s, txn);
    return rc;
}

int
arb_store_log(arb_store_t *s, uint64_t from_pos, uint64_t max,
              arb_store_log_cb cb, void *ud, arb_buf_t *why)
{
    MDB_txn       *txn = NULL;
    MDB_cursor    *c = NULL;
    MDB_val        k, d, ek, ed;
    ev_t           ev;
    unsigned char  lk[8], ekey[EVKEY_MAX];
    const unsigned char *lv;
    char           id[ARB_STORE_ID_MAX + 1], rp[REPR_MAX];
    uint64_t       pos, seq, done = 0;
    int64_t        t;
    size_t         idlen;
    int            rc, mrc;

    if (s == NULL || cb == NULL) {
        why_set(why, "no store or no callback");
        return ARB_EINVAL;
    }
    if (from_pos == 0)
        from_pos = 1;
    rc = txn_begin(s, MDB_RDONLY, &txn, why);
    if (rc != 0)
        goto fail;
    mrc = mdb_cursor_open(txn, s->log, &c);
    if (mrc != 0) {
        rc = mdb_fail(why, mrc, "open log cursor");
        goto fail;
    }
    put64(lk, from_pos);
    k.mv_data = lk;
    k.mv_size = 8;
    mrc = mdb_cursor_get(c, &k, &d, MDB_SET_RANGE);
    for (pos = from_pos; mrc == 0 && (max == 0 || done < max); pos++) {
        if (k.mv_size != 8) {
            why_set(why, "log: a key is %zu bytes, want 8", k.mv_size);
            rc = ARB_ECORRUPT;
            goto fail;
        }
        if (get64(k.mv_data) != pos) {
            why_set(why, "log key %llu: missing", (unsigned long long)pos);
            rc = ARB_ECORRUPT;
            goto fail;
        }
        lv = d.mv_data;
        if (d.mv_size < LOGVAL_MIN || d.mv_size > LOGVAL_MAX ||
            !raw_id_ok(lv + 16, d.mv_size - 16, ARB_STORE_ID_MAX)) {
            why_set(why, "log key %llu: bad value (%zu bytes)",
                    (unsigned long long)pos, d.mv_size);
            rc = ARB_ECORRUPT;
            goto fail;
        }
        seq = get64(lv);
        t = u2i(get64(lv + 8));
        idlen = d.mv_size - 16;
        memcpy(id, lv + 16, idlen);
        id[idlen] = '\0';
        ek.mv_data = ekey;
        ek.mv_size = ev_key(ekey, id, idlen, seq);
        mrc = mdb_get(txn, s->events, &ek, &ed);
        if (mrc == MDB_NOTFOUND) {
            why_set(why, "log key %llu: events key \"%s\"/%llu missing",
                    (unsigned long long)pos, repr(rp, id, idlen),
                    (unsigned long long)seq);
            rc = ARB_ECORRUPT;
            goto fail;
        }
        if (mrc != 0) {
            rc = mdb_fail(why, mrc, "read events");
            goto fail;
        }
        rc = ev_decode(&ev, &ed, id, idlen, seq, why);
        if (rc != 0)
            goto fail;
        if (ev.time_ms != t) {
            why_set(why, "log key %llu: time differs from events key "
                    "\"%s\"/%llu", (unsigned long long)pos,
                    repr(rp, id, idlen), (unsigned long long)seq);
            rc = ARB_ECORRUPT;
            goto fail;
        }
        rc = cb(ud, pos, id, seq, t, ev.hash, ev.bytes, ev.len);
        if (rc != 0)
            goto fail;
        done++;
        mrc = mdb_cursor_get(c, &k, &d, MDB_NEXT);
    }
    if (mrc != 0 && mrc != MDB_NOTFOUND)
        rc = mdb_fail(why, mrc, "read log");
fail:
    mdb_cursor_close(c);
    txn_abort(s, txn);
    return rc;
}

int
arb_store_matches(arb_store_t *s, arb_store_match_cb cb, void *ud,
                  arb_buf_t *why)
{
    arb_match_info_t  m;
    MDB_txn          *txn = NULL;
    MDB_cursor       *c = NULL;
    MDB_val           k, d;
    char              rp[REPR_MAX];
    int               rc, mrc;

    if (s == NULL || cb == NULL) {
        why_set(why, "no store or no callback");
        return ARB_EINVAL;
    }
    rc = txn_begin(s, MDB_RDONLY, &txn, why);
    if (rc != 0)
        goto fail;
    mrc = mdb_cursor_open(txn, s->matches, &c);
    if (mrc != 0) {
        rc = mdb_fail(why, mrc, "open matches cursor");
        goto fail;
    }
    for (mrc = mdb_cursor_get(c, &k, &d, MDB_FIRST); mrc == 0;
         mrc = mdb_cursor_get(c, &k, &d, MDB_NEXT)) {
        if (!raw_id_ok(k.mv_data, k.mv_size, ARB_STORE_ID_MAX)) {
            why_set(why, "matches key \"%s\": not a match id",
                    repr(rp, k.mv_data, k.mv_size));
            rc = ARB_ECORRUPT;
            goto fail;
        }
        rc = rec_decode(&m, &d, k.mv_data, k.mv_size, why);
        if (rc == 0)
            rc = cb(ud, &m);
        if (rc != 0)
            goto fail;
    }
    if (mrc != MDB_NOTFOUND)
        rc = mdb_fail(why, mrc, "read matches");
fail:
    mdb_cursor_close(c);
    txn_abort(s, txn);
    return rc;
}

int
arb_store_idem(arb_store_t *s, const char *match_id, const char *client_id,
               uint64_t *seq, unsigned char hash[ARB_HASH_LEN], arb_buf_t *why)
{
    MDB_txn       *txn = NULL;
    MDB_val        k, d;
    ev_t           ev;
    unsigned char  key[IDEMKEY_MAX];
    char           rp[REPR_MAX], rc2[REPR_MAX];
    uint64_t       q;
    size_t         idlen, cidlen;
    int            rc, mrc;

    if (s == NULL || !str_ok(match_id, ARB_STORE_ID_MAX, &idlen) ||
        !str_ok(client_id, ARB_STORE_CLIENT_MAX, &cidlen)) {
        why_set(why, "bad match id or client id");
        return ARB_EINVAL;
    }
    rc = txn_begin(s, MDB_RDONLY, &txn, why);
    if (rc != 0)
        goto fail;
    k.mv_data = key;
    k.mv_size = idem_key(key, match_id, idlen, client_id, cidlen);
    mrc = mdb_get(txn, s->idem, &k, &d);
    if (mrc == MDB_NOTFOUND) {
        why_set(why, "client id \"%s\" not used in match \"%s\"",
                repr(rc2, client_id, cidlen), repr(rp, match_id, idlen));
        rc = ARB_ENOTFOUND;
        goto fail;
    }
    if (mrc != 0) {
        rc = mdb_fail(why, mrc, "read idem");
        goto fail;
    }
    if (d.mv_size != 8) {
        why_set(why, "idem key \"%s\"/\"%s\": value is %zu bytes, want 8",
                repr(rp, match_id, idlen), repr(rc2, client_id, cidlen),
                d.mv_size);
        rc = ARB_ECORRUPT;
        goto fail;
    }
    q = get64(d.mv_data);
    k.mv_size = ev_key(key, match_id, idlen, q);
    mrc = mdb_get(txn, s->events, &k, &d);
    if (mrc == MDB_NOTFOUND) {
        why_set(why, "idem key \"%s\"/\"%s\": events key \"%s\"/%llu "
                "missing", repr(rp, match_id, idlen),
                repr(rc2, client_id, cidlen), rp, (unsigned long long)q);
        rc = ARB_ECORRUPT;
        goto fail;
    }
    if (mrc != 0) {
        rc = mdb_fail(why, mrc, "read events");
        goto fail;
    }
    rc = ev_decode(&ev, &d, match_id, idlen, q, why);
    if (rc != 0)
        goto fail;
    if (seq != NULL)
        *seq = q;
    if (hash != NULL)
        memcpy(hash, ev.hash, ARB_HASH_LEN);
fail:
    txn_abort(s, txn);
    return rc;
}

int
arb_store_stats(arb_store_t *s, arb_store_stats_t *out, arb_buf_t *why)
{
    MDB_txn     *txn = NULL;
    MDB_stat     st;
    MDB_envinfo  info;
    MDB_dbi      dbis[3];
    uint64_t    *counts[3];
    size_t       i;
    int          rc, mrc;

    if (s == NULL || out == NULL) {
        why_set(why, "no store or no output");
        return ARB_EINVAL;
    }
    memset(out, 0, sizeof(*out));
    rc = txn_begin(s, MDB_RDONLY, &txn, why);
    if (rc != 0)
        goto fail;
    dbis[0] = s->matches;
    counts[0] = &out->matches;
    dbis[1] = s->events;
    counts[1] = &out->events;
    dbis[2] = s->idem;
    counts[2] = &out->client_ids;
    for (i = 0; i < 3; i++) {
        mrc = mdb_stat(txn, dbis[i], &st);
        if (mrc != 0) {
            rc = mdb_fail(why, mrc, "stat");
            goto fail;
        }
        *counts[i] = st.ms_entries;
    }
    rc = log_last(s, txn, &out->log_pos, why);
    if (rc != 0)
        goto fail;
    mdb_env_info(s->env, &info);
    mdb_env_stat(s->env, &st);
    out->map_size = info.me_mapsize;
    out->map_max = s->map_max;
    out->page_size = st.ms_psize;
    out->map_used = ((uint64_t)info.me_last_pgno + 1) * st.ms_psize;
    out->grows = s->grows;
    out->format = ARB_STORE_FORMAT;
    out->readers_max = info.me_maxreaders;
    out->readers_used = info.me_numreaders;
    out->stale_readers = s->stale;
    out->read_only = s->read_only;
    out->failed = atomic_load(&s->state) != ST_OK;
fail:
    txn_abort(s, txn);
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
          const unsigned char hash[ARB_HASH_LEN], const void *bytes, size_t len)
{
    vctx_t *v = ud;
    char    rp[REPR_MAX];

    (void)time_ms;
    arb_chain_next(seq == 0 ? NULL : v->h, bytes, len, v->h);
    if (memcmp(v->h, hash, ARB_HASH_LEN) != 0) {
        why_set(v->why, "match \"%s\": seq %llu: stored hash does not match "
                "the chain", repr(rp, v->id, v->idlen),
                (unsigned long long)seq);
        return ARB_ECORRUPT;
    }
    return 0;
}

static int
verify_one(arb_store_t *s, MDB_txn *txn, const char *id, size_t idlen,
           arb_buf_t *why)
{
    arb_match_info_t  m;
    vctx_t            v;
    MDB_cursor       *c = NULL;
    MDB_val           k, d;
    unsigned char     key[EVKEY_MAX];
    char              rp[REPR_MAX];
    int               rc, mrc;

    rc = match_get(s, txn, id, idlen, &m, why);
    if (rc != 0)
        goto fail;
    memset(&v, 0, sizeof(v));
    v.id = id;
    v.idlen = idlen;
    v.why = why;
    rc = scan_events(s, txn, id, idlen, 0, m.last_seq, verify_cb, &v, why);
    if (rc != 0)
        goto fail;
    if (memcmp(v.h, m.head, ARB_HASH_LEN) != 0) {
        why_set(why, "match \"%s\": seq %llu: head in matches record does "
                "not match the chain", repr(rp, id, idlen),
                (unsigned long long)m.last_seq);
        rc = ARB_ECORRUPT;
        goto fail;
    }
    /* Events past the head would be invisible to readers and would make
     * the next append fail; report them here instead. */
    mrc = mdb_cursor_open(txn, s->events, &c);
    if (mrc != 0) {
        rc = mdb_fail(why, mrc, "open events cursor");
        goto fail;
    }
    k.mv_data = key;
    k.mv_size = ev_key(key, id, idlen, m.last_seq + 1);
    mrc = mdb_cursor_get(c, &k, &d, MDB_SET_RANGE);
    if (mrc == 0 && k.mv_size > idlen &&
        memcmp(k.mv_data, id, idlen) == 0 &&
        ((unsigned char *)k.mv_data)[idlen] == 0) {
        why_set(why, "match \"%s\": seq %llu: event stored past the head",
                repr(rp, id, idlen), (unsigned long long)(m.last_seq + 1));
        rc = ARB_ECORRUPT;
        goto fail;
    }
    if (mrc != 0 && mrc != MDB_NOTFOUND)
        rc = mdb_fail(why, mrc, "read events");
fail:
    mdb_cursor_close(c);
    return rc;
}

/* The id of the first match after `prev` (or the first when prev is
 * empty) into next; ARB_ENOTFOUND past the last. */
static int
next_match(arb_store_t *s, MDB_txn *txn, const char *prev, char *next,
           size_t *nlen, arb_buf_t *why)
{
    MDB_cursor *c = NULL;
    MDB_val     k, d;
    char        rp[REPR_MAX];
    int         rc, mrc;

    mrc = mdb_cursor_open(txn, s->matches, &c);
    if (mrc != 0) {
        rc = mdb_fail(why, mrc, "open matches cursor");
        goto fail;
    }
    k.mv_data = (void *)prev;
    k.mv_size = strlen(prev);
    if (k.mv_size == 0) {
        mrc = mdb_cursor_get(c, &k, &d, MDB_FIRST);
    } else {
        mrc = mdb_cursor_get(c, &k, &d, MDB_SET_RANGE);
        if (mrc == 0 && k.mv_size == strlen(prev) &&
            memcmp(k.mv_data, prev, k.mv_size) == 0)
            mrc = mdb_cursor_get(c, &k, &d, MDB_NEXT);
    }
    if (mrc == MDB_NOTFOUND) {
        rc = ARB_ENOTFOUND;
        goto fail;
    }
    if (mrc != 0) {
        rc = mdb_fail(why, mrc, "read matches");
        goto fail;
    }
    if (!raw_id_ok(k.mv_data, k.mv_size, ARB_STORE_ID_MAX)) {
        why_set(why, "matches key \"%s\": not a match id",
                repr(rp, k.mv_data, k.mv_size));
        rc = ARB_ECORRUPT;
        goto fail;
    }
    memcpy(next, k.mv_data, k.mv_size);
    next[k.mv_size] = '\0';
    *nlen = k.mv_size;
    rc = 0;
fail:
    mdb_cursor_close(c);
    return rc;
}

int
arb_store_verify(arb_store_t *s, const char *match_id, arb_buf_t *why)
{
    MDB_txn *txn = NULL;
    char     id[ARB_STORE_ID_MAX + 1] = "";
    size_t   idlen = 0;
    int      rc;

    if (s == NULL || (match_id != NULL &&
                      !str_ok(match_id, ARB_STORE_ID_MAX, &idlen))) {
        why_set(why, "bad match id");
        return ARB_EINVAL;
    }
    if (match_id != NULL) {
        rc = txn_begin(s, MDB_RDONLY, &txn, why);
        if (rc == 0)
            rc = verify_one(s, txn, match_id, idlen, why);
        goto fail;
    }
    /* One short transaction per match, so that a long verification does
     * not hold the map lock (and so the writer's growth) for its length. */
    for (;;) {
        rc = txn_begin(s, MDB_RDONLY, &txn, why);
        if (rc != 0)
            goto fail;
        rc = next_match(s, txn, id, id, &idlen, why);
        if (rc == ARB_ENOTFOUND) {
            rc = 0;
            goto fail;
        }
        if (rc == 0)
            rc = verify_one(s, txn, id, idlen, why);
        if (rc != 0)
            goto fail;
        txn_abort(s, txn);
        txn = NULL;
    }
fail:
    txn_abort(s, txn);
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

    if (s == NULL || out == NULL || !str_ok(match_id, ARB_STORE_ID_MAX,
                                            &idlen)) {
        why_set(why, "bad argument");
        return ARB_EINVAL;
    }
    rc = txn_begin(s, MDB_RDONLY, &txn, why);
    if (rc != 0) {
        txn_abort(s, txn);
        return rc;
    }
    memcpy(sk, "secret:", 7);
    memcpy(sk + 7, match_id, idlen);
    k.mv_data = sk;
    k.mv_size = 7 + idlen;
    mrc = mdb_get(txn, s->meta, &k, &d);
    if (mrc == MDB_NOTFOUND) {
        rc = ARB_ENOTFOUND;
    } else if (mrc != 0) {
        rc = mdb_fail(why, mrc, "read deal secret");
    } else {
        out->len = 0;
        arb_buf_add(out, d.mv_data, d.mv_size);
        rc = arb_buf_cstr(out) == NULL ? ARB_ENOMEM : 0;
    }
    txn_abort(s, txn);
    return rc;
}
