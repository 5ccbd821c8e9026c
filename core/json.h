/*
 * json.h - the few JSON writers arbiter needs (output only; the input side
 * of claims is in tools/).  Strings are written as UTF-8 with the escapes
 * RFC 8259 requires, so any byte string stays valid JSON.
 */
#ifndef ARB_JSON_H
#define ARB_JSON_H

#include "core/buf.h"
#include "core/rules.h"

void arb_json_str(arb_buf_t *b, const char *s);
/* {"records":[...],"totals":{name:points,...}} without the closing brace,
 * so callers can add fields (the digest) before closing it. */
void arb_json_results_open(arb_buf_t *b, const arb_results_t *r);
void arb_json_record(arb_buf_t *b, const arb_record_t *rec);

#endif
