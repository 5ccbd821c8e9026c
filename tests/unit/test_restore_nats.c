/*
 * test_restore_nats.c - `arbiter restore` over an incomplete stream on a
 * real nats-server (tests/cluster/nats.sh): a match whose first messages
 * were purged is named with its first missing seq, the exit status is 1
 * and nothing is restored, even though another match is complete; after
 * the lost match is gone from the restore (--prefix), it succeeds.
 * Ports: ARB_NATS_PORT_BASE, default 16500.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/err.h"
#include "proto/stream.h"
#include "tests/stream_msgs.h"
#include "tests/test.h"

static char dir[64], cmd[1024];

static int
sh(const char *fmt, const char *a, const char *b)
{
    snprintf(cmd, sizeof(cmd), fmt, a, b);
    return system(cmd);
}

static void
publish(arb_stream_t *st, const char *id, const msgs_t *ms)
{
    size_t   i;
    natsMsg *m = NULL;

    for (i = 0; i < ms->n; i++) {
        jsPubAck *ack = NULL;
        jsErrCode jerr = 0;

        CHECK_INT(arb_stream_ev_msg(&m, id, i, ms->hash[i], "east",
                                    ms->bytes[i], ms->len[i]), 0);
        CHECK_INT(js_PublishMsg(&ack, st->js, m, NULL, &jerr), NATS_OK);
        jsPubAck_Destroy(ack);
        natsMsg_Destroy(m);
    }
}

/* Runs the restore; its stderr into out, the exit status returned. */
static int
restore(const char *urls, const char *extra, char *out, size_t cap)
{
    FILE  *f;
    size_t n;
    int    st;

    snprintf(cmd, sizeof(cmd), "bin/arbiter restore --nats %s --data %s/r "
             "%s 2>&1 >/dev/null", urls, dir, extra);
    f = popen(cmd, "r");
    if (f == NULL)
        return -1;
    n = fread(out, 1, cap - 1, f);
    out[n] = '\0';
    st = pclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int
main(void)
{
    const char       *base = getenv("ARB_NATS_PORT_BASE");
    char              urls[128], out[4096], nd[128];
    msgs_t            ms;
    arb_stream_conf_t conf;
    arb_stream_t     *st = NULL;
    jsOptions         o;
    jsErrCode         jerr = 0;
    struct stat       sb;
    int               port = (base != NULL ? atoi(base) : 16500) + 1;

    snprintf(dir, sizeof(dir), "/tmp/arbrestore.XXXXXX");
    if (mkdtemp(dir) == NULL)
        return 1;
    snprintf(nd, sizeof(nd), "%d", port - 1);
    if (sh("sh tests/cluster/nats.sh up %s/nats 1 %s", dir, nd) != 0) {
        fprintf(stderr, "no nats-server cluster\n");
        CHECK(0);
        goto done;
    }
    snprintf(urls, sizeof(urls), "nats://127.0.0.1:%d", port);
    memset(&conf, 0, sizeof(conf));
    conf.urls = urls;
    CHECK_INT(arb_stream_open(&st, &conf, NULL, NULL, NULL), 0);
    if (st == NULL)
        goto done;
    CHECK_INT(arb_stream_ensure(st, 1, NULL, NULL), 0);
    make(&ms, "game: yahchain\nmatch: L.1\nplayers: alice bob\nmode: 3\n\n"
         "1. place alice 4♠\n2. place bob 5♥\n3. place alice 6♦\n"
         "4. place bob 7S\n5. place alice 7H\n");
    publish(st, "L.1", &ms);
    make(&ms, "game: yahchain\nmatch: K.1\nplayers: alice bob\nmode: 3\n\n"
         "1. place alice 4♠\n2. place bob 5♥\n");
    publish(st, "K.1", &ms);

    /* Complete: restored. */
    CHECK_INT(restore(urls, "", out, sizeof(out)), 0);
    CHECK_INT(sh("rm -rf %s/r", dir, ""), 0);

    /* A message arbiter did not write, last on the stream: skipped and
     * said; every match is whole without it, so the restore succeeds
     * (until 2026-12-04 it refused the whole stream). */
    {
        jsPubAck *ack = NULL;

        CHECK_INT(js_Publish(&ack, st->js, "arbiter.ev.K%2E1", "hello", 5,
                             NULL, &jerr), NATS_OK);
        jsPubAck_Destroy(ack);
    }
    CHECK_INT(restore(urls, "", out, sizeof(out)), 0);
    CHECK(strstr(out, "arbiter restore: skipped 1 message arbiter did not "
                 "write;") != NULL);
    CHECK(strstr(out, "the first: stream message on arbiter.ev.K%2E1: "
                 "header Arbiter-Match missing or not the subject's match "
                 "(stream sequence 10)") != NULL);
    snprintf(nd, sizeof(nd), "%s/r", dir);
    CHECK(stat(nd, &sb) == 0);
    CHECK_INT(sh("rm -rf %s/r", dir, ""), 0);

    /* L.1 loses seqs 0..2: only its last 3 messages are kept. */
    jsOptions_Init(&o);
    o.Stream.Purge.Subject = "arbiter.ev.L%2E1";
    o.Stream.Purge.Keep = 3;
    CHECK_INT(js_PurgeStream(st->js, st->name, &o, &jerr), NATS_OK);
    CHECK_INT(restore(urls, "", out, sizeof(out)), 1);
    CHECK(strstr(out, "match L.1 seq 0: first missing seq 0 (the stream "
                 "goes on at seq 3)") != NULL);
    CHECK(strstr(out, "K.1") == NULL);
    CHECK(strstr(out, "nothing was restored") != NULL);
    snprintf(nd, sizeof(nd), "%s/r", dir);
    CHECK(stat(nd, &sb) != 0);
    CHECK_INT(sh("rm -rf %s/r.partial", dir, ""), 0);
    /* The complete match alone restores. */
    CHECK_INT(restore(urls, "--prefix K.", out, sizeof(out)), 0);
    if (strstr(out, "first missing") != NULL)
        fprintf(stderr, "%s", out);
done:
    arb_stream_close(st);
    nats_Close();
    sh("sh tests/cluster/nats.sh down %s/nats", dir, "");
    sh("rm -rf %s", dir, "");
    return TEST_END();
}
