/*
 * viewer.c - what one connection may see of a match (docs/VIEWS.md).
 *
 * DESIGN: the role picks the viewer, core/view.h writes for it.  Arbiters
 * see everything, and scorers everything of the matches they score; a
 * player token sees its own seat of its own match; every other reader,
 * a player on any other match and a scorer on a match it does not score
 * get the public view.  The answers that carry a match's state or events
 * (state, events, subscription pushes) all ask here, so no read path can
 * forget the filter.  Games whose moves hide nothing cost one table
 * look-up.
 */
#include <string.h>

#include "core/err.h"
#include "core/rules.h"
#include "daemon/server.h"

int
arb_scope_covers(char *const *matches, size_t n, const char *match)
{
    size_t i;

    if (n == 0)
        return 1;
    for (i = 0; match != NULL && i < n; i++)
        if (strcmp(matches[i], match) == 0)
            return 1;
    return 0;
}

int
arb_seen_role(int role, char *const *matches, size_t n, const char *match)
{
    return role == ARB_ROLE_SCORER && !arb_scope_covers(matches, n, match)
           ? ARB_ROLE_READER : role;
}

arb_viewer_t
arb_role_viewer(int role, const char *own_match, const char *seat,
                const char *match, const arb_setup_t *setup)
{
    arb_viewer_t who = { ARB_VIEW_PUBLIC, 0 };
    int          s;

    if (role >= ARB_ROLE_SCORER) {
        who.kind = ARB_VIEW_ALL;
    } else if (role == ARB_ROLE_PLAYER && own_match != NULL
               && seat != NULL && strcmp(own_match, match) == 0
               && setup != NULL && (s = arb_setup_seat(setup, seat)) >= 0) {
        who.kind = ARB_VIEW_SEAT;
        who.seat = (unsigned)s;
    }
    return who;
}

arb_viewer_t
arb_conn_viewer(const arb_conn_t *c, const char *match,
                const arb_setup_t *setup)
{
    return arb_role_viewer(arb_seen_role(c->role, c->matches, c->nmatches,
                                         match),
                           c->nmatches == 1 ? c->matches[0] : NULL,
                           c->seat, match, setup);
}

int
arb_conn_event_view(arb_conn_t *c, arb_live_t *l, const char *match,
                    int every, const void **bytes, size_t *len,
                    const unsigned char **hash, arb_buf_t *tmp)
{
    const arb_rules_t *rules;
    arb_match_info_t   info;
    arb_setup_t        bare;
    const arb_setup_t *setup = NULL;
    arb_viewer_t       who;
    int                closed, rc, role;

    /* A feed of every match is every match at once: a scorer limited to
     * some reads it as a reader, its own tables too, as on HTTP's
     * /api/live (until 2026-12-06 the protocol's showed its own tables
     * whole there while HTTP's did not). */
    role = arb_seen_role(c->role, c->matches, c->nmatches,
                         every ? NULL : match);
    if (role >= ARB_ROLE_SCORER)
        return 0;
    if (l != NULL) {
        rules = arb_rules_find(l->game);
        closed = l->closed;
    } else {
        /* A subscription to every match: nothing of this one is at hand
         * but what the store's summary says. */
        rc = arb_store_match(c->srv->store, match, &info, NULL);
        if (rc != 0)
            return rc;
        rules = arb_rules_find(info.game);
        closed = info.closed;
    }
    if (closed || rules == NULL || rules->conceal == NULL)
        return 0;
    if (l == NULL && c->role == ARB_ROLE_PLAYER && c->nmatches == 1
        && strcmp(c->matches[0], match) == 0
        && (rc = arb_live_get(c->srv, match, &l, NULL)) != 0)
        return rc;
    if (l != NULL && l->m != NULL) {
        setup = arb_match_setup(l->m);
    } else {
        /* Seats matter only to a player of this match, who got its live
         * entry above: to everyone else a hidden argument is nobody's. */
        memset(&bare, 0, sizeof(bare));
        bare.game = (char *)rules->game;
        setup = &bare;
    }
    who = arb_role_viewer(role, c->nmatches == 1 ? c->matches[0] : NULL,
                          c->seat, match, setup);
    if (arb_view_hides_hashes(rules->game, closed, &who))
        *hash = NULL;
    rc = arb_view_event_bytes(tmp, *bytes, *len, setup, closed, &who);
    if (rc == 1) {
        *bytes = tmp->data;
        *len = tmp->len;
        rc = 0;
    }
    return rc;
}
