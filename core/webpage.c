/*
 * webpage.c - a web page with its assets inlined (core/webpage.h).
 *
 * DESIGN: the pages reference their assets in exactly two forms, which
 * the recorder serves under /static/; inlining rewrites those two forms
 * and refuses any other /static/ reference in the page, so a page that gains
 * another kind of reference fails the report's tests instead of
 * producing a file that silently needs a server.
 */
#include <string.h>
#include <strings.h>

#include "core/err.h"
#include "core/web/assets.h"
#include "core/webpage.h"

#define LINK_OPEN   "<link rel=\"stylesheet\" href=\"/static/"
#define LINK_CLOSE  "\">"
#define SCRIPT_OPEN "<script src=\"/static/"
#define SCRIPT_CLOSE "\"></script>"

/* 1 when the n bytes at p contain `end` (ASCII, any case). */
static int
contains(const unsigned char *p, size_t n, const char *end)
{
    size_t k = strlen(end), i;

    for (i = 0; i + k <= n; i++)
        if (strncasecmp((const char *)p + i, end, k) == 0)
            return 1;
    return 0;
}

/* The asset named by the text at p (up to `close`), inlined between
 * `tag` and `untag`; *used is the length of the reference.  0 or -1. */
static int
put_asset(arb_buf_t *out, const char *p, const char *close, const char *tag,
          const char *untag, size_t *used, arb_buf_t *why)
{
    const arb_web_asset_t *a;
    const char            *e = strstr(p, close);
    char                   name[64];
    size_t                 n;

    n = e != NULL ? (size_t)(e - p) : 0;
    if (e == NULL || n == 0 || n >= sizeof(name) || memchr(p, '/', n)) {
        arb_buf_printf(why, "a malformed asset reference near '%.40s'", p);
        return -1;
    }
    memcpy(name, p, n);
    name[n] = '\0';
    a = arb_web_asset(name);
    if (a == NULL) {
        arb_buf_printf(why, "no asset '%s'", name);
        return -1;
    }
    /* untag without its '>' ("</script", "</style") must not occur in
     * the asset, or the browser would end the element there. */
    if (contains(a->data, a->len, "</script")
        || contains(a->data, a->len, "</style")) {
        arb_buf_printf(why, "asset '%s' contains an end tag", name);
        return -1;
    }
    arb_buf_puts(out, tag);
    arb_buf_add(out, a->data, a->len);
    arb_buf_puts(out, untag);
    *used = n + strlen(close);
    return 0;
}

int
arb_webpage_inline(arb_buf_t *out, const char *name, const char *data_json,
                   arb_buf_t *why)
{
    const arb_web_asset_t *page = arb_web_asset(name);
    const char            *p, *d;
    size_t                 start = out->len, used;
    int                    data_done = data_json == NULL;

    if (page == NULL) {
        arb_buf_printf(why, "no page '%s'", name);
        return ARB_ENOTFOUND;
    }
    for (p = (const char *)page->data; *p != '\0'; p++) {
        if (strncmp(p, LINK_OPEN, strlen(LINK_OPEN)) == 0) {
            p += strlen(LINK_OPEN);
            if (put_asset(out, p, LINK_CLOSE, "<style>\n", "</style>",
                          &used, why) != 0)
                goto fail;
            p += used - 1;
        } else if (strncmp(p, SCRIPT_OPEN, strlen(SCRIPT_OPEN)) == 0) {
            if (!data_done) {
                arb_buf_puts(out, "<script>window.ARB_DATA = ");
                for (d = data_json; *d != '\0'; d++)
                    if (*d == '<')
                        arb_buf_puts(out, "\\u003c");
                    else
                        arb_buf_putc(out, *d);
                arb_buf_puts(out, ";</script>\n");
                data_done = 1;
            }
            p += strlen(SCRIPT_OPEN);
            if (put_asset(out, p, SCRIPT_CLOSE, "<script>\n", "</script>",
                          &used, why) != 0)
                goto fail;
            p += used - 1;
        } else if (strncmp(p, "/static/", 8) == 0) {
            arb_buf_printf(why, "page '%s' refers to %.40s another way",
                           name, p);
            goto fail;
        } else {
            arb_buf_putc(out, *p);
        }
    }
    if (!data_done) {
        arb_buf_printf(why, "page '%s' has no script to give data to", name);
        goto fail;
    }
    return out->oom ? ARB_ENOMEM : 0;
fail:
    out->len = start;
    return ARB_EINVAL;
}
