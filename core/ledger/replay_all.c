/*
 * replay_all.c - every match of a store replayed in one pass over the log
 * (the design is in replay_all.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/codec.h"
#include "core/err.h"
#include "core/buf.h"
#include "core/idhash.h"
#include "core/ledger/history.h"
#include "core/ledger/replay_all.h"
#include "core/ledger/store.h"
#include "core/ledger/store_int.h"

/* The fields every event touches come first, in one or two cache lines;
 * the verdict (372 bytes) is written only when the match is refused. */
typedef struct rmatch {
    size_t        hash;         /* arb_id_hash of the id */
    uint64_t      next;         /* the seq its next log record must have */
    arb_match_t  *m;
    uint64_t      applied;      /* events that stood, the open included */
    int           slow;         /* replayed afterwards, from its history:
                                   a committed deal, or a ruling */
    int           refused;
    size_t        idlen;
    char          id[ARB_STORE_ID_MAX + 1];
    uint64_t      bad_seq;
    arb_verdict_t v;
} rmatch_t;

/* A slot keeps the hash beside the pointer, so that a probe past another
 * match's slot reads no other match. */
typedef struct slot {
    size_t    hash;
    rmatch_t *r;
} slot_t;

/*
 * Read-ahead.  A store interleaves its matches, so each record's match
 * (its slot, its replay record, the match and its rule state) is a chain
 * of cache misses, one after the other: most of a replay's time when
 * thousands of matches are side by side.  So the log is read AHEAD
 * records before it is replayed, and each waiting record walks one link
 * of its chain further every STEP records: the slot is fetched when the
 * record arrives, its replay record STEP records later, then the match,
 * then the rule state, each from memory that the previous step has
 * brought in.  Records are replayed strictly in log order.  A waiting
 * record points into the store's snapshot (arb__log_walk), and what still
 * waits when the log ends is replayed before the snapshot is let go.
 */
#define AHEAD 16
#define STEP  4

typedef struct pend {
    uint64_t             pos, seq;
    size_t               hash, idlen, len;
    rmatch_t            *r;         /* a guess: prefetched, and find()'s
                                       hint */
    const unsigned char *bytes;     /* in the snapshot */
    char                 id[ARB_STORE_ID_MAX + 1];
} pend_t;

typedef struct ctx {
    arb_store_t         *s;
    slot_t              *slot;      /* open addressing, cap a power of 2 */
    size_t               cap, n;
    arb_event_scratch_t  sc;
    arb_verdict_t        v;         /* each event's, copied on refusal */
    arb_buf_t           *why;
    uint64_t             nevents;
    pend_t               ring[AHEAD];
    uint64_t             head, tail;    /* records read, replayed */
} ctx_t;

/* Doubles the table; lookups only, so iteration order never matters
 * (the matches are sorted by id before anyone sees them). */
static int
grow(ctx_t *x)
{
    size_t  cap = x->cap ? 2 * x->cap : 1024, i, j;
    slot_t *slot = calloc(cap, sizeof(*slot));

    if (slot == NULL)
        return ARB_ENOMEM;
    for (i = 0; i < x->cap; i++) {
        if (x->slot[i].r == NULL)
            continue;
        for (j = x->slot[i].hash & (cap - 1); slot[j].r != NULL;
             j = (j + 1) & (cap - 1))
            ;
        slot[j] = x->slot[i];
    }
    free(x->slot);
    x->slot = slot;
    x->cap = cap;
    return 0;
}

/* id: n bytes in an array of ARB_STORE_ID_MAX + 1 (core/idhash.h).
 * hint: the match the read-ahead guessed from the hash alone, or NULL;
 * when its id is this one it is the match (the table holds one per id),
 * and the probe it would repeat is saved. */
static rmatch_t *
find(ctx_t *x, const char *id, size_t n, size_t h, rmatch_t *hint)
{
    size_t    j;
    rmatch_t *r;

    if (hint != NULL && hint->hash == h && hint->idlen == n
        && arb_id_same(hint->id, id, n))
        return hint;
    if (2 * (x->n + 1) > x->cap && grow(x) != 0)
        return NULL;
    for (j = h & (x->cap - 1); x->slot[j].r != NULL;
         j = (j + 1) & (x->cap - 1))
        if (x->slot[j].hash == h && x->slot[j].r->idlen == n
            && arb_id_same(x->slot[j].r->id, id, n))
            return x->slot[j].r;
    if (n > ARB_STORE_ID_MAX)
        return NULL;        /* the store hands out no longer id */
    r = calloc(1, sizeof(*r));
    if (r == NULL)
        return NULL;
    r->hash = h;
    r->idlen = n;
    memcpy(r->id, id, n);
    x->slot[j].hash = h;
    x->slot[j].r = r;
    x->n++;
    return r;
}

/* Puts `match "ID": seq N: ` before the reason in x->why (no seq when
 * seq is UINT64_MAX: the reason names it): a store holds many matches,
 * and an error must say which one is damaged. */
static void
name_match(ctx_t *x, const rmatch_t *r, uint64_t seq)
{
    arb_buf_t msg = ARB_BUF_INIT;

    if (x->why == NULL)
        return;
    arb_buf_printf(&msg, "match \"%s\": ", r->id);
    if (seq != UINT64_MAX)
        arb_buf_printf(&msg, "seq %" PRIu64 ": ", seq);
    arb_buf_puts(&msg, arb_buf_cstr(x->why) ? arb_buf_cstr(x->why) : "");
    arb_buf_free(x->why);
    *x->why = msg;
}

static int
refuse(rmatch_t *r, uint64_t seq, const arb_verdict_t *v)
{
    r->refused = 1;
    r->bad_seq = seq;
    r->v = *v;
    return 0;
}

static int
open_one(ctx_t *x, rmatch_t *r, const void *bytes, size_t len)
{
    arb_event_t ev;
    int         rc;

    rc = arb_event_decode(&ev, bytes, len, x->why);
    if (rc != 0) {
        name_match(x, r, 0);
        return rc;
    }
    if (ev.kind != ARB_EV_OPEN || ev.seq != 0) {
        arb_buf_free(x->why);
        arb_buf_printf(x->why, "match \"%s\": seq 0: expected the open, "
                       "found a %s event numbered %" PRIu64, r->id,
                       arb_event_kind_name(ev.kind), ev.seq);
        arb_event_clear(&ev);
        return ARB_ECORRUPT;
    }
    /* Only the history path reveals a stored deal. */
    if (ev.setup != NULL && ev.setup->deal.kind == ARB_DEAL_COMMIT)
        r->slow = 1;
    else if ((rc = arb_match_open(&r->m, &ev, &x->v)) == 0)
        rc = arb_match_lean(r->m);
    arb_event_clear(&ev);
    if (rc == ARB_ENOMEM)
        return rc;
    if (rc != 0)
        return refuse(r, 0, &x->v);
    r->applied = 1;
    return 0;
}

/* Replays the record at log position pos: id (idlen bytes, NUL ended)
 * hashes to h; hint is find()'s. */
static int
replay_rec(ctx_t *x, uint64_t pos, const char *id, size_t idlen, size_t h,
           rmatch_t *hint, uint64_t seq, const void *bytes, size_t len)
{
    rmatch_t          *r;
    const arb_event_t *ev;
    int                rc;

    r = find(x, id, idlen, h, hint);
    if (r == NULL)
        return ARB_ENOMEM;
    if (seq != r->next) {
        arb_buf_free(x->why);
        arb_buf_printf(x->why, "log position %" PRIu64 ": match \"%s\" seq %"
                       PRIu64 " where seq %" PRIu64 " belongs", pos, r->id,
                       seq, r->next);
        return ARB_ECORRUPT;
    }
    r->next++;
    if (r->slow || r->refused)
        return 0;
    if (seq == 0)
        return open_one(x, r, bytes, len);
    rc = arb_event_decode_scratch(&x->sc, bytes, len, x->why, &ev);
    if (rc == 0 && (ev->seq != seq || ev->kind == ARB_EV_OPEN)) {
        arb_buf_free(x->why);
        arb_buf_printf(x->why, "found a%s %s event numbered %" PRIu64,
                       ev->kind == ARB_EV_OPEN ? "n" : "",
                       arb_event_kind_name(ev->kind), ev->seq);
        rc = ARB_ECORRUPT;
    }
    if (rc != 0) {
        name_match(x, r, seq);
        return rc;
    }
    rc = arb_match_apply(r->m, ev, &x->v);
    if (rc == ARB_EAGAIN) {
        /* A ruling rebuilds from the moves, which a lean match does not
         * keep: this match is replayed again from its history. */
        arb_match_free(r->m);
        r->m = NULL;
        x->nevents -= r->applied - 1;       /* its opens count later */
        r->applied = 0;
        r->slow = 1;
        return 0;
    }
    if (rc == ARB_ENOMEM)
        return rc;
    if (rc != 0)
        return refuse(r, seq, &x->v);
    r->applied++;
    x->nevents++;
    return 0;
}

static int
replay_pend(ctx_t *x)
{
    pend_t *p = &x->ring[x->tail++ % AHEAD];

    return replay_rec(x, p->pos, p->id, p->idlen, p->hash, p->r, p->seq,
                      p->bytes, p->len);
}

static int
drain(ctx_t *x)
{
    int rc = 0;

    while (rc == 0 && x->tail < x->head)
        rc = replay_pend(x);
    return rc;
}

/* The record read `age` records ago, or NULL when already replayed. */
static pend_t *
waiting(ctx_t *x, uint64_t age)
{
    return x->head - x->tail > age ? &x->ring[(x->head - 1 - age) % AHEAD]
                                   : NULL;
}

/* Where the match hashed to h probably is (no id compared: a hint). */
static rmatch_t *
guess(const ctx_t *x, size_t h)
{
    size_t j;

    if (x->cap == 0)
        return NULL;
    for (j = h & (x->cap - 1); x->slot[j].r != NULL;
         j = (j + 1) & (x->cap - 1))
        if (x->slot[j].hash == h)
            return x->slot[j].r;
    return NULL;
}

/* Keeps the record to replay AHEAD records later, and moves the records
 * waiting one step further into memory. */
static int
on_rec(void *ud, const arb__rec_t *rec)
{
    ctx_t  *x = ud;
    pend_t *p;
    size_t  n = rec->idlen;
    int     rc;

    if (x->head - x->tail == AHEAD && (rc = replay_pend(x)) != 0)
        return rc;
    p = &x->ring[x->head++ % AHEAD];
    p->pos = rec->pos;
    p->seq = rec->seq;
    p->idlen = n;
    p->len = rec->len;
    p->bytes = rec->bytes;
    p->r = NULL;
    /* The id is followed in its record by the event (and a client id): two
     * words copy a short one when that many bytes are there. */
    if (n <= 16 && n + rec->cidlen + rec->glen + rec->len >= 16)
        memcpy(p->id, rec->id, 16);
    else
        memcpy(p->id, rec->id, n);
    p->id[n] = '\0';
    p->hash = (size_t)arb_id_hash(p->id, n);
    if (x->cap > 0)
        __builtin_prefetch(&x->slot[p->hash & (x->cap - 1)]);
    /* One link further for the records read STEP, 2 STEP, 3 STEP ago. */
    if ((p = waiting(x, STEP)) != NULL
        && (p->r = guess(x, p->hash)) != NULL)
        __builtin_prefetch(p->r);
    if ((p = waiting(x, 2 * STEP)) != NULL && p->r != NULL
        && p->r->m != NULL)
        __builtin_prefetch(p->r->m);
    if ((p = waiting(x, 3 * STEP)) != NULL && p->r != NULL
        && p->r->m != NULL)
        arb_match_prefetch(p->r->m);
    return 0;
}

/* The end of the walk, inside its snapshot: the records still waiting,
 * which come before a record that could not be read (rc), so that an
 * error of theirs is the one reported. */
static int
on_end(void *ud, int rc)
{
    int rc2 = drain(ud);

    return rc2 != 0 ? rc2 : rc;
}

/* A match with a committed deal or a ruling, through its history: the
 * one path that reveals a stored deal and keeps the moves a ruling
 * rebuilds from. */
static int
replay_slow(ctx_t *x, rmatch_t *r)
{
    arb_history_t h;
    size_t        bad = 0;
    int           rc;

    memset(&h, 0, sizeof(h));
    rc = arb_history_load(&h, x->s, r->id, UINT64_MAX, x->why);
    if (rc != 0)
        name_match(x, r, UINT64_MAX);
    if (rc == 0) {
        rc = arb_history_replay(&h, UINT64_MAX, &r->m, &bad, &r->v);
        if (rc != 0) {
            r->refused = 1;
            r->bad_seq = r->m == NULL ? 0 : h.events[bad].seq;
            r->applied = r->m == NULL ? 0 : bad + 1;
            rc = 0;
        } else {
            r->applied = h.nevents + 1;
        }
        x->nevents += r->applied;
    }
    arb_history_clear(&h);
    return rc;
}

static int
by_id(const void *a, const void *b)
{
    const rmatch_t *const *x = a, *const *y = b;

    return strcmp((*x)->id, (*y)->id);
}

int
arb_replay_all(arb_store_t *s, arb_replay_all_cb cb, void *ud,
               uint64_t *nevents, arb_buf_t *why)
{
    ctx_t          x;
    arb_replayed_t out;
    rmatch_t     **list = NULL;
    size_t         i, k = 0;
    int            rc;

    memset(&x, 0, sizeof(x));
    x.s = s;
    x.why = why;
    rc = arb__log_walk(s, 1, 0, on_rec, on_end, &x, why);
    if (rc == ARB_ENOMEM && why != NULL && why->len == 0)
        arb_buf_puts(why, "out of memory");
    /* Opens count as replayed events; the others add theirs below. */
    for (i = 0; i < x.cap; i++)
        if (x.slot[i].r != NULL && !x.slot[i].r->slow)
            x.nevents += x.slot[i].r->applied > 0;
    if (rc == 0 && x.n > 0 && (list = malloc(x.n * sizeof(*list))) == NULL)
        rc = ARB_ENOMEM;
    for (i = 0; rc == 0 && i < x.cap; i++)
        if (x.slot[i].r != NULL)
            list[k++] = x.slot[i].r;
    if (rc == 0 && k > 0)
        qsort(list, k, sizeof(*list), by_id);
    for (i = 0; rc == 0 && i < k; i++) {
        /* The callback reads the whole state (a digest): bring the next
         * match's in while this one is read. */
        if (i + 1 < k && list[i + 1]->m != NULL)
            arb_match_prefetch(list[i + 1]->m);
        if (list[i]->slow)
            rc = replay_slow(&x, list[i]);
        if (rc != 0)
            break;
        memset(&out, 0, sizeof(out));
        out.match_id = list[i]->id;
        out.m = list[i]->m;
        out.events = list[i]->applied;
        out.refused = list[i]->refused;
        out.bad_seq = list[i]->bad_seq;
        out.v = &list[i]->v;
        rc = cb(ud, &out);
    }
    if (nevents != NULL)
        *nevents = x.nevents;
    for (i = 0; i < x.cap; i++)
        if (x.slot[i].r != NULL) {
            arb_match_free(x.slot[i].r->m);
            free(x.slot[i].r);
        }
    free(x.slot);
    free(list);
    arb_event_scratch_free(&x.sc);
    return rc;
}
