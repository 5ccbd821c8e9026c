/*
 * record_link.c - `arbiter record` and the daemon: connecting, the local
 * replay, judging and sending, following, reconnecting.
 *
 * DESIGN: two connections.  A carries requests and their answers through
 * the blocking helpers of tools/net.c.  B carries only the subscription and
 * is read here, frame by frame, when poll() says it is readable: the
 * blocking client drops pushes while it waits for an answer and buffers
 * bytes that poll() cannot see, so the two kinds of traffic are kept apart.
 *
 * Exactly once.  Every event gets a client event id "<identity>-<random>-
 * <n>" before it is first sent.  When a connection breaks before the
 * answer, the event may or may not be in the log; the console reconnects,
 * rebuilds its replay from the log and sends the event again with the same
 * cid.  If the first send reached the log (committed, or still in flight
 * in the daemon) the daemon answers with the original seq and dup, and
 * nothing is written twice; if it did not, the event is judged again on the
 * rebuilt state (someone may have moved meanwhile) and sent as new.
 *
 * `expect` goes with every judged event: the daemon then judges it against
 * the very state the console judged, and a move that crossed another
 * console's on the wire comes back as a conflict, never as a surprise.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "core/clock.h"
#include "core/err.h"
#include "core/codec.h"
#include "proto/limits.h"
#include "core/mp.h"
#include "tools/cli.h"
#include "tools/record.h"

#define RETRY_STEP_MS  200      /* between two attempts to reconnect */
#define CONFLICTS_MAX  8        /* rejudge-and-resend rounds per event */

static void
sleep_ms(unsigned ms)
{
    struct timespec ts;

    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (long)(ms % 1000) * 1000000L;
    nanosleep(&ts, NULL);       /* a signal cuts it short: fine */
}

/* A message for the person (on screen) or the script (stderr, so the
 * result lines on stdout stay one per input line). */
static void
say(rec_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
say(rec_t *r, const char *fmt, ...)
{
    char    msg[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (r->interactive) {
        rec_print(r, msg);
    } else {
        fprintf(stderr, "arbiter record: %s\n", msg);
        fflush(stderr);
    }
}

static int
is_mine(const rec_t *r, const arb_event_t *ev)
{
    return ev->client_id != NULL
           && strncmp(ev->client_id, r->cid_prefix,
                      strlen(r->cid_prefix)) == 0;
}

/* ---- connection B: the subscription ----------------------------------- */

static void
close_sub(rec_t *r)
{
    arb_client_close(r->sub);
    r->sub = NULL;
    if (r->rd_init)
        arb_frame_reader_free(&r->rd);
    r->rd_init = 0;
}

/* A request the recorder does not answer within ANSWER_S seconds is a
 * lost connection: reconnected, and resent with its client event id
 * (until 2026-12-06 the console waited for ever on a recorder that had
 * stopped answering, ^C and quit unheard; the scorer's page gives up
 * after 10 s too). */
#define ANSWER_S 10

/* Connects and authenticates B, quietly: a reconnect tries many times.
 * Learns the identity and role.  0, or an ARB_E* code with why. */
static int
connect_sub(rec_t *r, arb_buf_t *why)
{
    msgpack_packer       *pk;
    msgpack_unpacked      res;
    const char           *p;
    size_t                n;
    int                   rc;

    msgpack_unpacked_init(&res);
    /* Within ANSWER_S, as any request: a recorder stopped (or wedged)
     * takes the connection and never answers the auth, and a reconnect
     * waited for it for ever, past --retry. */
    rc = arb_client_dial(&r->sub, r->addr, ANSWER_S * 1000, why);
    if (rc != 0)
        goto fail;
    arb_client_begin(r->sub, &pk, "auth", 1);
    cli_pack_str(pk, "token", r->token);
    rc = arb_client_call(r->sub, &res, why);
    if (rc == 0)        /* B then waits for pushes: no timeout */
        rc = arb_client_timeout(r->sub, 0, why);
    if (rc != 0)
        goto fail;
    if (cli_get_bytes(&res.data, "identity", &p, &n) == 0)
        snprintf(r->identity, sizeof(r->identity), "%.*s", (int)n, p);
    if (cli_get_bytes(&res.data, "role", &p, &n) == 0)
        snprintf(r->role, sizeof(r->role), "%.*s", (int)n, p);
    rc = arb_frame_reader_init(&r->rd, 64u << 20);
    if (rc != 0)
        goto fail;
    r->rd_init = 1;
    msgpack_unpacked_destroy(&res);
    return 0;

fail:
    msgpack_unpacked_destroy(&res);
    close_sub(r);
    return rc;
}

static int
subscribe(rec_t *r)
{
    msgpack_packer *pk;
    arb_buf_t       why = ARB_BUF_INIT;
    int             rc;

    arb_client_begin(r->sub, &pk, "subscribe", 2);
    cli_pack_str(pk, "match", r->match);
    cli_pack_uint(pk, "from", r->known + 1);
    rc = arb_client_send(r->sub, &why);
    arb_buf_free(&why);
    return rc;
}

int
rec_link_fd(const rec_t *r)
{
    return r->sub != NULL && !r->lost ? arb_client_fd(r->sub) : -1;
}

/* ---- the local replay ------------------------------------------------- */

/* Applies one event of the log to the replay, printing it when it is news
 * (another console's, beyond what this console knew) and we follow. */
/* An event of the log that this console's rules refuse. */
static void
differs(rec_t *r, uint64_t seq, const arb_verdict_t *v)
{
    say(r, "match %s: seq %" PRIu64 " of the log does not replay here "
        "(%s: %s): this console's engine differs from the daemon's",
        r->match, seq, v->rule, v->msg);
}

/* The event being sent (its answer may have been lost) is in the log. */
static int
is_pending(const rec_t *r, const arb_event_t *ev)
{
    return r->pending_cid != NULL && ev->client_id != NULL
           && strcmp(ev->client_id, r->pending_cid) == 0;
}

/* Sealed: what ev did, appended to out: the recorder's report before it
 * and after it (record_view.c).  The view is left after ev.  0 or -1. */
static int
sealed_effect(rec_t *r, const arb_event_t *ev, arb_buf_t *out)
{
    if (rec_view_load(r, ev->seq - 1) != 0)
        return -1;
    rec_show_snapshot(r);
    if (rec_view_load(r, ev->seq) != 0)
        return -1;
    rec_show_effect(r, out, ev);
    return 0;
}

/* apply_logged for a running dealt match: nothing to apply here (the
 * recorder judged it), its ruling noted, the view moved past it. */
static int
sealed_logged(rec_t *r, const arb_event_t *ev, int news)
{
    arb_buf_t line = ARB_BUF_INIT;
    int       rc = rec_view_note(r, ev);

    if (rc != 0) {
        say(r, "out of memory");
        return rc;
    }
    if (is_pending(r, ev)) {
        r->pending_seq = ev->seq;
        r->effect.len = 0;
        rc = sealed_effect(r, ev, &r->effect);
    }
    if (rc == 0 && news) {
        if (!r->interactive)
            arb_buf_puts(&line, "# ");
        rec_show_event(r, &line, ev);
        rc = sealed_effect(r, ev, &line);
        if (rc == 0)
            rec_print(r, arb_buf_cstr(&line));
    }
    if (rc == 0 && !news && !is_pending(r, ev))
        rc = rec_view_load(r, ev->seq);
    arb_buf_free(&line);
    return rc;
}

static int
apply_logged(rec_t *r, const arb_event_t *ev, uint64_t old_known)
{
    arb_verdict_t v;
    arb_buf_t     line = ARB_BUF_INIT;
    int           mine = is_mine(r, ev), news, rc;

    news = ev->seq > old_known && r->follow && !mine;
    if (r->sealed)
        return sealed_logged(r, ev, news);
    if (news || is_pending(r, ev))
        rec_show_snapshot(r);
    rc = arb_match_apply(r->m, ev, &v);
    if (rc != 0) {
        differs(r, ev->seq, &v);
        return rc;
    }
    if (is_pending(r, ev)) {
        /* The event being sent is already in the log: keep what it did
         * for the answer line. */
        r->pending_seq = ev->seq;
        r->effect.len = 0;
        rec_show_effect(r, &r->effect, ev);
    }
    if (news) {
        /* In a script's output a result line answers an input line; news
         * is marked so that it cannot be taken for one. */
        if (!r->interactive)
            arb_buf_puts(&line, "# ");
        rec_show_event(r, &line, ev);
        rec_show_effect(r, &line, ev);
        rec_print(r, arb_buf_cstr(&line));
    }
    arb_buf_free(&line);
    return 0;
}

/*
 * The resync of a running dealt match, which this console cannot replay
 * (record_view.c): the log's rulings noted, its events after old_known
 * handled as apply_logged handles news, the recorder's report read at
 * the head.  0 or -1.
 */
static int
resync_sealed(rec_t *r, arb_history_t *h, uint64_t old_known)
{
    size_t i;

    arb_match_free(r->m);
    r->m = NULL;
    if (h->open.setup == NULL || arb_rules_find(h->open.setup->game) == NULL) {
        say(r, "match %s: this console does not know its game",
            r->match);
        r->fatal = CLI_ERROR;
        return -1;
    }
    if (!r->sealed) {
        if (arb_event_copy(&r->open, &h->open) != 0) {
            say(r, "out of memory");
            r->fatal = CLI_ERROR;
            return -1;
        }
        r->sealed = 1;
    }
    r->nruled = 0;
    for (i = 0; i < h->nevents; i++) {
        const arb_event_t *ev = &h->events[i];

        if (ev->seq <= old_known && !is_pending(r, ev)) {
            if (rec_view_note(r, ev) != 0) {
                say(r, "out of memory");
                r->fatal = CLI_ERROR;
                return -1;
            }
        } else if (apply_logged(r, ev, old_known) != 0) {
            if (!r->lost && !r->fatal)
                r->fatal = CLI_ERROR;
            return -1;
        }
    }
    if (rec_view_load(r, h->nevents) != 0)
        return -1;
    r->known = h->nevents;
    return 0;
}

int
rec_link_resync(rec_t *r)
{
    arb_history_t h;
    arb_buf_t     why = ARB_BUF_INIT;
    arb_verdict_t v;
    uint64_t      old_known = r->known, quiet;
    size_t        i, bad;
    int           st, rc = -1;

    memset(&h, 0, sizeof(h));
    st = cli_history_from_server(&h, &r->net, r->match, UINT64_MAX, &why);
    if (st != 0) {
        if (why.len > 0)
            say(r, "match %s: %s", r->match, arb_buf_cstr(&why));
        if (st == CLI_ERROR && why.len == 0)
            r->lost = 1;        /* the connection, not the log */
        else
            r->fatal = st == CLI_DIFFERS ? CLI_DIFFERS : CLI_ERROR;
        goto done;
    }
    if (arb_history_sealed(&h)) {
        rc = resync_sealed(r, &h, old_known);
        goto done;
    }
    rec_view_clear(r);          /* (its close revealed the deal) */
    arb_match_free(r->m);
    r->m = NULL;
    /* What this console knew already goes through the one replay; only
     * what may be news to narrate, or the answer of the event in flight,
     * is applied one by one after it. */
    quiet = old_known;
    for (i = 0; i < h.nevents && h.events[i].seq <= quiet; i++)
        if (is_pending(r, &h.events[i])) {
            /* (and applied from i on: until 2026-12-07 the loop went on
             * past it, and the replay lost the event whose answer was
             * lost twice) */
            quiet = h.events[i].seq - 1;
            break;
        }
    rc = arb_history_replay(&h, quiet, &r->m, &bad, &v);
    if (rc != 0 && r->m == NULL) {
        say(r, "match %s: its header does not replay here (%s: %s)",
            r->match, v.rule, v.msg);
        r->fatal = CLI_ERROR;
        rc = -1;
        goto done;
    }
    if (rc != 0) {
        differs(r, h.events[bad].seq, &v);
        r->fatal = CLI_ERROR;
        rc = -1;
        goto done;
    }
    rc = -1;
    for (; i < h.nevents; i++)
        if (apply_logged(r, &h.events[i], old_known) != 0) {
            r->fatal = CLI_ERROR;
            goto done;
        }
    r->known = h.nevents;
    rc = 0;
done:
    arb_history_clear(&h);
    arb_buf_free(&why);
    return rc;
}

/* ---- opening, closing, reconnecting ----------------------------------- */

static void
answer_within(rec_t *r)
{
    struct timeval tv = { ANSWER_S, 0 };

    if (r->net.cl != NULL)
        (void)setsockopt(arb_client_fd(r->net.cl), SOL_SOCKET, SO_RCVTIMEO,
                         &tv, sizeof(tv));
}

int
rec_link_open(rec_t *r)
{
    arb_buf_t why = ARB_BUF_INIT;

    /* A first: it resolves --token, --token-file and $ARBITER_TOKEN and
     * says what is wrong with them. */
    if (cli_net_connect(&r->net) != 0)
        return CLI_ERROR;
    answer_within(r);
    snprintf(r->token, sizeof(r->token), "%s", r->net.token);
    /* A reconnect must not depend on the token file still being there. */
    r->net.token = r->token;
    r->net.token_file = NULL;
    if (connect_sub(r, &why) != 0) {
        fprintf(stderr, "arbiter record: %s\n", arb_buf_cstr(&why));
        arb_buf_free(&why);
        return CLI_ERROR;
    }
    arb_buf_free(&why);
    if (rec_link_resync(r) != 0)
        return r->fatal ? r->fatal : CLI_ERROR;
    if (subscribe(r) != 0) {
        fprintf(stderr, "arbiter record: subscribe: connection lost\n");
        return CLI_ERROR;
    }
    return 0;
}

void
rec_link_close(rec_t *r)
{
    close_sub(r);
    cli_net_close(&r->net);
    memset(r->token, 0, sizeof(r->token));
    arb_match_free(r->m);
    r->m = NULL;
    rec_view_clear(r);
}

int
rec_link_reconnect(rec_t *r)
{
    arb_buf_t why = ARB_BUF_INIT;
    int64_t   deadline = arb_clock_ms() + (int64_t)r->retry_ms;
    int       attempts = 0;

    say(r, "connection to %s lost; reconnecting (for up to %u s)", r->addr,
        r->retry_ms / 1000);
    for (;;) {
        close_sub(r);
        cli_net_close(&r->net);
        if (rec_stop || r->fatal)
            return -1;
        if (attempts++ > 0) {
            if (arb_clock_ms() >= deadline) {
                say(r, "could not reconnect to %s: giving up", r->addr);
                return -1;
            }
            sleep_ms(RETRY_STEP_MS);
        }
        /* B first, quietly: while the daemon is down every attempt
         * fails, and A's connect would say so each time. */
        if (connect_sub(r, &why) != 0) {
            /* The token refused: removed or changed by a reload of the
             * recorder's tokens (which closed this console's
             * connections).  Said at once, not retried: until 2026-12-06
             * "reconnecting" for 30 s, a bad token every 200 ms. */
            if (arb_buf_cstr(&why) != NULL
                && strncmp(arb_buf_cstr(&why), "unauthenticated", 15) == 0) {
                say(r, "the recorder refuses this console's token now (%s): "
                    "it was removed or changed by a reload of its tokens; "
                    "nothing more is sent", arb_buf_cstr(&why));
                arb_buf_free(&why);
                r->fatal = CLI_ERROR;
                return -1;
            }
            arb_buf_free(&why);
            continue;
        }
        if (cli_net_connect(&r->net) != 0)
            continue;
        answer_within(r);
        r->lost = 0;
        if (rec_link_resync(r) != 0 || subscribe(r) != 0) {
            if (r->fatal)
                return -1;
            r->lost = 1;
            continue;
        }
        say(r, "reconnected; the match is at seq %" PRIu64, r->known);
        return 0;
    }
}

/* ---- following -------------------------------------------------------- */

/* The subscription's answer or push.  0, or -1 when the link is lost or
 * the console cannot go on (stop reading). */
static int
on_frame(rec_t *r, const char *frame, size_t len)
{
    msgpack_unpacked      res;
    const msgpack_object *push, *e;
    arb_event_t           ev;
    arb_buf_t             why = ARB_BUF_INIT;
    const char           *bytes, *c = "", *m = "";
    size_t                blen, clen = 0, mlen = 0;
    uint64_t              seq, known = r->known;
    int                   rc = 0;

    memset(&ev, 0, sizeof(ev));
    msgpack_unpacked_init(&res);
    if (arb_mp_parse_limits(&res, frame, len, ARB_DEPTH_MAX,
                            ARB_RESP_ELEMS_MAX, &why) != 0) {
        say(r, "subscription: %s", arb_buf_cstr(&why));
        r->lost = 1;
        rc = -1;
        goto done;
    }
    push = arb_mp_get(&res.data, "push");
    e = arb_mp_get(&res.data, "error");
    if (e != NULL) {
        /* A refused subscribe, or the "slow" push: start again from the
         * next seq we need, as the protocol says. */
        cli_get_bytes(e, "code", &c, &clen);
        cli_get_bytes(e, "message", &m, &mlen);
        say(r, "subscription: %.*s: %.*s", (int)clen, c, (int)mlen, m);
        if (push == NULL && clen == 9 && memcmp(c, "not_found", 9) == 0)
            r->fatal = CLI_DIFFERS;
        r->lost = 1;
        rc = -1;
        goto done;
    }
    if (push == NULL || push->type != MSGPACK_OBJECT_STR
        || push->via.str.size != 5 || memcmp(push->via.str.ptr, "event", 5))
        goto done;              /* the subscribe answer, or news to us */
    if (cli_get_uint(&res.data, "seq", &seq) != 0
        || cli_get_bytes(&res.data, "event", &bytes, &blen) != 0)
        goto done;
    if (seq <= r->known)
        goto done;              /* ours, or read with the log already */
    if (seq > r->known + 1) {
        /* A gap: read the log instead.  The pushes still queued are then
         * older than what we know and are skipped one by one. */
        rec_link_resync(r);
        goto done;
    }
    if (arb_event_decode(&ev, bytes, blen, &why) != 0 || ev.seq != seq) {
        say(r, "subscription: seq %" PRIu64 ": %s", seq,
            why.len ? arb_buf_cstr(&why) : "numbered differently");
        rec_link_resync(r);
        goto done;
    }
    if (apply_logged(r, &ev, known) != 0) {
        if (!r->lost)
            r->fatal = CLI_ERROR;
        goto done;
    }
    r->known = seq;
done:
    if (r->lost || r->fatal)
        rc = -1;
    arb_event_clear(&ev);
    arb_buf_free(&why);
    msgpack_unpacked_destroy(&res);
    return rc;
}

void
rec_link_pump(rec_t *r)
{
    const char *frame;
    size_t      len;
    ssize_t     n;
    int         fd, rc;

    for (;;) {
        fd = rec_link_fd(r);
        if (fd < 0 || r->fatal)
            return;
        n = recv(fd, r->rbuf, sizeof(r->rbuf), MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n <= 0 || arb_frame_reader_feed(&r->rd, r->rbuf,
                                            (size_t)n) != 0) {
            r->lost = 1;
            return;
        }
        while ((rc = arb_frame_reader_next(&r->rd, &frame, &len)) == 1)
            if (on_frame(r, frame, len) != 0)
                return;         /* lost or fatal: the reader is reset */
        if (rc < 0) {
            r->lost = 1;
            return;
        }
    }
}

/* ---- sending ---------------------------------------------------------- */

/* The test hook: 1 when the answer to append n is to be lost. */
static int
drop_answer(const rec_t *r, unsigned long n)
{
    const char *p = r->drop_ack;
    char       *end;

    while (p != NULL && *p != '\0') {
        if (strtoul(p, &end, 10) == n)
            return 1;
        if (end == p || *end != ',')
            return 0;
        p = end + 1;
    }
    return 0;
}

/* One append on A.  0 answered ok, 1 refused (why = code, rule, message
 * in the answer), 2 the connection broke. */
static int
send_append(rec_t *r, const arb_event_t *ev, int with_expect)
{
    msgpack_packer *pk;
    arb_buf_t       why = ARB_BUF_INIT;
    size_t          nf;
    int             rc;

    nf = 3 + (with_expect != 0);
    if (ev->player != NULL)
        nf += 2 + (ev->nargs > 0);
    if (ev->kind == ARB_EV_VOID || ev->kind == ARB_EV_AMEND)
        nf++;
    if (ev->text != NULL)
        nf++;
    pk = cli_net_begin(&r->net, "append", nf);
    cli_pack_str(pk, "match", r->match);
    cli_pack_str(pk, "kind", arb_event_kind_name(ev->kind));
    cli_pack_str(pk, "cid", ev->client_id);
    if (with_expect)
        cli_pack_uint(pk, "expect", r->known);
    if (ev->player != NULL) {
        cli_pack_str(pk, "player", ev->player);
        cli_pack_str(pk, "verb", ev->verb);
        if (ev->nargs > 0)
            cli_pack_strv(pk, "args", ev->args, ev->nargs);
    }
    if (ev->kind == ARB_EV_VOID || ev->kind == ARB_EV_AMEND)
        cli_pack_uint(pk, "target", ev->target);
    if (ev->text != NULL)
        cli_pack_str(pk, "text", ev->text);
    if (drop_answer(r, ++r->nappends)) {
        /* Test hook: the request leaves, the answer is lost, as when the
         * daemon dies between its commit and its ack.  The pause lets the
         * commit finish first, so the resync finds the event in the log
         * (a slower commit takes the in-flight path: a dup just the same).
         */
        arb_client_send(r->net.cl, &why);
        arb_buf_free(&why);
        cli_net_close(&r->net);
        sleep_ms(200);
        return CLI_ERROR;
    }
    rc = arb_client_call(r->net.cl, &r->net.res, &why);
    arb_buf_free(&why);
    if (rc == 0)
        return 0;
    return rc == ARB_EINVAL ? CLI_DIFFERS : CLI_ERROR;
}

/* "<rule>: <message>" (or "<code>: <message>") of a refusal in res. */
static void
refusal(rec_t *r, char *out, size_t len, char *code, size_t codelen)
{
    const msgpack_object *e = arb_client_get(&r->net.res, "error");
    const char           *c = "", *rule = NULL, *m = "";
    size_t                clen = 0, rlen = 0, mlen = 0;

    cli_get_bytes(e, "code", &c, &clen);
    cli_get_bytes(e, "message", &m, &mlen);
    if (cli_get_bytes(e, "rule", &rule, &rlen) != 0)
        rule = NULL;
    snprintf(code, codelen, "%.*s", (int)clen, c);
    if (rule != NULL)
        snprintf(out, len, "%.*s: %.*s", (int)rlen, rule, (int)mlen, m);
    else
        snprintf(out, len, "%.*s: %.*s", (int)clen, c, (int)mlen, m);
}

int
rec_submit(rec_t *r, arb_event_t *ev, rec_ack_t *ack)
{
    const msgpack_object *dup;
    arb_verdict_t         v;
    char                  cid[160], code[32];
    int                   conflicts = 0, tentative, rc, status;

    memset(ack, 0, sizeof(*ack));
    r->effect.len = 0;
    if (ev->client_id == NULL) {
        snprintf(cid, sizeof(cid), "%s%lu", r->cid_prefix, ++r->ncid);
        ev->client_id = strdup(cid);
        if (ev->client_id == NULL) {
            snprintf(ack->msg, sizeof(ack->msg), "out of memory");
            return CLI_DIFFERS;
        }
    }
    r->pending_cid = ev->client_id;
    r->pending_seq = 0;
    for (;;) {
        if (r->lost && rec_link_reconnect(r) != 0) {
            snprintf(ack->msg, sizeof(ack->msg), "the connection is lost: "
                     "whether it was recorded is unknown (cid %s)",
                     ev->client_id);
            status = CLI_ERROR;
            goto done;
        }
        if (r->fatal) {
            snprintf(ack->msg, sizeof(ack->msg), "this console cannot go "
                     "on (see above)");
            status = CLI_ERROR;
            goto done;
        }
        tentative = r->pending_seq == 0;
        if (tentative) {
            /* Judged here first: only a legal event is ever sent (a
             * running dealt match's, by the recorder alone). */
            rec_show_snapshot(r);
            ev->seq = 0;
            rc = r->sealed ? 0 : arb_match_apply(r->m, ev, &v);
            if (rc != 0) {
                snprintf(ack->msg, sizeof(ack->msg), "%s: %s", v.rule,
                         v.msg);
                status = CLI_DIFFERS;
                goto done;
            }
        }
        /* Already in the log (found by a resync): resend as it was, for
         * the daemon's word on its seq. */
        rc = send_append(r, ev, tentative);
        if (rc == CLI_ERROR) {
            r->lost = 1;        /* the rebuild drops the tentative event */
            continue;
        }
        if (rc == 0) {
            if (cli_get_uint(&r->net.res.data, "seq", &ack->seq) != 0) {
                snprintf(ack->msg, sizeof(ack->msg), "the daemon's answer "
                         "has no seq");
                r->lost = 1;
                status = CLI_ERROR;
                goto done;
            }
            dup = arb_client_get(&r->net.res, "dup");
            ack->dup = dup != NULL && dup->type == MSGPACK_OBJECT_BOOLEAN
                       && dup->via.boolean;
            if (ack->dup)
                say(r, "seq %" PRIu64 " was recorded before its answer was "
                    "lost; sent again with the same cid, it stays recorded "
                    "once", ack->seq);
            if (tentative && ack->seq == r->known + 1) {
                r->known = ack->seq;
                /* (Sealed: its ruling noted, as the log's are, so that
                 * an undo does not void a move twice; until 2026-12-07
                 * only a resync noted it.  Then the report after it; a
                 * link lost meanwhile leaves the answer without its
                 * effect.) */
                if (r->sealed) {
                    ev->seq = ack->seq;
                    if (rec_view_note(r, ev) != 0)
                        rec_link_resync(r);
                }
                if (!r->sealed || rec_view_load(r, ack->seq) == 0)
                    rec_show_effect(r, &r->effect, ev);
            } else if (tentative || ack->seq != r->pending_seq) {
                /* Recorded, but not where the replay has it. */
                r->effect.len = 0;
                rec_link_resync(r);
            }
            status = 0;
            goto done;
        }
        refusal(r, ack->msg, sizeof(ack->msg), code, sizeof(code));
        if (strcmp(code, "shutting_down") == 0) {
            r->lost = 1;
            continue;
        }
        /* Whatever the daemon said, the replay holds an event the log
         * does not: rebuild it. */
        if (rec_link_resync(r) != 0 && r->fatal) {
            status = CLI_ERROR;
            goto done;
        }
        if (strcmp(code, "conflict") == 0 && ++conflicts < CONFLICTS_MAX)
            continue;           /* judged again on the newer state */
        status = CLI_DIFFERS;
        goto done;
    }
done:
    r->pending_cid = NULL;
    return status;
}

int
rec_link_verify(rec_t *r, int *same)
{
    msgpack_packer *pk;
    json_t         *j = NULL;
    const char     *json, *hex;
    char            mine[ARB_HASH_HEX];
    size_t          len;
    long long       seq;
    int             round, rc;

    *same = 0;
    for (round = 0; round < 2; round++) {
        pk = cli_net_begin(&r->net, "state", 1);
        cli_pack_str(pk, "match", r->match);
        rc = cli_net_call(&r->net);
        if (rc == CLI_ERROR) {
            r->lost = 1;
            return -1;
        }
        if (rc != 0 || cli_get_bytes(&r->net.res.data, "json", &json,
                                     &len) != 0
            || arb_json_parse(&j, json, len, NULL) != 0)
            return -1;
        seq = json_is_integer(json_object_get(j, "seq"))
              ? (long long)json_integer_value(json_object_get(j, "seq")) : -1;
        hex = json_string_value(json_object_get(j, "digest"));
        rec_digest(r, mine);
        /* (A digest withheld from this token, a running match that
         * hides cards: the seq alone is compared.) */
        *same = seq == (long long)r->known
                && (json_is_null(json_object_get(j, "digest"))
                    || (hex != NULL && strcmp(hex, mine) == 0));
        json_decref(j);
        j = NULL;
        if (*same || round == 1)
            break;
        /* Behind (or ahead of a push not read yet): read the log. */
        if (rec_link_resync(r) != 0)
            return -1;
    }
    return 0;
}
