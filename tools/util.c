#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "tools/cli.h"

int
cli_read_file(arb_buf_t *b, const char *path)
{
    FILE  *f;
    size_t n;

    f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "arbiter: %s: %s\n", path, strerror(errno));
        return ARB_EIO;
    }
    for (;;) {
        if (arb_buf_reserve(b, 65536) != 0) {
            fprintf(stderr, "arbiter: %s: out of memory\n", path);
            break;
        }
        n = fread(b->data + b->len, 1, 65536, f);
        b->len += n;
        if (n < 65536)
            break;
    }
    if (ferror(f)) {
        fprintf(stderr, "arbiter: %s: read error: %s\n", path,
                strerror(errno));
        b->oom = 1;
    }
    if (f != stdin)
        fclose(f);
    return b->oom ? ARB_EIO : 0;
}

int
cli_is_help(const char *arg)
{
    return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}
