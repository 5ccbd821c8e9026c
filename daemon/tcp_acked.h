/*
 * tcp_acked.h - what a TCP socket's peer has acknowledged (Linux), apart
 * from the HTTP code: libh2o's headers bring glibc's <netinet/tcp.h>,
 * whose struct tcp_info lacks the count, and the kernel's <linux/tcp.h>
 * that has it cannot be included beside it.
 */
#ifndef ARB_TCP_ACKED_H
#define ARB_TCP_ACKED_H

#include <stdint.h>

/* fd's bytes acknowledged by its peer (TCP_INFO tcpi_bytes_acked) and
 * bytes in its send queue, sent or not (SIOCOUTQ): 0, or -1 with errno
 * when the socket (or the kernel, before 4.1) cannot say. */
int arb_tcp_acked(int fd, uint64_t *acked, uint64_t *outq);

#endif
