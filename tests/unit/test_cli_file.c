/*
 * test_cli_file.c - cli_file_open (tools/util.c): a regular file mapped
 * with its bytes intact, anything else read; and a mapped file cut short
 * while it is read stops the program with the path named and CLI_ERROR,
 * never a check of bytes that are not the file's.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/err.h"
#include "tests/test.h"
#include "tools/cli.h"

#define SIZE (64 * 1024)

static char dir[] = "/tmp/arb_cli_file_XXXXXX";
static char path[64], empty[64];

static void
write_file(const char *p, const unsigned char *b, size_t n)
{
    FILE *f = fopen(p, "wb");

    CHECK(f != NULL);
    if (f == NULL)
        return;
    CHECK(fwrite(b, 1, n, f) == n);
    CHECK(fclose(f) == 0);
}

/* Mapped, and every byte the file's; an empty file is read, not mapped;
 * a missing one is ARB_EIO. */
static void
test_open(const unsigned char *want)
{
    cli_file_t       cf;
    struct sigaction sa, before;
    int              saved, devnull;

    CHECK(sigaction(SIGBUS, NULL, &before) == 0);
    CHECK_INT(cli_file_open(&cf, path), 0);
    CHECK(cf.map != NULL);
    CHECK_INT(cf.len, SIZE);
    CHECK(cf.data != NULL && memcmp(cf.data, want, SIZE) == 0);
    cli_file_close(&cf);
    CHECK(cf.map == NULL && cf.data == NULL);
    /* The handler was the mapping's only: the one before it is back
     * (the default, or a sanitizer's). */
    CHECK(sigaction(SIGBUS, NULL, &sa) == 0
          && sa.sa_handler == before.sa_handler);
    cli_file_close(NULL);

    CHECK_INT(cli_file_open(&cf, empty), 0);
    CHECK(cf.map == NULL);
    CHECK_INT(cf.len, 0);
    cli_file_close(&cf);

    /* Its message goes to stderr: not into this test's output. */
    fflush(stderr);
    saved = dup(STDERR_FILENO);
    devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, STDERR_FILENO);
    CHECK_INT(cli_file_open(&cf, "/nonexistent/arbiter.bundle"), ARB_EIO);
    dup2(saved, STDERR_FILENO);
    close(saved);
    close(devnull);
    cli_file_close(&cf);
}

/* The file cut to nothing while mapped: the next read of a page past the
 * new end stops the process with the message and CLI_ERROR (in a child,
 * whose stderr this test reads). */
static void
test_cut_short(void)
{
    cli_file_t cf;
    char       msg[512], want[256];
    int        fds[2], st = 0;
    ssize_t    n;
    pid_t      pid;

    CHECK_INT(cli_file_open(&cf, path), 0);
    CHECK(cf.map != NULL);
    CHECK(pipe(fds) == 0);
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        volatile unsigned char c;

        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        if (truncate(path, 0) != 0)
            _exit(99);
        c = cf.data[SIZE - 1];
        (void)c;
        _exit(98);          /* not reached: the read raises SIGBUS */
    }
    close(fds[1]);
    n = read(fds[0], msg, sizeof(msg) - 1);
    msg[n > 0 ? n : 0] = '\0';
    close(fds[0]);
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st));
    CHECK_INT(WIFEXITED(st) ? WEXITSTATUS(st) : -1, CLI_ERROR);
    snprintf(want, sizeof(want), "arbiter: %s: the file changed while it "
             "was read (cut short by another program?)\n", path);
    CHECK_STR(msg, want);
    cli_file_close(&cf);
}

int
main(void)
{
    static unsigned char b[SIZE];
    size_t               i;

    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(path, sizeof(path), "%s/b", dir);
    snprintf(empty, sizeof(empty), "%s/empty", dir);
    for (i = 0; i < SIZE; i++)
        b[i] = (unsigned char)(i * 131 + (i >> 8));
    write_file(path, b, SIZE);
    write_file(empty, b, 0);
    test_open(b);
    test_cut_short();
    unlink(path);
    unlink(empty);
    rmdir(dir);
    return TEST_END();
}
