/*
 * scan.h - a non-allocating structural check of raw msgpack bytes.
 *
 * msgpack-c allocates every array and map from the count in its header
 * before reading a single element, so a 5-byte message declaring 2^32
 * elements costs gigabytes.  Every untrusted message therefore goes through
 * arb_msgpack_scan() before msgpack-c sees it; after a successful scan the
 * unpacker allocates at most elems_max objects.
 */
#ifndef ARB_PROTO_SCAN_H
#define ARB_PROTO_SCAN_H

#include <stddef.h>

#include "core/buf.h"

/* Checks that buf[0..len) is exactly one well-formed msgpack object:
 *  - nothing truncated: every header, length and body fits in len;
 *  - no bytes after the object;
 *  - container nesting at most depth_max (a top-level map is depth 1,
 *    scalars are depth 0; depth_max at most ARB_SCAN_DEPTH_CAP);
 *  - no container declares more elements than bytes remain, counting the
 *    elements still owed by enclosing containers (each element needs at
 *    least one byte, each map entry two);
 *  - at most elems_max objects in total (every container, key and value);
 *  - no reserved byte 0xc1.
 * Returns 0, ARB_EPROTO (malformed), ARB_ETOOBIG (depth or object count
 * over the limit) or ARB_EINVAL (bad arguments).  On failure `why`, when
 * not NULL, is overwritten with a message naming the problem and its byte
 * offset; on success it is left untouched.  Allocates nothing else. */
int arb_msgpack_scan(const char *buf, size_t len, int depth_max,
                     size_t elems_max, arb_buf_t *why);

#endif
