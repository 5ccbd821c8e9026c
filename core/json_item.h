/*
 * json_item.h - one recorded event and one match of the list as JSON
 * objects: the shapes `arbiter events --json` and `arbiter matches --json`
 * print a line each and the recorder's HTTP API (docs/HTTP.md) serves, so
 * that both always agree.
 */
#ifndef ARB_JSON_ITEM_H
#define ARB_JSON_ITEM_H

#include <stdint.h>

#include "core/buf.h"
#include "core/event.h"
#include "core/hash.h"

/* "<hex of 32 bytes>" into out[ARB_HASH_HEX]. */
void arb_hex32(char out[ARB_HASH_HEX], const unsigned char *h);
/* Unix milliseconds as "2026-03-01T10:00:00.123Z" into out; "-" when
 * unknown (0). */
void arb_iso_time(char out[32], int64_t ms);
/* The transcript line of an event, with a one-line header for OPEN. */
void arb_event_line(arb_buf_t *out, const arb_event_t *ev);

/* {["match":..,]"seq":..,"time":..,"time_ms":..,"actor":..,"kind":..,
 *  "line":..,"hash":..} (no newline) appended to out; match NULL leaves
 * the match out; hash NULL (a source without hashes) is written null. */
void arb_json_event(arb_buf_t *out, const char *match, uint64_t seq,
                    int64_t time_ms, const unsigned char hash[ARB_HASH_LEN],
                    const arb_event_t *ev);
/* {"match":..,"game":..,"status":"open"|"closed","last_seq":..,"head":..,
 *  "created":..,"created_ms":..,"last":..,"last_ms":..} appended to out;
 * head NULL is written "-". */
void arb_json_match(arb_buf_t *out, const char *match, const char *game,
                    int closed, uint64_t last_seq, const unsigned char *head,
                    int64_t created_ms, int64_t last_ms);

#endif
