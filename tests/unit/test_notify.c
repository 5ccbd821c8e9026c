/*
 * test_notify.c - readiness for systemd (Type=notify) without libsystemd:
 * the real daemon sends READY=1 only once it listens, RELOADING=1 and
 * READY=1 around a SIGHUP, STOPPING=1 on SIGTERM; the sender itself
 * handles an abstract socket, no $NOTIFY_SOCKET (or an empty one), a bad
 * one and one too long for sun_path.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/notify.c"
#include "tests/test.h"

static char dir[64];

static int
listen_dgram(const char *path, int abstract)
{
    struct sockaddr_un sa;
    size_t             n = strlen(path);
    int                fd = socket(AF_UNIX, SOCK_DGRAM, 0);

    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    memcpy(sa.sun_path + (abstract ? 1 : 0), path, n);
    if (bind(fd, (struct sockaddr *)&sa, (socklen_t)(offsetof(struct
             sockaddr_un, sun_path) + n + (abstract ? 1 : 0))) != 0) {
        perror("bind");
        close(fd);
        return -1;
    }
    return fd;
}

/* The next datagram within 10 s, or "" */
static const char *
next_msg(int fd)
{
    static char   buf[256];
    struct pollfd p = { fd, POLLIN, 0 };
    ssize_t       n;

    buf[0] = '\0';
    if (poll(&p, 1, 10000) == 1 && (n = recv(fd, buf, sizeof(buf) - 1, 0)) > 0)
        buf[n] = '\0';
    return buf;
}

static void
test_sender(void)
{
    char name[64];
    int  fd;

    unsetenv("NOTIFY_SOCKET");
    CHECK_INT(arb_notify("READY=1"), 1);
    setenv("NOTIFY_SOCKET", "relative/path", 1);
    CHECK_INT(arb_notify("READY=1"), -1);
    setenv("NOTIFY_SOCKET", "", 1);
    CHECK_INT(arb_notify("READY=1"), 1);
    /* A path that fills sun_path leaves no room for its NUL: refused,
     * not sent to whatever the kernel makes of it */
    {
        struct sockaddr_un sa;
        char               longp[sizeof(sa.sun_path) + 1];

        memset(longp, 'x', sizeof(longp) - 1);
        longp[0] = '/';
        longp[sizeof(longp) - 1] = '\0';
        setenv("NOTIFY_SOCKET", longp, 1);
        errno = 0;
        CHECK_INT(arb_notify("READY=1"), -1);
        CHECK_INT(errno, EINVAL);
    }
    snprintf(name, sizeof(name), "arb-notify-test-%d", (int)getpid());
    fd = listen_dgram(name, 1);
    CHECK(fd >= 0);
    {
        char env[80];
        snprintf(env, sizeof(env), "@%s", name);
        setenv("NOTIFY_SOCKET", env, 1);
    }
    CHECK_INT(arb_notify("STATUS=abstract"), 0);
    CHECK_STR(next_msg(fd), "STATUS=abstract");
    close(fd);
    unsetenv("NOTIFY_SOCKET");
}

static void
test_daemon(void)
{
    char  nsock[128], lsock[128], data[128];
    pid_t pid;
    int   fd, status;

    if (access("bin/arbiterd", X_OK) != 0) {
        fprintf(stderr, "bin/arbiterd missing: build it first\n");
        CHECK(0);
        return;
    }
    snprintf(nsock, sizeof(nsock), "%s/notify", dir);
    snprintf(lsock, sizeof(lsock), "%s/s.sock", dir);
    snprintf(data, sizeof(data), "%s/data", dir);
    fd = listen_dgram(nsock, 0);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    pid = fork();
    if (pid == 0) {
        char listen[160];
        snprintf(listen, sizeof(listen), "unix:%s", lsock);
        setenv("NOTIFY_SOCKET", nsock, 1);
        freopen("/dev/null", "w", stderr);
        execl("bin/arbiterd", "arbiterd", "--data", data, "--listen", listen,
              (char *)NULL);
        _exit(127);
    }
    CHECK_STR(next_msg(fd), "READY=1");
    /* ready means listening */
    CHECK(access(lsock, F_OK) == 0);
    kill(pid, SIGHUP);
    CHECK_STR(next_msg(fd), "RELOADING=1");
    CHECK_STR(next_msg(fd), "READY=1");
    kill(pid, SIGTERM);
    CHECK_STR(next_msg(fd), "STOPPING=1");
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    close(fd);
}

int
main(void)
{
    char cmd[128];

    snprintf(dir, sizeof(dir), "/tmp/arb_notify_XXXXXX");
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    test_sender();
    test_daemon();
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return TEST_END();
}
