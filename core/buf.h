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
uint64_t arb_load_be(const unsigned char *p, size_t n);
/* NUL-terminates without counting the NUL in len; returns data or NULL on oom. */
const char *arb_buf_cstr(arb_buf_t *b);

#endif
