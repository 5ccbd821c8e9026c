/*
 * replica_pos.h - DATA/replica.pos, where a read replica's next start
 * reads the stream from (docs/REPLICA.md, "Where a restart reads from").
 *
 * The text, four lines and up to ARB_REPLICA_POS_MARKS more, each ending
 * in a newline:
 *   stream NAME CREATED   the stream read: its name, and its creation
 *                         time (ns since the epoch), which tells it from
 *                         a stream of the same name created again
 *   read L TIME           the last message read: its stream sequence and
 *                         the server's time of it (ns), which tell it
 *                         from a message put at L after the stream lost
 *                         its tail
 *   from S                every message before sequence S is in this
 *                         store or needs nothing kept
 *                         (arb_mirror_resume_seq); S <= L + 1
 *   store P               the store's log position then: a store that
 *                         holds less now (put back from a backup) cannot
 *                         hold all S says
 *   mark M TIME           (0 or more, ascending, each M <= L) places read
 *                         before L (daemon/replica_marks.h): when the
 *                         stream no longer holds L as it was (it lost its
 *                         tail while the replica was stopped), the read
 *                         starts after the newest one it still holds, or
 *                         at S if that comes first
 * The file is advice: a replica that cannot use it (none, unreadable,
 * another stream, a stream that holds none of L and the marks as they
 * were, a store that holds less) reads the whole stream, which is always
 * correct, and says why.  (A file with marks, written since 2026-12-04,
 * is refused by older replicas, which then read the whole stream.)
 */
#ifndef ARB_DAEMON_REPLICA_POS_H
#define ARB_DAEMON_REPLICA_POS_H

#include <stdint.h>

#include "core/buf.h"
#include "proto/stream.h"

#define ARB_REPLICA_POS_FILE "replica.pos"
#define ARB_REPLICA_POS_MARKS 10

typedef struct arb_replica_pos {
    char     stream[ARB_STREAM_NAME_MAX + 1];
    int64_t  created_ns;
    uint64_t last;          /* L, >= 1 */
    int64_t  last_ns;
    uint64_t from;          /* S, 1 <= S <= L + 1 */
    uint64_t store_pos;     /* P */
    size_t   nmarks;
    uint64_t mark_seq[ARB_REPLICA_POS_MARKS];   /* ascending, <= L */
    int64_t  mark_ns[ARB_REPLICA_POS_MARKS];
} arb_replica_pos_t;

/* 0, or ARB_ECORRUPT with why naming the line. */
int  arb_replica_pos_parse(arb_replica_pos_t *p, const char *text,
                           size_t len, arb_buf_t *why);
int  arb_replica_pos_format(arb_buf_t *out, const arb_replica_pos_t *p);
/* 0; ARB_ENOTFOUND when there is no file; ARB_ECORRUPT or ARB_EIO with
 * why naming the path and what is wrong. */
int  arb_replica_pos_load(arb_replica_pos_t *p, const char *path,
                          arb_buf_t *why);
/* Replaces the file (core/smallfile.h).  0, or -1 with errno. */
int  arb_replica_pos_save(const char *path, const arb_replica_pos_t *p);

/* 1 when saved (NULL: none) is of this store and this stream: the
 * store's log position store_pos not below P, the same stream name and
 * creation time, and its message L still there at the same time
 * (last_ns: the server's time of sequence saved->last now, 0 when it
 * holds none): the read then starts at saved->from.  2 when all of that
 * holds but message L: the stream lost its tail, and a mark may still
 * hold.  Else 0: the read starts at 1.  With 0 or 2, why (when not
 * NULL) says why not. */
int  arb_replica_pos_holds(const arb_replica_pos_t *saved,
                           uint64_t store_pos, const char *stream,
                           int64_t created_ns, int64_t last_ns,
                           arb_buf_t *why);

#endif
