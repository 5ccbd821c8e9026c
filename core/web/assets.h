/*
 * assets.h - the web pages' files (HTML, CSS, JavaScript, SVG in core/web),
 * compiled into the binaries so that the recorder serves them and
 * `arbiter report --html` inlines them without any file or network access.
 * The table is generated at build time by core/web/embed.sh.
 */
#ifndef ARB_WEB_ASSETS_H
#define ARB_WEB_ASSETS_H

#include <stddef.h>

typedef struct {
    const char          *name;   /* file name under core/web/, e.g. "match.js" */
    const char          *type;   /* Content-Type, with charset for text */
    const unsigned char *data;   /* NUL-terminated after len bytes */
    size_t               len;
} arb_web_asset_t;

/* The asset called `name` (no directories), or NULL. */
const arb_web_asset_t *arb_web_asset(const char *name);
/* The table, in name order, ending with a NULL name. */
extern const arb_web_asset_t arb_web_assets[];

#endif
