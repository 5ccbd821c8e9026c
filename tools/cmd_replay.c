/*
 * arbiter replay - replay a transcript and print the registration records,
 * the totals and the state digest.
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

static void
usage(FILE *f)
{
    fprintf(f,
        "usage: arbiter replay [--json] [--at N] FILE\n\n"
        "Replays a match transcript (docs/TRANSCRIPT.md; FILE '-' = stdin),\n"
        "checking every event against the rules, and prints the\n"
        "registration records, each player's total and the canonical state\n"
        "digest.\n\n"
        "options:\n"
        "  --json   print {\"records\":[...],\"totals\":{...},\"digest\":\"...\",\n"
        "           \"seq\":N,\"closed\":b,\"finished\":b,\"state\":{...}}\n"
        "  --at N   stop after event N (0 = the header only)\n\n"
        "A refused event stops the replay: its line, rule and message go to\n"
        "stderr and the exit status is 1.  Bad usage or unreadable input: 2.\n");
}

static void
print_text(const arb_match_t *m)
{
    arb_results_t r;
    unsigned char d[32];
    size_t        i, j;
    int           k;

    if (arb_match_results(m, &r) != 0) {
        fprintf(stderr, "arbiter replay: out of memory\n");
        return;
    }
    printf("match %s  game %s  events %" PRIu64 "%s\n",
           arb_match_setup(m)->match_id, arb_match_rules(m)->game,
           arb_match_next_seq(m) - 1,
           arb_match_closed(m) ? "  closed"
           : arb_match_finished(m) ? "  finished" : "");
    printf("records: %zu\n", r.nrecords);
    for (i = 0; i < r.nrecords; i++) {
        const arb_record_t *rec = &r.records[i];
        printf(" ");
        for (j = 0; j < rec->nfields; j++) {
            const arb_field_t *f = &rec->fields[j];
            if (strcmp(f->key, "match_id") == 0
                || strcmp(f->key, "edition") == 0)
                continue;
            if (f->type == ARB_F_INT)
                printf(" %s=%" PRId64, f->key, f->num);
            else if (f->type == ARB_F_STR)
                printf(" %s=%s", f->key, f->str);
            else {
                printf(" %s=", f->key);
                for (k = 0; (size_t)k < f->nlist; k++)
                    printf("%s%s", k ? "→" : "", f->list[k]);
            }
        }
        printf("  (seq %" PRIu64 ")\n", rec->seq);
    }
    printf("totals:\n");
    for (i = 0; i < r.ntotals; i++)
        printf("  %s %" PRId64 "\n", r.totals[i].name, r.totals[i].points);
    arb_match_digest(m, d);
    printf("digest ");
    for (k = 0; k < 32; k++)
        printf("%02x", d[k]);
    printf("\n");
    arb_results_clear(&r);
}

int
cmd_replay(int argc, char **argv)
{
    arb_buf_t        text = ARB_BUF_INIT, why = ARB_BUF_INIT, out = ARB_BUF_INIT;
    arb_transcript_t t;
    arb_match_t     *m = NULL;
    arb_verdict_t    v;
    const char      *path = NULL;
    uint64_t         at = UINT64_MAX;
    size_t           bad = 0;
    int              json = 0, i, rc, status = 2;
    char            *end;

    for (i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (strcmp(argv[i], "--at") == 0 && i + 1 < argc) {
            at = strtoull(argv[++i], &end, 10);
            if (*end != '\0' || argv[i][0] == '-' || argv[i][0] == '\0') {
                fprintf(stderr, "arbiter replay: --at wants an event number,"
                        " not '%s'\n", argv[i]);
                return 2;
            }
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "arbiter replay: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        } else if (path == NULL) {
            path = argv[i];
        } else {
            fprintf(stderr, "arbiter replay: one transcript at a time\n");
            return 2;
        }
    }
    if (path == NULL) {
        usage(stderr);
        return 2;
    }
    if (cli_read_file(&text, path) != 0)
        goto done;
    rc = arb_transcript_parse(&t, text.data ? text.data : "", text.len, &why);
    if (rc != 0) {
        fprintf(stderr, "%s: %s\n", path, arb_buf_cstr(&why));
        goto done;
    }
    if (at != UINT64_MAX && at > t.nevents) {
        fprintf(stderr, "arbiter replay: --at %" PRIu64 ": the transcript has"
                " events 0..%zu\n", at, t.nevents);
        arb_transcript_clear(&t);
        goto done;
    }
    rc = arb_replay(&m, &t.open, t.events, t.nevents, at, &bad, &v);
    if (m == NULL) {
        fprintf(stderr, "%s:%u: header: %s\n", path, t.open_line, v.msg);
        status = 1;
    } else if (rc != 0) {
        arb_buf_t line = ARB_BUF_INIT;
        arb_transcript_event_line(&line, &t.events[bad]);
        fprintf(stderr, "%s:%u: seq %zu '%s' refused: %s: %s\n", path,
                t.lines[bad], bad + 1, arb_buf_cstr(&line), v.rule, v.msg);
        arb_buf_free(&line);
        status = 1;
    } else {
        if (json) {
            if (arb_report_json(&out, m) != 0) {
                fprintf(stderr, "arbiter replay: out of memory\n");
                goto cleanup;
            }
            arb_buf_putc(&out, '\n');
            fwrite(out.data, 1, out.len, stdout);
        } else {
            print_text(m);
        }
        status = 0;
    }
cleanup:
    arb_match_free(m);
    arb_transcript_clear(&t);
done:
    arb_buf_free(&text);
    arb_buf_free(&why);
    arb_buf_free(&out);
    return status;
}
