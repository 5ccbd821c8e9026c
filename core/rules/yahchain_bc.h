/*
 * yahchain_bc.h - the fifteen Blockchain categories of YAHchain 3rd edition,
 * chapter 34 (§34.6-34.10).  A pure function of the placed sequence.
 */
#ifndef ARB_YAHCHAIN_BC_H
#define ARB_YAHCHAIN_BC_H

#include <stddef.h>

#include "core/card.h"

/* Families in the recognition order of §34.10. */
enum arb_bc_family {
    ARB_BC_VERTEX = 0,
    ARB_BC_LINE,        /* Single line */
    ARB_BC_SAME,        /* Same type: Triple / Four / Five */
    ARB_BC_MIRROR,
    ARB_BC_LADDER,
    ARB_BC_FAMILIES
};

typedef struct arb_bc {
    const char *code;       /* "BC-001", "BC4-005"...; NULL when VOID */
    const char *name;       /* "Ladder", "Vertex"... */
    int         family;     /* enum arb_bc_family, -1 when VOID */
    int         face_sum;   /* §34.3 values summed */
    int         bonus;      /* 0 when VOID */
    int         points;     /* face_sum + bonus; 0 when VOID (§34.11) */
} arb_bc_t;

/* Classifies cards[0..n) placed in that order under mode 3, 4 or 5.
 * Returns 0 when a category matches, 1 when the sequence is VOID (no
 * category: no bonus, no result), ARB_EINVAL for a wrong card count, a
 * repeated physical card or a bad mode, with a message in err. */
int arb_bc_classify(int mode, const arb_card_t *cards, size_t n,
                    arb_bc_t *out, char *err, size_t errlen);

/* Code, name and bonus of a family in a mode (for docs and tests). */
const char *arb_bc_code(int mode, int family);
const char *arb_bc_name(int mode, int family);
int         arb_bc_bonus(int mode, int family);

#endif
