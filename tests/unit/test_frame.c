/*
 * test_frame.c - the length-prefixed framing and the streaming reader.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/err.h"
#include "proto/frame.h"
#include "proto/limits.h"
#include "tests/test.h"

static void
test_encode(void)
{
    arb_buf_t b = ARB_BUF_INIT;

    CHECK_INT(arb_frame_encode(&b, "abc", 3), 0);
    CHECK_INT(b.len, 7);
    CHECK(memcmp(b.data, "\x00\x00\x00\x03" "abc", 7) == 0);
    /* Appends after what is there. */
    CHECK_INT(arb_frame_encode(&b, "\x80", 1), 0);
    CHECK_INT(b.len, 12);
    CHECK(memcmp(b.data + 7, "\x00\x00\x00\x01\x80", 5) == 0);
    /* An empty frame is a protocol error, so it is never produced. */
    CHECK_INT(arb_frame_encode(&b, "", 0), ARB_EINVAL);
    CHECK_INT(b.len, 12);
#if SIZE_MAX > 0xffffffffu
    /* A payload of 4 GiB, whose length would wrap to 0 in the 32-bit
     * header, is refused before a byte of it is read (a mutation that let
     * it through went unnoticed until 2026-12-06). */
    CHECK_INT(arb_frame_encode(&b, "abc", (size_t)1 << 32), ARB_ETOOBIG);
    CHECK_INT(b.len, 12);
#endif
    arb_buf_free(&b);
}

static void
test_init(void)
{
    arb_frame_reader_t r;

    CHECK_INT(arb_frame_reader_init(&r, 0), ARB_EINVAL);
#if SIZE_MAX > 0xffffffffu
    CHECK_INT(arb_frame_reader_init(&r, (size_t)0x100000000ull), ARB_EINVAL);
#endif
    CHECK_INT(arb_frame_reader_init(&r, ARB_FRAME_MAX_DEFAULT), 0);
    CHECK(r.body == NULL);
    CHECK_INT(arb_frame_reader_partial(&r), 0);
    arb_frame_reader_free(&r);
    arb_frame_reader_free(NULL);
}

/* A whole frame inside one chunk is handed out in place, not copied. */
static void
test_in_place(void)
{
    arb_frame_reader_t r;
    const char         chunk[] = "\x00\x00\x00\x02hi\x00\x00\x00\x01!";
    const char        *f;
    size_t             n;

    arb_frame_reader_init(&r, 16);
    CHECK_INT(arb_frame_reader_feed(&r, chunk, sizeof(chunk) - 1), 0);
    CHECK_INT(arb_frame_reader_next(&r, &f, &n), 1);
    CHECK(f == chunk + 4);
    CHECK_INT(n, 2);
    CHECK(memcmp(f, "hi", 2) == 0);
    CHECK_INT(arb_frame_reader_next(&r, &f, &n), 1);
    CHECK(f == chunk + 10);
    CHECK_INT(n, 1);
    CHECK_INT(arb_frame_reader_next(&r, &f, &n), 0);
    CHECK_INT(arb_frame_reader_partial(&r), 0);
    CHECK(r.body == NULL);
    arb_frame_reader_free(&r);
}

/* Header and body split at every possible point. */
static void
test_split_everywhere(void)
{
    const char  wire[] = "\x00\x00\x00\x05hello";
    size_t      cut, n;
    const char *f;
    int         ok = 0;

    for (cut = 1; cut < 9; cut++) {
        arb_frame_reader_t r;

        arb_frame_reader_init(&r, 16);
        arb_frame_reader_feed(&r, wire, cut);
        if (arb_frame_reader_next(&r, &f, &n) != 0
            || !arb_frame_reader_partial(&r)) {
            arb_frame_reader_free(&r);
            continue;
        }
        arb_frame_reader_feed(&r, wire + cut, 9 - cut);
        if (arb_frame_reader_next(&r, &f, &n) == 1 && n == 5
            && memcmp(f, "hello", 5) == 0
            && arb_frame_reader_next(&r, &f, &n) == 0
            && !arb_frame_reader_partial(&r))
            ok++;
        arb_frame_reader_free(&r);
    }
    CHECK_INT(ok, 8);
}

/* Feeding again before the previous chunk is drained is a caller bug. */
static void
test_feed_undrained(void)
{
    arb_frame_reader_t r;
    const char        *f;
    size_t             n;

    arb_frame_reader_init(&r, 16);
    arb_frame_reader_feed(&r, "\x00\x00\x00\x01" "a" "\x00\x00\x00\x01" "b",
                          10);
    CHECK_INT(arb_frame_reader_next(&r, &f, &n), 1);
    CHECK_INT(arb_frame_reader_feed(&r, "x", 1), ARB_EINVAL);
    CHECK_INT(arb_frame_reader_next(&r, &f, &n), 1);
    CHECK(n == 1 && f[0] == 'b');
    CHECK_INT(arb_frame_reader_next(&r, &f, &n), 0);
    CHECK_INT(arb_frame_reader_feed(&r, "x", 1), 0);
    arb_frame_reader_free(&r);
    /* Bytes without a buffer are a caller bug too; no bytes need none. */
    arb_frame_reader_init(&r, 16);
    CHECK_INT(arb_frame_reader_feed(&r, NULL, 5), ARB_EINVAL);
    CHECK_INT(arb_frame_reader_next(&r, &f, &n), 0);
    CHECK_INT(arb_frame_reader_feed(&r, NULL, 0), 0);
    CHECK_INT(arb_frame_reader_next(&r, &f, &n), 0);
    arb_frame_reader_free(&r);
}

/* Hostile: a zero-length frame fails and the reader stays failed. */
static void
test_zero_length(void)
{
    arb_frame_reader_t r;
    const char        *f;
    size_t             n;

    arb_frame_reader_init(&r, 16);
    arb_frame_reader_feed(&r, "\x00\x00\x00\x00\x00\x00\x00\x01z", 9);
    CHECK_INT(arb_frame_reader_next(&r, &f, &n), ARB_EPROTO);
    CHECK_INT(arb_frame_reader_next(&r, &f, &n), ARB_EPROTO);
    CHECK_INT(arb_frame_reader_feed(&r, "\x00\x00\x00\x01z", 5),
              ARB_EPROTO);
    CHECK_INT(arb_frame_reader_partial(&r), 0);
    arb_frame_reader_free(&r);
}

/* Hostile: length 0xffffffff is refused from the header alone, before a
 * single body byte is buffered or any memory is allocated. */
static void
test_huge_length(void)
{
    arb_frame_reader_t r;
    const char        *f;
    size_t             n;

    arb_frame_reader_init(&r, ARB_FRAME_MAX_DEFAULT);
    arb_frame_reader_feed(&r, "\xff\xff", 2);
    CHECK_INT(arb_frame_reader_next(&r, &f, &n), 0);
    arb_frame_reader_feed(&r, "\xff\xff" "abc", 5);
    CHECK_INT(arb_frame_reader_next(&r, &f, &n), ARB_ETOOBIG);
    CHECK(r.body == NULL);
    CHECK_INT(r.body_cap, 0);
    CHECK_INT(arb_frame_reader_feed(&r, "abc", 3), ARB_ETOOBIG);
    CHECK_INT(arb_frame_reader_next(&r, &f, &n), ARB_ETOOBIG);
    arb_frame_reader_free(&r);
}

/* Hostile: a frame declared 16 MiB of which 10 bytes arrive costs a few
 * KiB, not 16 MiB; the buffer grows with what arrives and the frame still
 * comes out whole. */
static void
test_declared_not_sent(void)
{
    size_t             max = 16u << 20, want = max, n, off, k;
    arb_frame_reader_t r;
    char               hdr[4], *body;
    const char        *f;
    int                rc = 0, over = 0;

    hdr[0] = (char)(want >> 24);
    hdr[1] = (char)(want >> 16);
    hdr[2] = (char)(want >> 8);
    hdr[3] = (char)want;
    arb_frame_reader_init(&r, max);
    arb_frame_reader_feed(&r, hdr, 4);
    CHECK_INT(arb_frame_reader_next(&r, &f, &n), 0);
    arb_frame_reader_feed(&r, "0123456789", 10);
    CHECK_INT(arb_frame_reader_next(&r, &f, &n), 0);
    CHECK(r.body != NULL);
    CHECK(r.body_cap >= 10 && r.body_cap <= 4096);
    /* The rest, 64 KiB at a time: grows to the declared length, no more. */
    body = malloc(want);
    CHECK(body != NULL);
    if (body == NULL)
        return;
    for (k = 0; k < want; k++)
        body[k] = (char)('0' + k % 10);
    for (off = 10; off < want && rc == 0; off += k) {
        k = want - off < 65536 ? want - off : 65536;
        over += r.body_cap >= 2 * off + 4096;
        arb_frame_reader_feed(&r, body + off, k);
        rc = arb_frame_reader_next(&r, &f, &n);
    }
    CHECK_INT(over, 0);
    CHECK_INT(rc, 1);
    CHECK_INT(n, want);
    CHECK(rc == 1 && memcmp(f, body, want) == 0);
    CHECK_INT(r.body_cap, want);
    arb_frame_reader_free(&r);
    free(body);
}

/* Exactly max is accepted, max + 1 is not, with the default max. */
static void
test_max_boundary(void)
{
    size_t             max = ARB_FRAME_MAX_DEFAULT, n;
    arb_frame_reader_t r;
    arb_buf_t          w = ARB_BUF_INIT;
    char              *body;
    const char        *f;
    size_t             off;
    int                rc = 0, frames = 0;

    body = malloc(max + 1);
    CHECK(body != NULL);
    if (body == NULL)
        return;
    memset(body, 0x5a, max + 1);
    arb_frame_encode(&w, body, max);
    arb_frame_encode(&w, body, max + 1);
    arb_frame_reader_init(&r, max);
    /* Odd-sized chunks force the copying path for the big body. */
    for (off = 0; off < w.len && rc >= 0; off += 1000) {
        arb_frame_reader_feed(&r, w.data + off,
                              w.len - off < 1000 ? w.len - off : 1000);
        while ((rc = arb_frame_reader_next(&r, &f, &n)) == 1) {
            frames++;
            CHECK_INT(n, max);
            CHECK(memcmp(f, body, n) == 0);
        }
    }
    CHECK_INT(frames, 1);
    CHECK_INT(rc, ARB_ETOOBIG);
    /* Never more than max + 4 bytes: the body buffer plus the header. */
    CHECK(r.body_cap <= max);
    arb_frame_reader_free(&r);
    arb_buf_free(&w);
    free(body);
}

/* Many frames of random sizes through random chunk sizes, checked against
 * what was sent; the reader's buffer never exceeds the largest frame. */
static void
test_random_stream(void)
{
    enum { NFRAMES = 300, MAX = 700 };
    arb_frame_reader_t r;
    arb_buf_t          w = ARB_BUF_INIT;
    size_t             lens[NFRAMES], i, off, chunk, n, got = 0;
    char               body[MAX];
    const char        *f;
    unsigned           seed = 12345;
    int                rc = 0, bad = 0;

    for (i = 0; i < NFRAMES; i++) {
        seed = seed * 1103515245u + 12345u;
        lens[i] = 1 + (seed >> 8) % MAX;
        memset(body, (int)(i & 0xff), lens[i]);
        arb_frame_encode(&w, body, lens[i]);
    }
    arb_frame_reader_init(&r, MAX);
    for (off = 0; off < w.len; off += chunk) {
        seed = seed * 1103515245u + 12345u;
        chunk = 1 + (seed >> 8) % 1500;
        if (chunk > w.len - off)
            chunk = w.len - off;
        arb_frame_reader_feed(&r, w.data + off, chunk);
        while ((rc = arb_frame_reader_next(&r, &f, &n)) == 1) {
            if (got >= NFRAMES || n != lens[got]
                || (unsigned char)f[0] != (got & 0xff)
                || (unsigned char)f[n - 1] != (got & 0xff))
                bad++;
            got++;
        }
        if (rc < 0)
            break;
    }
    CHECK_INT(rc, 0);
    CHECK_INT(got, NFRAMES);
    CHECK_INT(bad, 0);
    CHECK(r.body_cap <= MAX);
    CHECK_INT(arb_frame_reader_partial(&r), 0);
    arb_frame_reader_free(&r);
    arb_buf_free(&w);
}

/* A stream that ends mid-frame is visible as partial. */
static void
test_partial_at_eof(void)
{
    arb_frame_reader_t r;
    const char        *f;
    size_t             n;

    arb_frame_reader_init(&r, 16);
    arb_frame_reader_feed(&r, "\x00\x00\x00\x04" "ab", 6);
    CHECK_INT(arb_frame_reader_next(&r, &f, &n), 0);
    CHECK_INT(arb_frame_reader_partial(&r), 1);
    CHECK_INT(r.body_cap, 4);
    arb_frame_reader_free(&r);
}

int
main(void)
{
    test_encode();
    test_init();
    test_in_place();
    test_split_everywhere();
    test_feed_undrained();
    test_zero_length();
    test_huge_length();
    test_declared_not_sent();
    test_max_boundary();
    test_random_stream();
    test_partial_at_eof();
    return TEST_END();
}
