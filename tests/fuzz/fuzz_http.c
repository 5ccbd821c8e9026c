/*
 * fuzz_http.c - the HTTP server's reading of a request target
 * (daemon/http_url.c: the path cut into segments, percent-decoding, query
 * parameters, their numbers) on arbitrary bytes, without a socket.  The
 * whole input is the target, as libh2o hands it to the router.
 *
 * Invariants: a decoded segment or value holds no NUL and fits its buffer;
 * decoding what was decoded, written back with an escape for every byte,
 * gives it again (and so does the path rebuilt from its segments); bytes
 * with no '%' decode to themselves; a query parameter found is the first
 * "key=" at the start of the query or after a '&'; a number read is in
 * range and prints back as the text it came from.
 *
 * Corpus: tests/fuzz/corpus/http (routes of docs/HTTP.md, bad escapes).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "daemon/http_url.h"
#include "tests/fuzz/fuzz.h"

/* Every byte of s[0..n) as "%XX" into out. */
static size_t
escape_all(const char *s, size_t n, char *out)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t            i;

    for (i = 0; i < n; i++) {
        out[3 * i] = '%';
        out[3 * i + 1] = hex[(unsigned char)s[i] >> 4];
        out[3 * i + 2] = hex[(unsigned char)s[i] & 15];
    }
    return 3 * n;
}

/* out, decoded from some text: escaped whole, it decodes to itself. */
static void
check_decoded(const char *out, size_t cap)
{
    char   esc[3 * (ARB_STORE_ID_MAX + 2)], again[ARB_STORE_ID_MAX + 2];
    size_t n = strlen(out);

    FUZZ_CHECK(n < cap);
    if (cap > sizeof(again))
        return;
    FUZZ_CHECK(arb_http_unescape(esc, escape_all(out, n, esc), again,
                                 cap) == 0);
    FUZZ_CHECK(strcmp(again, out) == 0);
}

static void
check_unescape(const char *s, size_t n)
{
    char out[ARB_STORE_ID_MAX + 2];

    memset(out, 'x', sizeof(out));
    if (arb_http_unescape(s, n, out, sizeof(out)) != 0)
        return;
    check_decoded(out, sizeof(out));
    if (memchr(s, '%', n) == NULL)
        FUZZ_CHECK(strlen(out) == n && memcmp(out, s, n) == 0);
}

static void
check_path(const char *s, size_t n)
{
    static arb_http_url_t u, v;
    char   path[1 + ARB_HTTP_SEG_MAX * (3 * (ARB_STORE_ID_MAX + 1) + 1)];
    size_t i, k = 0, len;
    int    rc;

    rc = arb_http_url_parse(&u, s, n);
    if (u.query != NULL) {
        FUZZ_CHECK(u.query > s && u.query[-1] == '?');
        FUZZ_CHECK(u.query + u.qlen == s + n);
        FUZZ_CHECK(memchr(s, '?', (size_t)(u.query - 1 - s)) == NULL);
    } else {
        FUZZ_CHECK(n == 0 || memchr(s, '?', n) == NULL);
    }
    if (rc != 0) {
        FUZZ_CHECK(rc == ARB_EINVAL || rc == ARB_ETOOBIG || rc == ARB_EPROTO);
        return;
    }
    FUZZ_CHECK(n > 0 && s[0] == '/' && u.nseg <= ARB_HTTP_SEG_MAX);
    /* The segments, escaped and joined again, read back the same. */
    path[k++] = '/';
    for (i = 0; i < u.nseg; i++) {
        check_decoded(u.seg[i], sizeof(u.seg[i]));
        len = strlen(u.seg[i]);
        k += escape_all(u.seg[i], len, path + k);
        if (i + 1 < u.nseg)
            path[k++] = '/';
    }
    FUZZ_CHECK(arb_http_url_parse(&v, path, k) == 0);
    /* "/" and "//" differ in one way only: an empty last segment. */
    if (u.nseg > 0 && u.seg[u.nseg - 1][0] == '\0')
        FUZZ_CHECK(v.nseg == u.nseg - 1);
    else
        FUZZ_CHECK(v.nseg == u.nseg);
    for (i = 0; i < v.nseg; i++)
        FUZZ_CHECK(strcmp(u.seg[i], v.seg[i]) == 0);
}

static void
check_query(const char *q, size_t qlen)
{
    static const char *const keys[] = {
        "at", "from", "limit", "after", "game", "status", "token", "format",
        "to", "kinds", "since", "",
    };
    static const uint64_t his[] = { 10000, UINT64_MAX - 1, UINT64_MAX };
    const char *val;
    char        out[24], back[24];
    size_t      vlen, i, k, klen;
    uint64_t    x;

    for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        klen = strlen(keys[i]);
        if (!arb_http_query_find(q, qlen, keys[i], &val, &vlen))
            continue;
        /* It starts the query or follows a '&', and no earlier one does. */
        FUZZ_CHECK(val >= q + klen + 1 && val + vlen <= q + qlen);
        FUZZ_CHECK(val[-1] == '=' && memcmp(val - 1 - klen, keys[i],
                                            klen) == 0);
        FUZZ_CHECK(val - 1 - klen == q || val[-2 - (long)klen] == '&');
        FUZZ_CHECK(memchr(val, '&', vlen) == NULL);
        FUZZ_CHECK(val + vlen == q + qlen || val[vlen] == '&');
        for (k = 0; k + klen + 1 <= (size_t)(val - 1 - klen - q); k++)
            FUZZ_CHECK(!((k == 0 || q[k - 1] == '&')
                         && memcmp(q + k, keys[i], klen) == 0
                         && q[k + klen] == '='));
        if (arb_http_unescape(val, vlen, out, sizeof(out)) != 0)
            continue;
        check_decoded(out, sizeof(out));
        for (k = 0; k < sizeof(his) / sizeof(his[0]); k++) {
            if (arb_http_u64_parse(out, 1, his[k], &x) != 0)
                continue;
            FUZZ_CHECK(x >= 1 && x <= his[k]);
            snprintf(back, sizeof(back), "%" PRIu64, x);
            FUZZ_CHECK(strcmp(back, out) == 0);
        }
    }
    /* The unknown key found is a whole piece's key, inside q, none of
     * the names; with every key found named, none is found. */
    if (arb_http_query_unknown(q, qlen, keys, 4, &val, &klen)) {
        FUZZ_CHECK(val >= q && val + klen <= q + qlen);
        FUZZ_CHECK(val == q || val[-1] == '&');
        FUZZ_CHECK(val + klen == q + qlen || val[klen] == '&'
                   || val[klen] == '=');
        FUZZ_CHECK(memchr(val, '&', klen) == NULL);
        FUZZ_CHECK(klen > 0 || (val + klen < q + qlen && val[0] == '='));
        for (i = 0; i < 4; i++)
            FUZZ_CHECK(strlen(keys[i]) != klen
                       || memcmp(keys[i], val, klen) != 0);
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    const char *qm = size > 0 ? memchr(s, '?', size) : NULL;

    check_unescape(s, size);
    check_path(s, size);
    if (qm != NULL)
        check_query(qm + 1, size - (size_t)(qm + 1 - s));
    else
        check_query(s, size);
    return 0;
}
