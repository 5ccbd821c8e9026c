/*
 * fuzz_journal.c - the journal a crashed writer left (core/ledger/journal.c,
 * store_journal.c), on arbitrary bytes: what arb_store_open reads back
 * and re-applies to the log after kill -9 or a power cut, then the
 * derived index built from what it applied, and the reads over both.
 *
 * Once per process a template store is made: a child opens a new store,
 * appends a few events (two matches, client ids, a secret, a close) and
 * dies with its handle open, so its journal holds a checkpoint and the
 * batches past it.  Each input then becomes that store's journal past the
 * checkpoint: a copy of the template's data.mdb, the checkpoint block at
 * the start of the lap's file, then the input's bytes (the other file
 * empty, no index: it is rebuilt from the log).
 *
 * The input's first byte holds flags, the rest is raw journal:
 *   bit 0  number the blocks and recompute their checksums (blocks
 *          follow journal.c's layout: 48-byte header, payload of the
 *          length at byte 8), so the bytes reach the batch parser
 *          rather than stopping at the block's checksum;
 *   bit 1  with bit 0, renumber the batches' first positions so that
 *          each follows the one before from the checkpoint on;
 *   bit 2  open read-only first (a dead writer's journal is applied by
 *          a read-only open too), then writable.
 *
 * Invariants: an open either succeeds or says why; after a successful
 * open every match listed can be read and verified (a failure says why),
 * the global log can be read, the index catches up (or says why), and a
 * writable handle accepts a new match.  No crash, no leak.
 *
 * Corpus: tests/fuzz/corpus/journal (the template's own batches, as they
 * were written and renumbered; torn, stale, malformed and out-of-order
 * batches; a second checkpoint).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sodium.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/ledger/store.h"
#include "core/ledger/store_int.h"
#include "tests/fuzz/fuzz.h"

#define J_HDR   48      /* journal.c's block header */
#define J_SUM   16
#define NMATCH  16      /* matches read back per input, at most */
#define MAP_SIZE ((size_t)1 << 20)

static char           root[64];
static char           tpl[80], work[80];
static unsigned char *tpl_data;         /* the template's data.mdb */
static size_t         tpl_len;
static unsigned char  ck[J_HDR + 8 + 256]; /* its checkpoint block */
static size_t         ck_len;
static int            ck_file;          /* wal.N of the lap */
static uint64_t       ck_lsn, ck_last;
static int            ready;

static void
cleanup(void)
{
    fuzz_rm_dir(tpl);
    fuzz_rm_dir(work);
    rmdir(root);
    free(tpl_data);
}

static int
write_all(const char *path, const void *a, size_t na, const void *b,
          size_t nb)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int ok = fd >= 0 && (na == 0 || write(fd, a, na) == (ssize_t)na)
             && (nb == 0 || write(fd, b, nb) == (ssize_t)nb);

    if (fd >= 0)
        close(fd);
    return ok ? 0 : -1;
}

/* The template's writer: dies with its handle open after its appends. */
static void
template_child(void)
{
    static const char *const ids[2] = { "venue-a/t1", "venue-b/t2" };
    arb_store_opts_t o;
    arb_store_t     *s = NULL;
    arb_append_t     v[2];
    char             bytes[2][48], cid[2][16];
    int              seq, m;

    memset(&o, 0, sizeof(o));
    o.map_size = MAP_SIZE;      /* small files, on a tmpfs too */
    if (arb_store_open(&s, tpl, &o, NULL) != 0)
        _exit(2);
    for (seq = 0; seq < 5; seq++) {
        memset(v, 0, sizeof(v));
        for (m = 0; m < 2; m++) {
            snprintf(bytes[m], sizeof(bytes[m]), "event %d of %s", seq,
                     ids[m]);
            snprintf(cid[m], sizeof(cid[m]), "c%d-%d", m, seq);
            v[m].match_id = ids[m];
            v[m].game = seq == 0 ? "yahchain" : NULL;
            v[m].seq = (uint64_t)seq;
            v[m].time_ms = 1700000000000 + seq;
            v[m].bytes = bytes[m];
            v[m].len = strlen(bytes[m]);
            v[m].client_id = seq % 2 ? cid[m] : NULL;
            v[m].secret = seq == 0 && m == 0 ? "deal secret" : NULL;
            v[m].closes = seq == 4 && m == 1;
        }
        /* a batch of two, then batches of one */
        if (seq == 0 ? arb_store_append_batch(s, v, 2, NULL) != 0
                     : arb_store_append_batch(s, &v[0], 1, NULL) != 0 ||
                       arb_store_append_batch(s, &v[1], 1, NULL) != 0)
            _exit(3);
    }
    _exit(0);
}

static void
setup(void)
{
    unsigned char hdr[2][J_HDR];
    char          p[sizeof(tpl) + 32];
    pid_t         pid;
    int           st, f, fd;

    FUZZ_CHECK(sodium_init() >= 0);
    /* In memory where there is a tmpfs: an open and a close flush
     * several times, and the disk's flushes would set the pace. */
    snprintf(root, sizeof(root), "%s/arb_fuzzj_XXXXXX",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    FUZZ_CHECK(mkdtemp(root) != NULL);
    snprintf(tpl, sizeof(tpl), "%s/tpl", root);
    snprintf(work, sizeof(work), "%s/work", root);
    atexit(cleanup);
    arb__ckpt_ms = 1u << 30;    /* the checkpoint of the open, no other */
    fflush(NULL);
    pid = fork();
    FUZZ_CHECK(pid >= 0);
    if (pid == 0)
        template_child();
    FUZZ_CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st)
               && WEXITSTATUS(st) == 0);
    snprintf(p, sizeof(p), "%s/data.mdb", tpl);
    FUZZ_CHECK(fuzz_read_all(p, &tpl_data, &tpl_len) == 0);
    snprintf(p, sizeof(p), "%s/index.mdb", tpl);
    unlink(p);                  /* derived: each input's is rebuilt */
    /* The lap: the file whose first block (a checkpoint) is newer. */
    for (f = 0; f < 2; f++) {
        memset(hdr[f], 0, J_HDR);
        snprintf(p, sizeof(p), "%s/wal.%d", tpl, f);
        fd = open(p, O_RDONLY);
        if (fd >= 0) {
            if (pread(fd, hdr[f], J_HDR, 0) != J_HDR)
                memset(hdr[f], 0, J_HDR);
            close(fd);
        }
    }
    ck_file = arb_load_be64(hdr[1] + 16) > arb_load_be64(hdr[0] + 16);
    ck_lsn = arb_load_be64(hdr[ck_file] + 16);
    ck_last = arb_load_be64(hdr[ck_file] + 24);
    ck_len = J_HDR + arb_load_be32(hdr[ck_file] + 8);
    FUZZ_CHECK(hdr[ck_file][4] == 2 && ck_len == sizeof(ck));
    snprintf(p, sizeof(p), "%s/wal.%d", tpl, ck_file);
    fd = open(p, O_RDONLY);
    FUZZ_CHECK(fd >= 0 && pread(fd, ck, ck_len, 0) == (ssize_t)ck_len);
    close(fd);
    ready = 1;
}

/* Numbers the input's blocks after the checkpoint and seals them, as
 * far as they are whole (flags: see the top). */
static void
seal(unsigned char *b, size_t n, int renumber)
{
    crypto_generichash_state st;
    uint64_t                 lsn = ck_lsn + 1, next = ck_last + 1;
    size_t                   off = 0, len;

    while (n - off >= J_HDR) {
        len = arb_load_be32(b + off + 8);
        if (len > n - off - J_HDR)
            break;
        arb_store_be64(b + off + 16, lsn++);
        if (renumber && b[off + 4] == 1) {
            arb_store_be64(b + off + 24, next);
            next += arb_load_be32(b + off + 12);
        }
        crypto_generichash_init(&st, NULL, 0, J_SUM);
        crypto_generichash_update(&st, b + off, 32);
        crypto_generichash_update(&st, b + off + J_HDR, len);
        crypto_generichash_final(&st, b + off + 32, J_SUM);
        off += J_HDR + len;
    }
}

typedef struct seen {
    char   id[NMATCH][ARB_STORE_ID_MAX + 1];
    size_t n;
} seen_t;

static int
on_match(void *ud, const arb_match_info_t *m)
{
    seen_t *sn = ud;

    FUZZ_CHECK(memchr(m->match_id, '\0', sizeof(m->match_id)) != NULL);
    if (sn->n < NMATCH)
        memcpy(sn->id[sn->n++], m->match_id, sizeof(m->match_id));
    return 0;
}

static int
on_event(void *ud, uint64_t seq, int64_t time_ms,
         const unsigned char hash[ARB_HASH_LEN], const void *bytes,
         size_t len)
{
    uint64_t *last = ud;

    (void)time_ms;
    (void)hash;
    FUZZ_CHECK(bytes != NULL || len == 0);
    FUZZ_CHECK(*last == UINT64_MAX || seq > *last);
    *last = seq;
    return 0;
}

static int
on_log(void *ud, uint64_t pos, const char *match_id, uint64_t seq,
       int64_t time_ms, const unsigned char hash[ARB_HASH_LEN],
       const void *bytes, size_t len)
{
    uint64_t *last = ud;

    (void)seq;
    (void)time_ms;
    (void)hash;
    (void)bytes;
    (void)len;
    FUZZ_CHECK(match_id != NULL && pos == *last + 1);
    *last = pos;
    return 0;
}

/* Everything a reader does with an opened store; a failure says why. */
static void
read_back(arb_store_t *s, int writable)
{
    arb_buf_t    why = ARB_BUF_INIT;
    arb_append_t v;
    seen_t       sn;
    uint64_t     last;
    size_t       i;
    int          rc;

    memset(&sn, 0, sizeof(sn));
    rc = arb_store_index_wait(s, &why);
    FUZZ_CHECK(rc == 0 || why.len > 0);
    arb_buf_free(&why);
    rc = arb_store_matches(s, on_match, &sn, &why);
    FUZZ_CHECK(rc == 0 || why.len > 0);
    for (i = 0; i < sn.n; i++) {
        arb_buf_free(&why);
        last = UINT64_MAX;
        rc = arb_store_events(s, sn.id[i], 0, UINT64_MAX, on_event, &last,
                              &why);
        FUZZ_CHECK(rc == 0 || why.len > 0);
        arb_buf_free(&why);
        rc = arb_store_verify(s, sn.id[i], &why);
        FUZZ_CHECK(rc == 0 || why.len > 0);
    }
    arb_buf_free(&why);
    last = 0;
    rc = arb_store_log(s, NULL, 1, 0, on_log, &last, &why);
    FUZZ_CHECK(rc == 0 || why.len > 0);
    if (writable) {
        memset(&v, 0, sizeof(v));
        v.match_id = "fuzz-new";
        v.game = "yahchain";
        v.bytes = "open";
        v.len = 4;
        arb_buf_free(&why);
        rc = arb_store_append_batch(s, &v, 1, &why);
        FUZZ_CHECK(rc == 0 || why.len > 0);
    }
    arb_buf_free(&why);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    arb_store_opts_t o;
    arb_store_t     *s = NULL;
    arb_buf_t        why = ARB_BUF_INIT;
    unsigned char   *tail = NULL;
    char             p[sizeof(work) + 32];
    size_t           n;
    int              flags, rc;

    if (!ready)
        setup();
    if (size == 0)
        return 0;
    flags = data[0];
    n = size - 1;
    if (n > 0) {
        FUZZ_CHECK((tail = malloc(n)) != NULL);
        memcpy(tail, data + 1, n);
        if (flags & 1)
            seal(tail, n, flags & 2);
    }
    fuzz_rm_dir(work);
    FUZZ_CHECK(mkdir(work, 0700) == 0);
    snprintf(p, sizeof(p), "%s/data.mdb", work);
    FUZZ_CHECK(write_all(p, tpl_data, tpl_len, NULL, 0) == 0);
    snprintf(p, sizeof(p), "%s/wal.%d", work, ck_file);
    FUZZ_CHECK(write_all(p, ck, ck_len, tail, n) == 0);
    snprintf(p, sizeof(p), "%s/wal.%d", work, 1 - ck_file);
    FUZZ_CHECK(write_all(p, NULL, 0, NULL, 0) == 0);
    free(tail);

    memset(&o, 0, sizeof(o));
    o.map_size = MAP_SIZE;
    o.map_max = 8 * MAP_SIZE;
    if (flags & 4) {
        o.read_only = 1;
        rc = arb_store_open(&s, work, &o, &why);
        FUZZ_CHECK(rc == 0 || why.len > 0);
        if (rc == 0)
            read_back(s, 0);
        arb_store_close(s);
        s = NULL;
        o.read_only = 0;
    }
    arb_buf_free(&why);
    rc = arb_store_open(&s, work, &o, &why);
    FUZZ_CHECK(rc == 0 || why.len > 0);
    if (rc == 0)
        read_back(s, 1);
    arb_store_close(s);
    arb_buf_free(&why);
    return 0;
}
