/*
 * chan_score.h - Chắn winning hands: the exhaustive pairing search, the
 * bonus table and the score (seed §1 and §4).
 *
 * DESIGN: one function judges a winning hand for both the rule set and
 * `arbiter score --game chan`, so the recorder and the tool cannot
 * disagree.  A hand is given as its layout - the exposed groups (fixed:
 * captured pairs and declared Chíu), the concealed cards including the
 * winning card, which card won and how - because every bonus can be read
 * from that layout alone (docs/rules/chan.md, "Bonuses").  The search
 * tries every way of pairing the concealed cards, then keeps the pairing
 * that wins with the highest score; no copy of a face is told apart.
 */
#ifndef ARB_CHAN_SCORE_H
#define ARB_CHAN_SCORE_H

#include <stddef.h>
#include <stdint.h>

#include "core/rules/chan_card.h"

#define ARB_CHAN_HAND        20     /* cards of a winning hand */
#define ARB_CHAN_PAIRS       10
#define ARB_CHAN_GROUPS_MAX  10
#define ARB_CHAN_BONUS_MAX   24

/* How the winning card was won. */
enum arb_chan_won {
    ARB_CHAN_WON_HEAVEN = 0,    /* Thiên ù: the dealer's first 20 cards */
    ARB_CHAN_WON_SELF,          /* a stock card the winner flipped (Ù chì) */
    ARB_CHAN_WON_STOCK,         /* a stock card another player flipped */
    ARB_CHAN_WON_CHIU           /* a discard, claimed by Chíu */
};

/* An exposed group. */
enum arb_chan_group_kind {
    ARB_CHAN_G_CHAN = 0,        /* a captured identical pair */
    ARB_CHAN_G_CA,              /* a captured Cạ: same rank, other suit */
    ARB_CHAN_G_CHIU             /* four identical cards: two Chắn */
};

typedef struct arb_chan_group {
    unsigned char kind;
    unsigned char face[2];      /* CHAN/CHIU: face[0] == face[1];
                                   CA: the hand card, the captured card */
} arb_chan_group_t;

/* Readings of the text a match chooses (docs/rules/chan.md, "Options and
 * editions"); 0 is the default of the current edition. */
#define ARB_CHAN_R_TOM_LITERAL   0x1u   /* Tôm = 3V 3W 7W: "Три Монет" as
                                           written (default 3V 3S 7W) */
#define ARB_CHAN_R_EACH          0x2u   /* Thiên khai and Bòn count per
                                           occurrence (default once) */
#define ARB_CHAN_R_SPLIT_EXPOSED 0x4u   /* edition 1: the no-split rule
                                           looked at concealed cards only */

typedef struct arb_chan_layout {
    unsigned         rules;                      /* ARB_CHAN_R_* */
    int              ngroups;
    arb_chan_group_t groups[ARB_CHAN_GROUPS_MAX];
    unsigned char    concealed[ARB_CHAN_FACES];  /* with the winning card */
    int              win_face;                   /* -1 for Thiên ù */
    int              won;                        /* enum arb_chan_won */
    uint32_t         no_ca;      /* faces (bit per face) that may not go
                                    into a concealed Cạ: the winner
                                    declined their Chắn capture */
} arb_chan_layout_t;

typedef struct arb_chan_pair {
    unsigned char a, b;         /* a <= b */
    unsigned char exposed;
} arb_chan_pair_t;

typedef struct arb_chan_pairing {
    int             n;
    arb_chan_pair_t pair[ARB_CHAN_PAIRS];
} arb_chan_pairing_t;

/* The bonus table of seed §4, in its order. */
enum arb_chan_bonus {
    ARB_CHAN_B_U_CHI = 0, ARB_CHAN_B_THIEN_U, ARB_CHAN_B_TOM,
    ARB_CHAN_B_BACH_THU, ARB_CHAN_B_LEO, ARB_CHAN_B_THIEN_KHAI,
    ARB_CHAN_B_CHIU_U, ARB_CHAN_B_BON, ARB_CHAN_B_BACH_DINH,
    ARB_CHAN_B_TAM_DO, ARB_CHAN_B_KINH_TU_CHI, ARB_CHAN_B_THAP_THANH,
    ARB_CHAN_B_COUNT
};

typedef struct arb_chan_bonus_info {
    const char *id;             /* "u-chi": the record's notation */
    const char *name;           /* "Ù chì" */
    int         base, dich;
} arb_chan_bonus_info_t;

/* Static; id in 0..ARB_CHAN_B_COUNT-1. */
const arb_chan_bonus_info_t *arb_chan_bonus_info(int id);

#define ARB_CHAN_XUONG_POINTS 2     /* Ù xuông: a win without bonus */

typedef struct arb_chan_score {
    arb_chan_pairing_t pairing;
    int                chan, ca;    /* Chíu counts as two Chắn */
    int                red;         /* red cards among the twenty */
    int                nbonus;
    unsigned char      bonus[ARB_CHAN_BONUS_MAX];  /* ids, table order;
                                                      one per Tôm/Lèo set */
    int                main;        /* index into bonus[]; -1: Ù xuông */
    int                all_bases;   /* Thập thành: every base is added */
    int                points;      /* what each loser pays */
} arb_chan_score_t;

/* Judges one complete pairing of a layout (the caller guarantees that p
 * pairs exactly the layout's twenty cards).  Returns 1 when it is a
 * winning hand, with the bonuses and points in *out; 0 when it is not,
 * with the reason in why. */
int arb_chan_pairing_judge(const arb_chan_layout_t *l,
                           const arb_chan_pairing_t *p, arb_chan_score_t *out,
                           char *why, size_t whylen);

/* Checks the layout, then searches every pairing of the concealed cards
 * (an identical pair is never split for a Cạ, seed §1) and keeps the
 * winning one with the highest score.  Returns 0 (a win, *out filled), 1
 * (not a winning hand: why says what is missing) or ARB_EINVAL (the
 * layout itself is impossible: why says what). */
int arb_chan_evaluate(const arb_chan_layout_t *l, arb_chan_score_t *out,
                      char *why, size_t whylen);

/* "5V+5S" (faces ascending) into out (at least 8 bytes); returns out. */
char *arb_chan_pair_format(char *out, const arb_chan_pair_t *p);
/* "7S+7S+7S+7S" / "5V+5S" for an exposed group (at least 16 bytes). */
char *arb_chan_group_format(char *out, const arb_chan_group_t *g);

#endif
