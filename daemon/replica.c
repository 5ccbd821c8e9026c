/*
 * replica.c - a read replica following the replicated stream
 * (daemon/replica.h).
 *
 * DESIGN: the follower thread owns the NATS side and the mirror; the loop
 * thread owns everything a client sees.  They meet at the store (which is
 * thread-safe: the mirror appends, the loop reads) and at one position,
 * "appended up to P", handed over through a uv_async.  The mirror's lock
 * is held while it applies and while the loop asks it who wrote a match.
 *
 * A start reads the stream from where the last life's store ends
 * (DATA/replica.pos, daemon/replica_pos.h: the mirror says where, saved
 * at most once a second after a commit and at a clean stop), or from its
 * first message when that position does not hold.  Either way the mirror
 * checks each message it already holds against its own copy (same seq,
 * same hash) and appends only what is new, so a restart (of the replica
 * or of a NATS node) can neither skip nor double an event.  Nothing is
 * kept on the server.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <uv.h>

#include "core/clock.h"
#include "core/err.h"
#include "core/mp.h"
#include "daemon/log.h"
#include "daemon/replica.h"
#include "daemon/replica_lag.h"
#include "daemon/replica_marks.h"
#include "daemon/replica_owners.h"
#include "daemon/replica_pos.h"
#include "daemon/server.h"
#include "proto/stream.h"
#include "proto/stream_mirror.h"
#include "proto/stream_read.h"

/* A stop waits this long for the follower to end by itself before it
 * closes the follower's connection under a request to NATS. */
#define STOP_MS 1000
/* Touched matches handed to the loop per wake-up, at most. */
#define CATCH_UP_MAX 4096
/* Longest an applied event waits for the batch's commit while messages
 * keep coming (a busy stream never leaves the 1 ms gap that commits
 * it): what bounds the replica's lag, not the batch size. */
#define FLUSH_MS 10
/* Events that have waited this long for an earlier seq of their match
 * make the stream be read again from before them (waited_too_long), at
 * most once per REREAD_GAP_MS, from REREAD_BACK sequences earlier still:
 * a consumer on a NATS replica whose copy of the stream differs from its
 * leader's (nats-server 2.9.10 left one numbered differently and lacking
 * messages after a node was frozen 4 s; docs/FAULTS.md) passes over
 * events without a gap in its sequences, and its numbering may be off by
 * some hundreds.  A repair republished after its successors also makes
 * them wait, within a pass: reading again meets duplicates only. */
#define REREAD_WAIT_MS 10000
#define REREAD_GAP_MS  30000
#define REREAD_BACK    10000

typedef struct arb_replica {
    arb_server_t        *srv;
    arb_stream_conf_t    sconf;
    unsigned char        key[ARB_STREAM_KEY_LEN];
    int                  has_key;
    pthread_t            thread;
    arb_stream_t        *st;            /* the follower's connection; set
                                           and cleared under mu */
    int                  started;
    uv_async_t           async;
    int                  async_init;
    pthread_mutex_t      mu;
    /* under mu */
    arb_mirror_t        *mir;
    uint64_t             appended_pos;  /* store position the mirror reached */
    int                  stopping;
    int                  done;          /* the follower is about to end */
    int                  failed;        /* a store append failed */
    int                  connected;
    int                  nats_lost;     /* said in the log, until back */
    int64_t              lost_ms;       /* when it was lost (0: it is not) */
    int                  nats_closed;   /* libnats' last callback came */
    int                  abandoned;     /* ... or did not: r is kept */
    uint64_t             problems, foreign, reconnects;
    uint64_t             stream_last;   /* stream sequence last read */
    /* [loop] matches held in memory (watched or read): events applied
     * to them, and whole replays (a ruling among the new events, or a
     * match the store did not hold yet when it was first watched) */
    uint64_t             advanced, reloaded;
    int64_t              last_msg_ns;   /* its server timestamp */
    /* [follower] how far behind (replica_lag.h), once a second */
    uint64_t             head, settled_read, settled_head;
    int64_t              unread_ns;
    uint64_t             resumed_at;    /* where this start's read began */
    /* [follower] DATA/replica.pos: as loaded (used once, at the first
     * read), and as last saved */
    char                *pos_path;
    arb_replica_pos_t    saved;
    int                  has_saved;
    arb_replica_pos_t    pos;
    int64_t              pos_ms;        /* when last considered */
    uint64_t             store_pos0;    /* the store's log position at
                                           start */
    arb_owners_t        *owners;        /* DATA/replica.owners */
    arb_marks_t          marks;         /* [follower] places read */
    int64_t              look_ms;       /* [follower] between looks at the
                                           stream (stream_check) */
    /* [mu] dealt matches judged with a deal that came late, for the
     * loop to show (arb_http_unsealed); at most CATCH_UP_MAX */
    char               (*unsealed)[ARB_STORE_ID_MAX + 1];
    size_t               nunsealed;
} arb_replica_t;

void
arb_replica_conf_free(arb_replica_conf_t *c)
{
    if (c == NULL)
        return;
    free(c->urls);
    free(c->stream);
    free(c->credentials);
    free(c->secret_key_file);
    free(c->primary);
    memset(c, 0, sizeof(*c));
}

int
arb_replica_conf_set(arb_replica_conf_t *c, const char *k, const char *v,
                     arb_buf_t *why)
{
    char **dst = NULL;

    if (strcmp(k, "urls") == 0)
        dst = &c->urls;
    else if (strcmp(k, "stream") == 0)
        dst = &c->stream;
    else if (strcmp(k, "credentials") == 0)
        dst = &c->credentials;
    else if (strcmp(k, "secret_key_file") == 0)
        dst = &c->secret_key_file;
    else if (strcmp(k, "primary") == 0)
        dst = &c->primary;
    if (dst == NULL) {
        arb_buf_printf(why, "unknown [replica] key '%s' (urls, stream, "
                       "credentials, secret_key_file, primary)", k);
        return ARB_EINVAL;
    }
    if (*v == '\0' || ((dst == &c->stream) && !arb_stream_name_ok(v))) {
        arb_buf_printf(why, "[replica] %s: bad value '%s'", k, v);
        return ARB_EINVAL;
    }
    if (dst == &c->secret_key_file) {
        arb_buf_t e = ARB_BUF_INIT;

        if (arb_repl_key_check(v, &e) != 0) {
            arb_buf_printf(why, "[replica] %s", arb_buf_cstr(&e));
            arb_buf_free(&e);
            return ARB_EINVAL;
        }
    }
    if (dst == &c->urls || dst == &c->credentials) {
        arb_buf_t e = ARB_BUF_INIT;

        if ((dst == &c->urls ? arb_stream_urls_check(v, &e)
                             : arb_stream_creds_check(v, &e)) != 0) {
            arb_buf_printf(why, "[replica] %s: %s", k, arb_buf_cstr(&e));
            arb_buf_free(&e);
            return ARB_EINVAL;
        }
    }
    free(*dst);
    *dst = strdup(v);
    return *dst == NULL ? ARB_ENOMEM : 0;
}

static void
on_problem(void *ud, const char *match_id, uint64_t seq, const char *msg)
{
    arb_replica_t *r = ud;
    arb_log_ctx_t  ctx;

    memset(&ctx, 0, sizeof(ctx));
    ctx.match = match_id;
    ctx.seq = seq;
    ctx.has_seq = 1;
    r->problems++;
    arb_log_ev(ARB_LOG_ERROR, "replica_stopped_match", &ctx, "replica: %s; "
               "this match is no longer followed", msg);
}

/* Under mu (from inside an apply). */
static void
on_recorder(void *ud, const char *match_id, const char *recorder, int first)
{
    arb_replica_t *r = ud;

    arb_owners_note(r->owners, match_id, recorder, first);
}

/* Under mu (from inside an apply): the loop shows the match's state to
 * the live streams told `sealed` (on_async).  Past CATCH_UP_MAX (or out
 * of memory) a match is not shown until its next event, as before. */
static void
on_judged(void *ud, const char *match_id)
{
    arb_replica_t *r = ud;

    if (r->unsealed == NULL
        && (r->unsealed = malloc(CATCH_UP_MAX * sizeof(*r->unsealed)))
           == NULL)
        return;
    if (r->nunsealed == CATCH_UP_MAX)
        return;
    snprintf(r->unsealed[r->nunsealed++], ARB_STORE_ID_MAX + 1, "%s",
             match_id);
    uv_async_send(&r->async);
}

/* Loop thread: the matches on_judged noted, reloaded where they are held
 * in memory without their rule state, and shown. */
static void
show_unsealed(arb_replica_t *r)
{
    char        (*ids)[ARB_STORE_ID_MAX + 1];
    arb_live_t   *l;
    size_t        n, i;

    pthread_mutex_lock(&r->mu);
    ids = r->unsealed;
    n = r->nunsealed;
    r->unsealed = NULL;
    r->nunsealed = 0;
    pthread_mutex_unlock(&r->mu);
    for (i = 0; i < n; i++) {
        l = arb_live_peek(r->srv, ids[i]);
        if (l == NULL || !l->exists || l->m != NULL)
            continue;
        arb_live_reset(r->srv, l);
        /* (A replay that fails frees l.) */
        if ((l = arb_live_peek(r->srv, ids[i])) != NULL && l->m != NULL)
            arb_http_unsealed(r->srv, l);
    }
    free(ids);
}

/* Under mu (called from inside a flush). */
static void
on_appended(void *ud, uint64_t first, uint64_t last)
{
    arb_replica_t *r = ud;

    (void)first;
    r->appended_pos = last;
    uv_async_send(&r->async);
}

static int
stopping(arb_replica_t *r)
{
    int s;

    pthread_mutex_lock(&r->mu);
    s = r->stopping;
    pthread_mutex_unlock(&r->mu);
    return s;
}

static void
nap(arb_replica_t *r)
{
    int i;

    for (i = 0; i < 5 && !stopping(r); i++)
        usleep(100000);
}

/* The stream is to be read again after sequence upto (0: from its first
 * message; it was created again, or holds none of the places read), the
 * message read there being of server time upto_ns: what was read after
 * it was placed in the stream as it was, so nothing of it may be saved
 * as a position in the stream as it is (arb_mirror_restream). */
static void
restream(arb_replica_t *r, uint64_t upto, int64_t upto_ns, uint64_t *from)
{
    pthread_mutex_lock(&r->mu);
    arb_mirror_restream(r->mir, upto);
    r->stream_last = upto;
    r->last_msg_ns = upto_ns;
    pthread_mutex_unlock(&r->mu);
    if (upto == 0)
        arb_marks_reset(&r->marks);
    *from = upto + 1;
}

static int
msg_time(void *ud, uint64_t seq, int64_t *ns)
{
    return arb_stream_msg_time(ud, seq, ns, NULL);
}

/* Does the stream (in state ss) still hold the message this replica read
 * last?  The stream only appends, so when the one read at that sequence
 * is another one now, or the stream ends before it, NATS lost its tail
 * (a node's power cut: 2.9.10 syncs every two minutes; a stale leader)
 * and the messages now at the sequences read since may never have been
 * read.  They are read again after the last place read that the stream
 * still holds (*upto, of server time *upto_ns; 0: from its first
 * message).  Until 2026-12-04 the whole stream was read again: about
 * two minutes per 10 M messages.  A message deleted (a purge; its
 * sequence is not used again) hides nothing.  1 holds, 0 lost, -1
 * JetStream did not answer. */
static int
position_holds(arb_replica_t *r, arb_stream_t *st,
               const arb_stream_state_t *ss, uint64_t *upto,
               int64_t *upto_ns)
{
    char     again[100];
    uint64_t last;
    int64_t  last_ns, t = 0;
    int      rc;

    pthread_mutex_lock(&r->mu);
    last = r->stream_last;
    last_ns = r->last_msg_ns;
    pthread_mutex_unlock(&r->mu);
    if (last == 0 || last_ns == 0)
        return 1;
    if (ss->last >= last) {
        rc = arb_stream_msg_time(st, last, &t, NULL);
        if (rc == ARB_ENOTFOUND || (rc == 0 && t == last_ns))
            return 1;
        if (rc != 0)
            return -1;
    }
    if (arb_marks_held(&r->marks, ss->last, msg_time, st, upto, upto_ns)
        != 0)
        return -1;
    if (*upto == 0)
        snprintf(again, sizeof(again), "from its first message");
    else
        snprintf(again, sizeof(again), "again from sequence %" PRIu64
                 ", the last place read that it still holds", *upto + 1);
    arb_log_ev(ARB_LOG_WARN, "replica_resume", NULL, "replica: stream %s no "
               "longer holds the message read at sequence %" PRIu64 " (%s; "
               "NATS lost its tail): reading it %s", st->name, last,
               ss->last < last ? "it ends before it" : "another one is there",
               again);
    return 0;
}

/* Where to read the stream from at the reader's (re)start: on the first
 * one the position saved by the last life, when it holds (else 1, said
 * in the log); later where this life's reading stopped, unless the
 * stream was created again meanwhile.  0 or the stream's error code. */
static int
read_from(arb_replica_t *r, arb_stream_t *st, int64_t *created,
          uint64_t *from, arb_buf_t *why)
{
    arb_stream_state_t ss;
    arb_buf_t          whynot = ARB_BUF_INIT;
    uint64_t           upto = 0;
    int64_t            lt = 0, upto_ns = 0;
    int                rc, held;

    rc = arb_stream_state(st, &ss, why);
    if (rc != 0)
        return rc;
    if (r->has_saved) {
        if (strcmp(r->saved.stream, st->name) == 0
            && r->saved.created_ns == ss.created_ns) {
            rc = arb_stream_msg_time(st, r->saved.last, &lt, why);
            if (rc != 0 && rc != ARB_ENOTFOUND)
                return rc;
        }
        /* The places read before are still places of this stream, for
         * a loss found now or later. */
        arb_marks_load(&r->marks, r->saved.mark_seq, r->saved.mark_ns,
                       r->saved.nmarks, arb_clock_ms());
        held = arb_replica_pos_holds(&r->saved, r->store_pos0, st->name,
                                     ss.created_ns, lt, &whynot);
        if (held == 2) {
            /* It lost its tail while this replica was stopped: read
             * again after the newest place it still holds, or from
             * where the store needs it if that comes first. */
            rc = arb_marks_held(&r->marks, ss.last, msg_time, st, &upto,
                                &upto_ns);
            if (rc != 0) {
                arb_buf_free(&whynot);
                return rc;          /* asked again: has_saved stays */
            }
            held = upto != 0;
        }
        if (held == 1 && upto != 0) {
            pthread_mutex_lock(&r->mu);
            r->stream_last = upto;      /* read so far: see below */
            r->last_msg_ns = upto_ns;
            pthread_mutex_unlock(&r->mu);
            *from = r->saved.from < upto + 1 ? r->saved.from : upto + 1;
            arb_log_ev(ARB_LOG_WARN, "replica_resume", NULL, "replica: %s "
                       "(NATS lost its tail while this replica was "
                       "stopped): reading it from sequence %" PRIu64
                       " (the last place read that it still holds is %"
                       PRIu64 ")", arb_buf_cstr(&whynot), *from, upto);
        } else if (held == 1) {
            /* What the last life read last (or, above, the last place
             * of it the stream still holds) is what this one has read so
             * far: how far behind it is (note_head), and what must still
             * be in the stream (position_holds), before it reads
             * anything new. */
            pthread_mutex_lock(&r->mu);
            r->stream_last = r->saved.last;
            r->last_msg_ns = r->saved.last_ns;
            pthread_mutex_unlock(&r->mu);
            *from = r->saved.from;
            arb_log_ev(ARB_LOG_INFO, "replica_resume", NULL, "replica: "
                       "resuming stream %s at sequence %" PRIu64 " (%"
                       PRIu64 " read before this start)", st->name, *from,
                       r->saved.last);
        } else {
            arb_marks_reset(&r->marks);
            arb_log_ev(ARB_LOG_WARN, "replica_resume", NULL, "replica: "
                       "reading stream %s from its first message: %s",
                       st->name, arb_buf_cstr(&whynot));
        }
        r->has_saved = 0;
    } else if (*created != 0 && *created != ss.created_ns) {
        arb_log_ev(ARB_LOG_WARN, "replica_resume", NULL, "replica: stream "
                   "%s was created again: reading it from its first "
                   "message", st->name);
        restream(r, 0, 0, from);
    }
    if (*created == 0) {
        pthread_mutex_lock(&r->mu);
        r->resumed_at = *from;
        pthread_mutex_unlock(&r->mu);
    }
    *created = ss.created_ns;
    arb_buf_free(&whynot);
    return 0;
}

/* Once a second, with the stream's state ss: what arb_replica_figures
 * needs to say how far behind this replica is (replica_lag.h).  While
 * the stream's last sequence is past the last read, its leader is asked
 * for the first message it holds past it: its time is the age of what
 * waits, and none means that the rest was deleted. */
static void
note_head(arb_replica_t *r, arb_stream_t *st, const arb_stream_state_t *ss)
{
    uint64_t read, next = 0;
    int64_t  t = 0;
    int      rc = 0;

    pthread_mutex_lock(&r->mu);
    r->head = ss->last;
    read = r->stream_last;
    pthread_mutex_unlock(&r->mu);
    if (ss->last > read)
        rc = arb_stream_next_seq(st, read + 1, NULL, &next, &t, NULL);
    pthread_mutex_lock(&r->mu);
    if (rc == 0 && ss->last > read && next == 0) {
        r->settled_read = read;
        r->settled_head = ss->last;
    }
    if (rc == 0)
        r->unread_ns = next != 0 ? t : 0;
    pthread_mutex_unlock(&r->mu);
}

/* libnats' word that the connection is lost, or back: `connected` at
 * once, from a thread of libnats (until 2026-12-06 only the once-a-second
 * look below said it, which a request to NATS in flight could hold up
 * for seconds: `connected` stayed true about 3 s after NATS died, and an
 * outage shorter than that was never said).  The log says a loss that
 * lasts NATS_LOST_SAY_MS (say_lost), not a hop to another node of the
 * cluster, which takes milliseconds. */
#define NATS_LOST_SAY_MS 100

static void
nats_down_cb(natsConnection *nc, void *ud)
{
    arb_replica_t *r = ud;

    (void)nc;
    pthread_mutex_lock(&r->mu);
    r->connected = 0;
    if (r->lost_ms == 0)
        r->lost_ms = arb_clock_ms();
    pthread_mutex_unlock(&r->mu);
}

static void
nats_back_cb(natsConnection *nc, void *ud)
{
    arb_replica_t *r = ud;
    char           url[256] = "";
    int64_t        away;
    int            say;

    natsConnection_GetConnectedUrl(nc, url, sizeof(url));
    pthread_mutex_lock(&r->mu);
    r->connected = 1;
    r->reconnects++;            /* NATS lost and back */
    away = r->lost_ms != 0 ? arb_clock_ms() - r->lost_ms : 0;
    /* 2: the loss was said; 1: it lasted, but ended before the follower
     * came to say it (it is said now) */
    say = r->nats_lost ? 2 : away >= NATS_LOST_SAY_MS;
    r->nats_lost = 0;
    r->lost_ms = 0;
    pthread_mutex_unlock(&r->mu);
    if (say == 1)
        arb_log_ev(ARB_LOG_WARN, "replica_nats", NULL, "replica: NATS "
                   "connection lost for %lld ms", (long long)away);
    if (say)
        arb_log_ev(ARB_LOG_INFO, "replica_nats", NULL, "replica: NATS "
                   "connection back (%s) after %lld ms; reading on", url,
                   (long long)away);
}

/* From the follower's loop: a loss that lasted NATS_LOST_SAY_MS is said,
 * once. */
static void
say_lost(arb_replica_t *r)
{
    int say;

    pthread_mutex_lock(&r->mu);
    say = r->lost_ms != 0 && !r->nats_lost && !r->stopping
          && arb_clock_ms() - r->lost_ms >= NATS_LOST_SAY_MS;
    if (say)
        r->nats_lost = 1;
    pthread_mutex_unlock(&r->mu);
    if (say)
        arb_log_ev(ARB_LOG_WARN, "replica_nats", NULL, "replica: NATS "
                   "connection lost; reconnecting (reads are served from "
                   "the store meanwhile)");
}

/* The last callback libnats makes for a connection: after it, nothing of
 * libnats touches r (the follower waits for it before it ends). */
static void
nats_closed_cb(natsConnection *nc, void *ud)
{
    arb_replica_t *r = ud;

    (void)nc;
    pthread_mutex_lock(&r->mu);
    r->nats_closed = 1;
    pthread_mutex_unlock(&r->mu);
}

/* While reading, once a second: is NATS there, is the stream still the
 * one created at created, and does it still hold what was read?  An
 * ordered consumer says none of it: it waits.  With the connection lost,
 * stats.replica.connected is false (the callbacks above say it in the
 * log), until it is back; libnats reconnects and the consumer goes on.  A
 * stream created again, or one that lost its tail: the consumer goes on
 * from its old sequence, missing the messages now at the sequences it
 * read (until 2026-12-04 a replica then lacked every match begun in them
 * for good, a restart included).  1 when the stream is gone or another
 * one (the reader is opened again: read_from), 2 when it lost what was
 * read (read again after *upto: position_holds), 0 when it holds or
 * JetStream did not answer (an election: asked again in a second). */
static int
stream_check(arb_replica_t *r, arb_stream_t *st, int64_t created,
             int64_t *checked_ms, uint64_t *upto, int64_t *upto_ns)
{
    arb_stream_state_t ss;
    arb_buf_t          why = ARB_BUF_INIT;
    int                rc, up;

    if (arb_clock_ms() - *checked_ms < r->look_ms)
        return 0;
    *checked_ms = arb_clock_ms();
    up = natsConnection_Status(st->nc) == NATS_CONN_STATUS_CONNECTED;
    pthread_mutex_lock(&r->mu);
    r->connected = up;
    pthread_mutex_unlock(&r->mu);
    if (!up)
        return 0;
    rc = arb_stream_state(st, &ss, &why);
    arb_buf_free(&why);
    if (rc == 0 && ss.created_ns == created) {
        note_head(r, st, &ss);
        return position_holds(r, st, &ss, upto, upto_ns) == 0 ? 2 : 0;
    }
    if (rc != 0 && rc != ARB_ENOTFOUND)
        return 0;
    arb_log_ev(ARB_LOG_WARN, "replica_nats", NULL, "replica: stream %s %s",
               st->name, rc == 0 ? "was created again" : "was deleted");
    return 1;
}

/* The reader is closed, to be opened again (read_from). */
static void
reader_lost(arb_replica_t *r, arb_stream_reader_t **rd)
{
    arb_stream_reader_close(*rd);
    *rd = NULL;
    pthread_mutex_lock(&r->mu);
    r->connected = 0;
    r->reconnects++;
    pthread_mutex_unlock(&r->mu);
}

/* After a commit, under mu: what DATA/replica.pos would say now; 0 when
 * it is not due (a save at most once a second, unless forced: a stop),
 * nothing is worth saving, or it says that already.  Not due is decided
 * first: the mirror's answer walks every match it holds. */
static int
pos_now(arb_replica_t *r, const arb_stream_t *st, int64_t created,
        int force, arb_replica_pos_t *out)
{
    arb_mirror_stats_t ms;

    if (!force && arb_clock_ms() - r->pos_ms < 1000)
        return 0;
    r->pos_ms = arb_clock_ms();
    if (r->stream_last == 0 || r->last_msg_ns == 0 || created == 0)
        return 0;
    /* The mirror read nothing in this life (a stop before the first new
     * message): the file the last life saved still says where to read
     * from, and the mirror's answer (1 when it read nothing) would make
     * the next start read the whole stream (until 2026-12-07 every
     * second restart in a row did). */
    arb_mirror_stats(r->mir, &ms);
    if (ms.last_stream_seq == 0)
        return 0;
    memset(out, 0, sizeof(*out));
    snprintf(out->stream, sizeof(out->stream), "%s", st->name);
    out->created_ns = created;
    out->last = r->stream_last;
    out->last_ns = r->last_msg_ns;
    out->from = arb_mirror_resume_seq(r->mir);
    out->store_pos = r->appended_pos;
    out->nmarks = arb_marks_pick(&r->marks, out->mark_seq, out->mark_ns,
                                 ARB_REPLICA_POS_MARKS);
    return memcmp(out, &r->pos, sizeof(*out)) != 0;
}

/* Saves p (from pos_now).  A failure is logged once a minute, never
 * fatal: the next start reads more. */
static void
pos_save(arb_replica_t *r, const arb_replica_pos_t *p)
{
    static int64_t said_ms;
    int64_t        now = arb_clock_ms();

    pthread_mutex_lock(&r->mu);
    arb_owners_flush(r->owners);
    pthread_mutex_unlock(&r->mu);
    if (arb_replica_pos_save(r->pos_path, p) == 0) {
        r->pos = *p;
    } else if (now - said_ms >= 60000) {
        said_ms = now;
        arb_log_ev(ARB_LOG_WARN, "replica_resume", NULL, "replica: cannot "
                   "save %s: %s; a restart will read more of the stream",
                   r->pos_path, strerror(errno));
    }
}

/* Once a second: 1 when events have waited REREAD_WAIT_MS for an
 * earlier seq and the stream was not read again for REREAD_GAP_MS; *from
 * then gets where to read from. */
static int
waited_too_long(arb_replica_t *r, int64_t *since, int64_t *last_ms,
                uint64_t *from)
{
    int64_t  now = arb_clock_ms();
    size_t   waiting;
    uint64_t back;

    pthread_mutex_lock(&r->mu);
    waiting = arb_mirror_waiting(r->mir);
    pthread_mutex_unlock(&r->mu);
    if (waiting == 0) {
        *since = 0;
        return 0;
    }
    if (*since == 0)
        *since = now;
    if (now - *since < REREAD_WAIT_MS || now - *last_ms < REREAD_GAP_MS)
        return 0;
    /* Asked only now: the answer walks every match the mirror holds. */
    pthread_mutex_lock(&r->mu);
    back = arb_mirror_resume_seq(r->mir);
    pthread_mutex_unlock(&r->mu);
    *last_ms = now;
    *since = 0;
    *from = back > REREAD_BACK ? back - REREAD_BACK : 1;
    arb_log_ev(ARB_LOG_WARN, "replica_reread", NULL, "replica: %zu events "
               "have waited %d s for an earlier seq of their match; reading "
               "the stream again from sequence %" PRIu64 " (its consumer "
               "may sit on a NATS node whose copy of the stream lacks it)",
               waiting, REREAD_WAIT_MS / 1000, *from);
    return 1;           /* counted in reconnects by reader_lost */
}

/* The mirror's lookup of a deal met out of order (arb_mirror_on_deal).
 * The follower applies and flushes holding mu; the request goes without
 * it, so that the loop (stats, a refusal naming the recorder) never waits
 * on NATS.  That is sound: only this thread changes the mirror, and at
 * each of its lookups no match is half made. */
static int
deal_of(void *ud, const char *match_id, arb_stream_msg_t *msg)
{
    arb_replica_t *r = ud;
    int            rc;

    pthread_mutex_unlock(&r->mu);
    rc = arb_stream_deal_last(r->st, match_id, msg);
    pthread_mutex_lock(&r->mu);
    return rc;
}

static void *
follow(void *arg)
{
    arb_replica_t       *r = arg;
    arb_stream_t        *st = NULL;
    arb_stream_reader_t *rd = NULL;
    natsOptions         *opts = NULL;
    arb_stream_msg_t     msg;
    arb_buf_t            why = ARB_BUF_INIT;
    arb_replica_pos_t    pos;
    uint64_t             from = 1, cseq = 0, upto = 0, remade = 0;
    uint64_t             skips = 0;
    int64_t              dirty_since = 0, created = 0, checked_ms = 0;
    int64_t              upto_ns = 0, wait_since = 0, reread_ms = 0;
    int64_t              wait_look = 0;
    uint64_t             nread = 0, drop = 0;
    int                  rc, dirty = 0, said = 0, save;
    const char          *env = getenv("ARBITERD_REPLICA_DROP");

    /* Test hook (tests/integration/nats_resync.sh): the Nth message this
     * replica reads is passed over, as a consumer on a NATS node whose
     * copy of the stream lacks it would, without a gap in its sequences. */
    if (env != NULL)
        drop = strtoull(env, NULL, 10);
    /* Test hook (tests/integration/nats_outage.sh): the looks at the
     * stream that are once a second come once every N ms, so that what
     * the reader meets first is met without them. */
    env = getenv("ARBITERD_REPLICA_LOOK_MS");
    r->look_ms = env != NULL && atoll(env) > 0 ? atoll(env) : 1000;

    while (!stopping(r)) {
        say_lost(r);
        if (st == NULL) {
            natsOptions_Destroy(opts);
            opts = NULL;
            rc = arb_stream_opts(&opts, &r->sconf, &why);
            if (rc == 0) {
                natsOptions_SetDisconnectedCB(opts, nats_down_cb, r);
                natsOptions_SetReconnectedCB(opts, nats_back_cb, r);
                natsOptions_SetClosedCB(opts, nats_closed_cb, r);
                rc = arb_stream_open(&st, &r->sconf, opts, NULL, &why);
            }
            if (rc == 0) {              /* a deal met out of order */
                pthread_mutex_lock(&r->mu);
                r->st = st;
                pthread_mutex_unlock(&r->mu);
                arb_mirror_on_deal(r->mir, deal_of, r);
            }
            if (rc != 0) {
                if (!said++)
                    arb_log_ev(ARB_LOG_WARN, "replica_nats", NULL, "replica: "
                               "%s; retrying", arb_buf_cstr(&why));
                nap(r);
                continue;
            }
        }
        if (rd == NULL) {
            rc = read_from(r, st, &created, &from, &why);
            if (rc == 0)
                rc = arb_stream_reader_open(&rd, st, NULL, from, &why);
            if (rc != 0) {
                if (!said++)
                    arb_log_ev(ARB_LOG_WARN, "replica_nats", NULL, "replica: "
                               "cannot read stream %s: %s; retrying",
                               st->name, arb_buf_cstr(&why));
                nap(r);
                continue;
            }
            if (said)
                arb_log_ev(ARB_LOG_INFO, "replica_nats", NULL, "replica: "
                           "reading stream %s from sequence %" PRIu64,
                           st->name, from);
            said = 0;
            cseq = 1;
            remade = skips = 0;
            pthread_mutex_lock(&r->mu);
            r->connected = 1;
            pthread_mutex_unlock(&r->mu);
        }
        rc = stream_check(r, st, created, &checked_ms, &upto, &upto_ns);
        if (rc != 0) {
            if (rc == 2)
                restream(r, upto, upto_ns, &from);
            reader_lost(r, &rd);
            continue;
        }
        if (arb_clock_ms() - wait_look >= 1000) {
            wait_look = arb_clock_ms();
            if (waited_too_long(r, &wait_since, &reread_ms, &from)) {
                reader_lost(r, &rd);
                continue;
            }
        }
        /* Nothing more right now: commit what was read, then wait. */
        rc = arb_stream_reader_next(rd, &msg, dirty ? 1 : 200, &why);
        if (rc == ARB_EAGAIN && arb_stream_reader_remade(rd) != remade) {
            uint64_t next = 0;

            remade = arb_stream_reader_remade(rd);
            arb_stream_reader_ahead(rd, &next);
            if (arb_stream_reader_skips(rd) != skips)
                arb_log_ev(ARB_LOG_WARN, "replica_skip", NULL, "replica: "
                           "its consumer passed over messages the stream "
                           "holds after stream sequence %" PRIu64 " (on a "
                           "NATS node that lacks them): it was made again "
                           "from there", from - 1);
            else
                arb_log_ev(ARB_LOG_WARN, "replica_stall", NULL, "replica: "
                           "nothing came for %d s after stream sequence %"
                           PRIu64 " though the stream holds %" PRIu64 ": "
                           "its consumer was made again (on a NATS node "
                           "lagging or gone)", ARB_STREAM_STALL_MS / 1000,
                           from - 1, next);
            skips = arb_stream_reader_skips(rd);
            pthread_mutex_lock(&r->mu);
            r->reconnects++;
            pthread_mutex_unlock(&r->mu);
        }
        if (rc == ARB_EAGAIN) {
            if (dirty) {
                pthread_mutex_lock(&r->mu);
                rc = arb_mirror_flush(r->mir, &why);
                /* An open kept for its deal: flushed again soon. */
                dirty = arb_mirror_held(r->mir) > 0;
                save = rc == 0 && pos_now(r, st, created, 0, &pos);
                pthread_mutex_unlock(&r->mu);
                if (rc != 0)
                    goto failed;
                if (save)
                    pos_save(r, &pos);
            }
            continue;
        }
        if (rc == ARB_EPROTO) {
            arb_log_ev(ARB_LOG_ERROR, "replica_foreign", NULL, "replica: "
                       "%s: ignored", arb_buf_cstr(&why));
            pthread_mutex_lock(&r->mu);
            r->foreign++;
            /* Read, as any other: a replica is not behind for a message
             * it passed over (until 2026-12-07 one at the stream's end
             * left it 1 behind, its lag_ms growing until the next event
             * came). */
            if (msg.stream_seq > r->stream_last && msg.time_ns != 0) {
                r->stream_last = msg.stream_seq;
                r->last_msg_ns = msg.time_ns;
            }
            pthread_mutex_unlock(&r->mu);
            if (msg.stream_seq != 0) {
                from = msg.stream_seq + 1;  /* not read again */
                cseq = msg.consumer_seq + 1;
            }
            continue;
        }
        if (rc != 0) {
            if (!stopping(r))   /* else: the stop closed the connection */
                arb_log_ev(ARB_LOG_WARN, "replica_nats", NULL, "replica: "
                           "%s; reading again from sequence %" PRIu64,
                           arb_buf_cstr(&why), from);
            reader_lost(r, &rd);
            nap(r);
            continue;
        }
        /* libnats made its consumer anew (after a reconnect, a missed
         * heartbeat, a new stream leader), from the sequence after the
         * last one delivered: the stream may have lost what was read
         * meanwhile.  Looked at before this message moves the position
         * (the once-a-second look may come after it).  The stream may
         * also be another one, created again under the same name:
         * read_from says so and reads it from its first message (until
         * 2026-12-05 it was taken for one that lost its tail, and the
         * log said NATS lost it). */
        if (msg.consumer_seq != cseq && cseq != 0) {
            arb_stream_state_t ss;

            if (arb_stream_state(st, &ss, NULL) == 0
                && (ss.created_ns != created
                    || position_holds(r, st, &ss, &upto, &upto_ns) == 0)) {
                arb_stream_msg_clear(&msg);
                if (ss.created_ns == created)
                    restream(r, upto, upto_ns, &from);
                reader_lost(r, &rd);
                continue;
            }
        }
        cseq = msg.consumer_seq + 1;
        from = msg.stream_seq + 1;
        if (++nread == drop) {
            arb_stream_msg_clear(&msg);         /* the test hook */
            continue;
        }
        pthread_mutex_lock(&r->mu);
        /* The furthest read, as the mirror counts it (the saved position
         * must have `from` at most one past `read`): libnats 3.4.1 may
         * make its consumer anew from an earlier sequence than it
         * delivered (seen after a NATS node came back without its tail:
         * from 8 with 18 read; position_holds catches that one), and
         * what comes again is met as duplicates. */
        if (msg.stream_seq > r->stream_last) {
            r->stream_last = msg.stream_seq;
            r->last_msg_ns = msg.time_ns;
        }
        arb_marks_note(&r->marks, msg.stream_seq, msg.time_ns,
                       arb_clock_ms());
        rc = arb_mirror_apply(r->mir, &msg, &why);
        if (!dirty)
            dirty_since = arb_clock_ms();
        dirty = 1;
        save = 0;
        if (rc == 0 && arb_clock_ms() - dirty_since >= FLUSH_MS) {
            rc = arb_mirror_flush(r->mir, &why);
            dirty = arb_mirror_held(r->mir) > 0;
            dirty_since = arb_clock_ms();
            save = rc == 0 && pos_now(r, st, created, 0, &pos);
        }
        pthread_mutex_unlock(&r->mu);
        if (rc != 0)
            goto failed;
        if (save)
            pos_save(r, &pos);
    }
    pthread_mutex_lock(&r->mu);
    rc = dirty ? arb_mirror_flush(r->mir, &why) : 0;
    save = rc == 0 && st != NULL && pos_now(r, st, created, 1, &pos);
    pthread_mutex_unlock(&r->mu);
    if (rc != 0)
        goto failed;
    if (save)
        pos_save(r, &pos);
    goto done;
failed:
    /* A failed append is a failed write: fail-stop, as on a primary. */
    arb_log_ev(ARB_LOG_ERROR, "replica_store", NULL, "replica: %s",
               arb_buf_cstr(&why));
    pthread_mutex_lock(&r->mu);
    r->failed = 1;
    pthread_mutex_unlock(&r->mu);
    uv_async_send(&r->async);
done:
    arb_mirror_on_deal(r->mir, NULL, NULL);
    arb_stream_reader_close(rd);
    pthread_mutex_lock(&r->mu);
    r->st = NULL;               /* the stop no longer closes it */
    r->done = 1;
    pthread_mutex_unlock(&r->mu);
    if (st != NULL) {
        /* Its callbacks run on a thread of libnats, possibly after the
         * close returns: the last one is waited for (at most 2 s), else
         * r is never freed (arb_replica_free). */
        int64_t t0 = arb_clock_ms();

        natsConnection_Close(st->nc);
        for (;;) {
            pthread_mutex_lock(&r->mu);
            r->abandoned = !r->nats_closed;
            pthread_mutex_unlock(&r->mu);
            if (!r->abandoned || arb_clock_ms() - t0 >= 2000)
                break;
            usleep(10000);
        }
    }
    arb_stream_close(st);
    natsOptions_Destroy(opts);
    arb_buf_free(&why);
    return NULL;
}

/* Collects the distinct match ids of the log range (sorted, bounded). */
typedef struct touched {
    char     (*ids)[ARB_STORE_ID_MAX + 1];
    size_t     n;
    uint64_t   last;
} touched_t;

static int
on_log(void *ud, uint64_t pos, const char *id, uint64_t seq, int64_t t,
       const unsigned char *h, const void *bytes, size_t len)
{
    touched_t *x = ud;
    size_t     i;

    (void)seq; (void)t; (void)h; (void)bytes; (void)len;
    for (i = 0; i < x->n && strcmp(x->ids[i], id) != 0; i++)
        ;
    if (i == x->n) {
        /* The rest at the next wake-up, this event included (until
         * 2026-12-04 the position went past it, and its match, not
         * among those moved on, kept its watchers waiting for its next
         * event). */
        if (x->n == CATCH_UP_MAX)
            return 1;
        snprintf(x->ids[x->n++], ARB_STORE_ID_MAX + 1, "%s", id);
    }
    x->last = pos;
    return 0;
}

/* Loop thread, after the matches moved on: an event the mirror committed,
 * to the HTTP live streams that show its match (docs/HTTP.md). */
static int
on_log_http(void *ud, uint64_t pos, const char *id, uint64_t seq, int64_t t,
            const unsigned char *h, const void *bytes, size_t len)
{
    arb_server_t *srv = ud;
    arb_live_t   *l;

    if (!arb_http_shows(srv, id))
        return 0;
    l = arb_live_peek(srv, id);
    if (l == NULL && arb_live_get(srv, id, &l, NULL) != 0)
        return 0;
    arb_http_appended(srv, l, seq, pos, t, h, bytes, len);
    return 0;
}

/* Loop thread: the store grew behind the commit path. */
static void
on_async(uv_async_t *a)
{
    arb_replica_t   *r = a->data;
    arb_server_t    *srv = r->srv;
    arb_match_info_t info;
    touched_t        x;
    uint64_t         to, from;
    size_t           i;
    int              failed;

    pthread_mutex_lock(&r->mu);
    to = r->appended_pos;
    failed = r->failed;
    pthread_mutex_unlock(&r->mu);
    if (failed && !srv->stopping) {
        srv->exit_code = ARB_EXIT_FAILSTOP;
        arb_server_stop(srv);
        return;
    }
    show_unsealed(r);
    if (to <= srv->order_pos)
        return;
    memset(&x, 0, sizeof(x));
    x.ids = malloc(CATCH_UP_MAX * sizeof(*x.ids));
    if (x.ids == NULL)
        return;
    x.last = from = srv->order_pos;
    /* (Ids alone; and what the mirror appended, it verified: replica.c
     * checks every link on the way in.) */
    arb_store_log_unchecked(srv->store, srv->order_pos + 1,
                            to - srv->order_pos, on_log, &x, NULL);
    if (x.last > srv->order_pos)
        srv->order_pos = x.last;
    for (i = 0; i < x.n; i++) {
        arb_live_t *l = arb_live_peek(srv, x.ids[i]);
        uint64_t    was;
        int         existed;

        if (l == NULL || arb_store_match(srv->store, x.ids[i], &info,
                                         NULL) != 0)
            continue;
        /* The match held in memory (watched or read) moves to the new
         * head: its new events applied, or, where that cannot be (a
         * ruling), replayed from the store.  Until 2026-12-04 it was
         * always replayed whole, at every commit of the replica: the
         * cost of a watched match grew with its length. */
        was = l->committed;
        existed = l->exists;
        l->committed = info.last_seq;
        l->exists = 1;
        l->closed = info.closed;
        if (existed && arb_live_advance(srv, l, was) == 0) {
            r->advanced += info.last_seq - was;
        } else {
            r->reloaded++;
            arb_live_reset(srv, l);
            /* (A replay that fails, on an unreadable store, frees l and
             * closes its subscribers.) */
            l = arb_live_peek(srv, x.ids[i]);
        }
        if (l != NULL)
            arb_sub_appended(srv, l);
    }
    arb_sub_appended(srv, NULL);
    if (srv->order_pos > from && arb_http_shows(srv, NULL))
        arb_store_log_unchecked(srv->store, from + 1, srv->order_pos - from,
                                on_log_http, srv, NULL);
    free(x.ids);
    if (srv->order_pos < to)
        uv_async_send(&r->async);
}

/* DATA/name, allocated, or NULL. */
static char *
data_path(const arb_server_t *srv, const char *name)
{
    size_t n = strlen(srv->cfg.data) + strlen(name) + 2;
    char  *p = malloc(n);

    if (p != NULL)
        snprintf(p, n, "%s/%s", srv->cfg.data, name);
    return p;
}

int
arb_replica_start(arb_server_t *srv)
{
    arb_replica_conf_t *c = &srv->cfg.replica;
    arb_replica_t      *r;
    arb_buf_t           why = ARB_BUF_INIT;
    arb_store_stats_t   ss;
    size_t              skipped = 0;
    char               *owners;
    int                 rc;

    if (c->urls == NULL)
        return 0;
    r = calloc(1, sizeof(*r));
    if (r == NULL)
        return -1;
    srv->replica = r;
    r->srv = srv;
    pthread_mutex_init(&r->mu, NULL);
    r->sconf.urls = c->urls;
    r->sconf.stream = c->stream;
    r->sconf.creds = c->credentials;
    r->sconf.client_name = "arbiterd replica";
    if (c->secret_key_file != NULL) {
        if (arb_stream_key_load(r->key, c->secret_key_file, &why) != 0) {
            arb_log(ARB_LOG_ERROR, "replica: %s", arb_buf_cstr(&why));
            arb_buf_free(&why);
            return -1;
        }
        r->has_key = 1;
    }
    if (arb_store_stats(srv->store, &ss, NULL) == 0)
        r->appended_pos = r->store_pos0 = ss.log_pos;
    if ((owners = data_path(srv, ARB_REPLICA_OWNERS_FILE)) == NULL
        || (r->pos_path = data_path(srv, ARB_REPLICA_POS_FILE)) == NULL) {
        free(owners);
        return -1;
    }
    rc = arb_owners_open(&r->owners, owners, &skipped, &why);
    if (rc != 0)
        arb_log_ev(ARB_LOG_WARN, "replica_owners", NULL, "replica: %s: "
                   "writes to matches not read since this start are "
                   "refused naming the configured primary",
                   arb_buf_cstr(&why));
    else if (skipped > 0)
        arb_log_ev(ARB_LOG_WARN, "replica_owners", NULL, "replica: %s: %zu "
                   "line(s) skipped", owners, skipped);
    free(owners);
    why.len = 0;
    rc = arb_replica_pos_load(&r->saved, r->pos_path, &why);
    r->has_saved = rc == 0;
    if (rc != 0 && rc != ARB_ENOTFOUND)
        arb_log_ev(ARB_LOG_WARN, "replica_resume", NULL, "replica: %s: the "
                   "stream is read from its first message",
                   arb_buf_cstr(&why));
    arb_buf_free(&why);
    if (arb_mirror_open(&r->mir, srv->store, r->has_key ? r->key : NULL,
                        on_problem, r) != 0
        || uv_async_init(srv->loop, &r->async, on_async) != 0)
        return -1;
    r->async_init = 1;
    r->async.data = r;
    arb_mirror_on_append(r->mir, on_appended, r);
    arb_mirror_on_recorder(r->mir, on_recorder, r);
    arb_mirror_on_judged(r->mir, on_judged, r);
    if (pthread_create(&r->thread, NULL, follow, r) != 0) {
        arb_log(ARB_LOG_ERROR, "replica: cannot start its thread");
        return -1;
    }
    r->started = 1;
    arb_log_ev(ARB_LOG_INFO, "replica", NULL, "read replica of stream %s at "
               "%s: writes are refused", r->sconf.stream ? r->sconf.stream
               : ARB_STREAM_NAME_DEFAULT, c->urls);
    return 0;
}

void
arb_replica_stop(arb_server_t *srv)
{
    arb_replica_t *r = srv->replica;

    if (r == NULL)
        return;
    if (r->started) {
        int i, done = 0;

        pthread_mutex_lock(&r->mu);
        r->stopping = 1;
        pthread_mutex_unlock(&r->mu);
        /* The follower ends within STOP_MS (its last flush, the one look
         * for a held open's deal, the position file) unless it waits on
         * NATS, each request for up to 2 s: then its connection is closed
         * under it, which answers the request at once (a deal looked
         * for then is one that did not come in time either way: the
         * open keeps the commitment until the deal comes, as after any
         * stop).  As on a recorder (replicate.c). */
        for (i = 0; i < STOP_MS / 10 && !done; i++) {
            usleep(10000);
            pthread_mutex_lock(&r->mu);
            done = r->done;
            pthread_mutex_unlock(&r->mu);
        }
        pthread_mutex_lock(&r->mu);
        if (!r->done && r->st != NULL && r->st->nc != NULL)
            natsConnection_Close(r->st->nc);    /* no callbacks: see opts */
        pthread_mutex_unlock(&r->mu);
        pthread_join(r->thread, NULL);
        r->started = 0;
    }
    if (r->async_init) {
        uv_close((uv_handle_t *)&r->async, NULL);
        r->async_init = 0;
    }
}

void
arb_replica_free(arb_server_t *srv)
{
    arb_replica_t *r = srv->replica;

    if (r == NULL)
        return;
    arb_replica_stop(srv);
    if (r->abandoned) {
        /* libnats may still call back into r: kept (a stop's leak). */
        srv->replica = NULL;
        return;
    }
    arb_mirror_free(r->mir);
    arb_owners_free(r->owners);
    free(r->unsealed);
    free(r->pos_path);
    pthread_mutex_destroy(&r->mu);
    memset(r->key, 0, sizeof(r->key));
    free(r);
    srv->replica = NULL;
}

/* Appends who answers for match id (NULL: not known): its recorder, as
 * the stream (or the last life's) named it, else the configured primary,
 * else the owner.  *known is 1 for the first. */
static void
say_primary(arb_server_t *srv, const char *id, int *known, arb_buf_t *why)
{
    arb_replica_t *r = srv->replica;
    char           rec[ARB_STREAM_NAME_MAX + 1];
    const char    *was;

    *known = 0;
    if (id != NULL) {
        pthread_mutex_lock(&r->mu);
        *known = arb_mirror_recorder(r->mir, id, rec, sizeof(rec)) == 0;
        pthread_mutex_unlock(&r->mu);
        /* Not read since this start: as the last life's stream said. */
        if (!*known && (was = arb_owners_get(r->owners, id)) != NULL) {
            snprintf(rec, sizeof(rec), "%s", was);
            *known = 1;
        }
    }
    if (*known)
        arb_buf_printf(why, "its primary, recorder %s", rec);
    else if (srv->cfg.replica.primary != NULL)
        arb_buf_printf(why, "the primary, %s", srv->cfg.replica.primary);
    else
        arb_buf_printf(why, "the primary recorder that owns the match");
}

int
arb_replica_secret(arb_server_t *srv, const char *id, char **out)
{
    arb_replica_t *r = srv->replica;
    arb_buf_t      sec = ARB_BUF_INIT;
    int            rc;

    *out = NULL;
    if (r == NULL || !r->has_key)       /* no deal can open: no lock */
        return 0;
    pthread_mutex_lock(&r->mu);
    rc = arb_mirror_secret(r->mir, id, &sec);
    pthread_mutex_unlock(&r->mu);
    if (rc == 0 && (*out = strdup(arb_buf_cstr(&sec))) == NULL)
        rc = ARB_ENOMEM;
    arb_buf_free(&sec);
    return rc == ARB_ENOTFOUND ? 0 : rc;
}

int
arb_replica_sealed(arb_server_t *srv, const char *id, arb_buf_t *why)
{
    arb_replica_t *r = srv->replica;
    int            known;

    if (r == NULL)
        return 0;
    if (why == NULL)
        return 1;
    why->len = 0;
    arb_buf_printf(why, "match '%s' is dealt and this read replica does "
                   "not hold its deal secret (%s): its hands are known "
                   "here once its close reveals the deal; ask ", id,
                   r->has_key ? "its deal message has not come"
                              : "no replication key");
    say_primary(srv, id, &known, why);
    return 1;
}

int
arb_replica_refuses(arb_server_t *srv, const char *id, arb_buf_t *why)
{
    arb_replica_t *r = srv->replica;
    arb_buf_t      to = ARB_BUF_INIT;
    int            known;

    if (r == NULL)
        return 0;
    if (why == NULL)
        return 1;
    say_primary(srv, id, &known, &to);
    why->len = 0;
    arb_buf_printf(why, "this recorder is a read replica of stream %s: ",
                   r->sconf.stream ? r->sconf.stream
                                   : ARB_STREAM_NAME_DEFAULT);
    if (known)
        arb_buf_printf(why, "write match '%s' to ", id);
    else
        arb_buf_puts(why, "write to ");
    arb_buf_puts(why, arb_buf_cstr(&to) ? arb_buf_cstr(&to) : "");
    arb_buf_free(&to);
    return 1;
}

int
arb_replica_figures(arb_server_t *srv, arb_replica_figures_t *f)
{
    arb_replica_t       *r = srv->replica;
    arb_mirror_stats_t   ms;
    arb_replica_lag_in_t lag;

    memset(f, 0, sizeof(*f));
    if (r == NULL)
        return 0;
    pthread_mutex_lock(&r->mu);
    arb_mirror_stats(r->mir, &ms);
    f->stopped_matches = r->problems;
    f->foreign = r->foreign;
    f->reconnects = r->reconnects;
    f->stream_seq = r->stream_last;
    f->connected = r->connected;
    f->resumed_at = r->resumed_at;
    lag.head = r->head;
    lag.read = r->stream_last;
    lag.settled_read = r->settled_read;
    lag.settled_head = r->settled_head;
    lag.unread_ns = r->unread_ns;
    pthread_mutex_unlock(&r->mu);
    lag.now_ns = arb_now_ms() * 1000000;
    f->stream_head = lag.head;
    arb_replica_lag(&lag, &f->behind, &f->lag_ms);
    f->appended = ms.events;
    f->duplicates = ms.duplicates;
    f->damaged_copies = ms.damaged_copies;
    f->deals = ms.deals;
    f->chain_only = ms.chain_only;
    f->ruled = ms.ruled;
    f->advanced = r->advanced;          /* [loop]: the callers run there */
    f->reloaded = r->reloaded;
    return 1;
}

void
arb_replica_stats_pack(arb_server_t *srv, msgpack_packer *pk)
{
    arb_replica_figures_t f;

    arb_mp_pack_cstr(pk, "replica");
    if (!arb_replica_figures(srv, &f)) {
        msgpack_pack_nil(pk);
        return;
    }
    msgpack_pack_map(pk, 17);
    arb_mp_pack_kv_bool(pk, "connected", f.connected);
    arb_mp_pack_kv_uint(pk, "stream_seq", f.stream_seq);
    arb_mp_pack_kv_uint(pk, "stream_head", f.stream_head);
    arb_mp_pack_kv_uint(pk, "behind", f.behind);
    arb_mp_pack_kv_uint(pk, "lag_ms", f.lag_ms);
    arb_mp_pack_kv_uint(pk, "appended", f.appended);
    arb_mp_pack_kv_uint(pk, "duplicates", f.duplicates);
    arb_mp_pack_kv_uint(pk, "damaged_copies", f.damaged_copies);
    arb_mp_pack_kv_uint(pk, "stopped_matches", f.stopped_matches);
    arb_mp_pack_kv_uint(pk, "foreign", f.foreign);
    arb_mp_pack_kv_uint(pk, "deals", f.deals);
    arb_mp_pack_kv_uint(pk, "chain_only", f.chain_only);
    arb_mp_pack_kv_uint(pk, "ruled", f.ruled);
    arb_mp_pack_kv_uint(pk, "reconnects", f.reconnects);
    arb_mp_pack_kv_uint(pk, "advanced", f.advanced);
    arb_mp_pack_kv_uint(pk, "reloaded", f.reloaded);
    arb_mp_pack_kv_uint(pk, "resumed_at", f.resumed_at);
}
