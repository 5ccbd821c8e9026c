#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"
#include "core/err.h"
#include "core/limits.h"
#include "core/mp.h"
#include "core/scan.h"

int
arb_mp_fail(arb_buf_t *why, int rc, const char *fmt, ...)
{
    va_list ap;
    char    msg[512];

    if (why == NULL)
        return rc;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    why->len = 0;
    arb_text_clean(why, msg, strlen(msg), 0);   /* it may quote input */
    return rc;
}

int
arb_mp_buf_write(void *data, const char *buf, size_t len)
{
    arb_buf_t *out = data;

    arb_buf_add(out, buf, len);
    return out->oom ? -1 : 0;
}

void
arb_mp_packer_init(msgpack_packer *pk, arb_buf_t *out)
{
    msgpack_packer_init(pk, out, arb_mp_buf_write);
}

int
arb_mp_pack_cstr(msgpack_packer *pk, const char *s)
{
    size_t n = strlen(s);

    if (msgpack_pack_str(pk, n) != 0)
        return -1;
    return n == 0 ? 0 : msgpack_pack_str_body(pk, s, n);
}

int
arb_mp_pack_strv(msgpack_packer *pk, char *const *v, size_t n)
{
    size_t i;
    int    rc;

    rc = msgpack_pack_array(pk, n);
    for (i = 0; i < n && rc == 0; i++)
        rc = arb_mp_pack_cstr(pk, v[i]);
    return rc;
}

int
arb_mp_pack_kv_str(msgpack_packer *pk, const char *k, const char *v)
{
    return arb_mp_pack_cstr(pk, k) != 0 ? -1 : arb_mp_pack_cstr(pk, v);
}

int
arb_mp_pack_kv_uint(msgpack_packer *pk, const char *k, uint64_t v)
{
    return arb_mp_pack_cstr(pk, k) != 0 ? -1 : msgpack_pack_uint64(pk, v);
}

int
arb_mp_pack_kv_int(msgpack_packer *pk, const char *k, int64_t v)
{
    return arb_mp_pack_cstr(pk, k) != 0 ? -1 : msgpack_pack_int64(pk, v);
}

int
arb_mp_pack_kv_bool(msgpack_packer *pk, const char *k, int v)
{
    if (arb_mp_pack_cstr(pk, k) != 0)
        return -1;
    return v ? msgpack_pack_true(pk) : msgpack_pack_false(pk);
}

int
arb_mp_pack_kv_bin(msgpack_packer *pk, const char *k, const void *p,
                   size_t n)
{
    if (arb_mp_pack_cstr(pk, k) != 0 || msgpack_pack_bin(pk, n) != 0)
        return -1;
    return n == 0 ? 0 : msgpack_pack_bin_body(pk, p, n);
}

int
arb_mp_pack_kv_strv(msgpack_packer *pk, const char *k, char *const *v,
                    size_t n)
{
    return arb_mp_pack_cstr(pk, k) != 0 ? -1 : arb_mp_pack_strv(pk, v, n);
}

int
arb_mp_parse(msgpack_unpacked *res, const char *buf, size_t len,
             arb_buf_t *why)
{
    return arb_mp_parse_limits(res, buf, len, ARB_DEPTH_MAX, ARB_ELEMS_MAX,
                               why);
}

/* What both parsers check of msgpack-c's answer. */
static int
unpacked_ok(msgpack_unpack_return ur, size_t off, size_t len,
            const msgpack_object *o, arb_buf_t *why)
{
    if (ur == MSGPACK_UNPACK_NOMEM_ERROR)
        return arb_mp_fail(why, ARB_ENOMEM, "out of memory unpacking");
    /* The scan accepted exactly one complete object, so anything else
     * means msgpack-c and the scanner disagree: refuse rather than guess. */
    if (ur != MSGPACK_UNPACK_SUCCESS || off != len)
        return arb_mp_fail(why, ARB_EPROTO, "msgpack-c rejected the message");
    if (o->type != MSGPACK_OBJECT_MAP)
        return arb_mp_fail(why, ARB_EPROTO, "message: expected map, got %s",
                           arb_mp_type_name(o));
    return 0;
}

int
arb_mp_parse_limits(msgpack_unpacked *res, const char *buf, size_t len,
                    int depth_max, size_t elems_max, arb_buf_t *why)
{
    msgpack_unpack_return ur;
    size_t                off = 0;
    int                   rc;

    msgpack_unpacked_init(res);
    rc = arb_msgpack_scan(buf, len, depth_max, elems_max, why);
    if (rc != 0)
        return rc;
    ur = msgpack_unpack_next(res, buf, len, &off);
    rc = unpacked_ok(ur, off, len, &res->data, why);
    if (rc != 0)
        msgpack_unpacked_destroy(res);
    return rc;
}

int
arb_mp_parse_zone(msgpack_zone *z, msgpack_object *out, const char *buf,
                  size_t len, arb_buf_t *why)
{
    msgpack_unpack_return ur;
    size_t                off = 0;
    int                   rc;

    memset(out, 0, sizeof(*out));
    rc = arb_msgpack_scan(buf, len, ARB_DEPTH_MAX, ARB_ELEMS_MAX, why);
    if (rc != 0)
        return rc;
    ur = msgpack_unpack(buf, len, &off, z, out);
    return unpacked_ok(ur, off, len, out, why);
}

const char *
arb_mp_type_name(const msgpack_object *o)
{
    if (o == NULL)
        return "missing";
    switch (o->type) {
    case MSGPACK_OBJECT_NIL:              return "nil";
    case MSGPACK_OBJECT_BOOLEAN:          return "bool";
    case MSGPACK_OBJECT_POSITIVE_INTEGER: return "int";
    case MSGPACK_OBJECT_NEGATIVE_INTEGER: return "negative int";
    case MSGPACK_OBJECT_FLOAT32:
    case MSGPACK_OBJECT_FLOAT64:          return "float";
    case MSGPACK_OBJECT_STR:              return "str";
    case MSGPACK_OBJECT_BIN:              return "bin";
    case MSGPACK_OBJECT_ARRAY:            return "array";
    case MSGPACK_OBJECT_MAP:              return "map";
    case MSGPACK_OBJECT_EXT:              return "ext";
    }
    return "unknown";
}

static int
key_is(const msgpack_object *k, const char *key)
{
    size_t n = strlen(key);

    return k->type == MSGPACK_OBJECT_STR && k->via.str.size == n
           && memcmp(k->via.str.ptr, key, n) == 0;
}

const msgpack_object *
arb_mp_get(const msgpack_object *map, const char *key)
{
    uint32_t i;

    if (map == NULL || map->type != MSGPACK_OBJECT_MAP)
        return NULL;
    for (i = 0; i < map->via.map.size; i++)
        if (key_is(&map->via.map.ptr[i].key, key))
            return &map->via.map.ptr[i].val;
    return NULL;
}

const msgpack_object *
arb_mp_get_once(const msgpack_object *map, const char *key, int *dup)
{
    const msgpack_object *found = NULL;
    uint32_t              i;

    *dup = 0;
    if (map == NULL || map->type != MSGPACK_OBJECT_MAP)
        return NULL;
    for (i = 0; i < map->via.map.size; i++) {
        if (!key_is(&map->via.map.ptr[i].key, key))
            continue;
        if (found != NULL) {
            *dup = 1;
            break;
        }
        found = &map->via.map.ptr[i].val;
    }
    return found;
}

int
arb_mp_get_uint(const msgpack_object *map, const char *key, uint64_t *out)
{
    const msgpack_object *o = arb_mp_get(map, key);

    if (o == NULL || o->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
        return -1;
    *out = o->via.u64;
    return 0;
}

int
arb_mp_get_int(const msgpack_object *map, const char *key, int64_t *out)
{
    const msgpack_object *o = arb_mp_get(map, key);

    return o != NULL && arb_mp_int(o, out, NULL, key) == 0 ? 0 : -1;
}

int
arb_mp_get_bytes(const msgpack_object *map, const char *key, const char **p,
                 size_t *len)
{
    const msgpack_object *o = arb_mp_get(map, key);

    if (o == NULL)
        return -1;
    if (o->type == MSGPACK_OBJECT_STR) {
        *p = o->via.str.ptr;
        *len = o->via.str.size;
    } else if (o->type == MSGPACK_OBJECT_BIN) {
        *p = o->via.bin.ptr;
        *len = o->via.bin.size;
    } else {
        return -1;
    }
    return 0;
}

/* Quotes at most 32 bytes of an untrusted key for a message, escaping
 * anything that is not printable ASCII so that logs stay one line. */
static const char *
quote_key(const msgpack_object *k, char *dst, size_t cap)
{
    size_t        i, o = 0;
    unsigned char c;

    for (i = 0; i < k->via.str.size && i < 32 && o + 5 < cap; i++) {
        c = (unsigned char)k->via.str.ptr[i];
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
            dst[o++] = (char)c;
        else
            o += (size_t)snprintf(dst + o, cap - o, "\\x%02x", c);
    }
    if (i < k->via.str.size && o + 4 < cap) {
        memcpy(dst + o, "...", 3);
        o += 3;
    }
    dst[o] = '\0';
    return dst;
}

int
arb_mp_fields(const msgpack_object *map, const char *const *keys,
              size_t nkeys, int ordered, const msgpack_object **vals,
              arb_buf_t *why, const char *name)
{
    const msgpack_object_kv *kv;
    size_t                   i, j, last = 0;
    char                     q[160];

    for (j = 0; j < nkeys; j++)
        vals[j] = NULL;
    if (map == NULL || map->type != MSGPACK_OBJECT_MAP)
        return arb_mp_fail(why, ARB_EPROTO, "%s: expected map, got %s",
                           name, arb_mp_type_name(map));
    for (i = 0; i < map->via.map.size; i++) {
        kv = &map->via.map.ptr[i];
        if (kv->key.type != MSGPACK_OBJECT_STR)
            return arb_mp_fail(why, ARB_EPROTO,
                               "%s: key #%zu is %s, expected str", name, i,
                               arb_mp_type_name(&kv->key));
        for (j = 0; j < nkeys; j++)
            if (key_is(&kv->key, keys[j]))
                break;
        if (j == nkeys)
            return arb_mp_fail(why, ARB_EPROTO, "%s: unknown key \"%s\"",
                               name, quote_key(&kv->key, q, sizeof(q)));
        if (vals[j] != NULL)
            return arb_mp_fail(why, ARB_EPROTO, "%s: duplicate key \"%s\"",
                               name, keys[j]);
        if (ordered && i > 0 && j < last)
            return arb_mp_fail(why, ARB_EPROTO,
                               "%s: key \"%s\" out of order (must come "
                               "before \"%s\")", name, keys[j], keys[last]);
        vals[j] = &kv->val;
        last = j;
    }
    return 0;
}

int
arb_mp_text_valid(const char *s, size_t n)
{
    const uint64_t lo = 0x0101010101010101u, hi = 0x8080808080808080u;
    size_t         i = 0;
    uint64_t       w;

    for (; n - i >= 8; i += 8) {
        memcpy(&w, s + i, 8);
        /* A byte with its top bit set, or a zero byte: the slow path. */
        if ((w & hi) != 0 || ((w - lo) & ~w & hi) != 0)
            break;
    }
    for (; i < n; i++) {
        if ((unsigned char)s[i] >= 0x80)
            return memchr(s + i, 0, n - i) == NULL
                   && arb_mp_utf8_valid(s + i, n - i);
        if (s[i] == '\0')
            return 0;
    }
    return 1;
}

int
arb_mp_utf8_valid(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t               i = 0, k, need;
    uint32_t             cp, min;

    while (i < n) {
        if (p[i] < 0x80) {
            i++;
            continue;
        }
        if (p[i] >= 0xc2 && p[i] <= 0xdf) {
            need = 1; cp = p[i] & 0x1f; min = 0x80;
        } else if (p[i] >= 0xe0 && p[i] <= 0xef) {
            need = 2; cp = p[i] & 0x0f; min = 0x800;
        } else if (p[i] >= 0xf0 && p[i] <= 0xf4) {
            need = 3; cp = p[i] & 0x07; min = 0x10000;
        } else {
            return 0;
        }
        if (n - i - 1 < need)
            return 0;
        for (k = 1; k <= need; k++) {
            if ((p[i + k] & 0xc0) != 0x80)
                return 0;
            cp = cp << 6 | (p[i + k] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return 0;
        i += need + 1;
    }
    return 1;
}

int
arb_mp_str(const msgpack_object *o, char **out, arb_buf_t *why,
           const char *name)
{
    const char *nul;
    char       *s;
    size_t      n;

    *out = NULL;
    if (o == NULL)
        return arb_mp_fail(why, ARB_EPROTO, "%s: missing", name);
    if (o->type != MSGPACK_OBJECT_STR)
        return arb_mp_fail(why, ARB_EPROTO, "%s: expected str, got %s",
                           name, arb_mp_type_name(o));
    n = o->via.str.size;
    if (n > ARB_STR_MAX)
        return arb_mp_fail(why, ARB_ETOOBIG,
                           "%s: str of %zu bytes, over the limit of %d",
                           name, n, ARB_STR_MAX);
    nul = n > 0 ? memchr(o->via.str.ptr, '\0', n) : NULL;
    if (nul != NULL)
        return arb_mp_fail(why, ARB_EPROTO, "%s: NUL byte at offset %zu",
                           name, (size_t)(nul - o->via.str.ptr));
    if (!arb_mp_utf8_valid(o->via.str.ptr, n))
        return arb_mp_fail(why, ARB_EPROTO, "%s: invalid UTF-8", name);
    s = malloc(n + 1);
    if (s == NULL)
        return arb_mp_fail(why, ARB_ENOMEM, "%s: out of memory", name);
    if (n > 0)
        memcpy(s, o->via.str.ptr, n);
    s[n] = '\0';
    *out = s;
    return 0;
}

int
arb_mp_uint(const msgpack_object *o, uint64_t *out, arb_buf_t *why,
            const char *name)
{
    if (o == NULL)
        return arb_mp_fail(why, ARB_EPROTO, "%s: missing", name);
    if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
        return arb_mp_fail(why, ARB_EPROTO,
                           "%s: expected non-negative int, got %s", name,
                           arb_mp_type_name(o));
    *out = o->via.u64;
    return 0;
}

int
arb_mp_int(const msgpack_object *o, int64_t *out, arb_buf_t *why,
           const char *name)
{
    if (o == NULL)
        return arb_mp_fail(why, ARB_EPROTO, "%s: missing", name);
    if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) {
        *out = o->via.i64;
        return 0;
    }
    if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER) {
        if (o->via.u64 > INT64_MAX)
            return arb_mp_fail(why, ARB_EPROTO, "%s: %llu out of range",
                               name, (unsigned long long)o->via.u64);
        *out = (int64_t)o->via.u64;
        return 0;
    }
    return arb_mp_fail(why, ARB_EPROTO, "%s: expected int, got %s", name,
                       arb_mp_type_name(o));
}
