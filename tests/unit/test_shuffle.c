/* The documented deal shuffle.  The expected permutations were computed by
 * an independent Python implementation of docs/DEAL.md (hashlib.blake2b),
 * so this pins the algorithm, not just this code. */
#include <stdint.h>
#include <string.h>

#include "core/err.h"
#include "core/shuffle.h"
#include "tests/test.h"

int
main(void)
{
    static const unsigned want52[52] = {
        49, 22, 5, 15, 10, 40, 33, 25, 50, 35, 1, 17, 3, 30, 32, 51, 31, 12,
        13, 24, 44, 41, 8, 27, 0, 23, 45, 14, 47, 18, 9, 7, 36, 39, 4, 6, 43,
        20, 46, 42, 28, 19, 21, 16, 37, 48, 26, 2, 29, 34, 38, 11
    };
    static const unsigned want100[20] = {
        97, 77, 67, 34, 40, 38, 84, 43, 83, 3, 46, 39, 27, 63, 85, 13, 4, 31,
        68, 87
    };
    unsigned perm[100], seen[100];
    unsigned counts[3][3];
    char     seed[16];
    int      i, j, s, ok;

    CHECK_INT(arb_shuffle(perm, 52, "table-7-round-2", 15), 0);
    CHECK(memcmp(perm, want52, sizeof(want52)) == 0);
    CHECK_INT(arb_shuffle(perm, 100, "x", 1), 0);
    CHECK(memcmp(perm, want100, sizeof(want100)) == 0);
    memset(seen, 0, sizeof(seen));
    for (i = 0, ok = 1; i < 100; i++)
        ok &= perm[i] < 100 && seen[perm[i]]++ == 0;
    CHECK(ok);
    CHECK_INT(arb_shuffle(perm, 0, "x", 1), ARB_EINVAL);
    /* past 2^20 cards is refused before perm is written (no test failed
     * when the bound was dropped) */
    perm[0] = 77;
    CHECK_INT(arb_shuffle(perm, (1u << 20) + 1, "x", 1), ARB_EINVAL);
    CHECK_INT(perm[0], 77);
    /* no modulo bias: of 2^64 words, the top 2^64 mod b are drawn again
     * (2^64 mod 3 = 1, mod 52 = 16, mod 2^k = 0), and the word below them
     * is taken (no test failed when the rejection was dropped: no seed
     * reaches it) */
    CHECK_INT(arb_shuffle_takes(UINT64_MAX, 3), 0);
    CHECK_INT(arb_shuffle_takes(UINT64_MAX - 1, 3), 1);
    CHECK_INT(arb_shuffle_takes(UINT64_MAX - 15, 52), 0);
    CHECK_INT(arb_shuffle_takes(UINT64_MAX - 16, 52), 1);
    CHECK_INT(arb_shuffle_takes(UINT64_MAX, 64), 1);
    CHECK_INT(arb_shuffle_takes(UINT64_MAX, 1), 1);
    CHECK_INT(arb_shuffle_takes(0, 52), 1);
    /* rough uniformity: 6000 seeds over 3 cards, each cell near 2000 */
    memset(counts, 0, sizeof(counts));
    for (s = 0; s < 6000; s++) {
        int n = snprintf(seed, sizeof(seed), "s%d", s);
        arb_shuffle(perm, 3, seed, (size_t)n);
        for (j = 0; j < 3; j++)
            counts[j][perm[j]]++;
    }
    for (i = 0, ok = 1; i < 3; i++)
        for (j = 0; j < 3; j++)
            ok &= counts[i][j] > 1800 && counts[i][j] < 2200;
    CHECK(ok);
    return TEST_END();
}
