/*
 * tourn.h - a tournament and the matches of its tables, loaded for the
 * tools (tournament show/standings/board, export --tournament).
 *
 * Ownership: cli_tourn_t owns everything in it; cli_tourn_clear() releases
 * it (NULL-safe).  sm[i] borrows from tables[i] and the tournament's
 * results, so it lives as long as the cli_tourn_t.
 */
#ifndef ARB_TOOLS_TOURN_H
#define ARB_TOOLS_TOURN_H

#include "core/ledger/history.h"
#include "core/match.h"
#include "core/standings.h"

typedef struct cli_tourn_table {
    arb_history_t h;
    arb_match_t  *m;
    arb_results_t res;
} cli_tourn_table_t;

typedef struct cli_tourn {
    const char            *id;
    arb_history_t          h;
    arb_match_t           *m;
    arb_results_t          res;     /* one record per table */
    int                    rule;    /* enum arb_standings_rule */
    size_t                 n;
    cli_tourn_table_t     *tables;  /* tables[i] is res.records[i] */
    arb_standings_match_t *sm;      /* the same, for core/standings.h */
} cli_tourn_t;

struct cli_net;
/* Loads tournament `id` and, with `tables`, every table's match from --db
 * DIR (db not NULL) or the server (n, connected if it is not yet).  CLI_OK, or CLI_DIFFERS
 * / CLI_ERROR with the reason printed as "arbiter CMD: ...". */
int  cli_tourn_load(cli_tourn_t *t, const char *cmd, const char *db,
                    const char *id, struct cli_net *n, int tables);
void cli_tourn_clear(cli_tourn_t *t);
/* The board of the latest round (core/board.h) as JSON into out.  0 or
 * ARB_ENOMEM. */
int  cli_tourn_board(arb_buf_t *out, const cli_tourn_t *t);

#endif
