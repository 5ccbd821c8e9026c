/*
 * match.h - one match: its setup, its rule set's state and the arbiter's
 * rulings, folded event by event.
 *
 * DESIGN: corrections are events, never rewrites.  A void or an amend does
 * not touch the stored log; the match rebuilds its rule state from the
 * setup by replaying every move "as ruled" (voided moves skipped, amended
 * moves replaced, moves that stand by ruling forced).  A ruling that would
 * make a later move illegal is refused with that move's seq and reason, so
 * the record can never silently become inconsistent; the arbiter rules on
 * the later move first.
 *
 * Claims (kind "claim", core/claim.h) change no game state: the latest one
 * decides each record's verification status, recomputed from the claim and
 * the records as ruled whenever results are read.  They are the one kind
 * a closed match still accepts.
 *
 * Memory: a match keeps of each event only what rebuilding the rule state
 * needs (kind, rulings, and a move's player, verb and arguments, packed in
 * one arena: about 40 bytes for a YAHchain move, no allocation per event),
 * a ruling's reason and target too (the reports list the rulings), plus
 * the latest claim whole.
 *
 * Ownership: the match copies what it keeps; callers keep their events.
 */
#ifndef ARB_MATCH_H
#define ARB_MATCH_H

#include <stdint.h>

#include "core/event.h"
#include "core/rules.h"

typedef struct arb_match arb_match_t;

/* Builds a match from its OPEN event (seq 0).  0, ARB_EUNSUPP (unknown
 * game), ARB_EINVAL (bad setup, reason in v) or ARB_ENOMEM. */
int  arb_match_open(arb_match_t **out, const arb_event_t *open,
                    arb_verdict_t *v);
void arb_match_free(arb_match_t *m);                    /* NULL-safe */

/* Judges and applies the next event.  ev->seq must be 0 (the match assigns
 * the next seq) or equal arb_match_next_seq().  On refusal the match is
 * unchanged and v says why: ARB_EILLEGAL (a rule), ARB_EINVAL (malformed,
 * e.g. a claim not in canonical form), ARB_EOVER (closed or finished; after
 * close only a claim is accepted), ARB_ENOTFOUND (ruling on no such
 * move). */
int  arb_match_apply(arb_match_t *m, const arb_event_t *ev, arb_verdict_t *v);

/* Makes a freshly opened match keep no history: each later move costs
 * no memory, but a void, amend or stands (which rebuild the state from
 * the moves) is refused with ARB_EAGAIN, the match unchanged, and must be
 * replayed on a match that keeps its history.  Replay of a whole store
 * uses it.  0, or ARB_EINVAL once an event has been applied. */
int  arb_match_lean(arb_match_t *m);
int  arb_match_is_lean(const arb_match_t *m);   /* 1 after arb_match_lean */

/* A lean copy of m (as arb_match_lean: it keeps no history) in *out,
 * owned by the caller, sharing nothing with m: its state, results,
 * digest and report are m's, and events applied to either leave the
 * other as it was.  It costs the size of the state, not of the history:
 * what a recorder judges a move on.  0, ARB_ENOMEM, or ARB_EUNSUPP when
 * the game's rule set makes no copies (arb_rules_t.clone NULL: replay
 * the history instead). */
int  arb_match_copy(const arb_match_t *m, arb_match_t **out);
/* A hint that m is about to be applied to: starts loading the memory an
 * apply reads first (the rule state's first kilobyte), without waiting
 * for it.  Changes nothing; replay of a store that interleaves thousands
 * of matches calls it a few records ahead. */
void arb_match_prefetch(const arb_match_t *m);

uint64_t           arb_match_next_seq(const arb_match_t *m);
const arb_setup_t *arb_match_setup(const arb_match_t *m);
const arb_rules_t *arb_match_rules(const arb_match_t *m);
int                arb_match_closed(const arb_match_t *m);
/* 1 when no further move is accepted (closed, or the rules say so). */
int                arb_match_finished(const arb_match_t *m);
/* 1 when the rules say the game is over (played to its end), closed or
 * not: a match closed early (adjourned, abandoned) was not. */
int                arb_match_played_out(const arb_match_t *m);

/* The canonical state digest: BLAKE2b-256 over the game, edition, match id,
 * players, closed flag, the rule set's canonical state and, once there is
 * one, the latest claim. */
void arb_match_digest(const arb_match_t *m, unsigned char out[ARB_HASH_LEN]);
/* The rule set's results with the claim verdicts applied: every record
 * has a `status` ("pending", "confirmed" or "disputed", the latter with a
 * `disputed_fields` list; core/diff.h arb_diff_mark).  Release with
 * arb_results_clear().  0 or ARB_ENOMEM. */
int  arb_match_results(const arb_match_t *m, arb_results_t *out);
/* The seq of the claim in force (the latest), or 0. */
uint64_t arb_match_claim_seq(const arb_match_t *m);
/* 1 when the claim in force states totals other than r's (m's results,
 * arb_match_results): a player's total differs or is on one side only,
 * as `arbiter diff --claim` counts a difference.  0 without a claim. */
int  arb_match_claim_totals_differ(const arb_match_t *m,
                                   const arb_results_t *r);
/* The records the claim in force states that r (m's results) lacks, as
 * `arbiter diff --claim` counts an "extra"; 0 without a claim, or
 * ARB_ENOMEM. */
int  arb_match_claim_extras(const arb_match_t *m, const arb_results_t *r);
/* Each total the claim in force states otherwise than r: the name, the
 * claimed and the recorded points (NULL: that side has none of it).
 * A callback's non-zero stops the walk (ARB_ENOMEM).  Returns how many
 * differ (0 without a claim), or ARB_ENOMEM. */
typedef int (*arb_total_diff_cb)(void *ud, const char *name,
                                 const int64_t *claimed,
                                 const int64_t *recorded);
int  arb_match_claim_totals(const arb_match_t *m, const arb_results_t *r,
                            arb_total_diff_cb cb, void *ud);
/* 1 when m has a move (a move event, or one that stands by ruling), as
 * counted when applied: a lean match or a copy knows it too. */
int  arb_match_has_moves(const arb_match_t *m);
/* The rule set's describe() as JSON text appended to json: public only.
 * 0 or ARB_ENOMEM. */
int  arb_match_describe(const arb_match_t *m, arb_buf_t *json);
/* The same as a new Jansson object, with the concealed cards of the seats
 * in `seen` (bit per seat; core/view.h), or NULL (out of memory). */
struct json_t *arb_match_describe_value(const arb_match_t *m, unsigned seen);
/* The moves undo-request notes (core/board.h arb_undo_note) asked to
 * undo and nothing has answered yet (a void or an amend of the move,
 * before or after the request, or a note declining it), in the notes'
 * order: sets *targets (owned by m) and returns how many. */
size_t arb_match_undo_requests(const arb_match_t *m, const uint64_t **targets);

/* Rulings in force, for reports: how a seq stands now. */
enum arb_ruling { ARB_RULED_NONE = 0, ARB_RULED_VOID, ARB_RULED_AMENDED,
                  ARB_RULED_STANDS };
int  arb_match_ruling(const arb_match_t *m, uint64_t seq, uint64_t *by);
/* Calls cb for each ruling event (void, amend, stands) of m in seq order:
 * `ruling` as recorded (kind, seq, target, player, verb, args, and its
 * reason in text; borrowed for the call), undone_by 0 while it is in
 * force, else the seq of the later ruling that took it out (an amend
 * replaced by another amend or a void of its move, a stands voided or
 * amended).  A lean match has none.  0, cb's non-zero return, or
 * ARB_ENOMEM. */
typedef int (*arb_ruling_cb)(void *ud, const arb_event_t *ruling,
                             uint64_t undone_by);
int  arb_match_rulings(const arb_match_t *m, arb_ruling_cb cb, void *ud);

#endif
