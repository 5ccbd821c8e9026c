/*
 * replica_lag.h - how far a read replica is behind its stream, from what
 * it has read and what the stream's leader said (docs/REPLICA.md,
 * "How far behind").
 *
 * The stream's last sequence alone over-counts: messages deleted at its
 * end (a purge, a foreign message taken out by hand) keep it where it
 * was, and a replica that has read everything the stream holds would
 * look behind for good.  So the leader's answer to "what do you hold past
 * what was read" (arb_stream_next_seq) settles it: when it held nothing
 * past `settled_read` while the stream's last sequence was
 * `settled_head`, the replica is caught up until that last sequence
 * grows.  Pure: the caller gathers the inputs.
 */
#ifndef ARB_DAEMON_REPLICA_LAG_H
#define ARB_DAEMON_REPLICA_LAG_H

#include <stdint.h>

typedef struct arb_replica_lag_in {
    uint64_t head;          /* the stream's last sequence (0: not known) */
    uint64_t read;          /* the last sequence read */
    uint64_t settled_read;  /* the leader held nothing past this... */
    uint64_t settled_head;  /* ...while the stream's last was this (0:
                               never said) */
    int64_t  unread_ns;     /* server time of the first message not read
                               (0: not known) */
    int64_t  now_ns;        /* the wall clock now */
} arb_replica_lag_in_t;

/* Sequences the stream holds past what was read (deleted ones count
 * until a message after them is read or the leader says none is left)
 * and the age in ms of the oldest message not read (0 when caught up or
 * not known; never negative, whatever the clocks say). */
static inline void
arb_replica_lag(const arb_replica_lag_in_t *in, uint64_t *behind,
                uint64_t *lag_ms)
{
    *behind = 0;
    *lag_ms = 0;
    if (in->head <= in->read)
        return;
    if (in->settled_head != 0 && in->head <= in->settled_head
        && in->read >= in->settled_read)
        return;
    *behind = in->head - in->read;
    if (in->unread_ns > 0 && in->now_ns > in->unread_ns)
        *lag_ms = (uint64_t)(in->now_ns - in->unread_ns) / 1000000;
}

#endif
