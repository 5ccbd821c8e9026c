/* Tsukurutenten through the match layer: whole multi-round games in both
 * scoring systems replayed from transcripts with pinned digests, the
 * seeded deal of every round, the turn rules and their refusals, the end
 * of a round and of the game, rulings, describe() hiding the hands, and
 * `arbiter score --game tsukurutenten`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/match.h"
#include "core/replay.h"
#include "core/rules/tsuku_chip.h"
#include "core/shuffle.h"
#include "core/transcript.h"
#include "tests/replay_text.h"
#include "tests/test.h"
#include "tests/verdict_once.h"

#define DIGEST_SIMPLE   "ac68d0c3f3b96f501a5851e9b4fbd93e" \
                        "ecd6d5327b4c95f034358a728380720d"
#define DIGEST_EXTENDED "0fc624d8f5d6b3b10aaed8833e75cdf3" \
                        "4aa4e785c6599365474135af59462388"
/* The same games as recorded under edition 2 (their exhausted rounds end
 * at the last discard, without the pass edition 3 records) */
#define DIGEST_SIMPLE_2   "4d2bbda25ae597c24c3cfbd2be9f6cc0" \
                          "3dadcb977352ff7230e7c6bfd4572f9e"
#define DIGEST_EXTENDED_2 "eeb90132cda94913af02434de61b382e" \
                          "deaf11a4e8e477099ae04c35e66cda80"


/* text with `add` put first and the first line equal to `drop` (with its
 * newline) removed; malloc'd. */
static char *
header_edit(const char *text, const char *add, const char *drop)
{
    size_t      n = strlen(text), na = strlen(add);
    char       *out = malloc(n + na + 1), *p;
    size_t      nd = drop ? strlen(drop) : 0;

    if (out == NULL)
        return NULL;
    memcpy(out, add, na);
    memcpy(out + na, text, n + 1);
    for (p = out; drop != NULL && (p = strstr(p, drop)) != NULL; p++)
        if ((p == out || p[-1] == '\n') && p[nd] == '\n') {
            memmove(p, p + nd + 1, strlen(p + nd + 1) + 1);
            break;
        }
    return out;
}

/* One move "verb player args..." (space separated). */
static int
play_kind(arb_match_t *m, int kind, const char *line)
{
    arb_event_t   ev;
    arb_verdict_t v;
    char          buf[2048], *w, *save = NULL;
    int           rc;

    memset(&ev, 0, sizeof(ev));
    memset(&v, 0, sizeof(v));
    ev.kind = kind;
    if (kind == ARB_EV_STANDS)
        ev.text = strdup("arbiter's ruling");
    snprintf(buf, sizeof(buf), "%s", line);
    w = strtok_r(buf, " ", &save);
    ev.verb = strdup(w);
    w = strtok_r(NULL, " ", &save);
    ev.player = strdup(w ? w : "");
    while ((w = strtok_r(NULL, " ", &save)) != NULL)
        arb_event_add_arg(&ev, w);
    rc = arb_match_apply(m, &ev, &v);
    CHECK(verdict_named_once(&v));
    snprintf(last_msg, sizeof(last_msg), "%s", v.code ? v.msg : "");
    snprintf(last_rule, sizeof(last_rule), "%s", v.code ? v.rule : "");
    arb_event_clear(&ev);
    return rc;
}

static int
play(arb_match_t *m, const char *line)
{
    return play_kind(m, ARB_EV_MOVE, line);
}

static int
ruling(arb_match_t *m, int kind, uint64_t target, const char *move)
{
    arb_event_t   ev;
    arb_verdict_t v;
    char          buf[256], *w, *save = NULL;
    int           rc;

    memset(&ev, 0, sizeof(ev));
    ev.kind = kind;
    ev.target = target;
    ev.text = strdup("scoresheet error");
    if (move != NULL) {
        snprintf(buf, sizeof(buf), "%s", move);
        ev.verb = strdup(strtok_r(buf, " ", &save));
        ev.player = strdup(strtok_r(NULL, " ", &save));
        while ((w = strtok_r(NULL, " ", &save)) != NULL)
            arb_event_add_arg(&ev, w);
    }
    rc = arb_match_apply(m, &ev, &v);
    CHECK(verdict_named_once(&v));
    snprintf(last_msg, sizeof(last_msg), "%s", rc ? v.msg : "");
    arb_event_clear(&ev);
    return rc;
}

static void
hex_digest(arb_match_t *m, char hex[ARB_HASH_HEX])
{
    unsigned char d[ARB_HASH_LEN];
    int           i;

    arb_match_digest(m, d);
    for (i = 0; i < 32; i++)
        sprintf(hex + 2 * i, "%02x", d[i]);
}

/* Field `key` of record `i`, as text ("a,b" for lists); "" when absent. */
static const char *
field(arb_match_t *m, size_t i, const char *key)
{
    static char   out[512];
    arb_results_t r;
    size_t        j, o = 0;

    out[0] = '\0';
    if (arb_match_results(m, &r) != 0 || i >= r.nrecords) {
        arb_results_clear(&r);
        return "(no record)";
    }
    for (j = 0; j < r.records[i].nfields; j++) {
        const arb_field_t *f = &r.records[i].fields[j];
        size_t             k;
        if (strcmp(f->key, key) != 0)
            continue;
        if (f->type == ARB_F_INT)
            snprintf(out, sizeof(out), "%lld", (long long)f->num);
        else if (f->type == ARB_F_STR)
            snprintf(out, sizeof(out), "%s", f->str);
        else
            for (k = 0; k < f->nlist; k++)
                o += (size_t)snprintf(out + o, sizeof(out) - o, "%s%s",
                                      k ? "," : "", f->list[k]);
    }
    arb_results_clear(&r);
    return out;
}

static size_t
nrecords(arb_match_t *m)
{
    arb_results_t r;
    size_t        n;

    arb_match_results(m, &r);
    n = r.nrecords;
    arb_results_clear(&r);
    return n;
}

static const char *
describe(arb_match_t *m)
{
    static char out[4096];
    arb_buf_t   b = ARB_BUF_INIT;

    arb_match_describe(m, &b);
    snprintf(out, sizeof(out), "%s", b.data ? arb_buf_cstr(&b) : "");
    arb_buf_free(&b);
    return out;
}

/* A round's order: hands (dealer first, 7 chips each, concatenated) then
 * the stock's first chips, then the rest of the set in canonical order;
 * written as words of 7 chips. */
static void
order_words(char *out, size_t len, const char *hands, const char *stock)
{
    int    deck[ARB_TSUKU_CHIPS], left[ARB_TSUKU_KINDS], seq[80], n = 0;
    size_t nk = 0, o = 0;
    int    kinds[80], i;
    char   err[160], name[8];

    memset(left, 0, sizeof(left));
    arb_tsuku_deck(deck);
    for (i = 0; i < ARB_TSUKU_CHIPS; i++)
        left[deck[i]]++;
    arb_tsuku_chips_parse(kinds, 80, &nk, hands, err, sizeof(err));
    if (stock[0] != '\0')
        arb_tsuku_chips_parse(kinds, 80, &nk, stock, err, sizeof(err));
    for (i = 0; i < (int)nk; i++) {
        left[kinds[i]]--;
        seq[n++] = kinds[i];
    }
    for (i = 0; i < ARB_TSUKU_CHIPS; i++)
        if (left[deck[i]] > 0) {
            left[deck[i]]--;
            seq[n++] = deck[i];
        }
    for (i = 0; i < n && i < ARB_TSUKU_CHIPS; i++) {
        arb_tsuku_chip_format(name, arb_tsuku_chip_of(seq[i]));
        o += (size_t)snprintf(out + o, len - o, "%s%s",
                              i && i % 7 == 0 ? " " : "", name);
    }
}

static arb_match_t *
open_dealt(const char *players, const char *options, const char *hands,
           const char *stock)
{
    char text[2048], words[400];

    order_words(words, sizeof(words), hands, stock);
    snprintf(text, sizeof(text), "game: tsukurutenten\nmatch: t\n"
             "players: %s\n%sdeal: order %s\n", players, options, words);
    return open_text(text);
}

/* ---- whole games --------------------------------------------------------- */

/* A transcript read as a record of edition 1 (without the options that
 * edition did not know): the digest it was recorded with. */
static void
test_edition1(const char *path, const char *drop, const char *digest)
{
    char        *text = slurp(path), *old, *ed2, hex[ARB_HASH_HEX];
    arb_match_t *m;

    CHECK(text != NULL);
    /* an edition-2 record, as edition 1 would have written it */
    ed2 = text ? header_edit(text, "", "edition: Tsukurutenten-ru-2")
               : NULL;
    old = ed2 ? header_edit(ed2, "edition: Tsukurutenten-ru-1\n", drop)
              : NULL;
    free(ed2);
    m = old ? open_text(old) : NULL;
    CHECK(m != NULL);
    if (m != NULL) {
        CHECK(arb_match_finished(m));
        hex_digest(m, hex);
        CHECK_STR(hex, digest);
    }
    arb_match_free(m);
    free(old);
    free(text);
}

static void
test_game_file(const char *path, const char *digest, const char *winner,
               size_t records)
{
    char        *text = slurp(path), hex[ARB_HASH_HEX], *again;
    arb_match_t *m, *m2;
    arb_history_t    t;
    arb_buf_t    out = ARB_BUF_INIT, why = ARB_BUF_INIT;

    CHECK(text != NULL);
    if (text == NULL)
        return;
    m = open_text(text);
    CHECK(m != NULL);
    if (m == NULL) {
        fprintf(stderr, "%s: %s\n", path, last_msg);
        free(text);
        return;
    }
    CHECK(arb_match_finished(m));
    CHECK_INT(nrecords(m), records);
    CHECK_STR(field(m, records - 1, "kind"), "game");
    CHECK_STR(field(m, records - 1, "winners"), winner);
    hex_digest(m, hex);
    /* Pinned: a change here changes every recorded digest. */
    CHECK_STR(hex, digest);
    CHECK_INT(play(m, "draw ann"), ARB_EOVER);

    /* The canonical transcript replays to the same digest. */
    CHECK_INT(arb_transcript_parse(&t, text, strlen(text), &why), 0);
    CHECK_INT(arb_transcript_format(&out, &t.open, t.events, t.nevents), 0);
    again = (char *)arb_buf_cstr(&out);
    m2 = again ? open_text(again) : NULL;
    CHECK(m2 != NULL);
    if (m2 != NULL) {
        hex_digest(m2, hex);
        CHECK_STR(hex, digest);
    }
    arb_match_free(m2);
    arb_history_clear(&t);
    arb_buf_free(&out);
    arb_buf_free(&why);
    arb_match_free(m);
    free(text);
}

static void
test_simple_game(void)
{
    char        *text = slurp("tests/data/tsuku-simple.txt");
    arb_match_t *m = text ? open_text(text) : NULL;

    CHECK(m != NULL);
    if (m != NULL) {
        CHECK_INT(total_of(m, "ann"), 4);
        CHECK_INT(total_of(m, "bob"), 1);
        CHECK_STR(field(m, 0, "arrangement"), "B1+B2+B3 R4+R5+R6 B2 R1");
        CHECK_STR(field(m, 0, "declared"), "engine");
        CHECK_STR(field(m, 0, "points"), "1");
        CHECK_STR(field(m, 0, "bonuses"), "");
        CHECK_STR(field(m, 1, "finish"), "discard");
        CHECK_STR(field(m, 1, "discarder"), "bob");
        CHECK_STR(field(m, 1, "open_sets"), "R1+R2+R3");
        CHECK_STR(field(m, 1, "declared"), "player");
        CHECK_STR(field(m, 2, "result"), "exhausted");
        CHECK_STR(field(m, 2, "winner"), "");
        CHECK_STR(field(m, 3, "hand"), "B1,B1,B1,B1,R1,P5b,P6b,P7b");
        CHECK_STR(field(m, 4, "arrangements"), "2");
        CHECK_STR(field(m, 5, "totals"), "ann=4,bob=1");
        CHECK_STR(field(m, 6, "end"), "goal");
        CHECK_STR(field(m, 6, "rounds"), "6");
    }
    arb_match_free(m);
    free(text);
    test_game_file("tests/data/tsuku-simple.txt", DIGEST_SIMPLE, "ann", 7);
    /* recorded under editions 2 and 1, it keeps its digests */
    test_game_file("tests/data/tsuku-simple-ed2.txt", DIGEST_SIMPLE_2, "ann",
                   7);
    test_edition1("tests/data/tsuku-simple-ed2.txt", NULL,
                  "8a035edf2b1958dea7d23d3af1e00afc0078087b1289b2d7db0a95d5"
                  "cbfdc88a");
}

/* Issue 15: the second end condition is optional ("можно"), and the
 * readings the text leaves open are options; each pinned both ways on the
 * extended transcript. */
static void
test_options(void)
{
    char        *text = slurp("tests/data/tsuku-extended.txt"), *alt;
    arb_match_t *m;

    CHECK(text != NULL);
    if (text == NULL)
        return;
    /* default (edition 2): the game runs to 25; after everyone has dealt
     * twice it goes on */
    alt = header_edit(text, "", "end: dealt-twice");
    m = alt ? open_text(alt) : NULL;
    CHECK(m != NULL);
    if (m != NULL) {
        CHECK(!arb_match_finished(m));
        CHECK_INT(nrecords(m), 6);
        CHECK_STR(field(m, 5, "result"), "exhausted");
        CHECK(strstr(describe(m), "\"round\":7") != NULL);
    }
    arb_match_free(m);
    free(alt);
    /* end: goal, said explicitly, is the same */
    alt = header_edit(text, "end: goal\n", "end: dealt-twice");
    m = alt ? open_text(alt) : NULL;
    CHECK(m != NULL && !arb_match_finished(m));
    arb_match_free(m);
    free(alt);
    /* the second end belongs to extended scoring */
    CHECK(open_text("game: tsukurutenten\nmatch: s\nplayers: a b\n"
                    "end: dealt-twice\ndeal: seed x\n") == NULL);
    CHECK(strstr(last_msg, "end 'dealt-twice' belongs to extended scoring")
          != NULL);
    CHECK(open_text("game: tsukurutenten\nmatch: s\nplayers: a b\n"
                    "end: never\ndeal: seed x\n") == NULL);
    CHECK_STR(last_msg, "end 'never' is not a reading of this rule set: "
              "choose goal or dealt-twice");
    /* heaven: dealer - only the dealer's first turn is heaven; round 5's
     * non-dealer heaven (14 points) loses its 3 */
    alt = header_edit(text, "heaven: dealer\n", NULL);
    m = alt ? open_text(alt) : NULL;
    CHECK(m != NULL);
    if (m != NULL) {
        CHECK_STR(field(m, 0, "bonuses"),
                  "closed-hand=1,no-ones=1,double-three=3,heaven=3");
        CHECK_STR(field(m, 4, "bonuses"),
                  "closed-hand=1,straight=1,under-five=2,single-four=2,"
                  "one-colour=3");
        CHECK_STR(field(m, 4, "points"), "11");
    }
    arb_match_free(m);
    free(alt);
    CHECK(open_text("game: tsukurutenten\nmatch: s\nplayers: a b\n"
                    "heaven: everyone\ndeal: seed x\n") == NULL);
    CHECK_STR(last_msg, "heaven 'everyone' is not a reading of this rule "
              "set: choose any or dealer");
    /* exclusion: literal - the second sentence as written excludes a
     * three and a double four (the first already does), so a three stands
     * beside a double three: round 1 gains single-three=1 */
    alt = header_edit(text, "exclusion: literal\n", NULL);
    m = alt ? open_text(alt) : NULL;
    CHECK(m != NULL);
    if (m != NULL) {
        CHECK_STR(field(m, 0, "bonuses"), "closed-hand=1,no-ones=1,"
                  "single-three=1,double-three=3,heaven=3");
        CHECK_STR(field(m, 0, "points"), "12");
    }
    arb_match_free(m);
    free(alt);
    free(text);
}

static void
test_extended_game(void)
{
    char        *text = slurp("tests/data/tsuku-extended.txt");
    arb_match_t *m = text ? open_text(text) : NULL;

    CHECK(m != NULL);
    if (m != NULL) {
        CHECK_INT(total_of(m, "ann"), 5);
        CHECK_INT(total_of(m, "bob"), 18);
        CHECK_INT(total_of(m, "cat"), 19);
        /* the dealer's heaven: base 3 */
        CHECK_STR(field(m, 0, "base"), "3");
        CHECK_STR(field(m, 0, "bonuses"),
                  "closed-hand=1,no-ones=1,double-three=3,heaven=3");
        CHECK_STR(field(m, 0, "points"), "11");
        /* an open set: no closed hand; three R1 held as singles still
         * make a three */
        CHECK_STR(field(m, 1, "bonuses"), "single-three=1,half-colour=1");
        CHECK_STR(field(m, 1, "points"), "4");
        /* the declared colour stands even though P8b would score more */
        CHECK_STR(field(m, 2, "arrangement"), "B1+B1+B1 B4+B4+B4 B2 P8r");
        CHECK_STR(field(m, 2, "bonuses"),
                  "closed-hand=1,eight=2,double-three=3");
        CHECK_STR(field(m, 2, "arrangements"), "2");
        /* a first-turn finish with a discard is not heaven */
        CHECK_STR(field(m, 3, "bonuses"),
                  "closed-hand=1,single-three=1,seven=1");
        /* a non-dealer's first draw is heaven; four R1 are a four */
        CHECK_STR(field(m, 4, "bonuses"),
                  "closed-hand=1,straight=1,under-five=2,single-four=2,"
                  "one-colour=3,heaven=3");
        CHECK_STR(field(m, 4, "points"), "14");
        CHECK_STR(field(m, 5, "result"), "exhausted");
        CHECK_STR(field(m, 6, "end"), "deals");
        CHECK_STR(field(m, 6, "reason"), "every player has dealt twice; "
                  "the game goes to cat");
    }
    arb_match_free(m);
    free(text);
    test_game_file("tests/data/tsuku-extended.txt", DIGEST_EXTENDED, "cat",
                   7);
    test_game_file("tests/data/tsuku-extended-ed2.txt", DIGEST_EXTENDED_2,
                   "cat", 7);
    /* Edition 1 ended every extended game when all had dealt twice: its
     * record (without the option) replays so, to its recorded digest */
    test_edition1("tests/data/tsuku-extended-ed2.txt", "end: dealt-twice",
                  "aabc7d1b350e7de7a062c61312d0515409348ce005a2cfda32a8fac2"
                  "80a5f611");
    test_options();
}

/* ---- the seeded deal ----------------------------------------------------- */

static void
seed_order(int stock[ARB_TSUKU_CHIPS], const char *key)
{
    unsigned perm[ARB_TSUKU_CHIPS];
    int      deck[ARB_TSUKU_CHIPS], i;

    arb_shuffle(perm, ARB_TSUKU_CHIPS, key, strlen(key));
    arb_tsuku_deck(deck);
    for (i = 0; i < ARB_TSUKU_CHIPS; i++)
        stock[i] = deck[perm[i]];
}

static void
test_seed_deal(void)
{
    arb_match_t *m;
    int          s1[ARB_TSUKU_CHIPS], s2[ARB_TSUKU_CHIPS], i, rc = 0;
    char         line[160], name[8], other[8];
    const char  *pl[2] = { "ann", "bob" };

    m = open_text("game: tsukurutenten\nmatch: s\nplayers: ann bob\n"
                  "dealer: bob\ndeal: seed table-3-game-1\n");
    CHECK(m != NULL);
    if (m == NULL)
        return;
    seed_order(s1, "table-3-game-1:1");
    seed_order(s2, "table-3-game-1:2");
    /* bob deals round 1: the first draw is stock position 14 */
    arb_tsuku_chip_format(name, arb_tsuku_chip_of(s1[14]));
    arb_tsuku_chip_format(other, arb_tsuku_chip_of((s1[14] + 1) % 19));
    snprintf(line, sizeof(line), "draw bob %s", other);
    CHECK_INT(play(m, line), ARB_EILLEGAL);
    snprintf(line, sizeof(line), "%s is not the next chip of the "
             "stock", other);
    CHECK_STR(last_msg, line);
    CHECK_INT(play(m, "deal bob B1"), ARB_EILLEGAL);
    CHECK_STR(last_msg, "round 1 is already dealt (from the seed)");
    /* everybody draws and throws back the chip drawn: the stock runs out
     * after 47 draws and the round ends without a winner */
    for (i = 14; i < ARB_TSUKU_CHIPS && rc == 0; i++) {
        arb_tsuku_chip_format(name, arb_tsuku_chip_of(s1[i]));
        snprintf(line, sizeof(line), "draw %s %s", pl[(i + 1) % 2], name);
        rc = play(m, line);
        snprintf(line, sizeof(line), "discard %s %s", pl[(i + 1) % 2], name);
        if (rc == 0)
            rc = play(m, line);
    }
    CHECK_INT(rc, 0);
    /* the stock is empty: ann may finish with bob's last discard, or
     * pass; nothing else (edition 3) */
    CHECK_INT(nrecords(m), 0);
    arb_tsuku_chip_format(name, arb_tsuku_chip_of(s1[60]));
    snprintf(line, sizeof(line), "the stock is empty: ann may finish with "
             "bob's last discard %s, or pass (the round then ends without a "
             "winner)", name);
    CHECK_INT(play(m, "draw ann"), ARB_EILLEGAL);
    CHECK_STR(last_msg, line);
    CHECK_INT(play(m, "take ann B1 B2"), ARB_EILLEGAL);
    CHECK_STR(last_msg, line);
    CHECK_INT(play(m, "discard ann B1"), ARB_EILLEGAL);
    CHECK_STR(last_msg, line);
    CHECK_INT(play(m, "pass bob"), ARB_EILLEGAL);
    CHECK_STR(last_rule, "Turns");
    CHECK_INT(play(m, "pass ann B1"), ARB_EINVAL);
    CHECK_INT(play(m, "pass ann"), 0);
    CHECK_INT(nrecords(m), 1);
    CHECK_STR(field(m, 0, "result"), "exhausted");
    CHECK_STR(field(m, 0, "dealer"), "bob");
    /* round 2: ann deals from "seed:2" */
    CHECK(strstr(describe(m), "\"round\":2,\"dealer\":\"ann\",\"turn\":"
                  "\"ann\",\"phase\":\"action\",\"stock\":47,\"discard\":"
                  "null") != NULL);
    arb_tsuku_chip_format(name, arb_tsuku_chip_of(s2[14]));
    snprintf(line, sizeof(line), "draw ann %s", name);
    CHECK_INT(play(m, line), 0);
    /* ann holds s2[0..7) and the chip drawn: discarding one she was
     * dealt is legal */
    arb_tsuku_chip_format(name, arb_tsuku_chip_of(s2[3]));
    snprintf(line, sizeof(line), "discard ann %s", name);
    CHECK_INT(play(m, line), 0);
    arb_match_free(m);

    /* a committed deal cannot be judged */
    {
        arb_event_t  open;
        arb_setup_t  s;
        arb_verdict_t v;
        arb_match_t *mm = NULL;

        memset(&open, 0, sizeof(open));
        memset(&s, 0, sizeof(s));
        s.game = strdup("tsukurutenten");
        s.match_id = strdup("c");
        arb_setup_add_player(&s, "ann", -1);
        arb_setup_add_player(&s, "bob", -1);
        s.deal.kind = ARB_DEAL_COMMIT;
        open.kind = ARB_EV_OPEN;
        open.setup = &s;
        CHECK_INT(arb_match_open(&mm, &open, &v), ARB_EINVAL);
        CHECK(strstr(v.msg, "a committed deal cannot be judged") != NULL);
        arb_match_free(mm);
        arb_setup_clear(&s);
    }
}

/* ---- turns and their refusals -------------------------------------------- */

static void
test_turns(void)
{
    arb_match_t *m;
    char         d1[ARB_HASH_HEX], d2[ARB_HASH_HEX];

    /* ann deals: B1 B2 B3 B4 B4 B6 R5 / bob: R1 R2 R3 R4 R4 R4 B7;
     * stock: R0 B5 R6 ... */
    m = open_dealt("ann bob", "",
                   "B1B2B3B4B4B6R5" "R1R2R3R4R4R4B7", "R0B5R6P5");
    CHECK(m != NULL);
    if (m == NULL) {
        fprintf(stderr, "open: %s\n", last_msg);
        return;
    }
    CHECK(strstr(describe(m), "\"players\":[{\"name\":\"ann\",\"points\":0,"
                 "\"hand\":7,\"open_sets\":[],\"discards\":[]}") != NULL);
    /* hidden hands never show */
    CHECK(strstr(describe(m), "B6") == NULL);
    CHECK(strstr(describe(m), "R4") == NULL);

    hex_digest(m, d1);
    CHECK_INT(play(m, "draw bob"), ARB_EILLEGAL);
    CHECK_STR(last_rule, "Turns");
    CHECK_STR(last_msg, "it is ann's turn, not bob's: players act in seat "
              "order from the dealer");
    CHECK_INT(play(m, "take ann B4 B6"), ARB_EILLEGAL);
    CHECK_STR(last_msg, "no chip has been discarded this round yet: "
              "ann must draw");
    CHECK_INT(play(m, "finish ann"), ARB_EILLEGAL);
    CHECK_STR(last_msg, "no chip has been discarded this round yet: "
              "ann must draw");
    CHECK_INT(play(m, "discard ann B1"), ARB_EILLEGAL);
    CHECK_STR(last_msg, "ann must first draw, take or finish: a "
              "discard ends a turn");
    CHECK_INT(play(m, "shuffle ann"), ARB_EINVAL);
    CHECK_STR(last_msg, "tsukurutenten has no move 'shuffle': the moves are "
              "deal, draw, discard, take, finish and pass");
    CHECK_INT(play(m, "pass ann"), ARB_EILLEGAL);
    CHECK_STR(last_msg, "ann may pass only when the stock is empty and the "
              "last discard waits (47 chips in the stock: a turn is draw, "
              "take or finish)");
    CHECK_INT(play(m, "draw zed"), ARB_EINVAL);
    CHECK_STR(last_msg, "player 'zed' is not seated in this match");
    CHECK_INT(play(m, "draw ann R0 R1"), ARB_EINVAL);
    /* a chip that is none is named with the move it broke, as a
     * finish's is ("Взять", the seed's Gameplay) */
    CHECK_INT(play(m, "draw ann X1"), ARB_EINVAL);
    CHECK_STR(last_rule, "Chips");
    CHECK_STR(last_msg, "Draw: chip 'X1': the colour must be B (blue), R "
              "(red) or P (purple)");
    /* refused moves change nothing */
    hex_digest(m, d2);
    CHECK_STR(d1, d2);
    CHECK_INT(arb_match_next_seq(m), 1);

    CHECK_INT(play(m, "draw ann R0"), 0);
    CHECK_INT(play(m, "draw ann"), ARB_EILLEGAL);
    CHECK_STR(last_msg, "ann has already drawn this turn: discard a "
              "chip or finish");
    CHECK_INT(play(m, "take ann B4 B6"), ARB_EILLEGAL);
    CHECK_STR(last_msg, "ann has already drawn this turn: a turn is "
              "one action");
    CHECK_INT(play(m, "discard ann B7"), ARB_EILLEGAL);
    CHECK_STR(last_msg, "ann holds no B7");
    CHECK_INT(play(m, "discard ann P7b"), ARB_EINVAL);
    CHECK_STR(last_rule, "Chips");
    CHECK_STR(last_msg, "Discard: chip 'P7b': a purple chip has no colour "
              "here: write P7");
    /* ann's B1 B2 B3 B4 B4 B6 R5 R0 is worth 23 as it stands */
    CHECK_INT(play(m, "finish ann"), ARB_EILLEGAL);
    CHECK_STR(last_msg, "no arrangement of ann's hand B1 B2 B3 B4 B4 "
              "B6 R0 R5 is worth exactly 10");
    CHECK_INT(play(m, "finish ann B1+B2+B3"), ARB_EILLEGAL);
    CHECK_STR(last_msg, "ann's arrangement B1+B2+B3 B4 B4 B6 R0 R5 "
              "is worth 20, not 10 (and no arrangement of this hand is)");
    CHECK_INT(play(m, "finish ann B2+B3+B5"), ARB_EILLEGAL);
    CHECK_STR(last_msg, "the hand holds no B5 to show for B2+B3+B5");
    /* "сбросить одну из фишек": one chip, not the first of several */
    CHECK_INT(play(m, "discard ann R5 B1"), ARB_EINVAL);
    CHECK_STR(last_msg, "discard names one chip, got 2 arguments");
    CHECK_INT(play(m, "discard ann"), ARB_EINVAL);
    CHECK_STR(last_msg, "discard names one chip, got 0 arguments");
    CHECK_INT(play(m, "discard ann R5"), 0);

    /* bob: the waiting discard is ann's R5 */
    CHECK(strstr(describe(m), "\"discard\":{\"chip\":\"R5\",\"by\":\"ann\"}")
          != NULL);
    CHECK_INT(play(m, "take bob B4 R4"), ARB_EILLEGAL);
    CHECK_STR(last_msg, "bob holds no B4");
    CHECK_INT(play(m, "take bob R4 B7"), ARB_EILLEGAL);
    CHECK_STR(last_rule, "Sets");
    CHECK_STR(last_msg, "Take: red 4, red 5, blue 7 is not a set: colours "
              "differ");
    CHECK_INT(play(m, "take bob R1 R2"), ARB_EILLEGAL);
    CHECK_STR(last_msg, "Take: red 1, red 2, red 5 is not a set: the values "
              "1, 2, 5 are neither equal nor consecutive");
    CHECK_INT(play(m, "take bob R6 R4 R4"), ARB_EILLEGAL);
    CHECK_STR(last_msg, "ann's last discard is R5, which R6 R4 R4 does "
              "not contain");
    CHECK_INT(play(m, "take bob R4"), ARB_EINVAL);
    /* "Получить" (the seed's Gameplay): the set's chips, named with the
     * move */
    CHECK_INT(play(m, "take bob R4 B0"), ARB_EINVAL);
    CHECK_STR(last_rule, "Chips");
    CHECK_STR(last_msg, "Take: chip 'B0' does not exist: blue chips are "
              "B1..B7");
    CHECK_INT(play(m, "take bob R5 R4 R4"), ARB_EILLEGAL);
    CHECK_INT(play(m, "take bob R3 R5 R4"), 0);
    CHECK(strstr(describe(m), "\"open_sets\":[\"R3+R4+R5\"]") != NULL);
    CHECK(strstr(describe(m), "\"discard\":null") != NULL);
    CHECK_INT(play(m, "draw bob"), ARB_EILLEGAL);
    CHECK_STR(last_msg, "bob took ann's discard this turn and must now "
              "discard");
    CHECK_INT(play(m, "pass bob"), ARB_EILLEGAL);
    CHECK_STR(last_msg, "bob took ann's discard this turn and must now "
              "discard");
    CHECK_INT(play(m, "finish bob"), ARB_EILLEGAL);
    CHECK(strstr(last_msg, "must discard") != NULL);
    CHECK_INT(play(m, "discard bob B7"), 0);
    CHECK(strstr(describe(m), "\"name\":\"bob\",\"points\":0,\"hand\":4,"
                 "\"open_sets\":[\"R3+R4+R5\"],\"discards\":[\"B7\"]}")
          != NULL);
    CHECK(strstr(describe(m), "\"name\":\"ann\",\"points\":0,\"hand\":7,"
                 "\"open_sets\":[],\"discards\":[]}") != NULL);
    /* ann: B1 B2 B3 B4 B4 B6 R0 + bob's B7?  1 + 4+4+6+0+7 = 22: no */
    CHECK_INT(play(m, "finish ann"), ARB_EILLEGAL);
    CHECK_INT(play(m, "draw ann B5"), 0);
    /* B1+B2+B3 B4+B5+B6 B4 R0: 1 + 4 + 4 + 0 = 9 — not yet */
    CHECK_INT(play(m, "finish ann B1+B2+B3 B4+B5+B6"), ARB_EILLEGAL);
    CHECK_STR(last_msg, "ann's arrangement B1+B2+B3 B4+B5+B6 B4 R0 "
              "is worth 9, not 10 (and no arrangement of this hand is)");
    CHECK_INT(play(m, "discard ann R0"), 0);
    /* bob: R1 R2 R4 B-less... bob holds R1 R2 R4 R4 and the open R3+R4+R5
     * (5): with ann's R0, R0+R1+R2 (2) + R4 + R4 = 15: no */
    CHECK_INT(play(m, "finish bob"), ARB_EILLEGAL);
    CHECK_INT(play(m, "draw bob R6"), 0);
    CHECK_INT(play(m, "discard bob R6"), 0);
    /* ann draws P5: B3+B4+B5 (3) + B4+P5b+B6 (4) + B1 + B2 = 10, found
     * by the search although no set was named */
    CHECK_INT(play(m, "draw ann P5"), 0);
    CHECK_INT(play(m, "finish ann"), 0);
    CHECK_STR(field(m, 0, "arrangement"), "B3+B4+B5 B4+P5b+B6 B1 B2");
    CHECK_STR(field(m, 0, "declared"), "engine");
    CHECK_STR(field(m, 0, "finish"), "stock");
    /* round 2: bob deals, a new order is needed */
    CHECK(strstr(describe(m), "\"round\":2,\"dealer\":\"bob\",\"turn\":"
                 "\"bob\",\"phase\":\"deal\"") != NULL);
    arb_match_free(m);
}

/* The example, as a take. */
static void
test_take_message(void)
{
    arb_match_t *m;

    m = open_dealt("ann bob", "",
                   "R5B1B1B1B2B2B2" "B4B6R1R1R1R2R2", "R7");
    CHECK(m != NULL);
    if (m == NULL)
        return;
    CHECK_INT(play(m, "draw ann R7"), 0);
    CHECK_INT(play(m, "discard ann R5"), 0);
    CHECK_INT(play(m, "take bob B4 B6"), ARB_EILLEGAL);
    CHECK_STR(last_rule, "Sets");
    CHECK_STR(last_msg, "Take: blue 4, red 5, blue 6 is not a set: colours "
              "differ");
    arb_match_free(m);
}

/* "Получить": the discard and "ещё две фишки из своей руки" - two chips
 * the hand holds, so a pair needs two of them. */
static void
test_take_pair(void)
{
    arb_match_t *m;
    char         d1[ARB_HASH_HEX], d2[ARB_HASH_HEX];

    /* bob holds one R5 */
    m = open_dealt("ann bob", "",
                   "R5B1B1B1B2B2B2" "R5B4B6R1R1R2R2", "R7");
    CHECK(m != NULL);
    if (m == NULL)
        return;
    CHECK_INT(play(m, "draw ann R7"), 0);
    CHECK_INT(play(m, "discard ann R5"), 0);
    hex_digest(m, d1);
    CHECK_INT(play(m, "take bob R5 R5"), ARB_EILLEGAL);
    CHECK_STR(last_rule, "Take");
    CHECK_STR(last_msg, "bob holds only one R5");
    CHECK_INT(play(m, "take bob R5 R5 R5"), ARB_EILLEGAL);
    CHECK_STR(last_msg, "bob holds only one R5");
    CHECK_INT(play(m, "take bob R5 R5 R6"), ARB_EILLEGAL);
    CHECK_STR(last_msg, "bob holds no R6");
    CHECK_INT(play(m, "take bob R6 R6"), ARB_EILLEGAL);
    CHECK_STR(last_msg, "bob holds no R6");
    hex_digest(m, d2);
    CHECK_STR(d1, d2);
    CHECK(strstr(describe(m), "\"name\":\"bob\",\"points\":0,\"hand\":7,"
                 "\"open_sets\":[]") != NULL);
    arb_match_free(m);
}

/* "Получить" and "Завершить из сброса" take "последнюю фишку из сброса
 * противника", whichever chip it is: the blue 1, the first chip of the
 * set, waits as any other does. */
static void
test_blue_one_waits(void)
{
    arb_match_t *m;
    int          i;

    for (i = 0; i < 2; i++) {
        /* bob: B1 B1 R0 R1 R2 R3 R5; with ann's B1, B1+B1+B1 (0) +
         * R0+R1+R2 (2) + R3 + R5 = 10 */
        m = open_dealt("ann bob", "",
                       "B1B4B4B4B6B6B6" "B1B1R0R1R2R3R5", "R7");
        CHECK(m != NULL);
        if (m == NULL)
            return;
        CHECK_INT(play(m, "draw ann R7"), 0);
        CHECK_INT(play(m, "discard ann B1"), 0);
        CHECK(strstr(describe(m), "\"discard\":{\"chip\":\"B1\","
                     "\"by\":\"ann\"}") != NULL);
        if (i == 0) {
            CHECK_INT(play(m, "finish bob"), 0);
            CHECK_STR(last_msg, "");
            CHECK_STR(field(m, 0, "winner"), "bob");
            CHECK_STR(field(m, 0, "finish"), "discard");
            CHECK_STR(field(m, 0, "discarder"), "ann");
            CHECK_STR(field(m, 0, "arrangement"), "B1+B1+B1 R0+R1+R2 R3 R5");
        } else {
            CHECK_INT(play(m, "take bob B1 B1"), 0);
            CHECK_STR(last_msg, "");
            CHECK(strstr(describe(m), "\"open_sets\":[\"B1+B1+B1\"]")
                  != NULL);
            CHECK_INT(play(m, "discard bob R5"), 0);
        }
        arb_match_free(m);
    }
}

/* "Завершить из сброса: взять последнюю фишку из сброса противника": the
 * chip a finish takes leaves its discarder's pile, as a take's does. */
static void
test_finish_discard_pile(void)
{
    arb_match_t *m;

    /* bob: B5 x4, R5 x3; ann throws the last R5: divine ten, the game */
    m = open_dealt("ann bob", "scoring: extended\n",
                   "R5B1B1B1B2B2B2" "B5B5B5B5R5R5R5", "R7");
    CHECK(m != NULL);
    if (m == NULL)
        return;
    CHECK_INT(play(m, "draw ann R7"), 0);
    CHECK_INT(play(m, "discard ann R7"), 0);
    CHECK_INT(play(m, "draw bob"), 0);
    CHECK_INT(play(m, "discard bob B1"), 0);
    CHECK_INT(play(m, "draw ann"), 0);
    CHECK_INT(play(m, "discard ann R5"), 0);
    CHECK_INT(play(m, "finish bob"), 0);
    CHECK(arb_match_finished(m));
    CHECK_STR(field(m, 0, "finish"), "discard");
    CHECK_STR(field(m, 0, "discarder"), "ann");
    CHECK(strstr(describe(m), "\"name\":\"ann\",\"points\":0,\"hand\":7,"
                 "\"open_sets\":[],\"discards\":[\"R7\"]}") != NULL);
    arb_match_free(m);
}

/* "Этот игрок выигрывает игру": the highest total wins, and equal highest
 * totals share the game - here at the second end, every player having
 * dealt twice (docs: the game's winner). */
static void
test_shared_game(void)
{
    arb_match_t *m;
    char         text[2048], r1[400], r2[400];

    /* rounds 1 and 3: ann deals, bob draws R4 and finishes; rounds 2 and
     * 4: bob deals, ann the same */
    order_words(r1, sizeof(r1), "B7B7B7B7R7R7R7" "B1B2B3R1R2R3B2", "R6R4");
    order_words(r2, sizeof(r2), "B7B7B7B7R7R7R7" "B1B2B3R1R2R3B2", "R6R4");
    snprintf(text, sizeof(text), "game: tsukurutenten\nmatch: t\n"
             "players: ann bob\nscoring: extended\nend: dealt-twice\n"
             "deal: order %s %s %s %s\n", r1, r2, r1, r2);
    m = open_text(text);
    CHECK(m != NULL);
    if (m == NULL)
        return;
    CHECK_INT(play(m, "draw ann R6"), 0);
    CHECK_INT(play(m, "discard ann R6"), 0);
    CHECK_INT(play(m, "draw bob R4"), 0);
    CHECK_INT(play(m, "finish bob"), 0);
    CHECK_INT(play(m, "draw bob R6"), 0);
    CHECK_INT(play(m, "discard bob R6"), 0);
    CHECK_INT(play(m, "draw ann R4"), 0);
    CHECK_INT(play(m, "finish ann"), 0);
    CHECK_INT(play(m, "draw ann R6"), 0);
    CHECK_INT(play(m, "discard ann R6"), 0);
    CHECK_INT(play(m, "draw bob R4"), 0);
    CHECK_INT(play(m, "finish bob"), 0);
    CHECK_INT(play(m, "draw bob R6"), 0);
    CHECK_INT(play(m, "discard bob R6"), 0);
    CHECK_INT(play(m, "draw ann R4"), 0);
    CHECK_INT(play(m, "finish ann"), 0);
    CHECK(arb_match_finished(m));
    CHECK_INT(nrecords(m), 5);
    CHECK_STR(field(m, 3, "points"), field(m, 0, "points"));
    CHECK_INT(total_of(m, "ann"), total_of(m, "bob"));
    CHECK_STR(field(m, 4, "end"), "deals");
    CHECK_STR(field(m, 4, "winners"), "ann,bob");
    CHECK_STR(field(m, 4, "reason"), "every player has dealt twice; the "
              "game goes to ann, bob");
    CHECK(strstr(describe(m), "\"winners\":[\"ann\",\"bob\"]") != NULL);
    arb_match_free(m);
}

/* Purple sets shown by a take fix their colour then. */
static void
test_purple_take(void)
{
    arb_match_t *m;

    /* ann holds P5 and throws it; bob holds P6 P7 */
    m = open_dealt("ann bob", "",
                   "P5B1B1B1B2B2B2" "P6P7B1R0R1R1R1", "R7B3");
    CHECK(m != NULL);
    if (m == NULL)
        return;
    CHECK_INT(play(m, "draw ann R7"), 0);
    CHECK_INT(play(m, "discard ann P5"), 0);
    CHECK_INT(play(m, "take bob P6 P7"), ARB_EILLEGAL);
    CHECK(strstr(last_msg, "Take: purple 5, purple 6, purple 7 is not a set "
                 "yet") != NULL);
    CHECK_INT(play(m, "take bob P6b P7r"), ARB_EILLEGAL);
    CHECK(strstr(last_msg, "colours differ") != NULL);
    CHECK_INT(play(m, "take bob P5b P6b P7b"), 0);
    CHECK(strstr(describe(m), "\"open_sets\":[\"P5b+P6b+P7b\"]") != NULL);
    CHECK_INT(play(m, "discard bob R0"), 0);
    CHECK_INT(play(m, "draw ann B3"), 0);
    CHECK_INT(play(m, "discard ann B3"), 0);
    /* bob: B1 R1 R1 R1 + ann's B3, open blue 5: 5 + 1 + 3 + 1+1+1 = 12;
     * with R1+R1+R1: 5 + 1 + 3 + 0 = 9: no finish */
    CHECK_INT(play(m, "finish bob"), ARB_EILLEGAL);
    arb_match_free(m);

    /* the same open set red would be worth 7 */
    m = open_dealt("ann bob", "scoring: extended\n",
                   "P5B1B1B1B2B2B2" "P6P7B1R0R1R1R2", "R7B2");
    CHECK(m != NULL);
    if (m == NULL)
        return;
    CHECK_INT(play(m, "draw ann"), 0);
    CHECK_INT(play(m, "discard ann P5"), 0);
    CHECK_INT(play(m, "take bob P5 P6r P7"), 0);
    CHECK_INT(play(m, "discard bob R2"), 0);
    CHECK_INT(play(m, "draw ann B2"), 0);
    CHECK_INT(play(m, "discard ann B2"), 0);
    /* bob: open P5r+P6r+P7r (7) + B1 R0 R1 R1 + B2 = 12: refused, and the
     * message shows the open set with its colour */
    CHECK_INT(play(m, "finish bob"), ARB_EILLEGAL);
    CHECK(strstr(last_msg, "(open P5r+P6r+P7r)") != NULL);
    arb_match_free(m);
}

/* Extended scoring ends at 25: divine ten with the first draw. */
static void
test_goal(void)
{
    arb_match_t *m;

    m = open_dealt("ann bob cat", "scoring: extended\ndealer: bob\n",
                   "B5B5B5B5R5R5R5" "B1B1B1B1B2B2B2" "B3B3B3B3B4B4B4",
                   "R5");
    CHECK(m != NULL);
    if (m == NULL) {
        fprintf(stderr, "open: %s\n", last_msg);
        return;
    }
    CHECK_INT(play(m, "draw ann"), ARB_EILLEGAL);
    CHECK_STR(last_msg, "it is bob's turn, not ann's: players act in seat "
              "order from the dealer");
    CHECK_INT(play(m, "draw bob R5"), 0);
    CHECK_INT(play(m, "finish bob"), 0);
    CHECK(arb_match_finished(m));
    /* 3 dealer + closed 1 + no ones 1 + half colour 1 + double four 10 +
     * heaven 3 + divine ten 25 */
    CHECK_INT(total_of(m, "bob"), 44);
    CHECK_STR(field(m, 0, "bonuses"), "closed-hand=1,no-ones=1,half-colour=1,"
              "heaven=3,double-four=10,divine-ten=25");
    CHECK_STR(field(m, 1, "reason"), "a player reached the goal of 25 "
              "points; the game goes to bob");
    CHECK_INT(play(m, "draw cat"), ARB_EOVER);
    CHECK_STR(last_msg, "the game is over: a player reached the goal of 25 "
              "points; the game goes to bob");
    CHECK(strstr(describe(m), "\"turn\":null,\"phase\":\"over\"") != NULL);
    CHECK(strstr(describe(m), "\"finished\":true") != NULL);
    CHECK(strstr(describe(m), "\"winners\":[\"bob\"]") != NULL);
    arb_match_free(m);
}

/* Both ends at once: with `end: dealt-twice` and two players, round 4 is
 * the last of the second turn of deals; a player who reaches 25 in it
 * ends the game by the goal ("пока один из игроков не наберет ... 25
 * очков ..., и этот игрок выигрывает игру"), which the record says. */
static void
test_goal_last_deal(void)
{
    static const char *const round[4][2] = {
        /* dealer's 7 and the other's 7, then the dealer's draw */
        { "B1B2B3R1R2R3B2" "B5B5B5B6B6B6B7", "B4" },
        { "B1B2B3R1R2R3B2" "B5B5B5B6B6B6B7", "B4" },
        { "B1B2B3R1R2R3B2" "B5B5B5B6B6B6B7", "B4" },
        { "B5B5B5B5R5R5R5" "B1B1B1B1B2B2B2", "R5" },
    };
    static const char *const dealer[4] = { "ann", "bob", "ann", "bob" };
    arb_match_t *m;
    char         words[400], line[512];
    int          r;

    m = open_text("game: tsukurutenten\nmatch: g\nplayers: ann bob\n"
                  "scoring: extended\nend: dealt-twice\n");
    CHECK(m != NULL);
    if (m == NULL)
        return;
    for (r = 0; r < 4; r++) {
        order_words(words, sizeof(words), round[r][0], round[r][1]);
        snprintf(line, sizeof(line), "deal %s %s", dealer[r], words);
        CHECK_INT(play(m, line), 0);
        snprintf(line, sizeof(line), "draw %s", dealer[r]);
        CHECK_INT(play(m, line), 0);
        snprintf(line, sizeof(line), "finish %s", dealer[r]);
        CHECK_INT(play(m, line), 0);
        CHECK(arb_match_finished(m) == (r == 3));
    }
    /* rounds 1-3: dealer 3 + closed 1 + under five 2 + heaven 3 = 9 */
    CHECK_STR(field(m, 0, "points"), "9");
    CHECK_STR(field(m, 2, "totals"), "ann=18,bob=9");
    /* round 4: 44 (test_goal's hand), bob 53 */
    CHECK_STR(field(m, 3, "totals"), "ann=18,bob=53");
    CHECK_STR(field(m, 4, "kind"), "game");
    CHECK_STR(field(m, 4, "end"), "goal");
    CHECK_STR(field(m, 4, "reason"), "a player reached the goal of 25 "
              "points; the game goes to bob");
    arb_match_free(m);
}

/* Four players: only the previous player's last discard can be taken. */
static void
test_four_players(void)
{
    arb_match_t *m;

    m = open_dealt("ann bob cat dan", "",
                   "B1B1B1B1B2B2B2" "B2B3B3B3B3B4B4" "B4B4B5B5B5B5B6"
                   "B6B6B6B7B7B7B7", "R0R1");
    CHECK(m != NULL);
    if (m == NULL)
        return;
    CHECK_INT(play(m, "draw ann R0"), 0);
    CHECK_INT(play(m, "discard ann B2"), 0);
    CHECK_INT(play(m, "draw bob R1"), 0);
    CHECK_INT(play(m, "discard bob B4"), 0);
    /* ann's B2 is no longer waiting: bob has discarded since */
    CHECK_INT(play(m, "take cat B2 B2 B2"), ARB_EILLEGAL);
    CHECK_STR(last_msg, "bob's last discard is B4, which B2 B2 B2 does "
              "not contain");
    CHECK_INT(play(m, "take cat B4 B4"), 0);
    CHECK_INT(play(m, "discard cat B6"), 0);
    /* dan takes cat's B6, not anybody else's */
    CHECK_INT(play(m, "take dan B6 B6"), 0);
    CHECK_INT(play(m, "discard dan B7"), 0);
    CHECK(strstr(describe(m), "\"stock\":31,\"discard\":{\"chip\":\"B7\","
                 "\"by\":\"dan\"}") != NULL);
    CHECK(strstr(describe(m), "{\"name\":\"ann\",\"points\":0,\"hand\":7,"
                 "\"open_sets\":[],\"discards\":[\"B2\"]}") != NULL);
    CHECK(strstr(describe(m), "{\"name\":\"bob\",\"points\":0,\"hand\":7,"
                 "\"open_sets\":[],\"discards\":[]}") != NULL);
    CHECK(strstr(describe(m), "{\"name\":\"cat\",\"points\":0,\"hand\":4,"
                 "\"open_sets\":[\"B4+B4+B4\"],\"discards\":[]}") != NULL);
    CHECK(strstr(describe(m), "\"turn\":\"ann\"") != NULL);
    arb_match_free(m);
}

static void
test_exhaust_four(void)
{
    arb_match_t *m;
    int          deck[ARB_TSUKU_CHIPS], i, rc = 0;
    char         line[64], name[8];
    const char  *pl[4] = { "ann", "bob", "cat", "dan" };

    /* canonical order: the stock is deck[28..61) */
    m = open_dealt("ann bob cat dan", "", "", "");
    CHECK(m != NULL);
    if (m == NULL)
        return;
    arb_tsuku_deck(deck);
    for (i = 28; i < ARB_TSUKU_CHIPS && rc == 0; i++) {
        arb_tsuku_chip_format(name, arb_tsuku_chip_of(deck[i]));
        snprintf(line, sizeof(line), "draw %s", pl[(i - 28) % 4]);
        rc = play(m, line);
        snprintf(line, sizeof(line), "discard %s %s", pl[(i - 28) % 4],
                 name);
        if (rc == 0)
            rc = play(m, line);
    }
    CHECK_INT(rc, 0);
    CHECK_INT(play(m, "pass bob"), 0);      /* ann threw the last chip */
    CHECK_STR(field(m, 0, "result"), "exhausted");
    CHECK_STR(field(m, 0, "round"), "1");
    /* bob deals round 2 */
    CHECK(strstr(describe(m), "\"round\":2,\"dealer\":\"bob\"") != NULL);
    /* the header's order covered one round: the next needs a deal move */
    CHECK(strstr(describe(m), "\"phase\":\"deal\"") != NULL);
    CHECK_INT(play(m, "draw bob"), ARB_EILLEGAL);
    CHECK_STR(last_msg, "round 2 is not dealt yet: bob, the dealer, records "
              "the order first with 'deal bob <61 chips>'");
    CHECK_INT(play(m, "deal ann B1"), ARB_EILLEGAL);
    CHECK_STR(last_msg, "bob deals round 2, not ann");
    CHECK_INT(play(m, "deal bob B1B2"), ARB_EINVAL);
    CHECK_STR(last_msg, "deal: 2 chips given, the order of a round lists "
              "all 61");
    arb_match_free(m);
}

static void
test_deal_moves(void)
{
    arb_match_t *m;
    char         words[400], line[512];

    m = open_text("game: tsukurutenten\nmatch: d\nplayers: ann bob\n");
    CHECK(m != NULL);
    if (m == NULL)
        return;
    CHECK(strstr(describe(m), "\"phase\":\"deal\",\"stock\":0") != NULL);
    order_words(words, sizeof(words), "B1B2B3R4R5R6R1" "B7B7B7R7R7R7P8",
                "B2");
    /* one chip too many of B1, one missing of B2 */
    snprintf(line, sizeof(line), "deal ann %s", words);
    line[12] = '1';
    CHECK_INT(play(m, line), ARB_EILLEGAL);
    CHECK_STR(last_msg, "the deal holds 5 × B1, but the chip set has 4: an "
              "order lists each of the 61 chips once");
    CHECK_INT(play(m, "deal ann B1B2B9"), ARB_EINVAL);
    CHECK_STR(last_msg, "deal: chip 'B9' does not exist: blue chips are "
              "B1..B7");
    snprintf(line, sizeof(line), "deal ann %s", words);
    CHECK_INT(play(m, line), 0);
    CHECK_INT(play(m, line), ARB_EILLEGAL);
    CHECK_STR(last_msg, "round 1 is already dealt (by an earlier deal "
              "move)");
    CHECK_INT(play(m, "draw ann B2"), 0);
    CHECK_INT(play(m, "finish ann B1+B2+B3 R4+R5+R6"), 0);
    CHECK_STR(field(m, 0, "declared"), "player");
    CHECK_INT(total_of(m, "ann"), 1);
    arb_match_free(m);
}

static void
test_setup_errors(void)
{
    CHECK(open_text("game: tsukurutenten\nmatch: s\nplayers: ann\n")
          == NULL);
    CHECK_STR(last_msg, "tsukurutenten is played by 2 to 4 players, got 1");
    CHECK(open_text("game: tsukurutenten\nmatch: s\n"
                    "players: a b c d e\n") == NULL);
    CHECK_STR(last_msg, "tsukurutenten is played by 2 to 4 players, got 5");
    CHECK(open_text("game: tsukurutenten\nmatch: s\nplayers: a b\n"
                    "mode: 3\n") == NULL);
    CHECK_STR(last_msg, "unknown option 'mode' for tsukurutenten (options: "
              "scoring, dealer, end, heaven, exclusion)");
    CHECK(open_text("game: tsukurutenten\nmatch: s\nplayers: a b\n"
                    "scoring: double\n") == NULL);
    CHECK(strstr(last_msg, "scoring 'double' does not exist") != NULL);
    CHECK(open_text("game: tsukurutenten\nmatch: s\nplayers: a b\n"
                    "dealer: zed\n") == NULL);
    CHECK_STR(last_msg, "the first dealer 'zed' is not a player of this "
              "match");
    CHECK(open_text("game: tsukurutenten\nmatch: s\nteams: x y\n"
                    "players: a:x b:y\n") == NULL);
    CHECK(strstr(last_msg, "no teams") != NULL);
    CHECK(open_text("game: tsukurutenten\nmatch: s\nplayers: a b\n"
                    "deal: order B1B2B3\n") == NULL);
    CHECK_STR(last_msg, "the deal order holds 3 chips: it must be one order "
              "of all 61 chips per round (61, 122, ...)");
    CHECK(open_text("game: tsukurutenten\nmatch: s\nplayers: a b\n"
                    "edition: Tsukurutenten-2\n") == NULL);
}

/* Rulings: void and amend rebuild the state; a finish not worth 10 can
 * stand by ruling, other illegal moves cannot be carried out. */
static void
test_rulings(void)
{
    arb_match_t *m;
    char         d1[ARB_HASH_HEX], d2[ARB_HASH_HEX];

    m = open_dealt("ann bob", "", "B1B2B3R4R5R6R1" "B7B7B7R7R7R7P8",
                   "B3B2");
    CHECK(m != NULL);
    if (m == NULL)
        return;
    hex_digest(m, d1);
    CHECK_INT(play(m, "draw ann"), 0);                      /* 1: B3 */
    CHECK_INT(ruling(m, ARB_EV_VOID, 1, NULL), 0);          /* 2 */
    hex_digest(m, d2);
    CHECK_STR(d1, d2);
    CHECK_INT(play(m, "draw ann B3"), 0);                   /* 3 */
    CHECK_INT(play(m, "discard ann B3"), 0);                /* 4 */
    /* the scoresheet said B3, it was R1 */
    CHECK_INT(ruling(m, ARB_EV_AMEND, 4, "discard ann R1"), 0);  /* 5 */
    CHECK(strstr(describe(m), "\"discards\":[\"R1\"]") != NULL);
    /* an out-of-turn draw cannot be carried out, even by ruling */
    CHECK_INT(play_kind(m, ARB_EV_STANDS, "draw ann"), ARB_EILLEGAL);
    CHECK_INT(play(m, "draw bob B2"), 0);                   /* 6 */
    CHECK_INT(play(m, "discard bob P8"), 0);                /* 7 */
    CHECK_INT(play(m, "draw ann"), 0);                      /* 8 */
    /* ann: B1 B2 B3 B3 R4 R5 R6 + the chip drawn; her declared sets are
     * worth more than 10 but the arbiter lets the finish stand */
    CHECK_INT(play(m, "finish ann B1+B2+B3 R4+R5+R6"), ARB_EILLEGAL);
    CHECK_INT(play_kind(m, ARB_EV_STANDS, "finish ann B1+B2+B3 R4+R5+R6"),
              0);
    CHECK_INT(arb_match_ruling(m, arb_match_next_seq(m) - 1, NULL),
              ARB_RULED_STANDS);
    CHECK_STR(field(m, 0, "result"), "win");
    CHECK_STR(field(m, 0, "value"), "11");
    CHECK_INT(total_of(m, "ann"), 1);
    arb_match_free(m);
}

/* ---- the score tool ------------------------------------------------------ */

static int
run(const char *args, char *out, size_t len)
{
    char   cmd[512];
    FILE  *p;
    size_t n;
    int    st;

    snprintf(cmd, sizeof(cmd), "bin/arbiter score --game tsukurutenten %s "
             "2>/dev/null", args);
    p = popen(cmd, "r");
    if (p == NULL)
        return -1;
    n = fread(out, 1, len - 1, p);
    out[n] = '\0';
    st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void
test_score_tool(void)
{
    char out[4096];

    /* the second exclusion: default and as written */
    CHECK_INT(run("B2 B2 B2 R3 R3 R3 R4 R6", out, sizeof(out)), 0);
    CHECK(strstr(out, "single-three") == NULL);
    CHECK(strstr(out, "points: 7\n") != NULL);
    CHECK_INT(run("--exclusion literal B2 B2 B2 R3 R3 R3 R4 R6", out,
                  sizeof(out)), 0);
    CHECK(strstr(out, "  single-three +1\n  double-three +3\npoints: 8\n")
          != NULL);
    CHECK_INT(run("--exclusion loose B2 2>/dev/null", out, sizeof(out)), 2);
    CHECK_INT(run("B1 B2 B3 B4 R1 R2 R3 R4", out, sizeof(out)), 0);
    CHECK_STR(out,
              "hand: B1 B2 B3 B4 R1 R2 R3 R4\n"
              "arrangements worth 10: 2\n"
              "  B1+B2+B3 R2+R3+R4 B4 R1  (6 points)\n"
              "  B2+B3+B4 R1+R2+R3 B1 R4  (6 points)\n"
              "best: B1+B2+B3 R2+R3+R4 B4 R1\n"
              "  base 2\n"
              "  closed-hand +1\n"
              "  half-colour +1\n"
              "  under-five +2\n"
              "points: 6\n");
    CHECK_INT(run("B7,B7,R7,R7 B6 B6 R6 R6", out, sizeof(out)), 0);
    CHECK_STR(out, "hand: B6 B6 B7 B7 R6 R6 R7 R7\n"
              "arrangements worth 10: none\n");
    CHECK_INT(run("--json --dealer --heaven B5 B5 B5 B5 R5 R5 R5 R5", out,
                  sizeof(out)), 0);
    CHECK(strstr(out, "\"best\":{\"arrangement\":\"B5+B5+B5 R5+R5+R5 B5 R5\","
                 "\"sets\":[\"B5+B5+B5\",\"R5+R5+R5\"],\"singles\":[\"B5\","
                 "\"R5\"],\"value\":10,\"base\":3") != NULL);
    CHECK(strstr(out, "\"points\":44}}") != NULL);
    CHECK_INT(run("--scoring simple --open B4+B5+B6 B1 B1 B1 B2 B4", out,
                  sizeof(out)), 0);
    CHECK_STR(out, "hand: B1 B1 B1 B2 B4\nopen: B4+B5+B6\n"
              "arrangements worth 10: 1\n"
              "  B1+B1+B1 B2 B4  (1 point)\n"
              "best: B1+B1+B1 B2 B4\n  base 1\npoints: 1\n");
    CHECK_INT(run("B1 B2 B3", out, sizeof(out)), 1);
    CHECK_STR(out, "ERROR a finished hand has 8 chips, got 3\n");
    CHECK_INT(run("B1 B1 B1 B1 B1 B2 B3 B4", out, sizeof(out)), 1);
    CHECK_STR(out, "ERROR the hand holds 5 × B1, but the chip set has 4\n");
    CHECK_INT(run("B9 B1 B1 B1 B2 B2 B2 B3", out, sizeof(out)), 1);
    CHECK_STR(out, "ERROR chip 'B9' does not exist: blue chips are B1..B7\n");
    CHECK_INT(run("--json B9", out, sizeof(out)), 1);
    CHECK_STR(out, "{\"game\":\"tsukurutenten\",\"error\":\"chip 'B9' does "
              "not exist: blue chips are B1..B7\"}\n");
    CHECK_INT(run("--open B4+R5+B6 B1 B1 B1 B2 B3", out, sizeof(out)), 1);
    CHECK_STR(out, "ERROR open set blue 4, red 5, blue 6 is not a set: "
              "colours differ\n");
    CHECK_INT(run("--bogus B1", out, sizeof(out)), 2);
    CHECK_INT(run("--scoring x B1", out, sizeof(out)), 2);
    CHECK_INT(run("", out, sizeof(out)), 2);
    CHECK_INT(run("--help", out, sizeof(out)), 0);
    CHECK(strstr(out, "usage: arbiter score --game tsukurutenten") != NULL);
}

/* The last discard of a round whose stock ran out may finish a hand:
 * "Finish from discard" has no condition on the stock (edition 3; until
 * 2026-12-06 the round ended at that discard, and edition 2's records
 * replay so). */
static void
test_last_discard(void)
{
    char        *text = slurp("tests/data/tsuku-last-discard.txt"), *old;
    arb_match_t *m;
    size_t       n;

    CHECK(text != NULL);
    if (text == NULL)
        return;
    m = replay_text(text, UINT64_MAX);
    CHECK(m != NULL);
    if (m != NULL) {
        CHECK_INT(nrecords(m), 1);
        CHECK_STR(field(m, 0, "result"), "win");
        CHECK_STR(field(m, 0, "winner"), "bob");
        CHECK_STR(field(m, 0, "finish"), "discard");
        CHECK_STR(field(m, 0, "discarder"), "ann");
        arb_match_free(m);
    }
    /* ann has drawn the last chip: a pass is refused as the turn stands
     * (until 2026-12-06 "may pass only when the stock is empty", which
     * it was) */
    m = replay_text(text, 93);
    CHECK(m != NULL);
    if (m != NULL) {
        CHECK_INT(play(m, "pass ann"), ARB_EILLEGAL);
        CHECK_STR(last_msg, "ann has drawn this turn: discard a chip or "
                  "finish (a pass ends a round only when the stock is "
                  "empty and the last discard waits)");
        arb_match_free(m);
    }
    /* edition 2: the round ended at ann's discard; bob's finish then is
     * a move of a round not dealt (the header's order covered one) */
    n = strlen(text) + 64;
    old = malloc(n);
    CHECK(old != NULL);
    if (old != NULL) {
        const char *body = strstr(text, "game: tsukurutenten");

        snprintf(old, n, "edition: Tsukurutenten-ru-2\n%s", body);
        m = replay_text(old, 94);
        CHECK(m != NULL);
        if (m != NULL) {
            CHECK_INT(nrecords(m), 1);
            CHECK_STR(field(m, 0, "result"), "exhausted");
            CHECK_INT(play(m, "finish bob"), ARB_EILLEGAL);
            CHECK_STR(last_rule, "Deal");
            CHECK_INT(play(m, "pass bob"), ARB_EINVAL);
            arb_match_free(m);
        }
        free(old);
    }
    free(text);
}

int
main(void)
{
    test_simple_game();
    test_extended_game();
    test_seed_deal();
    test_turns();
    test_take_message();
    test_take_pair();
    test_blue_one_waits();
    test_finish_discard_pile();
    test_shared_game();
    test_purple_take();
    test_goal();
    test_goal_last_deal();
    test_four_players();
    test_exhaust_four();
    test_last_discard();
    test_deal_moves();
    test_setup_errors();
    test_rulings();
    test_score_tool();
    return TEST_END();
}
