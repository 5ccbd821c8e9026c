/*
 * transcript.h - the plain-text match record (docs/TRANSCRIPT.md): what PGN
 * is to chess.  A header of `key: value` lines, then one event per line.
 *
 * Ownership: arb_transcript_t owns its events; arb_transcript_clear()
 * releases them (NULL-safe).
 */
#ifndef ARB_TRANSCRIPT_H
#define ARB_TRANSCRIPT_H

#include <stddef.h>

#include "core/buf.h"
#include "core/event.h"

typedef struct arb_transcript {
    arb_event_t  open;          /* kind ARB_EV_OPEN, setup filled */
    size_t       nevents;
    arb_event_t *events;        /* events[i].seq == i + 1 */
    unsigned    *lines;         /* source line of each event */
    unsigned     open_line;     /* line of the `game:` header */
} arb_transcript_t;

/* Parses text[0..len).  On error returns ARB_EINVAL (or ARB_ENOMEM) with a
 * message starting "line N: " in why. */
int  arb_transcript_parse(arb_transcript_t *t, const char *text, size_t len,
                          arb_buf_t *why);
void arb_transcript_clear(arb_transcript_t *t);

/* Writes the canonical transcript of a match. */
int  arb_transcript_format(arb_buf_t *out, const arb_event_t *open,
                           const arb_event_t *events, size_t n);

/* Appends one event line (without the newline), as the format writes it. */
void arb_transcript_event_line(arb_buf_t *out, const arb_event_t *ev);

#endif
