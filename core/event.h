/*
 * event.h - the match setup and the events of a match, game-agnostic.
 *
 * DESIGN: a move is a verb, the player making it and a list of arguments in
 * the game's own notation ("place" alice "4♠"; "place" ann "7♥" "c4").  The
 * rule set parses its own arguments, so the transcript parser, the wire
 * codec and the store never need to know a game.  Arbiter rulings (void,
 * amend, illegal-move-stands), notes, claims and close are match-level
 * kinds that the match layer (core/match.h) interprets; rule sets see only
 * moves.
 *
 * Ownership: every string and array in these structs is owned by the struct
 * (malloc'd) and released by arb_setup_clear()/arb_event_clear(), which
 * accept NULL and partially filled structs.
 */
#ifndef ARB_EVENT_H
#define ARB_EVENT_H

#include <stddef.h>
#include <stdint.h>
#include "core/hash.h"

typedef struct arb_player {
    char *name;         /* unique within the match */
    int   team;         /* index into setup.teams, or -1 */
} arb_player_t;

typedef struct arb_option {
    char *key;
    char *value;
} arb_option_t;

enum arb_deal_kind {
    ARB_DEAL_NONE = 0,  /* the game deals nothing (YAHchain) */
    ARB_DEAL_ORDER,     /* cards: the explicit stock order, top first */
    ARB_DEAL_SEED,      /* seed: shuffled by arb_shuffle() (core/shuffle.h) */
    ARB_DEAL_COMMIT     /* only seed_hash is known until the seed is revealed */
};

typedef struct arb_deal {
    int            kind;
    size_t         ncards;
    char         **cards;
    char          *seed;
    unsigned char  seed_hash[ARB_HASH_LEN];   /* BLAKE2b-256 of the seed (SEED, COMMIT) */
} arb_deal_t;

typedef struct arb_setup {
    char         *game;         /* rule set name: "yahchain" */
    char         *match_id;
    char         *edition;      /* rules edition; the rule set's when NULL */
    char         *engine;       /* engine version pinned at open, or NULL */
    size_t        nplayers;
    arb_player_t *players;      /* seat order */
    size_t        nteams;
    char        **teams;
    size_t        noptions;
    arb_option_t *options;      /* kept sorted by key; keys unique */
    arb_deal_t    deal;
} arb_setup_t;

enum arb_event_kind {
    ARB_EV_OPEN = 0,    /* the match header, always seq 0 */
    ARB_EV_MOVE,        /* a game move, judged by the rule set */
    ARB_EV_CLOSE,       /* the arbiter closes the match; text = reason */
    ARB_EV_NOTE,        /* free text; no effect on state */
    ARB_EV_VOID,        /* ruling: event `target` is void; text = reason */
    ARB_EV_AMEND,       /* ruling: event `target` becomes this move */
    ARB_EV_STANDS,      /* ruling: this illegal move stands, flagged */
    ARB_EV_CLAIM,       /* a claim of the results (core/claim.h): args =
                           claimed records, text = totals, player = who
                           claims (optional); the one kind accepted after
                           close */
    ARB_EV_KIND_MAX
};

typedef struct arb_event {
    int           kind;         /* enum arb_event_kind */
    uint64_t      seq;          /* position in the match; OPEN is 0 */
    int64_t       time_ms;      /* Unix ms stamped by the daemon; 0 unknown */
    char         *actor;        /* authenticated identity, or NULL */
    char         *client_id;    /* the client's event id, or NULL */
    char         *player;       /* MOVE/AMEND/STANDS: who moves; CLAIM:
                                   who claims */
    char         *verb;         /* MOVE/AMEND/STANDS: the game verb */
    size_t        nargs;
    char        **args;         /* move arguments; CLAIM: the records */
    uint64_t      target;       /* VOID/AMEND: the seq ruled on */
    char         *text;         /* NOTE text; reason of CLOSE and rulings;
                                   CLAIM: {"totals":{...}} */
    arb_setup_t  *setup;        /* OPEN only */
} arb_event_t;

/* Kind names as written in transcripts and on the wire ("move", "void"). */
const char *arb_event_kind_name(int kind);
int         arb_event_kind_parse(const char *name);   /* kind or -1 */
int         arb_event_kind_parse_n(const char *name, size_t n);  /* same */

void arb_setup_clear(arb_setup_t *s);
void arb_event_clear(arb_event_t *e);
/* Deep copies; 0 or ARB_ENOMEM (dst is left cleared on failure). */
int  arb_setup_copy(arb_setup_t *dst, const arb_setup_t *src);
int  arb_event_copy(arb_event_t *dst, const arb_event_t *src);

/* The value of option `key`, or NULL. */
const char *arb_setup_option(const arb_setup_t *s, const char *key);
/* Sets (or replaces) an option, keeping the array sorted. 0 or ARB_ENOMEM. */
int  arb_setup_set_option(arb_setup_t *s, const char *key, const char *value);
/* Seat index of player `name`, or -1. */
int  arb_setup_seat(const arb_setup_t *s, const char *name);
/* Appends a player / team / move argument (copies the string). */
int  arb_setup_add_player(arb_setup_t *s, const char *name, int team);
int  arb_setup_add_team(arb_setup_t *s, const char *name);
int  arb_event_add_arg(arb_event_t *e, const char *arg);
int  arb_deal_add_card(arb_deal_t *d, const char *card);

/* Frees n strings and the array; NULL-safe. */
void arb_strv_free(char **v, size_t n);
/* A copy of n strings, each its own strdup (NULL entries stay NULL), in
 * a new array (non-NULL even when n is 0); NULL when out of memory. */
char **arb_strv_dup(char *const *v, size_t n);

/* A name usable as player, team, match id or identity: 1..64 bytes of
 * [A-Za-z0-9_.@+-].  Returns 1 when valid. */
int  arb_name_valid(const char *s);

#endif
