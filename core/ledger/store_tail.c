/*
 * store_tail.c - what the log holds past the index mark, indexed in
 * memory.
 *
 * DESIGN: the index is written off the acknowledgement path, so it lags
 * the log.  Readers must not: every record past the mark is kept here
 * with just what a read needs that the log cannot answer by position -
 * each match's summary and the positions of its tail seqs, and each
 * client id's seq and position.  The event bytes stay in the log.  The
 * memory is bounded by the index writer's lag, not by the history: once
 * the index holds a record, arb__tail_trim() forgets it, and a match with
 * no record left in the tail leaves memory.  Two chained hash tables
 * that double when their load passes 1; no iteration order escapes.
 */
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/err.h"
#include "core/fnv.h"
#include "core/ledger/store_int.h"

static uint64_t
hash(const void *p, size_t n)
{
    return arb_fnv1a(p, n, ARB_FNV_SEED);
}

int
arb__tail_init(arb__tail_t *t)
{
    memset(t, 0, sizeof(*t));
    t->lo = 1;
    t->hi = 0;
    t->nmb = t->nib = 1024;
    t->mb = calloc(t->nmb, sizeof(*t->mb));
    t->ib = calloc(t->nib, sizeof(*t->ib));
    if (t->mb == NULL || t->ib == NULL)
        return ARB_ENOMEM;
    if (pthread_mutex_init(&t->lock, NULL) != 0)
        return ARB_ENOMEM;
    t->have_lock = 1;
    if (arb_cond_init(&t->cond) != 0)
        return ARB_ENOMEM;
    t->have_cond = 1;
    return 0;
}

void
arb__tail_free(arb__tail_t *t)
{
    arb__tmatch_t *m, *mn;
    arb__tidem_t  *x, *xn;
    size_t         i;

    for (i = 0; t->mb != NULL && i < t->nmb; i++)
        for (m = t->mb[i]; m != NULL; m = mn) {
            mn = m->next;
            free(m->pos);
            free(m);
        }
    for (i = 0; t->ib != NULL && i < t->nib; i++)
        for (x = t->ib[i]; x != NULL; x = xn) {
            xn = x->next;
            free(x);
        }
    free(t->mb);
    free(t->ib);
    free(t->qm);
    free(t->qi);
    if (t->have_cond)
        pthread_cond_destroy(&t->cond);
    if (t->have_lock)
        pthread_mutex_destroy(&t->lock);
    memset(t, 0, sizeof(*t));
}

arb__tmatch_t *
arb__tail_match(arb__tail_t *t, const char *id, size_t idlen)
{
    arb__tmatch_t *m;

    for (m = t->mb[hash(id, idlen) & (t->nmb - 1)]; m != NULL; m = m->next)
        if (strncmp(m->info.match_id, id, idlen) == 0 &&
            m->info.match_id[idlen] == '\0')
            return m;
    return NULL;
}

static arb__tidem_t *
idem_find(arb__tail_t *t, const unsigned char *k, size_t kl)
{
    arb__tidem_t *x;

    for (x = t->ib[hash(k, kl) & (t->nib - 1)]; x != NULL; x = x->next)
        if (x->klen == kl && memcmp(x->key, k, kl) == 0)
            return x;
    return NULL;
}

arb__tidem_t *
arb__tail_idem(arb__tail_t *t, const char *id, size_t idlen,
               const char *cid, size_t cidlen)
{
    unsigned char k[ARB__IDEMKEY_MAX];

    return idem_find(t, k, arb__idem_key(k, id, idlen, cid, cidlen));
}

uint64_t
arb__tail_pos(const arb__tmatch_t *m, uint64_t seq)
{
    return m->pos[m->off + (size_t)(seq - m->first)];
}

/* Doubles a bucket array when its load passes 1.  Failure to grow only
 * makes chains longer, so it is not an error. */
static void
rehash_matches(arb__tail_t *t)
{
    arb__tmatch_t **nb, *m, *mn;
    size_t          i, nn = t->nmb * 2, h;

    nb = calloc(nn, sizeof(*nb));
    if (nb == NULL)
        return;
    for (i = 0; i < t->nmb; i++)
        for (m = t->mb[i]; m != NULL; m = mn) {
            mn = m->next;
            h = hash(m->info.match_id, strlen(m->info.match_id)) & (nn - 1);
            m->next = nb[h];
            nb[h] = m;
        }
    free(t->mb);
    t->mb = nb;
    t->nmb = nn;
}

static void
rehash_idem(arb__tail_t *t)
{
    arb__tidem_t **nb, *x, *xn;
    size_t         i, nn = t->nib * 2, h;

    nb = calloc(nn, sizeof(*nb));
    if (nb == NULL)
        return;
    for (i = 0; i < t->nib; i++)
        for (x = t->ib[i]; x != NULL; x = xn) {
            xn = x->next;
            h = hash(x->key, x->klen) & (nn - 1);
            x->next = nb[h];
            nb[h] = x;
        }
    free(t->ib);
    t->ib = nb;
    t->nib = nn;
}

static int
queue_push(arb__tail_t *t, arb__tmatch_t *m, arb__tidem_t *x)
{
    size_t i, ncap;

    if (t->qlen == t->qcap) {
        arb__tmatch_t **nm;
        arb__tidem_t  **ni;
        ncap = t->qcap ? t->qcap * 2 : 1024;
        nm = malloc(ncap * sizeof(*nm));
        ni = malloc(ncap * sizeof(*ni));
        if (nm == NULL || ni == NULL) {
            free(nm);
            free(ni);
            return ARB_ENOMEM;
        }
        for (i = 0; i < t->qlen; i++) {
            nm[i] = t->qm[(t->qhead + i) % t->qcap];
            ni[i] = t->qi[(t->qhead + i) % t->qcap];
        }
        free(t->qm);
        free(t->qi);
        t->qm = nm;
        t->qi = ni;
        t->qcap = ncap;
        t->qhead = 0;
    }
    i = (t->qhead + t->qlen) % t->qcap;
    t->qm[i] = m;
    t->qi[i] = x;
    t->qlen++;
    return 0;
}

int
arb__opened_twice(const arb__rec_t *r, arb_buf_t *why)
{
    char rp[ARB__REPR_MAX];

    arb__why(why, "log key %llu: match \"%s\" opened twice",
             (unsigned long long)r->pos, arb__repr(rp, r->id, r->idlen));
    return ARB_ECORRUPT;
}

int
arb__cid_twice(const arb__rec_t *r, arb_buf_t *why)
{
    char rp[ARB__REPR_MAX], rc[ARB__REPR_MAX];

    arb__why(why, "log key %llu: match \"%s\": client id \"%s\" used "
             "twice", (unsigned long long)r->pos,
             arb__repr(rp, r->id, r->idlen), arb__repr(rc, r->cid,
             r->cidlen));
    return ARB_ECORRUPT;
}

int
arb__tail_add(arb__tail_t *t, const arb__rec_t *r,
              const arb_match_info_t *base, arb_buf_t *why)
{
    arb__tmatch_t *m;
    arb__tidem_t  *x = NULL;
    char           rp[ARB__REPR_MAX];
    size_t         h;

    if (r->pos != t->hi + 1) {
        arb__why(why, "log key %llu: the tail ends at %llu",
                 (unsigned long long)r->pos, (unsigned long long)t->hi);
        return ARB_ECORRUPT;
    }
    m = arb__tail_match(t, r->id, r->idlen);
    /* An open of a match the index holds, or one the tail opened. */
    if (r->seq == 0 && (m != NULL || base != NULL))
        return arb__opened_twice(r, why);
    if (m == NULL) {
        if (base == NULL && r->seq != 0) {
            arb__why(why, "log key %llu: match \"%s\" seq %llu has no "
                     "summary", (unsigned long long)r->pos,
                     arb__repr(rp, r->id, r->idlen),
                     (unsigned long long)r->seq);
            return ARB_ECORRUPT;
        }
        m = calloc(1, sizeof(*m));
        if (m == NULL)
            goto oom;
        if (base != NULL && r->seq != 0)
            m->info = *base;
        memcpy(m->info.match_id, r->id, r->idlen);
        m->first = r->seq;
        if (t->nm >= t->nmb)
            rehash_matches(t);
        h = hash(r->id, r->idlen) & (t->nmb - 1);
        m->next = t->mb[h];
        t->mb[h] = m;
        t->nm++;
    }
    if (r->seq == 0) {
        memcpy(m->info.game, r->game, r->glen);
        m->info.game[r->glen] = '\0';
        m->info.created_ms = r->time_ms;
        t->new_matches++;
    } else if (r->seq != m->info.last_seq + 1) {
        arb__why(why, "log key %llu: match \"%s\" seq %llu follows %llu",
                 (unsigned long long)r->pos, arb__repr(rp, r->id, r->idlen),
                 (unsigned long long)r->seq,
                 (unsigned long long)m->info.last_seq);
        return ARB_ECORRUPT;
    }
    if (m->off + m->npos == m->cap) {
        if (m->off > 0 && m->off >= m->npos) {
            memmove(m->pos, m->pos + m->off, m->npos * sizeof(*m->pos));
            m->off = 0;
        } else {
            size_t    nc = m->cap ? m->cap * 2 : 4;
            uint64_t *np = realloc(m->pos, nc * sizeof(*np));
            if (np == NULL)
                goto oom;
            m->pos = np;
            m->cap = nc;
        }
    }
    if (r->cidlen > 0) {
        unsigned char k[ARB__IDEMKEY_MAX];
        size_t        kl = arb__idem_key(k, r->id, r->idlen, r->cid,
                                         r->cidlen);
        if (idem_find(t, k, kl) != NULL)
            return arb__cid_twice(r, why);
        /* Sized to its key: a record's one allocation, no clearing. */
        x = malloc(sizeof(*x) + kl);
        if (x == NULL)
            goto oom;
        memcpy(x->key, k, kl);
        x->klen = kl;
        x->seq = r->seq;
        x->pos = r->pos;
        x->next = NULL;
    }
    if (queue_push(t, m, x) != 0) {
        free(x);
        goto oom;
    }
    if (x != NULL) {
        if (t->ni >= t->nib)
            rehash_idem(t);
        h = hash(x->key, x->klen) & (t->nib - 1);
        x->next = t->ib[h];
        t->ib[h] = x;
        t->ni++;
    }
    m->pos[m->off + m->npos++] = r->pos;
    m->info.last_seq = r->seq;
    m->info.count = r->seq + 1;
    memcpy(m->info.head, r->hash, ARB_HASH_LEN);
    m->info.last_ms = r->time_ms;
    if (r->flags & LR_CLOSES)
        m->info.closed = 1;
    t->hi = r->pos;
    return 0;
oom:
    arb__why(why, "out of memory (the tail holds %zu records)", t->qlen);
    return ARB_ENOMEM;
}

static void
drop_match(arb__tail_t *t, arb__tmatch_t *m)
{
    arb__tmatch_t **pp;

    pp = &t->mb[hash(m->info.match_id, strlen(m->info.match_id)) &
                (t->nmb - 1)];
    for (; *pp != NULL; pp = &(*pp)->next)
        if (*pp == m) {
            *pp = m->next;
            break;
        }
    t->nm--;
    free(m->pos);
    free(m);
}

static void
drop_idem(arb__tail_t *t, arb__tidem_t *x)
{
    arb__tidem_t **pp;

    for (pp = &t->ib[hash(x->key, x->klen) & (t->nib - 1)]; *pp != NULL;
         pp = &(*pp)->next)
        if (*pp == x) {
            *pp = x->next;
            break;
        }
    t->ni--;
    free(x);
}

void
arb__tail_trim(arb__tail_t *t, uint64_t pos)
{
    arb__tmatch_t *m;

    while (t->qlen > 0 && t->lo <= pos) {
        m = t->qm[t->qhead];
        if (t->qi[t->qhead] != NULL)
            drop_idem(t, t->qi[t->qhead]);
        t->qhead = (t->qhead + 1) % t->qcap;
        t->qlen--;
        if (m->first == 0 && t->new_matches > 0)
            t->new_matches--;
        m->first++;
        m->off++;
        m->npos--;
        if (m->npos == 0)
            drop_match(t, m);
        t->lo++;
    }
    if (t->qlen == 0) {
        /* Nothing held: the tail starts right past the mark. */
        if (pos > t->hi)
            t->hi = pos;
        t->lo = t->hi + 1;
    }
}
