/*
 * arbiter migrate - rewrites a data directory of store format 1 in the
 * current format (docs/STORE.md, "Migrating from format 1").
 *
 * DESIGN: the old files are never written.  Every event is appended, in
 * the old commit order, to a fresh store beside them (DIR/migrate.new);
 * the new store computes each hash from the bytes, and each must equal
 * the hash format 1 recorded, so every chain is verified on the way.
 * Each match's summary (last seq, head, closed) must agree too, and the
 * new store is verified once more as a whole.  Only then are the old
 * files moved into DIR/format1/ and the new ones into DIR; a failure
 * anywhere before that leaves DIR as it was (and migrate.new to delete).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/codec.h"
#include "core/err.h"
#include "core/fsync.h"
#include "core/ledger/chain.h"
#include "core/ledger/store.h"
#include "core/ledger/store_v1.h"
#include "tools/cli.h"
#include "tools/ops.h"

#define BATCH 1024

int cmd_migrate(int argc, char **argv);

typedef struct mig {
    arb_store_t   *st;
    arb_append_t   ap[BATCH];
    unsigned char  want[BATCH][ARB_HASH_LEN];
    uint64_t       wantpos[BATCH];
    arb_buf_t      hold;            /* the batch's bytes and strings */
    size_t         off[BATCH][5];   /* match, game, bytes, cid, secret */
    size_t         n;
    uint64_t       done, total, matches;
    int            progress;
    arb_buf_t      why;
} mig_t;

static void
usage(FILE *f)
{
    fprintf(f,
        "usage: arbiter migrate --data DIR [--quiet]\n\n"
        "Rewrites the store in DIR (arbiterd's data directory) from format\n"
        "1 to the current format.  Every event is copied in commit order\n"
        "and every hash chain is recomputed and checked against the stored\n"
        "hashes; the old files are kept in DIR/format1/.  A format-2 store\n"
        "is upgraded in place (format 3 adds the journal, docs/STORE.md)\n"
        "and verified.  arbiterd must not be running.  Progress goes to a\n"
        "terminal; --quiet (or a pipe) prints only the summary.  Exit\n"
        "status: 0 migrated (or nothing to do), 1 the old store does not\n"
        "verify (DIR is left as it was), 2 usage or I/O problem.\n");
}

static size_t
hold(mig_t *g, const void *p, size_t n)
{
    size_t at = g->hold.len;

    arb_buf_add(&g->hold, p, n);
    arb_buf_putc(&g->hold, '\0');
    return at;
}

/* Whether the store refused a batch for the order of what it holds. */
static int
order_refusal(int rc)
{
    return rc == ARB_EEXIST || rc == ARB_ENOTFOUND || rc == ARB_EOVER
           || rc == ARB_ECONFLICT;
}

/*
 * The batch refused for what the old log holds (an event twice, a seq
 * left out, a move after the close, a client id used twice): appended
 * again one event at a time, so the one refused is named by its log
 * position, match and seq, as damage of the old store (ARB_ECORRUPT);
 * 0 when each was taken alone.
 * Until 2026-12-07 the store's words alone were said, naming neither,
 * with the exit status of an I/O error.  Any other code is returned.
 */
static int
refused_event(mig_t *g, int rc)
{
    arb_buf_t said = ARB_BUF_INIT;
    size_t    i;

    if (!order_refusal(rc))
        return rc;
    for (i = 0; i < g->n; i++) {
        g->why.len = 0;
        rc = arb_store_append_batch(g->st, &g->ap[i], 1, &g->why);
        if (rc == 0)
            continue;
        if (!order_refusal(rc))
            return rc;
        arb_buf_puts(&said, arb_buf_cstr(&g->why));
        g->why.len = 0;
        arb_buf_printf(&g->why, "log key %llu: match \"%s\" seq %llu does "
                       "not follow the events before it (%s)",
                       (unsigned long long)g->wantpos[i], g->ap[i].match_id,
                       (unsigned long long)g->ap[i].seq,
                       arb_buf_cstr(&said));
        arb_buf_free(&said);
        return ARB_ECORRUPT;
    }
    return 0;               /* each taken alone: flush goes on */
}

static int
flush(mig_t *g)
{
    size_t i;
    int    rc;

    if (g->n == 0)
        return 0;
    if (g->hold.oom) {
        arb_buf_printf(&g->why, "out of memory");
        return ARB_ENOMEM;
    }
    /* The buffer may have moved while the batch grew: point now. */
    for (i = 0; i < g->n; i++) {
        arb_append_t *a = &g->ap[i];
        a->match_id = g->hold.data + g->off[i][0];
        a->game = g->off[i][1] != SIZE_MAX ? g->hold.data + g->off[i][1]
                                           : NULL;
        a->bytes = g->hold.data + g->off[i][2];
        a->client_id = g->off[i][3] != SIZE_MAX
                       ? g->hold.data + g->off[i][3] : NULL;
        a->secret = g->off[i][4] != SIZE_MAX ? g->hold.data + g->off[i][4]
                                             : NULL;
    }
    rc = arb_store_append_batch(g->st, g->ap, g->n, &g->why);
    if (rc != 0)
        return refused_event(g, rc);
    for (i = 0; i < g->n; i++) {
        if (memcmp(g->ap[i].hash, g->want[i], ARB_HASH_LEN) != 0) {
            g->why.len = 0;
            arb_buf_printf(&g->why, "match \"%s\": seq %llu: stored hash "
                           "does not match the chain", g->ap[i].match_id,
                           (unsigned long long)g->ap[i].seq);
            return ARB_ECORRUPT;
        }
        if (g->ap[i].pos != g->wantpos[i]) {
            g->why.len = 0;
            arb_buf_printf(&g->why, "log position %llu became %llu",
                           (unsigned long long)g->wantpos[i],
                           (unsigned long long)g->ap[i].pos);
            return ARB_ECORRUPT;
        }
    }
    g->done += g->n;
    g->n = 0;
    g->hold.len = 0;
    if (g->progress)
        fprintf(stderr, "\rmigrate: %llu / %llu events",
                (unsigned long long)g->done, (unsigned long long)g->total);
    return 0;
}

static int
on_event(void *ud, const arb_v1_event_t *e)
{
    mig_t        *g = ud;
    arb_append_t *a = &g->ap[g->n];
    arb_event_t   ev;
    int           rc;

    rc = arb_event_decode(&ev, e->bytes, e->len, &g->why);
    if (rc != 0) {
        arb_buf_printf(&g->why, " (match \"%s\" seq %llu)", e->match_id,
                       (unsigned long long)e->seq);
        return ARB_ECORRUPT;
    }
    memset(a, 0, sizeof(*a));
    a->seq = e->seq;
    a->time_ms = e->time_ms;
    a->len = e->len;
    a->closes = ev.kind == ARB_EV_CLOSE;
    a->after_close = ev.kind == ARB_EV_CLAIM;
    arb_event_clear(&ev);
    g->off[g->n][0] = hold(g, e->match_id, strlen(e->match_id));
    g->off[g->n][1] = e->seq == 0 ? hold(g, e->game, strlen(e->game))
                                  : SIZE_MAX;
    g->off[g->n][2] = hold(g, e->bytes, e->len);
    g->off[g->n][3] = e->client_id != NULL
                      ? hold(g, e->client_id, strlen(e->client_id))
                      : SIZE_MAX;
    g->off[g->n][4] = e->secret != NULL
                      ? hold(g, e->secret, strlen(e->secret)) : SIZE_MAX;
    memcpy(g->want[g->n], e->hash, ARB_HASH_LEN);
    g->wantpos[g->n] = e->pos;
    g->n++;
    return g->n == BATCH ? flush(g) : 0;
}

static int
on_match(void *ud, const arb_match_info_t *old)
{
    mig_t            *g = ud;
    arb_match_info_t  m;
    int               rc;

    if (g->n > 0 && (rc = flush(g)) != 0)
        return rc;
    rc = arb_store_match(g->st, old->match_id, &m, &g->why);
    if (rc == ARB_ENOTFOUND) {
        /* (until 2026-12-07 the exit status of an I/O error) */
        g->why.len = 0;
        arb_buf_printf(&g->why, "match \"%s\": the summary record (last "
                       "seq %llu) has no event in the log",
                       old->match_id, (unsigned long long)old->last_seq);
        return ARB_ECORRUPT;
    }
    if (rc != 0)
        return rc;
    if (m.last_seq != old->last_seq || m.closed != old->closed ||
        memcmp(m.head, old->head, ARB_HASH_LEN) != 0 ||
        strcmp(m.game, old->game) != 0) {
        g->why.len = 0;
        arb_buf_printf(&g->why, "match \"%s\": the summary record (last seq "
                       "%llu%s) disagrees with its events",
                       old->match_id, (unsigned long long)old->last_seq,
                       old->closed ? ", closed" : "");
        return ARB_ECORRUPT;
    }
    g->matches++;
    return 0;
}

static int
path_join(char *out, size_t cap, const char *dir, const char *name)
{
    int n = snprintf(out, cap, "%s/%s", dir, name);

    return n > 0 && (size_t)n < cap ? 0 : -1;
}

static int
move(const char *from_dir, const char *to_dir, const char *name)
{
    char a[4096], b[4096];

    if (path_join(a, sizeof(a), from_dir, name) != 0 ||
        path_join(b, sizeof(b), to_dir, name) != 0)
        return -1;
    if (rename(a, b) != 0 && errno != ENOENT) {
        fprintf(stderr, "arbiter migrate: rename %s to %s: %s\n", a, b,
                strerror(errno));
        return -1;
    }
    return 0;
}

/* 1 when dir/name exists. */
static int
there(const char *dir, const char *name)
{
    char        p[4096];
    struct stat st;

    return path_join(p, sizeof(p), dir, name) == 0 && lstat(p, &st) == 0;
}

/* The new store's files, as they move into DIR. */
static const char *const new_files[] = { "data.mdb", "lock.mdb", "index.mdb",
                                         "index.mdb-lock", "wal.0",
                                         "wal.1" };

/*
 * Moves the verified new store (nd, holding the mark) into dir, the
 * format-1 files into od, and drops the mark; each step is done only
 * when still to do, so a run cut short anywhere (a kill, a power cut) is
 * finished by the next, and until the mark goes every open of dir
 * refuses it, naming this command (until 2026-12-06 eight renames in a
 * row, cut short, left dir looking empty, and a daemon made a new empty
 * store there).  Durable: each directory is synced after its renames.
 * 0, or -1 said on stderr.
 */
static int
switch_stores(const char *dir, const char *nd, const char *od)
{
    static const char *const old_files[] = { "data.mdb", "lock.mdb" };
    char   mark[4096];
    size_t i;

    if (mkdir(od, 0700) != 0 && errno != EEXIST) {
        fprintf(stderr, "arbiter migrate: create %s: %s\n", od,
                strerror(errno));
        return -1;
    }
    /* An old file still in dir while its new one waits in nd is the
     * format-1 one. */
    for (i = 0; i < sizeof(old_files) / sizeof(old_files[0]); i++) {
        if (!there(nd, old_files[i]) || !there(dir, old_files[i]))
            continue;
        if (there(od, old_files[i])) {
            fprintf(stderr, "arbiter migrate: %s/%s and %s/%s are both "
                    "there, and the new one waits in %s: move one of them "
                    "away by hand, then run this again\n", dir,
                    old_files[i], od, old_files[i], nd);
            return -1;
        }
        if (move(dir, od, old_files[i]) != 0)
            return -1;
    }
    if (arb_fsync_path(od) != 0 || arb_fsync_path(dir) != 0)
        goto sync_failed;
    for (i = 0; i < sizeof(new_files) / sizeof(new_files[0]); i++)
        if (there(nd, new_files[i]) && move(nd, dir, new_files[i]) != 0)
            return -1;
    if (arb_fsync_path(dir) != 0)
        goto sync_failed;
    if (path_join(mark, sizeof(mark), dir, ARB_MIGRATE_MARK) != 0
        || (unlink(mark) != 0 && errno != ENOENT)) {
        fprintf(stderr, "arbiter migrate: remove %s: %s\n", mark,
                strerror(errno));
        return -1;
    }
    if (rmdir(nd) != 0 || arb_fsync_path(dir) != 0)
        goto sync_failed;
    return 0;
sync_failed:
    fprintf(stderr, "arbiter migrate: %s: %s (run this again to finish)\n",
            dir, strerror(errno));
    return -1;
}

/* Writes the mark (ARB_MIGRATE_MARK) and makes it durable: from here on
 * the switch is finished, never undone.  0, or -1 said on stderr. */
static int
write_mark(const char *dir, const char *nd)
{
    char  mark[4096];
    FILE *f;
    int   ok;

    if (path_join(mark, sizeof(mark), dir, ARB_MIGRATE_MARK) != 0)
        return -1;
    f = fopen(mark, "w");
    ok = f != NULL
         && fputs("arbiter migrate: this store is verified; it is moving "
                  "into place\n", f) >= 0
         && fflush(f) == 0 && fsync(fileno(f)) == 0;
    if (f != NULL && fclose(f) != 0)
        ok = 0;
    if (!ok || arb_fsync_path(nd) != 0) {
        fprintf(stderr, "arbiter migrate: %s: %s; %s is unchanged\n", mark,
                strerror(errno), dir);
        unlink(mark);
        return -1;
    }
    return 0;
}

static void
rm_new(const char *dir)
{
    static const char *const names[] = { "data.mdb", "lock.mdb",
                                         "index.mdb", "index.mdb-lock",
                                         "wal.0", "wal.1", "verified" };
    char   p[4096];
    size_t i;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (path_join(p, sizeof(p), dir, names[i]) == 0)
            unlink(p);
    rmdir(dir);
}

int
cmd_migrate(int argc, char **argv)
{
    mig_t          *g = NULL;
    arb_store_t    *st2 = NULL;
    arb_buf_t       why = ARB_BUF_INIT;
    const char     *dir = NULL;
    char            nd[4096], od[4096];
    unsigned long   fmt;
    int             rc, quiet = 0, status = CLI_ERROR, moving = 0;
    const cli_optdef_t opts[] = {
        { "--data", CLI_ARG_STR, &dir },
        { "--quiet", CLI_ARG_FLAG, &quiet },
        { NULL, 0, NULL }
    };
    cli_args_t      a = {
        .cmd = "migrate", .usage = usage, .opts = opts, .no_words = 1,
    };

    rc = cli_args_parse(&a, argc, argv);
    if (rc >= 0)
        return rc;
    if (dir == NULL) {
        usage(stderr);
        return CLI_ERROR;
    }
    if (path_join(nd, sizeof(nd), dir, ARB_MIGRATE_NEW) != 0 ||
        path_join(od, sizeof(od), dir, "format1") != 0) {
        fprintf(stderr, "arbiter migrate: %s: path too long\n", dir);
        goto done;
    }
    /* A run cut short while it moved the verified store into place:
     * finished, never started again. */
    if (there(dir, ARB_MIGRATE_MARK)) {
        if (switch_stores(dir, nd, od) != 0)
            goto done;
        printf("%s: migrated to store format %d (an interrupted move "
               "finished); the format-1 files are in %s\n", dir,
               ARB_STORE_FORMAT, od);
        status = CLI_OK;
        goto done;
    }
    rc = arb_store_v1_format(dir, &fmt, &why);
    if (rc != 0) {
        fprintf(stderr, "arbiter migrate: %s\n", arb_buf_cstr(&why));
        goto done;
    }
    if (fmt == ARB_STORE_FORMAT) {
        printf("%s: already store format %d; nothing to do\n", dir,
               ARB_STORE_FORMAT);
        status = CLI_OK;
        goto done;
    }
    if (fmt == 2) {
        /* Format 3 is format 2 with the journal: a writable open adds
         * it, in place, once a read-only open (which adds nothing) has
         * verified every chain, so that a store that does not verify is
         * left as it was (until 2026-12-07 it was upgraded first). */
        arb_store_opts_t ro;

        memset(&ro, 0, sizeof(ro));
        ro.read_only = 1;
        rc = arb_store_open(&st2, dir, &ro, &why);
        if (rc == 0)
            rc = arb_store_verify(st2, NULL, &why);
        arb_store_close(st2);
        st2 = NULL;
        if (rc == 0)
            rc = arb_store_open(&st2, dir, NULL, &why);
        arb_store_close(st2);
        if (rc != 0) {
            fprintf(stderr, "arbiter migrate: %s: %s\n", dir,
                    arb_buf_cstr(&why));
            status = rc == ARB_ECORRUPT ? 1 : 2;
            goto done;
        }
        printf("%s: upgraded in place to store format %d (the journal "
               "added); every chain verified\n", dir, ARB_STORE_FORMAT);
        status = CLI_OK;
        goto done;
    }
    if (fmt != 1) {
        fprintf(stderr, "arbiter migrate: %s: store format %lu cannot be "
                "migrated (this build migrates format 1)\n", dir, fmt);
        goto done;
    }
    rm_new(nd);             /* what an interrupted run left */
    g = calloc(1, sizeof(*g));
    if (g == NULL) {
        fprintf(stderr, "arbiter migrate: out of memory\n");
        goto done;
    }
    g->progress = !quiet && isatty(2);
    ops_quiet = quiet;
    rc = arb_store_open(&g->st, nd, NULL, &g->why);
    if (rc == 0)
        rc = arb_store_v1_read(dir, &g->total, on_event, on_match, g,
                               &g->why);
    if (rc == 0)
        rc = flush(g);
    if (rc == 0)
        rc = arb_store_verify(g->st, NULL, &g->why);
    if (g->progress)
        fputc('\n', stderr);
    if (rc != 0) {
        fprintf(stderr, "arbiter migrate: %s: %s; %s is unchanged\n", dir,
                arb_buf_cstr(&g->why), dir);
        status = rc == ARB_ECORRUPT ? 1 : 2;
        goto done;
    }
    arb_store_close(g->st);
    g->st = NULL;
    /* The new store is checked in full, as a backup's copy is (client
     * ids against their events, kept deal secrets against their
     * commitments), before anything of DIR moves: until 2026-12-06 only
     * its chains were, and a damaged secret or client id passed. */
    {
        arb_check_summary_t sum;

        memset(&sum, 0, sizeof(sum));
        if (ops_check_dir("migrate", nd, stderr, "", &sum) != 0)
            goto done;
        if (sum.problems != 0) {
            fprintf(stderr, "arbiter migrate: %s: the migrated store does "
                    "not check (%llu problem%s, above); %s is "
                    "unchanged\n", dir, (unsigned long long)sum.problems,
                    sum.problems == 1 ? "" : "s", dir);
            status = 1;
            goto done;
        }
    }
    if (write_mark(dir, nd) != 0)
        goto done;
    moving = 1;             /* from here on, keep what is in nd */
    if (switch_stores(dir, nd, od) != 0)
        goto done;
    printf("%s: migrated to store format %d: %llu events in %llu matches, "
           "every chain verified; the format-1 files are in %s\n", dir,
           ARB_STORE_FORMAT, (unsigned long long)g->done,
           (unsigned long long)g->matches, od);
    status = CLI_OK;
done:
    if (g != NULL) {
        arb_store_close(g->st);
        if (status != 0 && !moving)
            rm_new(nd);
        arb_buf_free(&g->hold);
        arb_buf_free(&g->why);
        free(g);
    }
    arb_buf_free(&why);
    return status;
}
