/*
 * bench.h - what the benchmark programs share: the clock (core/clock.h)
 * and the one YAHchain match they all play (mode 3, ann and bob, 144
 * moves, a fixed permutation of the deck).  Header-only: each bench is
 * one program.
 */
#ifndef ARB_BENCH_H
#define ARB_BENCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/buf.h"
#include "core/clock.h"
#include "core/codec.h"
#include "core/event.h"

#define BENCH_MOVES 144         /* moves of one match */

/* qsort order of int64_t samples (latencies, before the percentiles). */
static inline int
bench_cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

/* Appends v to the growing sample array *v (count *n, capacity *cap).
 * 0, or -1 when out of memory (the sample is dropped). */
static inline int
bench_sample_add(int64_t **v, size_t *n, size_t *cap, int64_t x)
{
    if (*n == *cap) {
        size_t   c = *cap ? *cap * 2 : 65536;
        int64_t *nv = realloc(*v, c * sizeof(*nv));

        if (nv == NULL)
            return -1;
        *v = nv;
        *cap = c;
    }
    (*v)[(*n)++] = x;
    return 0;
}

/* Card of move i (1..144), in ASCII. */
static inline void
bench_card_of(char *out, size_t len, unsigned move)
{
    static const char *const types[] = { "2", "3", "4", "5", "6", "7", "8",
                                         "9", "10", "J", "Q", "K" };
    static const char        suits[] = "SHDCUMWFLGYN";
    unsigned                 idx = ((move - 1) * 65u) % 144u;

    snprintf(out, len, "%s%c", types[idx % 12], suits[idx / 12]);
}

static inline const char *
bench_player_of(unsigned move)
{
    return (move - 1) % 2 == 0 ? "ann" : "bob";
}

/* The canonical bytes of move `move` recorded as event `seq`, into b
 * (replacing its content). */
static inline int
bench_encode_move(arb_buf_t *b, uint64_t seq, unsigned move)
{
    arb_event_t ev;
    char        card[8];
    char       *args[1];

    bench_card_of(card, sizeof(card), move);
    memset(&ev, 0, sizeof(ev));
    args[0] = card;
    ev.kind = ARB_EV_MOVE;
    ev.seq = seq;
    ev.time_ms = 1700000000000 + (int64_t)seq;
    ev.actor = "arbiter";
    ev.player = (char *)bench_player_of(move);
    ev.verb = "place";
    ev.nargs = 1;
    ev.args = args;
    b->len = 0;
    return arb_event_encode(b, &ev);     /* ev borrows: not cleared */
}

/* The open of YAHchain match `match` (mode 3, cycles 4, ann and bob),
 * into b (replacing its content). */
static inline int
bench_encode_open(arb_buf_t *b, const char *match)
{
    arb_event_t ev;
    arb_setup_t st;
    int         rc;

    memset(&ev, 0, sizeof(ev));
    memset(&st, 0, sizeof(st));
    st.game = "yahchain";
    st.match_id = (char *)match;
    ev.kind = ARB_EV_OPEN;
    ev.time_ms = 1700000000000;
    ev.actor = "arbiter";
    ev.setup = &st;
    rc = arb_setup_add_player(&st, "ann", -1);
    if (rc == 0)
        rc = arb_setup_add_player(&st, "bob", -1);
    if (rc == 0)
        rc = arb_setup_set_option(&st, "cycles", "4");
    if (rc == 0)
        rc = arb_setup_set_option(&st, "mode", "3");
    b->len = 0;
    if (rc == 0)
        rc = arb_event_encode(b, &ev);
    /* Only what arb_setup_add_player/set_option allocated is ours. */
    st.game = NULL;
    st.match_id = NULL;
    arb_setup_clear(&st);
    return rc;
}

#endif
