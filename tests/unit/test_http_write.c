/*
 * test_http_write.c - the HTTP write routes (POST /api/m/<id>/move, judge,
 * note, undo, close) against the real daemon with a raw-socket client:
 * who may write (no token, a token in the query, a reader, a player, a
 * scorer of another match: 401/403 and nothing recorded); a move as typed
 * and as recorded; a repeated client event id answered with the original
 * seq and hash, marked duplicate, also when the first request's client
 * went away before its ack; a cid naming another event and a stale
 * expected seq (409, naming the field); the rules' refusal (422 with the
 * rule); judge recording nothing; undo as a scorer's request and as an
 * arbiter's void; hostile bodies (not JSON, not an object, unknown or
 * mistyped fields, over body_max: 400 naming the field, 413) and methods
 * (GET on a write route, POST elsewhere: 405).
 */
#include <stdint.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "tests/daemon_harness.h"
#include "tests/http_client.h"
#include "tests/test.h"

#define PLAYER_TOKEN "harness-player-token-0123"
/* A player of another match ("A") seated under a name that CHAN-CHIU-1
 * has too: it reads that match as a spectator. */
#define OTHER_PLAYER "harness-player-an-tok-01"
/* a scorer of the Chan match alone */
#define CHAN_SCORER "harness-scorer-chan-tok-01"

static int  port;
static char resp[1 << 16];

static void *const unused[] = { (void *)harness_connect,
                                (void *)harness_send_raw };

/* POSTs body to path with an Authorization header when token is not
 * NULL; the answer in resp, its status returned. */
static int
post(const char *path, const char *token, const char *body)
{
    return http_post(port, path, token, body, resp, sizeof(resp));
}

/* The body of the last answer has s. */
static int
says(const char *s)
{
    if (strstr(http_body(resp), s) != NULL)
        return 1;
    fprintf(stderr, "wanted %s in: %s\n", s, http_body(resp));
    return 0;
}

static long
last_seq(const char *match)
{
    char        path[128];
    const char *p;

    snprintf(path, sizeof(path), "/api/m/%s/state", match);
    if (http_get(port, path, HARNESS_ARBITER, resp, sizeof(resp)) != 200)
        return -1;
    p = strstr(http_body(resp), "\"seq\":");
    return p != NULL ? atol(p + 6) : -1;
}

/* "seq":N,"hash":"..." of the last answer, for comparing two answers. */
static void
seq_hash(char *out, size_t n)
{
    const char *p = strstr(http_body(resp), "\"seq\":");

    snprintf(out, n, "%.90s", p != NULL ? p : "none");
}

/* Puts line before the harness's configuration (a top-level key: the
 * file ends in its [http] section).  0 or -1. */
static int
prepend_conf(const char *line)
{
    static char old[8192];
    FILE       *f = fopen(harness_conf, "r");
    size_t      n;

    if (f == NULL)
        return -1;
    n = fread(old, 1, sizeof(old) - 1, f);
    fclose(f);
    if (n == sizeof(old) - 1 || (f = fopen(harness_conf, "w")) == NULL)
        return -1;
    fputs(line, f);
    fwrite(old, 1, n, f);
    return fclose(f) == 0 ? 0 : -1;
}

int
main(void)
{
    struct statvfs fs;
    static const char gone[] = "{\"text\":\"bob 5H\",\"cid\":\"c-gone\"}";
    char first[128], again[128], big[20000], req[512];
    int  fd, i;

    if (harness_init("token = " PLAYER_TOKEN " player alice-phone W alice\n"
                     "token = " OTHER_PLAYER " player an-phone A an\n"
                     "token = " CHAN_SCORER " scorer table-9 CHAN-CHIU-1\n"
                     "[http]\nlisten = tcp:127.0.0.1:0\nbody_max = 4K\n",
                     60) != 0)
        return 1;
    harness_start();
    port = http_log_port(harness_dir);
    CHECK(port > 0);
    CHECK_INT(harness_cli("open --match W --game yahchain --players "
                          "alice,bob --option mode=3"), 0);
    CHECK_INT(harness_cli("open --match only-A --game yahchain --players "
                          "alice,bob --option mode=3"), 0);

    /* Who may write: nothing recorded by any of these. */
    CHECK_INT(post("/api/m/W/move", NULL, "{\"text\":\"4S\"}"), 401);
    CHECK(says("\"where\":\"authorization\",\"code\":"
               "\"unauthenticated\""));
    CHECK_INT(post("/api/m/W/move?token=" HARNESS_SCORER, NULL,
                   "{\"text\":\"4S\"}"), 401);
    CHECK(says("Authorization header"));
    CHECK_INT(post("/api/m/W/move", "not-a-token-at-all-000", "{\"text\":"
                   "\"4S\"}"), 401);
    CHECK_INT(post("/api/m/W/move", HARNESS_READER, "{\"text\":\"4S\"}"),
              403);
    CHECK(says("press is a reader"));
    CHECK_INT(post("/api/m/W/move", PLAYER_TOKEN, "{\"text\":\"4S\"}"), 403);
    CHECK(says("needs a scorer's or an arbiter's token; alice-phone is "
               "a player"));
    CHECK_INT(post("/api/m/W/judge", HARNESS_READER, "{\"text\":\"4S\"}"),
              403);
    CHECK_INT(post("/api/m/W/move", HARNESS_LIMITED, "{\"text\":\"4S\"}"),
              403);
    CHECK(says("may not record in match 'W'"));
    /* with the protocol's code, as every refusal of a write route (until
     * 2026-12-06 none when the route itself refused) */
    CHECK(says("\"code\":\"forbidden\""));
    CHECK_INT(post("/api/m/NO-SUCH/move", HARNESS_SCORER,
                   "{\"text\":\"4S\"}"), 404);
    CHECK(says("\"where\":\"match\",\"code\":\"not_found\""));
    CHECK_INT(post("/api/m/W/move", HARNESS_SCORER, "[]"), 400);
    CHECK(says("\"code\":\"proto\""));
    CHECK_INT(post("/api/m/W/close", HARNESS_SCORER, "{}"), 403);
    CHECK(says("arbiter"));
    /* the dispatcher's refusals name the field as the route's own do:
     * forbidden is the token's, not_found the match's (no test failed
     * when either was "request") */
    CHECK(says("\"where\":\"authorization\",\"code\":\"forbidden\""));
    CHECK_INT(post("/api/m/NO-SUCH/move", HARNESS_SCORER, "{\"verb\":"
                   "\"place\",\"player\":\"alice\",\"args\":[\"4S\"]}"),
              404);
    CHECK(says("\"where\":\"match\",\"code\":\"not_found\""));
    CHECK_INT(last_seq("W"), 0);
    CHECK_INT(post("/api/m/only-A/move", HARNESS_LIMITED,
                   "{\"text\":\"4S\"}"), 200);
    CHECK_INT(last_seq("only-A"), 1);
    CHECK_INT(post("/api/m/nope/move", HARNESS_SCORER, "{\"text\":\"4S\"}"),
              404);

    /* Judge: the verdict and the move as it would be recorded; nothing
     * recorded. */
    CHECK_INT(post("/api/m/W/judge", HARNESS_SCORER, "{\"text\":\"4s\"}"),
              200);
    CHECK(says("\"line\":\"place alice 4♠\""));
    CHECK(says("\"verdict\":{\"legal\":true"));
    CHECK_INT(post("/api/m/W/judge", HARNESS_SCORER, "{\"text\":\"bob 4S\"}"),
              200);
    CHECK(says("\"legal\":false,\"rule\":\"§34.11.2\""));
    CHECK_INT(last_seq("W"), 0);

    /* A move as typed, then its retry as recorded: the same seq and hash,
     * marked duplicate. */
    CHECK_INT(post("/api/m/W/move", HARNESS_SCORER, "{\"text\":\"4S\","
                   "\"cid\":\"c-1\",\"expect\":0}"), 200);
    CHECK(says("\"seq\":1,"));
    CHECK(says("\"duplicate\":false"));
    /* its place in the log, as the protocol's ack gives it (no test
     * failed when it was left out) */
    CHECK(says("\",\"pos\":"));
    seq_hash(first, sizeof(first));
    CHECK_INT(post("/api/m/W/move", HARNESS_SCORER, "{\"player\":\"alice\","
                   "\"verb\":\"place\",\"args\":[\"4♠\"],\"cid\":\"c-1\","
                   "\"expect\":0}"), 200);
    CHECK(says("\"duplicate\":true"));
    seq_hash(again, sizeof(again));
    CHECK_STR(again, first);
    /* The same cid for another event, a stale expected seq. */
    CHECK_INT(post("/api/m/W/move", HARNESS_SCORER, "{\"text\":\"bob 5H\","
                   "\"cid\":\"c-1\"}"), 409);
    CHECK(says("\"where\":\"cid\""));
    CHECK_INT(post("/api/m/W/move", HARNESS_SCORER, "{\"text\":\"5H\","
                   "\"expect\":0}"), 409);
    CHECK(says("\"where\":\"expect\""));
    CHECK(says("expected seq 0, match is at 1"));
    /* The rules refuse: 422 with the rule. */
    CHECK_INT(post("/api/m/W/move", HARNESS_SCORER, "{\"text\":\"4S\"}"),
              422);
    CHECK(says("\"rule\":"));
    CHECK(says("already played at seq 1"));
    CHECK_INT(last_seq("W"), 1);

    /* The client goes away before its ack: the move still lands once,
     * and the resend gets its seq. */
    fd = http_connect(port);
    i = snprintf(req, sizeof(req), "POST /api/m/W/move HTTP/1.1\r\nHost: t"
                 "\r\nAuthorization: Bearer " HARNESS_SCORER "\r\n"
                 "Content-Length: %zu\r\n\r\n%s", strlen(gone), gone);
    CHECK(fd >= 0 && http_write_all(fd, req, (size_t)i) == 0);
    close(fd);
    for (i = 0; i < 200 && last_seq("W") != 2; i++)
        usleep(10000);
    CHECK_INT(last_seq("W"), 2);
    CHECK_INT(post("/api/m/W/move", HARNESS_SCORER, "{\"text\":\"bob 5H\","
                   "\"cid\":\"c-gone\"}"), 200);
    CHECK(says("\"seq\":2,"));
    CHECK(says("\"duplicate\":true"));
    CHECK(says("\"kind\":\"move\""));
    CHECK_INT(last_seq("W"), 2);

    /* Notes; undo as a scorer asks, as an arbiter voids. */
    CHECK_INT(post("/api/m/W/note", HARNESS_SCORER, "{\"text\":\"page 1\"}"),
              200);
    CHECK(says("\"seq\":3,"));
    CHECK(says("\"kind\":\"note\""));
    /* the answer says what was recorded: a scorer's undo is a request */
    CHECK_INT(post("/api/m/W/undo", HARNESS_SCORER, "{\"seq\":2}"), 200);
    CHECK(says("\"kind\":\"note\""));
    CHECK_INT(post("/api/m/W/undo", HARNESS_SCORER, "{\"seq\":3}"), 400);
    CHECK(says("\"where\":\"seq\""));
    CHECK_INT(post("/api/m/W/undo", HARNESS_ARBITER, "{\"seq\":2,\"reason\":"
                   "\"misheard\",\"cid\":\"u-1\"}"), 200);
    CHECK(says("\"seq\":5,"));
    CHECK(says("\"kind\":\"void\""));
    CHECK_INT(http_get(port, "/api/m/W/events?from=4", HARNESS_ARBITER, resp,
                       sizeof(resp)), 200);
    CHECK(says("note undo requested: seq 2 (place bob 5♥)"));
    CHECK(says("void 2 -- misheard"));
    CHECK(says("\"line\":\"void 2 -- misheard\",\"target\":2,"));
    CHECK(says("\"line\":\"note undo requested: seq 2 (place bob 5♥)\","
               "\"hash\""));      /* a note rules on nothing */
    CHECK_INT(post("/api/m/W/undo", HARNESS_ARBITER, "{\"seq\":2,\"reason\":"
                   "\"misheard\",\"cid\":\"u-1\"}"), 200);
    CHECK(says("\"duplicate\":true"));

    /* Hostile bodies and methods: 4xx naming what, nothing recorded. */
    CHECK_INT(post("/api/m/W/move", HARNESS_SCORER, ""), 400);
    CHECK(says("\"where\":\"body\""));
    CHECK_INT(post("/api/m/W/move", HARNESS_SCORER, "{\"text\":"), 400);
    CHECK(says("line 1, column"));
    CHECK_INT(post("/api/m/W/move", HARNESS_SCORER, "[1,2]"), 400);
    /* what it is instead, said (until 2026-12-06 "a JSON object: ") */
    CHECK(says("the body is a JSON object, not an array"));
    CHECK_INT(post("/api/m/W/move", HARNESS_SCORER, "null"), 400);
    CHECK(says("the body is a JSON object, not null"));
    CHECK_INT(post("/api/m/W/move", HARNESS_SCORER, "{\"text\":\"4S\","
                   "\"text\":\"5S\"}"), 400);
    CHECK_INT(post("/api/m/W/move", HARNESS_SCORER, "{\"text\":\"4S\","
                   "\"bogus\":1}"), 400);
    CHECK(says("\"where\":\"bogus\""));
    /* a member named "": where is the body, never "" */
    CHECK_INT(post("/api/m/W/move", HARNESS_SCORER, "{\"text\":\"4S\","
                   "\"\":1}"), 400);
    CHECK(says("\"where\":\"body\""));
    CHECK_INT(post("/api/m/W/move", HARNESS_SCORER, "{\"text\":\"6S\","
                   "\"expect\":\"one\"}"), 400);
    CHECK(says("\"where\":\"expect\""));
    CHECK_INT(post("/api/m/W/move", HARNESS_SCORER, "{\"text\":\"6S\","
                   "\"expect\":1.5}"), 400);
    /* the member named (until 2026-12-06 "body", in the claims' words) */
    CHECK(says("\"where\":\"expect\""));
    CHECK(says("expect: 1.5 is not an integer: whole numbers only"));
    CHECK_INT(post("/api/m/W/move", HARNESS_SCORER, "{\"text\":7}"), 400);
    CHECK(says("\"where\":\"text\""));
    CHECK_INT(post("/api/m/W/move", HARNESS_SCORER, "{\"verb\":\"place\","
                   "\"player\":\"alice\",\"args\":[\"6S\",3]}"), 400);
    CHECK(says("args[1]"));
    /* a fraction in args, a member twice: named (until 2026-12-06
     * "body") */
    CHECK_INT(post("/api/m/W/move", HARNESS_SCORER, "{\"verb\":\"place\","
                   "\"player\":\"alice\",\"args\":[\"6S\",1.5]}"), 400);
    CHECK(says("\"where\":\"args\""));
    CHECK_INT(post("/api/m/W/move", HARNESS_SCORER, "{\"text\":\"6S\","
                   "\"expect\":1,\"expect\":2}"), 400);
    CHECK(says("\"where\":\"expect\""));
    /* a typed move of more than 32 arguments, bare (34 words) or not:
     * refused, the recorder serving on (until 2026-12-06 it overran an
     * array of the write API and the recorder died); a typed word held
     * to 256 bytes, as an element of args is */
    CHECK_INT(post("/api/m/W/move", HARNESS_SCORER, "{\"text\":\"6S 6S 6S "
                   "6S 6S 6S 6S 6S 6S 6S 6S 6S 6S 6S 6S 6S 6S 6S 6S 6S 6S "
                   "6S 6S 6S 6S 6S 6S 6S 6S 6S 6S 6S 6S 6S\"}"), 400);
    CHECK(says("\"where\":\"text\""));
    CHECK(says("too many words: a move takes at most 32 arguments"));
    CHECK_INT(post("/api/m/W/judge", HARNESS_SCORER, "{\"text\":\"alice "
                   "6S 6S 6S 6S 6S 6S 6S 6S 6S 6S 6S 6S 6S 6S 6S 6S 6S 6S "
                   "6S 6S 6S 6S 6S 6S 6S 6S 6S 6S 6S 6S 6S 6S 6S\"}"), 400);
    CHECK(says("got 33"));
    memset(big, 0, sizeof(big));
    snprintf(big, sizeof(big), "{\"text\":\"6S ");
    memset(big + 12, 'x', 300);
    strcat(big, "\"}");
    CHECK_INT(post("/api/m/W/move", HARNESS_SCORER, big), 400);
    CHECK(says("argument 2 of the move is longer than 256 bytes"));
    CHECK_INT(post("/api/m/W/judge", HARNESS_SCORER, "{\"text\":\"6S\"}"),
              200);
    CHECK_INT(post("/api/m/W/move", HARNESS_SCORER, "{\"verb\":\"place\"}"),
              400);
    CHECK(says("\"where\":\"player\""));
    CHECK_INT(post("/api/m/W/note", HARNESS_SCORER, "{}"), 400);
    CHECK(says("\"where\":\"text\""));
    /* an empty string is no text, no cid (no test failed when either
     * went on to the protocol) */
    CHECK_INT(post("/api/m/W/note", HARNESS_SCORER, "{\"text\":\"\"}"),
              400);
    CHECK(says("\"where\":\"text\""));
    CHECK(says("text must be a string of 1..1024 bytes"));
    CHECK_INT(post("/api/m/W/note", HARNESS_SCORER, "{\"text\":\"x\","
                   "\"cid\":\"\"}"), 400);
    CHECK(says("cid must be a string of 1..128 bytes"));
    /* printable text only: a note is read on terminals (core/text.h) */
    CHECK_INT(post("/api/m/W/note", HARNESS_SCORER,
                   "{\"text\":\"a\\u001b[2J\"}"), 422);
    CHECK(says("a control character (U+001B) at byte 1"));
    /* the rules' refusal names the route, as docs/HTTP.md says (no
     * test failed when a note's said move) */
    CHECK(says("\"where\":\"note\",\"code\":\"invalid\""));
    CHECK_INT(post("/api/m/W/undo", HARNESS_SCORER, "{}"), 400);
    CHECK(says("\"where\":\"seq\""));
    CHECK_INT(post("/api/m/W/undo", HARNESS_SCORER, "{\"seq\":-1}"), 400);
    CHECK_INT(post("/api/m/W/undo", HARNESS_SCORER, "{\"seq\":99}"), 400);
    CHECK_INT(post("/api/m/W/move", HARNESS_SCORER, "{\"text\":\"6S\","
                   "\"verb\":\"place\"}"), 400);
    memset(big, 0, sizeof(big));
    snprintf(big, sizeof(big), "{\"text\":\"");
    memset(big + 9, 'x', 1100);
    strcat(big, "\"}");
    CHECK_INT(post("/api/m/W/move", HARNESS_SCORER, big), 400);
    CHECK(says("\"where\":\"text\""));
    memset(big + 9, 'x', 5000);
    strcat(big, "\"}");
    CHECK_INT(post("/api/m/W/note", HARNESS_SCORER, big), 413);
    CHECK_INT(post("/api/m/W/move", HARNESS_SCORER, "{\"text\":\"place\"}"),
              400);         /* "place needs its card" (422 until 2026-12-06) */
    CHECK_INT(http_get(port, "/api/m/W/move", HARNESS_SCORER, resp,
                       sizeof(resp)), 405);
    CHECK(says("\"code\":\"unsupported\""));
    CHECK(strstr(resp, "allow: POST") != NULL
          || strstr(resp, "Allow: POST") != NULL);
    /* over a limit, the protocol's too_big; the wrong shape, proto */
    {
        char body[400];

        snprintf(body, sizeof(body), "{\"text\":\"4S\",\"cid\":"
                 "\"%0129d\"}", 0);
        CHECK_INT(post("/api/m/W/move", HARNESS_SCORER, body), 400);
        CHECK(says("\"where\":\"cid\",\"code\":\"too_big\""));
        CHECK_INT(post("/api/m/W/move", HARNESS_SCORER,
                       "{\"text\":\"4S\",\"cid\":5}"), 400);
        CHECK(says("\"where\":\"cid\",\"code\":\"proto\""));
    }
    /* Each limit at its edge: 256 bytes an argument, typed or in args,
     * 32 arguments, 34 words typed (a 33rd argument is not dropped, a
     * 35th word not read past the words' array) */
    {
        char   body[800];
        size_t k;

        snprintf(body, sizeof(body), "{\"text\":\"6S %0256d\"}", 0);
        CHECK_INT(post("/api/m/W/judge", HARNESS_SCORER, body), 200);
        CHECK(strstr(http_body(resp), "longer than") == NULL);
        snprintf(body, sizeof(body), "{\"text\":\"6S %0257d\"}", 0);
        CHECK_INT(post("/api/m/W/judge", HARNESS_SCORER, body), 400);
        CHECK(says("argument 2 of the move is longer than 256 bytes"));
        snprintf(body, sizeof(body), "{\"verb\":\"place\",\"player\":"
                 "\"alice\",\"args\":[\"%0257d\"]}", 0);
        CHECK_INT(post("/api/m/W/judge", HARNESS_SCORER, body), 400);
        CHECK(says("\"where\":\"args\",\"code\":\"too_big\""));
        snprintf(body, sizeof(body), "{\"verb\":\"place\",\"player\":"
                 "\"alice\",\"args\":[\"%0256d\"]}", 0);
        CHECK_INT(post("/api/m/W/judge", HARNESS_SCORER, body), 200);
        k = (size_t)snprintf(body, sizeof(body), "{\"verb\":\"place\","
                             "\"player\":\"alice\",\"args\":[\"6S\"");
        for (i = 1; i < 33; i++)
            k += (size_t)snprintf(body + k, sizeof(body) - k, ",\"6S\"");
        snprintf(body + k, sizeof(body) - k, "]}");
        CHECK_INT(post("/api/m/W/move", HARNESS_SCORER, body), 400);
        CHECK(says("\"where\":\"args\",\"code\":\"too_big\""));
        k = (size_t)snprintf(body, sizeof(body), "{\"text\":\"6S");
        for (i = 1; i < 40; i++)
            k += (size_t)snprintf(body + k, sizeof(body) - k, " 6S");
        snprintf(body + k, sizeof(body) - k, "\"}");
        CHECK_INT(post("/api/m/W/move", HARNESS_SCORER, body), 400);
        CHECK(says("too many words (at most 34)"));
    }
    /* a move is text or fields, not both: args beside text are not
     * dropped without a word; an empty argument is none (no test failed
     * when either reached the rules) */
    CHECK_INT(post("/api/m/W/judge", HARNESS_SCORER, "{\"text\":\"6S\","
                   "\"args\":[\"6S\"]}"), 400);
    CHECK(says("\"where\":\"text\""));
    CHECK(says("either text or verb"));
    CHECK_INT(post("/api/m/W/judge", HARNESS_SCORER, "{\"verb\":\"place\","
                   "\"player\":\"alice\",\"args\":[\"6S\",\"\"]}"), 400);
    CHECK(says("\"where\":\"args\""));
    CHECK(says("args[1] must be a string of 1..256 bytes"));
    /* a write reads no query parameter but the token, which it refuses
     * there: any other is named (no test failed when it was dropped) */
    {
        long before = last_seq("W");

        CHECK_INT(post("/api/m/W/note?x=1", HARNESS_SCORER,
                       "{\"text\":\"q\"}"), 400);
        CHECK(says("\"where\":\"query\""));
        CHECK(says("unknown parameter 'x'"));
        CHECK_INT(last_seq("W"), before);
    }
    /* a negative expect is no seq (not a huge one, a 409) */
    CHECK_INT(post("/api/m/W/note", HARNESS_SCORER, "{\"text\":\"x\","
                   "\"expect\":-1}"), 400);
    CHECK(says("\"where\":\"expect\""));
    /* a NUL would cut the text the rules and the log read short */
    CHECK_INT(post("/api/m/W/note", HARNESS_SCORER,
                   "{\"text\":\"a\\u0000b\"}"), 400);
    CHECK(says("\"where\":\"text\""));
    CHECK_INT(post("/api/m/W/undo", HARNESS_SCORER, "{\"seq\":0}"), 400);
    CHECK(says("\"where\":\"seq\""));
    /* a scorer of another match is refused before its move is read:
     * nothing of this match is said to it */
    CHECK_INT(post("/api/m/W/move", HARNESS_LIMITED,
                   "{\"text\":\"carol 6S\"}"), 403);
    CHECK(says("\"where\":\"authorization\""));
    CHECK(strstr(http_body(resp), "alice") == NULL);
    /* any other method on a write route: Allow names POST */
    CHECK_INT(http_raw(port, "PUT /api/m/W/move HTTP/1.1\r\nHost: t\r\n"
                       "Connection: close\r\n\r\n", 58, resp, sizeof(resp)),
              405);
    CHECK(strstr(resp, "allow: POST") != NULL
          || strstr(resp, "Allow: POST") != NULL);
    /* Two lengths (or two tokens): refused, and nothing after them read
     * (until 2026-12-06 libh2o took the first length and ran the rest
     * as a request of its own: here a note the proxy never saw). */
    {
        static const char inner[] = "POST /api/m/W/note HTTP/1.1\r\n"
            "Host: t\r\nAuthorization: Bearer " HARNESS_SCORER "\r\n"
            "Content-Length: 17\r\n\r\n{\"text\":\"smuggled\"}";
        char raw[1024];
        int  k;
        int  n = snprintf(raw, sizeof(raw), "POST /api/m/W/judge HTTP/1.1\r\n"
                          "Host: t\r\nAuthorization: Bearer %s\r\n"
                          "Content-Length: 13\r\nContent-Length: %zu\r\n"
                          "\r\n{\"text\":\"4S\"}%s", HARNESS_SCORER,
                          13 + sizeof(inner) - 1, inner);

        CHECK_INT(http_raw(port, raw, (size_t)n, resp, sizeof(resp)), 400);
        CHECK(says("Content-Length given twice"));
        CHECK(strstr(resp, "smuggled") == NULL);
        n = snprintf(raw, sizeof(raw), "POST /api/m/W/note HTTP/1.1\r\n"
                     "Host: t\r\nAuthorization: Bearer %s\r\n"
                     "Authorization: Bearer %s\r\nContent-Length: 13\r\n"
                     "\r\n{\"text\":\"x1\"}", HARNESS_SCORER,
                     HARNESS_READER);
        CHECK_INT(http_raw(port, raw, (size_t)n, resp, sizeof(resp)), 400);
        CHECK(says("Authorization given twice"));
        /* a length beside chunks: libh2o reads the chunks, a proxy
         * in front may read the length, which here covers a note the
         * proxy takes for a body (until 2026-12-07 it was recorded) */
        n = snprintf(raw, sizeof(raw), "POST /api/m/W/note HTTP/1.1\r\n"
                     "Host: t\r\nAuthorization: Bearer %s\r\n"
                     "Content-Length: %zu\r\nTransfer-Encoding: chunked\r\n"
                     "\r\n0\r\n\r\n%s", HARNESS_SCORER,
                     5 + sizeof(inner) - 1, inner);
        CHECK_INT(http_raw(port, raw, (size_t)n, resp, sizeof(resp)), 400);
        CHECK(says("Content-Length and Transfer-Encoding both given"));
        CHECK(strstr(resp, "smuggled") == NULL);
        CHECK(strstr(resp + 12, "HTTP/1.1") == NULL);
        /* two Transfer-Encoding lines: libh2o reads the last (chunked
         * here), a proxy in front may read the first and take the rest
         * of the connection for the body (until 2026-12-07 recorded) */
        k = last_seq("W");
        n = snprintf(raw, sizeof(raw), "POST /api/m/W/note HTTP/1.1\r\n"
                     "Host: t\r\nAuthorization: Bearer %s\r\n"
                     "Transfer-Encoding: identity\r\n"
                     "Transfer-Encoding: chunked\r\n\r\n"
                     "13\r\n{\"text\":\"te-twice\"}\r\n0\r\n\r\n",
                     HARNESS_SCORER);
        CHECK_INT(http_raw(port, raw, (size_t)n, resp, sizeof(resp)), 400);
        CHECK(says("Transfer-Encoding given twice"));
        CHECK_INT(last_seq("W"), k);
    }
    /* A head whose blank line follows a bare LF ("...\n\r\n", which
     * the parser takes as its end) and a body that takes the input past
     * header_max: answered as the note it is (until 2026-12-07 the head
     * guard saw no end of head in it, and the note was recorded but
     * answered 431 "request line and headers over 4096 bytes"). */
    {
        /* the end "\n\r\n", then a head of bare LFs, its end "\n\n" */
        static const char *const ends[] = { "\r\n", "\n" };
        static char              raw[8192];
        int                      n, k;

        for (k = 0; k < 2; k++) {
            n = snprintf(raw, sizeof(raw), "POST /api/m/only-A/note "
                         "HTTP/1.1\nHost: t\nConnection: close\n"
                         "Authorization: Bearer %s\nContent-Length: 4000\n"
                         "%s{\"text\":\"lf\"}", HARNESS_LIMITED, ends[k]);
            memset(raw + n, ' ', 4000 - 13);
            n += 4000 - 13;
            CHECK_INT(http_raw(port, raw, (size_t)n, resp, sizeof(resp)),
                      200);
            CHECK(says("\"kind\":\"note\""));
            CHECK_INT(last_seq("only-A"), 2 + k);
        }
    }
    /* Two writes pipelined in one send: each answered, in order.  The
     * first's length is looked for in its own head, not in what follows
     * it (a second request naming its length in lowercase, as a client
     * may, was counted as the first's second Content-Length once the
     * scan ran past the end of its head). */
    {
        static char raw[2048];
        const char *p;
        int         n;

        n = snprintf(raw, sizeof(raw), "POST /api/m/only-A/note HTTP/1.1"
                     "\r\nHost: t\r\nAuthorization: Bearer %s\r\n"
                     "Content-Length: 13\r\n\r\n{\"text\":\"p1\"}"
                     "POST /api/m/only-A/note HTTP/1.1\r\nhost: t\r\n"
                     "authorization: Bearer %s\r\nconnection: close\r\n"
                     "content-length: 13\r\n\r\n{\"text\":\"p2\"}",
                     HARNESS_LIMITED, HARNESS_LIMITED);
        CHECK_INT(http_raw(port, raw, (size_t)n, resp, sizeof(resp)), 200);
        p = strstr(resp + 12, "HTTP/1.1 ");
        CHECK(p != NULL && http_status(p) == 200);
        CHECK(strstr(resp, "\"seq\":4") != NULL
              && strstr(resp, "\"seq\":5") != NULL);
        CHECK_INT(last_seq("only-A"), 5);
    }
    CHECK_INT(post("/api/m/W/state", HARNESS_SCORER, "{}"), 405);
    CHECK_INT(post("/api/m/W/nothing", HARNESS_SCORER, "{}"), 405);
    CHECK_INT(last_seq("W"), 5);

    /* Every hand (the scorekeeper's buttons): a scorer's and an
     * arbiter's token only. */
    CHECK_INT(harness_cli("load tests/data/chan-chiu-u.txt"), 0);
    CHECK_INT(http_get(port, "/api/m/CHAN-CHIU-1/state?at=0&hands=1",
                       HARNESS_READER, resp, sizeof(resp)), 403);
    CHECK(says("\"where\":\"hands\""));
    CHECK_INT(http_get(port, "/api/m/CHAN-CHIU-1/state?at=0&hands=1",
                       PLAYER_TOKEN, resp, sizeof(resp)), 403);
    CHECK_INT(http_get(port, "/api/m/CHAN-CHIU-1/state?at=0",
                       HARNESS_SCORER, resp, sizeof(resp)), 200);
    CHECK(strstr(http_body(resp), "hand_cards") == NULL);
    /* a seat is of the token's own match only: an's hand here is not
     * for a token of an in match A (no test held that until 2026-12-07) */
    CHECK_INT(http_get(port, "/api/m/CHAN-CHIU-1/state?at=0",
                       OTHER_PLAYER, resp, sizeof(resp)), 200);
    CHECK(strstr(http_body(resp), "hand_cards") == NULL);
    CHECK_INT(http_get(port, "/api/m/CHAN-CHIU-1/state?at=0&hands=1",
                       HARNESS_SCORER, resp, sizeof(resp)), 200);
    CHECK(says("\"hand_cards\":[\"3V\",\"4V\""));
    CHECK_INT(http_get(port, "/api/m/CHAN-CHIU-1/state?hands=2",
                       HARNESS_SCORER, resp, sizeof(resp)), 400);
    /* hands=0 asks for none: a reader gets its own view, not a 403
     * and not every hand */
    CHECK_INT(http_get(port, "/api/m/CHAN-CHIU-1/state?at=0&hands=0",
                       HARNESS_READER, resp, sizeof(resp)), 200);
    CHECK(strstr(http_body(resp), "hand_cards") == NULL);
    /* a scorer of this match alone sees its hands; one of another
     * match, on this one, is a reader */
    CHECK_INT(http_get(port, "/api/m/CHAN-CHIU-1/state?at=0&hands=1",
                       CHAN_SCORER, resp, sizeof(resp)), 200);
    CHECK(says("\"hand_cards\":[\"3V\",\"4V\""));
    CHECK_INT(http_get(port, "/api/m/CHAN-CHIU-1/state?at=0&hands=1",
                       HARNESS_LIMITED, resp, sizeof(resp)), 403);
    CHECK(says("\"where\":\"hands\""));

    /* A move let stand is undone as a move is (refused until
     * 2026-12-06: "no recorded move"). */
    CHECK_INT(harness_cli("rule --match W stands place alice 6D --reason "
                          "\"out of turn\""), 0);
    CHECK_INT(post("/api/m/W/undo", HARNESS_SCORER, "{\"seq\":6,\"reason\":"
                   "\"wrong card\"}"), 200);
    CHECK_INT(post("/api/m/W/undo", HARNESS_ARBITER, "{\"seq\":6,\"reason\":"
                   "\"stray card\"}"), 200);
    CHECK_INT(http_get(port, "/api/m/W/events?from=7", HARNESS_ARBITER, resp,
                       sizeof(resp)), 200);
    CHECK(says("note undo requested: seq 6 (stands place alice 6D -- out "
               "of turn)"));
    /* a scorer's reason follows the move it names (no test failed when
     * it was dropped) */
    CHECK(says("of turn): wrong card"));
    CHECK(says("void 6 -- stray card"));
    /* an arbiter's undo without a reason says where it came from and
     * whose token sent it (docs/HTTP.md; no test held the text) */
    CHECK_INT(post("/api/m/W/move", HARNESS_SCORER, "{\"text\":\"KD\"}"),
              200);
    CHECK(says("\"seq\":9,"));
    CHECK_INT(post("/api/m/W/undo", HARNESS_ARBITER, "{\"seq\":9}"), 200);
    CHECK(says("\"kind\":\"void\""));
    CHECK_INT(http_get(port, "/api/m/W/events?from=10", HARNESS_ARBITER,
                       resp, sizeof(resp)), 200);
    CHECK(says("\"line\":\"void 9 -- undo at the scorekeeper page of "
               "chief\",\"target\":9,"));

    /* Close, by the arbiter: the match takes no more moves. */
    CHECK_INT(post("/api/m/W/close", HARNESS_ARBITER, "{\"reason\":\"time\"}"),
              200);
    CHECK_INT(post("/api/m/W/move", HARNESS_SCORER, "{\"text\":\"alice 9S\"}"),
              422);
    CHECK_INT(last_seq("W"), 11);

    /* A clean stop: no crash, nothing leaked under ASan. */
    i = harness_stop(SIGTERM);
    CHECK(WIFEXITED(i) && WEXITSTATUS(i) == 0);

    /* A write refused as storage full answers 507 and is counted among
     * the 5xx responses (a mutation that counted none went unnoticed
     * until 2026-12-07: an alert on 5xx would never have fired).  The
     * reserve, 1 TiB, is more than this disk has free. */
    if (statvfs(harness_dir, &fs) == 0
        && (unsigned long long)fs.f_bavail * fs.f_frsize < 1ull << 40
        && prepend_conf("storage_reserve = 1024G\n") == 0) {
        snprintf(req, sizeof(req), "%s/daemon.log", harness_dir);
        CHECK(truncate(req, 0) == 0);   /* the new port is the one said */
        harness_start();
        port = http_log_port(harness_dir);
        CHECK(port > 0);
        CHECK_INT(post("/api/m/only-A/move", HARNESS_LIMITED,
                       "{\"text\":\"bob 7D\"}"), 507);
        CHECK(says("\"code\":\"full\""));
        CHECK_INT(http_get(port, "/metrics", HARNESS_READER, resp,
                           sizeof(resp)), 200);
        CHECK(says("arbiter_http_responses_total{code=\"5xx\"} 1\n"));
        i = harness_stop(SIGTERM);
        CHECK(WIFEXITED(i) && WEXITSTATUS(i) == 0);
    }
    (void)unused;
    harness_done(test_failed_);
    return TEST_END();
}
