/*
 * view.c - see view.h.
 */
#include "core/view.h"

#include "core/replay.h"

int
arb_view_report(arb_buf_t *out, const arb_match_t *m, const arb_viewer_t *who)
{
    (void)who;
    return arb_report_json(out, m);
}
