/*
 * store_pages.c - the store's two LMDB files walked page by page before
 * a check lets LMDB read them (store.h, arb_store_check_pages).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/ledger/lmdb_layout.h"
#include "core/ledger/store_int.h"

#define PROBLEMS_MAX 100        /* per file: a wrecked file is not listed
                                   page by page */

typedef struct pages_ctx {
    void   (*problem)(void *ud, const char *msg);
    void   (*progress)(void *ud, uint64_t done, uint64_t total);
    void    *ud;
    uint64_t before;            /* pages of the files walked before */
} pages_ctx_t;

static void
problem_cb(void *ud, const char *msg)
{
    pages_ctx_t *c = ud;

    c->problem(c->ud, msg);
}

static void
progress_cb(void *ud, uint64_t done, uint64_t total)
{
    pages_ctx_t *c = ud;

    c->progress(c->ud, c->before + done, c->before + total);
}

int
arb_store_check_pages(const char *dir,
                      void (*problem)(void *ud, const char *msg),
                      void (*progress)(void *ud, uint64_t done,
                                       uint64_t total),
                      void *ud, arb_store_pages_t *out, arb_buf_t *why)
{
    arb_store_opts_t o;
    arb__lm_report_t r;
    arb__lm_walk_t   lw;
    pages_ctx_t      c;
    char            *path;
    size_t           n;
    int              rc;

    memset(out, 0, sizeof(*out));
    if (dir == NULL || *dir == '\0') {
        arb__why(why, "no store directory given");
        return ARB_EINVAL;
    }
    if ((rc = arb__store_there(dir, why)) != 0)
        return rc;
    memset(&o, 0, sizeof(o));
    o.read_only = 1;
    if ((rc = arb__ro_recover(dir, &o, why)) != 0)
        return rc;
    n = strlen(dir) + sizeof("/index.mdb");
    if ((path = malloc(n)) == NULL) {
        arb__why(why, "out of memory");
        return ARB_ENOMEM;
    }
    c.problem = problem;
    c.progress = progress;
    c.ud = ud;
    c.before = 0;
    r.problem = problem != NULL ? problem_cb : NULL;
    r.progress = progress != NULL ? progress_cb : NULL;
    r.ud = &c;
    r.max = PROBLEMS_MAX;
    snprintf(path, n, "%s/data.mdb", dir);
    rc = arb__lm_walk(dir, 0, path, &r, &lw, why);
    out->log_damaged = lw.problems != 0;
    out->log_pages = lw.pages;
    out->problems = lw.problems;
    if (rc != 0 || out->log_damaged)
        goto done;
    c.before = lw.pages;
    snprintf(path, n, "%s/index.mdb", dir);
    rc = arb__lm_walk(path, 1, path, &r, &lw, why);
    if (rc == ARB_ENOTFOUND) {          /* rebuilt when next opened */
        rc = 0;
        goto done;
    }
    out->index_damaged = lw.problems != 0;
    out->index_pages = lw.pages;
    out->problems += lw.problems;
done:
    free(path);
    return rc;
}
