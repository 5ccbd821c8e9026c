/*
 * test_damaged_tail.c - a log whose records past the index's mark (the
 * tail, store_tail.c) break what every append keeps: one client id used
 * twice in a match, a match's seq repeated, skipped or going backwards.
 *
 * No append can write such a log (the batch is checked first), so each
 * case writes a store through the API, closes it, and puts the damaged
 * records past the mark with raw LMDB, in the layout of docs/STORE.md,
 * their hashes linked as an append links them: only the one thing is
 * wrong.  A read-only handle builds its tail from those records when it
 * opens (arb__ro_refresh), so the open must be refused as corrupt, with
 * a message that names the log key and what is wrong there.  A control
 * case each time: the same records, undamaged, open.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lmdb.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/ledger/chain.h"
#include "core/ledger/store.h"
#include "core/ledger/store_int.h"
#include "tests/store_scratch.h"
#include "tests/test.h"

/* Store `name`: x/0 (1), x/1 with client id "c1" (2), y/0 (3), closed
 * cleanly, so the index holds all three: its mark is 3. */
static int
make_store(const char *name)
{
    arb_store_t  *s = NULL;
    arb_append_t  v[3];
    arb_buf_t     why = ARB_BUF_INIT;
    int           rc;

    memset(v, 0, sizeof(v));
    v[0].match_id = "x";
    v[0].game = "g";
    v[0].bytes = "open-x";
    v[1].match_id = "x";
    v[1].seq = 1;
    v[1].bytes = "x-1";
    v[1].client_id = "c1";
    v[2].match_id = "y";
    v[2].game = "g";
    v[2].bytes = "open-y";
    for (rc = 0; rc < 3; rc++) {
        v[rc].time_ms = 1700000000000 + rc;
        v[rc].len = strlen(v[rc].bytes);
    }
    rc = arb_store_open(&s, subdir(name), NULL, &why);
    if (rc == 0)
        rc = arb_store_append_batch(s, v, 3, &why);
    if (rc != 0)
        fprintf(stderr, "make_store %s: %s\n", name, arb_buf_cstr(&why));
    arb_store_close(s);
    arb_buf_free(&why);
    return rc;
}

/* The log environment of store `name` through raw LMDB, its "log" db in
 * *dbi, a write transaction begun. */
static int
raw_begin(const char *name, MDB_env **env, MDB_txn **txn, MDB_dbi *dbi)
{
    int rc;

    *env = NULL;
    *txn = NULL;
    rc = mdb_env_create(env);
    if (rc == 0)
        rc = mdb_env_set_maxdbs(*env, 8);
    if (rc == 0)
        rc = mdb_env_open(*env, subdir(name), 0, 0600);
    if (rc == 0)
        rc = mdb_txn_begin(*env, NULL, 0, txn);
    if (rc == 0)
        rc = mdb_dbi_open(*txn, "log", 0, dbi);
    return rc;
}

static void
raw_end(MDB_env *env, MDB_txn *txn, int *rc)
{
    if (*rc == 0 && txn != NULL)
        *rc = mdb_txn_commit(txn);
    else if (txn != NULL)
        mdb_txn_abort(txn);
    mdb_env_close(env);
    if (*rc != 0)
        fprintf(stderr, "raw log: %s\n", mdb_strerror(*rc));
}

/* One record to put into the log (a seq 0 gets the game "yahchain"). */
typedef struct raw_rec {
    const char *id;
    uint64_t    seq;
    const char *cid;            /* NULL: none */
    const char *bytes;
    uint64_t    link;           /* its hash follows that position's;
                                   0: the record put before it */
} raw_rec_t;

/* Puts n records at positions pos.. of store `name`, each hash linked as
 * an append links a match's events (to rr[i].link's record, or to the
 * one before it): only what a test damages is wrong. */
static int
raw_append(const char *name, uint64_t pos, const raw_rec_t *rr, size_t n)
{
    MDB_env       *env;
    MDB_txn       *txn;
    MDB_dbi        dbi;
    MDB_val        k, d;
    static const char game[] = "yahchain";
    unsigned char  kb[8], v[256], h[ARB_HASH_LEN];
    size_t         i, il, cl, gl, bl;
    int            rc;

    memset(h, 0, sizeof(h));
    rc = raw_begin(name, &env, &txn, &dbi);
    for (i = 0; rc == 0 && i < n; i++) {
        if (rr[i].link != 0) {
            arb__put64(kb, rr[i].link);
            k.mv_data = kb;
            k.mv_size = 8;
            rc = mdb_get(txn, dbi, &k, &d);
            if (rc == 0 && d.mv_size < LR_HDR)
                rc = MDB_CORRUPTED;
            if (rc != 0)
                break;
            memcpy(h, (unsigned char *)d.mv_data + LR_HASH, ARB_HASH_LEN);
        }
        il = strlen(rr[i].id);
        cl = rr[i].cid != NULL ? strlen(rr[i].cid) : 0;
        gl = rr[i].seq == 0 ? strlen(game) : 0;
        bl = strlen(rr[i].bytes);
        memset(v, 0, LR_HDR);
        v[LR_IDLEN] = (unsigned char)il;
        v[LR_CIDLEN] = (unsigned char)cl;
        v[LR_GLEN] = (unsigned char)gl;
        arb__put64(v + LR_SEQ, rr[i].seq);
        arb__put64(v + LR_TIME, 1700000001000 + rr[i].seq);
        arb_chain_next(h, rr[i].bytes, bl, h);
        memcpy(v + LR_HASH, h, ARB_HASH_LEN);
        memcpy(v + LR_HDR, rr[i].id, il);
        if (cl > 0)
            memcpy(v + LR_HDR + il, rr[i].cid, cl);
        memcpy(v + LR_HDR + il + cl, game, gl);
        memcpy(v + LR_HDR + il + cl + gl, rr[i].bytes, bl);
        arb__put64(kb, pos + i);
        k.mv_data = kb;
        k.mv_size = 8;
        d.mv_data = v;
        d.mv_size = LR_HDR + il + cl + gl + bl;
        rc = mdb_put(txn, dbi, &k, &d, MDB_NOOVERWRITE);
    }
    raw_end(env, txn, &rc);
    return rc;
}

/* A fresh store `name` with rr (n records) put past its mark, opened
 * read-only (or, with rw, read-write: the open indexes them): the open's
 * code, its message in why, *s the handle when it opened. */
static int
open_damaged(const char *name, const raw_rec_t *rr, size_t n, int rw,
             arb_store_t **s, arb_buf_t *why)
{
    arb_store_opts_t o;

    *s = NULL;
    rm_store(name);
    if (make_store(name) != 0 || raw_append(name, 4, rr, n) != 0)
        return -1;
    memset(&o, 0, sizeof(o));
    o.read_only = !rw;
    arb_buf_free(why);
    return arb_store_open(s, subdir(name), &o, why);
}

/* Opens store `name` damaged with rr: refused as corrupt, saying want,
 * by a read-only open (its tail) and by a read-write one (its index
 * writer): until 2026-12-07 the second overwrote a client id's entry with
 * its second use, and verify then passed. */
static void
check_refused(const char *name, const raw_rec_t *rr, size_t n,
              const char *want)
{
    arb_store_t *s;
    arb_buf_t    why = ARB_BUF_INIT;
    int          rc, rw;

    for (rw = 0; rw < 2; rw++) {
        rc = open_damaged(name, rr, n, rw, &s, &why);
        CHECK_INT(rc, ARB_ECORRUPT);
        CHECK_STR(arb_buf_cstr(&why), want);
        CHECK(s == NULL);
        if (rc != ARB_ECORRUPT || s != NULL)
            fprintf(stderr, "    (case %s, %s)\n", name,
                    rw ? "read-write" : "read-only");
        arb_store_close(s);
        rm_store(name);
    }
    arb_buf_free(&why);
}

/* The same damage met by the bulk build of a missing index
 * (store_rebuild.c), which sorts the log's entries by key instead of
 * reading it in order: refused too, saying want, and never built into
 * an index that the chunked path would not have written. */
static void
check_bulk_refused(const char *name, const raw_rec_t *rr, size_t n,
                   const char *want)
{
    arb_store_t *s = NULL;
    arb_buf_t    why = ARB_BUF_INIT;
    char         path[600];

    rm_store(name);
    CHECK(make_store(name) == 0 && raw_append(name, 4, rr, n) == 0);
    snprintf(path, sizeof(path), "%s/index.mdb", subdir(name));
    CHECK_INT(unlink(path), 0);
    CHECK_INT(arb_store_open(&s, subdir(name), NULL, &why), ARB_ECORRUPT);
    CHECK_STR(arb_buf_cstr(&why), want);
    CHECK(s == NULL);
    arb_store_close(s);
    rm_store(name);
    arb_buf_free(&why);
}

/* Opens store `name` with rr, which holds: it opens, and the tail
 * serves x up to seq `last` and the idempotency of client id `cid` of
 * match `cid_match` (at seq `cid_seq`). */
static void
check_opens(const char *name, const raw_rec_t *rr, size_t n, uint64_t last,
            const char *cid_match, const char *cid, uint64_t cid_seq)
{
    arb_store_t       *s;
    arb_store_stats_t  st;
    arb_match_info_t   m;
    arb_buf_t          why = ARB_BUF_INIT;
    uint64_t           seq = 0;

    CHECK_INT(open_damaged(name, rr, n, 0, &s, &why), 0);
    if (s == NULL) {
        fprintf(stderr, "%s: %s\n", name, arb_buf_cstr(&why));
        rm_store(name);
        arb_buf_free(&why);
        return;
    }
    /* The records are in the tail indeed, past a mark at 3. */
    CHECK_INT(arb_store_stats(s, &st, &why), 0);
    CHECK_INT(st.indexed_pos, 3);
    CHECK_INT(st.tail_events, n);
    CHECK_INT(arb_store_match(s, "x", &m, &why), 0);
    CHECK_INT(m.last_seq, last);
    CHECK_INT(arb_store_idem(s, cid_match, cid, &seq, NULL, &why), 0);
    CHECK_INT(seq, cid_seq);
    CHECK_INT(arb_store_verify(s, NULL, &why), 0);
    arb_store_close(s);
    rm_store(name);
    arb_buf_free(&why);
}

/* TL1: one client id twice in a match's tail.  The index is no help
 * there (it has neither use), so the tail is what must say it. */
static void
test_cid_twice(void)
{
    raw_rec_t twice[2] = { { "x", 2, "c9", "x-2", 2 },
                           { "x", 3, "c9", "x-3", 0 } };
    raw_rec_t other[2] = { { "x", 2, "c9", "x-2", 2 },
                           { "x", 3, "c8", "x-3", 0 } };
    raw_rec_t y[2] = { { "x", 2, "c9", "x-2", 2 },
                       { "y", 1, "c9", "y-1", 3 } };
    raw_rec_t first[2] = { { "x", 2, "a0", "x-2", 2 },
                           { "x", 3, "a0", "x-3", 0 } };

    check_refused("cid-twice", twice, 2,
                  "log key 5: match \"x\": client id \"c9\" used twice");
    /* Controls: another client id, or the same one in another match. */
    check_opens("cid-other", other, 2, 3, "x", "c8", 3);
    check_opens("cid-y", y, 2, 2, "y", "c9", 1);
    /* The bulk build: a client id whose two uses sort first. */
    check_bulk_refused("cid-first", first, 2,
                       "log key 5: match \"x\": client id \"a0\" used "
                       "twice");
}

/* TL4: a match's seq in the tail that does not follow the one before
 * it: repeated or going back within the tail, or repeating a seq the
 * index already holds (the summary it starts from). */
static void
test_seq_order(void)
{
    raw_rec_t again[2] = { { "x", 2, NULL, "x-2", 2 },
                           { "x", 2, NULL, "x-2b", 0 } };
    raw_rec_t back[3] = { { "x", 2, NULL, "x-2", 2 },
                          { "x", 3, NULL, "x-3", 0 },
                          { "x", 1, NULL, "x-1b", 0 } };
    raw_rec_t indexed[1] = { { "x", 1, NULL, "x-1b", 1 } };
    raw_rec_t reopen[1] = { { "x", 0, NULL, "x-0b", 1 } };
    raw_rec_t reopen2[2] = { { "z", 0, NULL, "z-0", 0 },
                             { "z", 0, NULL, "z-0b", 0 } };
    raw_rec_t gap[1] = { { "x", 3, NULL, "x-3", 2 } };
    raw_rec_t fine[3] = { { "x", 2, NULL, "x-2", 2 },
                          { "x", 3, "c3", "x-3", 0 },
                          { "x", 4, NULL, "x-4", 0 } };

    check_refused("seq-again", again, 2,
                  "log key 5: match \"x\" seq 2 follows 2");
    check_refused("seq-back", back, 3,
                  "log key 6: match \"x\" seq 1 follows 3");
    check_refused("seq-indexed", indexed, 1,
                  "log key 4: match \"x\" seq 1 follows 1");
    /* A seq skipped: by the tail, the index writer and the bulk build
     * of a missing index alike. */
    check_refused("seq-gap", gap, 1,
                  "log key 4: match \"x\" seq 3 follows 1");
    check_bulk_refused("seq-gap-bulk", gap, 1,
                       "log key 4: match \"x\" seq 3 follows 2 earlier "
                       "events");
    /* An open again: of a match the index holds (until 2026-12-07 the
     * read-only tail took it as a new match, hiding the indexed one), or
     * of one opened in the tail. */
    check_refused("reopen-indexed", reopen, 1,
                  "log key 4: match \"x\" opened twice");
    check_refused("reopen-tail", reopen2, 2,
                  "log key 5: match \"z\" opened twice");
    check_opens("seq-fine", fine, 3, 4, "x", "c3", 3);
}

int
main(void)
{
    snprintf(base, sizeof(base), "/tmp/arb-damaged-tail-XXXXXX");
    if (mkdtemp(base) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    test_cid_twice();
    test_seq_order();
    rmdir(base);
    return TEST_END();
}
