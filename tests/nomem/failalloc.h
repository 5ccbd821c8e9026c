/*
 * failalloc.h - allocation-failure injection for tests of the paths that
 * must fail closed or answer an error when memory runs out (SQLite's
 * "malloc failure" loop).
 *
 * DESIGN: a link-time wrapper, not a preloaded library: a program linked
 * with ARB_WRAP_ALLOC (Makefile) sends every malloc, calloc, realloc,
 * strdup and strndup the project's own objects make through failalloc.c,
 * while the allocations inside libc, libuv, LMDB and msgpack-c are left
 * alone.  So an injected failure is always one the project's code sees
 * and must handle, and the count of allocations is the project's, stable
 * from run to run.  The counter is atomic: the commit worker allocates
 * too.
 *
 * The loop a test runs: for n = 1, 2, 3, ... arm(n), do one thing
 * (dispatch a request, load a file), disarm, check the outcome; stop at
 * the first n where arb_failalloc_disarm() reports that nothing failed
 * (the thing made fewer than n allocations).
 */
#ifndef ARB_TESTS_FAILALLOC_H
#define ARB_TESTS_FAILALLOC_H

/* From now on, the nth allocation (1 = the next one) returns NULL; the
 * others succeed.  Only that one fails: later ones succeed again, as after
 * a passing burst of memory pressure. */
void arb_failalloc_arm(long nth);

/* Stops injecting.  Returns 1 when an allocation was failed since the
 * arm, 0 when fewer than nth allocations were made. */
int  arb_failalloc_disarm(void);

/* Allocations made since the last arm (counted while armed only). */
long arb_failalloc_count(void);

#endif
