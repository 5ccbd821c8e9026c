/*
 * shuffle.h - the documented deal shuffle, so anyone can rebuild a deal from
 * a revealed seed (as Tenhou publishes its shuffle).
 *
 * Algorithm (docs/DEAL.md):
 *   key    = BLAKE2b-256("arbiter-shuffle-v1" || seed bytes)
 *   block i = BLAKE2b-512(message = 8-byte big-endian i, key = key),
 *             read as eight 8-byte big-endian words; words are consumed in
 *             order, i = 0, 1, 2, ...
 *   Fisher-Yates: for j = n-1 down to 1, draw words until w < limit where
 *   limit = 2^64 - (2^64 mod (j+1)), then swap positions j and w mod (j+1).
 * Starting from the rule set's canonical deck order, perm[k] becomes the
 * index of the card at stock position k (top first).
 */
#ifndef ARB_SHUFFLE_H
#define ARB_SHUFFLE_H

#include <stddef.h>
#include <stdint.h>
#include "core/hash.h"

/* perm must hold n entries; 0 or ARB_EINVAL (n == 0 or too large). */
int arb_shuffle(unsigned *perm, size_t n, const void *seed, size_t seedlen);

/* Step 3's test of a word w for a draw below bound (bound >= 1): 1 when
 * w < 2^64 - (2^64 mod bound), which w mod bound then gives, 0 when it
 * is drawn again.  (Seeds cannot test it: a word is refused with odds of
 * about bound in 2^64.) */
int arb_shuffle_takes(uint64_t w, uint64_t bound);

/* BLAKE2b-256 of a seed, as recorded in a match header before the reveal. */
void arb_seed_hash(unsigned char out[ARB_HASH_LEN], const void *seed, size_t seedlen);

#endif
