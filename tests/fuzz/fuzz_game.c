/*
 * fuzz_game.c - every rule set (YAHchain, Chains, Tsukurutenten, Chắn)
 * and the match layer above them, driven by random move sequences.
 *
 * The input is a transcript (docs/TRANSCRIPT.md): its header opens a match
 * of any game, and its event lines, whatever libFuzzer made of them, are
 * offered to the live match one by one as the daemon offers appends (seq
 * left to the match).  The seeds are real matches of each game, so the
 * mutations are moves a little off a real game: wrong card, wrong player,
 * a move too early, a ruling on the wrong seq.
 *
 * Invariants, for every input:
 *   - no crash, whatever the moves;
 *   - a refused move changes nothing: digest and next seq before == after,
 *     and the refusal carries a reason;
 *   - the digest is deterministic: two readings agree, and so do the
 *     JSON reports (results, state) of the same match;
 *   - replay equals live: replaying the accepted events into a fresh match
 *     (arb_replay, as arbiter replay and the verifier do) accepts all of
 *     them and ends in the same digest and the same report;
 *   - a copy is its match (arb_match_copy, what the recorder judges on and
 *     keeps for reads at other seqs): taken before each event, it is left
 *     as it was by the event applied to the match, and the event applied
 *     to it (a ruling aside: a copy keeps no moves to rebuild from) gets
 *     the same verdict and the same digest.
 *
 * Corpus: tests/fuzz/corpus/game (real transcripts of the four games, and
 * a tournament whose rounds are recorded in several acts).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/hash.h"
#include "core/match.h"
#include "core/replay.h"
#include "core/transcript.h"
#include "tests/fuzz/fuzz.h"

static int
is_ruling(const arb_event_t *ev)
{
    return ev->kind == ARB_EV_VOID || ev->kind == ARB_EV_AMEND
           || ev->kind == ARB_EV_STANDS;
}

/* c, a copy of m taken before ev (digest `before`) was applied to m with
 * verdict rc: untouched by it, and judging ev as m did. */
static void
check_copy(arb_match_t *c, const arb_match_t *m, const arb_event_t *ev,
           int rc, const unsigned char before[ARB_HASH_LEN])
{
    unsigned char cd[ARB_HASH_LEN], md[ARB_HASH_LEN];
    arb_verdict_t v;
    int           crc;

    arb_match_digest(c, cd);
    FUZZ_CHECK(memcmp(cd, before, ARB_HASH_LEN) == 0);
    if (is_ruling(ev) || rc == ARB_ENOMEM)
        return;
    memset(&v, 0, sizeof(v));
    crc = arb_match_apply(c, ev, &v);
    if (crc == ARB_ENOMEM)
        return;
    FUZZ_CHECK(crc == rc);
    arb_match_digest(c, cd);
    arb_match_digest(m, md);
    FUZZ_CHECK(memcmp(cd, md, ARB_HASH_LEN) == 0);
}

/* Offers every event of t to the live match m; the accepted ones, with
 * the seq the match gave them, go to acc[0..*nacc). */
static void
play(arb_match_t *m, const arb_history_t *t, arb_event_t *acc,
     size_t *nacc)
{
    unsigned char before[ARB_HASH_LEN], after[ARB_HASH_LEN];
    arb_verdict_t v;
    arb_event_t   ev;
    arb_match_t  *c;
    uint64_t      seq;
    size_t        i;
    int           rc;

    *nacc = 0;
    for (i = 0; i < t->nevents; i++) {
        ev = t->events[i];          /* shallow: apply deep-copies */
        ev.seq = 0;
        seq = arb_match_next_seq(m);
        arb_match_digest(m, before);
        if (arb_match_copy(m, &c) != 0)
            c = NULL;               /* ENOMEM */
        memset(&v, 0, sizeof(v));
        rc = arb_match_apply(m, &ev, &v);
        if (c != NULL)
            check_copy(c, m, &ev, rc, before);
        arb_match_free(c);
        if (rc == ARB_ENOMEM)
            continue;
        if (rc != 0) {
            FUZZ_CHECK(rc < 0 && v.msg[0] != '\0');
            arb_match_digest(m, after);
            FUZZ_CHECK(memcmp(before, after, ARB_HASH_LEN) == 0);
            FUZZ_CHECK(arb_match_next_seq(m) == seq);
            continue;
        }
        FUZZ_CHECK(arb_match_next_seq(m) == seq + 1);
        if (arb_event_copy(&acc[*nacc], &t->events[i]) != 0)
            continue;               /* ENOMEM: replay would differ */
        acc[*nacc].seq = seq;
        (*nacc)++;
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char    d1[ARB_HASH_LEN], d2[ARB_HASH_LEN], d3[ARB_HASH_LEN];
    arb_history_t t;
    arb_match_t     *live = NULL, *again = NULL;
    arb_event_t     *acc = NULL;
    arb_verdict_t    v;
    arb_buf_t        why = ARB_BUF_INIT, r1 = ARB_BUF_INIT, r2 = ARB_BUF_INIT;
    size_t           nacc = 0, bad, i;
    int              rc;

    if (arb_transcript_parse(&t, (const char *)data, size, &why) != 0)
        goto done;
    memset(&v, 0, sizeof(v));
    if (arb_match_open(&live, &t.open, &v) != 0)
        goto done;
    acc = calloc(t.nevents + 1, sizeof(*acc));
    if (acc == NULL)
        goto done;
    play(live, &t, acc, &nacc);

    arb_match_digest(live, d1);
    arb_match_digest(live, d2);
    FUZZ_CHECK(memcmp(d1, d2, ARB_HASH_LEN) == 0);

    rc = arb_replay(&again, &t.open, acc, nacc, UINT64_MAX, &bad, &v);
    if (rc == ARB_ENOMEM)
        goto done;
    if (rc != 0)
        fprintf(stderr, "replay refused accepted event %zu: %s %s\n", bad,
                v.rule, v.msg);
    FUZZ_CHECK(rc == 0);
    FUZZ_CHECK(arb_match_next_seq(again) == arb_match_next_seq(live));
    arb_match_digest(again, d3);
    FUZZ_CHECK(memcmp(d1, d3, ARB_HASH_LEN) == 0);
    if (arb_report_json(&r1, live) == 0 && arb_report_json(&r2, again) == 0
        && !r1.oom && !r2.oom)
        FUZZ_CHECK(r1.len == r2.len && memcmp(r1.data, r2.data, r1.len) == 0);

done:
    for (i = 0; i < nacc; i++)
        arb_event_clear(&acc[i]);
    free(acc);
    arb_match_free(live);
    arb_match_free(again);
    arb_history_clear(&t);
    arb_buf_free(&why);
    arb_buf_free(&r1);
    arb_buf_free(&r2);
    return 0;
}
