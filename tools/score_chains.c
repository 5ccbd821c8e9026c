/*
 * arbiter score --game chains - score a final Chains position typed as a
 * grid (docs/rules/chains.md, "Scoring a typed position").
 *
 * DESIGN: the grid parser, the chain finder and the report live in
 * core/rules/chains_score.c, shared with the rule set, so a typed position
 * and a recorded match are scored by the same code; this file only reads
 * the arguments and the file.
 */
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "core/rules/chains.h"
#include "tools/cli.h"

static void
usage(FILE *f)
{
    fprintf(f,
        "usage: arbiter score --game chains --variant square|sum [--json]\n"
        "                     [--origin rRcC] FILE\n\n"
        "Scores a final SKIM-10 \"Chains\" position.  FILE ('-' = stdin)\n"
        "holds the table one row a line, top row first, cells separated by\n"
        "blanks: a card (10♠, QH, ТП) or -- for an empty cell; lines\n"
        "starting with '#' are comments.  At most 7×7.\n\n"
        "Prints every chain, one a line:\n"
        "  <team> <direction> <first>..<last cell> <cards> <points>\n"
        "  long horizontal a1..e1 A♠ K♣ Q♠ J♣ 10♠ 25\n"
        "then 'total long N' and 'total short N'.  The long sides score\n"
        "horizontal chains, the short sides vertical ones.\n\n"
        "options:\n"
        "  --variant V   square (length²) or sum (sum of ranks, A = 14);\n"
        "                required\n"
        "  --json        one JSON object: {\"scoring\",\"chains\":[...],"
        "\"totals\"}\n"
        "  --origin CELL name cells as a match does, CELL being the match\n"
        "                cell of the grid's top-left (e.g. r-2c0); without\n"
        "                it cells are named on the frame: columns a.. from\n"
        "                the left, rows 1.. from the top\n"
        "Exit status: 0, 1 when the grid is not a position, 2 bad usage.\n");
}

int
cmd_score_chains(int argc, char **argv)
{
    arb_chains_card_t  cells[ARB_CHAINS_GRID_MAX * ARB_CHAINS_GRID_MAX];
    arb_chains_names_t nm = { 1, 0, 0 };
    arb_chains_score_t sc;
    arb_buf_t          in = ARB_BUF_INIT, out = ARB_BUF_INIT;
    const char        *path = NULL, *var = NULL, *origin = NULL;
    const char        *game = NULL;
    char               err[240];
    int                variant = -1, json = 0, rows, cols, rc;
    const cli_optdef_t opts[] = {
        { "--game", CLI_ARG_STR, &game },   /* "chains": dispatched */
        { "--variant", CLI_ARG_STR, &var },
        { "--scoring", CLI_ARG_STR, &var },
        { "--json", CLI_ARG_FLAG, &json },
        { "--origin", CLI_ARG_STR, &origin },
        { NULL, 0, NULL }
    };
    cli_args_t a = { .cmd = "score", .usage = usage, .opts = opts };

    rc = cli_args_parse(&a, argc, argv);
    if (rc >= 0)
        return rc;
    rc = CLI_ERROR;
    if (a.npos > 1) {
        fprintf(stderr, "arbiter score: one FILE only ('%s' and '%s')\n",
                a.pos[0], a.pos[1]);
        return CLI_ERROR;
    }
    path = a.npos == 1 ? a.pos[0] : NULL;
    if (var != NULL) {
        variant = strcmp(var, "square") == 0 ? ARB_CHAINS_SQUARE
                  : strcmp(var, "sum") == 0 ? ARB_CHAINS_SUM : -2;
        if (variant == -2) {
            fprintf(stderr, "arbiter score: variant '%s' does not "
                    "exist: use square or sum\n", var);
            return CLI_ERROR;
        }
    }
    if (origin != NULL) {
        if (arb_chains_cell_parse(&nm.row0, &nm.col0, origin) != 0) {
            fprintf(stderr, "arbiter score: '%s' is not a cell: write "
                    "r<row>c<col>, e.g. r-2c0\n", origin);
            return CLI_ERROR;
        }
        nm.frame = 0;
    }
    if (variant < 0) {
        fprintf(stderr, "arbiter score: --variant square|sum is required\n");
        usage(stderr);
        return CLI_ERROR;
    }
    if (path == NULL) {
        fprintf(stderr, "arbiter score: no FILE given ('-' for stdin)\n");
        return CLI_ERROR;
    }
    if (cli_read_file(&in, path) != 0)
        goto done;
    if (arb_chains_grid_parse(cells, &rows, &cols, in.data ? in.data : "",
                              in.len, err, sizeof(err)) != 0) {
        fprintf(stderr, "arbiter score: %s: %s\n", path, err);
        rc = CLI_DIFFERS;
        goto done;
    }
    if (arb_chains_score(&sc, cells, rows, cols, variant) != 0) {
        fprintf(stderr, "arbiter score: out of memory\n");
        goto done;
    }
    arb_chains_report(&out, cells, cols, &sc, &nm, variant, json);
    arb_chains_score_clear(&sc);
    if (out.oom) {
        fprintf(stderr, "arbiter score: out of memory\n");
        goto done;
    }
    fwrite(out.data, 1, out.len, stdout);
    rc = 0;
done:
    arb_buf_free(&in);
    arb_buf_free(&out);
    return rc;
}
