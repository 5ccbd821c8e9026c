/*
 * lmdb_walk.c - an LMDB 0.9 file's pages read and checked without the
 * map, before anything lets LMDB read them (lmdb_layout.h).
 *
 * DESIGN: LMDB follows the page numbers and offsets it finds in a page
 * without checking them against the file: one damaged page header in a
 * file of the right size makes a reader fault (SIGSEGV, SIGBUS) or read
 * another page as if it were the one named.  `arbiter check` exists for
 * exactly the stores where that happens, so it first reads every page
 * of the snapshot itself, with pread into a buffer, checks each number
 * before following it, and names the page where one is wrong; only a
 * file that passes is read through LMDB.  It is `mdb_stat`'s walk done
 * the way SQLite's integrity_check does it: nothing trusted, each page
 * reached once.  Recursion is bounded by the tree's recorded depth (at
 * most LMDB's 32), memory by one page per level and one bit per page.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lmdb.h>

#include "core/err.h"
#include "core/ledger/lmdb_layout.h"
#include "core/ledger/store_int.h"

#define PINNED_TRIES 20         /* to read the meta page a reader pins */
#define PROGRESS_EVERY 4096     /* pages between progress reports */
#define NAME_MAX_SHOWN 64       /* bytes of a tree's name in messages */

/* A tree to walk: its name and its record (an MDB_db). */
typedef struct tree {
    char          name[ARB__REPR_MAX + 16];
    unsigned char db[LM_DB_LEN];
} tree_t;

typedef struct walk {
    int                     fd;
    const char             *file;       /* for messages */
    uint32_t                ps;
    uint64_t                last;       /* last page of the snapshot */
    unsigned char          *seen;       /* a bit per page */
    unsigned char          *buf;        /* a page per level */
    const arb__lm_report_t *r;
    arb__lm_walk_t         *out;
    int                     stop;       /* too many problems, or EIO */
    int                     eio;
    uint64_t                reads;
    tree_t                 *more;       /* named trees found, to walk */
    size_t                  nmore, amore;
    /* the tree being walked */
    const char             *tree;
    int                     is_free;
    int                     dups;       /* entries are not one per node */
    uint64_t                nbranch, nleaf, novf, nentries, tproblems;
} walk_t;

static void problem(walk_t *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
problem(walk_t *w, const char *fmt, ...)
{
    char    msg[640];
    int     n;
    va_list ap;

    if (w->stop)
        return;
    n = snprintf(msg, sizeof(msg), "%s: ", w->file);
    va_start(ap, fmt);
    vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
    va_end(ap);
    w->out->problems++;
    w->tproblems++;
    if (w->r->problem != NULL)
        w->r->problem(w->r->ud, msg);
    if (w->out->problems >= w->r->max)
        w->stop = 1;
}

/* len bytes at byte off of the file; a short read is the disk failing
 * (the size was checked), and stops the walk. */
static int
read_bytes(walk_t *w, uint64_t off, unsigned char *dst, size_t len)
{
    size_t  got = 0;
    ssize_t n;

    while (got < len) {
        n = pread(w->fd, dst + got, len - got, (off_t)(off + got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            w->eio = n < 0 ? errno : EIO;
            w->stop = 1;
            return -1;
        }
        got += (size_t)n;
    }
    return 0;
}

static int
read_at(walk_t *w, uint64_t pg, unsigned char *dst, size_t len)
{
    if (++w->reads % PROGRESS_EVERY == 0 && w->r->progress != NULL)
        w->r->progress(w->r->ud, w->out->used + w->out->free,
                       w->out->pages);
    return read_bytes(w, pg * w->ps, dst, len);
}

/* 1 when pg was not reached before (and now is). */
static int
mark(walk_t *w, uint64_t pg)
{
    unsigned char bit = (unsigned char)(1u << (pg & 7));

    if (w->seen[pg >> 3] & bit)
        return 0;
    w->seen[pg >> 3] |= bit;
    return 1;
}

/* A page number the snapshot holds, not yet reached; else named. */
static int
reachable(walk_t *w, uint64_t pg, const char *what, uint64_t from)
{
    char at[48] = "its record";

    if (from != UINT64_MAX)
        snprintf(at, sizeof(at), "page %llu", (unsigned long long)from);
    if (pg < 2 || pg > w->last) {
        problem(w, "%s: %s names %s %llu, %s", w->tree, at, what,
                (unsigned long long)pg,
                pg < 2 ? "a meta page" : "past the snapshot's last page");
        return 0;
    }
    if (!mark(w, pg)) {
        problem(w, "%s: %s names %s %llu, which is reached twice",
                w->tree, at, what, (unsigned long long)pg);
        return 0;
    }
    return 1;
}

static const char *
kind(unsigned flags)
{
    switch (flags) {
    case LM_P_BRANCH:   return "a branch page";
    case LM_P_LEAF:     return "a leaf page";
    case LM_P_OVERFLOW: return "an overflow page";
    case LM_P_META:     return "a meta page";
    default:            return "no kind of page LMDB puts in a tree";
    }
}

/* The data of an F_BIGDATA node: dsize bytes from the page after the
 * header of page ov, over as many pages as LMDB allocates for it.
 * 1 when sound. */
static int
overflow(walk_t *w, uint64_t from, unsigned i, uint64_t ov, uint32_t dsize)
{
    unsigned char h[LM_PAGEHDR];
    uint64_t      want = ((uint64_t)LM_PAGEHDR - 1 + dsize) / w->ps + 1, k;
    uint32_t      have;

    if (!reachable(w, ov, "the overflow page", from))
        return 0;
    if (read_at(w, ov, h, sizeof(h)) != 0)
        return 0;
    have = lm_u32_at(h, LM_MP_PAGES);
    if (lm_size_at(h, LM_MP_PGNO) != ov
        || (lm_u16_at(h, LM_MP_FLAGS) & LM_P_OVERFLOW) == 0) {
        problem(w, "%s: page %llu (entry %u of page %llu) is not an "
                "overflow page", w->tree, (unsigned long long)ov, i,
                (unsigned long long)from);
        return 0;
    }
    if (have != want || want - 1 > w->last - ov) {
        problem(w, "%s: overflow page %llu: %u pages, where %llu bytes "
                "of data take %llu%s", w->tree, (unsigned long long)ov,
                have, (unsigned long long)dsize, (unsigned long long)want,
                want - 1 > w->last - ov ? ", past the snapshot's last page"
                                        : "");
        return 0;
    }
    for (k = 1; k < want; k++)
        if (!mark(w, ov + k)) {
            problem(w, "%s: overflow page %llu runs over page %llu, "
                    "which is reached twice", w->tree,
                    (unsigned long long)ov, (unsigned long long)(ov + k));
            return 0;
        }
    w->novf += want;
    w->out->used += want;
    return 1;
}

static void
remember_tree(walk_t *w, const unsigned char *key, unsigned ksize,
              const unsigned char *db)
{
    char     rp[ARB__REPR_MAX];
    tree_t  *t;

    if (w->nmore == w->amore) {
        size_t n = w->amore ? 2 * w->amore : 8;

        t = realloc(w->more, n * sizeof(*t));
        if (t == NULL) {
            w->eio = ENOMEM;
            w->stop = 1;
            return;
        }
        w->more = t;
        w->amore = n;
    }
    t = &w->more[w->nmore++];
    snprintf(t->name, sizeof(t->name), "tree \"%s\"",
             arb__repr(rp, key, ksize < NAME_MAX_SHOWN ? ksize
                                                        : NAME_MAX_SHOWN));
    memcpy(t->db, db, LM_DB_LEN);
}

/* The free list's record: a count, then that many page numbers. */
static void
free_pages(walk_t *w, uint64_t from, unsigned i, const unsigned char *d,
           uint32_t dsize)
{
    uint64_t n, k, pg;

    n = dsize >= LM_SZ ? lm_size_at(d, 0) : UINT64_MAX;
    if (n == UINT64_MAX || n > (dsize - LM_SZ) / LM_SZ) {
        problem(w, "%s: page %llu entry %u: a list of pages that does not "
                "fit its %u bytes", w->tree, (unsigned long long)from, i,
                dsize);
        return;
    }
    for (k = 0; k < n; k++) {
        pg = lm_size_at(d, LM_SZ * (size_t)(k + 1));
        if (pg < 2 || pg > w->last) {
            problem(w, "%s: page %llu entry %u lists page %llu, %s",
                    w->tree, (unsigned long long)from, i,
                    (unsigned long long)pg,
                    pg < 2 ? "a meta page" : "past the snapshot's last page");
            return;
        }
        if (!mark(w, pg)) {
            problem(w, "%s: page %llu entry %u lists page %llu as free, "
                    "which is in use (or listed twice)", w->tree,
                    (unsigned long long)from, i, (unsigned long long)pg);
            return;
        }
        w->out->free++;
    }
}

/* A free list record too long for its leaf, read from its overflow
 * pages (checked to lie inside the snapshot). */
static void
free_big(walk_t *w, uint64_t from, unsigned i, uint64_t ov, uint32_t dsize)
{
    unsigned char *d = malloc((size_t)dsize + LM_PAGEHDR);

    if (d == NULL) {
        w->eio = ENOMEM;
        w->stop = 1;
        return;
    }
    if (read_bytes(w, ov * w->ps, d, (size_t)dsize + LM_PAGEHDR) == 0)
        free_pages(w, from, i, d + LM_PAGEHDR, dsize);
    free(d);
}

static void
leaf_node(walk_t *w, uint64_t pg, unsigned i, const unsigned char *n,
          size_t room)
{
    unsigned             nf = lm_u16_at(n, 4), ksize = lm_u16_at(n, 6);
    uint32_t             dsize = lm_node_lohi(n);
    const unsigned char *data = n + LM_NODESIZE + ksize;

    w->nentries++;
    if (nf & LM_F_BIGDATA) {
        if (room < LM_SZ)
            problem(w, "%s: page %llu entry %u: its overflow page number "
                    "runs past the page", w->tree, (unsigned long long)pg,
                    i);
        else if (overflow(w, pg, i, lm_size_at(data, 0), dsize)
                 && w->is_free)
            free_big(w, pg, i, lm_size_at(data, 0), dsize);
        return;
    }
    if (dsize > room) {
        problem(w, "%s: page %llu entry %u: %u bytes of data run past the "
                "page", w->tree, (unsigned long long)pg, i, dsize);
        return;
    }
    if (nf & LM_F_SUBDATA) {
        if (dsize != LM_DB_LEN)
            problem(w, "%s: page %llu entry %u names a tree in %u bytes, "
                    "not %u", w->tree, (unsigned long long)pg, i, dsize,
                    (unsigned)LM_DB_LEN);
        else
            remember_tree(w, n + LM_NODESIZE, ksize, data);
        w->dups |= (nf & LM_F_DUPDATA) != 0;
        return;
    }
    if (nf & LM_F_DUPDATA) {
        /* Duplicates kept in a sub-page of the node: its bounds. */
        w->dups = 1;
        if (dsize < LM_PAGEHDR || lm_u16_at(data, LM_MP_LOWER) >
            lm_u16_at(data, LM_MP_UPPER) || lm_u16_at(data, LM_MP_UPPER)
            > dsize)
            problem(w, "%s: page %llu entry %u: a sub-page whose bounds "
                    "do not fit its %u bytes", w->tree,
                    (unsigned long long)pg, i, dsize);
        return;
    }
    if (w->is_free)
        free_pages(w, pg, i, data, dsize);
}

static void
walk_page(walk_t *w, uint64_t pg, uint64_t from, unsigned level,
          unsigned depth)
{
    unsigned char *p = w->buf + (size_t)level * w->ps;
    unsigned       flags, want, lower, upper, nkeys, i, off, ksize;

    if (w->stop || !reachable(w, pg, "page", from))
        return;
    w->out->used++;
    if (read_at(w, pg, p, w->ps) != 0)
        return;
    if (lm_size_at(p, LM_MP_PGNO) != pg) {
        problem(w, "%s: page %llu: its header says page %llu", w->tree,
                (unsigned long long)pg,
                (unsigned long long)lm_size_at(p, LM_MP_PGNO));
        return;
    }
    flags = lm_u16_at(p, LM_MP_FLAGS) & (LM_P_BRANCH | LM_P_LEAF |
            LM_P_OVERFLOW | LM_P_META | LM_P_LEAF2 | LM_P_SUBP);
    want = level < depth ? LM_P_BRANCH : LM_P_LEAF;
    if (flags != want) {
        problem(w, "%s: page %llu is %s (flags 0x%x), where the tree's "
                "depth wants %s", w->tree, (unsigned long long)pg,
                kind(flags), lm_u16_at(p, LM_MP_FLAGS), kind(want));
        return;
    }
    lower = lm_u16_at(p, LM_MP_LOWER);
    upper = lm_u16_at(p, LM_MP_UPPER);
    if (lower < LM_PAGEHDR || lower > upper || upper > w->ps
        || (lower - LM_PAGEHDR) % 2 != 0 || lower == LM_PAGEHDR) {
        problem(w, "%s: page %llu: bounds %u..%u do not fit a page of %u "
                "bytes with at least one entry", w->tree,
                (unsigned long long)pg, lower, upper, w->ps);
        return;
    }
    if (want == LM_P_BRANCH)
        w->nbranch++;
    else
        w->nleaf++;
    nkeys = (lower - (unsigned)LM_PAGEHDR) / 2;
    for (i = 0; i < nkeys && !w->stop; i++) {
        off = lm_u16_at(p, LM_PAGEHDR + 2 * (size_t)i);
        if (off < upper || off > w->ps - LM_NODESIZE || off % 2 != 0) {
            problem(w, "%s: page %llu entry %u: at offset %u, outside the "
                    "page's entries (%u..%u)", w->tree,
                    (unsigned long long)pg, i, off, upper, w->ps);
            return;
        }
        ksize = lm_u16_at(p + off, 6);
        if (ksize > w->ps - off - LM_NODESIZE) {
            problem(w, "%s: page %llu entry %u: a key of %u bytes runs past "
                    "the page", w->tree, (unsigned long long)pg, i, ksize);
            return;
        }
        if (want == LM_P_BRANCH)
            walk_page(w, lm_node_pgno(p + off), pg, level + 1, depth);
        else
            leaf_node(w, pg, i, p + off,
                      w->ps - off - LM_NODESIZE - ksize);
    }
}

static void
walk_tree(walk_t *w, const char *name, const unsigned char *db,
          int is_free)
{
    uint64_t root = lm_size_at(db, LM_DB_ROOT);
    uint64_t entries = lm_size_at(db, LM_DB_ENTRIES);
    unsigned depth = lm_u16_at(db, LM_DB_DEPTH);
    uint64_t rec[3];

    w->tree = name;
    w->is_free = is_free;
    w->dups = 0;
    w->nbranch = w->nleaf = w->novf = w->nentries = w->tproblems = 0;
    rec[0] = lm_size_at(db, LM_DB_BRANCH);
    rec[1] = lm_size_at(db, LM_DB_LEAF);
    rec[2] = lm_size_at(db, LM_DB_OVERFLOW);
    if (root == (uint64_t)(size_t)-1) {     /* P_INVALID: empty */
        if (depth != 0 || entries != 0 || rec[0] || rec[1] || rec[2])
            problem(w, "%s: empty, but its record says depth %u and %llu "
                    "entries", name, depth, (unsigned long long)entries);
        return;
    }
    if (depth < 1 || depth > LM_DEPTH_MAX) {
        problem(w, "%s: its record says depth %u (LMDB walks 1 to %d)",
                name, depth, LM_DEPTH_MAX);
        return;
    }
    walk_page(w, root, UINT64_MAX, 1, depth);
    if (w->stop || w->tproblems != 0)
        return;
    if (w->nbranch != rec[0] || w->nleaf != rec[1] || w->novf != rec[2])
        problem(w, "%s: %llu branch, %llu leaf and %llu overflow pages, "
                "where its record says %llu, %llu and %llu", name,
                (unsigned long long)w->nbranch,
                (unsigned long long)w->nleaf, (unsigned long long)w->novf,
                (unsigned long long)rec[0], (unsigned long long)rec[1],
                (unsigned long long)rec[2]);
    else if (!w->dups && w->nentries != entries)
        problem(w, "%s: %llu entries, where its record says %llu", name,
                (unsigned long long)w->nentries,
                (unsigned long long)entries);
}

int
arb__lm_newest_meta(int fd, unsigned char m[LM_META_LEN], uint64_t *txnid)
{
    unsigned char cur[2][LM_META_LEN];
    uint32_t      ps;
    int           i, found = 0;

    if (pread(fd, cur[0], LM_META_LEN, 0) != LM_META_LEN
        || !lm_meta_ok(cur[0], 0))
        return 0;
    ps = lm_meta_psize(cur[0]);
    if (!lm_psize_ok(ps)
        || pread(fd, cur[1], LM_META_LEN, ps) != LM_META_LEN)
        memset(cur[1], 0, LM_META_LEN);
    for (i = 0; i < 2; i++)
        if (lm_meta_ok(cur[i], 0)
            && (!found || lm_meta_txnid(cur[i]) > *txnid)) {
            memcpy(m, cur[i], LM_META_LEN);
            *txnid = lm_meta_txnid(cur[i]);
            found = 1;
        }
    return found;
}

/* Both meta pages as LMDB reads them at open: each must be LMDB's, or it
 * refuses the file (a clean error, not a fault: named here too). */
static int
metas(walk_t *w, unsigned char m[2][LM_META_LEN])
{
    uint32_t ps;
    int      i;

    if (pread(w->fd, m[0], LM_META_LEN, 0) != LM_META_LEN)
        memset(m[0], 0, LM_META_LEN);
    ps = lm_meta_psize(m[0]);
    if (!lm_meta_ok(m[0], 0) || !lm_psize_ok(ps)) {
        problem(w, "meta page 0 is not LMDB's (or names no page size)");
        return -1;
    }
    w->ps = ps;
    if (pread(w->fd, m[1], LM_META_LEN, ps) != LM_META_LEN)
        memset(m[1], 0, LM_META_LEN);
    if (!lm_meta_ok(m[1], 0) || lm_meta_psize(m[1]) != ps) {
        problem(w, "meta page 1 is not LMDB's");
        return -1;
    }
    for (i = 0; i < 2; i++)
        if (lm_u32_at(m[i], LM_MM_MAGIC + 4) != 1) {
            problem(w, "meta page %d: data version %u, LMDB 0.9 writes 1",
                    i, lm_u32_at(m[i], LM_MM_MAGIC + 4));
            return -1;
        }
    return 0;
}

/* Opens the environment read-only and begins a read transaction, which
 * pins its snapshot, then finds that snapshot's meta page: a writer may
 * have moved on (and overwritten the slot) between the two, so it is
 * read until it names the pinned transaction. */
static int
pin(walk_t *w, const char *env, int nosubdir, MDB_env **e, MDB_txn **t,
    unsigned char meta[LM_META_LEN], arb_buf_t *why)
{
    unsigned char m[2][LM_META_LEN], again[2][LM_META_LEN];
    int           mrc, tries, i;

    mrc = mdb_env_create(e);
    if (mrc == 0)
        mrc = mdb_env_open(*e, env, MDB_RDONLY | MDB_NOTLS |
                           (nosubdir ? MDB_NOSUBDIR : 0), 0600);
    if (mrc != 0)
        return arb__mdb_fail(why, mrc, w->file);
    for (tries = 0; tries < PINNED_TRIES; tries++) {
        mrc = mdb_txn_begin(*e, NULL, MDB_RDONLY, t);
        if (mrc != 0)
            return arb__mdb_fail(why, mrc, w->file);
        if (metas(w, m) != 0 || metas(w, again) != 0)
            return 1;
        for (i = 0; i < 2; i++)
            if (lm_meta_txnid(m[i]) == (uint64_t)mdb_txn_id(*t)
                && memcmp(m[i], again[i], LM_META_LEN) == 0) {
                memcpy(meta, m[i], LM_META_LEN);
                return 0;
            }
        mdb_txn_abort(*t);
        *t = NULL;
    }
    arb__why(why, "%s: written too fast to pin a snapshot to walk",
             w->file);
    return ARB_EAGAIN;
}

int
arb__lm_walk(const char *env, int nosubdir, const char *file,
             const arb__lm_report_t *r, arb__lm_walk_t *out, arb_buf_t *why)
{
    unsigned char  meta[LM_META_LEN], m[2][LM_META_LEN];
    MDB_env       *e = NULL;
    MDB_txn       *t = NULL;
    struct stat    st;
    walk_t         w;
    size_t         i;
    int            rc = 0;

    memset(out, 0, sizeof(*out));
    memset(&w, 0, sizeof(w));
    w.file = file;
    w.r = r;
    w.out = out;
    w.fd = open(file, O_RDONLY | O_CLOEXEC);
    if (w.fd < 0) {
        arb__why(why, "%s: %s", file, strerror(errno));
        return errno == ENOENT ? ARB_ENOTFOUND : ARB_EIO;
    }
    if (fstat(w.fd, &st) != 0) {
        arb__why(why, "%s: %s", file, strerror(errno));
        rc = ARB_EIO;
        goto done;
    }
    /* Before LMDB maps it: the meta pages and the size they need. */
    if (metas(&w, m) != 0)
        goto done;
    memcpy(meta, lm_meta_txnid(m[1]) > lm_meta_txnid(m[0]) ? m[1] : m[0],
           LM_META_LEN);
    w.last = lm_size_at(meta, LM_MM_LAST_PG);
    if (w.last < 1 || w.last >= (uint64_t)st.st_size / w.ps) {
        problem(&w, "its last transaction (%llu) uses %llu pages of %u "
                "bytes; the file holds %llu bytes",
                (unsigned long long)lm_meta_txnid(meta),
                (unsigned long long)w.last + 1, w.ps,
                (unsigned long long)st.st_size);
        goto done;
    }
    rc = pin(&w, env, nosubdir, &e, &t, meta, why);
    if (rc != 0) {
        rc = rc == 1 ? 0 : rc;
        goto done;
    }
    w.last = lm_size_at(meta, LM_MM_LAST_PG);
    if (w.last < 1 || w.last >= (uint64_t)st.st_size / w.ps) {
        /* grown since: the walk reads the size it has now */
        if (fstat(w.fd, &st) != 0 || w.last < 1
            || w.last >= (uint64_t)st.st_size / w.ps) {
            problem(&w, "its transaction %llu uses %llu pages, past the "
                    "file's end", (unsigned long long)lm_meta_txnid(meta),
                    (unsigned long long)w.last + 1);
            goto done;
        }
    }
    out->txnid = lm_meta_txnid(meta);
    out->psize = w.ps;
    out->pages = w.last + 1;
    out->used = 2;
    w.seen = calloc((size_t)(w.last / 8 + 1), 1);
    w.buf = malloc((size_t)(LM_DEPTH_MAX + 1) * w.ps);
    if (w.seen == NULL || w.buf == NULL) {
        rc = ARB_ENOMEM;
        arb__why(why, "%s: out of memory for a walk of %llu pages", file,
                 (unsigned long long)out->pages);
        goto done;
    }
    w.seen[0] = 3;                          /* the meta pages */
    /* The free list last: a page it lists that a tree uses is named. */
    walk_tree(&w, "main tree", meta + LM_MM_DBS + LM_MAIN_DBI * LM_DB_LEN,
              0);
    for (i = 0; i < w.nmore && !w.stop; i++) {
        tree_t t1 = w.more[i];              /* more may move */

        walk_tree(&w, t1.name, t1.db, 0);
    }
    walk_tree(&w, "free list", meta + LM_MM_DBS, 1);
    if (w.eio == ENOMEM) {
        rc = ARB_ENOMEM;
        arb__why(why, "%s: out of memory", file);
    } else if (w.eio != 0) {
        rc = ARB_EIO;
        arb__why(why, "%s: read: %s", file, strerror(w.eio));
    }
done:
    if (t != NULL)
        mdb_txn_abort(t);
    if (e != NULL)
        mdb_env_close(e);
    close(w.fd);
    free(w.seen);
    free(w.buf);
    free(w.more);
    return rc;
}
