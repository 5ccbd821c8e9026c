/* SKIM-10 "Chains" through the match layer and transcripts: the setup
 * (teams, seats, deck, scoring, deal), turn order, hands, passes, the
 * rectangle fixed as the match goes, rulings, whole matches replayed with
 * stable digests (one of them ending in the seed's worked example, 54:59)
 * and the seeded deal pinned against an independent implementation of
 * docs/DEAL.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/match.h"
#include "core/replay.h"
#include "core/transcript.h"
#include "tests/replay_text.h"
#include "tests/test.h"
#include "tests/verdict_once.h"


/* Applies one event of `kind`: a move "verb player args..." (words split
 * on blanks), or a ruling with its reason. */
static int
event(arb_match_t *m, int kind, uint64_t target, const char *line,
      const char *reason)
{
    arb_event_t   ev;
    arb_verdict_t v;
    char          buf[256], *w, *save = NULL;
    int           rc, i = 0;

    memset(&ev, 0, sizeof(ev));
    memset(&v, 0, sizeof(v));
    ev.kind = kind;
    ev.target = target;
    ev.text = reason ? strdup(reason) : NULL;
    snprintf(buf, sizeof(buf), "%s", line ? line : "");
    for (w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        if (i == 0)
            ev.verb = strdup(w);
        else if (i == 1)
            ev.player = strdup(w);
        else
            arb_event_add_arg(&ev, w);
        i++;
    }
    rc = arb_match_apply(m, &ev, &v);
    CHECK(verdict_named_once(&v));
    snprintf(last_msg, sizeof(last_msg), "%s", v.code ? v.msg : "");
    snprintf(last_rule, sizeof(last_rule), "%s", v.code ? v.rule : "");
    arb_event_clear(&ev);
    return rc;
}

static int
move(arb_match_t *m, const char *line)
{
    return event(m, ARB_EV_MOVE, 0, line, NULL);
}

/* The describe() JSON of the live position. */
static const char *
state(arb_match_t *m)
{
    static char out[8192];
    arb_buf_t   b = ARB_BUF_INIT;

    arb_match_describe(m, &b);
    snprintf(out, sizeof(out), "%s", arb_buf_cstr(&b) ? b.data : "");
    arb_buf_free(&b);
    return out;
}

#define HDR4 "game: chains\nmatch: t\nteams: long short\n" \
             "players: ann:long bob:short cid:long dan:short\n"

/* The deal of the seed match (tests/data/chains-seed-match.txt). */
#define SEED_DEAL "deal: order 9♠ J♦ 8♣ 6♠ 10♣ Q♠ 9♣ 8♥ 7♠ K♣ 10♥ A♣ " \
    "9♦ 6♥ A♠ K♦ 7♥ Q♥ J♣ 6♣ 10♠ K♠ Q♣ J♠ 6♦ 7♣ A♥ K♥ J♥ 8♦ 7♦ Q♦ 8♠ " \
    "10♦ 9♥ A♦\n"

static void
test_setup(void)
{
    arb_match_t *m;

    CHECK(open_text(HDR4 "scoring: square\n" SEED_DEAL) == NULL);
    CHECK_STR(last_msg, "the deck must be agreed before the match: set deck "
              "to 36 or 52");
    CHECK(open_text(HDR4 "deck: 40\nscoring: square\n" SEED_DEAL) == NULL);
    CHECK_STR(last_msg, "deck '40' does not exist: Chains uses 36 (6..A) or "
              "52 (2..A) cards");
    CHECK(open_text(HDR4 "deck: 36\n" SEED_DEAL) == NULL);
    CHECK_STR(last_msg, "the scoring must be chosen before the match: set "
              "scoring to square or sum");
    CHECK(open_text(HDR4 "deck: 36\nscoring: cube\n" SEED_DEAL) == NULL);
    CHECK_STR(last_msg, "scoring 'cube' does not exist: use square (length "
              "squared) or sum (sum of the ranks)");
    CHECK(open_text(HDR4 "deck: 36\nscoring: sum\nrect: 9x4\n" SEED_DEAL)
          == NULL);
    CHECK_STR(last_msg, "unknown option 'rect' for chains (options: deck, "
              "scoring)");
    CHECK(open_text("game: chains\nmatch: t\nteams: long short\n"
                    "players: ann:long bob:short cid:long\ndeck: 36\n"
                    "scoring: sum\ndeal: seed x\n") == NULL);
    CHECK_STR(last_msg, "Chains is played 2 against 2 or 3 against 3 (or 1 "
              "against 1 with two hands each): 2, 4 or 6 players, got 3");
    /* at most 3 against 3: an eighth seat has no hand to hold */
    CHECK(open_text("game: chains\nmatch: t\nteams: long short\n"
                    "players: a:long b:short c:long d:short e:long f:short "
                    "g:long h:short\ndeck: 52\nscoring: sum\n"
                    "deal: seed x\n") == NULL);
    CHECK_STR(last_msg, "Chains is played 2 against 2 or 3 against 3 (or 1 "
              "against 1 with two hands each): 2, 4 or 6 players, got 8");
    CHECK(open_text("game: chains\nmatch: t\nplayers: ann bob cid dan\n"
                    "deck: 36\nscoring: sum\ndeal: seed x\n") == NULL);
    CHECK(strstr(last_msg, "Chains is played by two teams: write 'teams: "
                 "long short'") != NULL);
    CHECK(open_text("game: chains\nmatch: t\nteams: red black\n"
                    "players: ann:red bob:black cid:red dan:black\n"
                    "deck: 36\nscoring: sum\ndeal: seed x\n") == NULL);
    CHECK_STR(last_msg, "team 'red' is not a side of Chains: the teams are "
              "'long' (horizontal chains) and 'short' (vertical chains)");
    CHECK(open_text("game: chains\nmatch: t\nteams: long short\n"
                    "players: ann:long cid:long bob:short dan:short\n"
                    "deck: 36\nscoring: sum\ndeal: seed x\n") == NULL);
    CHECK_STR(last_msg, "players 'ann' and 'cid' of team 'long' sit side by "
              "side: the teams sit alternately (list the players in seat "
              "order, one of each team in turn)");
    CHECK(open_text(HDR4 "deck: 36\nscoring: sum\n") == NULL);
    CHECK_STR(last_msg, "Chains needs its deal recorded, to judge hands and "
              "passes: 'deal: seed <text>' or 'deal: order <all 36 cards, "
              "top first>'");
    CHECK(open_text(HDR4 "deck: 36\nscoring: sum\ndeal: order 9♠ J♦\n")
          == NULL);
    CHECK_STR(last_msg, "the deal order lists 2 cards, but the whole 36-card "
              "deck is dealt");
    CHECK(open_text(HDR4 "deck: 36\nscoring: sum\ndeal: order 9♠ J♦ 8♣ 6♠ "
                    "10♣ Q♠ 9♣ 8♥ 7♠ K♣ 10♥ A♣ 9♦ 6♥ A♠ K♦ 7♥ Q♥ J♣ 6♣ "
                    "10♠ K♠ Q♣ J♠ 6♦ 7♣ A♥ K♥ J♥ 8♦ 7♦ Q♦ 8♠ 10♦ 9♥ 9S\n")
          == NULL);
    CHECK_STR(last_msg, "deal order, card 36: 9♠ is listed twice (first as "
              "card 1)");
    CHECK(open_text(HDR4 "deck: 36\nscoring: sum\ndeal: order 9♠ J♦ 8♣ 6♠ "
                    "10♣ Q♠ 9♣ 8♥ 7♠ K♣ 10♥ A♣ 9♦ 6♥ A♠ K♦ 7♥ Q♥ J♣ 6♣ "
                    "10♠ K♠ Q♣ J♠ 6♦ 7♣ A♥ K♥ J♥ 8♦ 7♦ Q♦ 8♠ 10♦ 9♥ 5♦\n")
          == NULL);
    CHECK_STR(last_msg, "deal order, card 36: 5♦ is not in the 36-card deck "
              "(6..A)");
    CHECK(open_text(HDR4 "deck: 36\nscoring: sum\ndeal: order 9♠ J♦ 8♣ 6♠ "
                    "10♣ Q♠ 9♣ 8♥ 7♠ K♣ 10♥ A♣ 9♦ 6♥ A♠ K♦ 7♥ Q♥ J♣ 6♣ "
                    "10♠ K♠ Q♣ J♠ 6♦ 7♣ A♥ K♥ J♥ 8♦ 7♦ Q♦ 8♠ 10♦ 9♥ X♦\n")
          == NULL);
    CHECK(strstr(last_msg, "deal order, card 36: unknown rank") != NULL);
    CHECK(open_text("game: chains\nmatch: t\nteams: long short\n"
                    "edition: SKIM-9\nplayers: ann:long bob:short\n"
                    "deck: 36\nscoring: sum\ndeal: seed x\n") == NULL);
    CHECK(strstr(last_msg, "implements SKIM-10-2021") != NULL);

    /* the short sides may sit first; totals follow the teams header */
    m = open_text("game: chains\nmatch: t\nteams: short long\n"
                  "players: bob:short ann:long\ndeck: 52\nscoring: sum\n"
                  "deal: seed x\n");
    CHECK(m != NULL);
    if (m != NULL) {
        arb_results_t r;
        arb_match_results(m, &r);
        CHECK_INT(r.ntotals, 2);
        CHECK(r.ntotals == 2 && strcmp(r.totals[0].name, "short") == 0
              && strcmp(r.totals[1].name, "long") == 0);
        CHECK_INT(r.nrecords, 0);
        arb_results_clear(&r);
        CHECK(strstr(state(m), "\"turn\":\"bob\",\"turn_hand\":1,") != NULL);
    }
    arb_match_free(m);
}

static void
test_seeded_deal(void)
{
    /* The order an independent implementation of docs/DEAL.md (Python
     * hashlib.blake2b) gives for seed "club-night-7" over the canonical
     * 36-card order 6♠..A♠ 6♥..A♥ 6♦..A♦ 6♣..A♣. */
    static const char *order =
        "deal: order Q♦ K♠ 9♥ 8♣ K♥ 7♥ Q♥ A♠ J♣ 6♦ 8♥ J♥ 10♠ 9♣ A♦ 6♥ 7♣ "
        "A♣ K♦ 7♦ 7♠ J♦ 10♥ A♥ Q♠ 8♦ 9♠ J♠ K♣ 8♠ 10♣ 9♦ 6♣ 6♠ 10♦ Q♣\n";
    char         text[1024], ha[ARB_HASH_HEX], hb[ARB_HASH_HEX], hc[ARB_HASH_HEX];
    arb_match_t *a, *b, *c;

#define HDR2 "game: chains\nmatch: t\nteams: long short\n" \
             "players: ann:long bob:short\ndeck: 36\nscoring: square\n"
    a = open_text(HDR2 "deal: seed club-night-7\n");
    snprintf(text, sizeof(text), "%s%s", HDR2, order);
    b = open_text(text);
    c = open_text(HDR2 "deal: seed club-night-8\n");
    CHECK(a != NULL && b != NULL && c != NULL);
    if (a != NULL && b != NULL && c != NULL) {
        digest_hex(a, ha);
        digest_hex(b, hb);
        digest_hex(c, hc);
        CHECK_STR(ha, hb);              /* seed = its documented order */
        CHECK(strcmp(ha, hc) != 0);     /* another seed, another deal */
        /* the deal is a pure function of the seed */
        arb_match_free(c);
        c = open_text(HDR2 "deal: seed club-night-7\n");
        digest_hex(c, hc);
        CHECK_STR(ha, hc);
        /* hand A1 (positions 0, 4, ...) holds Q♦ K♥ J♣ 10♠ 7♣ 7♠ Q♠ K♣
         * 6♣: 7♣ may open, 6♦ (hand B1) may not be played by ann */
        CHECK_INT(move(a, "place ann 6♦ r0c0"), ARB_EILLEGAL);
        CHECK_STR(last_msg, "ann (hand 1) does not hold 6♦: a player "
                  "places only cards from their own hand");
        CHECK_INT(move(a, "place ann 7♣ r0c0"), 0);
    }
    arb_match_free(a);
    arb_match_free(b);
    arb_match_free(c);

    /* 52 cards round six hands: the first four get 9, the last two 8 */
    a = open_text("game: chains\nmatch: t\nteams: long short\n"
                  "players: a:long b:short c:long d:short e:long f:short\n"
                  "deck: 52\nscoring: sum\ndeal: seed R1-T3-2026\n");
    CHECK(a != NULL);
    if (a != NULL)
        CHECK(strstr(state(a), "\"cards\":9},{\"player\":\"d\",\"team\":"
                     "\"short\",\"hand\":1,\"cards\":9},{\"player\":\"e\","
                     "\"team\":\"long\",\"hand\":1,\"cards\":8},{\"player\":"
                     "\"f\",\"team\":\"short\",\"hand\":1,\"cards\":8}]")
              != NULL);
    arb_match_free(a);
}

static void
test_moves(void)
{
    arb_match_t  *m;
    char          h1[ARB_HASH_HEX], h2[ARB_HASH_HEX];

    m = open_text(HDR4 "deck: 36\nscoring: square\n" SEED_DEAL);
    CHECK(m != NULL);
    if (m == NULL)
        return;
    digest_hex(m, h1);
    /* turn order: seat order, ann first */
    CHECK_INT(move(m, "place bob J♦ r0c0"), ARB_EILLEGAL);
    CHECK_STR(last_rule, "Turn");
    CHECK_STR(last_msg, "it is ann's turn, not bob's: the teams move "
              "alternately in seat order");
    CHECK_INT(move(m, "place ann J♦ r0c0"), ARB_EILLEGAL);
    CHECK_STR(last_rule, "Hand");
    CHECK_STR(last_msg, "ann does not hold J♦: a player places only "
              "cards from their own hand");
    CHECK_INT(move(m, "place ann J♥ r0c0"), ARB_EILLEGAL);
    CHECK_STR(last_rule, "First card");
    CHECK_INT(move(m, "place ann 9♠ r1c0"), ARB_EINVAL);
    CHECK_STR(last_msg, "the first card is the origin of the cells: place it "
              "at r0c0, not r1c0");
    /* malformed moves */
    CHECK_INT(move(m, "play ann 9♠ r0c0"), ARB_EINVAL);
    CHECK_STR(last_msg, "chains has no move 'play': the moves are 'place "
              "<player> <card> <cell>' and 'pass <player>'");
    CHECK_INT(move(m, "place zed 9♠ r0c0"), ARB_EINVAL);
    CHECK_STR(last_msg, "player 'zed' is not seated in this match");
    CHECK_INT(move(m, "place ann 9♠"), ARB_EINVAL);
    CHECK(strstr(last_msg, "place takes a card and a cell") != NULL);
    CHECK_INT(move(m, "place ann 9♠ c4"), ARB_EINVAL);
    CHECK_STR(last_rule, "cell");
    CHECK(strstr(last_msg, "'c4' is not a cell: write r<row>c<col>") != NULL);
    CHECK_INT(move(m, "place ann 5♠ r0c0"), ARB_EINVAL);
    CHECK_STR(last_msg, "5♠ is not in the 36-card deck (6..A)");
    CHECK_INT(move(m, "place ann 9Z r0c0"), ARB_EINVAL);
    CHECK_STR(last_rule, "card");
    CHECK_INT(move(m, "pass ann now"), ARB_EINVAL);
    CHECK_STR(last_msg, "pass takes no arguments: 'pass ann'");
    /* a refused move changes nothing */
    digest_hex(m, h2);
    CHECK_STR(h1, h2);
    CHECK_INT(arb_match_next_seq(m), 1);

    /* ann holds 9♠: she may not pass */
    CHECK_INT(move(m, "pass ann"), ARB_EILLEGAL);
    CHECK_STR(last_rule, "Pass");
    CHECK_STR(last_msg, "ann may not pass while a card can be placed "
              "(the move is compulsory): 7♠ can go at r0c0");
    /* ann's partner may not play for her, even her card: the players
     * move one by one in seat order ("ходят по часовой стрелке") */
    CHECK_INT(move(m, "place cid 9♠ r0c0"), ARB_EILLEGAL);
    CHECK_STR(last_rule, "Turn");
    CHECK_STR(last_msg, "it is ann's turn, not cid's: the teams move "
              "alternately in seat order");
    CHECK_INT(move(m, "pass cid"), ARB_EILLEGAL);
    CHECK_STR(last_rule, "Turn");
    digest_hex(m, h2);
    CHECK_STR(h1, h2);
    CHECK_INT(move(m, "place ann 9♠ r0c0"), 0);
    CHECK_INT(move(m, "pass bob"), ARB_EILLEGAL);
    CHECK_STR(last_msg, "bob may not pass while a card can be placed "
              "(the move is compulsory): Q♥ can go at r-1c0");
    CHECK_INT(move(m, "place bob 9♠ r0c1"), ARB_EILLEGAL);
    CHECK_STR(last_rule, "Hand");
    CHECK_STR(last_msg, "9♠ is already on the table at r0c0 (seq 1)");
    /* both: the card is named first (docs/rules/chains.md) */
    CHECK_INT(move(m, "place bob 9♠ r0c0"), ARB_EILLEGAL);
    CHECK_STR(last_rule, "Hand");
    CHECK_STR(last_msg, "9♠ is already on the table at r0c0 (seq 1)");
    CHECK_INT(move(m, "place bob J♦ r0c0"), ARB_EILLEGAL);
    CHECK_STR(last_rule, "Cell");
    CHECK_STR(last_msg, "r0c0 is taken by 9♠ (seq 1)");
    CHECK_INT(move(m, "place bob J♦ r1c1"), ARB_EILLEGAL);
    CHECK_STR(last_rule, "Continuity");
    CHECK_INT(move(m, "place bob Q♠ r0c1"), ARB_EILLEGAL);
    CHECK_STR(last_rule, "Diversity");
    CHECK_STR(last_msg, "Q♠ at r0c1 would touch 9♠ at r0c0, a "
              "card of the same suit");
    CHECK_INT(move(m, "place bob 6♥ r0c1"), ARB_EILLEGAL);
    CHECK_STR(last_rule, "Seniority");
    CHECK_INT(move(m, "place bob J♦ r0c-1"), 0);
    CHECK(strstr(state(m), "\"turn\":\"cid\"") != NULL);
    CHECK(strstr(state(m), "\"table\":[{\"seq\":1,\"card\":\"9♠\",\"cell\":"
                 "\"r0c0\"},{\"seq\":2,\"card\":\"J♦\",\"cell\":\"r0c-1\"}],"
                 "\"top_left\":\"r0c-1\",\"rows\":1,\"cols\":2,\"rows_fixed\":"
                 "false,\"cols_fixed\":false,\"grid\":[\"J♦ 9♠\"]") != NULL);
    /* hands are hidden: only counts */
    CHECK(strstr(state(m), "{\"player\":\"ann\",\"team\":\"long\",\"hand\":1,"
                 "\"cards\":8}") != NULL);
    CHECK(strstr(state(m), "Q♥") == NULL);
    arb_match_free(m);
}

/* A pass that is legal: ann's hand holds only J..A and cannot open. */
static void
test_pass(void)
{
    static const char *ann[9] = { "J♠", "Q♠", "K♠", "A♠", "J♥", "Q♥", "K♥",
                                  "A♥", "J♦" };
    static const char *rest[27] = {
        "6♠", "7♠", "8♠", "9♠", "10♠", "6♥", "7♥", "8♥", "9♥", "10♥", "6♦",
        "7♦", "8♦", "9♦", "10♦", "Q♦", "K♦", "A♦", "6♣", "7♣", "8♣", "9♣",
        "10♣", "J♣", "Q♣", "K♣", "A♣"
    };
    char         text[1024];
    size_t       len;
    int          p;
    arb_match_t *m;

    len = (size_t)snprintf(text, sizeof(text), HDR4 "deck: 36\n"
                           "scoring: square\ndeal: order");
    for (p = 0; p < 36; p++)
        len += (size_t)snprintf(text + len, sizeof(text) - len, " %s",
                                p % 4 == 0 ? ann[p / 4]
                                : rest[p / 4 * 3 + p % 4 - 1]);
    snprintf(text + len, sizeof(text) - len, "\n");
    m = open_text(text);
    CHECK(m != NULL);
    if (m == NULL)
        return;
    CHECK_INT(move(m, "place ann J♠ r0c0"), ARB_EILLEGAL);
    CHECK_STR(last_msg, "the match opens with a card of rank "
              "6..10, and J♠ is not one");
    CHECK_INT(move(m, "pass bob"), ARB_EILLEGAL);
    CHECK_STR(last_rule, "Turn");
    CHECK_INT(move(m, "pass ann"), 0);
    CHECK(strstr(state(m), "\"turn\":\"bob\"") != NULL);
    CHECK_INT(move(m, "place bob 6♠ r0c0"), 0);
    CHECK_INT(move(m, "place cid 8♥ r0c1"), 0);
    CHECK_INT(move(m, "place dan 7♦ r0c2"), 0);
    /* now ann has higher cards next to the row: no pass */
    CHECK_INT(move(m, "pass ann"), ARB_EILLEGAL);
    CHECK_STR(last_msg, "ann may not pass while a card can be placed "
              "(the move is compulsory): J♠ can go at r-1c1");
    CHECK_INT(arb_match_finished(m), 0);
    arb_match_free(m);
}

static void
test_one_on_one(void)
{
    arb_match_t *m;

    /* the canonical order dealt round A1 B1 A2 B2:
     * A1 6♠ 10♠ A♠ 9♥ K♥ 8♦ Q♦ 7♣ J♣   B1 7♠ J♠ 6♥ 10♥ A♥ 9♦ K♦ 8♣ Q♣
     * A2 8♠ Q♠ 7♥ J♥ 6♦ 10♦ A♦ 9♣ K♣   B2 9♠ K♠ 8♥ Q♥ 7♦ J♦ 6♣ 10♣ A♣ */
    m = open_text("game: chains\nmatch: t\nteams: long short\n"
                  "players: ann:long bob:short\ndeck: 36\nscoring: sum\n"
                  "deal: order 6♠ 7♠ 8♠ 9♠ 10♠ J♠ Q♠ K♠ A♠ 6♥ 7♥ 8♥ 9♥ "
                  "10♥ J♥ Q♥ K♥ A♥ 6♦ 7♦ 8♦ 9♦ 10♦ J♦ Q♦ K♦ A♦ 6♣ 7♣ 8♣ "
                  "9♣ 10♣ J♣ Q♣ K♣ A♣\n");
    CHECK(m != NULL);
    if (m == NULL)
        return;
    CHECK(strstr(state(m), "\"turn\":\"ann\",\"turn_hand\":1,") != NULL);
    CHECK_INT(move(m, "place ann 8♠ r0c0"), ARB_EILLEGAL);
    CHECK_STR(last_msg, "ann (hand 1) does not hold 8♠: a player "
              "places only cards from their own hand");
    CHECK_INT(move(m, "place ann 10♠ r0c0"), 0);
    CHECK_INT(move(m, "place ann 8♠ r0c1"), ARB_EILLEGAL);
    CHECK_STR(last_msg, "it is bob's turn (hand 1), not ann's: the "
              "teams move alternately in seat order");
    CHECK_INT(move(m, "place bob A♥ r0c1"), 0);
    CHECK(strstr(state(m), "\"turn\":\"ann\",\"turn_hand\":2,") != NULL);
    CHECK_INT(move(m, "place ann 6♠ r1c0"), ARB_EILLEGAL);
    CHECK_STR(last_msg, "ann (hand 2) does not hold 6♠: a player "
              "places only cards from their own hand");
    CHECK_INT(move(m, "place ann 9♣ r0c-1"), 0);
    CHECK(strstr(state(m), "\"turn\":\"bob\",\"turn_hand\":2,") != NULL);
    CHECK_INT(move(m, "place bob J♦ r1c0"), 0);
    CHECK(strstr(state(m), "\"turn\":\"ann\",\"turn_hand\":1,") != NULL);
    CHECK(strstr(state(m), "\"hands\":[{\"player\":\"ann\",\"team\":\"long\","
                 "\"hand\":1,\"cards\":8},{\"player\":\"bob\",\"team\":"
                 "\"short\",\"hand\":1,\"cards\":8},{\"player\":\"ann\","
                 "\"team\":\"long\",\"hand\":2,\"cards\":8},{\"player\":"
                 "\"bob\",\"team\":\"short\",\"hand\":2,\"cards\":8}]")
          != NULL);
    /* 9♣ 10♠: a horizontal chain for the long sides, whoever placed it */
    CHECK_INT(total_of(m, "long"), 19);
    CHECK_INT(total_of(m, "short"), 0);
    arb_match_free(m);
}

/* The rectangle is fixed in a direction only once the cards span it:
 * the seed match, columns c-2..c2 after seq 22, c-2..c3 after seq 23. */
static void
test_rectangle_in_play(void)
{
    char        *text = slurp("tests/data/chains-seed-match.txt");
    arb_match_t *m;

    CHECK(text != NULL);
    if (text == NULL)
        return;
    m = replay_text(text, 13);
    CHECK(m != NULL);
    if (m != NULL) {
        CHECK(strstr(state(m), "\"rows\":5,\"cols\":3,\"rows_fixed\":false,"
                     "\"cols_fixed\":false") != NULL);
        CHECK_INT(move(m, "place bob 6♥ r3c-2"), 0);
        CHECK(strstr(state(m), "\"rows\":6,\"cols\":3,\"rows_fixed\":true,"
                     "\"cols_fixed\":false") != NULL);
    }
    arb_match_free(m);
    m = replay_text(text, 22);
    CHECK(m != NULL);
    if (m != NULL) {
        /* five columns: cid may still open a sixth on the left */
        CHECK_INT(move(m, "place cid Q♣ r2c-3"), 0);
        CHECK(strstr(state(m), "\"top_left\":\"r-2c-3\"") != NULL);
    }
    arb_match_free(m);
    m = replay_text(text, 23);
    CHECK(m != NULL);
    if (m != NULL) {
        /* Q♣ at r3c3 made six: the left edge is now closed to dan */
        CHECK_INT(move(m, "place dan J♠ r2c-3"), ARB_EILLEGAL);
        CHECK_STR(last_rule, "Rectangle");
        CHECK_STR(last_msg, "the columns are fixed at c-2..c3 (the "
                  "cards span 6 of the 6×6 rectangle), so J♠ cannot go at "
                  "r2c-3");
        CHECK_INT(move(m, "place dan J♠ r2c3"), 0);
    }
    arb_match_free(m);
    free(text);
}

/* A whole transcript: replays it twice, checks the end, totals, digest. */
static arb_match_t *
whole(const char *path, int64_t lng, int64_t shrt, const char *digest)
{
    char        *text = slurp(path);
    arb_match_t *m, *again;
    char         h1[ARB_HASH_HEX], h2[ARB_HASH_HEX];

    CHECK(text != NULL);
    if (text == NULL)
        return NULL;
    m = open_text(text);
    again = open_text(text);
    free(text);
    CHECK(m != NULL && again != NULL);
    if (m == NULL || again == NULL) {
        fprintf(stderr, "%s: %s\n", path, last_msg);
        arb_match_free(m);
        arb_match_free(again);
        return NULL;
    }
    CHECK(arb_match_finished(m));
    CHECK_INT(total_of(m, "long"), lng);
    CHECK_INT(total_of(m, "short"), shrt);
    digest_hex(m, h1);
    digest_hex(again, h2);
    CHECK_STR(h1, h2);
    /* Pinned: a change here means every recorded digest changes too. */
    CHECK_STR(h1, digest);
    arb_match_free(again);
    return m;
}

static void
test_whole_matches(void)
{
    arb_match_t  *m;
    arb_results_t r;

    m = whole("tests/data/chains-seed-match.txt", 54, 59,
              "2f97ffde74ef1528c0bc32c17f6a1883"
              "9ca7405906a71a42c6b1dbc2c76bcbfa");
    if (m != NULL) {
        /* the table is the seed's diagram */
        CHECK(strstr(state(m), "\"grid\":[\"A♠ K♣ Q♠ J♣ 10♠ 7♣\",\"A♣ 10♥ "
                     "10♣ 9♥ 10♦ J♥\",\"-- J♦ 9♠ 8♦ 8♠ Q♦\",\"9♣ 6♠ 8♣ 7♥ "
                     "6♦ K♥\",\"9♦ 8♥ 7♠ K♦ A♥ J♠\",\"6♥ 7♦ 6♣ Q♥ K♠ Q♣\"]")
              != NULL);
        CHECK(strstr(state(m), "\"turn\":null,\"turn_hand\":null,"
                     "\"finished\":true") != NULL);
        /* dan still holds A♦, which fits nowhere */
        CHECK(strstr(state(m), "{\"player\":\"dan\",\"team\":\"short\","
                     "\"hand\":1,\"cards\":1}") != NULL);
        CHECK_INT(move(m, "place dan A♦ r0c-2"), ARB_EOVER);
        CHECK_STR(last_msg, "the match is over: no hand can place a card");
        CHECK_INT(move(m, "pass ann"), ARB_EOVER);
        arb_match_results(m, &r);
        CHECK_INT(r.nrecords, 14);
        if (r.nrecords == 14) {
            const arb_record_t *rec = &r.records[0];
            const arb_field_t  *f;
            CHECK_INT(rec->seq, 21);        /* 10♠ completed it */
            CHECK_STR(arb_record_get(rec, "match_id")->str, "SKIM10-seed");
            CHECK_STR(arb_record_get(rec, "edition")->str, "SKIM-10-2021");
            CHECK_STR(arb_record_get(rec, "scoring")->str, "square");
            CHECK_STR(arb_record_get(rec, "team")->str, "long");
            CHECK_STR(arb_record_get(rec, "direction")->str, "horizontal");
            f = arb_record_get(rec, "cells");
            CHECK(f != NULL && f->nlist == 5);
            if (f != NULL && f->nlist == 5) {
                CHECK_STR(f->list[0], "r-2c-2");
                CHECK_STR(f->list[4], "r-2c2");
            }
            f = arb_record_get(rec, "cards");
            CHECK(f != NULL && f->nlist == 5);
            if (f != NULL && f->nlist == 5) {
                CHECK_STR(f->list[0], "A♠");
                CHECK_STR(f->list[4], "10♠");
            }
            CHECK_INT(arb_record_get(rec, "length")->num, 5);
            CHECK_INT(arb_record_get(rec, "points")->num, 25);
            rec = &r.records[9];
            CHECK_STR(arb_record_get(rec, "team")->str, "short");
            CHECK_STR(arb_record_get(rec, "direction")->str, "vertical");
            CHECK_INT(arb_record_get(rec, "points")->num, 25);
            CHECK_STR(arb_record_get(rec, "cards")->list[0], "10♣");
        }
        CHECK(r.ntotals == 2 && strcmp(r.totals[0].name, "long") == 0);
        arb_results_clear(&r);
    }
    arb_match_free(m);

    m = whole("tests/data/chains-3v3-52-sum.txt", 19, 53,
              "087efe918dc302e2ef1d08e830b8f36f"
              "3d0e9eaa98d55719f6a131c2cf56cb04");
    if (m != NULL)
        CHECK(strstr(state(m), "\"rows\":7,\"cols\":7,\"rows_fixed\":true,"
                     "\"cols_fixed\":true") != NULL);
    arb_match_free(m);
    m = whole("tests/data/chains-1v1-36-square.txt", 16, 16,
              "0924ac0a9d3063c35833715ff10a0b35"
              "dd0947f17437984927077679833575b2");
    arb_match_free(m);
}

static void
test_rulings(void)
{
    arb_match_t *m;
    char         h0[ARB_HASH_HEX], h1[ARB_HASH_HEX], h2[ARB_HASH_HEX];

    m = open_text(HDR4 "deck: 36\nscoring: square\n" SEED_DEAL);
    CHECK(m != NULL);
    if (m == NULL)
        return;
    digest_hex(m, h0);
    /* bob opens out of turn with a Jack: it stands, flagged as Turn; the
     * turn passes on from bob */
    CHECK_INT(event(m, ARB_EV_STANDS, 0, "place bob J♦ r0c0",
                    "bob opened, table agreed to play on"), 0);
    CHECK_STR(last_rule, "Turn");
    CHECK(strstr(state(m), "\"turn\":\"cid\"") != NULL);
    CHECK_INT(move(m, "place cid 10♥ r0c1"), 0);
    digest_hex(m, h1);
    /* voiding the stands would put cid's move out of turn: refused */
    CHECK_INT(event(m, ARB_EV_VOID, 1, NULL, "wrong"), ARB_EINVAL);
    CHECK_STR(last_msg, "seq 2 would no longer stand: the first card is the "
              "origin of the cells: place it at r0c0, not r0c1");
    /* a taken cell cannot be made to stand */
    CHECK_INT(event(m, ARB_EV_STANDS, 0, "place dan 6♠ r0c0", "x"),
              ARB_EILLEGAL);
    CHECK_STR(last_rule, "Cell");
    /* a legal move offered as a ruling is refused by the match layer */
    CHECK_INT(event(m, ARB_EV_STANDS, 0, "place dan A♣ r1c1", "x"),
              ARB_EINVAL);
    CHECK_STR(last_msg, "the move is legal: record it as a move, not as an "
              "illegal move that stands");
    digest_hex(m, h2);
    CHECK_STR(h1, h2);
    /* a forced pass while dan can place */
    CHECK_INT(event(m, ARB_EV_STANDS, 0, "pass dan", "dan's time ran out"),
              0);
    CHECK_STR(last_rule, "Pass");
    CHECK(strstr(state(m), "\"turn\":\"ann\"") != NULL);
    /* amend cid's move: the same card elsewhere */
    CHECK_INT(event(m, ARB_EV_AMEND, 2, "place cid 10♥ r1c0",
                    "scorekeeper typo"), 0);
    CHECK(strstr(state(m), "\"card\":\"10♥\",\"cell\":\"r1c0\"") != NULL);
    CHECK(strstr(state(m), "\"turn\":\"ann\"") != NULL);
    /* void everything back to the empty table, newest first */
    CHECK_INT(event(m, ARB_EV_VOID, 4, NULL, "undo"), ARB_EINVAL);
    CHECK_INT(event(m, ARB_EV_VOID, 3, NULL, "undo"), 0);
    CHECK(strstr(state(m), "\"turn\":\"dan\"") != NULL);
    CHECK_INT(event(m, ARB_EV_VOID, 2, NULL, "undo"), 0);
    CHECK_INT(event(m, ARB_EV_VOID, 1, NULL, "undo"), 0);
    digest_hex(m, h2);
    CHECK_STR(h0, h2);
    arb_match_free(m);

    /* an out-of-turn pass that stands passes the turn on from the one who
     * passed, as a placing does (a mutation that passed it on from the
     * seat on turn went unnoticed until 2026-12-06) */
    m = open_text(HDR4 "deck: 36\nscoring: square\n" SEED_DEAL);
    CHECK(m != NULL);
    if (m == NULL)
        return;
    CHECK_INT(event(m, ARB_EV_STANDS, 0, "place bob J♦ r0c0",
                    "bob opened, table agreed to play on"), 0);
    CHECK(strstr(state(m), "\"turn\":\"cid\"") != NULL);
    CHECK_INT(event(m, ARB_EV_STANDS, 0, "pass ann", "ann passed early"),
              0);
    CHECK(strstr(state(m), "\"turn\":\"bob\"") != NULL);
    arb_match_free(m);
}

/* The end is judged over every hand, the last in move order too: the
 * seed's "the move is compulsory" holds while any hand can place.  ann,
 * bob and cid play out all their cards (rulings where a card breaks a
 * principle or the turn), leaving dan the only hand holding cards; the
 * match goes on, dan on turn, and dan's card goes down. */
static void
test_last_hand_can_place(void)
{
    static const char *deal[36] = {
        "9♠", "J♦", "8♣", "6♠", "10♣", "Q♠", "9♣", "8♥", "7♠", "K♣", "10♥",
        "A♣", "9♦", "6♥", "A♠", "K♦", "7♥", "Q♥", "J♣", "6♣", "10♠", "K♠",
        "Q♣", "J♠", "6♦", "7♣", "A♥", "K♥", "J♥", "8♦", "7♦", "Q♦", "8♠",
        "10♦", "9♥", "A♦"
    };
    static const char *who[4] = { "ann", "bob", "cid", "dan" };
    arb_match_t *m = open_text(HDR4 "deck: 36\nscoring: square\n"
                               SEED_DEAL);
    char         line[64];
    int          k, n = 0, rc;

    CHECK(m != NULL);
    if (m == NULL)
        return;
    for (k = 0; k < 36; k++) {
        if (k % 4 == 3)
            continue;           /* dan's card stays in hand */
        snprintf(line, sizeof(line), "place %s %s r%dc%d", who[k % 4],
                 deal[k], n / 6, n % 6);
        n++;
        rc = move(m, line);
        if (rc != 0)
            rc = event(m, ARB_EV_STANDS, 0, line, "x");
        CHECK_INT(rc, 0);
    }
    CHECK_INT(arb_match_finished(m), 0);
    CHECK(strstr(state(m), "\"turn\":\"dan\"") != NULL);
    CHECK_INT(move(m, "pass dan"), ARB_EILLEGAL);
    CHECK_STR(last_rule, "Pass");
    arb_match_free(m);
}

int
main(void)
{
    test_setup();
    test_seeded_deal();
    test_moves();
    test_pass();
    test_one_on_one();
    test_rectangle_in_play();
    test_whole_matches();
    test_rulings();
    test_last_hand_can_place();
    return TEST_END();
}
