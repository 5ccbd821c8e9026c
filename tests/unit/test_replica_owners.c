/*
 * test_replica_owners.c - DATA/replica.owners (daemon/replica_owners.c):
 * the recorder of each match a replica has read, kept across restarts so
 * that a replica resuming the stream still names a match's recorder when
 * it refuses a write to it.  The last line of a match wins; a line that
 * does not read is skipped and counted; a line is written only when the
 * file does not say so already.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/err.h"
#include "daemon/replica_owners.h"
#include "proto/stream.h"
#include "tests/test.h"

static char dir[] = "/tmp/arbowners.XXXXXX";
static char path[64];

static void
write_file(const char *text)
{
    FILE *f = fopen(path, "w");

    if (f == NULL)
        exit(1);
    fputs(text, f);
    fclose(f);
}

static size_t
lines(void)
{
    FILE  *f = fopen(path, "r");
    size_t n = 0;
    int    c;

    if (f == NULL)
        return 0;
    while ((c = fgetc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

static void
test_load(void)
{
    arb_owners_t *o = NULL;
    arb_buf_t     why = ARB_BUF_INIT;
    size_t        skipped = 99;
    char          longl[300];

    /* None yet: empty, and the file is made for appending. */
    CHECK_INT(arb_owners_open(&o, path, &skipped, &why), 0);
    CHECK_INT(skipped, 0);
    CHECK_INT(arb_owners_count(o), 0);
    CHECK(arb_owners_get(o, "E.1") == NULL);
    arb_owners_free(o);
    CHECK(access(path, F_OK) == 0);

    memset(longl, 'x', sizeof(longl));
    longl[sizeof(longl) - 2] = '\n';
    longl[sizeof(longl) - 1] = '\0';
    write_file("E.1 east\nW.1 west\nE.1 north\n"
               "bad line here\nE.2\nE.3 we!st\nE*3 east\n");
    {
        FILE *f = fopen(path, "a");

        if (f == NULL)
            exit(1);
        fputs(longl, f);
        fputs("E.4 east\nE.5 cut", f);
        fclose(f);
    }
    CHECK_INT(arb_owners_open(&o, path, &skipped, &why), 0);
    /* (a match id that is none, E*3, skipped: no test failed when the
     * id went unchecked) */
    CHECK_INT(skipped, 6);
    CHECK_INT(arb_owners_count(o), 3);
    CHECK(arb_owners_get(o, "E*3") == NULL);
    CHECK_STR(arb_owners_get(o, "E.1"), "north");   /* the last line */
    CHECK_STR(arb_owners_get(o, "W.1"), "west");
    CHECK_STR(arb_owners_get(o, "E.4"), "east");
    CHECK(arb_owners_get(o, "E.2") == NULL);
    CHECK(arb_owners_get(o, "E.5") == NULL);
    arb_owners_free(o);

    /* A long line is skipped whole, also where the part past what one
     * read takes reads as a line of its own. */
    memset(longl, 'x', sizeof(longl));
    snprintf(longl + ARB_STREAM_ID_MAX + ARB_STREAM_NAME_MAX + 7,
             sizeof(longl) - ARB_STREAM_ID_MAX - ARB_STREAM_NAME_MAX - 7,
             "E.6 west\n");
    write_file("E.6 east\n");
    {
        FILE *f = fopen(path, "a");

        if (f == NULL)
            exit(1);
        fputs(longl, f);
        fclose(f);
    }
    CHECK_INT(arb_owners_open(&o, path, &skipped, &why), 0);
    CHECK_INT(skipped, 1);
    CHECK_INT(arb_owners_count(o), 1);
    CHECK_STR(arb_owners_get(o, "E.6"), "east");
    arb_owners_free(o);
    arb_buf_free(&why);
}

static void
test_note(void)
{
    arb_owners_t *o = NULL;
    size_t        skipped, before;

    write_file("E.1 east\nW.1 west\n");
    CHECK_INT(arb_owners_open(&o, path, &skipped, NULL), 0);
    before = lines();
    /* Known already: nothing written. */
    arb_owners_note(o, "E.1", "east", 1);
    CHECK_INT(arb_owners_flush(o), 0);
    CHECK_INT(lines(), before);
    /* New, or another recorder, or a change later in this life. */
    arb_owners_note(o, "E.2", "east", 1);
    arb_owners_note(o, "W.1", "south", 1);
    arb_owners_note(o, "W.1", "west", 0);
    CHECK_INT(arb_owners_flush(o), 0);
    CHECK_INT(lines(), before + 3);
    arb_owners_free(o);
    CHECK_INT(arb_owners_open(&o, path, &skipped, NULL), 0);
    CHECK_INT(skipped, 0);
    CHECK_STR(arb_owners_get(o, "E.2"), "east");
    CHECK_STR(arb_owners_get(o, "W.1"), "west");
    /* What an earlier life wrote stays, though not noted again in this
     * one (no test failed when the file was emptied at its open, and a
     * restart's refusals named the configured primary) */
    CHECK_STR(arb_owners_get(o, "E.1"), "east");
    arb_owners_free(o);
    arb_owners_free(NULL);
    CHECK(arb_owners_get(NULL, "E.1") == NULL);
}

int
main(void)
{
    char cmd[96];

    if (mkdtemp(dir) == NULL)
        exit(1);
    snprintf(path, sizeof(path), "%s/replica.owners", dir);
    test_load();
    test_note();
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    if (system(cmd) != 0)
        exit(1);
    return TEST_END();
}
