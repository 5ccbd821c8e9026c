/* Tsukurutenten hands: chip notation, the three kinds of set, declared
 * arrangements, the exhaustive finish search (cross-checked against a
 * brute-force enumerator written here over thousands of random hands),
 * every bonus at its edges and every exclusion pair. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/rules/tsuku_bonus.h"
#include "tests/test.h"

static char why[320];

/* ---- helpers over the engine --------------------------------------------- */

static int
chip(arb_tsuku_chip_t *c, const char *s)
{
    return arb_tsuku_chip_parse(c, s, strlen(s), 1, why, sizeof(why));
}

/* Judges "B4 R5 B6" (three words) as a set. */
static int
set_of(arb_tsuku_set_t *s, const char *text)
{
    arb_tsuku_chip_t c[3];
    char             w[3][8];
    int              i;

    if (sscanf(text, "%7s %7s %7s", w[0], w[1], w[2]) != 3)
        return -100;
    for (i = 0; i < 3; i++)
        if (chip(&c[i], w[i]) != 0)
            return -101;
    return arb_tsuku_set_make(s, c, why, sizeof(why));
}

/* Splits text into words (in place). */
static size_t
split(char *text, char **w, size_t max)
{
    size_t n = 0;
    char  *p = strtok(text, " ");

    while (p != NULL && n < max) {
        w[n++] = p;
        p = strtok(NULL, " ");
    }
    return n;
}

/* Open sets "B4+B5+B6 ..." into s[]; returns how many. */
static int
open_sets(arb_tsuku_set_t *s, const char *text)
{
    char  buf[128], *w[4], *p;
    char  three[32];
    size_t n, i;

    if (text == NULL)
        return 0;
    snprintf(buf, sizeof(buf), "%s", text);
    n = split(buf, w, 4);
    for (i = 0; i < n; i++) {
        snprintf(three, sizeof(three), "%s", w[i]);
        while ((p = strchr(three, '+')) != NULL)
            *p = ' ';
        if (set_of(&s[i], three) != 0)
            return -1;
    }
    return (int)n;
}

/* The chips named in a concealed text, as counts. */
static void
counts_of(int counts[ARB_TSUKU_KINDS], const char *text)
{
    char             buf[128], *w[16], *p, *q;
    arb_tsuku_chip_t c;
    size_t           n, i;

    memset(counts, 0, ARB_TSUKU_KINDS * sizeof(int));
    snprintf(buf, sizeof(buf), "%s", text);
    n = split(buf, w, 16);
    for (i = 0; i < n; i++)
        for (p = w[i];; p = q + 1) {
            q = strchr(p, '+');
            if (arb_tsuku_chip_parse(&c, p, q ? (size_t)(q - p) : strlen(p),
                                     1, why, sizeof(why)) == 0)
                counts[c.kind]++;
            if (q == NULL)
                break;
        }
}

/* Parses a declaration against the hand made of exactly its chips. */
static int
arr_of(arb_tsuku_arr_t *a, const char *open, const char *text)
{
    arb_tsuku_set_t o[2];
    int             counts[ARB_TSUKU_KINDS], no;
    char            buf[128], *w[16];
    size_t          n;

    no = open_sets(o, open);
    if (no < 0)
        return -1;
    counts_of(counts, text);
    snprintf(buf, sizeof(buf), "%s", text);
    n = split(buf, w, 16);
    return arb_tsuku_arr_parse(a, o, no, counts, w, n, why, sizeof(why));
}

/* Parses a declaration against a given hand of concealed chips. */
static int
declare(arb_tsuku_arr_t *a, const char *hand, const char *text)
{
    int    counts[ARB_TSUKU_KINDS];
    char   buf[128], *w[16];
    size_t n;

    counts_of(counts, hand);
    snprintf(buf, sizeof(buf), "%s", text);
    n = split(buf, w, 16);
    return arb_tsuku_arr_parse(a, NULL, 0, counts, w, n, why, sizeof(why));
}

/* Every arrangement worth 10, joined "a | b | c" into out. */
static size_t
search(const char *open, const char *hand, char *out, size_t len)
{
    arb_tsuku_set_t  o[2];
    arb_tsuku_arr_t *v = NULL;
    int              counts[ARB_TSUKU_KINDS], no;
    size_t           n = 0, i, k = 0;

    out[0] = '\0';
    no = open_sets(o, open);
    counts_of(counts, hand);
    if (no < 0 || arb_tsuku_arr_search(&v, &n, o, no, counts, 10) != 0)
        return (size_t)-1;
    for (i = 0; i < n; i++)
        k += (size_t)snprintf(out + k, len - k, "%s%s", i ? " | " : "",
                              v[i].text);
    free(v);
    return n;
}

static unsigned
bit(int b)
{
    return 1u << b;
}

/* The bonuses a declared hand meets (before exclusions). */
static unsigned
applies(const char *open, const char *text)
{
    arb_tsuku_arr_t a;
    int             pts[ARB_TB_COUNT];

    if (arr_of(&a, open, text) != 0)
        return 0xffffffffu;
    return arb_tsuku_bonus_applies(&a, 0, pts);
}

static int
points_of(const char *open, const char *text, int bonus)
{
    arb_tsuku_arr_t a;
    int             pts[ARB_TB_COUNT];

    if (arr_of(&a, open, text) != 0)
        return -1;
    arb_tsuku_bonus_applies(&a, 0, pts);
    return pts[bonus];
}

/* ---- chips --------------------------------------------------------------- */

static void
test_chips(void)
{
    arb_tsuku_chip_t c;
    int              deck[ARB_TSUKU_CHIPS], n[ARB_TSUKU_KINDS], k, kinds[80];
    size_t           nk = 0;
    char             out[8];

    arb_tsuku_deck(deck);
    memset(n, 0, sizeof(n));
    for (k = 0; k < ARB_TSUKU_CHIPS; k++)
        n[deck[k]]++;
    for (k = 0; k < ARB_TSUKU_KINDS; k++)
        CHECK_INT(n[k], arb_tsuku_kind_copies(k));
    CHECK_INT(deck[0], arb_tsuku_kind_of(ARB_TSUKU_BLUE, 1));
    CHECK_INT(deck[28], arb_tsuku_kind_of(ARB_TSUKU_RED, 0));
    CHECK_INT(deck[60], arb_tsuku_kind_of(ARB_TSUKU_PURPLE, 8));

    CHECK_INT(chip(&c, "B4"), 0);
    CHECK_INT(arb_tsuku_kind_value(c.kind), 4);
    CHECK_INT(c.as, ARB_TSUKU_BLUE);
    CHECK_INT(chip(&c, "r0"), 0);
    arb_tsuku_chip_format(out, c);
    CHECK_STR(out, "R0");
    CHECK_INT(chip(&c, "P7"), 0);
    CHECK_INT(c.as, ARB_TSUKU_ANY);
    CHECK_INT(chip(&c, "p7R"), 0);
    arb_tsuku_chip_format(out, c);
    CHECK_STR(out, "P7r");
    CHECK_INT(chip(&c, "B0"), ARB_EINVAL);
    CHECK_STR(why, "chip 'B0' does not exist: blue chips are B1..B7");
    CHECK_INT(chip(&c, "R8"), ARB_EINVAL);
    CHECK_STR(why, "chip 'R8' does not exist: red chips are R0..R7");
    CHECK_INT(chip(&c, "P4"), ARB_EINVAL);
    CHECK_STR(why, "chip 'P4' does not exist: purple chips are P5..P8");
    /* "синие 1 2 3 4 5 6 7": a blue 8 is no chip, not the kind after B7
     * (the red 0) */
    CHECK_INT(chip(&c, "B8"), ARB_EINVAL);
    CHECK_STR(why, "chip 'B8' does not exist: blue chips are B1..B7");
    CHECK_INT(chip(&c, "G4"), ARB_EINVAL);
    CHECK_STR(why, "chip 'G4': the colour must be B (blue), R (red) or P "
              "(purple)");
    CHECK_INT(chip(&c, "B4b"), ARB_EINVAL);
    CHECK_STR(why, "chip 'B4b': only a purple chip takes a colour");
    CHECK_INT(chip(&c, "P7x"), ARB_EINVAL);
    /* purple plays "как красную или синюю": never as purple */
    CHECK_INT(chip(&c, "P7p"), ARB_EINVAL);
    CHECK_STR(why, "chip 'P7p': a purple chip plays as b (blue) or r (red)");
    CHECK_INT(chip(&c, "B10"), ARB_EINVAL);
    CHECK_INT(chip(&c, "B:"), ARB_EINVAL);
    CHECK_STR(why, "chip 'B:': the value must be one digit after the "
              "colour, e.g. B4");
    CHECK_INT(chip(&c, "B"), ARB_EINVAL);
    CHECK_INT(arb_tsuku_chip_parse(&c, "P7b", 3, 0, why, sizeof(why)),
              ARB_EINVAL);
    CHECK_STR(why, "chip 'P7b': a purple chip has no colour here: write P7");

    CHECK_INT(arb_tsuku_chips_parse(kinds, 80, &nk, "B1R0P8b4", why,
                                    sizeof(why)), 0);
    CHECK_INT(nk, 4);
    CHECK_INT(kinds[2], arb_tsuku_kind_of(ARB_TSUKU_PURPLE, 8));
    CHECK_INT(kinds[3], arb_tsuku_kind_of(ARB_TSUKU_BLUE, 4));
    CHECK_INT(arb_tsuku_chips_parse(kinds, 80, &nk, "B1R", why, sizeof(why)),
              ARB_EINVAL);
}

/* ---- sets ---------------------------------------------------------------- */

static void
test_sets(void)
{
    arb_tsuku_set_t s;
    char            t[ARB_TSUKU_SET_TEXT];

    /* blue run: the lowest, at both ends of the values */
    CHECK_INT(set_of(&s, "B1 B2 B3"), 0);
    CHECK_INT(s.value, 1);
    CHECK_INT(s.form, ARB_TSUKU_RUN);
    CHECK_INT(set_of(&s, "B7 B5 B6"), 0);
    CHECK_INT(s.value, 5);
    arb_tsuku_set_format(t, &s);
    CHECK_STR(t, "B5+B6+B7");
    /* red run: the highest; the red 0 starts one */
    CHECK_INT(set_of(&s, "R0 R1 R2"), 0);
    CHECK_INT(s.value, 2);
    CHECK_INT(set_of(&s, "R5 R6 R7"), 0);
    CHECK_INT(s.value, 7);
    /* triple: 0 */
    CHECK_INT(set_of(&s, "B4 B4 B4"), 0);
    CHECK_INT(s.value, 0);
    CHECK_INT(s.form, ARB_TSUKU_TRIPLE);
    CHECK_INT(set_of(&s, "R7 R7 R7"), 0);
    CHECK_INT(s.value, 0);
    /* refused: the example, word for word */
    CHECK_INT(set_of(&s, "R5 B4 B6"), ARB_EILLEGAL);
    CHECK_STR(why, "blue 4, red 5, blue 6 is not a set: colours differ");
    CHECK_INT(set_of(&s, "B4 B4 R4"), ARB_EILLEGAL);
    CHECK_STR(why, "blue 4, blue 4, red 4 is not a set: colours differ");
    CHECK_INT(set_of(&s, "B1 B2 B4"), ARB_EILLEGAL);
    CHECK_STR(why, "blue 1, blue 2, blue 4 is not a set: the values 1, 2, "
              "4 are neither equal nor consecutive");
    CHECK_INT(set_of(&s, "B7 B1 B2"), ARB_EILLEGAL);   /* no wrapping */
    CHECK_INT(set_of(&s, "R4 R4 R5"), ARB_EILLEGAL);
    CHECK_INT(set_of(&s, "R7 R0 R1"), ARB_EILLEGAL);

    /* purple in every set role */
    CHECK_INT(set_of(&s, "B6 B7 P8"), 0);              /* blue run */
    CHECK_INT(s.value, 6);
    arb_tsuku_set_format(t, &s);
    CHECK_STR(t, "B6+B7+P8b");
    CHECK_INT(set_of(&s, "R6 P8 R7"), 0);              /* red run */
    CHECK_INT(s.value, 8);
    CHECK_INT(set_of(&s, "B5 P5 B5"), 0);              /* triple */
    CHECK_INT(s.value, 0);
    arb_tsuku_set_format(t, &s);
    CHECK_STR(t, "B5+B5+P5b");
    CHECK_INT(set_of(&s, "P5b P6b P7b"), 0);           /* all purple */
    CHECK_INT(s.value, 5);
    CHECK_INT(set_of(&s, "P6r P7r P8r"), 0);
    CHECK_INT(s.value, 8);
    CHECK_INT(set_of(&s, "P5 P6r P7"), 0);             /* one names it */
    CHECK_INT(s.colour, ARB_TSUKU_RED);
    CHECK_INT(s.value, 7);
    CHECK_INT(set_of(&s, "P5 P6 P7"), ARB_EILLEGAL);
    CHECK_STR(why, "purple 5, purple 6, purple 7 is not a set yet: three "
              "purple chips play as one colour chosen when the set is "
              "shown (P5b+P6b+P7b or P5r+P6r+P7r)");
    CHECK_INT(set_of(&s, "P5b P6r P7b"), ARB_EILLEGAL);
    CHECK_STR(why, "purple 5 as blue, purple 6 as red, purple 7 as blue is "
              "not a set: colours differ");
    CHECK_INT(set_of(&s, "B5 P6r B7"), ARB_EILLEGAL);
    CHECK_INT(set_of(&s, "P5b P6b P8b"), ARB_EILLEGAL);
    CHECK_INT(set_of(&s, "B5 P5 R5"), ARB_EILLEGAL);
}

/* ---- declared arrangements ----------------------------------------------- */

static void
test_declare(void)
{
    arb_tsuku_arr_t a;
    const char     *hand = "B1 B2 B3 R4 R5 R6 R0 P7";

    CHECK_INT(declare(&a, hand, "B1+B2+B3 R4+R5+R6 P7b"), 0);
    CHECK_STR(a.text, "B1+B2+B3 R4+R5+R6 R0 P7b");
    CHECK_INT(a.value, 1 + 6 + 0 + 7);
    /* the same arrangement written another way canonicalises the same */
    CHECK_INT(declare(&a, hand, "P7b R6+R4+R5 R0 B3+B1+B2"), 0);
    CHECK_STR(a.text, "B1+B2+B3 R4+R5+R6 R0 P7b");
    /* a purple chip outside a set needs its colour */
    CHECK_INT(declare(&a, hand, "B1+B2+B3 R4+R5+R6"), ARB_EILLEGAL);
    CHECK_STR(why, "P7 is in no set and has no colour: write P7b or P7r "
              "among the singles");
    CHECK_INT(declare(&a, hand, "B1+B2+B3 P7"), ARB_EILLEGAL);
    CHECK_STR(why, "P7 outside a set must play as a colour: write P7b or "
              "P7r");
    CHECK_INT(declare(&a, hand, "B1+B2+B4"), ARB_EILLEGAL);
    CHECK_STR(why, "the hand holds no B4 to show for B1+B2+B4");
    CHECK_INT(declare(&a, hand, "B1+B2+B3 B1"), ARB_EILLEGAL);
    CHECK_STR(why, "the hand holds no B1 to show");
    CHECK_INT(declare(&a, hand, "B1+B2+R0"), ARB_EILLEGAL);
    CHECK_STR(why, "red 0, blue 1, blue 2 is not a set: colours differ");
    /* "Каждый состоит ровно из 3 фишек" (the seed's Sets): a word of two
     * or of four chips is no set, and no chip of it is dropped */
    CHECK_INT(declare(&a, hand, "B1+B2"), ARB_EINVAL);
    CHECK_STR(why, "'B1+B2' is not a set: a set is three chips joined by "
              "'+', e.g. B1+B2+B3");
    CHECK_INT(declare(&a, hand, "B1+B2+B3+R4"), ARB_EINVAL);
    CHECK_STR(why, "'B1+B2+B3+R4' is not a set: a set is three chips "
              "joined by '+', e.g. B1+B2+B3");
    CHECK_INT(declare(&a, hand, "B1+B2+"), ARB_EINVAL);
    CHECK_STR(why, "empty chip: write a colour letter and a value, e.g. B4, "
              "R0, P7");
    CHECK_INT(declare(&a, "B1 B1 B1 B2 B2 B2 B3 B3",
                      "B1+B1+B1 B2+B2+B2 B3+B3+B3"), ARB_EILLEGAL);
    CHECK_STR(why, "'B3+B3+B3' would be a third set: eight chips hold at "
              "most two sets");
    /* the purple chip of a concealed set may name its colour or not */
    CHECK_INT(declare(&a, "B6 B7 P8 B1 B1 B1 R1 R1", "B6+B7+P8 B1+B1+B1"),
              0);
    CHECK_STR(a.text, "B1+B1+B1 B6+B7+P8b R1 R1");
    CHECK_INT(declare(&a, "B6 B7 P8 B1 B1 B1 R1 R1", "B6+B7+P8r"),
              ARB_EILLEGAL);
}

/* ---- the search ---------------------------------------------------------- */

static void
test_search(void)
{
    char out[512];

    /* several arrangements with different sets */
    CHECK_INT(search(NULL, "B1 B2 B3 B4 R1 R2 R3 R4", out, sizeof(out)), 2);
    CHECK_STR(out, "B1+B2+B3 R2+R3+R4 B4 R1 | B2+B3+B4 R1+R2+R3 B1 R4");
    /* worth 10 only with the right purple colour: blue P5+P6+P7 is 5,
     * red is 7 */
    CHECK_INT(search(NULL, "P5 P6 P7 B1 B1 B1 B1 R1", out, sizeof(out)), 1);
    CHECK_STR(out, "P5b+P6b+P7b B1 B1 B1 B1 R1");
    /* ... and only with red for this one */
    CHECK_INT(search(NULL, "P5 P6 P7 B2 B2 B2 R0 B3", out, sizeof(out)), 1);
    CHECK_STR(out, "B2+B2+B2 P5r+P6r+P7r B3 R0");
    /* a purple single: both colours are arrangements of their own */
    CHECK_INT(search(NULL, "B1 B1 B1 B2 B2 B2 R3 P7", out, sizeof(out)), 2);
    CHECK_STR(out, "B1+B1+B1 B2+B2+B2 R3 P7b | B1+B1+B1 B2+B2+B2 R3 P7r");
    /* purple in a red run */
    CHECK_INT(search(NULL, "R6 R7 P8 B1 B1 B1 R1 R1", out, sizeof(out)), 1);
    CHECK_STR(out, "B1+B1+B1 R6+R7+P8r R1 R1");
    /* purple completing a triple */
    CHECK_INT(search(NULL, "B5 B5 P5 R0 R1 R2 R3 R5", out, sizeof(out)), 1);
    CHECK_STR(out, "B5+B5+P5b R0+R1+R2 R3 R5");
    /* an open all-purple set keeps the colour fixed when it was shown */
    CHECK_INT(search("P5b+P6b+P7b", "B1 B1 B1 B1 R1", out, sizeof(out)), 1);
    CHECK_STR(out, "B1 B1 B1 B1 R1");
    CHECK_INT(search("P5r+P6r+P7r", "B1 B1 B1 B1 R1", out, sizeof(out)), 0);
    /* open sets count and cannot be rearranged */
    CHECK_INT(search("B1+B2+B3", "B4 R1 R2 R3 R4", out, sizeof(out)), 1);
    CHECK_STR(out, "R2+R3+R4 B4 R1");
    CHECK_INT(search("B2+B3+B4 R1+R2+R3", "B1 R4", out, sizeof(out)), 1);
    CHECK_STR(out, "B1 R4");
    /* a hand worth 10 without any set */
    CHECK_INT(search(NULL, "R0 R1 R1 R1 R1 R2 R2 R2", out, sizeof(out)), 1);
    CHECK_STR(out, "R0 R1 R1 R1 R1 R2 R2 R2");
    /* and a hand that cannot finish */
    CHECK_INT(search(NULL, "B7 B7 R7 R7 B6 B6 R6 R6", out, sizeof(out)), 0);
}

/* ---- bonuses ------------------------------------------------------------- */

static void
test_bonuses(void)
{
    unsigned m;

    /* closed hand */
    CHECK(applies(NULL, "B1+B2+B3 R4 R4 R5 R6 R7") & bit(ARB_TB_CLOSED));
    CHECK(!(applies("B1+B2+B3", "R4 R4 R5 R6 R7") & bit(ARB_TB_CLOSED)));
    /* no ones: the red 0 is not a one */
    CHECK(applies(NULL, "R0 B2 B2 B3 B3 R4 R4 R2") & bit(ARB_TB_NO_ONES));
    CHECK(!(applies(NULL, "R0 B2 B2 B3 B3 R4 R4 R1") & bit(ARB_TB_NO_ONES)));
    CHECK(!(applies(NULL, "B1 B2 B2 B3 B3 R4 R4 R2") & bit(ARB_TB_NO_ONES)));
    /* single three: three of one colour and value, purple included */
    CHECK(applies(NULL, "B4 B4 B4 R1 R2 R3 B1 B2") & bit(ARB_TB_THREE));
    CHECK(!(applies(NULL, "B4 B4 R4 R1 R2 R3 B1 B2") & bit(ARB_TB_THREE)));
    CHECK(applies(NULL, "B5 B5 P5b R1 R2 R3 B1 B2") & bit(ARB_TB_THREE));
    CHECK(!(applies(NULL, "B5 B5 P5r R1 R2 R3 B1 B2") & bit(ARB_TB_THREE)));
    /* half colour: four and four, purple as played */
    CHECK(applies(NULL, "B1 B2 B3 B4 R1 R2 R3 R4") & bit(ARB_TB_HALF));
    CHECK(!(applies(NULL, "B1 B2 B3 B4 B5 R2 R3 R4") & bit(ARB_TB_HALF)));
    CHECK(applies(NULL, "B1 B2 B3 R1 R2 R3 R4 P5b") & bit(ARB_TB_HALF));
    CHECK(!(applies(NULL, "B1 B2 B3 R1 R2 R3 R4 P5r") & bit(ARB_TB_HALF)));
    /* seven */
    CHECK(applies(NULL, "B7 B2 B3 R1 R2 R3 R4 R0") & bit(ARB_TB_SEVEN));
    CHECK(applies(NULL, "P7r B2 B3 R1 R2 R3 R4 R0") & bit(ARB_TB_SEVEN));
    CHECK(!(applies(NULL, "B6 B2 B3 R1 R2 R3 R4 R0") & bit(ARB_TB_SEVEN)));
    /* straight: five consecutive values of one colour */
    CHECK(applies(NULL, "B1 B2 B3 B4 B5 R1 R1 R2") & bit(ARB_TB_STRAIGHT));
    CHECK(applies(NULL, "R0 R1 R2 R3 R4 B1 B1 B2") & bit(ARB_TB_STRAIGHT));
    CHECK(applies(NULL, "B3 B4 P5b B6 B7 R1 R1 R2") & bit(ARB_TB_STRAIGHT));
    CHECK(!(applies(NULL, "B3 B4 P5r B6 B7 R1 R1 R2")
            & bit(ARB_TB_STRAIGHT)));
    CHECK(!(applies(NULL, "B1 B2 B3 B4 R5 R1 R1 R2")
            & bit(ARB_TB_STRAIGHT)));
    CHECK(!(applies(NULL, "B1 B2 B3 B4 B6 B7 R1 R2")
            & bit(ARB_TB_STRAIGHT)));
    /* "последовательных фишек одного цвета": a blue run to 8 and a red
     * run from 0 are two runs */
    CHECK(!(applies(NULL, "B6 B7 P8b R0 R1 R2 R1 R1")
            & bit(ARB_TB_STRAIGHT)));
    /* two blues: exactly two */
    CHECK(applies(NULL, "B1 B2 R3 R1 R2 R3 R4 R0") & bit(ARB_TB_TWO_BLUES));
    CHECK(applies(NULL, "B1 P5b R3 R1 R2 R3 R4 R0")
          & bit(ARB_TB_TWO_BLUES));
    CHECK(!(applies(NULL, "B1 R2 R3 R1 R2 R3 R4 R0")
            & bit(ARB_TB_TWO_BLUES)));
    CHECK(!(applies(NULL, "B1 B2 B3 R1 R2 R3 R4 R0")
            & bit(ARB_TB_TWO_BLUES)));
    /* under five: every value 0..4 */
    CHECK(applies(NULL, "B4 B4 R4 R4 R0 R1 B1 B2") & bit(ARB_TB_UNDER_FIVE));
    CHECK(!(applies(NULL, "B4 B4 R4 R4 R0 R1 B1 B5")
            & bit(ARB_TB_UNDER_FIVE)));
    CHECK(!(applies(NULL, "B4 B4 R4 R4 R0 R1 B1 P5b")
            & bit(ARB_TB_UNDER_FIVE)));
    /* single four */
    CHECK(applies(NULL, "B2 B2 B2 B2 R1 R3 R5 R0") & bit(ARB_TB_FOUR));
    CHECK(!(applies(NULL, "B2 B2 B2 R2 R1 R3 R5 R0") & bit(ARB_TB_FOUR)));
    CHECK(applies(NULL, "B5 B5 B5 B5 P5b R3 R1 R0") & bit(ARB_TB_FOUR));
    /* one colour: 2, or 3 when red */
    CHECK_INT(points_of(NULL, "B1 B2 B3 B4 B5 B6 B7 B1", ARB_TB_ONE_COLOUR),
              2);
    CHECK_INT(points_of(NULL, "R1 R2 R3 R4 R5 R6 R7 R0", ARB_TB_ONE_COLOUR),
              3);
    CHECK_INT(points_of(NULL, "B1 B2 B3 B4 B5 B6 B7 P7b", ARB_TB_ONE_COLOUR),
              2);
    CHECK(!(applies(NULL, "B1 B2 B3 B4 B5 B6 B7 R1")
            & bit(ARB_TB_ONE_COLOUR)));
    CHECK(!(applies(NULL, "B1 B2 B3 B4 B5 B6 B7 P7r")
            & bit(ARB_TB_ONE_COLOUR)));
    /* eight: only the purple 8 */
    CHECK(applies(NULL, "P8r B2 B3 R1 R2 R3 R4 R0") & bit(ARB_TB_EIGHT));
    CHECK(!(applies(NULL, "P7r B2 B3 R1 R2 R3 R4 R0") & bit(ARB_TB_EIGHT)));
    /* double three: 3, +1 when both have one value */
    CHECK_INT(points_of(NULL, "B2 B2 B2 R6 R6 R6 R1 R0",
                        ARB_TB_DOUBLE_THREE), 3);
    CHECK_INT(points_of(NULL, "B3 B3 B3 R3 R3 R3 R1 R0",
                        ARB_TB_DOUBLE_THREE), 4);
    CHECK(!(applies(NULL, "B2 B2 B2 R6 R6 R1 R1 R0")
            & bit(ARB_TB_DOUBLE_THREE)));
    /* multi: a three and a four */
    CHECK(applies(NULL, "B2 B2 B2 B2 R6 R6 R6 R0") & bit(ARB_TB_MULTI));
    CHECK(!(applies(NULL, "B2 B2 B2 B2 R6 R6 R5 R0") & bit(ARB_TB_MULTI)));
    /* the seed's points ("Бонусы в 5 очков Мульти") */
    CHECK_INT(points_of(NULL, "B2 B2 B2 B2 R6 R6 R6 R0", ARB_TB_MULTI), 5);
    /* double four */
    CHECK(applies(NULL, "B2 B2 B2 B2 R6 R6 R6 R6") & bit(ARB_TB_DOUBLE_FOUR));
    CHECK(!(applies(NULL, "B2 B2 B2 B2 R6 R6 R6 P6b")
            & bit(ARB_TB_DOUBLE_FOUR)));
    CHECK(applies(NULL, "B6 B6 B6 P6b R2 R2 R2 R2")
          & bit(ARB_TB_DOUBLE_FOUR));
    /* divine ten: every chip of one value */
    CHECK(applies(NULL, "B5 B5 B5 B5 R5 R5 R5 R5") & bit(ARB_TB_DIVINE));
    CHECK(applies(NULL, "B5 B5 B5 B5 R5 R5 R5 P5r") & bit(ARB_TB_DIVINE));
    CHECK(!(applies(NULL, "B5 B5 B5 B5 R5 R5 R5 R4") & bit(ARB_TB_DIVINE)));
    /* heaven comes from the play, not the chips */
    {
        arb_tsuku_arr_t a;
        int             pts[ARB_TB_COUNT];
        CHECK_INT(arr_of(&a, NULL, "B1 B2 B3 R1 R2 R3 R4 R0"), 0);
        m = arb_tsuku_bonus_applies(&a, 1, pts);
        CHECK(m & bit(ARB_TB_HEAVEN));
        CHECK_INT(pts[ARB_TB_HEAVEN], 3);
        m = arb_tsuku_bonus_applies(&a, 0, pts);
        CHECK(!(m & bit(ARB_TB_HEAVEN)));
    }
    CHECK_STR(arb_tsuku_bonus_name(ARB_TB_DIVINE), "divine-ten");
    CHECK_STR(arb_tsuku_bonus_name(ARB_TB_CLOSED), "closed-hand");
}

/* Every bonus's points as the seed's table gives them ("Бонусы в 1
 * очко" ... "Бонусы в 25 очков"), each on a hand that meets it: pts[]
 * is what a round record lists and adds. */
static void
test_bonus_points(void)
{
    static const struct {
        const char *hand;
        int         bonus, points;
    } t[] = {
        { "B1+B2+B3 R4 R4 R5 R6 R7", ARB_TB_CLOSED, 1 },
        { "R0 B2 B2 B3 B3 R4 R4 R2", ARB_TB_NO_ONES, 1 },
        { "B4 B4 B4 R1 R2 R3 B1 B2", ARB_TB_THREE, 1 },
        { "B1 B2 B3 B4 R1 R2 R3 R4", ARB_TB_HALF, 1 },
        { "B7 B2 B3 R1 R2 R3 R4 R0", ARB_TB_SEVEN, 1 },
        { "B1 B2 B3 B4 B5 R1 R1 R2", ARB_TB_STRAIGHT, 1 },
        { "B1 B2 R3 R1 R2 R3 R4 R0", ARB_TB_TWO_BLUES, 1 },
        { "B4 B4 R4 R4 R0 R1 B1 B2", ARB_TB_UNDER_FIVE, 2 },
        { "B2 B2 B2 B2 R1 R3 R5 R0", ARB_TB_FOUR, 2 },
        { "P8r B2 B3 R1 R2 R3 R4 R0", ARB_TB_EIGHT, 2 },
        { "B2 B2 B2 B2 R6 R6 R6 R0", ARB_TB_MULTI, 5 },
        { "B2 B2 B2 B2 R6 R6 R6 R6", ARB_TB_DOUBLE_FOUR, 10 },
        { "B5 B5 B5 B5 R5 R5 R5 R5", ARB_TB_DIVINE, 25 },
    };
    size_t i;

    for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        CHECK_INT(points_of(NULL, t[i].hand, t[i].bonus), t[i].points);
}

static void
test_exclusions(void)
{
    static const int a[4] = { ARB_TB_THREE, ARB_TB_FOUR, ARB_TB_MULTI,
                              ARB_TB_DOUBLE_FOUR };
    unsigned         m;
    int              i, j;

    /* every pair of the first group keeps only the more valuable one */
    for (i = 0; i < 4; i++)
        for (j = i + 1; j < 4; j++) {
            m = arb_tsuku_bonus_exclude(bit(a[i]) | bit(a[j])
                                        | bit(ARB_TB_SEVEN), 0);
            CHECK_INT(m, bit(a[j]) | bit(ARB_TB_SEVEN));
        }
    /* the second group */
    m = arb_tsuku_bonus_exclude(bit(ARB_TB_THREE) | bit(ARB_TB_DOUBLE_THREE), 0);
    CHECK_INT(m, bit(ARB_TB_DOUBLE_THREE));
    /* double three is in no group with four, multi or double four */
    m = arb_tsuku_bonus_exclude(bit(ARB_TB_DOUBLE_THREE) | bit(ARB_TB_FOUR), 0);
    CHECK_INT(m, bit(ARB_TB_DOUBLE_THREE) | bit(ARB_TB_FOUR));
    m = arb_tsuku_bonus_exclude(bit(ARB_TB_DOUBLE_THREE) | bit(ARB_TB_MULTI)
                                | bit(ARB_TB_THREE), 0);
    CHECK_INT(m, bit(ARB_TB_DOUBLE_THREE) | bit(ARB_TB_MULTI));
    /* and nothing else is excluded */
    m = arb_tsuku_bonus_exclude(0xffffu & ~(bit(ARB_TB_THREE)
                                            | bit(ARB_TB_FOUR)
                                            | bit(ARB_TB_MULTI)), 0);
    CHECK_INT(m, 0xffffu & ~(bit(ARB_TB_THREE) | bit(ARB_TB_FOUR)
                             | bit(ARB_TB_MULTI)));

    /* on real hands: a four and a three is multi alone */
    m = applies(NULL, "B2 B2 B2 B2 R6 R6 R6 R0");
    CHECK((m & (bit(ARB_TB_THREE) | bit(ARB_TB_FOUR) | bit(ARB_TB_MULTI)))
          == (bit(ARB_TB_THREE) | bit(ARB_TB_FOUR) | bit(ARB_TB_MULTI)));
    m = arb_tsuku_bonus_exclude(m, 0);
    CHECK(m & bit(ARB_TB_MULTI));
    CHECK(!(m & (bit(ARB_TB_THREE) | bit(ARB_TB_FOUR)
                 | bit(ARB_TB_DOUBLE_THREE))));
    /* two fours: double four alone (a four is not also a three) */
    m = arb_tsuku_bonus_exclude(applies(NULL, "B2 B2 B2 B2 R6 R6 R6 R6"), 0);
    CHECK(m & bit(ARB_TB_DOUBLE_FOUR));
    CHECK(!(m & (bit(ARB_TB_THREE) | bit(ARB_TB_FOUR) | bit(ARB_TB_MULTI)
                 | bit(ARB_TB_DOUBLE_THREE))));
    /* two threes: double three alone */
    m = arb_tsuku_bonus_exclude(applies(NULL, "B2 B2 B2 R6 R6 R6 R1 R0"), 0);
    CHECK(m & bit(ARB_TB_DOUBLE_THREE));
    CHECK(!(m & bit(ARB_TB_THREE)));
    /* a single four alone */
    m = arb_tsuku_bonus_exclude(applies(NULL, "B2 B2 B2 B2 R1 R3 R5 R0"), 0);
    CHECK(m & bit(ARB_TB_FOUR));
    CHECK(!(m & bit(ARB_TB_THREE)));
    /* the second exclusion as written (issue 15): "Тройка (одиночная) и
     * Двойка (двойная)" is three and double four, which the first group
     * already excludes; a three then stands beside a double three */
    m = arb_tsuku_bonus_exclude(bit(ARB_TB_THREE) | bit(ARB_TB_DOUBLE_THREE),
                                1);
    CHECK_INT(m, bit(ARB_TB_THREE) | bit(ARB_TB_DOUBLE_THREE));
    m = arb_tsuku_bonus_exclude(bit(ARB_TB_THREE) | bit(ARB_TB_DOUBLE_FOUR),
                                1);
    CHECK_INT(m, bit(ARB_TB_DOUBLE_FOUR));
    m = arb_tsuku_bonus_exclude(bit(ARB_TB_THREE) | bit(ARB_TB_MULTI), 1);
    CHECK_INT(m, bit(ARB_TB_MULTI));
    m = arb_tsuku_bonus_exclude(applies(NULL, "B2 B2 B2 R6 R6 R6 R1 R0"), 1);
    CHECK(m & bit(ARB_TB_DOUBLE_THREE));
    CHECK(m & bit(ARB_TB_THREE));
}

static void
test_scoring(void)
{
    arb_tsuku_arr_t   a, *v = NULL;
    arb_tsuku_score_t s;
    arb_tsuku_ctx_t   simple = { 0, 1, 1, 0 }, ext = { 1, 0, 0, 0 };
    int               counts[ARB_TSUKU_KINDS];
    size_t            n = 0, best;

    /* divine ten: 2 + closed 1 + no ones 1 + half colour 1 + double four
     * 10 + divine ten 25 */
    CHECK_INT(arr_of(&a, NULL, "B5+B5+B5 R5+R5+R5 B5 R5"), 0);
    CHECK_INT(a.value, 10);
    arb_tsuku_score(&s, &a, &ext);
    CHECK_INT(s.base, 2);
    CHECK_INT(s.points, 40);
    CHECK_INT(s.mask, bit(ARB_TB_CLOSED) | bit(ARB_TB_NO_ONES)
              | bit(ARB_TB_HALF) | bit(ARB_TB_DOUBLE_FOUR)
              | bit(ARB_TB_DIVINE));
    ext.dealer = 1;
    arb_tsuku_score(&s, &a, &ext);
    CHECK_INT(s.base, 3);
    CHECK_INT(s.points, 41);
    /* simple scoring: one point, no bonuses, whoever deals */
    arb_tsuku_score(&s, &a, &simple);
    CHECK_INT(s.points, 1);
    CHECK_INT(s.mask, 0);
    /* the best arrangement is chosen by points, not by order: P8 as blue
     * makes the hand one colour */
    ext.dealer = 0;
    counts_of(counts, "B1 B1 B1 B4 B4 B4 B2 P8");
    CHECK_INT(arb_tsuku_arr_search(&v, &n, NULL, 0, counts, 10), 0);
    CHECK_INT(n, 2);
    if (n == 2) {
        best = arb_tsuku_best(v, n, &ext, &s);
        CHECK_STR(v[best].text, "B1+B1+B1 B4+B4+B4 B2 P8b");
        CHECK_INT(s.points, 2 + 1 + 3 + 2 + 2);  /* closed, double three,
                                                    one colour, eight */
        /* a tie keeps the first in canonical order */
        best = arb_tsuku_best(v, n, &simple, &s);
        CHECK_INT(best, 0);
    }
    free(v);
}

/* ---- brute-force cross-check --------------------------------------------- */

/* The test's own chip model: colour letter, value; purple plays as 'b' or
 * 'r'.  Kind order: B1..B7, R0..R7, P5..P8 (colour, then value). */
typedef struct bchip {
    char col;       /* 'B', 'R', 'P' */
    int  val;
    char as;        /* 'b' / 'r' when played */
} bchip_t;

static int
bkey(const bchip_t *c)
{
    int k = (c->col == 'B' ? 0 : c->col == 'R' ? 100 : 200) + c->val * 2;
    return c->col == 'P' ? k + (c->as == 'r') : k;
}

static int
bcmp_single(const void *a, const void *b)
{
    return bkey(a) - bkey(b);
}

static int
bcmp_inset(const void *a, const void *b)
{
    const bchip_t *x = a, *y = b;

    return x->val != y->val ? x->val - y->val : bkey(x) - bkey(y);
}

static int
bcmp_str(const void *a, const void *b)
{
    return strcmp(a, b);
}

static void
bname(char *out, const bchip_t *c)
{
    if (c->col == 'P')
        sprintf(out, "P%d%c", c->val, c->as);
    else
        sprintf(out, "%c%d", c->col, c->val);
}

/* Value of three chips as a set, or -1. */
static int
bset(bchip_t c[3])
{
    char col[3];
    int  i;

    for (i = 0; i < 3; i++)
        col[i] = c[i].col == 'P' ? (c[i].as == 'b' ? 'B' : 'R') : c[i].col;
    if (col[0] != col[1] || col[1] != col[2])
        return -1;
    qsort(c, 3, sizeof(c[0]), bcmp_inset);
    if (c[0].val == c[1].val && c[1].val == c[2].val)
        return 0;
    if (c[1].val == c[0].val + 1 && c[2].val == c[1].val + 1)
        return col[0] == 'B' ? c[0].val : c[2].val;
    return -1;
}

typedef char btext_t[64];

/* Every arrangement worth 10 of concealed chips h[0..n) beside open sets
 * of total value openval and count nopen, by brute force over every label
 * (single / set A / set B) of every chip and every purple colour. */
static size_t
brute(const bchip_t *h, int n, int nopen, int openval, btext_t *out,
      size_t max)
{
    int      lab[8], i, p, np, total, cnt[3], val, code, purple[8];
    size_t   nout = 0, k, w;
    bchip_t  c[8], g[3][8];
    char     sets[2][32], nm[8];
    unsigned mask;

    for (np = 0, i = 0; i < n; i++)
        if (h[i].col == 'P')
            purple[np++] = i;
    total = 1;
    for (i = 0; i < n; i++)
        total *= 3;
    for (code = 0; code < total; code++) {
        int x = code;
        cnt[0] = cnt[1] = cnt[2] = 0;
        for (i = 0; i < n; i++) {
            lab[i] = x % 3;
            x /= 3;
            cnt[lab[i]]++;
        }
        if ((cnt[1] != 0 && cnt[1] != 3) || (cnt[2] != 0 && cnt[2] != 3)
            || (cnt[2] == 3 && cnt[1] == 0)
            || nopen + (cnt[1] == 3) + (cnt[2] == 3) > 2)
            continue;
        for (mask = 0; mask < (1u << np); mask++) {
            memcpy(c, h, (size_t)n * sizeof(c[0]));
            for (p = 0; p < np; p++)
                c[purple[p]].as = (mask >> p) & 1 ? 'r' : 'b';
            cnt[0] = cnt[1] = cnt[2] = 0;
            for (i = 0; i < n; i++)
                g[lab[i]][cnt[lab[i]]++] = c[i];
            val = openval;
            for (i = 1; i <= 2 && val >= 0; i++) {
                if (cnt[i] == 0)
                    continue;
                int sv = bset(g[i]);
                if (sv < 0)
                    val = -1;
                else
                    val += sv;
            }
            if (val < 0)
                continue;
            for (i = 0; i < cnt[0]; i++)
                val += g[0][i].val;
            if (val != 10)
                continue;
            /* canonical text */
            for (i = 1; i <= 2; i++) {
                sets[i - 1][0] = '\0';
                if (cnt[i] == 0)
                    continue;
                for (k = 0; k < 3; k++) {
                    bname(nm, &g[i][k]);
                    strcat(sets[i - 1], k ? "+" : "");
                    strcat(sets[i - 1], nm);
                }
            }
            qsort(g[0], (size_t)cnt[0], sizeof(g[0][0]), bcmp_single);
            out[nout][0] = '\0';
            if (cnt[1] && cnt[2] && strcmp(sets[0], sets[1]) > 0) {
                char t[32];
                strcpy(t, sets[0]);
                strcpy(sets[0], sets[1]);
                strcpy(sets[1], t);
            }
            for (i = 0; i < 2; i++)
                if (sets[i][0] != '\0') {
                    strcat(out[nout], out[nout][0] ? " " : "");
                    strcat(out[nout], sets[i]);
                }
            for (i = 0; i < cnt[0]; i++) {
                bname(nm, &g[0][i]);
                strcat(out[nout], out[nout][0] ? " " : "");
                strcat(out[nout], nm);
            }
            if (nout + 1 < max)
                nout++;
        }
    }
    qsort(out, nout, sizeof(out[0]), bcmp_str);
    for (k = 1, w = nout ? 1 : 0; k < nout; k++)
        if (strcmp(out[k], out[w - 1]) != 0)
            memmove(out[w++], out[k], sizeof(out[0]));
    return w;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t
rng(void)
{
    /* xorshift64*: fixed seed, so every run checks the same hands */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

/* The 61 chips by the test's own list. */
static int
bdeck(bchip_t *d)
{
    int n = 0, v, j;

    for (v = 1; v <= 7; v++)
        for (j = 0; j < 4; j++)
            d[n++] = (bchip_t){ 'B', v, 'b' };
    d[n++] = (bchip_t){ 'R', 0, 'r' };
    for (v = 1; v <= 7; v++)
        for (j = 0; j < 4; j++)
            d[n++] = (bchip_t){ 'R', v, 'r' };
    for (v = 5; v <= 8; v++)
        d[n++] = (bchip_t){ 'P', v, 'b' };
    return n;
}

/* One random hand; mode 0 uniform, 1 values up to 4 and purple, 2 values
 * up to 3 and purple, 3 the same with one open set, 4 with two.  Returns
 * the concealed count, fills open text. */
static int
random_hand(int mode, bchip_t *h, char *open, int *nopen, int *openval)
{
    bchip_t d[ARB_TSUKU_CHIPS], pool[ARB_TSUKU_CHIPS], s[3];
    int     n = bdeck(d), np = 0, i, want, tries, k, sv;
    char    nm[8];

    /* Uniform hands are rarely worth 10; low values and purple chips make
     * the interesting cases common. */
    for (i = 0; i < n; i++)
        if (mode == 0 || d[i].col == 'P' || d[i].val <= (mode == 1 ? 4 : 3))
            pool[np++] = d[i];
    *nopen = 0;
    *openval = 0;
    open[0] = '\0';
    want = mode == 3 ? 1 : mode == 4 ? 2 : 0;
    for (tries = 0; *nopen < want && tries < 100000; tries++) {
        int idx[3];
        idx[0] = (int)(rng() % (uint64_t)np);
        idx[1] = (int)(rng() % (uint64_t)np);
        idx[2] = (int)(rng() % (uint64_t)np);
        if (idx[0] == idx[1] || idx[1] == idx[2] || idx[0] == idx[2])
            continue;
        for (k = 0; k < 3; k++) {
            s[k] = pool[idx[k]];
            s[k].as = rng() & 1 ? 'r' : 'b';
        }
        for (k = 0; k < 3; k++)     /* purple follows the set's colour */
            if (s[k].col == 'P')
                s[k].as = s[0].col == 'P' ? (s[1].col == 'P'
                          ? (s[2].col == 'P' ? s[0].as
                             : (s[2].col == 'B' ? 'b' : 'r'))
                          : (s[1].col == 'B' ? 'b' : 'r'))
                          : (s[0].col == 'B' ? 'b' : 'r');
        if (s[0].col == 'P' && s[1].col == 'P' && s[2].col == 'P')
            s[1].as = s[2].as = s[0].as;
        {
            bchip_t t[3];
            memcpy(t, s, sizeof(t));
            sv = bset(t);
            if (sv < 0)
                continue;
            memcpy(s, t, sizeof(t));
        }
        for (k = 0; k < 3; k++) {
            bname(nm, &s[k]);
            if (s[k].col != 'P')
                nm[2] = '\0';
            strcat(open, k == 0 ? (*nopen ? " " : "") : "+");
            strcat(open, nm);
        }
        *openval += sv;
        /* remove the three from the pool */
        for (k = 0; k < 3; k++) {
            int j;
            for (j = 0; j < np; j++)
                if (pool[j].col == s[k].col && pool[j].val == s[k].val) {
                    pool[j] = pool[--np];
                    break;
                }
        }
        (*nopen)++;
    }
    n = ARB_TSUKU_FULL - 3 * *nopen;
    for (i = 0; i < n; i++) {
        k = (int)(rng() % (uint64_t)np);
        h[i] = pool[k];
        pool[k] = pool[--np];
    }
    return n;
}

static void
test_cross_check(void)
{
    static btext_t want[4096];
    arb_tsuku_arr_t *v;
    arb_tsuku_set_t  o[2];
    bchip_t          h[8];
    char             open[64], hand[64], nm[8];
    int              counts[ARB_TSUKU_KINDS], mode, i, n, nopen, openval;
    int              trial, bad = 0, hits = 0, several = 0, purple = 0;
    size_t           nv, nw, k;

    for (trial = 0; trial < 8000; trial++) {
        mode = trial % 5;
        n = random_hand(mode, h, open, &nopen, &openval);
        hand[0] = '\0';
        for (i = 0; i < n; i++) {
            bname(nm, &h[i]);
            if (h[i].col == 'P')
                nm[2] = '\0';
            strcat(hand, i ? " " : "");
            strcat(hand, nm);
        }
        if (open_sets(o, nopen ? open : NULL) != nopen) {
            bad++;
            continue;
        }
        counts_of(counts, hand);
        v = NULL;
        if (arb_tsuku_arr_search(&v, &nv, o, nopen, counts, 10) != 0) {
            bad++;
            continue;
        }
        nw = brute(h, n, nopen, openval, want, 4096);
        if (nw != nv) {
            if (bad++ < 5)
                fprintf(stderr, "cross-check: [%s] %s: engine %zu, brute "
                        "%zu\n", open, hand, nv, nw);
        } else {
            for (k = 0; k < nv; k++)
                if (strcmp(v[k].text, want[k]) != 0) {
                    if (bad++ < 5)
                        fprintf(stderr, "cross-check: [%s] %s: engine '%s', "
                                "brute '%s'\n", open, hand, v[k].text,
                                want[k]);
                    break;
                }
        }
        hits += nv > 0;
        several += nv > 1;
        for (k = 0; k < nv; k++)
            if (strchr(v[k].text, 'P') != NULL) {
                purple++;
                break;
            }
        free(v);
    }
    CHECK_INT(bad, 0);
    /* the hands must have exercised the interesting cases */
    CHECK(hits > 400);
    CHECK(several > 80);
    CHECK(purple > 80);
    printf("cross-check: 8000 hands, %d worth 10, %d with several "
           "arrangements, %d with purple chips\n", hits, several, purple);
}

int
main(void)
{
    test_chips();
    test_sets();
    test_declare();
    test_search();
    test_bonuses();
    test_bonus_points();
    test_exclusions();
    test_scoring();
    test_cross_check();
    return TEST_END();
}
