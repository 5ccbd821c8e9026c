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

/*
 * The stream sequence of the first message the stream holds at or after
 * seq on subject (NULL: every subject of ours), as the stream's leader
 * says ($JS.API.STREAM.MSG.GET with next_by_subj; libnats 3.4 asks it
 * only of a stream that allows direct gets, which any replica answers,
 * a lagging one too): 0 in *next when it holds none.  *time_ns (may be
 * NULL) gets that message's server time (ns since the epoch; 0 when
 * none).  What tells a
 * reader that waits for nothing (the stream's last messages were
 * deleted: its last sequence stays) from one whose consumer is stuck.
 * 0, ARB_EINVAL (a subject with a quote), or arb_stream_err()'s code.
 */
int  arb_stream_next_seq(arb_stream_t *st, uint64_t seq, const char *subject,
                         uint64_t *next, int64_t *time_ns, arb_buf_t *why);

/* The stream sequence of the last message the stream holds before
 * stream sequence `before` on subject, into *prev (0: none), found with
 * arb_stream_next_seq's asks: back in doubling steps to a range that
 * holds one, then halving it (about 2 log2 of the distance, not one ask
 * per message).  0, or arb_stream_next_seq's code. */
int  arb_stream_prev_seq(arb_stream_t *st, uint64_t before,
                         const char *subject, uint64_t *prev,
                         arb_buf_t *why);

/* A reader that has heard nothing for this long asks the stream's leader
 * whether it holds more (arb_stream_next_seq), at most this often. */
#define ARB_STREAM_ASK_MS   1000
/* ... and when it does and nothing has come for this long, the reader's
 * consumer is stuck and is made again (arb_stream_reader_remade). */
#define ARB_STREAM_STALL_MS 3000

/* Starts reading subject (NULL: every subject of the stream) at stream
 * sequence `from` (0 or 1: the beginning).  A consumer whose creation
 * times out, or that nats-server placed on a replica that is not
 * current, is made again (up to four times: its peer is drawn at
 * random).  0, or arb_stream_err()'s code. */
int  arb_stream_reader_open(arb_stream_reader_t **out, arb_stream_t *st,
                            const char *subject, uint64_t from,
                            arb_buf_t *why);
void arb_stream_reader_close(arb_stream_reader_t *r);     /* NULL-safe */

/* What the stream's leader said at the last ask since the last message
 * delivered (ARB_STREAM_ASK_MS): 1 and the first sequence it holds past
 * the last one delivered in *next (0: none), or 0 when it was not asked
 * since (*next is then stale). */
int  arb_stream_reader_ahead(const arb_stream_reader_t *r, uint64_t *next);

/* How many times the reader made its consumer again because it stalled:
 * nothing delivered for ARB_STREAM_STALL_MS while the stream's leader
 * held more. */
uint64_t arb_stream_reader_remade(const arb_stream_reader_t *r);

/* How many of those times (counted in arb_stream_reader_remade too) were
 * for a skip instead: a reader of every subject (subject NULL) that is
 * handed stream sequence S after L < S - 1 asks the stream's leader
 * whether it holds one of L+1..S-1.  When it does, the consumer passed
 * over messages of the stream: nats-server placed it on a replica that
 * lacks them (one catching up after a restart, or just thawed; seen to
 * hand `arbiter restore` a history cut short, with exit status 0, until
 * 2026-12-05).  The consumer is made again from L+1 and S comes again in
 * its turn.  Sequences the leader lacks too were deleted: read past. */
uint64_t arb_stream_reader_skips(const arb_stream_reader_t *r);

/* For tests: arb_stream_reader_open(st, NULL, from) whose consumer starts
 * `late` sequences after `from`, as one on a replica lacking them would
 * deliver. */
int  arb__stream_reader_open_late(arb_stream_reader_t **out,
                                  arb_stream_t *st, uint64_t from,
                                  uint64_t late, arb_buf_t *why);

/*
 * The next message, parsed (arb_stream_msg_parse), with its stream
 * sequence, waiting at most wait_ms; when nothing came, the stream's
 * leader may be asked whether it holds more, and a stuck consumer made
 * again (ARB_STREAM_ASK_MS, ARB_STREAM_STALL_MS).  0; ARB_EAGAIN when
 * nothing came in time; ARB_EPROTO for a message that is not one of ours
 * (why names its stream sequence, as does out->stream_seq, and
 * out->time_ns its server time; the match and kind of its subject, when
 * that is an arbiter subject, are in out->match_id and out->kind, the
 * rest of *out cleared; the reader has moved past it); ARB_EIO when the
 * subscription is gone.
 */
int  arb_stream_reader_next(arb_stream_reader_t *r, arb_stream_msg_t *out,
                            int64_t wait_ms, arb_buf_t *why);

#endif
