/*
 * soak_faults.c - load with faults: TABLES tables (connections of the
 * load client, tests/crash/load.h) append for SECS seconds while
 * subscribers come and go, slow subscribers are cut, the tokens file is
 * reloaded with SIGHUP, and the daemon is killed at random (SIGKILL, or
 * now and then SIGTERM, which must end cleanly).
 *
 * Every other life of the daemon is measured: its open file descriptors
 * (/proc/PID/fd) when it starts listening, and again once every table and
 * subscriber has left, must be the same (and the same in every life), and
 * the daemon's stats must count no subscriber and no connection but the
 * one asking, then and after churn alone; the
 * anonymous RSS (RssAnon) may not grow by more than RSS_SLACK over 2 s of
 * subscriber churn and token reloads alone.  (The load itself grows it:
 * the daemon keeps every match it touched in memory, daemon/live.c.)
 * At the end a last life settles every request in doubt, stops cleanly,
 * and the store must hold exactly the acknowledged events (load_verify,
 * settled).  Prints one line of figures; exits non-zero on
 * any broken promise.  Not part of `make test` (see `make soak`).
 *
 * usage: soak_faults [SECS [TABLES]]   (defaults 600, 256)
 * ARB_SOAK_SEED makes the schedule reproducible.
 */
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <msgpack.h>

#include "core/buf.h"
#include "core/clock.h"
#include "core/mp.h"
#include "proto/client.h"
#include "tests/crash/disk.h"
#include "tests/crash/load.h"
#include "tests/test.h"

#define MAX_TABLES 900              /* one fd and one thread each */
#define RSS_SLACK  (4u << 20)       /* heap noise allowed after churn */
#define NSUBS      8                /* subscribers alive at once */

static double
now_s(void)
{
    return (double)arb_clock_ns() / 1e9;
}

static long
fd_count(pid_t pid)
{
    char           p[64];
    DIR           *d;
    struct dirent *e;
    long           n = 0;

    snprintf(p, sizeof(p), "/proc/%d/fd", (int)pid);
    if ((d = opendir(p)) == NULL)
        return -1;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* The fd count once it holds still (two readings 50 ms apart agree):
 * a connection just closed by a client is gone a moment later. */
static long
quiet_fd_count(pid_t pid)
{
    long a = fd_count(pid), b;
    int  i;

    for (i = 0; i < 40; i++) {
        usleep(50000);
        b = fd_count(pid);
        if (b == a)
            break;
        a = b;
    }
    return a;
}

static long
rss_anon_kb(pid_t pid)
{
    char  p[64], line[256];
    FILE *f;
    long  kb = -1;

    snprintf(p, sizeof(p), "/proc/%d/status", (int)pid);
    if ((f = fopen(p, "r")) == NULL)
        return -1;
    while (fgets(line, sizeof(line), f) != NULL)
        if (sscanf(line, "RssAnon: %ld kB", &kb) == 1)
            break;
    fclose(f);
    return kb;
}

static arb_client_t *
connect_as(const char *token)
{
    arb_client_t  *cl = NULL;
    arb_buf_t      why = ARB_BUF_INIT;
    struct timeval tv = { 5, 0 };
    char           addr[200];

    snprintf(addr, sizeof(addr), "unix:%s", load_sock);
    if (arb_client_connect(&cl, addr, &why) != 0
        || arb_client_auth(cl, token, &why) != 0) {
        arb_client_close(cl);
        cl = NULL;
    } else {
        setsockopt(arb_client_fd(cl), SOL_SOCKET, SO_RCVTIMEO, &tv,
                   sizeof(tv));
    }
    arb_buf_free(&why);
    return cl;
}

/* Subscribes to every match, from log position 1 (history first) or, with
 * live_only, from the next event; 0 when acknowledged. */
static int
subscribe_all(arb_client_t *cl, int live_only)
{
    msgpack_packer  *pk;
    msgpack_unpacked res;
    arb_buf_t        why = ARB_BUF_INIT;
    int              rc;

    arb_client_begin(cl, &pk, "subscribe", live_only ? 0 : 1);
    if (!live_only) {
        arb_mp_pack_cstr(pk, "from");
        msgpack_pack_uint64(pk, 1);
    }
    msgpack_unpacked_init(&res);
    rc = arb_client_call(cl, &res, &why);
    if (rc == 0 && arb_client_get(&res, "sub") == NULL)
        rc = -1;
    msgpack_unpacked_destroy(&res);
    arb_buf_free(&why);
    return rc;
}

/* Most the drain of one slow subscriber may read: one caught up from
 * position 1 of a large log may still be streaming its catch-up (paused
 * at half of outq_max while unread, so never cut), and would stream for as
 * long as the tables append.  Each has its own: one streaming must not
 * leave the next undrained and counted as streaming too. */
#define DRAIN_SECS 3.0

/* Reads until EOF, the read timeout or the deadline: 1 when the daemon
 * closed it, 2 when it was still sending at the deadline, 0 when it went
 * quiet and left the connection open. */
static int
drained_to_eof(arb_client_t *cl, int *got_slow, double deadline,
               uint64_t *frames)
{
    msgpack_unpacked res;
    arb_buf_t        why = ARB_BUF_INIT;
    const msgpack_object *push;
    int              rc;

    *frames = 0;
    for (;;) {
        if (now_s() > deadline) {
            arb_buf_free(&why);
            return 2;
        }
        msgpack_unpacked_init(&res);
        rc = arb_client_read(cl, &res, &why);
        *frames += rc == 0;
        push = rc == 0 ? arb_client_get(&res, "push") : NULL;
        if (push != NULL && push->type == MSGPACK_OBJECT_STR
            && push->via.str.size == 5
            && memcmp(push->via.str.ptr, "error", 5) == 0)
            *got_slow = 1;
        msgpack_unpacked_destroy(&res);
        if (rc != 0)
            break;
    }
    rc = strstr(arb_buf_cstr(&why), "timed out") == NULL
         && strstr(arb_buf_cstr(&why), "temporarily") == NULL;
    arb_buf_free(&why);
    return rc;
}

/* The daemon's count of subscribers and connections (stats), the asking
 * one included, once they hold still: 0, or -1 when stats fail. */
static int
stats_counts(uint64_t *subs, uint64_t *conns)
{
    arb_client_t    *cl;
    msgpack_packer  *pk;
    msgpack_unpacked res;
    arb_buf_t        why = ARB_BUF_INIT;
    uint64_t         s0 = UINT64_MAX, c0 = UINT64_MAX;
    int              i, rc = -1;

    /* A client that just left is gone a moment later. */
    for (i = 0; i < 40; i++) {
        if ((cl = connect_as(load_token)) == NULL)
            break;
        arb_client_begin(cl, &pk, "stats", 0);
        msgpack_unpacked_init(&res);
        rc = arb_client_call(cl, &res, &why);
        *subs = arb_client_uint(&res, "subscribers");
        *conns = arb_client_uint(&res, "connections");
        msgpack_unpacked_destroy(&res);
        arb_client_close(cl);
        if (rc != 0 || (*subs == s0 && *conns == c0))
            break;
        s0 = *subs;
        c0 = *conns;
        usleep(50000);
    }
    arb_buf_free(&why);
    return rc == 0 ? 0 : -1;
}

/* Whether the daemon counts no subscriber and no connection but the one
 * asking; says what it counts when not. */
static int
subs_at_baseline(uint64_t life, const char *when)
{
    uint64_t subs = 0, conns = 0;

    if (stats_counts(&subs, &conns) == 0 && subs == 0 && conns == 1)
        return 1;
    fprintf(stderr, "life %llu: %llu subscribers, %llu connections %s\n",
            (unsigned long long)life, (unsigned long long)subs,
            (unsigned long long)conns, when);
    return 0;
}

typedef struct churn {
    uint64_t subs, slow_cut, slow_pushes, slow_open, reloads, reload_fail;
    uint64_t idle;              /* never read, no load: caught up, open */
    uint64_t slow_streaming;    /* still in catch-up at the drain */
    uint64_t sub_fail;
} churn_t;

/* Appends a fresh reader token to the tokens file, sends SIGHUP and logs
 * in with it. */
static void
reload_tokens(churn_t *ch, unsigned k)
{
    char          path[200], tok[64];
    FILE         *f;
    arb_client_t *cl = NULL;
    int           i;

    snprintf(path, sizeof(path), "%s/tokens", load_data);
    snprintf(tok, sizeof(tok), "soak%08x%08x", k, (unsigned)rand());
    if ((f = fopen(path, "a")) == NULL) {
        ch->reload_fail++;
        return;
    }
    fprintf(f, "token = %s reader soak-%u\n", tok, k);
    fclose(f);
    kill(load_pid, SIGHUP);
    for (i = 0; i < 100 && cl == NULL; i++) {
        usleep(20000);
        cl = connect_as(tok);
    }
    ch->reloads++;
    if (cl == NULL)
        ch->reload_fail++;
    arb_client_close(cl);
}

/* One life's churn for `secs`: normal subscribers read a little and
 * leave; slow ones never read and must be cut; tokens are reloaded.
 * loaded: the tables are appending.  Without load a subscriber that never
 * reads is not slow: catch-up pauses at half of outq_max while it does not
 * read ("history alone never cuts a subscriber off", proto/PROTOCOL.md)
 * and nothing live comes, so it is never cut: the drain reads whatever
 * history it asked for and it is counted idle, not left open. */
static void
churn(churn_t *ch, double secs, unsigned *k, int loaded)
{
    arb_client_t *slow[NSUBS];
    double        t0 = now_s(), next_reload = t0 + 1.0;
    size_t        nslow = 0, i;
    int           got;
    uint64_t      frames;
    double        born[NSUBS];

    while (now_s() - t0 < secs) {
        arb_client_t *cl = connect_as(load_token);
        /* A slow one: never reads.  Most start live, so that under load
         * they fall behind on live pushes and are cut; one in four asks
         * for the whole history first and is paused in its catch-up
         * instead, which never cuts it. */
        int slow_one = rand() % 3 == 0 && nslow < NSUBS;
        if (cl == NULL
            || subscribe_all(cl, slow_one && rand() % 4 != 0) != 0) {
            ch->sub_fail += load_pid > 0;
            arb_client_close(cl);
        } else if (slow_one) {
            born[nslow] = now_s() - t0;
            slow[nslow++] = cl;         /* never reads: must be cut */
            ch->subs++;
        } else {
            /* A normal subscriber: reads a few pushes, leaves. */
            msgpack_unpacked res;
            arb_buf_t        why = ARB_BUF_INIT;
            int              n = 1 + rand() % 50;
            while (n-- > 0) {
                msgpack_unpacked_init(&res);
                got = arb_client_read(cl, &res, &why);
                msgpack_unpacked_destroy(&res);
                if (got != 0)
                    break;
            }
            arb_buf_free(&why);
            arb_client_close(cl);
            ch->subs++;
        }
        if (now_s() >= next_reload) {
            reload_tokens(ch, (*k)++);
            next_reload = now_s() + 2.0;
        }
        usleep(50000 + (unsigned)(rand() % 150) * 1000);
    }
    /* The slow ones: under load, by now far past outq_max, so cut.  One
     * not read within ARB_LINGER_MS of its cut loses the `slow` push (the
     * close stops waiting for a peer that does not read): the push count
     * is a figure, not a check. */
    for (i = 0; i < nslow; i++) {
        got = 0;
        switch (drained_to_eof(slow[i], &got, now_s() + DRAIN_SECS,
                               &frames)) {
        case 1:  ch->slow_cut++; break;
        case 2:  ch->slow_streaming++; break;
        default:
            if (!loaded) {
                ch->idle++;         /* caught up, nothing live: open */
                break;
            }
            ch->slow_open++;
            fprintf(stderr, "slow subscriber opened %.1f s into %.1f s of "
                    "churn %s: %llu frames read, then silence, not cut\n",
                    born[i], secs, loaded ? "under load" : "alone",
                    (unsigned long long)frames);
            break;
        }
        ch->slow_pushes += got;
        arb_client_close(slow[i]);
    }
}

int
main(int argc, char **argv)
{
    static load_client_t cl[MAX_TABLES];
    load_verdict_t  v;
    churn_t         ch;
    struct rlimit   rl;
    const char     *env;
    double          secs = 600, t0, life;
    unsigned        tables = 256, seed, k = 0;
    uint64_t        lives = 0, kills = 0, terms = 0, fd_bad = 0, rss_bad = 0;
    uint64_t        errors = 0, measured = 0, subs_bad = 0;
    long            fd_first = -1, fd0, fd1, rss0, rss1, rss_max_growth = 0;
    char            conf[300];
    FILE           *f;
    int             i, st, rc;

    if (argc > 1)
        secs = atof(argv[1]);
    if (argc > 2)
        tables = (unsigned)atoi(argv[2]);
    if (tables < 1 || tables > MAX_TABLES) {
        fprintf(stderr, "soak_faults: 1..%d tables\n", MAX_TABLES);
        return 2;
    }
    if (access(LOAD_DAEMON, X_OK) != 0) {
        fprintf(stderr, "soak_faults: %s is not built (run from the "
                "repository root after make)\n", LOAD_DAEMON);
        return 2;
    }
    /* One fd per table here, and in the daemon. */
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    seed = (unsigned)time(NULL) ^ (unsigned)getpid();
    if ((env = getenv("ARB_SOAK_SEED")) != NULL && *env)
        seed = (unsigned)strtoul(env, NULL, 10);
    srand(seed);
    memset(&ch, 0, sizeof(ch));
    if (load_init("arbsoak") != 0)
        return 2;
    alarm((unsigned)secs + 300);
    /* A small outq_max, so a subscriber that does not read is cut soon. */
    snprintf(load_config, sizeof(load_config), "%s/arbiterd.conf",
             load_base);
    snprintf(conf, sizeof(conf), "outq_max = 64K\ntokens_file = %s/tokens\n",
             load_data);
    if ((f = fopen(load_config, "w")) == NULL)
        return 2;
    fputs(conf, f);
    fclose(f);
    /* The tokens file, made by a first start without it. */
    load_config[0] = '\0';
    rc = load_start(NULL) == 0 && load_wait_ready(&st) == 0
         && load_read_token() == 0 ? 0 : -1;
    load_stop(SIGTERM, 10000);
    CHECK_INT(rc, 0);
    if (rc != 0) {
        load_show_log();
        return TEST_END();
    }
    snprintf(load_config, sizeof(load_config), "%s/arbiterd.conf",
             load_base);
    for (i = 0; i < (int)tables; i++)
        cl[i].idx = i;

    t0 = now_s();
    while (now_s() - t0 < secs) {
        rc = load_start(NULL);
        rc = rc == 0 ? load_wait_ready(&st) : -1;
        CHECK_INT(rc, 0);
        if (rc != 0) {
            load_show_log();
            break;
        }
        lives++;
        /* The baseline of this life: listening, no connection. */
        fd0 = quiet_fd_count(load_pid);    /* the readiness probe closed */
        if (fd_first < 0)
            fd_first = fd0;
        load_round_start(cl, (int)tables);
        life = 2.0 + (double)(rand() % 1300) / 100.0;
        if (life > secs - (now_s() - t0))
            life = secs - (now_s() - t0);
        churn(&ch, life > 0.5 ? life : 0.5, &k, 1);
        if (lives % 2 == 0) {
            /* Measured life: the tables finish what they sent and leave;
             * every connection gone, the fds are back to the baseline.
             * Then churn alone must not grow the heap. */
            for (i = 0; i < (int)tables; i++)
                cl[i].stop = 1;
            load_round_join(cl, (int)tables);
            for (i = 0; i < (int)tables; i++)
                cl[i].stop = 0;
            fd1 = quiet_fd_count(load_pid);
            /* Every subscriber gone with its client: none left but the
             * connection asking. */
            subs_bad += !subs_at_baseline(lives, "once every client left");
            rss0 = rss_anon_kb(load_pid);
            churn(&ch, 2.0, &k, 0);
            subs_bad += !subs_at_baseline(lives, "after churn alone");
            usleep(300000);
            rss1 = rss_anon_kb(load_pid);
            if (fd1 != fd0 || fd0 != fd_first
                || quiet_fd_count(load_pid) != fd0) {
                fd_bad++;
                fprintf(stderr, "life %llu: %ld fds once every client "
                        "left, %ld after more churn, %ld at its start, %ld "
                        "in the first life\n", (unsigned long long)lives,
                        fd1, fd_count(load_pid), fd0, fd_first);
            }
            measured++;
            if (rss1 - rss0 > rss_max_growth)
                rss_max_growth = rss1 - rss0;
            if (rss1 < 0 || rss0 < 0 || (rss1 - rss0) * 1024 > RSS_SLACK) {
                rss_bad++;
                fprintf(stderr, "life %llu: RssAnon %ld kB after churn "
                        "alone, %ld kB before\n", (unsigned long long)lives,
                        rss1, rss0);
            }
            /* Back under load for the kill. */
            load_round_start(cl, (int)tables);
            usleep(200000 + (unsigned)(rand() % 1500) * 1000);
        }
        if (rand() % 4 == 0) {
            st = load_stop(SIGTERM, 20000);
            terms++;
            if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
                fprintf(stderr, "life %llu: SIGTERM: status 0x%x\n",
                        (unsigned long long)lives, st);
                errors++;
            }
        } else {
            load_kill();
            kills++;
        }
        load_round_join(cl, (int)tables);
        for (i = 0; i < (int)tables; i++)
            if (cl[i].errors != 0) {
                errors++;
                cl[i].errors = 0;
            }
    }
    /* Settle every doubt, stop cleanly, and hold the store to the acks. */
    CHECK_INT(load_settle(cl, (int)tables, &v), 0);
    for (i = 0; i < (int)tables; i++)
        errors += cl[i].errors + cl[i].internal;
    CHECK_INT(errors, 0);
    CHECK_INT(fd_bad, 0);
    CHECK_INT(subs_bad, 0);
    CHECK_INT(rss_bad, 0);
    CHECK_INT(ch.slow_open, 0);
    CHECK_INT(ch.reload_fail, 0);
    CHECK(v.acked > 0 && ch.slow_cut > 0 && ch.reloads > 0);
    printf("soak_faults: seed %u, %.0f s, %u tables: %llu daemon lives "
           "(%llu SIGKILL, %llu SIGTERM); %llu acknowledged events, all in "
           "the store (%llu stored, lost %llu, never acked %llu), chains "
           "%s; %llu subscribers (%llu slow ones cut, %llu of them told "
           "with a push first, %llu left open, %llu still catching up, "
           "%llu idle without load), %llu token reloads "
           "(%llu failed); %llu lives measured: fds back to %ld and no "
           "subscriber once the clients left (%llu + %llu misses), "
           "RssAnon growth over 2 s of churn alone at most %ld kB\n", seed,
           secs, tables, (unsigned long long)lives,
           (unsigned long long)kills, (unsigned long long)terms,
           (unsigned long long)v.acked, (unsigned long long)v.stored,
           (unsigned long long)v.lost, (unsigned long long)v.unacked,
           v.verify_failed ? "BROKEN" : "intact",
           (unsigned long long)ch.subs, (unsigned long long)ch.slow_cut,
           (unsigned long long)ch.slow_pushes,
           (unsigned long long)ch.slow_open,
           (unsigned long long)ch.slow_streaming,
           (unsigned long long)ch.idle,
           (unsigned long long)ch.reloads,
           (unsigned long long)ch.reload_fail,
           (unsigned long long)measured, fd_first,
           (unsigned long long)fd_bad, (unsigned long long)subs_bad,
           rss_max_growth);
    load_clients_free(cl, (int)tables);
    return TEST_END();
}
