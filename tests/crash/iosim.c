/*
 * iosim.c - a test-only I/O shim, loaded into arbiterd with LD_PRELOAD, that
 * records what the process writes and syncs in its data directory, and can
 * make the Nth operation fail or "cut the power" there.  Never linked into
 * anything shipped.
 *
 * DESIGN: it knows nothing of the store's format.  Every file opened under
 * ARB_IOSIM_DIR gets an id; each write (write, pwrite, writev, pwritev),
 * truncation, sync (fsync, fdatasync, a write through an O_SYNC/O_DSYNC
 * descriptor), msync'd range and name change (rename, link, unlink) is
 * appended to the journal ARB_IOSIM_JOURNAL *before* the operation runs
 * (a sync after it has returned), under one lock, so the journal order is
 * the order the kernel saw.  tests/crash/disk.c rebuilds from it what a
 * disk might hold after a power cut.  Files mapped shared and writable
 * (LMDB's lock file) are memory, not durable state: they are only marked.
 *
 * Environment:
 *   ARB_IOSIM_DIR      the data directory (absolute, as the daemon is given)
 *   ARB_IOSIM_JOURNAL  where the journal goes (outside that directory)
 *   ARB_IOSIM_KILL=N   SIGKILL the process before its Nth write or sync
 *                      there: the power cut
 *   ARB_IOSIM_KILL_NAME=N  SIGKILL it before its Nth name change there
 *                      (rename, link, unlink): a tool cut short between
 *                      two renames
 *   ARB_IOSIM_SYNC_SLEEP_MS=N  sleep N ms before each sync there (fsync,
 *                      fdatasync, msync): a slow disk, so that a test can
 *                      act while a commit is in flight
 *   ARB_IOSIM_FAIL=CLASS:N:ERR[:NAME]  make the Nth CLASS call there
 *                      fail with ERR (EIO or ENOSPC), once; CLASS is write,
 *                      sync, msync, open or mmap.  With NAME, only calls
 *                      on files whose name begins so count ("index.mdb":
 *                      the derived index alone, "wal.": the journal)
 * A sync of a file whose earlier sync failed is journalled as a violation
 * (an fsync must never be retried: the failed one may have dropped pages).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include "tests/crash/iosim.h"

#define MAXFD 4096

static pthread_mutex_t lk = PTHREAD_MUTEX_INITIALIZER;
static int             inited, jfd = -1, fail_class = -1, fail_err;
static char            dir[1024], fail_name[64];
static size_t          dirlen;
static uint64_t        kill_at, ops, fail_at, counts[IOSIM_NCLASS];
static uint64_t        kill_name_at, names;
static unsigned        sync_sleep_ms;
static uint32_t        next_id = 1;
static uint32_t        fd_id[MAXFD];        /* 0: not in the directory */
static unsigned char   fd_sync[MAXFD];      /* O_SYNC / O_DSYNC */
static unsigned char   fd_append[MAXFD];
static uint32_t        failed_sync[256];    /* ids whose sync failed */
static unsigned char   id_named[65536];     /* ids of files fail_name names */
static size_t          nfailed_sync;

static int     (*r_open)(const char *, int, ...);
static int     (*r_openat)(int, const char *, int, ...);
static ssize_t (*r_write)(int, const void *, size_t);
static ssize_t (*r_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*r_writev)(int, const struct iovec *, int);
static ssize_t (*r_pwritev)(int, const struct iovec *, int, off_t);
static int     (*r_fsync)(int);
static int     (*r_fdatasync)(int);
static int     (*r_msync)(void *, size_t, int);
static void   *(*r_mmap)(void *, size_t, int, int, int, off_t);
static int     (*r_ftruncate)(int, off_t);
static int     (*r_close)(int);
static int     (*r_rename)(const char *, const char *);
static int     (*r_link)(const char *, const char *);
static int     (*r_unlink)(const char *);

static const char *const class_names[IOSIM_NCLASS] = {
    "write", "sync", "msync", "open", "mmap"
};

static pthread_once_t once = PTHREAD_ONCE_INIT;

/* The real functions.  This may run before main, from a sanitizer's own
 * start-up, when the environment cannot be read yet: hence env_init. */
static void
init_once(void)
{
    r_open = dlsym(RTLD_NEXT, "open");
    r_openat = dlsym(RTLD_NEXT, "openat");
    r_write = dlsym(RTLD_NEXT, "write");
    r_pwrite = dlsym(RTLD_NEXT, "pwrite");
    r_writev = dlsym(RTLD_NEXT, "writev");
    r_pwritev = dlsym(RTLD_NEXT, "pwritev");
    r_fsync = dlsym(RTLD_NEXT, "fsync");
    r_fdatasync = dlsym(RTLD_NEXT, "fdatasync");
    r_msync = dlsym(RTLD_NEXT, "msync");
    r_mmap = dlsym(RTLD_NEXT, "mmap");
    r_ftruncate = dlsym(RTLD_NEXT, "ftruncate");
    r_close = dlsym(RTLD_NEXT, "close");
    r_rename = dlsym(RTLD_NEXT, "rename");
    r_link = dlsym(RTLD_NEXT, "link");
    r_unlink = dlsym(RTLD_NEXT, "unlink");
    inited = 1;
}

static void
init(void)
{
    if (!inited)
        pthread_once(&once, init_once);
}

/* The settings, read once the environment is there (before main); until
 * then nothing is in the directory, and every call passes through. */
__attribute__((constructor)) static void
env_init(void)
{
    const char        *e;
    char               cls[16];
    unsigned long long n;
    size_t             i;

    init();
    pthread_mutex_lock(&lk);
    if ((e = getenv("ARB_IOSIM_JOURNAL")) != NULL)
        jfd = r_open(e, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if ((e = getenv("ARB_IOSIM_KILL")) != NULL)
        kill_at = strtoull(e, NULL, 10);
    if ((e = getenv("ARB_IOSIM_KILL_NAME")) != NULL)
        kill_name_at = strtoull(e, NULL, 10);
    if ((e = getenv("ARB_IOSIM_SYNC_SLEEP_MS")) != NULL)
        sync_sleep_ms = (unsigned)strtoul(e, NULL, 10);
    if ((e = getenv("ARB_IOSIM_FAIL")) != NULL
        && sscanf(e, "%15[a-z]:%llu:", cls, &n) == 2) {
        for (i = 0; i < IOSIM_NCLASS; i++)
            if (strcmp(cls, class_names[i]) == 0)
                fail_class = (int)i;
        fail_at = n;
        fail_err = strstr(e, ":ENOSPC") != NULL ? ENOSPC : EIO;
        /* the fourth field, past CLASS:N:ERR */
        for (i = 0; i < 3 && e != NULL; i++)
            if ((e = strchr(e, ':')) != NULL)
                e++;
        if (e != NULL && strlen(e) < sizeof(fail_name))
            strcpy(fail_name, e);
    }
    /* Last: from here on files in the directory are followed. */
    if ((e = getenv("ARB_IOSIM_DIR")) != NULL && strlen(e) < sizeof(dir)) {
        strcpy(dir, e);
        dirlen = strlen(dir);
        while (dirlen > 1 && dir[dirlen - 1] == '/')
            dir[--dirlen] = '\0';
    }
    pthread_mutex_unlock(&lk);
}

/* Appends one record; the journal is the test's only view, so a short
 * write of it is fatal. */
static void
jrec(int type, uint32_t id, uint64_t off, const void *p1, size_t n1,
     const void *p2, size_t n2)
{
    iosim_rec_t r;
    struct iovec v[3];
    size_t       want = sizeof(r) + n1 + n2;

    if (jfd < 0)
        return;
    memset(&r, 0, sizeof(r));
    r.type = (uint32_t)type;
    r.id = id;
    r.off = off;
    r.len = (uint64_t)(n1 + n2);
    v[0].iov_base = &r;
    v[0].iov_len = sizeof(r);
    v[1].iov_base = (void *)p1;
    v[1].iov_len = n1;
    v[2].iov_base = (void *)p2;
    v[2].iov_len = n2;
    if (r_writev(jfd, v, 3) != (ssize_t)want)
        abort();
}

static int
in_dir(const char *path)
{
    return dirlen > 0 && path != NULL && strncmp(path, dir, dirlen) == 0
           && (path[dirlen] == '/' || path[dirlen] == '\0');
}

static uint32_t
id_of(int fd)
{
    return fd >= 0 && fd < MAXFD ? fd_id[fd] : 0;
}

/* Called with the lock held before a write or sync in the directory:
 * the power cut. */
static void
tick(void)
{
    ops++;
    if (kill_at != 0 && ops >= kill_at) {
        jrec(IOSIM_KILLED, 0, ops, NULL, 0, NULL, 0);
        kill(getpid(), SIGKILL);
        pause();
    }
}

/* 1 when the file at path is one whose calls may fail. */
static int
named(const char *path)
{
    const char *base = strrchr(path, '/');

    base = base != NULL ? base + 1 : path;
    return strncmp(base, fail_name, strlen(fail_name)) == 0;
}

/* 1 when this call of class c must fail (errno set, journalled).  With a
 * file name set, calls on other files do not count: `path` is the file an
 * open is for (NULL: the call goes through id). */
static int
inject(int c, uint32_t id, const char *path)
{
    if (fail_name[0] != '\0'
        && !(path != NULL ? named(path)
             : id < sizeof(id_named) && id_named[id]))
        return 0;
    counts[c]++;
    jrec(IOSIM_COUNT, id, (uint64_t)c, NULL, 0, NULL, 0);
    if (c != fail_class || counts[c] != fail_at)
        return 0;
    jrec(IOSIM_FAILED, id, (uint64_t)c, &fail_err, sizeof(fail_err), NULL, 0);
    errno = fail_err;
    return 1;
}

static int
track_open(const char *path, int fd, int flags)
{
    uint32_t id;
    uint64_t f = 0;

    if (fd < 0 || fd >= MAXFD || !in_dir(path))
        return fd;
    id = next_id++;
    fd_id[fd] = id;
    if (id < sizeof(id_named))
        id_named[id] = named(path);
    fd_sync[fd] = (flags & (O_SYNC | O_DSYNC)) != 0;
    fd_append[fd] = (flags & O_APPEND) != 0;
    if (flags & O_TRUNC)
        f |= IOSIM_O_TRUNC;
    if (flags & O_CREAT)
        f |= IOSIM_O_CREAT;
    jrec(IOSIM_OPEN, id, f, path, strlen(path) + 1, NULL, 0);
    return fd;
}

static int
do_open(int atfd, const char *path, int flags, mode_t mode)
{
    int fd;

    pthread_mutex_lock(&lk);
    init();
    if (in_dir(path) && inject(IOSIM_C_OPEN, 0, path)) {
        pthread_mutex_unlock(&lk);
        return -1;
    }
    fd = atfd == AT_FDCWD ? r_open(path, flags, mode)
                          : r_openat(atfd, path, flags, mode);
    if (fd >= 0)
        track_open(path, fd, flags);
    pthread_mutex_unlock(&lk);
    return fd;
}

/* The mode argument, present only with O_CREAT or O_TMPFILE. */
#define MODE_ARG(flags, mode) do {                                       \
        va_list ap_;                                                     \
        (mode) = 0;                                                      \
        if ((flags) & (O_CREAT | O_TMPFILE)) {                           \
            va_start(ap_, flags);                                        \
            (mode) = (mode_t)va_arg(ap_, int);                           \
            va_end(ap_);                                                 \
        }                                                                \
    } while (0)

int
open(const char *path, int flags, ...)
{
    mode_t mode;

    MODE_ARG(flags, mode);
    return do_open(AT_FDCWD, path, flags, mode);
}

int open64(const char *path, int flags, ...) __attribute__((alias("open")));

int
openat(int atfd, const char *path, int flags, ...)
{
    mode_t mode;

    MODE_ARG(flags, mode);
    return do_open(path[0] == '/' ? AT_FDCWD : atfd, path, flags, mode);
}

int openat64(int, const char *, int, ...) __attribute__((alias("openat")));

/* The file offset a write without one lands at. */
static off_t
cur_off(int fd)
{
    struct stat st;

    if (fd_append[fd] && fstat(fd, &st) == 0)
        return st.st_size;
    return lseek(fd, 0, SEEK_CUR);
}

/* The common path of every write: v[0..n) at off (-1: the fd's). */
static ssize_t
do_write(int fd, const struct iovec *v, int n, off_t off)
{
    uint32_t id;
    ssize_t  rc;
    size_t   total = 0;
    char    *flat = NULL;
    int      i;

    pthread_mutex_lock(&lk);
    init();
    id = id_of(fd);
    if (id != 0) {
        tick();
        if (inject(IOSIM_C_WRITE, id, NULL)) {
            pthread_mutex_unlock(&lk);
            return -1;
        }
        for (i = 0; i < n; i++)
            total += v[i].iov_len;
        flat = malloc(total ? total : 1);
        if (flat == NULL)
            abort();
        for (total = 0, i = 0; i < n; i++) {
            memcpy(flat + total, v[i].iov_base, v[i].iov_len);
            total += v[i].iov_len;
        }
        jrec(fd_sync[fd] ? IOSIM_WRITE_SYNC : IOSIM_WRITE, id,
             (uint64_t)(off >= 0 ? off : cur_off(fd)), flat, total, NULL, 0);
        free(flat);
    }
    rc = off >= 0 ? r_pwritev(fd, v, n, off) : r_writev(fd, v, n);
    if (id != 0 && rc >= 0 && (size_t)rc != total)
        jrec(IOSIM_SHORT, id, (uint64_t)rc, NULL, 0, NULL, 0);
    pthread_mutex_unlock(&lk);
    return rc;
}

ssize_t
write(int fd, const void *p, size_t n)
{
    struct iovec v = { (void *)p, n };

    if (!inited || id_of(fd) == 0) {
        init();
        return r_write(fd, p, n);
    }
    return do_write(fd, &v, 1, -1);
}

ssize_t
pwrite(int fd, const void *p, size_t n, off_t off)
{
    struct iovec v = { (void *)p, n };

    init();
    if (id_of(fd) == 0)
        return r_pwrite(fd, p, n, off);
    return do_write(fd, &v, 1, off);
}

ssize_t pwrite64(int, const void *, size_t, off_t)
    __attribute__((alias("pwrite")));

ssize_t
writev(int fd, const struct iovec *v, int n)
{
    init();
    if (id_of(fd) == 0)
        return r_writev(fd, v, n);
    return do_write(fd, v, n, -1);
}

ssize_t
pwritev(int fd, const struct iovec *v, int n, off_t off)
{
    init();
    if (id_of(fd) == 0)
        return r_pwritev(fd, v, n, off);
    return do_write(fd, v, n, off);
}

ssize_t pwritev64(int, const struct iovec *, int, off_t)
    __attribute__((alias("pwritev")));

static int
do_sync(int fd, int data_only)
{
    uint32_t id;
    size_t   i;
    int      rc;

    pthread_mutex_lock(&lk);
    init();
    id = id_of(fd);
    if (id == 0) {
        pthread_mutex_unlock(&lk);
        return data_only ? r_fdatasync(fd) : r_fsync(fd);
    }
    if (sync_sleep_ms > 0) {
        pthread_mutex_unlock(&lk);
        usleep(sync_sleep_ms * 1000u);
        pthread_mutex_lock(&lk);
    }
    tick();
    for (i = 0; i < nfailed_sync; i++)
        if (failed_sync[i] == id)
            jrec(IOSIM_RESYNC, id, 0, NULL, 0, NULL, 0);
    if (inject(IOSIM_C_SYNC, id, NULL)) {
        if (nfailed_sync < sizeof(failed_sync) / sizeof(failed_sync[0]))
            failed_sync[nfailed_sync++] = id;
        pthread_mutex_unlock(&lk);
        return -1;
    }
    rc = data_only ? r_fdatasync(fd) : r_fsync(fd);
    if (rc == 0)
        jrec(IOSIM_SYNC, id, 0, NULL, 0, NULL, 0);
    pthread_mutex_unlock(&lk);
    return rc;
}

int
fsync(int fd)
{
    return do_sync(fd, 0);
}

int
fdatasync(int fd)
{
    return do_sync(fd, 1);
}

/* A mapped region of a file in the directory. */
typedef struct region {
    char    *addr;
    size_t   len;
    off_t    off;
    uint32_t id;
} region_t;

static region_t regions[64];

void *
mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    uint32_t id;
    void    *p;
    size_t   i;

    pthread_mutex_lock(&lk);
    init();
    id = id_of(fd);
    if (id != 0 && inject(IOSIM_C_MMAP, id, NULL)) {
        pthread_mutex_unlock(&lk);
        return MAP_FAILED;
    }
    p = r_mmap(addr, len, prot, flags, fd, off);
    if (id != 0 && p != MAP_FAILED && (flags & MAP_SHARED)
        && (prot & PROT_WRITE)) {
        jrec(IOSIM_MAPPED, id, 0, NULL, 0, NULL, 0);
        for (i = 0; i < sizeof(regions) / sizeof(regions[0]); i++)
            if (regions[i].addr == NULL) {
                regions[i].addr = p;
                regions[i].len = len;
                regions[i].off = off;
                regions[i].id = id;
                break;
            }
    }
    pthread_mutex_unlock(&lk);
    return p;
}

void *mmap64(void *, size_t, int, int, int, off_t)
    __attribute__((alias("mmap")));

/* An msync'd range of a shared writable mapping (MDB_WRITEMAP) is
 * journalled as a write of the memory there, synced. */
int
msync(void *addr, size_t len, int flags)
{
    char  *a = addr;
    size_t i;
    int    rc;

    pthread_mutex_lock(&lk);
    init();
    for (i = 0; i < sizeof(regions) / sizeof(regions[0]); i++) {
        region_t *r = &regions[i];
        if (r->addr == NULL || a < r->addr || a + len > r->addr + r->len)
            continue;
        if (sync_sleep_ms > 0 && (flags & MS_SYNC)) {
            pthread_mutex_unlock(&lk);
            usleep(sync_sleep_ms * 1000u);
            pthread_mutex_lock(&lk);
        }
        tick();
        if (inject(IOSIM_C_MSYNC, r->id, NULL)) {
            pthread_mutex_unlock(&lk);
            return -1;
        }
        rc = r_msync(addr, len, flags);
        if (rc == 0 && (flags & MS_SYNC))
            jrec(IOSIM_WRITE_SYNC, r->id,
                 (uint64_t)(r->off + (a - r->addr)), a, len, NULL, 0);
        pthread_mutex_unlock(&lk);
        return rc;
    }
    pthread_mutex_unlock(&lk);
    return r_msync(addr, len, flags);
}

int
ftruncate(int fd, off_t len)
{
    uint32_t id;
    int      rc;

    pthread_mutex_lock(&lk);
    init();
    id = id_of(fd);
    if (id != 0) {
        tick();
        jrec(IOSIM_TRUNCATE, id, (uint64_t)len, NULL, 0, NULL, 0);
    }
    rc = r_ftruncate(fd, len);
    pthread_mutex_unlock(&lk);
    return rc;
}

int ftruncate64(int, off_t) __attribute__((alias("ftruncate")));

int
close(int fd)
{
    int rc;

    pthread_mutex_lock(&lk);
    init();
    if (fd >= 0 && fd < MAXFD) {
        fd_id[fd] = 0;
        fd_sync[fd] = fd_append[fd] = 0;
    }
    rc = r_close(fd);
    pthread_mutex_unlock(&lk);
    return rc;
}

/* Name changes are taken as durable when they return (a simplification:
 * a journalling file system orders them, but only a directory fsync
 * guarantees them). */
static int
do_names(int type, const char *a, const char *b)
{
    int rc;

    pthread_mutex_lock(&lk);
    init();
    if (kill_name_at != 0 && (in_dir(a) || (b != NULL && in_dir(b)))
        && ++names >= kill_name_at) {
        jrec(IOSIM_KILLED, 0, names, NULL, 0, NULL, 0);
        kill(getpid(), SIGKILL);
        pause();
    }
    rc = type == IOSIM_RENAME ? r_rename(a, b)
         : type == IOSIM_LINK ? r_link(a, b) : r_unlink(a);
    if (rc == 0 && (in_dir(a) || (b != NULL && in_dir(b))))
        jrec(type, 0, 0, a, strlen(a) + 1, b, b ? strlen(b) + 1 : 0);
    pthread_mutex_unlock(&lk);
    return rc;
}

int
rename(const char *a, const char *b)
{
    return do_names(IOSIM_RENAME, a, b);
}

int
link(const char *a, const char *b)
{
    return do_names(IOSIM_LINK, a, b);
}

int
unlink(const char *a)
{
    return do_names(IOSIM_UNLINK, a, NULL);
}
