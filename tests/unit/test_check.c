/*
 * test_check.c - the whole-store check (core/ledger/check.h) and the hot
 * copy of every LMDB environment (arb_store_backup).
 *
 * A store is recorded as the daemon records one (canonical events, client
 * ids, deal secrets kept beside the open), then damaged in one way at a
 * time: a flipped byte in the data file (found by its text, so the case
 * does not depend on the layout), and stale or missing index entries
 * written through a raw LMDB handle (these helpers, marked LAYOUT, follow
 * docs/STORE.md and are what a new layout must adapt).  Every damage must
 * be reported, named by match and seq, and nothing else.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <lmdb.h>

#include "core/codec.h"
#include "core/deal.h"
#include "core/err.h"
#include "core/ledger/chain.h"
#include "core/ledger/check.h"
#include "core/ledger/store.h"
#include "core/ledger/store_int.h"
#include "core/transcript.h"
#include "tests/test.h"

#define T0 1772359200000LL

static char base[64];

static const char *yah =
    "game: yahchain\nmatch: Y1\nplayers: alice bob\nmode: 3\n\n"
    "place alice 4♠\nplace bob 5H\nnote FLIP-ME-PLEASE\nclose -- time\n";
static const char *dealt_running =
    "game: tsukurutenten\nmatch: T1\nplayers: ann bob\n"
    "deal: seed table-7\n\n";
static const char *dealt_closed =
    "game: tsukurutenten\nmatch: T2\nplayers: ann bob\n"
    "deal: seed table-9\n\nclose seed table-9\n";
static const char *dealt_wrong =
    "game: tsukurutenten\nmatch: T3\nplayers: ann bob\n"
    "deal: seed table-5\n\nclose seed table-6\n";

static const char *
path(const char *name)
{
    static char p[4][160];
    static int  k;

    k = (k + 1) % 4;
    snprintf(p[k], sizeof(p[k]), "%s/%s", base, name);
    return p[k];
}

/* Added to the time stored beside event 1 (not to the event's own):
 * a store whose log record and event disagree, which no recorder
 * writes. */
static int64_t skew_seq1;

/* Added to the seq event 2 says it has (not to the one it is stored
 * under); and, when set, the match id and the game a transcript is
 * stored under instead of its own: stores no recorder writes. */
static uint64_t lie_seq2;
static const char *store_id, *store_game;

/* When set, event 2 says client id c1 (while the idempotency index is
 * given c2). */
static int cid1_at2;

/* Records a transcript as the daemon does: stamped, canonical, every
 * event with a client id "c<seq>" when cids, the deal committed in the
 * open and its secret kept (unless keep_secret is 0). */
static int
record(arb_store_t *s, const char *text, int cids, int keep_secret)
{
    arb_history_t    t;
    arb_append_t     ap[16];
    arb_buf_t        bytes[16], why = ARB_BUF_INIT, sec = ARB_BUF_INIT;
    char             cid[16][8];
    const char      *kind = NULL;
    size_t           i, n;
    int              rc;

    rc = arb_transcript_parse(&t, text, strlen(text), &why);
    if (rc != 0) {
        fprintf(stderr, "transcript: %s\n", arb_buf_cstr(&why));
        return rc;
    }
    n = t.nevents + 1;
    if (n > 16)
        return ARB_ETOOBIG;
    memset(ap, 0, sizeof(ap));
    memset(bytes, 0, sizeof(bytes));
    if (t.open.setup->deal.kind == ARB_DEAL_SEED) {
        arb_buf_t raw = ARB_BUF_INIT;
        arb_deal_secret(&t.open.setup->deal, &raw, &kind);
        arb_deal_stored_format(&sec, kind, arb_buf_cstr(&raw));
        arb_buf_free(&raw);
        arb_deal_commit(&t.open.setup->deal, &kind);
    }
    for (i = 0; i < n; i++) {
        arb_event_t *ev = i == 0 ? &t.open : &t.events[i - 1];
        ev->seq = i + (i == 2 ? lie_seq2 : 0);
        ev->time_ms = T0 + (int64_t)i * 1000;
        ev->actor = strdup("arbiter");
        if (cids) {
            snprintf(cid[i], sizeof(cid[i]), "c%zu", i);
            ev->client_id = strdup(i == 2 && cid1_at2 ? "c1" : cid[i]);
            ap[i].client_id = cid[i];
        }
        rc = arb_event_encode(&bytes[i], ev);
        if (rc != 0) {
            fprintf(stderr, "encode %zu: %d\n", i, rc);
            goto done;
        }
        ap[i].match_id = store_id ? store_id : t.open.setup->match_id;
        ap[i].game = i > 0 ? NULL : store_game ? store_game
                                              : t.open.setup->game;
        ap[i].seq = i;
        ap[i].time_ms = ev->time_ms + (i == 1 ? skew_seq1 : 0);
        ap[i].bytes = bytes[i].data;
        ap[i].len = bytes[i].len;
        ap[i].closes = ev->kind == ARB_EV_CLOSE;
        ap[i].secret = i == 0 && keep_secret && sec.len > 0
                       ? arb_buf_cstr(&sec) : NULL;
    }
    rc = arb_store_append_batch(s, ap, n, &why);
    if (rc != 0)
        fprintf(stderr, "append: %s\n", arb_buf_cstr(&why));
done:
    for (i = 0; i < n; i++)
        arb_buf_free(&bytes[i]);
    arb_buf_free(&why);
    arb_buf_free(&sec);
    arb_history_clear(&t);
    return rc;
}

static arb_store_t *
open_store(const char *name, int ro)
{
    arb_store_opts_t o;
    arb_store_t     *s = NULL;
    arb_buf_t        why = ARB_BUF_INIT;

    memset(&o, 0, sizeof(o));
    o.read_only = ro;
    if (arb_store_open(&s, path(name), &o, &why) != 0)
        fprintf(stderr, "open %s: %s\n", name, arb_buf_cstr(&why));
    arb_buf_free(&why);
    return s;
}

/* The problems of one check, one line each: "M seq N: msg" */
static char problems[8192];

static void
problem_cb(void *ud, const char *match_id, int has_seq, uint64_t seq,
           const char *msg)
{
    size_t n = strlen(problems);

    (void)ud;
    if (has_seq)
        snprintf(problems + n, sizeof(problems) - n, "%s seq %llu: %s\n",
                 match_id ? match_id : "-", (unsigned long long)seq, msg);
    else
        snprintf(problems + n, sizeof(problems) - n, "%s: %s\n",
                 match_id ? match_id : "-", msg);
}

static int progress_calls;

static void
progress_cb(void *ud, const char *phase, uint64_t done, uint64_t total)
{
    (void)ud;
    (void)phase;
    if (done <= total)
        progress_calls++;
}

static uint64_t
check(const char *name, arb_check_summary_t *sum)
{
    arb_store_t *s = open_store(name, 1);
    arb_buf_t    why = ARB_BUF_INIT;
    int          rc;

    problems[0] = '\0';
    CHECK(s != NULL);
    if (s == NULL)
        return UINT64_MAX;
    rc = arb_check_store(s, problem_cb, progress_cb, NULL, sum, &why);
    CHECK_INT(rc, 0);
    arb_store_close(s);
    arb_buf_free(&why);
    if (getenv("CHECK_VERBOSE") != NULL)
        fprintf(stderr, "[%s] problems:\n%s", name, problems);
    return sum->problems;
}

static int
make_store(const char *name)
{
    arb_store_t *s = open_store(name, 0);
    int          rc;

    if (s == NULL)
        return -1;
    rc = record(s, yah, 1, 1);
    if (rc == 0)
        rc = record(s, dealt_running, 0, 1);
    if (rc == 0)
        rc = record(s, dealt_closed, 1, 1);
    arb_store_close(s);
    return rc;
}

/* LAYOUT: a raw edit of one sub-database (docs/STORE.md). */
static int
raw_edit(const char *name, const char *db, const void *k, size_t klen,
         const void *v, size_t vlen)
{
    MDB_env *env = NULL;
    MDB_txn *txn = NULL;
    MDB_dbi  dbi;
    MDB_val  key = { klen, (void *)k }, val = { vlen, (void *)v };
    int      rc;

    char     ipath[400];
    int      in_index = strcmp(db, "matches") == 0 || strcmp(db, "idem") == 0
                        || strcmp(db, "seq") == 0;

    /* The store keeps the log and the secrets in data.mdb; the match
     * summaries, client ids and seq -> position in index.mdb, derived
     * from the log. */
    snprintf(ipath, sizeof(ipath), "%s/index.mdb", path(name));
    rc = mdb_env_create(&env);
    if (rc == 0)
        rc = mdb_env_set_maxdbs(env, 8);
    if (rc == 0)
        rc = mdb_env_open(env, in_index ? ipath : path(name),
                          in_index ? MDB_NOSUBDIR : 0, 0600);
    if (rc == 0)
        rc = mdb_txn_begin(env, NULL, 0, &txn);
    if (rc == 0)
        rc = mdb_dbi_open(txn, db, 0, &dbi);
    if (rc == 0)
        rc = v != NULL ? mdb_put(txn, dbi, &key, &val, 0)
                       : mdb_del(txn, dbi, &key, NULL);
    if (rc == 0) {
        rc = mdb_txn_commit(txn);
        txn = NULL;
    }
    if (txn != NULL)
        mdb_txn_abort(txn);
    mdb_env_close(env);
    if (rc != 0)
        fprintf(stderr, "raw edit %s: %s\n", db, mdb_strerror(rc));
    return rc;
}

/* Flips one byte of every occurrence of `needle` in file: LMDB copies
 * pages on write, so older copies of a page may sit in free pages too.
 * Returns how many were flipped. */
static int
flip_in_file(const char *file, const char *needle)
{
    FILE   *f = fopen(file, "r+b");
    char   *buf;
    long    size;
    size_t  n = strlen(needle), i;
    int     rc = 0;

    if (f == NULL)
        return -1;
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    rewind(f);
    buf = malloc((size_t)size);
    if (buf != NULL && fread(buf, 1, (size_t)size, f) == (size_t)size) {
        for (i = 0; i + n <= (size_t)size; i++)
            if (memcmp(buf + i, needle, n) == 0) {
                fseek(f, (long)i, SEEK_SET);
                fputc(buf[i] ^ 0x01, f);
                rc++;
            }
    }
    free(buf);
    fclose(f);
    return rc;
}

static void
test_clean(void)
{
    arb_check_summary_t sum, again;
    char                hex[ARB_HASH_HEX];

    CHECK_INT(make_store("clean"), 0);
    progress_calls = 0;
    CHECK_INT(check("clean", &sum), 0);
    CHECK_STR(problems, "");
    CHECK(progress_calls >= 3);         /* 3 matches, then the log */
    CHECK_INT(sum.matches, 3);
    CHECK_INT(sum.closed, 2);
    CHECK_INT(sum.dealt, 2);
    CHECK_INT(sum.events, 5 + 1 + 2);
    CHECK_INT(sum.log_pos, 8);
    CHECK_INT(sum.client_ids, 5 + 2);
    arb_hex(hex, sum.heads, ARB_HASH_LEN);
    /* The same store gives the same digest; another one another. */
    CHECK_INT(check("clean", &again), 0);
    CHECK(memcmp(sum.heads, again.heads, ARB_HASH_LEN) == 0);
    {
        arb_store_t *s = open_store("clean", 0);
        CHECK_INT(record(s, dealt_wrong, 0, 1), 0);
        arb_store_close(s);
    }
    /* A close whose reveal does not open the commitment (the store takes
     * any bytes; the rules would have refused it). */
    CHECK_INT(check("clean", &again), 1);
    CHECK(strstr(problems, "T3 seq 1: the close's reveal does not open the "
                 "deal committed at seq 0") != NULL);
    CHECK(memcmp(sum.heads, again.heads, ARB_HASH_LEN) != 0);
}

/* An empty store checks clean (and nothing is sorted or searched). */
static void
test_empty(void)
{
    arb_check_summary_t sum;
    arb_store_t        *s = open_store("empty", 0);

    arb_store_close(s);
    CHECK_INT(check("empty", &sum), 0);
    CHECK_INT(sum.matches, 0);
    CHECK_INT(sum.log_pos, 0);
}

static void
test_flipped_byte(void)
{
    arb_check_summary_t sum;
    char                file[200];

    CHECK_INT(make_store("flip"), 0);
    snprintf(file, sizeof(file), "%s/data.mdb", path("flip"));
    CHECK(flip_in_file(file, "FLIP-ME-PLEASE") > 0);
    CHECK_INT(check("flip", &sum), 1);
    CHECK_STR(problems, "Y1 seq 3: stored hash does not match the chain: "
              "the event's bytes or its hash were changed\n");
    CHECK_INT(sum.events, 8);
}

/* LAYOUT: swaps the log records at positions a and b (data.mdb's `log`,
 * keyed by the big-endian position). */
static int
raw_swap_log(const char *name, uint64_t a, uint64_t b)
{
    MDB_env      *env = NULL;
    MDB_txn      *txn = NULL;
    MDB_dbi       dbi;
    MDB_val       ka, kb, va, vb;
    unsigned char keya[8], keyb[8], *copy_a = NULL, *copy_b = NULL;
    int           rc, k;

    for (k = 0; k < 8; k++) {
        keya[k] = (unsigned char)(a >> (56 - 8 * k));
        keyb[k] = (unsigned char)(b >> (56 - 8 * k));
    }
    ka.mv_size = kb.mv_size = 8;
    ka.mv_data = keya;
    kb.mv_data = keyb;
    rc = mdb_env_create(&env);
    if (rc == 0)
        rc = mdb_env_set_maxdbs(env, 8);
    if (rc == 0)
        rc = mdb_env_open(env, path(name), 0, 0600);
    if (rc == 0)
        rc = mdb_txn_begin(env, NULL, 0, &txn);
    if (rc == 0)
        rc = mdb_dbi_open(txn, "log", 0, &dbi);
    if (rc == 0)
        rc = mdb_get(txn, dbi, &ka, &va);
    if (rc == 0)
        rc = mdb_get(txn, dbi, &kb, &vb);
    if (rc == 0) {
        copy_a = malloc(va.mv_size);
        copy_b = malloc(vb.mv_size);
        if (copy_a == NULL || copy_b == NULL)
            rc = ENOMEM;
    }
    if (rc == 0) {
        memcpy(copy_a, va.mv_data, va.mv_size);
        memcpy(copy_b, vb.mv_data, vb.mv_size);
        va.mv_data = copy_a;
        vb.mv_data = copy_b;
        rc = mdb_put(txn, dbi, &ka, &vb, 0);
    }
    if (rc == 0)
        rc = mdb_put(txn, dbi, &kb, &va, 0);
    if (rc == 0) {
        rc = mdb_txn_commit(txn);
        txn = NULL;
    }
    if (txn != NULL)
        mdb_txn_abort(txn);
    mdb_env_close(env);
    free(copy_a);
    free(copy_b);
    if (rc != 0)
        fprintf(stderr, "raw swap: %s\n", mdb_strerror(rc));
    return rc;
}

/* Two log records of one match swapped: the log pass names the order,
 * not only the chain (a mutation that dropped the order check went
 * unnoticed until 2026-12-06). */
static void
test_log_order(void)
{
    arb_check_summary_t sum;

    CHECK_INT(make_store("order"), 0);
    CHECK_INT(raw_swap_log("order", 2, 3), 0);
    CHECK(check("order", &sum) > 0);
    CHECK(strstr(problems, "Y1 seq 2: global log position 2: out of commit "
                 "order (seq 1 of this match expected next)\n") != NULL);
    CHECK(strstr(problems, "Y1 seq 1: global log position 3: out of commit "
                 "order (seq 3 of this match expected next)\n") != NULL);
}

/* LAYOUT: a log record cut to one byte (Y1's seq 2, position 3): named
 * where the match's events are read and where the log is, and the log
 * read goes on past it (no test had a record the log could not read:
 * none failed when the read after one began at it again, for ever). */
static void
test_log_unreadable(void)
{
    arb_check_summary_t sum;
    unsigned char       key[8] = { 0, 0, 0, 0, 0, 0, 0, 3 };

    CHECK_INT(make_store("cutrec"), 0);
    CHECK_INT(raw_edit("cutrec", "log", key, 8, "x", 1), 0);
    CHECK(check("cutrec", &sum) >= 2);
    CHECK(strncmp(problems, "Y1 seq 2: ", 10) == 0);
    CHECK(strstr(problems, "\n-: global log: ") != NULL);
    CHECK_INT(sum.log_pos, 8);
}

/* An event whose own time is not the time stored beside it: named (a
 * mutation that dropped the report went unnoticed until 2026-12-07). */
static void
test_time_skew(void)
{
    arb_check_summary_t sum;
    arb_store_t        *s;

    skew_seq1 = 5;
    s = open_store("skew", 0);
    CHECK(s != NULL && record(s, yah, 1, 1) == 0);
    arb_store_close(s);
    skew_seq1 = 0;
    CHECK(check("skew", &sum) > 0);
    CHECK(strstr(problems, "Y1 seq 1: the event's time 1772359201000 "
                 "differs from the stored time 1772359201005\n") != NULL);
}

/* An event that says another seq than the one it is stored under, an
 * open of another match or game than the index's: each named (no test
 * failed when any of these reports was dropped). */
static void
test_event_lies(void)
{
    arb_check_summary_t sum;
    arb_store_t        *s = open_store("lies", 0);

    CHECK(s != NULL);
    if (s == NULL)
        return;
    lie_seq2 = 1;
    CHECK_INT(record(s, yah, 0, 1), 0);
    lie_seq2 = 0;
    store_id = "Z1";
    CHECK_INT(record(s, yah, 0, 1), 0);
    store_id = NULL;
    store_game = "yahtzee";
    CHECK_INT(record(s, dealt_closed, 0, 1), 0);
    store_game = NULL;
    arb_store_close(s);
    CHECK_INT(check("lies", &sum), 3);
    CHECK_STR(problems, "T2 seq 0: the open event's game is tsukurutenten, "
              "the match index says yahtzee\n"
              "Y1 seq 2: the event says seq 3\n"
              "Z1 seq 0: the open event is of match Y1\n");

    /* ... and a client id two events say (no test failed when that
     * report was dropped) */
    s = open_store("lies2", 0);
    CHECK(s != NULL);
    if (s == NULL)
        return;
    cid1_at2 = 1;
    store_id = "D1";
    CHECK_INT(record(s, yah, 1, 1), 0);
    store_id = NULL;
    cid1_at2 = 0;
    arb_store_close(s);
    CHECK_INT(check("lies2", &sum), 2);
    CHECK_STR(problems, "D1 seq 0: the open event is of match Y1\n"
              "D1 seq 2: client id \"c1\" was already used by seq 1\n");
}

/* LAYOUT: the index's seq -> position entry of one event lost: the read
 * of the match's events stops there and the check names the seq and the
 * key (the events pass's own "missing" report is the second line of
 * defence behind it). */
static void
test_missing_seq(void)
{
    arb_check_summary_t sum;
    unsigned char       key[3 + 8] = { 'Y', '1', 0 };

    key[3 + 7] = 2;
    CHECK_INT(make_store("gap"), 0);
    CHECK_INT(raw_edit("gap", "seq", key, sizeof(key), NULL, 0), 0);
    CHECK(check("gap", &sum) > 0);
    CHECK(strstr(problems, "Y1 seq 2: index seq key \"Y1\"/2: missing\n")
          != NULL);
}

/* A dealt match closed without the reveal (the close a recorder must
 * refuse), an index that says open a match whose close is stored, and
 * one whose head or start time is not the events': each is named
 * (mutations that dropped any of these reports went unnoticed until
 * 2026-12-07). */
static void
test_close_damage(void)
{
    static const char *unrevealed =
        "game: tsukurutenten\nmatch: T4\nplayers: ann bob\n"
        "deal: seed table-3\n\nclose -- adjourned\n";
    arb_check_summary_t sum;
    arb_match_info_t    m;
    arb_store_t        *s;
    unsigned char       rec[132];
    char                want[256];
    int                 k;

    s = open_store("unrevealed", 0);
    CHECK(s != NULL);
    if (s != NULL) {
        CHECK_INT(record(s, unrevealed, 0, 1), 0);
        arb_store_close(s);
    }
    CHECK_INT(check("unrevealed", &sum), 1);
    CHECK_STR(problems, "T4 seq 1: the close does not reveal the deal "
              "committed at seq 0\n");

    /* LAYOUT: Y1's match record, as it is but for its status: open. */
    CHECK_INT(make_store("reopened"), 0);
    s = open_store("reopened", 1);
    CHECK(s != NULL);
    if (s == NULL)
        return;
    CHECK_INT(arb_store_match(s, "Y1", &m, NULL), 0);
    arb_store_close(s);
    memset(rec, 0, sizeof(rec));
    rec[0] = 1;                                 /* version */
    rec[1] = 0;                                 /* open */
    rec[2] = (unsigned char)strlen(m.game);
    memcpy(rec + 4, m.game, strlen(m.game));
    for (k = 0; k < 8; k++) {
        rec[68 + k] = (unsigned char)(m.last_seq >> (56 - 8 * k));
        rec[76 + k] = (unsigned char)(m.count >> (56 - 8 * k));
        rec[116 + k] = (unsigned char)((uint64_t)m.created_ms
                                       >> (56 - 8 * k));
        rec[124 + k] = (unsigned char)((uint64_t)m.last_ms >> (56 - 8 * k));
    }
    memcpy(rec + 84, m.head, ARB_HASH_LEN);
    CHECK_INT(raw_edit("reopened", "matches", "Y1", 2, rec, sizeof(rec)),
              0);
    CHECK_INT(check("reopened", &sum), 1);
    CHECK_STR(problems, "Y1 seq 4: the match is closed here, the match "
              "index says open\n");

    /* ... closed again, with another head. */
    rec[1] = 1;
    rec[84] ^= 1;
    CHECK_INT(raw_edit("reopened", "matches", "Y1", 2, rec, sizeof(rec)),
              0);
    CHECK_INT(check("reopened", &sum), 2);
    CHECK_STR(problems, "Y1 seq 4: the match index's head is not the hash "
              "of the last event\nY1 seq 4: the global log's chain ends at "
              "another head than the match index\n");

    /* ... and with the head back, another start time: `arbiter export
     * --from/--to` picks matches by the index's times. */
    rec[84] ^= 1;
    rec[116 + 7] ^= 1;
    CHECK_INT(raw_edit("reopened", "matches", "Y1", 2, rec, sizeof(rec)),
              0);
    CHECK_INT(check("reopened", &sum), 1);
    snprintf(want, sizeof(want), "Y1: the match index's times (%lld, %lld) "
             "are not those of seq 0 and the last event (%lld, %lld)\n",
             (long long)(m.created_ms ^ 1), (long long)m.last_ms,
             (long long)m.created_ms, (long long)m.last_ms);
    CHECK_STR(problems, want);

    /* ... and with the start time back, another last time (no test
     * failed when only the start time was compared). */
    rec[116 + 7] ^= 1;
    rec[124 + 7] ^= 1;
    CHECK_INT(raw_edit("reopened", "matches", "Y1", 2, rec, sizeof(rec)),
              0);
    CHECK_INT(check("reopened", &sum), 1);
    snprintf(want, sizeof(want), "Y1: the match index's times (%lld, %lld) "
             "are not those of seq 0 and the last event (%lld, %lld)\n",
             (long long)m.created_ms, (long long)(m.last_ms ^ 1),
             (long long)m.created_ms, (long long)m.last_ms);
    CHECK_STR(problems, want);

    /* LAYOUT: T1, running, said closed by the index (no test failed when
     * that report was dropped). */
    rec[124 + 7] ^= 1;
    CHECK_INT(raw_edit("reopened", "matches", "Y1", 2, rec, sizeof(rec)),
              0);
    s = open_store("reopened", 1);
    CHECK(s != NULL);
    if (s == NULL)
        return;
    CHECK_INT(arb_store_match(s, "T1", &m, NULL), 0);
    arb_store_close(s);
    memset(rec, 0, sizeof(rec));
    rec[0] = 1;
    rec[1] = 1;                                 /* closed */
    rec[2] = (unsigned char)strlen(m.game);
    memcpy(rec + 4, m.game, strlen(m.game));
    for (k = 0; k < 8; k++) {
        rec[68 + k] = (unsigned char)(m.last_seq >> (56 - 8 * k));
        rec[76 + k] = (unsigned char)(m.count >> (56 - 8 * k));
        rec[116 + k] = (unsigned char)((uint64_t)m.created_ms
                                       >> (56 - 8 * k));
        rec[124 + k] = (unsigned char)((uint64_t)m.last_ms >> (56 - 8 * k));
    }
    memcpy(rec + 84, m.head, ARB_HASH_LEN);
    CHECK_INT(raw_edit("reopened", "matches", "T1", 2, rec, sizeof(rec)),
              0);
    CHECK_INT(check("reopened", &sum), 1);
    CHECK_STR(problems, "T1: the match index says closed, no event closes "
              "the match\n");

    /* ... open again, one event longer than it is: the global log lacks
     * it (no test failed when that report was dropped) */
    rec[1] = 0;
    rec[68 + 7] ^= 1;                           /* last seq 0 -> 1 */
    rec[76 + 7] ^= 3;                           /* count 1 -> 2 */
    CHECK_INT(raw_edit("reopened", "matches", "T1", 2, rec, sizeof(rec)),
              0);
    CHECK(check("reopened", &sum) >= 2);
    CHECK(strstr(problems, "T1 seq 1: not in the global log\n") != NULL);
}

static void
test_stale_index(void)
{
    arb_check_summary_t sum;
    arb_match_info_t    m;
    arb_store_t        *s;
    unsigned char       rec[132], prev[ARB_HASH_LEN];
    uint64_t            q;
    int                 k;

    /* LAYOUT: the match record of Y1 rewritten as it was one event ago,
     * as an index that missed the last commit would hold it. */
    CHECK_INT(make_store("stale"), 0);
    s = open_store("stale", 1);
    CHECK_INT(arb_store_match(s, "Y1", &m, NULL), 0);
    CHECK_INT(arb_store_idem(s, "Y1", "c3", &q, prev, NULL), 0);
    arb_store_close(s);
    memset(rec, 0, sizeof(rec));
    rec[0] = 1;                                 /* version */
    rec[1] = 0;                                 /* open: the close is seq 4 */
    rec[2] = (unsigned char)strlen(m.game);
    memcpy(rec + 4, m.game, strlen(m.game));
    for (k = 0; k < 8; k++) {
        rec[68 + k] = (unsigned char)((m.last_seq - 1) >> (56 - 8 * k));
        rec[76 + k] = (unsigned char)((m.count - 1) >> (56 - 8 * k));
        rec[116 + k] = (unsigned char)((uint64_t)m.created_ms >> (56 - 8 * k));
        rec[124 + k] = (unsigned char)((uint64_t)(m.last_ms - 1000)
                                       >> (56 - 8 * k));
    }
    memcpy(rec + 84, prev, ARB_HASH_LEN);       /* h(3) */
    CHECK_INT(raw_edit("stale", "matches", "Y1", 2, rec, sizeof(rec)), 0);
    /* and what follows from it: the counts disagree, and the client id of
     * the event the index misses is not counted */
    CHECK_INT(check("stale", &sum), 5);
    CHECK(strstr(problems, "Y1 seq 4: in the global log (position 5) but "
                 "the match index ends at seq 3: a stale index\n") != NULL);
    CHECK(strstr(problems, "Y1: match \"Y1\": seq 4: event stored past the "
                 "head\n") != NULL);
    CHECK(strstr(problems, "-: the store counts 8 events, the matches hold "
                 "7\n") != NULL);
    CHECK(strstr(problems, "-: the global log ends at position 8, the "
                 "matches hold 7 events\n") != NULL);

    /* LAYOUT: an idempotency entry lost. */
    CHECK_INT(make_store("idem"), 0);
    CHECK_INT(raw_edit("idem", "idem", "T2\0c1", 5, NULL, 0), 0);
    CHECK_INT(check("idem", &sum), 2);
    CHECK(strstr(problems, "T2 seq 1: client id \"c1\" is missing from the "
                 "idempotency index\n") != NULL);
    CHECK(strstr(problems, "-: the idempotency index holds 6 entries, the "
                 "events carry 7 client ids\n") != NULL);

    /* LAYOUT: an idempotency entry that answers another event (c1 of Y1
     * says seq 2, at its position 3): a retried client id would be
     * answered with another event.  The read of the entry itself finds
     * it (the check's own seq and hash comparisons are a second line of
     * defence behind it). */
    {
        unsigned char v[16] = { 0 };

        v[7] = 2;
        v[15] = 3;
        CHECK_INT(make_store("idem2"), 0);
        CHECK_INT(raw_edit("idem2", "idem", "Y1\0c1", 5, v, 16), 0);
        CHECK_INT(check("idem2", &sum), 1);
        CHECK_STR(problems, "Y1 seq 1: client id \"c1\": idem key \"Y1\"/"
                  "\"c1\": log key 3 holds another event\n");
    }

    /* LAYOUT: the kept secret of a running dealt match lost, and one that
     * does not open the commitment. */
    CHECK_INT(make_store("secret"), 0);
    CHECK_INT(raw_edit("secret", "meta", "secret:T1", 9, NULL, 0), 0);
    CHECK_INT(raw_edit("secret", "meta", "secret:T2", 9, "seed x", 6), 0);
    CHECK_INT(check("secret", &sum), 2);
    CHECK(strstr(problems, "T1: running dealt match: the deal secret is not "
                 "kept") != NULL);
    CHECK(strstr(problems, "T2: the kept deal secret does not open the deal "
                 "committed at seq 0") != NULL);
    /* ... and one that is not even "<kind> <secret>" (no test failed
     * when that report was dropped) */
    CHECK_INT(raw_edit("secret", "meta", "secret:T2", 9, "seedx", 5), 0);
    CHECK_INT(check("secret", &sum), 2);
    CHECK(strstr(problems, "T2: the kept deal secret is not '<kind> "
                 "<secret>'\n") != NULL);

    /* LAYOUT: a match's summary lost: its events are in the log, and the
     * match index does not list it (no test failed when that report was
     * dropped), and the counts disagree. */
    CHECK_INT(make_store("unlisted"), 0);
    CHECK_INT(raw_edit("unlisted", "matches", "T2", 2, NULL, 0), 0);
    CHECK_INT(check("unlisted", &sum), 4);
    CHECK_STR(problems, "T2 seq 0: in the global log (position 7) but not "
              "in the match index\n"
              "-: the store counts 8 events, the matches hold 6\n"
              "-: the global log ends at position 8, the matches hold 6 "
              "events\n"
              "-: the idempotency index holds 7 entries, the events carry "
              "5 client ids\n");
}

static int
count_keys(const char *dir, unsigned flags)
{
    MDB_env *env = NULL;
    MDB_txn *txn = NULL;
    MDB_stat st;
    MDB_dbi  dbi;
    int      n = -1;

    if (mdb_env_create(&env) == 0 &&
        mdb_env_open(env, dir, MDB_RDONLY | flags, 0600) == 0 &&
        mdb_txn_begin(env, NULL, MDB_RDONLY, &txn) == 0 &&
        mdb_dbi_open(txn, NULL, 0, &dbi) == 0 &&
        mdb_stat(txn, dbi, &st) == 0)
        n = (int)st.ms_entries;
    if (txn != NULL)
        mdb_txn_abort(txn);
    mdb_env_close(env);
    return n;
}

static int
make_env(const char *dir, unsigned flags, int nkeys)
{
    MDB_env *env = NULL;
    MDB_txn *txn = NULL;
    MDB_dbi  dbi;
    char     k[16];
    int      i, rc;

    rc = mdb_env_create(&env);
    if (rc == 0)
        rc = mdb_env_open(env, dir, flags, 0600);
    if (rc == 0)
        rc = mdb_txn_begin(env, NULL, 0, &txn);
    if (rc == 0)
        rc = mdb_dbi_open(txn, NULL, 0, &dbi);
    for (i = 0; rc == 0 && i < nkeys; i++) {
        MDB_val key, val;
        snprintf(k, sizeof(k), "k%d", i);
        key.mv_data = k;
        key.mv_size = strlen(k);
        val = key;
        rc = mdb_put(txn, dbi, &key, &val, 0);
    }
    if (rc == 0) {
        rc = mdb_txn_commit(txn);
        txn = NULL;
    }
    if (txn != NULL)
        mdb_txn_abort(txn);
    mdb_env_close(env);
    return rc;
}

static char copied[512];

static void
copied_cb(void *ud, const char *rel)
{
    (void)ud;
    strncat(copied, rel, sizeof(copied) - strlen(copied) - 2);
    strcat(copied, ",");
}

/* Every environment of the directory is copied, the directory's own
 * last; other files are left to the caller. */
static void
test_backup_envs(void)
{
    arb_check_summary_t sum;
    arb_buf_t           why = ARB_BUF_INIT;
    char                p[200];
    int                 fd;

    CHECK_INT(make_store("src"), 0);
    mkdir(path("src/index"), 0700);
    CHECK_INT(make_env(path("src/index"), 0, 5), 0);
    CHECK_INT(make_env(path("src/extra.mdb"), MDB_NOSUBDIR, 3), 0);
    fd = open(path("src/signing.key"), O_WRONLY | O_CREAT, 0600);
    CHECK(fd >= 0 && write(fd, "x", 1) == 1);
    close(fd);
    /* Neither a directory without a data.mdb nor a NAME.mdb without its
     * NAME.mdb-lock is an environment: both are left to the caller (no
     * test failed when either was opened as one, which fails the
     * backup). */
    mkdir(path("src/old"), 0700);
    fd = open(path("src/old/notes"), O_WRONLY | O_CREAT, 0600);
    CHECK(fd >= 0 && write(fd, "x", 1) == 1);
    close(fd);
    fd = open(path("src/stray.mdb"), O_WRONLY | O_CREAT, 0600);
    CHECK(fd >= 0 && write(fd, "not lmdb", 8) == 8);
    close(fd);
    mkdir(path("copy"), 0700);
    CHECK_INT(arb_store_backup(path("src"), path("copy"), 0, copied_cb, NULL,
                               &why), 0);
    /* readdir order decides the first two; the store's own is last, so
     * no copied index is ahead of the copied log (no test failed when it
     * was copied first: "index/data.mdb," ends as "data.mdb," does) */
    CHECK(strstr(copied, "index/data.mdb,") != NULL);
    CHECK(strstr(copied, "extra.mdb,") != NULL);
    CHECK(strlen(copied) > 10 &&
          strcmp(copied + strlen(copied) - 10, ",data.mdb,") == 0);
    CHECK(strstr(copied, "old") == NULL && strstr(copied, "stray") == NULL);
    CHECK(access(path("copy/old"), F_OK) != 0);
    CHECK(access(path("copy/stray.mdb"), F_OK) != 0);
    CHECK_INT(count_keys(path("copy/index"), 0), 5);
    CHECK_INT(count_keys(path("copy/extra.mdb"), MDB_NOSUBDIR), 3);
    CHECK(access(path("copy/signing.key"), F_OK) != 0);
    CHECK_INT(check("copy", &sum), 0);
    CHECK_INT(sum.events, 8);
    {
        struct stat st;
        snprintf(p, sizeof(p), "%s/data.mdb", path("copy"));
        CHECK(stat(p, &st) == 0 && (st.st_mode & 0777) == 0600);
    }
    /* compacting copy holds the same, without the free pages the
     * source's commits left (no test failed when --compact was not
     * passed on to LMDB) */
    mkdir(path("copy2"), 0700);
    CHECK_INT(arb_store_backup(path("src"), path("copy2"), 1, NULL, NULL,
                               &why), 0);
    CHECK_INT(check("copy2", &sum), 0);
    CHECK_INT(sum.events, 8);
    {
        struct stat full, compact;
        char        q[200];

        snprintf(p, sizeof(p), "%s/data.mdb", path("copy"));
        snprintf(q, sizeof(q), "%s/data.mdb", path("copy2"));
        CHECK(stat(p, &full) == 0 && stat(q, &compact) == 0 &&
              compact.st_size < full.st_size);
    }
    /* no store there */
    CHECK_INT(arb_store_backup(path("copy/index/nothing"), path("copy3"), 0,
                               NULL, NULL, &why), ARB_ENOTFOUND);
    /* ... a directory without a data.mdb, said so, before any copy (no
     * test failed when the look for it was dropped) */
    arb_buf_free(&why);
    copied[0] = '\0';
    mkdir(path("copy4"), 0700);
    CHECK_INT(arb_store_backup(path("src/old"), path("copy4"), 0, copied_cb,
                               NULL, &why), ARB_ENOTFOUND);
    CHECK(why.data != NULL &&
          strstr(arb_buf_cstr(&why), "no store there (no data.mdb)"));
    CHECK_STR(copied, "");
    CHECK_INT(arb_store_is_env_file("data.mdb"), 1);
    CHECK_INT(arb_store_is_env_file("x/lock.mdb"), 1);
    CHECK_INT(arb_store_is_env_file("extra.mdb-lock"), 1);
    CHECK_INT(arb_store_is_env_file("signing.key"), 0);
    arb_buf_free(&why);
}

/* The writer of big.mdb, in another process (as the recorder is): the
 * map grown to 8 MiB and filled past the 1 MiB the backup mapped. */
static void
grow_big(const char *src)
{
    MDB_env *env = NULL;
    MDB_txn *txn = NULL;
    MDB_dbi  dbi;
    MDB_val  key, val;
    char     k[16], v[1024];
    pid_t    pid;
    int      i, rc, st = 0;

    if (strstr(src, "big.mdb") == NULL)
        return;
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        memset(v, 'v', sizeof(v));
        rc = mdb_env_create(&env);
        if (rc == 0)
            rc = mdb_env_set_mapsize(env, 8u << 20);
        if (rc == 0)
            rc = mdb_env_open(env, src, MDB_NOSUBDIR, 0600);
        if (rc == 0)
            rc = mdb_txn_begin(env, NULL, 0, &txn);
        if (rc == 0)
            rc = mdb_dbi_open(txn, NULL, 0, &dbi);
        for (i = 0; rc == 0 && i < 3000; i++) {
            snprintf(k, sizeof(k), "g%d", i);
            key.mv_data = k;
            key.mv_size = strlen(k);
            val.mv_data = v;
            val.mv_size = sizeof(v);
            rc = mdb_put(txn, dbi, &key, &val, 0);
        }
        if (rc == 0)
            rc = mdb_txn_commit(txn);
        _exit(rc == 0 ? 0 : 1);
    }
    CHECK(pid > 0);
    if (pid <= 0)
        return;
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* A recorder that grows its map while the backup has the environment
 * open: LMDB answers the copy MDB_MAP_RESIZED, and the backup adopts the
 * new size and copies again (nothing ran that retry before). */
static void
test_backup_map_grown(void)
{
    arb_buf_t why = ARB_BUF_INIT;
    int       rc;

    CHECK_INT(make_store("grow"), 0);
    CHECK_INT(make_env(path("grow/big.mdb"), MDB_NOSUBDIR, 5), 0);
    mkdir(path("grow-copy"), 0700);
    arb__backup_opened_hook = grow_big;
    rc = arb_store_backup(path("grow"), path("grow-copy"), 0, NULL, NULL,
                          &why);
    arb__backup_opened_hook = NULL;
    if (rc != 0)
        fprintf(stderr, "backup: %s\n", arb_buf_cstr(&why));
    CHECK_INT(rc, 0);
    CHECK_INT(count_keys(path("grow-copy/big.mdb"), MDB_NOSUBDIR), 3005);
    arb_buf_free(&why);
}

int
main(void)
{
    char cmd[128];

    snprintf(base, sizeof(base), "/tmp/arb_check_XXXXXX");
    if (mkdtemp(base) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    test_empty();
    test_clean();
    test_flipped_byte();
    test_missing_seq();
    test_close_damage();
    test_log_order();
    test_time_skew();
    test_log_unreadable();
    test_event_lies();
    test_stale_index();
    test_backup_envs();
    test_backup_map_grown();
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", base);
    return TEST_END();
}
