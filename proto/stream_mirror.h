/*
 * stream_mirror.h - a store rebuilt from the replicated stream, message by
 * message, trusting nothing in the stream (docs/REPLICA.md).
 *
 * Each event message must be its match's next seq: its chain hash is
 * recomputed from the payload and must equal both the Arbiter-Hash header
 * and the link from the previous event; its bytes must decode as the
 * canonical event of that seq; and the match's rules judge it, exactly as
 * the recorder did.  A dealt match is judged with the secret of its
 * arbiter.deal message when the mirror has the replication key, and on
 * its chain only otherwise (its hands stay sealed until the close).
 *
 * A message that fails any check stops the mirror for that match: the
 * problem callback names the match and seq, and every later message of
 * the match is ignored, never appended (a shortened or forked history is
 * never written).  Events are taken in Arbiter-Seq order, not in the
 * subject's order: a seq beyond the next one waits (in memory, at most
 * ARB_MIRROR_WAIT_MAX per match) for the seqs before it, because the
 * recorder's anti-entropy republishes an event lost from the middle of a
 * subject after its successors (JetStream only appends).  What still
 * waits when the caller has read all it will read is a gap
 * (arb_mirror_finish): "first missing seq N".  A seq already held must
 * carry the hash already held (a replica re-reading the stream after a
 * restart), else it is a fork.
 *
 * Memory: a match's rule state is kept while it is open and dropped once
 * its close is committed; an event after the close (a claim) rebuilds it
 * by a replay of the stored history.  What stays per match ever seen is
 * its entry: next seq, head hash, recorder, a few hundred bytes.
 *
 * Appends are batched (one LMDB transaction per batch, committed by
 * arb_mirror_flush or when the batch is full).  With the key, a dealt
 * open waits in the batch for its deal message, across flushes, so that
 * its secret is stored with it (a restored recorder needs it to judge
 * the match): until the deal comes, the match's next event comes (the
 * recorder sends the deal before it), 50 flushes have passed or
 * arb_mirror_finish; then, once, the caller's lookup (arb_mirror_on_deal)
 * is asked for the deal wherever the stream holds it.
 *
 * Ownership: the mirror borrows the store (which must outlive it) and
 * copies the key.  Not thread-safe: one thread applies and flushes.
 */
#ifndef ARB_PROTO_STREAM_MIRROR_H
#define ARB_PROTO_STREAM_MIRROR_H

#include <stdint.h>

#include "core/buf.h"
#include "core/ledger/store.h"
#include "proto/stream.h"

typedef struct arb_mirror arb_mirror_t;

/* Events of one match that may wait for a missing earlier seq, and of
 * all matches together: past either, the match that made it is stopped
 * at its gap (a stream that never fills its gaps cannot fill memory). */
#define ARB_MIRROR_WAIT_MAX 65536
#define ARB_MIRROR_WAIT_ALL (4 * ARB_MIRROR_WAIT_MAX)

/* A match the mirror stopped following: seq is the event at fault (for a
 * gap, the first missing seq); msg is a full sentence, valid during the
 * call. */
typedef void (*arb_mirror_problem_cb)(void *ud, const char *match_id,
                                      uint64_t seq, const char *msg);
/* Events appended by a flush: first..last global positions of the store
 * (for a replica's subscribers). */
typedef void (*arb_mirror_appended_cb)(void *ud, uint64_t first_pos,
                                       uint64_t last_pos);

typedef struct arb_mirror_stats {
    uint64_t events;        /* appended */
    uint64_t opens;         /* matches created */
    uint64_t duplicates;    /* already held (or waiting), same hash
                               and bytes */
    uint64_t damaged_copies; /* already held (or waiting), same hash
                                header, other bytes: a damaged copy,
                                ignored */
    uint64_t problems;      /* matches stopped */
    uint64_t deals;         /* deal secrets opened */
    uint64_t chain_only;    /* dealt matches judged on their chain only */
    uint64_t last_stream_seq; /* of the last message applied */
    uint64_t ruled;         /* matches whose rule state is in memory */
    uint64_t evicted;       /* rule states dropped after a close */
} arb_mirror_stats_t;

/* key may be NULL (no replication key: dealt matches chain-only until
 * their close).  Matches already in the store continue from their heads. */
int  arb_mirror_open(arb_mirror_t **out, arb_store_t *store,
                     const unsigned char *key, arb_mirror_problem_cb cb,
                     void *ud);
void arb_mirror_free(arb_mirror_t *m);     /* NULL-safe; drops the batch */

void arb_mirror_on_append(arb_mirror_t *m, arb_mirror_appended_cb cb,
                          void *ud);
/* The stream named match_id's recorder (its Arbiter-Recorder header) for
 * the first time in this mirror's life (first 1), or another one than
 * before (first 0). */
typedef void (*arb_mirror_recorder_cb)(void *ud, const char *match_id,
                                       const char *recorder, int first);
void arb_mirror_on_recorder(arb_mirror_t *m, arb_mirror_recorder_cb cb,
                            void *ud);

/* Asked, when a dealt open would otherwise go without its secret (its
 * deal message did not come before the match's next event, within the
 * patience, or before arb_mirror_finish), for the match's deal message
 * wherever it lies in the stream (its subject's last message): 0 with
 * *msg parsed (the mirror takes it), else nonzero.  Asked once per
 * match; without it (or without the key) the open goes as before. */
typedef int (*arb_mirror_deal_fn)(void *ud, const char *match_id,
                                  arb_stream_msg_t *msg);
void arb_mirror_on_deal(arb_mirror_t *m, arb_mirror_deal_fn fn, void *ud);

/* A stored dealt match's deal came after its open was stored (a deal the
 * stream lost, put back by the recorder): from now on it is judged with
 * the secret, which arb_mirror_secret serves until the match's next event
 * stores it.  Called from inside arb_mirror_apply. */
typedef void (*arb_mirror_judged_cb)(void *ud, const char *match_id);
void arb_mirror_on_judged(arb_mirror_t *m, arb_mirror_judged_cb cb,
                          void *ud);

/* Applies one message, taking it (it is cleared).  0 also when the
 * message was refused (that is a problem of its match, reported); a
 * negative code only for a failed store append (the caller stops). */
int  arb_mirror_apply(arb_mirror_t *m, arb_stream_msg_t *msg,
                      arb_buf_t *why);
/* The end of what will be read (a restore at the stream's end): every
 * match still waiting for a seq is stopped there, "first missing seq N",
 * through the problem callback, and no open waits for its deal any more
 * (the next flush commits everything).  A replica following a live
 * stream never calls it: a repair may still come. */
void arb_mirror_finish(arb_mirror_t *m);
/* Sets the two limits above (the defaults; smaller ones in tests). */
void arb_mirror_set_wait(arb_mirror_t *m, size_t per_match, size_t all);
/* Events waiting for an earlier seq, over all matches. */
size_t arb_mirror_waiting(const arb_mirror_t *m);
/* Commits the batch but the dealt opens still waiting for their deal
 * messages.  0 or the store's error (the batch is then dropped). */
int  arb_mirror_flush(arb_mirror_t *m, arb_buf_t *why);
/* Events read but not committed (waiting opens after a flush): the
 * caller flushes again later. */
size_t arb_mirror_held(const arb_mirror_t *m);
/* The stream sequence a reader starting afresh (a replica after its
 * restart, on the same store) must read from so as to miss nothing: every
 * message read before it is in the store, or needs nothing kept (a
 * duplicate, a deal whose secret is stored or revealed).  What is read
 * but not in the store holds it back: the batch, events waiting for an
 * earlier seq, every message of a stopped match from the first one not
 * kept (a restart may find it repaired), and a deal secret kept only in
 * memory until its match's close is committed.  1 when nothing was read
 * (or a message's place was not known). */
uint64_t arb_mirror_resume_seq(const arb_mirror_t *m);
/* The stream is read again after sequence upto: it still holds what
 * was read up to there, and what was read after it stood at sequences
 * that mean nothing in the stream now (NATS lost its tail and the next
 * messages took those sequences again; upto 0: the stream was created
 * again, and is read from its first message).  Everything still held
 * that was read after upto (the batch, events waiting for a gap, a
 * stopped match's first unkept message, a secret held in memory only)
 * is marked as read at upto + 1, so that a restart before it is settled
 * reads the stream from there; the last sequence read goes back to
 * upto. */
void arb_mirror_restream(arb_mirror_t *m, uint64_t upto);

void arb_mirror_stats(const arb_mirror_t *m, arb_mirror_stats_t *out);
/* 1 when the mirror stopped following match_id (the problem callback
 * said why). */
int  arb_mirror_stopped(const arb_mirror_t *m, const char *match_id);

/* The deal secret of dealt match match_id as the mirror holds it (the
 * stored form, core/deal.h), into out: a deal met after the open was
 * committed is in memory only until the match's next event stores it, and
 * the match is judged with it meanwhile.  0, or ARB_ENOTFOUND when the
 * mirror holds none it has judged the match with (or stopped it). */
int  arb_mirror_secret(const arb_mirror_t *m, const char *match_id,
                       arb_buf_t *out);

/* The recorder that wrote match_id (its Arbiter-Recorder header) into
 * out.  0, or ARB_ENOTFOUND when the stream has not named one. */
int  arb_mirror_recorder(const arb_mirror_t *m, const char *match_id,
                         char *out, size_t cap);

#endif
