/*
 * test_claim.c - claims: the strict JSON reader (Jansson; duplicate keys
 * and fractions refused, positions by path), the JSON and CSV claim
 * files, the canonical form a claim event carries, claim events through
 * the match layer (pending / confirmed / disputed, after close, the latest
 * claim, rulings after a claim) and through transcripts (round trips).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/claim.h"
#include "core/err.h"
#include "core/json.h"
#include "core/jsonin.h"
#include "core/limits.h"
#include "core/match.h"
#include "core/replay.h"
#include "core/transcript.h"
#include "tests/test.h"

static arb_buf_t why = ARB_BUF_INIT;

/* ---- the JSON reader (Jansson, strict) ---------------------------------- */

static int
jparse(const char *text)
{
    json_t *v = NULL;
    int     rc;

    arb_buf_free(&why);
    rc = arb_json_parse(&v, text, strlen(text), &why);
    json_decref(v);
    return rc;
}

#define JREJECT(text, msg) do {                                         \
        CHECK_INT(jparse(text), ARB_EINVAL);                            \
        CHECK_STR(arb_buf_cstr(&why), msg);                             \
    } while (0)

/* arb_json_where() for a path of up to three steps in text. */
static const char *
jwhere(const char *text, size_t depth, size_t s0, size_t s1, size_t s2)
{
    static char at[48];
    size_t      path[3];

    path[0] = s0;
    path[1] = s1;
    path[2] = s2;
    arb_json_where(at, sizeof(at), text, strlen(text), path, depth);
    return at;
}

static void
test_jsonin(void)
{
    json_t       *v = NULL, *item;
    const json_t *o;
    const char   *doc = "\xef\xbb\xbf {\"a\": [1, -2, \"x\\u00e9\\ud83c"
                        "\\udca1\\n\"],\n \"b\": {\"c\": true, \"d\": null,"
                        " \"e\": false}, \"f\": -9223372036854775808}\n";
    const char   *key;
    size_t        i = 0;

    CHECK_INT(arb_json_parse(&v, doc, strlen(doc), &why), 0);
    if (v == NULL)
        return;
    CHECK(json_is_object(v));
    CHECK_INT(json_object_size(v), 3);
    /* Members keep document order (positions are found by ordinal). */
    json_object_foreach(v, key, item)
        if (i++ == 1)
            CHECK_STR(key, "b");
    o = json_object_get(v, "a");
    CHECK(json_is_array(o) && json_array_size(o) == 3);
    CHECK_INT(json_integer_value(json_array_get(o, 1)), -2);
    CHECK_STR(json_string_value(json_array_get(o, 2)),
              "x\xc3\xa9\xf0\x9f\x82\xa1\n");
    CHECK_STR(jwhere(doc, 2, 0, 2, 0), "line 1, column 16: ");
    CHECK_STR(jwhere(doc, 1, 1, 0, 0), "line 2, column 7: ");
    CHECK_STR(jwhere(doc, 2, 1, 2, 0), "line 2, column 35: ");
    CHECK_STR(jwhere(doc, 0, 0, 0, 0), "line 1, column 2: ");
    o = json_object_get(v, "b");
    CHECK(json_is_true(json_object_get(o, "c")));
    CHECK(json_is_null(json_object_get(o, "d")));
    CHECK(json_integer_value(json_object_get(v, "f")) == INT64_MIN);
    CHECK(json_object_get(v, "zz") == NULL);
    json_decref(v);
    CHECK_STR(arb_json_type_name(NULL), "null");
    /* Brackets, commas and escaped quotes inside strings are skipped. */
    CHECK_STR(jwhere("[\"a,]\\\"\", {\"k]\":[1,2]}, 7]", 2, 1, 0, 0),
              "line 1, column 17: ");

    /* A path the text does not have ends at the end, reading no further. */
    CHECK_STR(jwhere("[1]", 1, 5, 0, 0), "line 1, column 4: ");
    CHECK_STR(jwhere("{\"a\":\"x\\", 1, 1, 0, 0), "line 1, column 9: ");

    CHECK_INT(jparse("[]"), 0);
    CHECK_INT(jparse("{}"), 0);
    CHECK_INT(jparse("\"\""), 0);
    CHECK_INT(jparse("0"), 0);
    CHECK_INT(jparse("[true, false, null, -0]"), 0);
    CHECK_INT(jparse("9223372036854775807"), 0);
    JREJECT("", "line 1, column 1: unexpected token near end of file");
    JREJECT("[1,]", "line 1, column 4: trailing comma in an array");
    JREJECT("{\"a\":1,}", "line 1, column 8: trailing comma in an object");
    JREJECT("{\"a\":]", "line 1, column 6: unexpected token near ']'");
    JREJECT("{\"a\":1,\n \"a\":2}",
            "line 2, column 2: key \"a\" given twice in one object");
    JREJECT("{\"b\":{\"r\xc3\xa9\":1, \"r\xc3\xa9\":[]}}",
            "line 1, column 15: b: key \"r\xc3\xa9\" given twice in one "
            "object");
    JREJECT("[1.5]", "line 1, column 2: [0]: 1.5 is not an integer: whole "
            "numbers only (no fraction, no exponent)");
    JREJECT("[true, \"1.5\",\n 1e3]", "line 2, column 2: [2]: 1e3 is not "
            "an integer: whole numbers only (no fraction, no "
            "exponent)");
    JREJECT("[012]", "line 1, column 2: [0]: invalid token near '0'");
    JREJECT("\"\\ud800\"", "line 1, column 8: invalid Unicode '\\uD800' "
            "near '\"\\ud800\"'");
    JREJECT("\"a\tb\"", "line 1, column 2: control character 0x9 near "
            "'\"a'");
    JREJECT("\"\xc3\"", "line 1, column 1: unable to decode byte 0xc3 near "
            "'\"'");
    JREJECT("{'a':1}", "line 1, column 2: string or '}' expected near '''");
    JREJECT("// x\n1", "line 1, column 1: invalid token near '/'");
    JREJECT("1 2", "line 1, column 3: end of file expected near '2'");
    CHECK_INT(jparse("\"\xed\xa0\x80\""), ARB_EINVAL);
}

/* What Jansson refuses while it parses - a number out of 64 bits, a NUL
 * character - names the value's path, as a value of the wrong type does,
 * where the value starts, in words of ours (not the name of the flag that
 * would allow it).  The path is found from the position, on a text that
 * may end anywhere, and stays short whatever the text. */
static void
test_jsonin_paths(void)
{
    JREJECT("[9223372036854775808]", "line 1, column 2: [0]: "
            "9223372036854775808 is out of range (at most "
            "9223372036854775807)");
    JREJECT("{\"t\":\n -9223372036854775809}", "line 2, column 2: t: "
            "-9223372036854775809 is out of range (at least "
            "-9223372036854775808)");
    JREJECT("[2, 1e400]", "line 1, column 5: [1]: 1e400 is not an integer: "
            "whole numbers only (no fraction, no exponent)");
    JREJECT("{\"k\": [\"x\", \"a\\u0000b\"]}", "line 1, column 13: "
            "k[1]: a NUL character (\\u0000) is not allowed");
    JREJECT("\"\\u0000\"", "line 1, column 1: a NUL character (\\u0000) "
            "is not allowed");
    JREJECT("{\"o\": {\"a\\u0000\": 1}}", "line 1, column 8: o: a NUL "
            "character (\\u0000) is not allowed in a key");
    /* A byte order mark has no column; a key is quoted as written. */
    JREJECT("\xef\xbb\xbf{\"\\u00e9\": 0.5}", "line 1, column 12: "
            "\\u00e9: 0.5 is not an integer: whole numbers only (no "
            "fraction, no exponent)");
    /* Keys and numbers are cut short, between characters (also when
     * one straddles the 24th byte); past eight levels the path says
     * there is more. */
    JREJECT("{\"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
            "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\":"
            "123456789012345678901234567890}", "line 1, column 18: "
            "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
            "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9...: "
            "123456789012345678901234... is out of range (at most "
            "9223372036854775807)");
    JREJECT("{\"aaaaaaaaaaaaaaaaaaaaaaa\xc3\xa9z\": [1.5]}", "line 1, "
            "column 32: aaaaaaaaaaaaaaaaaaaaaaa...[0]: 1.5 is not an "
            "integer: whole numbers only (no fraction, no exponent)");
    JREJECT("[[[[[[[[[[1.5]]]]]]]]]]", "line 1, column 11: "
            "[0][0][0][0][0][0][0][0]...: 1.5 is not an integer: whole "
            "numbers only (no fraction, no exponent)");
    /* Syntax: the path of the object or array it happens in, not of the
     * value before it. */
    JREJECT("{\"r\": [{\"s\": 1,}]}", "line 1, column 16: r[0]: trailing "
            "comma in an object");
    JREJECT("{\"r\": [{\"s\": 1 \"t\": 2}]}", "line 1, column 18: r[0]: "
            "'}' expected near '\"t\"'");
    JREJECT("{\"r\": [{\"s\": 1}, {\"t", "line 1, column 21: r[1]: "
            "premature end of input near '\"t'");
    JREJECT("{\"r\": [{\"s\": \"x", "line 1, column 16: r[0].s: premature "
            "end of input near '\"x'");
    /* a text cut after a key: the path goes to that key */
    JREJECT("{\"a\": [1, {\"b\"", "line 1, column 15: a[1].b: ':' "
            "expected near end of file");
    /* CRLF line ends are blanks, a line's end counted once */
    JREJECT("{\r\n\"a\": 1.5}", "line 2, column 6: a: 1.5 is not an "
            "integer: whole numbers only (no fraction, no exponent)");
}

/* ---- claim files -------------------------------------------------------- */

/* A match of `sotas` Sotas, Sota k taking 2-3-4 of suit k (a Single line,
 * BC-003, 9 + 15 = 24), alice and bob alternating; Sota k is fixed at seq
 * 3k and belongs to alice when k is odd. */
static char *
match_text(const char *id, int sotas, const char *tail)
{
    static const char suits[] = "SHDCUMWFLGYN";
    arb_buf_t b = ARB_BUF_INIT;
    int       k, j, seq = 0;

    arb_buf_printf(&b, "game: yahchain\nmatch: %s\nplayers: alice bob\n"
                   "mode: 3\n\n", id);
    for (k = 0; k < sotas; k++)
        for (j = 2; j <= 4; j++) {
            seq++;
            arb_buf_printf(&b, "%d. place %s %d%c\n", seq,
                           seq % 2 ? "alice" : "bob", j, suits[k]);
        }
    arb_buf_puts(&b, tail ? tail : "");
    arb_buf_cstr(&b);
    return b.data;
}

static arb_match_t *
replay_text(const char *text, char *msg, size_t msglen)
{
    arb_history_t    t;
    arb_buf_t        w = ARB_BUF_INIT;
    arb_match_t     *m = NULL;
    arb_verdict_t    v;
    size_t           bad;
    int              rc;

    msg[0] = '\0';
    rc = arb_transcript_parse(&t, text, strlen(text), &w);
    if (rc != 0) {
        snprintf(msg, msglen, "%s", arb_buf_cstr(&w));
        arb_buf_free(&w);
        return NULL;
    }
    rc = arb_replay(&m, &t.open, t.events, t.nevents, UINT64_MAX, &bad, &v);
    if (rc != 0) {
        snprintf(msg, msglen, "%s", v.msg);
        arb_match_free(m);
        m = NULL;
    }
    arb_history_clear(&t);
    arb_buf_free(&w);
    return m;
}

/* The report `arbiter replay --json` prints for m. */
static char *
report(const arb_match_t *m)
{
    arb_buf_t b = ARB_BUF_INIT;

    arb_report_json(&b, m);
    arb_buf_cstr(&b);
    return b.data;
}

static char *
claim_canon(const char *text, const arb_results_t *schema, int *rc)
{
    arb_claim_t c;
    arb_buf_t   b = ARB_BUF_INIT;

    arb_buf_free(&why);
    *rc = arb_claim_parse(&c, text, strlen(text), schema, &why);
    if (*rc != 0)
        return NULL;
    arb_claim_format(&b, &c);
    arb_claim_clear(&c);
    arb_buf_cstr(&b);
    return b.data;
}

#define CREJECT(text, schema, msg) do {                                 \
        int   rc_;                                                      \
        char *s_ = claim_canon(text, schema, &rc_);                     \
        CHECK_INT(rc_, ARB_EINVAL);                                     \
        CHECK_STR(arb_buf_cstr(&why), msg);                             \
        free(s_);                                                       \
    } while (0)

static void
test_claim_json(void)
{
    arb_match_t *m;
    char         msg[256], *text, *rep, *canon;
    int          rc;

    text = match_text("J1", 2, NULL);
    m = replay_text(text, msg, sizeof(msg));
    free(text);
    CHECK(m != NULL);
    if (m == NULL)
        return;
    /* Blanks of any kind before the JSON, a byte order mark before
     * them: JSON all the same. */
    canon = claim_canon("\xef\xbb\xbf \t\r\n{\"records\":[],\"totals\":{}}",
                        NULL, &rc);
    CHECK_INT(rc, 0);
    CHECK_STR(canon, "{\"records\":[],\"totals\":{}}");
    free(canon);
    /* A report is a claim: its verdict fields and state are dropped. */
    rep = report(m);
    canon = claim_canon(rep, NULL, &rc);
    CHECK_INT(rc, 0);
    CHECK_STR(canon, "{\"records\":[{\"match_id\":\"J1\",\"edition\":"
              "\"YAHchain-3e-ch34-3\",\"mode\":\"YCWS-144/3\",\"sota\":1,"
              "\"owner\":\"alice\",\"cards\":3,\"sequence\":[\"2♠\",\"3♠\","
              "\"4♠\"],\"code\":\"BC-003\",\"face_sum\":9,\"bonus\":15,"
              "\"game_points\":24},{\"match_id\":\"J1\",\"edition\":"
              "\"YAHchain-3e-ch34-3\",\"mode\":\"YCWS-144/3\",\"sota\":2,"
              "\"owner\":\"bob\",\"cards\":3,\"sequence\":[\"2♥\",\"3♥\","
              "\"4♥\"],\"code\":\"BC-003\",\"face_sum\":9,\"bonus\":15,"
              "\"game_points\":24}],\"totals\":{\"alice\":24,\"bob\":24}}");
    /* The canonical form is a fixed point. */
    if (canon != NULL) {
        char *again = claim_canon(canon, NULL, &rc);
        CHECK_STR(again, canon);
        free(again);
    }
    free(canon);
    free(rep);
    arb_match_free(m);

    canon = claim_canon("  {\"totals\" : {}, \"records\" : [ ] }\n", NULL,
                        &rc);
    CHECK_STR(canon, "{\"records\":[],\"totals\":{}}");
    free(canon);
    /* A list holds strings, and nothing else but integers either. */
    canon = claim_canon("{\"records\":[{\"seq\":[\"a\",null]}],"
                        "\"totals\":{}}", NULL, &rc);
    CHECK_INT(rc, ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "line 1, column 25: records[0].seq[1]: "
              "expected a string, got null");
    free(canon);
    /* Totals are an object of integers. */
    canon = claim_canon("{\"records\":[],\"totals\":{\"ann\":null}}", NULL,
                        &rc);
    CHECK_INT(rc, ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "line 1, column 31: totals.ann: expected "
              "an integer, got null");
    free(canon);
    canon = claim_canon("{\"records\":[],\"totals\":5}", NULL, &rc);
    CHECK_INT(rc, ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "line 1, column 24: totals: expected an "
              "object {\"player\": points, ...}, got integer");
    free(canon);
    /* ... nor in a list's first item. */
    canon = claim_canon("{\"records\":[{\"seq\":[\"a\\u0007\",\"b\"]}],"
                        "\"totals\":{}}", NULL, &rc);
    CHECK_INT(rc, ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "line 1, column 20: records[0].seq: a "
              "control character (U+0007) has no place in a claim");
    free(canon);
    /* No control character in a player's name either. */
    canon = claim_canon("{\"records\":[],\"totals\":{\"al\\u0007ice\":1}}",
                        NULL, &rc);
    CHECK_INT(rc, ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "line 1, column 39: totals: a control "
              "character (U+0007) in a name");
    free(canon);
    /* A byte order mark does not make JSON a CSV claim. */
    canon = claim_canon("\xef\xbb\xbf\n{\"records\":[],\"totals\":{}}",
                        NULL, &rc);
    CHECK_INT(rc, 0);
    CHECK_STR(canon, "{\"records\":[],\"totals\":{}}");
    free(canon);

    CREJECT("[]", NULL, "line 1, column 1: a claim is an object "
            "{\"records\": [...], \"totals\": {...}}, not array");
    CREJECT("{\"records\":[]}", NULL, "line 1, column 1: a claim needs "
            "\"totals\"");
    CREJECT("{\"records\":[],\"totals\":{},\"total\":3}", NULL,
            "line 1, column 35: unknown key \"total\": a claim has "
            "\"records\" and \"totals\"");
    CREJECT("{\"records\":{},\"totals\":{}}", NULL,
            "line 1, column 12: records: expected an array, got object");
    CREJECT("{\"records\":[3],\"totals\":{}}", NULL,
            "line 1, column 13: records[0]: expected an object (one "
            "record), got integer");
    CREJECT("{\"records\":[{\"sota\":1,\n\"bonus\":true}],\"totals\":{}}",
            NULL, "line 2, column 9: records[0].bonus: expected an "
            "integer, a string or a list of strings, got true/false");
    CREJECT("{\"records\":[{\"sequence\":[\"2♠\",3]}],\"totals\":{}}", NULL,
            "line 1, column 31: records[0].sequence[1]: expected a string, "
            "got integer");
    CREJECT("{\"records\":[{\"\":1}],\"totals\":{}}", NULL,
            "line 1, column 17: records[0]: a field name is empty");
    CREJECT("{\"records\":[],\"totals\":{\"alice\":\"24\"}}", NULL,
            "line 1, column 33: totals.alice: expected an integer, got "
            "string");
    CREJECT("{\"records\":[],\"totals\":[]}", NULL,
            "line 1, column 24: totals: expected an object "
            "{\"player\": points, ...}, got array");
    CREJECT("{\"records\":[],\"totals\":{\"\":1}}", NULL,
            "line 1, column 28: totals: a player name is empty");
    /* Duplicate keys are refused, naming the key, in a record and in the
     * totals: which of the two would the diff compare? */
    CREJECT("{\"records\":[{\"sota\":1,\"sota\":2}],\"totals\":{}}", NULL,
            "line 1, column 23: records[0]: key \"sota\" given twice in one "
            "object");
    CREJECT("{\"records\":[],\n\"totals\":{\"alice\":3,\"alice\":3}}",
            NULL, "line 2, column 21: totals: key \"alice\" given twice in "
            "one object");
    CREJECT("{\"records\":[],\"totals\":{},\"records\":[]}", NULL,
            "line 1, column 27: key \"records\" given twice in one object");
    CREJECT("{\"records\":[1.5],\"totals\":{}}", NULL,
            "line 1, column 13: records[0]: 1.5 is not an integer: whole "
            "numbers only (no fraction, no exponent)");
    /* What Jansson refuses while parsing names the field as well. */
    CREJECT("{\"records\":[{\"sota\":1},{\"sota\":2},\n{\"sota\":3,"
            "\"game_points\":1.5}],\"totals\":{}}", NULL,
            "line 2, column 25: records[2].game_points: 1.5 is not an "
            "integer: whole numbers only (no fraction, no exponent)");
    CREJECT("{\"records\":[],\"totals\":{\"bob\":1,"
            "\"alice\":99999999999999999999999}}", NULL,
            "line 1, column 41: totals.alice: 99999999999999999999999 is out "
            "of range (at most 9223372036854775807)");
    CREJECT("{\"records\":[{\"owner\":\"a\\u0000n\"}],\"totals\":{}}",
            NULL, "line 1, column 22: records[0].owner: a NUL character "
            "(\\u0000) is not allowed");
}

static void
test_claim_csv(void)
{
    arb_match_t  *m;
    arb_results_t r;
    char          msg[256], *text, *canon, *want;
    int           rc;

    text = match_text("C1", 2, NULL);
    m = replay_text(text, msg, sizeof(msg));
    free(text);
    CHECK(m != NULL);
    if (m == NULL)
        return;
    CHECK_INT(arb_match_results(m, &r), 0);
    want = claim_canon("{\"records\":[{\"match_id\":\"C1\",\"edition\":"
                       "\"YAHchain-3e-ch34-3\",\"mode\":\"YCWS-144/3\","
                       "\"sota\":1,\"owner\":\"alice\",\"cards\":3,"
                       "\"sequence\":[\"2♠\",\"3♠\",\"4♠\"],\"code\":"
                       "\"BC-003\",\"face_sum\":9,\"bonus\":15,"
                       "\"game_points\":24},{\"match_id\":\"C1\","
                       "\"edition\":\"YAHchain-3e-ch34-3\",\"mode\":"
                       "\"YCWS-144/3\",\"sota\":2,\"owner\":\"bob\","
                       "\"cards\":3,\"sequence\":[\"2♥\",\"3♥\",\"4♥\"],"
                       "\"code\":\"BC-003\",\"face_sum\":9,\"bonus\":15,"
                       "\"game_points\":24}],\"totals\":{\"alice\":24,"
                       "\"bob\":24}}", NULL, &rc);
    /* Typed by the schema; status ignored; a spreadsheet's padding. */
    canon = claim_canon(
        "match_id,edition,mode,sota,owner,cards,sequence,code,face_sum,"
        "bonus,game_points,status\r\n"
        "C1,YAHchain-3e-ch34-3,YCWS-144/3,1,alice,3,2♠ 3♠ 4♠,BC-003,9,15,24,"
        "pending\r\n"
        "C1,YAHchain-3e-ch34-3,YCWS-144/3,2,bob,3,\"2♥,3♥,4♥\",BC-003,9,15,"
        "24,\r\n"
        ",,,,,,,,,,,\r\n"
        "player,total,,,,,,,,,,\r\n"
        "alice,24,,,,,,,,,,\r\n"
        "bob,24,,,,,,,,,,\r\n", &r, &rc);
    CHECK_INT(rc, 0);
    CHECK_STR(canon, want);
    free(canon);
    /* ';' separators (a decimal-comma locale), a BOM, arrows, quotes. */
    canon = claim_canon(
        "\xef\xbb\xbfmatch_id;edition;mode;sota;owner;cards;sequence;code;"
        "face_sum;bonus;game_points\n"
        "C1;YAHchain-3e-ch34-3;YCWS-144/3;1;alice;3;2♠→3♠→4♠;BC-003;9;15;"
        "24\n\"C1\";YAHchain-3e-ch34-3;YCWS-144/3;2;bob;3;2♥ 3♥ 4♥;BC-003;9;"
        "15;24\n"
        "\n"
        "player;total\n"
        "alice;24\n"
        "bob;24", &r, &rc);
    CHECK_INT(rc, 0);
    CHECK_STR(canon, want);
    free(canon);
    /* Blank rows before the header are blank rows like any other: the
     * separator is the header's, not the empty first line's (the ';'
     * file was read as one column, "no totals section"). */
    canon = claim_canon(
        "\r\n\nmatch_id;edition;mode;sota;owner;cards;sequence;code;"
        "face_sum;bonus;game_points\n"
        "C1;YAHchain-3e-ch34-3;YCWS-144/3;1;alice;3;2♠ 3♠ 4♠;BC-003;9;15;"
        "24\nC1;YAHchain-3e-ch34-3;YCWS-144/3;2;bob;3;2♥ 3♥ 4♥;BC-003;9;"
        "15;24\n\nplayer;total\nalice;24\nbob;24\n", &r, &rc);
    CHECK_INT(rc, 0);
    CHECK_STR(canon, want);
    free(canon);
    CREJECT("\n\nsota;bonus\n1;15;7\n\nplayer;total\n", &r,
            "line 4: 3 cells, but the header (line 3) names 2 columns");
    free(want);
    /* A cell that is not what its column holds stays text (and will
     * differ); a column the schema does not know is text. */
    canon = claim_canon("sota,bonus,note\n1,fifteen,\"say \"\"hi\"\"\"\n\n"
                        "player,total\nalice,0\n", &r, &rc);
    CHECK_STR(canon, "{\"records\":[{\"sota\":1,\"bonus\":\"fifteen\","
              "\"note\":\"say \\\"hi\\\"\"}],\"totals\":{\"alice\":0}}");
    free(canon);
    /* A header with a comma is read with commas, ';' and all. */
    canon = claim_canon("sota,note;x\n1,a;b\n\nplayer,total\n", &r, &rc);
    CHECK_STR(canon, "{\"records\":[{\"sota\":1,\"note;x\":\"a;b\"}],"
              "\"totals\":{}}");
    free(canon);
    /* A header that starts as the totals' and goes on is the records'. */
    canon = claim_canon("player,total,x\na,1,2\n\nplayer,total\n", NULL,
                        &rc);
    CHECK_STR(canon, "{\"records\":[{\"player\":\"a\",\"total\":\"1\","
              "\"x\":\"2\"}],\"totals\":{}}");
    free(canon);
    /* Blanks around a header's names are no part of them, as typed by
     * hand (until 2026-12-07 " bonus" was a field no record has, and
     * " total" no totals section). */
    canon = claim_canon("sota , bonus\n1, 15\n\n player , total\n"
                        "alice,3\n", &r, &rc);
    CHECK_STR(canon, "{\"records\":[{\"sota\":1,\"bonus\":15}],"
              "\"totals\":{\"alice\":3}}");
    free(canon);
    /* No schema: every cell is text. */
    canon = claim_canon("sota\n1\n\nplayer,total\n", NULL, &rc);
    CHECK_STR(canon, "{\"records\":[{\"sota\":\"1\"}],\"totals\":{}}");
    free(canon);

    CREJECT("sota,bonus\n1,15\n", &r, "line 3: no totals section: after "
            "the records, a blank row, then 'player,total' and one row per "
            "player");
    CREJECT("sota,bonus\n1,15,7\n\nplayer,total\n", &r,
            "line 2: 3 cells, but the header (line 1) names 2 columns");
    CREJECT("sota,bonus\n1\n\nplayer,total\n", &r,
            "line 2: 1 cells, but the header (line 1) names 2 columns");
    CREJECT("sota,sota\n1,1\n\nplayer,total\n", &r,
            "line 1: column 'sota' given twice");
    /* A row of blanks is one cell, not a blank row. */
    CREJECT("sota,bonus\n1,15\n   \nplayer,total\n", &r,
            "line 3: 1 cells, but the header (line 1) names 2 columns");
    /* Only `player,total` starts the totals: `player,totals` is a
     * records header like any other. */
    CREJECT("player,totals\nalice,24\n", &r,
            "line 3: no totals section: after the records, a blank row, "
            "then 'player,total' and one row per player");
    CREJECT("sota,,bonus\n1,2,3\n\nplayer,total\n", &r,
            "line 1: column 2 of the header has no name");
    CREJECT("sota,  ,bonus\n1,2,3\n\nplayer,total\n", &r,
            "line 1: column 2 of the header has no name");
    CREJECT("sota, sota\n1,1\n\nplayer,total\n", &r,
            "line 1: column 'sota' given twice");
    CREJECT("sota\n1\n\nplayer,total\nalice,x\n", &r,
            "line 5, cell 2: a total is an integer of at most 64 bits (a "
            "totals row is 'player,total')");
    /* A total past what an int64 holds is refused, not clamped to the
     * largest one (no test failed when it was); so is one below the
     * least; the largest itself is a total. */
    CREJECT("sota\n1\n\nplayer,total\nalice,9223372036854775808\n", &r,
            "line 5, cell 2: a total is an integer of at most 64 bits (a "
            "totals row is 'player,total')");
    CREJECT("sota\n1\n\nplayer,total\nalice,-9223372036854775809\n", &r,
            "line 5, cell 2: a total is an integer of at most 64 bits (a "
            "totals row is 'player,total')");
    canon = claim_canon("sota\n1\n\nplayer,total\n"
                        "alice,9223372036854775807\n", &r, &rc);
    CHECK_INT(rc, 0);
    CHECK_STR(canon, "{\"records\":[{\"sota\":1}],\"totals\":"
              "{\"alice\":9223372036854775807}}");
    free(canon);
    /* a record's number past it stays text, as any cell that is not */
    canon = claim_canon("sota,bonus\n1,99999999999999999999\n\n"
                        "player,total\n", &r, &rc);
    CHECK_STR(canon, "{\"records\":[{\"sota\":1,\"bonus\":"
              "\"99999999999999999999\"}],\"totals\":{}}");
    free(canon);
    CREJECT("sota\n1\n\nplayer,total\nalice,1\nalice,2\n", &r,
            "line 6: totals: alice given twice");
    /* a totals row has two cells, as its header says; padding apart */
    CREJECT("sota\n1\n\nplayer,total\nalice,1,7\n", &r,
            "line 5: 3 cells, but the header (line 4) names 2 columns");
    CREJECT("player,total\nalice,1\n\nsota\n1\n", &r,
            "line 4: a totals row is 'player,total' with an integer total");
    CREJECT("player,total\n\nplayer,total\n", &r,
            "line 3: a second totals section");
    CREJECT("sota\n\"1\n\nplayer,total\n", &r,
            "line 2: unterminated quoted cell");
    CREJECT("sota\n\"1\"x\n\nplayer,total\n", &r,
            "line 2: text after a closing quote");
    /* A CR alone after a quoted cell is no line end, as after one
     * not quoted (it made the rest of the line a row of its own). */
    CREJECT("sota\n\"1\"\r2\n\nplayer,total\n", &r,
            "line 2: text after a closing quote");
    CREJECT("sota\n1\r2\n\nplayer,total\n", &r,
            "line 2, cell 1: a control character (U+000D) has no place in "
            "a claim");
    /* A quoted line break parses, and is then refused as a control
     * character; lines are counted through it, so a fault after it is
     * placed on its own line. */
    CREJECT("sota,code\n1,\"BC-\n003\"\n\nplayer,total\n", &r,
            "line 2, cell 2: a control character (U+000A) has no place in "
            "a claim");
    CREJECT("sota,code\n1,\"BC-\n003\"x\n\nplayer,total\n", &r,
            "line 3: text after a closing quote");
    /* Found by fuzz_claim: such a cell made a canonical claim that is
     * not JSON (it did not parse back). */
    CREJECT("sota,owner\n1,ali\xe2\x99" "ce\n\nplayer,total\n", &r,
            "line 2, cell 2: invalid UTF-8");
    CREJECT("sota,owner\n1,\"a\nb\xff\"\n", &r,
            "line 2, cell 2: invalid UTF-8");
    /* An integer cell is all digits: "15x" and "+15" stay the text they
     * are (and differ), blanks around a number are not part of it. */
    canon = claim_canon("sota,bonus\n1,15x\n2,+15\n3, -15 \n\n"
                        "player,total\n", &r, &rc);
    CHECK_STR(canon, "{\"records\":[{\"sota\":1,\"bonus\":\"15x\"},"
              "{\"sota\":2,\"bonus\":\"+15\"},{\"sota\":3,\"bonus\":-15}],"
              "\"totals\":{}}");
    free(canon);
    CREJECT("player,total\nalice,24x\n", &r,
            "line 2, cell 2: a total is an integer of at most 64 bits (a "
            "totals row is 'player,total')");
    /* The text ends where len says, whatever byte follows: a closing
     * quote or a CR that is the last byte ends its cell and row (the
     * byte after them is not read). */
    {
        arb_claim_t c;
        static const char q[] = "player,total\nalice,\"24\"\"";
        static const char cr[] = "player,total\nalice,24\rx";

        CHECK_INT(arb_claim_parse_csv(&c, q, sizeof(q) - 2, &r, &why), 0);
        CHECK(c.res.ntotals == 1 && c.res.totals[0].points == 24);
        arb_claim_clear(&c);
        CHECK_INT(arb_claim_parse_csv(&c, cr, sizeof(cr) - 2, &r, &why), 0);
        CHECK(c.res.ntotals == 1 && c.res.totals[0].points == 24);
        arb_claim_clear(&c);
    }
    {
        arb_claim_t c;
        CHECK_INT(arb_claim_parse_csv(&c, "sota\n1\0x\n", 9, &r, &why),
                  ARB_EINVAL);
        CHECK_STR(arb_buf_cstr(&why), "line 2, cell 1: NUL byte");
        arb_claim_clear(&c);
    }
    arb_results_clear(&r);
    arb_match_free(m);
}

/* ---- a recorder's report read as results -------------------------------- */

/* A report read as results keeps the recorder's verdict fields (a csv of
 * a running dealt match shows them); read as a claim it drops them. */
static void
test_claim_report(void)
{
    arb_claim_t c;
    const char *doc = "{\"records\":[{\"sota\":1,\"status\":\"pending\","
                      "\"disputed_fields\":[\"bonus\"]}],"
                      "\"totals\":{\"ann\":6},\"digest\":\"00\","
                      "\"seq\":3,\"closed\":false,\"finished\":false,"
                      "\"state\":{}}";

    CHECK_INT(arb_claim_parse_report(&c, doc, strlen(doc), &why), 0);
    CHECK_INT(c.res.nrecords, 1);
    if (c.res.nrecords == 1) {
        CHECK_INT(c.res.records[0].nfields, 3);
        CHECK(arb_record_get(&c.res.records[0], "status") != NULL
              && strcmp(arb_record_get(&c.res.records[0], "status")->str,
                        "pending") == 0);
        CHECK(arb_record_get(&c.res.records[0], "disputed_fields") != NULL);
    }
    CHECK_INT(c.res.ntotals, 1);
    arb_claim_clear(&c);
    CHECK_INT(arb_claim_parse_json(&c, doc, strlen(doc), &why), 0);
    CHECK_INT(c.res.nrecords == 1 ? c.res.records[0].nfields : 0, 1);
    CHECK(c.res.nrecords == 1
          && arb_record_get(&c.res.records[0], "status") == NULL);
    arb_claim_clear(&c);
    /* Malformed is refused alike. */
    doc = "{\"records\":3,\"totals\":{}}";
    CHECK_INT(arb_claim_parse_report(&c, doc, strlen(doc), &why),
              ARB_EINVAL);
    /* ... also in the verdict fields a claim drops: a control character,
     * a type no field takes (a claim took both until 2026-12-05) */
    doc = "{\"records\":[{\"sota\":1,\"status\":\"ok\\n\"}],"
          "\"totals\":{\"ann\":6}}";
    CHECK_INT(arb_claim_parse_report(&c, doc, strlen(doc), &why),
              ARB_EINVAL);
    CHECK_INT(arb_claim_parse_json(&c, doc, strlen(doc), &why), ARB_EINVAL);
    CHECK(strstr(arb_buf_cstr(&why), "records[0].status: a control "
                 "character (U+000A)") != NULL);
    doc = "{\"records\":[{\"sota\":1,\"disputed_fields\":{}}],"
          "\"totals\":{\"ann\":6}}";
    CHECK_INT(arb_claim_parse_report(&c, doc, strlen(doc), &why),
              ARB_EINVAL);
    CHECK_INT(arb_claim_parse_json(&c, doc, strlen(doc), &why), ARB_EINVAL);
}

/* ---- the canonical form in events --------------------------------------- */

static void
test_claim_event(void)
{
    arb_claim_t c, back;
    arb_event_t ev;
    arb_buf_t   b = ARB_BUF_INIT, b2 = ARB_BUF_INIT;
    const char *doc = "{\"records\":[{\"sota\":1,\"seq\":[\"a\",\"b\"],"
                      "\"status\":\"confirmed\"},{\"sota\":2}],"
                      "\"totals\":{\"ann\":6,\"bo\\\"b\":-1}}";

    memset(&ev, 0, sizeof(ev));
    CHECK_INT(arb_claim_parse_json(&c, doc, strlen(doc), &why), 0);
    ev.kind = ARB_EV_CLAIM;
    CHECK_INT(arb_claim_to_event(&ev, &c), 0);
    CHECK_INT(ev.nargs, 2);
    if (ev.nargs == 2) {
        CHECK_STR(ev.args[0], "{\"sota\":1,\"seq\":[\"a\",\"b\"]}");
        CHECK_STR(ev.args[1], "{\"sota\":2}");
    }
    CHECK_STR(ev.text, "{\"totals\":{\"ann\":6,\"bo\\\"b\":-1}}");
    CHECK_INT(arb_claim_from_event(&back, &ev, &why), 0);
    arb_claim_format(&b, &c);
    arb_claim_format(&b2, &back);
    CHECK_STR(arb_buf_cstr(&b2), arb_buf_cstr(&b));
    arb_claim_clear(&back);

    /* Another spelling is refused, and canonicalised on request. */
    free(ev.args[1]);
    ev.args[1] = strdup("{ \"sota\" : 2 }");
    CHECK_INT(arb_claim_from_event(&back, &ev, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "claim record 2 is not in canonical form "
              "(compact JSON, no status): {\"sota\":2}");
    free(ev.text);
    ev.text = strdup("{\"totals\": {\"ann\":6, \"bo\\\"b\":-1}}");
    CHECK_INT(arb_claim_event_canon(&ev, &why), 0);
    CHECK_STR(ev.args[1], "{\"sota\":2}");
    CHECK_STR(ev.text, "{\"totals\":{\"ann\":6,\"bo\\\"b\":-1}}");
    CHECK_INT(arb_claim_from_event(&back, &ev, &why), 0);
    arb_claim_clear(&back);
    /* The totals too: stored bytes are hashed, one claim one spelling. */
    free(ev.text);
    ev.text = strdup("{\"totals\": {\"ann\":6, \"bo\\\"b\":-1}}");
    CHECK_INT(arb_claim_from_event(&back, &ev, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "claim totals are not in canonical form "
              "(compact JSON): {\"totals\":{\"ann\":6,\"bo\\\"b\":-1}}");

    free(ev.text);
    ev.text = strdup("{\"totals\":{},\"x\":1}");
    CHECK_INT(arb_claim_from_event(&back, &ev, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "claim totals: the text is "
              "{\"totals\":{\"player\":points,...}} and nothing else");
    free(ev.text);
    ev.text = strdup("{\"totals\":{\"ann\":1}}");
    free(ev.args[0]);
    ev.args[0] = strdup("[1]");
    CHECK_INT(arb_claim_from_event(&back, &ev, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "claim record 1: expected an object (one "
              "record), got array");
    free(ev.args[0]);
    ev.args[0] = strdup("{\"a\":");
    CHECK_INT(arb_claim_from_event(&back, &ev, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "claim record 1: line 1, column 6: a: "
              "unexpected token near end of file");
    /* A control character in any item of a list, the last too. */
    free(ev.args[0]);
    ev.args[0] = strdup("{\"seq\":[\"a\",\"b\\u0007\"]}");
    CHECK_INT(arb_claim_event_canon(&ev, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "claim record 1, field 'seq': a control "
              "character (U+0007) has no place in a claim");
    /* A stored record holds no verdict: a status is not canonical. */
    free(ev.args[0]);
    ev.args[0] = strdup("{\"sota\":1,\"status\":\"confirmed\"}");
    CHECK_INT(arb_claim_from_event(&back, &ev, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "claim record 1 is not in canonical form "
              "(compact JSON, no status): {\"sota\":1}");
    free(ev.text);
    ev.text = NULL;
    CHECK_INT(arb_claim_from_event(&back, &ev, &why), ARB_EINVAL);
    arb_claim_clear(NULL);
    /* One claim event carries at most ARB_CLAIM_RECORDS_MAX records. */
    {
        arb_event_t big;
        size_t      i;

        memset(&big, 0, sizeof(big));
        big.kind = ARB_EV_CLAIM;
        big.text = strdup("{\"totals\":{}}");
        for (i = 0; i <= ARB_CLAIM_RECORDS_MAX; i++)
            arb_event_add_arg(&big, "{}");
        CHECK_INT(arb_claim_event_fits(&big, &why), ARB_ETOOBIG);
        CHECK_STR(arb_buf_cstr(&why), "1025 records; one claim carries at "
                  "most 1024");
        arb_event_clear(&big);
    }
    /* ... and exactly that many fit; a record of ARB_STR_MAX bytes of
     * JSON fits, one byte more is refused as the claim's record. */
    {
        arb_event_t big;
        char        rec[ARB_STR_MAX + 2];
        size_t      i;

        memset(&big, 0, sizeof(big));
        big.kind = ARB_EV_CLAIM;
        big.text = strdup("{\"totals\":{}}");
        for (i = 0; i < ARB_CLAIM_RECORDS_MAX; i++)
            arb_event_add_arg(&big, "{}");
        CHECK_INT(arb_claim_event_fits(&big, &why), 0);
        arb_event_clear(&big);
        memset(&big, 0, sizeof(big));
        big.kind = ARB_EV_CLAIM;
        big.text = strdup("{\"totals\":{}}");
        memset(rec, 'a', sizeof(rec));
        memcpy(rec, "{\"x\":\"", 6);
        memcpy(rec + ARB_STR_MAX - 2, "\"}", 3);
        arb_event_add_arg(&big, rec);
        CHECK_INT(arb_claim_event_fits(&big, &why), 0);
        free(big.args[0]);
        memcpy(rec + ARB_STR_MAX - 2, "a\"}", 4);
        big.args[0] = strdup(rec);
        CHECK_INT(arb_claim_event_fits(&big, &why), ARB_ETOOBIG);
        CHECK_STR(arb_buf_cstr(&why), "record 1 is 4097 bytes as JSON; at "
                  "most 4096");
        arb_event_clear(&big);
    }
    /* A control character in a player's name, sent in an append. */
    free(ev.text);
    ev.text = strdup("{\"totals\":{\"ann\\u0007\":1}}");
    free(ev.args[0]);
    ev.args[0] = strdup("{\"sota\":1}");
    CHECK_INT(arb_claim_event_canon(&ev, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "claim totals: a control character "
              "(U+0007) in a name");

    arb_event_clear(&ev);
    arb_claim_clear(&c);
    arb_buf_free(&b);
    arb_buf_free(&b2);
}

/* ---- claims through the match layer ------------------------------------- */

/* The canonical claim of m's own results, edited: `from` -> `to`. */
static char *
edited_claim(const arb_match_t *m, const char *from, const char *to)
{
    char  *rep = report(m), *canon, *p;
    int    rc;
    size_t n;

    canon = claim_canon(rep, NULL, &rc);
    free(rep);
    if (canon == NULL || from == NULL)
        return canon;
    p = strstr(canon, from);
    if (p == NULL)
        return canon;
    n = strlen(canon) - strlen(from) + strlen(to) + 1;
    rep = malloc(n);
    snprintf(rep, n, "%.*s%s%s", (int)(p - canon), canon, to,
             p + strlen(from));
    free(canon);
    return rep;
}

static int
apply_claim(arb_match_t *m, const char *by, const char *doc, char *msg,
            size_t msglen)
{
    arb_claim_t   c;
    arb_event_t   ev;
    arb_verdict_t v;
    int           rc;

    memset(&ev, 0, sizeof(ev));
    rc = arb_claim_parse_json(&c, doc, strlen(doc), &why);
    if (rc != 0)
        return rc;
    ev.kind = ARB_EV_CLAIM;
    ev.player = by ? strdup(by) : NULL;
    arb_claim_to_event(&ev, &c);
    arb_claim_clear(&c);
    rc = arb_match_apply(m, &ev, &v);
    snprintf(msg, msglen, "%s", rc ? v.msg : "");
    arb_event_clear(&ev);
    return rc;
}

/* "status[/disputed_fields]" of every record, joined by blanks. */
static char *
statuses(const arb_match_t *m)
{
    static char        out[512];
    arb_results_t      r;
    const arb_field_t *f;
    size_t             i, j, o = 0;

    out[0] = '\0';
    if (arb_match_results(m, &r) != 0)
        return out;
    for (i = 0; i < r.nrecords && o < sizeof(out) - 64; i++) {
        f = arb_record_get(&r.records[i], "status");
        o += (size_t)snprintf(out + o, sizeof(out) - o, "%s%s", i ? " " : "",
                              f ? f->str : "?");
        f = arb_record_get(&r.records[i], "disputed_fields");
        for (j = 0; f != NULL && j < f->nlist; j++)
            o += (size_t)snprintf(out + o, sizeof(out) - o, "%c%s",
                                  j ? ',' : '/', f->list[j]);
    }
    arb_results_clear(&r);
    return out;
}

static void
move_to(arb_match_t *m, const char *player, const char *card)
{
    arb_event_t   ev;
    arb_verdict_t v;

    memset(&ev, 0, sizeof(ev));
    ev.kind = ARB_EV_MOVE;
    ev.verb = strdup("place");
    ev.player = strdup(player);
    arb_event_add_arg(&ev, card);
    CHECK_INT(arb_match_apply(m, &ev, &v), 0);
    arb_event_clear(&ev);
}

static void
test_match_claims(void)
{
    arb_match_t  *m;
    arb_event_t   ev;
    arb_verdict_t v;
    unsigned char d0[ARB_HASH_LEN], d1[ARB_HASH_LEN], d2[ARB_HASH_LEN];
    char          msg[400], *text, *good, *bad;

    text = match_text("M1", 3, NULL);
    m = replay_text(text, msg, sizeof(msg));
    free(text);
    CHECK(m != NULL);
    if (m == NULL)
        return;
    CHECK_STR(statuses(m), "pending pending pending");
    CHECK_INT(arb_match_claim_seq(m), 0);
    arb_match_digest(m, d0);

    good = edited_claim(m, NULL, NULL);
    bad = edited_claim(m, "\"sota\":2,\"owner\":\"bob\"",
                       "\"sota\":2,\"owner\":\"alice\"");

    /* A claim that agrees field for field confirms every record. */
    CHECK_INT(apply_claim(m, "alice", good, msg, sizeof(msg)), 0);
    CHECK_STR(statuses(m), "confirmed confirmed confirmed");
    CHECK_INT(arb_match_claim_seq(m), 10);
    arb_match_digest(m, d1);
    CHECK(memcmp(d0, d1, 32) != 0);
    /* The report says the claim in force and its totals (until
     * 2026-12-06 a claim disputing only a total left every page saying
     * "confirmed"): here none differs; then alice's is claimed 1000. */
    {
        arb_results_t r;
        char          from[64], to[64], want[160], *tot, *rep;
        int64_t       a = -1;
        size_t        k;

        rep = report(m);
        CHECK(strstr(rep, "\"claim\":{\"seq\":10,\"totals_disputed\":[]}")
              != NULL);
        free(rep);
        CHECK_INT(arb_match_results(m, &r), 0);
        for (k = 0; k < r.ntotals; k++)
            if (strcmp(r.totals[k].name, "alice") == 0)
                a = r.totals[k].points;
        arb_results_clear(&r);
        snprintf(from, sizeof(from), "\"alice\":%lld", (long long)a);
        snprintf(to, sizeof(to), "\"alice\":1000");
        tot = edited_claim(m, from, to);
        CHECK(tot != NULL && strstr(tot, to) != NULL);
        CHECK_INT(apply_claim(m, "bob", tot, msg, sizeof(msg)), 0);
        CHECK_STR(statuses(m), "confirmed confirmed confirmed");
        rep = report(m);
        snprintf(want, sizeof(want), "\"claim\":{\"seq\":11,\"totals_"
                 "disputed\":[{\"player\":\"alice\",\"claimed\":1000,"
                 "\"recorded\":%lld}]}", (long long)a);
        CHECK(strstr(rep, want) != NULL);
        if (strstr(rep, want) == NULL)
            fprintf(stderr, "want %s in %s\n", want, rep);
        free(rep);
        free(tot);
        /* the agreeing claim again, for what follows */
        CHECK_INT(apply_claim(m, "alice", good, msg, sizeof(msg)), 0);
    }

    /* The latest claim decides. */
    CHECK_INT(apply_claim(m, "bob", bad, msg, sizeof(msg)), 0);
    CHECK_STR(statuses(m), "confirmed disputed/owner confirmed");

    /* A record fixed after the claim stays pending. */
    move_to(m, "bob", "2C");
    move_to(m, "alice", "3C");
    move_to(m, "bob", "4C");
    CHECK_STR(statuses(m), "confirmed disputed/owner confirmed pending");

    /* Close; then only a claim may follow. */
    memset(&ev, 0, sizeof(ev));
    ev.kind = ARB_EV_CLOSE;
    CHECK_INT(arb_match_apply(m, &ev, &v), 0);
    ev.kind = ARB_EV_NOTE;
    ev.text = strdup("late");
    CHECK_INT(arb_match_apply(m, &ev, &v), ARB_EOVER);
    CHECK_STR(v.msg, "the match is closed: nothing may follow");
    arb_event_clear(&ev);
    memset(&ev, 0, sizeof(ev));
    ev.kind = ARB_EV_MOVE;
    ev.verb = strdup("place");
    ev.player = strdup("bob");
    arb_event_add_arg(&ev, "5D");
    CHECK_INT(arb_match_apply(m, &ev, &v), ARB_EOVER);
    arb_event_clear(&ev);

    /* The claim of the old three records now lacks the fourth. */
    CHECK_INT(apply_claim(m, NULL, good, msg, sizeof(msg)), 0);
    CHECK_STR(statuses(m), "confirmed confirmed confirmed disputed/*");
    CHECK(arb_match_closed(m));
    free(good);
    good = edited_claim(m, NULL, NULL);
    CHECK_INT(apply_claim(m, "alice", good, msg, sizeof(msg)), 0);
    CHECK_STR(statuses(m), "confirmed confirmed confirmed confirmed");
    arb_match_digest(m, d2);

    /* A claim is judged: a bad one is refused and changes nothing. */
    memset(&ev, 0, sizeof(ev));
    ev.kind = ARB_EV_CLAIM;
    arb_event_add_arg(&ev, "{ \"sota\": 1 }");
    ev.text = strdup("{\"totals\":{}}");
    CHECK_INT(arb_match_apply(m, &ev, &v), ARB_EINVAL);
    CHECK_STR(v.rule, "claim");
    CHECK_STR(v.msg, "claim record 1 is not in canonical form (compact "
              "JSON, no status): {\"sota\":1}");
    free(ev.text);
    ev.text = strdup("{\"totals\":{}}");
    ev.player = strdup("not a name");
    CHECK_INT(arb_match_apply(m, &ev, &v), ARB_EINVAL);
    CHECK_STR(v.msg, "'not a name' is not a name (1..64 of A-Z a-z 0-9 _ . "
              "@ + -)");
    arb_event_clear(&ev);
    arb_match_digest(m, d1);
    CHECK(memcmp(d1, d2, 32) == 0);
    CHECK_STR(statuses(m), "confirmed confirmed confirmed confirmed");
    free(good);
    free(bad);
    arb_match_free(m);
}

/* Rulings after a claim: the verdict follows the record as ruled. */
static void
test_claim_and_rulings(void)
{
    arb_match_t  *m;
    arb_event_t   ev;
    arb_verdict_t v;
    char          msg[400], *text, *claim;

    text = match_text("R1", 2, NULL);
    m = replay_text(text, msg, sizeof(msg));
    free(text);
    CHECK(m != NULL);
    if (m == NULL)
        return;
    /* The claim says Sota 2 ended with 4♦ (a Ladder); the arbiter finds
     * the scoresheet wrong and amends move 6 to 4♦. */
    claim = edited_claim(m, "\"4♥\"],\"code\":\"BC-003\",\"face_sum\":9,"
                         "\"bonus\":15,\"game_points\":24",
                         "\"4♦\"],\"code\":\"BC-001\",\"face_sum\":9,"
                         "\"bonus\":6,\"game_points\":15");
    CHECK_INT(apply_claim(m, "bob", claim, msg, sizeof(msg)), 0);
    CHECK_STR(statuses(m), "confirmed disputed/sequence,code,bonus,"
              "game_points");
    memset(&ev, 0, sizeof(ev));
    ev.kind = ARB_EV_AMEND;
    ev.target = 6;
    ev.verb = strdup("place");
    ev.player = strdup("bob");
    arb_event_add_arg(&ev, "4D");
    ev.text = strdup("the card was 4♦");
    CHECK_INT(arb_match_apply(m, &ev, &v), 0);
    arb_event_clear(&ev);
    /* The claim's totals (bob 24) now differ from bob's 15, but only
     * records carry a status: arbiter diff reports the totals. */
    CHECK_STR(statuses(m), "confirmed confirmed");
    /* A claim is not a move: it cannot be voided. */
    memset(&ev, 0, sizeof(ev));
    ev.kind = ARB_EV_VOID;
    ev.target = 7;
    ev.text = strdup("withdrawn");
    CHECK_INT(arb_match_apply(m, &ev, &v), ARB_EINVAL);
    CHECK_STR(v.msg, "seq 7 is a claim, not a move: only moves can be "
              "voided or amended");
    arb_event_clear(&ev);
    free(claim);
    arb_match_free(m);
}

/* ---- claims in transcripts ---------------------------------------------- */

static void
test_transcript_claims(void)
{
    arb_history_t    t, t2;
    arb_buf_t        out = ARB_BUF_INIT, out2 = ARB_BUF_INIT;
    arb_match_t     *m;
    char             msg[400], *text;

    /* A claim line keeps its JSON verbatim: '#', '--', quotes. */
    text = match_text("T1", 2, "7. close -- time\n"
                      "8. claim alice -- { \"records\": [ {\"sota\": 1, "
                      "\"note\": \"# not -- a \\\"comment\\\"\"} ], "
                      "\"totals\": {\"alice\": 24} }\n"
                      "claim -- {\"records\":[],\"totals\":{}}\n");
    CHECK_INT(arb_transcript_parse(&t, text, strlen(text), &why), 0);
    free(text);
    CHECK_INT(t.nevents, 9);
    if (t.nevents == 9) {
        CHECK_INT(t.events[7].kind, ARB_EV_CLAIM);
        CHECK_STR(t.events[7].player, "alice");
        CHECK_INT(t.events[7].nargs, 1);
        CHECK_STR(t.events[7].args[0], "{\"sota\":1,\"note\":\"# not -- a "
                  "\\\"comment\\\"\"}");
        CHECK_STR(t.events[7].text, "{\"totals\":{\"alice\":24}}");
        CHECK(t.events[8].player == NULL);
        CHECK_INT(t.events[8].nargs, 0);
    }
    CHECK_INT(arb_transcript_format(&out, &t.open, t.events, t.nevents), 0);
    CHECK(strstr(arb_buf_cstr(&out), "\n8. claim alice -- {\"records\":"
                 "[{\"sota\":1,\"note\":\"# not -- a \\\"comment\\\"\"}],"
                 "\"totals\":{\"alice\":24}}\n9. claim -- {\"records\":[],"
                 "\"totals\":{}}\n") != NULL);
    /* Written, read, written: the same bytes. */
    CHECK_INT(arb_transcript_parse(&t2, out.data, out.len, &why), 0);
    CHECK_INT(arb_transcript_format(&out2, &t2.open, t2.events, t2.nevents),
              0);
    CHECK_STR(arb_buf_cstr(&out2), arb_buf_cstr(&out));
    arb_history_clear(&t2);
    m = replay_text(arb_buf_cstr(&out), msg, sizeof(msg));
    CHECK(m != NULL);
    if (m != NULL)
        CHECK_STR(statuses(m), "disputed/* disputed/*");
    arb_match_free(m);
    arb_history_clear(&t);

    /* A claim line longer than any other line may be. */
    {
        arb_buf_t big = ARB_BUF_INIT;
        int       i;
        text = match_text("T2", 0, NULL);
        arb_buf_puts(&big, text);
        free(text);
        arb_buf_puts(&big, "claim -- {\"records\":[");
        for (i = 0; i < 32; i++)
            arb_buf_printf(&big, "%s{\"sota\":%d,\"text\":\"%0200d\"}",
                           i ? "," : "", i, 0);
        arb_buf_puts(&big, "],\"totals\":{}}\n");
        CHECK(big.len > 4096);
        CHECK_INT(arb_transcript_parse(&t, big.data, big.len, &why), 0);
        CHECK_INT(t.nevents, 1);
        if (t.nevents == 1)
            CHECK_INT(t.events[0].nargs, 32);
        arb_history_clear(&t);
        arb_buf_free(&big);
    }

    /* Errors name the line. */
    arb_buf_free(&why);
    text = match_text("T3", 0, "claim alice\n");
    CHECK_INT(arb_transcript_parse(&t, text, strlen(text), &why),
              ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "line 6: a claim is 'claim [<who>] -- "
              "<claim JSON on one line>'");
    free(text);
    arb_buf_free(&why);
    text = match_text("T3", 0, "claim alice bob -- {}\n");
    CHECK_INT(arb_transcript_parse(&t, text, strlen(text), &why),
              ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "line 6: a claim is 'claim [<who>] -- "
              "<claim JSON on one line>'");
    free(text);
    arb_buf_free(&why);
    text = match_text("T3", 0, "1. claim al/ice -- {}\n");
    CHECK_INT(arb_transcript_parse(&t, text, strlen(text), &why),
              ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "line 6: 'al/ice' is not a name (1..64 "
              "of A-Z a-z 0-9 _ . @ + -)");
    free(text);
    arb_buf_free(&why);
    text = match_text("T3", 0, "claim -- {\"records\":[],\"totals\":{},}\n");
    CHECK_INT(arb_transcript_parse(&t, text, strlen(text), &why),
              ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "line 6: claim: line 1, column 27: "
              "trailing comma in an object");
    free(text);
    arb_buf_free(&out);
    arb_buf_free(&out2);
}

/* A claim is read in one pass: the place of a value (which reads the
 * text again from its start) is looked up only for a refusal.  Looked
 * up for every field, a 5,000-record claim took 16 s to read. */
static void
test_claim_json_linear(void)
{
    arb_buf_t   t = ARB_BUF_INIT;
    arb_claim_t c;
    size_t      i, before;
    int         rc;

    arb_buf_puts(&t, "{\"records\": [\n");
    for (i = 0; i < 2000; i++)
        arb_buf_printf(&t, "%s {\"sota\": %zu, \"owner\": \"alice\", "
                       "\"sequence\": [\"2S\", \"3S\", \"4S\"], "
                       "\"game_points\": 24}\n", i ? "," : "", i % 12 + 1);
    arb_buf_puts(&t, "], \"totals\": {\"alice\": 1, \"bob\": 2}}\n");
    CHECK(!t.oom);
    before = arb_json_where_calls();
    rc = arb_claim_parse_json(&c, t.data, t.len, &why);
    CHECK_INT(rc, 0);
    CHECK_INT(c.res.nrecords, 2000);
    CHECK_INT(arb_json_where_calls() - before, 0);
    arb_claim_clear(&c);
    /* A refusal still names its place: a total that is not a number,
     * the last value of the file. */
    t.len -= strlen("}}\n");
    arb_buf_puts(&t, ", \"carol\": \"3\"}}\n");
    before = arb_json_where_calls();
    rc = arb_claim_parse_json(&c, t.data, t.len, &why);
    CHECK_INT(rc, ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "line 2002, column 46: totals.carol: "
              "expected an integer, got string");
    CHECK_INT(arb_json_where_calls() - before, 1);
    arb_claim_clear(&c);
    arb_buf_free(&t);
}

int
main(void)
{
    test_jsonin();
    test_jsonin_paths();
    test_claim_json_linear();
    test_claim_json();
    test_claim_csv();
    test_claim_report();
    test_claim_event();
    test_match_claims();
    test_claim_and_rulings();
    test_transcript_claims();
    arb_buf_free(&why);
    return TEST_END();
}
