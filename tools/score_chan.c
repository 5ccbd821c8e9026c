/*
 * arbiter score --game chan - judge a claimed Chắn winning hand.
 *
 * DESIGN: the tool is a thin shell over arb_chan_evaluate(), the same
 * function the recorder uses when a `win` is recorded, so a hand scored
 * here scores the same in a match.  The hand is given as its layout:
 * concealed cards alone ("5V"), exposed groups joined with '+' ("5V+5S",
 * "7S+7S+7S+7S"), the winning card and how it was won.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/json.h"
#include "core/rules/chan_score.h"
#include "tools/cli.h"

static const char *const won_names[] = { "heaven", "self", "stock", "chiu" };

static void
usage(FILE *f)
{
    fprintf(f,
        "usage: arbiter score --game chan [--json] [--tom R] [--khai-bon R] "
        "--won HOW\n       [--win CARD] CARDS...\n\n"
        "Judges a claimed Chắn winning hand (docs/rules/chan.md) and prints\n"
        "its pairing, each bonus with base and dịch, and the score.\n\n"
        "  --won HOW   self   a stock card the winner flipped (Ù chì)\n"
        "              stock  a stock card another player flipped\n"
        "              chiu   a discard claimed by Chíu (three in hand)\n"
        "              heaven Thiên ù: the dealer's first twenty cards\n"
        "  --win CARD  the winning card (one of the concealed cards);\n"
        "              not with heaven\n"
        "  --tom R     usual (default): Tôm is 3V 3S 7W; literal: 3V 3W 7W,\n"
        "              \"Три Монет\" as the text writes it\n"
        "  --khai-bon R  once (default): Thiên khai and Bòn count once;\n"
        "              each: once per four identical cards\n"
        "  --json      print one JSON object\n\n"
        "CARDS: the twenty cards.  A concealed card is written alone (5V);\n"
        "an exposed group joins its cards with '+': a captured Chắn 5V+5V,\n"
        "a captured Cạ 5V+5S, a declared Chíu 7S+7S+7S+7S.  Cards: 2V..9V\n"
        "(Vạn), 2S..9S (Sách), 2W..9W (Văn), CC (Chi chi); Vietnamese names\n"
        "such as tam-vạn also work.  Words may be split by commas.\n\n"
        "Exit status: 0 a winning hand, 1 not a winning hand or an\n"
        "impossible one, 2 bad usage.\n");
}

static int
parse_group(arb_chan_layout_t *l, const char *s, size_t len, char *err,
            size_t errlen)
{
    int         f[4], n = 0;
    size_t      i = 0, start;
    char        e[160];

    while (i <= len) {
        start = i;
        while (i < len && s[i] != '+')
            i++;
        if (n == 4) {
            snprintf(err, errlen, "'%.*s': a group has 2 or 4 cards",
                     (int)len, s);
            return -1;
        }
        if (arb_chan_card_parse(&f[n], s + start, i - start, e,
                                sizeof(e)) != 0) {
            snprintf(err, errlen, "%s", e);
            return -1;
        }
        n++;
        i++;
    }
    if (n == 1) {
        l->concealed[f[0]]++;
        return 0;
    }
    if (l->ngroups == ARB_CHAN_GROUPS_MAX || n == 3
        || (n == 4 && (f[1] != f[0] || f[2] != f[0] || f[3] != f[0]))) {
        snprintf(err, errlen, "'%.*s' is not an exposed group: a Chắn or "
                 "Cạ has two cards, a Chíu four identical ones", (int)len, s);
        return -1;
    }
    l->groups[l->ngroups].kind = n == 4 ? ARB_CHAN_G_CHIU
                                 : f[0] == f[1] ? ARB_CHAN_G_CHAN
                                 : ARB_CHAN_G_CA;
    l->groups[l->ngroups].face[0] = (unsigned char)f[0];
    l->groups[l->ngroups].face[1] = (unsigned char)f[1];
    l->ngroups++;
    return 0;
}

static int
parse_words(arb_chan_layout_t *l, const char *s, char *err, size_t errlen)
{
    size_t i = 0, start, len = strlen(s);

    while (i < len) {
        if (s[i] == ' ' || s[i] == ',' || s[i] == '\t') {
            i++;
            continue;
        }
        start = i;
        while (i < len && s[i] != ' ' && s[i] != ',' && s[i] != '\t')
            i++;
        if (parse_group(l, s + start, i - start, err, errlen) != 0)
            return -1;
    }
    return 0;
}

static void
print_text(const arb_chan_layout_t *l, const arb_chan_score_t *sc)
{
    const arb_chan_bonus_info_t *b;
    char                         a[8];
    int                          i, k, pad;

    printf("WIN %d\n", sc->points);
    printf("won %s", won_names[l->won]);
    if (l->win_face >= 0)
        printf(", winning card %s", arb_chan_card_format(a, l->win_face));
    printf("\npairs");
    for (i = 0; i < sc->pairing.n; i++)
        printf(" %s%s", arb_chan_pair_format(a, &sc->pairing.pair[i]),
               sc->pairing.pair[i].exposed ? "*" : "");
    printf("   (* exposed)\nchan %d  ca %d  red %d\n", sc->chan, sc->ca,
           sc->red);
    if (sc->nbonus == 0) {
        printf("no bonus: Ù xuông, %d\n", sc->points);
    } else {
        printf("%-14s %-12s %4s %4s\n", "bonus", "id", "base", "dich");
        for (i = 0; i < sc->nbonus; i++) {
            b = arb_chan_bonus_info(sc->bonus[i]);
            /* printf pads bytes: widen by the UTF-8 continuation bytes */
            for (k = 0, pad = 14; b->name[k]; k++)
                if (((unsigned char)b->name[k] & 0xc0) == 0x80)
                    pad++;
            printf("%-*s %-12s %4d %4d%s\n", pad, b->name, b->id, b->base,
                   b->dich, i == sc->main ? "  main" : "");
        }
        /* the main bonus first, then the others in table order */
        b = arb_chan_bonus_info(sc->bonus[sc->main]);
        printf("score %d (%s)", b->base, b->name);
        for (i = 0; i < sc->nbonus; i++) {
            if (i == sc->main)
                continue;
            b = arb_chan_bonus_info(sc->bonus[i]);
            printf(" + %d (%s)", sc->all_bases ? b->base : b->dich, b->name);
        }
        printf(" = %d%s\n", sc->points, sc->all_bases
               ? "   Thập thành: every base is added"
               : "   the main bonus's base, the others' dịch");
    }
    printf("each loser pays %d, the winner receives %d\n", sc->points,
           3 * sc->points);
}

static void
print_json(const arb_chan_layout_t *l, const arb_chan_score_t *sc)
{
    const arb_chan_bonus_info_t *b;
    json_t                      *o = json_object(), *pairs = json_array();
    json_t                      *bonuses = json_array(), *x;
    char                         a[8];
    int                          i, bad = 0;

    for (i = 0; i < sc->pairing.n; i++) {
        x = json_object();
        bad |= arb_json_set(x, "pair", arb_json_string(
                                arb_chan_pair_format(a, &sc->pairing.pair[i])));
        bad |= arb_json_set(x, "exposed",
                            json_boolean(sc->pairing.pair[i].exposed));
        bad |= arb_json_add(pairs, x);
    }
    for (i = 0; i < sc->nbonus; i++) {
        b = arb_chan_bonus_info(sc->bonus[i]);
        x = json_object();
        bad |= arb_json_set(x, "id", arb_json_string(b->id));
        bad |= arb_json_set(x, "name", arb_json_string(b->name));
        bad |= arb_json_set(x, "base", json_integer(b->base));
        bad |= arb_json_set(x, "dich", json_integer(b->dich));
        bad |= arb_json_set(x, "main", json_boolean(i == sc->main));
        bad |= arb_json_add(bonuses, x);
    }
    bad |= arb_json_set(o, "win", json_true());
    bad |= arb_json_set(o, "won", arb_json_string(won_names[l->won]));
    bad |= arb_json_set(o, "winning_card", l->win_face >= 0
                        ? arb_json_string(arb_chan_card_format(a,
                                                               l->win_face))
                        : json_null());
    bad |= arb_json_set(o, "pairs", pairs);
    bad |= arb_json_set(o, "chan", json_integer(sc->chan));
    bad |= arb_json_set(o, "ca", json_integer(sc->ca));
    bad |= arb_json_set(o, "red", json_integer(sc->red));
    bad |= arb_json_set(o, "bonuses", bonuses);
    bad |= arb_json_set(o, "main", arb_json_string(
                            sc->main < 0 ? "u-xuong"
                            : arb_chan_bonus_info(sc->bonus[sc->main])->id));
    bad |= arb_json_set(o, "all_bases", json_boolean(sc->all_bases));
    bad |= arb_json_set(o, "score", json_integer(sc->points));
    bad |= arb_json_set(o, "loser_pays", json_integer(sc->points));
    bad |= arb_json_set(o, "winner_receives", json_integer(3 * sc->points));
    if (bad) {
        json_decref(o);
        o = NULL;
    }
    cli_print_json("score", o);
}

static void
print_fail(int json, const char *kind, const char *why)
{
    json_t *o;
    int     bad = 0;

    if (!json) {
        printf("%s %s\n", kind[0] == 'n' ? "NOT A WIN" : "ERROR", why);
        return;
    }
    o = json_object();
    bad |= arb_json_set(o, "win", json_false());
    bad |= arb_json_set(o, kind[0] == 'n' ? "reason" : "error",
                        arb_json_string(why));
    if (bad) {
        json_decref(o);
        o = NULL;
    }
    cli_print_json("score", o);
}

int
cmd_score_chan(int argc, char **argv)
{
    arb_chan_layout_t l;
    arb_chan_score_t  sc;
    const char       *won = NULL, *win = NULL, *game = NULL;
    const char       *tom = NULL, *khai = NULL;
    char              err[240];
    int               i, k, json = 0, ncards = 0, rc;
    const cli_optdef_t opts[] = {
        { "--game", CLI_ARG_STR, &game },   /* "chan": dispatched */
        { "--json", CLI_ARG_FLAG, &json },
        { "--won", CLI_ARG_STR, &won },
        { "--win", CLI_ARG_STR, &win },
        { "--tom", CLI_ARG_STR, &tom },
        { "--khai-bon", CLI_ARG_STR, &khai },
        { NULL, 0, NULL }
    };
    cli_args_t a = { .cmd = "score", .usage = usage, .opts = opts,
                     .dash_words = 1 };

    memset(&l, 0, sizeof(l));
    l.win_face = -1;
    rc = cli_args_parse(&a, argc, argv);
    if (rc >= 0)
        return rc;
    if (tom != NULL && strcmp(tom, "usual") != 0 && strcmp(tom, "literal") != 0) {
        fprintf(stderr, "arbiter score: --tom usual|literal, not '%s'\n", tom);
        return CLI_ERROR;
    }
    if (khai != NULL && strcmp(khai, "once") != 0 && strcmp(khai, "each") != 0) {
        fprintf(stderr, "arbiter score: --khai-bon once|each, not '%s'\n",
                khai);
        return CLI_ERROR;
    }
    if (tom != NULL && strcmp(tom, "literal") == 0)
        l.rules |= ARB_CHAN_R_TOM_LITERAL;
    if (khai != NULL && strcmp(khai, "each") == 0)
        l.rules |= ARB_CHAN_R_EACH;
    for (i = 0; i < a.npos; i++) {
        if (parse_words(&l, a.pos[i], err, sizeof(err)) != 0) {
            print_fail(json, "error", err);
            return CLI_DIFFERS;
        }
        ncards++;
    }
    l.won = -1;
    for (k = 0; won != NULL && k < 4; k++)
        if (strcmp(won, won_names[k]) == 0)
            l.won = k;
    if (l.won < 0) {
        fprintf(stderr, "arbiter score: --won must be self, stock, chiu or "
                "heaven\n");
        return CLI_ERROR;
    }
    if (ncards == 0) {
        fprintf(stderr, "arbiter score: no cards given\n");
        return CLI_ERROR;
    }
    if (l.won == ARB_CHAN_WON_HEAVEN && win != NULL) {
        fprintf(stderr, "arbiter score: Thiên ù has no winning card: drop "
                "--win\n");
        return CLI_ERROR;
    }
    if (l.won != ARB_CHAN_WON_HEAVEN) {
        if (win == NULL) {
            fprintf(stderr, "arbiter score: --win CARD is required (the "
                    "winning card)\n");
            return CLI_ERROR;
        }
        if (arb_chan_card_parse(&l.win_face, win, strlen(win), err,
                                sizeof(err)) != 0) {
            print_fail(json, "error", err);
            return CLI_DIFFERS;
        }
    }
    rc = arb_chan_evaluate(&l, &sc, err, sizeof(err));
    if (rc != 0) {
        print_fail(json, rc == 1 ? "not" : "error", err);
        return CLI_DIFFERS;
    }
    if (json)
        print_json(&l, &sc);
    else
        print_text(&l, &sc);
    return 0;
}
