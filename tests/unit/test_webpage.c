/*
 * test_webpage.c - a page with its assets inlined (core/webpage.h): every
 * page of core/web inlines (each asset it names exists, nothing is left
 * for the network), the data cannot end its script, an unknown page is
 * refused.
 */
#include <string.h>

#include "core/err.h"
#include "core/web/assets.h"
#include "core/webpage.h"
#include "tests/test.h"

static size_t
occurrences(const char *s, const char *what)
{
    size_t n = 0;

    for (; (s = strstr(s, what)) != NULL; s++)
        n++;
    return n;
}

int
main(void)
{
    arb_buf_t              out = ARB_BUF_INIT, why = ARB_BUF_INIT;
    const arb_web_asset_t *a;
    size_t                 pages = 0;

    /* Every page, as the recorder serves it, can be made self-contained. */
    for (a = arb_web_assets; a->name != NULL; a++) {
        if (strstr(a->name, ".html") == NULL)
            continue;
        pages++;
        out.len = 0;
        CHECK(arb_webpage_inline(&out, a->name, NULL, &why) == 0);
        arb_buf_putc(&out, '\0');
        CHECK(strstr(out.data, "/static/") == NULL);
        CHECK(strstr(out.data, "src=\"") == NULL);
        /* The SVG namespace is a name, never fetched. */
        CHECK_INT(occurrences(out.data, "http://"),
                  occurrences(out.data, "http://www.w3.org/2000/svg"));
        CHECK(strstr(out.data, "https://") == NULL);
        CHECK(strstr(out.data, "ARB_DATA =") == NULL);
    }
    CHECK(pages >= 2);

    /* The data: every '<' escaped, so "</script>" in a note stays text. */
    out.len = 0;
    CHECK(arb_webpage_inline(&out, "match.html",
                             "{\"note\":\"</script><script>x()</script>\"}",
                             &why) == 0);
    arb_buf_putc(&out, '\0');
    CHECK(strstr(out.data, "window.ARB_DATA = {\"note\":\"\\u003c/script>"
                 "\\u003cscript>x()\\u003c/script>\"};</script>") != NULL);
    /* The data's script, then table.js, net.js and app.js, each closed
     * once. */
    CHECK_INT(occurrences(out.data, "</script>"), 4);
    CHECK(strstr(out.data, "ARB.table = function") != NULL);
    CHECK(strstr(out.data, "<style>") != NULL);
    /* The data comes before the scripts that read it. */
    CHECK(strstr(out.data, "ARB_DATA =") < strstr(out.data, "ARB.table ="));

    out.len = 0;
    CHECK_INT(arb_webpage_inline(&out, "nosuch.html", "{}", &why),
              ARB_ENOTFOUND);
    CHECK(strstr(arb_buf_cstr(&why), "nosuch.html") != NULL);
    CHECK_INT(out.len, 0);
    arb_buf_free(&out);
    arb_buf_free(&why);
    return TEST_END();
}
