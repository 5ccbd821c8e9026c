/*
 * test_view.c - core/view.h: a match's report and events as each viewer
 * sees them (docs/VIEWS.md), over every recorded match in tests/data.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/codec.h"
#include "core/deal.h"
#include "core/err.h"
#include "core/ledger/history.h"
#include "core/replay.h"
#include "core/transcript.h"
#include "core/view.h"
#include "tests/replay_text.h"
#include "tests/test.h"

static const char *const files[] = {
    "tests/data/tsuku-simple.txt", "tests/data/tsuku-extended.txt",
    "tests/data/chan-u-chi-tom.txt", "tests/data/chan-chiu-u.txt",
    "tests/data/chan-draw.txt", "tests/data/chan-dead.txt",
    "tests/data/chains-1v1-36-square.txt", "tests/data/chains-3v3-52-sum.txt",
    "tests/data/yah3-short.txt",
};

static int
load(arb_history_t *h, const char *file)
{
    static char text[1 << 17];
    FILE       *f = fopen(file, "r");
    size_t      len;
    arb_buf_t   why = ARB_BUF_INIT;
    int         rc;

    memset(h, 0, sizeof(*h));
    if (f == NULL)
        return -1;
    len = fread(text, 1, sizeof(text), f);
    fclose(f);
    rc = arb_transcript_parse(h, text, len, &why);
    if (rc != 0)
        fprintf(stderr, "%s: %s\n", file, arb_buf_cstr(&why));
    arb_buf_free(&why);
    return rc;
}

/* How many times needle occurs in hay. */
static size_t
count(const char *hay, const char *needle)
{
    size_t n = 0;

    while ((hay = strstr(hay, needle)) != NULL) {
        n++;
        hay++;
    }
    return n;
}

/* Removes every ,"hand_cards":[...] from s in place. */
static void
strip_hand_cards(char *s)
{
    char *p, *e;

    while ((p = strstr(s, ",\"hand_cards\":[")) != NULL
           && (e = strchr(p, ']')) != NULL)
        memmove(p, e + 1, strlen(e + 1) + 1);
}

/* At every seq of every recorded match: the public and arbiter views are
 * the canonical report byte for byte; a seat's view adds its own hand and
 * nothing else; the hands view adds every hand. */
static void
test_reports(void)
{
    arb_history_t h;
    arb_match_t  *m;
    arb_verdict_t v;
    arb_buf_t     canon = ARB_BUF_INIT, b = ARB_BUF_INIT,
                  pubcanon = ARB_BUF_INIT;
    size_t        i, bad, lists;
    uint64_t      at;
    unsigned      k, nseats;

    for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        CHECK_INT(load(&h, files[i]), 0);
        nseats = (unsigned)h.open.setup->nplayers;
        for (at = 0; at <= h.nevents; at++) {
            m = NULL;
            if (arb_history_replay(&h, at, &m, &bad, &v) != 0) {
                CHECK(!"replay");
                arb_match_free(m);
                break;
            }
            canon.len = 0;
            CHECK_INT(arb_report_json(&canon, m), 0);
            /* the digest, for those who do not see every hand, only
             * once the match is closed */
            pubcanon.len = 0;
            arb_buf_puts(&pubcanon, arb_buf_cstr(&canon));
            CHECK(arb_buf_cstr(&pubcanon) != NULL);     /* ends it */
            if (game_hides(h.open.setup->game) && !arb_match_closed(m))
                digest_to_null(pubcanon.data);
            pubcanon.len = strlen(pubcanon.data);
            {
                arb_viewer_t pub = { ARB_VIEW_PUBLIC, 0 };
                arb_viewer_t all = { ARB_VIEW_ALL, 0 };
                b.len = 0;
                CHECK_INT(arb_view_report(&b, m, 0, &pub), 0);
                CHECK_STR(arb_buf_cstr(&b), arb_buf_cstr(&pubcanon));
                /* a match closed now: its state at any seq comes with
                 * the digest, as everyone may replay it then (it was
                 * null at every seq before the close) */
                b.len = 0;
                CHECK_INT(arb_view_report(&b, m, 1, &pub), 0);
                CHECK_STR(arb_buf_cstr(&b), arb_buf_cstr(&canon));
                b.len = 0;
                CHECK_INT(arb_view_report(&b, m, 0, &all), 0);
                CHECK_STR(arb_buf_cstr(&b), arb_buf_cstr(&canon));
            }
            lists = 0;
            for (k = 0; k < nseats; k++) {
                arb_viewer_t seat = { ARB_VIEW_SEAT, k };
                b.len = 0;
                CHECK_INT(arb_view_report(&b, m, 0, &seat), 0);
                /* YAHchain hides nothing; Chains lists a seat's hands */
                lists = count(arb_buf_cstr(&b), "\"hand_cards\":[");
                CHECK(strcmp(h.open.setup->game, "yahchain") == 0
                      ? lists == 0 : lists >= 1);
                strip_hand_cards(b.data);
                CHECK_STR(b.data, arb_buf_cstr(&pubcanon));
            }
            {
                arb_viewer_t hands = { ARB_VIEW_HANDS, 0 };
                b.len = 0;
                CHECK_INT(arb_view_report(&b, m, 0, &hands), 0);
                lists = count(arb_buf_cstr(&b), "\"hand_cards\":[");
                CHECK(strcmp(h.open.setup->game, "yahchain") == 0
                      ? lists == 0 : lists >= nseats);
                strip_hand_cards(b.data);
                CHECK_STR(b.data, arb_buf_cstr(&canon));
            }
            arb_match_free(m);
        }
        arb_history_clear(&h);
    }
    arb_buf_free(&canon);
    arb_buf_free(&pubcanon);
    arb_buf_free(&b);
}

/* The hand of a seat in the seat's view is the engine's: after ann's
 * first draw of tsuku-simple (B2 on top of the header's order) her eight
 * chips are the seven dealt plus B2. */
static void
test_seat_hand(void)
{
    arb_history_t h;
    arb_match_t  *m = NULL;
    arb_verdict_t v;
    arb_buf_t     b = ARB_BUF_INIT;
    arb_viewer_t  ann = { ARB_VIEW_SEAT, 0 }, bob = { ARB_VIEW_SEAT, 1 };
    size_t        bad;

    CHECK_INT(load(&h, "tests/data/tsuku-simple.txt"), 0);
    CHECK_INT(arb_history_replay(&h, 1, &m, &bad, &v), 0);
    CHECK_INT(arb_view_report(&b, m, 0, &ann), 0);
    CHECK(strstr(arb_buf_cstr(&b), "\"name\":\"ann\",\"points\":0,\"hand\":8,"
                 "\"hand_cards\":[\"B1\",\"B2\",\"B2\",\"B3\",\"R1\",\"R4\","
                 "\"R5\",\"R6\"]") != NULL);
    CHECK(strstr(arb_buf_cstr(&b), "\"name\":\"bob\",\"points\":0,"
                 "\"hand\":7,\"open_sets\"") != NULL);
    b.len = 0;
    CHECK_INT(arb_view_report(&b, m, 0, &bob), 0);
    CHECK(strstr(arb_buf_cstr(&b), "\"name\":\"bob\",\"points\":0,\"hand\":7,"
                 "\"hand_cards\":[\"B7\",\"B7\",\"B7\",\"R7\",\"R7\",\"R7\","
                 "\"P8\"]") != NULL);
    CHECK_INT(count(arb_buf_cstr(&b), "hand_cards"), 1);
    arb_match_free(m);
    arb_history_clear(&h);
    arb_buf_free(&b);
}

static void
move(arb_event_t *ev, int kind, const char *verb, const char *player,
     const char *const *args)
{
    memset(ev, 0, sizeof(*ev));
    ev->kind = kind;
    ev->seq = 5;
    ev->verb = strdup(verb);
    ev->player = strdup(player);
    while (args != NULL && *args != NULL)
        arb_event_add_arg(ev, *args++);
}

/* Which move arguments each viewer gets, open and after the close. */
static void
test_events(void)
{
    arb_history_t h;
    arb_event_t   ev, out, back;
    arb_buf_t     bytes = ARB_BUF_INIT, seen = ARB_BUF_INIT;
    const arb_setup_t *s;
    arb_viewer_t  pub = { ARB_VIEW_PUBLIC, 0 }, ann = { ARB_VIEW_SEAT, 0 },
                  bob = { ARB_VIEW_SEAT, 1 }, all = { ARB_VIEW_ALL, 0 };
    const char   *chip[] = { "B2", NULL };
    const char   *deal[] = { "B1B1B1B1B2B2B2", "B2B3", NULL };

    CHECK_INT(load(&h, "tests/data/tsuku-simple.txt"), 0);
    s = h.open.setup;
    move(&ev, ARB_EV_MOVE, "draw", "ann", chip);
    CHECK_INT(arb_view_event(&out, &ev, s, 0, &pub), 1);
    CHECK(out.nargs == 0 && strcmp(out.verb, "draw") == 0
          && strcmp(out.player, "ann") == 0);
    arb_event_clear(&out);
    CHECK_INT(arb_view_event(&out, &ev, s, 0, &ann), 0);
    CHECK(out.nargs == 1 && strcmp(out.args[0], "B2") == 0);
    arb_event_clear(&out);
    CHECK_INT(arb_view_event(&out, &ev, s, 0, &bob), 1);
    CHECK_INT(out.nargs, 0);
    arb_event_clear(&out);
    CHECK_INT(arb_view_event(&out, &ev, s, 0, &all), 0);
    CHECK_INT(out.nargs, 1);
    arb_event_clear(&out);
    /* the close reveals everything to everyone */
    CHECK_INT(arb_view_event(&out, &ev, s, 1, &pub), 0);
    CHECK_INT(out.nargs, 1);
    arb_event_clear(&out);
    /* the bytes: re-encoded without the chip, or left alone */
    CHECK_INT(arb_event_encode(&bytes, &ev), 0);
    CHECK_INT(arb_view_event_bytes(&seen, bytes.data, bytes.len, s, 0, &pub),
              1);
    CHECK_INT(arb_event_decode(&back, seen.data, seen.len, NULL), 0);
    CHECK(back.nargs == 0 && back.seq == 5 && strcmp(back.verb, "draw") == 0);
    arb_event_clear(&back);
    seen.len = 0;
    CHECK_INT(arb_view_event_bytes(&seen, bytes.data, bytes.len, s, 0, &ann),
              0);
    CHECK_INT(seen.len, 0);
    /* after the close the bytes go out as recorded, to anyone */
    CHECK_INT(arb_view_event_bytes(&seen, bytes.data, bytes.len, s, 1, &pub),
              0);
    CHECK_INT(seen.len, 0);
    CHECK_INT(arb_view_event_bytes(&seen, "\xc1", 1, s, 0, &pub),
              ARB_EPROTO);
    arb_event_clear(&ev);

    /* a ruling's move hides what the move would */
    move(&ev, ARB_EV_STANDS, "draw", "bob", chip);
    CHECK_INT(arb_view_event(&out, &ev, s, 0, &ann), 1);
    CHECK_INT(out.nargs, 0);
    arb_event_clear(&out);
    arb_event_clear(&ev);

    /* a deal move: nobody's, not even the dealer's */
    move(&ev, ARB_EV_MOVE, "deal", "ann", deal);
    CHECK_INT(arb_view_event(&out, &ev, s, 0, &ann), 1);
    CHECK_INT(out.nargs, 0);
    arb_event_clear(&out);
    arb_event_clear(&ev);

    /* public moves stay whole */
    move(&ev, ARB_EV_MOVE, "discard", "ann", chip);
    CHECK_INT(arb_view_event(&out, &ev, s, 0, &pub), 0);
    CHECK_INT(out.nargs, 1);
    arb_event_clear(&out);
    arb_event_clear(&ev);

    /* an open with its deal in the clear keeps only the commitment */
    {
        const char *kind;

        CHECK_INT(h.open.setup->deal.kind, ARB_DEAL_ORDER);
        CHECK_INT(arb_view_event(&out, &h.open, s, 0, &pub), 1);
        CHECK_INT(out.setup->deal.kind, ARB_DEAL_COMMIT);
        CHECK_INT(out.setup->deal.ncards, 0);
        {
            arb_setup_t cp;
            CHECK_INT(arb_setup_copy(&cp, h.open.setup), 0);
            CHECK_INT(arb_deal_commit(&cp.deal, &kind), 0);
            CHECK(memcmp(cp.deal.seed_hash, out.setup->deal.seed_hash,
                         ARB_HASH_LEN) == 0);
            arb_setup_clear(&cp);
        }
        arb_event_clear(&out);
        CHECK_INT(arb_view_event(&out, &h.open, s, 0, &all), 0);
        CHECK_INT(out.setup->deal.kind, ARB_DEAL_ORDER);
        arb_event_clear(&out);
    }
    arb_history_clear(&h);

    /* a seeded deal too: the seed is the secret of every hand */
    CHECK_INT(load(&h, "tests/data/chains-1v1-36-square.txt"), 0);
    CHECK_INT(h.open.setup->deal.kind, ARB_DEAL_SEED);
    CHECK_INT(arb_view_event(&out, &h.open, h.open.setup, 0, &pub), 1);
    CHECK_INT(out.setup->deal.kind, ARB_DEAL_COMMIT);
    arb_event_clear(&out);
    CHECK_INT(arb_view_event(&out, &h.open, h.open.setup, 0, &all), 0);
    CHECK_INT(out.setup->deal.kind, ARB_DEAL_SEED);
    arb_event_clear(&out);
    arb_history_clear(&h);

    /* Chắn: a drawn card is flipped face up, for everyone */
    CHECK_INT(load(&h, "tests/data/chan-u-chi-tom.txt"), 0);
    move(&ev, ARB_EV_MOVE, "draw", "binh", (const char *[]){ "2W", NULL });
    CHECK_INT(arb_view_event(&out, &ev, h.open.setup, 0, &pub), 0);
    CHECK_INT(out.nargs, 1);
    arb_event_clear(&out);
    arb_event_clear(&ev);
    arb_history_clear(&h);
    arb_buf_free(&bytes);
    arb_buf_free(&seen);
}

/* The JSON of an event, as `arbiter events --json` prints it, per viewer. */
static void
test_event_json(void)
{
    arb_history_t h;
    arb_event_t   ev;
    arb_buf_t     b = ARB_BUF_INIT;
    unsigned char hash[ARB_HASH_LEN];
    arb_viewer_t  pub = { ARB_VIEW_PUBLIC, 0 }, ann = { ARB_VIEW_SEAT, 0 },
                  all = { ARB_VIEW_ALL, 0 };
    const char   *chip[] = { "B2", NULL };

    memset(hash, 0xab, sizeof(hash));
    CHECK_INT(load(&h, "tests/data/tsuku-simple.txt"), 0);
    move(&ev, ARB_EV_MOVE, "draw", "ann", chip);
    ev.actor = strdup("table-1");
    CHECK_INT(arb_view_event_json(&b, "TT-1", 5, 1764583200123LL, hash, &ev,
                                  h.open.setup, 0, &pub), 0);
    CHECK_STR(arb_buf_cstr(&b), "{\"match\":\"TT-1\",\"seq\":5,\"time\":"
              "\"2025-12-01T10:00:00.123Z\",\"time_ms\":1764583200123,"
              "\"actor\":\"table-1\",\"kind\":\"move\",\"line\":"
              "\"draw ann\",\"hash\":null}");
    b.len = 0;
    CHECK_INT(arb_view_event_json(&b, NULL, 5, 0, hash, &ev, h.open.setup, 0,
                                  &ann), 0);
    CHECK_STR(arb_buf_cstr(&b), "{\"seq\":5,\"time\":\"-\",\"time_ms\":0,"
              "\"actor\":\"table-1\",\"kind\":\"move\",\"line\":"
              "\"draw ann B2\",\"hash\":null}");
    b.len = 0;
    CHECK_INT(arb_view_event_json(&b, NULL, 5, 0, hash, &ev, h.open.setup, 0,
                                  &all), 0);
    CHECK(strstr(arb_buf_cstr(&b), "\"line\":\"draw ann B2\",\"hash\":"
                 "\"abababab") != NULL);
    b.len = 0;
    /* closed: everyone gets it whole, with its hash */
    CHECK_INT(arb_view_event_json(&b, NULL, 5, 0, hash, &ev, h.open.setup, 1,
                                  &pub), 0);
    CHECK(strstr(arb_buf_cstr(&b), "\"line\":\"draw ann B2\",\"hash\":"
                 "\"abababab") != NULL);
    arb_event_clear(&ev);
    arb_history_clear(&h);
    arb_buf_free(&b);
}

static void
test_hashes(void)
{
    arb_viewer_t pub = { ARB_VIEW_PUBLIC, 0 }, seat = { ARB_VIEW_SEAT, 0 },
                 all = { ARB_VIEW_ALL, 0 }, hands = { ARB_VIEW_HANDS, 0 };

    CHECK_INT(arb_view_hides_hashes("tsukurutenten", 0, &pub), 1);
    CHECK_INT(arb_view_hides_hashes("tsukurutenten", 0, &seat), 1);
    CHECK_INT(arb_view_hides_hashes("tsukurutenten", 1, &pub), 0);
    CHECK_INT(arb_view_hides_hashes("tsukurutenten", 0, &all), 0);
    CHECK_INT(arb_view_hides_hashes("tsukurutenten", 0, &hands), 0);
    CHECK_INT(arb_view_hides_hashes("chan", 0, &pub), 0);
    CHECK_INT(arb_view_hides_hashes("chains", 0, &pub), 0);
    CHECK_INT(arb_view_hides_hashes("yahchain", 0, &pub), 0);
    CHECK_INT(arb_view_seen(&pub), 0);
    CHECK_INT(arb_view_seen(&all), 0);
    CHECK_INT(arb_view_seen(&hands), ~0u);
    seat.seat = 3;
    CHECK_INT(arb_view_seen(&seat), 8);
    seat.seat = 31;
    CHECK_INT(arb_view_seen(&seat), 0x80000000u);
    /* no seat past the mask's bits: it sees no hand rather than another */
    seat.seat = 32;
    CHECK_INT(arb_view_seen(&seat), 0);
}

int
main(void)
{
    test_reports();
    test_seat_hand();
    test_events();
    test_event_json();
    test_hashes();
    return TEST_END();
}
