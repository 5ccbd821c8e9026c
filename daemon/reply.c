/*
 * reply.c - responses.  Every response is {"v":1,"id":N,"ok":bool,...};
 * errors carry {"code","message"[,"rule"]} with a code from the table in
 * proto/PROTOCOL.md.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "daemon/server.h"
#include "core/mp.h"
#include "core/text.h"

void
arb_reply_begin(arb_buf_t *b, msgpack_packer *pk, uint64_t id, size_t nfields)
{
    static const char hdr[4] = { 0, 0, 0, 0 };

    /* Room for a usual answer (an append's ack is about 110 bytes) in
     * one allocation rather than a doubling from 64. */
    arb_buf_reserve(b, 192);
    arb_buf_add(b, hdr, 4);             /* length, filled by conn_send */
    arb_mp_packer_init(pk, b);
    msgpack_pack_map(pk, 3 + nfields);
    arb_mp_pack_kv_uint(pk, "v", 1);
    arb_mp_pack_kv_uint(pk, "id", id);
    arb_mp_pack_kv_bool(pk, "ok", 1);
}

const char *
arb_reply_code(int rc)
{
    switch (rc) {
    case ARB_EPROTO:    return "proto";
    case ARB_ETOOBIG:   return "too_big";
    case ARB_EUNSUPP:   return "unsupported";
    case ARB_EPERM:     return "forbidden";
    case ARB_ENOTFOUND: return "not_found";
    case ARB_EEXIST:    return "exists";
    case ARB_ECONFLICT: return "conflict";
    case ARB_EILLEGAL:  return "illegal";
    case ARB_EINVAL:    return "invalid";
    case ARB_EOVER:     return "over";
    case ARB_EFULL:     return "full";
    case ARB_EAGAIN:    return "busy";
    case ARB_ESEALED:   return "read_only";
    default:            return "internal";
    }
}

void
arb_reply_error(arb_conn_t *c, uint64_t id, const char *code,
                const char *rule, const char *fmt, ...)
{
    arb_buf_t      b = ARB_BUF_INIT, clean = ARB_BUF_INIT;
    msgpack_packer pk;
    const char    *shown;
    char           msg[512];
    va_list        ap;
    static const char hdr[4] = { 0, 0, 0, 0 };

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    /* A message quotes what the request sent (a name, an option, a move):
     * shown cleaned, it is UTF-8 (msgpack str; a cut at 511 bytes may
     * split a character) and cannot drive the terminal that prints it. */
    arb_text_clean(&clean, msg, strlen(msg), 0);
    shown = clean.oom ? NULL : arb_buf_cstr(&clean);
    arb_buf_add(&b, hdr, 4);
    arb_mp_packer_init(&pk, &b);
    msgpack_pack_map(&pk, 4);
    arb_mp_pack_kv_uint(&pk, "v", 1);
    arb_mp_pack_kv_uint(&pk, "id", id);
    arb_mp_pack_kv_bool(&pk, "ok", 0);
    arb_mp_pack_cstr(&pk, "error");
    msgpack_pack_map(&pk, rule != NULL && *rule ? 3 : 2);
    arb_mp_pack_kv_str(&pk, "code", code);
    arb_mp_pack_kv_str(&pk, "message", shown ? shown : "out of memory");
    if (rule != NULL && *rule)
        arb_mp_pack_kv_str(&pk, "rule", rule);
    arb_buf_free(&clean);
    arb_conn_send(c, &b);
}

void
arb_reply_push_error(arb_conn_t *c, uint64_t sub, const char *code,
                     const char *message)
{
    arb_buf_t      b = ARB_BUF_INIT;
    msgpack_packer pk;
    static const char hdr[4] = { 0, 0, 0, 0 };

    arb_buf_add(&b, hdr, 4);
    arb_mp_packer_init(&pk, &b);
    msgpack_pack_map(&pk, sub != 0 ? 4 : 3);
    arb_mp_pack_kv_uint(&pk, "v", 1);
    arb_mp_pack_kv_str(&pk, "push", "error");
    if (sub != 0)
        arb_mp_pack_kv_uint(&pk, "sub", sub);
    arb_mp_pack_cstr(&pk, "error");
    msgpack_pack_map(&pk, 2);
    arb_mp_pack_kv_str(&pk, "code", code);
    arb_mp_pack_kv_str(&pk, "message", message);
    arb_conn_send_owed(c, &b);
}
