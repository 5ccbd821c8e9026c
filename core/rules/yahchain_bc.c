/*
 * DESIGN: the category tests are written once for all three modes; the
 * mode only picks the length, the code and the bonus.  Ranges of §34.6-34.8
 * follow from the structure: a consecutive run of n cards starts at 2..14-n;
 * Vertex is the one that ends at K (one suit), so Single line starts at
 * 2..13-n and Ladder at 2..14-n, exactly the ranges the chapter lists.
 * The explicit range checks below still pin them against a future change.
 */
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "core/rules/yahchain_bc.h"

static const struct {
    const char *code;
    const char *name;
    int         bonus;
} table[3][ARB_BC_FAMILIES] = {
    {   /* YCWS-144/3, §34.6 */
        { "BC-005",  "Vertex",      21 },
        { "BC-003",  "Single line", 15 },
        { "BC-002",  "Triple",      12 },
        { "BC-004",  "Mirror",       9 },
        { "BC-001",  "Ladder",       6 },
    },
    {   /* YCWS-144/4, §34.7 */
        { "BC4-005", "Vertex",      32 },
        { "BC4-003", "Single line", 24 },
        { "BC4-002", "Four",        20 },
        { "BC4-004", "Mirror",      16 },
        { "BC4-001", "Ladder",      10 },
    },
    {   /* YCWS-144/5, §34.8 */
        { "BC5-005", "Vertex",      45 },
        { "BC5-003", "Single line", 35 },
        { "BC5-002", "Five",        30 },
        { "BC5-004", "Mirror",      25 },
        { "BC5-001", "Ladder",      15 },
    },
};

static int
in_table(int mode, int family)
{
    return mode >= 3 && mode <= 5 && family >= 0 && family < ARB_BC_FAMILIES;
}

const char *
arb_bc_code(int mode, int family)
{
    return in_table(mode, family) ? table[mode - 3][family].code : "VOID";
}

const char *
arb_bc_name(int mode, int family)
{
    return in_table(mode, family) ? table[mode - 3][family].name : "VOID";
}

int
arb_bc_bonus(int mode, int family)
{
    return in_table(mode, family) ? table[mode - 3][family].bonus : 0;
}

static int
family_of(const int *v, const int *s, size_t n)
{
    size_t i, j;
    int    run = 1, onesuit = 1, same = 1, distinct_suits = 1;

    for (i = 1; i < n; i++) {
        run &= v[i] == v[i - 1] + 1;
        onesuit &= s[i] == s[0];
        same &= v[i] == v[0];
    }
    for (i = 0; i < n; i++)
        for (j = i + 1; j < n; j++)
            distinct_suits &= s[i] != s[j];

    if (run && onesuit && v[n - 1] == 13)
        return ARB_BC_VERTEX;
    if (run && onesuit && v[0] >= 2 && v[0] <= 13 - (int)n)
        return ARB_BC_LINE;
    if (same && distinct_suits)
        return ARB_BC_SAME;
    switch (n) {
    case 3:
        if (v[0] == v[2] && v[0] != v[1] && s[0] != s[2])
            return ARB_BC_MIRROR;
        break;
    case 4:
        if (v[0] == v[3] && v[1] == v[2] && v[0] != v[1]
            && s[0] != s[3] && s[1] != s[2])
            return ARB_BC_MIRROR;
        break;
    case 5:
        if (v[0] == v[4] && v[1] == v[3] && v[0] != v[1] && v[0] != v[2]
            && v[1] != v[2] && s[0] != s[4] && s[1] != s[3])
            return ARB_BC_MIRROR;
        break;
    }
    if (run && !onesuit && v[0] >= 2 && v[0] <= 14 - (int)n)
        return ARB_BC_LADDER;
    return -1;
}

int
arb_bc_classify(int mode, const arb_card_t *cards, size_t n, arb_bc_t *out,
                char *err, size_t errlen)
{
    int    v[5], s[5], fam, sum = 0;
    size_t i, j;
    char   a[16];

    if (mode < 3 || mode > 5) {
        snprintf(err, errlen, "mode %d does not exist: modes are 3, 4, 5",
                 mode);
        return ARB_EINVAL;
    }
    if (n != (size_t)mode) {
        snprintf(err, errlen, "mode %d needs exactly %d cards, got %zu "
                 "(§34.5)", mode, mode, n);
        return ARB_EINVAL;
    }
    for (i = 0; i < n; i++) {
        if (cards[i] >= ARB_DECK) {
            snprintf(err, errlen, "card %zu is not a card of the deck",
                     i + 1);
            return ARB_EINVAL;
        }
        for (j = 0; j < i; j++)
            if (cards[j] == cards[i]) {
                arb_card_format(a, cards[i], ARB_CARD_UNICODE);
                snprintf(err, errlen, "card %s appears twice: each physical "
                         "card is used once (§34.11.3)", a);
                return ARB_EINVAL;
            }
        v[i] = arb_card_value(cards[i]);
        s[i] = arb_card_suit(cards[i]);
        sum += v[i];
    }

    fam = family_of(v, s, n);
    memset(out, 0, sizeof(*out));
    out->face_sum = sum;
    out->family = fam;
    if (fam < 0)
        return 1;
    out->code = table[mode - 3][fam].code;
    out->name = table[mode - 3][fam].name;
    out->bonus = table[mode - 3][fam].bonus;
    out->points = sum + out->bonus;
    return 0;
}
