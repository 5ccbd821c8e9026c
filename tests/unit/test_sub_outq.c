/*
 * test_sub_outq.c - a live subscriber that one push would take past
 * outq_max is cut off with a `slow` push (daemon/sub.c, push_event),
 * not dropped without a word by the connection's own cap (server.c);
 * one whose unsent output stays under 3/4 of outq_max is not cut, and
 * one past it is, before the next push.
 *
 * The other bounds hide that check: a live subscriber is cut at 3/4 of
 * outq_max before a push, and a catch-up pauses at half.  So the push
 * must be larger than a quarter of outq_max and arrive while the unsent
 * output is under 3/4 but over outq_max less the push.  What the kernel
 * takes of a socket's output cannot be known, but the pushes of one
 * commit leave corked (server.c): until the commit's last push they all
 * count as unsent, whatever the kernel would take.  So one commit holds
 * six notes of about 4 KiB and then a claim of 250 records, about
 * 48 KiB encoded (a claim is the one kind whose records are not held to
 * ARB_ARGS_MAX), with outq_max at its least, 64 KiB: the notes take the
 * subscriber's unsent output to about 24 KiB, well under 3/4 (48 KiB),
 * and the claim would take it to about 72 KiB.  The seven appends are
 * written in one write, so the daemon reads them together and commits
 * them together ("Where a commit starts", commit.c).
 *
 * The subscriber gets the six notes, then the `slow` push, then the
 * end; without the check the connection's cap closes it at once and the
 * corked notes are dropped with it, unsaid.
 */
#include <stdio.h>
#include <string.h>

#include <msgpack.h>

#include "core/mp.h"
#include "tests/daemon_harness.h"
#include "tests/test.h"

#define NOTES   6
#define NOTE    4000        /* a note's text: under ARB_STR_MAX */
#define RECORDS 250         /* a claim's records, about 200 bytes each */

static msgpack_unpacked res;
static char             code[64];

/* Begins a request frame in all (4 bytes of length, filled by
 * frame_end). */
static size_t
frame_begin(arb_buf_t *all, msgpack_packer *pk, uint64_t id, const char *op,
            size_t n)
{
    static const char hdr[4] = { 0, 0, 0, 0 };
    size_t            at = all->len;

    arb_buf_add(all, hdr, 4);
    arb_mp_packer_init(pk, all);
    msgpack_pack_map(pk, 3 + n);
    arb_mp_pack_kv_uint(pk, "v", 1);
    arb_mp_pack_kv_uint(pk, "id", id);
    arb_mp_pack_kv_str(pk, "op", op);
    return at;
}

static void
frame_end(arb_buf_t *all, size_t at)
{
    size_t body = all->len - at - 4;

    all->data[at] = (char)(body >> 24);
    all->data[at + 1] = (char)(body >> 16);
    all->data[at + 2] = (char)(body >> 8);
    all->data[at + 3] = (char)body;
}

/* A claim record of match F (as test_daemon_claim's), repeated to make
 * one big event: a claim is the one kind whose records are not held to
 * ARB_ARGS_MAX. */
static const char *const record =
    "{\"match_id\":\"F\",\"edition\":\"YAHchain-3e-ch34-3\",\"mode\":"
    "\"YCWS-144/3\",\"sota\":1,\"owner\":\"alice\",\"cards\":3,\"sequence\":"
    "[\"2\u2660\",\"3\u2660\",\"4\u2660\"],\"code\":\"BC-003\",\"face_sum\":9,"
    "\"bonus\":15,\"game_points\":24}";

/* The notes to match F, then the claim, as one write. */
static int
send_batch(arb_client_t *cl)
{
    arb_buf_t       all = ARB_BUF_INIT;
    msgpack_packer  pk;
    char            text[NOTE + 1];
    size_t          at, off = 0;
    ssize_t         w;
    int             i, rc;

    memset(text, 'n', NOTE);
    text[NOTE] = '\0';
    for (i = 0; i < NOTES; i++) {
        at = frame_begin(&all, &pk, 100 + (uint64_t)i, "append", 3);
        arb_mp_pack_kv_str(&pk, "match", "F");
        arb_mp_pack_kv_str(&pk, "kind", "note");
        text[0] = (char)('a' + i);
        arb_mp_pack_kv_str(&pk, "text", text);
        frame_end(&all, at);
    }
    at = frame_begin(&all, &pk, 200, "append", 5);
    arb_mp_pack_kv_str(&pk, "match", "F");
    arb_mp_pack_kv_str(&pk, "kind", "claim");
    arb_mp_pack_kv_str(&pk, "player", "alice");
    arb_mp_pack_kv_str(&pk, "text", "{\"totals\":{\"alice\":24,\"bob\":0}}");
    arb_mp_pack_cstr(&pk, "args");
    msgpack_pack_array(&pk, RECORDS);
    for (i = 0; i < RECORDS; i++)
        arb_mp_pack_cstr(&pk, record);
    frame_end(&all, at);
    if (all.oom)
        return -1;
    while (off < all.len) {
        w = write(arb_client_fd(cl), all.data + off, all.len - off);
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    rc = off == all.len ? 0 : -1;
    arb_buf_free(&all);
    return rc;
}

/* n notes of NOTE bytes to match m, as one write. */
static int
send_notes(arb_client_t *cl, const char *m, int n)
{
    arb_buf_t      all = ARB_BUF_INIT;
    msgpack_packer pk;
    char           text[NOTE + 1];
    size_t         at, off = 0;
    ssize_t        w;
    int            i, rc;

    memset(text, 'n', NOTE);
    text[NOTE] = '\0';
    for (i = 0; i < n; i++) {
        at = frame_begin(&all, &pk, 300 + (uint64_t)i, "append", 3);
        arb_mp_pack_kv_str(&pk, "match", m);
        arb_mp_pack_kv_str(&pk, "kind", "note");
        arb_mp_pack_kv_str(&pk, "text", text);
        frame_end(&all, at);
    }
    if (all.oom)
        return -1;
    while (off < all.len) {
        w = write(arb_client_fd(cl), all.data + off, all.len - off);
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    rc = off == all.len ? 0 : -1;
    arb_buf_free(&all);
    return rc;
}

/* The next push on the subscriber: its kind ("event", "error") into
 * kind, its error code into code; -1 at the end of the connection. */
static int
next_push(arb_client_t *cl, char *kind, size_t cap)
{
    arb_buf_t   why = ARB_BUF_INIT;
    const char *p = "";
    size_t      n = 0;
    int         rc;

    kind[0] = code[0] = '\0';
    rc = arb_client_read(cl, &res, &why);
    arb_buf_free(&why);
    if (rc != 0)
        return -1;
    if (arb_mp_get_bytes(&res.data, "push", &p, &n) == 0 && n < cap) {
        memcpy(kind, p, n);
        kind[n] = '\0';
    }
    if (strcmp(kind, "error") == 0)
        arb_client_error_code(&res, code, sizeof(code));
    return 0;
}

/* send_notes while the daemon is stopped, so that it finds them all in
 * one read (under its 64 KiB) and commits them together: written while
 * it reads, they came in two or more reads about half the time on a
 * busy machine, and the pushes of each commit left before the next. */
static int
send_held(arb_client_t *cl, const char *m, int n)
{
    int rc;

    kill(harness_pid, SIGSTOP);
    rc = send_notes(cl, m, n);
    kill(harness_pid, SIGCONT);
    return rc;
}

int
main(void)
{
    arb_client_t   *cl, *sub;
    msgpack_packer *pk;
    char            kind[32];
    int             i, events = 0;

    if (harness_init("outq_max = 65536\n", 60) != 0)
        return 1;
    msgpack_unpacked_init(&res);
    harness_start();
    cl = harness_connect(HARNESS_ARBITER);
    sub = harness_connect(HARNESS_READER);
    CHECK(cl != NULL && sub != NULL);
    if (cl == NULL || sub == NULL)
        goto out;
    /* Every match, live from the first position (the log is empty). */
    arb_client_begin(sub, &pk, "subscribe", 1);
    arb_mp_pack_kv_uint(pk, "from", 1);
    CHECK_INT(harness_call(sub, &res, code, sizeof(code)), 0);
    CHECK_INT(harness_open_yah(cl, "F", &res, code, sizeof(code)), 0);
    /* F's open reaches the subscriber, which reads it: nothing unsent. */
    CHECK_INT(next_push(sub, kind, sizeof(kind)), 0);
    CHECK_STR(kind, "event");
    CHECK_INT(send_batch(cl), 0);
    for (i = 0; i < NOTES + 1; i++) {
        CHECK_INT(harness_answer(cl, &res, code, sizeof(code)), 0);
        CHECK_INT(arb_client_uint(&res, "seq"), i + 1);
    }
    /* The notes, then the word, then the end. */
    while (next_push(sub, kind, sizeof(kind)) == 0
           && strcmp(kind, "event") == 0)
        events++;
    CHECK_INT(events, NOTES);
    CHECK_STR(kind, "error");
    CHECK_STR(code, "slow");
    CHECK_INT(next_push(sub, kind, sizeof(kind)), -1);
    CHECK_INT(harness_log_count("cannot keep up"), 1);
    CHECK_INT(harness_log_count("over outq_max"), 0);
    /* Under 3/4 of outq_max a live subscriber is not cut: ten notes of
     * one commit, about 43 KiB of corked pushes, past half of it (where
     * a catch-up pauses) but not past 3/4, all reach a subscriber of G,
     * which stays (no test failed when the cut came at half). */
    arb_client_close(sub);
    sub = harness_connect(HARNESS_READER);
    CHECK(sub != NULL);
    if (sub == NULL)
        goto out;
    CHECK_INT(harness_open_yah(cl, "G", &res, code, sizeof(code)), 0);
    arb_client_begin(sub, &pk, "subscribe", 1);
    arb_mp_pack_kv_str(pk, "match", "G");
    CHECK_INT(harness_call(sub, &res, code, sizeof(code)), 0);
    CHECK_INT(send_held(cl, "G", 10), 0);
    for (i = 0; i < 10; i++)
        CHECK_INT(harness_answer(cl, &res, code, sizeof(code)), 0);
    CHECK_INT(send_notes(cl, "G", 1), 0);
    CHECK_INT(harness_answer(cl, &res, code, sizeof(code)), 0);
    events = 0;
    while (events < 11 && next_push(sub, kind, sizeof(kind)) == 0
           && strcmp(kind, "event") == 0)
        events++;
    CHECK_INT(events, 11);
    CHECK_INT(harness_log_count("cannot keep up"), 1);
    /* Past 3/4 it is: of thirteen notes of one commit, about 4.3 KiB a
     * push, a subscriber of H gets about a dozen, then `slow` (no test
     * failed when a subscriber of one match was cut only where the next
     * push would pass outq_max, after fourteen or fifteen). */
    arb_client_close(sub);
    sub = harness_connect(HARNESS_READER);
    CHECK(sub != NULL);
    if (sub == NULL)
        goto out;
    CHECK_INT(harness_open_yah(cl, "H", &res, code, sizeof(code)), 0);
    arb_client_begin(sub, &pk, "subscribe", 1);
    arb_mp_pack_kv_str(pk, "match", "H");
    CHECK_INT(harness_call(sub, &res, code, sizeof(code)), 0);
    CHECK_INT(send_held(cl, "H", 13), 0);
    for (i = 0; i < 13; i++)
        CHECK_INT(harness_answer(cl, &res, code, sizeof(code)), 0);
    events = 0;
    while (next_push(sub, kind, sizeof(kind)) == 0
           && strcmp(kind, "event") == 0)
        events++;
    CHECK(events >= 10 && events <= 13);
    CHECK_STR(code, "slow");
    CHECK_INT(harness_log_count("cannot keep up"), 2);
    /* History alone never cuts a subscriber off: F read from its open
     * by a catch-up, the notes corked with the subscribe's answer, then
     * the claim that one push would take past outq_max, comes whole; the
     * claim waits until the notes are written (until 2026-12-07 the
     * catch-up was cut off as `slow` there, at every resubscribe). */
    arb_client_close(sub);
    sub = harness_connect(HARNESS_READER);
    CHECK(sub != NULL);
    if (sub == NULL)
        goto out;
    arb_client_begin(sub, &pk, "subscribe", 2);
    arb_mp_pack_kv_str(pk, "match", "F");
    arb_mp_pack_kv_uint(pk, "from", 0);
    CHECK_INT(harness_call(sub, &res, code, sizeof(code)), 0);
    events = 0;
    while (events < NOTES + 2 && next_push(sub, kind, sizeof(kind)) == 0
           && strcmp(kind, "event") == 0) {
        CHECK_INT(arb_client_uint(&res, "seq"), events);
        events++;
    }
    CHECK_INT(events, NOTES + 2);
    CHECK_STR(code, "");
    CHECK_INT(harness_log_count("cannot keep up"), 2);
out:
    arb_client_close(sub);
    arb_client_close(cl);
    msgpack_unpacked_destroy(&res);
    harness_done(test_failed_);
    return TEST_END();
}
