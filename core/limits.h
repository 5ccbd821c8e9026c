/*
 * limits.h - the limits of a recorded event, fixed by event version 1.
 *
 * These bound what the canonical codec (core/codec.c) and the msgpack
 * pre-scan (core/scan.c) accept, whether the bytes come from a client, the
 * store or an audit bundle.  A value over a limit is refused with
 * ARB_ETOOBIG or ARB_EPROTO, never truncated.  The wire's own limits
 * (frame sizes, pages) are in proto/limits.h; proto/PROTOCOL.md mirrors
 * both tables; change them together.
 */
#ifndef ARB_CORE_LIMITS_H
#define ARB_CORE_LIMITS_H

/* Deepest container nesting in one message; the top-level map is depth 1.
 * A canonical event needs 4 (event > setup > players > player). */
#define ARB_DEPTH_MAX           8

/* Hard ceiling for the depth argument of arb_msgpack_scan(): the scanner
 * keeps one counter per open container on the stack instead of allocating. */
#define ARB_SCAN_DEPTH_CAP      64

/* Longest string, in bytes (not characters), anywhere in a message. */
#define ARB_STR_MAX             4096

/* Arguments of one event: a move's, a note's, a ruling's. */
#define ARB_ARGS_MAX            32

/* Bytes of one move argument as the HTTP write API takes it (`args`, or
 * a word of `text`: docs/HTTP.md). */
#define ARB_ARG_BYTES           256

/* Arguments of one claim: its records, one per string (docs/CLAIMS.md),
 * so that a claim carries a whole match's registration records (a
 * YAHchain match of 85 cycles).  Before 2026-12-05 a claim had
 * ARB_ARGS_MAX, and a match of three cycles could not be claimed.  The
 * frame and the event's size bound a claim's bytes besides. */
#define ARB_CLAIM_RECORDS_MAX   1024

/* Players, teams and options of one match setup. */
#define ARB_PLAYERS_MAX         16
#define ARB_TEAMS_MAX           8
#define ARB_OPTIONS_MAX         64

/* Cards in an explicit deal order. */
#define ARB_DEAL_MAX            256

/* Total msgpack objects in one message, counting every container, key and
 * value; bounds what msgpack-c allocates for one message. */
#define ARB_ELEMS_MAX           8192

/* Version written in the "v" key of every event. */
#define ARB_EVENT_VERSION       1

#endif
