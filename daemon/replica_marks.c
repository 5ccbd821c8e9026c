/*
 * replica_marks.c - places of the stream a read replica read
 * (replica_marks.h).
 */
#include "daemon/replica_marks.h"

#include "core/err.h"

void
arb_marks_reset(arb_marks_t *k)
{
    k->first = 0;
    k->n = 0;
    k->taken_ms = 0;
}

/* The i-th mark from the oldest. */
static size_t
at(const arb_marks_t *k, size_t i)
{
    return (k->first + i) % ARB_MARKS_MAX;
}

void
arb_marks_note(arb_marks_t *k, uint64_t seq, int64_t ns, int64_t now_ms)
{
    size_t i;

    if (k->n > 0 && (seq <= k->seq[at(k, k->n - 1)]
                     || now_ms - k->taken_ms < ARB_MARKS_GAP_MS))
        return;
    if (k->n == ARB_MARKS_MAX) {
        k->first = at(k, 1);
        k->n--;
    }
    i = at(k, k->n);
    k->seq[i] = seq;
    k->ns[i] = ns;
    k->n++;
    k->taken_ms = now_ms;
}

int
arb_marks_held(arb_marks_t *k, uint64_t last, arb_marks_time_fn time_fn,
               void *ud, uint64_t *seq, int64_t *ns)
{
    size_t n = k->n;
    int    rc;

    *seq = 0;
    *ns = 0;
    /* Newest first: the first one held is the answer, and the stream is
     * the one read up to it. */
    while (n > 0) {
        size_t  i = at(k, n - 1);
        int64_t t = 0;

        if (k->seq[i] <= last) {
            rc = time_fn(ud, k->seq[i], &t);
            if (rc != 0 && rc != ARB_ENOTFOUND)
                return rc;
            if (rc == 0 && t == k->ns[i]) {
                *seq = k->seq[i];
                *ns = k->ns[i];
                break;
            }
        }
        n--;
    }
    /* Those after it are the lost tail's. */
    k->n = n;
    if (n == 0)
        k->taken_ms = 0;
    return 0;
}

size_t
arb_marks_pick(const arb_marks_t *k, uint64_t *seq, int64_t *ns,
               size_t max)
{
    size_t got = 0, back = 0, i;

    /* newest first, then reversed into ascending order; the oldest
     * last, when there is room (the longest loss it covers) */
    while (got < max && back < k->n) {
        i = at(k, k->n - 1 - back);
        seq[got] = k->seq[i];
        ns[got++] = k->ns[i];
        if (back == k->n - 1)
            break;
        back = back == 0 ? 1 : back * 2;
        if (back >= k->n)
            back = k->n - 1;
    }
    for (i = 0; i < got / 2; i++) {
        uint64_t s = seq[i];
        int64_t  t = ns[i];

        seq[i] = seq[got - 1 - i];
        ns[i] = ns[got - 1 - i];
        seq[got - 1 - i] = s;
        ns[got - 1 - i] = t;
    }
    return got;
}

void
arb_marks_load(arb_marks_t *k, const uint64_t *seq, const int64_t *ns,
               size_t n, int64_t now_ms)
{
    size_t i;

    arb_marks_reset(k);
    for (i = 0; i < n && i < ARB_MARKS_MAX; i++) {
        if (k->n > 0 && seq[i] <= k->seq[at(k, k->n - 1)])
            continue;
        k->seq[at(k, k->n)] = seq[i];
        k->ns[at(k, k->n)] = ns[i];
        k->n++;
    }
    if (k->n > 0)
        k->taken_ms = now_ms;
}
