#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"

void
arb_buf_free(arb_buf_t *b)
{
    if (b == NULL)
        return;
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
    b->oom = 0;
}

int
arb_buf_reserve(arb_buf_t *b, size_t extra)
{
    size_t  need, cap;
    char   *p;

    if (b->oom)
        return ARB_ENOMEM;
    if (extra > SIZE_MAX - b->len - 1)
        goto fail;
    need = b->len + extra + 1;      /* room for a terminating NUL */
    if (need <= b->cap)
        return 0;
    cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    p = realloc(b->data, cap);
    if (p == NULL)
        goto fail;
    b->data = p;
    b->cap = cap;
    return 0;

fail:
    b->oom = 1;
    return ARB_ENOMEM;
}

void
arb_buf_add(arb_buf_t *b, const void *p, size_t n)
{
    if (n == 0 || arb_buf_reserve(b, n) != 0)
        return;
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

void
arb_buf_puts(arb_buf_t *b, const char *s)
{
    arb_buf_add(b, s, strlen(s));
}

void
arb_buf_putc(arb_buf_t *b, char c)
{
    arb_buf_add(b, &c, 1);
}

void
arb_buf_printf(arb_buf_t *b, const char *fmt, ...)
{
    va_list ap;
    int     n;

    if (b == NULL)
        return;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || arb_buf_reserve(b, (size_t)n) != 0)
        return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void
arb_buf_u64be(arb_buf_t *b, uint64_t v)
{
    unsigned char x[8];

    arb_store_be64(x, v);
    arb_buf_add(b, x, 8);
}

void
arb_buf_u32be(arb_buf_t *b, uint32_t v)
{
    unsigned char x[4];

    x[0] = (unsigned char)(v >> 24);
    x[1] = (unsigned char)(v >> 16);
    x[2] = (unsigned char)(v >> 8);
    x[3] = (unsigned char)v;
    arb_buf_add(b, x, 4);
}

const char *
arb_buf_cstr(arb_buf_t *b)
{
    if (arb_buf_reserve(b, 0) != 0)
        return NULL;
    b->data[b->len] = '\0';
    return b->data;
}
