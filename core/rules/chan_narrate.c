/*
 * chan_narrate.c - Chắn in a console's words (core/narrate.h): what a
 * draw turned up.  The rest is the generic words of its position.
 */
#include <string.h>

#include "core/json.h"
#include "core/rules.h"

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

const arb_narration_t arb__chan_narration = {
    .effect = chan_effect,
};
