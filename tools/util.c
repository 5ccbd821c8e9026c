#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/deal.h"
#include "core/err.h"
#include "core/ledger/store.h"
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
cli_reveal_stored(arb_store_t *st, arb_event_t *open)
{
    arb_buf_t     sec = ARB_BUF_INIT;
    arb_verdict_t v;
    char         *sp;
    int           rc;

    if (open->setup == NULL || open->setup->deal.kind != ARB_DEAL_COMMIT)
        return 0;
    /* Only the recorder's operator can read the data directory: the
     * secret kept beside the log lets a running dealt match be replayed
     * here before its close reveals the deal. */
    rc = arb_store_secret(st, open->setup->match_id, &sec, NULL);
    if (rc != 0 || (sp = strchr(sec.data, ' ')) == NULL) {
        arb_buf_free(&sec);
        return 0;       /* no secret: replay says what it cannot judge */
    }
    *sp = '\0';
    rc = arb_deal_reveal(&open->setup->deal, sec.data, sp + 1, &v);
    arb_buf_free(&sec);
    if (rc != 0)
        fprintf(stderr, "arbiter: match %s: %s\n", open->setup->match_id,
                v.msg);
    return rc;
}
