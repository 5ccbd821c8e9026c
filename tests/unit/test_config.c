/*
 * test_config.c - arbiterd's config and tokens files (daemon/config.c):
 * what loads, and every refusal naming its line.  The refusals here were
 * found by tests/fuzz/fuzz_config.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/err.h"
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
    CHECK(arb_repl_owner(&c.repl, "A-1") == NULL);
    CHECK(arb_repl_owner(&c.repl, "cup.r1") == NULL);
    /* The longest prefix wins: cup.b belongs to venue-b. */
    CHECK_STR(arb_repl_owner(&c.repl, "cup.b7"), "venue-b");
    CHECK_STR(arb_repl_owner(&c.repl, "B-9"), "venue-b");
    CHECK_STR(arb_repl_owner(&c.repl, "Z"), "");
    arb_config_free(&c);
    REFUSED("[replicate]\nurls = nats://a:1\n", 0,
            "[replicate]: recorder (this recorder's name) is required with "
            "urls");
    REFUSED("[replicate]\nowns = A-\n", 0,
            "[replicate]: owns, peer and mode = sync need urls");
    REFUSED("[replicate]\nmode = fast\n", 0,
            "line 2: mode is async or sync");
    REFUSED("[replicate]\nrecorder = a.b\n", 0,
            "line 2: recorder: 'a.b' must be 1..32 of A-Z a-z 0-9 _ -");
    REFUSED("[replicate]\nowns = A* \n", 0,
            "line 2: owns: 'A*' is not a match id prefix (1..64 of A-Z a-z "
            "0-9 _ . @ + -, at most 32)");
    REFUSED("[replicate]\nport = 1\n", 0,
            "line 2: unknown key 'port' in [replicate]");
    REFUSED("[other]\n", 0,
            "line 1: unknown section [other] (the sections are [replicate] "
            "and [replica])");
    REFUSED("[replicate]\n", 1,
            "line 1: a tokens file holds only 'token =' lines");
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
    test_long_line();
    test_replicate();
    unlink(path);
    return TEST_END();
}
