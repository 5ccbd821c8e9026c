#include <inttypes.h>

#include "core/deal.h"
#include "core/err.h"
#include "core/json.h"
#include "core/replay.h"

int
arb_replay(arb_match_t **out, const arb_event_t *open,
           const arb_event_t *events, size_t n, uint64_t at, size_t *bad,
           arb_verdict_t *v)
{
    size_t i;
    int    rc;

    *bad = 0;
    if (open->setup != NULL && open->setup->deal.kind == ARB_DEAL_COMMIT) {
        /* The log holds only the deal's commitment; the close reveals it.
         * Without a reveal (a match still running) the rule set gets the
         * commitment and says what it cannot do without the deal. */
        arb_event_t revealed;
        for (i = 0; i < n; i++)
            if (events[i].kind == ARB_EV_CLOSE && events[i].nargs == 2)
                break;
        if (i < n) {
            rc = arb_event_copy(&revealed, open);
            if (rc == 0)
                rc = arb_deal_reveal(&revealed.setup->deal,
                                     events[i].args[0], events[i].args[1],
                                     v);
            if (rc == 0)
                rc = arb_match_open(out, &revealed, v);
            arb_event_clear(&revealed);
            if (rc != 0)
                return rc;
            goto apply;
        }
    }
    rc = arb_match_open(out, open, v);
    if (rc != 0)
        return rc;
apply:
    for (i = 0; i < n && events[i].seq <= at; i++) {
        rc = arb_match_apply(*out, &events[i], v);
        if (rc != 0) {
            *bad = i;
            return rc;
        }
    }
    return 0;
}

int
arb_report_json(arb_buf_t *b, const arb_match_t *m)
{
    return arb_report_json_for(b, m, 0);
}

int
arb_report_json_for(arb_buf_t *b, const arb_match_t *m, unsigned seen)
{
    arb_results_t r;
    unsigned char d[ARB_HASH_LEN];
    int           rc, i;

    rc = arb_match_results(m, &r);
    if (rc != 0)
        return rc;
    arb_json_results_open(b, &r);
    arb_results_clear(&r);
    arb_match_digest(m, d);
    arb_buf_puts(b, ",\"digest\":\"");
    for (i = 0; i < ARB_HASH_LEN; i++)
        arb_buf_printf(b, "%02x", d[i]);
    arb_buf_printf(b, "\",\"seq\":%" PRIu64 ",\"closed\":%s,"
                   "\"finished\":%s,\"state\":",
                   arb_match_next_seq(m) - 1,
                   arb_match_closed(m) ? "true" : "false",
                   arb_match_finished(m) ? "true" : "false");
    rc = arb_match_describe_for(m, seen, b);
    arb_buf_putc(b, '}');
    return rc != 0 ? rc : b->oom ? ARB_ENOMEM : 0;
}
