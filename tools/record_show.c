/*
 * record_show.c - what `arbiter record` prints: moves, completed Sotas, the
 * prompt and the state.
 *
 * DESIGN: everything shown comes from the local replay through the two
 * interfaces every rule set has, results() (records, totals) and
 * describe() (the live position, as JSON), so another game gets a plain
 * but truthful console without code here.  YAHchain gets more words: the
 * active Sota and its cards, the category's name, a Sota that came out
 * VOID.  A completed Sota is found by comparing the records before and
 * after an event, never by re-deriving the rules here.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/card.h"
#include "core/rules/yahchain_bc.h"
#include "core/transcript.h"
#include "tools/record.h"

static int
is_yahchain(const rec_t *r)
{
    return strcmp(arb_match_setup(r->m)->game, "yahchain") == 0;
}

static const char *
or_q(const char *s)
{
    return s != NULL ? s : "?";
}

static rec_json_t *
describe(const rec_t *r)
{
    arb_buf_t   b = ARB_BUF_INIT;
    rec_json_t *j = NULL;

    if (arb_match_describe(r->m, &b) == 0 && b.data != NULL)
        rec_json_parse(&j, b.data, b.len);
    arb_buf_free(&b);
    return j;
}

void
rec_print(rec_t *r, const char *text)
{
    const char *p = text, *nl;
    char        line[REC_LINE_MAX];

    if (!r->interactive) {
        fputs(text, stdout);
        fputc('\n', stdout);
        fflush(stdout);
        return;
    }
    for (;;) {
        nl = strchr(p, '\n');
        if (nl == NULL) {
            rec_line_print(&r->line, p);
            return;
        }
        snprintf(line, sizeof(line), "%.*s", (int)(nl - p), p);
        rec_line_print(&r->line, line);
        p = nl + 1;
    }
}

void
rec_show_snapshot(rec_t *r)
{
    arb_results_t res;

    r->before.len = 0;
    arb_match_describe(r->m, &r->before);
    r->before_nrec = 0;
    if (arb_match_results(r->m, &res) == 0) {
        r->before_nrec = res.nrecords;
        arb_results_clear(&res);
    }
    r->before_over = arb_match_finished(r->m);
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

static void
put_list(arb_buf_t *out, const arb_field_t *f, const char *sep)
{
    size_t i;

    for (i = 0; f != NULL && f->type == ARB_F_LIST && i < f->nlist; i++)
        arb_buf_printf(out, "%s%s", i ? sep : "", f->list[i]);
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

/* "Sota 1 complete: 4♠→5♥→6♦ BC-001 Ladder 15+6 = 21 for alice", or the
 * fields of another game's record. */
static void
put_record(const rec_t *r, arb_buf_t *out, const arb_record_t *rec)
{
    const char *code;
    size_t      i, j;

    if (is_yahchain(r)) {
        code = field_str(rec, "code");
        arb_buf_printf(out, "Sota %" PRId64 " complete: ",
                       field_int(rec, "sota"));
        put_list(out, arb_record_get(rec, "sequence"), "→");
        arb_buf_printf(out, " %s %s %" PRId64 "+%" PRId64 " = %" PRId64
                       " for %s", code,
                       category_name((int)field_int(rec, "cards"), code),
                       field_int(rec, "face_sum"), field_int(rec, "bonus"),
                       field_int(rec, "game_points"),
                       field_str(rec, "owner"));
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

/* The cards of Sota k (1..12) in a YAHchain describe(), or NULL. */
static const rec_json_t *
sota_cards(const rec_json_t *d, long long k)
{
    const rec_json_t *s = rec_json_get(d, "sotas");

    if (s == NULL || s->type != REC_J_ARR || k < 1 || (size_t)k > s->n)
        return NULL;
    s = rec_json_get(&s->items[k - 1], "cards");
    return s != NULL && s->type == REC_J_ARR ? s : NULL;
}

static void
put_cards(arb_buf_t *out, const rec_json_t *cards, const char *sep)
{
    size_t i;

    for (i = 0; cards != NULL && i < cards->n; i++)
        arb_buf_printf(out, "%s%s", i ? sep : "",
                       or_q(rec_json_str(&cards->items[i])));
}

/* The mode of a YAHchain describe(): 3 for "YCWS-144/3". */
static int
yah_mode(const rec_json_t *d)
{
    const char *m = rec_json_str(rec_json_get(d, "mode"));
    const char *slash = m != NULL ? strrchr(m, '/') : NULL;

    return slash != NULL ? atoi(slash + 1) : 0;
}

/* A YAHchain move filled the active Sota and made no record: VOID. */
static void
put_void(const rec_t *r, arb_buf_t *out, const arb_event_t *ev)
{
    rec_json_t       *d = NULL;
    const rec_json_t *cards;
    long long         k;
    char              c[64];

    if (ev->nargs < 1 || r->before.data == NULL
        || rec_json_parse(&d, r->before.data, r->before.len) != 0)
        return;
    k = rec_json_int(rec_json_get(d, "active_sota"), 0);
    cards = sota_cards(d, k);
    if (cards != NULL && (int)cards->n + 1 == yah_mode(d)) {
        card_text(c, ev->args[0]);
        arb_buf_printf(out, "; Sota %lld void: ", k);
        put_cards(out, cards, "→");
        arb_buf_printf(out, "→%s: no category, no points", c);
    }
    rec_json_free(d);
}

static void
put_over(const rec_t *r, arb_buf_t *out)
{
    rec_json_t *d;
    const char *why;

    if (arb_match_closed(r->m)) {
        arb_buf_puts(out, "the match is closed");
        return;
    }
    d = describe(r);
    why = rec_json_str(rec_json_get(d, "end"));
    arb_buf_printf(out, "the match is over%s%s", why && *why ? ": " : "",
                   why && *why ? why : "");
    rec_json_free(d);
}

void
rec_show_effect(rec_t *r, arb_buf_t *out, const arb_event_t *ev)
{
    arb_results_t res;
    size_t        i;

    if (arb_match_results(r->m, &res) != 0)
        return;
    for (i = r->before_nrec; i < res.nrecords; i++) {
        arb_buf_puts(out, "; ");
        put_record(r, out, &res.records[i]);
    }
    if (res.nrecords < r->before_nrec)
        arb_buf_printf(out, "; %zu result%s withdrawn",
                       r->before_nrec - res.nrecords,
                       r->before_nrec - res.nrecords > 1 ? "s" : "");
    if (ev->kind == ARB_EV_MOVE && res.nrecords == r->before_nrec
        && is_yahchain(r))
        put_void(r, out, ev);
    if (!r->before_over && arb_match_finished(r->m)) {
        arb_buf_puts(out, "; ");
        put_over(r, out);
    }
    arb_results_clear(&res);
}

void
rec_show_event(rec_t *r, arb_buf_t *out, const arb_event_t *ev)
{
    char   c[64];
    size_t i;

    if (ev->kind == ARB_EV_MOVE && is_yahchain(r) && ev->verb != NULL
        && strcmp(ev->verb, "place") == 0 && ev->nargs >= 1) {
        card_text(c, ev->args[0]);
        arb_buf_printf(out, "%s placed %s", ev->player, c);
        for (i = 1; i < ev->nargs; i++)
            arb_buf_printf(out, " %s", ev->args[i]);
    } else if (ev->kind == ARB_EV_MOVE) {
        arb_buf_printf(out, "%s %s", ev->player, ev->verb);
        for (i = 0; i < ev->nargs; i++)
            arb_buf_printf(out, " %s", ev->args[i]);
    } else {
        arb_buf_printf(out, "%s: ", ev->actor != NULL ? ev->actor : "-");
        arb_transcript_event_line(out, ev);
    }
    arb_buf_printf(out, " (seq %" PRIu64 ")", ev->seq);
}

void
rec_show_prompt(rec_t *r, char *out, size_t len)
{
    rec_json_t *d = describe(r);
    const char *turn = rec_json_str(rec_json_get(d, "turn"));
    arb_buf_t   b = ARB_BUF_INIT;
    long long   k;

    arb_buf_printf(&b, "%s seq %" PRIu64, r->match, r->known);
    if (arb_match_finished(r->m)) {
        arb_buf_puts(&b, " | over");
    } else {
        k = rec_json_int(rec_json_get(d, "active_sota"), 0);
        if (k > 0) {
            arb_buf_printf(&b, " | Sota %lld [", k);
            put_cards(&b, sota_cards(d, k), " ");
            arb_buf_putc(&b, ']');
        }
        if (turn != NULL)
            arb_buf_printf(&b, " | %s", turn);
    }
    arb_buf_puts(&b, "> ");
    snprintf(out, len, "%s", arb_buf_cstr(&b) != NULL ? b.data : "> ");
    arb_buf_free(&b);
    rec_json_free(d);
}

static void
put_totals(const rec_t *r, arb_buf_t *out)
{
    arb_results_t res;
    size_t        i;

    if (arb_match_results(r->m, &res) != 0)
        return;
    arb_buf_puts(out, "totals");
    for (i = 0; i < res.ntotals; i++)
        arb_buf_printf(out, "%s %s %" PRId64, i ? "," : "",
                       res.totals[i].name, res.totals[i].points);
    arb_results_clear(&res);
}

/* The position's scalars of another game's describe(): "turn alice". */
static void
put_facts(arb_buf_t *out, const rec_json_t *d)
{
    size_t i;

    for (i = 0; d != NULL && d->type == REC_J_OBJ && i < d->n; i++) {
        const rec_json_t *v = &d->items[i];
        if (v->type == REC_J_STR && *v->str != '\0')
            arb_buf_printf(out, "; %s %s", d->keys[i], v->str);
        else if (v->type == REC_J_NUM)
            arb_buf_printf(out, "; %s %" PRId64, d->keys[i], v->num);
        else if (v->type == REC_J_BOOL)
            arb_buf_printf(out, "; %s %s", d->keys[i],
                           v->num ? "yes" : "no");
    }
}

/* One line: "seq 4; Sota 2 [5♥]; turn alice; totals alice 21, bob 0". */
static void
state_line(rec_t *r, arb_buf_t *out, const rec_json_t *d)
{
    const char *turn = rec_json_str(rec_json_get(d, "turn"));
    long long   k = rec_json_int(rec_json_get(d, "active_sota"), 0);

    arb_buf_printf(out, "seq %" PRIu64 "; ", r->known);
    if (arb_match_finished(r->m)) {
        put_over(r, out);
    } else if (is_yahchain(r)) {
        arb_buf_printf(out, "Sota %lld [", k);
        put_cards(out, sota_cards(d, k), " ");
        arb_buf_printf(out, "]; turn %s", turn ? turn : "-");
    } else {
        arb_buf_printf(out, "game %s", arb_match_setup(r->m)->game);
        put_facts(out, d);
    }
    arb_buf_puts(out, "; ");
    put_totals(r, out);
}

/* A few lines for a person: the header, the position, the records. */
static void
state_screen(rec_t *r, arb_buf_t *out, const rec_json_t *d)
{
    const arb_setup_t *s = arb_match_setup(r->m);
    const rec_json_t  *sotas = rec_json_get(d, "sotas");
    arb_results_t      res;
    const char        *turn = rec_json_str(rec_json_get(d, "turn"));
    long long          k = rec_json_int(rec_json_get(d, "active_sota"), 0);
    size_t             i;

    arb_buf_printf(out, "match %s: %s", r->match, s->game);
    if (rec_json_str(rec_json_get(d, "mode")) != NULL)
        arb_buf_printf(out, " %s", rec_json_str(rec_json_get(d, "mode")));
    arb_buf_puts(out, ", players");
    for (i = 0; i < s->nplayers; i++)
        arb_buf_printf(out, " %s", s->players[i].name);
    arb_buf_printf(out, "; seq %" PRIu64, r->known);
    if (is_yahchain(r))
        arb_buf_printf(out, ", cycle %lld of %lld, %lld cards left",
                       rec_json_int(rec_json_get(d, "cycle"), 0),
                       rec_json_int(rec_json_get(d, "cycles"), 0),
                       rec_json_int(rec_json_get(d, "cards_left"), 0));
    arb_buf_putc(out, '\n');
    if (arb_match_finished(r->m)) {
        put_over(r, out);
    } else if (is_yahchain(r) && sotas != NULL && sotas->type == REC_J_ARR
               && k >= 1 && (size_t)k <= sotas->n) {
        arb_buf_printf(out, "Sota %lld (%s's) [", k,
                       or_q(rec_json_str(rec_json_get(&sotas->items[k - 1],
                                                      "owner"))));
        put_cards(out, sota_cards(d, k), " ");
        arb_buf_printf(out, "]; %s to play", turn ? turn : "-");
    } else {
        arb_buf_puts(out, "position");
        put_facts(out, d);
    }
    if (arb_match_results(r->m, &res) == 0) {
        for (i = 0; i < res.nrecords; i++) {
            arb_buf_puts(out, "\n  ");
            put_record(r, out, &res.records[i]);
        }
        arb_results_clear(&res);
    }
    arb_buf_putc(out, '\n');
    put_totals(r, out);
}

void
rec_show_state(rec_t *r, arb_buf_t *out)
{
    rec_json_t *d = describe(r);

    if (r->interactive)
        state_screen(r, out, d);
    else
        state_line(r, out, d);
    rec_json_free(d);
}
