/*
 * DESIGN: Jansson does the parsing; what is here is the wording of its
 * refusals and a walk over a text already accepted, to turn a path into a
 * line and column (for messages) and to find a number with a fraction or
 * an exponent.  The walk trusts the text to be valid JSON: it only skips.
 */
#include <stdatomic.h>
#include <string.h>

#include "core/err.h"
#include "core/jsonin.h"

typedef struct walk {
    const char *p, *end, *line_start;
    unsigned    line;
} walk_t;

static void
skip_blanks(walk_t *w)
{
    while (w->p < w->end && strchr(" \t\r\n", *w->p) != NULL) {
        if (*w->p == '\n') {
            w->line++;
            w->line_start = w->p + 1;
        }
        w->p++;
    }
}

/* Skips one value (or one key); sets *real when it is a number with a
 * fraction or an exponent.  Strings hold no raw newline in valid JSON. */
static void
skip_value(walk_t *w, int *real)
{
    int depth = 0;

    do {
        skip_blanks(w);
        if (w->p >= w->end)
            return;
        if (*w->p == '"') {
            for (w->p++; w->p < w->end && *w->p != '"'; w->p++)
                if (*w->p == '\\' && w->p + 1 < w->end)
                    w->p++;
            if (w->p < w->end)
                w->p++;
        } else if (*w->p == '[' || *w->p == '{') {
            depth++;
            w->p++;
        } else if (*w->p == ']' || *w->p == '}') {
            depth--;
            w->p++;
        } else if (*w->p == ',' || *w->p == ':') {
            w->p++;
        } else {
            const char *tok = w->p;

            while (w->p < w->end && strchr(" \t\r\n,:]}", *w->p) == NULL)
                w->p++;
            /* true, false and null hold an 'e' but no digit first. */
            if (real != NULL && strchr("-0123456789", *tok) != NULL
                && (memchr(tok, '.', (size_t)(w->p - tok)) != NULL
                    || memchr(tok, 'e', (size_t)(w->p - tok)) != NULL
                    || memchr(tok, 'E', (size_t)(w->p - tok)) != NULL)) {
                w->p = tok;
                *real = 1;
                return;
            }
        }
    } while (depth > 0);
}

static unsigned
column(const walk_t *w)
{
    const char *q;
    unsigned    col = 1;

    for (q = w->line_start; q < w->p && q < w->end; q++)
        if (((unsigned char)*q & 0xc0) != 0x80)
            col++;
    return col;
}

static void
walk_init(walk_t *w, const char *text, size_t len)
{
    w->p = w->line_start = text;
    w->end = text + len;
    w->line = 1;
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        w->p = w->line_start = text + 3;        /* no column of its own */
}

static atomic_size_t where_calls;

size_t
arb_json_where_calls(void)
{
    return atomic_load_explicit(&where_calls, memory_order_relaxed);
}

void
arb_json_where(char *out, size_t n, const char *text, size_t len,
               const size_t *path, size_t depth)
{
    walk_t w;
    size_t d, i;
    int    obj;

    atomic_fetch_add_explicit(&where_calls, 1, memory_order_relaxed);
    walk_init(&w, text, len);
    for (d = 0; d < depth; d++) {
        skip_blanks(&w);
        if (w.p >= w.end || (*w.p != '[' && *w.p != '{'))
            break;
        obj = *w.p++ == '{';
        for (i = 0; i < path[d]; i++) {
            if (obj) {
                skip_value(&w, NULL);           /* the key, then ':' */
                skip_blanks(&w);
                w.p++;
            }
            skip_value(&w, NULL);
            skip_blanks(&w);
            w.p++;                              /* ',' */
        }
        if (obj) {
            skip_value(&w, NULL);
            skip_blanks(&w);
            w.p++;
        }
    }
    if (w.p > w.end)
        w.p = w.end;            /* a path the text does not have */
    skip_blanks(&w);
    snprintf(out, n, "line %u, column %u: ", w.line, column(&w));
}

/* The first number with a fraction or an exponent, in document order. */
static int
find_real(const char *text, size_t len, unsigned *line, unsigned *col)
{
    walk_t w;
    int    real = 0;

    walk_init(&w, text, len);
    while (w.p < w.end && !real) {
        const char *at;

        skip_blanks(&w);
        at = w.p;
        if (w.p < w.end && *w.p != '"' && strchr("[]{},:", *w.p) == NULL) {
            skip_value(&w, &real);
            if (real) {
                w.p = at;
                *line = w.line;
                *col = column(&w);
            }
        } else if (w.p < w.end && *w.p == '"') {
            skip_value(&w, NULL);
        } else {
            w.p++;
        }
    }
    return real;
}

/* Jansson's refusal as "line L, column C: what".  Two refusals get the
 * words a person needs: a duplicate key is named and pointed at where it
 * starts (Jansson points after it), and a '}' or ']' right after a comma
 * is a trailing comma (Jansson says "string or '}' expected"). */
static void
explain(arb_buf_t *why, const json_error_t *err, const char *text,
        size_t len)
{
    const char *near = strstr(err->text, " near '");
    const char *q;
    size_t      pos = err->position > 0 ? (size_t)err->position : 0;
    int         col = err->column > 0 ? err->column : 1;

    /* At the end of the input, point after the last character. */
    if (json_error_code(err) == json_error_premature_end_of_input
        && err->column > 0)
        col++;
    arb_buf_free(why);
    if (json_error_code(err) == json_error_duplicate_key && near != NULL) {
        int klen = (int)strlen(near + 7) - 1;   /* the quoted key */

        for (q = near + 7; q < near + 7 + klen; q++)
            if (((unsigned char)*q & 0xc0) != 0x80)
                col--;
        arb_buf_printf(why, "line %d, column %d: key %.*s given twice in "
                       "one object", err->line, col + 1, klen, near + 7);
        return;
    }
    if (pos >= 2 && pos <= len && (text[pos - 1] == '}'
                                   || text[pos - 1] == ']')) {
        for (q = text + pos - 2; q > text && strchr(" \t\r\n", *q) != NULL;
             q--)
            ;
        if (*q == ',') {
            arb_buf_printf(why, "line %d, column %d: trailing comma in an "
                           "%s", err->line, col,
                           text[pos - 1] == '}' ? "object" : "array");
            return;
        }
    }
    arb_buf_printf(why, "line %d, column %d: %s", err->line, col, err->text);
}

/* Whether the tree holds a number with a fraction or an exponent: the
 * text is walked for its position only then. */
static int
has_real(json_t *v)
{
    const char *key;
    json_t     *item;
    size_t      i;

    if (json_is_real(v))
        return 1;
    if (json_is_array(v)) {
        json_array_foreach(v, i, item)
            if (has_real(item))
                return 1;
    } else if (json_is_object(v)) {
        json_object_foreach(v, key, item)
            if (has_real(item))
                return 1;
    }
    return 0;
}

int
arb_json_parse(json_t **out, const char *text, size_t len, arb_buf_t *why)
{
    json_error_t err;
    json_t      *v;
    unsigned     line = 0, col = 0;
    size_t       skip = 0;

    *out = NULL;
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        skip = 3;
    v = json_loadb(text + skip, len - skip,
                   JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &err);
    if (v == NULL) {
        if (json_error_code(&err) == json_error_out_of_memory) {
            if (why != NULL) {
                arb_buf_free(why);
                arb_buf_puts(why, "out of memory");
            }
            return ARB_ENOMEM;
        }
        if (why != NULL)
            explain(why, &err, text + skip, len - skip);
        return ARB_EINVAL;
    }
    if (has_real(v) && find_real(text, len, &line, &col)) {
        json_decref(v);
        if (why != NULL) {
            arb_buf_free(why);
            arb_buf_printf(why, "line %u, column %u: not an integer: results "
                           "are whole numbers (no fraction, no exponent)",
                           line, col);
        }
        return ARB_EINVAL;
    }
    *out = v;
    return 0;
}

const char *
arb_json_type_name(const json_t *v)
{
    if (v == NULL)
        return "null";
    switch (json_typeof(v)) {
    case JSON_OBJECT:  return "object";
    case JSON_ARRAY:   return "array";
    case JSON_STRING:  return "string";
    case JSON_INTEGER: return "integer";
    case JSON_REAL:    return "a number with a fraction";
    case JSON_TRUE:
    case JSON_FALSE:   return "true/false";
    default:           return "null";
    }
}
