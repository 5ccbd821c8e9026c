/*
 * test_journal.c - the write-ahead journal (core/ledger/journal.c) and the
 * store's recovery through it (store_journal.c).
 *
 * The module: laps, torn and stale blocks, the order of batches, the
 * clean mark, the lock.  The store: a writer that dies (a child that
 * _exits with its handle open, as after kill -9) and a power cut
 * simulated on its files (every page LMDB allocated past the last
 * checkpoint's snapshot zeroed, its newest meta pages kept): the next
 * open restores the checkpoint, re-applies the journal, and every
 * acknowledged event is there with its hash, which also shows that no
 * page of the pinned snapshot was reused.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/err.h"
#include "core/ledger/journal.h"
#include "core/ledger/store.h"
#include "core/ledger/store_int.h"
#include "tests/test.h"

static char root[] = "/tmp/arb_journal_XXXXXX";
static char pathbuf[512];

static const char *
subdir(const char *name)
{
    snprintf(pathbuf, sizeof(pathbuf), "%s/%s", root, name);
    mkdir(pathbuf, 0700);
    return pathbuf;
}

typedef struct seen {
    uint64_t first[64];
    uint32_t count[64];
    size_t   len[64];
    int      n;
} seen_t;

static int
on_batch(void *ud, uint64_t first, uint32_t count, const unsigned char *p,
         size_t len)
{
    seen_t *sn = ud;

    (void)p;
    if (sn->n < 64) {
        sn->first[sn->n] = first;
        sn->count[sn->n] = count;
        sn->len[sn->n] = len;
    }
    sn->n++;
    return 0;
}

static void
ck_init(arb_journal_ckpt_t *ck, uint64_t txnid, uint64_t last)
{
    memset(ck, 0, sizeof(*ck));
    ck->txnid = txnid;
    ck->last = last;
    ck->meta[0] = (unsigned char)txnid;
}

static void
test_module(void)
{
    arb_journal_t      *j = NULL, *j2 = NULL;
    arb_journal_ckpt_t  ck, got;
    arb_buf_t           why = ARB_BUF_INIT;
    seen_t              sn;
    char                payload[100], path[600];
    const char         *dir = subdir("mod");
    int                 have = 7, live = 0, fd;
    struct stat         st;

    memset(payload, 'x', sizeof(payload));
    CHECK_INT(arb_journal_open(&j, dir, 1, NULL, &why), 0);
    if (j == NULL)
        return;
    /* Never written: no checkpoint, and no batch before one. */
    CHECK_INT(arb_journal_recover(j, &have, &got, on_batch, &sn, &why), 0);
    CHECK_INT(have, 0);
    CHECK_INT(arb_journal_append(j, 1, 1, payload, 10, &why), ARB_EINVAL);
    /* The lock: one writer; a reader sees it alive. */
    CHECK_INT(arb_journal_open(&j2, dir, 1, NULL, &why), ARB_EAGAIN);
    CHECK(strstr(arb_buf_cstr(&why), "in use by another process") != NULL);
    CHECK_INT(arb_journal_open(&j2, dir, 0, &live, &why), 0);
    CHECK_INT(live, 1);
    arb_journal_close(j2);
    j2 = NULL;

    ck_init(&ck, 5, 10);
    CHECK_INT(arb_journal_checkpoint(j, &ck, 1, &why), 0);
    CHECK_INT(arb_journal_append(j, 11, 2, payload, 20, &why), 0);
    CHECK_INT(arb_journal_append(j, 13, 1, payload, 30, &why), 0);
    ck_init(&ck, 6, 12);            /* written after batches past it */
    CHECK_INT(arb_journal_checkpoint(j, &ck, 0, &why), 0);
    CHECK_INT(arb_journal_append(j, 14, 3, payload, 40, &why), 0);
    /* A new lap needs a checkpoint covering the lap. */
    CHECK_INT(arb_journal_checkpoint(j, &ck, 1, &why), ARB_EINVAL);
    arb_journal_close(j);
    j = NULL;

    CHECK_INT(arb_journal_open(&j, dir, 1, NULL, &why), 0);
    memset(&sn, 0, sizeof(sn));
    CHECK_INT(arb_journal_recover(j, &have, &got, on_batch, &sn, &why), 0);
    CHECK_INT(have, 1);
    CHECK_INT(got.txnid, 6);
    CHECK_INT(got.last, 12);
    CHECK_INT(got.meta[0], 6);
    CHECK_INT(got.clean, 0);
    CHECK_INT(sn.n, 2);             /* 13 and 14..16: past position 12 */
    CHECK_INT(sn.first[0], 13);
    CHECK_INT(sn.len[0], 30);
    CHECK_INT(sn.first[1], 14);
    CHECK_INT(sn.count[1], 3);
    /* The writer goes on after the valid run. */
    CHECK_INT(arb_journal_append(j, 17, 1, payload, 10, &why), 0);
    ck_init(&ck, 9, 17);
    ck.clean = 1;
    CHECK_INT(arb_journal_checkpoint(j, &ck, 1, &why), 0);  /* wal.1 */
    arb_journal_close(j);
    j = NULL;

    /* A clean close: the newer lap is one checkpoint, marked clean. */
    CHECK_INT(arb_journal_open(&j, dir, 1, NULL, &why), 0);
    memset(&sn, 0, sizeof(sn));
    CHECK_INT(arb_journal_recover(j, &have, &got, on_batch, &sn, &why), 0);
    CHECK_INT(got.txnid, 9);
    CHECK_INT(got.clean, 1);
    CHECK_INT(sn.n, 0);
    CHECK_INT(arb_journal_append(j, 18, 1, payload, 10, &why), 0);
    CHECK_INT(arb_journal_append(j, 19, 1, payload, 10, &why), 0);
    arb_journal_close(j);
    j = NULL;

    /* A torn last block ends the run: its batch was never flushed. */
    snprintf(path, sizeof(path), "%s/wal.1", dir);
    fd = open(path, O_RDWR);
    CHECK(fd >= 0);
    CHECK(pwrite(fd, "Z", 1, (48 + 264) + (48 + 10) + 48 + 5) == 1);
    close(fd);
    CHECK_INT(arb_journal_open(&j, dir, 1, NULL, &why), 0);
    memset(&sn, 0, sizeof(sn));
    CHECK_INT(arb_journal_recover(j, &have, &got, on_batch, &sn, &why), 0);
    CHECK_INT(got.clean, 0);
    CHECK_INT(sn.n, 1);
    CHECK_INT(sn.first[0], 18);
    /* A batch that does not follow the run is corruption. */
    CHECK_INT(arb_journal_append(j, 21, 1, payload, 10, &why), 0);
    arb_journal_close(j);
    j = NULL;
    CHECK_INT(arb_journal_open(&j, dir, 1, NULL, &why), 0);
    CHECK_INT(arb_journal_recover(j, &have, &got, on_batch, &sn, &why),
              ARB_ECORRUPT);
    CHECK(strstr(arb_buf_cstr(&why), "expected 19 next") != NULL);
    arb_journal_close(j);
    j = NULL;

    /* A journal that ends in an ordinary checkpoint, no batch behind it:
     * not a clean close (only the checkpoint a close writes says so).
     * Met before only when a power cut of test_store_recovery happened
     * to land there. */
    dir = subdir("ckend");
    CHECK_INT(arb_journal_open(&j, dir, 1, NULL, &why), 0);
    ck_init(&ck, 2, 0);
    CHECK_INT(arb_journal_checkpoint(j, &ck, 1, &why), 0);
    CHECK_INT(arb_journal_append(j, 1, 1, payload, 10, &why), 0);
    ck_init(&ck, 3, 1);
    CHECK_INT(arb_journal_checkpoint(j, &ck, 0, &why), 0);
    arb_journal_close(j);
    j = NULL;
    CHECK_INT(arb_journal_open(&j, dir, 1, NULL, &why), 0);
    memset(&sn, 0, sizeof(sn));
    CHECK_INT(arb_journal_recover(j, &have, &got, on_batch, &sn, &why), 0);
    CHECK_INT(have, 1);
    CHECK_INT(got.txnid, 3);
    CHECK_INT(got.clean, 0);
    CHECK_INT(sn.n, 0);
    arb_journal_close(j);
    j = NULL;

    /* Laps: a small cap.  When the lap is full and nothing covers it,
     * ARB_EAGAIN; a checkpoint in a new lap makes room, and the old lap's
     * blocks (lower numbers) never show through. */
    dir = subdir("laps");
    arb__journal_grow0 = 1024;
    arb__journal_max = 4096;
    CHECK_INT(arb_journal_open(&j, dir, 1, NULL, &why), 0);
    ck_init(&ck, 2, 0);
    CHECK_INT(arb_journal_checkpoint(j, &ck, 1, &why), 0);
    {
        uint64_t pos = 1;
        int      rc, laps = 0, i;

        for (i = 0; i < 200; i++, pos++) {
            rc = arb_journal_append(j, pos, 1, payload, sizeof(payload),
                                    &why);
            if (rc == ARB_EAGAIN) {
                ck_init(&ck, 2 + pos, pos - 1);
                CHECK_INT(arb_journal_checkpoint(j, &ck, 1, &why), 0);
                laps++;
                rc = arb_journal_append(j, pos, 1, payload,
                                        sizeof(payload), &why);
            }
            if (rc != 0)
                break;
        }
        CHECK_INT(i, 200);
        CHECK(laps >= 5);
        arb_journal_close(j);
        j = NULL;
        snprintf(path, sizeof(path), "%s/wal.0", dir);
        CHECK(stat(path, &st) == 0 && st.st_size == 4096);
        CHECK_INT(arb_journal_open(&j, dir, 1, NULL, &why), 0);
        memset(&sn, 0, sizeof(sn));
        CHECK_INT(arb_journal_recover(j, &have, &got, on_batch, &sn, &why),
                  0);
        CHECK(sn.n >= 1);
        CHECK_INT(sn.first[0], got.last + 1);
        CHECK_INT(sn.first[sn.n - 1], 200);
    }
    arb_journal_close(j);
    j = NULL;

    /* Growing ahead: past half the file a plan, its zeros, then room
     * for the appends without them extending the file themselves. */
    dir = subdir("ahead");
    arb__journal_max = 16384;
    CHECK_INT(arb_journal_open(&j, dir, 1, NULL, &why), 0);
    ck_init(&ck, 2, 0);
    CHECK_INT(arb_journal_checkpoint(j, &ck, 1, &why), 0);
    {
        arb_journal_stats_t js;
        uint64_t            from = 0, to = 0;
        int                 f = -1, i;

        CHECK_INT(arb_journal_grow_plan(j, &f, &from, &to), 0);
        for (i = 1; i <= 4; i++)        /* 312 + 4 * 148 > 1024 / 2 */
            CHECK_INT(arb_journal_append(j, (uint64_t)i, 1, payload,
                                         sizeof(payload), &why), 0);
        CHECK_INT(arb_journal_grow_plan(j, &f, &from, &to), 1);
        CHECK_INT(f, 0);
        CHECK_INT(from, 1024);
        CHECK_INT(to, 2048);
        CHECK_INT(arb_journal_grow_fill(j, f, from, to, &why), 0);
        arb_journal_grow_done(j, f, from, to, 0);
        arb_journal_stats(j, &js);
        CHECK_INT(js.grows, 2);         /* the first block's, this one */
        for (i = 5; i <= 7; i++)
            CHECK_INT(arb_journal_append(j, (uint64_t)i, 1, payload,
                                         sizeof(payload), &why), 0);
        arb_journal_stats(j, &js);
        CHECK_INT(js.grows, 2);         /* the appends did not grow it */
        snprintf(path, sizeof(path), "%s/wal.0", dir);
        CHECK(stat(path, &st) == 0 && st.st_size == 2048);
        /* ENOSPC on the way: the range is given back. */
        CHECK_INT(arb_journal_grow_plan(j, &f, &from, &to), 1);
        arb_journal_grow_done(j, f, from, to, ARB_EFULL);
        CHECK(stat(path, &st) == 0 && st.st_size == 2048);
        CHECK_INT(arb_journal_append(j, 8, 1, payload, sizeof(payload),
                                     &why), 0);
    }
    arb_journal_close(j);
    j = NULL;

    /* A reader that finds wal.0 alone reads it. */
    snprintf(path, sizeof(path), "%s/wal.1", dir);
    CHECK_INT(unlink(path), 0);
    CHECK_INT(arb_journal_open(&j, dir, 0, &live, &why), 0);
    CHECK_INT(live, 0);
    memset(&sn, 0, sizeof(sn));
    if (j != NULL)
        CHECK_INT(arb_journal_recover(j, &have, &got, on_batch, &sn, &why),
                  0);
    CHECK_INT(have, 1);
    CHECK_INT(sn.n, 8);
    arb_journal_close(j);
    /* Past a step, a step at a time: a growth never dirties more than a
     * step of zeros, whether ahead of the appends or by one of them. */
    dir = subdir("step");
    arb__journal_step = 2048;
    arb__journal_max = 65536;
    CHECK_INT(arb_journal_open(&j, dir, 1, NULL, &why), 0);
    ck_init(&ck, 2, 0);
    CHECK_INT(arb_journal_checkpoint(j, &ck, 1, &why), 0);
    {
        uint64_t from = 0, to = 0, pos = 1;
        int      f = -1, i;

        for (i = 0; i < 4; i++)     /* 904 bytes of 1024 */
            CHECK_INT(arb_journal_append(j, pos++, 1, payload,
                                         sizeof(payload), &why), 0);
        snprintf(path, sizeof(path), "%s/wal.0", dir);
        CHECK(stat(path, &st) == 0 && st.st_size == 1024);
        /* under a step: past half, it doubles */
        CHECK_INT(arb_journal_grow_plan(j, &f, &from, &to), 1);
        CHECK_INT(from, 1024);
        CHECK_INT(to, 2048);
        CHECK_INT(arb_journal_grow_fill(j, f, from, to, &why), 0);
        arb_journal_grow_done(j, f, from, to, 0);
        /* at a step: less than a step left, one step more */
        CHECK_INT(arb_journal_grow_plan(j, &f, &from, &to), 1);
        CHECK_INT(from, 2048);
        CHECK_INT(to, 4096);
        CHECK_INT(arb_journal_grow_fill(j, f, from, to, &why), 0);
        arb_journal_grow_done(j, f, from, to, 0);
        CHECK(stat(path, &st) == 0 && st.st_size == 4096);
        /* 904 of 4096: more than a step left, no plan */
        CHECK_INT(arb_journal_grow_plan(j, &f, &from, &to), 0);
        /* appends that outrun it grow the file a step at a time */
        for (i = 0; i < 40; i++)
            CHECK_INT(arb_journal_append(j, pos++, 1, payload,
                                         sizeof(payload), &why), 0);
        CHECK(stat(path, &st) == 0 && st.st_size % 2048 == 0 &&
              st.st_size >= 312 + 44 * 148 &&
              st.st_size < 312 + 44 * 148 + 2048);
    }
    arb_journal_close(j);
    j = NULL;
    arb__journal_step = (uint64_t)1 << 20;

    arb__journal_grow0 = (uint64_t)256 << 10;
    arb__journal_max = (uint64_t)64 << 20;
    arb_buf_free(&why);
}

/* Opens the journal of dir as its writer and reads it into *sn. */
static int
reread(const char *dir, arb_journal_ckpt_t *got, seen_t *sn, arb_buf_t *why)
{
    arb_journal_t *j = NULL;
    int            rc, have = 0;

    memset(sn, 0, sizeof(*sn));
    rc = arb_journal_open(&j, dir, 1, NULL, why);
    if (rc == 0)
        rc = arb_journal_recover(j, &have, got, on_batch, sn, why);
    arb_journal_close(j);
    return rc;
}

/*
 * The framing and the order within a lap, each on a journal of its own
 * (a checkpoint block is 48 + 264 bytes, a batch of 10 bytes 48 + 10):
 * - the checksum covers the whole header: a batch's first position with
 *   a bit flipped is a torn block that ends the run, never a batch taken
 *   to other positions;
 * - a file that ends inside a block ends the run there, as a torn block
 *   does, rather than failing the open with a read error;
 * - the first batch past the checkpoint must follow it without a gap:
 *   re-applied after it, a batch with a position missing in between
 *   would leave a hole in the log;
 * - a new lap needs a checkpoint that covers the last position of the
 *   lap's last batch, not one short of it.
 */
static void
test_framing(void)
{
    arb_journal_t      *j = NULL;
    arb_journal_ckpt_t  ck, got;
    arb_buf_t           why = ARB_BUF_INIT;
    seen_t              sn;
    char                payload[10], path[600];
    const char         *dir;
    unsigned char       b;
    int                 fd, i;

    memset(payload, 'y', sizeof(payload));
    for (i = 0; i < 2; i++) {
        dir = subdir(i == 0 ? "flip" : "cut");
        CHECK_INT(arb_journal_open(&j, dir, 1, NULL, &why), 0);
        if (j == NULL)
            return;
        ck_init(&ck, 5, 10);
        CHECK_INT(arb_journal_checkpoint(j, &ck, 1, &why), 0);
        CHECK_INT(arb_journal_append(j, 11, 1, payload, 10, &why), 0);
        CHECK_INT(arb_journal_append(j, 12, 1, payload, 10, &why), 0);
        CHECK_INT(arb_journal_append(j, 13, 1, payload, 10, &why), 0);
        arb_journal_close(j);
        j = NULL;
        snprintf(path, sizeof(path), "%s/wal.0", dir);
        fd = open(path, O_RDWR);
        CHECK(fd >= 0);
        if (i == 0) {
            /* the low byte of the second batch's first position */
            CHECK(pread(fd, &b, 1, 312 + 58 + 31) == 1);
            b ^= 0x10;
            CHECK(pwrite(fd, &b, 1, 312 + 58 + 31) == 1);
        } else {
            /* inside the second batch's payload */
            CHECK_INT(ftruncate(fd, 312 + 58 + 48 + 5), 0);
        }
        close(fd);
        CHECK_INT(reread(dir, &got, &sn, &why), 0);
        CHECK_INT(got.last, 10);
        CHECK_INT(sn.n, 1);
        CHECK_INT(sn.first[0], 11);
    }

    dir = subdir("gap");
    CHECK_INT(arb_journal_open(&j, dir, 1, NULL, &why), 0);
    if (j == NULL)
        return;
    ck_init(&ck, 5, 10);
    CHECK_INT(arb_journal_checkpoint(j, &ck, 1, &why), 0);
    CHECK_INT(arb_journal_append(j, 12, 1, payload, 10, &why), 0);
    arb_journal_close(j);
    j = NULL;
    CHECK_INT(reread(dir, &got, &sn, &why), ARB_ECORRUPT);
    CHECK(strstr(arb_buf_cstr(&why), "expected 11 next") != NULL);
    CHECK_INT(sn.n, 0);

    dir = subdir("cover");
    CHECK_INT(arb_journal_open(&j, dir, 1, NULL, &why), 0);
    if (j == NULL)
        return;
    ck_init(&ck, 5, 10);
    CHECK_INT(arb_journal_checkpoint(j, &ck, 1, &why), 0);
    CHECK_INT(arb_journal_append(j, 11, 3, payload, 10, &why), 0);
    ck_init(&ck, 6, 12);
    CHECK_INT(arb_journal_checkpoint(j, &ck, 1, &why), ARB_EINVAL);
    ck_init(&ck, 6, 13);
    CHECK_INT(arb_journal_checkpoint(j, &ck, 1, &why), 0);
    arb_journal_close(j);
    arb_buf_free(&why);
}

/* Copies file a to b: 0, or -1. */
static int
copy_file(const char *a, const char *b)
{
    char    buf[65536];
    ssize_t n;
    int     in = open(a, O_RDONLY), out = -1, rc = -1;

    if (in >= 0)
        out = open(b, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    while (out >= 0 && (n = read(in, buf, sizeof(buf))) >= 0) {
        if (n == 0) {
            rc = fsync(out);
            break;
        }
        if (write(out, buf, (size_t)n) != n)
            break;
    }
    if (in >= 0)
        close(in);
    if (out >= 0)
        close(out);
    return rc;
}

/*
 * A power cut that lost every write to data.mdb since the checkpoint,
 * its meta pages too: the file is then exactly the checkpoint's
 * snapshot, and only the journal holds the batches acknowledged past
 * it.  A read-only open (the tools) must still apply them first: the
 * meta page needs no restoring, but the journal is not empty.  (The
 * child saves data.mdb as its open's checkpoint left it, with no other
 * checkpoint after, and the parent puts that copy back.)
 */
static void
test_ro_meta_kept(void)
{
    arb_store_opts_t  o;
    arb_store_t      *s = NULL;
    arb_match_info_t  m;
    arb_buf_t         why = ARB_BUF_INIT;
    char              a[600], b[600];
    const char       *dir = subdir("rokept");
    pid_t             pid;
    int               st = 0;

    snprintf(a, sizeof(a), "%s/data.mdb", dir);
    snprintf(b, sizeof(b), "%s/data.saved", dir);
    pid = fork();
    if (pid == 0) {
        arb_append_t v;
        int          i;

        arb__ckpt_ms = 600000;
        if (arb_store_open(&s, dir, NULL, NULL) != 0 || copy_file(a, b))
            _exit(2);
        for (i = 0; i < 5; i++) {
            memset(&v, 0, sizeof(v));
            v.match_id = "k";
            v.game = "yahchain";
            v.seq = (uint64_t)i;
            v.bytes = "an event";
            v.len = 8;
            if (arb_store_append_batch(s, &v, 1, NULL) != 0)
                _exit(3);
        }
        _exit(0);               /* as after kill -9 */
    }
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK_INT(rename(b, a), 0);
    memset(&o, 0, sizeof(o));
    o.read_only = 1;
    CHECK_INT(arb_store_open(&s, dir, &o, &why), 0);
    CHECK_INT(arb_store_match(s, "k", &m, &why), 0);
    CHECK_INT(m.last_seq, 4);
    arb_store_close(s);
    arb_buf_free(&why);
}

/* The child: opens the store, appends n events to n/4 matches, reports
 * each acknowledged hash through the pipe, and dies with the handle
 * open. */
static void
child_load(const char *dir, int n, int wfd)
{
    arb_store_t  *s = NULL;
    arb_append_t  v;
    char          id[16], bytes[64];
    int           i;

    if (arb_store_open(&s, dir, NULL, NULL) != 0)
        _exit(2);
    for (i = 0; i < n; i++) {
        memset(&v, 0, sizeof(v));
        snprintf(id, sizeof(id), "m%d", i % 4);
        snprintf(bytes, sizeof(bytes), "event %d of %s", i, id);
        v.match_id = id;
        v.game = "yahchain";
        v.seq = (uint64_t)(i / 4);
        v.bytes = bytes;
        v.len = strlen(bytes);
        /* A deal secret with a later event of its match (a read replica
         * that met the deal late): past the middle's checkpoint, so the
         * journal brings it back. */
        if (i == n - 4)
            v.secret = "seed late";
        if (arb_store_append_batch(s, &v, 1, NULL) != 0)
            _exit(3);
        if (write(wfd, v.hash, sizeof(v.hash)) != sizeof(v.hash))
            _exit(4);
        if (i == n / 2)
            usleep(120 * 1000);     /* a checkpoint in the middle */
    }
    _exit(0);
}

/* Runs child_load; acked[] gets the hashes it reported. */
static int
die_loaded(const char *dir, int n, unsigned char (*acked)[32])
{
    int   p[2], st, got = 0;
    pid_t pid;

    if (pipe(p) != 0)
        return -1;
    pid = fork();
    if (pid == 0) {
        close(p[0]);
        child_load(dir, n, p[1]);
    }
    close(p[1]);
    while (got < n && read(p[0], acked[got], 32) == 32)
        got++;
    close(p[0]);
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    return got;
}

static void
check_events(const char *dir, int n, unsigned char (*acked)[32],
             uint64_t *replayed)
{
    arb_store_t      *s = NULL;
    arb_store_stats_t st;
    arb_match_info_t  m;
    arb_buf_t         why = ARB_BUF_INIT, sec = ARB_BUF_INIT;
    char              id[16];
    int               i;

    CHECK_INT(arb_store_open(&s, dir, NULL, &why), 0);
    if (s == NULL) {
        fprintf(stderr, "open: %s\n", arb_buf_cstr(&why));
        return;
    }
    CHECK_INT(arb_store_verify(s, NULL, &why), 0);
    for (i = 0; i < 4; i++) {
        snprintf(id, sizeof(id), "m%d", i);
        CHECK_INT(arb_store_match(s, id, &m, &why), 0);
        CHECK_INT(m.count, (uint64_t)(n / 4));
        /* the head is the last acknowledged hash of the match */
        CHECK(memcmp(m.head, acked[n - 4 + i], 32) == 0);
    }
    CHECK_INT(arb_store_stats(s, &st, &why), 0);
    *replayed = st.journal_replayed;
    CHECK_INT(arb_store_secret(s, "m0", &sec, &why), 0);
    CHECK_STR(arb_buf_cstr(&sec), "seed late");
    CHECK_INT(arb_store_secret(s, "m1", &sec, &why), ARB_ENOTFOUND);
    arb_buf_free(&sec);
    arb_store_close(s);
    arb_buf_free(&why);
}

/* What a power cut may leave: every page past the checkpoint's snapshot
 * lost (zeros), the meta pages LMDB wrote after it kept.  The commits
 * after the checkpoint may have written only pages LMDB reused below the
 * snapshot's last page (a loaded machine makes that window short): then
 * nothing lies past it, and only the meta pages are stale.  The pages
 * zeroed are counted in cut_pages. */
static unsigned long cut_pages, cuts;

static void
cut_power(const char *dir)
{
    arb_journal_t     *j = NULL;
    arb_journal_ckpt_t ck;
    char               path[600];
    static char        zero[4096];
    uint64_t           last_pg = 0, pg;
    struct stat        st;
    int                fd, have = 0;

    CHECK_INT(arb_journal_open(&j, dir, 0, NULL, NULL), 0);
    CHECK_INT(arb_journal_recover(j, &have, &ck, NULL, NULL, NULL), 0);
    arb_journal_close(j);
    CHECK_INT(have, 1);
    CHECK_INT(ck.clean, 0);
    /* mm_last_pg: just before mm_txnid in LMDB's meta (LP64). */
    memcpy(&last_pg, ck.meta + 136, 8);
    snprintf(path, sizeof(path), "%s/data.mdb", dir);
    fd = open(path, O_RDWR);
    CHECK(fd >= 0 && fstat(fd, &st) == 0);
    CHECK(last_pg > 2 && (last_pg + 1) * 4096 <= (uint64_t)st.st_size);
    for (pg = last_pg + 1; (pg + 1) * 4096 <= (uint64_t)st.st_size; pg++) {
        CHECK(pwrite(fd, zero, sizeof(zero), (off_t)(pg * 4096)) == 4096);
        cut_pages++;
    }
    cuts++;
    close(fd);
}

static void
test_store_recovery(void)
{
    static unsigned char acked[400][32];
    const char          *dir;
    char                 d2[512];
    uint64_t             replayed = 0;
    int                  n;

    /* kill -9: the page cache holds everything; the journal still
     * decides, and restores the same events. */
    dir = subdir("killed");
    snprintf(d2, sizeof(d2), "%s", dir);
    n = die_loaded(d2, 400, acked);
    CHECK_INT(n, 400);
    check_events(d2, 400, acked, &replayed);
    CHECK(replayed > 0 && replayed < 400);  /* past the middle's ckpt */

    /* A power cut that lost every page written since the checkpoint. */
    dir = subdir("powercut");
    snprintf(d2, sizeof(d2), "%s", dir);
    n = die_loaded(d2, 400, acked);
    CHECK_INT(n, 400);
    cut_power(d2);
    check_events(d2, 400, acked, &replayed);
    CHECK(replayed > 0);
    /* Reopened cleanly: nothing to re-apply. */
    check_events(d2, 400, acked, &replayed);
    CHECK_INT(replayed, 0);

    /* A data.mdb older than its journal's checkpoint (put back after
     * the writer died) is refused, not "recovered" into garbage; so is
     * a journal whose data.mdb is gone. */
    dir = subdir("older");
    snprintf(d2, sizeof(d2), "%s", dir);
    {
        arb_store_t *s = NULL;
        arb_buf_t    why = ARB_BUF_INIT;
        char         cmd[1400];

        CHECK_INT(arb_store_open(&s, d2, NULL, NULL), 0);
        arb_store_close(s);
        s = NULL;
        snprintf(cmd, sizeof(cmd), "cp %s/data.mdb %s/old.mdb", d2, d2);
        CHECK_INT(system(cmd), 0);
        n = die_loaded(d2, 400, acked);
        snprintf(cmd, sizeof(cmd), "cp %s/old.mdb %s/data.mdb", d2, d2);
        CHECK_INT(system(cmd), 0);
        CHECK_INT(arb_store_open(&s, d2, NULL, &why), ARB_ECORRUPT);
        CHECK(strstr(arb_buf_cstr(&why), "older than its journal's "
                     "checkpoint") != NULL);
        CHECK(strstr(arb_buf_cstr(&why), "Move") != NULL);
        arb_store_close(s);
        s = NULL;
        snprintf(cmd, sizeof(cmd), "rm %s/data.mdb", d2);
        CHECK_INT(system(cmd), 0);
        CHECK_INT(arb_store_open(&s, d2, NULL, &why), ARB_ECORRUPT);
        CHECK(strstr(arb_buf_cstr(&why), "not closed cleanly, but no "
                     "data.mdb") != NULL);
        arb_store_close(s);
        arb_buf_free(&why);
    }

    /* A read-only open after the writer died applies the journal first
     * (the directory is writable), then reads. */
    dir = subdir("ro");
    snprintf(d2, sizeof(d2), "%s", dir);
    n = die_loaded(d2, 400, acked);
    cut_power(d2);
    {
        arb_store_t     *s = NULL;
        arb_store_opts_t o = { 0, 0, 1, 0 };
        arb_match_info_t m;

        CHECK_INT(arb_store_open(&s, d2, &o, NULL), 0);
        if (s != NULL) {
            CHECK_INT(arb_store_verify(s, NULL, NULL), 0);
            CHECK_INT(arb_store_match(s, "m3", &m, NULL), 0);
            CHECK_INT(m.count, 100);
        }
        arb_store_close(s);
    }
}

int
main(void)
{
    char cmd[600];

    if (mkdtemp(root) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    test_module();
    test_framing();
    test_ro_meta_kept();
    test_store_recovery();
    printf("test_journal: %lu power cuts, %lu pages past their checkpoint "
           "lost\n", cuts, cut_pages);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", root);
    return TEST_END();
}
