/*
 * tsuku_report.c - what the Tsukurutenten rule set reports: result records
 * (one per round, one for the end of the game), the canonical digest and
 * the live position.
 *
 * DESIGN: a round record carries every fact a claim of that round could
 * state — winner, how the hand was finished, the eight chips as played,
 * the arrangement, each bonus with its points, base and points, and every
 * total after the round — as separate fields, so a claim is checked field
 * by field.  describe() shows hand sizes, and a seat's concealed chips
 * only when asked for that seat (core/view.h); the stock order never
 * leaves the engine through it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/json.h"
#include "core/rules/tsuku_game.h"

static const char *const phase_names[] = { "deal", "action", "drawn",
                                           "taken", "over" };

static void
end_text(const arb__tsuku_t *t, char *out, size_t len)
{
    size_t o = 0;
    int    i, n = 0;

    if (t->ended == TSUKU_END_NONE) {
        out[0] = '\0';
        return;
    }
    o = (size_t)snprintf(out, len, "%s",
                         t->ended == TSUKU_END_GOAL
                         ? "a player reached the goal of "
                         : "every player has dealt twice");
    if (t->ended == TSUKU_END_GOAL && o < len)
        o += (size_t)snprintf(out + o, len - o, "%d points",
                              t->extended ? TSUKU_EXT_GOAL
                                          : TSUKU_SIMPLE_GOAL);
    for (i = 0; i < t->nplayers && o < len; i++)
        if (t->winners & (1u << i))
            o += (size_t)snprintf(out + o, len - o, "%s%s", n++ ? ", " : "; "
                                  "the game goes to ", t->p[i].name);
}

/* A list field built from a small array of fixed strings. */
typedef struct strs {
    char  s[ARB_TSUKU_FULL + ARB_TB_COUNT][96];
    char *v[ARB_TSUKU_FULL + ARB_TB_COUNT];
    size_t n;
} strs_t;

static void
strs_add(strs_t *l, const char *s)
{
    snprintf(l->s[l->n], sizeof(l->s[0]), "%s", s);
    l->v[l->n] = l->s[l->n];
    l->n++;
}

static int
add_totals(arb_record_t *rec, const arb__tsuku_t *t, const int64_t *tot)
{
    strs_t l;
    char   buf[96];
    int    i;

    l.n = 0;
    for (i = 0; i < t->nplayers; i++) {
        snprintf(buf, sizeof(buf), "%s=%lld", t->p[i].name,
                 (long long)tot[i]);
        strs_add(&l, buf);
    }
    return arb_record_list(rec, "totals", l.v, l.n);
}

static int
round_record(arb_results_t *out, const arb__tsuku_t *t, const tsuku_rec_t *r)
{
    arb_record_t    *rec;
    strs_t           hand, open, sets, singles, bonuses;
    arb_tsuku_chip_t chips[ARB_TSUKU_FULL];
    char             buf[32];
    int              i, win = r->result == TSUKU_WIN;

    hand.n = open.n = sets.n = singles.n = bonuses.n = 0;
    if (win) {
        arb_tsuku_arr_chips(&r->arr, chips);
        for (i = 0; i < ARB_TSUKU_FULL; i++) {
            arb_tsuku_chip_format(buf, chips[i]);
            strs_add(&hand, buf);
        }
        for (i = 0; i < r->arr.nsets; i++) {
            arb_tsuku_set_format(buf, &r->arr.sets[i]);
            strs_add(i < r->arr.nopen ? &open : &sets, buf);
        }
        for (i = 0; i < r->arr.nsingles; i++) {
            arb_tsuku_chip_format(buf, r->arr.singles[i]);
            strs_add(&singles, buf);
        }
        for (i = 0; i < ARB_TB_COUNT; i++)
            if (r->score.mask & (1u << i)) {
                snprintf(buf, sizeof(buf), "%s=%d", arb_tsuku_bonus_name(i),
                         r->score.pts[i]);
                strs_add(&bonuses, buf);
            }
    }
    rec = arb_results_add_record(out, r->seq);
    if (rec == NULL
        || arb_record_str(rec, "match_id", t->match_id)
        || arb_record_str(rec, "kind", "round")
        || arb_record_int(rec, "round", r->round)
        || arb_record_str(rec, "dealer", t->p[r->dealer].name)
        || arb_record_str(rec, "scoring", t->extended ? "extended" : "simple")
        || arb_record_str(rec, "result", win ? "win" : "exhausted")
        || arb_record_str(rec, "winner", win ? t->p[r->winner].name : "")
        || arb_record_str(rec, "finish", !win ? ""
                          : r->from == TSUKU_FROM_STOCK ? "stock"
                          : "discard")
        || arb_record_str(rec, "discarder", r->discarder >= 0
                          ? t->p[r->discarder].name : "")
        || arb_record_list(rec, "hand", hand.v, hand.n)
        || arb_record_list(rec, "open_sets", open.v, open.n)
        || arb_record_list(rec, "sets", sets.v, sets.n)
        || arb_record_list(rec, "singles", singles.v, singles.n)
        || arb_record_str(rec, "arrangement", win ? r->arr.text : "")
        || arb_record_str(rec, "declared", !win ? ""
                          : r->declared ? "player" : "engine")
        || arb_record_int(rec, "arrangements", r->narr)
        || arb_record_int(rec, "value", win ? r->arr.value : 0)
        || arb_record_int(rec, "base", r->score.base)
        || arb_record_list(rec, "bonuses", bonuses.v, bonuses.n)
        || arb_record_int(rec, "points", r->score.points)
        || add_totals(rec, t, r->totals))
        return ARB_ENOMEM;
    return 0;
}

static int
game_record(arb_results_t *out, const arb__tsuku_t *t)
{
    arb_record_t *rec;
    strs_t        w;
    int64_t       tot[TSUKU_PLAYERS_MAX];
    char          reason[200];
    int           i;

    w.n = 0;
    for (i = 0; i < t->nplayers; i++) {
        tot[i] = t->p[i].points;
        if (t->winners & (1u << i))
            strs_add(&w, t->p[i].name);
    }
    end_text(t, reason, sizeof(reason));
    rec = arb_results_add_record(out, t->end_seq);
    if (rec == NULL
        || arb_record_str(rec, "match_id", t->match_id)
        || arb_record_str(rec, "kind", "game")
        || arb_record_int(rec, "rounds", t->round)
        || arb_record_str(rec, "scoring", t->extended ? "extended" : "simple")
        || arb_record_str(rec, "end", t->ended == TSUKU_END_GOAL ? "goal"
                                                                 : "deals")
        || arb_record_str(rec, "reason", reason)
        || arb_record_list(rec, "winners", w.v, w.n)
        || add_totals(rec, t, tot))
        return ARB_ENOMEM;
    return 0;
}

int
arb__tsuku_results(const void *st, arb_results_t *out)
{
    const arb__tsuku_t *t = st;
    size_t              i;
    int                 j;

    memset(out, 0, sizeof(*out));
    for (i = 0; i < t->nrecs; i++)
        if (round_record(out, t, &t->recs[i]) != 0)
            goto oom;
    if (t->ended && game_record(out, t) != 0)
        goto oom;
    for (j = 0; j < t->nplayers; j++)
        if (arb_results_add_total(out, t->p[j].name, t->p[j].points) != 0)
            goto oom;
    return 0;

oom:
    arb_results_clear(out);
    return ARB_ENOMEM;
}

static void
digest_set(arb_digest_t *d, const arb_tsuku_set_t *s)
{
    int i;

    for (i = 0; i < 3; i++) {
        arb_digest_u64(d, (uint64_t)s->c[i].kind);
        arb_digest_i64(d, s->c[i].as);
    }
    arb_digest_u64(d, (uint64_t)s->colour);
    arb_digest_u64(d, (uint64_t)s->form);
    arb_digest_u64(d, (uint64_t)s->value);
}

static void
digest_kinds(arb_digest_t *d, const int *kinds, size_t n)
{
    unsigned char b[ARB_TSUKU_CHIPS];
    size_t        i, k;

    arb_digest_u64(d, n);
    for (i = 0; i < n; i += k) {
        for (k = 0; k < ARB_TSUKU_CHIPS && i + k < n; k++)
            b[k] = (unsigned char)kinds[i + k];
        arb_digest_bytes(d, b, k);
    }
}

void
arb__tsuku_digest(const void *st, arb_digest_t *d)
{
    const arb__tsuku_t *t = st;
    size_t              i;
    int                 j, k;

    arb_digest_u64(d, (uint64_t)t->extended);
    /* The readings chosen by options, only when one is not its edition's
     * default: records made before the options existed keep their digest
     * (the edition is in the match-level digest). */
    if (t->nondefault != 0)
        arb_digest_u64(d, 0x100u | t->nondefault);
    arb_digest_u64(d, (uint64_t)t->nplayers);
    arb_digest_u64(d, (uint64_t)t->first_dealer);
    /* The seed and the header's orders fix every later round. */
    arb_digest_u64(d, t->seed != NULL);
    arb_digest_str(d, t->seed);
    digest_kinds(d, t->orders, (size_t)t->norders * ARB_TSUKU_CHIPS);
    arb_digest_u64(d, (uint64_t)t->round);
    arb_digest_u64(d, (uint64_t)t->dealer);
    arb_digest_u64(d, (uint64_t)t->turn);
    arb_digest_u64(d, (uint64_t)t->phase);
    digest_kinds(d, t->stock, ARB_TSUKU_CHIPS);
    arb_digest_u64(d, (uint64_t)t->top);
    arb_digest_i64(d, t->live);
    arb_digest_i64(d, t->live_by);
    for (j = 0; j < t->nplayers; j++) {
        const tsuku_player_t *p = &t->p[j];
        digest_kinds(d, p->hand, ARB_TSUKU_KINDS);
        arb_digest_u64(d, (uint64_t)p->nopen);
        for (k = 0; k < p->nopen; k++)
            digest_set(d, &p->open[k]);
        arb_digest_u64(d, (uint64_t)p->turns);
        arb_digest_i64(d, p->points);
    }
    arb_digest_u64(d, (uint64_t)t->ended);
    arb_digest_u64(d, t->winners);
    arb_digest_u64(d, t->end_seq);
    arb_digest_u64(d, t->nrecs);
    for (i = 0; i < t->nrecs; i++) {
        const tsuku_rec_t *r = &t->recs[i];
        arb_digest_u64(d, r->seq);
        arb_digest_u64(d, (uint64_t)r->round);
        arb_digest_u64(d, (uint64_t)r->dealer);
        arb_digest_u64(d, (uint64_t)r->result);
        arb_digest_i64(d, r->winner);
        arb_digest_u64(d, (uint64_t)r->from);
        arb_digest_i64(d, r->discarder);
        arb_digest_u64(d, (uint64_t)r->declared);
        arb_digest_u64(d, (uint64_t)r->narr);
        arb_digest_u64(d, (uint64_t)r->arr.nopen);
        for (k = 0; k < r->arr.nopen; k++)
            digest_set(d, &r->arr.sets[k]);
        arb_digest_str(d, r->arr.text);
        arb_digest_i64(d, r->arr.value);
        arb_digest_u64(d, (uint64_t)r->score.base);
        arb_digest_u64(d, r->score.mask);
        for (k = 0; k < ARB_TB_COUNT; k++)
            arb_digest_u64(d, (uint64_t)r->score.pts[k]);
        arb_digest_i64(d, r->score.points);
    }
}

/* A list of chip names from kinds[0..n). */
static json_t *
chip_list(const int *kinds, int n)
{
    json_t *a = json_array();
    char    c[ARB_TSUKU_SET_TEXT];
    int     k, bad = 0;

    for (k = 0; k < n; k++) {
        arb_tsuku_chip_format(c, arb_tsuku_chip_of(kinds[k]));
        bad |= arb_json_add(a, json_string(c));
    }
    return bad ? (json_decref(a), NULL) : a;
}

static json_t *
describe_player(const tsuku_player_t *p, int shown)
{
    json_t *o = json_object(), *sets = json_array();
    char    c[ARB_TSUKU_SET_TEXT];
    int     held[ARB_TSUKU_CHIPS], k, f, n = 0, bad = 0;

    for (k = 0; k < ARB_TSUKU_KINDS; k++)
        for (f = 0; f < p->hand[k] && n < ARB_TSUKU_CHIPS; f++)
            held[n++] = k;
    for (k = 0; k < p->nopen; k++) {
        arb_tsuku_set_format(c, &p->open[k]);
        bad |= arb_json_add(sets, json_string(c));
    }
    bad |= arb_json_set(o, "name", arb_json_string(p->name));
    bad |= arb_json_set(o, "points", json_integer((json_int_t)p->points));
    bad |= arb_json_set(o, "hand", json_integer(n));
    if (shown)
        bad |= arb_json_set(o, "hand_cards", chip_list(held, n));
    bad |= arb_json_set(o, "open_sets", sets);
    bad |= arb_json_set(o, "discards", chip_list(p->discards,
                                                   p->ndiscards));
    return bad ? (json_decref(o), NULL) : o;
}

json_t *
arb__tsuku_describe(const void *st, unsigned seen)
{
    const arb__tsuku_t *t = st;
    json_t             *o = json_object(), *players = json_array(),
                       *winners = json_array(), *d;
    char                c[ARB_TSUKU_SET_TEXT], end[200];
    int                 i, bad = 0;

    if (t->live < 0) {
        d = json_null();
    } else {
        arb_tsuku_chip_format(c, arb_tsuku_chip_of(t->live));
        d = json_object();
        bad |= arb_json_set(d, "chip", json_string(c));
        bad |= arb_json_set(d, "by", arb_json_string(t->p[t->live_by].name));
    }
    for (i = 0; i < t->nplayers; i++)
        bad |= arb_json_add(players, describe_player(&t->p[i],
                                                     (int)(seen >> i & 1)));
    for (i = 0; i < t->nplayers; i++)
        if (t->winners & (1u << i))
            bad |= arb_json_add(winners, arb_json_string(t->p[i].name));
    end_text(t, end, sizeof(end));
    bad |= arb_json_set(o, "scoring", json_string(t->extended ? "extended"
                                                             : "simple"));
    bad |= arb_json_set(o, "round", json_integer(t->round));
    bad |= arb_json_set(o, "dealer", arb_json_string(t->p[t->dealer].name));
    bad |= arb_json_set(o, "turn", arb_json_string_or_null(
                              t->ended ? NULL : t->p[t->turn].name));
    bad |= arb_json_set(o, "phase", json_string(phase_names[t->phase]));
    bad |= arb_json_set(o, "stock", json_integer(t->phase == TSUKU_PH_DEAL
                                                   ? 0 : ARB_TSUKU_CHIPS
                                                         - t->top));
    bad |= arb_json_set(o, "discard", d);
    bad |= arb_json_set(o, "players", players);
    bad |= arb_json_set(o, "rounds_played", json_integer((json_int_t)t->nrecs));
    bad |= arb_json_set(o, "finished", json_boolean(t->ended));
    bad |= arb_json_set(o, "end", arb_json_string(end));
    bad |= arb_json_set(o, "winners", winners);
    return bad ? (json_decref(o), NULL) : o;
}

void
arb__tsuku_end_text(const arb__tsuku_t *t, char *out, size_t len)
{
    end_text(t, out, len);
}
