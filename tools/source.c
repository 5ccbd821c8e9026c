/*
 * source.c - the one way a tool reads a match's recorded history:
 * FILE (a transcript or the jsonl of one exported match), --db DIR
 * --match ID (the recorder's store, read-only) or --match ID alone (the
 * server).  Every source fills the same arb_history_t (core/ledger/
 * history.h), so replay, diff, state, export, record and claim never
 * care where the events came from.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/claim.h"
#include "core/err.h"
#include "core/event_json.h"
#include "core/jsonin.h"
#include "core/ledger/bundle.h"
#include "core/ledger/chain.h"
#include "core/ledger/store.h"
#include "core/transcript.h"
#include "tools/cli.h"
#include "tools/net.h"

/* ---- an export's jsonl ------------------------------------------------ */

/* The fields of an export's line that are read from its bytes (the event
 * as JSON, its kind, actor and time_ms) must say what the bytes say: the
 * chain covers only the bytes, and a reader of the line reads the rest
 * (until 2026-12-05 an edited body passed unnoticed).  A field the line
 * lacks (an older export) is not asked for.  0, or -1 with why. */
static int
jsonl_derived(const arb_history_t *h, const json_t *v, const char *match,
              const unsigned char prev[ARB_HASH_LEN], arb_buf_t *why)
{
    static const char *const keys[] = { "kind", "actor", "time_ms", "body",
                                        NULL };
    const arb_history_rec_t *e = &h->recs[h->nevents];
    const json_t            *got;
    const char              *bad = NULL;
    json_t                  *want;
    int64_t                  t, ms;
    size_t                   k;

    want = arb_bundle_jsonl_line(match, e, h->nevents == 0 ? &h->open
                                 : &h->events[h->nevents - 1], prev);
    if (want == NULL) {
        arb_buf_puts(why, "out of memory");
        return -1;
    }
    for (k = 0; keys[k] != NULL && bad == NULL; k++) {
        got = json_object_get(v, keys[k]);
        if (got != NULL && !json_equal((json_t *)got,
                                       json_object_get(want, keys[k])))
            bad = keys[k];
    }
    /* "time" is time_ms written out for a reader, in a format that may
     * differ between releases: the instant it names is what is compared
     * (until 2026-12-06 it was not, and a forged time passed). */
    got = json_object_get(v, "time");
    ms = (int64_t)json_integer_value(json_object_get(want, "time_ms"));
    if (bad == NULL && got != NULL
        && !(json_is_null(got) ? ms <= 0
             : json_is_string(got)
               && arb_iso_time_parse(json_string_value(got), 0, &t) == 0
               && t == ms))
        bad = "time";
    if (bad != NULL)
        arb_buf_printf(why, "seq %" PRIu64 ": \"%s\" is not what its bytes "
                       "say (the bytes are what the chain covers: the line "
                       "was changed)", e->seq, bad);
    json_decref(want);
    return bad != NULL ? -1 : 0;
}

/* One line of an export in jsonl: its event bytes, checked against its
 * chain links and the fields read from them.  0, or -1 with the reason in
 * why. */
static int
jsonl_line(arb_history_t *h, const char *line, size_t len, char *match,
           unsigned char head[ARB_HASH_LEN], arb_buf_t *why)
{
    const char     *m, *bytes, *prev, *hash;
    json_t         *v = NULL, *jseq, *jtms;
    int64_t         seq;
    unsigned char  *raw = NULL, hh[ARB_HASH_LEN], p[ARB_HASH_LEN];
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
    jtms = json_object_get(v, "time_ms");
    arb_buf_free(why);
    if (m == NULL || seq < 0 || bytes == NULL || prev == NULL
        || hash == NULL) {
        arb_buf_puts(why, "not an exported event (match, seq, prev, hash, "
                     "bytes)");
        goto done;
    }
    if (match[0] == '\0')
        snprintf(match, ARB_STORE_ID_MAX + 1, "%s", m);
    else if (strcmp(match, m) != 0) {
        arb_buf_printf(why, "a second match (%s after %s): export one match",
                       m, match);
        goto done;
    }
    n = strlen(bytes) / 2;
    raw = malloc(n ? n : 1);
    if (raw == NULL || arb_unhex(raw, n, bytes) != 0
        || arb_unhex(p, ARB_HASH_LEN, prev) != 0
        || arb_unhex(hh, ARB_HASH_LEN, hash) != 0) {
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
    if (memcmp(hh, head, ARB_HASH_LEN) != 0) {
        arb_buf_printf(why, "seq %" PRId64 ": hash does not match its bytes",
                       seq);
        goto done;
    }
    if (arb_history_add(h, (uint64_t)seq, json_is_integer(jtms)
                        ? (int64_t)json_integer_value(jtms) : 0, hh, raw,
                        n, why) != 0)
        goto done;
    rc = jsonl_derived(h, v, match, p, why);
done:
    free(raw);
    json_decref(v);
    return rc;
}

static int
load_jsonl(arb_history_t *h, const char *path, const char *text, size_t len)
{
    arb_buf_t      why = ARB_BUF_INIT;
    const char    *p = text, *end = text + len, *nl;
    unsigned char  head[ARB_HASH_LEN];
    char           match[ARB_STORE_ID_MAX + 1] = "";
    unsigned       line = 0;

    memset(head, 0, sizeof(head));
    for (; p < end; p = nl + 1) {
        nl = memchr(p, '\n', (size_t)(end - p));
        if (nl == NULL)
            nl = end;
        line++;
        if (nl == p || (nl - p == 1 && *p == '\r'))
            continue;
        if (jsonl_line(h, p, (size_t)(nl - p), match, head, &why) != 0) {
            fprintf(stderr, "%s:%u: %s\n", path, line, arb_buf_cstr(&why));
            arb_buf_free(&why);
            return CLI_ERROR;
        }
    }
    if (!h->has_open) {
        fprintf(stderr, "%s: no events\n", path);
        return CLI_ERROR;
    }
    return arb_history_name(h, "%s: match %s", path, match) != 0
           ? CLI_ERROR : CLI_OK;
}

/* ---- the three sources ------------------------------------------------ */

static int
load_file(arb_history_t *h, const char *path)
{
    arb_buf_t text = ARB_BUF_INIT, why = ARB_BUF_INIT;
    size_t    i;
    int       rc;

    if (cli_read_file(&text, path) != 0) {
        arb_buf_free(&text);
        return CLI_ERROR;
    }
    /* Two files a reader may give by mistake, said for what they are
     * (the parser would say "line 0: no header"). */
    if (text.len == 0 || (text.len >= ARB_BUNDLE_MAGIC_LEN
                          && memcmp(text.data, ARB_BUNDLE_MAGIC,
                                    ARB_BUNDLE_MAGIC_LEN) == 0)) {
        if (text.len == 0)
            fprintf(stderr, "%s: the file is empty: a transcript starts "
                    "with 'game: <name>'\n", path);
        else
            fprintf(stderr, "%s: a bundle, not a transcript: check it "
                    "with 'arbiter verify %s --pubkey KEY'\n", path, path);
        arb_buf_free(&text);
        return CLI_ERROR;
    }
    /* A transcript starts with a comment or a header; an export's jsonl
     * with an object. */
    for (i = 0; i < text.len && strchr(" \t\r\n", text.data[i]); i++)
        ;
    if (i < text.len && text.data[i] == '{') {
        rc = load_jsonl(h, path, text.data, text.len);
        arb_buf_free(&text);
        return rc;
    }
    rc = arb_transcript_parse(h, text.data ? text.data : "", text.len, &why);
    if (rc != 0)
        fprintf(stderr, "%s: %s\n", path, arb_buf_cstr(&why));
    else if (arb_history_name(h, "%s", path) != 0)
        rc = ARB_ENOMEM;
    arb_buf_free(&text);
    arb_buf_free(&why);
    return rc != 0 ? CLI_ERROR : CLI_OK;
}

int
cli_store_status(int rc)
{
    return rc == ARB_ENOMEM || rc == ARB_EIO || rc == ARB_ESTORE
           ? CLI_ERROR : CLI_DIFFERS;
}

static int
load_db(arb_history_t *h, const char *cmd, const char *dir,
        arb_store_t *open, const char *match, uint64_t upto)
{
    arb_store_t      *st = open;
    arb_store_opts_t  opts;
    arb_verdict_t     v;
    arb_buf_t         why = ARB_BUF_INIT;
    int               rc = 0, status = CLI_ERROR;

    memset(&opts, 0, sizeof(opts));
    opts.read_only = 1;
    if (st == NULL)
        rc = arb_store_open(&st, dir, &opts, &why);
    if (rc != 0) {
        fprintf(stderr, "arbiter %s: %s: %s\n", cmd, dir,
                rc == ARB_ENOTFOUND ? "no store there" : arb_buf_cstr(&why));
        goto done;
    }
    /* One read transaction: a consistent snapshot even while the daemon
     * appends. */
    rc = arb_history_load(h, st, match, upto, &why);
    if (rc == ARB_ENOTFOUND && !h->has_open) {
        fprintf(stderr, "arbiter %s: %s: no match '%s'\n", cmd, dir, match);
        goto done;
    }
    if (rc != 0 || !h->has_open) {
        fprintf(stderr, "arbiter %s: %s: match '%s': %s\n", cmd, dir, match,
                rc == 0 ? "no open event" : arb_buf_cstr(&why));
        status = cli_store_status(rc == 0 ? ARB_ECORRUPT : rc);
        goto done;
    }
    /* Only the recorder's operator can read the data directory: the
     * secret kept beside the log lets a running dealt match be replayed
     * here before its close reveals the deal.  Without it, replay says
     * what it cannot judge. */
    rc = arb_history_reveal(h, &v);
    if (rc == ARB_ECORRUPT) {
        free(h->secret);        /* malformed: as if there were none */
        h->secret = NULL;
    } else if (rc != 0) {
        fprintf(stderr, "%s: match %s: %s\n", cli_who, match, v.msg);
        goto done;
    }
    if (arb_history_name(h, "%s: match %s", dir, match) == 0)
        status = CLI_OK;
done:
    if (st != open)
        arb_store_close(st);
    arb_buf_free(&why);
    return status;
}

typedef struct net_ctx {
    arb_history_t *h;
    arb_buf_t     *why;
} net_ctx_t;

static int
on_net_event(void *ud, const msgpack_object *item)
{
    net_ctx_t  *x = ud;
    const char *bytes, *hash;
    size_t      len, hlen;
    uint64_t    seq;
    int64_t     t = 0;

    if (cli_get_uint(item, "seq", &seq) != 0
        || cli_get_bytes(item, "event", &bytes, &len) != 0) {
        arb_buf_printf(x->why, "an event without seq or bytes");
        return CLI_ERROR;
    }
    if (cli_get_bytes(item, "hash", &hash, &hlen) != 0
        || hlen != ARB_HASH_LEN) {
        /* Withheld with a hidden argument (docs/VIEWS.md): this reader
         * cannot replay the match, only the recorder can judge it. */
        hash = NULL;
        x->h->withheld = 1;
    }
    (void)cli_get_int(item, "time", &t);
    return arb_history_add(x->h, seq, t, (const unsigned char *)hash, bytes,
                           len, x->why) != 0 ? CLI_ERROR : CLI_OK;
}

int
cli_history_from_server(arb_history_t *h, cli_net_t *n, const char *match,
                        uint64_t upto, arb_buf_t *why)
{
    net_ctx_t x = { h, why };
    int       status;

    status = cli_net_events(n, match, 0, upto, NULL, 0, 0, on_net_event, &x);
    if (status == CLI_OK && !h->has_open) {
        arb_buf_printf(why, "no open event");
        status = CLI_ERROR;
    }
    return status;
}

int
cli_recorder_results(cli_net_t *n, const char *match, uint64_t at,
                     arb_claim_t *rec, json_t **view, arb_buf_t *why)
{
    const msgpack_object *seqs;
    const char           *json;
    json_t               *j = NULL;
    size_t                len, i;
    int                   status;

    memset(rec, 0, sizeof(*rec));
    status = cli_net_state_with(n, match, at, "seqs");
    if (status != CLI_OK)
        return status;
    seqs = arb_client_get(&n->res, "seqs");
    if (cli_get_bytes(&n->res.data, "json", &json, &len) != 0
        || seqs == NULL || seqs->type != MSGPACK_OBJECT_ARRAY) {
        arb_buf_printf(why, "the recorder's answer has no report with its "
                       "records' seqs");
        return CLI_ERROR;
    }
    if (arb_claim_parse_report(rec, json, len, why) != 0
        || (view != NULL && arb_json_parse(&j, json, len, why) != 0))
        goto bad;
    if (rec->res.nrecords != seqs->via.array.size) {
        arb_buf_printf(why, "the recorder's report has %zu records and %"
                       PRIu32 " seqs", rec->res.nrecords,
                       seqs->via.array.size);
        goto bad;
    }
    for (i = 0; i < rec->res.nrecords; i++) {
        const msgpack_object *o = &seqs->via.array.ptr[i];

        if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER) {
            arb_buf_printf(why, "the recorder's seqs are not numbers");
            goto bad;
        }
        rec->res.records[i].seq = o->via.u64;
    }
    if (view != NULL)
        *view = j;
    return CLI_OK;
bad:
    if (why->len == 0)
        arb_buf_puts(why, "out of memory");
    json_decref(j);
    arb_claim_clear(rec);
    return CLI_ERROR;
}

static int
load_net(arb_history_t *h, const char *cmd, cli_net_t *n, const char *match,
         uint64_t upto)
{
    arb_buf_t why = ARB_BUF_INIT;
    int       status;

    if (arb_history_name(h, "%s: match %s", n->server ? n->server
                         : getenv("ARBITER_SERVER") ? getenv("ARBITER_SERVER")
                         : CLI_SERVER_DEFAULT, match) != 0)
        return CLI_ERROR;
    if (cli_net_connect(n) != 0)
        return CLI_ERROR;
    status = cli_history_from_server(h, n, match, upto, &why);
    if (status != CLI_OK && why.len > 0)
        fprintf(stderr, "arbiter %s: %s: %s\n", cmd, h->source,
                arb_buf_cstr(&why));
    arb_buf_free(&why);
    return status != CLI_OK ? CLI_ERROR : CLI_OK;
}

int
cli_source_load(arb_history_t *h, const char *cmd, const cli_source_t *src,
                cli_net_t *n, uint64_t upto)
{
    if (src->file != NULL)
        return load_file(h, src->file);
    /* A usage error, said as one (the store's words are for callers:
     * "bad match id or no callback"). */
    if (src->match[0] == '\0' || strlen(src->match) > ARB_STORE_ID_MAX) {
        if (src->match[0] == '\0')
            fprintf(stderr, "arbiter %s: --match '': the match id is "
                    "empty\n", cmd);
        else
            fprintf(stderr, "arbiter %s: --match: the match id is %zu "
                    "bytes, at most %d\n", cmd, strlen(src->match),
                    ARB_STORE_ID_MAX);
        return CLI_ERROR;
    }
    if (src->db != NULL)
        return load_db(h, cmd, src->db, src->store, src->match, upto);
    return load_net(h, cmd, n, src->match, upto);
}
