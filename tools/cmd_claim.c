/*
 * arbiter claim - submit a claim of a match's results to the recorder, as
 * an event of kind "claim" (docs/CLAIMS.md), and print the verdict the
 * recorder now shows: each record confirmed, disputed or still pending.
 *
 * DESIGN: the claim is put in its canonical form here, so what is sent is
 * what `--dry-run` prints and what a transcript's claim line holds.  A CSV
 * claim has no types of its own: it is read against the match's recorded
 * results, fetched first with a `state` read.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/claim.h"
#include "core/diff.h"
#include "core/err.h"
#include "core/jsonin.h"
#include "core/transcript.h"
#include "core/codec.h"
#include "proto/limits.h"
#include "tools/cli.h"
#include "tools/net.h"

static void
usage(FILE *f)
{
    fprintf(f,
        "usage: arbiter claim --match ID [--by NAME] [--expect N] [--cid ID]"
        "\n                     [--dry-run] [connection options] FILE\n\n"
        "Records a claim of the match's results (docs/CLAIMS.md: JSON, or\n"
        "CSV for spreadsheets; FILE '-' = stdin) as an event of kind\n"
        "'claim', accepted during the match and after its close.  The\n"
        "latest claim decides each record's status, shown by 'arbiter\n"
        "state': confirmed when the claim agrees field for field, disputed\n"
        "(with the differing fields) when not.  Prints\n"
        "  seq N hash <hex>\n"
        "  record 3 (Sota 3): disputed: bonus\n"
        "  12 records: 11 confirmed, 1 disputed\n"
        "Needs a scorer's or an arbiter's token.\n\n"
        "options:\n"
        "  --match ID   the match\n"
        "  --by NAME    who claims (a player, a team, the rating body)\n"
        "  --expect N   refuse unless the match is at event N\n"
        "  --cid ID     your id for this event (a retry returns the\n"
        "               original seq)\n"
        "  --dry-run    print the claim as a transcript line; send nothing\n"
        "\n");
    cli_net_usage(f);
    cli_net_usage_status(f);
}

/* The match's recorded results as a schema for CSV cells, from `state`. */
static int
fetch_schema(cli_net_t *n, const char *match, arb_claim_t *schema)
{
    msgpack_packer *pk;
    arb_buf_t       why = ARB_BUF_INIT;
    const char     *json;
    size_t          len;
    int             rc;

    pk = cli_net_begin(n, "state", 1);
    cli_pack_str(pk, "match", match);
    rc = cli_net_call(n);
    if (rc != 0)
        return rc;
    if (cli_get_bytes(&n->res.data, "json", &json, &len) != 0) {
        fprintf(stderr, "arbiter claim: the server's answer has no json\n");
        return CLI_ERROR;
    }
    /* A report is a claim that agrees with itself (docs/CLAIMS.md). */
    rc = arb_claim_parse_json(schema, json, len, &why);
    if (rc != 0)
        fprintf(stderr, "arbiter claim: the server's report: %s\n",
                arb_buf_cstr(&why));
    arb_buf_free(&why);
    return rc != 0 ? CLI_ERROR : CLI_OK;
}

/* 0 when the claim fits in one event; else 2, the reason printed. */
static int
check_size(const arb_event_t *ev, const char *path)
{
    arb_buf_t why = ARB_BUF_INIT;
    int       rc;

    rc = arb_claim_event_fits(ev, &why);
    if (rc != 0)
        fprintf(stderr, "arbiter claim: %s: %s\n", path, arb_buf_cstr(&why));
    arb_buf_free(&why);
    return rc != 0 ? CLI_ERROR : CLI_OK;
}

static int
send_claim(cli_net_t *n, const arb_event_t *ev, const char *match,
           const char *cid, const char *expect_s)
{
    msgpack_packer *pk;
    uint64_t        expect = 0;
    int             rc;

    if (expect_s != NULL
        && cli_parse_u64("claim", "--expect", expect_s, &expect) != 0)
        return CLI_ERROR;
    pk = cli_net_begin(n, "append", 3 + (cid != NULL) + (expect_s != NULL)
                       + (ev->player != NULL) + (ev->nargs > 0));
    cli_pack_str(pk, "match", match);
    cli_pack_str(pk, "kind", "claim");
    if (cid != NULL)
        cli_pack_str(pk, "cid", cid);
    if (expect_s != NULL)
        cli_pack_uint(pk, "expect", expect);
    if (ev->player != NULL)
        cli_pack_str(pk, "player", ev->player);
    if (ev->nargs > 0)
        cli_pack_strv(pk, "args", ev->args, ev->nargs);
    cli_pack_str(pk, "text", ev->text);
    rc = cli_net_call(n);
    return rc != 0 ? rc : cli_net_print_ack(n, "");
}

/* The key of a record for messages: " (Sota 3)". */
static void
label(char *out, size_t n, const json_t *rec, const char *game)
{
    const char   *lab, *key = arb_diff_key(game, &lab);
    const json_t *k = key != NULL ? json_object_get(rec, key) : NULL;

    out[0] = '\0';
    if (json_is_integer(k))
        snprintf(out, n, " (%s %" PRId64 ")", lab,
                 (int64_t)json_integer_value(k));
    else if (json_is_string(k))
        snprintf(out, n, " (%s %s)", lab, json_string_value(k));
}

/* Prints the statuses the recorder now reports. */
static int
print_verdict(cli_net_t *n, const char *match)
{
    msgpack_packer *pk;
    arb_history_t   h;
    arb_buf_t       why = ARB_BUF_INIT;
    char            game[80] = "";
    int             lost;
    json_t         *rep = NULL, *recs, *rec, *df;
    const char     *st;
    const char     *json;
    size_t          len, i, j, nc = 0, nd = 0, np = 0;
    char            lab[96];
    int             rc;

    /* The game names the records' keys; a history that does not load
     * only loses the labels. */
    memset(&h, 0, sizeof(h));
    rc = cli_history_from_server(&h, n, match, 0, &why);
    if (h.has_open && h.open.setup != NULL && h.open.setup->game != NULL)
        snprintf(game, sizeof(game), "%s", h.open.setup->game);
    lost = rc == CLI_ERROR && why.len == 0;     /* the connection */
    arb_history_clear(&h);
    arb_buf_free(&why);
    if (lost)
        return rc;
    pk = cli_net_begin(n, "state", 1);
    cli_pack_str(pk, "match", match);
    rc = cli_net_call(n);
    if (rc != 0)
        return rc;
    if (cli_get_bytes(&n->res.data, "json", &json, &len) != 0
        || arb_json_parse(&rep, json, len, NULL) != 0
        || !json_is_array(recs = json_object_get(rep, "records"))) {
        fprintf(stderr, "arbiter claim: the server's report has no "
                "records\n");
        json_decref(rep);
        return CLI_ERROR;
    }
    json_array_foreach(recs, i, rec) {
        st = json_string_value(json_object_get(rec, "status"));
        if (st == NULL)
            continue;
        if (strcmp(st, "confirmed") == 0) {
            nc++;
            continue;
        }
        if (strcmp(st, "disputed") != 0) {
            np++;
            continue;
        }
        nd++;
        label(lab, sizeof(lab), rec, game);
        printf("record %zu%s: disputed:", i + 1, lab);
        df = json_object_get(rec, "disputed_fields");
        for (j = 0; j < json_array_size(df); j++) {
            const char *f = json_string_value(json_array_get(df, j));

            if (f != NULL)
                printf("%s %s", j ? "," : "",
                       strcmp(f, "*") == 0 ? "not in the claim" : f);
        }
        printf("\n");
    }
    printf("%zu record%s: %zu confirmed, %zu disputed",
           json_array_size(recs), json_array_size(recs) == 1 ? "" : "s", nc,
           nd);
    if (np > 0)
        printf(", %zu pending", np);
    printf("\n");
    json_decref(rep);
    return 0;
}

int
cmd_claim(int argc, char **argv)
{
    cli_net_t    n;
    arb_claim_t  c, schema;
    arb_event_t  ev;
    arb_buf_t    text = ARB_BUF_INIT, why = ARB_BUF_INIT, line = ARB_BUF_INIT;
    const char  *match = NULL, *by = NULL, *expect = NULL, *cid = NULL;
    const char  *path = NULL;
    size_t       k0;
    int          rc, dry = 0, csv, status;
    const cli_optdef_t opts[] = {
        { "--dry-run", CLI_ARG_FLAG, &dry },
        { "--match", CLI_ARG_STR, &match },
        { "--by", CLI_ARG_STR, &by },
        { "--expect", CLI_ARG_STR, &expect },
        { "--cid", CLI_ARG_STR, &cid },
        { NULL, 0, NULL }
    };
    cli_args_t a = { .cmd = "claim", .usage = usage, .opts = opts, .net = &n };

    memset(&c, 0, sizeof(c));
    memset(&schema, 0, sizeof(schema));
    memset(&ev, 0, sizeof(ev));
    cli_net_init(&n, "claim");
    status = cli_args_parse(&a, argc, argv);
    if (status >= 0)
        return status;
    status = CLI_ERROR;
    if (a.npos > 1) {
        fprintf(stderr, "arbiter claim: one claim file at a time\n");
        return CLI_ERROR;
    }
    path = a.npos == 1 ? a.pos[0] : NULL;
    if (path == NULL || (match == NULL && !dry)) {
        fprintf(stderr, "arbiter claim: %s\n", path == NULL
                ? "name the claim FILE" : "--match is required");
        usage(stderr);
        return CLI_ERROR;
    }
    if (by != NULL && !arb_name_valid(by)) {
        fprintf(stderr, "arbiter claim: --by '%s' is not a name (1..64 of "
                "A-Z a-z 0-9 _ . @ + -)\n", by);
        return CLI_ERROR;
    }
    if (cli_read_file(&text, path) != 0)
        goto done;
    k0 = text.len >= 3 && memcmp(text.data, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
    while (k0 < text.len && strchr(" \t\r\n", text.data[k0]) != NULL)
        k0++;
    /* JSON as arb_claim_parse takes it: '{', or '[' (refused there). */
    csv = k0 >= text.len
          || (text.data[k0] != '{' && text.data[k0] != '[');
    if (csv && match == NULL) {
        fprintf(stderr, "arbiter claim: a CSV claim is read against the "
                "match's records: give --match\n");
        goto done;
    }
    if ((csv || !dry) && cli_net_connect(&n) != 0)
        goto done;
    if (csv && (status = fetch_schema(&n, match, &schema)) != 0)
        goto done;
    status = CLI_ERROR;
    rc = arb_claim_parse(&c, text.data ? text.data : "", text.len,
                         &schema.res, &why);
    if (rc != 0) {
        fprintf(stderr, "%s: %s\n", path, arb_buf_cstr(&why));
        goto done;
    }
    ev.kind = ARB_EV_CLAIM;
    if (arb_claim_to_event(&ev, &c) != 0
        || (by != NULL && (ev.player = strdup(by)) == NULL)) {
        fprintf(stderr, "arbiter claim: out of memory\n");
        goto done;
    }
    if (check_size(&ev, path) != 0)
        goto done;
    if (dry) {
        arb_transcript_event_line(&line, &ev);
        printf("%s\n", arb_buf_cstr(&line));
        status = 0;
        goto done;
    }
    status = send_claim(&n, &ev, match, cid, expect);
    if (status == 0 && print_verdict(&n, match) != 0)
        fprintf(stderr, "arbiter claim: the claim is recorded, but its "
                "verdict could not be read\n");
done:
    arb_event_clear(&ev);
    arb_claim_clear(&c);
    arb_claim_clear(&schema);
    arb_buf_free(&text);
    arb_buf_free(&why);
    arb_buf_free(&line);
    cli_net_close(&n);
    return status;
}
