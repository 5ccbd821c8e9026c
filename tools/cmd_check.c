/*
 * arbiter check - a whole data directory checked, read-only, while the
 * daemon runs: what `mdb_stat` and `pg_amcheck` are to their stores.
 * The checks are arb_check_store()'s (core/ledger/check.h); this file
 * parses the options and prints.
 */
#include <stdio.h>
#include <string.h>

#include "tools/cli.h"
#include "tools/net.h"
#include "tools/ops.h"

static void
usage(FILE *f)
{
    fprintf(f,
        "usage: arbiter check [--data DIR] [--quiet]\n\n"
        "Checks every match of the data directory DIR (default "
        OPS_DATA_DEFAULT ")\nagainst its own events, read-only and safe "
        "while arbiterd runs:\n"
        "  - every page of its LMDB files, read without letting LMDB\n"
        "    follow a damaged one (a damaged data.mdb stops the check\n"
        "    there; a damaged index.mdb is named, the log checked\n"
        "    without it);\n"
        "  - the hash chain recomputed from the event bytes, seqs dense;\n"
        "  - every event decodes (canonical encoding only) with its seq,\n"
        "    time, kind and match;\n"
        "  - the match index (count, head, times, game, open/closed);\n"
        "  - the global commit order: every event once, in seq order per\n"
        "    match, with the bytes of the chain;\n"
        "  - the idempotency index: every client event id leads back to\n"
        "    its event;\n"
        "  - deals: a closed match's reveal opens the commitment of its\n"
        "    open; a running dealt match has its secret kept.\n"
        "Events appended while the check runs are not judged.\n\n"
        "Each problem is one line on stdout, named by match and seq:\n"
        "  match R1-T7 seq 5: stored hash does not match the chain: ...\n"
        "then the summary (matches, events, last position, heads digest).\n"
        "At a terminal the progress is shown on stderr.  --quiet (or -q)\n"
        "prints only the problems.  --db DIR is the same as --data DIR.\n\n"
        "Exit status: 0 no problem, 1 problems found, 2 usage error or the\n"
        "store cannot be read.\n");
}

int
cmd_check(int argc, char **argv)
{
    arb_check_summary_t sum;
    const char         *dir = OPS_DATA_DEFAULT;
    int                 rc, quiet = 0;
    const cli_optdef_t  opts[] = {
        { "--data", CLI_ARG_STR, &dir },
        { "--db", CLI_ARG_STR, &dir },
        { "--quiet", CLI_ARG_FLAG, &quiet },
        { "-q", CLI_ARG_FLAG, &quiet },
        { NULL, 0, NULL }
    };
    cli_args_t          a = {
        .cmd = "check", .usage = usage, .opts = opts, .no_words = 1,
    };

    rc = cli_args_parse(&a, argc, argv);
    if (rc >= 0)
        return rc;
    ops_quiet = quiet;
    rc = ops_check_dir("check", dir, stdout, "", &sum);
    if (rc != 0)
        return rc;
    if (!quiet) {
        ops_summary_print(stdout, dir, &sum);
        if (sum.problems == 0)
            printf("%s: OK\n", dir);
        else
            printf("%s: %llu problem%s\n", dir,
                   (unsigned long long)sum.problems,
                   sum.problems == 1 ? "" : "s");
    }
    fflush(stdout);
    return sum.problems == 0 ? 0 : 1;
}
