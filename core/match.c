#include <stdlib.h>
#include <string.h>

#include "core/board.h"
#include "core/claim.h"
#include "core/codec.h"
#include "core/diff.h"
#include "core/deal.h"
#include "core/json.h"
#include "core/err.h"
#include "core/match.h"

/* One recorded event, compactly.  The rule sets read only a move's kind,
 * seq, player, verb and args, so that is all a match keeps of an event
 * (no allocation per event): for a move, an amend or a stands, the
 * strings "player\0verb\0arg0\0arg1\0..." in the match's one arena,
 * read back only when a ruling rebuilds the state.  A ruling (void,
 * amend, stands) also keeps its reason and its target after them
 * ("reason\0" and 8 bytes), for the reports that list the rulings
 * (arb_match_rulings): rulings are rare, moves pay nothing for it. */
enum { E_PLAYER = 1, E_VERB = 2, E_RULING = 4 };
typedef struct entry {
    uint64_t off;               /* its strings in m->moves */
    uint64_t ruled_by;          /* seq of the ruling event */
    uint32_t replaced;          /* AMENDED: index of the AMEND in force */
    uint16_t nargs;
    uint8_t  kind;              /* enum arb_event_kind */
    uint8_t  ruling;            /* enum arb_ruling */
    uint8_t  has;               /* E_PLAYER | E_VERB: which strings */
} entry_t;

/* What every applied event reads comes first, in one cache line. */
struct arb_match {
    const arb_rules_t *rules;
    void              *st;
    int                closed;
    int                lean;        /* keeps no entries (arb_match_lean) */
    size_t             n, cap;  /* entries[0] is seq 1 */
    entry_t           *entries;
    arb_setup_t        setup;
    arb_buf_t          moves;   /* the entries' strings */
    uint64_t           claim_seq;   /* the latest claim event, 0 = none */
    arb_event_t        claim_ev;    /* ... as recorded */
    arb_claim_t        claim;       /* what it claims */
    uint64_t          *undos;       /* targets of undo-request notes, */
    size_t             nundo, capundo;  /* in the notes' order, until a
                                           ruling on the target */
    uint64_t           nmoves;      /* moves and stands applied */
    uint64_t          *ruled;       /* targets of voids and amends, which */
    size_t             nruled, capruled;    /* answer undo requests */
};

void
arb_match_free(arb_match_t *m)
{
    if (m == NULL)
        return;
    if (m->rules != NULL)
        m->rules->destroy(m->st);
    arb_setup_clear(&m->setup);
    free(m->entries);
    free(m->undos);
    free(m->ruled);
    arb_buf_free(&m->moves);
    arb_event_clear(&m->claim_ev);
    arb_claim_clear(&m->claim);
    free(m);
}

int
arb_match_open(arb_match_t **out, const arb_event_t *open, arb_verdict_t *v)
{
    arb_match_t *m;
    int          rc;

    *out = NULL;
    v->code = 0;
    if (open->kind != ARB_EV_OPEN || open->setup == NULL)
        return arb_verdict(v, ARB_EINVAL, "open",
                           "a match starts with its open event (the header)");
    m = calloc(1, sizeof(*m));
    if (m == NULL)
        return ARB_ENOMEM;
    m->rules = arb_rules_find(open->setup->game);
    if (m->rules == NULL) {
        rc = arb_verdict(v, ARB_EUNSUPP, "open", "unknown game '%s'",
                         open->setup->game ? open->setup->game : "");
        goto fail;
    }
    /* The recorded edition is judged by the rule set's create(): it may
     * still read older editions of its own (core/rules/reading.h). */
    rc = arb_setup_copy(&m->setup, open->setup);
    if (rc != 0)
        goto fail;
    rc = m->rules->create(&m->st, &m->setup, v);
    if (rc != 0) {
        m->rules->destroy(m->st);
        m->st = NULL;
        m->rules = NULL;
        goto fail;
    }
    *out = m;
    return 0;

fail:
    if (rc == ARB_ENOMEM)
        arb_verdict(v, ARB_ENOMEM, "open", "out of memory");
    if (m->rules != NULL && m->st == NULL)
        m->rules = NULL;
    arb_match_free(m);
    return rc;
}

/* Rule states keep what a move reads at their start (yahchain.c); a
 * prefetch past the end of one reads nothing and cannot fault.  Four
 * lines: a whole kilobyte (16) made `replay --db` 3-5% slower, in
 * alternating runs of 2,000 matches, and 128 bytes was no faster. */
#define PREFETCH_BYTES 256

void
arb_match_prefetch(const arb_match_t *m)
{
    const char *st = m->st;
    size_t      off;

    if (st == NULL)
        return;
    for (off = 0; off < PREFETCH_BYTES; off += 64)
        __builtin_prefetch(st + off);
}

uint64_t
arb_match_next_seq(const arb_match_t *m)
{
    return (uint64_t)m->n + 1;
}

const arb_setup_t *
arb_match_setup(const arb_match_t *m)
{
    return &m->setup;
}

const arb_rules_t *
arb_match_rules(const arb_match_t *m)
{
    return m->rules;
}

int
arb_match_closed(const arb_match_t *m)
{
    return m->closed;
}

int
arb_match_finished(const arb_match_t *m)
{
    return m->closed || m->rules->finished(m->st);
}

int
arb_match_played_out(const arb_match_t *m)
{
    return m->rules->finished(m->st);
}

/* The entry whose event entry i contributes "as ruled", or NULL when it
 * contributes none (voided, a note, a ruling). */
static const entry_t *
effective(const arb_match_t *m, size_t i, int *flags)
{
    const entry_t *e = &m->entries[i];

    *flags = 0;
    if (e->ruling == ARB_RULED_VOID)
        return NULL;
    if (e->ruling == ARB_RULED_AMENDED)
        return &m->entries[e->replaced];
    if (e->kind == ARB_EV_STANDS) {
        *flags = ARB_APPLY_FORCE;
        return e;
    }
    return e->kind == ARB_EV_MOVE ? e : NULL;
}

/* The move of entry e as the rule sets see it; args is room for
 * e->nargs pointers.  Returns where its strings end in the arena. */
static char *
unpack(const arb_match_t *m, const entry_t *e, arb_event_t *ev, char **args)
{
    char  *p = m->moves.data + e->off;
    size_t i;

    memset(ev, 0, sizeof(*ev));
    ev->kind = e->kind;
    if (e->has & E_PLAYER) {
        ev->player = p;
        p += strlen(p) + 1;
    }
    if (e->has & E_VERB) {
        ev->verb = p;
        p += strlen(p) + 1;
    }
    for (i = 0; i < e->nargs; i++) {
        args[i] = p;
        p += strlen(p) + 1;
    }
    ev->nargs = e->nargs;
    ev->args = e->nargs > 0 ? args : NULL;
    return p;
}

/* Rebuilds the rule state as ruled, with entry `skip` voided or replaced
 * by `with` (a move event).  On success *out holds the new state. */
static int
rebuild(const arb_match_t *m, size_t skip, const arb_event_t *with,
        void **out, arb_verdict_t *v)
{
    const entry_t *e;
    arb_event_t    tmp;
    char         **args;
    void          *st = NULL;
    size_t         i, nargs;
    int            rc, flags;

    for (i = 0, nargs = 1; i < m->n; i++)
        if (m->entries[i].nargs > nargs)
            nargs = m->entries[i].nargs;
    args = malloc(nargs * sizeof(*args));
    if (args == NULL)
        return arb_verdict(v, ARB_ENOMEM, "ruling", "out of memory");
    rc = m->rules->create(&st, &m->setup, v);
    if (rc != 0)
        goto fail;
    for (i = 0; i < m->n; i++) {
        if (i == skip) {
            if (with == NULL)
                continue;
            tmp = *with;
            flags = 0;
        } else {
            e = effective(m, i, &flags);
            if (e == NULL)
                continue;
            unpack(m, e, &tmp, args);
        }
        tmp.seq = (uint64_t)i + 1;
        rc = m->rules->apply(st, &tmp, flags, v);
        if (rc != 0) {
            arb_verdict_t why = *v;
            arb_verdict(v, rc, why.rule, "seq %zu would no longer stand: %s",
                        i + 1, why.msg);
            goto fail;
        }
    }
    free(args);
    *out = st;
    return 0;

fail:
    free(args);
    m->rules->destroy(st);
    return rc;
}

static int
push(arb_match_t *m, const arb_event_t *ev)
{
    entry_t *ne;
    size_t   start = m->moves.len, i;
    int      ruling = ev->kind == ARB_EV_VOID || ev->kind == ARB_EV_AMEND
                      || ev->kind == ARB_EV_STANDS;
    int      keep = ev->kind == ARB_EV_MOVE || ev->kind == ARB_EV_AMEND
                    || ev->kind == ARB_EV_STANDS;

    if (m->lean) {
        m->n++;         /* no ruling can come: nothing to rebuild from */
        return 0;
    }
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        ne = realloc(m->entries, cap * sizeof(*ne));
        if (ne == NULL)
            return ARB_ENOMEM;
        m->entries = ne;
        m->cap = cap;
    }
    if (keep && ev->nargs > 65535)
        return ARB_ETOOBIG;
    ne = &m->entries[m->n];
    memset(ne, 0, sizeof(*ne));
    ne->kind = (uint8_t)ev->kind;
    ne->off = start;
    if (keep) {
        if (ev->player != NULL) {
            arb_buf_add(&m->moves, ev->player, strlen(ev->player) + 1);
            ne->has |= E_PLAYER;
        }
        if (ev->verb != NULL) {
            arb_buf_add(&m->moves, ev->verb, strlen(ev->verb) + 1);
            ne->has |= E_VERB;
        }
        for (i = 0; i < ev->nargs; i++)
            arb_buf_add(&m->moves, ev->args[i], strlen(ev->args[i]) + 1);
        ne->nargs = (uint16_t)ev->nargs;
    }
    if (ruling) {
        /* (A ruling always has its reason: arb_match_apply checks.) */
        arb_buf_add(&m->moves, ev->text, strlen(ev->text) + 1);
        arb_buf_add(&m->moves, &ev->target, sizeof(ev->target));
        ne->has |= E_RULING;
    }
    if (m->moves.oom) {
        m->moves.oom = 0;
        m->moves.len = start;
        return ARB_ENOMEM;
    }
    m->n++;
    return 0;
}

/* Finds the move a ruling targets. */
static int
target_of(const arb_match_t *m, const arb_event_t *ev, size_t *idx,
          arb_verdict_t *v)
{
    const entry_t *t;

    /* (Until 2026-12-06 "the match has moves 1..N": events, notes too,
     * and "1..0" before any.) */
    if (ev->target == 0 || ev->target > m->n)
        return m->n == 0
               ? arb_verdict(v, ARB_ENOTFOUND, "ruling", "%s names seq "
                             "%llu, but the match has no event after its "
                             "open", arb_event_kind_name(ev->kind),
                             (unsigned long long)ev->target)
               : arb_verdict(v, ARB_ENOTFOUND, "ruling", "%s names seq "
                             "%llu, but the match's events after its open "
                             "are seq 1..%zu",
                             arb_event_kind_name(ev->kind),
                             (unsigned long long)ev->target, m->n);
    t = &m->entries[ev->target - 1];
    if (t->kind != ARB_EV_MOVE && t->kind != ARB_EV_STANDS)
        return arb_verdict(v, ARB_EINVAL, "ruling",
                           "seq %llu is %s %s, not a move: only moves can "
                           "be voided or amended",
                           (unsigned long long)ev->target,
                           t->kind == ARB_EV_AMEND ? "an" : "a",
                           arb_event_kind_name(t->kind));
    if (t->ruling == ARB_RULED_VOID)
        return arb_verdict(v, ARB_EINVAL, "ruling",
                           "seq %llu was already voided at seq %llu",
                           (unsigned long long)ev->target,
                           (unsigned long long)t->ruled_by);
    *idx = ev->target - 1;
    return 0;
}

/* A claim must carry a readable claim in canonical form: stored bytes are
 * hashed, and its statuses are recomputed from it on every replay. */
static int
judge_claim(const arb_event_t *ev, arb_claim_t *out, arb_verdict_t *v)
{
    arb_buf_t why = ARB_BUF_INIT;
    int       rc;

    if (ev->player != NULL && !arb_name_valid(ev->player))
        return arb_verdict(v, ARB_EINVAL, "claim", "'%s' is not a name "
                           "(1..64 of A-Z a-z 0-9 _ . @ + -)", ev->player);
    rc = arb_claim_from_event(out, ev, &why);
    if (rc != 0) {
        rc = rc == ARB_ENOMEM ? ARB_ENOMEM : ARB_EINVAL;
        arb_verdict(v, rc, "claim", "%s", why.oom || why.len == 0
                    ? "out of memory" : arb_buf_cstr(&why));
    }
    arb_buf_free(&why);
    return rc;
}

/* A committed deal (seed_hash set at open) must be revealed by the close
 * that seals the match, and the reveal must open the commitment.  The
 * commitment hashes the secret alone, so where the match holds the deal
 * (the recorder's) the reveal must also be of its kind: an order's text
 * opens it as a seed too, and replay would shuffle that into another
 * deal than the one the moves were judged with (until 2026-12-07 such a
 * close was recorded). */
static int
check_reveal(const arb_match_t *m, const arb_event_t *ev, arb_verdict_t *v)
{
    static const unsigned char zero[ARB_HASH_LEN];
    int committed = memcmp(m->setup.deal.seed_hash, zero, ARB_HASH_LEN) != 0;
    const char *held = m->setup.deal.kind == ARB_DEAL_SEED ? "seed"
                       : m->setup.deal.kind == ARB_DEAL_ORDER ? "order"
                       : NULL;

    if (ev->nargs == 0 && !committed)
        return 0;
    if (ev->nargs == 0)
        return arb_verdict(v, ARB_EINVAL, "deal",
                           "the deal was committed at open: the close must "
                           "reveal it (close seed <text> | order <cards>)");
    if (!committed)
        return arb_verdict(v, ARB_EINVAL, "deal",
                           "the deal was not committed at open: nothing to "
                           "reveal");
    if (ev->nargs != 2)
        return arb_verdict(v, ARB_EINVAL, "deal",
                           "a reveal is 'seed <text>' or 'order <cards>' "
                           "(two arguments), got %zu", ev->nargs);
    if (held != NULL && ev->args[0] != NULL && strcmp(ev->args[0], held) != 0)
        return arb_verdict(v, ARB_EINVAL, "deal",
                           "the deal was committed as %s: the close "
                           "reveals it as '%s'", *held == 's' ? "a seed"
                           : "an order", *held == 's' ? "seed <text>"
                           : "order <cards>");
    return arb_deal_check(m->setup.deal.seed_hash, ev->args[0], ev->args[1],
                          v);
}

/* 1 when a void or an amend of seq `target` has been applied. */
static int
ruled(const arb_match_t *m, uint64_t target)
{
    size_t i;

    for (i = 0; i < m->nruled; i++)
        if (m->ruled[i] == target)
            return 1;
    return 0;
}

/* The undo requests of `target` are answered: off the list. */
static void
drop_undo(arb_match_t *m, uint64_t target)
{
    size_t i, k = 0;

    for (i = 0; i < m->nundo; i++)
        if (m->undos[i] != target)
            m->undos[k++] = m->undos[i];
    m->nundo = k;
}

int
arb_match_apply(arb_match_t *m, const arb_event_t *in, arb_verdict_t *v)
{
    arb_event_t ev = *in;
    arb_claim_t claim;
    void       *st = NULL;
    size_t      idx = 0;
    uint64_t    undo;
    int         rc;

    v->code = 0;
    memset(&claim, 0, sizeof(claim));
    if (ev.seq == 0)
        ev.seq = arb_match_next_seq(m);
    if (ev.seq != arb_match_next_seq(m))
        return arb_verdict(v, ARB_EINVAL, "seq",
                           "event seq %llu out of order: the next is %llu",
                           (unsigned long long)ev.seq,
                           (unsigned long long)arb_match_next_seq(m));
    /* A closed match is a sealed scoresheet: no move or ruling may follow.
     * Claims may, because results are registered with the rating body
     * after the match; they change no game state, only the verdicts. */
    if (m->closed && ev.kind != ARB_EV_CLAIM)
        return arb_verdict(v, ARB_EOVER, "close",
                           "the match is closed: nothing may follow");
    if ((ev.kind == ARB_EV_VOID || ev.kind == ARB_EV_AMEND
         || ev.kind == ARB_EV_STANDS) && (ev.text == NULL || *ev.text == 0))
        return arb_verdict(v, ARB_EINVAL, "ruling",
                           "a %s is an arbiter's ruling and needs a reason",
                           arb_event_kind_name(ev.kind));
    /* Before anything changes: the caller replays it with its history. */
    if (m->lean && (ev.kind == ARB_EV_VOID || ev.kind == ARB_EV_AMEND
                    || ev.kind == ARB_EV_STANDS))
        return arb_verdict(v, ARB_EAGAIN, "ruling", "a %s needs the "
                           "match's history, which this copy does not keep",
                           arb_event_kind_name(ev.kind));

    switch (ev.kind) {
    case ARB_EV_MOVE:
        rc = m->rules->apply(m->st, &ev, 0, v);
        if (rc != 0)
            return rc;
        break;

    case ARB_EV_STANDS:
        rc = m->rules->apply(m->st, &ev, ARB_APPLY_FORCE, v);
        if (rc == 0 && v->code == 0) {
            /* Applied cleanly: the move was legal after all.  Undoing it
             * needs a rebuild, so judge on a rebuilt copy instead. */
            m->rules->destroy(m->st);
            m->st = NULL;
            rc = rebuild(m, (size_t)-1, NULL, &st, v);
            if (rc != 0)
                return rc;      /* unreachable unless out of memory */
            m->st = st;
            return arb_verdict(v, ARB_EINVAL, "ruling",
                               "the move is legal: record it as a move, "
                               "not as an illegal move that stands");
        }
        if (rc != 0)
            return rc;
        break;

    case ARB_EV_VOID:
    case ARB_EV_AMEND:
        rc = target_of(m, &ev, &idx, v);
        if (rc != 0)
            return rc;
        rc = rebuild(m, idx, ev.kind == ARB_EV_AMEND ? &ev : NULL, &st, v);
        if (rc != 0)
            return rc;
        if (m->nruled == m->capruled) {     /* room, as for undos */
            size_t    cap = m->capruled ? m->capruled * 2 : 4;
            uint64_t *r = realloc(m->ruled, cap * sizeof(*r));
            if (r == NULL) {
                m->rules->destroy(st);
                return ARB_ENOMEM;
            }
            m->ruled = r;
            m->capruled = cap;
        }
        break;

    case ARB_EV_CLAIM:
        rc = judge_claim(&ev, &claim, v);
        if (rc != 0)
            return rc;
        break;

    case ARB_EV_CLOSE:
        rc = check_reveal(m, &ev, v);
        if (rc != 0)
            return rc;
        break;

    case ARB_EV_NOTE:
        /* An undo request (core/board.h) is kept for the director's
         * board; room first, so that nothing fails after the push. */
        if (arb_undo_note_seq(ev.text, &undo) == 0
            && m->nundo == m->capundo) {
            size_t    cap = m->capundo ? m->capundo * 2 : 4;
            uint64_t *u = realloc(m->undos, cap * sizeof(*u));
            if (u == NULL)
                return ARB_ENOMEM;
            m->undos = u;
            m->capundo = cap;
        }
        break;

    default:
        return arb_verdict(v, ARB_EINVAL, "event",
                           "a %s event cannot follow the open",
                           arb_event_kind_name(ev.kind));
    }

    rc = push(m, &ev);
    if (rc == 0 && (ev.kind == ARB_EV_MOVE || ev.kind == ARB_EV_STANDS))
        m->nmoves++;
    /* (A request of a move voided or amended already is answered.) */
    if (rc == 0 && ev.kind == ARB_EV_NOTE
        && arb_undo_note_seq(ev.text, &undo) == 0 && !ruled(m, undo))
        m->undos[m->nundo++] = undo;    /* room made above */
    /* A request declined is answered: it leaves the board (until
     * 2026-12-06 only a void or an amend did, and a request refused stood
     * at the top of the board, closed match or not).  A void or an amend
     * of the move answers it too, here as well as in the entries: a match
     * that keeps no moves (a live one, a copy) cannot ask them (until
     * 2026-12-06 a copy's board showed a voided move's request open). */
    if (rc == 0 && ev.kind == ARB_EV_NOTE
        && arb_undo_declined_seq(ev.text, &undo) == 0)
        drop_undo(m, undo);
    if (rc == 0 && (ev.kind == ARB_EV_VOID || ev.kind == ARB_EV_AMEND)) {
        m->ruled[m->nruled++] = ev.target;  /* room made above */
        drop_undo(m, ev.target);
    }
    if (rc == 0 && ev.kind == ARB_EV_CLAIM) {
        arb_event_t copy;
        rc = arb_event_copy(&copy, &ev);
        if (rc == 0) {
            /* The latest claim is the claimant's word: it replaces any
             * earlier one (which stays in the log). */
            arb_claim_clear(&m->claim);
            arb_event_clear(&m->claim_ev);
            m->claim = claim;
            m->claim_ev = copy;
            m->claim_seq = ev.seq;
        } else {
            m->n--;
        }
    }
    if (rc != 0) {
        m->rules->destroy(st);
        if (ev.kind == ARB_EV_CLAIM)
            arb_claim_clear(&claim);
        return rc == ARB_ENOMEM ? rc : arb_verdict(v, rc, "event",
                                                  "a move has at most "
                                                  "65535 arguments");
    }
    if (st != NULL) {
        entry_t *t = &m->entries[idx];
        m->rules->destroy(m->st);
        m->st = st;
        t->ruled_by = ev.seq;
        if (ev.kind == ARB_EV_VOID) {
            t->ruling = ARB_RULED_VOID;
        } else {
            t->ruling = ARB_RULED_AMENDED;
            t->replaced = (uint32_t)(m->n - 1);
        }
    }
    if (ev.kind == ARB_EV_STANDS) {
        m->entries[m->n - 1].ruling = ARB_RULED_STANDS;
        m->entries[m->n - 1].ruled_by = ev.seq;
    }
    if (ev.kind == ARB_EV_CLOSE)
        m->closed = 1;
    return 0;
}

int
arb_match_claim_totals(const arb_match_t *m, const arb_results_t *r,
                       arb_total_diff_cb cb, void *ud)
{
    const arb_results_t *c = &m->claim.res;
    const int64_t       *got;
    size_t               i, j;
    int                  n = 0;

    if (m->claim_seq == 0)
        return 0;
    for (i = 0; i < c->ntotals; i++) {
        for (j = 0; j < r->ntotals; j++)
            if (strcmp(c->totals[i].name, r->totals[j].name) == 0)
                break;
        got = j < r->ntotals ? &r->totals[j].points : NULL;
        if (got == NULL || c->totals[i].points != *got) {
            n++;
            if (cb != NULL && cb(ud, c->totals[i].name,
                                 &c->totals[i].points, got) != 0)
                return ARB_ENOMEM;
        }
    }
    for (j = 0; j < r->ntotals; j++) {
        for (i = 0; i < c->ntotals; i++)
            if (strcmp(c->totals[i].name, r->totals[j].name) == 0)
                break;
        if (i == c->ntotals) {
            n++;
            if (cb != NULL && cb(ud, r->totals[j].name, NULL,
                                 &r->totals[j].points) != 0)
                return ARB_ENOMEM;
        }
    }
    return n;
}

int
arb_match_claim_totals_differ(const arb_match_t *m, const arb_results_t *r)
{
    return arb_match_claim_totals(m, r, NULL, NULL) > 0;
}

int
arb_match_claim_extras(const arb_match_t *m, const arb_results_t *r)
{
    arb_diff_t d;
    size_t     i;
    int        n = 0;

    if (m->claim_seq == 0)
        return 0;
    if (arb_diff_run(&d, m->rules->game, r, &m->claim.res) != 0)
        return ARB_ENOMEM;
    for (i = 0; i < d.n; i++)
        n += d.items[i].kind == ARB_DIFF_EXTRA;
    arb_diff_clear(&d);
    return n;
}

/* Counted as applied, so that a match keeping no moves knows too (until
 * 2026-12-06 a lean match counted a note as a move: a live table or a
 * copy with only a note showed "playing"). */
int
arb_match_has_moves(const arb_match_t *m)
{
    return m->nmoves > 0;
}

int
arb_match_ruling(const arb_match_t *m, uint64_t seq, uint64_t *by)
{
    const entry_t *e;

    if (seq == 0 || seq > m->n || m->lean)
        return ARB_RULED_NONE;      /* a lean match has seen no ruling */
    e = &m->entries[seq - 1];
    if (by != NULL)
        *by = e->ruled_by;
    return e->ruling;
}

/* 0 while the ruling of entry i is in force, else the seq of the
 * ruling that took it out: a later amend or void of the same move (for
 * an amend), a void or amend of the standing move (for a stands).  A
 * void is final: its move cannot be ruled on again. */
static uint64_t
undone_by(const arb_match_t *m, size_t i, uint64_t target)
{
    const entry_t *e = &m->entries[i], *t;

    if (e->kind == ARB_EV_STANDS)
        return e->ruling == ARB_RULED_STANDS ? 0 : e->ruled_by;
    if (e->kind != ARB_EV_AMEND || target == 0 || target > m->n)
        return 0;
    t = &m->entries[target - 1];
    return t->ruling == ARB_RULED_AMENDED && t->replaced == i ? 0
                                                              : t->ruled_by;
}

int
arb_match_rulings(const arb_match_t *m, arb_ruling_cb cb, void *ud)
{
    const entry_t *e;
    arb_event_t    ev;
    char         **args = NULL, *p;
    uint64_t       target;
    size_t         i, nargs = 1;
    int            rc = 0;

    if (m->lean)
        return 0;
    for (i = 0; i < m->n; i++)
        if ((m->entries[i].has & E_RULING) && m->entries[i].nargs > nargs)
            nargs = m->entries[i].nargs;
    for (i = 0; rc == 0 && i < m->n; i++) {
        e = &m->entries[i];
        if (!(e->has & E_RULING))
            continue;
        if (args == NULL && (args = malloc(nargs * sizeof(*args))) == NULL)
            return ARB_ENOMEM;
        p = unpack(m, e, &ev, args);
        ev.seq = (uint64_t)i + 1;
        ev.text = p;
        memcpy(&target, p + strlen(p) + 1, sizeof(target));
        ev.target = target;
        rc = cb(ud, &ev, undone_by(m, i, target));
    }
    free(args);
    return rc;
}

void
arb_match_digest(const arb_match_t *m, unsigned char out[ARB_HASH_LEN])
{
    arb_digest_t d;
    size_t       i;

    arb_digest_init(&d);
    arb_digest_str(&d, "arbiter-state-v1");
    arb_digest_str(&d, m->rules->game);
    arb_digest_str(&d, m->setup.edition ? m->setup.edition
                                        : m->rules->edition);
    arb_digest_str(&d, m->setup.match_id);
    arb_digest_u64(&d, m->setup.nplayers);
    for (i = 0; i < m->setup.nplayers; i++)
        arb_digest_str(&d, m->setup.players[i].name);
    arb_digest_u64(&d, (uint64_t)m->closed);
    m->rules->digest(m->st, &d);
    /* The latest claim decides the verdicts, which are results (its seq
     * too: records fixed after it stay pending; not who made it).  Fed
     * only when there is one, so digests of matches without claims are
     * what they always were. */
    if (m->claim_seq != 0) {
        const arb_event_t *c = &m->claim_ev;
        arb_digest_str(&d, "claim");
        arb_digest_u64(&d, m->claim_seq);
        arb_digest_u64(&d, c->nargs);
        for (i = 0; i < c->nargs; i++)
            arb_digest_str(&d, c->args[i]);
        arb_digest_str(&d, c->text);
    }
    arb_digest_final(&d, out);
}

int
arb_match_results(const arb_match_t *m, arb_results_t *out)
{
    int rc;

    rc = m->rules->results(m->st, out);
    if (rc != 0) {
        arb_results_clear(out);     /* what was built before it failed */
        return rc;
    }
    rc = arb_diff_mark(out, m->claim_seq != 0 ? &m->claim.res : NULL,
                       m->rules->game, m->claim_seq);
    if (rc != 0)
        arb_results_clear(out);
    return rc;
}

uint64_t
arb_match_claim_seq(const arb_match_t *m)
{
    return m->claim_seq;
}

int
arb_match_describe(const arb_match_t *m, arb_buf_t *json)
{
    return arb_json_put_new(json, m->rules->describe(m->st, 0));
}

json_t *
arb_match_describe_value(const arb_match_t *m, unsigned seen)
{
    return m->rules->describe(m->st, seen);
}

int
arb_match_is_lean(const arb_match_t *m)
{
    return m->lean;
}

int
arb_match_lean(arb_match_t *m)
{
    if (m->n != 0)
        return ARB_EINVAL;
    m->lean = 1;
    return 0;
}

/* *dst (NULL, 0, 0 before) becomes a copy of the n seqs at src. */
static int
copy_seqs(uint64_t **dst, size_t *n, size_t *cap, const uint64_t *src,
          size_t nsrc)
{
    if (nsrc == 0)
        return 0;
    *dst = arb_rules_memdup(src, nsrc * sizeof(*src));
    if (*dst == NULL)
        return ARB_ENOMEM;
    *n = *cap = nsrc;
    return 0;
}

int
arb_match_copy(const arb_match_t *m, arb_match_t **out)
{
    arb_match_t  *c;
    arb_verdict_t v;
    int           rc;

    *out = NULL;
    if (m->rules->clone == NULL)
        return ARB_EUNSUPP;
    c = calloc(1, sizeof(*c));
    if (c == NULL)
        return ARB_ENOMEM;
    c->rules = m->rules;
    c->closed = m->closed;
    c->lean = 1;
    c->n = m->n;
    c->nmoves = m->nmoves;
    rc = arb_setup_copy(&c->setup, &m->setup);
    if (rc == 0)
        rc = m->rules->clone(&c->st, m->st);
    /* The claim in force: its event copied, its reading read again (as
     * arb_match_apply reads it: the one parser of a claim). */
    if (rc == 0 && m->claim_seq != 0) {
        rc = arb_event_copy(&c->claim_ev, &m->claim_ev);
        if (rc == 0)
            rc = judge_claim(&c->claim_ev, &c->claim, &v);
        if (rc == 0)
            c->claim_seq = m->claim_seq;
        else
            rc = ARB_ENOMEM;        /* it was read once already */
    }
    if (rc == 0)
        rc = copy_seqs(&c->undos, &c->nundo, &c->capundo, m->undos,
                       m->nundo);
    if (rc == 0)
        rc = copy_seqs(&c->ruled, &c->nruled, &c->capruled, m->ruled,
                       m->nruled);
    if (rc != 0) {
        arb_match_free(c);
        return ARB_ENOMEM;
    }
    *out = c;
    return 0;
}

size_t
arb_match_undo_requests(const arb_match_t *m, const uint64_t **targets)
{
    *targets = m->undos;
    return m->nundo;
}
