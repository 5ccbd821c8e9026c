/*
 * chain_links.c - checking a recorded chain's links on several threads.
 *
 * DESIGN: once every event's stored hash is known, link i is checked on
 * its own: BLAKE2b(stored h(i-1) || bytes i) == stored h(i).  A serial
 * walk that carries the recomputed hash forward fails at the same first
 * event, because up to that event the recomputed and the stored hashes
 * are equal.  So the events are cut into one contiguous range per thread,
 * each thread stops at the first broken link of its range (or when a
 * thread before it has already found one), and the answer is the broken
 * link of the lowest range: the same event a serial check names, whatever
 * the threads' timing.  Short chains are not worth a thread's start-up
 * (tens of microseconds against ~0.3 us a link) and are checked here.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/ledger/chain.h"
#include "core/ledger/history.h"

/* Links per thread below which a thread costs more than it saves. */
#define LINKS_PER_THREAD 4096
#define THREADS_MAX      16

typedef struct part {
    const arb_history_rec_t *recs;
    size_t                   lo, hi;     /* links lo..hi-1 */
    size_t                   bad;        /* first broken link, or hi */
    atomic_size_t           *stop;       /* lowest broken link so far */
} part_t;

static size_t
check_range(const arb_history_rec_t *recs, size_t lo, size_t hi,
            atomic_size_t *stop)
{
    unsigned char h[ARB_HASH_LEN];
    size_t        i;

    for (i = lo; i < hi; i++) {
        /* Every 256 links: a broken link before this range decides. */
        if (stop != NULL && (i & 255) == 0 && atomic_load(stop) < lo)
            return hi;
        arb_chain_next(i == 0 ? NULL : recs[i - 1].hash, recs[i].bytes,
                       recs[i].len, h);
        if (memcmp(h, recs[i].hash, ARB_HASH_LEN) != 0)
            return i;
    }
    return hi;
}

static void *
part_main(void *arg)
{
    part_t *p = arg;
    size_t  cur;

    p->bad = check_range(p->recs, p->lo, p->hi, p->stop);
    if (p->bad < p->hi) {
        cur = atomic_load(p->stop);
        while (p->bad < cur
               && !atomic_compare_exchange_weak(p->stop, &cur, p->bad))
            ;
    }
    return NULL;
}

unsigned
arb_chain_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);

    if (n < 1)
        return 1;
    return n > THREADS_MAX ? THREADS_MAX : (unsigned)n;
}

void
arb_chain_run(unsigned nt, void *(*fn)(void *), void *args, size_t size)
{
    pthread_t tid[THREADS_MAX];
    int       started[THREADS_MAX];
    char     *a = args;
    unsigned  t;

    if (nt > THREADS_MAX)
        nt = THREADS_MAX;
    for (t = 1; t < nt; t++)
        started[t] = pthread_create(&tid[t], NULL, fn, a + t * size) == 0;
    if (nt > 0)
        fn(a);
    for (t = 1; t < nt; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            fn(a + t * size);   /* no thread: here */
    }
}

size_t
arb_chain_first_bad(const arb_history_rec_t *recs, size_t n,
                    unsigned threads)
{
    part_t        part[THREADS_MAX];
    atomic_size_t stop;
    size_t        per, i, bad = n;
    unsigned      t, nt;

    if (threads > THREADS_MAX)
        threads = THREADS_MAX;
    nt = threads;
    if (n / LINKS_PER_THREAD < nt)
        nt = (unsigned)(n / LINKS_PER_THREAD);
    if (nt <= 1)
        return check_range(recs, 0, n, NULL);
    atomic_init(&stop, n);
    per = (n + nt - 1) / nt;
    for (t = 0; t < nt; t++) {
        part[t].recs = recs;
        part[t].lo = (size_t)t * per < n ? (size_t)t * per : n;
        part[t].hi = part[t].lo + per < n ? part[t].lo + per : n;
        part[t].bad = part[t].hi;
        part[t].stop = &stop;
    }
    arb_chain_run(nt, part_main, part, sizeof(part[0]));
    /* The lowest range with a broken link names it; a range skipped
     * because an earlier one broke reports none (bad == hi). */
    for (i = 0; i < nt; i++)
        if (part[i].bad < part[i].hi) {
            bad = part[i].bad;
            break;
        }
    return bad;
}
