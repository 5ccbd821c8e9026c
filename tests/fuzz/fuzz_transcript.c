/*
 * fuzz_transcript.c - the transcript parser (docs/TRANSCRIPT.md) on
 * arbitrary text.
 *
 * Invariants: a refusal names its line ("line N: ..."); an accepted
 * transcript numbers its events 1..n; and its canonical form (the one
 * arbiter export writes) parses again and formats to the same bytes, so
 * whatever the parser accepts survives an export and re-import unchanged.
 *
 * Corpus: tests/fuzz/corpus/transcript (real transcripts of every game).
 */
#include <stdint.h>
#include <string.h>

#include "core/buf.h"
#include "core/transcript.h"
#include "tests/fuzz/fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    arb_history_t t, t2;
    arb_buf_t        why = ARB_BUF_INIT, once = ARB_BUF_INIT;
    arb_buf_t        twice = ARB_BUF_INIT;
    size_t           i;
    int              rc;

    rc = arb_transcript_parse(&t, (const char *)data, size, &why);
    if (rc != 0) {
        FUZZ_CHECK(rc < 0);
        if (!why.oom)
            FUZZ_CHECK(strncmp(arb_buf_cstr(&why), "line ", 5) == 0);
        arb_history_clear(&t);
        arb_buf_free(&why);
        return 0;
    }
    for (i = 0; i < t.nevents; i++)
        FUZZ_CHECK(t.events[i].seq == i + 1);
    if (arb_transcript_format(&once, &t.open, t.events, t.nevents) == 0
        && !once.oom) {
        rc = arb_transcript_parse(&t2, once.data, once.len, &why);
        if (rc != 0)
            fprintf(stderr, "canonical form refused: %s\n%.*s\n",
                    arb_buf_cstr(&why), (int)once.len, once.data);
        FUZZ_CHECK(rc == 0);
        FUZZ_CHECK(t2.nevents == t.nevents);
        FUZZ_CHECK(arb_transcript_format(&twice, &t2.open, t2.events,
                                         t2.nevents) == 0);
        FUZZ_CHECK(twice.len == once.len
                   && memcmp(twice.data, once.data, once.len) == 0);
        arb_history_clear(&t2);
    }
    arb_history_clear(&t);
    arb_buf_free(&once);
    arb_buf_free(&twice);
    arb_buf_free(&why);
    return 0;
}
