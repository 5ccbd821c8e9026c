/*
 * card.h - the YAHchain 144-card deck and its notation (chapter 34.2-34.3).
 *
 * A card is written <type><suit>: type 2..10, J, Q, K (value 2..13, fixed);
 * suit as its Unicode symbol (4♠), its ASCII letter (4S) or #N (4#1).
 * Letters are case-insensitive; a U+FE0F variation selector after a symbol
 * (as phones type "♥️") is accepted and ignored.  The suit table is in
 * docs/rules/yahchain.md.
 */
#ifndef ARB_CARD_H
#define ARB_CARD_H

#include <stddef.h>

#define ARB_SUITS      12
#define ARB_TYPES      12
#define ARB_DECK       (ARB_SUITS * ARB_TYPES)
#define ARB_CARD_NONE  0xff

/* 0..143: (suit - 1) * 12 + (value - 2). */
typedef unsigned char arb_card_t;

enum arb_card_style {
    ARB_CARD_UNICODE = 0,   /* 4♠  (canonical) */
    ARB_CARD_ASCII,         /* 4S */
    ARB_CARD_NUMERIC        /* 4#1 */
};

static inline int arb_card_value(arb_card_t c) { return c % ARB_TYPES + 2; }
static inline int arb_card_suit(arb_card_t c)  { return c / ARB_TYPES + 1; }
static inline arb_card_t
arb_card_make(int value, int suit)
{
    return (arb_card_t)((suit - 1) * ARB_TYPES + (value - 2));
}

/* 3 when s[0..n) starts with a variation selector, U+FE0F (emoji
 * presentation, which phones add after a suit symbol) or U+FE0E (text
 * presentation), else 0: a card's reader skips it after the symbol. */
static inline size_t
arb_card_selector(const char *s, size_t n)
{
    return n >= 3 && s[0] == '\xef' && s[1] == '\xb8'
           && (s[2] == '\x8e' || s[2] == '\x8f') ? 3 : 0;
}

/* Parses one card from s[0..len).  On error returns ARB_EINVAL and writes a
 * message naming what was wrong ("unknown suit 'Z' in '7Z'") into err. */
int arb_card_parse(arb_card_t *out, const char *s, size_t len,
                   char *err, size_t errlen);

/* Writes the card, NUL-terminated, into out (at least 16 bytes); returns
 * the length. */
size_t arb_card_format(char *out, arb_card_t c, int style);

/* Suit metadata, suit = 1..12. */
const char *arb_suit_name(int suit);
const char *arb_suit_symbol(int suit);
char        arb_suit_letter(int suit);
/* "2".."10", "J", "Q", "K" for value 2..13. */
const char *arb_type_name(int value);

#endif
