/*
 * test_journal_race.c - the store's checkpoint thread racing the writer
 * (core/ledger/journal.c, store_journal.c).
 *
 * The checkpoint thread flushes the log and grows the journal without
 * the writer's lock.  Each case below slows that thread down at the
 * point where it has let go of the lock, so that the writer runs ahead
 * of it, then checks that every acknowledged event is there at the next
 * open:
 *
 * - a checkpoint still flushing when the store is finished (a clean
 *   stop) must not be recorded after the closing one: recovery would
 *   restore the older snapshot and lose the events between the two;
 * - nor after a checkpoint an append wrote to begin a lap: the events
 *   between them would lie in a lap recovery does not read;
 * - zeros the thread writes to grow a journal file must never land on
 *   blocks appended meanwhile: an append that must grow the file waits
 *   for the fill, and fails when the fill failed;
 * - the journal refuses a checkpoint older than the last it recorded;
 * - a writer does not recover a store another process still has open.
 *
 * The slowing is done by this program's own fdatasync and pwrite, which
 * every call in the process reaches (LMDB's included); the main thread
 * is never slowed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/err.h"
#include "core/ledger/journal.h"
#include "core/ledger/store.h"
#include "tests/test.h"

static volatile int slow_sync_ms;       /* data.mdb's flush, off main */
static volatile int fail_sync;          /* ... and it fails, with EIO */
static volatile int sync_failed;        /* one of data.mdb's flushes did */
static volatile int resyncs;            /* data.mdb flushed after that */
static volatile int slow_entered;       /* slowed flushes begun */
static volatile int slow_zero_ms;       /* a wal's first zero write, off main */
static volatile int fail_zeros;         /* a wal's zero writes fail, off main */
static pid_t        main_tid;

static int
fd_is(int fd, const char *what)
{
    char    link[64], target[512];
    ssize_t n;

    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    n = readlink(link, target, sizeof(target) - 1);
    if (n < 0)
        return 0;
    target[n] = '\0';
    return strstr(target, what) != NULL;
}

static int
off_main(void)
{
    return (pid_t)syscall(SYS_gettid) != main_tid;
}

int
fdatasync(int fd)
{
    if (sync_failed && fd_is(fd, "/data.mdb"))
        resyncs++;
    if (slow_sync_ms > 0 && off_main() && fd_is(fd, "/data.mdb")) {
        slow_entered++;
        usleep((useconds_t)slow_sync_ms * 1000);
        if (fail_sync) {
            sync_failed = 1;
            errno = EIO;
            return -1;
        }
    }
    return (int)syscall(SYS_fdatasync, fd);
}

/* Waits (up to 10 s) until a slowed flush has begun since `before` was
 * read of slow_entered: the thread is inside it.  (A fixed 100 ms was
 * too short on a loaded machine: the thread had not begun it yet.) */
static void
wait_slow_flush(int before)
{
    int i;

    for (i = 0; i < 1000 && slow_entered == before; i++)
        usleep(10 * 1000);
}

static int
all_zero(const void *b, size_t n)
{
    const unsigned char *p = b;
    size_t               i;

    for (i = 0; i < n; i++)
        if (p[i] != 0)
            return 0;
    return n > 0;
}

ssize_t
pwrite(int fd, const void *b, size_t n, off_t off)
{
    if ((slow_zero_ms > 0 || fail_zeros) && off_main() && all_zero(b, n)
        && fd_is(fd, "/wal.")) {
        if (fail_zeros) {
            errno = EIO;
            return -1;
        }
        usleep((useconds_t)slow_zero_ms * 1000);
        slow_zero_ms = 0;
    }
    return (ssize_t)syscall(SYS_pwrite64, fd, b, n, off);
}

static char root[] = "/tmp/arb_jrace_XXXXXX";
static char big[4000];

static const char *
subdir(const char *name)
{
    static char path[600];

    snprintf(path, sizeof(path), "%s/%s", root, name);
    mkdir(path, 0700);
    return path;
}

static int
append(arb_store_t *s, uint64_t seq, const void *bytes, size_t len)
{
    arb_append_t v;

    memset(&v, 0, sizeof(v));
    v.match_id = "m0";
    v.game = "yahchain";
    v.seq = seq;
    v.bytes = bytes;
    v.len = len;
    return arb_store_append_batch(s, &v, 1, NULL);
}

/* The events of m0 at the next open (the main thread, nothing slowed). */
static uint64_t
count_at_open(const char *dir)
{
    arb_store_t      *s = NULL;
    arb_match_info_t  m;
    arb_buf_t         why = ARB_BUF_INIT;
    uint64_t          n = 0;

    if (arb_store_open(&s, dir, NULL, &why) != 0)
        fprintf(stderr, "  reopen %s: %s\n", dir, arb_buf_cstr(&why));
    else if (arb_store_match(s, "m0", &m, NULL) == 0)
        n = m.count;
    arb_store_close(s);
    arb_buf_free(&why);
    return n;
}

static uint64_t
laps(arb_store_t *s)
{
    arb_store_stats_t st;

    return arb_store_stats(s, &st, NULL) == 0 ? st.journal_laps : 0;
}

/* A clean stop while the thread's checkpoint flushes. */
static void
test_finish_race(void)
{
    const char        *dir = subdir("finish");
    arb_store_t       *s = NULL;
    arb_journal_t     *j = NULL;
    arb_journal_ckpt_t ck;
    int                have = 0, n;

    CHECK_INT(arb_store_open(&s, dir, NULL, NULL), 0);
    if (s == NULL)
        return;
    n = slow_entered;
    slow_sync_ms = 300;
    CHECK_INT(append(s, 0, "event 0", 7), 0);
    wait_slow_flush(n);         /* the thread is inside its slow flush */
    CHECK_INT(append(s, 1, "event 1", 7), 0);
    CHECK_INT(arb_store_finish(s, NULL), 0);
    arb_store_close(s);         /* joins the thread, after its flush */
    slow_sync_ms = 0;
    CHECK_INT(arb_journal_open(&j, dir, 0, NULL, NULL), 0);
    if (j != NULL) {
        CHECK_INT(arb_journal_recover(j, &have, &ck, NULL, NULL, NULL), 0);
        CHECK(have && ck.clean && ck.last == 2);
        arb_journal_close(j);
    }
    CHECK_INT(count_at_open(dir), 2);
}

/* After the thread's flush failed: it was the one flush of the log that
 * failed, and none followed, not even at the close; s closed and the
 * slowing and failing undone. */
static void
closed_unflushed(arb_store_t *s)
{
    CHECK_INT(sync_failed, 1);
    CHECK_INT(resyncs, 0);
    arb_store_close(s);
    CHECK_INT(resyncs, 0);
    slow_sync_ms = 0;
    fail_sync = 0;
    sync_failed = 0;
    resyncs = 0;
}

/* A clean stop while the thread's checkpoint flush fails: the stop fails
 * too, and the file is not flushed again (until 2026-12-05 the closing
 * checkpoint flushed it a second time, succeeded, and the daemon exited
 * 0 on a failed fsync). */
static void
test_finish_failed_flush(void)
{
    const char  *dir = subdir("finish-failed");
    arb_store_t *s = NULL;
    int          n;

    CHECK_INT(arb_store_open(&s, dir, NULL, NULL), 0);
    if (s == NULL)
        return;
    n = slow_entered;
    slow_sync_ms = 300;
    fail_sync = 1;
    CHECK_INT(append(s, 0, "event 0", 7), 0);
    wait_slow_flush(n);         /* the thread is inside its failing flush */
    CHECK(arb_store_finish(s, NULL) != 0);
    closed_unflushed(s);
}

/* An append that begins a lap while the thread's checkpoint flush fails:
 * the lap's checkpoint waits for that flush and, once it has failed,
 * does not flush the file again (nobody knows what reached the disk)
 * and fails the append.  Its flush is the main thread's, not slowed nor
 * failed here: taken, it would succeed.  (No test failed when the mark
 * of a failed flush was never set: the clean stop above is refused by
 * the state the thread sets first.) */
static void
test_lap_failed_flush(void)
{
    const char  *dir = subdir("lap-failed");
    arb_store_t *s = NULL;
    arb_append_t v;
    arb_buf_t    why = ARB_BUF_INIT;
    uint64_t     seq = 0, l0, max0 = arb__journal_max;
    int          rc = 0, i, n;

    arb__journal_max = (uint64_t)256 << 10;     /* a 256 KiB lap */
    CHECK_INT(arb_store_open(&s, dir, NULL, NULL), 0);
    if (s == NULL) {
        arb__journal_max = max0;
        return;
    }
    n = slow_entered;
    CHECK_INT(append(s, seq++, big, sizeof(big)), 0);
    slow_sync_ms = 1000;
    fail_sync = 1;
    wait_slow_flush(n);         /* the thread is inside its failing flush */
    l0 = laps(s);
    for (i = 0; i < 10000 && rc == 0; i++) {
        memset(&v, 0, sizeof(v));
        v.match_id = "m0";
        v.game = "yahchain";
        v.seq = seq++;
        v.bytes = big;
        v.len = sizeof(big);
        rc = arb_store_append_batch(s, &v, 1, &why);
    }
    CHECK(rc != 0);
    CHECK(laps(s) == l0);       /* the lap was not begun */
    CHECK(strstr(arb_buf_cstr(&why) ? arb_buf_cstr(&why) : "",
                 "an earlier flush of the log failed") != NULL);
    closed_unflushed(s);
    arb__journal_max = max0;
    arb_buf_free(&why);
}

/* A writer in a child that reports each acknowledged seq through wfd
 * and _exits with its handle open, as after kill -9. */
typedef void child_fn(const char *dir, int wfd);

static void
ack(int wfd, uint64_t seq)
{
    if (write(wfd, &seq, 8) != 8)
        _exit(4);
}

/* Runs fn in a child; returns how many events it acknowledged. */
static uint64_t
run_writer(const char *dir, child_fn *fn)
{
    uint64_t seq, acked = 0;
    int      p[2], st = 0;
    pid_t    pid;

    if (pipe(p) != 0) {
        CHECK(!"pipe");
        return 0;
    }
    pid = fork();
    if (pid == 0) {
        close(p[0]);
        main_tid = (pid_t)syscall(SYS_gettid);
        fn(dir, p[1]);
        _exit(0);
    }
    close(p[1]);
    while (read(p[0], &seq, 8) == 8)
        acked = seq;
    close(p[0]);
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    return acked;
}

/* An append begins a lap while the thread's checkpoint flushes. */
static void
lap_writer(const char *dir, int wfd)
{
    arb_store_t *s = NULL;
    uint64_t     seq = 0, l0;
    int          i, n;

    arb__journal_max = (uint64_t)256 << 10;     /* a 256 KiB lap */
    if (arb_store_open(&s, dir, NULL, NULL) != 0)
        _exit(2);
    n = slow_entered;
    if (append(s, seq++, big, sizeof(big)) != 0)
        _exit(3);
    ack(wfd, seq);
    slow_sync_ms = 1000;
    wait_slow_flush(n);         /* the thread's checkpoint flushes */
    l0 = laps(s);
    while (laps(s) == l0) {     /* filled: an append begins a lap */
        if (append(s, seq++, big, sizeof(big)) != 0)
            _exit(3);
        ack(wfd, seq);
    }
    usleep(1500 * 1000);        /* the thread's flush returns */
    for (i = 0; i < 3; i++) {
        if (append(s, seq++, big, sizeof(big)) != 0)
            _exit(3);
        ack(wfd, seq);
    }
}

static void
test_lap_race(void)
{
    const char *dir = subdir("lap");
    uint64_t    acked = run_writer(dir, lap_writer);

    CHECK(acked > 60);
    CHECK_INT(count_at_open(dir), acked);
}

/* Appends outrun a growth the thread planned, whose zeros come late. */
static void
grow_writer(const char *dir, int wfd)
{
    arb_store_t *s = NULL;
    uint64_t     seq = 0;
    int          i;

    if (arb_store_open(&s, dir, NULL, NULL) != 0)
        _exit(2);
    slow_zero_ms = 300;
    for (i = 0; i < 150; i++) {
        if (append(s, seq++, big, sizeof(big)) != 0)
            _exit(3);
        ack(wfd, seq);
        usleep(2000);
    }
    usleep(400 * 1000);
}

static void
test_grow_race(void)
{
    const char *dir = subdir("grow");
    uint64_t    acked = run_writer(dir, grow_writer);

    CHECK_INT(acked, 150);
    CHECK_INT(count_at_open(dir), acked);
}

/* The journal alone: a fill that fails fails the append that needed it,
 * and an older checkpoint is refused. */
typedef struct filler {
    arb_journal_t *j;
    int            f, rc;
    uint64_t       from, to;
} filler_t;

static void *
fill_main(void *arg)
{
    filler_t *fl = arg;

    usleep(100 * 1000);
    fl->rc = arb_journal_grow_fill(fl->j, fl->f, fl->from, fl->to, NULL);
    return NULL;
}

static void
test_journal_fill(void)
{
    const char        *dir = subdir("fill");
    arb_journal_t     *j = NULL;
    arb_journal_ckpt_t ck;
    filler_t           fl;
    pthread_t          th;
    char               payload[1000];
    uint64_t           pos = 1;
    int                rc = 0;

    memset(payload, 'p', sizeof(payload));
    CHECK_INT(arb_journal_open(&j, dir, 1, NULL, NULL), 0);
    if (j == NULL)
        return;
    memset(&ck, 0, sizeof(ck));
    ck.txnid = 5;
    ck.last = 0;
    CHECK_INT(arb_journal_checkpoint(j, &ck, 1, NULL), 0);
    memset(&fl, 0, sizeof(fl));
    fl.j = j;
    while (!arb_journal_grow_plan(j, &fl.f, &fl.from, &fl.to))
        CHECK_INT(arb_journal_append(j, pos++, 1, payload, sizeof(payload),
                                     NULL), 0);
    fail_zeros = 1;
    pthread_create(&th, NULL, fill_main, &fl);
    /* Up to the planned range, then past it: that append waits for the
     * fill and fails with it, never acknowledged. */
    while (arb_journal_lap_bytes(j) + 2000 < fl.to && rc == 0)
        rc = arb_journal_append(j, pos++, 1, payload, sizeof(payload), NULL);
    pthread_join(th, NULL);
    fail_zeros = 0;
    CHECK(rc != 0);
    CHECK(fl.rc != 0);
    arb_journal_grow_done(j, fl.f, fl.from, fl.to, fl.rc);
    CHECK(arb_journal_append(j, pos, 1, payload, sizeof(payload), NULL) != 0);
    arb_journal_close(j);

    /* The same fill, failed before the writer needs its range: the
     * append that does is refused all the same (until 2026-12-05 it grew
     * the file itself and flushed it again after the failed flush; the
     * check above, which races the fill, failed so on a loaded machine). */
    j = NULL;
    CHECK_INT(arb_journal_open(&j, subdir("fill-first"), 1, NULL, NULL), 0);
    if (j == NULL)
        return;
    memset(&ck, 0, sizeof(ck));
    ck.txnid = 5;
    CHECK_INT(arb_journal_checkpoint(j, &ck, 1, NULL), 0);
    memset(&fl, 0, sizeof(fl));
    fl.j = j;
    pos = 1;
    while (!arb_journal_grow_plan(j, &fl.f, &fl.from, &fl.to))
        CHECK_INT(arb_journal_append(j, pos++, 1, payload, sizeof(payload),
                                     NULL), 0);
    fail_zeros = 1;
    pthread_create(&th, NULL, fill_main, &fl);
    pthread_join(th, NULL);
    fail_zeros = 0;
    CHECK(fl.rc != 0);
    rc = 0;
    while (arb_journal_lap_bytes(j) + 2000 < fl.to && rc == 0)
        rc = arb_journal_append(j, pos++, 1, payload, sizeof(payload), NULL);
    CHECK(rc != 0);
    arb_journal_grow_done(j, fl.f, fl.from, fl.to, fl.rc);
    arb_journal_close(j);

    /* An older checkpoint after a newer one. */
    j = NULL;
    CHECK_INT(arb_journal_open(&j, subdir("older"), 1, NULL, NULL), 0);
    if (j == NULL)
        return;
    memset(&ck, 0, sizeof(ck));
    ck.txnid = 9;
    ck.last = 4;
    CHECK_INT(arb_journal_checkpoint(j, &ck, 1, NULL), 0);
    ck.txnid = 8;
    CHECK_INT(arb_journal_checkpoint(j, &ck, 0, NULL), ARB_EINVAL);
    ck.txnid = 9;
    ck.last = 3;
    CHECK_INT(arb_journal_checkpoint(j, &ck, 1, NULL), ARB_EINVAL);
    ck.last = 4;
    CHECK_INT(arb_journal_checkpoint(j, &ck, 0, NULL), 0);
    arb_journal_close(j);
}

/* A reader in another process outlives the writer: the next writer must
 * not recover under it (LMDB would go on from the dead writer's
 * transaction numbers, and the meta pages would change under the
 * reader), and says who holds it; once the reader is gone it recovers
 * everything. */
static void
test_reader_alive(void)
{
    const char      *dir = subdir("reader");
    arb_store_t     *s = NULL;
    arb_store_opts_t ro = { 0, 0, 1, 0 };
    arb_buf_t        why = ARB_BUF_INIT;
    char             c = 0, want[64];
    int              w2m[2], m2w[2], r2m[2], st = 0;
    uint64_t         i;
    pid_t            wpid, rpid;

    if (pipe(w2m) != 0 || pipe(m2w) != 0 || pipe(r2m) != 0) {
        CHECK(!"pipe");
        return;
    }
    wpid = fork();
    if (wpid == 0) {
        main_tid = (pid_t)syscall(SYS_gettid);
        if (arb_store_open(&s, dir, NULL, NULL) != 0)
            _exit(2);
        for (i = 0; i < 40; i++) {
            if (append(s, i, "an event", 8) != 0)
                _exit(3);
            if (i == 9)
                usleep(120 * 1000);     /* a checkpoint in between */
        }
        (void)!write(w2m[1], "w", 1);
        (void)!read(m2w[0], &c, 1);
        _exit(0);                       /* as after kill -9 */
    }
    CHECK_INT(read(w2m[0], &c, 1), 1);
    rpid = fork();
    if (rpid == 0) {
        if (arb_store_open(&s, dir, &ro, NULL) != 0)
            _exit(2);
        (void)!write(r2m[1], "r", 1);
        pause();
        _exit(0);
    }
    CHECK_INT(read(r2m[0], &c, 1), 1);
    (void)!write(m2w[1], "x", 1);
    waitpid(wpid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK_INT(arb_store_open(&s, dir, NULL, &why), ARB_EAGAIN);
    arb_store_close(s);
    s = NULL;
    snprintf(want, sizeof(want), "process %ld still has it open",
             (long)rpid);
    CHECK(arb_buf_cstr(&why) != NULL && strstr(arb_buf_cstr(&why), want));
    kill(rpid, SIGKILL);
    waitpid(rpid, &st, 0);
    CHECK_INT(count_at_open(dir), 40);
    arb_buf_free(&why);
}

int
main(void)
{
    char cmd[600];

    main_tid = (pid_t)syscall(SYS_gettid);
    memset(big, 'x', sizeof(big));
    if (mkdtemp(root) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    test_finish_race();
    test_finish_failed_flush();
    test_lap_failed_flush();
    test_lap_race();
    test_grow_race();
    test_journal_fill();
    test_reader_alive();
    snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
    (void)!system(cmd);
    return TEST_END();
}
