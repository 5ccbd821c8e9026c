/*
 * fuzz_codec.c - drives frame reader + pre-scan + event decoder with
 * arbitrary bytes.
 *
 * Each input is used twice: as one message body (scan, decode) and as a
 * byte stream of frames cut into chunks of input-dependent sizes.  Every
 * event the decoder accepts must re-encode to exactly the bytes it came
 * from; a violation aborts, so for both drivers a crash is the failure.
 *
 * Corpus: tests/fuzz/corpus/codec (README.md, Testing: how to fuzz).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/event.h"
#include "core/codec.h"
#include "proto/frame.h"
#include "proto/limits.h"
#include "core/scan.h"
#include "tests/fuzz/fuzz.h"

/* Small enough that inputs from the corpus exercise the length check. */
#define FUZZ_FRAME_MAX  4096

static void
decode_one(const char *p, size_t n)
{
    arb_event_t ev;
    arb_buf_t   why = ARB_BUF_INIT, out = ARB_BUF_INIT;
    int         scan_rc;

    scan_rc = arb_msgpack_scan(p, n, ARB_DEPTH_MAX, ARB_ELEMS_MAX, &why);
    if (arb_event_decode(&ev, p, n, &why) == 0) {
        /* The decoder must never accept what the scan refuses, and what
         * it accepts is canonical by definition. */
        if (scan_rc != 0 || arb_event_encode(&out, &ev) != 0
            || out.len != n || memcmp(out.data, p, n) != 0)
            abort();
        arb_event_clear(&ev);
    } else if (ev.setup != NULL || ev.args != NULL) {
        abort();
    }
    arb_buf_free(&out);
    arb_buf_free(&why);
}

static void
stream(const char *p, size_t n)
{
    arb_frame_reader_t r;
    const char        *f;
    size_t             off = 0, chunk, len;
    unsigned           h = 2166136261u;
    int                rc = 0;

    if (arb_frame_reader_init(&r, FUZZ_FRAME_MAX) != 0)
        abort();
    while (off < n && rc >= 0) {
        h = (h ^ (unsigned char)p[off]) * 16777619u;
        chunk = 1 + h % 64;
        if (chunk > n - off)
            chunk = n - off;
        rc = arb_frame_reader_feed(&r, p + off, chunk);
        off += chunk;
        while (rc >= 0 && (rc = arb_frame_reader_next(&r, &f, &len)) == 1) {
            if (len == 0 || len > FUZZ_FRAME_MAX)
                abort();
            decode_one(f, len);
        }
    }
    if (r.body_cap > FUZZ_FRAME_MAX)
        abort();
    arb_frame_reader_free(&r);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    decode_one((const char *)data, size);
    stream((const char *)data, size);
    return 0;
}
