/*
 * limits.h - every wire limit of arbiter in one place.
 *
 * The frame maximum is only a default: the daemon reads the real value from
 * its configuration, so framing functions take it as a parameter.  All
 * other limits are fixed by protocol version 1; a peer that exceeds one is
 * rejected with ARB_ETOOBIG or ARB_EPROTO, never truncated.
 * proto/PROTOCOL.md mirrors this table; change both together.
 */
#ifndef ARB_PROTO_LIMITS_H
#define ARB_PROTO_LIMITS_H

/* Largest frame body in bytes unless configured otherwise. */
#define ARB_FRAME_MAX_DEFAULT   65536u

/* A frame length is a 32-bit field, so no configuration can go above it. */
#define ARB_FRAME_MAX_CEILING   0xffffffffu

/* Deepest container nesting in one message; the top-level map is depth 1.
 * A canonical event needs 4 (event > setup > players > player). */
#define ARB_DEPTH_MAX           8

/* Hard ceiling for the depth argument of arb_msgpack_scan(): the scanner
 * keeps one counter per open container on the stack instead of allocating. */
#define ARB_SCAN_DEPTH_CAP      64

/* Longest string, in bytes (not characters), anywhere in a message. */
#define ARB_STR_MAX             4096

/* Arguments of one move. */
#define ARB_ARGS_MAX            32

/* Players, teams and options of one match setup. */
#define ARB_PLAYERS_MAX         16
#define ARB_TEAMS_MAX           8
#define ARB_OPTIONS_MAX         64

/* Cards in an explicit deal order. */
#define ARB_DEAL_MAX            256

/* Total msgpack objects in one frame, counting every container, key and
 * value; bounds what msgpack-c allocates for one message. */
#define ARB_ELEMS_MAX           8192

/* Version written in the "v" key of every event. */
/* Objects in one response frame, as read by proto/client.c: responses are
 * bounded by the server, not by a hostile peer, but still checked. */
#define ARB_RESP_ELEMS_MAX      (1u << 24)

/* Bytes of events in one `events` response page; the rest is paged by
 * "next".  Below the smallest outq_max (64 KiB) plus one event. */
#define ARB_PAGE_BYTES          (48u * 1024)

#define ARB_EVENT_VERSION       1

#endif
