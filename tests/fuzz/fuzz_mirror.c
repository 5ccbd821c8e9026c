/*
 * fuzz_mirror.c - a store rebuilt from stream messages (proto/
 * stream_mirror.h: what a read replica and `arbiter restore` do with the
 * stream), fed in any order, any number of times, with forged copies, deal
 * messages and flushes in between.  No server: the messages are made with
 * the publisher's own layout from three transcripts (two plain matches
 * and one dealt one), then chosen and spoiled by the input.
 *
 * The input is a script, two bytes an operation:
 *   op % 8 = 0..3  an event: match arg % 3, seq (arg / 3) % its length
 *            4     the dealt match's deal message (arg odd: a forged one,
 *                  sealed under another key)
 *            5     an event with a flipped byte in its hash or payload
 *            6     arb_mirror_flush
 *            7     arb_mirror_finish (the end of a restore)
 * The first byte chooses whether the mirror has the replication key (bit
 * 0) and what its out-of-order deal lookup answers (bits 1-2, % 4: no
 * lookup, the real deal, a forged one, nothing found).
 *
 * Invariants: an apply and a flush never fail (the store is healthy);
 * until arb_mirror_finish, a match is stopped only by a spoiled message
 * of its own or a forged deal (a real event read again, flushed or not,
 * is a duplicate: until 2026-12-04 one read twice before its commit was
 * taken for a fork);
 * where a restart would read from is a sequence read, or the next one;
 * after arb_mirror_finish and a flush nothing is held back; every chain
 * in the store verifies; each match holds a prefix of its real events
 * with their real hashes, never a forged one; a stored deal secret is the
 * real one, and only with the key, as is one the mirror holds in memory
 * (arb_mirror_secret, also whenever it says a match is judged with a
 * late deal); a lookup is asked at most once, and
 * when it finds the real deal a stored dealt match not stopped has its
 * secret.
 *
 * Corpus: tests/fuzz/corpus/mirror.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "core/err.h"
#include "core/hash.h"
#include "core/ledger/store.h"
#include "core/shuffle.h"
#include "proto/stream.h"
#include "proto/stream_mirror.h"
#include "tests/fuzz/fuzz.h"
#include "tests/stream_msgs.h"

#define NM      3
#define OPS_MAX 256

static const char *const ids[NM] = { "T-1", "T-2", "D-1" };
static msgs_t            ms[NM];
static unsigned char     key[ARB_STREAM_KEY_LEN], other_key[ARB_STREAM_KEY_LEN];
static const char       *secret = "seed table-7";
static char              root[64];
static int               ready;

static void
cleanup(void)
{
    rmdir(root);
}

static void
setup(void)
{
    unsigned char h[ARB_HASH_LEN];
    char          hex[ARB_HASH_HEX], text[512];

    FUZZ_CHECK(nats_Open(-1) == NATS_OK);
    FUZZ_CHECK(sodium_init() >= 0);
    make(&ms[0], "game: yahchain\nmatch: T-1\nplayers: alice bob\nmode: 3\n\n"
         "1. place alice 4♠\n2. place bob 5♥\n3. place alice 6♦\n"
         "4. place bob 7S\n5. note page 1 ends\n6. close -- time called\n");
    make(&ms[1], "game: yahchain\nmatch: T-2\nplayers: ann bob\nmode: 3\n\n"
         "1. place ann 4♠\n2. note half time\n");
    arb_seed_hash(h, "table-7", 7);
    arb_hex(hex, h, ARB_HASH_LEN);
    snprintf(text, sizeof(text), "game: tsukurutenten\nmatch: D-1\nplayers: "
             "ann bob\ndeal: commit %s\n\n1. note first\n2. note second\n",
             hex);
    make(&ms[2], text);
    memset(key, 7, sizeof(key));
    memset(other_key, 9, sizeof(other_key));
    snprintf(root, sizeof(root), "/tmp/arbfuzzmirror.XXXXXX");
    FUZZ_CHECK(mkdtemp(root) != NULL);
    atexit(cleanup);
    ready = 1;
}

/* Event seq of match k as the publisher makes it; spoil 1 flips a byte of
 * the hash, 2 one of the payload. */
static void
event_msg(arb_stream_msg_t *m, int k, uint64_t seq, int spoil, unsigned at,
          uint64_t sseq)
{
    unsigned char hash[ARB_HASH_LEN], bytes[1024];
    size_t        len = ms[k].len[seq];
    natsMsg      *nm = NULL;

    memcpy(hash, ms[k].hash[seq], ARB_HASH_LEN);
    memcpy(bytes, ms[k].bytes[seq], len);
    if (spoil == 1)
        hash[at % ARB_HASH_LEN] ^= 0x01;
    if (spoil == 2)
        bytes[at % len] ^= 0x20;
    FUZZ_CHECK(arb_stream_ev_msg(&nm, ids[k], seq, hash, "east", bytes, len)
               == 0);
    FUZZ_CHECK(arb_stream_msg_parse(m, nm, NULL) == 0);
    m->stream_seq = sseq;
}

/* The out-of-order deal lookup (arb_mirror_on_deal): how 1 answers the
 * real deal, 2 one sealed under another key, 3 nothing found. */
typedef struct lookup { int how; int asked; } lookup_t;

static int
deal_of(void *ud, const char *match_id, arb_stream_msg_t *msg)
{
    lookup_t *lk = ud;
    natsMsg  *dm = NULL;

    lk->asked++;
    FUZZ_CHECK(strcmp(match_id, "D-1") == 0);
    if (lk->how == 3)
        return ARB_ENOTFOUND;
    FUZZ_CHECK(arb_stream_deal_msg(&dm, "D-1", secret, lk->how == 2
                                   ? other_key : key, "east") == 0);
    FUZZ_CHECK(arb_stream_msg_parse(msg, dm, NULL) == 0);
    msg->stream_seq = 1000000;
    return 0;
}

/* Told that D-1 is judged with a deal that came late: the mirror serves
 * the real deal then. */
static void
on_judged(void *ud, const char *match_id)
{
    arb_mirror_t *mir = ud;
    arb_buf_t     sec = ARB_BUF_INIT;

    FUZZ_CHECK(strcmp(match_id, "D-1") == 0);
    FUZZ_CHECK(arb_mirror_secret(mir, match_id, &sec) == 0);
    FUZZ_CHECK(strcmp(arb_buf_cstr(&sec) ? arb_buf_cstr(&sec) : "",
                      secret) == 0);
    arb_buf_free(&sec);
}

typedef struct seen { int k; uint64_t n; int bad; } seen_t;

static int
on_event(void *ud, uint64_t seq, int64_t t, const unsigned char *h,
         const void *bytes, size_t len)
{
    seen_t *sn = ud;

    (void)t;
    if (seq >= ms[sn->k].n || len != ms[sn->k].len[seq]
        || memcmp(bytes, ms[sn->k].bytes[seq], len) != 0
        || memcmp(h, ms[sn->k].hash[seq], ARB_HASH_LEN) != 0)
        sn->bad = 1;
    sn->n++;
    return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char             dir[96];
    arb_store_t     *s = NULL;
    arb_mirror_t    *mir = NULL;
    arb_stream_msg_t m;
    arb_match_info_t info;
    arb_buf_t        sec = ARB_BUF_INIT, why = ARB_BUF_INIT;
    natsMsg         *dm = NULL;
    lookup_t         lk = { 0, 0 };
    uint64_t         sseq = 1;
    size_t           i, ops = 0;
    int              has_key, k, finished = 0, spoiled[NM] = { 0 };

    if (!ready)
        setup();
    if (size < 1)
        return 0;
    has_key = data[0] & 1;
    lk.how = (data[0] >> 1) % 4;
    snprintf(dir, sizeof(dir), "%s/s", root);
    fuzz_rm_dir(dir);
    FUZZ_CHECK(mkdir(dir, 0700) == 0);
    FUZZ_CHECK(arb_store_open(&s, dir, NULL, NULL) == 0);
    FUZZ_CHECK(arb_mirror_open(&mir, s, has_key ? key : NULL, NULL, NULL)
               == 0);
    if (lk.how != 0)
        arb_mirror_on_deal(mir, deal_of, &lk);
    arb_mirror_on_judged(mir, on_judged, mir);
    for (i = 1; i + 1 < size && ops < OPS_MAX; i += 2, ops++) {
        unsigned op = data[i] % 8, arg = data[i + 1];

        switch (op) {
        case 4:
            FUZZ_CHECK(arb_stream_deal_msg(&dm, "D-1", secret, arg & 1
                                           ? other_key : key, "east") == 0);
            spoiled[2] |= arg & 1;
            FUZZ_CHECK(arb_stream_msg_parse(&m, dm, NULL) == 0);
            m.stream_seq = sseq++;
            FUZZ_CHECK(arb_mirror_apply(mir, &m, &why) == 0);
            break;
        case 5:
            k = (int)(arg % NM);
            spoiled[k] = 1;
            event_msg(&m, k, (arg / NM) % ms[k].n, 1 + (arg & 1), arg,
                      sseq++);
            FUZZ_CHECK(arb_mirror_apply(mir, &m, &why) == 0);
            break;
        case 6:
            FUZZ_CHECK(arb_mirror_flush(mir, &why) == 0);
            break;
        case 7:
            arb_mirror_finish(mir);
            finished = 1;
            break;
        default:
            k = (int)(arg % NM);
            event_msg(&m, k, (arg / NM) % ms[k].n, 0, 0, sseq++);
            FUZZ_CHECK(arb_mirror_apply(mir, &m, &why) == 0);
            break;
        }
        for (k = 0; k < NM && !finished; k++)
            FUZZ_CHECK(spoiled[k] || (k == 2 && lk.how == 2)
                       || !arb_mirror_stopped(mir, ids[k]));
        /* Where a restart would read from: a message read so far. */
        FUZZ_CHECK(arb_mirror_resume_seq(mir) >= 1
                   && arb_mirror_resume_seq(mir) <= sseq);
    }
    arb_mirror_finish(mir);
    FUZZ_CHECK(arb_mirror_flush(mir, &why) == 0);
    FUZZ_CHECK(arb_mirror_held(mir) == 0);
    FUZZ_CHECK(lk.asked <= 1 && (has_key || lk.asked == 0));
    FUZZ_CHECK(arb_store_verify(s, NULL, &why) == 0);
    for (k = 0; k < NM; k++) {
        seen_t sn = { k, 0, 0 };

        if (arb_store_match(s, ids[k], &info, NULL) != 0)
            continue;
        FUZZ_CHECK(info.count <= ms[k].n);
        FUZZ_CHECK(arb_store_events(s, ids[k], 0, info.last_seq, on_event,
                                    &sn, NULL) == 0);
        FUZZ_CHECK(!sn.bad && sn.n == info.count);
    }
    /* What the mirror serves from memory is the real deal too. */
    if (arb_mirror_secret(mir, "D-1", &sec) == 0) {
        FUZZ_CHECK(has_key);
        FUZZ_CHECK(strcmp(arb_buf_cstr(&sec), secret) == 0);
    }
    if (arb_store_secret(s, "D-1", &sec, NULL) == 0) {
        FUZZ_CHECK(has_key);
        FUZZ_CHECK(strcmp(arb_buf_cstr(&sec), secret) == 0);
    } else if (has_key && lk.how == 1 && !spoiled[2]
               && !arb_mirror_stopped(mir, "D-1")) {
        /* A lookup that finds the deal: the secret goes with the open
         * (a match stopped at a gap by the finish is not asked). */
        FUZZ_CHECK(arb_store_match(s, "D-1", &info, NULL) != 0);
    }
    arb_buf_free(&sec);
    arb_buf_free(&why);
    arb_mirror_free(mir);
    arb_store_close(s);
    fuzz_rm_dir(dir);
    return 0;
}
