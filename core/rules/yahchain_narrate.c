/*
 * yahchain_narrate.c - YAHchain in words for consoles (core/narrate.h):
 * the active Sota and its cards, a completed Sota with its category's
 * name, a Sota that came out VOID.
 *
 * DESIGN: everything here reads the position yah_describe() publishes and
 * the records yah_results() makes, never the private state, so the words
 * can describe a position the console kept from before a move (a VOID
 * Sota under void=clear leaves no trace after it).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/card.h"
#include "core/jsonin.h"
#include "core/rules.h"
#include "core/rules/yahchain_bc.h"

extern const arb_narration_t arb__yahchain_narration;

static const char *
or_q(const char *s)
{
    return s != NULL ? s : "?";
}

static long long
get_int(const json_t *pos, const char *key)
{
    const json_t *v = json_object_get(pos, key);

    return json_is_integer(v) ? (long long)json_integer_value(v) : 0;
}

static const char *
get_str(const json_t *pos, const char *key)
{
    return json_string_value(json_object_get(pos, key));
}

/* A card in its canonical form, or as written when it does not parse. */
static void
card_text(char out[64], const char *s)
{
    arb_card_t c;
    char       err[8];

    if (arb_card_parse(&c, s, strlen(s), err, sizeof(err)) == 0)
        arb_card_format(out, c, ARB_CARD_UNICODE);
    else
        snprintf(out, 64, "%s", s);
}

/* Sota k (1..12) of the position, or NULL. */
static const json_t *
sota(const json_t *pos, long long k)
{
    const json_t *s = json_object_get(pos, "sotas");

    if (k < 1 || (size_t)k > json_array_size(s))
        return NULL;
    return json_array_get(s, (size_t)k - 1);
}

static const json_t *
sota_cards(const json_t *pos, long long k)
{
    const json_t *c = json_object_get(sota(pos, k), "cards");

    return json_is_array(c) ? c : NULL;
}

static void
put_cards(arb_buf_t *out, const json_t *cards, const char *sep)
{
    size_t i;

    for (i = 0; i < json_array_size(cards); i++)
        arb_buf_printf(out, "%s%s", i ? sep : "",
                       or_q(json_string_value(json_array_get(cards, i))));
}

/* "alice placed 4♠". */
static void
yah_move(arb_buf_t *out, const arb_event_t *ev)
{
    char   c[64];
    size_t i;

    if (ev->verb == NULL || strcmp(ev->verb, "place") != 0
        || ev->nargs < 1) {
        arb_buf_printf(out, "%s %s", ev->player, ev->verb);
        for (i = 0; i < ev->nargs; i++)
            arb_buf_printf(out, " %s", ev->args[i]);
        return;
    }
    card_text(c, ev->args[0]);
    arb_buf_printf(out, "%s placed %s", ev->player, c);
    for (i = 1; i < ev->nargs; i++)
        arb_buf_printf(out, " %s", ev->args[i]);
}

static int64_t
field_int(const arb_record_t *rec, const char *key)
{
    const arb_field_t *f = arb_record_get(rec, key);

    return f != NULL && f->type == ARB_F_INT ? f->num : 0;
}

static const char *
field_str(const arb_record_t *rec, const char *key)
{
    const arb_field_t *f = arb_record_get(rec, key);

    return f != NULL && f->type == ARB_F_STR ? f->str : "?";
}

/* "Ladder" for "BC-001" in mode 3, from the category table itself. */
static const char *
category_name(int mode, const char *code)
{
    const char *c;
    int         f;

    for (f = 0; f < ARB_BC_FAMILIES; f++) {
        c = arb_bc_code(mode, f);
        if (c != NULL && strcmp(c, code) == 0)
            return arb_bc_name(mode, f);
    }
    return "";
}

/* "Sota 1 complete: 4♠→5♥→6♦ BC-001 Ladder 15+6 = 21 for alice". */
static void
yah_record(arb_buf_t *out, const arb_record_t *rec)
{
    const arb_field_t *seq = arb_record_get(rec, "sequence");
    const char        *code = field_str(rec, "code");
    size_t             i;

    arb_buf_printf(out, "Sota %" PRId64 " complete: ", field_int(rec, "sota"));
    for (i = 0; seq != NULL && seq->type == ARB_F_LIST && i < seq->nlist; i++)
        arb_buf_printf(out, "%s%s", i ? "→" : "", seq->list[i]);
    arb_buf_printf(out, " %s %s %" PRId64 "+%" PRId64 " = %" PRId64 " for %s",
                   code, category_name((int)field_int(rec, "cards"), code),
                   field_int(rec, "face_sum"), field_int(rec, "bonus"),
                   field_int(rec, "game_points"), field_str(rec, "owner"));
}

/* The mode of a position: 3 for "YCWS-144/3". */
static int
mode_of(const json_t *pos)
{
    const char *m = get_str(pos, "mode");
    const char *slash = m != NULL ? strrchr(m, '/') : NULL;

    return slash != NULL ? atoi(slash + 1) : 0;
}

/* 1 when the Sota's cards and the card played make a category, or hold
 * one physical card twice: then a Sota that fixed no record was voided by
 * a card let stand against §34.11 (docs/rules/yahchain.md), not by a
 * sequence of no category. */
static int
is_category(const json_t *cards, const char *played, int mode)
{
    arb_card_t seq[5];
    arb_bc_t   bc;
    char       err[160];
    size_t     i, n = json_array_size(cards);
    const char *s;

    if (mode < 3 || mode > 5 || n + 1 != (size_t)mode)
        return 0;
    for (i = 0; i <= n; i++) {
        s = i < n ? json_string_value(json_array_get(cards, i)) : played;
        if (s == NULL || arb_card_parse(&seq[i], s, strlen(s), err,
                                        sizeof(err)) != 0)
            return 0;
    }
    return arb_bc_classify(mode, seq, (size_t)mode, &bc, err,
                           sizeof(err)) != 1;
}

/* A move that filled the active Sota and fixed no record made it VOID:
 * by its sequence, or (a category all the same) by a card let stand
 * (until 2026-12-06 both were "no category").  A `stands` ruling places
 * its card as a move does (until 2026-12-07 one that filled the Sota
 * said nothing of the void). */
static void
yah_effect(arb_buf_t *out, const json_t *before, const json_t *after,
           const arb_event_t *ev)
{
    const json_t *cards;
    long long     k;
    char          c[64];

    (void)after;                /* the Sota before the card says it all */
    if ((ev->kind != ARB_EV_MOVE && ev->kind != ARB_EV_STANDS)
        || ev->nargs < 1 || before == NULL)
        return;
    k = get_int(before, "active_sota");
    cards = sota_cards(before, k);
    if (cards != NULL && (int)json_array_size(cards) + 1 == mode_of(before)) {
        card_text(c, ev->args[0]);
        arb_buf_printf(out, "; Sota %lld void: ", k);
        put_cards(out, cards, "→");
        if (is_category(cards, ev->args[0], mode_of(before)))
            arb_buf_printf(out, "→%s: it holds a card let stand against "
                           "§34.11 (out of turn, in a Sota not active, or "
                           "played before): no points", c);
        else
            arb_buf_printf(out, "→%s: no category, no points", c);
    }
}

/* " | Sota 2 [5♥]". */
static void
yah_prompt(arb_buf_t *out, const json_t *pos)
{
    long long k = get_int(pos, "active_sota");

    if (k > 0) {
        arb_buf_printf(out, " | Sota %lld [", k);
        put_cards(out, sota_cards(pos, k), " ");
        arb_buf_putc(out, ']');
    }
}

/* ", cycle 1 of 4, 30 cards left". */
static void
yah_header(arb_buf_t *out, const json_t *pos)
{
    arb_buf_printf(out, ", cycle %lld of %lld, %lld cards left",
                   get_int(pos, "cycle"), get_int(pos, "cycles"),
                   get_int(pos, "cards_left"));
}

/* "Sota 2 [5♥]; turn bob" or, on a screen, "Sota 2 (bob's) [5♥]; bob to
 * play". */
static int
yah_position(arb_buf_t *out, const json_t *pos, int screen)
{
    const char *turn = get_str(pos, "turn");
    long long   k = get_int(pos, "active_sota");

    if (!screen) {
        arb_buf_printf(out, "Sota %lld [", k);
        put_cards(out, sota_cards(pos, k), " ");
        arb_buf_printf(out, "]; turn %s", turn ? turn : "-");
        return 1;
    }
    if (sota(pos, k) == NULL)
        return 0;
    arb_buf_printf(out, "Sota %lld (%s's) [", k,
                   or_q(get_str(sota(pos, k), "owner")));
    put_cards(out, sota_cards(pos, k), " ");
    arb_buf_printf(out, "]; %s to play", turn ? turn : "-");
    return 1;
}

const arb_narration_t arb__yahchain_narration = {
    .bare_verb = "place",
    .card_first = 1,
    .move = yah_move,
    .record = yah_record,
    .effect = yah_effect,
    .prompt = yah_prompt,
    .header = yah_header,
    .position = yah_position,
};
