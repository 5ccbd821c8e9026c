/*
 * test_tourn_round.c - the `round` op against the real daemon: a round and
 * its tables' opens are one transaction (docs/TOURNAMENT.md).
 *
 * First the op's answers: the ack names every match it opened, a retry by
 * client event id answers the original, a refused round (a table whose
 * match exists, a pairing the tournament refuses) records nothing at all.
 * Then kill -9: a client creates rounds (round N, end N, round N+1, ...)
 * while the daemon is SIGKILLed at a random moment, KILLS times; after
 * each restart the store must hold every round with all of its tables'
 * matches and no table's match without its round, every round acknowledged
 * before the kill must be there, and every chain must verify.  Hostile
 * rounds (too many tables, none, malformed, a match at two tables) are
 * refused whole.
 * The daemon runs with batch_max = 2, so only the atomic group keeps the
 * round's 9 events in one transaction.  ARB_CRASH_SEED makes a run
 * reproducible.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/err.h"
#include "core/ledger/history.h"
#include "core/tourn.h"
#include "core/ledger/store.h"
#include "core/match.h"
#include "tests/daemon_harness.h"
#include "tests/test.h"

#define TID     "Cup"
#define TABLES  40      /* a round of two acts (31 + 9 tables) */
#define KILLS   6
#define ROUNDS  200     /* more than a client gets through before a kill */

/* Round n's table strings, "t:Cup-R<n>-T<t>:p<2t-1>,p<2t>"; bad 1 makes
 * the last table, in the round's second act, seat a player of table 1
 * (the tournament refuses it, and the first act with it), bad 2 records
 * table 5 as the existing match "Taken", bad 3 names another match at
 * the last table. */
static void
tables_of(char tv[TABLES][64], char *ptr[TABLES], unsigned n, int bad)
{
    int t;

    for (t = 0; t < TABLES; t++) {
        if (bad == 2 && t == 4)
            snprintf(tv[t], 64, "5:Taken:p9,p10");
        else if (bad == 3 && t == TABLES - 1)
            snprintf(tv[t], 64, "%d:%s-R%u-X%d:p%d,p%d", t + 1, TID, n,
                     t + 1, 2 * t + 1, 2 * t + 2);
        else
            snprintf(tv[t], 64, "%d:%s-R%u-T%d:p%d,p%d", t + 1, TID, n,
                     t + 1, 2 * t + 1,
                     bad == 1 && t == TABLES - 1 ? 1 : 2 * t + 2);
        ptr[t] = tv[t];
    }
}

/* Sends the round op for round n; 0 when acknowledged, and the answer in
 * *res (release it). */
static int
send_round(arb_client_t *cl, unsigned n, int bad, msgpack_unpacked *res)
{
    msgpack_packer *pk;
    arb_buf_t       why = ARB_BUF_INIT;
    char            tv[TABLES][64], *ptr[TABLES], cid[32];
    int             rc;

    tables_of(tv, ptr, n, bad);
    snprintf(cid, sizeof(cid), "round-%u", n);
    arb_client_begin(cl, &pk, "round", 4);
    arb_mp_pack_kv_str(pk, "tournament", TID);
    arb_mp_pack_kv_str(pk, "cid", cid);
    arb_mp_pack_kv_uint(pk, "round", n);
    arb_mp_pack_kv_strv(pk, "tables", ptr, TABLES);
    msgpack_unpacked_init(res);
    rc = arb_client_call(cl, res, &why);
    arb_buf_free(&why);
    return rc;
}

/* The director's `end n` (client event id end-n); 0 when acknowledged. */
static int
send_end(arb_client_t *cl, unsigned n)
{
    msgpack_packer  *pk;
    msgpack_unpacked res;
    arb_buf_t        why = ARB_BUF_INIT;
    char             num[16], cid[32], *args[1] = { num };
    int              rc;

    snprintf(num, sizeof(num), "%u", n);
    snprintf(cid, sizeof(cid), "end-%u", n);
    arb_client_begin(cl, &pk, "append", 6);
    arb_mp_pack_kv_str(pk, "match", TID);
    arb_mp_pack_kv_str(pk, "kind", "move");
    arb_mp_pack_kv_str(pk, "cid", cid);
    arb_mp_pack_kv_str(pk, "player", "director");
    arb_mp_pack_kv_str(pk, "verb", "end");
    arb_mp_pack_kv_strv(pk, "args", args, 1);
    msgpack_unpacked_init(&res);
    rc = arb_client_call(cl, &res, &why);
    msgpack_unpacked_destroy(&res);
    arb_buf_free(&why);
    return rc;
}

static int
create_tournament(arb_client_t *cl)
{
    msgpack_packer  *pk;
    msgpack_unpacked res;
    arb_buf_t        why = ARB_BUF_INIT;
    char            *dir[1] = { "director" };
    int              rc;

    arb_client_begin(cl, &pk, "open", 5);
    arb_mp_pack_kv_str(pk, "match", TID);
    arb_mp_pack_kv_str(pk, "game", "tournament");
    arb_mp_pack_kv_strv(pk, "players", dir, 1);
    arb_mp_pack_kv_str(pk, "cid", "tournament-create");
    msgpack_pack_str_with_body(pk, "options", 7);
    msgpack_pack_map(pk, 2);
    arb_mp_pack_kv_str(pk, "game", "yahchain");
    arb_mp_pack_kv_str(pk, "game.mode", "3");
    msgpack_unpacked_init(&res);
    rc = arb_client_call(cl, &res, &why);
    msgpack_unpacked_destroy(&res);
    arb_buf_free(&why);
    return rc;
}

/* ---- what the store holds --------------------------------------------- */

typedef struct seen {
    arb_results_t *res;
    size_t         others, orphans;
} seen_t;

static int
on_match(void *ud, const arb_match_info_t *m)
{
    seen_t *s = ud;
    size_t  i;

    if (strncmp(m->match_id, TID, strlen(TID)) != 0
        || strcmp(m->match_id, TID) == 0)
        return 0;               /* not one of Cup's tables */
    s->others++;
    for (i = 0; i < s->res->nrecords; i++)
        if (strcmp(arb_record_get(&s->res->records[i], "match")->str,
                   m->match_id) == 0)
            return 0;
    s->orphans++;
    fprintf(stderr, "match %s has no round\n", m->match_id);
    return 0;
}

/* Checks the store of the running daemon (opened read-only beside it):
 * all or nothing, and at least `acked` rounds.  Returns the rounds. */
static unsigned
check_store(unsigned acked)
{
    arb_store_opts_t  o;
    arb_store_t      *s = NULL;
    arb_history_t     h;
    arb_match_t      *m = NULL;
    arb_results_t     res;
    arb_match_info_t  info;
    arb_verdict_t     v;
    arb_buf_t         why = ARB_BUF_INIT;
    seen_t            sn;
    char              dir[300];
    size_t            i, bad, missing = 0;
    unsigned          rounds = 0;

    memset(&h, 0, sizeof(h));
    memset(&res, 0, sizeof(res));
    memset(&o, 0, sizeof(o));
    o.read_only = 1;
    snprintf(dir, sizeof(dir), "%s/data", harness_dir);
    CHECK(arb_store_open(&s, dir, &o, &why) == 0);
    if (s == NULL)
        return 0;
    CHECK(arb_history_load(&h, s, TID, UINT64_MAX, &why) == 0);
    CHECK(arb_history_replay(&h, UINT64_MAX, &m, &bad, &v) == 0);
    CHECK(m != NULL && arb_match_results(m, &res) == 0);
    for (i = 0; i < res.nrecords; i++) {
        const arb_record_t *rec = &res.records[i];
        unsigned r = (unsigned)arb_record_get(rec, "round")->num;
        rounds = r > rounds ? r : rounds;
        if (arb_store_match(s, arb_record_get(rec, "match")->str, &info,
                            NULL) != 0) {
            fprintf(stderr, "round %u: table %s has no match\n", r,
                    arb_record_get(rec, "table")->str);
            missing++;
        }
    }
    memset(&sn, 0, sizeof(sn));
    sn.res = &res;
    CHECK(arb_store_matches(s, on_match, &sn, &why) == 0);
    CHECK_INT(missing, 0);              /* no round without its tables */
    CHECK_INT(sn.orphans, 0);           /* no table without its round */
    CHECK_INT(sn.others, res.nrecords);
    CHECK_INT(res.nrecords, (size_t)rounds * TABLES);
    CHECK(rounds >= acked);             /* nothing acknowledged is lost */
    CHECK(arb_store_verify(s, NULL, &why) == 0);
    arb_results_clear(&res);
    arb_match_free(m);
    arb_history_clear(&h);
    arb_store_close(s);
    arb_buf_free(&why);
    return rounds;
}

/* ---- the op's answers ------------------------------------------------- */

/* The hash of opened[i] (32 bytes), or 32 zero bytes. */
static const unsigned char *
hash_of(const msgpack_object *op, size_t i)
{
    static const unsigned char zero[32];
    const char *h;
    size_t      len;

    if (op == NULL || op->type != MSGPACK_OBJECT_ARRAY
        || i >= op->via.array.size
        || arb_mp_get_bytes(&op->via.array.ptr[i], "hash", &h, &len) != 0
        || len != 32)
        return zero;
    return (const unsigned char *)h;
}

static void
test_answers(arb_client_t *cl)
{
    msgpack_unpacked      res;
    const msgpack_object *op, *dup;
    msgpack_packer       *pk;
    arb_client_t         *sc;
    arb_buf_t             why = ARB_BUF_INIT;
    const char           *match;
    char                  code[32], *one[1] = { "1:X-1:a,b" };
    unsigned char         h8[32];
    size_t                len;
    arb_event_t           ev;

    /* refused by the tournament (p1 at two tables, the second in the
     * round's second act): nothing recorded, the first act included */
    CHECK(send_round(cl, 1, 1, &res) == ARB_EINVAL);
    msgpack_unpacked_destroy(&res);
    CHECK(harness_cli("state --match " TID "-R1-T1") != 0);
    CHECK(harness_cli("state --match " TID " --at 1") != 0);
    /* a table's match exists: refused whole, the round included */
    CHECK(harness_cli("open --match Taken --game yahchain --option mode=3 "
                      "--players x,y") == 0);
    CHECK(send_round(cl, 1, 2, &res) == ARB_EINVAL);
    msgpack_unpacked_destroy(&res);
    CHECK(harness_cli("state --match " TID "-R1-T1") != 0);
    CHECK(harness_cli("state --match " TID " --at 1") != 0);

    CHECK(send_round(cl, 1, 0, &res) == 0);
    op = arb_client_get(&res, "opened");
    CHECK(op != NULL && op->type == MSGPACK_OBJECT_ARRAY
          && op->via.array.size == TABLES);
    CHECK(op != NULL && arb_mp_get_bytes(&op->via.array.ptr[TABLES - 1],
                                         "match", &match, &len) == 0
          && len == strlen(TID "-R1-T40")
          && memcmp(match, TID "-R1-T40", len) == 0);
    CHECK_INT(arb_client_uint(&res, "seq"), 1);
    CHECK(harness_cli("state --match " TID "-R1-T1") == 0);
    CHECK(harness_cli("state --match " TID "-R1-T40") == 0);
    /* ... recorded as two acts, seqs 1 and 2 */
    CHECK(harness_cli("state --match " TID " --at 2") == 0);
    CHECK(harness_cli("state --match " TID " --at 3") != 0);
    memcpy(h8, hash_of(op, TABLES - 1), sizeof(h8));
    CHECK(memcmp(h8, hash_of(NULL, 0), sizeof(h8)) != 0);
    msgpack_unpacked_destroy(&res);
    /* the round's act carries its client event id, as any append's does
     * (no test failed when it was recorded without it) */
    memset(&ev, 0, sizeof(ev));
    CHECK_INT(harness_event(cl, TID, 1, &ev), 0);
    CHECK(ev.client_id != NULL && strcmp(ev.client_id, "round-1") == 0);
    arb_event_clear(&ev);

    /* a retry by client event id: the original, the opens included,
     * nothing twice */
    CHECK(send_round(cl, 1, 0, &res) == 0);
    dup = arb_client_get(&res, "dup");
    CHECK(dup != NULL && dup->type == MSGPACK_OBJECT_BOOLEAN
          && dup->via.boolean);
    CHECK_INT(arb_client_uint(&res, "seq"), 1);
    op = arb_client_get(&res, "opened");
    CHECK(op != NULL && op->type == MSGPACK_OBJECT_ARRAY
          && op->via.array.size == TABLES
          && memcmp(hash_of(op, TABLES - 1), h8, sizeof(h8)) == 0);
    msgpack_unpacked_destroy(&res);
    /* ... but its client event id with other tables past the first act,
     * or without the second act, is another round: refused, nothing
     * recorded (both were answered as the original) */
    CHECK(send_round(cl, 1, 3, &res) == ARB_EINVAL);
    CHECK_STR(arb_client_error_code(&res, code, sizeof(code)),
              "idempotency");
    msgpack_unpacked_destroy(&res);
    CHECK(harness_cli("state --match " TID "-R1-X40") != 0);
    {
        char tv[TABLES][64], *ptr[TABLES];

        tables_of(tv, ptr, 1, 0);
        arb_client_begin(cl, &pk, "round", 4);
        arb_mp_pack_kv_str(pk, "tournament", TID);
        arb_mp_pack_kv_str(pk, "cid", "round-1");
        arb_mp_pack_kv_uint(pk, "round", 1);
        arb_mp_pack_kv_strv(pk, "tables", ptr, ARB_TOURN_ACT_TABLES);
        msgpack_unpacked_init(&res);
        why.len = 0;
        CHECK(arb_client_call(cl, &res, &why) == ARB_EINVAL);
        CHECK_STR(arb_client_error_code(&res, code, sizeof(code)),
                  "idempotency");
        msgpack_unpacked_destroy(&res);
    }
    CHECK(harness_cli("state --match " TID " --at 3") != 0);
    CHECK(send_end(cl, 1) == 0);

    /* a round recorded by an append, as earlier versions did, whose
     * tables are not opened: a retry is answered as that act, and names
     * no open (the tables are the client's to open), never an empty
     * one */
    CHECK(harness_cli("tournament create --tournament Old --game yahchain "
                      "--option mode=3") == 0);
    CHECK(harness_cli("move --match Old --cid round-1 round director 1 "
                      "1:Old-R1-T1:a,b 2:Old-R1-T2:c,d") == 0);
    {
        char *two[2] = { "1:Old-R1-T1:a,b", "2:Old-R1-T2:c,d" };

        arb_client_begin(cl, &pk, "round", 4);
        arb_mp_pack_kv_str(pk, "tournament", "Old");
        arb_mp_pack_kv_str(pk, "cid", "round-1");
        arb_mp_pack_kv_uint(pk, "round", 1);
        arb_mp_pack_kv_strv(pk, "tables", two, 2);
        msgpack_unpacked_init(&res);
        why.len = 0;
        CHECK(arb_client_call(cl, &res, &why) == 0);
        dup = arb_client_get(&res, "dup");
        CHECK(dup != NULL && dup->type == MSGPACK_OBJECT_BOOLEAN
              && dup->via.boolean);
        CHECK(arb_client_get(&res, "opened") == NULL);
        msgpack_unpacked_destroy(&res);
        CHECK(harness_cli("state --match Old-R1-T1") != 0);
    }

    /* a table's derived match opened by hand before its round: the
     * round is refused whole as `exists`, naming the table, and nothing
     * of it is recorded */
    CHECK(harness_cli("tournament create --tournament Pre --game yahchain "
                      "--option mode=3") == 0);
    CHECK(harness_cli("open --match Pre-R1-T2 --game yahchain --option "
                      "mode=3 --players c,d") == 0);
    {
        char *two[2] = { "1:Pre-R1-T1:a,b", "2:Pre-R1-T2:c,d" };

        arb_client_begin(cl, &pk, "round", 3);
        arb_mp_pack_kv_str(pk, "tournament", "Pre");
        arb_mp_pack_kv_uint(pk, "round", 1);
        arb_mp_pack_kv_strv(pk, "tables", two, 2);
        msgpack_unpacked_init(&res);
        why.len = 0;
        CHECK(arb_client_call(cl, &res, &why) == ARB_EINVAL);
        CHECK(strstr(arb_buf_cstr(&why) ? arb_buf_cstr(&why) : "",
                     "table 2: match 'Pre-R1-T2' already exists") != NULL);
        CHECK_STR(arb_client_error_code(&res, code, sizeof(code)),
                  "exists");
        msgpack_unpacked_destroy(&res);
        CHECK(harness_cli("state --match Pre --at 1") != 0);
        CHECK(harness_cli("state --match Pre-R1-T1") != 0);
    }

    /* the board is JSON only; the standings JSON or CSV */
    {
        static const char *const ops[4][3] = {
            { "board", "csv", "proto" }, { "board", "json", "" },
            { "standings", "csv", "" }, { "standings", "xml", "proto" },
        };
        size_t k;

        for (k = 0; k < 4; k++) {
            arb_client_begin(cl, &pk, ops[k][0], 2);
            arb_mp_pack_kv_str(pk, "tournament", TID);
            arb_mp_pack_kv_str(pk, "format", ops[k][1]);
            msgpack_unpacked_init(&res);
            harness_call(cl, &res, code, sizeof(code));
            CHECK_STR(code, ops[k][2]);
            msgpack_unpacked_destroy(&res);
        }
    }

    /* an arbiter's act: a scorer is refused, and a match that is no
     * tournament takes no round */
    sc = harness_connect(HARNESS_SCORER);
    CHECK(sc != NULL);
    if (sc != NULL) {
        CHECK(send_round(sc, 2, 0, &res) == ARB_EINVAL);
        CHECK_STR(arb_client_error_code(&res, code, sizeof(code)),
                  "forbidden");
        msgpack_unpacked_destroy(&res);
        /* ... and so is its move appended (no test failed when a
         * scorer's move reached the tournament's rules) */
        arb_client_begin(sc, &pk, "append", 5);
        arb_mp_pack_kv_str(pk, "match", TID);
        arb_mp_pack_kv_str(pk, "kind", "move");
        arb_mp_pack_kv_str(pk, "player", "director");
        arb_mp_pack_kv_str(pk, "verb", "end");
        arb_mp_pack_kv_strv(pk, "args", one, 1);
        msgpack_unpacked_init(&res);
        CHECK(arb_client_call(sc, &res, &why) == ARB_EINVAL);
        CHECK_STR(arb_client_error_code(&res, code, sizeof(code)),
                  "forbidden");
        msgpack_unpacked_destroy(&res);
        arb_client_close(sc);
    }
    arb_client_begin(cl, &pk, "round", 3);
    arb_mp_pack_kv_str(pk, "tournament", "Taken");
    arb_mp_pack_kv_uint(pk, "round", 1);
    arb_mp_pack_kv_strv(pk, "tables", one, 1);
    msgpack_unpacked_init(&res);
    CHECK(arb_client_call(cl, &res, &why) == ARB_EINVAL);
    CHECK_STR(arb_client_error_code(&res, code, sizeof(code)), "invalid");
    msgpack_unpacked_destroy(&res);
    arb_buf_free(&why);
    CHECK(harness_cli("state --match X-1") != 0);
}

/* The message of the last refusal round_refused met. */
static char refusal[512];

/* Sends the round op for round 1 with tables tv[0..n); the error code of
 * the refusal into code ("" when acknowledged), its message into
 * refusal. */
static const char *
round_refused(arb_client_t *cl, char **tv, size_t n, char *code, size_t cap)
{
    msgpack_packer  *pk;
    msgpack_unpacked res;
    arb_buf_t        why = ARB_BUF_INIT;

    arb_client_begin(cl, &pk, "round", 3);
    arb_mp_pack_kv_str(pk, "tournament", "Bad");
    arb_mp_pack_kv_uint(pk, "round", 1);
    arb_mp_pack_kv_strv(pk, "tables", tv, n);
    msgpack_unpacked_init(&res);
    code[0] = '\0';
    refusal[0] = '\0';
    if (arb_client_call(cl, &res, &why) != 0) {
        arb_client_error_code(&res, code, cap);
        snprintf(refusal, sizeof(refusal), "%s", arb_buf_cstr(&why));
    }
    msgpack_unpacked_destroy(&res);
    arb_buf_free(&why);
    return code;
}

/* Hostile rounds: each refused, naming what is wrong, and nothing of any
 * of them recorded. */
static void
test_hostile(arb_client_t *cl)
{
    enum { MANY = ARB_TOURN_TABLES_MAX + 1 };
    char  code[32], (*many)[64] = calloc(MANY, sizeof(*many));
    char *twice[2] = { "1:Bad-1:a,b", "2:Bad-1:c,d" };
    char *again[2] = { "1:Bad-R1-T1:a,b", "1:Bad-R1-T1:c,d" };
    char *bad[1] = { "1:Bad-1" }, *team[1] = { "1:Bad-1:a:x,b" };
    char **tv = calloc(MANY, sizeof(*tv)), seat[48];
    int   i;

    if (many == NULL || tv == NULL)
        exit(1);
    CHECK(harness_cli("tournament create --tournament Bad --game yahchain "
                      "--option mode=3") == 0);
    for (i = 0; i < MANY; i++) {
        snprintf(many[i], sizeof(many[i]), "%d:Bad-R1-T%d:a%d,b%d", i, i,
                 i, i);
        tv[i] = many[i];
    }
    CHECK_STR(round_refused(cl, tv, MANY, code, sizeof(code)), "too_big");
    CHECK_STR(round_refused(cl, tv, 0, code, sizeof(code)), "proto");
    CHECK_STR(round_refused(cl, bad, 1, code, sizeof(code)), "invalid");
    CHECK_STR(round_refused(cl, team, 1, code, sizeof(code)), "invalid");
    CHECK_STR(round_refused(cl, twice, 2, code, sizeof(code)), "invalid");
    CHECK_STR(refusal, "invalid: tournament.round: match Bad-1 is listed at "
                       "tables 1 and 2");
    /* (until 2026-12-06 "... listed at tables 1 and 1") */
    CHECK_STR(round_refused(cl, again, 2, code, sizeof(code)), "invalid");
    CHECK_STR(refusal, "invalid: tournament.round: table 1 (match "
                       "Bad-R1-T1) is listed twice");
    /* Past the first act's 31 tables, a player seated twice: the second
     * act is refused, and the first, judged with it on a copy of the
     * tournament, is not kept either (nor any table opened). */
    snprintf(seat, sizeof(seat), "40:Bad-R1-T40:a3,z");
    tv[40] = seat;
    CHECK_STR(round_refused(cl, tv, 41, code, sizeof(code)), "illegal");
    tv[40] = many[40];
    CHECK(harness_cli("state --match Bad --at 1") != 0);
    CHECK(harness_cli("state --match Bad-R1-T1") != 0);
    /* 70 tables: the round in three acts (31, 31 and 8 tables) and the 70
     * opens, one transaction of 73 events.  Until 2026-12-05 a round held
     * at most 31 tables. */
    CHECK_STR(round_refused(cl, tv, 70, code, sizeof(code)), "");
    CHECK(harness_cli("state --match Bad-R1-T69") == 0);
    CHECK(harness_cli("state --match Bad --at 3") == 0);
    CHECK(harness_cli("state --match Bad --at 4") != 0);
    free(many);
    free(tv);
}

/* ---- kill -9 ---------------------------------------------------------- */

/* The client: rounds from `from` on (each retried by its client event id
 * after a restart), writing each acknowledged round to fd.  Runs until
 * the daemon is gone. */
static void
client_run(unsigned from, int fd)
{
    arb_client_t    *cl = harness_connect(HARNESS_ARBITER);
    msgpack_unpacked res;
    unsigned         n;

    for (n = from; cl != NULL && n < ROUNDS; n++) {
        if (send_round(cl, n, 0, &res) != 0)
            break;
        msgpack_unpacked_destroy(&res);
        if (write(fd, &n, sizeof(n)) != (ssize_t)sizeof(n))
            break;
        if (send_end(cl, n) != 0)
            break;
    }
    arb_client_close(cl);
    _exit(0);
}

static void
test_kills(unsigned seed)
{
    unsigned rounds = 1, acked, n, before, progressed = 0;
    int      k, p[2];
    pid_t    child;

    srand(seed);
    for (k = 0; k < KILLS; k++) {
        /* from round 2 on each time: the rounds recorded already are
         * answered as duplicates, then the client goes on */
        CHECK(pipe(p) == 0);
        child = fork();
        if (child == 0) {
            close(p[0]);
            client_run(2, p[1]);
        }
        close(p[1]);
        usleep((useconds_t)(50000 + rand() % 250000));
        harness_stop(SIGKILL);
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
        acked = 0;
        while (read(p[0], &n, sizeof(n)) == (ssize_t)sizeof(n))
            acked = n > acked ? n : acked;
        close(p[0]);
        harness_start();
        before = rounds;
        rounds = check_store(acked);
        progressed += rounds > before;
    }
    CHECK(progressed > 0);
    printf("seed %u: %u rounds of %d tables after %d kills\n", seed, rounds,
           TABLES, KILLS);
}

int
main(void)
{
    arb_client_t *cl;
    const char   *env = getenv("ARB_CRASH_SEED");
    unsigned      seed = env ? (unsigned)strtoul(env, NULL, 10)
                             : (unsigned)time(NULL);

    (void)harness_send_raw;     /* every request here is well formed */
    /* Batches of 2 events at most: a round of 9 must still commit whole. */
    if (harness_init("batch_max = 2", 120) != 0) {
        printf("test_tourn_round: skipped (no bin/arbiterd)\n");
        return 0;
    }
    harness_start();
    cl = harness_connect(HARNESS_ARBITER);
    CHECK(cl != NULL);
    if (cl != NULL) {
        CHECK(create_tournament(cl) == 0);
        test_answers(cl);
        test_hostile(cl);
        arb_client_close(cl);
        test_kills(seed);
    }
    return harness_done(TEST_END()) != 0;
}
