/*
 * notify.c - the service manager's notification protocol (notify.h).
 *
 * DESIGN: the protocol is one datagram per state change to an AF_UNIX
 * socket; a leading '@' names an abstract socket.  It is documented as
 * stable, and libsystemd would be a dependency for these few lines.  A
 * failed notification is logged by the caller and otherwise ignored: it
 * must never stop the recorder.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon/notify.h"

int
arb_notify(const char *state)
{
    struct sockaddr_un sa;
    const char        *path = getenv("NOTIFY_SOCKET");
    size_t             n;
    ssize_t            w;
    int                fd, e;

    if (path == NULL || *path == '\0')
        return 1;
    n = strlen(path);
    if ((path[0] != '/' && path[0] != '@') || n >= sizeof(sa.sun_path)) {
        errno = EINVAL;
        return -1;
    }
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    memcpy(sa.sun_path, path, n);
    if (path[0] == '@')
        sa.sun_path[0] = '\0';
    fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    w = sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa,
               (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n));
    e = errno;
    close(fd);
    errno = e;
    return w == (ssize_t)strlen(state) ? 0 : -1;
}
