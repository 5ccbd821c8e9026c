/*
 * fuzz_move_text.c - a typed move read for its match (core/move_text.c)
 * and its canonical spelling (each game's spell_arg): what the console,
 * `arbiter move --text` and the HTTP write API's `text` take.
 *
 * The input: byte 0 picks a match (one of the fixtures below, replayed to
 * one of a few points of its history), byte 1 whether the console's
 * --as names a player (and which) and whether the move is also judged;
 * the rest is the typed line.
 *
 * Invariants, for every input:
 *   - no crash; a refusal is ARB_EINVAL with its reason;
 *   - a move read holds a verb, a seated player and at most ARB_ARGS_MAX
 *     non-empty arguments (until 2026-12-06 a bare move of 34 words made
 *     34, which overran the HTTP write API's array);
 *   - the spelling is a fixed point: the move written out (verb, player,
 *     arguments as respelt) reads back as the same move;
 *   - respelling never costs a verdict: a move the rules accept as typed
 *     they accept as respelt, and both leave the same state.
 *
 * Corpus: tests/fuzz/corpus/move_text.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/limits.h"
#include "core/match.h"
#include "core/move_text.h"
#include "tests/fuzz/fuzz.h"
#include "tests/replay_text.h"

static const char *const files[] = {
    "tests/data/yah3-short.txt",
    "tests/data/tsuku-simple.txt",
    "tests/data/tsuku-last-discard.txt",
    "tests/data/chains-1v1-36-square.txt",
    "tests/data/chains-3v3-52-sum.txt",
    "tests/data/chan-draw.txt",
    "tests/data/chan-declined-win.txt",
};
static const uint64_t ats[] = { 0, 1, 2, 5, 13, 40, 93, UINT64_MAX };
#define NFILES (sizeof(files) / sizeof(files[0]))
#define NATS   (sizeof(ats) / sizeof(ats[0]))

static char *texts[NFILES];

/* The fixtures, read once per process. */
static void
load(void)
{
    static int done;
    size_t     i;

    if (done)
        return;
    done = 1;
    for (i = 0; i < NFILES; i++) {
        texts[i] = slurp(files[i]);
        FUZZ_CHECK(texts[i] != NULL);
    }
}

/* "verb player arg..." of ev into b. */
static void
line_of(arb_buf_t *b, const arb_event_t *ev)
{
    size_t i;

    arb_buf_printf(b, "%s %s", ev->verb, ev->player);
    for (i = 0; i < ev->nargs; i++)
        arb_buf_printf(b, " %s", ev->args[i]);
}

/* ev applied to a fresh replay of fixture f at `at`: its verdict's code,
 * and the state after it into d when accepted. */
static int
judge(size_t f, uint64_t at, const arb_event_t *ev, arb_buf_t *d)
{
    arb_match_t  *m = replay_text(texts[f], at);
    arb_verdict_t v;
    int           rc;

    FUZZ_CHECK(m != NULL);
    memset(&v, 0, sizeof(v));
    rc = arb_match_apply(m, ev, &v);
    if (rc == 0)
        arb_match_describe(m, d);
    arb_match_free(m);
    return rc;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char         buf[1100], again[1400], *w[ARB_ARGS_MAX + 8];
    char        *w2[ARB_ARGS_MAX + 8];
    const char  *as = NULL;
    arb_event_t  ev, ev2, raw;
    arb_buf_t    why = ARB_BUF_INIT, l1 = ARB_BUF_INIT, l2 = ARB_BUF_INIT;
    arb_buf_t    d1 = ARB_BUF_INIT, d2 = ARB_BUF_INIT;
    arb_match_t *m;
    size_t       f, n, n2, i, len, first;
    uint64_t     at;
    int          rc, rc2;

    if (size < 2)
        return 0;
    load();
    f = data[0] % NFILES;
    at = ats[(data[0] / NFILES) % NATS];
    m = replay_text(texts[f], at);
    FUZZ_CHECK(m != NULL);
    if (data[1] & 1) {
        const arb_setup_t *s = arb_match_setup(m);
        as = s->players[(data[1] >> 2) % s->nplayers].name;
    }
    len = size - 2 < sizeof(buf) - 1 ? size - 2 : sizeof(buf) - 1;
    memcpy(buf, data + 2, len);
    buf[len] = '\0';
    memset(&ev, 0, sizeof(ev));
    memset(&ev2, 0, sizeof(ev2));
    memset(&raw, 0, sizeof(raw));
    n = arb_move_words(buf, w, sizeof(w) / sizeof(w[0]));
    if (n > sizeof(w) / sizeof(w[0]) - 1)
        goto out;                   /* the callers refuse it first */
    rc = arb_move_from_words(m, as, w, n, &ev, &why);
    FUZZ_CHECK(rc == 0 || rc == ARB_EINVAL);
    if (rc != 0) {
        FUZZ_CHECK(why.len > 0);
        goto out;
    }
    FUZZ_CHECK(ev.verb != NULL && ev.player != NULL);
    FUZZ_CHECK(ev.nargs <= ARB_ARGS_MAX);
    for (i = 0; i < ev.nargs; i++)
        FUZZ_CHECK(ev.args[i][0] != '\0');
    /* The spelling is a fixed point. */
    line_of(&l1, &ev);
    FUZZ_CHECK(!l1.oom && l1.len < sizeof(again));
    memcpy(again, l1.data, l1.len + 1);
    n2 = arb_move_words(again, w2, sizeof(w2) / sizeof(w2[0]));
    why.len = 0;
    rc2 = arb_move_from_words(m, NULL, w2, n2, &ev2, &why);
    FUZZ_CHECK(rc2 == 0);
    line_of(&l2, &ev2);
    FUZZ_CHECK(strcmp(arb_buf_cstr(&l1), arb_buf_cstr(&l2)) == 0);
    /* Respelling keeps the verdict (judged on one input in two: each
     * judging replays the fixture twice). */
    if (data[1] & 2) {
        first = n - ev.nargs;
        raw.kind = ARB_EV_MOVE;
        raw.player = strdup(ev.player);
        raw.verb = strdup(ev.verb);
        FUZZ_CHECK(raw.player != NULL && raw.verb != NULL);
        for (i = 0; i < ev.nargs; i++)
            FUZZ_CHECK(arb_event_add_arg(&raw, w[first + i]) == 0);
        rc = judge(f, at, &ev, &d1);
        rc2 = judge(f, at, &raw, &d2);
        FUZZ_CHECK(rc2 != 0 || rc == 0);
        FUZZ_CHECK(rc != 0 || rc2 != 0
                   || (d1.len == d2.len
                       && memcmp(d1.data, d2.data, d1.len) == 0));
    }
out:
    arb_event_clear(&ev);
    arb_event_clear(&ev2);
    arb_event_clear(&raw);
    arb_buf_free(&why);
    arb_buf_free(&l1);
    arb_buf_free(&l2);
    arb_buf_free(&d1);
    arb_buf_free(&d2);
    arb_match_free(m);
    return 0;
}
