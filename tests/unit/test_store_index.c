/*
 * test_store_index.c - the store's derived index (docs/STORE.md).
 *
 *   - rebuild: a store of 100,000 events over 1,000 matches (a third with
 *     client ids, some closed) is indexed incrementally while appended;
 *     every entry of index.mdb is dumped, the file deleted, the store
 *     reopened (a rebuild from the log) and dumped again: the two dumps
 *     must be byte-identical.  ARB_INDEX_EVENTS makes it larger.
 *   - read-your-writes: a writer thread appends while a reader thread
 *     reads each event right after its append returned (events, match,
 *     idem, log), with the index lagging as it does; the reader must
 *     never miss one.  A read-only handle in the same process (what
 *     `arbiter replay --db` uses on a live store) must see them too.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <lmdb.h>

#include "core/buf.h"
#include "core/clock.h"
#include "core/err.h"
#include "core/ledger/store.h"
#include "tests/store_scratch.h"
#include "tests/test.h"

static double
now_s(void)
{
    return (double)arb_clock_ns() / 1e9;
}

/* Every key and value of the index's databases, length-prefixed, into b. */
static int
dump_index(const char *name, arb_buf_t *b)
{
    static const char *const dbs[] = { "seq", "idem", "matches", "meta" };
    MDB_env    *env = NULL;
    MDB_txn    *txn = NULL;
    MDB_cursor *c;
    MDB_dbi     dbi;
    MDB_val     k, d;
    char        path[200];
    size_t      i;
    int         rc;

    snprintf(path, sizeof(path), "%s/index.mdb", subdir(name));
    rc = mdb_env_create(&env);
    if (rc == 0)
        rc = mdb_env_set_maxdbs(env, 8);
    if (rc == 0)
        rc = mdb_env_open(env, path, MDB_RDONLY | MDB_NOSUBDIR, 0600);
    if (rc == 0)
        rc = mdb_txn_begin(env, NULL, MDB_RDONLY, &txn);
    for (i = 0; rc == 0 && i < 4; i++) {
        rc = mdb_dbi_open(txn, dbs[i], 0, &dbi);
        if (rc == 0)
            rc = mdb_cursor_open(txn, dbi, &c);
        if (rc != 0)
            break;
        arb_buf_puts(b, dbs[i]);
        for (rc = mdb_cursor_get(c, &k, &d, MDB_FIRST); rc == 0;
             rc = mdb_cursor_get(c, &k, &d, MDB_NEXT)) {
            arb_buf_u32be(b, (uint32_t)k.mv_size);
            arb_buf_add(b, k.mv_data, k.mv_size);
            arb_buf_u32be(b, (uint32_t)d.mv_size);
            arb_buf_add(b, d.mv_data, d.mv_size);
        }
        mdb_cursor_close(c);
        rc = rc == MDB_NOTFOUND ? 0 : rc;
    }
    if (txn != NULL)
        mdb_txn_abort(txn);
    mdb_env_close(env);
    return rc != 0 ? rc : b->oom ? ARB_ENOMEM : 0;
}

/* arb_store_index_wait, saying why when it fails. */
static int
index_wait(arb_store_t *s)
{
    arb_buf_t why = ARB_BUF_INIT;
    int       rc = arb_store_index_wait(s, &why);

    if (rc != 0)
        fprintf(stderr, "index wait: %s\n", arb_buf_cstr(&why));
    arb_buf_free(&why);
    return rc;
}

static arb_store_t *
open_store(const char *name, int ro)
{
    arb_store_opts_t o = { 0, 0, ro, 0 };
    arb_store_t     *s = NULL;
    arb_buf_t        why = ARB_BUF_INIT;
    int              rc;

    rc = arb_store_open(&s, subdir(name), &o, &why);
    if (rc != 0)
        fprintf(stderr, "open %s: %s\n", name, arb_buf_cstr(&why));
    CHECK_INT(rc, 0);
    arb_buf_free(&why);
    return s;
}

#define NMATCH_MAX (1u << 17)

static void
test_rebuild(void)
{
    static uint64_t   next[NMATCH_MAX];
    static unsigned   mno[NMATCH_MAX];
    char              ids[500][16];
    arb_store_t      *s;
    arb_append_t      v[500];
    arb_buf_t         why = ARB_BUF_INIT, a = ARB_BUF_INIT, b = ARB_BUF_INIT;
    arb_store_stats_t st;
    char              bytes[500][48], cids[500][24];
    const char       *env;
    uint64_t          total = 100000, done = 0, closed = 0;
    unsigned          nmatch = 1000, i, k, n, nextno, churn = 0;
    double            t0, t_app, t_reb;
    int               rc = 0;

    if ((env = getenv("ARB_INDEX_EVENTS")) != NULL && *env)
        total = strtoull(env, NULL, 10);
    if (total / 100 > nmatch)
        nmatch = total / 100 < NMATCH_MAX ? (unsigned)(total / 100)
                                          : NMATCH_MAX;
    /* ARB_INDEX_ACTIVE=K: a tournament's shape instead, K tables each
     * playing a match to its close and claim, then the next one. */
    if ((env = getenv("ARB_INDEX_ACTIVE")) != NULL && *env) {
        nmatch = (unsigned)strtoul(env, NULL, 10);
        nmatch = nmatch < 1 ? 1 : nmatch > NMATCH_MAX ? NMATCH_MAX : nmatch;
        churn = 1;
    }
    s = open_store("rebuild", 0);
    if (s == NULL)
        return;
    for (i = 0; i < nmatch; i++)
        mno[i] = i;
    nextno = nmatch;
    srand(11);
    t0 = now_s();
    while (done < total && rc == 0) {
        n = total - done < 500 ? (unsigned)(total - done) : 500;
        for (k = 0; k < n; k++) {
            /* a match is closed at seq 120 (one in fifty gets there); a
             * closed one gets a claim (after_close), then is left alone */
            do {
                i = (unsigned)rand() % nmatch;
                if (churn && next[i] > 121) {
                    mno[i] = nextno++;
                    next[i] = 0;
                }
            } while (next[i] > 121);
            memset(&v[k], 0, sizeof(v[k]));
            snprintf(ids[k], sizeof(ids[k]), "m%07u", mno[i] % 10000000u);
            v[k].match_id = ids[k];
            v[k].game = "g";
            v[k].seq = next[i];
            v[k].time_ms = (int64_t)(done + k);
            snprintf(bytes[k], sizeof(bytes[k]), "event %.15s/%llu", ids[k],
                     (unsigned long long)next[i]);
            v[k].bytes = bytes[k];
            v[k].len = strlen(bytes[k]);
            if ((done + k) % 3 == 0) {
                snprintf(cids[k], sizeof(cids[k]), "c%llu",
                         (unsigned long long)(done + k));
                v[k].client_id = cids[k];
            }
            v[k].closes = next[i] == 120;
            v[k].after_close = next[i] == 121;
            closed += v[k].closes;
            next[i]++;
        }
        rc = arb_store_append_batch(s, v, n, &why);
        if (rc != 0)
            fprintf(stderr, "append: %s\n", arb_buf_cstr(&why));
        done += n;
    }
    CHECK_INT(rc, 0);
    t_app = now_s() - t0;
    CHECK_INT(index_wait(s), 0);
    CHECK_INT(arb_store_stats(s, &st, &why), 0);
    CHECK_INT(st.events, total);
    CHECK_INT(st.indexed_pos, total);
    CHECK_INT(st.tail_events, 0);
    CHECK_INT(st.client_ids, (total + 2) / 3);
    CHECK(st.index_commits > 0);
    arb_store_close(s);
    CHECK_INT(dump_index("rebuild", &a), 0);

    /* The rebuild, from nothing. */
    {
        char p[200];
        snprintf(p, sizeof(p), "%s/index.mdb", subdir("rebuild"));
        CHECK_INT(unlink(p), 0);
    }
    t0 = now_s();
    s = open_store("rebuild", 0);
    t_reb = now_s() - t0;
    if (s == NULL)
        return;
    CHECK_INT(arb_store_stats(s, &st, &why), 0);
    CHECK_INT(st.index_rebuilt, total);
    CHECK_INT(st.indexed_pos, total);
    CHECK_INT(arb_store_verify(s, NULL, &why), 0);
    arb_store_close(s);
    CHECK_INT(dump_index("rebuild", &b), 0);
    CHECK_INT(a.len, b.len);
    CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
    CHECK(closed > 0);
    printf("test_store_index: %llu events over %u matches (%llu closed): "
           "appended in %.2f s, index rebuilt in %.2f s (%.0f events/s); "
           "rebuilt index = incremental index (%zu bytes of entries)\n",
           (unsigned long long)total, churn ? nextno : nmatch,
           (unsigned long long)closed,
           t_app, t_reb, (double)total / t_reb, a.len);
    arb_buf_free(&a);
    arb_buf_free(&b);
    arb_buf_free(&why);
}

/* ---- read-your-writes ---------------------------------------------------- */

#define RYW_MATCHES 64
#define RYW_RING    4096

typedef struct ryw {
    arb_store_t     *s;
    int              rofd;              /* to the read-only process */
    pthread_mutex_t  mu;
    pthread_cond_t   cv;
    uint64_t         ring[RYW_RING];    /* match << 32 | seq */
    size_t           head, tail;
    int              done;
    atomic_ullong    reads, misses, ro_misses;  /* ro: sends failed */
    char             miss[256];
} ryw_t;

typedef struct one {
    int           found;
    unsigned char bytes[64];
    size_t        len;
} one_t;

static int
one_cb(void *ud, uint64_t seq, int64_t t, const unsigned char h[ARB_HASH_LEN],
       const void *bytes, size_t len)
{
    one_t *o = ud;

    (void)seq; (void)t; (void)h;
    o->found++;
    o->len = len < sizeof(o->bytes) ? len : sizeof(o->bytes);
    memcpy(o->bytes, bytes, o->len);
    return 0;
}

static int
read_one(arb_store_t *s, unsigned m, uint64_t seq, char *miss, size_t cap)
{
    arb_match_info_t info;
    one_t            o;
    char             id[16], cid[32], want[64];
    uint64_t         q = 0;
    int              rc;

    snprintf(id, sizeof(id), "r%02u", m);
    snprintf(want, sizeof(want), "ryw %s/%llu", id, (unsigned long long)seq);
    memset(&o, 0, sizeof(o));
    rc = arb_store_events(s, id, seq, seq, one_cb, &o, NULL);
    if (rc != 0 || o.found != 1 || o.len != strlen(want) ||
        memcmp(o.bytes, want, o.len) != 0) {
        snprintf(miss, cap, "events %s/%llu: rc %d, found %d", id,
                 (unsigned long long)seq, rc, o.found);
        return 1;
    }
    rc = arb_store_match(s, id, &info, NULL);
    if (rc != 0 || info.last_seq < seq) {
        snprintf(miss, cap, "match %s: rc %d, last %llu < %llu", id, rc,
                 (unsigned long long)info.last_seq, (unsigned long long)seq);
        return 1;
    }
    snprintf(cid, sizeof(cid), "%s-%llu", id, (unsigned long long)seq);
    rc = arb_store_idem(s, id, cid, &q, NULL, NULL);
    if (rc != 0 || q != seq) {
        snprintf(miss, cap, "idem %s: rc %d", cid, rc);
        return 1;
    }
    return 0;
}

static void *
reader_main(void *arg)
{
    ryw_t   *r = arg;
    uint64_t x;

    pthread_mutex_lock(&r->mu);
    for (;;) {
        while (r->head == r->tail && !r->done)
            pthread_cond_wait(&r->cv, &r->mu);
        if (r->head == r->tail)
            break;
        x = r->ring[r->tail++ % RYW_RING];
        pthread_mutex_unlock(&r->mu);
        if (read_one(r->s, (unsigned)(x >> 32), x & 0xffffffffu, r->miss,
                     sizeof(r->miss)))
            atomic_fetch_add(&r->misses, 1);
        /* Every 16th to the read-only handle of another process, as
         * `arbiter replay --db` reads a live store: it rereads the log
         * tail.  (One process has one handle per store: store_claim.c.) */
        if ((x & 15) == 0 && r->rofd >= 0 &&
            write(r->rofd, &x, sizeof(x)) != (ssize_t)sizeof(x)) {
            atomic_fetch_add(&r->ro_misses, 1);
            close(r->rofd);
            r->rofd = -1;
        }
        atomic_fetch_add(&r->reads, 1);
        pthread_mutex_lock(&r->mu);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

typedef struct ro_result {
    uint64_t reads, misses;
    int      verify;
    char     miss[256];
} ro_result_t;

/* The read-only process: opens the store at its first item (by then the
 * writer has made it), reads each acknowledged event it is sent, and
 * at the end of its input verifies the store and reports. */
static void
ro_child(const char *dir, int in, int out)
{
    arb_store_opts_t o = { 0, 0, 1, 0 };
    arb_store_t     *ro = NULL;
    ro_result_t      res;
    arb_buf_t        why = ARB_BUF_INIT;
    uint64_t         x;
    int              rc;

    memset(&res, 0, sizeof(res));
    res.verify = -1;
    while (read(in, &x, sizeof(x)) == (ssize_t)sizeof(x)) {
        if (ro == NULL) {
            rc = arb_store_open(&ro, dir, &o, &why);
            if (rc != 0) {
                snprintf(res.miss, sizeof(res.miss), "open: %s",
                         arb_buf_cstr(&why));
                res.misses++;
                break;
            }
        }
        res.reads++;
        if (read_one(ro, (unsigned)(x >> 32), x & 0xffffffffu, res.miss,
                     sizeof(res.miss)))
            res.misses++;
    }
    if (ro != NULL)
        res.verify = arb_store_verify(ro, NULL, &why);
    arb_store_close(ro);
    if (write(out, &res, sizeof(res)) != (ssize_t)sizeof(res))
        _exit(1);
    _exit(0);
}

static void
test_ryw(void)
{
    static ryw_t      r;
    arb_append_t      v[RYW_MATCHES];
    arb_buf_t         why = ARB_BUF_INIT;
    arb_store_stats_t st;
    pthread_t         th;
    char              ids[RYW_MATCHES][8], bytes[RYW_MATCHES][64];
    char              cids[RYW_MATCHES][64];
    uint64_t          seq, lagged = 0, batches = 0, idle0;
    ro_result_t       res;
    double            t0;
    unsigned          m, n;
    int               rc = 0, started, tochild[2], fromchild[2], status;
    pid_t             pid;

    /* The read-only process is forked before this one has threads; its
     * death shows as a failed send, not as SIGPIPE. */
    signal(SIGPIPE, SIG_IGN);
    if (pipe(tochild) != 0 || pipe(fromchild) != 0) {
        CHECK(0);
        return;
    }
    pid = fork();
    if (pid == 0) {
        close(tochild[1]);
        close(fromchild[0]);
        ro_child(subdir("ryw"), tochild[0], fromchild[1]);
    }
    CHECK(pid > 0);
    close(tochild[0]);
    close(fromchild[1]);
    r.rofd = tochild[1];
    r.s = open_store("ryw", 0);
    if (r.s == NULL || pid < 0)
        return;
    pthread_mutex_init(&r.mu, NULL);
    pthread_cond_init(&r.cv, NULL);
    started = pthread_create(&th, NULL, reader_main, &r) == 0;
    CHECK(started);
    t0 = now_s();
    for (seq = 0; rc == 0 && now_s() - t0 < 1.5; seq++) {
        n = RYW_MATCHES;        /* one event of every match */
        for (m = 0; m < n; m++) {
            snprintf(ids[m], sizeof(ids[m]), "r%02u", m % 100);
            snprintf(bytes[m], sizeof(bytes[m]), "ryw %.7s/%llu", ids[m],
                     (unsigned long long)seq);
            snprintf(cids[m], sizeof(cids[m]), "%.7s-%llu", ids[m],
                     (unsigned long long)seq);
            memset(&v[m], 0, sizeof(v[m]));
            v[m].match_id = ids[m];
            v[m].game = "g";
            v[m].seq = seq;
            v[m].bytes = bytes[m];
            v[m].len = strlen(bytes[m]);
            v[m].client_id = cids[m];
        }
        rc = arb_store_append_batch(r.s, v, n, &why);
        if (rc != 0) {
            fprintf(stderr, "append: %s\n", arb_buf_cstr(&why));
            break;
        }
        batches++;
        /* Acknowledged: hand each event to the reader at once. */
        pthread_mutex_lock(&r.mu);
        for (m = 0; m < n && r.head - r.tail < RYW_RING; m++)
            r.ring[r.head++ % RYW_RING] = (uint64_t)m << 32 | seq;
        pthread_cond_signal(&r.cv);
        pthread_mutex_unlock(&r.mu);
        if (arb_store_stats(r.s, &st, NULL) == 0 && st.tail_events > 0)
            lagged++;
    }
    CHECK_INT(rc, 0);
    pthread_mutex_lock(&r.mu);
    r.done = 1;
    pthread_cond_signal(&r.cv);
    pthread_mutex_unlock(&r.mu);
    if (started)
        pthread_join(th, NULL);
    if (atomic_load(&r.misses) || atomic_load(&r.ro_misses))
        fprintf(stderr, "read-your-writes: %s\n", r.miss);
    CHECK_INT(atomic_load(&r.misses), 0);
    CHECK_INT(atomic_load(&r.ro_misses), 0);
    CHECK(atomic_load(&r.reads) > 1000);
    CHECK(lagged > 0);      /* the reads did happen while the index lagged */
    /* Appends do not wake the index writer while it gathers records for
     * its next step (it used to be woken by every commit). */
    CHECK_INT(arb_store_stats(r.s, &st, NULL), 0);
    if (st.index_wakeups >= batches / 4)
        fprintf(stderr, "index writer woken %llu times in %llu commits\n",
                (unsigned long long)st.index_wakeups,
                (unsigned long long)batches);
    CHECK(st.index_wakeups < batches / 4);
    /* The read-only process: everything it was sent was there. */
    if (r.rofd >= 0)
        close(r.rofd);
    memset(&res, 0, sizeof(res));
    CHECK(read(fromchild[0], &res, sizeof(res)) == (ssize_t)sizeof(res));
    close(fromchild[0]);
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status)
          && WEXITSTATUS(status) == 0);
    if (res.misses)
        fprintf(stderr, "read-your-writes, read-only process: %s\n",
                res.miss);
    CHECK_INT(res.misses, 0);
    CHECK(res.reads > 1000 / 16);
    CHECK_INT(res.verify, 0);
    /* Idle for a second with the tail indexed: the heap the tail held is
     * returned (what the daemon holds when settled does not depend on
     * the last trim's timing).  A step of 16,384 records or more trims
     * on its own, so how much a load leaves untrimmed depends on timing:
     * index everything, then append small batches until a step has left
     * records untrimmed, which only the idle trim returns. */
    CHECK_INT(index_wait(r.s), 0);
    idle0 = 0;
    for (n = 0; rc == 0 && n < 4; n++, seq++) {
        CHECK_INT(arb_store_stats(r.s, &st, NULL), 0);
        idle0 = st.idle_trims;
        if (st.untrimmed > 0 && st.tail_events == 0)
            break;
        for (m = 0; m < RYW_MATCHES; m++) {
            snprintf(bytes[m], sizeof(bytes[m]), "ryw %.7s/%llu", ids[m],
                     (unsigned long long)seq);
            snprintf(cids[m], sizeof(cids[m]), "%.7s-%llu", ids[m],
                     (unsigned long long)seq);
            v[m].seq = seq;
            v[m].len = strlen(bytes[m]);
        }
        rc = arb_store_append_batch(r.s, v, RYW_MATCHES, &why);
        CHECK_INT(rc, 0);
        CHECK_INT(index_wait(r.s), 0);
    }
    CHECK(st.untrimmed > 0);
    t0 = now_s();
    while (arb_store_stats(r.s, &st, NULL) == 0
           && (st.idle_trims == idle0 || st.untrimmed > 0)
           && now_s() - t0 < 10)
        usleep(50000);
    CHECK(st.idle_trims > idle0);
    CHECK_INT(st.untrimmed, 0);
    printf("test_store_index: read-your-writes: %llu reads right after "
           "their append (%llu batches, index behind after %llu of them), "
           "0 missed\n", (unsigned long long)atomic_load(&r.reads),
           (unsigned long long)batches, (unsigned long long)lagged);
    arb_store_close(r.s);
    pthread_cond_destroy(&r.cv);
    pthread_mutex_destroy(&r.mu);
    arb_buf_free(&why);
}

/* The index writer follows the log by itself: a commit made once it has
 * caught up wakes it, and the index reaches the log a moment later with
 * no index_wait and no close.  No test failed when that wake-up was
 * dropped: the index then lagged until half a chunk of records had
 * gathered in the tail's memory. */
static void
test_follows(void)
{
    static const unsigned char ev[] = { 0x81, 0xa1, 0x6b, 0x01 };
    arb_store_t      *s = open_store("follows", 0);
    arb_store_stats_t st;
    arb_append_t      v;
    int               k, i;

    if (s == NULL)
        return;
    for (k = 0; k < 3; k++) {
        memset(&v, 0, sizeof(v));
        v.match_id = "f";
        v.game = "yahchain";
        v.seq = (uint64_t)k;
        v.bytes = ev;
        v.len = sizeof(ev);
        CHECK_INT(arb_store_append_batch(s, &v, 1, NULL), 0);
        memset(&st, 0, sizeof(st));
        for (i = 0; i < 500; i++) {     /* 5 s: a loaded machine */
            if (arb_store_stats(s, &st, NULL) != 0
                || st.indexed_pos >= v.pos)
                break;
            usleep(10 * 1000);
        }
        CHECK(v.pos > 0 && st.indexed_pos >= v.pos);
    }
    arb_store_close(s);
}

int
main(void)
{
    snprintf(base, sizeof(base), "/tmp/arb_storeix_XXXXXX");
    if (mkdtemp(base) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    test_rebuild();
    test_ryw();
    test_follows();
    rm_store("rebuild");
    rm_store("ryw");
    rm_store("follows");
    if (rmdir(base) != 0)
        fprintf(stderr, "rmdir %s: %s\n", base, strerror(errno));
    return TEST_END();
}
