/*
 * lmdb_layout.h - LMDB 0.9's on-disk format, as offsets into its pages
 * (not a public API).
 *
 * LMDB keeps its structures private to mdb.c, and the store needs two
 * things of its file that LMDB does not offer: the meta page, which the
 * journal records and writes back (store_journal.c), and every page of
 * a snapshot read without the map, so that damage is named rather than
 * followed into a fault (lmdb_walk.c).  Both read the same layout, kept
 * here once.  The checkpoint compares it with what LMDB reports at every
 * checkpoint, so a layout this code does not know is refused, not
 * misread.
 *
 * A page: the header (pgno_t number, u16 pad, u16 flags, then u16
 * lower and u16 upper, or a u32 count of pages for an overflow page),
 * then the u16 offsets of its nodes.  A meta page's header is followed
 * by MDB_meta (u32 magic, u32 version, void *address, size_t mapsize,
 * two MDB_db, pgno_t last page, size_t txnid); an MDB_db is u32 pad (the
 * page size in the first), u16 flags, u16 depth and five size_t (branch,
 * leaf and overflow pages, entries, root).  pgno_t is a size_t.
 * A node: u16 lo, u16 hi (a leaf's data size, or with the flags word
 * above them a branch's child page), u16 flags, u16 key size, the key,
 * then a leaf's data (or, for F_BIGDATA, the pgno_t of its overflow).
 */
#ifndef ARB_LMDB_LAYOUT_H
#define ARB_LMDB_LAYOUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/buf.h"

#define LM_SZ          sizeof(size_t)
#define LM_MP_PGNO     0
#define LM_MP_FLAGS    (LM_SZ + 2)
#define LM_MP_LOWER    (LM_SZ + 4)
#define LM_MP_UPPER    (LM_SZ + 6)
#define LM_MP_PAGES    (LM_SZ + 4)      /* u32, overflow pages */
#define LM_PAGEHDR     (LM_SZ + 8)
#define LM_P_BRANCH    0x01
#define LM_P_LEAF      0x02
#define LM_P_OVERFLOW  0x04
#define LM_P_META      0x08
#define LM_P_LEAF2     0x20
#define LM_P_SUBP      0x40
#define LM_MM_MAGIC    LM_PAGEHDR
#define LM_MM_DBS      (LM_PAGEHDR + 8 + sizeof(void *) + LM_SZ)
#define LM_MM_PSIZE    LM_MM_DBS
#define LM_DB_LEN      (8 + 5 * LM_SZ)
#define LM_MM_LAST_PG  (LM_MM_DBS + 2 * LM_DB_LEN)
#define LM_MM_TXNID    (LM_MM_LAST_PG + LM_SZ)
#define LM_MAGIC       0xBEEFC0DEu
#define LM_DB_FLAGS    4                /* u16 md_flags in an MDB_db */
#define LM_DB_DEPTH    6                /* u16 md_depth */
#define LM_DB_BRANCH   8
#define LM_DB_LEAF     (8 + LM_SZ)
#define LM_DB_OVERFLOW (8 + 2 * LM_SZ)
#define LM_DB_ENTRIES  (8 + 3 * LM_SZ)
#define LM_DB_ROOT     (8 + 4 * LM_SZ)
#define LM_DEPTH_MAX   32               /* LMDB's cursor stack */
#define LM_NODESIZE    8
#define LM_F_BIGDATA   0x01
#define LM_F_SUBDATA   0x02
#define LM_F_DUPDATA   0x04
#define LM_MAIN_DBI    1                /* mm_dbs[0] is the free list */
#define LM_META_LEN    256              /* bytes read of a meta page */

static inline size_t
lm_size_at(const unsigned char *p, size_t off)
{
    size_t v;

    memcpy(&v, p + off, LM_SZ);
    return v;
}

static inline uint16_t
lm_u16_at(const unsigned char *p, size_t off)
{
    uint16_t v;

    memcpy(&v, p + off, 2);
    return v;
}

static inline uint32_t
lm_u32_at(const unsigned char *p, size_t off)
{
    uint32_t v;

    memcpy(&v, p + off, 4);
    return v;
}

/* A node's two low words in the order the host stores them. */
static inline uint32_t
lm_node_lohi(const unsigned char *n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return (uint32_t)lm_u16_at(n, 2) | (uint32_t)lm_u16_at(n, 0) << 16;
#else
    return (uint32_t)lm_u16_at(n, 0) | (uint32_t)lm_u16_at(n, 2) << 16;
#endif
}

/* The child page a branch node names. */
static inline uint64_t
lm_node_pgno(const unsigned char *n)
{
    uint64_t pg = lm_node_lohi(n);

    if (LM_SZ > 4)
        pg |= (uint64_t)lm_u16_at(n, 4) << 32;
    return pg;
}

static inline uint64_t
lm_meta_txnid(const unsigned char *m)
{
    return lm_size_at(m, LM_MM_TXNID);
}

static inline uint32_t
lm_meta_psize(const unsigned char *m)
{
    return lm_u32_at(m, LM_MM_PSIZE);
}

/* A page size LMDB writes: a power of two from 512 to 64 KiB. */
static inline int
lm_psize_ok(uint32_t ps)
{
    return ps >= 512 && ps <= 65536 && (ps & (ps - 1)) == 0;
}

/* A meta page of LMDB's (of transaction txnid when not 0). */
static inline int
lm_meta_ok(const unsigned char *m, uint64_t txnid)
{
    return (lm_u16_at(m, LM_MP_FLAGS) & LM_P_META) &&
           lm_u32_at(m, LM_MM_MAGIC) == LM_MAGIC &&
           (txnid == 0 || lm_meta_txnid(m) == txnid);
}

/* lmdb_walk.c */

/* The newest valid meta page of the file open at fd into m (the
 * transaction in *txnid): 1 found, 0 none (too short for a meta page,
 * not LMDB's: reads that fail count as none). */
int arb__lm_newest_meta(int fd, unsigned char m[LM_META_LEN],
                        uint64_t *txnid);

typedef struct arb__lm_walk {
    uint64_t txnid;     /* the snapshot walked */
    uint32_t psize;
    uint64_t pages;     /* pages of the snapshot: its last page + 1 */
    uint64_t used;      /* pages reached from a tree (meta pages too) */
    uint64_t free;      /* pages its free list holds */
    uint64_t problems;
} arb__lm_walk_t;

/* What the walk reports to: a problem (msg names the file and its page,
 * valid during the call) and, every few thousand pages, its progress
 * (pages read of the snapshot's). Either may be NULL. */
typedef struct arb__lm_report {
    void  (*problem)(void *ud, const char *msg);
    void  (*progress)(void *ud, uint64_t done, uint64_t total);
    void   *ud;
    unsigned max;       /* the walk stops after this many problems */
} arb__lm_report_t;

/*
 * Reads every page of the current snapshot of the LMDB file `file`
 * (environment `env`, nosubdir as it is opened) with pread, never
 * through the map, so that damage is reported instead of followed: both
 * meta pages, every tree (the free list, the main tree and each named
 * tree) from its root, each page's number, kind, bounds and node
 * offsets, the child pages of branches at the right depth, overflow
 * runs, each page reached once and never also listed free, and each
 * tree's page and entry counts against its record.  A read transaction
 * of its own pins the snapshot, so a writer running meanwhile changes
 * nothing walked.  Problems go to r, at most r->max (then the walk
 * stops).  Returns 0 when the walk ran (out->problems says how it
 * went), ARB_ENOTFOUND without the file, ARB_EIO when a read failed,
 * ARB_ENOMEM.
 */
int arb__lm_walk(const char *env, int nosubdir, const char *file,
                 const arb__lm_report_t *r, arb__lm_walk_t *out,
                 arb_buf_t *why);

#endif
