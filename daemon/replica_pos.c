/*
 * replica_pos.c - DATA/replica.pos (daemon/replica_pos.h).
 *
 * DESIGN: the file is written after the store commit it describes, so it
 * never says more than the store holds; a crash between the two leaves
 * an older position, which only means reading more again (the mirror
 * compares what it holds: seq and hash).  It is not written at every
 * commit of the replica (every 10 ms under load) but at most once a
 * second and at a clean stop.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "core/num.h"
#include "core/smallfile.h"
#include "daemon/replica_pos.h"

/* Four lines of at most 7 + 32 + 1 + 19 + 1, 5 + 20 + 1 + 19 + 1,
 * 5 + 20 + 1 and 6 + 20 + 1 bytes, then the marks' of 5 + 20 + 1 + 19
 * + 1. */
#define POS_FILE_MAX (256 + 46 * ARB_REPLICA_POS_MARKS)

/* The next line of [*p, end) without its newline, into [*a, *a + *n). */
static int
next_line(const char **p, const char *end, const char **a, size_t *n)
{
    const char *nl = memchr(*p, '\n', (size_t)(end - *p));

    if (nl == NULL)
        return -1;
    *a = *p;
    *n = (size_t)(nl - *p);
    *p = nl + 1;
    return 0;
}

/* "PREFIX N M\n" (two numbers, signed ones <= INT64_MAX) or, with m
 * NULL, "PREFIX N\n". */
static int
num_line(const char *l, size_t n, const char *prefix, uint64_t *a,
         uint64_t *b)
{
    size_t      k = strlen(prefix);
    const char *sp;

    if (n <= k || memcmp(l, prefix, k) != 0)
        return -1;
    l += k;
    n -= k;
    if (b == NULL)
        return arb_u64_parse(l, n, a);
    sp = memchr(l, ' ', n);
    if (sp == NULL || arb_u64_parse(l, (size_t)(sp - l), a) != 0
        || arb_u64_parse(sp + 1, n - (size_t)(sp - l) - 1, b) != 0
        || *b > INT64_MAX)
        return -1;
    return 0;
}

int
arb_replica_pos_parse(arb_replica_pos_t *p, const char *text, size_t len,
                      arb_buf_t *why)
{
    const char *at = text, *end = text + len, *l, *sp;
    size_t      n;
    uint64_t    v, w;

    memset(p, 0, sizeof(*p));
    if (next_line(&at, end, &l, &n) != 0) {
        arb_buf_puts(why, "line 1: no newline at its end");
        return ARB_ECORRUPT;
    }
    sp = n > 7 ? memchr(l + 7, ' ', n - 7) : NULL;
    if (sp != NULL && (size_t)(sp - l - 7) <= ARB_STREAM_NAME_MAX)
        memcpy(p->stream, l + 7, (size_t)(sp - l - 7));
    if (n <= 7 || memcmp(l, "stream ", 7) != 0 || sp == NULL
        || !arb_stream_name_ok(p->stream)
        || strlen(p->stream) != (size_t)(sp - l - 7)    /* a NUL */
        || arb_u64_parse(sp + 1, (size_t)(l + n - sp - 1), &v) != 0
        || v > INT64_MAX) {
        memset(p, 0, sizeof(*p));
        arb_buf_puts(why, "line 1: not \"stream NAME CREATED\"");
        return ARB_ECORRUPT;
    }
    p->created_ns = (int64_t)v;
    if (next_line(&at, end, &l, &n) != 0
        || num_line(l, n, "read ", &p->last, &w) != 0 || p->last == 0) {
        arb_buf_puts(why, "line 2: not \"read SEQUENCE TIME\"");
        return ARB_ECORRUPT;
    }
    p->last_ns = (int64_t)w;
    if (next_line(&at, end, &l, &n) != 0
        || num_line(l, n, "from ", &p->from, NULL) != 0 || p->from == 0
        || p->from > p->last + 1) {
        arb_buf_puts(why, "line 3: not \"from SEQUENCE\", at most one past "
                     "the sequence read");
        return ARB_ECORRUPT;
    }
    if (next_line(&at, end, &l, &n) != 0
        || num_line(l, n, "store ", &p->store_pos, NULL) != 0) {
        arb_buf_puts(why, "line 4: not \"store POSITION\"");
        return ARB_ECORRUPT;
    }
    while (at != end) {
        uint64_t prev = p->nmarks > 0 ? p->mark_seq[p->nmarks - 1] : 0;

        if (p->nmarks == ARB_REPLICA_POS_MARKS) {
            arb_buf_printf(why, "line %zu: more than %d marks",
                           5 + p->nmarks, ARB_REPLICA_POS_MARKS);
            return ARB_ECORRUPT;
        }
        if (next_line(&at, end, &l, &n) != 0
            || num_line(l, n, "mark ", &v, &w) != 0 || v <= prev
            || v > p->last) {
            arb_buf_printf(why, "line %zu: not \"mark SEQUENCE TIME\", "
                           "past the mark before and at most the sequence "
                           "read", 5 + p->nmarks);
            return ARB_ECORRUPT;
        }
        p->mark_seq[p->nmarks] = v;
        p->mark_ns[p->nmarks++] = (int64_t)w;
    }
    return 0;
}

int
arb_replica_pos_format(arb_buf_t *out, const arb_replica_pos_t *p)
{
    size_t i;

    out->len = 0;
    arb_buf_printf(out, "stream %s %" PRId64 "\nread %" PRIu64 " %" PRId64
                   "\nfrom %" PRIu64 "\nstore %" PRIu64 "\n", p->stream,
                   p->created_ns, p->last, p->last_ns, p->from,
                   p->store_pos);
    for (i = 0; i < p->nmarks && i < ARB_REPLICA_POS_MARKS; i++)
        arb_buf_printf(out, "mark %" PRIu64 " %" PRId64 "\n",
                       p->mark_seq[i], p->mark_ns[i]);
    return out->oom ? ARB_ENOMEM : 0;
}

int
arb_replica_pos_load(arb_replica_pos_t *p, const char *path, arb_buf_t *why)
{
    arb_buf_t text = ARB_BUF_INIT;
    int       rc;

    memset(p, 0, sizeof(*p));
    rc = arb_smallfile_read(path, POS_FILE_MAX, &text, why);
    if (rc == ARB_ETOOBIG) {
        why->len = 0;
        arb_buf_printf(why, "%s: not a replica position: larger than %d "
                       "bytes", path, POS_FILE_MAX);
        rc = ARB_ECORRUPT;
    } else if (rc == 0) {
        arb_buf_printf(why, "%s: not a replica position: ", path);
        rc = arb_replica_pos_parse(p, text.data, text.len, why);
        if (rc == 0)
            why->len = 0;
    }
    arb_buf_free(&text);
    return rc;
}

int
arb_replica_pos_save(const char *path, const arb_replica_pos_t *p)
{
    arb_buf_t b = ARB_BUF_INIT;
    int       rc = -1;

    if (arb_replica_pos_format(&b, p) == 0)
        rc = arb_smallfile_replace(path, b.data, b.len);
    arb_buf_free(&b);
    return rc;
}

int
arb_replica_pos_holds(const arb_replica_pos_t *saved, uint64_t store_pos,
                      const char *stream, int64_t created_ns,
                      int64_t last_ns, arb_buf_t *why)
{
    if (saved == NULL)
        return 0;
    if (store_pos < saved->store_pos) {
        arb_buf_printf(why, "the store holds less than when the position "
                       "was saved (log position %" PRIu64 ", then %" PRIu64
                       "): put back from a backup?", store_pos,
                       saved->store_pos);
        return 0;
    }
    if (strcmp(saved->stream, stream) != 0) {
        arb_buf_printf(why, "the position saved is of stream %s",
                       saved->stream);
        return 0;
    }
    if (saved->created_ns != created_ns) {
        arb_buf_printf(why, "stream %s was created again (at %" PRId64
                       " ns; the position saved is of the one created at %"
                       PRId64 ")", stream, created_ns, saved->created_ns);
        return 0;
    }
    /* The stream only appends: a message read here that is gone, or is
     * another one now, means it lost its tail (a purge, or a node that
     * came back without it), and what came in its place must be read. */
    if (last_ns != saved->last_ns) {
        arb_buf_printf(why, "stream %s no longer holds the message read "
                       "here at sequence %" PRIu64 "%s", stream, saved->last,
                       last_ns == 0 ? "" : " (another one is there)");
        return 2;
    }
    return 1;
}
