/*
 * view.h - what one viewer may see of a match.
 *
 * DESIGN: every report of a match's state that leaves the recorder or a
 * tool (the binary protocol's `state`, the JSON API, the web pages, the
 * HTML report) is written here, for a viewer.  A spectator sees only what
 * is public at the table; a player-scoped viewer also sees its own seat's
 * hidden cards; an arbiter (or a scorer, who enters every move) sees all.
 * docs/VIEWS.md lists the visibility of every field, per game.
 *
 * The rule set decides what is hidden (arb_rules_t describe's `seen` and
 * conceal), so nothing here knows a game: the report is written with the
 * viewer's seats, never filtered afterwards.  Events are the same: a move
 * whose arguments a viewer may not see is sent without them, and its
 * chain hash is withheld with every other hash of the match until the
 * close, because a hash over a withheld chip would let anyone check a
 * guess of it.  At the close the deal is revealed, and every viewer sees
 * every event; a state report stays the canonical one, which never lists a
 * concealed hand.
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
    ARB_VIEW_ALL,           /* an arbiter or scorer: everything; the state
                               is the canonical report (hand counts) */
    ARB_VIEW_HANDS          /* everything, and the state lists every seat's
                               concealed cards (an arbiter's table view) */
};

typedef struct {
    enum arb_view_kind kind;
    unsigned           seat;    /* index into the setup's players (SEAT) */
} arb_viewer_t;

/* The report of m as `who` sees it, in arb_report_json's shape (for
 * ARB_VIEW_ALL it is arb_report_json's output, byte for byte; SEAT and
 * HANDS add a `hand_cards` list to the seats they may see).  closed: the
 * match is closed now, m perhaps its state at an earlier seq (the deal
 * is revealed: the digest is everyone's).  Appends to out.  0 or
 * ARB_ENOMEM. */
int arb_view_report(arb_buf_t *out, const arb_match_t *m, int closed,
                    const arb_viewer_t *who);

/* The seats (bit per seat index) whose concealed cards `who` sees. */
unsigned arb_view_seen(const arb_viewer_t *who);

/* 1 when m's state digest must not reach `who`: the match runs (m is not
 * closed, nor is the match now: closed), its game
 * hides cards (a deal, or moves whose arguments it conceals), and `who`
 * does not see them all.  The digest covers every hand and the stock, so
 * anyone holding it could replay the public moves with guessed hands
 * until one matched: a Chains player found the other's two hands in 31
 * tries (until 2026-12-06 every viewer got it).  arb_view_report sends
 * `"digest": null` then, arb_view_report_text a line that says so. */
int arb_view_hides_digest(const arb_match_t *m, int closed,
                          const arb_viewer_t *who);

/* arb_report_text_for as `who` sees it (its rulings, its digest); closed
 * as for arb_view_report. */
int arb_view_report_text(arb_buf_t *out, const arb_match_t *m, int closed,
                         const arb_viewer_t *who);

/* Event ev of the match opened with `setup`, as `who` sees it while the
 * match is open (closed != 0: everyone sees everything).  A move (or the
 * move of an amend or stands ruling) loses the arguments the rule set
 * conceals from `who`; an open's explicit deal becomes its commitment.
 * Fills *out with a copy (release with arb_event_clear()).  Returns 0
 * (nothing withheld: *out equals ev), 1 (something withheld), or
 * ARB_ENOMEM. */
int arb_view_event(arb_event_t *out, const arb_event_t *ev,
                   const arb_setup_t *setup, int closed,
                   const arb_viewer_t *who);

/* The transcript line (core/transcript.h) a spectator reads of event ev
 * of the match opened with `setup` while it is open: the only text of a
 * move a note may quote, since every viewer reads notes unfiltered
 * (docs/VIEWS.md).  An undo request names its move with it (until
 * 2026-12-05 it quoted the move as recorded: a drawn chip, a round's
 * whole stock order).  Appends; 0 or ARB_ENOMEM. */
int arb_view_public_line(arb_buf_t *out, const arb_event_t *ev,
                         const arb_setup_t *setup);
/* The same over an event's canonical bytes: 0 when `who` may have them as
 * they are (out untouched), 1 when *out holds the event's bytes as `who`
 * sees it (appended), or ARB_EPROTO / ARB_ENOMEM. */
int arb_view_event_bytes(arb_buf_t *out, const void *bytes, size_t len,
                         const arb_setup_t *setup, int closed,
                         const arb_viewer_t *who);

/* Event ev of `match` as `who` sees it, in core/event_json.h's JSON shape
 * (what `arbiter events --json` prints): its hidden arguments withheld as
 * arb_view_event does, and "hash" null when arb_view_hides_hashes says
 * so.  hash: the event's chain hash, or NULL.  Appends without a newline.
 * 0 or ARB_ENOMEM. */
int arb_view_event_json(arb_buf_t *out, const char *match, uint64_t seq,
                        int64_t time_ms, const unsigned char *hash,
                        const arb_event_t *ev, const arb_setup_t *setup,
                        int closed, const arb_viewer_t *who);

/* 1 when `who` must not have the chain hashes of a match's events (nor
 * its head): its game can conceal a move's arguments, the match is open and `who`
 * does not see everything.  Otherwise 0. */
int arb_view_hides_hashes(const char *game, int closed,
                          const arb_viewer_t *who);

#endif
