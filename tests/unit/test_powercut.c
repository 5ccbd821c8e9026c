/*
 * test_powercut.c - power cuts under load: the data directory is rebuilt
 * as a disk might hold it, and nothing acknowledged may be lost.
 *
 * Each cycle runs bin/arbiterd with the I/O shim (tests/crash/iosim.c,
 * LD_PRELOAD) under the load client of tests/crash/load.h; the shim cuts
 * the power -- SIGKILL -- just before a random write or sync in the data
 * directory.  tests/crash/disk.c then rebuilds the directory from the
 * shim's journal: everything synced, plus a random subset of the unsynced
 * writes, each torn at 512-byte sector boundaries.  On that directory:
 *   - the store opens read-only, arb_store_verify finds every chain
 *     intact, and every acknowledged event is there at its seq with its
 *     hash (checked after every cut);
 *   - every page of both LMDB files is sound (arb_store_check_pages, the
 *     walk `arbiter check` starts with: a cut must never leave a page it
 *     would call damaged);
 *   - the next cycle's daemon starts on it, and its clients first settle
 *     what the cut left in doubt.
 * Every PER_DIR cycles a final round without the shim settles every doubt,
 * the daemon stops with SIGTERM, and the store must then hold exactly the
 * acknowledged events (load_verify, settled), before a fresh directory.
 * Nothing here knows the store's format: any file of the directory is
 * rebuilt the same way, and the rebuild fails when the shim missed a write.
 * Before the loop, cuts during a first start (first_starts): the tokens
 * file it makes is whole or absent on every rebuilt disk.
 * ARB_POWERCUT_CYCLES (default 12), ARB_POWERCUT_SEED.
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

#include "core/ledger/store.h"
#include "tests/crash/disk.h"
#include "tests/crash/load.h"
#include "tests/test.h"

#define NCLIENTS 4
#define PER_DIR  12         /* cycles on one directory before a fresh one */

static char durable[200], journal[200], rebuilt[200];

static void
page_problem(void *ud, const char *msg)
{
    fprintf(stderr, "cycle %u: %s\n", *(unsigned *)ud, msg);
}

/* The walk of `arbiter check`: no page a cut left is called damaged. */
static int
pages_sound(unsigned c)
{
    arb_store_pages_t pg;
    arb_buf_t         why = ARB_BUF_INIT;
    int               rc;

    rc = arb_store_check_pages(load_data, page_problem, NULL, &c, &pg, &why);
    if (rc != 0)
        fprintf(stderr, "cycle %u: page walk: %s\n", c, arb_buf_cstr(&why));
    arb_buf_free(&why);
    return rc != 0 ? rc : pg.problems != 0 ? -1 : 0;
}

/* The tokens a first start wrote into dir, after a cut: 0 when there is
 * no such file, the count of its `token = ` lines otherwise (3 whole). */
static int
tokens_in(const char *dir)
{
    char  path[300], line[300];
    FILE *f;
    int   n = 0;

    snprintf(path, sizeof(path), "%s/tokens", dir);
    if ((f = fopen(path, "r")) == NULL)
        return 0;
    while (fgets(line, sizeof(line), f) != NULL)
        n += strncmp(line, "token = ", 8) == 0 && strlen(line) > 60;
    fclose(f);
    return n == 0 ? -1 : n;
}

/* Power cuts during a first start: a run under the shim counts the
 * writes and syncs before the tokens file is opened (T); then a cut before
 * each of the K-th, K = T+1 .. T+FIRST_CUTS (the tokens' own write, flush
 * and name), and one after the daemon listened.  On
 * every rebuilt disk the tokens file is absent (made anew at the next
 * start: nobody was given one yet) or whole, never empty or cut; whole
 * when the daemon got to listen.  (Until 2026-12-06 it was written
 * without a flush: a cut left it empty, and the recorder ran with "nobody
 * can connect"; the main loop starts on a directory a healthy first start
 * made, and never saw it.) */
#define FIRST_CUTS 4

/* One first start on an empty load_data under the shim, cut before its
 * kill-th write or sync (0: killed 0.3 s after it listens); 1 when it
 * listened. */
static int
first_start(uint64_t kill)
{
    load_iosim_t sim;
    char         e_kill[64];
    int          st = 0, ready;

    disk_rm_rf(load_data);
    disk_rm_rf(durable);
    unlink(journal);
    CHECK_INT(mkdir(load_data, 0700), 0);
    CHECK_INT(disk_copy_dir(load_data, durable), 0);
    snprintf(e_kill, sizeof(e_kill), "ARB_IOSIM_KILL=%llu",
             (unsigned long long)kill);
    load_iosim_env(&sim, journal, kill > 0 ? e_kill : NULL);
    CHECK_INT(load_start(sim.env), 0);
    ready = load_wait_ready(&st) == 0;
    if (ready)
        (void)load_stop(kill > 0 ? 0 : SIGKILL, kill > 0 ? 300 : 0);
    return ready;
}

static void
first_starts(unsigned *dseed)
{
    disk_stats_t ds;
    char         why[512], prefix[200];
    uint64_t     t = 0, kills[FIRST_CUTS + 1];
    unsigned     i, ready_n = 0, absent = 0, whole = 0;
    int          rc, ready, n;

    snprintf(prefix, sizeof(prefix), "%s/tokens", load_data);
    CHECK_INT(first_start(0), 1);
    CHECK_INT(disk_journal_ops_before(journal, prefix, &t), 0);
    for (i = 0; i < FIRST_CUTS; i++)
        kills[i] = t + 1 + i;
    kills[FIRST_CUTS] = t + 400;        /* (past the start: idle) */
    for (i = 0; i < FIRST_CUTS + 1; i++) {
        ready = first_start(kills[i]);
        ready_n += ready;
        disk_rm_rf(rebuilt);
        rc = disk_rebuild(durable, load_data, journal, rebuilt, dseed, &ds,
                          why, sizeof(why));
        if (rc != 0)
            fprintf(stderr, "first start, cut %llu: rebuild: %s\n",
                    (unsigned long long)kills[i], why);
        CHECK_INT(rc, 0);
        n = tokens_in(rebuilt);
        absent += n == 0;
        whole += n == 3;
        if (n != 3 && (n != 0 || ready))
            fprintf(stderr, "first start, cut before op %llu (%s it "
                    "listened): the tokens file %s\n",
                    (unsigned long long)kills[i], ready ? "after" : "before",
                    n == 0 ? "is gone" : "holds no whole token");
        CHECK(n == 3 || (n == 0 && !ready));
    }
    printf("test_powercut: %u cuts in a first start, around its tokens "
           "(op %llu; %u after it listened): %u rebuilt disks with the "
           "tokens whole, %u without a tokens file\n", FIRST_CUTS + 1,
           (unsigned long long)t + 1, ready_n, whole, absent);
    disk_rm_rf(rebuilt);
}

/* Adds the clients' retry figures of one directory. */
static void
add_figures(const load_client_t *cl, uint64_t *retried, uint64_t *dup,
            uint64_t *fresh)
{
    int i;

    for (i = 0; i < NCLIENTS; i++) {
        CHECK_INT(cl[i].internal, 0);
        *retried += cl[i].retried;
        *dup += cl[i].dup;
        *fresh += cl[i].fresh;
    }
}

int
main(void)
{
    static load_client_t cl[NCLIENTS];
    load_verdict_t  v;
    disk_stats_t    ds, tot;
    const char     *env;
    unsigned        seed, cycles = 12, c, dseed;
    uint64_t        acked = 0, stored = 0, cuts = 0, early = 0, dirs = 0;
    uint64_t        retried = 0, fresh = 0, dupn = 0;
    char            why[512], e_kill[64];
    load_iosim_t    sim;
    struct timespec t0, t1;
    int             i, st, rc, ready;

    if (access(LOAD_DAEMON, X_OK) != 0) {
        printf("test_powercut: %s is not built; skipped (run from the "
               "repository root after make)\n", LOAD_DAEMON);
        return TEST_END();
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    seed = (unsigned)time(NULL) ^ (unsigned)getpid();
    if ((env = getenv("ARB_POWERCUT_SEED")) != NULL && *env)
        seed = (unsigned)strtoul(env, NULL, 10);
    if ((env = getenv("ARB_POWERCUT_CYCLES")) != NULL && *env)
        cycles = (unsigned)strtoul(env, NULL, 10);
    srand(seed);
    dseed = seed;
    memset(&tot, 0, sizeof(tot));
    if (load_init("arbpower") != 0) {
        CHECK(0);
        return TEST_END();
    }
    /* About 2 s a cut on a quiet machine: room for five times that. */
    alarm(120 + 10 * cycles);
    snprintf(durable, sizeof(durable), "%s/durable", load_base);
    snprintf(journal, sizeof(journal), "%s/journal", load_base);
    snprintf(rebuilt, sizeof(rebuilt), "%s/rebuilt", load_base);
    if (load_iosim_env(&sim, journal, NULL) != 0) {
        printf("test_powercut: the I/O shim is not built; skipped\n");
        return TEST_END();
    }

    first_starts(&dseed);
    for (c = 0; c < cycles; c++) {
        if (c % PER_DIR == 0) {
            if (c > 0) {
                rc = load_settle(cl, NCLIENTS, &v);
                CHECK_INT(rc, 0);
                if (rc != 0)
                    break;
                acked += v.acked;
                stored += v.stored;
            }
            add_figures(cl, &retried, &dupn, &fresh);
            load_clients_free(cl, NCLIENTS);
            memset(cl, 0, sizeof(cl));
            for (i = 0; i < NCLIENTS; i++)
                cl[i].idx = i;
            rc = load_fresh_dir();
            CHECK_INT(rc, 0);
            if (rc != 0)
                break;
            dirs++;
        }
        /* The disk before the cut: every file of it durable. */
        disk_rm_rf(durable);
        unlink(journal);
        CHECK_INT(disk_copy_dir(load_data, durable), 0);
        /* Mostly inside the load, sometimes during start-up. */
        snprintf(e_kill, sizeof(e_kill), "ARB_IOSIM_KILL=%u",
                 rand() % 8 == 0 ? 1 + rand() % 8 : 1 + rand() % 400);
        load_iosim_env(&sim, journal, e_kill);
        CHECK_INT(load_start(sim.env), 0);
        st = 0;
        ready = load_wait_ready(&st) == 0;
        if (ready) {
            load_round_start(cl, NCLIENTS);
            st = load_stop(0, 20000);   /* the shim cuts the power */
            load_round_join(cl, NCLIENTS);
        } else {
            early++;
        }
        CHECK(st != -1 && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
        if (st == -1 || !WIFSIGNALED(st)) {
            fprintf(stderr, "cycle %u: arbiterd ended with status 0x%x, "
                    "not by the power cut\n", c, st);
            load_show_log();
            break;
        }
        cuts++;
        /* The disk after it. */
        disk_rm_rf(rebuilt);
        rc = disk_rebuild(durable, load_data, journal, rebuilt, &dseed, &ds,
                          why, sizeof(why));
        if (rc != 0)
            fprintf(stderr, "cycle %u: rebuild: %s\n", c, why);
        CHECK_INT(rc, 0);
        if (rc != 0)
            break;
        tot.synced += ds.synced;
        tot.kept += ds.kept;
        tot.dropped += ds.dropped;
        tot.torn += ds.torn;
        disk_rm_rf(load_data);
        CHECK_INT(rename(rebuilt, load_data), 0);
        rc = load_verify(cl, NCLIENTS, 0, &v);
        if (rc != 0)
            fprintf(stderr, "cycle %u (seed %u): after the cut: %llu acked "
                    "lost, %llu hash mismatches, chains %s\n", c, seed,
                    (unsigned long long)v.lost,
                    (unsigned long long)v.badhash,
                    v.verify_failed ? "BROKEN" : "intact");
        CHECK_INT(rc, 0);
        if (rc != 0)
            break;
        CHECK_INT(pages_sound(c), 0);
    }
    if (c == cycles) {
        rc = load_settle(cl, NCLIENTS, &v);
        CHECK_INT(rc, 0);
        acked += v.acked;
        stored += v.stored;
    }
    add_figures(cl, &retried, &dupn, &fresh);
    CHECK(acked > 0);
    CHECK(tot.dropped + tot.torn > 0 || cycles < 4);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("test_powercut: seed %u, %llu power cuts (%llu during start-up) "
           "on %llu directories, %d connections x %d in flight: %llu "
           "acknowledged events kept of %llu stored, 0 lost; unsynced "
           "writes on the rebuilt disks: %llu kept, %llu dropped, %llu "
           "torn at sectors (%llu synced); %llu in-doubt retries (%llu dup, "
           "%llu fresh); %.1f s\n", seed, (unsigned long long)cuts,
           (unsigned long long)early, (unsigned long long)dirs, NCLIENTS,
           LOAD_WINDOW, (unsigned long long)acked,
           (unsigned long long)stored, (unsigned long long)tot.kept,
           (unsigned long long)tot.dropped, (unsigned long long)tot.torn,
           (unsigned long long)tot.synced, (unsigned long long)retried,
           (unsigned long long)dupn, (unsigned long long)fresh,
           (double)(t1.tv_sec - t0.tv_sec)
           + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    load_clients_free(cl, NCLIENTS);
    return TEST_END();
}
