/*
 * replicate_lister.c - the listing of every event subject's count, taken
 * on a thread of its own while the replication thread goes on publishing.
 *
 * DESIGN: a pass judges most matches by their subject's count, from one
 * listing of every subject (replicate_check.c).  The server answers it
 * page by page, 100,000 subjects a page, and one page costs it about
 * 1.7 s here: a page cannot be made shorter.  Until 2026-12-04 the pass
 * listed on the replication thread, at its start and before its second
 * look, so publishing stopped that long on a large stream: every sync ack
 * waited for it, and async lag grew by it.  Now a thread of its own asks
 * (libnats's connection may be used by several threads) and the
 * replication thread goes on publishing.  The listing is as sound taken
 * late as the pass's slices are (replicate_pass.c): a match published
 * since the pass began is busy, looked at again in the last round with
 * fresh counts; any other match's subject has not moved since, so its
 * count is the same whenever the server read it.
 *
 * One thread per listing, made when the listing is asked for and joined
 * when its result is taken or the pass dropped: a pass lists at most
 * twice per check interval, so a pool would save nothing worth its code.
 * The replication thread waits for its work with a timeout; a listing
 * done wakes it (r->kick).
 */
#include <string.h>

#include "core/err.h"
#include "daemon/replicate_int.h"

static void *
lister_main(void *arg)
{
    arb_repl_lister_t *l = arg;
    arb_repl_t        *r = l->r;

    l->rc = arb__repl_counts_list(r, &l->counts, &l->cancel, &l->why);
    atomic_store(&l->state, ARB_LISTER_DONE);
    pthread_mutex_lock(&r->mu);
    r->kick = 1;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

int
arb__repl_lister_start(arb_repl_t *r, arb_repl_lister_t *l, arb_buf_t *why)
{
    l->r = r;
    l->rc = 0;
    l->why.len = 0;
    atomic_store(&l->cancel, 0);
    atomic_store(&l->state, ARB_LISTER_RUNNING);
    if (pthread_create(&l->th, NULL, lister_main, l) != 0) {
        atomic_store(&l->state, ARB_LISTER_IDLE);
        if (why != NULL) {
            why->len = 0;
            arb_buf_puts(why, "no thread for listing the stream's "
                         "subjects");
        }
        return ARB_ENOMEM;
    }
    return 0;
}

int
arb__repl_lister_busy(const arb_repl_lister_t *l)
{
    return atomic_load(&l->state) == ARB_LISTER_RUNNING;
}

int
arb__repl_lister_take(arb_repl_lister_t *l, arb_repl_counts_t *c,
                      arb_buf_t *why)
{
    int rc;

    if (atomic_load(&l->state) != ARB_LISTER_DONE)
        return 1;   /* (not ARB_EAGAIN: a timed-out listing's error) */
    pthread_join(l->th, NULL);
    rc = l->rc;
    arb__repl_counts_free(c);
    *c = l->counts;                     /* moved */
    memset(&l->counts, 0, sizeof(l->counts));
    if (rc != 0 && why != NULL) {
        const char *w = arb_buf_cstr(&l->why);

        why->len = 0;
        arb_buf_puts(why, w != NULL ? w : "");
    }
    arb_buf_free(&l->why);
    atomic_store(&l->state, ARB_LISTER_IDLE);
    return rc;
}

void
arb__repl_lister_cancel(arb_repl_lister_t *l)
{
    if (l == NULL || atomic_load(&l->state) == ARB_LISTER_IDLE)
        return;
    /* The request under way ends by its timeout at worst; the pages
     * after it are not asked for. */
    atomic_store(&l->cancel, 1);
    pthread_join(l->th, NULL);
    arb__repl_counts_free(&l->counts);
    arb_buf_free(&l->why);
    atomic_store(&l->state, ARB_LISTER_IDLE);
}
