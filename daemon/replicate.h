/*
 * replicate.h - replication of the committed log to NATS JetStream
 * (docs/SCALE.md; the layout is proto/stream.h).
 *
 * The [replicate] section of arbiterd.conf turns it on; without it the
 * daemon never touches NATS.  A thread of its own publishes every
 * committed event, reading the store (which is thread-safe) from a
 * durable cursor; the loop thread only wakes it after a commit and, in
 * sync mode, holds acks until the cursor has passed them.
 *
 * Ownership: arb_repl_conf_t owns its strings (arb_repl_conf_free).  The
 * replicator (srv->repl) belongs to the server: arb_repl_start makes it,
 * arb_repl_stop joins its thread and frees it.  Everything named
 * arb_repl_* here runs on the loop thread.
 */
#ifndef ARB_REPLICATE_H
#define ARB_REPLICATE_H

#include <stddef.h>
#include <stdint.h>

#include <msgpack.h>

#include "core/buf.h"

enum arb_repl_mode { ARB_REPL_ASYNC = 0, ARB_REPL_SYNC };

#define ARB_REPL_PREFIX_MAX 32    /* owned prefixes, and per peer */
#define ARB_REPL_PEER_MAX   32

typedef struct arb_repl_peer {
    char   *name;
    size_t  nprefix;
    char   *prefix[ARB_REPL_PREFIX_MAX];
} arb_repl_peer_t;

typedef struct arb_repl_conf {
    char            *urls;          /* NULL: replication off */
    char            *stream;        /* NULL: ARBITER */
    char            *credentials;
    char            *recorder;      /* this recorder's name */
    char            *secret_key_file;
    int              mode;          /* enum arb_repl_mode */
    size_t           max_pending;   /* events in flight (no PubAck yet) */
    unsigned         timeout_ms;    /* NATS requests */
    unsigned         sync_timeout_ms; /* longest a held ack waits */
    uint64_t         max_lag;       /* async: acks wait while the stream
                                       is more than this many events
                                       behind; 0 never */
    unsigned         max_lag_ms;    /* async: acks wait while the oldest
                                       event the stream lacks is older
                                       than this (ms); 0 never */
    unsigned         check_s;       /* anti-entropy pass period; 0 off */
    unsigned         check_read;    /* messages a regular pass reads, in
                                       turn over the matches; 0 none */
    int              replicas;      /* when creating the stream; 0 auto */
    size_t           event_max;     /* the largest event this recorder
                                       takes (its frame_max, at most the
                                       log's bound), set from the daemon's
                                       configuration: a stream taking
                                       less is said at start; 0: not
                                       looked at */
    size_t           nown;
    char            *own[ARB_REPL_PREFIX_MAX];  /* owned id prefixes */
    size_t           npeer;
    arb_repl_peer_t  peer[ARB_REPL_PEER_MAX];   /* other recorders */
} arb_repl_conf_t;

void arb_repl_conf_defaults(arb_repl_conf_t *c);
void arb_repl_conf_free(arb_repl_conf_t *c);      /* NULL-safe */
/* One `key = value` of the [replicate] section.  0, or ARB_EINVAL with a
 * message naming the key (the caller adds file and line). */
/* Reads the replication key file at path as the daemon will (size,
 * mode): 0, or ARB_EINVAL with why "secret_key_file: replication key
 * PATH: ..." (a configuration's value, refused with its line). */
int  arb_repl_key_check(const char *path, arb_buf_t *why);
int  arb_repl_conf_set(arb_repl_conf_t *c, const char *k, const char *v,
                       arb_buf_t *why);
/* Checks the section as a whole once the file is read (a recorder name
 * when urls are set; prefixes only with a recorder). */
int  arb_repl_conf_check(const arb_repl_conf_t *c, arb_buf_t *why);

/*
 * Who owns match id `id`: NULL when this recorder may write it (no
 * prefixes configured, or one of its own matches), else the name of the
 * recorder whose prefix matches (the longest prefix wins; "" when none
 * does).
 */
const char *arb_repl_owner(const arb_repl_conf_t *c, const char *id);

typedef struct arb_repl arb_repl_t;
struct arb_server;
struct arb_pending;
struct arb_live;
struct arb_conn;

/* Starts replicating when srv->cfg.repl.urls is set (else does nothing
 * and returns 0).  The first connection is tried in the background: NATS
 * down at start is logged, never fatal.  -1 on a local failure (key file,
 * thread), logged. */
int  arb_repl_start(struct arb_server *srv);
/* Stops the thread (in-flight publishes get their MaxWait), writes the
 * cursor one last time, frees srv->repl.  NULL-safe, idempotent. */
void arb_repl_stop(struct arb_server *srv);
/* Frees srv->repl once the loop has run the close callbacks of its
 * handles (after arb_repl_stop and a last uv_run).  NULL-safe. */
void arb_repl_free(struct arb_server *srv);
/* The loop committed up to global position pos: publish it. */
void arb_repl_committed(struct arb_server *srv, uint64_t pos);
/* 1 when acks wait for the stream (sync mode). */
int  arb_repl_sync(const struct arb_server *srv);
/* [loop] The log position above which an ack waits (arb_repl_hold):
 *   - sync mode: 0, every ack waits for the stream;
 *   - async mode with max_lag or max_lag_ms: while the stream takes
 *     events (connected, the stream there, no bound lifted by a timeout),
 *     the stream's position itself when the oldest event it lacks is
 *     older than max_lag_ms, else that position plus max_lag (UINT64_MAX
 *     without max_lag); 0 while acks are held already (so that they
 *     leave in order);
 *   - else UINT64_MAX: no ack waits. */
uint64_t arb_repl_hold_above(struct arb_server *srv);
/* The ack of p waits until the stream holds p->ack_pos (sync mode), or
 * until it is at most max_lag events and max_lag_ms behind (async
 * mode).  When
 * sync_timeout_ms passes first, a sync ack is answered "unreplicated"; an
 * async one is answered as usual and the bound is lifted until the stream
 * is back within max_lag.  Takes p. */
void arb_repl_hold(struct arb_server *srv, struct arb_pending *p);
/* Sync mode: a retry (same client id) of an event committed at log
 * position pos that the stream has not acknowledged yet is answered only
 * when it has, like the original.  1 when it was taken (the answer will
 * come), 0 when the caller answers now (async mode, or replicated). */
int  arb_repl_hold_retry(struct arb_server *srv, struct arb_live *l,
                         uint64_t seq, uint64_t pos,
                         const unsigned char *hash, struct arb_conn *c,
                         uint64_t req);
/* Asks for a full anti-entropy pass now, one that reads every subject
 * message by message (docs/SCALE.md); returns its number (check_done in
 * the stats reaches it once it ran), 0 when replication is off. */
uint64_t arb_repl_check_now(struct arb_server *srv);
/* Whether a write (open or append) to match id must be refused, as the
 * error code to answer: "fenced" when the stream holds more of it than
 * the local log (found by the look at start or a pass), "unverified"
 * while the recorder has not yet compared that match with the stream
 * since it started (an open of an id its log lacks: until it has read the
 * stream's subjects; NATS down at start: a stale copy could fork a
 * match); why says which and where.  NULL: the write may go (or
 * replication off). */
const char *arb_repl_fenced(struct arb_server *srv, const char *id,
                            arb_buf_t *why);
/* The "replication" map of the stats response (nil when off). */
void arb_repl_stats_pack(struct arb_server *srv, msgpack_packer *pk);

/* The replication figures /metrics shows, the same as those of stats. */
typedef struct arb_repl_figures {
    int      connected, stream_ok, verified;
    uint64_t lag_events;
    int64_t  lag_ms;
    uint64_t published, republished, deals_republished, errors,
             disconnects, missing, diverged, ahead, refused, sync_timeouts,
             checks, undecided, held, lag_holds, lag_timeouts;
} arb_repl_figures_t;
/* 1 with *f filled, or 0 when replication is off. */
int  arb_repl_figures(struct arb_server *srv, arb_repl_figures_t *f);

#endif
