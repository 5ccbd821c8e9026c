/*
 * arbiterd - the match recorder daemon.  See README.md and
 * config/arbiterd.conf.
 */
#include <errno.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/err.h"
#include "core/smallfile.h"
#include "core/version.h"
#include "daemon/log.h"
#include "daemon/notify.h"
#include "daemon/server.h"
#include "daemon/storage.h"
#include "proto/stream.h"

static void
usage(FILE *f)
{
    fprintf(f,
        "usage: arbiterd [--config FILE] [--data DIR] [--listen SPEC]...\n"
        "                [--log-level error|warn|info|debug]\n"
        "                [--log-format text|json] [--replica-of URLS]\n"
        "       arbiterd --help | --version\n\n"
        "Each option takes its value next or after '=' (--data=DIR).\n"
        "The arbiter recorder: validates every move against its game's\n"
        "rules, appends it durably to an LMDB event store and acknowledges it\n"
        "only after the commit.  SPEC is unix:PATH or tcp:HOST:PORT, HOST\n"
        "a numeric address (IPv6 in brackets: tcp:[::1]:7411), PORT\n"
        "1..65535.\n"
        "Defaults: data ./var/arbiter, listen unix:DATA/arbiterd.sock.\n"
        "--replica-of URLS: a read replica of the NATS JetStream stream at\n"
        "URLS (as [replica] urls): it follows the stream into DATA, checks\n"
        "every event, serves reads and subscriptions, refuses writes.\n"
        "Signals: TERM/INT stop cleanly, HUP reloads tokens.\n"
        "Exit status: 0 stopped cleanly, 1 could not start, 2 bad\n"
        "configuration, 70 a commit failed (fail-stop: do not restart\n"
        "before the cause is found).  Manual: arbiterd(8).\n");
}

static int
mkdir_p(const char *path)
{
    char   tmp[4096];
    size_t i, n = strlen(path);

    if (n == 0 || n >= sizeof(tmp))
        return -1;
    memcpy(tmp, path, n + 1);
    for (i = 1; i <= n; i++) {
        if (tmp[i] == '/' || tmp[i] == '\0') {
            char c = tmp[i];
            tmp[i] = '\0';
            if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
                return -1;
            tmp[i] = c;
        }
    }
    return 0;
}

/* First start without any token: write one per role, readable only by the
 * owner, and say where they are. */
static int
make_tokens(const char *path)
{
    static const char *const roles[] = { "arbiter", "scorer", "reader" };
    unsigned char            raw[24];
    char                     hex[49];
    arb_buf_t                b = ARB_BUF_INIT;
    int                      i, rc;

    arb_buf_puts(&b, "# arbiterd tokens: token = SECRET ROLE IDENTITY "
                 "[MATCH...]\n# generated on first start; edit and send "
                 "SIGHUP to reload\n");
    for (i = 0; i < 3; i++) {
        randombytes_buf(raw, sizeof(raw));
        sodium_bin2hex(hex, sizeof(hex), raw, sizeof(raw));
        arb_buf_printf(&b, "token = %s %s %s\n", hex, roles[i], roles[i]);
    }
    sodium_memzero(hex, sizeof(hex));
    if (b.oom) {
        arb_buf_free(&b);
        errno = ENOMEM;
        return -1;
    }
    /* Durable, file and name, as the signing key is: a power cut after
     * the first start lost the file, or left it empty, until 2026-12-06
     * (and new tokens were made, or nobody could connect). */
    rc = arb_smallfile_put(path, b.data, b.len, 0600, 0);
    sodium_memzero(b.data, b.len);
    arb_buf_free(&b);
    if (rc != 0)
        return errno == EEXIST ? 0 : -1;
    arb_log(ARB_LOG_INFO, "no tokens configured: wrote one per role to %s",
            path);
    return 0;
}

/* Tokens are passwords: a file of them that others may read is said
 * (until 2026-12-06 a world-readable tokens_file passed without a word,
 * where the replication key is refused for as much). */
static void
secrets_private(const char *path)
{
    struct stat st;

    if (path != NULL && stat(path, &st) == 0 && (st.st_mode & 077) != 0)
        arb_log_ev(ARB_LOG_WARN, "secrets_readable", NULL, "%s holds "
                   "tokens and is readable by others (mode %04o): "
                   "chmod 600 it", path, (unsigned)(st.st_mode & 07777));
}

static int
load_tokens(arb_server_t *srv, arb_config_t *into, arb_buf_t *why)
{
    if (srv->config_path != NULL) {
        arb_config_t tmp;
        int          rc;
        arb_config_defaults(&tmp);
        rc = arb_config_load(&tmp, srv->config_path, why);
        if (rc != 0) {
            arb_config_free(&tmp);
            return rc;
        }
        /* Only tokens are reloaded: a change to anything else is said,
         * not silently left for the next start (until 2026-12-06). */
        if (memcmp(tmp.file_digest, srv->cfg.file_digest,
                   sizeof(tmp.file_digest)) != 0)
            arb_log_ev(ARB_LOG_WARN, "config_changed", NULL, "SIGHUP: %s "
                       "changed besides its tokens; only tokens are "
                       "reloaded: restart arbiterd for the rest",
                       srv->config_path);
        into->tokens = tmp.tokens;
        into->ntokens = tmp.ntokens;
        tmp.tokens = NULL;
        tmp.ntokens = 0;
        arb_config_free(&tmp);
    }
    if (srv->cfg.tokens_file != NULL)
        return arb_config_load_tokens(into, srv->cfg.tokens_file, 1, why);
    return 0;
}

static void
on_signal(uv_signal_t *h, int signum)
{
    arb_server_t *srv = h->data;
    arb_config_t  fresh;
    arb_buf_t     why = ARB_BUF_INIT;
    arb_token_t  *old;
    size_t        nold;

    if (signum != SIGHUP) {
        arb_log(ARB_LOG_INFO, "signal %d", signum);
        arb_notify("STOPPING=1");
        arb_server_stop(srv);
        return;
    }
    arb_notify("RELOADING=1");
    memset(&fresh, 0, sizeof(fresh));
    if (load_tokens(srv, &fresh, &why) != 0) {
        arb_log(ARB_LOG_ERROR, "SIGHUP: tokens not reloaded: %s",
                arb_buf_cstr(&why));
        arb_notify("READY=1");      /* still serving, with the old tokens */
        arb_config_free(&fresh);
        arb_buf_free(&why);
        return;
    }
    old = srv->cfg.tokens;
    nold = srv->cfg.ntokens;
    srv->cfg.tokens = fresh.tokens;
    srv->cfg.ntokens = fresh.ntokens;
    fresh.tokens = old;
    fresh.ntokens = nold;
    arb_config_free(&fresh);
    if (srv->cfg.ntokens == 0)
        arb_log_ev(ARB_LOG_WARN, "tokens", NULL, "SIGHUP: 0 tokens loaded: "
                   "nobody can connect");
    else
        arb_log(ARB_LOG_INFO, "SIGHUP: %zu tokens loaded", srv->cfg.ntokens);
    /* A token removed or changed no longer stands for the connections
     * it authenticated (until 2026-12-06 they went on with the old role:
     * a scorer struck off kept recording while connected). */
    arb_server_revoke(srv);
    arb_notify("READY=1");
}

/* A stop asked for while the start still runs (srv.stop_asked). */
/* (An atomic: the signal may run on any thread that does not block it,
 * and another thread reads it: replicate_loop.c.  A volatile
 * sig_atomic_t is only for a handler and the thread it interrupted.) */
static atomic_int early_stop;
static uv_async_t           *early_async;

/* Besides the flag, the loop is woken (uv_async_send is async-signal-
 * safe): the thread the kernel gave the signal to may be preempted
 * between taking it and running this, and run it after the start looked
 * at the flag and libuv's handler took over.  Until 2026-12-06 such a
 * SIGTERM was lost and the daemon served on (once in 20 starts beside a
 * load, on 2 CPUs). */
static void
on_early_signal(int signum)
{
    atomic_store(&early_stop, signum);
    uv_async_send(early_async);
}

/* In the loop: the stop asked for while starting. */
static void
on_early_stop(uv_async_t *a)
{
    arb_server_t *srv = a->data;

    if (srv->stopping || atomic_load(&early_stop) == 0)
        return;
    arb_log(ARB_LOG_INFO, "signal %d while starting",
            atomic_load(&early_stop));
    arb_notify("STOPPING=1");
    arb_server_stop(srv);
}

int
main(int argc, char **argv)
{
    static arb_server_t srv;
    arb_store_opts_t    so;
    arb_buf_t           why = ARB_BUF_INIT;
    const char         *data = NULL, *level = NULL, *format = NULL;
    const char         *replica_of = NULL;
    char                path[4096];
    const char         *listen[ARB_LISTEN_MAX];
    size_t              nlisten = 0, i, conf_tokens = 0;
    int                 rc, lvl;

    signal(SIGPIPE, SIG_IGN);
#ifdef __GLIBC__
    /* One malloc arena for every thread (each keeps its own cache of
     * small blocks).  With glibc's default of one arena per thread that
     * allocates, memory one thread frees stays in its arena for it alone:
     * 10,000 open matches settled at 45-52 MiB after 100 k moves and
     * 41-45 MiB after 1 M, against 37-39 and 40-44 MiB with one arena,
     * and the loop and the commit worker used no more CPU per event
     * (docs/STORE.md, "One malloc arena").  MALLOC_ARENA_MAX in the
     * environment still decides when set. */
    if (getenv("MALLOC_ARENA_MAX") == NULL)
        mallopt(M_ARENA_MAX, 1);
#endif
    arb_config_defaults(&srv.cfg);
    for (i = 1; i < (size_t)argc; i++) {
        static const char *const takes[] = {
            "--config", "--data", "--listen", "--log-level", "--log-format",
            "--replica-of",
        };
        const char *a = argv[i], *eq = strchr(a, '='), *v = NULL;
        char        name[32];
        size_t      k, n = eq != NULL ? (size_t)(eq - a) : strlen(a);

        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return ARB_EXIT_OK;
        } else if (!strcmp(a, "--version")) {
            puts(ARB_ENGINE);
            return ARB_EXIT_OK;
        }
        /* --name VALUE or --name=VALUE, as the arbiter tool takes them
         * (until 2026-12-06 a missing value or --data=DIR was an
         * "unknown argument", and --data "" stopped the start with
         * "data directory : Success"). */
        for (k = 0; k < sizeof(takes) / sizeof(takes[0]); k++)
            if (strlen(takes[k]) == n && strncmp(a, takes[k], n) == 0)
                break;
        if (k == sizeof(takes) / sizeof(takes[0])) {
            fprintf(stderr, "arbiterd: unknown argument '%s'\n", a);
            usage(stderr);
            return ARB_EXIT_CONFIG;
        }
        snprintf(name, sizeof(name), "%s", takes[k]);
        if (eq != NULL)
            v = eq + 1;
        else if (i + 1 < (size_t)argc)
            v = argv[++i];
        if (v == NULL || *v == '\0') {
            fprintf(stderr, "arbiterd: %s needs a value (arbiterd --help)\n",
                    name);
            return ARB_EXIT_CONFIG;
        }
        if (!strcmp(name, "--config")) {
            srv.config_path = v;
        } else if (!strcmp(name, "--data")) {
            data = v;
        } else if (!strcmp(name, "--listen")) {
            arb_buf_t lwhy = ARB_BUF_INIT;

            if (nlisten == ARB_LISTEN_MAX
                || arb_config_listen_check(v, &lwhy) != 0) {
                fprintf(stderr, "arbiterd: --listen takes unix:PATH or "
                        "tcp:HOST:PORT (a numeric address, port 1 to "
                        "65535), at most %d times%s%s\n", ARB_LISTEN_MAX,
                        lwhy.len > 0 ? ": " : "",
                        lwhy.len > 0 ? arb_buf_cstr(&lwhy) : "");
                arb_buf_free(&lwhy);
                return ARB_EXIT_CONFIG;
            }
            listen[nlisten++] = v;
        } else if (!strcmp(name, "--log-level")) {
            level = v;
        } else if (!strcmp(name, "--log-format")) {
            format = v;
        } else {
            replica_of = v;
        }
    }
    if (sodium_init() < 0) {
        fprintf(stderr, "arbiterd: libsodium failed to initialise\n");
        return ARB_EXIT_START;
    }
    if (srv.config_path != NULL
        && arb_config_load(&srv.cfg, srv.config_path, &why) != 0) {
        fprintf(stderr, "arbiterd: %s\n", arb_buf_cstr(&why));
        rc = ARB_EXIT_CONFIG;
        goto early;
    }
    conf_tokens = srv.cfg.ntokens;
    if (level != NULL) {
        lvl = arb_log_parse_level(level);
        if (lvl < 0) {
            fprintf(stderr, "arbiterd: log level '%s' is error, warn, info "
                    "or debug\n", level);
            rc = ARB_EXIT_CONFIG;
            goto early;
        }
        srv.cfg.log_level = lvl;
    }
    if (format != NULL) {
        lvl = arb_log_parse_format(format);
        if (lvl < 0) {
            fprintf(stderr, "arbiterd: log format '%s' is text or json\n",
                    format);
            rc = ARB_EXIT_CONFIG;
            goto early;
        }
        srv.cfg.log_format = lvl;
    }
    arb_log_level = srv.cfg.log_level;
    arb_log_format = srv.cfg.log_format;
    if (replica_of != NULL) {
        arb_buf_t uwhy = ARB_BUF_INIT;

        /* As [replica] urls is checked (until 2026-12-06 '' and 'foo'
         * started a replica that retried for good). */
        if (arb_stream_urls_check(replica_of, &uwhy) != 0) {
            fprintf(stderr, "arbiterd: --replica-of: %s\n",
                    arb_buf_cstr(&uwhy));
            arb_buf_free(&uwhy);
            rc = ARB_EXIT_CONFIG;
            goto early;
        }
        arb_buf_free(&uwhy);
        free(srv.cfg.replica.urls);
        srv.cfg.replica.urls = strdup(replica_of);
    }
    if (srv.cfg.replica.urls != NULL && srv.cfg.repl.urls != NULL) {
        fprintf(stderr, "arbiterd: a read replica does not publish: "
                "[replicate] and [replica] (--replica-of) exclude each "
                "other\n");
        rc = ARB_EXIT_CONFIG;
        goto early;
    }
    /* The command line wins, and says so: under a service unit that
     * passes --data and --listen, the configuration's own lines would
     * otherwise be ignored without a word (until 2026-12-05). */
    if (data != NULL) {
        if (srv.cfg.data != NULL && strcmp(srv.cfg.data, data) != 0)
            arb_log(ARB_LOG_WARN, "--data %s replaces the configuration's "
                    "data = %s", data, srv.cfg.data);
        free(srv.cfg.data);
        srv.cfg.data = strdup(data);
    }
    if (srv.cfg.data == NULL)
        srv.cfg.data = strdup("./var/arbiter");
    if (nlisten > 0) {
        if (srv.cfg.nlisten > 0)
            arb_log(ARB_LOG_WARN, "--listen replaces the configuration's "
                    "%zu listen line%s (%s%s)", (size_t)srv.cfg.nlisten,
                    srv.cfg.nlisten == 1 ? "" : "s", srv.cfg.listen[0],
                    srv.cfg.nlisten > 1 ? ", ..." : "");
        for (i = 0; i < srv.cfg.nlisten; i++)
            free(srv.cfg.listen[i]);
        srv.cfg.nlisten = 0;
        for (i = 0; i < nlisten; i++)
            srv.cfg.listen[srv.cfg.nlisten++] = strdup(listen[i]);
    }
    if (srv.cfg.nlisten == 0) {
        snprintf(path, sizeof(path), "unix:%s/arbiterd.sock", srv.cfg.data);
        srv.cfg.listen[srv.cfg.nlisten++] = strdup(path);
    }
    if (mkdir_p(srv.cfg.data) != 0) {
        arb_log(ARB_LOG_ERROR, "data directory %s: %s", srv.cfg.data,
                strerror(errno));
        rc = ARB_EXIT_START;
        goto early;
    }
    /* The store first: a directory it refuses (an old format, one in
     * use) gets no signing key and no tokens of ours (until 2026-12-05
     * a start on a format-1 directory left a new key there). */
    memset(&so, 0, sizeof(so));
    so.map_size = srv.cfg.map_size;
    so.map_max = srv.cfg.map_max;
    rc = arb_store_open(&srv.store, srv.cfg.data, &so, &why);
    if (rc != 0) {
        arb_log(ARB_LOG_ERROR, "store %s: %s", srv.cfg.data,
                arb_buf_cstr(&why));
        rc = ARB_EXIT_START;
        goto early;
    }
    if (arb_checkpoint_init(&srv) != 0) {
        rc = ARB_EXIT_START;
        goto early;
    }
    /* No token anywhere: one per role, written to the tokens_file the
     * configuration names (until 2026-12-05 a named file that did not
     * exist yet stopped the first start) or to DATA/tokens. */
    if (srv.cfg.ntokens == 0
        && (srv.cfg.tokens_file == NULL
            || (access(srv.cfg.tokens_file, F_OK) != 0 && errno == ENOENT))) {
        if (srv.cfg.tokens_file == NULL) {
            snprintf(path, sizeof(path), "%s/tokens", srv.cfg.data);
            srv.cfg.tokens_file = strdup(path);
        }
        if (srv.cfg.tokens_file == NULL
            || make_tokens(srv.cfg.tokens_file) != 0) {
            arb_log(ARB_LOG_ERROR, "tokens_file %s: the first tokens "
                    "cannot be written there: %s", srv.cfg.tokens_file
                    ? srv.cfg.tokens_file : path, strerror(errno));
            rc = ARB_EXIT_START;
            goto early;
        }
    }
    if (srv.cfg.tokens_file != NULL
        && arb_config_load_tokens(&srv.cfg, srv.cfg.tokens_file, 1, &why)
           != 0) {
        arb_log(ARB_LOG_ERROR, "%s", arb_buf_cstr(&why));
        rc = ARB_EXIT_CONFIG;
        goto early;
    }
    if (srv.cfg.ntokens == 0)
        arb_log(ARB_LOG_WARN, "no tokens: nobody can connect");
    secrets_private(srv.cfg.tokens_file);
    if (conf_tokens > 0)
        secrets_private(srv.config_path);

    {
        arb_store_stats_t st;
        if (arb_store_stats(srv.store, &st, NULL) == 0) {
            srv.order_pos = st.log_pos;
            arb_log(ARB_LOG_INFO, "store %s: %llu matches, %llu events, %d "
                    "stale readers cleared", srv.cfg.data,
                    (unsigned long long)st.matches,
                    (unsigned long long)st.events, st.stale_readers);
        }
    }

    srv.loop = uv_default_loop();
    uv_signal_init(srv.loop, &srv.sig_term);
    uv_signal_init(srv.loop, &srv.sig_int);
    uv_signal_init(srv.loop, &srv.sig_hup);
    srv.sig_term.data = srv.sig_int.data = srv.sig_hup.data = &srv;
    uv_async_init(srv.loop, &srv.stop_async, on_early_stop);
    srv.stop_async.data = &srv;
    early_async = &srv.stop_async;
    uv_signal_start(&srv.sig_hup, on_signal, SIGHUP);
    /* Until the loop runs, SIGTERM and SIGINT set early_stop: libuv's
     * handler would leave them for the loop, and a start waiting on NATS
     * (up to timeout_ms) would keep a stop waiting as long. */
    {
        struct sigaction sa;

        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_early_signal;
        sa.sa_flags = SA_RESTART;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        srv.stop_asked = &early_stop;
    }
    rc = arb_server_limits(&srv) != 0 || arb_server_listen(&srv) != 0
         || arb_repl_start(&srv) != 0
         || arb_replica_start(&srv) != 0 || arb_http_start(&srv) != 0;
    uv_signal_start(&srv.sig_term, on_signal, SIGTERM);
    uv_signal_start(&srv.sig_int, on_signal, SIGINT);
    if (rc != 0) {
        srv.exit_code = ARB_EXIT_START;
        arb_server_stop(&srv);
    } else if (atomic_load(&early_stop) != 0) {
        /* Not ready: the loop's first turn stops (on_early_stop).  From
         * here on a signal goes to on_signal, in the loop. */
    } else {
        arb_log_ev(ARB_LOG_INFO, "ready", NULL, "%s ready (data %s)",
                   ARB_ENGINE, srv.cfg.data);
        if (arb_notify("READY=1") < 0)
            arb_log_ev(ARB_LOG_WARN, "notify_failed", NULL, "cannot tell the "
                       "service manager we are ready: %s", strerror(errno));
        if (arb_storage_watch_start(&srv) != 0)
            arb_log_ev(ARB_LOG_WARN, "out_of_memory", NULL, "no storage "
                       "warnings: out of memory");
        /* The tool beside this daemon: bin/arbiter in a build tree,
         * /usr/bin/arbiter installed, arbiter from the PATH. */
        if (srv.cfg.tokens_file != NULL) {
            const char *slash = strrchr(argv[0], '/');

            arb_log(ARB_LOG_INFO, "connect with: export ARBITER_SERVER=%s "
                    "ARBITER_TOKEN=<a secret from %s>; %.*sarbiter stats",
                    srv.cfg.listen[0], srv.cfg.tokens_file,
                    slash != NULL ? (int)(slash - argv[0] + 1) : 0,
                    argv[0]);
        }
    }
    /* Test hook (tests/unit/test_sock_ready.c): a SIGTERM taken before
     * libuv's handler was in place whose handler runs only now, late. */
    if (getenv("ARBITERD_TEST_LATE_SIGNAL") != NULL)
        on_early_signal(SIGTERM);
    uv_run(srv.loop, UV_RUN_DEFAULT);
    /* The index is brought up to the log and the log's file flushed
     * (a checkpoint) before a clean exit, so a failed write of either
     * ends in the fail-stop status, never in 0. */
    if (srv.exit_code != ARB_EXIT_FAILSTOP
        && (arb_store_index_wait(srv.store, &why) != 0
            || arb_store_index_failed(srv.store, &why)
            || arb_store_finish(srv.store, &why) != 0)) {
        arb_log(ARB_LOG_ERROR, "%s", arb_buf_cstr(&why));
        srv.exit_code = ARB_EXIT_FAILSTOP;
    }
    if (srv.exit_code == ARB_EXIT_FAILSTOP) {
        /* fail-stop: do not touch the store again; exit at once */
        arb_log_ev(ARB_LOG_ERROR, "fail_stop", NULL, "exiting after a failed "
                   "commit (status 70); nothing of that batch was "
                   "acknowledged");
        arb_checkpoint_clear(&srv);
        _exit(ARB_EXIT_FAILSTOP);
    }
    arb_storage_watch_stop();
    uv_run(srv.loop, UV_RUN_DEFAULT);   /* its close callback */
    arb_log(ARB_LOG_INFO, "stopping: %zu match%s held in memory; %llu "
            "commits gathered every acked table, %llu stopped waiting",
            arb_live_count(&srv), arb_live_count(&srv) == 1 ? "" : "es",
            (unsigned long long)srv.n.gathered,
            (unsigned long long)srv.n.gather_timeouts);
    arb_http_free(&srv);
    arb_repl_free(&srv);
    arb_replica_free(&srv);
    arb_live_free_all(&srv);
    arb_store_close(srv.store);
    arb_commit_free(&srv);
    rc = uv_loop_close(srv.loop);
    if (rc != 0)
        arb_log(ARB_LOG_WARN, "loop closed with handles open: %s",
                uv_strerror(rc));
    arb_config_free(&srv.cfg);
    arb_checkpoint_clear(&srv);
    arb_buf_free(&why);
    arb_log_ev(ARB_LOG_INFO, "stopped", NULL, "stopped");
    return srv.exit_code;

early:
    /* A start-up failure: what was loaded is freed and the key, when it
     * was loaded, wiped. */
    arb_store_close(srv.store);
    arb_checkpoint_clear(&srv);
    arb_config_free(&srv.cfg);
    arb_buf_free(&why);
    return rc;
}
