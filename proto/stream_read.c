/*
 * stream_read.c - an ordered consumer over the whole stream
 * (proto/stream_read.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "proto/stream_read.h"

struct arb_stream_reader {
    arb_stream_t      *st;
    natsSubscription  *sub;
};

int
arb_stream_state(arb_stream_t *st, arb_stream_state_t *out, arb_buf_t *why)
{
    jsStreamInfo *si = NULL;
    jsErrCode     jerr = 0;
    natsStatus    s;

    memset(out, 0, sizeof(*out));
    s = js_GetStreamInfo(&si, st->js, st->name, NULL, &jerr);
    if (s != NATS_OK) {
        if (jerr == JSStreamNotFoundErr) {
            if (why != NULL) {
                why->len = 0;
                arb_buf_printf(why, "nats: stream %s does not exist",
                               st->name);
            }
            return ARB_ENOTFOUND;
        }
        return arb_stream_err(s, jerr, "stream info", why);
    }
    out->first = si->State.FirstSeq;
    out->last = si->State.LastSeq;
    out->msgs = si->State.Msgs;
    out->created_ns = si->Created;
    jsStreamInfo_Destroy(si);
    return 0;
}

int
arb_stream_msg_time(arb_stream_t *st, uint64_t seq, int64_t *time_ns,
                    arb_buf_t *why)
{
    natsMsg   *msg = NULL;
    jsErrCode  jerr = 0;
    natsStatus s;

    *time_ns = 0;
    s = js_GetMsg(&msg, st->js, st->name, seq, NULL, &jerr);
    if (s != NATS_OK)
        return arb_stream_err(s, jerr, "message by sequence", why);
    *time_ns = natsMsg_GetTime(msg);
    natsMsg_Destroy(msg);
    return 0;
}

int
arb_stream_bounds(arb_stream_t *st, uint64_t *first, uint64_t *last,
                  uint64_t *msgs, arb_buf_t *why)
{
    arb_stream_state_t ss;
    int                rc = arb_stream_state(st, &ss, why);

    if (rc != 0)
        return rc;
    if (first != NULL)
        *first = ss.first;
    if (last != NULL)
        *last = ss.last;
    if (msgs != NULL)
        *msgs = ss.msgs;
    return 0;
}

/*
 * Where nats-server placed the consumer just made on sub: 1 on the
 * stream's leader, or on a replica that is current (or when it cannot
 * be told: a single server, an error), 0 on a replica that is offline or
 * behind.  nats-server 2.9.10 puts an ephemeral consumer (R1) on a peer
 * of the stream drawn at random, offline or lagging ones included, and
 * it delivers from that peer's copy: on a replica catching up, or one
 * left "catching up" for good after a stale leader (docs/SCALE.md), the
 * reader waits for messages the stream holds (a restore gives up after
 * 10 s without one); on a peer that is down its creation times out
 * (arb_stream_reader_open; nats_outage.sh).
 */
static int
placed_well(arb_stream_t *st, natsSubscription *sub)
{
    jsConsumerInfo *ci = NULL;
    jsStreamInfo   *si = NULL;
    jsErrCode       jerr = 0;
    int             ok = 1, i;

    if (natsSubscription_GetConsumerInfo(&ci, sub, NULL, &jerr) != NATS_OK
        || ci->Cluster == NULL || ci->Cluster->Leader == NULL
        || js_GetStreamInfo(&si, st->js, st->name, NULL, &jerr) != NATS_OK
        || si->Cluster == NULL || si->Cluster->Leader == NULL
        || strcmp(si->Cluster->Leader, ci->Cluster->Leader) == 0)
        goto done;
    for (i = 0; i < si->Cluster->ReplicasLen; i++) {
        const jsPeerInfo *p = si->Cluster->Replicas[i];

        if (p->Name != NULL && strcmp(p->Name, ci->Cluster->Leader) == 0)
            ok = p->Current && !p->Offline;
    }
done:
    jsConsumerInfo_Destroy(ci);
    jsStreamInfo_Destroy(si);
    return ok;
}

/* Consumers made and dropped before one is placed well, at most: each
 * is drawn again at random, so four leave a one-in-81 chance of keeping
 * one on the worst of three peers (it is kept then: better slow than
 * nothing). */
#define PLACE_TRIES 4

int
arb_stream_reader_open(arb_stream_reader_t **out, arb_stream_t *st,
                       const char *subject, uint64_t from, arb_buf_t *why)
{
    arb_stream_reader_t *r;
    jsSubOptions         so;
    jsErrCode            jerr = 0;
    natsStatus           s;
    int                  tries;

    *out = NULL;
    r = calloc(1, sizeof(*r));
    if (r == NULL)
        return ARB_ENOMEM;
    r->st = st;
    jsSubOptions_Init(&so);
    so.Stream = st->name;
    so.Ordered = true;
    if (from > 1) {
        so.Config.DeliverPolicy = js_DeliverByStartSequence;
        so.Config.OptStartSeq = from;
    } else {
        so.Config.DeliverPolicy = js_DeliverAll;
    }
    for (tries = 1; ; tries++) {
        jerr = 0;
        s = js_SubscribeSync(&r->sub, st->js,
                             subject != NULL ? subject : ARB_STREAM_SUBJECTS,
                             NULL, &so, &jerr);
        /* A consumer placed on a peer that is down never answers its
         * creation: drawn again. */
        if (s == NATS_TIMEOUT && tries < PLACE_TRIES)
            continue;
        if (s != NATS_OK) {
            free(r);
            return arb_stream_err(s, jerr, "ordered consumer", why);
        }
        if (tries == PLACE_TRIES || placed_well(st, r->sub))
            break;
        natsSubscription_Unsubscribe(r->sub);
        natsSubscription_Destroy(r->sub);
        r->sub = NULL;
    }
    /* A replica may fall far behind a busy stream: never drop messages
     * for a slow reader (the ordered consumer would re-create itself, but
     * only after a stall). */
    natsSubscription_SetPendingLimits(r->sub, -1, -1);
    *out = r;
    return 0;
}

void
arb_stream_reader_close(arb_stream_reader_t *r)
{
    if (r == NULL)
        return;
    natsSubscription_Unsubscribe(r->sub);
    natsSubscription_Destroy(r->sub);
    free(r);
}

int
arb_stream_reader_next(arb_stream_reader_t *r, arb_stream_msg_t *out,
                       int64_t wait_ms, arb_buf_t *why)
{
    natsMsg       *msg = NULL;
    jsMsgMetaData *meta = NULL;
    uint64_t       sseq = 0, cseq = 0;
    int64_t        ts = 0;
    natsStatus     s;
    int            rc;

    memset(out, 0, sizeof(*out));
    s = natsSubscription_NextMsg(&msg, r->sub, wait_ms > 0 ? wait_ms : 1);
    if (s == NATS_TIMEOUT)
        return ARB_EAGAIN;
    if (s != NATS_OK)
        return arb_stream_err(s, 0, "reading the stream", why) == ARB_EAGAIN
               ? ARB_EAGAIN : ARB_EIO;
    if (natsMsg_GetMetaData(&meta, msg) == NATS_OK) {
        sseq = meta->Sequence.Stream;
        cseq = meta->Sequence.Consumer;
        ts = meta->Timestamp;
        jsMsgMetaData_Destroy(meta);
    }
    rc = arb_stream_msg_parse(out, msg, why);
    if (rc != 0) {
        if (why != NULL)
            arb_buf_printf(why, " (stream sequence %" PRIu64 ")", sseq);
        out->stream_seq = sseq;     /* a reader reads on past it */
        out->consumer_seq = cseq;
        return rc;
    }
    out->stream_seq = sseq;
    out->consumer_seq = cseq;
    out->time_ns = ts;
    return 0;
}
