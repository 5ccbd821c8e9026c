#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "core/json.h"
#include "core/ledger/bundle.h"
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

void
cli_print_bundle_problems(const char *prefix, const arb_bundle_report_t *rep)
{
    size_t i, j;

    if (rep->error != NULL)
        fprintf(stderr, "%s%s\n", prefix, rep->error);
    for (i = 0; i < rep->nmatches; i++)
        for (j = 0; j < rep->matches[i].nproblems; j++)
            fprintf(stderr, "%smatch %s: %s\n", prefix,
                    rep->matches[i].match_id, rep->matches[i].problems[j]);
}
