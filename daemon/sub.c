/*
 * sub.c - catch-up subscriptions, for one match or for all matches in
 * commit order.
 *
 * DESIGN: a subscriber reads history from the store in chunks, then turns
 * live and is pushed each event as its batch commits.  The boundary has no
 * gap and no duplicate because both sides use the loop's own view of what
 * is committed (live->committed, srv->order_pos), which after_work_cb
 * advances before it pushes: catch-up never reads past it, and a live push
 * is sent only for the exact next seq/pos.  A subscriber whose unsent
 * output passes 3/4 of outq_max (or that one push would take over it) is
 * cut off with a `slow` push, delivered before the close; writers are never
 * slowed and memory never grows for it.  A cut subscriber is unlinked at
 * once but freed only with its connection, because the commit path may be
 * walking the list it was on.
 */
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/mp.h"
#include "daemon/log.h"
#include "daemon/server.h"
#include "proto/limits.h"

#define CHUNK 256
/* Events one catch-up sends in one turn of the loop.  The rest waits for
 * the next turn (the idle phase), so a reader of a long history that
 * reads as fast as it is sent never holds the loop, and everyone's acks,
 * for long: until 2026-12-06 a catch-up of 900,000 events to a fast
 * reader ran in one go, and stalled every ack for 8 to 12 s (now, the
 * same reader: acks p50 7 ms, max 68 ms; 1,024 a turn gave 17 and 116). */
#define TURN  CHUNK
/* Events all catch-ups send between two idle phases, together: with many
 * fast readers at once each gets a share of a turn, at least SHARE
 * events, so the loop's work between two of everyone's acks stays about
 * the same however many catch up (20 readers of 900,000 events: acks p50
 * 238 ms, max 435, with a turn each; 9.3 and 50 with the budget). */
#define BUDGET (4 * TURN)
#define SHARE  16

static void cut_off(arb_sub_t *s);

/* One event to one subscriber, as its connection may see it (viewer.c);
 * l is the match's live entry when at hand.  0 when it was sent, 1 when
 * a catch-up (history) holds it back: it would take the unsent output
 * past outq_max, which the write of what is queued makes room for (the
 * write callback pumps again); -1 when the connection ends.  A live push
 * that would pass outq_max cuts the subscriber off, as one alone that
 * is larger than outq_max does in either. */
static int
push_event(arb_sub_t *s, arb_live_t *l, const char *match, uint64_t seq,
           int has_pos, uint64_t pos, int64_t time_ms,
           const unsigned char *hash, const void *bytes, size_t len,
           int history)
{
    arb_buf_t      b = ARB_BUF_INIT, tmp = ARB_BUF_INIT;
    msgpack_packer pk;
    static const char hdr[4] = { 0, 0, 0, 0 };
    int            rc;

    rc = arb_conn_event_view(s->conn, l, match, s->kind == ARB_SUB_ALL,
                             &bytes, &len, &hash, &tmp);
    if (rc != 0) {
        /* Never the unfiltered event: the subscriber is told and ends
         * (until 2026-12-07 it ended without a word). */
        arb_buf_t msg = ARB_BUF_INIT;

        arb_log(ARB_LOG_ERROR, "subscriber %llu: match '%s' seq %llu: %s",
                (unsigned long long)s->id, match, (unsigned long long)seq,
                arb_strerror(rc));
        arb_buf_printf(&msg, "match '%s' seq %llu cannot be shown as this "
                       "connection may see it: %s", match,
                       (unsigned long long)seq, arb_strerror(rc));
        arb_reply_push_error(s->conn, s->id, "internal",
                             msg.oom ? "an event cannot be shown as this "
                                       "connection may see it"
                                     : arb_buf_cstr(&msg));
        arb_buf_free(&msg);
        arb_buf_free(&tmp);
        arb_conn_finish(s->conn);
        return -1;
    }
    arb_buf_add(&b, hdr, 4);
    arb_mp_packer_init(&pk, &b);
    msgpack_pack_map(&pk, (has_pos ? 9 : 8) - (hash == NULL));
    arb_mp_pack_kv_uint(&pk, "v", 1);
    arb_mp_pack_kv_str(&pk, "push", "event");
    arb_mp_pack_kv_uint(&pk, "sub", s->id);
    arb_mp_pack_kv_str(&pk, "match", match);
    arb_mp_pack_kv_uint(&pk, "seq", seq);
    if (has_pos)
        arb_mp_pack_kv_uint(&pk, "pos", pos);
    arb_mp_pack_kv_int(&pk, "time", time_ms);
    if (hash != NULL)
        arb_mp_pack_kv_bin(&pk, "hash", hash, ARB_HASH_LEN);
    arb_mp_pack_kv_bin(&pk, "event", bytes, len);
    arb_buf_free(&tmp);
    if (s->conn->outq + b.len > s->conn->srv->cfg.outq_max) {
        arb_buf_free(&b);
        /* History never cuts (until 2026-12-07 an event past half of
         * outq_max, a big claim, cut a catch-up off as `slow`). */
        if (history && s->conn->outq > 0)
            return 1;
        cut_off(s);
        return -1;
    }
    return arb_conn_send(s->conn, &b) == 0 ? 0 : -1;
}

/* Cuts a subscriber off: counted, logged, told why with a last `slow` push,
 * and its connection finishes (the push is delivered before the close). */
static void
cut_off(arb_sub_t *s)
{
    arb_conn_t *c = s->conn;
    arb_sub_t  *x;

    /* Every subscription of the connection ends with it: each counts
     * (until 2026-12-06 one did, while `subscribers` fell by all). */
    for (x = c->subs; x != NULL; x = x->next_in_conn)
        c->srv->n.subs_cut += !x->dead;
    arb_log(ARB_LOG_WARN, "conn %llu (%s): subscriber %llu cannot keep up "
            "(%zu bytes unsent): cut off", (unsigned long long)c->num,
            c->identity, (unsigned long long)s->id, c->outq);
    arb_reply_push_error(c, s->id, "slow", "subscriber cannot keep up: cut "
                         "off; resubscribe from the next seq you need");
    arb_conn_finish(c);
}

static int
too_slow(arb_sub_t *s)
{
    if (s->conn->outq <= s->conn->srv->cfg.outq_max / 4 * 3)
        return 0;
    cut_off(s);
    return 1;
}

/* True once the subscriber's connection is going away: its subs are
 * unlinked but stay allocated until the connection is freed, so a caller
 * walking a list may still look at them. */
static int
gone(const arb_sub_t *s)
{
    return s->dead || s->conn->closing || s->conn->finishing;
}

/* Catch-up stops mid-chunk at half of outq_max (the write callback pumps
 * again), so history alone never pushes a connection over its cap: what
 * it has not sent is in the store.  So is everything a read replica's
 * subscribers are sent (they go on through catch-up: sub_appended), and
 * they pause there too.  For a few hours of 2026-12-06 one that had
 * caught up once was cut past 3/4 instead, as a live one is: a reader
 * keeping up was cut as `slow` after every backlog the replica applied
 * at once (a NATS node back, the replica resumed).  One that stops
 * reading is closed after stall_timeout_ms (server.c). */
static int
paused(arb_sub_t *s)
{
    if (gone(s))
        return 1;
    return s->conn->outq > s->conn->srv->cfg.outq_max / 2;
}

typedef struct pump_ctx {
    arb_sub_t *s;
    uint64_t   n;
    int        held;    /* an event waits for room: the read stopped */
} pump_ctx_t;

static int
on_match_event(void *ud, uint64_t seq, int64_t time_ms,
               const unsigned char hash[ARB_HASH_LEN], const void *bytes, size_t len)
{
    pump_ctx_t *x = ud;

    if (push_event(x->s, x->s->live, x->s->live->id, seq, 0, 0, time_ms,
                   hash, bytes, len, 1) == 1) {
        x->held = 1;
        return 1;
    }
    x->s->next = seq + 1;
    x->n++;
    return paused(x->s);
}

static int
on_order_event(void *ud, uint64_t pos, const char *match_id, uint64_t seq,
             int64_t time_ms, const unsigned char hash[ARB_HASH_LEN], const void *bytes,
             size_t len)
{
    pump_ctx_t *x = ud;

    if (push_event(x->s, NULL, match_id, seq, 1, pos, time_ms, hash, bytes,
                   len, 1) == 1) {
        x->held = 1;
        return 1;
    }
    x->s->next = pos + 1;
    x->n++;
    return paused(x->s);
}

static void on_pump_idle(uv_idle_t *h);

/* The loop's next idle phase runs on_pump_idle. */
static void
idle_later(arb_server_t *srv)
{
    if (!srv->pump_init) {
        if (uv_idle_init(srv->loop, &srv->pump_idle) != 0)
            return;             /* (never fails on Linux) */
        srv->pump_idle.data = srv;
        srv->pump_init = 1;
    }
    if (!srv->pump_armed && uv_idle_start(&srv->pump_idle, on_pump_idle)
                            == 0)
        srv->pump_armed = 1;
}

/* s's turn ran out: it goes on at the loop's next idle phase. */
static void
pump_later(arb_server_t *srv, arb_sub_t *s)
{
    s->more = 1;
    idle_later(srv);
}

/* Sends history until the subscriber is caught up, its output is half
 * full (the write callback pumps again), or its turn runs out (the idle
 * phase pumps again). */
static void
pump(arb_sub_t *s)
{
    arb_server_t *srv = s->conn->srv;
    pump_ctx_t    x;
    arb_buf_t     why = ARB_BUF_INIT;
    uint64_t      last, to, sent = 0, turn;
    int           rc;

    s->more = 0;
    turn = srv->pump_spent + TURN <= BUDGET ? TURN
         : srv->pump_spent + SHARE < BUDGET ? BUDGET - srv->pump_spent
         : SHARE;
    while (!s->is_live && !gone(s)) {
        if (sent >= turn) {
            arb_log(ARB_LOG_DEBUG, "subscriber %llu: catch-up goes on at "
                    "%llu next turn", (unsigned long long)s->id,
                    (unsigned long long)s->next);
            pump_later(srv, s);
            return;
        }
        /* A match whose open is still committing has no history yet. */
        if (s->kind == ARB_SUB_MATCH && !s->live->exists) {
            s->is_live = 1;
            break;
        }
        last = s->kind == ARB_SUB_ALL ? srv->order_pos : s->live->committed;
        if (s->next > last) {
            s->is_live = 1;     /* (pushed from memory from now on) */
            arb_store_links_free(s->links);
            s->links = NULL;
            break;
        }
        if (paused(s))
            return;
        to = s->next + (turn - sent) - 1 < last ? s->next + (turn - sent) - 1
                                                : last;
        if (to - s->next + 1 > CHUNK)
            to = s->next + CHUNK - 1;
        x.s = s;
        x.n = 0;
        x.held = 0;
        /* Every link read is checked, in both kinds: a byte changed on
         * the disk is not served (until 2026-12-07 the all-matches
         * catch-up served it under its old hash). */
        if (s->kind == ARB_SUB_ALL) {
            if (s->links == NULL)
                s->links = arb_store_links_new(0);
            rc = arb_store_log(srv->store, s->links, s->next,
                               to - s->next + 1, on_order_event, &x, &why);
        } else {
            rc = arb_store_events(srv->store, s->live->id, s->next, to,
                                  on_match_event, &x, &why);
        }
        if (rc == ARB_ECORRUPT)
            arb_live_corrupt(srv, s->kind == ARB_SUB_ALL ? NULL
                                  : s->live->id, &why);
        if ((rc != 0 && rc != 1) || (x.n == 0 && !x.held && !gone(s))) {
            arb_log(ARB_LOG_ERROR, "subscriber %llu: catch-up read failed "
                    "at %llu: %s", (unsigned long long)s->id,
                    (unsigned long long)s->next,
                    why.len > 0 ? arb_buf_cstr(&why) : arb_strerror(rc));
            /* Told why, and the end comes after what was queued (until
             * 2026-12-06 the connection was closed without a word). */
            {
                arb_buf_t msg = ARB_BUF_INIT;

                arb_buf_printf(&msg, "%s%s%sthe catch-up read failed%s%s",
                               s->kind == ARB_SUB_ALL ? "" : "match '",
                               s->kind == ARB_SUB_ALL ? "" : s->live->id,
                               s->kind == ARB_SUB_ALL ? "" : "': ",
                               why.len > 0 ? ": " : "",
                               why.len > 0 ? arb_buf_cstr(&why) : "");
                arb_reply_push_error(s->conn, s->id, "internal",
                                     msg.oom ? "the catch-up read failed"
                                             : arb_buf_cstr(&msg));
                arb_buf_free(&msg);
            }
            arb_buf_free(&why);
            arb_conn_finish(s->conn);
            return;
        }
        sent += x.n;
        srv->pump_spent += x.n;
        if (x.held)
            return;             /* (the write callback pumps again) */
    }
}

/* The idle phase: each catch-up whose turn ran out gets one more, and
 * the closed matches whose last subscriber left go; the handle stops
 * once none is left wanting. */
static void
on_pump_idle(uv_idle_t *h)
{
    arb_server_t *srv = h->data;
    arb_conn_t   *c, *next;
    arb_sub_t    *s;
    int           again = 0;

    srv->pump_spent = 0;            /* a new share for everyone */
    arb_server_cork(srv);
    for (c = srv->conns; c != NULL; c = next) {
        next = c->next;
        for (s = c->subs; s != NULL && !gone(s); s = s->next_in_conn)
            if (s->more)
                pump(s);
    }
    arb_server_uncork(srv);
    /* (After the uncork, which may pump what it wrote at once.) */
    for (c = srv->conns; c != NULL && !again; c = c->next)
        for (s = c->subs; s != NULL && !gone(s) && !again;
             s = s->next_in_conn)
            again = s->more;
    if (srv->left_any) {
        srv->left_any = 0;
        arb_live_release_left(srv);
    }
    if (!again) {
        uv_idle_stop(&srv->pump_idle);
        srv->pump_armed = 0;
    }
}

void
arb_sub_close(arb_server_t *srv)
{
    if (srv->pump_init) {
        uv_idle_stop(&srv->pump_idle);
        uv_close((uv_handle_t *)&srv->pump_idle, NULL);
        srv->pump_init = srv->pump_armed = 0;
    }
}

void
arb_sub_pump_conn(arb_conn_t *c)
{
    arb_sub_t *s;

    for (s = c->subs; s != NULL && !gone(s); s = s->next_in_conn)
        if (!s->is_live)
            pump(s);
}

void
arb_sub_start(arb_conn_t *c, uint64_t req, arb_live_t *live, int has_from,
              uint64_t from)
{
    arb_server_t  *srv = c->srv;
    arb_sub_t     *s;
    arb_buf_t      b = ARB_BUF_INIT;
    msgpack_packer pk;
    uint64_t       next;

    if (c->nsubs >= ARB_SUBS_PER_CONN) {
        arb_reply_error(c, req, "too_big", NULL, "subscribe: this "
                        "connection holds %u subscriptions, the most one "
                        "may (one without 'match' follows every match)",
                        ARB_SUBS_PER_CONN);
        return;
    }
    /* A `from` past what is committed is refused, as HTTP's resume past
     * the head is: a client that saw more was following another copy
     * (one restored from behind, a lagging replica), and waiting for that
     * seq would pass over the events before it unseen. */
    next = live != NULL ? live->committed + (live->exists ? 1 : 0)
                        : srv->order_pos + 1;
    if (has_from && from > next) {
        if (live != NULL)
            arb_reply_error(c, req, "not_found", NULL, "from: %llu is past "
                            "the next seq of match '%s' (%llu): this "
                            "recorder has not committed it",
                            (unsigned long long)from, live->id,
                            (unsigned long long)next);
        else
            arb_reply_error(c, req, "not_found", NULL, "from: %llu is past "
                            "the next position of the log (%llu): this "
                            "recorder has not committed it",
                            (unsigned long long)from,
                            (unsigned long long)next);
        return;
    }
    s = calloc(1, sizeof(*s));
    if (s == NULL) {
        arb_reply_error(c, req, "internal", NULL, "out of memory");
        return;
    }
    s->id = ++srv->sub_seq;
    s->conn = c;
    s->kind = live != NULL ? ARB_SUB_MATCH : ARB_SUB_ALL;
    s->live = live;
    s->next = has_from ? from : next;      /* all matches: from >= 1 */
    if (live != NULL) {
        s->next_in_match = live->subs;
        live->subs = s;
    } else {
        s->next_all = srv->all_subs;
        srv->all_subs = s;
    }
    s->next_in_conn = c->subs;
    c->subs = s;
    c->nsubs++;
    arb_reply_begin(&b, &pk, req, 2);
    arb_mp_pack_kv_uint(&pk, "sub", s->id);
    arb_mp_pack_kv_uint(&pk, "from", s->next);
    if (arb_conn_send(c, &b) != 0)
        return;
    pump(s);
}

static void
sub_free(arb_sub_t *s)
{
    arb_store_links_free(s->links);
    free(s);
}

static void
unlink_sub(arb_server_t *srv, arb_sub_t *s)
{
    arb_sub_t **pp;

    if (s->kind == ARB_SUB_MATCH) {
        for (pp = &s->live->subs; *pp != NULL; pp = &(*pp)->next_in_match)
            if (*pp == s) {
                *pp = s->next_in_match;
                break;
            }
        /* The last one of a closed match: it leaves memory, later (until
         * 2026-12-07 it stayed until the daemon stopped, as every table
         * a spectator followed to its close did). */
        if (s->live->subs == NULL && s->live->closed) {
            s->live->left = 1;
            srv->left_any = 1;
            idle_later(srv);
        }
    } else {
        for (pp = &srv->all_subs; *pp != NULL; pp = &(*pp)->next_all)
            if (*pp == s) {
                *pp = s->next_all;
                break;
            }
    }
}

void
arb_sub_cancel(arb_conn_t *c, uint64_t id)
{
    arb_sub_t **pp, *s;

    for (pp = &c->subs; *pp != NULL; pp = &(*pp)->next_in_conn)
        if ((*pp)->id == id) {
            s = *pp;
            *pp = s->next_in_conn;
            if (!s->dead)
                unlink_sub(c->srv, s);
            sub_free(s);
            c->nsubs--;
            return;
        }
}

void
arb_sub_end_match(arb_live_t *l, const char *code, const char *msg)
{
    while (l->subs != NULL) {
        arb_conn_t *c = l->subs->conn;

        arb_reply_push_error(c, l->subs->id, code, msg);
        arb_conn_finish(c);
        /* (Finishing unlinks them, but a connection already closing
         * under its holder, a sink, is not finished again.) */
        arb_sub_drop_conn(c);
    }
}

void
arb_sub_drop_conn(arb_conn_t *c)
{
    arb_sub_t *s;

    for (s = c->subs; s != NULL; s = s->next_in_conn)
        if (!s->dead) {
            unlink_sub(c->srv, s);
            s->dead = 1;
        }
}

void
arb_sub_free_conn(arb_conn_t *c)
{
    arb_sub_t *s;

    arb_sub_drop_conn(c);
    while ((s = c->subs) != NULL) {
        c->subs = s->next_in_conn;
        sub_free(s);
    }
}

/* A subscriber still catching up goes on at the idle phase, within the
 * budget shared by all catch-ups, never from inside a commit's ack (until
 * 2026-12-06 it was pumped there, for every event of the batch: each
 * catch-up sent up to half of outq_max while every ack waited; 8 readers
 * with outq_max 64M stalled acks up to 3.5 s). */
void
arb_sub_committed(arb_server_t *srv, arb_pending_t *p)
{
    arb_sub_t *s, *n;

    for (s = p->live->subs; s != NULL; s = n) {
        n = s->next_in_match;
        if (gone(s))
            continue;
        if (!s->is_live) {
            pump_later(srv, s);
            continue;
        }
        if (p->ap.seq != s->next || too_slow(s))
            continue;
        push_event(s, p->live, p->live->id, p->ap.seq, 0, 0, p->ap.time_ms,
                   p->ap.hash, p->bytes.data, p->bytes.len, 0);
        s->next++;
    }
    for (s = srv->all_subs; s != NULL; s = n) {
        n = s->next_all;
        if (gone(s))
            continue;
        if (!s->is_live) {
            pump_later(srv, s);
            continue;
        }
        if (p->ap.pos != s->next || too_slow(s))
            continue;
        push_event(s, p->live, p->live->id, p->ap.seq, 1, p->ap.pos,
                   p->ap.time_ms,
                   p->ap.hash, p->bytes.data, p->bytes.len, 0);
        s->next++;
    }
}

void
arb_sub_appended(arb_server_t *srv, arb_live_t *l)
{
    arb_sub_t *s, *n;

    for (s = l != NULL ? l->subs : NULL; s != NULL; s = n) {
        n = s->next_in_match;
        if (gone(s))
            continue;
        s->is_live = 0;
        pump_later(srv, s);
    }
    for (s = srv->all_subs; s != NULL; s = n) {
        n = s->next_all;
        if (gone(s))
            continue;
        s->is_live = 0;
        pump_later(srv, s);
    }
}
