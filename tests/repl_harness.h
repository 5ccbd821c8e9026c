/*
 * repl_harness.h - one nats-server and one replicator over a store, for
 * the unit tests that drive daemon/replicate*.c against a real server
 * (test_repl_shutdown.c, test_repl_forked.c).  Test-only.
 *
 * The test makes `root` (mkdtemp) and sets nats_dir, nats_log (under it)
 * and `store` before nats_start(); nats_port is the server's choice
 * unless set first (ARB_NATS_PORT_BASE); conf is the replicator's
 * (arb_repl_conf_defaults, then urls and recorder).
 */
#ifndef ARB_TEST_REPL_HARNESS_H
#define ARB_TEST_REPL_HARNESS_H

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/ledger/store.h"
#include "daemon/replicate.h"
#include "daemon/replicate_int.h"
#include "proto/stream.h"
#include "tests/nats_server.h"

static arb_store_t *store;
static char         root[] = "/tmp/arb_repl_XXXXXX";

/* ---- the replicator --------------------------------------------------- */

static arb_repl_conf_t conf;
static char            recorder[] = "rec-sd";

static inline arb_repl_t *
repl_start(uint64_t head)
{
    arb_repl_t *r = calloc(1, sizeof(*r));
    arb_buf_t   why = ARB_BUF_INIT;

    if (r == NULL)
        return NULL;
    r->store = store;
    r->conf = &conf;
    pthread_mutex_init(&r->mu, NULL);
    arb_cond_init(&r->cv);
    snprintf(r->cursor_path, sizeof(r->cursor_path), "%s/%s", root,
             ARB_STREAM_CURSOR_FILE);
    r->st.head = head;
    atomic_store(&r->head, head);
    if (arb__repl_thread_start(r, &why) != 0) {
        printf("start: %s\n", arb_buf_cstr(&why));
        arb_buf_free(&why);
        return NULL;
    }
    arb_buf_free(&why);
    arb__repl_wait_verified(r);
    return r;
}

/* As arb_repl_committed. */
static inline void
committed(arb_repl_t *r, uint64_t head)
{
    atomic_store(&r->head, head);
    pthread_mutex_lock(&r->mu);
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

static inline uint64_t
cursor_of(arb_repl_t *r, uint64_t *checks)
{
    uint64_t c;

    pthread_mutex_lock(&r->mu);
    c = r->st.cursor;
    if (checks != NULL)
        *checks = r->st.checks;
    pthread_mutex_unlock(&r->mu);
    return c;
}

/* As arb_repl_free (no loop handles). */
static inline void
repl_free(arb_repl_t *r)
{
    if (!r->abandoned)
        arb__repl_mem_free(r);
}

/* The stream's message count (each event is one message: no deals). */
/* The test's start: root made, nats-server started (on
 * ARB_NATS_PORT_BASE + port_offset when that is set: tests that may run
 * at once take other offsets), the store opened, conf set (no regular
 * passes: check_s 0).  0, or -1 (said on stderr): the test then runs
 * nothing and ends with repl_harness_end. */
static inline int
repl_harness_begin(int port_offset)
{
    arb_buf_t why = ARB_BUF_INIT;
    char      dir[200];
    int       rc = -1;

    if (getenv("ARB_NATS_PORT_BASE") != NULL)
        nats_port = atoi(getenv("ARB_NATS_PORT_BASE")) + port_offset;
    if (mkdtemp(root) == NULL)
        return -1;
    snprintf(nats_dir, sizeof(nats_dir), "%s/nats", root);
    snprintf(nats_log, sizeof(nats_log), "%s/nats.log", root);
    snprintf(dir, sizeof(dir), "%s/store", root);
    mkdir(dir, 0700);
    if (nats_Open(-1) != NATS_OK || nats_start() != 0)
        fprintf(stderr, "nats-server did not start (%s)\n", nats_log);
    else if (arb_store_open(&store, dir, NULL, &why) != 0)
        fprintf(stderr, "store: %s\n", arb_buf_cstr(&why));
    else
        rc = 0;
    arb_repl_conf_defaults(&conf);
    conf.urls = nats_url;
    conf.recorder = recorder;
    conf.check_s = 0;
    arb_buf_free(&why);
    return rc;
}

/* The test's end: the store closed, nats-server stopped, and root removed
 * unless a check failed (kept for a look). */
static inline void
repl_harness_end(int failed)
{
    arb_store_close(store);
    store = NULL;
    nats_kill(SIGTERM);
    nats_Close();
    if (!failed && root[0] != '\0') {
        char cmd[300];

        snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
        if (system(cmd) != 0)
            printf("could not remove %s\n", root);
    }
}

#endif
