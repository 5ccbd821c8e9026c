/*
 * bundle_read.c - the bundle file reader, private to the verifier.
 *
 * DESIGN: the input is hostile.  The whole file is in memory, so every
 * length is compared with the bytes that are really left, and with its
 * record type's limit, before anything is copied or allocated: a 9-byte
 * file declaring a 4 GiB event costs nothing.  The reader only checks the
 * shape (docs/BUNDLE.md, "Grammar"); what the records say is judged by
 * arb_bundle_verify().  A cut file is reported with the byte it ends at
 * and the record it cuts, because that is what a person can act on.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/fnv.h"
#include "core/ledger/bundle_int.h"
#include "core/limits.h"
#include "core/mp.h"

typedef struct rd {
    const unsigned char *p;
    size_t               len;
    size_t               off;       /* start of the record being read */
    arb__bundle_file_t    *b;
    arb__bundle_section_t *cur;     /* the open section, or NULL */
    int                  last;      /* type of the last whole record */
    uint64_t             last_seq;  /* seq of the last event record */
    arb_buf_t           *why;
    /* The match ids read so far: open addressing over section index + 1
     * (0 empty), cap a power of two, at most half full. */
    size_t              *ids;
    size_t               idcap;
} rd_t;

static int
bad(rd_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
bad(rd_t *r, const char *fmt, ...)
{
    va_list ap;
    char    msg[512];

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    arb_buf_free(r->why);
    arb_buf_puts(r->why, msg);
    return ARB_ECRYPTO;
}

static const char *
cur_id(const rd_t *r)
{
    return r->cur != NULL ? r->cur->cp.match_id
           : r->b->nsections > 0 ? r->b->sections[r->b->nsections - 1]
                                   .cp.match_id : "?";
}

/* The file ends at r->len inside (or right before) a record of `type`
 * whose body starts at `body` with `avail` bytes present. */
static int
truncated(rd_t *r, int type, size_t body, size_t avail)
{
    char   where[160], id[ARB_STORE_ID_MAX + 1];
    size_t n;

    if (type < 0) {
        switch (r->last) {
        case ARB__REC_EVENT:
            snprintf(where, sizeof(where), "after seq %" PRIu64,
                     r->last_seq);
            break;
        case ARB__REC_MATCH:
            snprintf(where, sizeof(where), "after the header of match "
                     "'%s'", cur_id(r));
            break;
        case ARB__REC_CHECKPOINT:
            snprintf(where, sizeof(where), "after the checkpoint of match "
                     "'%s'", cur_id(r));
            break;
        default:
            snprintf(where, sizeof(where), "after the file header");
        }
    } else if (type == ARB__REC_EVENT) {
        snprintf(where, sizeof(where), "in seq %" PRIu64,
                 avail >= 8 ? arb_load_be(r->p + body, 8)
                 : r->last == ARB__REC_EVENT ? r->last_seq + 1 : 0);
    } else if (type == ARB__REC_MATCH) {
        n = avail >= 1 ? r->p[body] : 0;
        if (n >= 1 && n <= ARB_STORE_ID_MAX && avail >= 1 + n) {
            memcpy(id, r->p + body + 1, n);
            id[n] = '\0';
            snprintf(where, sizeof(where), "in the header of match '%s'",
                     id);
        } else {
            snprintf(where, sizeof(where), "in a match header");
        }
    } else if (type == ARB__REC_CHECKPOINT) {
        snprintf(where, sizeof(where), "in the checkpoint of match '%s'",
                 cur_id(r));
    } else if (type == ARB__REC_END) {
        snprintf(where, sizeof(where), "in the end record");
    } else {
        snprintf(where, sizeof(where), "in a record header");
    }
    return bad(r, "truncated at byte %zu (%s)", r->len, where);
}

/* ---- the match record ------------------------------------------------- */

/* A new empty section for match id (its length checked by the caller). */
static arb__bundle_section_t *
add_section(arb__bundle_file_t *b, const char *id)
{
    arb__bundle_section_t *nv, *m;

    if (b->nsections == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 4;
        nv = realloc(b->sections, cap * sizeof(*nv));
        if (nv == NULL)
            return NULL;
        b->sections = nv;
        b->cap = cap;
    }
    m = &b->sections[b->nsections++];
    memset(m, 0, sizeof(*m));
    snprintf(m->cp.match_id, sizeof(m->cp.match_id), "%s", id);
    return m;
}

/* The slot of id in r->ids: the one holding it, or the empty one where
 * it goes. */
static size_t *
id_slot(const rd_t *r, const char *id)
{
    size_t j = (size_t)arb_fnv1a(id, strlen(id), ARB_FNV_SEED);

    for (j &= r->idcap - 1; r->ids[j] != 0; j = (j + 1) & (r->idcap - 1))
        if (strcmp(r->b->sections[r->ids[j] - 1].cp.match_id, id) == 0)
            break;
    return &r->ids[j];
}

/* The index + 1 of the section named id, or 0 after making room for one
 * more.  A hash table, not a scan of the sections: that costs n²/2
 * comparisons for n matches, 5 * 10^9 for a bundle of 100,000, and a
 * hostile file chooses n. */
static int
id_find(rd_t *r, const char *id, size_t *found)
{
    size_t cap, i, *old = r->ids, oldcap = r->idcap;

    if (2 * (r->b->nsections + 1) > r->idcap) {
        cap = oldcap ? 2 * oldcap : 64;
        r->ids = calloc(cap, sizeof(*r->ids));
        if (r->ids == NULL) {
            r->ids = old;
            return ARB_ENOMEM;
        }
        r->idcap = cap;
        for (i = 0; i < oldcap; i++)
            if (old[i] != 0)
                *id_slot(r, r->b->sections[old[i] - 1].cp.match_id) = old[i];
        free(old);
    }
    *found = *id_slot(r, id);
    return 0;
}

typedef struct field_rd {
    const unsigned char *p;
    size_t               len, off;
} field_rd_t;

/* A string of a 1- or 2-byte length; NULL for length 0 when may_be_empty
 * (an absent edition or engine).  -1 when it runs past the record, -2 on
 * a NUL byte, -3 out of memory, -4 out of range, -5 not UTF-8. */
static int
get_str(field_rd_t *f, int lenbytes, size_t min, size_t max, char **out)
{
    size_t n;

    *out = NULL;
    if (f->len - f->off < (size_t)lenbytes)
        return -1;
    n = (size_t)arb_load_be(f->p + f->off, lenbytes);
    f->off += (size_t)lenbytes;
    if (n > f->len - f->off)
        return -1;
    if (n < min || n > max)
        return -4;
    if (memchr(f->p + f->off, 0, n) != NULL)
        return -2;
    if (!arb_mp_utf8_valid((const char *)f->p + f->off, n))
        return -5;
    if (n > 0) {
        *out = malloc(n + 1);
        if (*out == NULL)
            return -3;
        memcpy(*out, f->p + f->off, n);
        (*out)[n] = '\0';
    }
    f->off += n;
    return 0;
}

static int
field_fail(rd_t *r, int rc, const char *field)
{
    static const char *const what[] = {
        "", "runs past the end of the record", "holds a NUL byte",
        "out of memory", "has a length out of range", "is not UTF-8"
    };

    if (rc == -3)
        return ARB_ENOMEM;
    return bad(r, "match record at byte %zu: %s %s", r->off, field,
               what[-rc]);
}

static int
read_match(rd_t *r, const unsigned char *body, size_t len)
{
    field_rd_t             f = { body, len, 0 };
    arb__bundle_section_t *m;
    arb_setup_t           *s;
    char                  *id = NULL, *key = NULL, *val = NULL;
    size_t                 i, nopt;
    int                    rc;

    if (r->cur != NULL)
        return bad(r, "match '%s' has no checkpoint (a match record follows "
                   "at byte %zu)", r->cur->cp.match_id, r->off);
    rc = get_str(&f, 1, 1, ARB_STORE_ID_MAX, &id);
    if (rc != 0)
        return field_fail(r, rc, "the match id");
    if (id_find(r, id, &i) != 0) {
        free(id);
        return ARB_ENOMEM;
    }
    if (i != 0) {
        free(id);
        return bad(r, "match '%s' appears twice (again at byte %zu)",
                   r->b->sections[i - 1].cp.match_id, r->off);
    }
    m = add_section(r->b, id);
    if (m == NULL) {
        free(id);
        return ARB_ENOMEM;
    }
    *id_slot(r, id) = r->b->nsections;
    free(id);
    r->cur = m;
    s = &m->profile;
    if ((rc = get_str(&f, 1, 1, ARB_STORE_ID_MAX, &s->game)) != 0)
        return field_fail(r, rc, "the game");
    if ((rc = get_str(&f, 2, 0, ARB_STR_MAX, &s->edition)) != 0)
        return field_fail(r, rc, "the edition");
    if ((rc = get_str(&f, 2, 0, ARB_STR_MAX, &s->engine)) != 0)
        return field_fail(r, rc, "the engine");
    if ((rc = get_str(&f, 2, 1, ARB_STR_MAX, &m->exporter)) != 0)
        return field_fail(r, rc, "the exporter");
    if (f.len - f.off < 2)
        return field_fail(r, -1, "the option count");
    nopt = (size_t)arb_load_be(f.p + f.off, 2);
    f.off += 2;
    if (nopt > ARB_OPTIONS_MAX)
        return field_fail(r, -4, "the option count");
    for (i = 0; i < nopt; i++) {
        if ((rc = get_str(&f, 2, 1, ARB_STR_MAX, &key)) != 0
            || (rc = get_str(&f, 2, 0, ARB_STR_MAX, &val)) != 0) {
            free(key);
            return field_fail(r, rc, "an option");
        }
        /* Appended in file order, not sorted: the verifier compares the
         * list as written with the open event's. */
        rc = ARB_ENOMEM;
        if (s->noptions % 8 == 0) {
            arb_option_t *nv = realloc(s->options, (s->noptions + 8)
                                       * sizeof(*nv));
            if (nv == NULL)
                goto oom;
            s->options = nv;
        }
        if (val == NULL && (val = calloc(1, 1)) == NULL)
            goto oom;
        s->options[s->noptions].key = key;
        s->options[s->noptions].value = val;
        s->noptions++;
        key = val = NULL;
    }
    if (f.off != f.len)
        return bad(r, "match record at byte %zu: %zu byte%s left over",
                   r->off, f.len - f.off, f.len - f.off == 1 ? "" : "s");
    return 0;

oom:
    free(key);
    free(val);
    return ARB_ENOMEM;
}

/* ---- events, checkpoint, end ------------------------------------------ */

/* Only counted and located: a match's events follow its header with
 * nothing between them (any other record ends or refuses the match), so
 * the first one's place and the count find them all again, and each
 * verifying thread turns them into records in room it reuses
 * (arb__bundle_recs) instead of this one pass copying every event into
 * new memory before any thread can start. */
static int
read_event(rd_t *r, const unsigned char *body, size_t rlen)
{
    arb__bundle_section_t *m = r->cur;

    if (m == NULL)
        return bad(r, "event record at byte %zu outside a match", r->off);
    if (m->nrecs++ == 0)
        m->ev = body - ARB__REC_HDR;
    m->evlen = (size_t)(body + rlen - m->ev);
    r->last_seq = arb_load_be64(body);
    return 0;
}

static int
read_checkpoint(rd_t *r, const unsigned char *body)
{
    arb__bundle_section_t *m = r->cur;

    if (m == NULL)
        return bad(r, "checkpoint record at byte %zu outside a match",
                   r->off);
    m->cp.count = arb_load_be(body, 8);
    memcpy(m->cp.head, body + 8, ARB_HASH_LEN);
    memcpy(m->cp.pubkey, body + 40, ARB_PUBKEY_LEN);
    memcpy(m->cp.sig, body + 40 + ARB_PUBKEY_LEN, ARB_SIG_LEN);
    m->cp.is_signed = 1;
    r->cur = NULL;
    return 0;
}

/* The limit of each record type's body, checked before the body is
 * looked at.  0 when the length is acceptable. */
static int
check_len(rd_t *r, int type, size_t len)
{
    const char *name;
    size_t      lo, hi;

    switch (type) {
    case ARB__REC_MATCH:
        name = "match", lo = 1, hi = ARB__MATCH_MAX;
        break;
    case ARB__REC_EVENT:
        name = "event", lo = ARB__EVENT_FIXED + 1;
        hi = ARB__EVENT_FIXED + ARB_STORE_EVENT_MAX;
        break;
    case ARB__REC_CHECKPOINT:
        name = "checkpoint", lo = hi = ARB__CHECKPOINT_LEN;
        break;
    case ARB__REC_END:
        name = "end", lo = hi = ARB__END_LEN;
        break;
    default:
        return bad(r, "unknown record type 0x%02x at byte %zu", type,
                   r->off);
    }
    if (len < lo || len > hi)
        return bad(r, "%s record at byte %zu declares %zu bytes (%zu..%zu "
                   "allowed)", name, r->off, len, lo, hi);
    return 0;
}

/* The records after the file header check (arb__bundle_read). */
static int
read_records(rd_t *r)
{
    const unsigned char *data = r->p;
    size_t               len = r->len, rlen, body;
    arb__bundle_file_t  *b = r->b;
    uint64_t             v;
    int                  type, rc;

    if (len == 0)
        return bad(r, "empty file: not an arbiter bundle");
    if (memcmp(data, ARB_BUNDLE_MAGIC, len < ARB_BUNDLE_MAGIC_LEN ? len
               : ARB_BUNDLE_MAGIC_LEN) != 0)
        return bad(r, "not an arbiter bundle (the file does not start "
                   "with the bundle magic)");
    if (len < ARB_BUNDLE_HDR_LEN)
        return bad(r, "truncated at byte %zu (in the file header)", len);
    v = arb_load_be(data + ARB_BUNDLE_MAGIC_LEN, 4);
    if (v != ARB_BUNDLE_VERSION)
        return bad(r, "bundle format version %" PRIu64 " is not supported "
                   "(this arbiter reads version %d)", v, ARB_BUNDLE_VERSION);
    for (r->off = ARB_BUNDLE_HDR_LEN;; r->off = body + rlen) {
        if (r->off == len)
            return truncated(r, -1, 0, 0);
        type = data[r->off];
        if (len - r->off < ARB__REC_HDR)
            return truncated(r, type, len, 0);
        rlen = (size_t)arb_load_be(data + r->off + 1, 4);
        body = r->off + ARB__REC_HDR;
        rc = check_len(r, type, rlen);
        if (rc != 0)
            return rc;
        if (rlen > len - body)
            return truncated(r, type, body, len - body);
        switch (type) {
        case ARB__REC_MATCH:
            rc = read_match(r, data + body, rlen);
            break;
        case ARB__REC_EVENT:
            rc = read_event(r, data + body, rlen);
            break;
        case ARB__REC_CHECKPOINT:
            rc = read_checkpoint(r, data + body);
            break;
        default:
            if (r->cur != NULL)
                return bad(r, "match '%s' has no checkpoint (the end "
                           "record follows at byte %zu)",
                           r->cur->cp.match_id, r->off);
            v = arb_load_be(data + body, 4);
            if (v != b->nsections)
                return bad(r, "the end record counts %" PRIu64 " matches, "
                           "the bundle holds %zu", v, b->nsections);
            if (body + rlen != len)
                return bad(r, "%zu trailing byte%s after the end record "
                           "(from byte %zu)", len - body - rlen,
                           len - body - rlen == 1 ? "" : "s", body + rlen);
            if (b->nsections == 0)
                return bad(r, "the bundle holds no match");
            return 0;
        }
        if (rc != 0)
            return rc;
        r->last = type;
    }
}

int
arb__bundle_read(arb__bundle_file_t *b, const unsigned char *data,
                 size_t len, arb_buf_t *why)
{
    rd_t r;
    int  rc;

    memset(&r, 0, sizeof(r));
    r.p = data;
    r.len = len;
    r.b = b;
    r.why = why;
    r.last = -1;
    rc = read_records(&r);
    free(r.ids);
    return rc;
}
