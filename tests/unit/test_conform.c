/*
 * Protocol conformance as an outside client would check it from
 * proto/PROTOCOL.md alone: every request gets exactly one answer, absent is
 * never confused with a value, every limit is answered with `too_big`, an
 * unauthenticated connection that sends a bad first request is closed, and
 * duplicate acks carry the documented fields.
 */
#include <stdint.h>

#include <sodium.h>

#include "core/err.h"
#include "tests/daemon_harness.h"
#include "tests/test.h"

static msgpack_unpacked res;

/* Values for the raw request builder. */
enum { V_NONE, V_NIL, V_UINT, V_STR };

typedef struct kv {
    const char *k;
    int         type;
    uint64_t    u;
    const char *s;
} kv_t;

/* Sends {kv...} as one frame and reads frames until the one with id `id`
 * (pushes skipped) or the end.  Returns 0 with *res holding it, -1 at EOF. */
static int
raw_call(arb_client_t *cl, const kv_t *kv, size_t n, uint64_t id)
{
    arb_buf_t      b = ARB_BUF_INIT, why = ARB_BUF_INIT;
    msgpack_packer pk;
    size_t         i, m = 0;
    int            rc = -1;

    for (i = 0; i < n; i++)
        m += kv[i].type != V_NONE;
    arb_mp_packer_init(&pk, &b);
    msgpack_pack_map(&pk, m);
    for (i = 0; i < n; i++) {
        if (kv[i].type == V_NONE)
            continue;
        arb_mp_pack_cstr(&pk, kv[i].k);
        if (kv[i].type == V_NIL)
            msgpack_pack_nil(&pk);
        else if (kv[i].type == V_UINT)
            msgpack_pack_uint64(&pk, kv[i].u);
        else
            arb_mp_pack_cstr(&pk, kv[i].s);
    }
    if (harness_send_raw(cl, &b) == 0) {
        for (;;) {
            const msgpack_object *o;
            if (arb_client_read(cl, &res, &why) != 0)
                break;
            o = arb_client_get(&res, "id");
            if (o != NULL && o->type == MSGPACK_OBJECT_POSITIVE_INTEGER
                && o->via.u64 == id) {
                rc = 0;
                break;
            }
            if (o != NULL && id == 0) {
                rc = 0;
                break;
            }
        }
    }
    arb_buf_free(&b);
    arb_buf_free(&why);
    return rc;
}

static const char *
code_of(void)
{
    static char code[64];

    return arb_client_error_code(&res, code, sizeof(code));
}

/* The error message of res, "" when it has none. */
static const char *
message_of(void)
{
    static char           msg[600];
    const msgpack_object *e = arb_client_get(&res, "error");
    uint32_t              k;

    msg[0] = '\0';
    for (k = 0; e != NULL && e->type == MSGPACK_OBJECT_MAP
                && k < e->via.map.size; k++) {
        const msgpack_object *kk = &e->via.map.ptr[k].key;
        const msgpack_object *v = &e->via.map.ptr[k].val;
        if (kk->type == MSGPACK_OBJECT_STR && kk->via.str.size == 7
            && memcmp(kk->via.str.ptr, "message", 7) == 0
            && v->type == MSGPACK_OBJECT_STR
            && v->via.str.size < sizeof(msg)) {
            memcpy(msg, v->via.str.ptr, v->via.str.size);
            msg[v->via.str.size] = '\0';
        }
    }
    return msg;
}

static int
serves(arb_client_t *cl)
{
    arb_buf_t       why = ARB_BUF_INIT;
    msgpack_packer *pk;
    int             ok;

    arb_client_begin(cl, &pk, "ping", 0);
    ok = arb_client_call(cl, &res, &why) == 0;
    arb_buf_free(&why);
    return ok;
}

/* Every version but 1, and a missing or nil one, is answered once. */
static void
test_version(void)
{
    arb_client_t *cl = harness_connect(HARNESS_READER);
    struct {
        int         type;
        uint64_t    u;
        const char *code;
    } cases[] = {
        { V_NONE, 0, "unsupported" }, { V_NIL, 0, "unsupported" },
        { V_UINT, 0, "unsupported" }, { V_UINT, 2, "unsupported" },
        { V_STR, 0, "proto" },
    };
    size_t i;

    CHECK(cl != NULL);
    if (cl == NULL)
        return;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        kv_t kv[] = { { "v", cases[i].type, cases[i].u, "1" },
                      { "id", V_UINT, 70 + i, NULL },
                      { "op", V_STR, 0, "ping" } };
        CHECK_INT(raw_call(cl, kv, 3, 70 + i), 0);
        CHECK_STR(code_of(), cases[i].code);
        CHECK(serves(cl));
    }
    arb_client_close(cl);
}

/* Before auth, any bad request is answered and ends the connection. */
static void
test_unauthenticated(void)
{
    kv_t v2[] = { { "v", V_UINT, 2, NULL }, { "id", V_UINT, 1, NULL },
                  { "op", V_STR, 0, "auth" },
                  { "token", V_STR, 0, HARNESS_READER } };
    kv_t op5[] = { { "v", V_UINT, 1, NULL }, { "id", V_UINT, 1, NULL },
                   { "op", V_UINT, 5, NULL } };
    kv_t auth[] = { { "v", V_UINT, 1, NULL }, { "id", V_UINT, 2, NULL },
                    { "op", V_STR, 0, "auth" },
                    { "token", V_STR, 0, HARNESS_READER } };
    arb_client_t *cl;

    cl = harness_connect(NULL);
    CHECK_INT(raw_call(cl, v2, 4, 1), 0);
    CHECK_STR(code_of(), "unsupported");
    /* the later auth gets nothing: the connection is over */
    CHECK(raw_call(cl, auth, 4, 2) != 0);
    arb_client_close(cl);

    cl = harness_connect(NULL);
    CHECK_INT(raw_call(cl, op5, 3, 1), 0);
    CHECK_STR(code_of(), "proto");
    CHECK(raw_call(cl, auth, 4, 2) != 0);
    arb_client_close(cl);
}

/* Starts an open of YAHchain match `id` (alice, bob) with `more` fields
 * still to pack after match, game and players. */
static void
begin_open(arb_client_t *cl, msgpack_packer **pk, const char *id,
           size_t more)
{
    arb_client_begin(cl, pk, "open", 3 + more);
    arb_mp_pack_cstr(*pk, "match"); arb_mp_pack_cstr(*pk, id);
    arb_mp_pack_cstr(*pk, "game"); arb_mp_pack_cstr(*pk, "yahchain");
    arb_mp_pack_cstr(*pk, "players");
    msgpack_pack_array(*pk, 2);
    arb_mp_pack_cstr(*pk, "alice"); arb_mp_pack_cstr(*pk, "bob");
}

/* Packs options {"mode": "3"}. */
static void
pack_mode3(msgpack_packer *pk)
{
    arb_mp_pack_cstr(pk, "options");
    msgpack_pack_map(pk, 1);
    arb_mp_pack_cstr(pk, "mode"); arb_mp_pack_cstr(pk, "3");
}

static void
open_yah(arb_client_t *cl, const char *id)
{
    arb_buf_t       why = ARB_BUF_INIT;
    msgpack_packer *pk;

    begin_open(cl, &pk, id, 1);
    pack_mode3(pk);
    CHECK_INT(arb_client_call(cl, &res, &why), 0);
    arb_buf_free(&why);
}

/* Absent is distinct from every value: the largest uint is a seq like any
 * other, target 0 is a target, limit 0 and over 10,000 are refused. */
static void
test_no_sentinels(void)
{
    arb_client_t *cl = harness_connect(HARNESS_ARBITER);
    kv_t at_max[] = { { "v", V_UINT, 1, NULL }, { "id", V_UINT, 10, NULL },
                      { "op", V_STR, 0, "state" },
                      { "match", V_STR, 0, "conf-1" },
                      { "at", V_UINT, UINT64_MAX, NULL } };
    kv_t move_t0[] = { { "v", V_UINT, 1, NULL }, { "id", V_UINT, 11, NULL },
                       { "op", V_STR, 0, "append" },
                       { "match", V_STR, 0, "conf-1" },
                       { "kind", V_STR, 0, "note" },
                       { "text", V_STR, 0, "hello" },
                       { "target", V_UINT, 0, NULL } };
    kv_t lim0[] = { { "v", V_UINT, 1, NULL }, { "id", V_UINT, 12, NULL },
                    { "op", V_STR, 0, "events" },
                    { "match", V_STR, 0, "conf-1" },
                    { "limit", V_UINT, 0, NULL } };
    kv_t limbig[] = { { "v", V_UINT, 1, NULL }, { "id", V_UINT, 13, NULL },
                      { "op", V_STR, 0, "events" },
                      { "match", V_STR, 0, "conf-1" },
                      { "limit", V_UINT, 10001, NULL } };
    kv_t mlim0[] = { { "v", V_UINT, 1, NULL }, { "id", V_UINT, 14, NULL },
                     { "op", V_STR, 0, "matches" },
                     { "limit", V_UINT, 0, NULL } };
    kv_t mlimbig[] = { { "v", V_UINT, 1, NULL }, { "id", V_UINT, 15, NULL },
                       { "op", V_STR, 0, "matches" },
                       { "limit", V_UINT, 10001, NULL } };

    CHECK(cl != NULL);
    if (cl == NULL)
        return;
    open_yah(cl, "conf-1");
    CHECK_INT(raw_call(cl, at_max, 5, 10), 0);
    CHECK_STR(code_of(), "not_found");
    CHECK_INT(raw_call(cl, move_t0, 7, 11), 0);
    CHECK_STR(code_of(), "proto");
    CHECK_INT(raw_call(cl, lim0, 5, 12), 0);
    CHECK_STR(code_of(), "proto");
    CHECK_INT(raw_call(cl, limbig, 5, 13), 0);
    CHECK_STR(code_of(), "too_big");
    CHECK_INT(raw_call(cl, mlim0, 4, 14), 0);
    CHECK_STR(code_of(), "proto");
    CHECK_INT(raw_call(cl, mlimbig, 4, 15), 0);
    CHECK_STR(code_of(), "too_big");
    arb_client_close(cl);
}

/* Each limit of the table in PROTOCOL.md is answered with too_big. */
static void
test_limits(void)
{
    arb_client_t   *cl = harness_connect(HARNESS_ARBITER);
    arb_buf_t       why = ARB_BUF_INIT;
    msgpack_packer *pk;
    char           *big;
    int             i;

    CHECK(cl != NULL);
    if (cl == NULL)
        return;
    big = malloc(4098);
    memset(big, 'n', 4097);
    big[4097] = '\0';
    open_yah(cl, "conf-2");
    /* a 4,097-byte note */
    arb_client_begin(cl, &pk, "append", 3);
    arb_mp_pack_cstr(pk, "match"); arb_mp_pack_cstr(pk, "conf-2");
    arb_mp_pack_cstr(pk, "kind"); arb_mp_pack_cstr(pk, "note");
    arb_mp_pack_cstr(pk, "text"); arb_mp_pack_cstr(pk, big);
    CHECK(arb_client_call(cl, &res, &why) != 0);
    CHECK_STR(code_of(), "too_big");
    /* a 4,097-byte argument */
    arb_client_begin(cl, &pk, "append", 5);
    arb_mp_pack_cstr(pk, "match"); arb_mp_pack_cstr(pk, "conf-2");
    arb_mp_pack_cstr(pk, "kind"); arb_mp_pack_cstr(pk, "move");
    arb_mp_pack_cstr(pk, "player"); arb_mp_pack_cstr(pk, "alice");
    arb_mp_pack_cstr(pk, "verb"); arb_mp_pack_cstr(pk, "place");
    arb_mp_pack_cstr(pk, "args");
    msgpack_pack_array(pk, 1);
    arb_mp_pack_cstr(pk, big);
    CHECK(arb_client_call(cl, &res, &why) != 0);
    CHECK_STR(code_of(), "too_big");
    /* 65 options */
    begin_open(cl, &pk, "conf-3", 1);
    arb_mp_pack_cstr(pk, "options");
    msgpack_pack_map(pk, 65);
    for (i = 0; i < 65; i++) {
        char k[16];
        snprintf(k, sizeof(k), "k%03d", i);
        arb_mp_pack_cstr(pk, k);
        arb_mp_pack_cstr(pk, "x");
    }
    CHECK(arb_client_call(cl, &res, &why) != 0);
    CHECK_STR(code_of(), "too_big");
    /* 257 deal cards */
    begin_open(cl, &pk, "conf-4", 2);
    pack_mode3(pk);
    arb_mp_pack_cstr(pk, "deal");
    msgpack_pack_map(pk, 2);
    arb_mp_pack_cstr(pk, "kind"); arb_mp_pack_cstr(pk, "order");
    arb_mp_pack_cstr(pk, "cards");
    msgpack_pack_array(pk, 257);
    for (i = 0; i < 257; i++)
        arb_mp_pack_cstr(pk, "AS");
    CHECK(arb_client_call(cl, &res, &why) != 0);
    CHECK_STR(code_of(), "too_big");
    CHECK(serves(cl));
    free(big);
    arb_buf_free(&why);
    arb_client_close(cl);
}

/* A retried append is answered with its original seq, hash and pos. */
static void
test_dup_ack(void)
{
    arb_client_t   *cl = harness_connect(HARNESS_ARBITER);
    arb_buf_t       why = ARB_BUF_INIT;
    msgpack_packer *pk;
    uint64_t        seq, pos;
    int             i;

    CHECK(cl != NULL);
    if (cl == NULL)
        return;
    open_yah(cl, "conf-5");
    seq = pos = 0;
    for (i = 0; i < 2; i++) {
        const msgpack_object *d;
        arb_client_begin(cl, &pk, "append", 4);
        arb_mp_pack_cstr(pk, "match"); arb_mp_pack_cstr(pk, "conf-5");
        arb_mp_pack_cstr(pk, "kind"); arb_mp_pack_cstr(pk, "note");
        arb_mp_pack_cstr(pk, "text"); arb_mp_pack_cstr(pk, "once");
        arb_mp_pack_cstr(pk, "cid"); arb_mp_pack_cstr(pk, "dup-1");
        CHECK_INT(arb_client_call(cl, &res, &why), 0);
        d = arb_client_get(&res, "dup");
        CHECK(d != NULL && d->type == MSGPACK_OBJECT_BOOLEAN
              && d->via.boolean == (i == 1));
        CHECK(arb_client_get(&res, "pos") != NULL);
        if (i == 0) {
            seq = arb_client_uint(&res, "seq");
            pos = arb_client_uint(&res, "pos");
        } else {
            CHECK_INT(arb_client_uint(&res, "seq"), seq);
            CHECK_INT(arb_client_uint(&res, "pos"), pos);
        }
    }
    CHECK(pos > 0);
    arb_buf_free(&why);
    arb_client_close(cl);
}

/* Every op that names a match refuses one that is no match id alike:
 * invalid, naming the field. */
static void
test_match_ids(void)
{
    arb_client_t *cl = harness_connect(HARNESS_ARBITER);
    static const char *const ops[] = {
        "state", "events", "checkpoint", "judge", "append", "subscribe",
        "board", "standings",
    };
    static const char *const bad[] = { "bad id!", "", NULL };
    char                     big[66], want[160];
    arb_buf_t                why = ARB_BUF_INIT;
    msgpack_packer          *pk;
    size_t                   i, j;

    CHECK(cl != NULL);
    if (cl == NULL)
        return;
    memset(big, 'a', 65);
    big[65] = '\0';
    for (j = 0; j < 3; j++) {
        const char *id = bad[j] != NULL ? bad[j] : big;
        for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
            const char *key = i >= 6 ? "tournament" : "match";
            kv_t kv[] = { { "v", V_UINT, 1, NULL },
                          { "id", V_UINT, 100 + i, NULL },
                          { "op", V_STR, 0, ops[i] },
                          { key, V_STR, 0, id },
                          { "kind", V_STR, 0, "note" },
                          { "player", V_STR, 0, "alice" },
                          { "verb", V_STR, 0, "place" },
                          { "game", V_STR, 0, "yahchain" } };
            CHECK_INT(raw_call(cl, kv, 8, 100 + i), 0);
            CHECK_STR(code_of(), "invalid");
            snprintf(want, sizeof(want), "%s: '%s' is not a match id "
                     "(1..64 of A-Z a-z 0-9 _ . @ + -)", key, id);
            CHECK_STR(message_of(), want);
        }
        /* an open too */
        begin_open(cl, &pk, id, 0);
        CHECK(arb_client_call(cl, &res, &why) != 0);
        CHECK_STR(code_of(), "invalid");
        snprintf(want, sizeof(want), "match: '%s' is not a match id "
                 "(1..64 of A-Z a-z 0-9 _ . @ + -)", id);
        CHECK_STR(message_of(), want);
    }
    /* One holding a control character is quoted with it shown as \xNN:
     * the message is safe to print. */
    {
        kv_t kv[] = { { "v", V_UINT, 1, NULL }, { "id", V_UINT, 150, NULL },
                      { "op", V_STR, 0, "state" },
                      { "match", V_STR, 0, "a\x1b[2Jb" } };
        CHECK_INT(raw_call(cl, kv, 4, 150), 0);
        CHECK_STR(code_of(), "invalid");
        CHECK_STR(message_of(), "match: 'a\\x1b[2Jb' is not a match id "
                                "(1..64 of A-Z a-z 0-9 _ . @ + -)");
    }
    /* and none at all: proto, naming the field (a missing key is never a
     * match of its own; a subscribe without one follows every match) */
    for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        const char *key = i >= 6 ? "tournament" : "match";
        kv_t kv[] = { { "v", V_UINT, 1, NULL },
                      { "id", V_UINT, 200 + i, NULL },
                      { "op", V_STR, 0, ops[i] },
                      { "kind", V_STR, 0, "note" },
                      { "player", V_STR, 0, "alice" },
                      { "verb", V_STR, 0, "place" } };
        if (strcmp(ops[i], "subscribe") == 0)
            continue;
        CHECK_INT(raw_call(cl, kv, 6, 200 + i), 0);
        CHECK_STR(code_of(), "proto");
        snprintf(want, sizeof(want), "%s: missing", key);
        CHECK_STR(message_of(), want);
    }
    CHECK(serves(cl));
    arb_buf_free(&why);
    arb_client_close(cl);
}

/* The hash of each event read back is h(n) = BLAKE2b-256(h(n-1) ‖
 * bytes) from 32 zero bytes, the ack's hash is that of its seq, each
 * event's bytes are canonical, and the checkpoint's signature checks
 * over the documented bytes with the key it names. */
static void
test_chain(void)
{
    arb_client_t         *cl = harness_connect(HARNESS_READER);
    arb_client_t         *w = harness_connect(HARNESS_ARBITER);
    arb_buf_t             why = ARB_BUF_INIT;
    msgpack_packer       *pk;
    const msgpack_object *evs, *h;
    unsigned char         chain[32], ack[32];
    uint32_t              i;

    CHECK(cl != NULL && w != NULL);
    if (cl == NULL || w == NULL)
        return;
    open_yah(w, "conf-6");
    arb_client_begin(w, &pk, "append", 3);
    arb_mp_pack_kv_str(pk, "match", "conf-6");
    arb_mp_pack_kv_str(pk, "kind", "note");
    arb_mp_pack_kv_str(pk, "text", "chained");
    CHECK_INT(arb_client_call(w, &res, &why), 0);
    h = arb_client_get(&res, "hash");
    CHECK(h != NULL && h->type == MSGPACK_OBJECT_BIN && h->via.bin.size == 32);
    if (h != NULL && h->via.bin.size == 32)
        memcpy(ack, h->via.bin.ptr, 32);
    arb_client_begin(cl, &pk, "events", 1);
    arb_mp_pack_kv_str(pk, "match", "conf-6");
    CHECK_INT(arb_client_call(cl, &res, &why), 0);
    evs = arb_client_get(&res, "events");
    CHECK(evs != NULL && evs->type == MSGPACK_OBJECT_ARRAY
          && evs->via.array.size == 2);
    CHECK(arb_client_get(&res, "next") != NULL
          && arb_client_get(&res, "next")->type == MSGPACK_OBJECT_NIL);
    memset(chain, 0, 32);
    for (i = 0; evs != NULL && evs->type == MSGPACK_OBJECT_ARRAY
                && i < evs->via.array.size; i++) {
        const msgpack_object *e = &evs->via.array.ptr[i];
        const char           *bytes;
        size_t                len, k;
        arb_event_t           ev;
        const msgpack_object *eh = NULL;

        CHECK_INT(arb_mp_get_bytes(e, "event", &bytes, &len), 0);
        for (k = 0; e->type == MSGPACK_OBJECT_MAP && k < e->via.map.size;
             k++)
            if (e->via.map.ptr[k].key.via.str.size == 4
                && memcmp(e->via.map.ptr[k].key.via.str.ptr, "hash", 4)
                   == 0)
                eh = &e->via.map.ptr[k].val;
        CHECK(eh != NULL && eh->type == MSGPACK_OBJECT_BIN
              && eh->via.bin.size == 32);
        if (eh == NULL || eh->via.bin.size != 32)
            break;
        {
            crypto_generichash_state st;
            crypto_generichash_init(&st, NULL, 0, 32);
            crypto_generichash_update(&st, chain, 32);
            crypto_generichash_update(&st, (const unsigned char *)bytes,
                                      len);
            crypto_generichash_final(&st, chain, 32);
        }
        CHECK(memcmp(chain, eh->via.bin.ptr, 32) == 0);
        memset(&ev, 0, sizeof(ev));
        CHECK_INT(arb_event_decode(&ev, bytes, len, NULL), 0);
        CHECK_INT(ev.seq, i);
        arb_event_clear(&ev);
    }
    CHECK(memcmp(chain, ack, 32) == 0);
    /* the checkpoint signs 2 events ending in that head, over the bytes
     * "arbiter checkpoint v1" 00, u8 len, id, u64 count, head */
    arb_client_begin(cl, &pk, "checkpoint", 1);
    arb_mp_pack_kv_str(pk, "match", "conf-6");
    CHECK_INT(arb_client_call(cl, &res, &why), 0);
    CHECK_INT(arb_client_uint(&res, "count"), 2);
    {
        static const char     id[] = "conf-6";
        const msgpack_object *hd = arb_client_get(&res, "head");
        const msgpack_object *sg = arb_client_get(&res, "sig");
        const msgpack_object *pkey = arb_client_get(&res, "pubkey");
        unsigned char         msg[80];
        size_t                n = 0, k;

        memcpy(msg, "arbiter checkpoint v1", 22);
        n = 22;
        msg[n++] = (unsigned char)(sizeof(id) - 1);
        memcpy(msg + n, id, sizeof(id) - 1);
        n += sizeof(id) - 1;
        for (k = 0; k < 8; k++)
            msg[n++] = k == 7 ? 2 : 0;
        memcpy(msg + n, chain, 32);
        n += 32;
        CHECK(hd != NULL && hd->type == MSGPACK_OBJECT_BIN
              && hd->via.bin.size == 32
              && memcmp(hd->via.bin.ptr, chain, 32) == 0);
        CHECK(sg != NULL && sg->type == MSGPACK_OBJECT_BIN
              && sg->via.bin.size == 64 && pkey != NULL
              && pkey->type == MSGPACK_OBJECT_BIN
              && pkey->via.bin.size == 32
              && crypto_sign_verify_detached(
                     (const unsigned char *)sg->via.bin.ptr, msg, n,
                     (const unsigned char *)pkey->via.bin.ptr) == 0);
    }
    arb_buf_free(&why);
    arb_client_close(cl);
    arb_client_close(w);
}

/* The envelope's rules: unknown keys are ignored, nil is absent, an
 * unknown op is unsupported, a second auth is proto, an unsubscribe of a
 * sub never held is {}, the log starts at 1, a cid is 1..128 bytes, at
 * most 8 kinds, and expect answers conflict. */
static void
test_envelope(void)
{
    arb_client_t *cl = harness_connect(HARNESS_ARBITER);
    char          cid[130];
    kv_t          ping_zzz[] = { { "v", V_UINT, 1, NULL },
                                 { "id", V_UINT, 20, NULL },
                                 { "op", V_STR, 0, "ping" },
                                 { "zzz", V_UINT, 5, NULL } };
    kv_t          ev_nil[] = { { "v", V_UINT, 1, NULL },
                               { "id", V_UINT, 21, NULL },
                               { "op", V_STR, 0, "events" },
                               { "match", V_STR, 0, "conf-7" },
                               { "limit", V_NIL, 0, NULL },
                               { "from", V_NIL, 0, NULL } };
    kv_t          frob[] = { { "v", V_UINT, 1, NULL },
                             { "id", V_UINT, 22, NULL },
                             { "op", V_STR, 0, "frob" } };
    kv_t          auth2[] = { { "v", V_UINT, 1, NULL },
                              { "id", V_UINT, 23, NULL },
                              { "op", V_STR, 0, "auth" },
                              { "token", V_STR, 0, HARNESS_ARBITER } };
    kv_t          unsub[] = { { "v", V_UINT, 1, NULL },
                              { "id", V_UINT, 24, NULL },
                              { "op", V_STR, 0, "unsubscribe" },
                              { "sub", V_UINT, 99999, NULL } };
    kv_t          from0[] = { { "v", V_UINT, 1, NULL },
                              { "id", V_UINT, 25, NULL },
                              { "op", V_STR, 0, "subscribe" },
                              { "from", V_UINT, 0, NULL } };
    kv_t          note[] = { { "v", V_UINT, 1, NULL },
                             { "id", V_UINT, 26, NULL },
                             { "op", V_STR, 0, "append" },
                             { "match", V_STR, 0, "conf-7" },
                             { "kind", V_STR, 0, "note" },
                             { "text", V_STR, 0, "n" },
                             { "cid", V_STR, 0, cid },
                             { "expect", V_NONE, 0, NULL } };
    static const struct {
        size_t      cid_len;
        int         expect_type;
        uint64_t    expect;
        const char *code;
    } notes[] = {
        { 129, V_NONE, 0, "too_big" }, { 0, V_NONE, 0, "proto" },
        { 128, V_UINT, 1, "conflict" }, { 128, V_UINT, 0, NULL },
    };
    arb_buf_t       b = ARB_BUF_INIT;
    msgpack_packer *pk;
    size_t          i;

    CHECK(cl != NULL);
    if (cl == NULL)
        return;
    open_yah(cl, "conf-7");
    CHECK_INT(raw_call(cl, ping_zzz, 4, 20), 0);
    CHECK(arb_client_get(&res, "ok")->via.boolean);
    CHECK_INT(raw_call(cl, ev_nil, 6, 21), 0);
    CHECK(arb_client_get(&res, "ok")->via.boolean);
    CHECK_INT(raw_call(cl, frob, 3, 22), 0);
    CHECK_STR(code_of(), "unsupported");
    CHECK_INT(raw_call(cl, auth2, 4, 23), 0);
    CHECK_STR(code_of(), "proto");
    CHECK_INT(raw_call(cl, unsub, 4, 24), 0);
    CHECK(arb_client_get(&res, "ok")->via.boolean);
    CHECK_INT(raw_call(cl, from0, 4, 25), 0);
    CHECK_STR(code_of(), "proto");
    for (i = 0; i < sizeof(notes) / sizeof(notes[0]); i++) {
        memset(cid, 'c', notes[i].cid_len);
        cid[notes[i].cid_len] = '\0';
        note[1].u = 26 + i;
        note[7].type = notes[i].expect_type;
        note[7].u = notes[i].expect;
        CHECK_INT(raw_call(cl, note, 8, 26 + i), 0);
        if (notes[i].code != NULL)
            CHECK_STR(code_of(), notes[i].code);
        else
            CHECK(arb_client_get(&res, "ok")->via.boolean);
    }
    /* nine kinds */
    arb_client_begin(cl, &pk, "events", 2);
    arb_mp_pack_kv_str(pk, "match", "conf-7");
    arb_mp_pack_cstr(pk, "kinds");
    msgpack_pack_array(pk, 9);
    for (i = 0; i < 9; i++)
        arb_mp_pack_cstr(pk, "note");
    CHECK(arb_client_call(cl, &res, &b) != 0);
    CHECK_STR(code_of(), "too_big");
    CHECK(serves(cl));
    arb_buf_free(&b);
    arb_client_close(cl);
}

/* Player names are names as match ids are, and a ruling's target names
 * an event after the open, else not_found. */
static void
test_names_targets(void)
{
    arb_client_t   *cl = harness_connect(HARNESS_ARBITER);
    arb_buf_t       why = ARB_BUF_INIT;
    msgpack_packer *pk;
    kv_t            void0[] = { { "v", V_UINT, 1, NULL },
                                { "id", V_UINT, 40, NULL },
                                { "op", V_STR, 0, "append" },
                                { "match", V_STR, 0, "conf-8" },
                                { "kind", V_STR, 0, "void" },
                                { "target", V_UINT, 0, NULL },
                                { "text", V_STR, 0, "r" } };

    CHECK(cl != NULL);
    if (cl == NULL)
        return;
    arb_client_begin(cl, &pk, "open", 4);
    arb_mp_pack_kv_str(pk, "match", "conf-9");
    arb_mp_pack_kv_str(pk, "game", "yahchain");
    arb_mp_pack_cstr(pk, "players");
    msgpack_pack_array(pk, 2);
    arb_mp_pack_cstr(pk, "Zo\xc3\xab");
    arb_mp_pack_cstr(pk, "bob");
    pack_mode3(pk);
    CHECK(arb_client_call(cl, &res, &why) != 0);
    CHECK_STR(code_of(), "invalid");
    CHECK_STR(message_of(), "players[0]: 'Zo\xc3\xab' is not a valid, "
              "unique name");
    open_yah(cl, "conf-8");
    CHECK_INT(raw_call(cl, void0, 7, 40), 0);
    CHECK_STR(code_of(), "not_found");
    void0[1].u = 41;
    void0[5].u = 1;
    CHECK_INT(raw_call(cl, void0, 7, 41), 0);
    CHECK_STR(code_of(), "not_found");
    arb_buf_free(&why);
    arb_client_close(cl);
}

/* The opening header of PROTOCOL.md's example, its 186 bytes as the
 * document lists them, is one canonical event with that content. */
static void
test_open_example(void)
{
    static const char hx[] =
        "85a17601a46b696e64a46f70656ea373657100a474696d65cf000001"
        "8bcfe56800a5736574757086a467616d65a8796168636861696ea56d"
        "61746368a26d31a57465616d7391a16ea7706c61796572739282a46e"
        "616d65a3616e6ea47465616d0081a46e616d65a3626f62a76f707469"
        "6f6e739192a468616e64a137a46465616c82a46b696e64a6636f6d6d"
        "6974a9736565645f68617368c420000102030405060708090a0b0c0d"
        "0e0f101112131415161718191a1b1c1d1e1f";
    char          bytes[sizeof(hx) / 2];
    arb_event_t   ev;
    arb_buf_t     out = ARB_BUF_INIT;
    size_t        i, n = (sizeof(hx) - 1) / 2;
    unsigned      x;

    CHECK_INT(n, 186);
    for (i = 0; i < n; i++) {
        sscanf(hx + 2 * i, "%2x", &x);
        bytes[i] = (char)x;
    }
    memset(&ev, 0, sizeof(ev));
    CHECK_INT(arb_event_decode(&ev, bytes, n, NULL), 0);
    CHECK_INT(ev.kind, ARB_EV_OPEN);
    CHECK(ev.time_ms == 1700000000000LL);
    CHECK(ev.setup != NULL);
    if (ev.setup != NULL) {
        const arb_setup_t *st = ev.setup;
        CHECK_STR(st->match_id, "m1");
        CHECK_INT(st->nteams, 1);
        CHECK_INT(st->nplayers, 2);
        CHECK(st->nplayers == 2 && st->players[0].team == 0
              && st->players[1].team == -1);
        CHECK(st->noptions == 1 && strcmp(st->options[0].key, "hand") == 0
              && strcmp(st->options[0].value, "7") == 0);
        CHECK_INT(st->deal.kind, ARB_DEAL_COMMIT);
        CHECK(st->deal.seed_hash[0] == 0 && st->deal.seed_hash[31] == 31);
    }
    CHECK_INT(arb_event_encode(&out, &ev), 0);
    CHECK(out.len == n && memcmp(out.data, bytes, n) == 0);
    arb_buf_free(&out);
    arb_event_clear(&ev);
}

int
main(void)
{
    if (harness_init(NULL, 60) != 0)
        return 1;
    msgpack_unpacked_init(&res);
    harness_start();
    test_version();
    test_unauthenticated();
    test_no_sentinels();
    test_limits();
    test_dup_ack();
    test_match_ids();
    test_chain();
    test_envelope();
    test_names_targets();
    test_open_example();
    msgpack_unpacked_destroy(&res);
    harness_done(test_failed_);
    return TEST_END();
}
