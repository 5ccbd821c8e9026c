/*
 * test_bc.c - the fifteen Blockchain categories of YAHchain 3rd edition
 * (chapter 34, §34.6-34.10) as arb_bc_classify() recognises them.
 *
 * Part a: every worked example of §34.4, §34.6, §34.7 and §34.8.
 * Part b: the boundaries of each category, VOID shapes, input errors and the
 *         recognition order of §34.10.
 * Part c: exhaustive / structured comparison against an independent
 *         brute-force classifier written here from the text of the chapter.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/card.h"
#include "core/clock.h"
#include "core/err.h"
#include "core/rules/yahchain_bc.h"
#include "tests/test.h"

/* ------------------------------------------------------------------------
 * The reference classifier, from the text of §34.6-34.10 only.
 * ------------------------------------------------------------------------ */

/* Per mode (3, 4, 5) and family (Vertex, Line, Same, Mirror, Ladder). */
static const char *const ref_code[3][5] = {
    { "BC-005",  "BC-003",  "BC-002",  "BC-004",  "BC-001"  },
    { "BC4-005", "BC4-003", "BC4-002", "BC4-004", "BC4-001" },
    { "BC5-005", "BC5-003", "BC5-002", "BC5-004", "BC5-001" },
};
static const int ref_bonus[3][5] = {
    { 21, 15, 12,  9,  6 },     /* §34.6 */
    { 32, 24, 20, 16, 10 },     /* §34.7 */
    { 45, 35, 30, 25, 15 },     /* §34.8 */
};
enum { F_VERTEX, F_LINE, F_SAME, F_MIRROR, F_LADDER, F_VOID = -1 };

typedef struct {
    int family;     /* F_*, F_VOID */
    int sum;
} ref_t;

static int val(arb_card_t c) { return c % 12 + 2; }   /* §34.3 */
static int sui(arb_card_t c) { return c / 12 + 1; }

/* n cards, types rising by exactly one each step. */
static int
rising(const arb_card_t *c, int n)
{
    int i;
    for (i = 1; i < n; i++)
        if (val(c[i]) != val(c[0]) + i)
            return 0;
    return 1;
}

static int
one_suit(const arb_card_t *c, int n)
{
    int i;
    for (i = 1; i < n; i++)
        if (sui(c[i]) != sui(c[0]))
            return 0;
    return 1;
}

static int
all_suits_differ(const arb_card_t *c, int n)
{
    int i, j;
    for (i = 0; i < n; i++)
        for (j = i + 1; j < n; j++)
            if (sui(c[i]) == sui(c[j]))
                return 0;
    return 1;
}

static int
one_type(const arb_card_t *c, int n)
{
    int i;
    for (i = 1; i < n; i++)
        if (val(c[i]) != val(c[0]))
            return 0;
    return 1;
}

/* Vertex: the top n types J..K (3), 10..K (4), 9..K (5), one suit. */
static int
is_vertex(const arb_card_t *c, int n)
{
    return rising(c, n) && one_suit(c, n) && val(c[0]) == 14 - n;
}

/* Single line: rising, one suit, start 2..10 / 2..9 / 2..8 (the top start
 * belongs to Vertex and is excluded explicitly). */
static int
is_line(const arb_card_t *c, int n)
{
    int hi = n == 3 ? 10 : n == 4 ? 9 : 8;
    return rising(c, n) && one_suit(c, n) && val(c[0]) >= 2
           && val(c[0]) <= hi;
}

/* Triple / Four / Five: one type, all suits different. */
static int
is_same(const arb_card_t *c, int n)
{
    return one_type(c, n) && all_suits_differ(c, n);
}

/* Mirror: A-B-A (A != B, first/last suits differ); A-B-B-A (A != B, each
 * pair of different suits); A-B-C-B-A (A, B, C pairwise different, pairs of
 * different suits, the centre suit free). */
static int
is_mirror(const arb_card_t *c, int n)
{
    int a = val(c[0]), b = val(c[1]);

    switch (n) {
    case 3:
        return val(c[2]) == a && b != a && sui(c[0]) != sui(c[2]);
    case 4:
        return val(c[3]) == a && val(c[2]) == b && a != b
               && sui(c[0]) != sui(c[3]) && sui(c[1]) != sui(c[2]);
    default: {
        int cc = val(c[2]);
        return val(c[4]) == a && val(c[3]) == b && a != b && a != cc
               && b != cc && sui(c[0]) != sui(c[4])
               && sui(c[1]) != sui(c[3]);
    }
    }
}

/* Ladder: rising, start 2..11 / 2..10 / 2..9, at least two suits. */
static int
is_ladder(const arb_card_t *c, int n)
{
    int hi = n == 3 ? 11 : n == 4 ? 10 : 9;
    return rising(c, n) && !one_suit(c, n) && val(c[0]) >= 2
           && val(c[0]) <= hi;
}

/* §34.10: the first family in the recognition order wins. */
static ref_t
ref_classify(const arb_card_t *c, int n)
{
    ref_t r;
    int   i;

    r.sum = 0;
    for (i = 0; i < n; i++)
        r.sum += val(c[i]);
    if (is_vertex(c, n))
        r.family = F_VERTEX;
    else if (is_line(c, n))
        r.family = F_LINE;
    else if (is_same(c, n))
        r.family = F_SAME;
    else if (is_mirror(c, n))
        r.family = F_MIRROR;
    else if (is_ladder(c, n))
        r.family = F_LADDER;
    else
        r.family = F_VOID;
    return r;
}

/* ------------------------------------------------------------------------
 * Helpers.
 * ------------------------------------------------------------------------ */

static void
describe(char *out, size_t outlen, const arb_card_t *c, size_t n)
{
    size_t i, at = 0;

    out[0] = '\0';
    for (i = 0; i < n && at + 20 < outlen; i++) {
        char one[16];
        arb_card_format(one, c[i], ARB_CARD_UNICODE);
        at += (size_t)snprintf(out + at, outlen - at, "%s%s",
                               i ? " " : "", one);
    }
}

/* Parses "4♠ 5♥ 6♠" (any notation) into cards; returns the count. */
static size_t
cards_of(const char *text, arb_card_t *c, size_t max)
{
    size_t n = 0;
    const char *p = text;

    while (*p != '\0' && n < max) {
        const char *e;
        char        err[128];

        while (*p == ' ')
            p++;
        for (e = p; *e != '\0' && *e != ' '; e++)
            ;
        if (e == p)
            break;
        if (arb_card_parse(&c[n], p, (size_t)(e - p), err, sizeof(err)) != 0) {
            fprintf(stderr, "  test bug: cannot parse \"%.*s\": %s\n",
                    (int)(e - p), p, err);
            test_failed_++;
            return 0;
        }
        n++;
        p = e;
    }
    return n;
}

/* Expects text in mode to be code (NULL = VOID) with the given sum, bonus
 * and points. */
static void
want(int mode, const char *text, const char *code, int sum, int bonus,
     int points)
{
    arb_card_t c[8];
    size_t     n = cards_of(text, c, 8);
    arb_bc_t   r;
    char       err[256];
    int        rc;
    int        ok;

    memset(&r, 0x5a, sizeof(r));
    err[0] = '\0';
    rc = arb_bc_classify(mode, c, n, &r, err, sizeof(err));
    if (code == NULL) {
        ok = rc == 1 && r.code == NULL && r.family == -1 && r.bonus == 0
             && r.points == 0 && r.face_sum == sum;
    } else {
        ok = rc == 0 && r.code != NULL && strcmp(r.code, code) == 0
             && r.face_sum == sum && r.bonus == bonus && r.points == points
             && r.name != NULL && r.family >= 0
             && r.family < ARB_BC_FAMILIES
             && strcmp(r.code, ref_code[mode - 3][r.family]) == 0;
    }
    if (!ok)
        fprintf(stderr, "  mode %d [%s]: rc %d code %s family %d sum %d "
                "bonus %d points %d err \"%s\"; want %s %d %d %d\n", mode,
                text, rc, rc >= 0 && r.code ? r.code : "(VOID)",
                rc >= 0 ? r.family : -9, rc >= 0 ? r.face_sum : -9,
                rc >= 0 ? r.bonus : -9, rc >= 0 ? r.points : -9, err,
                code ? code : "VOID", sum, bonus, points);
    CHECK(ok);
}

#define VOID_(mode, text, sum) want(mode, text, NULL, sum, 0, 0)

/* Expects ARB_EINVAL and a non-empty message (containing part if given). */
static void
want_einval(int mode, const arb_card_t *c, size_t n, const char *part)
{
    arb_bc_t r;
    char     err[256];
    int      rc, ok;

    err[0] = '\0';
    rc = arb_bc_classify(mode, c, n, &r, err, sizeof(err));
    ok = rc == ARB_EINVAL && err[0] != '\0'
         && (part == NULL || strstr(err, part) != NULL);
    if (!ok)
        fprintf(stderr, "  mode %d, %zu cards: rc %d err \"%s\"; want "
                "ARB_EINVAL naming \"%s\"\n", mode, n, rc, err,
                part ? part : "");
    CHECK(ok);
}

static void
want_einval_text(int mode, const char *text, const char *part)
{
    arb_card_t c[8];
    size_t     n = cards_of(text, c, 8);
    want_einval(mode, c, n, part);
}

/* ------------------------------------------------------------------------
 * a. The worked examples.
 * ------------------------------------------------------------------------ */

static void
test_examples(void)
{
    /* §34.4: same sum, different order, different status. */
    want(3, "4♠ 5♥ 6♦", "BC-001", 15, 6, 21);
    VOID_(3, "6♦ 5♥ 4♠", 15);

    /* §34.6 */
    want(3, "4♠ 5♥ 6♠", "BC-001", 15, 6, 21);
    want(3, "7♠ 7♥ 7♦", "BC-002", 21, 12, 33);
    want(3, "7♠ 8♠ 9♠", "BC-003", 24, 15, 39);
    want(3, "5♠ 9♥ 5♦", "BC-004", 19, 9, 28);
    want(3, "J♠ Q♠ K♠", "BC-005", 36, 21, 57);

    /* §34.7 */
    want(4, "4♠ 5♥ 6♦ 7♣", "BC4-001", 22, 10, 32);
    want(4, "7♠ 7♥ 7♦ 7♣", "BC4-002", 28, 20, 48);
    want(4, "6♠ 7♠ 8♠ 9♠", "BC4-003", 30, 24, 54);
    want(4, "4♠ 8♥ 8♦ 4♣", "BC4-004", 24, 16, 40);
    want(4, "10♠ J♠ Q♠ K♠", "BC4-005", 46, 32, 78);

    /* §34.8 */
    want(5, "3♠ 4♥ 5♦ 6♣ 7♠", "BC5-001", 25, 15, 40);
    want(5, "7♠ 7♥ 7♦ 7♣ 7☀", "BC5-002", 35, 30, 65);
    want(5, "5♠ 6♠ 7♠ 8♠ 9♠", "BC5-003", 35, 35, 70);
    want(5, "4♠ 7♥ 9♦ 7♣ 4☀", "BC5-004", 31, 25, 56);
    want(5, "9♠ 10♠ J♠ Q♠ K♠", "BC5-005", 55, 45, 100);

    /* The same examples written in the other notations. */
    want(3, "js qs ks", "BC-005", 36, 21, 57);
    want(4, "10#1 J#1 Q#1 K#1", "BC4-005", 46, 32, 78);
    want(5, "4S 7H 9D 7C 4U", "BC5-004", 31, 25, 56);
}

/* The general formulas 3n+12, 4n+20, 5n+30, 2a+2b+16, 2a+2b+c+25, for every
 * type, and the registry of codes and bonuses. */
static void
test_formulas(void)
{
    int  v, a, b, m, f, bad = 0;
    char t[96];

    for (v = 2; v <= 13; v++) {
        const char *tn = arb_type_name(v);
        snprintf(t, sizeof(t), "%s♠ %s♥ %s♦", tn, tn, tn);
        want(3, t, "BC-002", 3 * v, 12, 3 * v + 12);
        snprintf(t, sizeof(t), "%s♣ %s♥ %s♦ %s♪", tn, tn, tn, tn);
        want(4, t, "BC4-002", 4 * v, 20, 4 * v + 20);
        snprintf(t, sizeof(t), "%s#12 %s#3 %s#7 %s#1 %s#9", tn, tn, tn, tn,
                 tn);
        want(5, t, "BC5-002", 5 * v, 30, 5 * v + 30);
    }
    for (a = 2; a <= 13; a++)
        for (b = 2; b <= 13; b++) {
            if (a == b)
                continue;
            snprintf(t, sizeof(t), "%s#1 %s#2 %s#2", arb_type_name(a),
                     arb_type_name(b), arb_type_name(a));
            want(3, t, "BC-004", 2 * a + b, 9, 2 * a + b + 9);
            snprintf(t, sizeof(t), "%s#1 %s#2 %s#3 %s#4", arb_type_name(a),
                     arb_type_name(b), arb_type_name(b), arb_type_name(a));
            want(4, t, "BC4-004", 2 * a + 2 * b, 16, 2 * a + 2 * b + 16);
            v = a == 2 || b == 2 ? (a == 3 || b == 3 ? 4 : 3) : 2;
            snprintf(t, sizeof(t), "%s#5 %s#6 %s#5 %s#5 %s#6",
                     arb_type_name(a), arb_type_name(b), arb_type_name(v),
                     arb_type_name(b), arb_type_name(a));
            want(5, t, "BC5-004", 2 * a + 2 * b + v, 25,
                 2 * a + 2 * b + v + 25);
        }
    /* The registry (§34.9). */
    {
        static const char *const names[3][5] = {
            { "Vertex", "Single line", "Triple", "Mirror", "Ladder" },
            { "Vertex", "Single line", "Four",   "Mirror", "Ladder" },
            { "Vertex", "Single line", "Five",   "Mirror", "Ladder" },
        };
        for (m = 3; m <= 5; m++)
            for (f = 0; f < ARB_BC_FAMILIES; f++)
                CHECK_STR(arb_bc_name(m, f), names[m - 3][f]);
    }
    for (m = 3; m <= 5; m++)
        for (f = 0; f < ARB_BC_FAMILIES; f++) {
            const char *code = arb_bc_code(m, f), *name = arb_bc_name(m, f);
            if (code == NULL || strcmp(code, ref_code[m - 3][f]) != 0
                || arb_bc_bonus(m, f) != ref_bonus[m - 3][f]
                || name == NULL || name[0] == '\0') {
                fprintf(stderr, "  registry mode %d family %d: %s %s %d\n",
                        m, f, code ? code : "(null)", name ? name : "(null)",
                        arb_bc_bonus(m, f));
                bad++;
            }
        }
    CHECK_INT(bad, 0);
    /* no family (a VOID sequence, §34.11) or no mode: no code, no bonus */
    CHECK_STR(arb_bc_code(3, -1), "VOID");
    CHECK_STR(arb_bc_name(4, ARB_BC_FAMILIES), "VOID");
    CHECK_INT(arb_bc_bonus(5, -1), 0);
    CHECK_INT(arb_bc_bonus(6, ARB_BC_VERTEX), 0);
    CHECK_INT(arb_bc_bonus(2, ARB_BC_LADDER), 0);
    CHECK_INT(ARB_BC_FAMILIES, 5);
    CHECK_INT(ARB_BC_VERTEX, 0);
    CHECK_INT(ARB_BC_LINE, 1);
    CHECK_INT(ARB_BC_SAME, 2);
    CHECK_INT(ARB_BC_MIRROR, 3);
    CHECK_INT(ARB_BC_LADDER, 4);
}

/* ------------------------------------------------------------------------
 * b. Boundaries, VOID shapes, errors, recognition order.
 * ------------------------------------------------------------------------ */

static void
test_boundaries_3(void)
{
    /* Ladder: start 2..11, at least two suits. */
    want(3, "2♠ 3♥ 4♠", "BC-001", 9, 6, 15);
    want(3, "2♥ 3♥ 4♠", "BC-001", 9, 6, 15);
    want(3, "2♥ 3♠ 4♠", "BC-001", 9, 6, 15);
    want(3, "10♠ J♥ Q♠", "BC-001", 33, 6, 39);
    want(3, "J♠ Q♥ K♠", "BC-001", 36, 6, 42);   /* start 11: last one */
    want(3, "J♠ Q♠ K♥", "BC-001", 36, 6, 42);
    want(3, "J♠ Q♥ K♦", "BC-001", 36, 6, 42);   /* three suits */
    /* no wrap-around past K, nothing below 2 */
    VOID_(3, "Q♠ K♥ 2♠", 27);
    VOID_(3, "K♠ 2♥ 3♠", 18);
    VOID_(3, "Q♠ K♠ 2♠", 27);
    /* gaps and descents */
    VOID_(3, "4♠ 5♥ 7♦", 16);
    VOID_(3, "4♠ 6♥ 8♦", 18);
    VOID_(3, "6♠ 5♥ 4♦", 15);
    VOID_(3, "6♠ 5♠ 4♠", 15);
    VOID_(3, "K♠ Q♠ J♠", 36);
    VOID_(3, "K♠ Q♥ J♠", 36);
    VOID_(3, "5♠ 4♥ 6♦", 15);
    VOID_(3, "4♠ 6♥ 5♦", 15);

    /* Single line: start 2..10, one suit; J-Q-K one suit is Vertex. */
    want(3, "2♠ 3♠ 4♠", "BC-003", 9, 15, 24);
    want(3, "2♪ 3♪ 4♪", "BC-003", 9, 15, 24);
    want(3, "10♠ J♠ Q♠", "BC-003", 33, 15, 48);
    want(3, "10♪ J♪ Q♪", "BC-003", 33, 15, 48);
    want(3, "J♠ Q♠ K♠", "BC-005", 36, 21, 57);

    /* Vertex in every suit; with two suits it is a Ladder. */
    want(3, "J☀ Q☀ K☀", "BC-005", 36, 21, 57);
    want(3, "J♪ Q♪ K♪", "BC-005", 36, 21, 57);
    want(3, "J♪ Q♪ K☯", "BC-001", 36, 6, 42);
    VOID_(3, "K♠ J♠ Q♠", 36);
    VOID_(3, "J♠ K♠ Q♠", 36);

    /* Triple: A-B-A with B = A is not a Mirror. */
    want(3, "7♠ 7♥ 7♦", "BC-002", 21, 12, 33);
    want(3, "2♪ 2♠ 2☯", "BC-002", 6, 12, 18);
    want(3, "K♠ K♥ K♦", "BC-002", 39, 12, 51);
    /* two of a type plus another is nothing */
    VOID_(3, "7♠ 7♥ 8♦", 22);
    VOID_(3, "8♠ 7♥ 7♦", 22);

    /* Mirror: A != B; the middle suit is free; first/last suits differ
     * (same type + different physical card = different suit). */
    want(3, "5♠ 9♠ 5♥", "BC-004", 19, 9, 28);
    want(3, "5♠ 9♥ 5♥", "BC-004", 19, 9, 28);
    want(3, "5♠ 6♥ 5♦", "BC-004", 16, 9, 25);    /* B = A + 1 */
    want(3, "6♠ 5♥ 6♦", "BC-004", 17, 9, 26);    /* B = A - 1 */
    want(3, "2♠ K♠ 2♪", "BC-004", 17, 9, 26);
    want(3, "K♪ 2♪ K♠", "BC-004", 28, 9, 37);
    VOID_(3, "5♠ 9♥ 6♦", 20);
}

static void
test_boundaries_4(void)
{
    /* Ladder: start 2..10. */
    want(4, "2♠ 3♥ 4♠ 5♠", "BC4-001", 14, 10, 24);
    want(4, "2♠ 3♠ 4♠ 5♥", "BC4-001", 14, 10, 24);
    want(4, "9♠ 10♥ J♠ Q♠", "BC4-001", 42, 10, 52);
    want(4, "10♠ J♠ Q♠ K♥", "BC4-001", 46, 10, 56);  /* 10-J-Q-K 2 suits */
    want(4, "10♥ J♠ Q♠ K♠", "BC4-001", 46, 10, 56);
    want(4, "10♥ J♠ Q♦ K♣", "BC4-001", 46, 10, 56);
    VOID_(4, "J♠ Q♥ K♠ 2♠", 38);
    VOID_(4, "Q♠ K♥ 2♠ 3♠", 30);
    VOID_(4, "7♠ 6♥ 5♦ 4♣", 22);
    VOID_(4, "7♠ 6♠ 5♠ 4♠", 22);
    VOID_(4, "K♠ Q♠ J♠ 10♠", 46);
    VOID_(4, "4♠ 5♥ 6♦ 8♣", 23);
    VOID_(4, "4♠ 5♥ 7♦ 6♣", 22);
    /* a 3-card Ladder / Vertex inside 4 cards is nothing */
    VOID_(4, "9♠ J♠ Q♠ K♠", 45);
    VOID_(4, "J♠ Q♠ K♠ 9♠", 45);
    VOID_(4, "4♠ 5♥ 6♦ 6♣", 21);

    /* Single line: start 2..9; 10-J-Q-K one suit is Vertex. */
    want(4, "2♠ 3♠ 4♠ 5♠", "BC4-003", 14, 24, 38);
    want(4, "9♠ 10♠ J♠ Q♠", "BC4-003", 42, 24, 66);
    want(4, "9♪ 10♪ J♪ Q♪", "BC4-003", 42, 24, 66);
    want(4, "10♠ J♠ Q♠ K♠", "BC4-005", 46, 32, 78);
    want(4, "10♪ J♪ Q♪ K♪", "BC4-005", 46, 32, 78);

    /* Four: one type, four suits. */
    want(4, "2♠ 2♥ 2♦ 2♣", "BC4-002", 8, 20, 28);
    want(4, "K♪ K☯ K⚙ K❦", "BC4-002", 52, 20, 72);
    VOID_(4, "7♠ 7♥ 7♦ 8♣", 29);

    /* Mirror A-B-B-A. */
    want(4, "4♠ 8♥ 8♦ 4♣", "BC4-004", 24, 16, 40);
    want(4, "4♠ 8♠ 8♥ 4♥", "BC4-004", 24, 16, 40);  /* suits across types */
    want(4, "4♠ 5♥ 5♠ 4♥", "BC4-004", 18, 16, 34);
    want(4, "K♠ 2♠ 2♪ K♪", "BC4-004", 30, 16, 46);
    VOID_(4, "4♠ 8♥ 4♦ 8♣", 24);    /* A-B-A-B */
    VOID_(4, "4♠ 4♥ 8♦ 8♣", 24);    /* A-A-B-B */
    VOID_(4, "4♠ 8♥ 9♦ 4♣", 25);    /* A-B-C-A */
    VOID_(4, "4♠ 8♥ 8♦ 5♣", 25);    /* A-B-B-C */
}

static void
test_boundaries_5(void)
{
    /* Ladder: start 2..9. */
    want(5, "2♠ 3♥ 4♥ 5♥ 6♥", "BC5-001", 20, 15, 35);
    want(5, "2♠ 3♠ 4♠ 5♠ 6♥", "BC5-001", 20, 15, 35);
    want(5, "8♠ 9♠ 10♥ J♠ Q♠", "BC5-001", 50, 15, 65);
    want(5, "9♠ 10♥ J♥ Q♥ K♥", "BC5-001", 55, 15, 70);   /* 9..K 2 suits */
    want(5, "9♠ 10♠ J♠ Q♠ K♥", "BC5-001", 55, 15, 70);
    want(5, "9♠ 10♥ J♦ Q♣ K☀", "BC5-001", 55, 15, 70);
    VOID_(5, "10♠ J♥ Q♥ K♥ 2♥", 48);
    VOID_(5, "7♠ 6♥ 5♦ 4♣ 3☀", 25);
    VOID_(5, "7♠ 6♠ 5♠ 4♠ 3♠", 25);
    VOID_(5, "K♠ Q♠ J♠ 10♠ 9♠", 55);
    VOID_(5, "3♠ 4♥ 5♦ 6♣ 8♠", 26);
    VOID_(5, "3♠ 4♥ 6♦ 5♣ 7♠", 25);
    VOID_(5, "10♠ J♠ Q♠ K♠ 9♠", 55);
    VOID_(5, "8♠ 10♠ J♠ Q♠ K♠", 54);

    /* Single line: start 2..8; 9-10-J-Q-K one suit is Vertex. */
    want(5, "2♠ 3♠ 4♠ 5♠ 6♠", "BC5-003", 20, 35, 55);
    want(5, "8♠ 9♠ 10♠ J♠ Q♠", "BC5-003", 50, 35, 85);
    want(5, "8♪ 9♪ 10♪ J♪ Q♪", "BC5-003", 50, 35, 85);
    want(5, "9♠ 10♠ J♠ Q♠ K♠", "BC5-005", 55, 45, 100);
    want(5, "9♪ 10♪ J♪ Q♪ K♪", "BC5-005", 55, 45, 100);

    /* Five. */
    want(5, "2♠ 2♥ 2♦ 2♣ 2☀", "BC5-002", 10, 30, 40);
    want(5, "K♪ K☯ K⚙ K❦ K✿", "BC5-002", 65, 30, 95);
    VOID_(5, "7♠ 7♥ 7♦ 7♣ 8☀", 36);
    VOID_(5, "8♠ 7♥ 7♦ 7♣ 7☀", 36);

    /* Mirror A-B-C-B-A: A, B, C pairwise different. */
    want(5, "4♠ 7♥ 9♦ 7♣ 4☀", "BC5-004", 31, 25, 56);
    want(5, "4♠ 7♥ 9♠ 7♣ 4☀", "BC5-004", 31, 25, 56);  /* centre suit free */
    want(5, "4♠ 7♠ 9♠ 7♥ 4♥", "BC5-004", 31, 25, 56);
    want(5, "2♠ K♠ 3♠ K♪ 2♪", "BC5-004", 33, 25, 58);
    want(5, "4♠ 5♥ 6♦ 5♣ 4☀", "BC5-004", 24, 25, 49);
    VOID_(5, "4♠ 7♥ 4♦ 7♣ 4☀", 26);   /* C = A */
    VOID_(5, "4♠ 7♥ 7♦ 7♣ 4☀", 29);   /* C = B */
    VOID_(5, "4♠ 4♥ 9♦ 4♣ 4☀", 25);   /* A = B */
    VOID_(5, "4♠ 7♥ 9♦ 8♣ 4☀", 32);   /* B != B' */
    VOID_(5, "4♠ 7♥ 9♦ 7♣ 5☀", 32);   /* A != A' */
    VOID_(5, "4♠ 7♥ 7♦ 4♣ 9☀", 31);   /* a 4-card Mirror + 1 */
}

/* §34.10: where the shape of two families fits, the earlier one wins. */
static void
test_order(void)
{
    /* J-Q-K one suit is rising and one-suited (the Line shape): Vertex. */
    want(3, "J♥ Q♥ K♥", "BC-005", 36, 21, 57);
    want(4, "10♥ J♥ Q♥ K♥", "BC4-005", 46, 32, 78);
    want(5, "9♥ 10♥ J♥ Q♥ K♥", "BC5-005", 55, 45, 100);
    /* Rising in one suit is also the Ladder's rising shape: Line. */
    want(3, "7♥ 8♥ 9♥", "BC-003", 24, 15, 39);
    want(4, "7♥ 8♥ 9♥ 10♥", "BC4-003", 34, 24, 58);
    want(5, "7♥ 8♥ 9♥ 10♥ J♥", "BC5-003", 45, 35, 80);
    /* A-A-A fits A-B-A, A-A-A-A fits A-B-B-A, A-A-A-A-A fits A-B-C-B-A
     * were A = B allowed: Same type. */
    want(3, "9♥ 9♠ 9♦", "BC-002", 27, 12, 39);
    want(4, "9♥ 9♠ 9♦ 9♣", "BC4-002", 36, 20, 56);
    want(5, "9♥ 9♠ 9♦ 9♣ 9♪", "BC5-002", 45, 30, 75);
    /* No two bonuses: the points are sum + exactly one bonus. */
    want(3, "J♦ Q♦ K♦", "BC-005", 36, 21, 57);
}

static void
test_errors(void)
{
    arb_card_t c[8];
    arb_bc_t   r;
    char       err[256];
    int        rc;

    /* A repeated physical card names the card. */
    want_einval_text(3, "5♠ 9♥ 5♠", "5");
    want_einval_text(3, "5♠ 9♥ 5♠", "\xe2\x99\xa0");
    want_einval_text(3, "7♦ 7♦ 7♦", "7");
    want_einval_text(3, "Q♪ Q♪ K♪", "Q");
    want_einval_text(4, "4♠ 8♥ 8♥ 4♣", "8\xe2\x99\xa5");
    want_einval_text(4, "10♠ J♠ Q♠ 10♠", "10\xe2\x99\xa0");
    {
        arb_card_t c5[5];
        arb_bc_t   r5;
        char       e5[256];
        cards_of("4♠ 7♥ 9♦ 7♥ 4♠", c5, 5);
        e5[0] = '\0';
        CHECK_INT(arb_bc_classify(5, c5, 5, &r5, e5, sizeof(e5)), ARB_EINVAL);
        CHECK(strstr(e5, "7♥") != NULL || strstr(e5, "4♠") != NULL);
    }
    want_einval_text(5, "K♪ 2♠ 3♠ 4♠ K♪", "K\xe2\x99\xaa");
    want_einval_text(5, "2♠ 3♠ 4♠ 5♠ 2♠", "2\xe2\x99\xa0");

    /* Wrong card count (§34.5: a 3-card Ladder is not complete in mode 5). */
    cards_of("4♠ 5♥ 6♦ 7♣ 8♠ 9♠", c, 8);
    want_einval(3, c, 2, NULL);
    want_einval(3, c, 4, NULL);
    want_einval(3, c, 0, NULL);
    want_einval(4, c, 3, NULL);
    want_einval(4, c, 5, NULL);
    want_einval(5, c, 3, NULL);
    want_einval(5, c, 4, NULL);
    want_einval(5, c, 6, NULL);
    want_einval(3, c, 1, NULL);

    /* Bad modes. */
    want_einval(2, c, 2, NULL);
    want_einval(6, c, 6, NULL);
    want_einval(0, c, 3, NULL);
    want_einval(-3, c, 3, NULL);
    want_einval(2, c, 3, NULL);
    want_einval(6, c, 5, NULL);

    /* A NULL message buffer of size 0 is fine. */
    CHECK_INT(arb_bc_classify(7, c, 3, &r, NULL, 0), ARB_EINVAL);
    CHECK_INT(arb_bc_classify(3, c, 4, &r, NULL, 0), ARB_EINVAL);

    /* Not a card of the deck. */
    c[0] = 144;
    c[1] = arb_card_make(5, 2);
    c[2] = arb_card_make(6, 3);
    err[0] = '\0';
    rc = arb_bc_classify(3, c, 3, &r, err, sizeof(err));
    if (rc != ARB_EINVAL)
        fprintf(stderr, "  card index 144 accepted: rc %d\n", rc);
    CHECK_INT(rc, ARB_EINVAL);
    c[0] = ARB_CARD_NONE;
    rc = arb_bc_classify(3, c, 3, &r, err, sizeof(err));
    if (rc != ARB_EINVAL)
        fprintf(stderr, "  card ARB_CARD_NONE accepted: rc %d\n", rc);
    CHECK_INT(rc, ARB_EINVAL);
}

/* ------------------------------------------------------------------------
 * c. Exhaustive and structured comparison with the reference.
 * ------------------------------------------------------------------------ */

typedef struct {
    long long   checked;
    long long   mismatches;
    long long   impl[6];     /* per family, [5] = VOID */
    long long   ref[6];
} tally_t;

static void
compare(int mode, const arb_card_t *c, tally_t *t)
{
    arb_bc_t r;
    ref_t    e = ref_classify(c, mode);
    char     err[160];
    int      rc, ok, fam;

    err[0] = '\0';
    rc = arb_bc_classify(mode, c, (size_t)mode, &r, err, sizeof(err));
    t->checked++;
    t->ref[e.family < 0 ? 5 : e.family]++;
    if (e.family < 0) {
        ok = rc == 1 && r.code == NULL && r.family == -1 && r.bonus == 0
             && r.points == 0 && r.face_sum == e.sum;
    } else {
        int bonus = ref_bonus[mode - 3][e.family];
        ok = rc == 0 && r.family == e.family && r.code != NULL
             && strcmp(r.code, ref_code[mode - 3][e.family]) == 0
             && r.face_sum == e.sum && r.bonus == bonus
             && r.points == e.sum + bonus;
    }
    fam = rc == 0 && r.family >= 0 && r.family < 5 ? r.family : 5;
    t->impl[fam]++;
    if (!ok) {
        if (t->mismatches < 10) {
            char text[128];
            describe(text, sizeof(text), c, (size_t)mode);
            fprintf(stderr, "  mode %d [%s]: got rc %d %s %d+%d=%d (%s); "
                    "want %s %d+%d=%d\n", mode, text, rc,
                    rc == 0 && r.code ? r.code : "VOID",
                    rc >= 0 ? r.face_sum : -1, rc >= 0 ? r.bonus : -1,
                    rc >= 0 ? r.points : -1, err,
                    e.family < 0 ? "VOID" : ref_code[mode - 3][e.family],
                    e.sum, e.family < 0 ? 0 : ref_bonus[mode - 3][e.family],
                    e.family < 0 ? 0 : e.sum + ref_bonus[mode - 3][e.family]);
        }
        t->mismatches++;
    }
}

static void
report(const char *what, int mode, const tally_t *t)
{
    int f;

    printf("%s: %lld sequences, %lld disagreements\n", what, t->checked,
           t->mismatches);
    for (f = 0; f < 6; f++)
        printf("  %-8s impl %9lld  ref %9lld\n",
               f < 5 ? ref_code[mode - 3][f] : "VOID", t->impl[f],
               t->ref[f]);
    CHECK_INT(t->mismatches, 0);
}

/* Every ordered 3-card sequence of distinct physical cards. */
static void
test_exhaustive_3(void)
{
    tally_t    t;
    arb_card_t c[3];
    int        i, j, k;
    /* Counted by hand from §34.6 (A, B types; suits of 12):
     *   Vertex  12 suits                                     =     12
     *   Line    9 starts x 12 suits                          =    108
     *   Triple  12 types x 12*11*10 suit orders              =  15840
     *   Mirror  12*11 (A,B) x 12*11 (outer suits) x 12       = 209088
     *   Ladder  10 starts x (12^3 - 12) suit patterns        =  17160 */
    static const long long want_n[6] = {
        12, 108, 15840, 209088, 17160,
        144LL * 143 * 142 - 12 - 108 - 15840 - 209088 - 17160
    };

    memset(&t, 0, sizeof(t));
    for (i = 0; i < ARB_DECK; i++)
        for (j = 0; j < ARB_DECK; j++) {
            if (j == i)
                continue;
            for (k = 0; k < ARB_DECK; k++) {
                if (k == i || k == j)
                    continue;
                c[0] = (arb_card_t)i;
                c[1] = (arb_card_t)j;
                c[2] = (arb_card_t)k;
                compare(3, c, &t);
            }
        }
    report("mode 3, all 144*143*142", 3, &t);
    CHECK_INT(t.checked, 144LL * 143 * 142);
    for (i = 0; i < 6; i++) {
        CHECK_INT(t.ref[i], want_n[i]);
        CHECK_INT(t.impl[i], want_n[i]);
    }
}

/* All ordered n-card sequences of distinct cards drawn from pool[]. */
static void
all_from(int mode, const arb_card_t *pool, int np, tally_t *t)
{
    int        idx[5], d = 0;
    arb_card_t c[5];
    uint64_t   used = 0;

    idx[0] = -1;
    while (d >= 0) {
        /* advance idx[d] to the next unused pool card */
        if (idx[d] >= 0)
            used &= ~((uint64_t)1 << idx[d]);
        do
            idx[d]++;
        while (idx[d] < np && (used >> idx[d]) & 1);
        if (idx[d] >= np) {
            d--;
            continue;
        }
        used |= (uint64_t)1 << idx[d];
        c[d] = pool[idx[d]];
        if (d == mode - 1) {
            compare(mode, c, t);
        } else {
            d++;
            idx[d] = -1;
        }
    }
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t
xorshift(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

/* count pseudo-random sequences of distinct cards over the whole deck. */
static void
random_seqs(int mode, long count, tally_t *t)
{
    arb_card_t c[5];
    long       n;
    int        i, j;

    for (n = 0; n < count; n++) {
        for (i = 0; i < mode; i++) {
again:
            c[i] = (arb_card_t)(xorshift() % ARB_DECK);
            for (j = 0; j < i; j++)
                if (c[j] == c[i])
                    goto again;
        }
        compare(mode, c, t);
    }
}

/* Every ordered sequence of one type (each type, every suit order). */
static void
same_type(int mode, tally_t *t)
{
    arb_card_t pool[12];
    int        v, s;

    for (v = 2; v <= 13; v++) {
        for (s = 1; s <= 12; s++)
            pool[s - 1] = arb_card_make(v, s);
        all_from(mode, pool, 12, t);
    }
}

/* Random sequences biased towards the structured shapes: a chosen pattern
 * of types (rising, mirrored, one type) with random suits drawn from a
 * small set, so that near-misses of every category are frequent. */
static void
shaped_seqs(int mode, long count, tally_t *t)
{
    arb_card_t c[5];
    long       n;
    int        i, j, v[5], s[5];

    for (n = 0; n < count; n++) {
        int shape = (int)(xorshift() % 4), nsuits = 1 + (int)(xorshift() % 12);
        int base = 2 + (int)(xorshift() % 12);
        for (i = 0; i < mode; i++) {
            switch (shape) {
            case 0:                         /* rising, maybe off the end */
                v[i] = base + i;
                break;
            case 1:                         /* mirrored types */
                v[i] = i < (mode + 1) / 2 ? 2 + (int)(xorshift() % 12)
                                          : v[mode - 1 - i];
                break;
            case 2:                         /* one type, maybe one off */
                v[i] = base;
                break;
            default:                        /* anything */
                v[i] = 2 + (int)(xorshift() % 12);
            }
            if (xorshift() % 16 == 0)       /* perturb one type */
                v[i] = 2 + (int)(xorshift() % 12);
            if (v[i] > 13)
                v[i] = 2 + (v[i] - 14);
            s[i] = 1 + (int)(xorshift() % (uint64_t)nsuits);
        }
        for (i = 0; i < mode; i++) {
            c[i] = arb_card_make(v[i], s[i]);
            for (j = 0; j < i; j++)
                if (c[j] == c[i])
                    break;
            if (j < i)
                break;
        }
        if (i < mode) {                     /* a repeated card: redraw */
            n--;
            continue;
        }
        compare(mode, c, t);
    }
}

static void
test_structured_4(void)
{
    /* All ordered 4-card sequences over five suits (the first two, a middle
     * one and the last two of the table): 60*59*58*57.  Counted by hand
     * from §34.7:
     *   Vertex  5 suits                          =     5
     *   Line    8 starts x 5 suits               =    40
     *   Four    12 types x 5*4*3*2 suit orders   =  1440
     *   Mirror  12*11 (A,B) x (5*4)^2 suit pairs = 52800
     *   Ladder  9 starts x (5^4 - 5)             =  5580 */
    static const int  suits[5] = { 1, 2, 6, 11, 12 };
    static const long long want_n[5] = { 5, 40, 1440, 52800, 5580 };
    arb_card_t pool[60];
    tally_t    t;
    int        s, v, n = 0;

    for (s = 0; s < 5; s++)
        for (v = 2; v <= 13; v++)
            pool[n++] = arb_card_make(v, suits[s]);
    memset(&t, 0, sizeof(t));
    all_from(4, pool, 60, &t);
    report("mode 4, all over 5 suits", 4, &t);
    CHECK_INT(t.checked, 60LL * 59 * 58 * 57);
    for (s = 0; s < 5; s++) {
        CHECK_INT(t.ref[s], want_n[s]);
        CHECK_INT(t.impl[s], want_n[s]);
    }

    /* Every ordered 4-card sequence of one type: all Four. */
    memset(&t, 0, sizeof(t));
    same_type(4, &t);
    report("mode 4, all of one type", 4, &t);
    CHECK_INT(t.checked, 12LL * 12 * 11 * 10 * 9);
    CHECK_INT(t.impl[F_SAME], 12LL * 12 * 11 * 10 * 9);

    /* Random over the whole deck, plain and shaped. */
    memset(&t, 0, sizeof(t));
    random_seqs(4, 1000000, &t);
    shaped_seqs(4, 1000000, &t);
    report("mode 4, 2M pseudo-random", 4, &t);
    for (s = 0; s < 6; s++)
        CHECK(t.impl[s] > 0);
}

static void
test_structured_5(void)
{
    /* All ordered 5-card sequences over three suits (first, middle, last):
     * 36*35*34*33*32.  Counted by hand from §34.8:
     *   Vertex  3 suits                                   =      3
     *   Line    7 starts x 3 suits                        =     21
     *   Five    needs 5 suits                             =      0
     *   Mirror  12*11*10 (A,B,C) x 3*2 x 3*2 x 3 suits    = 142560
     *   Ladder  8 starts x (3^5 - 3)                      =   1920 */
    static const long long want_n[5] = { 3, 21, 0, 142560, 1920 };
    static const int  suits[3] = { 1, 6, 12 };
    arb_card_t pool[36];
    tally_t    t;
    int        s, v, n = 0;

    for (v = 2; v <= 13; v++)
        for (s = 0; s < 3; s++)
            pool[n++] = arb_card_make(v, suits[s]);
    memset(&t, 0, sizeof(t));
    all_from(5, pool, 36, &t);
    report("mode 5, all over 3 suits", 5, &t);
    CHECK_INT(t.checked, 36LL * 35 * 34 * 33 * 32);
    for (s = 0; s < 5; s++) {
        CHECK_INT(t.ref[s], want_n[s]);
        CHECK_INT(t.impl[s], want_n[s]);
    }

    /* Every ordered 5-card sequence of one type: all Five. */
    memset(&t, 0, sizeof(t));
    same_type(5, &t);
    report("mode 5, all of one type", 5, &t);
    CHECK_INT(t.checked, 12LL * 12 * 11 * 10 * 9 * 8);
    CHECK_INT(t.impl[F_SAME], 12LL * 12 * 11 * 10 * 9 * 8);

    /* Random over the whole deck, plain and shaped. */
    memset(&t, 0, sizeof(t));
    random_seqs(5, 2000000, &t);
    shaped_seqs(5, 2000000, &t);
    report("mode 5, 4M pseudo-random", 5, &t);
    for (s = 0; s < 6; s++)
        CHECK(t.impl[s] > 0);
}

/* The reference itself, on the worked examples (guards the guard). */
static void
test_reference(void)
{
    static const struct { int mode; const char *text; int fam, sum; } ex[] = {
        { 3, "4♠ 5♥ 6♠", F_LADDER, 15 },  { 3, "7♠ 7♥ 7♦", F_SAME, 21 },
        { 3, "7♠ 8♠ 9♠", F_LINE, 24 },    { 3, "5♠ 9♥ 5♦", F_MIRROR, 19 },
        { 3, "J♠ Q♠ K♠", F_VERTEX, 36 },  { 3, "6♦ 5♥ 4♠", F_VOID, 15 },
        { 4, "4♠ 5♥ 6♦ 7♣", F_LADDER, 22 },
        { 4, "7♠ 7♥ 7♦ 7♣", F_SAME, 28 },
        { 4, "6♠ 7♠ 8♠ 9♠", F_LINE, 30 },
        { 4, "4♠ 8♥ 8♦ 4♣", F_MIRROR, 24 },
        { 4, "10♠ J♠ Q♠ K♠", F_VERTEX, 46 },
        { 5, "3♠ 4♥ 5♦ 6♣ 7♠", F_LADDER, 25 },
        { 5, "7♠ 7♥ 7♦ 7♣ 7☀", F_SAME, 35 },
        { 5, "5♠ 6♠ 7♠ 8♠ 9♠", F_LINE, 35 },
        { 5, "4♠ 7♥ 9♦ 7♣ 4☀", F_MIRROR, 31 },
        { 5, "9♠ 10♠ J♠ Q♠ K♠", F_VERTEX, 55 },
    };
    static const int points[] = { 21, 33, 39, 28, 57, 0, 32, 48, 54, 40, 78,
                                  40, 65, 70, 56, 100 };
    size_t i;

    for (i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
        arb_card_t c[5];
        ref_t      e;
        cards_of(ex[i].text, c, 5);
        e = ref_classify(c, ex[i].mode);
        CHECK_INT(e.family, ex[i].fam);
        CHECK_INT(e.sum, ex[i].sum);
        CHECK_INT(e.family < 0 ? 0
                  : e.sum + ref_bonus[ex[i].mode - 3][e.family], points[i]);
    }
}

static double
now(void)
{
    return (double)arb_clock_ns() / 1e9;
}

int
main(void)
{
    double t0 = now(), t1, t2, t3;

    test_reference();
    test_examples();
    test_formulas();
    test_boundaries_3();
    test_boundaries_4();
    test_boundaries_5();
    test_order();
    test_errors();
    t1 = now();
    test_exhaustive_3();
    t2 = now();
    test_structured_4();
    t3 = now();
    test_structured_5();
    printf("time: cases %.2fs, mode 3 %.2fs, mode 4 %.2fs, mode 5 %.2fs\n",
           t1 - t0, t2 - t1, t3 - t2, now() - t3);
    return TEST_END();
}
