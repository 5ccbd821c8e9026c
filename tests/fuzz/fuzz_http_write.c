/*
 * fuzz_http_write.c - the HTTP write routes (daemon/http_write.c: POST
 * /api/m/<id>/move, judge, note, undo, close) with a real store and the
 * real HTTP server, in-process: each request goes through a loopback
 * socket to libh2o and the daemon's router, its JSON body is turned into
 * the protocol's request, dispatched, committed, and its answer turned
 * back into JSON.
 *
 * Each input is one client's session.  Byte 0 picks the token its
 * requests carry (none, a reader's, the scorer's of M1 and T1, an
 * arbiter's, an unknown one) and when the commit worker starts a job
 * (tests/fuzz/server_fixture.h).  The rest is requests separated by 0xff
 * (never a byte of UTF-8, so never inside a body a client means): a
 * request's first byte picks its route (low three bits: move, judge,
 * note, undo, close), its match (next three: a YAHchain match M1, a
 * Chains match T1, a Tsukurutenten match C, a Chắn match H, a match never
 * opened) and whether it goes on a new connection (bit 6); the bytes
 * after it are the body.  The four matches are opened for each input
 * (their ids tagged as fuzz_dispatch.c's are, so no input sees
 * another's).
 *
 * Invariants: no crash, leak or sanitizer report; every request gets one
 * HTTP answer while its connection lasts, never a 500 (the store is
 * healthy: a 500 is a bug), and every answer but libh2o's own 413 is a
 * JSON object: an error names what ("error") and where ("where"); a
 * write's 200 names its match and seq, and the store holds an event at
 * that seq with that hash; a judge's 200 has a verdict and records
 * nothing; each match's last seq is the count of the writes answered 200
 * and not duplicates (nothing acknowledged is lost, nothing unanswered is
 * recorded); no write is left awaiting its ack; the loop ends each input
 * with the handles it began it with; every touched chain verifies.
 *
 * Corpus: tests/fuzz/corpus/http_write (moves as typed and as fields of
 * each game, duplicates by cid, stale expects, undo and close by both
 * roles, hostile bodies).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>

#include "core/hash.h"
#include "core/mp.h"
#include "daemon/dispatch.h"
#include "daemon/http.h"
#include "tests/dispatch_harness.h"
#include "tests/fuzz/server_fixture.h"

enum { M_YAH, M_CHAINS, M_TSUKU, M_CHAN, M_NONE, NMATCH };

static const char *const match_names[NMATCH] = {
    "M1", "T1", "C", "H", "X",
};
static const char *const routes[] = {
    "move", "judge", "note", "undo", "close",
};
/* The byte 0 picks among these; the unknown token is no token's secret. */
static const char *const http_tokens[] = {
    NULL, "fuzz-reader-0123456789", "fuzz-scorer-0123456789",
    "fuzz-arbiter-0123456789", "fuzz-nobody-0123456789",
};

/* (What this harness does not use of the two headers.) */
static void *const unused[] = { (void *)dh_conn_open, (void *)dh_settle,
                                (void *)dh_auth, (void *)dh_conn_close,
                                (void *)dh_ended, (void *)count_handle };

static arb_server_t srv;
static int          port;
static size_t       base_handles;   /* the loop's, with the server up */
static char         ids[NMATCH][ARB_STORE_ID_MAX + 1];
static uint64_t     acked[NMATCH];  /* writes answered 200, not dup */

/* Turns the loop once, as the daemon's would, without waiting on the
 * gathering timer (dh_gather_now). */
static void
pump(void)
{
    dh_gather_now(&srv);
    uv_run(&loop, srv.committing ? UV_RUN_ONCE : UV_RUN_NOWAIT);
}

static void
count_all(uv_handle_t *h, void *arg)
{
    (void)h;
    *(size_t *)arg += 1;
}

static size_t
handles_now(void)
{
    size_t n = 0;

    uv_walk(&loop, count_all, &n);
    return n;
}

/* ---- opening the input's matches: a protocol connection, socketless -- */

static int opened;

static void
on_open(arb_conn_t *c, const char *msg, size_t len)
{
    msgpack_unpacked      u;
    const msgpack_object *ok;

    (void)c;
    msgpack_unpacked_init(&u);
    FUZZ_CHECK(arb_mp_parse(&u, msg, len, NULL) == 0);
    ok = arb_mp_get(&u.data, "ok");
    FUZZ_CHECK(ok != NULL && ok->type == MSGPACK_OBJECT_BOOLEAN);
    if (!ok->via.boolean)
        fprintf(stderr, "open refused: %.*s\n", (int)len, msg);
    FUZZ_CHECK(ok->via.boolean);
    opened++;
    msgpack_unpacked_destroy(&u);
}

static void
pack_options(msgpack_packer *pk, const char *const *kv, size_t n)
{
    size_t i;

    arb_mp_pack_cstr(pk, "options");
    msgpack_pack_map(pk, n);
    for (i = 0; i < n; i++) {
        arb_mp_pack_cstr(pk, kv[2 * i]);
        arb_mp_pack_cstr(pk, kv[2 * i + 1]);
    }
}

static void
pack_seed(msgpack_packer *pk)
{
    arb_mp_pack_cstr(pk, "deal");
    msgpack_pack_map(pk, 2);
    arb_mp_pack_kv_str(pk, "kind", "seed");
    arb_mp_pack_kv_str(pk, "seed", "fuzz-http-write");
}

/* The open request of match k. */
static void
pack_open(arb_buf_t *b, int k)
{
    static char *yah[] = { "alice", "bob" };
    static char *chains[] = { "ann:long", "bob:short" };
    static char *teams[] = { "long", "short" };
    static char *tsuku[] = { "ann", "bob" };
    static char *chan[] = { "an", "binh", "chi", "dung" };
    static const char *const yah_opt[] = { "mode", "3" };
    static const char *const chains_opt[] = { "deck", "36", "scoring",
                                              "square" };
    static const char *const tsuku_opt[] = { "scoring", "simple" };
    msgpack_packer pk;

    b->len = 0;
    arb_mp_packer_init(&pk, b);
    msgpack_pack_map(&pk, k == M_YAH ? 7 : k == M_CHAINS ? 9 : k == M_TSUKU
                     ? 8 : 7);
    arb_mp_pack_kv_uint(&pk, "v", 1);
    arb_mp_pack_kv_uint(&pk, "id", 1);
    arb_mp_pack_kv_str(&pk, "op", "open");
    arb_mp_pack_kv_str(&pk, "match", ids[k]);
    switch (k) {
    case M_YAH:
        arb_mp_pack_kv_str(&pk, "game", "yahchain");
        arb_mp_pack_kv_strv(&pk, "players", yah, 2);
        pack_options(&pk, yah_opt, 1);
        break;
    case M_CHAINS:
        arb_mp_pack_kv_str(&pk, "game", "chains");
        arb_mp_pack_kv_strv(&pk, "players", chains, 2);
        arb_mp_pack_kv_strv(&pk, "teams", teams, 2);
        pack_options(&pk, chains_opt, 2);
        pack_seed(&pk);
        break;
    case M_TSUKU:
        arb_mp_pack_kv_str(&pk, "game", "tsukurutenten");
        arb_mp_pack_kv_strv(&pk, "players", tsuku, 2);
        pack_options(&pk, tsuku_opt, 1);
        pack_seed(&pk);
        break;
    default:
        arb_mp_pack_kv_str(&pk, "game", "chan");
        arb_mp_pack_kv_strv(&pk, "players", chan, 4);
        pack_seed(&pk);
    }
    FUZZ_CHECK(!b->oom);
}

static void
open_matches(void)
{
    arb_conn_t        *c = arb_conn_new_sink(&srv, on_open, NULL);
    const arb_token_t *t = NULL;
    arb_buf_t          b = ARB_BUF_INIT;
    size_t             i;
    int                k;

    for (i = 0; i < srv.cfg.ntokens; i++)
        if (srv.cfg.tokens[i].role == ARB_ROLE_ARBITER)
            t = &srv.cfg.tokens[i];
    FUZZ_CHECK(c != NULL && t != NULL && arb_conn_take_token(c, t) == 0);
    opened = 0;
    for (k = 0; k < M_NONE; k++) {
        pack_open(&b, k);
        arb_dispatch(c, b.data, b.len);
        note_touched(ids[k]);
    }
    while (opened < M_NONE)
        pump();
    arb_conn_release(c);
    arb_buf_free(&b);
}

/* ---- the HTTP client: a non-blocking socket, the loop turned while it
 * waits ----------------------------------------------------------------- */

/* Turns the loop at most this many times waiting for one answer (each
 * turn that makes no progress): past it, the server hangs the client. */
#define WAIT_TURNS 200000

static int
client_connect(void)
{
    struct sockaddr_in sa;
    int                fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);

    FUZZ_CHECK(fd >= 0);
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    FUZZ_CHECK(connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0
               || errno == EINPROGRESS);
    return fd;
}

/* Writes p[0..n) while the server reads.  0, or -1 when the server
 * closed the connection. */
static int
client_send(int fd, const char *p, size_t n)
{
    ssize_t w;
    long    idle = 0;

    while (n > 0) {
        w = send(fd, p, n, MSG_NOSIGNAL);
        if (w > 0) {
            p += w;
            n -= (size_t)w;
            idle = 0;
            continue;
        }
        if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK
            && errno != ENOTCONN)
            return -1;
        FUZZ_CHECK(++idle < WAIT_TURNS);
        pump();
    }
    return 0;
}

/* Where header line text what (of any case) is in the head r[0..head),
 * or NULL. */
static const char *
head_find(const char *r, size_t head, const char *what)
{
    size_t i, n = strlen(what);

    for (i = 0; i + n <= head; i++)
        if (strncasecmp(r + i, what, n) == 0)
            return r + i;
    return NULL;
}

/* The length of a whole answer at the start of r[0..n) (a head and a
 * Content-Length body; r NUL-terminated, and an answer has no NUL), or 0
 * when more is to come. */
static size_t
answer_len(const char *r, size_t n)
{
    const char *end = strstr(r, "\r\n\r\n"), *cl;
    size_t      head, body;

    if (end == NULL)
        return 0;
    head = (size_t)(end - r) + 4;
    cl = head_find(r, head, "\r\ncontent-length:");
    if (cl == NULL)
        fprintf(stderr, "answer without a length: %s\n", r);
    FUZZ_CHECK(cl != NULL);     /* every answer says its length */
    body = strtoul(cl + 17, NULL, 10);
    return n >= head + body ? head + body : 0;
}

/* Reads one answer into out (NUL-terminated).  Its length, or 0 when
 * the server closed the connection first. */
static size_t
client_answer(int fd, char *out, size_t cap)
{
    size_t  n = 0, len;
    ssize_t r;
    long    idle = 0;

    for (;;) {
        FUZZ_CHECK(n < cap - 1);
        r = recv(fd, out + n, cap - 1 - n, 0);
        if (r > 0) {
            n += (size_t)r;
            out[n] = '\0';
            idle = 0;
            if ((len = answer_len(out, n)) > 0) {
                /* one request at a time: nothing follows an answer */
                FUZZ_CHECK(len == n);
                return len;
            }
            continue;
        }
        if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
            return 0;
        FUZZ_CHECK(++idle < WAIT_TURNS);
        pump();
    }
}

/* ---- checking an answer ----------------------------------------------- */

typedef struct got {
    uint64_t      seq;
    unsigned char hash[ARB_HASH_LEN];
    int           found;
} got_t;

static int
on_event(void *ud, uint64_t seq, int64_t time_ms,
         const unsigned char hash[ARB_HASH_LEN], const void *bytes,
         size_t len)
{
    got_t *g = ud;

    (void)time_ms, (void)bytes, (void)len;
    g->found = seq == g->seq;
    memcpy(g->hash, hash, ARB_HASH_LEN);
    return 0;
}

/* A string member of o that is not empty. */
static int
has_text(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);

    return json_is_string(v) && json_string_length(v) > 0;
}

/* A write's 200: its event is in the store at its seq, with its hash. */
static void
check_recorded(json_t *o, int k)
{
    json_t     *seq = json_object_get(o, "seq"), *dup;
    const char *hex = json_string_value(json_object_get(o, "hash"));
    char        want[ARB_HASH_HEX];
    arb_buf_t   why = ARB_BUF_INIT;
    got_t       g;

    FUZZ_CHECK(json_is_integer(seq) && json_integer_value(seq) > 0);
    FUZZ_CHECK(hex != NULL && strlen(hex) == 2 * ARB_HASH_LEN);
    FUZZ_CHECK(json_is_string(json_object_get(o, "match"))
               && strcmp(json_string_value(json_object_get(o, "match")),
                         ids[k]) == 0);
    dup = json_object_get(o, "duplicate");
    FUZZ_CHECK(json_is_boolean(dup));
    memset(&g, 0, sizeof(g));
    g.seq = (uint64_t)json_integer_value(seq);
    FUZZ_CHECK(arb_store_events(store, ids[k], g.seq, g.seq, on_event, &g,
                                &why) == 0);
    FUZZ_CHECK(g.found);
    arb_hex32(want, g.hash);
    FUZZ_CHECK(strcmp(want, hex) == 0);
    if (!json_is_true(dup))
        acked[k]++;
    arb_buf_free(&why);
}

static void
check_answer(const char *resp, size_t len, int route, int k)
{
    const char *body = strstr(resp, "\r\n\r\n") + 4;
    int         status = atoi(resp + 9);
    json_t     *o;

    FUZZ_CHECK(len > 12 && strncmp(resp, "HTTP/1.1 ", 9) == 0);
    if (status == 500)
        fprintf(stderr, "500: %s\n", body);
    FUZZ_CHECK(status != 500);
    if (status == 413
        || (status == 400 && head_find(resp, (size_t)(body - resp),
                                       "\r\ncontent-type: application/json")
                             == NULL))
        return;                 /* libh2o's own, plain text */
    o = json_loadb(body, len - (size_t)(body - resp), JSON_REJECT_DUPLICATES,
                   NULL);
    FUZZ_CHECK(json_is_object(o));
    if (status != 200) {
        FUZZ_CHECK(status >= 400 && status < 600);
        FUZZ_CHECK(has_text(o, "error") && has_text(o, "where"));
    } else if (strcmp(routes[route], "judge") == 0) {
        FUZZ_CHECK(json_object_get(o, "verdict") != NULL);
        FUZZ_CHECK(json_is_integer(json_object_get(o, "at")));
        FUZZ_CHECK(has_text(o, "line"));
    } else {
        FUZZ_CHECK(k != M_NONE);
        check_recorded(o, k);
        if (strcmp(routes[route], "move") == 0)
            FUZZ_CHECK(has_text(o, "line")
                       && json_is_object(json_object_get(o, "move")));
    }
    json_decref(o);
}

/* ---- one input ------------------------------------------------------- */

/* Once per process: the HTTP server, listening on a port of its own. */
static void
start_http(void)
{
    struct sockaddr_storage ss;
    int                     len = sizeof(ss);

    srv.cfg.http.listen = "tcp:127.0.0.1:0";
    FUZZ_CHECK(arb_http_start(&srv) == 0);
    FUZZ_CHECK(uv_tcp_getsockname(&srv.http->listener,
                                  (struct sockaddr *)&ss, &len) == 0);
    port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
    base_handles = handles_now();
}

static void
request(int *fd, const uint8_t *p, size_t n, const char *token)
{
    static char resp[1 << 17];
    arb_buf_t   req = ARB_BUF_INIT;
    int         route = (p[0] & 7) % 5, k = ((p[0] >> 3) & 7) % NMATCH;
    size_t      len;

    if (*fd < 0 || (p[0] & 64)) {
        if (*fd >= 0)
            close(*fd);
        *fd = client_connect();
    }
    arb_buf_printf(&req, "POST /api/m/%s/%s HTTP/1.1\r\nHost: fuzz\r\n",
                   ids[k], routes[route]);
    if (token != NULL)
        arb_buf_printf(&req, "Authorization: Bearer %s\r\n", token);
    arb_buf_printf(&req, "Content-Type: application/json\r\n"
                   "Content-Length: %zu\r\n\r\n", n - 1);
    arb_buf_add(&req, p + 1, n - 1);
    FUZZ_CHECK(!req.oom);
    if (client_send(*fd, req.data, req.len) == 0
        && (len = client_answer(*fd, resp, sizeof(resp))) > 0)
        check_answer(resp, len, route, k);
    else {
        close(*fd);             /* the server ended it: a new one */
        *fd = -1;
    }
    arb_buf_free(&req);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct arb_http    *http = srv.http;
    arb_match_info_t    info;
    arb_buf_t           why = ARB_BUF_INIT;
    const uint8_t      *p, *end, *sep;
    const char         *token;
    int                 k, fd = -1;
    long                turns;

    (void)unused;
    if (size == 0)
        return 0;
    setup_server(&srv);
    srv.http = http;             /* the one server, kept across inputs */
    if (http == NULL)
        start_http();
    worker_early = (data[0] & 8) != 0;
    token = http_tokens[(data[0] & 7) % 5];
    for (k = 0; k < NMATCH; k++) {
        snprintf(ids[k], sizeof(ids[k]), "%s+%s", match_names[k], tag);
        acked[k] = 0;
    }
    open_matches();

    for (p = data + 1, end = data + size; p < end; p = sep + 1) {
        sep = memchr(p, 0xff, (size_t)(end - p));
        if (sep == NULL)
            sep = end;
        if (sep > p)
            request(&fd, p, (size_t)(sep - p), token);
        if (sep == end)
            break;
    }
    if (fd >= 0)
        close(fd);

    /* The server sees every connection go, commits what is queued, and
     * its loop is as it was. */
    for (turns = 0; srv.http->nconns > 0 || srv.committing
                    || srv.nqueue > 0 || srv.gathering; turns++) {
        FUZZ_CHECK(turns < WAIT_TURNS);
        pump();
    }
    FUZZ_CHECK(srv.http->writes == NULL);
    FUZZ_CHECK(job == NULL);
    arb_commit_close(&srv);
    arb_sub_close(&srv);
    for (turns = 0; handles_now() != base_handles; turns++) {
        FUZZ_CHECK(turns < WAIT_TURNS);
        uv_run(&loop, UV_RUN_NOWAIT);
    }

    /* Nothing acknowledged lost, nothing unanswered recorded. */
    for (k = 0; k < M_NONE; k++) {
        FUZZ_CHECK(arb_store_match(store, ids[k], &info, &why) == 0);
        if (info.last_seq != acked[k])
            fprintf(stderr, "%s: last seq %llu, %llu writes acked\n",
                    ids[k], (unsigned long long)info.last_seq,
                    (unsigned long long)acked[k]);
        FUZZ_CHECK(info.last_seq == acked[k]);
    }
    FUZZ_CHECK(arb_store_match(store, ids[M_NONE], &info, &why)
               == ARB_ENOTFOUND);
    verify_touched();
    arb_live_free_all(&srv);
    arb_commit_free(&srv);
    arb_checkpoint_clear(&srv);
    arb_buf_free(&why);
    return 0;
}
