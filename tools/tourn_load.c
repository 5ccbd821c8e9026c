/*
 * tourn_load.c - a tournament and its tables' matches for the tools
 * (tools/tourn.h), each read through the one history loader.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/board.h"
#include "core/err.h"
#include "tools/cli.h"
#include "tools/net.h"
#include "tools/tourn.h"

void
cli_tourn_clear(cli_tourn_t *t)
{
    size_t i;

    if (t == NULL)
        return;
    for (i = 0; i < t->n; i++) {
        arb_history_clear(&t->tables[i].h);
        arb_match_free(t->tables[i].m);
        arb_results_clear(&t->tables[i].res);
    }
    free(t->tables);
    free(t->sm);
    arb_history_clear(&t->h);
    arb_match_free(t->m);
    arb_results_clear(&t->res);
    memset(t, 0, sizeof(*t));
}

/* Reads and replays one match into h and *m. */
static int
load_one(arb_history_t *h, arb_match_t **m, const char *cmd, const char *db,
         const char *id, cli_net_t *n)
{
    cli_source_t  src = { NULL, db, id };
    arb_verdict_t v;
    size_t        bad = 0;
    int           st;

    st = cli_source_load(h, cmd, &src, n, UINT64_MAX);
    if (st != CLI_OK)
        return st;
    if (arb_history_replay(h, UINT64_MAX, m, &bad, &v) != 0) {
        fprintf(stderr, "arbiter %s: match %s: seq %zu refused: %s: %s\n",
                cmd, id, bad + 1, v.rule, v.msg);
        return CLI_DIFFERS;
    }
    return CLI_OK;
}

int
cli_tourn_load(cli_tourn_t *t, const char *cmd, const char *db,
               const char *id, cli_net_t *n, int tables)
{
    const arb_setup_t *su;
    size_t             i;
    int                st;

    memset(t, 0, sizeof(*t));
    t->id = id;
    if (db == NULL && n->cl == NULL && cli_net_connect(n) != 0)
        return CLI_ERROR;
    st = load_one(&t->h, &t->m, cmd, db, id, n);
    if (st != CLI_OK)
        return st;
    su = arb_match_setup(t->m);
    if (strcmp(su->game, "tournament") != 0) {
        fprintf(stderr, "arbiter %s: match %s is a %s match, not a "
                "tournament\n", cmd, id, su->game);
        return CLI_DIFFERS;
    }
    t->rule = arb_standings_rule_parse(arb_setup_option(su, "standings"));
    if (t->rule < 0)
        t->rule = ARB_STANDINGS_GP;
    if (arb_match_results(t->m, &t->res) != 0)
        goto oom;
    t->n = tables ? t->res.nrecords : 0;
    t->tables = calloc(t->n + 1, sizeof(*t->tables));
    t->sm = calloc(t->n + 1, sizeof(*t->sm));
    if (t->tables == NULL || t->sm == NULL)
        goto oom;
    for (i = 0; i < t->n; i++) {
        const arb_record_t *rec = &t->res.records[i];
        const arb_field_t  *pl = arb_record_get(rec, "players");
        arb_standings_match_t *sm = &t->sm[i];
        cli_tourn_table_t     *tb = &t->tables[i];

        sm->round = (uint64_t)arb_record_get(rec, "round")->num;
        sm->table = arb_record_get(rec, "table")->str;
        sm->match = arb_record_get(rec, "match")->str;
        sm->players = pl->list;
        sm->nplayers = pl->nlist;
        st = load_one(&tb->h, &tb->m, cmd, db, sm->match, n);
        if (st != CLI_OK)
            return st;
        if (arb_match_results(tb->m, &tb->res) != 0)
            goto oom;
        sm->counted = arb_match_closed(tb->m);
        sm->seq = tb->h.nevents;
        sm->head = tb->h.recs && tb->h.recs[tb->h.nevents].has_hash
                 ? tb->h.recs[tb->h.nevents].hash : NULL;
        sm->res = &tb->res;
    }
    return CLI_OK;

oom:
    fprintf(stderr, "arbiter %s: out of memory\n", cmd);
    return CLI_ERROR;
}

int
cli_tourn_board(arb_buf_t *out, const cli_tourn_t *t)
{
    arb_board_table_t *bt;
    uint64_t           round = t->n ? t->sm[t->n - 1].round : 0;
    size_t             i, k = 0;
    int                rc;

    bt = calloc(t->n + 1, sizeof(*bt));
    if (bt == NULL)
        return ARB_ENOMEM;
    for (i = 0; i < t->n; i++) {
        const arb_standings_match_t *m = &t->sm[i];
        const arb_history_t         *h = &t->tables[i].h;
        if (m->round != round)
            continue;
        bt[k].table = m->table;
        bt[k].match = m->match;
        bt[k].players = m->players;
        bt[k].nplayers = m->nplayers;
        bt[k].seq = m->seq;
        bt[k].last_ms = h->recs ? h->recs[h->nevents].time_ms : 0;
        rc = arb_board_status(t->tables[i].m, m->seq, &bt[k].undo_seq);
        if (rc < 0)
            goto done;
        bt[k++].status = rc;
    }
    rc = arb_board_json(out, t->id, round, bt, k);
done:
    free(bt);
    return rc;
}
