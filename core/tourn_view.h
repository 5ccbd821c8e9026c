/*
 * tourn_view.h - a tournament with its tables' matches, assembled once for
 * every reader: the tools (from a data directory or the server) and the
 * daemon's board and standings ops (from its store) fill it through a
 * loader callback, and get the same standings and board.
 *
 * Ownership: arb_tview_t owns the tournament match, every table's match
 * and results; sm[i] borrows from them.  arb_tview_clear() releases it
 * all (NULL-safe).
 */
#ifndef ARB_TOURN_VIEW_H
#define ARB_TOURN_VIEW_H

#include "core/buf.h"
#include "core/hash.h"
#include "core/match.h"
#include "core/standings.h"

typedef struct arb_tview_table {
    arb_match_t   *m;               /* NULL: not opened yet, or sealed */
    int            sealed;          /* running, and its hands cannot be
                                       judged by this reader (a dealt
                                       match whose deal it lacks) */
    int            moved;           /* sealed: a move follows its open */
    arb_results_t  res;
    int64_t        last_ms;         /* time of its last event, 0 unknown */
    int            has_head;
    unsigned char  head[ARB_HASH_LEN];
    char          *problem;         /* why its match does not count (the
                                       standings' `problem`), or NULL */
} arb_tview_table_t;

typedef struct arb_tview {
    char                  *id;
    arb_match_t           *t;       /* the tournament */
    arb_results_t          res;     /* one record per table, then one per
                                       withdrawal */
    int                    rule;    /* enum arb_standings_rule */
    size_t                 ntables; /* res's records of tables */
    size_t                 n;       /* ntables, or 0 without `tables` */
    arb_tview_table_t     *tables;  /* tables[i] is res.records[i] */
    arb_standings_match_t *sm;      /* the same, for core/standings.h */
} arb_tview_t;

/* Loads match `id` as recorded: *m (owned by the caller after), its last
 * seq, that seq's time and head (head NULL-able: unknown).  0,
 * ARB_ENOTFOUND (not opened yet), ARB_ESEALED (a running dealt match
 * whose deal this reader lacks, such as a read replica without the
 * replication key: *m NULL, the rest set, and *moved 1 when a move (or
 * a move let stand) follows its open, as its board status needs; it
 * counts nothing), or another ARB_E* with why. */
typedef int (*arb_tview_load_cb)(void *ud, const char *id, arb_match_t **m,
                                 uint64_t *seq, int64_t *last_ms,
                                 unsigned char *head, int *has_head,
                                 int *moved, arb_buf_t *why);

/* Takes tournament t (owned by v from now on, also on failure); with
 * `tables`, loads every table's match through load.  0, ARB_EINVAL (t is
 * not a tournament; why says so), or the loader's error. */
int  arb_tview_build(arb_tview_t *v, arb_match_t *t, int tables,
                     arb_tview_load_cb load, void *ud, arb_buf_t *why);
void arb_tview_clear(arb_tview_t *v);

/* The board of the latest round (core/board.h), JSON into out.  0 or
 * ARB_ENOMEM. */
int  arb_tview_board(arb_buf_t *out, const arb_tview_t *v);
/* Table i's status (enum arb_board_status): forfeit when a tournament's
 * act forfeited it; when sealed, not_started at its open and playing
 * after; else its match's; *undo_seq as
 * arb_board_status gives it.  A status or ARB_ENOMEM. */
int  arb_tview_status(const arb_tview_t *v, size_t i, uint64_t *undo_seq);
/* The standings by the tournament's rule, JSON (json) or CSV.  0 or
 * ARB_ENOMEM. */
int  arb_tview_standings(arb_buf_t *out, const arb_tview_t *v, int json);

#endif
