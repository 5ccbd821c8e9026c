/*
 * frame.h - length-prefixed framing of the arbiter wire protocol.
 *
 * A frame is a 4-byte big-endian unsigned length N followed by exactly N
 * bytes holding one msgpack map.  N is 1..max, where max is configured at
 * runtime (ARB_FRAME_MAX_DEFAULT in proto/limits.h).
 *
 * The reader is a push parser for one connection.  Its contract:
 *
 *     arb_frame_reader_feed(r, chunk, n);
 *     while ((rc = arb_frame_reader_next(r, &p, &len)) == 1)
 *         handle(p, len);
 *     if (rc < 0) drop the connection;
 *
 * Frames lying wholly inside one chunk are returned in place (no copy), so
 * the chunk must stay valid until next() returns 0 or an error; only the
 * tail of a frame split across chunks is copied into the reader.  Hence a
 * reader never holds more than max + 4 bytes whatever the peer sends, and
 * the declared length is checked before a single body byte is buffered.
 * The copy grows with the bytes received (doubling, from 4 KiB, up to the
 * declared length), so a peer that declares a big frame and sends a few
 * bytes of it costs a few KiB, not the declared length.
 */
#ifndef ARB_PROTO_FRAME_H
#define ARB_PROTO_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"

/* Appends the 4-byte header and the payload to `out`.  Returns 0,
 * ARB_EINVAL for an empty payload, ARB_ETOOBIG when len does not fit the
 * 32-bit header, or ARB_ENOMEM (out is then left as it was). */
int arb_frame_encode(arb_buf_t *out, const void *payload, size_t len);

typedef struct arb_frame_reader {
    size_t          max;        /* largest body accepted */
    int             err;        /* sticky: 0 or the first error */
    unsigned char   hdr[4];
    size_t          hdr_len;    /* header bytes seen of the current frame */
    size_t          want;       /* declared body length, once hdr_len == 4 */
    size_t          have;       /* body bytes copied into body */
    char           *body;       /* owned; at most max bytes */
    size_t          body_cap;
    const char     *in;         /* the chunk being drained; not owned */
    size_t          in_len;
    size_t          in_off;
} arb_frame_reader_t;

/* Prepares `r` for a new connection.  max must be 1..ARB_FRAME_MAX_CEILING;
 * returns 0 or ARB_EINVAL.  Allocates nothing until a split frame needs it. */
int arb_frame_reader_init(arb_frame_reader_t *r, size_t max);

/* Releases the body buffer; NULL-safe.  `r` may be re-initialised. */
void arb_frame_reader_free(arb_frame_reader_t *r);

/* Hands the reader the next chunk read from the socket (not copied yet).
 * Returns 0, the sticky error of an earlier violation, or ARB_EINVAL when
 * the previous chunk was not drained with arb_frame_reader_next(). */
int arb_frame_reader_feed(arb_frame_reader_t *r, const void *data,
                          size_t len);

/* Returns 1 and sets *frame and *len to the next complete frame body, 0 when
 * the current chunk is used up, or a negative error: ARB_ETOOBIG (declared
 * length over max), ARB_EPROTO (declared length 0) or ARB_ENOMEM.  Errors
 * are sticky: every later feed or next returns them again.  *frame points
 * either into the fed chunk or into the reader and stays valid until the
 * next call to feed or next. */
int arb_frame_reader_next(arb_frame_reader_t *r, const char **frame,
                          size_t *len);

/* 1 when part of a frame has been received but not all of it, so that an
 * end of stream now means a truncated frame; 0 otherwise. */
int arb_frame_reader_partial(const arb_frame_reader_t *r);

#endif
