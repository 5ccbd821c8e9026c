/*
 * bundle.c - building an export (a history per match, from a store or
 * the server) and writing the bundle file (docs/BUNDLE.md); the decoding
 * and replay the verifier and the text exports share.
 *
 * DESIGN: a match enters a bundle only with its chain recomputed
 * (arb_bundle_add), whatever loader filled its history -- the store's
 * (arb_history_load), the server's pages, a test -- so an exporter cannot
 * pass on a chain it never checked, and the checkpoint it signs is always
 * the head it computed.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "core/ledger/bundle_int.h"
#include "core/ledger/chain.h"
#include "core/err.h"
#include "core/replay.h"
#include "core/transcript.h"
#include "core/version.h"
#include "core/codec.h"

/* ---- building --------------------------------------------------------- */

void
arb_bundle_clear(arb_bundle_t *b)
{
    size_t i;

    if (b == NULL)
        return;
    for (i = 0; i < b->nmatches; i++)
        arb_history_clear(&b->matches[i]);
    free(b->matches);
    free(b->cps);
    memset(b, 0, sizeof(*b));
}

/* The chain of h's records recomputed: every record present, in place,
 * of a storable length, and hashing to what the source recorded. */
static int
check_chain(const arb_history_t *h, unsigned char head[ARB_HASH_LEN],
            arb_buf_t *why)
{
    const arb_history_rec_t *e;
    size_t                   i;

    for (i = 0; i <= h->nevents; i++) {
        e = &h->recs[i];
        if (!e->has_hash || e->seq != i || e->bytes == NULL) {
            arb_buf_free(why);
            arb_buf_printf(why, "an event without seq, hash or bytes");
            return ARB_ECORRUPT;
        }
        if (e->len == 0 || e->len > ARB_STORE_EVENT_MAX) {
            arb_buf_free(why);
            arb_buf_printf(why, "seq %zu: %zu bytes", i, e->len);
            return ARB_EINVAL;
        }
        arb_chain_next(i == 0 ? NULL : head, e->bytes, e->len, head);
        if (memcmp(head, e->hash, ARB_HASH_LEN) != 0) {
            arb_buf_free(why);
            arb_buf_printf(why, "hash mismatch at seq %zu", i);
            return ARB_ECORRUPT;
        }
    }
    return 0;
}

int
arb_bundle_add(arb_bundle_t *b, const char *match_id, arb_history_t *h,
               arb_buf_t *why)
{
    arb_checkpoint_t *cp;
    unsigned char     head[ARB_HASH_LEN];
    size_t            len = match_id ? strlen(match_id) : 0;
    int               rc;

    if (len == 0 || len > ARB_STORE_ID_MAX || !h->has_open
        || h->recs == NULL) {
        arb_buf_free(why);
        arb_buf_printf(why, "%s", len == 0 || len > ARB_STORE_ID_MAX
                       ? "a match id of 1 to 64 bytes" : "no events: the "
                       "match has no open event");
        return ARB_EINVAL;
    }
    rc = check_chain(h, head, why);
    if (rc != 0)
        return rc;
    if (b->nmatches == b->cap) {
        size_t            cap = b->cap ? 2 * b->cap : 4;
        arb_history_t    *nh = realloc(b->matches, cap * sizeof(*nh));
        arb_checkpoint_t *nc;

        if (nh == NULL)
            goto oom;
        b->matches = nh;
        nc = realloc(b->cps, cap * sizeof(*nc));
        if (nc == NULL)
            goto oom;
        b->cps = nc;
        b->cap = cap;
    }
    /* A bundle is the record as anyone may hold it: never the secret the
     * recorder keeps beside the log. */
    if (h->secret != NULL) {
        sodium_memzero(h->secret, strlen(h->secret));
        free(h->secret);
        h->secret = NULL;
    }
    cp = &b->cps[b->nmatches];
    memset(cp, 0, sizeof(*cp));
    memcpy(cp->match_id, match_id, len + 1);
    cp->count = h->nevents + 1;
    memcpy(cp->head, head, ARB_HASH_LEN);
    b->matches[b->nmatches++] = *h;
    memset(h, 0, sizeof(*h));
    return 0;

oom:
    arb_buf_free(why);
    arb_buf_printf(why, "out of memory");
    return ARB_ENOMEM;
}

/* why as "match 'M': stored events: WHY". */
static void
say_stored(arb_buf_t *why, const char *match_id)
{
    arb_buf_t tmp = ARB_BUF_INIT;

    arb_buf_printf(&tmp, "match '%s': stored events: %s", match_id,
                   arb_buf_cstr(why) ? arb_buf_cstr(why) : "");
    arb_buf_free(why);
    *why = tmp;
}

int
arb_bundle_from_store(arb_bundle_t *b, arb_store_t *s, const char *match_id,
                      uint64_t count, arb_buf_t *why)
{
    arb_history_t    h;
    arb_match_info_t info;
    size_t           n;
    int              rc;

    rc = arb_store_match(s, match_id, &info, why);
    if (rc != 0)
        return rc;
    if (count == 0) {
        arb_buf_free(why);
        arb_buf_printf(why, "match '%s': a checkpoint of 0 events",
                       match_id);
        return ARB_EINVAL;
    }
    memset(&h, 0, sizeof(h));
    rc = arb_history_load(&h, s, match_id,
                          count == UINT64_MAX ? UINT64_MAX : count - 1, why);
    n = h.has_open ? h.nevents + 1 : 0;
    if (rc == 0 && count != UINT64_MAX && n != count) {
        arb_buf_free(why);
        arb_buf_printf(why, "match '%s' has %zu events, not %" PRIu64,
                       match_id, n, count);
        rc = ARB_ENOTFOUND;
    }
    if (rc == 0 && n == 0) {
        arb_buf_free(why);
        arb_buf_printf(why, "match '%s' has no events", match_id);
        rc = ARB_ECORRUPT;
    }
    if (rc == 0)
        rc = arb_bundle_add(b, match_id, &h, why);
    if (rc == ARB_ECORRUPT || rc == ARB_EPROTO)     /* say where */
        say_stored(why, match_id);
    arb_history_clear(&h);
    return rc;
}

void
arb_bundle_sign(arb_bundle_t *b, size_t i, const arb_keypair_t *kp)
{
    arb_checkpoint_sign(&b->cps[i], kp);
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
write_match(arb_buf_t *out, const arb_history_t *h,
            const arb_checkpoint_t *cp, arb_buf_t *why)
{
    const arb_setup_t *s = h->open.setup;
    size_t             at, i, idlen = strlen(cp->match_id);

    if (h->open.kind != ARB_EV_OPEN || s == NULL) {
        arb_buf_free(why);
        arb_buf_printf(why, "match '%s': seq 0 is not a valid open event",
                       cp->match_id);
        return ARB_EINVAL;
    }
    if (strlen(s->game) > ARB_STORE_ID_MAX) {
        arb_buf_free(why);
        arb_buf_printf(why, "match '%s': game name over %d bytes",
                       cp->match_id, ARB_STORE_ID_MAX);
        return ARB_EINVAL;
    }
    rec_begin(out, ARB__REC_MATCH, &at);
    arb_buf_putc(out, (char)idlen);
    arb_buf_add(out, cp->match_id, idlen);
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
    return 0;
}

int
arb_bundle_write(arb_buf_t *out, const arb_bundle_t *b, arb_buf_t *why)
{
    const arb_history_t    *h;
    const arb_checkpoint_t *cp;
    size_t                  i, j, at, start = out->len;
    int                     rc;

    for (i = 0; i < b->nmatches; i++) {
        if (!b->cps[i].is_signed || !b->matches[i].has_open) {
            arb_buf_free(why);
            arb_buf_printf(why, "match '%s': %s", b->cps[i].match_id,
                           !b->matches[i].has_open ? "no events"
                           : "not signed");
            return ARB_EINVAL;
        }
    }
    arb_buf_add(out, ARB_BUNDLE_MAGIC, ARB_BUNDLE_MAGIC_LEN);
    arb_buf_u32be(out, ARB_BUNDLE_VERSION);
    for (i = 0; i < b->nmatches; i++) {
        h = &b->matches[i];
        cp = &b->cps[i];
        rc = write_match(out, h, cp, why);
        if (rc != 0) {
            out->len = start;
            return rc;
        }
        for (j = 0; j <= h->nevents; j++) {
            rec_begin(out, ARB__REC_EVENT, &at);
            arb_buf_u64be(out, h->recs[j].seq);
            arb_buf_add(out, h->recs[j].hash, ARB_HASH_LEN);
            arb_buf_add(out, h->recs[j].bytes, h->recs[j].len);
            rec_end(out, at);
        }
        rec_begin(out, ARB__REC_CHECKPOINT, &at);
        arb_buf_u64be(out, cp->count);
        arb_buf_add(out, cp->head, ARB_HASH_LEN);
        arb_buf_add(out, cp->pubkey, ARB_PUBKEY_LEN);
        arb_buf_add(out, cp->sig, ARB_SIG_LEN);
        rec_end(out, at);
    }
    rec_begin(out, ARB__REC_END, &at);
    arb_buf_u32be(out, (uint32_t)b->nmatches);
    rec_end(out, at);
    return out->oom ? ARB_ENOMEM : 0;
}

/* ---- shared by the verifier and the text exports ---------------------- */

void
arb__bundle_file_clear(arb__bundle_file_t *f)
{
    size_t i;

    if (f == NULL)
        return;
    for (i = 0; i < f->nsections; i++) {
        arb__bundle_section_t *sec = &f->sections[i];
        arb_setup_clear(&sec->profile);
        free(sec->exporter);
    }
    free(f->sections);
    memset(f, 0, sizeof(*f));
}

int
arb__bundle_recs(const arb__bundle_section_t *sec, arb_history_rec_t **recs,
                 size_t *cap)
{
    const unsigned char *p = sec->ev, *body;
    const unsigned char *end = sec->ev != NULL ? sec->ev + sec->evlen
                                               : NULL;
    arb_history_rec_t   *e;
    size_t               i, rlen;

    if (sec->nrecs > *cap) {
        e = realloc(*recs, sec->nrecs * sizeof(*e));
        if (e == NULL)
            return ARB_ENOMEM;
        *recs = e;
        *cap = sec->nrecs;
    }
    for (i = 0; i < sec->nrecs; i++, p = body + rlen) {
        if ((size_t)(end - p) < ARB__REC_HDR || p[0] != ARB__REC_EVENT)
            return ARB_ECRYPTO;
        rlen = (size_t)arb_load_be(p + 1, 4);
        body = p + ARB__REC_HDR;
        if (rlen < ARB__EVENT_FIXED || rlen > (size_t)(end - body))
            return ARB_ECRYPTO;
        e = &(*recs)[i];
        e->seq = arb_load_be64(body);
        e->time_ms = 0;
        e->has_hash = 1;
        memcpy(e->hash, body + 8, ARB_HASH_LEN);
        /* Borrowed from the file's bytes (bundle_int.h). */
        e->bytes = (unsigned char *)(uintptr_t)(body + ARB__EVENT_FIXED);
        e->len = rlen - ARB__EVENT_FIXED;
    }
    return 0;
}

int
arb__bundle_history(arb_history_t *h, const arb__bundle_section_t *sec,
                    arb_buf_t *why)
{
    arb_event_t        ev;
    arb_history_rec_t  rec, *recs = NULL;
    arb_buf_t          msg = ARB_BUF_INIT;
    size_t             i, cap = 0;
    int                rc;

    if (sec->nrecs == 0) {
        arb_buf_free(why);
        arb_buf_printf(why, "no events: the match has no open event");
        return ARB_ECRYPTO;
    }
    if (arb_history_name(h, "match %s", sec->cp.match_id) != 0)
        return ARB_ENOMEM;
    rc = arb__bundle_recs(sec, &recs, &cap);
    if (rc == ARB_ECRYPTO) {
        arb_buf_free(why);
        arb_buf_printf(why, "%s", ARB__BUNDLE_CHANGED);
    }
    if (rc != 0) {
        free(recs);
        return rc;
    }
    for (i = 0; i < sec->nrecs; i++) {
        const arb_history_rec_t *e = &recs[i];
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
    free(recs);
    arb_buf_free(&msg);
    return 0;

fail_ev:
    arb_event_clear(&ev);
fail:
    free(recs);
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
    if (rc == ARB_ESEALED) {
        /* Not a refusal: the log is sound, only not judgeable yet. */
        arb_buf_puts(why, v.msg);
    } else if (*out == NULL) {
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
