/*
 * json.h - JSON writing, through Jansson: the strings, result records and
 * results every report, export and claim writes.  Compact, keys in the
 * order given, UTF-8 as is.  (Reading JSON is core/jsonin.h.)
 */
#ifndef ARB_JSON_H
#define ARB_JSON_H

#include <jansson.h>

#include "core/buf.h"
#include "core/rules.h"

/* Appends s as a JSON string (NULL as ""); a byte that starts no
 * well-formed UTF-8 sequence is written as U+FFFD. */
void arb_json_str(arb_buf_t *b, const char *s);
/* Appends v compactly (JSON_COMPACT | JSON_ENCODE_ANY); v stays the
 * caller's.  0, or ARB_ENOMEM with b->oom set. */
int  arb_json_put(arb_buf_t *b, const json_t *v);
/* The same, consuming the caller's reference to v (NULL: out of memory,
 * as from a failed builder). */
int  arb_json_put_new(arb_buf_t *b, json_t *v);
/* A new string value of s (as arb_json_str writes it), or NULL (out of
 * memory).  The caller owns the reference. */
json_t *arb_json_string(const char *s);
/* A record as a JSON object, its fields in order; NULL (out of memory).
 * The caller owns the reference. */
json_t *arb_json_record_value(const arb_record_t *rec);
/* {"records":[...],"totals":{name:points,...}} without the closing brace,
 * so callers can add fields (the digest) before closing it. */
void arb_json_results_open(arb_buf_t *b, const arb_results_t *r);
void arb_json_record(arb_buf_t *b, const arb_record_t *rec);

#endif
