/*
 * board.h - the director's board: every table of a round with its live
 * status, what needs the director first (docs/TOURNAMENT.md).
 *
 * DESIGN: the status is derived from the recorded match only (its events,
 * rulings and claims), so the daemon, the tools and a bundle agree.  The
 * order is fixed: disputed claim, pending undo request, finished but not
 * closed, not started, playing, closed; within a status the tables keep
 * the round's order.  A scorer's undo is a note "undo requested: seq N"
 * (written by arbiter record through arb_undo_note()) until an arbiter
 * voids seq N.
 *
 * Ownership: arb_board_table_t borrows its strings.
 */
#ifndef ARB_BOARD_H
#define ARB_BOARD_H

#include <stdint.h>

#include "core/buf.h"
#include "core/match.h"

enum arb_board_status {
    ARB_BOARD_DISPUTED = 0,     /* the latest claim disputes a record, or
                                   the final totals */
    ARB_BOARD_UNDO,             /* a scorer asked for an undo */
    ARB_BOARD_FINISHED,         /* the rules accept no move; not closed */
    ARB_BOARD_NOT_STARTED,      /* no match yet, or no move yet */
    ARB_BOARD_PLAYING,
    ARB_BOARD_CLOSED,
    ARB_BOARD_FORFEIT           /* forfeited (a tournament's act): decided */
};
const char *arb_board_status_name(int status);

typedef struct arb_board_table {
    const char   *table;
    const char   *match;
    char *const  *players;
    size_t        nplayers;
    int           status;       /* enum arb_board_status */
    uint64_t      seq;          /* last recorded seq */
    int64_t       last_ms;      /* its time (Unix ms), 0 unknown */
    uint64_t      undo_seq;     /* ARB_BOARD_UNDO: the seq to void */
    int           sealed;       /* playing, its state not known to this
                                   reader (a dealt match whose deal it
                                   lacks): "sealed": true */
    const char   *problem;      /* why the match does not count for the
                                   table (core/standings.h), or NULL */
} arb_board_table_t;

/* The status of match m (NULL: not opened yet); *undo_seq set for
 * ARB_BOARD_UNDO.  A status or ARB_ENOMEM. */
int  arb_board_status(const arb_match_t *m, uint64_t *undo_seq);
/* {"tournament","round","tables":[{"table","match","players","status",
 * "seq","last_move_ms"[,"undo_seq"][,"sealed"][,"problem"]}...]} in the
 * board's order. */
int  arb_board_json(arb_buf_t *b, const char *tournament, uint64_t round,
                    const arb_board_table_t *t, size_t n);

/* The text of a scorer's undo request for seq `seq` (what: the move in
 * words), and back: 0 with *seq when text is one, else -1. */
void arb_undo_note(arb_buf_t *b, uint64_t seq, const char *what);
int  arb_undo_note_seq(const char *text, uint64_t *seq);
/* The seq N of a note "undo declined: seq N[ ...]": an undo request of N
 * that an arbiter will not grant (it leaves the board); 0, or -1. */
int  arb_undo_declined_seq(const char *text, uint64_t *seq);

#endif
