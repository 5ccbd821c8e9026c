/*
 * daemon_harness.h - the real arbiterd on a temp data dir and a Unix socket,
 * for tests that speak the protocol to it.
 *
 * Include once per test program (the functions are static).  Call
 * harness_init() with the config lines the test needs beyond the defaults,
 * then harness_start(); harness_done() removes the directory when the test
 * passed and keeps the daemon log otherwise.  Tokens: HARNESS_ARBITER,
 * HARNESS_SCORER (every match), HARNESS_LIMITED (scorer of match "only-A"),
 * HARNESS_READER.
 */
#ifndef ARB_TESTS_DAEMON_HARNESS_H
#define ARB_TESTS_DAEMON_HARNESS_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/codec.h"
#include "core/event.h"
#include "core/mp.h"
#include "proto/client.h"
#include "tests/log_count.h"

#define HARNESS_ARBITER "harness-arbiter-token-0123"
#define HARNESS_SCORER  "harness-scorer-token-0123"
#define HARNESS_LIMITED "harness-limited-token-0123"
#define HARNESS_READER  "harness-reader-token-0123"

static char  harness_dir[256], harness_sock[300], harness_conf[300];
static pid_t harness_pid = -1;
/* Not 0: the daemon's open-file limit, soft and hard (set in its child
 * before the exec: the test's own stays). */
static unsigned harness_nofile;

static void
harness_on_alarm(int sig)
{
    (void)sig;
    if (harness_pid > 0)
        kill(harness_pid, SIGKILL);
    fprintf(stderr, "timed out; daemon log in %s\n", harness_dir);
    _exit(1);
}

/* Makes the directory and the config; `extra` is appended to it (may be
 * NULL).  The whole program is killed after `timeout_s` seconds.  0 or -1. */
static int
harness_init(const char *extra, unsigned timeout_s)
{
    FILE *f;
    char  tp[320];

    signal(SIGALRM, harness_on_alarm);
    alarm(timeout_s);
    if (access("bin/arbiterd", X_OK) != 0) {
        fprintf(stderr, "bin/arbiterd missing: build it first\n");
        return -1;
    }
    snprintf(harness_dir, sizeof(harness_dir), "/tmp/arbiter-test-XXXXXX");
    if (mkdtemp(harness_dir) == NULL)
        return -1;
    snprintf(harness_sock, sizeof(harness_sock), "%s/s.sock", harness_dir);
    snprintf(harness_conf, sizeof(harness_conf), "%s/arbiterd.conf",
             harness_dir);
    snprintf(tp, sizeof(tp), "%s/tokens", harness_dir);
    if ((f = fopen(tp, "w")) == NULL)
        return -1;
    fclose(f);
    if ((f = fopen(harness_conf, "w")) == NULL)
        return -1;
    fprintf(f, "data = %s/data\nlisten = unix:%s\nauth_timeout_ms = 300\n"
               "log_level = debug\ntokens_file = %s\n"
               "token = %s arbiter chief\n"
               "token = %s scorer table-1\n"
               "token = %s scorer table-2 only-A\n"
               "token = %s reader press\n%s\n", harness_dir, harness_sock, tp,
            HARNESS_ARBITER, HARNESS_SCORER, HARNESS_LIMITED, HARNESS_READER,
            extra != NULL ? extra : "");
    fclose(f);
    return 0;
}

/* Starts the daemon and returns at once, before it listens; whatever is at
 * the socket path stays. */
static void
harness_spawn(void)
{
    harness_pid = fork();
    if (harness_pid == 0) {
        char logp[320];
        snprintf(logp, sizeof(logp), "%s/daemon.log", harness_dir);
        if (freopen(logp, "a", stderr) == NULL
            || freopen("/dev/null", "w", stdout) == NULL)
            _exit(127);
        if (harness_nofile != 0) {
            struct rlimit rl = { harness_nofile, harness_nofile };
            if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
                _exit(127);
        }
        execl("bin/arbiterd", "arbiterd", "--config", harness_conf,
              (char *)NULL);
        _exit(127);
    }
}

/* Starts the daemon and waits for its socket file, which appears only once
 * the daemon accepts connections. */
static void
harness_start(void)
{
    struct stat st;
    int         i;

    unlink(harness_sock);
    harness_spawn();
    for (i = 0; i < 500; i++) {
        if (stat(harness_sock, &st) == 0)
            return;
        usleep(10000);
    }
    fprintf(stderr, "daemon did not start\n");
}

/* Sends sig (0: none, the daemon is already stopping) and waits; returns
 * the wait status. */
static int
harness_stop(int sig)
{
    int status = 0;

    if (harness_pid > 0) {
        if (sig != 0)
            kill(harness_pid, sig);
        waitpid(harness_pid, &status, 0);
        harness_pid = -1;
    }
    return status;
}

/* Runs `bin/arbiter ARGS` against the daemon with the arbiter's token,
 * output discarded; its exit status, or -1.  Inline: unused by most. */
static inline int
harness_cli(const char *args)
{
    char cmd[1024];
    int  st;

    snprintf(cmd, sizeof(cmd), "bin/arbiter %s --server unix:%s --token %s "
             "> /dev/null", args, harness_sock, HARNESS_ARBITER);
    st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* How many lines of the daemon's log have text.  Inline: unused by
 * most. */
static inline int
harness_log_count(const char *text)
{
    return test_log_count(harness_dir, text);
}

/* Connected and, unless token is NULL, authenticated; NULL on failure.
 * Reads give up after 3 s, so a request the daemon never answers fails the
 * test instead of hanging it. */
static arb_client_t *
harness_connect(const char *token)
{
    arb_client_t *cl = NULL;
    arb_buf_t     why = ARB_BUF_INIT;

    struct timeval tv = { 3, 0 };

    if (arb_client_connect(&cl, harness_sock, &why) == 0)
        setsockopt(arb_client_fd(cl), SOL_SOCKET, SO_RCVTIMEO, &tv,
                   sizeof(tv));
    if (cl == NULL
        || (token != NULL && arb_client_auth(cl, token, &why) != 0)) {
        fprintf(stderr, "connect: %s\n", arb_buf_cstr(&why));
        arb_client_close(cl);
        cl = NULL;
    }
    arb_buf_free(&why);
    return cl;
}

/* Writes one frame holding the msgpack bytes b (any content: the test
 * builds the map itself, so it can send what a client must not).  Inline:
 * unused by most. */
static inline int
harness_send_raw(arb_client_t *cl, const arb_buf_t *b)
{
    unsigned char hdr[4];
    size_t        off = 0;
    ssize_t       w;
    int           fd = arb_client_fd(cl);

    hdr[0] = (unsigned char)(b->len >> 24);
    hdr[1] = (unsigned char)(b->len >> 16);
    hdr[2] = (unsigned char)(b->len >> 8);
    hdr[3] = (unsigned char)b->len;
    if (write(fd, hdr, 4) != 4)
        return -1;
    while (off < b->len) {
        w = write(fd, b->data + off, b->len - off);
        if (w <= 0)
            return -1;
        off += (size_t)w;
    }
    return 0;
}

/* The next response into *res: 0 when ok, else -1 with its error code
 * (or "io") in code.  Inline: unused by most. */
static inline int
harness_answer(arb_client_t *cl, msgpack_unpacked *res, char *code,
               size_t cap)
{
    arb_buf_t why = ARB_BUF_INIT;
    int       rc;

    code[0] = '\0';
    rc = arb_client_read(cl, res, &why);
    arb_buf_free(&why);
    if (rc != 0)
        return snprintf(code, cap, "io"), -1;
    if (arb_client_get(res, "ok") != NULL
        && arb_client_get(res, "ok")->via.boolean)
        return 0;
    arb_client_error_code(res, code, cap);
    return -1;
}

/* Sends the request begun on cl and reads its answer, as
 * harness_answer.  Inline: unused by most. */
static inline int
harness_call(arb_client_t *cl, msgpack_unpacked *res, char *code,
             size_t cap)
{
    arb_buf_t why = ARB_BUF_INIT;

    arb_client_send(cl, &why);
    arb_buf_free(&why);
    return harness_answer(cl, res, code, cap);
}

/* The `stats` figure `key` (an unsigned integer), or UINT64_MAX when it
 * is missing or the call fails; res is the caller's reply buffer.
 * Inline: unused by most. */
static inline uint64_t
harness_stat(arb_client_t *cl, msgpack_unpacked *res, const char *key)
{
    msgpack_packer       *pk;
    arb_buf_t             why = ARB_BUF_INIT;
    const msgpack_object *o;
    uint64_t              n = UINT64_MAX;

    arb_client_begin(cl, &pk, "stats", 0);
    if (arb_client_call(cl, res, &why) == 0
        && (o = arb_client_get(res, key)) != NULL
        && o->type == MSGPACK_OBJECT_POSITIVE_INTEGER)
        n = o->via.u64;
    arb_buf_free(&why);
    return n;
}

/* The stored event of match at seq, decoded into ev (arb_event_clear it
 * after a 0).  Inline: unused by most. */
static inline int
harness_event(arb_client_t *cl, const char *match, uint64_t seq,
              arb_event_t *ev)
{
    msgpack_packer       *pk;
    msgpack_unpacked      res;
    arb_buf_t             why = ARB_BUF_INIT;
    const msgpack_object *items;
    const char           *bytes;
    size_t                len;
    int                   rc = -1;

    msgpack_unpacked_init(&res);
    arb_client_begin(cl, &pk, "events", 3);
    arb_mp_pack_kv_str(pk, "match", match);
    arb_mp_pack_kv_uint(pk, "from", seq);
    arb_mp_pack_kv_uint(pk, "to", seq);
    if (arb_client_call(cl, &res, &why) == 0
        && (items = arb_client_get(&res, "events")) != NULL
        && items->type == MSGPACK_OBJECT_ARRAY && items->via.array.size == 1
        && arb_mp_get_bytes(&items->via.array.ptr[0], "event", &bytes,
                            &len) == 0)
        rc = arb_event_decode(ev, bytes, len, NULL);
    msgpack_unpacked_destroy(&res);
    arb_buf_free(&why);
    return rc;
}

/* Opens match id: YAHchain mode 3, alice and bob; as harness_call.
 * Inline: unused by most. */
static inline int
harness_open_yah(arb_client_t *cl, const char *id, msgpack_unpacked *res,
                 char *code, size_t cap)
{
    msgpack_packer *pk;

    arb_client_begin(cl, &pk, "open", 4);
    arb_mp_pack_kv_str(pk, "match", id);
    arb_mp_pack_kv_str(pk, "game", "yahchain");
    arb_mp_pack_cstr(pk, "players");
    msgpack_pack_array(pk, 2);
    arb_mp_pack_cstr(pk, "alice");
    arb_mp_pack_cstr(pk, "bob");
    arb_mp_pack_cstr(pk, "options");
    msgpack_pack_map(pk, 1);
    arb_mp_pack_kv_str(pk, "mode", "3");
    return harness_call(cl, res, code, cap);
}

/* Removes the directory if everything passed; returns `failed`. */
static int
harness_done(int failed)
{
    char cmd[300];

    harness_stop(SIGTERM);
    if (failed == 0) {
        snprintf(cmd, sizeof(cmd), "rm -rf %s", harness_dir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", harness_dir);
    } else {
        fprintf(stderr, "daemon log kept in %s/daemon.log\n", harness_dir);
    }
    return failed;
}

#endif
