/*
 * keys.h - the daemon's Ed25519 signing key pair, kept as two files in
 * the data directory (docs/BUNDLE.md, "Keys"):
 *
 *   DIR/signing.key  mode 0600: 128 lowercase hex digits and a newline,
 *                    libsodium's 64-byte secret key (seed || public key)
 *   DIR/signing.pub  mode 0644: 64 lowercase hex digits and a newline,
 *                    the 32-byte public key
 *
 * Lines starting with '#' are skipped when reading either file.  Public
 * keys are written and read as hex everywhere (files, `arbiter key`,
 * `arbiter verify --pubkey`, messages).
 *
 * DESIGN: the secret file is created once and never overwritten (link(2)
 * of a finished temporary file), so a crash or a second daemon can never
 * replace the identity bundles were signed with.  A public file without
 * its secret file is refused instead of silently minting a new identity.
 *
 * Ownership: arb_keypair_t holds the secret inline; wipe it with
 * arb_keypair_clear() (NULL-safe) when done.
 */
#ifndef ARB_KEYS_H
#define ARB_KEYS_H

#include "core/buf.h"

#define ARB_KEY_SECRET_FILE "signing.key"
#define ARB_KEY_PUBLIC_FILE "signing.pub"
#define ARB_PUBKEY_LEN      32
#define ARB_SECKEY_LEN      64
#define ARB_SIG_LEN         64

typedef struct arb_keypair {
    unsigned char pk[ARB_PUBKEY_LEN];
    unsigned char sk[ARB_SECKEY_LEN];
} arb_keypair_t;

/* Creates a fresh key pair in `dir` unless signing.key exists; rewrites a
 * missing signing.pub from signing.key.  *created (may be NULL) is 1 when
 * a new pair was made.  0, ARB_EEXIST (signing.pub without signing.key),
 * ARB_EIO or ARB_ECRYPTO, with the reason in why. */
int  arb_keys_create(const char *dir, int *created, arb_buf_t *why);

/* Reads signing.key of `dir`: refuses a file that group or others may
 * access, checks that the seed derives the stored public half and, when
 * signing.pub exists, that it holds the same key.  0, ARB_ENOTFOUND,
 * ARB_EPERM (unreadable, or permissions too open), ARB_ECORRUPT or
 * ARB_EIO, with the reason in why. */
int  arb_keys_load(arb_keypair_t *kp, const char *dir, arb_buf_t *why);

/* Reads signing.pub of `dir`.  0, ARB_ENOTFOUND, ARB_ECORRUPT, ARB_EIO. */
int  arb_keys_load_public(unsigned char pk[ARB_PUBKEY_LEN], const char *dir,
                          arb_buf_t *why);

/* A public key given by a person: 64 hex digits, or the path of a file
 * whose first word (after '#' lines) is those digits, such as a copy of
 * signing.pub.  0, or ARB_EINVAL / ARB_EIO with the reason in why. */
int  arb_pubkey_parse(unsigned char pk[ARB_PUBKEY_LEN], const char *key,
                      arb_buf_t *why);

void arb_keypair_clear(arb_keypair_t *kp);

#endif
