/*
 * test_move_text.c - core/move_text.h: a typed move read for its match,
 * and what a mistyped one is told (the word that is wrong, the players).
 */
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/move_text.h"
#include "core/rules.h"
#include "tests/replay_text.h"
#include "tests/test.h"

/* The words of line read for m: 0 with the event's line in got, or the
 * code with why in got. */
static int
read_move(arb_match_t *m, const char *line, char *got, size_t cap)
{
    char        buf[1024], *w[40];
    arb_event_t ev;
    arb_buf_t   why = ARB_BUF_INIT;
    size_t      n, i;
    int         rc;

    snprintf(buf, sizeof(buf), "%s", line);
    n = arb_move_words(buf, w, 40);
    memset(&ev, 0, sizeof(ev));
    rc = arb_move_from_words(m, NULL, w, n, &ev, &why);
    if (rc == 0) {
        snprintf(got, cap, "%s %s", ev.verb, ev.player);
        for (i = 0; i < ev.nargs; i++) {
            strncat(got, " ", cap - strlen(got) - 1);
            strncat(got, ev.args[i], cap - strlen(got) - 1);
        }
    } else {
        snprintf(got, cap, "%s", arb_buf_cstr(&why));
    }
    arb_event_clear(&ev);
    arb_buf_free(&why);
    return rc;
}

/* A bare move is the move of the player whose turn it is, or of the one
 * the caller reads it for (no test failed when either was left out and
 * every bare move became the first player's; the turn is not looked up
 * when the caller names the player). */
static void
test_turn_and_as(void)
{
    char         buf[64], *w[4];
    arb_event_t  ev;
    arb_buf_t    why = ARB_BUF_INIT;
    size_t       n;
    arb_match_t *m = replay_text("game: yahchain\nmatch: Y\n"
                                 "players: alice bob\nmode: 3\n\n"
                                 "place alice 4S\n", UINT64_MAX);
    char         got[128];

    CHECK(m != NULL);
    if (m == NULL)
        return;
    CHECK_INT(read_move(m, "5H", got, sizeof(got)), 0);
    CHECK_STR(got, "place bob 5♥");
    snprintf(buf, sizeof(buf), "6D");
    n = arb_move_words(buf, w, 4);
    memset(&ev, 0, sizeof(ev));
    CHECK_INT(arb_move_from_words(m, "bob", w, n, &ev, &why), 0);
    CHECK(ev.player != NULL && strcmp(ev.player, "bob") == 0);
    arb_event_clear(&ev);
    arb_buf_free(&why);
    arb_match_free(m);
}

/* At most max words are stored, however many the text has: the caller
 * sizes its array by max (no test failed when one more was stored). */
static void
test_words_max(void)
{
    char  buf[] = "a b\tc d e";
    char *w[4], mark[] = "unset";

    w[3] = mark;
    CHECK_INT(arb_move_words(buf, w, 3), 3);
    CHECK(w[3] == mark);
    CHECK_STR(w[0], "a");
    CHECK_STR(w[2], "c");
}

int
main(void)
{
    char         got[512];
    arb_match_t *y = replay_text("game: yahchain\nmatch: Y\n"
                                 "players: alice bob\nmode: 3\n\n",
                                 UINT64_MAX);
    char        *tt = slurp("tests/data/tsuku-simple.txt");
    arb_match_t *tm = tt != NULL ? replay_text(tt, 0) : NULL;
    char        *ct = slurp("tests/data/chains-1v1-36-square.txt");
    arb_match_t *cm = ct != NULL ? replay_text(ct, 0) : NULL;
    arb_match_t *ms[3];

    CHECK(y != NULL && tm != NULL && cm != NULL);
    if (y == NULL || tm == NULL || cm == NULL)
        return TEST_END();
    ms[0] = y;
    ms[1] = tm;
    ms[2] = cm;
    static const struct {
        int         game;       /* 0 YAHchain, 1 Tsukurutenten, 2 Chains */
        const char *line;
        int         rc;
        const char *want;
    } t[] = {
        /* YAHchain: the forms that read, canonical cards */
        { 0, "4S", 0, "place alice 4♠" },
        { 0, "bob 5h @1", 0, "place bob 5♥ @1" },
        { 0, "place bob 5H", 0, "place bob 5♥" },
        /* a mistyped player is named, with the players (until
         * 2026-12-06 it was read as cards of the player to move) */
        { 0, "place carol 9S", ARB_EINVAL, "'carol' is no player of this "
          "match (the players: alice bob)" },
        { 0, "place alcie 9S", ARB_EINVAL, "'alcie' is no player of this "
          "match (the players: alice bob)" },
        /* without the verb too, and a word that is no card (until
         * 2026-12-06 both refused as cards: "type c does not exist") */
        { 0, "carol 4S", ARB_EINVAL, "'carol' is no player of this match "
          "(the players: alice bob)" },
        { 0, "State", ARB_EINVAL, "'State' is no card, nor a player of "
          "this match (the players: alice bob)" },
        { 0, "place", ARB_EINVAL, "place needs its card: place [PLAYER] "
          "CARD ..." },
        /* Tsukurutenten has no bare verb: a seated player first is told
         * to put the verb first (until then: "'ann' is no player"), and
         * a mistyped name is named, not the verb */
        { 1, "draw ann", 0, "draw ann" },
        { 1, "ann B1", ARB_EINVAL, "write the move out: VERB PLAYER "
          "ARG..., its verb first ('ann' is a player)" },
        { 1, "bob", ARB_EINVAL, "write the move out: VERB PLAYER ARG..., "
          "its verb first ('bob' is a player)" },
        { 1, "draw carol", ARB_EINVAL, "'carol' is no player of this match "
          "(the players: ann bob): write draw PLAYER ARG..." },
        /* the first wrong word is named: a verb that is none, a player
         * left out (until 2026-12-06 "foo bar" blamed bar, a bare
         * "draw" was "no player") */
        { 1, "B1", ARB_EINVAL, "'B1' is no move of tsukurutenten: write "
          "the move out, VERB PLAYER ARG... (the moves: deal draw discard "
          "take finish pass; the players: ann bob)" },
        { 1, "foo bar", ARB_EINVAL, "'foo' is no move of tsukurutenten: "
          "write the move out, VERB PLAYER ARG... (the moves: deal draw "
          "discard take finish pass; the players: ann bob)" },
        { 1, "draw", ARB_EINVAL, "draw needs its player: write draw PLAYER "
          "ARG... (the players: ann bob)" },
        { 1, "discard R5", ARB_EINVAL, "'R5' is no player of this match "
          "(the players: ann bob): write discard PLAYER ARG..." },
        /* a chip spelt as the log spells it (until 2026-12-06 as typed) */
        { 1, "discard ann r5", 0, "discard ann R5" },
        /* Chains: a placement as its card and cell, after its player or
         * written out; its other move written out (until 2026-12-06 only
         * written out: the scorer's page's taps wrote "ann 6♠ r0c0") */
        { 2, "7♣ r0c0", 0, "place ann 7♣ r0c0" },
        { 2, "ann 7c R0C0", 0, "place ann 7♣ r0c0" },
        { 2, "place bob 6s r-1c0", 0, "place bob 6♠ r-1c0" },
        { 2, "pass", ARB_EINVAL, "pass needs its player: write pass PLAYER "
          "ARG... (the players: ann bob)" },
        /* a player who is none is named (until 2026-12-06 "pass needs its
         * player", and "carol 8s r0c0" read as a card called carol) */
        { 2, "pass carol", ARB_EINVAL, "'carol' is no player of this match "
          "(the players: ann bob): write pass PLAYER ARG..." },
        { 2, "carol 8s r0c0", ARB_EINVAL, "'carol' is no player of this "
          "match (the players: ann bob)" },
        /* at most 32 arguments: a bare move of 34 words is refused here
         * (until 2026-12-06 it was read, and the HTTP write API overran
         * its array with it) */
        { 0, "2S 2S 2S 2S 2S 2S 2S 2S 2S 2S 2S 2S 2S 2S 2S 2S 2S "
          "2S 2S 2S 2S 2S 2S 2S 2S 2S 2S 2S 2S 2S 2S 2S 2S 2S", ARB_EINVAL,
          "too many words: a move takes at most 32 arguments after its "
          "verb and player, got 34" },
        /* a word of 20 chips spelt as the log spells it (until
         * 2026-12-06 one of more than 16 as typed) */
        { 1, "deal ann b1b1b1b1b2b2b2b2b3b3b3b3b4b4b4b4b5b5b5b5", 0,
          "deal ann B1B1B1B1B2B2B2B2B3B3B3B3B4B4B4B4B5B5B5B5" },
        /* two seated players first is no move where there is no bare
         * verb: ann is not read as a verb of bob's */
        { 1, "ann bob", ARB_EINVAL, "write the move out: VERB PLAYER "
          "ARG..., its verb first ('ann' is a player)" },
        /* the bare verb and a name that is none, with nothing after */
        { 0, "place carol", ARB_EINVAL, "'carol' is no player of this "
          "match (the players: alice bob)" },
        /* a tab parts words as a blank does */
        { 0, "\tplace\t\tbob \t5H", 0, "place bob 5♥" },
        /* a word of two letters may be a card mistyped: the rules' to
         * refuse, naming it */
        { 0, "KX", 0, "place alice KX" },
        /* 33 arguments after the verb and player are one too many */
        { 0, "place alice 2S 2S 2S 2S 2S 2S 2S 2S 2S 2S 2S 2S 2S 2S 2S 2S "
          "2S 2S 2S 2S 2S 2S 2S 2S 2S 2S 2S 2S 2S 2S 2S 2S 2S", ARB_EINVAL,
          "too many words: a move takes at most 32 arguments after its "
          "verb and player, got 33" },
    };
    size_t k;
    const arb_rules_t *const *g;

    /* every game names its moves, which its console messages list */
    for (g = arb_rules_all(); *g != NULL; g++)
        CHECK((*g)->verbs != NULL && (*g)->verbs[0] != NULL);
    for (k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
        CHECK_INT(read_move(ms[t[k].game], t[k].line, got, sizeof(got)),
                  t[k].rc);
        CHECK_STR(got, t[k].want);
    }
    test_turn_and_as();
    test_words_max();
    arb_match_free(y);
    arb_match_free(tm);
    arb_match_free(cm);
    free(tt);
    free(ct);
    return TEST_END();
}
