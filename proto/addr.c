/*
 * addr.c - reading "tcp:HOST:PORT" (addr.h).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>

#include "core/err.h"
#include "proto/addr.h"

int
arb_tcp_addr_parse(const char *spec, int zero_ok, char *host,
                   size_t hostsize, unsigned *port, arb_buf_t *why)
{
    const char   *hp, *colon, *p;
    size_t        n;
    unsigned long v = 0;

    if (strncmp(spec, "tcp:", 4) != 0
        || (colon = strrchr(spec + 4, ':')) == NULL) {
        arb_buf_printf(why, "bad address '%s': use tcp:HOST:PORT", spec);
        return ARB_EINVAL;
    }
    hp = spec + 4;
    n = (size_t)(colon - hp);
    /* An IPv6 address's own colons are in brackets: the last colon
     * outside them is the port's. */
    if (n >= 2 && hp[0] == '[' && hp[n - 1] == ']') {
        hp++;
        n -= 2;
    } else if (memchr(hp, ':', n) != NULL || memchr(hp, '[', n) != NULL
               || memchr(hp, ']', n) != NULL) {
        arb_buf_printf(why, "bad address '%s': an IPv6 address goes in "
                       "brackets: tcp:[ADDRESS]:PORT", spec);
        return ARB_EINVAL;
    }
    if (n == 0 || n >= hostsize) {
        arb_buf_printf(why, "bad address '%s': %s", spec, n == 0
                       ? "no host before the port" : "the host is too long");
        return ARB_EINVAL;
    }
    /* Digits only, and no more than a port holds: atoi would take "abc"
     * as port 0 and 99999 as 34463. */
    for (p = colon + 1; *p >= '0' && *p <= '9' && v <= 65535; p++)
        v = v * 10 + (unsigned long)(*p - '0');
    if (p == colon + 1 || *p != '\0' || v > 65535 || (v == 0 && !zero_ok)) {
        arb_buf_printf(why, "bad address '%s': the port must be a number "
                       "from %d to 65535", spec, zero_ok ? 0 : 1);
        return ARB_EINVAL;
    }
    memcpy(host, hp, n);
    host[n] = '\0';
    *port = (unsigned)v;
    return 0;
}

int
arb_tcp_addr_numeric(const char *spec, int zero_ok,
                     struct sockaddr_storage *ss, socklen_t *len,
                     arb_buf_t *why)
{
    struct sockaddr_in  *s4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
    char                 host[INET6_ADDRSTRLEN + 1];
    unsigned             port;
    int                  rc;

    rc = arb_tcp_addr_parse(spec, zero_ok, host, sizeof(host), &port, why);
    if (rc != 0)
        return rc;
    memset(ss, 0, sizeof(*ss));
    if (inet_pton(AF_INET, host, &s4->sin_addr) == 1) {
        s4->sin_family = AF_INET;
        s4->sin_port = htons((uint16_t)port);
        *len = sizeof(*s4);
        return 0;
    }
    if (inet_pton(AF_INET6, host, &s6->sin6_addr) == 1) {
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons((uint16_t)port);
        *len = sizeof(*s6);
        return 0;
    }
    arb_buf_printf(why, "bad address '%s': a listener's HOST is a numeric "
                   "IPv4 address or an IPv6 one in brackets", spec);
    return ARB_EINVAL;
}

int
arb_tcp_addr_loopback(const struct sockaddr_storage *ss)
{
    const struct sockaddr_in  *s4 = (const struct sockaddr_in *)ss;
    const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;

    if (ss->ss_family == AF_INET)
        return (ntohl(s4->sin_addr.s_addr) >> 24) == 127;
    return ss->ss_family == AF_INET6
           && IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr);
}
