/*
 * test_tourn.c - the tournament pseudo-game, pairing lists, standings and
 * the director's board.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/board.h"
#include "core/claim.h"
#include "core/err.h"
#include "core/replay.h"
#include "core/match.h"
#include "core/standings.h"
#include "core/tourn.h"
#include "core/tourn_view.h"
#include "tests/replay_text.h"
#include "tests/test.h"

static arb_match_t *
open_match(const char *game, const char *id, const char *const *players,
           size_t np, const char *opt_k, const char *opt_v,
           const char *opt2_k, const char *opt2_v)
{
    arb_event_t    ev;
    arb_setup_t   *s;
    arb_match_t   *m = NULL;
    arb_verdict_t  v;
    size_t         i;

    memset(&ev, 0, sizeof(ev));
    ev.kind = ARB_EV_OPEN;
    s = ev.setup = calloc(1, sizeof(*s));
    s->game = strdup(game);
    s->match_id = strdup(id);
    for (i = 0; i < np; i++)
        arb_setup_add_player(s, players[i], -1);
    if (opt_k != NULL)
        arb_setup_set_option(s, opt_k, opt_v);
    if (opt2_k != NULL)
        arb_setup_set_option(s, opt2_k, opt2_v);
    if (arb_match_open(&m, &ev, &v) != 0)
        m = NULL;
    arb_event_clear(&ev);
    return m;
}

/* Applies an event of `kind` with text; the verdict's code. */
static int
act(arb_match_t *m, arb_verdict_t *v, int kind, const char *text)
{
    arb_event_t ev;
    int         rc;

    memset(&ev, 0, sizeof(ev));
    ev.kind = kind;
    ev.text = text ? strdup(text) : NULL;
    rc = arb_match_apply(m, &ev, v);
    arb_event_clear(&ev);
    return rc;
}

static int
move(arb_match_t *m, arb_verdict_t *v, const char *verb, const char *player,
     const char *a0, const char *a1, const char *a2)
{
    arb_event_t ev;
    int         rc;

    memset(&ev, 0, sizeof(ev));
    ev.kind = ARB_EV_MOVE;
    ev.verb = strdup(verb);
    ev.player = strdup(player);
    if (a0)
        arb_event_add_arg(&ev, a0);
    if (a1)
        arb_event_add_arg(&ev, a1);
    if (a2)
        arb_event_add_arg(&ev, a2);
    rc = arb_match_apply(m, &ev, v);
    arb_event_clear(&ev);
    return rc;
}

/* Claims m's own report with `delta` added to its first total; the
 * claim event's verdict code. */
static int
claim_own(arb_match_t *m, int delta)
{
    arb_buf_t     b = ARB_BUF_INIT, why = ARB_BUF_INIT;
    arb_claim_t   c;
    arb_event_t   ev;
    arb_verdict_t v;
    json_t       *o = NULL, *tot;
    const char   *k;
    json_t       *val;
    char         *text = NULL;
    int           rc = -1;

    memset(&c, 0, sizeof(c));
    memset(&ev, 0, sizeof(ev));
    if (arb_report_json(&b, m) != 0
        || (o = json_loadb(b.data, b.len, 0, NULL)) == NULL)
        goto done;
    tot = json_object_get(o, "totals");
    json_object_foreach(tot, k, val) {
        json_object_set_new(tot, k,
                            json_integer(json_integer_value(val) + delta));
        break;
    }
    text = json_dumps(o, JSON_COMPACT);
    if (text != NULL
        && arb_claim_parse(&c, text, strlen(text), NULL, &why) == 0
        && arb_claim_to_event(&ev, &c) == 0) {
        ev.kind = ARB_EV_CLAIM;
        rc = arb_match_apply(m, &ev, &v);
    }
done:
    free(text);
    json_decref(o);
    arb_event_clear(&ev);
    arb_claim_clear(&c);
    arb_buf_free(&b);
    arb_buf_free(&why);
    return rc;
}

static void
test_rules(void)
{
    const char *dir[] = { "director" };
    arb_match_t *t;
    arb_verdict_t v;
    arb_results_t r;

    CHECK(open_match("tournament", "T", dir, 1, NULL, NULL, NULL, NULL) == NULL);
    CHECK(open_match("tournament", "T", dir, 1, "game", "tournament", NULL, NULL)
          == NULL);
    CHECK(open_match("tournament", "T", dir, 1, "colour", "red", NULL, NULL) == NULL);
    t = open_match("tournament", "T", dir, 1, "game", "yahchain",
                   "game.mode", "3");
    CHECK(t != NULL);
    if (t == NULL)
        return;
    CHECK_INT(move(t, &v, "round", "alice", "1", "1:T-R1-T1:a,b", NULL),
              ARB_EILLEGAL);
    CHECK_STR(v.rule, "tournament.director");
    CHECK_INT(move(t, &v, "round", "director", "2", "1:T-R1-T1:a,b", NULL),
              ARB_EILLEGAL);
    CHECK_INT(move(t, &v, "round", "director", "1", "1:T-R1-T1:a,b",
                   "2:T-R1-T2:b,c"), ARB_EILLEGAL);
    CHECK(strstr(v.msg, "b plays at table 1 and at table 2") != NULL);
    CHECK_INT(move(t, &v, "round", "director", "1", "1:T-R1-T1:a,a", NULL),
              ARB_EINVAL);
    CHECK_INT(move(t, &v, "round", "director", "1", "1:T-R1-T1", NULL),
              ARB_EINVAL);
    /* a table without players, or a match id that is no name, is named
     * as such */
    CHECK_INT(move(t, &v, "round", "director", "1", "1:T-R1-T1:", NULL),
              ARB_EINVAL);
    CHECK(strstr(v.msg, "'1:T-R1-T1:' is not TABLE:MATCH:PLAYER,...")
          != NULL);
    CHECK_INT(move(t, &v, "round", "director", "1", "1:T R1:a,b", NULL),
              ARB_EINVAL);
    CHECK(strstr(v.msg, "table '1' or match 'T R1' is not a valid name")
          != NULL);
    CHECK_INT(move(t, &v, "round", "director", "1", "1:T-R1-T1:a,b",
                   "2:T-R1-T2:c,d"), 0);
    /* `tables 1`: more tables of the round in progress, judged as the
     * round's own, all of an act or none of it. */
    CHECK_INT(move(t, &v, "tables", "director", "1", "3:T-R1-T3:e,f",
                   "4:T-R1-T4:a,g"), ARB_EILLEGAL);
    CHECK(strstr(v.msg, "a plays at table 1 and at table 4") != NULL);
    CHECK_INT(move(t, &v, "tables", "director", "1", "2:T-R1-T9:g,h", NULL),
              ARB_EILLEGAL);         /* table 2 again */
    CHECK_INT(move(t, &v, "tables", "director", "1", "9:T-R1-T1:g,h", NULL),
              ARB_EILLEGAL);         /* its match again */
    CHECK_INT(move(t, &v, "tables", "director", "2", "3:T-R1-T3:e,f", NULL),
              ARB_EILLEGAL);
    CHECK_STR(v.rule, "tournament.tables");
    CHECK_INT(move(t, &v, "tables", "director", "1", NULL, NULL),
              ARB_EINVAL);
    CHECK_INT(move(t, &v, "tables", "director", "1", "3:T-R1-T3:e,f", NULL),
              0);                    /* the refused act kept nothing */
    CHECK_INT(move(t, &v, "round", "director", "2", "1:T-R2-T1:a,c", NULL),
              ARB_EILLEGAL);         /* round 1 not over */
    CHECK_INT(move(t, &v, "end", "director", "2", NULL, NULL), ARB_EILLEGAL);
    CHECK_INT(move(t, &v, "end", "director", "1", NULL, NULL), 0);
    CHECK_INT(move(t, &v, "tables", "director", "1", "5:T-R1-T5:g,h", NULL),
              ARB_EILLEGAL);         /* round 1 is over */
    CHECK_INT(move(t, &v, "round", "director", "2", "1:T-R1-T1:a,c", NULL),
              ARB_EILLEGAL);         /* a match id used twice */
    CHECK_INT(move(t, &v, "round", "director", "2", "1:T-R2-T1:a,c", NULL),
              0);
    CHECK_INT(act(t, &v, ARB_EV_NOTE, "hello"), 0);
    /* The results are built from nothing: what the caller's struct held
     * is not read (until 2026-12-05 it was, and a state read of a
     * tournament could crash the recorder). */
    memset(&r, 0xa5, sizeof(r));
    CHECK_INT(arb_match_results(t, &r), 0);
    CHECK_INT(r.nrecords, 4);
    if (r.nrecords == 4) {
        CHECK_STR(arb_record_get(&r.records[2], "match")->str, "T-R1-T3");
        CHECK_STR(arb_record_get(&r.records[3], "match")->str, "T-R2-T1");
        CHECK_INT(arb_record_get(&r.records[0], "ended")->num, 1);
        CHECK_INT(arb_record_get(&r.records[3], "ended")->num, 0);
        /* each fixed by the act that recorded it */
        CHECK_INT(r.records[0].seq, 1);
        CHECK_INT(r.records[2].seq, 2);
        CHECK_INT(r.records[3].seq, 4);
    }
    arb_results_clear(&r);
    arb_match_free(t);

    /* A table that its game would refuse is refused with the round:
     * YAHchain needs its mode fixed at open. */
    t = open_match("tournament", "U", dir, 1, "game", "yahchain", NULL, NULL);
    CHECK(t != NULL);
    if (t == NULL)
        return;
    CHECK_INT(move(t, &v, "round", "director", "1", "1:U-R1-T1:a,b", NULL),
              ARB_EILLEGAL);
    CHECK_STR(v.rule, "tournament.table");
    CHECK(strstr(v.msg, "table 1 (U-R1-T1) cannot be opened: §34.5") != NULL);
    if (strstr(v.msg, "cannot be opened: §34.5") == NULL)
        fprintf(stderr, "got: %s\n", v.msg);
    CHECK_INT(arb_match_next_seq(t), 1);
    arb_match_free(t);
    t = open_match("tournament", "U", dir, 1, "game.mode", "3", NULL, NULL);
    CHECK(t == NULL);           /* game.* alone: the game is missing */
    arb_match_free(t);
}

static void
test_pairing(void)
{
    arb_pairing_t p;
    arb_buf_t     why = ARB_BUF_INIT;
    const char   *ok = "round,table,p1,p2\r\n# comment\n1,1,a,b\n\n1,2,c,d\n"
                       "2,A.1,a,c,e";
    arb_buf_t     id = ARB_BUF_INIT;
    char          big[100];

    CHECK_INT(arb_pairing_parse(&p, ok, strlen(ok), &why), 0);
    CHECK_INT(p.nrows, 3);
    if (p.nrows == 3) {
        CHECK_INT(p.rows[2].round, 2);
        CHECK_STR(p.rows[2].t.table, "A.1");
        CHECK_INT(p.rows[2].t.nplayers, 3);
        CHECK_INT(p.rows[1].line, 5);
    }
    arb_pairing_clear(&p);
#define BAD(text, msg) do {                                               \
        why.len = 0;                                                      \
        CHECK(arb_pairing_parse(&p, text, strlen(text), &why) != 0);      \
        CHECK(strstr(arb_buf_cstr(&why), msg) != NULL);                   \
        CHECK_INT(p.nrows, 0);                                            \
    } while (0)
    BAD("1,1,a,b\n0,2,c,d\n", "line 2: round '0'");
    BAD("1,1,a,b\n1,2\n", "line 2: want round,table");
    BAD("1,1,\n", "line 1: want round,table,player");
    BAD(",1,a,b\n", "line 1: round: want a number");
    BAD("1,1,a,a\n", "line 1: table 1: player a is seated twice");
    /* a table seats at most ARB_PLAYERS_MAX (16) */
    BAD("1,1,a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q\n",
        "line 1: table 1: more than 16 players");
    BAD("1,1,a:x,b:x,c:x,d:x,e:x,f:x,g:x,h:x,i:x,j:x,k:x,l:x,m:x,n:x,o:x,"
        "p:x,q:x\n", "line 1: table 1: more than 16 players");
    why.len = 0;
    CHECK_INT(arb_pairing_parse(&p, "1,1,a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p\n",
                                36, &why), 0);
    CHECK_INT(p.nrows == 1 ? p.rows[0].t.nplayers : 0, 16);
    arb_pairing_clear(&p);
    BAD("1,t 1,a,b\n", "line 1: table 't 1'");
    BAD("1,1,a,,b\n", "player '' is not a valid name");
    BAD("", "no tables");
    BAD("x,1,a,b\n", "line 1: round 'x'");
    /* a team game: PLAYER:TEAM for every player or none */
    BAD("1,1,a:long,b\n", "table 1: player b: every player has a team");
    BAD("1,1,a,b:short\n", "table 1: player b: every player has a team");
    BAD("1,1,a:lo ng,b:short\n", "team 'lo ng' is not a valid name");
    /* what cannot be a name is named by its column, never echoed (an
     * escape sequence would drive the operator's terminal) */
    BAD("1,1,a,b\n1,2,c\x1b[2J,d\n", "line 2: a control character (U+001B) "
        "in column 6");
    BAD("1,1,a,b\xff\n", "line 1: invalid UTF-8 in column 8");
    BAD("1,1,a\t,b\n", "line 1: a control character (U+0009) in column 6");
    /* 2026-12-06: a round past 999999 says the bound; a header after a
     * table is refused as one; a NUL is named by its column */
    BAD("1000000,1,a,b\n", "line 1: round '1000000': want a number from 1 "
        "to 999999");
    BAD("1,1,a,b\nround,table,p1,p2\n", "line 2: a header line "
        "(round,...) comes once, before the tables");
    BAD("round,t,p\nround,t,p\n1,1,a,b\n", "line 2: a header line");
    /* a header alone is no table; a comment starts its line */
    BAD("round,table,p1,p2\n# none yet\n", "no tables");
    BAD("1,1,a,b\n  # later\n", "line 2: want round,table");
    BAD("1,1,a,b\n1,2,c,d\n\n1,1,e,f\n", "line 4: table 1 of round 1 again "
        "(line 1)");
    BAD("1,1,a,b\n2,1,c,d\n1,2,c,b\n", "line 3: b plays at table 1 (line 1) "
        "and at table 2 of round 1");
    why.len = 0;
    CHECK(arb_pairing_parse(&p, "1,1,a,b\0\n", 9, &why) != 0);
    CHECK_STR(arb_buf_cstr(&why), "line 1: a control character (U+0000) in "
              "column 8");
    /* a spreadsheet's byte order mark, a comment or a blank line before
     * the header, a line of blanks: read as nothing */
    {
        static const char *const good[] = {
            "\xef\xbb\xbfround,table,p1,p2\n1,1,a,b\n",
            "# Open26\n\nround,table,p1,p2\n1,1,a,b\n",
            "round,table,p1,p2\n   \n1,1,a,b\n",
            "round,table,p1,p2\r\n\r\n1,1,a,b\r\n",  /* CRLF, blank */
            "\357\273\2771,1,a,b\n",    /* the mark, octal: 3 digits */
        };
        size_t k;

        for (k = 0; k < sizeof(good) / sizeof(good[0]); k++) {
            why.len = 0;
            CHECK_INT(arb_pairing_parse(&p, good[k], strlen(good[k]), &why),
                      0);
            CHECK_INT(p.nrows, 1);
            if (p.nrows == 1)
                CHECK_STR(p.rows[0].t.players[0], "a");
            arb_pairing_clear(&p);
        }
    }
    CHECK_INT(arb_tourn_match_id(&id, "Open", 2, "7"), 0);
    CHECK_STR(arb_buf_cstr(&id), "Open-R2-T7");
    memset(big, 'x', 60);
    big[60] = '\0';
    CHECK_INT(arb_tourn_match_id(&id, big, 2, "7"), ARB_ETOOBIG);
    /* 64 bytes is a match id, 65 is not */
    big[58] = '\0';
    CHECK_INT(arb_tourn_match_id(&id, big, 2, "7"), 0);
    CHECK_INT(id.len, 64);
    CHECK_INT(arb_tourn_match_id(&id, big, 2, "77"), ARB_ETOOBIG);
    /* at most ARB_TOURN_ROWS_MAX (4096) lines of tables */
    {
        arb_buf_t rows = ARB_BUF_INIT;
        unsigned  n;

        for (n = 1; n <= ARB_TOURN_ROWS_MAX; n++)
            arb_buf_printf(&rows, "%u,1,a,b\n", n);
        why.len = 0;
        CHECK_INT(arb_pairing_parse(&p, rows.data, rows.len, &why), 0);
        CHECK_INT(p.nrows, ARB_TOURN_ROWS_MAX);
        arb_pairing_clear(&p);
        arb_buf_printf(&rows, "%u,1,a,b\n", n);
        why.len = 0;
        CHECK_INT(arb_pairing_parse(&p, rows.data, rows.len, &why),
                  ARB_ETOOBIG);
        CHECK_STR(arb_buf_cstr(&why), "line 4097: more than 4096 tables");
        CHECK_INT(p.nrows, 0);
        arb_buf_free(&rows);
    }
    arb_buf_free(&id);
    arb_buf_free(&why);
}

/* A tournament directed by "director" with options kv (key, value, ...,
 * NULL), or NULL when refused. */
static arb_match_t *
open_tourn(const char *id, const char *const *kv)
{
    arb_event_t    ev;
    arb_match_t   *m = NULL;
    arb_verdict_t  v;

    memset(&ev, 0, sizeof(ev));
    ev.kind = ARB_EV_OPEN;
    ev.setup = calloc(1, sizeof(*ev.setup));
    ev.setup->game = strdup("tournament");
    ev.setup->match_id = strdup(id);
    arb_setup_add_player(ev.setup, "director", -1);
    for (; *kv != NULL; kv += 2)
        arb_setup_set_option(ev.setup, kv[0], kv[1]);
    if (arb_match_open(&m, &ev, &v) != 0)
        m = NULL;
    arb_event_clear(&ev);
    return m;
}

/* A team game's tables: teams parsed, formatted back, recorded by the
 * tournament, and a table opens with its
 * sides in the order they first appear; deal=seed judges a table that
 * needs a deal (SKIM-10 Chains). */
static void
test_teams(void)
{
    static const char *const none[] = { "game", "chains", "game.deck", "36",
                                        "game.scoring", "square", NULL };
    static const char *const seed[] = { "game", "chains", "game.deck", "36",
                                        "game.scoring", "square",
                                        "deal", "seed", NULL };
    static const char *const cards[] = { "game", "chains", "deal", "order",
                                         NULL };
    arb_tourn_table_t tb;
    arb_setup_t   game, su, table, *ts = &table;
    arb_verdict_t v;
    arb_buf_t     b = ARB_BUF_INIT;
    arb_results_t r;
    arb_match_t  *t;
    const arb_field_t *f;

    CHECK_INT(arb_tourn_table_parse(&tb, "1:C-R1-T1:ann:short,bob:long,"
                                    "cid:short,dan:long", &v), 0);
    CHECK(tb.teams != NULL && strcmp(tb.teams[3], "long") == 0);
    arb_tourn_table_format(&b, &tb);
    CHECK_STR(arb_buf_cstr(&b), "1:C-R1-T1:ann:short,bob:long,cid:short,"
              "dan:long");
    memset(&su, 0, sizeof(su));
    su.game = strdup("tournament");
    arb_setup_set_option(&su, "game", "chains");
    arb_setup_set_option(&su, "game.deck", "36");
    arb_setup_set_option(&su, "deal", "seed");
    CHECK_INT(arb_tourn_game_setup(&game, &su), 0);
    CHECK_INT(arb_tourn_table_setup(&table, &game, &tb), 0);
    CHECK_INT(ts->nteams, 2);
    CHECK(ts->nteams == 2 && strcmp(ts->teams[0], "short") == 0);
    CHECK_INT(ts->players[1].team, 1);
    CHECK_INT(ts->deal.kind, ARB_DEAL_SEED);
    /* judged with the placeholder seed: the recorder draws the real one */
    CHECK_STR(ts->deal.seed != NULL ? ts->deal.seed : "",
              ARB_TOURN_SEED_JUDGE);
    CHECK_STR(arb_setup_option(ts, "deck"), "36");
    arb_setup_clear(&table);
    arb_setup_clear(&su);
    arb_setup_clear(&game);
    arb_tourn_table_clear(&tb);

    /* Chains needs a deal: refused without deal=seed, judged with it */
    t = open_tourn("C", none);
    CHECK(t != NULL && move(t, &v, "round", "director", "1",
                            "1:C-R1-T1:ann:long,bob:short", NULL)
                       == ARB_EILLEGAL);
    CHECK(strstr(v.msg, "needs its deal recorded") != NULL);
    arb_match_free(t);
    CHECK(open_tourn("C", cards) == NULL);      /* deal=seed or nothing */
    t = open_tourn("C", seed);
    CHECK(t != NULL);
    if (t == NULL)
        goto done;
    /* a table without sides: Chains' own words */
    CHECK_INT(move(t, &v, "round", "director", "1", "1:C-R1-T1:ann,bob",
                   NULL), ARB_EILLEGAL);
    CHECK(strstr(v.msg, "two teams") != NULL);
    CHECK_INT(move(t, &v, "round", "director", "1",
                   "1:C-R1-T1:ann:long,bob:short", NULL), 0);
    memset(&r, 0, sizeof(r));
    CHECK_INT(arb_match_results(t, &r), 0);
    f = r.nrecords == 1 ? arb_record_get(&r.records[0], "teams") : NULL;
    CHECK(f != NULL && f->nlist == 2 && strcmp(f->list[1], "short") == 0);
    arb_results_clear(&r);
    arb_match_free(t);
done:
    arb_buf_free(&b);
}

/* Three closed matches and one open; totals set by hand. */
static void
test_standings(void)
{
    char *p1[] = { "ann", "bob" }, *p2[] = { "cid", "dan" },
         *p3[] = { "ann", "cid" }, *p4[] = { "bob", "dan" };
    arb_results_t r[4];
    arb_standings_match_t in[4];
    arb_standings_t s;
    arb_buf_t b = ARB_BUF_INIT;
    unsigned char head[ARB_HASH_LEN];
    int i;

    memset(r, 0, sizeof(r));
    memset(in, 0, sizeof(in));
    memset(head, 0xaf, sizeof(head));
    arb_results_add_total(&r[0], "ann", 21);
    arb_results_add_total(&r[0], "bob", 33);
    arb_results_add_total(&r[1], "cid", 10);
    arb_results_add_total(&r[1], "dan", 10);
    arb_results_add_total(&r[2], "ann", 40);
    arb_results_add_total(&r[2], "cid", 0);
    arb_results_add_total(&r[3], "bob", 500);
    for (i = 0; i < 4; i++) {
        in[i].round = 1 + (i >= 2);
        in[i].table = i % 2 ? "2" : "1";
        in[i].players = i == 0 ? p1 : i == 1 ? p2 : i == 2 ? p3 : p4;
        in[i].nplayers = 2;
        in[i].counted = i < 3;
        in[i].seq = 10 + (uint64_t)i;
        in[i].res = &r[i];
    }
    in[0].match = "M1"; in[1].match = "M2"; in[2].match = "M3";
    in[3].match = "M4";
    CHECK_INT(arb_standings_compute(&s, in, 4, ARB_STANDINGS_GP), 0);
    arb_standings_csv(&b, &s, in);
    /* ann 61 (1 win), bob 33 (1 win; M4 not closed), cid 10 = dan 10 on
     * every key: a shared rank, listed by name */
    CHECK_STR(arb_buf_cstr(&b),
              "rank,player,points,gp,mp,wins,draws,losses,played,matches\n"
              "1,ann,61,61,2,1,0,1,2,M1@10;M3@12\n"
              "2,bob,33,33,2,1,0,0,1,M1@10\n"
              "3,cid,10,10,1,0,1,1,2,M2@11;M3@12\n"
              "3,dan,10,10,1,0,1,0,1,M2@11\n");
    arb_standings_clear(&s);
    b.len = 0;
    CHECK_INT(arb_standings_compute(&s, in, 4, ARB_STANDINGS_MP), 0);
    arb_standings_csv(&b, &s, in);
    /* mp: ann 2, bob 2 (gp 61 > 33), cid 1 = dan 1 on gp 10, wins 0,
     * best 10: shared rank 3, listed by name */
    CHECK_STR(arb_buf_cstr(&b),
              "rank,player,points,gp,mp,wins,draws,losses,played,matches\n"
              "1,ann,2,61,2,1,0,1,2,M1@10;M3@12\n"
              "2,bob,2,33,2,1,0,0,1,M1@10\n"
              "3,cid,1,10,1,0,1,1,2,M2@11;M3@12\n"
              "3,dan,1,10,1,0,1,0,1,M2@11\n");
    b.len = 0;
    arb_standings_json(&b, "T", &s, in, 4);
    CHECK(strstr(arb_buf_cstr(&b), "\"rule\":\"mp\"") != NULL);
    CHECK(strstr(arb_buf_cstr(&b), "\"uncounted\":[\"M4\"]") != NULL);
    CHECK(strstr(arb_buf_cstr(&b), "{\"match\":\"M3\",\"round\":2,"
                 "\"table\":\"1\",\"seq\":12,\"gp\":40,\"result\":\"win\"}")
          != NULL);
    /* ann's best game, 40 of her 61 */
    CHECK(strstr(arb_buf_cstr(&b), "\"player\":\"ann\",\"points\":2,"
                 "\"gp\":61,\"mp\":2,\"wins\":1,\"draws\":0,\"losses\":1,"
                 "\"best\":40,") != NULL);
    arb_standings_clear(&s);
    b.len = 0;
    /* the head in hex, both halves of each byte */
    in[1].head = head;
    arb_standings_results_csv(&b, "T", in, 4);
    CHECK(strstr(arb_buf_cstr(&b), "\nT,1,2,M2,11,afafafaf") != NULL);
    CHECK(strstr(arb_buf_cstr(&b), ",dan,2,10,draw\n") != NULL);
    CHECK(strstr(arb_buf_cstr(&b), "M4") == NULL);
    arb_buf_free(&b);
    for (i = 0; i < 4; i++)
        arb_results_clear(&r[i]);
}

/* Every tiebreak key is used, in its order (docs/TOURNAMENT.md): eve and
 * fay are level on game points and wins, and on match points and game
 * points; only the best game (fay's 30 to eve's 20) separates them, under
 * either rule.  Until 2026-12-07 no test told the last two keys apart
 * from a shared rank listed by name. */
static void
test_tiebreaks(void)
{
    char *p[4][2] = { { "eve", "ann" }, { "eve", "bob" },
                      { "fay", "cid" }, { "fay", "dan" } };
    static const int64_t pts[4][2] = { { 20, 10 }, { 20, 30 },
                                       { 30, 0 }, { 10, 15 } };
    static const char *const ids[4] = { "M1", "M2", "M3", "M4" };
    arb_results_t r[4];
    arb_standings_match_t in[4];
    arb_standings_t s;
    arb_buf_t b = ARB_BUF_INIT;
    int i;

    memset(r, 0, sizeof(r));
    memset(in, 0, sizeof(in));
    for (i = 0; i < 4; i++) {
        arb_results_add_total(&r[i], p[i][0], pts[i][0]);
        arb_results_add_total(&r[i], p[i][1], pts[i][1]);
        in[i].round = 1 + (i % 2);
        in[i].table = i < 2 ? "1" : "2";
        in[i].match = ids[i];
        in[i].players = p[i];
        in[i].nplayers = 2;
        in[i].counted = 1;
        in[i].seq = 10 + (uint64_t)i;
        in[i].res = &r[i];
    }
    CHECK_INT(arb_standings_compute(&s, in, 4, ARB_STANDINGS_GP), 0);
    arb_standings_csv(&b, &s, in);
    CHECK_STR(arb_buf_cstr(&b),
              "rank,player,points,gp,mp,wins,draws,losses,played,matches\n"
              "1,fay,40,40,2,1,0,1,2,M3@12;M4@13\n"
              "2,eve,40,40,2,1,0,1,2,M1@10;M2@11\n"
              "3,bob,30,30,2,1,0,0,1,M2@11\n"
              "4,dan,15,15,2,1,0,0,1,M4@13\n"
              "5,ann,10,10,0,0,0,1,1,M1@10\n"
              "6,cid,0,0,0,0,0,1,1,M3@12\n");
    arb_standings_clear(&s);
    b.len = 0;
    CHECK_INT(arb_standings_compute(&s, in, 4, ARB_STANDINGS_MP), 0);
    arb_standings_csv(&b, &s, in);
    /* mp 2 for four of them: gp 40, 40, 30, 15; fay before eve on best */
    CHECK_STR(arb_buf_cstr(&b),
              "rank,player,points,gp,mp,wins,draws,losses,played,matches\n"
              "1,fay,2,40,2,1,0,1,2,M3@12;M4@13\n"
              "2,eve,2,40,2,1,0,1,2,M1@10;M2@11\n"
              "3,bob,2,30,2,1,0,0,1,M2@11\n"
              "4,dan,2,15,2,1,0,0,1,M4@13\n"
              "5,ann,0,10,0,0,0,1,1,M1@10\n"
              "6,cid,0,0,0,0,0,1,1,M3@12\n");
    arb_standings_clear(&s);
    arb_buf_free(&b);
    for (i = 0; i < 4; i++)
        arb_results_clear(&r[i]);
}

/* The order of names of the first two lines of the standings of the
 * two-player matches m[0..n) ("P1 PTS1 P2 PTS2" each) under rule. */
static const char *
first_two(const char *const *m, size_t n, int rule)
{
    static char          out[64];
    char                 p[8][2][8];
    char                *pp[8][2];
    arb_results_t        r[8];
    arb_standings_match_t in[8];
    arb_standings_t      s;
    long                 a, b;
    size_t               i;

    memset(r, 0, sizeof(r));
    memset(in, 0, sizeof(in));
    out[0] = '\0';
    for (i = 0; i < n && i < 8; i++) {
        if (sscanf(m[i], "%7s %ld %7s %ld", p[i][0], &a, p[i][1], &b) != 4)
            return out;
        pp[i][0] = p[i][0];
        pp[i][1] = p[i][1];
        arb_results_add_total(&r[i], p[i][0], a);
        arb_results_add_total(&r[i], p[i][1], b);
        in[i].round = 1 + i;
        in[i].table = "1";
        in[i].match = m[i];
        in[i].players = pp[i];
        in[i].nplayers = 2;
        in[i].counted = 1;
        in[i].res = &r[i];
    }
    CHECK_INT(arb_standings_compute(&s, in, i, rule), 0);
    if (s.n >= 2)
        snprintf(out, sizeof(out), "%s %s", s.lines[0].player,
                 s.lines[1].player);
    arb_standings_clear(&s);
    while (i-- > 0)
        arb_results_clear(&r[i]);
    return out;
}

/* The keys after the points, in the order docs/TOURNAMENT.md gives: with
 * match points, game points before wins (two draws of 20 before one win
 * of 10); with game points, wins before the best game (two wins of 10
 * before one win of 15 and a loss with 5), and the best game before
 * match points (a win of 30 and a loss before a win and a draw of 15).
 * test_tiebreaks separates no two players on these keys' order. */
static void
test_tiebreak_order(void)
{
    static const char *const mp[] = { "win 10 xa 0", "drw 20 xb 20",
                                      "drw 20 xc 20" },
                             *const gp[] = { "two 10 ya 0", "two 10 yb 0",
                                             "one 15 yc 0", "one 5 yd 30" },
                             /* zb: gp 30, 1 win, best 30, mp 2; am: gp
                              * 30, 1 win, best 15, mp 3 */
                             *const best[] = { "zb 30 za 0", "zb 0 zc 1",
                                               "am 15 ab 0",
                                               "am 15 ac 15" };

    CHECK_STR(first_two(mp, 3, ARB_STANDINGS_MP), "drw win");
    CHECK_STR(first_two(gp, 4, ARB_STANDINGS_GP), "yd two");
    /* with game points, the best game before match points */
    CHECK_STR(first_two(best, 4, ARB_STANDINGS_GP), "zb am");
    /* and match points last: zz (a win and a draw) before aa (a win and
     * a loss), level on game points, wins and best game */
    {
        static const char *const last[] = { "zz 20 q1 0", "zz 0 q2 0",
                                            "aa 20 q3 0", "aa 0 q4 5" };

        CHECK_STR(first_two(last, 4, ARB_STANDINGS_GP), "zz aa");
    }
    /* level on every key: by name, whatever the order they came in */
    {
        static const char *const level[] = { "dd 10 cc 10" };

        CHECK_STR(first_two(level, 1, ARB_STANDINGS_GP), "cc dd");
        CHECK_STR(first_two(level, 1, ARB_STANDINGS_MP), "cc dd");
    }
    /* a settlement may be negative: the best game is the best played,
     * not 0 */
    {
        char                 *pl[] = { "ann", "bob" };
        arb_results_t         r;
        arb_standings_match_t in;
        arb_standings_t       s;

        memset(&r, 0, sizeof(r));
        memset(&in, 0, sizeof(in));
        arb_results_add_total(&r, "ann", -5);
        arb_results_add_total(&r, "bob", -9);
        in.round = 1;
        in.table = "1";
        in.match = "N1";
        in.players = pl;
        in.nplayers = 2;
        in.counted = 1;
        in.res = &r;
        CHECK_INT(arb_standings_compute(&s, &in, 1, ARB_STANDINGS_GP), 0);
        CHECK_INT(s.n, 2);
        if (s.n == 2) {
            CHECK_STR(s.lines[0].player, "ann");
            CHECK_INT(s.lines[0].best, -5);
            CHECK_INT(s.lines[1].best, -9);
        }
        arb_standings_clear(&s);
        /* a table of one player is a win, whatever the total (there is
         * no bye to record: docs/TOURNAMENT.md) */
        in.nplayers = 1;
        CHECK_INT(arb_standings_compute(&s, &in, 1, ARB_STANDINGS_MP), 0);
        CHECK(s.n == 1 && s.lines[0].wins == 1 && s.lines[0].mp == 2
              && s.lines[0].gp == -5);
        arb_standings_clear(&s);
        arb_results_clear(&r);
    }
}

/* A team game: the totals are per side; each player is credited with
 * their side's total and result (one win between two sides of two, not a
 * four-seat draw), traceable to the match like any line. */
static void
test_team_standings(void)
{
    char *pl[] = { "ann", "bob", "cid", "dan" },
         *tm[] = { "long", "short", "long", "short" },
         *p2[] = { "eve", "fay" }, *t2[] = { "long", "short" };
    arb_results_t r[2];
    arb_standings_match_t in[2];
    arb_standings_t s;
    arb_buf_t b = ARB_BUF_INIT;

    memset(r, 0, sizeof(r));
    memset(in, 0, sizeof(in));
    arb_results_add_total(&r[0], "long", 54);
    arb_results_add_total(&r[0], "short", 59);
    arb_results_add_total(&r[1], "long", 7);
    arb_results_add_total(&r[1], "short", 7);
    in[0].round = in[1].round = 1;
    in[0].table = "1"; in[1].table = "2";
    in[0].match = "C1"; in[1].match = "C2";
    in[0].players = pl; in[0].teams = tm; in[0].nplayers = 4;
    in[1].players = p2; in[1].teams = t2; in[1].nplayers = 2;
    in[0].counted = in[1].counted = 1;
    in[0].seq = 36; in[1].seq = 5;
    in[0].res = &r[0]; in[1].res = &r[1];
    CHECK_INT(arb_standings_compute(&s, in, 2, ARB_STANDINGS_MP), 0);
    arb_standings_csv(&b, &s, in);
    CHECK_STR(arb_buf_cstr(&b),
              "rank,player,points,gp,mp,wins,draws,losses,played,matches\n"
              "1,bob,2,59,2,1,0,0,1,C1@36\n"
              "1,dan,2,59,2,1,0,0,1,C1@36\n"
              "3,eve,1,7,1,0,1,0,1,C2@5\n"
              "3,fay,1,7,1,0,1,0,1,C2@5\n"
              "5,ann,0,54,0,0,0,1,1,C1@36\n"
              "5,cid,0,54,0,0,0,1,1,C1@36\n");
    b.len = 0;
    arb_standings_json(&b, "T", &s, in, 2);
    CHECK(strstr(arb_buf_cstr(&b), "\"rule\":\"mp\"") != NULL);
    arb_standings_clear(&s);
    /* ann forfeits C1 (not played out): her whole side loses it with 0,
     * cid too, though the act names only her; the short side wins */
    in[0].forfeit = 1u << 0;
    in[0].tournament = "T";
    in[0].forfeit_seq = 9;
    b.len = 0;
    CHECK_INT(arb_standings_compute(&s, in, 2, ARB_STANDINGS_GP), 0);
    arb_standings_csv(&b, &s, in);
    CHECK_STR(arb_buf_cstr(&b),
              "rank,player,points,gp,mp,wins,draws,losses,played,matches\n"
              "1,eve,7,7,1,0,1,0,1,C2@5\n"
              "1,fay,7,7,1,0,1,0,1,C2@5\n"
              "3,bob,0,0,2,1,0,0,1,T@9\n"
              "3,dan,0,0,2,1,0,0,1,T@9\n"
              "5,ann,0,0,0,0,0,1,1,T@9\n"
              "5,cid,0,0,0,0,0,1,1,T@9\n");
    b.len = 0;
    arb_standings_json(&b, "T", &s, in, 2);
    CHECK(strstr(arb_buf_cstr(&b), "\"rule\":\"gp\"") != NULL);
    in[0].forfeit = 0;
    b.len = 0;
    arb_standings_results_csv(&b, "T", in, 2);
    CHECK(strstr(arb_buf_cstr(&b), ",C1,36,") != NULL);
    CHECK(strstr(arb_buf_cstr(&b), ",dan,4,59,win\n") != NULL);
    CHECK(strstr(arb_buf_cstr(&b), ",cid,3,54,loss\n") != NULL);
    CHECK(strstr(arb_buf_cstr(&b), ",fay,2,7,draw\n") != NULL);
    /* Not settled: no line for a rating body to rate, a comment naming
     * it after the lines. */
    in[1].withheld = "disputed: why";
    b.len = 0;
    arb_standings_results_csv(&b, "T", in, 2);
    CHECK(strstr(arb_buf_cstr(&b), ",C2,") == NULL);
    CHECK(strstr(arb_buf_cstr(&b), ",dan,4,59,win\n# withheld: round 1, "
                 "table 2, C2 at seq 5: disputed: why\n") != NULL);
    arb_standings_clear(&s);
    arb_buf_free(&b);
    arb_results_clear(&r[0]);
    arb_results_clear(&r[1]);
}

static void
test_board(void)
{
    const char *pl[] = { "alice", "bob" };
    char *pv[] = { "alice", "bob" };
    arb_match_t *m = open_match("yahchain", "M", pl, 2, "mode", "3", NULL, NULL);
    arb_verdict_t v;
    arb_board_table_t t[3];
    arb_buf_t b = ARB_BUF_INIT;
    uint64_t undo = 0, seq = 0;
    const char *j;
    char *text;
    arb_match_t *fin;

    CHECK(m != NULL);
    if (m == NULL)
        return;
    CHECK_INT(arb_board_status(NULL, &undo), ARB_BOARD_NOT_STARTED);
    CHECK_INT(arb_board_status(m, &undo), ARB_BOARD_NOT_STARTED);
    /* a note is no move (until 2026-12-06 it made the table "playing") */
    CHECK_INT(act(m, &v, ARB_EV_NOTE, "players seated"), 0);
    CHECK_INT(arb_board_status(m, &undo), ARB_BOARD_NOT_STARTED);
    CHECK_INT(move(m, &v, "place", "alice", "4S", NULL, NULL), 0);
    CHECK_INT(arb_board_status(m, &undo), ARB_BOARD_PLAYING);
    /* a worked Chains match: no card can be placed after the 35th */
    text = slurp("tests/data/chains-seed-match.txt");
    fin = text != NULL ? replay_text(text, UINT64_MAX) : NULL;
    CHECK(fin != NULL);
    CHECK(fin != NULL && arb_board_status(fin, &undo)
                         == ARB_BOARD_FINISHED);
    CHECK(fin != NULL && act(fin, &v, ARB_EV_CLOSE, "done") == 0
          && arb_board_status(fin, &undo) == ARB_BOARD_CLOSED);
    /* a claim that agrees; one that disputes only a total (until
     * 2026-12-06 still "closed"); one that agrees again */
    CHECK(fin != NULL && claim_own(fin, 0) == 0
          && arb_board_status(fin, &undo) == ARB_BOARD_CLOSED);
    CHECK(fin != NULL && claim_own(fin, 3) == 0
          && arb_board_status(fin, &undo) == ARB_BOARD_DISPUTED);
    CHECK(fin != NULL && claim_own(fin, 0) == 0
          && arb_board_status(fin, &undo) == ARB_BOARD_CLOSED);
    arb_match_free(fin);
    free(text);
    b.len = 0;
    arb_undo_note(&b, 1, "place alice 4♠");
    CHECK_INT(act(m, &v, ARB_EV_NOTE, arb_buf_cstr(&b)), 0);
    CHECK_INT(arb_board_status(m, &undo), ARB_BOARD_UNDO);
    CHECK_INT(undo, 1);
    CHECK(arb_undo_note_seq("undo requested: seq 0 (x)", &seq) != 0);
    CHECK(arb_undo_note_seq("undo requested: seq 12x", &seq) != 0);
    CHECK(arb_undo_note_seq("undo requested: seq 12", &seq) == 0
          && seq == 12);
    /* Declined by an arbiter's note: answered, off the board (until
     * 2026-12-06 only a void or an amend answered it); asked again, on. */
    CHECK_INT(act(m, &v, ARB_EV_NOTE, "undo declined: seq 1 (the card "
                  "stands as played)"), 0);
    CHECK_INT(arb_board_status(m, &undo), ARB_BOARD_PLAYING);
    CHECK_INT(act(m, &v, ARB_EV_NOTE, arb_buf_cstr(&b)), 0);
    CHECK_INT(arb_board_status(m, &undo), ARB_BOARD_UNDO);
    /* The close answers it: the move stands as played (until 2026-12-06
     * the table stayed undo_requested, and out of the results file, for
     * ever: nothing can rule after a close) */
    CHECK_INT(act(m, &v, ARB_EV_CLOSE, "time"), 0);
    CHECK_INT(arb_board_status(m, &undo), ARB_BOARD_CLOSED);
    CHECK(arb_undo_declined_seq("undo declined: seq 3", &seq) == 0
          && seq == 3);
    CHECK(arb_undo_declined_seq("undo declined: seq x", &seq) != 0);
    memset(t, 0, sizeof(t));
    t[0].table = "1"; t[0].match = "A"; t[0].status = ARB_BOARD_CLOSED;
    t[1].table = "2"; t[1].match = "B"; t[1].status = ARB_BOARD_PLAYING;
    t[2].table = "3"; t[2].match = "C"; t[2].status = ARB_BOARD_UNDO;
    t[2].undo_seq = 4;
    t[1].players = pv;
    t[1].nplayers = 2;
    b.len = 0;
    CHECK_INT(arb_board_json(&b, "T", 1, t, 3), 0);
    j = arb_buf_cstr(&b);
    CHECK(strstr(j, "\"match\":\"C\"") < strstr(j, "\"match\":\"B\"")
          && strstr(j, "\"match\":\"B\"") < strstr(j, "\"match\":\"A\""));
    CHECK(strstr(j, "\"status\":\"undo_requested\",\"seq\":0,"
                 "\"last_move_ms\":0,\"undo_seq\":4") != NULL);
    CHECK(strstr(j, "\"players\":[\"alice\",\"bob\"]") != NULL);
    arb_buf_free(&b);
    arb_match_free(m);
}

/* A loader for test_tview_sealed: T-R1-T1 a running dealt match this
 * reader cannot judge, T-R1-T2 not opened yet. */
static int
load_sealed(void *ud, const char *id, arb_match_t **m, uint64_t *seq,
            int64_t *last_ms, unsigned char *head, int *has_head,
            int *moved, arb_buf_t *why)
{
    (void)ud;
    (void)head;
    *m = NULL;
    if (strcmp(id, "T-R1-T2") == 0)
        return ARB_ENOTFOUND;
    /* T-R1-T3: sealed too, but no move yet */
    *moved = strcmp(id, "T-R1-T3") != 0;
    *seq = 7;
    *last_ms = 1234;
    *has_head = 0;
    arb_buf_puts(why, "sealed here");
    return ARB_ESEALED;
}

/* A table the reader cannot judge (a read replica without a dealt
 * match's deal) is on the board as playing and sealed, and uncounted in
 * the standings; until 2026-12-05 the whole board and standings failed. */
static void
test_tview_sealed(void)
{
    const char  *dir[] = { "director" };
    arb_match_t *t = open_match("tournament", "T", dir, 1, "game",
                                "yahchain", "game.mode", "3");
    arb_verdict_t v;
    arb_tview_t  tv;
    arb_buf_t    b = ARB_BUF_INIT, why = ARB_BUF_INIT;
    const char  *j;

    CHECK(t != NULL);
    if (t == NULL)
        return;
    CHECK_INT(move(t, &v, "round", "director", "1", "1:T-R1-T1:a,b",
                   "2:T-R1-T2:c,d"), 0);
    CHECK_INT(move(t, &v, "tables", "director", "1", "3:T-R1-T3:e,f",
                   NULL), 0);
    CHECK_INT(arb_tview_build(&tv, t, 1, load_sealed, NULL, &why), 0);
    CHECK_INT(why.len, 0);
    CHECK(tv.n == 3 && tv.tables[0].sealed && !tv.tables[1].sealed);
    CHECK_INT(arb_tview_board(&b, &tv), 0);
    j = arb_buf_cstr(&b);
    CHECK(j != NULL && strstr(j, "\"match\":\"T-R1-T1\",\"players\":[\"a\","
                            "\"b\"],\"status\":\"playing\",\"seq\":7,"
                            "\"last_move_ms\":1234,\"sealed\":true}") != NULL);
    CHECK(j != NULL && strstr(j, "\"status\":\"not_started\",\"seq\":0,"
                            "\"last_move_ms\":0}") != NULL);
    /* sealed without a move: not started, as the recorder's own board
     * says (it said "playing" until 2026-12-06, and no test held it) */
    CHECK(j != NULL && strstr(j, "\"match\":\"T-R1-T3\",\"players\":[\"e\","
                            "\"f\"],\"status\":\"not_started\",\"seq\":7,"
                            "\"last_move_ms\":1234,\"sealed\":true}")
                       != NULL);
    b.len = 0;
    CHECK_INT(arb_tview_standings(&b, &tv, 1), 0);
    j = arb_buf_cstr(&b);
    CHECK(j != NULL && strstr(j, "\"uncounted\":[\"T-R1-T1\",\"T-R1-T2\","
                            "\"T-R1-T3\"]") != NULL);
    arb_tview_clear(&tv);
    /* A forfeit decides a sealed table: the board says so and never
     * "sealed here" (a reader would wait for a result that is in). */
    t = open_match("tournament", "T", dir, 1, "game", "yahchain",
                   "game.mode", "3");
    CHECK(t != NULL);
    if (t == NULL)
        goto out;
    CHECK_INT(move(t, &v, "round", "director", "1", "1:T-R1-T1:a,b",
                   NULL), 0);
    CHECK_INT(move(t, &v, "forfeit", "director", "1", "1", "a"), 0);
    CHECK_INT(arb_tview_build(&tv, t, 1, load_sealed, NULL, &why), 0);
    b.len = 0;
    CHECK_INT(arb_tview_board(&b, &tv), 0);
    j = arb_buf_cstr(&b);
    CHECK(j != NULL && strstr(j, "\"match\":\"T-R1-T1\",\"players\":[\"a\","
                            "\"b\"],\"status\":\"forfeit\",") != NULL);
    CHECK(j != NULL && strstr(j, "sealed") == NULL);
    arb_tview_clear(&tv);
out:
    arb_buf_free(&b);
    arb_buf_free(&why);
}

/* A table's match id is derived (TOURNAMENT-R<n>-T<table>), in an act
 * typed by hand too; edition 1 took any id, and its tournaments replay
 * as recorded. */
static void
test_derived_ids(void)
{
    const char  *dir[] = { "director" };
    arb_match_t *t = open_match("tournament", "X1", dir, 1, "game",
                                "yahchain", "game.mode", "3");
    arb_verdict_t v;

    CHECK(t != NULL);
    if (t == NULL)
        return;
    /* another tournament's match, a round-7 name, a label not its own */
    CHECK_INT(move(t, &v, "round", "director", "1", "1:S1-R1-T1:a,b", NULL),
              ARB_EILLEGAL);
    CHECK_STR(v.msg, "table 1 of round 1 is match X1-R1-T1, not S1-R1-T1: "
                     "a table's match id is derived "
                     "(TOURNAMENT-R<n>-T<table>)");
    CHECK_INT(move(t, &v, "round", "director", "1", "1:X1-R7-T1:a,b", NULL),
              ARB_EILLEGAL);
    CHECK_INT(move(t, &v, "round", "director", "1", "2:X1-R1-T1:a,b", NULL),
              ARB_EILLEGAL);
    CHECK_INT(move(t, &v, "round", "director", "1", "1:X1-R1-T1:a,b", NULL),
              0);
    CHECK_INT(move(t, &v, "tables", "director", "1", "5:Foo:c,d", NULL),
              ARB_EILLEGAL);
    CHECK_INT(move(t, &v, "tables", "director", "1", "5:X1-R1-T5:c,d", NULL),
              0);
    arb_match_free(t);
    t = NULL;
    {
        arb_event_t  ev;
        arb_setup_t *s;

        memset(&ev, 0, sizeof(ev));
        ev.kind = ARB_EV_OPEN;
        s = ev.setup = calloc(1, sizeof(*s));
        s->game = strdup("tournament");
        s->match_id = strdup("X1");
        s->edition = strdup("arbiter-tournament-1");
        arb_setup_add_player(s, "director", -1);
        arb_setup_set_option(s, "game", "yahchain");
        arb_setup_set_option(s, "game.mode", "3");
        CHECK_INT(arb_match_open(&t, &ev, &v), 0);
        arb_event_clear(&ev);
    }
    if (t == NULL)
        return;
    CHECK_INT(move(t, &v, "round", "director", "1", "1:S1-R1-T1:a,b", NULL),
              0);
    arb_match_free(t);
}

/* A forfeit (until 2026-12-06 there was none to record: a no-show was a
 * match closed at 0-0, a draw and a point for the absent player, rated
 * as a game): the act names the players of a table who forfeit; their
 * side loses and the others win, 0 points each, whatever the table's
 * match holds; the standings trace it to the act; the results file for
 * a rating body leaves it out; the board says "forfeit"; a tournament
 * without one keeps its digest. */
static void
test_forfeit(void)
{
    const char   *dir[] = { "director" };
    char         *p1[] = { "pat", "abe" }, *p2[] = { "cy", "di" };
    arb_match_t  *t, *t2;
    arb_verdict_t v;
    arb_results_t r, rt[2];
    arb_standings_match_t in[2];
    arb_standings_t s;
    arb_buf_t     b = ARB_BUF_INIT;
    unsigned char d1[ARB_HASH_LEN], d2[ARB_HASH_LEN];

    t = open_match("tournament", "F", dir, 1, "game", "yahchain",
                   "game.mode", "3");
    t2 = open_match("tournament", "F", dir, 1, "game", "yahchain",
                    "game.mode", "3");
    CHECK(t != NULL && t2 != NULL);
    if (t == NULL || t2 == NULL)
        return;
    CHECK_INT(move(t, &v, "forfeit", "director", "1", "1", "abe"),
              ARB_EILLEGAL);
    CHECK(strstr(v.msg, "round 1 is not recorded (no round is yet)") != NULL);
    CHECK_INT(move(t, &v, "round", "director", "1", "1:F-R1-T1:pat,abe",
                   "2:F-R1-T2:cy,di"), 0);
    CHECK_INT(move(t2, &v, "round", "director", "1", "1:F-R1-T1:pat,abe",
                   "2:F-R1-T2:cy,di"), 0);
    arb_match_digest(t, d1);
    arb_match_digest(t2, d2);
    CHECK(memcmp(d1, d2, sizeof(d1)) == 0);
    CHECK_INT(move(t, &v, "forfeit", "director", "1", "1", NULL),
              ARB_EINVAL);
    CHECK_STR(v.rule, "tournament.forfeit");
    CHECK_INT(move(t, &v, "forfeit", "director", "1", "3", "abe"),
              ARB_EILLEGAL);
    CHECK(strstr(v.msg, "round 1 has no table 3") != NULL);
    CHECK_INT(move(t, &v, "forfeit", "director", "1", "1", "cy"),
              ARB_EILLEGAL);
    CHECK(strstr(v.msg, "cy is not at table 1 of round 1") != NULL);
    CHECK_INT(move(t, &v, "forfeit", "director", "2", "1", "abe"),
              ARB_EILLEGAL);
    CHECK_INT(move(t, &v, "forfeit", "pat", "1", "1", "abe"), ARB_EILLEGAL);
    CHECK_STR(v.rule, "tournament.director");
    CHECK_INT(move(t, &v, "forfeit", "director", "1", "1", "abe"), 0);
    CHECK_INT(move(t, &v, "forfeit", "director", "1", "1", "pat"),
              ARB_EILLEGAL);
    CHECK(strstr(v.msg, "table 1 of round 1 is forfeited already (seq 2)")
          != NULL);
    arb_match_digest(t, d1);
    CHECK(memcmp(d1, d2, sizeof(d1)) != 0);      /* it is in the state */
    CHECK_INT(arb_match_results(t, &r), 0);
    CHECK_INT(r.nrecords, 2);
    if (r.nrecords == 2) {
        const arb_field_t *f = arb_record_get(&r.records[0], "forfeit");
        CHECK(f != NULL && f->nlist == 1 && strcmp(f->list[0], "abe") == 0);
        CHECK_INT(arb_record_get(&r.records[0], "forfeit_seq")->num, 2);
        CHECK(arb_record_get(&r.records[1], "forfeit") == NULL);
    }
    arb_results_clear(&r);
    /* The standings: table 1's match holds abe ahead (it must not
     * matter); table 2 is a draw, closed. */
    memset(rt, 0, sizeof(rt));
    memset(in, 0, sizeof(in));
    arb_results_add_total(&rt[0], "pat", 0);
    arb_results_add_total(&rt[0], "abe", 50);
    arb_results_add_total(&rt[1], "cy", 7);
    arb_results_add_total(&rt[1], "di", 7);
    in[0].round = in[1].round = 1;
    in[0].table = "1"; in[1].table = "2";
    in[0].match = "F-R1-T1"; in[1].match = "F-R1-T2";
    in[0].players = p1; in[1].players = p2;
    in[0].nplayers = in[1].nplayers = 2;
    in[0].res = &rt[0]; in[1].res = &rt[1];
    in[0].seq = 3; in[1].seq = 5;
    in[0].counted = in[1].counted = 1;
    in[0].forfeit = 1u << 1;                    /* abe */
    in[0].tournament = "F";
    in[0].forfeit_seq = 2;
    CHECK_INT(arb_standings_compute(&s, in, 2, ARB_STANDINGS_MP), 0);
    arb_standings_csv(&b, &s, in);
    CHECK_STR(arb_buf_cstr(&b),
              "rank,player,points,gp,mp,wins,draws,losses,played,matches\n"
              "1,pat,2,0,2,1,0,0,1,F@2\n"
              "2,cy,1,7,1,0,1,0,1,F-R1-T2@5\n"
              "2,di,1,7,1,0,1,0,1,F-R1-T2@5\n"
              "4,abe,0,0,0,0,0,1,1,F@2\n");
    b.len = 0;
    arb_standings_json(&b, "F", &s, in, 2);
    CHECK(strstr(arb_buf_cstr(&b), "{\"match\":\"F-R1-T1\",\"round\":1,"
                 "\"table\":\"1\",\"seq\":3,\"gp\":0,\"result\":\"loss\","
                 "\"forfeit_seq\":2}") != NULL);
    b.len = 0;
    arb_standings_results_csv(&b, "F", in, 2);
    CHECK(strstr(arb_buf_cstr(&b), "F-R1-T1") == NULL);   /* not rated */
    CHECK(strstr(arb_buf_cstr(&b), ",cy,1,7,draw\n") != NULL);
    arb_standings_clear(&s);
    arb_buf_free(&b);
    arb_results_clear(&rt[0]);
    arb_results_clear(&rt[1]);
    arb_match_free(t);
    arb_match_free(t2);
}

/* A loader for test_forfeit_played: P-R1-T1 (ka lu mo) a YAHchain match
 * of mode 3 played to its end (12 Sotas of three cards of one face),
 * P-R1-T2 (ne ob) three moves in and closed (not played out). */
static int
load_played(void *ud, const char *id, arb_match_t **m, uint64_t *seq,
            int64_t *last_ms, unsigned char *head, int *has_head,
            int *moved, arb_buf_t *why)
{
    static const char *const p1[] = { "ka", "lu", "mo" },
                             *p2[] = { "ne", "ob" },
                             suits[] = "SHDCUMWFLGYN";
    arb_verdict_t v;
    char          card[4];
    int           i, two = strcmp(id, "P-R1-T2") == 0, rc = 0;

    (void)ud; (void)head; (void)moved; (void)why;
    *m = open_match("yahchain", id, two ? p2 : p1, two ? 2 : 3, "mode",
                    "3", NULL, NULL);
    if (*m == NULL)
        return ARB_ENOMEM;
    /* Sota k holds face 2 + k / 4 in three suits */
    for (i = 0; i < (two ? 3 : 36) && rc == 0; i++) {
        snprintf(card, sizeof(card), "%c%c", '2' + i / 12, suits[i % 12]);
        rc = move(*m, &v, "place", two ? p2[i % 2] : p1[i % 3], card,
                  NULL, NULL);
    }
    if (rc == 0 && two)
        rc = act(*m, &v, ARB_EV_CLOSE, "adjourned");
    *seq = arb_match_next_seq(*m) - 1;
    *last_ms = 0;
    *has_head = 0;
    return rc;
}

/* The results of a forfeited table as the standings read them: the
 * tournament of edition `ed` (NULL: the current), mo forfeiting table 1
 * after its match was played out, ob table 2 before it was: "player gp
 * result;" for each seat of table 1, then of table 2. */
static const char *
forfeit_results(const char *ed, arb_results_t *t1)
{
    static char  out[256];
    arb_match_t *t = NULL;
    arb_event_t  ev;
    arb_setup_t *s;
    arb_verdict_t v;
    arb_tview_t  tv;
    arb_standings_t st;
    arb_buf_t    why = ARB_BUF_INIT;
    size_t       i, j, k, len = 0;

    memset(&ev, 0, sizeof(ev));
    ev.kind = ARB_EV_OPEN;
    s = ev.setup = calloc(1, sizeof(*s));
    s->game = strdup("tournament");
    s->match_id = strdup("P");
    s->edition = ed != NULL ? strdup(ed) : NULL;
    arb_setup_add_player(s, "director", -1);
    arb_setup_set_option(s, "game", "yahchain");
    arb_setup_set_option(s, "game.mode", "3");
    CHECK_INT(arb_match_open(&t, &ev, &v), 0);
    arb_event_clear(&ev);
    out[0] = '\0';
    if (t == NULL)
        return out;
    CHECK_INT(move(t, &v, "round", "director", "1", "1:P-R1-T1:ka,lu,mo",
                   "2:P-R1-T2:ne,ob"), 0);
    CHECK_INT(move(t, &v, "forfeit", "director", "1", "1", "mo"), 0);
    CHECK_INT(move(t, &v, "forfeit", "director", "1", "2", "ob"), 0);
    CHECK_INT(arb_tview_build(&tv, t, 1, load_played, NULL, &why), 0);
    CHECK(tv.n == 2);
    if (tv.n == 2 && t1 != NULL)
        CHECK_INT(arb_match_results(tv.tables[0].m, t1), 0);
    CHECK_INT(arb_standings_compute(&st, tv.sm, tv.n, tv.rule), 0);
    for (i = 0; i < tv.n; i++)
        for (j = 0; j < tv.sm[i].nplayers; j++)
            for (k = 0; k < st.n; k++) {
                const arb_standing_t *l = &st.lines[k];

                if (strcmp(l->player, tv.sm[i].players[j]) == 0
                    && l->nentries == 1)
                    len += (size_t)snprintf(out + len, sizeof(out) - len,
                        "%s %lld %s;", l->player,
                        (long long)l->entries[0].gp,
                        arb_result_name(l->entries[0].result));
            }
    arb_standings_clear(&st);
    arb_tview_clear(&tv);
    arb_buf_free(&why);
    return out;
}

/* A table's match opened with the table's players and one more counts
 * for nobody, as one with other players does: P-R1-T1 of load_played
 * seats ka lu mo, the table ka lu (no test told a match of more players
 * from the table's own). */
static void
test_tview_more_players(void)
{
    const char   *dir[] = { "director" };
    arb_match_t  *t;
    arb_verdict_t v;
    arb_tview_t   tv;
    arb_buf_t     why = ARB_BUF_INIT;

    t = open_match("tournament", "P", dir, 1, "game", "yahchain",
                   "game.mode", "3");
    CHECK(t != NULL);
    if (t == NULL)
        return;
    CHECK_INT(move(t, &v, "round", "director", "1", "1:P-R1-T1:ka,lu",
                   NULL), 0);
    CHECK_INT(arb_tview_build(&tv, t, 1, load_played, NULL, &why), 0);
    CHECK(tv.n == 1);
    if (tv.n == 1) {
        CHECK_INT(tv.sm[0].counted, 0);
        CHECK_STR(tv.sm[0].problem != NULL ? tv.sm[0].problem : "",
                  "its match's players are ka lu mo, the table's ka lu");
    }
    /* without the option, the standings are by game points */
    CHECK_INT(tv.rule, ARB_STANDINGS_GP);
    arb_tview_clear(&tv);       /* (it frees t) */
    /* lu forfeits it: that match, played out, is not the table's game,
     * so ka wins with 0, not ranked by its totals */
    t = open_match("tournament", "P", dir, 1, "game", "yahchain",
                   "game.mode", "3");
    CHECK(t != NULL);
    if (t == NULL)
        return;
    CHECK_INT(move(t, &v, "round", "director", "1", "1:P-R1-T1:ka,lu",
                   NULL), 0);
    CHECK_INT(move(t, &v, "forfeit", "director", "1", "1", "lu"), 0);
    CHECK_INT(arb_tview_build(&tv, t, 1, load_played, NULL, &why), 0);
    CHECK(tv.n == 1);
    if (tv.n == 1) {
        arb_standings_t st;

        CHECK_INT(tv.sm[0].counted, 1);
        CHECK_INT(tv.sm[0].played, 0);
        CHECK_INT(arb_standings_compute(&st, tv.sm, 1, tv.rule), 0);
        CHECK(st.n == 2 && strcmp(st.lines[0].player, "ka") == 0
              && st.lines[0].gp == 0 && st.lines[0].wins == 1);
        arb_standings_clear(&st);
    }
    arb_tview_clear(&tv);
    arb_buf_free(&why);
}

/* A loader for test_tview_sides: C-R1-T1 a Chains match of the
 * tournament's game with every player on the other side. */
static int
load_swapped(void *ud, const char *id, arb_match_t **m, uint64_t *seq,
             int64_t *last_ms, unsigned char *head, int *has_head,
             int *moved, arb_buf_t *why)
{
    const arb_setup_t *tourn = ud;
    arb_tourn_table_t  tb;
    arb_setup_t        game;
    arb_event_t        ev;
    arb_verdict_t      v;
    int                rc;

    (void)head; (void)moved; (void)why;
    memset(&ev, 0, sizeof(ev));
    memset(&game, 0, sizeof(game));
    ev.kind = ARB_EV_OPEN;
    ev.setup = calloc(1, sizeof(*ev.setup));
    if (strcmp(id, "C-R1-T1") != 0 || ev.setup == NULL)
        return ARB_ENOMEM;
    rc = arb_tourn_table_parse(&tb, "1:C-R1-T1:ann:short,bob:long,"
                               "cid:short,dan:long", &v);
    if (rc == 0)
        rc = arb_tourn_game_setup(&game, tourn);
    if (rc == 0)
        rc = arb_tourn_table_setup(ev.setup, &game, &tb);
    if (rc == 0)
        rc = arb_match_open(m, &ev, &v);
    arb_tourn_table_clear(&tb);
    arb_setup_clear(&game);
    arb_event_clear(&ev);
    *seq = 0;
    *last_ms = 0;
    *has_head = 0;
    return rc;
}

/* A table's match with the table's players on other sides counts for
 * nobody, as one with other players does: crediting ann with the long
 * side's total when she played short would be a result she never
 * played (until 2026-12-07 only the names were compared). */
static void
test_tview_sides(void)
{
    static const char *const seed[] = { "game", "chains", "game.deck", "36",
                                        "game.scoring", "square",
                                        "deal", "seed", NULL },
                             *const yah[] = { "game", "yahchain",
                                              "game.mode", "3", NULL };
    arb_match_t  *t = open_tourn("C", seed), *y;
    arb_verdict_t v;
    arb_tview_t   tv;
    arb_buf_t     why = ARB_BUF_INIT;

    CHECK(t != NULL);
    if (t == NULL)
        return;
    CHECK_INT(move(t, &v, "round", "director", "1", "1:C-R1-T1:ann:long,"
                   "bob:short,cid:long,dan:short", NULL), 0);
    CHECK_INT(arb_tview_build(&tv, t, 1, load_swapped,
                              (void *)arb_match_setup(t), &why), 0);
    CHECK(tv.n == 1);
    if (tv.n == 1) {
        CHECK_INT(tv.sm[0].counted, 0);
        CHECK_STR(tv.sm[0].problem != NULL ? tv.sm[0].problem : "",
                  "its match's players are ann:short bob:long cid:short "
                  "dan:long, the table's ann:long bob:short cid:long "
                  "dan:short");
    }
    arb_tview_clear(&tv);       /* (it frees t) */
    /* A table without sides whose match has them (opened by hand in
     * another game) is not the table's either: each player would be
     * credited with a side's total (no test told a side from none) */
    t = open_tourn("C", seed);
    y = open_tourn("C", yah);
    CHECK(t != NULL && y != NULL);
    if (t == NULL || y == NULL) {
        arb_match_free(t);
        arb_match_free(y);
        arb_buf_free(&why);
        return;
    }
    CHECK_INT(move(y, &v, "round", "director", "1", "1:C-R1-T1:ann,bob,"
                   "cid,dan", NULL), 0);
    CHECK_INT(arb_tview_build(&tv, y, 1, load_swapped,
                              (void *)arb_match_setup(t), &why), 0);
    CHECK(tv.n == 1);
    if (tv.n == 1)
        CHECK_STR(tv.sm[0].problem != NULL ? tv.sm[0].problem : "",
                  "its match's players are ann:short bob:long cid:short "
                  "dan:long, the table's ann bob cid dan");
    arb_tview_clear(&tv);       /* (it frees y) */
    arb_match_free(t);
    arb_buf_free(&why);
}

/* A forfeit at a table whose match was played to its end (a
 * disqualification after the game): the other players keep their totals
 * and are ranked by them among themselves (edition 3); before it was
 * played, the others win with 0.  A tournament of an earlier edition
 * keeps the rule it was run under: every other player wins, with 0
 * (until 2026-12-06 the only rule: the players of a game played to the
 * end lost what they had scored in it). */
static void
test_forfeit_played(void)
{
    arb_results_t r;
    char          want[256];
    int64_t       ka, lu;

    memset(&r, 0, sizeof(r));
    snprintf(want, sizeof(want), "%s", forfeit_results(NULL, &r));
    ka = r.ntotals == 3 ? r.totals[0].points : -1;
    lu = r.ntotals == 3 ? r.totals[1].points : -1;
    CHECK(ka > 0 && lu > 0 && ka != lu);
    {
        char exp[256];

        snprintf(exp, sizeof(exp), "ka %lld %s;lu %lld %s;mo 0 loss;"
                 "ne 0 win;ob 0 loss;", (long long)ka,
                 ka > lu ? "win" : "loss", (long long)lu,
                 lu > ka ? "win" : "loss");
        CHECK_STR(want, exp);
    }
    CHECK_STR(forfeit_results("arbiter-tournament-3", NULL), want);
    CHECK_STR(forfeit_results("arbiter-tournament-2", NULL),
              "ka 0 win;lu 0 win;mo 0 loss;ne 0 win;ob 0 loss;");
    CHECK_INT(arb_tourn_forfeit_played(&(arb_setup_t){ .edition = NULL }),
              1);
    arb_results_clear(&r);
}

/* `withdraw N PLAYER...`: a player leaves the tournament after round N
 * (the latest); no later table seats them, whether by `round` or
 * `tables`; they keep their standings line, marked, and the tables'
 * records and readers are as before (its record comes after them).
 * Until 2026-12-06 there was no such act: a withdrawn player was simply
 * not paired, and a pairing list that seated them again was recorded. */
static void
test_withdraw(void)
{
    const char   *dir[] = { "director" };
    arb_match_t  *t, *t2;
    arb_verdict_t v;
    arb_results_t r;
    arb_tview_t   tv;
    arb_buf_t     b = ARB_BUF_INIT, why = ARB_BUF_INIT;
    unsigned char d1[ARB_HASH_LEN], d2[ARB_HASH_LEN];

    t = open_match("tournament", "P", dir, 1, "game", "yahchain",
                   "game.mode", "3");
    t2 = open_match("tournament", "P", dir, 1, "game", "yahchain",
                    "game.mode", "3");
    CHECK(t != NULL && t2 != NULL);
    if (t == NULL || t2 == NULL)
        return;
    CHECK_INT(move(t, &v, "withdraw", "director", "1", "ka", NULL),
              ARB_EILLEGAL);
    CHECK(strstr(v.msg, "no round is recorded yet") != NULL);
    CHECK_INT(move(t, &v, "round", "director", "1", "1:P-R1-T1:ka,lu,mo",
                   "2:P-R1-T2:ne,ob"), 0);
    CHECK_INT(move(t2, &v, "round", "director", "1", "1:P-R1-T1:ka,lu,mo",
                   "2:P-R1-T2:ne,ob"), 0);
    CHECK_INT(move(t, &v, "withdraw", "director", "1", NULL, NULL),
              ARB_EINVAL);
    CHECK_STR(v.rule, "tournament.withdraw");
    CHECK_INT(move(t, &v, "withdraw", "director", "2", "ka", NULL),
              ARB_EILLEGAL);
    CHECK(strstr(v.msg, "withdraw 2: the latest round is 1") != NULL);
    CHECK_INT(move(t, &v, "withdraw", "director", "1", "zed", NULL),
              ARB_EILLEGAL);
    CHECK(strstr(v.msg, "zed sits at no table of this tournament") != NULL);
    CHECK_INT(move(t, &v, "withdraw", "director", "1", "ob", "ob"),
              ARB_EINVAL);
    CHECK(strstr(v.msg, "ob is named twice") != NULL);
    CHECK_INT(move(t, &v, "withdraw", "director", "1", "mo", "zed"),
              ARB_EILLEGAL);                  /* all or none */
    CHECK_INT(move(t, &v, "withdraw", "ka", "1", "mo", NULL),
              ARB_EILLEGAL);
    CHECK_STR(v.rule, "tournament.director");
    arb_match_digest(t, d1);
    arb_match_digest(t2, d2);
    CHECK(memcmp(d1, d2, sizeof(d1)) == 0);   /* nothing recorded yet */
    CHECK_INT(move(t, &v, "withdraw", "director", "1", "mo", NULL), 0);
    CHECK_INT(move(t, &v, "withdraw", "director", "1", "mo", NULL),
              ARB_EILLEGAL);
    CHECK(strstr(v.msg, "mo withdrew already, after round 1 (seq 2)")
          != NULL);
    arb_match_digest(t, d1);
    CHECK(memcmp(d1, d2, sizeof(d1)) != 0);   /* it is in the state */
    CHECK_INT(move(t, &v, "end", "director", "1", NULL, NULL), 0);
    CHECK_INT(move(t, &v, "round", "director", "2", "1:P-R2-T1:ka,mo",
                   "2:P-R2-T2:ne,ob"), ARB_EILLEGAL);
    CHECK(strstr(v.msg, "round 2: table 1 seats mo, who withdrew") != NULL);
    CHECK_INT(move(t, &v, "round", "director", "2", "1:P-R2-T1:ka,lu",
                   "2:P-R2-T2:ne,ob"), 0);
    CHECK_INT(move(t, &v, "tables", "director", "2", "3:P-R2-T3:mo",
                   NULL), ARB_EILLEGAL);
    CHECK(strstr(v.msg, "round 2: table 3 seats mo, who withdrew from the "
                 "tournament after round 1 (seq 2)") != NULL);
    CHECK_INT(move(t, &v, "withdraw", "director", "2", "ob", NULL), 0);
    /* The records: the tables first, as before, then one per
     * withdrawal. */
    CHECK_INT(arb_match_results(t, &r), 0);
    CHECK_INT(r.nrecords, 6);
    CHECK_INT(arb_tourn_ntables(&r), 4);
    if (r.nrecords == 6) {
        CHECK_STR(arb_record_get(&r.records[4], "withdrawn")->str, "mo");
        CHECK_INT(arb_record_get(&r.records[4], "after_round")->num, 1);
        CHECK_INT(r.records[4].seq, 2);
        CHECK_STR(arb_record_get(&r.records[5], "withdrawn")->str, "ob");
        CHECK_INT(arb_record_get(&r.records[5], "after_round")->num, 2);
    }
    arb_results_clear(&r);
    CHECK_INT(arb_match_describe(t, &b), 0);
    CHECK(strstr(arb_buf_cstr(&b), "\"withdrawn\":[{\"player\":\"mo\","
                 "\"after_round\":1,\"seq\":2},{\"player\":\"ob\","
                 "\"after_round\":2,\"seq\":5}]") != NULL);
    b.len = 0;
    /* The standings: round 1 as load_played records it (table 1 played
     * out, not closed; table 2 closed); mo keeps a line, marked. */
    CHECK_INT(arb_tview_build(&tv, t, 1, load_played, NULL, &why), 0);
    CHECK_INT(tv.ntables, 4);
    CHECK_INT(tv.n, 4);
    CHECK_INT(arb_tview_standings(&b, &tv, 1), 0);
    CHECK(strstr(arb_buf_cstr(&b), "\"player\":\"mo\",") != NULL);
    CHECK(strstr(arb_buf_cstr(&b), "\"matches\":[],\"withdrawn\":"
                 "{\"after_round\":1,\"seq\":2}}") != NULL);
    CHECK(strstr(arb_buf_cstr(&b), "\"withdrawn\":{\"after_round\":2,"
                 "\"seq\":5}}") != NULL);
    CHECK(strstr(arb_buf_cstr(&b), "\"player\":\"ka\",") != NULL
          && strstr(strstr(arb_buf_cstr(&b), "\"player\":\"ka\","),
                    "withdrawn") != strstr(arb_buf_cstr(&b),
                                           "\"matches\":[],\"withdrawn\""));
    b.len = 0;
    CHECK_INT(arb_tview_standings(&b, &tv, 0), 0);
    CHECK(strstr(arb_buf_cstr(&b), ",mo,") != NULL);  /* the CSV: as ever */
    b.len = 0;
    CHECK_INT(arb_tview_board(&b, &tv), 0);
    CHECK(strstr(arb_buf_cstr(&b), "\"round\":2,") != NULL);
    /* the latest round's tables only: round 1's are done with */
    CHECK(strstr(arb_buf_cstr(&b), "\"match\":\"P-R2-T1\"") != NULL);
    CHECK(strstr(arb_buf_cstr(&b), "P-R1-") == NULL);
    arb_tview_clear(&tv);                       /* (frees t) */
    arb_match_free(t2);
    arb_buf_free(&b);
    arb_buf_free(&why);
}

/* A withdrawal after round N, recorded while round N is in progress,
 * leaves the player free to sit at a table added to round N itself:
 * only later rounds are closed to them (until 2026-12-06 that table was
 * refused "after round N").  And a malformed act says what is wrong
 * (until then one usage line for all). */
static void
test_withdraw_same_round(void)
{
    const char   *dir[] = { "director" };
    arb_match_t  *t;
    arb_verdict_t v;

    t = open_match("tournament", "Q", dir, 1, "game", "yahchain",
                   "game.mode", "3");
    CHECK(t != NULL);
    if (t == NULL)
        return;
    CHECK_INT(move(t, &v, "round", "director", "1", "1:Q-R1-T1:ka,lu",
                   "2:Q-R1-T2:mo,ne"), 0);
    CHECK_INT(move(t, &v, "end", "director", "1", NULL, NULL), 0);
    CHECK_INT(move(t, &v, "round", "director", "2", "1:Q-R2-T1:ka,lu",
                   NULL), 0);
    CHECK_INT(move(t, &v, "withdraw", "director", "2", "mo", NULL), 0);
    CHECK_INT(move(t, &v, "tables", "director", "2", "2:Q-R2-T2:mo,ne",
                   NULL), 0);
    CHECK_INT(move(t, &v, "end", "director", "2", NULL, NULL), 0);
    CHECK_INT(move(t, &v, "round", "director", "3", "1:Q-R3-T1:mo,ka",
                   NULL), ARB_EILLEGAL);
    CHECK(strstr(v.msg, "round 3: table 1 seats mo, who withdrew from the "
                 "tournament after round 2 (seq 4)") != NULL);
    CHECK_INT(move(t, &v, "withdraw", "director", "01", "ka", NULL),
              ARB_EINVAL);
    CHECK(strstr(v.msg, "(1..999999, no leading zero), not '01'") != NULL);
    CHECK_INT(move(t, &v, "withdraw", "director", "2", NULL, NULL),
              ARB_EINVAL);
    CHECK(strstr(v.msg, "withdraw 2 PLAYER...: name at least one player")
          != NULL);
    CHECK_INT(move(t, &v, "forfeit", "director", "0", "1", "ka"),
              ARB_EINVAL);
    CHECK(strstr(v.msg, "not '0'") != NULL);
    CHECK_INT(move(t, &v, "forfeit", "director", "2", "1", NULL),
              ARB_EINVAL);
    CHECK(strstr(v.msg, "name the table and at least one player") != NULL);
    arb_match_free(t);
}

int
main(void)
{
    test_rules();
    test_forfeit();
    test_forfeit_played();
    test_tview_more_players();
    test_tview_sides();
    test_withdraw();
    test_withdraw_same_round();
    test_derived_ids();
    test_pairing();
    test_teams();
    test_standings();
    test_tiebreaks();
    test_tiebreak_order();
    test_team_standings();
    test_board();
    test_tview_sealed();
    return TEST_END();
}
