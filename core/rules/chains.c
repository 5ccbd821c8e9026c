/*
 * chains.c - SKIM-10 "Chains" (Igor Katanugin, 2021) as a rule set.
 *
 * DESIGN: every reading of the seed text is recorded, with its reason, in
 * docs/rules/chains.md.  In short:
 *  - two teams named `long` (scores horizontal chains) and `short`
 *    (vertical ones), seated alternately; 2v2, 3v3, or 1v1 where each
 *    player holds two hands and the hands move A1, B1, A2, B2;
 *  - the whole deck is dealt one card at a time round the hands, from a
 *    recorded order or a seed (core/shuffle.h);
 *  - a move is `place <player> <card> <cell>` with cells r<row>c<col>
 *    relative to the first card (r0c0), or `pass <player>`, which is legal
 *    only when the hand on turn has no legal placement;
 *  - the match is over as soon as no hand can place a card; the chains
 *    are scored from the table as it stands (results() at any time gives
 *    the chains of the current table).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/rules/reading.h"
#include "core/json.h"
#include "core/rules.h"
#include "core/rules/chains.h"
#include "core/shuffle.h"

#define EDITION     "SKIM-10-2021"
#define HANDS_MAX   6

typedef struct chains {
    int        deck;                /* 36 or 52 */
    int        variant;             /* ARB_CHAINS_SQUARE / SUM */
    int        nplayers, nhands;
    char     **players;             /* seat order, owned */
    char      *match_id;
    int        team_of[HANDS_MAX];  /* by seat: ARB_CHAINS_LONG / SHORT */
    int        team_order[2];       /* totals in the teams header's order */
    int        hand_seat[HANDS_MAX];
    int        hand_no[HANDS_MAX];  /* 1, or 1 / 2 for a 1v1 player */
    uint64_t   hand[HANDS_MAX];     /* bit k: card k */
    int        turn;                /* hand to move */
    int        ended;
    arb_chains_table_t table;
} chains_t;

static void
chains_destroy(void *p)
{
    chains_t *g = p;
    int       i;

    if (g == NULL)
        return;
    for (i = 0; g->players != NULL && i < g->nplayers; i++)
        free(g->players[i]);
    free(g->players);
    free(g->match_id);
    free(g);
}

static int
chains_clone(void **out, const void *st)
{
    const chains_t *g = st;
    chains_t       *c = arb_rules_memdup(g, sizeof(*g));

    *out = NULL;
    if (c == NULL)
        return ARB_ENOMEM;
    c->players = arb_strv_dup(g->players, (size_t)g->nplayers);
    c->match_id = g->match_id ? strdup(g->match_id) : NULL;
    if (c->players == NULL || (g->match_id && c->match_id == NULL)) {
        chains_destroy(c);
        return ARB_ENOMEM;
    }
    *out = c;
    return 0;
}

/* Deck index i (the canonical order: ♠ ♥ ♦ ♣, each low to Ace) to card. */
static arb_chains_card_t
deck_card(int deck, int i)
{
    int per = deck == 36 ? 9 : 13, low = deck == 36 ? 6 : 2;

    return (arb_chains_card_t)((i / per) * 13 + low + i % per - 2);
}

static int
in_deck(const chains_t *g, arb_chains_card_t c)
{
    return arb_chains_rank(c) >= g->table.low;
}

/* A hand's name for messages: "ann", or "ann (hand 2)" in a 1v1 match. */
static void
hand_name(char *out, size_t n, const chains_t *g, int h)
{
    if (g->nplayers == 2)
        snprintf(out, n, "%s (hand %d)", g->players[g->hand_seat[h]],
                 g->hand_no[h]);
    else
        snprintf(out, n, "%s", g->players[g->hand_seat[h]]);
}

static int
any_legal(const chains_t *g)
{
    arb_chains_card_t c;
    int               h, r, q;

    for (h = 0; h < g->nhands; h++)
        if (arb_chains_table_find(&g->table, g->hand[h], &c, &r, &q))
            return 1;
    return 0;
}

static int
setup_teams(chains_t *g, const arb_setup_t *s, arb_verdict_t *v)
{
    size_t i;
    int    t;

    if (s->nteams != 2)
        return arb_verdict(v, ARB_EINVAL, "setup",
                           "Chains is played by two teams: write 'teams: "
                           "long short' and give each player a side, e.g. "
                           "'players: ann:long bob:short cid:long "
                           "dan:short'");
    for (i = 0; i < 2; i++) {
        if (strcmp(s->teams[i], "long") == 0)
            g->team_order[i] = ARB_CHAINS_LONG;
        else if (strcmp(s->teams[i], "short") == 0)
            g->team_order[i] = ARB_CHAINS_SHORT;
        else
            return arb_verdict(v, ARB_EINVAL, "setup",
                               "team '%s' is not a side of Chains: the "
                               "teams are 'long' (horizontal chains) and "
                               "'short' (vertical chains)", s->teams[i]);
    }
    if (g->team_order[0] == g->team_order[1])
        return arb_verdict(v, ARB_EINVAL, "setup",
                           "team '%s' is listed twice: the teams are 'long' "
                           "and 'short'", s->teams[0]);
    for (i = 0; i < s->nplayers; i++) {
        t = s->players[i].team;
        if (t < 0 || (size_t)t >= s->nteams)
            return arb_verdict(v, ARB_EINVAL, "setup",
                               "player '%s' has no side: write %s:long or "
                               "%s:short", s->players[i].name,
                               s->players[i].name, s->players[i].name);
        g->team_of[i] = g->team_order[t];
        if (i > 0 && g->team_of[i] == g->team_of[i - 1])
            return arb_verdict(v, ARB_EINVAL, "setup",
                               "players '%s' and '%s' of team '%s' sit side "
                               "by side: the teams sit alternately (list "
                               "the players in seat order, one of each team "
                               "in turn)", s->players[i - 1].name,
                               s->players[i].name, s->teams[t]);
    }
    return 0;
}

/* Builds the stock (top first) from the deal; 0 or ARB_EINVAL. */
static int
setup_stock(chains_t *g, const arb_setup_t *s, arb_chains_card_t *stock,
            arb_verdict_t *v)
{
    unsigned perm[ARB_CHAINS_CARDS];
    int      seen[ARB_CHAINS_CARDS];
    char     err[160], a[8];
    size_t   i;

    if (s->deal.kind == ARB_DEAL_SEED) {
        const char *seed = s->deal.seed ? s->deal.seed : "";
        if (arb_shuffle(perm, (size_t)g->deck, seed, strlen(seed)) != 0)
            return arb_verdict(v, ARB_EINVAL, "deal", "the seed deal failed");
        for (i = 0; i < (size_t)g->deck; i++)
            stock[i] = deck_card(g->deck, (int)perm[i]);
        return 0;
    }
    if (s->deal.kind != ARB_DEAL_ORDER)
        return arb_verdict(v, ARB_EINVAL, "deal",
                           "Chains needs its deal recorded, to judge hands "
                           "and passes: 'deal: seed <text>' or 'deal: order "
                           "<all %d cards, top first>'", g->deck);
    if (s->deal.ncards != (size_t)g->deck)
        return arb_verdict(v, ARB_EINVAL, "deal",
                           "the deal order lists %zu cards, but the whole "
                           "%d-card deck is dealt", s->deal.ncards, g->deck);
    memset(seen, 0, sizeof(seen));
    for (i = 0; i < s->deal.ncards; i++) {
        const char *w = s->deal.cards[i];
        if (arb_chains_card_parse(&stock[i], w, strlen(w), err,
                                  sizeof(err)) != 0)
            return arb_verdict(v, ARB_EINVAL, "deal",
                               "deal order, card %zu: %s", i + 1, err);
        arb_chains_card_format(a, stock[i]);
        if (!in_deck(g, stock[i]))
            return arb_verdict(v, ARB_EINVAL, "deal",
                               "deal order, card %zu: %s is not in the "
                               "36-card deck (6..A)", i + 1, a);
        if (seen[stock[i]])
            return arb_verdict(v, ARB_EINVAL, "deal",
                               "deal order, card %zu: %s is listed twice "
                               "(first as card %d)", i + 1, a,
                               seen[stock[i]]);
        seen[stock[i]] = (int)i + 1;
    }
    return 0;
}

static int
chains_create(void **out, const arb_setup_t *s, arb_verdict_t *v)
{
    static const char *const editions[] = { EDITION };
    arb_chains_card_t stock[ARB_CHAINS_CARDS];
    chains_t   *g;
    const char *o;
    size_t      i, j;
    int         rc, size;

    *out = NULL;
    if ((rc = arb_rules_edition(s, editions, 1, v)) < 0)
        return rc;
    for (i = 0; i < s->noptions; i++)
        if (strcmp(s->options[i].key, "deck") != 0
            && strcmp(s->options[i].key, "scoring") != 0)
            return arb_verdict(v, ARB_EINVAL, "setup",
                               "unknown option '%s' for chains (options: "
                               "deck, scoring)", s->options[i].key);
    if (s->nplayers != 2 && s->nplayers != 4 && s->nplayers != 6)
        return arb_verdict(v, ARB_EINVAL, "setup",
                           "Chains is played 2 against 2 or 3 against 3 "
                           "(or 1 against 1 with two hands each): 2, 4 or 6 "
                           "players, got %zu", s->nplayers);

    g = calloc(1, sizeof(*g));
    if (g == NULL)
        return ARB_ENOMEM;
    o = arb_setup_option(s, "deck");
    if (o != NULL && strcmp(o, "36") == 0)
        g->deck = 36;
    else if (o != NULL && strcmp(o, "52") == 0)
        g->deck = 52;
    else {
        rc = arb_verdict(v, ARB_EINVAL, "setup",
                         o == NULL ? "the deck must be agreed before the "
                         "match: set deck to 36 or 52%s"
                         : "deck '%s' does not exist: Chains uses 36 (6..A) "
                         "or 52 (2..A) cards", o ? o : "");
        goto fail;
    }
    o = arb_setup_option(s, "scoring");
    if (o != NULL && strcmp(o, "square") == 0)
        g->variant = ARB_CHAINS_SQUARE;
    else if (o != NULL && strcmp(o, "sum") == 0)
        g->variant = ARB_CHAINS_SUM;
    else {
        rc = arb_verdict(v, ARB_EINVAL, "setup",
                         o == NULL ? "the scoring must be chosen before the "
                         "match: set scoring to square or sum%s"
                         : "scoring '%s' does not exist: use square (length "
                         "squared) or sum (sum of the ranks)", o ? o : "");
        goto fail;
    }
    size = g->deck == 36 ? 6 : 7;
    arb_chains_table_init(&g->table, size, g->deck == 36 ? 6 : 2);
    if ((rc = setup_teams(g, s, v)) != 0)
        goto fail;

    g->nplayers = (int)s->nplayers;
    g->players = calloc(s->nplayers, sizeof(char *));
    g->match_id = strdup(s->match_id ? s->match_id : "");
    if (g->players == NULL || g->match_id == NULL)
        goto oom;
    for (i = 0; i < s->nplayers; i++) {
        for (j = 0; j < i; j++)
            if (strcmp(s->players[i].name, s->players[j].name) == 0) {
                rc = arb_verdict(v, ARB_EINVAL, "setup",
                                 "player '%s' is seated twice",
                                 s->players[i].name);
                goto fail;
            }
        g->players[i] = strdup(s->players[i].name);
        if (g->players[i] == NULL)
            goto oom;
    }
    /* 1v1: each player's cards make two hands, moving A1 B1 A2 B2. */
    g->nhands = g->nplayers == 2 ? 4 : g->nplayers;
    for (i = 0; i < (size_t)g->nhands; i++) {
        g->hand_seat[i] = (int)i % g->nplayers;
        g->hand_no[i] = (int)i / g->nplayers + 1;
    }
    if ((rc = setup_stock(g, s, stock, v)) != 0)
        goto fail;
    for (i = 0; i < (size_t)g->deck; i++)
        g->hand[i % (size_t)g->nhands] |= (uint64_t)1 << stock[i];
    g->ended = !any_legal(g);
    *out = g;
    return 0;

oom:
    rc = ARB_ENOMEM;
fail:
    chains_destroy(g);
    return rc;
}

static int
find_seat(const chains_t *g, const char *name)
{
    int i;

    for (i = 0; name != NULL && i < g->nplayers; i++)
        if (strcmp(g->players[i], name) == 0)
            return i;
    return -1;
}

/* The hand a move by `seat` is played from: the hand on turn when it is
 * the seat's; otherwise (out of turn, only under a ruling) the seat's hand
 * holding the card, else its next hand in the rotation. */
static int
mover_hand(const chains_t *g, int seat, int card)
{
    int h, k;

    if (g->hand_seat[g->turn] == seat)
        return g->turn;
    for (h = 0; card >= 0 && h < g->nhands; h++)
        if (g->hand_seat[h] == seat && (g->hand[h] >> card & 1))
            return h;
    for (k = 1; k <= g->nhands; k++) {
        h = (g->turn + k) % g->nhands;
        if (g->hand_seat[h] == seat)
            return h;
    }
    return g->turn;
}

static int
check_turn(const chains_t *g, int seat, arb_verdict_t *v)
{
    char hand[ARB_HASH_LEN] = "";

    if (g->hand_seat[g->turn] == seat)
        return 0;
    if (g->nplayers == 2)
        snprintf(hand, sizeof(hand), " (hand %d)", g->hand_no[g->turn]);
    return arb_verdict(v, ARB_EILLEGAL, "Turn",
                       "it is %s's turn%s, not %s's: the teams move "
                       "alternately in seat order",
                       g->players[g->hand_seat[g->turn]], hand,
                       g->players[seat]);
}

static int
apply_place(chains_t *g, const arb_event_t *ev, int seat, int force,
            arb_verdict_t *v)
{
    arb_chains_card_t c;
    arb_verdict_t     tmp, why;
    char              err[160], a[8], cell[16], who[96];
    int               row, col, fatal, broke, placeable, h, k;

    if (ev->nargs != 2)
        return arb_verdict(v, ARB_EINVAL, "move",
                           "place takes a card and a cell: 'place %s <card> "
                           "<cell>', e.g. 'place %s 7♥ r0c1', got %zu "
                           "arguments", g->players[seat], g->players[seat],
                           ev->nargs);
    if (arb_chains_card_parse(&c, ev->args[0], strlen(ev->args[0]), err,
                              sizeof(err)) != 0)
        return arb_verdict(v, ARB_EINVAL, "card", "%s", err);
    arb_chains_card_format(a, c);
    if (!in_deck(g, c))
        return arb_verdict(v, ARB_EINVAL, "card",
                           "%s is not in the 36-card deck (6..A)", a);
    if (arb_chains_cell_parse(&row, &col, ev->args[1]) != 0)
        return arb_verdict(v, ARB_EINVAL, "cell",
                           "'%s' is not a cell: write r<row>c<col> counted "
                           "from the first card (r0c0), rows down and "
                           "columns right, e.g. r-1c2 (at most %d either "
                           "way)", ev->args[1], ARB_CHAINS_REACH);
    arb_chains_cell_format(cell, row, col);
    if (g->table.seq_of[c] != 0) {
        arb_chains_cell_format(err, g->table.row_of[c], g->table.col_of[c]);
        return arb_verdict(v, ARB_EILLEGAL, "Hand",
                           "%s is already on the table at %s (seq "
                           "%llu)", a,
                           err, (unsigned long long)g->table.seq_of[c]);
    }
    if (g->table.n == 0 && (row != 0 || col != 0))
        return arb_verdict(v, ARB_EINVAL, "cell",
                           "the first card is the origin of the cells: "
                           "place it at r0c0, not %s", cell);

    /* Rule checks in the order turn, hand, placing principles; under a
     * ruling the first broken rule is kept for the flag and the card is
     * placed anyway, unless its cell is taken. */
    placeable = arb_chains_table_check(&g->table, c, row, col, &fatal,
                                       &why) == 0;
    if (fatal) {
        *v = why;
        return v->code;
    }
    broke = 1;
    if (check_turn(g, seat, &tmp) != 0)
        ;
    else if (!(g->hand[g->turn] >> c & 1)) {
        hand_name(who, sizeof(who), g, g->turn);
        arb_verdict(&tmp, ARB_EILLEGAL, "Hand",
                    "%s does not hold %s: a player places only cards "
                    "from their own hand", who, a);
    } else if (!placeable)
        tmp = why;
    else
        broke = 0;
    if (broke && !force) {
        *v = tmp;
        return v->code;
    }
    if (broke)
        *v = tmp;

    h = mover_hand(g, seat, c);
    for (k = 0; k < g->nhands; k++)
        g->hand[k] &= ~((uint64_t)1 << c);
    arb_chains_table_put(&g->table, c, row, col, ev->seq);
    g->turn = (h + 1) % g->nhands;
    g->ended = !any_legal(g);
    return 0;
}

static int
apply_pass(chains_t *g, const arb_event_t *ev, int seat, int force,
           arb_verdict_t *v)
{
    arb_chains_card_t c;
    arb_verdict_t     tmp;
    char              a[8], cell[16], who[96];
    int               row, col, broke = 1;

    if (ev->nargs != 0)
        return arb_verdict(v, ARB_EINVAL, "move",
                           "pass takes no arguments: 'pass %s'",
                           g->players[seat]);
    if (check_turn(g, seat, &tmp) != 0)
        ;
    else if (arb_chains_table_find(&g->table, g->hand[g->turn], &c, &row,
                                   &col)) {
        arb_chains_card_format(a, c);
        arb_chains_cell_format(cell, row, col);
        hand_name(who, sizeof(who), g, g->turn);
        arb_verdict(&tmp, ARB_EILLEGAL, "Pass",
                    "%s may not pass while a card can be placed (the "
                    "move is compulsory): %s can go at %s", who, a, cell);
    } else
        broke = 0;
    if (broke && !force) {
        *v = tmp;
        return v->code;
    }
    if (broke)
        *v = tmp;
    g->turn = (mover_hand(g, seat, -1) + 1) % g->nhands;
    return 0;
}

static int
chains_apply(void *p, const arb_event_t *ev, int flags, arb_verdict_t *v)
{
    chains_t *g = p;
    int       seat, force = flags & ARB_APPLY_FORCE;

    v->code = 0;
    if (g->ended)
        return arb_verdict(v, ARB_EOVER, "end",
                           "the match is over: no hand can place a card");
    if (ev->verb == NULL || (strcmp(ev->verb, "place") != 0
                             && strcmp(ev->verb, "pass") != 0))
        return arb_verdict(v, ARB_EINVAL, "move",
                           "chains has no move '%s': the moves are 'place "
                           "<player> <card> <cell>' and 'pass <player>'",
                           ev->verb ? ev->verb : "");
    seat = find_seat(g, ev->player);
    if (seat < 0)
        return arb_verdict(v, ARB_EINVAL, "move",
                           "player '%s' is not seated in this match",
                           ev->player ? ev->player : "");
    if (ev->verb[1] == 'l')
        return apply_place(g, ev, seat, force, v);
    return apply_pass(g, ev, seat, force, v);
}

static int
chains_finished(const void *p)
{
    return ((const chains_t *)p)->ended;
}

/* The table's span as a grid (row-major, NOCARD = empty); caller frees. */
static arb_chains_card_t *
table_grid(const chains_t *g, int *rows, int *cols)
{
    const arb_chains_table_t *t = &g->table;
    arb_chains_card_t        *cells;
    int                       r, c;

    *rows = t->n ? t->rmax - t->rmin + 1 : 0;
    *cols = t->n ? t->cmax - t->cmin + 1 : 0;
    cells = malloc((size_t)(*rows ? *rows * *cols : 1));
    if (cells == NULL)
        return NULL;
    for (r = 0; r < *rows; r++)
        for (c = 0; c < *cols; c++)
            cells[r * *cols + c] = arb_chains_table_get(t, t->rmin + r,
                                                        t->cmin + c);
    return cells;
}

static int
add_chain_record(const chains_t *g, arb_results_t *out,
                 const arb_chains_card_t *cells, int cols,
                 const arb_chains_chain_t *ch)
{
    char          cellv[ARB_CHAINS_SPAN][16], cardv[ARB_CHAINS_SPAN][8];
    char         *cp[ARB_CHAINS_SPAN], *kp[ARB_CHAINS_SPAN];
    arb_record_t *rec;
    uint64_t      seq = 0;
    int           k, gr, gc;
    arb_chains_card_t c;

    for (k = 0; k < ch->len; k++) {
        gr = ch->row + (ch->team == ARB_CHAINS_SHORT ? k : 0);
        gc = ch->col + (ch->team == ARB_CHAINS_LONG ? k : 0);
        c = cells[gr * cols + gc];
        arb_chains_cell_format(cellv[k], g->table.rmin + gr,
                               g->table.cmin + gc);
        arb_chains_card_format(cardv[k], c);
        cp[k] = cellv[k];
        kp[k] = cardv[k];
        if (g->table.seq_of[c] > seq)
            seq = g->table.seq_of[c];
    }
    rec = arb_results_add_record(out, seq);
    if (rec == NULL
        || arb_record_str(rec, "match_id", g->match_id)
        || arb_record_str(rec, "edition", EDITION)
        || arb_record_str(rec, "scoring", arb_chains_variant_name(g->variant))
        || arb_record_str(rec, "team", arb_chains_team_name(ch->team))
        || arb_record_str(rec, "direction", arb_chains_direction(ch->team))
        || arb_record_list(rec, "cells", cp, (size_t)ch->len)
        || arb_record_list(rec, "cards", kp, (size_t)ch->len)
        || arb_record_int(rec, "length", ch->len)
        || arb_record_int(rec, "points", ch->points))
        return ARB_ENOMEM;
    return 0;
}

static int
chains_results(const void *p, arb_results_t *out)
{
    const chains_t    *g = p;
    arb_chains_score_t sc;
    arb_chains_card_t *cells;
    int                rows, cols, i;
    size_t             k;

    memset(out, 0, sizeof(*out));
    memset(&sc, 0, sizeof(sc));
    cells = table_grid(g, &rows, &cols);
    if (cells == NULL || arb_chains_score(&sc, cells, rows, cols,
                                          g->variant) != 0)
        goto oom;
    for (k = 0; k < sc.n; k++)
        if (add_chain_record(g, out, cells, cols, &sc.chains[k]) != 0)
            goto oom;
    for (i = 0; i < 2; i++)
        if (arb_results_add_total(out, arb_chains_team_name(g->team_order[i]),
                                  sc.total[g->team_order[i]]) != 0)
            goto oom;
    arb_chains_score_clear(&sc);
    free(cells);
    return 0;

oom:
    arb_chains_score_clear(&sc);
    free(cells);
    arb_results_clear(out);
    return ARB_ENOMEM;
}

static void
chains_digest(const void *p, arb_digest_t *d)
{
    const chains_t *g = p;
    int             i;
    arb_chains_card_t c;

    arb_digest_u64(d, (uint64_t)g->deck);
    arb_digest_u64(d, (uint64_t)g->variant);
    arb_digest_u64(d, (uint64_t)g->nplayers);
    for (i = 0; i < g->nplayers; i++)
        arb_digest_u64(d, (uint64_t)g->team_of[i]);
    for (i = 0; i < 2; i++)
        arb_digest_u64(d, (uint64_t)g->team_order[i]);
    arb_digest_u64(d, (uint64_t)g->nhands);
    for (i = 0; i < g->nhands; i++)
        arb_digest_u64(d, g->hand[i]);
    arb_digest_u64(d, (uint64_t)g->turn);
    arb_digest_u64(d, (uint64_t)g->ended);
    arb_digest_u64(d, (uint64_t)g->table.n);
    for (i = 0; i < g->table.n; i++) {
        c = g->table.order[i];
        arb_digest_u64(d, c);
        arb_digest_i64(d, g->table.row_of[c]);
        arb_digest_i64(d, g->table.col_of[c]);
        arb_digest_u64(d, g->table.seq_of[c]);
    }
}

static json_t *
describe_hand(const chains_t *g, int h, int shown)
{
    json_t *o = json_object(), *cards = NULL;
    char    a[8];
    int     i, n = 0, bad = 0;

    if (shown)
        cards = json_array();
    for (i = 0; i < ARB_CHAINS_CARDS; i++)
        if (g->hand[h] >> i & 1) {
            n++;
            if (shown) {
                arb_chains_card_format(a, (arb_chains_card_t)i);
                bad |= arb_json_add(cards, json_string(a));
            }
        }
    bad |= arb_json_set(o, "player",
                        arb_json_string(g->players[g->hand_seat[h]]));
    bad |= arb_json_set(o, "team", json_string(arb_chains_team_name(
                            g->team_of[g->hand_seat[h]])));
    bad |= arb_json_set(o, "hand", json_integer(g->hand_no[h]));
    bad |= arb_json_set(o, "cards", json_integer(n));
    if (shown)
        bad |= arb_json_set(o, "hand_cards", cards);
    return bad ? (json_decref(o), NULL) : o;
}

static json_t *
chains_describe(const void *p, unsigned seen)
{
    const chains_t           *g = p;
    const arb_chains_table_t *t = &g->table;
    json_t                   *o = json_object(), *hands = json_array(),
                             *table = json_array(), *grid, *cell_o;
    arb_buf_t                 row = ARB_BUF_INIT;
    arb_chains_card_t         c;
    char                      a[8], cell[16], rect[32];
    int                       h, i, r, q, bad = 0;

    for (h = 0; h < g->nhands; h++)
        bad |= arb_json_add(hands, describe_hand(g, h,
                                                 (int)(seen >> g->hand_seat[h]
                                                       & 1)));
    for (i = 0; i < t->n; i++) {
        c = t->order[i];
        arb_chains_card_format(a, c);
        arb_chains_cell_format(cell, t->row_of[c], t->col_of[c]);
        cell_o = json_object();
        bad |= arb_json_set(cell_o, "seq",
                            json_integer((json_int_t)t->seq_of[c]));
        bad |= arb_json_set(cell_o, "card", json_string(a));
        bad |= arb_json_set(cell_o, "cell", json_string(cell));
        bad |= arb_json_add(table, cell_o);
    }
    snprintf(rect, sizeof(rect), "%d×%d", t->size, t->size);
    bad |= arb_json_set(o, "deck", json_integer(g->deck));
    bad |= arb_json_set(o, "scoring",
                        json_string(arb_chains_variant_name(g->variant)));
    bad |= arb_json_set(o, "rectangle", json_string(rect));
    bad |= arb_json_set(o, "turn", arb_json_string_or_null(
                            g->ended ? NULL
                                     : g->players[g->hand_seat[g->turn]]));
    bad |= arb_json_set(o, "turn_hand", g->ended ? json_null()
                                        : json_integer(g->hand_no[g->turn]));
    bad |= arb_json_set(o, "finished", json_boolean(g->ended));
    bad |= arb_json_set(o, "hands", hands);
    bad |= arb_json_set(o, "table", table);
    if (t->n > 0) {
        arb_chains_cell_format(cell, t->rmin, t->cmin);
        grid = json_array();
        for (r = t->rmin; r <= t->rmax; r++) {
            row.len = 0;
            for (q = t->cmin; q <= t->cmax; q++) {
                arb_chains_card_format(a, arb_chains_table_get(t, r, q));
                arb_buf_printf(&row, "%s%s", q > t->cmin ? " " : "", a);
            }
            bad |= arb_json_add(grid, arb_json_string(arb_buf_cstr(&row)));
        }
        bad |= arb_json_set(o, "top_left", json_string(cell));
        bad |= arb_json_set(o, "rows", json_integer(t->rmax - t->rmin + 1));
        bad |= arb_json_set(o, "cols", json_integer(t->cmax - t->cmin + 1));
        bad |= arb_json_set(o, "rows_fixed", json_boolean(
                                t->rmax - t->rmin + 1 >= t->size));
        bad |= arb_json_set(o, "cols_fixed", json_boolean(
                                t->cmax - t->cmin + 1 >= t->size));
        bad |= arb_json_set(o, "grid", grid);
    }
    arb_buf_free(&row);
    return bad ? (json_decref(o), NULL) : o;
}

static const char *const move_verbs[] = { "place", "pass", NULL };

/* A typed placement as the log spells it: the card with its suit symbol
 * (8s, 8♠ and 8П are one card), the cell as r<row>c<col> (R0C0, r-0c0
 * and r00c0 one cell); until 2026-12-06 recorded as typed. */
static const char *
chains_spell_arg(const char *verb, size_t i, const char *arg, char *out,
                 size_t n)
{
    arb_chains_card_t c;
    char              buf[24];
    int               row, col;

    if (strcmp(verb, "place") != 0)
        return arg;
    if (i == 0 && arb_chains_card_parse(&c, arg, strlen(arg), NULL, 0) == 0)
        arb_chains_card_format(buf, c);
    else if (i == 1 && arb_chains_cell_parse(&row, &col, arg) == 0)
        arb_chains_cell_format(buf, row, col);
    else
        return arg;
    snprintf(out, n, "%s", buf);
    return out;
}

/* A placement may be written as its card and cell ("8♠ r0c0", placed by
 * the hand on turn) or after its player ("ann 8♠ r0c0"), as YAHchain's
 * card; `pass` is always written out. */
static const arb_narration_t chains_narration = {
    .bare_verb = "place",
    .card_first = 1,    /* "carol 8S r0c0": carol is no card, a name */
    .spell_arg = chains_spell_arg,
};

const arb_rules_t arb_rules_chains = {
    .game = "chains",
    .verbs = move_verbs,
    .edition = EDITION,
    .create = chains_create,
    .destroy = chains_destroy,
    .clone = chains_clone,
    .apply = chains_apply,
    .finished = chains_finished,
    .results = chains_results,
    .digest = chains_digest,
    .describe = chains_describe,
    .narration = &chains_narration,
};
