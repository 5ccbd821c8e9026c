/*
 * test_replay_all.c - replaying a whole store in one pass over its log
 * (core/ledger/replay_all.h), lean matches (arb_match_lean), the in-place
 * decoding into reused room (arb_event_decode_scratch) and the threaded
 * check of a chain's links (arb_chain_first_bad).
 *
 * Every figure is compared with the one path it stands in for: the match
 * by match replay (arb_history_load + arb_history_replay), a match that
 * keeps its history, arb_event_decode, a serial walk of the chain.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lmdb.h>

#include "core/buf.h"
#include "core/codec.h"
#include "core/err.h"
#include "core/ledger/chain.h"
#include "core/ledger/history.h"
#include "core/ledger/replay_all.h"
#include "core/ledger/store.h"
#include "core/match.h"
#include "tests/bench/bench.h"
#include "tests/test.h"

#define NM 24           /* plain matches, m00..m23 */

static char base[64], dir[96];

/* A ruling: void of seq `target`, recorded as event `seq`. */
static int
encode_void(arb_buf_t *b, uint64_t seq, uint64_t target)
{
    arb_event_t ev;

    memset(&ev, 0, sizeof(ev));
    ev.kind = ARB_EV_VOID;
    ev.seq = seq;
    ev.time_ms = 1700000000000 + (int64_t)seq;
    ev.actor = "arbiter";
    ev.target = target;
    ev.text = "card dropped face up";
    b->len = 0;
    return arb_event_encode(b, &ev);
}

/* Event `seq` of match number i: the plain matches play the bench match;
 * "r-void" voids its move 10 at seq 11 and plays it again at seq 12;
 * "r-bad" plays move 1's card again at seq 6 (refused). */
static int
encode(arb_buf_t *b, const char *id, uint64_t seq)
{
    if (seq == 0)
        return bench_encode_open(b, id);
    if (strcmp(id, "r-void") == 0 && seq == 11)
        return encode_void(b, seq, 10);
    if (strcmp(id, "r-void") == 0 && seq > 11)
        return bench_encode_move(b, seq, (unsigned)seq - 2);
    if (strcmp(id, "r-bad") == 0 && seq == 6)
        return bench_encode_move(b, seq, 1);
    return bench_encode_move(b, seq, (unsigned)seq);
}

/* Writes the store: one event of every match per round, as a recorder
 * under load interleaves them. */
static int
fill(arb_store_t *s, char (*ids)[16], const uint64_t *last, size_t nm)
{
    arb_append_t ap[64];
    arb_buf_t    bytes[64];
    arb_buf_t    why = ARB_BUF_INIT;
    uint64_t     seq;
    size_t       i, n = 0, k;
    int          rc = 0;

    memset(bytes, 0, sizeof(bytes));
    for (seq = 0; rc == 0 && seq <= BENCH_MOVES; seq++)
        for (i = 0; rc == 0 && i < nm; i++) {
            if (seq > last[i])
                continue;
            memset(&ap[n], 0, sizeof(ap[n]));
            rc = encode(&bytes[n], ids[i], seq);
            ap[n].match_id = ids[i];
            ap[n].game = seq == 0 ? "yahchain" : NULL;
            ap[n].seq = seq;
            ap[n].time_ms = 1700000000000 + (int64_t)seq;
            ap[n].bytes = bytes[n].data;
            ap[n].len = bytes[n].len;
            if (rc == 0 && ++n == 64) {
                rc = arb_store_append_batch(s, ap, n, &why);
                n = 0;
            }
        }
    if (rc == 0 && n > 0)
        rc = arb_store_append_batch(s, ap, n, &why);
    if (rc != 0)
        fprintf(stderr, "fill: %s\n", arb_buf_cstr(&why));
    for (k = 0; k < 64; k++)
        arb_buf_free(&bytes[k]);
    arb_buf_free(&why);
    return rc;
}

typedef struct seen {
    arb_store_t *s;
    size_t       n;
    uint64_t     events;
    char         last[32];
} seen_t;

/* Each match as the whole-store replay left it, against its replay
 * through its own history. */
static int
on_replayed(void *ud, const arb_replayed_t *r)
{
    seen_t       *x = ud;
    arb_history_t h;
    arb_buf_t     why = ARB_BUF_INIT;
    arb_match_t  *m = NULL;
    arb_verdict_t v;
    unsigned char a[ARB_HASH_LEN], b[ARB_HASH_LEN];
    size_t        bad = 0;
    int           rc;

    memset(&h, 0, sizeof(h));
    CHECK(strcmp(x->last, r->match_id) < 0);     /* in id order */
    snprintf(x->last, sizeof(x->last), "%s", r->match_id);
    x->n++;
    x->events += r->events;
    CHECK_INT(arb_history_load(&h, x->s, r->match_id, UINT64_MAX, &why), 0);
    rc = arb_history_replay(&h, UINT64_MAX, &m, &bad, &v);
    CHECK_INT(r->refused, rc != 0);
    CHECK(m != NULL && r->m != NULL);
    if (m != NULL && r->m != NULL) {
        arb_match_digest(m, a);
        arb_match_digest(r->m, b);
        CHECK(memcmp(a, b, ARB_HASH_LEN) == 0);
        CHECK_INT(arb_match_next_seq(r->m), arb_match_next_seq(m));
        CHECK_INT(r->events, arb_match_next_seq(m));
    }
    if (rc != 0) {
        CHECK_INT(r->bad_seq, h.events[bad].seq);
        CHECK_STR(r->v->msg, v.msg);
        CHECK_STR(r->v->rule, v.rule);
    }
    arb_match_free(m);
    arb_history_clear(&h);
    arb_buf_free(&why);
    return 0;
}

static int
stop_at_third(void *ud, const arb_replayed_t *r)
{
    size_t *n = ud;

    (void)r;
    return ++*n == 3 ? ARB_EINVAL : 0;
}

static void
test_store_replay(void)
{
    char             ids[NM + 2][16];
    uint64_t         last[NM + 2], nev = 0, want = 0;
    arb_store_t     *s = NULL;
    arb_store_opts_t o;
    arb_buf_t        why = ARB_BUF_INIT;
    seen_t           x;
    size_t           i, n = 0;

    for (i = 0; i < NM; i++) {
        snprintf(ids[i], sizeof(ids[i]), "m%02zu", i);
        /* Some matches stop early: every length appears in the log. */
        last[i] = i % 3 == 0 ? BENCH_MOVES : 5 + 6 * i;
    }
    snprintf(ids[NM], sizeof(ids[NM]), "r-void");
    last[NM] = 30;
    snprintf(ids[NM + 1], sizeof(ids[NM + 1]), "r-bad");
    last[NM + 1] = 9;
    CHECK_INT(arb_store_open(&s, dir, NULL, &why), 0);
    if (s == NULL)
        return;
    CHECK_INT(fill(s, ids, last, NM + 2), 0);
    arb_store_close(s);
    s = NULL;

    memset(&o, 0, sizeof(o));
    o.read_only = 1;
    CHECK_INT(arb_store_open(&s, dir, &o, &why), 0);
    if (s == NULL)
        return;
    memset(&x, 0, sizeof(x));
    x.s = s;
    CHECK_INT(arb_replay_all(s, on_replayed, &x, &nev, &why), 0);
    CHECK_INT(x.n, NM + 2);
    /* Every event of every match stood, but r-bad's from seq 6 on. */
    for (i = 0; i < NM + 2; i++)
        want += i == NM + 1 ? 6 : last[i] + 1;
    CHECK_INT(nev, want);
    CHECK_INT(x.events, want);
    /* The callback's code stops the walk and is returned. */
    CHECK_INT(arb_replay_all(s, stop_at_third, &n, NULL, &why), ARB_EINVAL);
    CHECK_INT(n, 3);
    arb_store_close(s);
    arb_buf_free(&why);
}

static void
rm_store(const char *d)
{
    static const char *const f[] = { "data.mdb", "lock.mdb", "index.mdb",
                                     "index.mdb-lock", "wal.0", "wal.1" };
    char                     p[200];
    size_t                   i;

    for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
        snprintf(p, sizeof(p), "%s/%s", d, f[i]);
        unlink(p);
    }
    rmdir(d);
}

/* A note of `len` bytes of text, recorded as event `seq`. */
static int
encode_note(arb_buf_t *b, uint64_t seq, size_t len)
{
    arb_event_t ev;
    char        text[600];
    int         rc;

    memset(&ev, 0, sizeof(ev));
    memset(text, 'n', len);
    text[len] = '\0';
    ev.kind = ARB_EV_NOTE;
    ev.seq = seq;
    ev.time_ms = 1700000000000 + (int64_t)seq;
    ev.actor = "arbiter";
    ev.text = text;
    b->len = 0;
    rc = arb_event_encode(b, &ev);
    return rc;
}

/* Appends the event in b as seq of match id, stamped with a time that
 * follows its seq. */
static int
append_one(arb_store_t *s, const char *id, uint64_t seq, const arb_buf_t *b,
           arb_buf_t *why)
{
    arb_append_t ap;

    memset(&ap, 0, sizeof(ap));
    ap.match_id = id;
    ap.game = seq == 0 ? "yahchain" : NULL;
    ap.seq = seq;
    ap.time_ms = 1700000000000 + (int64_t)seq;
    ap.bytes = b->data;
    ap.len = b->len;
    return arb_store_append_batch(s, &ap, 1, why);
}

/* Appends event seq of each of `nm` matches in turn, up to seq `last`;
 * match 0's seq `junk` (when not 0) is bytes that do not decode, and
 * every match's seq 5 is a note of 500 bytes, longer than the room the
 * read-ahead copies. */
static int
fill_ahead(const char *d, size_t nm, uint64_t last, uint64_t junk)
{
    arb_store_t *s = NULL;
    arb_buf_t    b = ARB_BUF_INIT, why = ARB_BUF_INIT;
    char         id[24];
    uint64_t     seq;
    size_t       i;
    int          rc;

    rc = arb_store_open(&s, d, NULL, &why);
    for (seq = 0; rc == 0 && seq <= last; seq++)
        for (i = 0; rc == 0 && i < nm; i++) {
            snprintf(id, sizeof(id), "a%02zu", i);
            rc = seq == 0 ? bench_encode_open(&b, id)
                 : seq == 5 ? encode_note(&b, seq, 500)
                 : bench_encode_move(&b, seq, (unsigned)(seq < 5 ? seq
                                                          : seq - 1));
            if (rc == 0 && i == 0 && junk != 0 && seq == junk) {
                b.len = 0;
                arb_buf_puts(&b, "\x81\xa1vjunk");
            }
            if (rc == 0)
                rc = append_one(s, id, seq, &b, &why);
        }
    if (rc != 0)
        fprintf(stderr, "fill_ahead: %s\n", arb_buf_cstr(&why));
    arb_store_close(s);
    arb_buf_free(&b);
    arb_buf_free(&why);
    return rc;
}

/* Takes log position pos out of the closed store in d (raw LMDB). */
static int
raw_del_log(const char *d, uint64_t pos)
{
    MDB_env      *env = NULL;
    MDB_txn      *txn = NULL;
    MDB_dbi       dbi;
    MDB_val       k;
    unsigned char kb[8];
    int           i, rc;

    for (i = 0; i < 8; i++)
        kb[i] = (unsigned char)(pos >> (56 - 8 * i));
    k.mv_data = kb;
    k.mv_size = 8;
    rc = mdb_env_create(&env);
    if (rc == 0)
        rc = mdb_env_set_maxdbs(env, 8);
    if (rc == 0)
        rc = mdb_env_open(env, d, 0, 0600);
    if (rc == 0)
        rc = mdb_txn_begin(env, NULL, 0, &txn);
    if (rc == 0)
        rc = mdb_dbi_open(txn, "log", 0, &dbi);
    if (rc == 0)
        rc = mdb_del(txn, dbi, &k, NULL);
    if (rc == 0) {
        rc = mdb_txn_commit(txn);
        txn = NULL;
    }
    if (txn != NULL)
        mdb_txn_abort(txn);
    mdb_env_close(env);
    return rc;
}

/* The read-ahead window: events longer than its room replayed in their
 * place, the events still waiting at the end of the log replayed, and a
 * broken event in the middle of the window reported as the first error
 * of the log, naming its match and seq. */
static void
test_read_ahead(void)
{
    char             d[128];
    arb_store_t     *s = NULL;
    arb_store_opts_t o;
    arb_buf_t        why = ARB_BUF_INIT;
    seen_t           x;
    uint64_t         nev = 0;

    memset(&o, 0, sizeof(o));
    o.read_only = 1;
    snprintf(d, sizeof(d), "%s/ahead", base);
    CHECK_INT(fill_ahead(d, 7, 40, 0), 0);
    CHECK_INT(arb_store_open(&s, d, &o, &why), 0);
    memset(&x, 0, sizeof(x));
    x.s = s;
    if (s != NULL)
        CHECK_INT(arb_replay_all(s, on_replayed, &x, &nev, &why), 0);
    CHECK_INT(x.n, 7);
    CHECK_INT(nev, 7 * 41);
    arb_store_close(s);
    s = NULL;
    rm_store(d);

    snprintf(d, sizeof(d), "%s/junk", base);
    CHECK_INT(fill_ahead(d, 7, 20, 9), 0);
    CHECK_INT(arb_store_open(&s, d, &o, &why), 0);
    memset(&x, 0, sizeof(x));
    x.s = s;
    if (s != NULL)
        CHECK(arb_replay_all(s, on_replayed, &x, &nev, &why) != 0);
    CHECK_INT(x.n, 0);
    CHECK(arb_buf_cstr(&why) != NULL
          && strncmp(arb_buf_cstr(&why), "match \"a00\": seq 9: ", 20) == 0);
    arb_store_close(s);
    s = NULL;
    /* A record that cannot be read two positions later (a02's seq 9, at
     * 9 * 7 + 2 + 1): a00's seq 9, at 64, still waits in the window
     * then, and its error is the first of the log. */
    CHECK_INT(raw_del_log(d, 66), 0);
    CHECK_INT(arb_store_open(&s, d, &o, &why), 0);
    memset(&x, 0, sizeof(x));
    x.s = s;
    if (s != NULL)
        CHECK_INT(arb_replay_all(s, on_replayed, &x, &nev, &why),
                  ARB_EPROTO);      /* the junk's, not the missing key's */
    CHECK(arb_buf_cstr(&why) != NULL
          && strncmp(arb_buf_cstr(&why), "match \"a00\": seq 9: ", 20) == 0);
    arb_store_close(s);
    rm_store(d);
    /* Without the junk, the missing record is the error. */
    CHECK_INT(fill_ahead(d, 7, 20, 0), 0);
    CHECK_INT(raw_del_log(d, 66), 0);
    CHECK_INT(arb_store_open(&s, d, &o, &why), 0);
    if (s != NULL)
        CHECK_INT(arb_replay_all(s, on_replayed, &x, &nev, &why),
                  ARB_ECORRUPT);
    CHECK_STR(arb_buf_cstr(&why), "log key 66: missing");
    arb_store_close(s);
    rm_store(d);
    arb_buf_free(&why);
}

/* A match that holds a ruling is replayed afterwards from its history:
 * an event of it that does not decode is reported naming the match too,
 * not by its seq alone (a store holds many matches). */
static void
test_slow_junk(void)
{
    char             d[128];
    arb_store_t     *s = NULL;
    arb_store_opts_t o;
    arb_buf_t        b = ARB_BUF_INIT, why = ARB_BUF_INIT;
    uint64_t         seq, nev = 0;
    size_t           n = 0;
    int              rc;

    snprintf(d, sizeof(d), "%s/slow", base);
    rc = arb_store_open(&s, d, NULL, &why);
    for (seq = 0; rc == 0 && seq <= 7; seq++) {
        rc = seq == 0 ? bench_encode_open(&b, "s-void")
             : seq == 5 ? encode_void(&b, seq, 4)
             : bench_encode_move(&b, seq, (unsigned)seq);
        if (seq == 6) {
            b.len = 0;
            arb_buf_puts(&b, "\x81\xa1vjunk");
        }
        if (rc == 0)
            rc = append_one(s, "s-void", seq, &b, &why);
    }
    CHECK_INT(rc, 0);
    arb_store_close(s);
    s = NULL;
    memset(&o, 0, sizeof(o));
    o.read_only = 1;
    CHECK_INT(arb_store_open(&s, d, &o, &why), 0);
    if (s != NULL)
        CHECK(arb_replay_all(s, stop_at_third, &n, &nev, &why) != 0);
    CHECK_INT(n, 0);
    CHECK(arb_buf_cstr(&why) != NULL
          && strncmp(arb_buf_cstr(&why), "match \"s-void\": seq 6: ",
                     23) == 0);
    arb_store_close(s);
    rm_store(d);
    arb_buf_free(&b);
    arb_buf_free(&why);
}

/* A lean match judges as the full one, costs nothing per move, and
 * refuses a ruling with ARB_EAGAIN, unchanged. */
static void
test_lean(void)
{
    arb_match_t  *full = NULL, *lean = NULL;
    arb_buf_t     b = ARB_BUF_INIT;
    arb_event_t   ev;
    arb_verdict_t v;
    unsigned char a[ARB_HASH_LEN], c[ARB_HASH_LEN];
    uint64_t      seq;

    CHECK_INT(bench_encode_open(&b, "lean"), 0);
    CHECK_INT(arb_event_decode(&ev, b.data, b.len, NULL), 0);
    CHECK_INT(arb_match_open(&full, &ev, &v), 0);
    CHECK_INT(arb_match_open(&lean, &ev, &v), 0);
    arb_event_clear(&ev);
    if (full == NULL || lean == NULL)
        goto out;
    CHECK_INT(arb_match_lean(lean), 0);
    for (seq = 1; seq <= 20; seq++) {
        CHECK_INT(bench_encode_move(&b, seq, (unsigned)seq), 0);
        CHECK_INT(arb_event_decode(&ev, b.data, b.len, NULL), 0);
        CHECK_INT(arb_match_apply(full, &ev, &v), 0);
        CHECK_INT(arb_match_apply(lean, &ev, &v), 0);
        arb_event_clear(&ev);
    }
    CHECK_INT(arb_match_lean(full), ARB_EINVAL);   /* too late */
    /* An illegal move: both refuse it alike. */
    CHECK_INT(bench_encode_move(&b, 21, 3), 0);
    CHECK_INT(arb_event_decode(&ev, b.data, b.len, NULL), 0);
    CHECK(arb_match_apply(full, &ev, &v) != 0);
    CHECK(arb_match_apply(lean, &ev, &v) != 0);
    arb_event_clear(&ev);
    arb_match_digest(full, a);
    arb_match_digest(lean, c);
    CHECK(memcmp(a, c, ARB_HASH_LEN) == 0);
    /* A void: the lean copy cannot rebuild, says so, changes nothing. */
    CHECK_INT(encode_void(&b, 21, 20), 0);
    CHECK_INT(arb_event_decode(&ev, b.data, b.len, NULL), 0);
    CHECK_INT(arb_match_apply(lean, &ev, &v), ARB_EAGAIN);
    CHECK_INT(arb_match_next_seq(lean), 21);
    arb_match_digest(lean, c);
    CHECK(memcmp(a, c, ARB_HASH_LEN) == 0);
    CHECK_INT(arb_match_apply(full, &ev, &v), 0);
    CHECK_INT(arb_match_ruling(lean, 20, NULL), ARB_RULED_NONE);
    CHECK_INT(arb_match_ruling(full, 20, NULL), ARB_RULED_VOID);
    arb_event_clear(&ev);
out:
    arb_match_free(full);
    arb_match_free(lean);
    arb_buf_free(&b);
}

/* Decoding into reused room gives what arb_event_decode gives: the same
 * event (re-encoded byte for byte) or the same refusal. */
static void
test_scratch(void)
{
    arb_event_scratch_t sc;
    const arb_event_t  *got;
    arb_event_t         ev;
    arb_buf_t           b = ARB_BUF_INIT, again = ARB_BUF_INIT;
    arb_buf_t           w1 = ARB_BUF_INIT, w2 = ARB_BUF_INIT;
    uint64_t            seq;
    size_t              cut;
    int                 r1, r2;

    memset(&sc, 0, sizeof(sc));
    for (seq = 0; seq <= 40; seq++) {
        CHECK_INT(seq == 0 ? bench_encode_open(&b, "scr")
                  : seq == 33 ? encode_void(&b, seq, 4)
                  : bench_encode_move(&b, seq, (unsigned)seq), 0);
        /* Whole, and cut short (a refusal both must word alike). */
        for (cut = 0; cut <= 1; cut++) {
            r1 = arb_event_decode(&ev, b.data, b.len - cut, &w1);
            r2 = arb_event_decode_scratch(&sc, b.data, b.len - cut, &w2,
                                          &got);
            CHECK_INT(r2, r1);
            if (r1 == 0 && r2 == 0) {
                again.len = 0;
                CHECK_INT(arb_event_encode(&again, got), 0);
                CHECK_INT(again.len, b.len);
                CHECK(memcmp(again.data, b.data, b.len) == 0);
                arb_event_clear(&ev);
            } else {
                CHECK(got == NULL);
                CHECK_STR(arb_buf_cstr(&w2), arb_buf_cstr(&w1));
            }
        }
    }
    arb_event_scratch_free(&sc);
    arb_event_scratch_free(&sc);        /* twice: NULL-safe and reset */
    arb_event_scratch_free(NULL);
    arb_buf_free(&b);
    arb_buf_free(&again);
    arb_buf_free(&w1);
    arb_buf_free(&w2);
}

/* The serial reference: a walk carrying the recomputed hash. */
static size_t
serial_first_bad(const arb_history_rec_t *r, size_t n)
{
    unsigned char h[ARB_HASH_LEN];
    size_t        i;

    for (i = 0; i < n; i++) {
        arb_chain_next(i ? h : NULL, r[i].bytes, r[i].len, h);
        if (memcmp(h, r[i].hash, ARB_HASH_LEN) != 0)
            return i;
    }
    return n;
}

static void
test_links(void)
{
    enum { N = 20000 };
    static const unsigned threads[] = { 1, 2, 3, 4, 7, 16, 64 };
    arb_history_rec_t *r = calloc(N, sizeof(*r));
    unsigned char     *bytes = malloc((size_t)N * 24);
    size_t             pos[40], np = 0, i, j, t, p, q;
    unsigned           seed = 12345;

    if (r == NULL || bytes == NULL) {
        CHECK(0);
        goto out;
    }
    for (i = 0; i < N; i++) {
        for (j = 0; j < 24; j++) {
            seed = seed * 1103515245u + 12345u;
            bytes[i * 24 + j] = (unsigned char)(seed >> 16);
        }
        r[i].seq = i;
        r[i].bytes = bytes + i * 24;
        r[i].len = 1 + i % 24;
        r[i].has_hash = 1;
        arb_chain_next(i ? r[i - 1].hash : NULL, r[i].bytes, r[i].len,
                       r[i].hash);
    }
    for (t = 0; t < sizeof(threads) / sizeof(threads[0]); t++) {
        CHECK_INT(arb_chain_first_bad(r, N, threads[t]), N);
        CHECK_INT(arb_chain_first_bad(r, 0, threads[t]), 0);
        CHECK_INT(arb_chain_first_bad(r, 1, threads[t]), 1);
    }
    /* The ends, the ranges' edges for 2, 3 and 4 threads, and more. */
    pos[np++] = 0, pos[np++] = 1, pos[np++] = N - 1, pos[np++] = N - 2;
    for (j = 2; j <= 4; j++)
        for (i = 1; i < j; i++) {
            p = (N + j - 1) / j * i;
            pos[np++] = p - 1, pos[np++] = p, pos[np++] = p + 1;
        }
    for (i = 0; np < sizeof(pos) / sizeof(pos[0]); i++) {
        seed = seed * 1103515245u + 12345u;
        pos[np++] = (seed >> 8) % N;
    }
    for (i = 0; i < np; i++) {
        p = pos[i];
        /* A changed stored hash breaks link p (and p + 1, later). */
        r[p].hash[7] ^= 0x10;
        for (t = 0; t < sizeof(threads) / sizeof(threads[0]); t++)
            CHECK_INT(arb_chain_first_bad(r, N, threads[t]), p);
        CHECK_INT(serial_first_bad(r, N), p);
        r[p].hash[7] ^= 0x10;
        /* A changed event, and a second one later: still p. */
        q = p + 1 + (p * 7919) % (N - p > 1 ? N - p - 1 : 1);
        ((unsigned char *)r[p].bytes)[0] ^= 0x01;
        if (q < N)
            ((unsigned char *)r[q].bytes)[0] ^= 0x01;
        for (t = 0; t < sizeof(threads) / sizeof(threads[0]); t++)
            CHECK_INT(arb_chain_first_bad(r, N, threads[t]), p);
        ((unsigned char *)r[p].bytes)[0] ^= 0x01;
        if (q < N)
            ((unsigned char *)r[q].bytes)[0] ^= 0x01;
    }
    CHECK_INT(arb_chain_first_bad(r, N, 2), N);
out:
    free(r);
    free(bytes);
}

int
main(void)
{

    snprintf(base, sizeof(base), "/tmp/arb_replay_all_XXXXXX");
    if (mkdtemp(base) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(dir, sizeof(dir), "%s/data", base);
    test_store_replay();
    test_read_ahead();
    test_slow_junk();
    test_lean();
    test_scratch();
    test_links();
    rm_store(dir);
    if (rmdir(base) != 0)
        fprintf(stderr, "rmdir %s: %s\n", base, strerror(errno));
    return TEST_END();
}
