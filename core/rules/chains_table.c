/*
 * chains_table.c - the table of a Chains match and the four placing
 * principles of the SKIM family (Continuity, Rectangle, Diversity,
 * Seniority), docs/rules/chains.md.
 *
 * DESIGN: the Rectangle is checked as "a card may not stretch the span of
 * the table beyond size × size in either direction".  That is the seed's
 * rule (the frame is fixed in a direction exactly when the cards span it),
 * and it also keeps a table that an arbiter's ruling let grow too large
 * playable inside its span instead of freezing the match.
 */
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "core/rules/chains.h"

/* up, down, left, right: the order in which neighbours are named */
static const int dr[4] = { -1, 1, 0, 0 };
static const int dc[4] = { 0, 0, -1, 1 };

void
arb_chains_table_init(arb_chains_table_t *t, int size, int low)
{
    memset(t, 0, sizeof(*t));
    memset(t->at, ARB_CHAINS_NOCARD, sizeof(t->at));
    t->size = size;
    t->low = low;
}

arb_chains_card_t
arb_chains_table_get(const arb_chains_table_t *t, int row, int col)
{
    if (row < -ARB_CHAINS_REACH || row > ARB_CHAINS_REACH
        || col < -ARB_CHAINS_REACH || col > ARB_CHAINS_REACH)
        return ARB_CHAINS_NOCARD;
    return t->at[row + ARB_CHAINS_REACH][col + ARB_CHAINS_REACH];
}

void
arb_chains_table_put(arb_chains_table_t *t, arb_chains_card_t c, int row,
                     int col, uint64_t seq)
{
    if (t->n == 0) {
        t->rmin = t->rmax = row;
        t->cmin = t->cmax = col;
    }
    if (row < t->rmin)
        t->rmin = row;
    if (row > t->rmax)
        t->rmax = row;
    if (col < t->cmin)
        t->cmin = col;
    if (col > t->cmax)
        t->cmax = col;
    t->at[row + ARB_CHAINS_REACH][col + ARB_CHAINS_REACH] = c;
    t->row_of[c] = (signed char)row;
    t->col_of[c] = (signed char)col;
    t->seq_of[c] = seq ? seq : 1;
    t->order[t->n++] = c;
}

/* Names a card and its cell: "9♥ at r0c2". */
static void
card_at(char *out, size_t n, arb_chains_card_t c, int row, int col)
{
    char a[8], cell[16];

    arb_chains_card_format(a, c);
    arb_chains_cell_format(cell, row, col);
    snprintf(out, n, "%s at %s", a, cell);
}

/* The Rectangle along one direction: lo..hi is the span so far.  A card
 * touching the table can stretch a span by one at most, so the span is
 * already full (fixed) whenever this refuses. */
static int
rect_check(const arb_chains_table_t *t, int lo, int hi, int at, char what,
           const char *plural, const char *card, const char *cell,
           arb_verdict_t *v)
{
    int nlo = at < lo ? at : lo, nhi = at > hi ? at : hi;

    if (nhi - nlo + 1 <= t->size || (nlo == lo && nhi == hi))
        return 0;
    if (v == NULL)
        return ARB_EILLEGAL;
    return arb_verdict(v, ARB_EILLEGAL, "Rectangle",
                       "the %s are fixed at %c%d..%c%d (the "
                       "cards span %d of the %d×%d rectangle), so %s cannot "
                       "go at %s", plural, what, lo, what, hi, hi - lo + 1,
                       t->size, t->size, card, cell);
}

int
arb_chains_table_check(const arb_chains_table_t *t, arb_chains_card_t c,
                       int row, int col, int *fatal, arb_verdict_t *v)
{
    arb_chains_card_t nb[4], x;
    char              a[8], cell[16], who[64], list[200];
    int               k, touching = 0, own = 0, higher = 0, rc;
    size_t            len;

    if (fatal != NULL)
        *fatal = 0;
    x = arb_chains_table_get(t, row, col);
    if (v != NULL) {
        arb_chains_card_format(a, c);
        arb_chains_cell_format(cell, row, col);
    }
    if (x != ARB_CHAINS_NOCARD) {
        if (fatal != NULL)
            *fatal = 1;
        if (v == NULL)
            return ARB_EILLEGAL;
        arb_chains_card_format(who, x);
        return arb_verdict(v, ARB_EILLEGAL, "Cell",
                           "%s is taken by %s (seq %llu)", cell, who,
                           (unsigned long long)t->seq_of[x]);
    }
    if (t->n == 0) {
        if (arb_chains_rank(c) <= 10)
            return 0;
        if (v == NULL)
            return ARB_EILLEGAL;
        return arb_verdict(v, ARB_EILLEGAL, "First card",
                           "the match opens with a card of rank "
                           "%d..10, and %s is not one", t->low, a);
    }

    for (k = 0; k < 4; k++) {
        nb[k] = arb_chains_table_get(t, row + dr[k], col + dc[k]);
        if (nb[k] == ARB_CHAINS_NOCARD)
            continue;
        touching++;
        if (arb_chains_red(nb[k]) == arb_chains_red(c))
            own++;
        else if (arb_chains_rank(c) > arb_chains_rank(nb[k]))
            higher++;
    }
    if (touching == 0) {
        if (v == NULL)
            return ARB_EILLEGAL;
        return arb_verdict(v, ARB_EILLEGAL, "Continuity",
                           "%s at %s would touch no card on the "
                           "table (a card must touch a placed card side to "
                           "side or end to end)", a, cell);
    }
    rc = rect_check(t, t->rmin, t->rmax, row, 'r', "rows", a, cell, v);
    if (rc == 0)
        rc = rect_check(t, t->cmin, t->cmax, col, 'c', "columns", a, cell,
                        v);
    if (rc != 0)
        return rc;
    for (k = 0; k < 4; k++) {
        if (nb[k] == ARB_CHAINS_NOCARD
            || arb_chains_suit(nb[k]) != arb_chains_suit(c))
            continue;
        if (v == NULL)
            return ARB_EILLEGAL;
        card_at(who, sizeof(who), nb[k], row + dr[k], col + dc[k]);
        return arb_verdict(v, ARB_EILLEGAL, "Diversity",
                           "%s at %s would touch %s, a card of "
                           "the same suit", a, cell, who);
    }
    if (own > 0 || higher > 0)
        return 0;
    if (v == NULL)
        return ARB_EILLEGAL;
    list[0] = '\0';
    for (k = 0, len = 0; k < 4; k++) {
        if (nb[k] == ARB_CHAINS_NOCARD)
            continue;
        card_at(who, sizeof(who), nb[k], row + dr[k], col + dc[k]);
        snprintf(list + len, sizeof(list) - len, "%s%s", len ? ", " : "",
                 who);
        len = strlen(list);
    }
    return arb_verdict(v, ARB_EILLEGAL, "Seniority",
                       "%s at %s touches no card of its own "
                       "colour, so it must be higher than at least one of "
                       "the cards of the other colour it touches, and it is "
                       "not: %s", a, cell, list);
}

int
arb_chains_table_find(const arb_chains_table_t *t, uint64_t hand,
                      arb_chains_card_t *c, int *row, int *col)
{
    int k, r, q;

    for (k = 0; k < ARB_CHAINS_CARDS; k++) {
        if (!(hand >> k & 1))
            continue;
        if (t->n == 0) {
            if (arb_chains_table_check(t, (arb_chains_card_t)k, 0, 0, NULL,
                                       NULL) != 0)
                continue;
            *c = (arb_chains_card_t)k;
            *row = *col = 0;
            return 1;
        }
        for (r = t->rmin - 1; r <= t->rmax + 1; r++)
            for (q = t->cmin - 1; q <= t->cmax + 1; q++) {
                if (r < -ARB_CHAINS_REACH || r > ARB_CHAINS_REACH
                    || q < -ARB_CHAINS_REACH || q > ARB_CHAINS_REACH)
                    continue;
                if (arb_chains_table_check(t, (arb_chains_card_t)k, r, q,
                                           NULL, NULL) != 0)
                    continue;
                *c = (arb_chains_card_t)k;
                *row = r;
                *col = q;
                return 1;
            }
    }
    return 0;
}
