/*
 * test_ioerr_load.c - I/O errors under steady load, aimed at one file of
 * the data directory at a time.
 *
 * The I/O-error loop (test_ioerr.c) fails every call of a short workload
 * in turn, but a short workload ends before the store's background
 * writers do much: the checkpoint thread that flushes the log's LMDB file
 * (data.mdb) and the writer of the derived index (index.mdb) write every
 * few milliseconds and once a second.  Their failures reach the daemon
 * another way than a commit's own: a failed checkpoint leaves the store
 * refusing writes (the next commit gets ARB_ESTORE), a failed index write
 * is a flag the commit path reads.  Both must stop the daemon like any
 * failed write (status 70), at once: nothing more is written to the log
 * and nothing more acknowledged, not after a timer's tick.
 *
 * For each target (file, class), a first run counts the calls a start
 * makes there (S); then, for N = S + 1 and S + 4, the Nth such call on
 * that file fails (tests/crash/iosim.c, ARB_IOSIM_FAIL=CLASS:N:EIO:FILE)
 * while two connections append as fast as they can: a failure under
 * load (test_ioerr fails every call of a start-up).  Then:
 *   - the daemon stops with status 70 within 5 s, having answered no
 *     request `internal` (a store that refuses writes stops the daemon);
 *   - after the failed call the journal takes at most MAX_AFTER more
 *     writes and syncs: the commits already in flight, no more;
 *   - no file whose fsync failed is synced again;
 *   - a healthy restart settles every request in doubt and the store holds
 *     every acknowledged event (load_settle).
 * A run in which the Nth call never came (the load ran LOAD_MS) ends on
 * SIGTERM, cleanly or, when the stop's own writes met the failure, with 70.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/crash/disk.h"
#include "tests/crash/load.h"
#include "tests/test.h"

#define NCLIENTS  2
#define FAILSTOP  70
#define LOAD_MS   2500
/* Journal writes and flushes after a background write failed: those of
 * the commits in flight, or begun before the writer had flagged its
 * failure (it does when LMDB returns): 2 to 6 here, on an ASan build
 * too.  A daemon that goes on until its storage timer notices (once a
 * second) makes hundreds to thousands. */
#define MAX_AFTER 32

typedef struct target {
    const char *file, *cls;
    unsigned    pace_us;        /* a pause before each request */
    const char *why[2];         /* the fail-stop's reason, when it is
                                   sure: it begins with one of these */
} target_t;

/* The log's LMDB file is flushed by a checkpoint, which the checkpoint
 * thread takes every 50 ms and a commit takes when the journal's lap is
 * full: at a steady pace (2 x 500 requests/s) the lap fills in about a
 * second, so the thread's is the one that fails. */
static const target_t targets[] = {
    { "data.mdb", "sync", 2000, { NULL } }, /* the checkpoint thread's */
    { "data.mdb", "sync", 0, { NULL } },    /* and, flooded, a commit's */
    { "index.mdb", "msync", 0,              /* the index writer: a commit
                                               or the storage timer see
                                               it, or the stop's wait */
      { "index writer stopped: ", "the index stopped: " } },
    { "wal.", "write", 0, { NULL } },       /* a commit's own write */
};

static const char *const classes[IOSIM_NCLASS] = {
    "write", "sync", "msync", "open", "mmap"
};

static char journal[200], pristine[200];

typedef struct figures {
    uint64_t runs, injected, failstops, at_start, after_max, acked;
} figures_t;

/* The daemon's fail-stop names what failed and nothing else: its log
 * says it exits after a failed commit, and, when t->why is set, a line
 * gives one of those reasons as a message of its own, after a space: the
 * storage timer's "REASON: stopping", a commit's "commit failed (ERROR:
 * REASON)", the stop's own "REASON".  Until 2026-12-07 an index writer's
 * failure came glued to the text of a lookup that had found nothing in a
 * commit that had succeeded ("match \"c1-9\" not foundindex writer
 * stopped: ...").  0, or -1 reported. */
static int
failstop_reason(const target_t *t, const char *what)
{
    FILE       *f = fopen(load_log, "r");
    char        line[2048];
    const char *p;
    int         exits = 0, reasons = 0, rc = 0, k;

    while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
        exits += strstr(line, "exiting after a failed commit") != NULL;
        for (k = 0; k < 2 && t->why[k] != NULL; k++) {
            if ((p = strstr(line, t->why[k])) == NULL)
                continue;
            if (p > line && p[-1] == ' ') {
                reasons++;
            } else {
                fprintf(stderr, "%s: the reason '%s' comes glued to other "
                        "text: %s", what, t->why[k], line);
                rc = -1;
            }
        }
    }
    if (f != NULL)
        fclose(f);
    if (exits == 0 || (t->why[0] != NULL && reasons == 0)) {
        fprintf(stderr, "%s: the daemon's log says no %s\n", what,
                exits == 0 ? "fail-stop" : "reason");
        load_show_log();
        rc = -1;
    }
    return rc;
}

/* Starts the daemon under the shim, with fail, on a fresh copy of the
 * pristine directory and an empty log.  0 or -1. */
static int
start_on_copy(const char *fail, load_iosim_t *sim)
{
    disk_rm_rf(load_data);
    unlink(journal);
    unlink(load_log);
    if (disk_copy_dir(pristine, load_data) != 0)
        return -1;
    if (load_iosim_env(sim, journal, fail) != 0 || load_start(sim->env) != 0)
        return -1;
    return 0;
}

/* The calls of t's class on t's file a start makes, up to listening and
 * a moment of idleness after it, into *n.  0 or -1. */
static int
calls_at_start(const target_t *t, uint64_t *n)
{
    disk_journal_info_t ji;
    load_iosim_t        sim;
    char                fail[100];
    int                 c, st, rc = -1;

    snprintf(fail, sizeof(fail), "ARB_IOSIM_FAIL=%s:999999999:EIO:%s",
             t->cls, t->file);
    if (start_on_copy(fail, &sim) != 0)
        return -1;
    if (load_wait_ready(&st) == 0) {
        usleep(300 * 1000);
        rc = disk_journal_scan(journal, &ji);
    }
    load_stop(SIGTERM, 10000);
    for (c = 0; c < IOSIM_NCLASS; c++)
        if (strcmp(classes[c], t->cls) == 0 && rc == 0) {
            *n = ji.counts[c];
            return 0;
        }
    return -1;
}

/* One run; 1 when the call failed under load, 2 when it failed during
 * start-up, 0 when it never came, -1 on a broken promise (reported). */
static int
run_one(const target_t *t, uint64_t n, figures_t *f)
{
    static load_client_t cl[NCLIENTS];
    disk_journal_info_t  ji;
    load_verdict_t       v;
    load_iosim_t         sim;
    char                 e_fail[100], what[120];
    uint64_t             after = 0, internal = 0;
    int                  i, st = 0, ready, rc = -1;

    snprintf(what, sizeof(what), "%s #%llu of %s", t->cls,
             (unsigned long long)n, t->file);
    memset(cl, 0, sizeof(cl));
    for (i = 0; i < NCLIENTS; i++) {
        cl[i].idx = i;
        cl[i].pace_us = t->pace_us;
    }
    snprintf(e_fail, sizeof(e_fail), "ARB_IOSIM_FAIL=%s:%llu:EIO:%s",
             t->cls, (unsigned long long)n, t->file);
    if (start_on_copy(e_fail, &sim) != 0)
        return -1;
    f->runs++;
    ready = load_wait_ready(&st) == 0;
    if (ready) {
        load_round_start(cl, NCLIENTS);
        /* The load runs until the daemon is gone or LOAD_MS pass; one
         * that is still there then and has met its failure must be gone
         * within 5 s more, by itself. */
        if (load_wait_exit(LOAD_MS, &st) != 0) {
            if (disk_journal_scan(journal, &ji) == 0 && ji.failed > 0)
                st = load_stop(0, 5000);
            else
                st = -2;
        }
        for (i = 0; i < NCLIENTS; i++)
            cl[i].stop = 1;
        load_round_join(cl, NCLIENTS);
        if (st == -2)
            st = load_stop(SIGTERM, 10000);
    }
    if (disk_journal_scan(journal, &ji) != 0) {
        fprintf(stderr, "%s: journal unreadable\n", what);
        goto out;
    }
    if (ji.resyncs != 0) {
        fprintf(stderr, "%s: a file whose fsync failed was synced again "
                "(%llu times)\n", what, (unsigned long long)ji.resyncs);
        goto out;
    }
    if (ji.failed == 0) {
        if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "%s: nothing failed, but arbiterd did not stop "
                    "cleanly (status 0x%x)\n", what, st);
            goto out;
        }
        rc = 0;
        goto out;
    }
    f->injected++;
    if (!ready) {
        f->at_start++;
        if (!WIFEXITED(st) || WEXITSTATUS(st) == 0) {
            fprintf(stderr, "%s during start-up: arbiterd ended with "
                    "status 0x%x, not a failed start\n", what, st);
            goto out;
        }
        rc = 2;
        goto out;
    }
    if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != FAILSTOP) {
        fprintf(stderr, "%s: arbiterd did not stop with %d within 5 s "
                "(status 0x%x)\n", what, FAILSTOP, st);
        load_show_log();
        goto out;
    }
    f->failstops++;
    if (failstop_reason(t, what) != 0)
        goto out;
    /* A daemon whose store stopped taking writes must stop too, not answer
     * every append `internal` until something else notices. */
    for (i = 0; i < NCLIENTS; i++)
        internal += cl[i].internal;
    if (internal != 0) {
        fprintf(stderr, "%s: %llu requests were answered internal instead "
                "of a fail-stop\n", what, (unsigned long long)internal);
        goto out;
    }
    if (disk_journal_after(journal, "wal.", &after) != 0) {
        fprintf(stderr, "%s: journal unreadable\n", what);
        goto out;
    }
    if (after > f->after_max)
        f->after_max = after;
    if (after > MAX_AFTER) {
        fprintf(stderr, "%s: the daemon went on committing after the "
                "failure: %llu writes and syncs of its journal, at most %d "
                "expected\n", what, (unsigned long long)after, MAX_AFTER);
        goto out;
    }
    printf("test_ioerr_load: %s failed under load: fail-stop, %llu "
           "writes and syncs of the journal after it\n", what,
           (unsigned long long)after);
    rc = 1;
out:
    load_kill();
    if (rc >= 0) {
        if (load_settle(cl, NCLIENTS, &v) != 0) {
            fprintf(stderr, "%s: after a healthy restart: %llu acknowledged "
                    "events lost, %llu stored unacknowledged, %llu hash "
                    "mismatches, chains %s\n", what,
                    (unsigned long long)v.lost, (unsigned long long)v.unacked,
                    (unsigned long long)v.badhash,
                    v.verify_failed ? "BROKEN" : "intact");
            rc = -1;
        } else {
            f->acked += v.acked;
        }
    }
    load_clients_free(cl, NCLIENTS);
    return rc;
}

int
main(void)
{
    figures_t f;
    size_t    k;
    int       rc;

    if (access(LOAD_DAEMON, X_OK) != 0) {
        printf("test_ioerr_load: %s is not built; skipped (run from the "
               "repository root after make)\n", LOAD_DAEMON);
        return TEST_END();
    }
    memset(&f, 0, sizeof(f));
    if (load_init("arbioload") != 0) {
        CHECK(0);
        return TEST_END();
    }
    alarm(600);
    snprintf(pristine, sizeof(pristine), "%s/pristine", load_base);
    snprintf(journal, sizeof(journal), "%s/journal", load_base);
    {
        load_iosim_t sim;
        if (load_iosim_env(&sim, journal, NULL) != 0) {
            printf("test_ioerr_load: the I/O shim is not built; skipped\n");
            return TEST_END();
        }
    }
    rc = load_fresh_dir() == 0 ? disk_copy_dir(load_data, pristine) : -1;
    CHECK_INT(rc, 0);
    if (rc != 0)
        return TEST_END();
    for (k = 0; k < sizeof(targets) / sizeof(targets[0]); k++) {
        static const uint64_t past[] = { 1, 4 };
        const target_t *t = &targets[k];
        uint64_t        s0 = 0;
        size_t          j;
        int             hits = 0;

        rc = calls_at_start(t, &s0);
        CHECK_INT(rc, 0);
        for (j = 0; rc == 0 && j < sizeof(past) / sizeof(past[0]); j++) {
            rc = run_one(t, s0 + past[j], &f);
            CHECK(rc >= 0);
            hits += rc == 1;
            rc = rc < 0 ? -1 : 0;
        }
        /* A target whose failure never came under load tested nothing. */
        if (rc == 0 && hits == 0)
            fprintf(stderr, "%s of %s: never failed under load (a start "
                    "makes %llu such calls)\n", t->cls, t->file,
                    (unsigned long long)s0);
        CHECK(hits > 0);
    }
    CHECK(f.failstops > 0 && f.acked > 0);
    printf("test_ioerr_load: %llu runs, %llu with a failed call (%llu at "
           "start-up), %llu fail-stops with status %d, at most %llu writes "
           "and syncs after a failure; %llu acknowledged events all "
           "recovered on a healthy restart\n", (unsigned long long)f.runs,
           (unsigned long long)f.injected, (unsigned long long)f.at_start,
           (unsigned long long)f.failstops, FAILSTOP,
           (unsigned long long)f.after_max, (unsigned long long)f.acked);
    return TEST_END();
}
