/*
 * test_logs.c - log_format = json: every line one JSON object that a
 * strict parser (core/jsonin.h) accepts, with the eight keys in order,
 * whatever bytes the message holds; the events an operator alerts on
 * (docs/OPERATIONS.md) as the real daemon logs them: auth_failed,
 * storage_nearly_full at each configured threshold, storage_full.
 *
 * The writer is compiled in (daemon/log.c has no other dependency) and
 * its stderr sent to a file; the daemon is the real bin/arbiterd.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/jsonin.h"
#include "daemon/log.c"
#include "daemon/storage.h"
#include "tests/test.h"

static char dir[64];

static const char *const keys[] = { "time", "level", "event", "connection",
                                    "identity", "match", "seq", "msg" };

static char *
slurp(const char *path, size_t *len)
{
    FILE  *f = fopen(path, "rb");
    char  *b;
    long   n;

    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    b = malloc((size_t)n + 1);
    if (b != NULL && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    if (b != NULL)
        b[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return b;
}

/* Parses every line; returns how many, each into v[] (up to max). */
static size_t
parse_lines(char *text, json_t **v, size_t max)
{
    arb_buf_t why = ARB_BUF_INIT;
    char     *line, *save = NULL;
    size_t    n = 0, k;

    for (line = strtok_r(text, "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        json_t     *j = NULL;
        const char *key;
        json_t     *val;
        int         rc = arb_json_parse(&j, line, strlen(line), &why);
        CHECK_INT(rc, 0);
        if (rc != 0) {
            fprintf(stderr, "not JSON (%s): %s\n", arb_buf_cstr(&why), line);
            continue;
        }
        CHECK(json_is_object(j) && json_object_size(j) == 8);
        k = 0;
        json_object_foreach(j, key, val) {
            (void)val;
            if (k < 8)
                CHECK_STR(key, keys[k]);
            k++;
        }
        if (n < max)
            v[n++] = j;
        else
            json_decref(j);
    }
    arb_buf_free(&why);
    return n;
}

static const char *
str_of(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static int64_t
int_of(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);

    return json_is_integer(v) ? (int64_t)json_integer_value(v) : -1;
}

/* stderr into dir/name until capture_end(); the JSON writer at info. */
static int
capture_begin(const char *name, char *path, size_t cap)
{
    int saved, fd;

    snprintf(path, cap, "%s/%s", dir, name);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    saved = dup(STDERR_FILENO);
    dup2(fd, STDERR_FILENO);
    close(fd);
    arb_log_format = ARB_LOG_JSON;
    arb_log_level = ARB_LOG_INFO;
    return saved;
}

static void
capture_end(int saved)
{
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
}

/* The writer itself, on hostile strings. */
static void
test_writer(void)
{
    arb_log_ctx_t ctx;
    json_t       *v[16];
    char          path[128], big[6000], *text;
    size_t        len, n, i;
    int           saved = capture_begin("writer.log", path, sizeof(path));

    memset(&ctx, 0, sizeof(ctx));
    ctx.conn = 7;
    ctx.identity = "bob \"the\" \\ builder";
    ctx.match = "R1-T7";
    ctx.seq = 5;
    ctx.has_seq = 1;
    arb_log_ev(ARB_LOG_WARN, "auth_failed", &ctx, "tab\there nl\nthere "
               "ctl\x01 del\x7f bad\xff\xfe overlong\xc0\xaf "
               "surrogate\xed\xa0\x80 ok\xe2\x99\xa0 emoji\xf0\x9f\x98\x80 "
               "cut\xe2\x82");
    arb_log(ARB_LOG_ERROR, "conn 12 (alice): subscriber 3 cannot keep up "
            "(5 bytes unsent): cut off");
    arb_log(ARB_LOG_INFO, "conn 4: chief as arbiter");
    arb_log(ARB_LOG_WARN, "conn 9: bad token");
    arb_log(ARB_LOG_INFO, "something else entirely");
    arb_log(ARB_LOG_DEBUG, "not shown at info");
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    big[10] = '"';
    arb_log_ev(ARB_LOG_INFO, "long", NULL, "%s%s", big, big);
    arb_log_format = ARB_LOG_TEXT;
    arb_log(ARB_LOG_WARN, "plain %d", 42);
    /* A name from outside cannot forge a line, nor drive a terminal. */
    arb_log(ARB_LOG_WARN, "match %s: gone",
            "X\n2026-12-07T00:00:00.000Z error commit failed\x1b[2J\tok");
    arb_log_format = ARB_LOG_JSON;
    capture_end(saved);

    text = slurp(path, &len);
    CHECK(text != NULL);
    if (text == NULL)
        return;
    /* the text line is last: cut it off before parsing the JSON ones */
    {
        char *last = strrchr(text, '{');
        char *nl = last != NULL ? strchr(last, '\n') : NULL;
        CHECK(nl != NULL && strstr(nl + 1, "Z warn plain 42\n") != NULL &&
              nl[1] == '2');
        CHECK(nl != NULL && strstr(nl + 1, "Z warn match X\\x0a2026-12-07T"
                                   "00:00:00.000Z error commit failed"
                                   "\\x1b[2J\\x09ok: gone\n") != NULL);
        CHECK(nl != NULL && strstr(nl + 1, "\n2026-12-07T00:00:00.000Z")
              == NULL);
        if (nl != NULL)
            nl[1] = '\0';
    }
    n = parse_lines(text, v, 16);
    CHECK_INT(n, 6);
    if (n == 6) {
        CHECK_STR(str_of(v[0], "event"), "auth_failed");
        CHECK_STR(str_of(v[0], "level"), "warn");
        CHECK_INT(int_of(v[0], "connection"), 7);
        CHECK_STR(str_of(v[0], "identity"), "bob \"the\" \\ builder");
        CHECK_STR(str_of(v[0], "match"), "R1-T7");
        CHECK_INT(int_of(v[0], "seq"), 5);
        CHECK_STR(str_of(v[0], "msg"), "tab\there nl\nthere ctl\x01 del\x7f "
                  "bad\xef\xbf\xbd\xef\xbf\xbd overlong\xef\xbf\xbd"
                  "\xef\xbf\xbd surrogate\xef\xbf\xbd\xef\xbf\xbd"
                  "\xef\xbf\xbd ok\xe2\x99\xa0 emoji\xf0\x9f\x98\x80 "
                  "cut\xef\xbf\xbd\xef\xbf\xbd");
        CHECK(strlen(str_of(v[0], "time")) == 24);
        CHECK_STR(str_of(v[1], "event"), "subscriber_cut");
        CHECK_STR(str_of(v[1], "level"), "error");
        CHECK_INT(int_of(v[1], "connection"), 12);
        CHECK_STR(str_of(v[1], "identity"), "alice");
        CHECK(json_is_null(json_object_get(v[1], "match")));
        CHECK(json_is_null(json_object_get(v[1], "seq")));
        CHECK_STR(str_of(v[2], "event"), "auth_ok");
        CHECK_STR(str_of(v[2], "identity"), "chief");
        CHECK_INT(int_of(v[2], "connection"), 4);
        CHECK_STR(str_of(v[3], "event"), "auth_failed");
        CHECK(json_is_null(json_object_get(v[3], "identity")));
        CHECK_STR(str_of(v[4], "event"), "message");
        CHECK(json_is_null(json_object_get(v[4], "connection")));
        CHECK_STR(str_of(v[5], "event"), "long");
        CHECK(strlen(str_of(v[5], "msg")) > 3000);
    }
    for (i = 0; i < n; i++)
        json_decref(v[i]);
    free(text);
    CHECK_INT(arb_log_parse_format("json"), ARB_LOG_JSON);
    CHECK_INT(arb_log_parse_format("text"), ARB_LOG_TEXT);
    CHECK_INT(arb_log_parse_format("xml"), -1);
}

static void *
no_memory(size_t n)
{
    (void)n;
    return NULL;
}

/* Out of memory, a JSON line still leaves whole: its level and event kept,
 * the message replaced; and the writer works again afterwards. */
static void
test_out_of_memory(void)
{
    json_t *v[4];
    char    path[128], *text;
    size_t  len, n, i;
    int     saved = capture_begin("nomem.log", path, sizeof(path));

    json_set_alloc_funcs(no_memory, free);
    arb_log(ARB_LOG_ERROR, "commit failed: %s", "MDB_PANIC");
    arb_log_ev(ARB_LOG_WARN, "Not \"safe\"", NULL, "x");
    json_set_alloc_funcs(malloc, free);
    arb_log(ARB_LOG_ERROR, "commit failed: %s", "again");
    capture_end(saved);

    text = slurp(path, &len);
    CHECK(text != NULL);
    if (text == NULL)
        return;
    n = parse_lines(text, v, 4);
    CHECK_INT(n, 3);
    if (n == 3) {
        CHECK_STR(str_of(v[0], "event"), "commit_failed");
        CHECK_STR(str_of(v[0], "level"), "error");
        CHECK_STR(str_of(v[0], "msg"), "out of memory");
        CHECK(strlen(str_of(v[0], "time")) == 24);
        CHECK_STR(str_of(v[1], "event"), "out_of_memory");
        CHECK_STR(str_of(v[1], "level"), "warn");
        CHECK_STR(str_of(v[2], "msg"), "commit failed: again");
    }
    for (i = 0; i < n; i++)
        json_decref(v[i]);
    free(text);
}

static int
run(const char *cmd)
{
    int rc = system(cmd);

    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* The daemon's own lines, and the alert events it logs. */
static void
test_daemon(void)
{
    json_t   *v[400];
    char      conf[128], logp[128], sock[128], data[128], cmd[4096];
    char     *text, tok[64] = "";
    size_t    len, n, i;
    int       fd, status, auth_failed = 0, warn20 = 0, warn40 = 0;
    int       full = 0, ready = 0, stopped = 0;
    pid_t     pid;
    FILE     *f;

    if (access("bin/arbiterd", X_OK) != 0 || access("bin/arbiter", X_OK)) {
        fprintf(stderr, "bin/arbiterd or bin/arbiter missing: build them\n");
        CHECK(0);
        return;
    }
    snprintf(conf, sizeof(conf), "%s/arbiterd.conf", dir);
    snprintf(logp, sizeof(logp), "%s/daemon.log", dir);
    snprintf(sock, sizeof(sock), "%s/s.sock", dir);
    snprintf(data, sizeof(data), "%s/data", dir);
    f = fopen(conf, "w");
    fprintf(f, "data = %s\nlisten = unix:%s\nlog_format = json\n"
            "map_size = 64K\nmap_max = 256K\nstorage_warn = 20, 40\n",
            data, sock);
    fclose(f);
    pid = fork();
    if (pid == 0) {
        fd = open(logp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(fd, STDERR_FILENO);
        execl("bin/arbiterd", "arbiterd", "--config", conf, (char *)NULL);
        _exit(127);
    }
    for (i = 0; i < 200 && access(sock, F_OK) != 0; i++)
        usleep(20000);
    CHECK(access(sock, F_OK) == 0);
    snprintf(cmd, sizeof(cmd), "awk '$4 == \"arbiter\" { print $3 }' "
             "%s/tokens", data);
    f = popen(cmd, "r");
    if (f != NULL) {
        if (fgets(tok, sizeof(tok), f) != NULL)
            tok[strcspn(tok, "\n")] = '\0';
        pclose(f);
    }
    snprintf(cmd, sizeof(cmd), "bin/arbiter stats --server unix:%s "
             "--token not-a-token-at-all-0000 > /dev/null 2>&1", sock);
    CHECK_INT(run(cmd), 2);     /* refused at authentication */
    snprintf(cmd, sizeof(cmd), "bin/arbiter open --server unix:%s --token %s "
             "--match M --game yahchain --players a,b --option mode=3 "
             "> /dev/null", sock, tok);
    CHECK_INT(run(cmd), 0);
    /* 3 KB notes until the 256 KB map is full */
    for (i = 0; i < 200; i++) {
        snprintf(cmd, sizeof(cmd), "bin/arbiter note --server unix:%s "
                 "--token %s --match M \"$(head -c 3000 /dev/zero | tr "
                 "'\\0' x)\" > /dev/null 2>&1", sock, tok);
        if (run(cmd) != 0)
            break;
    }
    CHECK(i > 10 && i < 200);
    usleep(1300000);        /* one more tick of the storage check */
    kill(pid, SIGTERM);
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    text = slurp(logp, &len);
    CHECK(text != NULL);
    if (text == NULL)
        return;
    n = parse_lines(text, v, 400);
    CHECK(n > 10);
    for (i = 0; i < n; i++) {
        const char *ev = str_of(v[i], "event"), *msg = str_of(v[i], "msg");
        if (ev == NULL || msg == NULL)
            continue;
        if (strcmp(ev, "auth_failed") == 0 &&
            int_of(v[i], "connection") > 0)
            auth_failed++;
        /* The map's warnings only: the filesystem's depend on how full
         * the machine's disk happens to be. */
        if (strcmp(ev, "storage_nearly_full") == 0 &&
            strcmp(str_of(v[i], "level"), "warn") == 0 &&
            strncmp(msg, "LMDB map", 8) == 0) {
            warn20 += strstr(msg, "past the 20% warning") != NULL;
            warn40 += strstr(msg, "past the 40% warning") != NULL;
        }
        if (strcmp(ev, "storage_full") == 0 &&
            strcmp(str_of(v[i], "level"), "error") == 0)
            full++;
        ready += strcmp(ev, "ready") == 0;
        stopped += strcmp(ev, "stopped") == 0;
        json_decref(v[i]);
    }
    CHECK_INT(auth_failed, 1);
    CHECK_INT(warn20, 1);
    CHECK_INT(warn40, 1);
    CHECK_INT(full, 1);
    CHECK_INT(ready, 1);
    CHECK_INT(stopped, 1);
    free(text);
}

/* The thresholds a percent has reached: one it equals is reached (no
 * test failed when a map exactly at a threshold was under it, its
 * warning left to the next percent). */
static void
test_level(void)
{
    static const unsigned thr[] = { 20, 40, 90 };

    CHECK_INT(arb_storage_level(0, thr, 3), 0);
    CHECK_INT(arb_storage_level(19, thr, 3), 0);
    CHECK_INT(arb_storage_level(20, thr, 3), 1);
    CHECK_INT(arb_storage_level(39, thr, 3), 1);
    CHECK_INT(arb_storage_level(40, thr, 3), 2);
    CHECK_INT(arb_storage_level(90, thr, 3), 3);
    CHECK_INT(arb_storage_level(100, thr, 3), 3);
    CHECK_INT(arb_storage_level(100, thr, 0), 0);
}

int
main(void)
{
    char cmd[128];

    snprintf(dir, sizeof(dir), "/tmp/arb_logs_XXXXXX");
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    test_level();
    test_writer();
    test_out_of_memory();
    test_daemon();
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return TEST_END();
}
