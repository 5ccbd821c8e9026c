/*
 * claim.h - a claim: someone's statement of a match's results, in the
 * shape the rule set reports them (core/rules.h: records of named fields
 * and totals), so one format serves every game.  docs/CLAIMS.md is the
 * normative description of the two file forms (JSON and CSV) and of the
 * canonical form carried by a claim event.
 *
 * DESIGN: a claim is parsed into an arb_results_t, the very type the rule
 * set fills, so comparing a claim with the record (core/diff.h) compares
 * like with like.  JSON carries its own types (integer, string, list of
 * strings); a CSV cell has none, so CSV is read against a schema: the
 * recorded results, whose field of the same name gives the cell's type.
 * The verification fields `status` and `disputed_fields` are the
 * recorder's verdict, not something a claimant can state: they are
 * accepted in a file (so a report can be edited into a claim) and dropped.
 *
 * In an event (kind "claim") a claim travels as args[i] = the canonical
 * JSON of claimed record i and text = {"totals":{...}}: every wire string
 * stays within ARB_STR_MAX however many records are claimed, up to
 * ARB_CLAIM_RECORDS_MAX of them.
 *
 * Ownership: arb_claim_t owns its results and the field names they point
 * to; release with arb_claim_clear() (NULL-safe, also after a failure).
 */
#ifndef ARB_CLAIM_H
#define ARB_CLAIM_H

#include <stddef.h>

#include "core/buf.h"
#include "core/event.h"
#include "core/rules.h"

typedef struct arb_claim {
    arb_results_t res;      /* claimed records (seq 0) and totals */
    char        **keys;     /* owned field names the records point to */
    size_t        nkeys;
} arb_claim_t;

/* Parses a claim file: JSON when its first non-blank character is '{',
 * else CSV read against `schema` (may be NULL: every cell a string).
 * 0, ARB_EINVAL with "line L[, column C]: <what>" in why, ARB_ENOMEM. */
int  arb_claim_parse(arb_claim_t *c, const char *text, size_t len,
                     const arb_results_t *schema, arb_buf_t *why);
int  arb_claim_parse_json(arb_claim_t *c, const char *text, size_t len,
                          arb_buf_t *why);
/* A recorder's report (arb_report_json: `arbiter replay --json`, the
 * `state` op's json) read as results, as arb_claim_parse_json reads a
 * claim but keeping the verdict fields: the records as the recorder
 * judged them, for a running dealt match no client can replay. */
int  arb_claim_parse_report(arb_claim_t *c, const char *text, size_t len,
                            arb_buf_t *why);
int  arb_claim_parse_csv(arb_claim_t *c, const char *text, size_t len,
                         const arb_results_t *schema, arb_buf_t *why);
void arb_claim_clear(arb_claim_t *c);

/* Fields that are the recorder's verdict, never compared or claimed. */
int  arb_claim_field_is_verdict(const char *key);

/* The canonical claim document, one line, no newline:
 * {"records":[{...},...],"totals":{"name":points,...}}.  0 or ARB_ENOMEM. */
int  arb_claim_format(arb_buf_t *out, const arb_claim_t *c);

/* Replaces ev's args and text with the claim's canonical parts.  The
 * codec limits (ARB_CLAIM_RECORDS_MAX records, ARB_STR_MAX bytes each)
 * are checked when the event is encoded.  0 or ARB_ENOMEM. */
int  arb_claim_to_event(arb_event_t *ev, const arb_claim_t *c);

/* A claim event within what one event may carry: ARB_CLAIM_RECORDS_MAX
 * records of ARB_STR_MAX bytes each as JSON, and the codec's other
 * limits (arb_event_check).  0, or ARB_ETOOBIG / ARB_EINVAL with why
 * ("1025 records; one claim carries at most 1024").  The one check of
 * `arbiter claim` and of a transcript's claim line alike. */
int  arb_claim_event_fits(const arb_event_t *ev, arb_buf_t *why);

/* Reads the claim a claim event carries.  It must be in canonical form
 * (what arb_claim_to_event writes): ARB_EINVAL naming the part otherwise. */
int  arb_claim_from_event(arb_claim_t *c, const arb_event_t *ev,
                          arb_buf_t *why);

/* Rewrites a claim event's args and text in canonical form, accepting any
 * valid JSON spelling of the same parts (what a client may send).  0,
 * ARB_EINVAL (why names the part) or ARB_ENOMEM. */
int  arb_claim_event_canon(arb_event_t *ev, arb_buf_t *why);

#endif
