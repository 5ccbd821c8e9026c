/*
 * yahchain.c - YAHchain 3rd edition, chapter 34, as a rule set.
 *
 * DESIGN: chapter 34 defines the categories; the general play rules it
 * leans on are not in our hands, so every reading is an explicit choice
 * recorded in docs/rules/yahchain.md:
 *  - a move is `place <player> <card> [@sota]`: one physical card into the
 *    active Sota; players move in seat order, one card each;
 *  - Sota k belongs to its home owner (option `owners`, default seat
 *    (k-1) mod players) whoever places into it (§34.12);
 *  - a Sota is judged when it holds exactly `mode` cards (§34.11); a VOID
 *    sequence is spent (`void=close`) or cleared and refilled
 *    (`void=clear`); its cards never return (§34.11.3);
 *  - after Sota 12 a new cycle starts at Sota 1 with empty Sotas; the match
 *    ends after `cycles` cycles, when the unused cards cannot complete the
 *    active Sota, or when the arbiter closes it (match layer).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/card.h"
#include "core/err.h"
#include "core/rules/reading.h"
#include "core/json.h"
#include "core/rules.h"
#include "core/rules/yahchain_bc.h"

extern const arb_narration_t arb__yahchain_narration;

#define SOTAS       12
/* Editions of the engine's reading (docs/rules/yahchain.md, "Editions"):
 * a match replays by the one it was recorded under. */
#define EDITION     "YAHchain-3e-ch34-3"
#define EDITION_2   "YAHchain-3e-ch34-2"  /* a card let stand out of turn,
                                             or in a Sota not active,
                                             scored */
#define EDITION_1   "YAHchain-3e-ch34"  /* a card let stand twice scored */
#define CYCLES_MAX  1000

enum { SOTA_EMPTY = 0, SOTA_FILLING, SOTA_DONE, SOTA_VOID };
enum { END_NONE = 0, END_CYCLES, END_DECK };

typedef struct yah_record {
    uint64_t   seq;
    int        cycle, sota, owner, family;
    arb_card_t cards[5];
    int        face_sum, bonus, points;
} yah_record_t;

/* What a move reads comes first, most of it within the 256 bytes that
 * arb_match_prefetch() loads ahead of a replayed move (used_at is one
 * line of its own, wherever the card falls). */
typedef struct yah {
    int           mode, void_clear, cycles, nplayers;
    int           ed;                   /* recorded under edition 1, 2 or 3
                                           (EDITION_1, EDITION_2,
                                           EDITION) */
    int           cycle;                /* 1.. */
    int           active;               /* 1..12 */
    int           turn;                 /* seat to move */
    int           ended;                /* END_* */
    int           nused;
    /* Each name's first 8 bytes (name_key), beside the state: a move
     * finds its seat without reading the names (replay keeps thousands
     * of matches side by side, each name a cache miss away). */
    uint64_t      pkey[SOTAS];
    int           sota_state[SOTAS];
    int           sota_n[SOTAS];
    arb_card_t    sota_cards[SOTAS][5];
    uint64_t      used_at[ARB_DECK];    /* seq that played the card, 0 = unused */
    /* Cards a `stands` ruling placed against §34.11: again (already
     * played, item 3; edition 2 on) or out of turn or in a Sota not
     * active (item 2; edition 3 on).  The Sota holding one cannot count
     * (docs/rules/yahchain.md). */
    int           sota_rep[SOTAS];

    char        **players;              /* borrowed copies, owned here */
    char         *match_id;
    int           owner[SOTAS];         /* seat of Sota k+1's owner */
    int64_t      *totals;               /* per seat */
    size_t        nrecords, caprecords;
    yah_record_t *records;
} yah_t;

static void yah_destroy(void *p);

static int
yah_clone(void **out, const void *st)
{
    const yah_t *y = st;
    yah_t       *c = arb_rules_memdup(y, sizeof(*y));

    *out = NULL;
    if (c == NULL)
        return ARB_ENOMEM;
    c->players = arb_strv_dup(y->players, (size_t)y->nplayers);
    c->match_id = y->match_id ? strdup(y->match_id) : NULL;
    c->totals = arb_rules_memdup(y->totals,
                                 (size_t)y->nplayers * sizeof(*y->totals));
    c->records = arb_rules_memdup(y->records,
                                  y->nrecords * sizeof(*y->records));
    c->caprecords = y->nrecords;
    if (c->players == NULL || (y->match_id && c->match_id == NULL)
        || c->totals == NULL || c->records == NULL) {
        yah_destroy(c);
        return ARB_ENOMEM;
    }
    *out = c;
    return 0;
}

/* A name's first 8 bytes, zero-padded.  Names hold no NUL, so for a
 * name under 8 bytes the key holds its end too and equal keys mean equal
 * names; longer names are compared in full after their keys. */
static uint64_t
name_key(const char *name)
{
    uint64_t k = 0;

    memcpy(&k, name, strnlen(name, sizeof(k)));
    return k;
}

/* The seat of `name`, or -1. */
static int
seat_of(const yah_t *y, const char *name)
{
    uint64_t key = name_key(name);
    int      k;

    for (k = 0; k < y->nplayers; k++)
        if (y->pkey[k] == key
            && (((const unsigned char *)&key)[sizeof(key) - 1] == 0
                || strcmp(y->players[k], name) == 0))
            return k;
    return -1;
}

static void
yah_destroy(void *p)
{
    yah_t *y = p;
    int    i;

    if (y == NULL)
        return;
    /* players may be missing: its allocation failed after nplayers was
     * set. */
    for (i = 0; y->players != NULL && i < y->nplayers; i++)
        free(y->players[i]);
    free(y->players);
    free(y->match_id);
    free(y->totals);
    free(y->records);
    free(y);
}

static int
parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    long  v;

    if (s == NULL || *s == '\0')
        return -1;
    v = strtol(s, &end, 10);
    if (*end != '\0' || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

static int
parse_owners(yah_t *y, const arb_setup_t *s, const char *list,
             arb_verdict_t *v)
{
    char   name[80];
    size_t n = 0;
    int    k = 0, seat;

    for (;;) {
        while (*list == ' ' || *list == ',')
            list++;
        if (*list == '\0')
            break;
        for (n = 0; list[n] != '\0' && list[n] != ' ' && list[n] != ','; n++)
            ;
        if (n >= sizeof(name))
            return arb_verdict(v, ARB_EINVAL, "owners",
                               "an owner's name is too long");
        memcpy(name, list, n);
        name[n] = '\0';
        list += n;
        seat = arb_setup_seat(s, name);
        if (seat < 0)
            return arb_verdict(v, ARB_EINVAL, "owners",
                               "Sota %d's owner '%s' is not a player of "
                               "this match", k + 1, name);
        if (k == SOTAS)
            return arb_verdict(v, ARB_EINVAL, "owners",
                               "more than 12 owners (one per Sota)");
        y->owner[k++] = seat;
    }
    if (k != SOTAS)
        return arb_verdict(v, ARB_EINVAL, "owners",
                           "%d owners given: one per Sota needs 12",
                           k);
    return 0;
}

static int
yah_create(void **out, const arb_setup_t *s, arb_verdict_t *v)
{
    static const char *const known[] = { "mode", "void", "cycles", "owners" };
    static const char *const editions[] = { EDITION, EDITION_2, EDITION_1 };
    yah_t      *y;
    const char *o;
    size_t      i, j;
    int         rc, ed;

    *out = NULL;
    if ((ed = arb_rules_edition(s, editions, 3, v)) < 0)
        return ed;
    for (i = 0; i < s->noptions; i++) {
        for (j = 0; j < 4; j++)
            if (strcmp(s->options[i].key, known[j]) == 0)
                break;
        if (j == 4)
            return arb_verdict(v, ARB_EINVAL, "setup",
                               "unknown option '%s' for yahchain (options: "
                               "mode, void, cycles, owners)",
                               s->options[i].key);
    }
    if (s->nplayers < 1 || s->nplayers > SOTAS)
        return arb_verdict(v, ARB_EINVAL, "setup",
                           "yahchain needs 1 to 12 players, got %zu",
                           s->nplayers);
    if (s->nteams > 0)
        return arb_verdict(v, ARB_EINVAL, "setup",
                           "yahchain has no teams: each player owns Sotas");
    if (s->deal.kind != ARB_DEAL_NONE)
        return arb_verdict(v, ARB_EINVAL, "setup",
                           "yahchain deals nothing (chapter 34 has no "
                           "hands): remove the deal");

    y = calloc(1, sizeof(*y));
    if (y == NULL)
        return ARB_ENOMEM;
    y->ed = 3 - ed;
    o = arb_setup_option(s, "mode");
    if (o != NULL && strncmp(o, "YCWS-144/", 9) == 0)
        o += 9;
    if (o == NULL || parse_int(o, 3, 5, &y->mode) != 0) {
        rc = arb_verdict(v, ARB_EINVAL, "§34.5",
                         o == NULL ? "the mode must be fixed before the "
                         "match starts: set mode to 3, 4 or 5%s"
                         : "mode '%s' does not exist: modes are 3, 4, 5 "
                         "(YCWS-144/3, /4, /5)", o ? o : "");
        goto fail;
    }
    o = arb_setup_option(s, "void");
    if (o == NULL || strcmp(o, "close") == 0)
        y->void_clear = 0;
    else if (strcmp(o, "clear") == 0)
        y->void_clear = 1;
    else {
        rc = arb_verdict(v, ARB_EINVAL, "setup",
                         "void policy '%s' does not exist: use close or "
                         "clear", o);
        goto fail;
    }
    o = arb_setup_option(s, "cycles");
    y->cycles = 1;
    if (o != NULL && parse_int(o, 1, CYCLES_MAX, &y->cycles) != 0) {
        rc = arb_verdict(v, ARB_EINVAL, "setup",
                         "cycles '%s' is not a number from 1 to %d", o,
                         CYCLES_MAX);
        goto fail;
    }

    y->nplayers = (int)s->nplayers;
    y->players = calloc(s->nplayers, sizeof(char *));
    y->totals = calloc(s->nplayers, sizeof(int64_t));
    y->match_id = strdup(s->match_id ? s->match_id : "");
    if (y->players == NULL || y->totals == NULL || y->match_id == NULL)
        goto oom;
    for (i = 0; i < s->nplayers; i++) {
        for (j = 0; j < i; j++)
            if (strcmp(s->players[i].name, s->players[j].name) == 0) {
                rc = arb_verdict(v, ARB_EINVAL, "setup",
                                 "player '%s' is seated twice",
                                 s->players[i].name);
                goto fail;
            }
        y->players[i] = strdup(s->players[i].name);
        if (y->players[i] == NULL)
            goto oom;
        y->pkey[i] = name_key(y->players[i]);
    }
    for (i = 0; i < SOTAS; i++)
        y->owner[i] = (int)(i % s->nplayers);
    o = arb_setup_option(s, "owners");
    if (o != NULL && (rc = parse_owners(y, s, o, v)) != 0)
        goto fail;

    y->cycle = 1;
    y->active = 1;
    *out = y;
    return 0;

oom:
    rc = ARB_ENOMEM;
fail:
    yah_destroy(y);
    return rc;
}

static const char *
end_reason(const yah_t *y)
{
    switch (y->ended) {
    case END_CYCLES: return "every cycle is complete";
    case END_DECK:   return "the deck cannot fill the active Sota";
    }
    return "";
}

static int
add_record(yah_t *y, const arb_bc_t *bc, uint64_t seq)
{
    yah_record_t *r;
    int           k = y->active - 1;

    if (y->nrecords == y->caprecords) {
        size_t cap = y->caprecords ? y->caprecords * 2 : 16;
        r = realloc(y->records, cap * sizeof(*r));
        if (r == NULL)
            return ARB_ENOMEM;
        y->records = r;
        y->caprecords = cap;
    }
    r = &y->records[y->nrecords++];
    r->seq = seq;
    r->cycle = y->cycle;
    r->sota = y->active;
    r->owner = y->owner[k];
    r->family = bc->family;
    memcpy(r->cards, y->sota_cards[k], sizeof(r->cards));
    r->face_sum = bc->face_sum;
    r->bonus = bc->bonus;
    r->points = bc->points;
    y->totals[r->owner] += bc->points;
    return 0;
}

/* The active Sota has just received its last card: judge it (§34.11). */
static int
judge(yah_t *y, uint64_t seq)
{
    int      k = y->active - 1, rc, i;
    arb_bc_t bc;
    char     err[160];

    /* "To count: observe the order of the players' moves and of Sota
     * activation; use separate physical cards of the base deck" (§34.11
     * items 2 and 3): a card let stand against either makes the Sota
     * count for nothing, as a sequence of no category does. */
    rc = y->sota_rep[k] != 0 && y->ed > 1 ? -1
         : arb_bc_classify(y->mode, y->sota_cards[k], (size_t)y->mode, &bc,
                           err, sizeof(err));
    if (rc == 0) {
        if (add_record(y, &bc, seq) != 0)
            return ARB_ENOMEM;
        y->sota_state[k] = SOTA_DONE;
    } else if (y->void_clear) {
        /* The cards leave play (they stay used) and the Sota is refilled. */
        y->sota_state[k] = SOTA_EMPTY;
        y->sota_n[k] = 0;
        y->sota_rep[k] = 0;
        return 0;
    } else {
        y->sota_state[k] = SOTA_VOID;
    }
    if (++y->active > SOTAS) {
        if (++y->cycle > y->cycles) {
            y->cycle = y->cycles;
            y->active = SOTAS;
            y->ended = END_CYCLES;
            return 0;
        }
        y->active = 1;
        for (i = 0; i < SOTAS; i++) {
            y->sota_state[i] = SOTA_EMPTY;
            y->sota_n[i] = 0;
            y->sota_rep[i] = 0;
        }
    }
    return 0;
}

/* strcmp(verb, "place") == 0 without the call, which every move of a
 * replay made (2% of `replay --db`, 15 of its 2,350 instructions an
 * event).  A byte is read only when the ones before it matched, so
 * nothing past a shorter verb's NUL is. */
static int
is_place(const char *s)
{
    return s[0] == 'p' && s[1] == 'l' && s[2] == 'a' && s[3] == 'c'
           && s[4] == 'e' && s[5] == '\0';
}

static int
yah_apply(void *p, const arb_event_t *ev, int flags, arb_verdict_t *v)
{
    yah_t     *y = p;
    arb_card_t c;
    int        seat, k, want = 0, rc, broke = 0;
    char       err[160], a[16];
    int        force = flags & ARB_APPLY_FORCE;
    arb_verdict_t tmp;

    v->code = 0;
    if (y->ended)
        return arb_verdict(v, ARB_EOVER, "end",
                           "the match is over: %s", end_reason(y));
    if (ev->verb == NULL || !is_place(ev->verb))
        return arb_verdict(v, ARB_EINVAL, "move",
                           "yahchain has no move '%s': the move is "
                           "'place <player> <card> [@sota]'",
                           ev->verb ? ev->verb : "");
    seat = ev->player != NULL ? seat_of(y, ev->player) : -1;
    if (seat < 0)
        return arb_verdict(v, ARB_EINVAL, "move",
                           "player '%s' is not seated in this match",
                           ev->player ? ev->player : "");
    if (ev->nargs < 1 || ev->nargs > 2)
        return arb_verdict(v, ARB_EINVAL, "move",
                           "place takes a card and an optional @sota, got "
                           "%zu arguments", ev->nargs);
    if (arb_card_parse(&c, ev->args[0], strlen(ev->args[0]), err,
                       sizeof(err)) != 0)
        return arb_verdict(v, ARB_EINVAL, "§34.2", "%s", err);
    if (ev->nargs == 2) {
        const char *t = ev->args[1];
        if (*t == '@')
            t++;
        if (parse_int(t, 1, SOTAS, &want) != 0)
            return arb_verdict(v, ARB_EINVAL, "move",
                               "'%s' is not a Sota: write @1..@12",
                               ev->args[1]);
    }
    /* Rule checks; under FORCE the first broken rule is kept for the flag
     * and the card is placed anyway. */
    if (want != 0 && want != y->active) {
        arb_verdict(force ? &tmp : v, ARB_EILLEGAL, "§34.12",
                    "Sota %d is active, not %d: Sotas are activated 1 to 12 "
                    "without skipping", y->active, want);
        broke = 1;
    } else if (seat != y->turn) {
        arb_verdict(force ? &tmp : v, ARB_EILLEGAL, "§34.11.2",
                    "it is %s's turn, not %s's: players place in seat order",
                    y->players[y->turn], y->players[seat]);
        broke = 1;
    } else if (y->used_at[c] != 0) {
        arb_card_format(a, c, ARB_CARD_UNICODE);    /* only for the message */
        arb_verdict(force ? &tmp : v, ARB_EILLEGAL, "§34.11.3",
                    "card %s already played at seq %llu: each physical card "
                    "is used once per match", a,
                    (unsigned long long)y->used_at[c]);
        broke = 1;
    }
    if (broke && !force)
        return v->code;
    if (broke)
        *v = tmp;

    k = y->active - 1;
    if (y->used_at[c] == 0) {
        y->used_at[c] = ev->seq ? ev->seq : 1;
        y->nused++;
    } else {
        y->sota_rep[k]++;           /* let stand: the card is not new */
    }
    /* Let stand out of order (§34.11 item 2; edition 3: until 2026-12-06
     * such a Sota scored, though a card played twice voided it). */
    if (y->ed >= 3 && ((want != 0 && want != y->active) || seat != y->turn))
        y->sota_rep[k]++;
    y->sota_cards[k][y->sota_n[k]++] = c;
    y->sota_state[k] = SOTA_FILLING;
    y->turn = (seat + 1) % y->nplayers;
    if (y->sota_n[k] == y->mode && (rc = judge(y, ev->seq)) != 0)
        return rc;
    if (!y->ended) {
        k = y->active - 1;
        if (ARB_DECK - y->nused < y->mode - y->sota_n[k])
            y->ended = END_DECK;
    }
    return 0;
}

static int
yah_finished(const void *p)
{
    return ((const yah_t *)p)->ended != END_NONE;
}

static void
mode_name(char *out, int mode)
{
    snprintf(out, 16, "YCWS-144/%d", mode);
}

static int
yah_results(const void *p, arb_results_t *out)
{
    const yah_t  *y = p;
    arb_record_t *rec;
    char          cards[5][16], *cv[5], mode[16];
    size_t        i;
    int           j;

    memset(out, 0, sizeof(*out));
    mode_name(mode, y->mode);
    for (i = 0; i < y->nrecords; i++) {
        const yah_record_t *r = &y->records[i];
        for (j = 0; j < y->mode; j++) {
            arb_card_format(cards[j], r->cards[j], ARB_CARD_UNICODE);
            cv[j] = cards[j];
        }
        rec = arb_results_add_record(out, r->seq);
        if (rec == NULL
            || arb_record_str(rec, "match_id", y->match_id)
            || arb_record_str(rec, "edition", y->ed == 1 ? EDITION_1
                                              : y->ed == 2 ? EDITION_2
                                              : EDITION)
            || arb_record_str(rec, "mode", mode)
            || arb_record_int(rec, "sota", r->sota)
            || arb_record_str(rec, "owner", y->players[r->owner])
            || arb_record_int(rec, "cards", y->mode)
            || arb_record_list(rec, "sequence", cv, (size_t)y->mode)
            || arb_record_str(rec, "code", arb_bc_code(y->mode, r->family))
            || arb_record_int(rec, "face_sum", r->face_sum)
            || arb_record_int(rec, "bonus", r->bonus)
            || arb_record_int(rec, "game_points", r->points)
            || arb_record_str(rec, "status", "pending"))
            goto oom;
    }
    for (j = 0; j < y->nplayers; j++)
        if (arb_results_add_total(out, y->players[j], y->totals[j]) != 0)
            goto oom;
    return 0;

oom:
    arb_results_clear(out);
    return ARB_ENOMEM;
}

static void
yah_digest(const void *p, arb_digest_t *d)
{
    const yah_t *y = p;
    size_t       i;
    int          j, k;

    arb_digest_u64(d, (uint64_t)y->mode);
    arb_digest_u64(d, (uint64_t)y->void_clear);
    arb_digest_u64(d, (uint64_t)y->cycles);
    arb_digest_u64(d, (uint64_t)y->nplayers);
    for (k = 0; k < SOTAS; k++)
        arb_digest_u64(d, (uint64_t)y->owner[k]);
    arb_digest_u64(d, (uint64_t)y->cycle);
    arb_digest_u64(d, (uint64_t)y->active);
    arb_digest_u64(d, (uint64_t)y->turn);
    arb_digest_u64(d, (uint64_t)y->ended);
    for (j = 0; j < ARB_DECK; j++)
        arb_digest_u64(d, y->used_at[j]);
    for (k = 0; k < SOTAS; k++) {
        arb_digest_u64(d, (uint64_t)y->sota_state[k]);
        arb_digest_bytes(d, y->sota_cards[k], (size_t)y->sota_n[k]);
    }
    arb_digest_u64(d, y->nrecords);
    for (i = 0; i < y->nrecords; i++) {
        const yah_record_t *r = &y->records[i];
        arb_digest_u64(d, r->seq);
        arb_digest_u64(d, (uint64_t)r->cycle);
        arb_digest_u64(d, (uint64_t)r->sota);
        arb_digest_u64(d, (uint64_t)r->owner);
        arb_digest_bytes(d, r->cards, (size_t)y->mode);
        arb_digest_u64(d, (uint64_t)r->points);
    }
    for (j = 0; j < y->nplayers; j++)
        arb_digest_i64(d, y->totals[j]);
    /* Last and only when set (a `stands` of a card played before), so
     * that every other state keeps the digest it always had. */
    for (k = 0; k < SOTAS && y->sota_rep[k] == 0; k++)
        ;
    if (k < SOTAS && y->ed > 1)
        for (k = 0; k < SOTAS; k++)
            arb_digest_u64(d, (uint64_t)y->sota_rep[k]);
}

static json_t *
yah_describe(const void *p, unsigned seen)
{
    static const char *const states[] = { "empty", "filling", "done",
                                          "void" };
    const yah_t *y = p;
    json_t      *o = json_object(), *sotas = json_array(), *so, *cards;
    char         mode[16], c[16];
    int          k, j, bad = 0;

    (void)seen;     /* every YAHchain card is on the table: nothing hidden */
    mode_name(mode, y->mode);
    for (k = 0; k < SOTAS; k++) {
        so = json_object();
        cards = json_array();
        for (j = 0; j < y->sota_n[k]; j++) {
            arb_card_format(c, y->sota_cards[k][j], ARB_CARD_UNICODE);
            bad |= arb_json_add(cards, json_string(c));
        }
        bad |= arb_json_set(so, "sota", json_integer(k + 1));
        bad |= arb_json_set(so, "owner",
                            arb_json_string(y->players[y->owner[k]]));
        bad |= arb_json_set(so, "state",
                            json_string(states[y->sota_state[k]]));
        bad |= arb_json_set(so, "cards", cards);
        bad |= arb_json_add(sotas, so);
    }
    bad |= arb_json_set(o, "mode", json_string(mode));
    bad |= arb_json_set(o, "void", json_string(y->void_clear ? "clear"
                                                            : "close"));
    bad |= arb_json_set(o, "cycle", json_integer(y->cycle));
    bad |= arb_json_set(o, "cycles", json_integer(y->cycles));
    bad |= arb_json_set(o, "active_sota", json_integer(y->active));
    bad |= arb_json_set(o, "turn", arb_json_string_or_null(
                            y->ended ? NULL : y->players[y->turn]));
    bad |= arb_json_set(o, "cards_left", json_integer(ARB_DECK - y->nused));
    bad |= arb_json_set(o, "finished", json_boolean(y->ended));
    bad |= arb_json_set(o, "end", arb_json_string(end_reason(y)));
    bad |= arb_json_set(o, "sotas", sotas);
    return bad ? (json_decref(o), NULL) : o;
}

static const char *const move_verbs[] = { "place", NULL };

const arb_rules_t arb_rules_yahchain = {
    .game = "yahchain",
    .verbs = move_verbs,
    .edition = EDITION,
    .create = yah_create,
    .destroy = yah_destroy,
    .clone = yah_clone,
    .apply = yah_apply,
    .finished = yah_finished,
    .results = yah_results,
    .digest = yah_digest,
    .describe = yah_describe,
    .narration = &arb__yahchain_narration,   /* yahchain_narrate.c */
};
