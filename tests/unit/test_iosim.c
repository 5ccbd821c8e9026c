/*
 * test_iosim.c - the fault tests' own instruments, tested: the I/O shim
 * (tests/crash/iosim.c) and the power-cut rebuild (tests/crash/disk.c).
 *
 * The test runs itself again as a child under the shim ("child MODE DIR")
 * doing known I/O, then checks what the journal and the rebuild make of it:
 *   - a sync retried after a failed one is journalled, one not retried is
 *     not (what test_ioerr's "no fsync retried" rests on);
 *   - after the cut, synced and O_DSYNC writes are always on the rebuilt
 *     disk, an unsynced write is dropped, kept or torn, each 512-byte
 *     sector whole or not at all, never anything else;
 *   - a file written behind the shim's back makes the rebuild fail.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/crash/disk.h"
#include "tests/test.h"

static char base[64], dir[128], durable[128], journal[128], out[128];
static char iosim[256];

/* ---- the child, under the shim ---------------------------------------- */

static int
child(const char *mode, const char *d)
{
    char   p[256], buf[1536];
    int    fd, fd2;
    FILE  *f;

    snprintf(p, sizeof(p), "%s/f", d);
    if (strcmp(mode, "resync") == 0 || strcmp(mode, "once") == 0) {
        fd = open(p, O_WRONLY | O_CREAT, 0600);
        if (fd < 0 || write(fd, "x", 1) != 1)
            return 2;
        if (fsync(fd) == 0)         /* the shim fails the first one */
            return 3;
        if (strcmp(mode, "resync") == 0)
            (void)fsync(fd);
        return 0;
    }
    if (strcmp(mode, "cut") == 0) {
        fd = open(p, O_RDWR | O_CREAT, 0600);
        fd2 = open(p, O_WRONLY | O_DSYNC);
        if (fd < 0 || fd2 < 0)
            return 2;
        memset(buf, 'A', sizeof(buf));
        if (pwrite(fd, buf, 1536, 0) != 1536 || fdatasync(fd) != 0)
            return 2;
        memset(buf, 'B', sizeof(buf));
        if (pwrite(fd, buf, 1024, 256) != 1024)     /* 3 sectors, unsynced */
            return 2;
        memset(buf, 'C', sizeof(buf));
        if (pwrite(fd2, buf, 512, 2048) != 512)     /* O_DSYNC: durable */
            return 2;
        (void)pwrite(fd, buf, 1, 0);                /* the cut comes first */
        return 4;
    }
    if (strcmp(mode, "stdio") == 0) {
        f = fopen(p, "w");
        if (f == NULL)
            return 2;
        fputs("behind the shim's back\n", f);
        fclose(f);
        fd = open(p, O_WRONLY);
        (void)pwrite(fd, "y", 1, 0);                /* the cut */
        return 4;
    }
    return 2;
}

/* ---- the parent -------------------------------------------------------- */

/* Runs the child MODE on dir under the shim; its wait status. */
static int
run_child(const char *self, const char *mode, const char *fail,
          const char *kill_at)
{
    char  e1[300], e2[300], e3[300], e4[64];
    pid_t pid;
    int   st = -1;

    unlink(journal);
    pid = fork();
    if (pid == 0) {
        snprintf(e1, sizeof(e1), "LD_PRELOAD=%s", iosim);
        snprintf(e2, sizeof(e2), "ARB_IOSIM_DIR=%s", dir);
        snprintf(e3, sizeof(e3), "ARB_IOSIM_JOURNAL=%s", journal);
        putenv(e1);
        putenv(e2);
        putenv(e3);
        if (fail != NULL) {
            snprintf(e4, sizeof(e4), "ARB_IOSIM_FAIL=%s", fail);
            putenv(e4);
        }
        if (kill_at != NULL) {
            snprintf(e4, sizeof(e4), "ARB_IOSIM_KILL=%s", kill_at);
            putenv(e4);
        }
        putenv("ASAN_OPTIONS=verify_asan_link_order=0");
        execl(self, self, "child", mode, dir, (char *)NULL);
        _exit(127);
    }
    if (pid > 0)
        waitpid(pid, &st, 0);
    return st;
}

static void
fresh(void)
{
    disk_rm_rf(dir);
    disk_rm_rf(durable);
    mkdir(dir, 0700);
    disk_copy_dir(dir, durable);
}

static void
test_resync(const char *self)
{
    disk_journal_info_t ji;
    int                 st;

    fresh();
    st = run_child(self, "resync", "sync:1:EIO", NULL);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK_INT(disk_journal_scan(journal, &ji), 0);
    CHECK_INT(ji.failed, 1);
    CHECK_INT(ji.failed_class, IOSIM_C_SYNC);
    CHECK_INT(ji.counts[IOSIM_C_SYNC], 2);
    CHECK_INT(ji.counts[IOSIM_C_WRITE], 1);
    CHECK_INT(ji.counts[IOSIM_C_OPEN], 1);
    CHECK_INT(ji.resyncs, 1);

    fresh();
    st = run_child(self, "once", "sync:1:ENOSPC", NULL);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK_INT(disk_journal_scan(journal, &ji), 0);
    CHECK_INT(ji.failed, 1);
    CHECK_INT(ji.resyncs, 0);
}

/* Each sector of [256, 1280) holds all 'A' or all 'B'; [2048, 2560) is
 * 'C'; the rest of [0, 1536) is 'A'.  Returns the number of 'B' sectors,
 * or -1 when the file is not one a disk could hold. */
static int
judge(const unsigned char *p, size_t n)
{
    static const size_t cuts[][2] = { { 256, 512 }, { 512, 1024 },
                                      { 1024, 1280 } };
    size_t i, k, b = 0;

    if (n != 2560)
        return -1;
    for (i = 0; i < 256; i++)
        if (p[i] != 'A' || p[1280 + i] != 'A')
            return -1;
    for (i = 2048; i < 2560; i++)
        if (p[i] != 'C')
            return -1;
    for (k = 0; k < 3; k++) {
        unsigned char c = p[cuts[k][0]];
        if (c != 'A' && c != 'B')
            return -1;
        for (i = cuts[k][0]; i < cuts[k][1]; i++)
            if (p[i] != c)
                return -1;
        b += c == 'B';
    }
    return (int)b;
}

static void
test_cut(const char *self)
{
    disk_journal_info_t ji;
    disk_stats_t        ds;
    char                why[512], p[256];
    unsigned            seed = 7, i;
    int                 st, seen[4] = { 0, 0, 0, 0 }, bad = 0, b;

    fresh();
    /* ops: write A, fdatasync, write B, write C, then the cut */
    st = run_child(self, "cut", NULL, "5");
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    CHECK_INT(disk_journal_scan(journal, &ji), 0);
    CHECK_INT(ji.killed, 1);
    for (i = 0; i < 64; i++) {
        FILE          *f;
        unsigned char  buf[4096];
        size_t         n;

        disk_rm_rf(out);
        CHECK_INT(disk_rebuild(durable, dir, journal, out, &seed, &ds, why,
                               sizeof(why)), 0);
        CHECK_INT(ds.synced, 2);        /* A (fdatasync) and C (O_DSYNC) */
        snprintf(p, sizeof(p), "%s/f", out);
        f = fopen(p, "rb");
        n = f != NULL ? fread(buf, 1, sizeof(buf), f) : 0;
        if (f != NULL)
            fclose(f);
        b = judge(buf, n);
        if (b < 0)
            bad++;
        else
            seen[b]++;
    }
    CHECK_INT(bad, 0);
    /* Over 64 draws: dropped (0 sectors of B), whole (3) and torn. */
    CHECK(seen[0] > 0 && seen[3] > 0 && seen[1] + seen[2] > 0);
}

static void
test_missed(const char *self)
{
    disk_stats_t ds;
    char         why[512];
    unsigned     seed = 1;
    int          st;

    fresh();
    st = run_child(self, "stdio", NULL, "1");
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    disk_rm_rf(out);
    CHECK_INT(disk_rebuild(durable, dir, journal, out, &seed, &ds, why,
                           sizeof(why)), -1);
    CHECK(strstr(why, "f: the journal does not account for what the "
                 "process wrote") != NULL);
}

int
main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "child") == 0)
        return child(argv[2], argv[3]);
    snprintf(iosim, sizeof(iosim), "%s/tests/iosim.so",
             getenv("BUILD") ? getenv("BUILD") : "build");
    if (access(iosim, R_OK) != 0) {
        printf("test_iosim: %s is not built; skipped\n", iosim);
        return TEST_END();
    }
    snprintf(base, sizeof(base), "/tmp/arbiosim.XXXXXX");
    if (mkdtemp(base) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(dir, sizeof(dir), "%s/d", base);
    snprintf(durable, sizeof(durable), "%s/durable", base);
    snprintf(journal, sizeof(journal), "%s/journal", base);
    snprintf(out, sizeof(out), "%s/out", base);
    test_resync(argv[0]);
    test_cut(argv[0]);
    test_missed(argv[0]);
    disk_rm_rf(base);
    return TEST_END();
}
