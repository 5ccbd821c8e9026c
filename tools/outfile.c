/*
 * outfile.c - what a tool writes to a path of the user's choosing (--out):
 * a regular file is replaced whole or not at all.
 *
 * The bytes go to a new file beside the target, which is flushed to disk
 * and then renamed over it.  A full disk, a kill or a power cut leaves the
 * old file as it was (never a truncated one), and a failure removes only
 * the file the tool made itself.  Until 2026-12-05 export and report
 * wrote the path in place and unlinked it on a failed write: a good
 * earlier export was lost, and `--out /dev/full` run as root removed the
 * device.  A target that is not a regular file (a device, a pipe,
 * /dev/stdout) cannot be replaced: it is written in place and never
 * removed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/cli.h"

static void
say(const cli_out_t *o, const char *path)
{
    fprintf(stderr, "arbiter %s: %s: %s\n", o->tool, path, strerror(errno));
}

static int
write_all(int fd, const unsigned char *p, size_t len)
{
    ssize_t w;

    while (len > 0) {
        w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

/* Writes in place: a device, a pipe, a terminal. */
static int
stage_in_place(cli_out_t *o, const void *data, size_t len)
{
    int fd = open(o->target, O_WRONLY | O_TRUNC | O_CLOEXEC);

    if (fd < 0 || write_all(fd, data, len) != 0) {
        say(o, o->target);
        if (fd >= 0)
            close(fd);
        return CLI_ERROR;
    }
    if (close(fd) != 0) {
        say(o, o->target);
        return CLI_ERROR;
    }
    return CLI_OK;
}

int
cli_out_stage(cli_out_t *o, const char *tool, const char *path,
              const void *data, size_t len)
{
    struct stat st;
    mode_t      mask;
    int         fd, exists;

    memset(o, 0, sizeof(*o));
    o->tool = tool;
    /* A symbolic link's target is what the user means to replace. */
    if (realpath(path, o->target) == NULL) {
        if (strlen(path) >= sizeof(o->target)) {
            errno = ENAMETOOLONG;
            say(o, path);
            return CLI_ERROR;
        }
        strcpy(o->target, path);
    }
    exists = stat(o->target, &st) == 0;
    if (exists && !S_ISREG(st.st_mode))
        return stage_in_place(o, data, len);
    if ((size_t)snprintf(o->tmp, sizeof(o->tmp), "%s.XXXXXX", o->target)
        >= sizeof(o->tmp)) {
        errno = ENAMETOOLONG;
        say(o, path);
        return CLI_ERROR;
    }
    fd = mkstemp(o->tmp);
    if (fd < 0) {
        say(o, path);
        o->tmp[0] = '\0';
        return CLI_ERROR;
    }
    /* mkstemp makes 0600; the file gets the old one's mode, or a new
     * file's (0666 less the umask). */
    mask = umask(0);
    umask(mask);
    if (fchmod(fd, exists ? st.st_mode & 07777 : 0666 & ~mask) != 0
        || write_all(fd, data, len) != 0 || fsync(fd) != 0) {
        say(o, path);
        close(fd);
        cli_out_discard(o);
        return CLI_ERROR;
    }
    if (close(fd) != 0) {
        say(o, path);
        cli_out_discard(o);
        return CLI_ERROR;
    }
    return CLI_OK;
}

int
cli_out_commit(cli_out_t *o)
{
    if (o->tmp[0] == '\0')
        return CLI_OK;                  /* written in place */
    if (rename(o->tmp, o->target) != 0) {
        say(o, o->target);
        cli_out_discard(o);
        return CLI_ERROR;
    }
    o->tmp[0] = '\0';
    return CLI_OK;
}

void
cli_out_discard(cli_out_t *o)
{
    if (o != NULL && o->tmp[0] != '\0') {
        unlink(o->tmp);
        o->tmp[0] = '\0';
    }
}

int
cli_write_out(const char *tool, const char *path, const void *data,
              size_t len)
{
    cli_out_t o;

    if (path == NULL) {
        /* stdout: arbiter.c checks its flush for every command */
        if (len > 0 && fwrite(data, 1, len, stdout) != len) {
            fprintf(stderr, "arbiter %s: stdout: %s\n", tool,
                    strerror(errno));
            return CLI_ERROR;
        }
        return CLI_OK;
    }
    if (cli_out_stage(&o, tool, path, data, len) != CLI_OK)
        return CLI_ERROR;
    return cli_out_commit(&o);
}
