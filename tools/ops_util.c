/*
 * ops_util.c - what check, backup and restore-backup share (tools/ops.h).
 *
 * DESIGN: a backup is a plain directory that a person can read: the LMDB
 * copies, the key and token files, and a text MANIFEST naming every file
 * with its mode, size and BLAKE2b-256, plus what the store held (matches,
 * events, last position, heads digest).  Restore checks every file against
 * the manifest before it copies anything, and the restored store against
 * the summary, so a backup damaged in storage is refused, not restored.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "core/clock.h"
#include "core/err.h"
#include "core/fsync.h"
#include "core/ledger/chain.h"
#include "core/ledger/store.h"
#include "tools/cli.h"
#include "tools/ops.h"

int ops_quiet;

void
ops_progress_init(ops_progress_t *p)
{
    memset(p, 0, sizeof(*p));
    p->on = !ops_quiet && isatty(STDERR_FILENO);
}

void
ops_progress(ops_progress_t *p, const char *cmd, const char *what,
             uint64_t done, uint64_t total)
{
    int64_t now;

    if (!p->on)
        return;
    now = arb_clock_ms();
    if (p->shown && now - p->last_ms < 200 && done != total)
        return;
    p->last_ms = now;
    p->shown = 1;
    if (total > 0)
        fprintf(stderr, "\r\033[K%s: %s %" PRIu64 "/%" PRIu64, cmd, what,
                done, total);
    else
        fprintf(stderr, "\r\033[K%s: %s", cmd, what);
    fflush(stderr);
}

void
ops_progress_clear(ops_progress_t *p)
{
    if (p->on && p->shown)
        fprintf(stderr, "\r\033[K");
    p->shown = 0;
}

void
ops_summary_print(FILE *f, const char *label, const arb_check_summary_t *s)
{
    char hex[ARB_HASH_HEX];

    arb_hex(hex, s->heads, ARB_HASH_LEN);
    fprintf(f, "%s: %" PRIu64 " match%s (%" PRIu64 " closed, %" PRIu64
            " dealt), %" PRIu64 " event%s, %" PRIu64 " client id%s, last "
            "position %" PRIu64 ", heads digest %s\n", label, s->matches,
            s->matches == 1 ? "" : "es", s->closed, s->dealt, s->events,
            s->events == 1 ? "" : "s", s->client_ids,
            s->client_ids == 1 ? "" : "s", s->log_pos, hex);
}

typedef struct pctx {
    FILE           *f;
    const char     *prefix;
    const char     *cmd;
    ops_progress_t  pr;
} pctx_t;

static void
problem_cb(void *ud, const char *match_id, int has_seq, uint64_t seq,
           const char *msg)
{
    pctx_t *p = ud;

    ops_progress_clear(&p->pr);
    if (match_id == NULL)
        fprintf(p->f, "%sstore: %s\n", p->prefix, msg);
    else if (has_seq)
        fprintf(p->f, "%smatch %s seq %" PRIu64 ": %s\n", p->prefix,
                match_id, seq, msg);
    else
        fprintf(p->f, "%smatch %s: %s\n", p->prefix, match_id, msg);
}

static void
progress_cb(void *ud, const char *phase, uint64_t done, uint64_t total)
{
    pctx_t *p = ud;

    ops_progress(&p->pr, p->cmd, strcmp(phase, "log") == 0
                 ? "global log, position" : "matches", done, total);
}

static void
page_problem_cb(void *ud, const char *msg)
{
    problem_cb(ud, NULL, 0, 0, msg);
}

static void
page_progress_cb(void *ud, uint64_t done, uint64_t total)
{
    pctx_t *p = ud;

    ops_progress(&p->pr, p->cmd, "pages", done, total);
}

int
ops_check_dir(const char *cmd, const char *dir, FILE *f, const char *prefix,
              arb_check_summary_t *sum)
{
    arb_store_opts_t  o;
    arb_store_pages_t pg;
    arb_store_t      *s = NULL;
    arb_buf_t         why = ARB_BUF_INIT;
    pctx_t            p;
    int               rc;

    memset(&o, 0, sizeof(o));
    memset(sum, 0, sizeof(*sum));
    o.read_only = 1;
    p.f = f;
    p.prefix = prefix;
    p.cmd = cmd;
    ops_progress_init(&p.pr);
    /* The pages first: LMDB follows a damaged one into a fault. */
    rc = arb_store_check_pages(dir, page_problem_cb, page_progress_cb, &p,
                               &pg, &why);
    ops_progress_clear(&p.pr);
    if (rc != 0) {
        fprintf(stderr, "arbiter %s: %s\n", cmd, arb_buf_cstr(&why));
        arb_buf_free(&why);
        return CLI_ERROR;
    }
    if (pg.log_damaged) {
        fprintf(f, "%sstore: data.mdb is damaged, so its events were not "
                "read: restore it from a backup (arbiter restore-backup)\n",
                prefix);
        sum->problems = pg.problems;
        arb_buf_free(&why);
        return 0;
    }
    if (pg.index_damaged) {
        fprintf(f, "%sstore: index.mdb is damaged, so the log is checked "
                "without it; the index is derived: stop arbiterd, move "
                "index.mdb away, and the next start rebuilds it\n", prefix);
        o.skip_index = 1;
    }
    rc = arb_store_open(&s, dir, &o, &why);
    if (rc != 0) {
        fprintf(stderr, "arbiter %s: %s\n", cmd, arb_buf_cstr(&why));
        arb_buf_free(&why);
        return CLI_ERROR;
    }
    rc = arb_check_store(s, problem_cb, progress_cb, &p, sum, &why);
    ops_progress_clear(&p.pr);
    sum->problems += pg.problems;
    if (rc != 0)
        fprintf(stderr, "arbiter %s: %s: the check stopped: %s\n", cmd, dir,
                arb_buf_cstr(&why));
    arb_store_close(s);
    arb_buf_free(&why);
    return rc != 0 ? 2 : 0;
}

static int
io_fail(arb_buf_t *why, const char *what, const char *path)
{
    arb_buf_printf(why, "%s %s: %s", what, path, strerror(errno));
    return ARB_EIO;
}

int
ops_copy_file(const char *src, const char *dst, unsigned mode,
              unsigned char hash[ARB_HASH_LEN], uint64_t *size,
              arb_buf_t *why)
{
    crypto_generichash_state st;
    unsigned char            buf[65536];
    uint64_t                 total = 0;
    ssize_t                  n, w, off;
    int                      in, out = -1, rc = ARB_EIO;

    /* never through a link: a backup holds plain files only */
    in = open(src, O_RDONLY | O_NOFOLLOW);
    if (in < 0)
        return io_fail(why, "open", src);
    out = open(dst, O_WRONLY | O_CREAT | O_EXCL, mode);
    if (out < 0) {
        rc = io_fail(why, "create", dst);
        goto done;
    }
    crypto_generichash_init(&st, NULL, 0, ARB_HASH_LEN);
    while ((n = read(in, buf, sizeof(buf))) != 0) {
        if (n < 0) {
            if (errno == EINTR)
                continue;
            rc = io_fail(why, "read", src);
            goto done;
        }
        crypto_generichash_update(&st, buf, (unsigned long long)n);
        total += (uint64_t)n;
        for (off = 0; off < n; off += w) {
            w = write(out, buf + off, (size_t)(n - off));
            if (w < 0 && errno == EINTR)
                w = 0;
            else if (w < 0) {
                rc = io_fail(why, "write", dst);
                goto done;
            }
        }
    }
    /* umask may have narrowed the mode; the backup keeps the source's. */
    if (fchmod(out, mode) != 0 || fsync(out) != 0) {
        rc = io_fail(why, "sync", dst);
        goto done;
    }
    crypto_generichash_final(&st, buf, ARB_HASH_LEN);
    if (hash != NULL)
        memcpy(hash, buf, ARB_HASH_LEN);
    if (size != NULL)
        *size = total;
    rc = 0;
done:
    close(in);
    if (out >= 0 && close(out) != 0 && rc == 0)
        rc = io_fail(why, "close", dst);
    return rc;
}

int
ops_hash_file(const char *path, unsigned char hash[ARB_HASH_LEN],
              uint64_t *size, arb_buf_t *why)
{
    crypto_generichash_state st;
    unsigned char            buf[65536];
    uint64_t                 total = 0;
    ssize_t                  n;
    int                      fd;

    fd = open(path, O_RDONLY);
    if (fd < 0)
        return io_fail(why, "open", path);
    crypto_generichash_init(&st, NULL, 0, ARB_HASH_LEN);
    while ((n = read(fd, buf, sizeof(buf))) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            close(fd);
            return io_fail(why, "read", path);
        }
        crypto_generichash_update(&st, buf, (unsigned long long)n);
        total += (uint64_t)n;
    }
    close(fd);
    crypto_generichash_final(&st, hash, ARB_HASH_LEN);
    *size = total;
    return 0;
}

int
ops_path(char *out, const char *a, const char *b)
{
    int n = snprintf(out, PATH_MAX, "%s/%s", a, b);

    return n < 0 || n >= PATH_MAX ? -1 : 0;
}

int
ops_partial_path(char *out, const char *path)
{
    size_t n = strlen(path);
    int    w;

    while (n > 1 && path[n - 1] == '/')
        n--;
    if (n > INT_MAX)
        return -1;
    w = snprintf(out, PATH_MAX, "%.*s.partial", (int)n, path);
    return w < 0 || w >= PATH_MAX ? -1 : 0;
}

static int
dir_empty(const char *path)
{
    DIR           *d = opendir(path);
    struct dirent *e;
    int            empty = 1;

    if (d == NULL)
        return 0;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            empty = 0;
    closedir(d);
    return empty;
}

int
ops_target_check(const char *cmd, const char *dir)
{
    struct stat st;
    char        tmp[PATH_MAX];

    if (lstat(dir, &st) == 0 && (!S_ISDIR(st.st_mode) || !dir_empty(dir))) {
        fprintf(stderr, "arbiter %s: %s exists and is not an empty "
                "directory: nothing was restored\n", cmd, dir);
        return CLI_ERROR;
    }
    if (ops_partial_path(tmp, dir) != 0) {
        fprintf(stderr, "arbiter %s: %s: %s\n", cmd, dir,
                strerror(ENAMETOOLONG));
        return CLI_ERROR;
    }
    if (lstat(tmp, &st) == 0) {
        fprintf(stderr, "arbiter %s: create %s: %s (left by an interrupted "
                "restore: remove it)\n", cmd, tmp, strerror(EEXIST));
        return CLI_ERROR;
    }
    return CLI_OK;
}

int
ops_target_begin(const char *cmd, const char *dir, char *tmp, int *exists)
{
    struct stat st;

    if (ops_target_check(cmd, dir) != CLI_OK)
        return CLI_ERROR;
    *exists = lstat(dir, &st) == 0;
    if (ops_partial_path(tmp, dir) != 0) {
        fprintf(stderr, "arbiter %s: %s: %s\n", cmd, dir,
                strerror(ENAMETOOLONG));
        return CLI_ERROR;
    }
    if (mkdir(tmp, 0700) != 0) {
        fprintf(stderr, "arbiter %s: create %s: %s%s\n", cmd, tmp,
                strerror(errno), errno == EEXIST ? " (left by an "
                "interrupted restore: remove it)" : "");
        return CLI_ERROR;
    }
    return 0;
}

int
ops_target_clear(const char *cmd, const char *tmp)
{
    DIR           *d = opendir(tmp);
    struct dirent *e;
    char           path[PATH_MAX];
    int            rc = 0;

    while (d != NULL && rc == 0 && (e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0
            && (ops_path(path, tmp, e->d_name) != 0 || unlink(path) != 0))
            rc = -1;
    if (d == NULL || rc != 0) {
        fprintf(stderr, "arbiter %s: empty %s: %s\n", cmd, tmp,
                strerror(errno));
        rc = CLI_ERROR;
    }
    if (d != NULL)
        closedir(d);
    return rc;
}

/* Removes path and, a directory, everything below it (a symbolic link
 * itself, never what it points to).  0, or -1 with errno. */
static int
remove_tree(const char *path)
{
    struct stat    st;
    struct dirent *e;
    DIR           *d;
    char           sub[PATH_MAX];
    int            rc = 0, err;

    if (lstat(path, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode))
        return unlink(path);
    if ((d = opendir(path)) == NULL)
        return -1;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (ops_path(sub, path, e->d_name) != 0) {
            errno = ENAMETOOLONG;
            rc = -1;
        } else
            rc = remove_tree(sub);
    }
    err = errno;
    closedir(d);
    errno = err;
    return rc == 0 ? rmdir(path) : -1;
}

void
ops_target_abort(const char *cmd, const char *tmp)
{
    if (remove_tree(tmp) != 0 && errno != ENOENT)
        fprintf(stderr, "arbiter %s: remove %s: %s (remove it before "
                "running this again)\n", cmd, tmp, strerror(errno));
    else
        fprintf(stderr, "arbiter %s: removed %s\n", cmd, tmp);
}

int
ops_target_commit(const char *cmd, const char *dir, const char *tmp,
                  int exists)
{
    char parent[PATH_MAX];

    if ((exists && rmdir(dir) != 0) || arb_fsync_path(tmp) != 0
        || rename(tmp, dir) != 0) {
        fprintf(stderr, "arbiter %s: rename %s to %s: %s\n", cmd, tmp, dir,
                strerror(errno));
        return CLI_ERROR;
    }
    if (ops_path(parent, dir, "..") == 0)
        arb_fsync_path(parent);
    return 0;
}

int
ops_manifest_add(ops_manifest_t *m, const char *path, unsigned mode,
                 uint64_t size, const unsigned char hash[ARB_HASH_LEN])
{
    ops_file_t *nf;

    if (m->nfiles == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 8;
        nf = realloc(m->files, cap * sizeof(*nf));
        if (nf == NULL)
            return ARB_ENOMEM;
        m->files = nf;
        m->cap = cap;
    }
    nf = &m->files[m->nfiles];
    nf->path = strdup(path);
    if (nf->path == NULL)
        return ARB_ENOMEM;
    nf->mode = mode;
    nf->size = size;
    memcpy(nf->hash, hash, ARB_HASH_LEN);
    m->nfiles++;
    return 0;
}

void
ops_manifest_free(ops_manifest_t *m)
{
    size_t i;

    if (m == NULL)
        return;
    for (i = 0; i < m->nfiles; i++)
        free(m->files[i].path);
    free(m->files);
    free(m->source);
    free(m->started);
    memset(m, 0, sizeof(*m));
}

/* Why an end line: the file lines come last, so a MANIFEST cut short at
 * a line's end read as whole, and a backup that lost its last files with
 * it (the signing key, the tokens) restored without them.  The end line
 * counts the files and carries the BLAKE2b-256 of every byte before it,
 * so a manifest cut short, or edited, is damage found before anything is
 * copied. */
static void
manifest_sum(char hex[ARB_HASH_HEX], const char *p, size_t n)
{
    unsigned char h[ARB_HASH_LEN];

    crypto_generichash(h, sizeof(h), (const unsigned char *)p, n, NULL, 0);
    arb_hex(hex, h, ARB_HASH_LEN);
}

int
ops_manifest_write(const ops_manifest_t *m, const char *dir, arb_buf_t *why)
{
    arb_buf_t b = ARB_BUF_INIT;
    char      path[PATH_MAX], hex[ARB_HASH_HEX];
    size_t    i, off;
    ssize_t   w;
    int       fd, rc = ARB_EIO;

    arb_buf_printf(&b, "# arbiter backup; restore with: arbiter "
                   "restore-backup --from DIR --data NEWDIR\n"
                   "format %d\nsource %s\nstarted %s\n", OPS_BACKUP_FORMAT,
                   m->source, m->started);
    arb_hex(hex, m->sum.heads, ARB_HASH_LEN);
    arb_buf_printf(&b, "matches %" PRIu64 "\nclosed %" PRIu64 "\ndealt %"
                   PRIu64 "\nevents %" PRIu64 "\nclient_ids %" PRIu64
                   "\nlog_pos %" PRIu64 "\nheads %s\n", m->sum.matches,
                   m->sum.closed, m->sum.dealt, m->sum.events,
                   m->sum.client_ids, m->sum.log_pos, hex);
    for (i = 0; i < m->nfiles; i++) {
        arb_hex(hex, m->files[i].hash, ARB_HASH_LEN);
        arb_buf_printf(&b, "file %s %04o %" PRIu64 " %s\n", hex,
                       m->files[i].mode, m->files[i].size, m->files[i].path);
    }
    if (!b.oom) {
        manifest_sum(hex, b.data, b.len);
        arb_buf_printf(&b, "end %zu %s\n", m->nfiles, hex);
    }
    if (b.oom) {
        arb_buf_free(&b);
        arb_buf_puts(why, "out of memory");
        return ARB_ENOMEM;
    }
    snprintf(path, sizeof(path), "%s/%s", dir, OPS_MANIFEST);
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0) {
        rc = io_fail(why, "create", path);
        goto done;
    }
    for (off = 0; off < b.len; off += (size_t)w) {
        w = write(fd, b.data + off, b.len - off);
        if (w < 0) {
            rc = io_fail(why, "write", path);
            close(fd);
            goto done;
        }
    }
    if (fsync(fd) != 0) {
        rc = io_fail(why, "sync", path);
        close(fd);
        goto done;
    }
    rc = close(fd) != 0 ? io_fail(why, "close", path) : 0;
done:
    arb_buf_free(&b);
    return rc;
}

/* A relative path that stays inside the backup. */
static int
safe_relpath(const char *p)
{
    const char *s;

    if (*p == '\0' || *p == '/' || strlen(p) >= 1024)
        return 0;
    for (s = p; *s != '\0'; s++)
        if ((unsigned char)*s < 0x20)
            return 0;
    for (s = p; s != NULL; s = strchr(s, '/')) {
        if (*s == '/')
            s++;
        if (strncmp(s, "..", 2) == 0 && (s[2] == '/' || s[2] == '\0'))
            return 0;
    }
    return 1;
}

static int
parse_u64(const char *v, uint64_t *out)
{
    char *end;

    if (*v < '0' || *v > '9')
        return -1;
    errno = 0;
    *out = strtoull(v, &end, 10);
    return errno != 0 || *end != '\0' ? -1 : 0;
}

static int
parse_line(ops_manifest_t *m, char *line)
{
    unsigned char h[ARB_HASH_LEN];
    char         *v = strchr(line, ' '), *w, *end;
    uint64_t      size;
    unsigned long mode;
    static const struct { const char *k; size_t off; } nums[] = {
        { "matches", offsetof(arb_check_summary_t, matches) },
        { "closed", offsetof(arb_check_summary_t, closed) },
        { "dealt", offsetof(arb_check_summary_t, dealt) },
        { "events", offsetof(arb_check_summary_t, events) },
        { "client_ids", offsetof(arb_check_summary_t, client_ids) },
        { "log_pos", offsetof(arb_check_summary_t, log_pos) },
    };
    size_t        i;

    if (v == NULL)
        return -1;
    *v++ = '\0';
    if (strcmp(line, "format") == 0) {
        /* 1: made before 2026-12-07, without the end line */
        if (m->format != 0 || (strcmp(v, "1") != 0 && strcmp(v, "2") != 0))
            return -1;
        m->format = v[0] - '0';
        return 0;
    }
    /* (once each: a second is no line of a manifest arbiter wrote) */
    if (strcmp(line, "source") == 0)
        return m->source != NULL || (m->source = strdup(v)) == NULL
               ? -1 : 0;
    if (strcmp(line, "started") == 0)
        return m->started != NULL || (m->started = strdup(v)) == NULL
               ? -1 : 0;
    if (strcmp(line, "heads") == 0)
        return arb_unhex(m->sum.heads, ARB_HASH_LEN, v) == 0 ? 0 : -1;
    for (i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
        if (strcmp(line, nums[i].k) == 0)
            return parse_u64(v, (uint64_t *)(void *)((char *)&m->sum +
                                                      nums[i].off));
    if (strcmp(line, "file") != 0)
        return -1;
    /* file HASH MODE SIZE PATH */
    if ((w = strchr(v, ' ')) == NULL)
        return -1;
    *w++ = '\0';
    if (arb_unhex(h, ARB_HASH_LEN, v) != 0)
        return -1;
    mode = strtoul(w, &end, 8);
    if (end == w || *end != ' ' || mode > 0777)
        return -1;
    w = end + 1;
    if ((v = strchr(w, ' ')) == NULL)
        return -1;
    *v++ = '\0';
    if (parse_u64(w, &size) != 0 || !safe_relpath(v))
        return -1;
    return ops_manifest_add(m, v, (unsigned)mode, size, h) == 0 ? 0 : -1;
}

/* 1 when dir holds a data.mdb: a data directory, not a backup. */
static int
has_store(const char *dir)
{
    char        path[PATH_MAX];
    struct stat st;

    snprintf(path, sizeof(path), "%s/data.mdb", dir);
    return stat(path, &st) == 0;
}

int
ops_manifest_read(ops_manifest_t *m, const char *dir, arb_buf_t *why)
{
    FILE    *f;
    char     path[PATH_MAX], line[2048], hex[ARB_HASH_HEX], *end;
    unsigned char h[ARB_HASH_LEN];
    crypto_generichash_state st;
    unsigned n = 0, ended = 0;
    size_t   len, i, nfiles;
    int      rc = 0;

    memset(m, 0, sizeof(*m));
    snprintf(path, sizeof(path), "%s/%s", dir, OPS_MANIFEST);
    f = fopen(path, "r");
    if (f == NULL && errno == ENOENT) {
        /* A data directory given for its backup, most often. */
        arb_buf_printf(why, "%s: no %s: not a backup made by arbiter "
                       "backup%s", dir, OPS_MANIFEST,
                       has_store(dir) ? " (it is a data directory)" : "");
        return ARB_EIO;
    }
    if (f == NULL)
        return io_fail(why, "open", path);
    crypto_generichash_init(&st, NULL, 0, ARB_HASH_LEN);
    while (fgets(line, sizeof(line), f) != NULL) {
        n++;
        len = strlen(line);
        if (len == 0 || line[len - 1] != '\n') {
            arb_buf_printf(why, "%s: line %u: too long or unterminated",
                           path, n);
            rc = ARB_ECORRUPT;
            break;
        }
        if (ended) {
            arb_buf_printf(why, "%s: line %u: after the end line (line "
                           "%u)", path, n, ended);
            rc = ARB_ECORRUPT;
            break;
        }
        if (m->format >= 2 && strncmp(line, "end ", 4) == 0) {
            crypto_generichash_final(&st, h, sizeof(h));
            arb_hex(hex, h, ARB_HASH_LEN);
            errno = 0;
            i = (size_t)strtoull(line + 4, &end, 10);
            if (line[4] < '0' || line[4] > '9' || errno != 0 ||
                *end != ' ' || i != m->nfiles ||
                strncmp(end + 1, hex, ARB_HASH_HEX - 1) != 0 ||
                end[ARB_HASH_HEX] != '\n') {
                arb_buf_printf(why, "%s: line %u: the end line does not "
                               "match the %zu files and the bytes before "
                               "it: the manifest was changed", path, n,
                               m->nfiles);
                rc = ARB_ECORRUPT;
                break;
            }
            ended = n;
            continue;
        }
        crypto_generichash_update(&st, (const unsigned char *)line, len);
        line[len - 1] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        nfiles = m->nfiles;
        if (parse_line(m, line) != 0) {
            arb_buf_printf(why, "%s: line %u: not a manifest line (or "
                           "another format)", path, n);
            rc = ARB_ECORRUPT;
            break;
        }
        /* Damage too, said so (until 2026-12-07 the restore met it as
         * a file already there: an I/O error, exit 2). */
        for (i = 0; m->nfiles > nfiles && i < nfiles; i++)
            if (strcmp(m->files[i].path, m->files[nfiles].path) == 0) {
                arb_buf_printf(why, "%s: line %u: %s listed twice", path,
                               n, m->files[nfiles].path);
                rc = ARB_ECORRUPT;
                break;
            }
        if (rc != 0)
            break;
    }
    fclose(f);
    if (rc == 0 && (m->format == 0 || m->source == NULL ||
                    m->nfiles == 0)) {
        arb_buf_printf(why, "%s: incomplete (no format, source or files)",
                       path);
        rc = ARB_ECORRUPT;
    } else if (rc == 0 && m->format >= 2 && !ended) {
        arb_buf_printf(why, "%s: no end line after line %u: the manifest "
                       "was cut short", path, n);
        rc = ARB_ECORRUPT;
    }
    if (rc != 0)
        ops_manifest_free(m);
    return rc;
}
