/*
 * rulings.c - see rulings.h.
 */
#include <inttypes.h>
#include <string.h>

#include "core/err.h"
#include "core/json.h"
#include "core/rulings.h"
#include "core/transcript.h"
#include "core/view.h"

/* The viewer a report's `seen` stands for: every seat, one seat, or
 * none (the canonical report every viewer may read). */
static arb_viewer_t
viewer_of(unsigned seen)
{
    arb_viewer_t who = { ARB_VIEW_PUBLIC, 0 };
    unsigned     s;

    if (seen == ~0u) {
        who.kind = ARB_VIEW_HANDS;
    } else if (seen != 0 && (seen & (seen - 1)) == 0) {
        for (s = 0; !(seen & (1u << s)); s++)
            ;
        who.kind = ARB_VIEW_SEAT;
        who.seat = s;
    }
    return who;
}

typedef struct {
    const arb_match_t *m;
    arb_viewer_t       who;
    json_t            *list;     /* JSON: the array */
    arb_buf_t         *text;     /* text: the lines */
    size_t             n;
} walk_t;

/* The ruling as the viewer may see it: *seen to release. */
static int
seen_ruling(const walk_t *w, const arb_event_t *ruling, arb_event_t *seen)
{
    int rc = arb_view_event(seen, ruling, arb_match_setup(w->m),
                            arb_match_closed(w->m), &w->who);

    return rc < 0 ? rc : 0;
}

static int
add_json(void *ud, const arb_event_t *ruling, uint64_t undone_by)
{
    walk_t     *w = ud;
    arb_event_t seen, mv;
    arb_buf_t   line = ARB_BUF_INIT;
    json_t     *o;
    int         bad;

    if (seen_ruling(w, ruling, &seen) != 0)
        return ARB_ENOMEM;
    o = json_object();
    bad = arb_json_set(o, "seq", json_integer((json_int_t)ruling->seq));
    bad |= arb_json_set(o, "kind",
                        json_string(arb_event_kind_name(ruling->kind)));
    if (ruling->kind != ARB_EV_STANDS)
        bad |= arb_json_set(o, "target",
                            json_integer((json_int_t)ruling->target));
    if (ruling->kind != ARB_EV_VOID) {
        /* The move alone: its transcript words without the ruling's. */
        mv = seen;
        mv.kind = ARB_EV_MOVE;
        mv.text = NULL;
        arb_transcript_event_line(&line, &mv);
        bad |= line.oom || arb_json_set(o, "move",
                                        arb_json_string(arb_buf_cstr(&line)));
    }
    bad |= arb_json_set(o, "reason", arb_json_string(seen.text));
    if (undone_by != 0)
        bad |= arb_json_set(o, "undone_by",
                            json_integer((json_int_t)undone_by));
    bad |= arb_json_add(w->list, o);
    arb_buf_free(&line);
    arb_event_clear(&seen);
    return bad ? ARB_ENOMEM : 0;
}

int
arb_rulings_set_json(json_t *o, const arb_match_t *m, unsigned seen)
{
    walk_t w;
    int    rc;

    memset(&w, 0, sizeof(w));
    w.m = m;
    w.who = viewer_of(seen);
    w.list = json_array();
    if (w.list == NULL)
        return ARB_ENOMEM;
    rc = arb_match_rulings(m, add_json, &w);
    if (rc == 0 && json_array_size(w.list) > 0)
        return arb_json_set(o, "rulings", w.list) != 0 ? ARB_ENOMEM : 0;
    json_decref(w.list);
    return rc != 0 ? ARB_ENOMEM : 0;
}

static int
count(void *ud, const arb_event_t *ruling, uint64_t undone_by)
{
    (void)ruling;
    (void)undone_by;
    ((walk_t *)ud)->n++;
    return 0;
}

static int
add_line(void *ud, const arb_event_t *ruling, uint64_t undone_by)
{
    walk_t     *w = ud;
    arb_event_t seen;

    if (seen_ruling(w, ruling, &seen) != 0)
        return ARB_ENOMEM;
    arb_buf_printf(w->text, "  seq %" PRIu64 ": ", ruling->seq);
    arb_transcript_event_line(w->text, &seen);
    if (undone_by != 0)
        arb_buf_printf(w->text, "  (undone at seq %" PRIu64 ")", undone_by);
    arb_buf_putc(w->text, '\n');
    arb_event_clear(&seen);
    return w->text->oom ? ARB_ENOMEM : 0;
}

int
arb_rulings_text(arb_buf_t *out, const arb_match_t *m, unsigned seen)
{
    walk_t w;
    int    rc;

    memset(&w, 0, sizeof(w));
    w.m = m;
    w.who = viewer_of(seen);
    w.text = out;
    rc = arb_match_rulings(m, count, &w);
    if (rc != 0 || w.n == 0)
        return rc;
    arb_buf_printf(out, "rulings: %zu\n", w.n);
    return arb_match_rulings(m, add_line, &w);
}
