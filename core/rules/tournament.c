/*
 * tournament.c - a tournament recorded as a match of the pseudo-game
 * "tournament" (docs/TOURNAMENT.md).
 *
 * DESIGN: a tournament is one more match in the store, so it gets the
 * hash chain, the index, subscriptions, exports and bundles without a line
 * of special code.  Its one seat is the director; its moves are the
 * director's acts:
 *   round N T:MATCH:p1,p2[,...] ...   round N begins with these tables
 *   tables N T:MATCH:p1,p2[,...] ...  more tables of round N (in progress)
 *   end N                             round N is over
 *   forfeit N TABLE PLAYER...         those players of that table forfeit:
 *                                     their side loses it, the others win
 *   withdraw N PLAYER...              those players leave the tournament:
 *                                     no table after round N seats them
 * The rules keep the pairing consistent (rounds in order, one round at a
 * time, a player at one table per round, a match id used once); the
 * matches themselves are recorded and judged on their own.  The options
 * pin what every table's match is opened with (`game`, `game.KEY`) and
 * the standings rule (`standings`: gp or mp).  No clock, no I/O, no
 * floats; everything iterates in recorded order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/json.h"
#include "core/limits.h"
#include "core/rules.h"
#include "core/rules/reading.h"
#include "core/standings.h"
#include "core/tourn.h"

/* Edition 3 (2026-12-06): the acts are judged as in edition 2; what
 * changed is how the standings read a forfeit at a table whose match was
 * played to its end (core/standings.c), so that a tournament's standings
 * never change under it.  Edition 2 (2026-12-06): a table's match id is
 * the derived one, TOURNAMENT-R<n>-T<table>, also in an act recorded by
 * hand.  Edition 1 took any id there: a match of another tournament, or
 * one already counted elsewhere, could be named and counted (its
 * tournaments replay as recorded). */
#define EDITION   ARB_TOURN_EDITION

typedef struct tround {
    uint64_t       n;
    int            ended;
    size_t         ntables;
    arb_tourn_table_t *tables;
} tround_t;

/* A player's withdrawal: seated at no table of a round after `round`
 * (the latest round begun when the act was recorded, at seq). */
typedef struct twithdrawal {
    char     *player;
    uint64_t  round;
    uint64_t  seq;
} twithdrawal_t;

typedef struct tstate {
    char     *id;               /* the tournament's match id */
    int       ed1;              /* edition 1: any table match id */
    char     *director;
    char     *game;
    arb_setup_t table;          /* what every table is opened with: the
                                   game and its options, no players */
    int       rule;             /* enum arb_standings_rule */
    size_t    nrounds;
    tround_t *rounds;
    size_t    nwd;
    twithdrawal_t *wd;          /* in the order recorded */
} tstate_t;

static void
round_clear(tround_t *r)
{
    size_t i;

    for (i = 0; i < r->ntables; i++)
        arb_tourn_table_clear(&r->tables[i]);
    free(r->tables);
    memset(r, 0, sizeof(*r));
}

static void
t_destroy(void *p)
{
    tstate_t *t = p;
    size_t    i;

    if (t == NULL)
        return;
    for (i = 0; i < t->nrounds; i++)
        round_clear(&t->rounds[i]);
    free(t->rounds);
    for (i = 0; i < t->nwd; i++)
        free(t->wd[i].player);
    free(t->wd);
    free(t->id);
    free(t->director);
    free(t->game);
    arb_setup_clear(&t->table);
    free(t);
}

static int
t_clone(void **out, const void *st)
{
    const tstate_t *t = st;
    tstate_t       *c = calloc(1, sizeof(*c));
    size_t          i, j;
    int             bad = 0;

    *out = NULL;
    if (c == NULL)
        return ARB_ENOMEM;
    c->ed1 = t->ed1;
    c->rule = t->rule;
    c->id = t->id ? strdup(t->id) : NULL;
    c->director = t->director ? strdup(t->director) : NULL;
    c->game = t->game ? strdup(t->game) : NULL;
    bad |= (t->id && !c->id) || (t->director && !c->director)
           || (t->game && !c->game)
           || arb_setup_copy(&c->table, &t->table) != 0;
    c->rounds = calloc(t->nrounds ? t->nrounds : 1, sizeof(*c->rounds));
    bad |= c->rounds == NULL;
    for (i = 0; !bad && i < t->nrounds; i++, c->nrounds++) {
        tround_t *r = &c->rounds[i];

        r->n = t->rounds[i].n;
        r->ended = t->rounds[i].ended;
        r->tables = calloc(t->rounds[i].ntables ? t->rounds[i].ntables : 1,
                           sizeof(*r->tables));
        bad |= r->tables == NULL;
        for (j = 0; !bad && j < t->rounds[i].ntables; j++, r->ntables++)
            bad |= arb_tourn_table_copy(&r->tables[j],
                                        &t->rounds[i].tables[j]) != 0;
    }
    c->wd = calloc(t->nwd ? t->nwd : 1, sizeof(*c->wd));
    bad |= c->wd == NULL;
    for (i = 0; !bad && i < t->nwd; i++, c->nwd++) {
        c->wd[i] = t->wd[i];
        c->wd[i].player = t->wd[i].player ? strdup(t->wd[i].player) : NULL;
        bad |= t->wd[i].player && !c->wd[i].player;
    }
    if (bad) {
        t_destroy(c);
        return ARB_ENOMEM;
    }
    *out = c;
    return 0;
}

static int
t_create(void **out, const arb_setup_t *s, arb_verdict_t *v)
{
    static const char *const editions[] = { EDITION, ARB_TOURN_EDITION_2,
                                            ARB_TOURN_EDITION_1 };
    tstate_t   *t;
    const char *game, *rule;
    size_t      i;
    int         ed;

    *out = NULL;
    if ((ed = arb_rules_edition(s, editions, 3, v)) < 0)
        return ed;
    if (s->nplayers != 1 || s->nteams != 0)
        return arb_verdict(v, ARB_EINVAL, "tournament.setup", "a tournament "
                           "has one seat, its director (got %zu players, "
                           "%zu teams)", s->nplayers, s->nteams);
    if (s->deal.kind != ARB_DEAL_NONE)
        return arb_verdict(v, ARB_EINVAL, "tournament.setup",
                           "a tournament deals no cards");
    for (i = 0; i < s->noptions; i++)
        if (strcmp(s->options[i].key, "game") != 0
            && strcmp(s->options[i].key, "standings") != 0
            && strcmp(s->options[i].key, "deal") != 0
            && strncmp(s->options[i].key, "game.", 5) != 0)
            return arb_verdict(v, ARB_EINVAL, "tournament.setup", "unknown "
                               "option '%s': game, standings, deal or "
                               "game.KEY", s->options[i].key);
    if (arb_setup_option(s, "deal") != NULL
        && strcmp(arb_setup_option(s, "deal"), "seed") != 0)
        return arb_verdict(v, ARB_EINVAL, "tournament.setup", "option deal "
                           "must be seed (each table dealt from a seed the "
                           "recorder draws), not '%s'",
                           arb_setup_option(s, "deal"));
    game = arb_setup_option(s, "game");
    if (game == NULL || arb_rules_find(game) == NULL
        || strcmp(game, "tournament") == 0)
        return arb_verdict(v, ARB_EINVAL, "tournament.setup", "option game "
                           "must name the game played at the tables (%s)",
                           game ? game : "missing");
    rule = arb_setup_option(s, "standings");
    t = calloc(1, sizeof(*t));
    if (t == NULL)
        return ARB_ENOMEM;
    t->rule = arb_standings_rule_parse(rule ? rule : "gp");
    if (t->rule < 0) {
        t_destroy(t);
        return arb_verdict(v, ARB_EINVAL, "tournament.setup", "option "
                           "standings must be gp or mp, not '%s'", rule);
    }
    t->ed1 = ed == 2;
    t->id = strdup(s->match_id);
    t->director = strdup(s->players[0].name);
    t->game = strdup(game);
    if (t->id == NULL || t->director == NULL || t->game == NULL
        || arb_tourn_game_setup(&t->table, s) != 0) {
        t_destroy(t);
        return ARB_ENOMEM;
    }
    *out = t;
    return 0;
}

/* 1 when match id m is already a table's match in t. */
static int
match_used(const tstate_t *t, const char *m)
{
    size_t i, j;

    for (i = 0; i < t->nrounds; i++)
        for (j = 0; j < t->rounds[i].ntables; j++)
            if (strcmp(t->rounds[i].tables[j].match, m) == 0)
                return 1;
    return 0;
}

/* A table's match id is derived from the tournament, the round and the
 * label, never typed: so no act can name a match of another tournament,
 * or one that is not this table's (docs/TOURNAMENT.md). */
static int
derived_id(const tstate_t *t, uint64_t round, const arb_tourn_table_t *tb,
           arb_verdict_t *v)
{
    arb_buf_t b = ARB_BUF_INIT;
    int       rc;

    if (t->ed1)
        return 0;
    rc = arb_tourn_match_id(&b, t->id, round, tb->table);
    if (rc == 0 && strcmp(arb_buf_cstr(&b), tb->match) != 0)
        rc = arb_verdict(v, ARB_EILLEGAL, "tournament.round", "table %s of "
                         "round %llu is match %s, not %s: a table's match id "
                         "is derived (TOURNAMENT-R<n>-T<table>)", tb->table,
                         (unsigned long long)round, arb_buf_cstr(&b),
                         tb->match);
    else if (rc == ARB_ETOOBIG)
        rc = arb_verdict(v, ARB_EINVAL, "tournament.round", "table %s of "
                         "round %llu: its match id %s is longer than 64 "
                         "bytes", tb->table, (unsigned long long)round,
                         arb_buf_cstr(&b));
    arb_buf_free(&b);
    return rc;
}

/* The table's match must open: its game's rules judge its setup now, so
 * a round is never recorded with a table that cannot be played. */
static int
table_opens(const tstate_t *t, const arb_tourn_table_t *tb, arb_verdict_t *v)
{
    const arb_rules_t *r = arb_rules_find(t->game);
    arb_setup_t        s;
    void              *st = NULL;
    int                rc;

    rc = arb_tourn_table_setup(&s, &t->table, tb);
    if (rc == 0) {
        rc = r->create(&st, &s, v);
        r->destroy(st);
        if (rc != 0 && rc != ARB_ENOMEM) {
            char why[sizeof(v->msg)], rule[sizeof(v->rule)];
            /* arb_verdict() rewrites v: keep the game's words first. */
            snprintf(why, sizeof(why), "%s", v->msg);
            snprintf(rule, sizeof(rule), "%s", v->rule);
            rc = arb_verdict(v, ARB_EILLEGAL, "tournament.table", "table %s "
                             "(%s) cannot be opened: %s: %s", tb->table,
                             tb->match, rule, why);
        }
    }
    arb_setup_clear(&s);
    return rc;
}

static int
parse_round(const char *s, uint64_t *n)
{
    char *end;

    if (s == NULL || *s < '1' || *s > '9' || strlen(s) > 6)
        return -1;
    *n = strtoull(s, &end, 10);
    return *end == '\0' ? 0 : -1;
}

/* Whether table tb of round `round` clashes with one of the round's
 * tables prev[0..n): the same label or match, or a player seated at both.
 * 0, or ARB_EILLEGAL with v naming both tables. */
static int
conflict(const arb_tourn_table_t *prev, size_t n,
         const arb_tourn_table_t *tb, uint64_t round, arb_verdict_t *v)
{
    size_t j, k, l;

    for (j = 0; j < n; j++) {
        const arb_tourn_table_t *o = &prev[j];

        if (strcmp(o->table, tb->table) == 0
            || strcmp(o->match, tb->match) == 0)
            return arb_verdict(v, ARB_EILLEGAL, "tournament.round",
                               "round %llu: table %s (match %s) is listed "
                               "twice", (unsigned long long)round,
                               tb->table, tb->match);
        for (k = 0; k < tb->nplayers; k++)
            for (l = 0; l < o->nplayers; l++)
                if (strcmp(tb->players[k], o->players[l]) == 0)
                    return arb_verdict(v, ARB_EILLEGAL, "tournament.round",
                                       "round %llu: %s plays at table %s "
                                       "and at table %s",
                                       (unsigned long long)round,
                                       tb->players[k], o->table, tb->table);
    }
    return 0;
}

/* The withdrawal of player p, or NULL: p has not withdrawn. */
static const twithdrawal_t *
withdrawn(const tstate_t *t, const char *p)
{
    size_t i;

    for (i = 0; i < t->nwd; i++)
        if (strcmp(t->wd[i].player, p) == 0)
            return &t->wd[i];
    return NULL;
}

/* A player who withdrew sits at no table of a later round: the director
 * pairing them again is a mistake the record refuses, as a player seated
 * twice is.  0, or ARB_EILLEGAL naming the player and the act. */
static int
seats_withdrawn(const tstate_t *t, const arb_tourn_table_t *tb,
                uint64_t round, arb_verdict_t *v)
{
    const twithdrawal_t *w;
    size_t               k;

    /* After round N: a table added to round N itself may still seat
     * them (until 2026-12-06 refused as "after round N", of round N). */
    for (k = 0; k < tb->nplayers; k++)
        if ((w = withdrawn(t, tb->players[k])) != NULL && round > w->round)
            return arb_verdict(v, ARB_EILLEGAL, "tournament.round",
                               "round %llu: table %s seats %s, who withdrew "
                               "from the tournament after round %llu (seq "
                               "%llu)", (unsigned long long)round, tb->table,
                               tb->players[k], (unsigned long long)w->round,
                               (unsigned long long)w->seq);
    return 0;
}

/*
 * Adds the tables of act ev (its arguments after the round number) to
 * round r, each checked against the round's tables so far and judged by
 * its game's rules: all of them, or none (r as it was) with the verdict
 * of the first that cannot be.
 */
static int
add_tables(tstate_t *t, tround_t *r, const arb_event_t *ev,
           arb_verdict_t *v)
{
    arb_tourn_table_t *nt, *tb;
    size_t             n0 = r->ntables, i;
    int                rc = 0;

    /* (At most ARB_TOURN_ACT_TABLES: the codec's ARB_ARGS_MAX.) */
    nt = realloc(r->tables, (n0 + ev->nargs - 1) * sizeof(*nt));
    if (nt == NULL)
        return ARB_ENOMEM;
    r->tables = nt;
    for (i = 1; i < ev->nargs; i++) {
        tb = &r->tables[r->ntables];
        rc = arb_tourn_table_parse(tb, ev->args[i], v);
        tb->seq = ev->seq;
        if (rc == 0)
            rc = derived_id(t, r->n, tb, v);
        if (rc == 0)
            rc = conflict(r->tables, r->ntables, tb, r->n, v);
        if (rc == 0)
            rc = seats_withdrawn(t, tb, r->n, v);
        if (rc == 0)
            rc = table_opens(t, tb, v);
        if (rc == 0 && match_used(t, tb->match))
            rc = arb_verdict(v, ARB_EILLEGAL, "tournament.round", "match %s "
                             "is already a table of an earlier round",
                             tb->match);
        if (rc != 0) {
            arb_tourn_table_clear(tb);
            break;
        }
        r->ntables++;
    }
    while (rc != 0 && r->ntables > n0)
        arb_tourn_table_clear(&r->tables[--r->ntables]);
    return rc;
}

static int
begin_round(tstate_t *t, const arb_event_t *ev, arb_verdict_t *v)
{
    tround_t  r, *nr;
    uint64_t  n;
    int       rc;

    memset(&r, 0, sizeof(r));
    if (ev->nargs < 2 || parse_round(ev->args[0], &n) != 0)
        return arb_verdict(v, ARB_EINVAL, "tournament.round", "round N "
                           "TABLE:MATCH:PLAYER,... (at least one table)");
    if (n != t->nrounds + 1)
        return arb_verdict(v, ARB_EILLEGAL, "tournament.round", "round %llu "
                           "cannot begin: the next round is %zu",
                           (unsigned long long)n, t->nrounds + 1);
    if (t->nrounds > 0 && !t->rounds[t->nrounds - 1].ended)
        return arb_verdict(v, ARB_EILLEGAL, "tournament.round", "round %zu "
                           "is not over: end it before round %llu begins",
                           t->nrounds, (unsigned long long)n);
    r.n = n;
    rc = add_tables(t, &r, ev, v);
    if (rc != 0)
        goto fail;
    nr = realloc(t->rounds, (t->nrounds + 1) * sizeof(*nr));
    if (nr == NULL) {
        rc = ARB_ENOMEM;
        goto fail;
    }
    t->rounds = nr;
    t->rounds[t->nrounds++] = r;
    return 0;

fail:
    round_clear(&r);
    return rc;
}

/* `tables N ...`: more tables of round N, the round in progress (the
 * `round` op's tables past the first act's, or a table added late). */
static int
more_tables(tstate_t *t, const arb_event_t *ev, arb_verdict_t *v)
{
    uint64_t n;

    if (ev->nargs < 2 || parse_round(ev->args[0], &n) != 0)
        return arb_verdict(v, ARB_EINVAL, "tournament.tables", "tables N "
                           "TABLE:MATCH:PLAYER,... (at least one table)");
    if (t->nrounds == 0 || n != t->nrounds
        || t->rounds[t->nrounds - 1].ended)
        return arb_verdict(v, ARB_EILLEGAL, "tournament.tables", "round "
                           "%llu is not the round in progress",
                           (unsigned long long)n);
    return add_tables(t, &t->rounds[t->nrounds - 1], ev, v);
}

/* `forfeit N TABLE PLAYER...`: the players named (seated at table TABLE
 * of round N, which may be over) forfeit it.  A table is forfeited once;
 * its match, played or not, then counts nothing of its own
 * (core/standings.h). */
static int
forfeit(tstate_t *t, const arb_event_t *ev, arb_verdict_t *v)
{
    arb_tourn_table_t *tb = NULL;
    unsigned           seats = 0;
    uint64_t           n;
    size_t             i, k;

    if (ev->nargs < 1 || parse_round(ev->args[0], &n) != 0)
        return arb_verdict(v, ARB_EINVAL, "tournament.forfeit", "forfeit N "
                           "TABLE PLAYER...: N is a round (1..999999, no "
                           "leading zero), not '%s'",
                           ev->nargs < 1 ? "" : ev->args[0]);
    if (ev->nargs < 3)
        return arb_verdict(v, ARB_EINVAL, "tournament.forfeit", "forfeit "
                           "%llu TABLE PLAYER...: name the table and at "
                           "least one player who forfeits",
                           (unsigned long long)n);
    if (n > t->nrounds && t->nrounds == 0)
        return arb_verdict(v, ARB_EILLEGAL, "tournament.forfeit", "round "
                           "%llu is not recorded (no round is yet)",
                           (unsigned long long)n);
    if (n > t->nrounds)
        return arb_verdict(v, ARB_EILLEGAL, "tournament.forfeit", "round "
                           "%llu is not recorded (rounds 1..%zu)",
                           (unsigned long long)n, t->nrounds);
    for (i = 0; i < t->rounds[n - 1].ntables; i++)
        if (strcmp(t->rounds[n - 1].tables[i].table, ev->args[1]) == 0)
            tb = &t->rounds[n - 1].tables[i];
    if (tb == NULL)
        return arb_verdict(v, ARB_EILLEGAL, "tournament.forfeit", "round "
                           "%llu has no table %s", (unsigned long long)n,
                           ev->args[1]);
    if (tb->forfeit != 0)
        return arb_verdict(v, ARB_EILLEGAL, "tournament.forfeit", "table %s "
                           "of round %llu is forfeited already (seq %llu)",
                           tb->table, (unsigned long long)n,
                           (unsigned long long)tb->forfeit_seq);
    for (i = 2; i < ev->nargs; i++) {
        for (k = 0; k < tb->nplayers; k++)
            if (strcmp(tb->players[k], ev->args[i]) == 0)
                break;
        if (k == tb->nplayers)
            return arb_verdict(v, ARB_EILLEGAL, "tournament.forfeit", "%s "
                               "is not at table %s of round %llu",
                               ev->args[i], tb->table, (unsigned long long)n);
        if (seats & (1u << k))
            return arb_verdict(v, ARB_EINVAL, "tournament.forfeit", "%s is "
                               "named twice", ev->args[i]);
        seats |= 1u << k;
    }
    tb->forfeit = seats;
    tb->forfeit_seq = ev->seq;
    return 0;
}

/* 1 when player p sits at a table of any round of t. */
static int
seated(const tstate_t *t, const char *p)
{
    size_t i, j, k;

    for (i = 0; i < t->nrounds; i++)
        for (j = 0; j < t->rounds[i].ntables; j++)
            for (k = 0; k < t->rounds[i].tables[j].nplayers; k++)
                if (strcmp(t->rounds[i].tables[j].players[k], p) == 0)
                    return 1;
    return 0;
}

/* `withdraw N PLAYER...`: the players named leave the tournament; no
 * table of a round after N seats them.  N is the latest round begun (in
 * progress or over): the act says which rounds they played, and the
 * tables they hold in it stay as they are (a game they leave is a
 * `forfeit`).  Each must sit at a table of the tournament, and withdraws
 * once; all of them, or none. */
static int
withdraw(tstate_t *t, const arb_event_t *ev, arb_verdict_t *v)
{
    const twithdrawal_t *w;
    twithdrawal_t       *nw;
    uint64_t             n;
    size_t               i, j;

    /* Each refusal says what is wrong (until 2026-12-06 one usage line
     * for all of them). */
    if (ev->nargs < 1 || parse_round(ev->args[0], &n) != 0)
        return arb_verdict(v, ARB_EINVAL, "tournament.withdraw", "withdraw "
                           "N PLAYER...: N is the latest round, after which "
                           "they play no more (1..999999, no leading zero), "
                           "not '%s'", ev->nargs < 1 ? "" : ev->args[0]);
    if (ev->nargs < 2)
        return arb_verdict(v, ARB_EINVAL, "tournament.withdraw", "withdraw "
                           "%llu PLAYER...: name at least one player",
                           (unsigned long long)n);
    if (t->nrounds == 0)
        return arb_verdict(v, ARB_EILLEGAL, "tournament.withdraw", "no "
                           "round is recorded yet: a player who never "
                           "played is simply not paired");
    if (n != t->nrounds)
        return arb_verdict(v, ARB_EILLEGAL, "tournament.withdraw", "withdraw "
                           "%llu: the latest round is %zu (they withdraw "
                           "after it)", (unsigned long long)n, t->nrounds);
    for (i = 1; i < ev->nargs; i++) {
        if (!seated(t, ev->args[i]))
            return arb_verdict(v, ARB_EILLEGAL, "tournament.withdraw", "%s "
                               "sits at no table of this tournament",
                               ev->args[i]);
        if ((w = withdrawn(t, ev->args[i])) != NULL)
            return arb_verdict(v, ARB_EILLEGAL, "tournament.withdraw", "%s "
                               "withdrew already, after round %llu (seq "
                               "%llu)", ev->args[i],
                               (unsigned long long)w->round,
                               (unsigned long long)w->seq);
        for (j = 1; j < i; j++)
            if (strcmp(ev->args[j], ev->args[i]) == 0)
                return arb_verdict(v, ARB_EINVAL, "tournament.withdraw",
                                   "%s is named twice", ev->args[i]);
    }
    nw = realloc(t->wd, (t->nwd + ev->nargs - 1) * sizeof(*nw));
    if (nw == NULL)
        return ARB_ENOMEM;
    t->wd = nw;
    for (i = 1; i < ev->nargs; i++) {
        nw = &t->wd[t->nwd + i - 1];
        nw->round = n;
        nw->seq = ev->seq;
        if ((nw->player = strdup(ev->args[i])) == NULL) {
            while (--i > 0)             /* none of them, as refused */
                free(t->wd[t->nwd + i - 1].player);
            return ARB_ENOMEM;
        }
    }
    t->nwd += ev->nargs - 1;
    return 0;
}

static int
t_apply(void *p, const arb_event_t *ev, int flags, arb_verdict_t *v)
{
    tstate_t *t = p;
    uint64_t  n;

    (void)flags;                /* no director's act is forced */
    v->code = 0;
    if (ev->player == NULL || strcmp(ev->player, t->director) != 0)
        return arb_verdict(v, ARB_EILLEGAL, "tournament.director", "only "
                           "the director (%s) acts in a tournament, not %s",
                           t->director, ev->player ? ev->player : "nobody");
    if (strcmp(ev->verb, "round") == 0)
        return begin_round(t, ev, v);
    if (strcmp(ev->verb, "tables") == 0)
        return more_tables(t, ev, v);
    if (strcmp(ev->verb, "end") == 0) {
        if (ev->nargs != 1 || parse_round(ev->args[0], &n) != 0)
            return arb_verdict(v, ARB_EINVAL, "tournament.end", "end N");
        if (t->nrounds == 0 || n != t->nrounds
            || t->rounds[t->nrounds - 1].ended)
            return arb_verdict(v, ARB_EILLEGAL, "tournament.end", "round "
                               "%llu is not the round in progress",
                               (unsigned long long)n);
        t->rounds[t->nrounds - 1].ended = 1;
        return 0;
    }
    if (strcmp(ev->verb, "forfeit") == 0)
        return forfeit(t, ev, v);
    if (strcmp(ev->verb, "withdraw") == 0)
        return withdraw(t, ev, v);
    return arb_verdict(v, ARB_EINVAL, "tournament.verb", "unknown act '%s': "
                       "round, tables, end, forfeit or withdraw", ev->verb);
}

static int
t_finished(const void *p)
{
    (void)p;
    return 0;                   /* a tournament ends when it is closed */
}

/* A forfeited table's record also names who forfeited (`forfeit`, in
 * seat order) and the act (`forfeit_seq`); other records are as before
 * forfeits existed. */
static int
forfeit_fields(arb_record_t *rec, const arb_tourn_table_t *tb)
{
    char  *who[ARB_PLAYERS_MAX];
    size_t k, n = 0;

    for (k = 0; k < tb->nplayers && k < ARB_PLAYERS_MAX; k++)
        if (tb->forfeit & (1u << k))
            who[n++] = tb->players[k];
    return arb_record_list(rec, "forfeit", who, n) != 0
           || arb_record_int(rec, "forfeit_seq", (int64_t)tb->forfeit_seq)
              != 0 ? ARB_ENOMEM : 0;
}

/* One record per table, in round then table order as recorded, fixed
 * by the act that recorded it (until 2026-12-05 at seq 0: a judged act
 * listed no table); after all of them, one per withdrawal, in the order
 * recorded (`withdrawn`, `after_round`), which has no `table`: readers
 * of the tables take the records up to the first without one
 * (arb_tourn_ntables). */
static int
t_results(const void *p, arb_results_t *out)
{
    const tstate_t *t = p;
    size_t          i, j;

    /* (Until 2026-12-05 not cleared first: a caller's uninitialized
     * results made a state read of a tournament crash the recorder.) */
    memset(out, 0, sizeof(*out));
    for (i = 0; i < t->nrounds; i++)
        for (j = 0; j < t->rounds[i].ntables; j++) {
            const arb_tourn_table_t *tb = &t->rounds[i].tables[j];
            arb_record_t *rec = arb_results_add_record(out, tb->seq);
            if (rec == NULL
                || arb_record_int(rec, "round", (int64_t)t->rounds[i].n) != 0
                || arb_record_str(rec, "table", tb->table) != 0
                || arb_record_str(rec, "match", tb->match) != 0
                || arb_record_list(rec, "players", tb->players,
                                   tb->nplayers) != 0
                || (tb->teams != NULL
                    && arb_record_list(rec, "teams", tb->teams,
                                       tb->nplayers) != 0)
                || arb_record_int(rec, "ended", t->rounds[i].ended) != 0
                || (tb->forfeit != 0 && forfeit_fields(rec, tb) != 0))
                return ARB_ENOMEM;
        }
    for (i = 0; i < t->nwd; i++) {
        arb_record_t *rec = arb_results_add_record(out, t->wd[i].seq);
        if (rec == NULL
            || arb_record_str(rec, "withdrawn", t->wd[i].player) != 0
            || arb_record_int(rec, "after_round", (int64_t)t->wd[i].round)
               != 0)
            return ARB_ENOMEM;
    }
    return 0;
}

static void
t_digest(const void *p, arb_digest_t *d)
{
    const tstate_t *t = p;
    size_t          i, j, k;

    arb_digest_u64(d, t->nrounds);
    for (i = 0; i < t->nrounds; i++) {
        arb_digest_u64(d, t->rounds[i].n);
        arb_digest_u64(d, (uint64_t)t->rounds[i].ended);
        arb_digest_u64(d, t->rounds[i].ntables);
        for (j = 0; j < t->rounds[i].ntables; j++) {
            const arb_tourn_table_t *tb = &t->rounds[i].tables[j];
            arb_digest_str(d, tb->table);
            arb_digest_str(d, tb->match);
            arb_digest_u64(d, tb->nplayers);
            for (k = 0; k < tb->nplayers; k++)
                arb_digest_str(d, tb->players[k]);
            /* Only team tables add their teams: the digests of
             * tournaments recorded before teams stay what they were. */
            for (k = 0; tb->teams != NULL && k < tb->nplayers; k++)
                arb_digest_str(d, tb->teams[k]);
        }
    }
    /* The forfeits last, and only when there are: the digests of
     * tournaments without one stay what they were. */
    for (i = 0; i < t->nrounds; i++)
        for (j = 0; j < t->rounds[i].ntables; j++) {
            const arb_tourn_table_t *tb = &t->rounds[i].tables[j];
            if (tb->forfeit == 0)
                continue;
            arb_digest_str(d, "forfeit");
            arb_digest_u64(d, t->rounds[i].n);
            arb_digest_str(d, tb->table);
            arb_digest_u64(d, tb->forfeit);
        }
    /* The withdrawals after them, as the forfeits: only when there are. */
    for (i = 0; i < t->nwd; i++) {
        arb_digest_str(d, "withdraw");
        arb_digest_str(d, t->wd[i].player);
        arb_digest_u64(d, t->wd[i].round);
    }
}

/* Nothing of a tournament is hidden: `seen` changes nothing. */
static json_t *
t_describe(const void *p, unsigned seen)
{
    const tstate_t *t = p;
    json_t         *o = json_object(), *rounds = json_array(), *r, *tables,
                   *tab, *players;
    size_t          i, j, k;
    int             bad = 0;

    (void)seen;
    bad |= arb_json_set(o, "game", arb_json_string(t->game));
    bad |= arb_json_set(o, "standings",
                        json_string(arb_standings_rule_name(t->rule)));
    for (i = 0; i < t->nrounds && !bad; i++) {
        r = json_object();
        tables = json_array();
        bad |= arb_json_set(r, "round",
                            json_integer((json_int_t)t->rounds[i].n));
        bad |= arb_json_set(r, "ended", json_boolean(t->rounds[i].ended));
        for (j = 0; j < t->rounds[i].ntables && !bad; j++) {
            const arb_tourn_table_t *tb = &t->rounds[i].tables[j];
            tab = json_object();
            players = json_array();
            bad |= arb_json_set(tab, "table", arb_json_string(tb->table));
            bad |= arb_json_set(tab, "match", arb_json_string(tb->match));
            for (k = 0; k < tb->nplayers; k++)
                bad |= arb_json_add(players, arb_json_string(tb->players[k]));
            bad |= arb_json_set(tab, "players", players);
            if (tb->teams != NULL) {
                json_t *teams = json_array();
                for (k = 0; k < tb->nplayers; k++)
                    bad |= arb_json_add(teams, arb_json_string(tb->teams[k]));
                bad |= arb_json_set(tab, "teams", teams);
            }
            if (tb->forfeit != 0) {
                json_t *ff = json_array();
                for (k = 0; k < tb->nplayers; k++)
                    if (tb->forfeit & (1u << k))
                        bad |= arb_json_add(ff,
                                            arb_json_string(tb->players[k]));
                bad |= arb_json_set(tab, "forfeit", ff);
            }
            bad |= arb_json_add(tables, tab);
        }
        bad |= arb_json_set(r, "tables", tables);
        bad |= arb_json_add(rounds, r);
    }
    bad |= arb_json_set(o, "rounds", rounds);
    if (t->nwd > 0) {
        json_t *wd = json_array(), *w;
        for (i = 0; i < t->nwd; i++) {
            w = json_object();
            bad |= arb_json_set(w, "player", arb_json_string(t->wd[i].player));
            bad |= arb_json_set(w, "after_round",
                                json_integer((json_int_t)t->wd[i].round));
            bad |= arb_json_set(w, "seq",
                                json_integer((json_int_t)t->wd[i].seq));
            bad |= arb_json_add(wd, w);
        }
        bad |= arb_json_set(o, "withdrawn", wd);
    }
    return bad ? (json_decref(o), NULL) : o;
}

static const char *const move_verbs[] = { "round", "tables", "end",
                                          "forfeit", "withdraw", NULL };

const arb_rules_t arb_rules_tournament = {
    .game = "tournament",
    .verbs = move_verbs,
    .edition = EDITION,
    .create = t_create,
    .destroy = t_destroy,
    .clone = t_clone,
    .apply = t_apply,
    .finished = t_finished,
    .results = t_results,
    .digest = t_digest,
    .describe = t_describe,
    .narration = NULL,
};
