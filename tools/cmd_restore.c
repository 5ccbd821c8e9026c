/*
 * arbiter restore-backup - a data directory brought back from a backup
 * made by `arbiter backup`.
 *
 * DESIGN: nothing is restored over anything: the target must be new (or
 * an empty directory), so a restore can never clobber a live recorder.
 * Every file is checked against the MANIFEST as it is copied, the
 * restored store is checked in full and must hold exactly what the
 * manifest says the backup held (matches, events, last position, heads
 * digest); only then is DIR.partial renamed to DIR.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/err.h"
#include "core/fsync.h"
#include "core/ledger/chain.h"
#include "tools/cli.h"
#include "tools/net.h"
#include "tools/ops.h"

static void
usage(FILE *f)
{
    fprintf(f,
        "usage: arbiter restore-backup --from BACKUP --data DIR\n\n"
        "Restores the backup directory BACKUP (made by 'arbiter backup')\n"
        "into the data directory DIR, which must not exist or be empty:\n"
        "a restore never writes over a recorder.  Every file is checked\n"
        "against BACKUP/MANIFEST (BLAKE2b-256 and size) as it is copied,\n"
        "with its mode (signing.key and tokens stay 0600, DIR is 0700);\n"
        "the restored store is then checked in full (as 'arbiter check')\n"
        "and must hold what the manifest says: the same matches, events,\n"
        "last position and heads digest.  Only then is DIR.partial renamed\n"
        "to DIR.  Start the recorder on it with 'arbiterd --data DIR' (or\n"
        "'data = DIR' in arbiterd.conf).  --db DIR is the same as --data.\n\n"
        "Exit status: 0 restored and verified, 1 the backup is damaged or\n"
        "does not verify, 2 usage or I/O error.\n");
}

/* Makes the directories of relpath below root, 0700. */
static int
make_parents(const char *root, const char *relpath)
{
    char   p[PATH_MAX];
    size_t n = strlen(root), i;

    if ((size_t)snprintf(p, sizeof(p), "%s/%s", root, relpath) >= sizeof(p))
        return -1;
    for (i = n + 1; p[i] != '\0'; i++) {
        if (p[i] != '/')
            continue;
        p[i] = '\0';
        if (mkdir(p, 0700) != 0 && errno != EEXIST)
            return -1;
        p[i] = '/';
    }
    return 0;
}

static int
same_summary(const arb_check_summary_t *a, const arb_check_summary_t *b)
{
    return a->matches == b->matches && a->events == b->events &&
           a->log_pos == b->log_pos && a->closed == b->closed &&
           a->client_ids == b->client_ids && a->dealt == b->dealt &&
           memcmp(a->heads, b->heads, ARB_HASH_LEN) == 0;
}

int
cmd_restore(int argc, char **argv)
{
    ops_manifest_t      m;
    arb_check_summary_t got;
    arb_buf_t           why = ARB_BUF_INIT;
    const char         *from = NULL, *dir = NULL;
    char                tmp[PATH_MAX], src[PATH_MAX], dst[PATH_MAX];
    unsigned char       h[ARB_HASH_LEN];
    uint64_t            size;
    size_t              i;
    int                 rc, exists, status = CLI_ERROR;
    const cli_optdef_t  opts[] = {
        { "--from", CLI_ARG_STR, &from },
        { "--data", CLI_ARG_STR, &dir },
        { "--db", CLI_ARG_STR, &dir },
        { NULL, 0, NULL }
    };
    cli_args_t          a = {
        .cmd = "restore-backup", .usage = usage, .opts = opts,
        .no_words = 1,
    };

    rc = cli_args_parse(&a, argc, argv);
    if (rc >= 0)
        return rc;
    if (from == NULL || dir == NULL) {
        fprintf(stderr, "arbiter restore-backup: --from BACKUP and --data "
                "DIR are required\n");
        usage(stderr);
        return CLI_ERROR;
    }
    rc = ops_manifest_read(&m, from, &why);
    if (rc != 0) {
        fprintf(stderr, "arbiter restore-backup: %s\n", arb_buf_cstr(&why));
        arb_buf_free(&why);
        return rc == ARB_ECORRUPT ? 1 : 2;
    }
    if (ops_target_begin("restore-backup", dir, tmp, &exists) != 0)
        goto done;
    for (i = 0; i < m.nfiles; i++) {
        const ops_file_t *f = &m.files[i];
        if (ops_path(src, from, f->path) != 0 ||
            ops_path(dst, tmp, f->path) != 0 ||
            make_parents(tmp, f->path) != 0) {
            fprintf(stderr, "arbiter restore-backup: create the directories "
                    "of %s: %s\n", dst, strerror(errno));
            goto done;
        }
        rc = ops_copy_file(src, dst, f->mode, h, &size, &why);
        if (rc != 0) {
            fprintf(stderr, "arbiter restore-backup: %s\n",
                    arb_buf_cstr(&why));
            goto done;
        }
        if (size != f->size || memcmp(h, f->hash, ARB_HASH_LEN) != 0) {
            fprintf(stderr, "arbiter restore-backup: %s: does not match the "
                    "manifest (%llu bytes, manifest says %llu, or another "
                    "hash): the backup is damaged; nothing was restored "
                    "(the partial copy is in %s)\n", src,
                    (unsigned long long)size, (unsigned long long)f->size,
                    tmp);
            status = CLI_DIFFERS;
            goto done;
        }
    }
    if (ops_check_dir("restore-backup", tmp, stdout, "restored: ", &got)
        != 0)
        goto done;
    if (ops_path(dst, tmp, "lock.mdb") == 0)
        unlink(dst);
    if (got.problems != 0 || !same_summary(&got, &m.sum)) {
        ops_summary_print(stderr, "manifest", &m.sum);
        ops_summary_print(stderr, "restored", &got);
        fprintf(stderr, "arbiter restore-backup: the restored store does "
                "not verify or differs from the manifest; it was left in %s\n",
                tmp);
        status = CLI_DIFFERS;
        goto done;
    }
    if (ops_target_commit("restore-backup", dir, tmp, exists) != 0)
        goto done;
    printf("arbiter restore-backup: restored %s from %s (backup of %s, "
           "started %s)\n", dir, from, m.source,
           m.started != NULL ? m.started : "?");
    ops_summary_print(stdout, dir, &got);
    printf("start the recorder with: arbiterd --data %s\n", dir);
    status = CLI_OK;
done:
    ops_manifest_free(&m);
    arb_buf_free(&why);
    return status;
}
