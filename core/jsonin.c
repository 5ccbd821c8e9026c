/*
 * DESIGN: Jansson does the parsing; what is here is the wording of its
 * refusals and two walks over the text.  arb_json_where turns a path into
 * a line and column, over a text already accepted: it trusts the text to
 * be valid JSON and only skips.  trace turns a position into a path, the
 * other way: Jansson's refusals (a number out of range, a NUL character,
 * a duplicate key, bad syntax) carry an offset but not the field, and a
 * number with a fraction is found only after parsing.  It is one pass of
 * tokens up to that offset, on a text Jansson may have refused, so it
 * trusts nothing: no recursion, a fixed depth of path kept, every read
 * bounded by the text's end.
 *
 * Why not parse with flags that let these through (JSON_DECODE_INT_AS_REAL,
 * JSON_ALLOW_NUL) and judge the tree?  The first makes every integer a
 * double, inexact past 2^53; the second lets NULs into strings that every
 * other reader takes as C strings.  Jansson's refusal is right; only its
 * wording is not.
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "core/jsonin.h"

typedef struct walk {
    const char *p, *end, *line_start;
    unsigned    line;
} walk_t;

/* Whether c is one of set's characters (never the NUL that ends set). */
static int
in_set(const char *set, char c)
{
    return memchr(set, c, strlen(set)) != NULL;
}

static void
skip_blanks(walk_t *w)
{
    while (w->p < w->end && in_set(" \t\r\n", *w->p)) {
        if (*w->p == '\n') {
            w->line++;
            w->line_start = w->p + 1;
        }
        w->p++;
    }
}

/* Steps over the token at w->p: a string (to its closing quote, or the
 * end), one of {}[],: or a word (a number, true, junk) up to what ends
 * it.  Returns 1 for a string that the text ends inside. */
static int
skip_token(walk_t *w)
{
    if (*w->p == '"') {
        for (w->p++; w->p < w->end && *w->p != '"'; w->p++)
            if (*w->p == '\\' && w->p + 1 < w->end)
                w->p++;
        if (w->p >= w->end)
            return 1;
        w->p++;
    } else if (in_set("{}[],:", *w->p)) {
        w->p++;
    } else {
        do
            w->p++;
        while (w->p < w->end && !in_set(" \t\r\n{}[],:\"", *w->p));
    }
    return 0;
}

/* Skips one value (or one key).  Strings hold no raw newline in valid
 * JSON. */
static void
skip_value(walk_t *w)
{
    int depth = 0;

    do {
        skip_blanks(w);
        if (w->p >= w->end)
            return;
        if (*w->p == '[' || *w->p == '{')
            depth++;
        else if (*w->p == ']' || *w->p == '}')
            depth--;
        skip_token(w);
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
                skip_value(&w);         /* the key, then ':' */
                skip_blanks(&w);
                w.p++;
            }
            skip_value(&w);
            skip_blanks(&w);
            w.p++;                              /* ',' */
        }
        if (obj) {
            skip_value(&w);
            skip_blanks(&w);
            w.p++;
        }
    }
    if (w.p > w.end)
        w.p = w.end;            /* a path the text does not have */
    skip_blanks(&w);
    snprintf(out, n, "line %u, column %u: ", w.line, column(&w));
}

/* ---- from a position to a path ---------------------------------------- */

/* The levels of a path trace keeps (a claim's deepest value is at 3), and
 * the bytes of a key or a number a message quotes: a hostile text makes
 * neither the walk nor the message any longer. */
#define TRACE_DEPTH 8
#define CLIP        24

/* An open array or object on the way to a position. */
typedef struct frame {
    const char *key;            /* object: the member's key, as written */
    size_t      klen, index;    /* array: the element's index */
    int         obj;
    char        want;           /* 'k' a key, ':', 'v' a value, ',' */
} frame_t;

/* A place in a text: the token there and the path to it. */
typedef struct spot {
    const char *tok;            /* NULL: no token (the end of the text) */
    size_t      toklen;
    unsigned    line, col;      /* where tok starts */
    int         after_comma;    /* tok follows a ',' */
    char        path[256];      /* "records[2].game_points", "" at the top:
                                 * TRACE_DEPTH steps of 28 bytes at most */
} spot_t;

enum {
    TRACE_AT,                   /* the last token starting before stop */
    TRACE_END,                  /* the end, or a string left open there */
    TRACE_REAL                  /* the first number with a fraction */
};

/* s[0..len), or its first CLIP bytes and "..." (cut between characters). */
static void
clip(char out[CLIP + 4], const char *s, size_t len)
{
    size_t n = len;

    if (n > CLIP)
        for (n = CLIP; n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80; n--)
            ;
    memcpy(out, s, n);
    strcpy(out + n, n < len ? "..." : "");
}

/* One token of a text read in order, tok[0..n): the open arrays and
 * objects in f[0..*depth) as they are after it.  Past TRACE_DEPTH levels
 * the depth is counted, not kept. */
static void
trace_step(frame_t *f, size_t *depth, const char *tok, size_t n)
{
    frame_t *top = *depth > 0 && *depth <= TRACE_DEPTH ? &f[*depth - 1]
                   : NULL;

    if (*tok == '{' || *tok == '[') {
        if (*depth < TRACE_DEPTH) {
            memset(&f[*depth], 0, sizeof(f[0]));
            f[*depth].obj = *tok == '{';
            f[*depth].want = *tok == '{' ? 'k' : 'v';
        }
        ++*depth;
    } else if (*tok == '}' || *tok == ']') {
        if (*depth > 0 && --*depth > 0 && *depth <= TRACE_DEPTH)
            f[*depth - 1].want = ',';   /* what closed was a value */
    } else if (top == NULL) {
        return;
    } else if (*tok == ':' || *tok == ',') {
        if (*tok == ':' && top->want == ':')
            top->want = 'v';
        if (*tok == ',' && top->want == ',') {
            top->want = top->obj ? 'k' : 'v';
            top->index += !top->obj;
        }
    } else if (*tok == '"' && top->obj && top->want == 'k') {
        top->key = tok + 1;
        top->klen = n >= 2 ? n - 2 : 0;
        top->want = ':';
    } else {
        top->want = ',';
    }
}

/* Appends to s->path the steps of f[0..depth) that lead to the token at
 * s: the innermost one only when the token stands where a value does,
 * not where a key does, after a value, or closing its array or object. */
static void
trace_path(spot_t *s, const frame_t *f, size_t depth)
{
    char   key[CLIP + 4];
    size_t i, at = 0;

    for (i = 0; i < depth && i < TRACE_DEPTH; i++) {
        if (i + 1 == depth && (f[i].want == 'k' || f[i].want == ','
                               || (s->tok != NULL && in_set("}]", *s->tok))))
            break;
        if (f[i].obj && f[i].key != NULL) {
            clip(key, f[i].key, f[i].klen);
            at += (size_t)snprintf(s->path + at, sizeof(s->path) - at,
                                   "%s%s", at > 0 ? "." : "", key);
        } else if (!f[i].obj) {
            at += (size_t)snprintf(s->path + at, sizeof(s->path) - at,
                                   "[%zu]", f[i].index);
        }
    }
    if (depth > TRACE_DEPTH)
        snprintf(s->path + at, sizeof(s->path) - at, "...");
}

/* Finds in text[0..len) the token `mode` asks for (stop is an offset, for
 * TRACE_AT) and the path to it: one pass, no recursion, on any bytes. */
static void
trace(spot_t *s, const char *text, size_t len, size_t stop, int mode)
{
    frame_t     f[TRACE_DEPTH];
    walk_t      w;
    const char *tok, *tline;
    unsigned    line;
    size_t      depth = 0;
    char        prev = '\0';
    int         open;

    memset(s, 0, sizeof(*s));
    walk_init(&w, text, len);
    for (;;) {
        skip_blanks(&w);
        if (w.p >= w.end || (mode == TRACE_AT && w.p >= text + stop))
            break;                      /* no token: the end */
        tok = w.p;
        line = w.line;
        tline = w.line_start;
        open = skip_token(&w);
        s->toklen = (size_t)(w.p - tok);
        if (mode == TRACE_AT)
            skip_blanks(&w);
        if ((mode == TRACE_AT && (w.p >= w.end || w.p >= text + stop))
            || (mode == TRACE_END && open)
            || (mode == TRACE_REAL && in_set("-0123456789", *tok)
                && (memchr(tok, '.', s->toklen) != NULL
                    || memchr(tok, 'e', s->toklen) != NULL
                    || memchr(tok, 'E', s->toklen) != NULL))) {
            s->tok = tok;
            s->after_comma = prev == ',';
            w.p = tok;
            w.line = line;
            w.line_start = tline;
            break;
        }
        trace_step(f, &depth, tok, s->toklen);
        prev = *tok;
    }
    s->line = w.line;
    s->col = column(&w);
    trace_path(s, f, depth);
}

/* What is wrong with the number at s, which Jansson refused or read as a
 * real: a fraction or an exponent, or too many digits for 64 bits. */
static const char *
number_what(char *out, size_t n, const spot_t *s)
{
    char   num[CLIP + 4];
    size_t k = 0;
    int    real = 0;

    while (s->tok != NULL && k < s->toklen
           && in_set("+-.0123456789eE", s->tok[k]))
        real |= in_set(".eE", s->tok[k++]);
    clip(num, k > 0 ? s->tok : "the number", k > 0 ? k : 10);
    if (real)
        snprintf(out, n, "%s is not an integer: whole numbers only (no "
                 "fraction, no exponent)", num);
    else if (*num == '-')
        snprintf(out, n, "%s is out of range (at least %" PRId64 ")", num,
                 INT64_MIN);
    else
        snprintf(out, n, "%s is out of range (at most %" PRId64 ")", num,
                 INT64_MAX);
    return out;
}

/* The message of every refusal: "line L, column C: path: what", the
 * path left out at the top of the text. */
static void
refuse(arb_buf_t *why, unsigned line, unsigned col, const spot_t *s,
       const char *what)
{
    arb_buf_free(why);
    arb_buf_printf(why, "line %u, column %u: %s%s%s", line, col, s->path,
                   *s->path != '\0' ? ": " : "", what);
}

/* Jansson's refusal as "line L, column C: path: what", the path omitted
 * at the top.  The refusals a person meets in a claim get words of ours:
 * a number out of range, a NUL character (Jansson's words name the flag
 * that would allow it), a duplicate key, a trailing comma (Jansson says
 * "string or '}' expected").  These point where the token starts, as a
 * refused value's type does (Jansson points after it); the others keep
 * Jansson's column, and their text.  pos counts from text + skip. */
static void
explain(arb_buf_t *why, const json_error_t *err, const char *text,
        size_t len, size_t skip)
{
    enum json_error_code code = json_error_code(err);
    spot_t      s;
    char        what[128], key[CLIP + 4];
    const char *say = err->text;
    size_t      pos = err->position > 0 ? (size_t)err->position : 0;
    unsigned    line = err->line > 0 ? (unsigned)err->line : 1;
    unsigned    col = err->column > 0 ? (unsigned)err->column : 1;

    trace(&s, text, len, skip + (pos < len - skip ? pos : len - skip),
          code == json_error_premature_end_of_input ? TRACE_END
          : TRACE_AT);
    /* At the end of the input, point after the last character. */
    if (code == json_error_premature_end_of_input && err->column > 0)
        col++;
    if (s.tok != NULL && (code == json_error_duplicate_key
                          || code == json_error_null_character
                          || code == json_error_null_byte_in_key
                          || code == json_error_numeric_overflow)) {
        line = s.line;
        col = s.col;
    }
    if (code == json_error_duplicate_key && s.tok != NULL) {
        clip(key, s.tok, s.toklen);
        snprintf(what, sizeof(what), "key %s given twice in one object",
                 key);
        say = what;
    } else if (code == json_error_null_character) {
        say = "a NUL character (\\u0000) is not allowed";
    } else if (code == json_error_null_byte_in_key) {
        say = "a NUL character (\\u0000) is not allowed in a key";
    } else if (code == json_error_numeric_overflow) {
        say = number_what(what, sizeof(what), &s);
    } else if (s.tok != NULL && in_set("}]", *s.tok) && s.after_comma) {
        snprintf(what, sizeof(what), "trailing comma in an %s",
                 *s.tok == '}' ? "object" : "array");
        say = what;
    }
    refuse(why, line, col, &s, say);
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
    spot_t       s;
    char         what[128];
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
            explain(why, &err, text, len, skip);
        return ARB_EINVAL;
    }
    if (has_real(v)) {
        json_decref(v);
        if (why != NULL) {
            trace(&s, text, len, len, TRACE_REAL);
            refuse(why, s.line, s.col, &s,
                   number_what(what, sizeof(what), &s));
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
