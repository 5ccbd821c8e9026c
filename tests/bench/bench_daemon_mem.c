/*
 * bench_daemon_mem.c - arbiterd's memory as matches and events grow (run
 * by daemon_mem.bench.sh).
 *
 * Starts the real daemon on a temp data directory (tests/daemon_harness.h),
 * opens M YAHchain matches over one connection, then appends the bench
 * match's moves round-robin across them (one move of every match in turn,
 * requests pipelined W deep), and prints the daemon's resident set after
 * the opens, after 100,000 and after N appended events: VmRSS, and its
 * anonymous part (the daemon's own memory: live matches, queues, the
 * store's unindexed tail) apart from the file part (pages of the LMDB maps
 * mapped in the process).  The flatness targets compare the two figures
 * taken once the index writer has caught up (SETTLE seconds idle): just
 * after a burst its current step's pages are resident too, printed apart.
 * Prints PASS or MISSED for each target; never fails on one.
 *
 * usage: bench_daemon_mem [--matches M] [--events N]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/bench/bench.h"
#include "tests/daemon_harness.h"

#define WINDOW 512
#define SETTLE 5                /* s: the index writer's last step ends */

typedef struct mem {
    double rss, anon, file;     /* MiB */
} mem_t;

static mem_t
mem_of(pid_t pid)
{
    char          path[64], line[128];
    unsigned long kb;
    mem_t         m = { -1, -1, -1 };
    FILE         *f;

    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    f = fopen(path, "r");
    if (f == NULL)
        return m;
    while (fgets(line, sizeof(line), f) != NULL) {
        if (sscanf(line, "VmRSS: %lu kB", &kb) == 1)
            m.rss = kb / 1024.0;
        else if (sscanf(line, "RssAnon: %lu kB", &kb) == 1)
            m.anon = kb / 1024.0;
        else if (sscanf(line, "RssFile: %lu kB", &kb) == 1)
            m.file = kb / 1024.0;
    }
    fclose(f);
    return m;
}

static void
print_mem(const char *when, mem_t m)
{
    printf("  %-28s RSS %6.1f MiB (anonymous %6.1f, file %6.1f)\n", when,
           m.rss, m.anon, m.file);
}

static const char *
flat(double from, double to)
{
    return from > 0 && to <= 1.1 * from && to >= 0.9 * from ? "PASS"
                                                              : "MISSED";
}

static int outstanding;

/* Reads one answer; -1 (printed) when it is not ok. */
static int
answer(arb_client_t *cl)
{
    msgpack_unpacked res;
    arb_buf_t        why = ARB_BUF_INIT;
    char             code[64];
    int              rc;

    msgpack_unpacked_init(&res);
    rc = arb_client_read(cl, &res, &why);
    if (rc == 0 && (arb_client_get(&res, "ok") == NULL
                    || !arb_client_get(&res, "ok")->via.boolean)) {
        fprintf(stderr, "daemon_mem: refused: %s\n",
                arb_client_error_code(&res, code, sizeof(code)));
        rc = -1;
    } else if (rc != 0) {
        fprintf(stderr, "daemon_mem: %s\n", arb_buf_cstr(&why));
    }
    msgpack_unpacked_destroy(&res);
    arb_buf_free(&why);
    outstanding--;
    return rc == 0 ? 0 : -1;
}

/* Sends the request packed on cl, keeping at most WINDOW unanswered. */
static int
send_one(arb_client_t *cl)
{
    arb_buf_t why = ARB_BUF_INIT;
    int       rc = arb_client_send(cl, &why);

    arb_buf_free(&why);
    if (rc != 0)
        return -1;
    outstanding++;
    return outstanding >= WINDOW ? answer(cl) : 0;
}

static int
drain(arb_client_t *cl)
{
    while (outstanding > 0)
        if (answer(cl) != 0)
            return -1;
    return 0;
}

int
main(int argc, char **argv)
{
    arb_client_t   *cl;
    msgpack_packer *pk;
    char            name[24], card[8];
    size_t          nm = 10000, i;
    uint64_t        nev = 1000000, n = 0, seq, t0;
    mem_t           m0, m1, m100k = { -1, -1, -1 }, mend, midle;
    int             rc = 0, k;

    for (k = 1; k < argc; k++) {
        if (strcmp(argv[k], "--matches") == 0 && k + 1 < argc)
            nm = (size_t)strtoul(argv[++k], NULL, 10);
        else if (strcmp(argv[k], "--events") == 0 && k + 1 < argc)
            nev = strtoull(argv[++k], NULL, 10);
        else
            nm = 0;
    }
    if (nm == 0 || nev > (uint64_t)nm * BENCH_MOVES) {
        fprintf(stderr, "usage: bench_daemon_mem [--matches M] [--events N]"
                " (N at most M x %d)\n", BENCH_MOVES);
        return 2;
    }
    if (harness_init(NULL, 900) != 0)
        return 1;
    harness_start();
    cl = harness_connect(HARNESS_ARBITER);
    if (cl == NULL)
        return harness_done(1);
    m0 = mem_of(harness_pid);
    t0 = arb_clock_ns();
    for (i = 0; rc == 0 && i < nm; i++) {
        snprintf(name, sizeof(name), "m%06zu", i);
        arb_client_begin(cl, &pk, "open", 4);
        arb_mp_pack_cstr(pk, "match"); arb_mp_pack_cstr(pk, name);
        arb_mp_pack_cstr(pk, "game"); arb_mp_pack_cstr(pk, "yahchain");
        arb_mp_pack_cstr(pk, "players");
        msgpack_pack_array(pk, 2);
        arb_mp_pack_cstr(pk, "ann"); arb_mp_pack_cstr(pk, "bob");
        arb_mp_pack_cstr(pk, "options");
        msgpack_pack_map(pk, 2);        /* the bench match's options */
        arb_mp_pack_cstr(pk, "cycles"); arb_mp_pack_cstr(pk, "4");
        arb_mp_pack_cstr(pk, "mode"); arb_mp_pack_cstr(pk, "3");
        rc = send_one(cl);
    }
    if (rc == 0)
        rc = drain(cl);
    m1 = mem_of(harness_pid);
    for (seq = 1; rc == 0 && seq <= BENCH_MOVES && n < nev; seq++) {
        bench_card_of(card, sizeof(card), (unsigned)seq);
        for (i = 0; rc == 0 && i < nm && n < nev; i++) {
            snprintf(name, sizeof(name), "m%06zu", i);
            arb_client_begin(cl, &pk, "append", 5);
            arb_mp_pack_cstr(pk, "match"); arb_mp_pack_cstr(pk, name);
            arb_mp_pack_cstr(pk, "kind"); arb_mp_pack_cstr(pk, "move");
            arb_mp_pack_cstr(pk, "player");
            arb_mp_pack_cstr(pk, bench_player_of((unsigned)seq));
            arb_mp_pack_cstr(pk, "verb"); arb_mp_pack_cstr(pk, "place");
            arb_mp_pack_cstr(pk, "args");
            msgpack_pack_array(pk, 1);
            arb_mp_pack_cstr(pk, card);
            rc = send_one(cl);
            if (rc == 0 && ++n == 100000) {
                rc = drain(cl);
                sleep(SETTLE);
                m100k = mem_of(harness_pid);
            }
        }
    }
    if (rc == 0)
        rc = drain(cl);
    mend = mem_of(harness_pid);
    /* The index writer catches up off the acknowledgement path: what the
     * store still holds for it (its tail, the pages of its step) is let
     * go then. */
    sleep(SETTLE);
    midle = mem_of(harness_pid);
    if (rc == 0) {
        printf("daemon memory: %zu yahchain matches, %llu moves appended "
               "in %.1f s (wall)\n", nm, (unsigned long long)n,
               (double)(arb_clock_ns() - t0) / 1e9);
        print_mem("at start:", m0);
        print_mem("matches open:", m1);
        print_mem("after 100 k moves, settled:", m100k);
        print_mem("after all moves:", mend);
        print_mem("the same, settled:", midle);
        if (m100k.anon > 0)
            printf("  settled, end / 100 k: RSS %.3f, anonymous %.3f\n",
                   midle.rss / m100k.rss, midle.anon / m100k.anon);
        printf("  target RSS <= 64 MiB with %zu open: %s\n", nm,
               m1.rss <= 64 ? "PASS" : "MISSED");
        printf("  target RSS flat (+-10%%) from 100 k to %llu: %s\n",
               (unsigned long long)n, flat(m100k.rss, midle.rss));
        printf("  target anonymous flat (+-10%%) from 100 k to %llu: %s\n",
               (unsigned long long)n, flat(m100k.anon, midle.anon));
    }
    arb_client_close(cl);
    return harness_done(rc != 0);
}
