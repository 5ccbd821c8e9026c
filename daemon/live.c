/*
 * live.c - the matches the daemon has touched, by id.
 *
 * DESIGN: a match is loaded lazily, on its first append, by replaying its
 * committed events from the store, so start-up cost does not grow with the
 * archive.  A closed match leaves memory once nothing refers to it any
 * more (arb_live_release), so memory follows the matches in play, not the
 * history; a later claim or read loads it again.  A closed match loaded
 * for a read or a retry stays only until the next one is loaded
 * (srv->transient), so reading the archive does not fill memory either.
 * Lookup is a chained hash table; nothing iterates it to produce output,
 * so its order never reaches a client or a digest.
 *
 * A live match holds what judging needs, its rule state, and no history
 * (arb_match_lean): a move costs no memory however long the match runs.
 * Only a ruling (void, amend, stands) needs the moves, to rebuild the
 * state without the one it rules on; before judging one,
 * arb_live_keep_history() reloads the match with its history from the
 * store and re-applies the appends still in flight.  Readers replay their
 * own full copy (arb_live_replay), never the live one.
 *
 * Client ids.  A retried append is found by its client id: among the
 * appends in flight, else in the store (arb_op_idem).  Most appends carry
 * a new id, and asking the store (its in-memory tail, then an index read
 * transaction) was the loop's largest cost after the socket calls.  So a
 * live match also keeps a fixed 256-byte Bloom filter of every client id
 * it holds: those of its stored events, added when it is loaded (the
 * daemon stamps the client id into the canonical event, so the events
 * name the same ids as the store's records), and each queued append's,
 * added before it can be committed.  A filter never forgets, so "not in
 * the filter" means never used and the store is not asked; a hit (or a
 * false positive, ~1% at 150 ids, more as a long match fills it) asks the
 * store as before.  The commit still checks an id the filter ruled out
 * against the index, off the loop (op_write.c, cid_fresh), so a store
 * whose events and records disagreed could refuse a batch but never take
 * a duplicate.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/codec.h"
#include "core/err.h"
#include "core/fnv.h"
#include "core/ledger/history.h"
#include "daemon/log.h"
#include "daemon/replica.h"
#include "daemon/server.h"

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

/* Three bit positions of a client id: FNV-1a, then a finaliser that
 * spreads it over all 64 bits (FNV's high bits mix poorly). */
static void
cid_bits(const char *cid, unsigned bit[3])
{
    uint64_t h = arb_fnv1a(cid, strlen(cid), ARB_FNV_SEED);

    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    bit[0] = (unsigned)(h & (ARB_CIDF_WORDS * 64 - 1));
    bit[1] = (unsigned)((h >> 21) & (ARB_CIDF_WORDS * 64 - 1));
    bit[2] = (unsigned)((h >> 42) & (ARB_CIDF_WORDS * 64 - 1));
}

void
arb_live_cid_add(arb_live_t *l, const char *cid)
{
    unsigned b[3], i;

    cid_bits(cid, b);
    for (i = 0; i < 3; i++)
        l->cidf[b[i] / 64] |= 1ull << (b[i] % 64);
}

int
arb_live_cid_maybe(const arb_live_t *l, const char *cid)
{
    unsigned b[3], i;

    cid_bits(cid, b);
    for (i = 0; i < 3; i++)
        if (!(l->cidf[b[i] / 64] & (1ull << (b[i] % 64))))
            return 0;
    return 1;
}

/* The filter of a loaded history: every client id it holds. */
static void
cid_fill(uint64_t cidf[ARB_CIDF_WORDS], const arb_history_t *h)
{
    arb_live_t tmp;
    size_t     i;

    memset(tmp.cidf, 0, sizeof(tmp.cidf));
    if (h->open.client_id != NULL)
        arb_live_cid_add(&tmp, h->open.client_id);
    for (i = 0; i < h->nevents; i++)
        if (h->events[i].client_id != NULL)
            arb_live_cid_add(&tmp, h->events[i].client_id);
    memcpy(cidf, tmp.cidf, sizeof(tmp.cidf));
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

/* 1 when an event of h is a ruling, which rebuilds from the moves. */
static int
has_ruling(const arb_history_t *h)
{
    size_t i;

    for (i = 0; i < h->nevents; i++)
        if (h->events[i].kind == ARB_EV_VOID
            || h->events[i].kind == ARB_EV_AMEND
            || h->events[i].kind == ARB_EV_STANDS)
            return 1;
    return 0;
}

/* The replay of the committed events; `lean` (and no ruling among them)
 * makes a match that keeps no history, for the live table. */
static int
load(arb_server_t *srv, const char *id, uint64_t at, int lean,
     arb_match_t **out, uint64_t *cidf, arb_buf_t *why)
{
    arb_history_t h;
    arb_match_t  *m = NULL;
    arb_verdict_t v;
    arb_buf_t     own = ARB_BUF_INIT;
    size_t        bad = 0, i;
    int           rc;

    /* (a caller that wants no reason still gets one in the log) */
    if (why == NULL)
        why = &own;
    memset(&h, 0, sizeof(h));
    rc = arb_history_load(&h, srv->store, id, at, why);
    if (rc == 0) {
        srv->n.replays++;
        srv->n.replayed_events += h.nevents;
    }
    if (rc == ARB_EPROTO || rc == ARB_ETOOBIG)
        rc = ARB_ECORRUPT;      /* a stored event that does not decode */
    else if (rc == 0 && !h.has_open)
        rc = ARB_ENOTFOUND;
    if (rc != 0)
        goto done;
    /* The log holds the deal's commitment; the recorder kept the secret
     * beside it, and the live match needs the deal.  A read replica that
     * met the deal late holds it in memory until the match's next event
     * stores it. */
    if (arb_history_sealed(&h)
        && (rc = arb_replica_secret(srv, id, &h.secret)) != 0)
        goto done;
    if (arb_history_sealed(&h)) {
        /* On a read replica that is no fault: it has no replication key,
         * or the deal message has not come (docs/REPLICA.md). */
        arb_buf_free(why);
        if (arb_replica_sealed(srv, id, why)) {
            rc = ARB_ESEALED;
            goto done;
        }
        arb_buf_printf(why, "match open: the deal's secret is missing from "
                       "the store");
        rc = ARB_ECORRUPT;
        goto done;
    }
    rc = arb_history_reveal(&h, &v);
    if (rc != 0) {
        arb_buf_free(why);
        arb_buf_printf(why, "match open: %s", v.msg);
        goto done;
    }
    if (lean && !has_ruling(&h)) {
        /* The open through the one path that reveals a deal, then the
         * events on the lean match. */
        rc = arb_history_replay(&h, 0, &m, &bad, &v);
        if (rc == 0)
            rc = arb_match_lean(m);
        for (i = 0; rc == 0 && i < h.nevents; i++) {
            bad = i;
            rc = arb_match_apply(m, &h.events[i], &v);
        }
    } else {
        rc = arb_history_replay(&h, UINT64_MAX, &m, &bad, &v);
    }
    if (rc != 0) {
        arb_buf_free(why);
        arb_buf_printf(why, "stored event seq %llu no longer replays: "
                       "%s: %s", m == NULL ? 0ULL
                       : (unsigned long long)h.events[bad].seq, v.rule,
                       v.msg);
        arb_match_free(m);
        m = NULL;
        rc = ARB_ECORRUPT;
        goto done;
    }
    *out = m;
    if (cidf != NULL)
        cid_fill(cidf, &h);
done:
    if (rc == ARB_ECORRUPT)
        arb_live_corrupt(srv, id, why);
    arb_buf_free(&own);
    arb_history_clear(&h);
    return rc;
}

void
arb_live_corrupt(arb_server_t *srv, const char *id, const arb_buf_t *why)
{
    arb_log_ctx_t ctx;
    const char   *said = "its stored history does not read";
    int           n = (int)strlen(said);

    /* The first and every 100th, so that a scoreboard polling it cannot
     * flood the log. */
    if (srv->n.store_corrupt++ % 100 != 0)
        return;
    memset(&ctx, 0, sizeof(ctx));
    ctx.match = id;
    /* (why's bytes are not NUL-ended: an arb_buf_t ends at len) */
    if (why != NULL && why->data != NULL && why->len > 0) {
        n = why->len < INT_MAX ? (int)why->len : INT_MAX;
        said = why->data;
    }
    if (id == NULL)     /* a read of the log: why names the match */
        arb_log_ev(ARB_LOG_ERROR, "store_corrupt", NULL, "%.*s (%llu reads "
                   "so far)", n, said,
                   (unsigned long long)srv->n.store_corrupt);
    else
        arb_log_ev(ARB_LOG_ERROR, "store_corrupt", &ctx, "match %s: %.*s "
                   "(%llu reads so far): run arbiter check", id, n, said,
                   (unsigned long long)srv->n.store_corrupt);
}

/* Applies a match's stored events to a lean match, in seq order: a live
 * one (l, whose client ids it adds) or a state being rebuilt for a read
 * (srv, which keeps a copy every ARB_SNAP_EVERY events on the way). */
typedef struct advance {
    arb_live_t   *l;
    arb_match_t  *m;
    arb_server_t *srv;
    const char   *id;
    uint64_t      next;         /* the seq expected next */
    unsigned char hash[ARB_HASH_LEN];   /* of the last event applied */
    int           ruling;       /* stopped at a ruling */
    int           rc;
} advance_t;

static int
on_advance(void *ud, uint64_t seq, int64_t t,
           const unsigned char hash[ARB_HASH_LEN], const void *bytes,
           size_t len)
{
    advance_t    *x = ud;
    arb_event_t   ev;
    arb_verdict_t v;

    (void)t;
    if (seq != x->next++ || arb_event_decode(&ev, bytes, len, NULL) != 0)
        return x->rc = -1;
    /* A ruling rebuilds the state from the moves, which a lean match no
     * longer holds. */
    x->ruling = ev.kind == ARB_EV_VOID || ev.kind == ARB_EV_AMEND
                || ev.kind == ARB_EV_STANDS;
    if (ev.kind == ARB_EV_OPEN || x->ruling
        || arb_match_apply(x->m, &ev, &v) != 0)
        x->rc = -1;
    else if (x->l != NULL && ev.client_id != NULL)
        arb_live_cid_add(x->l, ev.client_id);
    arb_event_clear(&ev);
    memcpy(x->hash, hash, ARB_HASH_LEN);
    if (x->rc == 0 && x->srv != NULL && seq % ARB_SNAP_EVERY == 0)
        arb_snap_put(x->srv, x->id, seq, hash, x->m);
    return x->rc;
}

/* The committed state of id at seq `at` as a match of the caller's own,
 * lean: from the kept state nearest at or before it (snap.c), else from
 * the open, and the stored events after it, keeping states on the way
 * and at `at`.  With cidf (a live match being loaded) it starts at the
 * open, since a kept state holds no client ids, and fills cidf with every
 * client id it meets.  A ruling among those events (it rebuilds from the
 * moves, which a kept state does not hold), or an event that no longer
 * applies, is left to load(): a whole replay, which says what is wrong
 * (both count in `replays` and `replayed_events`: both ran). */
static int
committed_at(arb_server_t *srv, const char *id, uint64_t at,
             arb_match_t **out, uint64_t *cidf, arb_buf_t *why)
{
    arb_match_t *m = NULL;
    arb_live_t   ids;           /* the client ids met, for cidf */
    advance_t    x;
    uint64_t     from = 0;
    int          rc;

    *out = NULL;
    rc = cidf != NULL ? ARB_ENOTFOUND : arb_snap_get(srv, id, at, &m, &from);
    if (rc == ARB_ENOTFOUND) {
        from = 0;
        rc = load(srv, id, 0, 1, &m, cidf, why);
        if (rc != 0)
            return rc;
    } else if (rc != 0) {
        arb_buf_free(why);
        arb_buf_printf(why, "out of memory");
        return rc;
    } else if (from < at) {
        srv->n.replays++;
    }
    if (from == at) {
        *out = m;
        return 0;
    }
    memset(&x, 0, sizeof(x));
    x.m = m;
    x.srv = srv;
    x.id = id;
    x.next = from + 1;
    if (cidf != NULL) {
        memcpy(ids.cidf, cidf, sizeof(ids.cidf));
        x.l = &ids;
    }
    rc = arb_store_events(srv->store, id, from + 1, at, on_advance, &x,
                          NULL);
    srv->n.replayed_events += x.next - (from + 1);
    if (rc == 0 && x.rc == 0 && x.next == at + 1) {
        arb_snap_put(srv, id, at, x.hash, m);
        if (cidf != NULL)
            memcpy(cidf, ids.cidf, sizeof(ids.cidf));
        *out = m;
        return 0;
    }
    arb_match_free(m);
    return load(srv, id, at, cidf != NULL, out, cidf, why);
}

/* 1 when l's match is exactly the committed state at seq `at`: held,
 * its open committed, nothing in flight (the live streams read it so). */
static int
stands_at(const arb_live_t *l, uint64_t at)
{
    return l != NULL && l->m != NULL && l->exists && l->ninflight == 0
           && l->committed == at;
}

int
arb_live_replay(arb_server_t *srv, const char *id, uint64_t at,
                arb_match_t **out, arb_buf_t *why)
{
    const arb_live_t *l = find(srv, id);
    int               rc;

    /* Until 2026-12-06 a replay of the whole history, on the loop, for
     * every judged move and every table of a tournament's board. */
    if (stands_at(l, at)) {
        rc = arb_match_copy(l->m, out);
        if (rc != ARB_EUNSUPP) {
            if (rc != 0) {
                arb_buf_free(why);
                arb_buf_printf(why, "out of memory");
            }
            return rc;
        }
    }
    return committed_at(srv, id, at, out, NULL, why);
}

int
arb_live_state(arb_server_t *srv, const char *id, uint64_t at,
               arb_match_t **out, int *own, arb_buf_t *why)
{
    const arb_live_t *l = find(srv, id);

    /* A long match's state at its head was a replay of its whole
     * history per read, on the loop (until 2026-12-06: 2.7 s for one of
     * 600,000 events, every ack waiting behind it). */
    if (stands_at(l, at)) {
        *out = l->m;
        *own = 0;
        return 0;
    }
    *own = 1;
    return committed_at(srv, id, at, out, NULL, why);
}

int
arb_live_scratch(arb_server_t *srv, const arb_live_t *l, int lean,
                 arb_match_t **out, arb_buf_t *why)
{
    arb_match_t  *m = NULL;
    arb_verdict_t v;
    size_t        i;
    int           rc;

    *out = NULL;
    if (!l->exists) {
        arb_buf_free(why);
        arb_buf_printf(why, "the match's open is not committed yet: send "
                       "this after its acknowledgement");
        return ARB_EAGAIN;
    }
    rc = load(srv, l->id, l->committed, lean, &m, NULL, why);
    /* The appends judged but not yet committed, in seq order. */
    for (i = 0; rc == 0 && i < l->ninflight; i++)
        if (arb_match_apply(m, &l->inflight[i]->ev, &v) != 0) {
            arb_buf_free(why);
            arb_buf_printf(why, "queued seq %llu no longer applies: %s: %s",
                           (unsigned long long)l->inflight[i]->ev.seq,
                           v.rule, v.msg);
            rc = ARB_ECORRUPT;
        }
    if (rc != 0) {
        arb_match_free(m);
        return rc;
    }
    *out = m;
    return 0;
}

int
arb_live_keep_history(arb_server_t *srv, arb_live_t *l, arb_buf_t *why)
{
    arb_match_t *m;
    int          rc;

    if (l->m == NULL || !arb_match_is_lean(l->m))
        return 0;
    rc = arb_live_scratch(srv, l, 0, &m, why);
    if (rc == ARB_EAGAIN) {
        arb_buf_free(why);
        arb_buf_printf(why, "the match's open is not committed yet: send "
                       "the ruling after its acknowledgement");
    }
    if (rc != 0)
        return rc;
    arb_match_free(l->m);
    l->m = m;
    return 0;
}

arb_live_t *
arb_live_peek(arb_server_t *srv, const char *id)
{
    return find(srv, id);
}

int
arb_live_get(arb_server_t *srv, const char *id, arb_live_t **out,
             arb_buf_t *why)
{
    arb_live_t      *l = find(srv, id);
    arb_match_t     *m = NULL;
    arb_match_info_t info;
    uint64_t         cidf[ARB_CIDF_WORDS];
    int              rc;

    if (l != NULL) {
        *out = l;
        return 0;
    }
    /* Said as such, not "no match" (until 2026-12-06 'bad id!' was
     * not_found and an empty id "bad match id", naming no field). */
    if (!arb_name_valid(id)) {
        if (why != NULL) {
            why->len = 0;
            arb_buf_printf(why, "match: '%s' is not a match id (1..64 of "
                           "A-Z a-z 0-9 _ . @ + -)", id);
        }
        return ARB_EINVAL;
    }
    rc = arb_store_match(srv->store, id, &info, why);
    if (rc != 0)
        return rc;
    memset(cidf, 0, sizeof(cidf));
    /* A closed match comes and goes (srv->transient): a board reading
     * its tables, a scoreboard polling the archive, replayed it whole at
     * each touch.  From a kept state its client ids are not known: every
     * one is "maybe", asked of the store.  An open one is rebuilt from
     * its open, event by event, keeping states on the way for reads of
     * its earlier seqs (until 2026-12-06 its whole history was read into
     * memory at once, and the first read one seq back replayed it all
     * again). */
    if (info.closed) {
        rc = committed_at(srv, id, info.last_seq, &m, NULL, why);
        memset(cidf, 0xff, sizeof(cidf));
    } else {
        rc = committed_at(srv, id, info.last_seq, &m, cidf, why);
    }
    /* A read replica without a dealt match's secret serves its events
     * and subscriptions all the same, without its rule state. */
    if (rc != 0 && rc != ARB_ESEALED)
        return rc;
    if (why != NULL)
        why->len = 0;
    l = arb_live_new(srv, id);
    if (l == NULL) {
        arb_match_free(m);
        return ARB_ENOMEM;
    }
    l->m = m;
    memcpy(l->cidf, cidf, sizeof(l->cidf));
    snprintf(l->game, sizeof(l->game), "%s", info.game);
    l->committed = info.last_seq;
    l->exists = 1;
    l->closed = info.closed;
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

    arb_snap_free_all(srv);
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
    uint64_t     cidf[ARB_CIDF_WORDS];
    size_t       i;
    int          rc = 0;

    l->ninflight = 0;
    memset(cidf, 0, sizeof(cidf));
    if (l->exists
        && ((rc = load(srv, l->id, l->committed, 1, &m, cidf, &why)) == 0
            || rc == ARB_ESEALED)) {
        arb_buf_free(&why);
        arb_match_free(l->m);
        l->m = m;                   /* (NULL: sealed here, see arb_live_get) */
        /* Added to, never cleared: the store may hold more than before
         * (a replica's appends), and a stale bit is only a lookup. */
        for (i = 0; i < ARB_CIDF_WORDS; i++)
            l->cidf[i] |= cidf[i];
        return;
    }
    /* Never committed (or unreadable): forget it; the next request reloads
     * it from the store.  Its subscribers are told why (until 2026-12-08
     * their connections were closed without a word, the refusal of an
     * open sent on one of them dropped with it). */
    for (pp = &srv->live[bucket(l->id)]; *pp != NULL; pp = &(*pp)->hnext)
        if (*pp == l) {
            *pp = l->hnext;
            break;
        }
    if (l->subs != NULL) {
        arb_buf_t msg = ARB_BUF_INIT;

        if (l->exists)
            arb_buf_printf(&msg, "match '%s' could not be read again: %s",
                           l->id, why.len > 0 ? arb_buf_cstr(&why)
                                              : arb_strerror(rc));
        else
            arb_buf_printf(&msg, "match '%s' was never opened: its open "
                           "was refused before its commit; subscribe "
                           "again once an open of it is acknowledged",
                           l->id);
        arb_sub_end_match(l, l->exists ? "internal" : "not_found",
                          msg.oom ? "the match is gone" : arb_buf_cstr(&msg));
        arb_buf_free(&msg);
    }
    arb_buf_free(&why);
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

    if (!l->closed || !l->exists || l->ninflight > 0 || l->nheld > 0
        || l->subs != NULL)
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

void
arb_live_release_left(arb_server_t *srv)
{
    arb_live_t *l, *n;
    size_t      b;

    for (b = 0; b < ARB_LIVE_BUCKETS; b++)
        for (l = srv->live[b]; l != NULL; l = n) {
            n = l->hnext;
            if (l->left) {
                l->left = 0;
                /* (Or later, by whoever holds it now: its commit's walk
                 * or the replication's release of its last held ack.) */
                arb_live_release(srv, l);
            }
        }
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

uint64_t
arb_live_committed(arb_server_t *srv, const char *id,
                   const arb_match_info_t *info)
{
    arb_live_t *l = NULL;

    if (arb_live_get(srv, id, &l, NULL) == 0 && l->committed < info->last_seq)
        return l->committed;
    return info->last_seq;
}

int
arb_live_advance(arb_server_t *srv, arb_live_t *l, uint64_t from)
{
    advance_t x;

    if (!l->exists || l->m == NULL || !arb_match_is_lean(l->m)
        || l->ninflight > 0 || from >= l->committed)
        return from == l->committed && l->m != NULL ? 0 : -1;
    memset(&x, 0, sizeof(x));
    x.l = l;
    x.m = l->m;
    x.next = from + 1;
    if (arb_store_events(srv->store, l->id, from + 1, l->committed,
                         on_advance, &x, NULL) != 0
        || x.rc != 0 || x.next != l->committed + 1)
        return -1;
    return 0;
}

typedef struct one_ev {
    arb_event_t *ev;
    int          rc;
} one_ev_t;

static int
on_one(void *ud, uint64_t seq, int64_t t,
       const unsigned char hash[ARB_HASH_LEN], const void *bytes, size_t len)
{
    one_ev_t *x = ud;

    (void)seq;
    (void)t;
    (void)hash;
    x->rc = arb_event_decode(x->ev, bytes, len, NULL);
    return 1;
}

int
arb_live_event(arb_server_t *srv, const char *id, uint64_t seq,
               arb_event_t *ev)
{
    one_ev_t x = { ev, ARB_ENOTFOUND };

    memset(ev, 0, sizeof(*ev));
    arb_store_events(srv->store, id, seq, seq, on_one, &x, NULL);
    return x.rc;
}
