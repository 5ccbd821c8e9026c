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

/* The first broken link of a recorded chain: the least i < n whose
 * recs[i].hash is not BLAKE2b-256(recs[i-1].hash || recs[i].bytes) (for
 * i = 0, of 32 zero bytes), or n when every link holds.  recs[i] is seq i
 * (core/ledger/history.h records; only bytes, len and hash are read).
 * Links are independent once the stored hashes are known, so up to
 * `threads` threads check long chains; the answer is the serial one. */
struct arb_history_rec;
size_t   arb_chain_first_bad(const struct arb_history_rec *recs, size_t n,
                             unsigned threads);

/* Threads worth using for a long check: the online CPUs, 1..16. */
unsigned arb_chain_threads(void);

/* Runs fn(args + t * size) for t = 0 .. nt-1 (nt at most 16) and returns
 * when every call has: t = 0 on the calling thread, the others each on a
 * thread of its own, or here afterwards when a thread cannot start.  With
 * size 0 every call gets args itself. */
void     arb_chain_run(unsigned nt, void *(*fn)(void *), void *args,
                       size_t size);

#endif
