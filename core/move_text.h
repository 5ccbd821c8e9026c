/*
 * move_text.h - a move as a scorekeeper types it ("6D", "alice 6D",
 * "place alice 6D", each game's verbs), read into an event against the
 * match it is for.  The console (`arbiter record`) and the recorder's
 * HTTP write routes read moves with this one reader, so a move typed on a
 * phone means what it means at the console.
 */
#ifndef ARB_MOVE_TEXT_H
#define ARB_MOVE_TEXT_H

#include <stddef.h>

#include "core/buf.h"
#include "core/event.h"
#include "core/match.h"

/* Splits buf in place into words on blanks; at most max are stored in w
 * (the count returned is then max: the caller checks for "too many" by
 * asking for one more than it takes).  The words point into buf. */
size_t arb_move_words(char *buf, char **w, size_t max);

/* Fills ev (kind move, player, verb, args; ev zeroed by the caller,
 * released with arb_event_clear) from the words w[0..n) typed for match
 * m: "VERB PLAYER ARG...", or where the rule set has a bare verb
 * (YAHchain's place) "PLAYER ARG..." or "ARG...", the player being `as`
 * when not NULL, else the one whose turn it is.  Cards are spelt in their
 * canonical form, so one card has one spelling in the log.  The rules are
 * not asked: judging is the caller's next step.  0, ARB_EINVAL (why says
 * what to write instead) or ARB_ENOMEM. */
int arb_move_from_words(const arb_match_t *m, const char *as,
                        char *const *w, size_t n, arb_event_t *ev,
                        arb_buf_t *why);
/* The same for a match known by its rule set and setup only (a running
 * dealt match the console cannot replay): turn is the player whose turn
 * it is, as the match's describe() says (the recorder's report; NULL:
 * nobody's). */
int arb_move_from_words_at(const arb_rules_t *rules,
                           const arb_setup_t *setup, const char *turn,
                           const char *as, char *const *w, size_t n,
                           arb_event_t *ev, arb_buf_t *why);

#endif
