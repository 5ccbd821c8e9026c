/*
 * event_json.h - one recorded event for people and programs: its one-line
 * listing and its JSON object, the shape of `arbiter events --json` and
 * `arbiter watch --json`, and of every JSON answer that lists events.
 * Viewers that may not see everything go through core/view.h
 * (arb_view_event_json), which writes this same shape.
 */
#ifndef ARB_EVENT_JSON_H
#define ARB_EVENT_JSON_H

#include <stdint.h>

#include "core/buf.h"
#include "core/event.h"
#include "core/hash.h"

struct json_t;          /* <jansson.h>: the value writers below */

/* Unix milliseconds as "2026-03-01T10:00:00.123Z" into out; "-" when
 * unknown (0 or less). */
void arb_iso_time(char out[32], int64_t ms);
/* The Unix milliseconds of an ISO 8601 date (2026-03-01; with `end`, its
 * last millisecond) or date-time (2026-03-01T10:00, :00, .123, Z or
 * +01:00): 0, or -1 when s is none. */
int  arb_iso_time_parse(const char *s, int end, int64_t *out);

/* The transcript line of an event (core/transcript.h), with a one-line
 * header for an open: "open game: chan; players: an binh; deal: commit";
 * any control character shown as \xNN (arb_text_clean). */
void arb_event_line(arb_buf_t *out, const arb_event_t *ev);

/* Appends, without a newline,
 *   {["match":..,]"seq":..,"time":"<ISO>","time_ms":..,"actor":..|null,
 *    "kind":..,"line":..,"hash":"<hex>"|null}
 * match NULL leaves "match" out; hash NULL writes null (a viewer that may
 * not have it).  0 or ARB_ENOMEM. */
int arb_event_json(arb_buf_t *out, const char *match, uint64_t seq,
                   int64_t time_ms, const unsigned char *hash,
                   const arb_event_t *ev);
/* The same object as a value, for a writer that holds it inside another;
 * NULL (out of memory).  The caller owns the reference. */
struct json_t *arb_event_json_value(const char *match, uint64_t seq,
                                    int64_t time_ms,
                                    const unsigned char *hash,
                                    const arb_event_t *ev);

#endif
