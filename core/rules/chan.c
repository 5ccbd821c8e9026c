/*
 * chan.c - Chắn (Vietnamese pairs, 100 cards) as a rule set: the setup
 * and deal, the result record, the digest and the live description.  The
 * moves are judged in chan_play.c; winning hands in chan_score.c.
 *
 * DESIGN: one match is one hand (the seed plays "a single deal").  The
 * deal is an explicit order or a seed (docs/DEAL.md) over the canonical
 * deck 2V 2V 2V 2V 3V ... 9W CC CC CC CC (face-major, four copies each);
 * positions 1-20 go to the dealer, the next 19 to each following seat in
 * seat order, and the last 23 are the stock, top first.  The engine knows
 * every hand, so it judges every capture; describe() shows counts, and a
 * seat's concealed cards only when asked for that seat (core/view.h).
 * Every interpretation is recorded in docs/rules/chan.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/json.h"
#include "core/rules/chan_state.h"
#include "core/rules/reading.h"
#include "core/shuffle.h"

static void
chan_destroy(void *p)
{
    free(p);
}

/* The state holds no pointer (chan_state.h). */
static int
chan_clone(void **out, const void *st)
{
    *out = arb_rules_memdup(st, sizeof(chan_t));
    return *out == NULL ? ARB_ENOMEM : 0;
}

/* Deal tokens may hold several cards joined by commas, so a short line,
 * or a move's 32 arguments, can carry all 100: "2V,3S,... 7W,CC,...". */
static int
parse_order(const arb_deal_t *d, unsigned char *deck, arb_verdict_t *v)
{
    int         counts[ARB_CHAN_FACES], n = 0, f;
    size_t      i, len;
    const char *s, *e;
    char        err[160], a[4];

    memset(counts, 0, sizeof(counts));
    for (i = 0; i < d->ncards; i++) {
        for (s = d->cards[i]; *s != '\0'; s = *e ? e + 1 : e) {
            e = strchr(s, ',');
            if (e == NULL)
                e = s + strlen(s);
            len = (size_t)(e - s);
            if (len == 0)
                continue;
            if (arb_chan_card_parse(&f, s, len, err, sizeof(err)) != 0)
                return arb_verdict(v, ARB_EINVAL, "§2 deal", "deal card %d: "
                                   "%s", n + 1, err);
            if (n == ARB_CHAN_DECK)
                return arb_verdict(v, ARB_EINVAL, "§2 deal", "the deal "
                                   "lists more than 100 cards");
            deck[n++] = (unsigned char)f;
            counts[f]++;
        }
    }
    if (n != ARB_CHAN_DECK)
        return arb_verdict(v, ARB_EINVAL, "§2 deal", "the deal lists %d "
                           "cards: Chắn deals all 100 (20 to the dealer, 19 "
                           "to each other seat, 23 in the stock)", n);
    for (f = 0; f < ARB_CHAN_FACES; f++)
        if (counts[f] != ARB_CHAN_COPIES)
            return arb_verdict(v, ARB_EINVAL, "§2 deal", "the deal has %d "
                               "copies of %s: the deck has four of each card",
                               counts[f], arb_chan_card_format(a, f));
    return 0;
}

static int
make_deck(const arb_setup_t *s, unsigned char *deck, arb_verdict_t *v)
{
    static const unsigned char zero[ARB_HASH_LEN];
    unsigned char              h[ARB_HASH_LEN];
    unsigned                   perm[ARB_CHAN_DECK];
    int                        k;

    switch (s->deal.kind) {
    case ARB_DEAL_ORDER:
        return parse_order(&s->deal, deck, v);
    case ARB_DEAL_SEED:
        if (s->deal.seed == NULL)
            break;
        if (memcmp(s->deal.seed_hash, zero, ARB_HASH_LEN) != 0) {
            arb_seed_hash(h, s->deal.seed, strlen(s->deal.seed));
            if (memcmp(h, s->deal.seed_hash, ARB_HASH_LEN) != 0)
                return arb_verdict(v, ARB_EINVAL, "§2 deal", "the revealed "
                                   "seed does not match the committed seed "
                                   "hash");
        }
        if (arb_shuffle(perm, ARB_CHAN_DECK, s->deal.seed,
                        strlen(s->deal.seed)) != 0)
            return arb_verdict(v, ARB_EINVAL, "§2 deal", "the seed cannot "
                               "be shuffled");
        for (k = 0; k < ARB_CHAN_DECK; k++)
            deck[k] = (unsigned char)(perm[k] / ARB_CHAN_COPIES);
        return 0;
    case ARB_DEAL_COMMIT:
        return arb_verdict(v, ARB_EINVAL, "§2 deal", "the deal is committed "
                           "and not revealed yet: every capture is judged "
                           "against the hands, so only the recorder (which "
                           "keeps the deal) or a replay after the close can "
                           "judge this match (docs/DEAL.md)");
    }
    return arb_verdict(v, ARB_EINVAL, "§2 deal", "chan needs a deal: "
                       "'deal: seed <text>' or 'deal: order <100 cards>'");
}

static int
chan_create(void **out, const arb_setup_t *s, arb_verdict_t *v)
{
    static const char *const editions[] = { CHAN_EDITION, CHAN_EDITION_3,
                                            CHAN_EDITION_2, CHAN_EDITION_1 };
    static const char *const bar_values[] = { "all", "capture" };
    static const char *const count_values[] = { "once", "each" };
    static const char *const tom_values[] = { "usual", "literal" };
    unsigned char deck[ARB_CHAN_DECK];
    chan_t       *c;
    const char   *o;
    size_t        i, j;
    int           k, n, pos, rc, ed, bar, each, tom;

    *out = NULL;
    if ((ed = arb_rules_edition(s, editions, 4, v)) < 0)
        return ed;
    for (i = 0; i < s->noptions; i++)
        if (strcmp(s->options[i].key, "dealer") != 0
            && strcmp(s->options[i].key, "discarded-face") != 0
            && strcmp(s->options[i].key, "khai-bon") != 0
            && strcmp(s->options[i].key, "tom") != 0)
            return arb_verdict(v, ARB_EINVAL, "setup", "unknown option '%s' "
                               "for chan (options: dealer, discarded-face, "
                               "khai-bon, tom)", s->options[i].key);
    if ((rc = arb_rules_choice(s, "discarded-face", bar_values, 2, 0, &bar,
                               v)) != 0
        || (rc = arb_rules_choice(s, "khai-bon", count_values, 2, 0, &each,
                                  v)) != 0
        || (rc = arb_rules_choice(s, "tom", tom_values, 2, 0, &tom, v)) != 0)
        return rc;
    if (s->nplayers != CHAN_SEATS)
        return arb_verdict(v, ARB_EINVAL, "§2 setup", "Chắn is played by 4 "
                           "players, got %zu", s->nplayers);
    if (s->nteams > 0)
        return arb_verdict(v, ARB_EINVAL, "§2 setup", "Chắn has no teams: "
                           "each player plays for itself");
    for (i = 0; i < s->nplayers; i++) {
        if (s->players[i].name == NULL
            || strlen(s->players[i].name) >= CHAN_NAME)
            return arb_verdict(v, ARB_EINVAL, "§2 setup", "player %zu has "
                               "no valid name", i + 1);
        for (j = 0; j < i; j++)
            if (strcmp(s->players[i].name, s->players[j].name) == 0)
                return arb_verdict(v, ARB_EINVAL, "§2 setup", "player '%s' "
                                   "is seated twice", s->players[i].name);
    }
    if ((rc = make_deck(s, deck, v)) != 0)
        return rc;

    c = calloc(1, sizeof(*c));
    if (c == NULL)
        return ARB_ENOMEM;
    snprintf(c->match_id, sizeof(c->match_id), "%s",
             s->match_id ? s->match_id : "");
    c->edition = editions[ed];
    c->readings = (bar ? CHAN_RD_BAR_TAKE : 0)
                  | (each ? ARB_CHAN_R_EACH : 0)
                  | (tom ? ARB_CHAN_R_TOM_LITERAL : 0)
                  | (ed == 3 ? ARB_CHAN_R_SPLIT_EXPOSED
                               | CHAN_RD_DEAD_HEAVEN : 0)
                  | (ed >= 2 ? CHAN_RD_LAST_PASS : 0)
                  | (ed >= 1 ? CHAN_RD_DECLINED_WIN : 0);
    for (k = 0; k < CHAN_SEATS; k++)
        snprintf(c->seat[k].name, CHAN_NAME, "%s", s->players[k].name);
    o = arb_setup_option(s, "dealer");
    if (o != NULL && (c->dealer = arb_setup_seat(s, o)) < 0) {
        rc = arb_verdict(v, ARB_EINVAL, "§2 setup", "dealer '%s' is not a "
                         "player of this match", o);
        goto fail;
    }
    pos = 0;
    for (k = 0; k < CHAN_SEATS; k++) {
        int seat = (c->dealer + k) % CHAN_SEATS;
        n = k == 0 ? CHAN_DEALER_N : CHAN_OTHER_N;
        while (n-- > 0)
            c->seat[seat].hand[deck[pos++]]++;
    }
    memcpy(c->stock, deck + pos, CHAN_STOCK);
    c->phase = PH_OPEN;
    c->actor = c->dealer;
    c->table = -1;
    c->winner = c->win_face = c->win_from = -1;
    *out = c;
    return 0;

fail:
    chan_destroy(c);
    return rc;
}

static int
chan_finished(const void *p)
{
    return ((const chan_t *)p)->ended != END_NONE;
}

static const char *const won_names[] = { "heaven", "self", "stock", "chiu" };

/* The list fields of the record; strings are owned by the caller's
 * arrays (up to 20 entries of 16 bytes). */
static int
add_lists(arb_record_t *rec, const chan_t *c)
{
    char  buf[ARB_CHAN_HAND][16], *v[ARB_CHAN_HAND];
    int   i, n, f, k;
    const arb_chan_layout_t *l = &c->layout;
    const arb_chan_score_t  *sc = &c->score;
    int   win = c->ended == END_WIN;

    for (i = 0; i < ARB_CHAN_HAND; i++)
        v[i] = buf[i];
    n = 0;
    for (i = 0; win && i < l->ngroups; i++)
        arb_chan_group_format(buf[n++], &l->groups[i]);
    if (arb_record_list(rec, "exposed", v, (size_t)n))
        return ARB_ENOMEM;
    n = 0;
    for (f = 0; win && f < ARB_CHAN_FACES; f++)
        for (k = 0; k < l->concealed[f]; k++)
            arb_chan_card_format(buf[n++], f);
    if (arb_record_list(rec, "concealed", v, (size_t)n))
        return ARB_ENOMEM;
    n = 0;
    for (i = 0; win && i < sc->pairing.n; i++)
        arb_chan_pair_format(buf[n++], &sc->pairing.pair[i]);
    if (arb_record_list(rec, "pairs", v, (size_t)n)
        || arb_record_int(rec, "chan", win ? sc->chan : 0)
        || arb_record_int(rec, "ca", win ? sc->ca : 0)
        || arb_record_int(rec, "red", win ? sc->red : 0))
        return ARB_ENOMEM;
    n = 0;
    for (i = 0; win && i < sc->nbonus; i++)
        snprintf(buf[n++], 16, "%s", arb_chan_bonus_info(sc->bonus[i])->id);
    if (arb_record_list(rec, "bonuses", v, (size_t)n))
        return ARB_ENOMEM;
    return 0;
}

static int
chan_results(const void *p, arb_results_t *out)
{
    const chan_t *c = p;
    arb_record_t *rec;
    char          setl[CHAN_SEATS][CHAN_NAME + 24], *sv[CHAN_SEATS], a[4];
    const char   *main_id = "";
    int           k, win = c->ended == END_WIN;

    memset(out, 0, sizeof(*out));
    if (c->ended != END_NONE) {
        if (win)
            main_id = c->score.main < 0 ? "u-xuong"
                      : arb_chan_bonus_info(c->score.bonus[c->score.main])->id;
        for (k = 0; k < CHAN_SEATS; k++) {
            snprintf(setl[k], sizeof(setl[k]), "%s %lld", c->seat[k].name,
                     (long long)c->totals[k]);
            sv[k] = setl[k];
        }
        rec = arb_results_add_record(out, c->end_seq);
        if (rec == NULL
            || arb_record_str(rec, "match_id", c->match_id)
            || arb_record_str(rec, "edition", c->edition)
            || arb_record_str(rec, "dealer", c->seat[c->dealer].name)
            || arb_record_str(rec, "result", win ? "win" : "draw")
            || arb_record_str(rec, "winner",
                              win ? c->seat[c->winner].name : "")
            || arb_record_str(rec, "won", win ? won_names[c->won] : "")
            || arb_record_str(rec, "from", win && c->win_from >= 0
                              ? c->seat[c->win_from].name : "")
            || arb_record_str(rec, "winning_card", win && c->win_face >= 0
                              ? arb_chan_card_format(a, c->win_face) : "")
            || add_lists(rec, c)
            || arb_record_str(rec, "main", main_id)
            || arb_record_int(rec, "score", win ? c->score.points : 0)
            || arb_record_list(rec, "settlement", sv, CHAN_SEATS)
            || arb_record_int(rec, "stock_left",
                              CHAN_STOCK - c->stock_pos))
            goto oom;
    }
    for (k = 0; k < CHAN_SEATS; k++)
        if (arb_results_add_total(out, c->seat[k].name, c->totals[k]) != 0)
            goto oom;
    return 0;

oom:
    arb_results_clear(out);
    return ARB_ENOMEM;
}

/* Only what decides future legality and results: fields that are stale
 * in the current phase are left out, so `pass`+`draw` and a bare `draw`
 * reach the same digest. */
static void
chan_digest(const void *p, arb_digest_t *d)
{
    const chan_t *c = p;
    int           k, i, live = c->phase == PH_OFFER || c->phase == PH_DRAW;

    arb_digest_u64(d, (uint64_t)c->dealer);
    arb_digest_bytes(d, c->stock, CHAN_STOCK);
    arb_digest_u64(d, (uint64_t)c->stock_pos);
    arb_digest_u64(d, (uint64_t)c->phase);
    if (c->phase == PH_OPEN || c->phase == PH_DISCARD || c->phase == PH_DRAW)
        arb_digest_u64(d, (uint64_t)c->actor);
    if (c->phase == PH_DISCARD)
        arb_digest_u64(d, (uint64_t)c->next_gate);
    if (live) {
        arb_digest_u64(d, (uint64_t)c->table);
        arb_digest_u64(d, (uint64_t)c->origin);
        arb_digest_u64(d, (uint64_t)c->from);
        arb_digest_u64(d, (uint64_t)c->gate);
        arb_digest_u64(d, (uint64_t)c->passed);
    }
    for (k = 0; k < CHAN_SEATS; k++) {
        const chan_seat_t *s = &c->seat[k];
        arb_digest_bytes(d, s->hand, ARB_CHAN_FACES);
        arb_digest_u64(d, (uint64_t)s->ngroups);
        for (i = 0; i < s->ngroups; i++) {
            arb_digest_u64(d, s->groups[i].kind);
            arb_digest_u64(d, s->groups[i].face[0]);
            arb_digest_u64(d, s->groups[i].face[1]);
        }
        arb_digest_u64(d, s->discarded);
        arb_digest_u64(d, s->ca_used);
        arb_digest_u64(d, s->declined);
        arb_digest_bytes(d, s->disc_suits, ARB_CHAN_RANKS);
        arb_digest_u64(d, s->ca_taken);
        arb_digest_u64(d, s->dead);
        arb_digest_u64(d, live ? (uint64_t)s->claim : 0);
    }
    arb_digest_u64(d, (uint64_t)c->ended);
    if (c->ended != END_NONE)
        arb_digest_u64(d, c->end_seq);
    if (c->ended == END_WIN) {
        arb_digest_u64(d, (uint64_t)c->winner);
        arb_digest_u64(d, (uint64_t)c->won);
        arb_digest_i64(d, c->win_face);
        arb_digest_i64(d, c->win_from);
        arb_digest_i64(d, c->score.points);
    }
    for (k = 0; k < CHAN_SEATS; k++)
        arb_digest_i64(d, c->totals[k]);
    /* The options decide future legality; fed only when one is not the
     * default, so matches recorded before they existed keep their digest
     * (the edition is in the match-level digest). */
    if (c->readings & CHAN_RD_OPTIONS)
        arb_digest_u64(d, c->readings & CHAN_RD_OPTIONS);
}

/* A list of card names from faces[0..n). */
static json_t *
card_list(const unsigned char *faces, int n)
{
    json_t *a = json_array();
    char    c[16];
    int     i, bad = 0;

    for (i = 0; i < n; i++)
        bad |= arb_json_add(a, json_string(arb_chan_card_format(c, faces[i])));
    return bad ? (json_decref(a), NULL) : a;
}

static json_t *
describe_table(const chan_t *c)
{
    json_t *o, *passed;
    char    a[16];
    int     k, bad = 0;

    if (c->phase != PH_OFFER && c->phase != PH_DRAW)
        return json_null();
    o = json_object();
    passed = json_array();
    for (k = 0; k < CHAN_SEATS; k++)
        if (c->passed & (1u << k))
            bad |= arb_json_add(passed, arb_json_string(c->seat[k].name));
    bad |= arb_json_set(o, "card", json_string(arb_chan_card_format(a,
                                                                 c->table)));
    bad |= arb_json_set(o, "origin", json_string(c->origin == ORG_STOCK
                                                 ? "stock" : "discard"));
    bad |= arb_json_set(o, "from", arb_json_string(c->seat[c->from].name));
    bad |= arb_json_set(o, "gate", arb_json_string(c->seat[c->gate].name));
    bad |= arb_json_set(o, "passed", passed);
    return bad ? (json_decref(o), NULL) : o;
}

static json_t *
describe_seat(const chan_seat_t *s, int shown)
{
    json_t       *o = json_object(), *exposed = json_array();
    unsigned char held[ARB_CHAN_DECK];
    char          a[16];
    int           i, f, n = 0, bad = 0;

    for (i = 0; i < ARB_CHAN_FACES; i++)
        for (f = 0; f < s->hand[i] && n < ARB_CHAN_DECK; f++)
            held[n++] = (unsigned char)i;
    for (i = 0; i < s->ngroups; i++)
        bad |= arb_json_add(exposed, json_string(
                                arb_chan_group_format(a, &s->groups[i])));
    bad |= arb_json_set(o, "name", arb_json_string(s->name));
    bad |= arb_json_set(o, "hand", json_integer(n));
    if (shown)
        bad |= arb_json_set(o, "hand_cards", card_list(held, n));
    bad |= arb_json_set(o, "exposed", exposed);
    bad |= arb_json_set(o, "discards", card_list(s->disc, s->ndisc));
    bad |= arb_json_set(o, "flipped", card_list(s->flip, s->nflip));
    bad |= arb_json_set(o, "dead", json_boolean(s->dead));
    return bad ? (json_decref(o), NULL) : o;
}

static json_t *
describe_result(const chan_t *c)
{
    json_t *o;
    int     bad = 0;

    if (c->ended != END_WIN && c->ended != END_DRAW)
        return json_null();
    o = json_object();
    if (c->ended == END_WIN) {
        bad |= arb_json_set(o, "winner",
                            arb_json_string(c->seat[c->winner].name));
        bad |= arb_json_set(o, "won", json_string(won_names[c->won]));
        bad |= arb_json_set(o, "score", json_integer(c->score.points));
    } else {
        bad |= arb_json_set(o, "draw", json_true());
        bad |= arb_json_set(o, "score", json_integer(0));
    }
    return bad ? (json_decref(o), NULL) : o;
}

static json_t *
chan_describe(const void *p, unsigned seen)
{
    static const char *const phases[] = { "open", "discard", "offer",
                                          "draw", "over" };
    static const char *const claims[] = { "", "win", "chiu", "take" };
    const chan_t *c = p;
    json_t       *o = json_object(), *declared = json_array(),
                 *players = json_array(), *d;
    int           k, turn = -1, bad = 0;

    switch (c->phase) {
    case PH_OPEN: case PH_DISCARD: case PH_DRAW: turn = c->actor; break;
    case PH_OFFER: turn = c->gate; break;
    }
    for (k = 0; k < CHAN_SEATS; k++)
        if (c->seat[k].claim != CL_NONE && c->phase != PH_OVER) {
            d = json_object();
            bad |= arb_json_set(d, "player", arb_json_string(c->seat[k].name));
            bad |= arb_json_set(d, "declare",
                                json_string(claims[c->seat[k].claim]));
            bad |= arb_json_set(d, "seq",
                                json_integer((json_int_t)c->seat[k].claim_seq));
            bad |= arb_json_add(declared, d);
        }
    for (k = 0; k < CHAN_SEATS; k++)
        bad |= arb_json_add(players, describe_seat(&c->seat[k],
                                                   (int)(seen >> k & 1)));
    bad |= arb_json_set(o, "dealer", arb_json_string(c->seat[c->dealer].name));
    bad |= arb_json_set(o, "phase", json_string(phases[c->phase]));
    bad |= arb_json_set(o, "turn", arb_json_string_or_null(
                            turn < 0 ? NULL : c->seat[turn].name));
    bad |= arb_json_set(o, "table", describe_table(c));
    bad |= arb_json_set(o, "stock_left",
                        json_integer(CHAN_STOCK - c->stock_pos));
    bad |= arb_json_set(o, "declared", declared);
    bad |= arb_json_set(o, "players", players);
    bad |= arb_json_set(o, "finished", json_boolean(c->ended));
    bad |= arb_json_set(o, "result", describe_result(c));
    return bad ? (json_decref(o), NULL) : o;
}

extern const arb_narration_t arb__chan_narration;    /* chan_narrate.c */

static const char *const move_verbs[] = { "discard", "take", "pass",
                                          "draw", "chiu", "win",
                                          "declare", NULL };

const arb_rules_t arb_rules_chan = {
    .game = "chan",
    .narration = &arb__chan_narration,
    .verbs = move_verbs,
    .edition = CHAN_EDITION,
    .create = chan_create,
    .destroy = chan_destroy,
    .clone = chan_clone,
    .apply = arb__chan_apply,
    .finished = chan_finished,
    .results = chan_results,
    .digest = chan_digest,
    .describe = chan_describe,
};
