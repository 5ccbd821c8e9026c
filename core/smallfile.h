/*
 * smallfile.h - a small state file (a cursor, a resume point) read whole
 * and replaced whole.
 *
 * A replace writes PATH.tmp, fsyncs it and renames it over PATH, so that
 * a reader after a crash or a power cut finds the old contents or the new
 * ones, never a mix or an empty file.
 */
#ifndef ARB_SMALLFILE_H
#define ARB_SMALLFILE_H

#include <stddef.h>

#include "core/buf.h"

/* The contents of path, at most max bytes, into out (replaced, and
 * NUL-terminated).  0; ARB_ENOTFOUND when there is no such file;
 * ARB_ETOOBIG when it is larger than max (why: "PATH: N bytes");
 * ARB_EIO (why: "PATH: <errno's text>"); ARB_ENOMEM. */
int arb_smallfile_read(const char *path, size_t max, arb_buf_t *out,
                       arb_buf_t *why);

/* Writes len bytes of data to path through PATH.tmp (fsync'd, given
 * exactly `mode`), then renames it over path (replace 1) or links it to
 * path, keeping a file already there (replace 0: -1 with errno EEXIST),
 * and fsyncs path's directory, so that the name survives a power cut too.
 * 0, or -1 with errno (path is then unchanged). */
int arb_smallfile_put(const char *path, const void *data, size_t len,
                      unsigned mode, int replace);
/* arb_smallfile_put(path, data, len, 0600, 1). */
int arb_smallfile_replace(const char *path, const void *data, size_t len);

#endif
