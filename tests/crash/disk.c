/*
 * disk.c - the power-cut rebuild (see disk.h).
 *
 * DESIGN: three passes over the journal.  The first follows names and
 * opens to give every record the file ("image") it touched; the second,
 * backwards, marks the writes a later sync of the same file covers; the
 * third applies the writes twice, in journal order: all of them (that must
 * give what the process left, or the shim missed something), and as the
 * draw decides for the unsynced ones.  Format-agnostic: it never looks at
 * what it copies.
 */
#include <dirent.h>
#include <signal.h>
#include <time.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/crash/disk.h"

#define SECTOR 512

typedef struct image {
    unsigned char *all, *cut;       /* every write / the drawn ones */
    size_t         nall, ncut, cap_all, cap_cut;
    int            mapped;
} image_t;

typedef struct name {
    char name[256];
    int  img;
} name_t;

typedef struct rb {
    image_t *img;
    size_t   nimg;
    name_t  *names;
    size_t   nnames;
    int     *id_img;                /* open id -> image, -1: not a file */
    size_t   nid;
} rb_t;

static int
fail(char *why, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
fail(char *why, size_t n, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
    return -1;
}

void
disk_rm_rf(const char *path)
{
    struct stat    st;
    DIR           *d;
    struct dirent *e;
    char           p[1024];

    if (path == NULL || lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        d = opendir(path);
        while (d != NULL && (e = readdir(d)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            snprintf(p, sizeof(p), "%s/%s", path, e->d_name);
            disk_rm_rf(p);
        }
        if (d != NULL)
            closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

/* Whether the directory arbiter-NAME-<rest>, at dir, was left over by a
 * run that is gone (disk.h). */
static int
scratch_stale(const char *dir, const char *rest, const struct stat *st)
{
    struct stat tk;
    char        p[1100], *end;
    long        pid;

    pid = strtol(rest, &end, 10);
    if (end != rest && *end == '-' && strlen(end + 1) == 6 && pid > 0)
        return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
    if (strlen(rest) != 6)
        return 0;               /* not a name disk_scratch_make gives */
    snprintf(p, sizeof(p), "%s/tokens", dir);
    return stat(p, &tk) != 0 || st->st_mtime + 12 * 3600 < time(NULL);
}

int
disk_scratch_make(char *out, size_t cap, const char *name)
{
    static const char *const bases[] = { "/dev/shm", "/tmp" };
    const char    *base = getenv("ARBITER_TEST_SCRATCH");
    char           prefix[128], p[1024];
    struct dirent *e;
    struct stat    st;
    DIR           *d;
    size_t         i, plen;
    int            n;

    if (base == NULL || *base == '\0') {
        base = "/tmp";
        for (i = 0; i < sizeof(bases) / sizeof(bases[0]); i++)
            if (stat(bases[i], &st) == 0 && S_ISDIR(st.st_mode)
                && access(bases[i], W_OK) == 0) {
                base = bases[i];
                break;
            }
    }
    plen = (size_t)snprintf(prefix, sizeof(prefix), "arbiter-%s-", name);
    if ((d = opendir(base)) != NULL) {
        while ((e = readdir(d)) != NULL) {
            if (strncmp(e->d_name, prefix, plen) != 0)
                continue;
            snprintf(p, sizeof(p), "%s/%s", base, e->d_name);
            if (lstat(p, &st) != 0 || !S_ISDIR(st.st_mode)
                || st.st_uid != getuid())
                continue;
            if (scratch_stale(p, e->d_name + plen, &st))
                disk_rm_rf(p);
        }
        closedir(d);
    }
    n = snprintf(out, cap, "%s/%s%ld-XXXXXX", base, prefix, (long)getpid());
    if (n < 0 || (size_t)n >= cap)
        return -1;
    return mkdtemp(out) != NULL ? 0 : -1;
}

/* Reads a whole file; NULL when it cannot. */
static unsigned char *
slurp(const char *path, size_t *len)
{
    FILE          *f = fopen(path, "rb");
    unsigned char *p = NULL, *np;
    size_t         cap = 0, n = 0, r;

    if (f == NULL)
        return NULL;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 65536;
            np = realloc(p, cap);
            if (np == NULL) {
                free(p);
                fclose(f);
                return NULL;
            }
            p = np;
        }
        r = fread(p + n, 1, cap - n, f);
        n += r;
        if (r == 0)
            break;
    }
    fclose(f);
    *len = n;
    return p;
}

static int
spit(const char *path, const void *p, size_t n, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    int ok;

    if (fd < 0)
        return -1;
    ok = n == 0 || write(fd, p, n) == (ssize_t)n;
    return close(fd) == 0 && ok ? 0 : -1;
}

int
disk_copy_dir(const char *src, const char *dst)
{
    DIR           *d;
    struct dirent *e;
    struct stat    st;
    char           a[1024], b[1024];
    unsigned char *p;
    size_t         n;
    int            rc = 0;

    if (mkdir(dst, 0700) != 0 || (d = opendir(src)) == NULL)
        return -1;
    while ((e = readdir(d)) != NULL) {
        snprintf(a, sizeof(a), "%s/%s", src, e->d_name);
        if (lstat(a, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        snprintf(b, sizeof(b), "%s/%s", dst, e->d_name);
        p = slurp(a, &n);
        if (p == NULL || spit(b, p, n, st.st_mode & 0777) != 0)
            rc = -1;
        free(p);
    }
    closedir(d);
    return rc;
}

/* Makes room for n bytes in buf (zero-filled growth). */
static int
grow(unsigned char **buf, size_t *len, size_t *cap, size_t n)
{
    unsigned char *nb;
    size_t         c = *cap ? *cap : 4096;

    if (n <= *len)
        return 0;
    if (n > *cap) {
        while (c < n)
            c *= 2;
        nb = realloc(*buf, c);
        if (nb == NULL)
            return -1;
        *buf = nb;
        *cap = c;
    }
    memset(*buf + *len, 0, n - *len);
    *len = n;
    return 0;
}

static int
put(unsigned char **buf, size_t *len, size_t *cap, uint64_t off,
    const unsigned char *p, size_t n)
{
    if (grow(buf, len, cap, (size_t)off + n) != 0)
        return -1;
    memcpy(*buf + off, p, n);
    return 0;
}

static void
truncate_to(unsigned char **buf, size_t *len, size_t *cap, uint64_t n)
{
    if (n < *len)
        *len = (size_t)n;
    else
        (void)grow(buf, len, cap, (size_t)n);
}

static int
new_image(rb_t *r)
{
    image_t *ni = realloc(r->img, (r->nimg + 1) * sizeof(*ni));

    if (ni == NULL)
        return -1;
    r->img = ni;
    memset(&ni[r->nimg], 0, sizeof(ni[0]));
    return (int)r->nimg++;
}

static name_t *
find_name(rb_t *r, const char *nm)
{
    size_t i;

    for (i = 0; i < r->nnames; i++)
        if (strcmp(r->names[i].name, nm) == 0)
            return &r->names[i];
    return NULL;
}

static int
set_name(rb_t *r, const char *nm, int img)
{
    name_t *n = find_name(r, nm), *nn;

    if (n == NULL) {
        nn = realloc(r->names, (r->nnames + 1) * sizeof(*nn));
        if (nn == NULL)
            return -1;
        r->names = nn;
        n = &nn[r->nnames++];
        snprintf(n->name, sizeof(n->name), "%s", nm);
    }
    n->img = img;
    return 0;
}

/* The name of path inside live, or NULL when it is not inside. */
static const char *
rel(const char *live, const char *path)
{
    size_t n = strlen(live);

    if (strncmp(path, live, n) != 0 || (path[n] != '/' && path[n] != '\0'))
        return NULL;
    return path[n] == '/' ? path + n + 1 : path + n;
}

static void
rb_free(rb_t *r)
{
    size_t i;

    for (i = 0; i < r->nimg; i++) {
        free(r->img[i].all);
        free(r->img[i].cut);
    }
    free(r->img);
    free(r->names);
    free(r->id_img);
}

/* Loads every regular file of base as a durable image. */
static int
load_base(rb_t *r, const char *base)
{
    DIR           *d = opendir(base);
    struct dirent *e;
    struct stat    st;
    char           p[1024];
    int            i, rc = 0;

    if (d == NULL)
        return -1;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        snprintf(p, sizeof(p), "%s/%s", base, e->d_name);
        if (lstat(p, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if ((i = new_image(r)) < 0) {
            rc = -1;
            break;
        }
        r->img[i].all = slurp(p, &r->img[i].nall);
        if (r->img[i].all == NULL && st.st_size > 0) {
            rc = -1;
            break;
        }
        r->img[i].cap_all = r->img[i].nall;
        r->img[i].cut = malloc(r->img[i].nall ? r->img[i].nall : 1);
        if (r->img[i].cut == NULL) {
            rc = -1;
            break;
        }
        if (r->img[i].nall)
            memcpy(r->img[i].cut, r->img[i].all, r->img[i].nall);
        r->img[i].ncut = r->img[i].cap_cut = r->img[i].nall;
        rc = set_name(r, e->d_name, i);
    }
    closedir(d);
    return rc;
}

typedef struct jrec {
    iosim_rec_t          h;         /* copied: records are unaligned */
    const unsigned char *p;
    int                  img;       /* -1: none */
    uint64_t             len;       /* the bytes that really went */
    int                  durable;
} jrec_t;

/* Splits the journal into records; NULL on a malformed one. */
static jrec_t *
split(const unsigned char *j, size_t n, size_t *count)
{
    jrec_t *v = NULL, *nv;
    size_t  off = 0, k = 0, cap = 0;

    while (off < n) {
        iosim_rec_t h;
        if (n - off < sizeof(h)) {
            free(v);
            return NULL;
        }
        memcpy(&h, j + off, sizeof(h));
        if (h.len > n - off - sizeof(h)) {
            free(v);
            return NULL;
        }
        if (k == cap) {
            cap = cap ? cap * 2 : 1024;
            nv = realloc(v, cap * sizeof(*v));
            if (nv == NULL) {
                free(v);
                return NULL;
            }
            v = nv;
        }
        v[k].h = h;
        v[k].p = j + off + sizeof(h);
        v[k].img = -1;
        v[k].len = h.len;
        v[k].durable = 0;
        k++;
        off += sizeof(h) + (size_t)h.len;
    }
    *count = k;
    return v;
}

int
disk_journal_scan(const char *journal, disk_journal_info_t *info)
{
    unsigned char *j;
    jrec_t        *v;
    size_t         n = 0, k, i;

    memset(info, 0, sizeof(*info));
    info->failed_class = -1;
    j = slurp(journal, &n);
    if (j == NULL)
        return n == 0 && access(journal, F_OK) != 0 ? 0 : -1;
    v = split(j, n, &k);
    if (v == NULL && n > 0) {
        free(j);
        return -1;
    }
    for (i = 0; i < k; i++) {
        const iosim_rec_t *h = &v[i].h;
        if (h->type == IOSIM_COUNT && h->off < IOSIM_NCLASS)
            info->counts[h->off]++;
        else if (h->type == IOSIM_FAILED) {
            info->failed++;
            info->failed_class = (int)h->off;
        } else if (h->type == IOSIM_RESYNC)
            info->resyncs++;
        else if (h->type == IOSIM_KILLED)
            info->killed = 1;
    }
    free(v);
    free(j);
    return 0;
}

int
disk_journal_after(const char *journal, const char *prefix, uint64_t *n)
{
    unsigned char *j;
    jrec_t        *v;
    unsigned char *named = NULL;
    size_t         len = 0, k = 0, i, pl = strlen(prefix);
    int            failed = 0;

    *n = 0;
    if ((j = slurp(journal, &len)) == NULL)
        return len == 0 && access(journal, F_OK) != 0 ? 0 : -1;
    if ((v = split(j, len, &k)) == NULL && len > 0) {
        free(j);
        return -1;
    }
    /* ids are handed out 1, 2, 3, ... by the opens in the journal */
    named = calloc(k + 2, 1);
    for (i = 0; named != NULL && i < k; i++) {
        const iosim_rec_t *h = &v[i].h;
        uint32_t           t = h->type;

        if (t == IOSIM_OPEN && h->id <= k + 1) {
            const char *p = (const char *)v[i].p, *b = strrchr(p, '/');

            b = b != NULL ? b + 1 : p;
            named[h->id] = strncmp(b, prefix, pl) == 0;
        } else if (t == IOSIM_FAILED) {
            failed = 1;
        } else if (failed && h->id <= k + 1 && named[h->id]
                   && (t == IOSIM_WRITE || t == IOSIM_WRITE_SYNC
                       || t == IOSIM_SYNC)) {
            (*n)++;
        }
    }
    free(v);
    free(j);
    if (named == NULL)
        return -1;
    free(named);
    return 0;
}

int
disk_journal_ops_before(const char *journal, const char *prefix,
                        uint64_t *ops)
{
    unsigned char *j;
    jrec_t        *v;
    size_t         n = 0, k = 0, i, pl = strlen(prefix);
    int            rc = -1;

    *ops = 0;
    if ((j = slurp(journal, &n)) == NULL || (v = split(j, n, &k)) == NULL) {
        free(j);
        return -1;
    }
    for (i = 0; i < k && rc != 0; i++) {
        uint32_t t = v[i].h.type;

        if (t == IOSIM_OPEN && v[i].len >= pl
            && memcmp(v[i].p, prefix, pl) == 0)
            rc = 0;
        else if (t == IOSIM_WRITE || t == IOSIM_WRITE_SYNC
                 || t == IOSIM_SYNC || t == IOSIM_TRUNCATE)
            (*ops)++;
    }
    free(v);
    free(j);
    return rc;
}

#define IMG_DIR (-2)     /* id_img of an open of a directory */

/* Pass 1: which image every record touches; names as they end up. */
static int
follow(rb_t *r, jrec_t *v, size_t k, const char *live, char *why,
       size_t wl)
{
    size_t i, last_w = (size_t)-1;

    for (i = 0; i < k; i++) {
        const iosim_rec_t *h = &v[i].h;
        const char        *a = (const char *)v[i].p, *b, *ra, *rbn;
        name_t            *nm;
        struct stat        st;
        int                img;

        switch (h->type) {
        case IOSIM_OPEN:
            if (h->id >= r->nid) {
                size_t nn = (size_t)h->id + 64;
                int   *ni = realloc(r->id_img, nn * sizeof(*ni));
                if (ni == NULL)
                    return fail(why, wl, "out of memory");
                memset(ni + r->nid, 0xff, (nn - r->nid) * sizeof(*ni));
                r->id_img = ni;
                r->nid = nn;
            }
            ra = rel(live, a);
            if (ra == NULL || *ra == '\0' || strchr(ra, '/') != NULL
                || (stat(a, &st) == 0 && S_ISDIR(st.st_mode))) {
                /* the directory itself (or one in it): its sync makes
                 * names durable, which this model takes them to be when
                 * made (a first start fsyncs it after its keys) */
                r->id_img[h->id] = IMG_DIR;
                break;
            }
            nm = find_name(r, ra);
            if (nm != NULL && nm->img >= 0) {
                img = nm->img;
            } else {
                if ((img = new_image(r)) < 0 || set_name(r, ra, img) != 0)
                    return fail(why, wl, "out of memory");
            }
            r->id_img[h->id] = img;
            v[i].img = img;
            break;
        case IOSIM_WRITE:
        case IOSIM_WRITE_SYNC:
        case IOSIM_SYNC:
        case IOSIM_TRUNCATE:
        case IOSIM_MAPPED:
            v[i].img = h->id < r->nid ? r->id_img[h->id] : -1;
            if (v[i].img == IMG_DIR && h->type == IOSIM_SYNC) {
                v[i].img = -1;
                break;
            }
            if (v[i].img < 0)
                return fail(why, wl, "journal: record '%c' through unknown "
                            "open %u", (int)h->type, h->id);
            if (h->type == IOSIM_MAPPED)
                r->img[v[i].img].mapped = 1;
            if (h->type == IOSIM_WRITE || h->type == IOSIM_WRITE_SYNC)
                last_w = i;
            break;
        case IOSIM_SHORT:
            if (last_w != (size_t)-1 && v[last_w].h.id == h->id)
                v[last_w].len = h->off;
            break;
        case IOSIM_RENAME:
        case IOSIM_LINK:
            b = a + strlen(a) + 1;
            ra = rel(live, a);
            rbn = rel(live, b);
            nm = ra != NULL ? find_name(r, ra) : NULL;
            img = nm != NULL ? nm->img : -1;
            if (h->type == IOSIM_RENAME && nm != NULL)
                nm->img = -1;
            if (rbn != NULL && set_name(r, rbn, img) != 0)
                return fail(why, wl, "out of memory");
            break;
        case IOSIM_UNLINK:
            ra = rel(live, a);
            if (ra != NULL && (nm = find_name(r, ra)) != NULL)
                nm->img = -1;
            break;
        default:
            break;
        }
    }
    return 0;
}

/* Pass 2: a write is durable when it went through a synchronous
 * descriptor or a later sync of its file covers it. */
static void
mark_durable(rb_t *r, jrec_t *v, size_t k)
{
    unsigned char *synced = calloc(r->nimg + 1, 1);
    size_t         i;

    if (synced == NULL)
        return;                     /* nothing durable: still a valid draw */
    for (i = k; i-- > 0;) {
        const iosim_rec_t *h = &v[i].h;
        if (v[i].img < 0)
            continue;
        if (h->type == IOSIM_SYNC)
            synced[v[i].img] = 1;
        else if (h->type == IOSIM_WRITE_SYNC)
            v[i].durable = 1;
        else if (h->type == IOSIM_WRITE || h->type == IOSIM_TRUNCATE)
            v[i].durable = synced[v[i].img];
    }
    free(synced);
}

/* Pass 3. */
static int
apply(rb_t *r, jrec_t *v, size_t k, unsigned *seed, disk_stats_t *st)
{
    size_t i;

    for (i = 0; i < k; i++) {
        const iosim_rec_t *h = &v[i].h;
        image_t           *im;
        uint64_t           s, e, off;
        int                draw;

        if (v[i].img < 0)
            continue;
        im = &r->img[v[i].img];
        if (h->type == IOSIM_OPEN && (h->off & IOSIM_O_TRUNC)) {
            truncate_to(&im->all, &im->nall, &im->cap_all, 0);
            truncate_to(&im->cut, &im->ncut, &im->cap_cut, 0);
            continue;
        }
        if (h->type == IOSIM_TRUNCATE) {
            truncate_to(&im->all, &im->nall, &im->cap_all, h->off);
            if (v[i].durable || rand_r(seed) % 2)
                truncate_to(&im->cut, &im->ncut, &im->cap_cut, h->off);
            continue;
        }
        if (h->type != IOSIM_WRITE && h->type != IOSIM_WRITE_SYNC)
            continue;
        if (put(&im->all, &im->nall, &im->cap_all, h->off, v[i].p,
                (size_t)v[i].len) != 0)
            return -1;
        draw = v[i].durable ? 1 : rand_r(seed) % 4;
        if (v[i].durable)
            st->synced++;
        else if (draw == 0)
            st->dropped++;
        else if (draw == 1)
            st->kept++;
        else
            st->torn++;
        if (draw == 0)
            continue;
        if (draw == 1) {
            if (put(&im->cut, &im->ncut, &im->cap_cut, h->off, v[i].p,
                    (size_t)v[i].len) != 0)
                return -1;
            continue;
        }
        /* Torn: each sector it touches is written whole, or not at all. */
        for (off = h->off; off < h->off + v[i].len; off = e) {
            s = off;
            e = (off / SECTOR + 1) * SECTOR;
            if (e > h->off + v[i].len)
                e = h->off + v[i].len;
            if (rand_r(seed) % 2
                && put(&im->cut, &im->ncut, &im->cap_cut, s,
                       v[i].p + (s - h->off), (size_t)(e - s)) != 0)
                return -1;
        }
    }
    return 0;
}

/* The shim must have seen every write: replaying all of them onto base
 * gives what the process left. */
static int
check_live(rb_t *r, const char *live, char *why, size_t wl)
{
    DIR           *d;
    struct dirent *e;
    struct stat    st;
    char           p[1024];
    unsigned char *got;
    size_t         i, n;
    name_t        *nm;

    for (i = 0; i < r->nnames; i++) {
        const image_t *im;
        if (r->names[i].img < 0)
            continue;
        im = &r->img[r->names[i].img];
        if (im->mapped)
            continue;
        snprintf(p, sizeof(p), "%s/%s", live, r->names[i].name);
        got = slurp(p, &n);
        if (got == NULL && access(p, F_OK) != 0)
            return fail(why, wl, "%s: gone, but the journal keeps it",
                        r->names[i].name);
        if (n != im->nall || (n > 0 && memcmp(got, im->all, n) != 0)) {
            free(got);
            return fail(why, wl, "%s: the journal does not account for "
                        "what the process wrote (%zu bytes left, %zu "
                        "replayed): a way of writing the shim does not see",
                        r->names[i].name, n, im->nall);
        }
        free(got);
    }
    if ((d = opendir(live)) == NULL)
        return fail(why, wl, "%s: %s", live, strerror(errno));
    while ((e = readdir(d)) != NULL) {
        snprintf(p, sizeof(p), "%s/%s", live, e->d_name);
        if (lstat(p, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        nm = find_name(r, e->d_name);
        if (nm == NULL || nm->img < 0) {
            fail(why, wl, "%s: written without the shim seeing it",
                 e->d_name);
            closedir(d);                /* e points into d */
            return -1;
        }
    }
    closedir(d);
    return 0;
}

static int
write_out(rb_t *r, const char *live, const char *out, char *why, size_t wl)
{
    char           p[1024];
    unsigned char *m;
    size_t         i, n;

    if (mkdir(out, 0700) != 0)
        return fail(why, wl, "%s: %s", out, strerror(errno));
    for (i = 0; i < r->nnames; i++) {
        const image_t *im;
        if (r->names[i].img < 0)
            continue;
        im = &r->img[r->names[i].img];
        snprintf(p, sizeof(p), "%s/%s", out, r->names[i].name);
        if (im->mapped) {
            /* Memory, not durable state: as the process left it. */
            char lp[1024];
            snprintf(lp, sizeof(lp), "%s/%s", live, r->names[i].name);
            m = slurp(lp, &n);
            if (spit(p, m, m != NULL ? n : 0, 0600) != 0) {
                free(m);
                return fail(why, wl, "%s: %s", p, strerror(errno));
            }
            free(m);
        } else if (spit(p, im->cut, im->ncut, 0600) != 0) {
            return fail(why, wl, "%s: %s", p, strerror(errno));
        }
    }
    return 0;
}

int
disk_rebuild(const char *base, const char *live, const char *journal,
             const char *out, unsigned *seed, disk_stats_t *st, char *why,
             size_t wl)
{
    rb_t           r;
    unsigned char *j = NULL;
    jrec_t        *v = NULL;
    size_t         n = 0, k = 0, i;
    int            rc = -1;

    memset(&r, 0, sizeof(r));
    memset(st, 0, sizeof(*st));
    if (load_base(&r, base) != 0) {
        fail(why, wl, "%s: cannot load", base);
        goto out;
    }
    j = slurp(journal, &n);
    if (j == NULL && n != 0) {
        fail(why, wl, "%s: unreadable", journal);
        goto out;
    }
    if (n > 0 && (v = split(j, n, &k)) == NULL) {
        fail(why, wl, "%s: malformed journal", journal);
        goto out;
    }
    if (follow(&r, v, k, live, why, wl) != 0)
        goto out;
    mark_durable(&r, v, k);
    if (apply(&r, v, k, seed, st) != 0) {
        fail(why, wl, "out of memory");
        goto out;
    }
    if (check_live(&r, live, why, wl) != 0 || write_out(&r, live, out, why,
                                                          wl) != 0)
        goto out;
    for (i = 0; i < r.nnames; i++)
        st->files += r.names[i].img >= 0;
    rc = 0;
out:
    free(v);
    free(j);
    rb_free(&r);
    return rc;
}
