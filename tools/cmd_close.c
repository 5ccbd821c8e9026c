/*
 * arbiter close - the arbiter closes a match; only notes may follow.
 */
#include <stdio.h>
#include <string.h>

#include "tools/cli.h"
#include "tools/net.h"

static void
usage(FILE *f)
{
    fprintf(f,
        "usage: arbiter close --match ID [--reason TEXT] [--expect N]\n"
        "                     [--cid ID] [connection options]\n\n"
        "Closes the match (a 'close' event) and prints 'seq N hash <hex>'.\n"
        "After it only notes are accepted.  Needs an arbiter's token.\n\n"
        "options:\n"
        "  --match ID      the match\n"
        "  --reason TEXT   why, e.g. 'time'\n"
        "  --expect N      refuse unless the match is at event N\n"
        "  --cid ID        your id for this event (a retry returns the\n"
        "                  original seq)\n\n");
    cli_net_usage(f);
    cli_net_usage_status(f);
}

int
cmd_close(int argc, char **argv)
{
    cli_net_t    n;
    cli_append_t a;
    const char  *expect = NULL;
    int          status;
    const cli_optdef_t opts[] = {
        { "--match", CLI_ARG_STR, &a.match },
        { "--reason", CLI_ARG_STR, &a.text },
        { "--expect", CLI_ARG_STR, &expect },
        { "--cid", CLI_ARG_STR, &a.cid },
        { NULL, 0, NULL }
    };
    cli_args_t ar = {
        .cmd = "close",
        .usage = usage,
        .opts = opts,
        .net = &n,
        .no_words = 1,
    };

    memset(&a, 0, sizeof(a));
    cli_net_init(&n, "close");
    status = cli_args_parse(&ar, argc, argv);
    if (status >= 0)
        return status;
    if (a.match == NULL) {
        fprintf(stderr, "arbiter close: --match is required\n");
        usage(stderr);
        return CLI_ERROR;
    }
    if (expect != NULL) {
        if (cli_parse_u64("close", "--expect", expect, &a.expect) != 0)
            return CLI_ERROR;
        a.has_expect = 1;
    }
    a.kind = "close";
    status = CLI_ERROR;
    if (cli_net_connect(&n) == 0)
        status = cli_net_append(&n, &a);
    cli_net_close(&n);
    return status;
}
