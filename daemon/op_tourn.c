/*
 * op_tourn.c - a tournament's board and standings (docs/TOURNAMENT.md),
 * read from committed events only.
 *
 * DESIGN: the daemon assembles the same view as the tools
 * (core/tourn_view.h), from its store, so `arbiter tournament board` and
 * this op print the same JSON.  Each match is replayed up to what the loop
 * knows is committed, as `state` does.
 */
#include <string.h>

#include "core/err.h"
#include "core/mp.h"
#include "core/tourn_view.h"
#include "daemon/dispatch.h"

/* The committed match `id` (core/tourn_view.h's loader). */
static int
load_committed(void *ud, const char *id, arb_match_t **m, uint64_t *seq,
               int64_t *last_ms, unsigned char *head, int *has_head,
               int *moved, arb_buf_t *why)
{
    arb_server_t    *srv = ud;
    arb_match_info_t info;
    uint64_t         upto;
    int              rc;

    rc = arb_store_match(srv->store, id, &info, NULL);
    if (rc != 0)
        return rc;
    upto = arb_live_committed(srv, id, &info);
    /* (ARB_ESEALED: a read replica without a running dealt match's
     * deal; the table is shown in play.) */
    rc = arb_live_replay(srv, id, upto, m, why);
    if (rc != 0 && rc != ARB_ESEALED)
        return rc;
    /* Sealed: in play once a move is recorded (notes are none), as the
     * primary's board says; the events' kinds are readable (until
     * 2026-12-06 a replica said "playing" after a note). */
    if (rc == ARB_ESEALED) {
        uint64_t    k;
        arb_event_t ev;

        for (k = 1; k <= upto && !*moved; k++)
            if (arb_live_event(srv, id, k, &ev) == 0) {
                *moved = ev.kind == ARB_EV_MOVE || ev.kind == ARB_EV_STANDS;
                arb_event_clear(&ev);
            }
    }
    *seq = upto;
    /* The index's last event is the one replayed unless a commit is
     * still being indexed: then its time and head are not known here. */
    *has_head = upto == info.last_seq;
    *last_ms = *has_head ? info.last_ms : 0;
    if (*has_head)
        memcpy(head, info.head, ARB_HASH_LEN);
    return rc;
}

enum { TO_TOURNAMENT, TO_FORMAT, TO_N };
static const arb_req_field_t tourn_fields[TO_N] = {
    [TO_TOURNAMENT] = { "tournament", ARB_REQ_STR, ARB_REQ_REQUIRED, 0, 0 },
    [TO_FORMAT]     = { "format",     ARB_REQ_STR, ARB_REQ_OPTIONAL, 0, 0 },
};

int
arb_tourn_read(arb_server_t *srv, const char *id, int board, int json,
               arb_buf_t *out, arb_buf_t *why)
{
    arb_tview_t      v;
    arb_match_info_t info;
    arb_match_t     *t = NULL;
    int64_t       ms;
    uint64_t      seq;
    int           hh, moved = 0, rc;
    unsigned char head[ARB_HASH_LEN];

    memset(&v, 0, sizeof(v));
    /* Named from the store first: a match that is no tournament is not
     * replayed to find out (a replica could not replay a running dealt
     * one, and answered that instead, until 2026-12-05). */
    if (arb_store_match(srv->store, id, &info, why) == 0
        && strcmp(info.game, "tournament") != 0) {
        why->len = 0;
        arb_buf_printf(why, "match %s is a %s match, not a tournament", id,
                       info.game);
        return ARB_EINVAL;
    }
    why->len = 0;
    rc = load_committed(srv, id, &t, &seq, &ms, head, &hh, &moved, why);
    if (rc == 0)
        rc = arb_tview_build(&v, t, 1, load_committed, srv, why);
    if (rc == 0)
        rc = board ? arb_tview_board(out, &v)
                   : arb_tview_standings(out, &v, json);
    if (rc == ARB_ENOTFOUND && why->len == 0)
        arb_buf_printf(why, "no match '%s'", id);
    else if (rc == ARB_ENOMEM && why->len == 0)
        arb_buf_puts(why, "out of memory");
    arb_tview_clear(&v);
    return rc;
}

static void
tourn_read(arb_request_t *r, int board)
{
    arb_conn_t     *c = r->c;
    arb_req_val_t   f[TO_N];
    arb_buf_t       out = ARB_BUF_INIT, b = ARB_BUF_INIT;
    msgpack_packer  pk;
    const char     *fmt;
    int             rc;

    if (arb_request_fields(r, tourn_fields, TO_N, f) != 0)
        goto done;
    fmt = f[TO_FORMAT].present ? f[TO_FORMAT].str : "json";
    if (strcmp(fmt, "json") != 0 && (board || strcmp(fmt, "csv") != 0)) {
        arb_reply_error(c, r->id, "proto", NULL, "format: json%s, not '%s'",
                        board ? "" : " or csv", fmt);
        goto done;
    }
    rc = arb_tourn_read(c->srv, f[TO_TOURNAMENT].str, board,
                        strcmp(fmt, "json") == 0, &out, &r->why);
    if (rc != 0) {
        arb_reply_error(c, r->id, arb_reply_code(rc), NULL, "%s",
                        arb_buf_cstr(&r->why));
        goto done;
    }
    arb_reply_begin(&b, &pk, r->id, 2);
    arb_mp_pack_kv_str(&pk, "tournament", f[TO_TOURNAMENT].str);
    arb_mp_pack_cstr(&pk, strcmp(fmt, "csv") == 0 ? "csv" : "json");
    msgpack_pack_str(&pk, out.len);
    msgpack_pack_str_body(&pk, out.data, out.len);
    arb_conn_send(c, &b);
done:
    arb_buf_free(&out);
    arb_req_clear(f, TO_N);
}

void
arb_op_board(arb_request_t *r)
{
    tourn_read(r, 1);
}

void
arb_op_standings(arb_request_t *r)
{
    tourn_read(r, 0);
}
