/*
 * arbiter diff - a claim against the record (--claim), or two records of
 * one match against each other (the first divergence).
 *
 * DESIGN: every source - a transcript, the recorder's store, a server -
 * becomes the same list of events, and the recorded results are this
 * tool's replay of them, as `arbiter state` makes its text.  The one
 * exception is a running dealt match read from the server, which no
 * client can replay (the recorder keeps its deal until the close): its
 * results are the recorder's, its report's records with the seq of each
 * (the `state` op's `seqs`).  The comparing is done by core/diff.c and
 * core/diff_log.c; this file only reads the sources and prints.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/claim.h"
#include "core/diff.h"
#include "core/history_diff.h"
#include "core/err.h"
#include "core/replay.h"
#include "core/transcript.h"
#include "tools/cli.h"
#include "tools/net.h"

static void
usage(FILE *f)
{
    fprintf(f,
        "usage: arbiter diff --claim CLAIM [--json] SOURCE\n"
        "       arbiter diff [--json] SOURCE_A SOURCE_B\n\n"
        "SOURCE is a FILE - a transcript (docs/TRANSCRIPT.md) or the jsonl of\n"
        "one match by 'arbiter export' (its hash chain is checked) - or\n"
        "--db DIR --match ID (the recorder's store, read-only) or --match ID\n"
        "alone (the server, with the connection options).  Two sources: two\n"
        "FILEs, or one FILE and one --db/--match source (that one is B).\n\n"
        "With --claim, compares every field of a claim (docs/CLAIMS.md:\n"
        "JSON or CSV) with the results the source records, and prints one\n"
        "line per difference:\n"
        "  record 3 (Sota 3): bonus: claimed 12, recorded 6, fixed at seq 9\n"
        "  record 5 (Sota 5): missing from the claim, fixed at seq 15\n"
        "  claimed record 12 (Sota 5): extra: no such record\n"
        "  total bob: claimed 150, recorded 144\n"
        "then 'N differences', or 'identical: R records, T totals'.\n\n"
        "Without --claim, names the first event where two records of the\n"
        "match part, with the state digests there:\n"
        "  first divergence at seq 9: A has 'place bob 7♠', B has "
        "'place bob 7♣'\n\n"
        "options:\n"
        "  --claim F    the claim file ('-' = stdin)\n"
        "  --json       one JSON object instead of lines\n"
        "  --db DIR     read the match from the store in DIR\n"
        "  --match ID   the match (from --db, else from the server)\n\n"
        "Exit status: 0 identical, 1 differences, 2 error: a source that\n"
        "cannot be read (a match the server does not have too).\n\n");
    cli_net_usage(f);
}

/* --claim: replays the source (or, for a running dealt match read from
 * the server, n not NULL, takes the recorder's results), reads the claim
 * against its results. */
static int
diff_claim(arb_history_t *s, cli_net_t *n, const char *match,
           const char *claim_path, int json)
{
    arb_buf_t     text = ARB_BUF_INIT, why = ARB_BUF_INIT, out = ARB_BUF_INIT;
    arb_buf_t     line = ARB_BUF_INIT;
    arb_match_t  *m = NULL;
    arb_verdict_t v;
    arb_results_t r;
    arb_claim_t   c, rec;
    arb_diff_t    d;
    size_t        bad;
    int           rc, status = CLI_ERROR, own;

    memset(&r, 0, sizeof(r));
    memset(&c, 0, sizeof(c));
    memset(&rec, 0, sizeof(rec));
    memset(&d, 0, sizeof(d));
    own = n == NULL || !arb_history_sealed(s);
    if (!own) {
        status = cli_recorder_results(n, match, s->nevents, &rec, NULL,
                                      &why);
        if (status != CLI_OK) {
            if (why.len > 0)
                fprintf(stderr, "arbiter diff: match %s, judged by the "
                        "recorder alone: %s\n", match, arb_buf_cstr(&why));
            goto done;
        }
        status = CLI_ERROR;
        rc = 0;
    } else {
        rc = arb_history_replay(s, UINT64_MAX, &m, &bad, &v);
    }
    if (rc != 0) {
        if (m == NULL) {
            fprintf(stderr, "%s: header: %s\n", s->source, v.msg);
        } else {
            arb_transcript_event_line(&line, &s->events[bad]);
            if (s->lines != NULL)
                fprintf(stderr, "%s:%u: ", s->source, s->lines[bad]);
            else
                fprintf(stderr, "%s: ", s->source);
            fprintf(stderr, "seq %" PRIu64 " '%s' refused: %s: %s\n",
                    s->events[bad].seq, arb_buf_cstr(&line), v.rule,
                    v.msg);
        }
        goto done;
    }
    if ((own && arb_match_results(m, &r) != 0)
        || cli_read_file(&text, claim_path) != 0)
        goto done;
    rc = arb_claim_parse(&c, text.data ? text.data : "", text.len,
                         own ? &r : &rec.res, &why);
    if (rc != 0) {
        fprintf(stderr, "%s: %s\n", claim_path, arb_buf_cstr(&why));
        goto done;
    }
    if (arb_diff_run(&d, s->open.setup->game, own ? &r : &rec.res, &c.res)
        != 0)
        goto done;
    if (json) {
        arb_diff_json(&out, &d);
        arb_buf_putc(&out, '\n');
    } else {
        arb_diff_text(&out, &d);
    }
    if (out.oom) {
        fprintf(stderr, "arbiter diff: out of memory\n");
        goto done;
    }
    fwrite(out.data, 1, out.len, stdout);
    status = d.n == 0 ? CLI_OK : CLI_DIFFERS;
done:
    arb_diff_clear(&d);
    arb_claim_clear(&c);
    arb_claim_clear(&rec);
    arb_results_clear(&r);
    arb_match_free(m);
    arb_buf_free(&text);
    arb_buf_free(&why);
    arb_buf_free(&out);
    arb_buf_free(&line);
    return status;
}

static int
diff_histories(arb_history_t *a, arb_history_t *b, int json)
{
    arb_history_diff_t d;
    arb_buf_t      out = ARB_BUF_INIT, why = ARB_BUF_INIT;
    int            rc, status = CLI_ERROR;

    rc = arb_history_diff(&d, a, b, &why);
    if (rc != 0) {
        fprintf(stderr, "arbiter diff: %s\n", arb_buf_cstr(&why));
        goto done;
    }
    if (json) {
        arb_history_diff_json(&out, &d, a, b);
        arb_buf_putc(&out, '\n');
    } else {
        arb_history_diff_text(&out, &d, a, b);
    }
    if (!out.oom) {
        fwrite(out.data, 1, out.len, stdout);
        status = d.identical ? CLI_OK : CLI_DIFFERS;
    }
    arb_history_diff_clear(&d);
done:
    arb_buf_free(&out);
    arb_buf_free(&why);
    return status;
}

int
cmd_diff(int argc, char **argv)
{
    cli_net_t     n;
    arb_history_t h[2];
    cli_source_t  src = { NULL, NULL, NULL, NULL };
    const char   *claim = NULL;
    size_t        nh = 0, i;
    int           k, json = 0, status;
    const cli_optdef_t opts[] = {
        { "--json", CLI_ARG_FLAG, &json },
        { "--claim", CLI_ARG_STR, &claim },
        { "--db", CLI_ARG_STR, &src.db },
        { "--match", CLI_ARG_STR, &src.match },
        { NULL, 0, NULL }
    };
    cli_args_t a = { .cmd = "diff", .usage = usage, .opts = opts, .net = &n };

    memset(h, 0, sizeof(h));
    cli_net_init(&n, "diff");
    status = cli_args_parse(&a, argc, argv);
    if (status >= 0)
        goto done;
    status = CLI_ERROR;
    if (a.npos > 2) {
        fprintf(stderr, "arbiter diff: at most two sources\n");
        goto done;
    }
    if (src.db != NULL && src.match == NULL) {
        fprintf(stderr, "arbiter diff: --db DIR needs --match ID\n");
        goto done;
    }
    if ((size_t)a.npos + (src.match != NULL) != (claim != NULL ? 1u : 2u)) {
        fprintf(stderr, "arbiter diff: %s\n", claim != NULL
                ? "--claim compares with one source: FILE, --db DIR "
                  "--match ID, or --match ID (the server)"
                : "name two sources: FILE FILE, or FILE and --db DIR "
                  "--match ID / --match ID");
        usage(stderr);
        goto done;
    }
    for (k = 0; k < a.npos; k++) {
        cli_source_t f = { a.pos[k], NULL, NULL, NULL };
        if (cli_source_load(&h[nh++], "diff", &f, &n, UINT64_MAX) != CLI_OK)
            goto done;
    }
    if (src.match != NULL
        && cli_source_load(&h[nh++], "diff", &src, &n, UINT64_MAX) != CLI_OK)
        goto done;
    /* (n: the server, when the source is it: a running dealt match is
     * judged by the recorder.) */
    status = claim != NULL
             ? diff_claim(&h[0], src.match != NULL && src.db == NULL ? &n
                                                                     : NULL,
                          src.match, claim, json)
             : diff_histories(&h[0], &h[1], json);
done:
    for (i = 0; i < nh; i++)
        arb_history_clear(&h[i]);
    cli_net_close(&n);
    return status;
}
