/*
 * load.h - the crash tests' daemon and load client, shared by the kill -9
 * test, the power-cut and I/O-error loops and the soak.  Test-only.
 *
 * One daemon (bin/arbiterd, run from the repository root) on a temporary
 * data directory; LOAD_NCLIENTS-ish connections append YAHchain moves as
 * fast as they can (LOAD_WINDOW requests pipelined per connection, each
 * with a client id) and keep every acknowledged (match, seq, hash).  A
 * request whose answer was lost is "in doubt": the next round re-sends it
 * unchanged (same cid, same content), in send order, and must get either
 * its original seq (dup) or, when it had not committed, a fresh ack at the
 * seq it was meant for.  load_verify() then holds the store to the acks.
 */
#ifndef ARB_TEST_LOAD_H
#define ARB_TEST_LOAD_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define LOAD_DAEMON "bin/arbiterd"
#define LOAD_WINDOW 4           /* requests in flight per connection */
#define LOAD_MOVES  144         /* a mode-3 match: the whole deck */

/* The test's directory (base), the daemon's data directory, socket, log
 * and arbiter token; a config file for the daemon ("" for none); the
 * running daemon's pid or -1. */
extern char  load_base[64], load_data[128], load_sock[160], load_log[128];
extern char  load_token[128], load_config[200];
extern pid_t load_pid;

/* Makes /tmp/TAG.XXXXXX and the paths in it; removes it all at exit and
 * kills a daemon left behind.  0 or -1. */
int  load_init(const char *tag);
/* Starts the daemon; env: NULL or "NAME=VALUE" strings (NULL-terminated)
 * added to its environment.  0 or -1. */
int  load_start(const char *const *env);
/* Waits until it accepts connections (30 s: a start on a loaded machine
 * replays its journal and index tail first, and took over 10 s once); -1
 * when it exited first (its status in *status when not NULL) or never
 * listened. */
int  load_wait_ready(int *status);
int  load_read_token(void);
/* SIGKILL and reap (nothing when no daemon runs). */
void load_kill(void);
/* Waits up to ms for the daemon to exit by itself: 0 with its wait status
 * in *status, or -1 (still running, or none was). */
int  load_wait_exit(int ms, int *status);
/* Sends sig (0: none) and waits up to ms for the exit; its wait status,
 * or -1 after a timeout (the daemon is then killed). */
int  load_stop(int sig, int ms);
/* The last `keep` lines of file path containing `has` (NULL: any), to
 * out as "why: TAG: line" lines: tests/run.sh repeats those after its
 * total, where a CI log cut to its end still shows them. */
void load_why_lines(FILE *out, const char *tag, const char *path,
                    const char *has, long keep);
/* The daemon log's last 20 lines on stderr (load_why_lines). */
void load_show_log(void);

/* Starts the daemon once without faults on a new, empty load_data (it
 * makes its tokens, keys and store), reads the token, stops it cleanly.
 * 0 or -1. */
int  load_fresh_dir(void);

/* The environment of a daemon under the I/O shim (tests/crash/iosim.c,
 * built as BUILD/tests/iosim.so) on load_data, journalling to `journal`,
 * with one more "ARB_IOSIM_..." setting (or NULL).  env is NULL-terminated
 * for load_start.  -1 when the shim is not built. */
typedef struct load_iosim {
    char        pre[300], dir[300], jnl[300], extra[100];
    const char *env[6];
} load_iosim_t;
int  load_iosim_env(load_iosim_t *e, const char *journal, const char *extra);

/* ---- the load client ------------------------------------------------ */

enum { LOAD_ACK_NONE = 0, LOAD_ACK_FIRST, LOAD_ACK_RETRY_DUP,
       LOAD_ACK_RETRY_FRESH, LOAD_ACK_OPEN_EXISTS };

typedef struct load_macks {
    unsigned char how[LOAD_MOVES + 1];              /* LOAD_ACK_* per seq */
    unsigned char hash[LOAD_MOVES + 1][32];
} load_macks_t;

typedef struct load_pend {
    unsigned match, move;       /* move 0 = the open */
    uint64_t id;
} load_pend_t;

typedef struct load_client {
    int          idx;           /* names its matches: c<idx>-m<n> */
    int          settle_only;   /* this round: settle doubts, no load */
    uint64_t     budget;        /* 0, or the requests it may ever send */
    volatile int stop;          /* set: send nothing new, drain, leave */
    unsigned     pace_us;       /* 0, or a pause before each request: a
                                   steady table rather than a flood */
    pthread_t    th;
    unsigned     nmatch;        /* matches started (1-based) */
    unsigned     next;          /* next move of match nmatch; 0: open one */
    load_pend_t  q[LOAD_WINDOW];    /* sent, unanswered (in doubt) */
    size_t       nq;
    load_macks_t *m;            /* acks per match, [0] = match 1 */
    size_t       capm;
    /* figures */
    uint64_t     sent, acked, retried, dup, fresh, open_exists, doubt_max;
    uint64_t     internal;      /* requests answered `internal` */
    uint64_t     unverified;    /* answered `unverified`: nothing written
                                   (a replicating recorder that has not
                                   yet compared its log with the stream) */
    uint64_t     errors;
} load_client_t;

/* Starts one thread per client for a round: settle what the last round
 * left in doubt, then (unless settle_only) load until the daemon is gone,
 * or the budget is spent or stop set, and every answer is in. */
void load_round_start(load_client_t *c, int n);
void load_round_join(load_client_t *c, int n);
void load_clients_free(load_client_t *c, int n);

/* ---- verification --------------------------------------------------- */

typedef struct load_verdict {
    int      open_failed, verify_failed, read_failed;
    uint64_t acked, stored, matches, stats_events, stats_matches;
    uint64_t missing, lost, badhash, unacked, gaps, cid_dup, foreign;
    uint64_t content;
} load_verdict_t;

/*
 * Opens the store in load_data read-only and checks it against the acks:
 * arb_store_verify finds every chain intact; every acknowledged event is
 * there, at its seq, with its hash; seqs are dense; each event is the move
 * its cid names.  settled: nothing is in doubt any more, so every stored
 * event must have been acknowledged too and the stats must add up.
 * Returns the number of problems (0: all holds); v has the figures.
 */
int  load_verify(const load_client_t *c, int n, int settled,
                 load_verdict_t *v);

/* A healthy start (no shim) whose clients only settle what is in doubt,
 * a clean SIGTERM stop, and load_verify(settled).  0, or -1 (reported). */
int  load_settle(load_client_t *c, int n, load_verdict_t *v);

#endif
