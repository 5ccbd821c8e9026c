/*
 * replica.h - a read replica: the daemon follows the replicated stream
 * into its own store instead of accepting writes (docs/REPLICA.md).
 *
 * `arbiterd --replica-of URLS`, or the [replica] section of arbiterd.conf,
 * makes it one.  A thread of its own reads the stream in order, from
 * where its store ends (DATA/replica.pos) or from its first message
 * (proto/stream_read.h: an ordered consumer) through a mirror
 * (proto/stream_mirror.h), which checks every link and replays every
 * event's rules before appending; the loop thread is then told the new
 * log position, updates the matches it holds in memory and feeds the
 * subscribers from the store, as it does after its own commits.  Reads
 * and subscriptions are served as on a primary; open and append are
 * refused with "read_only", naming the recorder that wrote the match.
 *
 * Ownership: arb_replica_conf_t owns its strings.  The replica
 * (srv->replica) belongs to the server: arb_replica_start makes it,
 * arb_replica_stop joins the thread, arb_replica_free frees it.  All
 * arb_replica_* functions run on the loop thread.
 */
#ifndef ARB_REPLICA_H
#define ARB_REPLICA_H

#include <stdint.h>

#include <msgpack.h>

#include "core/buf.h"

typedef struct arb_replica_conf {
    char *urls;             /* NULL: not a replica */
    char *stream;           /* NULL: ARBITER */
    char *credentials;
    char *secret_key_file;  /* replication key: judges open dealt matches */
    char *primary;          /* named in refusals when the stream has not
                               named a match's recorder */
} arb_replica_conf_t;

void arb_replica_conf_free(arb_replica_conf_t *c);   /* NULL-safe */
/* One `key = value` of [replica].  0, or ARB_EINVAL naming the key. */
int  arb_replica_conf_set(arb_replica_conf_t *c, const char *k,
                          const char *v, arb_buf_t *why);

struct arb_server;
/* Starts following when srv->cfg.replica.urls is set (else 0, nothing).
 * NATS down at start is logged and retried, never fatal.  -1 on a local
 * failure (key file, thread), logged. */
int  arb_replica_start(struct arb_server *srv);
void arb_replica_stop(struct arb_server *srv);    /* NULL-safe, idempotent */
void arb_replica_free(struct arb_server *srv);    /* after the last uv_run */
/* 1 when this daemon is a replica: writes are refused.  why gets the
 * sentence naming where to write match `id` (may be NULL). */
int  arb_replica_refuses(struct arb_server *srv, const char *id,
                         arb_buf_t *why);
/* The deal secret of dealt match `id` that this replica's mirror holds
 * in memory only (its deal message came after its open was stored; the
 * match's next event stores it), as a new string in *out (the caller
 * frees it); *out NULL when there is none or this is no replica.  0, or
 * ARB_ENOMEM. */
int  arb_replica_secret(struct arb_server *srv, const char *id, char **out);
/* 1 when this daemon is a replica: the state of dealt match `id`, whose
 * deal secret its store lacks, is refused (ARB_ESEALED), and why gets the
 * sentence saying so and naming who can answer. */
int  arb_replica_sealed(struct arb_server *srv, const char *id,
                        arb_buf_t *why);
/* The "replica" map of the stats response (nil when primary). */
void arb_replica_stats_pack(struct arb_server *srv, msgpack_packer *pk);

/* The replica's figures /metrics shows, the same as those of stats. */
typedef struct arb_replica_figures {
    int      connected;
    uint64_t stream_seq, appended, duplicates, stopped_matches, foreign,
             deals, chain_only, ruled, reconnects, advanced, reloaded;
    uint64_t damaged_copies;    /* copies of held seqs whose bytes are
                                   not the held ones' (ignored) */
    uint64_t resumed_at;    /* the stream sequence this start read from */
    /* the stream's last sequence at the last look (once a second), how
     * many sequences past the last read it holds, and the age of the
     * oldest not read (replica_lag.h) */
    uint64_t stream_head, behind, lag_ms;
} arb_replica_figures_t;
/* 1 with *f filled, or 0 when this daemon is not a replica. */
int  arb_replica_figures(struct arb_server *srv, arb_replica_figures_t *f);

#endif
