/*
 * test_json.c - JSON writing through Jansson (core/json.c) and what it
 * means for claims, the one written JSON compared byte for byte on replay
 * (core/claim.c): control characters are refused at input, and a claim
 * recorded in the old spelling still replays.
 */
#include <stdlib.h>
#include <string.h>

#include "core/claim.h"
#include "core/err.h"
#include "core/json.h"
#include "core/rules.h"
#include "tests/test.h"

static const char *
str(const char *s)
{
    static arb_buf_t b;

    arb_buf_free(&b);
    arb_json_str(&b, s);
    return arb_buf_cstr(&b);
}

/* Every spelling the writer chooses, pinned. */
static void
test_strings(void)
{
    CHECK_STR(str("plain 4♠ Chắn"), "\"plain 4♠ Chắn\"");
    CHECK_STR(str(NULL), "\"\"");
    CHECK_STR(str("q\"b\\s/"), "\"q\\\"b\\\\s/\"");
    CHECK_STR(str("n\nr\rt\t"), "\"n\\nr\\rt\\t\"");
    /* Jansson's own spellings of the other control characters */
    CHECK_STR(str("b\bf\fe\x1b" "d\x7f"), "\"b\\bf\\fe\\u001B" "d\x7f\"");
    /* a byte that starts no UTF-8 sequence becomes U+FFFD */
    CHECK_STR(str("a\xff" "b\xc3"), "\"a\xef\xbf\xbd" "b\xef\xbf\xbd\"");
}

/* Records and results: compact, fields in the rule set's order. */
static void
test_records(void)
{
    arb_results_t r;
    arb_record_t *rec;
    arb_buf_t     b = ARB_BUF_INIT;
    json_t       *o;
    char         *list[] = { "4♠", "5\"H" };

    memset(&r, 0, sizeof(r));
    rec = arb_results_add_record(&r, 3);
    CHECK(rec != NULL);
    CHECK_INT(arb_record_str(rec, "zeta", "last-first"), 0);
    CHECK_INT(arb_record_int(rec, "points", -21), 0);
    CHECK_INT(arb_record_list(rec, "cards", list, 2), 0);
    CHECK_INT(arb_record_list(rec, "none", NULL, 0), 0);
    CHECK_INT(arb_record_int(rec, "big", INT64_MAX), 0);
    CHECK_INT(arb_results_add_total(&r, "bob", 7), 0);
    CHECK_INT(arb_results_add_total(&r, "alice", -3), 0);
    o = json_object();
    CHECK_INT(arb_json_set_results(o, &r), 0);
    CHECK_INT(arb_json_put_new(&b, o), 0);
    CHECK_STR(arb_buf_cstr(&b),
              "{\"records\":[{\"zeta\":\"last-first\",\"points\":-21,"
              "\"cards\":[\"4♠\",\"5\\\"H\"],\"none\":[],"
              "\"big\":9223372036854775807}],"
              "\"totals\":{\"bob\":7,\"alice\":-3}}");
    arb_results_clear(&r);
    arb_buf_free(&b);
}

static int
parse(arb_claim_t *c, const char *text, arb_buf_t *why)
{
    return arb_claim_parse(c, text, strlen(text), NULL, why);
}

static void
claim_event(arb_event_t *ev, const char *record, const char *totals)
{
    memset(ev, 0, sizeof(*ev));
    ev->kind = ARB_EV_CLAIM;
    ev->seq = 9;
    arb_event_add_arg(ev, record);
    ev->text = strdup(totals);
}

/* A claim coming in holds no control character; one recorded before, in
 * the old writer's spelling, still reads back. */
static void
test_claim_controls(void)
{
    arb_claim_t c;
    arb_event_t ev;
    arb_buf_t   why = ARB_BUF_INIT;

    CHECK_INT(parse(&c, "{\"records\":[{\"winner\":\"an\\bn\"}],"
                        "\"totals\":{\"ann\":1}}", &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "line 1, column 23: records[0].winner: a "
              "control character (U+0008) has no place in a claim");
    arb_buf_free(&why);
    CHECK_INT(parse(&c, "{\"records\":[],\"totals\":{\"a\\u001fb\":1}}",
                    &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "line 1, column 36: totals: a control "
              "character (U+001F) in a name");
    arb_buf_free(&why);
    /* U+0000, which the parser itself refuses, is refused by name and
     * place too, in a name as in a value */
    CHECK_INT(parse(&c, "{\"records\":[],\"totals\":{\"a\\u0000\":1}}",
                    &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "line 1, column 25: totals: a NUL "
              "character (\\u0000) is not allowed in a key");
    arb_buf_free(&why);
    /* CSV claims come in through the same gate */
    CHECK_INT(parse(&c, "kind,winner\nround,\"a\x01\"\n\nplayer,total\n"
                        "ann,1\n", &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "line 2, cell 2: a control character "
              "(U+0001) has no place in a claim");
    arb_buf_free(&why);

    /* an append: refused before anything is recorded */
    claim_event(&ev, "{\"winner\":\"an\\fn\"}", "{\"totals\":{\"ann\":1}}");
    CHECK_INT(arb_claim_event_canon(&ev, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "claim record 1, field 'winner': a "
              "control character (U+000C) has no place in a claim");
    arb_buf_free(&why);
    arb_event_clear(&ev);
    claim_event(&ev, "{\"winner\":\"a\\u0000n\"}",
                "{\"totals\":{\"ann\":1}}");
    CHECK_INT(arb_claim_event_canon(&ev, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "claim record 1: line 1, column 11: "
              "winner: a NUL character (\\u0000) is not allowed");
    arb_buf_free(&why);
    arb_event_clear(&ev);

    /* replay: a claim recorded by the hand-written writer */
    claim_event(&ev, "{\"winner\":\"a\\u0008\\u000c\\u001b\\tz\"}",
                "{\"totals\":{\"ann\":1}}");
    CHECK_INT(arb_claim_from_event(&c, &ev, &why), 0);
    CHECK(c.res.nrecords == 1
          && strcmp(c.res.records[0].fields[0].str, "a\b\f\x1b\tz") == 0);
    arb_claim_clear(&c);
    arb_event_clear(&ev);
    /* ... but not a third spelling of it */
    claim_event(&ev, "{\"winner\":\"a\\u0008\\u000C\\u001b\\tz\"}",
                "{\"totals\":{\"ann\":1}}");
    CHECK_INT(arb_claim_from_event(&c, &ev, &why), ARB_EINVAL);
    arb_buf_free(&why);
    arb_event_clear(&ev);
}

int
main(void)
{
    test_strings();
    test_records();
    test_claim_controls();
    return TEST_END();
}
