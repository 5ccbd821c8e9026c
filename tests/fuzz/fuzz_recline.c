/*
 * fuzz_recline.c - the line splitter of `arbiter record` reading a pipe
 * (tools/record_line.c, plain mode: a script of moves piped in) on
 * arbitrary bytes.  The input is what arrives on the pipe (byte 0x01 and
 * a count n standing for a run of 64 * (n + 1) 'x', so that lines over the
 * limit and over the read buffer need no long input), written in chunks
 * whose sizes come from the text itself, and every complete line is taken
 * as soon as it is there.
 *
 * Invariants: the lines returned are exactly the input's lines, in order:
 * each cut at the first '\n', without it, without one '\r' before it, and
 * cut to REC_LINE_MAX bytes when longer (the rest of that line dropped),
 * and flagged when it holds a NUL byte;
 * an unterminated last line is returned at the end of the input; then the
 * splitter says the input has ended, and nothing more.
 *
 * Corpus: tests/fuzz/corpus/recline (scripts, CRLF, over-long lines).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/fuzz/fuzz.h"
#include "tools/record.h"

/* The next line the splitter must return from text[*off..len): 1 with
 * the expected bytes in want[0..*wlen) and *too_long set when the line
 * (its CR aside) is over REC_LINE_MAX bytes, 0 when the input is used
 * up. */
static int
expect_line(const char *text, size_t len, size_t *off, const char **want,
            size_t *wlen, int *too_long)
{
    const char *s = text + *off, *nl;
    size_t      n;

    if (*off >= len)
        return 0;
    nl = memchr(s, '\n', len - *off);
    n = nl != NULL ? (size_t)(nl - s) : len - *off;
    *off += nl != NULL ? n + 1 : n;
    *too_long = n - (n > 0 && s[n - 1] == '\r') > REC_LINE_MAX;
    if (n > REC_LINE_MAX)
        n = REC_LINE_MAX;
    if (n > 0 && s[n - 1] == '\r')
        n--;
    *want = s;
    *wlen = n;
    return 1;
}

/* Takes every line the splitter has and checks it against the model. */
static void
take_lines(rec_line_t *l, const char *text, size_t len, size_t *off,
           int ended)
{
    const char *line, *want, *nul;
    size_t      wlen;
    int         rc, too_long;

    while ((rc = rec_line_next(l, &line)) >= 1 && rc <= 3) {
        FUZZ_CHECK(expect_line(text, len, off, &want, &wlen, &too_long));
        /* An over-long line is flagged (3), never sent cut short; one
         * with a NUL is flagged (2), never cut short unseen. */
        nul = memchr(want, '\0', wlen);
        FUZZ_CHECK(rc == (too_long ? 3 : nul != NULL ? 2 : 1));
        if (nul != NULL)
            wlen = (size_t)(nul - want);
        FUZZ_CHECK(strlen(line) == wlen && memcmp(line, want, wlen) == 0);
    }
    if (ended) {
        FUZZ_CHECK(rc == -1);
        FUZZ_CHECK(!expect_line(text, len, off, &want, &wlen, &too_long));
        FUZZ_CHECK(rec_line_next(l, &line) == -1);
    } else {
        FUZZ_CHECK(rc == 0);
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char text[1 << 16];
    rec_line_t *l;
    size_t      len = 0, off = 0, i, chunk, pending, before;
    int         p[2];
    ssize_t     w;

    /* The text: the input, runs expanded. */
    for (i = 0; i < size && len < sizeof(text); i++) {
        if (data[i] == 1 && i + 1 < size) {
            chunk = 64 * ((size_t)data[++i] + 1);
            if (chunk > sizeof(text) - len)
                chunk = sizeof(text) - len;
            memset(text + len, 'x', chunk);
            len += chunk;
        } else {
            text[len++] = (char)data[i];
        }
    }
    l = calloc(1, sizeof(*l));
    FUZZ_CHECK(l != NULL);
    FUZZ_CHECK(pipe(p) == 0);
    FUZZ_CHECK(rec_line_open(l, p[0], 0) == 0);
    /* Chunks of 1..4 KiB (under the pipe's capacity), each read as soon
     * as it is written: the splitter sees the text cut everywhere. */
    for (i = 0; i < len; i += chunk) {
        chunk = 1 + ((size_t)(unsigned char)text[i] * 17) % 4096;
        if (chunk > len - i)
            chunk = len - i;
        w = write(p[1], text + i, chunk);
        FUZZ_CHECK(w == (ssize_t)chunk);
        for (pending = chunk; pending > 0;) {
            before = l->inlen;
            rec_line_fill(l);
            FUZZ_CHECK(!l->eof && l->inlen > before);
            pending -= l->inlen - before;
            take_lines(l, text, len, &off, 0);
        }
    }
    close(p[1]);
    rec_line_fill(l);
    FUZZ_CHECK(l->eof);
    take_lines(l, text, len, &off, 1);
    rec_line_close(l);
    close(p[0]);
    free(l);
    return 0;
}
