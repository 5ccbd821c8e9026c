/* The transcript format: parse, format, round-trip, and errors that name
 * the line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/transcript.h"
#include "tests/test.h"

static char err[512];

static int
parse(arb_history_t *t, const char *text)
{
    arb_buf_t why = ARB_BUF_INIT;
    int       rc = arb_transcript_parse(t, text, strlen(text), &why);

    snprintf(err, sizeof(err), "%s", rc ? arb_buf_cstr(&why) : "");
    arb_buf_free(&why);
    return rc;
}

static void
test_parse(void)
{
    arb_history_t    t;
    const arb_setup_t *s;

    CHECK_INT(parse(&t,
        "# comment\n"
        "game: yahchain\n"
        "match: M-1\n"
        "players: alice bob   # seat order\n"
        "mode: 4\n"
        "void: clear\n"
        "\n"
        "1. place alice 4♠\n"
        "place bob 5H @1\n"
        "3. note two words  \n"
        "void 2 -- mis-keyed card\n"
        "amend 1 place alice 4D -- wrong suit\n"
        "stands place alice 9C -- arbiter lets it stand\n"
        "close\n"), 0);
    s = t.open.setup;
    CHECK_STR(s->game, "yahchain");
    CHECK_STR(s->match_id, "M-1");
    CHECK_INT(s->nplayers, 2);
    CHECK_STR(s->players[1].name, "bob");
    CHECK_STR(arb_setup_option(s, "mode"), "4");
    CHECK_STR(arb_setup_option(s, "void"), "clear");
    CHECK_INT(t.nevents, 7);
    CHECK_INT(t.events[0].kind, ARB_EV_MOVE);
    CHECK_STR(t.events[0].verb, "place");
    CHECK_STR(t.events[0].player, "alice");
    CHECK_STR(t.events[0].args[0], "4♠");
    CHECK_INT(t.events[1].nargs, 2);
    CHECK_STR(t.events[1].args[1], "@1");
    CHECK_INT(t.events[2].kind, ARB_EV_NOTE);
    CHECK_STR(t.events[2].text, "two words");
    CHECK_INT(t.events[3].kind, ARB_EV_VOID);
    CHECK_INT(t.events[3].target, 2);
    CHECK_STR(t.events[3].text, "mis-keyed card");
    CHECK_INT(t.events[4].kind, ARB_EV_AMEND);
    CHECK_STR(t.events[4].args[0], "4D");
    CHECK_INT(t.events[5].kind, ARB_EV_STANDS);
    CHECK_INT(t.events[6].kind, ARB_EV_CLOSE);
    CHECK_INT(t.lines[0], 8);
    CHECK_INT(t.lines[6], 14);
    CHECK_INT(t.events[6].seq, 7);
    arb_history_clear(&t);
}

/* format -> parse -> format gives the same text and the same events */
static void
test_round_trip(void)
{
    static const char *text =
        "game: yahchain\nmatch: RT\nplayers: a b c\nmode: 3\n"
        "owners: a a a a b b b b c c c c\n"
        "venue: Hall \"\" B \"\"\n"
        "place a 4♠\nplace b \"odd arg\" \"with \\\"quotes\\\"\"\n"
        "place c \"#x\" \"--\"\n"
        "note free text # not a comment here\n"
        "void 2 -- \"\" reason \"\" with words\n"
        "amend 1 place a 5♠ -- typo\n"
        "stands place b K♪ -- stands\n"
        "close -- end of round\n";
    arb_history_t    t1, t2;
    arb_buf_t        f1 = ARB_BUF_INIT, f2 = ARB_BUF_INIT;
    size_t           i, j;

    CHECK_INT(parse(&t1, text), 0);
    CHECK_INT(arb_transcript_format(&f1, &t1.open, t1.events, t1.nevents), 0);
    CHECK_INT(parse(&t2, arb_buf_cstr(&f1)), 0);
    CHECK_INT(arb_transcript_format(&f2, &t2.open, t2.events, t2.nevents), 0);
    CHECK_STR(arb_buf_cstr(&f1), arb_buf_cstr(&f2));
    CHECK_INT(t1.nevents, t2.nevents);
    for (i = 0; i < t1.nevents && i < t2.nevents; i++) {
        arb_event_t *a = &t1.events[i], *b = &t2.events[i];
        CHECK_INT(a->kind, b->kind);
        CHECK_INT(a->target, b->target);
        CHECK_INT(a->seq, b->seq);
        CHECK_INT(a->nargs, b->nargs);
        CHECK(!a->verb == !b->verb && (!a->verb || !strcmp(a->verb, b->verb)));
        CHECK(!a->text == !b->text && (!a->text || !strcmp(a->text, b->text)));
        for (j = 0; j < a->nargs && j < b->nargs; j++)
            CHECK_STR(a->args[j], b->args[j]);
    }
    CHECK_STR(t2.events[1].args[0], "odd arg");
    CHECK_STR(t2.events[1].args[1], "with \"quotes\"");
    CHECK_STR(t2.events[2].args[0], "#x");
    CHECK_STR(t2.events[2].args[1], "--");
    CHECK_STR(t2.events[3].text, "free text # not a comment here");
    CHECK_STR(arb_setup_option(t2.open.setup, "owners"),
              "a a a a b b b b c c c c");
    /* Found by fuzz_transcript: an empty quoted word ("") used to join
     * as a double space, which the next reading folded into one. */
    CHECK_STR(arb_setup_option(t1.open.setup, "venue"), "Hall B");
    CHECK_STR(t1.events[4].text, "reason with words");
    /* ... and a note's text starting with a CR (blank like a space) */
    {
        arb_history_t    t3;
        CHECK_INT(parse(&t3, "game: yahchain\nmatch: x\nplayers: a\n"
                             "note\t\r\t text\r\n"), 0);
        CHECK(t3.nevents == 1 && !strcmp(t3.events[0].text, "text"));
        arb_history_clear(&t3);
    }
    /* Printable text only: a control character anywhere in a line, or a
     * tab or CR within quotes, is refused with its line (until
     * 2026-12-05 a note could carry an escape sequence). */
    {
        arb_history_t t4;
        arb_buf_t     why = ARB_BUF_INIT;
        const char   *esc = "game: yahchain\nmatch: x\nplayers: a\n"
                            "note hi \x1b[2J\n";
        const char   *tab = "game: yahchain\nmatch: x\nplayers: a\n"
                            "note \"a\tb\"\n";
        const char   *opt = "game: yahchain\nmatch: x\nplayers: a\n"
                            "venue: \"a\rb\"\nnote x\n";
        const char   *bad = "game: yahchain\nmatch: x\nplayers: a\n"
                            "place a 4\xff\n";

        CHECK_INT(arb_transcript_parse(&t4, esc, strlen(esc), &why),
                  ARB_EINVAL);
        CHECK_STR(arb_buf_cstr(&why), "line 4: a control character "
                  "(U+001B) in column 9");
        why.len = 0;
        CHECK_INT(arb_transcript_parse(&t4, tab, strlen(tab), &why),
                  ARB_EINVAL);
        /* (a note that is one quoted word holds what the quotes hold:
         * the tab is its byte 1) */
        CHECK_STR(arb_buf_cstr(&why), "line 4: text: a control character "
                  "(U+0009) at byte 1: a record holds printable text only");
        why.len = 0;
        CHECK_INT(arb_transcript_parse(&t4, opt, strlen(opt), &why),
                  ARB_EINVAL);
        CHECK(strncmp(arb_buf_cstr(&why), "line 1: options.venue: a "
                      "control character (U+000D)", 50) == 0);
        why.len = 0;
        CHECK_INT(arb_transcript_parse(&t4, bad, strlen(bad), &why),
                  ARB_EINVAL);
        CHECK_STR(arb_buf_cstr(&why), "line 4: invalid UTF-8 in column 10");
        why.len = 0;
        esc = "game: yahchain\nmatch: x\nplayers: a\nvoid 0 -- r\n";
        CHECK_INT(arb_transcript_parse(&t4, esc, strlen(esc), &why),
                  ARB_EINVAL);
        CHECK_STR(arb_buf_cstr(&why), "line 4: void 0: seq 0 is the match's "
                  "header, not a move");
        /* a claim line is held to what the recorder could store (until
         * 2026-12-05 replay took a claim no recorder would record) */
        {
            static char big[6000];
            int         k;

            k = snprintf(big, sizeof(big), "game: yahchain\nmatch: x\n"
                         "players: a\nmode: 3\nclaim -- {\"records\":"
                         "[{\"sota\":1,\"note\":\"");
            memset(big + k, 'x', 4300);
            snprintf(big + k + 4300, sizeof(big) - (size_t)k - 4300,
                     "\"}],\"totals\":{\"a\":0}}\n");
            why.len = 0;
            CHECK_INT(arb_transcript_parse(&t4, big, strlen(big), &why),
                      ARB_EINVAL);
            CHECK(strncmp(arb_buf_cstr(&why), "line 5: claim: record 1 is ",
                          27) == 0
                  && strstr(arb_buf_cstr(&why), "at most 4096") != NULL);
        }
        arb_buf_free(&why);
    }
    arb_history_clear(&t1);
    arb_history_clear(&t2);
    arb_buf_free(&f1);
    arb_buf_free(&f2);
}

static void
test_errors(void)
{
    arb_history_t    t;
    static const struct { const char *text, *want; } cases[] = {
        { "match: x\nplayers: a\nplace a 4S\n",
          "line 3: the header must name the game (game: yahchain)" },
        { "game: yahchain\nplayers: a\n",
          "line 2: the header must name the match (match: <id>)" },
        { "game: yahchain\nmatch: x\nplayers: a\nplace a 4S\nmode: 3\n",
          "line 5: header 'mode' after the first event: headers come first" },
        { "game: yahchain\nmatch: x\nplayers: a\n2. place a 4S\n",
          "line 4: event numbered 2 but it is event 1" },
        { "game: yahchain\nmatch: x\nplayers: a\nplace a \"4S\n",
          "line 4: unterminated quoted text" },
        { "game: yahchain\nmatch: x\nplayers: a\nvoid 1\n",
          "line 4: void is an arbiter's ruling and needs a reason: ... -- "
          "<reason>" },
        { "game: yahchain\nmatch: x\nplayers: a\nvoid x -- r\n",
          "line 4: void needs the seq of the move it rules on: void <seq> "
          "... -- <reason>" },
        { "game: yahchain\nmatch: x\nplayers: a\nplace a 4S -- why\n",
          "line 4: a move takes no reason ('--'); use a note or a ruling" },
        { "game: yahchain\nmatch: x\nplayers: a a\n",
          "line 3: player 'a' listed twice" },
        { "game: yahchain\nmatch: x y\n",
          "line 2: header 'match' takes one word" },
        { "game: yahchain\nmatch: x\nplayers: a\nmode: 3\nmode: 4\n",
          "line 5: header 'mode' given twice" },
        { "game: yahchain\nmatch: x\nplayers: a\ndeal: shuffle\n",
          "line 4: deal must be 'none', 'seed <text>', 'order <cards...>' or "
          "'commit <64 hex digits>'" },
        { "game: yahchain\nmatch: x\nplayers: a\nplace\n",
          "line 4: a move is '<verb> <player> <arguments...>'" },
        { "game: yahchain\nmatch: x\nplayers: a b!\n",
          "line 3: player name 'b!' must be 1..64 of A-Z a-z 0-9 _ . @ + -" },
        { "game: yahchain\nmatch: x\nteams: red\nplayers: a\n",
          "line 4: player 'a' needs a team: write a:<team>" },
        /* Found by fuzz_transcript: accepted, it exported a transcript
         * that did not import (teams first, players without one). */
        { "game: yahchain\nmatch: x\nplayers: a\nvenue: \"\" \"\"\n",
          "line 4: header 'venue' has no value" },
        { "game: yahchain\nmatch: x\nedition: \"\"\nplayers: a\n",
          "line 3: header 'edition' has no value" },
        { "game: yahchain\nmatch: x\nplayers: a\nteams: red\n",
          "line 4: header 'teams' must come before 'players'" },
        { "", "line 0: no header: a transcript starts with 'game: <name>'" },
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        CHECK_INT(parse(&t, cases[i].text), ARB_EINVAL);
        CHECK_STR(err, cases[i].want);
    }
    /* a NUL byte is named too */
    {
        arb_buf_t why = ARB_BUF_INIT;
        CHECK_INT(arb_transcript_parse(&t, "game: y\0ahchain\n", 16, &why),
                  ARB_EINVAL);
        CHECK_STR(arb_buf_cstr(&why), "line 1: NUL byte in the text");
        arb_buf_free(&why);
    }
}

static void
test_teams_and_deal(void)
{
    arb_history_t    t;
    arb_buf_t        f = ARB_BUF_INIT;

    CHECK_INT(parse(&t, "game: chains\nmatch: c1\nteams: long short\n"
                        "players: ann:long bob:short cy:long dee:short\n"
                        "deal: order 7H 8S 9D\n"), 0);
    CHECK_INT(t.open.setup->nteams, 2);
    CHECK_INT(t.open.setup->players[1].team, 1);
    CHECK_INT(t.open.setup->deal.kind, ARB_DEAL_ORDER);
    CHECK_INT(t.open.setup->deal.ncards, 3);
    arb_transcript_format(&f, &t.open, t.events, t.nevents);
    CHECK(strstr(arb_buf_cstr(&f), "players: ann:long bob:short") != NULL);
    CHECK(strstr(arb_buf_cstr(&f), "deal: order 7H 8S 9D") != NULL);
    arb_history_clear(&t);
    arb_buf_free(&f);
    CHECK_INT(parse(&t, "game: x\nmatch: c1\nplayers: a\ndeal: seed s3cr3t\n"),
              0);
    CHECK_INT(t.open.setup->deal.kind, ARB_DEAL_SEED);
    CHECK_STR(t.open.setup->deal.seed, "s3cr3t");
    arb_history_clear(&t);
}

/* Options named as headers: a tournament's `game` and `deal` (and one
 * whose own name begins with the prefix) are written `option.KEY:` and
 * read back as the same options, every other option bare.  Before
 * 2026-12-05 the writer wrote `game:` twice, which did not read back. */
static void
test_header_named_options(void)
{
    arb_history_t t, t2;
    arb_buf_t     f = ARB_BUF_INIT, f2 = ARB_BUF_INIT;
    const char   *text;

    CHECK_INT(parse(&t, "game: tournament\nmatch: Cup\nplayers: director\n"
                        "option.game: yahchain\noption.deal: seed\n"
                        "game.mode: 3\noption.option.x: y\n"
                        "standings: mp\n"), 0);
    CHECK_STR(t.open.setup->game, "tournament");
    CHECK_STR(arb_setup_option(t.open.setup, "game"), "yahchain");
    CHECK_STR(arb_setup_option(t.open.setup, "deal"), "seed");
    CHECK_STR(arb_setup_option(t.open.setup, "game.mode"), "3");
    CHECK_STR(arb_setup_option(t.open.setup, "option.x"), "y");
    CHECK_INT(t.open.setup->deal.kind, ARB_DEAL_NONE);
    CHECK_INT(arb_transcript_format(&f, &t.open, t.events, t.nevents), 0);
    text = arb_buf_cstr(&f);
    CHECK(strstr(text, "\noption.game: yahchain\n") != NULL);
    CHECK(strstr(text, "\noption.deal: seed\n") != NULL);
    CHECK(strstr(text, "\ngame.mode: 3\n") != NULL);
    CHECK(strstr(text, "\noption.option.x: y\n") != NULL);
    CHECK(strstr(text, "\nstandings: mp\n") != NULL);
    CHECK_INT(parse(&t2, text), 0);
    CHECK_INT(arb_transcript_format(&f2, &t2.open, t2.events, t2.nevents),
              0);
    CHECK_STR(arb_buf_cstr(&f2), text);
    arb_history_clear(&t2);
    CHECK(parse(&t2, "game: x\nmatch: m\nplayers: a\noption.: 1\n") != 0);
    arb_history_clear(&t2);
    CHECK(parse(&t2, "game: x\nmatch: m\nplayers: a\nmode: 1\n"
                     "option.mode: 2\n") != 0);
    arb_history_clear(&t2);
    arb_history_clear(&t);
    arb_buf_free(&f);
    arb_buf_free(&f2);
}

/* A word of the characters the lexer treats specially: blanks, quotes,
 * backslashes, '#', '-' (for "--") and ':'; never empty.  No tab or CR:
 * blanks between words, a record holds neither (core/text.h). */
static void
rand_word(char *w, size_t cap, unsigned *seed)
{
    static const char set[] = "ab -\"\\#:z";
    size_t            i, n;

    *seed = *seed * 1103515245u + 12345u;
    n = 1 + (*seed >> 16) % (cap - 1 < 12 ? cap - 1 : 12);
    for (i = 0; i < n; i++) {
        *seed = *seed * 1103515245u + 12345u;
        w[i] = set[(*seed >> 16) % (sizeof(set) - 1)];
    }
    w[n] = '\0';
}

/* Property: whatever text a header value, an option key, a deal seed, a
 * move argument or a ruling's reason holds (newlines aside: the format
 * folds them), format then parse gives it back unchanged. */
static void
test_quoted_round_trip(void)
{
    unsigned        seed = 12;
    int             round, bad = 0;

    for (round = 0; round < 2000 && bad < 5; round++) {
        arb_setup_t     s;
        arb_event_t     open, ev[2];
        arb_history_t   t;
        arb_buf_t       f = ARB_BUF_INIT, why = ARB_BUF_INIT;
        char            ed[16], en[16], key[20], val[16], dseed[16];
        char            arg[16], reason[16];
        int             rc, ok;

        memset(&s, 0, sizeof(s));
        memset(&open, 0, sizeof(open));
        memset(ev, 0, sizeof(ev));
        rand_word(ed, sizeof(ed), &seed);
        rand_word(en, sizeof(en), &seed);
        key[0] = 'k';           /* never a key the header reserves */
        rand_word(key + 1, sizeof(key) - 1, &seed);
        rand_word(val, sizeof(val), &seed);
        rand_word(dseed, sizeof(dseed), &seed);
        rand_word(arg, sizeof(arg), &seed);
        rand_word(reason, sizeof(reason), &seed);
        s.game = strdup("yahchain");
        s.match_id = strdup("m1");
        s.edition = strdup(ed);
        s.engine = strdup(en);
        CHECK(arb_setup_add_player(&s, "alice", -1) == 0);
        CHECK(arb_setup_set_option(&s, key, val) == 0);
        s.deal.kind = ARB_DEAL_SEED;
        s.deal.seed = strdup(dseed);
        open.kind = ARB_EV_OPEN;
        open.setup = &s;
        ev[0].kind = ARB_EV_MOVE;
        ev[0].verb = strdup("place");
        ev[0].player = strdup("alice");
        CHECK(arb_event_add_arg(&ev[0], arg) == 0);
        ev[1].kind = ARB_EV_VOID;
        ev[1].target = 1;
        ev[1].text = strdup(reason);
        CHECK(arb_transcript_format(&f, &open, ev, 2) == 0);

        rc = arb_transcript_parse(&t, f.data, f.len, &why);
        ok = rc == 0 && t.nevents == 2
             && strcmp(t.open.setup->edition, ed) == 0
             && strcmp(t.open.setup->engine, en) == 0
             && t.open.setup->noptions == 1
             && strcmp(t.open.setup->options[0].key, key) == 0
             && strcmp(t.open.setup->options[0].value, val) == 0
             && t.open.setup->deal.kind == ARB_DEAL_SEED
             && strcmp(t.open.setup->deal.seed, dseed) == 0
             && t.events[0].nargs == 1
             && strcmp(t.events[0].args[0], arg) == 0
             && t.events[1].text != NULL
             && strcmp(t.events[1].text, reason) == 0;
        if (!ok) {
            bad++;
            fprintf(stderr, "round trip lost a value (%s):\n%s\n",
                    rc ? arb_buf_cstr(&why) : "parsed", arb_buf_cstr(&f));
        }
        if (rc == 0)
            arb_history_clear(&t);
        arb_setup_clear(&s);
        arb_event_clear(&ev[0]);
        arb_event_clear(&ev[1]);
        arb_buf_free(&f);
        arb_buf_free(&why);
    }
    CHECK_INT(bad, 0);
}

/* The limits count what was written, so a line at the limits still reads
 * once it is numbered and its words quoted (found by fuzz_transcript). */
static void
test_limits_round_trip(void)
{
    arb_history_t t, t2;
    arb_buf_t     text = ARB_BUF_INIT, f = ARB_BUF_INIT;
    int           i;

    /* 288 words, unnumbered: written back numbered, 289 words. */
    arb_buf_puts(&text, "game: x\nmatch: m\nplayers: a\n\nplace a");
    for (i = 0; i < 286; i++)
        arb_buf_puts(&text, " w");
    arb_buf_puts(&text, "\n");
    /* 4000 bytes of text that quoting doubles. */
    arb_buf_puts(&text, "place a x");
    for (i = 0; i < 3999; i++)
        arb_buf_putc(&text, '"' + (i % 2) * ('\\' - '"'));
    arb_buf_puts(&text, "\n");
    CHECK_INT(parse(&t, arb_buf_cstr(&text)), 0);
    CHECK_STR(err, "");
    CHECK_INT(t.nevents, 2);
    if (t.nevents == 2) {
        CHECK_INT(t.events[0].nargs, 286);
        CHECK_INT(arb_transcript_format(&f, &t.open, t.events, t.nevents), 0);
        CHECK_INT(parse(&t2, arb_buf_cstr(&f)), 0);
        CHECK_INT(t2.nevents, 2);
        if (t2.nevents == 2)
            CHECK_STR(t2.events[1].args[0], t.events[1].args[0]);
        arb_history_clear(&t2);
    }
    arb_history_clear(&t);
    /* One word more is refused, numbered or not. */
    arb_buf_free(&text);
    arb_buf_puts(&text, "game: x\nmatch: m\nplayers: a\n\n1. place a");
    for (i = 0; i < 287; i++)
        arb_buf_puts(&text, " w");
    CHECK(parse(&t, arb_buf_cstr(&text)) != 0);
    CHECK(strstr(err, "more than 288 words") != NULL);
    arb_buf_free(&text);
    arb_buf_free(&f);
}

/* A close's revealed order is read as words joined by single blanks; a
 * word holding a blank, a quote or nothing at all must come back the
 * same from the written transcript (found by fuzz_transcript: `" "` in
 * the order was written bare, and its blank was lost on reading back). */
static void
test_close_order_round_trip(void)
{
    static const char *const orders[] = {
        "close order 2S 3S \" \" 4S\n",        /* a word that is a blank */
        "close order K\" \"\" x\n",           /* quotes inside a word */
        "close order \"#7\" 8S\n",             /* a leading '#' */
        "close order 2S 3S 4S\n",                /* plain cards: as words */
    };
    static const char *const head =
        "game: yahchain\nmatch: C1\nplayers: alice bob\n\n"
        "1. place alice 2S\n2. ";
    arb_history_t t1, t2;
    arb_buf_t     text = ARB_BUF_INIT, f1 = ARB_BUF_INIT, f2 = ARB_BUF_INIT;
    size_t        i;

    for (i = 0; i < sizeof(orders) / sizeof(orders[0]); i++) {
        text.len = f1.len = f2.len = 0;
        arb_buf_puts(&text, head);
        arb_buf_puts(&text, orders[i]);
        CHECK_INT(parse(&t1, arb_buf_cstr(&text)), 0);
        CHECK_INT(arb_transcript_format(&f1, &t1.open, t1.events, t1.nevents),
                  0);
        CHECK_INT(parse(&t2, arb_buf_cstr(&f1)), 0);
        CHECK_INT(arb_transcript_format(&f2, &t2.open, t2.events, t2.nevents),
                  0);
        CHECK_STR(arb_buf_cstr(&f2), arb_buf_cstr(&f1));
        if (t1.nevents == 2 && t2.nevents == 2 && t1.events[1].nargs == 2
            && t2.events[1].nargs == 2)
            CHECK_STR(t2.events[1].args[1], t1.events[1].args[1]);
        else
            CHECK(0);
        arb_history_clear(&t1);
        arb_history_clear(&t2);
    }
    /* Plain cards stay plain words. */
    CHECK(strstr(arb_buf_cstr(&f1), "2. close order 2S 3S 4S\n") != NULL);
    /* name:team is one word, quoted as one (found by fuzz_transcript:
     * the player "--" of a team was written `"--":s`, which does not
     * read). */
    {
        static const char *const teamed[] = {
            "game: yahchain\nmatch: C1\nteams: s x\n"
            "players: \"--:s\" bob:x\n\n1. place bob 2S\n",
            "game: yahchain\nmatch: C1\nteams: \"--\" x\n"
            "players: --:-- bob:x\n\n1. place bob 2S\n",
        };
        for (i = 0; i < sizeof(teamed) / sizeof(teamed[0]); i++) {
            f1.len = f2.len = 0;
            CHECK_INT(parse(&t1, teamed[i]), 0);
            CHECK_INT(arb_transcript_format(&f1, &t1.open, t1.events,
                                            t1.nevents), 0);
            CHECK_INT(parse(&t2, arb_buf_cstr(&f1)), 0);
            CHECK_INT(arb_transcript_format(&f2, &t2.open, t2.events,
                                            t2.nevents), 0);
            CHECK_STR(arb_buf_cstr(&f2), arb_buf_cstr(&f1));
            arb_history_clear(&t1);
            arb_history_clear(&t2);
        }
        CHECK(strstr(arb_buf_cstr(&f1), "players: --:-- bob:x\n") != NULL);
    }
    arb_buf_free(&text);
    arb_buf_free(&f1);
    arb_buf_free(&f2);
}

/* Every text the recorder takes reads back the same through a written
 * transcript: notes with a lone quote, a leading quote, blanks at their
 * ends, 64 words or more; reasons of many words; an amend's and a
 * stands' reason of 4096 bytes (until 2026-12-06 each of these changed
 * or made the whole transcript unreadable). */
static void
test_text_round_trip(void)
{
    static const char head[] = "game: yahchain\nmatch: m\nplayers: a b\n"
                               "mode: 3\n\n1. place a 4S\n";
    arb_history_t t, t2;
    arb_buf_t     f = ARB_BUF_INIT, big = ARB_BUF_INIT, many = ARB_BUF_INIT;
    arb_event_t   ev[8];
    const char   *notes[] = { "a \"dangling quote", "\"lead\" quote",
                              "  two blanks each side  ", "\"", "" };
    size_t        i, n = 0;

    CHECK_INT(parse(&t, head), 0);
    if (t.nevents != 1)
        return;
    for (i = 0; i < 100; i++)
        arb_buf_puts(&many, i ? " w" : "w");
    for (i = 0; i < 4096; i++)
        arb_buf_putc(&big, 'r');
    /* (the texts as C strings) */
    if (arb_buf_cstr(&many) == NULL || arb_buf_cstr(&big) == NULL)
        return;
    memset(ev, 0, sizeof(ev));
    ev[n++] = t.events[0];
    for (i = 0; i < sizeof(notes) / sizeof(notes[0]); i++) {
        ev[n].kind = ARB_EV_NOTE;
        ev[n++].text = (char *)notes[i];
    }
    ev[n].kind = ARB_EV_NOTE;
    ev[n++].text = many.data;
    CHECK_INT(arb_transcript_format(&f, &t.open, ev, n), 0);
    CHECK_INT(parse(&t2, arb_buf_cstr(&f)), 0);
    CHECK_STR(err, "");
    CHECK_INT(t2.nevents, n);
    for (i = 1; i < n && i < t2.nevents; i++)
        CHECK_STR(t2.events[i].text, ev[i].text);
    arb_history_clear(&t2);
    /* rulings: a reason of 100 words, a 4096-byte one after a move */
    {
        arb_event_t r[4];
        char       *args[2] = { "5S", NULL };

        memset(r, 0, sizeof(r));
        r[0] = t.events[0];
        r[1].kind = ARB_EV_VOID;
        r[1].target = 1;
        r[1].text = many.data;
        r[2].kind = ARB_EV_STANDS;
        r[2].player = "b";
        r[2].verb = "place";
        r[2].nargs = 1;
        r[2].args = args;
        r[2].text = big.data;
        r[3].kind = ARB_EV_NOTE;
        r[3].text = big.data;
        f.len = 0;
        CHECK_INT(arb_transcript_format(&f, &t.open, r, 4), 0);
        CHECK_INT(parse(&t2, arb_buf_cstr(&f)), 0);
        CHECK_STR(err, "");
        CHECK_INT(t2.nevents, 4);
        for (i = 1; i < 4 && i < t2.nevents; i++)
            CHECK_STR(t2.events[i].text, r[i].text);
        arb_history_clear(&t2);
    }
    /* a note past what an event holds is refused, naming it */
    arb_buf_free(&f);
    arb_buf_printf(&f, "%snote %sx\n", head, big.data);
    CHECK(parse(&t2, arb_buf_cstr(&f)) != 0);
    CHECK(strstr(err, "a note holds at most 4096 bytes") != NULL);
    arb_history_clear(&t);
    arb_buf_free(&f);
    arb_buf_free(&big);
    arb_buf_free(&many);
}

int
main(void)
{
    test_parse();
    test_text_round_trip();
    test_round_trip();
    test_errors();
    test_teams_and_deal();
    test_header_named_options();
    test_quoted_round_trip();
    test_limits_round_trip();
    test_close_order_round_trip();
    return TEST_END();
}
