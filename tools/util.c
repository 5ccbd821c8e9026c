#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/err.h"
#include "core/json.h"
#include "core/ledger/bundle.h"
#include "core/text.h"
#include "tools/cli.h"

char cli_who[64] = "arbiter";

int
cli_read_file(arb_buf_t *b, const char *path)
{
    FILE  *f;
    size_t n;

    f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "%s: %s: %s\n", cli_who, path, strerror(errno));
        return ARB_EIO;
    }
    for (;;) {
        if (arb_buf_reserve(b, 65536) != 0) {
            fprintf(stderr, "%s: %s: out of memory\n", cli_who, path);
            break;
        }
        n = fread(b->data + b->len, 1, 65536, f);
        b->len += n;
        if (n < 65536)
            break;
    }
    if (ferror(f)) {
        fprintf(stderr, "%s: %s: read error: %s\n", cli_who, path,
                strerror(errno));
        b->oom = 1;
    }
    if (f != stdin)
        fclose(f);
    return b->oom ? ARB_EIO : 0;
}

/* What the SIGBUS handler says: the file mapped last (one at a time). */
static char   bus_msg[PATH_MAX + 128];
static size_t bus_len;

/* A mapped file cut short under us: its pages past the new end raise
 * SIGBUS on the next read.  Nothing read so far can be trusted to be
 * what the file said, so say so and stop (async-signal-safe calls only). */
static void
on_sigbus(int sig)
{
    ssize_t w;

    (void)sig;
    w = write(STDERR_FILENO, bus_msg, bus_len);
    (void)w;
    _exit(CLI_ERROR);
}

int
cli_file_open(cli_file_t *cf, const char *path)
{
    struct sigaction sa;
    struct stat      st;
    void            *p;
    int              fd, n;

    memset(cf, 0, sizeof(*cf));
    fd = strcmp(path, "-") == 0 ? -1 : open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)
        && st.st_size > 0 && (uintmax_t)st.st_size <= SIZE_MAX) {
        n = snprintf(bus_msg, sizeof(bus_msg), "%s: %s: the file "
                     "changed while it was read (cut short by another "
                     "program?)\n", cli_who, path);
        bus_len = n > 0 && (size_t)n < sizeof(bus_msg) ? (size_t)n
                                                      : sizeof(bus_msg) - 1;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_sigbus;
        sigemptyset(&sa.sa_mask);
        p = sigaction(SIGBUS, &sa, &cf->old_bus) == 0
            ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)
            : MAP_FAILED;
        if (p == MAP_FAILED)
            (void)sigaction(SIGBUS, &cf->old_bus, NULL);
        if (p != MAP_FAILED) {
            close(fd);
            cf->map = p;
            cf->data = p;
            cf->len = (size_t)st.st_size;
            return 0;
        }
    }
    if (fd >= 0)
        close(fd);
    /* stdin, a pipe, an empty file, or no mapping: read it. */
    if (cli_read_file(&cf->buf, path) != 0)
        return ARB_EIO;
    cf->data = (const unsigned char *)cf->buf.data;
    cf->len = cf->buf.len;
    return 0;
}

void
cli_file_close(cli_file_t *cf)
{
    if (cf == NULL)
        return;
    if (cf->map != NULL) {
        munmap(cf->map, cf->len);
        (void)sigaction(SIGBUS, &cf->old_bus, NULL);
    }
    arb_buf_free(&cf->buf);
    memset(cf, 0, sizeof(*cf));
}

int
cli_is_help(const char *arg)
{
    return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

int
cli_print_json(const char *cmd, json_t *v)
{
    arb_buf_t out = ARB_BUF_INIT;
    int       rc = arb_json_put_new(&out, v);

    arb_buf_putc(&out, '\n');
    if (rc != 0 || out.oom) {
        fprintf(stderr, "arbiter %s: out of memory\n", cmd);
        rc = CLI_ERROR;
    } else {
        fwrite(out.data, 1, out.len, stdout);
    }
    arb_buf_free(&out);
    return rc;
}

/* One line of a bundle's problems: what it quotes comes from the file
 * (a match id, an option, a move), so a control character in it is shown
 * as \xNN and cannot drive the terminal (core/text.h). */
static void
print_problem(const char *prefix, const char *id, const char *msg)
{
    arb_buf_t b = ARB_BUF_INIT;

    arb_buf_puts(&b, prefix);
    if (id != NULL) {
        arb_buf_puts(&b, "match ");
        arb_text_clean(&b, id, strlen(id), 0);
        arb_buf_puts(&b, ": ");
    }
    arb_text_clean(&b, msg, strlen(msg), 0);
    arb_buf_putc(&b, '\n');
    if (!b.oom)
        fwrite(b.data, 1, b.len, stderr);
    else
        fprintf(stderr, "%sout of memory\n", prefix);
    arb_buf_free(&b);
}

void
cli_print_bundle_problems(const char *prefix, const arb_bundle_report_t *rep)
{
    size_t i, j;

    if (rep->error != NULL)
        print_problem(prefix, NULL, rep->error);
    for (i = 0; i < rep->nmatches; i++)
        for (j = 0; j < rep->matches[i].nproblems; j++)
            print_problem(prefix, rep->matches[i].match_id,
                          rep->matches[i].problems[j]);
}
