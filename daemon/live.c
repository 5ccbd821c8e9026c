/*
 * live.c - the matches the daemon has touched, by id.
 *
 * DESIGN: a match is loaded lazily, on its first append, by replaying its
 * committed events from the store, so start-up cost does not grow with the
 * archive.  A closed match leaves memory once nothing refers to it any
 * more (arb_live_release), so memory follows the matches in play, not the
 * history; a later claim or read loads it again.  A closed match loaded
 * for a read or a retry stays only until the next one is loaded
 * (srv->transient), so reading the archive does not fill memory either.  Lookup is a chained hash table; nothing iterates it to produce
 * output, so its order never reaches a client or a digest.
 */
#include <stdlib.h>
#include <string.h>

#include "core/deal.h"
#include "core/err.h"
#include "core/replay.h"
#include "daemon/server.h"
#include "core/codec.h"

static unsigned
bucket(const char *id)
{
    uint32_t h = 2166136261u;

    for (; *id; id++)
        h = (h ^ (unsigned char)*id) * 16777619u;
    return h % ARB_LIVE_BUCKETS;
}

arb_live_t *
arb_live_new(arb_server_t *srv, const char *id)
{
    arb_live_t *l = calloc(1, sizeof(*l));
    unsigned    b = bucket(id);

    if (l == NULL)
        return NULL;
    snprintf(l->id, sizeof(l->id), "%s", id);
    l->hnext = srv->live[b];
    srv->live[b] = l;
    return l;
}

static arb_live_t *
find(arb_server_t *srv, const char *id)
{
    arb_live_t *l;

    for (l = srv->live[bucket(id)]; l != NULL; l = l->hnext)
        if (strcmp(l->id, id) == 0)
            return l;
    return NULL;
}

typedef struct load_ctx {
    arb_server_t  *srv;
    arb_match_t   *m;
    uint64_t       at;
    arb_buf_t     *why;
    int            rc;
} load_ctx_t;

/* The log holds the deal's commitment; the recorder kept the secret
 * ("<kind> <secret>") beside it. */
static int
reveal_stored(load_ctx_t *x, arb_event_t *open, arb_verdict_t *v)
{
    arb_buf_t sec = ARB_BUF_INIT;
    char     *sp;
    int       rc;

    rc = arb_store_secret(x->srv->store, open->setup->match_id, &sec, NULL);
    if (rc != 0) {
        arb_buf_free(&sec);
        return arb_verdict(v, ARB_ECORRUPT, "deal", "the deal's secret is "
                           "missing from the store");
    }
    sp = strchr(sec.data, ' ');
    if (sp == NULL) {
        arb_buf_free(&sec);
        return arb_verdict(v, ARB_ECORRUPT, "deal", "the stored deal secret "
                           "is malformed");
    }
    *sp = '\0';
    rc = arb_deal_reveal(&open->setup->deal, sec.data, sp + 1, v);
    arb_buf_free(&sec);
    return rc;
}

static int
on_event(void *ud, uint64_t seq, int64_t time_ms, const unsigned char *hash,
         const void *bytes, size_t len)
{
    load_ctx_t   *x = ud;
    arb_event_t   ev;
    arb_verdict_t v;
    int           rc;

    (void)time_ms;
    (void)hash;
    rc = arb_event_decode(&ev, bytes, len, x->why);
    if (rc != 0) {
        arb_buf_printf(x->why, " (stored event seq %llu)",
                       (unsigned long long)seq);
        return x->rc = ARB_ECORRUPT;
    }
    if (seq == 0 && ev.setup != NULL && ev.setup->deal.kind == ARB_DEAL_COMMIT
        && (rc = reveal_stored(x, &ev, &v)) != 0) {
        arb_event_clear(&ev);
        arb_buf_free(x->why);
        arb_buf_printf(x->why, "match open: %s", v.msg);
        return x->rc = rc;
    }
    if (seq == 0)
        rc = arb_match_open(&x->m, &ev, &v);
    else
        rc = arb_match_apply(x->m, &ev, &v);
    arb_event_clear(&ev);
    if (rc != 0) {
        arb_buf_free(x->why);
        arb_buf_printf(x->why, "stored event seq %llu no longer replays: "
                       "%s: %s", (unsigned long long)seq, v.rule, v.msg);
        return x->rc = ARB_ECORRUPT;
    }
    return 0;
}

int
arb_live_replay(arb_server_t *srv, const char *id, uint64_t at,
                arb_match_t **out, arb_buf_t *why)
{
    load_ctx_t x = { srv, NULL, at, why, 0 };
    int        rc;

    rc = arb_store_events(srv->store, id, 0, at, on_event, &x, why);
    if (rc == 0 && x.m == NULL)
        rc = ARB_ENOTFOUND;
    if (rc != 0) {
        arb_match_free(x.m);
        return x.rc ? x.rc : rc;
    }
    *out = x.m;
    return 0;
}

int
arb_live_get(arb_server_t *srv, const char *id, arb_live_t **out,
             arb_buf_t *why)
{
    arb_live_t      *l = find(srv, id);
    arb_match_t     *m = NULL;
    arb_match_info_t info;
    int              rc;

    if (l != NULL) {
        *out = l;
        return 0;
    }
    rc = arb_store_match(srv->store, id, &info, why);
    if (rc != 0)
        return rc;
    rc = arb_live_replay(srv, id, info.last_seq, &m, why);
    if (rc != 0)
        return rc;
    l = arb_live_new(srv, id);
    if (l == NULL) {
        arb_match_free(m);
        return ARB_ENOMEM;
    }
    l->m = m;
    snprintf(l->game, sizeof(l->game), "%s", info.game);
    l->committed = info.last_seq;
    l->exists = 1;
    l->closed = info.closed;
    memcpy(l->head, info.head, ARB_HASH_LEN);
    if (l->closed) {
        if (srv->transient != NULL)
            arb_live_release(srv, srv->transient);
        srv->transient = l;
    }
    *out = l;
    return 0;
}

void
arb_live_free_all(arb_server_t *srv)
{
    arb_live_t *l, *n;
    size_t      b;

    srv->transient = NULL;
    for (b = 0; b < ARB_LIVE_BUCKETS; b++) {
        for (l = srv->live[b]; l != NULL; l = n) {
            n = l->hnext;
            arb_match_free(l->m);
            free(l->inflight);
            free(l);
        }
        srv->live[b] = NULL;
    }
}

void
arb_live_reset(arb_server_t *srv, arb_live_t *l)
{
    arb_live_t **pp;
    arb_match_t *m = NULL;
    arb_buf_t    why = ARB_BUF_INIT;

    l->ninflight = 0;
    if (l->exists && arb_live_replay(srv, l->id, l->committed, &m, &why) == 0) {
        arb_match_free(l->m);
        l->m = m;
        return;
    }
    arb_buf_free(&why);
    /* Never committed (or unreadable): forget it; the next request reloads
     * it from the store.  Subscribers of a match that never existed have
     * nothing to lose. */
    for (pp = &srv->live[bucket(l->id)]; *pp != NULL; pp = &(*pp)->hnext)
        if (*pp == l) {
            *pp = l->hnext;
            break;
        }
    while (l->subs != NULL)
        arb_conn_close(l->subs->conn);
    if (srv->transient == l)
        srv->transient = NULL;
    arb_match_free(l->m);
    free(l->inflight);
    free(l);
}

void
arb_live_release(arb_server_t *srv, arb_live_t *l)
{
    arb_live_t **pp;

    if (!l->closed || !l->exists || l->ninflight > 0 || l->subs != NULL)
        return;
    if (srv->transient == l)
        srv->transient = NULL;
    for (pp = &srv->live[bucket(l->id)]; *pp != NULL; pp = &(*pp)->hnext)
        if (*pp == l) {
            *pp = l->hnext;
            break;
        }
    arb_match_free(l->m);
    free(l->inflight);
    free(l);
}

size_t
arb_live_count(arb_server_t *srv)
{
    arb_live_t *l;
    size_t      b, n = 0;

    for (b = 0; b < ARB_LIVE_BUCKETS; b++)
        for (l = srv->live[b]; l != NULL; l = l->hnext)
            n++;
    return n;
}
