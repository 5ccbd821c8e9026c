/*
 * bundle.h - exports of recorded matches, and the offline verification
 * bundle (docs/BUNDLE.md is the normative format).
 *
 * An arb_bundle_t is the export's data model: per match, its history
 * (core/ledger/history.h) with the raw event bytes exactly as stored (so
 * the chain can be recomputed) and the hash the store recorded for each,
 * and a checkpoint (match id, event count, head hash) signed with the
 * daemon's Ed25519 key.  Every export format is a
 * rendering of it: the bundle file, JSON lines, the CSV of the
 * registration records and the transcript.
 *
 * DESIGN: verification has exactly one entry point, arb_bundle_verify(),
 * and it always does the whole check -- signature, structure, count, every
 * hash link, head, canonical decoding, rule profile, replay through the
 * rules -- whatever the caller wants to know.  There is no "quick" mode and
 * no public parser: a verifier that skips the signature (Rekor #988) or
 * trusts a parsed file it never replayed is exactly what a bundle must not
 * allow.  The exporter runs the same function on every bundle it writes.
 *
 * Layering: decoding and replay use the one canonical codec
 * (core/codec.h), which lives beside it in core.
 *
 * Ownership: arb_bundle_t owns every history and checkpoint in it;
 * arb_bundle_clear() releases them (NULL-safe).  arb_bundle_report_t owns
 * its strings and replayed matches; arb_bundle_report_clear() (NULL-safe).
 */
#ifndef ARB_BUNDLE_H
#define ARB_BUNDLE_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/event.h"
#include "core/keys.h"
#include "core/match.h"
#include "core/ledger/history.h"
#include "core/ledger/store.h"

#define ARB_BUNDLE_VERSION   1
#define ARB_BUNDLE_MAGIC     "\x89" "ARB\r\n\x1a\n"     /* 8 bytes */
#define ARB_BUNDLE_MAGIC_LEN 8
#define ARB_BUNDLE_HDR_LEN   12     /* magic, u32 version */

/* The signed statement: "match M had COUNT events, the last hashing to
 * HEAD".  The signed bytes are arb_checkpoint_message()'s. */
typedef struct arb_checkpoint {
    char          match_id[ARB_STORE_ID_MAX + 1];
    uint64_t      count;
    unsigned char head[ARB_HASH_LEN];
    unsigned char pubkey[ARB_PUBKEY_LEN];  /* the signer's (informational) */
    unsigned char sig[ARB_SIG_LEN];
    int           is_signed;        /* sig and pubkey are set */
} arb_checkpoint_t;

/* Longest checkpoint message: prefix, NUL, id length, id, count, head. */
#define ARB_CHECKPOINT_MSG_MAX (21 + 1 + 1 + ARB_STORE_ID_MAX + 8 + ARB_HASH_LEN)

/* Writes the exact bytes that are signed into msg; returns their length:
 *   "arbiter checkpoint v1" 00 | u8 len(id) | id | u64be count | head  */
size_t arb_checkpoint_message(unsigned char msg[ARB_CHECKPOINT_MSG_MAX],
                              const arb_checkpoint_t *cp);

/* Signs cp (match_id, count, head set) with kp; fills sig and pubkey
 * and sets is_signed. */
void   arb_checkpoint_sign(arb_checkpoint_t *cp, const arb_keypair_t *kp);

/* An export: per match, its history (core/ledger/history.h) with a
 * record for every event -- seq, h(seq) as the store recorded it, the
 * canonical bytes -- and the checkpoint that certifies it.  A bundle
 * never carries a deal's secret: a dealt match's open holds only the
 * commitment until the close reveals it. */
typedef struct arb_bundle {
    size_t            nmatches, cap;
    arb_history_t    *matches;      /* matches[i].recs[0..nevents] */
    arb_checkpoint_t *cps;          /* cps[i] certifies matches[i] */
} arb_bundle_t;

void arb_bundle_clear(arb_bundle_t *b);

/* Moves the history h of match `match_id` (1..64 bytes), read from any
 * source that knows each event's hash and bytes (a data directory, the
 * server), into b, after recomputing its chain: an export never carries a
 * chain it has not checked, and its checkpoint (unsigned) is the head it
 * computed.  h's deal secret is dropped.  On success h is left zeroed;
 * on failure it is still the caller's.  0, ARB_ECORRUPT ("hash mismatch
 * at seq 7", "an event without seq, hash or bytes"), ARB_EINVAL (no open,
 * the id, a length) or ARB_ENOMEM, with why. */
int  arb_bundle_add(arb_bundle_t *b, const char *match_id, arb_history_t *h,
                    arb_buf_t *why);

/* Adds match `match_id` from a store with its first `count` events
 * (UINT64_MAX: all stored; more than stored is ARB_ENOTFOUND), read by
 * the store's history loader (arb_history_load) in one read transaction.
 * 0 or an ARB_E* code with why. */
int  arb_bundle_from_store(arb_bundle_t *b, arb_store_t *s,
                           const char *match_id, uint64_t count,
                           arb_buf_t *why);

/* Signs the current checkpoint of match i with kp. */
void arb_bundle_sign(arb_bundle_t *b, size_t i, const arb_keypair_t *kp);

/* Appends the bundle file of b (docs/BUNDLE.md).  Every match must be
 * signed and start with its open event, which gives the rule profile.
 * 0, ARB_EINVAL (with why) or ARB_ENOMEM. */
int  arb_bundle_write(arb_buf_t *out, const arb_bundle_t *b, arb_buf_t *why);

/* ---- verification ----------------------------------------------------- */

typedef struct arb_bundle_result {
    char           match_id[ARB_STORE_ID_MAX + 1];
    char          *game, *edition, *engine;   /* checked: the open event */
    char          *exporter;        /* as bundled: covered by nothing, so
                                     * never to be shown as verified */
    uint64_t       count;           /* events in the bundle */
    uint64_t       cp_count;        /* events the checkpoint counts */
    unsigned char  head[ARB_HASH_LEN];        /* the checkpoint's head */
    unsigned char  signer[ARB_PUBKEY_LEN];  /* the key the bundle names;
                                             * must be the verifier's */
    int            sig_ok;
    int            closed;          /* the replayed match is closed */
    arb_match_t   *m;               /* replayed; NULL unless verified */
    size_t         nproblems;
    char         **problems;        /* "hash mismatch at seq 17", ... */
} arb_bundle_result_t;

typedef struct arb_bundle_report {
    char                *error;     /* the file does not parse, or NULL */
    size_t               nmatches;
    arb_bundle_result_t *matches;
    size_t               nproblems; /* all matches' problems + error */
} arb_bundle_report_t;

void arb_bundle_report_clear(arb_bundle_report_t *r);

/*
 * THE verification of a bundle file data[0..len) against the public key
 * the verifier holds (never the one the bundle names).  For every match:
 * the checkpoint signature; seqs 0..n-1 present once each and in order;
 * n equal to the checkpoint's count; every hash recomputed from the raw
 * bytes and compared, and the head with the checkpoint's; then every
 * event decoded (canonical only), the rule profile compared with the
 * open event, and the events replayed through the rules, which recomputes
 * the results.  Every failure is a problem naming the seq and what failed.
 * Returns 0 when everything holds, ARB_ECRYPTO when anything fails (see
 * rep), ARB_ENOMEM.  rep is filled either way; clear it after.
 */
int  arb_bundle_verify(const void *data, size_t len,
                       const unsigned char pubkey[ARB_PUBKEY_LEN],
                       arb_bundle_report_t *rep);
/* The same, calling progress(ud, done, total) in events after each
 * match is verified (one call at a time, from whichever thread verified
 * it): what a tool shows at a terminal.  progress may be NULL. */
typedef void (*arb_bundle_progress_fn)(void *ud, uint64_t done,
                                       uint64_t total);
int  arb_bundle_verify_progress(const void *data, size_t len,
                                const unsigned char pubkey[ARB_PUBKEY_LEN],
                                arb_bundle_report_t *rep,
                                arb_bundle_progress_fn progress, void *ud);

/* A bundled match to draw or replay, handed out only after the whole
 * bundle passed arb_bundle_verify() against pubkey, from the very bytes
 * verified (one copy of data[0..len), read once): rep as that fills it,
 * and on success *h (zeroed by the caller; clear it after, also on
 * failure) the history of match `match_id`, or of the bundle's only match
 * when match_id is NULL.  0; ARB_ECRYPTO (verification failed: see rep);
 * ARB_EINVAL (several matches and no match_id) or ARB_ENOTFOUND (no such
 * match) with why; ARB_ENOMEM. */
int  arb_bundle_verified_history(const void *data, size_t len,
                                 const unsigned char pubkey[ARB_PUBKEY_LEN],
                                 const char *match_id,
                                 arb_bundle_report_t *rep, arb_history_t *h,
                                 arb_buf_t *why);

/* ---- text exports ----------------------------------------------------- */

/* One JSON object per event and line:
 *   {"match","seq","time","time_ms","actor","kind","body","prev","hash",
 *    "bytes"}
 * body is the decoded event as JSON (the canonical map, key for key); prev
 * and hash are h(seq-1) and h(seq), bytes the canonical event, in hex.
 * Of match i of b; 0 or ARB_ENOMEM. */
int  arb_bundle_jsonl(arb_buf_t *out, const arb_bundle_t *b, size_t i);
/* One line of that export as a JSON object (the caller owns it; NULL when
 * memory runs out): event ev of match, its record e (seq, hash, bytes)
 * and the hash before it (zeros before seq 0).  A reader of an export
 * compares a line's derived fields with it. */
struct json_t;
struct json_t *arb_bundle_jsonl_line(const char *match,
                                     const arb_history_rec_t *e,
                                     const arb_event_t *ev,
                                     const unsigned char *prev);

/* The registration records of every match of b, replayed (b is not
 * changed: a bundled history has no secret to reveal), or, where given
 * (may be NULL) has results for match i, those (a running dealt match
 * judged where its deal is: by the recorder, or with the store's
 * secret): a header row of the record fields (as `arbiter replay --json`
 * names them, in order of first appearance), one row per record, RFC
 * 4180 (CRLF, quotes doubled), list fields joined by spaces.  Nothing at
 * all when there is no record. */
int  arb_bundle_csv(arb_buf_t *out, arb_bundle_t *b,
                    const arb_results_t *const *given, arb_buf_t *why);

/* The canonical transcript (docs/TRANSCRIPT.md) of match i; 0 or
 * ARB_ENOMEM. */
int  arb_bundle_transcript(arb_buf_t *out, const arb_bundle_t *b, size_t i);

#endif
