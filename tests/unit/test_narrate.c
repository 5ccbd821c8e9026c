/*
 * test_narrate.c - a match in words (core/narrate.h) for each of the four
 * games: YAHchain's own narration, and the generic words the other rule
 * sets get from results() and describe().  The words are the console's
 * (`arbiter record`), so a change here is a change on every screen.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/narrate.h"
#include "tests/replay_text.h"
#include "tests/test.h"

/* The words of every narration function for the match after event `at`
 * of a transcript, and for the move `mv` (player, verb, one argument). */
typedef struct words {
    char move[200], record[300], effect[200], prompt[200], header[200],
         line[300], screen[300], spelt[64];
    const char *bare;
} words_t;

static void
take(char *dst, size_t n, arb_buf_t *b)
{
    snprintf(dst, n, "%s", b->len > 0 ? arb_buf_cstr(b) : "");
    b->len = 0;
}

static int
narrate(words_t *w, const char *text, uint64_t at, const char *player,
        const char *verb, const char *arg)
{
    const arb_rules_t *r;
    arb_match_t       *m = replay_text(text, at);
    arb_results_t      res;
    arb_event_t        ev;
    arb_buf_t          b = ARB_BUF_INIT;
    json_t            *pos = NULL;
    char              *args[1], spelt[64];

    memset(w, 0, sizeof(*w));
    if (m == NULL)
        return -1;
    r = arb_match_rules(m);
    arb_match_describe(m, &b);
    CHECK_INT(arb_json_parse(&pos, b.data, b.len, NULL), 0);
    b.len = 0;
    memset(&ev, 0, sizeof(ev));
    args[0] = (char *)arg;
    ev.kind = ARB_EV_MOVE;
    ev.player = (char *)player;
    ev.verb = (char *)verb;
    ev.args = args;
    ev.nargs = 1;
    arb_narrate_move(&b, r, &ev);
    take(w->move, sizeof(w->move), &b);
    if (arb_match_results(m, &res) == 0) {
        if (res.nrecords > 0)
            arb_narrate_record(&b, r, &res.records[res.nrecords - 1]);
        take(w->record, sizeof(w->record), &b);
        arb_results_clear(&res);
    }
    arb_narrate_effect(&b, r, pos, NULL, &ev);
    take(w->effect, sizeof(w->effect), &b);
    arb_narrate_prompt(&b, r, pos);
    take(w->prompt, sizeof(w->prompt), &b);
    arb_narrate_header(&b, r, pos);
    take(w->header, sizeof(w->header), &b);
    arb_narrate_position(&b, r, pos, 0);
    take(w->line, sizeof(w->line), &b);
    arb_narrate_position(&b, r, pos, 1);
    take(w->screen, sizeof(w->screen), &b);
    w->bare = arb_narrate_bare_verb(r);
    snprintf(w->spelt, sizeof(w->spelt), "%s",
             arb_narrate_spell_arg(r, verb, 0, arg, spelt, sizeof(spelt)));
    json_decref(pos);
    arb_buf_free(&b);
    arb_match_free(m);
    return 0;
}

static void
test_yahchain(void)
{
    char   *text = slurp("tests/data/yah3-short.txt");
    words_t w;

    CHECK(text != NULL);
    if (text == NULL)
        return;
    /* After Sota 1 and one card of Sota 2. */
    CHECK_INT(narrate(&w, text, 4, "alice", "place", "7h"), 0);
    CHECK_STR(w.move, "alice placed 7♥");
    CHECK_STR(w.record, "Sota 1 complete: 4♠→5♥→6♦ BC-001 Ladder 15+6 = 21 "
              "for alice");
    CHECK_STR(w.effect, "");                /* Sota 2 is not full */
    CHECK_STR(w.prompt, " | Sota 2 [7♠]");
    CHECK_STR(w.header, ", cycle 1 of 1, 140 cards left");
    CHECK_STR(w.line, "Sota 2 [7♠]; turn alice");
    CHECK_STR(w.screen, "Sota 2 (bob's) [7♠]; alice to play");
    CHECK_STR(w.bare, "place");
    CHECK_STR(w.spelt, "7♥");
    /* A move that is no placement keeps its verb. */
    CHECK_INT(narrate(&w, text, 4, "alice", "pass", "x"), 0);
    CHECK_STR(w.move, "alice pass x");
    CHECK_STR(w.spelt, "x");                /* no card: as written */
    /* Sota 2 holds two cards: a third that makes no category voids it
     * (the console narrates it from the position before the move). */
    CHECK_INT(narrate(&w, text, 5, "bob", "place", "KD"), 0);
    CHECK_STR(w.effect, "; Sota 2 void: 7♠→7♥→K♦: no category, no points");
    CHECK_STR(w.prompt, " | Sota 2 [7♠ 7♥]");
    /* Before any card: Sota 1 is empty and nothing is recorded. */
    CHECK_INT(narrate(&w, text, 0, "alice", "place", "4S"), 0);
    CHECK_STR(w.record, "");
    CHECK_STR(w.prompt, " | Sota 1 []");
    CHECK_STR(w.line, "Sota 1 []; turn alice");
    free(text);
    /* Modes 4 and 5 name their categories from their own table (§34.7,
     * §34.8): the code BC4-005 is the four-card Vertex. */
    CHECK_INT(narrate(&w, "game: yahchain\nmatch: n4\nplayers: alice bob\n"
                      "mode: 4\n\n1. place alice 10S\n2. place bob JS\n"
                      "3. place alice QS\n4. place bob KS\n", 4, "alice",
                      "place", "2h"), 0);
    CHECK_STR(w.record, "Sota 1 complete: 10♠→J♠→Q♠→K♠ BC4-005 Vertex "
              "46+32 = 78 for alice");
    CHECK_INT(narrate(&w, "game: yahchain\nmatch: n5\nplayers: alice bob\n"
                      "mode: 5\n\n1. place alice 4S\n2. place bob 7H\n"
                      "3. place alice 9D\n4. place bob 7C\n"
                      "5. place alice 4U\n", 5, "bob", "place", "2h"), 0);
    CHECK_STR(w.record, "Sota 1 complete: 4♠→7♥→9♦→7♣→4☀ BC5-004 Mirror "
              "31+25 = 56 for alice");
}

/* The generic words: another game's narration comes from results() and
 * describe() alone. */
static void
test_generic(const char *path, uint64_t at, const char *player,
             const char *verb, const char *arg, const char *spelt,
             const char *bare, const char *move, const char *record,
             const char *line, const char *screen)
{
    char   *text = slurp(path);
    words_t w;

    CHECK(text != NULL);
    if (text == NULL)
        return;
    CHECK_INT(narrate(&w, text, at, player, verb, arg), 0);
    CHECK_STR(w.move, move);
    CHECK_STR(w.record, record);
    CHECK_STR(w.effect, "");
    CHECK_STR(w.prompt, "");
    CHECK_STR(w.header, "");
    CHECK_STR(w.line, line);
    CHECK_STR(w.screen, screen);
    CHECK(bare != NULL ? w.bare != NULL && strcmp(w.bare, bare) == 0
                       : w.bare == NULL);
    CHECK_STR(w.spelt, spelt);
    free(text);
}

/* The effect of event `at` of transcript `path`, a move by `player`
 * with `verb` and no argument, between the positions before and after it
 * as a viewer of seats `seen` sees them. */
static void
effect_of(char *out, size_t n, const char *path, uint64_t at,
          const char *player, const char *verb, unsigned seen)
{
    char        *text = slurp(path);
    arb_match_t *m0 = text ? replay_text(text, at - 1) : NULL;
    arb_match_t *m1 = text ? replay_text(text, at) : NULL;
    json_t      *before, *after;
    arb_event_t  ev;
    arb_buf_t    b = ARB_BUF_INIT;

    *out = '\0';
    if (m0 == NULL || m1 == NULL)
        goto done;
    before = arb_match_describe_value(m0, seen);
    after = arb_match_describe_value(m1, seen);
    memset(&ev, 0, sizeof(ev));
    ev.kind = ARB_EV_MOVE;
    ev.player = (char *)player;
    ev.verb = (char *)verb;
    arb_narrate_effect(&b, arb_match_rules(m1), before, after, &ev);
    take(out, n, &b);
    json_decref(before);
    json_decref(after);
done:
    arb_match_free(m0);
    arb_match_free(m1);
    free(text);
    arb_buf_free(&b);
}

/* What a draw took from the deal, said at the console (until 2026-12-06
 * only "ok seq N"): the card a Chắn draw turned up, to everyone; the chip
 * a Tsukurutenten draw took, only to a viewer who sees the drawer's
 * hand. */
static void
test_draw_effects(void)
{
    char got[200];

    effect_of(got, sizeof(got), "tests/data/chan-draw.txt", 2, "binh",
              "draw", 0);
    CHECK_STR(got, "; binh flips 6V");
    effect_of(got, sizeof(got), "tests/data/chan-draw.txt", 3, "binh",
              "pass", 0);
    CHECK_STR(got, "");
    effect_of(got, sizeof(got), "tests/data/tsuku-simple.txt", 1, "ann",
              "draw", ~0u);
    CHECK_STR(got, "; ann draws B2");
    effect_of(got, sizeof(got), "tests/data/tsuku-simple.txt", 1, "ann",
              "draw", 1u << 0);
    CHECK_STR(got, "; ann draws B2");
    effect_of(got, sizeof(got), "tests/data/tsuku-simple.txt", 1, "ann",
              "draw", 1u << 1);                 /* bob sees no chip */
    CHECK_STR(got, "");
    effect_of(got, sizeof(got), "tests/data/tsuku-simple.txt", 1, "ann",
              "draw", 0);
    CHECK_STR(got, "");
}

/* Why a YAHchain Sota was voided: a card let stand (a category all the
 * same), or its sequence (until 2026-12-06 both "no category"). */
static void
test_void_reason(void)
{
    char  got[300];
    char *args[1] = { "6D" };
    char *text = slurp("tests/data/yah3-stands-void.txt");
    arb_match_t *m0 = text ? replay_text(text, 2) : NULL;
    arb_match_t *m1 = text ? replay_text(text, 5) : NULL;
    json_t      *pos;
    arb_event_t  ev;
    arb_buf_t    b = ARB_BUF_INIT;
    int          k;

    CHECK(m0 != NULL && m1 != NULL);
    if (m0 == NULL || m1 == NULL)
        goto done;
    memset(&ev, 0, sizeof(ev));
    ev.kind = ARB_EV_MOVE;
    ev.player = "bob";
    ev.verb = "place";
    ev.args = args;
    ev.nargs = 1;
    pos = arb_match_describe_value(m0, 0);
    arb_narrate_effect(&b, arb_match_rules(m0), pos, NULL, &ev);
    take(got, sizeof(got), &b);
    CHECK_STR(got, "; Sota 1 void: 4♠→5♥→6♦: it holds a card let stand "
              "against §34.11 (out of turn, in a Sota not active, or played "
              "before): no points");
    json_decref(pos);
    args[0] = "KD";
    ev.player = "ann";
    pos = arb_match_describe_value(m1, 0);
    arb_narrate_effect(&b, arb_match_rules(m1), pos, NULL, &ev);
    take(got, sizeof(got), &b);
    CHECK_STR(got, "; Sota 2 void: 2♥→9♣→K♦: no category, no points");
    json_decref(pos);
    /* a card played before, let stand, is no category either (the
     * classifier refuses the sequence): the card is named as the cause;
     * and so when the ruling that lets it stand is what fills the Sota
     * (until 2026-12-07 a `stands` said nothing of the void) */
    args[0] = "4S";
    ev.player = "bob";
    for (k = 0; k < 2; k++) {
        ev.kind = k == 0 ? ARB_EV_MOVE : ARB_EV_STANDS;
        pos = arb_match_describe_value(m0, 0);
        arb_narrate_effect(&b, arb_match_rules(m0), pos, NULL, &ev);
        take(got, sizeof(got), &b);
        CHECK_STR(got, "; Sota 1 void: 4♠→5♥→4♠: it holds a card let "
                  "stand against §34.11 (out of turn, in a Sota not "
                  "active, or played before): no points");
        json_decref(pos);
    }
done:
    arb_match_free(m0);
    arb_match_free(m1);
    free(text);
    arb_buf_free(&b);
}

/* One card, one cell, one chip: one spelling in the log, whatever was
 * typed (until 2026-12-06 only YAHchain respelled a card; the other games
 * recorded what was typed: "9Б r-0c1", "3v", "b4"). */
static void
test_spelling(void)
{
    static const struct {
        const char *game, *verb;
        size_t      i;
        const char *arg, *want;
    } t[] = {
        { "yahchain", "place", 0, "4s", "4♠" },
        { "chains", "place", 0, "8s", "8♠" },
        { "chains", "place", 0, "9Б", "9♦" },
        { "chains", "place", 0, "7К", "7♣" },
        { "chains", "place", 0, "10h", "10♥" },
        { "chains", "place", 1, "R0C0", "r0c0" },
        { "chains", "place", 1, "r-0c1", "r0c1" },
        { "chains", "place", 1, "r00c-1", "r0c-1" },
        { "chains", "place", 1, "r+1c0", "r1c0" },
        { "chains", "place", 1, "x9", "x9" },       /* no cell: as typed */
        { "chains", "pass", 0, "8s", "8s" },
        { "chan", "discard", 0, "3v", "3V" },
        { "chan", "take", 1, "cc", "CC" },
        { "chan", "declare", 0, "win", "win" },
        { "tsukurutenten", "draw", 0, "b4", "B4" },
        { "tsukurutenten", "take", 0, "p7B", "P7b" },
        { "tsukurutenten", "finish", 0, "b1b2r0", "B1B2R0" },
        { "tsukurutenten", "finish", 0, "zz", "zz" },
    };
    char   out[64];
    size_t k;

    for (k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
        const char *got = arb_narrate_spell_arg(arb_rules_find(t[k].game),
                                                t[k].verb, t[k].i, t[k].arg,
                                                out, sizeof(out));
        CHECK_STR(got, t[k].want);
    }
}

int
main(void)
{
    test_yahchain();
    test_spelling();
    test_draw_effects();
    test_void_reason();
    test_generic("tests/data/chains-1v1-36-square.txt", 3, "ann", "place",
                 "6s", "6♠", "place", "ann place 6s",
                 "result of seq 2: scoring square team short direction "
                 "vertical cells r-1c0,r0c0 cards 6♠,7♣ length 2 points 4 "
                 "status pending",
                 "game chains; deck 36; scoring square; rectangle 6×6; turn "
                 "bob; turn_hand 2; finished no; top_left r-1c-1; rows 2; "
                 "cols 2; rows_fixed no; cols_fixed no",
                 "position; deck 36; scoring square; rectangle 6×6; turn "
                 "bob; turn_hand 2; finished no; top_left r-1c-1; rows 2; "
                 "cols 2; rows_fixed no; cols_fixed no");
    test_generic("tests/data/tsuku-simple.txt", 3, "ann", "take", "B1",
                 "B1", NULL, "ann take B1",
                 "result of seq 2: kind round round 1 dealer ann scoring "
                 "simple result win winner ann finish stock hand "
                 "B1,B2,B2,B3,R1,R4,R5,R6 sets B1+B2+B3,R4+R5+R6 singles "
                 "B2,R1 arrangement B1+B2+B3 R4+R5+R6 B2 R1 declared engine "
                 "arrangements 1 value 10 base 1 points 1 totals ann=1,bob=0 "
                 "status pending",
                 "game tsukurutenten; scoring simple; round 2; dealer bob; "
                 "turn bob; phase drawn; stock 46; rounds_played 1; finished "
                 "no",
                 "position; scoring simple; round 2; dealer bob; turn bob; "
                 "phase drawn; stock 46; rounds_played 1; finished no");
    test_generic("tests/data/chan-draw.txt", 3, "chi", "draw", "x", "x", NULL,
                 "chi draw x", "",
                 /* the card on the table too (until 2026-12-06: left
                  * out, an object) */
                 "game chan; dealer an; phase offer; turn chi; table card "
                 "6V, origin stock, from binh, gate chi; stock_left 22; "
                 "finished no",
                 "position; dealer an; phase offer; turn chi; table card 6V, "
                 "origin stock, from binh, gate chi; stock_left 22; "
                 "finished no");
    test_generic("tests/data/chan-draw.txt", UINT64_MAX, "chi", "draw", "x",
                 "x", NULL,
                 "chi draw x",
                 "result of seq 48: dealer an result draw chan 0 ca 0 red 0 "
                 "score 0 settlement an 0,binh 0,chi 0,dung 0 stock_left 0 "
                 "status pending",
                 "game chan; dealer an; phase over; stock_left 0; finished "
                 "yes; result draw yes, score 0",
                 "position; dealer an; phase over; stock_left 0; finished "
                 "yes; result draw yes, score 0");
    return TEST_END();
}
