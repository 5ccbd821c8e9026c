/*
 * test_record_net.c - `arbiter record` against a scripted recorder: the
 * real bin/arbiter (built by `make` before the tests) talks to a server on
 * a unix socket in a temp directory, which takes any number of
 * connections (the console's requests, its subscription, and both again
 * after a reconnect), answers auth, events, subscribe and append as the
 * case says, and notes every request.  What no real daemon does on cue is
 * scripted here: a push that skips a seq, an append refused because the
 * recorder is shutting down.  The console's input is a pipe the server
 * fills only once the case's pushes are on the wire, so that they are
 * there when the line is judged.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/codec.h"
#include "core/err.h"
#include "core/event.h"
#include "core/hash.h"
#include "core/match.h"
#include "core/mp.h"
#include "tests/test.h"
#include "tests/script_frames.h"


#define CONNS_MAX 8

/* One run of the console against a case. */
typedef struct run {
    int         rc;             /* exit status; -1 killed (it hung) */
    char        out[8192], err[8192];
    char        ops[8192];      /* "<conn> <op>\n" per request, appends
                                   with their fields but id and cid */
    const char *input;          /* the console's lines */
    int         feed_now;       /* the case asks for the input */
    int         fed;            /* input written (and the pipe closed) */
    int         in_fd;          /* the pipe's end written here */
    uint64_t    nlog;           /* the log: open, then notes 1..nlog */
    int         nappend;        /* appends answered so far */
    int         sealed;         /* a running dealt match: the events'
                                   hashes withheld, the state asked */
    enum { DIGEST_NULL, DIGEST_LOG, DIGEST_OTHER }
                digest;         /* the state's digest: withheld, the
                                   log's, another */
} run_t;

/* A case: called on subscribe (pushes after its answer) and on each
 * append (its answer); returns 1 when the connections are to be closed
 * after the answer. */
typedef int (*case_fn)(run_t *r, const char *op, uint64_t id,
                       arb_buf_t *out);

/* ---- frames ---------------------------------------------------------- */




/* An append's ack: seq, a hash, no duplicate. */
static void
put_ack(arb_buf_t *out, uint64_t id, uint64_t seq)
{
    arb_buf_t      b = ARB_BUF_INIT;
    msgpack_packer pk;
    unsigned char  h[32];

    memset(h, 0x5a, sizeof(h));
    arb_mp_packer_init(&pk, &b);
    ok_head(&pk, id, 2);
    arb_mp_pack_kv_uint(&pk, "seq", seq);
    arb_mp_pack_kv_bin(&pk, "hash", h, sizeof(h));
    put_frame(out, &b);
    arb_buf_free(&b);
}

/* A seq of the log (0: none) where an arbiter declined the undo of
 * seq 1. */
static uint64_t decline_at;

/* The canonical bytes of event seq of the log: the open of M1 (yahchain,
 * alice and bob) at 0, a note "n<seq>" of another console after it (at
 * decline_at an arbiter's note declining the undo of seq 1). */
static void
log_bytes(arb_buf_t *out, uint64_t seq)
{
    arb_event_t ev;
    char        text[32];

    memset(&ev, 0, sizeof(ev));
    ev.seq = seq;
    ev.time_ms = 1700000000000;
    if (seq == 0) {
        ev.kind = ARB_EV_OPEN;
        ev.actor = strdup("td");
        ev.setup = calloc(1, sizeof(*ev.setup));
        CHECK(ev.setup != NULL);
        ev.setup->game = strdup("yahchain");
        ev.setup->match_id = strdup("M1");
        CHECK_INT(arb_setup_add_player(ev.setup, "alice", -1), 0);
        CHECK_INT(arb_setup_add_player(ev.setup, "bob", -1), 0);
        CHECK_INT(arb_setup_set_option(ev.setup, "mode", "3"), 0);
    } else {
        ev.kind = ARB_EV_NOTE;
        ev.actor = strdup("other");
        ev.client_id = strdup("other-00000000-1");
        snprintf(text, sizeof(text), "n%llu", (unsigned long long)seq);
        if (seq == decline_at)
            snprintf(text, sizeof(text), "undo declined: seq 1");
        ev.text = strdup(text);
    }
    CHECK_INT(arb_event_encode(out, &ev), 0);
    arb_event_clear(&ev);
}

/* The state digest of the log's events 0..nlog, as hex. */
static void
log_digest(uint64_t nlog, char hex[ARB_HASH_HEX])
{
    arb_buf_t     b = ARB_BUF_INIT;
    arb_event_t   ev;
    arb_verdict_t v;
    arb_match_t  *m = NULL;
    unsigned char d[ARB_HASH_LEN];
    uint64_t      s;

    for (s = 0; s <= nlog; s++) {
        b.len = 0;
        log_bytes(&b, s);
        memset(&ev, 0, sizeof(ev));
        CHECK_INT(arb_event_decode(&ev, b.data, b.len, NULL), 0);
        if (s == 0)
            CHECK_INT(arb_match_open(&m, &ev, &v), 0);
        else if (m != NULL)
            CHECK_INT(arb_match_apply(m, &ev, &v), 0);
        arb_event_clear(&ev);
    }
    if (m != NULL) {
        arb_match_digest(m, d);
        arb_hex32(hex, d);
    }
    arb_match_free(m);
    arb_buf_free(&b);
}

static void
put_event_push(arb_buf_t *out, uint64_t seq)
{
    arb_buf_t      b = ARB_BUF_INIT, ev = ARB_BUF_INIT;
    msgpack_packer pk;

    log_bytes(&ev, seq);
    arb_mp_packer_init(&pk, &b);
    msgpack_pack_map(&pk, 7);
    arb_mp_pack_kv_uint(&pk, "v", 1);
    arb_mp_pack_kv_str(&pk, "push", "event");
    arb_mp_pack_kv_uint(&pk, "sub", 1);
    arb_mp_pack_kv_str(&pk, "match", "M1");
    arb_mp_pack_kv_uint(&pk, "seq", seq);
    arb_mp_pack_kv_int(&pk, "time", 1700000000000);
    arb_mp_pack_kv_bin(&pk, "event", ev.data, ev.len);
    put_frame(out, &b);
    arb_buf_free(&b);
    arb_buf_free(&ev);
}

/* The whole log in one page (withheld: no hashes, as a scorer reads a
 * running dealt match). */
static void
put_events(arb_buf_t *out, uint64_t id, uint64_t nlog, int withheld)
{
    arb_buf_t      b = ARB_BUF_INIT, ev = ARB_BUF_INIT;
    msgpack_packer pk;
    unsigned char  h[32];
    uint64_t       s;

    memset(h, 0xab, sizeof(h));
    arb_mp_packer_init(&pk, &b);
    ok_head(&pk, id, 2);
    arb_mp_pack_kv_str(&pk, "match", "M1");
    msgpack_pack_str_with_body(&pk, "events", 6);
    msgpack_pack_array(&pk, (size_t)nlog + 1);
    for (s = 0; s <= nlog; s++) {
        ev.len = 0;
        log_bytes(&ev, s);
        msgpack_pack_map(&pk, withheld ? 3 : 4);
        arb_mp_pack_kv_uint(&pk, "seq", s);
        arb_mp_pack_kv_int(&pk, "time", 1700000000000);
        if (!withheld)
            arb_mp_pack_kv_bin(&pk, "hash", h, sizeof(h));
        arb_mp_pack_kv_bin(&pk, "event", ev.data, ev.len);
    }
    put_frame(out, &b);
    arb_buf_free(&b);
    arb_buf_free(&ev);
}

/* ---- the server and the console -------------------------------------- */



/* Notes request req of connection c in r->ops: its op, and an append's
 * fields but id and cid as msgpack-c prints them. */
static void
note_op(run_t *r, int c, const char *op, const msgpack_object *req)
{
    msgpack_object    o = *req;
    msgpack_object_kv kv[32];
    char              line[1024];
    uint32_t          i, k = 0;
    size_t            n = strlen(r->ops);

    snprintf(r->ops + n, sizeof(r->ops) - n, "%d %s", c, op);
    if (strcmp(op, "append") == 0) {
        for (i = 0; i < req->via.map.size && k < 32; i++) {
            const msgpack_object *key = &req->via.map.ptr[i].key;

            if (key->type == MSGPACK_OBJECT_STR
                && ((key->via.str.size == 2
                     && memcmp(key->via.str.ptr, "id", 2) == 0)
                    || (key->via.str.size == 3
                        && memcmp(key->via.str.ptr, "cid", 3) == 0)))
                continue;
            kv[k++] = req->via.map.ptr[i];
        }
        o.via.map.ptr = kv;
        o.via.map.size = k;
        msgpack_object_print_buffer(line, sizeof(line), o);
        n = strlen(r->ops);
        snprintf(r->ops + n, sizeof(r->ops) - n, " %s", line);
    }
    n = strlen(r->ops);
    snprintf(r->ops + n, sizeof(r->ops) - n, "\n");
}

/* Writes the input, once, after the answer that asked for it is on the
 * wire (r->feed_now). */
static void
feed(run_t *r)
{
    r->feed_now = 0;
    if (r->fed)
        return;
    r->fed = 1;
    CHECK(write(r->in_fd, r->input, strlen(r->input))
          == (ssize_t)strlen(r->input));
    close(r->in_fd);
}

/* Answers one request of connection c; 1 when all connections are to be
 * closed after it. */
static int
answer(run_t *r, case_fn fn, int c, const msgpack_object *req,
       arb_buf_t *out)
{
    arb_buf_t      b = ARB_BUF_INIT;
    msgpack_packer pk;
    const char    *s;
    size_t         slen;
    uint64_t       id = 0;
    char           op[32] = "";
    int            closing = 0;

    arb_mp_get_uint(req, "id", &id);
    if (arb_mp_get_bytes(req, "op", &s, &slen) == 0 && slen < sizeof(op)) {
        memcpy(op, s, slen);
        op[slen] = '\0';
    }
    note_op(r, c, op, req);
    arb_mp_packer_init(&pk, &b);
    if (strcmp(op, "auth") == 0) {
        ok_head(&pk, id, 2);
        arb_mp_pack_kv_str(&pk, "identity", "sc");
        arb_mp_pack_kv_str(&pk, "role", "scorer");
        put_frame(out, &b);
    } else if (strcmp(op, "events") == 0) {
        put_events(out, id, r->nlog, r->sealed);
    } else if (strcmp(op, "state") == 0 && r->sealed) {
        /* The recorder's report: no records yet, alice to play. */
        ok_head(&pk, id, 2);
        arb_mp_pack_kv_str(&pk, "json", "{\"records\": [], \"totals\": {}, "
                           "\"state\": {\"turn\": \"alice\"}, "
                           "\"finished\": false, \"closed\": false}");
        msgpack_pack_str_with_body(&pk, "seqs", 4);
        msgpack_pack_array(&pk, 0);
        put_frame(out, &b);
    } else if (strcmp(op, "state") == 0) {
        /* The recorder's seq, its digest withheld (the seq alone is
         * compared), or the log's, or one of no log (r->digest). */
        char json[192], hex[ARB_HASH_HEX] = "";

        if (r->digest == DIGEST_LOG)
            log_digest(r->nlog, hex);
        else if (r->digest == DIGEST_OTHER)
            memset(hex, 'e', ARB_HASH_HEX - 1);
        snprintf(json, sizeof(json), "{\"seq\": %llu, \"digest\": %s%s%s}",
                 (unsigned long long)r->nlog, hex[0] ? "\"" : "",
                 hex[0] ? hex : "null", hex[0] ? "\"" : "");
        ok_head(&pk, id, 1);
        arb_mp_pack_kv_str(&pk, "json", json);
        put_frame(out, &b);
    } else if (strcmp(op, "subscribe") == 0) {
        ok_head(&pk, id, 2);
        arb_mp_pack_kv_uint(&pk, "sub", 1);
        arb_mp_pack_kv_uint(&pk, "from", 0);
        put_frame(out, &b);
        closing = fn(r, op, id, out);
    } else if (strcmp(op, "append") == 0) {
        closing = fn(r, op, id, out);
        r->nappend++;
    } else {
        put_refusal(out, id, "bad_request", "not scripted");
    }
    arb_buf_free(&b);
    return closing;
}

/* Runs `arbiter record --match M1 args...` against case fn, its input
 * r->input given once the subscription is answered. */
static void
run_record(run_t *r, case_fn fn, const char *const *args)
{
    struct sockaddr_un sa;
    char               opath[128], epath[128];
    const char        *argv[24];
    arb_buf_t          body = ARB_BUF_INIT, out = ARB_BUF_INIT;
    arb_buf_t          why = ARB_BUF_INIT;
    msgpack_unpacked   req;
    struct pollfd      p[CONNS_MAX + 1];
    int                conn[CONNS_MAX], ids[CONNS_MAX];
    int                ls, st, i, j, nc = 0, nids = 0, pipefd[2], done = 0;
    pid_t              pid;
    struct timespec    t0, t1;

    argv[0] = "arbiter";
    argv[1] = "record";
    argv[2] = "--match";
    argv[3] = "M1";
    for (i = 0; args[i] != NULL && i < 18; i++)
        argv[i + 4] = args[i];
    argv[i + 4] = NULL;
    r->ops[0] = '\0';
    r->fed = 0;
    r->feed_now = 0;
    r->nappend = 0;
    snprintf(opath, sizeof(opath), "%s/out", dir);
    snprintf(epath, sizeof(epath), "%s/err", dir);
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path);
    unlink(sock_path);
    ls = socket(AF_UNIX, SOCK_STREAM, 0);
    CHECK(ls >= 0);
    CHECK(bind(ls, (struct sockaddr *)&sa, sizeof(sa)) == 0);
    CHECK(listen(ls, 8) == 0);
    CHECK(pipe(pipefd) == 0);
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        int ofd = open(opath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int efd = open(epath, O_WRONLY | O_CREAT | O_TRUNC, 0600);

        if (ofd < 0 || efd < 0 || dup2(ofd, 1) < 0 || dup2(efd, 2) < 0
            || dup2(pipefd[0], 0) < 0)
            _exit(126);
        close(ls);
        close(pipefd[1]);
        setenv("ARBITER_TIMEOUT", "5", 1);
        setenv("ARBITER_SERVER", sock_path, 1);
        setenv("ARBITER_TOKEN", "t0ken", 1);
        execv("bin/arbiter", (char *const *)argv);
        _exit(127);
    }
    CHECK(pid > 0);
    close(pipefd[0]);
    r->in_fd = pipefd[1];
    msgpack_unpacked_init(&req);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (!done) {
        p[0].fd = ls;
        p[0].events = POLLIN;
        for (i = 0; i < nc; i++) {
            p[i + 1].fd = conn[i];
            p[i + 1].events = POLLIN;
        }
        if (poll(p, (nfds_t)nc + 1, 50) > 0) {
            if ((p[0].revents & POLLIN) && nc < CONNS_MAX) {
                conn[nc] = accept(ls, NULL, NULL);
                if (conn[nc] >= 0)
                    ids[nc++] = nids++;
            }
            for (i = 0; i < nc; i++) {
                int closing;

                if (p[i + 1].revents == 0)
                    continue;
                if (!read_frame(conn[i], &body)) {
                    close(conn[i]);
                    conn[i] = -1;
                    continue;
                }
                msgpack_unpacked_destroy(&req);
                CHECK_INT(arb_mp_parse(&req, body.data, body.len, &why), 0);
                out.len = 0;
                closing = answer(r, fn, ids[i], &req.data, &out);
                if (out.len > 0)
                    CHECK(write(conn[i], out.data, out.len)
                          == (ssize_t)out.len);
                if (r->feed_now)
                    feed(r);
                if (closing)
                    for (j = 0; j < nc; j++)
                        if (conn[j] >= 0) {
                            close(conn[j]);
                            conn[j] = -1;
                        }
            }
            for (i = j = 0; i < nc; i++)
                if (conn[i] >= 0) {
                    ids[j] = ids[i];
                    conn[j++] = conn[i];
                }
            nc = j;
        }
        if (waitpid(pid, &st, WNOHANG) == pid) {
            r->rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
            done = 1;
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (!done && t1.tv_sec - t0.tv_sec > 15) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            r->rc = -1;
            done = 1;
        }
    }
    if (!r->fed)
        close(r->in_fd);
    for (i = 0; i < nc; i++)
        close(conn[i]);
    close(ls);
    slurp(opath, r->out, sizeof(r->out));
    slurp(epath, r->err, sizeof(r->err));
    msgpack_unpacked_destroy(&req);
    arb_buf_free(&body);
    arb_buf_free(&out);
    arb_buf_free(&why);
}

#define RUN(fn, r, ...) do {                                              \
        const char *const a_[] = { __VA_ARGS__, NULL };                   \
        run_record(r, fn, a_);                                            \
    } while (0)

/* ---- cases ----------------------------------------------------------- */

/* The log holds the open alone when the console reads it; then two
 * notes of another console are recorded and only the second one's push
 * comes (the first lost, as when the recorder dropped a slow
 * subscriber's push): the console reads the log for the gap. */
static int
case_gap(run_t *r, const char *op, uint64_t id, arb_buf_t *out)
{
    if (strcmp(op, "subscribe") == 0) {
        if (r->nlog == 0) {
            r->nlog = 2;
            put_event_push(out, 2);
        }
        r->feed_now = 1;
        return 0;
    }
    r->nlog++;
    put_ack(out, id, r->nlog);
    return 0;
}

/* The first append is refused "shutting_down", and the connections
 * closed, as a recorder stopping does; the console reconnects and sends
 * it again, answered then. */
static int
case_shutdown(run_t *r, const char *op, uint64_t id, arb_buf_t *out)
{
    if (strcmp(op, "subscribe") == 0) {
        r->feed_now = 1;
        return 0;
    }
    if (r->nappend == 0) {
        put_refusal(out, id, "shutting_down", "the recorder is stopping");
        return 1;
    }
    r->nlog++;
    put_ack(out, id, r->nlog);
    return 0;
}

static int undo_busy;

/* A running dealt match: the card is recorded, the undo request of it
 * refused (the match closed meanwhile, say), the next one answered. */
static int
case_undo(run_t *r, const char *op, uint64_t id, arb_buf_t *out)
{
    if (strcmp(op, "subscribe") == 0) {
        r->feed_now = 1;
        return 0;
    }
    if (r->nappend == 1) {
        /* (undo_busy: another console's event came meanwhile) */
        r->nlog += undo_busy;
        put_refusal(out, id, "forbidden", "not now");
        return 0;
    }
    r->nlog++;
    put_ack(out, id, r->nlog);
    return 0;
}

static void
test_undo_refused(void)
{
    run_t r;
    char  want[512];

    /* The refused request was never recorded: the next undo asks again,
     * where "already requested" left the move beyond any undo but an
     * arbiter's own (this console's replay cannot see the match to tell
     * a standing request); also when the log read after the refusal
     * holds another console's event (until 2026-12-08 that event was
     * taken for the request). */
    for (undo_busy = 0; undo_busy <= 1; undo_busy++) {
        memset(&r, 0, sizeof(r));
        r.sealed = 1;
        r.input = "4S\nundo\nundo\n";
        RUN(case_undo, &r, "--retry", "5");
        CHECK_INT(r.rc, 1);
        snprintf(want, sizeof(want), "ok seq 1\n"
                 "refused forbidden: not now\n"
                 "ok seq %d; undo of seq 1 (place alice 4\xe2\x99\xa0) "
                 "requested: only an arbiter can void it (arbiter rule "
                 "--match M1 void 1 --reason ...)\n", 2 + undo_busy);
        CHECK_STR(r.out, want);
    }
}

/* A running dealt match: the card is recorded at 1; the undo request
 * of it at 3, after another console's event, and an arbiter declines it
 * at once (4), before the console has its answer: the resync the
 * answer's seq calls for reads the decline.  Then every append is
 * answered. */
static int
case_undo_declined(run_t *r, const char *op, uint64_t id, arb_buf_t *out)
{
    if (strcmp(op, "subscribe") == 0) {
        r->feed_now = 1;
        return 0;
    }
    if (r->nappend == 1) {
        r->nlog = 4;
        decline_at = 4;
        put_ack(out, id, 3);
        return 0;
    }
    r->nlog++;
    put_ack(out, id, r->nlog);
    return 0;
}

static void
test_undo_declined_early(void)
{
    run_t r;

    /* Declined within the request's round trip: answered, the next undo
     * asks again (until 2026-12-08 "already requested (seq 3)" for
     * good: the decline was read before the request was counted). */
    memset(&r, 0, sizeof(r));
    r.sealed = 1;
    r.input = "4S\nundo\nundo\n";
    RUN(case_undo_declined, &r, "--retry", "5");
    decline_at = 0;
    CHECK_INT(r.rc, 0);
    CHECK_STR(r.out, "ok seq 1\n"
              "ok seq 3; undo of seq 1 (place alice 4\xe2\x99\xa0) "
              "requested: only an arbiter can void it (arbiter rule "
              "--match M1 void 1 --reason ...)\n"
              "ok seq 5; undo of seq 1 (place alice 4\xe2\x99\xa0) "
              "requested: only an arbiter can void it (arbiter rule "
              "--match M1 void 1 --reason ...)\n");
}

/* The first append refused (by a rule of the recorder's this console
 * does not know, say), the next answered. */
static int
case_refused(run_t *r, const char *op, uint64_t id, arb_buf_t *out)
{
    if (strcmp(op, "subscribe") == 0) {
        r->feed_now = 1;
        return 0;
    }
    if (r->nappend == 0) {
        put_refusal(out, id, "forbidden", "not now");
        return 0;
    }
    r->nlog++;
    put_ack(out, id, r->nlog);
    return 0;
}

static void
test_refused(void)
{
    run_t r;

    memset(&r, 0, sizeof(r));
    r.input = "4S\n4S\n";
    RUN(case_refused, &r, "--retry", "5");
    CHECK_INT(r.rc, 1);
    /* The replay dropped the refused card: the same card is alice's
     * again, judged on the log's state, and recorded. */
    CHECK_STR(r.out, "refused forbidden: not now\nok seq 1\n");
    CHECK_STR(r.ops, "0 auth\n1 auth\n0 events\n1 subscribe\n"
              "0 append {\"v\"=>1, \"op\"=>\"append\", "
              "\"match\"=>\"M1\", \"kind\"=>\"move\", \"expect\"=>0, "
              "\"player\"=>\"alice\", \"verb\"=>\"place\", "
              "\"args\"=>[\"4\xe2\x99\xa0\"]}\n"
              "0 events\n"
              "0 append {\"v\"=>1, \"op\"=>\"append\", "
              "\"match\"=>\"M1\", \"kind\"=>\"move\", \"expect\"=>0, "
              "\"player\"=>\"alice\", \"verb\"=>\"place\", "
              "\"args\"=>[\"4\xe2\x99\xa0\"]}\n");
}

/* A push of no event: the error push "slow" (or a push of seq 1 whose
 * event bytes say seq 2) after the subscription's answer. */
static int bad_push;

static void
put_bad_push(arb_buf_t *out)
{
    arb_buf_t      b = ARB_BUF_INIT, ev = ARB_BUF_INIT;
    msgpack_packer pk;

    arb_mp_packer_init(&pk, &b);
    if (bad_push == 0) {
        msgpack_pack_map(&pk, 4);
        arb_mp_pack_kv_uint(&pk, "v", 1);
        arb_mp_pack_kv_str(&pk, "push", "error");
        arb_mp_pack_kv_uint(&pk, "sub", 1);
        msgpack_pack_str_with_body(&pk, "error", 5);
        msgpack_pack_map(&pk, 2);
        arb_mp_pack_kv_str(&pk, "code", "slow");
        arb_mp_pack_kv_str(&pk, "message", "too slow");
    } else {
        log_bytes(&ev, 2);
        msgpack_pack_map(&pk, 6);
        arb_mp_pack_kv_uint(&pk, "v", 1);
        arb_mp_pack_kv_str(&pk, "push", "event");
        arb_mp_pack_kv_uint(&pk, "sub", 1);
        arb_mp_pack_kv_str(&pk, "match", "M1");
        arb_mp_pack_kv_uint(&pk, "seq", 1);
        arb_mp_pack_kv_bin(&pk, "event", ev.data, ev.len);
    }
    put_frame(out, &b);
    arb_buf_free(&b);
    arb_buf_free(&ev);
}

static int
case_bad_push(run_t *r, const char *op, uint64_t id, arb_buf_t *out)
{
    if (strcmp(op, "subscribe") == 0) {
        if (!r->fed) {
            r->nlog = 2;
            put_bad_push(out);
        }
        r->feed_now = 1;
        return 0;
    }
    r->nlog++;
    put_ack(out, id, r->nlog);
    return 0;
}

/* The first append answered "conflict" (another console's event came
 * first), the second with dup false; or (ack_gap) the first answered at
 * a seq past the one after the console's, another console's event in
 * between not pushed yet. */
static int ack_gap;

static int
case_conflict(run_t *r, const char *op, uint64_t id, arb_buf_t *out)
{
    arb_buf_t      b = ARB_BUF_INIT;
    msgpack_packer pk;
    unsigned char  h[32];

    if (strcmp(op, "subscribe") == 0) {
        r->feed_now = 1;
        return 0;
    }
    if (r->nappend == 0 && !ack_gap) {
        r->nlog++;
        put_refusal(out, id, "conflict", "seq 1 came first");
        return 0;
    }
    r->nlog += ack_gap ? 2 : 1;
    memset(h, 0x5a, sizeof(h));
    arb_mp_packer_init(&pk, &b);
    ok_head(&pk, id, 3);
    arb_mp_pack_kv_uint(&pk, "seq", r->nlog);
    arb_mp_pack_kv_bin(&pk, "hash", h, sizeof(h));
    arb_mp_pack_kv_bool(&pk, "dup", 0);
    put_frame(out, &b);
    arb_buf_free(&b);
    return 0;
}

#define APPEND_NOTE(expect_)                                              \
    "0 append {\"v\"=>1, \"op\"=>\"append\", \"match\"=>\"M1\", "       \
    "\"kind\"=>\"note\", \"expect\"=>" expect_ ", "                      \
    "\"text\"=>\"hello\"}\n"

static void
test_pushes_and_acks(void)
{
    run_t r;

    /* "slow": the console subscribes again, on a new connection, after
     * reading the log. */
    memset(&r, 0, sizeof(r));
    r.input = "note hello\n";
    bad_push = 0;
    RUN(case_bad_push, &r, "--retry", "5");
    CHECK_INT(r.rc, 0);
    CHECK_STR(r.out, "ok seq 3\n");
    CHECK_STR(r.ops, "0 auth\n1 auth\n0 events\n1 subscribe\n"
              "2 auth\n3 auth\n3 events\n2 subscribe\n"
              "3 append {\"v\"=>1, \"op\"=>\"append\", "
              "\"match\"=>\"M1\", \"kind\"=>\"note\", \"expect\"=>2, "
              "\"text\"=>\"hello\"}\n");
    /* An event numbered otherwise than its push: the log is read. */
    memset(&r, 0, sizeof(r));
    r.input = "note hello\n";
    bad_push = 1;
    RUN(case_bad_push, &r, "--retry", "5");
    CHECK_INT(r.rc, 0);
    CHECK_STR(r.out, "ok seq 3\n");
    CHECK_STR(r.ops, "0 auth\n1 auth\n0 events\n1 subscribe\n0 events\n"
              APPEND_NOTE("2"));
    /* A conflict: judged again on the log read anew, sent again, and a
     * dup false is no duplicate. */
    memset(&r, 0, sizeof(r));
    r.input = "note hello\n";
    ack_gap = 0;
    RUN(case_conflict, &r, "--retry", "5");
    CHECK_INT(r.rc, 0);
    CHECK_STR(r.out, "ok seq 2\n");
    CHECK(strstr(r.err, "recorded before") == NULL);
    CHECK_STR(r.ops, "0 auth\n1 auth\n0 events\n1 subscribe\n"
              APPEND_NOTE("0") "0 events\n" APPEND_NOTE("1"));
    /* Recorded past the seq after the console's: the log is read for
     * the event in between. */
    memset(&r, 0, sizeof(r));
    r.input = "note hello\n";
    ack_gap = 1;
    RUN(case_conflict, &r, "--retry", "5");
    CHECK_INT(r.rc, 0);
    CHECK_STR(r.out, "ok seq 2\n");
    CHECK_STR(r.ops, "0 auth\n1 auth\n0 events\n1 subscribe\n"
              APPEND_NOTE("0") "0 events\n");
}

/* A note of another console in the log, its push not come yet, when the
 * console is asked for its state. */
static int
case_behind(run_t *r, const char *op, uint64_t id, arb_buf_t *out)
{
    (void)id, (void)out;
    if (strcmp(op, "subscribe") == 0) {
        r->nlog = 1;
        r->feed_now = 1;
    }
    return 0;
}

/* The recorder's digest compared with the console's replay: withheld (the
 * seq alone compared) or the same, the state is shown; another (after
 * the log is read again and still another), the console says its replay
 * differs and shows nothing.  Each time the console is behind the
 * recorder first: the log is read, and compared again. */
static void
test_state_behind(void)
{
    static const int digests[] = { DIGEST_NULL, DIGEST_LOG, DIGEST_OTHER };
    run_t r;
    int   k;

    for (k = 0; k < 3; k++) {
        memset(&r, 0, sizeof(r));
        r.input = "state\n";
        r.digest = digests[k];
        RUN(case_behind, &r, "--retry", "5");
        CHECK_INT(r.rc, k < 2 ? 0 : 1);
        CHECK_STR(r.out, k < 2 ? "seq 1; Sota 1 []; turn alice; totals "
                  "alice 0, bob 0\n" : "error: this console's replay "
                  "differs from the recorder's state (digest): report "
                  "it\n");
        CHECK_STR(r.ops, "0 auth\n1 auth\n0 events\n1 subscribe\n"
                  "0 state\n0 events\n0 state\n");
    }
}

static void
test_gap(void)
{
    run_t r;

    memset(&r, 0, sizeof(r));
    r.input = "note hello\n";
    RUN(case_gap, &r, "--follow");
    CHECK_INT(r.rc, 0);
    CHECK_STR(r.out, "# other: note n1 (seq 1)\n"
              "# other: note n2 (seq 2)\n"
              "ok seq 3\n");
    /* The push of seq 2 over a console at seq 0 is a gap: the log is
     * read again, and the note is judged (and expected) at seq 2. */
    CHECK_STR(r.ops, "0 auth\n1 auth\n0 events\n1 subscribe\n0 events\n"
              "0 append {\"v\"=>1, \"op\"=>\"append\", \"match\"=>\"M1\", "
              "\"kind\"=>\"note\", \"expect\"=>2, \"text\"=>\"hello\"}\n");
}

static void
test_shutdown(void)
{
    run_t r;

    memset(&r, 0, sizeof(r));
    r.input = "note hello\n";
    RUN(case_shutdown, &r, "--retry", "5");
    CHECK_INT(r.rc, 0);
    CHECK_STR(r.out, "ok seq 1\n");
    /* Refused as the recorder stops: not a refusal of the note, which
     * is sent again once the console is back, expected at seq 0. */
    CHECK_STR(r.ops, "0 auth\n1 auth\n0 events\n1 subscribe\n"
              "0 append {\"v\"=>1, \"op\"=>\"append\", \"match\"=>\"M1\", "
              "\"kind\"=>\"note\", \"expect\"=>0, \"text\"=>\"hello\"}\n"
              "2 auth\n3 auth\n3 events\n2 subscribe\n"
              "3 append {\"v\"=>1, \"op\"=>\"append\", \"match\"=>\"M1\", "
              "\"kind\"=>\"note\", \"expect\"=>0, \"text\"=>\"hello\"}\n");
}

int
main(void)
{
    if (script_begin("/tmp/arb-recnet.XXXXXX") != 0)
        return 1;
    test_gap();
    test_shutdown();
    test_undo_refused();
    test_undo_declined_early();
    test_refused();
    test_pushes_and_acks();
    test_state_behind();
    script_end();
    return TEST_END();
}
