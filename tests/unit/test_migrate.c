/*
 * test_migrate.c - `arbiter migrate` (tools/cmd_migrate.c) of a format-1
 * store larger than one of its batches: two matches whose events
 * alternate in the log, 1402 events in all, written here in format 1's
 * layout (docs/STORE.md, "Migrating from format 1") since the fixture
 * (tests/data/store-format1, 48 events) never fills a batch.  Every
 * event must come over exactly once, at its position, with its time,
 * bytes, hash and client id.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lmdb.h>

#include "core/codec.h"
#include "core/err.h"
#include "core/ledger/chain.h"
#include "core/ledger/store.h"
#include "core/ledger/store_int.h"
#include "core/transcript.h"
#include "tests/test.h"
#include "tools/ops.h"

#define NOTES 700               /* per match: 2 * 701 events, past 1024 */
#define NEV   (2 * (NOTES + 1))
#define T0    1772359200000LL

int cmd_migrate(int argc, char **argv);

static char base[] = "/tmp/arb_migrate_XXXXXX";
static char dir[64];

typedef struct ev {
    const char    *match;
    uint64_t       seq;
    int64_t        time_ms;
    arb_buf_t      bytes;
    unsigned char  hash[ARB_HASH_LEN];
    char           cid[16];     /* "" when none */
} ev_t;

static ev_t evs[NEV];           /* in log order */

/* The events of one match, every seventh with a client id, into evs at
 * first, first + 2, ... (the two matches alternate). */
static int
make_match(const char *id, size_t first)
{
    arb_history_t  t;
    arb_buf_t      text = ARB_BUF_INIT, why = ARB_BUF_INIT;
    unsigned char *prev = NULL;
    size_t         i;
    int            rc;

    arb_buf_printf(&text, "game: yahchain\nmatch: %s\nplayers: a b\n"
                   "mode: 3\n\n", id);
    for (i = 0; i < NOTES; i++)
        arb_buf_printf(&text, "note %s-n%zu\n", id, i);
    rc = arb_transcript_parse(&t, text.data, text.len, &why);
    arb_buf_free(&text);
    if (rc != 0) {
        fprintf(stderr, "transcript: %s\n", arb_buf_cstr(&why));
        arb_buf_free(&why);
        return rc;
    }
    for (i = 0; rc == 0 && i <= NOTES; i++) {
        arb_event_t *e = i == 0 ? &t.open : &t.events[i - 1];
        ev_t        *v = &evs[first + 2 * i];

        v->match = id;
        v->seq = i;
        v->time_ms = T0 + (int64_t)(first + 2 * i) * 10;
        e->seq = i;
        e->time_ms = v->time_ms;
        e->actor = strdup("arbiter");
        if (i % 7 == 3) {
            snprintf(v->cid, sizeof(v->cid), "c%zu", i);
            e->client_id = strdup(v->cid);
        }
        rc = arb_event_encode(&v->bytes, e);
        arb_chain_next(prev, v->bytes.data, v->bytes.len, v->hash);
        prev = v->hash;
    }
    arb_history_clear(&t);
    arb_buf_free(&why);
    return rc;
}

static int
put(MDB_txn *txn, MDB_dbi db, const void *k, size_t kn, const void *v,
    size_t vn)
{
    MDB_val key = { kn, (void *)k }, val = { vn, (void *)v };

    return mdb_put(txn, db, &key, &val, 0);
}

/* evs written in format 1's four trees and its meta; with orphan, a
 * third summary record, of a match the log has no event of. */
static int
write_v1(int orphan)
{
    static const char *const names[] = { "events", "matches", "log",
                                         "idem", "meta" };
    MDB_env       *env = NULL;
    MDB_txn       *txn = NULL;
    MDB_dbi        db[5];
    unsigned char  k[ARB__IDEMKEY_MAX + 8];
    unsigned char  v[ARB_HASH_LEN + 8 + 4096], r[REC_LEN];
    const char    *ids[3] = { "MA", "MB", "MC" };
    size_t         i, n;
    int            rc;

    mkdir(dir, 0700);
    rc = mdb_env_create(&env);
    if (rc == 0)
        rc = mdb_env_set_maxdbs(env, 8);
    if (rc == 0)
        rc = mdb_env_set_mapsize(env, 64 << 20);
    if (rc == 0)
        rc = mdb_env_open(env, dir, 0, 0600);
    if (rc == 0)
        rc = mdb_txn_begin(env, NULL, 0, &txn);
    for (i = 0; rc == 0 && i < 5; i++)
        rc = mdb_dbi_open(txn, names[i], MDB_CREATE, &db[i]);
    for (i = 0; rc == 0 && i < NEV; i++) {
        const ev_t *e = &evs[i];
        size_t      idlen = strlen(e->match);

        n = arb__seq_key(k, e->match, idlen, e->seq);
        memcpy(v, e->hash, ARB_HASH_LEN);
        arb__put64(v + ARB_HASH_LEN, (uint64_t)e->time_ms);
        memcpy(v + ARB_HASH_LEN + 8, e->bytes.data, e->bytes.len);
        rc = put(txn, db[0], k, n, v, ARB_HASH_LEN + 8 + e->bytes.len);
        arb__put64(k, i + 1);
        arb__put64(v, e->seq);
        arb__put64(v + 8, (uint64_t)e->time_ms);
        memcpy(v + 16, e->match, idlen);
        if (rc == 0)
            rc = put(txn, db[2], k, 8, v, 16 + idlen);
        if (rc == 0 && e->cid[0] != '\0') {
            n = arb__idem_key(k, e->match, idlen, e->cid, strlen(e->cid));
            arb__put64(v, e->seq);
            rc = put(txn, db[3], k, n, v, 8);
        }
    }
    for (i = 0; rc == 0 && i < (orphan ? 3u : 2u); i++) {
        arb_match_info_t m;
        const ev_t      *last = &evs[NEV - 2 + i % 2];

        memset(&m, 0, sizeof(m));
        strcpy(m.match_id, ids[i]);
        strcpy(m.game, "yahchain");
        m.last_seq = NOTES;
        m.count = NOTES + 1;
        memcpy(m.head, last->hash, ARB_HASH_LEN);
        m.created_ms = evs[i].time_ms;
        m.last_ms = last->time_ms;
        arb__rec_encode(r, &m);
        rc = put(txn, db[1], ids[i], strlen(ids[i]), r, REC_LEN);
    }
    if (rc == 0)
        rc = put(txn, db[4], "format", 6, "\0\0\0\1", 4);
    if (rc == 0) {
        rc = mdb_txn_commit(txn);
        txn = NULL;
    }
    if (txn != NULL)
        mdb_txn_abort(txn);
    mdb_env_close(env);
    return rc;
}

typedef struct seen {
    uint64_t n;
    int      bad;
} seen_t;

static int
log_cb(void *ud, uint64_t pos, const char *match_id, uint64_t seq,
       int64_t time_ms, const unsigned char hash[ARB_HASH_LEN],
       const void *bytes, size_t len)
{
    seen_t     *s = ud;
    const ev_t *e = pos >= 1 && pos <= NEV ? &evs[pos - 1] : NULL;

    if (e == NULL || pos != s->n + 1 || strcmp(match_id, e->match) != 0 ||
        seq != e->seq || time_ms != e->time_ms ||
        memcmp(hash, e->hash, ARB_HASH_LEN) != 0 || len != e->bytes.len ||
        memcmp(bytes, e->bytes.data, len) != 0) {
        if (s->bad++ == 0)
            fprintf(stderr, "  log position %llu: not the event written\n",
                    (unsigned long long)pos);
    }
    s->n++;
    return 0;
}

static void
test_migrate_batches(void)
{
    arb_store_opts_t o;
    arb_store_t     *s = NULL;
    arb_buf_t        why = ARB_BUF_INIT;
    seen_t           seen;
    char            *argv[] = { "migrate", "--data", dir, "--quiet", NULL };
    char             p[128];
    uint64_t         seq;
    unsigned char    h[ARB_HASH_LEN];
    size_t           i, cids = 0, found = 0;

    CHECK_INT(write_v1(0), 0);
    CHECK_INT(cmd_migrate(4, argv), 0);
    snprintf(p, sizeof(p), "%s/format1/data.mdb", dir);
    CHECK(access(p, F_OK) == 0);
    memset(&o, 0, sizeof(o));
    o.read_only = 1;
    CHECK_INT(arb_store_open(&s, dir, &o, &why), 0);
    if (s == NULL) {
        fprintf(stderr, "  open: %s\n", arb_buf_cstr(&why));
        arb_buf_free(&why);
        return;
    }
    memset(&seen, 0, sizeof(seen));
    CHECK_INT(arb_store_log(s, NULL, 1, 0, log_cb, &seen, &why), 0);
    CHECK_INT(seen.n, NEV);
    CHECK_INT(seen.bad, 0);
    for (i = 0; i < NEV; i++) {
        if (evs[i].cid[0] == '\0')
            continue;
        cids++;
        if (arb_store_idem(s, evs[i].match, evs[i].cid, &seq, h,
                           &why) == 0 && seq == evs[i].seq &&
            memcmp(h, evs[i].hash, ARB_HASH_LEN) == 0)
            found++;
    }
    CHECK(cids > 100);
    CHECK_INT(found, cids);
    arb_store_close(s);
    arb_buf_free(&why);
}

/* A summary record whose match has no event in the log: the old store
 * is damaged (exit status 1, the match named), DIR left as it was (until
 * 2026-12-07 the status of an I/O error). */
static void
test_orphan_record(void)
{
    char *argv[] = { "migrate", "--data", dir, "--quiet", NULL };
    char  p[128], cmd[160];

    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    CHECK_INT(system(cmd), 0);
    CHECK_INT(write_v1(1), 0);
    CHECK_INT(cmd_migrate(4, argv), 1);
    snprintf(p, sizeof(p), "%s/format1", dir);
    CHECK(access(p, F_OK) != 0);
    snprintf(p, sizeof(p), "%s/" ARB_MIGRATE_NEW, dir);
    CHECK(access(p, F_OK) != 0);
    snprintf(p, sizeof(p), "%s/data.mdb", dir);
    CHECK(access(p, F_OK) == 0);
}

int
main(void)
{
    char   cmd[128];
    size_t i;

    if (mkdtemp(base) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(dir, sizeof(dir), "%s/data", base);
    ops_quiet = 1;
    if (make_match("MA", 0) != 0 || make_match("MB", 1) != 0) {
        fprintf(stderr, "could not make the events\n");
        return 1;
    }
    test_migrate_batches();
    test_orphan_record();
    for (i = 0; i < NEV; i++)
        arb_buf_free(&evs[i].bytes);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", base);
    return TEST_END();
}
