#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "event.h"

static const char *const kind_names[ARB_EV_KIND_MAX] = {
    "open", "move", "close", "note", "void", "amend", "stands", "claim"
};

const char *
arb_event_kind_name(int kind)
{
    if (kind < 0 || kind >= ARB_EV_KIND_MAX)
        return "unknown";
    return kind_names[kind];
}

int
arb_event_kind_parse(const char *name)
{
    return arb_event_kind_parse_n(name, strlen(name));
}

int
arb_event_kind_parse_n(const char *name, size_t n)
{
    int i;

    if (n == 0)
        return -1;
    for (i = 0; i < ARB_EV_KIND_MAX; i++)
        if (kind_names[i][0] == name[0] && strlen(kind_names[i]) == n
            && memcmp(name, kind_names[i], n) == 0)
            return i;
    return -1;
}

void
arb_strv_free(char **v, size_t n)
{
    size_t i;

    if (v == NULL)
        return;
    for (i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

char **
arb_strv_dup(char *const *v, size_t n)
{
    char **c = calloc(n ? n : 1, sizeof(char *));
    size_t i;

    for (i = 0; c != NULL && i < n; i++)
        if (v[i] != NULL && (c[i] = strdup(v[i])) == NULL) {
            arb_strv_free(c, i);
            c = NULL;
        }
    return c;
}

static int
strv_push(char ***v, size_t *n, const char *s)
{
    char **nv;
    char  *c;

    c = strdup(s);
    if (c == NULL)
        return ARB_ENOMEM;
    nv = realloc(*v, (*n + 1) * sizeof(*nv));
    if (nv == NULL) {
        free(c);
        return ARB_ENOMEM;
    }
    nv[*n] = c;
    *v = nv;
    (*n)++;
    return 0;
}

static int
dup_or_null(char **dst, const char *src)
{
    *dst = NULL;
    if (src == NULL)
        return 0;
    *dst = strdup(src);
    return *dst == NULL ? ARB_ENOMEM : 0;
}

void
arb_setup_clear(arb_setup_t *s)
{
    size_t i;

    if (s == NULL)
        return;
    free(s->game);
    free(s->match_id);
    free(s->edition);
    free(s->engine);
    for (i = 0; i < s->nplayers; i++)
        free(s->players[i].name);
    free(s->players);
    arb_strv_free(s->teams, s->nteams);
    for (i = 0; i < s->noptions; i++) {
        free(s->options[i].key);
        free(s->options[i].value);
    }
    free(s->options);
    arb_strv_free(s->deal.cards, s->deal.ncards);
    free(s->deal.seed);
    memset(s, 0, sizeof(*s));
}

void
arb_event_clear(arb_event_t *e)
{
    if (e == NULL)
        return;
    free(e->actor);
    free(e->client_id);
    free(e->player);
    free(e->verb);
    arb_strv_free(e->args, e->nargs);
    free(e->text);
    if (e->setup != NULL) {
        arb_setup_clear(e->setup);
        free(e->setup);
    }
    memset(e, 0, sizeof(*e));
}

int
arb_setup_copy(arb_setup_t *dst, const arb_setup_t *src)
{
    size_t i;

    memset(dst, 0, sizeof(*dst));
    if (dup_or_null(&dst->game, src->game) != 0
        || dup_or_null(&dst->match_id, src->match_id) != 0
        || dup_or_null(&dst->edition, src->edition) != 0
        || dup_or_null(&dst->engine, src->engine) != 0)
        goto fail;
    for (i = 0; i < src->nteams; i++)
        if (arb_setup_add_team(dst, src->teams[i]) != 0)
            goto fail;
    for (i = 0; i < src->nplayers; i++)
        if (arb_setup_add_player(dst, src->players[i].name,
                                 src->players[i].team) != 0)
            goto fail;
    for (i = 0; i < src->noptions; i++)
        if (arb_setup_set_option(dst, src->options[i].key,
                                 src->options[i].value) != 0)
            goto fail;
    dst->deal.kind = src->deal.kind;
    memcpy(dst->deal.seed_hash, src->deal.seed_hash, ARB_HASH_LEN);
    if (dup_or_null(&dst->deal.seed, src->deal.seed) != 0)
        goto fail;
    for (i = 0; i < src->deal.ncards; i++)
        if (arb_deal_add_card(&dst->deal, src->deal.cards[i]) != 0)
            goto fail;
    return 0;

fail:
    arb_setup_clear(dst);
    return ARB_ENOMEM;
}

int
arb_event_copy(arb_event_t *dst, const arb_event_t *src)
{
    size_t i;

    memset(dst, 0, sizeof(*dst));
    dst->kind = src->kind;
    dst->seq = src->seq;
    dst->time_ms = src->time_ms;
    dst->target = src->target;
    if (dup_or_null(&dst->actor, src->actor) != 0
        || dup_or_null(&dst->client_id, src->client_id) != 0
        || dup_or_null(&dst->player, src->player) != 0
        || dup_or_null(&dst->verb, src->verb) != 0
        || dup_or_null(&dst->text, src->text) != 0)
        goto fail;
    for (i = 0; i < src->nargs; i++)
        if (arb_event_add_arg(dst, src->args[i]) != 0)
            goto fail;
    if (src->setup != NULL) {
        dst->setup = malloc(sizeof(*dst->setup));
        if (dst->setup == NULL
            || arb_setup_copy(dst->setup, src->setup) != 0) {
            free(dst->setup);
            dst->setup = NULL;
            goto fail;
        }
    }
    return 0;

fail:
    arb_event_clear(dst);
    return ARB_ENOMEM;
}

const char *
arb_setup_option(const arb_setup_t *s, const char *key)
{
    size_t i;

    for (i = 0; i < s->noptions; i++)
        if (strcmp(s->options[i].key, key) == 0)
            return s->options[i].value;
    return NULL;
}

int
arb_setup_set_option(arb_setup_t *s, const char *key, const char *value)
{
    arb_option_t *no;
    char         *k, *v;
    size_t        i, at;

    v = strdup(value);
    if (v == NULL)
        return ARB_ENOMEM;
    for (i = 0; i < s->noptions; i++)
        if (strcmp(s->options[i].key, key) == 0) {
            free(s->options[i].value);
            s->options[i].value = v;
            return 0;
        }
    k = strdup(key);
    no = realloc(s->options, (s->noptions + 1) * sizeof(*no));
    if (k == NULL || no == NULL) {
        free(k);
        free(v);
        if (no != NULL)
            s->options = no;
        return ARB_ENOMEM;
    }
    s->options = no;
    /* Sorted order keeps the canonical encoding and digest independent of
     * the order in which a transcript or client listed the options. */
    for (at = 0; at < s->noptions; at++)
        if (strcmp(key, s->options[at].key) < 0)
            break;
    memmove(&s->options[at + 1], &s->options[at],
            (s->noptions - at) * sizeof(*no));
    s->options[at].key = k;
    s->options[at].value = v;
    s->noptions++;
    return 0;
}

int
arb_setup_seat(const arb_setup_t *s, const char *name)
{
    size_t i;

    if (name == NULL)
        return -1;
    for (i = 0; i < s->nplayers; i++)
        if (strcmp(s->players[i].name, name) == 0)
            return (int)i;
    return -1;
}

int
arb_setup_add_player(arb_setup_t *s, const char *name, int team)
{
    arb_player_t *np;
    char         *c;

    c = strdup(name);
    if (c == NULL)
        return ARB_ENOMEM;
    np = realloc(s->players, (s->nplayers + 1) * sizeof(*np));
    if (np == NULL) {
        free(c);
        return ARB_ENOMEM;
    }
    s->players = np;
    np[s->nplayers].name = c;
    np[s->nplayers].team = team;
    s->nplayers++;
    return 0;
}

int
arb_setup_add_team(arb_setup_t *s, const char *name)
{
    return strv_push(&s->teams, &s->nteams, name);
}

int
arb_event_add_arg(arb_event_t *e, const char *arg)
{
    return strv_push(&e->args, &e->nargs, arg);
}

int
arb_deal_add_card(arb_deal_t *d, const char *card)
{
    return strv_push(&d->cards, &d->ncards, card);
}

int
arb_name_valid(const char *s)
{
    size_t n = 0;

    if (s == NULL)
        return 0;
    for (; s[n] != '\0'; n++) {
        unsigned char c = (unsigned char)s[n];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9') || strchr("_.@+-", c) != NULL))
            return 0;
    }
    return n >= 1 && n <= 64;
}
