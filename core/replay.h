/*
 * replay.h - deterministic replay: fold events into a match, and the one
 * JSON report (and the one text) of a match's state that `arbiter replay`
 * and the daemon's state reads share.
 */
#ifndef ARB_REPLAY_H
#define ARB_REPLAY_H

#include <stdint.h>

#include "core/buf.h"
#include "core/match.h"

struct json_t;          /* <jansson.h>: the value writers below */

/* Opens the match from `open` and applies events[0..n) in order, stopping
 * after the event with seq `at` (UINT64_MAX: all).  Returns 0, or the
 * refusal of the first event that does not apply: *bad is its index, v says
 * why, and *out still holds the match as it stood before that event (NULL
 * when the open itself failed).  Release *out with arb_match_free(). */
int arb_replay(arb_match_t **out, const arb_event_t *open,
               const arb_event_t *events, size_t n, uint64_t at,
               size_t *bad, arb_verdict_t *v);

/* {"records":[...],"totals":{...},"digest":"<hex>","seq":N,
 *  "closed":bool,"finished":bool,["rulings":[...],]"state":{...}}
 * ("rulings" when the match has one: core/rulings.h). */
int arb_report_json(arb_buf_t *out, const arb_match_t *m);
/* The same report with the concealed cards of the seats in `seen` listed
 * in its state (0: arb_report_json's bytes).  Reports that leave the
 * recorder for a viewer go through core/view.h, which picks `seen`. */
int arb_report_json_for(arb_buf_t *out, const arb_match_t *m,
                        unsigned seen);
/* The report of arb_report_json_for as a value in *out (the caller owns
 * the reference).  0, or the ARB_E* code of the results (ARB_ENOMEM). */
int arb_report_json_value(struct json_t **out, const arb_match_t *m,
                          unsigned seen);

/* The text `arbiter replay` prints, appended to out:
 *   match ID  game G  events N[  closed|  finished]
 * then the rulings when there are (core/rulings.h arb_rulings_text),
 * then arb_results_text's lines.  Records and totals are public in every
 * game (what a view conceals is in the state, which the text leaves
 * out), so the recorder may hand it to any reader.  0 or ARB_ENOMEM. */
int arb_report_text(arb_buf_t *out, const arb_match_t *m);
/* The same for a viewer who sees the concealed arguments of the seats in
 * `seen` (core/view.h arb_view_seen): its rulings' moves as that viewer
 * sees them, as the JSON report of the same viewer lists them (until
 * 2026-12-06 the text withheld a seat's own amended draw from it). */
int arb_report_text_for(arb_buf_t *out, const arb_match_t *m,
                        unsigned seen);
/* arb_report_text_for; digest 0 writes "digest withheld ..." in place of
 * the digest's line (core/view.h arb_view_hides_digest). */
int arb_report_text_digest(arb_buf_t *out, const arb_match_t *m,
                           unsigned seen, int digest);
/* records: N, one line per record (its fields but match_id and edition,
 * "key=value", a list joined by →, then "(seq S)"), totals:, one line per
 * name, and "digest <hex>", each line ended by a newline.  0 or
 * ARB_ENOMEM. */
int arb_results_text(arb_buf_t *out, const arb_match_t *m);

#endif
