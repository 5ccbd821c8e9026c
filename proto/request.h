/*
 * request.h - the fields of a request, declared once per op and decoded
 * by one routine.
 *
 * DESIGN: each op of the daemon describes its request as a table of
 * fields (key, type, required or optional, limits) indexed by an enum of
 * its own, the way core/codec.c describes an event.  arb_req_decode()
 * reads every field of the table from the request map before the op runs,
 * so an op receives values that already have the right type and size and
 * never reads msgpack itself; every malformed field is refused the same
 * way, with a message naming the field.  Key order does not matter and
 * keys not in the table are ignored (proto/PROTOCOL.md, "Requests and
 * responses"); nil counts as absent.
 *
 * Ownership: the strings and arrays in arb_req_val_t are owned by the
 * values and released by arb_req_clear(); an op may take a string or a
 * whole array (v, w) by setting its pointer to NULL.  Arrays are
 * NULL-terminated.  ARB_REQ_MAP values point into the request map and
 * live as long as it does.
 */
#ifndef ARB_PROTO_REQUEST_H
#define ARB_PROTO_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#include <msgpack.h>

#include "core/buf.h"

enum arb_req_type {
    ARB_REQ_STR = 0,    /* str -> .str; min/max bound its bytes */
    ARB_REQ_UINT,       /* non-negative int -> .u; min/max bound it */
    ARB_REQ_STRV,       /* array of str -> .v/.n; max bounds the items */
    ARB_REQ_STRMAP,     /* map str -> str -> .v (keys) / .w (values) / .n;
                           max bounds the entries; a key given twice is
                           refused */
    ARB_REQ_MAP         /* any map -> .obj, read by the op's own decoder
                           (e.g. the codec's); max bounds the entries */
};

enum { ARB_REQ_OPTIONAL = 0, ARB_REQ_REQUIRED = 1 };

typedef struct arb_req_field {
    const char *key;
    int         type;       /* enum arb_req_type */
    int         required;   /* ARB_REQ_REQUIRED or ARB_REQ_OPTIONAL */
    uint64_t    min;        /* STR: least bytes; UINT: least value */
    uint64_t    max;        /* STR: most bytes (0: ARB_STR_MAX); UINT: most
                               value (0: none); STRV, STRMAP, MAP: most
                               items (0: none beyond the pre-scan's) */
} arb_req_field_t;

typedef struct arb_req_val {
    int                   present;
    char                 *str;
    uint64_t              u;
    char                **v;
    char                **w;
    size_t                n;
    const msgpack_object *obj;
} arb_req_val_t;

/* Reads the nfields fields of `fields` from the request map `map` into
 * vals[0..nfields) (vals[i] for fields[i]), which it clears first.
 * Returns 0, or on the first bad field, in table order:
 *   ARB_EPROTO  "<key>: missing" (required and absent),
 *               "<key>: expected str, got int" (wrong type),
 *               "<key>[2]: invalid UTF-8", "<key>: duplicate key \"k\"",
 *               "<key>: 0 bytes, at least 1", "<key>: 3, at least 5";
 *   ARB_ETOOBIG "<key>: 40 items, at most 32", "<key>: 300 bytes, at most
 *               128", "<key>: str of 5000 bytes, over the limit of 4096",
 *               "<key>: 9, at most 8";
 *   ARB_ENOMEM;
 * with the message in why (overwritten; may be NULL).  vals is left
 * clearable either way. */
int  arb_req_decode(const msgpack_object *map, const arb_req_field_t *fields,
                    size_t nfields, arb_req_val_t *vals, arb_buf_t *why);

/* Frees what arb_req_decode() put in vals[0..n); NULL-safe, idempotent. */
void arb_req_clear(arb_req_val_t *vals, size_t n);

#endif
