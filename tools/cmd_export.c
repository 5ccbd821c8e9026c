/*
 * arbiter export - one match, or every match of a time range, as JSON
 * lines, the CSV of the registration records, transcripts, or a signed
 * bundle that `arbiter verify` checks offline (docs/BUNDLE.md).
 *
 * DESIGN: every source fills the one history type (the data directory's
 * loader, arb_history_load, or the server's pages) and ends in the same
 * arb_bundle_t with its chain recomputed, so a format never depends on
 * where the events came from.  A bundle is signed where the key is: by the secret
 * key file of --db DIR (only its owner, the daemon's operator, can read
 * it), or by the daemon through the checkpoint op (--server), over the
 * same committed boundary the events are then read up to.  Before a
 * bundle is written it goes through the very verification `arbiter
 * verify` does; an export that would not verify is never written.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/claim.h"
#include "core/ledger/bundle.h"
#include "core/ledger/chain.h"
#include "core/err.h"
#include "core/keys.h"
#include "core/ledger/store.h"
#include "tools/cli.h"
#include "tools/tourn.h"
#include "tools/net.h"
#include "tools/ops.h"

enum { F_JSONL, F_CSV, F_TRANSCRIPT, F_BUNDLE, F_RESULTS };
static const char *const formats[] = { "jsonl", "csv", "transcript",
                                       "bundle", "results" };

static void
usage(FILE *f)
{
    fprintf(f,
        "usage: arbiter export --format FMT ((--match ID)... | --from T [--to T]"
        " | --to T\n"
        "                      | --tournament ID)\n"
        "                      (--db DIR | [--db DIR] [connection options])\n"
        "                      [--out PATH]\n\n"
        "Exports recorded matches.  FMT is one of:\n"
        "  jsonl       one event per line: {\"match\",\"seq\",\"time\","
        "\"time_ms\",\n"
        "              \"actor\",\"kind\",\"body\",\"prev\",\"hash\","
        "\"bytes\"}: body is\n"
        "              the decoded event, prev/hash the chain links in hex\n"
        "  csv         the registration records (the fields of 'arbiter\n"
        "              replay --json' records), a header row, RFC 4180,\n"
        "              lists joined by spaces; a running dealt match's as\n"
        "              the recorder judged them (--db: replayed with the\n"
        "              kept secret)\n"
        "  transcript  docs/TRANSCRIPT.md text: 'arbiter replay' of it gives\n"
        "              the same records and digest\n"
        "  bundle      the raw events, rule profile, engine version and a\n"
        "              signed checkpoint, for 'arbiter verify'\n"
        "              (docs/BUNDLE.md)\n"
        "  results     with --tournament: the results file a rating body\n"
        "              imports, one line per player per closed match\n"
        "              (docs/TOURNAMENT.md)\n\n"
        "which matches:\n"
        "  --match ID   this match (repeatable)\n"
        "  --tournament ID  the tournament and every table's match\n"
        "  --from T     the matches whose last event is at or after T\n"
        "  --to T       the matches created at or before T\n"
        "               T: Unix milliseconds or ISO 8601: 2026-03-01,\n"
        "               2026-03-01T10:00, 2026-03-01T10:00:00.250Z,\n"
        "               2026-03-01T11:00+01:00 (UTC unless an offset is\n"
        "               given; a --to date alone means its end)\n\n"
        "where from:\n"
        "  --db DIR     the recorder's data directory, opened read-only\n"
        "               (safe while arbiterd runs).  A bundle is signed\n"
        "               with DIR/" ARB_KEY_SECRET_FILE ", which only the "
        "daemon's\n"
        "               operator can read.\n"
        "  --server ... the daemon (the events op); it signs the bundle's\n"
        "               checkpoint itself.  With --db too, the events are\n"
        "               read from DIR and the daemon's checkpoint must\n"
        "               match them.\n"
        "  --out PATH   write here instead of stdout ('-': stdout); for\n"
        "               transcripts of several matches a directory that\n"
        "               exists (one ID.txt each)\n\n"
        "Exit status: 0 written, 1 a match is unknown, refused, or does not\n"
        "verify, or no match is in the range; 2 usage or I/O error.\n\n");
    cli_net_usage(f);
}

typedef struct exp {
    int           format;
    const char   *db, *out, *tournament;
    int           server;
    int           has_from, has_to;
    int64_t       from, to;
    char        **ids;
    size_t        nids, capids;
    arb_store_t  *store;
    arb_bundle_t  b;
    /* csv: per match of b, the records of a running dealt match, judged
     * where its deal is (judge_sealed); NULL for the others. */
    arb_claim_t **judged;
    cli_net_t     n;
    arb_buf_t     why;
} exp_t;

/* Adds a match once: a bundle holds each match at most once. */
static int
add_id(exp_t *x, const char *id)
{
    char  **nv;
    size_t  i;

    for (i = 0; i < x->nids; i++)
        if (strcmp(x->ids[i], id) == 0)
            return 0;
    if (x->nids == x->capids) {
        size_t cap = x->capids ? 2 * x->capids : 16;
        nv = realloc(x->ids, cap * sizeof(*nv));
        if (nv == NULL)
            return ARB_ENOMEM;
        x->ids = nv;
        x->capids = cap;
    }
    x->ids[x->nids] = strdup(id);
    if (x->ids[x->nids] == NULL)
        return ARB_ENOMEM;
    x->nids++;
    return 0;
}

/* ---- time options ----------------------------------------------------- */

/* Unix ms, or an ISO 8601 date or date-time; `end` makes a bare date
 * mean its last millisecond. */
static int
parse_when(const char *opt, const char *s, int end, int64_t *out)
{
    uint64_t u;

    if (strspn(s, "0123456789") == strlen(s) && *s != '\0') {
        if (cli_parse_u64("export", opt, s, &u) != 0)
            return -1;
        if (u <= INT64_MAX) {
            *out = (int64_t)u;
            return 0;
        }
    } else if (arb_iso_time_parse(s, end, out) == 0) {
        return 0;
    }
    fprintf(stderr, "arbiter export: %s wants Unix milliseconds or an ISO "
            "8601 date (2026-03-01, 2026-03-01T10:00:00Z), not '%s'\n", opt,
            s);
    return -1;
}

/* The range a match was played in overlaps [from, to]. */
static int
in_range(const exp_t *x, int64_t created, int64_t last)
{
    return (!x->has_from || last >= x->from)
           && (!x->has_to || created <= x->to);
}

/* ---- choosing the matches --------------------------------------------- */

static int
on_db_match(void *ud, const arb_match_info_t *m)
{
    exp_t *x = ud;

    if (!in_range(x, m->created_ms, m->last_ms))
        return 0;
    return add_id(x, m->match_id) != 0 ? ARB_ENOMEM : 0;
}

static int
select_server(exp_t *x)
{
    const msgpack_object *items, *it;
    const char           *id;
    char                  buf[ARB_STORE_ID_MAX + 1];
    char                  after[ARB_STORE_ID_MAX + 1];
    size_t                len;
    int64_t               created, last;
    uint32_t              i;
    int                   rc;

    after[0] = '\0';
    for (;;) {          /* the list comes in pages: "after" the last id */
        msgpack_packer *pk = cli_net_begin(&x->n, "matches", after[0] != 0);
        if (after[0] != 0)
            cli_pack_str(pk, "after", after);
        rc = cli_net_call(&x->n);
        if (rc != 0)
            return rc;
        items = arb_client_get(&x->n.res, "matches");
        if (items == NULL || items->type != MSGPACK_OBJECT_ARRAY) {
            fprintf(stderr, "arbiter export: the server's answer has no "
                    "matches\n");
            return CLI_ERROR;
        }
        for (i = 0; i < items->via.array.size; i++) {
            it = &items->via.array.ptr[i];
            if (cli_get_bytes(it, "match", &id, &len) != 0 || len == 0
                || len > ARB_STORE_ID_MAX || cli_get_int(it, "created",
                                                         &created) != 0
                || cli_get_int(it, "last", &last) != 0) {
                fprintf(stderr, "arbiter export: a malformed match in the "
                        "server's list\n");
                return CLI_ERROR;
            }
            memcpy(buf, id, len);
            buf[len] = '\0';
            if (in_range(x, created, last) && add_id(x, buf) != 0) {
                fprintf(stderr, "arbiter export: out of memory\n");
                return CLI_ERROR;
            }
        }
        it = arb_client_get(&x->n.res, "next");
        if (it == NULL || it->type != MSGPACK_OBJECT_STR
            || it->via.str.size == 0 || it->via.str.size > ARB_STORE_ID_MAX)
            break;
        memcpy(after, it->via.str.ptr, it->via.str.size);
        after[it->via.str.size] = '\0';
    }
    return 0;
}

/* ---- collecting the events -------------------------------------------- */

/* The daemon's signed checkpoint of a match. */
static int
server_checkpoint(exp_t *x, const char *id, arb_checkpoint_t *cp)
{
    const char *head, *sig, *pub;
    size_t      hl, sl, pl;
    int         rc;

    cli_pack_str(cli_net_begin(&x->n, "checkpoint", 1), "match", id);
    rc = cli_net_call(&x->n);
    if (rc != 0)
        return rc;
    memset(cp, 0, sizeof(*cp));
    if (cli_get_uint(&x->n.res.data, "count", &cp->count) != 0
        || cli_get_bytes(&x->n.res.data, "head", &head, &hl) != 0
        || cli_get_bytes(&x->n.res.data, "sig", &sig, &sl) != 0
        || cli_get_bytes(&x->n.res.data, "pubkey", &pub, &pl) != 0
        || hl != ARB_HASH_LEN || sl != ARB_SIG_LEN || pl != ARB_PUBKEY_LEN
        || cp->count == 0) {
        fprintf(stderr, "arbiter export: match %s: the server's checkpoint "
                "is malformed (an older arbiterd?)\n", id);
        return CLI_ERROR;
    }
    snprintf(cp->match_id, sizeof(cp->match_id), "%s", id);
    memcpy(cp->head, head, ARB_HASH_LEN);
    memcpy(cp->sig, sig, ARB_SIG_LEN);
    memcpy(cp->pubkey, pub, ARB_PUBKEY_LEN);
    cp->is_signed = 1;
    return 0;
}

/* csv of a running dealt match, match i of x->b: a bundle never holds
 * the deal's secret, so its records are judged where the deal is: here
 * with the store's secret (--db, which only the operator can read), else
 * by the recorder (its report at the same seq).  0 or the exit status
 * (printed). */
static int
judge_sealed(exp_t *x, const char *id, size_t i)
{
    arb_history_t h;
    arb_match_t  *m = NULL;
    arb_verdict_t v;
    arb_claim_t  *c;
    uint64_t      last = x->b.matches[i].nevents;
    size_t        bad;
    int           rc, st = CLI_OK;

    if (!arb_history_sealed(&x->b.matches[i]))
        return 0;
    c = calloc(1, sizeof(*c));
    if (c == NULL) {
        fprintf(stderr, "arbiter export: out of memory\n");
        return CLI_ERROR;
    }
    arb_buf_free(&x->why);
    if (x->db != NULL) {
        memset(&h, 0, sizeof(h));
        memset(&v, 0, sizeof(v));
        rc = arb_history_load(&h, x->store, id, last, &x->why);
        if (rc == 0 && arb_history_replay(&h, UINT64_MAX, &m, &bad,
                                          &v) != 0) {
            arb_buf_puts(&x->why, v.msg);
            rc = ARB_EILLEGAL;
        }
        if (rc == 0 && arb_match_results(m, &c->res) != 0) {
            arb_buf_puts(&x->why, "out of memory");
            rc = ARB_ENOMEM;
        }
        st = rc == 0 ? CLI_OK : cli_store_status(rc);
        arb_match_free(m);
        arb_history_clear(&h);
    } else {
        st = cli_recorder_results(&x->n, id, last, c, NULL, &x->why);
    }
    if (st != CLI_OK) {
        if (x->why.len > 0)
            fprintf(stderr, "arbiter export: match %s: %s\n", id,
                    arb_buf_cstr(&x->why));
        arb_claim_clear(c);
        free(c);
        return st;
    }
    x->judged[i] = c;
    return 0;
}

/* Adds one match to x->b: its history from the data directory (the
 * store's history loader) or from the server.  0, 1 (refused, printed)
 * or 2. */
static int
collect(exp_t *x, const char *id)
{
    arb_checkpoint_t cp;
    arb_history_t    h;
    uint64_t         count = UINT64_MAX;
    size_t           n;
    int              rc;

    if (x->format == F_BUNDLE && x->server) {
        rc = server_checkpoint(x, id, &cp);
        if (rc != 0)
            return rc;
        count = cp.count;
    }
    if (x->db != NULL) {
        rc = arb_bundle_from_store(&x->b, x->store, id, count, &x->why);
        if (rc == ARB_ENOTFOUND && count == UINT64_MAX)
            fprintf(stderr, "arbiter export: %s: no match '%s'\n", x->db,
                    id);
        else if (rc != 0)
            fprintf(stderr, "arbiter export: %s: %s\n", x->db,
                    arb_buf_cstr(&x->why) ? arb_buf_cstr(&x->why)
                    : "out of memory");
        if (rc != 0)
            return cli_store_status(rc);
    } else {
        memset(&h, 0, sizeof(h));
        arb_buf_free(&x->why);
        rc = cli_history_from_server(&h, &x->n, id, count == UINT64_MAX
                                     ? UINT64_MAX : count - 1, &x->why);
        n = h.has_open ? h.nevents + 1 : 0;
        if (rc == 0 && h.withheld) {
            /* An export carries every event whole, with its hash. */
            arb_history_clear(&h);
            fprintf(stderr, "arbiter export: match %s: the recorder "
                    "withholds the hidden arguments (and the hashes) of "
                    "this running match's moves from this token "
                    "(docs/VIEWS.md): export it after its close, or with "
                    "a scorer's or an arbiter's token\n", id);
            return CLI_DIFFERS;
        }
        if (rc == 0 && n > 0 && arb_bundle_add(&x->b, id, &h, &x->why) != 0)
            rc = CLI_ERROR;
        arb_history_clear(&h);
        if (rc == CLI_ERROR && x->why.len > 0) {
            fprintf(stderr, "arbiter export: match %s: %s\n", id,
                    arb_buf_cstr(&x->why));
            return CLI_DIFFERS;
        }
        if (rc != 0)
            return rc;
        if (n == 0 || (count != UINT64_MAX && n != count)) {
            fprintf(stderr, "arbiter export: match %s: the server sent %zu "
                    "events%s\n", id, n,
                    count != UINT64_MAX ? " for its checkpoint" : "");
            return CLI_DIFFERS;
        }
    }
    if (x->format == F_BUNDLE && x->server) {
        arb_checkpoint_t *mine = &x->b.cps[x->b.nmatches - 1];
        if (memcmp(mine->head, cp.head, ARB_HASH_LEN) != 0) {
            fprintf(stderr, "arbiter export: match %s: the server's "
                    "checkpoint (%" PRIu64 " events) does not match the "
                    "events read\n", id, cp.count);
            return CLI_DIFFERS;
        }
        *mine = cp;
    }
    return 0;
}

/* ---- output ----------------------------------------------------------- */

static int
write_out(const char *path, const arb_buf_t *b)
{
    return cli_write_out("export", path, b->data, b->len);
}

static int
is_dir(const char *path)
{
    struct stat st;

    return path != NULL && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* One transcript per match into directory dir, as ID.txt: all of them or
 * none (each is staged, and renamed into place only when every one is
 * written; until 2026-12-05 a failure left the ones written before it). */
static int
write_transcripts(exp_t *x, const char *dir)
{
    arb_buf_t  out = ARB_BUF_INIT;
    cli_out_t *staged;
    char       path[4096];
    size_t     i, n = 0, done;
    int        rc = 0;

    staged = calloc(x->b.nmatches + 1, sizeof(*staged));
    if (staged == NULL) {
        fprintf(stderr, "arbiter export: out of memory\n");
        return CLI_ERROR;
    }
    for (i = 0; rc == 0 && i < x->b.nmatches; i++) {
        out.len = 0;
        if (arb_bundle_transcript(&out, &x->b, i) != 0) {
            fprintf(stderr, "arbiter export: out of memory\n");
            rc = CLI_ERROR;
            break;
        }
        snprintf(path, sizeof(path), "%s/%s.txt", dir,
                 x->b.cps[i].match_id);
        rc = cli_out_stage(&staged[n], "export", path, out.data, out.len);
        if (rc == CLI_OK)
            n++;
    }
    for (i = 0, done = 0; i < n; i++)
        if (rc != CLI_OK)
            cli_out_discard(&staged[i]);
        else if ((rc = cli_out_commit(&staged[i])) == CLI_OK)
            done++;
    if (rc != CLI_OK)
        fprintf(stderr, "arbiter export: %zu of %zu transcripts written to "
                "%s\n", done, x->b.nmatches, dir);
    free(staged);
    arb_buf_free(&out);
    return rc;
}

/* The bundle file, signed and checked by the verifier itself. */
static int
make_bundle(exp_t *x, arb_buf_t *out, unsigned char signer[ARB_PUBKEY_LEN])
{
    arb_keypair_t       kp;
    arb_bundle_report_t rep;
    size_t              i;
    int                 rc;

    if (!x->server) {
        rc = arb_keys_load(&kp, x->db, &x->why);
        if (rc != 0) {
            fprintf(stderr, "arbiter export: %s\n", arb_buf_cstr(&x->why));
            fprintf(stderr, "arbiter export: a bundle is signed with the "
                    "recorder's secret key: only the daemon's operator can "
                    "export one from --db; others use --server, where the "
                    "daemon signs\n");
            return CLI_ERROR;
        }
        for (i = 0; i < x->b.nmatches; i++)
            arb_bundle_sign(&x->b, i, &kp);
        memcpy(signer, kp.pk, ARB_PUBKEY_LEN);
        arb_keypair_clear(&kp);
    } else {
        memcpy(signer, x->b.cps[0].pubkey, ARB_PUBKEY_LEN);
    }
    rc = arb_bundle_write(out, &x->b, &x->why);
    if (rc != 0) {
        fprintf(stderr, "arbiter export: %s\n", rc == ARB_ENOMEM
                ? "out of memory" : arb_buf_cstr(&x->why));
        return rc == ARB_ENOMEM ? CLI_ERROR : CLI_DIFFERS;
    }
    rc = arb_bundle_verify(out->data, out->len, signer, &rep);
    if (rc != 0) {
        fprintf(stderr, "arbiter export: the bundle does not verify; not "
                "written:\n");
        cli_print_bundle_problems("  ", &rep);
    }
    arb_bundle_report_clear(&rep);
    return rc == 0 ? 0 : rc == ARB_ENOMEM ? CLI_ERROR : CLI_DIFFERS;
}

static int
render(exp_t *x)
{
    arb_buf_t     out = ARB_BUF_INIT;
    unsigned char signer[ARB_PUBKEY_LEN];
    char          hex[ARB_HASH_HEX];
    size_t        i, events = 0;
    int           rc = 0;

    if (x->format == F_TRANSCRIPT && (x->b.nmatches > 1 || is_dir(x->out))) {
        if (!is_dir(x->out)) {
            fprintf(stderr, "arbiter export: %zu matches: --out must be a "
                    "directory (one transcript each, ID.txt)\n",
                    x->b.nmatches);
            return CLI_ERROR;
        }
        return write_transcripts(x, x->out);
    }
    if (x->format == F_BUNDLE && x->out == NULL && isatty(STDOUT_FILENO)) {
        fprintf(stderr, "arbiter export: a bundle is binary: use --out FILE "
                "or redirect stdout\n");
        return CLI_ERROR;
    }
    switch (x->format) {
    case F_JSONL:
        for (i = 0; rc == 0 && i < x->b.nmatches; i++)
            rc = arb_bundle_jsonl(&out, &x->b, i);
        rc = rc == 0 ? 0 : CLI_ERROR;
        break;
    case F_CSV: {
        const arb_results_t **given;

        given = calloc(x->b.nmatches + 1, sizeof(*given));
        for (i = 0; given != NULL && i < x->b.nmatches; i++)
            given[i] = x->judged[i] != NULL ? &x->judged[i]->res : NULL;
        rc = given == NULL ? ARB_ENOMEM
             : arb_bundle_csv(&out, &x->b, given, &x->why);
        free(given);
        rc = rc == 0 ? 0 : rc == ARB_ENOMEM ? CLI_ERROR : CLI_DIFFERS;
        break;
    }
    case F_TRANSCRIPT:
        rc = arb_bundle_transcript(&out, &x->b, 0);
        rc = rc == 0 ? 0 : CLI_ERROR;
        break;
    default:
        rc = make_bundle(x, &out, signer);
        break;
    }
    if (rc != 0 && x->format != F_BUNDLE)
        fprintf(stderr, "arbiter export: %s\n", arb_buf_cstr(&x->why)
                ? arb_buf_cstr(&x->why) : "out of memory");
    if (rc == 0)
        rc = write_out(x->out, &out);
    if (rc == 0 && x->out != NULL) {
        for (i = 0; i < x->b.nmatches; i++)
            events += x->b.matches[i].nevents + 1;     /* and the open */
        fprintf(stderr, "arbiter export: wrote %s: %s, %zu match%s, %zu "
                "events", x->out, formats[x->format], x->b.nmatches,
                x->b.nmatches == 1 ? "" : "es", events);
        if (x->format == F_BUNDLE) {
            arb_hex(hex, signer, ARB_PUBKEY_LEN);
            fprintf(stderr, ", signed by key %s", hex);
        }
        fprintf(stderr, "\n");
    }
    arb_buf_free(&out);
    return rc;
}

/* ---- the command ------------------------------------------------------ */

/* --tournament: the results file, or the tournament and its tables'
 * matches as the matches to export. */
static int
tournament(exp_t *x)
{
    cli_tourn_t t;
    arb_buf_t   out = ARB_BUF_INIT;
    size_t      i;
    int         st;

    st = cli_tourn_load(&t, "export", x->server ? NULL : x->db,
                        x->tournament, &x->n, 1);
    if (st == CLI_OK && x->format == F_RESULTS) {
        arb_standings_results_csv(&out, t.v.id, t.v.sm, t.v.n);
        st = out.oom ? CLI_ERROR : write_out(x->out, &out);
        /* Said where the director looks: the file names them too, in a
         * comment a rating body's reader may skip. */
        for (i = 0; st == CLI_OK && i < t.v.n; i++)
            if (t.v.sm[i].counted && t.v.sm[i].forfeit == 0
                && t.v.sm[i].withheld != NULL)
                fprintf(stderr, "arbiter export: table %s of round %llu "
                        "(%s) is withheld from the results: %s\n",
                        t.v.sm[i].table, (unsigned long long)t.v.sm[i].round,
                        t.v.sm[i].match, t.v.sm[i].withheld);
    }
    /* A table not opened yet has no match to export.  A bundle cannot
     * show that a match is not there (each match is signed alone, and the
     * tournament's record lists the table): refused, naming the table and
     * the way out, before anything is fetched (until 2026-12-06 it was
     * left out, and the bundle's own check refused the bundle: "match
     * ... is not in the bundle"). */
    for (i = 0; st == CLI_OK && x->format == F_BUNDLE && i < t.v.n; i++)
        if (t.v.tables[i].m == NULL && !t.v.tables[i].sealed
            && t.v.sm[i].forfeit == 0) {
            fprintf(stderr, "arbiter export: table %s of round %llu (%s) "
                    "has no match yet (a table added by hand, not opened): "
                    "a bundle cannot show that a match is not there.  Open "
                    "it (arbiter tournament round), or export the bundle "
                    "once it is played; --format results leaves it out\n",
                    t.v.sm[i].table, (unsigned long long)t.v.sm[i].round,
                    t.v.sm[i].match);
            st = CLI_DIFFERS;           /* refused */
        }
    /* A forfeited table's match counts for nothing but when it was
     * played to its end (its totals rank the others: edition 3): a
     * bundle carries it then, as any table's, and otherwise only once
     * closed (a running dealt one, a no-show's or a player disqualified
     * mid-match, cannot be bundled, and kept the whole tournament's
     * bundle out until 2026-12-06; a game played out and not closed was
     * left out, its totals unproven, until 2026-12-06 too). */
    for (i = 0; st == CLI_OK && x->format != F_RESULTS && i <= t.v.n; i++)
        if ((i == 0 || ((t.v.tables[i - 1].m != NULL
                         || t.v.tables[i - 1].sealed)
                        && (x->format != F_BUNDLE
                            || t.v.sm[i - 1].forfeit == 0
                            || t.v.sm[i - 1].played
                            || (t.v.tables[i - 1].m != NULL
                                && arb_match_closed(t.v.tables[i - 1].m)))))
            && add_id(x, i == 0 ? t.v.id : t.v.sm[i - 1].match) != 0)
            st = CLI_ERROR;
    cli_tourn_clear(&t);
    arb_buf_free(&out);
    return st;
}

/* Each --match ID. */
static int
on_match_opt(void *ud, const char *opt, const char *val)
{
    (void)opt;
    if (add_id(ud, val) == 0)
        return 0;
    fprintf(stderr, "arbiter export: out of memory\n");
    return -1;
}

static int
parse_args(exp_t *x, int argc, char **argv)
{
    const char *fmt = NULL, *from = NULL, *to = NULL;
    size_t      k;
    int         rc, net;
    const cli_optdef_t opts[] = {
        { "--format", CLI_ARG_STR, &fmt },
        { "--db", CLI_ARG_STR, &x->db },
        { "--out", CLI_ARG_STR, &x->out },
        { "--from", CLI_ARG_STR, &from },
        { "--to", CLI_ARG_STR, &to },
        { "--match", CLI_ARG_EACH, NULL },
        { "--tournament", CLI_ARG_STR, &x->tournament },
        { NULL, 0, NULL }
    };
    cli_args_t a = {
        .cmd = "export",
        .usage = usage,
        .opts = opts,
        .net = &x->n,
        .each = on_match_opt,
        .ud = x,
        .no_words = 1,
    };

    rc = cli_args_parse(&a, argc, argv);
    if (rc >= 0)
        return rc;
    /* "-" is stdout, as load and verify read "-" as stdin (until
     * 2026-12-06 a file named "-"; ./- names one). */
    if (x->out != NULL && strcmp(x->out, "-") == 0)
        x->out = NULL;
    net = x->n.server != NULL || x->n.token != NULL
          || x->n.token_file != NULL;
    x->format = -1;
    for (k = 0; fmt != NULL && k < sizeof(formats) / sizeof(formats[0]); k++)
        if (strcmp(fmt, formats[k]) == 0)
            x->format = (int)k;
    if (x->format < 0) {
        fprintf(stderr, "arbiter export: --format is jsonl, csv, transcript, "
                "bundle or results%s%s%s\n", fmt ? ", not '" : "", fmt ? fmt : "",
                fmt ? "'" : "");
        return CLI_ERROR;
    }
    x->has_from = from != NULL;
    x->has_to = to != NULL;
    if ((from && parse_when("--from", from, 0, &x->from) != 0)
        || (to && parse_when("--to", to, 1, &x->to) != 0))
        return CLI_ERROR;
    if ((x->nids > 0) + (from != NULL || to != NULL)
        + (x->tournament != NULL) != 1) {
        fprintf(stderr, "arbiter export: name the matches with --match, a "
                "time range with --from/--to, or --tournament (one of "
                "them)\n");
        return CLI_ERROR;
    }
    if (x->format == F_RESULTS && x->tournament == NULL) {
        fprintf(stderr, "arbiter export: --format results needs "
                "--tournament\n");
        return CLI_ERROR;
    }
    /* No --db: the server, as for every client command. */
    x->server = x->db == NULL || net;
    return -1;
}

int
cmd_export(int argc, char **argv)
{
    arb_store_opts_t opts;
    exp_t            x;
    ops_progress_t   pr;
    size_t           i;
    int              rc, status = CLI_ERROR;

    memset(&x, 0, sizeof(x));
    cli_net_init(&x.n, "export");
    rc = parse_args(&x, argc, argv);
    if (rc >= 0) {
        status = rc;
        goto done;
    }
    /* Before the store is opened here: the loader opens it itself. */
    if (x.tournament != NULL && (status = tournament(&x)) != CLI_OK)
        goto done;
    if (x.format == F_RESULTS)
        goto done;
    status = CLI_ERROR;
    if (x.db != NULL) {
        memset(&opts, 0, sizeof(opts));
        opts.read_only = 1;
        rc = arb_store_open(&x.store, x.db, &opts, &x.why);
        if (rc != 0) {
            fprintf(stderr, "arbiter export: %s: %s\n", x.db,
                    rc == ARB_ENOTFOUND ? "no store there"
                    : arb_buf_cstr(&x.why));
            goto done;
        }
    }
    if (x.server && x.n.cl == NULL && cli_net_connect(&x.n) != 0)
        goto done;
    if (x.nids == 0) {
        if (x.db != NULL) {
            rc = arb_store_matches(x.store, on_db_match, &x, &x.why);
            if (rc != 0) {
                fprintf(stderr, "arbiter export: %s: %s\n", x.db,
                        arb_buf_cstr(&x.why) ? arb_buf_cstr(&x.why)
                        : "out of memory");
                goto done;
            }
        } else if ((status = select_server(&x)) != 0) {
            goto done;
        }
        if (x.nids == 0) {
            fprintf(stderr, "arbiter export: no match in that time range\n");
            status = CLI_DIFFERS;
            goto done;
        }
    }
    x.judged = calloc(x.nids, sizeof(*x.judged));
    if (x.judged == NULL) {
        fprintf(stderr, "arbiter export: out of memory\n");
        goto done;
    }
    ops_progress_init(&pr);
    for (i = 0; i < x.nids; i++) {
        ops_progress(&pr, "export", "matches", i, x.nids);
        status = collect(&x, x.ids[i]);
        if (status == 0 && x.format == F_CSV)
            status = judge_sealed(&x, x.ids[i], x.b.nmatches - 1);
        if (status != 0) {
            ops_progress_clear(&pr);
            goto done;
        }
    }
    ops_progress(&pr, "export", "matches", x.nids, x.nids);
    ops_progress_clear(&pr);
    status = render(&x);
done:
    for (i = 0; i < x.nids; i++) {
        if (x.judged != NULL && x.judged[i] != NULL)
            arb_claim_clear(x.judged[i]);
        free(x.judged != NULL ? x.judged[i] : NULL);
        free(x.ids[i]);
    }
    free(x.judged);
    free(x.ids);
    arb_bundle_clear(&x.b);
    arb_store_close(x.store);
    cli_net_close(&x.n);
    arb_buf_free(&x.why);
    return status;
}
