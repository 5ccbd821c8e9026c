/*
 * replicate_cursor.c - DATA/replicate.pos, the replication cursor file
 * (docs/SCALE.md, "The durable cursor").
 *
 * The text, one item per line, each line ending in a newline:
 *   published P      every event of the log up to position P has a PubAck
 *   walked T         (optional) a pass that read every subject began at
 *                    wall-clock time T (ms) and found them whole
 *   refused Q        (any number, ascending) a position the cursor passed
 *                    without publishing it: its match is fenced
 * A file of an earlier version has the first line only.  Anything else is
 * refused naming the line: the daemon does not start on a cursor it
 * cannot read (a cursor read wrongly could skip events or answer a
 * refused event as replicated).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/num.h"
#include "core/smallfile.h"
#include "daemon/replicate_int.h"

/* A file this large cannot be one we wrote (ARB_REPL_REFUSED_MAX lines
 * of at most 29 bytes). */
#define CURSOR_FILE_MAX ((size_t)ARB_REPL_REFUSED_MAX * 32 + 4096)

void
arb__repl_cursor_clear(arb_repl_cursor_t *c)
{
    if (c == NULL)
        return;
    free(c->refused);
    memset(c, 0, sizeof(*c));
}

int
arb__repl_cursor_parse(arb_repl_cursor_t *c, const char *text, size_t len,
                       arb_buf_t *why)
{
    const char *p = text, *end = text + len, *nl;
    size_t      line = 0, cap = 0;
    uint64_t    v;
    int         rc = ARB_ECORRUPT;

    memset(c, 0, sizeof(*c));
    if (len == 0) {
        arb_buf_puts(why, "empty");
        return ARB_ECORRUPT;
    }
    for (; p < end; p = nl + 1) {
        const char *arg;
        size_t      alen;
        int         kind;   /* 0 published, 1 walked, 2 refused */

        line++;
        nl = memchr(p, '\n', (size_t)(end - p));
        if (nl == NULL) {
            arb_buf_printf(why, "line %zu: no newline at its end", line);
            goto fail;
        }
        if ((size_t)(nl - p) > 10 && memcmp(p, "published ", 10) == 0)
            kind = 0, arg = p + 10;
        else if ((size_t)(nl - p) > 7 && memcmp(p, "walked ", 7) == 0)
            kind = 1, arg = p + 7;
        else if ((size_t)(nl - p) > 8 && memcmp(p, "refused ", 8) == 0)
            kind = 2, arg = p + 8;
        else
            kind = -1, arg = p;
        alen = (size_t)(nl - arg);
        /* published on line 1 only, walked on line 2 only, refused on
         * any later line */
        if (line == 1 ? kind != 0 : kind == 0 || kind == -1
                                    || (kind == 1 && line != 2)) {
            arb_buf_printf(why, "line %zu: %s", line,
                           line == 1 ? "not \"published POSITION\""
                           : "not \"walked TIME\" (line 2) or \"refused "
                             "POSITION\"");
            goto fail;
        }
        if (arb_u64_parse(arg, alen, &v) != 0) {
            arb_buf_printf(why, "line %zu: \"%.*s\" is not a number",
                           line, (int)(alen > 24 ? 24 : alen), arg);
            goto fail;
        }
        if (kind == 0) {
            c->published = v;
        } else if (kind == 1) {
            if (v == 0 || v > INT64_MAX) {
                arb_buf_printf(why, "line %zu: not a time", line);
                goto fail;
            }
            c->walked_ms = (int64_t)v;
        } else {
            if (c->nrefused > 0 && v <= c->refused[c->nrefused - 1]) {
                arb_buf_printf(why, "line %zu: refused positions must "
                               "ascend", line);
                goto fail;
            }
            if (c->nrefused >= ARB_REPL_REFUSED_MAX) {
                arb_buf_printf(why, "line %zu: more than %u refused "
                               "positions", line, ARB_REPL_REFUSED_MAX);
                goto fail;
            }
            if (c->nrefused == cap) {
                size_t    ncap = cap ? cap * 2 : 64;
                uint64_t *nr = realloc(c->refused, ncap * sizeof(*nr));

                if (nr == NULL) {
                    rc = ARB_ENOMEM;
                    arb_buf_puts(why, "out of memory");
                    goto fail;
                }
                c->refused = nr;
                cap = ncap;
            }
            c->refused[c->nrefused++] = v;
        }
    }
    return 0;

fail:
    arb__repl_cursor_clear(c);
    return rc;
}

int
arb__repl_cursor_load(arb_repl_cursor_t *c, const char *path,
                      arb_buf_t *why)
{
    arb_buf_t text = ARB_BUF_INIT;
    int       rc;

    memset(c, 0, sizeof(*c));
    rc = arb_smallfile_read(path, CURSOR_FILE_MAX, &text, why);
    if (rc == ARB_ENOTFOUND) {
        rc = 0;                 /* nothing published yet */
    } else if (rc == ARB_ETOOBIG) {
        why->len = 0;
        arb_buf_printf(why, "%s: not a replication cursor: larger than "
                       "%zu bytes", path, (size_t)CURSOR_FILE_MAX);
        rc = ARB_ECORRUPT;
    } else if (rc == 0) {
        arb_buf_printf(why, "%s: not a replication cursor: ", path);
        rc = arb__repl_cursor_parse(c, text.data, text.len, why);
        if (rc == 0)
            why->len = 0;
    }
    arb_buf_free(&text);
    return rc;
}

int
arb__repl_cursor_format(arb_buf_t *out, const arb_repl_cursor_t *c)
{
    size_t i;

    out->len = 0;
    arb_buf_printf(out, ARB_STREAM_CURSOR_FMT, c->published);
    if (c->walked_ms > 0)
        arb_buf_printf(out, "walked %" PRId64 "\n", c->walked_ms);
    for (i = 0; i < c->nrefused; i++)
        arb_buf_printf(out, "refused %" PRIu64 "\n", c->refused[i]);
    return out->oom ? ARB_ENOMEM : 0;
}

int
arb__repl_cursor_save(const char *path, const arb_repl_cursor_t *c)
{
    arb_buf_t b = ARB_BUF_INIT;
    int       rc;

    if (arb__repl_cursor_format(&b, c) != 0) {
        arb_buf_free(&b);
        errno = ENOMEM;
        return -1;
    }
    rc = arb_smallfile_replace(path, b.data, b.len);
    arb_buf_free(&b);
    return rc;
}
