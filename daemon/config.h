/*
 * config.h - arbiterd's configuration (config/arbiterd.conf documents every
 * key).  Ownership: arb_config_t owns its strings; arb_config_free().
 */
#ifndef ARB_CONFIG_H
#define ARB_CONFIG_H

#include <stddef.h>

#include "core/buf.h"
#include "daemon/replica.h"
#include "daemon/replicate.h"

/* Ordered: an op's least role admits every role above it.  A player
 * reads like a reader and also sees its own seat's hidden cards in its
 * one match (docs/VIEWS.md); it writes nothing. */
enum arb_role { ARB_ROLE_READER = 0, ARB_ROLE_PLAYER, ARB_ROLE_SCORER,
                ARB_ROLE_ARBITER };

#define ARB_TOKEN_PRINT 16

typedef struct arb_token {
    char   *secret;
    int     role;
    char   *identity;
    size_t  nmatches;           /* scorer: allowed matches; 0 = any;
                                   player: its one match */
    char  **matches;
    char   *seat;               /* player: the seat's player name */
    unsigned line;              /* its line in its file */
    /* BLAKE2b of all of the above but the line: what a connection keeps
     * of the token it authenticated with, so that a reload can tell
     * whether that token still stands as it was (arb_config_holds). */
    unsigned char print[ARB_TOKEN_PRINT];
} arb_token_t;

#define ARB_LISTEN_MAX 4
#define ARB_STORAGE_WARN_MAX 8
/* storage_reserve's default: room for some seconds of the heaviest load
 * and for a start's journal, or 5% of a file system too small for that
 * (docs/STORE.md, "Map growth and storage full") */
#define ARB_STORAGE_RESERVE_DEF ((size_t)64 << 20)
#define ARB_STORAGE_RESERVE_AUTO SIZE_MAX

/* Connections open on metrics_listen: a scraper or two and a probe. */
#define ARB_HTTP_METRICS_CONNS 8
/* Descriptors the daemon keeps out of the clients' share of its
 * open-file limit (arb_server_limits): the store's files, the listeners,
 * a tokens reload, NATS, the journal; and the protocol connections
 * turned away at max_connections, which linger a moment (at most this
 * many at once). */
#define ARB_FDS_KEPT   128
#define ARB_FDS_LINGER 64
/* Below 4 * ARB_FDS_KEPT files, a quarter is kept (at least this many)
 * and an eighth lingers. */
#define ARB_FDS_MIN    48

/* The [http] section (docs/HTTP.md): off unless `listen` is set. */
typedef struct arb_http_config {
    char     *listen;               /* tcp:HOST:PORT, or NULL */
    char     *metrics_listen;       /* /metrics and /healthz alone, or NULL */
    int       public_read;          /* GET without a token sees the public view */
    size_t    max_conns;            /* open HTTP connections */
    size_t    header_max;           /* request line and headers, bytes */
    size_t    body_max;             /* request body, bytes */
    unsigned  header_timeout_ms;    /* a request head (or an idle keep-alive) */
    unsigned  write_timeout_ms;     /* sent bytes unacknowledged; 0: off */
    size_t    stream_max;           /* per live stream: output not yet sent */
} arb_http_config_t;

typedef struct arb_config {
    char        *data;              /* data directory */
    size_t       nlisten;
    char        *listen[ARB_LISTEN_MAX];  /* unix:PATH or tcp:HOST:PORT */
    size_t       frame_max;
    unsigned     auth_timeout_ms;
    unsigned     stall_timeout_ms;  /* output paused and unmoved: closed */
    size_t       outq_max;          /* per-connection pending output bytes */
    size_t       inq_max;           /* per-connection queued requests */
    size_t       max_connections;   /* protocol connections open at once;
                                       0: the open-file limit's (server.c) */
    size_t       batch_max;         /* events per commit */
    size_t       lone_commit;       /* 1: a lone event commits on the loop */
    size_t       map_size, map_max;
    int          log_level;
    int          log_format;        /* ARB_LOG_TEXT or ARB_LOG_JSON */
    /* storage-nearly-full warnings: percents, ascending; 0 of them = off */
    unsigned     storage_warn[ARB_STORAGE_WARN_MAX];
    size_t       nstorage_warn;
    /* bytes of the data directory's file system kept free: under them a
     * commit is refused as storage full (0: none; ARB_STORAGE_RESERVE_AUTO,
     * the default: the smaller of ARB_STORAGE_RESERVE_DEF and 5%) */
    size_t       storage_reserve;
    char        *tokens_file;       /* extra token lines, reloaded on HUP */
    size_t       ntokens;
    arb_token_t *tokens;
    arb_repl_conf_t repl;           /* [replicate]; urls NULL = off */
    unsigned        repl_line;      /* the line of its [replicate] header,
                                       which a refusal of the section as a
                                       whole names */
    arb_replica_conf_t replica;     /* [replica]; urls NULL = primary */
    arb_http_config_t http;
    /* BLAKE2b-256 of the file's keys and values but its tokens, as
     * arb_config_load read them: a reload, which applies only tokens,
     * says when anything else changed. */
    unsigned char   file_digest[32];
} arb_config_t;

void arb_config_defaults(arb_config_t *c);
/* A listen spec as the listener reads it: unix:PATH (1 to 107 bytes) or
 * tcp:HOST:PORT (a numeric address, port 1..65535).  0, or ARB_EINVAL
 * with the reason in why, naming spec. */
int  arb_config_listen_check(const char *spec, arb_buf_t *why);
/* Reads a config file; errors name the line.  0 or ARB_EINVAL/ARB_EIO. */
int  arb_config_load(arb_config_t *c, const char *path, arb_buf_t *why);
/* (Re)reads token lines from a file into c (replacing file tokens). */
int  arb_config_load_tokens(arb_config_t *c, const char *path, int keep,
                            arb_buf_t *why);
void arb_config_free(arb_config_t *c);
/* "80 90 95" (blanks or commas) or "off" into out[0..*n): ascending
 * percents 1..99, at most max.  0 or -1. */
int  arb_config_parse_percents(const char *v, unsigned *out, size_t max,
                               size_t *n);
const char *arb_role_name(int role);
/* The token matching `secret` (constant-time compare), or NULL. */
const arb_token_t *arb_config_auth(const arb_config_t *c, const char *secret,
                                   size_t len);
/* 1 when c holds a token of this print (arb_token_t.print): the token a
 * connection authenticated with still stands, unchanged. */
int arb_config_holds(const arb_config_t *c,
                     const unsigned char print[ARB_TOKEN_PRINT]);

#endif
