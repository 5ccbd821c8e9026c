/*
 * record_view.c - the match as `arbiter record` knows it.
 *
 * DESIGN: the console judges each move on its own replay of the match
 * (record.h).  A running dealt match cannot be replayed by a client: the
 * recorder keeps the deal until the close and never sends it.  For such
 * a match (sealed) the console keeps no replay: the recorder judges each
 * move when it is appended, and what the console shows (the prompt, a
 * move's effect, the state) comes from the recorder's report, read again
 * after each event (the `state` op with the records' seqs).  These
 * accessors give the rest of the console one view of either, so that
 * record_show.c and cmd_record.c do not ask which it is.
 */
#include <stdlib.h>
#include <string.h>

#include "core/board.h"
#include "core/err.h"
#include "core/hash.h"
#include "tools/cli.h"
#include "tools/record.h"

const arb_rules_t *
rec_rules(const rec_t *r)
{
    return r->sealed ? arb_rules_find(r->open.setup->game)
                     : arb_match_rules(r->m);
}

const arb_setup_t *
rec_setup(const rec_t *r)
{
    return r->sealed ? r->open.setup : arb_match_setup(r->m);
}

json_t *
rec_describe(const rec_t *r)
{
    arb_buf_t b = ARB_BUF_INIT;
    json_t   *j = NULL;

    if (r->sealed)
        return json_incref(json_object_get(r->view, "state"));
    if (arb_match_describe(r->m, &b) == 0 && b.data != NULL)
        arb_json_parse(&j, b.data, b.len, NULL);
    arb_buf_free(&b);
    return j;
}

int
rec_results(const rec_t *r, arb_results_t *tmp, const arb_results_t **out)
{
    memset(tmp, 0, sizeof(*tmp));
    *out = r->sealed ? &r->vres.res : tmp;
    return r->sealed ? 0 : arb_match_results(r->m, tmp);
}

int
rec_finished(const rec_t *r)
{
    return r->sealed ? json_is_true(json_object_get(r->view, "finished"))
                     : arb_match_finished(r->m);
}

int
rec_closed(const rec_t *r)
{
    return r->sealed ? json_is_true(json_object_get(r->view, "closed"))
                     : arb_match_closed(r->m);
}

void
rec_digest(const rec_t *r, char *out)
{
    unsigned char d[ARB_HASH_LEN];
    const char   *hex;

    if (r->sealed) {
        hex = json_string_value(json_object_get(r->view, "digest"));
        snprintf(out, ARB_HASH_HEX, "%s", hex != NULL ? hex : "");
        return;
    }
    arb_match_digest(r->m, d);
    arb_hex32(out, d);
}

int
rec_view_load(rec_t *r, uint64_t at)
{
    arb_claim_t c;
    arb_buf_t   why = ARB_BUF_INIT;
    json_t     *j = NULL;
    int         st;

    st = cli_recorder_results(&r->net, r->match, at, &c, &j, &why);
    if (st != CLI_OK) {
        if (why.len > 0)
            fprintf(stderr, "arbiter record: match %s: %s\n", r->match,
                    arb_buf_cstr(&why));
        if (st == CLI_ERROR && why.len == 0)
            r->lost = 1;        /* the connection */
        else
            r->fatal = CLI_ERROR;
        arb_buf_free(&why);
        return -1;
    }
    json_decref(r->view);
    r->view = j;
    arb_claim_clear(&r->vres);
    r->vres = c;
    return 0;
}

int
rec_view_note(rec_t *r, const arb_event_t *ev)
{
    uint64_t *v, seq;

    /* An arbiter's note declining this console's undo request, after it:
     * answered, the move may be asked about again (as the local replay
     * tells of an open match; until 2026-12-07 a dealt match's request
     * stayed "already requested" for good). */
    if (ev->kind == ARB_EV_NOTE && r->undo_target != 0
        && ev->text != NULL
        && arb_undo_declined_seq(ev->text, &seq) == 0
        && seq == r->undo_target) {
        if (r->undo_note == REC_UNDO_SENT)
            r->undo_declined_at = ev->seq;  /* (judged at the answer) */
        else if (ev->seq > r->undo_note)
            r->undo_target = 0;
    }
    if (ev->kind != ARB_EV_VOID && ev->kind != ARB_EV_AMEND)
        return 0;
    if (r->nruled == r->capruled) {
        size_t cap = r->capruled ? 2 * r->capruled : 16;

        v = realloc(r->ruled, cap * sizeof(*v));
        if (v == NULL)
            return ARB_ENOMEM;
        r->ruled = v;
        r->capruled = cap;
    }
    r->ruled[r->nruled++] = ev->target;
    return 0;
}

int
rec_ruled(const rec_t *r, uint64_t seq)
{
    size_t i;

    if (!r->sealed)
        return arb_match_ruling(r->m, seq, NULL) != ARB_RULED_NONE;
    for (i = 0; i < r->nruled; i++)
        if (r->ruled[i] == seq)
            return 1;
    return 0;
}

void
rec_view_clear(rec_t *r)
{
    if (r->sealed)
        arb_event_clear(&r->open);
    json_decref(r->view);
    r->view = NULL;
    arb_claim_clear(&r->vres);
    free(r->ruled);
    r->ruled = NULL;
    r->nruled = r->capruled = 0;
    r->sealed = 0;
}
