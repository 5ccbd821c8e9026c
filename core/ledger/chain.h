/*
 * chain.h - the per-match hash chain (hex forms: core/hash.h).
 *
 * h(n) = BLAKE2b-256(h(n-1) || bytes of event n), with h(-1) = 32 zero
 * bytes, so the head hash of a match commits to every event before it in
 * order.  The store (core/ledger/store.h) keeps h(n) next to each event; anyone
 * holding the event bytes can recompute the chain and compare heads.
 */
#ifndef ARB_CHAIN_H
#define ARB_CHAIN_H

#include <stddef.h>

#include "core/hash.h"

/* Initialises libsodium once per process; safe to call from any thread,
 * any number of times.  0 or ARB_ECRYPTO.  The functions below call it
 * themselves, so callers need it only to fail early at start-up. */
int  arb_crypto_init(void);

/* out = BLAKE2b-256(prev || bytes).  prev is h(n-1), or NULL for the first
 * event (seq 0), which means 32 zero bytes.  out may alias prev. */
void arb_chain_next(const unsigned char prev[ARB_HASH_LEN], const void *bytes,
                    size_t len, unsigned char out[ARB_HASH_LEN]);

#endif
