#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include <sodium.h>

#include "core/ledger/chain.h"
#include "core/err.h"

static pthread_once_t crypto_once = PTHREAD_ONCE_INIT;
static int            crypto_rc = ARB_ECRYPTO;
/* BLAKE2b-256 without a key, as crypto_generichash_init leaves it: every
 * link starts from a copy (the init was an eighth of a link's cost, and
 * a state is plain memory, without pointers). */
static crypto_generichash_state link_start;

static void
crypto_init_once(void)
{
    /* 1 means another library already initialised it: still fine. */
    crypto_rc = sodium_init() < 0 ? ARB_ECRYPTO : 0;
    if (crypto_rc == 0)
        crypto_generichash_init(&link_start, NULL, 0, ARB_HASH_LEN);
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

    /* BLAKE2b cannot fail with these parameters; sodium_init only picks
     * the fastest implementation for this CPU (and fills link_start). */
    if (arb_crypto_init() == 0)
        memcpy(&st, &link_start, sizeof(st));
    else
        crypto_generichash_init(&st, NULL, 0, ARB_HASH_LEN);
    crypto_generichash_update(&st, prev != NULL ? prev : zero, ARB_HASH_LEN);
    if (len > 0)
        crypto_generichash_update(&st, bytes, len);
    crypto_generichash_final(&st, h, ARB_HASH_LEN);
    memcpy(out, h, ARB_HASH_LEN);   /* via h so that out may alias prev */
    /* No sodium_memzero of the state: what is hashed here is the log's
     * public record (deal secrets are stored outside the chain), and
     * wiping 384 bytes was 6% of each link's cost, which every
     * verification pays once per event. */
}
