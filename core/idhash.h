/*
 * idhash.h - the hash and the comparison of match ids in the tables of a
 * pass over a whole store (replay_all.c, store_verify.c).  Never stored
 * and never sent: a table may change it freely.
 *
 * DESIGN: such a pass looks up its match table once per event, so the
 * lookup is a visible share of it.  FNV-1a (fnv.h) multiplies once per
 * byte, in a chain, and a libc memcmp is a call; these read a word at a
 * time instead.  Both read whole words: a partial last word is read in
 * full and masked, so the caller guarantees ARB_ID_READABLE(n) readable
 * bytes at every id it passes (an array of ARB_STORE_ID_MAX + 1 bytes
 * always has them; an id inside a larger record may, and
 * arb_id_padded() copies one that may not).
 */
#ifndef ARB_IDHASH_H
#define ARB_IDHASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/buf.h"

/* The bytes the functions below may read at an id of n bytes. */
#define ARB_ID_READABLE(n) ((n) % 8 == 0 ? (size_t)(n) : ((n) & ~(size_t)7) + 8)

/* The low n (< 8) bytes of a word. */
static inline uint64_t
arb_id_mask(size_t n)
{
    return ((uint64_t)1 << (8 * n)) - 1;
}

static inline uint64_t
arb_id_hash(const char *id, size_t n)
{
    const unsigned char *p = (const unsigned char *)id;
    size_t               i = 0;
    uint64_t             h = 0x9e3779b97f4a7c15u, w = 0;

    for (; n - i >= 8; i += 8)
        h = (h ^ arb_load_le64(p + i)) * 0xff51afd7ed558ccdu;
    if (i < n)
        w = arb_load_le64(p + i) & arb_id_mask(n - i);
    /* MurmurHash3's finalizer: tables use the low bits, which a product
     * alone leaves the same for ids that differ in their last bytes. */
    h ^= w ^ n;
    h = (h ^ h >> 33) * 0xff51afd7ed558ccdu;
    h = (h ^ h >> 33) * 0xc4ceb9fe1a85ec53u;
    return h ^ h >> 33;
}

/* Whether the ids a and b are the same n bytes. */
static inline int
arb_id_same(const char *a, const char *b, size_t n)
{
    const unsigned char *x = (const unsigned char *)a;
    const unsigned char *y = (const unsigned char *)b;
    size_t               i = 0;

    for (; n - i >= 8; i += 8)
        if (arb_load_le64(x + i) != arb_load_le64(y + i))
            return 0;
    return i == n
           || ((arb_load_le64(x + i) ^ arb_load_le64(y + i))
               & arb_id_mask(n - i)) == 0;
}

/* id (n bytes, with avail bytes readable from it) as the functions above
 * may read it: id itself, or its copy in pad (n + 8 bytes at least). */
static inline const char *
arb_id_padded(const char *id, size_t n, size_t avail, char *pad)
{
    if (avail >= ARB_ID_READABLE(n))
        return id;
    memcpy(pad, id, n);
    memset(pad + n, 0, 8);
    return pad;
}

#endif
