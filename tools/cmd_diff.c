/*
 * arbiter diff - a claim against the record (--claim), or two records of
 * one match against each other (the first divergence).
 *
 * DESIGN: every source - a transcript, the recorder's store, a server -
 * becomes the same list of events, and the recorded results are always
 * this tool's replay of them: a record's seq (the event that fixed it) is
 * in no report, and replaying here is what `arbiter state` does too.  The
 * comparing is done by core/diff.c and core/diff_log.c; this file only
 * reads the sources and prints.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ledger/chain.h"
#include "core/claim.h"
#include "core/diff.h"
#include "core/diff_log.h"
#include "core/err.h"
#include "core/jsonin.h"
#include "core/replay.h"
#include "core/ledger/store.h"
#include "core/transcript.h"
#include "core/codec.h"
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
        "Exit status: 0 identical, 1 differences, 2 error.\n\n");
    cli_net_usage(f);
}

/* One source of events, kept whole for the diff. */
typedef struct source {
    char             name[320];
    arb_transcript_t t;             /* a transcript ... */
    int              is_file;
    cli_events_t     v;             /* ... or stored events */
    arb_log_t        log;
} source_t;

static void
source_clear(source_t *s)
{
    if (s->is_file)
        arb_transcript_clear(&s->t);
    cli_events_clear(&s->v);
}

/* One line of an export in jsonl: its event bytes, checked against its
 * chain links.  0, or -1 with the reason in why. */
static int
jsonl_line(source_t *s, const char *line, size_t len, char *match,
           unsigned char head[ARB_HASH_LEN], arb_buf_t *why)
{
    const char     *m, *bytes, *prev, *hash;
    json_t         *v = NULL, *jseq;
    int64_t         seq;
    unsigned char  *raw = NULL, h[ARB_HASH_LEN], p[ARB_HASH_LEN];
    size_t          n;
    int             rc = -1;

    if (arb_json_parse(&v, line, len, why) != 0)
        return -1;
    m = json_string_value(json_object_get(v, "match"));
    jseq = json_object_get(v, "seq");
    seq = json_is_integer(jseq) ? (int64_t)json_integer_value(jseq) : -1;
    bytes = json_string_value(json_object_get(v, "bytes"));
    prev = json_string_value(json_object_get(v, "prev"));
    hash = json_string_value(json_object_get(v, "hash"));
    arb_buf_free(why);
    if (m == NULL || seq < 0 || bytes == NULL || prev == NULL
        || hash == NULL) {
        arb_buf_puts(why, "not an exported event (match, seq, prev, hash, "
                     "bytes)");
        goto done;
    }
    if (match[0] == '\0')
        snprintf(match, 65, "%s", m);
    else if (strcmp(match, m) != 0) {
        arb_buf_printf(why, "a second match (%s after %s): export one match",
                       m, match);
        goto done;
    }
    n = strlen(bytes) / 2;
    raw = malloc(n ? n : 1);
    if (raw == NULL || arb_unhex(raw, n, bytes) != 0
        || arb_unhex(p, 32, prev) != 0
        || arb_unhex(h, 32, hash) != 0) {
        arb_buf_puts(why, raw == NULL ? "out of memory" : "bad hex");
        goto done;
    }
    /* The file is not signed, but its links must hold. */
    if (memcmp(p, head, ARB_HASH_LEN) != 0) {
        arb_buf_printf(why, "seq %" PRId64 ": prev is not the hash of the "
                       "event before", seq);
        goto done;
    }
    arb_chain_next(seq == 0 ? NULL : head, raw, n, head);
    if (memcmp(h, head, ARB_HASH_LEN) != 0) {
        arb_buf_printf(why, "seq %" PRId64 ": hash does not match its bytes",
                       seq);
        goto done;
    }
    if (cli_events_add(&s->v, (const char *)raw, n, (uint64_t)seq, why)
        != 0)
        goto done;
    rc = 0;
done:
    free(raw);
    json_decref(v);
    return rc;
}

static int
load_jsonl(source_t *s, const char *path, const char *text, size_t len)
{
    arb_buf_t      why = ARB_BUF_INIT;
    const char    *p = text, *end = text + len, *nl;
    unsigned char  head[ARB_HASH_LEN];
    char           match[ARB_HASH_HEX] = "";
    unsigned       line = 0;

    memset(head, 0, sizeof(head));
    for (; p < end; p = nl + 1) {
        nl = memchr(p, '\n', (size_t)(end - p));
        if (nl == NULL)
            nl = end;
        line++;
        if (nl == p || (nl - p == 1 && *p == '\r'))
            continue;
        if (jsonl_line(s, p, (size_t)(nl - p), match, head, &why) != 0) {
            fprintf(stderr, "%s:%u: %s\n", path, line, arb_buf_cstr(&why));
            arb_buf_free(&why);
            return 2;
        }
    }
    if (!s->v.has_open) {
        fprintf(stderr, "%s: no events\n", path);
        return 2;
    }
    snprintf(s->name, sizeof(s->name), "%s: match %s", path, match);
    return 0;
}

static int
load_file(source_t *s, const char *path)
{
    arb_buf_t text = ARB_BUF_INIT, why = ARB_BUF_INIT;
    size_t    i;
    int       rc;

    snprintf(s->name, sizeof(s->name), "%s", path);
    if (cli_read_file(&text, path) != 0) {
        arb_buf_free(&text);
        return 2;
    }
    /* A transcript starts with a comment or a header; an export's jsonl
     * with an object. */
    for (i = 0; i < text.len && strchr(" \t\r\n", text.data[i]); i++)
        ;
    if (i < text.len && text.data[i] == '{') {
        rc = load_jsonl(s, path, text.data, text.len);
        arb_buf_free(&text);
        return rc;
    }
    rc = arb_transcript_parse(&s->t, text.data ? text.data : "", text.len,
                              &why);
    if (rc != 0)
        fprintf(stderr, "%s: %s\n", path, arb_buf_cstr(&why));
    else
        s->is_file = 1;
    arb_buf_free(&text);
    arb_buf_free(&why);
    if (rc != 0)
        return 2;
    s->log.open = &s->t.open;
    s->log.events = s->t.events;
    s->log.n = s->t.nevents;
    return 0;
}

typedef struct db_ctx {
    cli_events_t *v;
    arb_buf_t    *why;
} db_ctx_t;

static int
on_db_event(void *ud, uint64_t seq, int64_t t, const unsigned char hash[ARB_HASH_LEN],
            const void *bytes, size_t len)
{
    db_ctx_t *x = ud;

    (void)t;
    (void)hash;
    return cli_events_add(x->v, bytes, len, seq, x->why) != 0 ? 1 : 0;
}

static int
load_db(source_t *s, const char *dir, const char *match)
{
    arb_store_t      *st = NULL;
    arb_store_opts_t  opts;
    arb_match_info_t  info;
    arb_buf_t         why = ARB_BUF_INIT;
    db_ctx_t          x;
    int               rc, status = 2;

    snprintf(s->name, sizeof(s->name), "%s: match %s", dir, match);
    memset(&opts, 0, sizeof(opts));
    opts.read_only = 1;
    rc = arb_store_open(&st, dir, &opts, &why);
    if (rc == 0)
        rc = arb_store_match(st, match, &info, &why);
    if (rc != 0) {
        fprintf(stderr, "arbiter diff: %s: %s\n", dir,
                rc != ARB_ENOTFOUND ? arb_buf_cstr(&why)
                : st == NULL ? "no store there" : "no such match");
        goto done;
    }
    /* One read transaction: a consistent snapshot while arbiterd runs. */
    x.v = &s->v;
    x.why = &why;
    rc = arb_store_events(st, match, 0, info.last_seq, on_db_event, &x,
                          &why);
    if (rc != 0 || !s->v.has_open) {
        fprintf(stderr, "arbiter diff: %s: %s\n", s->name,
                rc == 0 ? "no open event" : arb_buf_cstr(&why));
        goto done;
    }
    if (cli_reveal_stored(st, &s->v.open) != 0)
        goto done;
    status = 0;
done:
    arb_store_close(st);
    arb_buf_free(&why);
    return status;
}

typedef struct net_ctx {
    cli_events_t *v;
    arb_buf_t     why;
} net_ctx_t;

static int
on_net_event(void *ud, const msgpack_object *item)
{
    net_ctx_t  *x = ud;
    const char *bytes;
    size_t      len;
    uint64_t    seq;

    if (cli_get_uint(item, "seq", &seq) != 0
        || cli_get_bytes(item, "event", &bytes, &len) != 0) {
        arb_buf_printf(&x->why, "an event without seq or bytes");
        return 2;
    }
    return cli_events_add(x->v, bytes, len, seq, &x->why) != 0 ? 2 : 0;
}

static int
load_net(source_t *s, cli_net_t *n, const char *match)
{
    net_ctx_t x;
    int       status;

    snprintf(s->name, sizeof(s->name), "%s: match %s",
             n->server ? n->server : getenv("ARBITER_SERVER")
             ? getenv("ARBITER_SERVER") : CLI_SERVER_DEFAULT, match);
    if (cli_net_connect(n) != 0)
        return 2;
    memset(&x, 0, sizeof(x));
    x.v = &s->v;
    status = cli_net_events(n, match, 0, UINT64_MAX, NULL, 0, 0,
                            on_net_event, &x);
    if (status == 0 && !s->v.has_open) {
        arb_buf_printf(&x.why, "no open event");
        status = 2;
    }
    if (status != 0 && x.why.len > 0)
        fprintf(stderr, "arbiter diff: %s: %s\n", s->name,
                arb_buf_cstr(&x.why));
    arb_buf_free(&x.why);
    return status != 0 ? 2 : 0;
}

static void
log_of(source_t *s)
{
    s->log.name = s->name;
    if (!s->is_file) {
        s->log.open = &s->v.open;
        s->log.events = s->v.ev;
        s->log.n = s->v.n;
    }
}

/* --claim: replays the source, reads the claim against its results. */
static int
diff_claim(source_t *s, const char *claim_path, int json)
{
    arb_buf_t     text = ARB_BUF_INIT, why = ARB_BUF_INIT, out = ARB_BUF_INIT;
    arb_buf_t     line = ARB_BUF_INIT;
    arb_match_t  *m = NULL;
    arb_verdict_t v;
    arb_results_t r;
    arb_claim_t   c;
    arb_diff_t    d;
    size_t        bad;
    int           rc, status = 2;

    memset(&r, 0, sizeof(r));
    memset(&c, 0, sizeof(c));
    memset(&d, 0, sizeof(d));
    rc = arb_replay(&m, s->log.open, s->log.events, s->log.n, UINT64_MAX,
                    &bad, &v);
    if (rc != 0) {
        if (m == NULL) {
            fprintf(stderr, "%s: header: %s\n", s->name, v.msg);
        } else {
            arb_transcript_event_line(&line, &s->log.events[bad]);
            if (s->is_file)
                fprintf(stderr, "%s:%u: ", s->name, s->t.lines[bad]);
            else
                fprintf(stderr, "%s: ", s->name);
            fprintf(stderr, "seq %" PRIu64 " '%s' refused: %s: %s\n",
                    s->log.events[bad].seq, arb_buf_cstr(&line), v.rule,
                    v.msg);
        }
        goto done;
    }
    if (arb_match_results(m, &r) != 0 || cli_read_file(&text, claim_path)
        != 0)
        goto done;
    rc = arb_claim_parse(&c, text.data ? text.data : "", text.len, &r,
                         &why);
    if (rc != 0) {
        fprintf(stderr, "%s: %s\n", claim_path, arb_buf_cstr(&why));
        goto done;
    }
    if (arb_diff_run(&d, arb_match_rules(m)->game, &r, &c.res) != 0)
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
    status = d.n == 0 ? 0 : 1;
done:
    arb_diff_clear(&d);
    arb_claim_clear(&c);
    arb_results_clear(&r);
    arb_match_free(m);
    arb_buf_free(&text);
    arb_buf_free(&why);
    arb_buf_free(&out);
    arb_buf_free(&line);
    return status;
}

static int
diff_logs(source_t *a, source_t *b, int json)
{
    arb_log_diff_t d;
    arb_buf_t      out = ARB_BUF_INIT, why = ARB_BUF_INIT;
    int            rc, status = 2;

    rc = arb_log_diff(&d, &a->log, &b->log, &why);
    if (rc != 0) {
        fprintf(stderr, "arbiter diff: %s\n", arb_buf_cstr(&why));
        goto done;
    }
    if (json) {
        arb_log_diff_json(&out, &d, &a->log, &b->log);
        arb_buf_putc(&out, '\n');
    } else {
        arb_log_diff_text(&out, &d, &a->log, &b->log);
    }
    if (!out.oom) {
        fwrite(out.data, 1, out.len, stdout);
        status = d.identical ? 0 : 1;
    }
    arb_log_diff_clear(&d);
done:
    arb_buf_free(&out);
    arb_buf_free(&why);
    return status;
}

int
cmd_diff(int argc, char **argv)
{
    cli_net_t   n;
    source_t    src[2];
    const char *claim = NULL, *db = NULL, *match = NULL, *files[2];
    size_t      nfiles = 0, nsrc = 0, i;
    int         k, rc, json = 0, status = 2;

    memset(src, 0, sizeof(src));
    cli_net_init(&n, "diff");
    for (k = 1; k < argc; k++) {
        if (cli_is_help(argv[k])) {
            usage(stdout);
            return 0;
        }
        if (strcmp(argv[k], "--json") == 0) {
            json = 1;
            continue;
        }
        if (argv[k][0] == '-' && argv[k][1] != '\0') {
            if ((rc = cli_net_option(&n, argc, argv, &k)) != 0
                || (rc = cli_opt("diff", "--claim", argc, argv, &k,
                                 &claim)) != 0
                || (rc = cli_opt("diff", "--db", argc, argv, &k, &db)) != 0
                || (rc = cli_opt("diff", "--match", argc, argv, &k,
                                 &match)) != 0) {
                if (rc < 0)
                    return 2;
                continue;
            }
            fprintf(stderr, "arbiter diff: unknown option '%s'\n", argv[k]);
            usage(stderr);
            return 2;
        }
        if (nfiles == 2) {
            fprintf(stderr, "arbiter diff: at most two sources\n");
            return 2;
        }
        files[nfiles++] = argv[k];
    }
    if (db != NULL && match == NULL) {
        fprintf(stderr, "arbiter diff: --db DIR needs --match ID\n");
        return 2;
    }
    if (nfiles + (match != NULL) != (claim != NULL ? 1u : 2u)) {
        fprintf(stderr, "arbiter diff: %s\n", claim != NULL
                ? "--claim compares with one source: FILE, --db DIR "
                  "--match ID, or --match ID (the server)"
                : "name two sources: FILE FILE, or FILE and --db DIR "
                  "--match ID / --match ID");
        usage(stderr);
        return 2;
    }
    for (i = 0; i < nfiles; i++)
        if (load_file(&src[nsrc++], files[i]) != 0)
            goto done;
    if (match != NULL) {
        rc = db != NULL ? load_db(&src[nsrc], db, match)
                        : load_net(&src[nsrc], &n, match);
        nsrc++;
        if (rc != 0)
            goto done;
    }
    for (i = 0; i < nsrc; i++)
        log_of(&src[i]);
    status = claim != NULL ? diff_claim(&src[0], claim, json)
                           : diff_logs(&src[0], &src[1], json);
done:
    for (i = 0; i < nsrc; i++)
        source_clear(&src[i]);
    cli_net_close(&n);
    return status;
}
