/*
 * DESIGN: recursive descent over the bytes, one function per production.
 * Newlines can only occur between tokens in valid JSON (a raw one inside a
 * string is an error), so the line count is kept by the blank skipper and
 * a column is counted from the start of its line only when it is needed.
 * Arrays and objects grow by doubling; a value is built in place inside
 * its parent, so a failure leaves a tree that jv_clear() can release.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/jsonin.h"

#define STR_(x) #x
#define STR(x)  STR_(x)
#define DEPTH_TEXT STR(ARB_JV_DEPTH_MAX)

typedef struct parser {
    const char *p, *end;
    const char *line_start;
    unsigned    line;
    arb_buf_t  *why;
} parser_t;

static unsigned
column(const parser_t *ps, const char *at)
{
    const char *q;
    unsigned    col = 1;

    for (q = ps->line_start; q < at; q++)
        if (((unsigned char)*q & 0xc0) != 0x80)
            col++;
    return col;
}

static int
fail_at(parser_t *ps, const char *at, const char *what, const char *arg)
{
    if (ps->why != NULL) {
        arb_buf_free(ps->why);
        arb_buf_printf(ps->why, "line %u, column %u: ", ps->line,
                       column(ps, at));
        arb_buf_printf(ps->why, what, arg);
    }
    return ARB_EINVAL;
}

static int
oom(parser_t *ps)
{
    if (ps->why != NULL) {
        arb_buf_free(ps->why);
        arb_buf_puts(ps->why, "out of memory");
    }
    return ARB_ENOMEM;
}

static void
skip_blanks(parser_t *ps)
{
    while (ps->p < ps->end) {
        char c = *ps->p;
        if (c == '\n') {
            ps->line++;
            ps->line_start = ps->p + 1;
        } else if (c != ' ' && c != '\t' && c != '\r') {
            break;
        }
        ps->p++;
    }
}

/* What is at p, for messages: "'x'", "byte 0xc3", "end of input". */
static const char *
what_at(const parser_t *ps, char buf[16])
{
    unsigned char c;

    if (ps->p >= ps->end)
        return "end of input";
    c = (unsigned char)*ps->p;
    if (c >= 0x20 && c < 0x7f)
        snprintf(buf, 16, "'%c'", c);
    else
        snprintf(buf, 16, "byte 0x%02x", c);
    return buf;
}

static void
jv_clear(arb_jv_t *v)
{
    size_t i;

    free(v->str);
    for (i = 0; i < v->n; i++) {
        if (v->keys != NULL)
            free(v->keys[i]);
        if (v->items != NULL)
            jv_clear(&v->items[i]);
    }
    free(v->keys);
    free(v->items);
    memset(v, 0, sizeof(*v));
}

void
arb_jv_free(arb_jv_t *v)
{
    if (v == NULL)
        return;
    jv_clear(v);
    free(v);
}

/* The length of the UTF-8 sequence at s (at most n bytes), or 0 when it is
 * not one well-formed character (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF). */
static size_t
utf8_len(const unsigned char *s, size_t n)
{
    unsigned cp;
    size_t   len, i;

    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        len = 2, cp = s[0] & 0x1f;
    else if (s[0] >= 0xe0 && s[0] <= 0xef)
        len = 3, cp = s[0] & 0x0f;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4)
        len = 4, cp = s[0] & 0x07;
    else
        return 0;
    if (n < len)
        return 0;
    for (i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000)
        || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

static void
put_utf8(arb_buf_t *b, unsigned cp)
{
    if (cp < 0x80) {
        arb_buf_putc(b, (char)cp);
    } else if (cp < 0x800) {
        arb_buf_putc(b, (char)(0xc0 | (cp >> 6)));
        arb_buf_putc(b, (char)(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
        arb_buf_putc(b, (char)(0xe0 | (cp >> 12)));
        arb_buf_putc(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
        arb_buf_putc(b, (char)(0x80 | (cp & 0x3f)));
    } else {
        arb_buf_putc(b, (char)(0xf0 | (cp >> 18)));
        arb_buf_putc(b, (char)(0x80 | ((cp >> 12) & 0x3f)));
        arb_buf_putc(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
        arb_buf_putc(b, (char)(0x80 | (cp & 0x3f)));
    }
}

/* Four hex digits at p: 0..0xffff, or -1. */
static long
hex4(const char *p, const char *end)
{
    long v = 0;
    int  i;

    if (end - p < 4)
        return -1;
    for (i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= c - '0';
        else if (c >= 'a' && c <= 'f')
            v |= c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            v |= c - 'A' + 10;
        else
            return -1;
    }
    return v;
}

/* A string token at p (which is '"'): its decoded text into *out. */
static int
parse_string(parser_t *ps, char **out)
{
    arb_buf_t   b = ARB_BUF_INIT;
    const char *q = ps->p + 1;
    long        cp, lo;
    size_t      n;
    int         rc;

    for (;;) {
        unsigned char c;
        if (q >= ps->end) {
            rc = fail_at(ps, ps->p, "unterminated string%s", "");
            goto fail;
        }
        c = (unsigned char)*q;
        if (c == '"')
            break;
        if (c < 0x20) {
            rc = fail_at(ps, q, "control character in a string (write "
                         "\\n, \\t or \\u00XX)%s", "");
            goto fail;
        }
        if (c == '\\') {
            if (q + 1 >= ps->end) {
                rc = fail_at(ps, ps->p, "unterminated string%s", "");
                goto fail;
            }
            switch (q[1]) {
            case '"':  arb_buf_putc(&b, '"');  q += 2; continue;
            case '\\': arb_buf_putc(&b, '\\'); q += 2; continue;
            case '/':  arb_buf_putc(&b, '/');  q += 2; continue;
            case 'b':  arb_buf_putc(&b, '\b'); q += 2; continue;
            case 'f':  arb_buf_putc(&b, '\f'); q += 2; continue;
            case 'n':  arb_buf_putc(&b, '\n'); q += 2; continue;
            case 'r':  arb_buf_putc(&b, '\r'); q += 2; continue;
            case 't':  arb_buf_putc(&b, '\t'); q += 2; continue;
            case 'u':  break;
            default:
                rc = fail_at(ps, q, "unknown escape in a string%s", "");
                goto fail;
            }
            cp = hex4(q + 2, ps->end);
            if (cp < 0) {
                rc = fail_at(ps, q, "\\u needs four hex digits%s", "");
                goto fail;
            }
            if (cp >= 0xd800 && cp <= 0xdbff) {
                lo = (ps->end - q >= 12 && q[6] == '\\' && q[7] == 'u')
                     ? hex4(q + 8, ps->end) : -1;
                if (lo < 0xdc00 || lo > 0xdfff) {
                    rc = fail_at(ps, q, "lone UTF-16 surrogate in a "
                                 "string%s", "");
                    goto fail;
                }
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                q += 6;
            } else if (cp >= 0xdc00 && cp <= 0xdfff) {
                rc = fail_at(ps, q, "lone UTF-16 surrogate in a string%s",
                             "");
                goto fail;
            }
            if (cp == 0) {
                rc = fail_at(ps, q, "NUL character in a string%s", "");
                goto fail;
            }
            put_utf8(&b, (unsigned)cp);
            q += 6;
            continue;
        }
        n = utf8_len((const unsigned char *)q, (size_t)(ps->end - q));
        if (n == 0) {
            rc = fail_at(ps, q, "invalid UTF-8 in a string%s", "");
            goto fail;
        }
        arb_buf_add(&b, q, n);
        q += n;
    }
    ps->p = q + 1;
    if (arb_buf_cstr(&b) == NULL) {
        rc = oom(ps);
        goto fail;
    }
    *out = b.data;          /* the buffer's storage becomes the string */
    return 0;

fail:
    arb_buf_free(&b);
    return rc;
}

static int
parse_number(parser_t *ps, arb_jv_t *v)
{
    const char *q = ps->p, *digits;
    uint64_t    mag = 0, limit;
    int         neg = 0;

    if (*q == '-') {
        neg = 1;
        q++;
    }
    digits = q;
    while (q < ps->end && *q >= '0' && *q <= '9') {
        unsigned d = (unsigned)(*q - '0');
        limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
        if (mag > (limit - d) / 10)
            return fail_at(ps, ps->p, "integer out of range (64-bit)%s",
                           "");
        mag = mag * 10 + d;
        q++;
    }
    if (q == digits)
        return fail_at(ps, ps->p, "'-' without digits%s", "");
    if (*digits == '0' && q - digits > 1)
        return fail_at(ps, ps->p, "leading zero in a number%s", "");
    if (q < ps->end && (*q == '.' || *q == 'e' || *q == 'E'))
        return fail_at(ps, ps->p, "not an integer: results are whole "
                       "numbers (no fraction, no exponent)%s", "");
    v->type = ARB_JV_INT;
    v->num = neg ? (mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN
                    : -(int64_t)mag) : (int64_t)mag;
    ps->p = q;
    return 0;
}

static int parse_value(parser_t *ps, arb_jv_t *v, int depth);

/* Makes room for one more element of an array or object. */
static int
grow(parser_t *ps, arb_jv_t *v, size_t *cap, int keyed)
{
    arb_jv_t *ni;
    char    **nk;
    size_t    ncap;

    if (v->n < *cap)
        return 0;
    ncap = *cap ? *cap * 2 : 4;
    ni = realloc(v->items, ncap * sizeof(*ni));
    if (ni == NULL)
        return oom(ps);
    v->items = ni;
    if (keyed) {
        nk = realloc(v->keys, ncap * sizeof(*nk));
        if (nk == NULL)
            return oom(ps);
        v->keys = nk;
    }
    *cap = ncap;
    return 0;
}

static int
parse_array(parser_t *ps, arb_jv_t *v, int depth)
{
    size_t cap = 0;
    char   w[16];
    int    rc;

    v->type = ARB_JV_ARRAY;
    ps->p++;
    skip_blanks(ps);
    if (ps->p < ps->end && *ps->p == ']') {
        ps->p++;
        return 0;
    }
    for (;;) {
        rc = grow(ps, v, &cap, 0);
        if (rc != 0)
            return rc;
        memset(&v->items[v->n], 0, sizeof(*v->items));
        v->n++;
        skip_blanks(ps);
        if (ps->p < ps->end && *ps->p == ']')
            return fail_at(ps, ps->p, "trailing comma in an array%s", "");
        rc = parse_value(ps, &v->items[v->n - 1], depth + 1);
        if (rc != 0)
            return rc;
        skip_blanks(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == ']') {
            ps->p++;
            return 0;
        }
        return fail_at(ps, ps->p, "expected ',' or ']' in an array, "
                       "found %s", what_at(ps, w));
    }
}

static int
parse_object(parser_t *ps, arb_jv_t *v, int depth)
{
    const char *key_at;
    size_t      cap = 0, i;
    char        w[16];
    int         rc;

    v->type = ARB_JV_OBJECT;
    ps->p++;
    skip_blanks(ps);
    if (ps->p < ps->end && *ps->p == '}') {
        ps->p++;
        return 0;
    }
    for (;;) {
        skip_blanks(ps);
        if (ps->p >= ps->end || *ps->p != '"')
            return fail_at(ps, ps->p, ps->p < ps->end && *ps->p == '}'
                           ? "trailing comma in an object%s"
                           : "expected a \"key\", found %s",
                           ps->p < ps->end && *ps->p == '}' ? ""
                           : what_at(ps, w));
        rc = grow(ps, v, &cap, 1);
        if (rc != 0)
            return rc;
        memset(&v->items[v->n], 0, sizeof(*v->items));
        v->keys[v->n] = NULL;
        v->n++;
        key_at = ps->p;
        rc = parse_string(ps, &v->keys[v->n - 1]);
        if (rc != 0)
            return rc;
        for (i = 0; i + 1 < v->n; i++)
            if (strcmp(v->keys[i], v->keys[v->n - 1]) == 0)
                return fail_at(ps, key_at, "key \"%s\" given twice in one "
                               "object", v->keys[v->n - 1]);
        skip_blanks(ps);
        if (ps->p >= ps->end || *ps->p != ':')
            return fail_at(ps, ps->p, "expected ':' after a key, found %s",
                           what_at(ps, w));
        ps->p++;
        skip_blanks(ps);
        rc = parse_value(ps, &v->items[v->n - 1], depth + 1);
        if (rc != 0)
            return rc;
        skip_blanks(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == '}') {
            ps->p++;
            return 0;
        }
        return fail_at(ps, ps->p, "expected ',' or '}' in an object, "
                       "found %s", what_at(ps, w));
    }
}

static int
literal(parser_t *ps, const char *word)
{
    size_t n = strlen(word);

    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
        return 0;
    if ((size_t)(ps->end - ps->p) > n) {
        char c = ps->p[n];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
            || (c >= '0' && c <= '9') || c == '_')
            return 0;
    }
    ps->p += n;
    return 1;
}

static int
parse_value(parser_t *ps, arb_jv_t *v, int depth)
{
    char w[16];

    skip_blanks(ps);
    v->line = ps->line;
    v->col = column(ps, ps->p);
    if (ps->p >= ps->end)
        return fail_at(ps, ps->p, "expected a value, found end of input%s",
                       "");
    if (depth > ARB_JV_DEPTH_MAX)
        return fail_at(ps, ps->p, "nested deeper than %s levels",
                       DEPTH_TEXT);
    switch (*ps->p) {
    case '{':
        return parse_object(ps, v, depth);
    case '[':
        return parse_array(ps, v, depth);
    case '"':
        v->type = ARB_JV_STR;
        return parse_string(ps, &v->str);
    case '-': case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
        return parse_number(ps, v);
    default:
        break;
    }
    if (literal(ps, "true")) {
        v->type = ARB_JV_BOOL;
        v->num = 1;
        return 0;
    }
    if (literal(ps, "false")) {
        v->type = ARB_JV_BOOL;
        return 0;
    }
    if (literal(ps, "null")) {
        v->type = ARB_JV_NULL;
        return 0;
    }
    return fail_at(ps, ps->p, "expected a value, found %s", what_at(ps, w));
}

int
arb_jv_parse(arb_jv_t **out, const char *text, size_t len, arb_buf_t *why)
{
    parser_t  ps;
    arb_jv_t *v;
    char      w[16];
    int       rc;

    *out = NULL;
    ps.p = text;
    ps.end = text + len;
    ps.line_start = text;
    ps.line = 1;
    ps.why = why;
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        ps.p += 3, ps.line_start += 3;
    v = calloc(1, sizeof(*v));
    if (v == NULL)
        return oom(&ps);
    rc = parse_value(&ps, v, 1);
    if (rc == 0) {
        skip_blanks(&ps);
        if (ps.p < ps.end)
            rc = fail_at(&ps, ps.p, "text after the JSON value: %s",
                         what_at(&ps, w));
    }
    if (rc != 0) {
        arb_jv_free(v);
        return rc;
    }
    *out = v;
    return 0;
}

const arb_jv_t *
arb_jv_get(const arb_jv_t *v, const char *key)
{
    size_t i;

    if (v == NULL || v->type != ARB_JV_OBJECT)
        return NULL;
    for (i = 0; i < v->n; i++)
        if (strcmp(v->keys[i], key) == 0)
            return &v->items[i];
    return NULL;
}

const char *
arb_jv_type_name(int type)
{
    static const char *const names[] = {
        "null", "true/false", "integer", "string", "array", "object"
    };

    if (type < 0 || type > ARB_JV_OBJECT)
        return "value";
    return names[type];
}
