/*
 * tsuku_game.h - the Tsukurutenten rule set's state, shared by its two
 * files: tsukurutenten.c (setup, deals and moves) and tsuku_report.c
 * (results, digest, describe).  Internal to the rule set.
 */
#ifndef ARB_TSUKU_GAME_H
#define ARB_TSUKU_GAME_H

#include <stdint.h>

#include "core/buf.h"
#include "core/digest.h"
#include "core/rules.h"
#include "core/rules/tsuku_bonus.h"

#define TSUKU_PLAYERS_MIN 2
#define TSUKU_PLAYERS_MAX 4
#define TSUKU_SIMPLE_GOAL 4
#define TSUKU_EXT_GOAL    25
#define TSUKU_DEALS_EACH  2     /* extended: the game ends after every
                                   player has dealt this many rounds */

enum tsuku_phase {
    TSUKU_PH_DEAL = 0,      /* the round's deal must be recorded */
    TSUKU_PH_ACTION,        /* draw, take or finish from the discard */
    TSUKU_PH_DRAWN,         /* drew: discard or finish */
    TSUKU_PH_TAKEN,         /* took: discard */
    TSUKU_PH_OVER           /* the game is over */
};

enum tsuku_result { TSUKU_WIN = 0, TSUKU_EXHAUSTED };
enum tsuku_from { TSUKU_FROM_STOCK = 0, TSUKU_FROM_DISCARD };
enum tsuku_end { TSUKU_END_NONE = 0, TSUKU_END_GOAL, TSUKU_END_DEALS };

typedef struct tsuku_player {
    char            *name;
    int              hand[ARB_TSUKU_KINDS];    /* concealed chips */
    int              nopen;
    arb_tsuku_set_t  open[ARB_TSUKU_SETS_MAX];
    int              ndiscards;
    int              discards[ARB_TSUKU_CHIPS]; /* kinds, oldest first */
    int              turns;         /* turns completed this round */
    int64_t          points;
} tsuku_player_t;

/* One round's result record. */
typedef struct tsuku_rec {
    uint64_t          seq;
    int               round, dealer, result, winner, from, discarder;
    int               declared;     /* 1: the player gave the arrangement */
    int               narr;         /* arrangements worth 10 of the hand */
    arb_tsuku_arr_t   arr;
    arb_tsuku_score_t score;
    int64_t           totals[TSUKU_PLAYERS_MAX];  /* after the round */
} tsuku_rec_t;

typedef struct arb__tsuku {
    int             extended, nplayers, first_dealer;
    int             end_deals;      /* the game also ends when everyone has
                                       dealt TSUKU_DEALS_EACH rounds */
    int             heaven_dealer;  /* heaven only on the dealer's turn */
    int             excl_literal;   /* the second exclusion as written */
    int             last_discard;   /* edition 3: a round whose stock ran
                                       out waits for the next player to
                                       finish with the last discard, or
                                       pass (edition 1-2: it ended at that
                                       discard) */
    unsigned        nondefault;     /* options not at the edition's
                                       default (bit per option) */
    char           *match_id;
    char           *seed;           /* seed deal, or NULL */
    int            *orders;         /* header order: 61 kinds per round */
    int             norders;        /* rounds the header order covers */
    tsuku_player_t  p[TSUKU_PLAYERS_MAX];

    int             round;          /* 1.. */
    int             dealer, turn, phase;
    int             stock[ARB_TSUKU_CHIPS];     /* the round's order */
    int             top;            /* next chip to draw */
    int             live;           /* kind of the discard that may be
                                       taken, or -1 */
    int             live_by;        /* its discarder's seat */

    int             ended;          /* TSUKU_END_* */
    unsigned        winners;        /* seats, when ended */
    uint64_t        end_seq;

    size_t          nrecs, caprecs;
    tsuku_rec_t    *recs;
} arb__tsuku_t;

int  arb__tsuku_results(const void *st, arb_results_t *out);
void arb__tsuku_digest(const void *st, arb_digest_t *d);
struct json_t *arb__tsuku_describe(const void *st, unsigned seen);
/* "a player reached the goal of 4 points; the game goes to ann", or "". */
void arb__tsuku_end_text(const arb__tsuku_t *t, char *out, size_t len);

#endif
