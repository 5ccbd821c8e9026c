/*
 * chan_card.h - the 100 Chắn cards and their notation (seed §2).
 *
 * DESIGN: the four copies of a card are indistinguishable, so the rules
 * track faces and counts, never physical cards.  A face is 0..24: ranks
 * 2..9 of Vạn (0..7), Sách (8..15) and Văn (16..23), then Chi chi (24).
 * The ASCII notation is <rank><suit letter>: 2V..9V, 2S..9S, 2W..9W (W
 * because V is taken by Vạn), and CC.  Vietnamese names are accepted too
 * ("tam-vạn", "thất_văn", "3sách", "chi-chi"); output is always ASCII.
 */
#ifndef ARB_CHAN_CARD_H
#define ARB_CHAN_CARD_H

#include <stddef.h>

#define ARB_CHAN_FACES   25
#define ARB_CHAN_CC      24     /* Chi chi */
#define ARB_CHAN_COPIES  4
#define ARB_CHAN_DECK    (ARB_CHAN_FACES * ARB_CHAN_COPIES)
#define ARB_CHAN_RANKS   8      /* 2..9 */

enum arb_chan_suit {
    ARB_CHAN_VAN = 0,           /* Vạn, V */
    ARB_CHAN_SACH,              /* Sách, S */
    ARB_CHAN_VAN2,              /* Văn, W */
    ARB_CHAN_CHI                /* Chi chi: no suit, no rank */
};

static inline int
arb_chan_suit(int face)
{
    return face == ARB_CHAN_CC ? ARB_CHAN_CHI : face / ARB_CHAN_RANKS;
}

/* 2..9, or 0 for Chi chi (it has no rank and forms no Cạ). */
static inline int
arb_chan_rank(int face)
{
    return face == ARB_CHAN_CC ? 0 : face % ARB_CHAN_RANKS + 2;
}

static inline int
arb_chan_face(int rank, int suit)
{
    return suit == ARB_CHAN_CHI ? ARB_CHAN_CC
                                : suit * ARB_CHAN_RANKS + rank - 2;
}

/* Red: the 8s and 9s of Vạn and Sách, and Chi chi (seed §4). */
int arb_chan_red(int face);

/* Parses one card from s[0..len).  0 with *face set, or ARB_EINVAL with a
 * message naming what was wrong written into err. */
int arb_chan_card_parse(int *face, const char *s, size_t len, char *err,
                        size_t errlen);

/* Writes "2V" / "CC" into out (at least 4 bytes); returns out. */
char *arb_chan_card_format(char *out, int face);

/* "Tam vạn", "Chi chi": the Vietnamese name, UTF-8, static. */
const char *arb_chan_card_name(int face);

#endif
