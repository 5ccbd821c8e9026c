/*
 * addr.h - the one reading of a TCP address, "tcp:HOST:PORT", for the
 * client (`--server`), the daemon's `--listen` and its HTTP listener.
 *
 * HOST is a name, a dotted IPv4 address or an IPv6 address in brackets
 * (tcp:[::1]:7411: the brackets keep its colons apart from the port's).
 * PORT is decimal digits only, 1..65535: a number that does not fit is
 * refused, never wrapped round to another port.
 */
#ifndef ARB_PROTO_ADDR_H
#define ARB_PROTO_ADDR_H

#include <stddef.h>
#include <sys/socket.h>

#include "core/buf.h"

/* Splits spec into host (the brackets taken off; hostsize bytes of room)
 * and *port.  zero_ok also takes port 0 (a listener's "any free port").
 * 0, or ARB_EINVAL with the reason in why, naming spec. */
int arb_tcp_addr_parse(const char *spec, int zero_ok, char *host,
                       size_t hostsize, unsigned *port, arb_buf_t *why);

/* A listener's address: host must be a numeric IPv4 or IPv6 address (a
 * listener binds an interface, not a name).  Fills ss and *len.  0, or
 * ARB_EINVAL with the reason in why, naming spec. */
int arb_tcp_addr_numeric(const char *spec, int zero_ok,
                         struct sockaddr_storage *ss, socklen_t *len,
                         arb_buf_t *why);

/* 1 when ss is a loopback address (127.0.0.0/8 or ::1). */
int arb_tcp_addr_loopback(const struct sockaddr_storage *ss);

#endif
