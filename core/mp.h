/*
 * mp.h - safe helpers around msgpack-c for the codec and the daemon.
 *
 * Every helper that reads untrusted input takes `why` (may be NULL) and a
 * `name`, the path of the value in the message ("event.args[2]"); on
 * failure it overwrites `why` with "<name>: <what is wrong>" and returns a
 * negative ARB_E* code, so a request handler can send the text back as is.
 */
#ifndef ARB_PROTO_MP_H
#define ARB_PROTO_MP_H

#include <stddef.h>
#include <stdint.h>

#include <msgpack.h>

#include "core/buf.h"

/* ---- writing ---------------------------------------------------------- */

/* msgpack_packer write callback: appends to the arb_buf_t in `data`.
 * Returns 0, or -1 once the buffer is out of memory (out->oom is set). */
int arb_mp_buf_write(void *data, const char *buf, size_t len);

/* Points `pk` at `out`; pk holds no resources, so needs no cleanup.  After
 * a sequence of msgpack_pack_* calls check out->oom once. */
void arb_mp_packer_init(msgpack_packer *pk, arb_buf_t *out);

/* Packs the C string `s` as a msgpack str (also a map key).  Returns
 * msgpack's 0 / -1. */
int arb_mp_pack_cstr(msgpack_packer *pk, const char *s);

/* An array of n strs. */
int arb_mp_pack_strv(msgpack_packer *pk, char *const *v, size_t n);

/* One key/value pair of a map whose header was already packed: the key
 * `k` as a str, then the value.  The one vocabulary for requests,
 * responses, pushes and events; each returns msgpack's 0 / -1. */
int arb_mp_pack_kv_str(msgpack_packer *pk, const char *k, const char *v);
int arb_mp_pack_kv_uint(msgpack_packer *pk, const char *k, uint64_t v);
int arb_mp_pack_kv_int(msgpack_packer *pk, const char *k, int64_t v);
int arb_mp_pack_kv_bool(msgpack_packer *pk, const char *k, int v);
int arb_mp_pack_kv_bin(msgpack_packer *pk, const char *k, const void *p,
                       size_t n);
int arb_mp_pack_kv_strv(msgpack_packer *pk, const char *k, char *const *v,
                        size_t n);

/* ---- reading ---------------------------------------------------------- */

/* Pre-scans buf (arb_msgpack_scan with ARB_DEPTH_MAX and ARB_ELEMS_MAX),
 * unpacks it and checks that the top-level object is a map.  *res is
 * initialised here: destroy any earlier result first.  On success
 * *res owns a zone; release it with msgpack_unpacked_destroy(res), and keep
 * buf alive meanwhile because str/bin objects point into it.  On failure
 * *res is left empty (destroying it is harmless) and the result is
 * ARB_EPROTO, ARB_ETOOBIG or ARB_ENOMEM. */
int arb_mp_parse(msgpack_unpacked *res, const char *buf, size_t len,
                 arb_buf_t *why);
/* The same with explicit limits: a client reading the daemon's responses
 * (a page of events, the match list) allows more objects than a request
 * may hold. */
int arb_mp_parse_limits(msgpack_unpacked *res, const char *buf, size_t len,
                        int depth_max, size_t elems_max, arb_buf_t *why);
/* arb_mp_parse into a zone the caller owns and reuses (msgpack_zone_clear
 * between messages: no allocation per message once it has grown); *out
 * lives in z and points into buf.  Same checks and errors. */
int arb_mp_parse_zone(msgpack_zone *z, msgpack_object *out, const char *buf,
                      size_t len, arb_buf_t *why);

/* "nil", "bool", "int", "float", "str", "bin", "array", "map", "ext";
 * "missing" for NULL.  Static strings. */
const char *arb_mp_type_name(const msgpack_object *o);

/* The value stored under the str key `key`, or NULL when `map` is NULL,
 * not a map or lacks the key.  With duplicate keys it returns the first:
 * call arb_mp_fields() first to rule duplicates out. */
const msgpack_object *arb_mp_get(const msgpack_object *map, const char *key);
/* The same, and *dup = 1 when `key` is there more than once (a request
 * whose readers could disagree on which one counts). */
const msgpack_object *arb_mp_get_once(const msgpack_object *map,
                                      const char *key, int *dup);

/* Lenient readers of a trusted map (a response or a push the client
 * reads): 0 when `key` is present with the right type, else -1 and *out
 * untouched.  Untrusted input goes through arb_mp_str / arb_mp_uint /
 * arb_mp_int instead, which name what is wrong. */
int arb_mp_get_uint(const msgpack_object *map, const char *key,
                    uint64_t *out);
int arb_mp_get_int(const msgpack_object *map, const char *key, int64_t *out);
/* A str or bin value: *p points into the map, not NUL-terminated. */
int arb_mp_get_bytes(const msgpack_object *map, const char *key,
                     const char **p, size_t *len);

/* Checks the keys of `map` against the nkeys names in `keys`: every key a
 * str, known and present once; with `ordered` also in the order of
 * `keys`.  Stores the value of keys[i] in vals[i] (NULL when absent).
 * Returns 0 or ARB_EPROTO. */
int arb_mp_fields(const msgpack_object *map, const char *const *keys,
                  size_t nkeys, int ordered, const msgpack_object **vals,
                  arb_buf_t *why, const char *name);

/* Copies a str into a new NUL-terminated string (*out, owned by the
 * caller).  Rejects NULL (missing), other types, NUL bytes and invalid
 * UTF-8 (ARB_EPROTO), more than ARB_STR_MAX bytes (ARB_ETOOBIG).  *out is
 * NULL on failure. */
int arb_mp_str(const msgpack_object *o, char **out, arb_buf_t *why,
               const char *name);

/* A non-negative integer.  ARB_EPROTO when missing or of another type. */
int arb_mp_uint(const msgpack_object *o, uint64_t *out, arb_buf_t *why,
                const char *name);

/* Any integer that fits int64_t.  ARB_EPROTO otherwise. */
int arb_mp_int(const msgpack_object *o, int64_t *out, arb_buf_t *why,
               const char *name);

/* 1 when s[0..n) is well-formed UTF-8 (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), else 0. */
int arb_mp_utf8_valid(const char *s, size_t n);

/* 1 when s[0..n) is well-formed UTF-8 without a NUL byte (what a stored
 * string may hold), else 0.  Reads ASCII eight bytes at a time: replay
 * checks every string of every event it reads. */
int arb_mp_text_valid(const char *s, size_t n);

/* Overwrites `why` (when not NULL) with the formatted message and returns
 * rc, so that error paths read `return arb_mp_fail(why, ARB_EPROTO, ...)`. */
int arb_mp_fail(arb_buf_t *why, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
