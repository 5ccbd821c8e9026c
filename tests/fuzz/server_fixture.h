/*
 * server_fixture.h - what the harnesses that run the daemon in-process
 * share (fuzz_dispatch.c, fuzz_http_write.c): a private work directory, a
 * signing key and a tokens file made once, one loop, a store reopened
 * fresh every RESET_EVERY inputs, a tag naming each input so that one
 * input never finds another's matches, and a commit worker that runs on
 * the loop thread.
 *
 * The commit worker: this file's uv_queue_work (it replaces libuv's in
 * the program that includes it) runs the job's work at once or at the
 * loop's next turn, as the input says (worker_early), and its after-work
 * at the loop's next turn.  A job handed to a thread cost two thread
 * switches per commit, milliseconds each on a busy machine, and made
 * every run's interleaving different; here each input replays exactly,
 * and both schedules a real worker meets are chosen by the input: a
 * worker that starts at once commits a batch before the requests
 * pipelined behind it arrive, so it syncs the batch itself; one that
 * starts late finds them queued and leaves the sync to the next commit's
 * flush.
 *
 * The tokens: none, a reader, a scorer limited to matches "M1" and "T1"
 * (with this input's tag: "M1+<tag>"), an arbiter.  Include once per
 * program: everything here is static.
 */
#ifndef ARB_TESTS_FUZZ_SERVER_FIXTURE_H
#define ARB_TESTS_FUZZ_SERVER_FIXTURE_H

#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "core/keys.h"
#include "core/ledger/store.h"
#include "daemon/config.h"
#include "daemon/log.h"
#include "daemon/server.h"
#include "tests/crash/disk.h"
#include "tests/fuzz/fuzz.h"

static const char *const secrets[] = {
    NULL, "fuzz-reader-0123456789", "fuzz-scorer-0123456789",
    "fuzz-arbiter-0123456789",
};

/* Inputs per store; tags are two base-36 digits, so at most 1296. */
#define RESET_EVERY 256
/* The longest match id that takes the tag and stays a valid name. */
#define TAGGED_ID_MAX (ARB_STORE_ID_MAX - 3)
/* Matches of one input whose chains are verified after it. */
#define TOUCHED_MAX 8

static char         dir[256];
static arb_keypair_t signing;       /* loaded once */
static uv_idle_t    worker;         /* runs the queued job */
static uv_work_t   *job;            /* the one queued, or NULL */
static int          job_worked;     /* its work is done */
static int          worker_early;   /* this input's: work at once */
static char         storedir[300];
static uv_loop_t    loop;
static arb_store_t *store;          /* open across inputs */
static unsigned     inputs;         /* since the store was opened */
static char         tag[3];         /* this input's: two base-36 digits */
static char        *scorer_matches[2];  /* the scorer token's, tagged */
static char         touched[TOUCHED_MAX][ARB_STORE_ID_MAX + 1];
static size_t       ntouched;

/* The loop's turn of the worker: the job's work, then its after-work. */
static void
worker_cb(uv_idle_t *h)
{
    uv_work_t *w = job;

    uv_idle_stop(h);
    job = NULL;
    if (!job_worked)
        w->work_cb(w);
    w->after_work_cb(w, 0);
}

/* Replaces libuv's for this program (see DESIGN).  The commit module
 * keeps one job in flight at a time: a second one is a bug. */
int
uv_queue_work(uv_loop_t *l, uv_work_t *req, uv_work_cb work_cb,
              uv_after_work_cb after_work_cb)
{
    FUZZ_CHECK(job == NULL && work_cb != NULL && after_work_cb != NULL);
    req->loop = l;
    req->work_cb = work_cb;
    req->after_work_cb = after_work_cb;
    job = req;
    job_worked = worker_early;
    if (job_worked)
        work_cb(req);
    return uv_idle_start(&worker, worker_cb);
}

static void
count_handle(uv_handle_t *h, void *arg)
{
    *(size_t *)arg += h != (uv_handle_t *)&worker;
}

/* Verifies every chain of the store and closes it. */
static void
close_store(void)
{
    arb_buf_t why = ARB_BUF_INIT;
    int       rc;

    if (store == NULL)
        return;
    rc = arb_store_verify(store, NULL, &why);
    if (rc != 0)
        fprintf(stderr, "store: %s\n", arb_buf_cstr(&why));
    FUZZ_CHECK(rc == 0);
    arb_store_close(store);
    store = NULL;
    arb_buf_free(&why);
}

static void
cleanup(void)
{
    close_store();
    disk_rm_rf(dir);
}

/* Once per process: the directory, the signing key, the tokens, the loop;
 * a fresh store every RESET_EVERY inputs; this input's tag. */
static void
setup(arb_config_t *cfg)
{
    static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    static int   ready;
    static arb_config_t base;
    arb_store_opts_t so;
    arb_buf_t    why = ARB_BUF_INIT;
    char         p[320];
    FILE        *f;
    size_t       i;

    if (!ready) {
        arb_log_level = -1;
        /* Also removes what crashed or killed runs left behind. */
        FUZZ_CHECK(disk_scratch_make(dir, sizeof(dir), "fuzz") == 0);
        atexit(cleanup);
        snprintf(storedir, sizeof(storedir), "%s/store", dir);
        snprintf(p, sizeof(p), "%s/tokens", dir);
        f = fopen(p, "w");
        FUZZ_CHECK(f != NULL);
        /* "+00" stands for the tag: each input writes its own there. */
        fprintf(f, "token = %s reader press\n"
                   "token = %s scorer table-1 M1+00 T1+00\n"
                   "token = %s arbiter chief\n",
                secrets[1], secrets[2], secrets[3]);
        FUZZ_CHECK(fclose(f) == 0);
        arb_config_defaults(&base);
        FUZZ_CHECK(arb_config_load_tokens(&base, p, 0, &why) == 0);
        for (i = 0; i < base.ntokens; i++)
            if (base.tokens[i].nmatches == 2) {
                scorer_matches[0] = base.tokens[i].matches[0];
                scorer_matches[1] = base.tokens[i].matches[1];
            }
        FUZZ_CHECK(scorer_matches[0] != NULL);
        FUZZ_CHECK(uv_loop_init(&loop) == 0);
        FUZZ_CHECK(uv_idle_init(&loop, &worker) == 0);
        FUZZ_CHECK(arb_keys_create(dir, NULL, &why) == 0);
        FUZZ_CHECK(arb_keys_load(&signing, dir, &why) == 0);
        ready = 1;
    }
    if (store == NULL || inputs == RESET_EVERY) {
        close_store();
        disk_rm_rf(storedir);
        memset(&so, 0, sizeof(so));
        so.map_size = 4u << 20;
        so.map_max = 64u << 20;
        FUZZ_CHECK(arb_store_open(&store, storedir, &so, &why) == 0);
        inputs = 0;
    }
    tag[0] = digits[inputs / 36];
    tag[1] = digits[inputs % 36];
    inputs++;
    for (i = 0; i < 2; i++)
        memcpy(scorer_matches[i] + 3, tag, 2);
    ntouched = 0;
    arb_buf_free(&why);
    *cfg = base;
}

/* A fresh server state for this input (srv cleared, then its config, data
 * directory, signing key, loop and store set): setup(), then the rest. */
static void
setup_server(arb_server_t *srv)
{
    memset(srv, 0, sizeof(*srv));
    setup(&srv->cfg);
    srv->cfg.data = dir;
    srv->signing = signing;
    srv->have_key = 1;
    srv->loop = &loop;
    srv->store = store;
}

/* Notes match id for the verification after the input (once; at most
 * TOUCHED_MAX of them). */
static void
note_touched(const char *id)
{
    size_t i;

    if (!arb_name_valid(id))
        return;
    for (i = 0; i < ntouched; i++)
        if (strcmp(touched[i], id) == 0)
            return;
    if (ntouched < TOUCHED_MAX)
        snprintf(touched[ntouched++], sizeof(touched[0]), "%s", id);
}

/* Verifies the chain of every match this input touched. */
static void
verify_touched(void)
{
    arb_buf_t why = ARB_BUF_INIT;
    size_t    i;
    int       rc;

    for (i = 0; i < ntouched; i++) {
        rc = arb_store_verify(store, touched[i], &why);
        if (rc != 0 && rc != ARB_ENOTFOUND)
            fprintf(stderr, "store: %s\n", arb_buf_cstr(&why));
        FUZZ_CHECK(rc == 0 || rc == ARB_ENOTFOUND);
    }
    arb_buf_free(&why);
}

#endif
