/*
 * tourn.c - tables and pairing lists (core/tourn.h).
 */
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/event.h"
#include "core/limits.h"
#include "core/text.h"
#include "core/tourn.h"

int
arb_tourn_forfeit_played(const arb_setup_t *s)
{
    return s->edition == NULL
           || (strcmp(s->edition, ARB_TOURN_EDITION_2) != 0
               && strcmp(s->edition, ARB_TOURN_EDITION_1) != 0);
}

size_t
arb_tourn_ntables(const arb_results_t *r)
{
    size_t i;

    for (i = 0; i < r->nrecords; i++)
        if (arb_record_get(&r->records[i], "table") == NULL)
            break;
    return i;
}

void
arb_tourn_table_clear(arb_tourn_table_t *t)
{
    if (t == NULL)
        return;
    free(t->table);
    free(t->match);
    if (t->teams != NULL)
        arb_strv_free(t->teams, t->nplayers);
    arb_strv_free(t->players, t->nplayers);
    memset(t, 0, sizeof(*t));
}

int
arb_tourn_table_copy(arb_tourn_table_t *dst, const arb_tourn_table_t *src)
{
    *dst = *src;
    dst->table = src->table ? strdup(src->table) : NULL;
    dst->match = src->match ? strdup(src->match) : NULL;
    dst->players = arb_strv_dup(src->players, src->nplayers);
    dst->teams = src->teams ? arb_strv_dup(src->teams, src->nplayers)
                            : NULL;
    if ((src->table && dst->table == NULL)
        || (src->match && dst->match == NULL) || dst->players == NULL
        || (src->teams && dst->teams == NULL)) {
        arb_tourn_table_clear(dst);
        return ARB_ENOMEM;
    }
    return 0;
}

/* Splits "name:team" (name) into name and *team (NULL: no team); both
 * malloc'd.  0, ARB_EINVAL (v says why) or ARB_ENOMEM. */
static int
split_team(char *name, char **team, const arb_tourn_table_t *t,
           arb_verdict_t *v)
{
    char *colon = strchr(name, ':');

    *team = NULL;
    if (colon == NULL)
        return 0;
    *colon = '\0';
    if (!arb_name_valid(colon + 1))
        return arb_verdict(v, ARB_EINVAL, "tournament.table", "table %s: "
                           "player %s: team '%s' is not a valid name",
                           t->table, name, colon + 1);
    *team = strdup(colon + 1);
    return *team == NULL ? ARB_ENOMEM : 0;
}

/* Adds team (owned, NULL: none) of the player just added as seat n-1:
 * every seat has a team or none has. */
static int
add_team(arb_tourn_table_t *t, char *team, arb_verdict_t *v)
{
    size_t n = t->nplayers;

    if ((team != NULL) != (t->teams != NULL) && n > 1) {
        free(team);
        return arb_verdict(v, ARB_EINVAL, "tournament.table", "table %s: "
                           "player %s: every player has a team "
                           "(PLAYER:TEAM) or none has", t->table,
                           t->players[n - 1]);
    }
    if (team == NULL)
        return 0;
    if (n == 1
        && (t->teams = calloc(ARB_PLAYERS_MAX, sizeof(char *))) == NULL) {
        free(team);
        return ARB_ENOMEM;
    }
    t->teams[n - 1] = team;
    return 0;
}

/* Splits the players "a,b,c" (or "a:x,b:y") of s[0..len) into t. */
static int
add_players(arb_tourn_table_t *t, const char *s, size_t len, arb_verdict_t *v)
{
    const char *p = s, *end = s + len, *comma;
    char       *name, *team, **np;
    size_t      i;
    int         rc;

    while (p <= end) {
        comma = memchr(p, ',', (size_t)(end - p));
        if (comma == NULL)
            comma = end;
        if (t->nplayers == ARB_PLAYERS_MAX)
            return arb_verdict(v, ARB_EINVAL, "tournament.table", "table %s:"
                               " more than %d players", t->table,
                               ARB_PLAYERS_MAX);
        name = strndup(p, (size_t)(comma - p));
        if (name == NULL)
            return ARB_ENOMEM;
        if ((rc = split_team(name, &team, t, v)) != 0) {
            free(name);
            return rc;
        }
        if (!arb_name_valid(name)) {
            free(team);
            arb_verdict(v, ARB_EINVAL, "tournament.table", "table %s: player"
                        " '%s' is not a valid name", t->table, name);
            free(name);
            return ARB_EINVAL;
        }
        for (i = 0; i < t->nplayers; i++)
            if (strcmp(t->players[i], name) == 0) {
                arb_verdict(v, ARB_EINVAL, "tournament.table", "table %s: "
                            "player %s is seated twice", t->table, name);
                free(name);
                free(team);
                return ARB_EINVAL;
            }
        np = realloc(t->players, (t->nplayers + 1) * sizeof(*np));
        if (np == NULL) {
            free(name);
            free(team);
            return ARB_ENOMEM;
        }
        t->players = np;
        t->players[t->nplayers++] = name;
        if ((rc = add_team(t, team, v)) != 0)
            return rc;
        p = comma + 1;
    }
    return 0;
}

int
arb_tourn_table_parse(arb_tourn_table_t *t, const char *s, arb_verdict_t *v)
{
    const char *c1, *c2;
    int         rc;

    memset(t, 0, sizeof(*t));
    c1 = strchr(s, ':');
    c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (c2 == NULL || c2[1] == '\0')
        return arb_verdict(v, ARB_EINVAL, "tournament.table", "'%.40s' is "
                           "not TABLE:MATCH:PLAYER,...", s);
    t->table = strndup(s, (size_t)(c1 - s));
    t->match = strndup(c1 + 1, (size_t)(c2 - c1 - 1));
    if (t->table == NULL || t->match == NULL) {
        rc = ARB_ENOMEM;
        goto fail;
    }
    if (!arb_name_valid(t->table) || !arb_name_valid(t->match)) {
        rc = arb_verdict(v, ARB_EINVAL, "tournament.table", "table '%.64s' "
                         "or match '%.64s' is not a valid name", t->table,
                         t->match);
        goto fail;
    }
    rc = add_players(t, c2 + 1, strlen(c2 + 1), v);
    if (rc != 0)
        goto fail;
    return 0;

fail:
    arb_tourn_table_clear(t);
    return rc;
}

void
arb_tourn_table_format(arb_buf_t *b, const arb_tourn_table_t *t)
{
    size_t i;

    arb_buf_printf(b, "%s:%s:", t->table, t->match);
    for (i = 0; i < t->nplayers; i++)
        arb_buf_printf(b, "%s%s%s%s", i ? "," : "", t->players[i],
                       t->teams ? ":" : "", t->teams ? t->teams[i] : "");
}

int
arb_tourn_game_setup(arb_setup_t *s, const arb_setup_t *tourn)
{
    const char *game = arb_setup_option(tourn, "game"), *deal;
    size_t      i;

    memset(s, 0, sizeof(*s));
    if (game == NULL)
        return ARB_EINVAL;
    if ((s->game = strdup(game)) == NULL)
        return ARB_ENOMEM;
    deal = arb_setup_option(tourn, "deal");
    if (deal != NULL && strcmp(deal, "seed") == 0) {
        s->deal.kind = ARB_DEAL_SEED;
        if ((s->deal.seed = strdup(ARB_TOURN_SEED_JUDGE)) == NULL) {
            arb_setup_clear(s);
            return ARB_ENOMEM;
        }
    }
    for (i = 0; i < tourn->noptions; i++)
        if (strncmp(tourn->options[i].key, "game.", 5) == 0
            && arb_setup_set_option(s, tourn->options[i].key + 5,
                                    tourn->options[i].value) != 0) {
            arb_setup_clear(s);
            return ARB_ENOMEM;
        }
    return 0;
}

int
arb_tourn_table_setup(arb_setup_t *s, const arb_setup_t *game,
                      const arb_tourn_table_t *tb)
{
    size_t i;
    int    rc, team;

    rc = arb_setup_copy(s, game);
    if (rc == 0 && (s->match_id = strdup(tb->match)) == NULL)
        rc = ARB_ENOMEM;
    for (i = 0; rc == 0 && i < tb->nplayers; i++) {
        team = -1;
        if (tb->teams != NULL) {
            for (team = 0; (size_t)team < s->nteams; team++)
                if (strcmp(s->teams[team], tb->teams[i]) == 0)
                    break;
            if ((size_t)team == s->nteams)
                rc = arb_setup_add_team(s, tb->teams[i]);
        }
        if (rc == 0)
            rc = arb_setup_add_player(s, tb->players[i], team);
    }
    if (rc != 0)
        arb_setup_clear(s);
    return rc;
}

int
arb_tourn_match_id(arb_buf_t *b, const char *tid, uint64_t round,
                   const char *table)
{
    b->len = 0;
    arb_buf_printf(b, "%s-R%llu-T%s", tid, (unsigned long long)round, table);
    if (b->oom)
        return ARB_ENOMEM;
    return b->len > 64 ? ARB_ETOOBIG : 0;
}

void
arb_pairing_clear(arb_pairing_t *p)
{
    size_t i;

    if (p == NULL)
        return;
    for (i = 0; i < p->nrows; i++)
        arb_tourn_table_clear(&p->rows[i].t);
    free(p->rows);
    memset(p, 0, sizeof(*p));
}

/* One data line (no newline, CR stripped) into a new row. */
static int
parse_row(arb_pairing_t *p, const char *s, size_t len, unsigned line,
          arb_buf_t *why)
{
    arb_pairing_row_t *r, *nr;
    arb_verdict_t      v;
    const char        *c1, *c2, *end = s + len;
    char               num[16];
    char              *e;
    size_t             ncap;
    int                rc;

    c1 = memchr(s, ',', len);
    c2 = c1 ? memchr(c1 + 1, ',', (size_t)(end - c1 - 1)) : NULL;
    if (c2 == NULL || c2 + 1 >= end) {
        arb_buf_printf(why, "line %u: want round,table,player[,player...]",
                       line);
        return ARB_EINVAL;
    }
    if (p->nrows == ARB_TOURN_ROWS_MAX) {
        arb_buf_printf(why, "line %u: more than %d tables", line,
                       ARB_TOURN_ROWS_MAX);
        return ARB_ETOOBIG;
    }
    /* Doubling: a list of ARB_TOURN_ROWS_MAX rows costs a dozen copies,
     * not one per row. */
    if (p->nrows == p->caprows) {
        ncap = p->caprows ? 2 * p->caprows : 16;
        nr = realloc(p->rows, ncap * sizeof(*nr));
        if (nr == NULL)
            return ARB_ENOMEM;
        p->rows = nr;
        p->caprows = ncap;
    }
    r = &p->rows[p->nrows];
    memset(r, 0, sizeof(*r));
    r->line = line;
    if ((size_t)(c1 - s) == 0 || (size_t)(c1 - s) >= sizeof(num)) {
        arb_buf_printf(why, "line %u: round: want a number from 1 to "
                       "999999", line);
        return ARB_EINVAL;
    }
    memcpy(num, s, (size_t)(c1 - s));
    num[c1 - s] = '\0';
    r->round = strtoull(num, &e, 10);
    if (*e != '\0' || num[0] < '1' || num[0] > '9' || r->round > 999999) {
        arb_buf_printf(why, "line %u: round '%s': want a number from 1 to "
                       "999999", line, num);
        return ARB_EINVAL;
    }
    r->t.table = strndup(c1 + 1, (size_t)(c2 - c1 - 1));
    if (r->t.table == NULL)
        return ARB_ENOMEM;
    if (!arb_name_valid(r->t.table)) {
        arb_buf_printf(why, "line %u: table '%.64s' is not a valid name "
                       "(A-Z a-z 0-9 _ . @ + -)", line, r->t.table);
        arb_tourn_table_clear(&r->t);
        return ARB_EINVAL;
    }
    rc = add_players(&r->t, c2 + 1, (size_t)(end - c2 - 1), &v);
    if (rc != 0) {
        if (rc != ARB_ENOMEM)
            arb_buf_printf(why, "line %u: %s", line, v.msg);
        arb_tourn_table_clear(&r->t);
        return rc;
    }
    p->nrows++;
    return 0;
}

/* A table twice in a round, or a player at two tables of it: the
 * round's rules refuse both, but only the file knows the lines, which is
 * what a director mends.  0, or ARB_EINVAL naming both lines. */
static int
clash(const arb_pairing_t *p, arb_buf_t *why)
{
    const arb_pairing_row_t *a, *b;
    size_t                   i, j, k, l;

    for (i = 0; i < p->nrows; i++)
        for (j = 0, a = &p->rows[i]; j < i; j++) {
            b = &p->rows[j];
            if (a->round != b->round)
                continue;
            if (strcmp(a->t.table, b->t.table) == 0) {
                arb_buf_printf(why, "line %u: table %s of round %llu again "
                               "(line %u)", a->line, a->t.table,
                               (unsigned long long)a->round, b->line);
                return ARB_EINVAL;
            }
            for (k = 0; k < a->t.nplayers; k++)
                for (l = 0; l < b->t.nplayers; l++)
                    if (strcmp(a->t.players[k], b->t.players[l]) == 0) {
                        arb_buf_printf(why, "line %u: %s plays at table %s "
                                       "(line %u) and at table %s of round "
                                       "%llu", a->line, a->t.players[k],
                                       b->t.table, b->line, a->t.table,
                                       (unsigned long long)a->round);
                        return ARB_EINVAL;
                    }
        }
    return 0;
}

int
arb_pairing_parse(arb_pairing_t *p, const char *text, size_t len,
                  arb_buf_t *why)
{
    const char *s = text, *end = text + len, *nl;
    size_t      n, keep, i;
    unsigned    line = 0;
    int         rc, head = 0;

    memset(p, 0, sizeof(*p));
    /* A spreadsheet's "CSV UTF-8" starts with a byte order mark, which
     * says nothing here (and shown in a message it is invisible). */
    if (len >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0)
        s += 3;
    while (s < end) {
        nl = memchr(s, '\n', (size_t)(end - s));
        n = nl ? (size_t)(nl - s) : (size_t)(end - s);
        line++;
        if (n > 0 && s[n - 1] == '\r')
            n--;
        /* Names only, which are printable: what is not (a NUL too) is
         * named by its column, never echoed (core/text.h). */
        keep = why->len;
        arb_buf_printf(why, "line %u: ", line);
        if ((rc = arb_text_line_check(s, n, 0, why)) != 0)
            goto fail;
        why->len = keep;
        for (i = 0; i < n && s[i] == ' '; i++)
            ;
        /* Blank lines and comments anywhere; the header, once, before
         * the first table (a comment may come before it). */
        if (i < n && s[0] != '#') {
            if (n >= 6 && strncmp(s, "round,", 6) == 0
                && (head || p->nrows > 0)) {
                arb_buf_printf(why, "line %u: a header line (round,...) "
                               "comes once, before the tables", line);
                rc = ARB_EINVAL;
                goto fail;
            }
            if (n >= 6 && strncmp(s, "round,", 6) == 0)
                head = 1;
            else if ((rc = parse_row(p, s, n, line, why)) != 0)
                goto fail;
        }
        s = nl ? nl + 1 : end;
    }
    if (p->nrows == 0) {
        arb_buf_puts(why, "no tables: want lines round,table,player...");
        rc = ARB_EINVAL;
        goto fail;
    }
    if ((rc = clash(p, why)) != 0)
        goto fail;
    return 0;

fail:
    arb_pairing_clear(p);
    return rc;
}
