/*
 * fuzz_codec.c - drives frame reader + pre-scan + event decoder with
 * arbitrary bytes.
 *
 * Each input is used twice: as one message body (scan, decode) and as a
 * byte stream of frames cut into chunks of input-dependent sizes.  Every
 * event the decoder accepts must re-encode to exactly the bytes it came
 * from; a violation aborts, so for both drivers a crash is the failure.
 *
 * Standalone (built by make as build/tests/fuzz_codec):
 *     build/tests/fuzz_codec [file-or-dir ...]
 * runs each file (default: every file in tests/fuzz/corpus/) in a child
 * process and prints "N passed, N failed".
 *
 * libFuzzer:
 *     clang -std=c11 -D_POSIX_C_SOURCE=200809L -I. -DARB_LIBFUZZER -g -O1 \
 *         -fsanitize=fuzzer,address,undefined tests/fuzz/fuzz_codec.c \
 *         $(find proto core -name '*.c') \
 *         $(pkg-config --libs msgpack libsodium lmdb libuv) -o fuzz_codec
 *     mkdir -p /tmp/fz && ./fuzz_codec /tmp/fz tests/fuzz/corpus
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/event.h"
#include "core/codec.h"
#include "proto/frame.h"
#include "proto/limits.h"
#include "core/scan.h"

/* Small enough that inputs from the corpus exercise the length check. */
#define FUZZ_FRAME_MAX  4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
decode_one(const char *p, size_t n)
{
    arb_event_t ev;
    arb_buf_t   why = ARB_BUF_INIT, out = ARB_BUF_INIT;
    int         scan_rc;

    scan_rc = arb_msgpack_scan(p, n, ARB_DEPTH_MAX, ARB_ELEMS_MAX, &why);
    if (arb_event_decode(&ev, p, n, &why) == 0) {
        /* The decoder must never accept what the scan refuses, and what
         * it accepts is canonical by definition. */
        if (scan_rc != 0 || arb_event_encode(&out, &ev) != 0
            || out.len != n || memcmp(out.data, p, n) != 0)
            abort();
        arb_event_clear(&ev);
    } else if (ev.setup != NULL || ev.args != NULL) {
        abort();
    }
    arb_buf_free(&out);
    arb_buf_free(&why);
}

static void
stream(const char *p, size_t n)
{
    arb_frame_reader_t r;
    const char        *f;
    size_t             off = 0, chunk, len;
    unsigned           h = 2166136261u;
    int                rc = 0;

    if (arb_frame_reader_init(&r, FUZZ_FRAME_MAX) != 0)
        abort();
    while (off < n && rc >= 0) {
        h = (h ^ (unsigned char)p[off]) * 16777619u;
        chunk = 1 + h % 64;
        if (chunk > n - off)
            chunk = n - off;
        rc = arb_frame_reader_feed(&r, p + off, chunk);
        off += chunk;
        while (rc >= 0 && (rc = arb_frame_reader_next(&r, &f, &len)) == 1) {
            if (len == 0 || len > FUZZ_FRAME_MAX)
                abort();
            decode_one(f, len);
        }
    }
    if (r.body_cap > FUZZ_FRAME_MAX)
        abort();
    arb_frame_reader_free(&r);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    decode_one((const char *)data, size);
    stream((const char *)data, size);
    return 0;
}

#ifndef ARB_LIBFUZZER

#include <dirent.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

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
    int i;

    if (argc < 2)
        run_path("tests/fuzz/corpus");
    for (i = 1; i < argc; i++)
        run_path(argv[i]);
    printf("%s: %d passed, %d failed\n", __FILE__, passed, failed);
    return failed != 0 || passed == 0;
}

#endif
