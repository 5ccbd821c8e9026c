/*
 * tsukurutenten.c - Tsukurutenten (chip rummy) as a rule set: setup, the
 * deal of each round and the moves.
 *
 * DESIGN: every reading of the seed is recorded in
 * docs/rules/tsukurutenten.md; the ones that shape this file:
 *  - moves: `deal`, `draw`, `discard`, `take`, `finish`; a turn is draw
 *    then discard or finish, take then discard, or finish with the waiting
 *    discard; players act in seat order (clockwise) from the dealer;
 *  - the discard that may be taken is the last one on the table (the
 *    previous player's), and only during the very next turn;
 *  - round k's stock: the seed shuffled as `seed:k` (docs/DEAL.md), or the
 *    k-th block of 61 chips of the header's order, or a `deal` move by the
 *    dealer; the dealer takes the first 7 chips, then each player in turn
 *    order the next 7; draws come from position 7n on;
 *  - a round whose stock runs out: the next player may finish with the
 *    discard after the last chip was drawn, or pass, which ends the round
 *    without a winner (edition 3; editions 1-2 ended it at that discard);
 *  - apply judges everything before it changes anything, so a refused move
 *    leaves the state as it was; the one illegal move an arbiter can make
 *    stand is a finish whose declared arrangement is not worth 10.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/rules/reading.h"
#include "core/rules/tsuku_game.h"
#include "core/shuffle.h"

/* Editions, newest first.  3: the last discard of a round whose stock ran
 * out may still finish a hand ("Finish from discard" has no condition on
 * the stock), else the next player passes and the round ends without a
 * winner; 2 ended the round at that discard.  2: the extended game runs to
 * 25 unless the match chooses `end: dealt-twice` (the text says the game
 * "can" also end so); 1 ended it after every player had dealt twice. */
#define EDITION   "Tsukurutenten-ru-3"
#define EDITION_2 "Tsukurutenten-ru-2"
#define EDITION_1 "Tsukurutenten-ru-1"

static void
tsuku_destroy(void *st)
{
    arb__tsuku_t *t = st;
    int           i;

    if (t == NULL)
        return;
    for (i = 0; i < TSUKU_PLAYERS_MAX; i++)
        free(t->p[i].name);
    free(t->match_id);
    free(t->seed);
    free(t->orders);
    free(t->recs);
    free(t);
}

static int
tsuku_clone(void **out, const void *st)
{
    const arb__tsuku_t *t = st;
    arb__tsuku_t       *c = arb_rules_memdup(t, sizeof(*t));
    int                 i, bad = 0;

    *out = NULL;
    if (c == NULL)
        return ARB_ENOMEM;
    for (i = 0; i < TSUKU_PLAYERS_MAX; i++)
        if (t->p[i].name != NULL)
            bad |= (c->p[i].name = strdup(t->p[i].name)) == NULL;
    c->match_id = t->match_id ? strdup(t->match_id) : NULL;
    c->seed = t->seed ? strdup(t->seed) : NULL;
    c->orders = t->orders == NULL ? NULL
                : arb_rules_memdup(t->orders, (size_t)t->norders
                                   * ARB_TSUKU_CHIPS * sizeof(int));
    c->recs = arb_rules_memdup(t->recs, t->nrecs * sizeof(*t->recs));
    c->caprecs = t->nrecs;
    if (bad || (t->match_id && c->match_id == NULL)
        || (t->seed && c->seed == NULL) || (t->orders && c->orders == NULL)
        || c->recs == NULL) {
        tsuku_destroy(c);
        return ARB_ENOMEM;
    }
    *out = c;
    return 0;
}

/* Checks that kinds[0..61) is the chip set in some order. */
static int
check_order(const int *kinds, const char *what, arb_verdict_t *v, int code)
{
    int  n[ARB_TSUKU_KINDS], k, i;
    char name[8];

    memset(n, 0, sizeof(n));
    for (i = 0; i < ARB_TSUKU_CHIPS; i++)
        n[kinds[i]]++;
    for (k = 0; k < ARB_TSUKU_KINDS; k++)
        if (n[k] != arb_tsuku_kind_copies(k)) {
            arb_tsuku_chip_format(name, arb_tsuku_chip_of(k));
            return arb_verdict(v, code, "Deal",
                               "%s holds %d × %s, but the chip set has %d: "
                               "an order lists each of the 61 chips once",
                               what, n[k], name, arb_tsuku_kind_copies(k));
        }
    return 0;
}

/* Reads chip words into a malloc'd kinds array. */
static int
read_chips(int **out, size_t *n, char *const *words, size_t nwords,
           const char *what, arb_verdict_t *v, int code)
{
    size_t i, max = 0;
    int   *kinds;
    char   err[160];

    *out = NULL;
    *n = 0;
    for (i = 0; i < nwords; i++)
        max += strlen(words[i]) / 2 + 1;
    kinds = malloc((max ? max : 1) * sizeof(int));
    if (kinds == NULL)
        return ARB_ENOMEM;
    for (i = 0; i < nwords; i++)
        if (arb_tsuku_chips_parse(kinds, max, n, words[i], err,
                                  sizeof(err)) != 0) {
            free(kinds);
            return arb_verdict(v, code, "Deal", "%s: %s", what, err);
        }
    *out = kinds;
    return 0;
}

static int
parse_header_order(arb__tsuku_t *t, const arb_deal_t *d, arb_verdict_t *v)
{
    size_t n;
    int    rc, r;
    char   what[48];

    rc = read_chips(&t->orders, &n, d->cards, d->ncards, "deal order", v,
                    ARB_EINVAL);
    if (rc != 0)
        return rc;
    if (n == 0 || n % ARB_TSUKU_CHIPS != 0)
        return arb_verdict(v, ARB_EINVAL, "Deal",
                           "the deal order holds %zu chips: it must be one "
                           "order of all 61 chips per round (61, 122, ...)",
                           n);
    t->norders = (int)(n / ARB_TSUKU_CHIPS);
    for (r = 0; r < t->norders; r++) {
        snprintf(what, sizeof(what), "the deal order of round %d", r + 1);
        rc = check_order(t->orders + r * ARB_TSUKU_CHIPS, what, v,
                         ARB_EINVAL);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* The stock of `round` when the setup fixes it: 1 (stock filled), 0 (a
 * deal move must give it) or ARB_EINVAL. */
static int
round_order(const arb__tsuku_t *t, int round, int stock[ARB_TSUKU_CHIPS])
{
    int      deck[ARB_TSUKU_CHIPS], i;
    unsigned perm[ARB_TSUKU_CHIPS];
    char    *key;
    size_t   len;

    if (t->seed != NULL) {
        /* Round k shuffles "<seed>:<k>", so one revealed seed rebuilds
         * every round and no two rounds share an order. */
        len = strlen(t->seed) + 16;
        key = malloc(len);
        if (key == NULL)
            return ARB_ENOMEM;
        len = (size_t)snprintf(key, len, "%s:%d", t->seed, round);
        i = arb_shuffle(perm, ARB_TSUKU_CHIPS, key, len);
        free(key);
        if (i != 0)
            return i;
        arb_tsuku_deck(deck);
        for (i = 0; i < ARB_TSUKU_CHIPS; i++)
            stock[i] = deck[perm[i]];
        return 1;
    }
    if (round <= t->norders) {
        memcpy(stock, t->orders + (round - 1) * ARB_TSUKU_CHIPS,
               ARB_TSUKU_CHIPS * sizeof(int));
        return 1;
    }
    return 0;
}

/* Deals the round from stock[]: the dealer's 7 first, then clockwise. */
static void
deal_round(arb__tsuku_t *t, const int stock[ARB_TSUKU_CHIPS])
{
    int i, j, seat;

    memcpy(t->stock, stock, sizeof(t->stock));
    for (i = 0; i < t->nplayers; i++) {
        seat = (t->dealer + i) % t->nplayers;
        for (j = 0; j < ARB_TSUKU_DEALT; j++)
            t->p[seat].hand[t->stock[i * ARB_TSUKU_DEALT + j]]++;
    }
    t->top = t->nplayers * ARB_TSUKU_DEALT;
    t->turn = t->dealer;
    t->phase = TSUKU_PH_ACTION;
}

/* Starts round `round`; its order, when known, was fetched by the caller
 * (known = 1) so that nothing can fail half-way. */
static void
begin_round(arb__tsuku_t *t, int round, int known,
            const int stock[ARB_TSUKU_CHIPS])
{
    int i;

    t->round = round;
    t->dealer = (t->first_dealer + round - 1) % t->nplayers;
    t->live = -1;
    t->live_by = -1;
    for (i = 0; i < t->nplayers; i++) {
        memset(t->p[i].hand, 0, sizeof(t->p[i].hand));
        t->p[i].nopen = 0;
        t->p[i].ndiscards = 0;
        t->p[i].turns = 0;
    }
    if (known) {
        deal_round(t, stock);
    } else {
        memset(t->stock, 0, sizeof(t->stock));
        t->top = 0;
        t->turn = t->dealer;
        t->phase = TSUKU_PH_DEAL;
    }
}

static int
tsuku_create(void **out, const arb_setup_t *s, arb_verdict_t *v)
{
    static const char *const editions[] = { EDITION, EDITION_2, EDITION_1 };
    static const char *const end_values[] = { "goal", "dealt-twice" };
    static const char *const heaven_values[] = { "any", "dealer" };
    static const char *const excl_values[] = { "double-three", "literal" };
    arb__tsuku_t *t;
    const char   *o;
    int           stock[ARB_TSUKU_CHIPS], known, rc, ed, dflt;
    size_t        i, j;

    *out = NULL;
    if ((ed = arb_rules_edition(s, editions, 3, v)) < 0)
        return ed;
    ed = 3 - ed;                /* 3, 2 or 1 */
    for (i = 0; i < s->noptions; i++)
        if (strcmp(s->options[i].key, "scoring") != 0
            && strcmp(s->options[i].key, "dealer") != 0
            && strcmp(s->options[i].key, "end") != 0
            && strcmp(s->options[i].key, "heaven") != 0
            && strcmp(s->options[i].key, "exclusion") != 0)
            return arb_verdict(v, ARB_EINVAL, "setup",
                               "unknown option '%s' for tsukurutenten "
                               "(options: scoring, dealer, end, heaven, "
                               "exclusion)", s->options[i].key);
    if (s->nplayers < TSUKU_PLAYERS_MIN || s->nplayers > TSUKU_PLAYERS_MAX)
        return arb_verdict(v, ARB_EINVAL, "Players",
                           "tsukurutenten is played by 2 to 4 players, got "
                           "%zu", s->nplayers);
    if (s->nteams > 0)
        return arb_verdict(v, ARB_EINVAL, "Players",
                           "tsukurutenten has no teams: each player scores "
                           "alone");
    if (s->deal.kind == ARB_DEAL_COMMIT)
        return arb_verdict(v, ARB_EINVAL, "Deal",
                           "a committed deal cannot be judged until its "
                           "seed is revealed: open the match with the seed "
                           "or an order");

    t = calloc(1, sizeof(*t));
    if (t == NULL)
        return ARB_ENOMEM;
    t->nplayers = (int)s->nplayers;
    t->last_discard = ed >= 3;
    o = arb_setup_option(s, "scoring");
    if (o == NULL || strcmp(o, "simple") == 0)
        t->extended = 0;
    else if (strcmp(o, "extended") == 0)
        t->extended = 1;
    else {
        rc = arb_verdict(v, ARB_EINVAL, "Scoring",
                         "scoring '%s' does not exist: choose simple (1 "
                         "point a win, game to 4) or extended (hand "
                         "bonuses, game to 25)", o);
        goto fail;
    }
    /* Edition 1 ended an extended game after everyone had dealt twice;
     * its records read so without the option. */
    dflt = ed == 1 && t->extended;
    if ((rc = arb_rules_choice(s, "end", end_values, 2, dflt, &t->end_deals,
                               v)) != 0
        || (rc = arb_rules_choice(s, "heaven", heaven_values, 2, 0,
                                  &t->heaven_dealer, v)) != 0
        || (rc = arb_rules_choice(s, "exclusion", excl_values, 2, 0,
                                  &t->excl_literal, v)) != 0)
        goto fail;
    if (t->end_deals && !t->extended) {
        rc = arb_verdict(v, ARB_EINVAL, "Scoring", "end 'dealt-twice' "
                         "belongs to extended scoring (\"with the extended "
                         "system the game can also end when every player "
                         "has dealt 2 rounds\"): add 'scoring: extended'");
        goto fail;
    }
    t->nondefault = (t->end_deals != dflt) | (unsigned)t->heaven_dealer << 1
                    | (unsigned)t->excl_literal << 2;
    for (i = 0; i < s->nplayers; i++) {
        for (j = 0; j < i; j++)
            if (strcmp(s->players[i].name, s->players[j].name) == 0) {
                rc = arb_verdict(v, ARB_EINVAL, "Players",
                                 "player '%s' is seated twice",
                                 s->players[i].name);
                goto fail;
            }
        t->p[i].name = strdup(s->players[i].name);
        if (t->p[i].name == NULL)
            goto oom;
    }
    o = arb_setup_option(s, "dealer");
    if (o != NULL) {
        t->first_dealer = arb_setup_seat(s, o);
        if (t->first_dealer < 0) {
            rc = arb_verdict(v, ARB_EINVAL, "Dealer",
                             "the first dealer '%s' is not a player of "
                             "this match", o);
            goto fail;
        }
    }
    t->match_id = strdup(s->match_id ? s->match_id : "");
    if (t->match_id == NULL)
        goto oom;
    if (s->deal.kind == ARB_DEAL_SEED) {
        t->seed = strdup(s->deal.seed ? s->deal.seed : "");
        if (t->seed == NULL)
            goto oom;
    } else if (s->deal.kind == ARB_DEAL_ORDER
               && (rc = parse_header_order(t, &s->deal, v)) != 0) {
        goto fail;
    }
    known = round_order(t, 1, stock);
    if (known < 0) {
        rc = known;
        goto fail;
    }
    begin_round(t, 1, known, stock);
    *out = t;
    return 0;

oom:
    rc = ARB_ENOMEM;
fail:
    tsuku_destroy(t);
    return rc;
}

static const char *
name_of(const arb__tsuku_t *t, int seat)
{
    return t->p[seat].name;
}

static int
hand_size(const tsuku_player_t *p)
{
    int k, n = 0;

    for (k = 0; k < ARB_TSUKU_KINDS; k++)
        n += p->hand[k];
    return n;
}

/* Room for one more record, so the end of a round cannot fail midway. */
static int
reserve_record(arb__tsuku_t *t)
{
    tsuku_rec_t *r;
    size_t       cap;

    if (t->nrecs < t->caprecs)
        return 0;
    cap = t->caprecs ? t->caprecs * 2 : 8;
    r = realloc(t->recs, cap * sizeof(*r));
    if (r == NULL)
        return ARB_ENOMEM;
    t->recs = r;
    t->caprecs = cap;
    return 0;
}

/* Everything the end of a round may need that can fail: the record slot
 * and the next round's order. */
typedef struct next_round {
    int ends;               /* TSUKU_END_* */
    int known;
    int stock[ARB_TSUKU_CHIPS];
} next_round_t;

static int
prepare_end(arb__tsuku_t *t, int winner, int points, next_round_t *nx)
{
    int i, goal = t->extended ? TSUKU_EXT_GOAL : TSUKU_SIMPLE_GOAL;

    if (reserve_record(t) != 0)
        return ARB_ENOMEM;
    nx->ends = TSUKU_END_NONE;
    nx->known = 0;
    for (i = 0; i < t->nplayers; i++)
        if (t->p[i].points + (i == winner ? points : 0) >= goal)
            nx->ends = TSUKU_END_GOAL;
    if (nx->ends == TSUKU_END_NONE && t->end_deals
        && t->round >= TSUKU_DEALS_EACH * t->nplayers)
        nx->ends = TSUKU_END_DEALS;
    if (nx->ends == TSUKU_END_NONE) {
        nx->known = round_order(t, t->round + 1, nx->stock);
        if (nx->known < 0)
            return nx->known;
    }
    return 0;
}

/* Closes the round with record r (its slot was reserved). */
static void
end_round(arb__tsuku_t *t, tsuku_rec_t *r, const next_round_t *nx)
{
    int     i;
    int64_t best;

    if (r->result == TSUKU_WIN)
        t->p[r->winner].points += r->score.points;
    for (i = 0; i < t->nplayers; i++)
        r->totals[i] = t->p[i].points;
    t->recs[t->nrecs++] = *r;
    if (nx->ends == TSUKU_END_NONE) {
        begin_round(t, t->round + 1, nx->known, nx->stock);
        return;
    }
    t->ended = nx->ends;
    t->end_seq = r->seq;
    t->phase = TSUKU_PH_OVER;
    t->live = -1;
    best = t->p[0].points;
    for (i = 1; i < t->nplayers; i++)
        if (t->p[i].points > best)
            best = t->p[i].points;
    for (i = 0; i < t->nplayers; i++)
        if (t->p[i].points == best)
            t->winners |= 1u << i;
}

/* Closes the round at event seq without a winner: its stock ran out. */
static void
end_exhausted(arb__tsuku_t *t, uint64_t seq, const next_round_t *nx)
{
    tsuku_rec_t r;

    memset(&r, 0, sizeof(r));
    r.seq = seq;
    r.round = t->round;
    r.dealer = t->dealer;
    r.result = TSUKU_EXHAUSTED;
    r.winner = r.discarder = -1;
    end_round(t, &r, nx);
}

static int
not_dealt(const arb__tsuku_t *t, arb_verdict_t *v)
{
    return arb_verdict(v, ARB_EILLEGAL, "Deal",
                       "round %d is not dealt yet: %s, the dealer, records "
                       "the order first with 'deal %s <61 chips>'", t->round,
                       name_of(t, t->dealer), name_of(t, t->dealer));
}

/* 1 when the stock ran out and the last discard waits for the next
 * player: a finish with it, or a pass (edition 3). */
static int
stock_out(const arb__tsuku_t *t)
{
    return t->last_discard && t->top >= ARB_TSUKU_CHIPS
           && t->phase == TSUKU_PH_ACTION && t->live >= 0;
}

static int
stock_out_verdict(const arb__tsuku_t *t, int seat, const char *rule,
                  arb_verdict_t *v)
{
    char live[8];

    arb_tsuku_chip_format(live, arb_tsuku_chip_of(t->live));
    return arb_verdict(v, ARB_EILLEGAL, rule, "the stock is empty: %s may "
                       "finish with %s's last discard %s, or pass (the "
                       "round then ends without a winner)", name_of(t, seat),
                       name_of(t, t->live_by), live);
}

static int
move_deal(arb__tsuku_t *t, int seat, const arb_event_t *ev, arb_verdict_t *v)
{
    int   *kinds = NULL;
    size_t n;
    int    rc;

    if (t->phase != TSUKU_PH_DEAL)
        return arb_verdict(v, ARB_EILLEGAL, "Deal",
                           "round %d is already dealt (%s)", t->round,
                           t->seed ? "from the seed"
                           : t->round <= t->norders ? "by the header's order"
                           : "by an earlier deal move");
    if (seat != t->dealer)
        return arb_verdict(v, ARB_EILLEGAL, "Deal",
                           "%s deals round %d, not %s", name_of(t, t->dealer),
                           t->round, name_of(t, seat));
    rc = read_chips(&kinds, &n, ev->args, ev->nargs, "deal", v, ARB_EINVAL);
    if (rc != 0)
        return rc;
    if (n != ARB_TSUKU_CHIPS) {
        free(kinds);
        return arb_verdict(v, ARB_EINVAL, "Deal",
                           "deal: %zu chips given, the order of a round "
                           "lists all 61", n);
    }
    rc = check_order(kinds, "the deal", v, ARB_EILLEGAL);
    if (rc == 0)
        deal_round(t, kinds);
    free(kinds);
    return rc;
}

static int
move_draw(arb__tsuku_t *t, int seat, const arb_event_t *ev, arb_verdict_t *v)
{
    arb_tsuku_chip_t c;
    char             err[160];

    if (t->phase == TSUKU_PH_DRAWN)
        return arb_verdict(v, ARB_EILLEGAL, "Draw",
                           "%s has already drawn this turn: discard a "
                           "chip or finish", name_of(t, seat));
    if (t->phase == TSUKU_PH_TAKEN)
        return arb_verdict(v, ARB_EILLEGAL, "Draw",
                           "%s took %s's discard this turn and must "
                           "now discard", name_of(t, seat),
                           name_of(t, (seat + t->nplayers - 1) % t->nplayers));
    if (ev->nargs > 1)
        return arb_verdict(v, ARB_EINVAL, "move",
                           "draw names at most the chip drawn, got %zu "
                           "arguments", ev->nargs);
    if (stock_out(t))
        return stock_out_verdict(t, seat, "Draw", v);
    if (t->top >= ARB_TSUKU_CHIPS)     /* unreachable: the round ends */
        return arb_verdict(v, ARB_EILLEGAL, "Draw", "the stock is "
                           "empty");
    if (ev->nargs == 1) {
        if (arb_tsuku_chip_parse(&c, ev->args[0], strlen(ev->args[0]), 0,
                                 err, sizeof(err)) != 0)
            return arb_verdict(v, ARB_EINVAL, "Chips", "Draw: %s", err);
        /* The message does not say which chip is on top: the stock is
         * hidden. */
        if (c.kind != t->stock[t->top])
            return arb_verdict(v, ARB_EILLEGAL, "Draw",
                               "%s is not the next chip of the stock",
                               ev->args[0]);
    }
    t->p[seat].hand[t->stock[t->top++]]++;
    t->phase = TSUKU_PH_DRAWN;
    return 0;
}

static int
move_discard(arb__tsuku_t *t, int seat, const arb_event_t *ev,
             arb_verdict_t *v)
{
    arb_tsuku_chip_t c;
    tsuku_player_t  *p = &t->p[seat];
    next_round_t     nx;
    char             err[160], name[8];
    int              rc;

    if (stock_out(t))
        return stock_out_verdict(t, seat, "Discard", v);
    if (t->phase == TSUKU_PH_ACTION)
        return arb_verdict(v, ARB_EILLEGAL, "Discard",
                           "%s must first draw, take or finish: a "
                           "discard ends a turn", name_of(t, seat));
    if (ev->nargs != 1)
        return arb_verdict(v, ARB_EINVAL, "move",
                           "discard names one chip, got %zu arguments",
                           ev->nargs);
    if (arb_tsuku_chip_parse(&c, ev->args[0], strlen(ev->args[0]), 0, err,
                             sizeof(err)) != 0)
        return arb_verdict(v, ARB_EINVAL, "Chips", "Discard: %s", err);
    arb_tsuku_chip_format(name, c);
    if (p->hand[c.kind] == 0)
        return arb_verdict(v, ARB_EILLEGAL, "Discard",
                           "%s holds no %s", name_of(t, seat), name);
    memset(&nx, 0, sizeof(nx));
    if (t->top >= ARB_TSUKU_CHIPS && !t->last_discard
        && (rc = prepare_end(t, -1, 0, &nx)) != 0)
        return rc;

    p->hand[c.kind]--;
    p->discards[p->ndiscards++] = c.kind;
    p->turns++;
    t->live = c.kind;
    t->live_by = seat;
    t->turn = (seat + 1) % t->nplayers;
    t->phase = TSUKU_PH_ACTION;
    if (t->top >= ARB_TSUKU_CHIPS && !t->last_discard) {
        /* The stock ran out: the round ends without a winner (editions
         * 1-2; from edition 3 the next player may still finish with this
         * discard, or passes: move_pass). */
        end_exhausted(t, ev->seq, &nx);
    }
    return 0;
}

/* `pass <player>`: the stock is empty and the player does not finish with
 * the last discard: the round ends without a winner. */
static int
move_pass(arb__tsuku_t *t, int seat, const arb_event_t *ev, arb_verdict_t *v)
{
    next_round_t nx;
    int          rc;

    /* Said as the turn stands: one who has drawn the last chip is told
     * to discard or finish, not that the stock is not empty (until
     * 2026-12-06 every refusal said so). */
    if (t->phase == TSUKU_PH_DRAWN)
        return arb_verdict(v, ARB_EILLEGAL, "Pass", "%s has drawn this "
                           "turn: discard a chip or finish (a pass ends a "
                           "round only when the stock is empty and the "
                           "last discard waits)", name_of(t, seat));
    if (t->phase == TSUKU_PH_TAKEN)
        return arb_verdict(v, ARB_EILLEGAL, "Pass", "%s took %s's discard "
                           "this turn and must now discard",
                           name_of(t, seat),
                           name_of(t, (seat + t->nplayers - 1)
                                      % t->nplayers));
    if (!stock_out(t))
        return arb_verdict(v, ARB_EILLEGAL, "Pass", "%s may pass only when "
                           "the stock is empty and the last discard waits "
                           "(%d chips in the stock: a turn is draw, take or "
                           "finish)", name_of(t, seat),
                           ARB_TSUKU_CHIPS - t->top);
    if (ev->nargs != 0)
        return arb_verdict(v, ARB_EINVAL, "move", "pass takes no argument, "
                           "got %zu", ev->nargs);
    memset(&nx, 0, sizeof(nx));
    if ((rc = prepare_end(t, -1, 0, &nx)) != 0)
        return rc;
    end_exhausted(t, ev->seq, &nx);
    return 0;
}

/* The discard waiting to be taken, or a verdict naming why there is none. */
static int
need_live(const arb__tsuku_t *t, int seat, const char *action,
          arb_verdict_t *v)
{
    if (t->live >= 0)
        return 0;
    return arb_verdict(v, ARB_EILLEGAL, action,
                       "no chip has been discarded this round yet: %s "
                       "must draw", name_of(t, seat));
}

static int
move_take(arb__tsuku_t *t, int seat, const arb_event_t *ev, arb_verdict_t *v)
{
    arb_tsuku_chip_t c[3];
    arb_tsuku_set_t  set;
    tsuku_player_t  *p = &t->p[seat];
    char             err[200], live[8], name[8];
    int              i, n = (int)ev->nargs, at = -1, rc, need[ARB_TSUKU_KINDS];

    if (t->phase != TSUKU_PH_ACTION)
        return arb_verdict(v, ARB_EILLEGAL, "Take",
                           "%s has already %s this turn: a turn is one "
                           "action", name_of(t, seat),
                           t->phase == TSUKU_PH_DRAWN ? "drawn" : "taken");
    if ((rc = need_live(t, seat, "Take", v)) != 0)
        return rc;
    /* a take is followed by a discard, and no draw could follow that */
    if (stock_out(t))
        return stock_out_verdict(t, seat, "Take", v);
    if (n != 2 && n != 3)
        return arb_verdict(v, ARB_EINVAL, "move",
                           "take names the set: the two chips from the hand, "
                           "optionally with the discard, e.g. 'take ann B4 "
                           "B6' or 'take ann B5 B4 B6'; got %d arguments", n);
    for (i = 0; i < n; i++)
        if (arb_tsuku_chip_parse(&c[i], ev->args[i], strlen(ev->args[i]), 1,
                                 err, sizeof(err)) != 0)
            return arb_verdict(v, ARB_EINVAL, "Chips", "Take: %s", err);
    arb_tsuku_chip_format(live, arb_tsuku_chip_of(t->live));
    if (n == 3) {
        for (i = 0; i < 3 && at < 0; i++)
            if (c[i].kind == t->live)
                at = i;
        if (at < 0)
            return arb_verdict(v, ARB_EILLEGAL, "Take",
                               "%s's last discard is %s, which %s %s "
                               "%s does not contain", name_of(t, t->live_by),
                               live, ev->args[0], ev->args[1], ev->args[2]);
        if (at != 0) {
            arb_tsuku_chip_t x = c[0];
            c[0] = c[at];
            c[at] = x;
        }
    } else {
        c[2] = c[1];
        c[1] = c[0];
        c[0] = arb_tsuku_chip_of(t->live);
    }
    memset(need, 0, sizeof(need));
    need[c[1].kind]++;
    need[c[2].kind]++;
    for (i = 1; i < 3; i++)
        if (p->hand[c[i].kind] < need[c[i].kind]) {
            arb_tsuku_chip_format(name, arb_tsuku_chip_of(c[i].kind));
            return arb_verdict(v, ARB_EILLEGAL, "Take",
                               need[c[i].kind] == 2 && p->hand[c[i].kind]
                               ? "%s holds only one %s"
                               : "%s holds no %s", name_of(t, seat),
                               name);
        }
    if (arb_tsuku_set_make(&set, c, err, sizeof(err)) != 0)
        return arb_verdict(v, ARB_EILLEGAL, "Sets", "Take: %s", err);

    p->hand[c[1].kind]--;
    p->hand[c[2].kind]--;
    p->open[p->nopen++] = set;
    t->p[t->live_by].ndiscards--;
    t->live = -1;
    t->phase = TSUKU_PH_TAKEN;
    return 0;
}

/* "B1 B2 ... (open B4+B5+B6)" for messages; out holds 96 bytes. */
static void
hand_text(char *out, size_t len, const tsuku_player_t *p,
          const int counts[ARB_TSUKU_KINDS])
{
    arb_buf_t b = ARB_BUF_INIT;
    int       k, j;
    char      name[ARB_TSUKU_SET_TEXT];

    for (k = 0; k < ARB_TSUKU_KINDS; k++)
        for (j = 0; j < counts[k]; j++) {
            arb_tsuku_chip_format(name, arb_tsuku_chip_of(k));
            arb_buf_printf(&b, "%s%s", b.len ? " " : "", name);
        }
    for (j = 0; j < p->nopen; j++) {
        arb_tsuku_set_format(name, &p->open[j]);
        arb_buf_printf(&b, "%s%s%s", j ? " " : " (open ", name,
                       j == p->nopen - 1 ? ")" : "");
    }
    snprintf(out, len, "%s", b.oom || b.data == NULL ? ""
                                                    : arb_buf_cstr(&b));
    arb_buf_free(&b);
}

static int
move_finish(arb__tsuku_t *t, int seat, const arb_event_t *ev, int flags,
            arb_verdict_t *v)
{
    tsuku_player_t  *p = &t->p[seat];
    int              counts[ARB_TSUKU_KINDS], from, rc, forced = 0;
    arb_tsuku_arr_t *all = NULL;
    arb_tsuku_ctx_t  ctx;
    tsuku_rec_t      r;
    next_round_t     nx;
    size_t           nall = 0, best;
    char             why[200], text[96];

    if (t->phase == TSUKU_PH_TAKEN)
        return arb_verdict(v, ARB_EILLEGAL, "Finish",
                           "%s took a discard into an open set this "
                           "turn and must discard: a hand is finished after "
                           "a draw or with a discard", name_of(t, seat));
    from = t->phase == TSUKU_PH_DRAWN ? TSUKU_FROM_STOCK : TSUKU_FROM_DISCARD;
    if (from == TSUKU_FROM_DISCARD && (rc = need_live(t, seat, "Finish", v)))
        return rc;
    memcpy(counts, p->hand, sizeof(counts));
    if (from == TSUKU_FROM_DISCARD)
        counts[t->live]++;
    if (hand_size(p) + (from == TSUKU_FROM_DISCARD) + 3 * p->nopen
        != ARB_TSUKU_FULL)                      /* unreachable */
        return arb_verdict(v, ARB_EILLEGAL, "Finish",
                           "%s's hand does not hold 8 chips",
                           name_of(t, seat));

    memset(&r, 0, sizeof(r));
    rc = arb_tsuku_arr_search(&all, &nall, p->open, p->nopen, counts,
                              ARB_TSUKU_TARGET);
    if (rc != 0)
        return rc;
    ctx.extended = t->extended;
    ctx.dealer = seat == t->dealer;
    ctx.heaven = from == TSUKU_FROM_STOCK && p->turns == 0
                 && (!t->heaven_dealer || seat == t->dealer);
    ctx.excl_literal = t->excl_literal;
    if (ev->nargs == 0) {
        if (nall == 0) {
            hand_text(text, sizeof(text), p, counts);
            rc = arb_verdict(v, ARB_EILLEGAL, "Finish",
                             "no arrangement of %s's hand %s is "
                             "worth exactly 10", name_of(t, seat), text);
            goto done;
        }
        best = arb_tsuku_best(all, nall, &ctx, &r.score);
        r.arr = all[best];
    } else {
        rc = arb_tsuku_arr_parse(&r.arr, p->open, p->nopen, counts,
                                 ev->args, ev->nargs, why, sizeof(why));
        if (rc != 0) {
            /* a bad chip is named with the move it broke; a hand that
             * lacks a chip breaks Finish itself, named once */
            rc = rc == ARB_EINVAL
                 ? arb_verdict(v, rc, "Chips", "Finish: %s", why)
                 : arb_verdict(v, rc, "Finish", "%s", why);
            goto done;
        }
        if (r.arr.value != ARB_TSUKU_TARGET) {
            rc = arb_verdict(v, ARB_EILLEGAL, "Finish",
                             "%s's arrangement %s is worth %d, not "
                             "10%s", name_of(t, seat), r.arr.text,
                             r.arr.value, nall ? "" : " (and no arrangement "
                             "of this hand is)");
            if (!(flags & ARB_APPLY_FORCE))
                goto done;
            forced = 1;
        }
        r.declared = 1;
        arb_tsuku_score(&r.score, &r.arr, &ctx);
    }
    rc = prepare_end(t, seat, r.score.points, &nx);
    if (rc != 0)
        goto done;

    r.seq = ev->seq;
    r.round = t->round;
    r.dealer = t->dealer;
    r.result = TSUKU_WIN;
    r.winner = seat;
    r.from = from;
    r.discarder = from == TSUKU_FROM_DISCARD ? t->live_by : -1;
    r.narr = (int)nall;
    if (from == TSUKU_FROM_DISCARD)
        t->p[t->live_by].ndiscards--;
    end_round(t, &r, &nx);
    rc = 0;
    if (!forced)
        v->code = 0;
done:
    free(all);
    return rc;
}

static int
tsuku_apply(void *st, const arb_event_t *ev, int flags, arb_verdict_t *v)
{
    static const char *const verbs[] = { "deal", "draw", "discard", "take",
                                         "finish", "pass" };
    arb__tsuku_t *t = st;
    int           seat = -1, i, verb = -1;
    char          end[200];

    v->code = 0;
    if (t->ended) {
        arb__tsuku_end_text(t, end, sizeof(end));
        return arb_verdict(v, ARB_EOVER, "End", "the game is over: %s", end);
    }
    for (i = 0; ev->verb != NULL && i < 6; i++)
        if (strcmp(ev->verb, verbs[i]) == 0)
            verb = i;
    if (verb == 5 && !t->last_discard)
        verb = -1;              /* editions 1-2 had no pass */
    if (verb < 0)
        return arb_verdict(v, ARB_EINVAL, "move",
                           "tsukurutenten has no move '%s': the moves are "
                           "deal, draw, discard, take%s",
                           ev->verb ? ev->verb : "",
                           t->last_discard ? ", finish and pass"
                                           : " and finish");
    for (i = 0; ev->player != NULL && i < t->nplayers; i++)
        if (strcmp(t->p[i].name, ev->player) == 0)
            seat = i;
    if (seat < 0)
        return arb_verdict(v, ARB_EINVAL, "move",
                           "player '%s' is not seated in this match",
                           ev->player ? ev->player : "");
    if (verb == 0)
        return move_deal(t, seat, ev, v);
    if (t->phase == TSUKU_PH_DEAL)
        return not_dealt(t, v);
    if (seat != t->turn)
        return arb_verdict(v, ARB_EILLEGAL, "Turns",
                           "it is %s's turn, not %s's: players act in seat "
                           "order from the dealer", name_of(t, t->turn),
                           name_of(t, seat));
    switch (verb) {
    case 1:  return move_draw(t, seat, ev, v);
    case 2:  return move_discard(t, seat, ev, v);
    case 3:  return move_take(t, seat, ev, v);
    case 5:  return move_pass(t, seat, ev, v);
    }
    return move_finish(t, seat, ev, flags, v);
}

static int
tsuku_finished(const void *st)
{
    return ((const arb__tsuku_t *)st)->ended != TSUKU_END_NONE;
}

/* What of a move the table does not see: a `deal` lists the round's
 * stock order, which nobody sees until the close; the chip a `draw` names
 * is seen by its drawer only.  Everything else is shown at the table (a
 * take lays its set open, a finish shows the hand). */
static size_t
tsuku_conceal(const arb_setup_t *setup, const arb_event_t *ev, int *owner)
{
    *owner = -1;
    if (ev->verb == NULL)
        return ev->nargs;
    if (strcmp(ev->verb, "deal") == 0)
        return 0;
    if (strcmp(ev->verb, "draw") == 0) {
        if (ev->player != NULL)
            *owner = arb_setup_seat(setup, ev->player);
        return 0;
    }
    return ev->nargs;
}

extern const arb_narration_t arb__tsuku_narration;    /* tsuku_narrate.c */

static const char *const move_verbs[] = { "deal", "draw", "discard", "take",
                               "finish", "pass", NULL };

const arb_rules_t arb_rules_tsukurutenten = {
    .game = "tsukurutenten",
    .narration = &arb__tsuku_narration,
    .verbs = move_verbs,
    .edition = EDITION,
    .create = tsuku_create,
    .destroy = tsuku_destroy,
    .clone = tsuku_clone,
    .apply = tsuku_apply,
    .finished = tsuku_finished,
    .results = arb__tsuku_results,
    .digest = arb__tsuku_digest,
    .describe = arb__tsuku_describe,
    .conceal = tsuku_conceal,
};
