/*
 * standings.h - a tournament's standings and the results file a rating
 * body imports (docs/TOURNAMENT.md).
 *
 * DESIGN: computed from the recorded results of the tables' matches and
 * nothing else, so anyone holding the matches (a bundle) recomputes them.
 * Only a closed match counts: its totals are final.  In a team game the
 * rule set's totals are per team: each player is credited with the total
 * of their team and the team's result (a team's score is its players'
 * joint work; docs/TOURNAMENT.md).  Integer points only;
 * ties are broken by documented keys and finally by the player's name
 * (bytewise), so the order never depends on input order or a hash.
 *
 * Ownership: arb_standings_match_t borrows everything it points to; the
 * computed arb_standings_t owns its lines and refers back to the input by
 * index, so the writers take both.
 */
#ifndef ARB_STANDINGS_H
#define ARB_STANDINGS_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/hash.h"
#include "core/rules.h"

enum arb_standings_rule {
    ARB_STANDINGS_GP = 0,   /* sum of Game Points (the match totals) */
    ARB_STANDINGS_MP        /* match points: win 2, draw 1, loss 0 */
};
/* "gp"/"mp" to the rule, or -1; and back. */
int         arb_standings_rule_parse(const char *s);
const char *arb_standings_rule_name(int rule);

enum arb_result { ARB_RESULT_LOSS = 0, ARB_RESULT_DRAW, ARB_RESULT_WIN };
const char *arb_result_name(int result);    /* "loss", "draw", "win" */

/* One table's match as recorded (borrowed). */
typedef struct arb_standings_match {
    uint64_t              round;
    const char           *table;
    const char           *match;
    char *const          *players;
    size_t                nplayers;
    char *const          *teams;    /* team of each seat, or NULL: the
                                       totals are per player */
    int                   counted;  /* closed, or forfeited: it counts */
    unsigned              forfeit;  /* seats that forfeited (bit per seat
                                       index): their side loses, the
                                       others win, 0 points each, whatever
                                       its match holds; 0: none */
    int                   played;   /* forfeit: its match was played to
                                       its end (and the tournament's
                                       edition ranks it): the other sides
                                       keep their totals, ranked by them */
    const char           *tournament;   /* forfeit: the tournament and */
    uint64_t              forfeit_seq;  /* its act, what the line names */
    const char           *problem;  /* why a match of the table does not
                                       count although closed (its players
                                       are not the table's, or not on
                                       its sides), or NULL */
    const char           *withheld; /* why the results file leaves this
                                       counted match out while it is not
                                       settled (the latest claim
                                       disputes it; an undo pending at
                                       the close does not), or NULL */
    uint64_t              seq;      /* its last recorded seq */
    const unsigned char  *head;     /* h(seq), or NULL when unknown */
    const arb_results_t  *res;      /* its results (totals), or NULL */
} arb_standings_match_t;

typedef struct arb_standing_entry {
    size_t   m;                     /* index into the input */
    int64_t  gp;
    int      result;                /* enum arb_result */
} arb_standing_entry_t;

typedef struct arb_standing {
    char                 *player;
    uint64_t              rank;     /* 1-based; equal keys share a rank */
    int64_t               gp, mp, best;
    uint32_t              wins, draws, losses;
    size_t                nentries;
    arb_standing_entry_t *entries;  /* counted matches, input order */
    uint64_t              wd_seq;   /* withdrew at this act (0: not), */
    uint64_t              wd_round; /* after this round */
} arb_standing_t;

typedef struct arb_standings {
    int             rule;
    size_t          n;
    arb_standing_t *lines;          /* in rank order */
} arb_standings_t;

void arb_standings_clear(arb_standings_t *s);
/* Every player seated at any table gets a line (0 points until a match of
 * theirs is closed).  0 or ARB_ENOMEM. */
int  arb_standings_compute(arb_standings_t *out,
                           const arb_standings_match_t *in, size_t n,
                           int rule);
/* Marks player's line withdrawn (the tournament's act at seq, after
 * round `round`); it keeps its rank: a withdrawal takes nothing of what
 * was played.  A player without a line is ignored. */
void arb_standings_withdrawn(arb_standings_t *s, const char *player,
                             uint64_t round, uint64_t seq);
/* CSV: rank,player,points,gp,mp,wins,draws,losses,played,matches with
 * matches "MATCH@SEQ;..." (the matches and seqs behind the line). */
void arb_standings_csv(arb_buf_t *b, const arb_standings_t *s,
                       const arb_standings_match_t *in);
/* JSON: {"tournament","rule","standings":[...],"uncounted":[...]
 * (a withdrawn player's line with "withdrawn":{"after_round","seq"})
 * [,"problems":[{"round","table","match","why"}...]]}: problems when a
 * table has one (arb_standings_match_t's problem). */
void arb_standings_json(arb_buf_t *b, const char *tournament,
                        const arb_standings_t *s,
                        const arb_standings_match_t *in, size_t n);
/* The results file for a rating body (format arbiter-results-1): one line
 * per player per closed match, but a forfeited one; a withheld one is
 * named in a comment line after them ("# withheld: ..."). */
void arb_standings_results_csv(arb_buf_t *b, const char *tournament,
                               const arb_standings_match_t *in, size_t n);

#endif
