/*
 * tourn_view.c - a tournament with its tables' matches (core/tourn_view.h).
 */
#include <stdlib.h>
#include <string.h>

#include "core/board.h"
#include "core/err.h"
#include "core/tourn.h"
#include "core/tourn_view.h"

void
arb_tview_clear(arb_tview_t *v)
{
    size_t i;

    if (v == NULL)
        return;
    for (i = 0; i < v->n; i++) {
        arb_match_free(v->tables[i].m);
        arb_results_clear(&v->tables[i].res);
        free(v->tables[i].problem);
    }
    free(v->tables);
    free(v->sm);
    arb_results_clear(&v->res);
    arb_match_free(v->t);
    free(v->id);
    memset(v, 0, sizeof(*v));
}

/* The team of seat j of setup s, or NULL: none. */
static const char *
team_of(const arb_setup_t *s, size_t j)
{
    return s->players[j].team >= 0 ? s->teams[s->players[j].team] : NULL;
}

/* Whether team a (NULL: none) is team b. */
static int
same_team(const char *a, const char *b)
{
    return a == NULL || b == NULL ? a == b : strcmp(a, b) == 0;
}

/* Why match m cannot be table sm's result, or 0: its players must be
 * the table's, each on the table's side in a team game.  A round opens
 * each table's match with them; a match opened by hand under a table's
 * id with others would credit the table's players with a result they
 * never played (until 2026-12-06 it did, as a 0-0 draw), and one with
 * its players on other sides would credit each with the other side's
 * total (until 2026-12-07 it did).  The order of seats may differ:
 * results go by name.  0, 1 (*out holds why, owned by the caller), or
 * ARB_ENOMEM. */
static int
players_differ(const arb_match_t *m, const arb_standings_match_t *sm,
               char **out)
{
    const arb_setup_t *s = arb_match_setup(m);
    arb_buf_t          b = ARB_BUF_INIT;
    size_t             i, j;
    int                same = s->nplayers == sm->nplayers;

    for (i = 0; same && i < sm->nplayers; i++) {
        for (j = 0; j < s->nplayers; j++)
            if (strcmp(s->players[j].name, sm->players[i]) == 0)
                break;
        same = j < s->nplayers
               && same_team(team_of(s, j),
                            sm->teams != NULL ? sm->teams[i] : NULL);
    }
    if (same)
        return 0;
    arb_buf_puts(&b, "its match's players are");
    for (j = 0; j < s->nplayers; j++)
        arb_buf_printf(&b, " %s%s%s", s->players[j].name,
                       team_of(s, j) != NULL ? ":" : "",
                       team_of(s, j) != NULL ? team_of(s, j) : "");
    arb_buf_puts(&b, ", the table's");
    for (i = 0; i < sm->nplayers; i++)
        arb_buf_printf(&b, " %s%s%s", sm->players[i],
                       sm->teams != NULL ? ":" : "",
                       sm->teams != NULL ? sm->teams[i] : "");
    *out = b.oom ? NULL : strdup(arb_buf_cstr(&b));
    arb_buf_free(&b);
    return *out == NULL ? ARB_ENOMEM : 1;
}

/* The seats of record rec's table (sm) that forfeited it, from its
 * `forfeit` list (core/rules/tournament.c); 0: none. */
static unsigned
forfeit_seats(const arb_record_t *rec, const arb_standings_match_t *sm)
{
    const arb_field_t *f = arb_record_get(rec, "forfeit");
    unsigned           seats = 0;
    size_t             i, k;

    for (i = 0; f != NULL && i < f->nlist; i++)
        for (k = 0; k < sm->nplayers && k < 32; k++)
            if (strcmp(f->list[i], sm->players[k]) == 0)
                seats |= 1u << k;
    return seats;
}

int
arb_tview_status(const arb_tview_t *v, size_t i, uint64_t *undo_seq)
{
    *undo_seq = 0;
    if (v->sm[i].forfeit != 0)
        return ARB_BOARD_FORFEIT;
    /* Sealed: no move yet (notes are none) is not started, as the
     * recorder's own board says (until 2026-12-06 "playing"). */
    if (v->tables[i].sealed)
        return v->tables[i].moved ? ARB_BOARD_PLAYING : ARB_BOARD_NOT_STARTED;
    return arb_board_status(v->tables[i].m, undo_seq);
}

int
arb_tview_build(arb_tview_t *v, arb_match_t *t, int tables,
                arb_tview_load_cb load, void *ud, arb_buf_t *why)
{
    const arb_setup_t *su = arb_match_setup(t);
    size_t             i;
    int                rc;

    memset(v, 0, sizeof(*v));
    v->t = t;
    if (strcmp(su->game, "tournament") != 0) {
        arb_buf_printf(why, "match %s is a %s match, not a tournament",
                       su->match_id, su->game);
        return ARB_EINVAL;
    }
    v->id = strdup(su->match_id);
    v->rule = arb_standings_rule_parse(arb_setup_option(su, "standings"));
    if (v->rule < 0)
        v->rule = ARB_STANDINGS_GP;
    if (v->id == NULL || arb_match_results(t, &v->res) != 0)
        return ARB_ENOMEM;
    v->ntables = arb_tourn_ntables(&v->res);
    v->n = tables ? v->ntables : 0;
    v->tables = calloc(v->n + 1, sizeof(*v->tables));
    v->sm = calloc(v->n + 1, sizeof(*v->sm));
    if (v->tables == NULL || v->sm == NULL)
        return ARB_ENOMEM;
    for (i = 0; i < v->n; i++) {
        const arb_record_t    *rec = &v->res.records[i];
        const arb_field_t     *pl = arb_record_get(rec, "players");
        const arb_field_t     *tm = arb_record_get(rec, "teams");
        arb_standings_match_t *sm = &v->sm[i];
        arb_tview_table_t     *tb = &v->tables[i];

        sm->round = (uint64_t)arb_record_get(rec, "round")->num;
        sm->table = arb_record_get(rec, "table")->str;
        sm->match = arb_record_get(rec, "match")->str;
        sm->players = pl->list;
        sm->nplayers = pl->nlist;
        sm->teams = tm != NULL ? tm->list : NULL;
        sm->forfeit = forfeit_seats(rec, sm);
        sm->tournament = v->id;
        if (sm->forfeit != 0 && arb_record_get(rec, "forfeit_seq") != NULL)
            sm->forfeit_seq = (uint64_t)arb_record_get(rec,
                                                       "forfeit_seq")->num;
        /* A forfeit decides the table, whatever its match holds. */
        sm->counted = sm->forfeit != 0;
        rc = load(ud, sm->match, &tb->m, &sm->seq, &tb->last_ms, tb->head,
                  &tb->has_head, &tb->moved, why);
        if (rc == ARB_ENOTFOUND) {
            sm->seq = 0;
            continue;           /* not opened yet: counts nothing */
        }
        if (rc == ARB_ESEALED) {
            /* In play, as far as this reader can tell: counts nothing
             * (until 2026-12-05 the whole board and standings failed). */
            if (why != NULL)
                why->len = 0;
            tb->sealed = 1;
            sm->head = tb->has_head ? tb->head : NULL;
            continue;
        }
        if (rc != 0)
            return rc;
        if (arb_match_results(tb->m, &tb->res) != 0)
            return ARB_ENOMEM;
        rc = players_differ(tb->m, sm, &tb->problem);
        if (rc < 0)
            return rc;
        sm->problem = tb->problem;
        sm->counted |= arb_match_closed(tb->m) && sm->problem == NULL;
        /* A disqualification after the game: the game stands for the
         * others (edition 3; docs/TOURNAMENT.md). */
        sm->played = sm->forfeit != 0 && sm->problem == NULL
                     && arb_match_played_out(tb->m)
                     && arb_tourn_forfeit_played(su);
        if (sm->counted && sm->forfeit == 0) {
            uint64_t undo;

            rc = arb_board_status(tb->m, &undo);
            if (rc < 0)
                return rc;
            if (rc == ARB_BOARD_DISPUTED)
                sm->withheld = "disputed: the latest claim disputes the "
                               "record (arbiter state)";
        }
        sm->seq = arb_match_next_seq(tb->m) - 1;
        sm->head = tb->has_head ? tb->head : NULL;
        sm->res = &tb->res;
    }
    return 0;
}

int
arb_tview_board(arb_buf_t *out, const arb_tview_t *v)
{
    arb_board_table_t *bt;
    uint64_t           round = v->n ? v->sm[v->n - 1].round : 0;
    size_t             i, k = 0;
    int                rc;

    bt = calloc(v->n + 1, sizeof(*bt));
    if (bt == NULL)
        return ARB_ENOMEM;
    for (i = 0; i < v->n; i++) {
        const arb_standings_match_t *m = &v->sm[i];
        if (m->round != round)
            continue;
        bt[k].table = m->table;
        bt[k].match = m->match;
        bt[k].players = m->players;
        bt[k].nplayers = m->nplayers;
        bt[k].seq = m->seq;
        bt[k].last_ms = v->tables[i].last_ms;
        /* (A forfeited table is decided: never "sealed here".) */
        bt[k].sealed = v->tables[i].sealed && m->forfeit == 0;
        bt[k].problem = m->problem;
        rc = arb_tview_status(v, i, &bt[k].undo_seq);
        if (rc < 0)
            goto done;
        bt[k++].status = rc;
    }
    rc = arb_board_json(out, v->id, round, bt, k);
done:
    free(bt);
    return rc;
}

int
arb_tview_standings(arb_buf_t *out, const arb_tview_t *v, int json)
{
    arb_standings_t s;
    size_t          i;

    if (arb_standings_compute(&s, v->sm, v->n, v->rule) != 0)
        return ARB_ENOMEM;
    for (i = v->ntables; i < v->res.nrecords; i++) {
        const arb_record_t *rec = &v->res.records[i];
        arb_standings_withdrawn(&s, arb_record_get(rec, "withdrawn")->str,
                                (uint64_t)arb_record_get(rec,
                                                         "after_round")->num,
                                rec->seq);
    }
    if (json)
        arb_standings_json(out, v->id, &s, v->sm, v->n);
    else
        arb_standings_csv(out, &s, v->sm);
    arb_standings_clear(&s);
    return out->oom ? ARB_ENOMEM : 0;
}
