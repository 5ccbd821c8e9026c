/*
 * arbiter watch - follow a match (or every match) as events are recorded.
 *
 * DESIGN: the daemon's subscription does the catch-up and the live part
 * without gap or duplicate (daemon/sub.c); this command only prints each
 * pushed event as it arrives and flushes, so a pipe or a file sees it at
 * once.  SIGINT/SIGTERM shut the socket down, which ends the blocking read
 * like an end of file: the command then exits 0 with everything printed.
 * One that comes while connecting (before any socket is known to the
 * handler; the client's reads go on after EINTR) ends the command there,
 * exit 0 too: nothing has been printed yet.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/mp.h"
#include "core/text.h"
#include "tools/cli.h"
#include "tools/net.h"

/* The subscription's socket; WATCH_CONNECTING until it is known, -1 once
 * the command is ending. */
#define WATCH_CONNECTING (-2)
static volatile sig_atomic_t watch_fd = -1;
static volatile sig_atomic_t watch_stopped;

static void
usage(FILE *f)
{
    fprintf(f,
        "usage: arbiter watch [--match ID] [--from N] [--json]\n"
        "                     [connection options]\n\n"
        "Prints each event of the match as it is committed, in the format\n"
        "of 'arbiter events'; without --match, the events of every match in\n"
        "commit order, each line starting with the match id (with --json,\n"
        "a \"match\" field).  Runs until interrupted (exit 0) or the server\n"
        "ends it: an error from the server (a subscriber too slow to keep\n"
        "up, the token revoked by a reload) is printed and the exit status\n"
        "is 1; the connection closed or lost (the recorder stopped, the\n"
        "network) is said and the exit status is 2, so that a supervisor\n"
        "can tell it from an interrupt.\n\n"
        "options:\n"
        "  --match ID   the match (default: all matches)\n"
        "  --from N     start at event N of the match, or without --match at\n"
        "               position N of the recorder's global log (default:\n"
        "               only events recorded from now on)\n"
        "  --json       JSON lines\n\n");
    cli_net_usage(f);
    cli_net_usage_status(f);
}

static void
on_signal(int sig)
{
    (void)sig;
    if (watch_fd == WATCH_CONNECTING)
        _exit(CLI_OK);
    watch_stopped = 1;
    /* shutdown() is async-signal-safe; the read returns end of file. */
    if (watch_fd >= 0)
        shutdown(watch_fd, SHUT_RDWR);
}

/* An error push: print it like a refused request, 1; one without a
 * code is no refusal but a broken server, 2. */
static int
print_error_push(const msgpack_object *push)
{
    const msgpack_object *e = arb_mp_get(push, "error");
    const char           *code = "", *msg = "";
    size_t                clen = 0, mlen = 0;
    arb_buf_t             b = ARB_BUF_INIT;

    if (cli_get_bytes(e, "code", &code, &clen) != 0 || clen == 0) {
        fprintf(stderr, "arbiter watch: bad push from server: an error "
                "push without a code\n");
        return CLI_ERROR;
    }
    cli_get_bytes(e, "message", &msg, &mlen);
    /* Shown, never obeyed: escapes from the server as \xNN. */
    arb_text_clean(&b, code, clen, 0);
    arb_buf_printf(&b, ": ");
    arb_text_clean(&b, msg, mlen, 0);
    fprintf(stderr, "arbiter watch: %s\n", arb_buf_cstr(&b) != NULL
            ? arb_buf_cstr(&b) : "out of memory");
    arb_buf_free(&b);
    return CLI_DIFFERS;
}

int
cmd_watch(int argc, char **argv)
{
    cli_net_t             n;
    msgpack_packer       *pk;
    struct sigaction      sa;
    const msgpack_object *push;
    const char           *match = NULL, *from_s = NULL, *m;
    arb_buf_t             out = ARB_BUF_INIT, why = ARB_BUF_INIT;
    char                  mid[80];
    size_t                mlen;
    uint64_t              from = 0;
    int                   rc, json = 0, status;
    const cli_optdef_t opts[] = {
        { "--json", CLI_ARG_FLAG, &json },
        { "--match", CLI_ARG_STR, &match },
        { "--from", CLI_ARG_STR, &from_s },
        { NULL, 0, NULL }
    };
    cli_args_t ar = {
        .cmd = "watch",
        .usage = usage,
        .opts = opts,
        .net = &n,
        .no_words = 1,
    };

    cli_net_init(&n, "watch");
    status = cli_args_parse(&ar, argc, argv);
    if (status >= 0)
        return status;
    status = CLI_ERROR;
    if (from_s != NULL && cli_parse_u64("watch", "--from", from_s,
                                        &from) != 0)
        return CLI_ERROR;
    /* Before connecting (until 2026-12-08 after: an interrupt while the
     * recorder was slow to answer killed the command by the signal). */
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    watch_fd = WATCH_CONNECTING;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    if (cli_net_connect(&n) != 0)
        goto done;
    watch_fd = arb_client_fd(n.cl);
    pk = cli_net_begin(&n, "subscribe", (match != NULL) + (from_s != NULL));
    if (match != NULL)
        cli_pack_str(pk, "match", match);
    if (from_s != NULL)
        cli_pack_uint(pk, "from", from);
    /* An interrupt while the answer is awaited ends the read as the
     * server's close would: said only when it was not one (until
     * 2026-12-08 a Ctrl-C printed "connection closed by the server"). */
    rc = arb_client_call(n.cl, &n.res, &why);
    if (rc != 0) {
        if (watch_stopped) {
            status = CLI_OK;
            goto done;
        }
        fprintf(stderr, "arbiter watch: %s\n", arb_buf_cstr(&why));
        status = rc == ARB_EINVAL ? CLI_DIFFERS : CLI_ERROR;
        goto done;
    }
    /* Subscribed: news may be hours apart. */
    (void)arb_client_timeout(n.cl, 0, NULL);
    for (;;) {
        rc = arb_client_read(n.cl, &n.res, &why);
        if (rc == ARB_EIO) {
            /* Interrupted (0), or the daemon went away: a connection
             * problem (until 2026-12-06 this was 0 as well, so a
             * recorder that died looked like a Ctrl-C). */
            if (!watch_stopped)
                fprintf(stderr, "arbiter watch: %s\n", arb_buf_cstr(&why));
            status = watch_stopped ? 0 : CLI_ERROR;
            break;
        }
        if (rc != 0) {
            fprintf(stderr, "arbiter watch: %s\n", arb_buf_cstr(&why));
            status = CLI_ERROR;
            break;
        }
        push = arb_client_get(&n.res, "push");
        if (push == NULL || push->type != MSGPACK_OBJECT_STR)
            continue;           /* a response: nothing was asked */
        if (push->via.str.size == 5
            && memcmp(push->via.str.ptr, "error", 5) == 0) {
            status = print_error_push(&n.res.data);
            break;
        }
        if (push->via.str.size != 5
            || memcmp(push->via.str.ptr, "event", 5) != 0)
            continue;           /* a kind of push this tool predates */
        mid[0] = '\0';
        if (match == NULL && cli_get_bytes(&n.res.data, "match", &m,
                                           &mlen) == 0)
            snprintf(mid, sizeof(mid), "%.*s", (int)mlen, m);
        out.len = 0;
        if (cli_event_format(&out, &n.res.data, match == NULL ? mid : NULL,
                             json, &why) != 0) {
            fprintf(stderr, "arbiter watch: bad push from server: %s\n",
                    arb_buf_cstr(&why));
            status = CLI_ERROR;
            break;
        }
        fwrite(out.data, 1, out.len, stdout);
        if (fflush(stdout) != 0) {
            status = CLI_ERROR;
            break;
        }
    }
done:
    watch_fd = -1;
    cli_net_close(&n);
    arb_buf_free(&out);
    arb_buf_free(&why);
    return status;
}
