/*
 * record_show.c - what `arbiter record` prints: moves, completed results,
 * the prompt and the state.
 *
 * DESIGN: everything shown comes from the local replay (for a running
 * dealt match, the recorder's report: record_view.c), in the game's own
 * words where its rule set gives them and in generic words made from
 * results() and describe() where it does not (core/narrate.h), so this
 * file names no game.  A completed result is found by comparing the
 * records before and after an event, never by re-deriving the rules here.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/narrate.h"
#include "core/transcript.h"
#include "tools/record.h"

static const arb_rules_t *
rules(const rec_t *r)
{
    return rec_rules(r);
}

static const char *
get_str(const json_t *d, const char *key)
{
    return json_string_value(json_object_get(d, key));
}

/* The position as JSON (NULL when it cannot be had); json_decref it. */
static json_t *
describe(const rec_t *r)
{
    return rec_describe(r);
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
    arb_results_t        tmp;
    const arb_results_t *res;
    json_t              *d = describe(r);

    r->before.len = 0;
    if (d != NULL)
        arb_json_put(&r->before, d);
    json_decref(d);
    r->before_nrec = 0;
    if (rec_results(r, &tmp, &res) == 0)
        r->before_nrec = res->nrecords;
    arb_results_clear(&tmp);
    r->before_over = rec_finished(r);
}

static void
put_over(const rec_t *r, arb_buf_t *out)
{
    json_t     *d;
    const char *why;

    if (rec_closed(r)) {
        arb_buf_puts(out, "the match is closed");
        return;
    }
    d = describe(r);
    why = get_str(d, "end");
    arb_buf_printf(out, "the match is over%s%s", why && *why ? ": " : "",
                   why && *why ? why : "");
    json_decref(d);
}

void
rec_show_effect(rec_t *r, arb_buf_t *out, const arb_event_t *ev)
{
    arb_results_t        tmp;
    const arb_results_t *res;
    size_t               i;

    if (rec_results(r, &tmp, &res) != 0)
        return;
    for (i = r->before_nrec; i < res->nrecords; i++) {
        arb_buf_puts(out, "; ");
        arb_narrate_record(out, rules(r), &res->records[i]);
    }
    if (res->nrecords < r->before_nrec)
        arb_buf_printf(out, "; %zu result%s withdrawn",
                       r->before_nrec - res->nrecords,
                       r->before_nrec - res->nrecords > 1 ? "s" : "");
    /* (a `stands` places as a move does: until 2026-12-07 one that
     * voided its Sota was shown without a word of it) */
    if ((ev->kind == ARB_EV_MOVE || ev->kind == ARB_EV_STANDS)
        && res->nrecords == r->before_nrec && r->before.data != NULL) {
        json_t *before = NULL, *after = describe(r);

        arb_json_parse(&before, r->before.data, r->before.len, NULL);
        arb_narrate_effect(out, rules(r), before, after, ev);
        json_decref(before);
        json_decref(after);
    }
    if (!r->before_over && rec_finished(r)) {
        arb_buf_puts(out, "; ");
        put_over(r, out);
    }
    arb_results_clear(&tmp);
}

void
rec_show_event(rec_t *r, arb_buf_t *out, const arb_event_t *ev)
{
    if (ev->kind == ARB_EV_MOVE) {
        arb_narrate_move(out, rules(r), ev);
    } else {
        arb_buf_printf(out, "%s: ", ev->actor != NULL ? ev->actor : "-");
        arb_transcript_event_line(out, ev);
    }
    arb_buf_printf(out, " (seq %" PRIu64 ")", ev->seq);
}

void
rec_show_prompt(rec_t *r, char *out, size_t len)
{
    json_t     *d = describe(r);
    const char *turn = get_str(d, "turn");
    arb_buf_t   b = ARB_BUF_INIT;

    arb_buf_printf(&b, "%s seq %" PRIu64, r->match, r->known);
    if (rec_finished(r)) {
        arb_buf_puts(&b, " | over");
    } else {
        arb_narrate_prompt(&b, rules(r), d);
        if (turn != NULL)
            arb_buf_printf(&b, " | %s", turn);
    }
    arb_buf_puts(&b, "> ");
    snprintf(out, len, "%s", arb_buf_cstr(&b) != NULL ? b.data : "> ");
    arb_buf_free(&b);
    json_decref(d);
}

static void
put_totals(const rec_t *r, arb_buf_t *out)
{
    arb_results_t        tmp;
    const arb_results_t *res;
    size_t               i;

    if (rec_results(r, &tmp, &res) == 0) {
        arb_buf_puts(out, "totals");
        for (i = 0; i < res->ntotals; i++)
            arb_buf_printf(out, "%s %s %" PRId64, i ? "," : "",
                           res->totals[i].name, res->totals[i].points);
    }
    arb_results_clear(&tmp);
}

/* One line: "seq 4; Sota 2 [5♥]; turn alice; totals alice 21, bob 0". */
static void
state_line(rec_t *r, arb_buf_t *out, const json_t *d)
{
    arb_buf_printf(out, "seq %" PRIu64 "; ", r->known);
    if (rec_finished(r))
        put_over(r, out);
    else
        arb_narrate_position(out, rules(r), d, 0);
    arb_buf_puts(out, "; ");
    put_totals(r, out);
}

/* A few lines for a person: the header, the position, the records. */
static void
state_screen(rec_t *r, arb_buf_t *out, const json_t *d)
{
    const arb_setup_t   *s = rec_setup(r);
    arb_results_t        tmp;
    const arb_results_t *res;
    size_t               i;

    arb_buf_printf(out, "match %s: %s", r->match, s->game);
    if (get_str(d, "mode") != NULL)
        arb_buf_printf(out, " %s", get_str(d, "mode"));
    arb_buf_puts(out, ", players");
    for (i = 0; i < s->nplayers; i++)
        arb_buf_printf(out, " %s", s->players[i].name);
    arb_buf_printf(out, "; seq %" PRIu64, r->known);
    arb_narrate_header(out, rules(r), d);
    arb_buf_putc(out, '\n');
    if (rec_finished(r))
        put_over(r, out);
    else
        arb_narrate_position(out, rules(r), d, 1);
    if (rec_results(r, &tmp, &res) == 0)
        for (i = 0; i < res->nrecords; i++) {
            arb_buf_puts(out, "\n  ");
            arb_narrate_record(out, rules(r), &res->records[i]);
        }
    arb_results_clear(&tmp);
    arb_buf_putc(out, '\n');
    put_totals(r, out);
}

void
rec_show_state(rec_t *r, arb_buf_t *out)
{
    json_t *d = describe(r);

    if (r->interactive)
        state_screen(r, out, d);
    else
        state_line(r, out, d);
    json_decref(d);
}
