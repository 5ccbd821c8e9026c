/*
 * arbiter events - list a match's recorded events, one per line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/event.h"
#include "tools/cli.h"
#include "tools/net.h"

#define KINDS_MAX 8

static void
usage(FILE *f)
{
    fprintf(f,
        "usage: arbiter events --match ID [--from N] [--to N] [--kind K]...\n"
        "                      [--since MS] [--json] [connection options]\n\n"
        "Lists the committed events of a match, one per line:\n"
        "  <seq> <time, ISO 8601 UTC> <actor> <transcript line>\n"
        "e.g. '4 2026-03-01T10:00:07.412Z scorer place bob 5♥'; event 0 is\n"
        "the header ('open game: ...; players: ...; option: value').\n"
        "With --json, one object per line:\n"
        "  {\"seq\",\"time\",\"time_ms\",\"actor\",\"kind\",\"line\","
        "\"hash\"}\n\n"
        "options:\n"
        "  --match ID   the match\n"
        "  --from N     first event (default 0)\n"
        "  --to N       last event (default: the last committed)\n"
        "  --kind K     only this kind: open move note close void amend\n"
        "               stands claim; repeatable\n"
        "  --since MS   only events recorded at or after this Unix time in\n"
        "               milliseconds\n"
        "  --json       JSON lines\n\n");
    cli_net_usage(f);
    cli_net_usage_status(f);
}

typedef struct print_ctx {
    const char *match;
    int         json;
    arb_buf_t   out, why;
} print_ctx_t;

static int
on_item(void *ud, const msgpack_object *item)
{
    print_ctx_t *x = ud;

    x->out.len = 0;
    if (cli_event_format(&x->out, item, NULL, x->json, &x->why) != 0) {
        fprintf(stderr, "arbiter events: match %s: %s\n", x->match,
                arb_buf_cstr(&x->why));
        return CLI_ERROR;
    }
    fwrite(x->out.data, 1, x->out.len, stdout);
    return 0;
}

typedef struct kinds {
    char  **v;
    size_t  n;
} kinds_t;

/* Each --kind K. */
static int
on_kind(void *ud, const char *opt, const char *val)
{
    kinds_t *k = ud;
    int      i;

    if (arb_event_kind_parse(val) < 0) {
        /* A usage error, caught before asking the server: the list is
         * the codec's own. */
        fprintf(stderr, "arbiter events: %s '%s': no such kind; the kinds "
                "are", opt, val);
        for (i = 0; i < ARB_EV_KIND_MAX; i++)
            fprintf(stderr, " %s", arb_event_kind_name(i));
        fputc('\n', stderr);
        return -1;
    }
    if (k->n == KINDS_MAX) {
        fprintf(stderr, "arbiter events: at most %d --kind\n", KINDS_MAX);
        return -1;
    }
    k->v[k->n++] = (char *)val;
    return 0;
}

int
cmd_events(int argc, char **argv)
{
    cli_net_t    n;
    print_ctx_t  x;
    const char  *match = NULL, *from_s = NULL, *to_s = NULL, *since_s = NULL;
    char        *kinds[KINDS_MAX];
    uint64_t     from = 0, to = UINT64_MAX, since = 0;
    int          json = 0, status;
    const cli_optdef_t opts[] = {
        { "--json", CLI_ARG_FLAG, &json },
        { "--match", CLI_ARG_STR, &match },
        { "--from", CLI_ARG_STR, &from_s },
        { "--to", CLI_ARG_STR, &to_s },
        { "--since", CLI_ARG_STR, &since_s },
        { "--kind", CLI_ARG_EACH, NULL },
        { NULL, 0, NULL }
    };
    kinds_t    kk = { kinds, 0 };
    cli_args_t ar = {
        .cmd = "events",
        .usage = usage,
        .opts = opts,
        .net = &n,
        .each = on_kind,
        .ud = &kk,
        .no_words = 1,
    };

    cli_net_init(&n, "events");
    status = cli_args_parse(&ar, argc, argv);
    if (status >= 0)
        return status;
    status = CLI_ERROR;
    if (match == NULL) {
        fprintf(stderr, "arbiter events: --match is required\n");
        usage(stderr);
        return CLI_ERROR;
    }
    if ((from_s != NULL && cli_parse_u64("events", "--from", from_s,
                                         &from) != 0)
        || (to_s != NULL && cli_parse_u64("events", "--to", to_s, &to) != 0)
        || (since_s != NULL && cli_parse_u64("events", "--since", since_s,
                                             &since) != 0))
        return CLI_ERROR;
    if (from_s != NULL && to_s != NULL && from > to) {
        fprintf(stderr, "arbiter events: --from %s is after --to %s: no "
                "event is in between\n", from_s, to_s);
        return CLI_ERROR;
    }
    memset(&x, 0, sizeof(x));
    x.match = match;
    x.json = json;
    if (cli_net_connect(&n) == 0)
        status = cli_net_events(&n, match, from, to, kinds, kk.n, since,
                                on_item, &x);
    cli_net_close(&n);
    arb_buf_free(&x.out);
    arb_buf_free(&x.why);
    return status;
}
