/*
 * store_env.c - what every file of the store builds on: error messages
 * and codes, big-endian integers, keys, the two record formats (the log
 * record and the "matches" summary), and transactions on an environment
 * with the map lock that guards its growth.  Layout: docs/STORE.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/ledger/store_int.h"

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

void
arb__why(arb_buf_t *why, const char *fmt, ...)
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
const char *
arb__repr(char out[ARB__REPR_MAX], const void *p, size_t n)
{
    const unsigned char *s = p;
    size_t               i, o = 0;

    for (i = 0; i < n && o + 8 < ARB__REPR_MAX; i++) {
        if (s[i] > 0x20 && s[i] < 0x7f && s[i] != '"' && s[i] != '\\')
            out[o++] = (char)s[i];
        else
            o += (size_t)snprintf(out + o, ARB__REPR_MAX - o, "\\x%02x",
                                  s[i]);
    }
    if (i < n) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
    return out;
}

int
arb__mdb_code(int rc)
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

int
arb__mdb_fail(arb_buf_t *why, int rc, const char *what)
{
    arb__why(why, "%s: %s", what, mdb_strerror(rc));
    return arb__mdb_code(rc);
}

/* Two's complement both ways without implementation-defined casts. */
int64_t
arb__u2i(uint64_t u)
{
    return u <= INT64_MAX ? (int64_t)u : -(int64_t)(UINT64_MAX - u) - 1;
}

int
arb__str_ok(const char *s, size_t max, size_t *len)
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
int
arb__raw_id_ok(const void *p, size_t n, size_t max)
{
    return n >= 1 && n <= max && !arb__has_nul(p, n);
}

/* arb__has_nul of n bytes at p with avail >= n of them readable: a short
 * one (an id) in one masked word when 8 can be read. */
static int
has_nul_in(const unsigned char *p, size_t n, size_t avail)
{
    const uint64_t lo = 0x0101010101010101u, hi = 0x8080808080808080u;
    uint64_t       w, m;

    if (n >= 8 || avail < 8)
        return arb__has_nul(p, n);
    /* The low n bytes of the word are p's first n; a borrow reaches a
     * byte only from a zero byte below it, which the mask covers too. */
    w = arb_load_le64(p);
    m = ((uint64_t)1 << (8 * n)) - 1;
    return (((w - lo) & ~w & hi) & m) != 0;
}

int
arb__has_nul(const void *p, size_t n)
{
    const uint64_t       lo = 0x0101010101010101u, hi = 0x8080808080808080u;
    const unsigned char *b = p;
    uint64_t             w;
    size_t               i = 0;

    /* Ids and client ids are short: a word at a time beats a call to
     * memchr for each record of a log walk. */
    for (; n - i >= 8; i += 8) {
        memcpy(&w, b + i, 8);
        if (((w - lo) & ~w & hi) != 0)
            return 1;
    }
    for (; i < n; i++)
        if (b[i] == '\0')
            return 1;
    return 0;
}

size_t
arb__seq_key(unsigned char *k, const char *id, size_t idlen, uint64_t seq)
{
    memcpy(k, id, idlen);
    k[idlen] = 0;
    arb__put64(k + idlen + 1, seq);
    return idlen + 9;
}

size_t
arb__idem_key(unsigned char *k, const char *id, size_t idlen,
              const char *cid, size_t cidlen)
{
    memcpy(k, id, idlen);
    k[idlen] = 0;
    memcpy(k + idlen + 1, cid, cidlen);
    return idlen + 1 + cidlen;
}

void
arb__rec_encode(unsigned char r[REC_LEN], const arb_match_info_t *m)
{
    size_t glen = strlen(m->game);

    memset(r, 0, REC_LEN);
    r[REC_VER] = REC_VERSION;
    r[REC_STATUS] = m->closed ? 1 : 0;
    r[REC_GLEN] = (unsigned char)glen;
    memcpy(r + REC_GAME, m->game, glen);
    arb__put64(r + REC_LAST, m->last_seq);
    arb__put64(r + REC_COUNT, m->count);
    memcpy(r + REC_HEAD, m->head, ARB_HASH_LEN);
    arb__put64(r + REC_CREATED, (uint64_t)m->created_ms);
    arb__put64(r + REC_LASTMS, (uint64_t)m->last_ms);
}

int
arb__rec_decode(arb_match_info_t *m, const MDB_val *d, const char *id,
                size_t idlen, arb_buf_t *why)
{
    const unsigned char *r = d->mv_data;
    char                 rp[ARB__REPR_MAX];
    const char          *bad = NULL;
    size_t               glen, i;

    if (d->mv_size != REC_LEN) {
        arb__why(why, "matches key \"%s\": record is %zu bytes, want %d",
                 arb__repr(rp, id, idlen), d->mv_size, REC_LEN);
        return ARB_ECORRUPT;
    }
    glen = r[REC_GLEN];
    if (r[REC_VER] != REC_VERSION)
        bad = "unknown record version";
    else if (r[REC_STATUS] > 1)
        bad = "bad status";
    else if (r[REC_RSVD] != 0)
        bad = "reserved byte set";
    else if (!arb__raw_id_ok(r + REC_GAME, glen, ARB_STORE_ID_MAX))
        bad = "bad game name";
    else if (arb__get64(r + REC_LAST) == UINT64_MAX ||
             arb__get64(r + REC_COUNT) != arb__get64(r + REC_LAST) + 1)
        bad = "count is not last_seq + 1";
    for (i = REC_GAME + glen; bad == NULL && i < REC_LAST; i++)
        if (r[i] != 0)
            bad = "game padding not zero";
    if (bad != NULL) {
        arb__why(why, "matches key \"%s\": %s", arb__repr(rp, id, idlen),
                 bad);
        return ARB_ECORRUPT;
    }
    memset(m, 0, sizeof(*m));
    memcpy(m->match_id, id, idlen);
    memcpy(m->game, r + REC_GAME, glen);
    m->closed = r[REC_STATUS];
    m->last_seq = arb__get64(r + REC_LAST);
    m->count = arb__get64(r + REC_COUNT);
    memcpy(m->head, r + REC_HEAD, ARB_HASH_LEN);
    m->created_ms = arb__u2i(arb__get64(r + REC_CREATED));
    m->last_ms = arb__u2i(arb__get64(r + REC_LASTMS));
    return 0;
}

int
arb__rec_parse(arb__rec_t *r, uint64_t pos, const MDB_val *d,
               arb_buf_t *why)
{
    const unsigned char *p = d->mv_data;
    size_t               need;

    if (d->mv_size < LR_HDR + 1)
        goto bad;
    r->pos = pos;
    r->flags = p[LR_FLAGS];
    r->idlen = p[LR_IDLEN];
    r->cidlen = p[LR_CIDLEN];
    r->glen = p[LR_GLEN];
    r->seq = arb__get64(p + LR_SEQ);
    r->time_ms = arb__u2i(arb__get64(p + LR_TIME));
    r->hash = p + LR_HASH;
    need = LR_HDR + r->idlen + r->cidlen + r->glen;
    if (d->mv_size <= need || d->mv_size - need > ARB_STORE_EVENT_MAX ||
        (r->flags & ~(unsigned)(LR_CLOSES | LR_AFTER)) != 0 ||
        r->seq == UINT64_MAX || r->cidlen > ARB_STORE_CLIENT_MAX ||
        (r->glen != 0) != (r->seq == 0))
        goto bad;
    r->id = (const char *)p + LR_HDR;
    r->cid = r->id + r->idlen;
    r->game = r->cid + r->cidlen;
    r->bytes = (const unsigned char *)r->game + r->glen;
    r->len = d->mv_size - need;
    /* Every record of a log walk passes here: the id and the client id
     * are followed by the event, so a short one is one word to check. */
    if (r->idlen < 1 || r->idlen > ARB_STORE_ID_MAX ||
        has_nul_in((const unsigned char *)r->id, r->idlen,
                   d->mv_size - LR_HDR) ||
        (r->cidlen > 0 && has_nul_in((const unsigned char *)r->cid,
                                     r->cidlen,
                                     d->mv_size - LR_HDR - r->idlen)) ||
        (r->glen > 0 && !arb__raw_id_ok(r->game, r->glen,
                                        ARB_STORE_ID_MAX)))
        goto bad;
    return 0;
bad:
    arb__why(why, "log key %llu: bad value (%zu bytes)",
             (unsigned long long)pos, d->mv_size);
    return ARB_ECORRUPT;
}

int
arb__log_get(arb_store_t *s, MDB_txn *txn, uint64_t pos, arb__rec_t *r,
             arb_buf_t *why)
{
    MDB_val       k, d;
    unsigned char lk[8];
    int           mrc;

    arb__put64(lk, pos);
    k.mv_data = lk;
    k.mv_size = 8;
    mrc = mdb_get(txn, s->dlog, &k, &d);
    if (mrc == MDB_NOTFOUND) {
        arb__why(why, "log key %llu: missing", (unsigned long long)pos);
        return ARB_ECORRUPT;
    }
    if (mrc != 0)
        return arb__mdb_fail(why, mrc, "read log");
    return arb__rec_parse(r, pos, &d, why);
}

int
arb__log_last(arb_store_t *s, MDB_txn *txn, uint64_t *pos, arb_buf_t *why)
{
    MDB_cursor *c = NULL;
    MDB_val     k, d;
    int         rc, mrc;

    *pos = 0;
    mrc = mdb_cursor_open(txn, s->dlog, &c);
    if (mrc != 0) {
        rc = arb__mdb_fail(why, mrc, "open log cursor");
        goto fail;
    }
    mrc = mdb_cursor_get(c, &k, &d, MDB_LAST);
    if (mrc == MDB_NOTFOUND) {
        rc = 0;
        goto fail;
    }
    if (mrc != 0) {
        rc = arb__mdb_fail(why, mrc, "read log");
        goto fail;
    }
    if (k.mv_size != 8) {
        arb__why(why, "log: a key is %zu bytes, want 8", k.mv_size);
        rc = ARB_ECORRUPT;
        goto fail;
    }
    *pos = arb__get64(k.mv_data);
    rc = 0;
fail:
    mdb_cursor_close(c);
    return rc;
}

/*
 * Transactions.  arb__txn_begin takes the environment's maplock shared for
 * the life of the transaction; abort/commit release it.
 */
#define ADOPT_WAIT_MS 5000

/* The map's exclusive lock, tried every millisecond for ADOPT_WAIT_MS:
 * 0, or -1 when it stayed held. */
static int
adopt_lock(arb__env_t *e)
{
    struct timespec ms = { 0, 1000000 };
    int             i;

    for (i = 0; i < ADOPT_WAIT_MS; i++) {
        if (pthread_rwlock_trywrlock(&e->maplock) == 0)
            return 0;
        nanosleep(&ms, NULL);
    }
    return -1;
}

int
arb__txn_begin(arb__env_t *e, unsigned flags, MDB_txn **txn, arb_buf_t *why)
{
    int rc, tries;

    *txn = NULL;
    for (tries = 0;; tries++) {
        if (pthread_rwlock_rdlock(&e->maplock) != 0) {
            arb__why(why, "cannot take the map lock");
            return ARB_ESTORE;
        }
        if (atomic_load(&e->dead)) {
            pthread_rwlock_unlock(&e->maplock);
            arb__why(why, "the map could not be remapped; reopen the store");
            return ARB_ESTORE;
        }
        rc = mdb_txn_begin(e->env, NULL, flags, txn);
        if (rc == 0)
            return 0;
        *txn = NULL;
        pthread_rwlock_unlock(&e->maplock);
        if (rc != MDB_MAP_RESIZED || tries >= 3)
            return arb__mdb_fail(why, rc, "begin transaction");
        /* Another process grew the map past ours: adopt its size, which
         * like any remap needs all our transactions finished.  Tried, not
         * waited for: this thread may hold a share of the other map, and
         * a thread holding ours may be adopting that one (store.c). */
        if (adopt_lock(e) != 0) {
            arb__why(why, "another process grew the store's map, and a "
                     "read of this one held the map past %d s: run it "
                     "again", ADOPT_WAIT_MS / 1000);
            return ARB_ESTORE;
        }
        rc = mdb_env_set_mapsize(e->env, 0);
        if (rc != 0)
            atomic_store(&e->dead, 1);
        pthread_rwlock_unlock(&e->maplock);
        if (rc != 0)
            return arb__mdb_fail(why, rc, "adopt the new map size");
    }
}

void
arb__txn_abort(arb__env_t *e, MDB_txn *txn)
{
    if (txn == NULL)
        return;
    mdb_txn_abort(txn);
    pthread_rwlock_unlock(&e->maplock);
}

int
arb__txn_commit(arb__env_t *e, MDB_txn *txn)
{
    int rc = mdb_txn_commit(txn);

    pthread_rwlock_unlock(&e->maplock);
    return rc;
}

int
arb__env_reserve(arb__env_t *e, size_t size, arb_buf_t *why)
{
    mdb_filehandle_t fd;
    struct stat      st;
    int              rc;

    if (mdb_env_get_fd(e->env, &fd) != 0 || fstat(fd, &st) != 0) {
        arb__why(why, "reserve the map: no file");
        return ARB_ESTORE;
    }
    rc = posix_fallocate(fd, 0, (off_t)size);
    if (rc == 0)
        return 0;
    /* A failed allocation keeps what it got on ext4: given back, past
     * the file's end as it was, or the fallback (no MDB_WRITEMAP) would
     * start with the disk full, and the log starve (until 2026-12-06: on
     * a disk with less than the map free, a start failed and a restored
     * recorder fail-stopped after 155 appends). */
    if (st.st_size < (off_t)size && ftruncate(fd, st.st_size) != 0)
        arb__why(why, "reserve %zu bytes for the map: %s; and giving back "
                 "what it took: %s", size, strerror(rc), strerror(errno));
    else
        arb__why(why, "reserve %zu bytes for the map: %s", size,
                 strerror(rc));
    return rc == ENOSPC ? ARB_EFULL : ARB_EIO;
}

/* MADV_DONTNEED on a shared file mapping only drops this process's page
 * table entries: the data is the page cache's (dirty pages too), and the
 * next access maps it again.  LMDB does not say where its map is, so the
 * shared mappings of the environment's file are found in /proc/self/maps
 * (a private one would lose its copies: never touched).  Under the map
 * lock, so that a remap cannot put another mapping at that address. */
void
arb__env_unmap_pages(arb__env_t *e)
{
    mdb_filehandle_t   fd;
    struct stat        st;
    unsigned long long lo, hi, ino;
    char               line[512], perm[8];
    FILE              *f;

    if (e->env == NULL || mdb_env_get_fd(e->env, &fd) != 0
        || fstat(fd, &st) != 0)
        return;
    if (pthread_rwlock_rdlock(&e->maplock) != 0)
        return;
    f = fopen("/proc/self/maps", "r");
    while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
        if (sscanf(line, "%llx-%llx %7s %*x %*s %llu", &lo, &hi, perm,
                   &ino) == 4 && ino == (unsigned long long)st.st_ino
            && perm[3] == 's' && hi > lo)
            (void)madvise((void *)(uintptr_t)lo, (size_t)(hi - lo),
                          MADV_DONTNEED);
    }
    if (f != NULL)
        fclose(f);
    pthread_rwlock_unlock(&e->maplock);
}

/* Doubles the map up to map_max.  The caller is the environment's only
 * writer and has no transaction of it open. */
int
arb__env_grow(arb__env_t *e, arb_buf_t *why)
{
    MDB_envinfo info;
    size_t      cur, next;
    int         rc;

    pthread_rwlock_wrlock(&e->maplock);
    mdb_env_info(e->env, &info);
    cur = info.me_mapsize;
    if (cur >= e->map_max) {
        arb__why(why, "storage full: map is %zu bytes (max %zu)", cur,
                 e->map_max);
        rc = ARB_EFULL;
        goto fail;
    }
    next = cur <= e->map_max / 2 ? cur * 2 : e->map_max;
    /* Before the map covers it: a failure leaves the map as it was. */
    if (e->writemap && (rc = arb__env_reserve(e, next, why)) != 0)
        goto fail;
    rc = mdb_env_set_mapsize(e->env, next);
    if (rc != 0) {
        /* LMDB unmaps before mapping again: a failure leaves no map. */
        atomic_store(&e->dead, 1);
        rc = arb__mdb_fail(why, rc, "grow the map");
        goto fail;
    }
    mdb_env_info(e->env, &info);
    if (info.me_mapsize <= cur) {
        arb__why(why, "grow the map: still %zu bytes", cur);
        rc = ARB_ESTORE;
        goto fail;
    }
    e->grows++;
    rc = 0;
fail:
    pthread_rwlock_unlock(&e->maplock);
    return rc;
}

