/*
 * num.c - decimal numbers (core/num.h).
 */
#include "core/num.h"

int
arb_u64_parse(const char *s, size_t n, uint64_t *out)
{
    uint64_t v = 0;
    size_t   i;

    if (n == 0 || n > 20)
        return -1;
    for (i = 0; i < n; i++) {
        unsigned d = (unsigned char)s[i] - '0';

        if (d > 9 || v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}
