/*
 * test_store_links.c - a read of the whole log checks every hash link
 * (arb_store_log, core/ledger/store_links.c).
 *
 * A store of 3,001 matches (more than the read's memory of links holds,
 * so it starts again empty on the way) is read whole, a record at a time
 * and unchecked: the same events.  Then a byte of two events' bytes is
 * changed in data.mdb, as a disk or a hand would, and each way of meeting
 * the changed event refuses it, naming match and seq: its predecessor
 * met in the same read, remembered from an earlier read, or looked up.
 * The unchecked read still hands over everything (arbiter check's).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/ledger/store.h"
#include "tests/test.h"

#define NM    3000              /* matches m0000.. besides x */
#define BATCH 500

static char dir[64];

typedef struct seen {
    uint64_t n;
    uint64_t last_pos;
} seen_t;

static int
on_log(void *ud, uint64_t pos, const char *match_id, uint64_t seq,
       int64_t time_ms, const unsigned char hash[ARB_HASH_LEN],
       const void *bytes, size_t len)
{
    seen_t *sn = ud;

    (void)match_id, (void)seq, (void)time_ms, (void)hash, (void)bytes;
    (void)len;
    sn->n++;
    sn->last_pos = pos;
    return 0;
}

static arb_store_t *
open_store(void)
{
    arb_store_opts_t o;
    arb_store_t     *s = NULL;
    arb_buf_t        why = ARB_BUF_INIT;
    int              rc;

    memset(&o, 0, sizeof(o));
    rc = arb_store_open(&s, dir, &o, &why);
    if (rc != 0)
        fprintf(stderr, "open %s: %s\n", dir, arb_buf_cstr(&why));
    CHECK_INT(rc, 0);
    arb_buf_free(&why);
    return rc == 0 ? s : NULL;
}

/* Appends one event, in batches of BATCH (flush: the rest now). */
static void
add(arb_store_t *s, const char *match, uint64_t seq, int flush)
{
    static arb_append_t v[BATCH];
    static char         ids[BATCH][16], bytes[BATCH][32];
    static size_t       n;
    arb_buf_t           why = ARB_BUF_INIT;
    int                 rc;

    if (match != NULL) {
        memset(&v[n], 0, sizeof(v[n]));
        snprintf(ids[n], sizeof(ids[n]), "%s", match);
        snprintf(bytes[n], sizeof(bytes[n]), "%s-%llu-body", match,
                 (unsigned long long)seq);
        v[n].match_id = ids[n];
        v[n].game = seq == 0 ? "g" : NULL;
        v[n].seq = seq;
        v[n].time_ms = 1700000000000;
        v[n].bytes = bytes[n];
        v[n].len = strlen(bytes[n]);
        n++;
    }
    if (n == 0 || (n < BATCH && !flush))
        return;
    rc = arb_store_append_batch(s, v, n, &why);
    if (rc != 0)
        fprintf(stderr, "append: %s\n", arb_buf_cstr(&why));
    CHECK_INT(rc, 0);
    arb_buf_free(&why);
    n = 0;
}

/* Changes one byte of every copy of pat in DIR/data.mdb (a log page may
 * have older copies that LMDB freed).  The copies changed. */
static int
spoil(const char *pat)
{
    char   path[128];
    FILE  *f;
    char  *d;
    long   size;
    size_t plen = strlen(pat), i;
    int    n = 0;

    snprintf(path, sizeof(path), "%s/data.mdb", dir);
    if ((f = fopen(path, "r+b")) == NULL)
        return -1;
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    rewind(f);
    d = malloc((size_t)size);
    if (d == NULL || fread(d, 1, (size_t)size, f) != (size_t)size) {
        free(d);
        fclose(f);
        return -1;
    }
    for (i = 0; i + plen <= (size_t)size; i++)
        if (memcmp(d + i, pat, plen) == 0) {
            d[i + plen - 1] ^= 0x20;    /* "body" -> "boDy" */
            n++;
        }
    rewind(f);
    if (fwrite(d, 1, (size_t)size, f) != (size_t)size)
        n = -1;
    free(d);
    if (fclose(f) != 0)
        n = -1;
    return n;
}

/* The log read a record at a time from pos with one memory of links:
 * the records read, and the first failure's code. */
static int
piecewise(arb_store_t *s, arb_store_links_t *lk, uint64_t pos,
          seen_t *sn, arb_buf_t *why)
{
    int rc;

    for (;; pos++) {
        uint64_t had = sn->n;

        rc = arb_store_log(s, lk, pos, 1, on_log, sn, why);
        if (rc != 0 || sn->n == had)
            return rc;
    }
}

static const char *
bad_link(const char *match, unsigned seq)
{
    static char m[256];

    snprintf(m, sizeof(m), "match \"%s\" seq %u: stored hash does not "
             "match the chain (its bytes or a hash changed on disk since "
             "it was recorded): run arbiter check", match, seq);
    return m;
}

static int
on_event(void *ud, uint64_t seq, int64_t t,
         const unsigned char hash[ARB_HASH_LEN], const void *bytes,
         size_t len)
{
    (void)ud, (void)seq, (void)t, (void)hash, (void)bytes, (void)len;
    return 0;
}

int
main(void)
{
    arb_store_t       *s;
    arb_store_links_t *lk;
    arb_buf_t          why = ARB_BUF_INIT;
    seen_t             sn;
    char               id[16], path[128];
    unsigned           i;
    uint64_t           all = 3 + NM + 2 + NM;

    snprintf(dir, sizeof(dir), "/tmp/arb_links_XXXXXX");
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    /* positions: x/0..2 1-3, m0000/0.. 4-3003, x/3 3004, x/4 3005,
     * m0000/1.. 3006-6005 */
    if ((s = open_store()) == NULL)
        goto done;
    add(s, "x", 0, 0);
    add(s, "x", 1, 0);
    add(s, "x", 2, 0);
    for (i = 0; i < NM; i++) {
        snprintf(id, sizeof(id), "m%04u", i);
        add(s, id, 0, 0);
    }
    add(s, NULL, 0, 1);
    add(s, "x", 3, 0);
    add(s, "x", 4, 1);
    for (i = 0; i < NM; i++) {
        snprintf(id, sizeof(id), "m%04u", i);
        add(s, id, 1, 0);
    }
    add(s, NULL, 0, 1);

    /* Whole, a record at a time, and unchecked: the same events. */
    memset(&sn, 0, sizeof(sn));
    CHECK_INT(arb_store_log(s, NULL, 1, 0, on_log, &sn, &why), 0);
    CHECK_INT(sn.n, all);
    CHECK_INT(sn.last_pos, all);
    lk = arb_store_links_new(0);
    CHECK(lk != NULL);
    memset(&sn, 0, sizeof(sn));
    CHECK_INT(piecewise(s, lk, 1, &sn, &why), 0);
    CHECK_INT(sn.n, all);
    /* Read again from an earlier place (a replicator resuming from its
     * cursor): what it remembers of x is later than x/1's predecessor. */
    memset(&sn, 0, sizeof(sn));
    CHECK_INT(arb_store_log(s, lk, 1, 3, on_log, &sn, &why), 0);
    CHECK_INT(arb_store_log(s, lk, 2, 1, on_log, &sn, &why), 0);
    CHECK_INT(sn.n, 4);
    arb_store_links_free(lk);
    memset(&sn, 0, sizeof(sn));
    CHECK_INT(arb_store_log_unchecked(s, 1, 0, on_log, &sn, &why), 0);
    CHECK_INT(sn.n, all);
    arb_store_close(s);

    /* A byte of x/3 and of the last event changed on the disk. */
    CHECK(spoil("x-3-body") > 0);
    CHECK(spoil("m2999-1-body") > 0);
    if ((s = open_store()) == NULL)
        goto done;
    /* Met after its predecessor in the same read. */
    memset(&sn, 0, sizeof(sn));
    CHECK_INT(arb_store_log(s, NULL, 1, 0, on_log, &sn, &why),
              ARB_ECORRUPT);
    CHECK_STR(arb_buf_cstr(&why), bad_link("x", 3));
    CHECK_INT(sn.n, 3003);
    /* First of its match in the read: its predecessor looked up. */
    memset(&sn, 0, sizeof(sn));
    CHECK_INT(arb_store_log(s, NULL, 3004, 1, on_log, &sn, &why),
              ARB_ECORRUPT);
    CHECK_STR(arb_buf_cstr(&why), bad_link("x", 3));
    CHECK_INT(sn.n, 0);
    /* Its successor links to its stored hash, which did not change; the
     * last event, after the memory started again, is refused. */
    memset(&sn, 0, sizeof(sn));
    CHECK_INT(arb_store_log(s, NULL, 3005, 0, on_log, &sn, &why),
              ARB_ECORRUPT);
    CHECK_STR(arb_buf_cstr(&why), bad_link("m2999", 1));
    CHECK_INT(sn.n, all - 3005);
    /* Remembered from an earlier read of x/0..2, with room for all. */
    lk = arb_store_links_new(NM + 1);
    memset(&sn, 0, sizeof(sn));
    CHECK_INT(arb_store_log(s, lk, 1, 3, on_log, &sn, &why), 0);
    CHECK_INT(arb_store_log(s, lk, 3004, 1, on_log, &sn, &why),
              ARB_ECORRUPT);
    CHECK_STR(arb_buf_cstr(&why), bad_link("x", 3));
    CHECK_INT(sn.n, 3);
    /* A record at a time from the start. */
    memset(&sn, 0, sizeof(sn));
    CHECK_INT(piecewise(s, lk, 1, &sn, &why), ARB_ECORRUPT);
    CHECK_STR(arb_buf_cstr(&why), bad_link("x", 3));
    CHECK_INT(sn.n, 3003);
    memset(&sn, 0, sizeof(sn));
    CHECK_INT(piecewise(s, lk, 3005, &sn, &why), ARB_ECORRUPT);
    CHECK_STR(arb_buf_cstr(&why), bad_link("m2999", 1));
    CHECK_INT(sn.n, all - 3005);
    arb_store_links_free(lk);
    arb_store_links_free(NULL);
    /* A read of the match says the same; unchecked, all is handed over. */
    CHECK_INT(arb_store_events(s, "x", 0, UINT64_MAX, on_event, NULL,
                               &why), ARB_ECORRUPT);
    memset(&sn, 0, sizeof(sn));
    CHECK_INT(arb_store_log_unchecked(s, 1, 0, on_log, &sn, &why), 0);
    CHECK_INT(sn.n, all);
    arb_store_close(s);
done:
    arb_buf_free(&why);
    for (i = 0; i < 6; i++) {
        static const char *const f[] = { "data.mdb", "lock.mdb",
                                         "index.mdb", "index.mdb-lock",
                                         "wal.0", "wal.1" };

        snprintf(path, sizeof(path), "%s/%s", dir, f[i]);
        unlink(path);
    }
    if (rmdir(dir) != 0)
        fprintf(stderr, "rmdir %s: %s\n", dir, strerror(errno));
    return TEST_END();
}
