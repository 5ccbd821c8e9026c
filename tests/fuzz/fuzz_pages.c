/*
 * fuzz_pages.c - `arbiter check` on a store whose LMDB pages are damaged:
 * the page walk (core/ledger/lmdb_walk.c, arb_store_check_pages) and,
 * when it finds data.mdb whole, the store opened read-only (without its
 * index when the walk found that damaged) and checked in full.
 *
 * Once per process a template store is written (three matches, an event
 * long enough for overflow pages, client ids, a deal secret, two opens so
 * that its free list holds pages) and closed cleanly.  Each input patches
 * a copy of its files: the input is a list of patches, each
 *   u8 file (bit 0: index.mdb, else data.mdb), u16 page (big-endian),
 *   u16 offset in the page, u8 length, then length bytes
 * (a patch past a file's end is cut short at it).
 *
 * Invariant: no crash, no hang, no leak: LMDB must never be let near a
 * page the walk would call damaged, and whatever the walk passes LMDB
 * reads without faulting.  (Before the walk, a damaged page header made
 * the check die of SIGSEGV: tests/unit/test_lmdb_walk.c.)
 *
 * Corpus: tests/fuzz/corpus/pages (no patch; page headers, branch
 * children, entry offsets, overflow numbers and the free list spoilt).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/err.h"
#include "core/ledger/check.h"
#include "core/ledger/store.h"
#include "tests/fuzz/fuzz.h"

#define MAP_SIZE ((size_t)1 << 20)
#define BIG      3000           /* bytes of one event: overflow pages */
#define NFILES   4

static const char *const files[NFILES] = {
    "data.mdb", "index.mdb", "wal.0", "wal.1"
};
static char           root[64], tpl[80], work[80];
static unsigned char *tpl_data[NFILES];
static size_t         tpl_len[NFILES];
static long           psize;
static int            ready;

static void
cleanup(void)
{
    int i;

    fuzz_rm_dir(tpl);
    fuzz_rm_dir(work);
    rmdir(root);
    for (i = 0; i < NFILES; i++)
        free(tpl_data[i]);
}

static void
write_template(void)
{
    static const char *const ids[3] = { "R1-T1", "R1-T2", "R1-T3" };
    static char              big[BIG];
    arb_store_opts_t         o;
    arb_store_t             *s = NULL;
    arb_append_t             v[3];
    char                     bytes[3][48], cid[3][32];
    int                      seq, m, round;

    memset(big, 'b', sizeof(big));
    memset(&o, 0, sizeof(o));
    o.map_size = MAP_SIZE;
    for (round = 0; round < 2; round++) {
        FUZZ_CHECK(arb_store_open(&s, tpl, &o, NULL) == 0);
        for (seq = round * 20; seq < (round + 1) * 20; seq++) {
            memset(v, 0, sizeof(v));
            for (m = 0; m < 3; m++) {
                snprintf(bytes[m], sizeof(bytes[m]), "event %d of %s", seq,
                         ids[m]);
                snprintf(cid[m], sizeof(cid[m]), "c%d-%d", m, seq);
                v[m].match_id = ids[m];
                v[m].game = seq == 0 ? "yahchain" : NULL;
                v[m].seq = (uint64_t)seq;
                v[m].time_ms = 1700000000000 + seq;
                v[m].bytes = seq == 7 && m == 2 ? big : bytes[m];
                v[m].len = seq == 7 && m == 2 ? sizeof(big)
                                              : strlen(bytes[m]);
                v[m].client_id = seq % 2 ? cid[m] : NULL;
                v[m].secret = seq == 0 && m == 0 ? "deal secret" : NULL;
            }
            FUZZ_CHECK(arb_store_append_batch(s, v, 3, NULL) == 0);
        }
        FUZZ_CHECK(arb_store_index_wait(s, NULL) == 0);
        arb_store_close(s);
        s = NULL;
    }
}

static void
setup(void)
{
    char p[sizeof(tpl) + 32];
    int  i;

    psize = sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : 4096;
    snprintf(root, sizeof(root), "%s/arb_fuzzp_XXXXXX",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    FUZZ_CHECK(mkdtemp(root) != NULL);
    snprintf(tpl, sizeof(tpl), "%s/tpl", root);
    snprintf(work, sizeof(work), "%s/work", root);
    atexit(cleanup);
    write_template();
    for (i = 0; i < NFILES; i++) {
        snprintf(p, sizeof(p), "%s/%s", tpl, files[i]);
        FUZZ_CHECK(fuzz_read_all(p, &tpl_data[i], &tpl_len[i]) == 0);
    }
    ready = 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    arb_store_pages_t   pg;
    arb_store_opts_t    o;
    arb_check_summary_t sum;
    arb_store_t        *s = NULL;
    unsigned char      *f[2];
    char                p[sizeof(work) + 32];
    size_t              i, at, off, n;
    int                 k, fd;

    if (!ready)
        setup();
    fuzz_rm_dir(work);
    FUZZ_CHECK(mkdir(work, 0700) == 0);
    for (k = 0; k < 2; k++) {
        f[k] = malloc(tpl_len[k] + 1);
        FUZZ_CHECK(f[k] != NULL);
        memcpy(f[k], tpl_data[k], tpl_len[k]);
    }
    for (i = 0; i + 6 <= size; i += 6 + n) {
        k = data[i] & 1;
        off = ((size_t)data[i + 1] << 8 | data[i + 2]) * (size_t)psize
              + ((size_t)data[i + 3] << 8 | data[i + 4]);
        n = data[i + 5];
        for (at = 0; at < n && i + 6 + at < size; at++)
            if (off + at < tpl_len[k])
                f[k][off + at] = data[i + 6 + at];
    }
    for (k = 0; k < NFILES; k++) {
        snprintf(p, sizeof(p), "%s/%s", work, files[k]);
        fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        FUZZ_CHECK(fd >= 0);
        n = tpl_len[k];
        FUZZ_CHECK(n == 0 || write(fd, k < 2 ? f[k] : tpl_data[k], n)
                   == (ssize_t)n);
        close(fd);
    }
    free(f[0]);
    free(f[1]);
    /* As `arbiter check` goes: the pages, then (the log whole) LMDB. */
    if (arb_store_check_pages(work, NULL, NULL, NULL, &pg, NULL) != 0
        || pg.log_damaged)
        return 0;
    memset(&o, 0, sizeof(o));
    o.read_only = 1;
    o.skip_index = pg.index_damaged;
    if (arb_store_open(&s, work, &o, NULL) == 0) {
        (void)arb_check_store(s, NULL, NULL, NULL, &sum, NULL);
        arb_store_close(s);
    }
    return 0;
}
