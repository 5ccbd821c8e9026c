/*
 * journal.h - the store's write-ahead journal: what makes an append
 * durable with ONE flush.
 *
 * The log's LMDB environment commits without flushing (MDB_NOSYNC); each
 * batch is then written here as one block and flushed once (fdatasync),
 * and only then acknowledged.  Every few tens of milliseconds a
 * checkpoint flushes the LMDB file and records here the meta page of a
 * snapshot that is now wholly on the disk; the store keeps that snapshot
 * pinned (a read transaction) so LMDB never reuses its pages.  After a
 * crash the store puts that meta page back and re-applies the batches
 * journalled past it (docs/STORE.md, "The journal").
 *
 * Files: DIR/wal.0 and DIR/wal.1, used in turns ("laps").  A lap begins
 * with a checkpoint at offset 0; blocks follow, each with a running
 * number (lsn) and a BLAKE2b checksum, so a torn or stale block ends the
 * lap's valid run.  A lap is only begun once a checkpoint covers every
 * batch of the other file, so recovery reads the newer lap alone.  The
 * writer holds an exclusive flock on wal.0 for the handle's life: a
 * read-only opener that can take it knows that no writer is alive.
 *
 * Blocks are opaque to this module: the store gives the payload of a
 * batch (its records) and of a checkpoint (the LMDB meta page).
 * Not thread-safe: the store calls it under its writer lock.
 */
#ifndef ARB_JOURNAL_H
#define ARB_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"

#define ARB_JOURNAL_META  256           /* bytes kept of a meta page */

typedef struct arb_journal arb_journal_t;

/* A checkpoint: LMDB transaction `txnid`, whose snapshot holds the log
 * up to position `last`, and the first bytes of its meta page. */
typedef struct arb_journal_ckpt {
    uint64_t      txnid;
    uint64_t      last;
    unsigned char meta[ARB_JOURNAL_META];
    int           clean;    /* written at a clean close; read back as 1
                               only when nothing followed it */
} arb_journal_ckpt_t;

typedef struct arb_journal_stats {
    uint64_t batches;       /* batch blocks written */
    uint64_t bytes;         /* bytes of every block written */
    uint64_t ckpts;         /* checkpoint blocks written */
    uint64_t laps;          /* laps begun */
    uint64_t grows;         /* file extensions (zero-filled, flushed) */
    uint64_t lap_bytes;     /* bytes of the current lap */
} arb_journal_stats_t;

/*
 * Opens DIR/wal.0 and wal.1.  Writable (`writer`): creates them when
 * missing and takes the exclusive lock, ARB_EAGAIN when another process
 * holds it.  Read-only: ARB_ENOTFOUND when there is no journal (a store
 * of an earlier format); *live (may be NULL) is then set to 1 when a
 * writer holds the lock (its lap is in progress: leave it alone), else
 * the shared lock is taken for the handle's life.  *out owns the handle.
 */
int  arb_journal_open(arb_journal_t **out, const char *dir, int writer,
                      int *live, arb_buf_t *why);
void arb_journal_close(arb_journal_t *j);       /* NULL-safe */

/*
 * Reads the newer lap: *have is 1 when it holds a checkpoint (*ck the
 * last one), 0 when the journal has never been written.  Then cb gets
 * each batch of the lap past ck->last, in order (first position, record
 * count, payload); a batch that does not follow the previous one, or
 * starts past ck->last + 1, is ARB_ECORRUPT.  Nothing past the valid run
 * is given: it was never flushed, so never acknowledged.  cb's non-zero
 * return stops the scan and is returned.  A writer then continues after
 * the valid run.
 */
typedef int (*arb_journal_batch_cb)(void *ud, uint64_t first, uint32_t count,
                                    const unsigned char *p, size_t len);
int  arb_journal_recover(arb_journal_t *j, int *have, arb_journal_ckpt_t *ck,
                         arb_journal_batch_cb cb, void *ud, arb_buf_t *why);

/* Makes room for a batch of len payload bytes, extending the file when
 * it can: ARB_EAGAIN and ARB_EFULL as for arb_journal_append, without
 * writing anything. */
int  arb_journal_reserve(arb_journal_t *j, size_t len, arb_buf_t *why);

/*
 * Writes one batch (records first..first+count-1, payload p) and flushes
 * it: 0 means it is on the disk.  ARB_EAGAIN: the lap is full and the
 * other file still holds batches no checkpoint covers; checkpoint, begin
 * a new lap, and write again.  ARB_EFULL (no space to extend the file)
 * before anything of the batch is written.  Any other failure is final:
 * after a failed write or flush the handle refuses everything (never
 * retry an fsync).
 */
int  arb_journal_append(arb_journal_t *j, uint64_t first, uint32_t count,
                        const void *p, size_t len, arb_buf_t *why);

/*
 * Records a checkpoint (the LMDB file must already be flushed up to it):
 * appended to the current lap, or, with new_lap, written at the start of
 * the other file, which begins a lap (the batches of the current lap must
 * all be covered by ck).  Flushed before it returns.  ARB_EINVAL for a
 * checkpoint older (transaction or position) than the last recorded.
 */
int  arb_journal_checkpoint(arb_journal_t *j, const arb_journal_ckpt_t *ck,
                            int new_lap, arb_buf_t *why);

/*
 * Growing ahead of the appends, so that they seldom extend a file
 * themselves (zeros written and flushed while they wait).  Under the
 * caller's lock, arb_journal_grow_plan says whether the current file is
 * below the cap and more than half used (a file under a step) or less
 * than a step from full: 1 with the range to fill.
 * arb_journal_grow_fill writes and flushes its zeros, through the
 * handle's second descriptions of the files, and may run without the
 * lock, beside appends: they write within the size the handle knows, and
 * one that must grow the file waits for the fill (and fails when the
 * fill failed).  arb_journal_grow_done, under the lock again, makes the
 * range usable (rc 0), gives it back (ARB_EFULL), or fails the handle.
 * Every arb_journal_grow_plan that returns 1 must be followed by its
 * arb_journal_grow_fill.
 */
int  arb_journal_grow_plan(arb_journal_t *j, int *f, uint64_t *from,
                           uint64_t *to);
int  arb_journal_grow_fill(arb_journal_t *j, int f, uint64_t from,
                           uint64_t to, arb_buf_t *why);
void arb_journal_grow_done(arb_journal_t *j, int f, uint64_t from,
                           uint64_t to, int rc);

/* Bytes written in the current lap, and the most a lap may hold before
 * the writer must begin a new one. */
uint64_t arb_journal_lap_bytes(const arb_journal_t *j);
uint64_t arb_journal_lap_max(const arb_journal_t *j);
void     arb_journal_stats(const arb_journal_t *j, arb_journal_stats_t *st);

/* For tests: the size a file grows to first, the most it grows to, and
 * the step it grows by past the step's size (defaults 256 KiB, 64 MiB and
 * 1 MiB). */
extern uint64_t arb__journal_grow0, arb__journal_max, arb__journal_step;

#endif
