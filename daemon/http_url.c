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

int
arb_http_query_find(const char *q, size_t qlen, const char *key,
                    const char **val, size_t *vlen)
{
    const char *p = q, *end = q + qlen, *amp, *eq;
    size_t      klen = strlen(key);
    int         found = 0;

    while (p != NULL && p < end) {
        amp = memchr(p, '&', (size_t)(end - p));
        if (amp == NULL)
            amp = end;
        eq = memchr(p, '=', (size_t)(amp - p));
        if (eq != NULL && (size_t)(eq - p) == klen
            && memcmp(p, key, klen) == 0) {
            if (found)
                return 2;
            *val = eq + 1;
            *vlen = (size_t)(amp - eq - 1);
            found = 1;
        }
        p = amp + 1;
    }
    return found;
}

int
arb_http_query_unknown(const char *q, size_t qlen, const char *const *names,
                       size_t n, const char **key, size_t *klen)
{
    const char *p = q, *end = q + qlen, *amp, *eq;
    size_t      i, len;

    while (p != NULL && p < end) {
        amp = memchr(p, '&', (size_t)(end - p));
        if (amp == NULL)
            amp = end;
        eq = memchr(p, '=', (size_t)(amp - p));
        len = (size_t)((eq != NULL ? eq : amp) - p);
        for (i = 0; i < n; i++)
            if (strlen(names[i]) == len && memcmp(p, names[i], len) == 0)
                break;
        if (amp > p && i == n) {
            *key = p;
            *klen = len;
            return 1;
        }
        p = amp + 1;
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
