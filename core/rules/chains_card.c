/*
 * chains_card.c - the notation of SKIM-10 "Chains": cards and cells.
 *
 * DESIGN: besides the symbols and the English letters, cards may be typed
 * as the seed text writes them (ТП = A♠, КК = K♣, 10Ч = 10♥), so a Russian
 * scoresheet can be entered as it stands.  Because the Cyrillic Т is the
 * Ace, a Latin T is NOT accepted for ten: the two look alike and must not
 * mean different cards.
 */
#include <stdio.h>
#include <string.h>

#include "core/card.h"
#include "core/err.h"
#include "core/rules/chains.h"

static const char *const suit_symbol[4] = { "♠", "♥", "♦", "♣" };

/* One spelling of a rank or a suit: its bytes and what it means. */
typedef struct spelling {
    const char *text;
    int         value;
} spelling_t;

/* Ranks spelled by a letter (the digits are read as a number). */
static const spelling_t rank_letters[] = {
    { "J", 11 }, { "j", 11 }, { "Q", 12 }, { "q", 12 },
    { "K", 13 }, { "k", 13 }, { "A", 14 }, { "a", 14 },
    { "В", 11 }, { "в", 11 }, { "Д", 12 }, { "д", 12 },
    { "К", 13 }, { "к", 13 }, { "Т", 14 }, { "т", 14 },
};

static const spelling_t suit_spellings[] = {
    { "♠", 0 }, { "♤", 0 }, { "S", 0 }, { "s", 0 }, { "П", 0 }, { "п", 0 },
    { "♥", 1 }, { "♡", 1 }, { "H", 1 }, { "h", 1 }, { "Ч", 1 }, { "ч", 1 },
    { "♦", 2 }, { "♢", 2 }, { "D", 2 }, { "d", 2 }, { "Б", 2 }, { "б", 2 },
    { "♣", 3 }, { "♧", 3 }, { "C", 3 }, { "c", 3 }, { "К", 3 }, { "к", 3 },
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Matches one spelling at the start of s[0..len); returns its length. */
static size_t
match(const spelling_t *tab, size_t n, const char *s, size_t len, int *value)
{
    size_t i, k;

    for (i = 0; i < n; i++) {
        k = strlen(tab[i].text);
        if (k <= len && memcmp(s, tab[i].text, k) == 0) {
            *value = tab[i].value;
            return k;
        }
    }
    return 0;
}

int
arb_chains_card_parse(arb_chains_card_t *out, const char *s, size_t len,
                      char *err, size_t errlen)
{
    size_t i = 0, k;
    int    rank = 0, suit = -1;

    if (len == 0) {
        snprintf(err, errlen, "empty card");
        return ARB_EINVAL;
    }
    if (s[0] >= '0' && s[0] <= '9') {
        while (i < len && s[i] >= '0' && s[i] <= '9' && rank < 100)
            rank = rank * 10 + (s[i++] - '0');
        if (rank < 2 || rank > 10) {
            snprintf(err, errlen, "rank %d does not exist: ranks are 2..10, "
                     "J, Q, K, A (in '%.*s')", rank, (int)len, s);
            return ARB_EINVAL;
        }
    } else {
        k = match(rank_letters, NELEM(rank_letters), s, len, &rank);
        if (k == 0) {
            snprintf(err, errlen, "unknown rank in '%.*s': ranks are 2..10, "
                     "J, Q, K, A", (int)len, s);
            return ARB_EINVAL;
        }
        i = k;
    }
    if (i == len) {
        snprintf(err, errlen, "missing suit in '%.*s'", (int)len, s);
        return ARB_EINVAL;
    }
    k = match(suit_spellings, NELEM(suit_spellings), s + i, len - i, &suit);
    if (k == 0) {
        snprintf(err, errlen, "unknown suit '%.*s' in '%.*s': suits are ♠ ♥ "
                 "♦ ♣ (S H D C)", (int)(len - i), s + i, (int)len, s);
        return ARB_EINVAL;
    }
    i += k;
    i += arb_card_selector(s + i, len - i);
    if (i != len) {
        snprintf(err, errlen, "'%.*s' is not a card: write rank then suit, "
                 "e.g. 10♠ or QH", (int)len, s);
        return ARB_EINVAL;
    }
    *out = (arb_chains_card_t)(suit * 13 + rank - 2);
    return 0;
}

size_t
arb_chains_card_format(char *out, arb_chains_card_t c)
{
    static const char *const rank_name[15] = {
        "", "", "2", "3", "4", "5", "6", "7", "8", "9", "10",
        "J", "Q", "K", "A"
    };

    if (c >= ARB_CHAINS_CARDS)
        return (size_t)sprintf(out, "--");
    return (size_t)sprintf(out, "%s%s", rank_name[arb_chains_rank(c)],
                           suit_symbol[arb_chains_suit(c)]);
}

/* Reads an optionally signed integer of at most two digits. */
static const char *
coord(const char *s, int *v)
{
    int neg = 0, n = 0, digits = 0;

    if (*s == '-' || *s == '+')
        neg = *s++ == '-';
    while (*s >= '0' && *s <= '9' && digits < 3) {
        n = n * 10 + (*s++ - '0');
        digits++;
    }
    if (digits == 0 || digits > 2 || n > ARB_CHAINS_REACH)
        return NULL;
    *v = neg ? -n : n;
    return s;
}

int
arb_chains_cell_parse(int *row, int *col, const char *s)
{
    int r, c;

    if (s == NULL || (*s != 'r' && *s != 'R'))
        return ARB_EINVAL;
    s = coord(s + 1, &r);
    if (s == NULL || (*s != 'c' && *s != 'C'))
        return ARB_EINVAL;
    s = coord(s + 1, &c);
    if (s == NULL || *s != '\0')
        return ARB_EINVAL;
    *row = r;
    *col = c;
    return 0;
}

void
arb_chains_cell_format(char *out, int row, int col)
{
    snprintf(out, 16, "r%dc%d", row, col);
}

void
arb_chains_names_cell(char *out, const arb_chains_names_t *nm, int gr,
                      int gc)
{
    if (nm->frame)
        snprintf(out, 16, "%c%d", 'a' + gc, gr + 1);
    else
        arb_chains_cell_format(out, nm->row0 + gr, nm->col0 + gc);
}

const char *
arb_chains_team_name(int team)
{
    return team == ARB_CHAINS_LONG ? "long" : "short";
}

const char *
arb_chains_direction(int team)
{
    return team == ARB_CHAINS_LONG ? "horizontal" : "vertical";
}

const char *
arb_chains_variant_name(int variant)
{
    return variant == ARB_CHAINS_SUM ? "sum" : "square";
}
