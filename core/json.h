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
/* A field's value: 12, "BC-001", ["2♦","3♦"]; NULL (out of memory). */
json_t *arb_json_field_value(const arb_field_t *f);
/* A record as a JSON object, its fields in order; NULL (out of memory).
 * The caller owns the reference. */
json_t *arb_json_record_value(const arb_record_t *rec);
/* Sets "records":[...] and "totals":{name:points,...} on object o.
 * 0 or -1 (out of memory). */
int  arb_json_set_results(json_t *o, const arb_results_t *r);
/* {name:points,...} in total order, or NULL (out of memory). */
json_t *arb_json_totals_value(const arb_results_t *r);
void arb_json_record(arb_buf_t *b, const arb_record_t *rec);

/* Builders that let a writer chain calls and check once: each consumes
 * its new reference v (NULL: an allocation failed) and returns 0, or -1
 * when v or the object is NULL or the set/append failed. */
int  arb_json_set(json_t *o, const char *key, json_t *v);
int  arb_json_add(json_t *a, json_t *v);
/* A string value of s, or null when s is NULL. */
json_t *arb_json_string_or_null(const char *s);

#endif
