/*
 * store_int.h - what the files of the store share (not a public API).
 *
 * The store is split by idea:
 *   store_env.c    messages, integers, keys, the two record formats, and
 *                  transactions with the map lock of each environment
 *   store.c        the two LMDB environments, opening, the format, appends
 *   store_tail.c   the in-memory tail: what the log holds past the index
 *   store_index.c  the derived index: its writer thread and its rebuild
 *   store_rebuild.c  the sorted bulk build of an empty index
 *   store_read.c   every read, verification and the statistics
 *   store_journal.c  recovery through the journal, checkpoints
 *   journal.c      the journal's files and blocks (journal.h)
 *   store_claim.c  one handle per store directory per process
 *   store_pages.c  the page walk of both files before a check
 *   lmdb_walk.c    that walk of one LMDB file, and its meta pages
 *                  (lmdb_layout.h: LMDB's on-disk format)
 * docs/STORE.md gives the layout of both environments byte by byte.
 */
#ifndef ARB_STORE_INT_H
#define ARB_STORE_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/stat.h>

#include <lmdb.h>

#include "core/buf.h"
#include "core/ledger/journal.h"
#include "core/ledger/store.h"

#define ARB__REPR_MAX   (4 * ARB_STORE_CLIENT_MAX + 8)
#define ARB__SEQKEY_MAX (ARB_STORE_ID_MAX + 1 + 8)
#define ARB__IDEMKEY_MAX (ARB_STORE_ID_MAX + 1 + ARB_STORE_CLIENT_MAX)

/* A log record: pos u64 -> the fields below, then id, client id, game
 * and the event bytes. */
#define LR_FLAGS   0            /* bit 0 closes, bit 1 after_close */
#define LR_IDLEN   1
#define LR_CIDLEN  2
#define LR_GLEN    3
#define LR_SEQ     4
#define LR_TIME    12
#define LR_HASH    20
#define LR_HDR     52
#define LR_CLOSES  0x01
#define LR_AFTER   0x02

/* The "matches" record of the index, unchanged from format 1. */
#define REC_VERSION 1
#define REC_LEN     132

/* One decoded log record: pointers into the map (or a caller's buffer). */
typedef struct arb__rec {
    uint64_t             pos;
    uint64_t             seq;
    int64_t              time_ms;
    unsigned             flags;
    const char          *id;        /* not NUL-terminated: idlen bytes */
    size_t               idlen;
    const char          *cid;       /* cidlen bytes, or cidlen 0 */
    size_t               cidlen;
    const char          *game;      /* glen bytes (seq 0 only) */
    size_t               glen;
    const unsigned char *hash;
    const unsigned char *bytes;
    size_t               len;
} arb__rec_t;

/* One LMDB environment with the lock that guards its remaps. */
typedef struct arb__env {
    MDB_env          *env;
    pthread_rwlock_t  maplock;      /* shared by txns, exclusive to remap */
    int               have_lock;
    size_t            map_max;
    uint64_t          grows;        /* written with maplock exclusive */
    atomic_int        dead;         /* a remap failed: no map any more */
    int               writemap;     /* MDB_WRITEMAP: file kept allocated */
} arb__env_t;

typedef struct arb__tmatch arb__tmatch_t;
typedef struct arb__tidem  arb__tidem_t;

/* The tail: every log record past the index mark, indexed in memory so
 * that reads see an acknowledged event at once.  All under tlock. */
typedef struct arb__tail {
    pthread_mutex_t   lock;
    int               have_lock;
    pthread_cond_t    cond;         /* tail grew, or the index caught up */
    int               have_cond;
    uint64_t          lo;           /* first position held (mark + 1) */
    uint64_t          hi;           /* last position held; lo - 1 if none */
    /* per record lo..hi, in order: what trimming must undo */
    arb__tmatch_t   **qm;
    arb__tidem_t    **qi;
    size_t            qhead, qlen, qcap;
    arb__tmatch_t   **mb;           /* match id -> summary and positions */
    size_t            nmb, nm;
    arb__tidem_t    **ib;           /* (match, client id) -> seq, pos */
    size_t            nib, ni;
    uint64_t          new_matches;  /* matches whose seq 0 is in the tail */
} arb__tail_t;

struct arb__tmatch {
    arb_match_info_t  info;         /* the summary including the tail */
    uint64_t          first;        /* first seq held in the tail */
    uint64_t         *pos;          /* positions of seqs first.. */
    size_t            off, npos, cap;
    arb__tmatch_t    *next;
};

struct arb__tidem {
    size_t            klen;
    uint64_t          seq, pos;
    arb__tidem_t     *next;
    char              key[];        /* klen bytes: allocated to fit */
};

struct arb_store {
    arb__env_t        log;          /* data.mdb: the durable log */
    MDB_dbi           dlog, dmeta;
    arb__env_t        ix;           /* index.mdb: derived, lazily synced */
    int               have_ix;      /* index env open (and its dbis) */
    MDB_dbi           dseq, didem, dmatches, dimeta;
    pthread_mutex_t   wlock;        /* one appender at a time */
    int               have_wlock;
    /* One flush of the log's file at a time (a checkpoint's, which runs
     * without wlock on the checkpoint thread, and the closing one), and
     * after a failed flush no other: a flush that failed is never tried
     * again, not even by a checkpoint that was already waiting for it. */
    pthread_mutex_t   lsync;
    int               have_lsync;
    int               lsync_failed; /* under lsync */
    arb__tail_t       tail;
    char             *dir;
    struct stat       dir_st;       /* the directory, while claimed */
    int               claimed;      /* arb__dir_claim succeeded */
    size_t            page;
    int               read_only;
    int               skip_index;   /* read-only, index.mdb damaged */
    int               stale;
    atomic_int        state;        /* ST_*: only ever moves forward */
    /* the index writer (read-write handles only) */
    size_t            map_size0;    /* initial map of a new index */
    pthread_t         ixthread;
    int               have_thread;
    int               stop;         /* under tail.lock */
    int               flush;        /* under tail.lock: index now */
    uint64_t          mark;         /* last position the index holds */
    atomic_int        ix_failed;    /* the index stopped: tail grows */
    uint64_t          ix_commits;   /* under tail.lock */
    uint64_t          untrimmed;    /* under tail.lock: records trimmed
                                       from the tail since malloc_trim */
    uint64_t          idle_trims;   /* under tail.lock: trims when idle */
    uint64_t          ix_wakeups;   /* under tail.lock: woken while
                                       gathering, before the deadline */
    uint64_t          ix_rebuilt;   /* records indexed at open */
    char              ix_why[256];  /* under tail.lock */
    /* arb_store_stats' timing of appends: written under wlock, read by
     * any thread */
    _Atomic uint64_t  t_batches, t_check, t_put, t_commit, t_publish;
    _Atomic uint64_t  t_syncs, t_sync, t_synced_free;
    /* Commits returned, and commits known on the disk (the same once
     * the journal's flush returned).  Written under wlock. */
    _Atomic uint64_t  ncommits, durable;
    /* The journal (store_journal.c; read-write handles):
     * with it the log commits without flushing and a batch is durable
     * once journalled. */
    arb_journal_t    *jr;
    arb_buf_t         jbuf;         /* under wlock: the batch's payload */
    int               jr_have;      /* the journal held a checkpoint */
    int               jr_made;      /* this open made wal.0 and wal.1 */
    arb_journal_ckpt_t jr_ck;       /* ... this one, at open */
    uint64_t          jr_replayed;  /* events re-applied at open */
    MDB_txn          *pin;          /* under wlock: the last checkpoint's
                                       snapshot, kept from reuse */
    pthread_t         ckthread;
    int               have_ckthread, have_ck_sync;
    pthread_mutex_t   ck_lock;
    pthread_cond_t    ck_cond;
    int               ck_stop;      /* under ck_lock */
    int               ck_closing;   /* under wlock: the closing one */
    _Atomic uint64_t  ck_upto;      /* ncommits the last checkpoint saw */
    _Atomic uint64_t  ck_count, ck_ns, j_bytes, j_laps;  /* for stats */
    char              ck_why[256];  /* why a checkpoint stopped the handle */
};

enum { ST_OK = 0, ST_NOWRITE };

/* store_env.c: helpers shared by the other files. */
void     arb__why(arb_buf_t *why, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
const char *arb__repr(char out[ARB__REPR_MAX], const void *p, size_t n);
int      arb__mdb_code(int rc);
/* Before a read-only open of dir: ARB_ENOTFOUND ("DIR: no store there")
 * without DIR/data.mdb, ARB_ECORRUPT when it is empty (LMDB's word for
 * that is "Bad file descriptor"), an errno's code when it cannot be
 * looked at; 0 when there is a store to open. */
int      arb__store_there(const char *dir, arb_buf_t *why);
/* store.c: before a read-only open of a store whose writer died, the
 * journal applied through a writable open; 0 when nothing was needed. */
int      arb__ro_recover(const char *dir, const arb_store_opts_t *o,
                         arb_buf_t *why);
int      arb__mdb_fail(arb_buf_t *why, int rc, const char *what);
static inline void arb__put64(unsigned char *p, uint64_t v)
{
    arb_store_be64(p, v);
}
static inline uint64_t arb__get64(const unsigned char *p)
{
    return arb_load_be64(p);
}
int64_t  arb__u2i(uint64_t u);
int      arb__str_ok(const char *s, size_t max, size_t *len);
int      arb__raw_id_ok(const void *p, size_t n, size_t max);
int      arb__has_nul(const void *p, size_t n);     /* 1: a NUL byte in p */
size_t   arb__seq_key(unsigned char *k, const char *id, size_t idlen,
                      uint64_t seq);
size_t   arb__idem_key(unsigned char *k, const char *id, size_t idlen,
                       const char *cid, size_t cidlen);
void     arb__rec_encode(unsigned char r[REC_LEN], const arb_match_info_t *m);
int      arb__rec_decode(arb_match_info_t *m, const MDB_val *d,
                         const char *id, size_t idlen, arb_buf_t *why);
/* Allocates the first size bytes of a MDB_WRITEMAP environment's file on
 * disk: a store through the map into a hole the disk cannot fill is a
 * SIGBUS, an ENOSPC here is ARB_EFULL. */
int      arb__env_reserve(arb__env_t *e, size_t size, arb_buf_t *why);
/* Takes the map's pages out of this process's resident set; they stay in
 * the page cache (dirty ones too) and come back on the next touch. */
void     arb__env_unmap_pages(arb__env_t *e);
int      arb__txn_begin(arb__env_t *e, unsigned flags, MDB_txn **txn,
                        arb_buf_t *why);
void     arb__txn_abort(arb__env_t *e, MDB_txn *txn);     /* NULL-safe */
int      arb__txn_commit(arb__env_t *e, MDB_txn *txn);
int      arb__env_grow(arb__env_t *e, arb_buf_t *why);
/* Decodes the log record at pos (key already matched) into r. */
int      arb__rec_parse(arb__rec_t *r, uint64_t pos, const MDB_val *d,
                        arb_buf_t *why);
/* The log from from_pos (0: the start), up to max records (0: all), in
 * one read transaction: cb gets each record parsed, its pointers into the
 * map.  Unless cb failed, fin (may be NULL) is then called before the
 * transaction ends, so that whatever cb kept of the records is still
 * valid in it, with rc the walk's result: 0 at the end of the log (or of
 * max), or the error of a record that could not be read (why words it);
 * fin returns the walk's result (rc, or an error of its own about an
 * earlier record).  cb's non-zero return, fin's, or rc.  arb_store_log
 * is this with the id ended and no fin. */
typedef int (*arb__log_rec_cb)(void *ud, const arb__rec_t *r);
int      arb__log_walk(arb_store_t *s, uint64_t from_pos, uint64_t max,
                       arb__log_rec_cb cb, int (*fin)(void *ud, int rc),
                       void *ud, arb_buf_t *why);
/* Whether r's stored hash is BLAKE2b(prev || its bytes), prev being its
 * match's previous stored hash (NULL for seq 0): the link a checked read
 * checks (store_read.c's one match, store_links.c's whole log).  When it
 * is not, why gets "seq N: " ARB__LINK_BROKEN, with `match "ID" ` before
 * it when name_match is set, and the result is ARB_ECORRUPT; else 0. */
#define ARB__LINK_BROKEN "stored hash does not match the chain (its " \
    "bytes or a hash changed on disk since it was recorded): run arbiter " \
    "check"
int      arb__link_check(const unsigned char *prev, const arb__rec_t *r,
                         int name_match, arb_buf_t *why);
/* The record at pos, read in txn of the log env.  ARB_ECORRUPT when
 * missing (positions are dense). */
int      arb__log_get(arb_store_t *s, MDB_txn *txn, uint64_t pos,
                      arb__rec_t *r, arb_buf_t *why);
int      arb__log_last(arb_store_t *s, MDB_txn *txn, uint64_t *pos,
                       arb_buf_t *why);
/* store_read.c, for store_verify.c.  The log positions of every event
 * of a match, in seq order, each given to pcb (its non-zero return stops
 * and is returned), as arb_store_events would read them (the index, then
 * the tail); *info receives the match's summary. */
typedef int (*arb__pos_cb)(void *ud, uint64_t seq, uint64_t pos);
int      arb__event_positions(arb_store_t *s, const char *id, size_t idlen,
                              arb__pos_cb pcb, void *ud,
                              arb_match_info_t *info, arb_buf_t *why);
/* ARB_ECORRUPT when the index holds an event of the match past last_seq
 * (invisible to readers). */
int      arb__ix_past_head(arb_store_t *s, const char *id, size_t idlen,
                           uint64_t last_seq, arb_buf_t *why);
/* store_verify.c: the log up to end (arb__verify_end, taken before the
 * matches ids[] were listed) verified in one pass, its stretches on one
 * thread per CPU, then each listed match's index entries and summary
 * against what the log holds.  0 when everything holds; anything else
 * means "not shown": verify match by match, which words the problem. */
int      arb__verify_end(arb_store_t *s, uint64_t *end);
int      arb__verify_by_position(arb_store_t *s,
                                 const char (*ids)[ARB_STORE_ID_MAX + 1],
                                 size_t n, uint64_t end);
/* For tests: the threads it uses (0, the default: one per CPU), and the
 * log length below which it uses one (8192). */
extern unsigned arb__verify_threads;
extern uint64_t arb__verify_one_thread;

/* store_tail.c: the refusal (ARB_ECORRUPT, why says where) of a log
 * record whose client id its match used before: the index writer's, the
 * bulk rebuild's and the read-only tail's, so that every open of one
 * store says the same. */
int      arb__cid_twice(const arb__rec_t *r, arb_buf_t *why);
/* The same for an open (seq 0) of a match the log opened before. */
int      arb__opened_twice(const arb__rec_t *r, arb_buf_t *why);

/* The summary of a match from the index (ARB_ENOTFOUND when absent). */
int      arb__ix_match(arb_store_t *s, MDB_txn *itxn, const char *id,
                       size_t idlen, arb_match_info_t *m, arb_buf_t *why);

/* store_journal.c */
extern unsigned arb__ckpt_ms;    /* between checkpoints (tests, benches) */
/* Before the log env opens (read-write): the journal, and the
 * checkpoint's meta page put back when the last writer died. */
int      arb__jr_open(arb_store_t *s, int exists, arb_buf_t *why);
/* After its databases are open: re-applies the journal, checkpoints,
 * starts the checkpoint thread. */
int      arb__jr_start(arb_store_t *s, arb_buf_t *why);
int      arb__jr_ckpt(arb_store_t *s, int new_lap, int locked,
                      arb_buf_t *why);
int      arb__jr_reserve(arb_store_t *s, size_t len, arb_buf_t *why);
void     arb__jr_close(arb_store_t *s);
/* 1 when the LMDB file at path is shorter than its newest meta page says
 * (LMDB maps it and would fault reading past its end: SIGBUS), with why;
 * 0 when it is not (or does not exist, or is no LMDB file: LMDB says
 * so); ARB_EIO when it cannot be read. */
int      arb__env_cut_short(const char *path, arb_buf_t *why);
/* An open that failed before arb__jr_start: closes the journal and, when
 * this open made its files (still empty), takes them back. */
void     arb__jr_unmake(arb_store_t *s);
void     arb__jr_stats_note(arb_store_t *s);
int      arb__jr_ro_dirty(const char *dir, int *dirty, arb_buf_t *why);

/* store_tail.c: every function expects tail.lock held unless noted. */
int      arb__tail_init(arb__tail_t *t);
void     arb__tail_free(arb__tail_t *t);    /* no lock; NULL-safe parts */
arb__tmatch_t *arb__tail_match(arb__tail_t *t, const char *id, size_t idlen);
arb__tidem_t  *arb__tail_idem(arb__tail_t *t, const char *id, size_t idlen,
                              const char *cid, size_t cidlen);
/* Adds the record at position t->hi + 1.  base is the summary before it
 * when the match is not in the tail (NULL: the record must be seq 0). */
int      arb__tail_add(arb__tail_t *t, const arb__rec_t *r,
                       const arb_match_info_t *base, arb_buf_t *why);
/* Forgets every record at or below pos (the index now holds them). */
void     arb__tail_trim(arb__tail_t *t, uint64_t pos);
/* The position of seq in a tail match (seq >= first). */
uint64_t arb__tail_pos(const arb__tmatch_t *m, uint64_t seq);

/* store_claim.c: a directory (by device and inode) open in this process.
 * Claim fails with ARB_EPERM, naming dir, when this process holds it. */
int      arb__dir_claim(const struct stat *st, const char *dir,
                        arb_buf_t *why);
int      arb__dir_claimed(const struct stat *st);
void     arb__dir_release(const struct stat *st);

/* store_index.c */
int      arb__ix_open(arb_store_t *s, arb_buf_t *why);
void     arb__ix_close(arb_store_t *s);
/* Under tail.lock, once a commit's records joined the tail (which held up
 * to hi_before): wakes the index writer if it waits for them. */
void     arb__ix_notify(arb_store_t *s, uint64_t hi_before);
/* store_rebuild.c: builds the empty index from log records 1..last in
 * key order, with the mark, in one transaction.  ARB_ETOOBIG (more than
 * ARB__BULK_MAX records) or ARB_EEXIST (the index is not empty): nothing
 * done, index the chunked way. */
#define ARB__BULK_MAX (1u << 24)
int      arb__ix_bulk(arb_store_t *s, uint64_t last, arb_buf_t *why);
/* Read-only handles: brings the tail up to date with the log and the
 * index mark (takes the locks itself). */
int      arb__ro_refresh(arb_store_t *s, arb_buf_t *why);

/* Test-only (store_backup.c): called with each environment's path once
 * the backup has it open, before its copy; NULL in the programs. */
extern void (*arb__backup_opened_hook)(const char *src);

#endif
