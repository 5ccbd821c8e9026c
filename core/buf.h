/*
 * buf.h - a growable byte buffer.  The buffer owns its memory; release it
 * with arb_buf_free().  After an allocation failure the buffer is marked
 * failed (b->oom) and further appends are no-ops, so a sequence of appends
 * needs one check at the end.
 */
#ifndef ARB_BUF_H
#define ARB_BUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct arb_buf {
    char   *data;
    size_t  len;
    size_t  cap;
    int     oom;
} arb_buf_t;

#define ARB_BUF_INIT { NULL, 0, 0, 0 }

void arb_buf_free(arb_buf_t *b);                 /* NULL-safe; resets to empty */
int  arb_buf_reserve(arb_buf_t *b, size_t extra); /* 0 or ARB_ENOMEM */
void arb_buf_add(arb_buf_t *b, const void *p, size_t n);
void arb_buf_puts(arb_buf_t *b, const char *s);
void arb_buf_putc(arb_buf_t *b, char c);
/* Appends; b may be NULL (a caller that wants no message): nothing. */
void arb_buf_printf(arb_buf_t *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void arb_buf_u64be(arb_buf_t *b, uint64_t v);    /* 8 bytes big-endian */
void arb_buf_u32be(arb_buf_t *b, uint32_t v);
/* The big-endian unsigned integer in p[0..n), n <= 8 (the reader of the
 * two above and of msgpack's lengths). */
static inline uint64_t
arb_load_be(const unsigned char *p, size_t n)
{
    uint64_t v = 0;
    size_t   i;

    for (i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

/* The 8 bytes at p as one word in memory order (byte 0 lowest), for
 * comparing short byte strings at once; one load on any compiler. */
static inline uint64_t
arb_load_le64(const unsigned char *p)
{
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16
           | (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32
           | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48
           | (uint64_t)p[7] << 56;
}

/* arb_load_be(p, 8), written out: the log's reader calls it for each
 * field of each record, and compilers turn this form, not the loop, into
 * one load and a byte swap. */
static inline uint64_t
arb_load_be64(const unsigned char *p)
{
    return (uint64_t)p[0] << 56 | (uint64_t)p[1] << 48
           | (uint64_t)p[2] << 40 | (uint64_t)p[3] << 32
           | (uint64_t)p[4] << 24 | (uint64_t)p[5] << 16
           | (uint64_t)p[6] << 8 | (uint64_t)p[7];
}

/* arb_load_be64's inverse, written out for the same reason: one byte
 * swap and one store. */
static inline void
arb_store_be64(unsigned char *p, uint64_t v)
{
    p[0] = (unsigned char)(v >> 56);
    p[1] = (unsigned char)(v >> 48);
    p[2] = (unsigned char)(v >> 40);
    p[3] = (unsigned char)(v >> 32);
    p[4] = (unsigned char)(v >> 24);
    p[5] = (unsigned char)(v >> 16);
    p[6] = (unsigned char)(v >> 8);
    p[7] = (unsigned char)v;
}
/* The same for 32 bits (the journal's lengths and counts). */
static inline uint32_t
arb_load_be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16
           | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static inline void
arb_store_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* NUL-terminates without counting the NUL in len; returns data or NULL on oom. */
const char *arb_buf_cstr(arb_buf_t *b);

#endif
