/*
 * store_backup.c - hot copies of every LMDB environment of a data
 * directory (store.h, arb_store_backup).
 *
 * DESIGN: the copy is LMDB's own (mdb_env_copy2), made through a handle
 * of its own opened read-only, so it needs nothing of the store's
 * internals and works while the daemon appends: LMDB copies a consistent
 * snapshot under a read transaction, and holds the writer's lock only
 * while it writes the two meta pages (the compacting copy not at all).
 * Which environments a data directory holds is found by looking, not
 * assumed: the directory itself when it has a data.mdb, each
 * subdirectory with a data.mdb, and each "NAME.mdb" file with its
 * "NAME.mdb-lock" (an MDB_NOSUBDIR environment).  The directory's own
 * environment is copied last, so when it holds the log and the others
 * hold indexes derived from it, no copied index is ahead of the copied
 * log.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lmdb.h>

#include "core/err.h"
#include "core/fsync.h"
#include "core/hash.h"
#include "core/ledger/store.h"
#include "core/ledger/store_int.h"

#define ENVS_MAX 32

typedef struct envref {
    char name[256];     /* relative to the data directory; "" = itself */
    int  nosubdir;
} envref_t;

static int
path_join(char *out, size_t n, const char *a, const char *b)
{
    int w = *b != '\0' ? snprintf(out, n, "%s/%s", a, b)
                       : snprintf(out, n, "%s", a);

    return w < 0 || (size_t)w >= n ? -1 : 0;
}

static int
has_file(const char *dir, const char *name)
{
    char        p[4096];
    struct stat st;

    return path_join(p, sizeof(p), dir, name) == 0 && stat(p, &st) == 0 &&
           S_ISREG(st.st_mode);
}

static int
ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);

    return n > k && strcmp(s + n - k, suffix) == 0;
}

/* The environments of dir, the directory's own last. */
static int
find_envs(const char *dir, envref_t *v, size_t *n, arb_buf_t *why)
{
    DIR           *d;
    struct dirent *e;
    struct stat    st;
    char           p[4096], lock[300];

    *n = 0;
    d = opendir(dir);
    if (d == NULL) {
        arb_buf_printf(why, "%s: %s", dir, strerror(errno));
        return errno == ENOENT ? ARB_ENOTFOUND : ARB_EIO;
    }
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof(v->name) - 6)
            continue;
        if (path_join(p, sizeof(p), dir, e->d_name) != 0 ||
            lstat(p, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode) && has_file(p, "data.mdb")) {
            if (*n == ENVS_MAX - 1)
                break;
            snprintf(v[*n].name, sizeof(v[*n].name), "%s", e->d_name);
            v[(*n)++].nosubdir = 0;
        } else if (S_ISREG(st.st_mode) && ends_with(e->d_name, ".mdb") &&
                   strcmp(e->d_name, "data.mdb") != 0 &&
                   strcmp(e->d_name, "lock.mdb") != 0) {
            snprintf(lock, sizeof(lock), "%s-lock", e->d_name);
            if (!has_file(dir, lock) || *n == ENVS_MAX - 1)
                continue;
            snprintf(v[*n].name, sizeof(v[*n].name), "%s", e->d_name);
            v[(*n)++].nosubdir = 1;
        }
    }
    closedir(d);
    if (!has_file(dir, "data.mdb")) {
        arb_buf_printf(why, "%s: no store there (no data.mdb)", dir);
        return ARB_ENOTFOUND;
    }
    v[*n].name[0] = '\0';
    v[(*n)++].nosubdir = 0;
    return 0;
}

void (*arb__backup_opened_hook)(const char *src);

/* One environment: opened read-only with a handle of its own, copied,
 * the copy synced. */
static int
copy_env(const char *src, const char *dst, int nosubdir, int compact,
         arb_buf_t *why)
{
    MDB_env     *env = NULL;
    char         file[4096];
    unsigned     flags = MDB_RDONLY | MDB_NOTLS | (nosubdir ? MDB_NOSUBDIR : 0);
    int          mrc, tries;

    mrc = mdb_env_create(&env);
    if (mrc == 0)
        mrc = mdb_env_set_maxdbs(env, 64);
    if (mrc == 0)
        mrc = mdb_env_open(env, src, flags, 0600);
    if (mrc != 0) {
        arb_buf_printf(why, "open %s: %s", src, mdb_strerror(mrc));
        goto fail;
    }
    if (!nosubdir && mkdir(dst, 0700) != 0 && errno != EEXIST) {
        arb_buf_printf(why, "create %s: %s", dst, strerror(errno));
        mdb_env_close(env);
        return ARB_EIO;
    }
    if (nosubdir)
        snprintf(file, sizeof(file), "%s", dst);
    else if (path_join(file, sizeof(file), dst, "data.mdb") != 0) {
        arb_buf_printf(why, "%s: path too long", dst);
        mdb_env_close(env);
        return ARB_EINVAL;
    }
    if (arb__backup_opened_hook != NULL)
        arb__backup_opened_hook(src);
    for (tries = 0;; tries++) {
        mrc = mdb_env_copy2(env, dst, compact ? MDB_CP_COMPACT : 0);
        if (mrc != MDB_MAP_RESIZED || tries == 3)
            break;
        /* The daemon grew the map since we opened: adopt its size, and
         * copy again over the empty file the refused copy made (LMDB
         * creates it O_EXCL: until 2026-12-07 the second copy failed on
         * it, "File exists", and the retry never worked). */
        mrc = mdb_env_set_mapsize(env, 0);
        if (mrc == 0 && unlink(file) != 0 && errno != ENOENT)
            mrc = errno;
        if (mrc != 0)
            break;
    }
    if (mrc != 0) {
        arb_buf_printf(why, "copy %s to %s: %s", src, dst, mdb_strerror(mrc));
        goto fail;
    }
    mdb_env_close(env);
    env = NULL;
    if (chmod(file, 0600) != 0 || arb_fsync_path(file) != 0) {
        arb_buf_printf(why, "sync %s: %s", file, strerror(errno));
        return ARB_EIO;
    }
    return 0;
fail:
    mdb_env_close(env);
    return mrc == ENOENT ? ARB_ENOTFOUND : mrc > 0 ? ARB_EIO : ARB_ESTORE;
}

int
arb_store_backup(const char *dir, const char *out, int compact,
                 arb_store_backup_cb cb, void *ud, arb_buf_t *why)
{
    envref_t    v[ENVS_MAX];
    char        src[4096], dst[4096], rel[sizeof(v[0].name) + 16];
    struct stat st;
    size_t      n, i;
    int         rc;

    if (dir == NULL || out == NULL) {
        arb_buf_printf(why, "no data directory or no output directory");
        return ARB_EINVAL;
    }
    /* The copy opens the environments with handles of its own, which in
     * a process that has the store open would reset its readers
     * (store_claim.c). */
    if (stat(dir, &st) == 0 && arb__dir_claimed(&st)) {
        arb_buf_printf(why, "%s: the store is open in this process; back "
                       "it up from another process", dir);
        return ARB_EPERM;
    }
    rc = find_envs(dir, v, &n, why);
    if (rc != 0)
        return rc;
    for (i = 0; i < n; i++) {
        if (path_join(src, sizeof(src), dir, v[i].name) != 0 ||
            path_join(dst, sizeof(dst), out, v[i].name) != 0) {
            arb_buf_printf(why, "%s: path too long", dir);
            return ARB_EINVAL;
        }
        if (v[i].nosubdir || v[i].name[0] == '\0')
            rc = path_join(rel, sizeof(rel), v[i].name[0] != '\0'
                           ? v[i].name : "data.mdb", "");
        else
            rc = path_join(rel, sizeof(rel), v[i].name, "data.mdb");
        if (rc != 0)
            return ARB_EINVAL;
        if (cb != NULL)
            cb(ud, rel);
        rc = copy_env(src, dst, v[i].nosubdir, compact, why);
        if (rc != 0)
            return rc;
        if (!v[i].nosubdir && v[i].name[0] != '\0' &&
            arb_fsync_path(dst) != 0) {
            arb_buf_printf(why, "sync %s: %s", dst, strerror(errno));
            return ARB_EIO;
        }
    }
    if (arb_fsync_path(out) != 0) {
        arb_buf_printf(why, "sync %s: %s", out, strerror(errno));
        return ARB_EIO;
    }
    return 0;
}

int
arb_store_is_env_file(const char *relpath)
{
    const char *base = strrchr(relpath, '/');

    base = base != NULL ? base + 1 : relpath;
    return strcmp(base, "data.mdb") == 0 || strcmp(base, "lock.mdb") == 0 ||
           ends_with(base, ".mdb") || ends_with(base, ".mdb-lock") ||
           strcmp(base, "wal.0") == 0 || strcmp(base, "wal.1") == 0;
}
