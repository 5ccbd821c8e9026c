/*
 * test_repl_retry.c - an event whose publish failed is sent again only
 * over what the stream holds now, and acked only for what it holds
 * (daemon/replicate.c: resync_match; deals, dup_held_locked).
 *
 * Sync mode answers a held ack as replicated once the cursor has passed
 * its position and that position was not refused (replicate_loop.c,
 * drain); the thread moves the cursor over an event only once the
 * stream acked it, found it, or it was refused.  In each case a match's
 * seqs 0..2 are published; seq 3's publish fails (the stream's
 * max_msg_size set below its size), and while it waits for its retry
 * another recorder's seq 3 (another hash, the same message id: an older
 * copy of this recorder would write it so) goes to the subject; then the
 * stream takes the size again.
 *   - h: the other seq 3 ends the subject.  The retry's resync finds it:
 *     the match is fenced (diverged, logged naming match and seq), seq
 *     3's position refused (its sync ack "unreplicated"), nothing of
 *     ours put on top.  With the resync's hash compare dropped, seq 3
 *     was acked as replicated over the other history.
 *   - d: the other seq 3 was deleted: the retry's message id is a
 *     duplicate the stream no longer holds.  Seq 3 goes again without
 *     the id and passes as published once the subject ends on it, with
 *     its hash.
 *   - f: the other seq 3 is followed by more messages arbiter did not
 *     write than the resync looks past (the retry then goes without
 *     comparing) and its id is a duplicate of the other seq 3: refused
 *     and fenced.
 *   - g: the other seq 3, under an id of its own (as any past the
 *     duplicate window), is followed by as many messages arbiter did not
 *     write as the resync looks past (ARB_REPL_FOREIGN_MAX), 40 of
 *     another subject among them: the resync holds the last message of
 *     ours before them to the log, and fences the match as in h.
 *   - p: as g, with the other's seq 4, past the log: fenced as ahead.
 *   - k: our own seq 2 is followed by such a message: seq 3 goes after
 *     it, expecting it, and passes as published, the match not fenced.
 * Until 2026-12-07 a duplicate's PubAck counted as published: d and f
 * were acked as replicated with the stream lacking their seq 3; and g's
 * seq 3 went after the foreign message, acked as replicated with the
 * subject holding two seq 3s (until a pass).  A real nats-server
 * (skipped without one).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nats/nats.h>

#include "core/buf.h"
#include "core/clock.h"
#include "core/err.h"
#include "daemon/server.h"
#include "tests/repl_harness.h"
#include "tests/test.h"

/* {"k": 1}, and {"k": 600 x's}: the one the stream refuses for size. */
static const unsigned char small[] = { 0x81, 0xa1, 0x6b, 0x01 };
static unsigned char       big[606];
#define MAX_SIZE 450

/* Event seq of match id into the log (bytes b); its position. */
static uint64_t
append_one(const char *id, uint64_t seq, const unsigned char *b, size_t n)
{
    arb_append_t v;

    memset(&v, 0, sizeof(v));
    v.match_id = id;
    v.game = "yahchain";
    v.seq = seq;
    v.time_ms = arb_clock_ms();
    v.bytes = b;
    v.len = n;
    if (arb_store_append_batch(store, &v, 1, NULL) != 0)
        return 0;
    return v.pos;
}

/* The last message of match id's subject into *m (cleared by the
 * caller); 0 or an ARB_E* code. */
static int
stream_last(arb_repl_t *r, const char *id, arb_stream_msg_t *m)
{
    arb_buf_t why = ARB_BUF_INIT;
    char      subj[200];
    int       rc;

    memset(m, 0, sizeof(*m));
    rc = arb_stream_subject(subj, sizeof(subj), ARB_STREAM_EV, id);
    if (rc == 0)
        rc = arb_stream_last(r->s, subj, m, &why);
    arb_buf_free(&why);
    return rc;
}

/* The stream's max_msg_size set to n; 0 when the server took it. */
static int
max_size(arb_repl_t *r, int32_t n)
{
    jsStreamInfo  *si = NULL;
    jsStreamConfig cfg;
    jsErrCode      jerr = 0;
    natsStatus     s;

    if (js_GetStreamInfo(&si, r->s->js, r->s->name, NULL, &jerr)
        != NATS_OK)
        return -1;
    cfg = *si->Config;
    cfg.MaxMsgSize = n;
    s = js_UpdateStream(NULL, r->s->js, &cfg, NULL, &jerr);
    jsStreamInfo_Destroy(si);
    return s == NATS_OK ? 0 : -1;
}

/* Another recorder's event seq of match id (its own hash; our message
 * id, or with own_id one of its own, which the duplicate window does not
 * tie to ours) into the stream; its stream sequence, or 0. */
static uint64_t
other_seq(arb_repl_t *r, const char *id, uint64_t seq, int own_id)
{
    unsigned char other[ARB_HASH_LEN];
    natsMsg      *msg = NULL;
    jsPubAck     *pa = NULL;
    jsErrCode     jerr = 0;
    uint64_t      sseq = 0;
    char          mid[200];

    memset(other, 0x5a, sizeof(other));
    if (arb_stream_ev_msg(&msg, id, seq, other, "elsewhere", small,
                          sizeof(small)) != 0)
        return 0;
    snprintf(mid, sizeof(mid), "elsewhere/%s/%llu", id,
             (unsigned long long)seq);
    if (own_id)
        natsMsgHeader_Set(msg, "Nats-Msg-Id", mid);
    if (js_PublishMsg(&pa, r->s->js, msg, NULL, &jerr) == NATS_OK
        && !pa->Duplicate)
        sseq = pa->Sequence;
    jsPubAck_Destroy(pa);
    natsMsg_Destroy(msg);
    return sseq;
}

static uint64_t
stat_of(arb_repl_t *r, const uint64_t *field)
{
    uint64_t v;

    pthread_mutex_lock(&r->mu);
    v = *field;
    pthread_mutex_unlock(&r->mu);
    return v;
}

/* Seqs 0..2 of match id logged and published, then seq 3 logged and its
 * publish failed at least once; *pos3 its position.  The replicator, or
 * NULL. */
static arb_repl_t *
failed_seq3(const char *id, uint64_t *pos3)
{
    arb_repl_t *r;
    uint64_t    head = 0, errors, s;
    int         i;

    for (s = 0; s <= 2; s++)
        head = append_one(id, s, small, sizeof(small));
    CHECK(head > 0);
    r = repl_start(head);
    CHECK(r != NULL);
    if (r == NULL)
        return NULL;
    for (i = 0; i < 400 && cursor_of(r, NULL) < head; i++)
        sleep_ms(10);
    CHECK_INT(cursor_of(r, NULL), head);
    CHECK_INT(max_size(r, MAX_SIZE), 0);
    errors = stat_of(r, &r->st.errors);
    *pos3 = append_one(id, 3, big, sizeof(big));
    CHECK(*pos3 > head);
    committed(r, *pos3);
    for (i = 0; i < 500 && stat_of(r, &r->st.errors) == errors; i++)
        sleep_ms(10);
    CHECK(stat_of(r, &r->st.errors) > errors);      /* it failed */
    CHECK(cursor_of(r, NULL) < *pos3);
    return r;
}

/* The recorder's log lines (stderr) into file name under root, path its
 * path; the saved stderr, for said(). */
static int
capture(const char *name, char *path, size_t n)
{
    int fd, err = dup(STDERR_FILENO);

    snprintf(path, n, "%s/%s", root, name);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0 && err >= 0);
    dup2(fd, STDERR_FILENO);
    close(fd);
    return err;
}

/* stderr back (err, from capture()); 1 when a line in path reports
 * match id's seq (its words: "seq 3"), and why (the lines, checks' too,
 * go on to stderr). */
static int
said(int err, const char *path, const char *id, const char *seq,
     const char *why)
{
    char  line[1024], what[64];
    FILE *f;
    int   found = 0;

    fflush(stderr);
    dup2(err, STDERR_FILENO);
    close(err);
    snprintf(what, sizeof(what), "match %s:", id);
    if ((f = fopen(path, "r")) != NULL) {
        while (fgets(line, sizeof(line), f) != NULL
               && fputs(line, stderr) >= 0)
            found |= strstr(line, what) != NULL
                     && strstr(line, seq) != NULL
                     && strstr(line, why) != NULL;
        fclose(f);
    }
    return found;
}

/* A message arbiter did not write onto match id's subject; its stream
 * sequence, or 0. */
static uint64_t
foreign(arb_repl_t *r, const char *id)
{
    natsMsg  *msg = NULL;
    jsPubAck *pa = NULL;
    jsErrCode jerr = 0;
    char      subj[200];
    uint64_t  sseq = 0;

    if (arb_stream_subject(subj, sizeof(subj), ARB_STREAM_EV, id) == 0
        && natsMsg_Create(&msg, subj, NULL, "junk", 4) == NATS_OK
        && js_PublishMsg(&pa, r->s->js, msg, NULL, &jerr) == NATS_OK)
        sseq = pa->Sequence;
    jsPubAck_Destroy(pa);
    natsMsg_Destroy(msg);
    return sseq;
}

/* Lets the stream take seq 3 again (max_size), waits for the thread
 * to pass it and checks that it passed it as refused (its sync ack is
 * answered unreplicated) and fenced match. */
static void
passed_refused(arb_repl_t *r, const char *match, uint64_t pos3)
{
    static arb_server_t srv;
    arb_buf_t           why = ARB_BUF_INIT;
    int                 i;

    CHECK_INT(max_size(r, -1), 0);
    for (i = 0; i < 500 && cursor_of(r, NULL) < pos3; i++)
        sleep_ms(10);
    CHECK_INT(cursor_of(r, NULL), pos3);
    pthread_mutex_lock(&r->mu);
    CHECK(arb__repl_refused_locked(r, pos3, pos3));
    pthread_mutex_unlock(&r->mu);
    srv.repl = r;
    CHECK_STR(arb_repl_fenced(&srv, match, &why), "fenced");
    arb_buf_free(&why);
}

/* The retry meets another writer's seq 3: fenced, refused, reported. */
static void
test_other_at_seq(void)
{
    arb_repl_t         *r;
    arb_stream_msg_t    m;
    arb_buf_t           why = ARB_BUF_INIT;
    unsigned char       h3[ARB_HASH_LEN];
    uint64_t            pos3 = 0, diverged, refused;
    int                 err;
    char                path[300];

    /* The recorder's log lines into a file, to find the report. */
    err = capture("other.log", path, sizeof(path));
    if ((r = failed_seq3("h", &pos3)) == NULL)
        goto out;
    diverged = stat_of(r, &r->st.diverged);
    refused = stat_of(r, &r->st.refused);
    CHECK(other_seq(r, "h", 3, 0) > 0);
    passed_refused(r, "h", pos3);
    CHECK_INT(stat_of(r, &r->st.refused), refused + 1);
    CHECK_INT(stat_of(r, &r->st.diverged), diverged + 1);
    /* The subject still ends on the other seq 3. */
    sleep_ms(200);
    CHECK_INT(stream_last(r, "h", &m), 0);
    CHECK_INT(m.seq, 3);
    CHECK_INT(arb__repl_log_hash(r, "h", 3, h3, &why), 1);
    CHECK(memcmp(m.hash, h3, ARB_HASH_LEN) != 0);
    arb_stream_msg_clear(&m);
    arb__repl_thread_stop(r);
    repl_free(r);
out:
    /* Reported, naming the match and the seq. */
    CHECK(said(err, path, "h", "seq 3", "another hash"));
    arb_buf_free(&why);
}

/* Lines of the log at path holding needle. */
static int
lines_with(const char *path, const char *needle)
{
    char  line[1024];
    FILE *f = fopen(path, "r");
    int   n = 0;

    while (f != NULL && fgets(line, sizeof(line), f) != NULL)
        n += strstr(line, needle) != NULL;
    if (f != NULL)
        fclose(f);
    return n;
}

/* The retry's message id is a duplicate of a message deleted since: seq
 * 3 passes as published only once the subject ends on it.  Its resend
 * is said once (replicate_duplicate), not as a failure of NATS: until
 * 2026-12-07 it was also logged as the error "nats: publish: Error". */
static void
test_dup_of_deleted(void)
{
    arb_repl_t      *r;
    arb_stream_msg_t m;
    arb_buf_t        why = ARB_BUF_INIT;
    unsigned char    h3[ARB_HASH_LEN];
    uint64_t         pos3 = 0, sseq;
    jsErrCode        jerr = 0;
    char             path[300];
    int              i, refused, err;

    if ((r = failed_seq3("d", &pos3)) == NULL)
        return;
    sseq = other_seq(r, "d", 3, 0);
    CHECK(sseq > 0);
    CHECK(js_DeleteMsg(r->s->js, r->s->name, sseq, NULL, &jerr)
          == NATS_OK);
    err = capture("dup.log", path, sizeof(path));
    CHECK_INT(max_size(r, -1), 0);
    for (i = 0; i < 500 && cursor_of(r, NULL) < pos3; i++)
        sleep_ms(10);
    /* Published (without the id the duplicate window holds), not put
     * off until the window forgets it. */
    CHECK_INT(cursor_of(r, NULL), pos3);
    pthread_mutex_lock(&r->mu);
    refused = arb__repl_refused_locked(r, pos3, pos3);
    pthread_mutex_unlock(&r->mu);
    CHECK(!refused);
    /* Passed as published: the stream holds it. */
    CHECK_INT(stream_last(r, "d", &m), 0);
    CHECK_INT(m.seq, 3);
    CHECK_INT(arb__repl_log_hash(r, "d", 3, h3, &why), 1);
    CHECK(memcmp(m.hash, h3, ARB_HASH_LEN) == 0);
    arb_stream_msg_clear(&m);
    arb__repl_thread_stop(r);
    CHECK(said(err, path, "d", "seq 3", "acked as a duplicate"));
    CHECK_INT(lines_with(path, "publish: Error\n"), 0);
    repl_free(r);
    arb_buf_free(&why);
}

/* The retry's message id is a duplicate of another writer's seq 3, which
 * the stream still holds, under a message arbiter did not write (the
 * resync then sends without an expectation): refused, fenced. */
static void
test_dup_of_other(void)
{
    arb_repl_t         *r;
    arb_buf_t           why = ARB_BUF_INIT;
    uint64_t            pos3 = 0, diverged;
    int                 i;

    if ((r = failed_seq3("f", &pos3)) == NULL)
        return;
    diverged = stat_of(r, &r->st.diverged);
    CHECK(other_seq(r, "f", 3, 0) > 0);
    for (i = 0; i <= ARB_REPL_FOREIGN_MAX; i++)
        CHECK(foreign(r, "f") > 0);
    passed_refused(r, "f", pos3);
    CHECK_INT(stat_of(r, &r->st.diverged), diverged + 1);
    arb__repl_thread_stop(r);
    repl_free(r);
    arb_buf_free(&why);
}

/* Another writer's seq 3 under an id of its own (no duplicate: past
 * the window it is the same), then as many messages arbiter did not
 * write as are looked past: the retry's resync finds the last message
 * of ours before them (seq 3, another hash): fenced, refused, reported,
 * nothing of ours on top. */
static void
test_other_then_foreign(void)
{
    arb_repl_t         *r;
    arb_stream_msg_t    m;
    arb_buf_t           why = ARB_BUF_INIT;
    uint64_t            pos3 = 0, diverged, refused;
    int                 i, err;
    char                path[300];

    err = capture("foreign.log", path, sizeof(path));
    if ((r = failed_seq3("g", &pos3)) == NULL)
        goto out;
    diverged = stat_of(r, &r->st.diverged);
    refused = stat_of(r, &r->st.refused);
    CHECK(other_seq(r, "g", 3, 1) > 0);
    for (i = 2; i < ARB_REPL_FOREIGN_MAX; i++)  /* all looked past */
        CHECK(foreign(r, "g") > 0);
    for (i = 0; i < 40; i++)            /* other matches' traffic */
        CHECK(foreign(r, "g-busy") > 0);
    CHECK(foreign(r, "g") > 0);
    CHECK(foreign(r, "g") > 0);
    passed_refused(r, "g", pos3);
    CHECK_INT(stat_of(r, &r->st.refused), refused + 1);
    CHECK_INT(stat_of(r, &r->st.diverged), diverged + 1);
    sleep_ms(200);
    CHECK_INT(stream_last(r, "g", &m), ARB_EPROTO);  /* still the junk */
    arb_stream_msg_clear(&m);
    arb__repl_thread_stop(r);
    repl_free(r);
out:
    CHECK(said(err, path, "g", "seq 3", "another hash"));
    arb_buf_free(&why);
}

/* Another writer's seq 4, past the log's 3, then a message arbiter did
 * not write: fenced as ahead, seq 3 refused, reported. */
static void
test_ahead_then_foreign(void)
{
    arb_repl_t         *r;
    arb_buf_t           why = ARB_BUF_INIT;
    uint64_t            pos3 = 0, ahead;
    int                 err;
    char                path[300];

    err = capture("ahead.log", path, sizeof(path));
    if ((r = failed_seq3("p", &pos3)) == NULL)
        goto out;
    ahead = stat_of(r, &r->st.ahead);
    CHECK(other_seq(r, "p", 4, 1) > 0);
    CHECK(foreign(r, "p") > 0);
    passed_refused(r, "p", pos3);
    CHECK_INT(stat_of(r, &r->st.ahead), ahead + 1);
    arb__repl_thread_stop(r);
    repl_free(r);
out:
    CHECK(said(err, path, "p", "seq 4", "past the log"));
    arb_buf_free(&why);
}

/* Our seqs 0..2, then a message arbiter did not write: our last message
 * is the log's, so the retried seq 3 goes after that message, expecting
 * it, and passes as published, the match not fenced. */
static void
test_ours_then_foreign(void)
{
    static arb_server_t srv;
    arb_repl_t         *r;
    arb_stream_msg_t    m;
    arb_buf_t           why = ARB_BUF_INIT;
    unsigned char       h3[ARB_HASH_LEN];
    const char         *fc, *v = NULL;
    char                want[32];
    uint64_t            pos3 = 0, diverged, junk;
    int                 i, refused;

    if ((r = failed_seq3("k", &pos3)) == NULL)
        return;
    diverged = stat_of(r, &r->st.diverged);
    junk = foreign(r, "k");
    CHECK(junk > 0);
    CHECK_INT(max_size(r, -1), 0);
    for (i = 0; i < 500 && cursor_of(r, NULL) < pos3; i++)
        sleep_ms(10);
    CHECK_INT(cursor_of(r, NULL), pos3);
    pthread_mutex_lock(&r->mu);
    refused = arb__repl_refused_locked(r, pos3, pos3);
    pthread_mutex_unlock(&r->mu);
    CHECK(!refused);
    CHECK_INT(stat_of(r, &r->st.diverged), diverged);
    srv.repl = r;
    fc = arb_repl_fenced(&srv, "k", &why);
    CHECK(fc == NULL || strcmp(fc, "fenced") != 0);
    CHECK_INT(stream_last(r, "k", &m), 0);
    CHECK_INT(m.seq, 3);
    /* Sent expecting the subject to end on that message (the leader
     * keeps the header): nothing could slip in between unseen. */
    snprintf(want, sizeof(want), "%llu", (unsigned long long)junk);
    CHECK(m.msg != NULL && natsMsgHeader_Get(m.msg, "Nats-Expected-Last-"
                                             "Subject-Sequence", &v)
                           == NATS_OK
          && strcmp(v, want) == 0);
    CHECK_INT(arb__repl_log_hash(r, "k", 3, h3, &why), 1);
    CHECK(memcmp(m.hash, h3, ARB_HASH_LEN) == 0);
    arb_stream_msg_clear(&m);
    arb__repl_thread_stop(r);
    repl_free(r);
    arb_buf_free(&why);
}

/* A stream whose max_msg_size is below what this recorder may publish
 * (frame_max and the headers) is said at start, naming both sizes and
 * what to raise it to; one that takes it is not (until 2026-12-07 nothing
 * was said before the first event over it failed its publish). */
static void
test_small_stream(void)
{
    static const int32_t sizes[] = { 4096, 66560, -1 };
    static const int     said[] = { 1, 0, 0 };
    arb_repl_t          *r;
    uint64_t             head;
    char                 path[300], name[32];
    size_t               i;
    int                  err;

    head = append_one("sm", 0, small, sizeof(small));
    CHECK(head > 0);
    conf.event_max = 65536;
    for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        if ((r = repl_start(head)) == NULL)
            break;
        CHECK_INT(max_size(r, sizes[i]), 0);
        arb__repl_thread_stop(r);
        repl_free(r);
        snprintf(name, sizeof(name), "small%zu.log", i);
        err = capture(name, path, sizeof(path));
        r = repl_start(head);
        CHECK(r != NULL);
        if (r != NULL) {
            CHECK_INT(r->s->max_msg_size, sizes[i]);
            arb__repl_thread_stop(r);
            repl_free(r);
        }
        fflush(stderr);                 /* stderr back */
        dup2(err, STDERR_FILENO);
        close(err);
        CHECK_INT(lines_with(path, "takes messages of at most 4096 "
                             "bytes, and this recorder takes events of up "
                             "to 65536 (frame_max) and their headers: an "
                             "event over about 3072 bytes would never be "
                             "stored, and its match would wait for it; "
                             "raise the stream's max_msg_size to 66560 or "
                             "more"), said[i]);
    }
    conf.event_max = 0;
}

int
main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (nats_missing("test_repl_retry"))
        return 0;
    big[0] = 0x81;
    big[1] = 0xa1;
    big[2] = 0x6b;
    big[3] = 0xda;                  /* str 16: 600 bytes */
    big[4] = 0x02;
    big[5] = 0x58;
    memset(big + 6, 'x', sizeof(big) - 6);
    CHECK_INT(repl_harness_begin(2), 0);
    conf.timeout_ms = 500;
    if (store != NULL && nats_pid > 0) {
        test_other_at_seq();
        test_dup_of_deleted();
        test_dup_of_other();
        test_other_then_foreign();
        test_ahead_then_foreign();
        test_ours_then_foreign();
        test_small_stream();
    }
    repl_harness_end(test_failed_ != 0);
    return TEST_END();
}
