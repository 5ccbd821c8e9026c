/*
 * snap.c - committed states kept for the reads that the live matches do
 * not answer (daemon/live.c, committed_at).
 *
 * DESIGN: a state at another seq than a match's live one (a dispute's
 * slider, `state --at`, a closed match read again, a read while an append
 * of its match is in flight) was a replay of the history up to it, on
 * the loop, every other client's acks waiting: about a second per 300,000
 * events.  Such reads come in runs (a slider steps through seqs, a
 * scoreboard polls a match being written, a board reads its tables
 * again), so the states they build are kept, each a copy of its match
 * (arb_match_copy: the size of its rule state, no history), and the next
 * read starts from the nearest one at or before its seq; a long replay
 * keeps one every ARB_SNAP_EVERY events on its way, so that no read of a
 * match replays more than that many again.  At most ARB_SNAPS are kept
 * for the whole daemon, the least recently used let go first: memory
 * does not grow with the archive.
 *
 * A committed event never changes, so a kept state never goes stale;
 * still, each is taken only when the store's hash of its event is the one
 * it was kept with, so that a store rewritten under the daemon (a
 * replica's copy replaced) cannot answer from an old one.  The table is
 * looked up by scanning it: 64 entries, on reads that would otherwise
 * replay; its order never reaches a client.
 */
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "daemon/server.h"

struct arb_snap {
    char          id[ARB_STORE_ID_MAX + 1];
    uint64_t      seq;
    uint64_t      used;                 /* srv->snap_tick when last used */
    unsigned char hash[ARB_HASH_LEN];   /* of event seq */
    arb_match_t  *m;                    /* lean, the state after seq */
};

int
arb_snap_get(arb_server_t *srv, const char *id, uint64_t at,
             arb_match_t **out, uint64_t *seq)
{
    struct arb_snap *best = NULL, *s;
    unsigned char    h[ARB_HASH_LEN];
    size_t           i;

    *out = NULL;
    for (i = 0; i < srv->nsnap; i++) {
        s = &srv->snap[i];
        if (s->m != NULL && s->seq <= at && strcmp(s->id, id) == 0
            && (best == NULL || s->seq > best->seq))
            best = s;
    }
    if (best == NULL)
        return ARB_ENOTFOUND;
    if (arb_store_event_hash(srv->store, id, best->seq, h, NULL) != 0
        || memcmp(h, best->hash, ARB_HASH_LEN) != 0) {
        arb_match_free(best->m);
        best->m = NULL;
        return ARB_ENOTFOUND;
    }
    best->used = ++srv->snap_tick;
    *seq = best->seq;
    return arb_match_copy(best->m, out);
}

void
arb_snap_put(arb_server_t *srv, const char *id, uint64_t seq,
             const unsigned char hash[ARB_HASH_LEN], const arb_match_t *m)
{
    struct arb_snap *s = NULL;
    arb_match_t     *c;
    size_t           i;

    if (strlen(id) > ARB_STORE_ID_MAX)
        return;
    if (srv->snap == NULL) {
        srv->snap = calloc(ARB_SNAPS, sizeof(*srv->snap));
        if (srv->snap == NULL)
            return;             /* only a later read's time is lost */
        srv->nsnap = ARB_SNAPS;
    }
    for (i = 0; i < srv->nsnap; i++) {
        if (srv->snap[i].m != NULL && srv->snap[i].seq == seq
            && strcmp(srv->snap[i].id, id) == 0) {
            srv->snap[i].used = ++srv->snap_tick;
            return;             /* kept already */
        }
        if (s == NULL || srv->snap[i].m == NULL
            || (s->m != NULL && srv->snap[i].used < s->used))
            s = &srv->snap[i];
    }
    if (arb_match_copy(m, &c) != 0)
        return;
    arb_match_free(s->m);
    snprintf(s->id, sizeof(s->id), "%s", id);
    s->seq = seq;
    memcpy(s->hash, hash, ARB_HASH_LEN);
    s->m = c;
    s->used = ++srv->snap_tick;
}

void
arb_snap_free_all(arb_server_t *srv)
{
    size_t i;

    for (i = 0; i < srv->nsnap; i++)
        arb_match_free(srv->snap[i].m);
    free(srv->snap);
    srv->snap = NULL;
    srv->nsnap = 0;
}
