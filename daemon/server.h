/*
 * server.h - arbiterd's shared state: the server, connections, live
 * matches, queued appends and subscriptions.  Everything here is touched
 * only on the loop thread, except the store (core/ledger/store.h is thread-safe)
 * and the batch handed to the commit worker, which the loop does not touch
 * while the worker owns it.
 */
#ifndef ARB_SERVER_H
#define ARB_SERVER_H

#include <stdint.h>
#include <signal.h>
#include <stdatomic.h>

#include <uv.h>
#include <msgpack.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/keys.h"
#include "core/match.h"
#include "core/view.h"
#include "core/ledger/store.h"
#include "daemon/config.h"
#include "proto/frame.h"

/* arbiterd's exit statuses (README.md, "The daemon").  70 is sysexits'
 * EX_SOFTWARE: a supervisor must not restart the daemon blindly, because
 * the disk refused a commit. */
enum arb_exit {
    ARB_EXIT_OK       = 0,      /* stopped cleanly (SIGTERM/SIGINT) */
    ARB_EXIT_START    = 1,      /* could not start: data directory, signing
                                   key, store, listener, libsodium */
    ARB_EXIT_CONFIG   = 2,      /* bad command line, config or token file */
    ARB_EXIT_FAILSTOP = 70      /* a commit failed: stopped at once without
                                   acknowledging the batch (fail-stop) */
};

typedef struct arb_server  arb_server_t;
typedef struct arb_conn    arb_conn_t;
typedef struct arb_live    arb_live_t;

/* A live match's client-id filter: 2,048 bits, 3 probes (live.c).  About
 * 1% false positives at 150 client ids, and a false positive only costs
 * the store lookup it saves. */
#define ARB_CIDF_WORDS 32
typedef struct arb_pending arb_pending_t;
typedef struct arb_sub     arb_sub_t;

/* A match the daemon has touched since it started.  `m` is the state as
 * validated: it already includes appends that are queued but not yet
 * committed (a failed commit stops the daemon, so it never diverges from
 * the store for long).  Readers see `m` only while nothing is in flight
 * (it is then the committed state: arb_live_state); otherwise they
 * replay the store up to `committed`. */
struct arb_live {
    char            id[ARB_STORE_ID_MAX + 1];
    char            game[ARB_STORE_ID_MAX + 1];
    arb_match_t    *m;
    uint64_t        committed;      /* last seq known committed */
    int             exists;         /* seq 0 committed */
    int             closed;         /* a close is committed */
    arb_pending_t **inflight;       /* queued, not yet acked, in seq order */
    size_t          ninflight, capinflight;
    arb_sub_t      *subs;           /* subscribers of this match */
    /* Acks of it the replication holds (replicate_loop.c): committed,
     * out of inflight, still pointing here. */
    size_t          nheld;
    int             left;           /* closed; its last subscriber left */
    arb_live_t     *hnext;
    /* Every client id this match holds, stored or queued, as a Bloom
     * filter (live.c): a client id it does not hold is known to be new
     * without asking the store.  Fixed size: it only saturates. */
    uint64_t        cidf[ARB_CIDF_WORDS];
};

typedef struct arb_waiter {
    arb_conn_t *conn;
    uint64_t    req;
} arb_waiter_t;

/* A match opened in the same transaction as the append that holds it
 * (a tournament's round, daemon/op_round.c): its ack names it. */
typedef struct arb_group_open {
    char          match[ARB_STORE_ID_MAX + 1];
    char          table[ARB_STORE_ID_MAX + 1];
    unsigned char hash[ARB_HASH_LEN];
} arb_group_open_t;

/* One validated event waiting for its commit. */
struct arb_pending {
    arb_live_t    *live;
    arb_append_t   ap;
    arb_buf_t      bytes;           /* canonical event */
    char          *cid;
    char          *secret;          /* open of a dealt match: "<kind> <secret>" */
    arb_event_t    ev;              /* decoded form, for idempotency checks */
    size_t         nwait;
    arb_waiter_t  *wait;            /* the request and any retries:
                                       &wait1 until a retry joins */
    arb_waiter_t   wait1;
    int            retry;           /* every waiter is a retry (dup) */
    uint64_t       t0;              /* uv_hrtime() at its request */
    /* Atomic groups: `joined` appends commit in the same LMDB transaction
     * as the append queued just before them (commit.c never splits them
     * across batches).  A joined open names the group's first append
     * (head) and its slot there (gi); the head's ack lists them all.  A
     * joined act of a round (op_round.c) names the head too, with gi past
     * the slots (SIZE_MAX): its position counts for the head's ack. */
    int               joined;
    arb_pending_t    *head;
    size_t            gi;
    size_t            ngroup;
    arb_group_open_t *group;
    /* Sync replication: the ack leaves once the stream holds the log up
     * to here (its own position; a group head's, its group's last: the
     * head's ack names every open of the group). */
    uint64_t          ack_pos;
};

enum { ARB_SUB_MATCH = 0, ARB_SUB_ALL };

struct arb_sub {
    uint64_t     id;
    int          kind;
    arb_conn_t  *conn;
    arb_live_t  *live;              /* ARB_SUB_MATCH */
    uint64_t     next;              /* next seq (match) or global position
                                       in the store's commit order (all) */
    int          is_live;           /* caught up: pushed on commit */
    int          more;              /* its catch-up's turn ran out: pumped
                                       again at the next (sub.c) */
    int          dead;              /* unlinked; freed with its conn */
    arb_store_links_t *links;       /* ARB_SUB_ALL: what its catch-up's
                                       reads remember of each match's
                                       links (NULL: none, or live) */
    arb_sub_t   *next_in_match;     /* list in live->subs */
    arb_sub_t   *next_in_conn;
    arb_sub_t   *next_all;          /* list in srv->all_subs */
};

struct arb_conn {
    union {
        uv_handle_t handle;
        uv_stream_t stream;
        uv_tcp_t    tcp;
        uv_pipe_t   pipe;
    } h;
    uv_timer_t          auth_timer;
    arb_server_t       *srv;
    arb_frame_reader_t  rd;
    uint64_t            num;        /* for logs */
    int                 authed;
    int                 role;
    char                identity[ARB_HASH_HEX];
    size_t              nmatches;
    char              **matches;    /* scorer's allowed matches; a
                                       player's one match */
    char                seat[ARB_HASH_HEX]; /* player: its seat's name */
    unsigned char       print[ARB_TOKEN_PRINT]; /* its token's */
    int                 closing;
    int                 finishing;  /* flushing a last message, then closing */
    int                 turned;     /* turned away: past max_connections */
    int                 stalling;   /* auth_timer counts stall_timeout_ms:
                                       reading paused on unsent output */
    uv_shutdown_t       shut;       /* the write side's FIN while finishing */
    int                 reading;
    int                 handles;    /* open uv handles (stream + timer) */
    size_t              refs;       /* pending acks holding this conn */
    size_t              outq;       /* bytes written, not yet completed */
    size_t              inflight;   /* appends awaiting commit */
    arb_sub_t          *subs;
    unsigned            nsubs;      /* held: at most ARB_SUBS_PER_CONN */
    arb_conn_t         *prev, *next;
    /* A connection without a socket (arb_conn_new_sink): every message
     * the daemon sends it goes to sink, as msgpack without the frame
     * header, at once; NULL for a socket's connection. */
    void              (*sink)(arb_conn_t *c, const char *msg, size_t len);
    void               *sink_data;
    /* Output held while the server is corked (arb_server_cork): written
     * with one system call when it uncorks; counted in outq meanwhile. */
    arb_buf_t           cork;
    int                 corked;     /* on srv->corked, holding a ref */
    arb_conn_t         *cnext;
};

/* Histogram bounds (stats.c): an ack's latency from the request's arrival
 * to the ack, and the events of one commit. */
#define ARB_ACK_BUCKETS   13
#define ARB_BATCH_BUCKETS 14
extern const uint64_t arb_ack_bounds_ns[ARB_ACK_BUCKETS];
extern const uint64_t arb_batch_bounds[ARB_BATCH_BUCKETS];

typedef struct arb_counters {
    uint64_t appends, commits, events_committed, rejected, conns;
    uint64_t subs_cut, frames_bad;
    uint64_t gathered, gather_timeouts;     /* commit.c: how rounds ended */
    uint64_t lone_commits, lone_cpu_ns;     /* commit.c: on the loop thread */
    uint64_t rejects[1 - ARB_E_LAST];       /* `rejected` by -ARB_E* code */
    uint64_t acks, ack_ns;                  /* acks and their total latency */
    uint64_t ack_le[ARB_ACK_BUCKETS];       /* acks <= each bound */
    uint64_t batch_le[ARB_BATCH_BUCKETS];   /* commits of <= bound events */
    uint64_t http_conns, http_refused;      /* accepted; over max_connections */
    uint64_t metrics_refused;   /* over metrics_listen's 8 connections */
    uint64_t http_heads_refused;            /* heads over header_max, early */
    uint64_t http_write_timeouts;           /* ended by write_timeout_ms */
    uint64_t http_auth_failed;              /* requests with a bad token */
    uint64_t store_corrupt;                 /* reads that met damage */
    /* Matches replayed from the store on the loop (live.c load), and
     * their events: the loop's time that grows with a history. */
    uint64_t replays, replayed_events;
    uint64_t http_requests, streams_cut;    /* live streams cut when slow */
    uint64_t http_status[5];    /* responses done, by class: 1xx..5xx */
    /* Where the loop's time goes (uv_hrtime ns, summed): read callbacks
     * of the protocol (the frame reader and every request they carry),
     * the requests alone, and of appends the canonical encoding and the
     * rules; the commit worker's run (work_cb), the two thread hand-offs
     * around it (start: queued -> started; back: finished -> after_work
     * on the loop),
     * and the after-work callbacks (acks, pushes).  `stats` reports them;
     * tests/bench/bench_load.c prints them per event. */
    uint64_t reads, read_ns, frames, dispatch_ns, encode_ns, validate_ns;
    uint64_t work_ns, start_ns, back_ns, after_ns;
    uint64_t work_cpu_ns;                   /* the worker's CPU in work_cb */
} arb_counters_t;

#define ARB_LIVE_BUCKETS 4096

/* Longest a finishing connection may take to drain and close. */
#define ARB_LINGER_MS 2000

struct arb_server {
    uv_loop_t       *loop;
    arb_config_t     cfg;
    const char      *config_path;
    arb_store_t     *store;
    uv_stream_t     *listeners[ARB_LISTEN_MAX];
    size_t           nlisteners;
    /* Unix socket files this daemon made (into cfg.listen), removed at the
     * stop: libuv removes only the name it bound, the temporary one. */
    const char      *sock_paths[ARB_LISTEN_MAX];
    size_t           nsock_paths;
    uv_signal_t      sig_term, sig_int, sig_hup;
    /* Set (to the signal) by a SIGTERM or SIGINT that came before the loop
     * ran: the start's waits (the replication look, up to timeout_ms)
     * look at it and are cut short, and the daemon stops instead of
     * serving.  A plain handler sets it: libuv's waits for the loop.
     * The handler also wakes the loop (stop_async): it may run after the
     * start looked at the flag, as on a loaded machine the thread that
     * took the signal can be preempted before it runs the handler. */
    atomic_int            *stop_asked;
    uv_async_t       stop_async;
    arb_conn_t      *conns;
    uint64_t         conn_seq, sub_seq;
    arb_live_t      *live[ARB_LIVE_BUCKETS];
    arb_live_t      *transient;     /* the last closed match loaded */
    struct arb_snap *snap;          /* committed states kept (snap.c) */
    size_t           nsnap;
    uint64_t         snap_tick;
    arb_sub_t       *all_subs;
    uint64_t         order_pos;     /* last position in the store's global
                                       commit order known committed */

    /* group commit */
    arb_pending_t  **queue;
    size_t           nqueue, capqueue;
    arb_pending_t  **batch;
    size_t           nbatch;
    arb_append_t    *batch_ap;
    uint64_t         batch_ticket;  /* the store's name of its commit */
    uv_work_t        work;
    int              committing;
    int              commit_rc;
    arb_buf_t        commit_why;
    /* gathering: after a commit, the next one waits (at most half a
     * commit, 1..5 ms, +1 while waits complete) for the tables it just
     * acked to send their next event, so that all tables share one
     * fsync (commit.c) */
    uv_timer_t       gather_timer;
    int              gather_init, gathering;
    int              gather_full;   /* the last wait gathered everyone */
    /* A commit starts in the loop's idle phase, once every request the
     * poll read is queued; a lone event commits there on the loop thread,
     * without the worker's two thread hand-offs (commit.c). */
    uv_idle_t        start_idle;
    int              start_init, start_armed;
    /* Catch-ups whose turn ran out go on in the loop's idle phase, a
     * turn each, between the loop's reads and commits (sub.c). */
    uv_idle_t        pump_idle;
    int              pump_init, pump_armed;
    /* A closed match whose last subscriber left goes at the idle phase
     * (sub.c), not where the subscriber is dropped: that may be inside
     * the commit's walk of its batch. */
    int              left_any;
    uint64_t         pump_spent;    /* events sent since the last pass */
    /* The "storage full" line: when it was last logged, and the appends
     * and batches refused since, unlogged (commit.c) */
    int64_t          full_logged_ms;
    uint64_t         full_quiet, full_quiet_batches;
    /* Protocol connections open now, the most at once (max_connections,
     * or what the open-file limit leaves: server.c), and the ones turned
     * away since the last line that said so */
    size_t           nopen, open_max, nturned, linger_max;
    uint64_t         accept_quiet;      /* failed accepts not yet logged */
    int64_t          accept_logged_ms;
    int64_t          refused_logged_ms;
    uint64_t         refused_quiet;
    size_t           gather_want, gather_got;
    uint64_t         commit_t0;     /* uv_hrtime() at the commit's start */
    uint64_t         work_t0, work_t1; /* work_cb's start and end */
    uint64_t         work_cpu;      /* work_cb's thread CPU, ns */
    int              probing;       /* this read callback is timed */
    /* Corking (server.c): while > 0, what the loop sends a connection is
     * gathered and written once per connection at the uncork. */
    int              corking;
    arb_conn_t      *corked;

    /* The checkpoint signing key, loaded once at start-up
     * (arb_checkpoint_init) and wiped by arb_checkpoint_clear at exit. */
    arb_keypair_t    signing;
    int              have_key;

    /* replication to NATS JetStream (daemon/replicate.h); NULL when off */
    struct arb_repl *repl;
    /* read replica of the stream (daemon/replica.h); NULL when primary */
    struct arb_replica *replica;

    int              stopping;
    int              exit_code;     /* enum arb_exit */
    arb_counters_t   n;
    struct arb_http *http;          /* http.c; NULL without [http] listen */
};

/* The per-request figures of arb_counters_t are sampled: one protocol
 * read callback in ARB_PROBE_EVERY is timed, and its nanoseconds count that
 * many times, because a clock read costs ~0.1 us on a virtual machine and
 * a request would take eight.  The per-commit figures are exact. */
#define ARB_PROBE_EVERY 16

static inline uint64_t
arb_probe_start(const arb_server_t *srv)
{
    return srv->probing ? uv_hrtime() : 0;
}

static inline void
arb_probe_add(const arb_server_t *srv, uint64_t *sum, uint64_t t0)
{
    if (srv->probing)
        *sum += (uv_hrtime() - t0) * ARB_PROBE_EVERY;
}

/* server.c */
int  arb_server_listen(arb_server_t *srv);
/* Raises the open-file limit as far as allowed and sets how many
 * protocol connections may be open at once (max_connections, or what the
 * limit leaves: 128 descriptors are kept for the store and the rest).  0
 * or ARB_EIO. */
int  arb_server_limits(arb_server_t *srv);
/* A listener's accept failed (status, libuv's): logged as accept_failed,
 * one line a second at most, counting the others; `side` prefixes the
 * message ("http: ", or ""). */
void arb_server_accept_failed(arb_server_t *srv, const char *side,
                              int status);
void arb_server_stop(arb_server_t *srv);        /* SIGTERM path */
/* Closes at once: queued output is dropped.  For a peer that is gone. */
void arb_conn_close(arb_conn_t *c);
/* Closes after the queued output (acks, a last error or `slow` push) has
 * been written and every append of this connection awaiting commit has been
 * acknowledged: reading stops mattering (input is discarded), subscriptions
 * end, then the write side is shut down and the connection closes at the
 * peer's EOF -- or after ARB_LINGER_MS whatever the peer does, so a peer
 * that never reads cannot hold the daemon. */
void arb_conn_finish(arb_conn_t *c);
void arb_conn_unref(arb_conn_t *c);
/* Frames and queues b's bytes (b must start with 4 reserved bytes); takes
 * ownership of b->data.  Returns 0 or -1 when the connection was closed. */
int  arb_conn_send(arb_conn_t *c, arb_buf_t *b);
/* The same without the outq_max check, for output whose volume is bounded
 * elsewhere: acks (at most inq_max appends of a connection await commit, so
 * a client that pipelines and reads late is not cut off for the acks it is
 * owed) and the one small last message before a connection finishes. */
int  arb_conn_send_owed(arb_conn_t *c, arb_buf_t *b);
void arb_conn_pause(arb_conn_t *c);
/* Between a cork and its uncork (they nest), sends to a connection are
 * gathered, in order, and the uncork writes each connection's with one
 * system call: the acks and pushes of one commit, the answers to one read.
 * Same ownership and outq_max accounting as an immediate send. */
void arb_server_cork(arb_server_t *srv);
void arb_server_uncork(arb_server_t *srv);
/* A connection with no socket, for a request that does not come over the
 * protocol (the HTTP write routes, daemon/http_write.c): arb_dispatch()
 * handles its frames exactly as a socket's, and what it answers goes to
 * sink.  The caller makes it a token's (arb_conn_take_token, as the auth
 * op does) and holds it until arb_conn_release(); an append awaiting commit holds it
 * too, so it is freed when both are done.  NULL when out of memory. */
arb_conn_t *arb_conn_new_sink(arb_server_t *srv,
                              void (*sink)(arb_conn_t *, const char *,
                                           size_t),
                              void *data);
/* Drops the caller's hold: nothing more reaches the sink. */
void arb_conn_release(arb_conn_t *c);
void arb_conn_resume(arb_conn_t *c);
/* Reads from c while it may take more, pauses it otherwise: fewer than
 * inq_max appends await their commit, and its unsent output is within
 * half of outq_max (a client that does not read its acks stops being
 * read: until 2026-12-06 committed acks piled up without bound).  Not
 * while it finishes or closes. */
void arb_conn_flow(arb_conn_t *c);

/* reply.c: response building; key/value pairs are packed with the
 * arb_mp_pack_kv_* vocabulary of core/mp.h. */
void arb_reply_begin(arb_buf_t *b, msgpack_packer *pk, uint64_t id,
                     size_t nfields);
void arb_reply_error(arb_conn_t *c, uint64_t id, const char *code,
                     const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
const char *arb_reply_code(int rc);
/* The last word to a connection about to finish: {"v":1,"push":"error",
 * ["sub":sub,]"error":{"code","message"}} (sub 0: the connection's, no
 * `sub`), sent past the outq_max check (arb_conn_send_owed). */
void arb_reply_push_error(arb_conn_t *c, uint64_t sub, const char *code,
                          const char *message);

/* dispatch.c */
void arb_dispatch(arb_conn_t *c, const char *frame, size_t len);

/* viewer.c: what connection c may see of a match (docs/VIEWS.md). */
/* 1 when a scorer's list of n matches (n 0: every match) covers match;
 * match NULL (every match at once) only with no list. */
int arb_scope_covers(char *const *matches, size_t n, const char *match);
/* The role a token reads `match` with: its own, but a scorer limited to
 * other matches reads this one as a reader does (until 2026-12-05 a
 * scorer of one table read every table's hands).  match NULL: every
 * match at once (the all-matches subscription and streams, the list). */
int arb_seen_role(int role, char *const *matches, size_t n,
                  const char *match);
/* The viewer a token of `role` (as arb_seen_role gives it) is for
 * `match` opened with `setup`: all for a scorer or arbiter; the seat
 * named `seat` for a player whose one match (own_match) is `match` and
 * whose seat plays in it; public otherwise (setup NULL: public unless the
 * role sees everything).  The binary protocol and HTTP both ask here. */
arb_viewer_t arb_role_viewer(int role, const char *own_match,
                             const char *seat, const char *match,
                             const arb_setup_t *setup);
/* The viewer c is for `match` opened with `setup` (NULL: public unless
 * c sees everything). */
arb_viewer_t arb_conn_viewer(const arb_conn_t *c, const char *match,
                             const arb_setup_t *setup);
/* One event of `match` (its live entry l, or NULL) as c may have it,
 * in a feed of that match or (every) of every match: *bytes and *len
 * point into tmp when arguments were withheld, *hash becomes NULL when c
 * may not have the match's hashes.  0 or an ARB_E* code (then send
 * nothing). */
int arb_conn_event_view(arb_conn_t *c, arb_live_t *l, const char *match,
                        int every,
                        const void **bytes, size_t *len,
                        const unsigned char **hash, arb_buf_t *tmp);

/* live.c */
int  arb_live_get(arb_server_t *srv, const char *id, arb_live_t **out,
                  arb_buf_t *why);
arb_live_t *arb_live_new(arb_server_t *srv, const char *id);
/* Match id's stored history does not read (why says where: an event that
 * does not decode or replay, a hash link that does not hold): logged as
 * `store_corrupt`, for an operator to alert on, the first time and every
 * 100th; its readers and writers get `internal`.  id NULL: a read of the
 * whole log failed, why naming the match. */
void arb_live_corrupt(arb_server_t *srv, const char *id,
                      const arb_buf_t *why);
/* The match held in memory, or NULL (never loads it). */
arb_live_t *arb_live_peek(arb_server_t *srv, const char *id);
/* The client-id filter: arb_live_cid_add for every client id of the match
 * (loaded or queued); arb_live_cid_maybe is 0 only for a client id the
 * match has never held, 1 when it may have. */
void arb_live_cid_add(arb_live_t *l, const char *cid);
int  arb_live_cid_maybe(const arb_live_t *l, const char *cid);
void arb_live_free_all(arb_server_t *srv);
/* Drops speculative state after a failed batch: back to the committed
 * state, or forgotten when nothing of it was committed. */
void arb_live_reset(arb_server_t *srv, arb_live_t *l);
/* A read replica's appends: moves l's lean rule state and client-id
 * filter on from seq `from` (exclusive; l->committed already the store's
 * last seq) by applying only the new events.  0, or -1 when it cannot (a
 * ruling among them, not lean, an event that does not decode or apply):
 * then the caller replays it whole (arb_live_reset). */
int  arb_live_advance(arb_server_t *srv, arb_live_t *l, uint64_t from);
/* Frees a closed match's entry once nothing refers to it (no append in
 * flight, no subscriber); it is reloaded from the store when needed.
 * Otherwise does nothing.  l must not be used after the call. */
void arb_live_release(arb_server_t *srv, arb_live_t *l);
/* How many matches the table holds (for the log). */
size_t arb_live_count(arb_server_t *srv);
/* Releases the closed matches marked `left` (their last subscriber went)
 * that nothing else holds: called where no walk of a batch or of held
 * acks is under way (the idle phase). */
void arb_live_release_left(arb_server_t *srv);
/* The state of match id after its seq `at` as a reader sees it: when
 * the live match is exactly that (held, nothing in flight, `at` its
 * committed seq), the live match itself, borrowed (*own = 0: the caller
 * must not free it, nor hold it past the loop's turn); else a replay
 * into a fresh match (*own = 1: the caller frees it).  0 or an ARB_E*
 * code with why, as arb_live_replay. */
int  arb_live_state(arb_server_t *srv, const char *id, uint64_t at,
                    arb_match_t **out, int *own, arb_buf_t *why);
/* Committed states kept for reads at other seqs than the live one
 * (snap.c): at most ARB_SNAPS for the daemon, the least recently used let
 * go first; a replay keeps one every ARB_SNAP_EVERY events on its way. */
#define ARB_SNAPS      64
#define ARB_SNAP_EVERY 16384
/* A copy of the kept state of match id nearest at or before seq `at`
 * into *out (the caller's), its seq in *seq: 0, ARB_ENOTFOUND (none, or
 * the store's hash of its event is not the one it was kept with), or
 * ARB_ENOMEM. */
int  arb_snap_get(arb_server_t *srv, const char *id, uint64_t at,
                  arb_match_t **out, uint64_t *seq);
/* Keeps a copy of m, the committed state of id after event seq (whose
 * stored hash is `hash`).  Out of memory, or a game whose matches make no
 * copies, keeps nothing: a later read replays. */
void arb_snap_put(arb_server_t *srv, const char *id, uint64_t seq,
                  const unsigned char hash[ARB_HASH_LEN],
                  const arb_match_t *m);
void arb_snap_free_all(arb_server_t *srv);

/* The committed state of a match at seq `at` as a match of the caller's
 * own: when the live match stands there (held, nothing in flight), a copy
 * of it (arb_match_copy: the size of its state, and it keeps no
 * history), else the committed events replayed from the store.  For
 * judging a move and for the tournament views, which read no history.
 * 0 or an ARB_E* code with why. */
int  arb_live_replay(arb_server_t *srv, const char *id, uint64_t at,
                     arb_match_t **out, arb_buf_t *why);
/* A copy of l's match as its next append finds it, into *out (the
 * caller's): the committed events replayed from the store (`lean`: a
 * match that keeps no history), then the appends in flight applied.
 * Whatever is judged on it changes nothing live until the caller swaps
 * it in (op_round.c: a round recorded in several acts).  0, ARB_EAGAIN
 * (the open is not committed yet), or the reload's error, with why. */
int  arb_live_scratch(arb_server_t *srv, const arb_live_t *l, int lean,
                      arb_match_t **out, arb_buf_t *why);
/* Makes l->m keep its history (a ruling rebuilds from the moves): reloads
 * it from the store up to l->committed and re-applies the appends in
 * flight.  0 (also when it keeps it already), ARB_EAGAIN (the open is not
 * committed yet), or the reload's error, with why. */
int  arb_live_keep_history(arb_server_t *srv, arb_live_t *l, arb_buf_t *why);
/* The stored event seq of match id, decoded into ev (zeroed first;
 * release with arb_event_clear whatever the result).  0, ARB_ENOTFOUND
 * or the decoder's ARB_E* code. */
int  arb_live_event(arb_server_t *srv, const char *id, uint64_t seq,
                    arb_event_t *ev);
/* The last seq of match id that the loop knows is committed: the store's
 * last seq (info, from arb_store_match) unless the live entry knows less,
 * so a read never serves an event whose commit may still fail. */
uint64_t arb_live_committed(arb_server_t *srv, const char *id,
                            const arb_match_info_t *info);

/* op_tourn.c: tournament `id`'s board (board) or standings (JSON with
 * json, else CSV) from committed events, appended to out.  0, or
 * ARB_ENOTFOUND (no such match), ARB_EINVAL (not a tournament) or another
 * ARB_E* code, with why. */
int  arb_tourn_read(arb_server_t *srv, const char *id, int board, int json,
                    arb_buf_t *out, arb_buf_t *why);

/* commit.c */
/* Makes room for one more append of match l in the commit queue and in l's
 * in-flight list: called before the rules apply the event, so that
 * arb_commit_enqueue() (after they have) cannot fail.  0 or ARB_ENOMEM. */
int  arb_commit_reserve(arb_server_t *srv, arb_live_t *l);
/* The same for n appends of match l (a round's acts, op_round.c). */
int  arb_commit_reserve_n(arb_server_t *srv, arb_live_t *l, size_t n);
/* Makes room for n more appends in the commit queue (an atomic group:
 * each of its matches still calls arb_commit_reserve).  0 or ARB_ENOMEM. */
int  arb_commit_reserve_queue(arb_server_t *srv, size_t n);
void arb_commit_enqueue(arb_server_t *srv, arb_pending_t *p);
/* Gives p the validated event ev of match l (ev is emptied: p owns its
 * strings) and fills the store's append from it; p->bytes must hold ev's
 * canonical encoding. */
void arb_pending_take(arb_pending_t *p, arb_live_t *l, arb_event_t *ev);
void arb_commit_kick(arb_server_t *srv);
void arb_commit_close(arb_server_t *srv);       /* at stop: its handle */
void arb_pending_free(arb_pending_t *p);
/* The queued, not yet acknowledged append of match l with client event id
 * cid, or NULL. */
arb_pending_t *arb_commit_find_cid(const arb_live_t *l, const char *cid);
/* A new, empty append with room for its first waiter, or NULL (out of
 * memory); release with arb_pending_free() until it is enqueued. */
arb_pending_t *arb_pending_new(void);
/* Adds request `req` of connection c to the requests answered when p is
 * acknowledged (or refused); c is held (refs) and counts p among its
 * appends awaiting commit (inq_max) until then.  0, or ARB_ENOMEM (never
 * for the first waiter of an arb_pending_new() append). */
int  arb_commit_wait(arb_pending_t *p, arb_conn_t *c, uint64_t req);
/* Sends the ack of a committed append to its waiters and releases them;
 * or refuses it with error `code` (sync replication, replicate_loop.c).
 * p stays the caller's to free. */
void arb_commit_ack(arb_server_t *srv, arb_pending_t *p);
/* Packs "opened": [{table, match, hash}...], the matches opened with an
 * append (an ack's sixth field). */
void arb_group_pack(msgpack_packer *pk, const arb_group_open_t *g, size_t n);
void arb_commit_refuse(arb_server_t *srv, arb_pending_t *p, const char *code,
                       const char *msg);
/* Frees what the commit machinery holds once the loop has stopped (the
 * queue and the last batch, and after a fail-stop the appends left in
 * them, unanswered, with the connection references they hold); nothing
 * may be committing. */
void arb_commit_free(arb_server_t *srv);

/* sub.c */
void arb_sub_start(arb_conn_t *c, uint64_t req, arb_live_t *live,
                   int has_from, uint64_t from);
void arb_sub_cancel(arb_conn_t *c, uint64_t id);
/* Unlinks every subscription of c (they stay allocated, marked dead, so a
 * list walk in progress stays valid); arb_sub_free_conn() frees them when
 * the connection itself is freed. */
void arb_sub_drop_conn(arb_conn_t *c);
void arb_sub_free_conn(arb_conn_t *c);
void arb_sub_committed(arb_server_t *srv, arb_pending_t *p);
void arb_sub_pump_conn(arb_conn_t *c);
/* Closes the idle handle of catch-ups that ran out of their turn (at the
 * stop; nothing is pumped after it). */
void arb_sub_close(arb_server_t *srv);
/* Events were appended to the store behind the commit path (a read
 * replica, daemon/replica.c): the subscribers of l (NULL: none) and every
 * all-matches subscriber catch up from the store. */
void arb_sub_appended(arb_server_t *srv, arb_live_t *l);
/* Ends every subscription of l, which is going away without a commit to
 * show for it: each is told why by an error push (code, msg) naming it,
 * and its connection finishes, as after any error push.  l->subs is
 * empty on return. */
void arb_sub_end_match(arb_live_t *l, const char *code, const char *msg);

int64_t arb_now_ms(void);
/* CPU time of the calling thread, ns (stats: the loop's and the commit
 * worker's share of the daemon's CPU). */
uint64_t arb_thread_cpu_ns(void);

/* stats.c: the figures `stats`, GET /api/stats and GET /metrics report,
 * gathered in one place so that the three always agree. */
typedef struct arb_stats {
    arb_store_stats_t     st;           /* zero when the store cannot say */
    uint64_t              connections;  /* protocol connections open */
    uint64_t              subscribers;  /* subscriptions and live streams */
    uint64_t              queued;       /* appends awaiting commit */
    uint64_t              http_connections, streams;
    const arb_counters_t *n;
} arb_stats_t;
/* Every figure, from one place.  0, or the store's ARB_E* code with why
 * (then there are no figures to report). */
int  arb_stats_collect(arb_server_t *srv, arb_stats_t *out, arb_buf_t *why);
/* The counters `stats` and GET /api/stats both report, after "engine",
 * in the order both write them: one list, so the two keep one shape. */
typedef struct arb_stat_fig {
    const char *name;
    uint64_t    value;
} arb_stat_fig_t;
#define ARB_STAT_FIGS 18
void arb_stats_figures(const arb_stats_t *x, arb_stat_fig_t out[ARB_STAT_FIGS]);
void arb_stats_ack(arb_server_t *srv, const arb_pending_t *p);
void arb_stats_commit(arb_server_t *srv, size_t events);
/* An append refused with ARB_E* code rc (counted in `rejected`). */
void arb_stats_reject(arb_server_t *srv, int rc);

/* http.c: the HTTP server (docs/HTTP.md) when [http] listen is set.
 * start: 0 or -1 (logged); stop closes the listener and every HTTP
 * connection (on the loop) but those of writes awaiting their ack (they
 * close once answered); free releases the rest after the loop ended;
 * committed feeds the live streams after p's ack. */
int  arb_http_start(arb_server_t *srv);
void arb_http_stop(arb_server_t *srv);
/* After the stop's last commit: shuts what arb_http_stop() left open for
 * an answer that has not come (none should be left). */
void arb_http_stop_held(arb_server_t *srv);
void arb_http_free(arb_server_t *srv);
void arb_http_committed(arb_server_t *srv, const arb_pending_t *p);
/* A read replica's: 1 when a live stream shows `match` (its own, or the
 * all-matches one; NULL: any match); and an event its mirror committed
 * to the store (seq of l, at log position pos, its canonical bytes), for
 * those streams, once l is at its new head. */
int  arb_http_shows(arb_server_t *srv, const char *match);
void arb_http_appended(arb_server_t *srv, const arb_live_t *l, uint64_t seq,
                       uint64_t pos, int64_t time_ms,
                       const unsigned char *hash, const void *bytes,
                       size_t len);
/* A read replica's: l, a dealt match whose streams were told `sealed`,
 * can be judged now (its deal came after its open was stored): its
 * streams get its state, the first one they have. */
void arb_http_unsealed(arb_server_t *srv, const arb_live_t *l);
/* After a reload of the tokens: every live stream whose token is gone or
 * changed gets `revoked` and ends (http_live.c). */
void arb_http_revoke(arb_server_t *srv);
/* ... and every protocol connection's: closed (server.c). */
void arb_server_revoke(arb_server_t *srv);
/* Open HTTP connections and live streams (0 and 0 without HTTP). */
void arb_http_count(arb_server_t *srv, uint64_t *conns, uint64_t *streams);

/* checkpoint.c: the signing key, created in srv->cfg.data on first start
 * and loaded into srv->signing (-1 when it cannot be made or read,
 * logged); wiped by arb_checkpoint_clear (idempotent).  The checkpoint op
 * (op_read.c) answers with arb_checkpoint_reply. */
int  arb_checkpoint_init(arb_server_t *srv);
void arb_checkpoint_clear(arb_server_t *srv);
void arb_checkpoint_reply(arb_conn_t *c, uint64_t id, const char *match);

#endif
