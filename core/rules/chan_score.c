/*
 * chan_score.c - the pairing search and the bonus table of Chắn.
 *
 * DESIGN: the search works rank by rank.  Within one rank, choosing how
 * many identical pairs each of the three faces forms leaves a number of
 * single cards per face, and those singles pair into Cạ in exactly one
 * way (x_VS + x_VW = s_V, ...), so enumerating the identical-pair counts
 * enumerates every pairing of the concealed cards up to the order of
 * copies.  Splitting an identical pair into two Cạ is enumerated too and
 * then refused (seed §1), so the rule is a visible filter, not an
 * accident of the enumeration.  Chi chi pairs only with Chi chi.
 * Integer arithmetic only; the best pairing is the first found with the
 * highest score, and the enumeration order is fixed.
 */
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "core/rules/chan_score.h"

static const arb_chan_bonus_info_t bonuses[ARB_CHAN_B_COUNT] = {
    { "u-chi",       "Ù chì",        3, 1 },
    { "thien-u",     "Thiên ù",      3, 1 },
    { "tom",         "Tôm",          4, 1 },
    { "bach-thu",    "Bạch thủ",     4, 1 },
    { "leo",         "Lèo",          5, 2 },
    { "thien-khai",  "Thiên khai",   5, 2 },
    { "chiu-u",      "Chíu ù",       5, 2 },
    { "bon",         "Bòn",          5, 2 },
    { "bach-dinh",   "Bạch định",    7, 4 },
    { "tam-do",      "Tám đỏ",       8, 5 },
    { "kinh-tu-chi", "Kính tứ chi", 12, 9 },
    { "thap-thanh",  "Thập thành",  12, 9 },
};

const arb_chan_bonus_info_t *
arb_chan_bonus_info(int id)
{
    return id >= 0 && id < ARB_CHAN_B_COUNT ? &bonuses[id] : NULL;
}

char *
arb_chan_pair_format(char *out, const arb_chan_pair_t *p)
{
    char a[4], b[4];

    snprintf(out, 8, "%s+%s", arb_chan_card_format(a, p->a),
             arb_chan_card_format(b, p->b));
    return out;
}

char *
arb_chan_group_format(char *out, const arb_chan_group_t *g)
{
    char a[4], b[4];

    arb_chan_card_format(a, g->face[0]);
    arb_chan_card_format(b, g->face[1]);
    if (g->kind == ARB_CHAN_G_CHIU)
        snprintf(out, 16, "%s+%s+%s+%s", a, a, a, a);
    else
        snprintf(out, 16, "%s+%s", a, b);
    return out;
}

static int
min3(int a, int b, int c)
{
    int m = a < b ? a : b;

    return m < c ? m : c;
}

static void
add_bonus(arb_chan_score_t *s, int id)
{
    if (s->nbonus < ARB_CHAN_BONUS_MAX)
        s->bonus[s->nbonus++] = (unsigned char)id;
}

/* Thiên khai and Bòn: n occurrences count once, or each under the
 * per-occurrence reading. */
static void
once_or_each(arb_chan_score_t *s, const arb_chan_layout_t *l, int id, int n)
{
    if (n > 0 && !(l->rules & ARB_CHAN_R_EACH))
        n = 1;
    while (n-- > 0)
        add_bonus(s, id);
}

/* Main bonus: the highest base, ties to the higher dịch, then the first
 * in table order (seed §4). */
static void
points(arb_chan_score_t *s)
{
    const arb_chan_bonus_info_t *b, *m;
    int                          i, sum = 0;

    s->main = -1;
    if (s->nbonus == 0) {
        s->points = ARB_CHAN_XUONG_POINTS;
        return;
    }
    for (i = 0; i < s->nbonus; i++) {
        b = &bonuses[s->bonus[i]];
        m = s->main < 0 ? NULL : &bonuses[s->bonus[s->main]];
        if (m == NULL || b->base > m->base
            || (b->base == m->base && b->dich > m->dich))
            s->main = i;
    }
    if (s->all_bases) {
        for (i = 0; i < s->nbonus; i++)
            sum += bonuses[s->bonus[i]].base;
    } else {
        for (i = 0; i < s->nbonus; i++)
            sum += i == s->main ? bonuses[s->bonus[i]].base
                                : bonuses[s->bonus[i]].dich;
    }
    s->points = sum;
}

int
arb_chan_pairing_judge(const arb_chan_layout_t *l,
                       const arb_chan_pairing_t *p, arb_chan_score_t *out,
                       char *why, size_t whylen)
{
    int all[ARB_CHAN_FACES], f, i, n, wr, ca_at_win = 0, bon = 0, khai = 0;

    memset(out, 0, sizeof(*out));
    out->pairing = *p;
    memset(all, 0, sizeof(all));
    for (f = 0; f < ARB_CHAN_FACES; f++)
        all[f] = l->concealed[f];
    for (i = 0; i < l->ngroups; i++) {
        n = l->groups[i].kind == ARB_CHAN_G_CHIU ? 4 : 1;
        all[l->groups[i].face[0]] += n;
        if (l->groups[i].kind != ARB_CHAN_G_CHIU)
            all[l->groups[i].face[1]]++;
    }
    wr = l->win_face >= 0 ? arb_chan_rank(l->win_face) : -1;
    for (i = 0; i < p->n; i++) {
        if (p->pair[i].a != p->pair[i].b && !p->pair[i].exposed
            && (l->no_ca & ((1u << p->pair[i].a) | (1u << p->pair[i].b)))) {
            char c[8];
            int  nf = (l->no_ca & (1u << p->pair[i].a)) ? p->pair[i].a
                                                        : p->pair[i].b;

            snprintf(why, whylen, "%s may not go into a Cạ: its Chắn "
                     "capture was declined", arb_chan_card_format(c, nf));
            return 0;
        }
        if (p->pair[i].a == p->pair[i].b) {
            out->chan++;
        } else {
            out->ca++;
            if (arb_chan_rank(p->pair[i].a) == wr)
                ca_at_win = 1;
        }
    }
    for (f = 0; f < ARB_CHAN_FACES; f++)
        if (arb_chan_red(f))
            out->red += all[f];

    if (l->win_face == ARB_CHAN_CC && (out->chan != 6 || out->ca != 4)) {
        snprintf(why, whylen, "Chi chi is the winning card, so the hand "
                 "needs exactly six Chắn and four Cạ; it has %d Chắn and "
                 "%d Cạ", out->chan, out->ca);
        return 0;
    }
    if (out->chan < 6) {
        snprintf(why, whylen, "only %d Chắn: a win needs at least six "
                 "(a Chíu counts as two)", out->chan);
        return 0;
    }

    if (l->won == ARB_CHAN_WON_SELF)
        add_bonus(out, ARB_CHAN_B_U_CHI);
    if (l->won == ARB_CHAN_WON_HEAVEN)
        add_bonus(out, ARB_CHAN_B_THIEN_U);
    n = min3(all[arb_chan_face(3, ARB_CHAN_VAN)],
             all[arb_chan_face(3, (l->rules & ARB_CHAN_R_TOM_LITERAL)
                                  ? ARB_CHAN_VAN2 : ARB_CHAN_SACH)],
             all[arb_chan_face(7, ARB_CHAN_VAN2)]);
    for (i = 0; i < n; i++)
        add_bonus(out, ARB_CHAN_B_TOM);
    if (l->win_face >= 0 && out->chan == 6 && !ca_at_win)
        add_bonus(out, ARB_CHAN_B_BACH_THU);
    n = min3(all[arb_chan_face(9, ARB_CHAN_VAN)],
             all[arb_chan_face(8, ARB_CHAN_SACH)], all[ARB_CHAN_CC]);
    for (i = 0; i < n; i++)
        add_bonus(out, ARB_CHAN_B_LEO);
    for (f = 0; f < ARB_CHAN_FACES; f++)
        if (l->concealed[f] - (f == l->win_face) == 4)
            khai++;
    once_or_each(out, l, ARB_CHAN_B_THIEN_KHAI, khai);
    if (l->win_face >= 0 && l->concealed[l->win_face] == 4)
        add_bonus(out, ARB_CHAN_B_CHIU_U);
    for (i = 0; i < l->ngroups; i++)
        if (l->groups[i].kind == ARB_CHAN_G_CHAN
            && all[l->groups[i].face[0]] == 4)
            bon++;
    once_or_each(out, l, ARB_CHAN_B_BON, bon);
    if (out->red == 0)
        add_bonus(out, ARB_CHAN_B_BACH_DINH);
    if (out->red == 8)
        add_bonus(out, ARB_CHAN_B_TAM_DO);
    if (all[ARB_CHAN_CC] == 4 && out->red == 4)
        add_bonus(out, ARB_CHAN_B_KINH_TU_CHI);
    if (out->chan == ARB_CHAN_PAIRS) {
        add_bonus(out, ARB_CHAN_B_THAP_THANH);
        out->all_bases = 1;
    }
    points(out);
    return 1;
}

typedef struct search {
    const arb_chan_layout_t *l;
    int                      cnt[ARB_CHAN_FACES];
    int                      ex_ca[ARB_CHAN_FACES];  /* copies in exposed Cạ */
    int                      split;  /* a face whose pair only an exposed
                                        Cạ would split, or -1 */
    arb_chan_pairing_t       cur;
    int                      found, any;
    arb_chan_score_t         best;
    char                     why[200];
} search_t;

static void
push(search_t *s, int a, int b, int n)
{
    while (n-- > 0 && s->cur.n < ARB_CHAN_PAIRS) {
        s->cur.pair[s->cur.n].a = (unsigned char)(a < b ? a : b);
        s->cur.pair[s->cur.n].b = (unsigned char)(a < b ? b : a);
        s->cur.pair[s->cur.n].exposed = 0;
        s->cur.n++;
    }
}

static void
complete(search_t *s)
{
    arb_chan_score_t sc;
    char             why[200];

    if (s->cur.n != ARB_CHAN_PAIRS)
        return;
    s->any = 1;
    if (arb_chan_pairing_judge(s->l, &s->cur, &sc, why, sizeof(why))) {
        if (!s->found || sc.points > s->best.points)
            s->best = sc;
        s->found = 1;
    } else if (s->why[0] == '\0') {
        snprintf(s->why, sizeof(s->why), "%s", why);
    }
}

static void
rank_step(search_t *s, int r)
{
    int fv, fs, fw, kv, ks, kw, sv, ss, sw, mark;

    if (r == ARB_CHAN_RANKS) {
        if (s->cnt[ARB_CHAN_CC] % 2 != 0)
            return;
        mark = s->cur.n;
        push(s, ARB_CHAN_CC, ARB_CHAN_CC, s->cnt[ARB_CHAN_CC] / 2);
        complete(s);
        s->cur.n = mark;
        return;
    }
    fv = arb_chan_face(r + 2, ARB_CHAN_VAN);
    fs = arb_chan_face(r + 2, ARB_CHAN_SACH);
    fw = arb_chan_face(r + 2, ARB_CHAN_VAN2);
    for (kv = 0; 2 * kv <= s->cnt[fv]; kv++)
        for (ks = 0; 2 * ks <= s->cnt[fs]; ks++)
            for (kw = 0; 2 * kw <= s->cnt[fw]; kw++) {
                sv = s->cnt[fv] - 2 * kv;
                ss = s->cnt[fs] - 2 * ks;
                sw = s->cnt[fw] - 2 * kw;
                if ((sv + ss + sw) % 2 != 0 || sv > ss + sw
                    || ss > sv + sw || sw > sv + ss)
                    continue;
                /* Seed §1: an identical pair is never split to form Cạ,
                 * so at most one copy of a face may sit in a Cạ - counting
                 * the exposed Cạ too: they are judged by the same rule. */
                if (sv > 1 || ss > 1 || sw > 1)
                    continue;
                if (sv + s->ex_ca[fv] > 1 || ss + s->ex_ca[fs] > 1
                    || sw + s->ex_ca[fw] > 1) {
                    if (s->split < 0)
                        s->split = sv + s->ex_ca[fv] > 1 ? fv
                                   : ss + s->ex_ca[fs] > 1 ? fs : fw;
                    continue;
                }
                mark = s->cur.n;
                push(s, fv, fv, kv);
                push(s, fs, fs, ks);
                push(s, fw, fw, kw);
                push(s, fv, fs, (sv + ss - sw) / 2);
                push(s, fv, fw, (sv + sw - ss) / 2);
                push(s, fs, fw, (ss + sw - sv) / 2);
                rank_step(s, r + 1);
                s->cur.n = mark;
            }
}

static int
check_layout(const arb_chan_layout_t *l, char *why, size_t whylen)
{
    int  all[ARB_CHAN_FACES], f, i, total = 0;
    char a[4], b[4];

    memset(all, 0, sizeof(all));
    if (l->ngroups < 0 || l->ngroups > ARB_CHAN_GROUPS_MAX) {
        snprintf(why, whylen, "%d exposed groups: a hand has at most ten",
                 l->ngroups);
        return ARB_EINVAL;
    }
    for (i = 0; i < l->ngroups; i++) {
        const arb_chan_group_t *g = &l->groups[i];
        if (g->face[0] >= ARB_CHAN_FACES || g->face[1] >= ARB_CHAN_FACES
            || g->kind > ARB_CHAN_G_CHIU) {
            snprintf(why, whylen, "exposed group %d is not a group", i + 1);
            return ARB_EINVAL;
        }
        arb_chan_card_format(a, g->face[0]);
        arb_chan_card_format(b, g->face[1]);
        if (g->kind != ARB_CHAN_G_CA && g->face[0] != g->face[1]) {
            snprintf(why, whylen, "%s+%s is not an identical pair", a, b);
            return ARB_EINVAL;
        }
        if (g->kind == ARB_CHAN_G_CA
            && (g->face[0] == ARB_CHAN_CC || g->face[1] == ARB_CHAN_CC
                || arb_chan_rank(g->face[0]) != arb_chan_rank(g->face[1])
                || g->face[0] == g->face[1])) {
            snprintf(why, whylen, "%s+%s is not a Cạ: a Cạ is two cards of "
                     "one rank in different suits (Chi chi has none)", a, b);
            return ARB_EINVAL;
        }
        if (g->kind == ARB_CHAN_G_CHIU) {
            all[g->face[0]] += 4;
            total += 4;
        } else {
            all[g->face[0]]++;
            all[g->face[1]]++;
            total += 2;
        }
    }
    for (f = 0; f < ARB_CHAN_FACES; f++) {
        all[f] += l->concealed[f];
        total += l->concealed[f];
        if (all[f] > ARB_CHAN_COPIES) {
            snprintf(why, whylen, "%d copies of %s: the deck has four",
                     all[f], arb_chan_card_format(a, f));
            return ARB_EINVAL;
        }
    }
    if (total != ARB_CHAN_HAND) {
        snprintf(why, whylen, "%d cards: a winning hand has twenty", total);
        return ARB_EINVAL;
    }
    if (l->won < ARB_CHAN_WON_HEAVEN || l->won > ARB_CHAN_WON_CHIU) {
        snprintf(why, whylen, "unknown way of winning");
        return ARB_EINVAL;
    }
    if (l->won == ARB_CHAN_WON_HEAVEN) {
        if (l->win_face != -1 || l->ngroups != 0) {
            snprintf(why, whylen, "Thiên ù is the dealer's first twenty "
                     "cards: no winning card and nothing exposed");
            return ARB_EINVAL;
        }
        return 0;
    }
    if (l->win_face < 0 || l->win_face >= ARB_CHAN_FACES
        || l->concealed[l->win_face] == 0) {
        snprintf(why, whylen, "the winning card must be one of the "
                 "concealed cards");
        return ARB_EINVAL;
    }
    if (l->won == ARB_CHAN_WON_CHIU && l->concealed[l->win_face] != 4) {
        arb_chan_card_format(a, l->win_face);
        snprintf(why, whylen, "a discard is won only by Chíu: the hand must "
                 "hold three %s besides the winning %s", a, a);
        return ARB_EINVAL;
    }
    return 0;
}

/* Why no pairing exists: the cards no partner is left for. */
static void
unpaired(const search_t *s, char *why, size_t whylen)
{
    char   a[4];
    size_t o;
    int    r, f, odd, k;

    o = (size_t)snprintf(why, whylen, "the cards do not pair into ten "
                         "pairs:");
    for (r = 0; r < ARB_CHAN_RANKS && o < whylen; r++) {
        odd = 0;
        for (k = 0; k < 3; k++)
            odd += s->cnt[arb_chan_face(r + 2, k)] % 2;
        if (odd % 2 == 0)
            continue;
        for (k = 0; k < 3 && o < whylen; k++) {
            f = arb_chan_face(r + 2, k);
            if (s->cnt[f] % 2)
                o += (size_t)snprintf(why + o, whylen - o, " %s",
                                      arb_chan_card_format(a, f));
        }
    }
    if (s->cnt[ARB_CHAN_CC] % 2 && o < whylen)
        o += (size_t)snprintf(why + o, whylen - o, " CC");
    if (o < whylen)
        snprintf(why + o, whylen - o, " left over (an identical pair is "
                 "never split to form Cạ)");
}

/* Why no pairing exists when the exposed Cạ are at fault: one of them
 * holds a copy of a face whose other copy could only go into a Cạ too. */
static void
split_reason(const search_t *s, char *why, size_t whylen)
{
    char a[4], g[16];
    int  i;

    for (i = 0; i < s->l->ngroups; i++)
        if (s->l->groups[i].kind == ARB_CHAN_G_CA
            && (s->l->groups[i].face[0] == s->split
                || s->l->groups[i].face[1] == s->split))
            break;
    arb_chan_card_format(a, s->split);
    arb_chan_group_format(g, &s->l->groups[i < s->l->ngroups ? i : 0]);
    snprintf(why, whylen, "the exposed Cạ %s takes one %s of an identical "
             "pair %s+%s, and the other %s could only go into a Cạ as well: "
             "an identical pair is never split to form Cạ, exposed or not",
             g, a, a, a, a);
}

int
arb_chan_evaluate(const arb_chan_layout_t *l, arb_chan_score_t *out,
                  char *why, size_t whylen)
{
    search_t s;
    int      i, rc;

    memset(out, 0, sizeof(*out));
    out->main = -1;
    rc = check_layout(l, why, whylen);
    if (rc != 0)
        return rc;
    memset(&s, 0, sizeof(s));
    s.l = l;
    s.split = -1;
    for (i = 0; i < ARB_CHAN_FACES; i++)
        s.cnt[i] = l->concealed[i];
    for (i = 0; i < l->ngroups; i++) {
        const arb_chan_group_t *g = &l->groups[i];
        int                     k, n = g->kind == ARB_CHAN_G_CHIU ? 2 : 1;
        if (g->kind == ARB_CHAN_G_CA
            && !(l->rules & ARB_CHAN_R_SPLIT_EXPOSED)) {
            s.ex_ca[g->face[0]]++;
            s.ex_ca[g->face[1]]++;
        }
        for (k = 0; k < n; k++) {
            arb_chan_pair_t *p = &s.cur.pair[s.cur.n++];
            p->a = g->face[0] < g->face[1] ? g->face[0] : g->face[1];
            p->b = g->face[0] < g->face[1] ? g->face[1] : g->face[0];
            p->exposed = 1;
        }
    }
    rank_step(&s, 0);
    if (s.found) {
        *out = s.best;
        return 0;
    }
    for (i = 0; i < ARB_CHAN_FACES && s.split < 0; i++)
        if (s.ex_ca[i] > 1)
            s.split = i;
    if (!s.any && s.split >= 0)
        split_reason(&s, why, whylen);
    else if (!s.any)
        unpaired(&s, why, whylen);
    else
        snprintf(why, whylen, "%s", s.why);
    return 1;
}
