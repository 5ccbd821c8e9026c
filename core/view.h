/*
 * view.h - what one viewer may see of a match.
 *
 * DESIGN: every report of a match's state that leaves the recorder or a
 * tool (the binary protocol's `state`, the JSON API, the web pages, the
 * HTML report) is written here, for a viewer.  A spectator sees only what
 * is public at the table; a player-scoped viewer also sees its own seat's
 * hidden cards; an arbiter (or a scorer, who enters every move) sees all.
 * docs/VIEWS.md lists the visibility of every field, per game.
 */
#ifndef ARB_VIEW_H
#define ARB_VIEW_H

#include <stdint.h>

#include "core/buf.h"
#include "core/event.h"
#include "core/match.h"

enum arb_view_kind {
    ARB_VIEW_PUBLIC = 0,    /* a spectator: public information only */
    ARB_VIEW_SEAT,          /* a player: public plus seat `seat`'s hand */
    ARB_VIEW_ALL            /* an arbiter or scorer: everything */
};

typedef struct {
    enum arb_view_kind kind;
    unsigned           seat;    /* index into the setup's players (SEAT) */
} arb_viewer_t;

/* The report of m as `who` sees it, in arb_report_json's shape (for
 * ARB_VIEW_ALL it is arb_report_json's output, byte for byte).  Appends
 * to out.  0 or ARB_ENOMEM. */
int arb_view_report(arb_buf_t *out, const arb_match_t *m,
                    const arb_viewer_t *who);

#endif
