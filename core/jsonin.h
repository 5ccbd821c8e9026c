/*
 * jsonin.h - a small strict JSON reader (RFC 8259) for documents people
 * write by hand: claims (docs/CLAIMS.md) and the reports they start from.
 *
 * DESIGN: strict, because a claim is evidence.  Anything RFC 8259 does not
 * allow is refused with its line and column (trailing commas, comments,
 * single quotes, leading zeros, a lone surrogate, invalid UTF-8, a control
 * character inside a string), and so are three things it allows but a
 * claim must not contain: duplicate keys in one object (which value would
 * count?), numbers with a fraction or an exponent (results are integers;
 * 12.0 is a typo, not a value) and integers outside int64.  Objects keep
 * their members in document order, so writing a parsed document again
 * keeps the writer's order.  Nesting is bounded (ARB_JV_DEPTH_MAX) so a
 * hostile file cannot exhaust the stack.
 *
 * Ownership: arb_jv_parse() returns one tree that owns every string and
 * array in it; arb_jv_free() releases it (NULL-safe).
 */
#ifndef ARB_JSONIN_H
#define ARB_JSONIN_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"

#define ARB_JV_DEPTH_MAX 32

enum arb_jv_type {
    ARB_JV_NULL = 0, ARB_JV_BOOL, ARB_JV_INT, ARB_JV_STR, ARB_JV_ARRAY,
    ARB_JV_OBJECT
};

typedef struct arb_jv arb_jv_t;
struct arb_jv {
    int        type;        /* enum arb_jv_type */
    int64_t    num;         /* INT; BOOL: 0 or 1 */
    char      *str;         /* STR: UTF-8, NUL-terminated, no NUL inside */
    size_t     n;           /* ARRAY: elements; OBJECT: members */
    arb_jv_t  *items;       /* ARRAY: the elements; OBJECT: the values */
    char     **keys;        /* OBJECT: the keys, in document order */
    unsigned   line, col;   /* where the value starts (1-based, col in
                               characters) */
};

/* Parses text[0..len) as exactly one JSON value (blanks around it are
 * allowed, a UTF-8 byte order mark at the start is skipped).  On success
 * *out owns the tree.  ARB_EINVAL with "line L, column C: <what>" in why,
 * or ARB_ENOMEM. */
int  arb_jv_parse(arb_jv_t **out, const char *text, size_t len,
                  arb_buf_t *why);
void arb_jv_free(arb_jv_t *v);                      /* NULL-safe */

/* The member `key` of an object, or NULL (also when v is no object). */
const arb_jv_t *arb_jv_get(const arb_jv_t *v, const char *key);
/* "null", "true/false", "integer", "string", "array", "object". */
const char     *arb_jv_type_name(int type);

#endif
