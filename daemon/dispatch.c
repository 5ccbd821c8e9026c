/*
 * dispatch.c - one request frame in, one response out (plus pushes): the
 * envelope, authentication, the op table with each op's least role, and
 * the helpers every op uses (dispatch.h).  The ops themselves are in
 * op_write.c and op_read.c.
 */
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/event.h"
#include "core/mp.h"
#include "core/version.h"
#include "daemon/dispatch.h"
#include "daemon/log.h"

int
arb_request_fields(arb_request_t *r, const arb_req_field_t *fields,
                   size_t nfields, arb_req_val_t *vals)
{
    size_t i;
    int    rc;

    rc = arb_req_decode(r->map, fields, nfields, vals, &r->why);
    if (rc != 0) {
        arb_reply_error(r->c, r->id, arb_reply_code(rc), NULL, "%s",
                        arb_buf_cstr(&r->why));
        return -1;
    }
    /* Every op that names a match says so alike (until 2026-12-07 a
     * state, events, checkpoint, judge, board or standings of 'bad id!'
     * was "no match", not_found, and of 65 bytes "invalid" with that
     * text or none). */
    for (i = 0; i < nfields; i++) {
        if (!vals[i].present || fields[i].type != ARB_REQ_STR
            || (strcmp(fields[i].key, "match") != 0
                && strcmp(fields[i].key, "tournament") != 0)
            || arb_name_valid(vals[i].str))
            continue;
        arb_reply_error(r->c, r->id, "invalid", NULL, "%s: '%s' is not a "
                        "match id (1..64 of A-Z a-z 0-9 _ . @ + -)",
                        fields[i].key, vals[i].str);
        arb_req_clear(vals, nfields);
        return -1;
    }
    return 0;
}

void
arb_request_ok(arb_request_t *r)
{
    arb_buf_t      b = ARB_BUF_INIT;
    msgpack_packer pk;

    arb_reply_begin(&b, &pk, r->id, 0);
    arb_conn_send(r->c, &b);
}

/* ---- auth ------------------------------------------------------------- */

int
arb_conn_take_token(arb_conn_t *c, const arb_token_t *t)
{
    size_t i;

    c->authed = 1;
    c->role = t->role;
    memcpy(c->print, t->print, sizeof(c->print));
    snprintf(c->identity, sizeof(c->identity), "%s", t->identity);
    snprintf(c->seat, sizeof(c->seat), "%s", t->seat ? t->seat : "");
    /* Copied: a SIGHUP reload frees the token table. */
    c->matches = calloc(t->nmatches + 1, sizeof(char *));
    /* Stops at the first failed copy: the first nmatches entries are the
     * ones conn_maybe_free() frees. */
    for (i = 0; c->matches != NULL && i < t->nmatches; i++) {
        if ((c->matches[i] = strdup(t->matches[i])) == NULL)
            break;
        c->nmatches++;
    }
    if (c->nmatches != t->nmatches) {
        /* Fail closed: a scorer's list cut short by a failed copy would
         * read as "every match". */
        c->authed = 0;
        c->role = 0;
        return ARB_ENOMEM;
    }
    return 0;
}

enum { AU_TOKEN, AU_N };
static const arb_req_field_t auth_fields[AU_N] = {
    [AU_TOKEN] = { "token", ARB_REQ_STR, ARB_REQ_REQUIRED, 0, 0 },
};

static void
op_auth(arb_request_t *r)
{
    arb_conn_t        *c = r->c;
    const arb_token_t *t;
    arb_req_val_t      f[AU_N];
    arb_buf_t          b = ARB_BUF_INIT;
    msgpack_packer     pk;

    if (arb_request_fields(r, auth_fields, AU_N, f) != 0) {
        arb_req_clear(f, AU_N);
        arb_conn_finish(c);
        return;
    }
    t = arb_config_auth(&c->srv->cfg, f[AU_TOKEN].str,
                        strlen(f[AU_TOKEN].str));
    arb_req_clear(f, AU_N);
    if (t == NULL) {
        arb_log(ARB_LOG_WARN, "conn %llu: bad token", (unsigned long long)c->num);
        arb_reply_error(c, r->id, "unauthenticated", NULL, "unknown token");
        arb_conn_finish(c);
        return;
    }
    if (arb_conn_take_token(c, t) != 0) {
        arb_reply_error(c, r->id, "internal", NULL, "out of memory");
        arb_conn_finish(c);
        return;
    }
    uv_timer_stop(&c->auth_timer);
    arb_log(ARB_LOG_INFO, "conn %llu: %s as %s", (unsigned long long)c->num,
            c->identity, arb_role_name(c->role));
    arb_reply_begin(&b, &pk, r->id, 3);
    arb_mp_pack_kv_str(&pk, "identity", c->identity);
    arb_mp_pack_kv_str(&pk, "role", arb_role_name(c->role));
    arb_mp_pack_kv_str(&pk, "engine", ARB_ENGINE);
    arb_conn_send(c, &b);
}

/* A read replica takes no write: the error names where to write. */
static void
refuse_on_replica(arb_request_t *r)
{
    static const arb_req_field_t f1[1] = {
        { "match", ARB_REQ_STR, ARB_REQ_OPTIONAL, 0, 0 },
    };
    arb_req_val_t v[1];
    arb_buf_t     why = ARB_BUF_INIT;

    memset(v, 0, sizeof(v));
    if (arb_req_decode(r->map, f1, 1, v, &why) != 0)
        v[0].present = 0;
    arb_replica_refuses(r->c->srv, v[0].present ? v[0].str : NULL, &why);
    arb_reply_error(r->c, r->id, "read_only", NULL, "%s",
                    arb_buf_cstr(&why));
    arb_req_clear(v, 1);
    arb_buf_free(&why);
}

/* ---- entry ------------------------------------------------------------ */

static const struct {
    const char *name;
    void      (*fn)(arb_request_t *);
    int         min_role;
} ops[] = {
    { "ping",        arb_request_ok,     ARB_ROLE_READER },
    { "open",        arb_op_open,        ARB_ROLE_ARBITER },
    { "append",      arb_op_append,      ARB_ROLE_SCORER },
    { "judge",       arb_op_judge,       ARB_ROLE_SCORER },
    { "state",       arb_op_state,       ARB_ROLE_READER },
    { "events",      arb_op_events,      ARB_ROLE_READER },
    { "matches",     arb_op_matches,     ARB_ROLE_READER },
    { "stats",       arb_op_stats,       ARB_ROLE_READER },
    { "subscribe",   arb_op_subscribe,   ARB_ROLE_READER },
    { "unsubscribe", arb_op_unsubscribe, ARB_ROLE_READER },
    { "checkpoint",  arb_op_checkpoint,  ARB_ROLE_READER },
    { "replicate",   arb_op_replicate,   ARB_ROLE_ARBITER },
    { "board",       arb_op_board,       ARB_ROLE_READER },
    { "standings",   arb_op_standings,   ARB_ROLE_READER },
    { "round",       arb_op_round,       ARB_ROLE_ARBITER },
};

/* The envelope: id and v first, so that an error about op already echoes
 * the id and a wrong version is "unsupported" whatever else is wrong. */
enum { EN_ID, EN_V, EN_N };
static const arb_req_field_t envelope_fields[EN_N] = {
    [EN_ID] = { "id", ARB_REQ_UINT, ARB_REQ_OPTIONAL, 0, 0 },
    [EN_V]  = { "v",  ARB_REQ_UINT, ARB_REQ_OPTIONAL, 0, 0 },
};
enum { OP_OP, OP_N };
static const arb_req_field_t op_fields[OP_N] = {
    [OP_OP] = { "op", ARB_REQ_STR, ARB_REQ_REQUIRED, 0, 0 },
};

/* The zone requests are unpacked into, kept from one request to the next
 * (cleared, not freed: no allocation per request once it has grown to
 * the largest request).  The loop is one thread; a dispatch inside a
 * dispatch, should one happen, gets a zone of its own. */
static msgpack_zone *req_zone;
static int           req_zone_busy;

void
arb_dispatch(arb_conn_t *c, const char *frame, size_t len)
{
    msgpack_object   obj;
    msgpack_zone    *z, *own = NULL;
    arb_request_t    r;
    arb_req_val_t    en[EN_N], f[OP_N];
    const char      *op;
    size_t           i;
    int              rc;

    memset(&r, 0, sizeof(r));
    memset(en, 0, sizeof(en));
    memset(f, 0, sizeof(f));
    r.c = c;
    if (req_zone == NULL)
        req_zone = msgpack_zone_new(MSGPACK_ZONE_CHUNK_SIZE);
    if (req_zone != NULL && !req_zone_busy) {
        z = req_zone;
        req_zone_busy = 1;
    } else {
        z = own = msgpack_zone_new(MSGPACK_ZONE_CHUNK_SIZE);
    }
    rc = z == NULL ? arb_mp_fail(&r.why, ARB_ENOMEM, "out of memory "
                                 "unpacking")
                   : arb_mp_parse_zone(z, &obj, frame, len, &r.why);
    if (rc != 0) {
        c->srv->n.frames_bad++;
        arb_reply_error(c, 0, arb_reply_code(rc), NULL, "%s",
                        arb_buf_cstr(&r.why));
        if (!c->authed)
            arb_conn_finish(c);
        goto done;
    }
    r.map = &obj;
    rc = arb_req_decode(r.map, envelope_fields, EN_N, en, &r.why);
    r.id = en[EN_ID].u;
    if (rc != 0) {
        arb_reply_error(c, r.id, arb_reply_code(rc), NULL, "%s",
                        arb_buf_cstr(&r.why));
        goto done;
    }
    if (!en[EN_V].present || en[EN_V].u != 1) {
        arb_reply_error(c, r.id, "unsupported", NULL, "protocol version "
                        "%llu is not supported: send \"v\": 1",
                        (unsigned long long)en[EN_V].u);
        goto done;
    }
    if (arb_request_fields(&r, op_fields, OP_N, f) != 0)
        goto done;
    op = f[OP_OP].str;
    if (!c->authed) {
        if (strcmp(op, "auth") == 0) {
            op_auth(&r);
        } else {
            arb_reply_error(c, r.id, "unauthenticated", NULL, "authenticate "
                            "first: {\"op\":\"auth\",\"token\":...}");
            arb_conn_finish(c);
        }
        goto done;
    }
    if (c->srv->stopping) {
        arb_reply_error(c, r.id, "shutting_down", NULL, "the daemon is "
                        "stopping");
        goto done;
    }
    if (strcmp(op, "auth") == 0) {
        arb_reply_error(c, r.id, "proto", NULL, "auth: this connection is "
                        "already authenticated as %s (%s) and keeps that "
                        "identity; another token needs a new connection",
                        c->identity, arb_role_name(c->role));
        goto done;
    }
    for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (strcmp(op, ops[i].name) == 0)
            break;
    if (i == sizeof(ops) / sizeof(ops[0])) {
        arb_reply_error(c, r.id, "unsupported", NULL, "no op '%s'", op);
        goto done;
    }
    if (c->role < ops[i].min_role) {
        arb_reply_error(c, r.id, "forbidden", NULL, "%s needs the %s role; "
                        "%s is a %s", op, arb_role_name(ops[i].min_role),
                        c->identity, arb_role_name(c->role));
        goto done;
    }
    if ((ops[i].fn == arb_op_open || ops[i].fn == arb_op_append
         || ops[i].fn == arb_op_round || ops[i].fn == arb_op_replicate)
        && c->srv->replica != NULL) {
        refuse_on_replica(&r);
        goto done;
    }
    ops[i].fn(&r);
done:
    /* Before auth, anything but a good auth ends the connection (after
     * its answer is delivered): no second try on the same connection. */
    if (!c->authed && !c->closing)
        arb_conn_finish(c);
    arb_req_clear(en, EN_N);
    arb_req_clear(f, OP_N);
    arb_buf_free(&r.why);
    if (own != NULL) {
        msgpack_zone_free(own);
    } else if (z != NULL) {
        msgpack_zone_clear(z);
        req_zone_busy = 0;
    }
}
