/*
 * bundle_sign.c - the signed checkpoint: the exact bytes, and signing them.
 *
 * DESIGN: the message starts with a fixed text and a NUL, so a signature
 * made for a checkpoint can never be mistaken for one over anything else
 * the key might sign later; the id carries its length, so "m1" + count
 * cannot collide with "m" + other bytes.  This file needs libsodium only:
 * the daemon signs without linking the verifier.
 */
#include <string.h>

#include <sodium.h>

#include "core/buf.h"
#include "core/ledger/bundle.h"
#include "core/ledger/chain.h"

static const char cp_prefix[] = "arbiter checkpoint v1";

size_t
arb_checkpoint_message(unsigned char msg[ARB_CHECKPOINT_MSG_MAX],
                       const arb_checkpoint_t *cp)
{
    size_t n, idlen = strnlen(cp->match_id, ARB_STORE_ID_MAX);

    memcpy(msg, cp_prefix, sizeof(cp_prefix));      /* with its NUL */
    n = sizeof(cp_prefix);
    msg[n++] = (unsigned char)idlen;
    memcpy(msg + n, cp->match_id, idlen);
    n += idlen;
    arb_store_be64(msg + n, cp->count);
    n += 8;
    memcpy(msg + n, cp->head, ARB_HASH_LEN);
    return n + 32;
}

void
arb_checkpoint_sign(arb_checkpoint_t *cp, const arb_keypair_t *kp)
{
    unsigned char msg[ARB_CHECKPOINT_MSG_MAX];
    size_t        n = arb_checkpoint_message(msg, cp);

    (void)arb_crypto_init();
    crypto_sign_detached(cp->sig, NULL, msg, n, kp->sk);
    memcpy(cp->pubkey, kp->pk, ARB_PUBKEY_LEN);
    cp->is_signed = 1;
}
