/*
 * chan_narrate.c - Chắn in a console's words (core/narrate.h): what a
 * draw turned up.  The rest is the generic words of its position.
 */
#include <stdio.h>
#include <string.h>

#include "core/json.h"
#include "core/rules.h"
#include "core/rules/chan_card.h"

/* "; binh flips 6V": the stock card a draw turned up, as the position
 * after it shows it on the table.  A console that never said it left a
 * deal keyed in wrong unseen until the result (until 2026-12-06). */
static void
chan_effect(arb_buf_t *out, const json_t *before, const json_t *after,
            const arb_event_t *ev)
{
    const json_t *t = json_object_get(after, "table");
    const char   *card = json_string_value(json_object_get(t, "card"));
    const char   *origin = json_string_value(json_object_get(t, "origin"));
    const char   *from = json_string_value(json_object_get(t, "from"));

    (void)before;
    if (ev->kind != ARB_EV_MOVE || ev->verb == NULL || ev->player == NULL
        || strcmp(ev->verb, "draw") != 0 || card == NULL || origin == NULL
        || strcmp(origin, "stock") != 0 || from == NULL
        || strcmp(from, ev->player) != 0)
        return;
    arb_buf_printf(out, "; %s flips %s", from, card);
}

/* A typed card as the log spells it ("3v", "3V" and the card's other
 * spellings are one card: 3V); a word that is no card (a claim's) as
 * typed.  Until 2026-12-06 every card was recorded as typed. */
static const char *
chan_spell_arg(const char *verb, size_t i, const char *arg, char *out,
               size_t n)
{
    char buf[8], err[8];
    int  face;

    (void)i;
    if (strcmp(verb, "declare") == 0
        || arb_chan_card_parse(&face, arg, strlen(arg), err, sizeof(err)) != 0)
        return arg;
    snprintf(out, n, "%s", arb_chan_card_format(buf, face));
    return out;
}

const arb_narration_t arb__chan_narration = {
    .effect = chan_effect,
    .spell_arg = chan_spell_arg,
};
