/*
 * store_journal.c - the log's durability through the journal
 * (journal.h): recovery at open, checkpoints, and the read-only check.
 *
 * DESIGN: an append commits the log's LMDB transaction without a flush
 * (MDB_NOSYNC), then writes the batch to the journal and flushes it once;
 * that flush is what makes it durable.  An unflushed LMDB commit may
 * reach the disk in any order, so after a power cut the newest meta page
 * may point at pages that never arrived.  Hence checkpoints: a thread
 * flushes the LMDB file every CKPT_MS and records in the journal the
 * meta page of the snapshot that flush covered.  That snapshot stays
 * pinned by a read transaction (`s->pin`) until the next checkpoint is
 * recorded, so LMDB reuses none of its pages (it only reuses pages freed
 * before the oldest reader's snapshot).  Recovery writes the recorded
 * meta page back into both meta slots of data.mdb, which makes that
 * intact snapshot the current one, and re-applies the batches journalled
 * past it: every acknowledged batch, and nothing else.
 *
 * The meta page is LMDB 0.9's on-disk format, read and written at the
 * offsets of its structure: it is checked against the transaction id
 * LMDB reports at every checkpoint, so a layout this code does not know
 * is refused rather than misread.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/err.h"
#include "core/ledger/lmdb_layout.h"
#include "core/ledger/store_int.h"

unsigned arb__ckpt_ms = 50;        /* between checkpoints under load */

/* The checkpoint's snapshot is in `pages` pages of the file: the two
 * trees it names (free pages, main) are empty or rooted in it, past the
 * two meta pages, with a depth LMDB can walk.  A record that passed its
 * checksum but says otherwise (a writer's bug) would make LMDB abort on
 * an assertion, not fail: refused before it is written back. */
static int
meta_fits(const unsigned char *m, uint64_t pages)
{
    size_t   last = lm_size_at(m, LM_MM_LAST_PG), root, entries, i;
    uint16_t depth;

    if (last < 1 || (uint64_t)last >= pages)
        return 0;
    for (i = 0; i < 2; i++) {
        const unsigned char *db = m + LM_MM_DBS + i * LM_DB_LEN;

        memcpy(&depth, db + LM_DB_DEPTH, 2);
        root = lm_size_at(db, LM_DB_ROOT);
        entries = lm_size_at(db, LM_DB_ENTRIES);
        if (root == (size_t)-1) {           /* P_INVALID: an empty tree */
            if (depth != 0 || entries != 0)
                return 0;
        } else if (root < 2 || root > last || depth < 1
                   || depth > LM_DEPTH_MAX) {
            return 0;
        }
    }
    return 1;
}

static void
meta_set(unsigned char *m, size_t off, uint64_t v)
{
    size_t x = (size_t)v;

    memcpy(m + off, &x, LM_SZ);
}

/* The newest valid meta page of the LMDB file at path into m (the
 * transaction it names in *txnid) and the file's size: 1 found, 0 none
 * (no such file, too short for a meta page, not LMDB's), or -1 with errno
 * (a read failed).  The size is taken after the meta: a writer beside
 * this reader writes a transaction's pages before its meta, and the file
 * only grows, so the size read is at least what that meta needs (taken
 * first, a commit in between made a live store look cut short: a test
 * opening a store read-only beside its writer failed so once in CI). */
static int
newest_meta(const char *path, unsigned char m[ARB_JOURNAL_META],
            uint64_t *txnid, uint64_t *size)
{
    struct stat st;
    int         fd, found;

    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0 : -1;
    found = arb__lm_newest_meta(fd, m, txnid);
    if (found >= 0 && fstat(fd, &st) != 0)
        found = -1;
    else if (found >= 0)
        *size = (uint64_t)st.st_size;
    close(fd);
    return found;
}

/* After a clean close, a data.mdb at an older transaction than the
 * journal's last checkpoint was put there since (an older copy): refused,
 * as after a crash (meta_restore), rather than opened and met by the
 * journal's refusal of an earlier checkpoint. */
static int
older_than_journal(arb_store_t *s, arb_buf_t *why)
{
    unsigned char m[ARB_JOURNAL_META];
    char          path[4096];
    uint64_t      tx = 0, size = 0;
    int           rc;

    snprintf(path, sizeof(path), "%s/data.mdb", s->dir);
    rc = newest_meta(path, m, &tx, &size);
    if (rc < 0) {
        /* The disk failing a call at start: no start (never retried). */
        arb__why(why, "%s: %s", path, strerror(errno));
        return ARB_EIO;
    }
    if (rc == 0) {
        /* Emptied, cut below its meta pages, or written over: the log of
         * the journal's events is gone, as with no data.mdb (until
         * 2026-12-06 LMDB made a new empty file over it, and `arbiter
         * check` then called the store healthy). */
        arb__why(why, "%s holds no LMDB meta page (%llu bytes: emptied, cut "
                 "short or written over), but its journal reaches "
                 "transaction %llu of a store closed cleanly: restore "
                 "data.mdb from a backup, or move %s/wal.0 and wal.1 away "
                 "to start an empty store", path, (unsigned long long)size,
                 (unsigned long long)s->jr_ck.txnid, s->dir);
        return ARB_ECORRUPT;
    }
    if (tx >= s->jr_ck.txnid)
        return 0;
    arb__why(why, "%s is at transaction %llu, older than its journal's last "
             "checkpoint (%llu): it was replaced since the store was "
             "closed.  Put the right data.mdb back, or move %s/wal.0 and "
             "wal.1 away to open it as it is", path, (unsigned long long)tx,
             (unsigned long long)s->jr_ck.txnid, s->dir);
    return ARB_ECORRUPT;
}

int
arb__env_cut_short(const char *path, arb_buf_t *why)
{
    unsigned char m[ARB_JOURNAL_META];
    uint64_t      tx = 0, size = 0, need;
    uint32_t      ps;
    int           rc = newest_meta(path, m, &tx, &size);

    if (rc < 0) {
        arb__why(why, "%s: %s", path, strerror(errno));
        return ARB_EIO;
    }
    if (rc == 0)
        return 0;
    ps = lm_meta_psize(m);
    need = ((uint64_t)lm_size_at(m, LM_MM_LAST_PG) + 1) * ps;
    if (!lm_psize_ok(ps) || size >= need)
        return 0;
    arb__why(why, "%s is cut short: %llu bytes, where its last transaction "
             "(%llu) uses %llu: a copy that did not finish, or a disk that "
             "lost its end", path, (unsigned long long)size,
             (unsigned long long)tx, (unsigned long long)need);
    return 1;
}

/*
 * Checks that data.mdb's current snapshot is the checkpoint's: its slot
 * holds the recorded page and the other slot an older transaction.
 * *needed is 1 when it is not; with `write`, both slots are then
 * rewritten from the record (the other one a transaction older, so that
 * LMDB opens the checkpoint) and flushed.
 */
static int
meta_restore(const char *dir, const arb_journal_ckpt_t *ck, int write,
             int *needed, arb_buf_t *why)
{
    unsigned char cur[2][ARB_JOURNAL_META], pg[ARB_JOURNAL_META];
    char          path[4096];
    uint32_t      ps = lm_meta_psize(ck->meta);
    uint64_t      slot = ck->txnid & 1, tx;
    struct stat   st;
    int           fd, i, rc = 0;

    *needed = 0;
    if (!lm_meta_ok(ck->meta, ck->txnid) || !lm_psize_ok(ps) ||
        ck->txnid == 0) {
        arb__why(why, "journal: the checkpoint's meta page is not one of "
                 "LMDB's (transaction %llu)",
                 (unsigned long long)ck->txnid);
        return ARB_ECORRUPT;
    }
    snprintf(path, sizeof(path), "%s/data.mdb", dir);
    fd = open(path, (write ? O_RDWR : O_RDONLY) | O_CLOEXEC);
    if (fd < 0) {
        arb__why(why, "%s: %s", path, strerror(errno));
        return ARB_EIO;
    }
    for (i = 0; i < 2; i++)
        if (pread(fd, cur[i], ARB_JOURNAL_META, (off_t)i * ps) !=
            ARB_JOURNAL_META)
            memset(cur[i], 0, ARB_JOURNAL_META);
    *needed = memcmp(cur[slot], ck->meta, ARB_JOURNAL_META) != 0 ||
              !lm_meta_ok(cur[1 - slot], 0) ||
              lm_meta_txnid(cur[1 - slot]) >= ck->txnid;
    if (!*needed)
        goto done;
    /* A writer that died leaves later transactions than its checkpoint,
     * never earlier ones: an older file was put there since. */
    tx = 0;
    for (i = 0; i < 2; i++)
        if (lm_meta_ok(cur[i], 0) && lm_meta_txnid(cur[i]) > tx)
            tx = lm_meta_txnid(cur[i]);
    if (tx < ck->txnid) {
        arb__why(why, "%s is at transaction %llu, older than its journal's "
                 "checkpoint (%llu): it was replaced after its writer died. "
                 "Move %s/wal.0 and wal.1 away to open it as it is (what "
                 "the journal holds past the checkpoint is then lost)",
                 path, (unsigned long long)tx,
                 (unsigned long long)ck->txnid, dir);
        rc = ARB_ECORRUPT;
        goto done;
    }
    if (!write)
        goto done;
    /* After the checks above, whose messages say more about the cases
     * they catch (an older data.mdb is also a shorter one). */
    if (fstat(fd, &st) != 0
        || !meta_fits(ck->meta, (uint64_t)st.st_size / ps)) {
        arb__why(why, "journal: the checkpoint's meta page (transaction "
                 "%llu) names pages %s does not hold, or trees LMDB "
                 "cannot walk", (unsigned long long)ck->txnid, path);
        rc = ARB_ECORRUPT;
        goto done;
    }
    for (i = 0; i < 2 && rc == 0; i++) {
        memcpy(pg, ck->meta, ARB_JOURNAL_META);
        meta_set(pg, 0, (uint64_t)i);
        if ((uint64_t)i != slot)
            meta_set(pg, LM_MM_TXNID, ck->txnid - 1);
        if (pwrite(fd, pg, ARB_JOURNAL_META, (off_t)i * ps) !=
            ARB_JOURNAL_META)
            rc = ARB_EIO;
    }
    if (rc == 0 && fdatasync(fd) != 0)
        rc = ARB_EIO;
    if (rc != 0)
        arb__why(why, "%s: restoring the checkpoint's meta page: %s", path,
                 strerror(errno));
done:
    close(fd);
    return rc;
}

/*
 * Opening.
 */
static void *ck_main(void *arg);

/*
 * Before a recovery writes anything: no other process may have the log's
 * environment open.  Every LMDB handle holds a shared lock on the first
 * byte of lock.mdb; while one does, LMDB does not start its lock table
 * afresh, so this writer would go on from the transaction numbers the
 * dead one left, which the restored snapshot does not match, and its meta
 * pages would be rewritten under the other process's reads.  A reader
 * that outlived the writer (an `arbiter replay`, `check` or `backup`)
 * must go first.  ARB_EAGAIN names it.
 */
static int
env_unused(const char *dir, arb_buf_t *why)
{
    char         path[4096];
    struct flock fl;
    int          fd, n;

    n = snprintf(path, sizeof(path), "%s/lock.mdb", dir);
    if (n < 0 || (size_t)n >= sizeof(path))
        return 0;
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;               /* no lock file: nobody has it open */
    memset(&fl, 0, sizeof(fl));
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    fl.l_start = 0;
    fl.l_len = 1;
    n = fcntl(fd, F_GETLK, &fl);
    close(fd);
    if (n != 0 || fl.l_type == F_UNLCK)
        return 0;
    arb__why(why, "%s was not closed cleanly, and process %ld still has it "
             "open (a reader such as arbiter replay, check or backup): "
             "stop that process, then open the store again (nothing is "
             "lost: the journal is applied then)", dir, (long)fl.l_pid);
    return ARB_EAGAIN;
}

/* 1 when wal.<i> of dir exists (or cannot be told: then it is never
 * taken back). */
static int
wal_there(const char *dir, int i)
{
    char        path[4096];
    struct stat st;
    int         n;

    n = snprintf(path, sizeof(path), "%s/wal.%d", dir, i);
    if (n < 0 || (size_t)n >= sizeof(path))
        return 1;
    return stat(path, &st) == 0 || errno != ENOENT;
}

int
arb__jr_open(arb_store_t *s, int exists, arb_buf_t *why)
{
    int rc, needed;

    s->jr_made = !wal_there(s->dir, 0) && !wal_there(s->dir, 1);
    rc = arb_journal_open(&s->jr, s->dir, 1, NULL, why);
    if (rc != 0)
        return rc;
    rc = arb_journal_recover(s->jr, &s->jr_have, &s->jr_ck, NULL, NULL, why);
    /* No data.mdb beside a journal: the log of its events is gone, closed
     * cleanly or not.  Refused before anything is made (until 2026-12-06
     * a clean one was meant to start anew, failed on its first
     * checkpoint with a message naming neither, and left an empty
     * data.mdb that `arbiter check` called healthy). */
    if (rc == 0 && s->jr_have && !exists) {
        arb__why(why, "%s holds the journal of a store that was %s, but "
                 "no data.mdb (the journal reaches transaction %llu): "
                 "restore data.mdb from a backup, or move wal.0 and wal.1 "
                 "away to start an empty store", s->dir, s->jr_ck.clean
                 ? "closed cleanly" : "not closed cleanly",
                 (unsigned long long)s->jr_ck.txnid);
        return ARB_ECORRUPT;
    }
    if (rc == 0 && s->jr_have && s->jr_ck.clean)
        rc = older_than_journal(s, why);
    /* Closed cleanly: data.mdb is trusted as it is (an LMDB tool may
     * have committed to it since, durably). */
    if (rc == 0 && s->jr_have && !s->jr_ck.clean)
        rc = env_unused(s->dir, why);
    if (rc == 0 && s->jr_have && !s->jr_ck.clean)
        rc = meta_restore(s->dir, &s->jr_ck, 1, &needed, why);
    return rc;
}

typedef struct replay {
    arb_store_t *s;
    arb_buf_t   *why;
    uint64_t     events;
} replay_t;

/* One journalled batch into the log, as the append wrote it. */
static int
replay_put(MDB_txn *txn, arb_store_t *s, uint64_t first, uint32_t count,
           const unsigned char *p, size_t len, arb_buf_t *why)
{
    const unsigned char *end = p + len;
    unsigned char        lk[8];
    char                 sk[8 + ARB_STORE_ID_MAX];
    MDB_val              k, d;
    uint64_t             pos = first;
    uint32_t             rl;
    size_t               sl, idlen;
    int                  mrc;

    for (; pos < first + count; pos++) {
        if (end - p < 4)
            goto bad;
        rl = arb_load_be32(p);
        p += 4;
        if (rl < LR_HDR || (size_t)(end - p) < (size_t)rl + 2)
            goto bad;
        idlen = p[LR_IDLEN];
        if (idlen == 0 || idlen > ARB_STORE_ID_MAX || LR_HDR + idlen > rl)
            goto bad;
        arb__put64(lk, pos);
        k.mv_data = lk;
        k.mv_size = 8;
        d.mv_data = (void *)p;
        d.mv_size = rl;
        mrc = mdb_put(txn, s->dlog, &k, &d, MDB_APPEND);
        if (mrc != 0)
            return mrc == MDB_MAP_FULL ? ARB_EFULL
                 : arb__mdb_fail(why, mrc, "journal: write log");
        sl = (size_t)p[rl] << 8 | p[rl + 1];
        if ((size_t)(end - p) < (size_t)rl + 2 + sl)
            goto bad;
        if (sl > 0) {
            memcpy(sk, "secret:", 7);
            memcpy(sk + 7, p + LR_HDR, idlen);
            k.mv_data = sk;
            k.mv_size = 7 + idlen;
            d.mv_data = (void *)(p + rl + 2);
            d.mv_size = sl;
            mrc = mdb_put(txn, s->dmeta, &k, &d, 0);
            if (mrc != 0)
                return mrc == MDB_MAP_FULL ? ARB_EFULL
                     : arb__mdb_fail(why, mrc, "journal: write secret");
        }
        p += rl + 2 + sl;
    }
    if (p == end)
        return 0;
bad:
    arb__why(why, "journal: the batch of positions %llu.. is malformed at "
             "position %llu", (unsigned long long)first,
             (unsigned long long)pos);
    return ARB_ECORRUPT;
}

static int
replay_cb(void *ud, uint64_t first, uint32_t count, const unsigned char *p,
          size_t len)
{
    replay_t *r = ud;
    MDB_txn  *txn;
    int       rc, mrc;

    for (;;) {
        rc = arb__txn_begin(&r->s->log, 0, &txn, r->why);
        if (rc != 0)
            return rc;
        rc = replay_put(txn, r->s, first, count, p, len, r->why);
        if (rc == 0) {
            mrc = arb__txn_commit(&r->s->log, txn);
            if (mrc == MDB_MAP_FULL)
                rc = ARB_EFULL;
            else if (mrc != 0)
                return arb__mdb_fail(r->why, mrc, "journal: commit");
        } else {
            arb__txn_abort(&r->s->log, txn);
        }
        if (rc != ARB_EFULL)
            break;
        if ((rc = arb__env_grow(&r->s->log, r->why)) != 0)
            return rc;
    }
    r->events += count;
    return rc;
}

/* The snapshot to pin and the checkpoint that records it: the current
 * one.  Under wlock (or at open). */
static int
ckpt_take(arb_store_t *s, arb_journal_ckpt_t *ck, MDB_txn **pin,
          arb_buf_t *why)
{
    MDB_stat st;
    int      fd, mrc, rc;

    *pin = NULL;
    memset(ck, 0, sizeof(*ck));
    mrc = mdb_txn_begin(s->log.env, NULL, MDB_RDONLY, pin);
    if (mrc != 0) {
        *pin = NULL;
        return arb__mdb_fail(why, mrc, "checkpoint: begin");
    }
    ck->txnid = mdb_txn_id(*pin);
    ck->clean = s->ck_closing;
    rc = arb__log_last(s, *pin, &ck->last, why);
    if (rc == 0 && ((mrc = mdb_env_stat(s->log.env, &st)) != 0 ||
                    (mrc = mdb_env_get_fd(s->log.env, &fd)) != 0))
        rc = arb__mdb_fail(why, mrc, "checkpoint: stat");
    if (rc == 0 &&
        pread(fd, ck->meta, ARB_JOURNAL_META,
              (off_t)(ck->txnid & 1) * st.ms_psize) != ARB_JOURNAL_META) {
        arb__why(why, "checkpoint: read the meta page: %s", strerror(errno));
        rc = ARB_EIO;
    }
    if (rc == 0 && (!lm_meta_ok(ck->meta, ck->txnid) ||
                    lm_meta_psize(ck->meta) != st.ms_psize)) {
        arb__why(why, "checkpoint: LMDB's meta page is not laid out as "
                 "this build expects (transaction %llu)",
                 (unsigned long long)ck->txnid);
        rc = ARB_EUNSUPP;
    }
    if (rc != 0) {
        mdb_txn_abort(*pin);
        *pin = NULL;
    }
    return rc;
}

static void
pin_swap(arb_store_t *s, MDB_txn *pin)
{
    MDB_txn *old = s->pin;

    s->pin = pin;
    if (old != NULL)
        mdb_txn_abort(old);
}

/*
 * A checkpoint: flush the LMDB file up to the current snapshot, record
 * it, pin it.  With `locked` the caller holds wlock; new_lap < 0 begins a
 * lap when the current one is half full.  A new lap holds wlock
 * throughout (every batch of the lap must be covered), else appends go on
 * during the flush.  A failed flush or journal write stops the handle.
 */
int
arb__jr_ckpt(arb_store_t *s, int new_lap, int locked, arb_buf_t *why)
{
    arb_journal_ckpt_t ck;
    MDB_txn           *pin = NULL;
    uint64_t           t0 = arb_clock_ns(), upto, gen;
    int                rc, mrc, hold;

    if (!locked && pthread_mutex_lock(&s->wlock) != 0) {
        arb__why(why, "cannot take the writer lock");
        return ARB_ESTORE;
    }
    if (atomic_load(&s->state) != ST_OK) {
        arb__why(why, "an earlier commit failed; reopen the store");
        rc = ARB_ESTORE;
        goto out;
    }
    /* After the closing checkpoint, the thread's would hide its mark. */
    if (s->ck_closing && !locked) {
        rc = 0;
        goto out;
    }
    /* Half a lap: begin the next one now, before an append must. */
    if (new_lap < 0)
        new_lap = arb_journal_lap_bytes(s->jr) >
                  arb_journal_lap_max(s->jr) / 2;
    hold = locked || new_lap;
    upto = atomic_load(&s->ncommits);
    gen = atomic_load(&s->ck_count);
    if ((rc = ckpt_take(s, &ck, &pin, why)) != 0)
        goto stop;
    if (!hold)
        pthread_mutex_unlock(&s->wlock);
    /* The checkpoint thread flushes without wlock, so the closing
     * checkpoint (arb_store_finish) could flush while its flush fails,
     * flush the same file again and succeed, and the daemon exit 0 on a
     * failed fsync (test_ioerr caught it on 2026-12-05): flushes take
     * lsync, and none follows a failed one. */
    pthread_rwlock_rdlock(&s->log.maplock);
    pthread_mutex_lock(&s->lsync);
    if (s->lsync_failed) {
        mrc = -1;
    } else {
        mrc = mdb_env_sync(s->log.env, 1);
        s->lsync_failed = mrc != 0;
    }
    pthread_mutex_unlock(&s->lsync);
    pthread_rwlock_unlock(&s->log.maplock);
    if (!hold)
        pthread_mutex_lock(&s->wlock);
    if (mrc != 0) {
        /* Never retried: after a failed flush nobody knows what reached
         * the disk. */
        arb__why(why, "checkpoint: sync failed: %s", mrc > 0
                 ? mdb_strerror(mrc) : "an earlier flush of the log failed");
        rc = mrc > 0 ? ARB_EIO : ARB_ESTORE;
        goto stop;
    }
    if (atomic_load(&s->state) != ST_OK) {
        arb__why(why, "an earlier commit failed; reopen the store");
        rc = ARB_ESTORE;
        goto out;
    }
    /* While the flush ran without the lock, a newer checkpoint may have
     * been recorded: the closing one (arb_store_finish), or one an
     * append wrote to begin a lap.  Recorded after it, this older one
     * would be what recovery restores, hiding the clean mark or leaving
     * the batches between the two in a lap recovery does not read. */
    if (!hold && (s->ck_closing || atomic_load(&s->ck_count) != gen)) {
        rc = 0;
        goto out;
    }
    rc = arb_journal_checkpoint(s->jr, &ck, new_lap, why);
    if (rc == ARB_EAGAIN) {
        /* No room left in the lap for the record: the next append
         * begins a lap with a checkpoint of its own. */
        mdb_txn_abort(pin);
        rc = 0;
        goto out;
    }
    if (rc != 0)
        goto stop;
    pin_swap(s, pin);
    pin = NULL;
    s->ck_upto = upto;
    atomic_fetch_add(&s->ck_count, 1);
    atomic_fetch_add(&s->ck_ns, arb_clock_ns() - t0);
    arb__jr_stats_note(s);
    goto out;

stop:
    snprintf(s->ck_why, sizeof(s->ck_why), "%s", why ? arb_buf_cstr(why)
             : "checkpoint failed");
    atomic_store(&s->state, ST_NOWRITE);
out:
    if (pin != NULL)
        mdb_txn_abort(pin);
    if (!locked)
        pthread_mutex_unlock(&s->wlock);
    return rc;
}

/* After the log's databases are open: re-apply what the journal holds
 * past its checkpoint, record a fresh checkpoint in a new lap, and from
 * then on commit without flushing. */
int
arb__jr_start(arb_store_t *s, arb_buf_t *why)
{
    replay_t           r;
    arb_journal_ckpt_t ck;
    int                rc, mrc;

    if (s->jr == NULL)
        return 0;
    r.s = s;
    r.why = why;
    r.events = 0;
    if (s->jr_have && !s->jr_ck.clean) {
        /* The restored snapshot stays intact while the batches go in,
         * without flushes: a crash now recovers from it again. */
        rc = ckpt_take(s, &ck, &s->pin, why);
        if (rc == 0 && (ck.txnid != s->jr_ck.txnid ||
                        ck.last != s->jr_ck.last)) {
            arb__why(why, "journal: the checkpoint is transaction %llu at "
                     "position %llu, the log opened at %llu, position "
                     "%llu", (unsigned long long)s->jr_ck.txnid,
                     (unsigned long long)s->jr_ck.last,
                     (unsigned long long)ck.txnid,
                     (unsigned long long)ck.last);
            rc = ARB_ECORRUPT;
        }
        if (rc != 0)
            return rc;
        mdb_env_set_flags(s->log.env, MDB_NOSYNC, 1);
        rc = arb_journal_recover(s->jr, &s->jr_have, &s->jr_ck, replay_cb,
                                 &r, why);
        if (rc != 0)
            return rc;
        s->jr_replayed = r.events;
    }
    mrc = mdb_env_sync(s->log.env, 1);
    if (mrc != 0)
        return arb__mdb_fail(why, mrc, "journal: sync the log");
    pthread_mutex_lock(&s->wlock);
    rc = arb__jr_ckpt(s, 1, 1, why);
    pthread_mutex_unlock(&s->wlock);
    if (rc != 0)
        return rc;
    mdb_env_set_flags(s->log.env, MDB_NOSYNC, 1);
    if (pthread_mutex_init(&s->ck_lock, NULL) != 0)
        return ARB_ENOMEM;
    if (arb_cond_init(&s->ck_cond) != 0) {
        pthread_mutex_destroy(&s->ck_lock);
        return ARB_ENOMEM;
    }
    s->have_ck_sync = 1;
    if (pthread_create(&s->ckthread, NULL, ck_main, s) != 0) {
        arb__why(why, "cannot start the checkpoint thread");
        return ARB_ENOMEM;
    }
    s->have_ckthread = 1;
    return 0;
}

/* Extends the journal's file before the appends need it. */
static void
grow_ahead(arb_store_t *s, arb_buf_t *why)
{
    uint64_t from, to;
    int      f, rc, plan;

    if (pthread_mutex_lock(&s->wlock) != 0)
        return;
    plan = atomic_load(&s->state) == ST_OK &&
           arb_journal_grow_plan(s->jr, &f, &from, &to);
    pthread_mutex_unlock(&s->wlock);
    if (!plan)
        return;
    rc = arb_journal_grow_fill(s->jr, f, from, to, why);
    pthread_mutex_lock(&s->wlock);
    arb_journal_grow_done(s->jr, f, from, to, rc);
    if (rc != 0 && rc != ARB_EFULL) {
        snprintf(s->ck_why, sizeof(s->ck_why), "%s", arb_buf_cstr(why));
        atomic_store(&s->state, ST_NOWRITE);
    }
    pthread_mutex_unlock(&s->wlock);
}

/*
 * The checkpoint thread.  Every TICK_MS it starts the writing of the
 * pages committed since (sync_file_range, no wait): they then reach the
 * disk a few at a time between the journal's flushes, rather than all at
 * the next checkpoint, whose flush would hold up the appends flushing
 * behind it.  A write error shows at the next checkpoint's fdatasync,
 * which stops the handle.  Every arb__ckpt_ms it checkpoints.
 */
#define TICK_MS 5

static void *
ck_main(void *arg)
{
    arb_store_t    *s = arg;
    arb_buf_t       why = ARB_BUF_INIT;
    struct timespec ts;
    uint64_t        trickled = 0, n;
    unsigned        waited = 0;
    int             fd = -1;

    (void)mdb_env_get_fd(s->log.env, &fd);
    pthread_mutex_lock(&s->ck_lock);
    while (!s->ck_stop) {
        arb_clock_deadline(&ts, TICK_MS);
        pthread_cond_timedwait(&s->ck_cond, &s->ck_lock, &ts);
        if (s->ck_stop)
            break;
        n = atomic_load(&s->ncommits);
        if (n != trickled && fd >= 0) {
            (void)sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
            trickled = n;
        }
        pthread_mutex_unlock(&s->ck_lock);
        grow_ahead(s, &why);
        pthread_mutex_lock(&s->ck_lock);
        waited += TICK_MS;
        if (waited < arb__ckpt_ms || n == atomic_load(&s->ck_upto))
            continue;
        waited = 0;
        if (atomic_load(&s->state) != ST_OK)
            break;
        pthread_mutex_unlock(&s->ck_lock);
        (void)arb__jr_ckpt(s, -1, 0, &why);
        pthread_mutex_lock(&s->ck_lock);
    }
    pthread_mutex_unlock(&s->ck_lock);
    arb_buf_free(&why);
    return NULL;
}

/* Copies the journal's figures where arb_store_stats reads them without
 * the writer lock.  Under wlock. */
void
arb__jr_stats_note(arb_store_t *s)
{
    arb_journal_stats_t st;

    arb_journal_stats(s->jr, &st);
    atomic_store_explicit(&s->j_bytes, st.bytes, memory_order_relaxed);
    atomic_store_explicit(&s->j_laps, st.laps, memory_order_relaxed);
}

/* Before an append of `len` payload bytes, under wlock: room in the
 * journal, after a checkpoint that begins a new lap when the lap is full.
 * ARB_EFULL when the disk has no room (nothing written). */
int
arb__jr_reserve(arb_store_t *s, size_t len, arb_buf_t *why)
{
    int rc = arb_journal_reserve(s->jr, len, why);

    if (rc == ARB_EAGAIN) {
        rc = arb__jr_ckpt(s, 1, 1, why);
        if (rc == 0)
            rc = arb_journal_reserve(s->jr, len, why);
    }
    return rc;
}

/* Stops the checkpoint thread and waits for it: a checkpoint of its in
 * flight is over, its flush's outcome known to the next one. */
static void
ck_thread_stop(arb_store_t *s)
{
    if (!s->have_ckthread)
        return;
    pthread_mutex_lock(&s->ck_lock);
    s->ck_stop = 1;
    pthread_cond_signal(&s->ck_cond);
    pthread_mutex_unlock(&s->ck_lock);
    pthread_join(s->ckthread, NULL);
    s->have_ckthread = 0;
}

int
arb_store_finish(arb_store_t *s, arb_buf_t *why)
{
    int rc;

    if (s == NULL || s->jr == NULL) {
        arb__why(why, "no store, or the store is open read-only");
        return s == NULL ? ARB_EINVAL : ARB_EPERM;
    }
    /* No checkpoint of the thread's after the closing one, and none
     * flushing beside it (a flush of the thread's that failed after the
     * closing one succeeded would go unreported). */
    ck_thread_stop(s);
    if (pthread_mutex_lock(&s->wlock) != 0) {
        arb__why(why, "cannot take the writer lock");
        return ARB_ESTORE;
    }
    if (s->ck_closing) {
        pthread_mutex_unlock(&s->wlock);
        return 0;
    }
    s->ck_closing = 1;          /* no append after this one */
    rc = arb__jr_ckpt(s, 1, 1, why);
    pthread_mutex_unlock(&s->wlock);
    return rc;
}

/* Closing: a last checkpoint in a new lap, so that the next open reads
 * one block and restores nothing. */
void
arb__jr_close(arb_store_t *s)
{
    arb_buf_t why = ARB_BUF_INIT;

    ck_thread_stop(s);
    if (s->have_ck_sync) {
        pthread_cond_destroy(&s->ck_cond);
        pthread_mutex_destroy(&s->ck_lock);
        s->have_ck_sync = 0;
    }
    if (s->jr != NULL && s->pin != NULL && atomic_load(&s->state) == ST_OK)
        (void)arb_store_finish(s, &why);
    if (s->pin != NULL)
        mdb_txn_abort(s->pin);
    s->pin = NULL;
    arb_journal_close(s->jr);
    s->jr = NULL;
    arb_buf_free(&why);
}

/* Why: a store this build refuses (another format, a damaged one) is
 * refused before anything is written to it, and should be left as it
 * was found -- not with two empty journal files an operator has to
 * wonder about.  Only files this open made and left empty go: nothing
 * was ever journalled in them. */
void
arb__jr_unmake(arb_store_t *s)
{
    char        path[4096];
    struct stat st;
    int         i, n;

    arb__jr_close(s);
    if (!s->jr_made)
        return;
    s->jr_made = 0;
    for (i = 0; i < 2; i++) {
        n = snprintf(path, sizeof(path), "%s/wal.%d", s->dir, i);
        if (n > 0 && (size_t)n < sizeof(path) && stat(path, &st) == 0 &&
            S_ISREG(st.st_mode) && st.st_size == 0)
            (void)unlink(path);
    }
}

static int
count_cb(void *ud, uint64_t first, uint32_t count, const unsigned char *p,
         size_t len)
{
    (void)first;
    (void)p;
    (void)len;
    *(uint64_t *)ud += count;
    return 0;
}

/*
 * Read-only: 1 in *dirty when the store's last writer died and left the
 * journal to be applied (batches past its checkpoint, or a meta page that
 * is not the checkpoint's), 0 when there is no journal, its writer is
 * alive, or there is nothing to apply.
 */
int
arb__jr_ro_dirty(const char *dir, int *dirty, arb_buf_t *why)
{
    arb_journal_t     *j = NULL;
    arb_journal_ckpt_t ck;
    int                rc, live = 0, have = 0, needed = 0;
    uint64_t           past = 0;

    *dirty = 0;
    rc = arb_journal_open(&j, dir, 0, &live, why);
    if (rc == ARB_ENOTFOUND)
        return 0;
    if (rc != 0)
        return rc;
    if (!live) {
        rc = arb_journal_recover(j, &have, &ck, NULL, NULL, why);
        if (rc == 0 && have)
            rc = arb_journal_recover(j, &have, &ck, count_cb, &past, why);
        if (rc == 0 && have && !ck.clean)
            rc = meta_restore(dir, &ck, 0, &needed, why);
        *dirty = rc == 0 && have && !ck.clean && (past > 0 || needed);
    }
    arb_journal_close(j);
    return rc;
}
