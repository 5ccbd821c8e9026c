/*
 * The daemon's Unix socket file is its sign of readiness: clients, scripts
 * and the test harnesses wait for the file, then connect.  So the file must
 * appear only once the daemon accepts connections -- a daemon that binds
 * the name and listens a moment later refuses whoever connects in between,
 * which a loaded machine turns into failed connects.  Every start here is
 * watched by a client connecting in a tight loop until the name exists: it
 * must never be refused.  Also: a clean stop removes the file, and a file
 * that is not a socket at the path is neither replaced nor removed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/un.h>

#include "tests/daemon_harness.h"
#include "tests/test.h"

#define STARTS 40

/* Connects the moment the socket name exists.  1 when accepted, 0 when
 * refused (the error is printed), -1 when the daemon exited first. */
static int
connect_at_once(int start)
{
    struct sockaddr_un sa;
    int                fd, rc, e, status;

    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    if (strlen(harness_sock) >= sizeof(sa.sun_path))
        return 0;
    memcpy(sa.sun_path, harness_sock, strlen(harness_sock));
    for (;;) {
        if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) < 0)
            return 0;
        rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
        e = errno;
        close(fd);
        if (rc == 0)
            return 1;
        if (e != ENOENT) {
            fprintf(stderr, "start %d: connect as soon as %s exists: %s\n",
                    start, harness_sock, strerror(e));
            return 0;
        }
        if (waitpid(harness_pid, &status, WNOHANG) == harness_pid) {
            harness_pid = -1;
            fprintf(stderr, "start %d: the daemon exited before it "
                            "listened\n", start);
            return -1;
        }
    }
}

static void
test_ready_when_visible(void)
{
    struct stat st;
    char        tmp[320];
    int         k, accepted = 0, status;

    for (k = 0; k < STARTS; k++) {
        unlink(harness_sock);
        harness_spawn();
        accepted += connect_at_once(k) == 1;
        status = harness_stop(SIGTERM);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    CHECK_INT(accepted, STARTS);
    /* a clean stop leaves neither the name nor the temporary one */
    CHECK(lstat(harness_sock, &st) != 0 && errno == ENOENT);
    snprintf(tmp, sizeof(tmp), "%s.new", harness_sock);
    CHECK(lstat(tmp, &st) != 0 && errno == ENOENT);
}

static void
test_not_a_socket(void)
{
    struct stat st;
    FILE       *f;
    int         status;

    unlink(harness_sock);
    f = fopen(harness_sock, "w");
    CHECK(f != NULL);
    if (f == NULL)
        return;
    fputs("not a socket\n", f);
    fclose(f);
    harness_spawn();
    status = harness_stop(0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1);
    CHECK(lstat(harness_sock, &st) == 0 && S_ISREG(st.st_mode)
          && st.st_size == 13);
    unlink(harness_sock);
}

/* A SIGTERM whose handler ran after the start looked for one (the
 * thread that took it preempted on a loaded machine; here the daemon's
 * test hook runs the handler late): the daemon still stops, and says
 * why.  Until 2026-12-06 it served on, once in 20 starts beside a load. */
static void
test_late_signal(void)
{
    char  path[320], line[512];
    FILE *f;
    int   status = -1, i, said = 0;

    unlink(harness_sock);
    snprintf(path, sizeof(path), "%s/daemon.log", harness_dir);
    unlink(path);                       /* this start's log alone */
    setenv("ARBITERD_TEST_LATE_SIGNAL", "1", 1);
    harness_spawn();
    unsetenv("ARBITERD_TEST_LATE_SIGNAL");
    for (i = 0; i < 500 && harness_pid > 0; i++) {
        if (waitpid(harness_pid, &status, WNOHANG) == harness_pid)
            harness_pid = -1;
        else
            usleep(10000);
    }
    CHECK_INT(harness_pid, -1);         /* stopped within 5 s */
    harness_stop(SIGKILL);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if ((f = fopen(path, "r")) != NULL) {
        while (fgets(line, sizeof(line), f) != NULL)
            said += strstr(line, "signal 15 while starting") != NULL;
        fclose(f);
    }
    CHECK_INT(said, 1);
}

int
main(void)
{
    /* this test starts the daemon its own way and speaks no protocol */
    (void)harness_start;
    (void)harness_connect;
    (void)harness_send_raw;
    if (harness_init(NULL, 60) != 0)
        return 1;
    test_ready_when_visible();
    test_not_a_socket();
    test_late_signal();
    harness_done(test_failed_);
    return TEST_END();
}
