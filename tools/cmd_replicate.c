/*
 * arbiter replicate - ask the recorder for a full anti-entropy pass over
 * the replicated stream (docs/SCALE.md), the protocol's `replicate` op,
 * and wait for it: the answer numbers the pass, and stats.replication's
 * check_done reaches that number once a pass that began after the ask
 * has finished, its findings in last_*.
 */
#include <stdio.h>
#include <time.h>

#include "core/clock.h"
#include "tools/cli.h"
#include "tools/net.h"
#include "tools/ops.h"

#define WAIT_DEFAULT_S 300
#define POLL_MS        200

static void
usage(FILE *f)
{
    fprintf(f,
        "usage: arbiter replicate --check [--timeout S] [--no-wait]\n"
        "                         [connection options]\n\n"
        "Runs a full anti-entropy pass on the recorder: every match's\n"
        "messages in the NATS JetStream stream are compared with the\n"
        "recorder's log, and what the stream lacks is published again\n"
        "(docs/SCALE.md).  Waits for the pass and prints what it found:\n"
        "  anti-entropy pass over N matches: R repaired, P put off\n"
        "(put off: the stream's answers disagreed, as during an election;\n"
        "the recorder looks again 2 s later).  Needs an arbiter token and a\n"
        "recorder with [replicate] configured.\n\n"
        "  --timeout S  give up waiting after S seconds (default %d); the\n"
        "               pass goes on in the recorder\n"
        "  --no-wait    return once the pass is asked for\n\n"
        "Exit status: 0 the pass ran (or, --no-wait, was asked for), 1\n"
        "refused (replication off, not an arbiter) or not finished within\n"
        "--timeout, 2 usage or no recorder.\n", WAIT_DEFAULT_S);
}

/* stats.replication.KEY from n->res, or 0. */
static uint64_t
repl_uint(cli_net_t *n, const char *key)
{
    const msgpack_object *r = arb_client_get(&n->res, "replication");
    uint64_t              v = 0;

    if (r != NULL && r->type == MSGPACK_OBJECT_MAP)
        cli_get_uint(r, key, &v);
    return v;
}

/* Polls stats until the pass numbered ticket has run: 0, 1 (timed out,
 * printed) or 2. */
static int
wait_pass(cli_net_t *n, uint64_t ticket, uint64_t timeout_s)
{
    ops_progress_t  pr;
    int64_t         t0 = arb_clock_ms(), waited;
    struct timespec ts = { 0, POLL_MS * 1000000L };
    int             status;

    ops_progress_init(&pr);
    for (;;) {
        cli_net_begin(n, "stats", 0);
        status = cli_net_call(n);
        if (status != 0)
            break;
        if (repl_uint(n, "check_done") >= ticket) {
            ops_progress_clear(&pr);
            printf("anti-entropy pass over %llu matches: %llu repaired, "
                   "%llu put off%s\n",
                   (unsigned long long)repl_uint(n, "last_matches"),
                   (unsigned long long)repl_uint(n, "last_repaired"),
                   (unsigned long long)repl_uint(n, "last_put_off"),
                   repl_uint(n, "last_put_off") > 0
                   ? " (looked at again in 2 s: see `arbiter stats`)" : "");
            return CLI_OK;
        }
        waited = arb_clock_ms() - t0;
        if (waited >= (int64_t)timeout_s * 1000) {
            ops_progress_clear(&pr);
            fprintf(stderr, "arbiter replicate: the pass has not finished "
                    "after %llu s; it goes on in the recorder (see its log "
                    "and `arbiter stats`)\n", (unsigned long long)timeout_s);
            return CLI_DIFFERS;
        }
        ops_progress(&pr, "replicate", "waiting for the pass, seconds",
                     (uint64_t)waited / 1000, 0);
        nanosleep(&ts, NULL);
    }
    ops_progress_clear(&pr);
    return status;
}

int
cmd_replicate(int argc, char **argv)
{
    cli_net_t             n;
    int                   check = 0, no_wait = 0, status;
    uint64_t              timeout_s = WAIT_DEFAULT_S, ticket;
    const cli_optdef_t    opts[] = {
        { "--check", CLI_ARG_FLAG, &check },
        { "--no-wait", CLI_ARG_FLAG, &no_wait },
        { "--timeout", CLI_ARG_U64, &timeout_s },
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
    if (no_wait || cli_get_uint(&n.res.data, "ticket", &ticket) != 0) {
        /* (a recorder that does not number its passes cannot be waited
         * for) */
        printf("anti-entropy pass started: see the recorder's log and "
               "`arbiter stats` (replication)\n");
        goto done;
    }
    status = wait_pass(&n, ticket, timeout_s);
done:
    cli_net_close(&n);
    return status;
}
