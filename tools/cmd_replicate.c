/*
 * arbiter replicate - ask the recorder for a full anti-entropy pass over
 * the replicated stream (docs/SCALE.md), the protocol's `replicate` op.
 */
#include <stdio.h>

#include "tools/cli.h"
#include "tools/net.h"

static void
usage(FILE *f)
{
    fprintf(f,
        "usage: arbiter replicate --check [connection options]\n\n"
        "Starts a full anti-entropy pass on the recorder: every match's last\n"
        "message in the NATS JetStream stream is compared with the recorder's\n"
        "log, and what the stream lacks is published again (docs/SCALE.md).\n"
        "The pass runs in the recorder; what it finds goes to its log and to\n"
        "`arbiter stats` (replication: missing, diverged, ahead).  Needs an\n"
        "arbiter token and a recorder with [replicate] configured.\n\n"
        "Exit status: 0 started, 1 refused (replication off, not an\n"
        "arbiter), 2 usage or no recorder.\n");
}

int
cmd_replicate(int argc, char **argv)
{
    cli_net_t n;
    int       check = 0, status;
    const cli_optdef_t opts[] = {
        { "--check", CLI_ARG_FLAG, &check },
        { NULL, 0, NULL }
    };
    cli_args_t ar = {
        .cmd = "replicate",
        .usage = usage,
        .opts = opts,
        .net = &n,
        .no_words = 1,
    };

    cli_net_init(&n, "replicate");
    status = cli_args_parse(&ar, argc, argv);
    if (status >= 0)
        return status;
    if (!check) {
        /* the only action today; named, so that others can follow */
        fprintf(stderr, "arbiter replicate: --check is required\n");
        usage(stderr);
        return CLI_ERROR;
    }
    status = CLI_ERROR;
    if (cli_net_connect(&n) != 0)
        goto done;
    cli_net_begin(&n, "replicate", 0);
    status = cli_net_call(&n);
    if (status != 0)
        goto done;
    printf("anti-entropy pass started: see the recorder's log and "
           "`arbiter stats` (replication)\n");
done:
    cli_net_close(&n);
    return status;
}
