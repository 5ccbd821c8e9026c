/*
 * chan_play.c - judging Chắn moves (seed §3).
 *
 * DESIGN: every move is judged on a scratch copy of the state and
 * committed only when accepted.  Checks come in two tiers: a hard check
 * fails when the move cannot be carried out at all (out of turn, a card
 * not held, cards that do not pair, a hand that does not win); a soft
 * check is a restriction of §3 that an arbiter may overrule with a
 * `stands` ruling (ARB_APPLY_FORCE): the move is then applied and the
 * first broken restriction is kept as the flag.
 *
 * Simultaneous claims (docs/rules/chan.md, "Claims"): the record is
 * sequential, so a claim verb (`take`, `chiu`, `win`) records the claim
 * that was honoured.  Competing claims an arbiter wants on the record are
 * declared first with `declare <player> win|chiu|take`; an honoured claim is
 * refused while a declared one outranks it (a win on a stock card, then
 * Chíu, then a capture; ties in seat order from the gate the card faces).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/text.h"
#include "core/err.h"
#include "core/rules/chan_state.h"

typedef struct judge {
    arb_verdict_t soft;         /* the first broken restriction */
    int           broke;
    int           no_priority;  /* availability tests ignore declarations */
} judge_t;

typedef struct card_name {
    char s[4];
} card_name_t;

/* By value, so several can appear in one printf (C11 6.2.4p8). */
static card_name_t
cn(int face)
{
    card_name_t n;

    arb_chan_card_format(n.s, face);
    return n;
}

static void soft(judge_t *j, const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
soft(judge_t *j, const char *rule, const char *fmt, ...)
{
    va_list ap;
    char    msg[sizeof(j->soft.msg)];

    if (j->broke)
        return;
    j->broke = 1;
    j->soft.code = ARB_EILLEGAL;
    snprintf(j->soft.rule, sizeof(j->soft.rule), "%s", rule);
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    arb_text_clean_into(j->soft.msg, sizeof(j->soft.msg), msg);
}

static uint32_t
bit(int face)
{
    return (uint32_t)1 << face;
}

static const char *
nm(const chan_t *t, int seat)
{
    return t->seat[seat].name;
}

/* Faces of one rank with an odd count in hand: its unpaired cards. */
static int
odd_faces(const unsigned char *hand, int rank)
{
    int k, n = 0;

    for (k = 0; k < 3; k++)
        n += hand[arb_chan_face(rank, k)] % 2;
    return n;
}

/* Unpaired cards of a hand: identical pairs are fixed (never split) and
 * two unpaired cards of one rank make a Cạ in hand. */
static int
unpaired(const unsigned char *hand)
{
    int r, n = hand[ARB_CHAN_CC] % 2;

    for (r = 2; r <= 9; r++)
        n += odd_faces(hand, r) % 2;
    return n;
}

static int
popcount8(unsigned v)
{
    int n = 0;

    for (; v != 0; v >>= 1)
        n += (int)(v & 1);
    return n;
}

static unsigned
suit_bit(int face)
{
    return 1u << arb_chan_suit(face);
}

/* The rank of a Cạ the player has discarded (two suits of one rank),
 * or 0. */
static int
discarded_ca(const chan_seat_t *s)
{
    int r;

    for (r = 2; r <= 9; r++)
        if (popcount8(s->disc_suits[r - 2]) >= 2)
            return r;
    return 0;
}

static void
discard_check(const chan_seat_t *s, int f, judge_t *j)
{
    int r = arb_chan_rank(f);

    if (s->hand[f] == 2 || s->hand[f] == 4)
        soft(j, "§3 no split", "discarding %s breaks %s's identical pair "
             "%s+%s: a triple may give one card, a pair may not",
             cn(f).s, s->name, cn(f).s, cn(f).s);
    if (s->declined & bit(f))
        soft(j, "§3 declined Chắn", "%s passed a Chắn capture of %s, so "
             "%s may no longer be discarded", s->name, cn(f).s, cn(f).s);
    if (f != ARB_CHAN_CC && s->ca_taken
        && (s->disc_suits[r - 2] & ~suit_bit(f)) != 0)
        soft(j, "§3 Cạ discard", "%s has captured a Cạ and already "
             "discarded another suit of rank %d: discarding %s would "
             "discard both cards of a Cạ", s->name, r, cn(f).s);
}

static int
has_legal_discard(const chan_seat_t *s)
{
    judge_t j;
    int     f;

    for (f = 0; f < ARB_CHAN_FACES; f++) {
        if (s->hand[f] == 0)
            continue;
        memset(&j, 0, sizeof(j));
        discard_check(s, f, &j);
        if (!j.broke)
            return 1;
    }
    return 0;
}

/* A face once discarded or played from hand into a Cạ cannot be
 * captured again by that player (seed §3). */
static void
captured_face(const chan_seat_t *s, int f, judge_t *j)
{
    if (s->discarded & bit(f))
        soft(j, "§3 discarded face", "%s discarded %s earlier: a face once "
             "discarded cannot be captured", s->name, cn(f).s);
    else if (s->ca_used & bit(f))
        soft(j, "§3 discarded face", "%s played %s from hand into a Cạ "
             "earlier: that face cannot be captured", s->name, cn(f).s);
}

static int
claim_level(const chan_t *t, int kind)
{
    if (kind == CL_WIN)
        return t->origin == ORG_STOCK ? 1 : 2;
    return kind == CL_CHIU ? 2 : 3;
}

static const char *
claim_name(const chan_t *t, int kind)
{
    if (kind == CL_WIN)
        return t->origin == ORG_STOCK ? "a win" : "a win by Chíu";
    return kind == CL_CHIU ? "a Chíu" : "a capture";
}

static void
priority(const chan_t *t, int p, int kind, judge_t *j)
{
    int mine = claim_level(t, kind), k, q, lq;
    int dp = (p - t->gate + CHAN_SEATS) % CHAN_SEATS;

    if (j->no_priority)
        return;
    for (k = 0; k < CHAN_SEATS; k++) {
        q = (t->gate + k) % CHAN_SEATS;
        if (q == p || t->seat[q].claim == CL_NONE)
            continue;
        lq = claim_level(t, t->seat[q].claim);
        if (lq < mine || (lq == mine && k < dp)) {
            soft(j, "§3 priority", "%s declared %s on %s at seq %llu, which "
                 "comes before %s's %s: a win on a stock card first, then "
                 "Chíu, then captures; ties in seat order from %s's gate",
                 nm(t, q), claim_name(t, t->seat[q].claim), cn(t->table).s,
                 (unsigned long long)t->seat[q].claim_seq, nm(t, p),
                 claim_name(t, kind) + 2, nm(t, t->gate));
            return;
        }
    }
}

static int
take_check(const chan_t *t, int p, int h, judge_t *j, arb_verdict_t *v)
{
    const chan_seat_t *s = &t->seat[p];
    chan_seat_t        after;
    int                c = t->table, r = arb_chan_rank(c);

    if (s->hand[h] == 0)
        return arb_verdict(v, ARB_EILLEGAL, "§3 capture", "%s holds no %s",
                           s->name, cn(h).s);
    if (h != c && (h == ARB_CHAN_CC || c == ARB_CHAN_CC
                   || arb_chan_rank(h) != r))
        return arb_verdict(v, ARB_EILLEGAL, "§1 pairs", "%s and %s do not "
                           "pair: a Chắn is two identical cards, a Cạ two "
                           "cards of one rank in different suits, and Chi "
                           "chi pairs only with Chi chi", cn(h).s, cn(c).s);
    if (s->dead)
        soft(j, "§3 dead hand", "%s is a dead hand: it only draws and can "
             "neither capture nor win", s->name);
    captured_face(s, c, j);
    if (h != c) {
        if (s->hand[c] > 0)
            soft(j, "§3 Chắn first", "%s holds %s: a %s must be captured as "
                 "a Chắn, not as a Cạ with %s", s->name, cn(c).s, cn(c).s,
                 cn(h).s);
        if (s->hand[h] == 2 || s->hand[h] == 4)
            soft(j, "§3 no split", "using %s for a Cạ breaks %s's identical "
                 "pair %s+%s: a triple may give one card, a pair may not",
                 cn(h).s, s->name, cn(h).s, cn(h).s);
        if (s->declined & (bit(h) | bit(c)))
            soft(j, "§3 declined Chắn", "%s passed a Chắn capture of %s, so "
                 "%s may no longer be used in a Cạ", s->name,
                 cn((s->declined & bit(h)) ? h : c).s,
                 cn((s->declined & bit(h)) ? h : c).s);
        if (odd_faces(s->hand, r) >= 2)
            soft(j, "§3 one Cạ per rank", "%s already holds a Cạ of rank %d "
                 "in hand: no Cạ capture in that rank", s->name, r);
        if (unpaired(s->hand) == 1)
            soft(j, "§3 last single", "%s has only one unpaired card left: "
                 "no Cạ capture then", s->name);
        if (discarded_ca(s) != 0)
            soft(j, "§3 Cạ discard", "%s has discarded both cards of a Cạ "
                 "of rank %d: no further Cạ capture", s->name,
                 discarded_ca(s));
    }
    priority(t, p, CL_TAKE, j);
    after = *s;
    after.hand[h]--;
    if (h != c)
        after.ca_taken = 1;
    if (!has_legal_discard(&after))
        soft(j, "§3 legal discard", "after taking %s with %s, %s would have "
             "no legal discard: every card left is in an identical pair or "
             "barred", cn(c).s, cn(h).s, s->name);
    return 0;
}

static int
chiu_check(const chan_t *t, int p, judge_t *j, arb_verdict_t *v)
{
    const chan_seat_t *s = &t->seat[p];
    chan_seat_t        after;
    int                c = t->table;

    if (s->hand[c] < 3)
        return arb_verdict(v, ARB_EILLEGAL, "§3 Chíu", "%s holds %d %s: "
                           "Chíu needs three identical cards in hand",
                           s->name, s->hand[c], cn(c).s);
    if (t->origin == ORG_DISCARD && t->from == p)
        return arb_verdict(v, ARB_EILLEGAL, "§3 Chíu", "%s discarded %s "
                           "and cannot claim it back", s->name, cn(c).s);
    if (s->dead)
        soft(j, "§3 dead hand", "%s is a dead hand: it only draws and can "
             "neither capture nor win", s->name);
    if (!(t->readings & CHAN_RD_BAR_TAKE))
        captured_face(s, c, j);
    priority(t, p, CL_CHIU, j);
    after = *s;
    after.hand[c] -= 3;
    if (!has_legal_discard(&after))
        soft(j, "§3 legal discard", "after a Chíu of %s, %s would have no "
             "legal discard", cn(c).s, s->name);
    return 0;
}

static void
seat_layout(const chan_t *t, const chan_seat_t *s, arb_chan_layout_t *l)
{
    memset(l, 0, sizeof(*l));
    l->rules = t->readings & (ARB_CHAN_R_TOM_LITERAL | ARB_CHAN_R_EACH
                              | ARB_CHAN_R_SPLIT_EXPOSED);
    l->ngroups = s->ngroups;
    memcpy(l->groups, s->groups, sizeof(l->groups));
    memcpy(l->concealed, s->hand, sizeof(l->concealed));
}

static int
win_check(const chan_t *t, int p, judge_t *j, arb_verdict_t *v,
          arb_chan_layout_t *l, arb_chan_score_t *sc)
{
    const chan_seat_t *s = &t->seat[p];
    char               why[240];
    int                c = t->table, rc;

    seat_layout(t, s, l);
    if (t->phase == PH_OPEN) {
        if (p != t->dealer)
            return arb_verdict(v, ARB_EILLEGAL, "§3 Thiên ù", "only the "
                               "dealer (%s) can win before the first "
                               "discard, with Thiên ù", nm(t, t->dealer));
        l->win_face = -1;
        l->won = ARB_CHAN_WON_HEAVEN;
    } else {
        if (t->origin == ORG_STOCK) {
            l->won = t->from == p ? ARB_CHAN_WON_SELF : ARB_CHAN_WON_STOCK;
        } else {
            if (t->from == p)
                return arb_verdict(v, ARB_EILLEGAL, "§3 win on stock",
                                   "%s discarded %s and cannot win on it",
                                   s->name, cn(c).s);
            if (s->hand[c] != 3)
                return arb_verdict(v, ARB_EILLEGAL, "§3 win on stock",
                                   "a discard never wins: %s is %s's "
                                   "discard and %s does not hold three %s "
                                   "to win by Chíu", cn(c).s, nm(t, t->from),
                                   s->name, cn(c).s);
            l->won = ARB_CHAN_WON_CHIU;
        }
        /* Hard: a dead hand holds twenty cards, a win would make 21. */
        if (s->dead)
            return arb_verdict(v, ARB_EILLEGAL, "§3 dead hand", "%s is a "
                               "dead hand: it only draws and can neither "
                               "capture nor win", s->name);
        if (!(t->readings & CHAN_RD_BAR_TAKE))
            captured_face(s, c, j);
        priority(t, p, CL_WIN, j);
        l->win_face = c;
        l->concealed[c]++;
    }
    /* A face whose Chắn capture the winner declined goes into no Cạ of
     * the winning hand either (edition 4; seed §3: «Відмова від
     * доступного ідентичного взяття запобігає … використання її в Cạ»).
     * Judged as the capture rule is: a hand that wins only with such a
     * Cạ breaks it, and an arbiter may let it stand. */
    if (!(t->readings & CHAN_RD_DECLINED_WIN))
        l->no_ca = s->declined;
    rc = arb_chan_evaluate(l, sc, why, sizeof(why));
    if (rc == 1 && l->no_ca != 0) {
        arb_chan_layout_t free_ = *l;
        char              why2[240];

        free_.no_ca = 0;
        if (arb_chan_evaluate(&free_, sc, why2, sizeof(why2)) == 0) {
            const arb_chan_pair_t *q = NULL;
            char                   pair[8];
            int                    i, f = -1;

            for (i = 0; i < sc->pairing.n && f < 0; i++) {
                q = &sc->pairing.pair[i];
                if (q->a != q->b && !q->exposed
                    && (l->no_ca & (bit(q->a) | bit(q->b))))
                    f = (l->no_ca & bit(q->a)) ? q->a : q->b;
            }
            if (f >= 0)
                soft(j, "§3 declined Chắn", "%s passed a Chắn capture of "
                     "%s, so %s may no longer be used in a Cạ, and the hand "
                     "wins only with %s", s->name, cn(f).s, cn(f).s,
                     arb_chan_pair_format(pair, q));
            *l = free_;
            rc = 0;
        }
    }
    if (rc != 0 && t->phase == PH_OPEN)
        return arb_verdict(v, ARB_EILLEGAL, "§1 winning hand", "%s's twenty "
                           "cards are not a winning hand: %s", s->name, why);
    if (rc != 0)
        return arb_verdict(v, ARB_EILLEGAL, "§1 winning hand", "%s's cards "
                           "with %s are not a winning hand: %s", s->name,
                           cn(c).s, why);
    return 0;
}

static void
expect(const chan_t *t, char *out, size_t n)
{
    const char *whose;
    char        what[120];

    switch (t->phase) {
    case PH_OPEN:
        snprintf(out, n, "%s, the dealer, opens with a discard (or "
                 "Thiên ù)", nm(t, t->dealer));
        return;
    case PH_DISCARD:
        snprintf(out, n, "%s must discard", nm(t, t->actor));
        return;
    case PH_DRAW:
        snprintf(out, n, "%s passed %s and must flip the next stock card",
                 nm(t, t->actor), cn(t->table).s);
        return;
    case PH_OFFER:
        whose = nm(t, t->from);
        if (t->origin == ORG_DISCARD)
            snprintf(what, sizeof(what), "%s's discard", whose);
        else if (t->from == t->gate)
            snprintf(what, sizeof(what), "the stock card %s flipped", whose);
        else
            snprintf(what, sizeof(what), "the stock card %s flipped and "
                     "passed on", whose);
        snprintf(out, n, "%s is to take or pass %s (%s)", nm(t, t->gate),
                 cn(t->table).s, what);
        return;
    }
    snprintf(out, n, "the hand is over");
}

static int
not_your_move(const chan_t *t, int p, arb_verdict_t *v)
{
    char e[200];

    expect(t, e, sizeof(e));
    return arb_verdict(v, ARB_EILLEGAL, "§3 turn", "not %s's move: %s",
                       nm(t, p), e);
}

static int
table_live(const chan_t *t)
{
    return t->phase == PH_OFFER || t->phase == PH_DRAW;
}

static void
clear_claims(chan_t *t)
{
    int k;

    for (k = 0; k < CHAN_SEATS; k++) {
        t->seat[k].claim = CL_NONE;
        t->seat[k].claim_seq = 0;
    }
}

static int
parse_card(const char *arg, int *face, arb_verdict_t *v)
{
    char err[160];

    if (arb_chan_card_parse(face, arg, strlen(arg), err, sizeof(err)) != 0)
        return arb_verdict(v, ARB_EINVAL, "§2 cards", "%s", err);
    return 0;
}

/* The optional card argument of take/chiu/win: it must be on the table. */
static int
check_table_card(const chan_t *t, const char *arg, arb_verdict_t *v)
{
    int f, rc;

    if (arg == NULL)
        return 0;
    if ((rc = parse_card(arg, &f, v)) != 0)
        return rc;
    if (!table_live(t))
        return arb_verdict(v, ARB_EILLEGAL, "§3 turn", "no card is on the "
                           "table");
    if (f != t->table)
        return arb_verdict(v, ARB_EILLEGAL, "§3 capture", "the card on the "
                           "table is %s, not %s", cn(t->table).s, cn(f).s);
    return 0;
}

/* The gate player declines the table card.  Passing up a Chắn capture it
 * could have made bars that face from its discards and Cạ (seed §3). */
static void
decline(chan_t *t, int p)
{
    judge_t       j;
    arb_verdict_t v;
    chan_seat_t  *s = &t->seat[p];

    t->passed |= 1u << p;
    if (s->hand[t->table] == 0)
        return;
    memset(&j, 0, sizeof(j));
    j.no_priority = 1;
    if (take_check(t, p, t->table, &j, &v) == 0 && !j.broke)
        s->declined |= bit(t->table);
}

static void
end_hand(chan_t *t, int how, uint64_t seq)
{
    t->ended = how;
    t->end_seq = seq ? seq : 1;
    t->phase = PH_OVER;
    t->table = -1;
    clear_claims(t);
}

static int
do_discard(chan_t *t, int p, const arb_event_t *ev, judge_t *j,
           arb_verdict_t *v)
{
    chan_seat_t *s = &t->seat[p];
    int          f, rc;

    if (ev->nargs != 1)
        return arb_verdict(v, ARB_EINVAL, "move", "discard takes one card: "
                           "discard <player> <card>");
    if ((rc = parse_card(ev->args[0], &f, v)) != 0)
        return rc;
    if (!((t->phase == PH_OPEN && p == t->dealer)
          || (t->phase == PH_DISCARD && p == t->actor)))
        return not_your_move(t, p, v);
    if (s->hand[f] == 0)
        return arb_verdict(v, ARB_EILLEGAL, "§3 discard", "%s holds no %s",
                           s->name, cn(f).s);
    discard_check(s, f, j);

    s->hand[f]--;
    s->discarded |= bit(f);
    if (f != ARB_CHAN_CC)
        s->disc_suits[arb_chan_rank(f) - 2] |= (unsigned char)suit_bit(f);
    s->disc[s->ndisc++] = (unsigned char)f;
    t->gate = t->phase == PH_OPEN ? chan_next(p) : t->next_gate;
    t->table = f;
    t->origin = ORG_DISCARD;
    t->from = p;
    t->passed = 0;
    t->phase = PH_OFFER;
    clear_claims(t);
    return 0;
}

static int
do_take(chan_t *t, int p, const arb_event_t *ev, judge_t *j,
        arb_verdict_t *v)
{
    chan_seat_t      *s = &t->seat[p];
    arb_chan_group_t *g;
    int               h, c, rc;

    if (ev->nargs < 1 || ev->nargs > 2)
        return arb_verdict(v, ARB_EINVAL, "move", "take takes the hand card "
                           "and optionally the table card: take <player> "
                           "<hand card> [<table card>]");
    if ((rc = parse_card(ev->args[0], &h, v)) != 0
        || (rc = check_table_card(t, ev->nargs == 2 ? ev->args[1] : NULL,
                                  v)) != 0)
        return rc;
    if (t->phase == PH_DRAW && p == t->actor)
        return arb_verdict(v, ARB_EILLEGAL, "§3 turn", "%s passed %s and "
                           "must flip the next stock card", s->name,
                           cn(t->table).s);
    if (t->phase != PH_OFFER || p != t->gate)
        return not_your_move(t, p, v);
    if ((rc = take_check(t, p, h, j, v)) != 0)
        return rc;

    c = t->table;
    s->hand[h]--;
    g = &s->groups[s->ngroups++];
    g->kind = h == c ? ARB_CHAN_G_CHAN : ARB_CHAN_G_CA;
    g->face[0] = (unsigned char)h;
    g->face[1] = (unsigned char)c;
    if (h != c) {
        s->ca_used |= bit(h);
        s->ca_taken = 1;
    }
    t->table = -1;
    t->phase = PH_DISCARD;
    t->actor = p;
    t->next_gate = chan_next(p);
    clear_claims(t);
    return 0;
}

/* Another seat's claim declared on the live table card: it is recorded
 * (or voided) before the card leaves the table.  Nothing when none. */
static void
others_declared(chan_t *t, int p, judge_t *j, const char *before)
{
    int k;

    if (!table_live(t))
        return;
    for (k = 0; k < CHAN_SEATS; k++)
        if (k != p && t->seat[k].claim != CL_NONE) {
            soft(j, "§3 priority", "%s declared %s on %s at seq %llu: "
                 "record it (or void the declaration) before %s", nm(t, k),
                 claim_name(t, t->seat[k].claim), cn(t->table).s,
                 (unsigned long long)t->seat[k].claim_seq, before);
            return;
        }
}

static int
do_pass(chan_t *t, int p, const arb_event_t *ev, judge_t *j,
        arb_verdict_t *v)
{
    if (ev->nargs != 0)
        return arb_verdict(v, ARB_EINVAL, "move", "pass takes no argument: "
                           "pass <player>");
    if (t->phase == PH_DRAW && p == t->actor)
        return arb_verdict(v, ARB_EILLEGAL, "§3 turn", "%s already passed "
                           "%s and must flip the next stock card", nm(t, p),
                           cn(t->table).s);
    if (t->phase != PH_OFFER || p != t->gate)
        return not_your_move(t, p, v);
    if (t->seat[p].claim != CL_NONE)
        soft(j, "§3 priority", "%s declared %s on %s at seq %llu and cannot "
             "pass it: record the claim or void the declaration", nm(t, p),
             claim_name(t, t->seat[p].claim), cn(t->table).s,
             (unsigned long long)t->seat[p].claim_seq);

    /* The last card's pass ends the hand: "if the stock runs out without
     * a win" (§4), so a win or Chíu declared on it comes first. */
    if (t->stock_pos == CHAN_STOCK && !(t->origin == ORG_STOCK
                                        && t->from == p)
        && !(t->readings & CHAN_RD_LAST_PASS))
        others_declared(t, p, j, "the hand ends as a draw");
    t->seat[p].claim = CL_NONE;         /* passing withdraws it (ruling) */
    decline(t, p);
    if (t->origin == ORG_STOCK && t->from == p) {
        t->gate = chan_next(p);         /* passed on to the next player */
        return 0;
    }
    t->phase = PH_DRAW;
    t->actor = p;
    if (t->stock_pos == CHAN_STOCK)
        end_hand(t, END_DRAW, ev->seq);
    return 0;
}

/* The dealer's first twenty cards win as Thiên ù (seed §3: such a dealer
 * is not a dead hand). */
static int
holds_heaven(const chan_t *t, const chan_seat_t *s)
{
    arb_chan_layout_t l;
    arb_chan_score_t  sc;
    char              why[240];

    seat_layout(t, s, &l);
    l.win_face = -1;
    l.won = ARB_CHAN_WON_HEAVEN;
    return arb_chan_evaluate(&l, &sc, why, sizeof(why)) == 0;
}

static int
do_draw(chan_t *t, int p, const arb_event_t *ev, judge_t *j,
        arb_verdict_t *v)
{
    chan_seat_t *s = &t->seat[p];
    int          f = -1, rc;

    if (ev->nargs > 1)
        return arb_verdict(v, ARB_EINVAL, "move", "draw takes at most the "
                           "card flipped: draw <player> [<card>]");
    if (ev->nargs == 1 && (rc = parse_card(ev->args[0], &f, v)) != 0)
        return rc;
    if (t->phase == PH_OPEN) {
        if (p != t->dealer)
            return not_your_move(t, p, v);
        if (has_legal_discard(s))
            soft(j, "§3 dead hand", "%s has a legal opening discard: the "
                 "dealer opens with a discard (or Thiên ù); only a dealer "
                 "without one draws, as a dead hand", s->name);
        else if (!(t->readings & CHAN_RD_DEAD_HEAVEN) && holds_heaven(t, s))
            soft(j, "§3 dead hand", "%s holds a Thiên ù: a dealer with a "
                 "heavenly win is not a dead hand; he declares it with "
                 "'win %s'", s->name, s->name);
    } else if (t->phase == PH_OFFER && p == t->gate) {
        if (t->origin == ORG_STOCK && t->from == p)
            return arb_verdict(v, ARB_EILLEGAL, "§3 turn", "%s flipped %s "
                               "this turn: take it or pass it on", s->name,
                               cn(t->table).s);
        if (t->stock_pos == CHAN_STOCK)
            return arb_verdict(v, ARB_EILLEGAL, "§4 end", "the stock is "
                               "empty: record 'pass %s' and the hand ends "
                               "as a draw", s->name);
        if (s->claim != CL_NONE)
            soft(j, "§3 priority", "%s declared %s on %s at seq %llu and "
                 "cannot pass it: record the claim or void the declaration",
                 s->name, claim_name(t, s->claim), cn(t->table).s,
                 (unsigned long long)s->claim_seq);
    } else if (!(t->phase == PH_DRAW && p == t->actor)) {
        return not_your_move(t, p, v);
    }
    if (f >= 0 && f != t->stock[t->stock_pos])
        return arb_verdict(v, ARB_EILLEGAL, "§2 deal", "%s is not the next "
                           "stock card of this deal", cn(f).s);
    others_declared(t, p, j, "the next stock card");

    if (t->phase == PH_OPEN)
        s->dead = 1;
    else if (t->phase == PH_OFFER)
        decline(t, p);
    t->table = t->stock[t->stock_pos++];
    s->flip[s->nflip++] = (unsigned char)t->table;
    t->origin = ORG_STOCK;
    t->from = p;
    t->gate = p;
    t->passed = 0;
    t->phase = PH_OFFER;
    clear_claims(t);
    return 0;
}

static int
do_chiu(chan_t *t, int p, const arb_event_t *ev, judge_t *j,
        arb_verdict_t *v)
{
    chan_seat_t      *s = &t->seat[p];
    arb_chan_group_t *g;
    int               rc, c;

    if (ev->nargs > 1)
        return arb_verdict(v, ARB_EINVAL, "move", "chiu takes at most the "
                           "table card: chiu <player> [<card>]");
    if ((rc = check_table_card(t, ev->nargs ? ev->args[0] : NULL, v)) != 0)
        return rc;
    if (!table_live(t))
        return arb_verdict(v, ARB_EILLEGAL, "§3 Chíu", "no card is on the "
                           "table to Chíu");
    if (t->passed & (1u << p))
        return arb_verdict(v, ARB_EILLEGAL, "§3 Chíu", "%s passed %s and "
                           "cannot claim it", s->name, cn(t->table).s);
    if ((rc = chiu_check(t, p, j, v)) != 0)
        return rc;

    c = t->table;
    s->hand[c] -= 3;
    g = &s->groups[s->ngroups++];
    g->kind = ARB_CHAN_G_CHIU;
    g->face[0] = g->face[1] = (unsigned char)c;
    /* In turn, play goes on to the next seat; out of turn the discard
     * returns to the interrupted gate (seed §3). */
    t->next_gate = p == t->gate && t->phase == PH_OFFER ? chan_next(p)
                                                         : t->gate;
    t->table = -1;
    t->phase = PH_DISCARD;
    t->actor = p;
    clear_claims(t);
    return 0;
}

static int
do_win(chan_t *t, int p, const arb_event_t *ev, judge_t *j,
       arb_verdict_t *v)
{
    arb_chan_layout_t l;
    arb_chan_score_t  sc;
    int               rc, k;

    if (ev->nargs > 1)
        return arb_verdict(v, ARB_EINVAL, "move", "win takes at most the "
                           "winning card: win <player> [<card>]");
    if (t->phase == PH_OPEN) {
        if (ev->nargs == 1)
            return arb_verdict(v, ARB_EINVAL, "move", "Thiên ù has no "
                               "winning card: win <player>");
    } else {
        if ((rc = check_table_card(t, ev->nargs ? ev->args[0] : NULL, v))
            != 0)
            return rc;
        if (!table_live(t))
            return not_your_move(t, p, v);
        if (t->passed & (1u << p))
            return arb_verdict(v, ARB_EILLEGAL, "§3 win on stock", "%s "
                               "passed %s and cannot claim it", nm(t, p),
                               cn(t->table).s);
    }
    if ((rc = win_check(t, p, j, v, &l, &sc)) != 0)
        return rc;

    t->winner = p;
    t->won = l.won;
    t->win_face = l.win_face;
    t->win_from = t->phase == PH_OPEN ? -1 : t->from;
    t->layout = l;
    t->score = sc;
    for (k = 0; k < CHAN_SEATS; k++)
        t->totals[k] = k == p ? 3 * (int64_t)sc.points
                              : -(int64_t)sc.points;
    end_hand(t, END_WIN, ev->seq);
    return 0;
}

/* Could p capture the table card with some hand card, without breaking
 * a restriction?  Otherwise v says why the first candidate (the
 * identical card first) fails. */
static int
claim_take(const chan_t *t, int p, arb_verdict_t *v)
{
    arb_verdict_t first;
    judge_t       tj;
    int           k, h, c = t->table, rc;

    first.code = 0;
    for (k = -1; k < ARB_CHAN_FACES; k++) {
        h = k < 0 ? c : k;
        if ((k >= 0 && h == c) || t->seat[p].hand[h] == 0)
            continue;
        if (h != c && (h == ARB_CHAN_CC || c == ARB_CHAN_CC
                       || arb_chan_rank(h) != arb_chan_rank(c)))
            continue;
        memset(&tj, 0, sizeof(tj));
        tj.no_priority = 1;
        rc = take_check(t, p, h, &tj, v);
        if (rc == 0 && !tj.broke)
            return 0;
        if (first.code == 0)
            first = rc != 0 ? *v : tj.soft;
    }
    if (first.code == 0)
        arb_verdict(&first, ARB_EILLEGAL, "§3 capture", "%s holds no card "
                    "that pairs with %s", nm(t, p), cn(c).s);
    *v = first;
    return v->code;
}

/* A declaration is judged as the claim itself, except that it may be
 * outranked (that is what declaring is for).  A claim the player could
 * not make is refused outright, even under a ruling: nothing would be
 * recorded by it but a mistake. */
static int
do_declare(chan_t *t, int p, const arb_event_t *ev, judge_t *j,
         arb_verdict_t *v)
{
    static const char *const kinds[] = { "", "win", "chiu", "take" };
    arb_chan_layout_t l;
    arb_chan_score_t  sc;
    judge_t           cj;
    int               kind = CL_NONE, k, rc;

    (void)j;
    for (k = CL_WIN; k <= CL_TAKE && ev->nargs == 1; k++)
        if (strcmp(ev->args[0], kinds[k]) == 0)
            kind = k;
    if (kind == CL_NONE)
        return arb_verdict(v, ARB_EINVAL, "move", "declare names win, "
                           "chiu or take: declare <player> win|chiu|take");
    if (!table_live(t))
        return arb_verdict(v, ARB_EILLEGAL, "§3 priority", "no card is on "
                           "the table to declare on");
    if (t->seat[p].claim != CL_NONE)
        return arb_verdict(v, ARB_EILLEGAL, "§3 priority", "%s already "
                           "declared %s at seq %llu", nm(t, p),
                           claim_name(t, t->seat[p].claim),
                           (unsigned long long)t->seat[p].claim_seq);
    if (t->passed & (1u << p))
        return arb_verdict(v, ARB_EILLEGAL, "§3 priority", "%s passed %s "
                           "and cannot claim it", nm(t, p), cn(t->table).s);
    memset(&cj, 0, sizeof(cj));
    cj.no_priority = 1;
    if (kind == CL_WIN)
        rc = win_check(t, p, &cj, v, &l, &sc);
    else if (kind == CL_CHIU)
        rc = chiu_check(t, p, &cj, v);
    else if (t->phase != PH_OFFER || p != t->gate)
        rc = not_your_move(t, p, v);
    else
        rc = claim_take(t, p, v);
    if (rc != 0)
        return rc;
    if (cj.broke) {
        *v = cj.soft;
        return v->code;
    }
    t->seat[p].claim = kind;
    t->seat[p].claim_seq = ev->seq ? ev->seq : 1;
    return 0;
}

static const struct {
    const char *verb;
    int       (*fn)(chan_t *, int, const arb_event_t *, judge_t *,
                    arb_verdict_t *);
} verbs[] = {
    { "discard", do_discard }, { "take", do_take }, { "pass", do_pass },
    { "draw", do_draw }, { "chiu", do_chiu }, { "win", do_win },
    { "declare", do_declare },
};

int
arb__chan_apply(void *st, const arb_event_t *ev, int flags,
                arb_verdict_t *v)
{
    chan_t  *c = st, t;
    judge_t  j;
    size_t   i;
    int      p = -1, k, rc;

    v->code = 0;
    v->rule[0] = v->msg[0] = '\0';
    if (c->ended)
        return arb_verdict(v, ARB_EOVER, "§4 end", "the hand is over: %s",
                           c->ended == END_WIN ? "someone has won"
                           : "the stock ran out (a draw)");
    for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
        if (ev->verb != NULL && strcmp(ev->verb, verbs[i].verb) == 0)
            break;
    if (i == sizeof(verbs) / sizeof(verbs[0]))
        return arb_verdict(v, ARB_EINVAL, "move", "chan has no move '%s': "
                           "moves are discard, take, pass, draw, chiu, win "
                           "and declare", ev->verb ? ev->verb : "");
    for (k = 0; ev->player != NULL && k < CHAN_SEATS; k++)
        if (strcmp(c->seat[k].name, ev->player) == 0)
            p = k;
    if (p < 0)
        return arb_verdict(v, ARB_EINVAL, "move", "player '%s' is not "
                           "seated in this match",
                           ev->player ? ev->player : "");

    t = *c;
    memset(&j, 0, sizeof(j));
    rc = verbs[i].fn(&t, p, ev, &j, v);
    if (rc != 0)
        return rc;
    if (j.broke) {
        *v = j.soft;
        if (!(flags & ARB_APPLY_FORCE))
            return v->code;
    }
    *c = t;
    return 0;
}
