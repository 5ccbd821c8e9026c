/*
 * arbiter backup - a hot backup of a live data directory.
 *
 * DESIGN: the LMDB environments are copied by LMDB itself
 * (arb_store_backup: mdb_env_copy2 under a read transaction, so the
 * daemon's writers go on); the other files the directory holds (the
 * signing key pair, the tokens) are copied with their modes, so the secret
 * ones stay 0600.  The deal secrets of running matches live inside the
 * store's environment and come with it.  The copy is written to PATH.partial,
 * opened and checked in full (arb_check_store: every chain, every index),
 * given a MANIFEST, and only then renamed to PATH: a PATH that exists is a
 * backup that was verified; an interrupted one is never mistaken for it.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/err.h"
#include "core/fsync.h"
#include "core/ledger/chain.h"
#include "core/ledger/store.h"
#include "tools/cli.h"
#include "tools/net.h"
#include "tools/ops.h"

static void
usage(FILE *f)
{
    fprintf(f,
        "usage: arbiter backup [--data DIR] --out PATH [--compact]\n\n"
        "Backs up the data directory DIR (default " OPS_DATA_DEFAULT ") "
        "while arbiterd\nruns, into the new directory PATH:\n"
        "  - every LMDB environment of DIR, copied by LMDB itself\n"
        "    (mdb_env_copy2: a consistent snapshot under a read\n"
        "    transaction; appends go on meanwhile), with --compact\n"
        "    without free pages (MDB_CP_COMPACT, slower, smaller);\n"
        "  - the other files of DIR: signing.key (stays 0600),\n"
        "    signing.pub, tokens (0600); the deal secrets of running\n"
        "    matches are inside the store and come with it;\n"
        "  - MANIFEST: every file's mode, size and BLAKE2b-256, what the\n"
        "    store holds, and an end line counting the files and summing\n"
        "    the bytes before it (a MANIFEST cut short is seen as such).\n"
        "PATH is made 0700.  The copy is then opened and checked in full\n"
        "(as 'arbiter check' does: every chain, every index) before it is\n"
        "renamed from PATH.partial to PATH, and what it holds is printed:\n"
        "matches, events, the last log position, the heads digest.\n"
        "Every event acknowledged before the backup started is in it.\n\n"
        "Restore with: arbiter restore-backup --from PATH --data NEWDIR\n"
        "At a terminal the progress is shown on stderr.  --db DIR is the\n"
        "same as --data DIR.\n\n"
        "A DIR that holds no store is refused before anything is made; a\n"
        "backup that fails otherwise removes the PATH.partial it made (one\n"
        "it found is never removed).\n\n"
        "Exit status: 0 written and verified, 1 the copy does not verify\n"
        "(left in PATH.partial), 2 usage or I/O error.\n");
}

typedef struct bctx {
    ops_progress_t pr;
} bctx_t;

static void
env_cb(void *ud, const char *relpath)
{
    bctx_t *b = ud;
    char    what[300];

    snprintf(what, sizeof(what), "copying %s", relpath);
    ops_progress(&b->pr, "backup", what, 0, 0);
}

/* The regular files of dir that are not part of an environment: the key
 * pair and the tokens today, whatever else an operator keeps there. */
static int
copy_files(const char *dir, const char *out, arb_buf_t *why)
{
    DIR           *d;
    struct dirent *e;
    struct stat    st;
    char           src[PATH_MAX], dst[PATH_MAX];
    int            rc = 0;

    d = opendir(dir);
    if (d == NULL) {
        arb_buf_printf(why, "%s: %s", dir, strerror(errno));
        return ARB_EIO;
    }
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || arb_store_is_env_file(e->d_name))
            continue;
        if ((size_t)snprintf(src, sizeof(src), "%s/%s", dir, e->d_name) >=
                sizeof(src) ||
            (size_t)snprintf(dst, sizeof(dst), "%s/%s", out, e->d_name) >=
                sizeof(dst) || lstat(src, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            if (ops_path(dst, src, "data.mdb") != 0 ||
                access(dst, F_OK) != 0)
                fprintf(stderr, "arbiter backup: skipped %s: a directory "
                        "that is not a store environment\n", src);
            continue;
        }
        if (S_ISLNK(st.st_mode)) {
            /* A backup holds plain files only: what a link names (a
             * signing.key kept elsewhere) is the operator's to copy. */
            fprintf(stderr, "arbiter backup: skipped %s: a symbolic link "
                    "(back up the file it names yourself)\n", src);
            continue;
        }
        if (!S_ISREG(st.st_mode))
            continue;       /* the socket, and nothing else expected */
        /* Never wider than the source, never group/other writable. */
        rc = ops_copy_file(src, dst, st.st_mode & 0644, NULL, NULL, why);
    }
    closedir(d);
    return rc;
}

/* Every file under dir into the manifest, with its hash. */
static int
list_files(ops_manifest_t *m, const char *root, const char *rel,
           arb_buf_t *why)
{
    DIR           *d;
    struct dirent *e;
    struct stat    st;
    unsigned char  h[ARB_HASH_LEN];
    uint64_t       size;
    char           path[PATH_MAX], sub[PATH_MAX];
    int            rc = 0;

    snprintf(path, sizeof(path), "%s%s%s", root, *rel ? "/" : "", rel);
    d = opendir(path);
    if (d == NULL) {
        arb_buf_printf(why, "%s: %s", path, strerror(errno));
        return ARB_EIO;
    }
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, OPS_MANIFEST) == 0 ||
            strcmp(e->d_name, "lock.mdb") == 0 ||
            strcmp(e->d_name, "index.mdb-lock") == 0)
            continue;
        snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "",
                 e->d_name);
        if (ops_path(path, root, sub) != 0 || lstat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode))
            rc = list_files(m, root, sub, why);
        else if (S_ISREG(st.st_mode)) {
            rc = ops_hash_file(path, h, &size, why);
            if (rc == 0)
                rc = ops_manifest_add(m, sub, st.st_mode & 0777, size, h);
        }
    }
    closedir(d);
    return rc;
}

/* 1 when the new path out would be inside the directory real (a resolved
 * path): its parent, resolved, is real or below it. */
static int
inside(const char *real, const char *out)
{
    char   parent[PATH_MAX], resolved[PATH_MAX], *slash;
    size_t n = strlen(real);

    snprintf(parent, sizeof(parent), "%s", out);
    slash = strrchr(parent, '/');
    if (slash == NULL)
        snprintf(parent, sizeof(parent), ".");
    else if (slash == parent)
        parent[1] = '\0';
    else
        *slash = '\0';
    if (realpath(parent, resolved) == NULL)
        return 0;       /* no such parent: mkdir will say so */
    return strncmp(resolved, real, n) == 0 &&
           (resolved[n] == '/' || resolved[n] == '\0');
}

static int
file_cmp(const void *a, const void *b)
{
    return strcmp(((const ops_file_t *)a)->path,
                  ((const ops_file_t *)b)->path);
}

int
cmd_backup(int argc, char **argv)
{
    ops_manifest_t  m;
    bctx_t          b;
    arb_buf_t       why = ARB_BUF_INIT;
    const char     *dir = OPS_DATA_DEFAULT, *out = NULL;
    char            tmp[PATH_MAX], lock[PATH_MAX], when[32], src[PATH_MAX];
    char            outb[PATH_MAX];
    struct timespec ts;
    struct stat     st;
    size_t          i;
    int             rc, compact = 0, made = 0, status = CLI_ERROR;
    const cli_optdef_t opts[] = {
        { "--data", CLI_ARG_STR, &dir },
        { "--db", CLI_ARG_STR, &dir },
        { "--out", CLI_ARG_STR, &out },
        { "--compact", CLI_ARG_FLAG, &compact },
        { NULL, 0, NULL }
    };
    cli_args_t      a = {
        .cmd = "backup", .usage = usage, .opts = opts, .no_words = 1,
    };

    memset(&m, 0, sizeof(m));
    rc = cli_args_parse(&a, argc, argv);
    if (rc >= 0)
        return rc;
    if (out == NULL) {
        fprintf(stderr, "arbiter backup: --out PATH is required\n");
        usage(stderr);
        return CLI_ERROR;
    }
    /* PATH without the slashes that end it, for every use below (its
     * parent, PATH.partial) */
    if (ops_partial_path(tmp, out) != 0) {
        fprintf(stderr, "arbiter backup: %s: %s\n", out,
                strerror(ENAMETOOLONG));
        return CLI_ERROR;
    }
    snprintf(outb, sizeof(outb), "%.*s", (int)(strlen(tmp) - 8), tmp);
    out = outb;
    if (realpath(dir, src) == NULL) {
        fprintf(stderr, "arbiter backup: %s: %s\n", dir, strerror(errno));
        return CLI_ERROR;
    }
    if (inside(src, out)) {
        fprintf(stderr, "arbiter backup: %s is inside the data directory "
                "%s: put the backup elsewhere\n", out, src);
        return CLI_ERROR;
    }
    if (lstat(out, &st) == 0) {
        fprintf(stderr, "arbiter backup: %s exists; a backup goes into a "
                "new directory\n", out);
        return CLI_ERROR;
    }
    /* A directory that is no store is said before anything is made (as
     * arb_store_backup would say it, after PATH.partial). */
    if (ops_path(lock, src, "data.mdb") != 0 || lstat(lock, &st) != 0
        || !S_ISREG(st.st_mode)) {
        fprintf(stderr, "arbiter backup: %s: no store there (no data.mdb)"
                "\n", dir);
        return CLI_ERROR;
    }
    /* A store this build does not read (another format) is said of the
     * source, before anything is made (until 2026-12-06 the copy's open
     * said it, naming PATH.partial, which it then removed). */
    {
        arb_store_opts_t o;
        arb_store_t     *s = NULL;

        memset(&o, 0, sizeof(o));
        o.read_only = 1;
        if (arb_store_open(&s, dir, &o, &why) == ARB_EUNSUPP) {
            fprintf(stderr, "arbiter backup: %s\n", arb_buf_cstr(&why));
            arb_buf_free(&why);
            return CLI_ERROR;
        }
        arb_store_close(s);
        why.len = 0;
    }
    if (mkdir(tmp, 0700) != 0) {
        fprintf(stderr, "arbiter backup: create %s: %s%s\n", tmp,
                strerror(errno), errno == EEXIST ? " (left by an "
                "interrupted backup: remove it)" : "");
        return CLI_ERROR;
    }
    made = 1;
    clock_gettime(CLOCK_REALTIME, &ts);
    arb_iso_time(when, (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);

    ops_progress_init(&b.pr);
    rc = arb_store_backup(dir, tmp, compact, env_cb, &b, &why);
    if (rc == 0) {
        ops_progress(&b.pr, "backup", "copying keys and tokens", 0, 0);
        rc = copy_files(dir, tmp, &why);
    }
    ops_progress_clear(&b.pr);
    if (rc != 0) {
        fprintf(stderr, "arbiter backup: %s\n", arb_buf_cstr(&why));
        goto done;
    }

    /* The copy is opened and checked like any store before it counts. */
    rc = ops_check_dir("backup", tmp, stdout, "backup copy: ", &m.sum);
    /* Lock files are made by the open; they are not data. */
    if (ops_path(lock, tmp, "lock.mdb") == 0)
        unlink(lock);
    if (ops_path(lock, tmp, "index.mdb-lock") == 0)
        unlink(lock);
    if (rc != 0)
        goto done;
    if (m.sum.problems != 0) {
        fprintf(stderr, "arbiter backup: the copy in %s does not verify "
                "(%llu problem%s); it was not renamed to %s\n", tmp,
                (unsigned long long)m.sum.problems,
                m.sum.problems == 1 ? "" : "s", out);
        made = 0;           /* kept to be looked at, as said */
        status = CLI_DIFFERS;
        goto done;
    }
    m.source = strdup(src);
    m.started = strdup(when);
    if (m.source == NULL || m.started == NULL) {
        fprintf(stderr, "arbiter backup: out of memory\n");
        goto done;
    }
    rc = list_files(&m, tmp, "", &why);
    if (rc == 0) {
        qsort(m.files, m.nfiles, sizeof(*m.files), file_cmp);
        rc = ops_manifest_write(&m, tmp, &why);
    }
    if (rc == 0 && (arb_fsync_path(tmp) != 0 || rename(tmp, out) != 0)) {
        arb_buf_printf(&why, "rename %s to %s: %s", tmp, out,
                       strerror(errno));
        rc = ARB_EIO;
    }
    if (rc != 0) {
        fprintf(stderr, "arbiter backup: %s\n", arb_buf_cstr(&why));
        goto done;
    }
    /* The rename is durable once the parent directory is. */
    if (ops_path(tmp, out, "..") == 0)
        arb_fsync_path(tmp);
    printf("arbiter backup: wrote %s from %s (started %s)\n", out, src, when);
    ops_summary_print(stdout, out, &m.sum);
    for (i = 0; i < m.nfiles; i++)
        printf("  %04o %12llu  %s\n", m.files[i].mode,
               (unsigned long long)m.files[i].size, m.files[i].path);
    status = CLI_OK;
done:
    if (status != CLI_OK && made)
        ops_target_abort("backup", tmp);
    ops_manifest_free(&m);
    arb_buf_free(&why);
    return status;
}
