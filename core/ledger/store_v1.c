/*
 * store_v1.c - the format-1 reader behind `arbiter migrate`.  The layout
 * it reads is kept in docs/STORE.md ("Format 1").
 *
 * DESIGN: a migration reads the old store once, in commit order, so that
 * the new log gets the same positions.  Format 1 kept client ids only in
 * an index keyed by (match, client id); they are gathered first into a
 * sorted array keyed by (match, seq), so each event finds its own.
 */
#include <stdlib.h>
#include <string.h>

#include <lmdb.h>

#include "core/err.h"
#include "core/ledger/lmdb_layout.h"
#include "core/ledger/store_int.h"
#include "core/ledger/store_v1.h"

/* A format-1 event value: h(seq), u64 time, then the event bytes. */
#define V1_EVENT_HDR (ARB_HASH_LEN + 8)

typedef struct cid {
    char     match[ARB_STORE_ID_MAX + 1];
    uint64_t seq;
    char     cid[ARB_STORE_CLIENT_MAX + 1];
} cid_t;

typedef struct v1 {
    MDB_env  *env;
    MDB_txn  *txn;
    MDB_dbi   events, matches, log, idem, meta;
    cid_t    *cids;
    size_t    ncids, capcids;
} v1_t;

static void
v1_close(v1_t *v)
{
    if (v->txn != NULL)
        mdb_txn_abort(v->txn);
    if (v->env != NULL)
        mdb_env_close(v->env);
    free(v->cids);
    memset(v, 0, sizeof(*v));
}

/* The first page problem the walk names, into why. */
static void
walk_problem(void *ud, const char *msg)
{
    arb_buf_t *why = ud;

    if (why != NULL && why->len == 0)
        arb__why(why, "%s: the store is damaged, so its events were not "
                 "read", msg);
}

/*
 * Before LMDB maps dir/data.mdb, which it trusts: with walk, every page
 * is walked (lmdb_walk.c) and a damaged one named; without, the file
 * only must hold what its last transaction uses.  ARB_ECORRUPT naming
 * the damage (until 2026-12-07 a format-1 data.mdb cut short killed
 * `arbiter migrate` with SIGBUS, saying nothing).
 */
static int
v1_whole(const char *dir, int walk, arb_buf_t *why)
{
    arb__lm_report_t r;
    arb__lm_walk_t   lw;
    arb_buf_t        first = ARB_BUF_INIT;
    char            *path;
    int              rc;

    path = malloc(strlen(dir) + sizeof("/data.mdb"));
    if (path == NULL) {
        arb__why(why, "out of memory");
        return ARB_ENOMEM;
    }
    strcpy(path, dir);
    strcat(path, "/data.mdb");
    if (!walk) {
        rc = arb__env_cut_short(path, why);
        free(path);
        return rc == 1 ? ARB_ECORRUPT : rc;
    }
    memset(&r, 0, sizeof(r));
    r.problem = walk_problem;
    r.ud = &first;
    r.max = 1;
    rc = arb__lm_walk(dir, 0, path, &r, &lw, why);
    if (rc == 0 && lw.problems != 0) {
        arb__why(why, "%s", first.oom ? "out of memory"
                                      : arb_buf_cstr(&first));
        rc = first.oom ? ARB_ENOMEM : ARB_ECORRUPT;
    }
    arb_buf_free(&first);
    free(path);
    return rc;
}

static int
v1_open(v1_t *v, const char *dir, unsigned long *format, int walk,
        arb_buf_t *why)
{
    MDB_val        k, d;
    unsigned char  f[4];
    int            mrc;

    memset(v, 0, sizeof(*v));
    *format = 0;
    if ((mrc = arb__store_there(dir, why)) != 0)
        return mrc;
    if ((mrc = v1_whole(dir, walk, why)) != 0)
        return mrc;
    mrc = mdb_env_create(&v->env);
    if (mrc != 0) {
        v->env = NULL;
        return arb__mdb_fail(why, mrc, "create environment");
    }
    mrc = mdb_env_set_maxdbs(v->env, 8);
    if (mrc == 0)
        mrc = mdb_env_open(v->env, dir, MDB_RDONLY | MDB_NOTLS, 0600);
    if (mrc == 0)
        mrc = mdb_txn_begin(v->env, NULL, MDB_RDONLY, &v->txn);
    if (mrc != 0) {
        arb__why(why, "open %s: %s", dir, mdb_strerror(mrc));
        return arb__mdb_code(mrc);
    }
    mrc = mdb_dbi_open(v->txn, "meta", 0, &v->meta);
    if (mrc != 0)
        return 0;
    k.mv_data = "format";
    k.mv_size = 6;
    mrc = mdb_get(v->txn, v->meta, &k, &d);
    if (mrc != 0 || d.mv_size != 4)
        return 0;
    memcpy(f, d.mv_data, 4);
    *format = (unsigned long)f[0] << 24 | (unsigned long)f[1] << 16 |
              (unsigned long)f[2] << 8 | f[3];
    return 0;
}

int
arb_store_v1_format(const char *dir, unsigned long *format, arb_buf_t *why)
{
    v1_t v;
    int  rc = v1_open(&v, dir, format, 0, why);

    v1_close(&v);
    return rc;
}

static int
cid_cmp(const void *a, const void *b)
{
    const cid_t *x = a, *y = b;
    int          c = strcmp(x->match, y->match);

    if (c != 0)
        return c;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int
load_cids(v1_t *v, arb_buf_t *why)
{
    MDB_cursor          *c = NULL;
    MDB_val              k, d;
    const unsigned char *p, *z;
    size_t               idlen, cidlen;
    int                  rc = 0, mrc;

    mrc = mdb_cursor_open(v->txn, v->idem, &c);
    if (mrc != 0)
        return arb__mdb_fail(why, mrc, "open idem cursor");
    for (mrc = mdb_cursor_get(c, &k, &d, MDB_FIRST); mrc == 0;
         mrc = mdb_cursor_get(c, &k, &d, MDB_NEXT)) {
        p = k.mv_data;
        z = memchr(p, 0, k.mv_size);
        idlen = z != NULL ? (size_t)(z - p) : 0;
        cidlen = z != NULL ? k.mv_size - idlen - 1 : 0;
        if (z == NULL || !arb__raw_id_ok(p, idlen, ARB_STORE_ID_MAX) ||
            !arb__raw_id_ok(z + 1, cidlen, ARB_STORE_CLIENT_MAX) ||
            d.mv_size != 8) {
            arb__why(why, "idem: a record of %zu bytes is malformed",
                     k.mv_size);
            rc = ARB_ECORRUPT;
            break;
        }
        if (v->ncids == v->capcids) {
            size_t nc = v->capcids ? v->capcids * 2 : 256;
            cid_t *n = realloc(v->cids, nc * sizeof(*n));
            if (n == NULL) {
                arb__why(why, "out of memory");
                rc = ARB_ENOMEM;
                break;
            }
            v->cids = n;
            v->capcids = nc;
        }
        memset(&v->cids[v->ncids], 0, sizeof(v->cids[0]));
        memcpy(v->cids[v->ncids].match, p, idlen);
        memcpy(v->cids[v->ncids].cid, z + 1, cidlen);
        v->cids[v->ncids].seq = arb__get64(d.mv_data);
        v->ncids++;
    }
    if (rc == 0 && mrc != MDB_NOTFOUND)
        rc = arb__mdb_fail(why, mrc, "read idem");
    mdb_cursor_close(c);
    if (rc == 0 && v->ncids > 1)
        qsort(v->cids, v->ncids, sizeof(*v->cids), cid_cmp);
    return rc;
}

typedef struct evfn {
    arb_v1_event_cb  cb;
    void            *ud;
} evfn_t;

/* One log entry: its event value, its match's game, its client id and
 * (seq 0) the deal secret. */
static int
one_event(v1_t *v, uint64_t pos, const MDB_val *lv, evfn_t *fn,
          arb_buf_t *why)
{
    const unsigned char *p = lv->mv_data;
    arb_v1_event_t       e;
    arb_match_info_t     m;
    MDB_val              k, d;
    cid_t                want, *hit;
    unsigned char        key[ARB__SEQKEY_MAX];
    char                 id[ARB_STORE_ID_MAX + 1], sk[8 + ARB_STORE_ID_MAX];
    char                *secret = NULL;
    size_t               idlen;
    int                  rc, mrc;

    if (lv->mv_size < 17 || lv->mv_size > 16 + ARB_STORE_ID_MAX ||
        !arb__raw_id_ok(p + 16, lv->mv_size - 16, ARB_STORE_ID_MAX)) {
        arb__why(why, "log key %llu: bad value (%zu bytes)",
                 (unsigned long long)pos, lv->mv_size);
        return ARB_ECORRUPT;
    }
    idlen = lv->mv_size - 16;
    memcpy(id, p + 16, idlen);
    id[idlen] = '\0';
    memset(&e, 0, sizeof(e));
    e.pos = pos;
    e.match_id = id;
    e.seq = arb__get64(p);
    e.time_ms = arb__u2i(arb__get64(p + 8));
    k.mv_data = key;
    k.mv_size = arb__seq_key(key, id, idlen, e.seq);
    mrc = mdb_get(v->txn, v->events, &k, &d);
    if (mrc != 0 || d.mv_size <= V1_EVENT_HDR ||
        d.mv_size - V1_EVENT_HDR > ARB_STORE_EVENT_MAX) {
        arb__why(why, "log key %llu: events key \"%s\"/%llu missing or "
                 "malformed", (unsigned long long)pos, id,
                 (unsigned long long)e.seq);
        return ARB_ECORRUPT;
    }
    e.hash = d.mv_data;
    e.bytes = (const unsigned char *)d.mv_data + V1_EVENT_HDR;
    e.len = d.mv_size - V1_EVENT_HDR;
    if (arb__u2i(arb__get64((const unsigned char *)d.mv_data
                            + ARB_HASH_LEN)) !=
        e.time_ms) {
        arb__why(why, "log key %llu: time differs from events key "
                 "\"%s\"/%llu", (unsigned long long)pos, id,
                 (unsigned long long)e.seq);
        return ARB_ECORRUPT;
    }
    k.mv_data = id;
    k.mv_size = idlen;
    mrc = mdb_get(v->txn, v->matches, &k, &d);
    if (mrc != 0) {
        arb__why(why, "log key %llu: match \"%s\" has no record",
                 (unsigned long long)pos, id);
        return ARB_ECORRUPT;
    }
    rc = arb__rec_decode(&m, &d, id, idlen, why);
    if (rc != 0)
        return rc;
    e.game = m.game;
    memset(&want, 0, sizeof(want));
    memcpy(want.match, id, idlen + 1);
    want.seq = e.seq;
    hit = v->ncids ? bsearch(&want, v->cids, v->ncids, sizeof(*v->cids),
                             cid_cmp) : NULL;
    e.client_id = hit != NULL ? hit->cid : NULL;
    if (e.seq == 0) {
        memcpy(sk, "secret:", 7);
        memcpy(sk + 7, id, idlen);
        k.mv_data = sk;
        k.mv_size = 7 + idlen;
        if (mdb_get(v->txn, v->meta, &k, &d) == 0) {
            secret = malloc(d.mv_size + 1);
            if (secret == NULL) {
                arb__why(why, "out of memory");
                return ARB_ENOMEM;
            }
            memcpy(secret, d.mv_data, d.mv_size);
            secret[d.mv_size] = '\0';
            e.secret = secret;
        }
    }
    rc = fn->cb(fn->ud, &e);
    free(secret);
    return rc;
}

int
arb_store_v1_read(const char *dir, uint64_t *total, arb_v1_event_cb ev,
                  arb_v1_match_cb mcb, void *ud, arb_buf_t *why)
{
    static const char *const names[] = { "events", "matches", "log",
                                         "idem" };
    evfn_t fn = { ev, ud };
    arb_match_info_t  m;
    MDB_cursor       *c = NULL;
    MDB_val           k, d;
    MDB_stat          st;
    MDB_dbi          *dbis[4];
    unsigned long     format;
    uint64_t          pos;
    size_t            i;
    v1_t              v;
    int               rc, mrc;

    rc = v1_open(&v, dir, &format, 1, why);
    if (rc != 0)
        goto fail;
    if (format != 1) {
        arb__why(why, "%s: store format %lu, not 1", dir, format);
        rc = ARB_EUNSUPP;
        goto fail;
    }
    dbis[0] = &v.events;
    dbis[1] = &v.matches;
    dbis[2] = &v.log;
    dbis[3] = &v.idem;
    for (i = 0; i < 4; i++) {
        mrc = mdb_dbi_open(v.txn, names[i], 0, dbis[i]);
        if (mrc != 0) {
            arb__why(why, "format-1 database \"%s\": %s", names[i],
                     mdb_strerror(mrc));
            rc = ARB_ECORRUPT;
            goto fail;
        }
    }
    rc = load_cids(&v, why);
    if (rc != 0)
        goto fail;
    mrc = mdb_stat(v.txn, v.log, &st);
    if (mrc != 0) {
        rc = arb__mdb_fail(why, mrc, "stat");
        goto fail;
    }
    if (total != NULL)
        *total = st.ms_entries;
    mrc = mdb_cursor_open(v.txn, v.log, &c);
    if (mrc != 0) {
        rc = arb__mdb_fail(why, mrc, "open log cursor");
        goto fail;
    }
    for (pos = 1, mrc = mdb_cursor_get(c, &k, &d, MDB_FIRST); mrc == 0;
         pos++, mrc = mdb_cursor_get(c, &k, &d, MDB_NEXT)) {
        if (k.mv_size != 8 || arb__get64(k.mv_data) != pos) {
            arb__why(why, "log key %llu: missing", (unsigned long long)pos);
            rc = ARB_ECORRUPT;
            goto fail;
        }
        rc = one_event(&v, pos, &d, &fn, why);
        if (rc != 0)
            goto fail;
    }
    if (mrc != MDB_NOTFOUND) {
        rc = arb__mdb_fail(why, mrc, "read log");
        goto fail;
    }
    mdb_cursor_close(c);
    c = NULL;
    mrc = mdb_cursor_open(v.txn, v.matches, &c);
    if (mrc != 0) {
        rc = arb__mdb_fail(why, mrc, "open matches cursor");
        goto fail;
    }
    for (mrc = mdb_cursor_get(c, &k, &d, MDB_FIRST); mrc == 0;
         mrc = mdb_cursor_get(c, &k, &d, MDB_NEXT)) {
        if (!arb__raw_id_ok(k.mv_data, k.mv_size, ARB_STORE_ID_MAX)) {
            arb__why(why, "matches: a key is not a match id");
            rc = ARB_ECORRUPT;
            goto fail;
        }
        rc = arb__rec_decode(&m, &d, k.mv_data, k.mv_size, why);
        if (rc == 0 && mcb != NULL)
            rc = mcb(ud, &m);
        if (rc != 0)
            goto fail;
    }
    if (mrc != MDB_NOTFOUND)
        rc = arb__mdb_fail(why, mrc, "read matches");
fail:
    mdb_cursor_close(c);
    v1_close(&v);
    return rc;
}
