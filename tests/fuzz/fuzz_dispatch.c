/*
 * fuzz_dispatch.c - the daemon's request dispatch (arb_dispatch(), the
 * one entry point every request frame goes through) with a real store.
 *
 * Each input is one connection: byte 0 picks the token it authenticates
 * with (none, reader, scorer limited to matches "M1" and "T1", arbiter),
 * whether the loop runs between requests (commits complete, acks go
 * out) or every request is pipelined before the first commit, and when
 * the commit worker starts a job (see below); the rest is
 * the byte stream the client sends, cut into frames by the daemon's frame
 * reader.  The connection is a socketpair whose far end the harness
 * reads, frame by frame.
 *
 * DESIGN: opening an LMDB environment (two of them: log and index) costs
 * more than a whole input, so one store serves RESET_EVERY inputs, in a
 * private directory (disk_scratch_make: under /dev/shm when there is
 * one, so commits cost no disk; removed whole at exit, and by the next
 * run when this one crashed or was killed).  Each input still sees a
 * store of its own matches only: a request's "match" is renamed to
 * "<match>+<tag>", the tag naming the input (the scorer's token names its
 * matches with the same tag), so one input never finds another's match.
 * So are a round's "tournament" and the MATCH of each
 * "TABLE:MATCH:PLAYERS" of its "tables".  Ids too long to take the tag
 * (over 61 bytes) keep their name.  Renaming re-packs the request map; a
 * frame that does not unpack goes in unchanged.  The signing key is loaded
 * once; the rest of the server's state is new for each input.  The
 * store, the tag, the tokens and the commit worker on the loop thread
 * (byte 0 says whether a job's work runs at once or at the loop's next
 * turn) are tests/fuzz/server_fixture.h's.  The gathering timer is made
 * due as soon as the loop settles (dh_gather_now).
 *
 * Invariants: no crash, leak or sanitizer report; every frame the daemon
 * sends is a map that is a response ("ok") or a push ("push"); every
 * request gets exactly one response (at most one when the daemon ends
 * the connection itself), so a client never hangs; at most one commit
 * job at a time; the loop ends with no handle or request left over (none
 * active, and none open but the worker's own); the store's hash chains
 * verify (the matches this input touched after each input, every match
 * before each reset).
 *
 * Corpus: tests/fuzz/corpus/dispatch (request streams of each op).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/hash.h"
#include "core/mp.h"
#include "tests/dispatch_harness.h"
#include "tests/fuzz/server_fixture.h"

/* Packs match id p[0..n) with this input's tag, and notes the id for
 * the verification after the input. */
static void
pack_id(msgpack_packer *pk, const char *p, size_t n)
{
    char id[ARB_STORE_ID_MAX + 1];

    memcpy(id, p, n);
    id[n++] = '+';
    memcpy(id + n, tag, 2);
    n += 2;
    id[n] = '\0';
    msgpack_pack_str(pk, n);
    msgpack_pack_str_body(pk, id, n);
    note_touched(id);
}

static void
pack_tagged(msgpack_packer *pk, const msgpack_object *v)
{
    pack_id(pk, v->via.str.ptr, v->via.str.size);
}

/* A round's table "TABLE:MATCH:PLAYERS" with its MATCH tagged; as it is
 * when it has no such MATCH or one too long. */
static void
pack_table(msgpack_packer *pk, const msgpack_object *v)
{
    const char *s = v->via.str.ptr, *c1, *c2;
    size_t      n = v->via.str.size;
    arb_buf_t   b = ARB_BUF_INIT;

    c1 = memchr(s, ':', n);
    c2 = c1 != NULL ? memchr(c1 + 1, ':', n - (size_t)(c1 + 1 - s)) : NULL;
    if (c2 == NULL || (size_t)(c2 - c1 - 1) > TAGGED_ID_MAX
        || c2 == c1 + 1) {
        msgpack_pack_object(pk, *v);
        return;
    }
    arb_buf_add(&b, s, (size_t)(c2 - s));
    arb_buf_putc(&b, '+');
    arb_buf_add(&b, tag, 2);
    arb_buf_add(&b, c2, n - (size_t)(c2 - s));
    FUZZ_CHECK(!b.oom);
    msgpack_pack_str(pk, b.len);
    msgpack_pack_str_body(pk, b.data, b.len);
    arb_buf_free(&b);
}

/* Whether key k (with value v) names a match id to tag: 1 "match" or
 * "tournament" (a string short enough), 2 "tables" (an array). */
static int
tag_kind(const msgpack_object *k, const msgpack_object *v)
{
    if (k->type != MSGPACK_OBJECT_STR)
        return 0;
    if (((k->via.str.size == 5 && memcmp(k->via.str.ptr, "match", 5) == 0)
         || (k->via.str.size == 10
             && memcmp(k->via.str.ptr, "tournament", 10) == 0))
        && v->type == MSGPACK_OBJECT_STR && v->via.str.size <= TAGGED_ID_MAX)
        return 1;
    if (k->via.str.size == 6 && memcmp(k->via.str.ptr, "tables", 6) == 0
        && v->type == MSGPACK_OBJECT_ARRAY)
        return 2;
    return 0;
}

/* The frame with its match ids tagged (see DESIGN), in out; or the frame
 * itself when it has no match id to tag. */
static void
tag_frame(const char **frame, size_t *len, arb_buf_t *out)
{
    msgpack_unpacked      u;
    msgpack_packer        pk;
    const msgpack_object *map, *k, *v;
    size_t                i, j, tagged = 0;

    msgpack_unpacked_init(&u);
    if (arb_mp_parse(&u, *frame, *len, NULL) != 0)
        goto done;
    map = &u.data;
    for (i = 0; i < map->via.map.size; i++)
        tagged += tag_kind(&map->via.map.ptr[i].key,
                           &map->via.map.ptr[i].val) != 0;
    if (tagged == 0)
        goto done;
    out->len = 0;
    arb_mp_packer_init(&pk, out);
    msgpack_pack_map(&pk, map->via.map.size);
    for (i = 0; i < map->via.map.size; i++) {
        k = &map->via.map.ptr[i].key;
        v = &map->via.map.ptr[i].val;
        msgpack_pack_object(&pk, *k);
        switch (tag_kind(k, v)) {
        case 1:
            pack_tagged(&pk, v);
            break;
        case 2:
            msgpack_pack_array(&pk, v->via.array.size);
            for (j = 0; j < v->via.array.size; j++)
                if (v->via.array.ptr[j].type == MSGPACK_OBJECT_STR)
                    pack_table(&pk, &v->via.array.ptr[j]);
                else
                    msgpack_pack_object(&pk, v->via.array.ptr[j]);
            break;
        default:
            msgpack_pack_object(&pk, *v);
        }
    }
    FUZZ_CHECK(!out->oom);
    *frame = out->data;
    *len = out->len;
done:
    msgpack_unpacked_destroy(&u);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static arb_server_t srv;
    dh_conn_t           d;
    arb_buf_t           why = ARB_BUF_INIT, tagged = ARB_BUF_INIT;
    const char         *frame;
    size_t              len, off, chunk, handles;
    int                 rc, step, mode, server_closed;

    if (size == 0)
        return 0;
    mode = data[0];
    setup_server(&srv);
    dh_conn_open(&d, &srv);

    step = (mode & 4) != 0;
    worker_early = (mode & 8) != 0;
    if (secrets[mode & 3] != NULL) {
        dh_auth(&d, secrets[mode & 3]);
        dh_settle(&d);
    }
    /* The client's bytes, in chunks as a socket might deliver them. */
    off = 1;
    while (off < size && !dh_ended(&d)) {
        chunk = 1 + (size_t)data[off] * 7;
        if (chunk > size - off)
            chunk = size - off;
        rc = arb_frame_reader_feed(&d.c->rd, (const char *)data + off,
                                   chunk);
        off += chunk;
        while (rc >= 0 && !dh_ended(&d)
               && (rc = arb_frame_reader_next(&d.c->rd, &frame, &len)) == 1) {
            tag_frame(&frame, &len, &tagged);
            dh_send(&d, frame, len);
            if (step)
                dh_settle(&d);
        }
        if (rc < 0)
            break;
    }
    dh_settle(&d);
    /* A client never hangs: one response per request while the
     * connection lasts; never two. */
    server_closed = dh_ended(&d);
    if (!server_closed && d.answers != d.requests)
        fprintf(stderr, "%zu requests, %zu responses\n", d.requests,
                d.answers);
    FUZZ_CHECK(server_closed || d.answers == d.requests);
    dh_conn_close(&d);
    FUZZ_CHECK(d.answers <= d.requests);
    FUZZ_CHECK(job == NULL && !srv.committing);
    /* The gathering timer and the catch-ups' idle handle are the
     * server's, not the connection's: closed as a stop closes them; then
     * nothing is left in the loop. */
    arb_commit_close(&srv);
    arb_sub_close(&srv);
    while (uv_run(&loop, UV_RUN_NOWAIT) != 0)
        ;
    handles = 0;
    uv_walk(&loop, count_handle, &handles);
    FUZZ_CHECK(handles == 0);

    verify_touched();
    arb_live_free_all(&srv);
    arb_commit_free(&srv);
    arb_checkpoint_clear(&srv);
    arb_buf_free(&why);
    arb_buf_free(&tagged);
    return 0;
}
