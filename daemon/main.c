/*
 * arbiterd - the match recorder daemon.  See README.md and
 * config/arbiterd.conf.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/err.h"
#include "core/version.h"
#include "daemon/log.h"
#include "daemon/server.h"

static void
usage(FILE *f)
{
    fprintf(f,
        "usage: arbiterd [--config FILE] [--data DIR] [--listen SPEC]...\n"
        "                [--log-level error|warn|info|debug]\n\n"
        "The arbiter recorder: validates every move against its game's\n"
        "rules, appends it durably to an LMDB event log and acknowledges it\n"
        "only after the commit.  SPEC is unix:PATH or tcp:127.0.0.1:PORT.\n"
        "Defaults: data ./var/arbiter, listen unix:DATA/arbiterd.sock.\n"
        "Signals: TERM/INT stop cleanly, HUP reloads tokens.\n");
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
    FILE                    *f;
    int                      fd, i;

    fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0)
        return errno == EEXIST ? 0 : -1;
    f = fdopen(fd, "w");
    if (f == NULL) {
        close(fd);
        return -1;
    }
    fprintf(f, "# arbiterd tokens: token = SECRET ROLE IDENTITY [MATCH...]\n"
               "# generated on first start; edit and send SIGHUP to reload\n");
    for (i = 0; i < 3; i++) {
        randombytes_buf(raw, sizeof(raw));
        sodium_bin2hex(hex, sizeof(hex), raw, sizeof(raw));
        fprintf(f, "token = %s %s %s\n", hex, roles[i], roles[i]);
    }
    if (fclose(f) != 0)
        return -1;
    arb_log(ARB_LOG_INFO, "no tokens configured: wrote one per role to %s",
            path);
    return 0;
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
        arb_server_stop(srv);
        return;
    }
    memset(&fresh, 0, sizeof(fresh));
    if (load_tokens(srv, &fresh, &why) != 0) {
        arb_log(ARB_LOG_ERROR, "SIGHUP: tokens not reloaded: %s",
                arb_buf_cstr(&why));
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
    arb_log(ARB_LOG_INFO, "SIGHUP: %zu tokens loaded", srv->cfg.ntokens);
}

int
main(int argc, char **argv)
{
    static arb_server_t srv;
    arb_store_opts_t    so;
    arb_buf_t           why = ARB_BUF_INIT;
    const char         *data = NULL, *level = NULL;
    char                path[4096];
    const char         *listen[ARB_LISTEN_MAX];
    size_t              nlisten = 0, i;
    int                 rc, lvl;

    signal(SIGPIPE, SIG_IGN);
    arb_config_defaults(&srv.cfg);
    for (i = 1; i < (size_t)argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--version")) {
            puts(ARB_ENGINE);
            return 0;
        } else if (!strcmp(argv[i], "--config") && i + 1 < (size_t)argc) {
            srv.config_path = argv[++i];
        } else if (!strcmp(argv[i], "--data") && i + 1 < (size_t)argc) {
            data = argv[++i];
        } else if (!strcmp(argv[i], "--listen") && i + 1 < (size_t)argc
                   && nlisten < ARB_LISTEN_MAX) {
            listen[nlisten++] = argv[++i];
        } else if (!strcmp(argv[i], "--log-level") && i + 1 < (size_t)argc) {
            level = argv[++i];
        } else {
            fprintf(stderr, "arbiterd: unknown argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (sodium_init() < 0) {
        fprintf(stderr, "arbiterd: libsodium failed to initialise\n");
        return 1;
    }
    if (srv.config_path != NULL
        && arb_config_load(&srv.cfg, srv.config_path, &why) != 0) {
        fprintf(stderr, "arbiterd: %s\n", arb_buf_cstr(&why));
        return 2;
    }
    if (level != NULL) {
        lvl = arb_log_parse_level(level);
        if (lvl < 0) {
            fprintf(stderr, "arbiterd: log level '%s' is error, warn, info "
                    "or debug\n", level);
            return 2;
        }
        srv.cfg.log_level = lvl;
    }
    arb_log_level = srv.cfg.log_level;
    if (data != NULL) {
        free(srv.cfg.data);
        srv.cfg.data = strdup(data);
    }
    if (srv.cfg.data == NULL)
        srv.cfg.data = strdup("./var/arbiter");
    if (nlisten > 0) {
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
        return 1;
    }
    if (arb_checkpoint_init(srv.cfg.data) != 0)
        return 1;
    if (srv.cfg.ntokens == 0 && srv.cfg.tokens_file == NULL) {
        snprintf(path, sizeof(path), "%s/tokens", srv.cfg.data);
        srv.cfg.tokens_file = strdup(path);
        if (make_tokens(path) != 0) {
            arb_log(ARB_LOG_ERROR, "%s: %s", path, strerror(errno));
            return 1;
        }
    }
    if (srv.cfg.tokens_file != NULL
        && arb_config_load_tokens(&srv.cfg, srv.cfg.tokens_file, 1, &why)
           != 0) {
        arb_log(ARB_LOG_ERROR, "%s", arb_buf_cstr(&why));
        return 2;
    }
    if (srv.cfg.ntokens == 0)
        arb_log(ARB_LOG_WARN, "no tokens: nobody can connect");

    memset(&so, 0, sizeof(so));
    so.map_size = srv.cfg.map_size;
    so.map_max = srv.cfg.map_max;
    rc = arb_store_open(&srv.store, srv.cfg.data, &so, &why);
    if (rc != 0) {
        arb_log(ARB_LOG_ERROR, "store %s: %s", srv.cfg.data,
                arb_buf_cstr(&why));
        return 1;
    }
    {
        arb_store_stats_t st;
        if (arb_store_stats(srv.store, &st, NULL) == 0) {
            srv.log_pos = st.log_pos;
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
    uv_signal_start(&srv.sig_term, on_signal, SIGTERM);
    uv_signal_start(&srv.sig_int, on_signal, SIGINT);
    uv_signal_start(&srv.sig_hup, on_signal, SIGHUP);
    if (arb_server_listen(&srv) != 0) {
        srv.exit_code = 1;
        arb_server_stop(&srv);
    } else {
        arb_log(ARB_LOG_INFO, "%s ready (data %s)", ARB_ENGINE, srv.cfg.data);
        if (srv.cfg.tokens_file != NULL)
            arb_log(ARB_LOG_INFO, "connect with: export ARBITER_SERVER=%s "
                    "ARBITER_TOKEN=<a secret from %s>; bin/arbiter stats",
                    srv.cfg.listen[0], srv.cfg.tokens_file);
    }
    uv_run(srv.loop, UV_RUN_DEFAULT);
    if (srv.exit_code == 70) {
        /* fail-stop: do not touch the store again; exit at once */
        arb_log(ARB_LOG_ERROR, "exiting after a failed commit");
        _exit(70);
    }
    arb_log(ARB_LOG_INFO, "stopping: %zu matches held in memory; %llu "
            "commits gathered every acked table, %llu stopped waiting",
            arb_live_count(&srv), (unsigned long long)srv.n.gathered,
            (unsigned long long)srv.n.gather_timeouts);
    arb_live_free_all(&srv);
    arb_store_close(srv.store);
    free(srv.queue);
    free(srv.batch);
    free(srv.batch_ap);
    arb_buf_free(&srv.commit_why);
    rc = uv_loop_close(srv.loop);
    if (rc != 0)
        arb_log(ARB_LOG_WARN, "loop closed with handles open: %s",
                uv_strerror(rc));
    arb_config_free(&srv.cfg);
    arb_log(ARB_LOG_INFO, "stopped");
    return srv.exit_code;
}
