/*
 * replay_main.c - main() of a fuzz harness in the normal build: replays
 * corpus files through LLVMFuzzerTestOneInput() (tests/fuzz/fuzz.h), so
 * make test needs no clang.
 *
 *     build/tests/fuzz_NAME [file-or-dir ...]
 * runs each file (default: every file in tests/fuzz/corpus/NAME) in a
 * child process, so a crash is counted rather than fatal, and prints
 * "N passed, N failed".  Not linked into the libFuzzer build, where
 * libFuzzer supplies main().
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/fuzz/fuzz.h"

static int passed, failed;


static int
read_file(const char *path, char **data, size_t *len)
{
    FILE  *fp;
    char  *buf = NULL, *nb;
    size_t cap = 0, n = 0, got;

    fp = fopen(path, "rb");
    if (fp == NULL)
        return -1;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 4096;
            nb = realloc(buf, cap);
            if (nb == NULL)
                goto fail;
            buf = nb;
        }
        got = fread(buf + n, 1, cap - n, fp);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(fp))
        goto fail;
    fclose(fp);
    *data = buf;
    *len = n;
    return 0;

fail:
    free(buf);
    fclose(fp);
    return -1;
}

/* Runs one input in a child so that a crash is counted, not fatal. */
static void
run_file(const char *path)
{
    char  *data;
    size_t len;
    pid_t  pid;
    int    st;

    if (read_file(path, &data, &len) != 0) {
        fprintf(stderr, "%s: cannot read\n", path);
        failed++;
        return;
    }
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        LLVMFuzzerTestOneInput((const uint8_t *)data, len);
        free(data);
        /* exit, not _exit: LeakSanitizer reports from an atexit hook. */
        exit(0);
    }
    free(data);
    if (pid < 0 || waitpid(pid, &st, 0) != pid) {
        fprintf(stderr, "%s: cannot run\n", path);
        failed++;
        return;
    }
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
        passed++;
        return;
    }
    failed++;
    if (WIFSIGNALED(st))
        fprintf(stderr, "%s: FAILED (signal %d)\n", path, WTERMSIG(st));
    else
        fprintf(stderr, "%s: FAILED (exit %d)\n", path, WEXITSTATUS(st));
}

static void
run_path(const char *path)
{
    struct dirent *de;
    struct stat    sb;
    DIR           *d;
    char           sub[4096];

    if (stat(path, &sb) != 0) {
        fprintf(stderr, "%s: no such file\n", path);
        failed++;
        return;
    }
    if (!S_ISDIR(sb.st_mode)) {
        run_file(path);
        return;
    }
    d = opendir(path);
    if (d == NULL) {
        failed++;
        return;
    }
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
        if (stat(sub, &sb) == 0 && S_ISREG(sb.st_mode))
            run_file(sub);
    }
    closedir(d);
}

int
main(int argc, char **argv)
{
    const char *name, *slash;
    char        dir[4096];
    int         i;

    slash = strrchr(argv[0], '/');
    name = slash != NULL ? slash + 1 : argv[0];
    if (argc < 2) {
        /* fuzz_NAME replays tests/fuzz/corpus/NAME */
        snprintf(dir, sizeof(dir), "tests/fuzz/corpus/%s",
                 strncmp(name, "fuzz_", 5) == 0 ? name + 5 : name);
        run_path(dir);
    }
    for (i = 1; i < argc; i++)
        run_path(argv[i]);
    printf("%s: %d passed, %d failed\n", name, passed, failed);
    return failed != 0 || passed == 0;
}
