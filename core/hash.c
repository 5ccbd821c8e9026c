/*
 * hash.c - the hex form of hashes and keys (hash.h).
 */
#include <stdint.h>
#include <string.h>

#include "core/err.h"
#include "core/hash.h"

void
arb_hex(char *out, const unsigned char *in, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    size_t            i;

    for (i = 0; i < n; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 0x0f];
    }
    out[2 * n] = '\0';
}

static int
hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int
arb_unhex(unsigned char *out, size_t n, const char *hex)
{
    size_t i;

    if (hex == NULL || n > (SIZE_MAX - 1) / 2 || strlen(hex) != 2 * n)
        return ARB_EINVAL;
    /* Validate everything first so a bad string leaves out untouched. */
    for (i = 0; i < 2 * n; i++)
        if (hexval(hex[i]) < 0)
            return ARB_EINVAL;
    for (i = 0; i < n; i++)
        out[i] = (unsigned char)(hexval(hex[2 * i]) << 4 |
                                 hexval(hex[2 * i + 1]));
    return 0;
}

void
arb_hex32(char out[ARB_HASH_HEX], const unsigned char *h)
{
    arb_hex(out, h, ARB_HASH_LEN);
}
