/*
 * arbiter move - record one game move; the daemon judges it against the
 * rules before anything is written.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/jsonin.h"
#include "tools/cli.h"
#include "tools/net.h"

static void
usage(FILE *f)
{
    fprintf(f,
        "usage: arbiter move --match ID [--expect N] [--cid ID]\n"
        "                    [connection options] VERB PLAYER [ARG...]\n\n"
        "Records one move, e.g. 'arbiter move --match R3-T7 place alice 4♠'\n"
        "(YAHchain: place PLAYER CARD [@SOTA]), and prints\n"
        "  seq N hash <hex>               the move is recorded as event N\n"
        "  seq N hash <hex> (duplicate)   a retry of --cid ID: the original\n"
        "A move the rules refuse is not recorded: 'arbiter move: illegal:\n"
        "<rule>: <why>' and exit status 1.  Needs a scorer's or an\n"
        "arbiter's token.\n\n"
        "options:\n"
        "  --match ID   the match\n"
        "  --expect N   refuse unless the match is at event N (the last\n"
        "               event recorded), so two scorers cannot interleave\n"
        "  --cid ID     your id for this event: sending it again returns\n"
        "               the original seq instead of recording it twice\n"
        "  --judge      only judge the move against the recorded state,\n"
        "               record nothing: prints the verdict as JSON on\n"
        "               stdout, {\"legal\":true,\"records\":[...]} with the\n"
        "               records it would fix, or {\"legal\":false,\"rule\":\n"
        "               ...,\"message\":...} (exit 1); with --expect N,\n"
        "               refused unless the state judged is event N; not\n"
        "               with --cid\n"
        "  --           ends the options (for arguments starting with -)\n\n");
    cli_net_usage(f);
    cli_net_usage_status(f);
}

/* The judge op: nothing is recorded. */
static int
judge_move(cli_net_t *n, const cli_append_t *a)
{
    msgpack_packer *pk;
    const char     *json;
    json_t         *verdict;
    size_t          len;
    uint64_t        at;
    int             st;

    pk = cli_net_begin(n, "judge", 3 + (a->nmove > 2));
    arb_mp_pack_kv_str(pk, "match", a->match);
    arb_mp_pack_kv_str(pk, "verb", a->move[0]);
    arb_mp_pack_kv_str(pk, "player", a->move[1]);
    if (a->nmove > 2)
        arb_mp_pack_kv_strv(pk, "args", a->move + 2, a->nmove - 2);
    st = cli_net_call(n);
    if (st != 0)
        return st;
    /* The judge takes no expected seq: the verdict's own is compared,
     * or --expect was dropped and the move judged at another event. */
    if (a->has_expect) {
        if (arb_mp_get_uint(&n->res.data, "at", &at) != 0) {
            fprintf(stderr, "arbiter move: the answer has no seq of the "
                    "state judged\n");
            return CLI_ERROR;
        }
        if (at != a->expect) {
            fprintf(stderr, "arbiter move: conflict: expected seq %"
                    PRIu64 ", match is at %" PRIu64 "\n", a->expect, at);
            return CLI_DIFFERS;
        }
    }
    if (arb_mp_get_bytes(&n->res.data, "json", &json,
                         &len) != 0) {
        fprintf(stderr, "arbiter move: the answer has no verdict\n");
        return CLI_ERROR;
    }
    /* Checked before it is printed: no half verdict on stdout. */
    if (arb_json_parse(&verdict, json, len, NULL) != 0) {
        fprintf(stderr, "arbiter move: the verdict is not JSON\n");
        return CLI_ERROR;
    }
    printf("%.*s\n", (int)len, json);
    st = json_is_true(json_object_get(verdict, "legal")) ? CLI_OK
                                                         : CLI_DIFFERS;
    json_decref(verdict);
    return st;
}

int
cmd_move(int argc, char **argv)
{
    cli_net_t    n;
    cli_append_t a;
    const char  *expect = NULL;
    int          status, judge = 0;
    const cli_optdef_t opts[] = {
        { "--judge", CLI_ARG_FLAG, &judge },
        { "--match", CLI_ARG_STR, &a.match },
        { "--expect", CLI_ARG_STR, &expect },
        { "--cid", CLI_ARG_STR, &a.cid },
        { NULL, 0, NULL }
    };
    cli_args_t ar = { .cmd = "move", .usage = usage, .opts = opts, .net = &n };

    memset(&a, 0, sizeof(a));
    cli_net_init(&n, "move");
    status = cli_args_parse(&ar, argc, argv);
    if (status >= 0)
        goto done;
    status = CLI_ERROR;
    a.move = ar.pos;
    a.nmove = (size_t)ar.npos;
    if (a.match == NULL || a.nmove < 2) {
        fprintf(stderr, "arbiter move: %s\n", a.match == NULL
                ? "--match is required" : "a move is VERB PLAYER [ARG...]");
        usage(stderr);
        goto done;
    }
    if (expect != NULL) {
        if (cli_parse_u64("move", "--expect", expect, &a.expect) != 0)
            goto done;
        a.has_expect = 1;
    }
    /* A judged move is not recorded, so an id for its event would
     * name nothing: refused rather than silently dropped. */
    if (judge && a.cid != NULL) {
        fprintf(stderr, "arbiter move: --cid names an event to record; "
                "--judge records nothing\n");
        usage(stderr);
        goto done;
    }
    a.kind = "move";
    if (cli_net_connect(&n) != 0)
        goto done;
    status = judge ? judge_move(&n, &a) : cli_net_append(&n, &a);
done:
    cli_net_close(&n);
    return status;
}
