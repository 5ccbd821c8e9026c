/*
 * test_nomem.c - the dispatcher under memory pressure (SQLite's malloc
 * failure loop, tests/nomem/failalloc.h): for every request of a script
 * that uses every op, and for n = 1, 2, 3, ... until the request makes
 * fewer than n allocations, the nth allocation made while it is handled
 * fails.  Then:
 *   - the request gets exactly one response (an error or, when the failed
 *     allocation had a fallback, its result): a client never hangs; a
 *     connection the daemon ends after an error still gets that error;
 *   - the store's chains verify, and the matches in memory agree with the
 *     store (a refused append left nothing behind);
 *   - a scorer whose match list cannot be copied at auth is refused and
 *     the connection ends: never authenticated with an empty list, which
 *     would mean "every match"; nor does reading the tokens file under
 *     the same failures ever yield a shortened list.
 * The scripts are the dispatcher's fuzz seeds made as the arbiter: every
 * op on a YAHchain match, a Chắn match dealt from a seed, and YAHchain and
 * Chains matches with rulings.  And a reader's `events` of a running
 * Tsukurutenten match, each event re-encoded without its hidden chip:
 * a page is whole or refused, and what a page given up on had built is
 * freed (make asan says so).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/codec.h"
#include "core/err.h"
#include "core/mp.h"
#include "core/keys.h"
#include "core/ledger/store.h"
#include "daemon/config.h"
#include "daemon/log.h"
#include "daemon/server.h"
#include "proto/frame.h"
#include "tests/crash/disk.h"
#include "tests/dispatch_harness.h"
#include "tests/nomem/failalloc.h"
#include "tests/test.h"
#include "tools/net.h"

#define SCRIPTS "tests/fuzz/corpus/dispatch/"
#define FRAMES_MAX 64

static const char *const scripts[] = {
    "arbiter_yahchain_every_op", "arbiter_chan_seed_deal",
    "arbiter_pipelined_two_matches", "arbiter_state_text_seqs",
};

static const char arbiter[] = "nomem-arbiter-0123456789";
static const char scorer[]  = "nomem-scorer-0123456789";

static char         dir[256], storedir[300];
static arb_config_t base;
static uv_loop_t    loop;
static char        *script;
static const char  *frame[FRAMES_MAX];
static size_t       flen[FRAMES_MAX], nframes;

/* A script's frames: byte 0 is the fuzz harness's mode, then frames. */
static int
load_script(const char *name)
{
    FILE  *f;
    long   n;
    size_t off = 1, len;
    char   path[160];

    snprintf(path, sizeof(path), SCRIPTS "%s", name);
    f = fopen(path, "rb");
    nframes = 0;
    free(script);
    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) <= 0)
        return -1;
    rewind(f);
    script = malloc((size_t)n);
    if (script == NULL || fread(script, 1, (size_t)n, f) != (size_t)n)
        return -1;
    fclose(f);
    while (off + 4 <= (size_t)n && nframes < FRAMES_MAX) {
        len = (size_t)(unsigned char)script[off] << 24
              | (size_t)(unsigned char)script[off + 1] << 16
              | (size_t)(unsigned char)script[off + 2] << 8
              | (size_t)(unsigned char)script[off + 3];
        if (len > (size_t)n - off - 4)
            return -1;
        frame[nframes] = script + off + 4;
        flen[nframes++] = len;
        off += 4 + len;
    }
    return off == (size_t)n ? 0 : -1;
}

static int
setup(void)
{
    char tokens[160];

    snprintf(tokens, sizeof(tokens), "token = %s arbiter chief\n"
             "token = %s scorer table-1 M1 T1\n", arbiter, scorer);
    /* Hundreds of stores are opened and synced: in memory when we can. */
    if (dh_setup(dir, sizeof(dir), "nomem", tokens, &base, &loop) != 0)
        return -1;
    snprintf(storedir, sizeof(storedir), "%s/store", dir);
    return 0;
}

static void
server_start(arb_server_t *srv)
{
    FUZZ_CHECK(dh_server_start(srv, &base, dir, storedir, &loop,
                               4u << 20) == 0);
}

/* Stops the server as a restart would: frees it, then opens its store
 * again and verifies every chain.  0 when they verify. */
static int
server_stop(arb_server_t *srv)
{
    arb_store_opts_t so;
    arb_buf_t        why = ARB_BUF_INIT;
    int              rc;

    arb_live_free_all(srv);
    arb_store_close(srv->store);
    arb_commit_free(srv);
    arb_checkpoint_clear(srv);
    memset(&so, 0, sizeof(so));
    so.map_size = so.map_max = 4u << 20;
    rc = arb_store_open(&srv->store, storedir, &so, &why);
    if (rc == 0)
        rc = arb_store_verify(srv->store, NULL, &why);
    if (rc != 0)
        fprintf(stderr, "store: %s\n", arb_buf_cstr(&why));
    arb_store_close(srv->store);
    arb_buf_free(&why);
    return rc;
}

/* A client never hangs: the last request has its one response, or the
 * daemon has ended the connection (the response could not be built, or
 * the error ends the connection) after answering all the others. */
static int
answered(const dh_conn_t *d)
{
    return d->answers == d->requests
           || (dh_ended(d) && d->answers + 1 == d->requests);
}

/* A scorer limited to M1 and T1, with the nth allocation of its auth
 * failed: refused and disconnected, or authenticated with both matches;
 * never with fewer. */
static void
test_scorer_list(void)
{
    arb_server_t srv;
    dh_conn_t    d;
    long         n;
    int          hit, refused = 0;

    for (n = 1; n < 1000; n++) {
        server_start(&srv);
        dh_conn_open(&d, &srv);
        arb_failalloc_arm(n);
        dh_auth(&d, scorer);
        dh_settle(&d);
        hit = arb_failalloc_disarm();
        if (!answered(&d))
            fprintf(stderr, "auth, allocation %ld: %zu responses\n", n,
                    d.answers);
        CHECK(answered(&d));
        if (d.c->authed) {
            CHECK_INT(d.c->role, ARB_ROLE_SCORER);
            CHECK_INT(d.c->nmatches, 2);
            CHECK_STR(d.code, "");
        } else {
            /* Refused: with "internal", or, when even that answer could
             * not be built, by the end of the connection. */
            refused++;
            CHECK(dh_ended(&d));
            CHECK(d.answers == 0 || strcmp(d.code, "internal") == 0);
        }
        dh_conn_close(&d);
        CHECK_INT(server_stop(&srv), 0);
        if (!hit)
            break;
    }
    CHECK(n < 1000);
    /* The list is copied one string at a time: each copy can fail. */
    CHECK(refused >= 3);
}

/* The tokens file read again with its nth allocation failed (SIGHUP):
 * refused with the tokens loaded before left whole, or every new token
 * whole; never a scorer whose match list lost entries (an empty list
 * means every match). */
static void
test_tokens_load(void)
{
    arb_config_t c;
    arb_buf_t    why = ARB_BUF_INIT;
    char         p[320];
    long         n;
    size_t       i;
    int          rc, hit, refused = 0;

    snprintf(p, sizeof(p), "%s/tokens", dir);
    for (n = 1; n < 1000; n++) {
        /* A reload over the tokens already loaded, as SIGHUP does: a
         * refused one leaves them as they were. */
        arb_config_defaults(&c);
        CHECK_INT(arb_config_load_tokens(&c, p, 0, &why), 0);
        arb_failalloc_arm(n);
        rc = arb_config_load_tokens(&c, p, 0, &why);
        hit = arb_failalloc_disarm();
        refused += rc != 0;
        CHECK_INT(c.ntokens, 2);
        for (i = 0; i < c.ntokens; i++)
            if (c.tokens[i].role == ARB_ROLE_SCORER)
                CHECK_INT(c.tokens[i].nmatches, 2);
        arb_config_free(&c);
        arb_buf_free(&why);
        if (!hit)
            break;
    }
    CHECK(n < 1000);
    CHECK(refused > 0);
}

/* The configuration read under the same failures: refused, or every
 * string key whole (until 2026-12-08 a failed copy of data, listen or
 * tokens_file loaded as if the line were not there: the default data
 * directory, a listener of NULL). */
static void
test_config_load(void)
{
    arb_config_t c;
    arb_buf_t    why = ARB_BUF_INIT;
    char         p[320];
    FILE        *f;
    long         n;
    int          rc, hit, refused = 0, whole = 1;

    snprintf(p, sizeof(p), "%s/arbiterd.conf", dir);
    f = fopen(p, "w");
    CHECK(f != NULL);
    if (f == NULL)
        return;
    fprintf(f, "data = /srv/arbiter\nlisten = unix:/run/a.sock\n"
               "listen = tcp:127.0.0.1:7420\ntokens_file = /etc/tok\n"
               "token = %s arbiter chief\n[http]\n"
               "listen = tcp:127.0.0.1:8080\n", arbiter);
    CHECK(fclose(f) == 0);
    for (n = 1; n < 1000; n++) {
        arb_config_defaults(&c);
        arb_failalloc_arm(n);
        rc = arb_config_load(&c, p, &why);
        hit = arb_failalloc_disarm();
        refused += rc != 0;
        if (rc == 0)
            whole &= c.data != NULL && !strcmp(c.data, "/srv/arbiter")
                     && c.nlisten == 2 && c.listen[0] != NULL
                     && c.listen[1] != NULL && c.tokens_file != NULL
                     && c.ntokens == 1 && c.http.listen != NULL;
        arb_config_free(&c);
        arb_buf_free(&why);
        if (!hit)
            break;
    }
    CHECK(n < 1000);
    CHECK(refused > 0);
    CHECK(whole);
}

/* A frame that cannot be appended whole leaves the buffer as it was (a
 * sender never queues a header without its body), and a reader that
 * cannot hold a split frame fails and stays failed. */
static void
test_frames(void)
{
    static char        body[5000];
    arb_buf_t          b = ARB_BUF_INIT;
    arb_frame_reader_t r;
    const char        *f;
    size_t             n;

    arb_buf_puts(&b, "keep");
    arb_failalloc_arm(1);
    CHECK_INT(arb_frame_encode(&b, body, sizeof(body)), ARB_ENOMEM);
    CHECK_INT(arb_failalloc_disarm(), 1);
    CHECK_INT(b.len, 4);
    CHECK(memcmp(b.data, "keep", 4) == 0);
    arb_buf_free(&b);

    CHECK_INT(arb_frame_reader_init(&r, 65536), 0);
    CHECK_INT(arb_frame_reader_feed(&r, "\x00\x00\x00\x0a" "abc", 7), 0);
    arb_failalloc_arm(1);
    CHECK_INT(arb_frame_reader_next(&r, &f, &n), ARB_ENOMEM);
    CHECK_INT(arb_failalloc_disarm(), 1);
    CHECK_INT(arb_frame_reader_feed(&r, "defghij", 7), ARB_ENOMEM);
    CHECK_INT(arb_frame_reader_next(&r, &f, &n), ARB_ENOMEM);
    CHECK_INT(arb_frame_reader_partial(&r), 0);
    arb_frame_reader_free(&r);
}

/* Every request of a script with its nth allocation failed. */
static void
test_script(const char *name)
{
    arb_server_t srv;
    dh_conn_t    d;
    size_t       k, i, injected = 0, failstops = 0;

    if (load_script(name) != 0) {
        fprintf(stderr, "%s%s: cannot read it\n", SCRIPTS, name);
        CHECK(0);
        return;
    }
    long         n;
    int          hit;
    char         codes[64][32];
    size_t       ncodes;

    for (k = 0; k < nframes; k++) {
        ncodes = 0;
        for (n = 1; n < 5000; n++) {
            server_start(&srv);
            dh_conn_open(&d, &srv);
            dh_auth(&d, arbiter);
            dh_settle(&d);
            for (i = 0; i < k; i++) {
                dh_send(&d, frame[i], flen[i]);
                dh_settle(&d);
            }
            arb_failalloc_arm(n);
            dh_send(&d, frame[k], flen[k]);
            dh_settle(&d);
            hit = arb_failalloc_disarm();
            injected += hit;
            /* A store that cannot publish what it committed stops the
             * daemon (the process exits: the client sees EOF). */
            failstops += srv.exit_code == ARB_EXIT_FAILSTOP;
            if (srv.exit_code == 0 && !answered(&d))
                fprintf(stderr, "%s: request %zu, allocation %ld: %zu "
                        "responses to %zu requests%s\n", name, k + 1, n,
                        d.answers, d.requests,
                        dh_ended(&d) ? ", connection ended" : "");
            CHECK(srv.exit_code != 0 || answered(&d));
            CHECK(srv.exit_code == 0 || srv.exit_code == ARB_EXIT_FAILSTOP);
            /* The code each failure got, when it was answered (an
             * answer the daemon ended the connection after is "internal"
             * too, or none). */
            if (hit && srv.exit_code == 0 && d.answers == d.requests
                && ncodes < sizeof(codes) / sizeof(codes[0]))
                snprintf(codes[ncodes++], sizeof(codes[0]), "%s", d.code);
            /* The last run failed nothing: its answer is the request's
             * own.  A failed allocation adds "internal" to it, never
             * another refusal (until 2026-12-08 a claim was "invalid",
             * and a retry by cid was told its cid named another event,
             * "idempotency"). */
            if (!hit && srv.exit_code == 0) {
                size_t j;

                for (j = 0; j < ncodes; j++) {
                    if (strcmp(codes[j], d.code) == 0
                        || strcmp(codes[j], "internal") == 0)
                        continue;
                    fprintf(stderr, "%s: request %zu: \"%s\" under a "
                            "failed allocation, \"%s\" without\n", name,
                            k + 1, codes[j], d.code);
                    CHECK(0);
                }
            }
            dh_conn_close(&d);
            CHECK_INT(server_stop(&srv), 0);
            if (!hit)
                break;
        }
        CHECK(n < 5000);
    }
    CHECK(injected > nframes);
    printf("%s: %zu allocation failures injected, %zu fail-stops\n", name,
           injected, failstops);
}

/* An event printed by the tools (cli_event_format, text and JSON) with
 * its nth allocation failed: printed whole, or refused as out of memory
 * with the seq named (the reason was left empty). */
static void
test_event_format(void)
{
    arb_event_t      ev;
    arb_buf_t        bytes = ARB_BUF_INIT, item = ARB_BUF_INIT;
    arb_buf_t        out = ARB_BUF_INIT, why = ARB_BUF_INIT;
    msgpack_packer   pk;
    msgpack_unpacked res;
    long             n;
    int              json, rc, hit, failed = 0;

    memset(&ev, 0, sizeof(ev));
    ev.kind = ARB_EV_NOTE;
    ev.seq = 3;
    ev.actor = (char *)"scorer";
    ev.text = (char *)"a note";
    CHECK_INT(arb_event_encode(&bytes, &ev), 0);
    arb_mp_packer_init(&pk, &item);
    msgpack_pack_map(&pk, 3);
    arb_mp_pack_kv_uint(&pk, "seq", 3);
    arb_mp_pack_kv_int(&pk, "time", 1700000000000);
    arb_mp_pack_kv_bin(&pk, "event", bytes.data, bytes.len);
    msgpack_unpacked_init(&res);
    CHECK_INT(arb_mp_parse(&res, item.data, item.len, NULL), 0);
    for (json = 0; json < 2; json++)
        for (n = 1; n < 1000; n++) {
            out.len = 0;
            out.oom = 0;
            arb_buf_free(&why);
            arb_failalloc_arm(n);
            rc = cli_event_format(&out, &res.data, "M1", json, &why);
            hit = arb_failalloc_disarm();
            CHECK(rc == 0 || rc == ARB_ENOMEM);
            /* whole: ends with the line's text (it was left out) */
            CHECK(rc != 0 || (out.len > 8 && memcmp(out.data + out.len
                                                    - (json ? 2 : 7),
                                                    json ? "}\n"
                                                         : "a note\n",
                                                    json ? 2 : 7) == 0));
            if (rc != 0) {
                failed++;
                CHECK_STR(arb_buf_cstr(&why), "seq 3: out of memory");
            }
            if (!hit)
                break;
        }
    CHECK(failed >= 2);
    msgpack_unpacked_destroy(&res);
    arb_buf_free(&bytes);
    arb_buf_free(&item);
    arb_buf_free(&out);
    arb_buf_free(&why);
}

/* A reader's `events` of a running Tsukurutenten match, its draw's chip
 * withheld (the event re-encoded for the reader), with the nth
 * allocation failed: one response each time, and nothing kept (a page
 * given up on freed the re-encoded event's buffer; the sanitizer build,
 * make asan, finds what is not). */
static void
test_reader_view(void)
{
    static const char *const players[] = { "ann", "bob" };
    static const char *const cards[] = {
        "B1B2B3R4R5R6R1", "B7B7B7R7R7R7P8", "B2B1B1B1B2B2B3",
        "B3B3B4B4B4B4B5", "B5B5B5B6B6B6B6", "B7R0R1R1R1R2R2",
        "R2R2R3R3R3R3R4", "R4R4R5R5R5R6R6", "R6R7P5P6P7R3B2",
        "B6B6R6R6P7R1R2", "B1B1B1B5R7B7R7", "B1B2B2B2B3B3B3",
        "B3B4B4B4B4B5B5", "B5B6B6B7B7B7R0", "R1R1R1R2R2R2R3",
        "R3R3R4R4R4R4R5", "R5R5R5R6R6R7R7", "P5P6P8",
    };
    static const char *const args[] = { "B2" };
    arb_server_t   srv;
    dh_conn_t      d;
    arb_buf_t      b = ARB_BUF_INIT;
    msgpack_packer pk;
    long           n;
    int            hit, injected = 0;

    server_start(&srv);
    dh_conn_open(&d, &srv);
    dh_auth(&d, arbiter);
    dh_settle(&d);
    dh_req_begin(&b, &pk, 2, "open", 5);
    arb_mp_pack_kv_str(&pk, "match", "TT1");
    arb_mp_pack_kv_str(&pk, "game", "tsukurutenten");
    arb_mp_pack_kv_strv(&pk, "players", (char *const *)players, 2);
    arb_mp_pack_cstr(&pk, "options");
    msgpack_pack_map(&pk, 1);
    arb_mp_pack_kv_str(&pk, "scoring", "simple");
    arb_mp_pack_cstr(&pk, "deal");
    msgpack_pack_map(&pk, 2);
    arb_mp_pack_kv_str(&pk, "kind", "order");
    arb_mp_pack_kv_strv(&pk, "cards", (char *const *)cards,
                        sizeof(cards) / sizeof(cards[0]));
    dh_send(&d, b.data, b.len);
    dh_settle(&d);
    CHECK_STR(d.code, "");
    dh_req_begin(&b, &pk, 3, "append", 5);
    arb_mp_pack_kv_str(&pk, "match", "TT1");
    arb_mp_pack_kv_str(&pk, "kind", "move");
    arb_mp_pack_kv_str(&pk, "player", "ann");
    arb_mp_pack_kv_str(&pk, "verb", "draw");
    arb_mp_pack_kv_strv(&pk, "args", (char *const *)args, 1);
    dh_send(&d, b.data, b.len);
    dh_settle(&d);
    CHECK_STR(d.code, "");
    dh_conn_close(&d);
    dh_req_begin(&b, &pk, 4, "events", 1);
    arb_mp_pack_kv_str(&pk, "match", "TT1");
    for (n = 1; n < 5000; n++) {
        /* The scorer's token lists M1 and T1: TT1 it reads as a
         * reader.  A connection the daemon ended is made again. */
        dh_conn_open(&d, &srv);
        dh_auth(&d, scorer);
        dh_settle(&d);
        CHECK(d.c->authed);
        arb_failalloc_arm(n);
        dh_send(&d, b.data, b.len);
        dh_settle(&d);
        hit = arb_failalloc_disarm();
        injected += hit;
        CHECK(answered(&d));
        /* A page is whole, the open and the draw, or refused: never
         * one without the event it could not show this reader. */
        if (d.answers == d.requests && d.code[0] == '\0')
            CHECK_INT(d.items, 2);
        dh_conn_close(&d);
        if (!hit)
            break;
    }
    /* the last, with nothing failed, is the page */
    CHECK_STR(d.code, "");
    CHECK(n < 5000 && injected > 0);
    CHECK_INT(server_stop(&srv), 0);
    arb_buf_free(&b);
}

int
main(void)
{
    size_t i;

    if (setup() != 0) {
        fprintf(stderr, "setup failed (run from the repository root)\n");
        return 1;
    }
    test_frames();
    test_event_format();
    test_scorer_list();
    test_tokens_load();
    test_config_load();
    test_reader_view();
    for (i = 0; i < sizeof(scripts) / sizeof(scripts[0]); i++)
        test_script(scripts[i]);
    free(script);
    disk_rm_rf(dir);
    return TEST_END();
}
