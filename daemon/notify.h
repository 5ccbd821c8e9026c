/*
 * notify.h - readiness for the service manager: systemd's notification
 * protocol (sd_notify(3): a datagram such as "READY=1" to the Unix socket
 * named by $NOTIFY_SOCKET), spoken directly so the daemon needs no
 * libsystemd.  Without $NOTIFY_SOCKET it does nothing.
 */
#ifndef ARB_NOTIFY_H
#define ARB_NOTIFY_H

/* Sends state ("READY=1", "STOPPING=1", "RELOADING=1", "STATUS=...").
 * 0 sent, 1 no $NOTIFY_SOCKET, -1 the send failed (errno). */
int arb_notify(const char *state);

#endif
