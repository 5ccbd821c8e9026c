/*
 * view.c - see view.h.
 */
#include <stdlib.h>
#include <string.h>

#include "core/codec.h"
#include "core/deal.h"
#include "core/err.h"
#include "core/event_json.h"
#include "core/json.h"
#include "core/replay.h"
#include "core/rules.h"
#include "core/transcript.h"
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
arb_view_hides_digest(const arb_match_t *m, int closed,
                      const arb_viewer_t *who)
{
    return !sees_all(who) && !closed && !arb_match_closed(m)
           && (arb_match_setup(m)->deal.kind != ARB_DEAL_NONE
               || arb_match_rules(m)->conceal != NULL);
}

int
arb_view_report(arb_buf_t *out, const arb_match_t *m, int closed,
                const arb_viewer_t *who)
{
    json_t *o;
    int     rc;

    rc = arb_report_json_value(&o, m, arb_view_seen(who));
    if (rc != 0)
        return rc;
    if (arb_view_hides_digest(m, closed, who)
        && arb_json_set(o, "digest", json_null()) != 0) {
        json_decref(o);
        return ARB_ENOMEM;
    }
    return arb_json_put_new(out, o) != 0 ? ARB_ENOMEM : 0;
}

int
arb_view_report_text(arb_buf_t *out, const arb_match_t *m, int closed,
                     const arb_viewer_t *who)
{
    return arb_report_text_digest(out, m, arb_view_seen(who),
                                  !arb_view_hides_digest(m, closed, who));
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

/* Withholds in place what `who` may not see of ev (the match open).
 * 1 when something was withheld, 0 when not, or ARB_ENOMEM. */
static int
withhold(arb_event_t *ev, const arb_setup_t *setup, const arb_viewer_t *who)
{
    const char *kind;
    size_t      keep, i;

    switch (ev->kind) {
    case ARB_EV_OPEN:
        if (ev->setup == NULL || (ev->setup->deal.kind != ARB_DEAL_SEED
                                  && ev->setup->deal.kind != ARB_DEAL_ORDER))
            return 0;
        return arb_deal_commit(&ev->setup->deal, &kind) != 0 ? ARB_ENOMEM
                                                              : 1;
    case ARB_EV_MOVE:
    case ARB_EV_AMEND:
    case ARB_EV_STANDS:
        keep = visible_args(ev, setup, who);
        if (keep >= ev->nargs)
            return 0;
        for (i = keep; i < ev->nargs; i++)
            free(ev->args[i]);
        ev->nargs = keep;
        return 1;
    }
    return 0;
}

int
arb_view_event(arb_event_t *out, const arb_event_t *ev,
               const arb_setup_t *setup, int closed, const arb_viewer_t *who)
{
    int rc;

    if (arb_event_copy(out, ev) != 0)
        return ARB_ENOMEM;
    if (closed || sees_all(who))
        return 0;
    rc = withhold(out, setup, who);
    if (rc < 0)
        arb_event_clear(out);
    return rc;
}

int
arb_view_event_bytes(arb_buf_t *out, const void *bytes, size_t len,
                     const arb_setup_t *setup, int closed,
                     const arb_viewer_t *who)
{
    arb_event_t ev;
    int         rc;

    if (closed || sees_all(who))
        return 0;
    if (arb_event_decode(&ev, bytes, len, NULL) != 0)
        return ARB_EPROTO;
    rc = withhold(&ev, setup, who);
    if (rc == 1 && arb_event_encode(out, &ev) != 0)
        rc = ARB_ENOMEM;
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

int
arb_view_public_line(arb_buf_t *out, const arb_event_t *ev,
                     const arb_setup_t *setup)
{
    const arb_viewer_t pub = { ARB_VIEW_PUBLIC, 0 };
    arb_event_t        seen;
    int                rc;

    memset(&seen, 0, sizeof(seen));
    rc = arb_view_event(&seen, ev, setup, 0, &pub);
    if (rc < 0)
        return rc;
    arb_transcript_event_line(out, &seen);
    arb_event_clear(&seen);
    return out->oom ? ARB_ENOMEM : 0;
}
