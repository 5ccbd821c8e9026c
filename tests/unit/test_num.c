/*
 * test_num.c - decimal numbers (core/num.h): the one parser behind the
 * cursor file, stream headers and transcripts.
 */
#include <string.h>

#include "core/num.h"
#include "tests/test.h"

static int
parses(const char *s, uint64_t want)
{
    uint64_t v = 0;

    return arb_u64_parse(s, strlen(s), &v) == 0 && v == want;
}

static int
refuses(const char *s)
{
    uint64_t v = 7;

    return arb_u64_parse(s, strlen(s), &v) == -1 && v == 7;
}

int
main(void)
{
    uint64_t v = 0;

    CHECK(parses("0", 0));
    CHECK(parses("007", 7));
    CHECK(parses("42", 42));
    CHECK(parses("18446744073709551615", UINT64_MAX));
    CHECK(parses("00000000000000000001", 1));       /* 20 digits */
    CHECK(refuses(""));
    CHECK(refuses("18446744073709551616"));
    CHECK(refuses("99999999999999999999"));
    CHECK(refuses("000000000000000000001"));        /* 21 digits */
    CHECK(refuses("-1"));
    CHECK(refuses("+1"));
    CHECK(refuses(" 1"));
    CHECK(refuses("1 "));
    CHECK(refuses("1a"));
    CHECK(refuses("0x10"));
    /* n bounds the text: what follows is not read */
    CHECK(arb_u64_parse("12x", 2, &v) == 0 && v == 12);
    CHECK(arb_u64_parse("12", 0, &v) == -1);
    return TEST_END();
}
