#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/history_diff.h"
#include "core/deal.h"
#include "core/err.h"
#include "core/json.h"
#include "core/match.h"
#include "core/transcript.h"

/* One history being replayed. */
typedef struct walker {
    const arb_history_t *h;
    arb_match_t         *m;
    char                *refused;   /* set once an event is refused */
} walker_t;

/* The name a report gives a history. */
static const char *
history_name(const arb_history_t *h)
{
    return h->source != NULL ? h->source : "?";
}

static int
str_same(const char *a, const char *b)
{
    return a == NULL ? b == NULL : b != NULL && strcmp(a, b) == 0;
}

/* Same content apart from the arguments. */
static int
same_but_args(const arb_event_t *a, const arb_event_t *b)
{
    return a->kind == b->kind && a->target == b->target
           && str_same(a->player, b->player) && str_same(a->verb, b->verb)
           && str_same(a->text, b->text);
}

static int
same_args(const arb_event_t *a, const arb_event_t *b)
{
    size_t i;

    if (a->nargs != b->nargs)
        return 0;
    for (i = 0; i < a->nargs; i++)
        if (strcmp(a->args[i], b->args[i]) != 0)
            return 0;
    return 1;
}

/* The header as transcript lines ("key: value\n"), the edition written
 * as the one the match is judged under (a header without an edition
 * line is read as the rule set's current one), without the engine line,
 * which says who wrote the record, not what it holds. */
static int
header_lines(arb_buf_t *out, const arb_event_t *open, int *implied)
{
    arb_buf_t          all = ARB_BUF_INIT;
    const arb_rules_t *r;
    const char        *p, *nl;
    int                rc, ed = 0;

    rc = arb_transcript_format(&all, open, NULL, 0);
    if (rc == 0 && arb_buf_cstr(&all) == NULL)
        rc = ARB_ENOMEM;
    for (p = all.data; rc == 0 && p != NULL && *p != '\0'; p = nl + 1) {
        nl = strchr(p, '\n');
        if (nl == NULL)
            nl = p + strlen(p) - 1;
        if (nl == p || strncmp(p, "engine:", 7) == 0)
            continue;
        ed |= strncmp(p, "edition:", 8) == 0;
        arb_buf_add(out, p, (size_t)(nl - p) + 1);
    }
    *implied = 0;
    if (rc == 0 && !ed && open->setup != NULL
        && (r = arb_rules_find(open->setup->game)) != NULL) {
        arb_buf_printf(out, "edition: %s\n", r->edition);
        *implied = 1;
    }
    arb_buf_free(&all);
    return rc != 0 ? rc : out->oom ? ARB_ENOMEM : 0;
}

/* The line of `lines` whose key (what precedes ':') is the key of line
 * k (k[0..kn) with its ':'), or NULL. */
static const char *
line_of(const char *lines, const char *k, size_t kn)
{
    const char *p;

    for (p = lines; p != NULL && *p != '\0'; p = strchr(p, '\n') + 1)
        if (strncmp(p, k, kn) == 0)
            return p;
    return NULL;
}

static size_t
key_len(const char *line)
{
    const char *c = strchr(line, ':');

    return c != NULL ? (size_t)(c - line) + 1 : strcspn(line, "\n");
}

static int
same_line(const char *a, const char *b)
{
    size_t n = strcspn(a, "\n");

    return b != NULL && strcspn(b, "\n") == n && memcmp(a, b, n) == 0;
}

static char *
dup_line(const char *l)
{
    return strndup(l, strcspn(l, "\n"));
}

/* The state after the header `lines`, or 1 when they do not open. */
static int
header_digest(const char *lines, size_t len, unsigned char *out)
{
    arb_history_t h;
    arb_match_t  *m = NULL;
    arb_verdict_t v;
    arb_buf_t     why = ARB_BUF_INIT;
    int           rc;

    rc = arb_transcript_parse(&h, lines, len, &why);
    arb_buf_free(&why);
    if (rc == 0) {
        rc = arb_match_open(&m, &h.open, &v);
        if (rc == 0)
            arb_match_digest(m, out);
        arb_match_free(m);
    }
    arb_history_clear(&h);
    return rc == ARB_ENOMEM ? rc : rc != 0;
}

/* Whether A's header lines ha, with its line p (NULL: none) replaced by
 * B's line q (NULL: none), open to another state than ha: 1, 0 when the
 * two lines have the same effect (`cycles: 1` and no cycles line), or
 * ARB_ENOMEM.  A header that does not open is judged by its text (1). */
static int
line_matters(const char *ha, const char *p, const char *q)
{
    arb_buf_t     t = ARB_BUF_INIT;
    unsigned char d0[ARB_HASH_LEN], d1[ARB_HASH_LEN];
    size_t        at = p != NULL ? (size_t)(p - ha) : strlen(ha);
    int           rc;

    arb_buf_add(&t, ha, at);
    if (q != NULL)
        arb_buf_add(&t, q, strcspn(q, "\n") + 1);
    if (p != NULL)
        at += strcspn(p, "\n") + 1;
    arb_buf_puts(&t, ha + at);
    arb_buf_putc(&t, '\n');
    if (arb_buf_cstr(&t) == NULL) {
        rc = ARB_ENOMEM;
    } else if ((rc = header_digest(ha, strlen(ha), d0)) == 0
               && (rc = header_digest(t.data, t.len, d1)) == 0) {
        rc = memcmp(d0, d1, ARB_HASH_LEN) != 0;
    }
    arb_buf_free(&t);
    return rc;
}

/* The first header line that differs, paired by key (the key order of
 * A's header, then the keys only B has): *la and *lb, either NULL when
 * its side has no such line.  A line whose difference has no effect
 * (`cycles: 1` against none) is passed over while another differs with
 * one: until 2026-12-08 `cycles: 1` was named where the modes differed.
 * 1 when one differs, 0 when none does, or ARB_ENOMEM. */
static int
header_diff(const arb_history_t *a, const arb_history_t *b,
            arb_history_side_t *sa, arb_history_side_t *sb)
{
    arb_buf_t   ha = ARB_BUF_INIT, hb = ARB_BUF_INIT;
    const char *p, *q;
    char      **la = &sa->event, **lb = &sb->event;
    int         rc, ia = 0, ib = 0, effect, m;

    *la = *lb = NULL;
    rc = header_lines(&ha, &a->open, &ia);
    if (rc == 0)
        rc = header_lines(&hb, &b->open, &ib);
    if (rc == 0 && (arb_buf_cstr(&ha) == NULL || arb_buf_cstr(&hb) == NULL))
        rc = ARB_ENOMEM;
    if (rc != 0)
        goto done;
    /* First the lines that differ in effect, then (when only lines
     * together part the states) any line that differs. */
    for (effect = 1; effect >= 0; effect--) {
        for (p = ha.data; *p != '\0'; p = strchr(p, '\n') + 1) {
            q = line_of(hb.data, p, key_len(p));
            if (same_line(p, q))
                continue;
            if (effect && (m = line_matters(ha.data, p, q)) <= 0) {
                if (m < 0) {
                    rc = m;
                    goto done;
                }
                continue;
            }
            *la = dup_line(p);
            *lb = q != NULL ? dup_line(q) : NULL;
            /* An edition read, not written, is said as such. */
            sa->implied = ia && strncmp(p, "edition:", 8) == 0;
            sb->implied = ib && strncmp(p, "edition:", 8) == 0;
            rc = *la == NULL || (q != NULL && *lb == NULL) ? ARB_ENOMEM : 1;
            goto done;
        }
        for (q = hb.data; *q != '\0'; q = strchr(q, '\n') + 1) {
            if (line_of(ha.data, q, key_len(q)) != NULL)
                continue;
            if (effect && (m = line_matters(ha.data, NULL, q)) <= 0) {
                if (m < 0) {
                    rc = m;
                    goto done;
                }
                continue;
            }
            *lb = dup_line(q);
            rc = *lb == NULL ? ARB_ENOMEM : 1;
            goto done;
        }
    }
done:
    arb_buf_free(&ha);
    arb_buf_free(&hb);
    return rc;
}

static char *
event_line(const arb_event_t *ev)
{
    arb_buf_t b = ARB_BUF_INIT;

    arb_transcript_event_line(&b, ev);
    if (arb_buf_cstr(&b) == NULL)
        return NULL;
    return b.data;
}

/* Applies the event at index i; a refusal stops the walker. */
static int
step(walker_t *w, size_t i)
{
    arb_verdict_t v;
    arb_buf_t     b = ARB_BUF_INIT;
    int           rc;

    if (w->refused != NULL)
        return 0;
    rc = arb_match_apply(w->m, &w->h->events[i], &v);
    if (rc == ARB_ENOMEM)
        return rc;
    if (rc != 0) {
        arb_buf_printf(&b, "seq %zu: %s: %s", i + 1, v.rule, v.msg);
        if (arb_buf_cstr(&b) == NULL)
            return ARB_ENOMEM;
        w->refused = b.data;
    }
    return 0;
}

static void
side_state(arb_history_side_t *s, walker_t *w)
{
    if (w->refused != NULL) {
        s->refused = w->refused;
        w->refused = NULL;
        return;
    }
    arb_match_digest(w->m, s->digest);
    s->has_digest = 1;
}

void
arb_history_diff_clear(arb_history_diff_t *d)
{
    if (d == NULL)
        return;
    free(d->a.event);
    free(d->a.refused);
    free(d->b.event);
    free(d->b.refused);
    memset(d, 0, sizeof(*d));
}

/* Opens side h: 0, ARB_ENOMEM, or 1 when its header is refused (why it
 * is in w->refused, "the header: rule: msg", and v). */
static int
open_side(walker_t *w, const arb_history_t *h, arb_verdict_t *v)
{
    arb_buf_t b = ARB_BUF_INIT;
    int       rc;

    memset(w, 0, sizeof(*w));
    w->h = h;
    rc = arb_match_open(&w->m, &h->open, v);
    if (rc == 0 || rc == ARB_ENOMEM)
        return rc;
    arb_buf_printf(&b, "the header: %s: %s", v->rule, v->msg);
    if (arb_buf_cstr(&b) == NULL)
        return ARB_ENOMEM;
    w->refused = b.data;
    return 1;
}


/*
 * One side sealed (a running dealt match read from the recorder, which
 * sends only the deal's commitment) and the other holding a deal in the
 * clear (a scorekeeper's transcript): when that deal opens the
 * commitment, the sealed side is judged with it, in *copy (*used set).
 * A scoresheet is so compared with the recorder's running dealt match:
 * until 2026-12-05 they parted at the header ("deal: order ..." against
 * "deal: commit ...").  A deal that does not open it leaves the headers
 * different, as before.  0 or ARB_ENOMEM.
 */
static int
reveal_with(arb_event_t *copy, const arb_event_t *sealed,
            const arb_event_t *clear, int *used)
{
    arb_buf_t     sec = ARB_BUF_INIT;
    arb_verdict_t v;
    const char   *kind;
    int           rc = 0;

    *used = 0;
    if (sealed->setup == NULL || clear->setup == NULL
        || sealed->setup->deal.kind != ARB_DEAL_COMMIT
        || arb_deal_secret(&clear->setup->deal, &sec, &kind) != 0)
        goto done;
    if (arb_buf_cstr(&sec) == NULL || arb_event_copy(copy, sealed) != 0) {
        rc = ARB_ENOMEM;
        goto done;
    }
    if (arb_deal_reveal(&copy->setup->deal, kind, sec.data, &v) == 0)
        *used = 1;
    else
        arb_event_clear(copy);
done:
    arb_buf_free(&sec);
    return rc;
}

/* A sealed side that was closed reveals its deal in its close, as replay
 * takes it (core/replay.c): judged with it, in *copy (*used set), a
 * closed dealt match's export is compared with another export of it or
 * with the recorder (until 2026-12-06 two sealed sides failed: "the
 * deal is committed and not revealed yet").  A reveal that does not
 * open the commitment leaves the side as it was: its replay refuses the
 * close.  0 or ARB_ENOMEM. */
static int
reveal_own(arb_event_t *copy, const arb_history_t *h, int *used)
{
    arb_verdict_t v;
    size_t        i;

    *used = 0;
    if (h->open.setup == NULL || h->open.setup->deal.kind != ARB_DEAL_COMMIT)
        return 0;
    for (i = 0; i < h->nevents; i++)
        if (h->events[i].kind == ARB_EV_CLOSE && h->events[i].nargs == 2)
            break;
    if (i == h->nevents)
        return 0;
    if (arb_event_copy(copy, &h->open) != 0)
        return ARB_ENOMEM;
    if (arb_deal_reveal(&copy->setup->deal, h->events[i].args[0],
                        h->events[i].args[1], &v) == 0)
        *used = 1;
    else
        arb_event_clear(copy);
    return 0;
}

static int
diff_in(arb_history_diff_t *d, const arb_history_t *a,
        const arb_history_t *b, arb_buf_t *why);

int
arb_history_diff(arb_history_diff_t *d, const arb_history_t *a,
                 const arb_history_t *b, arb_buf_t *why)
{
    arb_history_t ca, cb;       /* views: a and b, an open revealed */
    arb_event_t   ra, rb;
    int           ua = 0, ub = 0, rc;

    memset(d, 0, sizeof(*d));
    rc = reveal_own(&ra, a, &ua);
    if (rc == 0)
        rc = reveal_own(&rb, b, &ub);
    /* A side still sealed, against the other's deal in the clear. */
    if (rc == 0 && !ua)
        rc = reveal_with(&ra, &a->open, ub ? &rb : &b->open, &ua);
    if (rc == 0 && !ub)
        rc = reveal_with(&rb, &b->open, ua ? &ra : &a->open, &ub);
    if (rc != 0) {
        arb_buf_free(why);
        arb_buf_puts(why, "out of memory");
    } else {
        ca = *a;
        cb = *b;
        if (ua)
            ca.open = ra;
        if (ub)
            cb.open = rb;
        rc = diff_in(d, &ca, &cb, why);
    }
    if (ua)
        arb_event_clear(&ra);
    if (ub)
        arb_event_clear(&rb);
    return rc;
}

static int
diff_in(arb_history_diff_t *d, const arb_history_t *a,
        const arb_history_t *b, arb_buf_t *why)
{
    walker_t      wa, wb;
    arb_verdict_t va, vb;
    unsigned char ha[ARB_HASH_LEN], hb[ARB_HASH_LEN];
    size_t        i;
    int           rc, oa, ob, diverged = 0;

    memset(&wa, 0, sizeof(wa));
    memset(&wb, 0, sizeof(wb));
    d->a.last = a->nevents;
    d->b.last = b->nevents;
    /* Headers agree when they have the same effect: the same state
     * after seq 0, whatever their spelling (`mode: 3` or `YCWS-144/3`,
     * an option written at its default, a deal's cards in letters).
     * Otherwise the first line that differs is named, paired by key; the
     * edition is one (a match judged under another edition is another
     * record: until 2026-12-06 it was not compared, and two records with
     * other results could be called identical). */
    oa = open_side(&wa, a, &va);
    ob = oa == ARB_ENOMEM ? 0 : open_side(&wb, b, &vb);
    if ((rc = oa == ARB_ENOMEM ? oa : ob == ARB_ENOMEM ? ob : 0) != 0)
        goto fail;
    if (oa == 0 && ob == 0) {
        arb_match_digest(wa.m, ha);
        arb_match_digest(wb.m, hb);
    }
    if (oa != 0 || ob != 0 || memcmp(ha, hb, ARB_HASH_LEN) != 0) {
        rc = header_diff(a, b, &d->a, &d->b);
        if (rc < 0)
            goto fail;
        if (rc == 0 && oa != 0 && ob != 0) {
            /* One header, refused: nothing to compare. */
            arb_buf_free(why);
            arb_buf_printf(why, "A (%s): header: %s", history_name(a),
                           va.msg);
            rc = ARB_EINVAL;
            goto fail;
        }
        /* Different matches from the first line: no common state. */
        d->seq = 0;
        side_state(&d->a, &wa);
        side_state(&d->b, &wb);
        arb_match_free(wa.m);
        arb_match_free(wb.m);
        return 0;
    }
    for (i = 0; !diverged; i++) {
        const arb_event_t *ea = i < a->nevents ? &a->events[i] : NULL;
        const arb_event_t *eb = i < b->nevents ? &b->events[i] : NULL;
        int                alive = wa.refused == NULL && wb.refused == NULL;
        unsigned char      before[ARB_HASH_LEN], da[ARB_HASH_LEN], db[ARB_HASH_LEN];

        if (ea == NULL && eb == NULL)
            break;
        if (alive)
            arb_match_digest(wa.m, before);
        if (ea != NULL && eb != NULL && same_but_args(ea, eb)) {
            if ((rc = step(&wa, i)) != 0 || (rc = step(&wb, i)) != 0)
                goto fail;
            if (same_args(ea, eb))
                continue;
            /* Another spelling of the same move leaves the same state. */
            if (alive && wa.refused == NULL && wb.refused == NULL) {
                arb_match_digest(wa.m, da);
                arb_match_digest(wb.m, db);
                if (memcmp(da, db, ARB_HASH_LEN) == 0)
                    continue;
            }
        } else {
            if ((ea != NULL && (rc = step(&wa, i)) != 0)
                || (eb != NULL && (rc = step(&wb, i)) != 0))
                goto fail;
        }
        diverged = 1;
        d->seq = i + 1;
        if (alive) {
            d->has_before = 1;
            memcpy(d->before, before, ARB_HASH_LEN);
        }
        if ((ea != NULL && (d->a.event = event_line(ea)) == NULL)
            || (eb != NULL && (d->b.event = event_line(eb)) == NULL)) {
            rc = ARB_ENOMEM;
            goto fail;
        }
    }
    d->identical = !diverged;
    side_state(&d->a, &wa);
    side_state(&d->b, &wb);
    arb_match_free(wa.m);
    arb_match_free(wb.m);
    return 0;

fail:
    free(wa.refused);
    free(wb.refused);
    arb_match_free(wa.m);
    arb_match_free(wb.m);
    arb_history_diff_clear(d);
    if (rc == ARB_ENOMEM) {
        arb_buf_free(why);
        arb_buf_puts(why, "out of memory");
    }
    return rc;
}

static void
put_hex(arb_buf_t *b, const unsigned char *h)
{
    int i;

    for (i = 0; i < ARB_HASH_LEN; i++)
        arb_buf_printf(b, "%02x", h[i]);
}

static void
side_text(arb_buf_t *b, const char *which, const arb_history_side_t *s,
          uint64_t seq)
{
    if (s->event != NULL || seq == 0)
        arb_buf_printf(b, "%s after seq %" PRIu64 ": ", which, seq);
    else
        arb_buf_printf(b, "%s at its end (seq %" PRIu64 "): ", which,
                       s->last);
    if (s->has_digest) {
        arb_buf_puts(b, "digest ");
        put_hex(b, s->digest);
    } else if (s->refused != NULL) {
        arb_buf_printf(b, "no state, refused at %s", s->refused);
    } else {
        arb_buf_puts(b, "no state");
    }
    arb_buf_putc(b, '\n');
}

/* The header lines that differ: "A has 'mode: 3', B has 'mode: 4'", a
 * line only one side has ("A has no cycles: line"), or, when every line
 * agrees but their effect does not (a deal that opens another way), the
 * same lines judged apart. */
static void
header_text(arb_buf_t *b, const arb_history_diff_t *d)
{
    const char *la = d->a.event, *lb = d->b.event;

    if (la == NULL && lb == NULL) {
        arb_buf_puts(b, "the same header lines, judged apart\n");
        return;
    }
    if (la != NULL && d->a.implied)
        arb_buf_printf(b, "A has no edition: line (read as '%s'), ", la);
    else if (la != NULL)
        arb_buf_printf(b, "A has '%s', ", la);
    else
        arb_buf_printf(b, "A has no %.*s line, ", (int)key_len(lb), lb);
    if (lb != NULL && d->b.implied)
        arb_buf_printf(b, "B has no edition: line (read as '%s')\n", lb);
    else if (lb != NULL)
        arb_buf_printf(b, "B has '%s'\n", lb);
    else
        arb_buf_printf(b, "B has no %.*s line\n", (int)key_len(la), la);
}

void
arb_history_diff_text(arb_buf_t *b, const arb_history_diff_t *d, const arb_history_t *a,
                  const arb_history_t *bl)
{
    arb_buf_printf(b, "A: %s\nB: %s\n", history_name(a), history_name(bl));
    if (d->identical) {
        arb_buf_printf(b, "identical: %" PRIu64 " event%s, ", d->a.last,
                       d->a.last == 1 ? "" : "s");
        if (d->a.has_digest) {
            arb_buf_puts(b, "digest ");
            put_hex(b, d->a.digest);
        } else {
            arb_buf_printf(b, "no state, refused at %s",
                           d->a.refused ? d->a.refused : "?");
        }
        arb_buf_putc(b, '\n');
        return;
    }
    arb_buf_printf(b, "first divergence at seq %" PRIu64 "%s: ", d->seq,
                   d->seq == 0 ? " (the header)" : "");
    if (d->seq == 0) {
        header_text(b, d);
        side_text(b, "A", &d->a, 0);
        side_text(b, "B", &d->b, 0);
        return;
    }
    if (d->a.event != NULL)
        arb_buf_printf(b, "A has '%s', ", d->a.event);
    else
        arb_buf_printf(b, "A ends at seq %" PRIu64 ", ", d->a.last);
    if (d->b.event != NULL)
        arb_buf_printf(b, "B has '%s'\n", d->b.event);
    else
        arb_buf_printf(b, "B ends at seq %" PRIu64 "\n", d->b.last);
    if (d->has_before) {
        arb_buf_printf(b, "both before seq %" PRIu64 ": digest ", d->seq);
        put_hex(b, d->before);
        arb_buf_putc(b, '\n');
    }
    side_text(b, "A", &d->a, d->seq);
    side_text(b, "B", &d->b, d->seq);
}

/* A digest as hex, or null. */
static json_t *
hex_or_null(int has, const unsigned char *h)
{
    char hex[ARB_HASH_HEX];
    int  i;

    if (!has)
        return json_null();
    for (i = 0; i < ARB_HASH_LEN; i++)
        snprintf(hex + 2 * i, 3, "%02x", h[i]);
    return json_string(hex);
}

static json_t *
side_json(const arb_history_t *h, const arb_history_side_t *s)
{
    json_t *o = json_object();
    int     bad = 0;

    bad |= arb_json_set(o, "source", arb_json_string(history_name(h)));
    bad |= arb_json_set(o, "event", arb_json_string_or_null(s->event));
    if (s->implied)     /* a line read, not written */
        bad |= arb_json_set(o, "implied", json_true());
    bad |= arb_json_set(o, "digest", hex_or_null(s->has_digest, s->digest));
    bad |= arb_json_set(o, "refused", arb_json_string_or_null(s->refused));
    bad |= arb_json_set(o, "last", json_integer((json_int_t)s->last));
    return bad ? (json_decref(o), NULL) : o;
}

void
arb_history_diff_json(arb_buf_t *b, const arb_history_diff_t *d, const arb_history_t *a,
                  const arb_history_t *bl)
{
    json_t *o = json_object();
    int     bad = 0;

    bad |= arb_json_set(o, "identical", json_boolean(d->identical));
    bad |= arb_json_set(o, "seq", d->identical ? json_null()
                                  : json_integer((json_int_t)d->seq));
    bad |= arb_json_set(o, "before", hex_or_null(d->has_before, d->before));
    bad |= arb_json_set(o, "a", side_json(a, &d->a));
    bad |= arb_json_set(o, "b", side_json(bl, &d->b));
    if (bad) {
        json_decref(o);
        b->oom = 1;
        return;
    }
    arb_json_put_new(b, o);
}
