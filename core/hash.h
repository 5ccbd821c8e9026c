/*
 * hash.h - the one hash length of arbiter, and the hex form of hashes
 * and keys.
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

#include <stddef.h>

/* Writes 2n lowercase hex digits and a NUL: out needs 2n+1 bytes. */
void arb_hex(char *out, const unsigned char *in, size_t n);

/* Decodes exactly 2n hex digits (either case) into n bytes.  0, or
 * ARB_EINVAL when hex has another length or a non-hex character; out is
 * untouched on failure. */
int  arb_unhex(unsigned char *out, size_t n, const char *hex);

/* The hex form of one hash: arb_hex(out, h, ARB_HASH_LEN). */
void arb_hex32(char out[ARB_HASH_HEX], const unsigned char *h);

#endif
