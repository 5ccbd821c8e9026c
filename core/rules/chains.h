/*
 * chains.h - SKIM-10 "Chains" (docs/rules/chains.md): its cards, cells,
 * table and chain scoring, shared by the rule set (chains.c), the scorer
 * (chains_score.c) and `arbiter score --game chains` (tools/score_chains.c).
 *
 * DESIGN: the table is stored around the first card, which is the origin
 * r0c0, because the rectangle's edges are only known once the cards span
 * it; a cell is written r<row>c<col> (rows grow downwards, columns to the
 * right, negatives allowed) and never renamed during a match.  Scoring
 * works on any rectangular grid of cells so a match's table and a typed
 * final position are scored by the same code.
 *
 * Ownership: tables and grids are plain values; arb_chains_score_t owns
 * its chain array (release with arb_chains_score_clear(), NULL-safe).
 */
#ifndef ARB_CHAINS_H
#define ARB_CHAINS_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/rules.h"

/* A card: suit * 13 + (rank - 2); suits 0..3 = ♠ ♥ ♦ ♣, ranks 2..14
 * (J 11, Q 12, K 13, A 14). */
typedef unsigned char arb_chains_card_t;

#define ARB_CHAINS_CARDS   52
#define ARB_CHAINS_NOCARD  0xff
#define ARB_CHAINS_REACH   60       /* |row| and |col| of a table cell */
#define ARB_CHAINS_SPAN    (2 * ARB_CHAINS_REACH + 1)
#define ARB_CHAINS_GRID_MAX 7       /* a typed grid: at most 7×7 */

enum { ARB_CHAINS_LONG = 0, ARB_CHAINS_SHORT = 1 };      /* teams */
enum { ARB_CHAINS_SQUARE = 0, ARB_CHAINS_SUM = 1 };      /* variants */

static inline int
arb_chains_rank(arb_chains_card_t c)
{
    return c % 13 + 2;
}

static inline int
arb_chains_suit(arb_chains_card_t c)
{
    return c / 13;
}

/* 1 for ♥ and ♦. */
static inline int
arb_chains_red(arb_chains_card_t c)
{
    return c / 13 == 1 || c / 13 == 2;
}

/* Parses one card from s[0..len): rank 2..10 J Q K A (or В Д К Т) then
 * suit ♠ ♥ ♦ ♣ (♤ ♡ ♢ ♧, S H D C, П Ч Б К); letters in either case, a
 * trailing U+FE0F ignored.  ARB_EINVAL with a message in err. */
int    arb_chains_card_parse(arb_chains_card_t *out, const char *s,
                             size_t len, char *err, size_t errlen);
/* "10♠"; out holds at least 8 bytes.  Returns the length. */
size_t arb_chains_card_format(char *out, arb_chains_card_t c);

/* Parses "r<row>c<col>" (case-insensitive, |row|, |col| <= REACH).
 * 0 or ARB_EINVAL. */
int    arb_chains_cell_parse(int *row, int *col, const char *s);
/* "r-1c2"; out holds at least 16 bytes. */
void   arb_chains_cell_format(char *out, int row, int col);

/* How a grid's cells are named in reports: as match cells r<row>c<col>
 * with the top-left cell at (row0, col0), or (frame) as the final frame's
 * a1..g7: column letter from the left, row number from the top. */
typedef struct arb_chains_names {
    int frame;
    int row0, col0;
} arb_chains_names_t;

void   arb_chains_names_cell(char *out, const arb_chains_names_t *nm,
                             int gr, int gc);

/* --- the table of a match (chains_table.c) --------------------------- */

typedef struct arb_chains_table {
    int               size;         /* the rectangle: 6 or 7 */
    int               low;          /* the deck's lowest rank: 6 or 2 */
    int               n;            /* cards on the table */
    int               rmin, rmax, cmin, cmax;   /* span, when n > 0 */
    arb_chains_card_t order[ARB_CHAINS_CARDS];  /* in placing order */
    signed char       row_of[ARB_CHAINS_CARDS];
    signed char       col_of[ARB_CHAINS_CARDS];
    uint64_t          seq_of[ARB_CHAINS_CARDS]; /* 0 = not on the table */
    arb_chains_card_t at[ARB_CHAINS_SPAN][ARB_CHAINS_SPAN];
} arb_chains_table_t;

void arb_chains_table_init(arb_chains_table_t *t, int size, int low);
/* The card at (row, col), or ARB_CHAINS_NOCARD (also outside REACH). */
arb_chains_card_t arb_chains_table_get(const arb_chains_table_t *t, int row,
                                       int col);
/* Judges card c at (row, col) by the placing rules, in this order: the
 * cell is free ("Cell"), the first card is 2..10 ("First card"),
 * Continuity, Rectangle, Diversity, Seniority.  0 or ARB_EILLEGAL; v (may
 * be NULL) names the first broken rule.  *fatal (may be NULL) is set to 1
 * when the move cannot be carried out even by an arbiter's ruling (the
 * cell is taken), else 0. */
int  arb_chains_table_check(const arb_chains_table_t *t, arb_chains_card_t c,
                            int row, int col, int *fatal, arb_verdict_t *v);
/* Puts c at (row, col) without judging it; the cell must be free. */
void arb_chains_table_put(arb_chains_table_t *t, arb_chains_card_t c,
                          int row, int col, uint64_t seq);
/* The first legal placement of a card of `hand` (bit k = card k): cards in
 * deck order (♠ ♥ ♦ ♣, low to high), cells row by row.  1 when found. */
int  arb_chains_table_find(const arb_chains_table_t *t, uint64_t hand,
                           arb_chains_card_t *c, int *row, int *col);

/* --- chains and their points (chains_score.c) ------------------------ */

typedef struct arb_chains_chain {
    int team;               /* ARB_CHAINS_LONG: horizontal; SHORT: vertical */
    int row, col;           /* grid index of its first (top or left) cell */
    int len;
    int points;
} arb_chains_chain_t;

typedef struct arb_chains_score {
    size_t              n;
    arb_chains_chain_t *chains;     /* long's rows top to bottom, then
                                       short's columns left to right */
    int64_t             total[2];   /* by team */
} arb_chains_score_t;

/* Finds every chain of a rows × cols grid (row-major, NOCARD = empty):
 * maximal straight runs of one colour whose ranks step by exactly one in
 * one direction, at least two cards; a run that turns splits at the
 * turning card, which belongs to both.  0 or ARB_ENOMEM. */
int  arb_chains_score(arb_chains_score_t *out, const arb_chains_card_t *cells,
                      int rows, int cols, int variant);
void arb_chains_score_clear(arb_chains_score_t *s);

/* Parses a typed final position: one row per line, cells separated by
 * blanks, a card or `--` (or `.`) for an empty cell; blank lines and lines
 * starting with '#' are skipped.  At most GRID_MAX × GRID_MAX, every row
 * as wide as the first, no card twice.  cells holds GRID_MAX² entries.
 * 0, or ARB_EINVAL with "line N: ..." in err. */
int  arb_chains_grid_parse(arb_chains_card_t *cells, int *rows, int *cols,
                           const char *text, size_t len, char *err,
                           size_t errlen);

/* Writes the chains and totals: text, one chain a line
 *   long horizontal a1..e1 A♠ K♣ Q♠ J♣ 10♠ 25
 * then "total long N" and "total short N"; or (json) one object
 *   {"scoring":..,"chains":[{team,direction,cells,cards,length,points}],
 *    "totals":{"long":N,"short":N}}. */
void arb_chains_report(arb_buf_t *b, const arb_chains_card_t *cells,
                       int cols, const arb_chains_score_t *s,
                       const arb_chains_names_t *nm, int variant, int json);

const char *arb_chains_team_name(int team);        /* "long", "short" */
const char *arb_chains_direction(int team);        /* "horizontal", ... */
const char *arb_chains_variant_name(int variant);  /* "square", "sum" */

#endif
