/*
 * bundle.c - building an export (from a store or event by event) and
 * writing the bundle file (docs/BUNDLE.md); the decoding and replay the
 * verifier and the text exports share.
 *
 * DESIGN: an event enters a bundle only with its chain link recomputed
 * (arb_bundle_add_event), whatever the source -- a store, a server's
 * pages, a test -- so an exporter cannot pass on a chain it never
 * checked, and the checkpoint it signs is always the head it computed.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/ledger/bundle_int.h"
#include "core/ledger/chain.h"
#include "core/err.h"
#include "core/replay.h"
#include "core/transcript.h"
#include "core/version.h"
#include "core/codec.h"

/* ---- building --------------------------------------------------------- */

static void
match_clear(arb_bundle_match_t *m)
{
    size_t i;

    for (i = 0; i < m->nevents; i++)
        free(m->events[i].bytes);
    free(m->events);
    arb_setup_clear(&m->profile);
    free(m->exporter);
    memset(m, 0, sizeof(*m));
}

void
arb_bundle_clear(arb_bundle_t *b)
{
    size_t i;

    if (b == NULL)
        return;
    for (i = 0; i < b->nmatches; i++)
        match_clear(&b->matches[i]);
    free(b->matches);
    memset(b, 0, sizeof(*b));
}

arb_bundle_match_t *
arb_bundle_add_match(arb_bundle_t *b, const char *match_id)
{
    arb_bundle_match_t *nv, *m;
    size_t              len = match_id ? strlen(match_id) : 0;

    if (len == 0 || len > ARB_STORE_ID_MAX)
        return NULL;
    if (b->nmatches == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 4;
        nv = realloc(b->matches, cap * sizeof(*nv));
        if (nv == NULL)
            return NULL;
        b->matches = nv;
        b->cap = cap;
    }
    m = &b->matches[b->nmatches++];
    memset(m, 0, sizeof(*m));
    memcpy(m->cp.match_id, match_id, len + 1);
    return m;
}

int
arb_bundle_add_event(arb_bundle_match_t *m, uint64_t seq,
                     const unsigned char hash[ARB_HASH_LEN], const void *bytes,
                     size_t len, arb_buf_t *why)
{
    arb_bundle_event_t *nv, *e;
    unsigned char       h[ARB_HASH_LEN];

    if (seq != m->nevents) {
        arb_buf_free(why);
        if (seq > m->nevents)
            arb_buf_printf(why, "seq %zu missing", m->nevents);
        else
            arb_buf_printf(why, "seq %" PRIu64 " out of place", seq);
        return ARB_ECORRUPT;
    }
    if (len == 0 || len > ARB_STORE_EVENT_MAX) {
        arb_buf_free(why);
        arb_buf_printf(why, "seq %" PRIu64 ": %zu bytes", seq, len);
        return ARB_EINVAL;
    }
    arb_chain_next(seq == 0 ? NULL : m->events[seq - 1].hash, bytes, len, h);
    if (memcmp(h, hash, ARB_HASH_LEN) != 0) {
        arb_buf_free(why);
        arb_buf_printf(why, "hash mismatch at seq %" PRIu64, seq);
        return ARB_ECORRUPT;
    }
    if (m->nevents == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 64;
        nv = realloc(m->events, cap * sizeof(*nv));
        if (nv == NULL)
            goto oom;
        m->events = nv;
        m->cap = cap;
    }
    e = &m->events[m->nevents];
    e->bytes = malloc(len);
    if (e->bytes == NULL)
        goto oom;
    memcpy(e->bytes, bytes, len);
    e->len = len;
    e->seq = seq;
    e->time_ms = 0;
    e->has_hash = 1;
    memcpy(e->hash, hash, ARB_HASH_LEN);
    m->nevents++;
    m->cp.count = m->nevents;
    memcpy(m->cp.head, hash, ARB_HASH_LEN);
    m->is_signed = 0;
    return 0;

oom:
    arb_buf_free(why);
    arb_buf_printf(why, "out of memory");
    return ARB_ENOMEM;
}

typedef struct store_ctx {
    arb_bundle_match_t *m;
    arb_buf_t          *why;
    int                 rc;
} store_ctx_t;

static int
on_store_event(void *ud, uint64_t seq, int64_t t, const unsigned char h[ARB_HASH_LEN],
               const void *bytes, size_t len)
{
    store_ctx_t *x = ud;

    (void)t;
    x->rc = arb_bundle_add_event(x->m, seq, h, bytes, len, x->why);
    return x->rc != 0;
}

int
arb_bundle_from_store(arb_bundle_t *b, arb_store_t *s, const char *match_id,
                      uint64_t count, arb_buf_t *why)
{
    arb_bundle_match_t *m;
    arb_match_info_t    info;
    store_ctx_t         x;
    arb_buf_t           tmp = ARB_BUF_INIT;
    int                 rc;

    rc = arb_store_match(s, match_id, &info, why);
    if (rc != 0)
        return rc;
    if (count == 0) {
        arb_buf_free(why);
        arb_buf_printf(why, "match '%s': a checkpoint of 0 events",
                       match_id);
        return ARB_EINVAL;
    }
    m = arb_bundle_add_match(b, match_id);
    if (m == NULL)
        return ARB_ENOMEM;
    x.m = m;
    x.why = why;
    x.rc = 0;
    rc = arb_store_events(s, match_id, 0,
                          count == UINT64_MAX ? UINT64_MAX : count - 1,
                          on_store_event, &x, why);
    if (rc == 1)
        rc = x.rc;
    if (rc == 0 && count != UINT64_MAX && m->nevents != count) {
        arb_buf_free(why);
        arb_buf_printf(why, "match '%s' has %zu events, not %" PRIu64,
                       match_id, m->nevents, count);
        rc = ARB_ENOTFOUND;
    }
    if (rc == 0 && m->nevents == 0) {
        arb_buf_free(why);
        arb_buf_printf(why, "match '%s' has no events", match_id);
        rc = ARB_ECORRUPT;
    }
    if (rc != 0) {
        if (rc == ARB_ECORRUPT) {       /* say where it came from */
            arb_buf_printf(&tmp, "match '%s': stored events: %s", match_id,
                           arb_buf_cstr(why));
            arb_buf_free(why);
            *why = tmp;
        }
        match_clear(m);
        b->nmatches--;
        return rc;
    }
    return 0;
}

void
arb_bundle_sign(arb_bundle_match_t *m, const arb_keypair_t *kp)
{
    arb_checkpoint_sign(&m->cp, kp);
    m->is_signed = 1;
}

/* ---- writing ---------------------------------------------------------- */

static void
put_u16(arb_buf_t *b, size_t v)
{
    arb_buf_putc(b, (char)(v >> 8));
    arb_buf_putc(b, (char)(v & 0xff));
}

/* A u16-length string; NULL is written as length 0. */
static void
put_str16(arb_buf_t *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;

    put_u16(b, n);
    arb_buf_add(b, s, n);
}

static void
rec_begin(arb_buf_t *b, int type, size_t *at)
{
    arb_buf_putc(b, (char)type);
    *at = b->len;
    arb_buf_u32be(b, 0);                /* patched by rec_end */
}

static void
rec_end(arb_buf_t *b, size_t at)
{
    size_t n = b->len - at - 4;

    if (b->oom)
        return;
    b->data[at] = (char)(n >> 24);
    b->data[at + 1] = (char)(n >> 16);
    b->data[at + 2] = (char)(n >> 8);
    b->data[at + 3] = (char)n;
}

/* The 'M' record: id, then the rule profile of the open event. */
static int
write_match(arb_buf_t *out, const arb_bundle_match_t *m, arb_buf_t *why)
{
    const arb_bundle_event_t *e0 = &m->events[0];
    arb_event_t               open;
    const arb_setup_t        *s;
    size_t                    at, i, idlen = strlen(m->cp.match_id);
    int                       rc;

    rc = arb_event_decode(&open, (const char *)e0->bytes, e0->len, why);
    if (rc != 0 || open.kind != ARB_EV_OPEN || open.setup == NULL) {
        arb_event_clear(&open);
        arb_buf_free(why);
        arb_buf_printf(why, "match '%s': seq 0 is not a valid open event",
                       m->cp.match_id);
        return ARB_EINVAL;
    }
    s = open.setup;
    if (strlen(s->game) > ARB_STORE_ID_MAX) {
        arb_event_clear(&open);
        arb_buf_free(why);
        arb_buf_printf(why, "match '%s': game name over %d bytes",
                       m->cp.match_id, ARB_STORE_ID_MAX);
        return ARB_EINVAL;
    }
    rec_begin(out, ARB__REC_MATCH, &at);
    arb_buf_putc(out, (char)idlen);
    arb_buf_add(out, m->cp.match_id, idlen);
    arb_buf_putc(out, (char)strlen(s->game));
    arb_buf_puts(out, s->game);
    put_str16(out, s->edition);
    put_str16(out, s->engine);
    put_str16(out, ARB_ENGINE);
    put_u16(out, s->noptions);
    for (i = 0; i < s->noptions; i++) {
        put_str16(out, s->options[i].key);
        put_str16(out, s->options[i].value);
    }
    rec_end(out, at);
    arb_event_clear(&open);
    return 0;
}

int
arb_bundle_write(arb_buf_t *out, const arb_bundle_t *b, arb_buf_t *why)
{
    const arb_bundle_match_t *m;
    size_t                    i, j, at, start = out->len;
    int                       rc;

    for (i = 0; i < b->nmatches; i++) {
        m = &b->matches[i];
        if (!m->is_signed || m->nevents == 0) {
            arb_buf_free(why);
            arb_buf_printf(why, "match '%s': %s", m->cp.match_id,
                           m->nevents == 0 ? "no events" : "not signed");
            return ARB_EINVAL;
        }
    }
    arb_buf_add(out, ARB_BUNDLE_MAGIC, ARB_BUNDLE_MAGIC_LEN);
    arb_buf_u32be(out, ARB_BUNDLE_VERSION);
    for (i = 0; i < b->nmatches; i++) {
        m = &b->matches[i];
        rc = write_match(out, m, why);
        if (rc != 0) {
            out->len = start;
            return rc;
        }
        for (j = 0; j < m->nevents; j++) {
            rec_begin(out, ARB__REC_EVENT, &at);
            arb_buf_u64be(out, m->events[j].seq);
            arb_buf_add(out, m->events[j].hash, ARB_HASH_LEN);
            arb_buf_add(out, m->events[j].bytes, m->events[j].len);
            rec_end(out, at);
        }
        rec_begin(out, ARB__REC_CHECKPOINT, &at);
        arb_buf_u64be(out, m->cp.count);
        arb_buf_add(out, m->cp.head, ARB_HASH_LEN);
        arb_buf_add(out, m->cp.pubkey, ARB_PUBKEY_LEN);
        arb_buf_add(out, m->cp.sig, ARB_SIG_LEN);
        rec_end(out, at);
    }
    rec_begin(out, ARB__REC_END, &at);
    arb_buf_u32be(out, (uint32_t)b->nmatches);
    rec_end(out, at);
    return out->oom ? ARB_ENOMEM : 0;
}

/* ---- shared by the verifier and the text exports ---------------------- */

int
arb_history_from_bundle(arb_history_t *h, const arb_bundle_match_t *m,
                        arb_buf_t *why)
{
    arb_event_t       ev;
    arb_history_rec_t rec;
    arb_buf_t         msg = ARB_BUF_INIT;
    size_t            i;
    int               rc;

    if (m->nevents == 0) {
        arb_buf_free(why);
        arb_buf_printf(why, "no events: the match has no open event");
        return ARB_ECRYPTO;
    }
    if (arb_history_name(h, "match %s", m->cp.match_id) != 0)
        return ARB_ENOMEM;
    for (i = 0; i < m->nevents; i++) {
        const arb_bundle_event_t *e = &m->events[i];
        rc = arb_event_decode(&ev, (const char *)e->bytes, e->len, &msg);
        if (rc == ARB_ENOMEM)
            goto fail;
        if (rc != 0) {
            arb_buf_free(why);
            arb_buf_printf(why, "seq %" PRIu64 ": does not decode: %s",
                           e->seq, arb_buf_cstr(&msg));
            rc = ARB_ECRYPTO;
            goto fail;
        }
        rc = ARB_ECRYPTO;
        if (ev.seq != e->seq) {
            arb_buf_free(why);
            arb_buf_printf(why, "seq %" PRIu64 ": the event inside says "
                           "seq %" PRIu64, e->seq, ev.seq);
            goto fail_ev;
        }
        if ((ev.kind == ARB_EV_OPEN) != (i == 0)) {
            arb_buf_free(why);
            if (i == 0)
                arb_buf_printf(why, "seq 0: a %s event, not the open",
                               arb_event_kind_name(ev.kind));
            else
                arb_buf_printf(why, "seq %zu: a second open event", i);
            goto fail_ev;
        }
        rec = *e;
        rec.time_ms = ev.time_ms;
        rc = arb_history_push(h, &ev, &rec);
        if (rc != 0)
            goto fail_ev;
    }
    arb_buf_free(&msg);
    return 0;

fail_ev:
    arb_event_clear(&ev);
fail:
    arb_buf_free(&msg);
    return rc;
}

int
arb__bundle_replay(arb_history_t *h, arb_match_t **out, arb_buf_t *why)
{
    arb_verdict_t v;
    arb_buf_t     line = ARB_BUF_INIT;
    size_t        bad = 0;
    int           rc;

    rc = arb_history_replay(h, UINT64_MAX, out, &bad, &v);
    if (rc == 0 || rc == ARB_ENOMEM)
        return rc;
    arb_buf_free(why);
    if (*out == NULL) {
        arb_buf_printf(why, "seq 0: the open event is refused: %s: %s",
                       v.rule, v.msg);
    } else {
        arb_transcript_event_line(&line, &h->events[bad]);
        arb_buf_printf(why, "seq %" PRIu64 " '%s' refused: %s: %s",
                       h->events[bad].seq, arb_buf_cstr(&line), v.rule,
                       v.msg);
        arb_match_free(*out);
        *out = NULL;
    }
    arb_buf_free(&line);
    return ARB_ECRYPTO;
}
