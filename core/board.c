/*
 * board.c - the director's board (core/board.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/board.h"
#include "core/err.h"
#include "core/json.h"

#define UNDO_PREFIX    "undo requested: seq "
#define DECLINE_PREFIX "undo declined: seq "

const char *
arb_board_status_name(int status)
{
    static const char *const names[] = { "disputed", "undo_requested",
                                         "finished", "not_started",
                                         "playing", "closed", "forfeit" };

    return status >= 0 && status <= ARB_BOARD_FORFEIT ? names[status] : "?";
}

void
arb_undo_note(arb_buf_t *b, uint64_t seq, const char *what)
{
    arb_buf_printf(b, UNDO_PREFIX "%" PRIu64 " (%s)", seq, what);
}

/* The seq after `prefix` at the start of text: 0, or -1 when none. */
static int
seq_after(const char *text, const char *prefix, uint64_t *seq)
{
    const char *p;
    char       *end;

    if (text == NULL || strncmp(text, prefix, strlen(prefix)) != 0)
        return -1;
    p = text + strlen(prefix);
    if (*p < '1' || *p > '9')
        return -1;
    *seq = strtoull(p, &end, 10);
    return end != p && (*end == ' ' || *end == '\0') ? 0 : -1;
}

int
arb_undo_note_seq(const char *text, uint64_t *seq)
{
    return seq_after(text, UNDO_PREFIX, seq);
}

int
arb_undo_declined_seq(const char *text, uint64_t *seq)
{
    return seq_after(text, DECLINE_PREFIX, seq);
}

int
arb_board_status(const arb_match_t *m, uint64_t *undo_seq)
{
    arb_results_t       r;
    const uint64_t     *undo;
    const arb_field_t  *f;
    size_t              i;
    int                 disputed = 0;

    *undo_seq = 0;
    if (m == NULL)
        return ARB_BOARD_NOT_STARTED;
    memset(&r, 0, sizeof(r));
    if (arb_match_results(m, &r) != 0) {
        arb_results_clear(&r);
        return ARB_ENOMEM;
    }
    for (i = 0; i < r.nrecords; i++) {
        f = arb_record_get(&r.records[i], "status");
        disputed |= f != NULL && f->str != NULL
                    && strcmp(f->str, "disputed") == 0;
    }
    /* Totals and extra claimed records have no status; once they are final
     * (the game over), a claim that states other totals, or a record the
     * match does not have, disputes the result as much as a record would
     * (until 2026-12-06 such a table showed "closed", and went to the
     * rating body). */
    if (!disputed && arb_match_finished(m)) {
        int extras = arb_match_claim_extras(m, &r);

        if (extras < 0) {
            arb_results_clear(&r);
            return extras;
        }
        disputed = arb_match_claim_totals_differ(m, &r) || extras > 0;
    }
    arb_results_clear(&r);
    if (disputed)
        return ARB_BOARD_DISPUTED;
    /* The latest undo request that no void or amend of its move, nor a
     * note declining it, has answered (the match keeps only those: it
     * knows so also when it keeps no moves).  The close answers every
     * request before it: the arbiter closed the match with the move as
     * played, and nothing can rule on it after (until 2026-12-06 such a
     * table stayed undo_requested, and out of the results file, for
     * ever).  A `stands` of the move does not answer it (until
     * 2026-12-06 it did, as docs/TOURNAMENT.md never said). */
    i = arb_match_closed(m) ? 0 : arb_match_undo_requests(m, &undo);
    if (i > 0) {
        *undo_seq = undo[i - 1];
        return ARB_BOARD_UNDO;
    }
    if (arb_match_closed(m))
        return ARB_BOARD_CLOSED;
    if (arb_match_finished(m))
        return ARB_BOARD_FINISHED;
    /* A note ("players seated") is no move: the table has not started
     * (until 2026-12-06 any event made it "playing"). */
    return arb_match_has_moves(m) ? ARB_BOARD_PLAYING
                                  : ARB_BOARD_NOT_STARTED;
}

static const arb_board_table_t *sort_base;

static int
cmp_tables(const void *pa, const void *pb)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;

    if (sort_base[a].status != sort_base[b].status)
        return sort_base[a].status < sort_base[b].status ? -1 : 1;
    return a < b ? -1 : a > b;
}

int
arb_board_json(arb_buf_t *b, const char *tournament, uint64_t round,
               const arb_board_table_t *t, size_t n)
{
    size_t *order, i, j;
    json_t *o, *tables;
    int     bad = 0;

    order = calloc(n + 1, sizeof(*order));
    if (order == NULL)
        return ARB_ENOMEM;
    for (i = 0; i < n; i++)
        order[i] = i;
    sort_base = t;
    if (n > 1)
        qsort(order, n, sizeof(*order), cmp_tables);
    o = json_object();
    tables = json_array();
    bad |= arb_json_set(o, "tournament", arb_json_string(tournament));
    bad |= arb_json_set(o, "round", json_integer((json_int_t)round));
    for (i = 0; i < n; i++) {
        const arb_board_table_t *x = &t[order[i]];
        json_t *tab = json_object(), *players = json_array();

        bad |= arb_json_set(tab, "table", arb_json_string(x->table));
        bad |= arb_json_set(tab, "match", arb_json_string(x->match));
        for (j = 0; j < x->nplayers; j++)
            bad |= arb_json_add(players, arb_json_string(x->players[j]));
        bad |= arb_json_set(tab, "players", players);
        bad |= arb_json_set(tab, "status",
                            json_string(arb_board_status_name(x->status)));
        bad |= arb_json_set(tab, "seq", json_integer((json_int_t)x->seq));
        bad |= arb_json_set(tab, "last_move_ms",
                            json_integer((json_int_t)x->last_ms));
        if (x->status == ARB_BOARD_UNDO)
            bad |= arb_json_set(tab, "undo_seq",
                                json_integer((json_int_t)x->undo_seq));
        if (x->sealed)
            bad |= arb_json_set(tab, "sealed", json_true());
        if (x->problem != NULL)
            bad |= arb_json_set(tab, "problem", arb_json_string(x->problem));
        bad |= arb_json_add(tables, tab);
    }
    bad |= arb_json_set(o, "tables", tables);
    if (bad)
        b->oom = 1;
    else
        arb_json_put(b, o);
    json_decref(o);
    arb_buf_putc(b, '\n');
    free(order);
    return b->oom ? ARB_ENOMEM : 0;
}
