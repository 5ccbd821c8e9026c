/*
 * arbiter replay - replay a transcript and print the registration records,
 * the totals and the state digest, from a transcript file or from the
 * recorder's store.  `arbiter state` prints through the same code, so the
 * three agree by construction.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/json.h"
#include "core/replay.h"
#include "core/transcript.h"
#include "tools/cli.h"
#include "tools/net.h"

static void
usage(FILE *f)
{
    fprintf(f,
        "usage: arbiter replay [--json] [--at N] FILE\n"
        "       arbiter replay [--json] [--at N] --db DIR --match ID\n"
        "       arbiter replay [--json] [--verify] --db DIR\n\n"
        "Replays a match transcript (docs/TRANSCRIPT.md; FILE '-' = stdin),\n"
        "checking every event against the rules, and prints the\n"
        "arbiter's rulings (void, amend, stands; when there are), the\n"
        "registration records, each player's total and the canonical state\n"
        "digest.\n\n"
        "options:\n"
        "  --json       print {\"records\":[...],\"totals\":{...},"
        "\"digest\":\"...\",\n"
        "               \"seq\":N,\"closed\":b,\"finished\":b,"
        "[\"rulings\":[...],]\n"
        "               \"state\":{...}}\n"
        "  --at N       stop after event N (0 = the header only)\n"
        "  --db DIR     replay match ID from the recorder's store in DIR\n"
        "               (opened read-only: safe while arbiterd runs)\n"
        "  --match ID   the match to replay from --db; without it, every\n"
        "               match of DIR in one pass over its log, one line\n"
        "               each: match, game, events, state, digest\n"
        "  --verify     with --db and no --match: check every hash chain\n"
        "               first (replay itself trusts the stored hashes;\n"
        "               docs/REPLAY.md)\n\n"
        "A refused event stops the replay: its line (or seq), rule and\n"
        "message go to stderr and the exit status is 1; so does a damaged\n"
        "store (an event that does not decode: its match and seq named).\n"
        "Bad usage or unreadable input: 2.\n");
}

int
cli_print_results(const arb_match_t *m)
{
    arb_buf_t b = ARB_BUF_INIT;
    int       rc = arb_results_text(&b, m);

    if (rc == 0)
        fwrite(b.data, 1, b.len, stdout);
    arb_buf_free(&b);
    return rc;
}

static void
print_text(const arb_match_t *m)
{
    arb_buf_t b = ARB_BUF_INIT;

    if (arb_report_text(&b, m) == 0)
        fwrite(b.data, 1, b.len, stdout);
    else
        fprintf(stderr, "arbiter replay: out of memory\n");
    arb_buf_free(&b);
}

int
cli_replay_print(arb_history_t *h, uint64_t at, int json,
                 const char *want_digest)
{
    arb_buf_t          out = ARB_BUF_INIT, line = ARB_BUF_INIT;
    arb_match_t       *m = NULL;
    arb_verdict_t      v;
    unsigned char      d[ARB_HASH_LEN];
    char               hex[ARB_HASH_HEX];
    const char        *src = h->source != NULL ? h->source : "-";
    const unsigned    *lines = h->lines;
    const arb_event_t *events = h->events;
    size_t             bad = 0;
    int                rc, status = CLI_DIFFERS;

    rc = arb_history_replay(h, at, &m, &bad, &v);
    if (m == NULL) {
        if (lines != NULL)
            fprintf(stderr, "%s:%u: header: %s\n", src, h->open_line,
                    v.msg);
        else
            fprintf(stderr, "%s: header: %s\n", src, v.msg);
        goto done;
    }
    if (rc != 0) {
        arb_transcript_event_line(&line, &events[bad]);
        if (lines != NULL)
            fprintf(stderr, "%s:%u: ", src, lines[bad]);
        else
            fprintf(stderr, "%s: ", src);
        fprintf(stderr, "seq %" PRIu64 " '%s' refused: %s: %s\n",
                events[bad].seq, arb_buf_cstr(&line), v.rule, v.msg);
        goto done;
    }
    if (json) {
        if (arb_report_json(&out, m) != 0) {
            fprintf(stderr, "arbiter replay: out of memory\n");
            status = CLI_ERROR;
            goto done;
        }
        arb_buf_putc(&out, '\n');
        fwrite(out.data, 1, out.len, stdout);
    } else {
        print_text(m);
    }
    status = CLI_OK;
    if (want_digest != NULL) {
        arb_match_digest(m, d);
        arb_hex(hex, d, ARB_HASH_LEN);
        if (strcmp(hex, want_digest) != 0) {
            fprintf(stderr, "%s: digest %s differs from the server's %s "
                    "(another engine version?)\n", src, hex, want_digest);
            status = CLI_DIFFERS;
        }
    }
done:
    arb_match_free(m);
    arb_buf_free(&out);
    arb_buf_free(&line);
    return status;
}

int
cmd_replay(int argc, char **argv)
{
    arb_history_t h;
    cli_source_t  src = { NULL, NULL, NULL, NULL };
    const char   *at_s = NULL;
    uint64_t      at = UINT64_MAX;
    int           json = 0, verify = 0, status;
    const cli_optdef_t opts[] = {
        { "--json", CLI_ARG_FLAG, &json },
        /* A string: UINT64_MAX, "every event" below, is a number a
         * user may type too, and must not mean "no --at". */
        { "--at", CLI_ARG_STR, &at_s },
        { "--db", CLI_ARG_STR, &src.db },
        { "--match", CLI_ARG_STR, &src.match },
        { "--verify", CLI_ARG_FLAG, &verify },
        { NULL, 0, NULL }
    };
    cli_args_t a = { .cmd = "replay", .usage = usage, .opts = opts };

    memset(&h, 0, sizeof(h));
    status = cli_args_parse(&a, argc, argv);
    if (status >= 0)
        return status;
    if (a.npos > 1) {
        fprintf(stderr, "arbiter replay: one transcript at a time\n");
        return CLI_ERROR;
    }
    if (at_s != NULL && cli_parse_u64("replay", "--at", at_s, &at) != 0)
        return CLI_ERROR;
    src.file = a.npos == 1 ? a.pos[0] : NULL;
    if (src.db != NULL && src.match == NULL && src.file == NULL) {
        if (at_s != NULL) {
            fprintf(stderr, "arbiter replay: --at needs --match\n");
            return CLI_ERROR;
        }
        return cli_replay_store(src.db, json, verify);
    }
    if (verify) {
        fprintf(stderr, "arbiter replay: --verify is for a whole store "
                "(--db DIR without --match); `arbiter verify` checks one "
                "match\n");
        return CLI_ERROR;
    }
    if ((src.db != NULL || src.match != NULL)
        && (src.db == NULL || src.match == NULL || src.file != NULL)) {
        fprintf(stderr, "arbiter replay: --db DIR and --match ID go "
                "together, instead of FILE\n");
        return CLI_ERROR;
    }
    if (src.file == NULL && src.db == NULL) {
        usage(stderr);
        return CLI_ERROR;
    }
    status = cli_source_load(&h, "replay", &src, NULL, UINT64_MAX);
    if (status != CLI_OK)
        goto done;
    status = CLI_ERROR;
    if (at_s != NULL && at > h.nevents) {
        if (src.file != NULL)
            fprintf(stderr, "arbiter replay: --at %" PRIu64 ": the "
                    "transcript has events 0..%zu\n", at, h.nevents);
        else
            fprintf(stderr, "arbiter replay: --at %" PRIu64 ": match '%s' "
                    "has events 0..%zu\n", at, src.match, h.nevents);
        goto done;
    }
    status = cli_replay_print(&h, at, json, NULL);
done:
    arb_history_clear(&h);
    return status;
}
