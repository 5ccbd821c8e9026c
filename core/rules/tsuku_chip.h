/*
 * tsuku_chip.h - Tsukurutenten chips, their notation and the three kinds
 * of set (docs/rules/tsukurutenten.md).
 *
 * DESIGN: physical chips of one colour and value are interchangeable, so a
 * chip is its kind (19 kinds: B1..B7, R0..R7, P5..P8) plus, for a purple
 * chip, the colour it plays as once that is chosen.  Hands are counts per
 * kind; nothing ever needs to tell two blue 4s apart.
 *
 * Notation: a colour letter and a value, `B4`, `R0`, `P7`; a purple chip
 * may carry the colour it plays as, `P7b` / `P7r`.  Letters are
 * case-insensitive on input; output is `B4`, `P7b`.
 */
#ifndef ARB_TSUKU_CHIP_H
#define ARB_TSUKU_CHIP_H

#include <stddef.h>

#define ARB_TSUKU_KINDS   19    /* B1..B7, R0..R7, P5..P8 */
#define ARB_TSUKU_CHIPS   61    /* physical chips in the set */
#define ARB_TSUKU_DEALT   7     /* chips dealt to each player */
#define ARB_TSUKU_FULL    8     /* chips of a finished hand */
#define ARB_TSUKU_TARGET  10    /* what a finished hand is worth */

enum arb_tsuku_colour {
    ARB_TSUKU_ANY = -1,         /* a purple chip whose colour is not chosen */
    ARB_TSUKU_BLUE = 0,
    ARB_TSUKU_RED = 1,
    ARB_TSUKU_PURPLE = 2
};

typedef struct arb_tsuku_chip {
    int kind;                   /* 0..ARB_TSUKU_KINDS-1 */
    int as;                     /* BLUE or RED as played; ANY for a purple
                                   chip whose colour is still open */
} arb_tsuku_chip_t;

/* Kinds: 0..6 = B1..B7, 7..14 = R0..R7, 15..18 = P5..P8. */
int arb_tsuku_kind_colour(int kind);        /* BLUE, RED or PURPLE */
int arb_tsuku_kind_value(int kind);
int arb_tsuku_kind_copies(int kind);        /* 4, or 1 for R0 and purple */
int arb_tsuku_kind_of(int colour, int value);   /* the kind, or -1 */

/* The canonical chip order that seeded shuffles start from (docs/DEAL.md):
 * B1 ×4 … B7 ×4, R0, R1 ×4 … R7 ×4, P5, P6, P7, P8. */
void arb_tsuku_deck(int kinds[ARB_TSUKU_CHIPS]);

/* Parses one chip from s[0..len).  A colour suffix (P7b, P7r) is accepted
 * only when with_colour is set and only on a purple chip.  0, or
 * ARB_EINVAL with a sentence in err. */
int arb_tsuku_chip_parse(arb_tsuku_chip_t *c, const char *s, size_t len,
                         int with_colour, char *err, size_t errlen);

/* Parses a word of concatenated chips without colour suffixes
 * ("B1B2R0P7"), appending their kinds to kinds[*n..max).  0, or
 * ARB_EINVAL with a sentence in err. */
int arb_tsuku_chips_parse(int *kinds, size_t max, size_t *n, const char *s,
                          char *err, size_t errlen);

/* "B4", "P7", "P7b": out needs 8 bytes. */
void arb_tsuku_chip_format(char *out, arb_tsuku_chip_t c);
/* "blue 4", "purple 7", "purple 7 as red", for messages. */
void arb_tsuku_chip_words(char *out, size_t len, arb_tsuku_chip_t c);
/* Canonical order: kind, then the colour played as. */
int  arb_tsuku_chip_cmp(const arb_tsuku_chip_t *a, const arb_tsuku_chip_t *b);
/* A chip of `kind` playing as its own colour (ANY for purple). */
arb_tsuku_chip_t arb_tsuku_chip_of(int kind);

/* Sets: three chips of one colour, consecutive (a run) or equal (a
 * triple). */
enum arb_tsuku_form { ARB_TSUKU_RUN = 0, ARB_TSUKU_TRIPLE = 1 };

typedef struct arb_tsuku_set {
    arb_tsuku_chip_t c[3];      /* by value; purple chips play as colour */
    int              colour;    /* BLUE or RED */
    int              form;
    int              value;     /* blue run: lowest, red run: highest,
                                   triple: 0 */
} arb_tsuku_set_t;

/* Judges three chips as a set.  A purple chip takes the colour of the
 * others; one that names another colour, or three purple chips naming
 * none, is refused.  0 with *out filled, or ARB_EILLEGAL with why =
 * "blue 4, red 5, blue 6 is not a set: colours differ" (why may be NULL
 * with whylen 0: no reason is written). */
int  arb_tsuku_set_make(arb_tsuku_set_t *out, const arb_tsuku_chip_t in[3],
                        char *why, size_t whylen);
/* "B4+P5b+B6": out needs ARB_TSUKU_SET_TEXT bytes. */
#define ARB_TSUKU_SET_TEXT 24
void arb_tsuku_set_format(char *out, const arb_tsuku_set_t *s);

#endif
