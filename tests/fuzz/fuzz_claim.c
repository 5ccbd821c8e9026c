/*
 * fuzz_claim.c - the claim readers (core/claim.h, docs/CLAIMS.md) on
 * arbitrary text: JSON, CSV against the schema of a real YAHchain match,
 * CSV without a schema, the automatic choice of arb_claim_parse(), and
 * a recorder's report read as results (arb_claim_parse_report).  The
 * first byte picks the reader; the rest is the file.
 *
 * Invariants: a refusal names its place ("line L..."); an accepted claim's
 * canonical form parses again (as JSON) to the same canonical form; it
 * travels through a claim event and back (arb_claim_to_event,
 * arb_claim_from_event) unchanged; and arb_claim_event_canon leaves the
 * event of a canonical claim as it is.
 *
 * Corpus: tests/fuzz/corpus/claim (the JSON and CSV claims of that match).
 */
#include <stdint.h>
#include <string.h>

#include "core/buf.h"
#include "core/claim.h"
#include "core/err.h"
#include "core/match.h"
#include "core/replay.h"
#include "core/transcript.h"
#include "tests/fuzz/fuzz.h"

/* Two Sotas of 2-3-4 (a Single line, BC-003, 24 points each). */
static const char schema_match[] =
    "game: yahchain\nmatch: C1\nplayers: alice bob\nmode: 3\n\n"
    "1. place alice 2S\n2. place bob 3S\n3. place alice 4S\n"
    "4. place bob 2H\n5. place alice 3H\n6. place bob 4H\n";

/* The recorded results of schema_match: what a CSV cell is read as. */
static const arb_results_t *
schema(void)
{
    static arb_results_t res;
    static int           ready;
    arb_history_t     t;
    arb_match_t         *m = NULL;
    arb_verdict_t        v;
    arb_buf_t            why = ARB_BUF_INIT;
    size_t               bad;

    if (ready)
        return &res;
    FUZZ_CHECK(arb_transcript_parse(&t, schema_match, strlen(schema_match),
                                    &why) == 0);
    FUZZ_CHECK(arb_replay(&m, &t.open, t.events, t.nevents, UINT64_MAX,
                          &bad, &v) == 0);
    FUZZ_CHECK(arb_match_results(m, &res) == 0 && res.nrecords == 2);
    arb_match_free(m);
    arb_history_clear(&t);
    arb_buf_free(&why);
    ready = 1;
    return &res;
}

static void
check_canonical(const arb_claim_t *c)
{
    arb_claim_t c2, c3;
    arb_event_t ev;
    arb_buf_t   one = ARB_BUF_INIT, two = ARB_BUF_INIT, why = ARB_BUF_INIT;
    int         rc;

    if (arb_claim_format(&one, c) != 0 || one.oom)
        goto done;
    rc = arb_claim_parse_json(&c2, one.data, one.len, &why);
    if (rc != 0)
        fprintf(stderr, "canonical form refused: %s\n%.*s\n",
                arb_buf_cstr(&why), (int)one.len, one.data);
    FUZZ_CHECK(rc == 0);
    FUZZ_CHECK(arb_claim_format(&two, &c2) == 0);
    FUZZ_CHECK(two.len == one.len && memcmp(two.data, one.data, one.len) == 0);
    arb_claim_clear(&c2);

    memset(&ev, 0, sizeof(ev));
    ev.kind = ARB_EV_CLAIM;
    if (arb_claim_to_event(&ev, c) == 0) {
        rc = arb_claim_from_event(&c3, &ev, &why);
        FUZZ_CHECK(rc == 0);
        two.len = 0;
        FUZZ_CHECK(arb_claim_format(&two, &c3) == 0);
        FUZZ_CHECK(two.len == one.len
                   && memcmp(two.data, one.data, one.len) == 0);
        arb_claim_clear(&c3);
        FUZZ_CHECK(arb_claim_event_canon(&ev, &why) == 0);
        FUZZ_CHECK(arb_claim_from_event(&c3, &ev, &why) == 0);
        two.len = 0;
        FUZZ_CHECK(arb_claim_format(&two, &c3) == 0);
        FUZZ_CHECK(two.len == one.len
                   && memcmp(two.data, one.data, one.len) == 0);
        arb_claim_clear(&c3);
    }
    arb_event_clear(&ev);
done:
    arb_buf_free(&one);
    arb_buf_free(&two);
    arb_buf_free(&why);
}

/* A report read as results (arb_claim_parse_report) takes what a JSON
 * claim takes and refuses what it refuses, keeping more fields: the
 * verdicts a claim drops. */
static void
check_report(const char *text, size_t len, int rc, const arb_claim_t *r)
{
    arb_claim_t c;
    arb_buf_t   why = ARB_BUF_INIT;
    size_t      i;
    int         rc2;

    rc2 = arb_claim_parse_json(&c, text, len, &why);
    if (why.oom || (rc == ARB_ENOMEM) != (rc2 == ARB_ENOMEM))
        goto done;
    FUZZ_CHECK((rc == 0) == (rc2 == 0));
    if (rc == 0 && rc2 == 0) {
        FUZZ_CHECK(r->res.nrecords == c.res.nrecords
                   && r->res.ntotals == c.res.ntotals);
        for (i = 0; i < c.res.nrecords && i < r->res.nrecords; i++)
            FUZZ_CHECK(r->res.records[i].nfields
                       >= c.res.records[i].nfields);
    }
done:
    arb_claim_clear(&c);
    arb_buf_free(&why);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const arb_results_t *sch = schema();
    const char          *text = (const char *)data + 1;
    arb_claim_t          c;
    arb_buf_t            why = ARB_BUF_INIT;
    size_t               len;
    int                  rc;

    if (size == 0)
        return 0;
    len = size - 1;
    if ((data[0] & 7) == 4) {
        rc = arb_claim_parse_report(&c, text, len, &why);
        check_report(text, len, rc, &c);
        if (rc != 0 && !why.oom)
            FUZZ_CHECK(strncmp(arb_buf_cstr(&why), "line ", 5) == 0);
        arb_claim_clear(&c);
        arb_buf_free(&why);
        return 0;
    }
    switch (data[0] & 3) {
    case 0:  rc = arb_claim_parse_json(&c, text, len, &why); break;
    case 1:  rc = arb_claim_parse_csv(&c, text, len, sch, &why); break;
    case 2:  rc = arb_claim_parse_csv(&c, text, len, NULL, &why); break;
    default: rc = arb_claim_parse(&c, text, len, sch, &why); break;
    }
    if (rc == 0) {
        check_canonical(&c);
    } else {
        FUZZ_CHECK(rc < 0);
        if (!why.oom)
            FUZZ_CHECK(strncmp(arb_buf_cstr(&why), "line ", 5) == 0);
    }
    arb_claim_clear(&c);
    arb_buf_free(&why);
    return 0;
}
