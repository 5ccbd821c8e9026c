/*
 * claim.c - claims in JSON: files, the canonical form, claim events.  The
 * CSV form is in claim_csv.c.
 *
 * DESIGN: whatever the form - a JSON file, a CSV file, a claim event - a
 * claim ends as an arb_results_t built with the rule sets' own record and
 * total builders, so the forms cannot drift apart and the diff compares
 * like with like.  JSON files and events share one reader
 * (add_record_jv), differing only in whether errors carry a line and
 * column (found by path, arb_json_where, since Jansson keeps none).  The
 * canonical form is written by the same JSON writer as the reports
 * (core/json.c, Jansson), which is why a report of `arbiter replay
 * --json`, minus its verdict fields, is a claim that agrees with itself
 * byte for byte.  A claim coming in may hold no control character (the
 * one thing JSON writers spell differently); replay still accepts the
 * spelling of claims recorded before the writer was Jansson.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/claim.h"
#include "core/claim_int.h"
#include "core/codec.h"
#include "core/err.h"
#include "core/json.h"
#include "core/jsonin.h"
#include "core/limits.h"
#include "core/text.h"

/* Top-level keys of a report (arb_report_json) that a claim file may
 * carry and that say nothing about the results. */
static const char *const report_keys[] = {
    "digest", "seq", "closed", "finished", "rulings", "claim", "state",
    NULL
};

int
arb__claim_fail(arb_buf_t *why, int rc, const char *fmt, ...)
{
    char    msg[512];
    va_list ap;

    if (why == NULL)
        return rc;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    arb_buf_free(why);
    arb_text_clean(why, msg, strlen(msg), 0);   /* it may quote input */
    return rc;
}

int
arb_claim_field_is_verdict(const char *key)
{
    return strcmp(key, "status") == 0 || strcmp(key, "disputed_fields") == 0;
}

void
arb_claim_clear(arb_claim_t *c)
{
    size_t i;

    if (c == NULL)
        return;
    arb_results_clear(&c->res);
    for (i = 0; i < c->nkeys; i++)
        free(c->keys[i]);
    free(c->keys);
    memset(c, 0, sizeof(*c));
}

const char *
arb__claim_intern(arb_claim_t *c, const char *key)
{
    char  **nk, *k;
    size_t  i;

    for (i = 0; i < c->nkeys; i++)
        if (strcmp(c->keys[i], key) == 0)
            return c->keys[i];
    k = strdup(key);
    nk = realloc(c->keys, (c->nkeys + 1) * sizeof(*nk));
    if (k == NULL || nk == NULL) {
        free(k);
        if (nk != NULL)
            c->keys = nk;
        return NULL;
    }
    c->keys = nk;
    c->keys[c->nkeys++] = k;
    return k;
}

/* Where a value sits: the text it was read from (NULL for an event, where
 * a position says nothing) and its path (arb_json_where). */
typedef struct loc {
    const char *text;
    size_t      len, depth, path[8];
} loc_t;

static int
control_in(const char *s)
{
    return s != NULL ? arb_text_control(s, strlen(s), NULL) : -1;
}

/* loc with one more step. */
static loc_t
loc_in(const loc_t *l, size_t step)
{
    loc_t sub = *l;

    if (sub.depth < sizeof(sub.path) / sizeof(sub.path[0]))
        sub.path[sub.depth++] = step;
    return sub;
}

/* "line L, column C: " for values read from a file, "" for an event.
 * It reads the text again from its start, so it is called only to word
 * a refusal: once per value read, it made a claim's reading quadratic. */
static const char *
where(char *out, size_t n, const loc_t *l)
{
    if (l->text != NULL)
        arb_json_where(out, n, l->text, l->len, l->path, l->depth);
    else
        out[0] = '\0';
    return out;
}

/* The first control character of a field's name or string values. */
static int
control_of(const char *key, const json_t *v)
{
    size_t i;
    int    ch = control_in(key);

    if (ch < 0 && json_is_string(v))
        ch = arb_text_control(json_string_value(v), json_string_length(v),
                              NULL);
    for (i = 0; ch < 0 && json_is_array(v) && i < json_array_size(v); i++)
        if (json_is_string(json_array_get(v, i)))
            ch = control_in(json_string_value(json_array_get(v, i)));
    return ch;
}

static int
add_field_jv(arb_claim_t *c, arb_record_t *rec, const char *key,
             const json_t *v, const char *path, const loc_t *l,
             arb_buf_t *why)
{
    const char *k;
    char        at[48];
    char      **list = NULL;
    size_t      i, n;
    int         rc, ch;

    if (*key == '\0')
        return arb__claim_fail(why, ARB_EINVAL, "%s%s: a field name is empty",
                               where(at, sizeof(at), l), path);
    for (i = 0; i < rec->nfields; i++)
        if (strcmp(rec->fields[i].key, key) == 0)
            return arb__claim_fail(why, ARB_EINVAL, "%s%s.%s: given twice",
                                   where(at, sizeof(at), l), path, key);
    if (l->text != NULL && (ch = control_of(key, v)) >= 0)
        return arb__claim_fail(why, ARB_EINVAL, "%s%s.%s: a control "
                               "character (U+%04X) has no place in a claim",
                               where(at, sizeof(at), l), path, key,
                               (unsigned)ch);
    k = arb__claim_intern(c, key);
    if (k == NULL)
        return arb__claim_fail(why, ARB_ENOMEM, "out of memory");
    switch (json_typeof(v)) {
    case JSON_INTEGER:
        rc = arb_record_int(rec, k, (int64_t)json_integer_value(v));
        break;
    case JSON_STRING:
        rc = arb_record_str(rec, k, json_string_value(v));
        break;
    case JSON_ARRAY:
        n = json_array_size(v);
        list = calloc(n ? n : 1, sizeof(*list));
        if (list == NULL)
            return arb__claim_fail(why, ARB_ENOMEM, "out of memory");
        for (i = 0; i < n; i++) {
            const json_t *item = json_array_get(v, i);

            if (!json_is_string(item)) {
                loc_t li = loc_in(l, i);

                where(at, sizeof(at), &li);
                free(list);
                return arb__claim_fail(why, ARB_EINVAL,
                                       "%s%s.%s[%zu]: expected a "
                                       "string, got %s",
                                       at, path, key, i,
                                       arb_json_type_name(item));
            }
            list[i] = (char *)json_string_value(item);
        }
        rc = arb_record_list(rec, k, list, n);
        free(list);
        break;
    default:
        return arb__claim_fail(why, ARB_EINVAL,
                               "%s%s.%s: expected an integer, a "
                               "string or a list of strings, got %s",
                               where(at, sizeof(at), l), path, key,
                               arb_json_type_name(v));
    }
    return rc != 0 ? arb__claim_fail(why, rc, "out of memory") : 0;
}

/* A verdict field a claim drops is still held to what a kept field is
 * held to (its type, no control character), so that a claim refuses
 * exactly what a report read as results refuses (until 2026-12-05 a
 * status with a newline passed a claim and failed a report). */
static int
check_dropped(arb_claim_t *c, const char *key, const json_t *v,
              const char *path, const loc_t *l, arb_buf_t *why)
{
    arb_results_t scratch;
    arb_record_t *rec;
    int           rc;

    memset(&scratch, 0, sizeof(scratch));
    rec = arb_results_add_record(&scratch, 0);
    rc = rec == NULL ? arb__claim_fail(why, ARB_ENOMEM, "out of memory")
                     : add_field_jv(c, rec, key, v, path, l, why);
    arb_results_clear(&scratch);
    return rc;
}

/* One claimed record from a JSON object; its verdict fields are dropped
 * unless keep (a recorder's report read as results). */
static int
add_record_jv(arb_claim_t *c, const json_t *o, const char *path,
              const loc_t *l, int keep, arb_buf_t *why)
{
    arb_record_t *rec;
    const char   *key;
    json_t       *v;
    char          at[48];
    size_t        i = 0;
    int           rc;

    if (!json_is_object(o)) {
        where(at, sizeof(at), l);
        return arb__claim_fail(why, ARB_EINVAL, "%s%s: expected an object (one "
                    "record), got %s", at, path, arb_json_type_name(o));
    }
    rec = arb_results_add_record(&c->res, 0);
    if (rec == NULL)
        return arb__claim_fail(why, ARB_ENOMEM, "out of memory");
    json_object_foreach((json_t *)o, key, v) {
        loc_t lv = loc_in(l, i++);

        rc = !keep && arb_claim_field_is_verdict(key)
             ? check_dropped(c, key, v, path, &lv, why)
             : add_field_jv(c, rec, key, v, path, &lv, why);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int
arb__claim_add_total(arb_claim_t *c, const char *name, int64_t pts,
                     const char *at, arb_buf_t *why)
{
    size_t i;

    if (*name == '\0')
        return arb__claim_fail(why, ARB_EINVAL,
                               "%stotals: a player name is empty", at);
    for (i = 0; i < c->res.ntotals; i++)
        if (strcmp(c->res.totals[i].name, name) == 0)
            return arb__claim_fail(why, ARB_EINVAL, "%stotals: %s given twice",
                                   at, name);
    if (arb_results_add_total(&c->res, name, pts) != 0)
        return arb__claim_fail(why, ARB_ENOMEM, "out of memory");
    return 0;
}

static int
add_totals_jv(arb_claim_t *c, const json_t *o, const loc_t *l, arb_buf_t *why)
{
    const char *key;
    json_t     *v;
    char        at[48];
    size_t      i = 0;
    int         rc, ch;

    if (!json_is_object(o))
        return arb__claim_fail(why, ARB_EINVAL, "%stotals: expected an object "
                    "{\"player\": points, ...}, got %s",
                    where(at, sizeof(at), l), arb_json_type_name(o));
    json_object_foreach((json_t *)o, key, v) {
        loc_t lv = loc_in(l, i++);

        if (l->text != NULL && (ch = control_in(key)) >= 0)
            return arb__claim_fail(why, ARB_EINVAL, "%stotals: a control "
                                   "character (U+%04X) in a name",
                                   where(at, sizeof(at), &lv), (unsigned)ch);
        if (!json_is_integer(v))
            return arb__claim_fail(why, ARB_EINVAL,
                                   "%stotals.%s: expected an integer,"
                                   " got %s", where(at, sizeof(at), &lv),
                                   key, arb_json_type_name(v));
        rc = arb__claim_add_total(c, key, (int64_t)json_integer_value(v), "",
                                  why);
        /* A refused name is refused again, changing nothing: this time
         * with its place, found only now (see where). */
        if (rc == ARB_EINVAL)
            rc = arb__claim_add_total(c, key, (int64_t)json_integer_value(v),
                                      where(at, sizeof(at), &lv), why);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* The ordinal of member `key` in o (document order). */
static size_t
member_ordinal(const json_t *o, const char *key)
{
    const char *k;
    json_t     *v;
    size_t      i = 0;

    json_object_foreach((json_t *)o, k, v) {
        if (strcmp(k, key) == 0)
            break;
        i++;
    }
    return i;
}

static int
parse_json(arb_claim_t *c, const char *text, size_t len, int keep,
           arb_buf_t *why)
{
    const char *key;
    json_t     *recs, *tot, *doc = NULL, *v;
    loc_t       top = { text, len, 0, { 0 } }, l;
    char        at[48], path[48];
    size_t      i, k;
    int         rc;

    memset(c, 0, sizeof(*c));
    rc = arb_json_parse(&doc, text, len, why);
    if (rc != 0)
        return rc;
    if (!json_is_object(doc)) {
        rc = arb__claim_fail(why, ARB_EINVAL,
                             "%sa claim is an object {\"records\": "
                             "[...], \"totals\": {...}}, not %s",
                             where(at, sizeof(at), &top),
                             arb_json_type_name(doc));
        goto fail;
    }
    i = 0;
    json_object_foreach(doc, key, v) {
        l = loc_in(&top, i++);
        if (strcmp(key, "records") == 0 || strcmp(key, "totals") == 0)
            continue;
        for (k = 0; report_keys[k] != NULL; k++)
            if (strcmp(key, report_keys[k]) == 0)
                break;
        if (report_keys[k] == NULL) {
            where(at, sizeof(at), &l);
            rc = arb__claim_fail(why, ARB_EINVAL,
                                 "%sunknown key \"%s\": a claim has "
                                 "\"records\" and \"totals\"",
                                 at, key);
            goto fail;
        }
    }
    recs = json_object_get(doc, "records");
    tot = json_object_get(doc, "totals");
    if (recs == NULL || tot == NULL) {
        rc = arb__claim_fail(why, ARB_EINVAL, "%sa claim needs \"%s\"",
                             where(at, sizeof(at), &top),
                             recs == NULL ? "records" : "totals");
        goto fail;
    }
    l = loc_in(&top, member_ordinal(doc, "records"));
    if (!json_is_array(recs)) {
        where(at, sizeof(at), &l);
        rc = arb__claim_fail(why, ARB_EINVAL,
                             "%srecords: expected an array, got %s", at,
                             arb_json_type_name(recs));
        goto fail;
    }
    for (i = 0; i < json_array_size(recs); i++) {
        loc_t lr = loc_in(&l, i);

        snprintf(path, sizeof(path), "records[%zu]", i);
        rc = add_record_jv(c, json_array_get(recs, i), path, &lr, keep,
                           why);
        if (rc != 0)
            goto fail;
    }
    l = loc_in(&top, member_ordinal(doc, "totals"));
    rc = add_totals_jv(c, tot, &l, why);
    if (rc != 0)
        goto fail;
    json_decref(doc);
    return 0;

fail:
    json_decref(doc);
    arb_claim_clear(c);
    return rc;
}

int
arb_claim_parse_json(arb_claim_t *c, const char *text, size_t len,
                     arb_buf_t *why)
{
    return parse_json(c, text, len, 0, why);
}

int
arb_claim_parse_report(arb_claim_t *c, const char *text, size_t len,
                       arb_buf_t *why)
{
    return parse_json(c, text, len, 1, why);
}


/* Claims take no control character: a result never needs one, and JSON
 * writers disagree on how to escape them (core/json.c), while a claim's
 * bytes are compared on replay.  Checked where a claim comes in: the file
 * readers refuse them with their line, an append here; never on replay,
 * so claims recorded before still load. */
static int
refuse_controls(arb_claim_t *c, arb_buf_t *why)
{
    size_t i, j, k;
    int    ch = -1;

    for (i = 0; i < c->res.nrecords; i++)
        for (j = 0; j < c->res.records[i].nfields; j++) {
            const arb_field_t *f = &c->res.records[i].fields[j];
            ch = control_in(f->key);
            if (ch < 0)
                ch = control_in(f->str);
            for (k = 0; ch < 0 && k < f->nlist; k++)
                ch = control_in(f->list[k]);
            if (ch >= 0) {
                arb__claim_fail(why, ARB_EINVAL, "claim record %zu, field "
                                "'%s': a control character (U+%04X) has "
                                "no place in a claim", i + 1, f->key,
                                (unsigned)ch);
                goto fail;
            }
        }
    for (i = 0; i < c->res.ntotals; i++)
        if ((ch = control_in(c->res.totals[i].name)) >= 0) {
            arb__claim_fail(why, ARB_EINVAL, "claim totals: a control "
                            "character (U+%04X) in a name", (unsigned)ch);
            goto fail;
        }
    return 0;

fail:
    arb_claim_clear(c);
    return ARB_EINVAL;
}

int
arb_claim_parse(arb_claim_t *c, const char *text, size_t len,
                const arb_results_t *schema, arb_buf_t *why)
{
    size_t i = 0;

    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        i = 3;
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r'
                       || text[i] == '\n'))
        i++;
    if (i < len && (text[i] == '{' || text[i] == '['))
        return arb_claim_parse_json(c, text, len, why);
    return arb_claim_parse_csv(c, text, len, schema, why);
}

/* ---- canonical form and events ----------------------------------------- */

int
arb_claim_format(arb_buf_t *out, const arb_claim_t *c)
{
    json_t *o = json_object();

    if (arb_json_set_results(o, &c->res) != 0) {
        json_decref(o);
        return ARB_ENOMEM;
    }
    return arb_json_put_new(out, o);
}

int
arb_claim_event_fits(const arb_event_t *ev, arb_buf_t *why)
{
    size_t i, n;

    if (ev->nargs > ARB_CLAIM_RECORDS_MAX) {
        arb_buf_free(why);
        arb_buf_printf(why, "%zu records; one claim carries at most %d",
                       ev->nargs, ARB_CLAIM_RECORDS_MAX);
        return ARB_ETOOBIG;
    }
    for (i = 0; i < ev->nargs; i++)
        if ((n = strlen(ev->args[i])) > ARB_STR_MAX) {
            arb_buf_free(why);
            arb_buf_printf(why, "record %zu is %zu bytes as JSON; at most "
                           "%d", i + 1, n, ARB_STR_MAX);
            return ARB_ETOOBIG;
        }
    return arb_event_check(ev, why);
}

int
arb_claim_to_event(arb_event_t *ev, const arb_claim_t *c)
{
    arb_buf_t b = ARB_BUF_INIT;
    json_t   *o;
    size_t    i;
    int       rc = 0;

    for (i = 0; i < ev->nargs; i++)
        free(ev->args[i]);
    free(ev->args);
    ev->args = NULL;
    ev->nargs = 0;
    free(ev->text);
    ev->text = NULL;
    for (i = 0; i < c->res.nrecords && rc == 0; i++) {
        b.len = 0;
        arb_json_record(&b, &c->res.records[i]);
        rc = arb_buf_cstr(&b) == NULL ? ARB_ENOMEM
             : arb_event_add_arg(ev, b.data);
    }
    if (rc == 0) {
        b.len = 0;
        o = json_object();
        if (arb_json_set(o, "totals", arb_json_totals_value(&c->res)) != 0
            || arb_json_put(&b, o) != 0 || arb_buf_cstr(&b) == NULL
            || (ev->text = strdup(b.data)) == NULL)
            rc = ARB_ENOMEM;
        json_decref(o);
    }
    arb_buf_free(&b);
    return rc;
}

/* The spelling a canonical text had before JSON was written by Jansson:
 * `\u0008` for `\b`, `\u000c` for `\f`, lower-case hex.  Claims recorded
 * then keep it, and replay accepts it (new claims hold no control
 * character, so for them both spellings are the same bytes). */
static void
old_spelling(arb_buf_t *out, const char *s)
{
    size_t i;

    for (; *s != '\0'; s++) {
        if (*s != '\\' || s[1] == '\0') {
            arb_buf_putc(out, *s);
            continue;
        }
        s++;
        if (*s == 'b' || *s == 'f') {
            arb_buf_puts(out, *s == 'b' ? "\\u0008" : "\\u000c");
        } else if (*s == 'u') {
            arb_buf_puts(out, "\\u");
            for (i = 1; i <= 4 && s[1] != '\0'; i++, s++)
                arb_buf_putc(out, s[1] >= 'A' && s[1] <= 'F'
                                  ? (char)(s[1] - 'A' + 'a') : s[1]);
        } else {
            arb_buf_putc(out, '\\');
            arb_buf_putc(out, *s);
        }
    }
}

/* 1 when stored is canon, in today's or the old spelling. */
static int
same_spelling(const char *stored, const char *canon)
{
    arb_buf_t old = ARB_BUF_INIT;
    int       same;

    if (strcmp(stored, canon) == 0)
        return 1;
    if (strchr(canon, '\\') == NULL)
        return 0;
    old_spelling(&old, canon);
    same = arb_buf_cstr(&old) != NULL && strcmp(stored, old.data) == 0;
    arb_buf_free(&old);
    return same;
}

/* Reads the parts of a claim event, in any valid JSON spelling. */
static int
read_event(arb_claim_t *c, const arb_event_t *ev, arb_buf_t *why)
{
    static const loc_t nowhere = { NULL, 0, 0, { 0 } };
    json_t *v = NULL, *tot;
    char    path[48];
    size_t  i;
    int     rc;

    memset(c, 0, sizeof(*c));
    for (i = 0; i < ev->nargs; i++) {
        snprintf(path, sizeof(path), "claim record %zu", i + 1);
        rc = arb_json_parse(&v, ev->args[i], strlen(ev->args[i]), why);
        if (rc != 0) {
            char msg[400];
            snprintf(msg, sizeof(msg), "%s", arb_buf_cstr(why));
            rc = arb__claim_fail(why, rc, "%s: %s", path, msg);
            goto fail;
        }
        rc = add_record_jv(c, v, path, &nowhere, 0, why);
        json_decref(v);
        v = NULL;
        if (rc != 0)
            goto fail;
    }
    if (ev->text == NULL) {
        rc = arb__claim_fail(why, ARB_EINVAL,
                             "a claim carries its totals in text: "
                             "{\"totals\":{...}}");
        goto fail;
    }
    rc = arb_json_parse(&v, ev->text, strlen(ev->text), why);
    if (rc != 0) {
        char msg[400];
        snprintf(msg, sizeof(msg), "%s", arb_buf_cstr(why));
        rc = arb__claim_fail(why, rc, "claim totals: %s", msg);
        goto fail;
    }
    tot = json_object_get(v, "totals");
    if (!json_is_object(v) || json_object_size(v) != 1 || tot == NULL) {
        rc = arb__claim_fail(why, ARB_EINVAL, "claim totals: the text is "
                  "{\"totals\":{\"player\":points,...}} and nothing else");
        goto fail;
    }
    rc = add_totals_jv(c, tot, &nowhere, why);
    if (rc != 0)
        goto fail;
    json_decref(v);
    return 0;

fail:
    json_decref(v);
    arb_claim_clear(c);
    return rc;
}

int
arb_claim_from_event(arb_claim_t *c, const arb_event_t *ev, arb_buf_t *why)
{
    arb_event_t canon;
    size_t      i;
    int         rc;

    rc = read_event(c, ev, why);
    if (rc != 0)
        return rc;
    memset(&canon, 0, sizeof(canon));
    rc = arb_claim_to_event(&canon, c);
    if (rc != 0) {
        rc = arb__claim_fail(why, rc, "out of memory");
        goto fail;
    }
    /* Stored bytes are hashed: one claim, one spelling. */
    for (i = 0; i < ev->nargs; i++)
        if (!same_spelling(ev->args[i], canon.args[i])) {
            rc = arb__claim_fail(why, ARB_EINVAL, "claim record %zu is not in "
                      "canonical form (compact JSON, no status): %s", i + 1,
                      canon.args[i]);
            goto fail;
        }
    if (!same_spelling(ev->text, canon.text)) {
        rc = arb__claim_fail(why, ARB_EINVAL,
                             "claim totals are not in canonical form "
                             "(compact JSON): %s",
                             canon.text);
        goto fail;
    }
    arb_event_clear(&canon);
    return 0;

fail:
    arb_event_clear(&canon);
    arb_claim_clear(c);
    return rc;
}

int
arb_claim_event_canon(arb_event_t *ev, arb_buf_t *why)
{
    arb_claim_t c;
    int         rc;

    rc = read_event(&c, ev, why);
    if (rc == 0)
        rc = refuse_controls(&c, why);
    if (rc != 0)
        return rc;
    rc = arb_claim_to_event(ev, &c);
    arb_claim_clear(&c);
    return rc != 0 ? arb__claim_fail(why, rc, "out of memory") : 0;
}
