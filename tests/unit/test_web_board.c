/*
 * test_web_board.c - the director's board in a real browser against a real
 * recorder: a round of four tables from a pairing list, every table's
 * status shown; a move (with its seq and time), an undo request, a close
 * and a disputed claim each change the board within two seconds, what
 * needs the director first; the standings follow a closed match.
 */
#include "tests/browser/cdp.h"
#include "tests/daemon_harness.h"
#include "tests/http_client.h"
#include "tests/test.h"

/* The status the board shows for table t, into got. */
static const char *
status_of(cdp_t *b, int t, char *got, size_t cap)
{
    char expr[160];

    snprintf(expr, sizeof(expr), "(document.querySelector('#board tr[data-"
             "table=\"%d\"]') || {dataset: {}}).dataset.status || ''", t);
    return cdp_eval_str(b, expr, got, cap);
}

/* How long until table t shows status st (ms), or -1. */
static long
shows(cdp_t *b, int t, const char *st)
{
    char expr[200];
    long ms;

    snprintf(expr, sizeof(expr), "(document.querySelector('#board tr[data-"
             "table=\"%d\"]') || {dataset: {}}).dataset.status === '%s'", t,
             st);
    ms = cdp_wait(b, expr, 3000);
    if (ms < 0)
        fprintf(stderr, "table %d never showed %s: %s\n", t, st, b->err);
    return ms;
}

/* The page uses HTTP only; the harness's protocol helpers and the raw
 * HTTP client's requests stay unused. */
static void *const unused[] = { (void *)harness_connect,
                                (void *)harness_send_raw, (void *)http_get,
                                (void *)http_body };

static void
on_alarm(int sig)
{
    cdp_kill_now();
    harness_on_alarm(sig);
}

int
main(void)
{
    cdp_t  b;
    char   path[400], cmd[600], got[128], url[128];
    FILE  *f;
    long   t;
    int    port, i;

    /* Port 0: the port the daemon bound is read from its log. */
    if (harness_init("[http]\nlisten = tcp:127.0.0.1:0\n", 90) != 0)
        return 1;
    signal(SIGALRM, on_alarm);
    harness_start();
    port = http_log_port(harness_dir);
    CHECK(port > 0);
    snprintf(path, sizeof(path), "%s/pairings.csv", harness_dir);
    f = fopen(path, "w");
    CHECK(f != NULL);
    if (f == NULL)
        return TEST_END();
    fputs("round,table,p1,p2\n1,1,ann,bob\n1,2,cid,dan\n1,3,eve,fay\n"
          "1,4,gus,hal\n", f);
    fclose(f);
    CHECK_INT(harness_cli("tournament create --tournament Cup --game yahchain "
                      "--option mode=3"), 0);
    snprintf(cmd, sizeof(cmd), "tournament round --tournament Cup "
             "--pairings %s", path);
    CHECK_INT(harness_cli(cmd), 0);
    if (cdp_start(&b, 1280, 800) != 0) {
        CHECK(!"a headless chromium to test the pages with");
        cdp_stop(&b);
        harness_done(1);
        return TEST_END();
    }
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/t/Cup#token="
             HARNESS_READER, port);
    CHECK(cdp_open(&b, url) == 0);
    CHECK(cdp_wait(&b, "document.body.dataset.ready === '1'", 5000) >= 0);
    CHECK_INT(cdp_eval_int(&b, "document.querySelectorAll('#board tr[data-"
                           "table]').length"), 4);
    CHECK_STR(status_of(&b, 1, got, sizeof(got)), "not_started");
    /* The time column is the last event's, and none before a move (until
     * 2026-12-06 "last move" showed a table's open time). */
    CHECK_STR(cdp_eval_str(&b, "document.querySelectorAll('#board th')[4]"
                           ".textContent", got, sizeof(got)), "last event");
    CHECK_STR(cdp_eval_str(&b, "document.querySelector('#board tr[data-"
                           "table=\"1\"]').cells[4].textContent", got,
                           sizeof(got)), "");
    CHECK_INT(cdp_eval_int(&b, "document.querySelectorAll('#standings tr["
                           "data-player]').length"), 8);
    CHECK(cdp_wait(&b, "document.getElementById('live').textContent === "
                   "'live'", 3000) >= 0);

    /* A move: table 2 is playing, listed after the tables not started. */
    cdp_step("a move");
    CHECK_INT(harness_cli("move --match Cup-R1-T2 place cid 4S"), 0);
    t = shows(&b, 2, "playing");
    printf("a move on the board %ld ms after `arbiter move` returned\n", t);
    CHECK(t >= 0 && t < 2000);
    CHECK_STR(cdp_eval_str(&b, "[...document.querySelectorAll('#board tr["
                           "data-table]')].map(r => r.dataset.table).join()",
                           got, sizeof(got)), "1,3,4,2");
    /* ... with its seq and the time of its last move */
    CHECK_STR(cdp_eval_str(&b, "document.querySelector('#board tr[data-"
                           "table=\"2\"] td:nth-child(4)').textContent",
                           got, sizeof(got)), "1");
    CHECK_INT(cdp_eval_int(&b, "/^\\d\\d:\\d\\d:\\d\\d$/.test(document."
                           "querySelector('#board tr[data-table=\"2\"] "
                           "td:nth-child(5)').textContent) ? 1 : 0"), 1);
    /* An undo request comes first. */
    cdp_step("an undo request");
    CHECK_INT(harness_cli("note --match Cup-R1-T2 \"undo requested: seq 1 "
                      "(place cid 4S)\""), 0);
    CHECK(shows(&b, 2, "undo_requested") >= 0);
    /* ... naming the move to undo (no test failed when it did not) */
    CHECK_STR(cdp_eval_str(&b, "document.querySelector('#board tr[data-"
                           "table=\"2\"] td:nth-child(3)').textContent",
                           got, sizeof(got)), "undo requested (seq 1)");
    CHECK_STR(cdp_eval_str(&b, "document.querySelector('#board tr[data-"
                           "table]').dataset.table", got, sizeof(got)), "2");
    /* Table 1 plays a Sota and closes: last on the board, in the
     * standings. */
    cdp_step("table 1 closes");
    CHECK_INT(harness_cli("move --match Cup-R1-T1 place ann 4S"), 0);
    CHECK_INT(harness_cli("move --match Cup-R1-T1 place bob 5H"), 0);
    CHECK_INT(harness_cli("move --match Cup-R1-T1 place ann 6D"), 0);
    CHECK_INT(harness_cli("close --match Cup-R1-T1"), 0);
    CHECK(shows(&b, 1, "closed") >= 0);
    CHECK(cdp_wait(&b, "(document.querySelector('#standings tr[data-player"
                   "=\"ann\"] td:nth-child(3)') || {}).textContent === '21'",
                   3000) >= 0);
    CHECK_STR(cdp_eval_str(&b, "[...document.querySelectorAll('#board tr["
                           "data-table]')].map(r => r.dataset.table).join()",
                           got, sizeof(got)), "2,3,4,1");
    /* Table 3 closes and a player's claim disputes its record: first. */
    cdp_step("table 3 disputed");
    CHECK_INT(harness_cli("move --match Cup-R1-T3 place eve 4S"), 0);
    CHECK_INT(harness_cli("move --match Cup-R1-T3 place fay 5H"), 0);
    CHECK_INT(harness_cli("move --match Cup-R1-T3 place eve 6D"), 0);
    CHECK_INT(harness_cli("close --match Cup-R1-T3"), 0);
    snprintf(path, sizeof(path), "%s/claim.csv", harness_dir);
    f = fopen(path, "w");
    CHECK(f != NULL);
    if (f != NULL) {
        fputs("sota,owner,game_points\n1,eve,99\n\nplayer,total\neve,99\n"
              "fay,0\n", f);
        fclose(f);
    }
    snprintf(cmd, sizeof(cmd), "claim --match Cup-R1-T3 --by fay %s", path);
    (void)harness_cli(cmd);     /* exit 1: the claim differs */
    CHECK(shows(&b, 3, "disputed") >= 0);
    CHECK_STR(cdp_eval_str(&b, "[...document.querySelectorAll('#board tr["
                           "data-table]')].map(r => r.dataset.table).join()",
                           got, sizeof(got)), "3,2,4,1");
    /* A table added by hand whose match is opened with other players:
     * the board says it does not count, and why. */
    cdp_step("a table that does not count");
    CHECK_INT(harness_cli("move --match Cup tables director 1 "
                          "5:Cup-R1-T5:ivy,jon"), 0);
    CHECK_INT(harness_cli("open --match Cup-R1-T5 --game yahchain "
                          "--players zed,yan --option mode=3"), 0);
    CHECK(cdp_wait(&b, "(document.querySelector('#board tr[data-table=\"5\"]"
                   " .problem') || {}).textContent === 'does not count: its "
                   "match\\'s players are zed yan, the table\\'s ivy jon'",
                   3000) >= 0);
    /* Not counted: why, per table (until 2026-12-06 every one was "not
     * closed", this one closed too) */
    CHECK_INT(harness_cli("close --match Cup-R1-T5"), 0);
    CHECK(cdp_wait(&b, "document.querySelector('#uncounted').textContent"
                   ".indexOf(\"Cup-R1-T5 (its match's players are zed yan, "
                   "the table's ivy jon)\") >= 0", 3000) >= 0);
    /* A forfeit after the game (a disqualification): the board says so,
     * the standings name the tournament's act as the CSV does (until
     * 2026-12-06 the table's match at 0), and the game whose totals
     * ranked the others (until 2026-12-06 the act alone).  Table 4 is
     * played to its end: 12 Sotas of three cards of one face. */
    for (i = 0; i < 36; i++) {
        snprintf(cmd, sizeof(cmd), "move --match Cup-R1-T4 place %s %c%c",
                 i % 2 ? "hal" : "gus", '2' + i / 12, "SHDCUMWFLGYN"[i % 12]);
        CHECK_INT(harness_cli(cmd), 0);
    }
    CHECK_INT(harness_cli("tournament forfeit --tournament Cup --round 1 "
                          "--table 4 --players hal"), 0);
    CHECK(shows(&b, 4, "forfeit") >= 0);
    CHECK(cdp_wait(&b, "/^Cup@\\d+ \\(forfeit, win, game Cup-R1-T4@36\\)$/"
                   ".test((document.querySelector('#standings tr[data-player"
                   "=\"gus\"] td:nth-child(6)') || {}).textContent)", 3000)
          >= 0);
    CHECK_STR(cdp_eval_str(&b, "document.querySelector('#standings tr[data-"
                           "player=\"gus\"] td:nth-child(6) a')"
                           ".getAttribute('href')", got, sizeof(got)),
              "/m/Cup-R1-T4");
    /* A withdrawal: the player's line says so (until 2026-12-06 there
     * was no act to record it) */
    CHECK_INT(harness_cli("tournament withdraw --tournament Cup --round 1 "
                          "--players hal"), 0);
    CHECK(cdp_wait(&b, "(document.querySelector('#standings tr[data-player="
                   "\"hal\"] td:nth-child(2)') || {}).textContent === "
                   "'hal (withdrew after round 1)'", 3000) >= 0);
    CHECK(cdp_is_picture(&b, 1280, 800, "board"));
    /* A phone: the board's tables scroll in their box, never the page
     * (a disputed row made it 14 px too wide until 2026-12-06).  A
     * table of players with long names is wider than the screen. */
    cdp_step("a phone");
    CHECK_INT(harness_cli("move --match Cup tables director 1 "
                          "6:Cup-R1-T6:Featherstonehaugh-Cholmondeley,"
                          "Wojciechowska-Przybyszewska"), 0);
    CHECK(cdp_size(&b, 360, 640) == 0);
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/t/Cup?phone#token="
             HARNESS_READER, port);
    CHECK(cdp_open(&b, url) == 0);
    CHECK(cdp_wait(&b, "document.body.dataset.ready === '1'", 5000) >= 0);
    CHECK(cdp_wait(&b, "!!document.querySelector('#board tr[data-table="
                   "\"6\"]')", 3000) >= 0);
    CHECK_INT(cdp_eval_int(&b, "document.documentElement.scrollWidth"), 360);
    CHECK_INT(cdp_eval_int(&b, "(e => e.scrollWidth > e.clientWidth ? 1 : 0)"
                           "(document.querySelector('#board'))"), 1);
    /* The match list sends a tournament to its board, not to /m/. */
    cdp_step("the list links the board");
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/#token="
             HARNESS_READER, port);
    CHECK(cdp_open(&b, url) == 0);
    CHECK(cdp_wait(&b, "document.body.dataset.ready === '1'", 5000) >= 0);
    CHECK_STR(cdp_eval_str(&b, "document.querySelector('tr[data-match="
                           "\"Cup\"] a').getAttribute('href')", got,
                           sizeof(got)), "/t/Cup");
    /* Table 3's page: the claim on record disputes its totals, and the
     * page says so beside the records' verdicts, marking each total
     * (until 2026-12-06 it said "1 confirmed, 0 disputed" there). */
    cdp_step("a claim disputing totals on the match page");
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/m/Cup-R1-T3#token="
             HARNESS_READER, port);
    CHECK(cdp_open(&b, url) == 0);
    CHECK(cdp_wait(&b, "document.body.dataset.ready === '1'", 5000) >= 0);
    CHECK(cdp_wait(&b, "/totals? disputed/.test((document.getElementById("
                   "'claim-totals') || {}).textContent)", 3000) >= 0);
    CHECK_STR(cdp_eval_str(&b, "document.querySelector('#totals tr[data-"
                           "player=\"eve\"] span.diff').textContent", got,
                           sizeof(got)), "claimed 99");
    /* each count of the records' verdicts is its own (no test failed
     * when the pending ones were the disputed ones' count) */
    CHECK_STR(cdp_eval_str(&b, "document.getElementById('verdicts')"
                           ".textContent.split(';')[0]", got, sizeof(got)),
              "0 confirmed, 1 disputed, 0 pending");
    /* No such tournament: the board says what the recorder answered
     * (no test failed when the failed read was said nowhere). */
    cdp_step("a tournament that does not exist");
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/t/NOPE#token="
             HARNESS_READER, port);
    CHECK(cdp_open(&b, url) == 0);
    t = cdp_wait(&b, "/\\/api\\/t\\/NOPE\\/(board|standings): 404 /.test("
                 "document.getElementById('note').textContent)", 5000);
    if (t < 0)
        fprintf(stderr, "%s\n", b.err);
    CHECK(t >= 0);
    CHECK_INT(cdp_eval_int(&b, "document.body.dataset.ready === undefined"
                           " ? 1 : 0"), 1);

    cdp_stop(&b);
    (void)unused;
    harness_done(test_failed_);
    return TEST_END();
}
