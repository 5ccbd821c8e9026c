/*
 * test_stream_subjects.c - the stream's list of subjects is read whole
 * when it is longer than one reply (a real nats-server, tests/cluster/
 * nats.sh, one node).
 *
 * nats-server 2.9.10 answers a stream info with a subjects filter in
 * pages of at most 100,000 subjects ("total", "offset" and "limit" in the
 * reply); arb_stream_subjects asks for every page (proto/
 * stream_subjects.c).  The fence look before the first write (daemon/
 * replicate_check.c) relies on it seeing every subject: a match only the
 * stream holds, listed past the first page, must still fence an open.
 * Here the stream holds NSUBJ subjects, more than one page (checked on
 * the server's raw reply), and every one is listed once, in a few
 * seconds (libnats' own reading of such a list took 24 s).  Then the
 * list, a stream's fitness, a subject's last message, the next message
 * and the last one before a sequence are read from a stream whose
 * replies the test writes (test_scripted), on a second server without
 * JetStream.
 * Ports: ARB_NATS_PORT_BASE, default 16900 (and that + 9).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/err.h"
#include "proto/stream.h"
#include "proto/stream_read.h"
#include "tests/nats_server.h"
#include "tests/test.h"

#define NSUBJ 100100u           /* one page of 2.9.10 and a hundred */

static char dir[64], cmd[1024];

static int
sh(const char *fmt, const char *a, const char *b)
{
    snprintf(cmd, sizeof(cmd), fmt, a, b);
    return system(cmd);
}

typedef struct {
    unsigned char *seen;        /* one byte per subject p<i> */
    size_t         listed, dups, foreign;
} seen_t;

static int
seen_cb(void *ud, const char *subject, uint64_t msgs)
{
    seen_t       *s = ud;
    char          id[ARB_STREAM_ID_MAX + 1];
    unsigned long i;

    s->listed++;
    if (arb_stream_subject_parse(subject, id, sizeof(id)) != ARB_STREAM_EV
        || id[0] != 'p' || (i = strtoul(id + 1, NULL, 10)) >= NSUBJ
        || msgs != 1) {
        s->foreign++;
        return 0;
    }
    s->dups += s->seen[i];
    s->seen[i] = 1;
    return 0;
}

/* The value of "key": in the server's raw reply, or 0. */
static unsigned long long
raw_field(const char *reply, const char *key)
{
    const char *at = strstr(reply, key);

    return at != NULL ? strtoull(at + strlen(key), NULL, 10) : 0;
}

/* ---- a scripted stream: replies written here -------------------------- */

#define FAKE_HEAD "{\"type\":\"io.nats.jetstream.api.v1.stream_info_" \
                  "response\",\"total\":3,\"offset\":0,\"limit\":1," \
                  "\"config\":{\"name\":\"FAKE\"},\"created\":\"x\"," \
                  "\"state\":{\"messages\":3"

/* A stream info reply: the config of a stream that may hold the record,
 * and one more setting. */
#define CONF "{\"type\":\"io.nats.jetstream.api.v1.stream_info_response\"," \
             "\"config\":{\"name\":\"FAKE\",\"subjects\":[\"arbiter.>\"]," \
             "\"retention\":\"limits\",\"storage\":\"file\","
#define CONF_END_STATE "},\"created\":\"2026-12-04T22:52:34Z\"," \
                       "\"state\":{}"
#define CONF_END CONF_END_STATE "}"
/* ... with a cluster led by n1, its replicas to follow. */
#define CONF_CL "\"max_msgs\":-1" CONF_END_STATE ",\"cluster\":{\"name\":" \
                "\"c\",\"leader\":\"n1\",\"replicas\":["

/* What the stream FAKE answers, on a server without JetStream: its info
 * from `pages` (NULL-ended; past it, an error), counted in `infos`; a get
 * of the next message at or past a sequence, from `held` (ascending,
 * 0-ended), or `get_seq` whatever was asked when it is not 0. */
static const char *const *pages;
static unsigned           infos;
static const uint64_t    *held;
static uint64_t           get_seq;

static void
on_fake(natsConnection *nc, natsSubscription *sub, natsMsg *msg, void *ud)
{
    const char *d = natsMsg_GetData(msg), *at;
    char        r[512];
    uint64_t    seq = 0, n = get_seq;
    size_t      i;

    (void)sub; (void)ud;
    if (d != NULL && strstr(d, "last_by_subj") != NULL) {
        snprintf(r, sizeof(r), "{\"message\":{\"subject\":\"arbiter.ev."
                 "a\",\"seq\":7,\"data\":\"eA==\",\"time\":\"2026-12-04"
                 "T22:52:34Z\"}}");
    } else if (strstr(natsMsg_GetSubject(msg), ".MSG.GET.") != NULL) {
        if (d != NULL && (at = strstr(d, "\"seq\":")) != NULL)
            seq = strtoull(at + 6, NULL, 10);
        for (i = 0; n == 0 && held[i] != 0; i++)
            if (held[i] >= seq)
                n = held[i];
        if (n != 0)
            snprintf(r, sizeof(r), "{\"message\":{\"subject\":\"arbiter.ev."
                     "a\",\"seq\":%llu,\"time\":\"2026-12-04T22:52:34Z\"}}",
                     (unsigned long long)n);
        else
            snprintf(r, sizeof(r), "{\"error\":{\"code\":404,\"err_code\":"
                     "10037,\"description\":\"no message found\"}}");
    } else if (pages[infos] != NULL) {
        snprintf(r, sizeof(r), "%s", pages[infos++]);
    } else {
        snprintf(r, sizeof(r), "{\"error\":{\"code\":500,\"err_code\":1}}");
    }
    natsConnection_PublishString(nc, natsMsg_GetReply(msg), r);
    natsMsg_Destroy(msg);
}

static int
count_cb(void *ud, const char *subject, uint64_t msgs)
{
    (void)subject; (void)msgs;
    (*(unsigned *)ud)++;
    return 0;
}

/*
 * The readers on replies of the stream FAKE scripted above: a page that
 * lists nothing ends the list whatever "total" says, and one that reaches
 * "total" ends it without another ask; a stream with a per-subject limit
 * that would drop events is refused, as are the other limits; a stream
 * is settled when no online replica lags, with a leader; a
 * subject's last message not ours says where it is; a next message
 * before the sequence asked for is no answer; the last message before a
 * sequence is the one just below it, not the one at it nor one further
 * back (no test failed when any of these went otherwise).
 */
static void
test_scripted(int port)
{
    static const char *const gone[] = {
        FAKE_HEAD ",\"subjects\":{\"arbiter.ev.a\":1}}}", FAKE_HEAD "}}",
        NULL,
    };
    static const char *const whole[] = {
        "{\"total\":2,\"config\":{},\"created\":\"x\",\"state\":{"
        "\"subjects\":{\"arbiter.ev.a\":1,\"arbiter.ev.b\":2}}}", NULL,
    };
    static const char *const unfit[] = {
        CONF "\"max_msgs_per_subject\":5" CONF_END,
        CONF "\"max_age\":60000000000" CONF_END,
        CONF "\"max_msgs\":10" CONF_END,
        CONF "\"max_bytes\":1000" CONF_END,
        CONF "\"max_msgs_per_subject\":-1" CONF_END,
        NULL,
    };
    static const char *const settle[] = {
        CONF CONF_CL "{\"name\":\"n2\",\"current\":true,\"lag\":3}]}}",
        CONF CONF_CL "{\"name\":\"n2\",\"current\":true,\"lag\":0},"
        "{\"name\":\"n3\",\"current\":false,\"offline\":true}]}}",
        CONF "\"max_msgs\":-1" CONF_END_STATE ",\"cluster\":{\"name\":"
        "\"c\"}}",
        NULL,
    };
    static const uint64_t set[] = { 3, 40, 41, 100, 0 };
    static const struct { uint64_t before, prev; } pv[] = {
        { 1, 0 }, { 3, 0 }, { 4, 3 }, { 40, 3 }, { 42, 41 }, { 100, 41 },
        { 101, 100 }, { 5000, 100 },
    };
    arb_stream_conf_t conf;
    arb_stream_t     *st = NULL;
    natsSubscription *s1 = NULL, *s2 = NULL;
    arb_buf_t         why = ARB_BUF_INIT;
    char              urls[64], p[16];
    uint64_t          n;
    int64_t           t;
    unsigned          listed;
    size_t            i;

    snprintf(p, sizeof(p), "%d", port);
    if (sh("nats-server -a 127.0.0.1 -p %s -P %s/plain.pid > /dev/null "
           "2>&1 &", p, dir) != 0) {
        CHECK(0);
        return;
    }
    snprintf(urls, sizeof(urls), "nats://127.0.0.1:%d", port);
    memset(&conf, 0, sizeof(conf));
    conf.urls = urls;
    conf.stream = "FAKE";
    for (i = 0; i < 100 && arb_stream_open(&st, &conf, NULL, NULL, NULL)
                           != 0; i++)
        usleep(100 * 1000);
    CHECK(st != NULL);
    if (st == NULL)
        goto done;
    CHECK_INT(natsConnection_Subscribe(&s1, st->nc,
                                       "$JS.API.STREAM.INFO.FAKE", on_fake,
                                       NULL), NATS_OK);
    CHECK_INT(natsConnection_Subscribe(&s2, st->nc,
                                       "$JS.API.STREAM.MSG.GET.FAKE",
                                       on_fake, NULL), NATS_OK);
    CHECK_INT(natsConnection_Flush(st->nc), NATS_OK);

    pages = gone;
    infos = listed = 0;
    CHECK_INT(arb_stream_subjects(st, "arbiter.>", count_cb, &listed, NULL),
              0);
    CHECK_INT(infos, 2);
    CHECK_INT(listed, 1);
    pages = whole;
    infos = listed = 0;
    CHECK_INT(arb_stream_subjects(st, "arbiter.>", count_cb, &listed, NULL),
              0);
    CHECK_INT(infos, 1);
    CHECK_INT(listed, 2);

    /* A stream that would drop events is refused, each way it may
     * (no test failed when a per-subject limit was taken). */
    pages = unfit;
    infos = 0;
    for (i = 0; i < 4; i++) {
        why.len = 0;
        CHECK_INT(arb_stream_ensure(st, -1, NULL, &why), ARB_EINVAL);
        CHECK(strstr(arb_buf_cstr(&why), "cannot hold the record") != NULL);
    }
    CHECK_INT(arb_stream_ensure(st, -1, NULL, &why), 0);
    CHECK_INT(infos, 5);
    /* Settled: a current replica with a lag is waited for, an offline
     * one is not, a stream without a leader is (no test failed when the
     * lag or the offline flag was passed over). */
    {
        int lagging = -1;

        pages = settle;
        infos = 0;
        CHECK_INT(arb_stream_settled_lag(st, &lagging, &why), ARB_EAGAIN);
        CHECK_INT(lagging, 1);
        CHECK(strstr(arb_buf_cstr(&why), "replica n2 of leader n1 is "
                     "catching up (lag 3)") != NULL);
        CHECK_INT(arb_stream_settled_lag(st, &lagging, &why), 0);
        CHECK_INT(lagging, 0);
        CHECK_INT(arb_stream_settled_lag(st, &lagging, &why), ARB_EAGAIN);
        CHECK_INT(lagging, 0);
        CHECK(strstr(arb_buf_cstr(&why), "no leader") != NULL);
    }

    held = set;
    get_seq = 0;
    /* A last message not ours: refused, naming where it is (no test
     * failed when its stream sequence was lost with the rest). */
    {
        arb_stream_msg_t m;

        CHECK_INT(arb_stream_last(st, "arbiter.ev.a", &m, &why),
                  ARB_EPROTO);
        CHECK_INT(m.stream_seq, 7);
        CHECK(m.msg == NULL);
    }
    CHECK_INT(arb_stream_next_seq(st, 41, NULL, &n, &t, &why), 0);
    CHECK_INT(n, 41);
    CHECK(t == 1796424754000000000LL);
    CHECK_INT(arb_stream_next_seq(st, 101, NULL, &n, &t, &why), 0);
    CHECK_INT(n, 0);
    get_seq = 3;
    CHECK_INT(arb_stream_next_seq(st, 5, NULL, &n, NULL, &why), ARB_EIO);
    CHECK_INT(n, 0);
    CHECK(strstr(arb_buf_cstr(&why), "at or past 5") != NULL);
    get_seq = 0;
    for (i = 0; i < sizeof(pv) / sizeof(pv[0]); i++) {
        n = 99;
        CHECK_INT(arb_stream_prev_seq(st, pv[i].before, NULL, &n, &why), 0);
        CHECK_INT(n, pv[i].prev);
    }
done:
    natsSubscription_Destroy(s1);
    natsSubscription_Destroy(s2);
    arb_stream_close(st);
    arb_buf_free(&why);
    sh("kill $(cat %s/plain.pid) 2> /dev/null", dir, "");
}

int
main(void)
{
    const char       *base = getenv("ARB_NATS_PORT_BASE");
    char              urls[128], nd[32], subj[ARB_STREAM_SUBJECT_MAX];
    arb_stream_conf_t conf;
    arb_stream_t     *st = NULL;
    natsMsg          *reply = NULL;
    seen_t            s;
    uint64_t          n = 0;
    unsigned          i;
    int               port = (base != NULL ? atoi(base) : 16900) + 1;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (nats_missing("test_stream_subjects"))
        return 0;
    memset(&s, 0, sizeof(s));
    snprintf(dir, sizeof(dir), "/tmp/arbsubjects.XXXXXX");
    if (mkdtemp(dir) == NULL)
        return 1;
    snprintf(nd, sizeof(nd), "%d", port - 1);
    if (sh("sh tests/cluster/nats.sh up %s/nats 1 %s", dir, nd) != 0) {
        fprintf(stderr, "no nats-server\n");
        CHECK(0);
        goto done;
    }
    snprintf(urls, sizeof(urls), "nats://127.0.0.1:%d", port);
    memset(&conf, 0, sizeof(conf));
    conf.urls = urls;
    conf.timeout_ms = 20000;    /* a reply of 100,000 subjects is 2 MB */
    CHECK_INT(arb_stream_open(&st, &conf, NULL, NULL, NULL), 0);
    if (st == NULL)
        goto done;
    CHECK_INT(arb_stream_ensure(st, 1, NULL, NULL), 0);
    /* One message on each of NSUBJ subjects, and one that the filter
     * leaves out: plain publishes the stream takes (no PubAck to wait
     * for, seconds faster), then wait until it holds them all. */
    for (i = 0; i < NSUBJ; i++) {
        snprintf(nd, sizeof(nd), "p%u", i);
        arb_stream_subject(subj, sizeof(subj), ARB_STREAM_EV, nd);
        if (natsConnection_PublishString(st->nc, subj, "x") != NATS_OK)
            break;
    }
    CHECK_INT(i, NSUBJ);
    CHECK_INT(natsConnection_PublishString(st->nc, ARB_STREAM_DEAL_PREFIX
                                           "p0", "x"), NATS_OK);
    CHECK_INT(natsConnection_FlushTimeout(st->nc, 20000), NATS_OK);
    for (i = 0; i < 300 && n < NSUBJ + 1; i++) {
        if (arb_stream_bounds(st, NULL, NULL, &n, NULL) != 0)
            n = 0;
        if (n < NSUBJ + 1)
            usleep(100 * 1000);
    }
    CHECK_INT(n, NSUBJ + 1);
    n = 0;

    /* The server's own reply holds one page, not all of them: the list
     * below is more than one reply. */
    CHECK_INT(natsConnection_RequestString(&reply, st->nc,
                                           "$JS.API.STREAM.INFO.ARBITER",
                                           "{\"subjects_filter\":"
                                           "\"arbiter.ev.>\"}", 20000),
              NATS_OK);
    if (reply != NULL) {
        const char *d = natsMsg_GetData(reply);

        CHECK(raw_field(d, "\"total\":") == NSUBJ);
        CHECK(raw_field(d, "\"limit\":") > 0);
        CHECK(raw_field(d, "\"limit\":") < NSUBJ);
        natsMsg_Destroy(reply);
    }

    s.seen = calloc(NSUBJ, 1);
    CHECK(s.seen != NULL);
    if (s.seen == NULL)
        goto done;
    CHECK_INT(arb_stream_subjects(st, ARB_STREAM_EV_PREFIX ">", seen_cb, &s,
                                  NULL), 0);
    CHECK_INT(s.listed, NSUBJ);
    CHECK_INT(s.dups, 0);
    CHECK_INT(s.foreign, 0);
    for (i = 0; i < NSUBJ && s.seen[i]; i++)
        ;
    CHECK_INT(i, NSUBJ);                /* every one of them */
    /* One subject's count (the same request, filtered to it). */
    arb_stream_subject(subj, sizeof(subj), ARB_STREAM_EV, "p100099");
    CHECK_INT(arb_stream_subject_count(st, subj, &n, NULL), 0);
    CHECK_INT(n, 1);
    test_scripted(port + 8);
done:
    free(s.seen);
    arb_stream_close(st);
    nats_Close();
    sh("sh tests/cluster/nats.sh down %s/nats", dir, "");
    sh("rm -rf %s", dir, "");
    return TEST_END();
}
