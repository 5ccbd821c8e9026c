/*
 * check.h - a whole-store consistency check over the public store API.
 *
 * DESIGN: the check trusts nothing but the event bytes and their hash
 * chain.  Every other view the store keeps (the per-match summary, the
 * global commit order, the idempotency index, the deal secrets) is derived
 * from the events, so each is recomputed from the events and compared.
 * It uses only core/ledger/store.h, never the on-disk layout, so it stays
 * true whatever the store's internals become.  It reads in short read
 * transactions (one per match, one per log chunk), which is why it is
 * safe against a running daemon: events appended while it runs are
 * ignored, never reported.
 *
 * Used by `arbiter check`, by `arbiter backup` on the copy it made and by
 * `arbiter restore-backup` on the restored directory.
 */
#ifndef ARB_CHECK_H
#define ARB_CHECK_H

#include <stdint.h>

#include "core/buf.h"
#include "core/hash.h"
#include "core/ledger/store.h"

typedef struct arb_check_summary {
    uint64_t      matches;      /* matches checked */
    uint64_t      closed;       /* of which closed */
    uint64_t      events;       /* events checked (sum of the counts) */
    uint64_t      client_ids;   /* client event ids seen in the events */
    uint64_t      dealt;        /* matches with a committed deal */
    uint64_t      log_pos;      /* last global position checked */
    uint64_t      problems;     /* problems reported */
    /* BLAKE2b-256 over every match in id order of
     * id ‖ 0x00 ‖ count (u64 big-endian) ‖ head: two stores holding the
     * same matches at the same heads have the same digest. */
    unsigned char heads[ARB_HASH_LEN];
} arb_check_summary_t;

/* One problem: the match it is in (NULL for the store as a whole) and
 * the seq (has_seq 0 when it concerns no single event).  msg is valid
 * only during the call. */
typedef void (*arb_check_problem_cb)(void *ud, const char *match_id,
                                     int has_seq, uint64_t seq,
                                     const char *msg);
/* Progress: phase "matches" (done of total matches) or "log" (done of
 * total positions).  May be NULL. */
typedef void (*arb_check_progress_cb)(void *ud, const char *phase,
                                      uint64_t done, uint64_t total);

/*
 * Checks every match of s: the hash chain recomputed from the bytes,
 * dense seqs, every event decoded (canonical only) with its seq, time,
 * kind and match id, the summary record (count, head, times, game,
 * closed), every client id against arb_store_idem(), the deal commitment
 * against the reveal of a closed match or the kept secret of a running
 * one, and the global log: positions dense, each match's events in seq
 * order, their chain equal to the per-match chain.  Store-wide counts
 * are compared only when nothing was appended meanwhile.
 * Returns 0 when the check ran (problems are in out->problems and were
 * passed to problem), or ARB_ENOMEM / a store error that stopped it
 * (why says which).
 */
int arb_check_store(arb_store_t *s, arb_check_problem_cb problem,
                    arb_check_progress_cb progress, void *ud,
                    arb_check_summary_t *out, arb_buf_t *why);

#endif
