/*
 * op_round.c - the `round` op: a tournament's round begins and every
 * table's match opens, in one LMDB transaction (docs/TOURNAMENT.md).
 *
 * DESIGN: the director's `round` act (a move of the tournament match,
 * core/rules/tournament.c) and one open per table are queued back to back
 * as one atomic group (commit.c), so a crash leaves either all of them or
 * none, and the one ack, sent after the commit, names every match opened.
 * Everything that can fail is done before the round is applied to the
 * tournament's live state, which has no undo: the table ids are checked
 * free, each table's match is opened on the side (its rules judge its
 * setup), the entries, events and queue room are allocated.  After the
 * round is applied, only pointers move.  A retry with the same client
 * event id is answered as the original (arb_op_idem), the tables' opens
 * included, whether in flight or committed; the opens carry the
 * client event id `tournament-open`, the one the per-table opens of
 * earlier versions used, so that path answers them as duplicates.  A
 * tournament with deal=seed has each table dealt from a seed drawn here,
 * committed in the chain and revealed by the table's close.
 *
 * A round of more than ARB_TOURN_ACT_TABLES tables is recorded as its
 * `round` act and `tables` acts of the same round, each with at most that
 * many (an event's arguments are bounded), in the same group.  They are
 * judged on a copy of the tournament (arb_live_scratch), which replaces
 * its live state only when every act passed: a refused third act leaves
 * nothing of the first two behind.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "core/codec.h"
#include "core/deal.h"
#include "core/err.h"
#include "core/tourn.h"
#include "core/version.h"
#include "daemon/dispatch.h"
#include "daemon/replicate.h"

#define ROUND_OPEN_CID "tournament-open"

enum { RO_TOURNAMENT, RO_CID, RO_ROUND, RO_TABLES, RO_N };
static const arb_req_field_t round_fields[RO_N] = {
    [RO_TOURNAMENT] = { "tournament", ARB_REQ_STR,  ARB_REQ_REQUIRED, 0, 0 },
    [RO_CID]        = { "cid",        ARB_REQ_STR,  ARB_REQ_OPTIONAL, 1,
                        ARB_STORE_CLIENT_MAX },
    [RO_ROUND]      = { "round",      ARB_REQ_UINT, ARB_REQ_REQUIRED, 1,
                        999999 },
    [RO_TABLES]     = { "tables",     ARB_REQ_STRV, ARB_REQ_REQUIRED, 0,
                        ARB_TOURN_TABLES_MAX },
};

/* One table of the round, prepared before anything is applied. */
typedef struct rtable {
    arb_tourn_table_t tb;
    arb_live_t       *l;            /* its new entry (m set at the end) */
    arb_match_t      *m;            /* opened on the side */
    arb_pending_t    *p;            /* its open, encoded */
    arb_event_t       ev;           /* the open the rules judge */
    arb_event_t       rec;          /* a dealt table: the open recorded,
                                       with the deal's commitment */
    arb_buf_t         secret;       /* a dealt table: "<kind> <secret>" */
} rtable_t;

/* The open event of table tb as the tournament `tourn` opens it. */
static int
table_open_event(arb_event_t *ev, const arb_setup_t *tourn,
                 const arb_tourn_table_t *tb, const arb_conn_t *c,
                 int64_t now)
{
    arb_setup_t game;
    int         rc;

    memset(ev, 0, sizeof(*ev));
    ev->kind = ARB_EV_OPEN;
    if ((ev->setup = calloc(1, sizeof(*ev->setup))) == NULL)
        return ARB_ENOMEM;
    rc = arb_tourn_game_setup(&game, tourn);
    if (rc == 0)
        rc = arb_tourn_table_setup(ev->setup, &game, tb);
    arb_setup_clear(&game);
    if (rc != 0)
        return rc;
    ev->setup->edition = strdup(arb_rules_find(ev->setup->game)->edition);
    ev->setup->engine = strdup(ARB_ENGINE);
    ev->time_ms = now;
    ev->actor = strdup(c->identity);
    ev->client_id = strdup(ROUND_OPEN_CID);
    if (ev->setup->edition == NULL || ev->setup->engine == NULL
        || ev->actor == NULL || ev->client_id == NULL)
        return ARB_ENOMEM;
    return 0;
}

/* A table of a tournament with deal=seed: the recorder draws its seed
 * now; the chain records only the commitment (t->rec), the secret is
 * stored beside it until the close reveals it, as for any dealt open. */
static int
seal_deal(rtable_t *t)
{
    arb_deal_t   *d = &t->ev.setup->deal;
    unsigned char raw[32];
    char          hex[2 * sizeof(raw) + 1];
    const char   *kind;
    arb_buf_t     sec = ARB_BUF_INIT;
    size_t        i;
    int           rc;

    if (d->kind != ARB_DEAL_SEED)
        return 0;
    randombytes_buf(raw, sizeof(raw));
    for (i = 0; i < sizeof(raw); i++)
        snprintf(hex + 2 * i, 3, "%02x", raw[i]);
    free(d->seed);
    if ((d->seed = strdup(hex)) == NULL)
        return ARB_ENOMEM;
    rc = arb_deal_secret(d, &sec, &kind);
    if (rc == 0)
        rc = arb_event_copy(&t->rec, &t->ev);
    if (rc == 0)
        rc = arb_deal_commit(&t->rec.setup->deal, &kind);
    if (rc == 0) {
        memcpy(d->seed_hash, t->rec.setup->deal.seed_hash, ARB_HASH_LEN);
        arb_deal_stored_format(&t->secret, kind, arb_buf_cstr(&sec));
        rc = t->secret.oom ? ARB_ENOMEM : 0;
    }
    sodium_memzero(raw, sizeof(raw));
    arb_buf_free(&sec);
    return rc;
}

/* Act k of the round (k = 0: `round`, then `tables`): the round number
 * `num` and tables [k * ARB_TOURN_ACT_TABLES, ...) of v[0..n), recorded
 * by the director (the setup's one seat) at seq `seq`. */
static int
round_act(arb_event_t *ev, size_t k, const char *num, char *const *v,
          size_t n, const char *director, const arb_conn_t *c, uint64_t seq,
          int64_t now)
{
    size_t i;

    memset(ev, 0, sizeof(*ev));
    ev->kind = ARB_EV_MOVE;
    ev->seq = seq;
    ev->time_ms = now;
    ev->player = strdup(director);
    ev->verb = strdup(k == 0 ? "round" : "tables");
    ev->actor = strdup(c->identity);
    if (ev->player == NULL || ev->verb == NULL || ev->actor == NULL
        || arb_event_add_arg(ev, num) != 0)
        return ARB_ENOMEM;
    for (i = k * ARB_TOURN_ACT_TABLES;
         i < n && i < (k + 1) * ARB_TOURN_ACT_TABLES; i++)
        if (arb_event_add_arg(ev, v[i]) != 0)
            return ARB_ENOMEM;
    return 0;
}

/* Judges acts[0..n) on a copy of tournament tl and puts the copy in its
 * place when all pass.  0, or the first refusal's code with v. */
static int
judge_acts(arb_server_t *srv, arb_live_t *tl, const arb_event_t *acts,
           size_t n, arb_verdict_t *v, arb_buf_t *why)
{
    arb_match_t *m;
    size_t       k;
    int          rc;

    if (n == 1)
        return arb_match_apply(tl->m, &acts[0], v);
    rc = arb_live_scratch(srv, tl, arb_match_is_lean(tl->m), &m, why);
    if (rc != 0)
        return arb_verdict(v, rc, "tournament.round", "%s",
                           arb_buf_cstr(why) ? arb_buf_cstr(why)
                                             : arb_strerror(rc));
    for (k = 0; k < n; k++) {
        rc = arb_match_apply(m, &acts[k], v);
        if (rc != 0) {
            arb_match_free(m);
            return rc;
        }
    }
    arb_match_free(tl->m);
    tl->m = m;
    return 0;
}

/* A new append holding ev's canonical bytes and client id cid. */
static arb_pending_t *
pending_for(const arb_event_t *ev, const char *cid, int *rc)
{
    arb_pending_t *p = arb_pending_new();

    *rc = ARB_ENOMEM;
    if (p == NULL)
        return NULL;
    if (cid != NULL && (p->cid = strdup(cid)) == NULL) {
        arb_pending_free(p);
        return NULL;
    }
    *rc = arb_event_encode(&p->bytes, ev);
    if (*rc != 0) {
        arb_pending_free(p);
        return NULL;
    }
    return p;
}

/* 1 when match id is taken: recorded, or queued by an open. */
static int
match_taken(arb_server_t *srv, const char *id)
{
    arb_match_info_t info;

    return arb_live_peek(srv, id) != NULL
        || arb_store_match(srv->store, id, &info, NULL) == 0;
}

static int
on_first(void *ud, uint64_t seq, int64_t t,
         const unsigned char hash[ARB_HASH_LEN], const void *bytes,
         size_t len)
{
    (void)seq;
    (void)t;
    (void)bytes;
    (void)len;
    memcpy(ud, hash, ARB_HASH_LEN);
    return 1;
}

/* The committed opens of the round's tables, for the answer to a retry
 * of a committed round (*g, malloc'd): how many, nt, or 0 when a table's
 * match is not recorded (a round recorded by an append, before this op,
 * whose tables were not all opened: the answer then names none). */
static size_t
stored_opens(arb_server_t *srv, const rtable_t *rt, size_t nt,
             arb_group_open_t **g)
{
    size_t i;

    if ((*g = calloc(nt, sizeof(**g))) == NULL)
        return 0;
    for (i = 0; i < nt; i++) {
        if (arb_store_events(srv->store, rt[i].tb.match, 0, 0, on_first,
                             (*g)[i].hash, NULL) != 1)
            return 0;
        snprintf((*g)[i].match, sizeof((*g)[i].match), "%s", rt[i].tb.match);
        snprintf((*g)[i].table, sizeof((*g)[i].table), "%s", rt[i].tb.table);
    }
    return nt;
}

void
arb_op_round(arb_request_t *r)
{
    arb_conn_t        *c = r->c;
    arb_server_t      *srv = c->srv;
    arb_req_val_t      f[RO_N];
    arb_event_t       *acts = NULL;
    arb_verdict_t      v;
    arb_live_t        *tl = NULL;
    arb_pending_t     *head = NULL, **more = NULL;
    rtable_t          *rt = NULL;
    arb_group_open_t  *g = NULL;
    const arb_setup_t *tsu;
    const char        *tid, *cid, *owner, *fence;
    char               num[24];
    size_t             i, j, k, nt = 0, nacts = 0;
    uint64_t           seq;
    int64_t            now = arb_now_ms();
    int                rc;

    if (arb_request_fields(r, round_fields, RO_N, f) != 0)
        goto done;
    tid = f[RO_TOURNAMENT].str;
    cid = f[RO_CID].str;
    nt = f[RO_TABLES].n;
    if (nt == 0) {
        arb_reply_error(c, r->id, "proto", NULL, "tables: a round has at "
                        "least one table");
        goto done;
    }
    rc = arb_live_get(srv, tid, &tl, &r->why);
    if (rc != 0) {
        if (rc == ARB_ENOTFOUND)
            arb_reply_error(c, r->id, "not_found", NULL, "no tournament "
                            "'%s'", tid);
        else
            arb_reply_error(c, r->id, arb_reply_code(rc), NULL, "%s",
                            arb_buf_cstr(&r->why));
        goto done;
    }
    if (strcmp(tl->game, "tournament") != 0) {
        arb_reply_error(c, r->id, "invalid", NULL, "match '%s' is a %s "
                        "match, not a tournament", tid, tl->game);
        goto done;
    }
    tsu = arb_match_setup(tl->m);
    /* The director's acts, as `arbiter move` would record them. */
    snprintf(num, sizeof(num), "%llu", (unsigned long long)f[RO_ROUND].u);
    nacts = (nt + ARB_TOURN_ACT_TABLES - 1) / ARB_TOURN_ACT_TABLES;
    if ((acts = calloc(nacts, sizeof(*acts))) == NULL
        || (more = calloc(nacts, sizeof(*more))) == NULL)
        goto oom;
    seq = arb_match_next_seq(tl->m);
    for (k = 0; k < nacts; k++)
        if (round_act(&acts[k], k, num, f[RO_TABLES].v, nt,
                      tsu->players[0].name, c, seq + k, now) != 0)
            goto oom;
    if ((rt = calloc(nt, sizeof(*rt))) == NULL)
        goto oom;
    for (i = 0; i < nt; i++) {
        rc = arb_tourn_table_parse(&rt[i].tb, f[RO_TABLES].v[i], &v);
        if (rc == ARB_ENOMEM)
            goto oom;
        if (rc != 0) {
            arb_reply_error(c, r->id, arb_reply_code(rc), v.rule, "%s",
                            v.msg);
            goto done;
        }
    }
    if (cid != NULL) {
        size_t ng = stored_opens(srv, rt, nt, &g);
        if (arb_op_idem_acts(r, tl, cid, acts, nacts, g, ng))
            goto done;
    }
    if ((fence = arb_repl_fenced(srv, tid, &r->why)) != NULL) {
        arb_reply_error(c, r->id, fence, NULL, "%s", arb_buf_cstr(&r->why));
        goto done;
    }
    if (cid != NULL && (acts[0].client_id = strdup(cid)) == NULL)
        goto oom;

    /* Prepare every table; nothing is applied yet. */
    for (i = 0; i < nt; i++) {
        for (j = 0; j < i; j++)
            if (strcmp(rt[j].tb.match, rt[i].tb.match) == 0)
                break;
        if (j < i && strcmp(rt[j].tb.table, rt[i].tb.table) == 0) {
            arb_reply_error(c, r->id, "invalid", "tournament.round", "table "
                            "%s (match %s) is listed twice", rt[i].tb.table,
                            rt[i].tb.match);
            goto done;
        }
        if (j < i) {
            arb_reply_error(c, r->id, "invalid", "tournament.round", "match "
                            "%s is listed at tables %s and %s",
                            rt[i].tb.match, rt[j].tb.table, rt[i].tb.table);
            goto done;
        }
        if (match_taken(srv, rt[i].tb.match)) {
            arb_reply_error(c, r->id, "exists", NULL, "table %s: match "
                            "'%s' already exists", rt[i].tb.table,
                            rt[i].tb.match);
            goto done;
        }
        owner = arb_repl_owner(&srv->cfg.repl, rt[i].tb.match);
        if (owner != NULL) {
            arb_reply_error(c, r->id, "not_owner", NULL, "table %s: match "
                            "'%s' is not this recorder's to open (%s)",
                            rt[i].tb.table, rt[i].tb.match,
                            owner[0] ? owner : "no recorder owns it");
            goto done;
        }
        /* A table the stream already holds (another writer, or a log
         * older than the stream) is refused as an open of it would be. */
        if ((fence = arb_repl_fenced(srv, rt[i].tb.match, &r->why))
                != NULL) {
            arb_reply_error(c, r->id, fence, NULL, "table %s: %s",
                            rt[i].tb.table, arb_buf_cstr(&r->why));
            goto done;
        }
        rc = table_open_event(&rt[i].ev, tsu, &rt[i].tb, c, now);
        if (rc == 0)
            rc = seal_deal(&rt[i]);
        if (rc != 0)
            goto fail_rc;
        rc = arb_match_open(&rt[i].m, &rt[i].ev, &v);
        if (rc != 0) {
            if (rc == ARB_ENOMEM)
                goto oom;
            arb_reply_error(c, r->id, arb_reply_code(ARB_EILLEGAL),
                            "tournament.table", "table %s (%s) cannot be "
                            "opened: %s: %s", rt[i].tb.table,
                            rt[i].tb.match, v.rule, v.msg);
            goto done;
        }
        rt[i].p = pending_for(rt[i].secret.len ? &rt[i].rec : &rt[i].ev,
                              ROUND_OPEN_CID, &rc);
        if (rt[i].p == NULL)
            goto fail_rc;
        if (rt[i].secret.len > 0) {
            rt[i].p->secret = strdup(arb_buf_cstr(&rt[i].secret));
            if (rt[i].p->secret == NULL)
                goto oom;
        }
        if ((rt[i].l = arb_live_new(srv, rt[i].tb.match)) == NULL)
            goto oom;
        snprintf(rt[i].l->game, sizeof(rt[i].l->game), "%s",
                 rt[i].ev.setup->game);
        if (arb_commit_reserve(srv, rt[i].l) != 0)
            goto oom;
    }
    for (k = 0; k < nacts; k++)
        if ((more[k] = pending_for(&acts[k], k == 0 ? cid : NULL, &rc))
                == NULL)
            goto fail_rc;
    head = more[0];
    more[0] = NULL;
    if ((head->group = calloc(nt, sizeof(*head->group))) == NULL
        || arb_commit_reserve_n(srv, tl, nacts) != 0
        || arb_commit_reserve_queue(srv, nt + nacts) != 0)
        goto oom;

    /* The round: the tournament's rules judge it (the pairing), every act
     * of it or none. */
    rc = judge_acts(srv, tl, acts, nacts, &v, &r->why);
    tsu = NULL;                         /* (the copy may have replaced it) */
    if (rc != 0) {
        arb_stats_reject(srv, rc);
        arb_reply_error(c, r->id, arb_reply_code(rc), v.rule, "%s", v.msg);
        goto done;
    }
    arb_pending_take(head, tl, &acts[0]);
    head->ngroup = nt;
    arb_commit_wait(head, c, r->id);    /* its first slot: cannot fail */
    arb_commit_enqueue(srv, head);
    for (k = 1; k < nacts; k++) {
        arb_pending_take(more[k], tl, &acts[k]);
        more[k]->joined = 1;
        more[k]->head = head;
        more[k]->gi = SIZE_MAX;
        arb_commit_enqueue(srv, more[k]);
        more[k] = NULL;
    }
    for (i = 0; i < nt; i++) {
        arb_pending_t *p = rt[i].p;
        rt[i].l->m = rt[i].m;
        rt[i].m = NULL;
        arb_pending_take(p, rt[i].l,
                         rt[i].secret.len ? &rt[i].rec : &rt[i].ev);
        p->joined = 1;
        p->head = head;
        p->gi = i;
        snprintf(head->group[i].match, sizeof(head->group[i].match), "%s",
                 rt[i].tb.match);
        snprintf(head->group[i].table, sizeof(head->group[i].table), "%s",
                 rt[i].tb.table);
        arb_commit_enqueue(srv, p);
        rt[i].p = NULL;
        rt[i].l = NULL;
    }
    head = NULL;
    arb_commit_kick(srv);
    goto done;

fail_rc:
    if (rc != ARB_ENOMEM) {
        arb_reply_error(c, r->id, arb_reply_code(rc), NULL, "round %s: %s",
                        num, arb_strerror(rc));
        goto done;
    }
oom:
    arb_reply_error(c, r->id, "internal", NULL, "out of memory");
done:
    for (i = 0; rt != NULL && i < nt; i++) {
        arb_tourn_table_clear(&rt[i].tb);
        arb_match_free(rt[i].m);
        arb_pending_free(rt[i].p);
        arb_event_clear(&rt[i].ev);
        arb_event_clear(&rt[i].rec);
        arb_buf_free(&rt[i].secret);
        if (rt[i].l != NULL)
            arb_live_reset(srv, rt[i].l);   /* refused: forget the entry */
    }
    free(rt);
    free(g);
    arb_pending_free(head);
    for (k = 0; more != NULL && k < nacts; k++)
        arb_pending_free(more[k]);
    free(more);
    for (k = 0; acts != NULL && k < nacts; k++)
        arb_event_clear(&acts[k]);
    free(acts);
    arb_req_clear(f, RO_N);
}
