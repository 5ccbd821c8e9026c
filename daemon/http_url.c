/*
 * http_url.c - request targets read without a connection (http_url.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "daemon/http_url.h"

static int
hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

int
arb_http_unescape(const char *s, size_t n, char *out, size_t cap)
{
    size_t i, k = 0;
    int    hi, lo, ch;

    if (cap == 0)
        return -1;
    for (i = 0; i < n; i++) {
        ch = (unsigned char)s[i];
        if (ch == '%') {
            if (i + 2 >= n)
                return -1;
            hi = hexval(s[i + 1]);
            lo = hexval(s[i + 2]);
            if (hi < 0 || lo < 0)
                return -1;
            ch = hi * 16 + lo;
            i += 2;
        }
        if (ch == 0 || k + 1 >= cap)
            return -1;
        out[k++] = (char)ch;
    }
    out[k] = '\0';
    return 0;
}

int
arb_http_url_parse(arb_http_url_t *u, const char *path, size_t len)
{
    const char *p = path, *end = path + len, *qm, *slash;

    u->nseg = 0;
    u->query = NULL;
    u->qlen = 0;
    qm = len > 0 ? memchr(path, '?', len) : NULL;
    if (qm != NULL) {
        u->query = qm + 1;
        u->qlen = (size_t)(end - qm - 1);
        end = qm;
    }
    if (p == end || *p != '/')
        return ARB_EINVAL;
    for (p++; p < end; p = slash + 1) {
        slash = memchr(p, '/', (size_t)(end - p));
        if (slash == NULL)
            slash = end;
        /* An empty segment ("//" from a proxy's or a script's join, a
         * trailing "/") names nothing: skipped (until 2026-12-06 only a
         * trailing one was). */
        if (slash == p)
            continue;
        if (u->nseg == ARB_HTTP_SEG_MAX)
            return ARB_ETOOBIG;
        if (arb_http_unescape(p, (size_t)(slash - p), u->seg[u->nseg],
                              sizeof(u->seg[0])) != 0)
            return ARB_EPROTO;
        u->nseg++;
        if (slash == end)
            break;
    }
    return 0;
}

/* One '&'-separated piece of a query, from *p (before end), *p then
 * moved past it: its key k[0..klen), and its value (after the first
 * '=') in *val / *vlen, *val NULL when it has no '='.  0 past the end. */
typedef struct piece {
    const char *k, *val;
    size_t      klen, vlen;
} piece_t;

static int
next_piece(const char **p, const char *end, piece_t *pc)
{
    const char *amp, *eq;

    if (*p == NULL || *p >= end)
        return 0;
    amp = memchr(*p, '&', (size_t)(end - *p));
    if (amp == NULL)
        amp = end;
    eq = memchr(*p, '=', (size_t)(amp - *p));
    pc->k = *p;
    pc->klen = (size_t)((eq != NULL ? eq : amp) - *p);
    pc->val = eq != NULL ? eq + 1 : NULL;
    pc->vlen = eq != NULL ? (size_t)(amp - eq - 1) : 0;
    *p = amp + 1;
    return 1;
}

int
arb_http_query_find(const char *q, size_t qlen, const char *key,
                    const char **val, size_t *vlen)
{
    const char *p = q;
    piece_t     pc;
    size_t      klen = strlen(key);
    int         found = 0;

    while (next_piece(&p, q + qlen, &pc))
        if (pc.val != NULL && pc.klen == klen
            && memcmp(pc.k, key, klen) == 0) {
            if (found)
                return 2;
            *val = pc.val;
            *vlen = pc.vlen;
            found = 1;
        }
    return found;
}

int
arb_http_query_bare(const char *q, size_t qlen, const char *key)
{
    const char *p = q;
    piece_t     pc;
    size_t      klen = strlen(key);

    while (next_piece(&p, q + qlen, &pc))
        if (pc.val == NULL && pc.klen == klen
            && memcmp(pc.k, key, klen) == 0)
            return 1;
    return 0;
}

int
arb_http_query_unknown(const char *q, size_t qlen, const char *const *names,
                       size_t n, const char **key, size_t *klen)
{
    const char *p = q;
    piece_t     pc;
    size_t      i;

    while (next_piece(&p, q + qlen, &pc)) {
        for (i = 0; i < n; i++)
            if (strlen(names[i]) == pc.klen
                && memcmp(pc.k, names[i], pc.klen) == 0)
                break;
        /* (an empty piece, "&&", names nothing) */
        if (i == n && (pc.klen > 0 || pc.val != NULL)) {
            *key = pc.k;
            *klen = pc.klen;
            return 1;
        }
    }
    return 0;
}

int
arb_http_u64_parse(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    unsigned long long n;
    char              *end;

    if (s[0] < '0' || s[0] > '9' || (s[0] == '0' && s[1] != '\0'))
        return -1;
    errno = 0;
    n = strtoull(s, &end, 10);
    if (*end != '\0' || errno == ERANGE || n < lo || n > hi)
        return -1;
    *out = n;
    return 0;
}
