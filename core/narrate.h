/*
 * narrate.h - a match in words for a person at a console: a move, a
 * result record, what a move did, the turn, the position.
 *
 * DESIGN: the words belong to the game, so each rule set may give its own
 * (arb_rules_t.narration, every member optional) and the console asks
 * through these functions only; where a rule set gives none, generic words
 * are made from the two interfaces every rule set has, results() and
 * describe().  Adding a game therefore touches no tool.  A narration reads
 * the position as describe() published it (parsed with core/jsonin.h), not
 * the rule set's private state, so the words cannot see more than the
 * position shows and the console can narrate a position it kept from
 * before a move.
 *
 * Every function appends to out; pos and before may be NULL (no position
 * to hand: the words then say "?" or nothing).
 */
#ifndef ARB_NARRATE_H
#define ARB_NARRATE_H

#include <stddef.h>

#include "core/buf.h"
#include "core/jsonin.h"
#include "core/rules.h"

/* "alice placed 4♠", "alice take 3": a move (ARB_EV_MOVE), no seq. */
void arb_narrate_move(arb_buf_t *out, const arb_rules_t *r,
                      const arb_event_t *ev);
/* "Sota 1 complete: 4♠→5♥→6♦ BC-001 Ladder 15+6 = 21 for alice", or
 * "result of seq 12: owner alice ..." (the fields that say something). */
void arb_narrate_record(arb_buf_t *out, const arb_rules_t *r,
                        const arb_record_t *rec);
/* What a move that fixed no record did, from the positions before and
 * after it (after may be NULL) ("; Sota 2 void: 4♠→9♥→K♦: no category,
 * no points", "; binh flips 6V"), or nothing. */
void arb_narrate_effect(arb_buf_t *out, const arb_rules_t *r,
                        const json_t *before, const json_t *after,
                        const arb_event_t *ev);
/* What the prompt shows besides the turn (" | Sota 2 [5♥]"), or nothing. */
void arb_narrate_prompt(arb_buf_t *out, const arb_rules_t *r,
                        const json_t *pos);
/* The words after a match's header line on a screen (", cycle 1 of 4,
 * 30 cards left"), or nothing. */
void arb_narrate_header(arb_buf_t *out, const arb_rules_t *r,
                        const json_t *pos);
/* The live position: on one line for a script ("Sota 2 [5♥]; turn bob",
 * "game chan; phase draw; turn bob") or for a screen ("Sota 2 (bob's)
 * [5♥]; bob to play", "position; phase draw; turn bob"). */
void arb_narrate_position(arb_buf_t *out, const arb_rules_t *r,
                          const json_t *pos, int screen);

/* The verb of a move written as its arguments only, or as a player and
 * its arguments ("place"), or NULL when moves are written out in full. */
const char *arb_narrate_bare_verb(const arb_rules_t *r);
/* Argument i of a typed move of `verb` as the log should spell it: a card
 * (a chip, a cell) in its canonical form whatever was typed, so that one
 * card has one spelling in the log.  Writes into out[n] and returns out,
 * or returns arg unchanged. */
const char *arb_narrate_spell_arg(const arb_rules_t *r, const char *verb,
                                  size_t i,
                                  const char *arg, char *out, size_t n);

#endif
