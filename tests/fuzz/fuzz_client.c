/*
 * fuzz_client.c - the client's reading of what a server sends
 * (proto/client.c: arb_client_read, arb_client_call and the response
 * readers every tool uses) on arbitrary bytes.  The input is the server's
 * side of a socketpair: byte 0 picks the reader (a read loop, or a call
 * that waits for its response among pushes and others' responses), the
 * rest is written to the client's socket before the server's end is shut.
 *
 * Invariants: no crash, leak or sanitizer report; every read ends (a
 * closed connection is ARB_EIO, never a hang); a failure is one of the
 * documented codes with a reason; a frame read is a map whose fields the
 * readers return only with their documented types.
 *
 * DESIGN: one client serves every input (arb_client_reopen_fd moves it to
 * the input's socketpair and resets it as a new client would be), because
 * allocating its 64 KiB receive buffer cost more than the rest of an
 * input under ASan.  The socketpair is new per input: shutting the
 * server's end is what ends every read with EOF, and cannot be undone.
 *
 * Corpus: tests/fuzz/corpus/client (responses, pushes, errors, bad
 * frames).
 */
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/err.h"
#include "core/mp.h"
#include "proto/client.h"
#include "tests/fuzz/fuzz.h"

/* The readers on one frame: each answer has its documented shape. */
static void
check_frame(const msgpack_unpacked *res)
{
    const msgpack_object *e, *c;
    char                  code[32];
    uint64_t              v;

    FUZZ_CHECK(res->data.type == MSGPACK_OBJECT_MAP);
    /* A number only when the field is one. */
    v = arb_client_uint(res, "seq");
    c = arb_client_get(res, "seq");
    FUZZ_CHECK(v == 0 || (c->type == MSGPACK_OBJECT_POSITIVE_INTEGER
                          && c->via.u64 == v));
    /* A code only from an error map's "code" string, cut to the buffer. */
    arb_client_error_code(res, code, sizeof(code));
    FUZZ_CHECK(strlen(code) < sizeof(code));
    e = arb_client_get(res, "error");
    c = arb_mp_get(e, "code");
    if (code[0] != '\0')
        FUZZ_CHECK(e->type == MSGPACK_OBJECT_MAP && c != NULL
                   && c->type == MSGPACK_OBJECT_STR
                   && memcmp(code, c->via.str.ptr, strlen(code)) == 0);
}

static void
check_fail(int rc, const arb_buf_t *why)
{
    FUZZ_CHECK(rc == ARB_EIO || rc == ARB_EPROTO || rc == ARB_ETOOBIG
               || rc == ARB_ENOMEM || rc == ARB_EINVAL);
    FUZZ_CHECK(rc == ARB_ENOMEM || why->len > 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static arb_client_t *cl;        /* every input's, see DESIGN */
    msgpack_unpacked res;
    msgpack_packer  *pk;
    arb_buf_t        why = ARB_BUF_INIT;
    const msgpack_object *ok;
    uint64_t         id;
    int              sv[2], rc, call;
    size_t           off;
    ssize_t          w;

    if (size == 0)
        return 0;
    call = data[0] & 1;
    FUZZ_CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    /* The whole input fits the socket buffer: a libFuzzer input is at most
     * -max_len bytes (4 KiB by default). */
    for (off = 1; off < size; off += (size_t)w) {
        w = write(sv[1], data + off, size - off);
        FUZZ_CHECK(w > 0);
    }
    FUZZ_CHECK(shutdown(sv[1], SHUT_WR) == 0);
    if (cl == NULL)
        FUZZ_CHECK(arb_client_open_fd(&cl, sv[0]) == 0);
    else
        arb_client_reopen_fd(cl, sv[0]);
    msgpack_unpacked_init(&res);
    if (call) {
        id = arb_client_begin(cl, &pk, "state", 1);
        arb_mp_pack_kv_str(pk, "match", "M1");
        rc = arb_client_call(cl, &res, &why);
        if (rc == 0 || rc == ARB_EINVAL) {
            /* The response to this request (or an id-less one, such as
             * the server's own close), never a push; "ok": true is the one
             * success, anything else is refused with a reason. */
            check_frame(&res);
            FUZZ_CHECK(arb_client_get(&res, "push") == NULL);
            FUZZ_CHECK(arb_client_uint(&res, "id") == id
                       || arb_client_uint(&res, "id") == 0);
            ok = arb_client_get(&res, "ok");
            FUZZ_CHECK((rc == 0) == (ok != NULL
                                     && ok->type == MSGPACK_OBJECT_BOOLEAN
                                     && ok->via.boolean));
        } else {
            check_fail(rc, &why);
        }
    } else {
        while ((rc = arb_client_read(cl, &res, &why)) == 0)
            check_frame(&res);
        check_fail(rc, &why);
    }
    msgpack_unpacked_destroy(&res);
    close(sv[1]);               /* sv[0] is the client's, until the next */
    arb_buf_free(&why);
    return 0;
}
