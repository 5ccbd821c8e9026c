/*
 * storage.h - storage-nearly-full warnings (storage.c): the LMDB map and
 * the data directory's filesystem measured once a second against the
 * storage_warn percents of arbiterd.conf.
 */
#ifndef ARB_STORAGE_H
#define ARB_STORAGE_H

#include <stddef.h>

#include "daemon/server.h"

/* How many of the ascending thresholds thr[0..n) pct has reached. */
size_t arb_storage_level(unsigned pct, const unsigned *thr, size_t n);

/* Starts the once-a-second check (nothing when no threshold is set).
 * The timer does not keep the loop alive; after uv_run() returns, call
 * arb_storage_watch_stop() and run the loop once more to close it.
 * 0 or -1 (out of memory). */
int  arb_storage_watch_start(arb_server_t *srv);
void arb_storage_watch_stop(void);

#endif
