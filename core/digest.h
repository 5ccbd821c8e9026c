/*
 * digest.h - canonical state digests (BLAKE2b-256 via libsodium).
 *
 * DESIGN: a digest is fed typed values, each written in a fixed
 * machine-independent form (integers as 8-byte big-endian, strings as an
 * 8-byte length then the bytes), so the same state hashes to the same 32
 * bytes on every machine and no two different field sequences collide by
 * concatenation.
 */
#ifndef ARB_DIGEST_H
#define ARB_DIGEST_H

#include <stddef.h>
#include <stdint.h>
#include <sodium.h>

#include "core/buf.h"
#include "core/hash.h"

/* Values are gathered in buf and hashed a block at a time: a state
 * digest is hundreds of 8-byte values, and BLAKE2b's update costs more
 * per call than per byte.  The bytes hashed are the same. */
typedef struct arb_digest {
    crypto_generichash_state st;
    unsigned char            buf[256];
    size_t                   n;         /* bytes of buf not yet hashed */
} arb_digest_t;

void arb_digest_init(arb_digest_t *d);
void arb__digest_u64_slow(arb_digest_t *d, uint64_t v);

/* A state digest is mostly these (a YAHchain match's is about a thousand),
 * so the common case is written into buf here, big-endian. */
static inline void
arb_digest_u64(arb_digest_t *d, uint64_t v)
{
    if (sizeof(d->buf) - d->n < 8) {
        arb__digest_u64_slow(d, v);
        return;
    }
    arb_store_be64(d->buf + d->n, v);
    d->n += 8;
}
void arb_digest_i64(arb_digest_t *d, int64_t v);
void arb_digest_str(arb_digest_t *d, const char *s);   /* NULL hashes as "" */
void arb_digest_bytes(arb_digest_t *d, const void *p, size_t n);
void arb_digest_final(arb_digest_t *d, unsigned char out[ARB_HASH_LEN]);

#endif
