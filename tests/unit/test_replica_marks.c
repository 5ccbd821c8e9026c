/*
 * test_replica_marks.c - the places a read replica read
 * (daemon/replica_marks.h): after NATS lost the stream's tail, the
 * replica reads again after the newest place the stream still holds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "daemon/replica_marks.h"
#include "tests/test.h"

/* The stream as it is now: the server time at each sequence (0: none
 * there), asked how often. */
typedef struct fake {
    int64_t  ns[4096];
    uint64_t last;
    int      asked, fail_at, fail_rc;      /* fail_rc 0: ARB_EIO */
} fake_t;

static int
time_of(void *ud, uint64_t seq, int64_t *ns)
{
    fake_t *f = ud;

    f->asked++;
    if (f->fail_at != 0 && f->asked >= f->fail_at)
        return f->fail_rc != 0 ? f->fail_rc : ARB_EIO;
    if (seq == 0 || seq > f->last || f->ns[seq] == 0)
        return ARB_ENOTFOUND;
    *ns = f->ns[seq];
    return 0;
}

/* Messages 1..n read one per 100 ms (of the reader's clock from t0),
 * each of server time 1000 * seq + era. */
static void
read_all(arb_marks_t *k, fake_t *f, uint64_t from, uint64_t n,
         int64_t era, int64_t t0)
{
    uint64_t q;

    for (q = from; q <= n; q++) {
        f->ns[q] = 1000 * (int64_t)q + era;
        arb_marks_note(k, q, f->ns[q], t0 + 100 * (int64_t)q);
    }
    f->last = n;
}

/* No marks, and messages 1..100 read. */
static void
fresh(arb_marks_t *k, fake_t *f)
{
    memset(k, 0, sizeof(*k));
    memset(f, 0, sizeof(*f));
    read_all(k, f, 1, 100, 0, 0);
}

static void
test_spacing(void)
{
    arb_marks_t k;
    fake_t     *f = calloc(1, sizeof(*f));
    uint64_t    seq;
    int64_t     ns;

    fresh(&k, f);
    /* one mark a second: 1, 11, 21, ... 91 */
    CHECK_INT(k.n, 10);
    CHECK_INT(k.seq[k.first], 1);
    CHECK_INT(k.seq[(k.first + k.n - 1) % ARB_MARKS_MAX], 91);
    /* a consumer made anew delivers again from earlier: no mark back */
    arb_marks_note(&k, 50, 50000, 1000000);
    CHECK_INT(k.n, 10);
    /* ... nor the newest again: a saved file with a place twice is
     * refused (replica_pos.h), and the whole stream read again (no test
     * failed when the newest was marked a second time) */
    arb_marks_note(&k, 91, 91000, 2000000);
    CHECK_INT(k.n, 10);
    /* Nothing lost: the newest holds. */
    CHECK_INT(arb_marks_held(&k, f->last, time_of, f, &seq, &ns), 0);
    CHECK_INT(seq, 91);
    CHECK_INT(ns, 91000);
    free(f);
}

static void
test_lost_tail(void)
{
    arb_marks_t k;
    fake_t     *f = calloc(1, sizeof(*f));
    uint64_t    seq;
    int64_t     ns;

    fresh(&k, f);
    /* The stream lost 56.. and took 56..70 again (another era): the
     * newest place held is 51, and the marks after it go. */
    read_all(&k, f, 56, 70, 7, -1000000);       /* not marked: older */
    f->last = 70;
    CHECK_INT(arb_marks_held(&k, f->last, time_of, f, &seq, &ns), 0);
    CHECK_INT(seq, 51);
    CHECK_INT(ns, 51000);
    CHECK_INT(k.n, 6);                          /* 1, 11, ..., 51 */
    /* Read again from 51: marks go on from there. */
    read_all(&k, f, 51, 80, 7, 1000000);
    CHECK_INT(k.seq[(k.first + k.n - 1) % ARB_MARKS_MAX] > 51, 1);
    /* A mark whose message was deleted proves nothing: passed over. */
    fresh(&k, f);
    f->ns[91] = 0;
    f->ns[81] = 5;              /* another message at 81 */
    CHECK_INT(arb_marks_held(&k, f->last, time_of, f, &seq, &ns), 0);
    CHECK_INT(seq, 71);
    /* The stream ends at a mark: that mark is the place (no test failed
     * when a mark at the stream's last sequence was passed over and the
     * stream read again from an older one). */
    fresh(&k, f);
    f->last = 51;
    CHECK_INT(arb_marks_held(&k, f->last, time_of, f, &seq, &ns), 0);
    CHECK_INT(seq, 51);
    /* The stream ends before every mark but the first. */
    fresh(&k, f);
    f->last = 5;
    CHECK_INT(arb_marks_held(&k, f->last, time_of, f, &seq, &ns), 0);
    CHECK_INT(seq, 1);
    /* None held: from the first message, the ring emptied. */
    f->ns[1] = 9;
    CHECK_INT(arb_marks_held(&k, f->last, time_of, f, &seq, &ns), 0);
    CHECK_INT(seq, 0);
    CHECK_INT(ns, 0);
    CHECK_INT(k.n, 0);
    /* The first message read after that is marked at once. */
    arb_marks_note(&k, 3, 3, 5);
    CHECK_INT(k.n, 1);
    free(f);
}

/* JetStream does not answer: an error, and nothing is dropped (asked
 * again later). */
static void
test_no_answer(void)
{
    arb_marks_t k;
    fake_t     *f = calloc(1, sizeof(*f));
    uint64_t    seq = 7;
    int64_t     ns = 7;

    fresh(&k, f);
    f->ns[91] = 1;
    f->fail_at = 2;
    CHECK_INT(arb_marks_held(&k, f->last, time_of, f, &seq, &ns), ARB_EIO);
    CHECK_INT(k.n, 10);
    /* nor when it has no leader for now, or times out (no test failed
     * when that dropped the marks asked of) */
    f->asked = 0;
    f->fail_rc = ARB_EAGAIN;
    CHECK_INT(arb_marks_held(&k, f->last, time_of, f, &seq, &ns),
              ARB_EAGAIN);
    CHECK_INT(k.n, 10);
    f->fail_at = 0;
    CHECK_INT(arb_marks_held(&k, f->last, time_of, f, &seq, &ns), 0);
    CHECK_INT(seq, 81);
    free(f);
}

/* Full: the oldest goes, the ring spans the last ARB_MARKS_MAX seconds
 * of reading. */
static void
test_full(void)
{
    arb_marks_t k;
    fake_t     *f = calloc(1, sizeof(*f));
    uint64_t    seq;
    int64_t     ns;

    memset(&k, 0, sizeof(k));
    read_all(&k, f, 1, 3000, 0, 0);             /* 300 s of reading */
    CHECK_INT(k.n, ARB_MARKS_MAX);
    CHECK_INT(k.seq[k.first], 2991 - 10 * (ARB_MARKS_MAX - 1));
    f->last = 100;                              /* lost all but 1..100 */
    CHECK_INT(arb_marks_held(&k, f->last, time_of, f, &seq, &ns), 0);
    CHECK_INT(seq, 0);                          /* older than every mark */
    CHECK_INT(k.n, 0);
    free(f);
}

/* Saved (arb_marks_pick) and loaded back (arb_marks_load): the newest,
 * then 1, 2, 4, ... before it, ascending; a loaded ring answers as the
 * one saved would for the places it kept. */
static void
test_pick_load(void)
{
    arb_marks_t k, back;
    fake_t     *f = calloc(1, sizeof(*f));
    uint64_t    seq[10], s2[3], q;
    int64_t     ns[10], n2[3];
    size_t      n;

    memset(&k, 0, sizeof(k));
    read_all(&k, f, 1, 3000, 0, 0);             /* marks 441 .. 2991 */
    n = arb_marks_pick(&k, seq, ns, 10);
    CHECK_INT(n, 10);
    CHECK_INT(seq[9], 2991);
    CHECK_INT(seq[8], 2981);
    CHECK_INT(seq[7], 2971);
    CHECK_INT(seq[6], 2951);
    CHECK_INT(seq[1], 2991 - 10 * 128);
    CHECK_INT(seq[0], 441);                     /* the oldest */
    CHECK_INT(ns[0], 1000 * (int64_t)seq[0]);
    memset(&back, 0xff, sizeof(back));
    arb_marks_load(&back, seq, ns, n, 42);
    CHECK_INT(back.n, 10);
    CHECK(back.taken_ms == 42);
    /* NATS lost 2960..: the newest saved place it holds is 2951 */
    f->last = 2959;
    CHECK_INT(arb_marks_held(&back, f->last, time_of, f, &q, &ns[0]), 0);
    CHECK_INT(q, 2951);
    /* fewer than asked; one out of order is passed over */
    memset(&k, 0, sizeof(k));
    read_all(&k, f, 1, 15, 0, 0);               /* marks 1, 11 */
    CHECK_INT(arb_marks_pick(&k, s2, n2, 3), 2);
    CHECK_INT(s2[0], 1);
    CHECK_INT(s2[1], 11);
    s2[2] = 5;
    n2[2] = 5;
    arb_marks_load(&back, s2, n2, 3, 0);
    CHECK_INT(back.n, 2);
    arb_marks_load(&back, s2, n2, 0, 0);
    CHECK_INT(back.n, 0);
    /* One mark: saved once, not once per place asked for (a saved
     * position with a place twice is refused) */
    memset(&k, 0, sizeof(k));
    read_all(&k, f, 1, 5, 0, 0);                /* mark 1 */
    CHECK_INT(arb_marks_pick(&k, s2, n2, 3), 1);
    CHECK_INT(s2[0], 1);
    free(f);
}

int
main(void)
{
    test_spacing();
    test_lost_tail();
    test_no_answer();
    test_full();
    test_pick_load();
    return TEST_END();
}
