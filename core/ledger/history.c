#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/codec.h"
#include "core/deal.h"
#include "core/err.h"
#include "core/ledger/history.h"
#include "core/ledger/store.h"
#include "core/replay.h"

void
arb_history_clear(arb_history_t *h)
{
    size_t i;

    if (h == NULL)
        return;
    arb_event_clear(&h->open);
    for (i = 0; i < h->nevents; i++)
        arb_event_clear(&h->events[i]);
    if (h->recs != NULL)
        for (i = 0; i < h->nevents + (h->has_open ? 1 : 0); i++)
            free(h->recs[i].bytes);
    free(h->events);
    free(h->recs);
    free(h->lines);
    free(h->source);
    free(h->secret);
    memset(h, 0, sizeof(*h));
}

int
arb_history_name(arb_history_t *h, const char *fmt, ...)
{
    va_list ap;
    char   *s;
    int     n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || (s = malloc((size_t)n + 1)) == NULL)
        return ARB_ENOMEM;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    free(h->source);
    h->source = s;
    return 0;
}

/* Room for one more event (and its record when the history keeps them). */
static int
grow(arb_history_t *h, int with_rec)
{
    size_t             cap;
    arb_event_t       *ev;
    arb_history_rec_t *rec;

    if (h->nevents < h->cap && (!with_rec || h->recs != NULL))
        return 0;
    cap = h->nevents < h->cap ? h->cap : h->cap ? 2 * h->cap : 64;
    ev = realloc(h->events, cap * sizeof(*ev));
    if (ev == NULL)
        return ARB_ENOMEM;
    h->events = ev;
    if (with_rec) {
        /* recs[0] is the open's: one more than events. */
        rec = realloc(h->recs, (cap + 1) * sizeof(*rec));
        if (rec == NULL)
            return ARB_ENOMEM;
        if (h->recs == NULL)
            memset(rec, 0, (cap + 1) * sizeof(*rec));
        else
            memset(rec + h->cap + 1, 0, (cap - h->cap) * sizeof(*rec));
        h->recs = rec;
    }
    h->cap = cap;
    return 0;
}

int
arb_history_push(arb_history_t *h, arb_event_t *ev,
                 const arb_history_rec_t *rec)
{
    arb_history_rec_t *r;
    size_t             at = h->has_open ? h->nevents + 1 : 0;

    if (grow(h, rec != NULL) != 0)
        return ARB_ENOMEM;
    if (rec != NULL) {
        r = &h->recs[at];
        *r = *rec;
        r->bytes = malloc(rec->len ? rec->len : 1);
        if (r->bytes == NULL)
            return ARB_ENOMEM;
        memcpy(r->bytes, rec->bytes, rec->len);
    }
    if (!h->has_open) {
        h->open = *ev;
        h->has_open = 1;
    } else {
        h->events[h->nevents++] = *ev;
    }
    memset(ev, 0, sizeof(*ev));
    return 0;
}

int
arb_history_add(arb_history_t *h, uint64_t seq, int64_t time_ms,
                const unsigned char *hash, const void *bytes, size_t len,
                arb_buf_t *why)
{
    arb_event_t        ev;
    arb_history_rec_t  rec;
    uint64_t           want = h->has_open ? h->nevents + 1 : 0;
    int                rc;

    /* why may be NULL (a caller that needs only the code). */
    rc = arb_event_decode(&ev, bytes, len, why);
    if (rc != 0) {
        arb_buf_t tmp = ARB_BUF_INIT;
        if (why == NULL)
            return rc;
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
        if (why != NULL)
            arb_buf_printf(why, "seq %" PRIu64 ": expected event %"
                           PRIu64 "%s, found a%s %s event numbered %" PRIu64,
                           seq, want, want == 0 ? " (the open)" : "",
                           ev.kind == ARB_EV_OPEN ? "n" : "",
                           arb_event_kind_name(ev.kind), ev.seq);
        arb_event_clear(&ev);
        return ARB_ECORRUPT;
    }
    memset(&rec, 0, sizeof(rec));
    rec.seq = seq;
    rec.time_ms = time_ms;
    rec.has_hash = hash != NULL;
    if (hash != NULL)
        memcpy(rec.hash, hash, ARB_HASH_LEN);
    rec.bytes = (unsigned char *)bytes;     /* copied by the push */
    rec.len = len;
    if (arb_history_push(h, &ev, &rec) != 0) {
        arb_event_clear(&ev);
        arb_buf_free(why);
        if (why != NULL)
            arb_buf_printf(why, "seq %" PRIu64 ": out of memory", seq);
        return ARB_ENOMEM;
    }
    return 0;
}

typedef struct load_ctx {
    arb_history_t *h;
    arb_buf_t     *why;
    int            rc;
} load_ctx_t;

static int
on_stored(void *ud, uint64_t seq, int64_t time_ms,
          const unsigned char hash[ARB_HASH_LEN], const void *bytes,
          size_t len)
{
    load_ctx_t *x = ud;

    x->rc = arb_history_add(x->h, seq, time_ms, hash, bytes, len, x->why);
    return x->rc != 0 ? 1 : 0;
}

/* 1 when ev is a close that reveals a deal ("close seed <text>"). */
static int
reveals(const arb_event_t *ev)
{
    return ev->kind == ARB_EV_CLOSE && ev->nargs == 2;
}

/* The deal a close reveals, appended to out in the stored form of a
 * secret; 1 when ev is such a close. */
static int
close_reveal(const arb_event_t *ev, arb_buf_t *out)
{
    if (!reveals(ev))
        return 0;
    arb_deal_stored_format(out, ev->args[0], ev->args[1]);
    return 1;
}

int
arb_history_sealed(const arb_history_t *h)
{
    size_t i;

    if (h->withheld)
        return 1;
    if (!h->has_open || h->open.setup == NULL
        || h->open.setup->deal.kind != ARB_DEAL_COMMIT || h->secret != NULL)
        return 0;
    for (i = 0; i < h->nevents; i++)
        if (reveals(&h->events[i]))
            return 0;
    return 1;
}

typedef struct reveal_ctx {
    arb_buf_t *out;
    int        rc;                  /* 1 found, or ARB_E* */
} reveal_ctx_t;

static int
on_reveal(void *ud, uint64_t seq, int64_t time_ms,
          const unsigned char hash[ARB_HASH_LEN], const void *bytes,
          size_t len)
{
    reveal_ctx_t *x = ud;
    arb_event_t   ev;

    (void)seq;
    (void)time_ms;
    (void)hash;
    if ((x->rc = arb_event_decode(&ev, bytes, len, NULL)) != 0)
        return 1;
    x->rc = close_reveal(&ev, x->out);
    arb_event_clear(&ev);
    return x->rc;
}

/* Where the store keeps no secret of a dealt match (a read replica
 * without the replication key), its close, once committed, reveals the
 * deal for every seq: that reveal into out (h's events 0..upto, then the
 * store's after them).  1 found, 0 not closed yet, or the store's error. */
static int
close_secret(const arb_history_t *h, arb_store_t *s, const char *match_id,
             uint64_t upto, arb_buf_t *out, arb_buf_t *why)
{
    arb_match_info_t info;
    reveal_ctx_t     x = { out, 0 };
    size_t           i;
    int              rc;

    out->len = 0;
    for (i = 0; i < h->nevents; i++)
        if (close_reveal(&h->events[i], out))
            return 1;
    if (upto == UINT64_MAX
        || (rc = arb_store_match(s, match_id, &info, why)) == ARB_ENOTFOUND)
        return 0;
    if (rc != 0)
        return rc;
    if (!info.closed || info.last_seq <= upto)
        return 0;
    rc = arb_store_events(s, match_id, upto + 1, info.last_seq, on_reveal,
                          &x, why);
    return x.rc != 0 ? x.rc : rc == 1 ? 0 : rc;
}

int
arb_history_load(arb_history_t *h, arb_store_t *s, const char *match_id,
                 uint64_t upto, arb_buf_t *why)
{
    load_ctx_t x = { h, why, 0 };
    arb_buf_t  sec = ARB_BUF_INIT;
    int        rc;

    rc = arb_store_events(s, match_id, 0, upto, on_stored, &x, why);
    if (x.rc != 0)
        return x.rc;
    if (rc != 0)
        return rc;
    if (h->has_open && h->open.setup != NULL
        && h->open.setup->deal.kind == ARB_DEAL_COMMIT) {
        /* Only "none stored" leaves the secret out; a failed read (out of
         * memory) must not pass for a missing secret. */
        rc = arb_store_secret(s, match_id, &sec, why);
        if (rc == ARB_ENOTFOUND)
            rc = close_secret(h, s, match_id, upto, &sec, why);
        else if (rc == 0)
            rc = 1;
        if (rc == 1) {
            h->secret = strdup(arb_buf_cstr(&sec) ? arb_buf_cstr(&sec) : "");
            rc = h->secret == NULL || sec.oom ? ARB_ENOMEM : 0;
        }
    }
    arb_buf_free(&sec);
    return rc;
}

int
arb_history_reveal(arb_history_t *h, arb_verdict_t *v)
{
    char        kind[ARB_DEAL_KIND_MAX];
    const char *secret;

    if (!h->has_open || h->open.setup == NULL || h->secret == NULL
        || h->open.setup->deal.kind != ARB_DEAL_COMMIT)
        return 0;
    if (arb_deal_stored_parse(h->secret, kind, &secret) != 0)
        return arb_verdict(v, ARB_ECORRUPT, "deal", "the stored deal secret "
                           "is malformed");
    return arb_deal_reveal(&h->open.setup->deal, kind, secret, v);
}

int
arb_history_replay(arb_history_t *h, uint64_t at, arb_match_t **out,
                   size_t *bad, arb_verdict_t *v)
{
    int rc;

    *out = NULL;
    *bad = 0;
    if (!h->has_open)
        return arb_verdict(v, ARB_EINVAL, "open", "the history has no open "
                           "event");
    if (h->withheld)
        return arb_verdict(v, ARB_ESEALED, "view", "the recorder withholds "
                           "the hidden arguments of this running match's "
                           "moves from this token, so only the recorder can "
                           "judge it until the close (`arbiter state` "
                           "prints what it judged; docs/VIEWS.md)");
    if (arb_history_sealed(h))
        return arb_verdict(v, ARB_ESEALED, "deal", "the match is dealt and "
                           "still running: its log holds only the deal's "
                           "commitment until its close reveals the deal, "
                           "and until then only the recorder, which keeps "
                           "the deal, can judge it (`arbiter state` prints "
                           "what it judged; docs/DEAL.md)");
    rc = arb_history_reveal(h, v);
    if (rc != 0)
        return rc;
    return arb_replay(out, &h->open, h->events, h->nevents, at, bad, v);
}
