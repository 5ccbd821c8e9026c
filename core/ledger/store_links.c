/*
 * store_links.c - reads of the whole log in commit order, each hash link
 * checked (arb_store_log), and the memory of links those reads keep.
 *
 * DESIGN: a read of one match (arb_store_events) checks each event's
 * stored hash against BLAKE2b(previous hash || its bytes), reading the
 * event before its range for the first link.  A read of the log meets
 * the events of many matches interleaved, so it remembers, per match,
 * the seq and stored hash of the last event it handed over: the next
 * event of that match is checked against it without another read.  Only
 * an event whose predecessor it has not met costs a lookup of that
 * predecessor's stored hash (arb_store_event_hash: the tail, or the
 * index and the log).  A reader that reads the log a piece at a time (a
 * subscription's catch-up, the replicator's window) keeps one memory
 * across its reads, so each match costs one lookup, not one a piece.
 * The memory is bounded (its owner says how many matches; a subscriber
 * has the default, ARB_STORE_LINKS_DEFAULT, the replicator, one per
 * daemon, more): full, it starts again empty, which costs lookups, never
 * a wrong answer.  One BLAKE2b per
 * event, about 0.25 us, as for a read of one match.
 *
 * Until 2026-12-07 these reads (the all-matches subscription, the HTTP
 * live feed's resume, replication) trusted the stored hashes: a byte
 * changed on the disk was served and published under a hash it no longer
 * had, where a read of its match refused it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/idhash.h"
#include "core/ledger/chain.h"
#include "core/ledger/store_int.h"

#define LINKS_FIRST 64          /* slots at first (a power of two) */

typedef struct link {
    uint64_t      seq;
    unsigned char hash[ARB_HASH_LEN];
    unsigned char idlen;        /* 0: a free slot */
    char          id[ARB_STORE_ID_MAX + 8];     /* zero past idlen */
} link_t;

struct arb_store_links {
    link_t *slot;
    size_t  cap;                /* a power of two, or 0 before the first */
    size_t  n;
    size_t  max;                /* matches remembered at most */
};

arb_store_links_t *
arb_store_links_new(size_t max_matches)
{
    arb_store_links_t *lk = calloc(1, sizeof(*lk));

    if (lk != NULL)
        lk->max = max_matches > 0 ? max_matches : ARB_STORE_LINKS_DEFAULT;
    return lk;
}

void
arb_store_links_free(arb_store_links_t *lk)
{
    if (lk == NULL)
        return;
    free(lk->slot);
    free(lk);
}

/* The slot of id: its own, or the free one it would take.  id has
 * ARB_ID_READABLE(n) readable bytes. */
static link_t *
find(const arb_store_links_t *lk, const char *id, size_t n)
{
    size_t  i = (size_t)arb_id_hash(id, n) & (lk->cap - 1);
    link_t *l;

    for (;; i = (i + 1) & (lk->cap - 1)) {
        l = &lk->slot[i];
        if (l->idlen == 0 || (l->idlen == n && arb_id_same(l->id, id, n)))
            return l;
    }
}

/* Room for one more match: the table grown, or emptied at its bound.
 * ARB_ENOMEM leaves it as it was. */
static int
room(arb_store_links_t *lk)
{
    link_t *old = lk->slot, *l;
    size_t  ocap = lk->cap, cap, i;

    if (lk->cap > 0 && (lk->n + 1) * 2 <= lk->cap)
        return 0;
    if (lk->n >= lk->max) {
        memset(lk->slot, 0, lk->cap * sizeof(*lk->slot));
        lk->n = 0;
        return 0;
    }
    cap = ocap > 0 ? ocap * 2 : LINKS_FIRST;
    if ((lk->slot = calloc(cap, sizeof(*lk->slot))) == NULL) {
        lk->slot = old;
        return ARB_ENOMEM;
    }
    lk->cap = cap;
    for (i = 0; i < ocap; i++)
        if (old[i].idlen != 0) {
            l = find(lk, old[i].id, old[i].idlen);
            *l = old[i];
        }
    free(old);
    return 0;
}

typedef struct walk {
    arb_store_t       *s;
    arb_store_links_t *lk;
    arb_store_log_cb   cb;
    void              *ud;
    arb_buf_t         *why;
} walk_t;

/* arb__log_walk's callback: one record's link checked, then handed on. */
static int
checked(void *ud, const arb__rec_t *r)
{
    walk_t              *w = ud;
    link_t              *l = NULL;
    char                 id[ARB_STORE_ID_MAX + 8], rp[ARB__REPR_MAX];
    unsigned char        prev[ARB_HASH_LEN];
    const unsigned char *pp = NULL;
    int                  rc;

    memcpy(id, r->id, r->idlen);
    memset(id + r->idlen, 0, sizeof(id) - r->idlen);
    if (w->lk->cap > 0)
        l = find(w->lk, id, r->idlen);
    if (r->seq > 0 && l != NULL && l->idlen != 0 && l->seq + 1 == r->seq) {
        pp = l->hash;
    } else if (r->seq > 0) {
        rc = arb_store_event_hash(w->s, id, r->seq - 1, prev, w->why);
        if (rc == ARB_ENOTFOUND) {
            arb__why(w->why, "match \"%s\" seq %llu: the event before it "
                     "is not in the store: run arbiter check",
                     arb__repr(rp, id, r->idlen),
                     (unsigned long long)r->seq);
            return ARB_ECORRUPT;
        }
        if (rc != 0)
            return rc;
        pp = prev;
    }
    if ((rc = arb__link_check(pp, r, 1, w->why)) != 0)
        return rc;
    /* (No room, it is not remembered: its next event costs a lookup.) */
    if ((l == NULL || l->idlen == 0) && room(w->lk) == 0) {
        l = find(w->lk, id, r->idlen);
        memcpy(l->id, id, sizeof(l->id));
        l->idlen = (unsigned char)r->idlen;
        w->lk->n++;
    }
    if (l != NULL && l->idlen != 0) {
        l->seq = r->seq;
        memcpy(l->hash, r->hash, ARB_HASH_LEN);
    }
    return w->cb(w->ud, r->pos, id, r->seq, r->time_ms, r->hash, r->bytes,
                 r->len);
}

int
arb_store_log(arb_store_t *s, arb_store_links_t *lk, uint64_t from_pos,
              uint64_t max, arb_store_log_cb cb, void *ud, arb_buf_t *why)
{
    arb_store_links_t  own;
    walk_t             w = { s, lk, cb, ud, why };
    int                rc;

    if (cb == NULL) {
        arb__why(why, "no store or no callback");
        return ARB_EINVAL;
    }
    if (lk == NULL) {
        memset(&own, 0, sizeof(own));
        own.max = ARB_STORE_LINKS_DEFAULT;
        w.lk = &own;
    }
    rc = arb__log_walk(s, from_pos, max, checked, NULL, &w, why);
    if (lk == NULL)
        free(own.slot);
    return rc;
}
