/*
 * test_store_adopt.c - a read-only store whose map another process grew.
 *
 * A writer (a child process, forked before anything is opened here)
 * grows the store's map past what the reader in this process mapped at
 * its open.  The reader's next read adopts the new size (LMDB's
 * MDB_MAP_RESIZED, arb__txn_begin) and sees every event.  Then, while a
 * thread of the reader holds a read of the log open, the writer grows the
 * map again: another thread's read cannot adopt the size before that read
 * ends; it gives up after 5 s with a message (a thread holding a share of
 * one map may be adopting the other: core/ledger/store.c), and reads once
 * the long read ended.  Until 2026-12-07 it waited on the lock for as long
 * as the read lasted, holding the store's write lock the long read's own
 * lookups may need.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/ledger/store.h"
#include "tests/test.h"

#define MAP0 (64 << 10)         /* the map at first */

static char dir[64];

static arb_store_t *
open_store(int ro)
{
    arb_store_opts_t o;
    arb_store_t     *s = NULL;
    arb_buf_t        why = ARB_BUF_INIT;

    memset(&o, 0, sizeof(o));
    o.map_size = MAP0;
    o.read_only = ro;
    if (arb_store_open(&s, dir, &o, &why) != 0) {
        fprintf(stderr, "open %s: %s\n", dir, arb_buf_cstr(&why));
        s = NULL;
    }
    arb_buf_free(&why);
    return s;
}

/* Appends events of 600 bytes to match "a" from seq until the map grew
 * twice more: the seq after the last.  0 on failure. */
static uint64_t
grow(arb_store_t *s, uint64_t seq)
{
    arb_store_stats_t st;
    arb_append_t      v;
    arb_buf_t         why = ARB_BUF_INIT;
    char              bytes[600];
    uint64_t          grows0;
    int               i;

    if (arb_store_stats(s, &st, &why) != 0)
        return 0;
    grows0 = st.grows;
    for (i = 0; i < 5000 && st.grows < grows0 + 2; i++, seq++) {
        memset(bytes, 'a' + (int)(seq % 26), sizeof(bytes));
        memset(&v, 0, sizeof(v));
        v.match_id = "a";
        v.game = seq == 0 ? "g" : NULL;
        v.seq = seq;
        v.bytes = bytes;
        v.len = sizeof(bytes);
        if (arb_store_append_batch(s, &v, 1, &why) != 0
            || arb_store_stats(s, &st, &why) != 0) {
            fprintf(stderr, "writer: %s\n", arb_buf_cstr(&why));
            return 0;
        }
    }
    arb_buf_free(&why);
    return st.grows >= grows0 + 2 ? seq : 0;
}

/* The writer: at each byte from the parent, the map grown twice more;
 * the new event count back. */
static int
writer(int in, int out)
{
    arb_store_t *s = open_store(0);
    uint64_t     seq = 1;
    char         c;

    if (s == NULL)
        return 1;
    while (read(in, &c, 1) == 1) {
        if ((seq = grow(s, seq)) == 0)
            break;
        if (write(out, &seq, sizeof(seq)) != sizeof(seq))
            break;
    }
    arb_store_close(s);
    return seq == 0;
}

static uint64_t
ask_grow(int to, int from)
{
    uint64_t n = 0;

    if (write(to, "g", 1) != 1 || read(from, &n, sizeof(n)) != sizeof(n))
        return 0;
    return n;
}

static int
count_cb(void *ud, uint64_t seq, int64_t t,
         const unsigned char hash[ARB_HASH_LEN], const void *bytes,
         size_t len)
{
    (void)seq, (void)t, (void)hash, (void)bytes, (void)len;
    ++*(uint64_t *)ud;
    return 0;
}

/* A long read of the log: it stops at its first record until released. */
typedef struct longread {
    arb_store_t *s;
    atomic_int   holding, release;
    int          rc;
} longread_t;

static int
hold_cb(void *ud, uint64_t pos, const char *match_id, uint64_t seq,
        int64_t t, const unsigned char hash[ARB_HASH_LEN], const void *bytes,
        size_t len)
{
    longread_t *lr = ud;

    (void)pos, (void)match_id, (void)seq, (void)t, (void)hash, (void)bytes;
    (void)len;
    atomic_store(&lr->holding, 1);
    while (!atomic_load(&lr->release))
        usleep(1000);
    return 1;
}

static void *
longread_main(void *ud)
{
    longread_t *lr = ud;

    lr->rc = arb_store_log(lr->s, NULL, 1, 1, hold_cb, lr, NULL);
    return NULL;
}

static int64_t
now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int
main(void)
{
    arb_store_t *s;
    arb_buf_t    why = ARB_BUF_INIT;
    longread_t   lr;
    pthread_t    th;
    int          to[2], from[2], st = 0;
    pid_t        pid;
    uint64_t     n, got;
    int64_t      t0;
    char         path[128];

    alarm(120);                 /* a wait that never ends fails */
    snprintf(dir, sizeof(dir), "/tmp/arb_adopt_XXXXXX");
    if (mkdtemp(dir) == NULL || pipe(to) != 0 || pipe(from) != 0) {
        perror("set-up");
        return 1;
    }
    /* The store, with match a open, made before the writer forks. */
    if ((s = open_store(0)) == NULL)
        return 1;
    {
        arb_append_t v;

        memset(&v, 0, sizeof(v));
        v.match_id = "a";
        v.game = "g";
        v.bytes = "open";
        v.len = 4;
        CHECK_INT(arb_store_append_batch(s, &v, 1, &why), 0);
    }
    arb_store_close(s);
    pid = fork();
    if (pid == 0) {
        close(to[1]);
        close(from[0]);
        _exit(writer(to[0], from[1]));
    }
    close(to[0]);
    close(from[1]);
    CHECK(pid > 0);

    s = open_store(1);
    CHECK(s != NULL);
    if (s == NULL || pid < 0)
        goto done;
    n = 0;
    CHECK_INT(arb_store_events(s, "a", 0, UINT64_MAX, count_cb, &n, &why),
              0);
    CHECK_INT(n, 1);

    /* Grown by the writer: adopted at the next read, every event seen. */
    n = ask_grow(to[1], from[0]);
    CHECK(n > 1);
    got = 0;
    CHECK_INT(arb_store_events(s, "a", 0, UINT64_MAX, count_cb, &got, &why),
              0);
    CHECK_INT(got, n);

    /* Grown again while another thread holds a read of the log. */
    memset(&lr, 0, sizeof(lr));
    lr.s = s;
    atomic_init(&lr.holding, 0);
    atomic_init(&lr.release, 0);
    CHECK_INT(pthread_create(&th, NULL, longread_main, &lr), 0);
    while (!atomic_load(&lr.holding))
        usleep(1000);
    n = ask_grow(to[1], from[0]);
    CHECK(n > got);
    t0 = now_ms();
    got = 0;
    CHECK_INT(arb_store_events(s, "a", 0, UINT64_MAX, count_cb, &got, &why),
              ARB_ESTORE);
    CHECK_STR(arb_buf_cstr(&why), "another process grew the store's map, "
              "and a read of this one held the map past 5 s: run it again");
    CHECK(now_ms() - t0 >= 4900);
    atomic_store(&lr.release, 1);
    pthread_join(th, NULL);
    CHECK_INT(lr.rc, 1);
    got = 0;
    CHECK_INT(arb_store_events(s, "a", 0, UINT64_MAX, count_cb, &got, &why),
              0);
    CHECK_INT(got, n);
done:
    arb_store_close(s);
    close(to[1]);               /* the writer ends */
    if (pid > 0) {
        waitpid(pid, &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    close(from[0]);
    arb_buf_free(&why);
    {
        static const char *const f[] = { "data.mdb", "lock.mdb",
                                         "index.mdb", "index.mdb-lock",
                                         "wal.0", "wal.1" };
        size_t i;

        for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
            snprintf(path, sizeof(path), "%s/%s", dir, f[i]);
            unlink(path);
        }
    }
    if (rmdir(dir) != 0)
        fprintf(stderr, "rmdir %s: %s\n", dir, strerror(errno));
    return TEST_END();
}
