/*
 * tsuku_hand.h - arranging a Tsukurutenten hand: which chips form sets,
 * which purple chips play as which colour, and what the hand is worth.
 *
 * DESIGN: the finish search is exhaustive, never greedy.  A hand has at
 * most eight concealed chips, so every split into zero, one or two sets
 * (at most 1 + 56 + 280 splits) times every colour of every purple chip
 * (at most 16) is tried, and arrangements that differ only by which of two
 * identical chips went where are merged through their canonical text.
 * That is a few thousand cheap checks: no cleverness is worth the risk of
 * missing an arrangement.
 *
 * Canonical text of an arrangement (its concealed part, which is also how
 * a finish declares it): the concealed sets, each written B1+B2+B3 in value
 * order and sorted as strings, then the single chips in chip order, purple
 * chips with their colour: "B1+B2+B3 R4+R5+R6 B7 P7b".
 */
#ifndef ARB_TSUKU_HAND_H
#define ARB_TSUKU_HAND_H

#include <stddef.h>

#include "core/rules/tsuku_chip.h"

#define ARB_TSUKU_SETS_MAX 2        /* two sets of three fit in 8 chips */
#define ARB_TSUKU_TEXT_MAX 48

typedef struct arb_tsuku_arr {
    int              nopen;         /* sets[0..nopen) are the open sets */
    int              nsets;         /* open and concealed */
    arb_tsuku_set_t  sets[ARB_TSUKU_SETS_MAX];
    int              nsingles;
    arb_tsuku_chip_t singles[ARB_TSUKU_FULL];  /* every colour chosen */
    int              value;
    char             text[ARB_TSUKU_TEXT_MAX]; /* canonical concealed part */
} arb_tsuku_arr_t;

/* Parses a declared arrangement of the concealed chips counts[] (counts
 * per kind), next to the open sets open[0..nopen): each word is a set
 * (three chips joined by '+') or a single chip; chips not named are
 * singles; a purple chip outside a set must be named with its colour.
 * Fills *a (value included, whatever it is).  0, or ARB_EILLEGAL /
 * ARB_EINVAL with a sentence in why. */
int arb_tsuku_arr_parse(arb_tsuku_arr_t *a, const arb_tsuku_set_t *open,
                        int nopen, const int counts[ARB_TSUKU_KINDS],
                        char *const *words, size_t nwords, char *why,
                        size_t whylen);

/* Every arrangement of the hand worth exactly `target`, in canonical text
 * order, each once.  *out is malloc'd (NULL when *n is 0); free() it.
 * 0 or ARB_ENOMEM. */
int arb_tsuku_arr_search(arb_tsuku_arr_t **out, size_t *n,
                         const arb_tsuku_set_t *open, int nopen,
                         const int counts[ARB_TSUKU_KINDS], int target);

/* Sorts the concealed part, computes value and text.  Used by the parser
 * and the search; exposed for tests. */
void arb_tsuku_arr_canon(arb_tsuku_arr_t *a);

/* The eight chips, each as played, in canonical chip order. */
void arb_tsuku_arr_chips(const arb_tsuku_arr_t *a,
                         arb_tsuku_chip_t out[ARB_TSUKU_FULL]);

#endif
