#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/deal.h"
#include "core/err.h"
#include "core/hash.h"
#include "core/json.h"
#include "core/replay.h"
#include "core/rulings.h"

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
    json_t *o;
    int     rc;

    rc = arb_report_json_value(&o, m, seen);
    return rc != 0 ? rc : arb_json_put_new(b, o);
}

static int
total_json(void *ud, const char *name, const int64_t *claimed,
           const int64_t *recorded)
{
    json_t *o = json_object();
    int     bad;

    bad = arb_json_set(o, "player", arb_json_string(name));
    bad |= arb_json_set(o, "claimed", claimed != NULL
                        ? json_integer((json_int_t)*claimed) : json_null());
    bad |= arb_json_set(o, "recorded", recorded != NULL
                        ? json_integer((json_int_t)*recorded) : json_null());
    bad |= arb_json_add(ud, o);
    return bad ? ARB_ENOMEM : 0;
}

/* The claim in force, when there is one: its seq and each total it
 * states otherwise than the record (the records' verdicts are their
 * `status`), so that a page shows a dispute of totals only as one
 * (until 2026-12-06 only `arbiter diff --claim` said it). */
static int
claim_json(json_t *o, const arb_match_t *m, const arb_results_t *r)
{
    json_t *c, *t;
    int     bad;

    if (arb_match_claim_seq(m) == 0)
        return 0;
    c = json_object();
    t = json_array();
    bad = arb_match_claim_totals(m, r, total_json, t) < 0;
    bad |= arb_json_set(c, "seq",
                        json_integer((json_int_t)arb_match_claim_seq(m)));
    bad |= arb_json_set(c, "totals_disputed", t);
    bad |= arb_json_set(o, "claim", c);
    return bad ? ARB_ENOMEM : 0;
}

int
arb_report_json_value(json_t **out, const arb_match_t *m, unsigned seen)
{
    arb_results_t r;
    unsigned char d[ARB_HASH_LEN];
    char          hex[ARB_HASH_HEX];
    json_t       *o = json_object();
    int           rc, i, bad;

    rc = arb_match_results(m, &r);
    if (rc != 0) {
        json_decref(o);
        return rc;
    }
    bad = arb_json_set_results(o, &r);
    bad |= claim_json(o, m, &r) != 0;
    arb_results_clear(&r);
    arb_match_digest(m, d);
    for (i = 0; i < ARB_HASH_LEN; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
    bad |= arb_json_set(o, "digest", json_string(hex));
    bad |= arb_json_set(o, "seq",
                          json_integer((json_int_t)(arb_match_next_seq(m) - 1)));
    bad |= arb_json_set(o, "closed", json_boolean(arb_match_closed(m)));
    bad |= arb_json_set(o, "finished", json_boolean(arb_match_finished(m)));
    bad |= arb_rulings_set_json(o, m, seen) != 0;
    bad |= arb_json_set(o, "state", arb_match_describe_value(m, seen));
    if (bad) {
        json_decref(o);
        return ARB_ENOMEM;
    }
    *out = o;
    return 0;
}

/* arb_results_text, with the digest's line or the line that says it is
 * withheld (core/view.h arb_view_hides_digest). */
static int
results_text(arb_buf_t *b, const arb_match_t *m, int digest)
{
    arb_results_t r;
    unsigned char d[ARB_HASH_LEN];
    char          hex[ARB_HASH_HEX];
    size_t        i, j, k;

    if (arb_match_results(m, &r) != 0)
        return ARB_ENOMEM;
    arb_buf_printf(b, "records: %zu\n", r.nrecords);
    for (i = 0; i < r.nrecords; i++) {
        const arb_record_t *rec = &r.records[i];

        arb_buf_putc(b, ' ');
        for (j = 0; j < rec->nfields; j++) {
            const arb_field_t *f = &rec->fields[j];

            if (strcmp(f->key, "match_id") == 0
                || strcmp(f->key, "edition") == 0)
                continue;
            if (f->type == ARB_F_INT) {
                arb_buf_printf(b, " %s=%" PRId64, f->key, f->num);
            } else if (f->type == ARB_F_STR) {
                arb_buf_printf(b, " %s=%s", f->key, f->str);
            } else {
                arb_buf_printf(b, " %s=", f->key);
                for (k = 0; k < f->nlist; k++)
                    arb_buf_printf(b, "%s%s", k ? "→" : "", f->list[k]);
            }
        }
        arb_buf_printf(b, "  (seq %" PRIu64 ")\n", rec->seq);
    }
    arb_buf_puts(b, "totals:\n");
    for (i = 0; i < r.ntotals; i++)
        arb_buf_printf(b, "  %s %" PRId64 "\n", r.totals[i].name,
                       r.totals[i].points);
    if (digest) {
        arb_match_digest(m, d);
        arb_hex(hex, d, ARB_HASH_LEN);
        arb_buf_printf(b, "digest %s\n", hex);
    } else {
        arb_buf_puts(b, "digest withheld while the match runs: it covers "
                     "cards this viewer may not see\n");
    }
    arb_results_clear(&r);
    return b->oom ? ARB_ENOMEM : 0;
}

int
arb_results_text(arb_buf_t *b, const arb_match_t *m)
{
    return results_text(b, m, 1);
}

int
arb_report_text(arb_buf_t *b, const arb_match_t *m)
{
    return arb_report_text_for(b, m, 0);
}

int
arb_report_text_for(arb_buf_t *b, const arb_match_t *m, unsigned seen)
{
    return arb_report_text_digest(b, m, seen, 1);
}

int
arb_report_text_digest(arb_buf_t *b, const arb_match_t *m, unsigned seen,
                       int digest)
{
    arb_buf_printf(b, "match %s  game %s  events %" PRIu64 "%s\n",
                   arb_match_setup(m)->match_id, arb_match_rules(m)->game,
                   arb_match_next_seq(m) - 1,
                   arb_match_closed(m) ? "  closed"
                   : arb_match_finished(m) ? "  finished" : "");
    if (arb_rulings_text(b, m, seen) != 0)
        return ARB_ENOMEM;
    return results_text(b, m, digest);
}
