/*
 * journal.c - the write-ahead journal of the log (journal.h).
 *
 * A block: 48 bytes of header, then the payload.
 *   0  u32  magic "ARJL"          16  u64  lsn (running block number)
 *   4  u8   kind (1 batch, 2 ckpt) 24  u64  batch: first position;
 *   5  u8[3] zero                          ckpt: last position covered
 *   8  u32  payload length        32  u8[16] BLAKE2b-128 of bytes 0..31
 *   12 u32  records (batch)                and of the payload
 * Integers are big-endian.  A checkpoint's payload: u64 LMDB txnid, then
 * ARB_JOURNAL_META bytes of its meta page.
 *
 * Within a lap the lsns are consecutive, so a block left from an earlier
 * lap (lower lsn), a torn one (bad checksum) or zeros end the valid run.
 * Blocks are written whole with one pwrite at the lap's end and flushed
 * before the next is written, so what lies past the run was never
 * flushed: a batch there was never acknowledged.  A write that shares a
 * sector with the block before it rewrites that block's bytes with the
 * same bytes, so a torn sector cannot damage a flushed block.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "core/err.h"
#include "core/hash.h"
#include "core/ledger/journal.h"
#include "core/ledger/store_int.h"

#define J_MAGIC   0x41524a4cu       /* "ARJL" */
#define J_HDR     48
#define J_SUM     16
#define K_BATCH   1
#define K_CKPT    2
#define CKPT_LEN  (8 + ARB_JOURNAL_META)

uint64_t arb__journal_grow0 = (uint64_t)256 << 10;
uint64_t arb__journal_max = (uint64_t)64 << 20;
uint64_t arb__journal_step = (uint64_t)1 << 20;

struct arb_journal {
    int            fd[2];
    uint64_t       size[2];
    /* Growing ahead (arb_journal_grow_*): the grower writes through its
     * own open file descriptions, so that a flush error on either side
     * is reported to both (Linux reports a writeback error once per
     * description), and a growth of the file by the writer waits for a
     * fill in progress, whose zeros would otherwise land on blocks the
     * writer had put in the same range.  fill_* under fill_mu. */
    int             fill_fd[2];
    pthread_mutex_t fill_mu;
    pthread_cond_t  fill_cv;
    int             have_fill_sync;
    int             filling, fill_f, fill_rc;
    int             fill_open;      /* planned, not yet done: its result
                                       holds for the writer meanwhile */
    uint64_t        fill_from, fill_to;
    int            writer;
    int            cur;             /* file of the current lap; -1: none */
    uint64_t       off;             /* end of the lap's valid run */
    uint64_t       lsn;             /* the next block's */
    uint64_t       lap_last;        /* last position of the lap's batches */
    uint64_t       ck_last;         /* covered by the last checkpoint */
    uint64_t       ck_txnid;        /* its LMDB transaction */
    int            failed;          /* a write or flush failed */
    unsigned char *blk;             /* block being built or read */
    size_t         blkcap;
    arb_journal_stats_t st;
};

static void
block_sum(unsigned char out[J_SUM], const unsigned char *b, size_t len)
{
    crypto_generichash_state st;

    crypto_generichash_init(&st, NULL, 0, J_SUM);
    crypto_generichash_update(&st, b, 32);
    crypto_generichash_update(&st, b + J_HDR, len);
    crypto_generichash_final(&st, out, J_SUM);
}

static int
blk_room(arb_journal_t *j, size_t n, arb_buf_t *why)
{
    unsigned char *p;
    size_t         cap = j->blkcap ? j->blkcap : 4096;

    if (n <= j->blkcap)
        return 0;
    while (cap < n)
        cap *= 2;
    p = realloc(j->blk, cap);
    if (p == NULL) {
        arb__why(why, "journal: out of memory");
        return ARB_ENOMEM;
    }
    j->blk = p;
    j->blkcap = cap;
    return 0;
}

/* Builds a block in j->blk: header, payload, checksum. */
static int
block_build(arb_journal_t *j, int kind, uint32_t count, uint64_t pos,
            const void *p1, size_t n1, const void *p2, size_t n2,
            arb_buf_t *why)
{
    unsigned char *b;
    size_t         len = n1 + n2;
    int            rc;

    if (len > UINT32_MAX - J_HDR) {
        arb__why(why, "journal: a block of %zu bytes is too large", len);
        return ARB_ETOOBIG;
    }
    if ((rc = blk_room(j, J_HDR + len, why)) != 0)
        return rc;
    b = j->blk;
    memset(b, 0, J_HDR);
    arb_store_be32(b, J_MAGIC);
    b[4] = (unsigned char)kind;
    arb_store_be32(b + 8, (uint32_t)len);
    arb_store_be32(b + 12, count);
    arb_store_be64(b + 16, j->lsn);
    arb_store_be64(b + 24, pos);
    if (n1)
        memcpy(b + J_HDR, p1, n1);
    if (n2)
        memcpy(b + J_HDR + n1, p2, n2);
    block_sum(b + 32, b, len);
    return 0;
}

/* The file's bytes off..off+n, all of them, or ARB_EIO. */
static int
read_at(int fd, void *buf, size_t n, uint64_t off)
{
    size_t got = 0;

    while (got < n) {
        ssize_t r = pread(fd, (char *)buf + got, n - got,
                          (off_t)(off + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return ARB_EIO;
        got += (size_t)r;
    }
    return 0;
}

static int
write_at(int fd, const void *buf, size_t n, uint64_t off)
{
    size_t put = 0;

    while (put < n) {
        ssize_t w = pwrite(fd, (const char *)buf + put, n - put,
                           (off_t)(off + put));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 && errno == ENOSPC ? ARB_EFULL : ARB_EIO;
        put += (size_t)w;
    }
    return 0;
}

/* Reads and checks the block at off of file f into j->blk: 1 when it is
 * valid (and, when lsn is not 0, numbered lsn), 0 when the run ends
 * there, < 0 on a read error. */
static int
block_read(arb_journal_t *j, int f, uint64_t off, uint64_t lsn,
           arb_buf_t *why)
{
    unsigned char hdr[J_HDR], sum[J_SUM];
    uint32_t      len;
    int           rc;

    if (off + J_HDR > j->size[f])
        return 0;
    if (read_at(j->fd[f], hdr, J_HDR, off) != 0) {
        arb__why(why, "journal wal.%d: read at %llu: %s", f,
             (unsigned long long)off, strerror(errno));
        return ARB_EIO;
    }
    len = arb_load_be32(hdr + 8);
    if (arb_load_be32(hdr) != J_MAGIC ||
        (hdr[4] != K_BATCH && hdr[4] != K_CKPT) ||
        hdr[5] || hdr[6] || hdr[7] || off + J_HDR + len > j->size[f] ||
        (hdr[4] == K_CKPT && len != CKPT_LEN) ||
        (lsn != 0 && arb_load_be64(hdr + 16) != lsn))
        return 0;
    if ((rc = blk_room(j, J_HDR + len, why)) != 0)
        return rc;
    memcpy(j->blk, hdr, J_HDR);
    if (len && read_at(j->fd[f], j->blk + J_HDR, len, off + J_HDR) != 0) {
        arb__why(why, "journal wal.%d: read at %llu: %s", f,
             (unsigned long long)off, strerror(errno));
        return ARB_EIO;
    }
    block_sum(sum, j->blk, len);
    return sodium_memcmp(sum, j->blk + 32, J_SUM) == 0;
}

static int
open_file(arb_journal_t *j, const char *dir, int i, arb_buf_t *why)
{
    char        path[4096];
    struct stat st;
    int         n;

    n = snprintf(path, sizeof(path), "%s/wal.%d", dir, i);
    if (n < 0 || (size_t)n >= sizeof(path)) {
        arb__why(why, "journal: directory name too long");
        return ARB_EINVAL;
    }
    j->fd[i] = open(path, (j->writer ? O_RDWR | O_CREAT : O_RDONLY) |
                    O_CLOEXEC, 0600);
    if (j->fd[i] < 0) {
        int e = errno;
        arb__why(why, "%s: %s", path, strerror(e));
        return e == ENOENT ? ARB_ENOTFOUND
             : e == EACCES || e == EPERM || e == EROFS ? ARB_EPERM
             : ARB_EIO;
    }
    if (fstat(j->fd[i], &st) != 0) {
        arb__why(why, "%s: %s", path, strerror(errno));
        return ARB_EIO;
    }
    j->size[i] = (uint64_t)st.st_size;
    if (j->writer) {
        j->fill_fd[i] = open(path, O_WRONLY | O_CLOEXEC);
        if (j->fill_fd[i] < 0) {
            arb__why(why, "%s: %s", path, strerror(errno));
            return ARB_EIO;
        }
    }
    return 0;
}

int
arb_journal_open(arb_journal_t **out, const char *dir, int writer, int *live,
                 arb_buf_t *why)
{
    arb_journal_t *j;
    int            rc, i;

    *out = NULL;
    if (live != NULL)
        *live = 0;
    j = calloc(1, sizeof(*j));
    if (j == NULL) {
        arb__why(why, "journal: out of memory");
        return ARB_ENOMEM;
    }
    j->fd[0] = j->fd[1] = -1;
    j->fill_fd[0] = j->fill_fd[1] = -1;
    if (pthread_mutex_init(&j->fill_mu, NULL) != 0) {
        free(j);
        arb__why(why, "journal: out of memory");
        return ARB_ENOMEM;
    }
    if (pthread_cond_init(&j->fill_cv, NULL) != 0) {
        pthread_mutex_destroy(&j->fill_mu);
        free(j);
        arb__why(why, "journal: out of memory");
        return ARB_ENOMEM;
    }
    j->have_fill_sync = 1;
    j->writer = writer != 0;
    j->cur = -1;
    j->lsn = 1;
    for (i = 0; i < 2; i++) {
        rc = open_file(j, dir, i, why);
        /* wal.1 is made with wal.0; a reader that finds only wal.0 reads
         * it alone (an empty wal.1 holds no block). */
        if (rc == ARB_ENOTFOUND && i == 1 && !writer) {
            j->fd[1] = -1;
            j->size[1] = 0;
            continue;
        }
        if (rc != 0)
            goto fail;
    }
    /* A writer waits up to a second: a read-only open may hold the
     * shared lock for the moment it takes to look at the journal. */
    for (i = 0; flock(j->fd[0], (writer ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0;
         i++) {
        if (errno == EWOULDBLOCK && writer && i < 100) {
            usleep(10000);
            continue;
        }
        if (errno != EWOULDBLOCK) {
            arb__why(why, "journal: lock %s/wal.0: %s", dir, strerror(errno));
            rc = ARB_EIO;
            goto fail;
        }
        if (writer) {
            arb__why(why, "%s is in use by another process (its journal is "
                 "locked)", dir);
            rc = ARB_EAGAIN;
            goto fail;
        }
        if (live != NULL)
            *live = 1;
        break;
    }
    *out = j;
    return 0;

fail:
    arb_journal_close(j);
    return rc;
}

void
arb_journal_close(arb_journal_t *j)
{
    int i;

    if (j == NULL)
        return;
    for (i = 0; i < 2; i++) {
        if (j->fd[i] >= 0)
            close(j->fd[i]);      /* drops the lock with wal.0 */
        if (j->fill_fd[i] >= 0)
            close(j->fill_fd[i]);
    }
    if (j->have_fill_sync) {
        pthread_cond_destroy(&j->fill_cv);
        pthread_mutex_destroy(&j->fill_mu);
    }
    free(j->blk);
    free(j);
}

/* The lsn of file f's first block, or 0 when it has no valid one. */
static int
first_lsn(arb_journal_t *j, int f, uint64_t *lsn, arb_buf_t *why)
{
    int rc = block_read(j, f, 0, 0, why);

    *lsn = 0;
    if (rc < 0)
        return rc;
    if (rc == 1 && j->blk[4] == K_CKPT)
        *lsn = arb_load_be64(j->blk + 16);
    return 0;
}

int
arb_journal_recover(arb_journal_t *j, int *have, arb_journal_ckpt_t *ck,
                    arb_journal_batch_cb cb, void *ud, arb_buf_t *why)
{
    uint64_t l0, l1, off, lsn, first, end, next = 0, lap_last = 0;
    uint32_t len, count;
    int      f, rc, pass;

    *have = 0;
    memset(ck, 0, sizeof(*ck));
    if ((rc = first_lsn(j, 0, &l0, why)) != 0 ||
        (rc = first_lsn(j, 1, &l1, why)) != 0)
        return rc;
    if (l0 == 0 && l1 == 0)
        return 0;                   /* never written */
    f = l1 > l0 ? 1 : 0;
    /* Two passes over the lap: the last checkpoint, then the batches
     * past it (a checkpoint is written after batches that it does not
     * cover, since the LMDB flush runs while appends go on). */
    for (pass = 0; pass < 2; pass++) {
        off = 0;
        lsn = f ? l1 : l0;
        for (;; lsn++) {
            rc = block_read(j, f, off, lsn, why);
            if (rc < 0)
                return rc;
            if (rc == 0)
                break;
            len = arb_load_be32(j->blk + 8);
            count = arb_load_be32(j->blk + 12);
            first = arb_load_be64(j->blk + 24);
            if (j->blk[4] == K_CKPT) {
                if (pass == 0) {
                    ck->txnid = arb_load_be64(j->blk + J_HDR);
                    ck->last = first;
                    memcpy(ck->meta, j->blk + J_HDR + 8, ARB_JOURNAL_META);
                }
                ck->clean = count == 1;
            } else if (count == 0 || first == 0 ||
                       first - 1 > UINT64_MAX - count) {
                arb__why(why, "journal wal.%d: the batch at %llu holds no "
                     "valid positions", f, (unsigned long long)off);
                return ARB_ECORRUPT;
            } else if (pass == 1 && (end = first + count - 1) > ck->last) {
                if (first <= ck->last || (next != 0 && first != next) ||
                    (next == 0 && first != ck->last + 1)) {
                    arb__why(why, "journal wal.%d: the batch at %llu holds "
                         "positions %llu..%llu, expected %llu next", f,
                         (unsigned long long)off,
                         (unsigned long long)first,
                         (unsigned long long)end,
                         (unsigned long long)(next ? next : ck->last + 1));
                    return ARB_ECORRUPT;
                }
                next = end + 1;
                if (cb != NULL &&
                    (rc = cb(ud, first, count, j->blk + J_HDR, len)) != 0)
                    return rc;
            }
            if (j->blk[4] == K_BATCH) {
                ck->clean = 0;
                if (first + count - 1 > lap_last)
                    lap_last = first + count - 1;
            }
            off += J_HDR + len;
        }
    }
    *have = 1;
    if (j->writer) {
        j->cur = f;
        j->off = off;
        j->lsn = lsn;
        j->lap_last = lap_last;
        j->ck_last = ck->last;
        j->ck_txnid = ck->txnid;
        j->st.lap_bytes = off;
    }
    return 0;
}

/* Extends file f to at least `want` bytes with flushed zeros, so that
 * a block written there later needs one flush and no metadata.  The zeros
 * go a page per write: a kernel that caches a file in folios as large as
 * the write that filled them (Linux 6.x on ext4) would otherwise write
 * back a whole 64 KiB folio for each small block (measured: 64 KiB per
 * flush against 4 KiB). */
/*
 * The size a file of `size` bytes grows to next: twice as large up to a
 * step (1 MiB), then a step at a time, up to the cap.  The zeros of a
 * growth are dirty pages of the file until they are flushed, and an
 * append's fdatasync flushes them too.  Measured here, one-byte appends
 * flushed beside a growth of 32 MiB at once took 9-10 ms on average and
 * up to 33 ms; beside the same 32 MiB in steps of 1 MiB, 1.5 ms and up
 * to 4 ms (docs/STORE.md, "The journal").
 */
static uint64_t
next_size(uint64_t size)
{
    uint64_t n = size < arb__journal_step ? size * 2
                                          : size + arb__journal_step;

    return n > arb__journal_max ? arb__journal_max : n;
}

/* Under the writer's lock, before file f grows: waits for a fill of f in
 * progress, and takes the result of a fill of f not yet done
 * (arb_journal_grow_done), whether it ended before or while waiting.
 * Until 2026-12-05 only a fill the writer had waited for counted: one
 * that failed just before the writer needed it let the writer grow the
 * file itself and flush it again after the failed flush (and a test of
 * exactly that failed on a loaded machine).  0, or ARB_EIO when its
 * writing or its flush failed (the handle then fails: never retried). */
static int
fill_wait(arb_journal_t *j, int f, arb_buf_t *why)
{
    int      rc = 0, seen = 0;
    uint64_t to = 0;

    pthread_mutex_lock(&j->fill_mu);
    while (j->filling && j->fill_f == f)
        pthread_cond_wait(&j->fill_cv, &j->fill_mu);
    if (j->fill_open && j->fill_f == f) {
        seen = 1;
        rc = j->fill_rc;
        to = j->fill_to;
    }
    pthread_mutex_unlock(&j->fill_mu);
    if (!seen || rc == ARB_EFULL)
        return 0;               /* an append may still find room */
    if (rc != 0) {
        j->failed = 1;
        arb__why(why, "journal wal.%d: growing it ahead failed; reopen the "
             "store", f);
        return ARB_EIO;
    }
    if (to > j->size[f])
        j->size[f] = to;
    return 0;
}

static int
grow(arb_journal_t *j, int f, uint64_t want, arb_buf_t *why)
{
    static const unsigned char zero[4096];
    uint64_t size, off, up;
    int      rc;

    if ((rc = fill_wait(j, f, why)) != 0)
        return rc;
    if (want <= j->size[f])
        return 0;               /* the fill made the room */
    size = j->size[f] ? j->size[f] : arb__journal_grow0;

    /* Past the cap only for a block that fills a lap by itself. */
    while (size < want) {
        up = next_size(size);
        size = up > size ? up : want;
    }
    for (off = j->size[f]; off < size && rc == 0; off += sizeof(zero)) {
        size_t n = size - off < sizeof(zero) ? (size_t)(size - off)
                                             : sizeof(zero);
        rc = write_at(j->fd[f], zero, n, off);
    }
    if (rc == ARB_EFULL) {
        /* Nothing of a block was written: give the space back. */
        if (ftruncate(j->fd[f], (off_t)j->size[f]) != 0) {
            j->failed = 1;
            arb__why(why, "journal wal.%d: no space, and truncating back "
                 "failed: %s", f, strerror(errno));
            return ARB_EIO;
        }
        arb__why(why, "journal wal.%d: no space to grow to %llu bytes", f,
             (unsigned long long)size);
        return ARB_EFULL;
    }
    if (rc == 0 && fdatasync(j->fd[f]) != 0)
        rc = ARB_EIO;
    if (rc != 0) {
        j->failed = 1;
        arb__why(why, "journal wal.%d: extending to %llu bytes: %s", f,
             (unsigned long long)size, strerror(errno));
        return rc;
    }
    j->size[f] = size;
    j->st.grows++;
    return 0;
}

int
arb_journal_grow_plan(arb_journal_t *j, int *f, uint64_t *from, uint64_t *to)
{
    uint64_t size;

    if (j->failed || j->cur < 0)
        return 0;
    size = j->size[j->cur];
    /* Past half a small file; less than a step left in a larger one. */
    if (size >= arb__journal_max ||
        size - j->off >= (size < arb__journal_step ? size / 2
                                                   : arb__journal_step))
        return 0;
    *f = j->cur;
    *from = size;
    *to = next_size(size);
    pthread_mutex_lock(&j->fill_mu);
    j->filling = 1;
    j->fill_open = 1;
    j->fill_f = *f;
    j->fill_from = *from;
    j->fill_to = *to;
    pthread_mutex_unlock(&j->fill_mu);
    return 1;
}

int
arb_journal_grow_fill(arb_journal_t *j, int f, uint64_t from, uint64_t to,
                      arb_buf_t *why)
{
    static const unsigned char zero[4096];
    uint64_t off;
    int      rc = 0;

    for (off = from; off < to && rc == 0; off += sizeof(zero))
        rc = write_at(j->fill_fd[f], zero, to - off < sizeof(zero)
                      ? (size_t)(to - off) : sizeof(zero), off);
    if (rc == 0 && fdatasync(j->fill_fd[f]) != 0)
        rc = ARB_EIO;
    if (rc != 0)
        arb__why(why, "journal wal.%d: extending to %llu bytes: %s", f,
             (unsigned long long)to, rc == ARB_EFULL ? "no space"
             : strerror(errno));
    pthread_mutex_lock(&j->fill_mu);
    j->fill_rc = rc;
    j->filling = 0;
    pthread_cond_broadcast(&j->fill_cv);
    pthread_mutex_unlock(&j->fill_mu);
    return rc;
}

void
arb_journal_grow_done(arb_journal_t *j, int f, uint64_t from, uint64_t to,
                      int rc)
{
    pthread_mutex_lock(&j->fill_mu);
    j->fill_open = 0;
    pthread_mutex_unlock(&j->fill_mu);
    if (rc == 0) {
        if (to > j->size[f])
            j->size[f] = to;
        j->st.grows++;
    } else if (rc == ARB_EFULL) {
        /* Give the space back, unless an append extended it meanwhile. */
        if (j->size[f] == from && ftruncate(j->fd[f], (off_t)from) != 0)
            j->failed = 1;
    } else {
        j->failed = 1;          /* a failed flush is never retried */
    }
}

/* Room for a block of n bytes at the lap's end. */
static int
reserve(arb_journal_t *j, size_t n, arb_buf_t *why)
{
    uint64_t want;

    if (j->failed) {
        arb__why(why, "journal: an earlier write failed; reopen the store");
        return ARB_ESTORE;
    }
    if (j->cur < 0) {
        arb__why(why, "journal: no checkpoint written yet");
        return ARB_EINVAL;
    }
    want = j->off + n;
    if (want <= j->size[j->cur])
        return 0;
    /* Past the cap only for a block that fills a lap by itself. */
    if (want > arb__journal_max && j->off > J_HDR + CKPT_LEN)
        return ARB_EAGAIN;
    return grow(j, j->cur, want, why);
}

static int
write_block(arb_journal_t *j, int f, uint64_t off, size_t n, arb_buf_t *why)
{
    int rc = write_at(j->fd[f], j->blk, n, off);

    if (rc == 0 && fdatasync(j->fd[f]) != 0)
        rc = ARB_EIO;
    if (rc != 0) {
        /* Never retried: after a failed write or flush nobody knows what
         * reached the disk. */
        j->failed = 1;
        arb__why(why, "journal wal.%d: write at %llu: %s", f,
             (unsigned long long)off, rc == ARB_EFULL ? "no space"
             : strerror(errno));
        return ARB_EIO;
    }
    j->st.bytes += n;
    j->lsn++;
    return 0;
}

int
arb_journal_reserve(arb_journal_t *j, size_t len, arb_buf_t *why)
{
    return reserve(j, J_HDR + len, why);
}

int
arb_journal_append(arb_journal_t *j, uint64_t first, uint32_t count,
                   const void *p, size_t len, arb_buf_t *why)
{
    int rc;

    if (count == 0 || first == 0) {
        arb__why(why, "journal: an empty batch");
        return ARB_EINVAL;
    }
    if ((rc = reserve(j, J_HDR + len, why)) == ARB_EAGAIN)
        arb__why(why, "journal: no room in the lap for a batch of %zu "
                 "bytes the writer had made room for", len);
    if (rc != 0)
        return rc;
    if ((rc = block_build(j, K_BATCH, count, first, p, len, NULL, 0,
                          why)) != 0)
        return rc;
    if ((rc = write_block(j, j->cur, j->off, J_HDR + len, why)) != 0)
        return rc;
    j->off += J_HDR + len;
    j->st.lap_bytes = j->off;
    j->st.batches++;
    if (first + count - 1 > j->lap_last)
        j->lap_last = first + count - 1;
    return 0;
}

int
arb_journal_checkpoint(arb_journal_t *j, const arb_journal_ckpt_t *ck,
                       int new_lap, arb_buf_t *why)
{
    unsigned char tx[8];
    size_t        n = J_HDR + CKPT_LEN;
    int           f, rc;

    if (j->failed) {
        arb__why(why, "journal: an earlier write failed; reopen the store");
        return ARB_ESTORE;
    }
    if (j->cur < 0)
        new_lap = 1;
    /* An older snapshot recorded after a newer one would be the one
     * recovery restores, and the batches between them would be read
     * from no lap (store_journal.c drops such a checkpoint first). */
    if (j->cur >= 0 && (ck->txnid < j->ck_txnid || ck->last < j->ck_last)) {
        arb__why(why, "journal: a checkpoint of transaction %llu (position "
             "%llu) after one of %llu (%llu)",
             (unsigned long long)ck->txnid, (unsigned long long)ck->last,
             (unsigned long long)j->ck_txnid,
             (unsigned long long)j->ck_last);
        return ARB_EINVAL;
    }
    if (new_lap && j->cur >= 0 && j->lap_last > ck->last) {
        arb__why(why, "journal: a new lap needs a checkpoint past %llu, this "
             "one covers %llu", (unsigned long long)j->lap_last,
             (unsigned long long)ck->last);
        return ARB_EINVAL;
    }
    arb_store_be64(tx, ck->txnid);
    if ((rc = block_build(j, K_CKPT, ck->clean != 0, ck->last, tx, 8,
                          ck->meta, ARB_JOURNAL_META, why)) != 0)
        return rc;
    if (!new_lap) {
        if ((rc = reserve(j, n, why)) == ARB_EAGAIN)
            return rc;
        if (rc != 0)
            return rc;
        if ((rc = write_block(j, j->cur, j->off, n, why)) != 0)
            return rc;
        j->off += n;
    } else {
        f = j->cur < 0 ? 0 : 1 - j->cur;
        if (j->size[f] < n && (rc = grow(j, f, n, why)) != 0)
            return rc;
        /* grow() may have rebuilt nothing, but blk holds the block still;
         * it never touches j->blk. */
        if ((rc = write_block(j, f, 0, n, why)) != 0)
            return rc;
        j->cur = f;
        j->off = n;
        j->lap_last = 0;
        j->st.laps++;
    }
    j->ck_last = ck->last;
    j->ck_txnid = ck->txnid;
    j->st.ckpts++;
    j->st.lap_bytes = j->off;
    return 0;
}

uint64_t
arb_journal_lap_bytes(const arb_journal_t *j)
{
    return j->off;
}

uint64_t
arb_journal_lap_max(const arb_journal_t *j)
{
    (void)j;
    return arb__journal_max;
}

void
arb_journal_stats(const arb_journal_t *j, arb_journal_stats_t *st)
{
    *st = j->st;
}
