/*
 * ops.h - the operator's commands (check, backup, restore-backup) and what
 * they share: progress at a terminal, the store summary line, the backup
 * manifest and durable file copies.  docs/OPERATIONS.md describes them.
 */
#ifndef ARB_TOOLS_OPS_H
#define ARB_TOOLS_OPS_H

#include <stdint.h>
#include <stdio.h>

#include "core/buf.h"
#include "core/hash.h"
#include "core/ledger/check.h"

int cmd_check(int argc, char **argv);
int cmd_backup(int argc, char **argv);
int cmd_restore(int argc, char **argv);     /* restore-backup */
int cmd_restore_nats(int argc, char **argv);  /* restore (from NATS) */

#define OPS_DATA_DEFAULT  "./var/arbiter"
#define OPS_MANIFEST      "MANIFEST"
#define OPS_BACKUP_FORMAT 2

/* Progress on stderr, only when stderr is a terminal (so a pipe or a log
 * file never gets it), at most a few times a second, one line that is
 * rewritten and cleared at the end. */
typedef struct ops_progress {
    int     on;
    int64_t last_ms;
    int     shown;
} ops_progress_t;

/* Set by a command's --quiet: no progress at a terminal either, from
 * any step of the command (until 2026-12-06 `migrate --quiet` and
 * `check --quiet` still drew the check's progress). */
extern int ops_quiet;

void ops_progress_init(ops_progress_t *p);
/* Printed as "<cmd>: <what> <done>/<total>" (total 0: without it). */
void ops_progress(ops_progress_t *p, const char *cmd, const char *what,
                  uint64_t done, uint64_t total);
void ops_progress_clear(ops_progress_t *p);

/* "N matches (C closed, D dealt), E events, K client ids, last position
 * P, heads digest HEX" */
void ops_summary_print(FILE *f, const char *label,
                       const arb_check_summary_t *sum);

/* Runs arb_check_store on the store in dir (opened read-only), printing
 * each problem as "<prefix>match M seq N: ..." on f.  0 when it ran (the
 * problems are in sum), or CLI_ERROR with the reason printed as "<cmd>: ...". */
int  ops_check_dir(const char *cmd, const char *dir, FILE *f,
                   const char *prefix, arb_check_summary_t *sum);

/* Copies the regular file src to dst (which must not exist) with mode
 * `mode`, fsync'd; hash (may be NULL) receives its BLAKE2b-256 and *size
 * its length (may be NULL).  0 or ARB_EIO with why. */
int  ops_copy_file(const char *src, const char *dst, unsigned mode,
                   unsigned char hash[ARB_HASH_LEN], uint64_t *size,
                   arb_buf_t *why);
/* The BLAKE2b-256 and size of a file.  0 or ARB_EIO with why. */
int  ops_hash_file(const char *path, unsigned char hash[ARB_HASH_LEN],
                   uint64_t *size, arb_buf_t *why);
/* The target of a restore: dir must not exist or be an empty directory
 * (a restore never writes over a recorder); the restore is built in
 * tmp = "DIR.partial" (a PATH_MAX buffer), created here, 0700.  *exists
 * says whether dir was there.  0, or CLI_ERROR with the reason printed as
 * "arbiter <cmd>: ...". */
int  ops_target_begin(const char *cmd, const char *dir, char *tmp,
                      int *exists);
/* The same checks, making nothing: a restore that must connect first asks
 * before it does (a bad target is named at once, not after the stream was
 * read).  CLI_OK, or CLI_ERROR with the reason printed. */
int  ops_target_check(const char *cmd, const char *dir);
/* Empties tmp (made by ops_target_begin: its files only) for a restore
 * that builds it again.  0, or CLI_ERROR with the reason printed. */
int  ops_target_clear(const char *cmd, const char *tmp);
/* After a failed run, removes tmp, the DIR.partial (or PATH.partial) this
 * run created, with everything in it: left there, it would refuse every
 * rerun until someone removed it by hand.  Never called on one the run
 * found.  Says what it removed, or why it could not. */
void ops_target_abort(const char *cmd, const char *tmp);
/* Renames the verified tmp to dir (replacing the empty dir), fsync'd with
 * its parent.  0, or CLI_ERROR with the reason printed. */
int  ops_target_commit(const char *cmd, const char *dir, const char *tmp,
                       int exists);
/* out = a "/" b, in a PATH_MAX buffer.  0, or -1 when it does not fit. */
int  ops_path(char *out, const char *a, const char *b);
/* out = path ".partial", in a PATH_MAX buffer, the slashes that end path
 * left out ("bk/" gives "bk.partial", not "bk/.partial": until
 * 2026-12-07 a backup or restore given a directory with a trailing slash
 * failed, after copying everything when the target was there, empty).
 * 0, or -1 when it does not fit. */
int  ops_partial_path(char *out, const char *path);

/* One file of a backup, relative to its directory. */
typedef struct ops_file {
    char          *path;
    unsigned       mode;
    uint64_t       size;
    unsigned char  hash[ARB_HASH_LEN];
} ops_file_t;

typedef struct ops_manifest {
    char                *source;
    char                *started;
    int                  format;     /* OPS_BACKUP_FORMAT, or 1 */
    arb_check_summary_t  sum;
    ops_file_t          *files;
    size_t               nfiles, cap;
} ops_manifest_t;

/* Adds a file (path copied); 0 or ARB_ENOMEM. */
int  ops_manifest_add(ops_manifest_t *m, const char *path, unsigned mode,
                      uint64_t size, const unsigned char hash[ARB_HASH_LEN]);
/* Writes DIR/MANIFEST durably.  0 or ARB_EIO with why. */
int  ops_manifest_write(const ops_manifest_t *m, const char *dir,
                        arb_buf_t *why);
/* Reads DIR/MANIFEST; every line is checked (no absolute path, no "..").
 * 0, ARB_EIO or ARB_ECORRUPT with why naming the line. */
int  ops_manifest_read(ops_manifest_t *m, const char *dir, arb_buf_t *why);
void ops_manifest_free(ops_manifest_t *m);   /* NULL-safe */

#endif
