#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/rules/tsuku_hand.h"

static int
chip_qcmp(const void *a, const void *b)
{
    return arb_tsuku_chip_cmp(a, b);
}

static int
set_cmp(const arb_tsuku_set_t *a, const arb_tsuku_set_t *b)
{
    char sa[ARB_TSUKU_SET_TEXT], sb[ARB_TSUKU_SET_TEXT];

    arb_tsuku_set_format(sa, a);
    arb_tsuku_set_format(sb, b);
    return strcmp(sa, sb);
}

/* Appends " word" (no space first) to text, dropping what does not fit. */
static void
append(char *text, size_t cap, const char *word)
{
    size_t len = strlen(text);

    if (len + (len > 0) + strlen(word) + 1 > cap)
        return;
    if (len > 0)
        text[len++] = ' ';
    strcpy(text + len, word);
}

void
arb_tsuku_arr_canon(arb_tsuku_arr_t *a)
{
    arb_tsuku_set_t t;
    char            buf[ARB_TSUKU_SET_TEXT];
    int             i;

    if (a->nsets - a->nopen == 2
        && set_cmp(&a->sets[a->nopen], &a->sets[a->nopen + 1]) > 0) {
        t = a->sets[a->nopen];
        a->sets[a->nopen] = a->sets[a->nopen + 1];
        a->sets[a->nopen + 1] = t;
    }
    qsort(a->singles, (size_t)a->nsingles, sizeof(a->singles[0]), chip_qcmp);
    a->value = 0;
    a->text[0] = '\0';
    for (i = 0; i < a->nsets; i++) {
        a->value += a->sets[i].value;
        if (i < a->nopen)
            continue;
        arb_tsuku_set_format(buf, &a->sets[i]);
        append(a->text, sizeof(a->text), buf);
    }
    for (i = 0; i < a->nsingles; i++) {
        a->value += arb_tsuku_kind_value(a->singles[i].kind);
        arb_tsuku_chip_format(buf, a->singles[i]);
        append(a->text, sizeof(a->text), buf);
    }
}

void
arb_tsuku_arr_chips(const arb_tsuku_arr_t *a,
                    arb_tsuku_chip_t out[ARB_TSUKU_FULL])
{
    int i, j, n = 0;

    for (i = 0; i < a->nsets; i++)
        for (j = 0; j < 3 && n < ARB_TSUKU_FULL; j++)
            out[n++] = a->sets[i].c[j];
    for (i = 0; i < a->nsingles && n < ARB_TSUKU_FULL; i++)
        out[n++] = a->singles[i];
    qsort(out, (size_t)n, sizeof(out[0]), chip_qcmp);
}

/* Takes one chip of c's kind out of left[]; a sentence when none is left. */
static int
take_chip(int left[ARB_TSUKU_KINDS], arb_tsuku_chip_t c, const char *word,
          char *why, size_t whylen)
{
    char name[8];

    if (left[c.kind] > 0) {
        left[c.kind]--;
        return 0;
    }
    c.as = ARB_TSUKU_ANY;
    arb_tsuku_chip_format(name, c);
    if (strcmp(name, word) == 0)
        snprintf(why, whylen, "the hand holds no %s to show", name);
    else
        snprintf(why, whylen, "the hand holds no %s to show for %s", name,
                 word);
    return ARB_EILLEGAL;
}

static int
parse_set(arb_tsuku_set_t *s, const char *word, int left[ARB_TSUKU_KINDS],
          char *why, size_t whylen)
{
    arb_tsuku_chip_t c[3];
    const char      *p = word, *plus;
    char             err[160];
    int              i, rc;

    for (i = 0; i < 3; i++) {
        plus = strchr(p, '+');
        if ((i < 2) != (plus != NULL)) {
            snprintf(why, whylen, "'%s' is not a set: a set is three chips "
                     "joined by '+', e.g. B1+B2+B3", word);
            return ARB_EINVAL;
        }
        rc = arb_tsuku_chip_parse(&c[i], p,
                                  plus ? (size_t)(plus - p) : strlen(p), 1,
                                  err, sizeof(err));
        if (rc != 0) {
            snprintf(why, whylen, "%s", err);
            return rc;
        }
        if (plus != NULL)
            p = plus + 1;
    }
    for (i = 0; i < 3; i++)
        if ((rc = take_chip(left, c[i], word, why, whylen)) != 0)
            return rc;
    return arb_tsuku_set_make(s, c, why, whylen);
}

int
arb_tsuku_arr_parse(arb_tsuku_arr_t *a, const arb_tsuku_set_t *open,
                    int nopen, const int counts[ARB_TSUKU_KINDS],
                    char *const *words, size_t nwords, char *why,
                    size_t whylen)
{
    int              left[ARB_TSUKU_KINDS], k, j, rc;
    arb_tsuku_chip_t c;
    char             err[160], name[8];
    size_t           i;

    memset(a, 0, sizeof(*a));
    memcpy(left, counts, sizeof(left));
    for (j = 0; j < nopen; j++)
        a->sets[j] = open[j];
    a->nopen = a->nsets = nopen;
    for (i = 0; i < nwords; i++) {
        if (strchr(words[i], '+') != NULL) {
            if (a->nsets == ARB_TSUKU_SETS_MAX) {
                snprintf(why, whylen, "'%s' would be a third set: eight "
                         "chips hold at most two sets", words[i]);
                return ARB_EILLEGAL;
            }
            rc = parse_set(&a->sets[a->nsets], words[i], left, why, whylen);
            if (rc != 0)
                return rc;
            a->nsets++;
            continue;
        }
        rc = arb_tsuku_chip_parse(&c, words[i], strlen(words[i]), 1, err,
                                  sizeof(err));
        if (rc != 0) {
            snprintf(why, whylen, "%s", err);
            return rc;
        }
        if ((rc = take_chip(left, c, words[i], why, whylen)) != 0)
            return rc;
        if (c.as == ARB_TSUKU_ANY) {
            arb_tsuku_chip_format(name, c);
            snprintf(why, whylen, "%s outside a set must play as a colour: "
                     "write %sb or %sr", name, name, name);
            return ARB_EILLEGAL;
        }
        a->singles[a->nsingles++] = c;
    }
    for (k = 0; k < ARB_TSUKU_KINDS; k++) {
        for (j = 0; j < left[k]; j++) {
            c = arb_tsuku_chip_of(k);
            if (c.as == ARB_TSUKU_ANY) {
                arb_tsuku_chip_format(name, c);
                snprintf(why, whylen, "%s is in no set and has no colour: "
                         "write %sb or %sr among the singles", name, name,
                         name);
                return ARB_EILLEGAL;
            }
            if (a->nsingles == ARB_TSUKU_FULL) {
                snprintf(why, whylen, "the hand has more than %d chips",
                         ARB_TSUKU_FULL);
                return ARB_EINVAL;
            }
            a->singles[a->nsingles++] = c;
        }
    }
    arb_tsuku_arr_canon(a);
    return 0;
}

/* The search's growing result list. */
typedef struct found {
    arb_tsuku_arr_t *v;
    size_t           n, cap;
    int              oom;
} found_t;

static void
found_add(found_t *f, const arb_tsuku_arr_t *a)
{
    arb_tsuku_arr_t *nv;

    if (f->n == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 16;
        nv = realloc(f->v, cap * sizeof(*nv));
        if (nv == NULL) {
            f->oom = 1;
            return;
        }
        f->v = nv;
        f->cap = cap;
    }
    f->v[f->n++] = *a;
}

static int
text_qcmp(const void *a, const void *b)
{
    return strcmp(((const arb_tsuku_arr_t *)a)->text,
                  ((const arb_tsuku_arr_t *)b)->text);
}

/* Tries one split of chips[0..n) (grp[i]: 0 single, 1 or 2 a set) under
 * every colouring of its purple chips. */
static void
try_split(found_t *f, const arb_tsuku_arr_t *base,
          const arb_tsuku_chip_t *chips, int n, const int *grp, int nsets,
          int target)
{
    arb_tsuku_chip_t c[ARB_TSUKU_FULL], in[ARB_TSUKU_SETS_MAX][3];
    arb_tsuku_arr_t  a;
    int              purple[ARB_TSUKU_FULL], np = 0, i, g, m, fill[2];
    unsigned         mask;

    for (i = 0; i < n; i++)
        if (arb_tsuku_kind_colour(chips[i].kind) == ARB_TSUKU_PURPLE)
            purple[np++] = i;
    for (mask = 0; mask < (1u << np); mask++) {
        memcpy(c, chips, (size_t)n * sizeof(c[0]));
        for (i = 0; i < np; i++)
            c[purple[i]].as = (mask >> i) & 1 ? ARB_TSUKU_RED
                                              : ARB_TSUKU_BLUE;
        a = *base;
        fill[0] = fill[1] = 0;
        for (i = 0; i < n; i++) {
            g = grp[i];
            if (g == 0)
                a.singles[a.nsingles++] = c[i];
            else
                in[g - 1][fill[g - 1]++] = c[i];
        }
        for (m = 0; m < nsets; m++) {
            if (arb_tsuku_set_make(&a.sets[a.nsets], in[m], NULL, 0) != 0)
                break;
            a.nsets++;
        }
        if (m < nsets)
            continue;
        arb_tsuku_arr_canon(&a);
        if (a.value == target)
            found_add(f, &a);
    }
}

int
arb_tsuku_arr_search(arb_tsuku_arr_t **out, size_t *n,
                     const arb_tsuku_set_t *open, int nopen,
                     const int counts[ARB_TSUKU_KINDS], int target)
{
    arb_tsuku_chip_t chips[ARB_TSUKU_FULL];
    arb_tsuku_arr_t  base;
    found_t          f;
    int              m = 0, k, j, grp[ARB_TSUKU_FULL];
    int              a, b, c, d, e, g, room;
    size_t           i, w;

    *out = NULL;
    *n = 0;
    memset(&f, 0, sizeof(f));
    memset(&base, 0, sizeof(base));
    for (j = 0; j < nopen; j++)
        base.sets[j] = open[j];
    base.nopen = base.nsets = nopen;
    for (k = 0; k < ARB_TSUKU_KINDS; k++)
        for (j = 0; j < counts[k] && m < ARB_TSUKU_FULL; j++)
            chips[m++] = arb_tsuku_chip_of(k);
    room = ARB_TSUKU_SETS_MAX - nopen;

    memset(grp, 0, sizeof(grp));
    try_split(&f, &base, chips, m, grp, 0, target);
    for (a = 0; room >= 1 && a < m; a++)
        for (b = a + 1; b < m; b++)
            for (c = b + 1; c < m; c++) {
                memset(grp, 0, sizeof(grp));
                grp[a] = grp[b] = grp[c] = 1;
                try_split(&f, &base, chips, m, grp, 1, target);
                if (room < 2)
                    continue;
                /* The second set's lowest position is above the first
                 * set's, so each pair of sets is split once. */
                for (d = a + 1; d < m; d++)
                    for (e = d + 1; e < m; e++)
                        for (g = e + 1; g < m; g++) {
                            if (grp[d] || grp[e] || grp[g])
                                continue;
                            grp[d] = grp[e] = grp[g] = 2;
                            try_split(&f, &base, chips, m, grp, 2, target);
                            grp[d] = grp[e] = grp[g] = 0;
                        }
            }
    if (f.oom) {
        free(f.v);
        return ARB_ENOMEM;
    }
    if (f.n > 0) {
        qsort(f.v, f.n, sizeof(f.v[0]), text_qcmp);
        for (i = 1, w = 1; i < f.n; i++)
            if (strcmp(f.v[i].text, f.v[w - 1].text) != 0)
                f.v[w++] = f.v[i];
        f.n = w;
    }
    *out = f.v;
    *n = f.n;
    return 0;
}
