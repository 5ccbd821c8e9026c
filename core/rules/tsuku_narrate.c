/*
 * tsuku_narrate.c - Tsukurutenten in a console's words (core/narrate.h):
 * the chip a draw took, to a viewer who sees the drawer's hand.  The rest
 * is the generic words of its position.
 */
#include <stdio.h>
#include <string.h>

#include "core/json.h"
#include "core/limits.h"
#include "core/rules.h"
#include "core/rules/tsuku_chip.h"

/* The hand_cards of player `name` in position pos, or NULL (hidden from
 * this viewer, or no such player). */
static const json_t *
hand_of(const json_t *pos, const char *name)
{
    const json_t *p;
    size_t        i;

    json_array_foreach(json_object_get(pos, "players"), i, p) {
        const char *n = json_string_value(json_object_get(p, "name"));
        if (n != NULL && strcmp(n, name) == 0)
            return json_object_get(p, "hand_cards");
    }
    return NULL;
}

/* "; ann draws B2": the one chip the drawer's hand gained (both hands
 * are listed in the same order, chip by chip).  Nothing when the hand is
 * hidden from this viewer, or did not gain exactly one. */
static void
tsuku_effect(arb_buf_t *out, const json_t *before, const json_t *after,
             const arb_event_t *ev)
{
    const json_t *b, *a;
    const char   *x, *y;
    size_t        i, nb, na;

    if (ev->kind != ARB_EV_MOVE || ev->verb == NULL || ev->player == NULL
        || strcmp(ev->verb, "draw") != 0)
        return;
    b = hand_of(before, ev->player);
    a = hand_of(after, ev->player);
    nb = json_array_size(b);
    na = json_array_size(a);
    if (b == NULL || a == NULL || na != nb + 1)
        return;
    for (i = 0; i < nb; i++) {
        x = json_string_value(json_array_get(b, i));
        y = json_string_value(json_array_get(a, i));
        if (x == NULL || y == NULL || strcmp(x, y) != 0)
            break;
    }
    y = json_string_value(json_array_get(a, i));
    if (y != NULL)
        arb_buf_printf(out, "; %s draws %s", ev->player, y);
}

/* A typed chip as the log spells it (b4 is B4, p7B is P7b), and a word
 * of chips chip by chip (b1b2r0 is B1B2R0), as long as an argument may
 * be (a chip is two bytes at least; until 2026-12-06 a word of more
 * than 16, a deal's, was recorded as typed); anything else as typed.
 * Until 2026-12-06 every chip was recorded as typed. */
static const char *
tsuku_spell_arg(const char *verb, size_t i, const char *arg, char *out,
                size_t n)
{
    arb_tsuku_chip_t c;
    int              kinds[ARB_ARG_BYTES / 2];
    size_t           k, nk = 0, len = 0;
    char             err[8], chip[8];

    (void)verb;
    (void)i;
    if (arb_tsuku_chip_parse(&c, arg, strlen(arg), 1, err, sizeof(err)) == 0) {
        arb_tsuku_chip_format(chip, c);
        snprintf(out, n, "%s", chip);
        return out;
    }
    if (arb_tsuku_chips_parse(kinds, sizeof(kinds) / sizeof(kinds[0]), &nk,
                              arg, err, sizeof(err)) != 0
        || nk == 0 || n < 3 * nk + 1)
        return arg;
    for (k = 0; k < nk; k++) {
        c.kind = kinds[k];
        c.as = ARB_TSUKU_ANY;
        arb_tsuku_chip_format(out + len, c);
        len += strlen(out + len);
    }
    return out;
}

const arb_narration_t arb__tsuku_narration = {
    .effect = tsuku_effect,
    .spell_arg = tsuku_spell_arg,
};
