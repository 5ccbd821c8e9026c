/*
 * test_crash.c - kill -9 under load, repeatedly, and check that nothing
 * acknowledged is lost or duplicated.
 *
 * Runs bin/arbiterd (from the repository root; skipped when it is not
 * built) on a temporary data directory with the load client of
 * tests/crash/load.h.  Each round restarts the daemon on the same
 * directory, lets NCLIENTS connections load it, and SIGKILLs the daemon at
 * a random moment 50-300 ms in.  After the last kill a final round only
 * settles the requests still in doubt, then the daemon is stopped with
 * SIGTERM and the store is opened read-only to check that:
 *   - every acknowledged event is present once, at its acked seq, with its
 *     acked hash, and every stored event was acknowledged;
 *   - seqs are dense (no gap, no duplicate) and each event is the move its
 *     cid names, each cid appearing once per match;
 *   - arb_store_verify(store, NULL) finds every chain intact.
 * ARB_CRASH_SEED and ARB_CRASH_ROUNDS make a run reproducible / longer.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/crash/load.h"
#include "tests/test.h"

#define NCLIENTS 6

/* ---- main --------------------------------------------------------------- */

int
main(void)
{
    static load_client_t cl[NCLIENTS];
    load_verdict_t  v;
    const char     *env;
    unsigned        seed, rounds = 10, r, ms;
    uint64_t        kills = 0, sigkilled = 0, retried = 0, dup = 0;
    uint64_t        fresh = 0, open_exists = 0, errors = 0, doubt_max = 0;
    struct timespec t0, t1;
    int             i, st, rc;

    if (access(LOAD_DAEMON, X_OK) != 0) {
        printf("test_crash: %s is not built; skipped (run from the "
               "repository root after make)\n", LOAD_DAEMON);
        return TEST_END();
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    seed = (unsigned)time(NULL) ^ (unsigned)getpid();
    if ((env = getenv("ARB_CRASH_SEED")) != NULL && *env)
        seed = (unsigned)strtoul(env, NULL, 10);
    if ((env = getenv("ARB_CRASH_ROUNDS")) != NULL && *env)
        rounds = (unsigned)strtoul(env, NULL, 10);
    if (rounds < 1)
        rounds = 1;
    srand(seed);
    if (load_init("arbcrash") != 0) {
        CHECK(0);
        return TEST_END();
    }
    /* Long runs (make soak) get more time; a hang is still a failure. */
    alarm(180 + rounds);
    for (i = 0; i < NCLIENTS; i++)
        cl[i].idx = i;

    for (r = 0; r < rounds; r++) {
        rc = load_start(NULL);
        CHECK_INT(rc, 0);
        rc = rc == 0 ? load_wait_ready(&st) : -1;
        CHECK_INT(rc, 0);
        if (rc != 0) {
            load_show_log();
            break;
        }
        if (r == 0) {
            rc = load_read_token();
            CHECK_INT(rc, 0);
            if (rc != 0)
                break;
        }
        load_round_start(cl, NCLIENTS);
        ms = 50 + (unsigned)(rand() % 251);
        usleep(ms * 1000);
        kill(load_pid, SIGKILL);
        kills++;
        if (waitpid(load_pid, &st, 0) == load_pid && WIFSIGNALED(st)
            && WTERMSIG(st) == SIGKILL)
            sigkilled++;
        else
            fprintf(stderr, "round %u: arbiterd ended with status 0x%x "
                    "before the kill\n", r, st);
        load_pid = -1;
        load_round_join(cl, NCLIENTS);
    }
    CHECK_INT(sigkilled, kills);
    CHECK_INT(kills, rounds);
    for (i = 0; i < NCLIENTS; i++)
        if (cl[i].nq > doubt_max)
            doubt_max = cl[i].nq;
    /* A last round settles every doubt, stops cleanly, and the store must
     * hold exactly the acknowledged events. */
    CHECK_INT(load_settle(cl, NCLIENTS, &v), 0);
    for (i = 0; i < NCLIENTS; i++) {
        retried += cl[i].retried;
        dup += cl[i].dup;
        fresh += cl[i].fresh;
        open_exists += cl[i].open_exists;
        errors += cl[i].errors + cl[i].internal;
        if (cl[i].doubt_max > doubt_max)
            doubt_max = cl[i].doubt_max;
        CHECK_INT(cl[i].nq, 0);         /* nothing left in doubt */
    }
    CHECK_INT(errors, 0);
    if (errors != 0)
        load_show_log();
    CHECK(v.acked > 0);
    printf("test_crash: verified %llu acknowledged events in %llu matches "
           "(store: %llu events): lost %llu, hash mismatches %llu, never "
           "acked %llu, seq gaps/dups %llu, cid dups %llu; chains intact: "
           "%s\n", (unsigned long long)v.acked,
           (unsigned long long)v.matches, (unsigned long long)v.stored,
           (unsigned long long)v.lost, (unsigned long long)v.badhash,
           (unsigned long long)v.unacked, (unsigned long long)v.gaps,
           (unsigned long long)v.cid_dup, v.verify_failed ? "NO" : "yes");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("test_crash: seed %u, %u rounds of kill -9 under load, %d "
           "connections x %d in flight; %llu in-doubt requests retried: %llu "
           "answered dup (committed, ack lost), %llu appended fresh, %llu "
           "opens answered 'exists'; %.1f s\n", seed, rounds, NCLIENTS,
           LOAD_WINDOW, (unsigned long long)retried,
           (unsigned long long)dup, (unsigned long long)fresh,
           (unsigned long long)open_exists,
           (double)(t1.tv_sec - t0.tv_sec)
           + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    if (open_exists > 0)
        printf("test_crash: note: a retried open whose ack was lost is "
               "answered 'exists', not with its original seq 0 (op_open "
               "does not consult the idempotency index)\n");
    load_clients_free(cl, NCLIENTS);
    return TEST_END();
}
