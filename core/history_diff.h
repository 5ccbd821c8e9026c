/*
 * history_diff.h - two records of one match (two scorekeepers' transcripts, a
 * transcript and the recorder's store) compared event by event: the first
 * event where they part, with the state digests at that point.
 *
 * DESIGN: events are compared by content - kind, player, verb, arguments,
 * target, text - never by time, actor or client id, which two honest
 * records of the same match do not share.  Both histories are replayed in step,
 * so a move spelled differently with the same effect (`5H` and `5♥`, a
 * redundant `@1`) is recognised by its equal state digest and is not a
 * divergence; the first event that differs otherwise is.  Headers are
 * compared first, by effect: the same state after seq 0 (the edition
 * included, an option at its default or spelled otherwise not); when it
 * differs, the first differing line is named, paired by key.  A closed
 * dealt match read sealed reveals its deal in its close, as replay does;
 * a running one holds only its deal's commitment: when the other side's
 * deal in the clear opens it, both are judged with that deal (a
 * scoresheet against the recorder's running match).
 *
 * Ownership: arb_history_diff_t owns its strings; release with
 * arb_history_diff_clear() (NULL-safe).  The histories are borrowed; each
 * history's `source` names it in the report.
 */
#ifndef ARB_HISTORY_DIFF_H
#define ARB_HISTORY_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/event.h"
#include "core/ledger/history.h"

/* One side at the divergence. */
typedef struct arb_history_side {
    char          *event;       /* its event there (a transcript line; the
                                   header line for seq 0); NULL: the history
                                   ended before it (seq 0: it has no such
                                   header line) */
    int            has_digest;
    unsigned char  digest[ARB_HASH_LEN];  /* its state after that event, or at its
                                   end when it has none */
    int            implied;     /* seq 0: event is the edition line its
                                   header lacks, read as the current */
    char          *refused;     /* why it has no state: "seq N: rule: msg" */
    uint64_t       last;        /* its last seq */
} arb_history_side_t;

typedef struct arb_history_diff {
    int            identical;
    uint64_t       seq;         /* the first divergence; 0: the headers */
    int            has_before;
    unsigned char  before[ARB_HASH_LEN];  /* the state both had before seq */
    arb_history_side_t a, b;
} arb_history_diff_t;

/* Compares.  0 (see d->identical), ARB_EINVAL when a header does not
 * open (why says which and why), ARB_ENOMEM. */
int  arb_history_diff(arb_history_diff_t *d, const arb_history_t *a, const arb_history_t *b,
                  arb_buf_t *why);
void arb_history_diff_clear(arb_history_diff_t *d);

/* The report, one line each:
 *   A: <name>
 *   B: <name>
 *   first divergence at seq 9: A has 'place bob 7♠', B has 'place bob 7♣'
 *   both before seq 9: digest <hex>
 *   A after seq 9: digest <hex>
 *   B after seq 9: digest <hex>
 * or "identical: N events, digest <hex>" after the two name lines. */
void arb_history_diff_text(arb_buf_t *out, const arb_history_diff_t *d,
                       const arb_history_t *a, const arb_history_t *b);
void arb_history_diff_json(arb_buf_t *out, const arb_history_diff_t *d,
                       const arb_history_t *a, const arb_history_t *b);

#endif
