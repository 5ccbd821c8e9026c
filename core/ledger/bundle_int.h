/*
 * bundle_int.h - what the bundle files share and nobody else may call.
 *
 * The reader is private on purpose: the only public way to look into a
 * bundle file is arb_bundle_verify(), which always checks everything.
 */
#ifndef ARB_BUNDLE_INT_H
#define ARB_BUNDLE_INT_H

#include "core/ledger/bundle.h"
#include "core/rules.h"

/* Record types (docs/BUNDLE.md). */
#define ARB__REC_MATCH      'M'
#define ARB__REC_EVENT      'E'
#define ARB__REC_CHECKPOINT 'C'
#define ARB__REC_END        'Z'

#define ARB__REC_HDR        5               /* u8 type, u32 length */
#define ARB__EVENT_FIXED    40              /* u64 seq, hash */
#define ARB__CHECKPOINT_LEN 136             /* count, head, pubkey, sig */
#define ARB__END_LEN        4               /* u32 matches */
#define ARB__MATCH_MAX      (1u << 20)      /* a match record's body */

/* Parses a bundle file into b (zeroed by the caller) without judging the
 * contents: records in file order, lengths checked against the bytes left
 * and the type's limit before anything is copied.  0, or ARB_ECRYPTO with
 * the file-level reason ("truncated at byte N (in seq K)") in why, or
 * ARB_ENOMEM.  On failure b holds what was read (clear it). */
int  arb__bundle_read(arb_bundle_t *b, const unsigned char *data,
                      size_t len, arb_buf_t *why);

/* Replays a bundle's history (arb_history_replay) into *out.  0, or
 * ARB_ECRYPTO with "seq K 'line' refused: rule: message" in why. */
int  arb__bundle_replay(arb_history_t *h, arb_match_t **out, arb_buf_t *why);

/* One CSV field, RFC 4180: quoted when it holds a comma, a quote or a
 * line break, its quotes doubled. */
void arb__bundle_csv_cell(arb_buf_t *b, const char *s, size_t n);

#endif
