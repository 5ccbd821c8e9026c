#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"
#include "core/err.h"
#include "core/rules.h"

extern const arb_rules_t arb_rules_yahchain;
extern const arb_rules_t arb_rules_chains;
extern const arb_rules_t arb_rules_tsukurutenten;
extern const arb_rules_t arb_rules_chan;
extern const arb_rules_t arb_rules_tournament;    /* docs/TOURNAMENT.md */

static const arb_rules_t *const all_rules[] = {
    &arb_rules_yahchain,
    &arb_rules_chains,
    &arb_rules_tsukurutenten,
    &arb_rules_chan,
    &arb_rules_tournament,
    NULL
};

const arb_rules_t *const *
arb_rules_all(void)
{
    return all_rules;
}

const arb_rules_t *
arb_rules_find(const char *game)
{
    size_t i;

    if (game == NULL)
        return NULL;
    for (i = 0; all_rules[i] != NULL; i++)
        if (strcmp(all_rules[i]->game, game) == 0)
            return all_rules[i];
    return NULL;
}

void *
arb_rules_memdup(const void *p, size_t n)
{
    void *q = malloc(n ? n : 1);

    if (q != NULL && n != 0)
        memcpy(q, p, n);
    return q;
}

int
arb_verdict(arb_verdict_t *v, int code, const char *rule, const char *fmt,
            ...)
{
    va_list ap;
    char    msg[sizeof(v->msg)];

    v->code = code;
    snprintf(v->rule, sizeof(v->rule), "%s", rule);
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    /* A refusal quotes the move, which a bundle or a store from outside
     * may have filled with anything: shown escaped (core/text.h). */
    arb_text_clean_into(v->msg, sizeof(v->msg), msg);
    return code;
}

static void
field_clear(arb_field_t *f)
{
    size_t i;

    free(f->str);
    for (i = 0; i < f->nlist; i++)
        free(f->list[i]);
    free(f->list);
}

void
arb_results_clear(arb_results_t *r)
{
    size_t i, j;

    if (r == NULL)
        return;
    for (i = 0; i < r->nrecords; i++) {
        for (j = 0; j < r->records[i].nfields; j++)
            field_clear(&r->records[i].fields[j]);
        free(r->records[i].fields);
    }
    free(r->records);
    for (i = 0; i < r->ntotals; i++)
        free(r->totals[i].name);
    free(r->totals);
    memset(r, 0, sizeof(*r));
}

arb_record_t *
arb_results_add_record(arb_results_t *r, uint64_t seq)
{
    arb_record_t *nr;

    nr = realloc(r->records, (r->nrecords + 1) * sizeof(*nr));
    if (nr == NULL)
        return NULL;
    r->records = nr;
    memset(&nr[r->nrecords], 0, sizeof(*nr));
    nr[r->nrecords].seq = seq;
    return &nr[r->nrecords++];
}

static arb_field_t *
field_add(arb_record_t *rec, const char *key, int type)
{
    arb_field_t *nf;

    nf = realloc(rec->fields, (rec->nfields + 1) * sizeof(*nf));
    if (nf == NULL)
        return NULL;
    rec->fields = nf;
    memset(&nf[rec->nfields], 0, sizeof(*nf));
    nf[rec->nfields].key = key;
    nf[rec->nfields].type = type;
    return &nf[rec->nfields++];
}

int
arb_record_int(arb_record_t *rec, const char *key, int64_t v)
{
    arb_field_t *f = field_add(rec, key, ARB_F_INT);

    if (f == NULL)
        return ARB_ENOMEM;
    f->num = v;
    return 0;
}

int
arb_record_str(arb_record_t *rec, const char *key, const char *s)
{
    arb_field_t *f = field_add(rec, key, ARB_F_STR);

    if (f == NULL)
        return ARB_ENOMEM;
    f->str = strdup(s);
    return f->str == NULL ? ARB_ENOMEM : 0;
}

int
arb_record_list(arb_record_t *rec, const char *key, char **v, size_t n)
{
    arb_field_t *f = field_add(rec, key, ARB_F_LIST);
    size_t       i;

    if (f == NULL)
        return ARB_ENOMEM;
    f->list = calloc(n ? n : 1, sizeof(char *));
    if (f->list == NULL)
        return ARB_ENOMEM;
    for (i = 0; i < n; i++) {
        f->list[i] = strdup(v[i]);
        if (f->list[i] == NULL)
            return ARB_ENOMEM;
        f->nlist++;
    }
    return 0;
}

int
arb_results_add_total(arb_results_t *r, const char *name, int64_t pts)
{
    arb_total_t *nt;

    nt = realloc(r->totals, (r->ntotals + 1) * sizeof(*nt));
    if (nt == NULL)
        return ARB_ENOMEM;
    r->totals = nt;
    nt[r->ntotals].name = strdup(name);
    if (nt[r->ntotals].name == NULL)
        return ARB_ENOMEM;
    nt[r->ntotals++].points = pts;
    return 0;
}

const arb_field_t *
arb_record_get(const arb_record_t *rec, const char *key)
{
    size_t i;

    for (i = 0; i < rec->nfields; i++)
        if (strcmp(rec->fields[i].key, key) == 0)
            return &rec->fields[i];
    return NULL;
}
