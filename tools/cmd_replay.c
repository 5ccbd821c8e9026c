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
#include "core/ledger/store.h"
#include "core/transcript.h"
#include "core/codec.h"
#include "tools/cli.h"

static void
usage(FILE *f)
{
    fprintf(f,
        "usage: arbiter replay [--json] [--at N] FILE\n"
        "       arbiter replay [--json] [--at N] --db DIR --match ID\n\n"
        "Replays a match transcript (docs/TRANSCRIPT.md; FILE '-' = stdin),\n"
        "checking every event against the rules, and prints the\n"
        "registration records, each player's total and the canonical state\n"
        "digest.\n\n"
        "options:\n"
        "  --json       print {\"records\":[...],\"totals\":{...},"
        "\"digest\":\"...\",\n"
        "               \"seq\":N,\"closed\":b,\"finished\":b,"
        "\"state\":{...}}\n"
        "  --at N       stop after event N (0 = the header only)\n"
        "  --db DIR     replay match ID from the recorder's store in DIR\n"
        "               (opened read-only: safe while arbiterd runs)\n"
        "  --match ID   the match to replay from --db\n\n"
        "A refused event stops the replay: its line (or seq), rule and\n"
        "message go to stderr and the exit status is 1.  Bad usage or\n"
        "unreadable input: 2.\n");
}

static void
print_text(const arb_match_t *m)
{
    arb_results_t r;
    unsigned char d[ARB_HASH_LEN];
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

void
cli_events_clear(cli_events_t *v)
{
    size_t i;

    arb_event_clear(&v->open);
    for (i = 0; i < v->n; i++)
        arb_event_clear(&v->ev[i]);
    free(v->ev);
    memset(v, 0, sizeof(*v));
}

int
cli_events_add(cli_events_t *v, const char *bytes, size_t len,
               uint64_t seq, arb_buf_t *why)
{
    arb_event_t ev, *nv;
    uint64_t    want = v->has_open ? v->n + 1 : 0;
    int         rc;

    rc = arb_event_decode(&ev, bytes, len, why);
    if (rc != 0) {
        arb_buf_t tmp = ARB_BUF_INIT;
        arb_buf_printf(&tmp, "seq %" PRIu64 ": %s", seq, arb_buf_cstr(why));
        arb_buf_free(why);
        *why = tmp;
        return rc;
    }
    /* Replay trusts positions: a gap or a stray open would shift every
     * later event, so say so instead of replaying something else. */
    if (seq != want || ev.seq != seq
        || (ev.kind == ARB_EV_OPEN) != (seq == 0)) {
        arb_buf_free(why);
        arb_buf_printf(why, "seq %" PRIu64 ": expected event %" PRIu64
                       "%s, found a%s %s event numbered %" PRIu64, seq,
                       want, want == 0 ? " (the open)" : "",
                       ev.kind == ARB_EV_OPEN ? "n" : "",
                       arb_event_kind_name(ev.kind), ev.seq);
        arb_event_clear(&ev);
        return ARB_ECORRUPT;
    }
    if (seq == 0) {
        v->open = ev;
        v->has_open = 1;
        return 0;
    }
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 64;
        nv = realloc(v->ev, cap * sizeof(*nv));
        if (nv == NULL) {
            arb_event_clear(&ev);
            arb_buf_free(why);
            arb_buf_printf(why, "out of memory");
            return ARB_ENOMEM;
        }
        v->ev = nv;
        v->cap = cap;
    }
    v->ev[v->n++] = ev;
    return 0;
}

int
cli_replay_print(const char *src, const arb_event_t *open, unsigned open_line,
                 const arb_event_t *events, const unsigned *lines, size_t n,
                 uint64_t at, int json, const char *want_digest)
{
    arb_buf_t     out = ARB_BUF_INIT, line = ARB_BUF_INIT;
    arb_match_t  *m = NULL;
    arb_verdict_t v;
    unsigned char d[ARB_HASH_LEN];
    char          hex[ARB_HASH_HEX];
    size_t        bad = 0;
    int           rc, k, status = 1;

    rc = arb_replay(&m, open, events, n, at, &bad, &v);
    if (m == NULL) {
        if (lines != NULL)
            fprintf(stderr, "%s:%u: header: %s\n", src, open_line, v.msg);
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
            status = 2;
            goto done;
        }
        arb_buf_putc(&out, '\n');
        fwrite(out.data, 1, out.len, stdout);
    } else {
        print_text(m);
    }
    status = 0;
    if (want_digest != NULL) {
        arb_match_digest(m, d);
        for (k = 0; k < 32; k++)
            snprintf(hex + 2 * k, 3, "%02x", d[k]);
        if (strcmp(hex, want_digest) != 0) {
            fprintf(stderr, "%s: digest %s differs from the server's %s "
                    "(another engine version?)\n", src, hex, want_digest);
            status = 1;
        }
    }
done:
    arb_match_free(m);
    arb_buf_free(&out);
    arb_buf_free(&line);
    return status;
}

typedef struct db_ctx {
    cli_events_t *v;
    arb_buf_t    *why;
    int           rc;
} db_ctx_t;

static int
on_db_event(void *ud, uint64_t seq, int64_t t, const unsigned char hash[ARB_HASH_LEN],
            const void *bytes, size_t len)
{
    db_ctx_t *x = ud;

    (void)t;
    (void)hash;
    x->rc = cli_events_add(x->v, bytes, len, seq, x->why);
    return x->rc != 0 ? 1 : 0;
}

/* --db DIR --match ID: the events as the recorder stored them. */
static int
replay_db(const char *dir, const char *match, uint64_t at, int json)
{
    arb_store_t      *s = NULL;
    arb_store_opts_t  opts;
    arb_match_info_t  info;
    arb_buf_t         why = ARB_BUF_INIT, src = ARB_BUF_INIT;
    cli_events_t      v;
    db_ctx_t          x;
    int               rc, status = 2;

    memset(&v, 0, sizeof(v));
    memset(&opts, 0, sizeof(opts));
    opts.read_only = 1;
    rc = arb_store_open(&s, dir, &opts, &why);
    if (rc != 0) {
        fprintf(stderr, "arbiter replay: %s: %s\n", dir,
                rc == ARB_ENOTFOUND ? "no store there" : arb_buf_cstr(&why));
        goto done;
    }
    rc = arb_store_match(s, match, &info, &why);
    if (rc != 0) {
        if (rc == ARB_ENOTFOUND)
            fprintf(stderr, "arbiter replay: %s: no match '%s'\n", dir,
                    match);
        else
            fprintf(stderr, "arbiter replay: %s: %s\n", dir,
                    arb_buf_cstr(&why));
        goto done;
    }
    if (at != UINT64_MAX && at > info.last_seq) {
        fprintf(stderr, "arbiter replay: --at %" PRIu64 ": match '%s' has "
                "events 0..%" PRIu64 "\n", at, match, info.last_seq);
        goto done;
    }
    /* One read transaction: a consistent snapshot even while the daemon
     * appends; events after info.last_seq are simply not read. */
    x.v = &v;
    x.why = &why;
    x.rc = 0;
    rc = arb_store_events(s, match, 0, info.last_seq, on_db_event, &x, &why);
    if (rc != 0 || !v.has_open) {
        fprintf(stderr, "arbiter replay: %s: match '%s': %s\n", dir, match,
                !v.has_open && rc == 0 ? "no open event"
                : arb_buf_cstr(&why));
        goto done;
    }
    if (cli_reveal_stored(s, &v.open) != 0)
        goto done;
    arb_buf_printf(&src, "%s: match %s", dir, match);
    status = cli_replay_print(arb_buf_cstr(&src), &v.open, 0, v.ev, NULL,
                              v.n, at, json, NULL);
done:
    cli_events_clear(&v);
    arb_store_close(s);
    arb_buf_free(&why);
    arb_buf_free(&src);
    return status;
}

int
cmd_replay(int argc, char **argv)
{
    arb_buf_t        text = ARB_BUF_INIT, why = ARB_BUF_INIT;
    arb_transcript_t t;
    const char      *path = NULL, *db = NULL, *match = NULL;
    uint64_t         at = UINT64_MAX;
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
        } else if (strcmp(argv[i], "--db") == 0 && i + 1 < argc) {
            db = argv[++i];
        } else if (strcmp(argv[i], "--match") == 0 && i + 1 < argc) {
            match = argv[++i];
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
    if ((db != NULL || match != NULL)
        && (db == NULL || match == NULL || path != NULL)) {
        fprintf(stderr, "arbiter replay: --db DIR and --match ID go "
                "together, instead of FILE\n");
        return 2;
    }
    if (db != NULL)
        return replay_db(db, match, at, json);
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
    status = cli_replay_print(path, &t.open, t.open_line, t.events, t.lines,
                              t.nevents, at, json, NULL);
    arb_transcript_clear(&t);
done:
    arb_buf_free(&text);
    arb_buf_free(&why);
    return status;
}
