/*
 * deal.h - commit-reveal deals.
 *
 * DESIGN: a dealt game's log must not leak hands while the match runs, yet
 * anyone must be able to re-derive the deal afterwards.  So the open event
 * in the log carries only a commitment, BLAKE2b-256 of the deal's secret
 * (the seed of a seeded deal, or the explicit stock order with its cards
 * joined by single spaces), and the close event reveals the secret.  The
 * recorder keeps the secret meanwhile, outside the hash chain.
 */
#ifndef ARB_DEAL_H
#define ARB_DEAL_H

#include "core/buf.h"
#include "core/event.h"
#include "core/rules.h"

/* The secret of a SEED or ORDER deal into out; *kind = "seed" / "order".
 * ARB_EINVAL for any other deal kind. */
int arb_deal_secret(const arb_deal_t *d, arb_buf_t *out, const char **kind);

/* Replaces a SEED or ORDER deal by its commitment (kind ARB_DEAL_COMMIT,
 * seed_hash = BLAKE2b-256(secret)); the secret's kind is written to
 * *kind.  0, ARB_EINVAL or ARB_ENOMEM. */
int arb_deal_commit(arb_deal_t *d, const char **kind);

/* Turns a committed deal back into the revealed one, after checking the
 * secret against the commitment.  kind is "seed" or "order".  0, or
 * ARB_ECRYPTO / ARB_EINVAL with the reason in v. */
int arb_deal_reveal(arb_deal_t *d, const char *kind, const char *secret,
                    arb_verdict_t *v);

/* The secret as the recorder keeps it beside the log (store.h
 * arb_append_t.secret): "<kind> <secret>", kind "seed" or "order".  These
 * two functions are the format's only definition.  Appends to out. */
void arb_deal_stored_format(arb_buf_t *out, const char *kind,
                            const char *secret);
/* Splits a stored secret: its kind into kind[ARB_DEAL_KIND_MAX] and
 * *secret pointing into `stored`.  0, or ARB_EINVAL when malformed. */
#define ARB_DEAL_KIND_MAX 8
int  arb_deal_stored_parse(const char *stored, char kind[ARB_DEAL_KIND_MAX],
                           const char **secret);

/* Checks that (kind, secret) opens the commitment h.  0 or ARB_ECRYPTO. */
int arb_deal_check(const unsigned char h[ARB_HASH_LEN], const char *kind,
                   const char *secret, arb_verdict_t *v);

#endif
