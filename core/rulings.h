/*
 * rulings.h - the arbiter's rulings of a match, as its reports list them.
 *
 * DESIGN: a state report is the match "as ruled": its records, totals and
 * state after every void, amend and stands.  Settling a dispute from it
 * also asks which rulings shaped it, so the report lists them beside the
 * result: each ruling event in seq order, with its move, its reason and
 * whether it is still in force (an amend replaced by a later amend or a
 * void of its move is not, nor is a stands voided or amended).
 *
 * A ruling's move is shown as the report's viewer may see it, through
 * core/view.h's one filter: while the match is open, an argument the
 * rule set conceals (a drawn chip) is withheld unless the viewer sees
 * that seat; after the close every viewer sees it whole.  The canonical
 * report (seen 0) is the one every viewer may read, so it withholds too.
 * A match without a ruling gets no list at all, so its reports read
 * byte for byte as before rulings were listed.
 */
#ifndef ARB_RULINGS_H
#define ARB_RULINGS_H

#include "core/buf.h"
#include "core/match.h"

struct json_t;          /* <jansson.h> */

/* Sets "rulings":[{"seq":S,"kind":"void"|"amend"|"stands","target":T,
 * "move":"<verb> <player> <args>","reason":"...","undone_by":U},...] on
 * the object o when m has a ruling (target only for void and amend, move
 * only for amend and stands, undone_by only when it is no longer in
 * force); concealed arguments as `seen` (a bit per seat, core/view.h
 * arb_view_seen) allows.  0, or ARB_ENOMEM. */
int arb_rulings_set_json(struct json_t *o, const arb_match_t *m,
                         unsigned seen);

/* Appends, when m has a ruling, "rulings: N" and a line per ruling:
 *   "  seq S: <its transcript line>[  (undone at seq U)]"
 * concealed arguments as `seen` allows (0: as any viewer may read it).
 * 0 or ARB_ENOMEM. */
int arb_rulings_text(arb_buf_t *out, const arb_match_t *m, unsigned seen);

#endif
