/*
 * test_move_text.c - core/move_text.h: a typed move read for its match,
 * and what a mistyped one is told (the word that is wrong, the players).
 */
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/move_text.h"
#include "tests/replay_text.h"
#include "tests/test.h"

/* The words of line read for m: 0 with the event's line in got, or the
 * code with why in got. */
static int
read_move(arb_match_t *m, const char *line, char *got, size_t cap)
{
    char        buf[256], *w[16];
    arb_event_t ev;
    arb_buf_t   why = ARB_BUF_INIT;
    size_t      n, i;
    int         rc;

    snprintf(buf, sizeof(buf), "%s", line);
    n = arb_move_words(buf, w, 16);
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

int
main(void)
{
    char         got[512];
    arb_match_t *y = replay_text("game: yahchain\nmatch: Y\n"
                                 "players: alice bob\nmode: 3\n\n",
                                 UINT64_MAX);
    char        *tt = slurp("tests/data/tsuku-simple.txt");
    arb_match_t *t = tt != NULL ? replay_text(tt, 0) : NULL;

    CHECK(y != NULL && t != NULL);
    if (y == NULL || t == NULL)
        return TEST_END();
    /* YAHchain: the forms that read, canonical cards */
    CHECK_INT(read_move(y, "4S", got, sizeof(got)), 0);
    CHECK_STR(got, "place alice 4♠");
    CHECK_INT(read_move(y, "bob 5h @1", got, sizeof(got)), 0);
    CHECK_STR(got, "place bob 5♥ @1");
    CHECK_INT(read_move(y, "place bob 5H", got, sizeof(got)), 0);
    CHECK_STR(got, "place bob 5♥");
    /* a mistyped player is named, with the players (until 2026-12-06
     * it was read as cards of the player whose turn it was) */
    CHECK_INT(read_move(y, "place carol 9S", got, sizeof(got)),
              ARB_EINVAL);
    CHECK_STR(got, "'carol' is no player of this match (the players: "
                   "alice bob)");
    CHECK_INT(read_move(y, "place alcie 9S", got, sizeof(got)),
              ARB_EINVAL);
    CHECK_STR(got, "'alcie' is no player of this match (the players: "
                   "alice bob)");
    /* Tsukurutenten has no bare verb: a seated player first is told to
     * put the verb first (until then: "'ann' is no player") */
    CHECK_INT(read_move(t, "draw ann", got, sizeof(got)), 0);
    CHECK_STR(got, "draw ann");
    CHECK_INT(read_move(t, "ann B1", got, sizeof(got)), ARB_EINVAL);
    CHECK_STR(got, "write the move out: VERB PLAYER ARG..., its verb "
                   "first ('ann' is a player)");
    CHECK_INT(read_move(t, "bob", got, sizeof(got)), ARB_EINVAL);
    CHECK_STR(got, "write the move out: VERB PLAYER ARG..., its verb "
                   "first ('bob' is a player)");
    /* ... and the mistyped name, not the verb ("'draw' is no player") */
    CHECK_INT(read_move(t, "draw carol", got, sizeof(got)), ARB_EINVAL);
    CHECK_STR(got, "'carol' is no player of this match (the players: "
                   "ann bob)");
    CHECK_INT(read_move(t, "B1", got, sizeof(got)), ARB_EINVAL);
    CHECK_STR(got, "write the move out: VERB PLAYER ARG... ('B1' is no "
                   "player of this match; the players: ann bob)");
    arb_match_free(y);
    arb_match_free(t);
    free(tt);
    return TEST_END();
}
