/*
 * replay_store.c - `arbiter replay --db DIR` without --match: every match
 * of a data directory in one pass over the log (core/ledger/replay_all.h),
 * one line each in match id order, with its state digest.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/err.h"
#include "core/ledger/chain.h"
#include "core/ledger/replay_all.h"
#include "core/ledger/store.h"
#include "core/replay.h"
#include "tools/cli.h"
#include "tools/ops.h"

typedef struct out {
    const char *dir;
    int         json;
    size_t      matches, refused;
    arb_buf_t   line;
} out_t;

static int
on_match(void *ud, const arb_replayed_t *r)
{
    out_t        *o = ud;
    unsigned char d[ARB_HASH_LEN];
    char          hex[ARB_HASH_HEX];

    o->matches++;
    if (r->refused) {
        o->refused++;
        fprintf(stderr, "%s: match %s: seq %" PRIu64 " refused: %s: %s\n",
                o->dir, r->match_id, r->bad_seq, r->v->rule, r->v->msg);
    }
    if (r->m == NULL)
        return 0;
    if (o->json) {
        o->line.len = 0;
        if (arb_report_json(&o->line, r->m) != 0)
            return ARB_ENOMEM;
        arb_buf_putc(&o->line, '\n');
        fwrite(o->line.data, 1, o->line.len, stdout);
        return 0;
    }
    /* The digest once per match, at its end: never per event. */
    arb_match_digest(r->m, d);
    arb_hex(hex, d, ARB_HASH_LEN);
    printf("match %s  game %s  events %" PRIu64 "%s  digest %s\n",
           r->match_id, arb_match_rules(r->m)->game,
           arb_match_next_seq(r->m) - 1,
           r->refused ? "  refused" : arb_match_closed(r->m) ? "  closed"
           : arb_match_finished(r->m) ? "  finished" : "", hex);
    return 0;
}

int
cli_replay_store(const char *dir, int json, int verify)
{
    arb_store_t     *st = NULL;
    arb_store_opts_t opts;
    arb_buf_t        why = ARB_BUF_INIT;
    out_t            o;
    uint64_t         n = 0;
    int64_t          t0 = arb_clock_ms();
    int              rc, status = CLI_ERROR;

    memset(&o, 0, sizeof(o));
    o.dir = dir;
    o.json = json;
    memset(&opts, 0, sizeof(opts));
    opts.read_only = 1;
    rc = arb_store_open(&st, dir, &opts, &why);
    if (rc != 0) {
        fprintf(stderr, "arbiter replay: %s: %s\n", dir,
                rc == ARB_ENOTFOUND ? "no store there" : arb_buf_cstr(&why));
        goto done;
    }
    /* Replay trusts the chain the recorder wrote; --verify re-hashes it
     * first (on every CPU), as `arbiter verify` does. */
    if (verify) {
        rc = arb_store_verify(st, NULL, &why);
        if (rc != 0) {
            fprintf(stderr, "arbiter replay: %s: %s\n", dir,
                    arb_buf_cstr(&why));
            status = cli_store_status(rc);
            goto done;
        }
    }
    rc = arb_replay_all(st, on_match, &o, &n, &why);
    if (rc != 0) {
        fprintf(stderr, "arbiter replay: %s: %s\n", dir,
                rc == ARB_ENOMEM ? "out of memory" : arb_buf_cstr(&why));
        status = cli_store_status(rc);
        goto done;
    }
    fflush(stdout);
    if (isatty(STDERR_FILENO))
        fprintf(stderr, "arbiter replay: %zu matches, %" PRIu64 " events "
                "in %.2f s%s\n", o.matches, n,
                (double)(arb_clock_ms() - t0) / 1000.0,
                verify ? " (chains verified)" : "");
    status = o.refused > 0 ? CLI_DIFFERS : CLI_OK;
done:
    arb_store_close(st);
    arb_buf_free(&why);
    arb_buf_free(&o.line);
    return status;
}
