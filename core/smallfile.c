/*
 * smallfile.c - a small state file read whole and replaced whole
 * (core/smallfile.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/err.h"
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

int
arb_smallfile_replace(const char *path, const void *data, size_t len)
{
    char  tmp[4200];
    FILE *f;
    int   rc = -1, e;

    if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    f = fopen(tmp, "w");
    if (f == NULL)
        return -1;
    if (fwrite(data, 1, len, f) == len && fflush(f) == 0 && !ferror(f)
        && fsync(fileno(f)) == 0)
        rc = 0;
    e = errno;
    if (fclose(f) != 0 && rc == 0) {
        rc = -1;
        e = errno;
    }
    if (rc == 0 && rename(tmp, path) != 0) {
        rc = -1;
        e = errno;
    }
    if (rc != 0)
        unlink(tmp);
    errno = e;
    return rc;
}
