/*
 * board.c - the director's board (core/board.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/board.h"
#include "core/err.h"
#include "core/json.h"

#define UNDO_PREFIX "undo requested: seq "

const char *
arb_board_status_name(int status)
{
    static const char *const names[] = { "disputed", "undo_requested",
                                         "finished", "not_started",
                                         "playing", "closed" };

    return status >= 0 && status <= ARB_BOARD_CLOSED ? names[status] : "?";
}

void
arb_undo_note(arb_buf_t *b, uint64_t seq, const char *what)
{
    arb_buf_printf(b, UNDO_PREFIX "%" PRIu64 " (%s)", seq, what);
}

int
arb_undo_note_seq(const char *text, uint64_t *seq)
{
    const char *p;
    char       *end;

    if (text == NULL || strncmp(text, UNDO_PREFIX, strlen(UNDO_PREFIX)) != 0)
        return -1;
    p = text + strlen(UNDO_PREFIX);
    if (*p < '1' || *p > '9')
        return -1;
    *seq = strtoull(p, &end, 10);
    return end != p && (*end == ' ' || *end == '\0') ? 0 : -1;
}

int
arb_board_status(const arb_match_t *m, uint64_t seq, uint64_t *undo_seq)
{
    arb_results_t       r;
    const uint64_t     *undo;
    const arb_field_t  *f;
    uint64_t            by;
    size_t              i;
    int                 disputed = 0;

    *undo_seq = 0;
    if (m == NULL)
        return ARB_BOARD_NOT_STARTED;
    memset(&r, 0, sizeof(r));
    if (arb_match_results(m, &r) != 0) {
        arb_results_clear(&r);
        return ARB_ENOMEM;
    }
    for (i = 0; i < r.nrecords; i++) {
        f = arb_record_get(&r.records[i], "status");
        disputed |= f != NULL && f->str != NULL
                    && strcmp(f->str, "disputed") == 0;
    }
    arb_results_clear(&r);
    if (disputed)
        return ARB_BOARD_DISPUTED;
    /* The latest undo request not yet voided by an arbiter. */
    for (i = arb_match_undo_requests(m, &undo); i > 0; i--) {
        if (arb_match_ruling(m, undo[i - 1], &by) == ARB_RULED_NONE) {
            *undo_seq = undo[i - 1];
            return ARB_BOARD_UNDO;
        }
    }
    if (arb_match_closed(m))
        return ARB_BOARD_CLOSED;
    if (arb_match_finished(m))
        return ARB_BOARD_FINISHED;
    return seq == 0 ? ARB_BOARD_NOT_STARTED : ARB_BOARD_PLAYING;
}

static const arb_board_table_t *sort_base;

static int
cmp_tables(const void *pa, const void *pb)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;

    if (sort_base[a].status != sort_base[b].status)
        return sort_base[a].status < sort_base[b].status ? -1 : 1;
    return a < b ? -1 : a > b;
}

int
arb_board_json(arb_buf_t *b, const char *tournament, uint64_t round,
               const arb_board_table_t *t, size_t n)
{
    size_t *order, i, j;

    order = calloc(n + 1, sizeof(*order));
    if (order == NULL)
        return ARB_ENOMEM;
    for (i = 0; i < n; i++)
        order[i] = i;
    sort_base = t;
    if (n > 1)
        qsort(order, n, sizeof(*order), cmp_tables);
    arb_buf_puts(b, "{\"tournament\":");
    arb_json_str(b, tournament);
    arb_buf_printf(b, ",\"round\":%" PRIu64 ",\"tables\":[", round);
    for (i = 0; i < n; i++) {
        const arb_board_table_t *x = &t[order[i]];
        arb_buf_puts(b, i ? ",{\"table\":" : "{\"table\":");
        arb_json_str(b, x->table);
        arb_buf_puts(b, ",\"match\":");
        arb_json_str(b, x->match);
        arb_buf_puts(b, ",\"players\":[");
        for (j = 0; j < x->nplayers; j++) {
            if (j)
                arb_buf_putc(b, ',');
            arb_json_str(b, x->players[j]);
        }
        arb_buf_printf(b, "],\"status\":\"%s\",\"seq\":%" PRIu64
                       ",\"last_move_ms\":%" PRId64,
                       arb_board_status_name(x->status), x->seq, x->last_ms);
        if (x->status == ARB_BOARD_UNDO)
            arb_buf_printf(b, ",\"undo_seq\":%" PRIu64, x->undo_seq);
        arb_buf_putc(b, '}');
    }
    arb_buf_puts(b, "]}\n");
    free(order);
    return b->oom ? ARB_ENOMEM : 0;
}
