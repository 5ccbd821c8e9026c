#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "core/rules/tsuku_chip.h"

#define KIND_RED0    7
#define KIND_PURPLE5 15

int
arb_tsuku_kind_colour(int kind)
{
    if (kind < KIND_RED0)
        return ARB_TSUKU_BLUE;
    return kind < KIND_PURPLE5 ? ARB_TSUKU_RED : ARB_TSUKU_PURPLE;
}

int
arb_tsuku_kind_value(int kind)
{
    if (kind < KIND_RED0)
        return kind + 1;
    return kind < KIND_PURPLE5 ? kind - KIND_RED0 : kind - KIND_PURPLE5 + 5;
}

int
arb_tsuku_kind_copies(int kind)
{
    return kind == KIND_RED0 || kind >= KIND_PURPLE5 ? 1 : 4;
}

int
arb_tsuku_kind_of(int colour, int value)
{
    switch (colour) {
    case ARB_TSUKU_BLUE:
        return value >= 1 && value <= 7 ? value - 1 : -1;
    case ARB_TSUKU_RED:
        return value >= 0 && value <= 7 ? KIND_RED0 + value : -1;
    case ARB_TSUKU_PURPLE:
        return value >= 5 && value <= 8 ? KIND_PURPLE5 + value - 5 : -1;
    }
    return -1;
}

void
arb_tsuku_deck(int kinds[ARB_TSUKU_CHIPS])
{
    int k, j, n = 0;

    for (k = 0; k < ARB_TSUKU_KINDS; k++)
        for (j = 0; j < arb_tsuku_kind_copies(k); j++)
            kinds[n++] = k;
}

arb_tsuku_chip_t
arb_tsuku_chip_of(int kind)
{
    arb_tsuku_chip_t c;
    int              col = arb_tsuku_kind_colour(kind);

    c.kind = kind;
    c.as = col == ARB_TSUKU_PURPLE ? ARB_TSUKU_ANY : col;
    return c;
}

static int
colour_letter(char ch)
{
    switch (ch) {
    case 'B': case 'b': return ARB_TSUKU_BLUE;
    case 'R': case 'r': return ARB_TSUKU_RED;
    case 'P': case 'p': return ARB_TSUKU_PURPLE;
    }
    return -1;
}

/* The value range of each colour, for "does not exist" messages. */
static const char *
range_of(int colour)
{
    switch (colour) {
    case ARB_TSUKU_BLUE: return "blue chips are B1..B7";
    case ARB_TSUKU_RED:  return "red chips are R0..R7";
    }
    return "purple chips are P5..P8";
}

int
arb_tsuku_chip_parse(arb_tsuku_chip_t *c, const char *s, size_t len,
                     int with_colour, char *err, size_t errlen)
{
    int col, v, kind, as;

    if (len == 0) {
        snprintf(err, errlen, "empty chip: write a colour letter and a "
                 "value, e.g. B4, R0, P7");
        return ARB_EINVAL;
    }
    col = colour_letter(s[0]);
    if (col < 0) {
        snprintf(err, errlen, "chip '%.*s': the colour must be B (blue), "
                 "R (red) or P (purple)", (int)len, s);
        return ARB_EINVAL;
    }
    if (len < 2 || s[1] < '0' || s[1] > '9'
        || (len > 2 && s[2] >= '0' && s[2] <= '9')) {
        snprintf(err, errlen, "chip '%.*s': the value must be one digit "
                 "after the colour, e.g. B4", (int)len, s);
        return ARB_EINVAL;
    }
    v = s[1] - '0';
    kind = arb_tsuku_kind_of(col, v);
    if (kind < 0) {
        snprintf(err, errlen, "chip '%.*s' does not exist: %s", (int)len, s,
                 range_of(col));
        return ARB_EINVAL;
    }
    as = col == ARB_TSUKU_PURPLE ? ARB_TSUKU_ANY : col;
    if (len == 3) {
        int suf = colour_letter(s[2]);
        if (col != ARB_TSUKU_PURPLE) {
            snprintf(err, errlen, "chip '%.*s': only a purple chip takes a "
                     "colour", (int)len, s);
            return ARB_EINVAL;
        }
        if (!with_colour) {
            snprintf(err, errlen, "chip '%.*s': a purple chip has no colour "
                     "here: write P%d", (int)len, s, v);
            return ARB_EINVAL;
        }
        if (suf != ARB_TSUKU_BLUE && suf != ARB_TSUKU_RED) {
            snprintf(err, errlen, "chip '%.*s': a purple chip plays as b "
                     "(blue) or r (red)", (int)len, s);
            return ARB_EINVAL;
        }
        as = suf;
    } else if (len > 3) {
        snprintf(err, errlen, "chip '%.*s' is not a chip: write a colour "
                 "letter and a value, e.g. B4, R0, P7%s", (int)len, s,
                 with_colour ? " or P7b" : "");
        return ARB_EINVAL;
    }
    c->kind = kind;
    c->as = as;
    return 0;
}

int
arb_tsuku_chips_parse(int *kinds, size_t max, size_t *n, const char *s,
                      char *err, size_t errlen)
{
    arb_tsuku_chip_t c;
    size_t           len = strlen(s), i;

    if (len == 0) {
        snprintf(err, errlen, "empty word where chips were expected");
        return ARB_EINVAL;
    }
    for (i = 0; i < len; i += 2) {
        /* Every chip of a deal is exactly two characters, so a word of
         * concatenated chips cuts without ambiguity. */
        if (arb_tsuku_chip_parse(&c, s + i, len - i < 2 ? len - i : 2, 0,
                                 err, errlen) != 0)
            return ARB_EINVAL;
        if (*n == max) {
            snprintf(err, errlen, "more than %zu chips", max);
            return ARB_EINVAL;
        }
        kinds[(*n)++] = c.kind;
    }
    return 0;
}

void
arb_tsuku_chip_format(char *out, arb_tsuku_chip_t c)
{
    static const char letter[3] = { 'B', 'R', 'P' };
    int               col = arb_tsuku_kind_colour(c.kind);

    out[0] = letter[col];
    out[1] = (char)('0' + arb_tsuku_kind_value(c.kind));
    out[2] = '\0';
    if (col == ARB_TSUKU_PURPLE && c.as != ARB_TSUKU_ANY) {
        out[2] = c.as == ARB_TSUKU_BLUE ? 'b' : 'r';
        out[3] = '\0';
    }
}

void
arb_tsuku_chip_words(char *out, size_t len, arb_tsuku_chip_t c)
{
    static const char *const names[3] = { "blue", "red", "purple" };
    int                      col = arb_tsuku_kind_colour(c.kind);

    snprintf(out, len, "%s %d%s%s", names[col], arb_tsuku_kind_value(c.kind),
             col == ARB_TSUKU_PURPLE && c.as != ARB_TSUKU_ANY ? " as " : "",
             col == ARB_TSUKU_PURPLE && c.as != ARB_TSUKU_ANY
             ? names[c.as] : "");
}

int
arb_tsuku_chip_cmp(const arb_tsuku_chip_t *a, const arb_tsuku_chip_t *b)
{
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    if (a->as != b->as)
        return a->as < b->as ? -1 : 1;
    return 0;
}

/* The colour a chip plays as: its own, or the purple chip's choice. */
static int
played_colour(arb_tsuku_chip_t c)
{
    int col = arb_tsuku_kind_colour(c.kind);

    return col == ARB_TSUKU_PURPLE ? c.as : col;
}

static void
sort_by_value(arb_tsuku_chip_t c[3])
{
    arb_tsuku_chip_t t;
    int              i, j, vi, vj;

    for (i = 0; i < 3; i++)
        for (j = i + 1; j < 3; j++) {
            vi = arb_tsuku_kind_value(c[i].kind);
            vj = arb_tsuku_kind_value(c[j].kind);
            if (vj < vi || (vj == vi && arb_tsuku_chip_cmp(&c[j], &c[i]) < 0)) {
                t = c[i];
                c[i] = c[j];
                c[j] = t;
            }
        }
}

/* Why c (sorted by value) is not a set: kept out of arb_tsuku_set_make's
 * way, since the arrangement search tries thousands of groupings that
 * are not sets and asks for no reason (whylen 0). */
static void
set_why(char *why, size_t whylen, const arb_tsuku_chip_t c[3], int reason)
{
    char w[3][32];
    int  i, v[3];

    if (whylen == 0)
        return;
    for (i = 0; i < 3; i++) {
        arb_tsuku_chip_words(w[i], sizeof(w[i]), c[i]);
        v[i] = arb_tsuku_kind_value(c[i].kind);
    }
    if (reason == 0)
        snprintf(why, whylen, "%s, %s, %s is not a set: colours differ",
                 w[0], w[1], w[2]);
    else if (reason == 1)
        snprintf(why, whylen, "%s, %s, %s is not a set yet: three purple "
                 "chips play as one colour chosen when the set is shown "
                 "(P%db+P%db+P%db or P%dr+P%dr+P%dr)", w[0], w[1], w[2],
                 v[0], v[1], v[2], v[0], v[1], v[2]);
    else
        snprintf(why, whylen, "%s, %s, %s is not a set: the values %d, %d, "
                 "%d are neither equal nor consecutive", w[0], w[1], w[2],
                 v[0], v[1], v[2]);
}

int
arb_tsuku_set_make(arb_tsuku_set_t *out, const arb_tsuku_chip_t in[3],
                   char *why, size_t whylen)
{
    arb_tsuku_chip_t c[3];
    int              i, col = ARB_TSUKU_ANY, pc, v[3];

    memcpy(c, in, sizeof(c));
    sort_by_value(c);
    for (i = 0; i < 3; i++)
        v[i] = arb_tsuku_kind_value(c[i].kind);
    for (i = 0; i < 3; i++) {
        pc = played_colour(c[i]);
        if (pc == ARB_TSUKU_ANY)
            continue;
        if (col != ARB_TSUKU_ANY && pc != col) {
            set_why(why, whylen, c, 0);
            return ARB_EILLEGAL;
        }
        col = pc;
    }
    if (col == ARB_TSUKU_ANY) {
        set_why(why, whylen, c, 1);
        return ARB_EILLEGAL;
    }
    if (v[0] == v[1] && v[1] == v[2]) {
        out->form = ARB_TSUKU_TRIPLE;
        out->value = 0;
    } else if (v[1] == v[0] + 1 && v[2] == v[1] + 1) {
        out->form = ARB_TSUKU_RUN;
        out->value = col == ARB_TSUKU_BLUE ? v[0] : v[2];
    } else {
        set_why(why, whylen, c, 2);
        return ARB_EILLEGAL;
    }
    for (i = 0; i < 3; i++)
        c[i].as = col;
    /* Purple chips now carry their colour: re-sort so the canonical order
     * does not depend on how the chips were written. */
    sort_by_value(c);
    memcpy(out->c, c, sizeof(c));
    out->colour = col;
    return 0;
}

void
arb_tsuku_set_format(char *out, const arb_tsuku_set_t *s)
{
    char c[3][8];
    int  i;

    for (i = 0; i < 3; i++)
        arb_tsuku_chip_format(c[i], s->c[i]);
    snprintf(out, ARB_TSUKU_SET_TEXT, "%s+%s+%s", c[0], c[1], c[2]);
}
