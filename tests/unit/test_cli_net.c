/*
 * test_cli_net.c - the client commands (tools/net.c) against a server that
 * misbehaves: the real bin/arbiter (built by `make` before the tests)
 * talks to a scripted server on a unix socket in a temp directory, which
 * takes the auth, reads each request and answers what the case says: no
 * map, no code, a cut frame, a frame past the limit, garbage, an answer
 * to another request, silence, malformed events, acks and pushes.  Each
 * case pins the exit status (1 refused by the server, 2 anything that
 * kept the request from being answered), the message on stderr naming
 * what was wrong, and that nothing was printed as a result; the command
 * is killed (and the case failed) if it outlives its $ARBITER_TIMEOUT.
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
#include "core/mp.h"
#include "tests/test.h"
#include "tests/script_frames.h"


/* What one run of a command gave. */
typedef struct outcome {
    int  rc;                /* exit status; -1 killed (it hung) */
    char out[8192], err[8192];
} outcome_t;

/* The server's move after a request: what the case put in `out` is sent,
 * then */
enum {
    GO_ON,                  /* the next request is read */
    CLOSE,                  /* the connection is closed */
    HOLD                    /* nothing more is read or sent until the
                               command exits */
};

/* A case: its answer to the n-th request after auth (from 0), of id and
 * op, appended as raw bytes (frames and all) to out. */
typedef int (*answer_fn)(int n, uint64_t id, const char *op,
                         const msgpack_object *req, arb_buf_t *out);

/* ---- frames ---------------------------------------------------------- */



static void
put_ok(arb_buf_t *out, uint64_t id)
{
    arb_buf_t      b = ARB_BUF_INIT;
    msgpack_packer pk;

    arb_mp_packer_init(&pk, &b);
    ok_head(&pk, id, 0);
    put_frame(out, &b);
    arb_buf_free(&b);
}


/* The canonical bytes of note `seq` of text "n", recorded by scorer. */
static void
note_bytes(arb_buf_t *out, uint64_t seq)
{
    arb_event_t ev;

    memset(&ev, 0, sizeof(ev));
    ev.kind = ARB_EV_NOTE;
    ev.seq = seq;
    ev.time_ms = 1700000000000;
    ev.actor = (char *)"scorer";
    ev.text = (char *)"n";
    CHECK_INT(arb_event_encode(out, &ev), 0);
}

/* One events item {seq, time, hash, event} of note `seq`. */
static void
pack_item(msgpack_packer *pk, uint64_t seq)
{
    arb_buf_t     ev = ARB_BUF_INIT;
    unsigned char hash[32];

    memset(hash, 0xab, sizeof(hash));
    note_bytes(&ev, seq);
    msgpack_pack_map(pk, 4);
    arb_mp_pack_kv_uint(pk, "seq", seq);
    arb_mp_pack_kv_int(pk, "time", 1700000000000);
    arb_mp_pack_kv_bin(pk, "hash", hash, sizeof(hash));
    arb_mp_pack_kv_bin(pk, "event", ev.data, ev.len);
    arb_buf_free(&ev);
}

/* ---- the server and the command -------------------------------------- */



/* Set: a connection the answer holds gets SIGINT sent to the command. */
static int interrupt_held;

/* Runs bin/arbiter with args (NULL-ended) against a server answering as
 * fn, ARBITER_TIMEOUT=timeout; the outcome in *o.  Auth is answered ok
 * unless fn is asked (auth_too). */
static void
run_with(const char *timeout, answer_fn fn, int auth_too, outcome_t *o,
         const char *const *args)
{
    struct sockaddr_un sa;
    char               opath[128], epath[128];
    const char        *argv[24];
    arb_buf_t          body = ARB_BUF_INIT, out = ARB_BUF_INIT;
    msgpack_unpacked   req;
    arb_buf_t          why = ARB_BUF_INIT;
    struct pollfd      p;
    uint64_t           id;
    char               op[32];
    const char        *s;
    size_t             slen;
    int                ls, fd = -1, st, i, n = 0, act = GO_ON;
    pid_t              pid;
    struct timespec    t0, t1;

    argv[0] = "arbiter";
    for (i = 0; args[i] != NULL && i < 22; i++)
        argv[i + 1] = args[i];
    argv[i + 1] = NULL;
    snprintf(opath, sizeof(opath), "%s/out", dir);
    snprintf(epath, sizeof(epath), "%s/err", dir);
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path);
    unlink(sock_path);
    ls = socket(AF_UNIX, SOCK_STREAM, 0);
    CHECK(ls >= 0);
    CHECK(bind(ls, (struct sockaddr *)&sa, sizeof(sa)) == 0);
    CHECK(listen(ls, 4) == 0);
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        int ofd = open(opath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int efd = open(epath, O_WRONLY | O_CREAT | O_TRUNC, 0600);

        if (ofd < 0 || efd < 0 || dup2(ofd, 1) < 0 || dup2(efd, 2) < 0)
            _exit(126);
        close(ls);
        setenv("ARBITER_TIMEOUT", timeout, 1);
        setenv("ARBITER_SERVER", sock_path, 1);
        setenv("ARBITER_TOKEN", "t0ken", 1);
        execv("bin/arbiter", (char *const *)argv);
        _exit(127);
    }
    CHECK(pid > 0);
    msgpack_unpacked_init(&req);
    p.fd = ls;
    p.events = POLLIN;
    if (poll(&p, 1, 5000) == 1)
        fd = accept(ls, NULL, NULL);
    close(ls);
    while (fd >= 0 && act == GO_ON && read_frame(fd, &body)) {
        msgpack_unpacked_destroy(&req);
        CHECK_INT(arb_mp_parse(&req, body.data, body.len, &why), 0);
        id = 0;
        arb_mp_get_uint(&req.data, "id", &id);
        op[0] = '\0';
        if (arb_mp_get_bytes(&req.data, "op", &s, &slen) == 0
            && slen < sizeof(op)) {
            memcpy(op, s, slen);
            op[slen] = '\0';
        }
        out.len = 0;
        if (strcmp(op, "auth") == 0 && !auth_too)
            put_ok(&out, id);
        else
            act = fn(n++, id, op, &req.data, &out);
        if (out.len > 0)
            CHECK(write(fd, out.data, out.len) == (ssize_t)out.len);
    }
    /* Held and interrupted: as a Ctrl-C while the server says nothing. */
    if (fd >= 0 && act == HOLD && interrupt_held)
        kill(pid, SIGINT);
    /* Closed at once unless held: the command sees its end of file. */
    if (fd >= 0 && act != HOLD) {
        close(fd);
        fd = -1;
    }
    /* The command exits by itself, within its timeout and some slack. */
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        if (waitpid(pid, &st, WNOHANG) == pid) {
            o->rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
            break;
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (t1.tv_sec - t0.tv_sec > 10) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            o->rc = -1;
            break;
        }
        usleep(10000);
    }
    if (fd >= 0)
        close(fd);
    slurp(opath, o->out, sizeof(o->out));
    slurp(epath, o->err, sizeof(o->err));
    msgpack_unpacked_destroy(&req);
    arb_buf_free(&body);
    arb_buf_free(&out);
    arb_buf_free(&why);
}

#define RUN(fn, o, ...) do {                                              \
        const char *const a_[] = { __VA_ARGS__, NULL };                   \
        run_with("2", fn, 0, o, a_);                                      \
    } while (0)

/* rc, stderr and stdout of the last run, as one would read them. */
#define CHECK_RUN(o, rc_, err_, out_) do {                                \
        CHECK_INT((o)->rc, rc_);                                          \
        CHECK_STR((o)->err, err_);                                        \
        CHECK_STR((o)->out, out_);                                        \
    } while (0)

/* ---- answers --------------------------------------------------------- */

static int
ans_array(int n, uint64_t id, const char *op, const msgpack_object *req,
          arb_buf_t *out)
{
    (void)n, (void)id, (void)op, (void)req;
    arb_buf_add(out, "\0\0\0\x03\x92\x01\xc3", 7);     /* [1, true] */
    return GO_ON;
}

static int
ans_no_code(int n, uint64_t id, const char *op, const msgpack_object *req,
            arb_buf_t *out)
{
    (void)n, (void)op, (void)req;
    put_refusal(out, id, NULL, "something");
    return GO_ON;
}

static int
ans_bare_map(int n, uint64_t id, const char *op, const msgpack_object *req,
             arb_buf_t *out)
{
    arb_buf_t      b = ARB_BUF_INIT;
    msgpack_packer pk;

    (void)n, (void)op, (void)req;
    arb_mp_packer_init(&pk, &b);
    msgpack_pack_map(&pk, 2);
    arb_mp_pack_kv_uint(&pk, "v", 1);
    arb_mp_pack_kv_uint(&pk, "id", id);
    put_frame(out, &b);
    arb_buf_free(&b);
    return GO_ON;
}

static int
ans_new_code(int n, uint64_t id, const char *op, const msgpack_object *req,
             arb_buf_t *out)
{
    (void)n, (void)op, (void)req;
    put_refusal(out, id, "overbooked", "come back on Tuesday");
    return GO_ON;
}

/* A refusal whose code, rule and message would drive a terminal. */
static int
ans_escapes(int n, uint64_t id, const char *op, const msgpack_object *req,
            arb_buf_t *out)
{
    arb_buf_t      b = ARB_BUF_INIT;
    msgpack_packer pk;

    (void)n, (void)op, (void)req;
    arb_mp_packer_init(&pk, &b);
    msgpack_pack_map(&pk, 4);
    arb_mp_pack_kv_uint(&pk, "v", 1);
    arb_mp_pack_kv_uint(&pk, "id", id);
    arb_mp_pack_kv_bool(&pk, "ok", 0);
    msgpack_pack_str_with_body(&pk, "error", 5);
    msgpack_pack_map(&pk, 3);
    arb_mp_pack_kv_str(&pk, "code", "il\alegal");
    arb_mp_pack_kv_str(&pk, "rule", "\xc2\x9b\xc2\xa7" "34");
    arb_mp_pack_kv_str(&pk, "message", "card 2\xe2\x99\xa0\x1b[2J\xff\n");
    put_frame(out, &b);
    arb_buf_free(&b);
    return GO_ON;
}

static int
ans_empty_code(int n, uint64_t id, const char *op, const msgpack_object *req,
               arb_buf_t *out)
{
    (void)n, (void)op, (void)req;
    put_refusal(out, id, "", "what");
    return GO_ON;
}

/* 100 bytes declared, 10 sent, closed. */
static int
ans_cut_body(int n, uint64_t id, const char *op, const msgpack_object *req,
             arb_buf_t *out)
{
    (void)n, (void)id, (void)op, (void)req;
    arb_buf_add(out, "\0\0\0\x64\x83\xa1v\x01\xa2id\x02\xa2ok", 14);
    return CLOSE;
}

static int
ans_cut_header(int n, uint64_t id, const char *op, const msgpack_object *req,
               arb_buf_t *out)
{
    (void)n, (void)id, (void)op, (void)req;
    arb_buf_add(out, "\0\0\0", 3);
    return CLOSE;
}

static int
ans_too_big(int n, uint64_t id, const char *op, const msgpack_object *req,
            arb_buf_t *out)
{
    (void)n, (void)id, (void)op, (void)req;
    arb_buf_add(out, "\x05\0\0\0" "abcd", 8);
    return HOLD;
}

static int
ans_zero(int n, uint64_t id, const char *op, const msgpack_object *req,
         arb_buf_t *out)
{
    (void)n, (void)id, (void)op, (void)req;
    arb_buf_add(out, "\0\0\0\0", 4);
    return HOLD;
}

static int
ans_http(int n, uint64_t id, const char *op, const msgpack_object *req,
         arb_buf_t *out)
{
    static const char h[] = "HTTP/1.1 400 Bad Request\r\n\r\n";

    (void)n, (void)id, (void)op, (void)req;
    arb_buf_add(out, h, sizeof(h) - 1);
    return HOLD;
}

/* A frame of bytes that are no msgpack: the reserved c1. */
static int
ans_c1(int n, uint64_t id, const char *op, const msgpack_object *req,
       arb_buf_t *out)
{
    (void)n, (void)id, (void)op, (void)req;
    arb_buf_add(out, "\0\0\0\x03\xc1\xc1\xc1", 7);
    return HOLD;
}

/* {"v": truncated */
static int
ans_trunc(int n, uint64_t id, const char *op, const msgpack_object *req,
          arb_buf_t *out)
{
    (void)n, (void)id, (void)op, (void)req;
    arb_buf_add(out, "\0\0\0\x03\x81\xa1v", 7);
    return HOLD;
}

static int
ans_close(int n, uint64_t id, const char *op, const msgpack_object *req,
          arb_buf_t *out)
{
    (void)n, (void)id, (void)op, (void)req, (void)out;
    return CLOSE;
}

static int
ans_silent(int n, uint64_t id, const char *op, const msgpack_object *req,
           arb_buf_t *out)
{
    (void)n, (void)id, (void)op, (void)req, (void)out;
    return HOLD;
}

/* An answer to another id, a push, then nothing. */
static int
ans_other_id(int n, uint64_t id, const char *op, const msgpack_object *req,
             arb_buf_t *out)
{
    arb_buf_t      b = ARB_BUF_INIT;
    msgpack_packer pk;

    (void)n, (void)op, (void)req;
    arb_mp_packer_init(&pk, &b);
    ok_head(&pk, id + 5, 1);
    arb_mp_pack_kv_str(&pk, "json", "{\"digest\":\"x\",\"seq\":0}");
    put_frame(out, &b);
    b.len = 0;
    msgpack_pack_map(&pk, 2);
    arb_mp_pack_kv_str(&pk, "push", "event");
    arb_mp_pack_kv_uint(&pk, "id", id);
    put_frame(out, &b);
    arb_buf_free(&b);
    return HOLD;
}

/* The auth is answered, the request with an array, then a valid ok that
 * comes too late to matter. */
static int
ans_auth_cut(int n, uint64_t id, const char *op, const msgpack_object *req,
             arb_buf_t *out)
{
    (void)req;
    if (n == 0 && strcmp(op, "auth") == 0) {
        arb_buf_add(out, "\0\0\0\x0a\x83\xa1v\x01\xa2id", 10);
        return CLOSE;
    }
    put_ok(out, id);
    return GO_ON;
}

static void
test_answers(void)
{
    outcome_t o;

    RUN(ans_array, &o, "state", "--match", "M1");
    CHECK_RUN(&o, 2, "arbiter state: bad answer from server: message: "
              "expected map, got array\n", "");
    RUN(ans_no_code, &o, "state", "--match", "M1");
    CHECK_RUN(&o, 2, "arbiter state: bad answer from server: not ok, and "
              "no error code\n", "");
    RUN(ans_bare_map, &o, "move", "--match", "M1", "place", "alice", "2S");
    CHECK_RUN(&o, 2, "arbiter move: bad answer from server: not ok, and "
              "no error code\n", "");
    /* A code this tool does not know is still the server's refusal. */
    RUN(ans_new_code, &o, "state", "--match", "M1");
    CHECK_RUN(&o, 1, "arbiter state: overbooked: come back on Tuesday\n",
              "");
    /* Shown, never obeyed: a control character or a byte of no UTF-8
     * from the server is written \xNN (they reached the terminal as they
     * came), the rest as it is. */
    RUN(ans_escapes, &o, "move", "--match", "M1", "place", "alice", "2S");
    CHECK_RUN(&o, 1, "arbiter move: il\\x07legal: \\xc2\\x9b\xc2\xa7" "34: "
              "card 2\xe2\x99\xa0\\x1b[2J\\xff\\x0a\n", "");
    RUN(ans_empty_code, &o, "close", "--match", "M1");
    CHECK_RUN(&o, 2, "arbiter close: bad answer from server: not ok, and "
              "no error code\n", "");
}

static void
test_frames(void)
{
    outcome_t o;

    RUN(ans_cut_body, &o, "state", "--match", "M1");
    CHECK_RUN(&o, 2, "arbiter state: connection closed by the server in "
              "the middle of a frame (10 of its 100 bytes came)\n", "");
    RUN(ans_cut_header, &o, "events", "--match", "M1");
    CHECK_RUN(&o, 2, "arbiter events: connection closed by the server in "
              "the middle of a frame (3 of its 4 header bytes came)\n", "");
    RUN(ans_too_big, &o, "state", "--match", "M1");
    CHECK_RUN(&o, 2, "arbiter state: bad frame from server: 83886080 bytes "
              "declared, over the limit of 67108864\n", "");
    RUN(ans_zero, &o, "move", "--match", "M1", "place", "alice", "2S");
    CHECK_RUN(&o, 2, "arbiter move: bad frame from server: a frame "
              "declared empty\n", "");
    /* Not the arbiter protocol at all: its first 4 bytes taken for a
     * length, never waited for. */
    RUN(ans_http, &o, "stats");
    CHECK_RUN(&o, 2, "arbiter stats: bad frame from server: 1213486160 "
              "bytes declared, over the limit of 67108864\n", "");
    RUN(ans_c1, &o, "state", "--match", "M1");
    CHECK_RUN(&o, 2, "arbiter state: bad answer from server: reserved byte "
              "0xc1 at offset 0\n", "");
    RUN(ans_trunc, &o, "stats");
    CHECK_RUN(&o, 2, "arbiter stats: bad answer from server: truncated: "
              "1 more objects expected at offset 3 (end of input)\n", "");
    RUN(ans_close, &o, "open", "--match", "M1", "--game", "yahchain",
        "--players", "a,b");
    CHECK_RUN(&o, 2, "arbiter open: connection closed by the server\n", "");
    {
        const char *const a[] = { "stats", NULL };

        run_with("2", ans_auth_cut, 1, &o, a);
        CHECK_RUN(&o, 2, "arbiter stats: authentication: connection "
                  "closed by the server in the middle of a frame (6 of "
                  "its 10 bytes came)\n", "");
    }
}

/* Silence: the command gives up after $ARBITER_TIMEOUT, exit 2, never
 * taking another request's answer for its own. */
static void
test_silence(void)
{
    const char *const st[] = { "state", "--match", "M1", NULL };
    const char *const mv[] = { "move", "--match", "M1", "place", "alice",
                               "2S", NULL };
    outcome_t         o;

    run_with("1", ans_other_id, 0, &o, st);
    CHECK_RUN(&o, 2, "arbiter state: the server did not answer within "
              "1.000 s\n", "");
    run_with("1", ans_silent, 0, &o, mv);
    CHECK_RUN(&o, 2, "arbiter move: the server did not answer within "
              "1.000 s\n", "");
    run_with("1", ans_silent, 1, &o, mv);
    CHECK_RUN(&o, 2, "arbiter move: authentication: the server did not "
              "answer within 1.000 s\n", "");
}

/* ---- acks ------------------------------------------------------------ */

static int ack_case;

static int
ans_ack(int n, uint64_t id, const char *op, const msgpack_object *req,
        arb_buf_t *out)
{
    arb_buf_t      b = ARB_BUF_INIT;
    msgpack_packer pk;
    unsigned char  h[33];

    (void)n, (void)op, (void)req;
    memset(h, 0x5a, sizeof(h));
    arb_mp_packer_init(&pk, &b);
    switch (ack_case) {
    case 0:                             /* whole, a duplicate */
        ok_head(&pk, id, 3);
        arb_mp_pack_kv_uint(&pk, "seq", 7);
        arb_mp_pack_kv_bin(&pk, "hash", h, 32);
        arb_mp_pack_kv_bool(&pk, "dup", 1);
        break;
    case 1:                             /* no hash */
        ok_head(&pk, id, 1);
        arb_mp_pack_kv_uint(&pk, "seq", 7);
        break;
    case 2:                             /* no seq */
        ok_head(&pk, id, 1);
        arb_mp_pack_kv_bin(&pk, "hash", h, 32);
        break;
    case 3:                             /* a hash of 33 bytes */
        ok_head(&pk, id, 2);
        arb_mp_pack_kv_uint(&pk, "seq", 7);
        arb_mp_pack_kv_bin(&pk, "hash", h, 33);
        break;
    case 4:                             /* a seq that is a string */
        ok_head(&pk, id, 2);
        arb_mp_pack_kv_str(&pk, "seq", "7");
        arb_mp_pack_kv_bin(&pk, "hash", h, 32);
        break;
    case 6:                             /* dup false: no duplicate */
        ok_head(&pk, id, 3);
        arb_mp_pack_kv_uint(&pk, "seq", 7);
        arb_mp_pack_kv_bin(&pk, "hash", h, 32);
        arb_mp_pack_kv_bool(&pk, "dup", 0);
        break;
    default:                            /* a hash that is a string */
        ok_head(&pk, id, 2);
        arb_mp_pack_kv_uint(&pk, "seq", 7);
        arb_mp_pack_kv_str(&pk, "hash", "5a5a");
        break;
    }
    put_frame(out, &b);
    arb_buf_free(&b);
    return GO_ON;
}

/* judge's verdict: JSON, or not */
static int
ans_verdict(int n, uint64_t id, const char *op, const msgpack_object *req,
            arb_buf_t *out)
{
    arb_buf_t      b = ARB_BUF_INIT;
    msgpack_packer pk;

    (void)n, (void)op, (void)req;
    arb_mp_packer_init(&pk, &b);
    ok_head(&pk, id, 1);
    arb_mp_pack_kv_str(&pk, "json", ack_case == 0
                       ? "{\"legal\":false,\"rule\":\"r\"}"
                       : "{\"legal\":tr");
    put_frame(out, &b);
    arb_buf_free(&b);
    return GO_ON;
}

/* A whole ack, but of id 0: no answer to this request. */
static int
ans_ack_id0(int n, uint64_t id, const char *op, const msgpack_object *req,
            arb_buf_t *out)
{
    (void)id;
    return ans_ack(n, 0, op, req, out);
}

static void
test_acks(void)
{
    static const char hex[] =
        "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a";
    char      want[128];
    outcome_t o;

    ack_case = 0;
    RUN(ans_ack, &o, "move", "--match", "M1", "place", "alice", "2S");
    snprintf(want, sizeof(want), "seq 7 hash %s (duplicate)\n", hex);
    CHECK_RUN(&o, 0, "", want);
    RUN(ans_ack, &o, "open", "--match", "M1", "--game", "yahchain",
        "--players", "a,b");
    snprintf(want, sizeof(want), "opened M1 seq 7 hash %s (duplicate)\n",
             hex);
    CHECK_RUN(&o, 0, "", want);
    ack_case = 6;
    RUN(ans_ack, &o, "close", "--match", "M1");
    snprintf(want, sizeof(want), "seq 7 hash %s\n", hex);
    CHECK_RUN(&o, 0, "", want);
    ack_case = 0;
    RUN(ans_ack_id0, &o, "move", "--match", "M1", "place", "alice", "2S");
    CHECK_RUN(&o, 2, "arbiter move: bad answer from server: a success "
              "without the request's id\n", "");
    RUN(ans_verdict, &o, "move", "--judge", "--match", "M1", "place",
        "alice", "2S");
    CHECK_RUN(&o, 1, "", "{\"legal\":false,\"rule\":\"r\"}\n");
    /* A verdict cut short is not printed (until now it was, then the
     * error said). */
    ack_case = 1;
    RUN(ans_verdict, &o, "move", "--judge", "--match", "M1", "place",
        "alice", "2S");
    CHECK_RUN(&o, 2, "arbiter move: the verdict is not JSON\n", "");
    for (ack_case = 1; ack_case <= 5; ack_case++) {
        RUN(ans_ack, &o, "move", "--match", "M1", "place", "alice", "2S");
        CHECK_RUN(&o, 2, "arbiter move: the server's answer has no seq and "
                  "hash\n", "");
        RUN(ans_ack, &o, "open", "--match", "M1", "--game", "yahchain",
            "--players", "a,b");
        CHECK_RUN(&o, 2, "arbiter open: the server's answer has no seq and "
                  "hash\n", "");
        RUN(ans_ack, &o, "note", "--match", "M1", "hello");
        CHECK_RUN(&o, 2, "arbiter note: the server's answer has no seq and "
                  "hash\n", "");
    }
}

/* ---- events ---------------------------------------------------------- */

static int ev_case;

/* Page 0 holds note 0 (and `next` 1, unless the case says otherwise);
 * page 1 is the case's. */
static int
ans_events(int n, uint64_t id, const char *op, const msgpack_object *req,
           arb_buf_t *out)
{
    arb_buf_t      b = ARB_BUF_INIT, ev = ARB_BUF_INIT;
    msgpack_packer pk;
    unsigned char  h[32];

    (void)op, (void)req;
    memset(h, 0xab, sizeof(h));
    arb_mp_packer_init(&pk, &b);
    if (n == 0) {
        ok_head(&pk, id, 3);
        arb_mp_pack_kv_str(&pk, "match", "M1");
        msgpack_pack_str_with_body(&pk, "events", 6);
        msgpack_pack_array(&pk, 1);
        pack_item(&pk, 0);
        if (ev_case == 0)
            arb_mp_pack_kv_uint(&pk, "next", 0);   /* does not advance */
        else if (ev_case == 1)
            arb_mp_pack_kv_str(&pk, "next", "1");  /* no number */
        else
            arb_mp_pack_kv_uint(&pk, "next", 1);
        put_frame(out, &b);
        arb_buf_free(&b);
        return ev_case == 9 ? CLOSE : GO_ON;
    }
    switch (ev_case) {
    case 2:                             /* no events */
        ok_head(&pk, id, 1);
        arb_mp_pack_kv_str(&pk, "match", "M1");
        break;
    case 3:                             /* events that is a map */
        ok_head(&pk, id, 1);
        msgpack_pack_str_with_body(&pk, "events", 6);
        msgpack_pack_map(&pk, 0);
        break;
    case 4:                             /* an item that is no map */
        ok_head(&pk, id, 1);
        msgpack_pack_str_with_body(&pk, "events", 6);
        msgpack_pack_array(&pk, 1);
        msgpack_pack_uint8(&pk, 1);
        break;
    case 5:                             /* an item without event bytes */
        ok_head(&pk, id, 1);
        msgpack_pack_str_with_body(&pk, "events", 6);
        msgpack_pack_array(&pk, 1);
        msgpack_pack_map(&pk, 1);
        arb_mp_pack_kv_uint(&pk, "seq", 1);
        break;
    case 6:                             /* a hash of 5 bytes */
        ok_head(&pk, id, 1);
        msgpack_pack_str_with_body(&pk, "events", 6);
        msgpack_pack_array(&pk, 1);
        msgpack_pack_map(&pk, 3);
        arb_mp_pack_kv_uint(&pk, "seq", 1);
        arb_mp_pack_kv_bin(&pk, "hash", h, 5);
        note_bytes(&ev, 1);
        arb_mp_pack_kv_bin(&pk, "event", ev.data, ev.len);
        break;
    case 7:                             /* event bytes that decode not */
        ok_head(&pk, id, 1);
        msgpack_pack_str_with_body(&pk, "events", 6);
        msgpack_pack_array(&pk, 1);
        msgpack_pack_map(&pk, 2);
        arb_mp_pack_kv_uint(&pk, "seq", 1);
        arb_mp_pack_kv_bin(&pk, "event", "\x81\xa1v\x02", 4);
        break;
    case 10:                            /* a time of no integer */
        ok_head(&pk, id, 1);
        msgpack_pack_str_with_body(&pk, "events", 6);
        msgpack_pack_array(&pk, 1);
        msgpack_pack_map(&pk, 3);
        arb_mp_pack_kv_uint(&pk, "seq", 1);
        arb_mp_pack_kv_str(&pk, "time", "noon");
        note_bytes(&ev, 1);
        arb_mp_pack_kv_bin(&pk, "event", ev.data, ev.len);
        break;
    case 11:                            /* seq 0 again, asked from 1 */
    case 12:                            /* seqs 2, 1 */
    case 13:                            /* seq 1 past --to 0 */
        ok_head(&pk, id, 2);
        msgpack_pack_str_with_body(&pk, "events", 6);
        msgpack_pack_array(&pk, ev_case == 12 ? 2 : 1);
        pack_item(&pk, ev_case == 11 ? 0 : ev_case == 12 ? 2 : 1);
        if (ev_case == 12)
            pack_item(&pk, 1);
        msgpack_pack_str_with_body(&pk, "next", 4);
        msgpack_pack_nil(&pk);
        break;
    default:                            /* the last page: note 1 */
        ok_head(&pk, id, 2);
        msgpack_pack_str_with_body(&pk, "events", 6);
        msgpack_pack_array(&pk, 1);
        pack_item(&pk, 1);
        msgpack_pack_str_with_body(&pk, "next", 4);
        msgpack_pack_nil(&pk);
        break;
    }
    put_frame(out, &b);
    arb_buf_free(&b);
    arb_buf_free(&ev);
    return GO_ON;
}

/* `state` answers a report of seq 2; `events` then sends the open and
 * note 1 alone, and its last page. */
static int
ans_state_short(int n, uint64_t id, const char *op,
                const msgpack_object *req, arb_buf_t *out)
{
    arb_buf_t      b = ARB_BUF_INIT, ev = ARB_BUF_INIT;
    msgpack_packer pk;
    arb_event_t    open;
    arb_setup_t    st;
    unsigned char  h[32];

    (void)n, (void)req;
    arb_mp_packer_init(&pk, &b);
    if (strcmp(op, "state") == 0) {
        ok_head(&pk, id, 1);
        arb_mp_pack_kv_str(&pk, "json", "{\"seq\":2,\"digest\":null}");
        put_frame(out, &b);
        arb_buf_free(&b);
        return GO_ON;
    }
    memset(&open, 0, sizeof(open));
    memset(&st, 0, sizeof(st));
    memset(h, 0xab, sizeof(h));
    st.game = "yahchain";
    st.match_id = "M1";
    open.kind = ARB_EV_OPEN;
    open.time_ms = 1700000000000;
    open.actor = "arbiter";
    open.setup = &st;
    CHECK_INT(arb_setup_add_player(&st, "ann", -1), 0);
    CHECK_INT(arb_setup_add_player(&st, "bob", -1), 0);
    CHECK_INT(arb_event_encode(&ev, &open), 0);
    st.game = NULL;
    st.match_id = NULL;
    arb_setup_clear(&st);
    ok_head(&pk, id, 2);
    msgpack_pack_str_with_body(&pk, "events", 6);
    msgpack_pack_array(&pk, 2);
    msgpack_pack_map(&pk, 4);
    arb_mp_pack_kv_uint(&pk, "seq", 0);
    arb_mp_pack_kv_int(&pk, "time", 1700000000000);
    arb_mp_pack_kv_bin(&pk, "hash", h, sizeof(h));
    arb_mp_pack_kv_bin(&pk, "event", ev.data, ev.len);
    pack_item(&pk, 1);
    msgpack_pack_str_with_body(&pk, "next", 4);
    msgpack_pack_nil(&pk);
    put_frame(out, &b);
    arb_buf_free(&b);
    arb_buf_free(&ev);
    return GO_ON;
}

/* A server whose events stop short of its own state's seq: no state is
 * printed from the shorter history (no test failed when that check was
 * dropped). */
static void
test_state_short(void)
{
    outcome_t o;

    RUN(ans_state_short, &o, "state", "--match", "M1");
    CHECK_RUN(&o, 2, "arbiter state: match M1: the server sent fewer "
              "events than its state\n", "");
}

#define LINE0 "0 2023-11-14T22:13:20.000Z scorer note n\n"
#define LINE1 "1 2023-11-14T22:13:20.000Z scorer note n\n"
#define JSONL(s) "{\"seq\":" s ",\"time\":\"2023-11-14T22:13:20.000Z\"," \
    "\"time_ms\":1700000000000,\"actor\":\"scorer\",\"kind\":\"note\"," \
    "\"line\":\"note n\",\"hash\":\"abababababababababababababababab" \
    "abababababababababababababababab\"}\n"
#define JSON0 JSONL("0")
#define JSON1 JSONL("1")

static void
test_events(void)
{
    outcome_t o;

    ev_case = 8;
    RUN(ans_events, &o, "events", "--match", "M1");
    CHECK_RUN(&o, 0, "", LINE0 LINE1);
    RUN(ans_events, &o, "events", "--match", "M1", "--json");
    CHECK_RUN(&o, 0, "", JSON0 JSON1);
    /* a refusal is the server's: 1, nothing listed */
    RUN(ans_new_code, &o, "events", "--match", "M1");
    CHECK_RUN(&o, 1, "arbiter events: overbooked: come back on Tuesday\n",
              "");
    ev_case = 0;
    RUN(ans_events, &o, "events", "--match", "M1");
    CHECK_RUN(&o, 2, "arbiter events: the server's next page (0) does not "
              "advance past 0\n", LINE0);
    /* A `next` of no number is no last page: until now the listing ended
     * there, exit 0, as if the match had no more events. */
    ev_case = 1;
    RUN(ans_events, &o, "events", "--match", "M1");
    CHECK_RUN(&o, 2, "arbiter events: bad answer from server: next: "
              "expected a seq or nil, got str\n", LINE0);
    ev_case = 2;
    RUN(ans_events, &o, "events", "--match", "M1");
    CHECK_RUN(&o, 2, "arbiter events: the server's answer has no events\n",
              LINE0);
    ev_case = 3;
    RUN(ans_events, &o, "events", "--match", "M1");
    CHECK_RUN(&o, 2, "arbiter events: the server's answer has no events\n",
              LINE0);
    ev_case = 4;
    RUN(ans_events, &o, "events", "--match", "M1");
    CHECK_RUN(&o, 2, "arbiter events: match M1: an event without seq or "
              "event bytes\n", LINE0);
    ev_case = 5;
    RUN(ans_events, &o, "events", "--match", "M1", "--json");
    CHECK_INT(o.rc, 2);
    CHECK_STR(o.err, "arbiter events: match M1: an event without seq or "
              "event bytes\n");
    ev_case = 6;
    RUN(ans_events, &o, "events", "--match", "M1");
    CHECK_RUN(&o, 2, "arbiter events: match M1: seq 1: a hash of 5 "
              "bytes\n", LINE0);
    ev_case = 7;
    RUN(ans_events, &o, "events", "--match", "M1");
    CHECK_RUN(&o, 2, "arbiter events: match M1: seq 1: event.v: "
              "unsupported version 2\n", LINE0);
    /* An item without its time (it was printed as of 1970), a page that
     * goes back, seqs out of order, one past the listing's end: each is
     * a bad answer (they were printed as the match's events). */
    ev_case = 10;
    RUN(ans_events, &o, "events", "--match", "M1");
    CHECK_RUN(&o, 2, "arbiter events: match M1: seq 1: no time, or one "
              "that is no integer\n", LINE0);
    ev_case = 11;
    RUN(ans_events, &o, "events", "--match", "M1");
    CHECK_RUN(&o, 2, "arbiter events: bad answer from server: seq 0 in a "
              "page asked from seq 1\n", LINE0);
    ev_case = 12;
    RUN(ans_events, &o, "events", "--match", "M1");
    CHECK_RUN(&o, 2, "arbiter events: bad answer from server: seq 1 after "
              "seq 2\n", LINE0 "2 2023-11-14T22:13:20.000Z scorer note n\n");
    ev_case = 13;
    RUN(ans_events, &o, "events", "--match", "M1", "--to", "0");
    CHECK_RUN(&o, 2, "arbiter events: bad answer from server: seq 1 in a "
              "listing asked up to seq 0\n", LINE0);
    /* the first page, then the connection closed: before the next
     * request is sent or after */
    ev_case = 9;
    RUN(ans_events, &o, "events", "--match", "M1");
    CHECK_INT(o.rc, 2);
    CHECK(strncmp(o.err, "arbiter events: connection closed by the server",
                  47) == 0);
    CHECK_STR(o.out, LINE0);
}

/* ---- requests -------------------------------------------------------- */

/* The last request as msgpack-c prints it, the id left out. */
static char req_seen[2048];

/* Notes the request, then acks it as a new event (no duplicate). */
static int
ans_req(int n, uint64_t id, const char *op, const msgpack_object *req,
        arb_buf_t *out)
{
    msgpack_object  o = *req;
    msgpack_object_kv kv[32];
    uint32_t        i, k = 0;

    for (i = 0; i < req->via.map.size && k < 32; i++) {
        const msgpack_object *key = &req->via.map.ptr[i].key;

        if (key->type == MSGPACK_OBJECT_STR && key->via.str.size == 2
            && memcmp(key->via.str.ptr, "id", 2) == 0)
            continue;
        kv[k++] = req->via.map.ptr[i];
    }
    o.via.map.ptr = kv;
    o.via.map.size = k;
    msgpack_object_print_buffer(req_seen, sizeof(req_seen), o);
    ack_case = 6;
    ans_ack(n, id, op, req, out);
    return CLOSE;
}

#define CHECK_REQ(want_) CHECK_STR(req_seen, want_)

/* What each command sends is what was typed: ids, the expected seq, the
 * client's event id, options, the deal, the move's words. */
static void
test_requests(void)
{
    outcome_t o;

    RUN(ans_req, &o, "open", "--match", "M1", "--game", "chains",
        "--players", "a:X,b:Y", "--teams", "X,Y", "--option", "mode=3",
        "--option=owners=a=b", "--cid", "c-1",
        "--deal", "order:2S, 3S,,4S ");
    CHECK_INT(o.rc, 0);
    CHECK_REQ("{\"v\"=>1, \"op\"=>\"open\", \"match\"=>\"M1\", "
              "\"game\"=>\"chains\", \"players\"=>[\"a:X\", \"b:Y\"], "
              "\"teams\"=>[\"X\", \"Y\"], \"options\"=>{\"mode\"=>\"3\", "
              "\"owners\"=>\"a=b\"}, \"cid\"=>\"c-1\", \"deal\"=>"
              "{\"kind\"=>\"order\", \"cards\"=>[\"2S\", \"3S\", \"4S\"]}}");
    RUN(ans_req, &o, "open", "--match", "M1", "--game", "yahchain",
        "--players", "a,,b", "--deal", "seed:0123456789abcdef0123456789"
        "abcdef");
    CHECK_INT(o.rc, 0);
    CHECK_STR(o.err, "");
    CHECK_REQ("{\"v\"=>1, \"op\"=>\"open\", \"match\"=>\"M1\", "
              "\"game\"=>\"yahchain\", \"players\"=>[\"a\", \"\", \"b\"], "
              "\"deal\"=>{\"kind\"=>\"seed\", \"seed\"=>"
              "\"0123456789abcdef0123456789abcdef\"}}");
    RUN(ans_req, &o, "move", "--match", "M1", "--expect", "0", "--cid",
        "sheet-3", "place", "alice", "4S", "@2");
    CHECK_RUN(&o, 0, "", "seq 7 hash 5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a"
              "5a5a5a5a5a5a5a5a5a5a5a5a5a5a\n");
    CHECK_REQ("{\"v\"=>1, \"op\"=>\"append\", \"match\"=>\"M1\", "
              "\"kind\"=>\"move\", \"cid\"=>\"sheet-3\", \"expect\"=>0, "
              "\"verb\"=>\"place\", \"player\"=>\"alice\", "
              "\"args\"=>[\"4S\", \"@2\"]}");
    RUN(ans_req, &o, "move", "--match=M1", "--", "pass", "-bob");
    CHECK_INT(o.rc, 0);
    CHECK_REQ("{\"v\"=>1, \"op\"=>\"append\", \"match\"=>\"M1\", "
              "\"kind\"=>\"move\", \"verb\"=>\"pass\", \"player\"=>\"-bob\"}");
    /* A lone - is a word, and a -- after the first is one too. */
    RUN(ans_req, &o, "move", "--match", "M1", "place", "bob", "-", "--",
        "--", "-x");
    CHECK_INT(o.rc, 0);
    CHECK_REQ("{\"v\"=>1, \"op\"=>\"append\", \"match\"=>\"M1\", "
              "\"kind\"=>\"move\", \"verb\"=>\"place\", "
              "\"player\"=>\"bob\", \"args\"=>[\"-\", \"--\", \"-x\"]}");
    /* A short seed is said, a long one is not (32 bytes and more). */
    RUN(ans_req, &o, "open", "--match", "M1", "--game", "yahchain",
        "--players", "a,b", "--deal", "seed:0123456789abcdef0123456789"
        "abcde");
    CHECK_INT(o.rc, 0);
    CHECK(strstr(o.err, "warning: a seed of 31 bytes may be guessed")
          != NULL);
    RUN(ans_req, &o, "move", "--judge", "--match", "M1", "place", "alice",
        "4S", "@2");
    CHECK_REQ("{\"v\"=>1, \"op\"=>\"judge\", \"match\"=>\"M1\", "
              "\"verb\"=>\"place\", \"player\"=>\"alice\", "
              "\"args\"=>[\"4S\", \"@2\"]}");
    RUN(ans_req, &o, "move", "--judge", "--match", "M1", "pass", "bob");
    CHECK_REQ("{\"v\"=>1, \"op\"=>\"judge\", \"match\"=>\"M1\", "
              "\"verb\"=>\"pass\", \"player\"=>\"bob\"}");
    RUN(ans_req, &o, "close", "--match", "M1", "--reason", "time",
        "--expect", "36", "--cid", "end");
    CHECK_INT(o.rc, 0);
    CHECK_REQ("{\"v\"=>1, \"op\"=>\"append\", \"match\"=>\"M1\", "
              "\"kind\"=>\"close\", \"cid\"=>\"end\", \"expect\"=>36, "
              "\"text\"=>\"time\"}");
    RUN(ans_req, &o, "state", "--match", "M1", "--at", "0", "--json");
    CHECK_REQ("{\"v\"=>1, \"op\"=>\"state\", \"match\"=>\"M1\", "
              "\"at\"=>0}");
    RUN(ans_req, &o, "events", "--match", "M1", "--from", "3", "--to", "3",
        "--kind", "open", "--kind", "note", "--since", "1");
    CHECK_REQ("{\"v\"=>1, \"op\"=>\"events\", \"match\"=>\"M1\", "
              "\"from\"=>3, \"limit\"=>500, \"to\"=>3, "
              "\"kinds\"=>[\"open\", \"note\"], \"since\"=>1}");
    RUN(ans_req, &o, "watch", "--match", "M1", "--from", "0");
    CHECK_INT(o.rc, 2);
    CHECK_REQ("{\"v\"=>1, \"op\"=>\"subscribe\", \"match\"=>\"M1\", "
              "\"from\"=>0}");
    RUN(ans_req, &o, "watch", "--from", "12");
    CHECK_REQ("{\"v\"=>1, \"op\"=>\"subscribe\", \"from\"=>12}");
}

/* ---- watch ----------------------------------------------------------- */

static int watch_case;

/* The subscription's answer, then pushes: one of no known kind, a push
 * that is no string (bin "error"), an answer to nothing, one event, then
 * the case's last frame. */
static int
ans_watch(int n, uint64_t id, const char *op, const msgpack_object *req,
          arb_buf_t *out)
{
    arb_buf_t      b = ARB_BUF_INIT, ev = ARB_BUF_INIT;
    msgpack_packer pk;

    (void)n, (void)op, (void)req;
    arb_mp_packer_init(&pk, &b);
    ok_head(&pk, id, 2);
    arb_mp_pack_kv_uint(&pk, "sub", 1);
    arb_mp_pack_kv_uint(&pk, "from", 0);
    put_frame(out, &b);
    b.len = 0;
    msgpack_pack_map(&pk, 3);
    arb_mp_pack_kv_uint(&pk, "v", 1);
    arb_mp_pack_kv_str(&pk, "push", "fireworks");
    arb_mp_pack_kv_uint(&pk, "sub", 1);
    put_frame(out, &b);
    b.len = 0;
    msgpack_pack_map(&pk, 2);
    arb_mp_pack_kv_uint(&pk, "v", 1);
    arb_mp_pack_kv_bin(&pk, "push", "error", 5);
    put_frame(out, &b);
    put_ok(out, 99);
    b.len = 0;
    note_bytes(&ev, 0);
    msgpack_pack_map(&pk, 7);
    arb_mp_pack_kv_uint(&pk, "v", 1);
    arb_mp_pack_kv_str(&pk, "push", "event");
    arb_mp_pack_kv_uint(&pk, "sub", 1);
    arb_mp_pack_kv_str(&pk, "match", "M1");
    arb_mp_pack_kv_uint(&pk, "seq", 0);
    arb_mp_pack_kv_int(&pk, "time", 1700000000000);
    arb_mp_pack_kv_bin(&pk, "event", ev.data, ev.len);
    put_frame(out, &b);
    b.len = 0;
    switch (watch_case) {
    case 0:                             /* an error push */
        msgpack_pack_map(&pk, 4);
        arb_mp_pack_kv_uint(&pk, "v", 1);
        arb_mp_pack_kv_str(&pk, "push", "error");
        arb_mp_pack_kv_uint(&pk, "sub", 1);
        msgpack_pack_str_with_body(&pk, "error", 5);
        msgpack_pack_map(&pk, 2);
        arb_mp_pack_kv_str(&pk, "code", "slow");
        arb_mp_pack_kv_str(&pk, "message", "too slow");
        put_frame(out, &b);
        break;
    case 1:                             /* an event push without event */
        msgpack_pack_map(&pk, 4);
        arb_mp_pack_kv_uint(&pk, "v", 1);
        arb_mp_pack_kv_str(&pk, "push", "event");
        arb_mp_pack_kv_uint(&pk, "sub", 1);
        arb_mp_pack_kv_uint(&pk, "seq", 1);
        put_frame(out, &b);
        break;
    case 2:                             /* an error push without error */
        msgpack_pack_map(&pk, 2);
        arb_mp_pack_kv_uint(&pk, "v", 1);
        arb_mp_pack_kv_str(&pk, "push", "error");
        put_frame(out, &b);
        break;
    case 3:                             /* a frame past the limit */
        arb_buf_add(out, "\x7f\0\0\0", 4);
        break;
    case 4:                             /* an array */
        arb_buf_add(out, "\0\0\0\x01\x90", 5);
        break;
    case 7:                             /* an error push with escapes */
        msgpack_pack_map(&pk, 3);
        arb_mp_pack_kv_uint(&pk, "v", 1);
        arb_mp_pack_kv_str(&pk, "push", "error");
        msgpack_pack_str_with_body(&pk, "error", 5);
        msgpack_pack_map(&pk, 2);
        arb_mp_pack_kv_str(&pk, "code", "revoked\x1b]0;x\a");
        arb_mp_pack_kv_str(&pk, "message", "bye\r");
        put_frame(out, &b);
        break;
    case 6:                             /* an error push, code "" */
        msgpack_pack_map(&pk, 3);
        arb_mp_pack_kv_uint(&pk, "v", 1);
        arb_mp_pack_kv_str(&pk, "push", "error");
        msgpack_pack_str_with_body(&pk, "error", 5);
        msgpack_pack_map(&pk, 2);
        arb_mp_pack_kv_str(&pk, "code", "");
        arb_mp_pack_kv_str(&pk, "message", "x");
        put_frame(out, &b);
        break;
    default:                            /* half a frame */
        arb_buf_add(out, "\0\0\0\x09\x81", 5);
        break;
    }
    arb_buf_free(&b);
    arb_buf_free(&ev);
    return watch_case == 3 || watch_case == 4 ? HOLD : CLOSE;
}

static void
test_watch(void)
{
    outcome_t o;

    watch_case = 0;
    RUN(ans_watch, &o, "watch", "--match", "M1", "--from", "0");
    CHECK_RUN(&o, 1, "arbiter watch: slow: too slow\n", LINE0);
    watch_case = 1;
    RUN(ans_watch, &o, "watch", "--match", "M1");
    CHECK_RUN(&o, 2, "arbiter watch: bad push from server: an event "
              "without seq or event bytes\n", LINE0);
    watch_case = 2;
    RUN(ans_watch, &o, "watch");
    CHECK_RUN(&o, 2, "arbiter watch: bad push from server: an error push "
              "without a code\n", "M1 " LINE0);
    watch_case = 3;
    RUN(ans_watch, &o, "watch", "--match", "M1");
    CHECK_RUN(&o, 2, "arbiter watch: bad frame from server: 2130706432 "
              "bytes declared, over the limit of 67108864\n", LINE0);
    watch_case = 4;
    RUN(ans_watch, &o, "watch", "--match", "M1");
    CHECK_RUN(&o, 2, "arbiter watch: bad answer from server: message: "
              "expected map, got array\n", LINE0);
    watch_case = 6;
    RUN(ans_watch, &o, "watch", "--match", "M1");
    CHECK_RUN(&o, 2, "arbiter watch: bad push from server: an error push "
              "without a code\n", LINE0);
    watch_case = 7;
    RUN(ans_watch, &o, "watch", "--match", "M1");
    CHECK_RUN(&o, 1, "arbiter watch: revoked\\x1b]0;x\\x07: bye\\x0d\n",
              LINE0);
    watch_case = 8;
    RUN(ans_watch, &o, "watch", "--match", "M1");
    CHECK_RUN(&o, 2, "arbiter watch: connection closed by the server in "
              "the middle of a frame (1 of its 9 bytes came)\n", LINE0);
    /* Interrupted while the server says nothing: 0, nothing said,
     * whether it waits for the subscription's answer or, connecting,
     * for the answer to auth (until 2026-12-08 its handler came after
     * the connection: killed by the signal). */
    interrupt_held = 1;
    RUN(ans_silent, &o, "watch", "--match", "M1");
    CHECK_RUN(&o, 0, "", "");
    {
        const char *const a[] = { "watch", NULL };

        run_with("20", ans_silent, 1, &o, a);
        CHECK_RUN(&o, 0, "", "");
    }
    interrupt_held = 0;
}

int
main(void)
{
    if (script_begin("/tmp/arb-clinet.XXXXXX") != 0)
        return 1;
    test_answers();
    test_frames();
    test_silence();
    test_acks();
    test_events();
    test_state_short();
    test_watch();
    test_requests();
    script_end();
    return TEST_END();
}
