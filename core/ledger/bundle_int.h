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

/* One match of a bundle file as read, before anything in it is judged:
 * its header (rule profile and exporter), its event records in file
 * order and its checkpoint.  It is not a history (core/ledger/history.h)
 * yet, on purpose: a hostile file's records may be missing, repeated,
 * out of place or not decode, and the verifier checks them against the
 * checkpoint and the chain first; only records it certified become the
 * match's history (arb__bundle_history). */
typedef struct arb__bundle_section {
    arb_checkpoint_t   cp;          /* cp.match_id names the match */
    arb_setup_t        profile;
    char              *exporter;
    size_t               nrecs;     /* its event records */
    const unsigned char *ev;        /* the first one's record header, in
                                       the file's bytes; NULL when none */
    size_t               evlen;     /* bytes from ev to the end of the
                                       last one */
} arb__bundle_section_t;

typedef struct arb__bundle_file {
    size_t                 nsections, cap;
    arb__bundle_section_t *sections;
} arb__bundle_file_t;

/* A bundle of fewer event records than this is verified on one thread
 * (4096; a test sets it to 0 to put every bundle on the threads). */
extern size_t arb__bundle_par_min;

/* Called by arb_bundle_verified_history between its verification and its
 * reading of the history (NULL: nothing): a test changes the caller's
 * bytes there, as another program may rewrite a mapped file. */
extern void (*arb__bundle_verified_hook)(void);

void arb__bundle_file_clear(arb__bundle_file_t *f);

/* The event records of sec (the reader checked their shape) as history
 * records in file order: seq and hash as the file says, time_ms 0, bytes
 * pointing into the file's bytes.  Into *recs, grown with realloc to
 * sec->nrecs when *cap is less, and the caller's to free: one room
 * reused match after match, so a verification touches no new memory
 * per match (a page fault costs more than a link's check).  Each record
 * is checked again against the section's bytes as it is taken: a mapped
 * file another program rewrites changes under the reader, and a length
 * read twice could then send the chain check out of the file.  0,
 * ARB_ECRYPTO (the records are not what the reader found: the file
 * changed while it was read), or ARB_ENOMEM. */
#define ARB__BUNDLE_CHANGED "the bundle file changed while it was read " \
                            "(its event records are not what the first " \
                            "reading found)"
int  arb__bundle_recs(const arb__bundle_section_t *sec,
                      arb_history_rec_t **recs, size_t *cap);

/* Parses a bundle file into f (zeroed by the caller) without judging the
 * contents: records in file order, lengths checked against the bytes left
 * and the type's limit before anything is copied.  0, or ARB_ECRYPTO with
 * the file-level reason ("truncated at byte N (in seq K)") in why, or
 * ARB_ENOMEM.  On failure f holds what was read (clear it).  The events'
 * bytes are not copied: they point into data, which must outlive f. */
int  arb__bundle_read(arb__bundle_file_t *f, const unsigned char *data,
                      size_t len, arb_buf_t *why);

/* The history of a section whose records the verifier certified: every
 * event decoded (canonical only) and checked against its position (event
 * i has seq i, only seq 0 is an open), with its bytes and hash, and its
 * time from inside the event.  h must be zeroed; clear it after, also on
 * failure.  0, or ARB_ECRYPTO / ARB_ENOMEM with "seq K: ..." in why. */
int  arb__bundle_history(arb_history_t *h, const arb__bundle_section_t *sec,
                         arb_buf_t *why);

/* Replays a bundle's history (arb_history_replay) into *out.  0, or
 * ARB_ECRYPTO with "seq K 'line' refused: rule: message" in why (or,
 * for a dealt match still running, which no export can judge, a
 * sentence saying so). */
int  arb__bundle_replay(arb_history_t *h, arb_match_t **out, arb_buf_t *why);

/* One CSV field, RFC 4180: quoted when it holds a comma, a quote or a
 * line break, its quotes doubled. */
void arb__bundle_csv_cell(arb_buf_t *b, const char *s, size_t n);

#endif
