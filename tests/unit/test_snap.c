/*
 * test_snap.c - a match's state at another seq than its live one, through
 * the real daemon, is the replay's byte for byte at every seq, read
 * backwards (every read below the states kept) and forwards; and a read
 * starts from the kept state nearest at or before its seq (daemon/
 * snap.c): `stats.replayed_events` grows by the events after it, not by
 * the whole history (until 2026-12-06 every such read replayed from the
 * open, on the loop: about a second per 300,000 events).  Every seq of a
 * match of each game too, one with rulings and dealt ones still open.
 */
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/err.h"
#include "core/replay.h"
#include "daemon/server.h"
#include "tests/daemon_harness.h"
#include "tests/replay_text.h"
#include "tests/test.h"

#define LAST  144           /* C4, tests/data/yah3-cycles4.txt */

static msgpack_unpacked res;
static const char      *match = "C4";

/* The daemon's `state` json at seq at (malloc'd), or NULL. */
static char *
state_at(arb_client_t *cl, uint64_t at)
{
    msgpack_packer       *pk;
    arb_buf_t             why = ARB_BUF_INIT;
    const msgpack_object *j;
    char                 *out = NULL;

    arb_client_begin(cl, &pk, "state", 2);
    arb_mp_pack_kv_str(pk, "match", match);
    arb_mp_pack_kv_uint(pk, "at", at);
    if (arb_client_call(cl, &res, &why) == 0
        && (j = arb_client_get(&res, "json")) != NULL
        && j->type == MSGPACK_OBJECT_STR
        && (out = malloc(j->via.str.size + 1)) != NULL) {
        memcpy(out, j->via.str.ptr, j->via.str.size);
        out[j->via.str.size] = '\0';
    } else {
        fprintf(stderr, "state at %llu: %s\n", (unsigned long long)at,
                arb_buf_cstr(&why));
    }
    arb_buf_free(&why);
    return out;
}

/* The replay's report at seq at, from the transcript, as the reader
 * sees it (no digest while a match that hides cards runs). */
static char *
want_at(const char *text, uint64_t at)
{
    arb_match_t *m = replay_text(text, at);
    arb_buf_t    b = ARB_BUF_INIT;
    char        *out;
    int          hides;

    if (m == NULL || arb_report_json(&b, m) != 0) {
        arb_match_free(m);
        arb_buf_free(&b);
        return NULL;
    }
    hides = game_hides(arb_match_setup(m)->game) && !arb_match_closed(m);
    arb_match_free(m);
    out = strdup(arb_buf_cstr(&b));
    if (out != NULL && hides)
        digest_to_null(out);
    arb_buf_free(&b);
    return out;
}

/* The state at `at` equals the replay's, and took `events` replayed, in
 * one rebuild when there were any (no test failed when a rebuild from a
 * kept state was not counted in `replays`). */
static void
read_at(arb_client_t *cl, const char *text, uint64_t at, uint64_t events)
{
    uint64_t e0 = harness_stat(cl, &res, "replayed_events");
    uint64_t r0 = harness_stat(cl, &res, "replays");
    char    *got = state_at(cl, at), *want = want_at(text, at);

    CHECK(got != NULL && want != NULL);
    if (got != NULL && want != NULL && strcmp(got, want) != 0) {
        fprintf(stderr, "%s: state at %llu differs\n", match,
                (unsigned long long)at);
        CHECK_STR(got, want);
    }
    if (events != UINT64_MAX) {
        uint64_t n = harness_stat(cl, &res, "replayed_events") - e0;

        if (n != events)
            fprintf(stderr, "state at %llu: replayed %llu events, not "
                    "%llu\n", (unsigned long long)at,
                    (unsigned long long)n, (unsigned long long)events);
        CHECK_INT(n, events);
        /* one rebuild when it applied any (the open, seq 0, is read
         * whole, and counts one of none) */
        if (at > 0)
            CHECK_INT(harness_stat(cl, &res, "replays") - r0, events > 0);
    }
    free(got);
    free(want);
}

/* Every seq of a match of each game, backwards then forwards: one with
 * rulings (read whole: a kept state holds no moves to rebuild from), and
 * dealt ones still open (their deal from the recorder's secret). */
static void
every_seq(arb_client_t *cl)
{
    static const char *const files[] = {
        "tests/data/yah3-stands-void.txt", "tests/data/tsuku-simple.txt",
        "tests/data/chains-1v1-36-square.txt", "tests/data/chan-chiu-u.txt",
    };
    char         cmd[256], *text;
    arb_match_t *m;
    uint64_t     at, last;
    size_t       i;

    for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        snprintf(cmd, sizeof(cmd), "load %s", files[i]);
        CHECK_INT(harness_cli(cmd), 0);
        text = slurp(files[i]);
        m = text ? replay_text(text, UINT64_MAX) : NULL;
        CHECK(m != NULL);
        if (m == NULL) {
            free(text);
            continue;
        }
        match = arb_match_setup(m)->match_id;
        last = arb_match_next_seq(m) - 1;
        for (at = last + 1; at-- > 0;)
            read_at(cl, text, at, UINT64_MAX);
        for (at = 0; at <= last; at++)
            read_at(cl, text, at, UINT64_MAX);
        arb_match_free(m);
        free(text);
    }
}

/* A note with client id cid on match id; its seq, or UINT64_MAX. */
static uint64_t
note_cid(arb_client_t *cl, const char *id, const char *cid)
{
    msgpack_packer       *pk;
    const msgpack_object *o;
    char                  code[64];

    arb_client_begin(cl, &pk, "append", 4);
    arb_mp_pack_kv_str(pk, "match", id);
    arb_mp_pack_kv_str(pk, "kind", "note");
    arb_mp_pack_kv_str(pk, "text", "kept states");
    arb_mp_pack_kv_str(pk, "cid", cid);
    if (harness_call(cl, &res, code, sizeof(code)) != 0
        || (o = arb_client_get(&res, "seq")) == NULL
        || o->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
        return UINT64_MAX;
    return o->via.u64;
}

#define LONG_NOTES (2 * ARB_SNAP_EVERY + 100)
#define LONG_WINDOW 512

/* n notes on match id, LONG_WINDOW sent before their answers are read
 * (one at a time, as `arbiter load` sends them, they take a commit
 * each).  0 when each was acked. */
static int
notes(arb_client_t *cl, const char *id, uint64_t n)
{
    msgpack_packer *pk;
    arb_buf_t       why = ARB_BUF_INIT;
    char            code[64];
    uint64_t        sent = 0, acked = 0;

    while (acked < n) {
        for (; sent < n && sent - acked < LONG_WINDOW; sent++) {
            arb_client_begin(cl, &pk, "append", 3);
            arb_mp_pack_kv_str(pk, "match", id);
            arb_mp_pack_kv_str(pk, "kind", "note");
            arb_mp_pack_kv_str(pk, "text", "n");
            if (arb_client_send(cl, &why) != 0)
                break;
        }
        if (harness_answer(cl, &res, code, sizeof(code)) != 0)
            break;
        acked++;
    }
    arb_buf_free(&why);
    return acked == n ? 0 : -1;
}

/* One request frame (v, id, op and the fields packed by fill) added to
 * all. */
static void
frame(arb_buf_t *all, uint64_t id, const char *op, size_t nfields,
      void (*fill)(msgpack_packer *))
{
    static const char hdr[4] = { 0, 0, 0, 0 };
    msgpack_packer    pk;
    arb_buf_t         b = ARB_BUF_INIT;
    size_t            body;

    arb_buf_add(&b, hdr, 4);
    arb_mp_packer_init(&pk, &b);
    msgpack_pack_map(&pk, 3 + nfields);
    arb_mp_pack_kv_uint(&pk, "v", 1);
    arb_mp_pack_kv_uint(&pk, "id", id);
    arb_mp_pack_kv_str(&pk, "op", op);
    fill(&pk);
    body = b.len - 4;
    b.data[0] = (char)(body >> 24);
    b.data[1] = (char)(body >> 16);
    b.data[2] = (char)(body >> 8);
    b.data[3] = (char)body;
    arb_buf_add(all, b.data, b.len);
    arb_buf_free(&b);
}

static void
fill_move(msgpack_packer *pk)
{
    arb_mp_pack_kv_str(pk, "match", "FLIGHT");
    arb_mp_pack_kv_str(pk, "kind", "move");
    arb_mp_pack_kv_str(pk, "player", "bob");
    arb_mp_pack_kv_str(pk, "verb", "place");
    arb_mp_pack_cstr(pk, "args");
    msgpack_pack_array(pk, 1);
    arb_mp_pack_cstr(pk, "5S");
}

static void
fill_state(msgpack_packer *pk)
{
    arb_mp_pack_kv_str(pk, "match", "FLIGHT");
}

/* A state read while an append of its match is in flight (sent with it,
 * in one write: the daemon reads both before the append commits) is the
 * committed state, without the queued move; once the move is acked, a
 * read has it (no test failed when the live match, which has judged the
 * queued move, answered the read). */
static void
in_flight(arb_client_t *cl)
{
    msgpack_packer       *pk;
    const msgpack_object *j;
    arb_buf_t             all = ARB_BUF_INIT;
    char                  code[64], *got;
    int                   i, acked = 0, read = 0;

    CHECK_INT(harness_open_yah(cl, "FLIGHT", &res, code, sizeof(code)), 0);
    arb_client_begin(cl, &pk, "append", 5);
    arb_mp_pack_kv_str(pk, "match", "FLIGHT");
    arb_mp_pack_kv_str(pk, "kind", "move");
    arb_mp_pack_kv_str(pk, "player", "alice");
    arb_mp_pack_kv_str(pk, "verb", "place");
    arb_mp_pack_cstr(pk, "args");
    msgpack_pack_array(pk, 1);
    arb_mp_pack_cstr(pk, "4S");
    CHECK_INT(harness_call(cl, &res, code, sizeof(code)), 0);
    frame(&all, 901, "append", 5, fill_move);
    frame(&all, 902, "state", 1, fill_state);
    CHECK(write(arb_client_fd(cl), all.data, all.len) == (ssize_t)all.len);
    arb_buf_free(&all);
    for (i = 0; i < 2; i++) {
        if (harness_answer(cl, &res, code, sizeof(code)) != 0)
            break;
        if ((j = arb_client_get(&res, "json")) != NULL
            && j->type == MSGPACK_OBJECT_STR) {
            read = 1;
            got = strndup(j->via.str.ptr, j->via.str.size);
            CHECK(got != NULL && strstr(got, "\"seq\":1,") != NULL);
            CHECK(got != NULL && strstr(got, "5\xe2\x99\xa0") == NULL);
            free(got);
        } else {
            acked = arb_client_uint(&res, "seq") == 2;
        }
    }
    CHECK(read && acked);
    match = "FLIGHT";
    got = state_at(cl, 2);
    CHECK(got != NULL && strstr(got, "5\xe2\x99\xa0") != NULL);
    free(got);
}

static void
fill_close(msgpack_packer *pk)
{
    arb_mp_pack_kv_str(pk, "match", "BATCH");
    arb_mp_pack_kv_str(pk, "kind", "close");
    arb_mp_pack_kv_str(pk, "text", "done");
}

static void
fill_claim(msgpack_packer *pk)
{
    arb_mp_pack_kv_str(pk, "match", "BATCH");
    arb_mp_pack_kv_str(pk, "kind", "claim");
    arb_mp_pack_kv_str(pk, "text", "{\"totals\":{}}");
}

/* A close and a claim after it, in one write: one commit takes both,
 * and the match leaves memory after the claim, its last event of the
 * batch, not after the close (no test failed when it went at the close
 * and the claim's ack went on with a freed match); both are acked, and
 * the daemon goes on. */
static void
close_batch(arb_client_t *cl)
{
    arb_buf_t all = ARB_BUF_INIT;
    char      code[64], *got;
    int       i, n = 0;

    CHECK_INT(harness_open_yah(cl, "BATCH", &res, code, sizeof(code)), 0);
    frame(&all, 911, "append", 3, fill_close);
    frame(&all, 912, "append", 3, fill_claim);
    CHECK(write(arb_client_fd(cl), all.data, all.len) == (ssize_t)all.len);
    arb_buf_free(&all);
    for (i = 0; i < 2; i++)
        if (harness_answer(cl, &res, code, sizeof(code)) == 0)
            n += arb_client_uint(&res, "seq") == (uint64_t)i + 1;
        else
            fprintf(stderr, "close_batch: %s\n", code);
    CHECK_INT(n, 2);
    match = "BATCH";
    got = state_at(cl, 2);
    CHECK(got != NULL && strstr(got, "\"closed\":true") != NULL);
    free(got);
}

static void
fill_state_other(msgpack_packer *pk)
{
    arb_mp_pack_kv_str(pk, "match", "BATCH2");
}

/* A claim queued on the closed match last loaded for a read, and a read
 * of another closed match after it, in one write: the read loads the
 * other one, and the first stays until its claim is committed (no test
 * failed when it was let go with the claim in flight). */
static void
claim_in_flight(arb_client_t *cl)
{
    msgpack_packer *pk;
    arb_buf_t       all = ARB_BUF_INIT;
    char            code[64], *got;
    int             i, n = 0;

    CHECK_INT(harness_open_yah(cl, "BATCH2", &res, code, sizeof(code)),
              0);
    arb_client_begin(cl, &pk, "append", 3);
    arb_mp_pack_kv_str(pk, "match", "BATCH2");
    arb_mp_pack_kv_str(pk, "kind", "close");
    arb_mp_pack_kv_str(pk, "text", "done");
    CHECK_INT(harness_call(cl, &res, code, sizeof(code)), 0);
    match = "BATCH";
    got = state_at(cl, 2);          /* BATCH is the one loaded last */
    free(got);
    frame(&all, 921, "append", 3, fill_claim);
    frame(&all, 922, "state", 1, fill_state_other);
    CHECK(write(arb_client_fd(cl), all.data, all.len) == (ssize_t)all.len);
    arb_buf_free(&all);
    for (i = 0; i < 2; i++)
        if (harness_answer(cl, &res, code, sizeof(code)) == 0)
            n += arb_client_get(&res, "json") != NULL
                 || arb_client_uint(&res, "seq") == 3;
        else
            fprintf(stderr, "claim_in_flight: %s\n", code);
    CHECK_INT(n, 2);
    got = state_at(cl, 3);
    CHECK(got != NULL && strstr(got, "\"closed\":true") != NULL);
    free(got);
}

/* A ruling at a seq where a rebuild keeps a state: the rebuild stops
 * there (a kept state holds no moves to rule on) and keeps nothing, so a
 * read at that seq again is the whole replay's too (no test failed when
 * the state before the ruling was kept as the state after it). */
static void
ruling_kept(arb_client_t *cl)
{
    msgpack_packer *pk;
    char            code[64], *a, *b;

    CHECK_INT(harness_open_yah(cl, "RULED", &res, code, sizeof(code)), 0);
    arb_client_begin(cl, &pk, "append", 5);
    arb_mp_pack_kv_str(pk, "match", "RULED");
    arb_mp_pack_kv_str(pk, "kind", "move");
    arb_mp_pack_kv_str(pk, "player", "alice");
    arb_mp_pack_kv_str(pk, "verb", "place");
    arb_mp_pack_cstr(pk, "args");
    msgpack_pack_array(pk, 1);
    arb_mp_pack_cstr(pk, "4S");
    CHECK_INT(harness_call(cl, &res, code, sizeof(code)), 0);
    CHECK_INT(notes(cl, "RULED", ARB_SNAP_EVERY - 2), 0);
    arb_client_begin(cl, &pk, "append", 4);
    arb_mp_pack_kv_str(pk, "match", "RULED");
    arb_mp_pack_kv_str(pk, "kind", "void");
    arb_mp_pack_kv_uint(pk, "target", 1);
    arb_mp_pack_kv_str(pk, "text", "dropped card");
    CHECK_INT(harness_call(cl, &res, code, sizeof(code)), 0);
    CHECK_INT(arb_client_uint(&res, "seq"), ARB_SNAP_EVERY);
    CHECK_INT(notes(cl, "RULED", 1), 0);
    match = "RULED";
    a = state_at(cl, ARB_SNAP_EVERY);
    b = state_at(cl, ARB_SNAP_EVERY);
    CHECK(a != NULL && b != NULL);
    if (a != NULL && b != NULL)
        CHECK_STR(b, a);
    CHECK(a != NULL && strstr(a, "\"rulings\"") != NULL);
    free(a);
    free(b);
}

/* A long open match, touched first after a restart by an append: it is
 * rebuilt event by event from its open, keeping states on the way, so a
 * read of an earlier seq starts from one of them (until 2026-12-06 the
 * load kept none: the read replayed from the open); and the client ids it
 * met on the way still answer a retry as the event it sent. */
static void
long_restart(void)
{
    arb_client_t *cl = harness_connect(HARNESS_ARBITER);
    uint64_t      e0, i;
    char          code[64];

    CHECK(cl != NULL);
    if (cl == NULL)
        return;
    CHECK_INT(harness_open_yah(cl, "LONG", &res, code, sizeof(code)), 0);
    CHECK_INT(notes(cl, "LONG", LONG_NOTES), 0);
    CHECK_INT(note_cid(cl, "LONG", "before-restart"), LONG_NOTES + 1);
    arb_client_close(cl);
    harness_stop(SIGTERM);
    harness_start();
    cl = harness_connect(HARNESS_SCORER);
    CHECK(cl != NULL);
    if (cl == NULL)
        return;
    e0 = harness_stat(cl, &res, "replayed_events");
    CHECK_INT(note_cid(cl, "LONG", "after-restart"), LONG_NOTES + 2);
    CHECK_INT(harness_stat(cl, &res, "replayed_events") - e0,
              LONG_NOTES + 1);
    /* the retry of the event acked before the restart: the same seq */
    CHECK_INT(note_cid(cl, "LONG", "before-restart"), LONG_NOTES + 1);
    e0 = harness_stat(cl, &res, "replayed_events");
    match = "LONG";
    for (i = 0; i < 2; i++) {
        /* from the states kept at 16384 and 32768 */
        char *got = state_at(cl, (i + 1) * ARB_SNAP_EVERY + 10 - 9 * i);

        CHECK(got != NULL);
        free(got);
        CHECK_INT(harness_stat(cl, &res, "replayed_events") - e0,
                  10 + i);
    }
    arb_client_close(cl);
}

/* The kept states' table itself (daemon/snap.c), on the store the daemon
 * left (stopped): a state is taken only with the hash it was kept with,
 * one kept with another is dropped so that the right one can be kept in
 * its place, a state of one match never answers for another, a state
 * kept again is not kept twice, and the least recently used goes first
 * (no test failed when any of these was not so: a read replayed more,
 * or a stale state stayed in the table until it was pushed out). */
static void
table(const char *text)
{
    arb_server_t   srv;
    arb_store_opts_t o;
    arb_match_t   *m = replay_text(text, 10), *got = NULL;
    unsigned char  h[ARB_SNAPS + 2][ARB_HASH_LEN], bad[ARB_HASH_LEN];
    char           dir[300];
    uint64_t       seq = 0, i;
    int            ok = 1;

    memset(&srv, 0, sizeof(srv));
    memset(&o, 0, sizeof(o));
    o.read_only = 1;
    snprintf(dir, sizeof(dir), "%s/data", harness_dir);
    CHECK(m != NULL);
    CHECK_INT(arb_store_open(&srv.store, dir, &o, NULL), 0);
    if (m == NULL || srv.store == NULL) {
        arb_match_free(m);
        return;
    }
    for (i = 0; i < ARB_SNAPS + 2 && ok; i++)
        ok = arb_store_event_hash(srv.store, "C4", i, h[i], NULL) == 0;
    CHECK(ok);
    memcpy(bad, h[10], ARB_HASH_LEN);
    bad[0] ^= 1;
    /* kept with another hash: not taken, and dropped */
    arb_snap_put(&srv, "C4", 10, bad, m);
    CHECK_INT(arb_snap_get(&srv, "C4", 10, &got, &seq), ARB_ENOTFOUND);
    CHECK(got == NULL);
    arb_snap_put(&srv, "C4", 10, h[10], m);
    CHECK_INT(arb_snap_get(&srv, "C4", 12, &got, &seq), 0);
    CHECK_INT(seq, 10);
    CHECK(got != NULL);
    arb_match_free(got);
    got = NULL;
    /* another match asks: C4's is not its, and C4 keeps it */
    CHECK_INT(arb_snap_get(&srv, "Y-STANDS", 10, &got, &seq),
              ARB_ENOTFOUND);
    CHECK_INT(arb_snap_get(&srv, "C4", 10, &got, &seq), 0);
    arb_match_free(got);
    got = NULL;
    /* another match's at the same seq is kept beside it */
    arb_snap_free_all(&srv);
    CHECK(arb_store_event_hash(srv.store, "Y-STANDS", 1, bad, NULL) == 0);
    arb_snap_put(&srv, "C4", 1, h[1], m);
    arb_snap_put(&srv, "Y-STANDS", 1, bad, m);
    CHECK_INT(arb_snap_get(&srv, "Y-STANDS", 1, &got, &seq), 0);
    arb_match_free(got);
    got = NULL;
    /* seqs 1..ARB_SNAPS fill the table; 1 kept again is not kept twice
     * (2 stays); 2 and 3 are read, so ARB_SNAPS + 1 takes the place of
     * 4, the least recently used */
    arb_snap_free_all(&srv);
    for (i = 1; i <= ARB_SNAPS; i++)
        arb_snap_put(&srv, "C4", i, h[i], m);
    arb_snap_put(&srv, "C4", 1, h[1], m);
    for (i = 2; i <= 3; i++) {
        seq = 0;
        CHECK_INT(arb_snap_get(&srv, "C4", i, &got, &seq), 0);
        CHECK_INT(seq, i);
        arb_match_free(got);
        got = NULL;
    }
    arb_snap_put(&srv, "C4", ARB_SNAPS + 1, h[ARB_SNAPS + 1], m);
    for (i = 2; i <= 4; i++) {
        seq = 0;
        CHECK_INT(arb_snap_get(&srv, "C4", i, &got, &seq), 0);
        CHECK_INT(seq, i < 4 ? i : 3);  /* 4 went: the nearest before */
        arb_match_free(got);
        got = NULL;
    }
    /* A state pushed out is freed: 100 rounds of ARB_SNAPS + 1 seqs,
     * each put pushing one out, leave the heap as one round left it (no
     * test failed when the one pushed out was overwritten unfreed). */
    {
        size_t before = 0, after;

        for (i = 0; i < 101 * (ARB_SNAPS + 1); i++) {
            if (i == ARB_SNAPS + 1)
                before = mallinfo2().uordblks;
            arb_snap_put(&srv, "C4", i % (ARB_SNAPS + 1) + 1,
                         h[i % (ARB_SNAPS + 1) + 1], m);
        }
        after = mallinfo2().uordblks;
        if (after > before + 65536)
            fprintf(stderr, "kept states: heap %zu -> %zu bytes\n",
                    before, after);
        CHECK(after <= before + 65536);
    }
    arb_snap_free_all(&srv);
    arb_store_close(srv.store);
    arb_match_free(m);
}

int
main(void)
{
    arb_client_t *cl;
    char         *text = slurp("tests/data/yah3-cycles4.txt");
    uint64_t      at;

    if (text == NULL || harness_init(NULL, 60) != 0)
        return 1;
    msgpack_unpacked_init(&res);
    harness_start();
    CHECK_INT(harness_cli("load tests/data/yah3-cycles4.txt"), 0);
    cl = harness_connect(HARNESS_READER);
    CHECK(cl != NULL);
    if (cl != NULL) {
        read_at(cl, text, 100, 100);   /* from the open */
        read_at(cl, text, 101, 1);     /* from the state kept at 100 */
        read_at(cl, text, 120, 19);
        read_at(cl, text, 50, 50);     /* nothing kept at or before 50 */
        read_at(cl, text, 50, 0);      /* kept */
        read_at(cl, text, 60, 10);
        read_at(cl, text, LAST, 0);    /* the live match */
        /* every seq, backwards then forwards, against the replay */
        for (at = LAST + 1; at-- > 0;)
            read_at(cl, text, at, UINT64_MAX);
        /* the 64 kept now are those of seqs 1..64, read last (the
         * open, seq 0, is never kept: it is read whole at once) */
        for (at = 0; at <= LAST; at++)
            read_at(cl, text, at, at <= 64 || at == LAST ? 0 : 1);
        every_seq(cl);
        arb_client_close(cl);
    }
    cl = harness_connect(HARNESS_ARBITER);
    CHECK(cl != NULL);
    if (cl != NULL) {
        ruling_kept(cl);
        in_flight(cl);
        close_batch(cl);
        claim_in_flight(cl);
        arb_client_close(cl);
    }
    long_restart();
    harness_stop(SIGTERM);
    table(text);
    free(text);
    msgpack_unpacked_destroy(&res);
    harness_done(test_failed_);
    return TEST_END();
}
