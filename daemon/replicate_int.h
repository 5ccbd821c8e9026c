/*
 * replicate_int.h - what the replication files share (daemon/replicate.h
 * is the interface).  Fields marked [mu] are shared between the loop
 * thread and the replication thread and read or written under mu only;
 * [thr] fields belong to the replication thread; [loop] to the loop.
 */
#ifndef ARB_REPLICATE_INT_H
#define ARB_REPLICATE_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <uv.h>

#include "core/hash.h"
#include "core/ledger/store.h"
#include "daemon/replicate.h"
#include "proto/stream.h"

/* ARBITERD_WALK_DROP=last (see walk_drop). */
#define ARB_REPL_WALK_DROP_LAST UINT64_MAX

/* An event of the window: read, in flight (published, its PubAck not
 * in), acked (an open whose deal message must go first), done (the
 * cursor may pass it). */
enum { EV_NEW = 0, EV_SENT, EV_ACKED, EV_DONE };

/* One event read from the log, waiting for its PubAck. */
typedef struct arb_repl_ev {
    uint64_t       pos;
    char           match[ARB_STREAM_ID_MAX + 1];
    uint64_t       seq;
    int64_t        time_ms;
    unsigned char  hash[ARB_HASH_LEN];
    void          *bytes;
    size_t         len;
    int            state;           /* [mu] EV_* of replicate.c */
    /* [mu] In flight: the message libnats holds (compared, never
     * dereferenced: the ack handler finds the event by it) and when it
     * was sent (a PubAck that does not come within timeout_ms fails). */
    const void    *msg;
    int64_t        sent_ms;
    /* Set by resync for the next send: the subject's last stream
     * sequence it must still have (ExpectLastSubjectSeq), or that it must
     * be empty (ExpectNoMessage); checked by the stream leader. */
    uint64_t       expect;
    int            expect_none;
    /* Failed while a later event of its match was stored: the subject
     * lacks it in the middle.  Not sent again (that would end
     * the subject on a lower seq); the next anti-entropy pass repairs the
     * subject and marks it done.  Its successors wait. */
    int            hole;
    /* The first send of its match in resync (it may carry an
     * expectation): the match's next events wait for its answer. */
    int            probe;
    /* [mu] An open resync found in the stream, acked for its deal: the
     * deal goes only when the stream lacks it (replicate.c, deals()). */
    int            found;
    /* [mu] Acked as a duplicate of this stream sequence: the dedupe
     * window knows its message id, which another writer's event at its
     * seq (or a message deleted since) may hold.  Acked, not done, until
     * that sequence is read (replicate.c, deals()). */
    uint64_t       dup;
    /* [mu] That sequence did not hold it: it goes again without its
     * message id, after a resync. */
    int            no_id;
} arb_repl_ev_t;

/* What the passes learnt about one match (sorted array by id). */
typedef struct arb_repl_fence {
    char     match[ARB_STREAM_ID_MAX + 1];
    uint64_t stream_seq;            /* the stream's last Arbiter-Seq */
    uint64_t local_seq;             /* ours when it was seen */
} arb_repl_fence_t;

typedef struct arb_repl_stats {
    int      connected;             /* the NATS connection is up */
    int      stream_ok;             /* the stream exists and fits */
    uint64_t cursor;                /* published up to this position */
    uint64_t head;                  /* committed up to this position */
    int64_t  oldest_ms;             /* commit time of cursor + 1, or 0 */
    uint64_t published;             /* events acked by the stream */
    uint64_t duplicates;            /* of them, already there (dedupe) */
    uint64_t republished;           /* repaired by anti-entropy/resync */
    uint64_t deals_republished;     /* deal messages the stream had lost,
                                       published again by a pass */
    uint64_t errors;                /* failed publishes and requests */
    uint64_t checks;                /* full anti-entropy passes done */
    uint64_t missing;               /* matches found short in a pass */
    uint64_t diverged;              /* matches whose stream differs */
    uint64_t ahead;                 /* matches whose stream is ahead */
    uint64_t disconnects;
    uint64_t sync_timeouts;         /* acks refused as unreplicated */
    uint64_t flushes;               /* sync: lone bursts written at once */
    uint64_t resync_looks;          /* matches compared with the stream
                                       by a resync (a last-message
                                       request each) */
    uint64_t undecided;             /* repairs put off: the stream's
                                       answers disagreed (election) */
    uint64_t refused;               /* events the cursor passed without
                                       the stream holding them: their
                                       match is fenced (another history
                                       there); a sync ack of one is
                                       answered "unreplicated" */
    /* Passes asked for by `replicate` are numbered: check_done is the
     * number of the last one asked before the last pass that finished
     * began, so a pass numbered N has run once check_done >= N; last_*
     * are that pass's findings. */
    uint64_t check_asked, check_done;
    uint64_t last_matches, last_repaired, last_put_off;
    /* Of the last pass that finished (any): subjects it read message by
     * message as asked (walk), and matches it took as whole by their
     * subject's count without asking for their last message. */
    uint64_t last_read, last_counted;
    /* Of the last pass: matches that had events published while it ran,
     * looked at again at its end with publishing waiting. */
    uint64_t last_busy;
} arb_repl_stats_t;

/* The log's matches as a pass or the fence look lists them, sorted by
 * id (as the store lists them). */
typedef struct arb_repl_list {
    char     (*id)[ARB_STREAM_ID_MAX + 1];
    uint64_t  *last;                /* last seq */
    int64_t   *last_ms;             /* time of the last event */
    size_t     n, cap;
} arb_repl_list_t;

/* Every event subject's message count from one listing of the stream's
 * subjects (replicate_check.c): a stream info filtered to one subject
 * costs the server a scan of every subject, so a pass or a resync reads
 * them all at once. */
typedef struct arb_repl_count {
    char     *subj;
    uint64_t  n;
} arb_repl_count_t;

typedef struct arb_repl_counts {
    arb_repl_count_t *v;            /* sorted by subj once loaded */
    size_t            len, cap;
    int               have;         /* loaded */
} arb_repl_counts_t;

/* A listing of the counts taken on a thread of its own
 * (replicate_lister.c), so that publishing goes on while the server
 * answers: 1.7 s at 100,000 subjects here. */
enum {
    ARB_LISTER_IDLE = 0,
    ARB_LISTER_RUNNING,             /* its thread owns counts and why */
    ARB_LISTER_DONE                 /* to be taken */
};

typedef struct arb_repl_lister {
    atomic_int         state;       /* ARB_LISTER_* */
    atomic_int         cancel;      /* stop at the next subject */
    pthread_t          th;
    arb_repl_t        *r;
    int                rc;
    arb_repl_counts_t  counts;
    arb_buf_t          why;
} arb_repl_lister_t;

/* An anti-entropy pass as it goes (replicate_pass.c): it runs in slices
 * between the publishing rounds.  Each match's upto (l.last) is the seq
 * before its first unpublished event when the pass began, and counts the
 * listing then, with nothing in flight; a match published since is
 * consistent with neither, so it is looked at again in a last round
 * with publishing waiting (late). */
enum {
    ARB_PASS_NONE = 0,              /* no pass running */
    ARB_PASS_LIST,                  /* the counts being listed, then
                                       `next` */
    ARB_PASS_FIRST,                 /* first look: candidates noted */
    ARB_PASS_PAUSE,                 /* 2 s before the second look */
    ARB_PASS_SECOND,                /* second look: repairs */
    ARB_PASS_END                    /* the late round, or the end */
};

typedef struct arb_repl_pass {
    int                phase;       /* ARB_PASS_* */
    int                next;        /* the phase after ARB_PASS_LIST */
    int                walk;        /* ARB_REPL_WALK_* asked */
    int                quiet;       /* the late round: nothing published
                                       until the pass ends */
    arb_repl_list_t    l;           /* the log's matches when it began */
    arb_repl_counts_t  counts;
    arb_repl_lister_t  lister;      /* counts as they are listed */
    unsigned char     *flag;        /* per match of l: PASS_F_* */
    size_t            *cand, ncand; /* first look: to look at again */
    size_t            *late, nlate; /* published while it ran */
    size_t             at;          /* next of this look's matches */
    size_t             fixed, counted, walked, undecided, busy;
    char               rolled[ARB_STREAM_ID_MAX + 1];
                                    /* the last match read in turn: the
                                       next pass goes on past it */
    int64_t            t0, began, second_at;
} arb_repl_pass_t;

typedef struct arb_repl_hset {
    const char **slot;
    size_t       n, cap;
} arb_repl_hset_t;

struct arb_server;

struct arb_repl {
    struct arb_server *srv;         /* [loop] */
    arb_store_t       *store;       /* thread-safe */
    const arb_repl_conf_t *conf;    /* read-only while running */
    char               cursor_path[4096];
    unsigned char      key[ARB_STREAM_KEY_LEN];
    int                have_key;

    pthread_t          thr;
    int                thr_started;
    pthread_mutex_t    mu;
    /* Waited on by the thread (for work, PubAcks, a listing) and, at
     * start, by the loop (verified) and at stop (closed): every wake-up
     * is a broadcast, so that none meant for one waiter is taken by the
     * other (until 2026-12-04 a PubAck's went to the loop waiting at
     * start, and a quiesce slept out its 50 ms slice). */
    pthread_cond_t     cv;
    int                stop;        /* [mu] */
    int                thr_done;    /* [mu] the thread is about to end */
    int                cut;         /* [mu] the stop closed the connection
                                       under the thread: no PubAck comes */
    int                check_req;   /* [mu] a pass is wanted */
    int                check_walk;  /* [mu] and which subjects it reads
                                       message by message (ARB_REPL_WALK_*:
                                       at start, on demand) */
    uint64_t           check_began; /* [mu] st.check_asked when the
                                       running pass began */
    char               rolled[ARB_STREAM_ID_MAX + 1];
                                    /* [thr] the regular passes read in
                                       turn from the first match past
                                       this id ("": a random one) */
    int                verified;    /* [mu] the fence look is done:
                                       writes may be accepted */
    /* The fence look as it goes (replicate_fence.c): the log's matches
     * when it began, and which of them were compared with the stream; a
     * write to one compared, or an open of an id the log did not hold
     * once the stream's subjects were read, is judged at once. */
    int                listed;      /* [mu] look.* set, subjects read */
    arb_repl_list_t    look;        /* [mu] freed when verified */
    unsigned char     *looked;      /* [mu] per look entry: compared */
    int                resync;      /* [mu] after (re)connect */
    int                closed;      /* [mu] libnats' last callback ran */
    int                abandoned;   /* closed (or an owed PubAck call)
                                       did not come at stop: r is never
                                       freed (a late callback of libnats
                                       may still reach it) */
    /* [mu] Messages libnats took (js_PublishMsgAsync) whose PubAck
     * handler call is still owed: each one ends in exactly one handler
     * call (libnats removed it from its map) or in a pending list taken
     * back (reclaim).  The handler runs on the reply subscription's own
     * thread, which neither the close nor closed_cb (another thread)
     * waits for, so the stop waits for this to be 0 as well. */
    size_t             owed;
    /* Durable up to this log position: stored by the loop after each
     * commit, read by the thread without mu (st.head is a copy for
     * stats).  The loop signals cv only while `waiting` says the thread
     * sleeps until a commit: a thread busy publishing polls instead, and
     * the loop does not pay a wake-up per commit. */
    _Atomic uint64_t   head;
    atomic_int         waiting;
    arb_repl_stats_t   st;          /* [mu] */
    arb_repl_fence_t  *fence;       /* [mu] sorted by match */
    int                fence_lost;  /* [mu] a fence could not be recorded
                                       (out of memory): every write is
                                       refused and nothing published,
                                       until a restart looks again */
    size_t             nfence, capfence;
    /* [mu] The log positions refused (st.refused), ascending: a sync ack
     * or a retry whose positions include one is answered
     * "unreplicated" once the cursor has passed it.  Only a fenced
     * match's unpublished events land here, so it grows with forks, not
     * with the log. */
    uint64_t          *refused;
    size_t             nrefused, caprefused;

    uv_async_t         async;       /* [loop] the cursor moved */
    int                async_init;
    uv_timer_t         timer;       /* [loop] sync timeouts */
    int                timer_init;
    struct arb_pending **held;      /* [loop] acks waiting (sync, max_lag) */
    size_t             nheld, capheld;
    uint64_t          *held_t;      /* [loop] uv_now at hold */
    /* async mode with max_lag: [loop] the bound lifted by a timeout
     * (until the stream is back within it); acks that waited for it and
     * waits that timed out; [atomic] acks are held (the PubAck handler
     * wakes the loop only then). */
    int                bound_off;
    uint64_t           lag_holds, lag_timeouts;
    atomic_int         holding;

    /* [thr]; the window's layout (win, nwin, done_n) changes under mu
     * too: the ack handler reads it. */
    arb_stream_t      *s;
    arb_repl_ev_t     *win;         /* events from cursor + 1 in order */
    size_t             nwin, capwin;
    size_t             done_n;      /* [mu] win[0..done_n) are done */
    size_t             inflight;    /* [mu] published, PubAck not in */
    size_t             dups;        /* [mu] acked as duplicates, their
                                       sequence not read yet (dup) */
    int                draining;    /* [mu] waiting for inflight to be 0 */
    int                kick;        /* [mu] the ack handler woke the
                                       thread: something to do */
    uint64_t           read_pos;    /* last position read into win */
    arb_store_links_t *links;       /* what fill's reads remember of each
                                       match's links (NULL: none yet) */
    /* [thr] The log's head when the thread started: the stream may hold
     * any event up to it (the cursor file lags, or was lost, or the store
     * was restored), so a resync reads on to it, window after window,
     * before it ends. */
    uint64_t           resync_to;
    /* Test hook (ARBITERD_WALK_DROP=N, tests/integration/nats_resync.sh):
     * every subject read passes over its Nth message, as a consumer on a
     * NATS node whose copy of the stream lacks it does.  "last"
     * (ARB_REPL_WALK_DROP_LAST): every read ends at the subject's last
     * stream sequence without its message, as one on a node whose copy
     * is numbered differently does.  0: none. */
    uint64_t           walk_drop;
    /* Test hook (test_repl_forked.c): arb__repl_last_ours calls it with
     * the stream sequence it found, before reading the message there,
     * where a deletion racing the look lands.  NULL: none. */
    void             (*look_back_hook)(arb_repl_t *r, uint64_t sseq);
    /* Test hook (test_repl_forked.c): a repair of holes before the
     * subject's end (replicate_check.c, check_ahead) calls it with the
     * match and its first missing seq between reading the subject and
     * republishing, where another writer's publish racing the pass lands.
     * NULL: none. */
    void             (*repair_hook)(arb_repl_t *r, const char *match,
                                    uint64_t first);
    /* Test hook (test_repl_forked.c): a pass calls it as its first
     * round's pause begins (the first look done, candidates found),
     * while publishing goes on until the second look.  NULL: none. */
    void             (*pause_hook)(arb_repl_t *r);
    /* Test hook (test_repl_forked.c): the fence look calls it once it
     * has read the stream's subjects (fencing those the log lacks); what
     * it returns is taken for the listing's outcome, as a failure of a
     * later page would be.  NULL: none. */
    int              (*list_hook)(arb_repl_t *r, arb_buf_t *why);
    int                wave_failed; /* [mu] a publish failed: the thread
                                       settles what is in flight */
    jsErrCode          wave_jerr;   /* [mu] */
    natsStatus         wave_err;    /* [mu] */
    int                wave_dup;    /* [mu] an event acked as a duplicate
                                     * of a message that is not it goes
                                     * again after a resync: no failure
                                     * of NATS (settle) */
    uint64_t           last_cursor_write_ms;
    int64_t            busy_until;  /* polls, not waits, until then */
    uint64_t           flushed_ns;  /* sync: a lone burst last written
                                       at once (uv_hrtime) */
    int64_t            lag_since;   /* a replica catching up since; 0 */
    arb_repl_hset_t    seen;        /* matches whose next events wait */
    char               said_refused[ARB_STREAM_ID_MAX + 1]; /* the match
                                       whose refusals were last said */
    int                ever_ok;     /* the stream was there once */
    /* [thr] The wall-clock time (ms) a pass that read every subject
     * began, with nothing put off: the subjects of matches with no
     * event since were whole then (kept in the cursor file).  0: none. */
    int64_t            walked_ms;
    arb_repl_counts_t  resync_counts;   /* [thr] the resync's listing */
    arb_repl_pass_t    pass;        /* [thr] the running pass */
};

/* The matches a resync has compared with the stream since it began
 * (sorted ids), each with held: 1 + the last seq the stream was found to
 * hold once each, from 0 on (0: nothing known), so that the match's
 * events in a later window are not sent again.  A reconnect empties it:
 * a node that came back may lack what it held. */
typedef struct arb_repl_idset {
    char    (*id)[ARB_STREAM_ID_MAX + 1];
    uint64_t *held;
    size_t    n, cap;
    uint64_t  epoch;        /* st.disconnects when they were compared */
} arb_repl_idset_t;

/* replicate.c */
void arb__repl_log_err(arb_repl_t *r, const char *what, int rc,
                       arb_buf_t *why);
/* The pipeline: publishes, in commit order, every event of the window
 * that may go, up to max_pending in flight, without waiting for PubAcks
 * (the ack handler moves the cursor).  A match's events wait behind:
 *   - a hole of it (the pass fills it first);
 *   - its open, while its deal message is due (with a replication key);
 *   - in resync, its probe: the first event sent after the match was
 *     compared with the stream (resync_match), which may carry an
 *     expectation the leader checks, answered before the next goes;
 *     after it the match's events flow as usual.
 * A fenced match's unpublished events are refused, and nothing at all
 * goes while fence_lost is set (a fork found but not recorded: any match
 * may be it).  Resync ends once every event left in the window belongs
 * to a match compared (checked), no probe is out and the window reached
 * r->resync_to; a compared match's event the stream was found to hold
 * is done, in whichever window it comes.  Returns how many
 * it sent, or an ARB_E* code: a failure, settled first (what was in
 * flight answered or taken back, holes marked).  The thread's own. */
int  arb__repl_pump(arb_repl_t *r, arb_repl_idset_t *checked, int resync,
                    arb_buf_t *why);
/* What is in flight answered (at most timeout_ms: the last PubAck wakes
 * it), the deals of acked opens out, the cursor moved: nothing is in
 * flight after 0.  Else the ARB_E* code of a failure (settled). */
int  arb__repl_quiesce(arb_repl_t *r, arb_buf_t *why);
/* libnats's PubAck handler (on its ack thread): the event sent as msg is
 * in the stream (pa) or failed (pae); msg is destroyed. */
void arb__repl_ack_cb(jsCtx *js, natsMsg *msg, jsPubAck *pa,
                      jsPubAckErr *pae, void *ud);
/* Publishes one event synchronously, expecting the subject's last
 * message to be stream sequence `expect` (0: the subject must be empty);
 * *stream_seq gets the new one.  It carries the event's Nats-Msg-Id: a
 * stream that answered "not found" while still holding the event (a new
 * leader not caught up) recognises it inside the dedupe window.  Such an
 * ack (Duplicate) stores nothing; when the stream sequence it names still
 * holds the event, ARB_EEXIST (the repair is put off, never forced);
 * when that message was deleted, the event goes again without the id.
 * A refused expectation (10071: the subject has moved or was never empty)
 * is ARB_EEXIST too.  When it names another hash at this seq of the
 * match (another writer's event under our id), the match is fenced
 * (arb__repl_forked) and ARB_ECONFLICT is returned: nothing went.  copy:
 * a second copy of an event the stream holds, on purpose (no message id,
 * which would make it a duplicate). */
int  arb__repl_put(arb_repl_t *r, const char *match, uint64_t seq,
                   const unsigned char hash[ARB_HASH_LEN], const void *bytes,
                   size_t len, int copy, uint64_t expect,
                   uint64_t *stream_seq, arb_buf_t *why);
/* Messages arbiter did not write that are looked past, at a subject's
 * end, for the last one of ours (arb__repl_last_ours); past as many, the
 * resync sends the event after them without that comparison, and the
 * look at start leaves the match unverified. */
#define ARB_REPL_FOREIGN_MAX 16
/* On subject subj, whose message at stream sequence `before` arbiter did
 * not write: the last message of ours before it, into *m, past at most
 * ARB_REPL_FOREIGN_MAX more that are not (or deleted while looked at).
 * 1 (found; clear *m), 0 (the subject holds none of ours before it),
 * ARB_ETOOBIG (as many not ours, and more), or an ARB_E* code when NATS
 * did not answer (replicate_fence.c). */
int  arb__repl_last_ours(arb_repl_t *r, const char *subj, uint64_t before,
                         arb_stream_msg_t *m, arb_buf_t *why);
/* arb_stream_settled, except that a replica which has been catching up
 * for ARB_REPL_STUCK_MS no longer holds the thread back (replicate.c). */
#define ARB_REPL_STUCK_MS 10000
int  arb__repl_settled(arb_repl_t *r, arb_buf_t *why);
/* Its rule, apart for the tests: rc and lagging as arb_stream_settled_lag
 * gave them, now in ms; *since is the thread's lag_since.  Returns the
 * answer to act on; *say is 1 when it goes on without the replica for the
 * first time since the stream last settled. */
int  arb__repl_settle_rule(int rc, int lagging, int64_t now, int64_t *since,
                           int *say);
/*
 * A failure that repeats (the thread retries every 250 ms to 1 s through
 * an outage or a leaderless stream) is logged when its reason changes,
 * then once every ARB_REPL_SAY_AGAIN_MS with how often it came
 * meanwhile, not four times a second: 843 lines in one 140 s election
 * were the whole log.  Reasons that differ only in their numbers (a
 * replica's lag) are the same.  stats.errors counts every one.
 */
#define ARB_REPL_SAY_AGAIN_MS 60000
typedef struct arb_repl_said {
    char     last[256];     /* the reason last said ("" after a success) */
    uint64_t again;         /* the same reason since, unsaid */
    int64_t  at_ms;         /* when it was said */
} arb_repl_said_t;
/* 1: say msg now (*again times it came unsaid since, in *secs s; 0 for
 * a new reason); 0: keep quiet, counted. */
int  arb__repl_say_rule(arb_repl_said_t *sd, const char *msg, int64_t now,
                        uint64_t *again, int64_t *secs);
/* The failure is over: the next one is said at once. */
void arb__repl_said_clear(arb_repl_said_t *sd);
/* The deal message of match, sealed from the store's secret (none
 * without a replication key, or for a match not dealt), unless the
 * stream holds it: *stored (when not NULL) is 1 when a copy went in.  0,
 * or an ARB_E* code with why set. */
int  arb__repl_put_deal(arb_repl_t *r, const char *match, int *stored,
                        arb_buf_t *why);

/* Under mu: event e of a fenced match will not be published; it is done
 * for the cursor and its position refused.  0, or ARB_ENOMEM (e is left
 * as it was: its ack then times out as unreplicated). */
int  arb__repl_refuse_locked(arb_repl_t *r, arb_repl_ev_t *e);
/* Under mu: 1 when a position in lo..hi was refused. */
int  arb__repl_refused_locked(const arb_repl_t *r, uint64_t lo, uint64_t hi);

/* replicate_cursor.c: DATA/replicate.pos (format there). */
#define ARB_REPL_REFUSED_MAX (1u << 20)   /* refused positions kept */
typedef struct arb_repl_cursor {
    uint64_t  published;            /* published up to this position */
    int64_t   walked_ms;            /* 0: no pass read every subject */
    uint64_t *refused;              /* ascending (owned; NULL when none) */
    size_t    nrefused;
} arb_repl_cursor_t;
/* The text of a cursor file, len bytes, into *c (cleared first).  0;
 * ARB_ECORRUPT with why (not NULL) naming the line and what is wrong;
 * ARB_ENOMEM. */
int  arb__repl_cursor_parse(arb_repl_cursor_t *c, const char *text,
                            size_t len, arb_buf_t *why);
/* Reads the file at path: 0 (a missing file is an empty cursor: nothing
 * published), or an ARB_E* code with why (not NULL) naming the file. */
int  arb__repl_cursor_load(arb_repl_cursor_t *c, const char *path,
                           arb_buf_t *why);
/* The text of c, as a file holds it, into out (emptied first).  0 or
 * ARB_ENOMEM. */
int  arb__repl_cursor_format(arb_buf_t *out, const arb_repl_cursor_t *c);
/* Writes c to path: a temporary file written and fsync'd, then renamed
 * over it.  0 or -1 (errno). */
int  arb__repl_cursor_save(const char *path, const arb_repl_cursor_t *c);
void arb__repl_cursor_clear(arb_repl_cursor_t *c);     /* NULL-safe */

/* qsort order of window entries (arb_repl_ev_t pointers): by match,
 * then seq. */
int  arb__repl_ev_cmp(const void *a, const void *b);

/* Waits ms on the thread's condition; a stop cuts it short. */
void arb__repl_sleep(arb_repl_t *r, unsigned ms);

/* The thread: starts it (connecting in the background); stops and joins
 * it, writing the cursor a last time. */
int  arb__repl_thread_start(arb_repl_t *r, arb_buf_t *why);
void arb__repl_thread_stop(arb_repl_t *r);

/* replicate_check.c */
/* Lists the log's matches into an arb_repl_list_t (arb_store_matches'
 * callback); arb__repl_list_free frees what it holds. */
int  arb__repl_list_cb(void *ud, const arb_match_info_t *m);
void arb__repl_list_free(arb_repl_list_t *l);
/* The index of match id in the sorted list l, or l->n. */
size_t arb__repl_list_find(const arb_repl_list_t *l, const char *id);
/* The index of the first id of l not below id (l->n: none). */
size_t arb__repl_list_lower(const arb_repl_list_t *l, const char *id);
/* 1 once the thread is asked to stop. */
int  arb__repl_stopping(arb_repl_t *r);
/* Which subjects a pass reads message by message, besides those whose
 * count does not add up: none (the regular passes), those of the matches
 * with an event since walked_ms less ARB_REPL_WALK_SLACK_MS (the pass at
 * start), every one (on demand, and at start when none was read whole
 * before).  A larger value includes the smaller. */
enum { ARB_REPL_WALK_NONE = 0, ARB_REPL_WALK_RECENT, ARB_REPL_WALK_ALL };
#define ARB_REPL_WALK_SLACK_MS (10 * 60 * 1000)
/* One match: local (last_seq, head) against the stream; repairs.
 * *upto: the highest seq of this match known published (UINT64_MAX: the
 * local head).  walk: read the subject even when its count adds up.
 * Sets *repaired when it republished (dry: when it would;
 * nothing is published or reported), and *whole when the subject is
 * known to hold every seq 0..*upto once it returns 0 (counted, read, or
 * repaired now; never for a match found ahead, diverged or unreadable).
 * A repair in resync of a subject that ends past *upto makes it whole up
 * to its end and raises *upto to it (replicate_check.c, check_ahead).
 * ARB_EEXIST: the stream turned out to hold what looked missing; the
 * repair is put off. */
int  arb__repl_check_match(arb_repl_t *r, const char *match, uint64_t *upto,
                           int walk, int dry, int *repaired, int *whole,
                           arb_buf_t *why);
/* The hash of the log's event seq of match: 1 with hash set, 0 when the
 * log does not hold it, or an ARB_E* code. */
int  arb__repl_log_hash(arb_repl_t *r, const char *match, uint64_t seq,
                        unsigned char hash[ARB_HASH_LEN], arb_buf_t *why);
/* (Re)reads every event subject's count into c.  0 or the listing's
 * error (c then empty, not loaded). */
int  arb__repl_counts_load(arb_repl_t *r, arb_repl_counts_t *c,
                           arb_buf_t *why);
/* The same, cut short with ARB_EAGAIN once *cancel is set (checked at
 * each subject); cancel may be NULL. */
int  arb__repl_counts_list(arb_repl_t *r, arb_repl_counts_t *c,
                           const atomic_int *cancel, arb_buf_t *why);
void arb__repl_counts_free(arb_repl_counts_t *c);     /* empties it */
/* The subject's message count from c when loaded, else asked (stream
 * info filtered to it).  0 or an ARB_E* code. */
int  arb__repl_count_of(arb_repl_t *r, const arb_repl_counts_t *c,
                        const char *subj, uint64_t *n, arb_buf_t *why);
/* The resync's subject counts (r->resync_counts): loaded at the first
 * need after arb__repl_counts_drop, which the resync calls whenever it
 * starts over. */
int  arb__repl_resync_count(arb_repl_t *r, const char *subj, uint64_t *n,
                            arb_buf_t *why);
void arb__repl_counts_drop(arb_repl_t *r);
/* replicate_lister.c */
/* Starts listing the counts on a thread of its own (l idle).  0, or
 * ARB_ENOMEM when no thread could be made. */
int  arb__repl_lister_start(arb_repl_t *r, arb_repl_lister_t *l,
                            arb_buf_t *why);
/* The listing's result moved into c (emptied first) once done, l idle
 * again: 0 or the listing's error (why set).  1 while it runs (or when
 * none was started). */
int  arb__repl_lister_take(arb_repl_lister_t *l, arb_repl_counts_t *c,
                           arb_buf_t *why);
/* 1 while the listing runs (not yet done). */
int  arb__repl_lister_busy(const arb_repl_lister_t *l);
/* Stops a listing under way and waits for its thread; l idle after it.
 * NULL-safe, and a no-op on an idle lister. */
void arb__repl_lister_cancel(arb_repl_lister_t *l);
/* replicate_pass.c */
/* The longest subject a pass reads in turn, in messages: read whole in
 * one slice with publishing waiting, about 60 ms here. */
#define ARB_REPL_TURN_LONGEST 1000
/* 1 when match i of l may be read in turn: something published, and at
 * most ARB_REPL_TURN_LONGEST events. */
int  arb__repl_turn_takes(const arb_repl_list_t *l, size_t i);
/* The matches a pass reads in turn: from the first of l past id `after`
 * ("": from index start, modulo l->n), round the list, while their
 * messages (last + 1 each; a match it does not take is passed over and
 * not counted) fit in budget, at least one.  Returns how many of l the
 * turn spans from *at (0: none: no budget, or no match). */
size_t arb__repl_turn(const arb_repl_list_t *l, const char *after,
                      size_t start, uint64_t budget, size_t *at);
/* Slices of a pass last about this long; publishing runs between them. */
#define ARB_REPL_SLICE_MS 5
/* For up to this many matches (busy ones, candidates of a second look)
 * a pass asks their subjects' counts one by one rather than listing
 * every subject. */
#define ARB_REPL_ASK_MAX 8
/* Begins a pass (nothing may be in flight: the caller quiesced): every
 * match of the store against the stream's last message and the subject's
 * count; repairs what is missing from the log, notes what is ahead or
 * different.  walk: ARB_REPL_WALK_*.  Acts only on what two looks 2 s
 * apart, on a settled stream, agree on.  0, or an ARB_E* code (no pass
 * then). */
int  arb__repl_pass_begin(arb_repl_t *r, int walk, arb_buf_t *why);
/* Runs the pass for about ARB_REPL_SLICE_MS (its last round, with
 * publishing waiting, to its end).  *fin is 1 once it has ended, with
 * *undecided the repairs the stream refused as already held (to pass
 * again soon), and *moved 1 when it changed what the stream holds or
 * what the window waits for (repairs, holes filled) or put a repair off:
 * what the publishing knew of the stream may be stale (a resync).  0, or
 * an ARB_E* code: NATS failed mid-pass, the pass is dropped
 * (arb__repl_pass_drop) and tried again later. */
int  arb__repl_pass_step(arb_repl_t *r, int *fin, size_t *undecided,
                         int *moved, arb_buf_t *why);
/* 1 while a pass runs; 2 while it waits for its second look (nothing to
 * do before second_at) or for its listing of the counts. */
int  arb__repl_pass_running(const arb_repl_t *r);
/* An event of match was published (pump): a pass running takes it as
 * busy, to be looked at again with publishing waiting. */
void arb__repl_pass_sent(arb_repl_t *r, const char *match);
/* Drops the running pass, if any (a failure, a stop). */
void arb__repl_pass_drop(arb_repl_t *r);
/* Whether a pass begins at now (none running): asked for (the replicate
 * request, or the thread's own need: holes, a resync that holds a
 * match), due by check_interval (next_check; 0: not), a put-off repair
 * due (recheck; 0: none), or a failed pass due again (retry_at, a second
 * after it failed; 0: none).  Never before retry_at, however often a
 * pass is asked for meanwhile: a resync holding a match asks at every
 * round, and each failed pass asks the stream for its state. */
int  arb__repl_pass_due(int64_t now, int asked, int64_t next_check,
                        int64_t recheck, int64_t retry_at);
/* replicate_fence.c */
/* Before the first write: every match of the log against the subject's
 * last message, and every subject of the stream this recorder owns
 * against the log; what the stream holds past the log is fenced.  Each
 * match's writes are judged once it is compared (arb__repl_look_judged);
 * sets verified when every one is.  0, or an ARB_E* code (NATS down,
 * unsettled, a match that cannot be compared: tried again, from where
 * it stopped). */
int  arb__repl_fence_look(arb_repl_t *r, arb_buf_t *why);
/* Under mu: match id's fence, or NULL when it is not fenced. */
const arb_repl_fence_t *arb__repl_fence_find_locked(const arb_repl_t *r,
                                                    const char *id);
/* The stream holds another history of match (ahead: a seq past the
 * log): said (event replicate_ahead or replicate_diverged, "replicate:
 * match M: " and the sentence given), counted and fenced at stream_seq
 * (the seq at fault) against local_seq (the log's last). */
void arb__repl_forked(arb_repl_t *r, const char *match, int ahead,
                      uint64_t stream_seq, uint64_t local_seq,
                      const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* local_seq UINT64_MAX: the log does not hold the match.  Out of memory
 * it sets fence_lost: fenced is then every match. */
void arb__repl_fence_set(arb_repl_t *r, const char *match,
                         uint64_t stream_seq, uint64_t local_seq);
/* Under mu, before the look is done: 1 when a write to match id can be
 * judged already (its match compared, or an id the log did not hold once
 * the stream's subjects were read), 0 while it must wait (unverified). */
int  arb__repl_look_judged(const arb_repl_t *r, const char *id);
/* The look's rule for a subject of the stream holding msgs messages: the
 * index in l (the log's matches) of its match when the count is exactly
 * one message per seq of the log (0..last), which the look takes as
 * compared without asking for the last message; else SIZE_MAX. */
size_t arb__repl_look_counted(const arb_repl_list_t *l, const char *subject,
                              uint64_t msgs);
/* The order the look compares l's matches in: indexes into l, the most
 * recent activity first (the time of a match's last event), ties by id,
 * so that busy tables take writes first.  The caller frees it; NULL when
 * out of memory. */
size_t *arb__repl_look_order(const arb_repl_list_t *l);
/* Frees what the look holds (NULL-safe parts; at stop). */
void arb__repl_look_free(arb_repl_t *r);
/* replicate_loop.c: frees r and what it owns, once nothing of libnats or
 * the loop can reach it (arb_repl_free; tests). */
void arb__repl_mem_free(arb_repl_t *r);

/* replicate_loop.c: before the loop serves, waits (at most timeout_ms)
 * for the fence look, so that a recorder starting with NATS up refuses
 * no write as unverified.  With NATS down the daemon starts anyway. */
void arb__repl_wait_verified(arb_repl_t *r);
/* replicate_loop.c: the thread tells the loop the cursor moved. */
void arb__repl_wake_loop(arb_repl_t *r);

#endif
