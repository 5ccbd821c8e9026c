/*
 * storage.c - storage-nearly-full warnings, before `storage full`.
 *
 * DESIGN: two things fill up, and either stops the recorder: the LMDB map
 * (appends are refused at map_max) and the filesystem under the data
 * directory (the map cannot grow into space that is not there).  Once a
 * second, on the loop, both are measured (arb_store_stats, statvfs) and
 * each crossing of a configured threshold upwards logs one
 * `storage_nearly_full` warning; falling back under the lowest logs
 * `storage_ok`.  A timer rather than a hook in the commit path: the
 * measure costs one short read transaction, and the commit path stays
 * exactly what durability needs.  The handle is unreferenced so it never
 * keeps the loop alive; main() closes it after the loop has stopped.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "daemon/log.h"
#include "daemon/server.h"
#include "daemon/storage.h"

#define STORAGE_CHECK_MS 1000

enum { M_MAP = 0, M_FS, M_COUNT };

typedef struct watch {
    uv_timer_t     timer;
    arb_server_t  *srv;
    size_t         level[M_COUNT];   /* thresholds crossed */
} watch_t;

static watch_t *the_watch;

size_t
arb_storage_level(unsigned pct, const unsigned *thr, size_t n)
{
    size_t i;

    for (i = 0; i < n && pct >= thr[i]; i++)
        ;
    return i;
}

static void
judge(watch_t *w, int which, uint64_t used, uint64_t total)
{
    const arb_config_t *cfg = &w->srv->cfg;
    static const char *const what[M_COUNT] = { "LMDB map", "filesystem" };
    unsigned            pct;
    size_t              lvl, i;

    if (total == 0)
        return;
    pct = (unsigned)(used >= total ? 100 : used * 100 / total);
    lvl = arb_storage_level(pct, cfg->storage_warn, cfg->nstorage_warn);
    /* A map at map_max refuses appends; so does a file system with less
     * than storage_reserve free (commit.c), before LMDB's own writes could
     * fill it and fail a commit (a fail-stop). */
    for (i = w->level[which]; i < lvl; i++)
        arb_log_ev(ARB_LOG_WARN, "storage_nearly_full", NULL,
                   "%s of %s %u%% used (%llu of %llu bytes): past the %u%% "
                   "warning; when full, %s",
                   what[which], cfg->data, pct, (unsigned long long)used,
                   (unsigned long long)total, cfg->storage_warn[i],
                   which == 0 ? "appends are refused (storage full)"
                              : "appends are refused when less than "
                                "storage_reserve is free (storage full)");
    if (lvl == 0 && w->level[which] > 0)
        arb_log_ev(ARB_LOG_INFO, "storage_ok", NULL, "%s of %s %u%% used: "
                   "under the %u%% warning again", what[which], cfg->data,
                   pct, cfg->storage_warn[0]);
    w->level[which] = lvl;
}

static void
on_timer(uv_timer_t *t)
{
    watch_t          *w = t->data;
    arb_store_stats_t st;
    struct statvfs    fs;
    arb_buf_t         why = ARB_BUF_INIT;

    /* The derived index failing a write is a failed write: fail-stop,
     * also when no commit follows to notice it (commit.c does then). */
    if (arb_store_index_failed(w->srv->store, &why)
        && !w->srv->committing) {
        arb_log(ARB_LOG_ERROR, "%s: stopping (fail-stop)",
                arb_buf_cstr(&why));
        arb_buf_free(&why);
        w->srv->exit_code = ARB_EXIT_FAILSTOP;
        uv_stop(w->srv->loop);
        return;
    }
    arb_buf_free(&why);
    if (arb_store_stats(w->srv->store, &st, NULL) == 0)
        judge(w, M_MAP, st.map_used, st.map_max);
    if (statvfs(w->srv->cfg.data, &fs) == 0 && fs.f_blocks > 0) {
        /* as df counts: what the unprivileged may still use */
        uint64_t used = (uint64_t)(fs.f_blocks - fs.f_bfree) * fs.f_frsize;
        uint64_t avail = (uint64_t)fs.f_bavail * fs.f_frsize;
        judge(w, M_FS, used, used + avail);
    }
}

int
arb_storage_watch_start(arb_server_t *srv)
{
    watch_t *w;

    /* Runs even with no thresholds: it also watches the index writer. */
    if (the_watch != NULL)
        return 0;
    w = calloc(1, sizeof(*w));
    if (w == NULL)
        return -1;
    w->srv = srv;
    uv_timer_init(srv->loop, &w->timer);
    w->timer.data = w;
    uv_timer_start(&w->timer, on_timer, 0, STORAGE_CHECK_MS);
    uv_unref((uv_handle_t *)&w->timer);
    the_watch = w;
    return 0;
}

static void
on_closed(uv_handle_t *h)
{
    free(h->data);
}

void
arb_storage_watch_stop(void)
{
    if (the_watch == NULL)
        return;
    uv_close((uv_handle_t *)&the_watch->timer, on_closed);
    the_watch = NULL;
}
