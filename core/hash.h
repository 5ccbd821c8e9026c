/*
 * hash.h - the one hash length of arbiter.
 *
 * Chain links, heads, state digests, deal commitments and signing-key
 * fingerprints are all BLAKE2b-256 (libsodium's crypto_generichash with a
 * 32-byte output), so one constant names their size everywhere.
 */
#ifndef ARB_HASH_H
#define ARB_HASH_H

/* Bytes of one BLAKE2b-256 hash. */
#define ARB_HASH_LEN 32

/* Characters of its lowercase hex form, with the terminating NUL. */
#define ARB_HASH_HEX (2 * ARB_HASH_LEN + 1)

#endif
