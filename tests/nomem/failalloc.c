/*
 * failalloc.c - the allocation wrappers behind failalloc.h; linked only
 * into programs built with ARB_WRAP_ALLOC (-Wl,--wrap=malloc,...), which
 * resolves __real_malloc to the C library's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "tests/nomem/failalloc.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);

static atomic_long nth;         /* 0: not armed */
static atomic_long count;
static atomic_int  failed;

/* 1 when this allocation is the one to fail. */
static int
fail_now(void)
{
    long want = atomic_load(&nth);

    if (want == 0)
        return 0;
    if (atomic_fetch_add(&count, 1) + 1 != want)
        return 0;
    atomic_store(&failed, 1);
    errno = ENOMEM;
    return 1;
}

void
arb_failalloc_arm(long n)
{
    atomic_store(&nth, 0);
    atomic_store(&count, 0);
    atomic_store(&failed, 0);
    atomic_store(&nth, n);
}

int
arb_failalloc_disarm(void)
{
    atomic_store(&nth, 0);
    return atomic_load(&failed);
}

long
arb_failalloc_count(void)
{
    return atomic_load(&count);
}

void *
__wrap_malloc(size_t n)
{
    return fail_now() ? NULL : __real_malloc(n);
}

void *
__wrap_calloc(size_t n, size_t size)
{
    return fail_now() ? NULL : __real_calloc(n, size);
}

void *
__wrap_realloc(void *p, size_t n)
{
    return fail_now() ? NULL : __real_realloc(p, n);
}

char *
__wrap_strdup(const char *s)
{
    return fail_now() ? NULL : __real_strdup(s);
}

char *
__wrap_strndup(const char *s, size_t n)
{
    return fail_now() ? NULL : __real_strndup(s, n);
}
