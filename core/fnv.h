/*
 * fnv.h - FNV-1a, the hash of arbiter's in-memory tables (match ids,
 * client ids).  Never stored and never sent: a table may change it freely.
 * Chained: arb_fnv1a(b, nb, arb_fnv1a(a, na, ARB_FNV_SEED)) hashes a then b.
 */
#ifndef ARB_FNV_H
#define ARB_FNV_H

#include <stddef.h>
#include <stdint.h>

#define ARB_FNV_SEED 14695981039346656037ull

static inline uint64_t
arb_fnv1a(const void *p, size_t n, uint64_t h)
{
    const unsigned char *s = p;
    size_t               i;

    for (i = 0; i < n; i++)
        h = (h ^ s[i]) * 1099511628211ull;
    return h;
}

/* Of a NUL-ended string, measuring it in the same pass (*len). */
static inline uint64_t
arb_fnv1a_str(const char *s, size_t *len)
{
    const char *p = s;
    uint64_t    h = ARB_FNV_SEED;

    while (*p != '\0')
        h = (h ^ (unsigned char)*p++) * 1099511628211ull;
    *len = (size_t)(p - s);
    return h;
}

#endif
