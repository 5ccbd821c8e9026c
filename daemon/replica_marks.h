/*
 * replica_marks.h - places of the stream a read replica read, kept so
 * that after NATS lost the stream's tail it reads again from the last
 * place the stream still holds, not from its first message.
 *
 * A mark is a message read: its stream sequence and the server's time of
 * it.  The stream only appends, and a tail it lost is taken again by the
 * next messages, so a mark whose sequence still holds a message of the
 * same time proves that every message up to it is the one read (nats-
 * server 2.9.10 syncs every two minutes: a node's power cut loses up to
 * that much).  A mark is taken at most once every ARB_MARKS_GAP_MS of
 * reading, so the ring spans minutes under any load, and a re-read
 * starts at most that much before what was lost.
 *
 * Used by the replica's reading thread only: no lock.
 */
#ifndef ARB_DAEMON_REPLICA_MARKS_H
#define ARB_DAEMON_REPLICA_MARKS_H

#include <stddef.h>
#include <stdint.h>

#define ARB_MARKS_MAX    256
#define ARB_MARKS_GAP_MS 1000

typedef struct arb_marks {
    uint64_t seq[ARB_MARKS_MAX];        /* ascending, oldest at first */
    int64_t  ns[ARB_MARKS_MAX];
    size_t   first, n;                  /* a ring */
    int64_t  taken_ms;                  /* when the newest was taken */
} arb_marks_t;

/* Forgets every mark (the stream was created again). */
void arb_marks_reset(arb_marks_t *k);

/* The message read at stream sequence seq, of server time ns, at now_ms
 * (a monotonic clock): kept as the newest mark when it is past the
 * newest (a consumer made anew may deliver again from earlier) and the
 * newest was taken ARB_MARKS_GAP_MS ago or more.  When the ring is full
 * the oldest goes. */
void arb_marks_note(arb_marks_t *k, uint64_t seq, int64_t ns,
                    int64_t now_ms);

/* The server time of the message now at seq: 0 and *ns, ARB_ENOTFOUND
 * (none there: deleted, or past the stream's end), or another ARB_E*
 * code when the stream did not answer. */
typedef int (*arb_marks_time_fn)(void *ud, uint64_t seq, int64_t *ns);

/* After the stream, now ending at sequence last, lost messages read:
 * the newest mark it still holds, into *seq and *ns (0 and 0: none; the
 * stream is read again from its first message).  Marks it does not hold
 * are dropped; a mark whose message is not there (an operator deleted
 * it, or it was lost) proves nothing and is passed over.  0, or the
 * time_fn's error (nothing dropped: asked again later). */
int arb_marks_held(arb_marks_t *k, uint64_t last, arb_marks_time_fn time_fn,
                   void *ud, uint64_t *seq, int64_t *ns);

/* Up to max marks to save (DATA/replica.pos), into seq and ns in
 * ascending order: the newest, then those 1, 2, 4, 8, ... before it and
 * the oldest, dense near the loss a restart may find, sparse back to the
 * oldest.
 * Their count. */
size_t arb_marks_pick(const arb_marks_t *k, uint64_t *seq, int64_t *ns,
                      size_t max);

/* Replaces the marks by the n saved ones (ascending; the rest are
 * passed over), taken as of now_ms. */
void arb_marks_load(arb_marks_t *k, const uint64_t *seq, const int64_t *ns,
                    size_t n, int64_t now_ms);

#endif
