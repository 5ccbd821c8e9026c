/*
 * arbiter - the companion tools of the arbiter recorder.  Each subcommand
 * lives in its own tools/cmd_*.c over the core library.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/version.h"
#include "tools/cli.h"
#include "tools/ops.h"

int cmd_migrate(int argc, char **argv);     /* tools/cmd_migrate.c */

static const struct {
    const char *name;
    int       (*run)(int, char **);
    const char *summary;
} cmds[] = {
    { "score",   cmd_score,   "classify Blockchain sequences (one line each)" },
    { "replay",  cmd_replay,  "replay a transcript or a stored match: records, "
                              "totals, digest" },
    { "load",    cmd_load,    "record a whole transcript through the recorder" },
    { "open",    cmd_open,    "open a match on the recorder" },
    { "move",    cmd_move,    "record a move (judged by the rules first)" },
    { "note",    cmd_note,    "record a note" },
    { "rule",    cmd_rule,    "record a ruling: void, amend, stands, note" },
    { "close",   cmd_close,   "close a match" },
    { "state",   cmd_state,   "a match's records, totals and digest, as "
                              "recorded" },
    { "events",  cmd_events,  "list a match's recorded events" },
    { "watch",   cmd_watch,   "follow a match (or all) as events arrive" },
    { "record",  cmd_record,  "the scorekeeper's console for a live match" },
    { "matches", cmd_matches, "list the recorded matches" },
    { "stats",   cmd_stats,   "the recorder's counters" },
    { "diff",    cmd_diff,    "a claim against the record, or the first "
                              "divergence of two records" },
    { "report",  cmd_report,  "one self-contained HTML file of a match: "
                              "table, step-through, results, chain" },
    { "claim",   cmd_claim,   "submit a claim of the results; prints the "
                              "verdict" },
    { "tournament", cmd_tournament, "a tournament's rounds, tables, "
                              "standings and board" },
    { "export",  cmd_export,  "export matches: jsonl, csv, transcript, "
                              "signed bundle, results" },
    { "verify",  cmd_verify,  "check a bundle offline: signature, chain, "
                              "rules, results" },
    { "key",     cmd_key,     "print the recorder's public signing key" },
    { "replicate", cmd_replicate, "start an anti-entropy pass of the "
                              "replicated stream" },
    { "check",   cmd_check,   "check a data directory: chains, indexes, "
                              "deals (read-only)" },
    { "backup",  cmd_backup,  "hot backup of a data directory, verified" },
    { "restore", cmd_restore_nats, "a data directory from the replicated "
                              "stream (NATS), verified" },
    { "restore-backup", cmd_restore, "a data directory from a backup, "
                              "verified" },
    { "migrate", cmd_migrate, "rewrite a data directory of an older store "
                              "format" },
};

static void
usage(FILE *f)
{
    size_t i;

    fprintf(f, "usage: arbiter <command> [options]\n\n"
               "The companion tools of the arbiter match recorder.\n\n"
               "commands:\n");
    for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
        fprintf(f, "  %-14s %s\n", cmds[i].name, cmds[i].summary);
    fprintf(f, "\nopen ... stats talk to arbiterd: --server ADDR (default\n"
               "$ARBITER_SERVER, else unix:./var/arbiter/arbiterd.sock) and\n"
               "--token T, --token-file F or $ARBITER_TOKEN.\n"
               "\n'arbiter <command> --help' describes a command.\n"
               "'arbiter --version' prints the engine version.\n");
}

/* What a command printed must have reached its stdout: a replay or a
 * verdict cut short by a full disk is not a success, and for verify and
 * diff the exit status is the verdict itself (until 2026-12-05 a failed
 * write of stdout went unnoticed: exit 0, half a file). */
static int
stdout_checked(const char *cmd, int status)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return status;
    fprintf(stderr, "arbiter %s: stdout: %s\n", cmd,
            errno != 0 ? strerror(errno) : "write error");
    return CLI_ERROR;
}

int
main(int argc, char **argv)
{
    size_t i;

    if (argc < 2) {
        usage(stderr);
        return CLI_ERROR;
    }
    if (cli_is_help(argv[1]) || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        puts(ARB_ENGINE);
        return 0;
    }
    for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
        if (strcmp(argv[1], cmds[i].name) == 0) {
            snprintf(cli_who, sizeof(cli_who), "arbiter %s", cmds[i].name);
            return stdout_checked(cmds[i].name,
                                  cmds[i].run(argc - 1, argv + 1));
        }
    fprintf(stderr, "arbiter: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return CLI_ERROR;
}
