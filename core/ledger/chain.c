#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include <sodium.h>

#include "core/ledger/chain.h"
#include "core/err.h"

static pthread_once_t crypto_once = PTHREAD_ONCE_INIT;
static int            crypto_rc = ARB_ECRYPTO;

static void
crypto_init_once(void)
{
    /* 1 means another library already initialised it: still fine. */
    crypto_rc = sodium_init() < 0 ? ARB_ECRYPTO : 0;
}

int
arb_crypto_init(void)
{
    if (pthread_once(&crypto_once, crypto_init_once) != 0)
        return ARB_ECRYPTO;
    return crypto_rc;
}

void
arb_chain_next(const unsigned char prev[ARB_HASH_LEN], const void *bytes, size_t len,
               unsigned char out[ARB_HASH_LEN])
{
    static const unsigned char zero[ARB_HASH_LEN];
    crypto_generichash_state   st;
    unsigned char              h[ARB_HASH_LEN];

    /* BLAKE2b cannot fail with these parameters; init only picks the
     * fastest implementation for this CPU. */
    (void)arb_crypto_init();
    crypto_generichash_init(&st, NULL, 0, ARB_HASH_LEN);
    crypto_generichash_update(&st, prev != NULL ? prev : zero, ARB_HASH_LEN);
    if (len > 0)
        crypto_generichash_update(&st, bytes, len);
    crypto_generichash_final(&st, h, ARB_HASH_LEN);
    memcpy(out, h, ARB_HASH_LEN);   /* via h so that out may alias prev */
    sodium_memzero(&st, sizeof(st));
}

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
