/*
 * history.h - the recorded history of one match, whatever it was read from:
 * its setup (the open event) and its events in seq order, plus what the
 * source knew of each event (seq, time, chain hash, canonical bytes; an
 * audit bundle's events are these records too) and where it came from.
 * A transcript (core/transcript.h), a data directory (the store), an audit
 * bundle and the server all fill this one struct, and one function,
 * arb_history_replay(), turns it back into a match.
 *
 * DESIGN: positions are trusted by replay (events[i] is seq i + 1), so
 * every loader appends through arb_history_add(), which refuses a gap, a
 * duplicate or a stray open instead of replaying something else.  A dealt
 * match's open carries only the deal's commitment (core/deal.h); the
 * recorder keeps the secret beside the log, and a history read from a data
 * directory carries it in `secret` so that the operator can replay a
 * running dealt match.  Nothing here decides whether a missing secret is
 * an error: the daemon says it is, the tools replay what they can judge.
 *
 * Ownership: arb_history_t owns every event, record, string and byte in it;
 * arb_history_clear() releases them (NULL-safe) and leaves it zeroed.
 * Zero-initialise before the first use.
 */
#ifndef ARB_HISTORY_H
#define ARB_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/event.h"
#include "core/hash.h"
#include "core/match.h"

/* What a stored or transmitted source knew of one event besides its
 * decoded form (a transcript has none of it). */
typedef struct arb_history_rec {
    uint64_t       seq;
    int64_t        time_ms;             /* as recorded; 0 unknown */
    int            has_hash;
    unsigned char  hash[ARB_HASH_LEN];  /* h(seq) as recorded */
    unsigned char *bytes;               /* the canonical event, owned */
    size_t         len;
} arb_history_rec_t;

typedef struct arb_history {
    arb_event_t        open;        /* seq 0, kind ARB_EV_OPEN */
    int                has_open;
    size_t             nevents, cap;
    arb_event_t       *events;      /* events[i].seq == i + 1 */
    arb_history_rec_t *recs;        /* recs[seq]: 0 the open; NULL when the
                                       source has none (a transcript) */
    unsigned          *lines;       /* a transcript: line of each event */
    unsigned           open_line;   /* a transcript: line of `game:` */
    char              *source;      /* for messages: "PATH", "DIR: match
                                       M"; owned, may be NULL */
    char              *secret;      /* the stored deal secret ("<kind>
                                       <secret>", core/deal.h), or NULL */
    int                withheld;    /* the server withheld hashes, and with
                                       them moves' hidden arguments, from
                                       this reader (docs/VIEWS.md): only
                                       the recorder can judge the match */
} arb_history_t;

void arb_history_clear(arb_history_t *h);

/* Names where the history came from (printf-style, replaces any name). */
int  arb_history_name(arb_history_t *h, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Decodes the canonical bytes of event `seq` and appends it, keeping a
 * copy of the bytes and the recorded time and hash (hash may be NULL).
 * Seqs must come 0, 1, 2 ... in order, only seq 0 an open, and the seq
 * inside the event must be `seq`.  0, or ARB_EPROTO (does not decode),
 * ARB_ECORRUPT (out of place) or ARB_ENOMEM with "seq N: ..." in why. */
int  arb_history_add(arb_history_t *h, uint64_t seq, int64_t time_ms,
                     const unsigned char *hash, const void *bytes,
                     size_t len, arb_buf_t *why);

/* Appends an already decoded and checked event as the next one: the open
 * when h has none yet.  ev is moved into h (and zeroed); rec, when not
 * NULL, is copied with its bytes.  A history keeps records for all its
 * events or for none.  0 or ARB_ENOMEM (ev then still the caller's). */
int  arb_history_push(arb_history_t *h, arb_event_t *ev,
                      const arb_history_rec_t *rec);

/* The stored history of a match: events 0..upto (UINT64_MAX: all) read
 * in one read transaction, and the deal's secret when the open commits a
 * deal and the store keeps one; where it keeps none (a read replica
 * without the replication key) and the match's close, at any seq, reveals
 * the deal, that reveal as the secret: a closed dealt match is judged at
 * every seq wherever it was recorded.  ARB_ENOTFOUND for an unknown
 * match, the store's error, or arb_history_add()'s, with why. */
struct arb_store;
int  arb_history_load(arb_history_t *h, struct arb_store *s,
                      const char *match_id, uint64_t upto, arb_buf_t *why);

/* 1 when h's open commits a deal that h cannot reveal: no secret, and no
 * close among its events reveals it (a running dealt match read without
 * its secret: from a server, which never sends one, or a read replica's
 * store without the replication key), or h withheld (a running match
 * whose moves' hidden arguments the server kept from this reader).  The
 * rule sets cannot judge it: only the recorder can. */
int  arb_history_sealed(const arb_history_t *h);

/* Reveals a committed deal of h->open in place from h->secret.  0 when
 * there is nothing to reveal (no commitment, or no secret), else the
 * reveal's ARB_ECRYPTO / ARB_EINVAL / ARB_ECORRUPT (a malformed secret)
 * with the reason in v. */
int  arb_history_reveal(arb_history_t *h, arb_verdict_t *v);

/*
 * THE replay of a recorded history: reveals a stored deal (as
 * arb_history_reveal), opens the match and applies the events in order,
 * stopping after seq `at` (UINT64_MAX: all).  0 with *out the match, or
 * the first refusal with v saying why and *bad its index in h->events;
 * *out is then the match as it stood before that event, or NULL when the
 * open itself (or the reveal) failed.  Release *out with arb_match_free().
 * A sealed history (arb_history_sealed) is ARB_ESEALED with *out NULL,
 * its rule "deal" and a message saying why no reader can judge it yet
 * (each rule set's own words for a commitment it cannot judge are for a
 * transcript's author, "open the match with the seed or an order").
 */
int  arb_history_replay(arb_history_t *h, uint64_t at, arb_match_t **out,
                        size_t *bad, arb_verdict_t *v);

#endif
