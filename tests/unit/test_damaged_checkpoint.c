/*
 * test_damaged_checkpoint.c - arbiterd's `checkpoint` over a match whose
 * index has a hole (daemon/checkpoint.c): one seq key of the match taken
 * out of index.mdb while the daemon was stopped, as a damaged disk
 * might.  The daemon opens the store (its mark still holds), but must
 * not sign a head over events it could not read: the answer is an error
 * naming the match, the seq signed up to and the missing key, logged as
 * store_corrupt; another match is still signed.
 *
 * (The checkpoint also refuses a read that returned fewer events than
 * asked without an error; the store never does that - a hole is an
 * error of its own, as here - so that check is defensive and nothing
 * here reaches it.)
 */
#include <stdio.h>
#include <string.h>

#include <lmdb.h>
#include <msgpack.h>

#include "core/mp.h"
#include "tests/daemon_harness.h"
#include "tests/test.h"

static msgpack_unpacked res;
static char             code[64];

static int
call(arb_client_t *cl)
{
    return harness_call(cl, &res, code, sizeof(code));
}

static void
move(arb_client_t *cl, const char *match, const char *who,
     const char *card)
{
    msgpack_packer *pk;

    arb_client_begin(cl, &pk, "append", 5);
    arb_mp_pack_kv_str(pk, "match", match);
    arb_mp_pack_kv_str(pk, "kind", "move");
    arb_mp_pack_kv_str(pk, "player", who);
    arb_mp_pack_kv_str(pk, "verb", "place");
    arb_mp_pack_cstr(pk, "args");
    msgpack_pack_array(pk, 1);
    arb_mp_pack_cstr(pk, card);
    CHECK_INT(call(cl), 0);
}

/* The checkpoint of match: 0 (count in *count) or -1 (code set). */
static int
checkpoint(arb_client_t *cl, const char *match, uint64_t *count)
{
    msgpack_packer *pk;
    int             rc;

    arb_client_begin(cl, &pk, "checkpoint", 1);
    arb_mp_pack_kv_str(pk, "match", match);
    rc = call(cl);
    *count = rc == 0 ? arb_client_uint(&res, "count") : 0;
    return rc;
}

/* The error message of the last answer, NUL-ended in out. */
static const char *
message(char *out, size_t cap)
{
    const char *p = "";
    size_t      n = 0;

    out[0] = '\0';
    if (arb_mp_get_bytes(arb_mp_get(&res.data, "error"), "message", &p,
                         &n) == 0 && n < cap) {
        memcpy(out, p, n);
        out[n] = '\0';
    }
    return out;
}

/* Takes the index's seq key of match id's seq out of index.mdb. */
static int
drop_seq_key(const char *id, uint64_t seq)
{
    MDB_env       *env = NULL;
    MDB_txn       *txn = NULL;
    MDB_dbi        dbi;
    MDB_val        k;
    unsigned char  kb[64];
    char           path[320];
    size_t         il = strlen(id);
    int            i, rc;

    memcpy(kb, id, il);
    kb[il] = 0;
    for (i = 0; i < 8; i++)
        kb[il + 1 + i] = (unsigned char)(seq >> (56 - 8 * i));
    k.mv_data = kb;
    k.mv_size = il + 9;
    snprintf(path, sizeof(path), "%s/data/index.mdb", harness_dir);
    rc = mdb_env_create(&env);
    if (rc == 0)
        rc = mdb_env_set_maxdbs(env, 8);
    if (rc == 0)
        rc = mdb_env_open(env, path, MDB_NOSUBDIR, 0600);
    if (rc == 0)
        rc = mdb_txn_begin(env, NULL, 0, &txn);
    if (rc == 0)
        rc = mdb_dbi_open(txn, "seq", 0, &dbi);
    if (rc == 0)
        rc = mdb_del(txn, dbi, &k, NULL);
    if (rc == 0) {
        rc = mdb_txn_commit(txn);
        txn = NULL;
    }
    if (txn != NULL)
        mdb_txn_abort(txn);
    mdb_env_close(env);
    if (rc != 0)
        fprintf(stderr, "drop seq key: %s\n", mdb_strerror(rc));
    return rc;
}

int
main(void)
{
    arb_client_t *cl;
    uint64_t      n = 0;
    char          msg[512];
    const char   *ids[2] = { "HOLE", "WHOLE" };
    int           i;

    if (harness_init(NULL, 60) != 0)
        return 1;
    msgpack_unpacked_init(&res);
    harness_start();
    cl = harness_connect(HARNESS_ARBITER);
    CHECK(cl != NULL);
    for (i = 0; cl != NULL && i < 2; i++) {
        CHECK_INT(harness_open_yah(cl, ids[i], &res, code, sizeof(code)),
                  0);
        move(cl, ids[i], "alice", "4S");
        move(cl, ids[i], "bob", "5S");
        move(cl, ids[i], "alice", "6S");
        CHECK_INT(checkpoint(cl, ids[i], &n), 0);
        CHECK_INT(n, 4);
    }
    arb_client_close(cl);
    /* A clean stop: the index holds everything, its mark the last
     * record, so the next start reads it as it is. */
    harness_stop(SIGTERM);
    CHECK_INT(drop_seq_key("HOLE", 2), 0);
    harness_start();
    cl = harness_connect(HARNESS_ARBITER);
    CHECK(cl != NULL);
    if (cl != NULL) {
        CHECK_INT(checkpoint(cl, "HOLE", &n), -1);
        CHECK_STR(code, "internal");
        CHECK_STR(message(msg, sizeof(msg)),
                  "match 'HOLE': seq 3: index seq key \"HOLE\"/2: missing");
        CHECK_INT(checkpoint(cl, "WHOLE", &n), 0);
        CHECK_INT(n, 4);
    }
    arb_client_close(cl);
    CHECK_INT(harness_log_count("error match HOLE: index seq key \"HOLE\"/2:"
                                " missing (1 reads so far)"), 1);
    msgpack_unpacked_destroy(&res);
    harness_done(test_failed_);
    return TEST_END();
}
