/*
 * test_rulings.c - core/rulings.h: the rulings a state report lists
 * (which, their moves as each viewer may see them, whether each is still
 * in force), and that a match without a ruling reports as before.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/claim.h"
#include "core/err.h"
#include "core/ledger/history.h"
#include "core/replay.h"
#include "core/rulings.h"
#include "core/transcript.h"
#include "tests/test.h"

/* The match of transcript `text` replayed whole: NULL when it fails. */
static arb_match_t *
play(const char *text)
{
    arb_history_t h;
    arb_match_t  *m = NULL;
    arb_verdict_t v;
    arb_buf_t     why = ARB_BUF_INIT;
    size_t        bad = 0;

    memset(&h, 0, sizeof(h));
    if (arb_transcript_parse(&h, text, strlen(text), &why) != 0) {
        fprintf(stderr, "parse: %s\n", arb_buf_cstr(&why));
    } else if (arb_history_replay(&h, UINT64_MAX, &m, &bad, &v) != 0) {
        fprintf(stderr, "replay: seq %zu: %s\n", bad + 1, v.msg);
        arb_match_free(m);
        m = NULL;
    }
    arb_history_clear(&h);
    arb_buf_free(&why);
    return m;
}

/* The report's text, or its "rulings" array as written ("" when the
 * report has none), for `seen`. */
static char *
report(const arb_match_t *m, int text, unsigned seen)
{
    arb_buf_t   b = ARB_BUF_INIT;
    const char *s, *e;
    char       *out;

    if (text ? arb_report_text_for(&b, m, seen)
             : arb_report_json_for(&b, m, seen))
        return strdup("(failed)");
    s = arb_buf_cstr(&b);
    if (!text) {
        s = strstr(s, "\"rulings\":");
        e = s != NULL ? strstr(s, "],\"state\":") : NULL;
        if (s == NULL || e == NULL)
            s = e = "";
        else
            e++;
        out = strndup(s, (size_t)(e - s));
    } else {
        out = strdup(s);
    }
    arb_buf_free(&b);
    return out;
}

#define YAH_HEAD "game: yahchain\nmatch: R2\nplayers: alice bob\n" \
                 "mode: 3\n\n"

static void
test_in_force(void)
{
    arb_match_t *m = play(YAH_HEAD
        "1. place alice 4♠ @1\n"
        "2. place bob 6♦ @1\n"
        "3. amend 2 place bob 7♦ @1 -- typo\n"
        "4. amend 2 place bob 8♦ @1 -- typo again\n"
        "5. stands place bob 9♣ @1 -- out of turn\n"
        "6. void 5 -- on reflection\n"
        "7. place alice 9♣ @1\n"
        "8. note -- a spectator complained\n");
    char *s, *cut;

    CHECK(m != NULL);
    if (m == NULL)
        return;
    s = report(m, 1, 0);
    /* The rulings between the header and the records (the digest stays
     * the last line). */
    if ((cut = strstr(s, "records: 0\n")) != NULL)
        *cut = '\0';
    CHECK_STR(s, "match R2  game yahchain  events 8\n"
              "rulings: 4\n"
              "  seq 3: amend 2 place bob 7♦ @1 -- typo  "
              "(undone at seq 4)\n"
              "  seq 4: amend 2 place bob 8♦ @1 -- typo again\n"
              "  seq 5: stands place bob 9♣ @1 -- out of turn  "
              "(undone at seq 6)\n"
              "  seq 6: void 5 -- on reflection\n");
    free(s);
    s = report(m, 0, 0);
    CHECK_STR(s, "\"rulings\":["
        "{\"seq\":3,\"kind\":\"amend\",\"target\":2,"
        "\"move\":\"place bob 7♦ @1\",\"reason\":\"typo\",\"undone_by\":4},"
        "{\"seq\":4,\"kind\":\"amend\",\"target\":2,"
        "\"move\":\"place bob 8♦ @1\",\"reason\":\"typo again\"},"
        "{\"seq\":5,\"kind\":\"stands\",\"move\":\"place bob 9♣ @1\","
        "\"reason\":\"out of turn\",\"undone_by\":6},"
        "{\"seq\":6,\"kind\":\"void\",\"target\":5,"
        "\"reason\":\"on reflection\"}]");
    free(s);
    arb_match_free(m);

    /* An amend undone by a void of its move. */
    m = play(YAH_HEAD "1. place alice 4♠ @1\n"
                      "2. amend 1 place alice 5♠ @1 -- typo\n"
                      "3. void 1 -- not played at all\n");
    CHECK(m != NULL);
    if (m == NULL)
        return;
    s = report(m, 0, 0);
    CHECK(strstr(s, "\"reason\":\"typo\",\"undone_by\":3}") != NULL);
    CHECK(strstr(s, "\"reason\":\"not played at all\"}]") != NULL);
    free(s);
    arb_match_free(m);
}

/* A Tsukurutenten draw names a chip only its drawer sees: a ruling's move
 * withholds it from the canonical report (every viewer's) and from
 * another seat while the match is open; the drawer's seat and the
 * arbiter's table view (every seat) see it; after the close, all do. */
#define TSUKU "game: tsukurutenten\nmatch: T1\nplayers: ann bob\n" \
    "scoring: simple\ndeal: order B1B2B3R4R5R6R1 B7B7B7R7R7R7P8 " \
    "B2B1B1B1B2B2B3 B3B3B4B4B4B4B5 B5B5B5B6B6B6B6 B7R0R1R1R1R2R2 " \
    "R2R2R3R3R3R3R4 R4R4R5R5R5R6R6 R6R7P5P6P7R3B2 B6B6R6R6P7R1R2 " \
    "B1B1B1B5R7B7R7 B1B2B2B2B3B3B3 B3B4B4B4B4B5B5 B5B6B6B7B7B7R0 " \
    "R1R1R1R2R2R2R3 R3R3R4R4R4R4R5 R5R5R5R6R6R7R7 P5P6P8\n\n" \
    "1. draw ann\n" \
    "2. amend 1 draw ann B2 -- the chip was named\n"

static void
test_concealed(void)
{
    arb_match_t *m = play(TSUKU);
    const char  *hidden = "\"move\":\"draw ann\",";
    const char  *shown = "\"move\":\"draw ann B2\",";
    char        *s;

    CHECK(m != NULL);
    if (m == NULL)
        return;
    s = report(m, 0, 0);
    CHECK(strstr(s, hidden) != NULL && strstr(s, "B2") == NULL);
    free(s);
    s = report(m, 0, 1u << 1);                  /* bob */
    CHECK(strstr(s, hidden) != NULL && strstr(s, "B2") == NULL);
    free(s);
    s = report(m, 0, 1u << 0);                  /* ann, who drew it */
    CHECK(strstr(s, shown) != NULL);
    free(s);
    s = report(m, 0, ~0u);                      /* every seat */
    CHECK(strstr(s, shown) != NULL);
    free(s);
    s = report(m, 1, 0);
    CHECK(strstr(s, "  seq 2: amend 1 draw ann -- the chip was named\n")
          != NULL);
    CHECK(strstr(s, "B2") == NULL);
    free(s);
    /* the text as the JSON: bob is not shown it, ann is (until
     * 2026-12-06 the text withheld it from ann too) */
    s = report(m, 1, 1u << 1);
    CHECK(strstr(s, "  seq 2: amend 1 draw ann -- the chip was named\n")
          != NULL);
    free(s);
    s = report(m, 1, 1u << 0);
    CHECK(strstr(s, "  seq 2: amend 1 draw ann B2 -- the chip was named\n")
          != NULL);
    free(s);
    arb_match_free(m);

    m = play(TSUKU "3. close -- adjourned\n");
    CHECK(m != NULL);
    if (m == NULL)
        return;
    s = report(m, 0, 0);
    CHECK(strstr(s, shown) != NULL);
    free(s);
    s = report(m, 1, 0);
    CHECK(strstr(s, "  seq 2: amend 1 draw ann B2 -- the chip was named\n")
          != NULL);
    free(s);
    arb_match_free(m);
}

/* Without a ruling the report has no "rulings" (its bytes as before the
 * list existed); a lean match keeps none to list. */
static void
test_none(void)
{
    arb_match_t *m = play(YAH_HEAD "1. place alice 4♠ @1\n"
                                   "2. note -- void 1 was asked for\n");
    arb_buf_t    b = ARB_BUF_INIT;

    CHECK(m != NULL);
    if (m == NULL)
        return;
    CHECK(arb_report_json(&b, m) == 0);
    CHECK(strstr(arb_buf_cstr(&b), "rulings") == NULL);
    arb_buf_free(&b);
    CHECK(arb_report_text(&b, m) == 0);
    CHECK(strstr(arb_buf_cstr(&b), "rulings") == NULL);
    arb_buf_free(&b);
    arb_match_free(m);
}

/* A report read back as a claim (`arbiter claim` of `replay --json`):
 * its rulings say nothing about the results and are passed over. */
static void
test_claim_of_report(void)
{
    arb_match_t *m = play(YAH_HEAD "1. place alice 4♠ @1\n"
                                   "2. place bob 6♦ @1\n"
                                   "3. void 2 -- wrong card\n");
    arb_buf_t    b = ARB_BUF_INIT, why = ARB_BUF_INIT;
    arb_claim_t  c;

    CHECK(m != NULL);
    if (m == NULL)
        return;
    memset(&c, 0, sizeof(c));
    CHECK(arb_report_json(&b, m) == 0);
    CHECK(strstr(arb_buf_cstr(&b), "\"rulings\":[") != NULL);
    CHECK_INT(arb_claim_parse(&c, b.data, b.len, NULL, &why), 0);
    arb_claim_clear(&c);
    memset(&c, 0, sizeof(c));
    CHECK_INT(arb_claim_parse_report(&c, b.data, b.len, &why), 0);
    arb_claim_clear(&c);
    arb_buf_free(&b);
    arb_buf_free(&why);
    arb_match_free(m);
}

int
main(void)
{
    test_in_force();
    test_concealed();
    test_none();
    test_claim_of_report();
    return TEST_END();
}
