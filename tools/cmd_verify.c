/*
 * arbiter verify - check a bundle offline, completely, with the public key
 * the verifier holds.
 *
 * DESIGN: there is no option that leaves a check out.  Everything is done
 * by arb_bundle_verify() (core/ledger/bundle.h); this file only prints what it
 * found.  The records and totals are printed only when every check holds,
 * so nobody copies results out of a bundle that failed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/ledger/bundle.h"
#include "core/ledger/chain.h"
#include "core/err.h"
#include "core/text.h"
#include "core/version.h"
#include "tools/cli.h"
#include "tools/net.h"
#include "tools/ops.h"

static void
usage(FILE *f)
{
    fprintf(f,
        "usage: arbiter verify BUNDLE --pubkey KEY\n\n"
        "Checks a bundle made by 'arbiter export --format bundle', offline,\n"
        "and always completely, for every match in it:\n"
        "  - the checkpoint (match, event count, head hash) is signed by KEY;\n"
        "  - seqs 0..N-1 are all there, once each, in order, N = the count;\n"
        "  - every hash link is recomputed from the raw event bytes and the\n"
        "    last one equals the checkpoint's head;\n"
        "  - every event decodes (canonical encoding only), the rule profile\n"
        "    matches the opening event, and replaying the events through the\n"
        "    rules accepts each one;\n"
        "then prints the records and totals the replay derives, and the\n"
        "state digest.\n\n"
        "KEY is the recorder's public key as 64 hex digits ('arbiter key'\n"
        "prints it) or a file holding them, obtained from the recorder's\n"
        "operator -- never from the bundle itself.  BUNDLE '-' = stdin.\n\n"
        "Every failure names the match, the seq and what failed, e.g.\n"
        "'hash mismatch at seq 17', 'seq 5 missing', 'truncated at byte N\n"
        "(in seq K)', 'signature does not verify with key ...'.\n"
        "Exit status: 0 everything holds, 1 the bundle fails verification,\n"
        "2 usage or I/O error.\n");
}

/* A string the bundle states but nothing verifies: a control character
 * (C1 too) or a byte that is not UTF-8 is shown escaped, so it cannot
 * drive the terminal (core/text.h), and so is a backslash, so that no
 * escape can be forged. */
static void
print_claim(const char *s)
{
    arb_buf_t   b = ARB_BUF_INIT;
    const char *bs;
    size_t      n;

    for (;;) {
        bs = strchr(s, '\\');
        n = bs != NULL ? (size_t)(bs - s) : strlen(s);
        arb_text_clean(&b, s, n, 0);
        if (bs == NULL)
            break;
        arb_buf_puts(&b, "\\x5c");
        s = bs + 1;
    }
    if (!b.oom && b.len > 0)
        fwrite(b.data, 1, b.len, stdout);
    arb_buf_free(&b);
}

/* A string of the bundle that its checks cover: still the file's bytes,
 * and the open event's decoder takes a control character in a name (an
 * older record may hold one), so it is shown as \xNN (core/text.h). */
static void
print_text(const char *s)
{
    arb_buf_t b = ARB_BUF_INIT;

    arb_text_clean(&b, s, strlen(s), 0);
    if (!b.oom && b.len > 0)
        fwrite(b.data, 1, b.len, stdout);
    arb_buf_free(&b);
}

static void
print_match(const arb_bundle_result_t *res)
{
    char head[ARB_HASH_HEX];

    arb_hex(head, res->head, ARB_HASH_LEN);
    printf("match ");
    print_text(res->match_id);
    printf("  game ");
    print_text(res->game ? res->game : "-");
    printf("  edition ");
    print_text(res->edition ? res->edition : "-");
    printf("  events %" PRIu64 "  %s\n", res->count,
           res->closed ? "closed" : "open");
    printf("  signature: good, checkpoint of %" PRIu64 " events, head %s\n",
           res->cp_count, head);
    printf("  chain: %" PRIu64 " hashes recomputed from the event bytes\n",
           res->count);
    printf("  replay: every event decoded (canonical) and accepted by the "
           "rules\n");
    printf("  recorded by ");
    print_text(res->engine ? res->engine : "(unknown engine)");
    printf("\n");
    /* No signature or chain covers the exporter's name: show it as the
     * bundle's claim, never among the verified facts. */
    printf("  unverified: the bundle says it was exported by ");
    print_claim(res->exporter ? res->exporter : "(nobody)");
    printf(" (no signature covers this)\n");
    if (res->engine != NULL && strcmp(res->engine, ARB_ENGINE) != 0)
        printf("  note: verified by %s: the results are this engine's\n",
               ARB_ENGINE);
    if (!res->closed)
        printf("  note: the match was open when exported: later events are "
               "not covered\n");
    cli_print_results(res->m);
}

/* At a terminal only (tools/ops.h): a bundle of a season's matches takes
 * seconds. */
static void
on_progress(void *ud, uint64_t done, uint64_t total)
{
    ops_progress(ud, "verify", "events", done, total);
}

int
cmd_verify(int argc, char **argv)
{
    unsigned char        pk[ARB_PUBKEY_LEN];
    arb_bundle_report_t  rep;
    arb_buf_t            why = ARB_BUF_INIT;
    cli_file_t           data;
    const char          *path = NULL, *key = NULL;
    char                 hex[2 * ARB_PUBKEY_LEN + 1], prefix[PATH_MAX + 32];
    uint64_t             events = 0;
    ops_progress_t       pr;
    size_t               i;
    int                  rc, status;
    const cli_optdef_t opts[] = {
        { "--pubkey", CLI_ARG_STR, &key },
        { NULL, 0, NULL }
    };
    cli_args_t ar = { .cmd = "verify", .usage = usage, .opts = opts };

    memset(&rep, 0, sizeof(rep));
    memset(&data, 0, sizeof(data));
    status = cli_args_parse(&ar, argc, argv);
    if (status >= 0)
        return status;
    status = CLI_ERROR;
    if (ar.npos > 1) {
        fprintf(stderr, "arbiter verify: one bundle at a time\n");
        return CLI_ERROR;
    }
    path = ar.npos == 1 ? ar.pos[0] : NULL;
    if (path == NULL || key == NULL) {
        fprintf(stderr, "arbiter verify: %s\n", path == NULL
                ? "which bundle?" : "--pubkey KEY is required: the "
                "recorder's public key, from its operator");
        usage(stderr);
        return CLI_ERROR;
    }
    if (arb_pubkey_parse(pk, key, &why) != 0) {
        fprintf(stderr, "arbiter verify: --pubkey: %s\n", arb_buf_cstr(&why));
        goto done;
    }
    if (cli_file_open(&data, path) != 0)
        goto done;
    ops_progress_init(&pr);
    rc = arb_bundle_verify_progress(data.data, data.len, pk, &rep,
                                    on_progress, &pr);
    ops_progress_clear(&pr);
    if (rc == ARB_ENOMEM) {
        fprintf(stderr, "arbiter verify: out of memory\n");
        goto done;
    }
    arb_hex(hex, pk, ARB_PUBKEY_LEN);
    if (rc != 0) {
        snprintf(prefix, sizeof(prefix), "arbiter verify: %s: ", path);
        cli_print_bundle_problems(prefix, &rep);
        fprintf(stderr, "arbiter verify: %s: FAILED (%zu problem%s): do "
                "not trust this bundle\n", path, rep.nproblems,
                rep.nproblems == 1 ? "" : "s");
        status = CLI_DIFFERS;
        goto done;
    }
    printf("bundle %s: %zu match%s, key %s\n", path, rep.nmatches,
           rep.nmatches == 1 ? "" : "es", hex);
    for (i = 0; i < rep.nmatches; i++) {
        print_match(&rep.matches[i]);
        events += rep.matches[i].count;
    }
    printf("verified: %zu match%s, %" PRIu64 " events: signature, chain, "
           "rules and results hold\n", rep.nmatches,
           rep.nmatches == 1 ? "" : "es", events);
    status = 0;
done:
    arb_bundle_report_clear(&rep);
    cli_file_close(&data);
    arb_buf_free(&why);
    return status;
}
