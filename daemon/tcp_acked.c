/*
 * tcp_acked.c - a TCP socket's acknowledged bytes (daemon/tcp_acked.h).
 */
#include <errno.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <linux/tcp.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "daemon/tcp_acked.h"

int
arb_tcp_acked(int fd, uint64_t *acked, uint64_t *outq)
{
    struct tcp_info ti;
    socklen_t       len = sizeof(ti);
    int             q = 0;

    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0)
        return -1;
    /* (an older kernel fills less of the struct, and says how much) */
    if (len < offsetof(struct tcp_info, tcpi_bytes_acked)
              + sizeof(ti.tcpi_bytes_acked)) {
        errno = ENOPROTOOPT;
        return -1;
    }
    if (ioctl(fd, SIOCOUTQ, &q) != 0)
        return -1;
    *acked = ti.tcpi_bytes_acked;
    *outq = q > 0 ? (uint64_t)q : 0;
    return 0;
}
