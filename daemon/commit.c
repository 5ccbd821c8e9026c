/*
 * commit.c - group commit.
 *
 * DESIGN: appends are validated on the loop thread and queued; one write
 * job at a time runs off the loop (uv_queue_work), because an LMDB write
 * transaction belongs to one thread and one fsync per batch is what makes
 * many tables cheap.  Everything that arrives while a batch is committing
 * goes into the next one.  Acks and subscriber pushes leave from the
 * after-work callback, i.e. only once mdb_txn_commit has returned: an
 * acknowledged event is durable.  A failed commit is fatal (fail-stop): we
 * never retry an fsync whose failure may have dropped dirty pages, and we
 * never ack.  The one recoverable failure is "storage full", reported
 * before anything is written: the batch and everything queued behind it
 * (validated on top of it) are refused and the touched matches fall back
 * to their committed state.
 *
 * One flush per ack.  The store commits the log without flushing it and
 * flushes the batch once, in its journal (docs/STORE.md, "The journal"):
 * arb_store_append_commit returns with the batch durable, and the batch
 * is acked when the job returns.  The daemon's reads stop at
 * live->committed, and pushes and replication wait for the ack: all move
 * only once a batch is durable.
 *
 * Gathering.  A commit holds the store's one write lock through its
 * flush, so two commits never overlap, and an event that arrives while
 * one runs waits for it and then for its own.  Under a steady load this
 * splits the tables into two groups that alternate, each waiting two
 * flushes per event.  So, when events queued up during a commit, the next commit
 * waits until every connection the commit just acknowledged has sent its
 * next event (a scorekeeper sends it right after the ack), or for half
 * the last commit's duration (1..5 ms, a millisecond more while waits
 * complete: libuv's clock counts whole milliseconds), and then takes
 * everyone: one fsync per round.  A table that sends nothing within that
 * time (a human between moves) no longer holds anyone back: the next
 * event then commits at once.
 *
 * Acks and pushes of a batch leave corked (server.c): one write per
 * connection per commit, however many of its appends the batch held.
 *
 * Where a commit starts.  Not in the request's callback but in the loop's
 * next idle phase, after the poll has handed over everything it read, so
 * that requests read together commit together.  A batch of one event with
 * nothing committing is alone: no other request is
 * waiting on the loop, so the loop commits it itself (`lone_commit`) and
 * spares the two thread hand-offs, a futex wake and an eventfd write that
 * cost a table waiting for each ack about a tenth of a millisecond here.
 * The loop waits for the flush meanwhile, as that table would; whatever
 * arrives then is read right after and goes to the worker together.
 *
 * Atomic groups.  A tournament's round and the opens of its tables are
 * queued back to back, the later ones `joined`; a batch is cut only
 * before an append that is not joined, so the group commits in one LMDB
 * transaction (all or nothing after a crash) and is acknowledged with it.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "core/err.h"
#include "daemon/log.h"
#include "daemon/replicate.h"
#include "daemon/server.h"
#include "core/mp.h"

#define ARB_GATHER_MIN_MS 1
#define ARB_GATHER_MAX_MS 5

void
arb_pending_free(arb_pending_t *p)
{
    if (p == NULL)
        return;
    arb_buf_free(&p->bytes);
    arb_event_clear(&p->ev);
    free(p->cid);
    free(p->secret);
    if (p->wait != &p->wait1)
        free(p->wait);
    free(p->group);
    free(p);
}

void
arb_pending_take(arb_pending_t *p, arb_live_t *l, arb_event_t *ev)
{
    p->live = l;
    p->ev = *ev;                /* takes ownership */
    memset(ev, 0, sizeof(*ev));
    p->ap.match_id = l->id;
    p->ap.game = p->ev.kind == ARB_EV_OPEN ? l->game : NULL;
    p->ap.seq = p->ev.seq;
    p->ap.time_ms = p->ev.time_ms;
    p->ap.bytes = p->bytes.data;
    p->ap.len = p->bytes.len;
    p->ap.client_id = p->cid;
    p->ap.closes = p->ev.kind == ARB_EV_CLOSE;
    p->ap.after_close = p->ev.kind == ARB_EV_CLAIM;
    p->ap.secret = p->secret;
}

arb_pending_t *
arb_commit_find_cid(const arb_live_t *l, const char *cid)
{
    size_t i;

    for (i = 0; i < l->ninflight; i++)
        if (l->inflight[i]->cid != NULL
            && strcmp(l->inflight[i]->cid, cid) == 0)
            return l->inflight[i];
    return NULL;
}

arb_pending_t *
arb_pending_new(void)
{
    arb_pending_t *p = calloc(1, sizeof(*p));

    if (p != NULL) {
        p->t0 = uv_hrtime();
        p->wait = &p->wait1;    /* the first waiter needs no allocation */
    }
    return p;
}

int
arb_commit_wait(arb_pending_t *p, arb_conn_t *c, uint64_t req)
{
    arb_waiter_t *nw = p->wait;

    /* The first waiter's slot is p->wait1; a retry's, on the heap. */
    if (p->nwait > 0) {
        nw = realloc(p->wait == &p->wait1 ? NULL : p->wait,
                     (p->nwait + 1) * sizeof(*nw));
        if (nw == NULL)
            return ARB_ENOMEM;
        if (p->wait == &p->wait1)
            nw[0] = p->wait1;
        p->wait = nw;
    }
    nw[p->nwait].conn = c;
    nw[p->nwait].req = req;
    p->nwait++;
    c->refs++;
    if (++c->inflight == c->srv->cfg.inq_max)
        arb_conn_flow(c);
    return 0;
}

int
arb_commit_reserve_queue(arb_server_t *srv, size_t n)
{
    arb_pending_t **nq;
    size_t          cap = srv->capqueue ? srv->capqueue : 256;

    while (cap < srv->nqueue + n)
        cap *= 2;
    if (cap == srv->capqueue)
        return 0;
    nq = realloc(srv->queue, cap * sizeof(*nq));
    if (nq == NULL)
        return ARB_ENOMEM;
    srv->queue = nq;
    srv->capqueue = cap;
    return 0;
}

int
arb_commit_reserve(arb_server_t *srv, arb_live_t *l)
{
    return arb_commit_reserve_n(srv, l, 1);
}

int
arb_commit_reserve_n(arb_server_t *srv, arb_live_t *l, size_t n)
{
    arb_pending_t **nq;
    size_t          cap;

    if (arb_commit_reserve_queue(srv, n) != 0)
        return ARB_ENOMEM;
    if (l->ninflight + n > l->capinflight) {
        cap = l->capinflight ? l->capinflight : 8;
        while (cap < l->ninflight + n)
            cap *= 2;
        nq = realloc(l->inflight, cap * sizeof(*nq));
        if (nq == NULL)
            return ARB_ENOMEM;
        l->inflight = nq;
        l->capinflight = cap;
    }
    return 0;
}

void
arb_commit_enqueue(arb_server_t *srv, arb_pending_t *p)
{
    arb_live_t *l = p->live;

    if (srv->nqueue == srv->capqueue || l->ninflight == l->capinflight) {
        /* A bug: arb_commit_reserve() was not called first. */
        arb_log(ARB_LOG_ERROR, "commit queue full: no room reserved");
        abort();    /* the event is already applied to live state */
    }
    l->inflight[l->ninflight++] = p;
    srv->queue[srv->nqueue++] = p;
    if (p->cid != NULL)
        arb_live_cid_add(l, p->cid);    /* before it can be stored */
    srv->n.appends++;
    if (srv->gathering)
        srv->gather_got++;
}

static void
gather_cb(uv_timer_t *t)
{
    arb_server_t *srv = t->data;

    srv->gathering = 0;
    srv->gather_full = 0;
    srv->n.gather_timeouts++;
    arb_commit_kick(srv);
}

void
arb_commit_close(arb_server_t *srv)
{
    if (srv->start_init) {
        uv_idle_stop(&srv->start_idle);
        uv_close((uv_handle_t *)&srv->start_idle, NULL);
        srv->start_init = srv->start_armed = 0;
    }
    if (srv->gather_init) {
        uv_timer_stop(&srv->gather_timer);
        uv_close((uv_handle_t *)&srv->gather_timer, NULL);
        srv->gather_init = 0;
    }
    srv->gathering = 0;
}

/* ARB_EFULL, said in why, when the file system of the data directory
 * has less than storage_reserve free.  A disk that fills under LMDB's own
 * writes fails the commit, and the recorder must stop (it cannot know
 * what reached the disk), then cannot start until room is freed: kept
 * from that edge, appends are refused as with a full map, and reads go
 * on (until 2026-12-06 only the map's limit gave `full`).  One statvfs a
 * commit, a microsecond or two beside its flush. */
static int
reserve_check(const arb_server_t *srv, arb_buf_t *why)
{
    struct statvfs     fs;
    unsigned long long avail, keep = srv->cfg.storage_reserve;

    if (keep == 0 || srv->cfg.data == NULL
        || statvfs(srv->cfg.data, &fs) != 0)
        return 0;
    avail = (unsigned long long)fs.f_bavail * fs.f_frsize;
    /* (a small disk, as a card or a test's, keeps 5% of itself) */
    if (keep == ARB_STORAGE_RESERVE_AUTO) {
        keep = (unsigned long long)fs.f_blocks * fs.f_frsize / 20;
        if (keep > ARB_STORAGE_RESERVE_DEF)
            keep = ARB_STORAGE_RESERVE_DEF;
    }
    if (avail >= keep)
        return 0;
    arb_buf_printf(why, "storage full: the file system holding %s has %llu "
                   "KiB free, under storage_reserve (%llu KiB): nothing was "
                   "written; free room there", srv->cfg.data, avail / 1024,
                   keep / 1024);
    return ARB_EFULL;
}

static void
work_cb(uv_work_t *w)
{
    arb_server_t *srv = w->data;

    /* after_work_cb reads these: libuv's hand-off orders the writes. */
    srv->work_t0 = uv_hrtime();
    srv->work_cpu = arb_thread_cpu_ns();
    arb_buf_free(&srv->commit_why);
    srv->commit_rc = reserve_check(srv, &srv->commit_why);
    /* It returns durable: the batch's one flush is the journal's. */
    if (srv->commit_rc == 0)
        srv->commit_rc = arb_store_append_commit(srv->store, srv->batch_ap,
                                                 srv->nbatch,
                                                 &srv->batch_ticket,
                                                 &srv->commit_why);
    srv->work_cpu = arb_thread_cpu_ns() - srv->work_cpu;
    srv->work_t1 = uv_hrtime();
}

void
arb_group_pack(msgpack_packer *pk, const arb_group_open_t *g, size_t n)
{
    size_t k;

    msgpack_pack_str_with_body(pk, "opened", 6);
    msgpack_pack_array(pk, n);
    for (k = 0; k < n; k++) {
        msgpack_pack_map(pk, 3);
        arb_mp_pack_kv_str(pk, "table", g[k].table);
        arb_mp_pack_kv_str(pk, "match", g[k].match);
        arb_mp_pack_kv_bin(pk, "hash", g[k].hash, ARB_HASH_LEN);
    }
}

void
arb_commit_ack(arb_server_t *srv, arb_pending_t *p)
{
    arb_buf_t      b = ARB_BUF_INIT;
    msgpack_packer pk;
    size_t         i;

    arb_stats_ack(srv, p);
    for (i = 0; i < p->nwait; i++) {
        arb_conn_t *c = p->wait[i].conn;
        if (!c->closing) {
            arb_reply_begin(&b, &pk, p->wait[i].req, 5 + (p->ngroup > 0));
            arb_mp_pack_kv_str(&pk, "match", p->live->id);
            arb_mp_pack_kv_uint(&pk, "seq", p->ap.seq);
            arb_mp_pack_kv_bin(&pk, "hash", p->ap.hash, ARB_HASH_LEN);
            arb_mp_pack_kv_uint(&pk, "pos", p->ap.pos);
            arb_mp_pack_kv_bool(&pk, "dup", i > 0 || p->retry);
            if (p->ngroup > 0)  /* opened in the same transaction */
                arb_group_pack(&pk, p->group, p->ngroup);
            arb_conn_send_owed(c, &b);
        }
        c->inflight--;
        arb_conn_flow(c);       /* (its acks may have filled its output) */
        if (c->inflight == 0 && !c->closing)
            srv->gather_want++;     /* it will send its next event */
        arb_conn_unref(c);
    }
}

void
arb_commit_refuse(arb_server_t *srv, arb_pending_t *p, const char *code,
                  const char *msg)
{
    size_t i;

    (void)srv;                  /* (each connection knows its server) */
    for (i = 0; i < p->nwait; i++) {
        arb_conn_t *c = p->wait[i].conn;
        if (!c->closing)
            arb_reply_error(c, p->wait[i].req, code, NULL, "%s", msg);
        c->inflight--;
        arb_conn_flow(c);
        arb_conn_unref(c);
    }
}

static void
drop_inflight(arb_live_t *l, arb_pending_t *p)
{
    size_t i;

    for (i = 0; i < l->ninflight; i++)
        if (l->inflight[i] == p) {
            memmove(&l->inflight[i], &l->inflight[i + 1],
                    (l->ninflight - i - 1) * sizeof(*l->inflight));
            l->ninflight--;
            return;
        }
}

static arb_pending_t *
pending_at(arb_server_t *srv, size_t i)
{
    return i < srv->nbatch ? srv->batch[i] : srv->queue[i - srv->nbatch];
}

/* Refuses the batch and every append queued behind it (validated on top
 * of it) with code and msg; the touched matches fall back to their
 * committed state. */
static void
refuse_all(arb_server_t *srv, const char *code, const char *msg)
{
    size_t i;

    for (i = 0; i < srv->nbatch; i++)
        arb_commit_refuse(srv, srv->batch[i], code, msg);
    for (i = 0; i < srv->nqueue; i++)
        arb_commit_refuse(srv, srv->queue[i], code, msg);
    /* Reset every touched match once, then free the appends. */
    for (i = 0; i < srv->nbatch + srv->nqueue; i++) {
        arb_live_t *l = pending_at(srv, i)->live;
        size_t      j;
        if (l == NULL)
            continue;
        /* The reset may free l: forget it everywhere first. */
        for (j = i; j < srv->nbatch + srv->nqueue; j++)
            if (pending_at(srv, j)->live == l)
                pending_at(srv, j)->live = NULL;
        arb_live_reset(srv, l);
    }
    for (i = 0; i < srv->nbatch; i++)
        arb_pending_free(srv->batch[i]);
    for (i = 0; i < srv->nqueue; i++)
        arb_pending_free(srv->queue[i]);
    srv->nbatch = srv->nqueue = 0;
}

static void after_work(arb_server_t *srv);

static void
after_work_cb(uv_work_t *w, int status)
{
    arb_server_t *srv = w->data;
    uint64_t      t = uv_hrtime();

    (void)status;
    srv->n.work_ns += srv->work_t1 - srv->work_t0;
    srv->n.work_cpu_ns += srv->work_cpu;
    srv->n.start_ns += srv->work_t0 - srv->commit_t0;
    srv->n.back_ns += t - srv->work_t1;
    /* One write per connection for all its acks and pushes. */
    arb_server_cork(srv);
    after_work(srv);
    arb_server_uncork(srv);
    srv->n.after_ns += uv_hrtime() - t;
}

/* A committed batch is durable: its live state moves on, its acks and
 * pushes leave, and it is freed (v and ap with it). */
static void
batch_durable(arb_server_t *srv, arb_pending_t **v, arb_append_t *ap,
              size_t n)
{
    uint64_t above;
    size_t   i, j;
    int      hold = 0;

    for (i = 0; i < n; i++) {
        arb_pending_t *p = v[i];
        arb_live_t    *l = p->live;
        memcpy(p->ap.hash, ap[i].hash, ARB_HASH_LEN);
        p->ap.pos = ap[i].pos;
        p->ack_pos = p->ap.pos;
        l->committed = p->ap.seq;
        l->exists = 1;
        if (p->ap.closes)
            l->closed = 1;
        if (p->head != NULL) {  /* same batch, not freed yet */
            if (p->gi < p->head->ngroup)    /* an open, not an act */
                memcpy(p->head->group[p->gi].hash, p->ap.hash,
                       ARB_HASH_LEN);
            if (p->ap.pos > p->head->ack_pos)
                p->head->ack_pos = p->ap.pos;
        }
        if (p->ap.pos > srv->order_pos)
            srv->order_pos = p->ap.pos;
        drop_inflight(l, p);
    }
    arb_repl_committed(srv, srv->order_pos);
    /* Sync replication, or async ahead of the stream by more than
     * max_lag: the batch's acks wait for the stream's PubAcks
     * (replicate_loop.c releases them, and the closed matches).  The
     * whole batch, in order: a group's members point at its head. */
    above = arb_repl_hold_above(srv);
    for (i = 0; above != UINT64_MAX && i < n && !hold; i++)
        hold = v[i]->ack_pos > above;
    for (i = 0; i < n; i++) {
        arb_live_t *l = v[i]->live;
        if (hold) {
            arb_sub_committed(srv, v[i]);
            arb_http_committed(srv, v[i]);
            arb_repl_hold(srv, v[i]);
            continue;
        }
        arb_commit_ack(srv, v[i]);
        arb_sub_committed(srv, v[i]);
        arb_http_committed(srv, v[i]);
        arb_pending_free(v[i]);
        /* A closed match leaves memory after its last event of the
         * batch (a later item may still point at it). */
        for (j = i + 1; l->closed && j < n; j++)
            if (v[j]->live == l)
                break;
        if (l->closed && j >= n)
            arb_live_release(srv, l);
    }
    free(v);
    free(ap);
}

/* "; the file system holding DIR is full (N KiB free)" when it is: LMDB
 * reports a write a full disk cut short as an I/O error (EIO), which
 * would send whoever is paged after a failing disk (until 2026-12-06 it
 * said only "Input/output error"). */
static void
full_hint(const arb_server_t *srv, char *out, size_t cap)
{
    struct statvfs fs;
    unsigned long long avail;

    *out = '\0';
    if (srv->cfg.data == NULL || statvfs(srv->cfg.data, &fs) != 0)
        return;
    avail = (unsigned long long)fs.f_bavail * fs.f_frsize;
    /* Under 1 MiB free, or under 0.1% of it: a commit writes more. */
    if (avail < 1024 * 1024
        || avail < (unsigned long long)fs.f_blocks * fs.f_frsize / 1000)
        snprintf(out, cap, "; the file system holding %s is full (%llu KiB "
                 "free): free room, then start again", srv->cfg.data,
                 avail / 1024);
}

static void
fail_stop(arb_server_t *srv, int rc)
{
    char hint[4400];

    /* Nothing of this batch is acknowledged, and no later commit may
     * run on top of pages whose fsync failed. */
    full_hint(srv, hint, sizeof(hint));
    arb_log(ARB_LOG_ERROR, "commit failed (%s: %s)%s: stopping without "
            "acknowledging the batch", arb_strerror(rc),
            arb_buf_cstr(&srv->commit_why), hint);
    srv->exit_code = ARB_EXIT_FAILSTOP;
    uv_stop(srv->loop);
}

static void
after_work(arb_server_t *srv)
{
    uint64_t      gather_ms;
    int           rc = srv->commit_rc;

    srv->committing = 0;
    /* A failed write of the derived index is a failed write too: the
     * batch is durable in the log, but it is not acknowledged (a retry
     * by cid finds it after the restart), and nothing more is written. */
    if (rc == 0 && arb_store_index_failed(srv->store, &srv->commit_why))
        rc = ARB_EIO;
    if (rc == ARB_EIO || rc == ARB_ESTORE) {
        fail_stop(srv, rc);
        return;
    }
    srv->gather_want = 0;
    if (rc != 0) {
        /* Refused before anything was written: storage full, or one of
         * the store's own guards (a bug if it fires, since every append
         * was validated).  The batch and everything queued behind it,
         * validated on top of it, are refused; the touched matches fall
         * back to their committed state. */
        const char *msg;
        const char *code = rc == ARB_EFULL ? "full" : "internal";

        size_t      k;

        msg = arb_buf_cstr(&srv->commit_why);
        /* One line a second at most, counting what it left out: clients
         * retrying against a full store wrote 20,000 lines in 100 s
         * until 2026-12-06. */
        if (arb_now_ms() - srv->full_logged_ms >= 1000) {
            arb_log(ARB_LOG_ERROR, "%s: refusing %zu appends; reads "
                    "continue (%llu more refused in %llu batches since "
                    "the last such line)", msg, srv->nbatch + srv->nqueue,
                    (unsigned long long)srv->full_quiet,
                    (unsigned long long)srv->full_quiet_batches);
            srv->full_logged_ms = arb_now_ms();
            srv->full_quiet = srv->full_quiet_batches = 0;
        } else {
            srv->full_quiet += srv->nbatch + srv->nqueue;
            srv->full_quiet_batches++;
        }
        /* Counted as refusals, by their code (rejects_total{reason=
         * "full"}): until 2026-12-06 only a rule's refusal was, and a
         * full disk showed nowhere in the metrics. */
        for (k = 0; k < srv->nbatch + srv->nqueue; k++)
            arb_stats_reject(srv, rc);
        refuse_all(srv, code, msg);
        if (srv->stopping)
            arb_server_stop(srv);
        return;
    }
    arb_stats_commit(srv, srv->nbatch);
    batch_durable(srv, srv->batch, srv->batch_ap, srv->nbatch);
    srv->batch = NULL;
    srv->batch_ap = NULL;
    srv->nbatch = 0;
    gather_ms = (uv_hrtime() - srv->commit_t0) / 2000000u;
    gather_ms = gather_ms < ARB_GATHER_MIN_MS ? ARB_GATHER_MIN_MS
              : gather_ms > ARB_GATHER_MAX_MS ? ARB_GATHER_MAX_MS : gather_ms;
    /* libuv's clock counts whole milliseconds, so a timer of N ms runs
     * out after N-1 to N ms: a 1 ms wait often ended a few microseconds
     * in, before any table could answer (a quarter to a third of the
     * waits at 16 tables; tests/integration/gather.sh).  One more
     * millisecond makes the wait last what it says, but only while waits
     * complete: where they run out anyway (hundreds of tables, whose
     * answers take the loop longer to read than the wait; or tables at a
     * human pace, which answer seconds later) the extra millisecond
     * would only delay everyone else. */
    if (srv->gather_full)
        gather_ms++;
    if (srv->gather_want > 0 && !srv->stopping) {
        if (!srv->gather_init &&
            uv_timer_init(srv->loop, &srv->gather_timer) == 0) {
            srv->gather_timer.data = srv;
            srv->gather_init = 1;
        }
        if (srv->gather_init &&
            uv_timer_start(&srv->gather_timer, gather_cb, gather_ms,
                           0) == 0) {
            srv->gathering = 1;
            srv->gather_got = 0;
        }
    }
    arb_commit_kick(srv);
    if (srv->stopping && !srv->committing)
        arb_server_stop(srv);
}

static void
start_job(arb_server_t *srv)
{
    srv->work.data = srv;
    srv->committing = 1;
    srv->commit_t0 = uv_hrtime();
    if (uv_queue_work(srv->loop, &srv->work, work_cb, after_work_cb) != 0) {
        arb_log(ARB_LOG_ERROR, "cannot start the commit worker");
        abort();
    }
}

/* A lone event: nothing else was read in this turn of the loop and
 * nothing is committing, so no other request can be waiting on the
 * commit's account; run it here, without the hand-offs to the worker and
 * back (the loop waits for the flushes instead, as the worker would). */
static void
run_lone(arb_server_t *srv)
{
    srv->work.data = srv;
    srv->committing = 1;
    srv->commit_t0 = uv_hrtime();
    srv->n.lone_commits++;
    work_cb(&srv->work);
    srv->n.lone_cpu_ns += srv->work_cpu;
    /* The loop's clock stood still through the flushes: a gather timer
     * started from it would run out before the table could answer. */
    uv_update_time(srv->loop);
    after_work_cb(&srv->work, 0);
}

static void start_now(arb_server_t *srv);

static void
start_idle_cb(uv_idle_t *h)
{
    arb_server_t *srv = h->data;

    uv_idle_stop(h);
    srv->start_armed = 0;
    start_now(srv);
}

/* Starts the next commit in the loop's next idle phase: every request the
 * poll phase read is queued by then, so the batch takes them all, and a
 * batch of one is known to be alone.  (An idle handle, not a check one:
 * while it is active the loop does not block in its poll, so a kick from
 * a timer or from the idle phase itself is not left waiting for I/O.) */
void
arb_commit_kick(arb_server_t *srv)
{
    if (srv->committing || srv->start_armed || srv->nqueue == 0)
        return;
    if (!srv->start_init) {
        if (uv_idle_init(srv->loop, &srv->start_idle) != 0) {
            start_now(srv);
            return;
        }
        srv->start_idle.data = srv;
        srv->start_init = 1;
    }
    if (uv_idle_start(&srv->start_idle, start_idle_cb) != 0) {
        start_now(srv);
        return;
    }
    srv->start_armed = 1;
}

static void
start_now(arb_server_t *srv)
{
    size_t i, n;

    if (srv->committing)
        return;
    if (srv->nqueue == 0)
        return;
    if (srv->gathering) {
        if (srv->gather_got < srv->gather_want && !srv->stopping)
            return;         /* the acked tables are still sending */
        srv->n.gathered++;
        srv->gathering = 0;
        srv->gather_full = 1;
        uv_timer_stop(&srv->gather_timer);
    }
    n = srv->nqueue < srv->cfg.batch_max ? srv->nqueue : srv->cfg.batch_max;
    /* An atomic group is never cut: one transaction holds all of it. */
    while (n < srv->nqueue && srv->queue[n]->joined)
        n++;
    free(srv->batch);
    free(srv->batch_ap);
    srv->nbatch = 0;
    srv->batch = malloc(n * sizeof(*srv->batch));
    srv->batch_ap = malloc(n * sizeof(*srv->batch_ap));
    if (srv->batch == NULL || srv->batch_ap == NULL) {
        /* Nothing is written: refused like a batch the store refuses. */
        arb_log(ARB_LOG_ERROR, "out of memory building a commit batch: "
                "refusing %zu appends", srv->nqueue);
        refuse_all(srv, "internal", "out of memory building a commit "
                   "batch");
        if (srv->stopping)
            arb_server_stop(srv);
        return;
    }
    memcpy(srv->batch, srv->queue, n * sizeof(*srv->batch));
    memmove(srv->queue, srv->queue + n, (srv->nqueue - n) * sizeof(*srv->queue));
    srv->nqueue -= n;
    srv->nbatch = n;
    for (i = 0; i < n; i++)
        srv->batch_ap[i] = srv->batch[i]->ap;
    if (n == 1 && srv->nqueue == 0 && srv->cfg.lone_commit)
        run_lone(srv);
    else
        start_job(srv);
}

/* An append nobody will answer: after a fail-stop the loop stops with
 * appends queued or committing.  Its waiters' connections are
 * released with it (they are closed by then). */
static void
pending_drop(arb_pending_t *p)
{
    size_t i;

    for (i = 0; i < p->nwait; i++)
        arb_conn_unref(p->wait[i].conn);
    arb_pending_free(p);
}

void
arb_commit_free(arb_server_t *srv)
{
    size_t i;

    for (i = 0; i < srv->nqueue; i++)
        pending_drop(srv->queue[i]);
    for (i = 0; i < srv->nbatch; i++)
        pending_drop(srv->batch[i]);
    free(srv->queue);
    free(srv->batch);
    free(srv->batch_ap);
    srv->queue = srv->batch = NULL;
    srv->batch_ap = NULL;
    srv->nqueue = srv->nbatch = srv->capqueue = 0;
    arb_buf_free(&srv->commit_why);
}
