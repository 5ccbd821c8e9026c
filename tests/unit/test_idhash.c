/*
 * test_idhash.c - the word-at-a-time id hash and comparison of the
 * whole-store passes (core/idhash.h): they read whole words, so what lies
 * past an id must never change an answer, and an id too close to the end
 * of its record is copied before it is read.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/idhash.h"
#include "core/ledger/store.h"
#include "tests/test.h"

#define ROOM (ARB_STORE_ID_MAX + 1)

static uint64_t rnd = 0x2545f4914f6cdd1du;

static unsigned char
next_byte(void)
{
    rnd ^= rnd << 13;
    rnd ^= rnd >> 7;
    rnd ^= rnd << 17;
    return (unsigned char)(rnd >> 24);
}

/* Every length 0..64: equal ids with different bytes past them are the
 * same id with the same hash; a difference at any position inside is
 * seen, and the hash tells the two apart. */
static void
test_same_and_hash(void)
{
    char   a[ROOM], b[ROOM];
    size_t n, i, j;
    int    wrong_same = 0, wrong_diff = 0, hash_diff = 0, hash_same = 0;

    for (n = 0; n <= ARB_STORE_ID_MAX; n++) {
        CHECK(ARB_ID_READABLE(n) <= ROOM);
        CHECK(ARB_ID_READABLE(n) >= n);
        for (i = 0; i < ROOM; i++) {
            a[i] = (char)next_byte();
            b[i] = (char)next_byte();       /* past n: different junk */
        }
        memcpy(b, a, n);
        if (!arb_id_same(a, b, n))
            wrong_same++;
        if (arb_id_hash(a, n) != arb_id_hash(b, n))
            hash_diff++;
        for (j = 0; j < n; j++) {
            b[j] ^= 0x20;
            if (arb_id_same(a, b, n))
                wrong_diff++;
            if (arb_id_hash(a, n) == arb_id_hash(b, n))
                hash_same++;
            b[j] ^= 0x20;
        }
    }
    CHECK_INT(wrong_same, 0);
    CHECK_INT(hash_diff, 0);
    CHECK_INT(wrong_diff, 0);
    CHECK_INT(hash_same, 0);
    /* The length is part of the hash: "ab" and "ab\0" differ. */
    memset(a, 0, sizeof(a));
    memcpy(a, "ab", 2);
    CHECK(arb_id_hash(a, 2) != arb_id_hash(a, 3));
}

/* Ids that differ in their last bytes only (as a venue's table ids do)
 * spread over a table's low bits: about 632 of 1,024 buckets are hit by
 * 1,000 random keys; a hash that lost the last word would hit one. */
static void
test_spread(void)
{
    static unsigned char hit[1024];
    char                 id[ROOM];
    int                  i, used = 0;

    memset(id, 0, sizeof(id));
    for (i = 0; i < 1000; i++) {
        snprintf(id, sizeof(id), "R1-T%04d", i);
        hit[arb_id_hash(id, strlen(id)) & 1023] = 1;
    }
    for (i = 0; i < 1024; i++)
        used += hit[i];
    CHECK(used >= 560);
    memset(hit, 0, sizeof(hit));
    for (i = 0; i < 1000; i++) {
        snprintf(id, sizeof(id), "m%06d", i);   /* 7 bytes: the tail */
        hit[arb_id_hash(id, 7) & 1023] = 1;
    }
    for (used = 0, i = 0; i < 1024; i++)
        used += hit[i];
    CHECK(used >= 560);
}

/* An id at the end of a short record is copied, zero-padded, before the
 * word reads; one with room after it is read where it is. */
static void
test_padded(void)
{
    char        rec[32], pad[ARB_STORE_ID_MAX + 8];
    const char *p;

    memcpy(rec, "abcdefghij", 10);
    memset(pad, 'x', sizeof(pad));
    /* 10 bytes need 16 readable: 10 are not enough, 16 are */
    p = arb_id_padded(rec, 10, 10, pad);
    CHECK(p == pad);
    CHECK(memcmp(pad, "abcdefghij", 10) == 0);
    CHECK(memcmp(pad + 10, "\0\0\0\0\0\0\0\0", 8) == 0);
    CHECK(arb_id_same(p, rec, 10));
    CHECK(arb_id_hash(p, 10) == arb_id_hash(rec, 10));
    CHECK(arb_id_padded(rec, 10, 15, pad) == pad);
    CHECK(arb_id_padded(rec, 10, 16, pad) == rec);
    CHECK(arb_id_padded(rec, 8, 8, pad) == rec);
    CHECK(arb_id_padded(rec, 0, 0, pad) == rec);
}

int
main(void)
{
    test_same_and_hash();
    test_spread();
    test_padded();
    return TEST_END();
}
