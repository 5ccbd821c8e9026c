/*
 * stream_read.c - an ordered consumer over the whole stream
 * (proto/stream_read.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "core/clock.h"
#include "core/err.h"
#include "proto/stream_read.h"
#include "proto/stream_time.h"

struct arb_stream_reader {
    arb_stream_t      *st;
    natsSubscription  *sub;
    char              *subject;     /* the filter; NULL: every subject */
    uint64_t           at;          /* the last stream seq delivered */
    int64_t            heard_ms;    /* when a message last came */
    int64_t            asked_ms;    /* when the leader was last asked */
    uint64_t           ahead;       /* its answer: the next seq it holds */
    int                ahead_known; /* asked since the last message */
    uint64_t           remade;      /* consumers made again on a stall */
    uint64_t           skips;       /* ... of them, after a skip */
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

int
arb_stream_next_seq(arb_stream_t *st, uint64_t seq, const char *subject,
                    uint64_t *next, int64_t *time_ns, arb_buf_t *why)
{
    char          subj[ARB_STREAM_NAME_MAX + 32], body[300];
    natsMsg      *reply = NULL;
    json_t       *doc = NULL, *e, *m;
    json_error_t  jerr;
    natsStatus    s;
    int           rc = ARB_EIO;

    *next = 0;
    if (time_ns != NULL)
        *time_ns = 0;
    if (subject == NULL)
        subject = ARB_STREAM_SUBJECTS;
    if (strpbrk(subject, "\"\\") != NULL
        || (size_t)snprintf(body, sizeof(body), "{\"seq\":%" PRIu64
                            ",\"next_by_subj\":\"%s\"}", seq > 0 ? seq : 1,
                            subject) >= sizeof(body))
        return ARB_EINVAL;
    snprintf(subj, sizeof(subj), "$JS.API.STREAM.MSG.GET.%s", st->name);
    s = natsConnection_RequestString(&reply, st->nc, subj, body,
                                     st->timeout_ms);
    if (s != NATS_OK)
        return arb_stream_err(s, 0, "next message", why);
    doc = json_loadb(natsMsg_GetData(reply),
                     (size_t)natsMsg_GetDataLength(reply), 0, &jerr);
    e = json_object_get(doc, "error");
    m = json_object_get(json_object_get(doc, "message"), "seq");
    if (e != NULL && json_integer_value(json_object_get(e, "err_code"))
                     == JSNoMessageFoundErr) {
        rc = 0;                     /* it holds none */
    } else if (e != NULL) {
        rc = arb_stream_err(NATS_ERR, (jsErrCode)json_integer_value(
                                json_object_get(e, "err_code")),
                            "next message", why);
        if (why != NULL)
            arb_buf_printf(why, ": %s", json_string_value(
                               json_object_get(e, "description")));
    } else if (json_is_integer(m) && json_integer_value(m) >= (json_int_t)
               (seq > 0 ? seq : 1)) {
        *next = (uint64_t)json_integer_value(m);
        if (time_ns != NULL)
            *time_ns = arb_stream_time_ns(json_string_value(json_object_get(
                           json_object_get(doc, "message"), "time")));
        rc = 0;
    } else if (why != NULL) {
        why->len = 0;
        arb_buf_printf(why, "nats: next message: an answer without a "
                       "sequence at or past %" PRIu64, seq);
    }
    json_decref(doc);
    natsMsg_Destroy(reply);
    return rc;
}

/* One ask of arb_stream_prev_seq: the subject's first message at or past
 * lo is below *hi (a later one than *at), or [lo, *hi) holds none. */
static int
prev_probe(arb_stream_t *st, const char *subject, uint64_t lo,
           uint64_t *at, uint64_t *hi, arb_buf_t *why)
{
    uint64_t n;
    int      rc = arb_stream_next_seq(st, lo, subject, &n, NULL, why);

    if (rc == 0 && n != 0 && n < *hi)
        *at = n;
    else if (rc == 0)
        *hi = lo;
    return rc;
}

int
arb_stream_prev_seq(arb_stream_t *st, uint64_t before, const char *subject,
                    uint64_t *prev, arb_buf_t *why)
{
    uint64_t hi = before, step = 16, at = 0;
    int      rc = 0;

    *prev = 0;
    /* Back in doubling steps to a range [lo, hi) that holds one: none is
     * at or past hi (below `before`). */
    while (rc == 0 && at == 0 && hi > 1) {
        rc = prev_probe(st, subject, hi > step ? hi - step : 1, &at, &hi,
                        why);
        if (step < (UINT64_C(1) << 62))
            step *= 2;
    }
    /* Then halving [at, hi): the last one is at or past at. */
    while (rc == 0 && at != 0 && at + 1 < hi)
        rc = prev_probe(st, subject, at + (hi - at) / 2, &at, &hi, why);
    if (rc == 0)
        *prev = at;
    return rc;
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

/* Makes r's consumer, delivering from stream sequence `from`, into *out:
 * one that is placed well if it can (placed_well). */
static int
consumer_make(arb_stream_reader_t *r, uint64_t from, natsSubscription **out,
              arb_buf_t *why)
{
    jsSubOptions so;
    jsErrCode    jerr = 0;
    natsStatus   s;
    int          tries;

    *out = NULL;
    jsSubOptions_Init(&so);
    so.Stream = r->st->name;
    so.Ordered = true;
    if (from > 1) {
        so.Config.DeliverPolicy = js_DeliverByStartSequence;
        so.Config.OptStartSeq = from;
    } else {
        so.Config.DeliverPolicy = js_DeliverAll;
    }
    for (tries = 1; ; tries++) {
        jerr = 0;
        s = js_SubscribeSync(out, r->st->js, r->subject != NULL ? r->subject
                             : ARB_STREAM_SUBJECTS, NULL, &so, &jerr);
        /* A consumer placed on a peer that is down never answers its
         * creation: drawn again. */
        if (s == NATS_TIMEOUT && tries < PLACE_TRIES)
            continue;
        if (s != NATS_OK) {
            *out = NULL;
            return arb_stream_err(s, jerr, "ordered consumer", why);
        }
        if (tries == PLACE_TRIES || placed_well(r->st, *out))
            break;
        natsSubscription_Unsubscribe(*out);
        natsSubscription_Destroy(*out);
        *out = NULL;
    }
    /* A replica may fall far behind a busy stream: never drop messages
     * for a slow reader (the ordered consumer would re-create itself, but
     * only after a stall). */
    natsSubscription_SetPendingLimits(*out, -1, -1);
    return 0;
}

static int
reader_open(arb_stream_reader_t **out, arb_stream_t *st, const char *subject,
            uint64_t from, uint64_t late, arb_buf_t *why)
{
    arb_stream_reader_t *r;
    int                  rc;

    *out = NULL;
    r = calloc(1, sizeof(*r));
    if (r == NULL)
        return ARB_ENOMEM;
    r->st = st;
    if (subject != NULL && (r->subject = strdup(subject)) == NULL) {
        free(r);
        return ARB_ENOMEM;
    }
    r->at = from > 1 ? from - 1 : 0;
    r->heard_ms = arb_clock_ms();
    rc = consumer_make(r, (from > 1 ? from : 1) + late, &r->sub, why);
    if (rc != 0) {
        arb_stream_reader_close(r);
        return rc;
    }
    *out = r;
    return 0;
}

int
arb_stream_reader_open(arb_stream_reader_t **out, arb_stream_t *st,
                       const char *subject, uint64_t from, arb_buf_t *why)
{
    return reader_open(out, st, subject, from, 0, why);
}

int
arb__stream_reader_open_late(arb_stream_reader_t **out, arb_stream_t *st,
                             uint64_t from, uint64_t late, arb_buf_t *why)
{
    return reader_open(out, st, NULL, from, late, why);
}

void
arb_stream_reader_close(arb_stream_reader_t *r)
{
    if (r == NULL)
        return;
    if (r->sub != NULL) {
        natsSubscription_Unsubscribe(r->sub);
        natsSubscription_Destroy(r->sub);
    }
    free(r->subject);
    free(r);
}

/*
 * Nothing came for ARB_STREAM_ASK_MS: does the stream hold more?  Its
 * leader is asked (arb_stream_next_seq, at most once per
 * ARB_STREAM_ASK_MS).  When it does and nothing has come for
 * ARB_STREAM_STALL_MS, the consumer is stuck: nats-server placed it on a
 * replica that lags (libnats' heartbeats go on from there, so libnats
 * never makes it again) or on one that is gone (libnats makes it again
 * only after two missed heartbeats: 10-20 s, drawn at random again).
 * It is made again from the sequence after the last one delivered; the
 * old one is dropped once the new one is there.  What the leader said
 * is kept for arb_stream_reader_ahead: a stream whose last messages were
 * deleted ends before its last sequence.
 */
static void
look_ahead(arb_stream_reader_t *r)
{
    natsSubscription *sub = NULL;
    int64_t           now = arb_clock_ms();
    uint64_t          next;

    if (now - r->heard_ms < ARB_STREAM_ASK_MS
        || now - r->asked_ms < ARB_STREAM_ASK_MS)
        return;
    r->asked_ms = now;
    if (arb_stream_next_seq(r->st, r->at + 1, r->subject, &next, NULL,
                            NULL) != 0)
        return;                 /* no leader now: asked again later */
    r->ahead = next;
    r->ahead_known = 1;
    if (next == 0 || now - r->heard_ms < ARB_STREAM_STALL_MS)
        return;
    if (consumer_make(r, r->at + 1, &sub, NULL) != 0)
        return;                 /* tried again at the next ask */
    natsSubscription_Unsubscribe(r->sub);
    natsSubscription_Destroy(r->sub);
    r->sub = sub;
    r->heard_ms = now;
    r->remade++;
}

/*
 * The consumer handed out stream sequence sseq after r->at, and r->at + 1
 * < sseq (arb_stream_reader_skips): does the stream's leader hold one of
 * the sequences between?  When it does, or cannot be asked, the consumer
 * is made again from r->at + 1 and 1 is returned: the caller drops the
 * message, which comes again.  0 when the leader lacks them all (deleted
 * from the stream), and also when no consumer can be made now (the
 * message is then taken: the reader reads on as it did before the check).
 * Only for a reader of every subject: one filtered to a subject passes
 * over the other subjects' sequences at every message.
 */
static int
skipped(arb_stream_reader_t *r, uint64_t sseq)
{
    natsSubscription *sub = NULL;
    uint64_t          next = 0;

    if (r->subject != NULL || sseq <= r->at + 1)
        return 0;
    if (arb_stream_next_seq(r->st, r->at + 1, NULL, &next, NULL, NULL) == 0
        && (next == 0 || next >= sseq))
        return 0;
    if (consumer_make(r, r->at + 1, &sub, NULL) != 0)
        return 0;
    natsSubscription_Unsubscribe(r->sub);
    natsSubscription_Destroy(r->sub);
    r->sub = sub;
    r->heard_ms = arb_clock_ms();
    r->remade++;
    r->skips++;
    return 1;
}

uint64_t
arb_stream_reader_skips(const arb_stream_reader_t *r)
{
    return r->skips;
}

int
arb_stream_reader_ahead(const arb_stream_reader_t *r, uint64_t *next)
{
    *next = r->ahead;
    return r->ahead_known;
}

uint64_t
arb_stream_reader_remade(const arb_stream_reader_t *r)
{
    return r->remade;
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
    char           id[ARB_STREAM_ID_MAX + 1];
    int            rc, kind;

    memset(out, 0, sizeof(*out));
    s = natsSubscription_NextMsg(&msg, r->sub, wait_ms > 0 ? wait_ms : 1);
    if (s == NATS_TIMEOUT) {
        look_ahead(r);
        return ARB_EAGAIN;
    }
    if (s != NATS_OK)
        return arb_stream_err(s, 0, "reading the stream", why) == ARB_EAGAIN
               ? ARB_EAGAIN : ARB_EIO;
    if (natsMsg_GetMetaData(&meta, msg) == NATS_OK) {
        sseq = meta->Sequence.Stream;
        cseq = meta->Sequence.Consumer;
        ts = meta->Timestamp;
        jsMsgMetaData_Destroy(meta);
    }
    if (skipped(r, sseq)) {
        natsMsg_Destroy(msg);
        return ARB_EAGAIN;
    }
    r->heard_ms = arb_clock_ms();
    r->ahead_known = 0;
    if (sseq > r->at)
        r->at = sseq;
    kind = arb_stream_subject_parse(natsMsg_GetSubject(msg), id,
                                    sizeof(id));
    rc = arb_stream_msg_parse(out, msg, why);
    if (rc != 0) {
        if (why != NULL)
            arb_buf_printf(why, " (stream sequence %" PRIu64 ")", sseq);
        out->stream_seq = sseq;     /* a reader reads on past it */
        out->consumer_seq = cseq;
        out->time_ns = ts;
        if (kind >= 0) {            /* the subject it was put on */
            out->kind = kind;
            memcpy(out->match_id, id, sizeof(out->match_id));
        }
        return rc;
    }
    out->stream_seq = sseq;
    out->consumer_seq = cseq;
    out->time_ns = ts;
    return 0;
}
