/*
 * bench_replay.c - how fast a recorded history turns back into matches
 * (run by replay.bench.sh).
 *
 * Writes a fresh store of M YAHchain matches (mode 3, two players, 144
 * moves each), interleaved in the log as a recorder under load writes them
 * (one move of each match in turn, 1,000 events per commit), then times,
 * read-only and after a cold-cache-free warm pass:
 *   - replay: arb_history_load + arb_history_replay per match, the path of
 *     `arbiter replay --db` (store read, decode, open, apply);
 *   - apply: the same histories already in memory, decode excluded, to
 *     show what the rules and the match layer cost alone;
 *   - replay --db DIR: arb_replay_all, the whole store in one pass over
 *     the log (the best of three runs);
 *   - verify: arb_store_verify over every match (the hash chain), and
 *     `arbiter verify` of a signed bundle of every match
 *     (arb_bundle_verify: signatures, links, decode and replay), both on
 *     one thread per CPU: wall clock and per core;
 *   - rebuild: the derived index rebuilt from the whole log (index.mdb
 *     removed, the store reopened and waited on);
 *   - memory: this process's RSS with 10,000 matches open in memory (as
 *     the daemon holds its live matches), then after 100,000 and after
 *     1,000,000 moves applied across them.
 * Figures are per core: events over the CPU time of this one thread
 * (CLOCK_THREAD_CPUTIME_ID, so that other work on a shared machine does
 * not count); the wall time of the write and the rebuild is printed too.
 * Every events/s figure is printed with PASS or MISSED against the
 * 5 M events/s target.  Never fails on a target, only when the run
 * itself breaks.
 *
 * usage: bench_replay --dir DIR [--matches M]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "core/buf.h"
#include "core/codec.h"
#include "core/err.h"
#include "core/event.h"
#include "core/keys.h"
#include "core/ledger/bundle.h"
#include "core/ledger/chain.h"
#include "core/ledger/history.h"
#include "core/ledger/replay_all.h"
#include "core/ledger/store.h"
#include "core/match.h"
#include "tests/bench/bench.h"

#define MOVES BENCH_MOVES
#define BATCH 1000

static uint64_t
now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}


/* CPU time of every thread of this process: the per-core figure of a
 * check that runs on several threads. */
static uint64_t
proc_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double
rate(uint64_t n, uint64_t t0, uint64_t t1)
{
    return t1 > t0 ? (double)n / ((double)(t1 - t0) / 1e9) : 0.0;
}

static void
match_name(char *out, size_t len, size_t i)
{
    snprintf(out, len, "m%06zu", i);
}

/* One seq of every match per round: the log interleaves them. */
static int
fill(arb_store_t *s, size_t nm, uint64_t *nev, arb_buf_t *why)
{
    arb_append_t *ap;
    arb_buf_t    *bytes;
    char        (*names)[24];
    uint64_t      seq;
    size_t        i, n = 0, k;
    int           rc = 0;

    ap = calloc(BATCH, sizeof(*ap));
    bytes = calloc(BATCH, sizeof(*bytes));
    names = calloc(nm, sizeof(*names));
    if (ap == NULL || bytes == NULL || names == NULL) {
        rc = ARB_ENOMEM;
        goto out;
    }
    for (i = 0; i < nm; i++)
        match_name(names[i], sizeof(names[i]), i);
    for (seq = 0; rc == 0 && seq <= MOVES; seq++) {
        for (i = 0; rc == 0 && i < nm; i++) {
            memset(&ap[n], 0, sizeof(ap[n]));
            rc = seq == 0 ? bench_encode_open(&bytes[n], names[i])
                          : bench_encode_move(&bytes[n], seq, (unsigned)seq);
            ap[n].match_id = names[i];
            ap[n].game = seq == 0 ? "yahchain" : NULL;
            ap[n].seq = seq;
            ap[n].time_ms = 1700000000000 + (int64_t)seq;
            ap[n].bytes = bytes[n].data;
            ap[n].len = bytes[n].len;
            ap[n].closes = 0;
            n++;
            if (rc == 0 && (n == BATCH || (seq == MOVES && i + 1 == nm))) {
                rc = arb_store_append_batch(s, ap, n, why);
                *nev += n;
                n = 0;
            }
        }
    }
out:
    if (bytes != NULL)
        for (k = 0; k < BATCH; k++)
            arb_buf_free(&bytes[k]);
    free(bytes);
    free(ap);
    free(names);
    return rc;
}

typedef struct run {
    size_t   nm;
    uint64_t events;        /* opens + moves replayed */
    uint64_t t_load, t_apply, t_decode, t_read, t_hash;
} run_t;

static int
on_nothing(void *ud, uint64_t seq, int64_t t,
           const unsigned char h[ARB_HASH_LEN], const void *b, size_t len)
{
    (void)ud, (void)seq, (void)t, (void)h, (void)b, (void)len;
    return 0;
}

/* Decodes every recorded event of h again, timing the decoder alone;
 * then hashes the chain, timing BLAKE2b alone (the floor of verify). */
static int
decode_all(const arb_history_t *h, run_t *r)
{
    arb_event_t   ev;
    unsigned char head[ARB_HASH_LEN];
    uint64_t      t0 = now_ns();
    size_t        i;
    int           rc = 0;

    for (i = 0; rc == 0 && i <= h->nevents; i++) {
        rc = arb_event_decode(&ev, (const char *)h->recs[i].bytes,
                              h->recs[i].len, NULL);
        arb_event_clear(&ev);
    }
    r->t_decode += now_ns() - t0;
    t0 = now_ns();
    for (i = 0; i <= h->nevents; i++)
        arb_chain_next(i ? head : NULL, h->recs[i].bytes, h->recs[i].len,
                       head);
    r->t_hash += now_ns() - t0;
    if (rc == 0 && memcmp(head, h->recs[h->nevents].hash, ARB_HASH_LEN))
        rc = ARB_ECORRUPT;
    return rc;
}

/* Loads and replays every match; when `keep` is set also replays the
 * loaded histories again, timing the apply alone. */
static int
replay_all(arb_store_t *s, size_t nm, run_t *r, arb_buf_t *why)
{
    arb_history_t h;
    arb_match_t  *m;
    arb_verdict_t v;
    char          name[24];
    size_t        i, bad;
    uint64_t      t0, t1;
    int           rc = 0;

    memset(r, 0, sizeof(*r));
    for (i = 0; rc == 0 && i < nm; i++) {
        memset(&h, 0, sizeof(h));
        match_name(name, sizeof(name), i);
        t0 = now_ns();
        rc = arb_history_load(&h, s, name, UINT64_MAX, why);
        if (rc == 0)
            rc = arb_history_replay(&h, UINT64_MAX, &m, &bad, &v);
        t1 = now_ns();
        r->t_load += t1 - t0;
        if (rc == 0) {
            arb_match_free(m);
            m = NULL;
            t0 = now_ns();
            rc = arb_history_replay(&h, UINT64_MAX, &m, &bad, &v);
            t1 = now_ns();
            r->t_apply += t1 - t0;
            rc = decode_all(&h, r);
        }
        if (rc == 0) {
            t0 = now_ns();
            rc = arb_store_events(s, name, 0, UINT64_MAX, on_nothing, NULL,
                                  why);
            r->t_read += now_ns() - t0;
        }
        if (rc != 0 && why->len == 0)
            arb_buf_printf(why, "%s: seq %zu: %s", name, bad + 1, v.msg);
        if (rc == 0)
            r->events += h.nevents + 1;
        arb_match_free(m);
        arb_history_clear(&h);
    }
    r->nm = nm;
    return rc;
}

/* What `arbiter replay --db DIR` does with each match: its digest. */
static int
on_replayed(void *ud, const arb_replayed_t *r)
{
    unsigned char d[ARB_HASH_LEN];
    size_t       *n = ud;

    if (r->refused || r->m == NULL)
        return ARB_ECORRUPT;
    arb_match_digest(r->m, d);
    (*n)++;
    return 0;
}

/* One chain of every stored event end to end (links recomputed as the
 * store's), to time the link check on 1 and on all threads. */
static int
long_chain(arb_store_t *s, size_t nm, arb_history_rec_t **out, size_t *n,
           arb_buf_t *why)
{
    arb_history_t      h;
    arb_history_rec_t *all = NULL, *p;
    char               name[24];
    size_t             i, j, cap = 0;
    int                rc = 0;

    *n = 0;
    for (i = 0; rc == 0 && i < nm; i++) {
        memset(&h, 0, sizeof(h));
        match_name(name, sizeof(name), i);
        rc = arb_history_load(&h, s, name, UINT64_MAX, why);
        for (j = 0; rc == 0 && j <= h.nevents; j++) {
            if (*n == cap) {
                cap = cap ? 2 * cap : 4096;
                p = realloc(all, cap * sizeof(*all));
                if (p == NULL) {
                    rc = ARB_ENOMEM;
                    break;
                }
                all = p;
            }
            all[*n] = h.recs[j];
            h.recs[j].bytes = NULL;     /* moved */
            arb_chain_next(*n ? all[*n - 1].hash : NULL, all[*n].bytes,
                           all[*n].len, all[*n].hash);
            (*n)++;
        }
        arb_history_clear(&h);
    }
    *out = all;
    return rc;
}

#define TARGET 5e6     /* events/s: replay per core, verification */

static const char *
mark(double r)
{
    return r >= TARGET ? "PASS" : "MISSED";
}

/* A signed bundle of every match, as `arbiter export --format bundle`
 * writes it, and the public key that verifies it. */
static int
bundle_all(arb_store_t *s, size_t nm, const char *keys, arb_buf_t *out,
           unsigned char pk[ARB_PUBKEY_LEN], arb_buf_t *why)
{
    arb_keypair_t kp;
    arb_bundle_t  b;
    char          name[24];
    size_t        i;
    int           rc;

    memset(&b, 0, sizeof(b));
    memset(&kp, 0, sizeof(kp));
    mkdir(keys, 0700);
    rc = arb_keys_create(keys, NULL, why);
    if (rc == 0)
        rc = arb_keys_load(&kp, keys, why);
    for (i = 0; rc == 0 && i < nm; i++) {
        match_name(name, sizeof(name), i);
        rc = arb_bundle_from_store(&b, s, name, UINT64_MAX, why);
        if (rc == 0)
            arb_bundle_sign(&b, i, &kp);
    }
    if (rc == 0)
        rc = arb_bundle_write(out, &b, why);
    memcpy(pk, kp.pk, ARB_PUBKEY_LEN);
    arb_bundle_clear(&b);
    arb_keypair_clear(&kp);
    return rc;
}

/* CPU ns of one Ed25519 verification of a checkpoint message on this
 * thread (best of 5 runs of 500): what a bundle's verify spends per match
 * whatever its length, so the ceiling its figure cannot pass.  0 when the
 * signature did not verify. */
static uint64_t
sig_verify_ns(void)
{
    unsigned char    pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
    unsigned char    msg[ARB_CHECKPOINT_MSG_MAX], sig[crypto_sign_BYTES];
    arb_checkpoint_t cp;
    uint64_t         best = UINT64_MAX, t0, t;
    size_t           n;
    int              r, i, ok = 1;

    if (sodium_init() < 0)
        return 0;
    memset(&cp, 0, sizeof(cp));
    snprintf(cp.match_id, sizeof(cp.match_id), "m000001");
    cp.count = 145;
    randombytes_buf(cp.head, sizeof(cp.head));
    n = arb_checkpoint_message(msg, &cp);
    crypto_sign_keypair(pk, sk);
    crypto_sign_detached(sig, NULL, msg, n, sk);
    for (r = 0; r < 5; r++) {
        t0 = now_ns();
        for (i = 0; i < 500; i++)
            ok &= crypto_sign_verify_detached(sig, msg, n, pk) == 0;
        t = (now_ns() - t0) / 500;
        if (t < best)
            best = t;
    }
    sodium_memzero(sk, sizeof(sk));
    return ok ? best : 0;
}

/* This process's resident set in KiB (VmRSS), or 0. */
static unsigned long
rss_kib(void)
{
    FILE         *f = fopen("/proc/self/status", "r");
    char          line[256];
    unsigned long kb = 0;

    if (f == NULL)
        return 0;
    while (fgets(line, sizeof(line), f) != NULL)
        if (sscanf(line, "VmRSS: %lu kB", &kb) == 1)
            break;
    fclose(f);
    return kb;
}

/* Opens `nm` matches and applies moves round-robin, printing the RSS
 * after the opens, after 100 k and after 1 M moves. */
static int
memory(size_t nm)
{
    arb_match_t **ms;
    arb_buf_t     b = ARB_BUF_INIT;
    arb_event_t   ev;
    arb_verdict_t v;
    char          name[24];
    unsigned long r0 = rss_kib(), r1, r100k = 0, r1m;
    uint64_t      n = 0, seq;
    size_t        i;
    int           rc = 0;

    ms = calloc(nm, sizeof(*ms));
    if (ms == NULL)
        return ARB_ENOMEM;
    for (i = 0; rc == 0 && i < nm; i++) {
        match_name(name, sizeof(name), i);
        rc = bench_encode_open(&b, name);
        if (rc == 0)
            rc = arb_event_decode(&ev, b.data, b.len, NULL);
        if (rc == 0) {
            /* Lean, as arbiterd holds its live matches (daemon/live.c). */
            rc = arb_match_open(&ms[i], &ev, &v);
            if (rc == 0)
                rc = arb_match_lean(ms[i]);
            arb_event_clear(&ev);
        }
    }
    r1 = rss_kib();
    for (seq = 1; rc == 0 && seq <= MOVES && n < 1000000; seq++) {
        rc = bench_encode_move(&b, seq, (unsigned)seq);
        if (rc == 0)
            rc = arb_event_decode(&ev, b.data, b.len, NULL);
        for (i = 0; rc == 0 && i < nm && n < 1000000; i++) {
            rc = arb_match_apply(ms[i], &ev, &v);
            if (++n == 100000)
                r100k = rss_kib();
        }
        arb_event_clear(&ev);
    }
    r1m = rss_kib();
    if (rc == 0)
        printf("  memory (live matches as arbiterd holds them): RSS %.1f MiB "
               "before, %.1f MiB with %zu matches open, %.1f MiB after "
               "100 k moves, %.1f MiB after %llu moves (%.0f B/move from "
               "100 k on; 1 M / 100 k = %.3f)\n", r0 / 1024.0,
               r1 / 1024.0, nm, r100k / 1024.0, r1m / 1024.0,
               (unsigned long long)n,
               n > 100000 ? ((double)r1m - (double)r100k) * 1024.0
                            / (double)(n - 100000) : 0.0,
               r100k > 0 ? (double)r1m / (double)r100k : 0.0);
    if (rc == 0)
        printf("  targets: RSS <= 64 MiB with %zu open: %s; flat (+-10%%) "
               "from 100 k to 1 M: %s\n", nm,
               r1 <= 64 * 1024 ? "met" : "MISSED",
               r100k > 0 && r1m * 10 <= r100k * 11
               && r1m * 10 >= r100k * 9 ? "met" : "MISSED");
    for (i = 0; i < nm; i++)
        arb_match_free(ms[i]);
    free(ms);
    arb_buf_free(&b);
    return rc;
}

int
main(int argc, char **argv)
{
    const char      *dir = NULL;
    size_t           nm = 2000;
    char             data[4096], idx[4200];
    arb_store_t     *s = NULL;
    arb_store_opts_t o;
    arb_store_stats_t st;
    arb_buf_t        why = ARB_BUF_INIT;
    uint64_t         nev = 0, t0, t1;
    run_t            r;
    double           rb_rate, all_rate, vw_rate, vc_rate, bw_rate = 0;
    double           bc_rate = 0;
    arb_buf_t        bundle = ARB_BUF_INIT;
    arb_bundle_report_t rep;
    unsigned char    pk[ARB_PUBKEY_LEN];
    double           l1_rate = 0, ln_rate = 0, lc_rate = 0;
    arb_history_rec_t *chain = NULL;
    size_t           nchain = 0, nrep = 0, bad;
    uint64_t         nall = 0, p0, w0;
    unsigned         nth = arb_chain_threads();
    int              i, rc;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc)
            dir = argv[++i];
        else if (strcmp(argv[i], "--matches") == 0 && i + 1 < argc)
            nm = (size_t)strtoul(argv[++i], NULL, 10);
        else
            dir = NULL, i = argc;
    }
    if (dir == NULL || nm == 0) {
        fprintf(stderr, "usage: bench_replay --dir DIR [--matches M]\n");
        return 2;
    }
    /* First, while this process holds nothing else. */
    rc = memory(10000);
    if (rc != 0) {
        fprintf(stderr, "replay: memory: %s\n", arb_strerror(rc));
        goto out;
    }
    snprintf(data, sizeof(data), "%s/replay", dir);
    rc = arb_store_open(&s, data, NULL, &why);
    t0 = arb_clock_ns();
    if (rc == 0)
        rc = fill(s, nm, &nev, &why);
    if (rc == 0)
        rc = arb_store_index_wait(s, &why);
    t1 = arb_clock_ns();
    arb_store_close(s);
    s = NULL;
    if (rc != 0) {
        fprintf(stderr, "replay: writing %s: %s\n", data, arb_buf_cstr(&why));
        goto out;
    }
    printf("replay: %zu yahchain matches, %llu events written and indexed "
           "in %.2f s\n", nm, (unsigned long long)nev,
           (double)(t1 - t0) / 1e9);

    memset(&o, 0, sizeof(o));
    o.read_only = 1;
    rc = arb_store_open(&s, data, &o, &why);
    if (rc == 0)
        rc = replay_all(s, nm, &r, &why);      /* warm the page cache */
    if (rc == 0)
        rc = replay_all(s, nm, &r, &why);
    if (rc != 0) {
        fprintf(stderr, "replay: %s\n", arb_buf_cstr(&why));
        goto out;
    }
    /* The whole store in one pass over the log: `replay --db DIR`, the
     * best of three (on a shared machine the others are interrupted). */
    rc = arb_replay_all(s, on_replayed, &nrep, &nall, &why);   /* warm */
    all_rate = 0;
    for (i = 0; rc == 0 && i < 3; i++) {
        nrep = 0;
        t0 = now_ns();
        rc = arb_replay_all(s, on_replayed, &nrep, &nall, &why);
        t1 = now_ns();
        if (rc == 0 && rate(nall, t0, t1) > all_rate)
            all_rate = rate(nall, t0, t1);
    }
    if (rc != 0 || nrep != nm || nall != r.events) {
        fprintf(stderr, "replay: replay_all: %s (%zu matches, %llu events)"
                "\n", arb_buf_cstr(&why), nrep, (unsigned long long)nall);
        rc = rc ? rc : ARB_ECORRUPT;
        goto out;
    }
    /* Verify runs on every CPU: per core over the CPU time of all
     * threads, and over the wall clock; the best of three, as replay's
     * (the first warms the threads' caches, and on a shared machine a
     * run may lose a core to another guest). */
    vc_rate = vw_rate = 0;
    for (i = 0; rc == 0 && i < 3; i++) {
        p0 = proc_ns();
        w0 = arb_clock_ns();
        rc = arb_store_verify(s, NULL, &why);
        t1 = arb_clock_ns();
        if (rate(r.events, p0, proc_ns()) > vc_rate)
            vc_rate = rate(r.events, p0, proc_ns());
        if (rate(r.events, w0, t1) > vw_rate)
            vw_rate = rate(r.events, w0, t1);
    }
    if (rc != 0) {
        fprintf(stderr, "replay: verify: %s\n", arb_buf_cstr(&why));
        goto out;
    }
    /* `arbiter verify` of a bundle of every match: the command's one
     * call (tools/cmd_verify.c), signatures and replay included. */
    snprintf(idx, sizeof(idx), "%s/keys", dir);
    rc = bundle_all(s, nm, idx, &bundle, pk, &why);
    /* Best of 3 too, for the same reasons. */
    for (i = 0; rc == 0 && i < 3; i++) {
        p0 = proc_ns();
        w0 = arb_clock_ns();
        rc = arb_bundle_verify(bundle.data, bundle.len, pk, &rep);
        t1 = arb_clock_ns();
        if (rate(r.events, p0, proc_ns()) > bc_rate)
            bc_rate = rate(r.events, p0, proc_ns());
        if (rate(r.events, w0, t1) > bw_rate)
            bw_rate = rate(r.events, w0, t1);
        if (rc != 0 || rep.nmatches != nm)
            arb_buf_printf(&why, "%zu problems in %zu matches%s%s",
                           rep.nproblems, rep.nmatches,
                           rep.error ? ": " : "",
                           rep.error ? rep.error : "");
        rc = rc != 0 || rep.nmatches != nm ? ARB_ECORRUPT : 0;
        arb_bundle_report_clear(&rep);
    }
    /* Kept for replay.bench.sh, which times `arbiter verify` of it as a
     * user runs it: a new process, the file mapped, the report printed. */
    if (rc == 0) {
        FILE *f;

        snprintf(idx, sizeof(idx), "%s/all.bundle", dir);
        f = fopen(idx, "wb");
        if (f == NULL || fwrite(bundle.data, 1, bundle.len, f) != bundle.len)
            arb_buf_printf(&why, "%s: cannot write", idx), rc = ARB_EIO;
        if (f != NULL && fclose(f) != 0 && rc == 0)
            arb_buf_printf(&why, "%s: cannot write", idx), rc = ARB_EIO;
    }
    arb_buf_free(&bundle);
    if (rc != 0) {
        fprintf(stderr, "replay: bundle verify: %s\n", arb_buf_cstr(&why));
        goto out;
    }
    /* The link check alone (a bundle's verify), one chain of them all. */
    rc = long_chain(s, nm, &chain, &nchain, &why);
    if (rc == 0) {
        w0 = arb_clock_ns();
        bad = arb_chain_first_bad(chain, nchain, 1);
        t1 = arb_clock_ns();
        l1_rate = rate(nchain, w0, t1);
        w0 = arb_clock_ns();
        p0 = proc_ns();
        if (bad == nchain)
            bad = arb_chain_first_bad(chain, nchain, nth);
        t1 = arb_clock_ns();
        lc_rate = rate(nchain, p0, proc_ns());
        ln_rate = rate(nchain, w0, t1);
        if (bad != nchain)
            rc = ARB_ECORRUPT;
    }
    for (i = 0; chain != NULL && (size_t)i < nchain; i++)
        free(chain[i].bytes);
    free(chain);
    if (rc != 0) {
        fprintf(stderr, "replay: link check: %s\n", arb_strerror(rc));
        goto out;
    }
    arb_store_close(s);
    s = NULL;

    /* Rebuild: the index is derived, so removing it is safe; the next
     * writable open rebuilds it from the log. */
    snprintf(idx, sizeof(idx), "%s/index.mdb", data);
    unlink(idx);
    snprintf(idx, sizeof(idx), "%s/index.mdb-lock", data);
    unlink(idx);
    t0 = arb_clock_ns();
    rc = arb_store_open(&s, data, NULL, &why);
    if (rc == 0)
        rc = arb_store_index_wait(s, &why);
    t1 = arb_clock_ns();
    if (rc == 0)
        rc = arb_store_stats(s, &st, &why);
    if (rc != 0) {
        fprintf(stderr, "replay: rebuild: %s\n", arb_buf_cstr(&why));
        goto out;
    }
    rb_rate = rate(st.index_rebuilt, t0, t1);

    printf("  replay --db DIR (whole store, one log pass): %.2f M "
           "events/s per core  %s\n", all_rate / 1e6, mark(all_rate));
    printf("  replay --db --match, match by match (load + decode + apply): "
           "%.2f M/s  %s\n", rate(r.events, 0, r.t_load) / 1e6,
           mark(rate(r.events, 0, r.t_load)));
    printf("  apply alone (histories in memory):        %.2f M/s  %s\n",
           rate(r.events, 0, r.t_apply) / 1e6,
           mark(rate(r.events, 0, r.t_apply)));
    printf("  store read alone (arb_store_events):      %.2f M/s  %s\n",
           rate(r.events, 0, r.t_read) / 1e6,
           mark(rate(r.events, 0, r.t_read)));
    printf("  decode alone (arb_event_decode):          %.2f M/s  %s\n",
           rate(r.events, 0, r.t_decode) / 1e6,
           mark(rate(r.events, 0, r.t_decode)));
    printf("  verify store (arb_store_verify, %u threads): %.2f M/s wall  "
           "%s; %.2f M per core  %s\n", nth, vw_rate / 1e6, mark(vw_rate),
           vc_rate / 1e6, mark(vc_rate));
    printf("  arbiter verify of a bundle of %zu matches (%u threads): "
           "%.2f M/s wall  %s; %.2f M per core  %s\n", nm, nth,
           bw_rate / 1e6, mark(bw_rate), bc_rate / 1e6, mark(bc_rate));
    /* What the bundle's figure cannot pass on this CPU: every match
     * costs one signature check, every event one BLAKE2b link, before
     * any decoding or rule. */
    {
        uint64_t sig = sig_verify_ns();
        double   per_ev = (double)r.events / (double)nm;
        double   ev_ns = sig / per_ev
                         + (r.events ? (double)r.t_hash / r.events : 0);
        double   ceil1 = ev_ns > 0 ? 1e3 / ev_ns : 0;

        printf("  bundle verify's ceiling on this CPU: Ed25519 verify %.1f "
               "us per match (%.3f us per event at %.0f events per match) "
               "+ BLAKE2b %.3f us per event = %.2f M/s per core, %.2f M/s "
               "on %u threads, before decoding and rules\n",
               sig / 1e3, sig / per_ev / 1e3, per_ev,
               r.events ? (double)r.t_hash / r.events / 1e3 : 0.0,
               ceil1, ceil1 * nth, nth);
    }
    printf("  chain links alone, %zu links: %.2f M/s on 1 thread  %s; "
           "%.2f M on %u (wall)  %s; %.2f M per core  %s\n", nchain,
           l1_rate / 1e6, mark(l1_rate), ln_rate / 1e6, nth, mark(ln_rate),
           lc_rate / 1e6, mark(lc_rate));
    printf("  BLAKE2b chain alone (arb_chain_next):     %.2f M/s per core  "
           "%s\n", rate(r.events, 0, r.t_hash) / 1e6,
           mark(rate(r.events, 0, r.t_hash)));
    printf("  index rebuild from the log: %llu events in %.2f s (wall), "
           "%.0f events/s (10 M: ~%.0f s)\n",
           (unsigned long long)st.index_rebuilt, (double)(t1 - t0) / 1e9,
           rb_rate, rb_rate > 0 ? 1e7 / rb_rate : 0.0);
    printf("  targets: replay >= 5 M events/s/core: %s; verification >= 5 M "
           "events/s (wall): store %s, bundle %s\n", mark(all_rate),
           mark(vw_rate), mark(bw_rate));
out:
    arb_store_close(s);
    arb_buf_free(&why);
    return rc != 0;
}
