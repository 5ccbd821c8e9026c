/*
 * fsync.h - making a file or a directory durable by path.
 */
#ifndef ARB_FSYNC_H
#define ARB_FSYNC_H

/* Opens path read-only (a file or a directory: a rename or a new file is
 * durable once its directory is) and fsyncs it.  0, or -1 with errno. */
int arb_fsync_path(const char *path);

#endif
