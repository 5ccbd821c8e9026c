#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/mp.h"
#include "proto/request.h"

/* Copies the strs of `o` (an array, or a map's keys / values when kv is
 * 1 / 2) into a new NULL-terminated *out; entries are filled in order, so
 * a failure leaves a clearable value. */
static int
read_strs(const msgpack_object *o, int kv, const char *key, char ***out,
          arb_buf_t *why)
{
    const msgpack_object *e;
    uint32_t              i, n;
    char                  name[96];
    int                   rc;

    n = kv ? o->via.map.size : o->via.array.size;
    *out = calloc((size_t)n + 1, sizeof(char *));
    if (*out == NULL)
        return arb_mp_fail(why, ARB_ENOMEM, "%s: out of memory", key);
    for (i = 0; i < n; i++) {
        if (kv == 0)
            e = &o->via.array.ptr[i];
        else if (kv == 1)
            e = &o->via.map.ptr[i].key;
        else
            e = &o->via.map.ptr[i].val;
        /* The element's name is formatted only for a message: a
         * snprintf per element showed in the event loop's profile under
         * load.  (Without why, arb_mp_str formats nothing;
         * the second call says the same as the first, or succeeds after
         * a passing out-of-memory.) */
        if (arb_mp_str(e, &(*out)[i], NULL, NULL) == 0)
            continue;
        snprintf(name, sizeof(name), kv == 0 ? "%s[%u]" : kv == 1
                 ? "%s key #%u" : "%s value #%u", key, (unsigned)i);
        rc = arb_mp_str(e, &(*out)[i], why, name);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int
decode_one(const msgpack_object *o, const arb_req_field_t *f,
           arb_req_val_t *v, arb_buf_t *why)
{
    size_t   len, i, j;
    uint32_t count;
    int      rc;

    switch (f->type) {
    case ARB_REQ_STR:
        rc = arb_mp_str(o, &v->str, why, f->key);
        if (rc != 0)
            return rc;
        len = strlen(v->str);
        if (f->max != 0 && len > f->max)
            return arb_mp_fail(why, ARB_ETOOBIG, "%s: %zu bytes, at most "
                               "%llu", f->key, len,
                               (unsigned long long)f->max);
        if (len < f->min)
            return arb_mp_fail(why, ARB_EPROTO, "%s: %zu bytes, at least "
                               "%llu", f->key, len,
                               (unsigned long long)f->min);
        return 0;
    case ARB_REQ_UINT:
        rc = arb_mp_uint(o, &v->u, why, f->key);
        if (rc != 0)
            return rc;
        if (f->max != 0 && v->u > f->max)
            return arb_mp_fail(why, ARB_ETOOBIG, "%s: %llu, at most %llu",
                               f->key, (unsigned long long)v->u,
                               (unsigned long long)f->max);
        if (v->u < f->min)
            return arb_mp_fail(why, ARB_EPROTO, "%s: %llu, at least %llu",
                               f->key, (unsigned long long)v->u,
                               (unsigned long long)f->min);
        return 0;
    case ARB_REQ_STRV:
        if (o->type != MSGPACK_OBJECT_ARRAY)
            return arb_mp_fail(why, ARB_EPROTO, "%s: expected array, got %s",
                               f->key, arb_mp_type_name(o));
        count = o->via.array.size;
        if (f->max != 0 && count > f->max)
            return arb_mp_fail(why, ARB_ETOOBIG, "%s: %u items, at most %llu",
                               f->key, (unsigned)count,
                               (unsigned long long)f->max);
        rc = read_strs(o, 0, f->key, &v->v, why);
        if (rc == 0)
            v->n = count;
        return rc;
    case ARB_REQ_STRMAP:
    case ARB_REQ_MAP:
        if (o->type != MSGPACK_OBJECT_MAP)
            return arb_mp_fail(why, ARB_EPROTO, "%s: expected map, got %s",
                               f->key, arb_mp_type_name(o));
        count = o->via.map.size;
        if (f->max != 0 && count > f->max)
            return arb_mp_fail(why, ARB_ETOOBIG, "%s: %u entries, at most "
                               "%llu", f->key, (unsigned)count,
                               (unsigned long long)f->max);
        v->obj = o;
        if (f->type == ARB_REQ_MAP)
            return 0;
        rc = read_strs(o, 1, f->key, &v->v, why);
        if (rc == 0)
            rc = read_strs(o, 2, f->key, &v->w, why);
        if (rc != 0)
            return rc;
        v->n = count;
        for (i = 1; i < v->n; i++)
            for (j = 0; j < i; j++)
                if (strcmp(v->v[i], v->v[j]) == 0)
                    return arb_mp_fail(why, ARB_EPROTO, "%s: duplicate key "
                                       "\"%s\"", f->key, v->v[i]);
        return 0;
    }
    return arb_mp_fail(why, ARB_EPROTO, "%s: no such field type %d", f->key,
                       f->type);
}

int
arb_req_decode(const msgpack_object *map, const arb_req_field_t *fields,
               size_t nfields, arb_req_val_t *vals, arb_buf_t *why)
{
    const msgpack_object *o;
    size_t                i;
    int                   rc, dup;

    memset(vals, 0, nfields * sizeof(*vals));
    for (i = 0; i < nfields; i++) {
        /* A key twice is refused, not resolved: a proxy that reads the
         * last one would disagree with us on the op or the match (until
         * 2026-12-05 the first one won). */
        o = arb_mp_get_once(map, fields[i].key, &dup);
        if (dup)
            return arb_mp_fail(why, ARB_EPROTO, "%s: duplicate key",
                               fields[i].key);
        if (o == NULL || o->type == MSGPACK_OBJECT_NIL) {
            if (fields[i].required == ARB_REQ_REQUIRED)
                return arb_mp_fail(why, ARB_EPROTO, "%s: missing",
                                   fields[i].key);
            continue;
        }
        vals[i].present = 1;
        rc = decode_one(o, &fields[i], &vals[i], why);
        if (rc != 0)
            return rc;
    }
    return 0;
}

void
arb_req_clear(arb_req_val_t *vals, size_t n)
{
    size_t i, j;

    if (vals == NULL)
        return;
    for (i = 0; i < n; i++) {
        free(vals[i].str);
        /* The arrays are NULL-terminated and filled in order, also when
         * decoding stopped half-way. */
        for (j = 0; vals[i].v != NULL && vals[i].v[j] != NULL; j++)
            free(vals[i].v[j]);
        for (j = 0; vals[i].w != NULL && vals[i].w[j] != NULL; j++)
            free(vals[i].w[j]);
        free(vals[i].v);
        free(vals[i].w);
        memset(&vals[i], 0, sizeof(vals[i]));
    }
}
