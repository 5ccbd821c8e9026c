#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "proto/frame.h"
#include "proto/limits.h"

/* The first buffer of a split frame; it doubles from there. */
#define FRAME_GROW_MIN 4096u

int
arb_frame_encode(arb_buf_t *out, const void *payload, size_t len)
{
    size_t start = out->len;

    if (len == 0 || payload == NULL)
        return ARB_EINVAL;
    if (len > ARB_FRAME_MAX_CEILING)
        return ARB_ETOOBIG;
    arb_buf_u32be(out, (uint32_t)len);
    arb_buf_add(out, payload, len);
    if (out->oom)
        goto fail;
    return 0;

fail:
    /* Leave no half frame behind: the caller may retry or keep sending. */
    if (out->len > start)
        out->len = start;
    return ARB_ENOMEM;
}

int
arb_frame_reader_init(arb_frame_reader_t *r, size_t max)
{
    memset(r, 0, sizeof(*r));
    if (max == 0 || max > ARB_FRAME_MAX_CEILING)
        return ARB_EINVAL;
    r->max = max;
    return 0;
}

void
arb_frame_reader_free(arb_frame_reader_t *r)
{
    if (r == NULL)
        return;
    free(r->body);
    memset(r, 0, sizeof(*r));
}

int
arb_frame_reader_feed(arb_frame_reader_t *r, const void *data, size_t len)
{
    if (r->err != 0)
        return r->err;
    if (r->in_off < r->in_len || (data == NULL && len > 0))
        return ARB_EINVAL;
    r->in = data;
    r->in_len = len;
    r->in_off = 0;
    return 0;
}

static int
reader_fail(arb_frame_reader_t *r, int rc)
{
    /* The stream position is lost after a bad header, so nothing that
     * follows can be trusted; drop what is buffered and stay failed. */
    r->err = rc;
    r->in = NULL;
    r->in_len = r->in_off = 0;
    free(r->body);
    r->body = NULL;
    r->body_cap = 0;
    return rc;
}

int
arb_frame_reader_next(arb_frame_reader_t *r, const char **frame,
                      size_t *len)
{
    size_t avail, n;
    char  *nb;

    if (r->err != 0)
        return r->err;
    avail = r->in_len - r->in_off;
    while (r->hdr_len < 4) {
        if (avail == 0)
            goto drained;
        r->hdr[r->hdr_len++] = (unsigned char)r->in[r->in_off++];
        avail--;
        if (r->hdr_len == 4) {
            r->want = (size_t)r->hdr[0] << 24 | (size_t)r->hdr[1] << 16
                      | (size_t)r->hdr[2] << 8 | (size_t)r->hdr[3];
            r->have = 0;
            if (r->want == 0)
                return reader_fail(r, ARB_EPROTO);
            if (r->want > r->max)
                return reader_fail(r, ARB_ETOOBIG);
        }
    }
    if (r->have == 0 && avail >= r->want) {
        /* Whole body in the chunk: hand it out in place. */
        *frame = r->in + r->in_off;
        *len = r->want;
        r->in_off += r->want;
        r->hdr_len = 0;
        return 1;
    }
    if (avail == 0)
        goto drained;
    n = r->want - r->have;
    if (n > avail)
        n = avail;
    if (r->body_cap < r->have + n) {
        /* Grow with the bytes that arrived, doubling, up to this frame's
         * length: a peer that declares a big frame and sends little of it
         * costs about what it sent, not the declared length (want <= max
         * was checked above, so cap never exceeds max). */
        size_t cap = r->body_cap > 0 ? r->body_cap : FRAME_GROW_MIN;
        while (cap < r->have + n)
            cap = cap > SIZE_MAX / 2 ? r->want : cap * 2;
        if (cap > r->want)
            cap = r->want;
        nb = realloc(r->body, cap);
        if (nb == NULL)
            return reader_fail(r, ARB_ENOMEM);
        r->body = nb;
        r->body_cap = cap;
    }
    memcpy(r->body + r->have, r->in + r->in_off, n);
    r->have += n;
    r->in_off += n;
    if (r->have < r->want)
        goto drained;
    *frame = r->body;
    *len = r->want;
    r->hdr_len = 0;
    r->have = 0;
    return 1;

drained:
    r->in = NULL;
    r->in_len = r->in_off = 0;
    return 0;
}

int
arb_frame_reader_partial(const arb_frame_reader_t *r)
{
    return r->err == 0 && r->hdr_len > 0;
}
