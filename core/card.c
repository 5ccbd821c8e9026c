#include <stdio.h>
#include <string.h>

#include "card.h"
#include "err.h"

static const struct {
    const char *name;
    const char *symbol;
    const char *alt;        /* a second accepted symbol, or NULL */
    char        letter;
} suits[ARB_SUITS] = {
    { "Spades",   "\u2660", "\u2664", 'S' },    /* ♠ ♤ */
    { "Hearts",   "\u2665", "\u2661", 'H' },    /* ♥ ♡ */
    { "Diamonds", "\u2666", "\u2662", 'D' },    /* ♦ ♢ */
    { "Clubs",    "\u2663", "\u2667", 'C' },    /* ♣ ♧ */
    { "Suns",     "\u2600", "\u263C", 'U' },    /* ☀ ☼ */
    { "Moons",    "\u263E", "\u263D", 'M' },    /* ☾ ☽ */
    { "Wheels",   "\u2638", NULL,     'W' },    /* ☸ */
    { "Flowers",  "\u273F", NULL,     'F' },    /* ✿ */
    { "Leaves",   "\u2766", NULL,     'L' },    /* ❦ */
    { "Gears",    "\u2699", NULL,     'G' },    /* ⚙ */
    { "Yins",     "\u262F", NULL,     'Y' },    /* ☯ */
    { "Notes",    "\u266A", NULL,     'N' },    /* ♪ */
};

static const char *const types[ARB_TYPES] = {
    "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"
};

const char *
arb_suit_name(int suit)
{
    return suit >= 1 && suit <= ARB_SUITS ? suits[suit - 1].name : "?";
}

const char *
arb_suit_symbol(int suit)
{
    return suit >= 1 && suit <= ARB_SUITS ? suits[suit - 1].symbol : "?";
}

char
arb_suit_letter(int suit)
{
    return suit >= 1 && suit <= ARB_SUITS ? suits[suit - 1].letter : '?';
}

const char *
arb_type_name(int value)
{
    return value >= 2 && value <= 13 ? types[value - 2] : "?";
}

/* Length of the UTF-8 sequence starting at s (1 for anything malformed),
 * so error messages quote whole characters. */
static size_t
utf8_len(const unsigned char *s, size_t left)
{
    size_t n = 1;

    if (s[0] >= 0xf0)
        n = 4;
    else if (s[0] >= 0xe0)
        n = 3;
    else if (s[0] >= 0xc0)
        n = 2;
    return n <= left ? n : left;
}

/* The value of the type s[0..tlen): 2..10 as digits, J, Q, K in either
 * case; 0 for anything else.  Replay parses a card per move, so this is
 * a switch rather than a search of types[]. */
static int
type_value(const char *s, size_t tlen)
{
    if (tlen == 2)
        return s[0] == '1' && s[1] == '0' ? 10 : 0;
    if (tlen != 1)
        return 0;
    if (s[0] >= '2' && s[0] <= '9')
        return s[0] - '0';
    switch (s[0]) {
    case 'J': case 'j': return 11;
    case 'Q': case 'q': return 12;
    case 'K': case 'k': return 13;
    default:            return 0;
    }
}

static int
fail(char *err, size_t errlen, const char *fmt, const char *a, int an,
     const char *b, int bn)
{
    if (err != NULL && errlen > 0)
        snprintf(err, errlen, fmt, an, a, bn, b);
    return ARB_EINVAL;
}

#define SUIT_HINT "write the suit as a symbol (\u2660), a letter (S) or #1..#12"

/* The suit of a letter in either case, 0 for none: suits[]'s letters
 * by a switch, as type_value reads the types (a search of suits[] was a
 * third of a card's parse, and replay parses one a move).  test_card
 * checks every byte against suits[]. */
static int
letter_suit(char c)
{
    switch (c) {
    case 'S': case 's': return 1;
    case 'H': case 'h': return 2;
    case 'D': case 'd': return 3;
    case 'C': case 'c': return 4;
    case 'U': case 'u': return 5;
    case 'M': case 'm': return 6;
    case 'W': case 'w': return 7;
    case 'F': case 'f': return 8;
    case 'L': case 'l': return 9;
    case 'G': case 'g': return 10;
    case 'Y': case 'y': return 11;
    case 'N': case 'n': return 12;
    default:            return 0;
    }
}

static int
parse_suit(int *suit, const char *s, size_t len)
{
    size_t i;
    int    v;

    if (len >= 2 && s[0] == '#') {
        v = 0;
        for (i = 1; i < len; i++) {
            if (s[i] < '0' || s[i] > '9' || v > 100)
                return -1;
            v = v * 10 + (s[i] - '0');
        }
        if (v < 1 || v > ARB_SUITS)
            return -2;
        *suit = v;
        return 0;
    }
    if (len == 1) {
        if ((v = letter_suit(s[0])) == 0)
            return -1;
        *suit = v;
        return 0;
    }
    /* A trailing variation selector asks for a presentation; ignore it. */
    if (len > 3 && arb_card_selector(s + len - 3, 3) != 0)
        len -= 3;
    /* Every symbol is one character of three bytes in UTF-8. */
    if (len != 3)
        return -1;
    for (i = 0; i < ARB_SUITS; i++) {
        if (memcmp(s, suits[i].symbol, 3) == 0
            || (suits[i].alt != NULL && memcmp(s, suits[i].alt, 3) == 0))
            break;
    }
    if (i == ARB_SUITS)
        return -1;
    *suit = (int)i + 1;
    return 0;
}

int
arb_card_parse(arb_card_t *out, const char *s, size_t len,
               char *err, size_t errlen)
{
    size_t tlen;
    int    value = 0, suit = 0, rc;

    if (len == 0)
        return fail(err, errlen, "empty card%.*s%.*s", "", 0, "", 0);
    if (len > 32)
        return fail(err, errlen, "card '%.*s...' is too long%.*s",
                    s, 16, "", 0);

    /* The type is a run of digits, or one character. */
    if (s[0] >= '0' && s[0] <= '9') {
        for (tlen = 0; tlen < len && s[tlen] >= '0' && s[tlen] <= '9'; tlen++)
            ;
    } else {
        tlen = utf8_len((const unsigned char *)s, len);
    }
    value = type_value(s, tlen);
    if (value == 0)
        return fail(err, errlen,
                    "type %.*s does not exist: types are 2..10, J, Q, K%.*s",
                    s, (int)tlen, "", 0);
    if (tlen == len)
        return fail(err, errlen, "missing suit in '%.*s': " SUIT_HINT "%.*s",
                    s, (int)len, "", 0);

    rc = parse_suit(&suit, s + tlen, len - tlen);
    if (rc == -2)
        return fail(err, errlen,
                    "suit %.*s does not exist: suits are #1..#12, in '%.*s'",
                    s + tlen, (int)(len - tlen), s, (int)len);
    if (rc != 0)
        return fail(err, errlen, "unknown suit '%.*s' in '%.*s'",
                    s + tlen, (int)(len - tlen), s, (int)len);
    *out = arb_card_make(value, suit);
    return 0;
}

size_t
arb_card_format(char *out, arb_card_t c, int style)
{
    int v = arb_card_value(c), s = arb_card_suit(c);

    if (c >= ARB_DECK)
        return (size_t)snprintf(out, 16, "?");
    switch (style) {
    case ARB_CARD_ASCII:
        return (size_t)snprintf(out, 16, "%s%c", types[v - 2],
                                suits[s - 1].letter);
    case ARB_CARD_NUMERIC:
        return (size_t)snprintf(out, 16, "%s#%d", types[v - 2], s);
    default:
        return (size_t)snprintf(out, 16, "%s%s", types[v - 2],
                                suits[s - 1].symbol);
    }
}
