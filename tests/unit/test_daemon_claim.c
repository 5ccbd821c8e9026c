/*
 * test_daemon_claim.c - claims through the real daemon and the real
 * protocol: a claim spelled any valid way is stored canonical, a retry
 * with its cid in another spelling is the same request, the roles, a
 * claim the daemon cannot read, claims after the close (and nothing
 * else), the verdicts in state, and a restart that replays them.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/err.h"
#include "core/event.h"
#include "proto/client.h"
#include "core/codec.h"
#include "core/mp.h"
#include "tests/test.h"

static char  dir[256], sock[300], conf[300];
static pid_t daemon_pid = -1;

#define TOK_ARBITER "arbiter-token-claims-0123"
#define TOK_SCORER  "scorer-token-claims-0123"
#define TOK_LIMITED "limited-token-claims-0123"
#define TOK_READER  "reader-token-claims-0123"

static void
start_daemon(void)
{
    struct stat st;
    int         i;

    unlink(sock);
    daemon_pid = fork();
    if (daemon_pid == 0) {
        char logp[320];
        snprintf(logp, sizeof(logp), "%s/daemon.log", dir);
        if (freopen(logp, "a", stderr) == NULL
            || freopen("/dev/null", "w", stdout) == NULL)
            _exit(127);
        execl("bin/arbiterd", "arbiterd", "--config", conf, (char *)NULL);
        _exit(127);
    }
    /* Ready once it accepts: the socket file exists from bind(), a
     * moment before listen(). */
    for (i = 0; i < 500; i++) {
        arb_client_t *cl = NULL;
        if (stat(sock, &st) == 0 && arb_client_connect(&cl, sock, NULL) == 0) {
            arb_client_close(cl);
            return;
        }
        usleep(10000);
    }
    fprintf(stderr, "daemon did not start\n");
}

static void
stop_daemon(void)
{
    int status = 0;

    if (daemon_pid > 0) {
        kill(daemon_pid, SIGTERM);
        waitpid(daemon_pid, &status, 0);
        daemon_pid = -1;
    }
}

static arb_client_t *
connect_as(const char *token)
{
    arb_client_t *cl = NULL;
    arb_buf_t     why = ARB_BUF_INIT;

    if (arb_client_connect(&cl, sock, &why) != 0
        || arb_client_auth(cl, token, &why) != 0) {
        fprintf(stderr, "connect: %s\n", arb_buf_cstr(&why));
        arb_client_close(cl);
        cl = NULL;
    }
    arb_buf_free(&why);
    return cl;
}

static char             last_err[600];
static msgpack_unpacked res;

/* An append: kind, then NULL-terminated key/value string pairs; "args" is
 * given as one string of elements separated by '\x1f'. */
/* An append of the NULL-ended key/value list ap, sent; its answer read
 * into res when call. */
static int
append_v(arb_client_t *cl, int call, const char *match, const char *kind,
         va_list ap)
{
    msgpack_packer *pk;
    arb_buf_t       why = ARB_BUF_INIT;
    const char     *k[8], *v[8];
    size_t          n = 0, i;
    int             rc;

    while (n < 8 && (k[n] = va_arg(ap, const char *)) != NULL) {
        v[n] = va_arg(ap, const char *);
        n++;
    }
    arb_client_begin(cl, &pk, "append", 2 + n);
    arb_mp_pack_cstr(pk, "match");
    arb_mp_pack_cstr(pk, match);
    arb_mp_pack_cstr(pk, "kind");
    arb_mp_pack_cstr(pk, kind);
    for (i = 0; i < n; i++) {
        arb_mp_pack_cstr(pk, k[i]);
        if (strcmp(k[i], "args") == 0) {
            const char *p = v[i], *q;
            size_t      cnt = 1;
            for (q = p; *q; q++)
                cnt += *q == '\x1f';
            msgpack_pack_array(pk, cnt);
            for (;;) {
                q = strchr(p, '\x1f');
                if (q == NULL) {
                    arb_mp_pack_cstr(pk, p);
                    break;
                }
                msgpack_pack_str(pk, (size_t)(q - p));
                msgpack_pack_str_body(pk, p, (size_t)(q - p));
                p = q + 1;
            }
        } else {
            arb_mp_pack_cstr(pk, v[i]);
        }
    }
    rc = call ? arb_client_call(cl, &res, &why) : arb_client_send(cl, &why);
    snprintf(last_err, sizeof(last_err), "%s", rc ? arb_buf_cstr(&why) : "");
    arb_buf_free(&why);
    return rc;
}

static int
append(arb_client_t *cl, const char *match, const char *kind, ...)
{
    va_list ap;
    int     rc;

    va_start(ap, kind);
    rc = append_v(cl, 1, match, kind, ap);
    va_end(ap);
    return rc;
}

/* An append sent, its answer left to read (arb_client_read). */
static int
append_send(arb_client_t *cl, const char *match, const char *kind, ...)
{
    va_list ap;
    int     rc;

    va_start(ap, kind);
    rc = append_v(cl, 0, match, kind, ap);
    va_end(ap);
    return rc;
}

static int
simple(arb_client_t *cl, const char *op, const char *match)
{
    msgpack_packer *pk;
    arb_buf_t       why = ARB_BUF_INIT;
    int             rc;

    arb_client_begin(cl, &pk, op, match ? 1 : 0);
    if (match != NULL) {
        arb_mp_pack_cstr(pk, "match");
        arb_mp_pack_cstr(pk, match);
    }
    rc = arb_client_call(cl, &res, &why);
    snprintf(last_err, sizeof(last_err), "%s", rc ? arb_buf_cstr(&why) : "");
    arb_buf_free(&why);
    return rc;
}

/* The state JSON of a match, into a static buffer. */
static const char *
state_json(arb_client_t *cl, const char *match)
{
    static char           buf[16384];
    const msgpack_object *o;

    buf[0] = '\0';
    if (simple(cl, "state", match) != 0)
        return buf;
    o = arb_client_get(&res, "json");
    if (o != NULL && o->type == MSGPACK_OBJECT_STR)
        snprintf(buf, sizeof(buf), "%.*s", (int)o->via.str.size,
                 o->via.str.ptr);
    return buf;
}

static int
count(const char *hay, const char *needle)
{
    int n = 0;

    for (; (hay = strstr(hay, needle)) != NULL; hay++)
        n++;
    return n;
}

/* The stored event at seq, decoded. */
static int
stored(arb_client_t *cl, const char *match, uint64_t seq, arb_event_t *ev)
{
    msgpack_packer       *pk;
    arb_buf_t             why = ARB_BUF_INIT;
    const msgpack_object *items, *e, *item;
    uint32_t              i;
    int                   rc = -1;

    arb_client_begin(cl, &pk, "events", 3);
    arb_mp_pack_cstr(pk, "match");
    arb_mp_pack_cstr(pk, match);
    arb_mp_pack_cstr(pk, "from");
    msgpack_pack_uint64(pk, seq);
    arb_mp_pack_cstr(pk, "to");
    msgpack_pack_uint64(pk, seq);
    if (arb_client_call(cl, &res, &why) == 0
        && (items = arb_client_get(&res, "events")) != NULL
        && items->type == MSGPACK_OBJECT_ARRAY && items->via.array.size == 1)
        for (item = &items->via.array.ptr[0], i = 0;
             i < item->via.map.size; i++) {
            const msgpack_object_kv *kv = &item->via.map.ptr[i];
            if (kv->key.via.str.size == 5
                && memcmp(kv->key.via.str.ptr, "event", 5) == 0) {
                e = &kv->val;
                rc = arb_event_decode(ev, e->via.bin.ptr, e->via.bin.size,
                                      NULL);
            }
        }
    arb_buf_free(&why);
    return rc;
}

static const char *const good_record =
    "{\"match_id\":\"C1\",\"edition\":\"YAHchain-3e-ch34-3\",\"mode\":"
    "\"YCWS-144/3\",\"sota\":1,\"owner\":\"alice\",\"cards\":3,\"sequence\":"
    "[\"2♠\",\"3♠\",\"4♠\"],\"code\":\"BC-003\",\"face_sum\":9,\"bonus\":15,"
    "\"game_points\":24}";
static const char *const spaced_record =
    "{ \"match_id\": \"C1\", \"edition\": \"YAHchain-3e-ch34-3\", \"mode\": "
    "\"YCWS-144/3\", \"sota\": 1, \"owner\": \"alice\", \"cards\": 3,\n"
    " \"sequence\": [\"2\\u2660\", \"3♠\", \"4♠\"], \"code\": \"BC-003\", "
    "\"face_sum\": 9, \"bonus\": 15, \"game_points\": 24, \"status\": "
    "\"pending\" }";
static const char *const bad_record =
    "{\"match_id\":\"C1\",\"edition\":\"YAHchain-3e-ch34-3\",\"mode\":"
    "\"YCWS-144/3\",\"sota\":1,\"owner\":\"bob\",\"cards\":3,\"sequence\":"
    "[\"2♠\",\"3♠\",\"4♠\"],\"code\":\"BC-003\",\"face_sum\":9,\"bonus\":15,"
    "\"game_points\":24}";

/* Opens match id: YAHchain mode 3, alice and bob. */
static int
open_yahchain(arb_client_t *cl, const char *id)
{
    msgpack_packer *pk;
    arb_buf_t       why = ARB_BUF_INIT;
    int             rc;

    arb_client_begin(cl, &pk, "open", 4);
    arb_mp_pack_cstr(pk, "match");
    arb_mp_pack_cstr(pk, id);
    arb_mp_pack_cstr(pk, "game");
    arb_mp_pack_cstr(pk, "yahchain");
    arb_mp_pack_cstr(pk, "players");
    msgpack_pack_array(pk, 2);
    arb_mp_pack_cstr(pk, "alice");
    arb_mp_pack_cstr(pk, "bob");
    arb_mp_pack_cstr(pk, "options");
    msgpack_pack_map(pk, 1);
    arb_mp_pack_cstr(pk, "mode");
    arb_mp_pack_cstr(pk, "3");
    rc = arb_client_call(cl, &res, &why);
    arb_buf_free(&why);
    return rc;
}

static void
test_claims(void)
{
    arb_client_t *arb = connect_as(TOK_ARBITER);
    arb_client_t *sco = connect_as(TOK_SCORER);
    arb_client_t *lim = connect_as(TOK_LIMITED);
    arb_client_t *rdr = connect_as(TOK_READER);
    arb_event_t   ev;
    char          code[32];
    const char   *moves[] = { "alice", "2S", "bob", "3S", "alice", "4S",
                              "bob", "2H" };
    int           i;

    CHECK(arb != NULL && sco != NULL && lim != NULL && rdr != NULL);
    if (arb == NULL || sco == NULL || lim == NULL || rdr == NULL)
        goto done;
    CHECK_INT(open_yahchain(arb, "C1"), 0);
    for (i = 0; i < 8; i += 2)
        CHECK_INT(append(sco, "C1", "move", "player", moves[i], "verb",
                         "place", "args", moves[i + 1], NULL), 0);
    CHECK_INT(count(state_json(rdr, "C1"), "\"status\":\"pending\""), 1);

    /* Any valid spelling is accepted and stored canonical. */
    CHECK_INT(append(sco, "C1", "claim", "cid", "c-1", "player", "alice",
                     "args", spaced_record,
                     "text", "{ \"totals\" : {\"alice\": 24, \"bob\": 0} }",
                     NULL), 0);
    CHECK_INT(arb_client_uint(&res, "seq"), 5);
    memset(&ev, 0, sizeof(ev));
    CHECK_INT(stored(rdr, "C1", 5, &ev), 0);
    CHECK_INT(ev.kind, ARB_EV_CLAIM);
    CHECK_STR(ev.actor, "table-1");
    CHECK_STR(ev.player, "alice");
    CHECK_INT(ev.nargs, 1);
    if (ev.nargs == 1)
        CHECK_STR(ev.args[0], good_record);
    CHECK_STR(ev.text, "{\"totals\":{\"alice\":24,\"bob\":0}}");
    arb_event_clear(&ev);
    CHECK_INT(count(state_json(rdr, "C1"), "\"status\":\"confirmed\""), 1);

    /* The same cid: another spelling of the same claim is a retry ... */
    CHECK_INT(append(sco, "C1", "claim", "cid", "c-1", "player", "alice",
                     "args", good_record,
                     "text", "{\"totals\":{\"alice\":24,\"bob\":0}}", NULL),
              0);
    CHECK_INT(arb_client_uint(&res, "seq"), 5);
    CHECK(arb_client_get(&res, "dup") != NULL
          && arb_client_get(&res, "dup")->via.boolean);
    /* ... another claim is not. */
    CHECK(append(sco, "C1", "claim", "cid", "c-1", "player", "alice",
                 "args", bad_record,
                 "text", "{\"totals\":{\"alice\":24,\"bob\":0}}", NULL) != 0);
    CHECK_STR(arb_client_error_code(&res, code, sizeof(code)),
              "idempotency");

    /* Roles: a reader may not claim; a scorer only in its matches. */
    CHECK(append(rdr, "C1", "claim", "text", "{\"totals\":{}}", NULL) != 0);
    CHECK_STR(arb_client_error_code(&res, code, sizeof(code)), "forbidden");
    CHECK(append(lim, "C1", "claim", "text", "{\"totals\":{}}", NULL) != 0);
    CHECK_STR(arb_client_error_code(&res, code, sizeof(code)), "forbidden");

    /* What the daemon cannot read is refused, naming the part. */
    CHECK(append(sco, "C1", "claim", "args", "{\"sota\":1,}",
                 "text", "{\"totals\":{}}", NULL) != 0);
    CHECK_STR(arb_client_error_code(&res, code, sizeof(code)), "invalid");
    CHECK_STR(last_err, "invalid: claim: claim record 1: line 1, column "
              "11: trailing comma in an object");
    CHECK(append(sco, "C1", "claim", "args", good_record, NULL) != 0);
    CHECK_STR(last_err, "proto: text: required for kind \"claim\"");
    CHECK(append(sco, "C1", "claim", "verb", "place",
                 "text", "{\"totals\":{}}", NULL) != 0);
    CHECK_STR(last_err, "proto: verb: not allowed for kind \"claim\"");
    CHECK(append(sco, "C1", "claim", "player", "not a name",
                 "text", "{\"totals\":{}}", NULL) != 0);
    CHECK_STR(arb_client_error_code(&res, code, sizeof(code)), "invalid");
    CHECK(append(sco, "C1", "claime", "text", "{}", NULL) != 0);
    CHECK_STR(last_err, "proto: kind 'claime' does not exist: move, note, "
              "close, void, amend, stands or claim");

    /* Close: the record is sealed, claims still come. */
    CHECK_INT(append(arb, "C1", "close", "text", "time", NULL), 0);
    CHECK_INT(arb_client_uint(&res, "seq"), 6);
    CHECK(append(sco, "C1", "move", "player", "alice", "verb", "place",
                 "args", "3H", NULL) != 0);
    CHECK_STR(last_err, "over: close: the match is closed: nothing may "
              "follow");
    CHECK(append(sco, "C1", "note", "text", "late", NULL) != 0);
    CHECK_STR(arb_client_error_code(&res, code, sizeof(code)), "over");
    CHECK(append(arb, "C1", "void", "target", "1", "text", "x", NULL) != 0);
    CHECK_INT(append(sco, "C1", "claim", "player", "bob", "args", bad_record,
                     "text", "{\"totals\":{\"alice\":0,\"bob\":24}}", NULL),
              0);
    CHECK_INT(arb_client_uint(&res, "seq"), 7);
    CHECK(strstr(state_json(rdr, "C1"), "\"status\":\"disputed\","
                 "\"disputed_fields\":[\"owner\"]") != NULL);
    CHECK(strstr(state_json(rdr, "C1"), "\"closed\":true") != NULL);
    /* state at 5: the first claim's verdict */
    {
        msgpack_packer *pk;
        arb_buf_t       why = ARB_BUF_INIT;
        const msgpack_object *o;
        arb_client_begin(rdr, &pk, "state", 2);
        arb_mp_pack_cstr(pk, "match");
        arb_mp_pack_cstr(pk, "C1");
        arb_mp_pack_cstr(pk, "at");
        msgpack_pack_uint64(pk, 5);
        CHECK_INT(arb_client_call(rdr, &res, &why), 0);
        o = arb_client_get(&res, "json");
        CHECK(o != NULL && o->type == MSGPACK_OBJECT_STR
              && memmem(o->via.str.ptr, o->via.str.size,
                        "\"status\":\"confirmed\"", 20) != NULL);
        arb_buf_free(&why);
    }
    CHECK_INT(simple(rdr, "matches", NULL), 0);
done:
    arb_client_close(arb);
    arb_client_close(sco);
    arb_client_close(lim);
    arb_client_close(rdr);
}

/* A close and a claim sent together are judged in one batch: the claim
 * against the match as the close leaves it, each acknowledged at its
 * seq, and the verdict in state (the claim reads the speculative state
 * the close made, freed if the batch failed: run under ASan too). */
static void
test_close_claim_batch(void)
{
    arb_client_t *arb = connect_as(TOK_ARBITER);
    arb_client_t *rdr = connect_as(TOK_READER);
    arb_buf_t     why = ARB_BUF_INIT;
    const char   *moves[] = { "alice", "2S", "bob", "3S", "alice", "4S",
                              "bob", "2H" };
    arb_client_t *pack = NULL;
    char          rec[512], frames[4096], *p;
    ssize_t       n;
    uint64_t      commits;
    int           i, sp[2];

    CHECK(arb != NULL && rdr != NULL);
    if (arb == NULL || rdr == NULL)
        goto done;
    CHECK_INT(open_yahchain(arb, "C2"), 0);
    for (i = 0; i < 8; i += 2)
        CHECK_INT(append(arb, "C2", "move", "player", moves[i], "verb",
                         "place", "args", moves[i + 1], NULL), 0);
    snprintf(rec, sizeof(rec), "%s", good_record);
    p = strstr(rec, "\"C1\"");
    CHECK(p != NULL);
    if (p != NULL)
        p[2] = '2';
    /* Both frames in one write, so the daemon reads them in one read and
     * queues them for one commit: packed by a client on a socketpair. */
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sp) == 0);
    CHECK_INT(arb_client_open_fd(&pack, sp[0]), 0);
    CHECK_INT(append_send(pack, "C2", "close", "text", "time", NULL), 0);
    CHECK_INT(append_send(pack, "C2", "claim", "player", "alice", "args",
                          rec, "text",
                          "{\"totals\":{\"alice\":24,\"bob\":0}}", NULL),
              0);
    CHECK_INT(simple(rdr, "stats", NULL), 0);
    commits = arb_client_uint(&res, "commits");
    n = read(sp[1], frames, sizeof(frames));
    CHECK(n > 0 && write(arb_client_fd(arb), frames, (size_t)n) == n);
    arb_client_close(pack);
    close(sp[1]);
    for (i = 0; i < 2; i++) {
        CHECK_INT(arb_client_read(arb, &res, &why), 0);
        CHECK(arb_client_get(&res, "ok") != NULL);
        CHECK_INT(arb_client_uint(&res, "seq"), 5 + i);
    }
    CHECK_INT(count(state_json(rdr, "C2"), "\"status\":\"confirmed\""), 1);
    /* ... in one commit */
    CHECK_INT(simple(rdr, "stats", NULL), 0);
    CHECK_INT(arb_client_uint(&res, "commits") - commits, 1);
    CHECK(strstr(state_json(rdr, "C2"), "\"closed\":true") != NULL);
done:
    arb_buf_free(&why);
    arb_client_close(arb);
    arb_client_close(rdr);
}

/* A restart replays the closed match with its claims; more may come. */
static void
test_restart(void)
{
    arb_client_t *sco, *rdr;
    char          before[16384];

    rdr = connect_as(TOK_READER);
    snprintf(before, sizeof(before), "%s", state_json(rdr, "C1"));
    arb_client_close(rdr);
    stop_daemon();
    start_daemon();
    rdr = connect_as(TOK_READER);
    sco = connect_as(TOK_SCORER);
    CHECK(rdr != NULL && sco != NULL);
    if (rdr != NULL && sco != NULL) {
        CHECK_STR(state_json(rdr, "C1"), before);
        CHECK_INT(append(sco, "C1", "claim", "player", "alice",
                         "args", good_record,
                         "text", "{\"totals\":{\"alice\":24,\"bob\":0}}",
                         NULL), 0);
        CHECK_INT(arb_client_uint(&res, "seq"), 8);
        CHECK_INT(count(state_json(rdr, "C1"), "\"status\":\"confirmed\""),
                  1);
        CHECK(append(sco, "C1", "move", "player", "alice", "verb", "place",
                     "args", "3H", NULL) != 0);
        CHECK_STR(last_err, "over: close: the match is closed: nothing "
                  "may follow");
    }
    arb_client_close(rdr);
    arb_client_close(sco);
}

static void
on_alarm(int sig)
{
    (void)sig;
    if (daemon_pid > 0)
        kill(daemon_pid, SIGKILL);
    _exit(3);
}

int
main(void)
{
    FILE *f;
    char  tp[320], cmd[300];

    signal(SIGALRM, on_alarm);
    alarm(60);
    if (access("bin/arbiterd", X_OK) != 0) {
        fprintf(stderr, "bin/arbiterd missing: build it first\n");
        return 1;
    }
    snprintf(dir, sizeof(dir), "/tmp/arbiter-claim-XXXXXX");
    if (mkdtemp(dir) == NULL)
        return 1;
    snprintf(sock, sizeof(sock), "%s/s.sock", dir);
    snprintf(conf, sizeof(conf), "%s/arbiterd.conf", dir);
    snprintf(tp, sizeof(tp), "%s/tokens", dir);
    f = fopen(conf, "w");
    if (f == NULL)
        return 1;
    fprintf(f, "data = %s/data\nlisten = unix:%s\nlog_level = warn\n"
               "tokens_file = %s\n"
               "token = %s arbiter chief\n"
               "token = %s scorer table-1\n"
               "token = %s scorer table-2 other-match\n"
               "token = %s reader press\n", dir, sock, tp, TOK_ARBITER,
            TOK_SCORER, TOK_LIMITED, TOK_READER);
    fclose(f);
    f = fopen(tp, "w");
    if (f != NULL)
        fclose(f);
    msgpack_unpacked_init(&res);
    start_daemon();
    test_claims();
    test_close_claim_batch();
    test_restart();
    stop_daemon();
    msgpack_unpacked_destroy(&res);
    if (test_failed_ == 0) {
        snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", dir);
    } else {
        fprintf(stderr, "daemon log kept in %s/daemon.log\n", dir);
    }
    return TEST_END();
}
