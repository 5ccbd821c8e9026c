#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "core/fsync.h"

int
arb_fsync_path(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int rc, e;

    if (fd < 0)
        return -1;
    rc = fsync(fd);
    e = errno;
    close(fd);
    errno = e;
    return rc;
}
