/*
 * chains_score.c - the chains of a Chains table and their points
 * (docs/rules/chains.md, "Scoring").
 *
 * DESIGN: along a line, each pair of neighbouring cells is a link +1 or -1
 * when both hold cards of one colour whose ranks differ by exactly one
 * (Ace 14 only, so K-A links and A-2 does not), else 0.  A chain is a
 * maximal run of equal non-zero links.  So a line that turns (9-10-J-10)
 * gives two chains, 9-10-J and J-10, sharing the turning card: a split
 * that needs no choice of where to cut and reads the same from either end.
 * In legal play a turn cannot happen (Diversity makes the two cards around
 * the turn the same physical card), so this only decides typed grids and
 * tables grown by arbiters' rulings.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/json.h"
#include "core/rules/chains.h"

static int
link_step(arb_chains_card_t a, arb_chains_card_t b)
{
    int d;

    if (a == ARB_CHAINS_NOCARD || b == ARB_CHAINS_NOCARD
        || arb_chains_red(a) != arb_chains_red(b))
        return 0;
    d = arb_chains_rank(b) - arb_chains_rank(a);
    return d == 1 || d == -1 ? d : 0;
}

static int
add_chain(arb_chains_score_t *s, size_t *cap, int team, int row, int col,
          int len, int points)
{
    arb_chains_chain_t *nc;

    if (s->n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;
        nc = realloc(s->chains, ncap * sizeof(*nc));
        if (nc == NULL)
            return ARB_ENOMEM;
        s->chains = nc;
        *cap = ncap;
    }
    nc = &s->chains[s->n++];
    nc->team = team;
    nc->row = row;
    nc->col = col;
    nc->len = len;
    nc->points = points;
    s->total[team] += points;
    return 0;
}

/* Scores one line of n cells: line[k] is the cell k along it. */
static int
score_line(arb_chains_score_t *s, size_t *cap, const arb_chains_card_t *line,
           size_t stride, int n, int team, int fixed, int variant)
{
    int i = 0, j, step, len, pts, k;

    while (i < n - 1) {
        step = link_step(line[(size_t)i * stride],
                         line[(size_t)(i + 1) * stride]);
        if (step == 0) {
            i++;
            continue;
        }
        j = i + 1;
        while (j < n - 1 && link_step(line[(size_t)j * stride],
                                      line[(size_t)(j + 1) * stride]) == step)
            j++;
        len = j - i + 1;
        pts = len * len;
        if (variant == ARB_CHAINS_SUM)
            for (k = i, pts = 0; k <= j; k++)
                pts += arb_chains_rank(line[(size_t)k * stride]);
        if (add_chain(s, cap, team, team == ARB_CHAINS_LONG ? fixed : i,
                      team == ARB_CHAINS_LONG ? i : fixed, len, pts) != 0)
            return ARB_ENOMEM;
        i = j;      /* the next chain may start on this chain's last card */
    }
    return 0;
}

int
arb_chains_score(arb_chains_score_t *out, const arb_chains_card_t *cells,
                 int rows, int cols, int variant)
{
    size_t cap = 0;
    int    r, c;

    memset(out, 0, sizeof(*out));
    for (r = 0; r < rows; r++)
        if (score_line(out, &cap, cells + (size_t)r * (size_t)cols, 1, cols,
                       ARB_CHAINS_LONG, r, variant) != 0)
            goto oom;
    for (c = 0; c < cols; c++)
        if (score_line(out, &cap, cells + c, (size_t)cols, rows,
                       ARB_CHAINS_SHORT, c, variant) != 0)
            goto oom;
    return 0;

oom:
    arb_chains_score_clear(out);
    return ARB_ENOMEM;
}

void
arb_chains_score_clear(arb_chains_score_t *s)
{
    if (s == NULL)
        return;
    free(s->chains);
    memset(s, 0, sizeof(*s));
}

int
arb_chains_grid_parse(arb_chains_card_t *cells, int *rows, int *cols,
                      const char *text, size_t len, char *err, size_t errlen)
{
    const char *p = text, *end = text + len, *eol, *w;
    unsigned    line = 0;
    int         r = 0, c, width = -1, seen_r[ARB_CHAINS_CARDS];
    int         seen_c[ARB_CHAINS_CARDS];
    char        msg[160];
    arb_chains_card_t card;

    memset(seen_r, 0xff, sizeof(seen_r));
    memset(seen_c, 0, sizeof(seen_c));
    for (; p < end; p = eol + 1) {
        line++;
        eol = memchr(p, '\n', (size_t)(end - p));
        if (eol == NULL)
            eol = end;
        while (p < eol && (*p == ' ' || *p == '\t' || *p == '\r'))
            p++;
        if (p == eol || *p == '#')
            continue;
        if (r == ARB_CHAINS_GRID_MAX) {
            snprintf(err, errlen, "line %u: more than %d rows: a Chains "
                     "table is at most %d×%d", line, ARB_CHAINS_GRID_MAX,
                     ARB_CHAINS_GRID_MAX, ARB_CHAINS_GRID_MAX);
            return ARB_EINVAL;
        }
        for (c = 0; p < eol; c++) {
            for (w = p; p < eol && *p != ' ' && *p != '\t' && *p != '\r';)
                p++;
            if (c == ARB_CHAINS_GRID_MAX) {
                snprintf(err, errlen, "line %u: more than %d cells: a "
                         "Chains table is at most %d×%d", line,
                         ARB_CHAINS_GRID_MAX, ARB_CHAINS_GRID_MAX,
                         ARB_CHAINS_GRID_MAX);
                return ARB_EINVAL;
            }
            card = ARB_CHAINS_NOCARD;
            if (!((p - w == 2 && memcmp(w, "--", 2) == 0)
                  || (p - w == 1 && *w == '.'))) {
                if (arb_chains_card_parse(&card, w, (size_t)(p - w), msg,
                                          sizeof(msg)) != 0) {
                    snprintf(err, errlen, "line %u, cell %d: %s", line,
                             c + 1, msg);
                    return ARB_EINVAL;
                }
                if (seen_r[card] >= 0) {
                    char a[8];
                    arb_chains_card_format(a, card);
                    snprintf(err, errlen, "line %u, cell %d: %s is already "
                             "in row %d, cell %d: the deck has one of each "
                             "card", line, c + 1, a, seen_r[card] + 1,
                             seen_c[card] + 1);
                    return ARB_EINVAL;
                }
                seen_r[card] = r;
                seen_c[card] = c;
            }
            cells[r * ARB_CHAINS_GRID_MAX + c] = card;
            while (p < eol && (*p == ' ' || *p == '\t' || *p == '\r'))
                p++;
        }
        if (width < 0)
            width = c;
        else if (c != width) {
            snprintf(err, errlen, "line %u: row %d has %d cells, but the "
                     "first row has %d: write -- for an empty cell", line,
                     r + 1, c, width);
            return ARB_EINVAL;
        }
        r++;
        if (eol == end)
            break;
    }
    if (r == 0) {
        snprintf(err, errlen, "line %u: no rows: write the table one row a "
                 "line, cells separated by blanks, -- for an empty cell",
                 line);
        return ARB_EINVAL;
    }
    /* repack from stride GRID_MAX to stride width */
    *rows = r;
    *cols = width;
    for (r = 0; r < *rows; r++)
        memmove(cells + r * width, cells + r * ARB_CHAINS_GRID_MAX,
                (size_t)width * sizeof(*cells));
    return 0;
}

/* The grid cell of card k (in reading order) of chain ch. */
static void
chain_cells(const arb_chains_chain_t *ch, int k, int *gr, int *gc)
{
    *gr = ch->row + (ch->team == ARB_CHAINS_SHORT ? k : 0);
    *gc = ch->col + (ch->team == ARB_CHAINS_LONG ? k : 0);
}

/* The JSON branch of arb_chains_report(). */
static void
report_json(arb_buf_t *b, const arb_chains_card_t *cells, int cols,
            const arb_chains_score_t *s, const arb_chains_names_t *nm,
            int variant)
{
    json_t *o = json_object(), *chains = json_array(), *c, *names, *cards;
    json_t *totals = json_object();
    char    name[16], a[8];
    size_t  i;
    int     k, gr, gc, bad = 0;

    for (i = 0; i < s->n; i++) {
        const arb_chains_chain_t *ch = &s->chains[i];
        c = json_object();
        names = json_array();
        cards = json_array();
        for (k = 0; k < ch->len; k++) {
            chain_cells(ch, k, &gr, &gc);
            arb_chains_names_cell(name, nm, gr, gc);
            bad |= arb_json_add(names, arb_json_string(name));
            arb_chains_card_format(a, cells[gr * cols + gc]);
            bad |= arb_json_add(cards, arb_json_string(a));
        }
        bad |= arb_json_set(c, "team",
                            json_string(arb_chains_team_name(ch->team)));
        bad |= arb_json_set(c, "direction",
                            json_string(arb_chains_direction(ch->team)));
        bad |= arb_json_set(c, "cells", names);
        bad |= arb_json_set(c, "cards", cards);
        bad |= arb_json_set(c, "length", json_integer(ch->len));
        bad |= arb_json_set(c, "points", json_integer(ch->points));
        bad |= arb_json_add(chains, c);
    }
    bad |= arb_json_set(totals, "long",
                        json_integer(s->total[ARB_CHAINS_LONG]));
    bad |= arb_json_set(totals, "short",
                        json_integer(s->total[ARB_CHAINS_SHORT]));
    bad |= arb_json_set(o, "scoring",
                        json_string(arb_chains_variant_name(variant)));
    bad |= arb_json_set(o, "chains", chains);
    bad |= arb_json_set(o, "totals", totals);
    if (bad) {
        json_decref(o);
        b->oom = 1;
        return;
    }
    arb_json_put_new(b, o);
    arb_buf_putc(b, '\n');
}

void
arb_chains_report(arb_buf_t *b, const arb_chains_card_t *cells, int cols,
                  const arb_chains_score_t *s, const arb_chains_names_t *nm,
                  int variant, int json)
{
    char   name[16], a[8];
    size_t i;
    int    k, gr, gc;

    if (json) {
        report_json(b, cells, cols, s, nm, variant);
        return;
    }
    for (i = 0; i < s->n; i++) {
        const arb_chains_chain_t *ch = &s->chains[i];
        arb_buf_printf(b, "%s %s ", arb_chains_team_name(ch->team),
                       arb_chains_direction(ch->team));
        arb_chains_names_cell(name, nm, ch->row, ch->col);
        arb_buf_printf(b, "%s..", name);
        chain_cells(ch, ch->len - 1, &gr, &gc);
        arb_chains_names_cell(name, nm, gr, gc);
        arb_buf_puts(b, name);
        for (k = 0; k < ch->len; k++) {
            chain_cells(ch, k, &gr, &gc);
            arb_chains_card_format(a, cells[gr * cols + gc]);
            arb_buf_printf(b, " %s", a);
        }
        arb_buf_printf(b, " %d\n", ch->points);
    }
    arb_buf_printf(b, "total long %lld\ntotal short %lld\n",
                   (long long)s->total[ARB_CHAINS_LONG],
                   (long long)s->total[ARB_CHAINS_SHORT]);
}
