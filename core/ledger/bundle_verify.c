/*
 * bundle_verify.c - the one verification of a bundle (see bundle.h).
 *
 * DESIGN: the checks come in three groups, run for every match in this
 * order, none of them optional:
 *   A. the checkpoint's signature, with the key the verifier holds;
 *   B. the events against the checkpoint: seqs 0..n-1 once each and in
 *      order, n = count, every hash recomputed from the raw bytes, the
 *      head; B stops at its first failure, because everything after it
 *      (a missing seq breaks every later link) is a consequence;
 *   C. the contents, only on bytes B certified: canonical decoding, the
 *      rule profile against the open event, replay through the rules,
 *      which recomputes every record and total.
 * A and B are independent and both reported: an altered count shows as
 * a bad signature and as the seq the count says is missing.  A bundle
 * verifies only when every match passes all three.
 *
 * Matches are independent, so a bundle of several is verified on one
 * thread per CPU, each taking the next unverified match: every match's
 * result lands in its own slot and the report is the one a serial pass
 * writes, whatever the timing.  A bundle of one match (or a few) spends
 * the threads on its chain's links instead (arb_chain_first_bad).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "core/codec.h"
#include "core/ledger/bundle_int.h"
#include "core/ledger/chain.h"
#include "core/err.h"

static int problem(arb_bundle_result_t *res, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Adds one problem; ARB_ENOMEM when it could not be kept. */
static int
problem(arb_bundle_result_t *res, const char *fmt, ...)
{
    va_list ap, again;
    char   *msg, **nv;
    int     n;

    /* Whole: a refusal quotes its event, whose argument may be 4 KiB
     * long, and its reason comes last. */
    va_start(ap, fmt);
    va_copy(again, ap);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    msg = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (msg != NULL)
        vsnprintf(msg, (size_t)n + 1, fmt, again);
    va_end(again);
    if (msg == NULL)
        return ARB_ENOMEM;
    nv = realloc(res->problems, (res->nproblems + 1) * sizeof(*nv));
    if (nv == NULL) {
        free(msg);
        return ARB_ENOMEM;
    }
    res->problems = nv;
    nv[res->nproblems++] = msg;
    return 0;
}

static char *
dup_or_null(const char *s)
{
    return s != NULL ? strdup(s) : NULL;
}

/* A. */
static int
check_signature(const arb__bundle_section_t *m,
                const unsigned char pk[ARB_PUBKEY_LEN],
                arb_bundle_result_t *res)
{
    unsigned char msg[ARB_CHECKPOINT_MSG_MAX];
    char          want[2 * ARB_PUBKEY_LEN + 1], named[2 * ARB_PUBKEY_LEN + 1];
    size_t        n = arb_checkpoint_message(msg, &m->cp);

    arb_hex(want, pk, ARB_PUBKEY_LEN);
    arb_hex(named, m->cp.pubkey, ARB_PUBKEY_LEN);
    if (arb_crypto_init() != 0
        || crypto_sign_verify_detached(m->cp.sig, msg, n, pk) != 0) {
        if (memcmp(pk, m->cp.pubkey, ARB_PUBKEY_LEN) == 0)
            return problem(res, "signature does not verify with key %s",
                           want);
        return problem(res, "signature does not verify with key %s (the "
                       "bundle names key %s)", want, named);
    }
    /* The named key is not what the signature is checked with, but it is
     * a byte of the bundle all the same: a key that is not the one that
     * signed means the bundle was altered (docs/BUNDLE.md). */
    if (memcmp(pk, m->cp.pubkey, ARB_PUBKEY_LEN) != 0)
        return problem(res, "the checkpoint names signer key %s, but the "
                       "signature is by key %s", named, want);
    res->sig_ok = 1;
    return 0;
}

/* B.  1 when the events are what the checkpoint certifies. */
static int
check_chain(const arb__bundle_section_t *m, const arb_history_rec_t *ev,
            arb_bundle_result_t *res, unsigned threads, int *rc)
{
    const unsigned char     *prev;
    char                     a[ARB_HASH_HEX], b[ARB_HASH_HEX];
    size_t                   n = m->nrecs, i, j;
    uint64_t                 count = m->cp.count;

    for (i = 0; i < n; i++) {
        if (ev[i].seq == i)
            continue;
        if (ev[i].seq < i) {
            *rc = problem(res, "seq %" PRIu64 " appears twice", ev[i].seq);
            return 0;
        }
        for (j = i + 1; j < n && ev[j].seq != i; j++)
            ;
        if (j < n)
            *rc = problem(res, "seq %" PRIu64 " out of place (found where "
                          "seq %zu belongs)", ev[i].seq, i);
        else
            *rc = problem(res, "seq %zu missing", i);
        return 0;
    }
    if (n < count) {
        *rc = problem(res, "seq %zu missing: the checkpoint counts %" PRIu64
                      " events, the bundle holds %zu", n, count, n);
        return 0;
    }
    if (n > count) {
        *rc = problem(res, "seq %" PRIu64 " is past the checkpoint: the "
                      "checkpoint counts %" PRIu64 " events, the bundle "
                      "holds %zu", count, count, n);
        return 0;
    }
    if (n == 0) {
        *rc = problem(res, "no events: the match has no open event");
        return 0;
    }
    /* Link by link, on several threads for a long match: the first
     * broken link is the one a serial walk would name. */
    i = arb_chain_first_bad(ev, n, threads);
    if (i < n) {
        *rc = problem(res, "hash mismatch at seq %zu", i);
        return 0;
    }
    prev = ev[n - 1].hash;
    if (memcmp(prev, m->cp.head, ARB_HASH_LEN) != 0) {
        arb_hex(a, prev, ARB_HASH_LEN);
        arb_hex(b, m->cp.head, ARB_HASH_LEN);
        *rc = problem(res, "head mismatch: the events chain to %s, the "
                      "checkpoint says %s", a, b);
        return 0;
    }
    return 1;
}

static int
same(const char *a, const char *b)
{
    return a == NULL ? b == NULL : b != NULL && strcmp(a, b) == 0;
}

/* C, first half: the bundle's header against the open event. */
static int
check_profile(const arb__bundle_section_t *m, const arb_setup_t *open,
              arb_bundle_result_t *res)
{
    const arb_setup_t *p = &m->profile;
    const char        *name[3] = { "game", "edition", "engine" };
    const char        *mine[3] = { p->game, p->edition, p->engine };
    const char        *theirs[3] = { open->game, open->edition,
                                     open->engine };
    size_t             i;
    int                rc = 0;

    if (strcmp(m->cp.match_id, open->match_id) != 0)
        rc = problem(res, "rule profile: match id '%s' differs from the "
                     "open event's '%s'", m->cp.match_id, open->match_id);
    for (i = 0; rc == 0 && i < 3; i++)
        if (!same(mine[i], theirs[i]))
            rc = problem(res, "rule profile: %s '%s' differs from the open "
                         "event's '%s'", name[i],
                         mine[i] ? mine[i] : "(none)",
                         theirs[i] ? theirs[i] : "(none)");
    if (rc != 0)
        return rc;
    if (p->noptions != open->noptions)
        return problem(res, "rule profile: %zu options, the open event has "
                       "%zu", p->noptions, open->noptions);
    for (i = 0; i < p->noptions; i++)
        if (strcmp(p->options[i].key, open->options[i].key) != 0
            || strcmp(p->options[i].value, open->options[i].value) != 0)
            return problem(res, "rule profile: option %s=%s differs from "
                           "the open event's %s=%s", p->options[i].key,
                           p->options[i].value, open->options[i].key,
                           open->options[i].value);
    return 0;
}

/* C, the common case in one pass: every event decoded in place into
 * reused room (arb_event_decode_scratch) and applied to a lean match,
 * which keeps its rule state (the results and digest the verifier
 * prints) and no history.  *out is the match when every event stood;
 * NULL when anything is off -- a deal, a ruling (it rebuilds from the
 * moves), a refusal, an event that does not decode or is out of place,
 * a profile that differs -- and the full path then words the problem
 * exactly as before.  0 or ARB_ENOMEM. */
static int
contents_lean(const arb__bundle_section_t *m, const arb_history_rec_t *recs,
              arb_match_t **out)
{
    arb_event_t          open;
    arb_event_scratch_t  sc;
    const arb_event_t   *ev;
    arb_bundle_result_t  tmp;
    arb_verdict_t        v;
    arb_match_t         *match = NULL;
    size_t               i;
    int                  rc;

    *out = NULL;
    if (m->nrecs == 0)
        return 0;
    rc = arb_event_decode(&open, (const char *)recs[0].bytes, recs[0].len,
                          NULL);
    if (rc != 0)
        return rc == ARB_ENOMEM ? rc : 0;
    memset(&tmp, 0, sizeof(tmp));
    if (open.kind == ARB_EV_OPEN && open.seq == 0 && open.setup != NULL
        && open.setup->deal.kind == ARB_DEAL_NONE
        && (rc = check_profile(m, open.setup, &tmp)) == 0
        && tmp.nproblems == 0
        && (rc = arb_match_open(&match, &open, &v)) == 0)
        rc = arb_match_lean(match);
    for (i = 0; i < tmp.nproblems; i++)
        free(tmp.problems[i]);
    free(tmp.problems);
    arb_event_clear(&open);
    memset(&sc, 0, sizeof(sc));
    for (i = 1; rc == 0 && match != NULL && i < m->nrecs; i++) {
        rc = arb_event_decode_scratch(&sc, (const char *)recs[i].bytes,
                                      recs[i].len, NULL, &ev);
        if (rc == 0 && (ev->seq != recs[i].seq
                        || ev->kind == ARB_EV_OPEN))
            rc = ARB_EPROTO;
        if (rc == 0)
            rc = arb_match_apply(match, ev, &v);
    }
    arb_event_scratch_free(&sc);
    if (rc != 0 || match == NULL) {
        arb_match_free(match);
        return rc == ARB_ENOMEM ? rc : 0;
    }
    *out = match;
    return 0;
}

/* C. */
static int
check_contents(const arb__bundle_section_t *m, const arb_history_rec_t *recs,
               arb_bundle_result_t *res)
{
    arb_history_t h;
    arb_match_t  *match = NULL;
    arb_buf_t     why = ARB_BUF_INIT;
    int           rc;

    rc = contents_lean(m, recs, &match);
    if (rc != 0)
        return rc;
    if (match != NULL) {
        res->closed = arb_match_closed(match);
        if (res->nproblems == 0)
            res->m = match;
        else
            arb_match_free(match);
        return 0;
    }
    memset(&h, 0, sizeof(h));
    rc = arb__bundle_history(&h, m, &why);
    if (rc != 0) {
        if (rc != ARB_ENOMEM)
            rc = problem(res, "%s", arb_buf_cstr(&why));
        goto done;
    }
    rc = check_profile(m, h.open.setup, res);
    if (rc != 0)
        goto done;
    rc = arb__bundle_replay(&h, &match, &why);
    if (rc != 0) {
        if (rc != ARB_ENOMEM)
            rc = problem(res, "%s", arb_buf_cstr(&why));
        goto done;
    }
    res->closed = arb_match_closed(match);
    if (res->nproblems == 0) {
        res->m = match;
        match = NULL;
    }
done:
    arb_match_free(match);
    arb_history_clear(&h);
    arb_buf_free(&why);
    return rc;
}

/* recs/cap: the calling thread's room for the match's records
 * (arb__bundle_recs). */
static int
verify_match(const arb__bundle_section_t *m,
             const unsigned char pk[ARB_PUBKEY_LEN], arb_bundle_result_t *res,
             unsigned threads, arb_history_rec_t **recs, size_t *cap)
{
    int rc = 0, certified;

    memcpy(res->match_id, m->cp.match_id, sizeof(res->match_id));
    res->game = dup_or_null(m->profile.game);
    res->edition = dup_or_null(m->profile.edition);
    res->engine = dup_or_null(m->profile.engine);
    res->exporter = dup_or_null(m->exporter);
    res->count = m->nrecs;
    res->cp_count = m->cp.count;
    memcpy(res->head, m->cp.head, ARB_HASH_LEN);
    memcpy(res->signer, m->cp.pubkey, ARB_PUBKEY_LEN);
    if ((m->profile.game && !res->game) || (m->exporter && !res->exporter)
        || (m->profile.edition && !res->edition)
        || (m->profile.engine && !res->engine))
        return ARB_ENOMEM;

    rc = check_signature(m, pk, res);
    if (rc == 0) {
        rc = arb__bundle_recs(m, recs, cap);
        if (rc == ARB_ECRYPTO)
            return problem(res, "%s", ARB__BUNDLE_CHANGED);
    }
    if (rc != 0)
        return rc;
    certified = check_chain(m, *recs, res, threads, &rc);
    if (rc != 0 || !certified)
        return rc;
    return check_contents(m, *recs, res);
}

size_t arb__bundle_par_min = 4096;
void (*arb__bundle_verified_hook)(void);

typedef struct vpool {
    const arb__bundle_file_t *b;
    const unsigned char      *pk;
    arb_bundle_report_t      *rep;
    int                      *rc;       /* one per match */
    atomic_size_t             next;     /* the next match to take */
    unsigned                  threads;  /* for each match's links */
    arb_bundle_progress_fn    progress; /* or NULL */
    void                     *ud;
    pthread_mutex_t           mu;       /* one progress call at a time */
    uint64_t                  done, total;  /* events, under mu */
} vpool_t;

static void *
vpool_main(void *arg)
{
    vpool_t           *p = arg;
    arb_history_rec_t *recs = NULL;
    size_t             i, cap = 0;

    while ((i = atomic_fetch_add(&p->next, 1)) < p->b->nsections) {
        p->rc[i] = verify_match(&p->b->sections[i], p->pk,
                                &p->rep->matches[i], p->threads, &recs,
                                &cap);
        if (p->progress == NULL)
            continue;
        pthread_mutex_lock(&p->mu);
        p->done += p->b->sections[i].nrecs;
        p->progress(p->ud, p->done, p->total);
        pthread_mutex_unlock(&p->mu);
    }
    free(recs);
    return NULL;
}

/* Every match of b, on up to `nt` threads; the first match's error, as a
 * serial pass would return it. */
static int
verify_matches(const arb__bundle_file_t *b, const unsigned char *pk,
               arb_bundle_report_t *rep, arb_bundle_progress_fn progress,
               void *ud)
{
    vpool_t   p;
    unsigned  nt = arb_chain_threads();
    size_t    i, nrecs = 0;
    int       rc = 0;

    for (i = 0; i < b->nsections; i++)
        nrecs += b->sections[i].nrecs;
    if (nt > 16)
        nt = 16;
    if (nt > b->nsections)
        nt = (unsigned)b->nsections;
    /* A thread costs more to start than a small bundle costs to verify. */
    if (nrecs < arb__bundle_par_min)
        nt = 1;
    memset(&p, 0, sizeof(p));
    p.b = b;
    p.pk = pk;
    p.rep = rep;
    /* One match: its links get every thread.  Several: a match each. */
    p.threads = nt > 1 ? 1 : arb_chain_threads();
    p.progress = progress;
    p.ud = ud;
    p.total = nrecs;
    atomic_init(&p.next, 0);
    p.rc = calloc(b->nsections ? b->nsections : 1, sizeof(*p.rc));
    if (p.rc == NULL)
        return ARB_ENOMEM;
    pthread_mutex_init(&p.mu, NULL);
    arb_chain_run(nt, vpool_main, &p, 0);  /* every thread, one pool */
    pthread_mutex_destroy(&p.mu);
    for (i = 0; i < b->nsections; i++) {
        if (p.rc[i] != 0) {
            rc = p.rc[i];
            break;
        }
        rep->nproblems += rep->matches[i].nproblems;
    }
    free(p.rc);
    return rc;
}

/* A tournament (docs/TOURNAMENT.md) verifies only as a whole: every
 * table's match it names must be in the bundle too (each of them is
 * verified as any match is). */
static int
check_tournament(arb_bundle_report_t *rep, arb_bundle_result_t *res)
{
    arb_results_t      r;
    const arb_field_t *f;
    size_t             i, j;
    int                rc = 0;

    if (res->m == NULL || strcmp(res->game, "tournament") != 0)
        return 0;
    memset(&r, 0, sizeof(r));
    if (arb_match_results(res->m, &r) != 0) {
        arb_results_clear(&r);
        return ARB_ENOMEM;
    }
    for (i = 0; rc == 0 && i < r.nrecords; i++) {
        f = arb_record_get(&r.records[i], "match");
        /* A forfeited table is decided by the tournament's own record: a
         * match never opened for it is no gap. */
        if (f == NULL || f->str == NULL
            || arb_record_get(&r.records[i], "forfeit") != NULL)
            continue;
        for (j = 0; j < rep->nmatches; j++)
            if (strcmp(rep->matches[j].match_id, f->str) == 0)
                break;
        if (j == rep->nmatches) {
            rc = problem(res, "tournament: table %s of round %lld: match %s "
                         "is not in the bundle",
                         arb_record_get(&r.records[i], "table")->str,
                         (long long)arb_record_get(&r.records[i],
                                                   "round")->num, f->str);
            rep->nproblems++;
        }
    }
    arb_results_clear(&r);
    return rc;
}

int
arb_bundle_verify(const void *data, size_t len,
                  const unsigned char pubkey[ARB_PUBKEY_LEN],
                  arb_bundle_report_t *rep)
{
    return arb_bundle_verify_progress(data, len, pubkey, rep, NULL, NULL);
}

int
arb_bundle_verify_progress(const void *data, size_t len,
                           const unsigned char pubkey[ARB_PUBKEY_LEN],
                           arb_bundle_report_t *rep,
                           arb_bundle_progress_fn progress, void *ud)
{
    arb__bundle_file_t b;
    arb_buf_t          why = ARB_BUF_INIT;
    size_t             i;
    int                rc;

    memset(rep, 0, sizeof(*rep));
    memset(&b, 0, sizeof(b));
    rc = arb__bundle_read(&b, data, len, &why);
    if (rc != 0) {
        if (rc != ARB_ENOMEM) {
            rep->error = strdup(arb_buf_cstr(&why) ? arb_buf_cstr(&why)
                                                    : "unreadable");
            rep->nproblems = 1;
            rc = rep->error != NULL ? ARB_ECRYPTO : ARB_ENOMEM;
        }
        goto done;
    }
    rep->matches = calloc(b.nsections, sizeof(*rep->matches));
    if (rep->matches == NULL) {
        rc = ARB_ENOMEM;
        goto done;
    }
    rep->nmatches = b.nsections;
    rc = verify_matches(&b, pubkey, rep, progress, ud);
    if (rc != 0)
        goto done;
    for (i = 0; i < b.nsections; i++) {
        rc = check_tournament(rep, &rep->matches[i]);
        if (rc != 0)
            goto done;
    }
    rc = rep->nproblems == 0 ? 0 : ARB_ECRYPTO;
done:
    arb__bundle_file_clear(&b);
    arb_buf_free(&why);
    return rc;
}

int
arb_bundle_verified_history(const void *data, size_t len,
                            const unsigned char pubkey[ARB_PUBKEY_LEN],
                            const char *match_id, arb_bundle_report_t *rep,
                            arb_history_t *h, arb_buf_t *why)
{
    arb__bundle_file_t           f;
    const arb__bundle_section_t *m = NULL;
    unsigned char               *own;
    size_t                       i;
    int                          rc;

    /* One copy of the bytes, verified and then read: a mapped file that
     * another program rewrites in between would be read the second time
     * as it is then, and its history handed out as verified. */
    memset(&f, 0, sizeof(f));
    own = malloc(len > 0 ? len : 1);
    if (own == NULL) {
        memset(rep, 0, sizeof(*rep));
        return ARB_ENOMEM;
    }
    if (len > 0)
        memcpy(own, data, len);
    /* the whole check first: nothing of a bundle that fails is read */
    rc = arb_bundle_verify(own, len, pubkey, rep);
    if (arb__bundle_verified_hook != NULL)
        arb__bundle_verified_hook();
    if (rc != 0)
        goto done;
    rc = arb__bundle_read(&f, own, len, why);
    if (rc != 0)
        goto done;
    for (i = 0; i < f.nsections; i++)
        if (match_id == NULL ? f.nsections == 1
                             : strcmp(f.sections[i].cp.match_id,
                                      match_id) == 0)
            m = &f.sections[i];
    if (m == NULL) {
        rc = match_id == NULL ? ARB_EINVAL : ARB_ENOTFOUND;
        if (match_id == NULL)
            arb_buf_printf(why, "the bundle holds %zu matches: name one",
                           f.nsections);
        else
            arb_buf_printf(why, "the bundle holds no match '%s'", match_id);
        goto done;
    }
    /* the records' bytes are copied into h (arb_history_push) */
    rc = arb__bundle_history(h, m, why);
done:
    arb__bundle_file_clear(&f);
    free(own);
    return rc;
}

void
arb_bundle_report_clear(arb_bundle_report_t *r)
{
    size_t i, j;

    if (r == NULL)
        return;
    for (i = 0; i < r->nmatches; i++) {
        arb_bundle_result_t *res = &r->matches[i];
        free(res->game);
        free(res->edition);
        free(res->engine);
        free(res->exporter);
        arb_match_free(res->m);
        for (j = 0; j < res->nproblems; j++)
            free(res->problems[j]);
        free(res->problems);
    }
    free(r->matches);
    free(r->error);
    memset(r, 0, sizeof(*r));
}
