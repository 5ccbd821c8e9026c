/*
 * fuzz_replica_pos.c - a read replica's resume point, DATA/replica.pos
 * (arb_replica_pos_parse, daemon/replica_pos.c).  A position read wrongly
 * would make a restarted replica skip messages it never read.
 *
 * Invariants: a refusal is ARB_ECORRUPT naming the line; a position read
 * has a stream name, a last sequence of at least 1, a `from` between 1
 * and one past it, and times that are not negative; its marks (places
 * read before) are ascending, at most the last sequence, at most
 * ARB_REPLICA_POS_MARKS; its canonical text (what the replica writes) is
 * four lines and one per mark, reads back as the same position and
 * prints again byte for byte.
 *
 * Corpus: tests/fuzz/corpus/replica_pos (files a replica writes, and
 * refusals).
 */
#include <stdint.h>
#include <string.h>

#include "core/buf.h"
#include "core/err.h"
#include "daemon/replica_pos.h"
#include "tests/fuzz/fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    arb_replica_pos_t p, again;
    arb_buf_t         why = ARB_BUF_INIT, text = ARB_BUF_INIT;
    arb_buf_t         text2 = ARB_BUF_INIT;
    size_t            i, lines = 0;
    int               rc;

    rc = arb_replica_pos_parse(&p, (const char *)data, size, &why);
    if (rc != 0) {
        FUZZ_CHECK(rc == ARB_ECORRUPT);
        FUZZ_CHECK(arb_buf_cstr(&why) != NULL
                   && strncmp(arb_buf_cstr(&why), "line ", 5) == 0);
        arb_buf_free(&why);
        return 0;
    }
    FUZZ_CHECK(why.len == 0);
    FUZZ_CHECK(p.stream[0] != '\0');
    FUZZ_CHECK(p.last >= 1 && p.from >= 1 && p.from - 1 <= p.last);
    FUZZ_CHECK(p.created_ns >= 0 && p.last_ns >= 0);
    for (i = 0; i < size; i++)
        lines += data[i] == '\n';
    FUZZ_CHECK(p.nmarks <= ARB_REPLICA_POS_MARKS);
    FUZZ_CHECK(lines == 4 + p.nmarks);
    for (i = 0; i < p.nmarks; i++)
        FUZZ_CHECK(p.mark_seq[i] <= p.last && p.mark_ns[i] >= 0
                   && (i == 0 || p.mark_seq[i] > p.mark_seq[i - 1]));

    FUZZ_CHECK(arb_replica_pos_format(&text, &p) == 0);
    FUZZ_CHECK(arb_replica_pos_parse(&again, text.data, text.len, &why)
               == 0);
    FUZZ_CHECK(memcmp(&again, &p, sizeof(p)) == 0);
    FUZZ_CHECK(arb_replica_pos_format(&text2, &again) == 0);
    FUZZ_CHECK(text2.len == text.len
               && memcmp(text2.data, text.data, text.len) == 0);

    arb_buf_free(&text2);
    arb_buf_free(&text);
    arb_buf_free(&why);
    return 0;
}
