/*
 * stream_read.h - reading the replicated record back, in stream order
 * (docs/REPLICA.md): `arbiter restore --nats` and `arbiterd --replica-of`.
 *
 * DESIGN: an ordered consumer (ephemeral, no acks, flow control and
 * heartbeats by libnats, re-created by libnats from the last delivered
 * sequence after a gap or a reconnect) rather than a durable one: the
 * reader's own store is its cursor, so nothing has to live on the server
 * for it, nothing is left behind when a replica goes away, and any
 * number of replicas and restores read without coordinating.  Messages
 * come in stream order over every subject, which is commit order per
 * recorder.
 *
 * Ownership: the reader borrows st (which must outlive it).  Messages
 * handed out are the caller's (arb_stream_msg_clear).
 */
#ifndef ARB_PROTO_STREAM_READ_H
#define ARB_PROTO_STREAM_READ_H

#include <stdint.h>

#include "core/buf.h"
#include "proto/stream.h"

typedef struct arb_stream_reader arb_stream_reader_t;

/* What the server says of the stream now.  created_ns tells one stream
 * from another of the same name (deleted and created again). */
typedef struct arb_stream_state {
    uint64_t first, last, msgs;
    int64_t  created_ns;
} arb_stream_state_t;

/* 0, or the codes of arb_stream_bounds. */
int  arb_stream_state(arb_stream_t *st, arb_stream_state_t *out,
                      arb_buf_t *why);

/* The stream's first and last sequence and its message count now (any
 * pointer may be NULL).  ARB_ENOTFOUND when the stream does not exist;
 * ARB_EAGAIN no responders / timeout; ARB_EIO otherwise. */
int  arb_stream_bounds(arb_stream_t *st, uint64_t *first, uint64_t *last,
                       uint64_t *msgs, arb_buf_t *why);

/* The server's time (ns since the epoch) of the message at stream
 * sequence seq: with the sequence, what tells that message from another
 * put at the same sequence after the stream lost its tail.  0;
 * ARB_ENOTFOUND when the stream holds no message there; otherwise
 * arb_stream_err()'s code. */
int  arb_stream_msg_time(arb_stream_t *st, uint64_t seq, int64_t *time_ns,
                         arb_buf_t *why);

/* Starts reading subject (NULL: every subject of the stream) at stream
 * sequence `from` (0 or 1: the beginning).  A consumer whose creation
 * times out, or that nats-server placed on a replica that is not
 * current, is made again (up to four times: its peer is drawn at
 * random).  0, or arb_stream_err()'s code. */
int  arb_stream_reader_open(arb_stream_reader_t **out, arb_stream_t *st,
                            const char *subject, uint64_t from,
                            arb_buf_t *why);
void arb_stream_reader_close(arb_stream_reader_t *r);     /* NULL-safe */

/*
 * The next message, parsed (arb_stream_msg_parse), with its stream
 * sequence, waiting at most wait_ms.  0; ARB_EAGAIN when nothing came in
 * time; ARB_EPROTO for a message that is not one of ours (why names its
 * stream sequence, as does out->stream_seq, the rest of *out cleared; the
 * reader has moved past it); ARB_EIO when the subscription is gone.
 */
int  arb_stream_reader_next(arb_stream_reader_t *r, arb_stream_msg_t *out,
                            int64_t wait_ms, arb_buf_t *why);

#endif
