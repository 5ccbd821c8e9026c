/*
 * arbiter restore - a data directory rebuilt from the replicated stream
 * (NATS JetStream, docs/REPLICA.md).
 *
 * DESIGN: the stream is not trusted to be complete (nats-server 2.9.10 can
 * lose acknowledged messages).  Every event goes through the mirror
 * (proto/stream_mirror.h): chain link, canonical bytes, the match's rules.
 * A match whose history in the stream has a gap, a broken link or a
 * refused event is named with its first missing or bad seq and the
 * restore is refused as a whole: a recorder started on a silently
 * shortened history would hand out seqs the stream already had.  As with
 * restore-backup, the store is built in DIR.partial, checked in full, and
 * only then renamed to DIR.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/err.h"
#include "core/ledger/check.h"
#include "core/ledger/store.h"
#include "core/smallfile.h"
#include "proto/stream.h"
#include "proto/stream_mirror.h"
#include "proto/stream_read.h"
#include "tools/cli.h"
#include "tools/ops.h"

/* How long the stream may deliver nothing while its leader says it holds
 * more, its consumer made again meanwhile (every ARB_STREAM_STALL_MS):
 * a NATS election takes 4-9 s here, and a consumer may be drawn on a
 * node that is down more than once. */
#define IDLE_MS 30000

static void
usage(FILE *f)
{
    fprintf(f,
        "usage: arbiter restore --nats URLS --data DIR [--prefix P]\n"
        "                       [--stream S] [--creds FILE] [--key FILE]\n\n"
        "Rebuilds a recorder's data directory DIR (which must not exist or\n"
        "be empty) from the NATS JetStream stream its events were\n"
        "replicated to (default stream ARBITER; URLS: nats://host:port,\n"
        "comma-separated).  --prefix P restores only the matches whose ids\n"
        "start with P (one recorder's share of a stream fed by several);\n"
        "a P no match has is refused, and nothing is restored.\n"
        "Every event is checked: its hash link, its canonical bytes and the\n"
        "rules of its match.  With --key FILE (the replication key of\n"
        "[replicate] secret_key_file) the deal secrets of running dealt\n"
        "matches are restored too; without it they are checked on their\n"
        "chain only and the restore is refused (the recorder could not\n"
        "continue them); closed dealt matches need no key.\n"
        "A gap (a seq missing from the stream), a broken link or a refused\n"
        "event makes the stream be read again with a new consumer (up to 3\n"
        "reads: one on a NATS replica whose copy differs from the leader's\n"
        "reads what the leader does not hold); found by every read, it is\n"
        "reported as 'match M seq N: ...' and nothing is restored.\n"
        "A message arbiter did not write is skipped and said at the end.\n"
        "The result is built in DIR.partial, checked in full as 'arbiter\n"
        "check' does, then renamed to DIR; start the recorder on it with\n"
        "'arbiterd --data DIR'.  A run that fails without refusing the\n"
        "stream (a write error, a lost connection) removes the DIR.partial\n"
        "it made (one it found is never removed).  Events lost from the\n"
        "stream's tail cannot be seen here: docs/REPLICA.md says what\n"
        "each mode promises.\n"
        "A consumer that delivers nothing for 3 s while the stream holds\n"
        "more is made again (said on stderr); the restore gives up after\n"
        "30 s without a message.  JetStream temporarily unavailable (an\n"
        "election, a lost quorum) is waited for as long, said once.\n"
        "At a terminal the progress is shown on stderr.  --db DIR is the\n"
        "same as --data DIR.\n\n"
        "Exit status: 0 restored and verified, 1 the stream is incomplete\n"
        "or does not verify, 2 usage, connection or I/O error.\n");
}

/* How many times the stream is read before a restore that finds matches
 * incomplete or not verifying is refused.  Each read has a consumer of
 * its own, which nats-server places on one of the stream's replicas at
 * random; a replica whose copy of the stream differs from its leader's
 * (nats-server 2.9.10 leaves one so after a node is frozen or killed:
 * the cluster soak saw one lacking 60 messages in the middle of the
 * stream while holding what came after them) hands out what the leader
 * does not hold. */
#define RESTORE_READS 3

/* Messages not ours on one match's event subject, in a read. */
typedef struct foreign_subj {
    char     id[ARB_STREAM_ID_MAX + 1];
    uint64_t n;
} foreign_subj_t;

typedef struct rctx {
    uint64_t  problems;
    arb_buf_t said;         /* their messages, said once the reads end */
    foreign_subj_t *fs;     /* sorted by id */
    size_t    nfs, capfs;
} rctx_t;

/* Where id is in r->fs, or where it would go (*found 0). */
static size_t
foreign_find(const rctx_t *r, const char *id, int *found)
{
    size_t lo = 0, hi = r->nfs;

    *found = 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int    c = strcmp(r->fs[mid].id, id);

        if (c == 0) {
            *found = 1;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* One more message not ours on match id's event subject.  0 or -1 (out
 * of memory: then that subject's match may be named as lacking). */
static int
foreign_add(rctx_t *r, const char *id)
{
    int    found;
    size_t at = foreign_find(r, id, &found);

    if (found) {
        r->fs[at].n++;
        return 0;
    }
    if (r->nfs == r->capfs) {
        size_t          cap = r->capfs ? 2 * r->capfs : 16;
        foreign_subj_t *v = realloc(r->fs, cap * sizeof(*v));

        if (v == NULL)
            return -1;
        r->fs = v;
        r->capfs = cap;
    }
    memmove(r->fs + at + 1, r->fs + at, (r->nfs - at) * sizeof(*r->fs));
    snprintf(r->fs[at].id, sizeof(r->fs[at].id), "%s", id);
    r->fs[at].n = 1;
    r->nfs++;
    return 0;
}

/* Messages not ours the read met on match id's event subject. */
static uint64_t
foreign_count(const rctx_t *r, const char *id)
{
    int    found;
    size_t at = foreign_find(r, id, &found);

    return found ? r->fs[at].n : 0;
}

static void
on_problem(void *ud, const char *match_id, uint64_t seq, const char *msg)
{
    rctx_t *r = ud;

    (void)match_id;
    (void)seq;
    r->problems++;
    arb_buf_printf(&r->said, "arbiter restore: %s\n", msg);
}

/* After ARB_EAGAIN (JetStream temporarily unavailable: an election, a
 * node just thawed): 1 to try again, for up to IDLE_MS since `since`,
 * after a pause; 0 to give up.  Said once a run (the first look, the
 * consumer and the end check may each meet the same outage).  Until
 * 2026-12-05 a restore begun as a frozen NATS node came back failed at
 * once (the cluster soak, cycle 26: "ordered consumer: Error (JetStream
 * error 10008)"). */
static int
try_again(int64_t since, arb_buf_t *why)
{
    static int      said;       /* one restore a process */
    struct timespec ts = { 0, 250 * 1000000L };

    if (arb_clock_ms() - since > IDLE_MS)
        return 0;
    if (!said)
        fprintf(stderr, "arbiter restore: %s; trying again for up to %d "
                "s\n", arb_buf_cstr(why), IDLE_MS / 1000);
    said = 1;
    nanosleep(&ts, NULL);
    return 1;
}

/* Test hook (tests/integration/nats_restore.sh): with
 * ARBITER_RESTORE_UNAVAILABLE=N, the first N answers to each request that
 * is tried again (the first look, the consumer, the check of the ends)
 * are "temporarily unavailable", as JetStream's during an election: a
 * real outage could not be timed to meet each of them. */
static int outage_left[3];
enum { OUT_LOOK, OUT_READ, OUT_ENDS };

static int
outage(int site, arb_buf_t *why)
{
    if (outage_left[site] <= 0)
        return 0;
    outage_left[site]--;
    why->len = 0;
    arb_buf_puts(why, "nats: JetStream temporarily unavailable (test hook)");
    return 1;
}

/* Reads the stream up to its last sequence as of the start into the
 * mirror.  CLI_OK, or CLI_DIFFERS / CLI_ERROR with the reason printed. */
static int
read_stream(arb_stream_t *st, arb_mirror_t *mir, const char *prefix,
            uint64_t last, uint64_t drop, uint64_t *read, uint64_t *foreign,
            arb_buf_t *first_foreign, rctx_t *r)
{
    arb_stream_reader_t *rd = NULL;
    arb_stream_msg_t     msg;
    arb_buf_t            why = ARB_BUF_INIT;
    ops_progress_t       pr;
    uint64_t             at = 0, next = 0, remade = 0, skips = 0;
    int64_t              idle_since = arb_clock_ms();
    size_t               plen = prefix != NULL ? strlen(prefix) : 0;
    int                  rc, status = CLI_ERROR;

    ops_progress_init(&pr);
    *read = 0;
    if (last == 0)
        return CLI_OK;
    do
        rc = outage(OUT_READ, &why) ? ARB_EAGAIN
             : arb_stream_reader_open(&rd, st, NULL, 1, &why);
    while (rc == ARB_EAGAIN && try_again(idle_since, &why));
    if (rc != 0)
        goto done;
    idle_since = arb_clock_ms();
    while (at < last) {
        rc = arb_stream_reader_next(rd, &msg, 500, &why);
        if (rc == ARB_EAGAIN) {
            /* Its last messages were deleted (a purge, a message taken
             * out by hand): the stream ends before its last sequence.
             * Until 2026-12-04 the restore waited 10 s for them and
             * failed. */
            if (arb_stream_reader_ahead(rd, &next)
                && (next == 0 || next > last))
                break;
            if (arb_stream_reader_skips(rd) != skips) {
                skips = arb_stream_reader_skips(rd);
                remade = arb_stream_reader_remade(rd);
                ops_progress_clear(&pr);
                fprintf(stderr, "arbiter restore: the stream's consumer "
                        "passed over messages the stream holds after "
                        "sequence %" PRIu64 " (on a NATS node that lacks "
                        "them): it was made again from there\n", at);
            } else if (arb_stream_reader_remade(rd) != remade) {
                remade = arb_stream_reader_remade(rd);
                ops_progress_clear(&pr);
                fprintf(stderr, "arbiter restore: nothing came for %d s "
                        "after stream sequence %" PRIu64 " though the stream "
                        "holds %" PRIu64 ": its consumer was made again (a "
                        "NATS node lagging or gone)\n",
                        ARB_STREAM_STALL_MS / 1000, at, next);
            }
            if (arb_clock_ms() - idle_since > IDLE_MS) {
                why.len = 0;
                arb_buf_printf(&why, "the stream stopped delivering at "
                               "sequence %" PRIu64 " of %" PRIu64 " for "
                               "%d s", at, last, IDLE_MS / 1000);
                goto done;
            }
            continue;
        }
        if (msg.stream_seq > last) {
            /* Past the horizon: its last messages were deleted and a
             * recorder still writing (into a stream fed by several) put
             * this one after them.  Until 2026-12-07 it was taken, an
             * event the ends of the matches are not held to (and a
             * seq republished after it, past the horizon, made a gap
             * of it). */
            arb_stream_msg_clear(&msg);
            break;
        }
        if (rc == ARB_EPROTO) {
            /* Not one of ours (no match can be named from it): skipped,
             * as a replica does, and said at the end.  Until 2026-12-04
             * it refused the whole restore, with no remedy but purging
             * the message by hand.  Skipping hides nothing: had it been
             * an event of ours with its headers spoilt, its match lacks
             * that seq and is named as incomplete. */
            if ((*foreign)++ == 0)
                arb_buf_printf(first_foreign, "%s", arb_buf_cstr(&why));
            why.len = 0;        /* said at the end, not with a failure */
            if (msg.kind == ARB_STREAM_EV && msg.match_id[0] != '\0')
                (void)foreign_add(r, msg.match_id);
            idle_since = arb_clock_ms();
            at = msg.stream_seq;
            (*read)++;
            continue;
        }
        if (rc != 0)
            goto done;
        idle_since = arb_clock_ms();
        at = msg.stream_seq;
        (*read)++;
        if (plen != 0 && strncmp(msg.match_id, prefix, plen) != 0) {
            arb_stream_msg_clear(&msg);
            continue;
        }
        if (*read == drop) {
            arb_stream_msg_clear(&msg);     /* the test hook: passed over */
            continue;
        }
        rc = arb_mirror_apply(mir, &msg, &why);
        if (rc != 0)
            goto done;
        ops_progress(&pr, "restore", "stream sequence", at, last);
    }
    /* An event republished after its successors has come by now; what
     * still waits for an earlier seq is a gap. */
    arb_mirror_finish(mir);
    rc = arb_mirror_flush(mir, &why);
    if (rc != 0)
        goto done;
    status = CLI_OK;
done:
    /* The reason goes on a line of its own, after the progress line is
     * cleared (until 2026-12-07 it was written onto it at a terminal). */
    ops_progress_clear(&pr);
    if (status != CLI_OK)
        fprintf(stderr, "arbiter restore: %s\n", arb_buf_cstr(&why));
    arb_stream_reader_close(rd);
    arb_buf_free(&why);
    return status;
}

/* check_ends: each subject the stream's leader lists, held to what the
 * read restored of its match. */
typedef struct {
    arb_stream_t *st;
    arb_store_t  *s;
    const char   *prefix;
    uint64_t      last;         /* the read's horizon */
    rctx_t       *r;
    arb_buf_t     why;
} ends_t;

/* 1 when the read named match id already: asked only of a match about to
 * be named (few are), a linear look. */
static int
named(rctx_t *r, const char *id)
{
    char key[ARB_STREAM_ID_MAX + 32];
    int  n = snprintf(key, sizeof(key), "arbiter restore: match %s", id);
    const char *p = arb_buf_cstr(&r->said);

    while (p != NULL && (p = strstr(p, key)) != NULL) {
        if (p[n] == ' ' || p[n] == ':')
            return 1;
        p += n;
    }
    return 0;
}

static int
end_cb(void *ud, const char *subject, uint64_t msgs)
{
    ends_t          *e = ud;
    char             id[ARB_STREAM_ID_MAX + 1], line[512];
    arb_match_info_t info;
    arb_stream_msg_t m;
    uint64_t         first = 0;
    int              rc, have;

    if (arb_stream_subject_parse(subject, id, sizeof(id)) != ARB_STREAM_EV
        || (e->prefix != NULL
            && strncmp(id, e->prefix, strlen(e->prefix)) != 0))
        return 0;
    have = arb_store_match(e->s, id, &info, NULL) == 0;
    if (!have) {
        /* Put after the read began (a recorder still writing)? */
        rc = arb_stream_next_seq(e->st, 1, subject, &first, NULL, &e->why);
        if (rc != 0)
            return rc;
        /* Or every message of it not ours (said as skipped): no match.
         * Until 2026-12-07 the match was named as lacking, and the
         * restore refused, for one message put there by hand. */
        if (first == 0 || first > e->last || named(e->r, id)
            || foreign_count(e->r, id) >= msgs)
            return 0;
        snprintf(line, sizeof(line), "match %s: the stream's leader holds "
                 "%" PRIu64 " messages of it from stream sequence %" PRIu64
                 " on; the read found none", id, msgs, first);
        on_problem(e->r, id, 0, line);
        return 0;
    }
    /* Asked of every subject, also one whose count the read matches: a
     * leader that holds messages of a subject but cannot say which is
     * its last has lost its last one (nats-server 2.9.10 forgets it when
     * that message is deleted), which the count cannot show (until
     * 2026-12-06 such a match was restored short, a closed one open). */
    rc = arb_stream_last(e->st, subject, &m, &e->why);
    if (rc == ARB_ENOTFOUND && msgs > 0 && !named(e->r, id)) {
        /* Said, not refused: the message deleted may as well have been
         * one arbiter did not write, and nothing in the stream tells. */
        fprintf(stderr, "arbiter restore: warning: match %s: the stream's "
                "leader holds %" PRIu64 " messages of it but cannot say "
                "which is its last (one was deleted from its end): the "
                "restore ends it at seq %" PRIu64 ", which may be short; "
                "a recorder that still has it publishes what the stream "
                "lacks again at its next pass\n", id, msgs,
                info.last_seq);
        return 0;
    }
    if (rc == ARB_ENOTFOUND || rc == ARB_EPROTO)
        return 0;   /* nothing to compare with (a passes' matter) */
    if (rc != 0)
        return rc;
    if (m.stream_seq <= e->last && m.seq > info.last_seq
        && !named(e->r, id)) {
        snprintf(line, sizeof(line), "match %s seq %" PRIu64 ": the read "
                 "ended at seq %" PRIu64 " while the stream's leader holds "
                 "seq %" PRIu64 " (stream sequence %" PRIu64 ")", id,
                 info.last_seq + 1, info.last_seq, m.seq, m.stream_seq);
        on_problem(e->r, id, info.last_seq + 1, line);
    }
    arb_stream_msg_clear(&m);
    return 0;
}

/* A read on a replica whose copy of the stream differs from the leader's
 * may end a match early, or miss it, and look whole: every match the
 * leader holds is held to the read (its subjects' listing; then, for a
 * subject holding more messages than the read restored events of its
 * match, or a match the read lacks, one request).  Problems go to r.
 * CLI_OK, or CLI_ERROR with the reason printed. */
static int
check_ends(arb_stream_t *st, arb_store_t *s, const char *prefix,
           uint64_t last, rctx_t *r)
{
    ends_t  e = { st, s, prefix, last, r, ARB_BUF_INIT };
    int64_t t0 = arb_clock_ms();
    int     rc;

    /* (Again from the start: a match already named is not named twice.) */
    do
        rc = outage(OUT_ENDS, &e.why) ? ARB_EAGAIN
             : arb_stream_subjects(st, ARB_STREAM_EV_PREFIX ">", end_cb, &e,
                                   &e.why);
    while (rc == ARB_EAGAIN && try_again(t0, &e.why));
    if (rc != 0)
        fprintf(stderr, "arbiter restore: comparing each match's end with "
                "the stream's leader: %s\n", arb_buf_cstr(&e.why)
                ? arb_buf_cstr(&e.why) : "out of memory");
    arb_buf_free(&e.why);
    return rc == 0 ? CLI_OK : CLI_ERROR;
}

/* What one read of the stream took in. */
static void
print_read(const arb_stream_t *st, uint64_t last, uint64_t read,
           const arb_mirror_stats_t *ms, int64_t ms_taken)
{
    printf("arbiter restore: read %" PRIu64 " messages of stream %s "
           "(sequences up to %" PRIu64 ") in %.3f s: %" PRIu64 " events "
           "appended (%" PRIu64 " events/s), %" PRIu64 " matches, %" PRIu64
           " deal secrets, %" PRIu64 " dealt matches checked on their chain "
           "only\n", read, st->name, last, (double)ms_taken / 1000.0,
           ms->events, ms_taken > 0 ? ms->events * 1000 / (uint64_t)ms_taken
                                    : ms->events,
           ms->opens, ms->deals, ms->chain_only);
}

/* DIR/replicate.pos: the log published up to pos.  0 or -1 (said). */
static int
write_cursor(const char *dir, uint64_t pos)
{
    char path[PATH_MAX], line[64];
    int  n = snprintf(line, sizeof(line), ARB_STREAM_CURSOR_FMT, pos);

    if (ops_path(path, dir, ARB_STREAM_CURSOR_FILE) != 0)
        errno = ENAMETOOLONG;
    else if (arb_smallfile_replace(path, line, (size_t)n) == 0)
        return 0;
    fprintf(stderr, "arbiter restore: cannot write %s/%s: %s\n", dir,
            ARB_STREAM_CURSOR_FILE, strerror(errno));
    return -1;
}

int
cmd_restore_nats(int argc, char **argv)
{
    const char        *urls = NULL, *dir = NULL, *prefix = NULL,
                      *stream = NULL, *creds = NULL, *keyfile = NULL;
    const cli_optdef_t opts[] = {
        { "--nats", CLI_ARG_STR, &urls },
        { "--data", CLI_ARG_STR, &dir },
        { "--db", CLI_ARG_STR, &dir },
        { "--prefix", CLI_ARG_STR, &prefix },
        { "--stream", CLI_ARG_STR, &stream },
        { "--creds", CLI_ARG_STR, &creds },
        { "--key", CLI_ARG_STR, &keyfile },
        { NULL, 0, NULL }
    };
    cli_args_t          a = { .cmd = "restore", .usage = usage,
                              .opts = opts, .no_words = 1 };
    arb_stream_conf_t   conf;
    arb_stream_t       *st = NULL;
    arb_store_t        *s = NULL;
    arb_mirror_t       *mir = NULL;
    arb_mirror_stats_t  ms;
    arb_check_summary_t got;
    arb_buf_t           why = ARB_BUF_INIT;
    unsigned char       key[ARB_STREAM_KEY_LEN];
    char                tmp[PATH_MAX], lock[PATH_MAX];
    rctx_t              r = { 0, ARB_BUF_INIT, NULL, 0, 0 };
    uint64_t            last = 0, msgs = 0, read = 0, foreign = 0;
    uint64_t            drop = 0;
    arb_buf_t           first_foreign = ARB_BUF_INIT;
    int64_t             t0;
    int                 status, rc, exists = 0, attempt, drop_all = 0;
    int                 made = 0;

    status = cli_args_parse(&a, argc, argv);
    if (status >= 0)
        return status;
    /* Test hook (tests/integration/nats_resync.sh): "N", the first read
     * passes over the Nth message of the stream, as a consumer on a
     * replica that lacks it does; "N+", every read does. */
    if (getenv("ARBITER_RESTORE_DROP") != NULL) {
        char *end;

        drop = strtoull(getenv("ARBITER_RESTORE_DROP"), &end, 10);
        drop_all = *end == '+';
    }
    if (getenv("ARBITER_RESTORE_UNAVAILABLE") != NULL)
        outage_left[OUT_LOOK] = outage_left[OUT_READ] = outage_left[OUT_ENDS]
            = atoi(getenv("ARBITER_RESTORE_UNAVAILABLE"));
    status = CLI_ERROR;
    if (urls == NULL || dir == NULL) {
        fprintf(stderr, "arbiter restore: --nats URLS and --data DIR are "
                "required\n");
        usage(stderr);
        return CLI_ERROR;
    }
    if (keyfile != NULL && arb_stream_key_load(key, keyfile, &why) != 0) {
        fprintf(stderr, "arbiter restore: %s\n", arb_buf_cstr(&why));
        goto done;
    }
    /* What is local is checked before NATS is asked anything (until
     * 2026-12-05 a target that was not empty was named only after the
     * connection, and a --creds that is no file was taken when the
     * server wanted none). */
    if (creds != NULL && arb_stream_creds_check(creds, &why) != 0) {
        fprintf(stderr, "arbiter restore: --creds %s\n",
                arb_buf_cstr(&why));
        goto done;
    }
    /* URLs libnats would take and retry (until 2026-12-06: "No server
     * available for connection (nats://)"). */
    if (arb_stream_urls_check(urls, &why) != 0) {
        fprintf(stderr, "arbiter restore: --nats %s\n", arb_buf_cstr(&why));
        goto done;
    }
    if (ops_target_check("restore", dir) != CLI_OK)
        goto done;
    memset(&conf, 0, sizeof(conf));
    conf.urls = urls;
    conf.stream = stream;
    conf.creds = creds;
    conf.client_name = "arbiter restore";
    rc = arb_stream_open(&st, &conf, NULL, NULL, &why);
    t0 = arb_clock_ms();
    if (rc == 0)
        do
            rc = outage(OUT_LOOK, &why) ? ARB_EAGAIN
                 : arb_stream_bounds(st, NULL, &last, &msgs, &why);
        while (rc == ARB_EAGAIN && try_again(t0, &why));
    if (rc != 0) {
        fprintf(stderr, "arbiter restore: %s\n", arb_buf_cstr(&why));
        goto done;
    }
    if (ops_target_begin("restore", dir, tmp, &exists) != 0)
        goto done;
    made = 1;
    for (attempt = 1;; attempt++) {
        rc = arb_store_open(&s, tmp, NULL, &why);
        if (rc == 0)
            rc = arb_mirror_open(&mir, s, keyfile != NULL ? key : NULL,
                                 on_problem, &r);
        if (rc == 0)        /* a deal met out of order */
            arb_mirror_on_deal(mir, arb_stream_deal_last, st);
        if (rc != 0) {
            fprintf(stderr, "arbiter restore: %s: %s\n", tmp,
                    arb_buf_cstr(&why) ? arb_buf_cstr(&why)
                                       : "out of memory");
            goto done;
        }
        t0 = arb_clock_ms();
        foreign = 0;
        first_foreign.len = 0;
        r.nfs = 0;
        status = read_stream(st, mir, prefix, last,
                             attempt == 1 || drop_all ? drop : 0, &read,
                             &foreign, &first_foreign, &r);
        if (status == 0)
            status = check_ends(st, s, prefix, last, &r);
        if (status != 0)
            goto said;
        arb_mirror_stats(mir, &ms);
        print_read(st, last, read, &ms, arb_clock_ms() - t0);
        if (ms.damaged_copies > 0)
            fprintf(stderr, "arbiter restore: the stream holds %" PRIu64
                    " further cop%s of events with the hash of the one "
                    "restored but other bytes: damaged, ignored (what was "
                    "restored verifies)\n", ms.damaged_copies,
                    ms.damaged_copies == 1 ? "y" : "ies");
        arb_mirror_free(mir);
        mir = NULL;
        arb_store_close(s);
        s = NULL;
        if (r.problems == 0 || attempt == RESTORE_READS)
            break;
        fprintf(stderr, "arbiter restore: read %d of at most %d found %"
                PRIu64 " match%s incomplete or not verifying; reading the "
                "stream again with a new consumer (one on a NATS replica "
                "whose copy differs from the leader's reads what the "
                "leader does not hold)\n", attempt, RESTORE_READS,
                r.problems, r.problems == 1 ? "" : "es");
        status = ops_target_clear("restore", tmp);
        if (status != 0)
            goto done;
        r.problems = 0;
        r.said.len = 0;
    }
said:
    if (foreign != 0)
        fprintf(stderr, "arbiter restore: skipped %" PRIu64 " message%s "
                "arbiter did not write; the first: %s\n", foreign,
                foreign == 1 ? "" : "s", arb_buf_cstr(&first_foreign));
    if (r.said.len > 0)
        fputs(arb_buf_cstr(&r.said), stderr);
    if (status != 0)
        goto done;
    if (r.problems != 0) {
        fprintf(stderr, "arbiter restore: the stream is incomplete or does "
                "not verify (%" PRIu64 " matches named above): nothing was "
                "restored; the verified part is in %s\n", r.problems, tmp);
        made = 0;           /* kept to be looked at, as said */
        status = CLI_DIFFERS;
        goto done;
    }
    /* A prefix no match has is a mistyped one far more often than a
     * recorder that recorded nothing: an empty store committed with the
     * advice to start a recorder on it would hide the mistake. */
    if (prefix != NULL && ms.opens == 0) {
        fprintf(stderr, "arbiter restore: no match in the stream starts "
                "with '%s' (%" PRIu64 " messages read): nothing was "
                "restored\n", prefix, read);
        status = CLI_DIFFERS;
        goto done;
    }
    status = CLI_ERROR;
    if (ops_check_dir("restore", tmp, stdout, "restored: ", &got) != 0)
        goto done;
    if (ops_path(lock, tmp, "lock.mdb") == 0)
        unlink(lock);
    if (got.problems != 0) {
        if (ms.chain_only != 0 && keyfile == NULL)
            fprintf(stderr, "arbiter restore: running dealt matches need "
                    "their deal secrets: give the replication key with "
                    "--key FILE\n");
        fprintf(stderr, "arbiter restore: the restored store does not "
                "verify; it was left in %s\n", tmp);
        made = 0;           /* kept to be looked at, as said */
        status = CLI_DIFFERS;
        goto done;
    }
    /* Every event restored came from the stream: the recorder started on
     * DIR publishes none of them again, nor asks the stream about each
     * match (its first pass still compares every one). */
    if (write_cursor(tmp, got.log_pos) != 0)
        goto done;
    if (ops_target_commit("restore", dir, tmp, exists) != 0)
        goto done;
    ops_summary_print(stdout, dir, &got);
    printf("start the recorder with: arbiterd --data %s\n", dir);
    status = CLI_OK;
done:
    arb_mirror_free(mir);
    arb_store_close(s);
    if (status != CLI_OK && made)
        ops_target_abort("restore", tmp);
    arb_stream_close(st);
    nats_Close();
    arb_buf_free(&why);
    arb_buf_free(&first_foreign);
    arb_buf_free(&r.said);
    free(r.fs);
    memset(key, 0, sizeof(key));
    return status;
}
