/*
 * test_request.c - the request field tables (proto/request.h): every
 * field type decoded, and each way a field can be wrong (missing, wrong
 * type, over or under a limit, a bad element) refused with the documented
 * code and a message naming the field.  Also the codec's reader of a deal
 * as the `open` request states it (arb_deal_decode).
 */
#include <stdlib.h>
#include <string.h>

#include "core/codec.h"
#include "core/err.h"
#include "core/mp.h"
#include "proto/request.h"
#include "tests/test.h"

enum { F_MATCH, F_CID, F_AT, F_ARGS, F_OPTIONS, F_DEAL, F_N };
static const arb_req_field_t fields[F_N] = {
    [F_MATCH]   = { "match",   ARB_REQ_STR,    ARB_REQ_REQUIRED, 0, 0 },
    [F_CID]     = { "cid",     ARB_REQ_STR,    ARB_REQ_OPTIONAL, 1, 8 },
    [F_AT]      = { "at",      ARB_REQ_UINT,   ARB_REQ_OPTIONAL, 2, 9 },
    [F_ARGS]    = { "args",    ARB_REQ_STRV,   ARB_REQ_OPTIONAL, 0, 3 },
    [F_OPTIONS] = { "options", ARB_REQ_STRMAP, ARB_REQ_OPTIONAL, 0, 2 },
    [F_DEAL]    = { "deal",    ARB_REQ_MAP,    ARB_REQ_OPTIONAL, 0, 4 },
};

static arb_buf_t        out = ARB_BUF_INIT, why = ARB_BUF_INIT;
static msgpack_packer   pk;
static msgpack_unpacked res;
static arb_req_val_t    vals[F_N];

static msgpack_packer *
start(size_t nkeys)
{
    out.len = 0;
    arb_mp_packer_init(&pk, &out);
    msgpack_pack_map(&pk, nkeys);
    return &pk;
}

/* Decodes the packed map; the message (or "") is left in why. */
static int
decode(void)
{
    int rc;

    arb_req_clear(vals, F_N);
    msgpack_unpacked_destroy(&res);
    why.len = 0;
    arb_buf_puts(&why, "");
    rc = arb_mp_parse(&res, out.data, out.len, &why);
    if (rc != 0)
        return rc;
    return arb_req_decode(&res.data, fields, F_N, vals, &why);
}

static void
test_good(void)
{
    char *args[] = { "4S", "", "x" };

    start(6);
    arb_mp_pack_kv_str(&pk, "match", "R1");
    arb_mp_pack_kv_str(&pk, "unknown", "ignored");
    arb_mp_pack_kv_uint(&pk, "at", 9);
    arb_mp_pack_kv_strv(&pk, "args", args, 3);
    arb_mp_pack_cstr(&pk, "options");
    msgpack_pack_map(&pk, 2);
    arb_mp_pack_kv_str(&pk, "mode", "3");
    arb_mp_pack_kv_str(&pk, "deck", "");
    arb_mp_pack_cstr(&pk, "cid");
    msgpack_pack_nil(&pk);                  /* nil is absent */
    CHECK_INT(decode(), 0);
    CHECK_STR(vals[F_MATCH].str, "R1");
    CHECK(vals[F_MATCH].present && !vals[F_CID].present);
    CHECK(vals[F_CID].str == NULL);
    CHECK(vals[F_AT].present && vals[F_AT].u == 9);
    CHECK_INT(vals[F_ARGS].n, 3);
    CHECK_STR(vals[F_ARGS].v[1], "");
    CHECK(vals[F_ARGS].v[3] == NULL);
    CHECK_INT(vals[F_OPTIONS].n, 2);
    CHECK_STR(vals[F_OPTIONS].v[1], "deck");
    CHECK_STR(vals[F_OPTIONS].w[0], "3");
    CHECK(!vals[F_DEAL].present && vals[F_DEAL].obj == NULL);
    /* an op may take a string or a whole array */
    free(vals[F_MATCH].str);
    vals[F_MATCH].str = NULL;
    arb_strv_free(vals[F_ARGS].v, vals[F_ARGS].n);
    vals[F_ARGS].v = NULL;
    arb_req_clear(vals, F_N);
    arb_req_clear(vals, F_N);               /* idempotent */
    arb_req_clear(NULL, F_N);
}

static void
test_bad(void)
{
    char *four[] = { "a", "b", "c", "d" };

    /* missing required */
    start(1);
    arb_mp_pack_kv_uint(&pk, "at", 3);
    CHECK_INT(decode(), ARB_EPROTO);
    CHECK_STR(arb_buf_cstr(&why), "match: missing");
    start(1);
    arb_mp_pack_cstr(&pk, "match");
    msgpack_pack_nil(&pk);
    CHECK_INT(decode(), ARB_EPROTO);
    CHECK_STR(arb_buf_cstr(&why), "match: missing");
    /* wrong type */
    start(1);
    arb_mp_pack_kv_uint(&pk, "match", 7);
    CHECK_INT(decode(), ARB_EPROTO);
    CHECK_STR(arb_buf_cstr(&why), "match: expected str, got int");
    start(2);
    arb_mp_pack_kv_str(&pk, "match", "m");
    arb_mp_pack_kv_str(&pk, "at", "3");
    CHECK_INT(decode(), ARB_EPROTO);
    CHECK_STR(arb_buf_cstr(&why), "at: expected non-negative int, got str");
    start(2);
    arb_mp_pack_kv_str(&pk, "match", "m");
    arb_mp_pack_kv_str(&pk, "args", "4S");
    CHECK_INT(decode(), ARB_EPROTO);
    CHECK_STR(arb_buf_cstr(&why), "args: expected array, got str");
    start(2);
    arb_mp_pack_kv_str(&pk, "match", "m");
    arb_mp_pack_kv_strv(&pk, "deal", four, 1);
    CHECK_INT(decode(), ARB_EPROTO);
    CHECK_STR(arb_buf_cstr(&why), "deal: expected map, got array");
    /* a bad element names its index */
    start(2);
    arb_mp_pack_kv_str(&pk, "match", "m");
    arb_mp_pack_cstr(&pk, "args");
    msgpack_pack_array(&pk, 2);
    arb_mp_pack_cstr(&pk, "ok");
    msgpack_pack_true(&pk);
    CHECK_INT(decode(), ARB_EPROTO);
    CHECK_STR(arb_buf_cstr(&why), "args[1]: expected str, got bool");
    arb_req_clear(vals, F_N);               /* half-filled: no leak */
    start(2);
    arb_mp_pack_kv_str(&pk, "match", "m");
    arb_mp_pack_cstr(&pk, "options");
    msgpack_pack_map(&pk, 1);
    arb_mp_pack_kv_uint(&pk, "mode", 3);
    CHECK_INT(decode(), ARB_EPROTO);
    CHECK_STR(arb_buf_cstr(&why), "options value #0: expected str, got int");
    arb_req_clear(vals, F_N);
    start(2);                               /* a key, and a NUL in a str */
    arb_mp_pack_kv_str(&pk, "match", "m");
    arb_mp_pack_cstr(&pk, "options");
    msgpack_pack_map(&pk, 2);
    arb_mp_pack_kv_str(&pk, "deck", "full");
    msgpack_pack_uint64(&pk, 7);
    arb_mp_pack_cstr(&pk, "x");
    CHECK_INT(decode(), ARB_EPROTO);
    CHECK_STR(arb_buf_cstr(&why), "options key #1: expected str, got int");
    arb_req_clear(vals, F_N);
    start(2);
    arb_mp_pack_kv_str(&pk, "match", "m");
    arb_mp_pack_cstr(&pk, "args");
    msgpack_pack_array(&pk, 3);
    arb_mp_pack_cstr(&pk, "a");
    arb_mp_pack_cstr(&pk, "b");
    msgpack_pack_str(&pk, 3);
    msgpack_pack_str_body(&pk, "c\0d", 3);
    CHECK_INT(decode(), ARB_EPROTO);
    CHECK_STR(arb_buf_cstr(&why), "args[2]: NUL byte at offset 1");
    start(2);
    arb_mp_pack_kv_str(&pk, "match", "m");
    arb_mp_pack_cstr(&pk, "options");
    msgpack_pack_map(&pk, 2);
    arb_mp_pack_kv_str(&pk, "mode", "3");
    arb_mp_pack_kv_str(&pk, "mode", "4");
    CHECK_INT(decode(), ARB_EPROTO);
    CHECK_STR(arb_buf_cstr(&why), "options: duplicate key \"mode\"");
    start(1);
    msgpack_pack_str(&pk, 5);
    msgpack_pack_str_body(&pk, "match", 5);
    msgpack_pack_str(&pk, 3);
    msgpack_pack_str_body(&pk, "a\0b", 3);
    CHECK_INT(decode(), ARB_EPROTO);
    CHECK_STR(arb_buf_cstr(&why), "match: NUL byte at offset 1");
    /* over and under the limits */
    start(2);
    arb_mp_pack_kv_str(&pk, "match", "m");
    arb_mp_pack_kv_str(&pk, "cid", "123456789");
    CHECK_INT(decode(), ARB_ETOOBIG);
    CHECK_STR(arb_buf_cstr(&why), "cid: 9 bytes, at most 8");
    start(2);
    arb_mp_pack_kv_str(&pk, "match", "m");
    arb_mp_pack_kv_str(&pk, "cid", "");
    CHECK_INT(decode(), ARB_EPROTO);
    CHECK_STR(arb_buf_cstr(&why), "cid: 0 bytes, at least 1");
    start(2);
    arb_mp_pack_kv_str(&pk, "match", "m");
    arb_mp_pack_kv_uint(&pk, "at", 10);
    CHECK_INT(decode(), ARB_ETOOBIG);
    CHECK_STR(arb_buf_cstr(&why), "at: 10, at most 9");
    start(2);
    arb_mp_pack_kv_str(&pk, "match", "m");
    arb_mp_pack_kv_uint(&pk, "at", 1);
    CHECK_INT(decode(), ARB_EPROTO);
    CHECK_STR(arb_buf_cstr(&why), "at: 1, at least 2");
    start(2);
    arb_mp_pack_kv_str(&pk, "match", "m");
    arb_mp_pack_kv_strv(&pk, "args", four, 4);
    CHECK_INT(decode(), ARB_ETOOBIG);
    CHECK_STR(arb_buf_cstr(&why), "args: 4 items, at most 3");
    start(2);
    arb_mp_pack_kv_str(&pk, "match", "m");
    arb_mp_pack_cstr(&pk, "options");
    msgpack_pack_map(&pk, 3);
    arb_mp_pack_kv_str(&pk, "a", "1");
    arb_mp_pack_kv_str(&pk, "b", "2");
    arb_mp_pack_kv_str(&pk, "c", "3");
    CHECK_INT(decode(), ARB_ETOOBIG);
    CHECK_STR(arb_buf_cstr(&why), "options: 3 entries, at most 2");
    /* at its least, and a cid of its most bytes, are taken */
    start(3);
    arb_mp_pack_kv_str(&pk, "match", "m");
    arb_mp_pack_kv_uint(&pk, "at", 2);
    arb_mp_pack_kv_str(&pk, "cid", "12345678");
    CHECK_INT(decode(), 0);
    CHECK(vals[F_AT].present && vals[F_AT].u == 2);
    CHECK_STR(vals[F_CID].str, "12345678");
    /* a key twice is refused, whether the values agree or not, nil too */
    start(2);
    arb_mp_pack_kv_str(&pk, "match", "m");
    arb_mp_pack_kv_str(&pk, "match", "m");
    CHECK_INT(decode(), ARB_EPROTO);
    CHECK_STR(arb_buf_cstr(&why), "match: duplicate key");
    start(3);
    arb_mp_pack_kv_str(&pk, "match", "m");
    arb_mp_pack_kv_uint(&pk, "at", 3);
    arb_mp_pack_cstr(&pk, "at");
    msgpack_pack_nil(&pk);
    CHECK_INT(decode(), ARB_EPROTO);
    CHECK_STR(arb_buf_cstr(&why), "at: duplicate key");
    /* the first bad field in table order is reported */
    start(2);
    arb_mp_pack_kv_uint(&pk, "cid", 1);
    arb_mp_pack_kv_uint(&pk, "match", 1);
    CHECK_INT(decode(), ARB_EPROTO);
    CHECK_STR(arb_buf_cstr(&why), "match: expected str, got int");
    arb_req_clear(vals, F_N);
}

/* The deal of an open request, read by the codec. */
static int
deal(const char *kind, const char *seed, char **cards, size_t ncards,
     arb_deal_t *d)
{
    msgpack_unpacked r;
    int              rc;

    out.len = 0;
    arb_mp_packer_init(&pk, &out);
    msgpack_pack_map(&pk, 1 + (seed != NULL) + (cards != NULL));
    if (cards != NULL)              /* any key order */
        arb_mp_pack_kv_strv(&pk, "cards", cards, ncards);
    arb_mp_pack_kv_str(&pk, "kind", kind);
    if (seed != NULL)
        arb_mp_pack_kv_str(&pk, "seed", seed);
    msgpack_unpacked_init(&r);
    why.len = 0;
    rc = arb_mp_parse(&r, out.data, out.len, &why);
    if (rc == 0)
        rc = arb_deal_decode(d, &r.data, &why, "deal");
    msgpack_unpacked_destroy(&r);
    return rc;
}

static void
test_deal(void)
{
    arb_deal_t d;
    char      *cards[] = { "4S", "5H" };

    CHECK_INT(deal("seed", "abc", NULL, 0, &d), 0);
    CHECK_INT(d.kind, ARB_DEAL_SEED);
    CHECK_STR(d.seed, "abc");
    free(d.seed);
    CHECK_INT(deal("order", NULL, cards, 2, &d), 0);
    CHECK_INT(d.kind, ARB_DEAL_ORDER);
    CHECK_INT(d.ncards, 2);
    CHECK_STR(d.cards[1], "5H");
    arb_strv_free(d.cards, d.ncards);
    CHECK_INT(deal("commit", NULL, NULL, 0, &d), ARB_EPROTO);
    CHECK_STR(arb_buf_cstr(&why), "deal.kind: expected \"seed\" or \"order\"");
    CHECK_INT(deal("seed", "", NULL, 0, &d), ARB_EPROTO);
    CHECK_STR(arb_buf_cstr(&why), "deal.seed: empty");
    CHECK_INT(deal("order", NULL, NULL, 0, &d), ARB_EPROTO);
    CHECK_STR(arb_buf_cstr(&why), "deal.cards: required for kind \"order\"");
    CHECK_INT(deal("seed", "abc", cards, 2, &d), ARB_EPROTO);
    CHECK_STR(arb_buf_cstr(&why), "deal.cards: not allowed for kind \"seed\"");
    CHECK(d.cards == NULL && d.seed == NULL);   /* nothing left to free */
}

int
main(void)
{
    msgpack_unpacked_init(&res);
    test_good();
    test_bad();
    test_deal();
    arb_req_clear(vals, F_N);
    msgpack_unpacked_destroy(&res);
    arb_buf_free(&out);
    arb_buf_free(&why);
    return TEST_END();
}
