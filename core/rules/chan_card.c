/*
 * chan_card.c - Chắn card notation.
 *
 * DESIGN: parsing lower-cases ASCII only; the Vietnamese words are matched
 * in NFC with their diacritics, because "van" without them could be Vạn or
 * Văn and a recorder must not guess (that case is refused, naming both).
 */
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "core/rules/chan_card.h"

#define TOKEN_MAX 40

static const char suit_letter[3] = { 'V', 'S', 'W' };

static const struct {
    const char *word;
    int         rank;
} numerals[] = {
    { "nhị", 2 }, { "nhi", 2 }, { "tam", 3 }, { "tứ", 4 }, { "tu", 4 },
    { "ngũ", 5 }, { "ngu", 5 }, { "lục", 6 }, { "luc", 6 }, { "thất", 7 },
    { "that", 7 }, { "bát", 8 }, { "bat", 8 }, { "cửu", 9 }, { "cuu", 9 },
    { "nhất", 1 }, { "nhat", 1 },
};

static const struct {
    const char *word;
    int         suit;
} suits[] = {
    { "vạn", ARB_CHAN_VAN }, { "sách", ARB_CHAN_SACH },
    { "sach", ARB_CHAN_SACH }, { "văn", ARB_CHAN_VAN2 },
    { "v", ARB_CHAN_VAN }, { "s", ARB_CHAN_SACH }, { "w", ARB_CHAN_VAN2 },
};

static const char *const names[ARB_CHAN_FACES] = {
    "Nhị vạn", "Tam vạn", "Tứ vạn", "Ngũ vạn", "Lục vạn", "Thất vạn",
    "Bát vạn", "Cửu vạn",
    "Nhị sách", "Tam sách", "Tứ sách", "Ngũ sách", "Lục sách", "Thất sách",
    "Bát sách", "Cửu sách",
    "Nhị văn", "Tam văn", "Tứ văn", "Ngũ văn", "Lục văn", "Thất văn",
    "Bát văn", "Cửu văn",
    "Chi chi",
};

int
arb_chan_red(int face)
{
    int r = arb_chan_rank(face), s = arb_chan_suit(face);

    return face == ARB_CHAN_CC
           || ((s == ARB_CHAN_VAN || s == ARB_CHAN_SACH) && r >= 8);
}

char *
arb_chan_card_format(char *out, int face)
{
    if (face == ARB_CHAN_CC)
        snprintf(out, 4, "CC");
    else if (face >= 0 && face < ARB_CHAN_CC)
        snprintf(out, 4, "%d%c", arb_chan_rank(face),
                 suit_letter[arb_chan_suit(face)]);
    else
        snprintf(out, 4, "??");
    return out;
}

const char *
arb_chan_card_name(int face)
{
    return face >= 0 && face < ARB_CHAN_FACES ? names[face] : "?";
}

static int
fail(char *err, size_t errlen, const char *fmt, const char *a,
     const char *b)
{
    snprintf(err, errlen, fmt, a, b);
    return ARB_EINVAL;
}

int
arb_chan_card_parse(int *face, const char *s, size_t len, char *err,
                    size_t errlen)
{
    char        t[TOKEN_MAX + 1], shown[TOKEN_MAX + 4];
    const char *p;
    size_t      i, n;
    int         rank = 0;

    snprintf(shown, sizeof(shown), "%.*s%s",
             (int)(len > TOKEN_MAX ? TOKEN_MAX : len), s,
             len > TOKEN_MAX ? "..." : "");
    if (len == 0)
        return fail(err, errlen, "empty card%s%s", "", "");
    if (len > TOKEN_MAX)
        return fail(err, errlen, "'%s' is not a card%s", shown, "");
    for (i = 0; i < len; i++)
        t[i] = (s[i] >= 'A' && s[i] <= 'Z') ? (char)(s[i] - 'A' + 'a')
                                            : s[i];
    t[len] = '\0';
    if (strcmp(t, "cc") == 0 || strcmp(t, "chichi") == 0
        || strcmp(t, "chi-chi") == 0 || strcmp(t, "chi_chi") == 0
        || strcmp(t, "chi chi") == 0) {
        *face = ARB_CHAN_CC;
        return 0;
    }

    p = t;
    if (*p >= '0' && *p <= '9') {
        rank = *p++ - '0';
        if (*p >= '0' && *p <= '9')
            rank = 10;
    } else {
        for (i = 0; i < sizeof(numerals) / sizeof(numerals[0]); i++) {
            n = strlen(numerals[i].word);
            if (strncmp(p, numerals[i].word, n) == 0) {
                rank = numerals[i].rank;
                p += n;
                break;
            }
        }
        if (rank == 0)
            return fail(err, errlen, "'%s' is not a card: write 2V..9V, "
                        "2S..9S, 2W..9W or CC%s", shown, "");
        if (*p == '-' || *p == '_' || *p == ' ')
            p++;
    }
    if (rank < 2 || rank > 9)
        return fail(err, errlen, "no rank %s in '%s': the 100-card deck "
                    "has ranks 2..9 (the 1s, Ông cụ and Thang thang are "
                    "out)", rank == 1 ? "1" : rank == 0 ? "0" : "above 9",
                    shown);
    if (*p == '\0')
        return fail(err, errlen, "missing suit in '%s': add V (Vạn), "
                    "S (Sách) or W (Văn)%s", shown, "");
    if (strcmp(p, "van") == 0)
        return fail(err, errlen, "'%s' is ambiguous without its accent: "
                    "vạn is V, văn is W%s", shown, "");
    for (i = 0; i < sizeof(suits) / sizeof(suits[0]); i++)
        if (strcmp(p, suits[i].word) == 0) {
            *face = arb_chan_face(rank, suits[i].suit);
            return 0;
        }
    return fail(err, errlen, "unknown suit '%s' in '%s': suits are V "
                "(Vạn), S (Sách), W (Văn)", p, shown);
}
