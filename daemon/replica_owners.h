/*
 * replica_owners.h - DATA/replica.owners: the recorder that wrote each
 * match a read replica has read, kept across its restarts.
 *
 * A write sent to a replica is refused naming the match's recorder, which
 * only the stream says (the Arbiter-Recorder header).  A replica that
 * resumes the stream where its last life stopped (replica_pos.h) does not
 * read the earlier messages again, so it keeps what they said here: one
 * line "MATCH RECORDER" when it first learns a match's recorder, or the
 * recorder changes; the last line of a match is its recorder.  The file
 * is advice, appended without fsync: a line lost in a crash, or one that
 * does not read, only makes a refusal name the configured primary.
 *
 * Ownership: the table is loaded at start and never changes (the mirror
 * answers for every match read since); arb_owners_get may run on any
 * thread, arb_owners_note and arb_owners_flush on one.
 */
#ifndef ARB_DAEMON_REPLICA_OWNERS_H
#define ARB_DAEMON_REPLICA_OWNERS_H

#include <stddef.h>

#include "core/buf.h"

#define ARB_REPLICA_OWNERS_FILE "replica.owners"

typedef struct arb_owners arb_owners_t;

/* Loads path (absent: an empty table) and opens it for appending.  Lines
 * that are not "MATCH RECORDER" are skipped, counted in *skipped.  0, or
 * ARB_EIO / ARB_ENOMEM with why. */
int  arb_owners_open(arb_owners_t **out, const char *path, size_t *skipped,
                     arb_buf_t *why);
void arb_owners_free(arb_owners_t *o);      /* NULL-safe; flushes */

/* The recorder of match_id as the file said at the load, or NULL. */
const char *arb_owners_get(const arb_owners_t *o, const char *match_id);
/* recorder wrote match_id: a line, unless first (the first time this
 * life) and the loaded table says so already. */
void arb_owners_note(arb_owners_t *o, const char *match_id,
                     const char *recorder, int first);
/* Writes out what was noted (no fsync).  0, or -1 with errno. */
int  arb_owners_flush(arb_owners_t *o);
/* Entries in the loaded table. */
size_t arb_owners_count(const arb_owners_t *o);

#endif
