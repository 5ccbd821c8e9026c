/*
 * check.c - the whole-store check (check.h): every derived view of the
 * store recomputed from the event bytes and compared.
 *
 * DESIGN: three passes, each in short read transactions so that a check
 * of a live store never pins old pages for long:
 *   1. the match list (one snapshot: it fixes what is checked);
 *   2. per match, its events: chain, decode, summary record, client ids,
 *      deal commitment;
 *   3. the global log, in chunks, up to the position read after pass 1:
 *      every listed event must be there exactly once, in seq order per
 *      match, with the bytes of the chain.  Events committed after pass 1
 *      are skipped, not reported; one the match list should already
 *      hold is asked about again before it is called a stale index.
 * After a chain mismatch the walk goes on from the stored hash, so one
 * flipped byte is one problem at its own seq, not one at every later seq.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "core/codec.h"
#include "core/deal.h"
#include "core/err.h"
#include "core/event.h"
#include "core/ledger/chain.h"
#include "core/ledger/check.h"

#define LOG_CHUNK   4096    /* log positions per read transaction */
#define UNKNOWN_MAX 64      /* unknown matches in the log reported */

typedef struct cmatch {
    arb_match_info_t info;
    uint64_t         lnext;         /* next seq expected in the log */
    unsigned char    lh[ARB_HASH_LEN];  /* chain over the log's bytes */
    uint64_t         bad_seq;       /* a chain problem the events pass found */
    int              has_bad;
    uint64_t         beyond;        /* a seq past info.last_seq in the log */
    uint64_t         beyond_pos;
    int              has_beyond;
} cmatch_t;

typedef struct cid {
    char          *id;
    uint64_t       seq;
    unsigned char  hash[ARB_HASH_LEN];
} cid_t;

typedef struct unknown {
    char     id[ARB_STORE_ID_MAX + 1];
    uint64_t pos, seq;
} unknown_t;

typedef struct ctx {
    arb_store_t           *s;
    arb_check_problem_cb   problem;
    arb_check_progress_cb  progress;
    void                  *ud;
    arb_check_summary_t   *out;
    int                    nomem;

    cmatch_t              *m;
    size_t                 n, cap;

    /* pass 2: the match being walked */
    cmatch_t              *cur;
    unsigned char          h[ARB_HASH_LEN];
    uint64_t               next;
    int64_t                first_ms, last_ms;
    size_t                 nproblems;   /* of this match */
    arb_event_t            open;
    int                    has_open;
    uint64_t               close_seq;
    int                    has_close;
    char                  *reveal_kind, *reveal_secret;
    cid_t                 *cids;
    size_t                 ncids, capcids;

    /* pass 3 */
    uint64_t               lastpos;
    unknown_t              unknown[UNKNOWN_MAX];
    size_t                 nunknown;
} ctx_t;

static void report(ctx_t *c, const char *id, int has_seq, uint64_t seq,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void
report(ctx_t *c, const char *id, int has_seq, uint64_t seq, const char *fmt,
       ...)
{
    char    msg[768];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    c->out->problems++;
    c->nproblems++;
    if (c->problem != NULL)
        c->problem(c->ud, id, has_seq, seq, msg);
}

static int
list_cb(void *ud, const arb_match_info_t *info)
{
    ctx_t    *c = ud;
    cmatch_t *nm;

    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 64;
        nm = realloc(c->m, cap * sizeof(*nm));
        if (nm == NULL)
            return ARB_ENOMEM;
        c->m = nm;
        c->cap = cap;
    }
    memset(&c->m[c->n], 0, sizeof(c->m[c->n]));
    c->m[c->n++].info = *info;
    return 0;
}

static int
match_cmp(const void *a, const void *b)
{
    return strcmp(((const cmatch_t *)a)->info.match_id,
                  ((const cmatch_t *)b)->info.match_id);
}

static cmatch_t *
find_match(ctx_t *c, const char *id)
{
    cmatch_t key;

    if (c->n == 0)
        return NULL;
    snprintf(key.info.match_id, sizeof(key.info.match_id), "%s", id);
    return bsearch(&key, c->m, c->n, sizeof(*c->m), match_cmp);
}

/* Pass 2: one event of the match being walked. */
static void
check_decoded(ctx_t *c, const arb_event_t *ev, uint64_t seq, int64_t time_ms,
              const unsigned char hash[ARB_HASH_LEN])
{
    const arb_match_info_t *mi = &c->cur->info;
    const char             *id = mi->match_id;

    if (ev->seq != seq)
        report(c, id, 1, seq, "the event says seq %llu",
               (unsigned long long)ev->seq);
    if (ev->time_ms != time_ms)
        report(c, id, 1, seq, "the event's time %lld differs from the "
               "stored time %lld", (long long)ev->time_ms, (long long)time_ms);
    if ((seq == 0) != (ev->kind == ARB_EV_OPEN))
        report(c, id, 1, seq, seq == 0 ? "seq 0 is a %s event, not the open"
               : "a second %s event", arb_event_kind_name(ev->kind));
    if (ev->kind == ARB_EV_OPEN && seq == 0 && ev->setup != NULL) {
        if (strcmp(ev->setup->match_id, id) != 0)
            report(c, id, 1, seq, "the open event is of match %s",
                   ev->setup->match_id);
        if (strcmp(ev->setup->game, mi->game) != 0)
            report(c, id, 1, seq, "the open event's game is %s, the match "
                   "index says %s", ev->setup->game, mi->game);
        if (!c->has_open && arb_event_copy(&c->open, ev) == 0)
            c->has_open = 1;
        else if (!c->has_open)
            c->nomem = 1;
    }
    if (ev->kind == ARB_EV_CLOSE && !c->has_close) {
        c->has_close = 1;
        c->close_seq = seq;
        if (ev->nargs == 2) {
            c->reveal_kind = strdup(ev->args[0]);
            c->reveal_secret = strdup(ev->args[1]);
            if (c->reveal_kind == NULL || c->reveal_secret == NULL)
                c->nomem = 1;
        }
    }
    if (ev->client_id != NULL) {
        if (c->ncids == c->capcids) {
            size_t cap = c->capcids ? c->capcids * 2 : 16;
            cid_t *nc = realloc(c->cids, cap * sizeof(*nc));
            if (nc == NULL) {
                c->nomem = 1;
                return;
            }
            c->cids = nc;
            c->capcids = cap;
        }
        c->cids[c->ncids].id = strdup(ev->client_id);
        if (c->cids[c->ncids].id == NULL) {
            c->nomem = 1;
            return;
        }
        c->cids[c->ncids].seq = seq;
        memcpy(c->cids[c->ncids].hash, hash, ARB_HASH_LEN);
        c->ncids++;
    }
}

static int
event_cb(void *ud, uint64_t seq, int64_t time_ms,
         const unsigned char hash[ARB_HASH_LEN], const void *bytes, size_t len)
{
    ctx_t         *c = ud;
    const char    *id = c->cur->info.match_id;
    unsigned char  got[ARB_HASH_LEN];
    arb_event_t    ev;
    arb_buf_t      why = ARB_BUF_INIT;

    if (seq != c->next)
        report(c, id, 1, c->next, "missing (the next stored event is seq "
               "%llu)", (unsigned long long)seq);
    arb_chain_next(seq == 0 ? NULL : c->h, bytes, len, got);
    if (memcmp(got, hash, ARB_HASH_LEN) != 0) {
        report(c, id, 1, seq, "stored hash does not match the chain: the "
               "event's bytes or its hash were changed");
        if (!c->cur->has_bad) {
            c->cur->has_bad = 1;
            c->cur->bad_seq = seq;
        }
    }
    memcpy(c->h, hash, ARB_HASH_LEN);   /* go on from the stored link */
    if (arb_event_decode(&ev, bytes, len, &why) != 0) {
        report(c, id, 1, seq, "not a canonical event: %s",
               why.oom ? "out of memory" : arb_buf_cstr(&why));
    } else {
        check_decoded(c, &ev, seq, time_ms, hash);
        arb_event_clear(&ev);
    }
    arb_buf_free(&why);
    if (seq == 0)
        c->first_ms = time_ms;
    c->last_ms = time_ms;
    c->next = seq + 1;
    return c->nomem ? ARB_ENOMEM : 0;
}

static int
cid_cmp(const void *a, const void *b)
{
    const cid_t *x = a, *y = b;
    int          r = strcmp(x->id, y->id);

    return r != 0 ? r : (x->seq > y->seq) - (x->seq < y->seq);
}

/* Every client id the events carry must lead back to its event. */
static void
check_cids(ctx_t *c)
{
    const char    *id = c->cur->info.match_id;
    arb_buf_t      why = ARB_BUF_INIT;
    unsigned char  h[ARB_HASH_LEN];
    uint64_t       q;
    size_t         i;
    int            rc;

    if (c->ncids > 1)
        qsort(c->cids, c->ncids, sizeof(*c->cids), cid_cmp);
    for (i = 0; i < c->ncids; i++) {
        cid_t *e = &c->cids[i];
        if (i > 0 && strcmp(c->cids[i - 1].id, e->id) == 0) {
            report(c, id, 1, e->seq, "client id \"%s\" was already used by "
                   "seq %llu", e->id, (unsigned long long)c->cids[i - 1].seq);
            continue;
        }
        rc = arb_store_idem(c->s, id, e->id, &q, h, &why);
        if (rc == ARB_ENOTFOUND)
            report(c, id, 1, e->seq, "client id \"%s\" is missing from the "
                   "idempotency index", e->id);
        else if (rc != 0)
            report(c, id, 1, e->seq, "client id \"%s\": %s", e->id,
                   arb_buf_cstr(&why));
        else if (q != e->seq)
            report(c, id, 1, e->seq, "client id \"%s\": the idempotency "
                   "index points at seq %llu", e->id, (unsigned long long)q);
        else if (memcmp(h, e->hash, ARB_HASH_LEN) != 0)
            report(c, id, 1, e->seq, "client id \"%s\": the idempotency "
                   "index answers another hash", e->id);
    }
    c->out->client_ids += c->ncids;
    arb_buf_free(&why);
}

/* A committed deal must open with the close's reveal and with the secret
 * the recorder keeps (what a running match's replay and a restore need). */
static void
check_deal(ctx_t *c)
{
    const char    *id = c->cur->info.match_id;
    const arb_deal_t *d;
    arb_verdict_t  v;
    arb_buf_t      sec = ARB_BUF_INIT, why = ARB_BUF_INIT;
    char          *sp;
    int            rc;

    if (!c->has_open || c->open.setup == NULL ||
        c->open.setup->deal.kind != ARB_DEAL_COMMIT)
        return;
    d = &c->open.setup->deal;
    c->out->dealt++;
    memset(&v, 0, sizeof(v));
    if (c->has_close && c->reveal_kind == NULL)
        report(c, id, 1, c->close_seq, "the close does not reveal the deal "
               "committed at seq 0");
    else if (c->has_close &&
             arb_deal_check(d->seed_hash, c->reveal_kind, c->reveal_secret,
                            &v) != 0)
        report(c, id, 1, c->close_seq, "the close's reveal does not open "
               "the deal committed at seq 0: %s", v.msg);
    rc = arb_store_secret(c->s, id, &sec, &why);
    if (rc == ARB_ENOTFOUND) {
        if (!c->has_close)
            report(c, id, 0, 0, "running dealt match: the deal secret is "
                   "not kept (its moves cannot be judged before the close)");
    } else if (rc != 0) {
        report(c, id, 0, 0, "deal secret: %s", arb_buf_cstr(&why));
    } else if ((sp = strchr(sec.data, ' ')) == NULL) {
        report(c, id, 0, 0, "the kept deal secret is not '<kind> <secret>'");
    } else {
        *sp = '\0';
        if (arb_deal_check(d->seed_hash, sec.data, sp + 1, &v) != 0)
            report(c, id, 0, 0, "the kept deal secret does not open the "
                   "deal committed at seq 0: %s", v.msg);
    }
    arb_buf_free(&sec);
    arb_buf_free(&why);
}

static void
match_state_clear(ctx_t *c)
{
    size_t i;

    for (i = 0; i < c->ncids; i++)
        free(c->cids[i].id);
    c->ncids = 0;
    if (c->has_open)
        arb_event_clear(&c->open);
    c->has_open = 0;
    free(c->reveal_kind);
    free(c->reveal_secret);
    c->reveal_kind = c->reveal_secret = NULL;
    c->has_close = 0;
    c->close_seq = 0;
    c->next = 0;
    c->nproblems = 0;
    c->first_ms = c->last_ms = 0;
    memset(c->h, 0, sizeof(c->h));
}

/* The summary record against what the events say. */
static void
check_summary(ctx_t *c)
{
    const arb_match_info_t *mi = &c->cur->info;
    const char             *id = mi->match_id;

    if (c->next != mi->count)
        report(c, id, 1, c->next, "the match index counts %llu events, "
               "the events hold %llu", (unsigned long long)mi->count,
               (unsigned long long)c->next);
    if (memcmp(c->h, mi->head, ARB_HASH_LEN) != 0)
        report(c, id, 1, mi->last_seq, "the match index's head is not the "
               "hash of the last event");
    if (c->first_ms != mi->created_ms || c->last_ms != mi->last_ms)
        report(c, id, 0, 0, "the match index's times (%lld, %lld) are not "
               "those of seq 0 and the last event (%lld, %lld)",
               (long long)mi->created_ms, (long long)mi->last_ms,
               (long long)c->first_ms, (long long)c->last_ms);
    if (mi->closed && !c->has_close)
        report(c, id, 0, 0, "the match index says closed, no event closes "
               "the match");
    if (!mi->closed && c->has_close)
        report(c, id, 1, c->close_seq, "the match is closed here, the match "
               "index says open");
}

static int
check_match(ctx_t *c, cmatch_t *m)
{
    arb_buf_t why = ARB_BUF_INIT;
    int       rc;

    c->cur = m;
    match_state_clear(c);
    rc = arb_store_events_unchecked(c->s, m->info.match_id, 0,
                                    m->info.last_seq, event_cb, c, &why);
    if (rc == ARB_ENOMEM || c->nomem) {
        rc = ARB_ENOMEM;
        goto done;
    }
    if (rc != 0) {
        report(c, m->info.match_id, 1, c->next, "%s", arb_buf_cstr(&why));
    } else {
        check_summary(c);
        /* What the walk cannot see (events stored past the head) the
         * store's own verification names. */
        if (c->nproblems == 0 &&
            arb_store_verify(c->s, m->info.match_id, &why) != 0)
            report(c, m->info.match_id, 0, 0, "%s", arb_buf_cstr(&why));
    }
    check_cids(c);
    check_deal(c);
    c->out->events += m->info.count;
    if (m->info.closed)
        c->out->closed++;
    rc = c->nomem ? ARB_ENOMEM : 0;
done:
    match_state_clear(c);
    arb_buf_free(&why);
    return rc;
}

/* Pass 3: one position of the global log. */
static int
log_cb(void *ud, uint64_t pos, const char *match_id, uint64_t seq,
       int64_t time_ms, const unsigned char hash[ARB_HASH_LEN],
       const void *bytes, size_t len)
{
    ctx_t         *c = ud;
    cmatch_t      *m;
    unsigned char  got[ARB_HASH_LEN];
    size_t         i;

    (void)time_ms;
    c->lastpos = pos;
    m = find_match(c, match_id);
    if (m == NULL) {
        for (i = 0; i < c->nunknown; i++)
            if (strcmp(c->unknown[i].id, match_id) == 0)
                return 0;
        if (c->nunknown < UNKNOWN_MAX) {
            snprintf(c->unknown[c->nunknown].id,
                     sizeof(c->unknown[c->nunknown].id), "%s", match_id);
            c->unknown[c->nunknown].pos = pos;
            c->unknown[c->nunknown++].seq = seq;
        }
        return 0;
    }
    if (seq > m->info.last_seq) {
        if (!m->has_beyond) {
            m->has_beyond = 1;
            m->beyond = seq;
            m->beyond_pos = pos;
        }
        return 0;
    }
    if (seq != m->lnext)
        report(c, match_id, 1, seq, "global log position %llu: out of "
               "commit order (seq %llu of this match expected next)",
               (unsigned long long)pos, (unsigned long long)m->lnext);
    arb_chain_next(seq == 0 ? NULL : m->lh, bytes, len, got);
    if (memcmp(got, hash, ARB_HASH_LEN) != 0 &&
        !(m->has_bad && m->bad_seq == seq))
        report(c, match_id, 1, seq, "global log position %llu: the bytes "
               "do not match the chain", (unsigned long long)pos);
    memcpy(m->lh, hash, ARB_HASH_LEN);
    m->lnext = seq + 1;
    return 0;
}

static int
check_log(ctx_t *c, uint64_t last)
{
    arb_match_info_t fresh;
    arb_buf_t        why = ARB_BUF_INIT;
    uint64_t         pos = 1, want;
    size_t           i;
    int              rc;

    while (pos <= last) {
        want = last - pos + 1 < LOG_CHUNK ? last - pos + 1 : LOG_CHUNK;
        c->lastpos = pos - 1;
        rc = arb_store_log_unchecked(c->s, pos, want, log_cb, c, &why);
        if (rc == ARB_ENOMEM)
            goto done;
        if (rc != 0) {
            /* Report the position that failed and go on past it. */
            report(c, NULL, 0, 0, "global log: %s", arb_buf_cstr(&why));
            pos = c->lastpos + 2;
        } else if (c->lastpos < pos) {
            report(c, NULL, 0, 0, "global log: ends at position %llu, "
                   "position %llu was reported", (unsigned long long)pos - 1,
                   (unsigned long long)last);
            break;
        } else {
            pos = c->lastpos + 1;
        }
        if (c->progress != NULL)
            c->progress(c->ud, "log", pos - 1, last);
    }
    for (i = 0; i < c->n; i++) {
        cmatch_t *m = &c->m[i];
        if (m->lnext < m->info.count)
            report(c, m->info.match_id, 1, m->lnext, "not in the global "
                   "log");
        else if (memcmp(m->lh, m->info.head, ARB_HASH_LEN) != 0)
            report(c, m->info.match_id, 1, m->info.last_seq, "the global "
                   "log's chain ends at another head than the match index");
        if (m->has_beyond &&
            arb_store_match(c->s, m->info.match_id, &fresh, NULL) == 0 &&
            fresh.last_seq < m->beyond)
            report(c, m->info.match_id, 1, m->beyond, "in the global log "
                   "(position %llu) but the match index ends at seq %llu: "
                   "a stale index", (unsigned long long)m->beyond_pos,
                   (unsigned long long)fresh.last_seq);
    }
    for (i = 0; i < c->nunknown; i++)
        if (arb_store_match(c->s, c->unknown[i].id, &fresh, NULL) ==
            ARB_ENOTFOUND)
            report(c, c->unknown[i].id, 1, c->unknown[i].seq, "in the "
                   "global log (position %llu) but not in the match index",
                   (unsigned long long)c->unknown[i].pos);
    rc = 0;
done:
    arb_buf_free(&why);
    return rc;
}

static void
heads_digest(ctx_t *c)
{
    crypto_generichash_state st;
    unsigned char            n8[8];
    size_t                   i, k;

    crypto_generichash_init(&st, NULL, 0, ARB_HASH_LEN);
    for (i = 0; i < c->n; i++) {
        const arb_match_info_t *mi = &c->m[i].info;
        crypto_generichash_update(&st, (const unsigned char *)mi->match_id,
                                  strlen(mi->match_id) + 1);
        for (k = 0; k < 8; k++)
            n8[k] = (unsigned char)(mi->count >> (56 - 8 * k));
        crypto_generichash_update(&st, n8, 8);
        crypto_generichash_update(&st, mi->head, ARB_HASH_LEN);
    }
    crypto_generichash_final(&st, c->out->heads, ARB_HASH_LEN);
}

int
arb_check_store(arb_store_t *s, arb_check_problem_cb problem,
                arb_check_progress_cb progress, void *ud,
                arb_check_summary_t *out, arb_buf_t *why)
{
    arb_store_stats_t before, after;
    ctx_t             c;
    size_t            i;
    int               rc;

    memset(out, 0, sizeof(*out));
    memset(&c, 0, sizeof(c));
    c.s = s;
    c.problem = problem;
    c.progress = progress;
    c.ud = ud;
    c.out = out;
    rc = arb_crypto_init();
    if (rc == 0)
        rc = arb_store_stats(s, &before, why);
    if (rc != 0)
        return rc;

    rc = arb_store_matches(s, list_cb, &c, why);
    if (rc == ARB_ENOMEM)
        goto fail;
    if (rc != 0)
        report(&c, NULL, 0, 0, "match index: %s (matches after it are not "
               "checked)", arb_buf_cstr(why));
    if (c.n > 1)
        qsort(c.m, c.n, sizeof(*c.m), match_cmp);
    out->matches = c.n;
    heads_digest(&c);

    for (i = 0; i < c.n; i++) {
        rc = check_match(&c, &c.m[i]);
        if (rc != 0)
            goto fail;
        if (progress != NULL)
            progress(ud, "matches", i + 1, c.n);
    }

    /* Read after the listing: the log up to here holds every listed
     * event, and perhaps some newer ones, which pass 3 skips. */
    rc = arb_store_stats(s, &after, why);
    if (rc != 0)
        goto fail;
    rc = check_log(&c, after.log_pos);
    if (rc != 0)
        goto fail;
    out->log_pos = after.log_pos;
    if (after.log_pos == before.log_pos) {
        /* Nothing was appended while we looked: the counts must agree. */
        if (after.matches != out->matches)
            report(&c, NULL, 0, 0, "the store counts %llu matches, the "
                   "match index lists %llu",
                   (unsigned long long)after.matches,
                   (unsigned long long)out->matches);
        if (after.events != out->events)
            report(&c, NULL, 0, 0, "the store counts %llu events, the "
                   "matches hold %llu", (unsigned long long)after.events,
                   (unsigned long long)out->events);
        if (after.log_pos != out->events)
            report(&c, NULL, 0, 0, "the global log ends at position %llu, "
                   "the matches hold %llu events",
                   (unsigned long long)after.log_pos,
                   (unsigned long long)out->events);
        if (after.client_ids != out->client_ids)
            report(&c, NULL, 0, 0, "the idempotency index holds %llu "
                   "entries, the events carry %llu client ids",
                   (unsigned long long)after.client_ids,
                   (unsigned long long)out->client_ids);
    }
    rc = 0;
fail:
    if (rc == ARB_ENOMEM && why != NULL) {
        why->len = 0;
        arb_buf_puts(why, "out of memory");
    }
    match_state_clear(&c);
    free(c.cids);
    free(c.m);
    return rc;
}
