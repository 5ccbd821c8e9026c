/*
 * disk.h - what a disk may hold after a power cut, rebuilt from the I/O
 * shim's journal (iosim.h), and the directory utilities the crash tests
 * share.  Test-only.
 *
 * The model: everything a sync covered is on the disk; of every write no
 * sync covered, any subset may be there, each torn at 512-byte sector
 * boundaries (a sector is written whole or not at all).  A write through
 * an O_SYNC/O_DSYNC descriptor is covered when it returns; fsync and
 * fdatasync cover every earlier write to the file, through any descriptor.
 * Name changes (create, rename, link, unlink) count as durable when they
 * return.  Files mapped shared and writable are memory (LMDB's lock file):
 * they are copied as the process left them.
 */
#ifndef ARB_TEST_DISK_H
#define ARB_TEST_DISK_H

#include <stddef.h>
#include <stdint.h>

#include "tests/crash/iosim.h"

typedef struct disk_stats {
    uint64_t synced;        /* writes every disk holds */
    uint64_t kept, dropped, torn;   /* unsynced writes: the draw */
    uint64_t files;
} disk_stats_t;

/* What a journal says about a run (the I/O-error loop's view). */
typedef struct disk_journal_info {
    uint64_t counts[IOSIM_NCLASS];  /* calls per fault class */
    uint64_t failed;        /* calls the shim failed */
    int      failed_class;  /* the class of the last one, or -1 */
    uint64_t resyncs;       /* syncs of a file whose sync had failed */
    int      killed;        /* the run ended in the shim's power cut */
} disk_journal_info_t;

/*
 * Rebuilds into `out` (created; must not exist) the directory a disk may
 * hold after the power cut that ended the run journalled in `journal`:
 * `base` is the directory as it was on disk before the run (every file
 * durable), `live` as the killed process left it (the page cache).  The
 * draw of unsynced writes uses *seed (rand_r).  It also replays every write
 * onto base and compares the result with `live`: a difference means the
 * shim missed a way of writing, and the rebuild fails saying which file.
 * 0, or -1 with the reason in why.
 */
int  disk_rebuild(const char *base, const char *live, const char *journal,
                  const char *out, unsigned *seed, disk_stats_t *st,
                  char *why, size_t whylen);

/* Reads the journal's fault accounting.  0, or -1 when it is unreadable. */
int  disk_journal_scan(const char *journal, disk_journal_info_t *info);

/* The writes and syncs journalled after the first failed call, of files
 * whose name (the part after the last '/') begins with `prefix`, into
 * *n: what a process did there after a failure.  0, or -1 when the
 * journal is unreadable. */
int  disk_journal_after(const char *journal, const char *prefix,
                        uint64_t *n);

/* The writes, truncates and syncs (the shim's ARB_IOSIM_KILL count)
 * journalled before the first open of a path starting with `prefix` into
 * *ops.  0, or -1 when the journal is unreadable or opens no such path. */
int  disk_journal_ops_before(const char *journal, const char *prefix,
                             uint64_t *ops);

/* Copies the regular files of directory src into dst (created, 0700). */
int  disk_copy_dir(const char *src, const char *dst);

/* rm -rf path (NULL-safe, silent). */
void disk_rm_rf(const char *path);

/* A private scratch directory for one test process, made in out[cap]:
 * $ARBITER_TEST_SCRATCH, else /dev/shm (commits cost no disk), else /tmp,
 * then "/arbiter-NAME-PID-XXXXXX".  The PID in the name lets a later run
 * know the directory is left over: before making its own, this removes
 * every arbiter-NAME-* directory of ours there whose process is gone (a
 * run that crashed, was killed, or timed out never cleans up), and those
 * of the form before the PID was added (arbiter-NAME-XXXXXX) once their
 * run began cleaning up (no tokens file left) or 12 hours have passed.
 * The caller removes its own with disk_rm_rf().  0, or -1. */
int  disk_scratch_make(char *out, size_t cap, const char *name);

#endif
