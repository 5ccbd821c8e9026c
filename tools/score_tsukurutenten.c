/*
 * arbiter score --game tsukurutenten - evaluate one hand of 8 chips: every
 * arrangement worth exactly 10 (or none), and the best one's bonuses and
 * points, through the same search and scoring the rule set uses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/json.h"
#include "core/rules/tsuku_bonus.h"
#include "tools/cli.h"

static void
usage(FILE *f)
{
    fprintf(f,
        "usage: arbiter score --game tsukurutenten [options] CHIP...\n\n"
        "Evaluates a Tsukurutenten hand of 8 chips: lists every arrangement\n"
        "worth exactly 10 (sets and purple colours, canonical text as a\n"
        "finish declares it) with its points, then the best one's bonuses.\n"
        "\"arrangements worth 10: none\" when the hand cannot finish.\n\n"
        "options:\n"
        "  --scoring S   simple (1 point a win) or extended (default: base\n"
        "                and hand bonuses)\n"
        "  --dealer      the winner is the round's dealer (base 3, not 2)\n"
        "  --heaven      finished by a draw on the winner's first turn\n"
        "  --exclusion E the second exclusion rule: double-three (default:\n"
        "                a three and a double three exclude each other) or\n"
        "                literal (as the text writes it: three and double\n"
        "                four, already excluded by the first rule)\n"
        "  --open SET    an open set, e.g. B4+B5+B6 or P5r+P6r+P7r; its\n"
        "                chips count among the 8 (repeatable)\n"
        "  --json        one JSON object\n"
        "chips: B1..B7 (blue), R0..R7 (red), P5..P8 (purple), separated by\n"
        "spaces or commas.  Exit status: 0 evaluated, 1 bad hand, 2 bad\n"
        "usage.\n");
}

typedef struct hand {
    int             counts[ARB_TSUKU_KINDS];   /* concealed */
    int             nopen;
    arb_tsuku_set_t open[ARB_TSUKU_SETS_MAX];
    int             nchips;
} hand_t;

static int
add_open(hand_t *h, const char *word, char *err, size_t errlen)
{
    arb_tsuku_chip_t c[3];
    const char      *p = word, *plus;
    char             why[200];
    int              i;

    if (h->nopen == ARB_TSUKU_SETS_MAX) {
        snprintf(err, errlen, "more than %d open sets", ARB_TSUKU_SETS_MAX);
        return -1;
    }
    for (i = 0; i < 3; i++) {
        plus = strchr(p, '+');
        if ((i < 2) != (plus != NULL)) {
            snprintf(err, errlen, "'%s' is not a set: write three chips "
                     "joined by '+', e.g. B4+B5+B6", word);
            return -1;
        }
        if (arb_tsuku_chip_parse(&c[i], p,
                                 plus ? (size_t)(plus - p) : strlen(p), 1,
                                 err, errlen) != 0)
            return -1;
        p = plus ? plus + 1 : p;
    }
    if (arb_tsuku_set_make(&h->open[h->nopen], c, why, sizeof(why)) != 0) {
        snprintf(err, errlen, "open set %s", why);
        return -1;
    }
    h->nopen++;
    h->nchips += 3;
    return 0;
}

static int
add_chips(hand_t *h, const char *arg, char *err, size_t errlen)
{
    arb_tsuku_chip_t c;
    size_t           i = 0, start, len = strlen(arg);

    while (i < len) {
        if (arg[i] == ' ' || arg[i] == ',' || arg[i] == '\t') {
            i++;
            continue;
        }
        start = i;
        while (i < len && arg[i] != ' ' && arg[i] != ',' && arg[i] != '\t')
            i++;
        if (arb_tsuku_chip_parse(&c, arg + start, i - start, 0, err,
                                 errlen) != 0)
            return -1;
        h->counts[c.kind]++;
        h->nchips++;
    }
    return 0;
}

/* The hand must be 8 chips that the chip set can hold. */
static int
check_hand(const hand_t *h, char *err, size_t errlen)
{
    int  n[ARB_TSUKU_KINDS], k, i, j;
    char name[8];

    if (h->nchips != ARB_TSUKU_FULL) {
        snprintf(err, errlen, "a finished hand has 8 chips, got %d",
                 h->nchips);
        return -1;
    }
    memcpy(n, h->counts, sizeof(n));
    for (i = 0; i < h->nopen; i++)
        for (j = 0; j < 3; j++)
            n[h->open[i].c[j].kind]++;
    for (k = 0; k < ARB_TSUKU_KINDS; k++)
        if (n[k] > arb_tsuku_kind_copies(k)) {
            arb_tsuku_chip_format(name, arb_tsuku_chip_of(k));
            snprintf(err, errlen, "the hand holds %d × %s, but the chip set "
                     "has %d", n[k], name, arb_tsuku_kind_copies(k));
            return -1;
        }
    return 0;
}

static void
print_text(const hand_t *h, const arb_tsuku_arr_t *all, size_t n,
           const arb_tsuku_ctx_t *ctx)
{
    arb_tsuku_score_t s;
    char              buf[ARB_TSUKU_SET_TEXT];
    size_t            i, best;
    int               b;

    printf("hand:");
    for (b = 0; b < ARB_TSUKU_KINDS; b++)
        for (i = 0; i < (size_t)h->counts[b]; i++) {
            arb_tsuku_chip_format(buf, arb_tsuku_chip_of(b));
            printf(" %s", buf);
        }
    for (b = 0; b < h->nopen; b++) {
        arb_tsuku_set_format(buf, &h->open[b]);
        printf("%s%s", b ? " " : "\nopen: ", buf);
    }
    if (n == 0) {
        printf("\narrangements worth 10: none\n");
        return;
    }
    printf("\narrangements worth 10: %zu\n", n);
    for (i = 0; i < n; i++) {
        arb_tsuku_score(&s, &all[i], ctx);
        printf("  %s  (%d point%s)\n", all[i].text, s.points,
               s.points == 1 ? "" : "s");
    }
    best = arb_tsuku_best(all, n, ctx, &s);
    printf("best: %s\n  base %d\n", all[best].text, s.base);
    for (b = 0; b < ARB_TB_COUNT; b++)
        if (s.mask & (1u << b))
            printf("  %s +%d\n", arb_tsuku_bonus_name(b), s.pts[b]);
    printf("points: %d\n", s.points);
}

/* An arrangement as a JSON object, to which the caller adds its points;
 * NULL when out of memory. */
static json_t *
arr_value(const arb_tsuku_arr_t *a)
{
    json_t *o = json_object(), *sets = json_array(), *singles = json_array();
    char    buf[ARB_TSUKU_SET_TEXT];
    int     i, bad = 0;

    for (i = a->nopen; i < a->nsets; i++) {
        arb_tsuku_set_format(buf, &a->sets[i]);
        bad |= arb_json_add(sets, arb_json_string(buf));
    }
    for (i = 0; i < a->nsingles; i++) {
        arb_tsuku_chip_format(buf, a->singles[i]);
        bad |= arb_json_add(singles, arb_json_string(buf));
    }
    bad |= arb_json_set(o, "arrangement", arb_json_string(a->text));
    bad |= arb_json_set(o, "sets", sets);
    bad |= arb_json_set(o, "singles", singles);
    bad |= arb_json_set(o, "value", json_integer(a->value));
    return bad ? (json_decref(o), NULL) : o;
}

static void
print_json(const hand_t *h, const arb_tsuku_arr_t *all, size_t n,
           const arb_tsuku_ctx_t *ctx)
{
    arb_tsuku_score_t s;
    json_t           *o = json_object(), *hand = json_array();
    json_t           *open = json_array(), *arrs = json_array(), *v, *bon;
    char              buf[ARB_TSUKU_SET_TEXT];
    size_t            i, best;
    int               b, k, bad = 0;

    for (b = 0; b < ARB_TSUKU_KINDS; b++)
        for (k = 0; k < h->counts[b]; k++) {
            arb_tsuku_chip_format(buf, arb_tsuku_chip_of(b));
            bad |= arb_json_add(hand, arb_json_string(buf));
        }
    for (b = 0; b < h->nopen; b++) {
        arb_tsuku_set_format(buf, &h->open[b]);
        bad |= arb_json_add(open, arb_json_string(buf));
    }
    for (i = 0; i < n; i++) {
        arb_tsuku_score(&s, &all[i], ctx);
        v = arr_value(&all[i]);
        bad |= arb_json_set(v, "points", json_integer(s.points));
        bad |= arb_json_add(arrs, v);
    }
    bad |= arb_json_set(o, "game", json_string("tsukurutenten"));
    bad |= arb_json_set(o, "hand", hand);
    bad |= arb_json_set(o, "open_sets", open);
    bad |= arb_json_set(o, "scoring", json_string(ctx->extended ? "extended"
                                                                : "simple"));
    bad |= arb_json_set(o, "dealer", json_boolean(ctx->dealer));
    bad |= arb_json_set(o, "heaven", json_boolean(ctx->heaven));
    bad |= arb_json_set(o, "arrangements", arrs);
    if (n == 0) {
        bad |= arb_json_set(o, "best", json_null());
    } else {
        best = arb_tsuku_best(all, n, ctx, &s);
        v = arr_value(&all[best]);
        bon = json_array();
        for (b = 0; b < ARB_TB_COUNT; b++)
            if (s.mask & (1u << b)) {
                json_t *x = json_object();
                bad |= arb_json_set(x, "name", arb_json_string(
                                        arb_tsuku_bonus_name(b)));
                bad |= arb_json_set(x, "points", json_integer(s.pts[b]));
                bad |= arb_json_add(bon, x);
            }
        bad |= arb_json_set(v, "base", json_integer(s.base));
        bad |= arb_json_set(v, "bonuses", bon);
        bad |= arb_json_set(v, "points", json_integer(s.points));
        bad |= arb_json_set(o, "best", v);
    }
    if (bad) {
        json_decref(o);
        o = NULL;
    }
    cli_print_json("score", o);
}

static int
fail_hand(int json, const char *msg)
{
    json_t *o;
    int     bad = 0;

    if (!json) {
        printf("ERROR %s\n", msg);
        return CLI_DIFFERS;
    }
    o = json_object();
    bad |= arb_json_set(o, "game", json_string("tsukurutenten"));
    bad |= arb_json_set(o, "error", arb_json_string(msg));
    if (bad) {
        json_decref(o);
        o = NULL;
    }
    cli_print_json("score", o);
    return CLI_DIFFERS;
}

typedef struct open_ctx {
    hand_t *h;
    char   *err;
    int    *bad;
} open_ctx_t;

/* Each --open MELD, kept with the chips; the first bad one is reported
 * after the options, as a bad chip is. */
static int
on_open(void *ud, const char *opt, const char *val)
{
    open_ctx_t *o = ud;

    (void)opt;
    if (!*o->bad && add_open(o->h, val, o->err, 240) != 0)
        *o->bad = 1;
    return 0;
}

int
cmd_score_tsukurutenten(int argc, char **argv)
{
    arb_tsuku_ctx_t  ctx = { 1, 0, 0, 0 };
    arb_tsuku_arr_t *all = NULL;
    hand_t           h;
    size_t           n = 0;
    char             err[240];
    const char      *game = NULL, *scoring = NULL, *excl = NULL;
    int              i, json = 0, bad = 0, rc;
    open_ctx_t       oc = { &h, err, &bad };
    const cli_optdef_t opts[] = {
        { "--game", CLI_ARG_STR, &game },   /* dispatched here */
        { "--json", CLI_ARG_FLAG, &json },
        { "--dealer", CLI_ARG_FLAG, &ctx.dealer },
        { "--heaven", CLI_ARG_FLAG, &ctx.heaven },
        { "--scoring", CLI_ARG_STR, &scoring },
        { "--exclusion", CLI_ARG_STR, &excl },
        { "--open", CLI_ARG_EACH, NULL },
        { NULL, 0, NULL }
    };
    cli_args_t a = { .cmd = "score", .usage = usage, .opts = opts,
                     .each = on_open, .ud = &oc, .dash_words = 1 };

    memset(&h, 0, sizeof(h));
    rc = cli_args_parse(&a, argc, argv);
    if (rc >= 0)
        return rc;
    if (excl != NULL) {
        if (strcmp(excl, "double-three") == 0)
            ctx.excl_literal = 0;
        else if (strcmp(excl, "literal") == 0)
            ctx.excl_literal = 1;
        else {
            fprintf(stderr, "arbiter score: exclusion '%s' is not a "
                    "reading: double-three or literal\n", excl);
            return CLI_ERROR;
        }
    }
    if (scoring != NULL) {
        if (strcmp(scoring, "simple") == 0)
            ctx.extended = 0;
        else if (strcmp(scoring, "extended") == 0)
            ctx.extended = 1;
        else {
            fprintf(stderr, "arbiter score: scoring '%s' does not "
                    "exist: simple or extended\n", scoring);
            return CLI_ERROR;
        }
    }
    for (i = 0; i < a.npos; i++)
        if (!bad && add_chips(&h, a.pos[i], err, sizeof(err)) != 0)
            bad = 1;
    if (!bad && h.nchips == 0) {
        fprintf(stderr, "arbiter score: no chips given\n");
        usage(stderr);
        return CLI_ERROR;
    }
    if (bad || check_hand(&h, err, sizeof(err)) != 0)
        return fail_hand(json, err);
    if (arb_tsuku_arr_search(&all, &n, h.open, h.nopen, h.counts,
                             ARB_TSUKU_TARGET) != 0) {
        fprintf(stderr, "arbiter score: out of memory\n");
        return CLI_ERROR;
    }
    if (json)
        print_json(&h, all, n, &ctx);
    else
        print_text(&h, all, n, &ctx);
    free(all);
    return 0;
}
