/*
 * test_match_copy.c - arb_match_copy, the copy a recorder judges a move
 * on instead of replaying the match's history (daemon/op_judge.c): for
 * every event of a transcript of each rule set (rulings, claims, refused
 * moves and the close included), a copy of the match as it stood has its
 * digest, report and results; the event applied to the match leaves the
 * copy as it was; applied to the copy, it gets the same verdict and
 * leaves the copy equal to the match.  Under ASan (make asan) a copy that
 * shared memory with its match would be a use after free.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/board.h"
#include "core/err.h"
#include "core/json.h"
#include "core/ledger/history.h"
#include "core/match.h"
#include "core/transcript.h"
#include "tests/replay_text.h"
#include "tests/test.h"

/* Everything a reader sees of m: digest, report for every seat, and the
 * results (records with their claim statuses, and totals). */
static char *
seen(const arb_match_t *m)
{
    unsigned char d[ARB_HASH_LEN];
    arb_results_t res;
    json_t       *o = json_object(), *recs = json_array();
    char         *s, hex[2 * ARB_HASH_LEN + 1];
    size_t        i;

    arb_match_digest(m, d);
    for (i = 0; i < ARB_HASH_LEN; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
    json_object_set_new(o, "digest", json_string(hex));
    json_object_set_new(o, "state", arb_match_describe_value(m, ~0u));
    json_object_set_new(o, "public", arb_match_describe_value(m, 0));
    memset(&res, 0, sizeof(res));
    if (arb_match_results(m, &res) == 0) {
        for (i = 0; i < res.nrecords; i++)
            json_array_append_new(recs,
                                  arb_json_record_value(&res.records[i]));
        for (i = 0; i < res.ntotals; i++)
            json_array_append_new(recs, json_integer(res.totals[i].points));
    }
    arb_results_clear(&res);
    json_object_set_new(o, "results", recs);
    json_object_set_new(o, "seq", json_integer((json_int_t)
                                               arb_match_next_seq(m)));
    json_object_set_new(o, "closed", json_boolean(arb_match_closed(m)));
    /* what the director's board reads, which a copy must know without
     * the moves (until 2026-12-06 it did not: a note was a move, and a
     * voided move's request stayed open) */
    {
        uint64_t useq = 0;
        int      st = arb_board_status(m, &useq);

        json_object_set_new(o, "board", json_integer(st));
        json_object_set_new(o, "undo_seq", json_integer((json_int_t)useq));
    }
    s = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return s;
}

static int
is_ruling(const arb_event_t *ev)
{
    return ev->kind == ARB_EV_VOID || ev->kind == ARB_EV_AMEND
           || ev->kind == ARB_EV_STANDS;
}

/* Walks path's events, copying the match before each; returns the events
 * the match refused (a corpus holds some on purpose). */
static int
walk(const char *path, int *copies_judged)
{
    char         *text = slurp(path);
    arb_history_t h;
    arb_buf_t     why = ARB_BUF_INIT;
    arb_match_t  *m = NULL, *c;
    arb_verdict_t v, vc;
    size_t        i, bad;
    int           refused = 0, rc, rcc;

    CHECK(text != NULL);
    if (text == NULL)
        return -1;
    rc = arb_transcript_parse(&h, text, strlen(text), &why);
    CHECK_INT(rc, 0);
    if (rc != 0) {
        fprintf(stderr, "%s: %s\n", path, arb_buf_cstr(&why));
        free(text);
        arb_buf_free(&why);
        return -1;
    }
    CHECK_INT(arb_history_replay(&h, 0, &m, &bad, &v), 0);
    for (i = 0; m != NULL && i < h.nevents; i++) {
        arb_event_t ev = h.events[i];
        char       *before, *after, *copy_before, *copy_after;

        ev.seq = 0;                 /* a refused event shifts the rest */
        rc = arb_match_copy(m, &c);
        CHECK_INT(rc, 0);
        if (rc != 0)
            break;
        CHECK(arb_match_is_lean(c));
        before = seen(m);
        rc = arb_match_apply(m, &ev, &v);
        refused += rc != 0;
        /* the match moved on; its copy did not */
        copy_before = seen(c);
        CHECK_STR(copy_before, before);
        rcc = arb_match_apply(c, &ev, &vc);
        if (is_ruling(&ev)) {
            /* a ruling rebuilds from the moves a copy does not keep: it
             * is not judged on one, even one the match refuses */
            CHECK_INT(rcc, ARB_EAGAIN);
        } else {
            CHECK_INT(rcc, rc);
            if (rc != 0 && rcc == rc)
                CHECK_STR(vc.msg, v.msg);
            after = seen(m);
            copy_after = seen(c);
            CHECK_STR(copy_after, after);
            free(after);
            free(copy_after);
            (*copies_judged)++;
        }
        free(before);
        free(copy_before);
        arb_match_free(c);
    }
    arb_match_free(m);
    arb_history_clear(&h);
    arb_buf_free(&why);
    free(text);
    return refused;
}

/* The board's reading of tests/data/yah3-undo-board.txt after each
 * event, from the match that keeps its moves and from a copy alike. */
static void
test_board(void)
{
    static const struct { int status; uint64_t undo; } want[] = {
        { ARB_BOARD_NOT_STARTED, 0 },   /* 1. a note is no move */
        { ARB_BOARD_PLAYING, 0 },
        { ARB_BOARD_PLAYING, 0 },
        { ARB_BOARD_UNDO, 3 },
        { ARB_BOARD_PLAYING, 0 },       /* 5. void 3 answers it */
        { ARB_BOARD_PLAYING, 0 },       /* 6. asked after the void */
        { ARB_BOARD_PLAYING, 0 },
        { ARB_BOARD_UNDO, 7 },
        { ARB_BOARD_PLAYING, 0 },       /* 9. declined */
        { ARB_BOARD_PLAYING, 0 },       /* 10. stands */
        { ARB_BOARD_UNDO, 10 },         /* 11. not answered by it */
    };
    char        *text = slurp("tests/data/yah3-undo-board.txt");
    arb_match_t *m, *c;
    uint64_t     at, useq;
    int          st;

    CHECK(text != NULL);
    for (at = 1; text != NULL && at <= 11; at++) {
        m = replay_text(text, at);
        CHECK(m != NULL);
        if (m == NULL)
            break;
        useq = 0;
        st = arb_board_status(m, &useq);
        if (st != want[at - 1].status || useq != want[at - 1].undo)
            fprintf(stderr, "board after seq %llu: %d (%llu)\n",
                    (unsigned long long)at, st, (unsigned long long)useq);
        CHECK_INT(st, want[at - 1].status);
        CHECK_INT(useq, want[at - 1].undo);
        CHECK_INT(arb_match_copy(m, &c), 0);
        if (c != NULL) {
            useq = 0;
            CHECK_INT(arb_board_status(c, &useq), want[at - 1].status);
            CHECK_INT(useq, want[at - 1].undo);
        }
        arb_match_free(c);
        arb_match_free(m);
    }
    free(text);
}

int
main(void)
{
    static const char *const files[] = {
        "tests/data/yah3-short.txt",
        "tests/data/yah3-cycles4.txt",
        "tests/data/yah3-stands-void.txt",
        "tests/data/yah3-undo-board.txt",
        "tests/fuzz/corpus/game/yah-claims.txt",
        "tests/fuzz/corpus/game/yah-rulings.txt",
        "tests/data/chains-1v1-36-square.txt",
        "tests/data/chains-3v3-52-sum.txt",
        "tests/data/chains-seed-match.txt",
        "tests/data/tsuku-simple.txt",
        "tests/data/tsuku-extended.txt",
        "tests/data/tsuku-last-discard.txt",
        "tests/fuzz/corpus/game/tsuku-ruled.txt",
        "tests/data/chan-chiu-u.txt",
        "tests/data/chan-dead.txt",
        "tests/data/chan-declined-win.txt",
        "tests/data/chan-draw.txt",
        "tests/data/chan-u-chi-tom.txt",
        "tests/fuzz/corpus/game/tournament-tables.txt",
        "tests/fuzz/corpus/game/tournament-withdraw.txt",
    };
    size_t i;
    int    judged = 0, refused = 0, n;

    for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        n = walk(files[i], &judged);
        CHECK(n >= 0);
        if (n > 0)
            refused += n;
    }
    test_board();
    /* the corpus's refusals were judged on copies too */
    CHECK(refused > 0);
    CHECK(judged > 500);
    printf("%d events judged on copies, %d of them refused\n", judged,
           refused);
    return TEST_END();
}
