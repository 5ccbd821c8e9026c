/*
 * arbiter report --html - one self-contained HTML file of a match: the
 * table at every event (a step-through), the move list, the results and
 * totals, the hash chain as checked here, and with --claim the claim's
 * differences marked on the records they concern.  The attachment to a
 * dispute ruling: it opens offline, from a file, with no network.
 *
 * DESIGN: the file is the live match page (core/web/match.html) with its
 * assets inlined by core/webpage.h and window.ARB_DATA holding what the
 * page would fetch from the recorder: the report at every seq, as
 * arb_report_json writes it, replayed here event by event; so the drawing
 * code is the live page's, one copy.  The report is the arbiter's: every
 * field, as `arbiter replay --json` prints it.
 *
 * A bundle is drawn only once it has passed the one complete verification
 * (arb_bundle_verified_history, with the key given here, as `arbiter
 * verify` takes it); the page then says what was verified, and a bundle
 * that fails gives no page at all.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/claim.h"
#include "core/diff.h"
#include "core/err.h"
#include "core/json.h"
#include "core/json_item.h"
#include "core/jsonin.h"
#include "core/ledger/bundle.h"
#include "core/ledger/chain.h"
#include "core/replay.h"
#include "core/transcript.h"
#include "core/webpage.h"
#include "tools/cli.h"
#include "tools/net.h"

static void
usage(FILE *f)
{
    fprintf(f,
        "usage: arbiter report --html [--claim F] [--out PATH] SOURCE\n"
        "       arbiter report --html --pubkey KEY [--match ID] BUNDLE\n\n"
        "Writes one self-contained HTML file of a match (inline SVG, CSS\n"
        "and script; opens offline): a picture of the table after every\n"
        "event with a slider to step through the match, the moves, the\n"
        "results and totals, and how the hash chain was checked.\n\n"
        "SOURCE is a FILE (a transcript, or the jsonl of one match by\n"
        "'arbiter export'), --db DIR --match ID (the recorder's store,\n"
        "read-only) or --match ID alone (the server, with the connection\n"
        "options; a running dealt match, which no client can replay, is\n"
        "drawn from the recorder's own reports, and the page says so).  A\n"
        "BUNDLE ('arbiter export --format bundle') is verified\n"
        "first, completely, with the recorder's public key, as 'arbiter\n"
        "verify' does; only a bundle that passes is drawn (its match, or\n"
        "the one --match names), and the page says what was verified.\n\n"
        "options:\n"
        "  --html       the format (the only one)\n"
        "  --claim F    a claim (docs/CLAIMS.md); its differences from the\n"
        "               record are marked on the records and totals\n"
        "  --out PATH   write here instead of stdout ('-': stdout)\n"
        "  --pubkey KEY the recorder's public key (a BUNDLE needs it)\n\n"
        "Exit status: 0 written, 1 an event refused by the rules or a broken\n"
        "hash chain (the file is still written, saying so), a damaged\n"
        "record in DIR (named: match and seq) or a bundle that fails\n"
        "verification (nothing written), 2 error.\n\n");
    cli_net_usage(f);
}

/* [...]: each event as `arbiter events --json` prints it; NULL (out of
 * memory). */
static json_t *
events_value(const arb_history_t *h)
{
    json_t *a = json_array();
    size_t  i;
    int     bad = 0;

    for (i = 0; i <= h->nevents; i++) {
        const arb_event_t       *ev = i == 0 ? &h->open : &h->events[i - 1];
        const arb_history_rec_t *r = h->recs != NULL ? &h->recs[i] : NULL;

        bad |= arb_json_add(a, arb_event_json_value(
            NULL, i, r != NULL ? r->time_ms : ev->time_ms,
            r != NULL && r->has_hash ? r->hash : NULL, ev));
    }
    return bad ? (json_decref(a), NULL) : a;
}

/* "chain":{"ok":b|null,"text":"..."} set on o: recomputes every link from the
 * canonical bytes the source gave and compares it with the hash the
 * source recorded.  0 when it holds or cannot be checked, 1 broken. */
static int
set_chain(json_t *o, const arb_history_t *h, const char *verified,
          int *bad)
{
    unsigned char head[ARB_HASH_LEN];
    char          hex[ARB_HASH_HEX];
    arb_buf_t     t = ARB_BUF_INIT;
    size_t        i, compared = 0;
    int           broken = 0;

    if (verified != NULL) {
        arb_buf_puts(&t, verified);
        arb_buf_puts(&t, "  ");
    }
    if (h->recs == NULL) {
        arb_buf_puts(&t, "Hash chain not checked: a transcript has no "
                     "recorded hashes.  Every event was replayed and judged "
                     "by the rules.");
    } else {
        for (i = 0; i <= h->nevents; i++) {
            arb_chain_next(i == 0 ? NULL : head, h->recs[i].bytes,
                           h->recs[i].len, head);
            if (!h->recs[i].has_hash)
                continue;
            compared++;
            if (memcmp(head, h->recs[i].hash, ARB_HASH_LEN) != 0) {
                arb_buf_printf(&t, "Hash chain BROKEN at seq %zu: the hash "
                               "recorded there is not BLAKE2b-256 of the "
                               "hash before and the event's bytes.", i);
                broken = 1;
                break;
            }
        }
        if (!broken) {
            arb_hex32(hex, head);
            arb_buf_printf(&t, "Hash chain checked when this file was "
                           "written: each link recomputed as BLAKE2b-256 "
                           "of the link before and the event's canonical "
                           "bytes, for events 0..%zu, and compared with "
                           "the %zu hashes the source recorded: all agree."
                           "  Head %s.", h->nevents, compared, hex);
        }
    }
    *bad |= t.oom
         | arb_json_set(o, "chain", json_pack(
               "{s:o,s:o}", "ok", h->recs == NULL ? json_null()
                                 : json_boolean(!broken),
               "text", arb_json_string(arb_buf_cstr(&t))));
    arb_buf_free(&t);
    return broken;
}

/* "claim":{"file","text","diff":{arb_diff_json}} set on o: the claim
 * against r, the final match's results (of game). */
static int
set_claim(json_t *o, const char *game, const arb_results_t *r,
          const char *path)
{
    arb_buf_t     text = ARB_BUF_INIT, why = ARB_BUF_INIT, t = ARB_BUF_INIT;
    arb_claim_t   c;
    arb_diff_t    d;
    const char   *base = strrchr(path, '/');
    int           status = CLI_ERROR;

    memset(&c, 0, sizeof(c));
    memset(&d, 0, sizeof(d));
    if (cli_read_file(&text, path) != 0)
        goto done;
    if (arb_claim_parse(&c, text.data ? text.data : "", text.len, r,
                        &why) != 0) {
        fprintf(stderr, "%s: %s\n", path, arb_buf_cstr(&why));
        goto done;
    }
    if (arb_diff_run(&d, game, r, &c.res) != 0)
        goto done;
    arb_diff_text(&t, &d);
    if (t.oom || arb_json_set(o, "claim", json_pack(
            "{s:o,s:o,s:o}",
            "file", arb_json_string(base != NULL ? base + 1 : path),
            "text", arb_json_string(arb_buf_cstr(&t)),
            "diff", arb_diff_json_value(&d))) != 0) {
        fprintf(stderr, "arbiter report: out of memory\n");
        goto done;
    }
    status = CLI_OK;
done:
    arb_diff_clear(&d);
    arb_claim_clear(&c);
    arb_buf_free(&text);
    arb_buf_free(&why);
    arb_buf_free(&t);
    return status;
}

/* The reports of a running dealt match read from the server, which no
 * client can replay (the recorder keeps its deal until the close): the
 * recorder's own, after each event (its `state` at every seq), added to
 * reports.  CLI_OK or the exit status (printed). */
static int
recorder_reports(json_t *reports, cli_net_t *n, const arb_history_t *h)
{
    const char *json, *match = h->open.setup->match_id;
    arb_buf_t   why = ARB_BUF_INIT;
    json_t     *rep;
    size_t      len;
    uint64_t    i;
    int         st = CLI_OK;

    for (i = 0; st == CLI_OK && i <= h->nevents; i++) {
        st = cli_net_state_with(n, match, i, NULL);
        if (st != CLI_OK)
            break;
        if (cli_get_bytes(&n->res.data, "json", &json, &len) != 0
            || arb_json_parse(&rep, json, len, &why) != 0) {
            fprintf(stderr, "arbiter report: match %s: the recorder's "
                    "report at seq %" PRIu64 " is malformed%s%s\n", match,
                    i, why.len > 0 ? ": " : "", arb_buf_cstr(&why)
                    ? arb_buf_cstr(&why) : "");
            st = CLI_ERROR;
        } else if (arb_json_add(reports, rep) != 0) {
            fprintf(stderr, "arbiter report: out of memory\n");
            st = CLI_ERROR;
        }
    }
    arb_buf_free(&why);
    return st;
}

/* The results a claim is read against: the final match's, or (sealed) the
 * recorder's own after the last event read. */
static int
claim_against(json_t *o, const arb_history_t *h, const arb_match_t *m,
              cli_net_t *sealed, const char *claim)
{
    arb_results_t r;
    arb_claim_t   rec;
    arb_buf_t     why = ARB_BUF_INIT;
    int           st;

    memset(&r, 0, sizeof(r));
    memset(&rec, 0, sizeof(rec));
    if (sealed != NULL) {
        st = cli_recorder_results(sealed, h->open.setup->match_id,
                                  h->nevents, &rec, NULL, &why);
        if (st != CLI_OK && why.len > 0)
            fprintf(stderr, "arbiter report: match %s: %s\n",
                    h->open.setup->match_id, arb_buf_cstr(&why));
    } else {
        st = arb_match_results(m, &r) == 0 ? CLI_OK : CLI_ERROR;
    }
    if (st == CLI_OK)
        st = set_claim(o, h->open.setup->game,
                       sealed != NULL ? &rec.res : &r, claim);
    arb_results_clear(&r);
    arb_claim_clear(&rec);
    arb_buf_free(&why);
    return st;
}

/* The page's data: the match, every event, the report after each event,
 * the refused event if any, the chain and the claim.  n: the server the
 * history was read from, or NULL; a running dealt match read from it is
 * drawn from the recorder's reports (recorder_reports).  CLI_OK,
 * CLI_DIFFERS (a refused event: the reports stop before it; a broken
 * chain) or CLI_ERROR. */
static int
build_data(arb_buf_t *b, arb_history_t *h, const char *claim,
           const char *verified, cli_net_t *n)
{
    arb_match_t  *m = NULL;
    arb_verdict_t v;
    arb_buf_t     line = ARB_BUF_INIT, note = ARB_BUF_INIT;
    json_t       *o = NULL, *players, *reports = NULL, *rep, *refused = NULL;
    cli_net_t    *sealed = n != NULL && arb_history_sealed(h) ? n : NULL;
    size_t        nbad = 0, i, k;
    int           rc, bad = 0, status = CLI_ERROR;

    if (sealed != NULL && h->withheld) {
        arb_buf_puts(&note, "Still running, and the recorder withholds the "
                     "hidden arguments of its moves from this token until "
                     "the close: the table at each event and the results "
                     "are the recorder's own reports.");
        verified = arb_buf_cstr(&note);
    } else if (sealed != NULL) {
        arb_buf_puts(&note, "Dealt and still running: the table at each "
                     "event and the results are the recorder's own "
                     "reports (it keeps the deal until the close reveals "
                     "it, so no reader can replay the match yet).");
        verified = arb_buf_cstr(&note);
    } else {
        rc = arb_history_replay(h, 0, &m, &nbad, &v);
        if (m == NULL) {
            fprintf(stderr, "%s: header: %s\n", h->source, v.msg);
            goto done;
        }
    }
    o = json_object();
    players = json_array();
    reports = json_array();
    bad |= arb_json_set(o, "match",
                        arb_json_string(h->open.setup->match_id));
    bad |= arb_json_set(o, "game", arb_json_string(h->open.setup->game));
    for (k = 0; k < h->open.setup->nplayers; k++)
        bad |= arb_json_add(players,
                            arb_json_string(h->open.setup->players[k].name));
    bad |= arb_json_set(o, "players", players);
    bad |= arb_json_set(o, "source",
                        arb_json_string(h->source != NULL ? h->source : "-"));
    bad |= arb_json_set(o, "events", events_value(h));
    status = sealed != NULL ? recorder_reports(reports, sealed, h) : CLI_OK;
    if (status != CLI_OK)
        goto done;
    for (i = 0; sealed == NULL; i++) {
        if (arb_report_json_value(&rep, m, 0) != 0) {
            status = CLI_ERROR;
            goto done;
        }
        bad |= arb_json_add(reports, rep);
        if (i == h->nevents)
            break;
        rc = arb_match_apply(m, &h->events[i], &v);
        if (rc != 0) {
            arb_transcript_event_line(&line, &h->events[i]);
            fprintf(stderr, "%s: seq %" PRIu64 " '%s' refused: %s: %s\n",
                    h->source, h->events[i].seq, arb_buf_cstr(&line),
                    v.rule, v.msg);
            refused = json_pack("{s:I,s:o,s:o,s:o}",
                                "seq", (json_int_t)h->events[i].seq,
                                "line", arb_json_string(arb_buf_cstr(&line)),
                                "rule", arb_json_string(v.rule),
                                "message", arb_json_string(v.msg));
            bad |= line.oom || refused == NULL;
            status = CLI_DIFFERS;
            break;
        }
    }
    bad |= arb_json_set(o, "reports", reports);
    reports = NULL;
    if (refused != NULL) {
        bad |= arb_json_set(o, "refused", refused);
        refused = NULL;
    }
    if (set_chain(o, h, verified, &bad) != 0) {
        fprintf(stderr, "%s: the hash chain is broken (see the report)\n",
                h->source);
        status = CLI_DIFFERS;
    }
    if (verified != NULL && sealed == NULL)
        bad |= arb_json_set(o, "verified", arb_json_string(verified));
    if (claim != NULL && claim_against(o, h, m, sealed, claim) != CLI_OK) {
        status = CLI_ERROR;
        goto done;
    }
    if (bad || arb_json_put(b, o) != 0) {
        fprintf(stderr, "arbiter report: out of memory\n");
        status = CLI_ERROR;
    }
done:
    json_decref(o);
    json_decref(reports);
    json_decref(refused);
    arb_match_free(m);
    arb_buf_free(&line);
    arb_buf_free(&note);
    return status;
}

/* 1 when the file at path is a bundle (its magic), else 0. */
static int
is_bundle(const char *path)
{
    char  magic[ARB_BUNDLE_MAGIC_LEN];
    FILE *f;
    int   yes = 0;

    if (strcmp(path, "-") == 0 || (f = fopen(path, "rb")) == NULL)
        return 0;
    yes = fread(magic, 1, sizeof(magic), f) == sizeof(magic)
          && memcmp(magic, ARB_BUNDLE_MAGIC, sizeof(magic)) == 0;
    fclose(f);
    return yes;
}

/* The history of a bundle's match, once the bundle is verified with key;
 * *verified says what was.  CLI_OK, CLI_DIFFERS (it fails verification:
 * every problem printed) or CLI_ERROR. */
static int
load_bundle(arb_history_t *h, const char *path, const char *match,
            const char *key, arb_buf_t *verified)
{
    unsigned char             pk[ARB_PUBKEY_LEN];
    char                      hex[2 * ARB_PUBKEY_LEN + 1],
                              head[ARB_HASH_HEX], prefix[PATH_MAX + 32];
    arb_bundle_report_t       rep;
    const arb_bundle_result_t *res = NULL;
    arb_buf_t                 why = ARB_BUF_INIT;
    cli_file_t                data;
    size_t                    i;
    int                       rc, status = CLI_ERROR;

    memset(&rep, 0, sizeof(rep));
    memset(&data, 0, sizeof(data));
    if (arb_pubkey_parse(pk, key, &why) != 0) {
        fprintf(stderr, "arbiter report: --pubkey: %s\n",
                arb_buf_cstr(&why));
        goto done;
    }
    if (cli_file_open(&data, path) != 0)
        goto done;
    rc = arb_bundle_verified_history(data.data, data.len, pk, match, &rep,
                                     h, &why);
    if (rc == ARB_ECRYPTO) {
        snprintf(prefix, sizeof(prefix), "arbiter report: %s: ", path);
        cli_print_bundle_problems(prefix, &rep);
        fprintf(stderr, "arbiter report: %s: FAILED verification (%zu "
                "problem%s): nothing drawn\n", path, rep.nproblems,
                rep.nproblems == 1 ? "" : "s");
        status = CLI_DIFFERS;
        goto done;
    }
    if (rc != 0) {
        fprintf(stderr, "arbiter report: %s: %s\n", path, why.len > 0
                ? arb_buf_cstr(&why) : arb_strerror(rc));
        goto done;
    }
    for (i = 0; i < rep.nmatches; i++)
        if (strcmp(rep.matches[i].match_id,
                   h->open.setup->match_id) == 0)
            res = &rep.matches[i];
    if (res == NULL || arb_history_name(h, "%s", path) != 0)
        goto done;
    arb_hex(hex, pk, ARB_PUBKEY_LEN);
    arb_hex32(head, res->head);
    arb_buf_printf(verified, "Bundle %s verified when this file was "
                   "written, with the public key %s given to arbiter "
                   "report: the signature of its checkpoint (%" PRIu64
                   " events, head %s), every hash link, the rule profile, "
                   "and every event replayed through the rules, which "
                   "recomputed the results.", path, hex, res->count, head);
    if (!res->closed)
        arb_buf_puts(verified, "  The match was open when exported: later "
                     "events are not covered.");
    status = verified->oom ? CLI_ERROR : CLI_OK;
done:
    arb_bundle_report_clear(&rep);
    cli_file_close(&data);
    arb_buf_free(&why);
    return status;
}

int
cmd_report(int argc, char **argv)
{
    cli_net_t     n;
    arb_history_t h;
    cli_source_t  src = { NULL, NULL, NULL, NULL };
    arb_buf_t     data = ARB_BUF_INIT, page = ARB_BUF_INIT,
                  why = ARB_BUF_INIT, verified = ARB_BUF_INIT;
    const char   *claim = NULL, *out = NULL, *key = NULL;
    int           html = 0, status, st;
    const cli_optdef_t opts[] = {
        { "--html", CLI_ARG_FLAG, &html },
        { "--claim", CLI_ARG_STR, &claim },
        { "--out", CLI_ARG_STR, &out },
        { "--pubkey", CLI_ARG_STR, &key },
        { "--db", CLI_ARG_STR, &src.db },
        { "--match", CLI_ARG_STR, &src.match },
        { NULL, 0, NULL }
    };
    cli_args_t a = { .cmd = "report", .usage = usage, .opts = opts,
                     .net = &n };

    memset(&h, 0, sizeof(h));
    cli_net_init(&n, "report");
    status = cli_args_parse(&a, argc, argv);
    if (status >= 0)
        goto done;
    status = CLI_ERROR;
    if (out != NULL && strcmp(out, "-") == 0)
        out = NULL;             /* stdout, as for export */
    if (!html) {
        fprintf(stderr, "arbiter report: say the format: --html\n");
        goto done;
    }
    if (src.db != NULL && src.match == NULL) {
        fprintf(stderr, "arbiter report: --db DIR needs --match ID\n");
        goto done;
    }
    if (key != NULL) {
        if (a.npos != 1 || src.db != NULL) {
            fprintf(stderr, "arbiter report: --pubkey goes with one BUNDLE "
                    "file\n");
            goto done;
        }
        status = load_bundle(&h, a.pos[0], src.match, key, &verified);
        if (status != CLI_OK)
            goto done;
        status = CLI_ERROR;
    } else {
        if (a.npos + (src.match != NULL) != 1) {
            fprintf(stderr, "arbiter report: name one source: FILE, --db "
                    "DIR --match ID, or --match ID (the server)\n");
            goto done;
        }
        src.file = a.npos == 1 ? a.pos[0] : NULL;
        if (src.file != NULL && is_bundle(src.file)) {
            fprintf(stderr, "arbiter report: %s is a bundle: it is drawn "
                    "only once verified, give --pubkey KEY (the "
                    "recorder's public key)\n", src.file);
            goto done;
        }
        /* A damaged record is 1, as for replay; the loader said it. */
        st = cli_source_load(&h, "report", &src, &n, UINT64_MAX);
        if (st != CLI_OK) {
            status = st;
            goto done;
        }
    }
    st = build_data(&data, &h, claim, verified.len > 0
                    ? arb_buf_cstr(&verified) : NULL,
                    src.file == NULL && src.db == NULL && key == NULL
                    ? &n : NULL);
    if (st == CLI_ERROR)
        goto done;
    arb_buf_putc(&data, '\0');
    if (data.oom || arb_webpage_inline(&page, "match.html", data.data,
                                       &why) != 0) {
        fprintf(stderr, "arbiter report: %s\n", data.oom || page.oom
                ? "out of memory" : arb_buf_cstr(&why));
        goto done;
    }
    if (cli_write_out("report", out, page.data, page.len) != CLI_OK)
        goto done;
    status = st;
done:
    cli_net_close(&n);
    arb_history_clear(&h);
    arb_buf_free(&data);
    arb_buf_free(&page);
    arb_buf_free(&why);
    arb_buf_free(&verified);
    return status;
}
