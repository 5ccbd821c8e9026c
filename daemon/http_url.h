/*
 * http_url.h - the pure parts of reading a request target (docs/HTTP.md):
 * the path cut into decoded segments, percent-decoding, query parameters
 * and the numbers they carry.  No libh2o, no socket: daemon/http.c routes
 * with these, tests/fuzz/fuzz_http.c feeds them arbitrary bytes.
 */
#ifndef ARB_HTTP_URL_H
#define ARB_HTTP_URL_H

#include <stddef.h>
#include <stdint.h>

#include "core/ledger/store.h"

/* Most segments a path the server answers has ("/api/m/ID/state"). */
#define ARB_HTTP_SEG_MAX 8

/* A request target, split.  Ownership: the segments are copies; query
 * points into the target given to arb_http_url_parse(). */
typedef struct arb_http_url {
    /* a segment holds at most an id's 64 bytes decoded: a longer one is
     * ARB_EPROTO (until 2026-12-06 65 bytes still fit) */
    char        seg[ARB_HTTP_SEG_MAX][ARB_STORE_ID_MAX + 1];
    size_t      nseg;
    const char *query;          /* after '?', or NULL */
    size_t      qlen;
} arb_http_url_t;

/* Splits path[0..len) ("/api/m/R1%2DT7/state?at=3") at '?' and then at
 * each '/', each segment percent-decoded on its own (so "%2F" stays inside
 * its segment); "/" has no segment, an empty one ("//", a trailing '/')
 * adds none.  0, or ARB_EINVAL (does not start with '/'), ARB_ETOOBIG
 * (more than ARB_HTTP_SEG_MAX segments), ARB_EPROTO (a segment with a bad
 * escape or a NUL, or over ARB_STORE_ID_MAX bytes decoded). */
int  arb_http_url_parse(arb_http_url_t *u, const char *path, size_t len);

/* Percent-decodes s[0..n) into out (NUL-terminated, at most cap - 1
 * bytes); '+' stays '+'.  0, or -1 on a malformed escape, a NUL byte or an
 * overlong result. */
int  arb_http_unescape(const char *s, size_t n, char *out, size_t cap);

/* The first "key=value" of query q[0..qlen) ('&'-separated): 1 with
 * *val / *vlen the raw (still encoded) value inside q, 2 when the key
 * comes again after it (which one a client meant is anyone's guess),
 * 0 absent. */
int  arb_http_query_find(const char *q, size_t qlen, const char *key,
                         const char **val, size_t *vlen);

/* 1 when query q[0..qlen) has `key` as a piece without '=' ("at" in
 * "at&limit=5"), which arb_http_query_find() does not find: a parameter
 * named without its value; else 0. */
int  arb_http_query_bare(const char *q, size_t qlen, const char *key);

/* The first key of query q[0..qlen) that is none of names[0..n): 1 with
 * *key / *klen the raw key inside q (what comes before its '=', or the
 * whole piece when it has none), or 0 when every key is named.  An empty
 * piece ("a=1&&b=2", a trailing '&') has no key. */
int  arb_http_query_unknown(const char *q, size_t qlen,
                            const char *const *names, size_t n,
                            const char **key, size_t *klen);

/* A decimal number in lo..hi written the one way (no sign, no leading
 * zero, no space): 0 with *out, or -1. */
int  arb_http_u64_parse(const char *s, uint64_t lo, uint64_t hi,
                        uint64_t *out);

#endif
