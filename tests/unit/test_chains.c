/* SKIM-10 "Chains": the card and cell notation, and the four placing
 * principles judged on a table (core/rules/chains_table.c), each accepted
 * and refused at its edges. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/rules/chains.h"
#include "tests/test.h"
#include "tests/verdict_once.h"

static char last_msg[400];
static char last_rule[48];

static arb_chains_card_t
card(const char *s)
{
    arb_chains_card_t c = ARB_CHAINS_NOCARD;
    char              err[160];

    if (arb_chains_card_parse(&c, s, strlen(s), err, sizeof(err)) != 0)
        fprintf(stderr, "bad card in test: %s\n", err);
    return c;
}

/* The canonical name of a typed card, or "ERR: <message>". */
static const char *
canon(const char *s)
{
    static char       out[200];
    arb_chains_card_t c;
    char              err[160];

    if (arb_chains_card_parse(&c, s, strlen(s), err, sizeof(err)) != 0) {
        snprintf(out, sizeof(out), "ERR: %s", err);
        return out;
    }
    arb_chains_card_format(out, c);
    return out;
}

static void
put(arb_chains_table_t *t, const char *c, int row, int col)
{
    arb_chains_table_put(t, card(c), row, col, (uint64_t)t->n + 1);
}

/* Judges c at (row, col); the verdict lands in last_rule / last_msg. */
static int
judge(const arb_chains_table_t *t, const char *c, int row, int col)
{
    arb_verdict_t v;
    int           rc, fatal;

    memset(&v, 0, sizeof(v));
    rc = arb_chains_table_check(t, card(c), row, col, &fatal, &v);
    CHECK(verdict_named_once(&v));
    snprintf(last_msg, sizeof(last_msg), "%s", rc ? v.msg : "");
    snprintf(last_rule, sizeof(last_rule), "%s", rc ? v.rule : "");
    /* the fast path (no verdict) must agree */
    CHECK_INT(arb_chains_table_check(t, card(c), row, col, NULL, NULL), rc);
    return rc;
}

static void
test_cards(void)
{
    CHECK_STR(canon("10♠"), "10♠");
    CHECK_STR(canon("QH"), "Q♥");
    CHECK_STR(canon("qh"), "Q♥");
    CHECK_STR(canon("2d"), "2♦");
    CHECK_STR(canon("A♧"), "A♣");
    CHECK_STR(canon("J♡"), "J♥");
    CHECK_STR(canon("7♥\xef\xb8\x8f"), "7♥");
    CHECK_STR(canon("7♥\xef\xb8\x8e"), "7♥");      /* U+FE0E */
    /* the seed's Russian letters: Т=A К=K Д=Q В=J; П=♠ Ч=♥ Б=♦ К=♣ */
    CHECK_STR(canon("ТП"), "A♠");
    CHECK_STR(canon("КК"), "K♣");
    CHECK_STR(canon("ДБ"), "Q♦");
    CHECK_STR(canon("ВЧ"), "J♥");
    CHECK_STR(canon("10Ч"), "10♥");
    CHECK_STR(canon("тп"), "A♠");
    CHECK_STR(canon("1♠"), "ERR: rank 1 does not exist: ranks are 2..10, "
              "J, Q, K, A (in '1♠')");
    CHECK_STR(canon("11♠"), "ERR: rank 11 does not exist: ranks are 2..10, "
              "J, Q, K, A (in '11♠')");
    CHECK_STR(canon("7"), "ERR: missing suit in '7'");
    CHECK_STR(canon("7Z"), "ERR: unknown suit 'Z' in '7Z': suits are ♠ ♥ ♦ "
              "♣ (S H D C)");
    /* a Latin K is the King, never a suit: the Cyrillic К (clubs) looks
     * like it, so 7K would be 7♣ to one reader and nothing to another */
    CHECK_STR(canon("7K"), "ERR: unknown suit 'K' in '7K': suits are ♠ ♥ ♦ "
              "♣ (S H D C)");
    CHECK_STR(canon("КК"), "K♣");
    /* a Latin T would look like the Cyrillic Т (Ace): not a ten */
    CHECK_STR(canon("T♠"), "ERR: unknown rank in 'T♠': ranks are 2..10, J, "
              "Q, K, A");
    CHECK_STR(canon("10♠♠"), "ERR: '10♠♠' is not a card: write rank then "
              "suit, e.g. 10♠ or QH");
    CHECK_STR(canon(""), "ERR: empty card");
    /* ids: suit * 13 + rank - 2 */
    CHECK_INT(card("2♠"), 0);
    CHECK_INT(card("A♣"), 51);
    CHECK_INT(arb_chains_rank(card("A♥")), 14);
    CHECK(arb_chains_red(card("5♦")) && arb_chains_red(card("5♥")));
    CHECK(!arb_chains_red(card("5♠")) && !arb_chains_red(card("5♣")));
}

static void
test_cells(void)
{
    int  r = 99, c = 99;
    char out[16];

    CHECK_INT(arb_chains_cell_parse(&r, &c, "r0c0"), 0);
    CHECK(r == 0 && c == 0);
    CHECK_INT(arb_chains_cell_parse(&r, &c, "r-1c2"), 0);
    CHECK(r == -1 && c == 2);
    CHECK_INT(arb_chains_cell_parse(&r, &c, "R3C-4"), 0);
    CHECK(r == 3 && c == -4);
    CHECK_INT(arb_chains_cell_parse(&r, &c, "r+2c60"), 0);
    CHECK(r == 2 && c == 60);
    CHECK_INT(arb_chains_cell_parse(&r, &c, "r61c0"), ARB_EINVAL);
    CHECK_INT(arb_chains_cell_parse(&r, &c, "r100c0"), ARB_EINVAL);
    CHECK_INT(arb_chains_cell_parse(&r, &c, "c4"), ARB_EINVAL);
    CHECK_INT(arb_chains_cell_parse(&r, &c, "r1"), ARB_EINVAL);
    CHECK_INT(arb_chains_cell_parse(&r, &c, "r1c2x"), ARB_EINVAL);
    CHECK_INT(arb_chains_cell_parse(&r, &c, "r-c1"), ARB_EINVAL);
    CHECK_INT(arb_chains_cell_parse(&r, &c, "1,2"), ARB_EINVAL);
    CHECK_INT(arb_chains_cell_parse(&r, &c, ""), ARB_EINVAL);
    arb_chains_cell_format(out, -1, 2);
    CHECK_STR(out, "r-1c2");
    arb_chains_cell_format(out, 0, -60);
    CHECK_STR(out, "r0c-60");
}

static void
test_first_card(void)
{
    arb_chains_table_t t;

    arb_chains_table_init(&t, 6, 6);
    CHECK_INT(judge(&t, "10♠", 0, 0), 0);
    CHECK_INT(judge(&t, "6♥", 0, 0), 0);
    CHECK_INT(judge(&t, "J♠", 0, 0), ARB_EILLEGAL);
    CHECK_STR(last_rule, "First card");
    CHECK_STR(last_msg, "the match opens with a card of rank "
              "6..10, and J♠ is not one");
    CHECK_INT(judge(&t, "A♦", 0, 0), ARB_EILLEGAL);
    arb_chains_table_init(&t, 7, 2);
    CHECK_INT(judge(&t, "2♣", 0, 0), 0);
    CHECK_INT(judge(&t, "K♣", 0, 0), ARB_EILLEGAL);
    CHECK_STR(last_msg, "the match opens with a card of rank "
              "2..10, and K♣ is not one");
}

static void
test_continuity(void)
{
    arb_chains_table_t t;

    arb_chains_table_init(&t, 6, 6);
    put(&t, "9♠", 0, 0);
    /* side to side and end to end, in all four directions */
    CHECK_INT(judge(&t, "10♥", 0, 1), 0);
    CHECK_INT(judge(&t, "10♥", 0, -1), 0);
    CHECK_INT(judge(&t, "10♥", 1, 0), 0);
    CHECK_INT(judge(&t, "10♥", -1, 0), 0);
    /* a corner is not a touch, nor is a gap */
    CHECK_INT(judge(&t, "10♥", 1, 1), ARB_EILLEGAL);
    CHECK_STR(last_rule, "Continuity");
    CHECK_STR(last_msg, "10♥ at r1c1 would touch no card on the "
              "table (a card must touch a placed card side to side or end "
              "to end)");
    CHECK_INT(judge(&t, "10♥", 0, 2), ARB_EILLEGAL);
    CHECK_STR(last_rule, "Continuity");
    /* any placed card will do, not only the last one */
    put(&t, "10♥", 0, 1);
    put(&t, "J♣", 0, 2);
    CHECK_INT(judge(&t, "K♦", 1, 0), 0);
}

static void
test_rectangle(void)
{
    arb_chains_table_t t;
    int                c;

    arb_chains_table_init(&t, 6, 6);
    /* five columns c0..c4: not fixed yet, it may grow on either side */
    put(&t, "6♠", 0, 0);
    put(&t, "7♥", 0, 1);
    put(&t, "8♠", 0, 2);
    put(&t, "9♥", 0, 3);
    put(&t, "10♠", 0, 4);
    CHECK_INT(judge(&t, "J♥", 0, 5), 0);
    CHECK_INT(judge(&t, "7♦", 0, -1), 0);
    /* the sixth column fixes the columns at c-1..c4 */
    put(&t, "7♦", 0, -1);
    CHECK_INT(judge(&t, "J♥", 0, 5), ARB_EILLEGAL);
    CHECK_STR(last_rule, "Rectangle");
    CHECK_STR(last_msg, "the columns are fixed at c-1..c4 (the "
              "cards span 6 of the 6×6 rectangle), so J♥ cannot go at "
              "r0c5");
    CHECK_INT(judge(&t, "8♣", 0, -2), ARB_EILLEGAL);
    CHECK_STR(last_rule, "Rectangle");
    /* rows are still free: one row wide */
    CHECK_INT(judge(&t, "J♥", 1, 4), 0);
    CHECK_INT(judge(&t, "J♥", -1, 4), 0);
    put(&t, "Q♦", 1, 0);
    put(&t, "Q♣", 2, 0);
    put(&t, "K♦", 3, 0);
    put(&t, "K♣", 4, 0);
    put(&t, "A♦", 5, 0);
    /* rows 0..5 span six: fixed, r6 and r-1 refused, inside is fine */
    CHECK_INT(judge(&t, "J♥", 6, 0), ARB_EILLEGAL);
    CHECK_STR(last_msg, "the rows are fixed at r0..r5 (the cards "
              "span 6 of the 6×6 rectangle), so J♥ cannot go at r6c0");
    CHECK_INT(judge(&t, "J♥", -1, 0), ARB_EILLEGAL);
    CHECK_INT(judge(&t, "K♠", 1, 1), 0);

    /* 52 cards: 7×7 */
    arb_chains_table_init(&t, 7, 2);
    for (c = 0; c < 6; c++)
        arb_chains_table_put(&t, card(c % 2 ? "2♥" : "2♠") + (c / 2),
                             0, c, 0);
    CHECK_INT(judge(&t, "A♦", 0, 6), 0);
    put(&t, "A♦", 0, 6);
    CHECK_INT(judge(&t, "A♣", 0, 7), ARB_EILLEGAL);
    CHECK_STR(last_msg, "the columns are fixed at c0..c6 (the "
              "cards span 7 of the 7×7 rectangle), so A♣ cannot go at "
              "r0c7");

    /* a table grown too wide by a ruling stays playable inside its span */
    arb_chains_table_init(&t, 6, 6);
    for (c = 0; c < 8; c++)
        arb_chains_table_put(&t, card(c % 2 ? "6♥" : "6♠") + c / 2, 0, c,
                             0);
    CHECK_INT(judge(&t, "A♣", 1, 3), 0);
    CHECK_INT(judge(&t, "A♦", 0, 8), ARB_EILLEGAL);
    CHECK_STR(last_msg, "the columns are fixed at c0..c7 (the "
              "cards span 8 of the 6×6 rectangle), so A♦ cannot go at "
              "r0c8");
}

static void
test_diversity(void)
{
    arb_chains_table_t t;

    arb_chains_table_init(&t, 6, 6);
    put(&t, "9♠", 0, 0);
    CHECK_INT(judge(&t, "7♠", 0, 1), ARB_EILLEGAL);
    CHECK_STR(last_rule, "Diversity");
    CHECK_STR(last_msg, "7♠ at r0c1 would touch 9♠ at r0c0, a "
              "card of the same suit");
    /* same colour, other suit: fine (and any rank will do) */
    CHECK_INT(judge(&t, "7♣", 0, 1), 0);
    CHECK_INT(judge(&t, "A♠", 1, 0), ARB_EILLEGAL);
    CHECK_STR(last_rule, "Diversity");
    /* a second neighbour of the same suit is caught too */
    put(&t, "10♥", 0, 1);
    put(&t, "J♦", 1, 1);
    CHECK_INT(judge(&t, "Q♦", 1, 0), ARB_EILLEGAL);
    CHECK_STR(last_msg, "Q♦ at r1c0 would touch J♦ at r1c1, a "
              "card of the same suit");
    CHECK_INT(judge(&t, "Q♥", -1, 1), ARB_EILLEGAL);
    CHECK_STR(last_msg, "Q♥ at r-1c1 would touch 10♥ at r0c1, a "
              "card of the same suit");
    /* ...but not across a corner: at r1c0, 10♥ is only diagonal */
    CHECK_INT(judge(&t, "Q♥", 1, 0), 0);
    CHECK_INT(judge(&t, "Q♣", 1, 0), 0);
}

static void
test_seniority(void)
{
    arb_chains_table_t t;

    /* one card of the other colour: strictly higher */
    arb_chains_table_init(&t, 6, 6);
    put(&t, "J♦", 0, 0);
    CHECK_INT(judge(&t, "Q♠", 0, 1), 0);
    CHECK_INT(judge(&t, "A♣", 0, 1), 0);
    CHECK_INT(judge(&t, "J♠", 0, 1), ARB_EILLEGAL);     /* equal */
    CHECK_STR(last_rule, "Seniority");
    CHECK_STR(last_msg, "J♠ at r0c1 touches no card of its own "
              "colour, so it must be higher than at least one of the cards "
              "of the other colour it touches, and it is not: J♦ at r0c0");
    CHECK_INT(judge(&t, "10♣", 1, 0), ARB_EILLEGAL);
    /* the seed's example: any card of the other red suit may touch J♦ */
    CHECK_INT(judge(&t, "6♥", 0, 1), 0);

    /* sub-rule 1 (the seed): Q♠ touching J♦ and K♥, no card of its own
     * colour, is higher than J♦: allowed */
    arb_chains_table_init(&t, 6, 6);
    put(&t, "J♦", 0, 0);
    put(&t, "K♥", 1, 1);
    CHECK_INT(judge(&t, "Q♠", 0, 1), 0);
    /* ...but touching K♥ and A♦ it is higher than neither */
    arb_chains_table_init(&t, 6, 6);
    put(&t, "A♦", 0, 0);
    put(&t, "K♥", 1, 1);
    CHECK_INT(judge(&t, "Q♠", 0, 1), ARB_EILLEGAL);
    CHECK_STR(last_msg, "Q♠ at r0c1 touches no card of its own "
              "colour, so it must be higher than at least one of the cards "
              "of the other colour it touches, and it is not: K♥ at r1c1, "
              "A♦ at r0c0");
    /* ...and equal ranks do not count: Q♥ and K♦ */
    arb_chains_table_init(&t, 6, 6);
    put(&t, "Q♥", 0, 0);
    put(&t, "K♦", 1, 1);
    CHECK_INT(judge(&t, "Q♠", 0, 1), ARB_EILLEGAL);
    CHECK_STR(last_rule, "Seniority");

    /* sub-rule 2 (the seed): Q♠ touching K♥ and 6♣; the 6♣ of its own
     * colour lets it lie next to the higher K♥ */
    arb_chains_table_init(&t, 6, 6);
    put(&t, "6♣", 0, 0);
    put(&t, "K♥", 1, 1);
    CHECK_INT(judge(&t, "Q♠", 0, 1), 0);
    /* without the 6♣ the same Q♠ next to K♥ alone is refused */
    arb_chains_table_init(&t, 6, 6);
    put(&t, "K♥", 1, 1);
    CHECK_INT(judge(&t, "Q♠", 0, 1), ARB_EILLEGAL);
    CHECK_STR(last_rule, "Seniority");
    /* touching only its own colour: any rank, even the lowest */
    arb_chains_table_init(&t, 7, 2);
    put(&t, "A♣", 0, 0);
    CHECK_INT(judge(&t, "2♠", 0, 1), 0);
    CHECK_INT(judge(&t, "2♥", 0, 1), ARB_EILLEGAL);
    /* the Ace is high only: 2♥ is not higher than A♣, A♥ beats K♠ */
    arb_chains_table_init(&t, 7, 2);
    put(&t, "K♠", 0, 0);
    CHECK_INT(judge(&t, "A♥", 0, 1), 0);
}

static void
test_taken_and_order(void)
{
    arb_chains_table_t t;
    arb_verdict_t      v;
    arb_chains_card_t  c;
    int                fatal = 0, r, q;
    uint64_t           hand;

    arb_chains_table_init(&t, 6, 6);
    put(&t, "9♠", 0, 0);
    CHECK_INT(arb_chains_table_check(&t, card("10♥"), 0, 0, &fatal, &v),
              ARB_EILLEGAL);
    CHECK_INT(fatal, 1);
    CHECK_STR(v.rule, "Cell");
    CHECK_STR(v.msg, "r0c0 is taken by 9♠ (seq 1)");
    CHECK_INT(arb_chains_table_check(&t, card("10♥"), 0, 1, &fatal, &v), 0);
    CHECK_INT(fatal, 0);
    CHECK_INT(arb_chains_table_check(&t, card("7♠"), 0, 1, &fatal, &v),
              ARB_EILLEGAL);
    CHECK_INT(fatal, 0);
    /* the first legal placement: cards in deck order, cells row by row */
    hand = (uint64_t)1 << card("8♥") | (uint64_t)1 << card("Q♦")
           | (uint64_t)1 << card("7♣");
    CHECK(arb_chains_table_find(&t, hand, &c, &r, &q));
    CHECK_INT(c, card("Q♦"));       /* 8♥ is lower than 9♠: nowhere */
    CHECK(r == -1 && q == 0);
    hand = (uint64_t)1 << card("8♥") | (uint64_t)1 << card("6♦");
    CHECK(!arb_chains_table_find(&t, hand, &c, &r, &q));
    CHECK(!arb_chains_table_find(&t, 0, &c, &r, &q));
    /* on an empty table: the first card of rank 6..10 at r0c0 */
    arb_chains_table_init(&t, 6, 6);
    hand = (uint64_t)1 << card("A♠") | (uint64_t)1 << card("7♣");
    CHECK(arb_chains_table_find(&t, hand, &c, &r, &q));
    CHECK(c == card("7♣") && r == 0 && q == 0);
    hand = (uint64_t)1 << card("A♠") | (uint64_t)1 << card("J♣");
    CHECK(!arb_chains_table_find(&t, hand, &c, &r, &q));
    /* The search reaches the cells right of and below the span: 9♦'s only
     * legal cell is next to 10♥ (own colour, Seniority's second
     * sub-rule); every other free cell touches only black cards it is not
     * higher than, or no card.  Built legally: 10♥ > 9♠, J♣ and Q♠ are
     * higher than the 10♥ they touch. */
    arb_chains_table_init(&t, 6, 6);
    put(&t, "9♠", 0, 0);
    put(&t, "10♥", 0, 1);
    put(&t, "J♣", -1, 1);
    put(&t, "Q♠", 1, 1);
    hand = (uint64_t)1 << card("9♦");
    CHECK(arb_chains_table_find(&t, hand, &c, &r, &q));
    CHECK(c == card("9♦") && r == 0 && q == 2);
    /* the same turned on its side: the cell is below the span */
    arb_chains_table_init(&t, 6, 6);
    put(&t, "9♠", 0, 0);
    put(&t, "10♥", 1, 0);
    put(&t, "J♣", 1, -1);
    put(&t, "Q♠", 1, 1);
    CHECK(arb_chains_table_find(&t, hand, &c, &r, &q));
    CHECK(c == card("9♦") && r == 2 && q == 0);
}

int
main(void)
{
    test_cards();
    test_cells();
    test_first_card();
    test_continuity();
    test_rectangle();
    test_diversity();
    test_seniority();
    test_taken_and_order();
    return TEST_END();
}
