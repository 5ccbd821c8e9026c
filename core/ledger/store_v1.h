/*
 * store_v1.h - reads a store of format 1 (every event written into four
 * B-trees: events by match, matches, log, idem), for `arbiter migrate`.
 * Read-only; nothing else in the code base reads this format.
 */
#ifndef ARB_STORE_V1_H
#define ARB_STORE_V1_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/hash.h"
#include "core/ledger/store.h"

/* One event in commit order.  Pointers are valid during the callback
 * only. */
typedef struct arb_v1_event {
    uint64_t             pos;
    const char          *match_id;
    const char          *game;      /* the match's rule set */
    uint64_t             seq;
    int64_t              time_ms;
    const unsigned char *hash;      /* h(seq) as stored */
    const void          *bytes;
    size_t               len;
    const char          *client_id; /* or NULL */
    const char          *secret;    /* seq 0 of a dealt match, or NULL */
} arb_v1_event_t;

typedef int (*arb_v1_event_cb)(void *ud, const arb_v1_event_t *e);
typedef int (*arb_v1_match_cb)(void *ud, const arb_match_info_t *m);

/* The format number of the store in dir (0 when it has none, i.e. an
 * empty or foreign directory).  ARB_ENOTFOUND when there is no store. */
int arb_store_v1_format(const char *dir, unsigned long *format,
                        arb_buf_t *why);

/*
 * Calls ev for every event of the format-1 store in dir, in commit
 * order, then m for every match record (sorted by id); *total (may be
 * NULL) receives the number of events before the first callback.  A
 * non-zero callback return stops and is returned.  ARB_EUNSUPP when the
 * store is not of format 1, ARB_ECORRUPT naming the bad record.
 */
int arb_store_v1_read(const char *dir, uint64_t *total, arb_v1_event_cb ev,
                      arb_v1_match_cb m, void *ud, arb_buf_t *why);

#endif
