/*
 * num.h - decimal numbers in text the program reads (files, headers,
 * transcripts): digits only, no sign, no spaces, no more than 64 bits.
 * One parser, so that every reader refuses the same things.
 */
#ifndef ARB_NUM_H
#define ARB_NUM_H

#include <stddef.h>
#include <stdint.h>

/* The number s[0..n) spells: 0, or -1 when it is empty, holds anything
 * but the digits 0-9, or is past UINT64_MAX. */
int arb_u64_parse(const char *s, size_t n, uint64_t *out);

#endif
