/*
 * test_scan.c - the hostile-input catalogue: one case per nasty input that
 * must be refused before msgpack-c (or the frame reader) acts on it.
 */
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/err.h"
#include "proto/frame.h"
#include "proto/limits.h"
#include "core/mp.h"
#include "core/scan.h"
#include "tests/test.h"

#define B(s)    (s), (sizeof(s) - 1)

static arb_buf_t why = ARB_BUF_INIT;

/* Scans with the protocol limits; returns the code, message in `why`. */
static int
scan(const char *p, size_t n)
{
    why.len = 0;
    arb_buf_puts(&why, "(untouched)");
    return arb_msgpack_scan(p, n, ARB_DEPTH_MAX, ARB_ELEMS_MAX, &why);
}

static const char *
msg(void)
{
    return arb_buf_cstr(&why);
}

/* ---- accepted ------------------------------------------------------- */

static void
test_valid(void)
{
    char *deep;
    int   i;

    CHECK_INT(scan(B("\x01")), 0);
    CHECK_STR(msg(), "(untouched)");
    CHECK_INT(scan(B("\xff")), 0);                  /* negative fixint */
    CHECK_INT(scan(B("\xe0")), 0);                  /* -32, the least */
    CHECK_INT(scan(B("\xc0")), 0);
    CHECK_INT(scan(B("\x81\xa1" "a" "\x01")), 0);   /* {"a": 1} */
    CHECK_INT(scan(B("\x90")), 0);                  /* [] */
    CHECK_INT(scan(B("\x80")), 0);                  /* {} */
    CHECK_INT(scan(B("\xd9\x03" "abc")), 0);
    CHECK_INT(scan(B("\xc4\x02\x00\x01")), 0);      /* bin8 */
    CHECK_INT(scan(B("\xd4\x01\x02")), 0);          /* fixext1 */
    CHECK_INT(scan(B("\xc7\x01\x05\x00")), 0);      /* ext8 */
    CHECK_INT(scan(B("\xcb\x3f\xf0\x00\x00\x00\x00\x00\x00")), 0);
    CHECK_INT(scan(B("\x92\x91\x01\x81\x01\x90")), 0);   /* [[1],{1:[]}] */
    /* Exactly ARB_DEPTH_MAX levels. */
    deep = malloc(ARB_DEPTH_MAX + 1);
    for (i = 0; i < ARB_DEPTH_MAX; i++)
        deep[i] = (char)0x91;
    deep[ARB_DEPTH_MAX] = 0x01;
    CHECK_INT(scan(deep, ARB_DEPTH_MAX + 1), 0);
    free(deep);
    /* why may be NULL. */
    CHECK_INT(arb_msgpack_scan(B("\x01"), 1, 10, NULL), 0);
    CHECK_INT(arb_msgpack_scan(B("\xc1"), 1, 10, NULL), ARB_EPROTO);
}

/* ---- the catalogue -------------------------------------------------- */

static void
test_empty(void)
{
    CHECK_INT(scan("", 0), ARB_EPROTO);
    CHECK_STR(msg(), "empty message");
}

static void
test_array32_huge_nothing_after(void)
{
    CHECK_INT(scan(B("\xdd\xff\xff\xff\xff")), ARB_EPROTO);
    CHECK_STR(msg(), "array at offset 0 declares 4294967295 elements but "
              "only 0 bytes remain");
}

static void
test_array32_huge_inside_map(void)
{
    /* {"a": array32(0xffffffff) 1 2 3} */
    CHECK_INT(scan(B("\x81\xa1" "a" "\xdd\xff\xff\xff\xff\x01\x02\x03")),
              ARB_EPROTO);
    CHECK_STR(msg(), "array at offset 3 declares 4294967295 elements but "
              "only 3 bytes remain");
}

static void
test_map32_huge(void)
{
    CHECK_INT(scan(B("\xdf\xff\xff\xff\xff" "0123456789")), ARB_EPROTO);
    CHECK_STR(msg(), "map at offset 0 declares 4294967295 entries but only "
              "10 bytes remain");
}

static void
test_map16_entries_need_two_bytes(void)
{
    /* 3 entries need 6 bytes; 5 would do for 5 array elements. */
    CHECK_INT(scan(B("\xde\x00\x03\x01\x02\x03\x04\x05")), ARB_EPROTO);
    CHECK_STR(msg(), "map at offset 0 declares 3 entries but only 5 bytes "
              "remain");
}

static void
test_counts_owed_by_parents(void)
{
    /* {"a": [1,1,1], ...}: the array fits alone, but the map still owes
     * a key and a value, so 3 bytes cannot hold 5 objects. */
    CHECK_INT(scan(B("\x82\xa1" "a" "\x93\x01\x01\x01")), ARB_EPROTO);
    CHECK_STR(msg(), "array at offset 3 declares 3 elements but only 3 "
              "bytes remain for them and 2 objects still owed");
}

static void
test_nesting_1000_deep(void)
{
    char buf[1001];
    int  i;

    memset(buf, 0x91, 1000);
    buf[1000] = 0x01;
    CHECK_INT(scan(buf, sizeof(buf)), ARB_ETOOBIG);
    CHECK_STR(msg(), "array at offset 8 nests deeper than 8");
    /* Maps too, and one level over the limit is enough: {"": {"": ...}}
     * nine deep, with a value at the bottom. */
    for (i = 0; i < 9; i++)
        memcpy(buf + 2 * i, "\x81\xa0", 2);
    buf[18] = 0x01;
    CHECK_INT(scan(buf, 19), ARB_ETOOBIG);
    CHECK_STR(msg(), "map at offset 16 nests deeper than 8");
    CHECK_INT(scan(buf + 2, 17), 0);
}

static void
test_depth_argument(void)
{
    CHECK_INT(arb_msgpack_scan(B("\x01"), ARB_SCAN_DEPTH_CAP + 1, 10, &why),
              ARB_EINVAL);
    CHECK_INT(arb_msgpack_scan(B("\x01"), -1, 10, &why), ARB_EINVAL);
    /* depth 0 allows scalars only. */
    CHECK_INT(arb_msgpack_scan(B("\x01"), 0, 10, &why), 0);
    CHECK_INT(arb_msgpack_scan(B("\x90"), 0, 10, &why), ARB_ETOOBIG);
    CHECK_INT(arb_msgpack_scan(NULL, 3, 8, 10, &why), ARB_EINVAL);
}

static void
test_str32_truncated_length(void)
{
    CHECK_INT(scan(B("\xdb\x00\x00")), ARB_EPROTO);
    CHECK_STR(msg(), "truncated: str32 at offset 0 needs 4 length bytes "
              "but only 2 remain");
}

static void
test_str32_truncated_body(void)
{
    CHECK_INT(scan(B("\xdb\x00\x00\x00\x64" "abc")), ARB_EPROTO);
    CHECK_STR(msg(), "truncated: str32 at offset 0 declares 100 bytes but "
              "only 3 remain");
}

static void
test_str32_huge(void)
{
    CHECK_INT(scan(B("\x91\xdb\xff\xff\xff\xff" "x")), ARB_EPROTO);
    CHECK_STR(msg(), "truncated: str32 at offset 1 declares 4294967295 "
              "bytes but only 1 remain");
}

static void
test_fixstr_truncated(void)
{
    CHECK_INT(scan(B("\xa5" "ab")), ARB_EPROTO);
    CHECK_STR(msg(), "truncated: str at offset 0 declares 5 bytes but only "
              "2 remain");
}

/* One byte short, in a buffer of exactly its size: a length's bytes or
 * a body one past the end is refused as truncated, never read. */
static void
test_one_byte_short(void)
{
    static const struct { const char *in; size_t n; const char *why; } c[] = {
        { "\xda\x00", 2, "truncated: str16 at offset 0 needs 2 length "
          "bytes but only 1 remain" },
        { "\x91\xdd\x00\x00\x00", 5, "truncated: array at offset 1 "
          "needs 4 length bytes but only 3 remain" },
        { "\xa3" "ab", 3, "truncated: str at offset 0 declares 3 bytes but "
          "only 2 remain" },
        { "\xc4\x02\x00", 3, "truncated: bin8 at offset 0 declares 2 "
          "bytes but only 1 remain" },
        { "\xcd\x00", 2, "truncated: uint16 at offset 0 needs 2 bytes but "
          "only 1 remain" },
        { "\xd5\x01\x00", 3, "truncated: fixext2 at offset 0 needs 2 "
          "bytes but only 1 remain" },
    };
    size_t i;
    char  *p;

    for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        p = malloc(c[i].n);
        memcpy(p, c[i].in, c[i].n);
        CHECK_INT(scan(p, c[i].n), ARB_EPROTO);
        CHECK_STR(msg(), c[i].why);
        free(p);
    }
}

static void
test_bin_truncated(void)
{
    CHECK_INT(scan(B("\xc5\x01\x00" "abc")), ARB_EPROTO);
    CHECK_STR(msg(), "truncated: bin16 at offset 0 declares 256 bytes but "
              "only 3 remain");
    CHECK_INT(scan(B("\xc6\xff\xff\xff\xff")), ARB_EPROTO);
}

static void
test_reserved_c1(void)
{
    CHECK_INT(scan(B("\xc1")), ARB_EPROTO);
    CHECK_STR(msg(), "reserved byte 0xc1 at offset 0");
    CHECK_INT(scan(B("\x81\xa1" "a" "\xc1")), ARB_EPROTO);
    CHECK_STR(msg(), "reserved byte 0xc1 at offset 3");
}

static void
test_trailing_bytes(void)
{
    CHECK_INT(scan(B("\x01\x02")), ARB_EPROTO);
    CHECK_STR(msg(), "trailing bytes: the object ends at offset 1 but the "
              "message has 2 bytes");
    /* Two concatenated maps are two messages, not one. */
    CHECK_INT(scan(B("\x80\x80")), ARB_EPROTO);
}

static void
test_ext_huge(void)
{
    CHECK_INT(scan(B("\xc9\xff\xff\xff\xff\x01" "ab")), ARB_EPROTO);
    CHECK_STR(msg(), "truncated: ext32 at offset 0 declares 4294967295 "
              "bytes but only 2 remain");
    CHECK_INT(scan(B("\xc7\x00")), ARB_EPROTO);
    CHECK_STR(msg(), "truncated: ext8 at offset 0 has no type byte");
}

static void
test_fixext_truncated(void)
{
    CHECK_INT(scan(B("\xd8\x01" "0123456789")), ARB_EPROTO);
    CHECK_STR(msg(), "truncated: fixext16 at offset 0 needs 16 bytes but "
              "only 10 remain");
}

static void
test_numbers_truncated(void)
{
    CHECK_INT(scan(B("\xcf\x00\x00")), ARB_EPROTO);
    CHECK_STR(msg(), "truncated: uint64 at offset 0 needs 8 bytes but only "
              "2 remain");
    CHECK_INT(scan(B("\xcb\x00")), ARB_EPROTO);
    CHECK_INT(scan(B("\xd1\x00")), ARB_EPROTO);
    CHECK_INT(scan(B("\xca")), ARB_EPROTO);
}

static void
test_missing_elements(void)
{
    CHECK_INT(scan(B("\x92\x01")), ARB_EPROTO);
    CHECK_STR(msg(), "array at offset 0 declares 2 elements but only 1 "
              "bytes remain");
    /* The count fits the bytes, but a str eats them. */
    CHECK_INT(scan(B("\x92\xa1" "x")), ARB_EPROTO);
    CHECK_STR(msg(), "truncated: 1 more objects expected at offset 3 (end "
              "of input)");
    CHECK_INT(scan(B("\x82\xa1" "a" "\xa3" "x")), ARB_EPROTO);
}

static void
test_element_limit(void)
{
    char *big;
    size_t n = 3 + ARB_ELEMS_MAX;

    CHECK_INT(arb_msgpack_scan(B("\x9a" "\xc0\xc0\xc0\xc0\xc0\xc0\xc0\xc0"
                                 "\xc0\xc0"), 8, 5, &why), ARB_ETOOBIG);
    CHECK_STR(msg(), "array at offset 0 brings the object count to 11, "
              "over the limit of 5");
    CHECK_INT(arb_msgpack_scan(B("\x01"), 8, 0, &why), ARB_ETOOBIG);
    /* array16 of ARB_ELEMS_MAX - 1 nils is exactly the limit... */
    big = malloc(n);
    memset(big, 0xc0, n);
    big[0] = (char)0xdc;
    big[1] = (char)((ARB_ELEMS_MAX - 1) >> 8);
    big[2] = (char)((ARB_ELEMS_MAX - 1) & 0xff);
    CHECK_INT(scan(big, n - 1), 0);
    /* ...and one more is over it. */
    big[1] = (char)(ARB_ELEMS_MAX >> 8);
    big[2] = (char)(ARB_ELEMS_MAX & 0xff);
    CHECK_INT(scan(big, n), ARB_ETOOBIG);
    CHECK_STR(msg(), "array at offset 0 brings the object count to 8193, "
              "over the limit of 8192");
    free(big);
}

/* Many small containers: each fits, the total does not. */
static void
test_element_limit_cumulative(void)
{
    size_t n = 3 + 4000 * 3, i;
    char  *buf = malloc(n);

    buf[0] = (char)0xdc;
    buf[1] = (char)(4000 >> 8);
    buf[2] = (char)(4000 & 0xff);
    for (i = 0; i < 4000; i++)
        memcpy(buf + 3 + 3 * i, "\x92\xc0\xc0", 3);
    CHECK_INT(scan(buf, n), ARB_ETOOBIG);
    CHECK(strstr(msg(), "over the limit of 8192") != NULL);
    free(buf);
}

/* ---- hostile frames (the frame reader is the first line) ------------- */

static int
frame_rc(const char *p, size_t n, size_t max)
{
    arb_frame_reader_t r;
    const char        *f;
    size_t             len;
    int                rc;

    arb_frame_reader_init(&r, max);
    arb_frame_reader_feed(&r, p, n);
    while ((rc = arb_frame_reader_next(&r, &f, &len)) == 1)
        ;
    arb_frame_reader_free(&r);
    return rc;
}

static void
test_frames(void)
{
    arb_buf_t w = ARB_BUF_INIT;
    char     *body;

    CHECK_INT(frame_rc(B("\x00\x00\x00\x00"), ARB_FRAME_MAX_DEFAULT),
              ARB_EPROTO);
    CHECK_INT(frame_rc(B("\xff\xff\xff\xff"), ARB_FRAME_MAX_DEFAULT),
              ARB_ETOOBIG);
    body = calloc(1, ARB_FRAME_MAX_DEFAULT + 1);
    arb_frame_encode(&w, body, ARB_FRAME_MAX_DEFAULT + 1);
    CHECK_INT(frame_rc(w.data, w.len, ARB_FRAME_MAX_DEFAULT), ARB_ETOOBIG);
    /* The header alone is enough to refuse it. */
    CHECK_INT(frame_rc(w.data, 4, ARB_FRAME_MAX_DEFAULT), ARB_ETOOBIG);
    free(body);
    arb_buf_free(&w);
}

/* ---- msgpack-c sees only what the scan passed ------------------------ */

static void
test_parse_guards_unpacker(void)
{
    msgpack_unpacked u;

    CHECK_INT(arb_mp_parse(&u, B("\xdd\xff\xff\xff\xff"), &why),
              ARB_EPROTO);
    msgpack_unpacked_destroy(&u);
    CHECK_INT(arb_mp_parse(&u, B("\x91\x01"), &why), ARB_EPROTO);
    CHECK_STR(msg(), "message: expected map, got array");
    msgpack_unpacked_destroy(&u);
    CHECK_INT(arb_mp_parse(&u, B("\x81\xa1" "a" "\x01"), &why), 0);
    CHECK(u.data.type == MSGPACK_OBJECT_MAP);
    msgpack_unpacked_destroy(&u);
}

/* arb_mp_parse and arb_mp_parse_zone scan with the protocol's limits:
 * maps ARB_DEPTH_MAX deep pass, one deeper does not, nor an object over
 * ARB_ELEMS_MAX. */
static void
test_parse_limits(void)
{
    msgpack_unpacked u;
    msgpack_zone     z;
    msgpack_object   o;
    char             buf[2 * (ARB_DEPTH_MAX + 1) + 1], *big;
    size_t           n, i;
    int              depth;

    msgpack_zone_init(&z, 1024);
    for (depth = ARB_DEPTH_MAX; depth <= ARB_DEPTH_MAX + 1; depth++) {
        for (i = 0; i < (size_t)depth; i++)
            memcpy(buf + 2 * i, "\x81\xa0", 2);
        buf[2 * depth] = 0x01;
        n = 2 * (size_t)depth + 1;
        CHECK_INT(arb_mp_parse(&u, buf, n, &why),
                  depth > ARB_DEPTH_MAX ? ARB_ETOOBIG : 0);
        msgpack_unpacked_destroy(&u);
        CHECK_INT(arb_mp_parse_zone(&z, &o, buf, n, &why),
                  depth > ARB_DEPTH_MAX ? ARB_ETOOBIG : 0);
        msgpack_zone_clear(&z);
    }
    CHECK_STR(msg(), "map at offset 16 nests deeper than 8");
    /* {"": [nil x ARB_ELEMS_MAX - 3]} is the limit, one more over it. */
    n = 5 + ARB_ELEMS_MAX;
    big = malloc(n);
    memset(big, 0xc0, n);
    memcpy(big, "\x81\xa0\xdc", 3);
    for (i = ARB_ELEMS_MAX - 3; i <= ARB_ELEMS_MAX - 2; i++) {
        big[3] = (char)(i >> 8);
        big[4] = (char)(i & 0xff);
        CHECK_INT(arb_mp_parse(&u, big, 5 + i, &why),
                  i > ARB_ELEMS_MAX - 3 ? ARB_ETOOBIG : 0);
        msgpack_unpacked_destroy(&u);
        CHECK_INT(arb_mp_parse_zone(&z, &o, big, 5 + i, &why),
                  i > ARB_ELEMS_MAX - 3 ? ARB_ETOOBIG : 0);
        msgpack_zone_clear(&z);
    }
    free(big);
    msgpack_zone_destroy(&z);
}

int
main(void)
{
    test_valid();
    test_empty();
    test_array32_huge_nothing_after();
    test_array32_huge_inside_map();
    test_map32_huge();
    test_map16_entries_need_two_bytes();
    test_counts_owed_by_parents();
    test_nesting_1000_deep();
    test_depth_argument();
    test_str32_truncated_length();
    test_str32_truncated_body();
    test_str32_huge();
    test_fixstr_truncated();
    test_one_byte_short();
    test_bin_truncated();
    test_reserved_c1();
    test_trailing_bytes();
    test_ext_huge();
    test_fixext_truncated();
    test_numbers_truncated();
    test_missing_elements();
    test_element_limit();
    test_element_limit_cumulative();
    test_frames();
    test_parse_guards_unpacker();
    test_parse_limits();
    arb_buf_free(&why);
    return TEST_END();
}
