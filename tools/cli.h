/*
 * cli.h - the arbiter command-line program: one file per subcommand.
 * Each cmd_* gets argv after the subcommand name (argv[0] = subcommand)
 * and returns the process exit status.
 */
#ifndef ARB_CLI_H
#define ARB_CLI_H

#include <stddef.h>

#include "core/buf.h"

int cmd_score(int argc, char **argv);
int cmd_replay(int argc, char **argv);

/* Reads a whole file ("-" = stdin) into b.  0 or an ARB_E* code; on error
 * prints "arbiter: <path>: <reason>" to stderr. */
int cli_read_file(arb_buf_t *b, const char *path);
/* 1 when arg is -h or --help. */
int cli_is_help(const char *arg);

#endif
