/*
 * nats_server.h - one nats-server (JetStream, loopback) as a child of the
 * test, for the unit tests that talk to a real server (test_replicate.c,
 * and those on repl_harness.h; nats_missing for any).  Test-only.
 *
 * The test sets nats_dir (the server's store) and nats_log (its stderr,
 * appended) before nats_start(), and nats_port when it wants a port of
 * its own (ARB_NATS_PORT_BASE); -1 lets the server choose, and the port
 * it chose is kept, so that a restart comes back on it.
 */
#ifndef ARB_TEST_NATS_SERVER_H
#define ARB_TEST_NATS_SERVER_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int   nats_port = -1;
static pid_t nats_pid = -1;
static char  nats_url[320], nats_log[200], nats_dir[200];

static inline void
sleep_ms(unsigned ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
    nanosleep(&ts, NULL);
}

/* The port the server's log says it listens on (its last start); 0
 * until it says so. */
static inline int
nats_log_port(void)
{
    FILE *f = fopen(nats_log, "r");
    char  line[512], *p;
    int   port = 0;

    if (f == NULL)
        return 0;
    while (fgets(line, sizeof(line), f) != NULL)
        if ((p = strstr(line, "client connections on ")) != NULL
            && (p = strrchr(p, ':')) != NULL)
            port = atoi(p + 1);
    fclose(f);
    return port;
}

/* Starts the server (on nats_port, or one it picks) and waits up to 5 s
 * for its log to name the port; nats_url then points at it.  0 or -1. */
static inline int
nats_start(void)
{
    char port[16];
    int  i;

    snprintf(port, sizeof(port), "%d", nats_port);
    nats_pid = fork();
    if (nats_pid < 0)
        return -1;
    if (nats_pid == 0) {
        FILE *f = freopen(nats_log, "a", stderr);
        (void)f;
        prctl(PR_SET_PDEATHSIG, SIGKILL);   /* never outlives the test */
        execlp("nats-server", "nats-server", "-js", "-a", "127.0.0.1", "-p",
               port, "-sd", nats_dir, (char *)NULL);
        _exit(127);
    }
    for (i = 0; i < 100 && nats_log_port() == 0; i++)
        sleep_ms(50);
    if (nats_log_port() <= 0)
        return -1;
    nats_port = nats_log_port();
    snprintf(nats_url, sizeof(nats_url), "nats://127.0.0.1:%d", nats_port);
    return 0;
}

/* 1, after saying the test is skipped, when nats-server is not
 * installed; else 0. */
static inline int
nats_missing(const char *test)
{
    if (system("command -v nats-server >/dev/null 2>&1") == 0)
        return 0;
    printf("%s: skipped (no nats-server)\n", test);
    return 1;
}

/* Sends sig to the server and reaps it. */
static inline void
nats_kill(int sig)
{
    if (nats_pid > 0) {
        kill(nats_pid, sig);
        waitpid(nats_pid, NULL, 0);
        nats_pid = -1;
    }
}

#endif
