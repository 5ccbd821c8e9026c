#include <sodium.h>
#include <stdint.h>
#include <string.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/shuffle.h"
#include "core/hash.h"

typedef struct stream {
    unsigned char key[ARB_HASH_LEN];
    unsigned char block[64];
    uint64_t      counter;
    int           used;         /* words of block consumed, 8 = empty */
} stream_t;

static uint64_t
next_word(stream_t *s)
{
    unsigned char msg[8];
    uint64_t      w = 0, c = s->counter;
    int           i;

    if (s->used == 8) {
        arb_store_be64(msg, c);
        crypto_generichash(s->block, 64, msg, 8, s->key, ARB_HASH_LEN);
        s->counter++;
        s->used = 0;
    }
    for (i = 0; i < 8; i++)
        w = (w << 8) | s->block[s->used * 8 + i];
    s->used++;
    return w;
}

int
arb_shuffle_takes(uint64_t w, uint64_t bound)
{
    /* Words >= 2^64 - (2^64 mod bound) are drawn again, so every residue
     * is equally likely; r = 2^64 mod bound, no 128-bit arithmetic. */
    uint64_t r = (UINT64_MAX % bound + 1) % bound;

    return r == 0 || w < (uint64_t)0 - r;   /* 2^64 - r */
}

int
arb_shuffle(unsigned *perm, size_t n, const void *seed, size_t seedlen)
{
    crypto_generichash_state st;
    stream_t                 s;
    size_t                   j;
    uint64_t                 bound, w;
    unsigned                 t;

    if (n == 0 || n > 1u << 20 || sodium_init() < 0)
        return ARB_EINVAL;
    crypto_generichash_init(&st, NULL, 0, ARB_HASH_LEN);
    crypto_generichash_update(&st, (const unsigned char *)"arbiter-shuffle-v1",
                              18);
    crypto_generichash_update(&st, seed, seedlen);
    crypto_generichash_final(&st, s.key, ARB_HASH_LEN);
    s.counter = 0;
    s.used = 8;
    for (j = 0; j < n; j++)
        perm[j] = (unsigned)j;
    for (j = n - 1; j >= 1; j--) {
        bound = (uint64_t)j + 1;
        do
            w = next_word(&s);
        while (!arb_shuffle_takes(w, bound));
        w %= bound;
        t = perm[j];
        perm[j] = perm[w];
        perm[w] = t;
    }
    return 0;
}

void
arb_seed_hash(unsigned char out[ARB_HASH_LEN], const void *seed, size_t seedlen)
{
    if (sodium_init() < 0)
        return;
    crypto_generichash(out, ARB_HASH_LEN, seed, seedlen, NULL, 0);
}
