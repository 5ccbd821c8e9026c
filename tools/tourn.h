/*
 * tourn.h - a tournament and the matches of its tables, loaded for the
 * tools (tournament show/round/end/standings/board, export --tournament)
 * into the one assembled view of core/tourn_view.h.
 *
 * Ownership: cli_tourn_t owns everything in it; cli_tourn_clear() releases
 * it (NULL-safe).
 */
#ifndef ARB_TOOLS_TOURN_H
#define ARB_TOOLS_TOURN_H

#include "core/tourn_view.h"

typedef struct cli_tourn {
    arb_tview_t  v;
    const char  *cmd;
    const char  *db;
    struct arb_store *st;       /* db, opened once for every match */
    struct cli_net *n;
    int          tables;        /* loading the tables: one not opened yet
                                   is not an error */
} cli_tourn_t;

struct cli_net;
/* Loads tournament `id` and, with `tables`, every table's match from --db
 * DIR (db not NULL) or the server (n, connected if it is not yet).
 * CLI_OK, or CLI_DIFFERS / CLI_ERROR with the reason printed as "arbiter
 * CMD: ...". */
int  cli_tourn_load(cli_tourn_t *t, const char *cmd, const char *db,
                    const char *id, struct cli_net *n, int tables);
/* The tournament of loaded t as it stood after its event `at`, read
 * again from where t was and replayed into *m (the caller's to free):
 * what a round is judged against when it is recorded already.  CLI_OK,
 * or CLI_DIFFERS / CLI_ERROR with the reason printed. */
int  cli_tourn_replay_at(cli_tourn_t *t, uint64_t at, arb_match_t **m);
void cli_tourn_clear(cli_tourn_t *t);

#endif
