/*
 * fuzz.h - what every harness in tests/fuzz shares.
 *
 * A harness is one file tests/fuzz/fuzz_NAME.c defining
 * LLVMFuzzerTestOneInput(); its seed corpus is tests/fuzz/corpus/NAME.
 * Built with clang -fsanitize=fuzzer (make fuzz) libFuzzer supplies
 * main(); in the normal build (make, make test) tests/fuzz/replay_main.c
 * does, running each corpus file through the harness in a child process.
 * A harness reports a broken invariant by aborting (FUZZ_CHECK), so in both
 * builds a crash is the one failure.
 */
#ifndef ARB_FUZZ_H
#define ARB_FUZZ_H

#include <dirent.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An invariant of the code under test: abort, naming it, when broken. */
#define FUZZ_CHECK(expr) do {                                             \
        if (!(expr)) {                                                    \
            fprintf(stderr, "%s:%d: invariant broken: %s\n",              \
                    __FILE__, __LINE__, #expr);                           \
            abort();                                                      \
        }                                                                 \
    } while (0)

/* Removes directory dir and the files in it (a harness's work store; no
 * subdirectories). */
static inline void
fuzz_rm_dir(const char *dir)
{
    struct dirent *de;
    char           p[4096];
    DIR           *d = opendir(dir);

    if (d == NULL)
        return;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

/* The whole file at path into *out (malloc'd, one spare byte; the
 * caller frees it) and its size: 0, or -1 when it cannot be read.  A
 * harness's template files, read once per process. */
static inline int
fuzz_read_all(const char *path, unsigned char **out, size_t *len)
{
    struct stat st;
    int         fd = open(path, O_RDONLY);
    ssize_t     r = -1;

    *out = NULL;
    *len = 0;
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) == 0 && st.st_size >= 0) {
        *len = (size_t)st.st_size;
        if ((*out = malloc(*len + 1)) != NULL)
            r = *len == 0 ? 0 : pread(fd, *out, *len, 0);
    }
    close(fd);
    return r == (ssize_t)*len ? 0 : -1;
}

#endif
