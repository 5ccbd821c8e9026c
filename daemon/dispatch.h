/*
 * dispatch.h - what the request handlers share (daemon only): the request
 * being handled, the helpers that read its fields and answer it, and the
 * ops.  dispatch.c holds the op table and the entry point, op_write.c the
 * ops that append (open, append with idempotency, expected seq and deal
 * commitments), op_read.c the ops that only read.
 *
 * Every op declares its fields once, as an arb_req_field_t table
 * (proto/request.h), and receives them decoded and checked by
 * arb_request_fields(): no op reads msgpack itself.
 */
#ifndef ARB_DISPATCH_H
#define ARB_DISPATCH_H

#include "daemon/server.h"
#include "proto/request.h"

typedef struct arb_request {
    arb_conn_t           *c;
    uint64_t              id;       /* the client's request id, 0 if none */
    const msgpack_object *map;      /* the request; valid during the op */
    arb_buf_t             why;      /* scratch for error messages */
} arb_request_t;

/* Decodes the op's fields (see arb_req_decode) into vals.  0, or -1 with
 * the error already answered ("proto"/"too_big"/"internal", naming the
 * field).  Release vals with arb_req_clear() either way. */
int  arb_request_fields(arb_request_t *r, const arb_req_field_t *fields,
                        size_t nfields, arb_req_val_t *vals);

/* Makes c the token's: authenticated, its role, identity, seat and
 * matches (copied).  0, or ARB_ENOMEM with c left unauthenticated. */
int  arb_conn_take_token(arb_conn_t *c, const arb_token_t *t);

/* Answers {} (ping, unsubscribe). */
void arb_request_ok(arb_request_t *r);

/* op_write.c */
void arb_op_open(arb_request_t *r);
void arb_op_append(arb_request_t *r);
/* 1 when c may record moves and notes in match: an arbiter, or a scorer
 * whose token lists the match (or lists none). */
int  arb_conn_may_record(const arb_conn_t *c, const char *match);
/* Idempotency by client event id cid in match l: a retry of ev (queued
 * or stored) is answered as its original (dup), another event under the
 * same id is refused.  A stored original's answer lists the ng matches g
 * opened with it (a round; ng 0: none).  1 when answered, 0 when the id
 * is new. */
int  arb_op_idem(arb_request_t *r, arb_live_t *l, const char *cid,
                 const arb_event_t *ev, const arb_group_open_t *g,
                 size_t ng);
/* The same for a round recorded as the acts ev[0..nev) (op_round.c): a
 * retry is its original only when every act is, and the original had no
 * further act (until 2026-12-07 a retry differing past the first act's
 * tables was answered as the original). */
int  arb_op_idem_acts(arb_request_t *r, arb_live_t *l, const char *cid,
                      const arb_event_t *ev, size_t nev,
                      const arb_group_open_t *g, size_t ng);

/* op_round.c: a tournament's round and its tables' opens, one
 * transaction. */
void arb_op_round(arb_request_t *r);

/* op_judge.c */
void arb_op_judge(arb_request_t *r);

/* op_tourn.c */
void arb_op_board(arb_request_t *r);
void arb_op_standings(arb_request_t *r);

/* op_read.c */
void arb_op_state(arb_request_t *r);
void arb_op_events(arb_request_t *r);
void arb_op_matches(arb_request_t *r);
void arb_op_stats(arb_request_t *r);
void arb_op_subscribe(arb_request_t *r);
void arb_op_unsubscribe(arb_request_t *r);
void arb_op_checkpoint(arb_request_t *r);
void arb_op_replicate(arb_request_t *r);     /* replicate_loop.c */

#endif
