/*
 * test_config.c - arbiterd's config and tokens files (daemon/config.c):
 * what loads, and every refusal naming its line.  The refusals here were
 * found by tests/fuzz/fuzz_config.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/ledger/store.h"
#include "daemon/config.h"
#include "tests/test.h"

static char path[64];

/* Loads text as a tokens file (tokens = 1) or a config; the reason of a
 * refusal, without the path prefix, goes to msg. */
static int
load(const char *text, int tokens, arb_config_t *c, char *msg, size_t n)
{
    arb_buf_t why = ARB_BUF_INIT;
    FILE     *f;
    int       rc;

    f = fopen(path, "w");
    if (f == NULL)
        return -100;
    fputs(text, f);
    fclose(f);
    arb_config_defaults(c);
    rc = tokens ? arb_config_load_tokens(c, path, 0, &why)
                : arb_config_load(c, path, &why);
    snprintf(msg, n, "%s", rc != 0 ? arb_buf_cstr(&why) + strlen(path) + 2
                                   : "");
    arb_buf_free(&why);
    return rc;
}

#define REFUSED(text, tokens, want) do {                                 \
        arb_config_t c_;                                                 \
        char         m_[256];                                            \
        CHECK_INT(load(text, tokens, &c_, m_, sizeof(m_)), ARB_EINVAL);  \
        CHECK_STR(m_, want);                                             \
        arb_config_free(&c_);                                            \
    } while (0)

static void
test_tokens(void)
{
    arb_config_t c;
    arb_buf_t    b = ARB_BUF_INIT;
    char         msg[256];
    int          i;

    CHECK_INT(load("token = 0123456789abcdef0123 arbiter chief-arbiter\n"
                   "token = fedcba9876543210fedc scorer table-7 R3-T7 R3.T8\n",
                   1, &c, msg, sizeof(msg)), 0);
    CHECK_INT(c.ntokens, 2);
    CHECK(arb_config_auth(&c, "fedcba9876543210fedc", 20) == &c.tokens[1]);
    CHECK_INT(c.tokens[1].nmatches, 2);
    arb_config_free(&c);

    /* 64 characters is the longest secret, and it authenticates */
    arb_buf_puts(&b, "token = ");
    for (i = 0; i < 64; i++)
        arb_buf_putc(&b, (char)('a' + i % 26));
    arb_buf_puts(&b, " reader press\n");
    arb_buf_cstr(&b);
    CHECK_INT(load(b.data, 1, &c, msg, sizeof(msg)), 0);
    CHECK(c.ntokens == 1 && arb_config_auth(&c, b.data + 8, 64) != NULL);
    arb_config_free(&c);
    b.len = 0;
    arb_buf_puts(&b, "token = ");
    for (i = 0; i < 65; i++)
        arb_buf_putc(&b, 'x');
    arb_buf_puts(&b, " reader press\n");
    REFUSED(arb_buf_cstr(&b), 1,
            "line 1: token secret must be 16..64 characters");

    REFUSED("token = short reader press\n", 1,
            "line 1: token secret must be 16..64 characters");
    REFUSED("# ok\ntoken = 0123456789abcdef0123 reader pr\xfc" "ss\n", 1,
            "line 2: identity 'pr\xfc" "ss' must be 1..64 of A-Z a-z 0-9 "
            "_ . @ + -");
    REFUSED("token = 0123456789abcdef0123 scorer t7 R3/T7\n", 0,
            "line 1: match 'R3/T7' must be 1..64 of A-Z a-z 0-9 _ . @ + -");

    /* 64 matches load; a 65th is refused, not dropped */
    b.len = 0;
    arb_buf_puts(&b, "token = 0123456789abcdef0123 scorer t7");
    for (i = 0; i < 64; i++)
        arb_buf_printf(&b, " M%d", i);
    arb_buf_puts(&b, "\n");
    CHECK_INT(load(arb_buf_cstr(&b), 1, &c, msg, sizeof(msg)), 0);
    CHECK(c.ntokens == 1 && c.tokens[0].nmatches == 64);
    arb_config_free(&c);
    b.len -= 1;
    arb_buf_puts(&b, " M64\n");
    REFUSED(arb_buf_cstr(&b), 1, "line 1: a token lists at most 64 matches");
    arb_buf_free(&b);
}

/* A player token: one seat of one match (docs/VIEWS.md). */
static void
test_player_token(void)
{
    arb_config_t c;
    char         msg[256];

    CHECK_INT(load("token = 0123456789abcdef0123 player p-ann TT-1 ann\n", 1,
                   &c, msg, sizeof(msg)), 0);
    CHECK(c.ntokens == 1 && c.tokens[0].role == ARB_ROLE_PLAYER);
    CHECK(c.ntokens == 1 && c.tokens[0].nmatches == 1
          && strcmp(c.tokens[0].matches[0], "TT-1") == 0);
    CHECK(c.ntokens == 1 && c.tokens[0].seat != NULL
          && strcmp(c.tokens[0].seat, "ann") == 0);
    CHECK_STR(arb_role_name(ARB_ROLE_PLAYER), "player");
    arb_config_free(&c);
    /* a player reads: it ranks above a reader and below a scorer */
    CHECK(ARB_ROLE_READER < ARB_ROLE_PLAYER
          && ARB_ROLE_PLAYER < ARB_ROLE_SCORER);
    REFUSED("token = 0123456789abcdef0123 player p-ann TT-1\n", 1,
            "line 1: a player token names one match and one seat: "
            "token = SECRET player IDENTITY MATCH SEAT");
    REFUSED("token = 0123456789abcdef0123 player p-ann TT-1 ann bob\n", 1,
            "line 1: a player token names one match and one seat: "
            "token = SECRET player IDENTITY MATCH SEAT");
    REFUSED("token = 0123456789abcdef0123 player p-ann TT-1 an/n\n", 1,
            "line 1: seat 'an/n' must be 1..64 of A-Z a-z 0-9 _ . @ + -");
    REFUSED("token = 0123456789abcdef0123 reader press TT-1\n", 1,
            "line 1: only a scorer token lists matches");
}

static void
test_long_line(void)
{
    arb_buf_t b = ARB_BUF_INIT;
    int       i;

    /* Read in pieces, its tail would have been a line of its own. */
    arb_buf_puts(&b, "data = /var/lib/");
    for (i = 0; i < 4100; i++)
        arb_buf_putc(&b, 'd');
    arb_buf_puts(&b, "\nlog_level = debug\n");
    REFUSED(arb_buf_cstr(&b), 0,
            "line 1: longer than 4094 bytes (or holds a NUL byte)");
    arb_buf_free(&b);
}

/* The [replicate] section and the ownership of match ids. */
static void
test_replicate(void)
{
    arb_config_t c;
    char         msg[256];

    /* Off by default: no section, no NATS. */
    CHECK_INT(load("data = x\n", 0, &c, msg, sizeof(msg)), 0);
    CHECK(c.repl.urls == NULL);
    CHECK(arb_repl_owner(&c.repl, "any") == NULL);
    arb_config_free(&c);
    CHECK_INT(load("[replicate]\nurls = nats://a:1,nats://b:2\n"
                   "recorder = venue-a\nmode = sync\nowns = A- cup.\n"
                   "peer = venue-b B- cup.b\ncheck_interval = 0\n", 0, &c,
                   msg, sizeof(msg)), 0);
    CHECK_STR(c.repl.urls, "nats://a:1,nats://b:2");
    CHECK_INT(c.repl.mode, ARB_REPL_SYNC);
    CHECK_INT(c.repl.check_s, 0);
    CHECK_INT(c.repl.check_read, 2000);         /* the default */
    CHECK(arb_repl_owner(&c.repl, "A-1") == NULL);
    CHECK(arb_repl_owner(&c.repl, "cup.r1") == NULL);
    /* The longest prefix wins: cup.b belongs to venue-b. */
    CHECK_STR(arb_repl_owner(&c.repl, "cup.b7"), "venue-b");
    CHECK_STR(arb_repl_owner(&c.repl, "B-9"), "venue-b");
    CHECK_STR(arb_repl_owner(&c.repl, "Z"), "");
    arb_config_free(&c);
    REFUSED("[replicate]\nurls = nats://a:1\n", 0,
            "line 1: [replicate]: recorder (this recorder's name) is "
            "required with urls");
    REFUSED("[replicate]\nowns = A-\n", 0,
            "line 1: [replicate]: owns, peer, mode = sync, max_lag and "
            "max_lag_ms need urls");
    REFUSED("[replicate]\nmax_lag = 100\n", 0,
            "line 1: [replicate]: owns, peer, mode = sync, max_lag and "
            "max_lag_ms need urls");
    REFUSED("[replicate]\nurls = nats://a:1\nrecorder = r\nmode = sync\n"
            "max_lag = 100\n", 0,
            "line 1: [replicate]: max_lag bounds mode = async (in sync mode "
            "every ack waits for the stream)");
    REFUSED("[replicate]\nmax_lag = 100000001\n", 0,
            "line 2: max_lag must be a number from 0 to 100000000");
    REFUSED("[replicate]\nmax_lag_ms = 250\n", 0,
            "line 1: [replicate]: owns, peer, mode = sync, max_lag and "
            "max_lag_ms need urls");
    REFUSED("[replicate]\nurls = nats://a:1\nrecorder = r\nmode = sync\n"
            "max_lag_ms = 250\n", 0,
            "line 1: [replicate]: max_lag_ms bounds mode = async (in sync "
            "mode every ack waits for the stream)");
    REFUSED("[replicate]\nmax_lag_ms = 3600001\n", 0,
            "line 2: max_lag_ms must be a number from 0 to 3600000");
    REFUSED("[replicate]\nmode = fast\n", 0,
            "line 2: mode is async or sync");
    REFUSED("[replicate]\nrecorder = a.b\n", 0,
            "line 2: recorder: 'a.b' must be 1..32 of A-Z a-z 0-9 _ -");
    REFUSED("[replicate]\nowns = A* \n", 0,
            "line 2: owns: 'A*' is not a match id prefix (1..64 of A-Z a-z "
            "0-9 _ . @ + -, at most 32)");
    CHECK_INT(load("[replicate]\nurls = nats://a:1\nrecorder = r\n"
                   "check_read = 0\n", 0, &c, msg, sizeof(msg)), 0);
    CHECK_INT(c.repl.check_read, 0);
    CHECK_INT(c.repl.max_lag, 0);               /* the default: unbounded */
    arb_config_free(&c);
    CHECK_INT(load("[replicate]\nurls = nats://a:1\nrecorder = r\n"
                   "max_lag = 5000\n", 0, &c, msg, sizeof(msg)), 0);
    CHECK_INT(c.repl.max_lag, 5000);
    arb_config_free(&c);
    CHECK_INT(load("[replicate]\nurls = nats://a:1\nrecorder = r\n"
                   "max_lag_ms = 250\nmax_lag = 100\n", 0, &c, msg,
                   sizeof(msg)), 0);
    CHECK_INT(c.repl.max_lag_ms, 250);
    CHECK_INT(c.repl.max_lag, 100);
    arb_config_free(&c);
    REFUSED("[replicate]\ncheck_read = -5\n", 0,
            "line 2: check_read must be a number from 0 to 100000000");
    /* Each number's range, at both ends, and only digits. */
    REFUSED("[replicate]\nmax_pending = 0\n", 0,
            "line 2: max_pending must be a number from 1 to 65536");
    REFUSED("[replicate]\nmax_pending = 65537\n", 0,
            "line 2: max_pending must be a number from 1 to 65536");
    REFUSED("[replicate]\nmax_pending = +5\n", 0,
            "line 2: max_pending must be a number from 1 to 65536");
    REFUSED("[replicate]\ntimeout_ms = 99\n", 0,
            "line 2: timeout_ms must be a number from 100 to 600000");
    REFUSED("[replicate]\nsync_timeout_ms = 600001\n", 0,
            "line 2: sync_timeout_ms must be a number from 100 to 600000");
    REFUSED("[replicate]\nreplicas = 6\n", 0,
            "line 2: replicas must be a number from 0 to 5");
    REFUSED("[replicate]\ncheck_interval = 86401\n", 0,
            "line 2: check_interval must be a number from 0 to 86400");
    CHECK_INT(load("[replicate]\nurls = nats://a:1\nrecorder = r\n"
                   "max_pending = 1\ntimeout_ms = 100\nreplicas = 5\n"
                   "sync_timeout_ms = 600000\n", 0, &c, msg, sizeof(msg)),
              0);
    CHECK_INT(c.repl.max_pending, 1);
    CHECK_INT(c.repl.timeout_ms, 100);
    CHECK_INT(c.repl.replicas, 5);
    CHECK_INT(c.repl.sync_timeout_ms, 600000);
    arb_config_free(&c);
    /* sync mode holds acks for a stream: it needs one */
    REFUSED("[replicate]\nmode = sync\n", 0,
            "line 1: [replicate]: owns, peer, mode = sync, max_lag and "
            "max_lag_ms need urls");
    /* A peer names its prefixes; at most ARB_REPL_PREFIX_MAX prefixes
     * and ARB_REPL_PEER_MAX peers (fixed arrays). */
    REFUSED("[replicate]\npeer = venue-b\n", 0,
            "line 2: peer takes a recorder NAME and its match id PREFIXes "
            "(at most 32 peers)");
    REFUSED("[replicate]\npeer = venue-b ,\n", 0,
            "line 2: peer takes a recorder NAME and its match id PREFIXes "
            "(at most 32 peers)");
    {
        arb_buf_t t = ARB_BUF_INIT;
        int       i;

        arb_buf_puts(&t, "[replicate]\nurls = nats://a:1\nrecorder = r\n"
                     "owns =");
        for (i = 0; i < ARB_REPL_PREFIX_MAX; i++)
            arb_buf_printf(&t, " p%d-", i);
        arb_buf_puts(&t, "\n");
        for (i = 0; i < ARB_REPL_PEER_MAX; i++)
            arb_buf_printf(&t, "peer = v%d q%d-\n", i, i);
        CHECK_INT(load(arb_buf_cstr(&t), 0, &c, msg, sizeof(msg)), 0);
        CHECK_INT(c.repl.nown, ARB_REPL_PREFIX_MAX);
        CHECK_INT(c.repl.npeer, ARB_REPL_PEER_MAX);
        CHECK_STR(arb_repl_owner(&c.repl, "q31-x"), "v31");
        arb_config_free(&c);
        arb_buf_puts(&t, "peer = v32 q32-\n");
        CHECK_INT(load(arb_buf_cstr(&t), 0, &c, msg, sizeof(msg)),
                  ARB_EINVAL);
        CHECK_STR(msg, "line 37: peer takes a recorder NAME and its match "
                  "id PREFIXes (at most 32 peers)");
        arb_config_free(&c);
        t.len = 0;
        arb_buf_puts(&t, "[replicate]\nowns =");
        for (i = 0; i <= ARB_REPL_PREFIX_MAX; i++)
            arb_buf_printf(&t, " p%d-", i);
        arb_buf_puts(&t, "\n");
        CHECK_INT(load(arb_buf_cstr(&t), 0, &c, msg, sizeof(msg)),
                  ARB_EINVAL);
        CHECK_STR(msg, "line 2: owns: 'p32-' is not a match id prefix "
                  "(1..64 of A-Z a-z 0-9 _ . @ + -, at most 32)");
        arb_config_free(&c);
        arb_buf_free(&t);
    }
    REFUSED("[replicate]\nport = 1\n", 0,
            "line 2: unknown key 'port' in [replicate]");
    /* URLs and a credentials file libnats would take and retry for
     * good, saying only "not reachable" (until 2026-12-06) */
    REFUSED("[replicate]\nurls = http://a:4222\n", 0,
            "line 2: urls: 'http://a:4222' is not a NATS URL: "
            "nats://HOST:PORT or tls://HOST:PORT");
    REFUSED("[replicate]\nurls = nats://a:1, nats://\n", 0,
            "line 2: urls: 'nats://' names no host");
    REFUSED("[replicate]\nurls = tls://\n", 0,
            "line 2: urls: 'tls://' names no host");
    REFUSED("[replicate]\nurls = nats://a:99999\n", 0,
            "line 2: urls: 'nats://a:99999': the port must be 1..65535");
    REFUSED("[replicate]\nurls = nats://a b:1\n", 0,
            "line 2: urls: 'nats://a b:1': ' ' in the host name");
    REFUSED("[replicate]\nurls = ,\n", 0,
            "line 2: urls: give at least one nats://HOST:PORT");
    REFUSED("[replicate]\ncredentials = /nonexistent/x.creds\n", 0,
            "line 2: credentials: /nonexistent/x.creds: No such file or "
            "directory");
    REFUSED("[replicate]\ncredentials = /tmp\n", 0,
            "line 2: credentials: /tmp: not a file (NATS credentials)");
    /* The replication key, read as the daemon reads it: its faults
     * stop the start with the line (after it listened, with status 1,
     * until 2026-12-06). */
    {
        arb_config_t c7;
        char         m7[256], kp[64], text[256], want[256];
        FILE        *kf;

        REFUSED("[replicate]\nsecret_key_file = /nonexistent/k\n", 0,
                "line 2: secret_key_file: replication key /nonexistent/k: "
                "No such file or directory");
        snprintf(kp, sizeof(kp), "/tmp/arb-test-config-%d.key",
                 (int)getpid());
        kf = fopen(kp, "w");
        CHECK(kf != NULL);
        if (kf != NULL) {
            fputs("0123456789abcdef0123456789abcdef", kf);
            fclose(kf);
        }
        CHECK_INT(chmod(kp, 0644), 0);
        snprintf(text, sizeof(text), "[replica]\nsecret_key_file = %s\n",
                 kp);
        snprintf(want, sizeof(want), "line 2: [replica] secret_key_file: "
                 "replication key %s: readable by group or others (chmod "
                 "600 it)", kp);
        REFUSED(text, 0, want);
        CHECK_INT(chmod(kp, 0600), 0);
        snprintf(text, sizeof(text), "[replicate]\nurls = nats://a:1\n"
                 "recorder = r\nsecret_key_file = %s\n", kp);
        CHECK_INT(load(text, 0, &c7, m7, sizeof(m7)), 0);
        arb_config_free(&c7);
        kf = fopen(kp, "w");
        if (kf != NULL) {
            fputs("short", kf);
            fclose(kf);
        }
        snprintf(text, sizeof(text), "[replicate]\nsecret_key_file = %s\n",
                 kp);
        snprintf(want, sizeof(want), "line 2: secret_key_file: replication "
                 "key %s: 5 bytes, not 32", kp);
        REFUSED(text, 0, want);
        unlink(kp);
    }
    REFUSED("[replica]\nurls = foo\n", 0,
            "line 2: [replica] urls: 'foo' is not a NATS URL: "
            "nats://HOST:PORT or tls://HOST:PORT");
    REFUSED("[replica]\ncredentials = /nonexistent/y.creds\n", 0,
            "line 2: [replica] credentials: /nonexistent/y.creds: No such "
            "file or directory");
    {
        arb_config_t c6;
        char         m6[256];

        CHECK_INT(load("[replicate]\nurls = nats://a:1, tls://[::1]:4222,"
                       "nats://u:p@h.example:4222\nrecorder = r\n", 0, &c6,
                       m6, sizeof(m6)), 0);
        arb_config_free(&c6);
    }
    REFUSED("[other]\n", 0,
            "line 1: unknown section [other] (the sections are [replicate], "
            "[replica] and [http])");
    REFUSED("[replicate]\n", 1,
            "line 1: a tokens file holds only 'token =' lines");
}

/* The [http] section: its keys, their ranges and defaults, and the
 * refusals naming section, line and key. */
static void
test_http(void)
{
    arb_config_t c;
    char         m[256];

    CHECK_INT(load("data = d\n", 0, &c, m, sizeof(m)), 0);
    CHECK(c.http.listen == NULL);
    CHECK_INT(c.http.public_read, 0);
    CHECK_INT(c.http.max_conns, 256);
    CHECK_INT(c.http.header_max, 4096);
    CHECK_INT(c.http.body_max, 16384);
    CHECK_INT(c.http.header_timeout_ms, 10000);
    CHECK_INT(c.http.write_timeout_ms, 30000);
    CHECK_INT(c.http.stream_max, 1 << 20);
    arb_config_free(&c);
    CHECK_INT(load("data = d\n[http]\nlisten = tcp:127.0.0.1:0\n"
                   "public_read = true\nmax_connections = 9\n"
                   "header_max = 2K\nbody_max = 0\nheader_timeout_ms = 100\n"
                   "write_timeout_ms = 500\n"
                   "stream_max = 16K\nmetrics_listen = tcp:[::1]:9\n", 0,
                   &c, m, sizeof(m)), 0);
    CHECK_STR(c.http.listen, "tcp:127.0.0.1:0");
    CHECK_STR(c.http.metrics_listen, "tcp:[::1]:9");
    CHECK_INT(c.http.public_read, 1);
    CHECK_INT(c.http.max_conns, 9);
    CHECK_INT(c.http.header_max, 2048);
    CHECK_INT(c.http.body_max, 0);
    CHECK_INT(c.http.header_timeout_ms, 100);
    CHECK_INT(c.http.write_timeout_ms, 500);
    CHECK_INT(c.http.stream_max, 16384);
    CHECK_STR(c.data, "d");
    arb_config_free(&c);
    REFUSED("[web]\n", 0, "line 1: unknown section [web] (the sections "
            "are [replicate], [replica] and [http])");
    REFUSED("[http]\ndata = d\n", 0, "line 2: [http] unknown key 'data'");
    REFUSED("[http]\nlisten = unix:/x\n", 0,
            "line 2: [http] listen takes tcp:HOST:PORT (a numeric address)");
    REFUSED("[http]\nmetrics_listen = 9100\n", 0,
            "line 2: [http] metrics_listen takes tcp:HOST:PORT (a numeric "
            "address)");
    /* read as the listener reads it (until 2026-12-06 a host name or a
     * port over 65535 passed, and the start failed later, exit 1) */
    REFUSED("[http]\nlisten = tcp:localhost:80\n", 0,
            "line 2: [http] listen takes tcp:HOST:PORT (a numeric "
            "address): bad address 'tcp:localhost:80': a listener's HOST "
            "is a numeric IPv4 address or an IPv6 one in brackets");
    REFUSED("[http]\nlisten = tcp:127.0.0.1:99999\n", 0,
            "line 2: [http] listen takes tcp:HOST:PORT (a numeric "
            "address): bad address 'tcp:127.0.0.1:99999': the port must be "
            "a number from 0 to 65535");
    REFUSED("[http]\npublic_read = yes\n", 0,
            "line 2: [http] public_read is true or false");
    REFUSED("[http]\nheader_max = 100\n", 0, "line 2: [http] header_max "
            "must be a number from 1024 to 65536 (K/M/G suffixes)");
    REFUSED("[http]\nmax_connections = 0\n", 0, "line 2: [http] "
            "max_connections must be a number from 1 to 65536 (K/M/G "
            "suffixes)");
    REFUSED("[http]\nheader_timeout_ms = 1\n", 0, "line 2: [http] "
            "header_timeout_ms must be a number from 100 to 600000");
    REFUSED("[http]\nwrite_timeout_ms = 499\n", 0, "line 2: [http] "
            "write_timeout_ms must be 0 (off) or a number from 500 to "
            "600000");
    CHECK_INT(load("data = d\n[http]\nwrite_timeout_ms = 0\n", 0, &c, m,
                   sizeof(m)), 0);
    CHECK_INT(c.http.write_timeout_ms, 0);
    arb_config_free(&c);
    /* one secret, one holder (until 2026-12-06 the later line won) */
    REFUSED("token = dup-secret-0123456789 reader a\n"
            "token = dup-secret-0123456789 arbiter b\n", 1,
            "line 2: this token's secret is line 1's too: a secret names "
            "one holder");
    /* a tokens file has no sections */
    REFUSED("[http]\n", 1, "line 1: a tokens file holds only 'token =' "
            "lines");
}

/* Empty values, keys and sections given twice, listen lines and
 * map_max, refused naming file, line and key (until 2026-12-06 `data =`
 * stopped the start with "data directory : Success", the last of two
 * lines won without a word, and a bad listen address was found only when
 * bound: exit 1, naming no line; until 2026-12-08 map_max below map_size
 * named no line). */
static void
test_refusals(void)
{
    arb_config_t c;
    char         m[256];

    REFUSED("data =\n", 0, "line 1: data has no value (leave the line out "
            "for the default)");
    REFUSED("tokens_file =   \n", 0, "line 1: tokens_file has no value "
            "(leave the line out for the default)");
    REFUSED("[http]\nlisten =\n", 0, "line 2: [http] listen has no value "
            "(leave the line out for the default)");
    REFUSED("[replicate]\nurls =\n", 0, "line 2: [replicate] urls has no "
            "value (leave the line out for the default)");
    REFUSED("data = a\n# x\ndata = b\n", 0, "line 3: data given again "
            "(first at line 1)");
    REFUSED("[http]\nlisten = tcp:127.0.0.1:1\nlisten = tcp:127.0.0.1:2\n",
            0, "line 3: [http] listen given again (first at line 2)");
    REFUSED("[http]\npublic_read = true\n[http]\n", 0,
            "line 3: [http] again (first at line 1): one section each");
    REFUSED("listen = tcp:127.0.0.1:0\n", 0, "line 1: listen takes "
            "unix:PATH or tcp:HOST:PORT (a numeric address, port 1 to "
            "65535), at most 4 times: bad address 'tcp:127.0.0.1:0': the "
            "port must be a number from 1 to 65535");
    REFUSED("listen = unix:\n", 0, "line 1: listen takes unix:PATH or "
            "tcp:HOST:PORT (a numeric address, port 1 to 65535), at most 4 "
            "times: 'unix:': a socket path of 1 to 107 bytes");
    REFUSED("map_size = 64M\nmap_max = 16M\n", 0, "line 2: map_max "
            "(16777216) is below map_size (67108864, line 1)");
    REFUSED("map_max = 16M\n", 0, "line 1: map_max (16777216) is below "
            "map_size (67108864, the default)");
    REFUSED("map_max = 16M\ndata = d\nmap_size = 1G\n", 0, "line 1: "
            "map_max (16777216) is below map_size (1073741824, line 3)");
    /* without map_max, map_size is judged against its default here, as
     * the store judges it at its open (until 2026-12-08 only there,
     * naming no line) */
    {
        char text[64], want[160];

        snprintf(text, sizeof(text), "data = d\nmap_size = %zu\n",
                 (size_t)ARB_STORE_MAP_MAX_DEFAULT + 65536);
        snprintf(want, sizeof(want), "line 2: map_size (%zu) is above "
                 "map_max (%zu, the default): set map_max too",
                 (size_t)ARB_STORE_MAP_MAX_DEFAULT + 65536,
                 (size_t)ARB_STORE_MAP_MAX_DEFAULT);
        REFUSED(text, 0, want);
        snprintf(text, sizeof(text), "map_size = %zu\n",
                 (size_t)ARB_STORE_MAP_MAX_DEFAULT);
        CHECK_INT(load(text, 0, &c, m, sizeof(m)), 0);
        arb_config_free(&c);
    }
    /* a suffix carrying the number past 64 bits: out of range, not
     * what is left (until 2026-12-08 2^34 G read as 0 and 2^54+1 K as
     * 1K) */
    REFUSED("storage_reserve = 17179869184G\n", 0, "line 1: "
            "storage_reserve must be a number from 0 to 1099511627776 "
            "(K/M/G suffixes)");
    REFUSED("frame_max = 18014398509481985K\n", 0, "line 1: frame_max "
            "must be a number from 1024 to 16777216 (K/M/G suffixes)");
    REFUSED("[http]\nbody_max = 17592186044416M\n", 0, "line 2: [http] "
            "body_max must be a number from 0 to 1048576 (K/M/G "
            "suffixes)");
    /* a byte-order mark before the first key is no part of it */
    CHECK_INT(load("\xef\xbb\xbf" "data = bom\n", 0, &c, m, sizeof(m)), 0);
    CHECK_STR(c.data, "bom");
    arb_config_free(&c);
    /* what repeats: listen, token */
    CHECK_INT(load("listen = unix:/a\nlisten = tcp:127.0.0.1:7411\n"
                   "token = secret-one-0123456789 reader a\n"
                   "token = secret-two-0123456789 reader b\n", 0, &c, m,
                   sizeof(m)), 0);
    CHECK_INT(c.nlisten, 2);
    CHECK_INT(c.ntokens, 2);
    arb_config_free(&c);
}

/* Every size and number key at its bounds, as config/arbiterd.conf and
 * arbiterd.conf(5) give them: each bound taken, one past it refused
 * naming the line, the key and the range (no test held any bound of the
 * main section, nor stream_max's or body_max's upper one); the suffixes
 * in either case. */
static void
test_limits(void)
{
    static const struct {
        const char        *pre;     /* lines before the key's */
        const char        *key;
        unsigned long long lo, hi;
    } lim[] = {
        { "", "frame_max", 1024, 16u << 20 },
        { "", "auth_timeout_ms", 100, 600000 },
        { "", "stall_timeout_ms", 1000, 3600000 },
        { "", "outq_max", 65536, 1u << 30 },
        { "", "inq_max", 1, 1u << 20 },
        { "", "max_connections", 1, 1u << 20 },
        { "", "batch_max", 1, 1u << 20 },
        { "", "lone_commit", 0, 1 },
        { "map_max = 1024G\n", "map_size", 65536, 1ull << 40 },
        { "map_size = 64K\n", "map_max", 65536, 1ull << 40 },
        { "", "storage_reserve", 0, 1ull << 40 },
        { "[http]\n", "max_connections", 1, 65536 },
        { "[http]\n", "header_max", 1024, 65536 },
        { "[http]\n", "body_max", 0, 1u << 20 },
        { "[http]\n", "stream_max", 16384, 1u << 26 },
    };
    arb_config_t c;
    char         text[128], want[160], m[256];
    size_t       i;

    for (i = 0; i < sizeof(lim) / sizeof(lim[0]); i++) {
        int http = lim[i].pre[0] == '[';

        snprintf(text, sizeof(text), "%s%s = %llu\n", lim[i].pre,
                 lim[i].key, lim[i].lo);
        CHECK_INT(load(text, 0, &c, m, sizeof(m)), 0);
        arb_config_free(&c);
        snprintf(text, sizeof(text), "%s%s = %llu\n", lim[i].pre,
                 lim[i].key, lim[i].hi);
        CHECK_INT(load(text, 0, &c, m, sizeof(m)), 0);
        arb_config_free(&c);
        snprintf(want, sizeof(want), "line %d: %s%s must be a number from "
                 "%llu to %llu (K/M/G suffixes)", lim[i].pre[0] ? 2 : 1,
                 http ? "[http] " : "", lim[i].key, lim[i].lo, lim[i].hi);
        snprintf(text, sizeof(text), "%s%s = %llu\n", lim[i].pre,
                 lim[i].key, lim[i].hi + 1);
        REFUSED(text, 0, want);
        if (lim[i].lo == 0)
            continue;
        snprintf(text, sizeof(text), "%s%s = %llu\n", lim[i].pre,
                 lim[i].key, lim[i].lo - 1);
        REFUSED(text, 0, want);
    }
    /* K, M and G, either case; a sign is no number */
    CHECK_INT(load("frame_max = 64k\noutq_max = 4m\nmap_size = 1g\n"
                   "map_max = 2G\n", 0, &c, m, sizeof(m)), 0);
    CHECK(c.frame_max == 65536 && c.outq_max == 4u << 20
          && c.map_size == 1u << 30 && c.map_max == 2ull << 30);
    /* the replication's largest event is the largest frame */
    CHECK_INT(c.repl.event_max, 65536);
    arb_config_free(&c);
    REFUSED("lone_commit = -0\n", 0, "line 1: lone_commit must be a number "
            "from 0 to 1 (K/M/G suffixes)");
    /* map_max may be map_size */
    CHECK_INT(load("map_size = 1G\nmap_max = 1G\n", 0, &c, m, sizeof(m)),
              0);
    arb_config_free(&c);
}

/* storage_warn, log_format, listen lines, a tokens file's keys, a
 * secret's least length, the last line without its newline and a file
 * that cannot be read (no test held any of them). */
static void
test_values(void)
{
    static const char warn[] = "line 1: storage_warn is 'off' or up to 8 "
                               "ascending percents from 1 to 99 (80 90 95)";
    arb_config_t c;
    char         m[256];

    CHECK_INT(load("storage_warn = 1,2, 3 4 5 6 7 99\n", 0, &c, m,
                   sizeof(m)), 0);
    CHECK(c.nstorage_warn == 8 && c.storage_warn[0] == 1
          && c.storage_warn[7] == 99);
    arb_config_free(&c);
    REFUSED("storage_warn = 1 2 3 4 5 6 7 8 9\n", 0, warn);
    REFUSED("storage_warn = 80 80\n", 0, warn);
    REFUSED("storage_warn = 90 100\n", 0, warn);
    REFUSED("log_format = xml\n", 0, "line 1: log_format is text or json");
    REFUSED("listen = unix:/a\nlisten = unix:/b\nlisten = unix:/c\n"
            "listen = unix:/d\nlisten = unix:/e\n", 0, "line 5: listen "
            "takes unix:PATH or tcp:HOST:PORT (a numeric address, port 1 "
            "to 65535), at most 4 times");
    REFUSED("token = 0123456789abcdef0123 reader a\ndata = d\n", 1,
            "line 2: a tokens file holds only 'token =' lines");
    REFUSED("token = 0123456789abcde reader a\n", 1,
            "line 1: token secret must be 16..64 characters");
    CHECK_INT(load("token = 0123456789abcdef reader a\n", 1, &c, m,
                   sizeof(m)), 0);
    arb_config_free(&c);
    /* CRLF line ends, and a comment after a value */
    CHECK_INT(load("data = d\r\ntokens_file = t # rotated\r\n", 0, &c, m,
                   sizeof(m)), 0);
    CHECK_STR(c.data != NULL ? c.data : "", "d");
    CHECK_STR(c.tokens_file != NULL ? c.tokens_file : "", "t");
    arb_config_free(&c);
    /* a NUL byte refuses its line, the last one too (until 2026-12-08
     * read cut short there, without a newline after it) */
    {
        static const char *const nul[] = { "data = d\0x\nlog_level = info\n",
                                           "log_level = info\ndata = d\0x" };
        static const size_t       len[] = { 28, 27 };
        static const char *const  want[] = { ": line 1: holds a NUL byte",
                                             ": line 2: holds a NUL byte" };
        arb_buf_t why = ARB_BUF_INIT;
        FILE     *f;
        int       k;

        for (k = 0; k < 2; k++) {
            f = fopen(path, "w");
            CHECK(f != NULL);
            if (f == NULL)
                break;
            CHECK_INT(fwrite(nul[k], 1, len[k], f), len[k]);
            fclose(f);
            why.len = 0;
            arb_config_defaults(&c);
            CHECK_INT(arb_config_load(&c, path, &why), ARB_EINVAL);
            CHECK(strstr(arb_buf_cstr(&why), want[k]) != NULL);
            arb_config_free(&c);
        }
        arb_buf_free(&why);
    }
    /* the last line without its newline is a line */
    CHECK_INT(load("data = d", 0, &c, m, sizeof(m)), 0);
    CHECK_STR(c.data != NULL ? c.data : "", "d");
    arb_config_free(&c);
    /* a directory opens, and its read fails: no file of no lines */
    {
        arb_buf_t why = ARB_BUF_INIT;

        arb_config_defaults(&c);
        CHECK_INT(arb_config_load_tokens(&c, "/", 0, &why), ARB_EIO);
        arb_buf_free(&why);
        arb_config_free(&c);
    }
}

/* What a token is: its secret, whole (a secret with a byte more does
 * not authenticate), and its print, which tells a seat from another (a
 * reload keeps a session whose token's print is still held); the
 * tokens file's secret and the configuration's: one holder (no test
 * held any of them). */
static void
test_token_identity(void)
{
    static const char sec[] = "0123456789abcdef0123";
    arb_config_t a, b;
    arb_buf_t    why = ARB_BUF_INIT;
    char         m[256];

    CHECK_INT(load("token = 0123456789abcdef0123 player p TT-1 ann\n", 1,
                   &a, m, sizeof(m)), 0);
    CHECK(arb_config_auth(&a, sec, sizeof(sec) - 1) != NULL);
    CHECK(arb_config_auth(&a, sec, sizeof(sec)) == NULL);
    CHECK_INT(load("token = 0123456789abcdef0123 player p TT-1 bob\n", 1,
                   &b, m, sizeof(m)), 0);
    CHECK(a.ntokens == 1 && arb_config_holds(&a, a.tokens[0].print));
    CHECK(a.ntokens == 1 && !arb_config_holds(&b, a.tokens[0].print));
    arb_config_free(&b);
    /* a config line and a tokens file's line: a secret names one holder
     * (the file holds b's line) */
    CHECK_INT(arb_config_load_tokens(&a, path, 1, &why), ARB_EINVAL);
    CHECK(strstr(arb_buf_cstr(&why), "line 1: this token's secret is also "
                 "given in the configuration file (line 1)") != NULL);
    CHECK_INT(a.ntokens, 1);
    arb_buf_free(&why);
    arb_config_free(&a);
}

/* The digest a reload compares: every key and value but the tokens. */
static void
test_digest(void)
{
    arb_config_t a, b;
    char         m[256];

    CHECK_INT(load("frame_max = 64K\n", 0, &a, m, sizeof(m)), 0);
    CHECK_INT(load("frame_max = 128K\n", 0, &b, m, sizeof(m)), 0);
    CHECK(memcmp(a.file_digest, b.file_digest, sizeof(a.file_digest))
          != 0);
    arb_config_free(&b);
    CHECK_INT(load("frame_max = 64K\n"
                   "token = 0123456789abcdef0123 reader a\n", 0, &b, m,
                   sizeof(m)), 0);
    CHECK(memcmp(a.file_digest, b.file_digest, sizeof(a.file_digest))
          == 0);
    arb_config_free(&b);
    arb_config_free(&a);
}

int
main(void)
{
    int fd;

    snprintf(path, sizeof(path), "/tmp/arbiter-config-XXXXXX");
    fd = mkstemp(path);
    if (fd < 0)
        return 1;
    close(fd);
    test_tokens();
    test_player_token();
    test_long_line();
    test_replicate();
    test_http();
    test_refusals();
    test_limits();
    test_values();
    test_token_identity();
    test_digest();
    unlink(path);
    return TEST_END();
}
