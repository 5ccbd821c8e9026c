/*
 * record_json.c - a small JSON reader for `arbiter record`.
 *
 * DESIGN: the console shows a live position through the rule set's
 * describe() JSON, the one interface every game has for it, so the console
 * needs to read JSON; core/ only writes it.  This reader builds a tree,
 * accepts RFC 8259 (with \u escapes and surrogate pairs) and nothing
 * else, and bounds its depth; the input is our own engine's output, but a
 * reader that trusts its input is a bug waiting for another game.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "tools/record.h"

#define JSON_DEPTH_MAX 32

typedef struct jp {
    const char *p, *end;
    int         depth;
} jp_t;

static int parse_value(jp_t *jp, rec_json_t *out);

static void
clear(rec_json_t *j)
{
    size_t i;

    for (i = 0; i < j->n; i++) {
        clear(&j->items[i]);
        if (j->keys != NULL)
            free(j->keys[i]);
    }
    free(j->items);
    free(j->keys);
    free(j->str);
    memset(j, 0, sizeof(*j));
}

void
rec_json_free(rec_json_t *j)
{
    if (j == NULL)
        return;
    clear(j);
    free(j);
}

static void
skip_ws(jp_t *jp)
{
    while (jp->p < jp->end && (*jp->p == ' ' || *jp->p == '\t'
                               || *jp->p == '\n' || *jp->p == '\r'))
        jp->p++;
}

static int
hex4(jp_t *jp, unsigned *out)
{
    unsigned v = 0;
    int      i;

    if (jp->end - jp->p < 4)
        return ARB_EINVAL;
    for (i = 0; i < 4; i++) {
        char c = *jp->p++;
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return ARB_EINVAL;
    }
    *out = v;
    return 0;
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

/* A string at jp->p (on its opening quote) into a new C string. */
static int
parse_string(jp_t *jp, char **out)
{
    arb_buf_t b = ARB_BUF_INIT;
    unsigned  cp, lo;
    int       rc = ARB_EINVAL;

    jp->p++;
    for (;;) {
        unsigned char c;
        if (jp->p >= jp->end)
            goto fail;
        c = (unsigned char)*jp->p++;
        if (c == '"')
            break;
        if (c < 0x20)
            goto fail;
        if (c != '\\') {
            arb_buf_putc(&b, (char)c);
            continue;
        }
        if (jp->p >= jp->end)
            goto fail;
        c = (unsigned char)*jp->p++;
        switch (c) {
        case '"': case '\\': case '/': arb_buf_putc(&b, (char)c); break;
        case 'b': arb_buf_putc(&b, '\b'); break;
        case 'f': arb_buf_putc(&b, '\f'); break;
        case 'n': arb_buf_putc(&b, '\n'); break;
        case 'r': arb_buf_putc(&b, '\r'); break;
        case 't': arb_buf_putc(&b, '\t'); break;
        case 'u':
            if (hex4(jp, &cp) != 0)
                goto fail;
            if (cp >= 0xd800 && cp < 0xdc00) {
                /* A high surrogate must be followed by a low one. */
                if (jp->end - jp->p < 2 || jp->p[0] != '\\'
                    || jp->p[1] != 'u')
                    goto fail;
                jp->p += 2;
                if (hex4(jp, &lo) != 0 || lo < 0xdc00 || lo >= 0xe000)
                    goto fail;
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            } else if (cp >= 0xdc00 && cp < 0xe000) {
                goto fail;
            }
            if (cp == 0)
                goto fail;      /* a C string cannot hold it */
            put_utf8(&b, cp);
            break;
        default:
            goto fail;
        }
    }
    if (arb_buf_cstr(&b) == NULL) {
        rc = ARB_ENOMEM;
        goto fail;
    }
    *out = b.data;      /* the buffer's memory now belongs to the tree */
    return 0;

fail:
    arb_buf_free(&b);
    return rc;
}

static int
parse_number(jp_t *jp, rec_json_t *out)
{
    const char *s = jp->p;
    char       *end;
    size_t      n;

    if (jp->p < jp->end && *jp->p == '-')
        jp->p++;
    if (jp->p >= jp->end || !isdigit((unsigned char)*jp->p))
        return ARB_EINVAL;
    if (*jp->p == '0')
        jp->p++;
    else
        while (jp->p < jp->end && isdigit((unsigned char)*jp->p))
            jp->p++;
    if (jp->p < jp->end && *jp->p == '.') {
        jp->p++;
        if (jp->p >= jp->end || !isdigit((unsigned char)*jp->p))
            return ARB_EINVAL;
        while (jp->p < jp->end && isdigit((unsigned char)*jp->p))
            jp->p++;
    }
    if (jp->p < jp->end && (*jp->p == 'e' || *jp->p == 'E')) {
        jp->p++;
        if (jp->p < jp->end && (*jp->p == '+' || *jp->p == '-'))
            jp->p++;
        if (jp->p >= jp->end || !isdigit((unsigned char)*jp->p))
            return ARB_EINVAL;
        while (jp->p < jp->end && isdigit((unsigned char)*jp->p))
            jp->p++;
    }
    n = (size_t)(jp->p - s);
    out->str = strndup(s, n);
    if (out->str == NULL)
        return ARB_ENOMEM;
    out->type = REC_J_NUM;
    out->num = strtod(out->str, &end);
    return 0;
}

/* Grows the item (and key) arrays of a container by one. */
static rec_json_t *
add_item(rec_json_t *c, size_t *cap)
{
    rec_json_t *ni;
    char      **nk;
    size_t      nc;

    if (c->n == *cap) {
        nc = *cap ? *cap * 2 : 8;
        ni = realloc(c->items, nc * sizeof(*ni));
        if (ni == NULL)
            return NULL;
        c->items = ni;
        if (c->type == REC_J_OBJ) {
            nk = realloc(c->keys, nc * sizeof(*nk));
            if (nk == NULL)
                return NULL;
            c->keys = nk;
        }
        *cap = nc;
    }
    memset(&c->items[c->n], 0, sizeof(c->items[0]));
    if (c->type == REC_J_OBJ)
        c->keys[c->n] = NULL;
    return &c->items[c->n++];
}

static int
parse_container(jp_t *jp, rec_json_t *out, int obj)
{
    rec_json_t *it;
    size_t      cap = 0;
    char        close = obj ? '}' : ']';
    int         rc;

    if (++jp->depth > JSON_DEPTH_MAX)
        return ARB_EINVAL;
    out->type = obj ? REC_J_OBJ : REC_J_ARR;
    jp->p++;
    skip_ws(jp);
    if (jp->p < jp->end && *jp->p == close) {
        jp->p++;
        jp->depth--;
        return 0;
    }
    for (;;) {
        it = add_item(out, &cap);
        if (it == NULL)
            return ARB_ENOMEM;
        skip_ws(jp);
        if (obj) {
            if (jp->p >= jp->end || *jp->p != '"')
                return ARB_EINVAL;
            rc = parse_string(jp, &out->keys[out->n - 1]);
            if (rc != 0)
                return rc;
            skip_ws(jp);
            if (jp->p >= jp->end || *jp->p != ':')
                return ARB_EINVAL;
            jp->p++;
        }
        rc = parse_value(jp, it);
        if (rc != 0)
            return rc;
        skip_ws(jp);
        if (jp->p >= jp->end)
            return ARB_EINVAL;
        if (*jp->p == close) {
            jp->p++;
            jp->depth--;
            return 0;
        }
        if (*jp->p++ != ',')
            return ARB_EINVAL;
    }
}

static int
literal(jp_t *jp, const char *word)
{
    size_t n = strlen(word);

    if ((size_t)(jp->end - jp->p) < n || memcmp(jp->p, word, n) != 0)
        return ARB_EINVAL;
    jp->p += n;
    return 0;
}

static int
parse_value(jp_t *jp, rec_json_t *out)
{
    skip_ws(jp);
    if (jp->p >= jp->end)
        return ARB_EINVAL;
    switch (*jp->p) {
    case '{':
        return parse_container(jp, out, 1);
    case '[':
        return parse_container(jp, out, 0);
    case '"':
        out->type = REC_J_STR;
        return parse_string(jp, &out->str);
    case 't':
        out->type = REC_J_BOOL;
        out->boolean = 1;
        return literal(jp, "true");
    case 'f':
        out->type = REC_J_BOOL;
        return literal(jp, "false");
    case 'n':
        out->type = REC_J_NULL;
        return literal(jp, "null");
    default:
        return parse_number(jp, out);
    }
}

int
rec_json_parse(rec_json_t **out, const char *s, size_t len)
{
    rec_json_t *j;
    jp_t        jp;
    int         rc;

    *out = NULL;
    j = calloc(1, sizeof(*j));
    if (j == NULL)
        return ARB_ENOMEM;
    jp.p = s;
    jp.end = s + len;
    jp.depth = 0;
    rc = parse_value(&jp, j);
    if (rc != 0)
        goto fail;
    skip_ws(&jp);
    if (jp.p != jp.end) {
        rc = ARB_EINVAL;
        goto fail;
    }
    *out = j;
    return 0;

fail:
    rec_json_free(j);
    return rc;
}

const rec_json_t *
rec_json_get(const rec_json_t *j, const char *key)
{
    size_t i;

    if (j == NULL || j->type != REC_J_OBJ)
        return NULL;
    for (i = 0; i < j->n; i++)
        if (j->keys[i] != NULL && strcmp(j->keys[i], key) == 0)
            return &j->items[i];
    return NULL;
}

const char *
rec_json_str(const rec_json_t *j)
{
    return j != NULL && j->type == REC_J_STR ? j->str : NULL;
}

long long
rec_json_int(const rec_json_t *j, long long dflt)
{
    return j != NULL && j->type == REC_J_NUM ? (long long)j->num : dflt;
}
