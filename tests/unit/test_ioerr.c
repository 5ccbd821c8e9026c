/*
 * test_ioerr.c - the I/O-error loop, SQLite's way: for N = 1, 2, 3, ...
 * the Nth write, fsync, msync, open or mmap in the data directory fails,
 * with EIO and then with ENOSPC, over the same recorded workload, until a
 * run goes by without the Nth call.
 *
 * Each run starts bin/arbiterd with the I/O shim (tests/crash/iosim.c,
 * ARB_IOSIM_FAIL=CLASS:N:ERR) on a copy of one initialised directory and
 * runs the load client of tests/crash/load.h with a fixed budget of
 * requests.  Then:
 *   - a failure after the daemon listens stops it with the fail-stop
 *     status 70; one during start-up makes it exit non-zero before it
 *     listens; a run in which nothing failed ends cleanly on SIGTERM;
 *   - no file whose fsync failed is synced again (an fsync is never
 *     retried: the shim journals any such call);
 *   - a restart on a healthy disk (no shim) settles every request left in
 *     doubt, and the store then holds every acknowledged event, at its seq
 *     with its hash, every chain intact, nothing unacknowledged
 *     (load_verify, settled): nothing was acknowledged that did not commit.
 * ARB_IOERR_REQUESTS (per connection, default 6) sizes the workload.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/crash/disk.h"
#include "tests/crash/load.h"
#include "tests/test.h"

#define NCLIENTS 2
#define FAILSTOP 70

static const char *const classes[IOSIM_NCLASS] = {
    "write", "sync", "msync", "open", "mmap"
};

static char     pristine[200], journal[200];
static uint64_t budget = 6;

typedef struct figures {
    uint64_t runs, injected, at_start, failstops, acked, resyncs;
    uint64_t internal;      /* requests a failing daemon answered so */
    uint64_t calls[IOSIM_NCLASS];       /* most calls seen in a run */
} figures_t;

/* One run with the Nth call of class c failing with err; 1 when the
 * failure happened, 0 when the workload had fewer such calls, -1 on a
 * broken promise (reported). */
static int
run_one(int c, uint64_t n, const char *err, figures_t *f)
{
    static load_client_t cl[NCLIENTS];
    disk_journal_info_t  ji;
    load_verdict_t       v;
    load_iosim_t         sim;
    char                 e_fail[64];
    int                  i, st = 0, ready, rc = -1;

    memset(cl, 0, sizeof(cl));
    for (i = 0; i < NCLIENTS; i++) {
        cl[i].idx = i;
        cl[i].budget = budget;
    }
    disk_rm_rf(load_data);
    unlink(journal);
    if (disk_copy_dir(pristine, load_data) != 0)
        return -1;
    snprintf(e_fail, sizeof(e_fail), "ARB_IOSIM_FAIL=%s:%llu:%s",
             classes[c], (unsigned long long)n, err);
    if (load_iosim_env(&sim, journal, e_fail) != 0 || load_start(sim.env) != 0)
        return -1;
    ready = load_wait_ready(&st) == 0;
    if (ready) {
        load_round_start(cl, NCLIENTS);
        load_round_join(cl, NCLIENTS);
    }
    f->runs++;
    if (disk_journal_scan(journal, &ji) != 0) {
        fprintf(stderr, "%s #%llu %s: journal unreadable\n", classes[c],
                (unsigned long long)n, err);
        goto out;
    }
    if (ready && ji.failed == 0) {
        /* Nothing failed: the workload is done, the daemon idle.  The
         * stop writes too (the index is brought up to the log), so a
         * call failed there must end in the fail-stop status below. */
        st = load_stop(SIGTERM, 10000);
        if (disk_journal_scan(journal, &ji) != 0)
            goto out;
        if (ji.failed == 0
            && (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)) {
            fprintf(stderr, "%s #%llu %s: nothing failed, but arbiterd "
                    "did not stop cleanly (status 0x%x)\n", classes[c],
                    (unsigned long long)n, err, st);
            goto out;
        }
    } else if (ready) {
        st = load_stop(0, 5000);
    }
    for (i = 0; i < IOSIM_NCLASS; i++)
        if (ji.counts[i] > f->calls[i])
            f->calls[i] = ji.counts[i];
    f->resyncs += ji.resyncs;
    if (ji.resyncs != 0)
        fprintf(stderr, "%s #%llu %s: a file whose fsync failed was synced "
                "again (%llu times)\n", classes[c], (unsigned long long)n,
                err, (unsigned long long)ji.resyncs);
    if (ji.failed == 0) {
        /* The workload is done with this class. */
        rc = 0;
        goto out;
    }
    f->injected++;
    if (!ready) {
        f->at_start++;
        if (!WIFEXITED(st) || WEXITSTATUS(st) == 0) {
            fprintf(stderr, "%s #%llu %s during start-up: arbiterd ended "
                    "with status 0x%x, not a failed start\n", classes[c],
                    (unsigned long long)n, err, st);
            goto out;
        }
    } else if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != FAILSTOP) {
        fprintf(stderr, "%s #%llu %s: arbiterd did not stop with %d "
                "(status 0x%x)\n", classes[c], (unsigned long long)n, err,
                FAILSTOP, st);
        load_show_log();
        goto out;
    } else {
        f->failstops++;
    }
    rc = 1;
out:
    load_kill();
    if (rc >= 0 && ji.resyncs == 0) {
        if (load_settle(cl, NCLIENTS, &v) != 0) {
            fprintf(stderr, "%s #%llu %s: after a healthy restart: %llu "
                    "acknowledged events lost, %llu stored unacknowledged, "
                    "%llu hash mismatches, chains %s\n", classes[c],
                    (unsigned long long)n, err, (unsigned long long)v.lost,
                    (unsigned long long)v.unacked,
                    (unsigned long long)v.badhash,
                    v.verify_failed ? "BROKEN" : "intact");
            rc = -1;
        } else {
            f->acked += v.acked;
        }
    } else if (rc >= 0) {
        rc = -1;
    }
    for (i = 0; i < NCLIENTS; i++)
        f->internal += cl[i].internal;
    load_clients_free(cl, NCLIENTS);
    return rc;
}

int
main(void)
{
    static const char *const errs[] = { "EIO", "ENOSPC" };
    figures_t       f;
    const char     *env;
    struct timespec t0, t1;
    uint64_t        n;
    int             c, e, rc, broken = 0;

    if (access(LOAD_DAEMON, X_OK) != 0) {
        printf("test_ioerr: %s is not built; skipped (run from the "
               "repository root after make)\n", LOAD_DAEMON);
        return TEST_END();
    }
    if ((env = getenv("ARB_IOERR_REQUESTS")) != NULL && *env)
        budget = strtoull(env, NULL, 10);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(&f, 0, sizeof(f));
    if (load_init("arbioerr") != 0) {
        CHECK(0);
        return TEST_END();
    }
    alarm(300 + (unsigned)budget * 10);
    snprintf(pristine, sizeof(pristine), "%s/pristine", load_base);
    snprintf(journal, sizeof(journal), "%s/journal", load_base);
    {
        load_iosim_t sim;
        if (load_iosim_env(&sim, journal, NULL) != 0) {
            printf("test_ioerr: the I/O shim is not built; skipped\n");
            return TEST_END();
        }
    }
    /* One initialised directory, the start of every run. */
    rc = load_fresh_dir() == 0 ? disk_copy_dir(load_data, pristine) : -1;
    CHECK_INT(rc, 0);
    if (rc != 0)
        return TEST_END();
    for (e = 0; e < 2 && !broken; e++)
        for (c = 0; c < IOSIM_NCLASS && !broken; c++)
            for (n = 1;; n++) {
                rc = run_one(c, n, errs[e], &f);
                CHECK(rc >= 0);
                if (rc < 0)
                    broken = 1;
                if (rc <= 0)
                    break;
            }
    CHECK_INT(f.resyncs, 0);
    CHECK(f.injected > 0 && f.failstops > 0 && f.acked > 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("test_ioerr: %llu runs of %d connections x %llu requests, %llu "
           "with a failed call (write %llu, sync %llu, msync %llu, open "
           "%llu, mmap %llu calls in the workload, each failed in turn "
           "with EIO and ENOSPC): %llu fail-stops with status %d, %llu "
           "failed start-ups, 0 fsync retries, %llu requests answered "
           "'internal' by a failing daemon (retried); %llu acknowledged "
           "events all recovered on a healthy restart; %.1f s\n",
           (unsigned long long)f.runs, NCLIENTS,
           (unsigned long long)budget, (unsigned long long)f.injected,
           (unsigned long long)f.calls[IOSIM_C_WRITE],
           (unsigned long long)f.calls[IOSIM_C_SYNC],
           (unsigned long long)f.calls[IOSIM_C_MSYNC],
           (unsigned long long)f.calls[IOSIM_C_OPEN],
           (unsigned long long)f.calls[IOSIM_C_MMAP],
           (unsigned long long)f.failstops, FAILSTOP,
           (unsigned long long)f.at_start, (unsigned long long)f.internal,
           (unsigned long long)f.acked,
           (double)(t1.tv_sec - t0.tv_sec)
           + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    return TEST_END();
}
