/*
 * transcript.h - the plain-text match record (docs/TRANSCRIPT.md): what PGN
 * is to chess.  A header of `key: value` lines, then one event per line.
 *
 * A parsed transcript is a history (core/ledger/history.h) with the
 * source line of each event and no per-event records; release it with
 * arb_history_clear() (NULL-safe).
 */
#ifndef ARB_TRANSCRIPT_H
#define ARB_TRANSCRIPT_H

#include <stddef.h>

#include "core/buf.h"
#include "core/event.h"
#include "core/ledger/history.h"

/* Parses text[0..len).  On error returns ARB_EINVAL (or ARB_ENOMEM) with a
 * message starting "line N: " in why. */
int  arb_transcript_parse(arb_history_t *t, const char *text, size_t len,
                          arb_buf_t *why);

/* Writes the canonical transcript of a match. */
int  arb_transcript_format(arb_buf_t *out, const arb_event_t *open,
                           const arb_event_t *events, size_t n);

/* Appends one event line (without the newline), as the format writes it. */
void arb_transcript_event_line(arb_buf_t *out, const arb_event_t *ev);

#endif
