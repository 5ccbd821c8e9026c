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
        "'data = DIR' in arbiterd.conf).  --db DIR is the same as --data.\n"
        "A backup that lacks a file its manifest lists, or holds one it\n"
        "does not list, or whose MANIFEST lost or changed its end line\n"
        "(its files counted, its bytes summed), is damaged, said before\n"
        "anything is made.  A restore that fails removes the\n"
        "DIR.partial it made (one it found is never removed), except a\n"
        "restored store that does not verify, left there to be looked at.\n\n"
        "Exit status: 0 restored and verified, 1 the backup is damaged or\n"
        "does not verify, 2 usage or I/O error.\n");
}

/* Every file the manifest lists is in the backup, a regular file.
 * Checked before anything is created: a backup that lacks one is
 * damaged (CLI_DIFFERS), not an I/O error, and nothing is left behind.
 * CLI_OK, or the status with the reason printed. */
static int
backup_whole(const ops_manifest_t *m, const char *from)
{
    struct stat st;
    char        src[PATH_MAX];
    const char *what;
    size_t      i;

    for (i = 0; i < m->nfiles; i++) {
        if (ops_path(src, from, m->files[i].path) != 0) {
            fprintf(stderr, "arbiter restore-backup: %s/%s: %s\n", from,
                    m->files[i].path, strerror(ENAMETOOLONG));
            return CLI_ERROR;
        }
        if (lstat(src, &st) == 0) {
            if (S_ISREG(st.st_mode))
                continue;
            what = "not a regular file";
        } else if (errno == ENOENT || errno == ENOTDIR) {
            what = strerror(errno);
        } else {
            fprintf(stderr, "arbiter restore-backup: %s: %s\n", src,
                    strerror(errno));
            return CLI_ERROR;
        }
        fprintf(stderr, "arbiter restore-backup: %s: listed in %s/%s but "
                "missing (%s): the backup is damaged; nothing was "
                "restored\n", src, from, OPS_MANIFEST, what);
        return CLI_DIFFERS;
    }
    return CLI_OK;
}

static int
listed(const ops_manifest_t *m, const char *rel)
{
    size_t i;

    for (i = 0; i < m->nfiles; i++)
        if (strcmp(m->files[i].path, rel) == 0)
            return 1;
    return 0;
}

/* Every file of the backup below rel is one the manifest lists, but for
 * MANIFEST and the lock files an open of the backup makes (a check of
 * it in place).  A file the manifest does not list is one it lost (a
 * MANIFEST cut short at a line's end reads as whole): the backup is
 * damaged.  CLI_OK, or the status with the reason printed. */
static int
backup_listed(const ops_manifest_t *m, const char *from, const char *rel)
{
    DIR           *d;
    struct dirent *e;
    struct stat    st;
    char           path[PATH_MAX], sub[PATH_MAX];
    size_t         n;
    int            status = CLI_OK;

    if ((size_t)snprintf(path, sizeof(path), "%s%s%s", from,
                         *rel ? "/" : "", rel) >= sizeof(path))
        return CLI_OK;      /* no file of the manifest is that deep */
    d = opendir(path);
    if (d == NULL) {
        fprintf(stderr, "arbiter restore-backup: %s: %s\n", path,
                strerror(errno));
        return CLI_ERROR;
    }
    while (status == CLI_OK && (e = readdir(d)) != NULL) {
        n = strlen(e->d_name);
        if (e->d_name[0] == '.' || strcmp(e->d_name, "lock.mdb") == 0 ||
            (n > 9 && strcmp(e->d_name + n - 9, ".mdb-lock") == 0) ||
            (*rel == '\0' && strcmp(e->d_name, OPS_MANIFEST) == 0))
            continue;
        if ((size_t)snprintf(sub, sizeof(sub), "%s%s%s", rel,
                             *rel ? "/" : "", e->d_name) >= sizeof(sub) ||
            ops_path(path, from, sub) != 0 || lstat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            status = backup_listed(m, from, sub);
        } else if (!listed(m, sub)) {
            fprintf(stderr, "arbiter restore-backup: %s: in the backup but "
                    "not in %s/%s (cut short?): the backup is damaged; "
                    "nothing was restored\n", path, from, OPS_MANIFEST);
            status = CLI_DIFFERS;
        }
    }
    closedir(d);
    return status;
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
    int                 rc, exists, made = 0, status = CLI_ERROR;
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
        return rc == ARB_ECORRUPT ? CLI_DIFFERS : CLI_ERROR;
    }
    status = backup_whole(&m, from);
    if (status == CLI_OK)
        status = backup_listed(&m, from, "");
    if (status != CLI_OK)
        goto done;
    status = CLI_ERROR;
    if (ops_target_begin("restore-backup", dir, tmp, &exists) != 0)
        goto done;
    made = 1;
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
            if (size != f->size)
                fprintf(stderr, "arbiter restore-backup: %s: %llu bytes, "
                        "the manifest says %llu", src,
                        (unsigned long long)size,
                        (unsigned long long)f->size);
            else
                fprintf(stderr, "arbiter restore-backup: %s: its BLAKE2b-"
                        "256 is not the manifest's", src);
            fprintf(stderr, ": the backup is damaged; nothing was "
                    "restored\n");
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
        made = 0;           /* kept to be looked at, as said */
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
    if (status != CLI_OK && made)
        ops_target_abort("restore-backup", tmp);
    ops_manifest_free(&m);
    arb_buf_free(&why);
    return status;
}
