/*
 * fuzz_cursor.c - the replication cursor file, DATA/replicate.pos
 * (arb__repl_cursor_parse, daemon/replicate_cursor.c).  The daemon does
 * not start on a cursor it cannot read: a cursor read wrongly could skip
 * events in the stream, or answer a refused event as replicated.
 *
 * Invariants: a refusal is ARB_ECORRUPT naming the line (or "empty"),
 * with nothing kept; a cursor read has refused positions strictly
 * ascending, at most ARB_REPL_REFUSED_MAX of them, and a walked time
 * that is positive or absent; its canonical text (what the daemon
 * writes) reads back as the same cursor and prints again byte for byte,
 * and has exactly one line per item.
 *
 * Corpus: tests/fuzz/corpus/cursor (files the daemon writes, an earlier
 * version's one line, and refusals).
 */
#include <stdint.h>
#include <string.h>

#include "core/buf.h"
#include "core/err.h"
#include "daemon/replicate_int.h"
#include "tests/fuzz/fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    arb_repl_cursor_t c, again;
    arb_buf_t         why = ARB_BUF_INIT, text = ARB_BUF_INIT;
    arb_buf_t         text2 = ARB_BUF_INIT;
    const char       *w;
    size_t            i, lines = 0;
    int               rc;

    rc = arb__repl_cursor_parse(&c, (const char *)data, size, &why);
    if (rc != 0) {
        FUZZ_CHECK(rc == ARB_ECORRUPT || rc == ARB_ENOMEM);
        FUZZ_CHECK(c.refused == NULL && c.nrefused == 0);
        w = arb_buf_cstr(&why);
        FUZZ_CHECK(w != NULL);
        FUZZ_CHECK(rc != ARB_ECORRUPT || strncmp(w, "line ", 5) == 0
                   || strcmp(w, "empty") == 0);
        arb_buf_free(&why);
        return 0;
    }
    FUZZ_CHECK(why.len == 0);
    FUZZ_CHECK(c.nrefused <= ARB_REPL_REFUSED_MAX);
    FUZZ_CHECK((c.nrefused == 0) == (c.refused == NULL));
    for (i = 1; i < c.nrefused; i++)
        FUZZ_CHECK(c.refused[i - 1] < c.refused[i]);
    FUZZ_CHECK(c.walked_ms >= 0);
    /* The input had one line per item too. */
    for (i = 0; i < size; i++)
        lines += data[i] == '\n';
    FUZZ_CHECK(lines == 1 + (c.walked_ms > 0) + c.nrefused);

    FUZZ_CHECK(arb__repl_cursor_format(&text, &c) == 0);
    FUZZ_CHECK(arb__repl_cursor_parse(&again, text.data, text.len, &why)
               == 0);
    FUZZ_CHECK(again.published == c.published);
    FUZZ_CHECK(again.walked_ms == c.walked_ms);
    FUZZ_CHECK(again.nrefused == c.nrefused);
    FUZZ_CHECK(c.nrefused == 0
               || memcmp(again.refused, c.refused,
                         c.nrefused * sizeof(*c.refused)) == 0);
    FUZZ_CHECK(arb__repl_cursor_format(&text2, &again) == 0);
    FUZZ_CHECK(text2.len == text.len
               && memcmp(text2.data, text.data, text.len) == 0);

    arb__repl_cursor_clear(&again);
    arb__repl_cursor_clear(&c);
    arb_buf_free(&text2);
    arb_buf_free(&text);
    arb_buf_free(&why);
    return 0;
}
