/* `arbiter score --game chan` and `arbiter replay` on Chắn transcripts, as
 * a user runs them: the real bin/arbiter (built by `make` before the
 * tests), exact lines and exit statuses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "tests/test.h"

static char out[8192];

/* Runs a shell command; returns its exit status, output in `out`. */
static int
run(const char *cmd)
{
    FILE  *p;
    size_t n;
    int    st;

    p = popen(cmd, "r");
    if (p == NULL)
        return -1;
    n = fread(out, 1, sizeof(out) - 1, p);
    out[n] = '\0';
    st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#define SCORE "bin/arbiter score --game chan "
#define EXAMPLE "2V 2V 4S 4S 5W 5W 6V 6V 8V 8V 9S 9S 4V 4V 3V 3S 7W 7V 2W 2W"

static void
test_score(void)
{
    CHECK_INT(run(SCORE "--won self --win 2W " EXAMPLE), 0);
    CHECK_STR(out,
        "WIN 5\n"
        "won self, winning card 2W\n"
        "pairs 2V+2V 2W+2W 3V+3S 4V+4V 4S+4S 5W+5W 6V+6V 7V+7W 8V+8V "
        "9S+9S   (* exposed)\n"
        "chan 8  ca 2  red 4\n"
        "bonus          id           base dich\n"
        "Ù chì          u-chi           3    1\n"
        "Tôm            tom             4    1  main\n"
        "score 4 (Tôm) + 1 (Ù chì) = 5   the main bonus's base, the "
        "others' dịch\n"
        "each loser pays 5, the winner receives 15\n");
    CHECK_INT(run(SCORE "--json --won=self --win=2W " EXAMPLE), 0);
    CHECK_STR(out,
        "{\"win\":true,\"won\":\"self\",\"winning_card\":\"2W\",\"pairs\":["
        "{\"pair\":\"2V+2V\",\"exposed\":false},"
        "{\"pair\":\"2W+2W\",\"exposed\":false},"
        "{\"pair\":\"3V+3S\",\"exposed\":false},"
        "{\"pair\":\"4V+4V\",\"exposed\":false},"
        "{\"pair\":\"4S+4S\",\"exposed\":false},"
        "{\"pair\":\"5W+5W\",\"exposed\":false},"
        "{\"pair\":\"6V+6V\",\"exposed\":false},"
        "{\"pair\":\"7V+7W\",\"exposed\":false},"
        "{\"pair\":\"8V+8V\",\"exposed\":false},"
        "{\"pair\":\"9S+9S\",\"exposed\":false}],"
        "\"chan\":8,\"ca\":2,\"red\":4,\"bonuses\":["
        "{\"id\":\"u-chi\",\"name\":\"Ù chì\",\"base\":3,\"dich\":1,"
        "\"main\":false},"
        "{\"id\":\"tom\",\"name\":\"Tôm\",\"base\":4,\"dich\":1,"
        "\"main\":true}],"
        "\"main\":\"tom\",\"all_bases\":false,\"score\":5,"
        "\"loser_pays\":5,\"winner_receives\":15}\n");
    /* exposed groups, commas, Vietnamese names; Thập thành adds bases */
    CHECK_INT(run(SCORE "--won stock --win 5S 2V+2V 3V+3V,4V,4V 5V 5V 6V "
                  "6V 7V 7V 2S 2S tam-sách 3S 4S 4S 5S 5S"), 0);
    CHECK(strstr(out, "pairs 2V+2V* 3V+3V* ") != NULL);
    CHECK(strstr(out, "score 12 (Thập thành) + 7 (Bạch định) = 19") != NULL);
    /* a plain win */
    CHECK_INT(run(SCORE "--won stock --win 2V 2V 2V 3V 3V 4S 4S 5W 5W 6V 6V "
                  "8V 8V 9S 9S 2S 2W 4V 4W 6S 6W"), 0);
    CHECK(strstr(out, "no bonus: Ù xuông, 2\n") != NULL);
    /* an exposed Cạ never splits an identical pair (issue 15, item 1):
     * 2V+2S exposed beside a concealed 2V and 2S would make two Cạ of two
     * identical pairs; the same twenty cards concealed are Thập thành */
    CHECK_INT(run(SCORE "--won stock --win 8S 2V 2S 2W 2W 8V 8V 5W 5W 3S 3S "
                  "4V 4V 4W 4W 8S 8S 9S+9S 2V+2S"), 1);
    CHECK_STR(out, "NOT A WIN the exposed Cạ 2V+2S takes one 2V of an "
              "identical pair 2V+2V, and the other 2V could only go into a "
              "Cạ as well: an identical pair is never split to form Cạ, "
              "exposed or not\n");
    CHECK_INT(run(SCORE "--won stock --win 8S 2V 2S 2W 2W 8V 8V 5W 5W 3S 3S "
                  "4V 4V 4W 4W 8S 8S 9S+9S 2V 2S"), 0);
    CHECK(strstr(out, "WIN 12\n") == out);
    /* the readings: Tôm as written (3V 3W 7W), Thiên khai per four */
    CHECK_INT(run(SCORE "--won stock --tom literal --win 2W " EXAMPLE), 0);
    CHECK(strstr(out, "WIN 2\n") == out);
    CHECK_INT(run(SCORE "--won stock --tom usual --win 2W " EXAMPLE), 0);
    CHECK(strstr(out, "WIN 4\n") == out);
    CHECK_INT(run(SCORE "--won stock --khai-bon each --win 2S 4W 4W 4W 4W "
                  "5W 5W 5W 5W 2V 2V 3V 3V 6V 6V 7V 7V 2S 2S 8V 8V"), 0);
    CHECK(strstr(out, "WIN 22\n") == out);
    CHECK_INT(run(SCORE "--won stock --win 2S 4W 4W 4W 4W 5W 5W 5W 5W 2V 2V "
                  "3V 3V 6V 6V 7V 7V 2S 2S 8V 8V"), 0);
    CHECK(strstr(out, "WIN 17\n") == out);
    /* not a win, impossible hands, bad usage */
    CHECK_INT(run(SCORE "--won stock --win CC CC CC 2V 2V 3V 3V 4V 4V 5V 5V "
                  "6V 6V 7V 7V 8V 8S 9V 9S 2S 2W"), 1);
    CHECK_STR(out, "NOT A WIN Chi chi is the winning card, so the hand needs "
              "exactly six Chắn and four Cạ; it has 7 Chắn and 3 Cạ\n");
    CHECK_INT(run(SCORE "--json --won stock --win 2V 2V 3V"), 1);
    CHECK_STR(out, "{\"win\":false,\"error\":\"2 cards: a winning hand has "
              "twenty\"}\n");
    CHECK_INT(run(SCORE "--won stock --win 2V 2V 1V"), 1);
    CHECK(strncmp(out, "ERROR no rank 1 in '1V'", 23) == 0);
    CHECK_INT(run(SCORE "--won stock 2V 2V 2>/dev/null"), 2);
    CHECK_INT(run(SCORE "--won sideways --win 2V 2V 2>/dev/null"), 2);
    CHECK_INT(run(SCORE "--won heaven --win 2V 2V 2>/dev/null"), 2);
    CHECK_INT(run(SCORE "--colour red 2V 2>/dev/null"), 2);
    CHECK_INT(run(SCORE "--help"), 0);
    CHECK(strstr(out, "--won HOW") != NULL);
}

static void
test_replay(void)
{
    CHECK_INT(run("bin/arbiter replay tests/data/chan-u-chi-tom.txt"), 0);
    CHECK(strstr(out, "game chan") != NULL);
    CHECK(strstr(out, "winner=binh") != NULL);
    CHECK(strstr(out, "bonuses=u-chi→tom") != NULL);
    CHECK(strstr(out, "score=5") != NULL);
    CHECK(strstr(out, "  binh 15\n") != NULL);
    CHECK(strstr(out, "digest d2d0eae9b38a3834323ae4cbe15de3f6b5b44da9"
                 "548fe5f2dec90c3c319bf6ad") != NULL);
    CHECK_INT(run("bin/arbiter replay --json tests/data/chan-draw.txt"), 0);
    CHECK(strstr(out, "\"result\":\"draw\"") != NULL);
    /* a refused move stops the replay with its line, rule and message */
    CHECK_INT(run("printf 'game: chan\\nmatch: X\\nplayers: a b c d\\n"
                  "deal: seed s\\npass b\\n' | bin/arbiter replay - 2>&1"), 1);
    CHECK(strstr(out, "§3 turn: not b's move: a, the dealer, opens with a "
                 "discard (or Thiên ù)") != NULL);
}

int
main(void)
{
    test_score();
    test_replay();
    return TEST_END();
}
