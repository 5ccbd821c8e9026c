/*
 * json_item.h - one match of the list as a JSON object: the shape
 * `arbiter matches --json` prints a line each and the recorder's HTTP API
 * (docs/HTTP.md) serves, so that both always agree.  One event's shape is
 * core/event_json.h's.
 */
#ifndef ARB_JSON_ITEM_H
#define ARB_JSON_ITEM_H

#include <stdint.h>

#include "core/buf.h"
#include "core/event.h"
#include "core/event_json.h"
#include "core/hash.h"

/* {"match":..,"game":..,"status":"open"|"closed","last_seq":..,"head":..,
 *  "created":..,"created_ms":..,"last":..,"last_ms":..} appended to out;
 * head NULL (withheld from this viewer, docs/VIEWS.md) is written null. */
void arb_json_match(arb_buf_t *out, const char *match, const char *game,
                    int closed, uint64_t last_seq, const unsigned char *head,
                    int64_t created_ms, int64_t last_ms);

#endif
