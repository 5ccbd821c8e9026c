/*
 * move_text.c - a typed move into an event (core/move_text.h).
 */
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/jsonin.h"
#include "core/move_text.h"
#include "core/narrate.h"

size_t
arb_move_words(char *buf, char **w, size_t max)
{
    size_t n = 0;
    char  *p = buf;

    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\0' || n == max)
            return n;
        w[n++] = p;
        while (*p != '\0' && *p != ' ' && *p != '\t')
            p++;
        if (*p != '\0')
            *p++ = '\0';
    }
}

static int
seated(const arb_match_t *m, const char *name)
{
    return arb_setup_seat(arb_match_setup(m), name) >= 0;
}

int
arb_move_from_words(const arb_match_t *m, const char *as, char *const *w,
                    size_t n, arb_event_t *ev, arb_buf_t *why)
{
    const arb_rules_t *rules = arb_match_rules(m);
    const char        *bare = arb_narrate_bare_verb(rules);
    json_t            *d = NULL;
    arb_buf_t          b = ARB_BUF_INIT;
    const char        *player, *verb;
    char               spelt[64];
    size_t             i, first;
    int                rc = ARB_ENOMEM;

    if (n == 0) {
        arb_buf_puts(why, "the move is empty");
        return ARB_EINVAL;
    }
    if (n >= 2 && !seated(m, w[0]) && seated(m, w[1])) {
        verb = w[0];
        player = w[1];
        first = 2;
    } else if (bare != NULL && seated(m, w[0])) {
        verb = bare;
        player = w[0];
        first = 1;
    } else if (bare != NULL) {
        verb = bare;
        player = as;
        if (player == NULL) {
            arb_match_describe(m, &b);
            if (b.data != NULL)
                arb_json_parse(&d, b.data, b.len, NULL);
            player = json_string_value(json_object_get(d, "turn"));
        }
        /* Nobody's turn: the match is over, and the rules say so. */
        if (player == NULL)
            player = arb_match_setup(m)->players[0].name;
        first = 0;
    } else {
        arb_buf_printf(why, "write the move out: VERB PLAYER ARG... ('%s' "
                       "is no player of this match)", w[0]);
        return ARB_EINVAL;
    }
    ev->kind = ARB_EV_MOVE;
    ev->player = strdup(player);
    ev->verb = strdup(verb);
    if (ev->player == NULL || ev->verb == NULL)
        goto done;
    for (i = first; i < n; i++)
        if (arb_event_add_arg(ev, arb_narrate_spell_arg(rules, i - first,
                                                        w[i], spelt,
                                                        sizeof(spelt))) != 0)
            goto done;
    rc = 0;
done:
    if (rc == ARB_ENOMEM)
        arb_buf_puts(why, "out of memory");
    json_decref(d);
    arb_buf_free(&b);
    return rc;
}
