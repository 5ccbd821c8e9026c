#include <string.h>

#include "core/rules/tsuku_bonus.h"

static const struct {
    const char *name;
    int         points;
} table[ARB_TB_COUNT] = {
    { "closed-hand", 1 },
    { "no-ones", 1 },
    { "single-three", 1 },
    { "half-colour", 1 },
    { "seven", 1 },
    { "straight", 1 },
    { "two-blues", 1 },
    { "under-five", 2 },
    { "single-four", 2 },
    { "one-colour", 2 },
    { "eight", 2 },
    { "double-three", 3 },
    { "heaven", 3 },
    { "multi", 5 },
    { "double-four", 10 },
    { "divine-ten", 25 },
};

/* The exclusion groups, most valuable first. */
static const int group_a[] = { ARB_TB_DOUBLE_FOUR, ARB_TB_MULTI, ARB_TB_FOUR,
                               ARB_TB_THREE, -1 };
static const int group_b[] = { ARB_TB_DOUBLE_THREE, ARB_TB_THREE, -1 };
/* "Тройка (одиночная) и Двойка (двойная)" read as written */
static const int group_b_literal[] = { ARB_TB_DOUBLE_FOUR, ARB_TB_THREE, -1 };

const char *
arb_tsuku_bonus_name(int bonus)
{
    return bonus >= 0 && bonus < ARB_TB_COUNT ? table[bonus].name : "?";
}

unsigned
arb_tsuku_bonus_applies(const arb_tsuku_arr_t *a, int heaven,
                        int pts[ARB_TB_COUNT])
{
    arb_tsuku_chip_t c[ARB_TSUKU_FULL];
    int      m[2][9], col, v, i, run, best, ncol[2] = { 0, 0 };
    int      threes = 0, fours = 0, three_v[2] = { -1, -1 };
    int      ones = 0, sevens = 0, eights = 0, low = 1, same = 1;
    unsigned mask = 0;

    memset(m, 0, sizeof(m));
    memset(pts, 0, ARB_TB_COUNT * sizeof(pts[0]));
    arb_tsuku_arr_chips(a, c);
    for (i = 0; i < ARB_TSUKU_FULL; i++) {
        col = c[i].as == ARB_TSUKU_RED ? 1 : 0;
        v = arb_tsuku_kind_value(c[i].kind);
        m[col][v]++;
        ncol[col]++;
        ones += v == 1;
        sevens += v == 7;
        eights += v == 8;
        low &= v < 5;
        same &= v == arb_tsuku_kind_value(c[0].kind);
    }
    best = 0;
    for (col = 0; col < 2; col++) {
        run = 0;
        for (v = 0; v <= 8; v++) {
            run = m[col][v] > 0 ? run + 1 : 0;
            if (run > best)
                best = run;
            if (m[col][v] == 3 && threes < 2)
                three_v[threes] = v;
            threes += m[col][v] == 3;
            fours += m[col][v] >= 4;
        }
    }

#define AWARD(b, p) (mask |= 1u << (b), pts[b] = (p))
    if (a->nopen == 0)
        AWARD(ARB_TB_CLOSED, 1);
    if (ones == 0)
        AWARD(ARB_TB_NO_ONES, 1);
    if (threes >= 1)
        AWARD(ARB_TB_THREE, 1);
    if (ncol[0] == 4 && ncol[1] == 4)
        AWARD(ARB_TB_HALF, 1);
    if (sevens > 0)
        AWARD(ARB_TB_SEVEN, 1);
    if (best >= 5)
        AWARD(ARB_TB_STRAIGHT, 1);
    if (ncol[0] == 2)
        AWARD(ARB_TB_TWO_BLUES, 1);
    if (low)
        AWARD(ARB_TB_UNDER_FIVE, 2);
    if (fours >= 1)
        AWARD(ARB_TB_FOUR, 2);
    if (ncol[0] == 0 || ncol[1] == 0)
        AWARD(ARB_TB_ONE_COLOUR, ncol[0] == 0 ? 3 : 2);
    if (eights > 0)
        AWARD(ARB_TB_EIGHT, 2);
    if (threes >= 2)
        AWARD(ARB_TB_DOUBLE_THREE, three_v[0] == three_v[1] ? 4 : 3);
    if (heaven)
        AWARD(ARB_TB_HEAVEN, 3);
    if (threes >= 1 && fours >= 1)
        AWARD(ARB_TB_MULTI, 5);
    if (fours >= 2)
        AWARD(ARB_TB_DOUBLE_FOUR, 10);
    if (same)
        AWARD(ARB_TB_DIVINE, 25);
#undef AWARD
    return mask;
}

static unsigned
keep_top(unsigned mask, const int *group)
{
    int i, found = 0;

    for (i = 0; group[i] >= 0; i++) {
        if (!(mask & (1u << group[i])))
            continue;
        if (found)
            mask &= ~(1u << group[i]);
        found = 1;
    }
    return mask;
}

unsigned
arb_tsuku_bonus_exclude(unsigned mask, int literal)
{
    /* A bonus stands only when no more valuable member of any of its
     * groups applies; both groups are judged on the hand's full mask. */
    return keep_top(mask, group_a)
           & keep_top(mask, literal ? group_b_literal : group_b);
}

void
arb_tsuku_score(arb_tsuku_score_t *s, const arb_tsuku_arr_t *a,
                const arb_tsuku_ctx_t *ctx)
{
    int pts[ARB_TB_COUNT], b;

    memset(s, 0, sizeof(*s));
    if (!ctx->extended) {
        s->base = s->points = 1;
        return;
    }
    s->base = ctx->dealer ? 3 : 2;
    s->points = s->base;
    s->mask = arb_tsuku_bonus_exclude(arb_tsuku_bonus_applies(a, ctx->heaven,
                                                              pts),
                                      ctx->excl_literal);
    for (b = 0; b < ARB_TB_COUNT; b++)
        if (s->mask & (1u << b)) {
            s->pts[b] = pts[b];
            s->points += pts[b];
        }
}

size_t
arb_tsuku_best(const arb_tsuku_arr_t *v, size_t n,
               const arb_tsuku_ctx_t *ctx, arb_tsuku_score_t *s)
{
    arb_tsuku_score_t cur;
    size_t            i, best = 0;

    arb_tsuku_score(s, &v[0], ctx);
    for (i = 1; i < n; i++) {
        arb_tsuku_score(&cur, &v[i], ctx);
        if (cur.points > s->points) {
            *s = cur;
            best = i;
        }
    }
    return best;
}
