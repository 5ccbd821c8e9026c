/*
 * test_lmdb_walk.c - the page walk that runs before `arbiter check` lets
 * LMDB read a store (core/ledger/lmdb_walk.c, arb_store_check_pages).
 *
 * A store is written with trees several levels deep, overflow pages and a
 * free list, then:
 *   - walked whole: no problem, every page of the snapshot in use or free;
 *   - damaged where LMDB follows numbers (a branch's child, a page's own
 *     number, its bounds, an entry's offset, an overflow page, the free
 *     list): each is named by file and page, and the log is not opened;
 *   - a damaged index leaves the log checked without it;
 *   - damaged at random, hundreds of times, each run in a child process:
 *     the walk and then the whole check never die of a signal (before the
 *     walk, LMDB faulted on such pages: the child is what proves it).
 * Finding the pages to damage reads the layout (lmdb_layout.h) the walk
 * reads; the random part needs none.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/codec.h"
#include "core/err.h"
#include "core/ledger/check.h"
#include "core/ledger/lmdb_layout.h"
#include "core/ledger/store.h"
#include "core/transcript.h"
#include "tests/test.h"

#define MATCHES 60
#define EVENTS  40              /* per match */
#define BIG     3000            /* bytes of every 7th note: overflow */
#define RANDOM_ROUNDS 300

static char base[64];
static char problems[16384];
static int  nproblems;

static const char *
dir(const char *name)
{
    static char p[4][160];
    static int  k;

    k = (k + 1) % 4;
    snprintf(p[k], sizeof(p[k]), "%s/%s", base, name);
    return p[k];
}

static void
on_problem(void *ud, const char *msg)
{
    size_t n = strlen(problems);

    (void)ud;
    nproblems++;
    if (n + strlen(msg) + 2 < sizeof(problems))
        snprintf(problems + n, sizeof(problems) - n, "%s\n", msg);
}

/* The store: MATCHES yahchain matches of EVENTS canonical events each
 * (the open, then notes, every 7th long enough for overflow pages),
 * appended a seq at a time across the matches, in two opens (the second
 * frees pages of the first's trees). */
static int
write_store(const char *d)
{
    static arb_history_t h[MATCHES];
    arb_store_t *s = NULL;
    arb_append_t v[MATCHES];
    arb_buf_t    why = ARB_BUF_INIT, text = ARB_BUF_INIT, b[MATCHES];
    char         cid[MATCHES][24];
    unsigned     m, e;
    int          rc = 0, round;

    memset(b, 0, sizeof(b));
    for (m = 0; m < MATCHES && rc == 0; m++) {
        text.len = 0;
        arb_buf_printf(&text, "game: yahchain\nmatch: m%03u\nplayers: "
                       "alice bob\nmode: 3\n\n", m);
        for (e = 1; e < EVENTS; e++) {
            arb_buf_printf(&text, "note %u-%u-", m, e);
            if ((m + e) % 7 == 6)
                for (unsigned k = 0; k < BIG / 10; k++)
                    arb_buf_puts(&text, "long-note-");
            arb_buf_puts(&text, "\n");
        }
        rc = arb_transcript_parse(&h[m], text.data, text.len, &why);
    }
    for (round = 0; round < 2 && rc == 0; round++) {
        rc = arb_store_open(&s, d, NULL, &why);
        for (e = (unsigned)round * (EVENTS / 2); rc == 0 &&
             e < (unsigned)(round + 1) * (EVENTS / 2); e++) {
            for (m = 0; m < MATCHES && rc == 0; m++) {
                arb_event_t *ev = e == 0 ? &h[m].open : &h[m].events[e - 1];

                ev->seq = e;
                ev->time_ms = 1772359200000LL + e * 1000;
                ev->actor = strdup("arbiter");
                snprintf(cid[m], sizeof(cid[m]), "c%u-%u", m, e);
                ev->client_id = strdup(cid[m]);
                b[m].len = 0;
                rc = arb_event_encode(&b[m], ev);
                memset(&v[m], 0, sizeof(v[m]));
                v[m].match_id = h[m].open.setup->match_id;
                v[m].game = e == 0 ? h[m].open.setup->game : NULL;
                v[m].seq = e;
                v[m].time_ms = ev->time_ms;
                v[m].bytes = b[m].data;
                v[m].len = b[m].len;
                v[m].client_id = cid[m];
            }
            if (rc == 0)
                rc = arb_store_append_batch(s, v, MATCHES, &why);
        }
        if (rc == 0)
            rc = arb_store_index_wait(s, &why);
        arb_store_close(s);
        s = NULL;
    }
    if (rc != 0)
        fprintf(stderr, "write: %d %s\n", rc, arb_buf_cstr(&why));
    for (m = 0; m < MATCHES; m++) {
        arb_buf_free(&b[m]);
        arb_history_clear(&h[m]);
    }
    arb_buf_free(&text);
    arb_buf_free(&why);
    return rc;
}

static int
copy_file(const char *from, const char *to)
{
    char    buf[65536];
    ssize_t n;
    int     in = open(from, O_RDONLY), out, rc = 0;

    if (in < 0)
        return -1;
    out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (out < 0) {
        close(in);
        return -1;
    }
    while ((n = read(in, buf, sizeof(buf))) > 0)
        if (write(out, buf, (size_t)n) != n)
            rc = -1;
    close(in);
    close(out);
    return n < 0 ? -1 : rc;
}

/* dst becomes a copy of the healthy store (its LMDB files and journal). */
static int
copy_store(const char *dst)
{
    static const char *const files[] = {
        "data.mdb", "index.mdb", "wal.0", "wal.1"
    };
    char   a[200], b[200];
    size_t i;

    mkdir(dst, 0700);
    for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        snprintf(a, sizeof(a), "%s/%s", dir("healthy"), files[i]);
        snprintf(b, sizeof(b), "%s/%s", dst, files[i]);
        unlink(b);
        if (access(a, F_OK) == 0 && copy_file(a, b) != 0)
            return -1;
    }
    return 0;
}

static int
file_rw(const char *d, const char *name, off_t off, void *buf, size_t n,
        int write_it)
{
    char    p[200];
    int     fd, ok;

    snprintf(p, sizeof(p), "%s/%s", d, name);
    fd = open(p, write_it ? O_RDWR : O_RDONLY);
    if (fd < 0)
        return -1;
    ok = write_it ? pwrite(fd, buf, n, off) == (ssize_t)n
                  : pread(fd, buf, n, off) == (ssize_t)n;
    close(fd);
    return ok ? 0 : -1;
}

/* The layout the walk reads, to find pages worth damaging. */
typedef struct layout {
    uint32_t      ps;
    uint64_t      last;
    unsigned char meta[LM_META_LEN];
    unsigned char logdb[LM_DB_LEN];     /* the "log" tree's record */
} layout_t;

static int
read_page(const char *d, const char *f, const layout_t *l, uint64_t pg,
          unsigned char *p)
{
    return file_rw(d, f, (off_t)(pg * l->ps), p, l->ps, 0);
}

static int
read_layout(const char *d, const char *f, layout_t *l)
{
    unsigned char m[2][LM_META_LEN], p[65536];
    uint64_t      root;
    unsigned      i, n, off;

    if (file_rw(d, f, 0, m[0], LM_META_LEN, 0) != 0)
        return -1;
    l->ps = lm_meta_psize(m[0]);
    if (file_rw(d, f, l->ps, m[1], LM_META_LEN, 0) != 0)
        return -1;
    memcpy(l->meta, lm_meta_txnid(m[1]) > lm_meta_txnid(m[0]) ? m[1] : m[0],
           LM_META_LEN);
    l->last = lm_size_at(l->meta, LM_MM_LAST_PG);
    root = lm_size_at(l->meta, LM_MM_DBS + LM_DB_LEN + LM_DB_ROOT);
    if (lm_u16_at(l->meta, LM_MM_DBS + LM_DB_LEN + LM_DB_DEPTH) != 1
        || read_page(d, f, l, root, p) != 0)
        return -1;
    n = (lm_u16_at(p, LM_MP_LOWER) - (unsigned)LM_PAGEHDR) / 2;
    for (i = 0; i < n; i++) {
        off = lm_u16_at(p, LM_PAGEHDR + 2 * i);
        if (lm_u16_at(p + off, 6) == 3 &&
            memcmp(p + off + LM_NODESIZE, "log", 3) == 0) {
            memcpy(l->logdb, p + off + LM_NODESIZE + 3, LM_DB_LEN);
            return 0;
        }
    }
    return -1;
}

/* Walks dst's files; nproblems and problems say what it found. */
static int
check_pages(const char *d, arb_store_pages_t *pg)
{
    arb_buf_t why = ARB_BUF_INIT;
    int       rc;

    problems[0] = '\0';
    nproblems = 0;
    rc = arb_store_check_pages(d, on_problem, NULL, NULL, pg, &why);
    if (rc != 0)
        fprintf(stderr, "check pages %s: %s\n", d, arb_buf_cstr(&why));
    arb_buf_free(&why);
    return rc;
}

static void
test_healthy(void)
{
    arb_store_pages_t pg;
    arb__lm_report_t  r = { on_problem, NULL, NULL, 100 };
    arb__lm_walk_t    w;
    arb_buf_t         why = ARB_BUF_INIT;
    layout_t          l;
    char              f[200];

    CHECK_INT(check_pages(dir("healthy"), &pg), 0);
    CHECK_INT(pg.problems, 0);
    CHECK(!pg.log_damaged && !pg.index_damaged);
    CHECK(pg.log_pages > 100);
    CHECK(pg.index_pages > 10);
    if (nproblems != 0)
        fprintf(stderr, "%s", problems);
    /* Every page of the snapshot is in a tree or in the free list. */
    snprintf(f, sizeof(f), "%s/data.mdb", dir("healthy"));
    CHECK_INT(arb__lm_walk(dir("healthy"), 0, f, &r, &w, &why), 0);
    CHECK_INT(w.problems, 0);
    CHECK(w.free > 0);
    CHECK_INT(w.used + w.free, w.pages);
    CHECK_INT(read_layout(dir("healthy"), "data.mdb", &l), 0);
    CHECK(lm_u16_at(l.logdb, LM_DB_DEPTH) >= 2);
    CHECK(lm_size_at(l.logdb, LM_DB_OVERFLOW) > 0);
    snprintf(f, sizeof(f), "%s/index.mdb", dir("healthy"));
    CHECK_INT(arb__lm_walk(f, 1, f, &r, &w, &why), 0);
    CHECK_INT(w.problems, 0);
    CHECK_INT(w.used + w.free, w.pages);
    arb_buf_free(&why);
}

/* One damage: copy, change the bytes, walk; the problem must name the
 * page and say want. */
static void
damage(const char *name, const char *file, uint64_t pg, unsigned off,
       const void *bytes, size_t n, const char *want)
{
    arb_store_pages_t res;
    layout_t          l;
    char              d[160], page[32];

    snprintf(d, sizeof(d), "%s", dir(name));
    CHECK_INT(copy_store(d), 0);
    CHECK_INT(read_layout(d, "data.mdb", &l), 0);
    CHECK_INT(file_rw(d, file, (off_t)(pg * l.ps + off), (void *)bytes, n,
                      1), 0);
    CHECK_INT(check_pages(d, &res), 0);
    CHECK(res.problems >= 1);
    CHECK(strstr(problems, want) != NULL);
    snprintf(page, sizeof(page), "/%s: ", file);
    CHECK(strstr(problems, page) != NULL);
    if (strcmp(file, "data.mdb") == 0)
        CHECK(res.log_damaged && !res.index_damaged);
    else
        CHECK(res.index_damaged && !res.log_damaged);
    if (strstr(problems, want) == NULL)
        fprintf(stderr, "%s: want \"%s\" in:\n%s", name, want, problems);
}

static void
test_damage(void)
{
    unsigned char p[65536], q[65536];
    layout_t      l;
    uint64_t      root, child, big = 0, v;
    unsigned      i, n, off, nf;
    uint16_t      u;

    CHECK_INT(read_layout(dir("healthy"), "data.mdb", &l), 0);
    root = lm_size_at(l.logdb, LM_DB_ROOT);
    CHECK_INT(read_page(dir("healthy"), "data.mdb", &l, root, p), 0);
    CHECK(lm_u16_at(p, LM_MP_FLAGS) & LM_P_BRANCH);
    off = lm_u16_at(p, LM_PAGEHDR + 2);         /* the second child */
    child = lm_node_pgno(p + off);

    /* A branch naming a page past the file: LMDB read past its map. */
    v = 0x0000ffffu;
    memcpy(&u, &v, 2);
    damage("past", "data.mdb", root, off + 2, &u, 2,
           "past the snapshot's last page");
    /* A child whose own number is another's. */
    v = child + 1;
    damage("number", "data.mdb", child, 0, &v, sizeof(size_t),
           "its header says page");
    /* A page's bounds that hold no entry / run past the page. */
    u = 0xfff0;
    damage("bounds", "data.mdb", child, LM_MP_LOWER, &u, 2, "bounds");
    /* An entry's offset inside the header. */
    u = 4;
    damage("offset", "data.mdb", child, LM_PAGEHDR, &u, 2,
           "outside the page's entries");
    /* A branch where a leaf belongs (the child of a depth-2 tree). */
    u = LM_P_BRANCH;
    damage("kind", "data.mdb", child, LM_MP_FLAGS, &u, 2,
           "where the tree's depth wants a leaf page");
    /* The same child named twice by its parent. */
    v = child;
    u = (uint16_t)v;
    damage("twice", "data.mdb", root,
           lm_u16_at(p, LM_PAGEHDR + 4), &u, 2, "reached twice");

    /* An overflow page's number: find a leaf entry with F_BIGDATA. */
    for (i = 1; big == 0 && i <= l.last; i++) {
        if (read_page(dir("healthy"), "data.mdb", &l, i, q) != 0
            || !(lm_u16_at(q, LM_MP_FLAGS) & LM_P_LEAF))
            continue;
        n = (lm_u16_at(q, LM_MP_LOWER) - (unsigned)LM_PAGEHDR) / 2;
        for (off = 0; big == 0 && off < n; off++) {
            unsigned o = lm_u16_at(q, LM_PAGEHDR + 2 * off);

            nf = lm_u16_at(q + o, 4);
            if (nf & LM_F_BIGDATA) {
                big = i;
                v = l.last + 5;
                damage("overflow", "data.mdb", i,
                       o + LM_NODESIZE + lm_u16_at(q + o, 6), &v,
                       sizeof(size_t), "the overflow page");
            }
        }
    }
    CHECK(big != 0);

    /* The free list naming a page in use (the log's root). */
    {
        uint64_t fr = lm_size_at(l.meta, LM_MM_DBS + LM_DB_ROOT);
        unsigned o;

        CHECK_INT(read_page(dir("healthy"), "data.mdb", &l, fr, q), 0);
        CHECK(lm_u16_at(q, LM_MP_FLAGS) & LM_P_LEAF);
        o = lm_u16_at(q, LM_PAGEHDR);
        /* the first page number of its first record */
        damage("free", "data.mdb", fr,
               o + LM_NODESIZE + lm_u16_at(q + o, 6) + (unsigned)LM_SZ,
               &root, sizeof(size_t), "which is in use");
    }

    /* The index's root named past the file: index damaged, log not. */
    {
        layout_t li;
        uint64_t ir;

        CHECK_INT(read_layout(dir("healthy"), "index.mdb", &li) == 0 ||
                  li.ps != 0, 1);
        ir = lm_size_at(li.meta, LM_MM_DBS + LM_DB_LEN + LM_DB_ROOT);
        v = ir + 1;
        damage("index", "index.mdb", ir, 0, &v, sizeof(size_t),
               "its header says page");
    }
}

/* The index damaged: the check reads the log without it, and finds the
 * store's events whole. */
static void
test_skip_index(void)
{
    arb_store_opts_t    o = { 0, 0, 1, 1 };
    arb_store_t        *s = NULL;
    arb_check_summary_t sum;
    arb_buf_t           why = ARB_BUF_INIT;

    CHECK_INT(arb_store_open(&s, dir("index"), &o, &why), 0);
    CHECK_INT(arb_check_store(s, NULL, NULL, NULL, &sum, &why), 0);
    CHECK_INT(sum.problems, 0);
    CHECK_INT(sum.matches, MATCHES);
    CHECK_INT(sum.events, MATCHES * EVENTS);
    arb_store_close(s);
    arb_buf_free(&why);
}

/* What `arbiter check` does, in a child: the walk, then (when the log's
 * pages passed) the store read through LMDB and checked. */
static int
child_check(const char *d)
{
    arb_store_opts_t    o = { 0, 0, 1, 0 };
    arb_store_pages_t   pg;
    arb_store_t        *s = NULL;
    arb_check_summary_t sum;
    arb_buf_t           why = ARB_BUF_INIT;

    if (arb_store_check_pages(d, NULL, NULL, NULL, &pg, &why) != 0)
        return 2;
    if (pg.log_damaged)
        return 3;
    o.skip_index = pg.index_damaged;
    if (arb_store_open(&s, d, &o, &why) != 0)
        return 4;
    if (arb_check_store(s, NULL, NULL, NULL, &sum, &why) != 0)
        return 5;
    arb_store_close(s);
    return sum.problems + pg.problems != 0 ? 1 : 0;
}

static void
test_random(void)
{
    layout_t    l, li;
    unsigned    seed = 20261206, round, k, by[6] = { 0 }, rounds;
    const char *env = getenv("ARB_WALK_ROUNDS");     /* longer: a soak */
    char        d[160];

    snprintf(d, sizeof(d), "%s", dir("random"));
    CHECK_INT(read_layout(dir("healthy"), "data.mdb", &l), 0);
    if (read_layout(dir("healthy"), "index.mdb", &li) != 0) {
        struct stat st;
        char        f[200];

        snprintf(f, sizeof(f), "%s/index.mdb", dir("healthy"));
        li.ps = l.ps;
        li.last = stat(f, &st) == 0 ? (uint64_t)st.st_size / l.ps - 1 : 1;
    }
    rounds = env != NULL && atoi(env) > 0 ? (unsigned)atoi(env)
                                          : RANDOM_ROUNDS;
    if (env != NULL && getenv("ARB_WALK_SEED") != NULL)
        seed = (unsigned)atoi(getenv("ARB_WALK_SEED"));
    for (round = 0; round < rounds; round++) {
        int            idx = (round % 4) == 3, status = 0;
        const layout_t *x = idx ? &li : &l;
        uint64_t       pg = 2 + (uint64_t)rand_r(&seed) % (x->last - 1);
        unsigned       off, n = 1 + (unsigned)rand_r(&seed) % 4;
        unsigned char  b[4];
        pid_t          pid;

        /* Half in the header and first offsets, half anywhere. */
        off = rand_r(&seed) % 2 ? (unsigned)rand_r(&seed) % 40
                                : (unsigned)rand_r(&seed) % (x->ps - 4);
        for (k = 0; k < n; k++)
            b[k] = (unsigned char)rand_r(&seed);
        if (copy_store(d) != 0 ||
            file_rw(d, idx ? "index.mdb" : "data.mdb",
                    (off_t)(pg * x->ps + off), b, n, 1) != 0) {
            CHECK(0);
            continue;
        }
        fflush(NULL);
        pid = fork();
        if (pid == 0)
            _exit(child_check(d));
        CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
        if (!WIFEXITED(status)) {
            CHECK(0);
            fprintf(stderr, "round %u: %s page %llu offset %u (%u bytes): "
                    "the check died of signal %d\n", round,
                    idx ? "index.mdb" : "data.mdb", (unsigned long long)pg,
                    off, n, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
            continue;
        }
        by[WEXITSTATUS(status) < 6 ? WEXITSTATUS(status) : 5]++;
    }
    /* The damage was mostly found, and found by the walk where LMDB
     * would have followed it. */
    printf("random damage: %u unnoticed (free pages, unused bytes), %u "
           "found by the check, %u refused at the pages, %u other\n",
           by[0], by[1], by[3], by[2] + by[4] + by[5]);
    CHECK(by[3] > rounds / 20);
    CHECK(by[1] > 0);
}

/* ARB_WALK_DIR=DIR: also walks a store made elsewhere (a bench's, a
 * soak's) and says whether every page is accounted for. */
static void
test_other(const char *d)
{
    arb__lm_report_t r = { on_problem, NULL, NULL, 100 };
    arb__lm_walk_t   w;
    arb_buf_t        why = ARB_BUF_INIT;
    char             f[4200];
    int              i;

    for (i = 0; i < 2; i++) {
        snprintf(f, sizeof(f), "%s/%s", d, i ? "index.mdb" : "data.mdb");
        if (access(f, F_OK) != 0)
            continue;
        problems[0] = '\0';
        CHECK_INT(arb__lm_walk(i ? f : d, i, f, &r, &w, &why), 0);
        CHECK_INT(w.problems, 0);
        CHECK_INT(w.used + w.free, w.pages);
        printf("%s: transaction %llu, %llu pages: %llu in use, %llu free\n%s",
               f, (unsigned long long)w.txnid, (unsigned long long)w.pages,
               (unsigned long long)w.used, (unsigned long long)w.free,
               problems);
    }
    arb_buf_free(&why);
}

int
main(void)
{
    if (getenv("ARB_WALK_DIR") != NULL) {
        test_other(getenv("ARB_WALK_DIR"));
        return TEST_END();
    }
    snprintf(base, sizeof(base), "/tmp/arb-walk-%d", (int)getpid());
    mkdir(base, 0700);
    CHECK_INT(write_store(dir("healthy")), 0);
    test_healthy();
    test_damage();
    test_skip_index();
    test_random();
    {
        char cmd[128];

        snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", base);
    }
    return TEST_END();
}
