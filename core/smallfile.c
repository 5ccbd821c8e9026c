/*
 * smallfile.c - a small state file read whole and replaced whole
 * (core/smallfile.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/err.h"
#include "core/fsync.h"
#include "core/smallfile.h"

int
arb_smallfile_read(const char *path, size_t max, arb_buf_t *out,
                   arb_buf_t *why)
{
    FILE       *f;
    struct stat st;
    size_t      n;
    int         rc = 0;

    out->len = 0;
    f = fopen(path, "r");
    if (f == NULL && errno == ENOENT)
        return ARB_ENOTFOUND;
    if (f == NULL || fstat(fileno(f), &st) != 0) {
        arb_buf_printf(why, "%s: %s", path, strerror(errno));
        if (f != NULL)
            fclose(f);
        return ARB_EIO;
    }
    if ((size_t)st.st_size > max) {
        arb_buf_printf(why, "%s: %lld bytes", path, (long long)st.st_size);
        fclose(f);
        return ARB_ETOOBIG;
    }
    /* One byte more than the size: a file grown since the stat is read
     * to that byte, and then refused as too large below. */
    if (arb_buf_reserve(out, (size_t)st.st_size + 2) != 0) {
        fclose(f);
        return ARB_ENOMEM;
    }
    n = fread(out->data, 1, (size_t)st.st_size + 1, f);
    if (ferror(f)) {
        arb_buf_printf(why, "%s: %s", path, strerror(errno));
        rc = ARB_EIO;
    } else if (n > max) {
        arb_buf_printf(why, "%s: more than %zu bytes", path, max);
        rc = ARB_ETOOBIG;
    }
    fclose(f);
    out->len = rc == 0 ? n : 0;
    out->data[out->len] = '\0';
    return rc;
}

/* The directory part of path ("." for a bare name) into dir[n]. */
static int
dir_of(const char *path, char *dir, size_t n)
{
    const char *slash = strrchr(path, '/');
    size_t      len = slash == NULL ? 1 : slash == path ? 1
                      : (size_t)(slash - path);

    if (len >= n) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(dir, slash == NULL ? "." : path, len);
    dir[len] = '\0';
    return 0;
}

int
arb_smallfile_put(const char *path, const void *data, size_t len,
                  unsigned mode, int replace)
{
    const char *p = data;
    char        tmp[4200], dir[4200];
    size_t      off = 0;
    ssize_t     w;
    int         fd = -1, e;

    if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp)
        || dir_of(path, dir, sizeof(dir)) != 0) {
        errno = ENAMETOOLONG;
        return -1;
    }
    (void)unlink(tmp);              /* left over by a crash */
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    /* fchmod, not the umask, decides: a secret is for its owner alone. */
    if (fd < 0 || fchmod(fd, (mode_t)mode) != 0)
        goto fail;
    while (off < len) {
        w = write(fd, p + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            goto fail;
        off += (size_t)w;
    }
    if (fsync(fd) != 0)
        goto fail;
    e = close(fd);
    fd = -1;
    if (e != 0 || (replace ? rename(tmp, path) : link(tmp, path)) != 0)
        goto fail;
    (void)unlink(tmp);
    /* The new name is durable once its directory is (a power cut after
     * a first start left the tokens file missing or empty until
     * 2026-12-06). */
    return arb_fsync_path(dir);

fail:
    e = errno;
    if (fd >= 0)
        close(fd);
    (void)unlink(tmp);
    errno = e;
    return -1;
}

int
arb_smallfile_replace(const char *path, const void *data, size_t len)
{
    return arb_smallfile_put(path, data, len, 0600, 1);
}
