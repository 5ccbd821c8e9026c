/*
 * DESIGN: the pairing is an alignment, not a zip.  Zipping by position
 * would turn one Blockchain left out of a claim into a dozen "wrong field"
 * lines for every record after it; a longest common subsequence over the
 * pairing keys reports exactly the one missing record.  Where two claimed
 * records carry the same key, the one agreeing on more fields pairs, so a
 * stray duplicate is the extra one.  Identical records at both ends are
 * paired before the table is built, so the usual case (a claim that is
 * nearly right) costs a small table or none; a table that would pass
 * ALIGN_CELLS_MAX cells falls back to pairing by position, which stays
 * correct and only reports less precisely.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/claim.h"
#include "core/diff.h"
#include "core/err.h"
#include "core/json.h"

#define ALIGN_CELLS_MAX (4u << 20)
#define EQ_MAX          255u    /* equal fields counted per pair */

static const struct {
    const char *game, *key, *label;
} key_table[] = {
    { "yahchain", "sota", "Sota" },     /* docs/rules/yahchain.md §34.13 */
};

const char *
arb_diff_key(const char *game, const char **label)
{
    size_t i;

    for (i = 0; game != NULL && i < sizeof(key_table) / sizeof(key_table[0]);
         i++)
        if (strcmp(key_table[i].game, game) == 0) {
            if (label != NULL)
                *label = key_table[i].label;
            return key_table[i].key;
        }
    if (label != NULL)
        *label = NULL;
    return NULL;
}

static int
field_eq(const arb_field_t *a, const arb_field_t *b)
{
    size_t i;

    if (a == NULL || b == NULL)
        return a == b;
    if (a->type != b->type)
        return 0;
    switch (a->type) {
    case ARB_F_INT:
        return a->num == b->num;
    case ARB_F_STR:
        return strcmp(a->str, b->str) == 0;
    default:
        if (a->nlist != b->nlist)
            return 0;
        for (i = 0; i < a->nlist; i++)
            if (strcmp(a->list[i], b->list[i]) != 0)
                return 0;
        return 1;
    }
}

static const arb_field_t *
key_of(const arb_diff_t *d, const arb_results_t *r, size_t i)
{
    return d->key != NULL ? arb_record_get(&r->records[i], d->key) : NULL;
}

static int
keys_eq(const arb_diff_t *d, size_t i, size_t j)
{
    return field_eq(key_of(d, d->recorded, i), key_of(d, d->claimed, j));
}

static arb_diff_item_t *
add_item(arb_diff_t *d, int kind)
{
    arb_diff_item_t *ni;

    ni = realloc(d->items, (d->n + 1) * sizeof(*ni));
    if (ni == NULL)
        return NULL;
    d->items = ni;
    memset(&ni[d->n], 0, sizeof(*ni));
    ni[d->n].kind = kind;
    return &ni[d->n++];
}

static int
compare_pair(arb_diff_t *d, size_t i, size_t j)
{
    const arb_record_t *a = &d->recorded->records[i];
    const arb_record_t *b = &d->claimed->records[j];
    const arb_field_t  *f, *g;
    arb_diff_item_t    *it;
    size_t              k;

    d->partner[i] = (long)j;
    for (k = 0; k < a->nfields; k++) {
        f = &a->fields[k];
        if (arb_claim_field_is_verdict(f->key))
            continue;
        g = arb_record_get(b, f->key);
        if (field_eq(f, g))
            continue;
        it = add_item(d, ARB_DIFF_FIELD);
        if (it == NULL)
            return ARB_ENOMEM;
        it->rec = i;
        it->claim = j;
        it->name = f->key;
        it->recorded = f;
        it->claimed = g;
    }
    for (k = 0; k < b->nfields; k++) {
        g = &b->fields[k];
        if (arb_claim_field_is_verdict(g->key)
            || arb_record_get(a, g->key) != NULL)
            continue;
        it = add_item(d, ARB_DIFF_FIELD);
        if (it == NULL)
            return ARB_ENOMEM;
        it->rec = i;
        it->claim = j;
        it->name = g->key;
        it->claimed = g;
    }
    return 0;
}

static int
unpaired(arb_diff_t *d, int kind, size_t idx)
{
    arb_diff_item_t *it = add_item(d, kind);

    if (it == NULL)
        return ARB_ENOMEM;
    if (kind == ARB_DIFF_MISSING)
        it->rec = idx;
    else
        it->claim = idx;
    return 0;
}

/* How many fields two records share with equal values (verdicts not
 * counted), capped so alignment scores cannot overflow. */
static uint32_t
equal_fields(const arb_diff_t *d, size_t i, size_t j)
{
    const arb_record_t *a = &d->recorded->records[i];
    const arb_record_t *b = &d->claimed->records[j];
    uint32_t            n = 0;
    size_t              k;

    for (k = 0; k < a->nfields && n < EQ_MAX; k++)
        if (!arb_claim_field_is_verdict(a->fields[k].key)
            && field_eq(&a->fields[k], arb_record_get(b, a->fields[k].key)))
            n++;
    return n;
}

/* 1 when the two records agree on every field. */
static int
identical(const arb_diff_t *d, size_t i, size_t j)
{
    const arb_record_t *a = &d->recorded->records[i];
    const arb_record_t *b = &d->claimed->records[j];
    size_t              k;

    for (k = 0; k < a->nfields; k++)
        if (!arb_claim_field_is_verdict(a->fields[k].key)
            && !field_eq(&a->fields[k], arb_record_get(b, a->fields[k].key)))
            return 0;
    for (k = 0; k < b->nfields; k++)
        if (!arb_claim_field_is_verdict(b->fields[k].key)
            && arb_record_get(a, b->fields[k].key) == NULL)
            return 0;
    return 1;
}

/* Aligns recorded[i0..i1) with claimed[j0..j1), appending items.  A pair
 * scores K plus its equal fields, K above any sum of equal fields, so the
 * most pairs win first and the most agreeing pairs second. */
static int
align(arb_diff_t *d, size_t i0, size_t i1, size_t j0, size_t j1)
{
    uint32_t *L = NULL, K, w;
    size_t    n = i1 - i0, m = j1 - j0, i, j, cols = m + 1;
    int       rc = 0;

    if (n > 0 && m > 0 && (n + 1) <= ALIGN_CELLS_MAX / (m + 1)) {
        L = calloc((n + 1) * (m + 1), sizeof(*L));
        if (L == NULL)
            return ARB_ENOMEM;
    }
    if (L == NULL) {
        /* Nothing to align against, or too big: by position. */
        for (i = 0; i < n && i < m && rc == 0; i++) {
            if (keys_eq(d, i0 + i, j0 + i))
                rc = compare_pair(d, i0 + i, j0 + i);
            else if ((rc = unpaired(d, ARB_DIFF_MISSING, i0 + i)) == 0)
                rc = unpaired(d, ARB_DIFF_EXTRA, j0 + i);
        }
        for (; i < n && rc == 0; i++)
            rc = unpaired(d, ARB_DIFF_MISSING, i0 + i);
        for (i = n; i < m && rc == 0; i++)
            rc = unpaired(d, ARB_DIFF_EXTRA, j0 + i);
        return rc;
    }
    K = (uint32_t)((n < m ? n : m) + 1) * (EQ_MAX + 1);
#define AT(a, b) L[(a) * cols + (b)]
    /* AT(i, j): the best score of the suffixes from i and j. */
    for (i = n; i-- > 0;)
        for (j = m; j-- > 0;) {
            AT(i, j) = AT(i + 1, j) > AT(i, j + 1) ? AT(i + 1, j)
                                                   : AT(i, j + 1);
            if (keys_eq(d, i0 + i, j0 + j)) {
                w = K + equal_fields(d, i0 + i, j0 + j) + AT(i + 1, j + 1);
                if (w > AT(i, j))
                    AT(i, j) = w;
            }
        }
    i = j = 0;
    while ((i < n || j < m) && rc == 0) {
        if (i < n && j < m && keys_eq(d, i0 + i, j0 + j)
            && AT(i, j) == K + equal_fields(d, i0 + i, j0 + j)
                           + AT(i + 1, j + 1)) {
            rc = compare_pair(d, i0 + i, j0 + j);
            i++, j++;
        } else if (j == m || (i < n && AT(i + 1, j) >= AT(i, j + 1))) {
            rc = unpaired(d, ARB_DIFF_MISSING, i0 + i++);
        } else {
            rc = unpaired(d, ARB_DIFF_EXTRA, j0 + j++);
        }
    }
#undef AT
    free(L);
    return rc;
}

static const arb_total_t *
total_of(const arb_results_t *r, const char *name)
{
    size_t i;

    for (i = 0; i < r->ntotals; i++)
        if (strcmp(r->totals[i].name, name) == 0)
            return &r->totals[i];
    return NULL;
}

static int
compare_totals(arb_diff_t *d)
{
    const arb_results_t *a = d->recorded, *b = d->claimed;
    const arb_total_t   *t;
    arb_diff_item_t     *it;
    size_t               i;

    for (i = 0; i < a->ntotals; i++) {
        t = total_of(b, a->totals[i].name);
        if (t != NULL && t->points == a->totals[i].points)
            continue;
        if ((it = add_item(d, ARB_DIFF_TOTAL)) == NULL)
            return ARB_ENOMEM;
        it->name = a->totals[i].name;
        it->rtotal = &a->totals[i];
        it->ctotal = t;
    }
    for (i = 0; i < b->ntotals; i++) {
        if (total_of(a, b->totals[i].name) != NULL)
            continue;
        if ((it = add_item(d, ARB_DIFF_TOTAL)) == NULL)
            return ARB_ENOMEM;
        it->name = b->totals[i].name;
        it->ctotal = &b->totals[i];
    }
    return 0;
}

void
arb_diff_clear(arb_diff_t *d)
{
    if (d == NULL)
        return;
    free(d->items);
    free(d->partner);
    memset(d, 0, sizeof(*d));
}

int
arb_diff_run(arb_diff_t *d, const char *game, const arb_results_t *recorded,
             const arb_results_t *claimed)
{
    size_t n = recorded->nrecords, m = claimed->nrecords, pre = 0, suf = 0;
    size_t i;
    int    rc = 0;

    memset(d, 0, sizeof(*d));
    d->recorded = recorded;
    d->claimed = claimed;
    d->key = arb_diff_key(game, &d->label);
    d->partner = malloc((n ? n : 1) * sizeof(*d->partner));
    if (d->partner == NULL)
        return ARB_ENOMEM;
    for (i = 0; i < n; i++)
        d->partner[i] = -1;
    while (pre < n && pre < m && identical(d, pre, pre))
        pre++;
    while (suf < n - pre && suf < m - pre
           && identical(d, n - 1 - suf, m - 1 - suf))
        suf++;
    for (i = 0; i < pre && rc == 0; i++)
        rc = compare_pair(d, i, i);
    if (rc == 0)
        rc = align(d, pre, n - suf, pre, m - suf);
    for (i = 0; i < suf && rc == 0; i++)
        rc = compare_pair(d, n - suf + i, m - suf + i);
    if (rc == 0)
        rc = compare_totals(d);
    if (rc != 0)
        arb_diff_clear(d);
    return rc;
}

/* ---- output ------------------------------------------------------------ */

/* A value in JSON notation: 12, "BC-001", ["2♦","3♦"]. */
static void
put_value(arb_buf_t *b, const arb_field_t *f)
{
    arb_json_put_new(b, arb_json_field_value(f));
}

/* The key as a label: "Sota 3" (a list's items joined by blanks). */
static void
put_label(arb_buf_t *b, const arb_diff_t *d, const arb_field_t *k)
{
    size_t i;

    if (k == NULL)
        return;
    arb_buf_printf(b, " (%s ", d->label != NULL ? d->label : d->key);
    if (k->type == ARB_F_INT)
        arb_buf_printf(b, "%" PRId64, k->num);
    else if (k->type == ARB_F_STR)
        arb_buf_puts(b, k->str);
    else
        for (i = 0; i < k->nlist; i++)
            arb_buf_printf(b, "%s%s", i ? " " : "", k->list[i]);
    arb_buf_putc(b, ')');
}

void
arb_diff_line(arb_buf_t *b, const arb_diff_t *d, const arb_diff_item_t *it)
{
    switch (it->kind) {
    case ARB_DIFF_FIELD:
        arb_buf_printf(b, "record %zu", it->rec + 1);
        put_label(b, d, key_of(d, d->recorded, it->rec));
        arb_buf_printf(b, ": %s: ", it->name);
        if (it->claimed != NULL) {
            arb_buf_puts(b, "claimed ");
            put_value(b, it->claimed);
        } else {
            arb_buf_puts(b, "not claimed");
        }
        if (it->recorded != NULL) {
            arb_buf_puts(b, ", recorded ");
            put_value(b, it->recorded);
        } else {
            arb_buf_puts(b, ", not recorded");
        }
        arb_buf_printf(b, ", fixed at seq %" PRIu64,
                       d->recorded->records[it->rec].seq);
        break;
    case ARB_DIFF_MISSING:
        arb_buf_printf(b, "record %zu", it->rec + 1);
        put_label(b, d, key_of(d, d->recorded, it->rec));
        arb_buf_printf(b, ": missing from the claim, fixed at seq %" PRIu64,
                       d->recorded->records[it->rec].seq);
        break;
    case ARB_DIFF_EXTRA:
        arb_buf_printf(b, "claimed record %zu", it->claim + 1);
        put_label(b, d, key_of(d, d->claimed, it->claim));
        arb_buf_puts(b, ": extra: no such record");
        break;
    default:
        arb_buf_printf(b, "total %s: ", it->name);
        if (it->ctotal != NULL)
            arb_buf_printf(b, "claimed %" PRId64, it->ctotal->points);
        else
            arb_buf_puts(b, "not claimed");
        if (it->rtotal != NULL)
            arb_buf_printf(b, ", recorded %" PRId64, it->rtotal->points);
        else
            arb_buf_puts(b, ", not recorded");
    }
}

void
arb_diff_text(arb_buf_t *b, const arb_diff_t *d)
{
    size_t i;

    for (i = 0; i < d->n; i++) {
        arb_diff_line(b, d, &d->items[i]);
        arb_buf_putc(b, '\n');
    }
    if (d->n == 0)
        arb_buf_printf(b, "identical: %zu record%s, %zu total%s\n",
                       d->recorded->nrecords,
                       d->recorded->nrecords == 1 ? "" : "s",
                       d->recorded->ntotals,
                       d->recorded->ntotals == 1 ? "" : "s");
    else
        arb_buf_printf(b, "%zu difference%s\n", d->n, d->n == 1 ? "" : "s");
}

/* A difference's record key: {"sota":3}, or nothing. */
static int
set_key(json_t *o, const arb_diff_t *d, const arb_field_t *k)
{
    json_t *key;

    if (k == NULL)
        return 0;
    key = json_object();
    if (arb_json_set(key, d->key, arb_json_field_value(k)) != 0) {
        json_decref(key);
        return -1;
    }
    return arb_json_set(o, "key", key);
}

static json_t *
opt_value(const arb_field_t *f)
{
    return f != NULL ? arb_json_field_value(f) : json_null();
}

static json_t *
opt_total(const arb_total_t *t)
{
    return t != NULL ? json_integer((json_int_t)t->points) : json_null();
}

static json_t *
counts(size_t recorded, size_t claimed)
{
    json_t *o = json_object();

    if (arb_json_set(o, "recorded", json_integer((json_int_t)recorded)) != 0
        || arb_json_set(o, "claimed", json_integer((json_int_t)claimed)))
        return json_decref(o), NULL;
    return o;
}

static json_t *
item_value(const arb_diff_t *d, const arb_diff_item_t *it)
{
    json_t *o = json_object();
    int     bad = 0;

    switch (it->kind) {
    case ARB_DIFF_FIELD:
        bad |= arb_json_set(o, "type", json_string("field"));
        bad |= arb_json_set(o, "record", json_integer((json_int_t)it->rec + 1));
        bad |= arb_json_set(o, "claimed_record",
                            json_integer((json_int_t)it->claim + 1));
        bad |= set_key(o, d, key_of(d, d->recorded, it->rec));
        bad |= arb_json_set(o, "field", arb_json_string(it->name));
        bad |= arb_json_set(o, "claimed", opt_value(it->claimed));
        bad |= arb_json_set(o, "recorded", opt_value(it->recorded));
        bad |= arb_json_set(o, "seq", json_integer(
                                (json_int_t)d->recorded->records[it->rec].seq));
        break;
    case ARB_DIFF_MISSING:
        bad |= arb_json_set(o, "type", json_string("missing"));
        bad |= arb_json_set(o, "record", json_integer((json_int_t)it->rec + 1));
        bad |= set_key(o, d, key_of(d, d->recorded, it->rec));
        bad |= arb_json_set(o, "seq", json_integer(
                                (json_int_t)d->recorded->records[it->rec].seq));
        break;
    case ARB_DIFF_EXTRA:
        bad |= arb_json_set(o, "type", json_string("extra"));
        bad |= arb_json_set(o, "claimed_record",
                            json_integer((json_int_t)it->claim + 1));
        bad |= set_key(o, d, key_of(d, d->claimed, it->claim));
        break;
    default:
        bad |= arb_json_set(o, "type", json_string("total"));
        bad |= arb_json_set(o, "player", arb_json_string(it->name));
        bad |= arb_json_set(o, "claimed", opt_total(it->ctotal));
        bad |= arb_json_set(o, "recorded", opt_total(it->rtotal));
    }
    return bad ? (json_decref(o), NULL) : o;
}

void
arb_diff_json(arb_buf_t *b, const arb_diff_t *d)
{
    arb_json_put_new(b, arb_diff_json_value(d));
}

json_t *
arb_diff_json_value(const arb_diff_t *d)
{
    json_t *o = json_object(), *items = json_array();
    size_t  i;
    int     bad = 0;

    for (i = 0; i < d->n; i++)
        bad |= arb_json_add(items, item_value(d, &d->items[i]));
    bad |= arb_json_set(o, "identical", json_boolean(d->n == 0));
    bad |= arb_json_set(o, "records", counts(d->recorded->nrecords,
                                             d->claimed->nrecords));
    bad |= arb_json_set(o, "totals", counts(d->recorded->ntotals,
                                            d->claimed->ntotals));
    bad |= arb_json_set(o, "differences", items);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* ---- verdicts ----------------------------------------------------------- */

static int
set_str_field(arb_record_t *rec, const char *key, const char *val)
{
    size_t i;
    char  *s;

    for (i = 0; i < rec->nfields; i++)
        if (strcmp(rec->fields[i].key, key) == 0
            && rec->fields[i].type == ARB_F_STR) {
            s = strdup(val);
            if (s == NULL)
                return ARB_ENOMEM;
            free(rec->fields[i].str);
            rec->fields[i].str = s;
            return 0;
        }
    return arb_record_str(rec, key, val);
}

int
arb_diff_mark(arb_results_t *r, const arb_results_t *claimed,
              const char *game, uint64_t claim_seq)
{
    arb_results_t view;
    arb_diff_t    d;
    const char ***names = NULL;
    size_t       *nnames = NULL, *at = NULL, known = 0, i;
    int           rc;

    memset(&d, 0, sizeof(d));
    memset(&view, 0, sizeof(view));
    for (i = 0; i < r->nrecords; i++)
        if (arb_record_get(&r->records[i], "status") == NULL
            && arb_record_str(&r->records[i], "status", "pending") != 0)
            return ARB_ENOMEM;
    if (claimed == NULL)
        return 0;
    /* The records the claim could know: a view sharing r's fields, in
     * r's order; at[k] is the view's record k in r. */
    view.records = malloc((r->nrecords ? r->nrecords : 1)
                          * sizeof(*view.records));
    at = malloc((r->nrecords ? r->nrecords : 1) * sizeof(*at));
    if (view.records == NULL || at == NULL)
        goto oom;
    for (i = 0; i < r->nrecords; i++)
        if (r->records[i].seq < claim_seq) {
            view.records[known] = r->records[i];
            at[known++] = i;
        }
    view.nrecords = known;
    view.totals = r->totals;
    view.ntotals = r->ntotals;
    rc = arb_diff_run(&d, game, &view, claimed);
    if (rc != 0)
        goto fail;
    /* Collect the verdicts before touching r: the items point into the
     * field arrays r shares with the view. */
    names = calloc(known ? known : 1, sizeof(*names));
    nnames = calloc(known ? known : 1, sizeof(*nnames));
    if (names == NULL || nnames == NULL)
        goto oom;
    for (i = 0; i < d.n; i++) {
        const arb_diff_item_t *it = &d.items[i];
        const char           **nv;
        if (it->kind != ARB_DIFF_FIELD && it->kind != ARB_DIFF_MISSING)
            continue;
        nv = realloc(names[it->rec], (nnames[it->rec] + 1) * sizeof(*nv));
        if (nv == NULL)
            goto oom;
        names[it->rec] = nv;
        nv[nnames[it->rec]++] = it->kind == ARB_DIFF_MISSING ? "*"
                                : it->name;
    }
    for (i = 0; i < known; i++) {
        arb_record_t *rec = &r->records[at[i]];
        rc = set_str_field(rec, "status",
                           nnames[i] == 0 ? "confirmed" : "disputed");
        /* The names are field keys (static, or owned by the claim), not
         * parts of r's field arrays, so adding a field moves none. */
        if (rc == 0 && nnames[i] > 0)
            rc = arb_record_list(rec, "disputed_fields", (char **)names[i],
                                 nnames[i]);
        if (rc != 0)
            goto fail;
    }
    rc = 0;
    goto done;

oom:
    rc = ARB_ENOMEM;
fail:
done:
    for (i = 0; names != NULL && i < known; i++)
        free(names[i]);
    free(names);
    free(nnames);
    free(at);
    free(view.records);
    arb_diff_clear(&d);
    return rc;
}
