/*
 * tourn_load.c - a tournament and its tables' matches for the tools
 * (tools/tourn.h), each read through the one history loader.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/ledger/store.h"
#include "proto/client.h"
#include "tools/cli.h"
#include "tools/net.h"
#include "tools/tourn.h"

void
cli_tourn_clear(cli_tourn_t *t)
{
    if (t == NULL)
        return;
    arb_tview_clear(&t->v);
    arb_store_close(t->st);
    memset(t, 0, sizeof(*t));
}

/* Reads match id's events 0..upto into h (zeroed), from the data
 * directory or on the one connection to the server.  0, or ARB_EIO with
 * the reason printed. */
static int
load_history(cli_tourn_t *t, const char *id, uint64_t upto,
             arb_history_t *h)
{
    cli_source_t src = { NULL, t->db, id, t->st };
    arb_buf_t    e = ARB_BUF_INIT;
    int          rc = 0;

    /* From the server on the one connection: cli_source_load would
     * connect again for every match. */
    if (t->db == NULL) {
        if (arb_history_name(h, "match %s", id) != 0
            || cli_history_from_server(h, t->n, id, upto, &e) != CLI_OK) {
            if (e.len > 0)
                fprintf(stderr, "arbiter %s: match %s: %s\n", t->cmd, id,
                        arb_buf_cstr(&e));
            rc = ARB_EIO;       /* printed */
        }
    } else if (cli_source_load(h, t->cmd, &src, t->n, upto) != CLI_OK) {
        rc = ARB_EIO;           /* printed */
    }
    arb_buf_free(&e);
    return rc;
}

/* Replays h into *m.  0, or ARB_ECORRUPT with the refusal printed (*m
 * NULL). */
static int
replay_history(cli_tourn_t *t, const char *id, arb_history_t *h,
               arb_match_t **m)
{
    arb_verdict_t v;
    size_t        bad = 0;

    if (arb_history_replay(h, UINT64_MAX, m, &bad, &v) == 0)
        return 0;
    fprintf(stderr, "arbiter %s: match %s: seq %zu refused: %s: %s\n",
            t->cmd, id, bad + 1, v.rule, v.msg);
    arb_match_free(*m);
    *m = NULL;
    return ARB_ECORRUPT;
}

/* Whether match id is recorded: a table added to a round by hand (a
 * `tables` act) has no match until the next `tournament round` opens
 * it, and is read as not started, as the board and the standings read
 * it (until 2026-12-06 `tournament show` and `export --tournament`
 * failed on it).  0, ARB_ENOTFOUND, or ARB_EIO with the reason printed. */
static int
recorded(cli_tourn_t *t, const char *id)
{
    arb_match_info_t info;
    msgpack_packer  *pk;
    arb_buf_t        why = ARB_BUF_INIT;
    int              rc;

    if (t->db != NULL) {
        /* Only "no such match" is told here: anything else the loader
         * meets again and says. */
        rc = t->st != NULL
             && arb_store_match(t->st, id, &info, &why) == ARB_ENOTFOUND
             ? ARB_ENOTFOUND : 0;
        goto done;
    }
    pk = cli_net_begin(t->n, "events", 3);
    arb_mp_pack_kv_str(pk, "match", id);
    arb_mp_pack_kv_uint(pk, "from", 0);
    arb_mp_pack_kv_uint(pk, "limit", 1);
    rc = arb_client_call(t->n->cl, &t->n->res, &why);
    if (rc == ARB_EINVAL && strncmp(arb_buf_cstr(&why), "not_found: ",
                                    11) == 0)
        rc = ARB_ENOTFOUND;
    else if (rc != 0) {
        fprintf(stderr, "arbiter %s: match %s: %s\n", t->cmd, id,
                arb_buf_cstr(&why));
        rc = ARB_EIO;
    }
done:
    arb_buf_free(&why);
    return rc;
}

/* Reads and replays one match: its last seq, that event's time and hash
 * too; ARB_ESEALED for a running dealt match read without its deal
 * (from a server, which never sends a secret), which is not replayed. */
static int
load_one(void *ud, const char *id, arb_match_t **m, uint64_t *seq,
         int64_t *last_ms, unsigned char *head, int *has_head, int *moved,
         arb_buf_t *why)
{
    cli_tourn_t   *t = ud;
    arb_history_t  h;
    int            rc;

    (void)why;
    memset(&h, 0, sizeof(h));
    rc = t->tables ? recorded(t, id) : 0;
    if (rc == 0)
        rc = load_history(t, id, UINT64_MAX, &h);
    if (rc != 0)
        goto done;
    *seq = h.nevents;
    if (arb_history_sealed(&h)) {
        size_t i;

        /* in play once a move is recorded: the events' kinds say so */
        for (i = 0; i < h.nevents && !*moved; i++)
            *moved = h.events[i].kind == ARB_EV_MOVE
                     || h.events[i].kind == ARB_EV_STANDS;
        rc = ARB_ESEALED;
        goto at_head;
    }
    rc = replay_history(t, id, &h, m);
    if (rc != 0)
        goto done;
at_head:
    *last_ms = h.recs ? h.recs[h.nevents].time_ms : 0;
    *has_head = h.recs != NULL && h.recs[h.nevents].has_hash;
    if (*has_head)
        memcpy(head, h.recs[h.nevents].hash, ARB_HASH_LEN);
done:
    arb_history_clear(&h);
    return rc;
}

int
cli_tourn_replay_at(cli_tourn_t *t, uint64_t at, arb_match_t **m)
{
    arb_history_t h;
    int           rc;

    *m = NULL;
    memset(&h, 0, sizeof(h));
    rc = load_history(t, t->v.id, at, &h);
    if (rc == 0)
        rc = replay_history(t, t->v.id, &h, m);
    arb_history_clear(&h);
    return rc == 0 ? CLI_OK : rc == ARB_EIO ? CLI_ERROR : CLI_DIFFERS;
}

int
cli_tourn_load(cli_tourn_t *t, const char *cmd, const char *db,
               const char *id, cli_net_t *n, int tables)
{
    arb_buf_t    why = ARB_BUF_INIT;
    arb_match_t *m = NULL;
    int64_t      ms;
    uint64_t     seq;
    int          hh, moved = 0, rc;
    unsigned char head[ARB_HASH_LEN];

    memset(t, 0, sizeof(*t));
    t->cmd = cmd;
    t->db = db;
    t->n = n;
    if (db == NULL && n->cl == NULL && cli_net_connect(n) != 0)
        return CLI_ERROR;
    /* Once for every table (until 2026-12-06 twice a table: 1.7 ms each,
     * seconds for a round of a thousand tables).  A store that does not
     * open is said by the first load, which opens it again. */
    if (db != NULL) {
        arb_store_opts_t o;

        memset(&o, 0, sizeof(o));
        o.read_only = 1;
        if (arb_store_open(&t->st, db, &o, &why) != 0)
            t->st = NULL;
        why.len = 0;
    }
    /* A store that did not open is an I/O error (2), said by the load;
     * a tournament not there is not found (1).  Until 2026-12-07 both
     * were 1. */
    if (load_one(t, id, &m, &seq, &ms, head, &hh, &moved, &why) != 0)
        return db != NULL && t->st == NULL ? CLI_ERROR : CLI_DIFFERS;
    t->tables = 1;
    rc = arb_tview_build(&t->v, m, tables, load_one, t, &why);
    if (rc != 0 && why.len > 0)
        fprintf(stderr, "arbiter %s: %s\n", cmd, arb_buf_cstr(&why));
    else if (rc == ARB_ENOMEM)
        fprintf(stderr, "arbiter %s: out of memory\n", cmd);
    arb_buf_free(&why);
    return rc == 0 ? CLI_OK : rc == ARB_ENOMEM ? CLI_ERROR : CLI_DIFFERS;
}
