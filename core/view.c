/*
 * view.c - see view.h.
 */
#include <stdlib.h>
#include <string.h>

#include "core/codec.h"
#include "core/deal.h"
#include "core/err.h"
#include "core/event_json.h"
#include "core/replay.h"
#include "core/rules.h"
#include "core/view.h"

static int
sees_all(const arb_viewer_t *who)
{
    return who->kind == ARB_VIEW_ALL || who->kind == ARB_VIEW_HANDS;
}

unsigned
arb_view_seen(const arb_viewer_t *who)
{
    if (who->kind == ARB_VIEW_HANDS)
        return ~0u;
    if (who->kind == ARB_VIEW_SEAT && who->seat < 32)
        return 1u << who->seat;
    return 0;
}

int
arb_view_report(arb_buf_t *out, const arb_match_t *m, const arb_viewer_t *who)
{
    return arb_report_json_for(out, m, arb_view_seen(who));
}

int
arb_view_hides_hashes(const char *game, int closed, const arb_viewer_t *who)
{
    const arb_rules_t *rules = arb_rules_find(game);

    return !closed && !sees_all(who) && rules != NULL
           && rules->conceal != NULL;
}

/* How many of ev's arguments `who` sees. */
static size_t
visible_args(const arb_event_t *ev, const arb_setup_t *setup,
             const arb_viewer_t *who)
{
    const arb_rules_t *rules = arb_rules_find(setup->game);
    size_t             keep;
    int                owner = -1;

    if (rules == NULL || rules->conceal == NULL || ev->verb == NULL)
        return ev->nargs;
    keep = rules->conceal(setup, ev, &owner);
    if (keep >= ev->nargs)
        return ev->nargs;
    if (who->kind == ARB_VIEW_SEAT && owner >= 0
        && (unsigned)owner == who->seat)
        return ev->nargs;
    return keep;
}

int
arb_view_event(arb_event_t *out, const arb_event_t *ev,
               const arb_setup_t *setup, int closed, const arb_viewer_t *who)
{
    const char *kind;
    size_t      keep, i;
    int         withheld = 0;

    if (arb_event_copy(out, ev) != 0)
        return ARB_ENOMEM;
    if (closed || sees_all(who))
        return 0;
    switch (ev->kind) {
    case ARB_EV_OPEN:
        if (out->setup != NULL && (out->setup->deal.kind == ARB_DEAL_SEED
                                   || out->setup->deal.kind == ARB_DEAL_ORDER)) {
            if (arb_deal_commit(&out->setup->deal, &kind) != 0)
                goto oom;
            withheld = 1;
        }
        break;
    case ARB_EV_MOVE:
    case ARB_EV_AMEND:
    case ARB_EV_STANDS:
        keep = visible_args(ev, setup, who);
        for (i = keep; i < out->nargs; i++)
            free(out->args[i]);
        withheld = keep < out->nargs;
        out->nargs = keep;
        break;
    }
    return withheld;

oom:
    arb_event_clear(out);
    return ARB_ENOMEM;
}

int
arb_view_event_bytes(arb_buf_t *out, const void *bytes, size_t len,
                     const arb_setup_t *setup, int closed,
                     const arb_viewer_t *who)
{
    arb_event_t ev, seen;
    int         rc;

    if (closed || sees_all(who))
        return 0;
    memset(&seen, 0, sizeof(seen));
    if (arb_event_decode(&ev, bytes, len, NULL) != 0)
        return ARB_EPROTO;
    rc = arb_view_event(&seen, &ev, setup, closed, who);
    if (rc == 1 && arb_event_encode(out, &seen) != 0)
        rc = ARB_ENOMEM;
    arb_event_clear(&seen);
    arb_event_clear(&ev);
    return rc;
}

int
arb_view_event_json(arb_buf_t *out, const char *match, uint64_t seq,
                    int64_t time_ms, const unsigned char *hash,
                    const arb_event_t *ev, const arb_setup_t *setup,
                    int closed, const arb_viewer_t *who)
{
    arb_event_t seen;
    int         rc;

    rc = arb_view_event(&seen, ev, setup, closed, who);
    if (rc < 0)
        return rc;
    if (arb_view_hides_hashes(setup->game, closed, who))
        hash = NULL;
    rc = arb_event_json(out, match, seq, time_ms, hash, &seen);
    arb_event_clear(&seen);
    return rc;
}
