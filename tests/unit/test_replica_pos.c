/*
 * test_replica_pos.c - DATA/replica.pos (daemon/replica_pos.c): what a
 * replica writes reads back; any other text is refused naming its line;
 * and a saved position is used only for the store and the stream it was
 * saved for (a replica that resumed from a position that no longer holds
 * would skip messages it never read).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/err.h"
#include "daemon/replica_pos.h"
#include "tests/test.h"

static const char *good = "stream ARBITER 1796398427367630796\n"
                          "read 69 1796398430000000001\nfrom 60\n"
                          "store 69\n";

static int
parse(arb_replica_pos_t *p, const char *text, char *msg, size_t cap)
{
    arb_buf_t why = ARB_BUF_INIT;
    int       rc = arb_replica_pos_parse(p, text, strlen(text), &why);

    snprintf(msg, cap, "%s", arb_buf_cstr(&why) ? arb_buf_cstr(&why) : "");
    arb_buf_free(&why);
    return rc;
}

static void
refused(const char *text, const char *want)
{
    arb_replica_pos_t p;
    char              msg[256];

    CHECK_INT(parse(&p, text, msg, sizeof(msg)), ARB_ECORRUPT);
    CHECK_STR(msg, want);
}

static void
test_text(void)
{
    arb_replica_pos_t p;
    arb_buf_t         b = ARB_BUF_INIT;
    char              msg[256];

    CHECK_INT(parse(&p, good, msg, sizeof(msg)), 0);
    CHECK_STR(p.stream, "ARBITER");
    CHECK(p.created_ns == 1796398427367630796LL);
    CHECK_INT(p.last, 69);
    CHECK(p.last_ns == 1796398430000000001LL);
    CHECK_INT(p.from, 60);
    CHECK_INT(p.store_pos, 69);
    CHECK_INT(arb_replica_pos_format(&b, &p), 0);
    CHECK_STR(arb_buf_cstr(&b), good);
    arb_buf_free(&b);

    refused("", "line 1: no newline at its end");
    refused("stream ARBITER 1", "line 1: no newline at its end");
    refused("stream ARBITER 1\n", "line 2: not \"read SEQUENCE TIME\"");
    refused("stream ARBITER\nread 1 1\nfrom 1\nstore 0\n",
            "line 1: not \"stream NAME CREATED\"");
    refused("stream AR.B 1\nread 1 1\nfrom 1\nstore 0\n",
            "line 1: not \"stream NAME CREATED\"");
    refused("stream ARBITER -1\nread 1 1\nfrom 1\nstore 0\n",
            "line 1: not \"stream NAME CREATED\"");
    refused("stream ARBITER 9223372036854775808\nread 1 1\nfrom 1\n"
            "store 0\n", "line 1: not \"stream NAME CREATED\"");
    /* A name of ARB_STREAM_NAME_MAX characters reads; one more does not
     * (no test failed when the longest name was refused, and its
     * replica read the whole stream at every start). */
    CHECK_INT(parse(&p, "stream ABCDEFGHIJKLMNOPQRSTUVWXYZ012345 1\n"
                    "read 1 1\nfrom 1\nstore 0\n", msg, sizeof(msg)), 0);
    CHECK_STR(p.stream, "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345");
    refused("stream ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456 1\nread 1 1\n"
            "from 1\nstore 0\n", "line 1: not \"stream NAME CREATED\"");
    /* a NUL in the name (no test failed when the name was read up to
     * it, and a file naming "AR\0B" was taken for stream AR's) */
    {
        static const char nul[] = "stream AR\0B 1\nread 1 1\nfrom 1\n"
                                  "store 0\n";
        arb_buf_t         why = ARB_BUF_INIT;

        CHECK_INT(arb_replica_pos_parse(&p, nul, sizeof(nul) - 1, &why),
                  ARB_ECORRUPT);
        CHECK_STR(arb_buf_cstr(&why), "line 1: not \"stream NAME "
                  "CREATED\"");
        arb_buf_free(&why);
    }
    refused("stream ARBITER 1\nread 0 1\nfrom 1\nstore 0\n",
            "line 2: not \"read SEQUENCE TIME\"");
    /* a time past INT64_MAX (no test failed when one was read as a
     * negative time) */
    refused("stream ARBITER 1\nread 5 9223372036854775808\nfrom 1\n"
            "store 0\n", "line 2: not \"read SEQUENCE TIME\"");
    refused("stream ARBITER 1\nread 5\nfrom 1\nstore 0\n",
            "line 2: not \"read SEQUENCE TIME\"");
    refused("stream ARBITER 1\nread 5 1\nfrom 0\nstore 0\n",
            "line 3: not \"from SEQUENCE\", at most one past the sequence "
            "read");
    refused("stream ARBITER 1\nread 5 1\nfrom 7\nstore 0\n",
            "line 3: not \"from SEQUENCE\", at most one past the sequence "
            "read");
    refused("stream ARBITER 1\nread 5 1\nfrom 6\n",
            "line 4: not \"store POSITION\"");
    refused("stream ARBITER 1\nread 5 1\nfrom 6\nstore 1x\n",
            "line 4: not \"store POSITION\"");
    refused("stream ARBITER 1\nread 5 1\nfrom 6\nstore 1\n\n",
            "line 5: not \"mark SEQUENCE TIME\", past the mark before and "
            "at most the sequence read");
}

/* Places read before L (since 2026-12-04): ascending, at most L, at most
 * ARB_REPLICA_POS_MARKS of them; they read back and print again. */
static void
test_marks(void)
{
    const char *head = "stream ARBITER 1\nread 50 9\nfrom 40\nstore 7\n";
    const char *with = "stream ARBITER 1\nread 50 9\nfrom 40\nstore 7\n"
                       "mark 3 1\nmark 20 4\nmark 50 9\n";
    arb_replica_pos_t p;
    arb_buf_t         b = ARB_BUF_INIT, t = ARB_BUF_INIT;
    char              msg[256];
    int               i;

    CHECK_INT(parse(&p, with, msg, sizeof(msg)), 0);
    CHECK_INT(p.nmarks, 3);
    CHECK_INT(p.mark_seq[0], 3);
    CHECK_INT(p.mark_ns[1], 4);
    CHECK_INT(p.mark_seq[2], 50);
    CHECK_INT(arb_replica_pos_format(&b, &p), 0);
    CHECK_STR(arb_buf_cstr(&b), with);
    arb_buf_printf(&t, "%smark 5 1\nmark 5 2\n", head);
    refused(arb_buf_cstr(&t), "line 6: not \"mark SEQUENCE TIME\", past "
            "the mark before and at most the sequence read");
    t.len = 0;
    arb_buf_printf(&t, "%smark 51 1\n", head);
    refused(arb_buf_cstr(&t), "line 5: not \"mark SEQUENCE TIME\", past "
            "the mark before and at most the sequence read");
    t.len = 0;
    arb_buf_printf(&t, "%smark 1 -1\n", head);
    refused(arb_buf_cstr(&t), "line 5: not \"mark SEQUENCE TIME\", past "
            "the mark before and at most the sequence read");
    t.len = 0;
    arb_buf_printf(&t, "%smark 1\n", head);
    refused(arb_buf_cstr(&t), "line 5: not \"mark SEQUENCE TIME\", past "
            "the mark before and at most the sequence read");
    t.len = 0;
    arb_buf_puts(&t, head);
    for (i = 1; i <= ARB_REPLICA_POS_MARKS; i++)
        arb_buf_printf(&t, "mark %d %d\n", i, i);
    CHECK_INT(parse(&p, arb_buf_cstr(&t), msg, sizeof(msg)), 0);
    CHECK_INT(p.nmarks, ARB_REPLICA_POS_MARKS);
    arb_buf_puts(&t, "mark 49 1\n");
    refused(arb_buf_cstr(&t), "line 15: more than 10 marks");
    arb_buf_free(&t);
    arb_buf_free(&b);
}

static void
test_file(void)
{
    char              dir[] = "/tmp/arbpos.XXXXXX", path[64], cmd[96];
    arb_replica_pos_t p, back;
    arb_buf_t         why = ARB_BUF_INIT;
    FILE             *f;

    if (mkdtemp(dir) == NULL)
        exit(1);
    snprintf(path, sizeof(path), "%s/replica.pos", dir);
    CHECK_INT(arb_replica_pos_load(&back, path, &why), ARB_ENOTFOUND);
    CHECK_INT(parse(&p, good, cmd, sizeof(cmd)), 0);
    CHECK_INT(arb_replica_pos_save(path, &p), 0);
    CHECK_INT(arb_replica_pos_load(&back, path, &why), 0);
    CHECK(memcmp(&back, &p, sizeof(p)) == 0);
    CHECK(access(path, F_OK) == 0);
    snprintf(cmd, sizeof(cmd), "%s.tmp", path);
    CHECK(access(cmd, F_OK) != 0);              /* renamed into place */
    f = fopen(path, "w");
    if (f == NULL)
        exit(1);
    fputs("junk\n", f);
    fclose(f);
    CHECK_INT(arb_replica_pos_load(&back, path, &why), ARB_ECORRUPT);
    CHECK(strstr(arb_buf_cstr(&why), "replica.pos: not a replica position: "
                 "line 1") != NULL);
    f = fopen(path, "w");
    if (f == NULL)
        exit(1);
    for (int i = 0; i < 1000; i++)
        fputc('x', f);
    fclose(f);
    why.len = 0;
    CHECK_INT(arb_replica_pos_load(&back, path, &why), ARB_ECORRUPT);
    CHECK(strstr(arb_buf_cstr(&why), "larger than 716 bytes") != NULL);
    arb_buf_free(&why);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    if (system(cmd) != 0)
        exit(1);
}

/* Used only for the same store (not less than it held) and the same
 * stream (name, creation time, message L at its time). */
static void
test_holds(void)
{
    arb_replica_pos_t p;
    arb_buf_t         why = ARB_BUF_INIT;
    char              msg[64];
    const int64_t     cr = 1796398427367630796LL,
                      lt = 1796398430000000001LL;

    CHECK_INT(parse(&p, good, msg, sizeof(msg)), 0);
    CHECK_INT(arb_replica_pos_holds(NULL, 69, "ARBITER", cr, lt, &why), 0);
    CHECK_INT(arb_replica_pos_holds(&p, 69, "ARBITER", cr, lt, &why), 1);
    CHECK_INT(arb_replica_pos_holds(&p, 500, "ARBITER", cr, lt, &why), 1);
    CHECK_INT(why.len, 0);
    CHECK_INT(arb_replica_pos_holds(&p, 68, "ARBITER", cr, lt, &why), 0);
    CHECK(strstr(arb_buf_cstr(&why), "the store holds less") != NULL);
    why.len = 0;
    CHECK_INT(arb_replica_pos_holds(&p, 69, "OTHER", cr, lt, &why), 0);
    CHECK_STR(arb_buf_cstr(&why), "the position saved is of stream "
              "ARBITER");
    why.len = 0;
    CHECK_INT(arb_replica_pos_holds(&p, 69, "ARBITER", cr + 1, lt, &why),
              0);
    CHECK(strstr(arb_buf_cstr(&why), "was created again") != NULL);
    why.len = 0;
    /* 2: only L is gone (the tail lost: a mark may hold) */
    CHECK_INT(arb_replica_pos_holds(&p, 69, "ARBITER", cr, 0, &why), 2);
    CHECK_STR(arb_buf_cstr(&why), "stream ARBITER no longer holds the "
              "message read here at sequence 69");
    why.len = 0;
    CHECK_INT(arb_replica_pos_holds(&p, 69, "ARBITER", cr, lt + 1, &why),
              2);
    CHECK(strstr(arb_buf_cstr(&why), "(another one is there)") != NULL);
    arb_buf_free(&why);
}

int
main(void)
{
    test_text();
    test_file();
    test_holds();
    test_marks();
    return TEST_END();
}
