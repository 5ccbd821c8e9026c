#include <stdint.h>
#include <stdio.h>

#include "core/err.h"
#include "core/limits.h"
#include "core/mp.h"
#include "core/scan.h"

enum scan_class { SC_SCALAR, SC_BLOB, SC_ARRAY, SC_MAP, SC_BAD };

/* How to skip one object: `lenbytes` big-endian length bytes follow the
 * type byte (0 when the type byte alone fixes the size); then come `extra`
 * bytes (the ext type, which an ext length does not count); `count` is the
 * body size of a scalar or blob, or the element count of a container. */
typedef struct scan_head {
    enum scan_class cls;
    const char     *name;
    size_t          lenbytes;
    uint64_t        count;      /* body bytes (SCALAR/BLOB) or elements */
    size_t          extra;
} scan_head_t;

static scan_head_t
classify(unsigned char b)
{
    scan_head_t h = { SC_SCALAR, "int", 0, 0, 0 };

    if (b <= 0x7f || b >= 0xe0)
        return h;
    if (b <= 0x8f) {
        h.cls = SC_MAP; h.name = "map"; h.count = b & 0x0f;
        return h;
    }
    if (b <= 0x9f) {
        h.cls = SC_ARRAY; h.name = "array"; h.count = b & 0x0f;
        return h;
    }
    if (b <= 0xbf) {
        h.cls = SC_BLOB; h.name = "str"; h.count = b & 0x1f;
        return h;
    }
    switch (b) {
    case 0xc0: h.name = "nil"; break;
    case 0xc1: h.cls = SC_BAD; h.name = "reserved"; break;
    case 0xc2: case 0xc3: h.name = "bool"; break;
    case 0xc4: h.cls = SC_BLOB; h.name = "bin8"; h.lenbytes = 1; break;
    case 0xc5: h.cls = SC_BLOB; h.name = "bin16"; h.lenbytes = 2; break;
    case 0xc6: h.cls = SC_BLOB; h.name = "bin32"; h.lenbytes = 4; break;
    case 0xc7: h.cls = SC_BLOB; h.name = "ext8"; h.lenbytes = 1;
               h.extra = 1; break;
    case 0xc8: h.cls = SC_BLOB; h.name = "ext16"; h.lenbytes = 2;
               h.extra = 1; break;
    case 0xc9: h.cls = SC_BLOB; h.name = "ext32"; h.lenbytes = 4;
               h.extra = 1; break;
    case 0xca: h.name = "float32"; h.count = 4; break;
    case 0xcb: h.name = "float64"; h.count = 8; break;
    case 0xcc: h.name = "uint8"; h.count = 1; break;
    case 0xcd: h.name = "uint16"; h.count = 2; break;
    case 0xce: h.name = "uint32"; h.count = 4; break;
    case 0xcf: h.name = "uint64"; h.count = 8; break;
    case 0xd0: h.name = "int8"; h.count = 1; break;
    case 0xd1: h.name = "int16"; h.count = 2; break;
    case 0xd2: h.name = "int32"; h.count = 4; break;
    case 0xd3: h.name = "int64"; h.count = 8; break;
    case 0xd4: h.name = "fixext1"; h.count = 1; h.extra = 1; break;
    case 0xd5: h.name = "fixext2"; h.count = 2; h.extra = 1; break;
    case 0xd6: h.name = "fixext4"; h.count = 4; h.extra = 1; break;
    case 0xd7: h.name = "fixext8"; h.count = 8; h.extra = 1; break;
    case 0xd8: h.name = "fixext16"; h.count = 16; h.extra = 1; break;
    case 0xd9: h.cls = SC_BLOB; h.name = "str8"; h.lenbytes = 1; break;
    case 0xda: h.cls = SC_BLOB; h.name = "str16"; h.lenbytes = 2; break;
    case 0xdb: h.cls = SC_BLOB; h.name = "str32"; h.lenbytes = 4; break;
    case 0xdc: h.cls = SC_ARRAY; h.name = "array"; h.lenbytes = 2; break;
    case 0xdd: h.cls = SC_ARRAY; h.name = "array"; h.lenbytes = 4; break;
    case 0xde: h.cls = SC_MAP; h.name = "map"; h.lenbytes = 2; break;
    default:   h.cls = SC_MAP; h.name = "map"; h.lenbytes = 4; break;
    }
    return h;
}

int
arb_msgpack_scan(const char *buf, size_t len, int depth_max,
                 size_t elems_max, arb_buf_t *why)
{
    const unsigned char *p = (const unsigned char *)buf;
    /* owed[d]: objects the open container at depth d still has to read;
     * owed[0] is the single top-level object. */
    uint64_t    owed[ARB_SCAN_DEPTH_CAP + 1];
    uint64_t    total_owed = 1, seen = 0, children, rem;
    size_t      off = 0, at;
    int         depth = 0;
    scan_head_t h;

    if ((buf == NULL && len > 0) || depth_max < 0
        || depth_max > ARB_SCAN_DEPTH_CAP)
        return arb_mp_fail(why, ARB_EINVAL, "bad scan arguments");
    if (len == 0)
        return arb_mp_fail(why, ARB_EPROTO, "empty message");
    owed[0] = 1;
    for (;;) {
        while (owed[depth] == 0) {
            if (depth == 0)
                goto done;
            depth--;
        }
        if (off >= len)
            return arb_mp_fail(why, ARB_EPROTO,
                             "truncated: %llu more objects expected at "
                             "offset %zu (end of input)",
                             (unsigned long long)total_owed, off);
        at = off;
        owed[depth]--;
        total_owed--;
        seen++;
        h = classify(p[off++]);
        rem = len - off;
        if (h.cls == SC_BAD)
            return arb_mp_fail(why, ARB_EPROTO,
                             "reserved byte 0xc1 at offset %zu", at);
        if (h.lenbytes > 0) {
            if (h.lenbytes > rem)
                return arb_mp_fail(why, ARB_EPROTO,
                                 "truncated: %s at offset %zu needs %zu "
                                 "length bytes but only %llu remain",
                                 h.name, at, h.lenbytes,
                                 (unsigned long long)rem);
            h.count = arb_load_be(p + off, h.lenbytes);
            off += h.lenbytes;
            rem -= h.lenbytes;
        }
        if (h.extra > rem)
            return arb_mp_fail(why, ARB_EPROTO,
                             "truncated: %s at offset %zu has no type byte",
                             h.name, at);
        off += h.extra;
        rem -= h.extra;
        switch (h.cls) {
        case SC_SCALAR:
        case SC_BLOB:
            if (h.count > rem)
                return arb_mp_fail(why, ARB_EPROTO,
                                 "truncated: %s at offset %zu %s %llu "
                                 "bytes but only %llu remain", h.name, at,
                                 h.cls == SC_BLOB ? "declares" : "needs",
                                 (unsigned long long)h.count,
                                 (unsigned long long)rem);
            off += (size_t)h.count;
            continue;
        case SC_ARRAY:
            children = h.count;
            break;
        default:
            children = 2 * h.count;
            break;
        }
        if (depth + 1 > depth_max)
            return arb_mp_fail(why, ARB_ETOOBIG,
                             "%s at offset %zu nests deeper than %d",
                             h.name, at, depth_max);
        if (children > rem)
            return arb_mp_fail(why, ARB_EPROTO,
                             "%s at offset %zu declares %llu %s but only "
                             "%llu bytes remain", h.name, at,
                             (unsigned long long)h.count,
                             h.cls == SC_MAP ? "entries" : "elements",
                             (unsigned long long)rem);
        /* Objects owed by enclosing containers need their bytes too. */
        if (children + total_owed > rem)
            return arb_mp_fail(why, ARB_EPROTO,
                             "%s at offset %zu declares %llu %s but only "
                             "%llu bytes remain for them and %llu "
                             "objects still owed", h.name, at,
                             (unsigned long long)h.count,
                             h.cls == SC_MAP ? "entries" : "elements",
                             (unsigned long long)rem,
                             (unsigned long long)total_owed);
        if (seen + total_owed + children > elems_max)
            return arb_mp_fail(why, ARB_ETOOBIG,
                             "%s at offset %zu brings the object count to "
                             "%llu, over the limit of %zu", h.name, at,
                             (unsigned long long)(seen + total_owed
                                                  + children), elems_max);
        total_owed += children;
        owed[++depth] = children;
    }

done:
    if (seen > elems_max)
        return arb_mp_fail(why, ARB_ETOOBIG,
                         "%llu objects, over the limit of %zu",
                         (unsigned long long)seen, elems_max);
    if (off != len)
        return arb_mp_fail(why, ARB_EPROTO,
                         "trailing bytes: the object ends at offset %zu "
                         "but the message has %zu bytes", off, len);
    return 0;
}
