/*
 * move_text.c - a typed move into an event (core/move_text.h).
 */
#include <stdlib.h>
#include <string.h>

#include "core/card.h"
#include "core/err.h"
#include "core/jsonin.h"
#include "core/limits.h"
#include "core/move_text.h"
#include "core/narrate.h"

size_t
arb_move_words(char *buf, char **w, size_t max)
{
    size_t n = 0;
    char  *p = buf;

    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\0' || n == max)
            return n;
        w[n++] = p;
        while (*p != '\0' && *p != ' ' && *p != '\t')
            p++;
        if (*p != '\0')
            *p++ = '\0';
    }
}

static int
seated(const arb_setup_t *setup, const char *name)
{
    return arb_setup_seat(setup, name) >= 0;
}

int
arb_move_from_words(const arb_match_t *m, const char *as, char *const *w,
                    size_t n, arb_event_t *ev, arb_buf_t *why)
{
    arb_buf_t b = ARB_BUF_INIT;
    json_t   *d = NULL;
    int       rc;

    /* Whose turn it is, only when a bare move needs it. */
    if (as == NULL && n > 0 && arb_narrate_bare_verb(arb_match_rules(m))
        != NULL) {
        arb_match_describe(m, &b);
        if (b.data != NULL)
            arb_json_parse(&d, b.data, b.len, NULL);
    }
    rc = arb_move_from_words_at(arb_match_rules(m), arb_match_setup(m),
                                json_string_value(json_object_get(d,
                                                                  "turn")),
                                as, w, n, ev, why);
    json_decref(d);
    arb_buf_free(&b);
    return rc;
}

/* "the players: a b c" into why. */
static void
players_of(const arb_setup_t *setup, arb_buf_t *why)
{
    size_t i;

    arb_buf_puts(why, "the players:");
    for (i = 0; i < setup->nplayers; i++)
        arb_buf_printf(why, " %s", setup->players[i].name);
}

/* 1 when the game's moves start with a card (core/narrate.h) and word
 * is a word, not a card mistyped: three letters or more ("carol",
 * "State"; "7Z" and "KX" stay the rules' to refuse, naming the card). */
static int
not_card(const arb_rules_t *rules, const char *word)
{
    arb_card_t c;
    char       err[8];
    size_t     i, letters = 0;

    for (i = 0; word[i] != '\0'; i++)
        letters += (word[i] >= 'a' && word[i] <= 'z')
                   || (word[i] >= 'A' && word[i] <= 'Z');
    return rules->narration != NULL && rules->narration->card_first
           && letters >= 3
           && arb_card_parse(&c, word, strlen(word), err, sizeof(err)) != 0;
}

/* 1 when word is one of the game's verbs. */
static int
is_verb(const arb_rules_t *rules, const char *word)
{
    const char *const *v;

    for (v = rules->verbs; v != NULL && *v != NULL; v++)
        if (strcmp(*v, word) == 0)
            return 1;
    return 0;
}

/* "the moves: a b c" into why. */
static void
verbs_of(const arb_rules_t *rules, arb_buf_t *why)
{
    const char *const *v;

    arb_buf_puts(why, "the moves:");
    for (v = rules->verbs; v != NULL && *v != NULL; v++)
        arb_buf_printf(why, " %s", *v);
}

/* Why words w[0..n) that are no move written out cannot be read, naming
 * the first word that is wrong: a verb that is none of the game's, or a
 * player who is not seated (until 2026-12-06 "place carol 9S" was read as
 * a card of the player whose turn it was, "ann B1" blamed ann, who is
 * seated, and "foo bar" and a bare "draw" blamed the wrong word). */
static int
unread(const arb_rules_t *rules, const arb_setup_t *setup, const char *bare,
       char *const *w, size_t n, arb_buf_t *why)
{
    int verb = bare != NULL ? strcmp(w[0], bare) == 0 : is_verb(rules, w[0]);

    if (verb && n >= 2) {
        arb_buf_printf(why, "'%s' is no player of this match (", w[1]);
        players_of(setup, why);
        arb_buf_putc(why, ')');
        if (bare == NULL)
            arb_buf_printf(why, ": write %s PLAYER ARG...", w[0]);
    } else if (verb) {
        arb_buf_printf(why, "%s needs its player: write %s PLAYER ARG... (",
                       w[0], w[0]);
        players_of(setup, why);
        arb_buf_putc(why, ')');
    } else if (seated(setup, w[0])) {
        arb_buf_printf(why, "write the move out: VERB PLAYER ARG..., its "
                       "verb first ('%s' is a player)", w[0]);
    } else {
        arb_buf_printf(why, "'%s' is no move of %s: write the move out, "
                       "VERB PLAYER ARG... (", w[0], rules->game);
        verbs_of(rules, why);
        arb_buf_puts(why, "; ");
        players_of(setup, why);
        arb_buf_putc(why, ')');
    }
    return ARB_EINVAL;
}

int
arb_move_from_words_at(const arb_rules_t *rules, const arb_setup_t *setup,
                       const char *turn, const char *as, char *const *w,
                       size_t n, arb_event_t *ev, arb_buf_t *why)
{
    const char *bare = arb_narrate_bare_verb(rules);
    const char *player, *verb;
    char        spelt[4 * ARB_ARG_BYTES];
    size_t      i, first;
    int         rc = ARB_ENOMEM;

    if (n == 0) {
        arb_buf_puts(why, "the move is empty");
        return ARB_EINVAL;
    }
    if (n >= 2 && !seated(setup, w[0]) && seated(setup, w[1])) {
        verb = w[0];
        player = w[1];
        first = 2;
    } else if (bare != NULL && n >= 2 && strcmp(w[0], bare) == 0) {
        /* The game's verb, then no seated player: a mistyped name. */
        return unread(rules, setup, bare, w, n, why);
    } else if (bare != NULL && seated(setup, w[0])) {
        verb = bare;
        player = w[0];
        first = 1;
    } else if (bare != NULL && strcmp(w[0], bare) != 0
               && is_verb(rules, w[0])) {
        /* Another of the game's verbs (Chains' pass): written out, its
         * player named (until 2026-12-06 "pass carol", carol not seated,
         * was told that pass needs its player). */
        return unread(rules, setup, NULL, w, n, why);
    } else if (bare != NULL && n == 1 && strcmp(w[0], bare) == 0) {
        arb_buf_printf(why, "%s needs its card: %s [PLAYER] CARD ...",
                       bare, bare);
        return ARB_EINVAL;
    } else if (bare != NULL && not_card(rules, w[0])) {
        /* A bare move starts with its card: a first word that is none
         * is a mistyped name or command, said as such (until 2026-12-06
         * "carol 4S" and "State" were refused as cards: "type c does not
         * exist"). */
        arb_buf_printf(why, n >= 2 ? "'%s' is no player of this match ("
                                   : "'%s' is no card, nor a player of "
                                     "this match (", w[0]);
        players_of(setup, why);
        arb_buf_putc(why, ')');
        return ARB_EINVAL;
    } else if (bare != NULL) {
        verb = bare;
        player = as != NULL ? as : turn;
        /* Nobody's turn: the match is over, and the rules say so. */
        if (player == NULL)
            player = setup->players[0].name;
        first = 0;
    } else {
        return unread(rules, setup, bare, w, n, why);
    }
    /* A move carries at most ARB_ARGS_MAX arguments: a bare move has no
     * verb or player word, so 34 words made 34 (until 2026-12-06 the
     * HTTP write API then overran its array and the recorder died). */
    if (n - first > ARB_ARGS_MAX) {
        arb_buf_printf(why, "too many words: a move takes at most %d "
                       "arguments after its verb and player, got %zu",
                       ARB_ARGS_MAX, n - first);
        return ARB_EINVAL;
    }
    ev->kind = ARB_EV_MOVE;
    ev->player = strdup(player);
    ev->verb = strdup(verb);
    if (ev->player == NULL || ev->verb == NULL)
        goto done;
    for (i = first; i < n; i++)
        if (arb_event_add_arg(ev, arb_narrate_spell_arg(rules, verb,
                                                        i - first,
                                                        w[i], spelt,
                                                        sizeof(spelt))) != 0)
            goto done;
    rc = 0;
done:
    if (rc == ARB_ENOMEM)
        arb_buf_puts(why, "out of memory");
    return rc;
}
