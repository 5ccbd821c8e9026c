/*
 * test_stream.c - the JetStream layout without a server: subject tokens,
 * message ids, event and deal messages read back, the replication key,
 * and the pages of a stream's subject list as the server writes them
 * (and as a hostile publisher or a broken reply could make them).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "core/err.h"
#include "proto/stream.h"
#include "tests/test.h"

static void
test_tokens(void)
{
    char t[ARB_STREAM_TOKEN_MAX], id[ARB_STREAM_ID_MAX + 1];
    char s[ARB_STREAM_SUBJECT_MAX];
    char long_id[ARB_STREAM_ID_MAX + 2];

    CHECK_INT(arb_stream_token_encode(t, sizeof(t), "cup.r1.t7"), 0);
    CHECK_STR(t, "cup%2Er1%2Et7");
    CHECK_INT(arb_stream_token_decode(id, sizeof(id), t), 0);
    CHECK_STR(id, "cup.r1.t7");
    CHECK_INT(arb_stream_token_encode(t, sizeof(t), "A-z_0@+"), 0);
    CHECK_STR(t, "A-z_0@+");
    /* Not ids: empty, a subject wildcard, a space, too long. */
    CHECK_INT(arb_stream_token_encode(t, sizeof(t), ""), ARB_EINVAL);
    CHECK_INT(arb_stream_token_encode(t, sizeof(t), "a*"), ARB_EINVAL);
    CHECK_INT(arb_stream_token_encode(t, sizeof(t), "a b"), ARB_EINVAL);
    memset(long_id, 'x', ARB_STREAM_ID_MAX + 1);
    long_id[ARB_STREAM_ID_MAX + 1] = '\0';
    CHECK_INT(arb_stream_token_encode(t, sizeof(t), long_id), ARB_EINVAL);
    long_id[ARB_STREAM_ID_MAX] = '\0';
    CHECK_INT(arb_stream_token_encode(t, sizeof(t), long_id), 0);
    /* 64 dots: the longest token fits the declared maximum. */
    memset(long_id, '.', ARB_STREAM_ID_MAX);
    CHECK_INT(arb_stream_token_encode(t, sizeof(t), long_id), 0);
    CHECK_INT(strlen(t), 3 * ARB_STREAM_ID_MAX);
    CHECK_INT(arb_stream_token_decode(id, sizeof(id), t), 0);
    CHECK_STR(id, long_id);
    /* A short buffer is refused, never truncated. */
    CHECK_INT(arb_stream_token_encode(t, 4, "a.b"), ARB_EINVAL);
    /* Tokens we never make. */
    CHECK_INT(arb_stream_token_decode(id, sizeof(id), "a.b"), ARB_EINVAL);
    CHECK_INT(arb_stream_token_decode(id, sizeof(id), "a%2e"), ARB_EINVAL);
    CHECK_INT(arb_stream_token_decode(id, sizeof(id), "a%2"), ARB_EINVAL);
    CHECK_INT(arb_stream_token_decode(id, sizeof(id), ""), ARB_EINVAL);

    CHECK_INT(arb_stream_subject(s, sizeof(s), ARB_STREAM_EV, "m.1"), 0);
    CHECK_STR(s, "arbiter.ev.m%2E1");
    CHECK_INT(arb_stream_subject_parse(s, id, sizeof(id)), ARB_STREAM_EV);
    CHECK_STR(id, "m.1");
    CHECK_INT(arb_stream_subject(s, sizeof(s), ARB_STREAM_DEAL, "m.1"), 0);
    CHECK_STR(s, "arbiter.deal.m%2E1");
    CHECK_INT(arb_stream_subject_parse(s, id, sizeof(id)), ARB_STREAM_DEAL);
    CHECK_INT(arb_stream_subject_parse("arbiter.other.m", id, sizeof(id)),
              ARB_EINVAL);
    CHECK_INT(arb_stream_subject_parse("arbiter.ev.a.b", id, sizeof(id)),
              ARB_EINVAL);
    CHECK_INT(arb_stream_msgid(s, sizeof(s), "m.1", 18446744073709551615u),
              0);
    CHECK_STR(s, "m.1/18446744073709551615");
    CHECK(arb_stream_name_ok("ARBITER"));
    CHECK(arb_stream_name_ok("venue-1_a"));
    CHECK(!arb_stream_name_ok("a.b"));
    CHECK(!arb_stream_name_ok(""));
}

/* Ids, tokens, subjects and message ids at their edges (no test failed
 * when '%' was taken in an id, a token of 65 bytes was decoded into a
 * larger buffer, "arbiter.evX" passed for the event prefix, or a message
 * id filling its buffer to the last byte was cut, nor when a URL's port
 * of 0 or past 2^32, or an empty IPv6 address, was taken). */
static void
test_edges(void)
{
    char t[ARB_STREAM_TOKEN_MAX], big[2 * ARB_STREAM_TOKEN_MAX];
    char id[ARB_STREAM_ID_MAX + 1], tok[ARB_STREAM_ID_MAX + 2];
    arb_buf_t why = ARB_BUF_INIT;

    /* "a%2Eb" would be the token of "a.b" too */
    CHECK(!arb_stream_id_ok("a%2Eb"));
    CHECK_INT(arb_stream_token_encode(t, sizeof(t), "a%2Eb"), ARB_EINVAL);
    memset(tok, 'x', ARB_STREAM_ID_MAX + 1);
    tok[ARB_STREAM_ID_MAX + 1] = '\0';
    CHECK_INT(arb_stream_token_decode(big, sizeof(big), tok), ARB_EINVAL);
    tok[ARB_STREAM_ID_MAX] = '\0';
    CHECK_INT(arb_stream_token_decode(big, sizeof(big), tok), 0);
    CHECK_STR(big, tok);
    CHECK_INT(arb_stream_subject_parse("arbiter.evXm", id, sizeof(id)),
              ARB_EINVAL);
    CHECK_INT(arb_stream_subject_parse("arbiter.dealXm", id, sizeof(id)),
              ARB_EINVAL);
    /* "a/12" and its NUL: 5 bytes */
    CHECK_INT(arb_stream_msgid(t, 4, "a", 12), ARB_EINVAL);
    CHECK_INT(arb_stream_msgid(t, 5, "a", 12), 0);
    CHECK_STR(t, "a/12");
    /* URLs: a port of 0, or one that would wrap an unsigned int to 1, an
     * empty IPv6 address, a list of none */
    CHECK_INT(arb_stream_urls_check("nats://h:65535", &why), 0);
    CHECK_INT(arb_stream_urls_check("nats://h:0", &why), ARB_EINVAL);
    CHECK_INT(arb_stream_urls_check("nats://h:4294967297", &why),
              ARB_EINVAL);
    CHECK_INT(arb_stream_urls_check("tls://[::1]:4222", &why), 0);
    CHECK_INT(arb_stream_urls_check("nats://[]:4222", &why), ARB_EINVAL);
    CHECK_INT(arb_stream_urls_check(" , ", &why), ARB_EINVAL);
    arb_buf_free(&why);
}

static void
test_ev_msg(void)
{
    unsigned char    h[ARB_HASH_LEN];
    arb_stream_msg_t m;
    natsMsg         *msg = NULL;
    const char      *v = NULL;
    arb_buf_t        why = ARB_BUF_INIT;

    memset(h, 0xab, sizeof(h));
    CHECK_INT(arb_stream_ev_msg(&msg, "t.9", 42, h, "venueA", "\x81\xa1x",
                                3), 0);
    CHECK_STR(natsMsg_GetSubject(msg), "arbiter.ev.t%2E9");
    CHECK(natsMsgHeader_Get(msg, "Nats-Msg-Id", &v) == NATS_OK);
    CHECK_STR(v, "t.9/42");
    CHECK_INT(arb_stream_msg_parse(&m, msg, &why), 0);
    CHECK_INT(m.kind, ARB_STREAM_EV);
    CHECK_STR(m.match_id, "t.9");
    CHECK_INT(m.seq, 42);
    CHECK(memcmp(m.hash, h, sizeof(h)) == 0);
    CHECK_STR(m.recorder, "venueA");
    CHECK_INT(m.len, 3);
    CHECK(memcmp(m.bytes, "\x81\xa1x", 3) == 0);
    arb_stream_msg_clear(&m);

    /* Someone else's message on our subjects is named, not trusted. */
    CHECK(natsMsg_Create(&msg, "arbiter.ev.t", NULL, "x", 1) == NATS_OK);
    natsMsgHeader_Set(msg, "Arbiter-Match", "t");
    natsMsgHeader_Set(msg, "Arbiter-Seq", "01");
    natsMsgHeader_Set(msg, "Arbiter-Hash", "00");
    CHECK_INT(arb_stream_msg_parse(&m, msg, &why), ARB_EPROTO);
    CHECK(strstr(arb_buf_cstr(&why), "Arbiter-Seq") != NULL);
    CHECK(natsMsg_Create(&msg, "arbiter.ev.t", NULL, "x", 1) == NATS_OK);
    natsMsgHeader_Set(msg, "Arbiter-Match", "u");
    CHECK_INT(arb_stream_msg_parse(&m, msg, &why), ARB_EPROTO);
    CHECK(strstr(arb_buf_cstr(&why), "Arbiter-Match") != NULL);
    CHECK(natsMsg_Create(&msg, "arbiter.ev.t", NULL, "x", 1) == NATS_OK);
    natsMsgHeader_Set(msg, "Arbiter-Match", "t");
    natsMsgHeader_Set(msg, "Arbiter-Seq", "1");
    natsMsgHeader_Set(msg, "Arbiter-Hash", "zz");
    CHECK_INT(arb_stream_msg_parse(&m, msg, &why), ARB_EPROTO);
    CHECK(strstr(arb_buf_cstr(&why), "Arbiter-Hash") != NULL);
    /* A prefix of the subject's match is not its match, a hash header of
     * 64 hex digits and more is not a hash, and a payload past what a
     * message holds is refused before it is copied (no test failed when
     * any of these was taken). */
    {
        static const char hex64[] = "00112233445566778899aabbccddeeff"
                                    "00112233445566778899aabbccddeeff";

        CHECK(natsMsg_Create(&msg, "arbiter.ev.tt", NULL, "x", 1)
              == NATS_OK);
        natsMsgHeader_Set(msg, "Arbiter-Match", "t");
        natsMsgHeader_Set(msg, "Arbiter-Seq", "1");
        natsMsgHeader_Set(msg, "Arbiter-Hash", hex64);
        CHECK_INT(arb_stream_msg_parse(&m, msg, &why), ARB_EPROTO);
        CHECK(strstr(arb_buf_cstr(&why), "Arbiter-Match") != NULL);
        CHECK(natsMsg_Create(&msg, "arbiter.ev.t", NULL, "x", 1)
              == NATS_OK);
        natsMsgHeader_Set(msg, "Arbiter-Match", "t");
        natsMsgHeader_Set(msg, "Arbiter-Seq", "1");
        natsMsgHeader_Set(msg, "Arbiter-Hash", hex64);
        CHECK_INT(arb_stream_msg_parse(&m, msg, &why), 0);
        arb_stream_msg_clear(&m);
        CHECK(natsMsg_Create(&msg, "arbiter.ev.t", NULL, "x", 1)
              == NATS_OK);
        natsMsgHeader_Set(msg, "Arbiter-Match", "t");
        natsMsgHeader_Set(msg, "Arbiter-Seq", "1");
        natsMsgHeader_Set(msg, "Arbiter-Hash", "00112233445566778899aabbcc"
                          "ddeeff00112233445566778899aabbccddeeff00");
        CHECK_INT(arb_stream_msg_parse(&m, msg, &why), ARB_EPROTO);
        CHECK(strstr(arb_buf_cstr(&why), "Arbiter-Hash") != NULL);
        msg = NULL;
        CHECK_INT(arb_stream_ev_msg(&msg, "t", 1, h, NULL, "x",
                                    (size_t)INT32_MAX + 1), ARB_EINVAL);
        CHECK(msg == NULL);
    }
    arb_buf_free(&why);
}

/* 1 when the n bytes at p contain the string s. */
static int
holds(const char *p, int n, const char *s)
{
    int i, k = (int)strlen(s);

    for (i = 0; i + k <= n; i++)
        if (memcmp(p + i, s, (size_t)k) == 0)
            return 1;
    return 0;
}

static void
test_deal(void)
{
    unsigned char    key[ARB_STREAM_KEY_LEN], other[ARB_STREAM_KEY_LEN];
    char             path[] = "/tmp/arb-test-key-XXXXXX";
    arb_stream_msg_t m;
    natsMsg         *msg = NULL;
    arb_buf_t        out = ARB_BUF_INIT, why = ARB_BUF_INIT;
    int              fd;

    randombytes_buf(key, sizeof(key));
    fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK(write(fd, key, sizeof(key)) == (ssize_t)sizeof(key));
    close(fd);
    CHECK_INT(arb_stream_key_load(other, path, &why), 0);
    CHECK(memcmp(key, other, sizeof(key)) == 0);
    chmod(path, 0640);
    CHECK_INT(arb_stream_key_load(other, path, &why), ARB_EINVAL);
    CHECK(strstr(arb_buf_cstr(&why), "chmod 600") != NULL);
    /* Mode 0604: readable by others, refused as 0640 is. */
    chmod(path, 0604);
    CHECK_INT(arb_stream_key_load(other, path, &why), ARB_EINVAL);
    chmod(path, 0600);
    fd = open(path, O_WRONLY | O_APPEND);
    CHECK(write(fd, "x", 1) == 1);
    close(fd);
    CHECK_INT(arb_stream_key_load(other, path, &why), ARB_EINVAL);
    unlink(path);
    CHECK_INT(arb_stream_key_load(other, path, &why), ARB_EIO);

    CHECK_INT(arb_stream_deal_msg(&msg, "d.1", "seed-123", key, "r1"), 0);
    CHECK_STR(natsMsg_GetSubject(msg), "arbiter.deal.d%2E1");
    CHECK(!holds(natsMsg_GetData(msg), natsMsg_GetDataLength(msg),
                 "seed-123"));
    CHECK_INT(arb_stream_msg_parse(&m, msg, &why), 0);
    CHECK_INT(m.kind, ARB_STREAM_DEAL);
    CHECK_INT(arb_stream_deal_open(&out, &m, key, &why), 0);
    CHECK_STR(arb_buf_cstr(&out), "seed-123");
    randombytes_buf(other, sizeof(other));
    CHECK_INT(arb_stream_deal_open(&out, &m, other, &why), ARB_ECRYPTO);
    arb_stream_msg_clear(&m);
    arb_buf_free(&out);
    arb_buf_free(&why);
}

/* Deal messages that are not sealed secrets: an event message, however
 * long (no test failed when only the length was looked at), and a sealed
 * secret holding a NUL byte, which no C string spells: refused, naming
 * why (the why of the second was left empty). */
static void
test_deal_bad(void)
{
    enum { NB = crypto_secretbox_NONCEBYTES, MB = crypto_secretbox_MACBYTES };
    unsigned char    key[ARB_STREAM_KEY_LEN], box[NB + MB + 3];
    unsigned char    h[ARB_HASH_LEN], pay[64];
    arb_stream_msg_t m;
    natsMsg         *msg = NULL;
    arb_buf_t        out = ARB_BUF_INIT, why = ARB_BUF_INIT;

    randombytes_buf(key, sizeof(key));
    memset(h, 1, sizeof(h));
    memset(pay, 'x', sizeof(pay));
    CHECK_INT(arb_stream_ev_msg(&msg, "d", 1, h, NULL, pay, sizeof(pay)),
              0);
    CHECK_INT(arb_stream_msg_parse(&m, msg, &why), 0);
    CHECK_INT(arb_stream_deal_open(&out, &m, key, &why), ARB_EPROTO);
    CHECK(strstr(arb_buf_cstr(&why), "deal of d: not a sealed secret")
          != NULL);
    arb_stream_msg_clear(&m);

    randombytes_buf(box, NB);
    crypto_secretbox_easy(box + NB, (const unsigned char *)"a\0b", 3, box,
                          key);
    CHECK(natsMsg_Create(&msg, "arbiter.deal.d", NULL, (const char *)box,
                         (int)sizeof(box)) == NATS_OK);
    natsMsgHeader_Set(msg, "Arbiter-Match", "d");
    CHECK_INT(arb_stream_msg_parse(&m, msg, &why), 0);
    why.len = 0;
    CHECK_INT(arb_stream_deal_open(&out, &m, key, &why), ARB_EPROTO);
    CHECK(arb_buf_cstr(&why) != NULL
          && strstr(arb_buf_cstr(&why), "deal of d: the secret holds a "
                    "NUL byte") != NULL);
    CHECK_INT(out.len, 0);
    arb_stream_msg_clear(&m);
    arb_buf_free(&out);
    arb_buf_free(&why);
}

typedef struct {
    char     seen[8][64];
    uint64_t n[8];
    size_t   k;
} page_t;

static int
page_cb(void *ud, const char *subject, uint64_t msgs)
{
    page_t *p = ud;

    if (p->k < 8) {
        snprintf(p->seen[p->k], sizeof(p->seen[p->k]), "%s", subject);
        p->n[p->k] = msgs;
    }
    p->k++;
    return 0;
}

/* Reads reply (a C string) as one page: its code; *pg the entries. */
static int
page(const char *reply, page_t *pg, uint64_t *total, uint64_t *listed)
{
    memset(pg, 0, sizeof(*pg));
    return arb_stream_subjects_page(reply, strlen(reply), page_cb, pg, total,
                                    listed, NULL);
}

#define HEAD "{\"type\":\"io.nats.jetstream.api.v1.stream_info_response\"," \
             "\"total\":3,\"offset\":0,\"limit\":100000,\"config\":{" \
             "\"name\":\"ARBITER\",\"subjects\":[\"arbiter.\\u003e\"]," \
             "\"description\":\"\\\"state\\\":{\\\"subjects\\\":{\\\"x\\\":1\"}," \
             "\"created\":\"2026-12-01T00:00:00Z\",\"state\":{\"messages\":4,"

static void
test_subject_pages(void)
{
    page_t   pg;
    uint64_t total, listed;
    char     big[1200];

    /* As nats-server 2.9.10 writes it; the description's look-alike of
     * a subjects map is not read. */
    CHECK_INT(page(HEAD "\"subjects\":{\"arbiter.ev.a\":2,\"arbiter.ev.b\":1,"
                   "\"arbiter.ev.c%2Ed\":1}},\"cluster\":{\"leader\":\"n1\"}}",
                   &pg, &total, &listed), 0);
    CHECK_INT(total, 3);
    CHECK_INT(listed, 3);
    CHECK_INT(pg.k, 3);
    CHECK_STR(pg.seen[0], "arbiter.ev.a");
    CHECK_INT(pg.n[0], 2);
    CHECK_STR(pg.seen[2], "arbiter.ev.c%2Ed");
    /* A page past the end: no subjects map at all. */
    CHECK_INT(page(HEAD "\"first_seq\":1}}", &pg, &total, &listed), 0);
    CHECK_INT(listed, 0);
    /* A publisher's subject holding quotes and escapes: decoded when
     * plain ASCII, skipped (but counted for the offset) otherwise; it
     * never passes for a field of the reply. */
    CHECK_INT(page(HEAD "\"subjects\":{\"a\\\"error\\\":{\\u0041\":1,"
                   "\"\\u00e9t\\u00e9\":1,\"z\":5}}}", &pg, &total,
                   &listed), 0);
    CHECK_INT(listed, 3);
    CHECK_INT(pg.k, 2);
    CHECK_STR(pg.seen[0], "a\"error\":{A");
    CHECK_STR(pg.seen[1], "z");
    CHECK_INT(pg.n[1], 5);
    /* A NUL escaped in a subject: skipped, never read as the subject cut
     * there (no test failed when arbiter.ev.a\u0000b was listed as
     * arbiter.ev.a). */
    CHECK_INT(page(HEAD "\"subjects\":{\"arbiter.ev.a\\u0000b\":1,"
                   "\"z\":5}}}", &pg, &total, &listed), 0);
    CHECK_INT(listed, 2);
    CHECK_INT(pg.k, 1);
    CHECK_STR(pg.seen[0], "z");
    /* A subject longer than any of ours: skipped. */
    memset(big, 'x', sizeof(big));
    memcpy(big, HEAD "\"subjects\":{\"", strlen(HEAD) + 13);
    snprintf(big + 1000, sizeof(big) - 1000, "\":1,\"y\":1}}}");
    CHECK_INT(page(big, &pg, &total, &listed), 0);
    CHECK_INT(listed, 2);
    CHECK_INT(pg.k, 1);
    CHECK_STR(pg.seen[0], "y");
    /* 511 bytes is the longest subject read; 512 is skipped (no test
     * failed when the key took 512 bytes and its NUL went past it).  A
     * "state" inside the config is not the stream's (no test failed when
     * "created" was not looked for before it). */
    {
        static char kb[2400];
        size_t      h = strlen(HEAD "\"subjects\":{\"");

        memcpy(kb, HEAD "\"subjects\":{\"", h);
        memset(kb + h, 'k', 512);
        snprintf(kb + h + 511, sizeof(kb) - h - 511, "\":1,\"y\":1}}}");
        CHECK_INT(page(kb, &pg, &total, &listed), 0);
        CHECK_INT(listed, 2);
        CHECK_INT(pg.k, 2);
        memset(kb + h, 'k', 512);
        snprintf(kb + h + 512, sizeof(kb) - h - 512, "\":1,\"y\":1}}}");
        CHECK_INT(page(kb, &pg, &total, &listed), 0);
        CHECK_INT(listed, 2);
        CHECK_INT(pg.k, 1);
        CHECK_STR(pg.seen[0], "y");
    }
    CHECK_INT(page("{\"total\":1,\"config\":{\"name\":\"X\",\"state\":{"
                   "\"subjects\":{\"fake\":1}}},\"created\":\"x\","
                   "\"state\":{\"subjects\":{\"real\":2}}}", &pg, &total,
                   &listed), 0);
    CHECK_INT(pg.k, 1);
    CHECK_STR(pg.seen[0], "real");
    /* A filter holding a quote or a backslash is refused before anything
     * is asked (no test failed when it was sent inside the request's
     * JSON). */
    {
        arb_stream_t fake;
        uint64_t     n;

        memset(&fake, 0, sizeof(fake));
        strcpy(fake.name, "ARBITER");
        CHECK_INT(arb_stream_subjects(&fake, "arbiter.\"", page_cb, &pg,
                                      NULL), ARB_EINVAL);
        CHECK_INT(arb_stream_subjects(&fake, "arbiter.\\", page_cb, &pg,
                                      NULL), ARB_EINVAL);
        CHECK_INT(arb_stream_subject_count(&fake, "a\"", &n, NULL),
                  ARB_EINVAL);
    }
    /* An error reply: the stream is not there. */
    CHECK_INT(page("{\"type\":\"io.nats.jetstream.api.v1.stream_info_"
                   "response\",\"error\":{\"code\":404,\"err_code\":10059,"
                   "\"description\":\"stream not found\"}}", &pg, &total,
                   &listed), ARB_ENOTFOUND);
    /* Cut short, a count that is not a number, one past 2^64, no state,
     * a key cut inside an escape: refused, never read past the end. */
    CHECK_INT(page(HEAD "\"subjects\":{\"arbiter.ev.a\":2,\"arbi", &pg,
                   &total, &listed), ARB_EPROTO);
    CHECK_INT(pg.k, 1);
    CHECK_INT(page(HEAD "\"subjects\":{\"arbiter.ev.a\":x}}}", &pg, &total,
                   &listed), ARB_EPROTO);
    /* a key without a count: not a count of 0 (no test failed when it
     * was read as one) */
    CHECK_INT(page(HEAD "\"subjects\":{\"arbiter.ev.a\":}}}", &pg, &total,
                   &listed), ARB_EPROTO);
    CHECK_INT(pg.k, 0);
    CHECK_INT(page(HEAD "\"subjects\":{\"a\":99999999999999999999999}}}",
                   &pg, &total, &listed), ARB_EPROTO);
    /* 2^64 itself, and 2^64 + 3: the last digit would wrap the count
     * (it was read as 0, and as 3); 2^64 - 1 is a count. */
    CHECK_INT(page(HEAD "\"subjects\":{\"a\":18446744073709551616}}}",
                   &pg, &total, &listed), ARB_EPROTO);
    CHECK_INT(pg.k, 0);
    CHECK_INT(page(HEAD "\"subjects\":{\"a\":18446744073709551619}}}",
                   &pg, &total, &listed), ARB_EPROTO);
    CHECK_INT(page(HEAD "\"subjects\":{\"a\":18446744073709551615}}}",
                   &pg, &total, &listed), 0);
    CHECK(pg.k == 1 && pg.n[0] == UINT64_MAX);
    CHECK_INT(page("{\"total\":3,\"config\":{},\"created\":\"\"}", &pg,
                   &total, &listed), ARB_EPROTO);
    CHECK_INT(page(HEAD "\"subjects\":{\"a\\u00", &pg, &total, &listed),
              ARB_EPROTO);
    /* \u and four hex digits, nothing else: strtoul read "+041" and
     * " 41" as 'A' (no test failed when they were taken). */
    CHECK_INT(page(HEAD "\"subjects\":{\"a\\u+041\":1}}}", &pg, &total,
                   &listed), ARB_EPROTO);
    CHECK_INT(pg.k, 0);
    CHECK_INT(page(HEAD "\"subjects\":{\"a\\u 41\":1}}}", &pg, &total,
                   &listed), ARB_EPROTO);
    CHECK_INT(page(HEAD "\"subjects\":{\"a\\u004A\":1}}}", &pg, &total,
                   &listed), 0);
    CHECK_STR(pg.seen[0], "aJ");
    CHECK_INT(page("", &pg, &total, &listed), ARB_EPROTO);
}

/* What a failed call means to the caller: retry (an election, an
 * outage), not there, or a real error; and the message names both. */
static void
test_err(void)
{
    arb_buf_t why = ARB_BUF_INIT;

    /* a stream without a leader answers 10008 until one is elected: the
     * publisher must wait for the stream, not hammer it as if broken */
    CHECK_INT(arb_stream_err(NATS_ERR, JSClusterNotAvailErr, "last message",
                             &why), ARB_EAGAIN);
    CHECK_STR(arb_buf_cstr(&why), "nats: last message: Error (JetStream "
              "error 10008)");
    {
        static const struct {
            natsStatus s;
            jsErrCode  j;
            int        rc;
        } c[] = {
            { NATS_ERR, JSClusterNotLeaderErr, ARB_EAGAIN },
            { NATS_ERR, JSNotEnabledErr, ARB_EAGAIN },
            { NATS_TIMEOUT, 0, ARB_EAGAIN },
            { NATS_NO_RESPONDERS, 0, ARB_EAGAIN },
            { NATS_CONNECTION_CLOSED, 0, ARB_EAGAIN },
            { NATS_ERR, JSNoMessageFoundErr, ARB_ENOTFOUND },
            { NATS_ERR, JSStreamNotFoundErr, ARB_ENOTFOUND },
            { NATS_NOT_FOUND, 0, ARB_ENOTFOUND },
            { NATS_NO_MEMORY, 0, ARB_ENOMEM },
        };
        size_t i;

        for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
            CHECK_INT(arb_stream_err(c[i].s, c[i].j, "x", NULL), c[i].rc);
    }
    /* a refused expectation is not a retry */
    CHECK_INT(arb_stream_err(NATS_ERR, JSStreamWrongLastSequenceErr, "put",
                             &why), ARB_EIO);
    CHECK_STR(arb_buf_cstr(&why), "nats: put: Error (JetStream error "
              "10071)");
    arb_buf_free(&why);
}

int
main(void)
{
    if (sodium_init() < 0 || nats_Open(-1) != NATS_OK)
        return 1;
    test_tokens();
    test_edges();
    test_ev_msg();
    test_deal();
    test_deal_bad();
    test_subject_pages();
    test_err();
    nats_Close();
    return TEST_END();
}
