/* SKIM-10 "Chains" scoring (core/rules/chains_score.c): the seed's worked
 * example 54 : 59 chain by chain, both variants, how lines split into
 * chains, the typed-grid format, and `arbiter score --game chains` as a
 * user runs it (from the repository root, when bin/arbiter is built). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/err.h"
#include "core/rules/chains.h"
#include "tests/replay_text.h"
#include "tests/test.h"

#define GRID (ARB_CHAINS_GRID_MAX * ARB_CHAINS_GRID_MAX)

static arb_chains_card_t cells[GRID];
static int               rows, cols;
static char              last_err[300];

static int
grid(const char *text)
{
    return arb_chains_grid_parse(cells, &rows, &cols, text, strlen(text),
                                 last_err, sizeof(last_err));
}

static int
grid_file(const char *path)
{
    char  *text = slurp(path);
    size_t len;
    int    rc;

    CHECK(text != NULL);
    if (text == NULL)
        return ARB_EIO;
    len = strlen(text);
    rc = arb_chains_grid_parse(cells, &rows, &cols, text, len, last_err,
                               sizeof(last_err));
    free(text);
    return rc;
}

/* The ranks of chain k as the seed writes them: "Т-К-Д-В-10" becomes
 * "A-K-Q-J-10". */
static const char *
ranks(const arb_chains_score_t *s, size_t k)
{
    static char out[64];
    const arb_chains_chain_t *ch = &s->chains[k];
    char        a[8];
    size_t      len = 0;
    int         i, gr, gc;

    out[0] = '\0';
    for (i = 0; i < ch->len; i++) {
        gr = ch->row + (ch->team == ARB_CHAINS_SHORT ? i : 0);
        gc = ch->col + (ch->team == ARB_CHAINS_LONG ? i : 0);
        arb_chains_card_format(a, cells[gr * cols + gc]);
        a[strlen(a) - 3] = '\0';            /* drop the 3-byte suit */
        len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%s",
                                i ? "-" : "", a);
    }
    return out;
}

static void
test_seed_example(void)
{
    /* skim10-chains.ru.txt lines 205-228, in the seed's order */
    static const char *const long_chains[7] = {
        "A-K-Q-J-10", "9-10-J", "7-6", "9-8", "K-A", "6-7", "K-Q"
    };
    static const int long_pts[7] = { 25, 9, 4, 4, 4, 4, 4 };
    static const char *const short_chains[7] = {
        "10-J", "8-7", "10-9-8-7-6", "9-8-7", "K-Q", "J-Q-K", "J-Q"
    };
    static const int short_pts[7] = { 4, 4, 25, 9, 4, 9, 4 };
    arb_chains_card_t  ru[GRID];
    arb_chains_score_t s;
    size_t             k;

    CHECK_INT(grid_file("tests/data/chains-seed-final.txt"), 0);
    CHECK_INT(rows, 6);
    CHECK_INT(cols, 6);
    CHECK_INT(cells[2 * 6 + 0], ARB_CHAINS_NOCARD);     /* A♦ unplaced */
    CHECK_INT(arb_chains_score(&s, cells, rows, cols, ARB_CHAINS_SQUARE), 0);
    CHECK_INT(s.n, 14);
    for (k = 0; k < 7 && s.n == 14; k++) {
        CHECK_INT(s.chains[k].team, ARB_CHAINS_LONG);
        CHECK_STR(ranks(&s, k), long_chains[k]);
        CHECK_INT(s.chains[k].points, long_pts[k]);
        CHECK_INT(s.chains[7 + k].team, ARB_CHAINS_SHORT);
        CHECK_STR(ranks(&s, 7 + k), short_chains[k]);
        CHECK_INT(s.chains[7 + k].points, short_pts[k]);
    }
    CHECK_INT(s.total[ARB_CHAINS_LONG], 54);
    CHECK_INT(s.total[ARB_CHAINS_SHORT], 59);
    /* 9♥ (d2) is in a horizontal and a vertical chain: one per team */
    CHECK(s.n == 14 && s.chains[1].row == 1 && s.chains[1].col == 3);
    CHECK(s.n == 14 && s.chains[10].row == 1 && s.chains[10].col == 3);
    arb_chains_score_clear(&s);

    /* sum of ranks, Ace 14 */
    CHECK_INT(arb_chains_score(&s, cells, rows, cols, ARB_CHAINS_SUM), 0);
    CHECK_INT(s.total[ARB_CHAINS_LONG], 60 + 30 + 13 + 17 + 27 + 13 + 25);
    CHECK_INT(s.total[ARB_CHAINS_SHORT], 21 + 15 + 40 + 24 + 25 + 36 + 23);
    CHECK_INT(s.total[ARB_CHAINS_LONG], 185);
    CHECK_INT(s.total[ARB_CHAINS_SHORT], 184);
    arb_chains_score_clear(&s);

    /* the seed's diagram typed with its own Russian letters: same table */
    memcpy(ru, cells, sizeof(ru));
    CHECK_INT(grid_file("tests/data/chains-seed-final.ru.txt"), 0);
    CHECK(rows == 6 && cols == 6 && memcmp(ru, cells, 36) == 0);
}

static int64_t
score_of(const char *text, int variant, int team)
{
    arb_chains_score_t s;
    int64_t            t;

    if (grid(text) != 0)
        return -1;
    if (arb_chains_score(&s, cells, rows, cols, variant) != 0)
        return -2;
    t = s.total[team];
    arb_chains_score_clear(&s);
    return t;
}

static void
test_lines(void)
{
    arb_chains_score_t s;

    /* a turning line splits at the turn; the J is in both chains */
    CHECK_INT(grid("9♥ 10♥ J♥ 10♦\n"), 0);
    CHECK_INT(arb_chains_score(&s, cells, rows, cols, ARB_CHAINS_SQUARE), 0);
    CHECK_INT(s.n, 2);
    CHECK_STR(ranks(&s, 0), "9-10-J");
    CHECK_STR(ranks(&s, 1), "J-10");
    CHECK_INT(s.total[ARB_CHAINS_LONG], 9 + 4);
    arb_chains_score_clear(&s);
    CHECK_INT(score_of("9♥ 10♥ J♥ 10♦\n", ARB_CHAINS_SUM, 0),
              30 + 21);
    /* read the other way round it is the same split */
    CHECK_INT(score_of("10♦ J♥ 10♥ 9♥\n", ARB_CHAINS_SQUARE, 0), 4 + 9);
    /* zigzag: three chains of two */
    CHECK_INT(score_of("9♥ 10♦ 9♦ 10♥\n", ARB_CHAINS_SQUARE, 0), 12);
    /* the same in a column scores for the short sides */
    CHECK_INT(score_of("9♥\n10♥\nJ♥\n10♦\n", ARB_CHAINS_SQUARE, 1), 13);
    CHECK_INT(score_of("9♥\n10♥\nJ♥\n10♦\n", ARB_CHAINS_SQUARE, 0), 0);
    /* K-A links (Ace high), A-2 does not wrap */
    CHECK_INT(score_of("K♠ A♣ 2♠\n", ARB_CHAINS_SQUARE, 0), 4);
    CHECK_INT(score_of("A♣ 2♠\n", ARB_CHAINS_SQUARE, 0), 0);
    /* nor read upwards (2 then A): the Ace is above the King only (the
     * seed's A-K-Q chain, its Ace "higher than the King"), whichever end
     * of the line comes first */
    CHECK_INT(score_of("2♠ A♣\n", ARB_CHAINS_SQUARE, 0), 0);
    CHECK_INT(score_of("2♠ A♣\n", ARB_CHAINS_SUM, 0), 0);
    CHECK_INT(score_of("2♥\nA♦\n", ARB_CHAINS_SQUARE, 1), 0);
    CHECK_INT(score_of("K♦ A♥\n", ARB_CHAINS_SUM, 0), 27);
    /* at least two cards, one colour, no gap, ranks one apart */
    CHECK_INT(score_of("9♥\n", ARB_CHAINS_SQUARE, 0), 0);
    CHECK_INT(score_of("9♥ 10♠ J♥\n", ARB_CHAINS_SQUARE, 0), 0);
    CHECK_INT(score_of("9♥ -- 10♦\n", ARB_CHAINS_SQUARE, 0), 0);
    CHECK_INT(score_of("9♥ 9♦\n", ARB_CHAINS_SQUARE, 0), 0);
    CHECK_INT(score_of("9♥ J♦\n", ARB_CHAINS_SQUARE, 0), 0);
    /* a run of seven on the 7×7 frame: 49 */
    CHECK_INT(score_of("2♠ 3♣ 4♠ 5♣ 6♠ 7♣ 8♠\n", ARB_CHAINS_SQUARE, 0),
              49);
    CHECK_INT(score_of("2♠ 3♣ 4♠ 5♣ 6♠ 7♣ 8♠\n", ARB_CHAINS_SUM, 0), 35);
    /* a colour change ends one chain and may start the next */
    CHECK_INT(score_of("6♥ 7♦ 8♠ 9♣\n", ARB_CHAINS_SQUARE, 0), 8);
    /* who placed the cards does not matter: there is no such input */
    CHECK_INT(score_of(". 7♦\n. 8♥\n", ARB_CHAINS_SQUARE, 1), 4);
}

static void
test_grid_format(void)
{
    CHECK_INT(grid("# comment\n\n  9♥ 10♥\r\n\t-- J♥ \n\n"), 0);
    CHECK(rows == 2 && cols == 2);
    CHECK_INT(cells[2], ARB_CHAINS_NOCARD);
    CHECK_INT(grid("9♥ 10♥\nJ♥\n"), ARB_EINVAL);
    CHECK_STR(last_err, "line 2: row 2 has 1 cells, but the first row has "
              "2: write -- for an empty cell");
    CHECK_INT(grid("9♥ 10♥\n9H --\n"), ARB_EINVAL);
    CHECK_STR(last_err, "line 2, cell 1: 9♥ is already in row 1, cell 1: the "
              "deck has one of each card");
    CHECK_INT(grid("9♥ 1♥\n"), ARB_EINVAL);
    CHECK_STR(last_err, "line 1, cell 2: rank 1 does not exist: ranks are "
              "2..10, J, Q, K, A (in '1♥')");
    CHECK_INT(grid("2♠ 3♠ 4♠ 5♠ 6♠ 7♠ 8♠ 9♠\n"), ARB_EINVAL);
    CHECK_STR(last_err, "line 1: more than 7 cells: a Chains table is at "
              "most 7×7");
    CHECK_INT(grid("2♠\n3♠\n4♠\n5♠\n6♠\n7♠\n8♠\n9♠\n"), ARB_EINVAL);
    CHECK_STR(last_err, "line 8: more than 7 rows: a Chains table is at "
              "most 7×7");
    CHECK_INT(grid("# nothing\n\n"), ARB_EINVAL);
    CHECK(strstr(last_err, "no rows") != NULL);
    CHECK_INT(grid(""), ARB_EINVAL);
}

static void
test_report(void)
{
    arb_chains_names_t frame = { 1, 0, 0 }, origin = { 0, -2, -2 };
    arb_chains_score_t s;
    arb_buf_t          b = ARB_BUF_INIT;
    const char        *out;

    CHECK_INT(grid_file("tests/data/chains-seed-final.txt"), 0);
    CHECK_INT(arb_chains_score(&s, cells, rows, cols, ARB_CHAINS_SQUARE), 0);
    arb_chains_report(&b, cells, cols, &s, &frame, ARB_CHAINS_SQUARE, 0);
    out = arb_buf_cstr(&b);
    CHECK(strncmp(out, "long horizontal a1..e1 A♠ K♣ Q♠ J♣ 10♠ 25\n"
                  "long horizontal d2..f2 9♥ 10♦ J♥ 9\n", 71) == 0);
    CHECK(strstr(out, "\nshort vertical c2..c6 10♣ 9♠ 8♣ 7♠ 6♣ 25\n")
          != NULL);
    CHECK(strstr(out, "\nshort vertical f5..f6 J♠ Q♣ 4\n"
                  "total long 54\ntotal short 59\n") != NULL);
    arb_buf_free(&b);
    /* named as the match that ended here names them (its first card, 9♠,
     * lies at c3 of the frame: r0c0, so a1 is r-2c-2) */
    arb_chains_report(&b, cells, cols, &s, &origin, ARB_CHAINS_SQUARE, 0);
    CHECK(strncmp(arb_buf_cstr(&b), "long horizontal r-2c-2..r-2c2 A♠", 32)
          == 0);
    arb_buf_free(&b);
    arb_chains_report(&b, cells, cols, &s, &frame, ARB_CHAINS_SQUARE, 1);
    out = arb_buf_cstr(&b);
    CHECK(strncmp(out, "{\"scoring\":\"square\",\"chains\":[{\"team\":\"long\","
                  "\"direction\":\"horizontal\",\"cells\":[\"a1\",\"b1\","
                  "\"c1\",\"d1\",\"e1\"],\"cards\":[\"A♠\",\"K♣\",\"Q♠\","
                  "\"J♣\",\"10♠\"],\"length\":5,\"points\":25},", 170) == 0);
    CHECK(strstr(out, "],\"totals\":{\"long\":54,\"short\":59}}\n") != NULL);
    arb_buf_free(&b);
    arb_chains_score_clear(&s);
    arb_chains_score_clear(NULL);
}

/* Runs a shell command from the repository root; returns its exit status
 * and its stdout (first 4000 bytes) in out. */
static int
run(const char *cmd, char *out, size_t n)
{
    FILE  *p = popen(cmd, "r");
    size_t got = 0, r;
    int    st;

    out[0] = '\0';
    if (p == NULL)
        return -1;
    while (got + 1 < n && (r = fread(out + got, 1, n - 1 - got, p)) > 0)
        got += r;
    out[got] = '\0';
    st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void
test_tool(void)
{
    char out[4000];

    if (access("bin/arbiter", X_OK) != 0) {
        fprintf(stderr, "bin/arbiter missing: tool checks skipped\n");
        return;
    }
    CHECK_INT(run("bin/arbiter score --game chains --variant square "
                  "tests/data/chains-seed-final.txt", out, sizeof(out)), 0);
    CHECK(strstr(out, "total long 54\ntotal short 59\n") != NULL);
    CHECK(strncmp(out, "long horizontal a1..e1 A♠ K♣ Q♠ J♣ 10♠ 25\n", 44)
          == 0);
    CHECK_INT(run("bin/arbiter score --game chains --variant sum --json - "
                  "< tests/data/chains-seed-final.ru.txt", out, sizeof(out)),
              0);
    CHECK(strstr(out, "\"totals\":{\"long\":185,\"short\":184}}") != NULL);
    CHECK_INT(run("bin/arbiter score --game chains --variant square "
                  "--origin r-2c-2 tests/data/chains-seed-final.txt", out,
                  sizeof(out)), 0);
    CHECK(strstr(out, "short vertical r-1c0..r3c0 10♣ 9♠ 8♣ 7♠ 6♣ 25\n")
          != NULL);
    CHECK_INT(run("printf '9H 10H\\nJH\\n' | bin/arbiter score --game "
                  "chains --variant square - 2>&1", out, sizeof(out)), 1);
    CHECK_STR(out, "arbiter score: -: line 2: row 2 has 1 cells, but the "
              "first row has 2: write -- for an empty cell\n");
    CHECK_INT(run("bin/arbiter score --game chains "
                  "tests/data/chains-seed-final.txt 2>/dev/null", out,
                  sizeof(out)), 2);
    CHECK_INT(run("bin/arbiter score --game chains --variant cube - "
                  "</dev/null 2>&1", out, sizeof(out)), 2);
    CHECK_STR(out, "arbiter score: variant 'cube' does not exist: use "
              "square or sum\n");
    /* a refusal names its rule once (issue 15: "refused: Seniority:
     * Seniority: ...") */
    CHECK_INT(run("printf 'game: chains\\nmatch: X\\nteams: long short\\n"
                  "players: ann:long bob:short\\ndeck: 36\\nscoring: square"
                  "\\ndeal: seed s\\nplace bob 6S r0c0\\n' | bin/arbiter "
                  "replay - 2>&1", out, sizeof(out)), 1);
    CHECK_STR(out, "-:8: seq 1 'place bob 6S r0c0' refused: Turn: it is "
              "ann's turn (hand 1), not bob's: the teams move alternately "
              "in seat order\n");
    CHECK_INT(run("bin/arbiter score --game chains --help", out,
                  sizeof(out)), 0);
    CHECK(strstr(out, "--variant") != NULL);
}

int
main(void)
{
    test_seed_example();
    test_lines();
    test_grid_format();
    test_report();
    test_tool();
    return TEST_END();
}
