/*
 * cli.h - the arbiter command-line program: one file per subcommand.
 * Each cmd_* gets argv after the subcommand name (argv[0] = subcommand)
 * and returns the process exit status (CLI_OK, CLI_DIFFERS, CLI_ERROR).
 */
#ifndef ARB_CLI_H
#define ARB_CLI_H

#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/event.h"
#include "core/ledger/history.h"

/* The exit status of every command. */
#define CLI_OK      0   /* done; identical; verified */
#define CLI_DIFFERS 1   /* differs, refused (by the rules or the server),
                           does not verify */
#define CLI_ERROR   2   /* bad usage, unreadable input, connection, I/O */

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
int cmd_report(int argc, char **argv);      /* --html: docs/WEB.md */

int cmd_record(int argc, char **argv);    /* tools/record.h */

/* Exports and offline verification (docs/BUNDLE.md). */
int cmd_export(int argc, char **argv);
int cmd_tournament(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_key(int argc, char **argv);
int cmd_replicate(int argc, char **argv);

/* "arbiter CMD" once main() has picked the command CMD, else "arbiter":
 * what the shared helpers below put before their messages. */
extern char cli_who[64];

/* Reads a whole file ("-" = stdin) into b.  0 or an ARB_E* code; on error
 * prints "arbiter CMD: <path>: <reason>" to stderr. */
int cli_read_file(arb_buf_t *b, const char *path);
/* A whole file ("-" = stdin) for reading: a regular file is mapped (no
 * copy: a bundle may run to gigabytes), anything else read into buf.
 * data/len hold its bytes until cli_file_close.  While a file is mapped,
 * SIGBUS (the file cut short by another program) prints "arbiter CMD:
 * <path>: the file changed while it was read ..." and exits CLI_ERROR:
 * a file that changed under a check is never reported as checked.  0 or
 * ARB_EIO (the reason printed as by cli_read_file). */
typedef struct cli_file {
    const unsigned char *data;
    size_t               len;
    void                *map;       /* the mapping, or NULL */
    arb_buf_t            buf;       /* what was read when not mapped */
    struct sigaction     old_bus;   /* SIGBUS's handler before the map */
} cli_file_t;
int  cli_file_open(cli_file_t *cf, const char *path);
/* Unmaps and puts SIGBUS's handler back; NULL-safe. */
void cli_file_close(cli_file_t *cf);
/* A file written at a path the user chose (tools/outfile.c): a regular
 * file (or a new one) is staged beside the target, flushed to disk, and
 * renamed over it by the commit, so that a failure leaves the old file as
 * it was; anything else (a device, a pipe) is written in place by the
 * stage.  A failure removes only the staged file.  Stage and commit:
 * CLI_OK, or CLI_ERROR with "arbiter TOOL: PATH: <reason>" printed (the
 * staged file is then gone).  Discard removes a staged file; NULL-safe. */
typedef struct cli_out {
    const char *tool;
    char        target[PATH_MAX];
    char        tmp[PATH_MAX + 8];      /* "" when nothing is staged */
} cli_out_t;
int  cli_out_stage(cli_out_t *o, const char *tool, const char *path,
                   const void *data, size_t len);
int  cli_out_commit(cli_out_t *o);
void cli_out_discard(cli_out_t *o);
/* Stage and commit in one; path NULL writes stdout. */
int  cli_write_out(const char *tool, const char *path, const void *data,
                   size_t len);
/* Prints v (core/json.h: compact, keys in order) and a newline on stdout,
 * consuming v; NULL (a builder ran out of memory) or a failed write says
 * "arbiter CMD: out of memory" on stderr.  CLI_OK or CLI_ERROR. */
struct json_t;
int cli_print_json(const char *cmd, struct json_t *v);
/* ---- options (tools/args.c) ------------------------------------------ */

enum {
    CLI_ARG_FLAG,   /* --json: dst is an int, set to 1 */
    CLI_ARG_STR,    /* --match ID: dst is a const char *, into argv */
    CLI_ARG_U64,    /* --at N: dst is a uint64_t (a decimal number) */
    CLI_ARG_EACH    /* repeatable: the parser's each() gets every value */
};

typedef struct cli_optdef {
    const char *name;           /* "--at"; NULL ends the table */
    int         type;           /* CLI_ARG_* */
    void       *dst;
} cli_optdef_t;

struct cli_net;
typedef struct cli_args {
    const char         *cmd;    /* "replay": the prefix of messages */
    void              (*usage)(FILE *f);
    const cli_optdef_t *opts;
    struct cli_net     *net;    /* not NULL: also --server, --token,
                                   --token-file (tools/net.h) */
    int               (*each)(void *ud, const char *opt, const char *val);
    void               *ud;     /* each(): non-zero refuses (printed) */
    int                 dash_words; /* only `--x` is an option: `-x` is
                                   a word (score's "->" separators) */
    int                 no_words;   /* a word is refused: "arbiter CMD:
                                   unexpected 'w'" */
    char              **pos;    /* out: the words, in order */
    int                 npos;
} cli_args_t;

/* Parses argv[1..argc): options as `--opt VALUE` or `--opt=VALUE`, in any
 * order among the words, until `--`; `-h`/`--help` prints usage.  The
 * words are moved to the front of argv (a->pos = argv + 1).  Returns -1
 * to go on, or the exit status to return now: CLI_OK after --help,
 * CLI_ERROR after a printed usage error ("arbiter CMD: unknown option
 * '--x'", "--at needs a value", "--at wants a number, not 'x'").
 * `--list-options` as the only argument prints the options it takes, one
 * a line, and returns CLI_OK (for the shell's completion). */
int  cli_args_parse(cli_args_t *a, int argc, char **argv);

/* 1 when arg is -h or --help. */
int cli_is_help(const char *arg);

/* 1 when a line read from a user (the record console, `score -`) holds
 * a NUL byte, which would cut it short unseen as a C string; the line is
 * then refused in these words. */
int cli_line_has_nul(const char *s, size_t n);
#define CLI_LINE_NUL "the line holds a NUL byte"

/* A match's recorded history from one source: FILE (a transcript or the
 * jsonl of one exported match; "-" = stdin), or --match ID with --db DIR
 * (the recorder's store, opened read-only; a stored deal secret is
 * revealed) or alone (the server, through n).  Exactly one of file or
 * match is set. */
typedef struct cli_source {
    const char *file;
    const char *db;             /* with match only */
    const char *match;
    struct arb_store *store;    /* db opened already (borrowed: a tool
                                   reading many matches opens it once),
                                   or NULL */
} cli_source_t;

/* Fills h (zeroed; clear it after, also on failure) with events 0..upto
 * (UINT64_MAX: all; a FILE is always read whole) and names it for
 * messages ("PATH", "DIR: match M", "SERVER: match M").  Returns
 * CLI_OK, CLI_DIFFERS (a damaged store: cli_store_status) or CLI_ERROR,
 * with the reason printed ("arbiter CMD: ..."). */
struct cli_net;
int  cli_source_load(arb_history_t *h, const char *cmd,
                     const cli_source_t *src, struct cli_net *n,
                     uint64_t upto);
/* The exit status for a store's error code rc: CLI_ERROR when it could
 * not be read (ARB_ENOMEM, ARB_EIO, ARB_ESTORE), else CLI_DIFFERS: what
 * it holds does not verify (an event that does not decode, out of its
 * match's order): a damaged store is no usage error. */
int  cli_store_status(int rc);
/* The server's events 0..upto of match, on a connected n, into h.
 * CLI_OK, CLI_DIFFERS (the server refused; printed) or CLI_ERROR: the
 * reason in why, or printed when why stays empty (the connection). */
int  cli_history_from_server(arb_history_t *h, struct cli_net *n,
                             const char *match, uint64_t upto,
                             arb_buf_t *why);

/* The recorder's own results of match after event `at` (UINT64_MAX: the
 * last), for a running dealt match, which no client can replay: its
 * `state` op's report read by arb_claim_parse_report into rec (zeroed
 * first; clear it after), each record's seq from the op's `seqs`, and
 * the report itself into *view when view is not NULL (the caller's to
 * release).  CLI_OK, CLI_DIFFERS (refused; printed) or CLI_ERROR: the
 * reason in why, or printed when why stays empty (the connection). */
struct arb_claim;
int  cli_recorder_results(struct cli_net *n, const char *match, uint64_t at,
                          struct arb_claim *rec, struct json_t **view,
                          arb_buf_t *why);

/* Replays h (arb_history_replay) up to event `at` (UINT64_MAX: all) and
 * prints what `arbiter replay` prints (text, or JSON with json).  A
 * refusal is printed as "<source>:<line>: seq N '...' refused: rule: msg"
 * (without ":<line>" when h has no lines).  With want_digest (hex), a
 * different digest is reported.  Returns the exit status: CLI_OK,
 * CLI_DIFFERS (refused or a different digest) or CLI_ERROR. */
int  cli_replay_print(arb_history_t *h, uint64_t at, int json,
                      const char *want_digest);
/* The "records:", "totals:" and "digest" lines of `arbiter replay` for m
 * (also what `arbiter verify` prints of a verified match).  0 or
 * ARB_ENOMEM. */
struct arb_match;
int  cli_print_results(const struct arb_match *m);
/* What a bundle's verification found, one line each on stderr, every line
 * starting with `prefix`: the file-level error, then each match's
 * problems as "match ID: problem". */
struct arb_bundle_report;
void cli_print_bundle_problems(const char *prefix,
                               const struct arb_bundle_report *rep);

/* Replays every match of the data directory dir in one pass over its log
 * (core/ledger/replay_all.h) and prints one line per match in id order
 * (an arb_report_json object per line with json); verify checks every
 * chain first.  CLI_OK, CLI_DIFFERS (a refused event, a broken chain) or
 * CLI_ERROR.  In tools/replay_store.c. */
int  cli_replay_store(const char *dir, int json, int verify);

#endif
