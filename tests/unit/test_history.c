/*
 * test_history.c - one history, whatever it was read from: a transcript,
 * the store (a data directory) and an audit bundle fill the same
 * arb_history_t with the same events, and arb_history_replay() gives the
 * same digest from each.  A dealt match is stored as the daemon stores it
 * (the commitment in the log, "<kind> <secret>" beside it) and revealed by
 * the replay.  Also: the stored secret's one format, and the loader's
 * refusal of events out of place.  (The server fills it through the same
 * arb_history_add(); tests/integration/sources.sh checks that path.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/codec.h"
#include "core/deal.h"
#include "core/err.h"
#include "core/ledger/bundle.h"
#include "core/ledger/chain.h"
#include "core/ledger/history.h"
#include "core/ledger/store.h"
#include "core/transcript.h"
#include "tests/replay_text.h"
#include "tests/test.h"

static char base[64], dbdir[96];

/* Records a transcript as the daemon does: the events stamped and
 * canonically encoded; a deal replaced by its commitment, its secret kept
 * beside the log in the one stored format. */
static int
record_as(arb_store_t *s, const arb_history_t *t, int keep_secret)
{
    arb_append_t ap[512];
    arb_buf_t    bytes[512], sec = ARB_BUF_INIT, stored = ARB_BUF_INIT;
    arb_buf_t    why = ARB_BUF_INIT;
    arb_event_t  open;
    const char  *kind;
    size_t       i, n = t->nevents + 1;
    int          rc;

    if (n > 512 || arb_event_copy(&open, &t->open) != 0)
        return -1;
    if (open.setup->deal.kind != ARB_DEAL_NONE) {
        CHECK_INT(arb_deal_secret(&open.setup->deal, &sec, &kind), 0);
        CHECK_INT(arb_deal_commit(&open.setup->deal, &kind), 0);
        arb_deal_stored_format(&stored, kind, arb_buf_cstr(&sec));
    }
    memset(ap, 0, sizeof(ap));
    memset(bytes, 0, sizeof(bytes));
    for (i = 0; i < n; i++) {
        const arb_event_t *ev = i == 0 ? &open : &t->events[i - 1];
        CHECK_INT(arb_event_encode(&bytes[i], ev), 0);
        ap[i].match_id = t->open.setup->match_id;
        ap[i].game = i == 0 ? t->open.setup->game : NULL;
        ap[i].seq = i;
        ap[i].time_ms = 1700000000000 + (int64_t)i;
        ap[i].bytes = bytes[i].data;
        ap[i].len = bytes[i].len;
        ap[i].closes = ev->kind == ARB_EV_CLOSE;
        ap[i].secret = i == 0 && keep_secret ? arb_buf_cstr(&stored)
                                             : NULL;
    }
    rc = arb_store_append_batch(s, ap, n, &why);
    if (rc != 0)
        fprintf(stderr, "append: %s\n", arb_buf_cstr(&why));
    for (i = 0; i < n; i++)
        arb_buf_free(&bytes[i]);
    arb_event_clear(&open);
    arb_buf_free(&sec);
    arb_buf_free(&stored);
    arb_buf_free(&why);
    return rc;
}

static int
record(arb_store_t *s, const arb_history_t *t)
{
    return record_as(s, t, 1);
}

static void
digest_of(arb_history_t *h, unsigned char d[ARB_HASH_LEN])
{
    arb_match_t  *m = NULL;
    arb_verdict_t v;
    size_t        bad;

    memset(d, 0, ARB_HASH_LEN);
    CHECK_INT(arb_history_replay(h, UINT64_MAX, &m, &bad, &v), 0);
    if (m != NULL)
        arb_match_digest(m, d);
    arb_match_free(m);
}

/* Two histories hold the same events, line for line. */
static void
check_same(const arb_history_t *a, const arb_history_t *b)
{
    arb_buf_t la = ARB_BUF_INIT, lb = ARB_BUF_INIT;
    size_t    i;

    CHECK(a->has_open && b->has_open);
    CHECK_INT(a->nevents, b->nevents);
    for (i = 0; i < a->nevents && i < b->nevents; i++) {
        la.len = lb.len = 0;
        arb_transcript_event_line(&la, &a->events[i]);
        arb_transcript_event_line(&lb, &b->events[i]);
        CHECK_STR(arb_buf_cstr(&la), arb_buf_cstr(&lb));
        CHECK_INT(a->events[i].seq, i + 1);
    }
    arb_buf_free(&la);
    arb_buf_free(&lb);
}

/* One transcript through every source: same history, same digest. */
static void
test_sources(arb_store_t *s, const char *path)
{
    arb_history_t t, d, b;
    arb_bundle_t  bun;
    arb_buf_t     why = ARB_BUF_INIT;
    unsigned char dt[ARB_HASH_LEN], dd[ARB_HASH_LEN], db[ARB_HASH_LEN];
    unsigned char head[ARB_HASH_LEN];
    char         *text = slurp(path);
    const char   *id;
    size_t        i;
    int           dealt;

    memset(&t, 0, sizeof(t));
    memset(&d, 0, sizeof(d));
    memset(&b, 0, sizeof(b));
    memset(&bun, 0, sizeof(bun));
    CHECK(text != NULL);
    if (text == NULL)
        return;
    CHECK_INT(arb_transcript_parse(&t, text, strlen(text), &why), 0);
    id = t.open.setup->match_id;
    dealt = t.open.setup->deal.kind != ARB_DEAL_NONE;
    CHECK(t.recs == NULL && t.lines != NULL);
    CHECK_INT(record(s, &t), 0);

    /* the data directory: the commitment plus the secret beside it */
    CHECK_INT(arb_history_load(&d, s, id, UINT64_MAX, &why), 0);
    check_same(&t, &d);
    CHECK(d.recs != NULL && d.lines == NULL);
    CHECK(dealt ? d.open.setup->deal.kind == ARB_DEAL_COMMIT
                  && d.secret != NULL : d.secret == NULL);
    /* every record as stored: the bytes chain to the stored hashes */
    for (i = 0; d.recs != NULL && i <= d.nevents; i++) {
        arb_chain_next(i == 0 ? NULL : head, d.recs[i].bytes, d.recs[i].len,
                       head);
        CHECK(d.recs[i].has_hash);
        CHECK_INT(d.recs[i].seq, i);
        CHECK(memcmp(head, d.recs[i].hash, ARB_HASH_LEN) == 0);
        CHECK_INT(d.recs[i].time_ms, 1700000000000 + (int64_t)i);
    }

    /* the bundle: the same bytes and hashes */
    CHECK_INT(arb_bundle_from_store(&bun, s, id, UINT64_MAX, &why), 0);
    CHECK_INT(bun.nmatches, 1);
    if (bun.nmatches == 1) {    /* a bundled match is a history */
        b = bun.matches[0];
        memset(&bun.matches[0], 0, sizeof(b));
    }
    CHECK(b.secret == NULL);    /* never the recorder's secret */
    check_same(&t, &b);
    for (i = 0; b.recs != NULL && d.recs != NULL && i <= b.nevents; i++) {
        CHECK_INT(b.recs[i].len, d.recs[i].len);
        CHECK(memcmp(b.recs[i].bytes, d.recs[i].bytes, d.recs[i].len) == 0);
        CHECK(memcmp(b.recs[i].hash, d.recs[i].hash, ARB_HASH_LEN) == 0);
        CHECK_INT(b.recs[i].seq, i);
    }

    /* one replay, one digest; the stored deal is revealed by it */
    digest_of(&t, dt);
    digest_of(&d, dd);
    CHECK(memcmp(dt, dd, ARB_HASH_LEN) == 0);
    if (dealt)
        CHECK(d.open.setup->deal.kind != ARB_DEAL_COMMIT);
    if (!dealt) {
        digest_of(&b, db);
        CHECK(memcmp(dt, db, ARB_HASH_LEN) == 0);
    }

    arb_history_clear(&t);
    arb_history_clear(&d);
    arb_history_clear(&b);
    arb_bundle_clear(&bun);
    arb_buf_free(&why);
    free(text);
}

/* The wrong secret is refused by the replay, with no match. */
static void
test_bad_secret(arb_store_t *s)
{
    arb_history_t d;
    arb_match_t  *m = (arb_match_t *)&d;
    arb_verdict_t v;
    arb_buf_t     why = ARB_BUF_INIT;
    size_t        bad;

    memset(&d, 0, sizeof(d));
    CHECK_INT(arb_history_load(&d, s, "CHAN-DRAW-1", UINT64_MAX, &why), 0);
    CHECK(d.secret != NULL);
    free(d.secret);
    d.secret = strdup("seed not-the-deal");
    CHECK_INT(arb_history_replay(&d, UINT64_MAX, &m, &bad, &v),
              ARB_ECRYPTO);
    CHECK(m == NULL);
    CHECK(strstr(v.msg, "does not match the deal committed") != NULL);
    free(d.secret);
    d.secret = strdup("malformed");
    CHECK_INT(arb_history_reveal(&d, &v), ARB_ECORRUPT);
    CHECK_STR(v.msg, "the stored deal secret is malformed");
    /* no secret: nothing to reveal; the replay judges what it can */
    free(d.secret);
    d.secret = NULL;
    CHECK_INT(arb_history_reveal(&d, &v), 0);
    CHECK(d.open.setup->deal.kind == ARB_DEAL_COMMIT);
    /* ... and the replay says, for every game alike, that no reader can
     * judge it before the close (not the rule set's words for a
     * transcript: Tsukurutenten's asked to "open the match with the seed
     * or an order") */
    CHECK(arb_history_sealed(&d));
    m = (arb_match_t *)&d;
    CHECK_INT(arb_history_replay(&d, UINT64_MAX, &m, &bad, &v),
              ARB_ESEALED);
    CHECK(m == NULL);
    CHECK_STR(v.rule, "deal");
    CHECK(strncmp(v.msg, "the match is dealt and still running: ", 38)
          == 0);
    arb_history_clear(&d);
    /* an unknown match */
    CHECK_INT(arb_history_load(&d, s, "NOPE", UINT64_MAX, &why),
              ARB_ENOTFOUND);
    arb_history_clear(&d);
    arb_buf_free(&why);
}

/* A store that kept no secret (a read replica without the replication
 * key): a running dealt match loads without one, a closed one with its
 * close's reveal as its secret, at every seq, so that it replays before
 * its close as the recorder's copy does (until 2026-12-05 a keyless
 * replica refused every state of a closed dealt match). */
static void
test_close_reveal(arb_store_t *s)
{
    static const char head[] = "game: chains\nmatch: %s\n"
        "teams: long short\nplayers: ann:long bob:short\ndeck: 36\n"
        "scoring: square\n"
        "deal: seed club-night-7\n\n"
        "1. place ann 7\xe2\x99\xa3 r0c0\n2. place bob 6\xe2\x99\xa0 "
        "r-1c0\n%s";
    arb_history_t t, c, d;
    arb_buf_t     why = ARB_BUF_INIT;
    unsigned char dt[ARB_HASH_LEN], dd[ARB_HASH_LEN];
    arb_match_t  *m = NULL;
    arb_verdict_t v;
    char          text[512];
    size_t        bad;
    uint64_t      upto;

    /* running: nothing reveals the deal */
    memset(&t, 0, sizeof(t));
    memset(&c, 0, sizeof(c));
    memset(&d, 0, sizeof(d));
    snprintf(text, sizeof(text), head, "KEYLESS-RUN", "");
    CHECK_INT(arb_transcript_parse(&t, text, strlen(text), &why), 0);
    CHECK_INT(record_as(s, &t, 0), 0);
    CHECK_INT(arb_history_load(&d, s, "KEYLESS-RUN", UINT64_MAX, &why), 0);
    CHECK(d.secret == NULL);
    CHECK_INT(arb_history_sealed(&d), 1);
    arb_history_clear(&t);
    arb_history_clear(&d);

    /* closed: the reveal, loaded whole and up to each seq before it; the
     * replay at each seq is the running transcript's (t) */
    snprintf(text, sizeof(text), head, "KEYLESS-CLOSED", "");
    CHECK_INT(arb_transcript_parse(&t, text, strlen(text), &why), 0);
    snprintf(text, sizeof(text), head, "KEYLESS-CLOSED",
             "3. close seed club-night-7 -- done\n");
    CHECK_INT(arb_transcript_parse(&c, text, strlen(text), &why), 0);
    CHECK_INT(record_as(s, &c, 0), 0);
    for (upto = 0; upto <= 3; upto++) {
        memset(&d, 0, sizeof(d));
        CHECK_INT(arb_history_load(&d, s, "KEYLESS-CLOSED",
                                   upto == 3 ? UINT64_MAX : upto, &why), 0);
        CHECK_STR(d.secret, "seed club-night-7");
        CHECK_INT(arb_history_sealed(&d), 0);
        if (upto == 3) {
            /* as a server sends it: no secret, the close reveals it */
            free(d.secret);
            d.secret = NULL;
            CHECK_INT(arb_history_sealed(&d), 0);
        }
        CHECK_INT(arb_history_replay(&d, UINT64_MAX, &m, &bad, &v), 0);
        CHECK(m != NULL && arb_match_closed(m) == (upto == 3));
        memset(dd, 0, sizeof(dd));
        if (m != NULL && upto < 3)
            arb_match_digest(m, dd);
        arb_match_free(m);
        m = NULL;
        arb_history_clear(&d);
        if (upto == 3)
            break;
        CHECK_INT(arb_history_replay(&t, upto, &m, &bad, &v), 0);
        memset(dt, 0, sizeof(dt));
        if (m != NULL)
            arb_match_digest(m, dt);
        arb_match_free(m);
        m = NULL;
        CHECK(memcmp(dt, dd, ARB_HASH_LEN) == 0);
    }
    arb_history_clear(&t);
    arb_history_clear(&c);
    arb_buf_free(&why);
}

/* The "<kind> <secret>" format: built and parsed in one place. */
static void
test_stored_format(void)
{
    arb_buf_t   b = ARB_BUF_INIT;
    char        kind[ARB_DEAL_KIND_MAX];
    const char *secret = NULL;

    arb_deal_stored_format(&b, "order", "9W 5W 2S");
    CHECK_STR(arb_buf_cstr(&b), "order 9W 5W 2S");
    CHECK_INT(arb_deal_stored_parse(arb_buf_cstr(&b), kind, &secret), 0);
    CHECK_STR(kind, "order");
    CHECK_STR(secret, "9W 5W 2S");
    CHECK_INT(arb_deal_stored_parse("seedonly", kind, &secret), ARB_EINVAL);
    CHECK_INT(arb_deal_stored_parse("muchtoolongkind x", kind, &secret),
              ARB_EINVAL);
    CHECK_INT(arb_deal_stored_parse(NULL, kind, &secret), ARB_EINVAL);
    arb_buf_free(&b);
}

/* Positions are trusted by replay: a gap, a second open or a seq that
 * disagrees with the event inside is refused, naming the seq. */
static void
test_out_of_place(void)
{
    const char   *text = "game: yahchain\nmatch: P1\nplayers: a b\n"
                         "mode: 3\n\n1. place a 2S\n2. place b 3S\n";
    arb_history_t t, h;
    arb_buf_t     why = ARB_BUF_INIT, enc[3];
    size_t        i;

    memset(&h, 0, sizeof(h));
    memset(enc, 0, sizeof(enc));
    CHECK_INT(arb_transcript_parse(&t, text, strlen(text), &why), 0);
    CHECK_INT(arb_event_encode(&enc[0], &t.open), 0);
    for (i = 0; i < 2; i++)
        CHECK_INT(arb_event_encode(&enc[i + 1], &t.events[i]), 0);
    /* an event before the open */
    CHECK_INT(arb_history_add(&h, 1, 0, NULL, enc[1].data, enc[1].len,
                              &why), ARB_ECORRUPT);
    CHECK_STR(arb_buf_cstr(&why), "seq 1: expected event 0 (the open), "
              "found a move event numbered 1");
    CHECK_INT(arb_history_add(&h, 0, 0, NULL, enc[0].data, enc[0].len,
                              &why), 0);
    /* a gap */
    CHECK_INT(arb_history_add(&h, 2, 0, NULL, enc[2].data, enc[2].len,
                              &why), ARB_ECORRUPT);
    /* the bytes of seq 2 offered as seq 1 */
    CHECK_INT(arb_history_add(&h, 1, 0, NULL, enc[2].data, enc[2].len,
                              &why), ARB_ECORRUPT);
    /* a second open */
    CHECK_INT(arb_history_add(&h, 1, 0, NULL, enc[0].data, enc[0].len,
                              &why), ARB_ECORRUPT);
    /* bytes that do not decode */
    CHECK(arb_history_add(&h, 1, 0, NULL, "\xc1", 1, &why) != 0);
    CHECK(strncmp(arb_buf_cstr(&why), "seq 1: ", 7) == 0);
    CHECK_INT(arb_history_add(&h, 1, 0, NULL, enc[1].data, enc[1].len,
                              &why), 0);
    CHECK_INT(arb_history_add(&h, 2, 0, NULL, enc[2].data, enc[2].len,
                              &why), 0);
    check_same(&t, &h);
    CHECK(h.recs != NULL && !h.recs[2].has_hash);
    /* a name for messages */
    CHECK_INT(arb_history_name(&h, "%s: match %s", "dir", "P1"), 0);
    CHECK_STR(h.source, "dir: match P1");
    arb_history_clear(&h);
    arb_history_clear(&h);      /* cleared twice: still fine */
    arb_history_clear(NULL);
    arb_history_clear(&t);
    for (i = 0; i < 3; i++)
        arb_buf_free(&enc[i]);
    arb_buf_free(&why);
}

/* A refused event: *bad names it, *out is the match before it. */
static void
test_refusal(void)
{
    const char   *text = "game: yahchain\nmatch: R1\nplayers: a b\n"
                         "mode: 3\n\n1. place a 2S\n2. place b 2S\n";
    arb_history_t t;
    arb_buf_t     why = ARB_BUF_INIT;
    arb_match_t  *m = NULL;
    arb_verdict_t v;
    size_t        bad = 99;

    CHECK_INT(arb_transcript_parse(&t, text, strlen(text), &why), 0);
    CHECK(arb_history_replay(&t, UINT64_MAX, &m, &bad, &v) != 0);
    CHECK_INT(bad, 1);
    CHECK(m != NULL && arb_match_next_seq(m) == 2);
    arb_match_free(m);
    /* stopping before the refused event replays cleanly */
    CHECK_INT(arb_history_replay(&t, 1, &m, &bad, &v), 0);
    arb_match_free(m);
    arb_history_clear(&t);
    arb_buf_free(&why);
}

int
main(void)
{
    arb_store_t *s = NULL;
    arb_buf_t    why = ARB_BUF_INIT;
    char         cmd[160];

    snprintf(base, sizeof(base), "/tmp/arb-history-XXXXXX");
    if (mkdtemp(base) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(dbdir, sizeof(dbdir), "%s/db", base);
    CHECK_INT(arb_store_open(&s, dbdir, NULL, &why), 0);
    test_sources(s, "tests/data/yah3-short.txt");
    test_sources(s, "tests/data/chan-draw.txt");            /* order */
    test_sources(s, "tests/data/chains-seed-match.txt");    /* order */
    test_sources(s, "tests/data/chains-1v1-36-square.txt"); /* seed */
    test_bad_secret(s);
    test_close_reveal(s);
    test_stored_format();
    test_out_of_place();
    test_refusal();
    arb_store_close(s);
    arb_buf_free(&why);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", base);
    return TEST_END();
}
