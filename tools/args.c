/*
 * args.c - the one option parser of every subcommand.
 *
 * DESIGN: each command describes its options in a table and gets back its
 * positional words; the parser alone decides how options are spelt, so
 * `--at 3` and `--at=3` mean the same everywhere, options and words may
 * come in any order, `--` ends the options, a lone `-` is a word (stdin),
 * and an unknown option is refused by name.  getopt_long would also
 * accept abbreviations (`--mat` for `--match`), which a recorder's
 * command line should not guess at.  A line a user types or pipes is
 * checked here too (cli_line_has_nul).
 */
#include <stdio.h>
#include <string.h>

#include "tools/cli.h"
#include "tools/net.h"

/* The option of the table at argv[*i]: 1 done, 0 not one, -1 printed. */
static int
one_option(cli_args_t *a, const cli_optdef_t *o, int argc, char **argv,
           int *i)
{
    const char *val = NULL;
    size_t      k = strlen(o->name);
    int         rc;

    if (o->type == CLI_ARG_FLAG) {
        if (strcmp(argv[*i], o->name) != 0)
            return 0;
        *(int *)o->dst = 1;
        return 1;
    }
    if (strncmp(argv[*i], o->name, k) != 0
        || (argv[*i][k] != '\0' && argv[*i][k] != '='))
        return 0;
    rc = cli_opt(a->cmd, o->name, argc, argv, i, &val);
    if (rc <= 0)
        return rc;
    switch (o->type) {
    case CLI_ARG_STR:
        *(const char **)o->dst = val;
        return 1;
    case CLI_ARG_U64:
        return cli_parse_u64(a->cmd, o->name, val, (uint64_t *)o->dst) != 0
               ? -1 : 1;
    default:
        return a->each(a->ud, o->name, val) != 0 ? -1 : 1;
    }
}

/* `arbiter CMD --list-options`, alone or after `--game G` (arbiter score
 * hands each game's scorer its own table): the options the table takes,
 * one a line, for the shell's completion (config/arbiter.bash-completion).
 * Read from the table, they are exactly what is accepted; the --help text
 * also names options of other commands in its prose (`restore-backup
 * --from`). */
static int
list_options(const cli_args_t *a)
{
    const cli_optdef_t *o;

    for (o = a->opts; o != NULL && o->name != NULL; o++)
        printf("%s\n", o->name);
    if (a->net != NULL)
        printf("--server\n--token\n--token-file\n");
    printf("--help\n");
    return fflush(stdout) == 0 ? CLI_OK : CLI_ERROR;
}

int
cli_args_parse(cli_args_t *a, int argc, char **argv)
{
    const cli_optdef_t *o;
    int                 i, rc, opts = 1;

    a->pos = argv + 1;
    a->npos = 0;
    if ((argc == 2 || (argc == 4 && strcmp(argv[1], "--game") == 0))
        && strcmp(argv[argc - 1], "--list-options") == 0)
        return list_options(a);
    for (i = 1; i < argc; i++) {
        if (opts && cli_is_help(argv[i])) {
            a->usage(stdout);
            return CLI_OK;
        }
        if (opts && strcmp(argv[i], "--") == 0) {
            opts = 0;
            continue;
        }
        if (!opts || argv[i][0] != '-' || argv[i][1] == '\0'
            || (a->dash_words && argv[i][1] != '-')) {
            if (a->no_words) {
                fprintf(stderr, "arbiter %s: unexpected '%s'\n", a->cmd,
                        argv[i]);
                a->usage(stderr);
                return CLI_ERROR;
            }
            /* Words move to the front of argv, in order: a word's slot is
             * never ahead of the word read. */
            a->pos[a->npos++] = argv[i];
            continue;
        }
        rc = a->net != NULL ? cli_net_option(a->net, argc, argv, &i) : 0;
        for (o = a->opts; rc == 0 && o != NULL && o->name != NULL; o++)
            rc = one_option(a, o, argc, argv, &i);
        if (rc < 0)
            return CLI_ERROR;
        if (rc == 0) {
            fprintf(stderr, "arbiter %s: unknown option '%s'\n", a->cmd,
                    argv[i]);
            a->usage(stderr);
            return CLI_ERROR;
        }
    }
    return -1;
}

int
cli_line_has_nul(const char *s, size_t n)
{
    return memchr(s, '\0', n) != NULL;
}
