/*
 * claim_csv.c - the CSV form of a claim (docs/CLAIMS.md), for spreadsheets.
 *
 * DESIGN: a CSV cell has no type, so cells are read against a schema: the
 * recorded results, whose field of the same name says whether the cell is
 * an integer, a list or text.  A cell that is not what its column holds
 * is kept as the text it is rather than refused, so the diff shows it
 * next to the recorded value.  Spreadsheet habits are accepted: a byte
 * order mark, ';' separators, rows padded with empty cells, CRLF.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/claim.h"
#include "core/claim_int.h"
#include "core/err.h"
#include "core/mp.h"
#include "core/text.h"

/* One CSV row: cells decoded (quotes removed), the line it starts on. */
typedef struct row {
    size_t   n;
    char   **cell;
    unsigned line;
} row_t;

static void
row_clear(row_t *r)
{
    size_t i;

    for (i = 0; i < r->n; i++)
        free(r->cell[i]);
    free(r->cell);
    memset(r, 0, sizeof(*r));
}

static int
row_push(row_t *r, arb_buf_t *cell)
{
    char **nc;

    if (arb_buf_cstr(cell) == NULL)
        return ARB_ENOMEM;
    nc = realloc(r->cell, (r->n + 1) * sizeof(*nc));
    if (nc == NULL)
        return ARB_ENOMEM;
    r->cell = nc;
    r->cell[r->n++] = cell->data;
    memset(cell, 0, sizeof(*cell));
    return 0;
}

/* Reads the row at *p (RFC 4180: "quoted" cells may hold the separator,
 * newlines and "" for a quote).  0, 1 at the end of input, or an error. */
static int
read_row(row_t *r, const char **p, const char *end, char sep,
         unsigned *line, arb_buf_t *why)
{
    arb_buf_t   cell = ARB_BUF_INIT;
    const char *q = *p;
    int         rc, ch;

    memset(r, 0, sizeof(*r));
    if (q >= end)
        return 1;
    r->line = *line;
    for (;;) {
        if (q < end && *q == '"') {
            for (q++;; q++) {
                if (q >= end) {
                    rc = arb__claim_fail(why, ARB_EINVAL,
                                         "line %u: unterminated "
                                         "quoted cell",
                                         r->line);
                    goto fail;
                }
                if (*q == '"') {
                    if (q + 1 < end && q[1] == '"') {
                        arb_buf_putc(&cell, '"');
                        q++;
                        continue;
                    }
                    q++;
                    break;
                }
                if (*q == '\n')
                    (*line)++;
                arb_buf_putc(&cell, *q);
            }
            /* A CR ends the row only before its LF (or the end), as
             * after a cell that is not quoted. */
            if (q < end && *q != sep && *q != '\n'
                && !(*q == '\r' && (q + 1 == end || q[1] == '\n'))) {
                rc = arb__claim_fail(why, ARB_EINVAL,
                                     "line %u: text after a closing "
                                     "quote",
                                     *line);
                goto fail;
            }
        } else {
            while (q < end && *q != sep && *q != '\n'
                   && !(*q == '\r' && (q + 1 == end || q[1] == '\n')))
                arb_buf_putc(&cell, *q++);
        }
        /* A cell becomes a C string and then a JSON string of the
         * canonical claim: no NUL, well-formed UTF-8 (as in JSON). */
        if (cell.len > 0 && (memchr(cell.data, '\0', cell.len) != NULL
                             || !arb_mp_utf8_valid(cell.data, cell.len))) {
            rc = arb__claim_fail(why, ARB_EINVAL, "line %u, cell %zu: "
                                 "%s", r->line, r->n + 1,
                                 memchr(cell.data, '\0', cell.len) != NULL
                                 ? "NUL byte" : "invalid UTF-8");
            goto fail;
        }
        if ((ch = arb_text_control(cell.data, cell.len, NULL)) >= 0) {
            rc = arb__claim_fail(why, ARB_EINVAL, "line %u, cell %zu: a "
                                 "control character (U+%04X) has no place "
                                 "in a claim", r->line, r->n + 1,
                                 (unsigned)ch);
            goto fail;
        }
        if (row_push(r, &cell) != 0) {
            rc = arb__claim_fail(why, ARB_ENOMEM, "out of memory");
            goto fail;
        }
        if (q < end && *q == sep) {
            q++;
            continue;
        }
        if (q < end && *q == '\r')
            q++;
        if (q < end && *q == '\n') {
            q++;
            (*line)++;
        }
        break;
    }
    *p = q;
    return 0;

fail:
    arb_buf_free(&cell);
    row_clear(r);
    return rc;
}

static int
row_blank(const row_t *r)
{
    size_t i;

    for (i = 0; i < r->n; i++)
        if (r->cell[i][0] != '\0')
            return 0;
    return 1;
}

/* Spreadsheets pad every row to the widest one: empty cells past the
 * meaningful ones are not cells. */
static size_t
row_width(const row_t *r)
{
    size_t n = r->n;

    while (n > 0 && r->cell[n - 1][0] == '\0')
        n--;
    return n;
}

/* Whether cell s is the name `name`, blanks around it aside. */
static int
name_is(const char *s, const char *name)
{
    size_t n = strlen(name);

    s += strspn(s, " ");
    return strncmp(s, name, n) == 0 && s[n + strspn(s + n, " ")] == '\0';
}

/* A header's cell is a name: blanks around it (", edition" typed by
 * hand) are no part of it (until 2026-12-07 they were, and the column
 * was a field no record has, differing on every record). */
static void
name_trim(char *s)
{
    size_t k = strspn(s, " "), n = strlen(s);

    while (n > k && s[n - 1] == ' ')
        n--;
    memmove(s, s + k, n - k);
    s[n - k] = '\0';
}

static int
is_totals_header(const row_t *r)
{
    return row_width(r) == 2 && name_is(r->cell[0], "player")
           && name_is(r->cell[1], "total");
}

/* The type of field `key` in the schema's records, or -1. */
static int
schema_type(const arb_results_t *schema, const char *key)
{
    const arb_field_t *f;
    size_t             i;

    for (i = 0; schema != NULL && i < schema->nrecords; i++) {
        f = arb_record_get(&schema->records[i], key);
        if (f != NULL)
            return f->type;
    }
    return -1;
}

static int
parse_int(const char *s, int64_t *out)
{
    char      *end;
    long long  v;

    while (*s == ' ')
        s++;
    if (*s == '\0' || (*s != '-' && (*s < '0' || *s > '9')))
        return -1;
    errno = 0;
    v = strtoll(s, &end, 10);
    while (*end == ' ')
        end++;
    if (*end != '\0' || errno != 0)
        return -1;
    *out = (int64_t)v;
    return 0;
}

/* A list cell: items separated by blanks, commas or "→" (the separator
 * `arbiter replay` prints), as `arbiter score -` reads a sequence. */
static int
add_list_cell(arb_record_t *rec, const char *k, const char *s)
{
    char  **v = NULL, **nv, *copy, *p;
    size_t  n = 0;
    int     rc = ARB_ENOMEM;

    copy = strdup(s);
    if (copy == NULL)
        return ARB_ENOMEM;
    /* An arrow is a separator like a blank: blank it out first. */
    for (p = copy; (p = strstr(p, "\xe2\x86\x92")) != NULL; p += 3)
        memset(p, ' ', 3);
    for (p = copy; *p != '\0';) {
        if (*p == ' ' || *p == '\t' || *p == ',') {
            *p++ = '\0';
            continue;
        }
        nv = realloc(v, (n + 1) * sizeof(*nv));
        if (nv == NULL)
            goto done;
        v = nv;
        v[n++] = p;
        while (*p != '\0' && *p != ' ' && *p != '\t' && *p != ',')
            p++;
    }
    rc = arb_record_list(rec, k, v, n);
done:
    free(v);
    free(copy);
    return rc;
}

static int
add_cell(arb_claim_t *c, arb_record_t *rec, const char *key,
         const char *cell, const arb_results_t *schema)
{
    const char *k = arb__claim_intern(c, key);
    int64_t     num;

    if (k == NULL)
        return ARB_ENOMEM;
    switch (schema_type(schema, key)) {
    case ARB_F_INT:
        if (parse_int(cell, &num) == 0)
            return arb_record_int(rec, k, num);
        break;      /* not a number: kept as the text it is, and differs */
    case ARB_F_LIST:
        return add_list_cell(rec, k, cell);
    default:
        break;
    }
    return arb_record_str(rec, k, cell);
}

int
arb_claim_parse_csv(arb_claim_t *c, const char *text, size_t len,
                    const arb_results_t *schema, arb_buf_t *why)
{
    const char   *p = text, *end = text + len, *h, *nl;
    row_t         hdr, r;
    arb_record_t *rec;
    unsigned      line = 1;
    size_t        i, j, w, hw = 0;   /* hw: the header's width */
    int64_t       pts;
    char          sep = ',', at[32];
    int           rc, totals = 0;

    memset(c, 0, sizeof(*c));
    memset(&hdr, 0, sizeof(hdr));
    memset(&r, 0, sizeof(r));
    if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
        p += 3;
    /* Spreadsheets in locales with a decimal comma write ';'.  The
     * header decides, so empty lines before it (blank rows) are passed
     * over: the first line alone made such a file one column. */
    for (h = p; h < end && (*h == '\n' || *h == '\r');)
        h++;
    nl = memchr(h, '\n', (size_t)(end - h));
    if (nl == NULL)
        nl = end;
    if (memchr(h, ',', (size_t)(nl - h)) == NULL
        && memchr(h, ';', (size_t)(nl - h)) != NULL)
        sep = ';';
    for (;;) {
        rc = read_row(&r, &p, end, sep, &line, why);
        if (rc == 1)
            break;
        if (rc != 0)
            goto fail;
        if (row_blank(&r)) {
            row_clear(&r);
            continue;
        }
        if (hw == 0 || is_totals_header(&r)) {
            if (is_totals_header(&r)) {
                if (totals) {
                    rc = arb__claim_fail(why, ARB_EINVAL,
                                         "line %u: a second totals "
                                         "section",
                                         r.line);
                    goto fail;
                }
                totals = 1;
            }
            row_clear(&hdr);
            hdr = r;
            memset(&r, 0, sizeof(r));
            hw = row_width(&hdr);
            for (i = 0; i < hw; i++) {
                name_trim(hdr.cell[i]);
                if (hdr.cell[i][0] == '\0') {
                    rc = arb__claim_fail(why, ARB_EINVAL,
                                         "line %u: column %zu of the "
                                         "header has no name",
                                         hdr.line, i + 1);
                    goto fail;
                }
                for (j = 0; j < i; j++)
                    if (strcmp(hdr.cell[i], hdr.cell[j]) == 0) {
                        rc = arb__claim_fail(why, ARB_EINVAL,
                                             "line %u: column '%s' "
                                             "given twice",
                                             hdr.line, hdr.cell[i]);
                        goto fail;
                    }
            }
            continue;
        }
        w = row_width(&r);
        if (w > hw) {
            rc = arb__claim_fail(why, ARB_EINVAL,
                                 "line %u: %zu cells, but the header "
                                 "(line %u) names %zu columns",
                                 r.line, w, hdr.line, hw);
            goto fail;
        }
        if (totals) {
            snprintf(at, sizeof(at), "line %u: ", r.line);
            if (w < 2) {
                rc = arb__claim_fail(why, ARB_EINVAL,
                                     "line %u: a totals row is "
                                     "'player,total' with an integer total",
                                     r.line);
                goto fail;
            }
            /* (the cell named: until 2026-12-07 the line alone was) */
            if (parse_int(r.cell[1], &pts) != 0) {
                rc = arb__claim_fail(why, ARB_EINVAL,
                                     "line %u, cell 2: a total is an "
                                     "integer of at most 64 bits (a "
                                     "totals row is 'player,total')",
                                     r.line);
                goto fail;
            }
            rc = arb__claim_add_total(c, r.cell[0], pts, at, why);
            if (rc != 0)
                goto fail;
            row_clear(&r);
            continue;
        }
        if (r.n < hw) {
            rc = arb__claim_fail(why, ARB_EINVAL,
                                 "line %u: %zu cells, but the header "
                                 "(line %u) names %zu columns",
                                 r.line, r.n, hdr.line, hw);
            goto fail;
        }
        rec = arb_results_add_record(&c->res, 0);
        if (rec == NULL)
            goto oom;
        for (i = 0; i < hw; i++) {
            if (arb_claim_field_is_verdict(hdr.cell[i]))
                continue;
            if (add_cell(c, rec, hdr.cell[i], r.cell[i], schema) != 0)
                goto oom;
        }
        row_clear(&r);
    }
    if (!totals) {
        rc = arb__claim_fail(
            why, ARB_EINVAL,
            "line %u: no totals section: after the "
            "records, a blank row, then 'player,total' and one row "
            "per player",
            line);
        goto fail;
    }
    row_clear(&hdr);
    return 0;

oom:
    rc = arb__claim_fail(why, ARB_ENOMEM, "out of memory");
fail:
    row_clear(&r);
    row_clear(&hdr);
    arb_claim_clear(c);
    return rc;
}
