/*
 * load.c - the crash tests' daemon and load client (see load.h).
 *
 * The client is written from proto/PROTOCOL.md's request/ack contract:
 * every ack is kept with its seq and hash, and a request is in doubt from
 * its first byte sent until its answer is read.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <msgpack.h>

#include "core/buf.h"
#include "core/card.h"
#include "core/codec.h"
#include "core/err.h"
#include "core/event.h"
#include "core/ledger/store.h"
#include "core/mp.h"
#include "proto/client.h"
#include "tests/bench/bench.h"
#include "tests/crash/disk.h"
#include "tests/crash/load.h"

/* ---- the daemon --------------------------------------------------------- */

char  load_base[64], load_data[128], load_sock[160], load_log[128];
char  load_token[128], load_config[200];
pid_t load_pid = -1;
static char tokpath[160];

void
load_kill(void)
{
    int st;

    if (load_pid > 0) {
        kill(load_pid, SIGKILL);
        waitpid(load_pid, &st, 0);
        load_pid = -1;
    }
}

int
load_stop(int sig, int ms)
{
    int st, i;

    if (load_pid <= 0)
        return -1;
    if (sig != 0)
        kill(load_pid, sig);
    for (i = 0; i < ms; i += 5) {
        if (waitpid(load_pid, &st, WNOHANG) == load_pid) {
            load_pid = -1;
            return st;
        }
        usleep(5000);
    }
    load_kill();
    return -1;
}

int
load_wait_exit(int ms, int *status)
{
    int i;

    for (i = 0; load_pid > 0 && i < ms; i += 5) {
        if (waitpid(load_pid, status, WNOHANG) == load_pid) {
            load_pid = -1;
            return 0;
        }
        usleep(5000);
    }
    return -1;
}

static void
cleanup(void)
{
    load_kill();
    /* ARB_TEST_KEEP: the directory (store, logs, NATS data) stays for a
     * post-mortem of a run that failed only once in many. */
    if (load_base[0] != '\0' && getenv("ARB_TEST_KEEP") != NULL)
        fprintf(stderr, "load: kept %s (ARB_TEST_KEEP)\n", load_base);
    else if (load_base[0] != '\0')
        disk_rm_rf(load_base);
    load_base[0] = '\0';
}

static void
on_alarm(int sig)
{
    static const char msg[] = "load: the run outlived its time limit "
                              "(alarm): a hang is a failure\n";
    ssize_t           n;

    (void)sig;
    /* A hang is a failure; do not leave a daemon behind.  Said on stderr
     * (stdout may be a buffered file that _exit never writes). */
    n = write(2, msg, sizeof(msg) - 1);
    (void)n;
    if (load_pid > 0)
        kill(load_pid, SIGKILL);
    _exit(3);
}

int
load_init(const char *tag)
{
    signal(SIGPIPE, SIG_IGN);
    signal(SIGALRM, on_alarm);
    snprintf(load_base, sizeof(load_base), "/tmp/%s.XXXXXX", tag);
    if (mkdtemp(load_base) == NULL) {
        perror("mkdtemp");
        load_base[0] = '\0';
        return -1;
    }
    atexit(cleanup);
    snprintf(load_data, sizeof(load_data), "%s/data", load_base);
    snprintf(load_sock, sizeof(load_sock), "%s/data/s.sock", load_base);
    snprintf(load_log, sizeof(load_log), "%s/arbiterd.log", load_base);
    snprintf(tokpath, sizeof(tokpath), "%s/tokens", load_data);
    return 0;
}

void
load_why_lines(FILE *out, const char *tag, const char *path, const char *has,
               long keep)
{
    char  line[512];
    FILE *f = fopen(path, "r");
    long  n = 0;

    if (f == NULL)
        return;
    while (fgets(line, sizeof(line), f) != NULL)
        n += has == NULL || strstr(line, has) != NULL;
    rewind(f);
    while (fgets(line, sizeof(line), f) != NULL)
        if ((has == NULL || strstr(line, has) != NULL) && --n < keep)
            fprintf(out, "why: %s: %s%s", tag, line,
                    strchr(line, '\n') != NULL ? "" : "\n");
    fclose(f);
}

void
load_show_log(void)
{
    load_why_lines(stderr, "daemon log", load_log, NULL, 20);
}

int
load_start(const char *const *env)
{
    char spec[200];
    int  fd;

    snprintf(spec, sizeof(spec), "unix:%s", load_sock);
    unlink(load_sock);      /* a crash leaves the old socket file behind */
    load_pid = fork();
    if (load_pid < 0)
        return -1;
    if (load_pid == 0) {
        fd = open(load_log, O_WRONLY | O_CREAT | O_APPEND, 0600);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        for (; env != NULL && *env != NULL; env++)
            putenv((char *)*env);
        if (load_config[0] != '\0')
            execl(LOAD_DAEMON, LOAD_DAEMON, "--config", load_config,
                  "--data", load_data, "--listen", spec, "--log-level",
                  "warn", (char *)NULL);
        else
            execl(LOAD_DAEMON, LOAD_DAEMON, "--data", load_data, "--listen",
                  spec, "--log-level", "warn", (char *)NULL);
        _exit(127);
    }
    return 0;
}

int
load_wait_ready(int *status)
{
    arb_client_t *cl = NULL;
    arb_buf_t     why = ARB_BUF_INIT;
    char          addr[200];
    int           i, st;

    snprintf(addr, sizeof(addr), "unix:%s", load_sock);
    for (i = 0; i < 3000; i++) {
        struct stat sb;
        if (stat(load_sock, &sb) == 0
            && arb_client_connect(&cl, addr, &why) == 0)
            break;
        if (waitpid(load_pid, &st, WNOHANG) == load_pid) {
            if (status != NULL)
                *status = st;
            load_pid = -1;
            break;
        }
        usleep(10000);
    }
    arb_buf_free(&why);
    if (cl == NULL) {
        if (load_pid > 0)
            fprintf(stderr, "arbiterd (pid %d) not listening on %s after "
                    "30 s\n", (int)load_pid, load_sock);
        return -1;
    }
    arb_client_close(cl);
    return 0;
}

int
load_read_token(void)
{
    char  line[512], sec[128], role[64];
    FILE *f = fopen(tokpath, "r");
    int   rc = -1;

    if (f == NULL)
        return -1;
    while (rc != 0 && fgets(line, sizeof(line), f) != NULL)
        if (sscanf(line, " token = %127s %63s", sec, role) == 2
            && strcmp(role, "arbiter") == 0) {
            snprintf(load_token, sizeof(load_token), "%s", sec);
            rc = 0;
        }
    fclose(f);
    return rc;
}

int
load_fresh_dir(void)
{
    int st;

    disk_rm_rf(load_data);
    if (load_start(NULL) != 0 || load_wait_ready(&st) != 0
        || load_read_token() != 0) {
        load_show_log();
        load_kill();
        return -1;
    }
    st = load_stop(SIGTERM, 10000);
    return st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

int
load_iosim_env(load_iosim_t *e, const char *journal, const char *extra)
{
    const char *b = getenv("BUILD");

    snprintf(e->pre, sizeof(e->pre), "LD_PRELOAD=%s/tests/iosim.so",
             b != NULL && *b ? b : "build");
    if (access(e->pre + strlen("LD_PRELOAD="), R_OK) != 0)
        return -1;
    snprintf(e->dir, sizeof(e->dir), "ARB_IOSIM_DIR=%s", load_data);
    snprintf(e->jnl, sizeof(e->jnl), "ARB_IOSIM_JOURNAL=%s", journal);
    snprintf(e->extra, sizeof(e->extra), "%s", extra ? extra : "");
    e->env[0] = e->pre;
    e->env[1] = e->dir;
    e->env[2] = e->jnl;
    /* The shim is the daemon's only preload: an asan daemon's sanitizer
     * runtime then is not first, which asan must be told is fine. */
    e->env[3] = "ASAN_OPTIONS=verify_asan_link_order=0";
    e->env[4] = extra != NULL ? e->extra : NULL;
    e->env[5] = NULL;
    return 0;
}

/* ---- the moves ---------------------------------------------------------- */

static void
match_name(char *out, size_t len, int client, unsigned m)
{
    snprintf(out, len, "c%d-m%u", client, m);
}

static void
cid_of(char *out, size_t len, int client, unsigned m, unsigned k)
{
    snprintf(out, len, "c%d-m%u-k%u", client, m, k);
}

/* ---- a client ----------------------------------------------------------- */

static void fail(load_client_t *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
fail(load_client_t *c, const char *fmt, ...)
{
    va_list ap;

    c->errors++;
    if (c->errors <= 5) {
        fprintf(stderr, "client %d: ", c->idx);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
    }
}

static int
send_req(load_client_t *c, arb_client_t *cl, load_pend_t *p)
{
    msgpack_packer *pk;
    arb_buf_t       why = ARB_BUF_INIT;
    char            name[64], cid[96], card[8];
    int             rc;

    match_name(name, sizeof(name), c->idx, p->match);
    cid_of(cid, sizeof(cid), c->idx, p->match, p->move);
    if (p->move == 0) {
        p->id = arb_client_begin(cl, &pk, "open", 5);
        arb_mp_pack_cstr(pk, "match");
        arb_mp_pack_cstr(pk, name);
        arb_mp_pack_cstr(pk, "game");
        arb_mp_pack_cstr(pk, "yahchain");
        arb_mp_pack_cstr(pk, "players");
        msgpack_pack_array(pk, 2);
        arb_mp_pack_cstr(pk, "ann");
        arb_mp_pack_cstr(pk, "bob");
        arb_mp_pack_cstr(pk, "options");
        msgpack_pack_map(pk, 2);
        arb_mp_pack_cstr(pk, "cycles");
        arb_mp_pack_cstr(pk, "4");
        arb_mp_pack_cstr(pk, "mode");
        arb_mp_pack_cstr(pk, "3");
        arb_mp_pack_cstr(pk, "cid");
        arb_mp_pack_cstr(pk, cid);
    } else {
        bench_card_of(card, sizeof(card), p->move);
        p->id = arb_client_begin(cl, &pk, "append", 6);
        arb_mp_pack_cstr(pk, "match");
        arb_mp_pack_cstr(pk, name);
        arb_mp_pack_cstr(pk, "kind");
        arb_mp_pack_cstr(pk, "move");
        arb_mp_pack_cstr(pk, "player");
        arb_mp_pack_cstr(pk, bench_player_of(p->move));
        arb_mp_pack_cstr(pk, "verb");
        arb_mp_pack_cstr(pk, "place");
        arb_mp_pack_cstr(pk, "args");
        msgpack_pack_array(pk, 1);
        arb_mp_pack_cstr(pk, card);
        arb_mp_pack_cstr(pk, "cid");
        arb_mp_pack_cstr(pk, cid);
    }
    rc = arb_client_send(cl, &why);
    arb_buf_free(&why);
    return rc;
}

static load_macks_t *
acks_of(load_client_t *c, unsigned match)
{
    if (match > c->capm) {
        size_t   cap = c->capm ? c->capm * 2 : 16;
        load_macks_t *nm;
        while (cap < match)
            cap *= 2;
        nm = realloc(c->m, cap * sizeof(*nm));
        if (nm == NULL)
            return NULL;
        memset(nm + c->capm, 0, (cap - c->capm) * sizeof(*nm));
        c->m = nm;
        c->capm = cap;
    }
    return &c->m[match - 1];
}

/* One answer to request p (retry: p was in doubt). */
static void
on_answer(load_client_t *c, const load_pend_t *p, const msgpack_unpacked *res,
          int retry)
{
    const msgpack_object *ok = arb_client_get(res, "ok");
    const msgpack_object *h = arb_client_get(res, "hash");
    const msgpack_object *d = arb_client_get(res, "dup");
    load_macks_t              *a = acks_of(c, p->match);
    char                  code[64], name[64];
    uint64_t              seq;
    int                   dup;

    match_name(name, sizeof(name), c->idx, p->match);
    if (a == NULL) {
        fail(c, "%s: out of memory", name);
        return;
    }
    if (ok == NULL || ok->type != MSGPACK_OBJECT_BOOLEAN || !ok->via.boolean) {
        arb_client_error_code(res, code, sizeof(code));
        if (retry && p->move == 0 && strcmp(code, "exists") == 0) {
            /* The open committed but its ack was lost; the daemon does not
             * answer a retried open from its idempotency index. */
            c->open_exists++;
            if (a->how[0] != LOAD_ACK_NONE)
                fail(c, "%s: open acknowledged twice", name);
            a->how[0] = LOAD_ACK_OPEN_EXISTS;
            c->acked++;
            return;
        }
        fail(c, "%s: move %u refused on its %s: %s", name, p->move,
             retry ? "retry" : "first try", code);
        return;
    }
    seq = arb_client_uint(res, "seq");
    dup = d != NULL && d->type == MSGPACK_OBJECT_BOOLEAN && d->via.boolean;
    if (seq != p->move) {
        fail(c, "%s: move %u acked at seq %llu", name, p->move,
             (unsigned long long)seq);
        return;
    }
    if (h == NULL || h->type != MSGPACK_OBJECT_BIN || h->via.bin.size != 32) {
        fail(c, "%s: ack without a hash at seq %llu", name,
             (unsigned long long)seq);
        return;
    }
    if (dup && !retry)
        fail(c, "%s: first try answered as a duplicate, seq %llu", name,
             (unsigned long long)seq);
    if (a->how[seq] != LOAD_ACK_NONE)
        fail(c, "%s: seq %llu acknowledged twice", name,
             (unsigned long long)seq);
    a->how[seq] = !retry ? LOAD_ACK_FIRST
                  : dup ? LOAD_ACK_RETRY_DUP : LOAD_ACK_RETRY_FRESH;
    memcpy(a->hash[seq], h->via.bin.ptr, 32);
    c->acked++;
    if (retry && dup)
        c->dup++;
    else if (retry)
        c->fresh++;
}

static void
q_remove(load_client_t *c, size_t i)
{
    memmove(&c->q[i], &c->q[i + 1], (c->nq - i - 1) * sizeof(c->q[0]));
    c->nq--;
}

/* Reads one answer and hands it to its request; -1 when the daemon is
 * gone (the requests stay in doubt). */
static int
read_answer(load_client_t *c, arb_client_t *cl, int retry)
{
    msgpack_unpacked res;
    arb_buf_t        why = ARB_BUF_INIT;
    uint64_t         id;
    size_t           i;
    char             code[64];
    int              rc;

    msgpack_unpacked_init(&res);
    rc = arb_client_read(cl, &res, &why);
    if (rc == 0 && arb_client_get(&res, "push") == NULL) {
        id = arb_client_uint(&res, "id");
        for (i = 0; i < c->nq && c->q[i].id != id; i++)
            ;
        if (i == c->nq) {
            fail(c, "answer to unknown request id %llu",
                 (unsigned long long)id);
        } else if (strcmp(arb_client_error_code(&res, code, sizeof(code)),
                          "shutting_down") == 0
                   || strcmp(code, "unverified") == 0
                   || strcmp(code, "internal") == 0) {
            /* Read but not committed: in doubt until the next round,
             * like everything still unanswered on this connection.
             * `internal` (a daemon whose store just failed answers so)
             * is counted: only the I/O-error loop may see it. */
            c->internal += code[0] == 'i';
            c->unverified += code[0] == 'u';
            rc = -1;
        } else {
            on_answer(c, &c->q[i], &res, retry);
            q_remove(c, i);
        }
    }
    msgpack_unpacked_destroy(&res);
    arb_buf_free(&why);
    return rc == 0 ? 0 : -1;
}

static void *
client_main(void *arg)
{
    load_client_t      *c = arg;
    arb_client_t  *cl = NULL;
    arb_buf_t      why = ARB_BUF_INIT;
    struct timeval tv = { 5, 0 };
    char           addr[200];
    load_pend_t         doubt[LOAD_WINDOW];
    size_t         ndoubt, i;

    snprintf(addr, sizeof(addr), "unix:%s", load_sock);
    if (arb_client_connect(&cl, addr, &why) != 0
        || arb_client_auth(cl, load_token, &why) != 0)
        goto out;       /* the daemon died already: try next round */
    /* A daemon that hangs must not hang the test. */
    setsockopt(arb_client_fd(cl), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(arb_client_fd(cl), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));

    /* 1. Settle what the last crash left in doubt, one at a time, in the
     *    order it was first sent. */
    if (c->nq > c->doubt_max)
        c->doubt_max = c->nq;
    ndoubt = c->nq;
    memcpy(doubt, c->q, sizeof(doubt));
    for (i = 0; i < ndoubt; i++) {
        c->nq = 1;
        c->q[0] = doubt[i];
        c->retried++;
        if (send_req(c, cl, &c->q[0]) != 0 || read_answer(c, cl, 1) != 0) {
            /* Killed again: keep the rest in doubt. */
            memmove(c->q, doubt + i, (ndoubt - i) * sizeof(doubt[0]));
            c->nq = ndoubt - i;
            goto out;
        }
        if (c->nq != 0) {       /* answered another id: keep it in doubt */
            memmove(c->q, doubt + i, (ndoubt - i) * sizeof(doubt[0]));
            c->nq = ndoubt - i;
            goto out;
        }
    }
    c->nq = 0;
    if (c->settle_only)
        goto out;

    /* 2. Load until the daemon is gone, or the budget is spent and
     *    answered. */
    for (;;) {
        while (c->nq < LOAD_WINDOW && !c->stop
               && (c->budget == 0 || c->sent < c->budget)) {
            load_pend_t *p = &c->q[c->nq];
            if (c->next == 0 || c->next > LOAD_MOVES) {
                c->nmatch++;
                c->next = 1;
                if (acks_of(c, c->nmatch) == NULL) {
                    fail(c, "out of memory");
                    goto out;
                }
                p->match = c->nmatch;
                p->move = 0;
            } else {
                p->match = c->nmatch;
                p->move = c->next++;
            }
            if (c->pace_us != 0)
                usleep(c->pace_us);
            c->nq++;            /* in doubt from the first byte sent */
            c->sent++;
            if (send_req(c, cl, p) != 0)
                goto out;
        }
        if (c->nq == 0)
            goto out;
        if (read_answer(c, cl, 0) != 0)
            goto out;
        if (c->errors > 0)
            goto out;
    }
out:
    arb_client_close(cl);
    arb_buf_free(&why);
    return NULL;
}

/* ---- verification ------------------------------------------------------- */

typedef struct vctx {
    int            client;
    unsigned       match;
    uint64_t       next;        /* expected seq */
    unsigned char  hash[LOAD_MOVES + 1][32];
    unsigned       cid_count[LOAD_MOVES + 1];
    uint64_t       gaps, bad_content, foreign_cid, beyond;
} vctx_t;

static int
on_stored(void *ud, uint64_t seq, int64_t t,
          const unsigned char h[ARB_HASH_LEN],
          const void *bytes, size_t len)
{
    vctx_t     *x = ud;
    arb_event_t ev;
    char        cid[96], card[8], err[80];
    arb_card_t  want, got;
    unsigned    k;

    (void)t;
    if (seq != x->next)
        x->gaps++;
    x->next = seq + 1;
    if (seq > LOAD_MOVES) {
        x->beyond++;
        return 0;
    }
    memcpy(x->hash[seq], h, 32);
    if (arb_event_decode(&ev, bytes, len, NULL) != 0) {
        x->bad_content++;
        return 0;
    }
    /* Which cid is it?  It must name this match; count it. */
    for (k = 0; k <= LOAD_MOVES; k++) {
        cid_of(cid, sizeof(cid), x->client, x->match, k);
        if (ev.client_id != NULL && strcmp(ev.client_id, cid) == 0)
            break;
    }
    if (k > LOAD_MOVES)
        x->foreign_cid++;
    else
        x->cid_count[k]++;
    /* The event at seq k is move k (the open at 0). */
    if (k != seq)
        x->bad_content++;
    else if (seq == 0 && ev.kind != ARB_EV_OPEN)
        x->bad_content++;
    else if (seq > 0) {
        /* The card is stored canonically (4♠), not as sent (4S). */
        bench_card_of(card, sizeof(card), (unsigned)seq);
        if (ev.kind != ARB_EV_MOVE || ev.player == NULL || ev.nargs != 1
            || strcmp(ev.player, bench_player_of((unsigned)seq)) != 0
            || arb_card_parse(&want, card, strlen(card), err, sizeof(err))
               != 0
            || arb_card_parse(&got, ev.args[0], strlen(ev.args[0]), err,
                              sizeof(err)) != 0
            || want != got)
            x->bad_content++;
    }
    arb_event_clear(&ev);
    return 0;
}

int
load_verify(const load_client_t *cl, int n, int settled, load_verdict_t *v)
{
    arb_store_opts_t  o;
    arb_store_t      *s = NULL;
    arb_store_stats_t st;
    arb_buf_t         why = ARB_BUF_INIT;
    vctx_t           *x = malloc(sizeof(*x));
    int               i, rc, problems = 0;
    unsigned          m, k;

    memset(v, 0, sizeof(*v));
    memset(&o, 0, sizeof(o));
    o.read_only = 1;
    rc = arb_store_open(&s, load_data, &o, &why);
    if (rc != 0 || x == NULL) {
        fprintf(stderr, "open %s: %s\n", load_data,
                x == NULL ? "out of memory" : arb_buf_cstr(&why));
        v->open_failed = 1;
        problems++;
        goto out;
    }
    rc = arb_store_verify(s, NULL, &why);
    if (rc != 0) {
        fprintf(stderr, "arb_store_verify: %s\n", arb_buf_cstr(&why));
        v->verify_failed = 1;
    }
    for (i = 0; i < n; i++) {
        const load_client_t *c = &cl[i];
        for (m = 1; m <= c->nmatch; m++) {
            arb_match_info_t    info;
            char                name[64];
            const load_macks_t *a = &c->m[m - 1];

            v->matches++;
            match_name(name, sizeof(name), c->idx, m);
            memset(x, 0, sizeof(*x));
            x->client = c->idx;
            x->match = m;
            rc = arb_store_match(s, name, &info, NULL);
            if (rc != 0) {
                /* Fine while its open is in doubt, not once acked. */
                v->missing += settled || a->how[0] != LOAD_ACK_NONE;
                for (k = 0; k <= LOAD_MOVES; k++) {
                    v->lost += a->how[k] != LOAD_ACK_NONE;
                    v->acked += a->how[k] != LOAD_ACK_NONE;
                }
                continue;
            }
            rc = arb_store_events(s, name, 0, UINT64_MAX, on_stored, x,
                                  &why);
            if (rc != 0) {
                fprintf(stderr, "%s: events: %s\n", name,
                        arb_buf_cstr(&why));
                v->read_failed++;
            }
            if (x->next != info.count)
                v->gaps++;
            v->gaps += x->gaps + x->beyond;
            v->content += x->bad_content;
            v->foreign += x->foreign_cid;
            v->stored += x->next;
            for (k = 0; k <= LOAD_MOVES; k++) {
                int in_store = k < x->next;
                if (x->cid_count[k] > 1)
                    v->cid_dup++;
                if (a->how[k] != LOAD_ACK_NONE)
                    v->acked++;
                if (a->how[k] != LOAD_ACK_NONE && !in_store) {
                    if (++v->lost <= 5)
                        fprintf(stderr, "LOST: %s seq %u was acknowledged "
                                "(how %d) but is not in the store\n", name,
                                k, a->how[k]);
                } else if (a->how[k] == LOAD_ACK_NONE && in_store) {
                    /* In doubt until settled. */
                    if (settled && ++v->unacked <= 5)
                        fprintf(stderr, "%s seq %u is stored but was never "
                                "acknowledged\n", name, k);
                } else if (in_store && a->how[k] != LOAD_ACK_OPEN_EXISTS
                           && memcmp(a->hash[k], x->hash[k], 32) != 0) {
                    if (++v->badhash <= 5)
                        fprintf(stderr, "%s seq %u: stored hash differs "
                                "from the acknowledged one (how %d)\n",
                                name, k, a->how[k]);
                }
            }
        }
    }
    if (arb_store_stats(s, &st, NULL) != 0)
        v->read_failed++;
    v->stats_events = st.events;
    v->stats_matches = st.matches;
    if (settled && (st.events != v->stored || st.matches != v->matches))
        problems++;
    problems += v->verify_failed + (v->read_failed > 0) + (v->missing > 0)
                + (v->lost > 0) + (v->badhash > 0) + (v->unacked > 0)
                + (v->gaps > 0) + (v->cid_dup > 0) + (v->foreign > 0)
                + (v->content > 0);
out:
    free(x);
    arb_store_close(s);
    arb_buf_free(&why);
    return problems;
}

int
load_settle(load_client_t *c, int n, load_verdict_t *v)
{
    uint64_t internal = 0;
    int      i, st, bad = 0, tries, left, was;

    memset(v, 0, sizeof(*v));
    for (i = 0; i < n; i++)
        internal += c[i].internal;
    if (load_start(NULL) != 0 || load_wait_ready(&st) != 0) {
        fprintf(stderr, "the healthy restart failed\n");
        load_show_log();
        load_kill();
        return -1;
    }
    for (i = 0; i < n; i++)
        c[i].settle_only = 1;
    /* A replicating recorder answers `unverified` (nothing written) until
     * it has compared its log with the stream: those stay in doubt and
     * are sent again, for up to 20 s.  So does a doubt a round left for
     * a reason of the machine (a connection that timed out on a loaded
     * machine: a 1,000-round soak once ended so), while rounds clear
     * some. */
    for (tries = 0, was = n + 1; ; tries++) {
        uint64_t before = 0, after = 0;

        for (i = 0; i < n; i++)
            before += c[i].unverified;
        load_round_start(c, n);
        load_round_join(c, n);
        for (i = 0, left = 0; i < n; i++) {
            left += c[i].nq != 0;
            after += c[i].unverified;
        }
        if (left == 0 || (after == before && left >= was) || tries == 80)
            break;
        was = left;
        usleep(250 * 1000);
    }
    for (i = 0; i < n; i++) {
        c[i].settle_only = 0;
        bad += c[i].nq != 0 || c[i].errors != 0;
        internal -= c[i].internal;      /* a healthy daemon gives none */
    }
    bad += internal != 0;
    st = load_stop(SIGTERM, 10000);
    if (bad != 0 || st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "settling: %d connections left doubts or errors; "
                "the stop: status 0x%x\n", bad, st);
        load_show_log();
        return -1;
    }
    return load_verify(c, n, 1, v) == 0 ? 0 : -1;
}

void
load_round_start(load_client_t *c, int n)
{
    int i;

    for (i = 0; i < n; i++)
        pthread_create(&c[i].th, NULL, client_main, &c[i]);
}

void
load_round_join(load_client_t *c, int n)
{
    int i;

    for (i = 0; i < n; i++)
        pthread_join(c[i].th, NULL);
}

void
load_clients_free(load_client_t *c, int n)
{
    int i;

    for (i = 0; i < n; i++) {
        free(c[i].m);
        c[i].m = NULL;
        c[i].capm = 0;
    }
}
