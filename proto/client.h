/*
 * client.h - a small blocking client of the arbiterd protocol, for the
 * `arbiter` tools, the tests and the benchmarks.
 *
 * Ownership: arb_client_t owns its socket and buffers; arb_client_close()
 * (NULL-safe).  A response returned in *res stays valid until the next
 * call on the client or msgpack_unpacked_destroy(res).
 */
#ifndef ARB_PROTO_CLIENT_H
#define ARB_PROTO_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <msgpack.h>

#include "core/buf.h"

typedef struct arb_client arb_client_t;

/* addr: "unix:PATH", "tcp:HOST:PORT" (proto/addr.h: HOST a name or an
 * address, tried in turn) or a bare socket path.  0, ARB_EINVAL (a bad
 * address) or ARB_EIO, with why. */
int  arb_client_connect(arb_client_t **out, const char *addr, arb_buf_t *why);
/* arb_client_connect bounded by ms (0: for ever), for the connection
 * itself (a host that drops the packets, a listener whose backlog is
 * full: "the server did not take the connection within N s") and then,
 * as by arb_client_timeout, for each send and answer.  0, ARB_EINVAL (a
 * bad address, ms < 0), ARB_EIO or ARB_ENOMEM, with why. */
int  arb_client_dial(arb_client_t **out, const char *addr, int ms,
                     arb_buf_t *why);
/* A client over fd, a connected stream socket it takes over (closed by
 * arb_client_close(), or at once when this fails).  0, or ARB_ENOMEM. */
int  arb_client_open_fd(arb_client_t **out, int fd);
void arb_client_close(arb_client_t *cl);
/* Moves cl to another connected stream socket fd (taken over as by
 * arb_client_open_fd): closes the old one, forgets whatever was read from
 * it but not returned, and numbers requests from 1 again, as a new client
 * would; its buffers are kept, so a caller that connects many times (the
 * fuzz harness of the client, one connection per input) does not allocate
 * them again. */
void arb_client_reopen_fd(arb_client_t *cl, int fd);
int  arb_client_fd(const arb_client_t *cl);
/* The longest a send, or a wait for the next frame, may take, in ms (0,
 * the default: for ever); kept across arb_client_reopen_fd.  Past it the
 * call fails with ARB_EIO, why "the server did not answer within N s".
 * 0, ARB_EINVAL (ms < 0) or ARB_EIO. */
int  arb_client_timeout(arb_client_t *cl, int ms, arb_buf_t *why);

/* Starts a request map with n fields after v, id and op; returns the id.
 * Pack the n key/value pairs into the packer, then call arb_client_send. */
uint64_t arb_client_begin(arb_client_t *cl, msgpack_packer **pk,
                          const char *op, size_t n);
int  arb_client_send(arb_client_t *cl, arb_buf_t *why);
/* Reads the next frame (a response or a push) into *res.  0, ARB_EIO
 * (closed / read error), ARB_EPROTO (bad frame). */
int  arb_client_read(arb_client_t *cl, msgpack_unpacked *res, arb_buf_t *why);
/* Sends and waits for the response with the same id (pushes in between are
 * dropped unless keep_pushes).  0 when "ok" is true; ARB_EINVAL when the
 * server answered an error (why = "code: message"); ARB_EIO otherwise. */
int  arb_client_call(arb_client_t *cl, msgpack_unpacked *res, arb_buf_t *why);
int  arb_client_auth(arb_client_t *cl, const char *token, arb_buf_t *why);

/* Convenience readers of a response map. */
const msgpack_object *arb_client_get(const msgpack_unpacked *res,
                                     const char *key);
uint64_t arb_client_uint(const msgpack_unpacked *res, const char *key);
/* The error code string of a failed response ("illegal"), or "". */
const char *arb_client_error_code(const msgpack_unpacked *res, char *buf,
                                  size_t len);

#endif
