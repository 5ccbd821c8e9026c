/*
 * limits.h - the wire's own limits, on top of the event limits.
 *
 * The frame maximum is only a default: the daemon reads the real value from
 * its configuration, so framing functions take it as a parameter.  All
 * other limits are fixed by protocol version 1; a peer that exceeds one is
 * rejected with ARB_ETOOBIG or ARB_EPROTO, never truncated.  The limits of
 * an event itself (strings, arguments, nesting) are in core/limits.h.
 * proto/PROTOCOL.md mirrors both tables; change them together.
 */
#ifndef ARB_PROTO_LIMITS_H
#define ARB_PROTO_LIMITS_H

#include "core/limits.h"

/* Largest frame body in bytes unless configured otherwise. */
#define ARB_FRAME_MAX_DEFAULT   65536u

/* A frame length is a 32-bit field, so no configuration can go above it. */
#define ARB_FRAME_MAX_CEILING   0xffffffffu

/* Objects in one response frame, as read by proto/client.c: responses are
 * bounded by the server, not by a hostile peer, but still checked. */
#define ARB_RESP_ELEMS_MAX      (1u << 24)

/* Bytes of events in one `events` response page; the rest is paged by
 * "next".  Below the smallest outq_max (64 KiB) plus one event. */
#define ARB_PAGE_BYTES          (48u * 1024)
/* Events an `events` page examines at most: a `kinds` or `since` filter
 * that matches none of a long match's events ends its page there, empty,
 * with `next` (until 2026-12-06 it read to the head in one go, on the
 * loop: 2.6 s for a million events). */
#define ARB_PAGE_SCAN           16384u

/* Subscriptions one connection may hold at once: a console following
 * every table of a large venue one by one fits; more is a client gone
 * wrong (one subscription without `match` follows every match). */
#define ARB_SUBS_PER_CONN       4096u

#endif
