/*
 * narrate.c - the dispatch to a rule set's words and the generic words
 * for games that give none (made from results() and describe() only).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/card.h"
#include "core/narrate.h"

/* The rule set's narration member m, or NULL. */
#define OWN(r, m) ((r) != NULL && (r)->narration != NULL \
                   ? (r)->narration->m : NULL)

void
arb_narrate_move(arb_buf_t *out, const arb_rules_t *r, const arb_event_t *ev)
{
    size_t i;

    if (OWN(r, move) != NULL) {
        r->narration->move(out, ev);
        return;
    }
    arb_buf_printf(out, "%s %s", ev->player, ev->verb);
    for (i = 0; i < ev->nargs; i++)
        arb_buf_printf(out, " %s", ev->args[i]);
}

void
arb_narrate_record(arb_buf_t *out, const arb_rules_t *r,
                   const arb_record_t *rec)
{
    size_t i, j;

    if (OWN(r, record) != NULL) {
        r->narration->record(out, rec);
        return;
    }
    arb_buf_printf(out, "result of seq %" PRIu64 ":", rec->seq);
    for (i = 0; i < rec->nfields; i++) {
        const arb_field_t *f = &rec->fields[i];
        /* The match and the edition are the header's; empty says nothing. */
        if (strcmp(f->key, "match_id") == 0 || strcmp(f->key, "edition") == 0
            || (f->type == ARB_F_STR && *f->str == '\0')
            || (f->type == ARB_F_LIST && f->nlist == 0))
            continue;
        arb_buf_printf(out, " %s ", f->key);
        if (f->type == ARB_F_INT)
            arb_buf_printf(out, "%" PRId64, f->num);
        else if (f->type == ARB_F_STR)
            arb_buf_puts(out, f->str);
        else
            for (j = 0; j < f->nlist; j++)
                arb_buf_printf(out, "%s%s", j ? "," : "", f->list[j]);
    }
}

void
arb_narrate_effect(arb_buf_t *out, const arb_rules_t *r, const json_t *before,
                   const json_t *after, const arb_event_t *ev)
{
    if (OWN(r, effect) != NULL)
        r->narration->effect(out, before, after, ev);
}

void
arb_narrate_prompt(arb_buf_t *out, const arb_rules_t *r, const json_t *pos)
{
    if (OWN(r, prompt) != NULL)
        r->narration->prompt(out, pos);
}

void
arb_narrate_header(arb_buf_t *out, const arb_rules_t *r, const json_t *pos)
{
    if (OWN(r, header) != NULL)
        r->narration->header(out, pos);
}

/* A scalar as words: "alice", "30", "yes"; 0 when v is none. */
static int
put_scalar(arb_buf_t *out, const json_t *v)
{
    if (json_is_string(v) && *json_string_value(v) != '\0')
        arb_buf_puts(out, json_string_value(v));
    else if (json_is_integer(v))
        arb_buf_printf(out, "%" PRId64, (int64_t)json_integer_value(v));
    else if (json_is_boolean(v))
        arb_buf_puts(out, json_is_true(v) ? "yes" : "no");
    else
        return 0;
    return 1;
}

/* The position's scalars, and an object's scalars after its key: "; turn
 * alice; stock 30; table card 6V, origin stock" (a Chắn table card was
 * left out until 2026-12-06). */
static void
put_facts(arb_buf_t *out, const json_t *pos)
{
    const char *key, *k2;
    json_t     *v, *v2;
    size_t      n;

    json_object_foreach((json_t *)pos, key, v) {
        if (json_is_object(v)) {
            n = 0;
            json_object_foreach(v, k2, v2) {
                if (!json_is_string(v2) && !json_is_integer(v2)
                    && !json_is_boolean(v2))
                    continue;
                if (json_is_string(v2) && *json_string_value(v2) == '\0')
                    continue;
                if (n++ == 0)
                    arb_buf_printf(out, "; %s %s ", key, k2);
                else
                    arb_buf_printf(out, ", %s ", k2);
                put_scalar(out, v2);
            }
            continue;
        }
        if (!json_is_string(v) && !json_is_integer(v) && !json_is_boolean(v))
            continue;
        if (json_is_string(v) && *json_string_value(v) == '\0')
            continue;
        arb_buf_printf(out, "; %s ", key);
        put_scalar(out, v);
    }
}

void
arb_narrate_position(arb_buf_t *out, const arb_rules_t *r, const json_t *pos,
                     int screen)
{
    if (OWN(r, position) != NULL && r->narration->position(out, pos, screen))
        return;
    if (screen)
        arb_buf_puts(out, "position");
    else
        arb_buf_printf(out, "game %s", r != NULL ? r->game : "?");
    put_facts(out, pos);
}

const char *
arb_narrate_bare_verb(const arb_rules_t *r)
{
    return OWN(r, bare_verb);
}

const char *
arb_narrate_spell_arg(const arb_rules_t *r, const char *verb, size_t i,
                      const char *arg, char *out, size_t n)
{
    arb_card_t c;
    char       err[8], card[64];

    if (OWN(r, spell_arg) != NULL)
        return r->narration->spell_arg(verb, i, arg, out, n);
    if (i != 0 || r == NULL || r->narration == NULL
        || !r->narration->card_first
        || arb_card_parse(&c, arg, strlen(arg), err, sizeof(err)) != 0)
        return arg;
    arb_card_format(card, c, ARB_CARD_UNICODE);
    snprintf(out, n, "%s", card);
    return out;
}
