/*
 * claim_int.h - what claim.c shares with claim_csv.c; not for other
 * modules.
 */
#ifndef ARB_CLAIM_INT_H
#define ARB_CLAIM_INT_H

#include <stdint.h>

#include "core/buf.h"
#include "core/claim.h"

/* Replaces why (may be NULL) with the message; returns rc. */
int arb__claim_fail(arb_buf_t *why, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The claim's own copy of a field name (records point to it), or NULL. */
const char *arb__claim_intern(arb_claim_t *c, const char *key);
/* Adds a total; a name given twice or empty is ARB_EINVAL, the message
 * prefixed with `at` ("line 3: "). */
int arb__claim_add_total(arb_claim_t *c, const char *name, int64_t pts,
                         const char *at, arb_buf_t *why);

#endif
