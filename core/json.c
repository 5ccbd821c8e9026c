/*
 * json.c - see json.h.
 *
 * DESIGN: values are built as Jansson json_t and written by
 * json_dump_callback straight into the caller's buffer.  Jansson spells
 * every JSON text these writers produce as the hand-written writer before
 * it did, byte for byte — compact separators, keys in insertion order,
 * integers in decimal, `\"` `\\` `\n` `\r` `\t` — except a string holding
 * another control character: Jansson writes `\b`, `\f` and upper-case hex
 * (`\u001B`) where the old writer wrote `\u0008`, `\u000c`, `\u001b`.  No
 * report holds one (names, cards and messages have none); claims, the one
 * written JSON compared byte for byte on replay, refuse them at input
 * (core/claim.c), which also accepts the old spelling of claims recorded
 * before.
 */
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/json.h"
#include "core/text.h"
#include "core/mp.h"

#define DUMP_FLAGS (JSON_COMPACT | JSON_ENCODE_ANY)

static int
put_cb(const char *s, size_t n, void *ud)
{
    arb_buf_t *b = ud;

    arb_buf_add(b, s, n);
    return b->oom ? -1 : 0;
}

int
arb_json_put(arb_buf_t *b, const json_t *v)
{
    if (v == NULL || json_dump_callback(v, put_cb, b, DUMP_FLAGS) != 0) {
        b->oom = 1;
        return ARB_ENOMEM;
    }
    return 0;
}

/* s with every byte that starts no well-formed UTF-8 sequence replaced by
 * U+FFFD, in out. */
static void
utf8_mend(arb_buf_t *out, const char *s)
{
    size_t n = strlen(s), k;

    while (n > 0) {
        k = arb_text_seq(s, n);
        if (k > 0)
            arb_buf_add(out, s, k);
        else
            arb_buf_puts(out, "\xef\xbf\xbd");
        s += k > 0 ? k : 1;
        n -= k > 0 ? k : 1;
    }
}

json_t *
arb_json_string(const char *s)
{
    arb_buf_t mended = ARB_BUF_INIT;
    json_t   *v;

    if (s == NULL)
        s = "";
    v = json_string(s);
    if (v == NULL && !arb_mp_utf8_valid(s, strlen(s))) {
        utf8_mend(&mended, s);
        v = arb_buf_cstr(&mended) != NULL ? json_string(mended.data) : NULL;
        arb_buf_free(&mended);
    }
    return v;
}

int
arb_json_put_new(arb_buf_t *b, json_t *v)
{
    int rc = arb_json_put(b, v);

    json_decref(v);
    return rc;
}

void
arb_json_str(arb_buf_t *b, const char *s)
{
    arb_json_put_new(b, arb_json_string(s));
}

json_t *
arb_json_field_value(const arb_field_t *f)
{
    json_t *v;
    size_t  j;
    int     bad = 0;

    if (f->type == ARB_F_INT)
        return json_integer((json_int_t)f->num);
    if (f->type == ARB_F_STR)
        return arb_json_string(f->str);
    v = json_array();
    for (j = 0; j < f->nlist; j++)
        bad |= arb_json_add(v, arb_json_string(f->list[j]));
    return bad ? (json_decref(v), NULL) : v;
}

json_t *
arb_json_record_value(const arb_record_t *rec)
{
    json_t *o = json_object();
    size_t  i;
    int     bad = 0;

    for (i = 0; i < rec->nfields; i++)
        bad |= arb_json_set(o, rec->fields[i].key,
                            arb_json_field_value(&rec->fields[i]));
    return bad ? (json_decref(o), NULL) : o;
}

void
arb_json_record(arb_buf_t *b, const arb_record_t *rec)
{
    arb_json_put_new(b, arb_json_record_value(rec));
}

int
arb_json_set(json_t *o, const char *key, json_t *v)
{
    if (o == NULL || v == NULL) {
        json_decref(v);
        return -1;
    }
    return json_object_set_new(o, key, v) != 0 ? -1 : 0;
}

int
arb_json_add(json_t *a, json_t *v)
{
    if (a == NULL || v == NULL) {
        json_decref(v);
        return -1;
    }
    return json_array_append_new(a, v) != 0 ? -1 : 0;
}

json_t *
arb_json_string_or_null(const char *s)
{
    return s != NULL ? arb_json_string(s) : json_null();
}

json_t *
arb_json_totals_value(const arb_results_t *r)
{
    json_t *totals = json_object();
    size_t  i;
    int     bad = 0;

    for (i = 0; i < r->ntotals; i++)
        bad |= arb_json_set(totals, r->totals[i].name,
                            json_integer((json_int_t)r->totals[i].points));
    return bad ? (json_decref(totals), NULL) : totals;
}

int
arb_json_set_results(json_t *o, const arb_results_t *r)
{
    json_t *records = json_array();
    size_t  i;
    int     bad = 0;

    for (i = 0; i < r->nrecords; i++)
        bad |= arb_json_add(records, arb_json_record_value(&r->records[i]));
    bad |= arb_json_set(o, "records", records);
    bad |= arb_json_set(o, "totals", arb_json_totals_value(r));
    return bad ? -1 : 0;
}
