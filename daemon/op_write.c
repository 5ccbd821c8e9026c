/*
 * op_write.c - the ops that append: open and append (moves, notes,
 * rulings, claims, close).
 *
 * DESIGN: an append is judged against the match's live state before it is
 * queued, in this order: idempotency (a retry must get its original answer
 * even if the match has moved on), expected seq, role, then the rules.  A
 * refused append writes nothing.  The daemon stamps seq, time, actor and
 * the client's id into the canonical event; those bytes are what the store
 * hashes and what subscribers receive.  A claim is put in its canonical
 * form first (core/claim.h), so a retry spelled differently is still the
 * same request; it is the one kind the store takes after a close.  A
 * dealt open records only the deal's commitment; the deal itself judges
 * the moves and its secret is stored beside the chain until the close
 * reveals it.
 */
#include <stdlib.h>
#include <string.h>

#include "core/claim.h"
#include "core/codec.h"
#include "core/deal.h"
#include "core/err.h"
#include "core/mp.h"
#include "core/version.h"
#include "daemon/dispatch.h"
#include "proto/limits.h"

int
arb_conn_may_record(const arb_conn_t *c, const char *match)
{
    if (c->role == ARB_ROLE_ARBITER)
        return 1;
    return c->role == ARB_ROLE_SCORER
           && arb_scope_covers(c->matches, c->nmatches, match);
}

/* ---- judging and queueing ---------------------------------------------- */

/* Judges `ev` and queues it for the next commit, answered when it is
 * acknowledged.  `ev` is what the chain records; `judge` (when not NULL)
 * is what the rules see: an open whose deal is recorded only as a
 * commitment is judged with the deal itself, and `secret` is stored beside
 * it, outside the chain. */
static void
queue_append(arb_request_t *r, arb_live_t *l, arb_event_t *ev,
             const arb_event_t *judge, const char *secret, const char *cid)
{
    arb_conn_t    *c = r->c;
    arb_pending_t *p;
    arb_verdict_t  v;
    uint64_t       t0, t1;
    int            rc;

    p = arb_pending_new();
    if (p == NULL) {
        arb_reply_error(c, r->id, "internal", NULL, "out of memory");
        return;
    }
    p->cid = cid ? strdup(cid) : NULL;
    p->secret = secret ? strdup(secret) : NULL;
    if ((cid && p->cid == NULL) || (secret && p->secret == NULL))
        goto oom;
    /* Printable text only in what is recorded from now on (core/text.h);
     * the judged open holds the deal a commitment stands for. */
    rc = arb_event_check_text(judge != NULL ? judge : ev, &r->why);
    if (rc != 0) {
        arb_reply_error(c, r->id, "invalid", NULL, "%s",
                        arb_buf_cstr(&r->why));
        goto fail;
    }
    t0 = arb_probe_start(c->srv);
    arb_buf_reserve(&p->bytes, 192);    /* a move's bytes: one allocation */
    rc = arb_event_encode(&p->bytes, ev);
    arb_probe_add(c->srv, &c->srv->n.encode_ns, t0);
    if (rc != 0) {
        arb_event_check(ev, &r->why);
        arb_reply_error(c, r->id, arb_reply_code(rc), NULL, "%s",
                        arb_buf_cstr(&r->why));
        goto fail;
    }
    /* The log's bound, checked here: at the commit it would refuse the
     * whole batch.  Only a claim of many long records reaches it, on a
     * recorder whose frame_max is raised past it. */
    if (p->bytes.len > ARB_STORE_EVENT_MAX) {
        arb_reply_error(c, r->id, "too_big", NULL, "the event is %zu bytes "
                        "encoded, at most %u", p->bytes.len,
                        ARB_STORE_EVENT_MAX);
        goto fail;
    }
    /* The live match keeps no history (live.c) until a ruling needs it. */
    if ((ev->kind == ARB_EV_VOID || ev->kind == ARB_EV_AMEND
         || ev->kind == ARB_EV_STANDS)
        && (rc = arb_live_keep_history(c->srv, l, &r->why)) != 0) {
        arb_reply_error(c, r->id, arb_reply_code(rc), NULL, "%s",
                        arb_buf_cstr(&r->why));
        goto fail;
    }
    if (arb_commit_reserve(c->srv, l) != 0)
        goto oom;
    t1 = arb_probe_start(c->srv);
    if (ev->kind == ARB_EV_OPEN) {
        rc = arb_match_open(&l->m, judge != NULL ? judge : ev, &v);
        if (rc == 0)
            rc = arb_match_lean(l->m);
    } else {
        rc = arb_match_apply(l->m, ev, &v);
    }
    arb_probe_add(c->srv, &c->srv->n.validate_ns, t1);
    if (rc != 0) {
        arb_stats_reject(c->srv, rc);
        arb_reply_error(c, r->id, arb_reply_code(rc), v.rule, "%s", v.msg);
        goto fail;
    }
    /* A client id the match's filter may hold was looked up in the store
     * (arb_op_idem) and the loop is the only writer: the commit need not
     * ask the index again.  One the filter rules out was not looked up:
     * the commit's own check covers it, off the loop thread. */
    p->ap.cid_fresh = cid != NULL && arb_live_cid_maybe(l, cid);
    arb_pending_take(p, l, ev);
    arb_commit_wait(p, c, r->id);   /* its slot is reserved: cannot fail */
    arb_commit_enqueue(c->srv, p);
    arb_commit_kick(c->srv);
    return;

oom:
    arb_reply_error(c, r->id, "internal", NULL, "out of memory");
fail:
    arb_pending_free(p);
}

static int
same_setup(const arb_setup_t *a, const arb_setup_t *b)
{
    size_t i;

    if (a == NULL || b == NULL)
        return a == b;
    if (strcmp(a->game, b->game) != 0 || a->nplayers != b->nplayers
        || a->nteams != b->nteams || a->noptions != b->noptions)
        return 0;
    for (i = 0; i < a->nplayers; i++)
        if (strcmp(a->players[i].name, b->players[i].name) != 0
            || a->players[i].team != b->players[i].team)
            return 0;
    for (i = 0; i < a->nteams; i++)
        if (strcmp(a->teams[i], b->teams[i]) != 0)
            return 0;
    for (i = 0; i < a->noptions; i++)
        if (strcmp(a->options[i].key, b->options[i].key) != 0
            || strcmp(a->options[i].value, b->options[i].value) != 0)
            return 0;
    return 1;
}

static int
same_request(const arb_event_t *a, const arb_event_t *b)
{
    size_t i;

    if (a->kind == ARB_EV_OPEN || b->kind == ARB_EV_OPEN)
        return a->kind == b->kind && same_setup(a->setup, b->setup);
#define SEQ(x, y) ((x) == NULL ? (y) == NULL : (y) != NULL && !strcmp(x, y))
    /* A close's arguments can only be its deal's reveal, checked against
     * the open's commitment, or added by the recorder to a close sent
     * without one (reveal_deal): sent again without it, the close is the
     * one recorded (until 2026-12-06 `arbiter load` run again on a dealt
     * game's transcript was refused at its close). */
    if (a->kind == ARB_EV_CLOSE && b->kind == ARB_EV_CLOSE
        && (a->nargs == 0 || b->nargs == 0)
        && a->target == b->target)
        return SEQ(a->player, b->player) && SEQ(a->verb, b->verb)
               && SEQ(a->text, b->text);
    if (a->kind != b->kind || a->target != b->target || a->nargs != b->nargs
        || !SEQ(a->player, b->player) || !SEQ(a->verb, b->verb)
        || !SEQ(a->text, b->text))
        return 0;
    for (i = 0; i < a->nargs; i++)
        if (strcmp(a->args[i], b->args[i]) != 0)
            return 0;
#undef SEQ
    return 1;
}

static void
reply_dup(arb_request_t *r, const char *match, uint64_t seq, uint64_t pos,
          const unsigned char *h, const arb_group_open_t *g, size_t ng)
{
    arb_buf_t      b = ARB_BUF_INIT;
    msgpack_packer pk;

    arb_reply_begin(&b, &pk, r->id, 5 + (ng > 0));
    arb_mp_pack_kv_str(&pk, "match", match);
    arb_mp_pack_kv_uint(&pk, "seq", seq);
    arb_mp_pack_kv_bin(&pk, "hash", h, ARB_HASH_LEN);
    arb_mp_pack_kv_uint(&pk, "pos", pos);
    arb_mp_pack_kv_bool(&pk, "dup", 1);
    if (ng > 0)
        arb_group_pack(&pk, g, ng);
    arb_conn_send(r->c, &b);
}

/* 1 when the event at seq of match l, queued or stored, is the same
 * request as ev; ev NULL: when there is no event at seq, or one that is
 * not a further act of the round act `round` (a move of its player with
 * the verb tables and its round number). */
static int
same_at(arb_server_t *srv, arb_live_t *l, uint64_t seq,
        const arb_event_t *ev, const arb_event_t *round)
{
    const arb_event_t *at = NULL;
    arb_event_t        was;
    size_t             i;
    int                same;

    memset(&was, 0, sizeof(was));
    for (i = 0; i < l->ninflight; i++)
        if (l->inflight[i]->ev.seq == seq)
            at = &l->inflight[i]->ev;
    if (at == NULL && arb_live_event(srv, l->id, seq, &was) == 0)
        at = &was;
    if (ev != NULL)
        same = at != NULL && same_request(at, ev);
    else
        same = at == NULL || at->kind != ARB_EV_MOVE
               || at->player == NULL || at->verb == NULL
               || strcmp(at->verb, "tables") != 0
               || strcmp(at->player, round->player) != 0
               || at->nargs == 0 || round->nargs == 0
               || strcmp(at->args[0], round->args[0]) != 0;
    arb_event_clear(&was);
    return same;
}

/* 1 when the acts ev[1..n) of a round follow its first act, recorded or
 * queued at seq, and no further act of it does; n 0: ev is no round. */
static int
same_acts(arb_server_t *srv, arb_live_t *l, uint64_t seq,
          const arb_event_t *ev, size_t n)
{
    size_t k;

    if (n == 0)
        return 1;
    for (k = 1; k < n; k++)
        if (!same_at(srv, l, seq + k, &ev[k], NULL))
            return 0;
    return same_at(srv, l, seq + n, NULL, &ev[0]);
}

int
arb_op_idem(arb_request_t *r, arb_live_t *l, const char *cid,
            const arb_event_t *ev, const arb_group_open_t *g, size_t ng)
{
    return arb_op_idem_acts(r, l, cid, ev, 0, g, ng);
}

int
arb_op_idem_acts(arb_request_t *r, arb_live_t *l, const char *cid,
                 const arb_event_t *ev, size_t nev,
                 const arb_group_open_t *g, size_t ng)
{
    arb_pending_t *p;
    arb_event_t    was;
    unsigned char  hash[ARB_HASH_LEN];
    uint64_t       seq, pos = 0;
    int            rc;

    p = arb_commit_find_cid(l, cid);
    if (p != NULL && (!same_request(&p->ev, ev)
                      || !same_acts(r->c->srv, l, p->ev.seq, ev, nev))) {
        arb_reply_error(r->c, r->id, "idempotency", NULL,
                        "client event id '%s' already names a different "
                        "event (seq %llu)", cid,
                        (unsigned long long)p->ap.seq);
        return 1;
    }
    if (p != NULL) {
        /* Still committing: answer when the original is acked. */
        if (arb_commit_wait(p, r->c, r->id) != 0)
            arb_reply_error(r->c, r->id, "internal", NULL, "out of memory");
        return 1;
    }
    /* Not in the match's filter: never used, no store lookup needed. */
    if (!arb_live_cid_maybe(l, cid))
        return 0;
    rc = arb_store_idem_at(r->c->srv->store, l->id, cid, &seq, &pos, hash,
                           NULL);
    if (rc == ARB_ENOTFOUND)
        return 0;
    if (rc != 0) {
        arb_reply_error(r->c, r->id, "internal", NULL, "idempotency index: "
                        "%s", arb_strerror(rc));
        return 1;
    }
    /* An event that cannot be read is no other event (until 2026-12-08
     * out of memory here told the retry its cid named another one). */
    rc = arb_live_event(r->c->srv, l->id, seq, &was);
    if (rc != 0)
        arb_reply_error(r->c, r->id, "internal", NULL, "client event id "
                        "'%s' is recorded at seq %llu, which could not be "
                        "read: %s", cid, (unsigned long long)seq,
                        arb_strerror(rc));
    else if (!same_request(&was, ev)
             || !same_acts(r->c->srv, l, seq, ev, nev))
        arb_reply_error(r->c, r->id, "idempotency", NULL,
                        "client event id '%s' already names a different "
                        "event (seq %llu)", cid, (unsigned long long)seq);
    else if (!arb_repl_hold_retry(r->c->srv, l, seq, pos, hash, r->c,
                                  r->id))
        reply_dup(r, l->id, seq, pos, hash, g, ng);
    arb_event_clear(&was);
    return 1;
}

/* The close of a dealt match reveals the deal committed at open, so the
 * sealed record is enough to re-derive it. */
static int
reveal_deal(arb_live_t *l, arb_event_t *ev)
{
    const arb_setup_t *su = arb_match_setup(l->m);
    const char        *kind;
    arb_buf_t          sec = ARB_BUF_INIT;
    int                rc;

    if (su->deal.kind != ARB_DEAL_SEED && su->deal.kind != ARB_DEAL_ORDER)
        return 0;
    rc = arb_deal_secret(&su->deal, &sec, &kind);
    if (rc == 0 && (arb_event_add_arg(ev, kind) != 0
                    || arb_event_add_arg(ev, arb_buf_cstr(&sec)) != 0))
        rc = ARB_ENOMEM;
    arb_buf_free(&sec);
    return rc;
}

/* ---- append ----------------------------------------------------------- */

enum {
    AP_MATCH, AP_CID, AP_KIND, AP_EXPECT, AP_TARGET, AP_PLAYER, AP_VERB,
    AP_TEXT, AP_ARGS, AP_N
};
static const arb_req_field_t append_fields[AP_N] = {
    [AP_MATCH]  = { "match",  ARB_REQ_STR,  ARB_REQ_REQUIRED, 0, 0 },
    [AP_CID]    = { "cid",    ARB_REQ_STR,  ARB_REQ_OPTIONAL, 1,
                    ARB_STORE_CLIENT_MAX },
    [AP_KIND]   = { "kind",   ARB_REQ_STR,  ARB_REQ_REQUIRED, 0, 0 },
    [AP_EXPECT] = { "expect", ARB_REQ_UINT, ARB_REQ_OPTIONAL, 0, 0 },
    [AP_TARGET] = { "target", ARB_REQ_UINT, ARB_REQ_OPTIONAL, 0, 0 },
    [AP_PLAYER] = { "player", ARB_REQ_STR,  ARB_REQ_OPTIONAL, 0, 0 },
    [AP_VERB]   = { "verb",   ARB_REQ_STR,  ARB_REQ_OPTIONAL, 0, 0 },
    [AP_TEXT]   = { "text",   ARB_REQ_STR,  ARB_REQ_OPTIONAL, 0, 0 },
    /* (A claim's records; other kinds are held to ARB_ARGS_MAX below.) */
    [AP_ARGS]   = { "args",   ARB_REQ_STRV, ARB_REQ_OPTIONAL, 0,
                    ARB_CLAIM_RECORDS_MAX },
};

void
arb_op_append(arb_request_t *r)
{
    arb_conn_t    *c = r->c;
    arb_req_val_t  f[AP_N];
    arb_event_t    ev;
    arb_live_t    *l = NULL;
    const char    *match, *cid, *kind, *fence;
    int            k, rc;

    memset(&ev, 0, sizeof(ev));
    if (arb_request_fields(r, append_fields, AP_N, f) != 0)
        goto done;
    match = f[AP_MATCH].str;
    cid = f[AP_CID].str;
    kind = f[AP_KIND].str;
    k = arb_event_kind_parse(kind);
    if (k == ARB_EV_OPEN) {
        arb_reply_error(c, r->id, "proto", NULL, "kind 'open': a match is "
                        "opened with the op open, not appended");
        goto done;
    }
    if (k < ARB_EV_OPEN) {
        arb_reply_error(c, r->id, "proto", NULL, "kind '%s' does not exist: "
                        "move, note, close, void, amend, stands or claim",
                        kind);
        goto done;
    }
    if (f[AP_ARGS].n > arb_event_args_max(k)) {
        arb_reply_error(c, r->id, "too_big", NULL, "args: %zu items, at "
                        "most %zu for a %s", f[AP_ARGS].n,
                        arb_event_args_max(k), kind);
        goto done;
    }
    /* Absent is not 0: a target on a kind without one is refused. */
    if (f[AP_TARGET].present && !arb_event_takes_target(k)) {
        arb_reply_error(c, r->id, "proto", NULL, "target: a %s has no "
                        "target", kind);
        goto done;
    }
    if (!f[AP_TARGET].present && arb_event_takes_target(k)) {
        arb_reply_error(c, r->id, "proto", NULL, "target: missing (a %s "
                        "names the seq it rules on)", kind);
        goto done;
    }
    /* The event takes the decoded strings. */
    ev.kind = k;
    ev.target = f[AP_TARGET].u;
    ev.player = f[AP_PLAYER].str;
    ev.verb = f[AP_VERB].str;
    ev.text = f[AP_TEXT].str;
    ev.args = f[AP_ARGS].v;
    ev.nargs = f[AP_ARGS].n;
    f[AP_PLAYER].str = f[AP_VERB].str = f[AP_TEXT].str = NULL;
    f[AP_ARGS].v = NULL;
    /* The fields the kind requires and forbids are the request's shape
     * (PROTOCOL.md's kind table): missing or extra is proto, as any other
     * field, named as the request names it (until 2026-12-05 all but
     * target came back from the store's check as invalid). */
    rc = arb_event_check_shape(&ev, &r->why);
    if (rc != 0) {
        const char *msg = arb_buf_cstr(&r->why);

        if (strncmp(msg, "event.", 6) == 0)
            msg += 6;
        arb_reply_error(c, r->id, "proto", NULL, "%s", msg);
        goto done;
    }
    if (k == ARB_EV_MOVE || k == ARB_EV_NOTE || k == ARB_EV_CLAIM) {
        if (!arb_conn_may_record(c, match)) {
            arb_reply_error(c, r->id, "forbidden", NULL, "%s (%s) may not "
                            "record in match '%s'", c->identity,
                            arb_role_name(c->role), match);
            goto done;
        }
    } else if (c->role != ARB_ROLE_ARBITER) {
        arb_reply_error(c, r->id, "forbidden", NULL, "%s is an arbiter's "
                        "ruling; %s is a %s", kind, c->identity,
                        arb_role_name(c->role));
        goto done;
    }
    /* Out of memory is no fault of the claim's (until 2026-12-08 it was
     * answered `invalid`, as if the claim were wrong). */
    if (k == ARB_EV_CLAIM
        && (rc = arb_claim_event_canon(&ev, &r->why)) != 0) {
        arb_reply_error(c, r->id, rc == ARB_ENOMEM ? "internal" : "invalid",
                        rc == ARB_ENOMEM ? NULL : "claim", "%s",
                        arb_buf_cstr(&r->why) ? arb_buf_cstr(&r->why)
                                              : "out of memory");
        goto done;
    }
    rc = arb_live_get(c->srv, match, &l, &r->why);
    if (rc != 0) {
        if (rc == ARB_ENOTFOUND)
            arb_reply_error(c, r->id, "not_found", NULL, "no match '%s'",
                            match);
        else
            arb_reply_error(c, r->id, arb_reply_code(rc), NULL, "%s",
                            arb_buf_cstr(&r->why));
        goto done;
    }
    /* A tournament's moves are the director's acts (docs/TOURNAMENT.md). */
    if (k == ARB_EV_MOVE && c->role != ARB_ROLE_ARBITER
        && strcmp(l->game, "tournament") == 0) {
        arb_reply_error(c, r->id, "forbidden", NULL, "a tournament's rounds "
                        "are an arbiter's acts; %s is a %s", c->identity,
                        arb_role_name(c->role));
        goto done;
    }
    if (cid != NULL && arb_op_idem(r, l, cid, &ev, NULL, 0))
        goto done;
    if ((fence = arb_repl_fenced(c->srv, match, &r->why)) != NULL) {
        arb_reply_error(c, r->id, fence, NULL, "%s", arb_buf_cstr(&r->why));
        goto done;
    }
    if (f[AP_EXPECT].present
        && f[AP_EXPECT].u != arb_match_next_seq(l->m) - 1) {
        arb_reply_error(c, r->id, "conflict", NULL, "expected seq %llu, "
                        "match is at %llu",
                        (unsigned long long)f[AP_EXPECT].u,
                        (unsigned long long)(arb_match_next_seq(l->m) - 1));
        goto done;
    }
    if (k == ARB_EV_CLOSE && ev.nargs == 0 && reveal_deal(l, &ev) != 0) {
        arb_reply_error(c, r->id, "internal", NULL, "out of memory");
        goto done;
    }
    ev.seq = arb_match_next_seq(l->m);
    ev.time_ms = arb_now_ms();
    ev.actor = strdup(c->identity);
    ev.client_id = cid ? strdup(cid) : NULL;
    queue_append(r, l, &ev, NULL, NULL, cid);
done:
    arb_event_clear(&ev);
    arb_req_clear(f, AP_N);
}

/* ---- open ------------------------------------------------------------- */

enum {
    OP_MATCH, OP_GAME, OP_CID, OP_PLAYERS, OP_TEAMS, OP_OPTIONS, OP_DEAL,
    OP_N
};
static const arb_req_field_t open_fields[OP_N] = {
    [OP_MATCH]   = { "match",   ARB_REQ_STR,    ARB_REQ_REQUIRED, 0, 0 },
    [OP_GAME]    = { "game",    ARB_REQ_STR,    ARB_REQ_REQUIRED, 0, 0 },
    [OP_CID]     = { "cid",     ARB_REQ_STR,    ARB_REQ_OPTIONAL, 1,
                     ARB_STORE_CLIENT_MAX },
    [OP_PLAYERS] = { "players", ARB_REQ_STRV,   ARB_REQ_REQUIRED, 0,
                     ARB_PLAYERS_MAX },
    [OP_TEAMS]   = { "teams",   ARB_REQ_STRV,   ARB_REQ_OPTIONAL, 0,
                     ARB_TEAMS_MAX },
    [OP_OPTIONS] = { "options", ARB_REQ_STRMAP, ARB_REQ_OPTIONAL, 0,
                     ARB_OPTIONS_MAX },
    /* {kind: "seed", seed} | {kind: "order", cards}: read by the codec. */
    [OP_DEAL]    = { "deal",    ARB_REQ_MAP,    ARB_REQ_OPTIONAL, 0, 0 },
};

/* The deal as the request states it, decoded by the codec's own deal
 * reader; a card may hold no blank because the stored secret joins the
 * cards with blanks. */
static int
open_deal(arb_request_t *r, const arb_req_val_t *f, arb_setup_t *s)
{
    size_t i;
    int    rc;

    if (!f[OP_DEAL].present)
        return 0;
    rc = arb_deal_decode(&s->deal, f[OP_DEAL].obj, &r->why, "deal");
    if (rc != 0) {
        arb_reply_error(r->c, r->id, arb_reply_code(rc), NULL, "%s",
                        arb_buf_cstr(&r->why));
        return -1;
    }
    for (i = 0; i < s->deal.ncards; i++)
        if (strchr(s->deal.cards[i], ' ') != NULL) {
            arb_reply_error(r->c, r->id, "proto", NULL, "deal.cards[%zu]: "
                            "a card has a blank", i);
            return -1;
        }
    return 0;
}

void
arb_op_open(arb_request_t *r)
{
    arb_conn_t       *c = r->c;
    arb_req_val_t     f[OP_N];
    arb_event_t       ev, recorded;
    arb_buf_t         secret = ARB_BUF_INIT;
    arb_setup_t      *s;
    arb_live_t       *l = NULL;
    arb_match_info_t  info;
    const char       *match, *game, *cid, *owner, *fence;
    char            **players, **teams;
    size_t            np, nt, i, k;

    memset(&ev, 0, sizeof(ev));
    memset(&recorded, 0, sizeof(recorded));
    if (arb_request_fields(r, open_fields, OP_N, f) != 0)
        goto done;
    match = f[OP_MATCH].str;
    game = f[OP_GAME].str;
    cid = f[OP_CID].str;
    players = f[OP_PLAYERS].v;
    np = f[OP_PLAYERS].n;
    teams = f[OP_TEAMS].v;
    nt = f[OP_TEAMS].n;
    if (!arb_name_valid(match) || strlen(match) > ARB_STORE_ID_MAX) {
        arb_reply_error(c, r->id, "invalid", NULL, "match id '%s' must be "
                        "1..64 of A-Z a-z 0-9 _ . @ + -", match);
        goto done;
    }
    if (arb_rules_find(game) == NULL) {
        arb_reply_error(c, r->id, "unsupported", NULL, "unknown game '%s'",
                        game);
        goto done;
    }
    /* Several recorders, one stream: each opens only its own matches. */
    owner = arb_repl_owner(&c->srv->cfg.repl, match);
    if (owner != NULL) {
        if (owner[0] != '\0')
            arb_reply_error(c, r->id, "not_owner", NULL, "match '%s' "
                            "belongs to recorder %s, not %s: open it "
                            "there", match, owner,
                            c->srv->cfg.repl.recorder);
        else
            arb_reply_error(c, r->id, "not_owner", NULL, "no recorder "
                            "owns match '%s': this one (%s) opens only "
                            "ids starting with its own prefixes", match,
                            c->srv->cfg.repl.recorder);
        goto done;
    }
    ev.kind = ARB_EV_OPEN;
    s = ev.setup = calloc(1, sizeof(*s));
    if (s == NULL)
        goto oom;
    s->game = strdup(game);
    s->match_id = strdup(match);
    s->edition = strdup(arb_rules_find(game)->edition);
    s->engine = strdup(ARB_ENGINE);
    if (s->game == NULL || s->match_id == NULL || s->edition == NULL
        || s->engine == NULL)
        goto oom;
    for (i = 0; i < nt; i++) {
        if (!arb_name_valid(teams[i])) {
            arb_reply_error(c, r->id, "invalid", NULL, "team '%s' is not a "
                            "valid name", teams[i]);
            goto done;
        }
        if (arb_setup_add_team(s, teams[i]) != 0)
            goto oom;
    }
    for (i = 0; i < np; i++) {
        char *colon = strchr(players[i], ':');
        int   team = -1;
        if (colon != NULL) {
            *colon++ = '\0';
            for (k = 0; k < nt; k++)
                if (strcmp(teams[k], colon) == 0)
                    team = (int)k;
            if (team < 0) {
                arb_reply_error(c, r->id, "invalid", NULL, "players[%zu]: "
                                "no team '%s'", i, colon);
                goto done;
            }
        }
        if (!arb_name_valid(players[i]) || arb_setup_seat(s, players[i]) >= 0) {
            arb_reply_error(c, r->id, "invalid", NULL, "players[%zu]: '%s' "
                            "is not a valid, unique name", i, players[i]);
            goto done;
        }
        if (arb_setup_add_player(s, players[i], team) != 0)
            goto oom;
    }
    for (i = 0; i < f[OP_OPTIONS].n; i++)
        if (arb_setup_set_option(s, f[OP_OPTIONS].v[i],
                                 f[OP_OPTIONS].w[i]) != 0)
            goto oom;
    /* An open retried with its client id gets its original answer; any
     * other open of an existing id is refused. */
    if (arb_live_get(c->srv, match, &l, NULL) == 0
        || arb_store_match(c->srv->store, match, &info, NULL) == 0) {
        if (l == NULL || cid == NULL
            || !arb_op_idem(r, l, cid, &ev, NULL, 0))
            arb_reply_error(c, r->id, "exists", NULL, "match '%s' already "
                            "exists", match);
        goto done;
    }
    /* The stream may hold the match although this log does not. */
    if ((fence = arb_repl_fenced(c->srv, match, &r->why)) != NULL) {
        arb_reply_error(c, r->id, fence, NULL, "%s", arb_buf_cstr(&r->why));
        goto done;
    }
    if (open_deal(r, f, s) != 0)
        goto done;
    /* Nothing may be dropped from what the chain records: a failed copy
     * is an error, never an open without it. */
    ev.seq = 0;
    ev.time_ms = arb_now_ms();
    ev.actor = strdup(c->identity);
    ev.client_id = cid ? strdup(cid) : NULL;
    if (ev.actor == NULL || (cid != NULL && ev.client_id == NULL))
        goto oom;
    l = arb_live_new(c->srv, match);
    if (l == NULL)
        goto oom;
    snprintf(l->game, sizeof(l->game), "%s", game);
    if (s->deal.kind != ARB_DEAL_NONE) {
        /* The chain gets only the commitment; the rules get the deal. */
        const char *kind;
        arb_buf_t   sec = ARB_BUF_INIT;
        if (arb_deal_secret(&s->deal, &sec, &kind) != 0
            || arb_event_copy(&recorded, &ev) != 0
            || arb_deal_commit(&recorded.setup->deal, &kind) != 0) {
            arb_buf_free(&sec);
            arb_reply_error(c, r->id, "internal", NULL, "out of memory");
            arb_live_reset(c->srv, l);
            goto done;
        }
        memcpy(s->deal.seed_hash, recorded.setup->deal.seed_hash, ARB_HASH_LEN);
        secret.len = 0;
        arb_deal_stored_format(&secret, kind, arb_buf_cstr(&sec));
        arb_buf_free(&sec);
        if (secret.oom) {
            arb_live_reset(c->srv, l);
            goto oom;
        }
        queue_append(r, l, &recorded, &ev, arb_buf_cstr(&secret), cid);
    } else {
        queue_append(r, l, &ev, NULL, NULL, cid);
    }
    if (l->m == NULL)
        arb_live_reset(c->srv, l);  /* refused: forget the empty entry */
    goto done;
oom:
    arb_reply_error(c, r->id, "internal", NULL, "out of memory");
done:
    arb_event_clear(&ev);
    arb_event_clear(&recorded);
    arb_buf_free(&secret);
    arb_req_clear(f, OP_N);
}
