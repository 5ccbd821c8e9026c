/*
 * store.h - the durable event log: the only module that talks to LMDB.
 *
 * Events are opaque byte strings (canonical msgpack made by the codec); the
 * store never decodes them.  It keeps, per match, the events in seq order
 * with the hash chain of core/ledger/chain.h, a summary record, an idempotency
 * index of client event ids, and one global log of every event in commit
 * order.  docs/STORE.md gives the on-disk layout byte by byte.
 *
 * Durability: arb_store_append_batch() returns 0 only after LMDB's commit
 * has returned and the batch's block in the journal is flushed (one
 * fdatasync; docs/STORE.md, "The journal"), so an event may be
 * acknowledged as soon as the call succeeds.  A failed commit is never retried: the
 * handle refuses further appends and the caller is expected to stop.
 *
 * Threads and locking (the contract callers rely on):
 *   - Every function except arb_store_open/arb_store_close may be called
 *     from any thread at any time, concurrently.  Reads each run in their
 *     own short read transaction (the environment uses MDB_NOTLS), so a
 *     loop thread can read while a worker thread appends.
 *   - Appends are serialised inside the store (one writer at a time).
 *   - Growing the map needs every transaction of this process to be
 *     finished; the store takes an internal rwlock for that, held shared
 *     by each read or write transaction and exclusively by the grow.  So a
 *     callback passed to a read function must return promptly (it delays a
 *     grow, and with it the writer) and must NOT call back into the store.
 *   - arb_store_close() must not race with any other call on the handle.
 *   - Open one handle per directory per process (an LMDB rule: a second
 *     open of the same files in one process breaks its file locks).
 *     Other processes may open the directory read-only at the same time.
 *
 * Errors: every int function returns 0 or a negative ARB_E* code, and on
 * failure writes a one-line reason to `why` when why is not NULL (its old
 * content is replaced).  Stored records are checked before use; anything
 * malformed yields ARB_ECORRUPT with a message naming the record's key.
 */
#ifndef ARB_STORE_H
#define ARB_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/hash.h"

#define ARB_STORE_FORMAT     3          /* "meta" format version */

/* `arbiter migrate` builds the new store in DIR/ARB_MIGRATE_NEW and, once
 * it is verified, writes ARB_MIGRATE_MARK in it before any file of DIR
 * moves: while the mark is there, DIR is between two stores, and every
 * open refuses it, naming `arbiter migrate`, which finishes the move. */
#define ARB_MIGRATE_NEW      "migrate.new"
#define ARB_MIGRATE_MARK     "migrate.new/verified"
#define ARB_STORE_ID_MAX     64         /* match id, game: 1..64 bytes */
#define ARB_STORE_CLIENT_MAX 128        /* client event id: 1..128 bytes */
#define ARB_STORE_EVENT_MAX  (1u << 20) /* event bytes: 1..1 MiB */
/* The map's ceiling when none is given: the configuration judges its
 * map_size against it, as the store would at its open. */
#if SIZE_MAX > 0xffffffffu
#define ARB_STORE_MAP_MAX_DEFAULT  ((size_t)64 << 30)
#else
#define ARB_STORE_MAP_MAX_DEFAULT  ((size_t)1 << 30)
#endif

typedef struct arb_store arb_store_t;

typedef struct arb_store_opts {
    size_t map_size;    /* initial map in bytes; 0 = 64 MiB */
    size_t map_max;     /* growth stops here; 0 = 64 GiB (1 GiB on 32-bit) */
    int    read_only;   /* open an existing store without writing */
    int    skip_index;  /* read-only: leave index.mdb unread, as if it
                           were missing (its pages are damaged) */
} arb_store_opts_t;

/*
 * Opens (creating when writable and missing, mode 0700) the store in
 * directory `dir`.  opts may be NULL for the defaults.  Clears reader
 * slots left by dead processes (mdb_reader_check); how many is reported
 * by arb_store_stats().stale_readers.  A store written by an earlier run
 * keeps the larger map it grew to.  On success *out owns the handle;
 * release it with arb_store_close().
 * ARB_ENOTFOUND: read-only and no store there.  ARB_EUNSUPP: another
 * format version.  ARB_EINVAL: bad options (map_max < map_size).
 * ARB_EPERM: this process already has the directory open (one handle
 * per store per process, an LMDB rule: share the open handle).
 */
int  arb_store_open(arb_store_t **out, const char *dir,
                    const arb_store_opts_t *opts, arb_buf_t *why);
void arb_store_close(arb_store_t *s);   /* NULL-safe */

/* What arb_store_check_pages() found. */
typedef struct arb_store_pages {
    uint64_t problems;      /* in both files */
    int      log_damaged;   /* data.mdb: the store must not be opened */
    int      index_damaged; /* index.mdb: open with skip_index (it is
                               derived: rebuilt when moved away) */
    uint64_t log_pages, index_pages;    /* pages walked */
} arb_store_pages_t;

/*
 * Reads every page of the store's two LMDB files in dir with pread,
 * never through LMDB's map, and checks each number LMDB would follow
 * (core/ledger/lmdb_walk.c): LMDB trusts its pages, so one damaged page
 * header makes any reader fault where a check should name it.  A store
 * whose writer died is recovered first, as arb_store_open() does.
 * problem gets each problem (a message naming the file and page, valid
 * during the call; at most 100 per file), progress the pages read of
 * the total; either may be NULL.  Safe while a writer runs (a read
 * transaction pins what is walked).  Returns 0 when both walks ran
 * (out says what they found), ARB_ENOTFOUND without a store, or the
 * error that stopped it (why says which).
 */
int  arb_store_check_pages(const char *dir,
                           void (*problem)(void *ud, const char *msg),
                           void (*progress)(void *ud, uint64_t done,
                                            uint64_t total),
                           void *ud, arb_store_pages_t *out,
                           arb_buf_t *why);

/* Clears reader slots of dead processes again (for a periodic timer);
 * *cleared (may be NULL) receives how many. */
int  arb_store_reader_check(arb_store_t *s, int *cleared);

/* One event of a batch.  The strings and bytes are borrowed for the
 * duration of the call only. */
typedef struct arb_append {
    const char    *match_id;    /* 1..64 bytes */
    const char    *game;        /* seq 0 only: the rule set, 1..64 bytes */
    uint64_t       seq;         /* 0 opens the match; else last_seq + 1 */
    int64_t        time_ms;     /* Unix ms stamped by the daemon */
    const void    *bytes;       /* the canonical event, 1..EVENT_MAX */
    size_t         len;
    const char    *client_id;   /* 1..128 bytes, or NULL */
    int            closes;      /* non-zero: the match is closed after it */
    int            after_close; /* non-zero: may follow a close (a claim:
                                   results are registered after the match);
                                   the match stays closed */
    const char    *secret;      /* or NULL: the deal's secret
                                   (core/deal.h), kept in the same
                                   transaction but outside the chain;
                                   with seq 0, or with a later event of a
                                   match stored without it (a read replica
                                   that met its deal message late) */
    int            cid_fresh;   /* arb_store_append_commit only (the batch
                                   call ignores it): non-zero when the
                                   caller, the only writer, looked
                                   client_id up (arb_store_idem) and found
                                   it unused, so the index is not asked
                                   again (the tail and the batch are) */
    unsigned char  hash[ARB_HASH_LEN];    /* out: h(seq) */
    uint64_t       pos;         /* out: position in the global log */
} arb_append_t;

/*
 * Appends n events in ONE write transaction and returns after the commit
 * has returned.  Events of the same match may follow each other in a
 * batch; each chains on the one before.  The checks below are a guard
 * against bugs in the caller, which validates first; any failure aborts
 * the whole transaction, writes nothing and zeroes every hash/pos:
 *   ARB_EEXIST     seq 0 of a match that exists, or a client id already
 *                  used in that match (idempotency scope: forever)
 *   ARB_ENOTFOUND  seq > 0 for an unknown match
 *   ARB_EOVER      the match is closed (and after_close is not set)
 *   ARB_ECONFLICT  seq is not last_seq + 1 ("expected seq N, match is at M")
 *   ARB_EINVAL / ARB_ETOOBIG  bad ids or sizes
 *   ARB_EPERM      the store is read-only
 * When the map is full the transaction is aborted, the map doubled (up to
 * map_max) and the batch retried; at the cap: ARB_EFULL ("storage full:
 * map is N bytes (max M)"), nothing written, reads keep working.
 * A failed commit gives ARB_EIO (an OS error such as EIO or ENOSPC) or
 * ARB_ESTORE (an LMDB error); it is not retried and the handle refuses
 * later appends with ARB_ESTORE: the caller should stop.
 */
int  arb_store_append_batch(arb_store_t *s, arb_append_t *v, size_t n,
                            arb_buf_t *why);

/*
 * arb_store_append_commit is arb_store_append_batch for the daemon, which
 * vouches for the client ids it marks cid_fresh (the store then does not
 * look them up in the index again).  It returns with the batch durable;
 * *ticket names the commit.  arb_store_sync returns 0 for any ticket a
 * commit returned (it flushes nothing: the journal did), ARB_ESTORE for
 * one never issued.  Ticket 0 is always durable.
 */
int  arb_store_append_commit(arb_store_t *s, arb_append_t *v, size_t n,
                             uint64_t *ticket, arb_buf_t *why);
int  arb_store_sync(arb_store_t *s, uint64_t ticket, arb_buf_t *why);

typedef struct arb_match_info {
    char          match_id[ARB_STORE_ID_MAX + 1];
    char          game[ARB_STORE_ID_MAX + 1];
    int           closed;
    uint64_t      last_seq;
    uint64_t      count;        /* events stored: last_seq + 1 */
    unsigned char head[ARB_HASH_LEN];     /* h(last_seq) */
    int64_t       created_ms;   /* time_ms of seq 0 */
    int64_t       last_ms;      /* time_ms of last_seq */
} arb_match_info_t;

/*
 * Callbacks of the read functions get pointers into the database map:
 * valid only until the callback returns (copy what you keep).  A non-zero
 * return stops the iteration and becomes the function's return value.
 */
typedef int (*arb_store_event_cb)(void *ud, uint64_t seq, int64_t time_ms,
                                  const unsigned char hash[ARB_HASH_LEN],
                                  const void *bytes, size_t len);
typedef int (*arb_store_log_cb)(void *ud, uint64_t pos, const char *match_id,
                                uint64_t seq, int64_t time_ms,
                                const unsigned char hash[ARB_HASH_LEN],
                                const void *bytes, size_t len);
typedef int (*arb_store_match_cb)(void *ud, const arb_match_info_t *m);

/* The summary of one match.  ARB_ENOTFOUND when unknown. */
int  arb_store_match(arb_store_t *s, const char *match_id,
                     arb_match_info_t *out, arb_buf_t *why);

/* Events from..to (inclusive; to = UINT64_MAX for "to the end") of one
 * match, in seq order.  ARB_ENOTFOUND for an unknown match; an empty range
 * is not an error.  Every hash link read is checked (the event before
 * `from` is read for the first): an event whose stored hash is not
 * BLAKE2b(previous hash || its bytes) is ARB_ECORRUPT, why naming its
 * seq ("seq N: stored hash does not match the chain ..."), and is not
 * handed to cb. */
int  arb_store_events(arb_store_t *s, const char *match_id, uint64_t from,
                      uint64_t to, arb_store_event_cb cb, void *ud,
                      arb_buf_t *why);
/* The same without that check, for a caller that checks the links itself
 * and names each break its own way (core/ledger/check.c). */
int  arb_store_events_unchecked(arb_store_t *s, const char *match_id,
                                uint64_t from, uint64_t to,
                                arb_store_event_cb cb, void *ud,
                                arb_buf_t *why);

/* The hash of event seq of a match, into hash.  0, ARB_ENOTFOUND (no
 * such match, or no such seq), or the store's error. */
int  arb_store_event_hash(arb_store_t *s, const char *match_id, uint64_t seq,
                          unsigned char hash[ARB_HASH_LEN], arb_buf_t *why);

/* What a reader of the log remembers of each match's last link, so that
 * reading the log a piece at a time checks each match's links without
 * reading back (core/ledger/store_links.c): up to max_matches matches
 * (0: ARB_STORE_LINKS_DEFAULT), about 240 bytes each (a slot of 120
 * bytes, the table at most half full).  One per reader,
 * owned by it; not shared between threads.  NULL when out of memory; free
 * is NULL-safe. */
#define ARB_STORE_LINKS_DEFAULT 2048
typedef struct arb_store_links arb_store_links_t;
arb_store_links_t *arb_store_links_new(size_t max_matches);
void               arb_store_links_free(arb_store_links_t *lk);

/* Up to max events (0 = no limit) of all matches in commit order, starting
 * at global position from_pos (positions start at 1 and are dense).
 * Every hash link is checked, as by arb_store_events: an event whose
 * stored hash is not BLAKE2b(its match's previous hash || its bytes) is
 * ARB_ECORRUPT (why: `match "ID" seq N: stored hash does not match the
 * chain ...`) and is not handed to cb.  lk (may be NULL: a memory for
 * this call alone) remembers links across calls. */
int  arb_store_log(arb_store_t *s, arb_store_links_t *lk, uint64_t from_pos,
                   uint64_t max, arb_store_log_cb cb, void *ud,
                   arb_buf_t *why);
/* The same without the check: for a caller that checks the links itself
 * (core/ledger/check.c), reads only positions and ids, or reads what it
 * has just verified (a replica's own appends). */
int  arb_store_log_unchecked(arb_store_t *s, uint64_t from_pos,
                             uint64_t max, arb_store_log_cb cb, void *ud,
                             arb_buf_t *why);

/* Every match, sorted by match id (bytewise). */
int  arb_store_matches(arb_store_t *s, arb_store_match_cb cb, void *ud,
                       arb_buf_t *why);

/* The event a client id was recorded as: a retry gets the original seq
 * and hash (either out pointer may be NULL).  ARB_ENOTFOUND when absent. */
int  arb_store_idem(arb_store_t *s, const char *match_id,
                    const char *client_id, uint64_t *seq,
                    unsigned char hash[ARB_HASH_LEN], arb_buf_t *why);
/* The same, with the event's global position too (pos may be NULL). */
int  arb_store_idem_at(arb_store_t *s, const char *match_id,
                       const char *client_id, uint64_t *seq, uint64_t *pos,
                       unsigned char hash[ARB_HASH_LEN], arb_buf_t *why);

typedef struct arb_store_stats {
    uint64_t matches;       /* records in "matches" */
    uint64_t events;        /* records in "events" */
    uint64_t client_ids;    /* records in "idem" */
    uint64_t log_pos;       /* last global position; 0 when empty */
    uint64_t map_size;      /* current map, bytes */
    uint64_t map_max;       /* growth cap, bytes */
    uint64_t map_used;      /* bytes of the map holding pages */
    uint64_t grows;         /* map growths done through this handle */
    uint32_t page_size;
    uint32_t format;        /* ARB_STORE_FORMAT */
    unsigned readers_max;
    unsigned readers_used;  /* reader slots in use, all processes */
    int      stale_readers; /* dead reader slots cleared at open */
    int      read_only;
    int      failed;        /* a commit failed: appends are refused */
    /* the derived index (docs/STORE.md) */
    uint64_t indexed_pos;   /* the index holds the log up to here */
    uint64_t tail_events;   /* records past it, held in memory */
    uint64_t index_commits; /* index transactions by this handle */
    uint64_t idle_trims;    /* heap returned after 1 s without appends */
    uint64_t untrimmed;     /* records out of the tail since the last
                               trim (0 once a settled daemon trimmed) */
    uint64_t index_wakeups; /* index writer woken while gathering */
    uint64_t index_rebuilt; /* records indexed when the handle opened */
    uint64_t index_map_used;/* bytes of index.mdb holding pages */
    int      index_failed;  /* the index writer stopped (reads go on
                               from memory; rebuilt at the next open) */
    /* Where an append's time goes (this handle, monotonic wall ns summed
     * over every arb_store_append_batch that committed): the checks and
     * the hash chain, the MDB_APPEND puts, mdb_txn_commit (page writes
     * and LMDB's two flushes: data, then the meta page), and joining the
     * tail.  tests/bench/bench_load.c prints them per event. */
    uint64_t batches;       /* committed calls */
    uint64_t check_ns, put_ns, commit_ns, publish_ns;
    uint64_t syncs;         /* fdatasyncs of arb_store_sync (a commit
                               itself flushes once: its data pages) */
    uint64_t sync_ns;       /* their time */
    uint64_t synced_free;   /* syncs a later commit's flush made moot */
    /* The journal (docs/STORE.md): on for a writable handle on LP64 */
    int      journal;
    uint64_t checkpoints;   /* LMDB flushes recorded in the journal */
    uint64_t checkpoint_ns; /* their time */
    uint64_t journal_bytes; /* written to the journal by this handle */
    uint64_t journal_laps;  /* laps begun */
    uint64_t journal_replayed;  /* events re-applied when it opened */
} arb_store_stats_t;

int  arb_store_stats(arb_store_t *s, arb_store_stats_t *out, arb_buf_t *why);

/*
 * Recomputes the chain of one match from its stored bytes and checks the
 * stored hashes, the density of seqs and the summary record (head, count).
 * match_id NULL verifies every match, one read transaction per match.
 * ARB_ECORRUPT with a message naming the match and the first bad seq.
 */
/* The deal secret stored with a match's open, into out (NUL-terminated).
 * ARB_ENOTFOUND when the match has none. */
int  arb_store_secret(arb_store_t *s, const char *match_id, arb_buf_t *out,
                      arb_buf_t *why);

int  arb_store_verify(arb_store_t *s, const char *match_id, arb_buf_t *why);

/*
 * Hot backup (store_backup.c).  Copies every LMDB environment of the data
 * directory `dir` (the directory's own, each subdirectory holding a
 * data.mdb, each NAME.mdb file with its NAME.mdb-lock) to the same place
 * under `out`, which must exist: LMDB's consistent copy (mdb_env_copy2,
 * MDB_CP_COMPACT when compact) through a read-only handle of its own, safe
 * while the daemon appends; each copy is fsync'd, mode 0600.  The
 * directory's own environment is copied last.  cb (may be NULL) is told
 * each file before it is copied, as a path relative to out.  ARB_EPERM on
 * a directory this process has open with arb_store_open.
 * Other files (keys, tokens) are the caller's to copy.
 */
typedef void (*arb_store_backup_cb)(void *ud, const char *relpath);
int  arb_store_backup(const char *dir, const char *out, int compact,
                      arb_store_backup_cb cb, void *ud, arb_buf_t *why);
/* 1 when a file of that name (a path relative to a data directory) belongs
 * to an LMDB environment (data, lock), which only arb_store_backup may
 * copy, or is the store's journal (wal.0, wal.1), which a copy must never
 * take: it describes the source's data.mdb, not the copy's. */
int  arb_store_is_env_file(const char *relpath);

/*
 * Waits until the derived index holds every event this handle has
 * committed (reads never need this: they see an event as soon as its
 * append returned).  For tools and tests that look at index.mdb, and for
 * a read-only handle, which this brings up to date with the log.
 * ARB_ESTORE when the index writer has stopped (why says why).
 */
int  arb_store_index_wait(arb_store_t *s, arb_buf_t *why);

/* 1 when a background writer has stopped on an I/O error (why, may be
 * NULL, says which), else 0: the index writer (the log is unharmed; the
 * index is rebuilt from its mark at the next open) or the journal's
 * checkpoints (the handle refuses appends; the next open recovers from
 * the journal).  The daemon treats either as a failed write and stops
 * with its fail-stop status.  Never retried. */
int  arb_store_index_failed(arb_store_t *s, arb_buf_t *why);

/* The last checkpoint of a clean stop (docs/STORE.md, "The journal"):
 * the log's file flushed and recorded in the journal as closed cleanly,
 * so that the next open restores nothing.  arb_store_close does it too,
 * but cannot report a failure; a caller that must (the daemon) calls
 * this first.  Appends are refused afterwards.  ARB_EIO or ARB_ESTORE:
 * the flush failed, and the next open recovers from the journal. */
int  arb_store_finish(arb_store_t *s, arb_buf_t *why);

#endif
