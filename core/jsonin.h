/*
 * jsonin.h - reading JSON that people write by hand (claims, docs/CLAIMS.md,
 * and the reports they start from) with Jansson, strictly.
 *
 * DESIGN: Jansson parses (RFC 8259: no trailing commas, comments, single
 * quotes, leading zeros, lone surrogates, invalid UTF-8 or raw control
 * characters).  On top of it this module refuses what RFC 8259 allows but a
 * claim must not contain: duplicate keys in one object (which value would
 * count?) and numbers with a fraction or an exponent (results are integers;
 * 12.0 is a typo, not a value).  Integers outside int64 and U+0000 are
 * Jansson's own refusals, worded here (its words name a flag of its API).
 * A UTF-8 byte order mark at the start is skipped.  Jansson keeps object
 * members in document order, so writing a parsed document again keeps the
 * writer's order.
 *
 * Jansson's values carry no position, so a caller that finds a value of the
 * wrong shape asks arb_json_where() for it by path: the text is walked once
 * more, which costs nothing on the success path.  Jansson's refusals carry
 * a position and no path: the text is walked to it for the path, so that
 * every refusal says which value it is about.
 */
#ifndef ARB_JSONIN_H
#define ARB_JSONIN_H

#include <stddef.h>

#include <jansson.h>

#include "core/buf.h"

/* Parses text[0..len) as exactly one JSON value.  On success *out owns the
 * tree (release with json_decref, NULL-safe).  ARB_EINVAL with
 * "line L, column C: path: <what>" in why (when why is not NULL; the path,
 * "records[2].game_points", left out at the top level), or ARB_ENOMEM. */
int  arb_json_parse(json_t **out, const char *text, size_t len,
                    arb_buf_t *why);

/* "null", "true/false", "integer", "string", "array", "object". */
const char *arb_json_type_name(const json_t *v);

/* Writes "line L, column C: " for the value at path inside text, a text
 * arb_json_parse() accepted: path[i] is an array index or an object
 * member's ordinal in document order (json_object_foreach's order). */
/* It walks text from its start: a caller calls it to word a refusal, not
 * for every value it reads (arb_json_where_calls() counts the calls in
 * this process, for the tests that hold a reader to that). */
size_t arb_json_where_calls(void);
void arb_json_where(char *out, size_t n, const char *text, size_t len,
                    const size_t *path, size_t depth);

#endif
