/*
 * test_damaged_replay.c - a store whose events say another place than
 * their log record: an event numbered 2 stored as seq 1, a move
 * numbered 0 stored as a match's seq 0 (where its open belongs).
 *
 * The store does not decode what it appends, so the API writes such a
 * store; what reads it must refuse it rather than replay something else:
 * the replay of the whole store (arb_replay_all, replay_all.c) and a
 * match's history (arb_history_add, history.c), each naming the seq and
 * what it found there.  An open numbered past 0 cannot be stored: the
 * codec refuses to decode one (checked here), which is why the cases
 * are the two above.
 *
 * And a store holding a move the rules refuse (a recorder of another
 * engine version, or a store written by hand): `arbiter replay --db DIR`
 * over the whole store names the match and seq and exits 1, not 0 (what
 * a script checking a store after an engine change relies on).
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/codec.h"
#include "core/err.h"
#include "core/ledger/history.h"
#include "core/ledger/replay_all.h"
#include "core/ledger/store.h"
#include "tests/bench/bench.h"
#include "tests/store_scratch.h"
#include "tests/test.h"

/* Appends events 0..n-1 of match `id` to store `name` (made): ev[i] the
 * bytes stored as seq i. */
static int
store_events(const char *name, const char *id, const arb_buf_t *ev,
             size_t n)
{
    arb_store_t  *s = NULL;
    arb_append_t  ap[8];
    arb_buf_t     why = ARB_BUF_INIT;
    size_t        i;
    int           rc;

    memset(ap, 0, sizeof(ap));
    for (i = 0; i < n && i < 8; i++) {
        ap[i].match_id = id;
        ap[i].game = i == 0 ? "yahchain" : NULL;
        ap[i].seq = i;
        ap[i].time_ms = 1700000000000 + (int64_t)i;
        ap[i].bytes = ev[i].data;
        ap[i].len = ev[i].len;
    }
    rc = arb_store_open(&s, subdir(name), NULL, &why);
    if (rc == 0)
        rc = arb_store_append_batch(s, ap, i, &why);
    if (rc != 0)
        fprintf(stderr, "store_events %s: %s\n", name, arb_buf_cstr(&why));
    arb_store_close(s);
    arb_buf_free(&why);
    return rc;
}

static arb_store_t *
open_ro(const char *name)
{
    arb_store_opts_t o;
    arb_store_t     *s = NULL;
    arb_buf_t        why = ARB_BUF_INIT;

    memset(&o, 0, sizeof(o));
    o.read_only = 1;
    CHECK_INT(arb_store_open(&s, subdir(name), &o, &why), 0);
    arb_buf_free(&why);
    return s;
}

static int
on_replayed(void *ud, const arb_replayed_t *r)
{
    (void)r;
    (*(size_t *)ud)++;
    return 0;
}

/* RA1: match x's seq 1 holds the bytes of a move numbered 2 (the store
 * took them; its records are consistent): the one-pass replay refuses
 * the store, naming the match, the seq and what is there, and hands no
 * match over.  Stored in place, the same move replays. */
static void
test_replay_seq(void)
{
    arb_store_t *s;
    arb_buf_t    ev[2], why = ARB_BUF_INIT;
    uint64_t     nev = 0;
    size_t       n = 0;

    memset(ev, 0, sizeof(ev));
    CHECK_INT(bench_encode_open(&ev[0], "x"), 0);
    CHECK_INT(bench_encode_move(&ev[1], 2, 1), 0);
    CHECK_INT(store_events("ra-seq", "x", ev, 2), 0);
    s = open_ro("ra-seq");
    if (s != NULL) {
        CHECK_INT(arb_replay_all(s, on_replayed, &n, &nev, &why),
                  ARB_ECORRUPT);
        CHECK_STR(arb_buf_cstr(&why),
                  "match \"x\": seq 1: found a move event numbered 2");
        CHECK_INT(n, 0);
    }
    arb_store_close(s);
    rm_store("ra-seq");
    /* The control: numbered 1, it replays. */
    CHECK_INT(bench_encode_move(&ev[1], 1, 1), 0);
    CHECK_INT(store_events("ra-fine", "x", ev, 2), 0);
    s = open_ro("ra-fine");
    n = 0;
    if (s != NULL) {
        CHECK_INT(arb_replay_all(s, on_replayed, &n, &nev, &why), 0);
        CHECK_INT(n, 1);
        CHECK_INT(nev, 2);
    }
    arb_store_close(s);
    rm_store("ra-fine");
    arb_buf_free(&ev[0]);
    arb_buf_free(&ev[1]);
    arb_buf_free(&why);
}

/* HI1: a move numbered 0 where the open belongs.  Added to an empty
 * history, and loaded from a store that holds it as a match's seq 0,
 * it is refused, naming seq 0 and what was found; an open at seq 0 is
 * taken.  And the other half of that rule, an open numbered past 0,
 * never reaches the history: the codec does not decode one. */
static void
test_history_open(void)
{
    arb_history_t h;
    arb_store_t  *s;
    arb_buf_t     ev[2], why = ARB_BUF_INIT;
    arb_event_t   e;
    const char   *want = "seq 0: expected event 0 (the open), found a "
                         "move event numbered 0";
    size_t        i;

    memset(ev, 0, sizeof(ev));
    memset(&h, 0, sizeof(h));
    CHECK_INT(bench_encode_move(&ev[0], 0, 1), 0);
    CHECK_INT(bench_encode_move(&ev[1], 1, 2), 0);
    CHECK_INT(arb_history_add(&h, 0, 0, NULL, ev[0].data, ev[0].len, &why),
              ARB_ECORRUPT);
    CHECK_STR(arb_buf_cstr(&why), want);
    CHECK(!h.has_open);
    arb_history_clear(&h);
    /* from a store */
    CHECK_INT(store_events("hi-open", "z", ev, 2), 0);
    s = open_ro("hi-open");
    memset(&h, 0, sizeof(h));
    if (s != NULL) {
        CHECK_INT(arb_history_load(&h, s, "z", UINT64_MAX, &why),
                  ARB_ECORRUPT);
        CHECK_STR(arb_buf_cstr(&why), want);
        CHECK(!h.has_open);
    }
    arb_history_clear(&h);
    arb_store_close(s);
    rm_store("hi-open");
    /* the control: the open at seq 0 is taken */
    CHECK_INT(bench_encode_open(&ev[0], "z"), 0);
    memset(&h, 0, sizeof(h));
    CHECK_INT(arb_history_add(&h, 0, 0, NULL, ev[0].data, ev[0].len, &why),
              0);
    CHECK(h.has_open);
    arb_history_clear(&h);
    /* The open's bytes with its seq made 1 (the canonical form keeps the
     * key "seq" and a positive fixint after it): not an event. */
    for (i = 0; i + 4 < ev[0].len; i++)
        if (memcmp(ev[0].data + i, "\xa3seq\x00", 5) == 0)
            break;
    CHECK(i + 4 < ev[0].len);
    if (i + 4 < ev[0].len) {
        ev[0].data[i + 4] = 1;
        CHECK(arb_event_decode(&e, ev[0].data, ev[0].len, &why) != 0);
        CHECK_STR(arb_buf_cstr(&why),
                  "event.seq: an open event is seq 0, not 1");
        CHECK(arb_history_add(&h, 0, 0, NULL, ev[0].data, ev[0].len, &why)
              != 0);
    }
    arb_history_clear(&h);
    arb_buf_free(&ev[0]);
    arb_buf_free(&ev[1]);
    arb_buf_free(&why);
}

/* `arbiter replay --db` of store `name`: its exit status, and whether
 * its output holds `has`. */
static int
replay_db(const char *name, const char *has, int *found)
{
    char  cmd[400], line[512];
    FILE *f;
    int   st;

    *found = 0;
    snprintf(cmd, sizeof(cmd), "bin/arbiter replay --db %s 2>&1",
             subdir(name));
    if ((f = popen(cmd, "r")) == NULL)
        return -1;
    while (fgets(line, sizeof(line), f) != NULL)
        if (strstr(line, has) != NULL)
            *found = 1;
    st = pclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Move 1 (ann's) recorded again as seq 2, where bob is to play: the
 * rules refuse it.  Replayed whole, the store exits 1 naming it; with
 * bob's move there instead, 0. */
static void
test_replay_db_refused(void)
{
    arb_buf_t ev[3];
    int       found, i;

    if (access("bin/arbiter", X_OK) != 0) {
        printf("test_damaged_replay: bin/arbiter is not built; replay "
               "--db skipped\n");
        return;
    }
    memset(ev, 0, sizeof(ev));
    CHECK_INT(bench_encode_open(&ev[0], "x"), 0);
    CHECK_INT(bench_encode_move(&ev[1], 1, 1), 0);
    CHECK_INT(bench_encode_move(&ev[2], 2, 1), 0);
    CHECK_INT(store_events("rp-refused", "x", ev, 3), 0);
    CHECK_INT(replay_db("rp-refused", "match x: seq 2 refused", &found), 1);
    CHECK(found);
    rm_store("rp-refused");
    CHECK_INT(bench_encode_move(&ev[2], 2, 2), 0);
    CHECK_INT(store_events("rp-fine", "x", ev, 3), 0);
    CHECK_INT(replay_db("rp-fine", "refused", &found), 0);
    CHECK(!found);
    rm_store("rp-fine");
    for (i = 0; i < 3; i++)
        arb_buf_free(&ev[i]);
}

/* An open the rules refuse (YAHchain has no mode 7): the match has no
 * state to print, and the replay of the store still exits 1 naming it,
 * as for any refused event. */
static void
test_replay_db_open_refused(void)
{
    arb_event_t ev;
    arb_setup_t st;
    arb_buf_t   b = ARB_BUF_INIT;
    int         found;

    if (access("bin/arbiter", X_OK) != 0)
        return;
    memset(&ev, 0, sizeof(ev));
    memset(&st, 0, sizeof(st));
    st.game = "yahchain";
    st.match_id = "x";
    ev.kind = ARB_EV_OPEN;
    ev.time_ms = 1700000000000;
    ev.actor = "arbiter";
    ev.setup = &st;
    CHECK_INT(arb_setup_add_player(&st, "ann", -1), 0);
    CHECK_INT(arb_setup_add_player(&st, "bob", -1), 0);
    CHECK_INT(arb_setup_set_option(&st, "mode", "7"), 0);
    CHECK_INT(arb_event_encode(&b, &ev), 0);
    st.game = NULL;
    st.match_id = NULL;
    arb_setup_clear(&st);
    CHECK_INT(store_events("rp-open", "x", &b, 1), 0);
    CHECK_INT(replay_db("rp-open", "match x: seq 0 refused", &found), 1);
    CHECK(found);
    rm_store("rp-open");
    arb_buf_free(&b);
}

int
main(void)
{
    snprintf(base, sizeof(base), "/tmp/arb-damaged-replay-XXXXXX");
    if (mkdtemp(base) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    test_replay_seq();
    test_history_open();
    test_replay_db_refused();
    test_replay_db_open_refused();
    rmdir(base);
    return TEST_END();
}
