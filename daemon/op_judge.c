/*
 * op_judge.c - judge a move without recording it (docs/TOURNAMENT.md).
 *
 * DESIGN: the browser's scorekeeper asks the recorder to judge rather than
 * carry a second copy of every rule set: the answer comes from the one
 * rule engine that will judge the real append.  The move is applied to a
 * copy of the committed state (arb_live_replay: of the live match, or a
 * replay while an append is in flight), never to the live state, so
 * judging changes nothing, queues nothing and needs no commit.  The
 * answer names the rule a refusal breaks, and the records the move would
 * fix (for YAHchain a completed Sota's category and points).  It may
 * differ from the append's verdict only when another append commits in
 * between; the append judges again anyway.
 */
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/json.h"
#include "core/mp.h"
#include "daemon/dispatch.h"
#include "proto/limits.h"

enum { JU_MATCH, JU_PLAYER, JU_VERB, JU_ARGS, JU_N };
static const arb_req_field_t judge_fields[JU_N] = {
    [JU_MATCH]  = { "match",  ARB_REQ_STR,  ARB_REQ_REQUIRED, 0, 0 },
    [JU_PLAYER] = { "player", ARB_REQ_STR,  ARB_REQ_REQUIRED, 0, 0 },
    [JU_VERB]   = { "verb",   ARB_REQ_STR,  ARB_REQ_REQUIRED, 0, 0 },
    [JU_ARGS]   = { "args",   ARB_REQ_STRV, ARB_REQ_OPTIONAL, 0,
                    ARB_ARGS_MAX },
};

/* {"legal":true,"records":[...]} or {"legal":false,"rule","message"}. */
static int
verdict_json(arb_buf_t *b, arb_match_t *m, const arb_event_t *ev)
{
    arb_verdict_t v;
    arb_results_t res;
    json_t       *o = json_object(), *recs;
    size_t        i;
    int           rc, bad = 0;

    rc = arb_match_apply(m, ev, &v);
    if (rc == ARB_ENOMEM) {
        json_decref(o);
        return rc;
    }
    if (rc != 0) {
        bad |= arb_json_set(o, "legal", json_false());
        bad |= arb_json_set(o, "rule", arb_json_string(v.rule));
        bad |= arb_json_set(o, "message", arb_json_string(v.msg));
        if (bad) {
            json_decref(o);
            return ARB_ENOMEM;
        }
        return arb_json_put_new(b, o);
    }
    memset(&res, 0, sizeof(res));
    rc = arb_match_results(m, &res);
    recs = json_array();
    for (i = 0; rc == 0 && i < res.nrecords; i++)
        if (res.records[i].seq == ev->seq)
            bad |= arb_json_add(recs, arb_json_record_value(&res.records[i]));
    arb_results_clear(&res);
    bad |= arb_json_set(o, "legal", json_true());
    bad |= arb_json_set(o, "records", recs);
    if (rc != 0 || bad) {
        json_decref(o);
        return ARB_ENOMEM;
    }
    return arb_json_put_new(b, o);
}

void
arb_op_judge(arb_request_t *r)
{
    arb_conn_t      *c = r->c;
    arb_req_val_t    f[JU_N];
    arb_match_info_t info;
    arb_match_t     *m = NULL;
    arb_event_t      ev;
    arb_buf_t        json = ARB_BUF_INIT, b = ARB_BUF_INIT;
    msgpack_packer   pk;
    uint64_t         upto;
    int              rc;

    memset(&ev, 0, sizeof(ev));
    if (arb_request_fields(r, judge_fields, JU_N, f) != 0)
        goto done;
    if (!arb_conn_may_record(c, f[JU_MATCH].str)) {
        arb_reply_error(c, r->id, "forbidden", NULL, "%s (%s) may not "
                        "record in match '%s'", c->identity,
                        arb_role_name(c->role), f[JU_MATCH].str);
        goto done;
    }
    rc = arb_store_match(c->srv->store, f[JU_MATCH].str, &info, &r->why);
    if (rc != 0) {
        arb_reply_error(c, r->id, arb_reply_code(rc), NULL, "no match '%s'",
                        f[JU_MATCH].str);
        goto done;
    }
    upto = arb_live_committed(c->srv, f[JU_MATCH].str, &info);
    rc = arb_live_replay(c->srv, f[JU_MATCH].str, upto, &m, &r->why);
    if (rc != 0) {
        arb_reply_error(c, r->id, arb_reply_code(rc), NULL, "%s",
                        arb_buf_cstr(&r->why));
        goto done;
    }
    ev.kind = ARB_EV_MOVE;
    ev.seq = arb_match_next_seq(m);
    ev.player = f[JU_PLAYER].str;
    ev.verb = f[JU_VERB].str;
    ev.args = f[JU_ARGS].v;
    ev.nargs = f[JU_ARGS].n;
    f[JU_PLAYER].str = f[JU_VERB].str = NULL;
    f[JU_ARGS].v = NULL;
    if (verdict_json(&json, m, &ev) != 0) {
        arb_reply_error(c, r->id, "internal", NULL, "out of memory");
        goto done;
    }
    arb_reply_begin(&b, &pk, r->id, 3);
    arb_mp_pack_kv_str(&pk, "match", f[JU_MATCH].str);
    arb_mp_pack_kv_uint(&pk, "at", upto);
    arb_mp_pack_cstr(&pk, "json");
    msgpack_pack_str(&pk, json.len);
    msgpack_pack_str_body(&pk, json.data, json.len);
    arb_conn_send(c, &b);
done:
    arb_event_clear(&ev);
    arb_match_free(m);
    arb_buf_free(&json);
    arb_req_clear(f, JU_N);
}
