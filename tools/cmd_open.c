/*
 * arbiter open - open a match on the recorder (an arbiter's act: event 0).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "core/rules.h"
#include "tools/cli.h"
#include "tools/net.h"

#define OPTIONS_MAX 64

static void
usage(FILE *f)
{
    const arb_rules_t *const *r;

    fprintf(f,
        "usage: arbiter open --match ID --game GAME --players A,B,...\n"
        "                    [--teams X,Y,...] [--option KEY=VALUE]...\n"
        "                    [--deal seed:TEXT | --deal order:CARDS]\n"
        "                    [--cid ID] [connection options]\n\n"
        "Opens a match (event 0, its header) and prints\n"
        "  opened ID seq 0 hash <hex>\n"
        "Needs an arbiter's token.\n\n"
        "options:\n"
        "  --match ID          1..64 of A-Z a-z 0-9 _ . @ + -\n"
        "  --game GAME         the rule set, one of\n"
        "                     ");
    /* From the rule sets themselves, so that the list stays true. */
    for (r = arb_rules_all(); *r != NULL; r++)
        fprintf(f, " %s", (*r)->game);
    fprintf(f, "\n"
        "  --players A,B       names in seat order; NAME:TEAM with --teams\n"
        "  --teams X,Y         team names, for team games\n"
        "  --option KEY=VALUE  a match option of the rule set, repeatable\n"
        "                      (each game's in docs/rules/GAME.md, such as\n"
        "                      yahchain's mode, void, cycles, owners; a\n"
        "                      tournament's in docs/TOURNAMENT.md)\n"
        "  --cid ID            your own id for the event\n"
        "  --deal seed:TEXT    deal by the documented shuffle of TEXT, a\n"
        "                      secret: a guessable one (a name, a date, a\n"
        "                      table number) is found by trying seeds\n"
        "                      against the commitment, which readers see\n"
        "  --deal seed:random  a seed of 32 random bytes drawn here, known\n"
        "                      to nobody before the close reveals it\n"
        "  --deal order:CARDS  deal this stock order (cards separated by\n"
        "                      blanks or commas, top first)\n"
        "                      The log records only BLAKE2b-256 of the deal;\n"
        "                      the close reveals it (docs/DEAL.md).\n\n");
    cli_net_usage(f);
    cli_net_usage_status(f);
}

/* Splits "a,b,c" into a NULL-terminated vector of copies (empty items are
 * kept so the server names them).  0 or -1 (out of memory). */
static int
split_commas(const char *s, char ***out, size_t *n)
{
    const char *p, *comma;
    size_t      k = 1;
    char      **v;

    for (p = s; *p != '\0'; p++)
        k += *p == ',';
    v = calloc(k + 1, sizeof(char *));
    if (v == NULL)
        return -1;
    *out = v;
    *n = 0;
    for (p = s;; p = comma + 1) {
        comma = strchr(p, ',');
        v[*n] = comma ? strndup(p, (size_t)(comma - p)) : strdup(p);
        if (v[*n] == NULL)
            return -1;
        (*n)++;
        if (comma == NULL)
            return 0;
    }
}

/* Below this many bytes a seed draws a warning (32: 128 bits as hex). */
#define ARB_SEED_ADVISED 32

/* {"kind":"seed","seed":TEXT} or {"kind":"order","cards":[...]}; deal
 * "random": a seed of 32 random bytes, as hex. */
static void
pack_deal(msgpack_packer *pk, const char *deal)
{
    const char *p, *e;
    size_t      n = 0;

    msgpack_pack_str_with_body(pk, "deal", 4);
    msgpack_pack_map(pk, 2);
    if (strncmp(deal, "seed:", 5) == 0) {
        cli_pack_str(pk, "kind", "seed");
        cli_pack_str(pk, "seed", deal + 5);
        return;
    }
    if (strcmp(deal, "random") == 0) {
        unsigned char raw[32];
        char          hex[2 * sizeof(raw) + 1];
        size_t        i;

        randombytes_buf(raw, sizeof(raw));
        for (i = 0; i < sizeof(raw); i++)
            snprintf(hex + 2 * i, 3, "%02x", raw[i]);
        sodium_memzero(raw, sizeof(raw));
        cli_pack_str(pk, "kind", "seed");
        cli_pack_str(pk, "seed", hex);
        sodium_memzero(hex, sizeof(hex));
        return;
    }
    cli_pack_str(pk, "kind", "order");
    msgpack_pack_str_with_body(pk, "cards", 5);
    for (p = deal + 6; *p; p = e) {
        while (*p == ' ' || *p == ',')
            p++;
        for (e = p; *e && *e != ' ' && *e != ','; e++)
            ;
        n += e > p;
    }
    msgpack_pack_array(pk, n);
    for (p = deal + 6; *p; p = e) {
        while (*p == ' ' || *p == ',')
            p++;
        for (e = p; *e && *e != ' ' && *e != ','; e++)
            ;
        if (e > p)
            msgpack_pack_str_with_body(pk, p, (size_t)(e - p));
    }
}

typedef struct options {
    const char *v[OPTIONS_MAX];
    size_t      n;
} options_t;

/* Each --option KEY=VALUE. */
static int
on_option(void *ud, const char *opt, const char *val)
{
    options_t *o = ud;

    (void)opt;
    if (strchr(val, '=') == NULL || val[0] == '=') {
        fprintf(stderr, "arbiter open: --option wants KEY=VALUE, not '%s'\n",
                val);
        return -1;
    }
    if (o->n == OPTIONS_MAX) {
        fprintf(stderr, "arbiter open: at most %d options\n", OPTIONS_MAX);
        return -1;
    }
    o->v[o->n++] = val;
    return 0;
}

int
cmd_open(int argc, char **argv)
{
    cli_net_t       n;
    msgpack_packer *pk;
    const char     *match = NULL, *game = NULL, *players = NULL;
    const char     *teams = NULL, *cid = NULL, *deal = NULL;
    char          **pv = NULL, **tv = NULL, prefix[128];
    size_t          np = 0, nt = 0, k;
    int             status;
    options_t       ox = { { NULL }, 0 };
    const cli_optdef_t defs[] = {
        { "--match", CLI_ARG_STR, &match },
        { "--game", CLI_ARG_STR, &game },
        { "--players", CLI_ARG_STR, &players },
        { "--teams", CLI_ARG_STR, &teams },
        { "--cid", CLI_ARG_STR, &cid },
        { "--deal", CLI_ARG_STR, &deal },
        { "--option", CLI_ARG_EACH, NULL },
        { NULL, 0, NULL }
    };
    cli_args_t ar = {
        .cmd = "open",
        .usage = usage,
        .opts = defs,
        .net = &n,
        .each = on_option,
        .ud = &ox,
        .no_words = 1,
    };

    cli_net_init(&n, "open");
    status = cli_args_parse(&ar, argc, argv);
    if (status >= 0)
        return status;
    status = CLI_ERROR;
    if (match == NULL || game == NULL || players == NULL) {
        fprintf(stderr, "arbiter open: --match, --game and --players are "
                "required\n");
        usage(stderr);
        return CLI_ERROR;
    }
    if (deal != NULL && strncmp(deal, "seed:", 5) != 0
        && strncmp(deal, "order:", 6) != 0) {
        fprintf(stderr, "arbiter open: --deal wants seed:TEXT, seed:random "
                "or order:CARDS, not '%s'\n", deal);
        return CLI_ERROR;
    }
    /* The commitment is public and unsalted: a short seed is found by
     * trying (docs/DEAL.md; an audit found "R1-T3-2026" in 85 tries).
     * Said, not refused: a long secret shared by several tables (a
     * duplicate deal) is the operator's to choose. */
    if (deal != NULL && strcmp(deal, "seed:random") == 0) {
        if (sodium_init() < 0) {
            fprintf(stderr, "arbiter open: no random source\n");
            return CLI_ERROR;
        }
        deal += 5;
    } else if (deal != NULL && strncmp(deal, "seed:", 5) == 0
               && strlen(deal + 5) < ARB_SEED_ADVISED) {
        fprintf(stderr, "arbiter open: warning: a seed of %zu bytes may be "
                "guessed: anyone who reads the match sees its commitment "
                "and can try seeds against it, then knows every hand.  Use "
                "--deal seed:random, or a secret of at least %d random "
                "characters\n", strlen(deal + 5), ARB_SEED_ADVISED);
    }
    if (split_commas(players, &pv, &np) != 0
        || (teams != NULL && split_commas(teams, &tv, &nt) != 0)) {
        fprintf(stderr, "arbiter open: out of memory\n");
        goto done;
    }
    if (cli_net_connect(&n) != 0)
        goto done;
    pk = cli_net_begin(&n, "open", 3 + (tv != NULL) + (ox.n > 0)
                       + (cid != NULL) + (deal != NULL));
    cli_pack_str(pk, "match", match);
    cli_pack_str(pk, "game", game);
    cli_pack_strv(pk, "players", pv, np);
    if (tv != NULL)
        cli_pack_strv(pk, "teams", tv, nt);
    if (ox.n > 0) {
        msgpack_pack_str_with_body(pk, "options", 7);
        msgpack_pack_map(pk, ox.n);
        for (k = 0; k < ox.n; k++) {
            const char *eq = strchr(ox.v[k], '=');
            msgpack_pack_str_with_body(pk, ox.v[k], (size_t)(eq - ox.v[k]));
            msgpack_pack_str_with_body(pk, eq + 1, strlen(eq + 1));
        }
    }
    if (cid != NULL)
        cli_pack_str(pk, "cid", cid);
    if (deal != NULL)
        pack_deal(pk, deal);
    status = cli_net_call(&n);
    if (status == 0) {
        snprintf(prefix, sizeof(prefix), "opened %s ", match);
        status = cli_net_print_ack(&n, prefix);
    }
done:
    cli_net_close(&n);
    arb_strv_free(pv, np);
    arb_strv_free(tv, nt);
    return status;
}
