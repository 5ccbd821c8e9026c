/*
 * rules.h - the one interface every rule set implements.
 *
 * DESIGN: a rule set is a table of functions over an opaque state.  It is
 * built to serve all four games of the seeds without change:
 *  - setup carries seats, teams, options and a deal (explicit order or a
 *    seed, core/shuffle.h), so dealt games (Chains, Tsukurutenten, Chắn)
 *    and undealt ones (YAHchain) share it;
 *  - a move names its player, so a rule set decides turn order itself and
 *    may accept moves out of turn (a Tsukurutenten take, a Chắn Chíu);
 *  - apply is atomic: a rejected move leaves the state untouched, so the
 *    daemon can validate against its live state and only then queue;
 *  - results are generic records of named fields, so claims, diffs and
 *    exports work for every game without knowing it.
 * Rule code does no I/O, reads no clock and iterates no hash tables.
 */
#ifndef ARB_RULES_H
#define ARB_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/digest.h"
#include "core/event.h"

/* Why a move or a setup was refused.  rule names the rule ("§34.12",
 * "Diversity"); msg is a full sentence naming cards, players and Sotas. */
typedef struct arb_verdict {
    int  code;              /* 0, or ARB_EILLEGAL / ARB_EINVAL / ARB_EOVER */
    char rule[48];
    char msg[320];
} arb_verdict_t;

/* Sets v and returns code (for `return arb_verdict(v, ...)`). */
int arb_verdict(arb_verdict_t *v, int code, const char *rule,
                const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* One field of a result record. */
enum arb_field_type { ARB_F_INT = 0, ARB_F_STR, ARB_F_LIST };

typedef struct arb_field {
    const char *key;        /* static string owned by the rule set */
    int         type;
    int64_t     num;
    char       *str;        /* owned */
    size_t      nlist;
    char      **list;       /* owned */
} arb_field_t;

typedef struct arb_record {
    uint64_t     seq;       /* the event that fixed this record */
    size_t       nfields;
    arb_field_t *fields;
} arb_record_t;

typedef struct arb_total {
    char    *name;          /* player (or team) name, owned */
    int64_t  points;
} arb_total_t;

/* Everything a rule set reports as a match's results.  Owned; release
 * with arb_results_clear() (NULL-safe). */
typedef struct arb_results {
    size_t        nrecords;
    arb_record_t *records;
    size_t        ntotals;
    arb_total_t  *totals;   /* in seat (or team) order */
} arb_results_t;

void arb_results_clear(arb_results_t *r);
/* Builders for rule sets; each returns 0 or ARB_ENOMEM. */
arb_record_t *arb_results_add_record(arb_results_t *r, uint64_t seq);
int arb_record_int(arb_record_t *rec, const char *key, int64_t v);
int arb_record_str(arb_record_t *rec, const char *key, const char *s);
int arb_record_list(arb_record_t *rec, const char *key, char **v, size_t n);
int arb_results_add_total(arb_results_t *r, const char *name, int64_t pts);
const arb_field_t *arb_record_get(const arb_record_t *rec, const char *key);

/* A rule set's own words for consoles (core/narrate.h says how they are
 * used); every member may be NULL, and then generic words are used.  pos
 * and before are describe()'s JSON, parsed (Jansson's json_t). */
struct json_t;
typedef struct arb_narration {
    const char *bare_verb;      /* a move may be written as its arguments */
    int         card_first;     /* a move's first argument is a card */
    void (*move)(arb_buf_t *out, const arb_event_t *ev);
    void (*record)(arb_buf_t *out, const arb_record_t *rec);
    /* What a move that fixed no record did: from the positions before
     * and after it (after may be NULL). */
    void (*effect)(arb_buf_t *out, const struct json_t *before,
                   const struct json_t *after, const arb_event_t *ev);
    void (*prompt)(arb_buf_t *out, const struct json_t *pos);
    void (*header)(arb_buf_t *out, const struct json_t *pos);
    /* 0 to leave the position to the generic words. */
    int  (*position)(arb_buf_t *out, const struct json_t *pos, int screen);
    /* Argument i of a typed move of `verb` as the log spells it (one
     * card, one cell, one spelling): written into out[0..n) and out
     * returned, or arg returned unchanged.  NULL: card_first's rule. */
    const char *(*spell_arg)(const char *verb, size_t i, const char *arg,
                             char *out, size_t n);
} arb_narration_t;

/* apply flags */
#define ARB_APPLY_FORCE 0x1     /* an arbiter ruled that this illegal move
                                   stands: record its effect anyway; the
                                   verdict still says what rule it broke */

typedef struct arb_rules {
    const char *game;           /* "yahchain" */
    const char *edition;        /* rules edition recorded in the header */
    /* The verbs of its moves, NULL-ended: what a console names when a
     * typed move starts with none of them. */
    const char *const *verbs;

    /* Validates the setup and builds the initial state.  0, or ARB_EINVAL
     * with the reason in v. */
    int  (*create)(void **st, const arb_setup_t *setup, arb_verdict_t *v);
    void (*destroy)(void *st);                              /* NULL-safe */
    /* A deep copy of st into *out, sharing nothing with it: what a
     * recorder judges a move on without replaying the match's history
     * (arb_match_copy).  0 or ARB_ENOMEM.  May be NULL: copies of the
     * game's matches are then made by replay. */
    int  (*clone)(void **out, const void *st);

    /* Judges one ARB_EV_MOVE event.  0 = accepted and applied.  Otherwise
     * the verdict's code (ARB_EILLEGAL, ARB_EINVAL for a malformed move,
     * ARB_EOVER when the match is over) and the state is unchanged, unless
     * flags has ARB_APPLY_FORCE and the move could still be carried out, in
     * which case it is applied and the verdict is kept for the flag. */
    int  (*apply)(void *st, const arb_event_t *ev, int flags,
                  arb_verdict_t *v);

    /* 1 when the rules accept no further move. */
    int  (*finished)(const void *st);

    /* The match's results so far (records in the order they were fixed),
     * into *out, which it initializes (its content is not read). */
    int  (*results)(const void *st, arb_results_t *out);

    /* Feeds the canonical state into d: everything that decides future
     * legality and results, nothing else. */
    void (*digest)(const void *st, arb_digest_t *d);

    /* A new JSON object (Jansson, core/json.h) describing the live
     * position (whose turn, active cell...) for consoles and state reads,
     * or NULL when out of memory.  Only what is public at the table, plus
     * the concealed cards of the seats in `seen` (bit per seat index;
     * core/view.h decides who sees what): a seat's hidden hand is a count,
     * and a list `hand_cards` only for a seat in `seen`.  With seen == 0
     * it is the canonical report's "state". */
    struct json_t *(*describe)(const void *st, unsigned seen);

    /* Which arguments of a move (ARB_EV_MOVE, or the move of an amend or
     * stands ruling) only some viewers may see: returns how many leading
     * arguments are public (ev->nargs: all) and sets *owner to the seat
     * that may see the rest, or -1 when no seat may (a stock order).  May
     * be NULL: the game's moves hide nothing. */
    size_t (*conceal)(const arb_setup_t *setup, const arb_event_t *ev,
                      int *owner);

    /* Words for consoles, or NULL for generic ones (core/narrate.h). */
    const arb_narration_t *narration;
} arb_rules_t;

/* The rule set for a game name, or NULL. */
const arb_rules_t *arb_rules_find(const char *game);
/* NULL-terminated list of every rule set, for help texts. */
const arb_rules_t *const *arb_rules_all(void);

/* For the rule sets' clone(): a malloc'd copy of n bytes at p (a
 * non-NULL pointer even when n is 0), or NULL when out of memory. */
void *arb_rules_memdup(const void *p, size_t n);

#endif
