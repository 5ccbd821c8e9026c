/*
 * leak.h - the oracle of the leak tests: what one viewer must not be shown
 * of an open match (docs/VIEWS.md), as strings to look for in anything the
 * viewer receives — a state report, an event's transcript line, a frame's
 * raw bytes, a page or a JSON response.
 *
 * It is built from the full record, never from the code under test: the
 * match replayed with its deal (concealed hands through ARB_VIEW_HANDS,
 * which no viewer-facing path serves to a public or seat viewer), the
 * events as recorded with their chain hashes, and the deal's secret.  For
 * a viewer it forbids:
 *  - every concealed hand of a seat it may not see, as the JSON list the
 *    state would carry (`["B1","B2",…]`), unless the canonical report
 *    shows it (a winner's hand, in its record), and for a public viewer the key
 *    key `"hand_cards"` itself;
 *  - the transcript line of every move whose hidden arguments it may not
 *    see ("draw ann B2", "deal bob B1B1…"), and each long hidden argument
 *    alone;
 *  - the chain hashes (raw 32 bytes and hex) from the first such move on:
 *    any of them checks a guess of a hidden chip;
 *  - the deal's secret, whole and by its long words.
 * Decode events before looking (leak_event_line gives the line); raw
 * frames are searched too, for the hashes and the secret.
 *
 * Include once per program (the functions are static), after defining
 * _GNU_SOURCE (memmem).
 */
#ifndef ARB_TESTS_LEAK_H
#define ARB_TESTS_LEAK_H

#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/event.h"
#include "core/hash.h"
#include "core/match.h"
#include "core/replay.h"
#include "core/rules.h"
#include "core/transcript.h"
#include "core/view.h"

typedef struct leak_item {
    char  *s;
    size_t len;
    char   why[120];
} leak_item_t;

typedef struct leak_set {
    size_t       n, cap;
    leak_item_t *v;
} leak_set_t;

static void
leak_set_free(leak_set_t *s)
{
    size_t i;

    for (i = 0; i < s->n; i++)
        free(s->v[i].s);
    free(s->v);
    memset(s, 0, sizeof(*s));
}

static int
leak_add(leak_set_t *s, const void *bytes, size_t len, const char *why)
{
    leak_item_t *nv;

    if (len == 0)
        return 0;
    if (s->n == s->cap) {
        nv = realloc(s->v, (s->cap * 2 + 8) * sizeof(*nv));
        if (nv == NULL)
            return -1;
        s->v = nv;
        s->cap = s->cap * 2 + 8;
    }
    if ((s->v[s->n].s = malloc(len)) == NULL)
        return -1;
    memcpy(s->v[s->n].s, bytes, len);
    s->v[s->n].len = len;
    snprintf(s->v[s->n].why, sizeof(s->v[0].why), "%s", why);
    s->n++;
    return 0;
}

/* The line the checks read for an event: its transcript line. */
static void
leak_event_line(arb_buf_t *out, const arb_event_t *ev)
{
    arb_transcript_event_line(out, ev);
}

/* The concealed list of seat `seat` in m's state, "[...]" into out, or
 * nothing when the game lists none. */
static void
leak_hand(arb_buf_t *out, const arb_match_t *m, unsigned seat)
{
    arb_buf_t   rep = ARB_BUF_INIT;
    const char *p, *e;

    if (arb_report_json_for(&rep, m, 1u << seat) == 0
        && (p = strstr(arb_buf_cstr(&rep), "\"hand_cards\":[")) != NULL
        && (e = strchr(p, ']')) != NULL) {
        p += strlen("\"hand_cards\":");
        arb_buf_add(out, p, (size_t)(e - p + 1));
    }
    arb_buf_free(&rep);
}

/*
 * Fills s with what `who` must not be shown while the match is open, as
 * of seq `at`.  m_at: the match replayed with its deal after event `at`;
 * ev[0..n): its events as recorded from seq 1 (ev[i].seq == i + 1), with
 * their chain hashes hash[0..n) (hash[i] of ev[i]; NULL: none known);
 * secret: the deal's secret text (the seed, or the order's cards joined
 * by blanks), or NULL.  0 or -1 (out of memory).
 */
static int
leak_forbidden(leak_set_t *s, const arb_match_t *m_at, const arb_event_t *ev,
               const unsigned char (*hash)[ARB_HASH_LEN], size_t n,
               uint64_t at, const char *secret, const arb_viewer_t *who)
{
    const arb_setup_t *setup = arb_match_setup(m_at);
    const arb_rules_t *rules = arb_match_rules(m_at);
    unsigned           seen = arb_view_seen(who);
    arb_buf_t          b = ARB_BUF_INIT, pub = ARB_BUF_INIT;
    char               why[120], hex[2 * ARB_HASH_LEN + 1];
    const char        *w, *e;
    size_t             i, k, keep, first = n;
    int                owner, rc = 0, j;

    if (who->kind == ARB_VIEW_ALL || who->kind == ARB_VIEW_HANDS)
        return 0;
    if (who->kind == ARB_VIEW_PUBLIC)
        rc |= leak_add(s, "\"hand_cards\"", 12, "a concealed list");
    /* A hand the rules have shown at the table (a winner's, in its result
     * record) is public: the canonical report is the reference. */
    rc |= arb_report_json(&pub, m_at);
    for (k = 0; k < setup->nplayers; k++) {
        if (seen >> k & 1)
            continue;
        b.len = 0;
        leak_hand(&b, m_at, (unsigned)k);
        /* a hand of one or two is a list public cards can repeat */
        for (i = 0, j = 0; i < b.len; i++)
            j += b.data[i] == ',';
        if (j >= 2 && memmem(pub.data, pub.len, b.data, b.len) == NULL) {
            snprintf(why, sizeof(why), "%s's concealed hand at seq %llu",
                     setup->players[k].name, (unsigned long long)at);
            rc |= leak_add(s, b.data, b.len, why);
        }
    }
    for (i = 0; i < n && ev[i].seq <= at; i++) {
        if (rules->conceal == NULL || ev[i].verb == NULL
            || (ev[i].kind != ARB_EV_MOVE && ev[i].kind != ARB_EV_AMEND
                && ev[i].kind != ARB_EV_STANDS))
            continue;
        owner = -1;
        keep = rules->conceal(setup, &ev[i], &owner);
        if (keep >= ev[i].nargs
            || (who->kind == ARB_VIEW_SEAT && owner >= 0
                && (unsigned)owner == who->seat))
            continue;
        if (first == n)
            first = i;
        b.len = 0;
        leak_event_line(&b, &ev[i]);
        /* the line from the verb on: "draw ann B2" */
        w = strstr(arb_buf_cstr(&b), ev[i].verb);
        snprintf(why, sizeof(why), "the hidden arguments of seq %llu",
                 (unsigned long long)ev[i].seq);
        if (w != NULL)
            rc |= leak_add(s, w, strlen(w), why);
        for (k = keep; k < ev[i].nargs; k++)
            if (strlen(ev[i].args[k]) >= 8)
                rc |= leak_add(s, ev[i].args[k], strlen(ev[i].args[k]), why);
    }
    for (i = first; hash != NULL && i < n; i++) {
        snprintf(why, sizeof(why), "the chain hash of seq %llu, which "
                 "covers a hidden argument", (unsigned long long)ev[i].seq);
        rc |= leak_add(s, hash[i], ARB_HASH_LEN, why);
        for (j = 0; j < ARB_HASH_LEN; j++)
            snprintf(hex + 2 * j, 3, "%02x", hash[i][j]);
        rc |= leak_add(s, hex, 2 * ARB_HASH_LEN, why);
    }
    if (secret != NULL && strlen(secret) >= 8) {
        rc |= leak_add(s, secret, strlen(secret), "the deal's secret");
        /* the order's long words, and its first 24 characters */
        for (w = secret; *w != '\0'; w = *e ? e + 1 : e) {
            e = strchr(w, ' ');
            if (e == NULL)
                e = w + strlen(w);
            if (e - w >= 12)
                rc |= leak_add(s, w, (size_t)(e - w), "a word of the deal");
        }
        if (strlen(secret) > 24)
            rc |= leak_add(s, secret, 24, "the deal's first cards");
    }
    arb_buf_free(&b);
    arb_buf_free(&pub);
    return rc != 0 ? -1 : 0;
}

/* The first forbidden item found in text[0..len), or NULL. */
static const leak_item_t *
leak_find(const leak_set_t *s, const void *text, size_t len)
{
    size_t i;

    if (len == 0)       /* memmem's text must not be NULL, even empty */
        return NULL;
    for (i = 0; i < s->n; i++)
        if (memmem(text, len, s->v[i].s, s->v[i].len) != NULL)
            return &s->v[i];
    return NULL;
}

#endif
