/*
 * test_repl_cursor.c - DATA/replicate.pos (daemon/replicate_cursor.c):
 * every form the recorder writes reads back (an earlier version's one
 * line included), and every other text is refused naming its line, so
 * that a damaged cursor stops the daemon instead of skipping events or
 * answering a refused event as replicated.  Until 2026-12-03 the file
 * was read with fscanf, which took "published -1" as 2^64 - 1 and
 * ignored anything after the first line.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/err.h"
#include "daemon/replicate_int.h"
#include "tests/test.h"

/* Parses text; returns the code, with the message in msg. */
static int
parse(arb_repl_cursor_t *c, const char *text, char *msg, size_t cap)
{
    arb_buf_t why = ARB_BUF_INIT;
    int       rc = arb__repl_cursor_parse(c, text, strlen(text), &why);

    snprintf(msg, cap, "%s", arb_buf_cstr(&why) ? arb_buf_cstr(&why) : "");
    arb_buf_free(&why);
    return rc;
}

static void
refused(const char *text, const char *want)
{
    arb_repl_cursor_t c;
    char              msg[256];

    CHECK_INT(parse(&c, text, msg, sizeof(msg)), ARB_ECORRUPT);
    CHECK_STR(msg, want);
    CHECK(c.refused == NULL && c.nrefused == 0);
}

static void
test_forms(void)
{
    arb_repl_cursor_t c;
    char              msg[256];

    /* An earlier version's file. */
    CHECK_INT(parse(&c, "published 42\n", msg, sizeof(msg)), 0);
    CHECK_INT(c.published, 42);
    CHECK_INT(c.walked_ms, 0);
    CHECK_INT(c.nrefused, 0);
    arb__repl_cursor_clear(&c);
    CHECK_INT(parse(&c, "published 18446744073709551615\nwalked "
                        "1764000000000\nrefused 3\nrefused 9\n", msg,
                    sizeof(msg)), 0);
    CHECK(c.published == UINT64_MAX);
    CHECK_INT(c.walked_ms, 1764000000000);
    CHECK_INT(c.nrefused, 2);
    if (c.nrefused == 2) {
        CHECK_INT(c.refused[0], 3);
        CHECK_INT(c.refused[1], 9);
    }
    arb__repl_cursor_clear(&c);
    CHECK_INT(parse(&c, "published 0\nrefused 1\n", msg, sizeof(msg)), 0);
    CHECK_INT(c.nrefused, 1);
    arb__repl_cursor_clear(&c);
    arb__repl_cursor_clear(NULL);

    refused("", "empty");
    refused("published 42", "line 1: no newline at its end");
    refused("published -1\n", "line 1: \"-1\" is not a number");
    refused("published 18446744073709551616\n",
            "line 1: \"18446744073709551616\" is not a number");
    refused("published  42\n", "line 1: \" 42\" is not a number");
    refused("published 42 \n", "line 1: \"42 \" is not a number");
    refused("published \n", "line 1: not \"published POSITION\"");
    refused("walked 5\npublished 42\n",
            "line 1: not \"published POSITION\"");
    refused("published 42\npublished 43\n", "line 2: not \"walked TIME\" "
            "(line 2) or \"refused POSITION\"");
    refused("published 42\nrefused 3\nwalked 5\n", "line 3: not \"walked "
            "TIME\" (line 2) or \"refused POSITION\"");
    refused("published 42\nwalked 0\n", "line 2: not a time");
    refused("published 42\nwalked 9223372036854775808\n",
            "line 2: not a time");
    refused("published 42\nrefused 9\nrefused 9\n",
            "line 3: refused positions must ascend");
    refused("published 42\nrefused 9\nrefused 3\n",
            "line 3: refused positions must ascend");
    refused("published 42\n\n", "line 2: not \"walked TIME\" (line 2) or "
            "\"refused POSITION\"");
    refused("published 42\nrefused 3\nrefused 4", "line 3: no newline at "
            "its end");
}

/* As many refused positions as the recorder keeps read back; one more
 * is refused (the file is then not one it wrote). */
static void
test_most(void)
{
    arb_repl_cursor_t c;
    arb_buf_t         t = ARB_BUF_INIT, why = ARB_BUF_INIT;
    uint64_t          i;

    arb_buf_puts(&t, "published 5\n");
    for (i = 1; i <= ARB_REPL_REFUSED_MAX; i++)
        arb_buf_printf(&t, "refused %" PRIu64 "\n", i);
    CHECK(!t.oom);
    CHECK_INT(arb__repl_cursor_parse(&c, t.data, t.len, &why), 0);
    CHECK_INT(c.nrefused, ARB_REPL_REFUSED_MAX);
    if (c.nrefused == ARB_REPL_REFUSED_MAX)
        CHECK_INT(c.refused[ARB_REPL_REFUSED_MAX - 1], ARB_REPL_REFUSED_MAX);
    arb__repl_cursor_clear(&c);
    arb_buf_printf(&t, "refused %" PRIu64 "\n", i);
    CHECK_INT(arb__repl_cursor_parse(&c, t.data, t.len, &why),
              ARB_ECORRUPT);
    CHECK_STR(arb_buf_cstr(&why), "line 1048578: more than 1048576 refused "
              "positions");
    CHECK(c.refused == NULL && c.nrefused == 0);
    arb_buf_free(&t);
    arb_buf_free(&why);
}

/* What is saved loads back; a missing file is an empty cursor; a
 * damaged one names the file. */
static void
test_file(void)
{
    char              dir[] = "/tmp/arbcursor.XXXXXX", path[64], tmp[80];
    uint64_t          ref[3] = { 5, 6, 70 };
    arb_repl_cursor_t c, back;
    arb_buf_t         why = ARB_BUF_INIT;
    FILE             *f;

    if (mkdtemp(dir) == NULL)
        exit(1);
    snprintf(path, sizeof(path), "%s/replicate.pos", dir);
    CHECK_INT(arb__repl_cursor_load(&back, path, &why), 0);
    CHECK_INT(back.published, 0);
    CHECK(back.refused == NULL);
    memset(&c, 0, sizeof(c));
    c.published = 99;
    c.walked_ms = 1764000000123;
    c.refused = ref;
    c.nrefused = 3;
    CHECK_INT(arb__repl_cursor_save(path, &c), 0);
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    CHECK(access(tmp, F_OK) != 0);             /* renamed over */
    CHECK_INT(arb__repl_cursor_load(&back, path, &why), 0);
    CHECK_INT(back.published, 99);
    CHECK_INT(back.walked_ms, 1764000000123);
    CHECK_INT(back.nrefused, 3);
    if (back.nrefused == 3)
        CHECK(memcmp(back.refused, ref, sizeof(ref)) == 0);
    arb__repl_cursor_clear(&back);
    /* No pass read every subject yet: no walked line, which would have
     * to be a time (a "walked 0" stopped the next start). */
    c.walked_ms = 0;
    CHECK_INT(arb__repl_cursor_save(path, &c), 0);
    CHECK_INT(arb__repl_cursor_load(&back, path, &why), 0);
    CHECK_INT(why.len, 0);      /* nothing said of a good file */
    CHECK_INT(back.published, 99);
    CHECK_INT(back.walked_ms, 0);
    CHECK_INT(back.nrefused, 3);
    arb__repl_cursor_clear(&back);
    f = fopen(path, "w");
    if (f != NULL) {
        fputs("published 99\nrefused x\n", f);
        fclose(f);
    }
    CHECK_INT(arb__repl_cursor_load(&back, path, &why), ARB_ECORRUPT);
    CHECK(strstr(arb_buf_cstr(&why), "/replicate.pos: not a replication "
                 "cursor: line 2: \"x\" is not a number") != NULL);
    arb_buf_free(&why);
    unlink(path);
    rmdir(dir);
}

int
main(void)
{
    test_forms();
    test_most();
    test_file();
    return TEST_END();
}
