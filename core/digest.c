#include <string.h>

#include "digest.h"

void
arb_digest_init(arb_digest_t *d)
{
    /* sodium_init() is idempotent; BLAKE2b itself needs no set-up, but the
     * library asks to be initialised before any use. */
    if (sodium_init() < 0)
        return;
    crypto_generichash_init(&d->st, NULL, 0, ARB_HASH_LEN);
    d->n = 0;
}

static void
flush(arb_digest_t *d)
{
    if (d->n > 0)
        crypto_generichash_update(&d->st, d->buf, d->n);
    d->n = 0;
}

static void
put(arb_digest_t *d, const void *p, size_t n)
{
    if (n > sizeof(d->buf) - d->n) {
        flush(d);
        if (n >= sizeof(d->buf)) {
            crypto_generichash_update(&d->st, p, n);
            return;
        }
    }
    memcpy(d->buf + d->n, p, n);
    d->n += n;
}

void
arb__digest_u64_slow(arb_digest_t *d, uint64_t v)
{
    unsigned char x[8];

    arb_store_be64(x, v);
    put(d, x, 8);
}

void
arb_digest_i64(arb_digest_t *d, int64_t v)
{
    arb_digest_u64(d, (uint64_t)v);
}

void
arb_digest_bytes(arb_digest_t *d, const void *p, size_t n)
{
    arb_digest_u64(d, n);
    if (n > 0)
        put(d, p, n);
}

void
arb_digest_str(arb_digest_t *d, const char *s)
{
    if (s == NULL)
        s = "";
    arb_digest_bytes(d, s, strlen(s));
}

void
arb_digest_final(arb_digest_t *d, unsigned char out[ARB_HASH_LEN])
{
    flush(d);
    crypto_generichash_final(&d->st, out, ARB_HASH_LEN);
}
