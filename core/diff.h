/*
 * diff.h - a claim against the record: every claimed field compared
 * exactly, records paired by a documented rule, each difference named
 * with the record, the field, both values and the event that fixed the
 * recorded value.  `arbiter diff --claim` prints it; the match layer uses
 * it to set each record's verification status (docs/CLAIMS.md).
 *
 * Pairing: both lists are in completion order.  Each record has a pairing
 * key, the value of the game's key field (YAHchain: `sota`; for a game
 * without one every record has the same key, so records pair by content).
 * The pairs are a longest common subsequence of the two key sequences, so
 * one missing or extra record shifts nothing after it; among equally long
 * pairings, the one whose pairs agree on the most fields wins, then the
 * one pairing the earliest records.  A recorded record left unpaired is
 * missing from the claim, a claimed one left unpaired is extra.  Paired
 * records are compared field by field over the union of their fields
 * (absent on one side is a difference), except the verdict fields
 * `status` and `disputed_fields`.  Totals pair by player name.
 *
 * Ownership: an arb_diff_t borrows both results (they must outlive it)
 * and owns its items; release with arb_diff_clear() (NULL-safe).
 */
#ifndef ARB_DIFF_H
#define ARB_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/rules.h"

struct json_t;          /* <jansson.h>: the value writers below */

enum arb_diff_kind {
    ARB_DIFF_FIELD = 0,     /* a field of a paired record differs */
    ARB_DIFF_MISSING,       /* a recorded record the claim does not have */
    ARB_DIFF_EXTRA,         /* a claimed record that was not recorded */
    ARB_DIFF_TOTAL          /* a player's total differs or is on one side */
};

typedef struct arb_diff_item {
    int                kind;        /* enum arb_diff_kind */
    size_t             rec;         /* FIELD, MISSING: recorded index */
    size_t             claim;       /* FIELD, EXTRA: claimed index */
    const char        *name;        /* FIELD: the field; TOTAL: the player */
    const arb_field_t *recorded;    /* FIELD: NULL when not recorded */
    const arb_field_t *claimed;     /* FIELD: NULL when not claimed */
    const arb_total_t *rtotal;      /* TOTAL: NULL when not recorded */
    const arb_total_t *ctotal;      /* TOTAL: NULL when not claimed */
} arb_diff_item_t;

typedef struct arb_diff {
    const arb_results_t *recorded;  /* borrowed */
    const arb_results_t *claimed;   /* borrowed */
    const char          *key;       /* pairing field, or NULL */
    const char          *label;     /* how messages name the key: "Sota" */
    size_t               n;
    arb_diff_item_t     *items;     /* in pairing order, then totals */
    long                *partner;   /* per recorded record: the claimed
                                       index it pairs with, or -1 */
} arb_diff_t;

/* The pairing field of a game's records and its label, or NULL (no key:
 * records pair by content alone).  A rule set whose records have a
 * natural key adds a line to the table in diff.c. */
const char *arb_diff_key(const char *game, const char **label);

/* Compares.  0 or ARB_ENOMEM; d->n == 0 means identical. */
int  arb_diff_run(arb_diff_t *d, const char *game,
                  const arb_results_t *recorded,
                  const arb_results_t *claimed);
void arb_diff_clear(arb_diff_t *d);

/* One difference as a line (no newline), e.g.
 *   record 3 (Sota 3): bonus: claimed 12, recorded 6, fixed at seq 9 */
void arb_diff_line(arb_buf_t *out, const arb_diff_t *d,
                   const arb_diff_item_t *it);
/* Every line, then "N differences" or "identical: R records, T totals",
 * each with a newline. */
void arb_diff_text(arb_buf_t *out, const arb_diff_t *d);
/* {"identical":b,"records":{"recorded":N,"claimed":N},"totals":{...},
 *  "differences":[...]} (docs/CLAIMS.md). */
void arb_diff_json(arb_buf_t *out, const arb_diff_t *d);
/* The same object as a value; NULL (out of memory).  The caller owns the
 * reference. */
struct json_t *arb_diff_json_value(const arb_diff_t *d);

/* Applies a claim's verdict to results r: every record gets a `status`
 * field (added when the rule set has none); records fixed before
 * claim_seq become "confirmed" when their claimed partner agrees field for
 * field, else "disputed" with a `disputed_fields` list (the differing
 * field names; "*" when the claim lacks the record).  Records fixed at or
 * after claim_seq stay "pending": the claim could not know them.
 * r comes fresh from the rule set's results (arb_match_results): marked
 * once, a second mark would keep the first one's `disputed_fields`.
 * 0 or ARB_ENOMEM. */
int  arb_diff_mark(arb_results_t *r, const arb_results_t *claimed,
                   const char *game, uint64_t claim_seq);

#endif
