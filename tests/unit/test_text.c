/*
 * test_text.c - printable text (core/text.h): which characters a record
 * may hold, how text from outside is shown, and the event checks and
 * listing line built on them.
 */
#include <stdlib.h>
#include <string.h>

#include "core/claim.h"
#include "core/codec.h"
#include "core/err.h"
#include "core/event.h"
#include "core/event_json.h"
#include "core/mp.h"
#include "core/rules.h"
#include "core/text.h"
#include "core/transcript.h"
#include "tests/test.h"

static const char *
clean(const char *s, int keep)
{
    static arb_buf_t b;

    b.len = 0;
    arb_text_clean(&b, s, strlen(s), keep);
    return arb_buf_cstr(&b);
}

static int
control(const char *s, size_t *at)
{
    return arb_text_control(s, strlen(s), at);
}

static void
test_control(void)
{
    size_t at = 99;

    CHECK_INT(control("plain text, ♠ ♥ and é", &at), -1);
    CHECK_INT(at, 99);
    CHECK_INT(control("", NULL), -1);
    CHECK_INT(control("ab\x1b[2J", &at), 0x1b);
    CHECK_INT(at, 2);
    CHECK_INT(control("\t", NULL), 0x09);
    CHECK_INT(control("x\n", NULL), 0x0a);
    CHECK_INT(control("del\x7f", NULL), 0x7f);
    /* C1 as UTF-8: U+009B is a CSI to many terminals */
    CHECK_INT(control("é\xc2\x9b", &at), 0x9b);
    CHECK_INT(at, 2);
    CHECK_INT(control("\xc2\x80", NULL), 0x80);
    CHECK_INT(control("\xc2\xa0", NULL), -1);    /* U+00A0 is printable */
    CHECK_INT(control("\xe2\x80\xa8", NULL), -1);
}

static void
test_seq(void)
{
    CHECK_INT(arb_text_seq("a", 1), 1);
    CHECK_INT(arb_text_seq("é", 2), 2);
    CHECK_INT(arb_text_seq("€", 3), 3);
    CHECK_INT(arb_text_seq("\xf0\x9f\x82\xa1", 4), 4);
    CHECK_INT(arb_text_seq("€", 2), 0);            /* cut */
    CHECK_INT(arb_text_seq("\xff", 1), 0);
    CHECK_INT(arb_text_seq("\xc0\xaf", 2), 0);     /* overlong */
    CHECK_INT(arb_text_seq("", 0), 0);
    CHECK_INT(arb_text_utf8_len("ab€", 5), 5);
    CHECK_INT(arb_text_utf8_len("ab\xff€", 6), 2);
    CHECK_INT(arb_text_utf8_len("ab\xe2\x82", 4), 2);
}

/* Messages of a fixed size and the refusals built on them: what they
 * quote is shown escaped, and a cut never splits a character. */
static void
test_messages(void)
{
    char          small[8];
    arb_verdict_t v;
    arb_buf_t     why = ARB_BUF_INIT;

    arb_text_clean_into(small, sizeof(small), "ab\x1b");
    CHECK_STR(small, "ab\\x1b");
    arb_text_clean_into(small, sizeof(small), "abcde€");
    CHECK_STR(small, "abcde");
    arb_verdict(&v, ARB_EILLEGAL, "§34.2", "unknown card '%s'", "4\x1b[2J");
    CHECK_STR(v.msg, "unknown card '4\\x1b[2J'");
    CHECK_INT(arb_mp_fail(&why, ARB_EPROTO, "name '%s'", "\xc2\x9b\xff"),
              ARB_EPROTO);
    CHECK_STR(arb_buf_cstr(&why), "name '\\xc2\\x9b\\xff'");
    arb_buf_free(&why);
}

static void
test_clean(void)
{
    arb_buf_t b = ARB_BUF_INIT;

    CHECK_STR(clean("as is: ♠ é", 0), "as is: ♠ é");
    CHECK_STR(clean("a\x1b]0;x\x07z", 0), "a\\x1b]0;x\\x07z");
    CHECK_STR(clean("l1\nl2\tx\r", 0), "l1\\x0al2\\x09x\\x0d");
    CHECK_STR(clean("l1\nl2\tx\r", 1), "l1\nl2\tx\\x0d");
    CHECK_STR(clean("c1 \xc2\x9b!", 0), "c1 \\xc2\\x9b!");
    CHECK_STR(clean("bad \xff\xfe ok", 0), "bad \\xff\\xfe ok");
    /* a character cut at the end (a message cut to its buffer) */
    CHECK_STR(clean("cut \xe2\x82", 0), "cut \\xe2\\x82");
    /* NUL within the length is a control character too */
    arb_text_clean(&b, "a\0b", 3, 0);
    CHECK_INT(b.len, 6);
    CHECK(memcmp(b.data, "a\\x00b", 6) == 0);
    CHECK(arb_mp_utf8_valid(b.data, b.len));
    arb_buf_free(&b);
}

/* ev, an open of YAHchain match "m" with these players and options. */
static void
open_of(arb_event_t *ev, arb_setup_t *su, arb_player_t *pl, size_t np,
        arb_option_t *opt, size_t no)
{
    memset(ev, 0, sizeof(*ev));
    memset(su, 0, sizeof(*su));
    ev->kind = ARB_EV_OPEN;
    ev->setup = su;
    su->game = "yahchain";
    su->match_id = "m";
    su->players = pl;
    su->nplayers = np;
    su->options = opt;
    su->noptions = no;
}

/* A new event's strings: every field a request can carry. */
static void
test_event_text(void)
{
    arb_event_t ev;
    arb_setup_t su;
    arb_option_t opt[2] = { { "mode", "3" }, { "void", "none" } };
    arb_player_t pl[2] = { { "ann", -1 }, { "bob", -1 } };
    char        *args[2] = { "4♠", "x" };
    arb_buf_t    why = ARB_BUF_INIT;

    memset(&ev, 0, sizeof(ev));
    ev.kind = ARB_EV_MOVE;
    ev.seq = 3;
    ev.player = "ann";
    ev.verb = "place";
    ev.args = args;
    ev.nargs = 2;
    CHECK_INT(arb_event_check_text(&ev, &why), 0);
    args[1] = "x\x1b[2J";
    CHECK_INT(arb_event_check_text(&ev, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "args[1]: a control character (U+001B) "
              "at byte 1: a record holds printable text only");
    args[1] = "x";
    ev.client_id = "c\x07";
    CHECK_INT(arb_event_check_text(&ev, &why), ARB_EINVAL);
    CHECK(strncmp(arb_buf_cstr(&why), "cid: ", 5) == 0);
    ev.client_id = NULL;
    ev.kind = ARB_EV_NOTE;
    ev.player = ev.verb = NULL;
    ev.args = NULL;
    ev.nargs = 0;
    ev.text = "one\ntwo";
    CHECK_INT(arb_event_check_text(&ev, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "text: a control character (U+000A) "
              "at byte 3: a record holds printable text only");
    ev.text = "é\xc2\x85";
    CHECK_INT(arb_event_check_text(&ev, &why), ARB_EINVAL);
    CHECK(strstr(arb_buf_cstr(&why), "(U+0085) at byte 2") != NULL);
    /* an open: options (by key), teams, players, the deal */
    open_of(&ev, &su, pl, 2, opt, 2);
    CHECK_INT(arb_event_check_text(&ev, &why), 0);
    opt[1].value = "none\x7f";
    CHECK_INT(arb_event_check_text(&ev, &why), ARB_EINVAL);
    CHECK(strncmp(arb_buf_cstr(&why), "options.void: a control character "
                  "(U+007F) at byte 4", 52) == 0);
    opt[1].value = "none";
    su.deal.kind = ARB_DEAL_SEED;
    su.deal.seed = "s\x1b";
    CHECK_INT(arb_event_check_text(&ev, &why), ARB_EINVAL);
    CHECK(strncmp(arb_buf_cstr(&why), "deal.seed: ", 11) == 0);
    arb_buf_free(&why);
}

/* The listing line shows what older records may hold escaped. */
static void
test_event_line(void)
{
    arb_event_t ev;
    arb_buf_t   line = ARB_BUF_INIT;

    memset(&ev, 0, sizeof(ev));
    ev.kind = ARB_EV_NOTE;
    ev.seq = 1;
    ev.text = "hi\x1b]0;pwned\x07 \x1b[2J there";
    arb_event_line(&line, &ev);
    CHECK_STR(arb_buf_cstr(&line),
              "note hi\\x1b]0;pwned\\x07 \\x1b[2J there");
    line.len = 0;
    ev.text = "plain ♠";
    arb_event_line(&line, &ev);
    CHECK_STR(arb_buf_cstr(&line), "note plain ♠");
    /* every transcript line, and a transcript's header (its lines kept) */
    line.len = 0;
    ev.text = "a\x07" "b";
    arb_transcript_event_line(&line, &ev);
    CHECK_STR(arb_buf_cstr(&line), "note a\\x07b");
    {
        arb_event_t  open;
        arb_setup_t  su;
        arb_player_t pl[1] = { { "ann", -1 } };
        arb_option_t opt[1] = { { "venue", "hall\x1b[2J" } };

        open_of(&open, &su, pl, 1, opt, 1);
        line.len = 0;
        CHECK_INT(arb_transcript_format(&line, &open, &ev, 1), 0);
        CHECK_STR(arb_buf_cstr(&line), "game: yahchain\nmatch: m\n"
                  "players: ann\nvenue: hall\\x1b[2J\n\n1. note a\\x07b\n");
        line.len = 0;
        arb_event_line(&line, &open);
        CHECK_STR(arb_buf_cstr(&line), "open game: yahchain; players: ann; "
                  "venue: hall\\x1b[2J");
    }
    arb_buf_free(&line);
}

/* A claim takes no C1 control either (until 2026-12-05 C0 and DEL). */
static void
test_claim_c1(void)
{
    arb_claim_t c;
    arb_buf_t   why = ARB_BUF_INIT;
    const char *doc = "{\"records\":[{\"sota\":1,\"note\":\"a\\u009bb\"}],"
                      "\"totals\":{\"ann\":6}}";

    memset(&c, 0, sizeof(c));
    CHECK_INT(arb_claim_parse_json(&c, doc, strlen(doc), &why), ARB_EINVAL);
    CHECK(strstr(arb_buf_cstr(&why), "control character (U+009B)")
          != NULL);
    arb_claim_clear(&c);
    arb_buf_free(&why);
}

/* Each check at its edges: the last C0 and C1 code points, the column of
 * a refusal, a line's blanks that are tabs and CRs only, a name of 64
 * characters from its set. */
static void
test_edges(void)
{
    arb_buf_t why = ARB_BUF_INIT;
    char      name[66];

    CHECK_INT(control("\x1f", NULL), 0x1f);
    CHECK_INT(control(" ~", NULL), -1);
    CHECK_INT(control("\xc2\x9f", NULL), 0x9f);
    CHECK_INT(arb_text_line_check("ab\xff", 3, 0, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "invalid UTF-8 in column 3");
    arb_buf_free(&why);
    CHECK_INT(arb_text_line_check("ab\xed\xa0\x80", 5, 0, &why),
              ARB_EINVAL);                          /* a surrogate */
    CHECK_STR(arb_buf_cstr(&why), "invalid UTF-8 in column 3");
    arb_buf_free(&why);
    CHECK_INT(arb_text_line_check("a\tb\rc", 5, 1, &why), 0);
    CHECK_INT(arb_text_line_check("a\tb\x01", 4, 1, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why),
              "a control character (U+0001) in column 4");
    arb_buf_free(&why);
    CHECK_INT(arb_text_line_check("a\nb", 3, 1, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why),
              "a control character (U+000A) in column 2");
    arb_buf_free(&why);
    memset(name, 'a', 64);
    name[64] = '\0';
    CHECK_INT(arb_name_valid(name), 1);
    name[64] = 'a';
    name[65] = '\0';
    CHECK_INT(arb_name_valid(name), 0);
    CHECK_INT(arb_name_valid(""), 0);
    CHECK_INT(arb_name_valid("a_b.c@d+e-F9"), 1);
    CHECK_INT(arb_name_valid("a/b"), 0);
    CHECK_INT(arb_name_valid("a b"), 0);
}

/* Every string of an open and of a move is checked, each named. */
static void
test_event_text_fields(void)
{
    arb_event_t  ev;
    arb_setup_t  su;
    arb_option_t opt[1] = { { "mode", "3" } };
    arb_player_t pl[2] = { { "ann", -1 }, { "bob", -1 } };
    char        *teams[1] = { "red" };
    char        *cards[2] = { "2S", "3S" };
    arb_buf_t    why = ARB_BUF_INIT;

    open_of(&ev, &su, pl, 2, opt, 1);
    su.teams = teams;
    su.nteams = 1;
    su.deal.kind = ARB_DEAL_ORDER;
    su.deal.cards = cards;
    su.deal.ncards = 2;
    su.edition = "1";
    su.engine = "e";
    CHECK_INT(arb_event_check_text(&ev, &why), 0);
#define BAD(field, bad, good, prefix) do {                                \
        field = bad;                                                      \
        arb_buf_free(&why);                                               \
        CHECK_INT(arb_event_check_text(&ev, &why), ARB_EINVAL);           \
        CHECK(strncmp(arb_buf_cstr(&why), prefix, strlen(prefix)) == 0);  \
        field = good;                                                     \
    } while (0)
    BAD(su.edition, "1\x1b", "1", "edition: ");
    BAD(su.engine, "e\x1b", "e", "engine: ");
    BAD(teams[0], "r\x1b", "red", "teams[0]: ");
    BAD(opt[0].key, "m\x1b", "mode", "options: ");
    BAD(cards[1], "3\x1b", "3S", "deal.cards[1]: ");
    BAD(pl[1].name, "b\x1b", "bob", "players[1]: ");
    memset(&ev, 0, sizeof(ev));
    ev.kind = ARB_EV_MOVE;
    ev.seq = 1;
    ev.player = "ann";
    ev.verb = "place";
    CHECK_INT(arb_event_check_text(&ev, &why), 0);
    BAD(ev.player, "a\x1b", "ann", "player: ");
    BAD(ev.verb, "p\x1b", "place", "verb: ");
#undef BAD
    arb_buf_free(&why);
}

int
main(void)
{
    test_control();
    test_seq();
    test_messages();
    test_clean();
    test_event_text();
    test_event_line();
    test_claim_c1();
    test_edges();
    test_event_text_fields();
    return TEST_END();
}
