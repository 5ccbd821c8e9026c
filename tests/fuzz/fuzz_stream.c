/*
 * fuzz_stream.c - a message read back from the NATS stream
 * (arb_stream_msg_parse, proto/stream.c: what a read replica and
 * `arbiter restore --from-stream` trust), and the subject tokens of match
 * ids, on arbitrary bytes.  The input is a message written like HTTP: the
 * subject on the first line, then "Key: value" header lines up to an empty
 * line, then the payload.  No server: the message is built with libnats.
 *
 * Invariants: a message accepted names a valid match id, its subject is
 * exactly the one the recorder publishes for that id and kind, its
 * Arbiter-Match header is that id, an event has a payload and a hash
 * that prints back as its header, a recorder name is valid; a refusal
 * gives a reason, and the message is released either way (no leak).  A
 * subject token that decodes to a match id encodes back to itself.  The
 * first line is also read as a time of JetStream's API
 * (arb_stream_time_ns): never negative, and one taken is laid out as
 * RFC 3339 in UTC.
 *
 * Corpus: tests/fuzz/corpus/stream (event and deal messages, bad headers,
 * a time).
 */
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "core/buf.h"
#include "core/ledger/chain.h"
#include "proto/stream.h"
#include "proto/stream_time.h"
#include "tests/fuzz/fuzz.h"

#define LINE_MAX_ 512

/* The next line of data[*off..size) into out (NUL-terminated, cut to
 * LINE_MAX_); 0 at the end of the input. */
static int
next_line(const uint8_t *data, size_t size, size_t *off, char *out)
{
    const uint8_t *nl;
    size_t         n;

    if (*off >= size)
        return 0;
    nl = memchr(data + *off, '\n', size - *off);
    n = nl != NULL ? (size_t)(nl - (data + *off)) : size - *off;
    memcpy(out, data + *off, n < LINE_MAX_ ? n : LINE_MAX_ - 1);
    out[n < LINE_MAX_ ? n : LINE_MAX_ - 1] = '\0';
    *off += nl != NULL ? n + 1 : n;
    return 1;
}

static void
check_token(const char *token)
{
    char id[ARB_STREAM_ID_MAX + 1], back[ARB_STREAM_TOKEN_MAX + 1];

    if (arb_stream_token_decode(id, sizeof(id), token) != 0)
        return;
    FUZZ_CHECK(arb_stream_id_ok(id));
    FUZZ_CHECK(arb_stream_token_encode(back, sizeof(back), id) == 0);
    FUZZ_CHECK(strcmp(back, token) == 0);
}

static void
check_accepted(const arb_stream_msg_t *m, const char *subject)
{
    char        s[ARB_STREAM_SUBJECT_MAX + 1], hex[2 * ARB_HASH_LEN + 1];
    const char *v = NULL;

    FUZZ_CHECK(m->kind == ARB_STREAM_EV || m->kind == ARB_STREAM_DEAL);
    FUZZ_CHECK(arb_stream_id_ok(m->match_id));
    FUZZ_CHECK(arb_stream_subject(s, sizeof(s), m->kind, m->match_id) == 0);
    FUZZ_CHECK(strcmp(s, subject) == 0);
    FUZZ_CHECK(natsMsgHeader_Get(m->msg, ARB_STREAM_HDR_MATCH, &v)
               == NATS_OK && strcmp(v, m->match_id) == 0);
    FUZZ_CHECK(m->recorder[0] == '\0' || arb_stream_name_ok(m->recorder));
    if (m->kind == ARB_STREAM_DEAL)
        return;
    FUZZ_CHECK(m->len > 0 && m->bytes != NULL);
    arb_hex(hex, m->hash, ARB_HASH_LEN);
    FUZZ_CHECK(natsMsgHeader_Get(m->msg, ARB_STREAM_HDR_HASH, &v)
               == NATS_OK && strcasecmp(v, hex) == 0);
}

/* The first line read as a time of JetStream's API: never negative (no
 * overflow: UBSan watches), and one taken has the fixed layout, 20 to 30
 * characters ending in Z. */
static void
check_time(const char *t)
{
    int64_t ns = arb_stream_time_ns(t);
    size_t  n = strlen(t);

    FUZZ_CHECK(ns >= 0);
    if (ns > 0)
        FUZZ_CHECK(n >= 20 && n <= 30 && t[n - 1] == 'Z' && t[10] == 'T');
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char             subject[LINE_MAX_], line[LINE_MAX_], *colon, *val;
    size_t           off = 0, hdr_off;
    natsMsg         *msg = NULL;
    arb_stream_msg_t m;
    arb_buf_t        why = ARB_BUF_INIT;
    const char      *tok;

    static int       ready;

    /* libnats keeps global state (its message pool), set up once. */
    if (!ready) {
        FUZZ_CHECK(nats_Open(-1) == NATS_OK);
        ready = 1;
    }
    if (!next_line(data, size, &off, subject))
        return 0;
    tok = strrchr(subject, '.');
    check_token(tok != NULL ? tok + 1 : subject);
    check_time(subject);
    /* The headers first, then the payload: it starts after them. */
    hdr_off = off;
    while (next_line(data, size, &off, line) && line[0] != '\0')
        ;
    if (natsMsg_Create(&msg, subject, NULL, (const char *)data + off,
                       (int)(size - off)) != NATS_OK)
        return 0;
    while (next_line(data, size, &hdr_off, line) && line[0] != '\0') {
        colon = strchr(line, ':');
        if (colon == NULL)
            continue;
        *colon = '\0';
        for (val = colon + 1; *val == ' '; val++)
            ;
        (void)natsMsgHeader_Add(msg, line, val);
    }
    if (arb_stream_msg_parse(&m, msg, &why) == 0) {
        check_accepted(&m, subject);
    } else {
        FUZZ_CHECK(why.len > 0 || why.oom);
    }
    arb_stream_msg_clear(&m);
    arb_buf_free(&why);
    return 0;
}
