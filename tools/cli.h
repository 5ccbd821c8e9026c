/*
 * cli.h - the arbiter command-line program: one file per subcommand.
 * Each cmd_* gets argv after the subcommand name (argv[0] = subcommand)
 * and returns the process exit status.
 */
#ifndef ARB_CLI_H
#define ARB_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/event.h"

int cmd_score(int argc, char **argv);
int cmd_score_chains(int argc, char **argv);
int cmd_score_tsukurutenten(int argc, char **argv);
int cmd_score_chan(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_load(int argc, char **argv);

/* Clients of arbiterd (tools/net.h). */
int cmd_open(int argc, char **argv);
int cmd_move(int argc, char **argv);
int cmd_rule(int argc, char **argv);
int cmd_note(int argc, char **argv);        /* in cmd_rule.c */
int cmd_close(int argc, char **argv);
int cmd_state(int argc, char **argv);
int cmd_matches(int argc, char **argv);     /* in cmd_state.c */
int cmd_stats(int argc, char **argv);       /* in cmd_state.c */
int cmd_events(int argc, char **argv);
int cmd_watch(int argc, char **argv);

/* Claims and comparisons (docs/CLAIMS.md). */
int cmd_claim(int argc, char **argv);
int cmd_diff(int argc, char **argv);

int cmd_record(int argc, char **argv);    /* tools/record.h */

/* Exports and offline verification (docs/BUNDLE.md). */
int cmd_export(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_key(int argc, char **argv);

/* Reads a whole file ("-" = stdin) into b.  0 or an ARB_E* code; on error
 * prints "arbiter: <path>: <reason>" to stderr. */
int cli_read_file(arb_buf_t *b, const char *path);
/* A committed deal of `open`, revealed from the secret the recorder keeps
 * in its data directory (when there).  0 or the reveal's error. */
struct arb_store;
struct arb_event;
int cli_reveal_stored(struct arb_store *st, struct arb_event *open);

/* 1 when arg is -h or --help. */
int cli_is_help(const char *arg);

/* A match's events in seq order (from a store or a server), for replay.
 * Zero-initialise; release with cli_events_clear(). */
typedef struct cli_events {
    arb_event_t  open;          /* seq 0 */
    int          has_open;
    arb_event_t *ev;            /* ev[i].seq == i + 1 */
    size_t       n, cap;
} cli_events_t;

/* Decodes the stored bytes of event `seq` and appends it; seqs must come
 * 0, 1, 2 ... in order.  0, or an ARB_E* code with the reason in why. */
int  cli_events_add(cli_events_t *v, const char *bytes, size_t len,
                    uint64_t seq, arb_buf_t *why);
void cli_events_clear(cli_events_t *v);

/* Replays open + events[0..n) up to event `at` (UINT64_MAX: all) and
 * prints what `arbiter replay` prints (text, or JSON with json).  A
 * refusal is printed as "<src>:<line>: seq N '...' refused: rule: msg"
 * (without ":<line>" when lines is NULL).  With want_digest (hex), a
 * different digest is reported.  Returns the exit status: 0, 1 (refused
 * or a different digest) or 2. */
int  cli_replay_print(const char *src, const arb_event_t *open,
                      unsigned open_line, const arb_event_t *events,
                      const unsigned *lines, size_t n, uint64_t at, int json,
                      const char *want_digest);

#endif
