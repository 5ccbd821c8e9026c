/*
 * standings.c - standings by a tournament's rule (core/standings.h).
 */
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/json.h"
#include "core/standings.h"

int
arb_standings_rule_parse(const char *s)
{
    if (s != NULL && strcmp(s, "gp") == 0)
        return ARB_STANDINGS_GP;
    if (s != NULL && strcmp(s, "mp") == 0)
        return ARB_STANDINGS_MP;
    return -1;
}

const char *
arb_standings_rule_name(int rule)
{
    return rule == ARB_STANDINGS_MP ? "mp" : "gp";
}

const char *
arb_result_name(int result)
{
    static const char *const names[] = { "loss", "draw", "win" };

    return result >= 0 && result <= ARB_RESULT_WIN ? names[result] : "?";
}

void
arb_standings_clear(arb_standings_t *s)
{
    size_t i;

    if (s == NULL)
        return;
    for (i = 0; i < s->n; i++) {
        free(s->lines[i].player);
        free(s->lines[i].entries);
    }
    free(s->lines);
    memset(s, 0, sizeof(*s));
}

/* The match total of `name`, 0 when the match has none for it. */
static int64_t
total_of(const arb_results_t *r, const char *name)
{
    size_t i;

    for (i = 0; r != NULL && i < r->ntotals; i++)
        if (strcmp(r->totals[i].name, name) == 0)
            return r->totals[i].points;
    return 0;
}

/* Whose total seat j of match m is credited with: its team's in a team
 * game, else its own. */
static const char *
credited(const arb_standings_match_t *m, size_t j)
{
    return m->teams != NULL ? m->teams[j] : m->players[j];
}

/* 1 when seat j's side (its team's seats in a team game) forfeited. */
static int
side_forfeits(const arb_standings_match_t *m, size_t j)
{
    size_t k;

    for (k = 0; k < m->nplayers; k++)
        if ((m->forfeit & (1u << k))
            && strcmp(credited(m, k), credited(m, j)) == 0)
            return 1;
    return 0;
}

/* The result of seat j at match m (a strictly highest total wins, a
 * shared highest draws; in a team game, among the teams) and its total in
 * *gp.  A side that forfeited loses with 0; the others of a forfeited
 * table win with 0, or, when its match was played to its end, keep their
 * totals and are ranked by them among themselves. */
static int
result_of(const arb_standings_match_t *m, size_t j, int64_t *gp)
{
    int64_t max = INT64_MIN, t;
    size_t  k, i, atmax = 0;

    if (m->forfeit != 0 && (side_forfeits(m, j) || !m->played)) {
        *gp = 0;
        return side_forfeits(m, j) ? ARB_RESULT_LOSS : ARB_RESULT_WIN;
    }

    for (k = 0; k < m->nplayers; k++) {
        for (i = 0; i < k; i++)         /* each team once */
            if (strcmp(credited(m, i), credited(m, k)) == 0)
                break;
        if (i < k || (m->forfeit != 0 && side_forfeits(m, k)))
            continue;
        t = total_of(m->res, credited(m, k));
        atmax = t > max ? 1 : t == max ? atmax + 1 : atmax;
        max = t > max ? t : max;
    }
    *gp = total_of(m->res, credited(m, j));
    return *gp < max ? ARB_RESULT_LOSS
         : atmax > 1 ? ARB_RESULT_DRAW : ARB_RESULT_WIN;
}

static arb_standing_t *
line_of(arb_standings_t *s, const char *player)
{
    arb_standing_t *nl;
    size_t          i;

    for (i = 0; i < s->n; i++)
        if (strcmp(s->lines[i].player, player) == 0)
            return &s->lines[i];
    nl = realloc(s->lines, (s->n + 1) * sizeof(*nl));
    if (nl == NULL)
        return NULL;
    s->lines = nl;
    memset(&nl[s->n], 0, sizeof(*nl));
    nl[s->n].player = strdup(player);
    if (nl[s->n].player == NULL)
        return NULL;
    return &s->lines[s->n++];
}

/* The ranking keys, best first; the name only breaks what is left. */
static int
cmp_keys(const arb_standing_t *a, const arb_standing_t *b, int rule)
{
    int64_t ka[4], kb[4];
    int     i;

    if (rule == ARB_STANDINGS_MP) {
        ka[0] = a->mp; ka[1] = a->gp; ka[2] = a->wins; ka[3] = a->best;
        kb[0] = b->mp; kb[1] = b->gp; kb[2] = b->wins; kb[3] = b->best;
    } else {
        ka[0] = a->gp; ka[1] = a->wins; ka[2] = a->best; ka[3] = a->mp;
        kb[0] = b->gp; kb[1] = b->wins; kb[2] = b->best; kb[3] = b->mp;
    }
    for (i = 0; i < 4; i++)
        if (ka[i] != kb[i])
            return ka[i] > kb[i] ? -1 : 1;
    return 0;
}

/* qsort has no context argument; one per thread, because bundles are
 * verified a match per thread (core/ledger/bundle_verify.c). */
static _Thread_local int sort_rule;

static int
cmp_lines(const void *pa, const void *pb)
{
    const arb_standing_t *a = pa, *b = pb;
    int                   c = cmp_keys(a, b, sort_rule);

    return c != 0 ? c : strcmp(a->player, b->player);
}

int
arb_standings_compute(arb_standings_t *out, const arb_standings_match_t *in,
                      size_t n, int rule)
{
    arb_standing_entry_t *ne;
    arb_standing_t       *l;
    size_t                i, j;

    memset(out, 0, sizeof(*out));
    out->rule = rule;
    for (i = 0; i < n; i++) {
        for (j = 0; j < in[i].nplayers; j++) {
            l = line_of(out, in[i].players[j]);
            if (l == NULL)
                goto oom;
            if (!in[i].counted)
                continue;
            ne = realloc(l->entries, (l->nentries + 1) * sizeof(*ne));
            if (ne == NULL)
                goto oom;
            l->entries = ne;
            ne = &l->entries[l->nentries++];
            ne->m = i;
            ne->result = result_of(&in[i], j, &ne->gp);
            l->gp += ne->gp;
            l->mp += ne->result;        /* win 2, draw 1, loss 0 */
            if (l->nentries == 1 || ne->gp > l->best)
                l->best = ne->gp;
            l->wins += ne->result == ARB_RESULT_WIN;
            l->draws += ne->result == ARB_RESULT_DRAW;
            l->losses += ne->result == ARB_RESULT_LOSS;
        }
    }
    sort_rule = rule;
    if (out->n > 1)
        qsort(out->lines, out->n, sizeof(*out->lines), cmp_lines);
    for (i = 0; i < out->n; i++)
        out->lines[i].rank = i > 0 && cmp_keys(&out->lines[i - 1],
                                               &out->lines[i], rule) == 0
                           ? out->lines[i - 1].rank : i + 1;
    return 0;

oom:
    arb_standings_clear(out);
    return ARB_ENOMEM;
}

void
arb_standings_withdrawn(arb_standings_t *s, const char *player,
                        uint64_t round, uint64_t seq)
{
    size_t i;

    for (i = 0; player != NULL && i < s->n; i++)
        if (strcmp(s->lines[i].player, player) == 0) {
            s->lines[i].wd_seq = seq;
            s->lines[i].wd_round = round;
        }
}

static int64_t
points_of(const arb_standings_t *s, const arb_standing_t *l)
{
    return s->rule == ARB_STANDINGS_MP ? l->mp : l->gp;
}

void
arb_standings_csv(arb_buf_t *b, const arb_standings_t *s,
                  const arb_standings_match_t *in)
{
    size_t i, j;

    arb_buf_puts(b, "rank,player,points,gp,mp,wins,draws,losses,played,"
                    "matches\n");
    for (i = 0; i < s->n; i++) {
        const arb_standing_t *l = &s->lines[i];
        arb_buf_printf(b, "%llu,%s,%lld,%lld,%lld,%u,%u,%u,%zu,",
                       (unsigned long long)l->rank, l->player,
                       (long long)points_of(s, l), (long long)l->gp,
                       (long long)l->mp, l->wins, l->draws, l->losses,
                       l->nentries);
        for (j = 0; j < l->nentries; j++) {
            const arb_standings_match_t *m = &in[l->entries[j].m];
            /* A forfeit is traced to the tournament's act; one whose
             * game was played, to the match too (the others' points) */
            arb_buf_printf(b, "%s%s@%llu", j ? ";" : "",
                           m->forfeit ? m->tournament : m->match,
                           (unsigned long long)(m->forfeit ? m->forfeit_seq
                                                           : m->seq));
            if (m->forfeit && m->played)
                arb_buf_printf(b, ";%s@%llu", m->match,
                               (unsigned long long)m->seq);
        }
        arb_buf_putc(b, '\n');
    }
}

void
arb_standings_json(arb_buf_t *b, const char *tournament,
                   const arb_standings_t *s, const arb_standings_match_t *in,
                   size_t n)
{
    json_t *o, *lines, *uncounted, *problems;
    size_t  i, j;
    int     bad = 0;

    o = json_object();
    lines = json_array();
    bad |= arb_json_set(o, "tournament", arb_json_string(tournament));
    bad |= arb_json_set(o, "rule",
                        json_string(arb_standings_rule_name(s->rule)));
    for (i = 0; i < s->n; i++) {
        const arb_standing_t *l = &s->lines[i];
        json_t *line = json_object(), *ms = json_array();

        bad |= arb_json_set(line, "rank", json_integer((json_int_t)l->rank));
        bad |= arb_json_set(line, "player", arb_json_string(l->player));
        bad |= arb_json_set(line, "points",
                            json_integer((json_int_t)points_of(s, l)));
        bad |= arb_json_set(line, "gp", json_integer((json_int_t)l->gp));
        bad |= arb_json_set(line, "mp", json_integer((json_int_t)l->mp));
        bad |= arb_json_set(line, "wins", json_integer(l->wins));
        bad |= arb_json_set(line, "draws", json_integer(l->draws));
        bad |= arb_json_set(line, "losses", json_integer(l->losses));
        bad |= arb_json_set(line, "best", json_integer((json_int_t)l->best));
        for (j = 0; j < l->nentries; j++) {
            const arb_standings_match_t *m = &in[l->entries[j].m];
            json_t *e = json_object();

            bad |= arb_json_set(e, "match", arb_json_string(m->match));
            bad |= arb_json_set(e, "round", json_integer((json_int_t)m->round));
            bad |= arb_json_set(e, "table", arb_json_string(m->table));
            bad |= arb_json_set(e, "seq", json_integer((json_int_t)m->seq));
            bad |= arb_json_set(e, "gp",
                                json_integer((json_int_t)l->entries[j].gp));
            bad |= arb_json_set(e, "result", json_string(
                                arb_result_name(l->entries[j].result)));
            if (m->forfeit != 0)
                bad |= arb_json_set(e, "forfeit_seq",
                                    json_integer((json_int_t)m->forfeit_seq));
            /* A forfeit after the game: its totals ranked the others
             * (match and seq name the game, as the CSV's second entry) */
            if (m->forfeit != 0 && m->played)
                bad |= arb_json_set(e, "played", json_true());
            bad |= arb_json_add(ms, e);
        }
        bad |= arb_json_set(line, "matches", ms);
        if (l->wd_seq != 0) {
            json_t *w = json_object();
            bad |= arb_json_set(w, "after_round",
                                json_integer((json_int_t)l->wd_round));
            bad |= arb_json_set(w, "seq", json_integer((json_int_t)l->wd_seq));
            bad |= arb_json_set(line, "withdrawn", w);
        }
        bad |= arb_json_add(lines, line);
    }
    bad |= arb_json_set(o, "standings", lines);
    uncounted = json_array();
    for (i = 0; i < n; i++)
        if (!in[i].counted)
            bad |= arb_json_add(uncounted, arb_json_string(in[i].match));
    bad |= arb_json_set(o, "uncounted", uncounted);
    for (i = 0, problems = NULL; i < n; i++) {
        json_t *p;

        if (in[i].problem == NULL)
            continue;
        if (problems == NULL)
            problems = json_array();
        p = json_object();
        bad |= arb_json_set(p, "round", json_integer((json_int_t)in[i].round));
        bad |= arb_json_set(p, "table", arb_json_string(in[i].table));
        bad |= arb_json_set(p, "match", arb_json_string(in[i].match));
        bad |= arb_json_set(p, "why", arb_json_string(in[i].problem));
        bad |= arb_json_add(problems, p);
    }
    if (problems != NULL)
        bad |= arb_json_set(o, "problems", problems);
    if (bad)
        b->oom = 1;
    else
        arb_json_put(b, o);
    json_decref(o);
    arb_buf_putc(b, '\n');
}

void
arb_standings_results_csv(arb_buf_t *b, const char *tournament,
                          const arb_standings_match_t *in, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t  i, j, k;
    int64_t gp;
    char    h[2 * ARB_HASH_LEN + 1];

    arb_buf_puts(b, "# arbiter-results-1\n"
                    "tournament,round,table,match,seq,head,player,seat,"
                    "game_points,result\n");
    for (i = 0; i < n; i++) {
        /* A forfeit is no game to rate: left out, as a rating body
         * expects (docs/TOURNAMENT.md). */
        if (!in[i].counted || in[i].forfeit != 0 || in[i].withheld != NULL)
            continue;
        for (k = 0; k < ARB_HASH_LEN; k++) {
            h[2 * k] = in[i].head ? hex[in[i].head[k] >> 4] : '-';
            h[2 * k + 1] = in[i].head ? hex[in[i].head[k] & 15] : '-';
        }
        h[2 * ARB_HASH_LEN] = '\0';
        for (j = 0; j < in[i].nplayers; j++) {
            int r = result_of(&in[i], j, &gp);
            arb_buf_printf(b, "%s,%llu,%s,%s,%llu,%s,%s,%zu,%lld,%s\n",
                           tournament, (unsigned long long)in[i].round,
                           in[i].table, in[i].match,
                           (unsigned long long)in[i].seq, h,
                           in[i].players[j], j + 1, (long long)gp,
                           arb_result_name(r));
        }
    }
    /* Not settled: a rating body must not rate it yet, nor miss that it
     * exists (docs/TOURNAMENT.md). */
    for (i = 0; i < n; i++)
        if (in[i].counted && in[i].forfeit == 0 && in[i].withheld != NULL)
            arb_buf_printf(b, "# withheld: round %llu, table %s, %s at seq "
                           "%llu: %s\n", (unsigned long long)in[i].round,
                           in[i].table, in[i].match,
                           (unsigned long long)in[i].seq, in[i].withheld);
}
