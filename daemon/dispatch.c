/*
 * dispatch.c - one request frame in, one response out (plus pushes).
 *
 * DESIGN: an append is judged against the match's live state before it is
 * queued, in this order: idempotency (a retry must get its original answer
 * even if the match has moved on), expected seq, role, then the rules.  A
 * refused append writes nothing.  The daemon stamps seq, time, actor and
 * the client's id into the canonical event; those bytes are what the store
 * hashes and what subscribers receive.  A claim is put in its canonical
 * form first (core/claim.h), so a retry spelled differently is still the
 * same request; it is the one kind the store takes after a close.
 */
#include <stdlib.h>
#include <string.h>

#include "core/claim.h"
#include "core/deal.h"
#include "core/err.h"
#include "core/replay.h"
#include "core/version.h"
#include "daemon/log.h"
#include "daemon/server.h"
#include "core/codec.h"
#include "proto/limits.h"
#include "core/mp.h"

typedef struct req {
    arb_conn_t           *c;
    uint64_t              id;
    const msgpack_object *map;
    arb_buf_t             why;
} req_t;

static const msgpack_object *
get(req_t *r, const char *k)
{
    return arb_mp_get(r->map, k);
}

/* Optional string field: 0 (absent: *out NULL) or an error already sent. */
static int
opt_str(req_t *r, const char *k, char **out)
{
    const msgpack_object *o = get(r, k);

    *out = NULL;
    if (o == NULL || o->type == MSGPACK_OBJECT_NIL)
        return 0;
    if (arb_mp_str(o, out, &r->why, k) != 0) {
        arb_reply_error(r->c, r->id, "proto", NULL, "%s",
                        arb_buf_cstr(&r->why));
        return -1;
    }
    return 0;
}

static int
req_str(req_t *r, const char *k, char **out)
{
    if (opt_str(r, k, out) != 0)
        return -1;
    if (*out == NULL) {
        arb_reply_error(r->c, r->id, "proto", NULL, "%s: missing", k);
        return -1;
    }
    return 0;
}

/* Optional unsigned field: 1 present, 0 absent, -1 error sent. */
static int
opt_uint(req_t *r, const char *k, uint64_t *out)
{
    const msgpack_object *o = get(r, k);

    if (o == NULL || o->type == MSGPACK_OBJECT_NIL)
        return 0;
    if (arb_mp_uint(o, out, &r->why, k) != 0) {
        arb_reply_error(r->c, r->id, "proto", NULL, "%s",
                        arb_buf_cstr(&r->why));
        return -1;
    }
    return 1;
}

/* A str array field into an event's args / a setup list. */
static int
str_array(req_t *r, const char *k, size_t max, char ***out, size_t *n)
{
    const msgpack_object *o = get(r, k);
    char                  name[64];
    uint32_t              i;

    *out = NULL;
    *n = 0;
    if (o == NULL || o->type == MSGPACK_OBJECT_NIL)
        return 0;
    if (o->type != MSGPACK_OBJECT_ARRAY) {
        arb_reply_error(r->c, r->id, "proto", NULL, "%s: expected array, "
                        "got %s", k, arb_mp_type_name(o));
        return -1;
    }
    if (o->via.array.size > max) {
        arb_reply_error(r->c, r->id, "too_big", NULL, "%s: %u items, at most "
                        "%zu", k, o->via.array.size, max);
        return -1;
    }
    *out = calloc(o->via.array.size + 1, sizeof(char *));
    if (*out == NULL)
        return -1;
    for (i = 0; i < o->via.array.size; i++) {
        snprintf(name, sizeof(name), "%s[%u]", k, i);
        if (arb_mp_str(&o->via.array.ptr[i], &(*out)[i], &r->why, name)
            != 0) {
            arb_reply_error(r->c, r->id, "proto", NULL, "%s",
                            arb_buf_cstr(&r->why));
            return -1;
        }
        (*n)++;
    }
    return 0;
}

static int
scorer_may(const arb_conn_t *c, const char *match)
{
    size_t i;

    if (c->role == ARB_ROLE_ARBITER)
        return 1;
    if (c->role != ARB_ROLE_SCORER)
        return 0;
    if (c->nmatches == 0)
        return 1;
    for (i = 0; i < c->nmatches; i++)
        if (strcmp(c->matches[i], match) == 0)
            return 1;
    return 0;
}

static void
send_ok(req_t *r)
{
    arb_buf_t      b = ARB_BUF_INIT;
    msgpack_packer pk;

    arb_reply_begin(&b, &pk, r->id, 0);
    arb_conn_send(r->c, &b);
}

/* ---- auth ------------------------------------------------------------- */

static void
op_auth(req_t *r)
{
    arb_conn_t        *c = r->c;
    const arb_token_t *t;
    char              *tok = NULL;
    arb_buf_t          b = ARB_BUF_INIT;
    msgpack_packer     pk;
    size_t             i;

    if (req_str(r, "token", &tok) != 0) {
        arb_conn_close(c);
        return;
    }
    t = arb_config_auth(&c->srv->cfg, tok, strlen(tok));
    free(tok);
    if (t == NULL) {
        arb_log(ARB_LOG_WARN, "conn %llu: bad token", (unsigned long long)c->num);
        arb_reply_error(c, r->id, "unauthenticated", NULL, "unknown token");
        arb_conn_close(c);
        return;
    }
    c->authed = 1;
    c->role = t->role;
    snprintf(c->identity, sizeof(c->identity), "%s", t->identity);
    /* Copied: a SIGHUP reload frees the token table. */
    c->matches = calloc(t->nmatches + 1, sizeof(char *));
    for (i = 0; c->matches != NULL && i < t->nmatches; i++)
        if ((c->matches[i] = strdup(t->matches[i])) != NULL)
            c->nmatches++;
    uv_timer_stop(&c->auth_timer);
    arb_log(ARB_LOG_INFO, "conn %llu: %s as %s", (unsigned long long)c->num,
            c->identity, arb_role_name(c->role));
    arb_reply_begin(&b, &pk, r->id, 3);
    arb_pack_kv_str(&pk, "identity", c->identity);
    arb_pack_kv_str(&pk, "role", arb_role_name(c->role));
    arb_pack_kv_str(&pk, "engine", ARB_ENGINE);
    arb_conn_send(c, &b);
}

/* ---- appends ---------------------------------------------------------- */

static void queue_append_judged(req_t *r, arb_live_t *l, arb_event_t *ev,
                                const arb_event_t *judge, const char *secret,
                                const char *cid);

static void
queue_append(req_t *r, arb_live_t *l, arb_event_t *ev, const char *cid)
{
    queue_append_judged(r, l, ev, NULL, NULL, cid);
}

/* `ev` is what the log records; `judge` (when not NULL) is what the rules
 * see: an open whose deal is logged only as a commitment is judged with
 * the deal itself, and `secret` is stored beside it, outside the chain. */
static void
queue_append_judged(req_t *r, arb_live_t *l, arb_event_t *ev,
                    const arb_event_t *judge, const char *secret,
                    const char *cid)
{
    arb_conn_t    *c = r->c;
    arb_pending_t *p;
    arb_verdict_t  v;
    int            rc;

    p = calloc(1, sizeof(*p));
    if (p == NULL) {
        arb_reply_error(c, r->id, "internal", NULL, "out of memory");
        return;
    }
    p->wait = malloc(sizeof(*p->wait));
    p->cid = cid ? strdup(cid) : NULL;
    p->secret = secret ? strdup(secret) : NULL;
    if (p->wait == NULL || (cid && p->cid == NULL)
        || (secret && p->secret == NULL))
        goto oom;
    rc = arb_event_encode(&p->bytes, ev);
    if (rc != 0) {
        arb_event_check(ev, &r->why);
        arb_reply_error(c, r->id, arb_reply_code(rc), NULL, "%s",
                        arb_buf_cstr(&r->why));
        goto fail;
    }
    if (ev->kind == ARB_EV_OPEN) {
        rc = arb_match_open(&l->m, judge != NULL ? judge : ev, &v);
    } else {
        rc = arb_match_apply(l->m, ev, &v);
    }
    if (rc != 0) {
        c->srv->n.rejected++;
        arb_reply_error(c, r->id, arb_reply_code(rc), v.rule, "%s", v.msg);
        goto fail;
    }
    p->live = l;
    p->ev = *ev;                /* takes ownership */
    memset(ev, 0, sizeof(*ev));
    p->ap.match_id = l->id;
    p->ap.game = p->ev.kind == ARB_EV_OPEN ? l->game : NULL;
    p->ap.seq = p->ev.seq;
    p->ap.time_ms = p->ev.time_ms;
    p->ap.bytes = p->bytes.data;
    p->ap.len = p->bytes.len;
    p->ap.client_id = p->cid;
    p->ap.closes = p->ev.kind == ARB_EV_CLOSE;
    p->ap.after_close = p->ev.kind == ARB_EV_CLAIM;
    p->ap.secret = p->secret;
    p->wait[0].conn = c;
    p->wait[0].req = r->id;
    p->nwait = 1;
    c->refs++;
    if (++c->inflight == c->srv->cfg.inq_max)
        arb_conn_pause(c);
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

typedef struct one_ev {
    arb_event_t   ev;
    unsigned char hash[ARB_HASH_LEN];
    int           got;
} one_ev_t;

static int
on_one(void *ud, uint64_t seq, int64_t t, const unsigned char hash[ARB_HASH_LEN],
       const void *bytes, size_t len)
{
    one_ev_t *x = ud;

    (void)seq;
    (void)t;
    memcpy(x->hash, hash, ARB_HASH_LEN);
    x->got = arb_event_decode(&x->ev, bytes, len, NULL) == 0;
    return 1;
}

static void
reply_dup(req_t *r, const char *match, uint64_t seq, const unsigned char *h)
{
    arb_buf_t      b = ARB_BUF_INIT;
    msgpack_packer pk;

    arb_reply_begin(&b, &pk, r->id, 4);
    arb_pack_kv_str(&pk, "match", match);
    arb_pack_kv_uint(&pk, "seq", seq);
    arb_pack_kv_bin(&pk, "hash", h, 32);
    arb_pack_key(&pk, "dup");
    msgpack_pack_true(&pk);
    arb_conn_send(r->c, &b);
}

/* Idempotent retry: 1 when answered (duplicate or conflict), 0 when the
 * client id is new. */
static int
check_idem(req_t *r, arb_live_t *l, const char *cid, const arb_event_t *ev)
{
    one_ev_t      x;
    uint64_t      seq;
    size_t        i;
    int           rc;

    for (i = 0; i < l->ninflight; i++) {
        arb_pending_t *p = l->inflight[i];
        arb_waiter_t  *nw;
        if (p->cid == NULL || strcmp(p->cid, cid) != 0)
            continue;
        if (!same_request(&p->ev, ev))
            goto differs_inflight;
        /* Still committing: answer when the original is acked. */
        nw = realloc(p->wait, (p->nwait + 1) * sizeof(*nw));
        if (nw == NULL) {
            arb_reply_error(r->c, r->id, "internal", NULL, "out of memory");
            return 1;
        }
        p->wait = nw;
        nw[p->nwait].conn = r->c;
        nw[p->nwait].req = r->id;
        p->nwait++;
        r->c->refs++;
        r->c->inflight++;
        return 1;
differs_inflight:
        arb_reply_error(r->c, r->id, "idempotency", NULL,
                        "client event id '%s' already names a different "
                        "event (seq %llu)", cid,
                        (unsigned long long)p->ap.seq);
        return 1;
    }
    rc = arb_store_idem(r->c->srv->store, l->id, cid, &seq, x.hash, NULL);
    if (rc == ARB_ENOTFOUND)
        return 0;
    if (rc != 0) {
        arb_reply_error(r->c, r->id, "internal", NULL, "idempotency index: "
                        "%s", arb_strerror(rc));
        return 1;
    }
    memset(&x, 0, sizeof(x));
    arb_store_events(r->c->srv->store, l->id, seq, seq, on_one, &x, NULL);
    if (!x.got || !same_request(&x.ev, ev))
        arb_reply_error(r->c, r->id, "idempotency", NULL,
                        "client event id '%s' already names a different "
                        "event (seq %llu)", cid, (unsigned long long)seq);
    else
        reply_dup(r, l->id, seq, x.hash);
    arb_event_clear(&x.ev);
    return 1;
}

/* The close of a dealt match reveals the deal committed at open, so the
 * sealed log is enough to re-derive it. */
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

static void
op_append(req_t *r)
{
    arb_conn_t  *c = r->c;
    arb_event_t  ev;
    arb_live_t  *l = NULL;
    char        *match = NULL, *cid = NULL, *kind = NULL;
    uint64_t     expect = 0, target = 0;
    int          has_expect, k, rc;

    memset(&ev, 0, sizeof(ev));
    if (req_str(r, "match", &match) != 0 || opt_str(r, "cid", &cid) != 0
        || req_str(r, "kind", &kind) != 0
        || (has_expect = opt_uint(r, "expect", &expect)) < 0
        || opt_uint(r, "target", &target) < 0
        || opt_str(r, "player", &ev.player) != 0
        || opt_str(r, "verb", &ev.verb) != 0
        || opt_str(r, "text", &ev.text) != 0
        || str_array(r, "args", ARB_ARGS_MAX, &ev.args, &ev.nargs) != 0)
        goto done;
    k = arb_event_kind_parse(kind);
    if (k <= ARB_EV_OPEN) {
        arb_reply_error(c, r->id, "proto", NULL, "kind '%s' does not exist: "
                        "move, note, close, void, amend, stands or claim",
                        kind);
        goto done;
    }
    ev.kind = k;
    ev.target = target;
    if (cid != NULL && (strlen(cid) > ARB_STORE_CLIENT_MAX || !*cid)) {
        arb_reply_error(c, r->id, "proto", NULL, "cid: 1..%d bytes",
                        ARB_STORE_CLIENT_MAX);
        goto done;
    }
    if (k == ARB_EV_MOVE || k == ARB_EV_NOTE || k == ARB_EV_CLAIM) {
        if (!scorer_may(c, match)) {
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
    if (k == ARB_EV_CLAIM && arb_claim_event_canon(&ev, &r->why) != 0) {
        arb_reply_error(c, r->id, "invalid", "claim", "%s",
                        arb_buf_cstr(&r->why));
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
    if (cid != NULL && check_idem(r, l, cid, &ev))
        goto done;
    if (has_expect && expect != arb_match_next_seq(l->m) - 1) {
        arb_reply_error(c, r->id, "conflict", NULL, "expected seq %llu, "
                        "match is at %llu", (unsigned long long)expect,
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
    queue_append(r, l, &ev, cid);
done:
    arb_event_clear(&ev);
    free(match);
    free(cid);
    free(kind);
}

/* "deal": {"kind":"seed","seed":str} | {"kind":"order","cards":[str]} */
static int
parse_deal(req_t *r, arb_setup_t *s)
{
    const msgpack_object *o = get(r, "deal"), *k, *x;
    char                 *kind = NULL, *seed = NULL, name[32];
    uint32_t              i;
    int                   rc = -1;

    if (o == NULL || o->type == MSGPACK_OBJECT_NIL)
        return 0;
    if (o->type != MSGPACK_OBJECT_MAP) {
        arb_reply_error(r->c, r->id, "proto", NULL, "deal: expected map, "
                        "got %s", arb_mp_type_name(o));
        return -1;
    }
    k = arb_mp_get(o, "kind");
    if (arb_mp_str(k, &kind, &r->why, "deal.kind") != 0) {
        arb_reply_error(r->c, r->id, "proto", NULL, "%s",
                        arb_buf_cstr(&r->why));
        return -1;
    }
    if (strcmp(kind, "seed") == 0) {
        if (arb_mp_str(arb_mp_get(o, "seed"), &seed, &r->why, "deal.seed")
            != 0 || *seed == '\0') {
            arb_reply_error(r->c, r->id, "proto", NULL, "%s",
                            seed ? "deal.seed: empty" : arb_buf_cstr(&r->why));
            goto done;
        }
        s->deal.kind = ARB_DEAL_SEED;
        s->deal.seed = seed;
        seed = NULL;
        rc = 0;
    } else if (strcmp(kind, "order") == 0) {
        x = arb_mp_get(o, "cards");
        if (x == NULL || x->type != MSGPACK_OBJECT_ARRAY
            || x->via.array.size == 0 || x->via.array.size > ARB_DEAL_MAX) {
            arb_reply_error(r->c, r->id, "proto", NULL, "deal.cards: expected "
                            "an array of 1..%d cards", ARB_DEAL_MAX);
            goto done;
        }
        s->deal.kind = ARB_DEAL_ORDER;
        for (i = 0; i < x->via.array.size; i++) {
            char *card = NULL;
            snprintf(name, sizeof(name), "deal.cards[%u]", i);
            if (arb_mp_str(&x->via.array.ptr[i], &card, &r->why, name) != 0
                || strchr(card, ' ') != NULL) {
                arb_reply_error(r->c, r->id, "proto", NULL, "%s",
                                card ? "deal.cards: a card has a blank"
                                     : arb_buf_cstr(&r->why));
                free(card);
                goto done;
            }
            arb_deal_add_card(&s->deal, card);
            free(card);
        }
        rc = 0;
    } else {
        arb_reply_error(r->c, r->id, "proto", NULL, "deal.kind '%s': seed or "
                        "order", kind);
    }
done:
    free(kind);
    free(seed);
    return rc;
}

static void
op_open(req_t *r)
{
    arb_conn_t           *c = r->c;
    arb_event_t           ev, logged;
    arb_buf_t             secret = ARB_BUF_INIT;
    arb_setup_t          *s;
    arb_live_t           *l = NULL;
    arb_match_info_t      info;
    const msgpack_object *o;
    char                 *match = NULL, *game = NULL, *cid = NULL;
    char                **players = NULL, **teams = NULL;
    size_t                np = 0, nt = 0, i, k;
    uint32_t              j;

    memset(&ev, 0, sizeof(ev));
    memset(&logged, 0, sizeof(logged));
    if (c->role != ARB_ROLE_ARBITER) {
        arb_reply_error(c, r->id, "forbidden", NULL, "only an arbiter opens "
                        "a match; %s is a %s", c->identity,
                        arb_role_name(c->role));
        return;
    }
    if (req_str(r, "match", &match) != 0 || req_str(r, "game", &game) != 0
        || opt_str(r, "cid", &cid) != 0
        || str_array(r, "players", ARB_PLAYERS_MAX, &players, &np) != 0
        || str_array(r, "teams", ARB_TEAMS_MAX, &teams, &nt) != 0)
        goto done;
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
    ev.kind = ARB_EV_OPEN;
    s = ev.setup = calloc(1, sizeof(*s));
    if (s == NULL)
        goto done;
    s->game = strdup(game);
    s->match_id = strdup(match);
    s->edition = strdup(arb_rules_find(game)->edition);
    s->engine = strdup(ARB_ENGINE);
    for (i = 0; i < nt; i++) {
        if (!arb_name_valid(teams[i])) {
            arb_reply_error(c, r->id, "invalid", NULL, "team '%s' is not a "
                            "valid name", teams[i]);
            goto done;
        }
        arb_setup_add_team(s, teams[i]);
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
        arb_setup_add_player(s, players[i], team);
    }
    o = get(r, "options");
    if (o != NULL && o->type != MSGPACK_OBJECT_NIL) {
        if (o->type != MSGPACK_OBJECT_MAP || o->via.map.size > ARB_OPTIONS_MAX) {
            arb_reply_error(c, r->id, "proto", NULL, "options: expected a "
                            "map of at most %d str -> str", ARB_OPTIONS_MAX);
            goto done;
        }
        for (j = 0; j < o->via.map.size; j++) {
            char *key = NULL, *val = NULL;
            if (arb_mp_str(&o->via.map.ptr[j].key, &key, &r->why, "options")
                != 0 || arb_mp_str(&o->via.map.ptr[j].val, &val, &r->why,
                                   "options") != 0
                || arb_setup_option(s, key) != NULL) {
                arb_reply_error(c, r->id, "proto", NULL, "%s",
                                key && val ? "options: duplicate key"
                                : arb_buf_cstr(&r->why));
                free(key);
                free(val);
                goto done;
            }
            arb_setup_set_option(s, key, val);
            free(key);
            free(val);
        }
    }
    /* An open retried with its client id gets its original answer; any
     * other open of an existing id is refused. */
    if (arb_live_get(c->srv, match, &l, NULL) == 0
        || arb_store_match(c->srv->store, match, &info, NULL) == 0) {
        if (l == NULL || cid == NULL || !check_idem(r, l, cid, &ev))
            arb_reply_error(c, r->id, "exists", NULL, "match '%s' already "
                            "exists", match);
        goto done;
    }
    if (parse_deal(r, s) != 0)
        goto done;
    l = arb_live_new(c->srv, match);
    if (l == NULL)
        goto done;
    snprintf(l->game, sizeof(l->game), "%s", game);
    ev.seq = 0;
    ev.time_ms = arb_now_ms();
    ev.actor = strdup(c->identity);
    ev.client_id = cid ? strdup(cid) : NULL;
    if (s->deal.kind != ARB_DEAL_NONE) {
        /* The log gets only the commitment; the rules get the deal. */
        const char *kind;
        arb_buf_t   sec = ARB_BUF_INIT;
        if (arb_deal_secret(&s->deal, &sec, &kind) != 0
            || arb_event_copy(&logged, &ev) != 0
            || arb_deal_commit(&logged.setup->deal, &kind) != 0) {
            arb_buf_free(&sec);
            arb_reply_error(c, r->id, "internal", NULL, "out of memory");
            arb_live_reset(c->srv, l);
            goto done;
        }
        memcpy(s->deal.seed_hash, logged.setup->deal.seed_hash, ARB_HASH_LEN);
        secret.len = 0;
        arb_deal_stored_format(&secret, kind, arb_buf_cstr(&sec));
        arb_buf_free(&sec);
        queue_append_judged(r, l, &logged, &ev, arb_buf_cstr(&secret), cid);
    } else {
        queue_append(r, l, &ev, cid);
    }
    if (l->m == NULL)
        arb_live_reset(c->srv, l);  /* refused: forget the empty entry */
done:
    arb_event_clear(&ev);
    arb_event_clear(&logged);
    arb_buf_free(&secret);
    arb_strv_free(players, np);
    arb_strv_free(teams, nt);
    free(match);
    free(game);
    free(cid);
}

/* ---- reads ------------------------------------------------------------ */

static void
op_state(req_t *r)
{
    arb_conn_t      *c = r->c;
    arb_match_info_t info;
    arb_match_t     *m = NULL;
    char            *match = NULL;
    uint64_t         at = UINT64_MAX, upto;
    arb_live_t      *l = NULL;
    arb_buf_t        json = ARB_BUF_INIT, b = ARB_BUF_INIT;
    msgpack_packer   pk;
    int              rc;

    if (req_str(r, "match", &match) != 0 || opt_uint(r, "at", &at) < 0)
        goto done;
    rc = arb_store_match(c->srv->store, match, &info, &r->why);
    if (rc != 0) {
        arb_reply_error(c, r->id, arb_reply_code(rc), NULL, "no match '%s'",
                        match);
        goto done;
    }
    /* Only what the loop knows is committed: never a queued event. */
    upto = info.last_seq;
    if (arb_live_get(c->srv, match, &l, NULL) == 0 && l->committed < upto)
        upto = l->committed;
    if (at != UINT64_MAX && at > upto) {
        arb_reply_error(c, r->id, "not_found", NULL, "match '%s' has events "
                        "0..%llu, not %llu", match, (unsigned long long)upto,
                        (unsigned long long)at);
        goto done;
    }
    rc = arb_live_replay(c->srv, match, at < upto ? at : upto, &m, &r->why);
    if (rc == 0)
        rc = arb_report_json(&json, m);
    if (rc != 0) {
        arb_reply_error(c, r->id, arb_reply_code(rc), NULL, "%s",
                        arb_buf_cstr(&r->why));
        goto done;
    }
    arb_reply_begin(&b, &pk, r->id, 2);
    arb_pack_kv_str(&pk, "match", match);
    arb_pack_key(&pk, "json");
    msgpack_pack_str(&pk, json.len);
    msgpack_pack_str_body(&pk, json.data, json.len);
    arb_conn_send(c, &b);
done:
    arb_match_free(m);
    arb_buf_free(&json);
    free(match);
}

typedef struct events_ctx {
    msgpack_packer *pk;
    arb_buf_t      *b;
    int             kinds;      /* bit mask; 0 = all */
    int64_t         since;
    uint64_t        limit, n, last;
} events_ctx_t;

static int
kind_of(const void *bytes, size_t len)
{
    arb_event_t ev;
    int         k;

    if (arb_event_decode(&ev, bytes, len, NULL) != 0)
        return -1;
    k = ev.kind;
    arb_event_clear(&ev);
    return k;
}

static int
on_events(void *ud, uint64_t seq, int64_t t, const unsigned char hash[ARB_HASH_LEN],
          const void *bytes, size_t len)
{
    events_ctx_t *x = ud;
    int           k;

    x->last = seq;
    if (t < x->since)
        return 0;
    if (x->kinds != 0) {
        k = kind_of(bytes, len);
        if (k < 0 || !(x->kinds & (1 << k)))
            return 0;
    }
    msgpack_pack_map(x->pk, 4);
    arb_pack_kv_uint(x->pk, "seq", seq);
    arb_pack_key(x->pk, "time");
    msgpack_pack_int64(x->pk, t);
    arb_pack_kv_bin(x->pk, "hash", hash, 32);
    arb_pack_kv_bin(x->pk, "event", bytes, len);
    /* A page also ends at ARB_PAGE_BYTES, so a reader cannot make the
     * daemon build a response larger than a connection may hold. */
    return ++x->n >= x->limit || x->b->len >= ARB_PAGE_BYTES ? 1 : 0;
}

static void
op_events(req_t *r)
{
    arb_conn_t     *c = r->c;
    char           *match = NULL, **kinds = NULL;
    size_t          nk = 0, i;
    uint64_t        from = 0, to = UINT64_MAX, limit = 1000, since = 0;
    arb_live_t     *l = NULL;
    arb_match_info_t info;
    arb_buf_t       items = ARB_BUF_INIT, b = ARB_BUF_INIT;
    msgpack_packer  pk, ipk;
    events_ctx_t    x;
    int             rc, k;

    memset(&x, 0, sizeof(x));
    if (req_str(r, "match", &match) != 0 || opt_uint(r, "from", &from) < 0
        || opt_uint(r, "to", &to) < 0 || opt_uint(r, "limit", &limit) < 0
        || opt_uint(r, "since", &since) < 0
        || str_array(r, "kinds", 8, &kinds, &nk) != 0)
        goto done;
    for (i = 0; i < nk; i++) {
        k = arb_event_kind_parse(kinds[i]);
        if (k < 0) {
            arb_reply_error(c, r->id, "proto", NULL, "kinds[%zu]: no kind "
                            "'%s'", i, kinds[i]);
            goto done;
        }
        x.kinds |= 1 << k;
    }
    if (limit == 0 || limit > 10000)
        limit = limit ? 10000 : 1;
    rc = arb_store_match(c->srv->store, match, &info, NULL);
    if (rc != 0) {
        arb_reply_error(c, r->id, "not_found", NULL, "no match '%s'", match);
        goto done;
    }
    if (arb_live_get(c->srv, match, &l, NULL) == 0 && l->committed < to)
        to = l->committed;
    if (to > info.last_seq)
        to = info.last_seq;
    arb_mp_packer_init(&ipk, &items);
    x.pk = &ipk;
    x.b = &items;
    x.limit = limit;
    x.since = (int64_t)since;
    x.last = from ? from - 1 : 0;
    rc = from <= to ? arb_store_events(c->srv->store, match, from, to,
                                       on_events, &x, &r->why) : 0;
    if (rc != 0 && rc != 1) {
        arb_reply_error(c, r->id, arb_reply_code(rc), NULL, "%s",
                        arb_buf_cstr(&r->why));
        goto done;
    }
    arb_reply_begin(&b, &pk, r->id, 3);
    arb_pack_kv_str(&pk, "match", match);
    arb_pack_key(&pk, "events");
    msgpack_pack_array(&pk, (size_t)x.n);
    arb_buf_add(&b, items.data, items.len);
    arb_pack_key(&pk, "next");
    if (rc == 1 && x.last < to)
        msgpack_pack_uint64(&pk, x.last + 1);
    else
        msgpack_pack_nil(&pk);
    arb_conn_send(c, &b);
done:
    arb_strv_free(kinds, nk);
    arb_buf_free(&items);
    free(match);
}

typedef struct list_ctx {
    msgpack_packer *pk;
    const char     *game;
    int             status;     /* -1 any, 0 open, 1 closed */
    uint64_t        n, limit;
    const char     *after;      /* page after this match id, or NULL */
    arb_buf_t      *b;
    char            last[ARB_STORE_ID_MAX + 1];
} list_ctx_t;

static int
on_match(void *ud, const arb_match_info_t *m)
{
    list_ctx_t *x = ud;

    if ((x->after && strcmp(m->match_id, x->after) <= 0)
        || (x->game && strcmp(x->game, m->game) != 0)
        || (x->status >= 0 && x->status != m->closed))
        return 0;
    snprintf(x->last, sizeof(x->last), "%s", m->match_id);
    msgpack_pack_map(x->pk, 7);
    arb_pack_kv_str(x->pk, "match", m->match_id);
    arb_pack_kv_str(x->pk, "game", m->game);
    arb_pack_kv_str(x->pk, "status", m->closed ? "closed" : "open");
    arb_pack_kv_uint(x->pk, "last_seq", m->last_seq);
    arb_pack_kv_bin(x->pk, "head", m->head, 32);
    arb_pack_key(x->pk, "created");
    msgpack_pack_int64(x->pk, m->created_ms);
    arb_pack_key(x->pk, "last");
    msgpack_pack_int64(x->pk, m->last_ms);
    return ++x->n >= x->limit || x->b->len >= ARB_PAGE_BYTES ? 1 : 0;
}

static void
op_matches(req_t *r)
{
    char          *game = NULL, *status = NULL, *after = NULL;
    uint64_t       limit = 10000;
    arb_buf_t      items = ARB_BUF_INIT, b = ARB_BUF_INIT;
    msgpack_packer pk, ipk;
    list_ctx_t     x;
    int            rc;

    if (opt_str(r, "game", &game) != 0 || opt_str(r, "status", &status) != 0
        || opt_str(r, "after", &after) != 0
        || opt_uint(r, "limit", &limit) < 0)
        goto done;
    x.status = -1;
    if (status != NULL) {
        if (strcmp(status, "open") == 0)
            x.status = 0;
        else if (strcmp(status, "closed") == 0)
            x.status = 1;
        else {
            arb_reply_error(r->c, r->id, "proto", NULL, "status: open or "
                            "closed, not '%s'", status);
            goto done;
        }
    }
    arb_mp_packer_init(&ipk, &items);
    x.pk = &ipk;
    x.b = &items;
    x.game = game;
    x.after = after;
    x.last[0] = '\0';
    x.n = 0;
    x.limit = limit ? limit : 1;
    rc = arb_store_matches(r->c->srv->store, on_match, &x, &r->why);
    if (rc != 0 && rc != 1) {
        arb_reply_error(r->c, r->id, arb_reply_code(rc), NULL, "%s",
                        arb_buf_cstr(&r->why));
        goto done;
    }
    arb_reply_begin(&b, &pk, r->id, 2);
    arb_pack_key(&pk, "matches");
    msgpack_pack_array(&pk, (size_t)x.n);
    arb_buf_add(&b, items.data, items.len);
    /* More may follow: ask again with "after": next. */
    arb_pack_key(&pk, "next");
    if (rc == 1)
        arb_mp_pack_cstr(&pk, x.last);
    else
        msgpack_pack_nil(&pk);
    arb_conn_send(r->c, &b);
done:
    arb_buf_free(&items);
    free(game);
    free(status);
    free(after);
}

static void
op_stats(req_t *r)
{
    arb_server_t     *srv = r->c->srv;
    arb_store_stats_t st;
    arb_buf_t         b = ARB_BUF_INIT;
    msgpack_packer    pk;
    arb_conn_t       *c;
    uint64_t          nconn = 0;

    if (arb_store_stats(srv->store, &st, NULL) != 0)
        memset(&st, 0, sizeof(st));
    for (c = srv->conns; c != NULL; c = c->next)
        nconn++;
    arb_reply_begin(&b, &pk, r->id, 14);
    arb_pack_kv_str(&pk, "engine", ARB_ENGINE);
    arb_pack_kv_uint(&pk, "matches", st.matches);
    arb_pack_kv_uint(&pk, "events", st.events);
    arb_pack_kv_uint(&pk, "log_pos", st.log_pos);
    arb_pack_kv_uint(&pk, "map_size", st.map_size);
    arb_pack_kv_uint(&pk, "map_used", st.map_used);
    arb_pack_kv_uint(&pk, "map_max", st.map_max);
    arb_pack_kv_uint(&pk, "connections", nconn);
    arb_pack_kv_uint(&pk, "appends", srv->n.appends);
    arb_pack_kv_uint(&pk, "rejected", srv->n.rejected);
    arb_pack_kv_uint(&pk, "commits", srv->n.commits);
    arb_pack_kv_uint(&pk, "events_committed", srv->n.events_committed);
    arb_pack_kv_uint(&pk, "queued", srv->nqueue + srv->nbatch);
    arb_pack_kv_uint(&pk, "subscribers_cut", srv->n.subs_cut);
    arb_conn_send(r->c, &b);
}

static void
op_subscribe(req_t *r)
{
    char       *match = NULL;
    uint64_t    from = 0;
    int         has_from, rc;
    arb_live_t *l = NULL;

    if (opt_str(r, "match", &match) != 0
        || (has_from = opt_uint(r, "from", &from)) < 0)
        goto done;
    if (match != NULL) {
        rc = arb_live_get(r->c->srv, match, &l, &r->why);
        if (rc != 0) {
            arb_reply_error(r->c, r->id, arb_reply_code(rc), NULL,
                            rc == ARB_ENOTFOUND ? "no match '%s'" : "%s",
                            rc == ARB_ENOTFOUND ? match
                                                : arb_buf_cstr(&r->why));
            goto done;
        }
    }
    arb_sub_start(r->c, r->id, l, has_from, from);
done:
    free(match);
}

static void
op_unsubscribe(req_t *r)
{
    uint64_t sub = 0;

    if (opt_uint(r, "sub", &sub) <= 0) {
        if (sub == 0)
            arb_reply_error(r->c, r->id, "proto", NULL, "sub: missing");
        return;
    }
    arb_sub_cancel(r->c, sub);
    send_ok(r);
}

/* checkpoint.c holds the op; req_t is private to this file. */
static void
op_checkpoint(req_t *r)
{
    arb_op_checkpoint(r->c, r->id, r->map);
}

/* ---- entry ------------------------------------------------------------ */

static const struct {
    const char *name;
    void      (*fn)(req_t *);
    int         min_role;
} ops[] = {
    { "ping",        send_ok,        ARB_ROLE_READER },
    { "open",        op_open,        ARB_ROLE_ARBITER },
    { "append",      op_append,      ARB_ROLE_SCORER },
    { "state",       op_state,       ARB_ROLE_READER },
    { "events",      op_events,      ARB_ROLE_READER },
    { "matches",     op_matches,     ARB_ROLE_READER },
    { "stats",       op_stats,       ARB_ROLE_READER },
    { "subscribe",   op_subscribe,   ARB_ROLE_READER },
    { "unsubscribe", op_unsubscribe, ARB_ROLE_READER },
    { "checkpoint",  op_checkpoint,  ARB_ROLE_READER },
};

void
arb_dispatch(arb_conn_t *c, const char *frame, size_t len)
{
    msgpack_unpacked res;
    req_t            r;
    uint64_t         v = 0;
    char            *op = NULL;
    size_t           i;
    int              rc;

    memset(&r, 0, sizeof(r));
    r.c = c;
    msgpack_unpacked_init(&res);
    rc = arb_mp_parse(&res, frame, len, &r.why);
    if (rc != 0) {
        c->srv->n.frames_bad++;
        arb_reply_error(c, 0, arb_reply_code(rc), NULL, "%s",
                        arb_buf_cstr(&r.why));
        if (!c->authed)
            arb_conn_close(c);
        goto done;
    }
    r.map = &res.data;
    if (opt_uint(&r, "id", &r.id) < 0)
        goto done;
    if (opt_uint(&r, "v", &v) <= 0 || v != 1) {
        if (v != 0 || get(&r, "v") == NULL)
            arb_reply_error(c, r.id, "unsupported", NULL, "protocol version "
                            "%llu is not supported: send \"v\": 1",
                            (unsigned long long)v);
        goto done;
    }
    if (req_str(&r, "op", &op) != 0)
        goto done;
    if (!c->authed) {
        if (strcmp(op, "auth") == 0) {
            op_auth(&r);
        } else {
            arb_reply_error(c, r.id, "unauthenticated", NULL, "authenticate "
                            "first: {\"op\":\"auth\",\"token\":...}");
            arb_conn_close(c);
        }
        goto done;
    }
    if (c->srv->stopping) {
        arb_reply_error(c, r.id, "shutting_down", NULL, "the daemon is "
                        "stopping");
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
    ops[i].fn(&r);
done:
    free(op);
    arb_buf_free(&r.why);
    msgpack_unpacked_destroy(&res);
}
