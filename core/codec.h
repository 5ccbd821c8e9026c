/*
 * codec.h - the one canonical msgpack encoding of an arbiter event.
 *
 * Events are hashed and signed as bytes, so every event has exactly one
 * encoding: a map whose keys come in the fixed order below, optional
 * fields omitted when absent, integers in msgpack's shortest form, text as
 * str, no floats.  The decoder accepts only that encoding: for every input
 * x it accepts, arb_event_encode(arb_event_decode(x)) == x byte for byte.
 * proto/PROTOCOL.md ("Event encoding") is the normative description.
 *
 * Event keys, in order:   v kind seq time actor cid player verb args
 *                         target text setup
 * Setup keys, in order:   game match edition engine teams players options
 *                         deal
 * Player keys:            name team
 * Deal keys:              kind cards seed seed_hash
 */
#ifndef ARB_PROTO_CODEC_H
#define ARB_PROTO_CODEC_H

#include <stddef.h>

#include <msgpack.h>

#include "core/buf.h"
#include "core/event.h"

/* Checks that `ev` can be encoded: the fields its kind requires are set,
 * the others are absent, strings are UTF-8 within ARB_STR_MAX, counts are
 * within the limits, options are sorted with unique keys, team indexes
 * exist.  Returns 0, ARB_EINVAL or ARB_ETOOBIG (a limit); on failure `why`
 * (may be NULL) is overwritten with the field and the problem. */
int arb_event_check(const arb_event_t *ev, arb_buf_t *why);
/* Its shape only: the fields ev's kind requires and forbids, a player or
 * verb not empty (what a request decides; its reader has already checked
 * the strings' lengths and UTF-8, which arb_event_check does again).
 * 0 or ARB_EINVAL, with why as above. */
int arb_event_check_shape(const arb_event_t *ev, arb_buf_t *why);
/* A new event's strings hold no control character (core/text.h): not
 * part of arb_event_check, so that events recorded before still decode.
 * 0 or ARB_EINVAL, why naming the field as a request names it and the
 * character ("text: a control character (U+001B) at byte 2 ..."). */
int arb_event_check_text(const arb_event_t *ev, arb_buf_t *why);

/* Appends the canonical encoding of `ev` to `out` (no frame header).
 * Returns 0, ARB_EINVAL / ARB_ETOOBIG when arb_event_check() fails, or
 * ARB_ENOMEM; on failure `out` is left as it was. */
int arb_event_encode(arb_buf_t *out, const arb_event_t *ev);

/* Decodes one event from untrusted bytes (a frame body).  `ev` is
 * overwritten without being cleared first; on success it owns deep copies
 * of everything (nothing points into buf) and the caller releases it with
 * arb_event_clear().  On failure `ev` is left cleared and `why` (may be
 * NULL) names the field: "event.args[2]: expected str, got int".
 * Returns 0, ARB_EPROTO (malformed or non-canonical), ARB_ETOOBIG (over a
 * limit), ARB_EUNSUPP (a version other than 1) or ARB_ENOMEM. */
int arb_event_decode(arb_event_t *ev, const char *buf, size_t len,
                     arb_buf_t *why);

/* Reusable room for decoding stored events one after another without an
 * allocation per event (replay of a whole store).  Zero-initialise; the
 * room grows to the largest event seen; arb_event_scratch_free() releases
 * it (NULL-safe). */
typedef struct arb_event_scratch {
    arb_event_t ev;         /* the last event decoded */
    int         owned;      /* ev was allocated (the full decoder's) */
    char       *mem;
    size_t      cap;
} arb_event_scratch_t;

/* Decodes like arb_event_decode() (same checks, same codes, same why)
 * into sc->ev and sets *out to it.  The event points into sc and into
 * nothing of buf; it stays valid until the next call on sc or
 * arb_event_scratch_free(), and must not be cleared by the caller.
 * Canonical events without a setup (every move) allocate nothing once
 * the room is large enough; anything else takes the full decoder. */
int  arb_event_decode_scratch(arb_event_scratch_t *sc, const char *buf,
                              size_t len, arb_buf_t *why,
                              const arb_event_t **out);
void arb_event_scratch_free(arb_event_scratch_t *sc);

/* Decodes a deal as the `open` request states it (proto/PROTOCOL.md):
 * {kind: "seed", seed: str} or {kind: "order", cards: [str]}, keys in any
 * order, with the same field rules as the event's setup.deal; `path`
 * names it in messages ("deal").  *d is overwritten; on success it owns
 * its strings (release with the setup, or arb_strv_free / free).
 * Returns 0, ARB_EPROTO, ARB_ETOOBIG or ARB_ENOMEM with why naming the
 * field: "deal.kind: expected \"seed\" or \"order\"". */
int arb_deal_decode(arb_deal_t *d, const msgpack_object *o, arb_buf_t *why,
                    const char *path);

/* 1 when events of `kind` carry a target (an earlier seq they rule on). */
int arb_event_takes_target(int kind);

/* The most args an event of `kind` may carry: ARB_CLAIM_RECORDS_MAX for
 * a claim, else ARB_ARGS_MAX (core/limits.h). */
size_t arb_event_args_max(int kind);

#endif
