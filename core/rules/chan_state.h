/*
 * chan_state.h - the live state of one Chắn hand, shared by chan.c (the
 * rule-set interface: setup, results, digest, describe) and chan_play.c
 * (judging moves).  Internal to the rule set.
 *
 * DESIGN: the state is one flat struct without pointers, so apply can
 * judge a move on a scratch copy and commit it with one assignment: a
 * refused move leaves the state untouched by construction.
 *
 * The table holds at most one live card: a discard, or a stock card
 * flipped into its flipper's gate.  `gate` is the seat it faces (whose
 * turn it is to take it or pass it on); `passed` the seats that declined
 * it.  It stays live for Chíu and win claims until it is captured or the
 * next stock card is flipped.
 */
#ifndef ARB_CHAN_STATE_H
#define ARB_CHAN_STATE_H

#include <stdint.h>

#include "core/rules.h"
#include "core/rules/chan_card.h"
#include "core/rules/chan_score.h"

#define CHAN_SEATS      4
#define CHAN_DEALER_N   20
#define CHAN_OTHER_N    19
#define CHAN_STOCK      23
#define CHAN_NAME       65      /* arb_name_valid(): 1..64 bytes */
/* Editions, newest first: 2 judges exposed Cạ by the no-split rule and
 * lets no dealer holding Thiên ù play dead; 3 lets no pass of the last
 * stock card end the hand while a claim on it is declared; 4 bars a face
 * whose Chắn capture was declined from a Cạ of the winning hand too
 * (docs/rules/chan.md). */
#define CHAN_EDITION    "Chan-100-cardavia-uk-4"
#define CHAN_EDITION_3  "Chan-100-cardavia-uk-3"
#define CHAN_EDITION_2  "Chan-100-cardavia-uk-2"
#define CHAN_EDITION_1  "Chan-100-cardavia-uk"

/* Readings of play (beside the ARB_CHAN_R_* of scoring). */
#define CHAN_RD_BAR_TAKE    0x100u  /* a discarded face is barred from an
                                       ordinary capture only */
#define CHAN_RD_DEAD_HEAVEN 0x200u  /* edition 1: a dealer holding Thiên ù
                                       could play dead */
#define CHAN_RD_LAST_PASS   0x400u  /* editions 1, 2: the last stock card's
                                       pass ended the hand as a draw with
                                       a claim on it declared */
#define CHAN_RD_DECLINED_WIN 0x800u /* editions 1-3: a face whose Chắn
                                       capture was declined could still go
                                       into a Cạ of the winning hand */
#define CHAN_RD_OPTIONS     (ARB_CHAN_R_TOM_LITERAL | ARB_CHAN_R_EACH \
                             | CHAN_RD_BAR_TAKE)   /* set by options */

enum chan_phase {
    PH_OPEN = 0,        /* the dealer discards first, or wins (Thiên ù) */
    PH_DISCARD,         /* `actor` captured or Chíu'd and must discard */
    PH_OFFER,           /* the table card faces `gate` */
    PH_DRAW,            /* `actor` passed the table card and must flip */
    PH_OVER
};

enum chan_origin { ORG_NONE = 0, ORG_DISCARD, ORG_STOCK };

/* Declared claims; also the verbs' claim kinds. */
enum chan_claim { CL_NONE = 0, CL_WIN, CL_CHIU, CL_TAKE };

enum chan_end { END_NONE = 0, END_WIN, END_DRAW };

typedef struct chan_seat {
    char             name[CHAN_NAME];
    unsigned char    hand[ARB_CHAN_FACES];      /* concealed counts */
    int              ngroups;
    arb_chan_group_t groups[ARB_CHAN_GROUPS_MAX];   /* exposed, in order */
    uint32_t         discarded;     /* faces it discarded (bit = face) */
    uint32_t         ca_used;       /* faces it played from hand into Cạ */
    uint32_t         declined;      /* faces whose Chắn capture it passed */
    unsigned char    disc_suits[ARB_CHAN_RANKS];    /* suits discarded */
    unsigned char    ca_taken;      /* it has captured a Cạ */
    unsigned char    dead;          /* dead hand (seed §3, dealer only) */
    int              claim;         /* pending declaration, CL_* */
    uint64_t         claim_seq;
    int              ndisc, nflip;  /* public piles, for describe */
    unsigned char    disc[ARB_CHAN_DECK];
    unsigned char    flip[CHAN_STOCK];
} chan_seat_t;

typedef struct chan {
    char              match_id[CHAN_NAME];
    const char       *edition;      /* static: the recorded edition */
    unsigned          readings;     /* ARB_CHAN_R_* | CHAN_RD_* */
    int               dealer;
    unsigned char     stock[CHAN_STOCK];
    int               stock_pos;    /* next card to flip */
    int               phase;
    int               actor;        /* PH_OPEN, PH_DISCARD, PH_DRAW */
    int               next_gate;    /* PH_DISCARD: the seat it will face */
    int               table;        /* face, or -1 */
    int               origin;
    int               from;         /* seat that discarded / flipped it */
    int               gate;
    unsigned          passed;       /* bit per seat */
    chan_seat_t       seat[CHAN_SEATS];

    int               ended;        /* END_* */
    uint64_t          end_seq;
    int               winner, won, win_face, win_from;
    arb_chan_layout_t layout;
    arb_chan_score_t  score;
    int64_t           totals[CHAN_SEATS];
} chan_t;

static inline int
chan_next(int seat)
{
    return (seat + 1) % CHAN_SEATS;
}

/* Judges and applies one move (chan_play.c). */
int arb__chan_apply(void *st, const arb_event_t *ev, int flags,
                    arb_verdict_t *v);

#endif
