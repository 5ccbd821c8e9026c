/*
 * tsuku_bonus.h - what a winning Tsukurutenten hand scores: 1 point in the
 * simple system; in the extended system a base (3 for the dealer, 2 for
 * the others) plus every hand bonus of the table, minus those a more
 * valuable bonus of the same exclusion group overrides.
 *
 * DESIGN: bonuses look at the eight chips as played (purple chips in the
 * colour of their set or the colour declared for them), so the same chips
 * arranged with other purple colours may score differently; that is why
 * the finish search scores every arrangement and keeps the best.  Groups
 * of identical chips (same colour and value as played) are counted once:
 * a group of exactly three is "a three", a group of four or more is "a
 * four" — the reading is argued in docs/rules/tsukurutenten.md.
 */
#ifndef ARB_TSUKU_BONUS_H
#define ARB_TSUKU_BONUS_H

#include "core/rules/tsuku_hand.h"

/* In the order of the seed's table. */
enum arb_tsuku_bonus {
    ARB_TB_CLOSED = 0,      /* 1  no open set */
    ARB_TB_NO_ONES,         /* 1  no chip of value 1 */
    ARB_TB_THREE,           /* 1  a three (single triple) */
    ARB_TB_HALF,            /* 1  four red and four blue */
    ARB_TB_SEVEN,           /* 1  a 7 */
    ARB_TB_STRAIGHT,        /* 1  five consecutive values of one colour */
    ARB_TB_TWO_BLUES,       /* 1  exactly two blue */
    ARB_TB_UNDER_FIVE,      /* 2  every value below 5 */
    ARB_TB_FOUR,            /* 2  a four (single four) */
    ARB_TB_ONE_COLOUR,      /* 2  one colour, +1 when red */
    ARB_TB_EIGHT,           /* 2  an 8 */
    ARB_TB_DOUBLE_THREE,    /* 3  two threes, +1 of one value */
    ARB_TB_HEAVEN,          /* 3  finished by a draw on one's first turn */
    ARB_TB_MULTI,           /* 5  a three and a four */
    ARB_TB_DOUBLE_FOUR,     /* 10 two fours */
    ARB_TB_DIVINE,          /* 25 every chip of one value */
    ARB_TB_COUNT
};

typedef struct arb_tsuku_ctx {
    int extended;           /* 0: simple scoring */
    int dealer;             /* the winner deals this round */
    int heaven;             /* finished by a draw on the winner's first turn */
    int excl_literal;       /* the second exclusion sentence as written:
                               {three, double four} instead of {three,
                               double three} (docs/rules/tsukurutenten.md) */
} arb_tsuku_ctx_t;

typedef struct arb_tsuku_score {
    int      base;                  /* 1 simple; 3 dealer, 2 others */
    unsigned mask;                  /* bonuses awarded (bit = enum) */
    int      pts[ARB_TB_COUNT];     /* points of each awarded bonus */
    int      points;                /* base + awarded bonuses */
} arb_tsuku_score_t;

/* "closed-hand", "no-ones", ... "divine-ten". */
const char *arb_tsuku_bonus_name(int bonus);

/* Every bonus the hand meets, before exclusions; pts[] gets each one's
 * points (one colour and double three with their +1). */
unsigned arb_tsuku_bonus_applies(const arb_tsuku_arr_t *a, int heaven,
                                 int pts[ARB_TB_COUNT]);

/* Removes from `mask` every bonus that a more valuable bonus of one of its
 * exclusion groups also in `mask` overrides: {three, four, multi, double
 * four} and {three, double three} - or, with `literal`, {three, double
 * four} as the second sentence is written (it repeats part of the first). */
unsigned arb_tsuku_bonus_exclude(unsigned mask, int literal);

void arb_tsuku_score(arb_tsuku_score_t *s, const arb_tsuku_arr_t *a,
                     const arb_tsuku_ctx_t *ctx);

/* The index of the best-scoring of v[0..n) (the first on a tie: v is in
 * canonical order), its score in *s.  n must be > 0. */
size_t arb_tsuku_best(const arb_tsuku_arr_t *v, size_t n,
                      const arb_tsuku_ctx_t *ctx, arb_tsuku_score_t *s);

#endif
