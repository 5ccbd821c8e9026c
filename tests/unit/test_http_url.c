/*
 * test_http_url.c - reading a request target without a socket
 * (daemon/http_url.c, docs/HTTP.md): percent-escapes at the very end of
 * the input and in either case, an encoded NUL, the segment and length
 * limits at their edge, empty segments, the query cut at '?', parameters
 * found only as a whole key (and one named without its value told
 * apart), and numbers refused rather than wrapped (past 2^64, signed,
 * with junk, with a leading zero).  Each input is given with a length
 * short of its NUL where that matters, so that a read past the input
 * would show.
 */
#include <stdint.h>
#include <string.h>

#include "core/err.h"
#include "daemon/http_url.h"
#include "tests/test.h"

/* s, decoded with room for cap - 1 bytes: its return code, out set. */
static int
unesc(const char *s, size_t n, char *out, size_t cap)
{
    memset(out, 'x', cap);
    return arb_http_unescape(s, n, out, cap);
}

static void
test_unescape(void)
{
    char out[8];

    CHECK_INT(unesc("%41b", 4, out, sizeof(out)), 0);
    CHECK_STR(out, "Ab");
    CHECK_INT(unesc("%af%AF", 6, out, sizeof(out)), 0);
    CHECK_STR(out, "\xaf\xaf");
    CHECK_INT(unesc("%09%7e", 6, out, sizeof(out)), 0);
    CHECK_STR(out, "\t~");
    CHECK_INT(unesc("a+b", 3, out, sizeof(out)), 0);
    CHECK_STR(out, "a+b");
    CHECK_INT(unesc("", 0, out, sizeof(out)), 0);
    CHECK_STR(out, "");
    /* Malformed: a short or non-hex escape, a trailing '%' */
    CHECK_INT(unesc("%", 1, out, sizeof(out)), -1);
    CHECK_INT(unesc("a%", 2, out, sizeof(out)), -1);
    CHECK_INT(unesc("%4", 2, out, sizeof(out)), -1);
    CHECK_INT(unesc("%zz", 3, out, sizeof(out)), -1);
    CHECK_INT(unesc("%g1", 3, out, sizeof(out)), -1);
    CHECK_INT(unesc("%1g", 3, out, sizeof(out)), -1);
    CHECK_INT(unesc("%:0", 3, out, sizeof(out)), -1);
    CHECK_INT(unesc("%0@", 3, out, sizeof(out)), -1);
    /* An escape cut by the input's end is short, whatever follows it. */
    CHECK_INT(unesc("%41", 2, out, sizeof(out)), -1);
    CHECK_INT(unesc("a%41", 3, out, sizeof(out)), -1);
    CHECK_INT(unesc("ab%41", 2, out, sizeof(out)), 0);
    CHECK_STR(out, "ab");
    /* A NUL, encoded or raw, would cut the name short. */
    CHECK_INT(unesc("a%00b", 5, out, sizeof(out)), -1);
    CHECK_INT(unesc("a\0b", 3, out, sizeof(out)), -1);
    /* cap holds the NUL: 7 bytes fit in 8, 8 do not. */
    CHECK_INT(unesc("abcdefg", 7, out, sizeof(out)), 0);
    CHECK_STR(out, "abcdefg");
    CHECK_INT(unesc("abcdefgh", 8, out, sizeof(out)), -1);
    CHECK_INT(unesc("abcdef%41", 9, out, sizeof(out)), 0);
    CHECK_STR(out, "abcdefA");
    CHECK_INT(unesc("abcdefg%41", 10, out, sizeof(out)), -1);
    CHECK_INT(unesc("", 0, out, 1), 0);
    CHECK_STR(out, "");
    CHECK_INT(unesc("a", 1, out, 1), -1);
    CHECK_INT(arb_http_unescape("", 0, out, 0), -1);
}

static void
test_path(void)
{
    static arb_http_url_t u;
    char   seg[ARB_STORE_ID_MAX + 2], path[3 * ARB_STORE_ID_MAX + 8];
    size_t i;

    CHECK_INT(arb_http_url_parse(&u, "", 0), ARB_EINVAL);
    CHECK_INT(arb_http_url_parse(&u, "api", 3), ARB_EINVAL);
    CHECK_INT(arb_http_url_parse(&u, "?/a", 3), ARB_EINVAL);
    CHECK_INT(arb_http_url_parse(&u, "http://h/api", 12), ARB_EINVAL);
    /* a length of 0 reads nothing, not the '/' after it */
    CHECK_INT(arb_http_url_parse(&u, "/api", 0), ARB_EINVAL);
    CHECK_INT(arb_http_url_parse(&u, "/", 1), 0);
    CHECK_INT(u.nseg, 0);
    CHECK(u.query == NULL && u.qlen == 0);
    CHECK_INT(arb_http_url_parse(&u, "/api/m/R1%2DT7/state?at=3", 25), 0);
    CHECK_INT(u.nseg, 4);
    CHECK_STR(u.seg[0], "api");
    CHECK_STR(u.seg[2], "R1-T7");
    CHECK_STR(u.seg[3], "state");
    CHECK(u.query != NULL && u.qlen == 4 && memcmp(u.query, "at=3", 4) == 0);
    /* Only the given length is read: no segment, no query past it. */
    CHECK_INT(arb_http_url_parse(&u, "/ab/cd?x=1", 3), 0);
    CHECK_INT(u.nseg, 1);
    CHECK_STR(u.seg[0], "ab");
    CHECK(u.query == NULL);
    CHECK_INT(arb_http_url_parse(&u, "/ab?x=1", 4), 0);
    CHECK(u.query != NULL && u.qlen == 0);
    /* Empty segments are skipped wherever they are. */
    CHECK_INT(arb_http_url_parse(&u, "//api//stats//", 14), 0);
    CHECK_INT(u.nseg, 2);
    CHECK_STR(u.seg[0], "api");
    CHECK_STR(u.seg[1], "stats");
    /* Each segment is decoded on its own: an encoded '/' or '?' stays. */
    CHECK_INT(arb_http_url_parse(&u, "/a%2Fb/c%3Fd", 12), 0);
    CHECK_INT(u.nseg, 2);
    CHECK_STR(u.seg[0], "a/b");
    CHECK_STR(u.seg[1], "c?d");
    CHECK(u.query == NULL);
    CHECK_INT(arb_http_url_parse(&u, "/a/%4", 5), ARB_EPROTO);
    CHECK_INT(arb_http_url_parse(&u, "/a/b%00", 7), ARB_EPROTO);
    CHECK_INT(arb_http_url_parse(&u, "/a/b%?x=%41", 11), ARB_EPROTO);
    /* ARB_HTTP_SEG_MAX segments, and one more */
    CHECK_INT(arb_http_url_parse(&u, "/1/2/3/4/5/6/7/8", 16), 0);
    CHECK_INT(u.nseg, ARB_HTTP_SEG_MAX);
    CHECK_STR(u.seg[7], "8");
    CHECK_INT(arb_http_url_parse(&u, "/1/2/3/4/5/6/7/8/", 17), 0);
    CHECK_INT(arb_http_url_parse(&u, "/1/2/3/4/5/6/7/8/9", 18), ARB_ETOOBIG);
    /* A segment of an id's 64 bytes, decoded, and one of 65 */
    memset(seg, 'a', sizeof(seg));
    path[0] = '/';
    memcpy(path + 1, seg, ARB_STORE_ID_MAX);
    CHECK_INT(arb_http_url_parse(&u, path, 1 + ARB_STORE_ID_MAX), 0);
    CHECK_INT(strlen(u.seg[0]), ARB_STORE_ID_MAX);
    memcpy(path + 1, seg, ARB_STORE_ID_MAX + 1);
    CHECK_INT(arb_http_url_parse(&u, path, 2 + ARB_STORE_ID_MAX),
              ARB_EPROTO);
    for (i = 0; i < ARB_STORE_ID_MAX; i++)
        memcpy(path + 1 + 3 * i, "%41", 3);
    CHECK_INT(arb_http_url_parse(&u, path, 1 + 3 * ARB_STORE_ID_MAX), 0);
    CHECK_INT(strlen(u.seg[0]), ARB_STORE_ID_MAX);
    CHECK(u.seg[0][0] == 'A' && u.seg[0][ARB_STORE_ID_MAX - 1] == 'A');
    memcpy(path + 1 + 3 * ARB_STORE_ID_MAX, "/b", 2);
    CHECK_INT(arb_http_url_parse(&u, path, 3 + 3 * ARB_STORE_ID_MAX), 0);
    CHECK_INT(u.nseg, 2);
    CHECK_STR(u.seg[1], "b");
}

/* The value of key in q[0..n) as a string, or NULL when absent. */
static const char *
param(const char *q, size_t n, const char *key)
{
    static char v[64];
    const char *p;
    size_t      len;

    if (!arb_http_query_find(q, n, key, &p, &len))
        return NULL;
    snprintf(v, sizeof(v), "%.*s", (int)len, p);
    return v;
}

static int
twice(const char *q, const char *key)
{
    const char *p;
    size_t      len;

    return arb_http_query_find(q, strlen(q), key, &p, &len);
}

static void
test_query(void)
{
    CHECK_STR(param("at=1&from=2", 11, "at"), "1");
    CHECK_STR(param("at=1&from=2", 11, "from"), "2");
    CHECK_STR(param("at=", 3, "at"), "");
    CHECK_STR(param("&&at=3&", 7, "at"), "3");
    /* A whole key: not a key that ends or starts with it */
    CHECK_STR(param("xat=1&at=2", 10, "at"), "2");
    CHECK_STR(param("atx=1&at=2", 10, "at"), "2");
    CHECK(param("a=1", 3, "at") == NULL);
    CHECK(param("xat=1", 5, "at") == NULL);
    CHECK(param("at", 2, "at") == NULL);
    CHECK(param("at&b=at=1", 9, "at") == NULL);
    CHECK(param("", 0, "at") == NULL);
    /* the first of two, said to be one of two */
    CHECK_STR(param("at=1&at=2", 9, "at"), "1");
    CHECK_INT(twice("at=1&at=2", "at"), 2);
    CHECK_INT(twice("at=1&b=2&at=1", "at"), 2);
    CHECK_INT(twice("at=1&xat=2&atx=3&at", "at"), 1);
    CHECK_INT(twice("b=1&at=2", "at"), 1);
    CHECK_INT(twice("b=1&at", "at"), 0);
    /* the value ends at '&' or at the query's end, never after it */
    CHECK_STR(param("at=1=2&b", 8, "at"), "1=2");
    CHECK_STR(param("at=12", 4, "at"), "1");
    CHECK(param("at=1", 2, "at") == NULL);
}

/* 1 when q names key without a value. */
static int
bare(const char *q, size_t n, const char *key)
{
    return arb_http_query_bare(q, n, key);
}

static void
test_query_bare(void)
{
    CHECK_INT(bare("at", 2, "at"), 1);
    CHECK_INT(bare("b=1&at&c=2", 10, "at"), 1);
    CHECK_INT(bare("b=1&at", 6, "at"), 1);
    CHECK_INT(bare("at=", 3, "at"), 0);         /* an empty value */
    CHECK_INT(bare("at=1&b", 6, "at"), 0);
    CHECK_INT(bare("atx&xat", 7, "at"), 0);     /* whole keys only */
    CHECK_INT(bare("a", 1, "at"), 0);
    CHECK_INT(bare("at", 1, "at"), 0);          /* within qlen */
    CHECK_INT(bare("b&&", 3, "at"), 0);
    CHECK_INT(bare("", 0, "at"), 0);
}

/* The first key of q that is none of at, from: "-" when all are. */
static const char *
unknown(const char *q)
{
    static const char *const names[] = { "at", "from" };
    static char              out[32];
    const char              *k = NULL;
    size_t                   n = 0;

    if (arb_http_query_unknown(q, strlen(q), names, 2, &k, &n) == 0)
        return "-";
    snprintf(out, sizeof(out), "%.*s", (int)n, k);
    return out;
}

static void
test_query_unknown(void)
{
    CHECK_STR(unknown(""), "-");
    CHECK_STR(unknown("at=1&from=2"), "-");
    CHECK_STR(unknown("&&at=1&"), "-");
    CHECK_STR(unknown("at"), "-");           /* a known key, no value */
    CHECK_STR(unknown("at=1&form=2"), "form");
    CHECK_STR(unknown("x&at=1"), "x");
    CHECK_STR(unknown("ata=1"), "ata");      /* whole keys only */
    CHECK_STR(unknown("a=1"), "a");
    CHECK_STR(unknown("=1"), "");            /* a value of no key */
    CHECK_STR(unknown("at=1&b=from=2"), "b");
    CHECK_STR(unknown("at=1&%66rom=2"), "%66rom");   /* raw, as sent */
}

static int
num(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    *out = 12345;
    return arb_http_u64_parse(s, lo, hi, out);
}

static void
test_number(void)
{
    uint64_t x;

    CHECK_INT(num("0", 0, 10, &x), 0);
    CHECK_INT(x, 0);
    CHECK_INT(num("7", 0, 10, &x), 0);
    CHECK_INT(x, 7);
    CHECK_INT(num("10000", 1, 10000, &x), 0);
    CHECK_INT(x, 10000);
    CHECK_INT(num("10001", 1, 10000, &x), -1);
    CHECK_INT(x, 12345);
    CHECK_INT(num("1", 1, 10000, &x), 0);
    CHECK_INT(num("0", 1, 10000, &x), -1);
    CHECK_INT(num("1", 0, 1, &x), 0);
    CHECK_INT(num("2", 0, 1, &x), -1);
    /* One way to write a number: no sign, blank, leading zero or junk */
    CHECK_INT(num("", 0, 10, &x), -1);
    CHECK_INT(num("-1", 0, UINT64_MAX, &x), -1);
    CHECK_INT(num("-0", 0, UINT64_MAX, &x), -1);
    CHECK_INT(num("+1", 0, 10, &x), -1);
    CHECK_INT(num(" 1", 0, 10, &x), -1);
    CHECK_INT(num("1 ", 0, 10, &x), -1);
    CHECK_INT(num("1x", 0, 10, &x), -1);
    CHECK_INT(num("01", 0, 10, &x), -1);
    CHECK_INT(num("00", 0, 10, &x), -1);
    CHECK_INT(num("0x1", 0, 10, &x), -1);
    CHECK_INT(num("1e3", 0, 10000, &x), -1);
    CHECK_INT(num(":", 0, 10, &x), -1);
    CHECK_INT(num("/", 0, 10, &x), -1);
    CHECK_INT(x, 12345);
    /* At 2^64 - 1 and past it: refused, never wrapped or clamped */
    CHECK_INT(num("18446744073709551615", 0, UINT64_MAX, &x), 0);
    CHECK(x == UINT64_MAX);
    CHECK_INT(num("18446744073709551616", 0, UINT64_MAX, &x), -1);
    CHECK_INT(num("36893488147419103232", 0, UINT64_MAX, &x), -1);
    CHECK_INT(num("99999999999999999999999", 0, UINT64_MAX, &x), -1);
    CHECK_INT(num("18446744073709551614", 0, UINT64_MAX - 1, &x), 0);
    CHECK(x == UINT64_MAX - 1);
    CHECK_INT(num("18446744073709551615", 0, UINT64_MAX - 1, &x), -1);
    CHECK_INT(x, 12345);
}

int
main(void)
{
    test_unescape();
    test_path();
    test_query();
    test_query_bare();
    test_query_unknown();
    test_number();
    return TEST_END();
}
