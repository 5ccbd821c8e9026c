/*
 * net.h - what the client subcommands (open, move, rule, close, state,
 * events, watch, matches, stats) share: the connection options, one
 * request/response round trip with the house error format, paging through
 * a match's events, and the one-line formats of an event.
 *
 * Exit statuses returned by these helpers are the commands' own: 0 ok, 1
 * the server refused (its error printed as "arbiter CMD: code: [rule: ]
 * message"), 2 usage, connection, authentication or I/O problem.
 */
#ifndef ARB_TOOLS_NET_H
#define ARB_TOOLS_NET_H

#include <stdint.h>
#include <stdio.h>

#include <msgpack.h>

#include "core/buf.h"
#include "core/json_item.h"
#include "core/event.h"
#include "core/event_json.h"
#include "core/mp.h"
#include "proto/client.h"

#define CLI_SERVER_DEFAULT "unix:./var/arbiter/arbiterd.sock"
/* Seconds a request waits for its answer, unless $ARBITER_TIMEOUT says
 * otherwise (0: for ever); the most it may say is a day. */
#define CLI_TIMEOUT_DEFAULT 60
#define CLI_TIMEOUT_MAX     86400

typedef struct cli_net {
    const char      *cmd;           /* "move": the prefix of messages */
    const char      *server;        /* NULL: $ARBITER_SERVER or default */
    const char      *token;         /* NULL: $ARBITER_TOKEN */
    const char      *token_file;
    arb_client_t    *cl;
    msgpack_unpacked res;           /* the last response */
    char             tokbuf[512];   /* a token read from token_file */
} cli_net_t;

void cli_net_init(cli_net_t *n, const char *cmd);
void cli_net_close(cli_net_t *n);           /* NULL-safe; also the result */

/* "--opt VALUE" or "--opt=VALUE" at argv[*i]: 1 with *val set and *i on
 * the last word used, 0 when argv[*i] is another word, -1 when the value
 * is missing ("arbiter CMD: --opt needs a value" printed). */
int  cli_opt(const char *cmd, const char *opt, int argc, char **argv,
             int *i, const char **val);
/* A connection option at argv[*i] (--server, --token, --token-file), as
 * cli_opt: 1 consumed, 0 not one, -1 printed usage error. */
int  cli_net_option(cli_net_t *n, int argc, char **argv, int *i);
/* The connection options' lines for a usage() text; then, for a command
 * whose exit statuses are no other than these, what they mean (a command
 * that says its own, such as diff, leaves it out). */
void cli_net_usage(FILE *f);
void cli_net_usage_status(FILE *f);

/* Connects and authenticates, with $ARBITER_TIMEOUT's timeout on the
 * connection.  0, or 2 with the reason printed. */
int  cli_net_connect(cli_net_t *n);

/* Starts a request with nfields key/value pairs after v, id and op. */
msgpack_packer *cli_net_begin(cli_net_t *n, const char *op, size_t nfields);
/* Sends it and waits for its response, left in n->res.  0, 1 (the server
 * refused, printed) or 2 (printed). */
int  cli_net_call(cli_net_t *n);

/* The `state` of match after event `at`, its answer holding also the
 * part named `extra` ("text" or "seqs", proto/PROTOCOL.md; NULL: none):
 * what a client that cannot replay a running dealt match takes from the
 * recorder.  As cli_net_call. */
int  cli_net_state_with(cli_net_t *n, const char *match, uint64_t at,
                        const char *extra);

/* Prints "<prefix>seq N hash <hex>[ (duplicate)]" from an append's
 * answer in n->res.  0, or 2 when the answer lacks them. */
int  cli_net_print_ack(cli_net_t *n, const char *prefix);

/* One "append" request: kind move, note, close, void, amend or stands. */
typedef struct cli_append {
    const char   *match;
    const char   *kind;
    const char   *cid;          /* NULL: none */
    int           has_expect;
    uint64_t      expect;       /* the seq the match must be at */
    int           has_target;
    uint64_t      target;       /* void, amend: the seq ruled on */
    char *const  *move;         /* verb, player, args...; NULL: none */
    size_t        nmove;
    const char   *text;         /* note text or reason; NULL: none */
} cli_append_t;

/* Sends it and prints the acknowledgement as cli_net_print_ack.  0, 1 or
 * 2 as cli_net_call. */
int  cli_net_append(cli_net_t *n, const cli_append_t *a);
/* The same without the printing: the answer is left in n->res. */
int  cli_net_append_call(cli_net_t *n, const cli_append_t *a);

/* Packing and reading key/value pairs: the one msgpack vocabulary of
 * core/mp.h.  These older names stay as aliases so the subcommands need no
 * edit; new code calls arb_mp_* directly. */
#define cli_pack_str  arb_mp_pack_kv_str
#define cli_pack_uint arb_mp_pack_kv_uint
#define cli_pack_strv arb_mp_pack_kv_strv
#define cli_get_uint  arb_mp_get_uint
#define cli_get_int   arb_mp_get_int
#define cli_get_bytes arb_mp_get_bytes

/* Parses a non-negative decimal number: 0, or -1 after printing
 * "arbiter CMD: OPT wants a number, not 'S'". */
int  cli_parse_u64(const char *cmd, const char *opt, const char *s,
                   uint64_t *out);


/* Calls cb for each item ({seq,time,hash,event}) of the events of match
 * from..to (to UINT64_MAX: all committed), following "next" until done.
 * kinds/nkinds and since (0: none) filter on the server.  A non-zero cb
 * return stops and is returned.  0, 1 or 2 as cli_net_call. */
typedef int (*cli_item_cb)(void *ud, const msgpack_object *item);
int  cli_net_events(cli_net_t *n, const char *match, uint64_t from,
                    uint64_t to, char *const *kinds, size_t nkinds,
                    uint64_t since, cli_item_cb cb, void *ud);

/* One event as a line (with '\n') into out: text
 *   [<match> ]<seq> <ISO time> <actor> <transcript line>
 * or JSON, core/event_json.h's arb_event_json
 *   {["match":..,]"seq":..,"time":..,"time_ms":..,"actor":..,"kind":..,
 *    "line":..,"hash":..|null}
 * item is a map with seq, time, hash and event (an events item or an
 * event push); match NULL leaves the match out.  0, or ARB_EPROTO (the
 * item is malformed, the event does not decode) or ARB_ENOMEM, with the
 * reason in why. */
int  cli_event_format(arb_buf_t *out, const msgpack_object *item,
                      const char *match, int json, arb_buf_t *why);

#endif
