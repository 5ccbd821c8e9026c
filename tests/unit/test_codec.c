/*
 * test_codec.c - the canonical event encoding: round trips of every kind,
 * a golden encoding, rejection of non-canonical and hostile input, and a
 * mutation sweep over valid encodings.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <msgpack.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/event.h"
#include "core/codec.h"
#include "core/codec_int.h"
#include "proto/limits.h"
#include "core/mp.h"
#include "tests/test.h"

static arb_buf_t why = ARB_BUF_INIT;

/* ---- building events ------------------------------------------------- */

static void
set_str(char **dst, const char *s)
{
    *dst = strdup(s);
}

/* The golden event: ann places the 7 of hearts on c4. */
static void
make_move(arb_event_t *ev)
{
    memset(ev, 0, sizeof(*ev));
    ev->kind = ARB_EV_MOVE;
    ev->seq = 12;
    ev->time_ms = 1700000000000LL;
    set_str(&ev->player, "ann");
    set_str(&ev->verb, "place");
    arb_event_add_arg(ev, "7\xe2\x99\xa5");
    arb_event_add_arg(ev, "c4");
}

static void
make_open(arb_event_t *ev, int deal)
{
    arb_setup_t *s;

    memset(ev, 0, sizeof(*ev));
    ev->kind = ARB_EV_OPEN;
    ev->time_ms = 1700000000000LL;
    set_str(&ev->actor, "td:maria");
    set_str(&ev->client_id, "c-0001");
    s = calloc(1, sizeof(*s));
    ev->setup = s;
    set_str(&s->game, "yahchain");
    set_str(&s->match_id, "final-2024.t1");
    set_str(&s->edition, "2024");
    set_str(&s->engine, "arbiter 0.1.0");
    arb_setup_add_team(s, "north");
    arb_setup_add_team(s, "south");
    arb_setup_add_player(s, "ann", 0);
    arb_setup_add_player(s, "bob", 1);
    arb_setup_add_player(s, "kibitzer", -1);
    /* Inserted out of order on purpose: the struct keeps them sorted. */
    arb_setup_set_option(s, "time_control", "90+30");
    arb_setup_set_option(s, "hand_size", "7");
    arb_setup_set_option(s, "jokers", "");
    s->deal.kind = deal;
    if (deal == ARB_DEAL_ORDER) {
        arb_deal_add_card(&s->deal, "4\xe2\x99\xa0");
        arb_deal_add_card(&s->deal, "10\xe2\x99\xa6");
        arb_deal_add_card(&s->deal, "K\xe2\x99\xa3");
    }
    if (deal == ARB_DEAL_SEED)
        set_str(&s->deal.seed, "correct horse battery staple");
    if (deal == ARB_DEAL_SEED || deal == ARB_DEAL_COMMIT) {
        int i;
        for (i = 0; i < 32; i++)
            s->deal.seed_hash[i] = (unsigned char)(0xa0 + i);
    }
}

/* An open event with only what is required. */
static void
make_open_minimal(arb_event_t *ev)
{
    memset(ev, 0, sizeof(*ev));
    ev->kind = ARB_EV_OPEN;
    ev->setup = calloc(1, sizeof(*ev->setup));
    set_str(&ev->setup->game, "yahchain");
    set_str(&ev->setup->match_id, "m1");
}

static void
make_kind(arb_event_t *ev, int kind)
{
    memset(ev, 0, sizeof(*ev));
    ev->kind = kind;
    ev->seq = 40;
    ev->time_ms = 1;
    set_str(&ev->actor, "td:maria");
    switch (kind) {
    case ARB_EV_CLOSE:
        set_str(&ev->text, "time forfeit");
        break;
    case ARB_EV_NOTE:
        set_str(&ev->text, "spectator complaint, no action \xe2\x80\x94 ok");
        break;
    case ARB_EV_VOID:
        ev->target = 39;
        set_str(&ev->text, "played out of turn");
        break;
    case ARB_EV_AMEND:
        ev->target = 0;
        set_str(&ev->player, "bob");
        set_str(&ev->verb, "draw");
        set_str(&ev->text, "misrecorded");
        break;
    case ARB_EV_STANDS:
        set_str(&ev->client_id, "x");
        set_str(&ev->player, "ann");
        set_str(&ev->verb, "pass");
        break;
    case ARB_EV_CLAIM:
        set_str(&ev->player, "ann");
        arb_event_add_arg(ev, "{\"sota\":1,\"bonus\":6}");
        arb_event_add_arg(ev, "{\"sota\":2,\"bonus\":12}");
        set_str(&ev->text, "{\"totals\":{\"ann\":18}}");
        break;
    }
}

/* ---- comparing ------------------------------------------------------- */

static int
str_eq(const char *a, const char *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    return strcmp(a, b) == 0;
}

static int
strv_eq(char **a, size_t na, char **b, size_t nb)
{
    size_t i;

    if (na != nb)
        return 0;
    for (i = 0; i < na; i++)
        if (!str_eq(a[i], b[i]))
            return 0;
    return 1;
}

static int
setup_eq(const arb_setup_t *a, const arb_setup_t *b)
{
    size_t i;

    if (a == NULL || b == NULL)
        return a == b;
    if (!str_eq(a->game, b->game) || !str_eq(a->match_id, b->match_id)
        || !str_eq(a->edition, b->edition) || !str_eq(a->engine, b->engine)
        || !strv_eq(a->teams, a->nteams, b->teams, b->nteams)
        || a->nplayers != b->nplayers || a->noptions != b->noptions
        || a->deal.kind != b->deal.kind
        || !strv_eq(a->deal.cards, a->deal.ncards, b->deal.cards,
                    b->deal.ncards)
        || !str_eq(a->deal.seed, b->deal.seed)
        || memcmp(a->deal.seed_hash, b->deal.seed_hash, 32) != 0)
        return 0;
    for (i = 0; i < a->nplayers; i++)
        if (!str_eq(a->players[i].name, b->players[i].name)
            || a->players[i].team != b->players[i].team)
            return 0;
    for (i = 0; i < a->noptions; i++)
        if (!str_eq(a->options[i].key, b->options[i].key)
            || !str_eq(a->options[i].value, b->options[i].value))
            return 0;
    return 1;
}

static int
event_eq(const arb_event_t *a, const arb_event_t *b)
{
    return a->kind == b->kind && a->seq == b->seq
           && a->time_ms == b->time_ms && a->target == b->target
           && str_eq(a->actor, b->actor)
           && str_eq(a->client_id, b->client_id)
           && str_eq(a->player, b->player) && str_eq(a->verb, b->verb)
           && strv_eq(a->args, a->nargs, b->args, b->nargs)
           && str_eq(a->text, b->text) && setup_eq(a->setup, b->setup);
}

static const char *
hex(const char *p, size_t n)
{
    static char out[4096];
    size_t      i;

    for (i = 0; i < n && 2 * i + 2 < sizeof(out); i++)
        snprintf(out + 2 * i, 3, "%02x", (unsigned char)p[i]);
    out[2 * i] = '\0';
    return out;
}

/* ---- round trips ----------------------------------------------------- */

/* encode -> decode -> equal struct -> encode -> identical bytes, and the
 * decoded event owns its memory (the input is scribbled over and freed
 * before the comparison, so ASan catches any pointer into it). */
static void
round_trip(arb_event_t *ev, const char *label)
{
    arb_buf_t   a = ARB_BUF_INIT, b = ARB_BUF_INIT;
    arb_event_t d;
    char       *copy;
    int         rc;

    rc = arb_event_encode(&a, ev);
    CHECK_INT(rc, 0);
    if (rc != 0) {
        arb_event_check(ev, &why);
        fprintf(stderr, "  %s: %s\n", label, arb_buf_cstr(&why));
        return;
    }
    copy = malloc(a.len);
    memcpy(copy, a.data, a.len);
    rc = arb_event_decode(&d, copy, a.len, &why);
    CHECK_INT(rc, 0);
    if (rc != 0)
        fprintf(stderr, "  %s: %s\n", label, arb_buf_cstr(&why));
    memset(copy, 0xaa, a.len);
    free(copy);
    CHECK(event_eq(ev, &d));
    CHECK_INT(arb_event_encode(&b, &d), 0);
    CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
    arb_event_clear(&d);
    arb_buf_free(&a);
    arb_buf_free(&b);
}

static void
test_round_trips(void)
{
    arb_event_t ev;
    int         k, deal;

    make_move(&ev);
    round_trip(&ev, "move");
    arb_event_clear(&ev);
    for (deal = ARB_DEAL_NONE; deal <= ARB_DEAL_COMMIT; deal++) {
        make_open(&ev, deal);
        round_trip(&ev, "open");
        arb_event_clear(&ev);
    }
    make_open_minimal(&ev);
    round_trip(&ev, "open minimal");
    arb_event_clear(&ev);
    for (k = ARB_EV_CLOSE; k < ARB_EV_KIND_MAX; k++) {
        make_kind(&ev, k);
        round_trip(&ev, arb_event_kind_name(k));
        /* Without the optional parts too. */
        free(ev.actor);
        ev.actor = NULL;
        ev.time_ms = 0;
        if (k != ARB_EV_NOTE && k != ARB_EV_CLAIM) {
            free(ev.text);
            ev.text = NULL;
        }
        round_trip(&ev, arb_event_kind_name(k));
        arb_event_clear(&ev);
    }
    /* A claim of no records by nobody in particular: text alone. */
    memset(&ev, 0, sizeof(ev));
    ev.kind = ARB_EV_CLAIM;
    ev.seq = 3;
    set_str(&ev.text, "{\"totals\":{}}");
    round_trip(&ev, "claim minimal");
    arb_event_clear(&ev);
    /* Empty text and an empty argument are values, not absences. */
    make_kind(&ev, ARB_EV_NOTE);
    free(ev.text);
    set_str(&ev.text, "");
    round_trip(&ev, "note empty");
    arb_event_clear(&ev);
    make_move(&ev);
    arb_event_add_arg(&ev, "");
    round_trip(&ev, "move empty arg");
    arb_event_clear(&ev);
    /* Extremes of every integer and string limit. */
    make_move(&ev);
    ev.seq = UINT64_MAX;
    ev.time_ms = INT64_MAX;
    while (ev.nargs < ARB_ARGS_MAX)
        arb_event_add_arg(&ev, "x");
    free(ev.verb);
    ev.verb = malloc(ARB_STR_MAX + 1);
    memset(ev.verb, 'v', ARB_STR_MAX);
    ev.verb[ARB_STR_MAX] = '\0';
    round_trip(&ev, "move extremes");
    arb_event_clear(&ev);
    /* A claim carries a whole match's records: more than a move's args
     * (a YAHchain match of three cycles has 36). */
    make_kind(&ev, ARB_EV_CLAIM);
    while (ev.nargs < ARB_CLAIM_RECORDS_MAX)
        arb_event_add_arg(&ev, "{\"sota\":3}");
    round_trip(&ev, "claim of the most records");
    arb_event_clear(&ev);
}

/* ---- the golden encoding -------------------------------------------- */

/* If this changes, every stored transcript hash changes: update
 * proto/PROTOCOL.md and bump "v" instead of editing the constant. */
static const char golden_move[] =
    "87"                                /* map, 7 entries */
    "a176" "01"                         /* "v": 1 */
    "a46b696e64" "a46d6f7665"           /* "kind": "move" */
    "a3736571" "0c"                     /* "seq": 12 */
    "a474696d65" "cf0000018bcfe56800"   /* "time": 1700000000000 */
    "a6706c61796572" "a3616e6e"         /* "player": "ann" */
    "a476657262" "a5706c616365"         /* "verb": "place" */
    "a461726773" "92"                   /* "args": [ */
    "a437e299a5" "a26334";              /*   "7♥", "c4" ] */

static void
test_golden(void)
{
    arb_buf_t   out = ARB_BUF_INIT;
    arb_event_t ev;

    make_move(&ev);
    CHECK_INT(arb_event_encode(&out, &ev), 0);
    CHECK_STR(hex(out.data, out.len), golden_move);
    arb_event_clear(&ev);
    arb_buf_free(&out);
}

/* ---- the encoder refuses what the decoder would refuse -------------- */

/* A claim: seq 40 by ann of one record {"sota":1} and her total 6, in
 * 74 bytes.  Pinned for the same reason as the move. */
static const char golden_claim[] =
    "86"                                /* map, 6 entries */
    "a176" "01"                         /* "v": 1 */
    "a46b696e64" "a5636c61696d"         /* "kind": "claim" */
    "a3736571" "28"                     /* "seq": 40 */
    "a6706c61796572" "a3616e6e"         /* "player": "ann" */
    "a461726773" "91"                   /* "args": [ */
    "aa7b22736f7461223a317d"            /*   "{\"sota\":1}" ] */
    "a474657874"                        /* "text": */
    "b47b22746f74616c73223a7b22616e6e"  /*   "{\"totals\":{\"ann" */
    "223a367d7d";                       /*   \":6}}" */

static void
test_golden_claim(void)
{
    arb_buf_t   out = ARB_BUF_INIT;
    arb_event_t ev, d;

    memset(&ev, 0, sizeof(ev));
    ev.kind = ARB_EV_CLAIM;
    ev.seq = 40;
    set_str(&ev.player, "ann");
    arb_event_add_arg(&ev, "{\"sota\":1}");
    set_str(&ev.text, "{\"totals\":{\"ann\":6}}");
    CHECK_INT(arb_event_encode(&out, &ev), 0);
    CHECK_STR(hex(out.data, out.len), golden_claim);
    CHECK_INT(out.len, 74);
    CHECK_INT(arb_event_decode(&d, out.data, out.len, &why), 0);
    CHECK(event_eq(&ev, &d));
    arb_event_clear(&d);
    arb_event_clear(&ev);
    arb_buf_free(&out);
}

static void
test_encode_rejects(void)
{
    arb_buf_t   out = ARB_BUF_INIT;
    arb_event_t ev;

    arb_buf_puts(&out, "keep");

    make_move(&ev);
    free(ev.verb);
    ev.verb = NULL;
    CHECK_INT(arb_event_encode(&out, &ev), ARB_EINVAL);
    CHECK_INT(arb_event_check(&ev, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "event.verb: required for kind \"move\"");
    arb_event_clear(&ev);

    make_move(&ev);
    ev.target = 3;
    CHECK_INT(arb_event_check(&ev, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why),
              "event.target: not allowed for kind \"move\"");
    arb_event_clear(&ev);

    make_move(&ev);
    free(ev.args[1]);
    ev.args[1] = strdup("\xc0\xaf");
    CHECK_INT(arb_event_check(&ev, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "event.args[1]: invalid UTF-8");
    arb_event_clear(&ev);

    make_move(&ev);
    while (ev.nargs <= ARB_ARGS_MAX)
        arb_event_add_arg(&ev, "x");
    CHECK_INT(arb_event_encode(&out, &ev), ARB_ETOOBIG);
    arb_event_clear(&ev);

    make_kind(&ev, ARB_EV_CLAIM);
    while (ev.nargs <= ARB_CLAIM_RECORDS_MAX)
        arb_event_add_arg(&ev, "{}");
    CHECK_INT(arb_event_check(&ev, &why), ARB_ETOOBIG);
    CHECK_STR(arb_buf_cstr(&why),
              "event.args: 1025 elements, over the limit of 1024");
    arb_event_clear(&ev);

    make_move(&ev);
    ev.time_ms = -5;
    CHECK_INT(arb_event_check(&ev, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "event.time: negative");
    arb_event_clear(&ev);

    make_open(&ev, ARB_DEAL_NONE);
    ev.seq = 1;
    CHECK_INT(arb_event_check(&ev, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "event.seq: an open event is seq 0, not 1");
    arb_event_clear(&ev);

    /* Options put out of order behind the struct's back. */
    make_open(&ev, ARB_DEAL_NONE);
    {
        arb_option_t t = ev.setup->options[0];
        ev.setup->options[0] = ev.setup->options[1];
        ev.setup->options[1] = t;
    }
    CHECK_INT(arb_event_check(&ev, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why),
              "event.setup.options[1][0]: key not after the key of "
              "options[0] (keys must be sorted and unique)");
    arb_event_clear(&ev);

    make_open(&ev, ARB_DEAL_ORDER);
    ev.setup->deal.seed_hash[5] = 1;
    CHECK_INT(arb_event_check(&ev, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why),
              "event.setup.deal.seed_hash: not allowed for kind \"order\" "
              "(must be all zero)");
    arb_event_clear(&ev);

    make_open(&ev, ARB_DEAL_NONE);
    ev.setup->players[1].team = 2;
    CHECK_INT(arb_event_check(&ev, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why),
              "event.setup.players[1].team: 2 is not -1 or the index of "
              "one of 2 teams");
    arb_event_clear(&ev);

    make_open(&ev, ARB_DEAL_NONE);
    free(ev.setup->players[2].name);
    ev.setup->players[2].name = strdup("ann");
    CHECK_INT(arb_event_check(&ev, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why),
              "event.setup.players[2].name: same as event.setup.players[0]");
    arb_event_clear(&ev);

    make_kind(&ev, ARB_EV_NOTE);
    free(ev.text);
    ev.text = NULL;
    CHECK_INT(arb_event_check(&ev, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "event.text: required for kind \"note\"");
    arb_event_clear(&ev);

    /* A claim carries records and totals, never a verb or a target. */
    make_kind(&ev, ARB_EV_CLAIM);
    free(ev.text);
    ev.text = NULL;
    CHECK_INT(arb_event_encode(&out, &ev), ARB_EINVAL);
    CHECK_INT(arb_event_check(&ev, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "event.text: required for kind \"claim\"");
    set_str(&ev.text, "{\"totals\":{}}");
    set_str(&ev.verb, "place");
    CHECK_INT(arb_event_check(&ev, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "event.verb: not allowed for kind \"claim\"");
    free(ev.verb);
    ev.verb = NULL;
    ev.target = 2;
    CHECK_INT(arb_event_check(&ev, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why),
              "event.target: not allowed for kind \"claim\"");
    ev.target = 0;
    free(ev.player);
    set_str(&ev.player, "");
    CHECK_INT(arb_event_check(&ev, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "event.player: empty");
    arb_event_clear(&ev);

    /* A string of ARB_STR_MAX bytes is written, one more is not: the
     * decoder would refuse the event the encoder wrote. */
    make_kind(&ev, ARB_EV_NOTE);
    free(ev.text);
    ev.text = malloc(ARB_STR_MAX + 2);
    memset(ev.text, 't', ARB_STR_MAX + 1);
    ev.text[ARB_STR_MAX] = '\0';
    CHECK_INT(arb_event_check(&ev, &why), 0);
    ev.text[ARB_STR_MAX] = 't';
    ev.text[ARB_STR_MAX + 1] = '\0';
    CHECK_INT(arb_event_encode(&out, &ev), ARB_ETOOBIG);
    CHECK_INT(arb_event_check(&ev, &why), ARB_ETOOBIG);
    CHECK_STR(arb_buf_cstr(&why), "event.text: longer than 4096 bytes");
    arb_event_clear(&ev);

    /* Two teams of one name, side by side. */
    make_open(&ev, ARB_DEAL_NONE);
    free(ev.setup->teams[1]);
    set_str(&ev.setup->teams[1], "north");
    CHECK_INT(arb_event_check(&ev, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why),
              "event.setup.teams[1]: same as event.setup.teams[0]");
    arb_event_clear(&ev);

    /* A deal kind past the table is refused, not looked up. */
    make_open(&ev, ARB_DEAL_NONE);
    ev.setup->deal.kind = DEAL_KINDS;
    CHECK_INT(arb_event_encode(&out, &ev), ARB_EINVAL);
    CHECK_INT(arb_event_check(&ev, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why), "event.setup.deal.kind: unknown kind 4");
    arb_event_clear(&ev);

    /* Which kinds carry a target, and no row read past the table. */
    CHECK_INT(arb_event_takes_target(ARB_EV_VOID), 1);
    CHECK_INT(arb_event_takes_target(ARB_EV_AMEND), 1);
    CHECK_INT(arb_event_takes_target(ARB_EV_MOVE), 0);
    CHECK_INT(arb_event_takes_target(ARB_EV_OPEN), 0);
    CHECK_INT(arb_event_takes_target(-1), 0);
    CHECK_INT(arb_event_takes_target(ARB_EV_KIND_MAX), 0);

    /* A target of 0 is a target: what is wrong with this amend is its
     * setup. */
    make_kind(&ev, ARB_EV_AMEND);
    ev.setup = calloc(1, sizeof(*ev.setup));
    CHECK_INT(arb_event_check(&ev, &why), ARB_EINVAL);
    CHECK_STR(arb_buf_cstr(&why),
              "event.setup: not allowed for kind \"amend\"");
    arb_event_clear(&ev);

    memset(&ev, 0, sizeof(ev));
    ev.kind = ARB_EV_KIND_MAX;
    CHECK_INT(arb_event_encode(&out, &ev), ARB_EINVAL);

    /* Nothing was appended by any failed call. */
    CHECK_INT(out.len, 4);
    arb_buf_free(&out);
}

/* ---- rejection of bad input ----------------------------------------- */

static arb_buf_t      in = ARB_BUF_INIT;
static msgpack_packer pk;

static void
begin(size_t n)
{
    in.len = 0;
    arb_mp_packer_init(&pk, &in);
    msgpack_pack_map(&pk, n);
}

static void
s(const char *x)
{
    arb_mp_pack_cstr(&pk, x);
}

static void
raw(const char *x, size_t n)
{
    arb_buf_add(&in, x, n);
}

static void
u(uint64_t v)
{
    msgpack_pack_uint64(&pk, v);
}

/* The first three keys of a move, then `extra` more entries. */
static void
move_head(size_t extra, uint64_t seq)
{
    begin(3 + extra);
    s("v"); u(1);
    s("kind"); s("move");
    s("seq"); u(seq);
}

#define REJECT(rc_, why_) do {                                           \
        arb_event_t e_;                                                  \
        CHECK_INT(arb_event_decode(&e_, in.data, in.len, &why), (rc_));  \
        CHECK_STR(arb_buf_cstr(&why), (why_));                           \
        CHECK(e_.args == NULL && e_.setup == NULL && e_.player == NULL); \
    } while (0)

#define ACCEPT() do {                                                    \
        arb_event_t e_;                                                  \
        int         r_ = arb_event_decode(&e_, in.data, in.len, &why);   \
        CHECK_INT(r_, 0);                                                \
        if (r_ != 0)                                                     \
            fprintf(stderr, "    why: %s\n", arb_buf_cstr(&why));        \
        arb_event_clear(&e_);                                            \
    } while (0)

/* An open event up to the setup key, whose map the caller writes. */
static void
open_head(size_t setup_entries)
{
    begin(4);
    s("v"); u(1);
    s("kind"); s("open");
    s("seq"); u(0);
    s("setup");
    msgpack_pack_map(&pk, setup_entries);
    s("game"); s("g");
    s("match"); s("m");
}

/* Bytes the encoder would not write are refused by both readers: the
 * walker declines them (-1) and the full decoder refuses them, naming the
 * field where a rule and not only the re-encoding sees it. */
static void
walk_refused(int rc, const char *why_want)
{
    arb_event_t got;
    int         w;

    w = arb__event_walk(&got, (const unsigned char *)in.data, in.len);
    CHECK_INT(w, -1);
    if (w == 0)
        arb_event_clear(&got);
    CHECK_INT(arb_event_decode(&got, in.data, in.len, &why), rc);
    if (strncmp(why_want, "event: not in canonical", 23) == 0)
        CHECK(strncmp(arb_buf_cstr(&why), why_want, strlen(why_want)) == 0);
    else
        CHECK_STR(arb_buf_cstr(&why), why_want);
}

/* A move whose seq is the raw bytes `seq` (n of them). */
static void
move_raw_seq(const char *seq, size_t n)
{
    begin(5);
    s("v"); u(1);
    s("kind"); s("move");
    s("seq"); raw(seq, n);
    s("player"); s("ann");
    s("verb"); s("pass");
}

static void
test_walk_refuses(void)
{
    static const struct { const char *b; size_t n; } longer[] = {
        { "\xcc\x7f", 2 },                      /* uint8 of a fixint */
        { "\xcd\x00\x80", 3 },                  /* uint16 of a uint8 */
        { "\xcd\x00\xff", 3 },
        { "\xce\x00\x00\xff\xff", 5 },          /* uint32 of a uint16 */
        { "\xcf\x00\x00\x00\x00\xff\xff\xff\xff", 9 },  /* uint64 of a
                                                           uint32 */
        { "\xcf\x00\x00\x00\x00\x00\x01\x00\x00", 9 },
    };
    char   big[300];
    size_t i;

    for (i = 0; i < sizeof(longer) / sizeof(longer[0]); i++) {
        move_raw_seq(longer[i].b, longer[i].n);
        walk_refused(ARB_EPROTO, "event: not in canonical form");
    }
    /* The shortest forms at the same values are read. */
    move_raw_seq("\xcc\x80", 2);
    ACCEPT();
    move_raw_seq("\xcd\x01\x00", 3);
    ACCEPT();
    move_raw_seq("\xce\x00\x01\x00\x00", 5);
    ACCEPT();
    move_raw_seq("\xcf\x00\x00\x00\x01\x00\x00\x00\x00", 9);
    ACCEPT();

    /* A str8 of 31 bytes, a str16 of 255: a fixstr and a str8 fit. */
    memset(big, 'x', sizeof(big));
    move_head(2, 1);
    s("player"); s("ann");
    s("verb"); raw("\xd9\x1f", 2); raw(big, 31);
    walk_refused(ARB_EPROTO, "event: not in canonical form");
    move_head(2, 1);
    s("player"); s("ann");
    s("verb"); raw("\xda\x00\xff", 3); raw(big, 255);
    walk_refused(ARB_EPROTO, "event: not in canonical form");

    /* An array16 of 15 cards: a fixarray holds them. */
    open_head(3);
    s("deal");
    msgpack_pack_map(&pk, 2);
    s("kind"); s("order");
    s("cards"); raw("\xdc\x00\x0f", 3);
    for (i = 0; i < 15; i++)
        s("Q");
    walk_refused(ARB_EPROTO, "event: not in canonical form");

    /* No seq; a key twice (the walker reads keys a word at a time). */
    begin(4);
    s("v"); u(1);
    s("kind"); s("move");
    s("player"); s("ann");
    s("verb"); s("pass");
    walk_refused(ARB_EPROTO, "event.seq: missing");
    move_head(3, 1);
    s("player"); s("ann");
    s("player"); s("bob");
    s("verb"); s("pass");
    walk_refused(ARB_EPROTO, "event: duplicate key \"player\"");

    /* A player without a name: an empty map, or a team alone. */
    open_head(3);
    s("players"); raw("\x91\x80", 2);
    walk_refused(ARB_EPROTO, "event.setup.players[0].name: missing");
    open_head(4);
    s("teams"); raw("\x91", 1); s("a");
    s("players"); raw("\x91\x81", 2); s("team"); u(0);
    walk_refused(ARB_EPROTO, "event.setup.players[0].name: missing");

    /* seed_hash where its kind wants none, missing where it wants one,
     * and of 33 bytes. */
    memset(big, 0, 40);
    open_head(3);
    s("deal");
    msgpack_pack_map(&pk, 2);
    s("kind"); s("seed");
    s("seed"); s("x");
    walk_refused(ARB_EPROTO,
                 "event.setup.deal.seed_hash: required for kind \"seed\"");
    open_head(3);
    s("deal");
    msgpack_pack_map(&pk, 3);
    s("kind"); s("order");
    s("cards"); raw("\x91", 1); s("Q");
    s("seed_hash"); msgpack_pack_bin_with_body(&pk, big, 32);
    walk_refused(ARB_EPROTO, "event.setup.deal.seed_hash: not allowed for "
                 "kind \"order\"");
    open_head(3);
    s("deal");
    msgpack_pack_map(&pk, 2);
    s("kind"); s("commit");
    s("seed_hash"); msgpack_pack_bin_with_body(&pk, big, 33);
    walk_refused(ARB_EPROTO, "event.setup.deal.seed_hash: expected 32 "
                 "bytes, got 33");
}

static void
test_decode_rejects(void)
{
    int i;

    /* Sanity: the builder makes a valid move. */
    move_head(2, 1);
    s("player"); s("ann");
    s("verb"); s("pass");
    ACCEPT();

    /* Unknown key. */
    move_head(3, 1);
    s("player"); s("ann");
    s("verb"); s("pass");
    s("zzz"); u(1);
    REJECT(ARB_EPROTO, "event: unknown key \"zzz\"");

    /* A claim: text required, target and verb refused. */
    begin(4);
    s("v"); u(1);
    s("kind"); s("claim");
    s("seq"); u(5);
    s("text"); s("{\"totals\":{}}");
    ACCEPT();
    begin(3);
    s("v"); u(1);
    s("kind"); s("claim");
    s("seq"); u(5);
    REJECT(ARB_EPROTO, "event.text: required for kind \"claim\"");
    begin(5);
    s("v"); u(1);
    s("kind"); s("claim");
    s("seq"); u(5);
    s("target"); u(1);
    s("text"); s("{\"totals\":{}}");
    REJECT(ARB_EPROTO, "event.target: not allowed for kind \"claim\"");
    begin(5);
    s("v"); u(1);
    s("kind"); s("claim");
    s("seq"); u(5);
    s("verb"); s("place");
    s("text"); s("{\"totals\":{}}");
    REJECT(ARB_EPROTO, "event.verb: not allowed for kind \"claim\"");

    /* Hostile key text is escaped in the message. */
    move_head(1, 1);
    s("a\"\n\x01");
    u(1);
    REJECT(ARB_EPROTO, "event: unknown key \"a\\x22\\x0a\\x01\"");
    /* DEL and a byte past ASCII too. */
    move_head(1, 1);
    s("\x7f" "b\xc3\xa9");
    u(1);
    REJECT(ARB_EPROTO, "event: unknown key \"\\x7fb\\xc3\\xa9\"");
    /* A long one is cut at 32 bytes. */
    move_head(1, 1);
    s("0123456789abcdef0123456789abcdefXYZ");
    u(1);
    REJECT(ARB_EPROTO, "event: unknown key "
           "\"0123456789abcdef0123456789abcdef...\"");
    /* No bytes at all, not even a buffer. */
    {
        arb_event_t e;

        CHECK_INT(arb_event_decode(&e, NULL, 0, &why), ARB_EPROTO);
        CHECK_STR(arb_buf_cstr(&why), "empty message");
    }

    /* Keys out of order. */
    begin(2);
    s("kind"); s("move");
    s("v"); u(1);
    REJECT(ARB_EPROTO,
           "event: key \"v\" out of order (must come before \"kind\")");
    move_head(2, 1);
    s("verb"); s("pass");
    s("player"); s("ann");
    REJECT(ARB_EPROTO,
           "event: key \"player\" out of order (must come before \"verb\")");

    /* Duplicate key. */
    begin(2);
    s("v"); u(1);
    s("v"); u(1);
    REJECT(ARB_EPROTO, "event: duplicate key \"v\"");

    /* A key that is not a str. */
    begin(1);
    u(7); u(1);
    REJECT(ARB_EPROTO, "event: key #0 is int, expected str");

    /* Wrong types. */
    move_head(3, 1);
    s("player"); s("ann");
    s("verb"); s("place");
    s("args");
    msgpack_pack_array(&pk, 3);
    s("a"); s("b"); u(5);
    REJECT(ARB_EPROTO, "event.args[2]: expected str, got int");
    move_head(2, 1);
    s("player"); msgpack_pack_nil(&pk);
    s("verb"); s("pass");
    REJECT(ARB_EPROTO, "event.player: expected str, got nil");
    move_head(3, 1);
    s("player"); s("ann");
    s("verb"); s("pass");
    s("args"); s("x");
    REJECT(ARB_EPROTO, "event.args: expected array, got str");

    /* Floats, anywhere, even with an integral value. */
    begin(3);
    s("v"); u(1);
    s("kind"); s("move");
    s("seq"); msgpack_pack_double(&pk, 1.0);
    REJECT(ARB_EPROTO, "event.seq: expected non-negative int, got float");
    begin(1);
    s("v"); msgpack_pack_float(&pk, 1.0f);
    REJECT(ARB_EPROTO, "event.v: expected non-negative int, got float");

    /* Negative seq. */
    begin(3);
    s("v"); u(1);
    s("kind"); s("move");
    s("seq"); msgpack_pack_int64(&pk, -1);
    REJECT(ARB_EPROTO,
           "event.seq: expected non-negative int, got negative int");

    /* Missing required keys. */
    begin(2);
    s("v"); u(1);
    s("kind"); s("move");
    REJECT(ARB_EPROTO, "event.seq: missing");
    begin(0);
    REJECT(ARB_EPROTO, "event.v: missing");

    /* Version and kind. */
    begin(3);
    s("v"); u(2);
    s("kind"); s("move");
    s("seq"); u(1);
    REJECT(ARB_EUNSUPP, "event.v: unsupported version 2");
    begin(3);
    s("v"); u(1);
    s("kind"); s("dance");
    s("seq"); u(1);
    REJECT(ARB_EPROTO, "event.kind: unknown kind");

    /* NUL bytes and bad UTF-8 in strings. */
    move_head(2, 1);
    s("player");
    msgpack_pack_str_with_body(&pk, "a\0b", 3);
    s("verb"); s("pass");
    REJECT(ARB_EPROTO, "event.player: NUL byte at offset 1");
    move_head(2, 1);
    s("player"); s("ann");
    s("verb"); s("\xff");
    REJECT(ARB_EPROTO, "event.verb: invalid UTF-8");
    move_head(2, 1);
    s("player"); s("ann");
    s("verb"); s("\xc0\xaf");                   /* overlong '/' */
    REJECT(ARB_EPROTO, "event.verb: invalid UTF-8");
    move_head(2, 1);
    s("player"); s("ann");
    s("verb"); s("\xed\xa0\x80");               /* a surrogate */
    REJECT(ARB_EPROTO, "event.verb: invalid UTF-8");
    move_head(2, 1);
    s("player"); s("ann");
    s("verb"); s("\xe2\x99");                   /* cut short */
    REJECT(ARB_EPROTO, "event.verb: invalid UTF-8");
    move_head(2, 1);
    s("player"); s("ann");
    s("verb"); s("\xf4\x90\x80\x80");           /* above U+10FFFF */
    REJECT(ARB_EPROTO, "event.verb: invalid UTF-8");

    /* Strings and counts over the limits. */
    begin(4);
    s("v"); u(1);
    s("kind"); s("note");
    s("seq"); u(1);
    s("text");
    {
        char *big = malloc(ARB_STR_MAX + 1);
        memset(big, 't', ARB_STR_MAX + 1);
        msgpack_pack_str_with_body(&pk, big, ARB_STR_MAX + 1);
        free(big);
    }
    REJECT(ARB_ETOOBIG, "event.text: str of 4097 bytes, over the limit of "
           "4096");
    move_head(3, 1);
    s("player"); s("ann");
    s("verb"); s("pass");
    s("args");
    msgpack_pack_array(&pk, ARB_ARGS_MAX + 1);
    for (i = 0; i <= ARB_ARGS_MAX; i++)
        s("x");
    REJECT(ARB_ETOOBIG, "event.args: 33 elements, over the limit of 32");
    /* A claim's records: its own limit, from the bytes too. */
    begin(5);
    s("v"); u(1);
    s("kind"); s("claim");
    s("seq"); u(9);
    s("args");
    msgpack_pack_array(&pk, ARB_CLAIM_RECORDS_MAX);
    for (i = 0; i < ARB_CLAIM_RECORDS_MAX; i++)
        s("{}");
    s("text"); s("{\"totals\":{}}");
    ACCEPT();
    begin(5);
    s("v"); u(1);
    s("kind"); s("claim");
    s("seq"); u(9);
    s("args");
    msgpack_pack_array(&pk, ARB_CLAIM_RECORDS_MAX + 1);
    for (i = 0; i <= ARB_CLAIM_RECORDS_MAX; i++)
        s("{}");
    s("text"); s("{\"totals\":{}}");
    REJECT(ARB_ETOOBIG,
           "event.args: 1025 elements, over the limit of 1024");
    open_head(3);
    s("players");
    msgpack_pack_array(&pk, ARB_PLAYERS_MAX + 1);
    for (i = 0; i <= ARB_PLAYERS_MAX; i++) {
        char name[16];
        snprintf(name, sizeof(name), "p%d", i);
        msgpack_pack_map(&pk, 1);
        s("name"); s(name);
    }
    REJECT(ARB_ETOOBIG,
           "event.setup.players: 17 elements, over the limit of 16");
    open_head(3);
    s("deal");
    msgpack_pack_map(&pk, 2);
    s("kind"); s("order");
    s("cards");
    msgpack_pack_array(&pk, ARB_DEAL_MAX + 1);
    for (i = 0; i <= ARB_DEAL_MAX; i++)
        s("c");
    REJECT(ARB_ETOOBIG,
           "event.setup.deal.cards: 257 elements, over the limit of 256");

    /* Non-canonical forms of valid values. */
    begin(3);
    s("v"); u(1);
    s("kind"); s("close");
    s("seq"); raw("\xcc\x05", 2);               /* uint8 holding 5 */
    REJECT(ARB_EPROTO,
           "event: not in canonical form (first difference at offset 19)");
    begin(3);
    raw("\xd9\x01v", 3);                        /* str8 "v" */
    u(1);
    s("kind"); s("close");
    s("seq"); u(5);
    REJECT(ARB_EPROTO,
           "event: not in canonical form (first difference at offset 1)");
    in.len = 0;
    raw("\xde\x00\x03", 3);                     /* map16 of 3 entries */
    arb_mp_packer_init(&pk, &in);
    s("v"); u(1);
    s("kind"); s("close");
    s("seq"); u(5);
    REJECT(ARB_EPROTO,
           "event: not in canonical form (first difference at offset 0)");
    begin(4);
    s("v"); u(1);
    s("kind"); s("close");
    s("seq"); u(5);
    s("time"); u(0);
    REJECT(ARB_EPROTO, "event.time: 0 is out of range (omit the key when "
           "unknown)");
    move_head(3, 1);
    s("player"); s("ann");
    s("verb"); s("pass");
    s("args"); msgpack_pack_array(&pk, 0);
    REJECT(ARB_EPROTO, "event.args: empty array (omit the key instead)");

    /* Fields that the kind does not carry, or lacks. */
    move_head(3, 1);
    s("player"); s("ann");
    s("verb"); s("pass");
    s("text"); s("why not");
    REJECT(ARB_EPROTO, "event.text: not allowed for kind \"move\"");
    move_head(3, 1);
    s("player"); s("ann");
    s("verb"); s("pass");
    s("target"); u(0);
    REJECT(ARB_EPROTO, "event.target: not allowed for kind \"move\"");
    move_head(1, 1);
    s("player"); s("ann");
    REJECT(ARB_EPROTO, "event.verb: required for kind \"move\"");
    begin(4);
    s("v"); u(1);
    s("kind"); s("void");
    s("seq"); u(9);
    s("text"); s("oops");
    REJECT(ARB_EPROTO, "event.target: required for kind \"void\"");
    begin(5);
    s("v"); u(1);
    s("kind"); s("note");
    s("seq"); u(9);
    s("player"); s("ann");
    s("text"); s("hello");
    REJECT(ARB_EPROTO, "event.player: not allowed for kind \"note\"");
    begin(3);
    s("v"); u(1);
    s("kind"); s("open");
    s("seq"); u(0);
    REJECT(ARB_EPROTO, "event.setup: required for kind \"open\"");
    begin(4);
    s("v"); u(1);
    s("kind"); s("close");
    s("seq"); u(3);
    s("setup");
    msgpack_pack_map(&pk, 2);
    s("game"); s("g");
    s("match"); s("m");
    REJECT(ARB_EPROTO, "event.setup: not allowed for kind \"close\"");
    begin(4);
    s("v"); u(1);
    s("kind"); s("open");
    s("seq"); u(3);
    s("setup");
    msgpack_pack_map(&pk, 2);
    s("game"); s("g");
    s("match"); s("m");
    REJECT(ARB_EPROTO, "event.seq: an open event is seq 0, not 3");

    /* Setup details. */
    open_head(3);
    s("options");
    msgpack_pack_array(&pk, 2);
    msgpack_pack_array(&pk, 2); s("b"); s("1");
    msgpack_pack_array(&pk, 2); s("a"); s("2");
    REJECT(ARB_EPROTO, "event.setup.options[1][0]: key not after the key of "
           "options[0] (keys must be sorted and unique)");
    open_head(3);
    s("options");
    msgpack_pack_array(&pk, 2);
    msgpack_pack_array(&pk, 2); s("a"); s("1");
    msgpack_pack_array(&pk, 2); s("a"); s("2");
    REJECT(ARB_EPROTO, "event.setup.options[1][0]: key not after the key of "
           "options[0] (keys must be sorted and unique)");
    open_head(3);
    s("options");
    msgpack_pack_array(&pk, 1);
    msgpack_pack_array(&pk, 3); s("a"); s("1"); s("2");
    REJECT(ARB_EPROTO,
           "event.setup.options[0]: expected [key, value] array, got array");
    open_head(3);
    s("options");
    msgpack_pack_array(&pk, 1);
    msgpack_pack_array(&pk, 2); s("a"); u(1);
    REJECT(ARB_EPROTO, "event.setup.options[0][1]: expected str, got int");
    open_head(4);
    s("teams");
    msgpack_pack_array(&pk, 1); s("t");
    s("players");
    msgpack_pack_array(&pk, 1);
    msgpack_pack_map(&pk, 2); s("name"); s("ann"); s("team"); u(1);
    REJECT(ARB_EPROTO,
           "event.setup.players[0].team: 1 is not the index of one of 1 "
           "teams");
    open_head(3);
    s("players");
    msgpack_pack_array(&pk, 1);
    msgpack_pack_map(&pk, 2); s("team"); u(0); s("name"); s("ann");
    REJECT(ARB_EPROTO, "event.setup.players[0]: key \"name\" out of order "
           "(must come before \"team\")");
    open_head(3);
    s("players");
    msgpack_pack_array(&pk, 2);
    msgpack_pack_map(&pk, 1); s("name"); s("ann");
    msgpack_pack_map(&pk, 1); s("name"); s("ann");
    REJECT(ARB_EPROTO, "event.setup.players[1].name: same as "
           "event.setup.players[0]");
    open_head(3);
    s("teams");
    msgpack_pack_array(&pk, 1); s("");
    REJECT(ARB_EPROTO, "event.setup.teams[0]: empty");

    /* Deal details. */
    open_head(3);
    s("deal");
    msgpack_pack_map(&pk, 2);
    s("kind"); s("commit");
    s("seed_hash"); msgpack_pack_bin_with_body(&pk, "0123456789abcdef"
                                               "0123456789abcde", 31);
    REJECT(ARB_EPROTO,
           "event.setup.deal.seed_hash: expected 32 bytes, got 31");
    open_head(3);
    s("deal");
    msgpack_pack_map(&pk, 2);
    s("kind"); s("commit");
    s("seed_hash"); s("0123456789abcdef0123456789abcdef");
    REJECT(ARB_EPROTO, "event.setup.deal.seed_hash: expected bin, got str");
    open_head(3);
    s("deal");
    msgpack_pack_map(&pk, 1);
    s("kind"); s("seed");
    REJECT(ARB_EPROTO,
           "event.setup.deal.seed_hash: required for kind \"seed\"");
    open_head(3);
    s("deal");
    msgpack_pack_map(&pk, 1);
    s("kind"); s("none");
    REJECT(ARB_EPROTO, "event.setup.deal.kind: expected \"order\", \"seed\" "
           "or \"commit\" (omit deal for none)");
    open_head(3);
    s("deal");
    msgpack_pack_map(&pk, 2);
    s("kind"); s("commit");
    s("cards"); msgpack_pack_array(&pk, 1); s("4S");
    REJECT(ARB_EPROTO,
           "event.setup.deal.seed_hash: required for kind \"commit\"");
    open_head(3);
    s("deal");
    msgpack_pack_map(&pk, 1);
    s("kind"); s("order");
    REJECT(ARB_EPROTO,
           "event.setup.deal.cards: required for kind \"order\"");

    /* Not an event at all, and hostile structure caught by the scan. */
    in.len = 0;
    raw("\x91\x01", 2);
    REJECT(ARB_EPROTO, "message: expected map, got array");
    in.len = 0;
    raw("\xdd\xff\xff\xff\xff", 5);
    REJECT(ARB_EPROTO, "array at offset 0 declares 4294967295 elements but "
           "only 0 bytes remain");
    in.len = 0;
    REJECT(ARB_EPROTO, "empty message");
}

static void test_text_valid(void);

/* ---- the mutation sweep --------------------------------------------- */

/* Decodes `p`; an accepted input must re-encode to exactly itself and a
 * rejected one must leave the event cleared.  Returns 1 on a violation. */
static int
probe(const char *p, size_t n, int *accepted)
{
    arb_event_t ev;
    arb_buf_t   out = ARB_BUF_INIT;
    int         bad = 0;

    /* The in-place walker may accept only what the full decoder accepts,
     * and must read it the same (both results re-encode to p). */
    if (arb__event_walk(&ev, (const unsigned char *)p, n) == 0) {
        if (arb_event_encode(&out, &ev) != 0 || out.len != n
            || memcmp(out.data, p, n) != 0)
            bad = 1;
        arb_event_clear(&ev);
        out.len = 0;
        if (arb__event_decode_tree(&ev, p, n, &why) != 0)
            bad = 1;
        arb_event_clear(&ev);
    }
    if (arb_event_decode(&ev, p, n, &why) == 0) {
        (*accepted)++;
        if (arb_event_encode(&out, &ev) != 0 || out.len != n
            || memcmp(out.data, p, n) != 0)
            bad = 1;
        arb_event_clear(&ev);
    } else if (ev.setup != NULL || ev.args != NULL || ev.player != NULL
               || ev.kind != 0 || ev.seq != 0) {
        bad = 1;
    }
    arb_buf_free(&out);
    return bad;
}

static void
sweep(const arb_event_t *ev, const char *label)
{
    static const unsigned char sets[] = {
        0x00, 0x01, 0x7f, 0x80, 0x90, 0xa0, 0xc0, 0xc1, 0xc4, 0xca, 0xcb,
        0xcc, 0xd9, 0xdb, 0xdc, 0xdd, 0xde, 0xdf, 0xff
    };
    arb_buf_t enc = ARB_BUF_INIT;
    char     *m;
    size_t    i, k;
    int       bad = 0, tried = 0, accepted = 0, b;

    CHECK_INT(arb_event_encode(&enc, ev), 0);
    m = malloc(enc.len + 1);
    for (i = 0; i < enc.len; i++) {
        for (b = 0; b < 8; b++) {
            memcpy(m, enc.data, enc.len);
            m[i] = (char)(m[i] ^ (1 << b));
            if (probe(m, enc.len, &accepted)) {
                bad++;
                fprintf(stderr, "  %s: flip bit %d at %zu\n", label, b, i);
            }
            tried++;
        }
        for (k = 0; k < sizeof(sets); k++) {
            memcpy(m, enc.data, enc.len);
            m[i] = (char)sets[k];
            if (probe(m, enc.len, &accepted)) {
                bad++;
                fprintf(stderr, "  %s: byte %02x at %zu\n", label, sets[k],
                        i);
            }
            tried++;
        }
    }
    /* Every proper prefix must fail: a truncated map is never complete. */
    for (i = 0; i < enc.len; i++) {
        int before = accepted;
        memcpy(m, enc.data, i);
        if (probe(m, i, &accepted) || accepted != before) {
            bad++;
            fprintf(stderr, "  %s: prefix of %zu accepted\n", label, i);
        }
        tried++;
    }
    /* One byte too many is trailing garbage. */
    memcpy(m, enc.data, enc.len);
    m[enc.len] = 0;
    {
        int before = accepted;
        if (probe(m, enc.len + 1, &accepted) || accepted != before)
            bad++;
    }
    printf("sweep %s: %d mutations, %d accepted and re-encoded "
           "identically\n", label, tried, accepted);
    CHECK_INT(bad, 0);
    CHECK(tried > 0);
    free(m);
    arb_buf_free(&enc);
}

/* The walker's words for the keys and the kinds are the fixstrs the
 * encoder writes for their names. */
static void
test_walk_words(void)
{
    unsigned char b[8];
    const char   *name;
    size_t        n;
    int           k, bad = 0;

    for (k = 0; k < EK_N + ARB_EV_KIND_MAX; k++) {
        name = k < EK_N ? arb__ev_keys[k] : arb_event_kind_name(k - EK_N);
        n = strlen(name);
        CHECK(n >= 1 && n <= 6);
        memset(b, 0, sizeof(b));
        b[0] = (unsigned char)(0xa0 | n);
        memcpy(b + 1, name, n);
        if (arb_load_le64(b) != (k < EK_N ? arb__ev_key_word[k]
                                          : arb__ev_kind_word[k - EK_N])) {
            fprintf(stderr, "  word of \"%s\" differs\n", name);
            bad++;
        }
        if (k < EK_N)
            CHECK_INT((int)arb__ev_key_len[k], (int)n);
    }
    CHECK_INT(bad, 0);
}

/* The walker reads every event, at every boundary of the msgpack forms
 * (fixstr/str8/str16, fixint/uint8..uint64, fixarray), exactly as the
 * full decoder does. */
static void
test_walk(void)
{
    static const size_t   lens[] = { 0, 1, 31, 32, 255, 256, 4096 };
    static const uint64_t ints[] = { 0, 1, 127, 128, 255, 256, 65535, 65536,
                                     4294967295u, 4294967296u,
                                     INT64_MAX };
    arb_event_t ev, got;
    arb_buf_t   enc = ARB_BUF_INIT, again = ARB_BUF_INIT;
    char       *big;
    size_t      i, j;
    int         kind, bad = 0, walked = 0;

    big = malloc(4097);
    memset(big, 'x', 4096);
    for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
        for (j = 0; j < sizeof(ints) / sizeof(ints[0]); j++) {
            for (kind = ARB_EV_MOVE; kind < ARB_EV_KIND_MAX; kind++) {
                if (kind == ARB_EV_MOVE) {
                    make_move(&ev);
                } else {
                    make_kind(&ev, kind);
                }
                ev.seq = ints[j];
                ev.time_ms = (int64_t)(ints[j] ? ints[j] : 1);
                if (arb_event_takes_target(kind))
                    ev.target = ints[j];
                big[lens[i]] = '\0';
                free(ev.text);
                ev.text = kind != ARB_EV_MOVE ? strdup(big) : NULL;
                if (lens[i] > 0 && kind != ARB_EV_NOTE && kind != ARB_EV_VOID)
                    arb_event_add_arg(&ev, big);
                big[lens[i]] = 'x';
                enc.len = 0;
                if (arb_event_encode(&enc, &ev) != 0) {
                    arb_event_clear(&ev);
                    continue;
                }
                if (arb__event_walk(&got, (const unsigned char *)enc.data,
                                    enc.len) != 0) {
                    bad++;
                    fprintf(stderr, "  walk refused %s, str %zu, int "
                            "%llu\n", arb_event_kind_name(kind), lens[i],
                            (unsigned long long)ints[j]);
                } else {
                    walked++;
                    again.len = 0;
                    if (arb_event_encode(&again, &got) != 0
                        || again.len != enc.len
                        || memcmp(again.data, enc.data, enc.len) != 0)
                        bad++;
                    arb_event_clear(&got);
                }
                arb_event_clear(&ev);
            }
        }
    }
    printf("walk: %d events read in place at every form boundary\n",
           walked);
    CHECK_INT(bad, 0);
    CHECK(walked > 300);
    /* Longer forms than needed are not canonical: refused by both. */
    {
        static const struct { const char *from, *to; size_t fl, tl; } re[] = {
            { "\xa3" "ann", "\xd9\x03" "ann", 4, 5 },
            { "\xa3" "ann", "\xda\x00\x03" "ann", 4, 6 },
            { "\xa3seq\x0c", "\xa3seq\xcc\x0c", 5, 6 },
            { "\xa3seq\x0c", "\xa3seq\xcd\x00\x0c", 5, 7 },
            { "\x92", "\xdc\x00\x02", 1, 3 },
        };
        char  *at, *m;
        size_t r, off, k;

        make_move(&ev);
        enc.len = 0;
        CHECK_INT(arb_event_encode(&enc, &ev), 0);
        arb_event_clear(&ev);
        for (r = 0; r < sizeof(re) / sizeof(re[0]); r++) {
            at = NULL;
            for (k = 0; at == NULL && k + re[r].fl <= enc.len; k++)
                if (memcmp(enc.data + k, re[r].from, re[r].fl) == 0)
                    at = enc.data + k;
            CHECK(at != NULL);
            if (at == NULL)
                continue;
            off = (size_t)(at - enc.data);
            m = malloc(enc.len + 8);
            memcpy(m, enc.data, off);
            memcpy(m + off, re[r].to, re[r].tl);
            memcpy(m + off + re[r].tl, at + re[r].fl,
                   enc.len - off - re[r].fl);
            CHECK_INT(arb__event_walk(&got, (const unsigned char *)m,
                                      enc.len - re[r].fl + re[r].tl), -1);
            CHECK_INT(arb_event_decode(&got, m, enc.len - re[r].fl
                                       + re[r].tl, &why), ARB_EPROTO);
            free(m);
        }
    }
    /* An empty actor, client id, player or verb is refused by both
     * readers (the walker checks it as it reads). */
    {
        static const struct { const char *from, *to, *why; } em[] = {
            { "\xa5" "actor" "\xa2" "td", "\xa5" "actor" "\xa0",
              "event.actor: empty" },
            { "\xa3" "cid" "\xa2" "c1", "\xa3" "cid" "\xa0",
              "event.cid: empty" },
            { "\xa6" "player" "\xa3" "ann", "\xa6" "player" "\xa0",
              "event.player: empty" },
            { "\xa4" "verb" "\xa5" "place", "\xa4" "verb" "\xa0",
              "event.verb: empty" },
        };
        char  *at, *m;
        size_t r, off, k, fl, tl;

        make_move(&ev);
        set_str(&ev.actor, "td");
        set_str(&ev.client_id, "c1");
        enc.len = 0;
        CHECK_INT(arb_event_encode(&enc, &ev), 0);
        arb_event_clear(&ev);
        for (r = 0; r < sizeof(em) / sizeof(em[0]); r++) {
            fl = strlen(em[r].from);
            tl = strlen(em[r].to);
            at = NULL;
            for (k = 0; at == NULL && k + fl <= enc.len; k++)
                if (memcmp(enc.data + k, em[r].from, fl) == 0)
                    at = enc.data + k;
            CHECK(at != NULL);
            if (at == NULL)
                continue;
            off = (size_t)(at - enc.data);
            m = malloc(enc.len);
            memcpy(m, enc.data, off);
            memcpy(m + off, em[r].to, tl);
            memcpy(m + off + tl, at + fl, enc.len - off - fl);
            CHECK_INT(arb__event_walk(&got, (const unsigned char *)m,
                                      enc.len - fl + tl), -1);
            CHECK_INT(arb_event_decode(&got, m, enc.len - fl + tl, &why),
                      ARB_EPROTO);
            CHECK_STR(arb_buf_cstr(&why), em[r].why);
            free(m);
        }
    }
    /* An open is walked too (its setup allocated), with every deal kind,
     * the least setup, and a deal of 16 and more cards (array16); in
     * scratch room it goes to the full decoder. */
    for (kind = -2; kind < DEAL_KINDS; kind++) {
        char *room;

        if (kind == -2) {
            make_open_minimal(&ev);
        } else if (kind == -1) {
            make_open(&ev, ARB_DEAL_ORDER);
            for (i = 3; i < 40; i++)
                arb_deal_add_card(&ev.setup->deal, "Q\xe2\x99\xa5");
        } else {
            make_open(&ev, kind);
        }
        enc.len = 0;
        again.len = 0;
        CHECK_INT(arb_event_encode(&enc, &ev), 0);
        CHECK_INT(arb__event_walk(&got, (const unsigned char *)enc.data,
                                  enc.len), 0);
        CHECK(got.setup != NULL);
        CHECK_INT(arb_event_encode(&again, &got), 0);
        CHECK(again.len == enc.len
              && memcmp(again.data, enc.data, enc.len) == 0);
        arb_event_clear(&got);
        room = malloc(arb__event_walk_room(enc.len));
        CHECK_INT(arb__event_walk_in(&got, (const unsigned char *)enc.data,
                                     enc.len, room), -1);
        CHECK(got.setup == NULL);
        free(room);
        arb_event_clear(&ev);
    }
    make_move(&ev);
    for (i = 2; i < 16; i++)
        arb_event_add_arg(&ev, "a");
    enc.len = 0;
    CHECK_INT(arb_event_encode(&enc, &ev), 0);
    CHECK_INT(arb__event_walk(&got, (const unsigned char *)enc.data,
                              enc.len), -1);
    CHECK_INT(arb_event_decode(&got, enc.data, enc.len, &why), 0);
    CHECK_INT((int)got.nargs, 16);
    arb_event_clear(&got);
    arb_event_clear(&ev);
    free(big);
    arb_buf_free(&enc);
    arb_buf_free(&again);
}

/* Reused room grows with the events: a small move, then one longer than
 * any before, each read whole into room of at least its size. */
static void
test_scratch_grows(void)
{
    arb_event_scratch_t sc;
    const arb_event_t  *got;
    arb_event_t         ev;
    arb_buf_t           enc = ARB_BUF_INIT, again = ARB_BUF_INIT;
    char                arg[200];
    int                 round, i;

    memset(&sc, 0, sizeof(sc));
    memset(arg, 'a', sizeof(arg) - 1);
    arg[sizeof(arg) - 1] = '\0';
    for (round = 0; round < 3; round++) {
        make_move(&ev);
        for (i = 0; i < round * 6; i++)
            arb_event_add_arg(&ev, arg);
        enc.len = 0;
        CHECK_INT(arb_event_encode(&enc, &ev), 0);
        arb_event_clear(&ev);
        CHECK_INT(arb_event_decode_scratch(&sc, enc.data, enc.len, &why,
                                           &got), 0);
        CHECK(got != NULL && sc.owned == 0);
        CHECK(sc.cap >= arb__event_walk_room(enc.len));
        again.len = 0;
        CHECK(got != NULL && arb_event_encode(&again, got) == 0
              && again.len == enc.len
              && memcmp(again.data, enc.data, enc.len) == 0);
    }
    arb_event_scratch_free(&sc);
    arb_buf_free(&enc);
    arb_buf_free(&again);
}

/* Events read from a buffer of exactly their length, ending in a short
 * string (the walker reads 8 bytes at once only where 8 remain): what
 * `make asan` or valgrind sees read past the end. */
static void
test_exact_buffer(void)
{
    arb_event_scratch_t sc;
    const arb_event_t  *got;
    arb_event_t         ev;
    arb_buf_t           enc = ARB_BUF_INIT;
    char               *p;
    int                 kind;

    memset(&sc, 0, sizeof(sc));
    for (kind = 0; kind < 3; kind++) {
        make_move(&ev);
        arb_strv_free(ev.args, ev.nargs);
        ev.args = NULL;
        ev.nargs = 0;
        if (kind == 1) {
            free(ev.verb);
            set_str(&ev.verb, "p");
        } else if (kind == 2) {
            arb_event_clear(&ev);
            make_kind(&ev, ARB_EV_NOTE);
            free(ev.text);
            set_str(&ev.text, "ok");
        }
        enc.len = 0;
        CHECK_INT(arb_event_encode(&enc, &ev), 0);
        arb_event_clear(&ev);
        p = malloc(enc.len);
        memcpy(p, enc.data, enc.len);
        CHECK_INT(arb_event_decode(&ev, p, enc.len, &why), 0);
        arb_event_clear(&ev);
        CHECK_INT(arb_event_decode_scratch(&sc, p, enc.len, &why, &got), 0);
        CHECK(got != NULL && sc.owned == 0);
        free(p);
    }
    arb_event_scratch_free(&sc);
    arb_buf_free(&enc);
}

static void
test_mutations(void)
{
    arb_event_t ev;
    int         deal;

    make_move(&ev);
    sweep(&ev, "move");
    arb_event_clear(&ev);
    for (deal = ARB_DEAL_NONE; deal <= ARB_DEAL_COMMIT; deal++) {
        make_open(&ev, deal);
        sweep(&ev, "open");
        arb_event_clear(&ev);
    }
    make_kind(&ev, ARB_EV_AMEND);
    sweep(&ev, "amend");
    arb_event_clear(&ev);
    make_kind(&ev, ARB_EV_CLAIM);
    sweep(&ev, "claim");
    arb_event_clear(&ev);
}

/* ---- the request-reading helpers ------------------------------------ */

static void
test_mp_helpers(void)
{
    static const char *const keys[] = { "op", "match", "seq" };
    const msgpack_object    *vals[3];
    msgpack_unpacked         res;
    char                    *str;
    uint64_t                 uv;
    int64_t                  iv;

    begin(3);
    s("seq"); u(7);
    s("op"); s("append");
    s("match"); msgpack_pack_int64(&pk, -3);
    CHECK_INT(arb_mp_parse(&res, in.data, in.len, &why), 0);
    /* Unordered: any order, but still no unknown or duplicate keys. */
    CHECK_INT(arb_mp_fields(&res.data, keys, 3, 0, vals, &why, "req"), 0);
    CHECK(vals[2] == arb_mp_get(&res.data, "seq"));
    CHECK(arb_mp_get(&res.data, "nope") == NULL);
    CHECK(arb_mp_get(NULL, "seq") == NULL);
    CHECK_INT(arb_mp_fields(&res.data, keys, 3, 1, vals, &why, "req"),
              ARB_EPROTO);
    CHECK_STR(arb_buf_cstr(&why),
              "req: key \"op\" out of order (must come before \"seq\")");
    CHECK_INT(arb_mp_uint(arb_mp_get(&res.data, "seq"), &uv, &why, "req.seq"),
              0);
    CHECK_INT(uv, 7);
    CHECK_INT(arb_mp_str(arb_mp_get(&res.data, "op"), &str, &why, "req.op"),
              0);
    CHECK_STR(str, "append");
    free(str);
    CHECK_INT(arb_mp_int(arb_mp_get(&res.data, "match"), &iv, &why, "m"), 0);
    CHECK_INT(iv, -3);
    CHECK_INT(arb_mp_uint(arb_mp_get(&res.data, "match"), &uv, &why, "m"),
              ARB_EPROTO);
    CHECK_INT(arb_mp_str(arb_mp_get(&res.data, "who"), &str, &why, "req.who"),
              ARB_EPROTO);
    CHECK_STR(arb_buf_cstr(&why), "req.who: missing");
    CHECK(str == NULL);
    CHECK_STR(arb_mp_type_name(arb_mp_get(&res.data, "op")), "str");
    msgpack_unpacked_destroy(&res);

    /* A NUL as a str's last byte; int64's edge. */
    begin(3);
    s("s"); msgpack_pack_str_with_body(&pk, "ab\0", 3);
    s("max"); u((uint64_t)INT64_MAX);
    s("over"); u((uint64_t)INT64_MAX + 1);
    CHECK_INT(arb_mp_parse(&res, in.data, in.len, &why), 0);
    CHECK_INT(arb_mp_str(arb_mp_get(&res.data, "s"), &str, &why, "req.s"),
              ARB_EPROTO);
    CHECK_STR(arb_buf_cstr(&why), "req.s: NUL byte at offset 2");
    CHECK(str == NULL);
    CHECK_INT(arb_mp_int(arb_mp_get(&res.data, "max"), &iv, &why, "max"),
              0);
    CHECK(iv == INT64_MAX);
    CHECK_INT(arb_mp_int(arb_mp_get(&res.data, "over"), &iv, &why, "over"),
              ARB_EPROTO);
    CHECK_STR(arb_buf_cstr(&why), "over: 9223372036854775808 out of range");
    msgpack_unpacked_destroy(&res);

    CHECK_INT(arb_mp_utf8_valid("", 0), 1);
    CHECK_INT(arb_mp_utf8_valid("\xf0\x9f\x82\xa1", 4), 1);   /* U+1F0A1 */
    CHECK_INT(arb_mp_utf8_valid("\xe0\x80\xaf", 3), 0);       /* overlong */
    CHECK_INT(arb_mp_utf8_valid("\x80", 1), 0);
    CHECK_INT(arb_mp_utf8_valid("\xf8\x88\x80\x80\x80", 5), 0);
    /* The surrogates, at both ends, and their neighbours. */
    CHECK_INT(arb_mp_utf8_valid("\xed\x9f\xbf", 3), 1);       /* U+D7FF */
    CHECK_INT(arb_mp_utf8_valid("\xed\xa0\x80", 3), 0);       /* U+D800 */
    CHECK_INT(arb_mp_utf8_valid("\xed\xbf\xbf", 3), 0);       /* U+DFFF */
    CHECK_INT(arb_mp_utf8_valid("\xee\x80\x80", 3), 1);       /* U+E000 */
    CHECK_INT(arb_mp_utf8_valid("\xf4\x8f\xbf\xbf", 4), 1);   /* U+10FFFF */
    CHECK_INT(arb_mp_utf8_valid("\xf4\x90\x80\x80", 4), 0);
    test_text_valid();
}

/* arb_mp_text_valid is UTF-8 without NUL, whatever the string's length
 * and wherever its NUL or non-ASCII byte sits (its word-at-a-time path
 * and the byte path meet at every offset). */
static void
test_text_valid(void)
{
    static const unsigned char odd[] = { 0x00, 0x80, 0xc3, 0xe0, 0xff, 0x7f };
    char          s[40];
    size_t        n, at, k, bad = 0;
    unsigned      x = 12345;
    int           want;

    for (k = 0; k < EK_N; k++)
        CHECK_INT(arb__ev_key_len[k], strlen(arb__ev_keys[k]));
    CHECK_INT(arb_mp_text_valid("", 0), 1);
    CHECK_INT(arb_mp_text_valid("abcdefgh12345678", 16), 1);
    CHECK_INT(arb_mp_text_valid("abcdefgh\xc3\xa9", 10), 1);
    CHECK_INT(arb_mp_text_valid("abcdefg\0", 8), 0);
    CHECK_INT(arb_mp_text_valid("abcdefgh\xc3\xa9\0", 11), 0);
    for (n = 0; n <= 32; n++)
        for (at = 0; at < n; at++)
            for (k = 0; k < sizeof(odd); k++) {
                memset(s, 'a', n);
                s[at] = (char)odd[k];
                want = arb_mp_utf8_valid(s, n) && memchr(s, 0, n) == NULL;
                bad += arb_mp_text_valid(s, n) != want;
            }
    for (k = 0; k < 20000; k++) {       /* random mixes */
        n = k % 33;
        for (at = 0; at < n; at++) {
            x = x * 1103515245u + 12345u;
            s[at] = (char)((x >> 16) % 5 == 0 ? (x >> 8) & 0xff
                                              : 'a' + (x >> 20) % 26);
        }
        want = arb_mp_utf8_valid(s, n) && memchr(s, 0, n) == NULL;
        bad += arb_mp_text_valid(s, n) != want;
    }
    CHECK_INT((long long)bad, 0);
}

int
main(void)
{
    test_round_trips();
    test_golden();
    test_golden_claim();
    test_encode_rejects();
    test_decode_rejects();
    test_mutations();
    test_walk_words();
    test_walk();
    test_walk_refuses();
    test_scratch_grows();
    test_exact_buffer();
    test_mp_helpers();
    arb_buf_free(&in);
    arb_buf_free(&why);
    return TEST_END();
}
