/*
 * tourn.h - a tournament's tables and its pairing list (docs/TOURNAMENT.md).
 *
 * DESIGN: a table is written in one string, "TABLE:MATCH:P1,P2[,...]",
 * the argument of the director's `round` act (core/rules/tournament.c);
 * a pairing list is CSV, one table a line: round,table,player,player...
 * The match id of a table is derived, never typed: TOURNAMENT-R<n>-T<t>,
 * so a retried round opens the same matches.
 *
 * Ownership: every struct here owns its strings; the *_clear functions
 * release them (NULL-safe) and leave the struct zeroed.
 */
#ifndef ARB_TOURN_H
#define ARB_TOURN_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/limits.h"
#include "core/rules.h"

/* Most tables one act names: the `round` act and each `tables` act that
 * adds to its round carry one argument each after the round number
 * (ARB_ARGS_MAX in core/limits.h). */
#define ARB_TOURN_ACT_TABLES  (ARB_ARGS_MAX - 1)
/* Most tables a round holds, as the `round` op takes them (it records
 * them in acts of ARB_TOURN_ACT_TABLES: docs/TOURNAMENT.md).  Until
 * 2026-12-05 a round had one act, and at most 31 tables. */
#define ARB_TOURN_TABLES_MAX  1024

/* The tournament rule set's editions (docs/TOURNAMENT.md, "Editions"):
 * 3 ranks a table forfeited after its match was played by the match's
 * totals; 2 takes only the derived match id in every act; 1 any. */
#define ARB_TOURN_EDITION    "arbiter-tournament-3"
#define ARB_TOURN_EDITION_2  "arbiter-tournament-2"
#define ARB_TOURN_EDITION_1  "arbiter-tournament-1"

/* Whether tournament setup `s` (its open) ranks a table forfeited after
 * its match was played by that match's totals (edition 3 on). */
int arb_tourn_forfeit_played(const arb_setup_t *s);

/* How many of a tournament's results records are its tables: they come
 * first, a withdrawal's record (`withdrawn`, `after_round`) after them
 * (core/rules/tournament.c). */
size_t arb_tourn_ntables(const arb_results_t *r);

typedef struct arb_tourn_table {
    char   *table;              /* label: "7" */
    char   *match;              /* the match recorded at it */
    size_t  nplayers;
    char  **players;            /* seat order */
    char  **teams;              /* team of each seat (a team game), or
                                   NULL: no seat has a team */
    uint64_t seq;               /* the tournament's act that recorded it
                                   (its results' "fixed at"); 0: none */
    unsigned forfeit;           /* seats that forfeited it (bit per seat
                                   index), 0: none */
    uint64_t forfeit_seq;       /* the `forfeit` act, when forfeit */
} arb_tourn_table_t;

void arb_tourn_table_clear(arb_tourn_table_t *t);
/* dst (its content not read) becomes a deep copy of src.  0, or
 * ARB_ENOMEM with dst cleared. */
int  arb_tourn_table_copy(arb_tourn_table_t *dst,
                          const arb_tourn_table_t *src);
/* Parses "TABLE:MATCH:P1,P2,..." (each a valid name, arb_name_valid, 1..
 * ARB_PLAYERS_MAX players, none twice).  In a team game every player is
 * written PLAYER:TEAM (all of them or none).  0, ARB_EINVAL with v naming
 * the part, or ARB_ENOMEM. */
int  arb_tourn_table_parse(arb_tourn_table_t *t, const char *s,
                           arb_verdict_t *v);
/* Appends "TABLE:MATCH:P1[:TEAM],P2[:TEAM],..." to b. */
void arb_tourn_table_format(arb_buf_t *b, const arb_tourn_table_t *t);

/* What every table of a tournament is opened with, from the tournament's
 * setup `tourn`: its option `game` as the game and each `game.KEY=VALUE`
 * as option KEY=VALUE; no players.  With option deal=seed, a seed deal
 * whose seed is ARB_TOURN_SEED_JUDGE: enough for the rules to judge a
 * table's setup; the recorder draws each table's real seed when it opens
 * it (daemon/op_round.c).  Into *s (cleared first; release with
 * arb_setup_clear).  0, ARB_EINVAL (no option game) or ARB_ENOMEM. */
#define ARB_TOURN_SEED_JUDGE "judge"
int  arb_tourn_game_setup(arb_setup_t *s, const arb_setup_t *tourn);
/* The setup of table tb's match: a copy of `game` (arb_tourn_game_setup)
 * with tb's match id, players in seat order and, in a team game, the
 * teams in the order they first appear.  Into *s (cleared first).  0 or
 * ARB_ENOMEM. */
int  arb_tourn_table_setup(arb_setup_t *s, const arb_setup_t *game,
                           const arb_tourn_table_t *tb);
/* The match id of table `table` of round `round`: "TID-R<round>-T<table>"
 * into b (replacing its contents).  0, or ARB_ETOOBIG when it would be
 * longer than a match id may be (64 bytes). */
int  arb_tourn_match_id(arb_buf_t *b, const char *tid, uint64_t round,
                        const char *table);

/* A pairing list: rows in file order. */
typedef struct arb_pairing_row {
    uint64_t           round;
    unsigned           line;    /* 1-based, for messages */
    arb_tourn_table_t  t;       /* match not set (NULL) */
} arb_pairing_row_t;

typedef struct arb_pairing {
    size_t             nrows;
    arb_pairing_row_t *rows;
    size_t             caprows;     /* rows allocated */
} arb_pairing_t;

void arb_pairing_clear(arb_pairing_t *p);
/* Parses CSV text: a UTF-8 byte order mark skipped, an optional header
 * line starting "round," before the first table, blank lines (or of
 * blanks) and lines starting '#' skipped, every other line
 * round,table,player... (at least one player; no quoting: names cannot
 * hold commas); a table once per round, a player at one table per round.
 * At most ARB_TOURN_ROWS_MAX rows.  0, or ARB_EINVAL / ARB_ETOOBIG with
 * "line N: ..." in why, or ARB_ENOMEM. */
#define ARB_TOURN_ROWS_MAX  4096
int  arb_pairing_parse(arb_pairing_t *p, const char *text, size_t len,
                       arb_buf_t *why);

#endif
