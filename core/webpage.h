/*
 * webpage.h - one of the web pages (core/web) as a single self-contained
 * HTML file: its style sheet and scripts inlined, and the data the page
 * would otherwise fetch from the recorder's API given as window.ARB_DATA.
 * `arbiter report --html` writes one; any tool that wants an offline page
 * (a tournament's) uses the same function, so there is one way to embed.
 */
#ifndef ARB_WEBPAGE_H
#define ARB_WEBPAGE_H

#include "core/buf.h"

/* Appends page `name` (an asset, e.g. "match.html") to out, with each
 * <link rel="stylesheet" href="/static/F"> and <script src="/static/F">
 * replaced by the asset F inline, and `data_json` (one JSON value; NULL
 * for none) assigned to window.ARB_DATA before the first script.  Every
 * '<' of the data is written as \u003c, so no string in it can end the
 * script.  0, or ARB_ENOTFOUND / ARB_EINVAL with the reason in why (an
 * unknown asset, a reference left that would need the network, an asset
 * that cannot be inlined), ARB_ENOMEM. */
int arb_webpage_inline(arb_buf_t *out, const char *name,
                       const char *data_json, arb_buf_t *why);

#endif
