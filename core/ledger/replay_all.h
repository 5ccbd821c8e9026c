/*
 * replay_all.h - every match of a data directory replayed in one pass over
 * the log (`arbiter replay --db DIR`).
 *
 * DESIGN: replaying a store match by match reads each event through the
 * derived index, one random lookup per event; the log itself is one
 * sequential B-tree in commit order, in which every match's events come
 * in seq order.  So a whole store is replayed by walking the log once and
 * keeping every match's live state side by side: each event is decoded in
 * place into reused room (arb_event_decode_scratch, no allocation per
 * event) and applied to its match.  What replay checks: every event
 * decodes, is the next seq of its match and is legal under the rules; it
 * trusts the stored hashes, which the recorder wrote after its own check,
 * and re-hashes nothing -- verifying the chain is arb_store_verify()'s
 * job (`replay --verify`, `arbiter verify`).  The matches keep no
 * history (arb_match_lean): memory grows with the matches, not the
 * events.  A match whose open commits a deal, or that holds a ruling
 * (void, amend, stands: they rebuild from the moves), is replayed
 * afterwards through arb_history_load() and arb_history_replay(), the one
 * path that reveals a stored deal and keeps the moves.  No digest is
 * computed here: the callback asks for it if it wants one.
 */
#ifndef ARB_REPLAY_ALL_H
#define ARB_REPLAY_ALL_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/match.h"

struct arb_store;

/* One replayed match, in match id order.  m is the match as replayed (as
 * it stood before a refused event), or NULL when its open was refused;
 * refused is 0 when every event stood, else the seq of the refused event
 * (0 for the open too: then m is NULL) with v saying why.  Borrowed for
 * the call.  Return 0 to go on, anything else to stop (returned). */
typedef struct arb_replayed {
    const char          *match_id;
    const arb_match_t   *m;
    uint64_t             events;    /* events applied, the open included */
    int                  refused;
    uint64_t             bad_seq;
    const arb_verdict_t *v;
} arb_replayed_t;

typedef int (*arb_replay_all_cb)(void *ud, const arb_replayed_t *r);

/* Replays every match of s (a snapshot: one read transaction over the
 * log), then calls cb for each in match id order.  A refused event stops
 * its match only; the others go on.  *nevents (may be NULL) receives the
 * events replayed.  0, cb's non-zero return, or a store error (ARB_ENOMEM,
 * ARB_ECORRUPT: an event that does not decode or is out of its match's
 * seq order, named in why). */
int arb_replay_all(struct arb_store *s, arb_replay_all_cb cb, void *ud,
                   uint64_t *nevents, arb_buf_t *why);

#endif
