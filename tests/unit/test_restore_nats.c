/*
 * test_restore_nats.c - `arbiter restore` over an incomplete stream on a
 * real nats-server (tests/cluster/nats.sh): a match whose first messages
 * were purged is named with its first missing seq, the exit status is 1
 * and nothing is restored, even though another match is complete; after
 * the lost match is gone from the restore (--prefix), it succeeds.  A
 * stream whose last message was deleted restores (arb_stream_next_seq).
 * Reads that pass over a match's last message, or a match's only one
 * (ARBITER_RESTORE_DROP), are refused naming the match.  A stream that
 * grows while it is restored is read up to its last sequence as of the
 * start.
 * Ports: ARB_NATS_PORT_BASE, default 16500.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/err.h"
#include "proto/stream.h"
#include "proto/stream_read.h"
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

/* Runs the restore, its command line after env (variables, or ""); its
 * stderr into out, the exit status returned. */
static int
restore_env(const char *env, const char *urls, const char *extra,
            char *out, size_t cap)
{
    char   line[1024];
    FILE  *f;
    size_t n;
    int    st;

    snprintf(line, sizeof(line), "%sbin/arbiter restore --nats %s --data "
             "%s/r %s 2>&1 >/dev/null", env, urls, dir, extra);
    snprintf(cmd, sizeof(cmd), "%s", line);
    f = popen(cmd, "r");
    if (f == NULL)
        return -1;
    n = fread(out, 1, cap - 1, f);
    out[n] = '\0';
    st = pclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int
restore(const char *urls, const char *extra, char *out, size_t cap)
{
    return restore_env("", urls, extra, out, cap);
}

/* Deletes every consumer of st's stream, as a NATS node that hosted
 * them and was lost would; the number deleted. */
static int
drop_consumers(arb_stream_t *st)
{
    jsConsumerNamesList *l = NULL;
    jsErrCode            jerr = 0;
    int                  i, n = 0;

    if (js_ConsumerNames(&l, st->js, st->name, NULL, &jerr) != NATS_OK)
        return -1;
    for (i = 0; i < l->Count; i++)
        n += js_DeleteConsumer(st->js, st->name, l->List[i], NULL, &jerr)
             == NATS_OK;
    jsConsumerNamesList_Destroy(l);
    return n;
}

/*
 * A reader whose consumer stops delivering while the stream holds more
 * (here it is deleted on the server; a consumer on a replica that lags,
 * or on a node that hangs, does the same) makes it again after
 * ARB_STREAM_STALL_MS and goes on from the message after the last one
 * it delivered.  Until 2026-12-04 only libnats did, after two missed
 * heartbeats (10-20 s; never, for a consumer on a replica that lags and
 * still sends heartbeats), and `arbiter restore` gave up after 10 s.
 * The stream holds 1..9 (10 was deleted); a message not ours is put at
 * 11.
 */
static void
reader_stall(arb_stream_t *st)
{
    arb_stream_reader_t *rd = NULL;
    arb_stream_msg_t     m;
    uint64_t             next = 99;
    int64_t              t0;
    int                  i, rc = 0;

    CHECK_INT(arb_stream_reader_open(&rd, st, NULL, 1, NULL), 0);
    if (rd == NULL)
        return;
    for (i = 1; i <= 9; i++) {
        CHECK_INT(arb_stream_reader_next(rd, &m, 5000, NULL), 0);
        CHECK_INT(m.stream_seq, (uint64_t)i);
        arb_stream_msg_clear(&m);
    }
    /* Its consumer deleted, then a message put (not one of ours: the
     * reader hands out its stream sequence, 11): only a consumer made
     * again delivers it. */
    CHECK(drop_consumers(st) >= 1);
    {
        jsPubAck *ack = NULL;
        jsErrCode jerr = 0;

        CHECK_INT(js_Publish(&ack, st->js, "arbiter.ev.Z", "late", 4, NULL,
                             &jerr), NATS_OK);
        jsPubAck_Destroy(ack);
    }
    t0 = arb_clock_ms();
    do
        rc = arb_stream_reader_next(rd, &m, 250, NULL);
    while (rc == ARB_EAGAIN && arb_clock_ms() - t0 < 25000);
    CHECK_INT(rc, ARB_EPROTO);
    CHECK_INT(m.stream_seq, 11);
    arb_stream_msg_clear(&m);
    /* Made again a second or two after ARB_STREAM_STALL_MS without a
     * message: the first ask comes after ARB_STREAM_ASK_MS. */
    if (arb_clock_ms() - t0 >= ARB_STREAM_STALL_MS + 2500)
        fprintf(stderr, "reader_stall: seq 11 after %lld ms\n",
                (long long)(arb_clock_ms() - t0));
    CHECK(arb_clock_ms() - t0 < ARB_STREAM_STALL_MS + 2500);
    CHECK_INT(arb_stream_reader_remade(rd), 1);
    /* Past the last message, after ARB_STREAM_ASK_MS: the leader says the
     * stream holds nothing more, and nothing is made again. */
    t0 = arb_clock_ms();
    while (!arb_stream_reader_ahead(rd, &next)
           && arb_clock_ms() - t0 < 5000)
        CHECK_INT(arb_stream_reader_next(rd, &m, 250, NULL), ARB_EAGAIN);
    CHECK_INT(arb_stream_reader_ahead(rd, &next), 1);
    CHECK_INT(next, 0);
    i = (int)arb_stream_reader_remade(rd);
    t0 = arb_clock_ms();
    while (arb_clock_ms() - t0 < ARB_STREAM_STALL_MS + 1000)
        arb_stream_reader_next(rd, &m, 250, NULL);
    CHECK_INT(arb_stream_reader_remade(rd), (uint64_t)i);
    arb_stream_reader_close(rd);
}

/*
 * A consumer that passes over messages the stream holds (nats-server put
 * it on a replica lacking them, one catching up after a restart; here it
 * starts 4 sequences late on purpose) is made again from the first one
 * passed over, and every message comes, in order.  A sequence the
 * stream lacks too (10, deleted) is read past without that.  Until
 * 2026-12-05 the reader handed out 5 first: `arbiter restore` then
 * ended with a history cut short, exit status 0 (found by the cluster
 * soak, tests/soak/cluster.sh).  The stream holds 1..9 and 11.
 */
static void
reader_skip(arb_stream_t *st)
{
    static const uint64_t want[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 11 };
    arb_stream_reader_t  *rd = NULL;
    arb_stream_msg_t      m;
    uint64_t              got;
    int64_t               t0;
    size_t                i;
    int                   rc;

    CHECK_INT(arb__stream_reader_open_late(&rd, st, 1, 4, NULL), 0);
    if (rd == NULL)
        return;
    for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        t0 = arb_clock_ms();
        do
            rc = arb_stream_reader_next(rd, &m, 250, NULL);
        while (rc == ARB_EAGAIN && arb_clock_ms() - t0 < 10000);
        CHECK(rc == 0 || (rc == ARB_EPROTO && want[i] == 11));
        CHECK_INT(m.stream_seq, want[i]);
        got = m.stream_seq;
        arb_stream_msg_clear(&m);
        if (got != want[i])
            break;
    }
    CHECK_INT(arb_stream_reader_skips(rd), 1);
    CHECK_INT(arb_stream_reader_remade(rd), 1);
    arb_stream_reader_close(rd);
}

/*
 * A reader opened past the first message (a replica resuming at the
 * `from` it saved) whose consumer starts one late: the message at `from`
 * was passed over too, and comes first.  The reader has delivered
 * nothing yet, so the last one it holds as delivered is from - 1, not
 * from (no test failed when a resumed replica's first message could be
 * passed over without a look).
 */
static void
reader_skip_from(arb_stream_t *st)
{
    arb_stream_reader_t *rd = NULL;
    arb_stream_msg_t     m;
    int64_t              t0;
    int                  rc;

    CHECK_INT(arb__stream_reader_open_late(&rd, st, 3, 1, NULL), 0);
    if (rd == NULL)
        return;
    t0 = arb_clock_ms();
    do
        rc = arb_stream_reader_next(rd, &m, 250, NULL);
    while (rc == ARB_EAGAIN && arb_clock_ms() - t0 < 10000);
    CHECK_INT(rc, 0);
    CHECK_INT(m.stream_seq, 3);
    arb_stream_msg_clear(&m);
    CHECK_INT(arb_stream_reader_skips(rd), 1);
    arb_stream_reader_close(rd);
}

/*
 * A reader of one subject passes over the other subjects' sequences at
 * every message: that is no skip, and its consumer is not made again
 * (the fence look, daemon/replicate_check.c, reads a match this way; no
 * test failed when such a reader took 1..6, L.1's, as passed over and
 * made its consumer again for ever).  K.1 is at 7..9.
 */
static void
reader_subject(arb_stream_t *st)
{
    arb_stream_reader_t *rd = NULL;
    arb_stream_msg_t     m;
    int64_t              t0;
    uint64_t             want;
    int                  rc;

    CHECK_INT(arb_stream_reader_open(&rd, st, "arbiter.ev.K%2E1", 1,
                                     NULL), 0);
    if (rd == NULL)
        return;
    for (want = 7; want <= 9; want++) {
        t0 = arb_clock_ms();
        do
            rc = arb_stream_reader_next(rd, &m, 250, NULL);
        while (rc == ARB_EAGAIN && arb_clock_ms() - t0 < 10000);
        CHECK_INT(rc, 0);
        CHECK_INT(m.stream_seq, want);
        arb_stream_msg_clear(&m);
        if (rc != 0)
            break;
    }
    CHECK_INT(arb_stream_reader_skips(rd), 0);
    CHECK_INT(arb_stream_reader_remade(rd), 0);
    arb_stream_reader_close(rd);
}

/* Publishes seqs [from, to] of ms as match id's messages. */
static void
publish_some(arb_stream_t *st, const char *id, const msgs_t *ms,
             size_t from, size_t to)
{
    size_t i;

    for (i = from; i <= to && i < ms->n; i++) {
        natsMsg  *m = NULL;
        jsPubAck *ack = NULL;
        jsErrCode jerr = 0;

        CHECK_INT(arb_stream_ev_msg(&m, id, i, ms->hash[i], "east",
                                    ms->bytes[i], ms->len[i]), 0);
        CHECK_INT(js_PublishMsg(&ack, st->js, m, NULL, &jerr), NATS_OK);
        jsPubAck_Destroy(ack);
        natsMsg_Destroy(m);
    }
}

/*
 * Every read passes over one message (the test hook
 * ARBITER_RESTORE_DROP=N+, as a consumer on a NATS replica that lacks
 * the stream's Nth message): the chain checks cannot see a match's last
 * message missing, nor a match missing whole, and each match is held to
 * what the stream's leader holds of its subject.  M.1's last message
 * passed over: named by its seq, though M.10, whose id begins with
 * "M.1", was named for a gap of its own first.  M.2's only message, the
 * stream's last, passed over: named by its stream sequence.  (No test
 * failed when the name of M.10 was taken for M.1's, or a match lacking
 * from the read whose first message is the read's last sequence was
 * taken as put after the read began: restored without M.2, exit 0.)
 */
static void
read_short(arb_stream_t *st, const char *urls)
{
    char     out[4096], extra[64], want[160];
    msgs_t   ms;
    uint64_t last = 0, msgs = 0;

    make(&ms, "game: yahchain\nmatch: M.10\nplayers: alice bob\n"
         "mode: 3\n\n1. place alice 4S\n2. place bob 5H\n");
    publish_some(st, "M.10", &ms, 0, 0);
    publish_some(st, "M.10", &ms, 2, 2);            /* seq 1 lost */
    make(&ms, "game: yahchain\nmatch: M.1\nplayers: alice bob\n"
         "mode: 3\n\n1. place alice 4S\n2. place bob 5H\n");
    publish(st, "M.1", &ms);
    make(&ms, "game: yahchain\nmatch: M.2\nplayers: alice bob\n"
         "mode: 3\n\n");
    publish(st, "M.2", &ms);
    CHECK_INT(arb_stream_bounds(st, NULL, &last, &msgs, NULL), 0);

    /* M.1's last message is the stream's last but one. */
    snprintf(extra, sizeof(extra), "--prefix M.");
    snprintf(cmd, sizeof(cmd), "ARBITER_RESTORE_DROP=%llu+ ",
             (unsigned long long)(msgs - 1));
    CHECK_INT(restore_env(cmd, urls, extra, out, sizeof(out)), 1);
    CHECK(strstr(out, "match M.10 seq 1: first missing seq 1") != NULL);
    CHECK(strstr(out, "match M.1 seq 2: the read ended at seq 1 while the "
                 "stream's leader holds seq 2") != NULL);
    CHECK(strstr(out, "match M.2") == NULL);
    /* Z's message not ours, said once for the three reads */
    CHECK(strstr(out, "skipped 1 message arbiter did not write;") != NULL);
    CHECK_INT(sh("rm -rf %s/r.partial", dir, ""), 0);

    snprintf(cmd, sizeof(cmd), "ARBITER_RESTORE_DROP=%llu+ ",
             (unsigned long long)msgs);
    CHECK_INT(restore_env(cmd, urls, extra, out, sizeof(out)), 1);
    snprintf(want, sizeof(want), "match M.2: the stream's leader holds 1 "
             "messages of it from stream sequence %llu on; the read found "
             "none", (unsigned long long)last);
    CHECK(strstr(out, want) != NULL);
    if (strstr(out, want) == NULL)
        fprintf(stderr, "%s", out);
    CHECK(strstr(out, "match M.1 ") == NULL);
    CHECK_INT(sh("rm -rf %s/r.partial", dir, ""), 0);
}

/* Consumers of st's stream. */
static int
consumers(arb_stream_t *st)
{
    jsConsumerNamesList *l = NULL;
    jsErrCode            jerr = 0;
    int                  n;

    if (js_ConsumerNames(&l, st->js, st->name, NULL, &jerr) != NATS_OK)
        return 0;
    n = l->Count;
    jsConsumerNamesList_Destroy(l);
    return n;
}

/*
 * A stream that grows while it is restored (a recorder still writing into
 * a stream fed by several), its last message deleted: the read ends at
 * the last sequence the stream had when the restore began, and a message
 * put after it is not taken (until 2026-12-07 it was, past the sequences
 * the ends of the matches are held to).  G.1's seq 2 is published as
 * soon as the restore's consumer is there: it has read the rest and
 * waits a second before it asks the leader what is left.
 */
static void
read_grows(arb_stream_t *st, const char *urls)
{
    char      out[4096], line[1024];
    msgs_t    ms;
    uint64_t  last = 0;
    jsPubAck *ack = NULL;
    jsErrCode jerr = 0;
    FILE     *f;
    size_t    n;
    int64_t   t0;
    int       rc;

    make(&ms, "game: yahchain\nmatch: G.1\nplayers: alice bob\n"
         "mode: 3\n\n1. place alice 4S\n2. place bob 5H\n");
    publish_some(st, "G.1", &ms, 0, 1);
    CHECK_INT(js_Publish(&ack, st->js, "arbiter.ev.Y", "not ours", 8, NULL,
                         &jerr), NATS_OK);
    jsPubAck_Destroy(ack);
    CHECK_INT(arb_stream_bounds(st, NULL, &last, NULL, NULL), 0);
    CHECK(js_DeleteMsg(st->js, st->name, last, NULL, &jerr) == NATS_OK);
    CHECK_INT(consumers(st), 0);
    snprintf(line, sizeof(line), "bin/arbiter restore --nats %s --data "
             "%s/r --prefix G. 2>&1", urls, dir);
    f = popen(line, "r");
    CHECK(f != NULL);
    if (f == NULL)
        return;
    t0 = arb_clock_ms();
    while (consumers(st) == 0 && arb_clock_ms() - t0 < 10000) {
        struct timespec ts = { 0, 5 * 1000000L };

        nanosleep(&ts, NULL);
    }
    publish_some(st, "G.1", &ms, 2, 2);
    n = fread(out, 1, sizeof(out) - 1, f);
    out[n] = '\0';
    rc = pclose(f);
    CHECK(WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
    snprintf(line, sizeof(line), "(sequences up to %llu) in ",
             (unsigned long long)last);
    CHECK(strstr(out, line) != NULL);
    CHECK(strstr(out, ": 2 events appended") != NULL);
    if (strstr(out, ": 2 events appended") == NULL)
        fprintf(stderr, "%s", out);
    CHECK_INT(sh("rm -rf %s/r", dir, ""), 0);
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
    uint64_t          next = 0;
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

    /* Complete: restored, and no progress drawn into a pipe. */
    CHECK_INT(restore(urls, "", out, sizeof(out)), 0);
    CHECK(strchr(out, '\r') == NULL && strchr(out, '\033') == NULL);
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

    /* What the stream's leader says it holds next (arb_stream_next_seq):
     * L.1 is at 1..6, K.1 at 7..9, the foreign message at 10. */
    {
        int64_t t = 0, now = (int64_t)time(NULL) * 1000000000;

        CHECK_INT(arb_stream_next_seq(st, 1, NULL, &next, &t, NULL), 0);
        CHECK_INT(next, 1);
        /* Its server time, read from the API's RFC 3339: the same as the
         * message's own (js_GetMsg), within the last minute. */
        CHECK(t > now - 60000000000LL && t < now + 60000000000LL);
        CHECK_INT(arb_stream_msg_time(st, 1, &now, NULL), 0);
        CHECK_INT(t, now);
    }
    CHECK_INT(arb_stream_next_seq(st, 2, "arbiter.ev.K%2E1", &next, NULL,
                                  NULL), 0);
    CHECK_INT(next, 7);
    CHECK_INT(arb_stream_next_seq(st, 11, NULL, &next, NULL, NULL), 0);
    CHECK_INT(next, 0);
    CHECK_INT(arb_stream_next_seq(st, 1, "a\"b", &next, NULL, NULL),
              ARB_EINVAL);
    /* An error answer is no "holds none" (the restore would end its read
     * there, and take a match it lacks as put after it): a stream that
     * does not exist, the answer here (no test failed when every error
     * was read as holding none). */
    {
        char name[sizeof(st->name)];

        memcpy(name, st->name, sizeof(name));
        snprintf(st->name, sizeof(st->name), "NOSUCHSTREAM");
        next = 99;
        CHECK(arb_stream_next_seq(st, 1, NULL, &next, NULL, NULL) != 0);
        CHECK_INT(next, 0);
        memcpy(st->name, name, sizeof(name));
    }

    /* The stream's last message deleted: its last sequence stays 10, the
     * messages end at 9.  Until 2026-12-04 the restore waited 10 s for
     * sequence 10 and failed ("stopped delivering at sequence 9 of
     * 10", exit 2); the leader now says nothing is left. */
    CHECK(js_DeleteMsg(st->js, st->name, 10, NULL, &jerr) == NATS_OK);
    CHECK_INT(arb_stream_next_seq(st, 10, NULL, &next, NULL, NULL), 0);
    CHECK_INT(next, 0);
    CHECK_INT(restore(urls, "", out, sizeof(out)), 0);
    if (strstr(out, "skipped") != NULL || strstr(out, "stopped") != NULL)
        fprintf(stderr, "%s", out);
    CHECK(strstr(out, "stopped delivering") == NULL);
    CHECK(strstr(out, "skipped") == NULL);
    CHECK(stat(nd, &sb) == 0);
    CHECK_INT(sh("rm -rf %s/r", dir, ""), 0);

    reader_stall(st);
    reader_skip(st);
    reader_skip_from(st);
    reader_subject(st);

    /* L.1 loses seqs 0..2: only its last 3 messages are kept. */
    jsOptions_Init(&o);
    o.Stream.Purge.Subject = "arbiter.ev.L%2E1";
    o.Stream.Purge.Keep = 3;
    CHECK_INT(js_PurgeStream(st->js, st->name, &o, &jerr), NATS_OK);
    CHECK_INT(restore(urls, "", out, sizeof(out)), 1);
    CHECK(strstr(out, "match L.1 seq 0: first missing seq 0 (the stream "
                 "goes on at seq 3)") != NULL);
    /* K.1 has no problem (it is only warned about: its subject's last
     * message, a stranger's, was deleted above) */
    CHECK(strstr(out, "match K.1 seq") == NULL);
    CHECK(strstr(out, "warning: match K.1: the stream's leader holds 3 "
                 "messages of it but cannot say which is its last") != NULL);
    CHECK(strstr(out, "nothing was restored") != NULL);
    /* Z's subject holds only a message not ours (reader_stall put it
     * there): skipped, as said, and no match is named for it (until
     * 2026-12-07 "match Z: ... the read found none") */
    CHECK(strstr(out, "skipped 1 message arbiter did not write;") != NULL);
    CHECK(strstr(out, "match Z") == NULL);
    /* named once: the read's lack of L.1 is its gap, said already */
    CHECK(strstr(out, "match L.1: the stream's leader holds") == NULL);
    snprintf(nd, sizeof(nd), "%s/r", dir);
    CHECK(stat(nd, &sb) != 0);
    /* the verified part kept in r.partial, as said, to be looked at */
    snprintf(nd, sizeof(nd), "%s/r.partial/data.mdb", dir);
    CHECK(stat(nd, &sb) == 0);
    CHECK_INT(sh("rm -rf %s/r.partial", dir, ""), 0);
    /* The complete match alone restores. */
    CHECK_INT(restore(urls, "--prefix K.", out, sizeof(out)), 0);
    if (strstr(out, "first missing") != NULL)
        fprintf(stderr, "%s", out);
    CHECK_INT(sh("rm -rf %s/r", dir, ""), 0);
    /* The whole prefix, its last byte too: "K" is not "L". */
    CHECK_INT(restore(urls, "--prefix K", out, sizeof(out)), 0);
    CHECK_INT(sh("rm -rf %s/r", dir, ""), 0);
    read_short(st, urls);
    read_grows(st, urls);
done:
    arb_stream_close(st);
    nats_Close();
    sh("sh tests/cluster/nats.sh down %s/nats", dir, "");
    sh("rm -rf %s", dir, "");
    return TEST_END();
}
