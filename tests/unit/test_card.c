/*
 * test_card.c - the 144-card YAHchain deck (chapter 34.2-34.3) and its
 * notation: <type><suit> with the suit as a Unicode symbol, an ASCII letter
 * or #N; round trips, accepted variants and the exact error messages.
 */
#include <stdio.h>
#include <string.h>

#include "core/card.h"
#include "core/err.h"
#include "tests/test.h"

/* The suit table, written out independently of core/card.c. */
static const char *const sym[ARB_SUITS] = {
    "\xe2\x99\xa0", "\xe2\x99\xa5", "\xe2\x99\xa6", "\xe2\x99\xa3",   /* ♠♥♦♣ */
    "\xe2\x98\x80", "\xe2\x98\xbe", "\xe2\x98\xb8", "\xe2\x9c\xbf",   /* ☀☾☸✿ */
    "\xe2\x9d\xa6", "\xe2\x9a\x99", "\xe2\x98\xaf", "\xe2\x99\xaa",   /* ❦⚙☯♪ */
};
/* Alternate symbols of suits 1..6: ♤ ♡ ♢ ♧ ☼ ☽. */
static const char *const alt[6] = {
    "\xe2\x99\xa4", "\xe2\x99\xa1", "\xe2\x99\xa2", "\xe2\x99\xa7",
    "\xe2\x98\xbc", "\xe2\x98\xbd",
};
static const char letter[ARB_SUITS + 1] = "SHDCUMWFLGYN";
static const char *const tname[ARB_TYPES] = {
    "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"
};
static const char *const sname[ARB_SUITS] = {
    "Spades", "Hearts", "Diamonds", "Clubs", "Suns", "Moons",
    "Wheels", "Flowers", "Leaves", "Gears", "Yins", "Notes",
};

/* Parses a NUL-terminated string; returns the rc, the card in *c. */
static int
parse(const char *s, arb_card_t *c, char *err, size_t errlen)
{
    if (err != NULL && errlen > 0)
        err[0] = '\0';
    return arb_card_parse(c, s, strlen(s), err, errlen);
}

/* Expects s to parse as (value, suit). */
static void
want_card(const char *s, int value, int suit)
{
    arb_card_t c = ARB_CARD_NONE;
    char       err[160];
    int        rc = parse(s, &c, err, sizeof(err));

    if (rc != 0 || c != arb_card_make(value, suit))
        fprintf(stderr, "  input \"%s\": rc %d, card %d, err \"%s\"\n", s, rc,
                (int)c, err);
    CHECK_INT(rc, 0);
    CHECK_INT(c, arb_card_make(value, suit));
}

/* Expects s to be rejected with exactly the message msg. */
static void
want_error(const char *s, const char *msg)
{
    arb_card_t c = ARB_CARD_NONE;
    char       err[256];

    CHECK_INT(parse(s, &c, err, sizeof(err)), ARB_EINVAL);
    CHECK_STR(err, msg);
}

/* Expects s to be rejected with a message containing (or starting with) part. */
static void
want_error_part(const char *s, const char *part, int prefix)
{
    arb_card_t c = ARB_CARD_NONE;
    char       err[256];
    int        ok;

    CHECK_INT(parse(s, &c, err, sizeof(err)), ARB_EINVAL);
    ok = prefix ? strncmp(err, part, strlen(part)) == 0
                : strstr(err, part) != NULL;
    if (!ok)
        fprintf(stderr, "  input \"%s\": message \"%s\" lacks \"%s\"\n", s,
                err, part);
    CHECK(ok);
}

/* The index layout, the value/suit accessors and the 144 distinct cards. */
static void
test_deck(void)
{
    int seen[ARB_DECK] = { 0 };
    int v, s, i, bad = 0, distinct = 0;

    CHECK_INT(ARB_SUITS, 12);
    CHECK_INT(ARB_TYPES, 12);
    CHECK_INT(ARB_DECK, 144);
    CHECK(ARB_CARD_NONE >= ARB_DECK);
    for (s = 1; s <= 12; s++)
        for (v = 2; v <= 13; v++) {
            arb_card_t c = arb_card_make(v, s);
            if (c >= ARB_DECK || c != (s - 1) * 12 + (v - 2)
                || arb_card_value(c) != v || arb_card_suit(c) != s)
                bad++;
            else
                seen[c]++;
        }
    CHECK_INT(bad, 0);
    for (i = 0; i < ARB_DECK; i++)
        distinct += seen[i] == 1;
    CHECK_INT(distinct, 144);
    /* Fixed values (§34.3): numbers are their value, J=11, Q=12, K=13. */
    for (i = 0; i < ARB_DECK; i++) {
        arb_card_t c = (arb_card_t)i;
        if (arb_card_value(c) < 2 || arb_card_value(c) > 13
            || arb_card_suit(c) < 1 || arb_card_suit(c) > 12)
            bad++;
    }
    CHECK_INT(bad, 0);
    CHECK_INT(arb_card_value(arb_card_make(11, 1)), 11);
    CHECK_INT(arb_card_value(arb_card_make(12, 7)), 12);
    CHECK_INT(arb_card_value(arb_card_make(13, 12)), 13);
    CHECK_INT(arb_card_make(2, 1), 0);
    CHECK_INT(arb_card_make(13, 12), 143);
    CHECK_INT(arb_card_suit(143), 12);
    CHECK_INT(arb_card_value(143), 13);
    CHECK_INT(arb_card_suit(0), 1);
    CHECK_INT(arb_card_value(0), 2);
}

static void
test_metadata(void)
{
    int s, v, bad = 0;

    for (s = 1; s <= 12; s++) {
        if (strcmp(arb_suit_symbol(s), sym[s - 1]) != 0
            || arb_suit_letter(s) != letter[s - 1]
            || strcmp(arb_suit_name(s), sname[s - 1]) != 0) {
            fprintf(stderr, "  suit %d: \"%s\" '%c' \"%s\"\n", s,
                    arb_suit_symbol(s), arb_suit_letter(s), arb_suit_name(s));
            bad++;
        }
    }
    CHECK_INT(bad, 0);
    for (v = 2; v <= 13; v++)
        CHECK_STR(arb_type_name(v), tname[v - 2]);
    CHECK_STR(arb_type_name(1), "?");
    CHECK_STR(arb_type_name(14), "?");
    CHECK_STR(arb_suit_symbol(0), "?");
    CHECK_STR(arb_suit_symbol(13), "?");
    CHECK_STR(arb_suit_name(13), "?");
    CHECK_INT(arb_suit_letter(0), '?');
}

/* All 144 x 3: the formatted text is the expected one and parses back. */
static void
test_round_trip(void)
{
    static const int styles[3] = {
        ARB_CARD_UNICODE, ARB_CARD_ASCII, ARB_CARD_NUMERIC
    };
    char   seen[3][ARB_DECK][16];
    int    i, k, j, bad_text = 0, bad_parse = 0, dup = 0, trips = 0;

    for (k = 0; k < 3; k++)
        for (i = 0; i < ARB_DECK; i++) {
            arb_card_t c = (arb_card_t)i, back = ARB_CARD_NONE;
            char       out[16], want[16], err[128];
            size_t     n;
            int        rc;

            memset(out, 'x', sizeof(out));
            n = arb_card_format(out, c, styles[k]);
            switch (styles[k]) {
            case ARB_CARD_ASCII:
                snprintf(want, sizeof(want), "%s%c",
                         tname[arb_card_value(c) - 2],
                         letter[arb_card_suit(c) - 1]);
                break;
            case ARB_CARD_NUMERIC:
                snprintf(want, sizeof(want), "%s#%d",
                         tname[arb_card_value(c) - 2], arb_card_suit(c));
                break;
            default:
                snprintf(want, sizeof(want), "%s%s",
                         tname[arb_card_value(c) - 2],
                         sym[arb_card_suit(c) - 1]);
            }
            if (n != strlen(want) || strcmp(out, want) != 0) {
                if (bad_text++ < 10)
                    fprintf(stderr, "  format(%d, style %d) = \"%.16s\" "
                            "want \"%s\"\n", i, k, out, want);
                continue;
            }
            memcpy(seen[k][i], out, sizeof(out));
            err[0] = '\0';
            rc = arb_card_parse(&back, out, n, err, sizeof(err));
            if (rc != 0 || back != c) {
                if (bad_parse++ < 10)
                    fprintf(stderr, "  parse(\"%s\") = %d card %d: %s\n",
                            out, rc, (int)back, err);
                continue;
            }
            trips++;
        }
    CHECK_INT(bad_text, 0);
    CHECK_INT(bad_parse, 0);
    CHECK_INT(trips, 3 * 144);
    /* 144 distinct texts in each style. */
    for (k = 0; k < 3; k++)
        for (i = 0; i < ARB_DECK; i++)
            for (j = i + 1; j < ARB_DECK; j++)
                dup += strcmp(seen[k][i], seen[k][j]) == 0;
    CHECK_INT(dup, 0);
    /* Unicode is the default style. */
    {
        char a[16], b[16];
        arb_card_format(a, arb_card_make(10, 5), 99);
        arb_card_format(b, arb_card_make(10, 5), ARB_CARD_UNICODE);
        CHECK_STR(a, b);
        CHECK_STR(a, "10\xe2\x98\x80");
    }
    /* Outside the deck. */
    {
        char out[16];
        CHECK_INT(arb_card_format(out, 144, ARB_CARD_ASCII), 1);
        CHECK_STR(out, "?");
        CHECK_INT(arb_card_format(out, ARB_CARD_NONE, ARB_CARD_UNICODE), 1);
        CHECK_STR(out, "?");
    }
}

/* Case-insensitive letters, j/q/k, the parse honours len (no NUL needed). */
static void
test_variants(void)
{
    char buf[32];
    int  s, v, bad = 0;

    for (s = 1; s <= 12; s++)
        for (v = 2; v <= 13; v++) {
            arb_card_t c = ARB_CARD_NONE;
            char       lc = (char)(letter[s - 1] + ('a' - 'A'));
            const char *t = tname[v - 2];
            char        tl[3];

            snprintf(tl, sizeof(tl), "%s", t);
            if (v >= 11)
                tl[0] = (char)(tl[0] + ('a' - 'A'));
            /* lower-case type and suit, mixed case */
            snprintf(buf, sizeof(buf), "%s%c", tl, lc);
            if (parse(buf, &c, NULL, 0) != 0 || c != arb_card_make(v, s))
                bad++, fprintf(stderr, "  rejected \"%s\"\n", buf);
            snprintf(buf, sizeof(buf), "%s%c", t, lc);
            if (parse(buf, &c, NULL, 0) != 0 || c != arb_card_make(v, s))
                bad++, fprintf(stderr, "  rejected \"%s\"\n", buf);
            snprintf(buf, sizeof(buf), "%s%c", tl, letter[s - 1]);
            if (parse(buf, &c, NULL, 0) != 0 || c != arb_card_make(v, s))
                bad++, fprintf(stderr, "  rejected \"%s\"\n", buf);
            /* U+FE0F after the symbol is ignored. */
            snprintf(buf, sizeof(buf), "%s%s\xef\xb8\x8f", t, sym[s - 1]);
            if (parse(buf, &c, NULL, 0) != 0 || c != arb_card_make(v, s))
                bad++, fprintf(stderr, "  rejected \"%s\"\n", buf);
            /* len is honoured: trailing bytes past len are not read. */
            snprintf(buf, sizeof(buf), "%s%sZZ", t, sym[s - 1]);
            if (arb_card_parse(&c, buf, strlen(buf) - 2, NULL, 0) != 0
                || c != arb_card_make(v, s))
                bad++, fprintf(stderr, "  rejected prefix of \"%s\"\n", buf);
        }
    CHECK_INT(bad, 0);
    /* Every byte as a one-letter suit: exactly the 24 letters of the
     * table, either case, each its own suit (a switch reads them). */
    for (v = 0; v < 256; v++) {
        arb_card_t c = ARB_CARD_NONE;
        char       u = v >= 'a' && v <= 'z' ? (char)(v - 32) : (char)v;
        const char *at = v != 0 ? strchr(letter, u) : NULL;

        buf[0] = '7';
        buf[1] = (char)v;
        buf[2] = '\0';
        if (at == NULL ? arb_card_parse(&c, buf, 2, NULL, 0) != ARB_EINVAL
                       : arb_card_parse(&c, buf, 2, NULL, 0) != 0
                         || c != arb_card_make(7, (int)(at - letter) + 1))
            bad++, fprintf(stderr, "  letter byte %d\n", v);
    }
    CHECK_INT(bad, 0);

    want_card("jS", 11, 1);
    want_card("qh", 12, 2);
    want_card("kd", 13, 3);
    want_card("Kc", 13, 4);
    want_card("10s", 10, 1);
    want_card("2n", 2, 12);
    want_card("7#1", 7, 1);
    want_card("K#12", 13, 12);
    want_card("j#5", 11, 5);
}

static void
test_symbols(void)
{
    int i, v;

    /* The FE0F example from the brief: ♥ + U+FE0F. */
    want_card("7\xe2\x99\xa5\xef\xb8\x8f", 7, 2);
    want_card("Q\xe2\x99\xa0\xef\xb8\x8f", 12, 1);
    want_card("10\xe2\x99\xa6\xef\xb8\x8f", 10, 3);
    /* The alternate symbols ♤ ♡ ♢ ♧ ☼ ☽, bare and with U+FE0F. */
    for (i = 0; i < 6; i++)
        for (v = 2; v <= 13; v++) {
            char buf[32];
            snprintf(buf, sizeof(buf), "%s%s", tname[v - 2], alt[i]);
            want_card(buf, v, i + 1);
            snprintf(buf, sizeof(buf), "%s%s\xef\xb8\x8f", tname[v - 2],
                     alt[i]);
            want_card(buf, v, i + 1);
        }
    want_card("4\xe2\x99\xa4", 4, 1);    /* 4♤ */
    want_card("J\xe2\x99\xa1", 11, 2);   /* J♡ */
    want_card("9\xe2\x99\xa2", 9, 3);    /* 9♢ */
    want_card("2\xe2\x99\xa7", 2, 4);    /* 2♧ */
    want_card("K\xe2\x98\xbc", 13, 5);   /* K☼ */
    want_card("5\xe2\x98\xbd", 5, 6);    /* 5☽ */
    want_card("5\xe2\x98\xbe", 5, 6);    /* 5☾ */
    /* Suits 7..12 have no alternate: the neighbours of their symbols are
     * not accepted. */
    want_error("5\xe2\x98\xb9", "unknown suit '\xe2\x98\xb9' in '5\xe2\x98\xb9'");
    /* U+FE0E (text presentation) alike */
    want_card("7\xe2\x99\xa5\xef\xb8\x8e", 7, 2);
    want_error_part("7\xe2\x99\xa5\xef\xb8\x8d", "unknown suit", 1);
    /* Only one U+FE0F, and only after a symbol. */
    want_error_part("7\xe2\x99\xa5\xef\xb8\x8f\xef\xb8\x8f", "unknown suit", 1);
    want_error_part("7\xef\xb8\x8f", "unknown suit", 1);
}

static void
test_errors(void)
{
    char       longbuf[64], err[256];
    arb_card_t c = ARB_CARD_NONE;

    want_error("7Z", "unknown suit 'Z' in '7Z'");
    want_error("7z", "unknown suit 'z' in '7z'");
    want_error("1\xe2\x99\xa0", "type 1 does not exist: types are 2..10, J, Q, K");
    want_error("A\xe2\x99\xa0", "type A does not exist: types are 2..10, J, Q, K");
    want_error("a\xe2\x99\xa0", "type a does not exist: types are 2..10, J, Q, K");
    want_error("11\xe2\x99\xa0", "type 11 does not exist: types are 2..10, J, Q, K");
    want_error("0S", "type 0 does not exist: types are 2..10, J, Q, K");
    want_error("14S", "type 14 does not exist: types are 2..10, J, Q, K");
    want_error("010S", "type 010 does not exist: types are 2..10, J, Q, K");
    want_error("XS", "type X does not exist: types are 2..10, J, Q, K");
    /* Only J, Q, K are case-folded: control bytes that fold onto a digit
     * ("\x12" | 0x20 == '2') are not types. */
    want_error("\x12S", "type \x12 does not exist: types are 2..10, J, Q, K");
    want_error("\x19S", "type \x19 does not exist: types are 2..10, J, Q, K");
    /* A symbol where the type should be is quoted whole. */
    want_error("\xe2\x99\xa0" "7",
               "type \xe2\x99\xa0 does not exist: types are 2..10, J, Q, K");
    want_error_part("7", "missing suit in '7'", 1);
    want_error_part("10", "missing suit in '10'", 1);
    want_error_part("k", "missing suit in 'k'", 1);
    want_error_part("7#13", "does not exist: suits are #1..#12", 0);
    want_error_part("7#0", "does not exist: suits are #1..#12", 0);
    want_error("7#13", "suit #13 does not exist: suits are #1..#12, in '7#13'");
    want_error("7#0", "suit #0 does not exist: suits are #1..#12, in '7#0'");
    want_error("7#", "unknown suit '#' in '7#'");
    want_error("7#x", "unknown suit '#x' in '7#x'");
    want_error("7#1x", "unknown suit '#1x' in '7#1x'");
    want_error("7SS", "unknown suit 'SS' in '7SS'");
    want_error("7 S", "unknown suit ' S' in '7 S'");
    want_error("7\xe2\x99\xa0x", "unknown suit '\xe2\x99\xa0x' in '7\xe2\x99\xa0x'");
    want_error_part("7#99999999999999999999", "7#99999999999999999999", 0);
    /* Empty input. */
    CHECK_INT(arb_card_parse(&c, "", 0, err, sizeof(err)), ARB_EINVAL);
    CHECK_STR(err, "empty card");
    CHECK_INT(arb_card_parse(&c, "7S", 0, err, sizeof(err)), ARB_EINVAL);
    CHECK_STR(err, "empty card");
    /* Overly long input: 33 bytes are refused, the text is cut to 16. */
    memset(longbuf, 'A', sizeof(longbuf));
    longbuf[0] = '7';
    longbuf[33] = '\0';
    want_error(longbuf, "card '7AAAAAAAAAAAAAAA...' is too long");
    longbuf[60] = '\0';
    want_error_part(longbuf, "too long", 0);
    /* ...while 32 bytes are still read as a card (and rejected for the suit). */
    longbuf[32] = '\0';
    want_error_part(longbuf, "unknown suit", 1);
    /* A small error buffer is truncated and terminated, never overrun. */
    {
        char small[8];
        memset(small, 'x', sizeof(small));
        CHECK_INT(arb_card_parse(&c, "7Z", 2, small, 6), ARB_EINVAL);
        CHECK_STR(small, "unkno");
        CHECK_INT(small[6], 'x');
        CHECK_INT(small[7], 'x');
    }
    /* A NULL error buffer is allowed. */
    CHECK_INT(arb_card_parse(&c, "7Z", 2, NULL, 0), ARB_EINVAL);
    CHECK_INT(arb_card_parse(&c, "", 0, NULL, 0), ARB_EINVAL);
    /* A malformed UTF-8 lead byte does not read past len. */
    CHECK_INT(arb_card_parse(&c, "\xf0", 1, err, sizeof(err)), ARB_EINVAL);
    CHECK_INT(arb_card_parse(&c, "7\xe2\x99", 3, err, sizeof(err)), ARB_EINVAL);
    CHECK_STR(err, "unknown suit '\xe2\x99' in '7\xe2\x99'");
}

int
main(void)
{
    test_deck();
    test_metadata();
    test_round_trip();
    test_variants();
    test_symbols();
    test_errors();
    return TEST_END();
}
