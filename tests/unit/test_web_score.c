/*
 * test_web_score.c - the scorekeeper's page (/s/<match>) in a real browser
 * against a real recorder: the token is asked once; a whole YAHchain match
 * (36 cards, mode 3) is recorded by clicks only and its final digest
 * equals an offline replay of the same moves; a refused card shows the
 * rule's message and records nothing; a completed Sota's judgement shows
 * its category and points; the answer to a move is lost after its commit
 * (the browser's connection reset by the DevTools Fetch domain), once
 * with the page left open and once with a reload, and the move is
 * recorded exactly once; the page on a 360-px phone: no sideways
 * scrolling, touch targets of at least 44 px, a non-blank picture.
 */
#include <stdint.h>

#include "tests/browser/cdp.h"
#include "tests/daemon_harness.h"
#include "tests/http_client.h"
#include "tests/test.h"

#define MATCH  "S1"
#define NCARDS 36

static int  port;
static char base[64];

static const char *const types[12] = {
    "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"
};
static const char *const suits[3] = { "\u2660", "\u2665", "\u2666" };

/* The i-th card of the match: a type, then a suit, 36 different cards. */
static void
card(int i, char *out, size_t n)
{
    snprintf(out, n, "%s%s", types[i % 12], suits[i / 12]);
}

static void *const unused[] = { (void *)harness_connect,
                                (void *)harness_send_raw };

static void
on_alarm(int sig)
{
    cdp_kill_now();
    harness_on_alarm(sig);
}

/* The last seq of the match as the recorder reports it, or -1. */
static long
recorded_seq(void)
{
    static char resp[1 << 16];
    const char *p;

    if (http_get(port, "/api/m/" MATCH "/state", HARNESS_ARBITER, resp,
                 sizeof(resp)) != 200)
        return -1;
    p = strstr(http_body(resp), "\"seq\":");
    return p != NULL ? atol(p + 6) : -1;
}

static void
js(cdp_t *b, const char *expr)
{
    json_t *v = cdp_eval(b, expr, 5000);

    if (v == NULL)
        fprintf(stderr, "%s\n", b->err);
    CHECK(v != NULL);
    json_decref(v);
}

static int
wait_for(cdp_t *b, const char *expr, int ms)
{
    long t = cdp_wait(b, expr, ms);

    if (t < 0)
        fprintf(stderr, "%s\n", b->err);
    return t >= 0;
}

/* Taps the card's type and suit; waits for the recorder's verdict. */
static void
tap_card(cdp_t *b, int i, const char *want)
{
    char expr[256];

    cdp_step("card %d tapped, waiting for a verdict '%s'", i + 1, want);
    snprintf(expr, sizeof(expr), "document.querySelector('#pad [data-type="
             "\"%s\"]').click(); document.querySelector('#pad [data-suit="
             "\"%s\"]').click()", types[i % 12], suits[i / 12]);
    js(b, expr);
    snprintf(expr, sizeof(expr), "document.body.dataset.verdict === '%s'",
             want);
    CHECK(wait_for(b, expr, 10000));
}

/* Record pressed; waits for the ack of seq. */
static void
record(cdp_t *b, long seq)
{
    char expr[160];

    cdp_step("Record pressed, waiting for the ack of seq %ld", seq);
    js(b, "document.getElementById('record').click()");
    snprintf(expr, sizeof(expr), "document.body.dataset.acked === '%ld' && "
             "document.body.dataset.pending === '0'", seq);
    CHECK(wait_for(b, expr, 10000));
}

/* Waits (up to 20 s: the recorder commits first, and a loaded machine's
 * fsync is slow) for the Fetch domain to hold a response of the move. */
static int
caught_move(cdp_t *b)
{
    if (cdp_wait_caught(b, 20000))
        return 1;
    fprintf(stderr, "step \"%s\": the move's answer never came\n",
            cdp_step_name);
    return 0;
}

/* Lets the held response go on (or fails it with ConnectionReset). */
static void
release_move(cdp_t *b, int reset)
{
    json_t *id = json_object_get(json_object_get(b->caught, "params"),
                                 "requestId"), *r;
    int     rc = 0;

    if (reset) {
        r = cdp_call(b, "Fetch.failRequest", json_pack("{s:O,s:s}",
                     "requestId", id, "errorReason", "ConnectionReset"), 1,
                     5000);
        rc = r != NULL ? 0 : -1;
        json_decref(r);
        json_decref(b->caught);
    } else {
        rc = cdp_continue(b, b->caught);
    }
    if (rc != 0)
        fprintf(stderr, "%s\n", b->err);
    CHECK_INT(rc, 0);
    b->caught = NULL;
}

/* How a move's answer is lost after its commit (cut_after_commit). */
enum cut { CUT_RESET, CUT_RELOAD, CUT_SILENT, CUT_BUSY, CUT_DAMAGED };

/* Card i's answer is lost after its commit: the Fetch domain holds the
 * response of the move.  CUT_RESET resets the browser's connection
 * instead, and the open page sends the move again.  CUT_RELOAD loads the
 * page again while the answer is still held (so the old page never learns
 * it and cannot send it again itself); the new page finds the move
 * pending and sends it again, and that answer is let through.  CUT_SILENT
 * never answers (a connection the network lost without a word): the page
 * gives up after its 10 s and sends it again.  CUT_BUSY answers 408 (a
 * proxy that gave up waiting), then 429 to the move sent again (a proxy
 * shedding load), in the recorder's stead: the page keeps the move and
 * sends it again (until 2026-12-06 it dropped it as refused; no test
 * failed when only a 408 dropped it).  CUT_DAMAGED answers 200 with a
 * body cut short: the page cannot know the move's seq, and sends it
 * again (until 2026-12-07 it said "Recorded: ... (seq undefined)" and
 * kept a move of seq undefined to undo). */
static void
cut_after_commit(cdp_t *b, int i, enum cut how)
{
    char    url[128], expr[160];
    json_t *r, *held;
    long    t0;

    r = cdp_call(b, "Fetch.enable", json_pack("{s:[{s:s,s:s}]}", "patterns",
                 "urlPattern", "*/api/m/" MATCH "/move", "requestStage",
                 "Response"), 1, 5000);
    CHECK(r != NULL);
    json_decref(r);
    b->catch_method = "Fetch.requestPaused";
    cdp_step("card %d: its answer held", i + 1);
    tap_card(b, i, "legal");
    js(b, "document.getElementById('record').click()");
    CHECK(caught_move(b));
    if (b->caught != NULL) {
        /* The recorder has committed it; the page does not know. */
        CHECK_INT(recorded_seq(), i + 1);
        CHECK_INT(cdp_eval_int(b, "+document.body.dataset.pending"), 1);
        /* Shown as pending, not as recorded. */
        CHECK_INT(cdp_eval_int(b, "document.querySelectorAll('#pending "
                               "div').length"), 1);
        if (how == CUT_RELOAD) {
            cdp_step("card %d: the page reloaded, its answer held", i + 1);
            json_decref(b->caught);
            b->caught = NULL;
            snprintf(url, sizeof(url), "%s/s/" MATCH, base);
            CHECK(cdp_open(b, url) == 0);
            cdp_step("card %d: sent again by the reloaded page", i + 1);
            if (caught_move(b))
                release_move(b, 0);
        } else if (how == CUT_SILENT) {
            cdp_step("card %d: its answer never comes", i + 1);
            held = b->caught;
            b->caught = NULL;
            t0 = cdp_now_ms();
            /* The page gives up and sends it again: let that through. */
            if (caught_move(b)) {
                printf("a move unanswered sent again after %ld ms\n",
                       cdp_now_ms() - t0);
                release_move(b, 0);
            }
            json_decref(held);  /* abandoned by the page: gone */
        } else if (how == CUT_DAMAGED) {
            json_t *id = json_object_get(json_object_get(b->caught,
                                                         "params"),
                                         "requestId");

            cdp_step("card %d: its answer cut short", i + 1);
            /* {"seq":16,"dup */
            r = cdp_call(b, "Fetch.fulfillRequest", json_pack(
                         "{s:O,s:i,s:s}", "requestId", id, "responseCode",
                         200, "body", "eyJzZXEiOjE2LCJkdXA="), 1, 5000);
            CHECK(r != NULL);
            json_decref(r);
            json_decref(b->caught);
            b->caught = NULL;
            if (caught_move(b))
                release_move(b, 0);
        } else if (how == CUT_BUSY) {
            /* {"error":"request timeout"}, {"error":"slow down"} */
            static const struct {
                int         code;
                const char *body;
            } busy[] = {
                { 408, "eyJlcnJvciI6InJlcXVlc3QgdGltZW91dCJ9" },
                { 429, "eyJlcnJvciI6InNsb3cgZG93biJ9" },
            };
            int k;

            for (k = 0; k < 2 && b->caught != NULL; k++) {
                json_t *id = json_object_get(json_object_get(b->caught,
                                                             "params"),
                                             "requestId");

                cdp_step("card %d: a proxy answers %d", i + 1,
                         busy[k].code);
                r = cdp_call(b, "Fetch.fulfillRequest", json_pack(
                             "{s:O,s:i,s:s}", "requestId", id,
                             "responseCode", busy[k].code, "body",
                             busy[k].body), 1, 5000);
                CHECK(r != NULL);
                json_decref(r);
                json_decref(b->caught);
                b->caught = NULL;
                CHECK(caught_move(b));
            }
            if (b->caught != NULL)
                release_move(b, 0);
        } else {
            release_move(b, 1);
        }
    }
    /* Never left on: a response held for ever would hang the page. */
    b->catch_method = NULL;
    json_decref(b->caught);
    b->caught = NULL;
    r = cdp_call(b, "Fetch.disable", NULL, 1, 5000);
    CHECK(r != NULL);
    json_decref(r);
    cdp_step("card %d: acknowledged as a repeat", i + 1);
    snprintf(expr, sizeof(expr), "document.body.dataset.acked === '%d' && "
             "document.body.dataset.dup === '1' && "
             "document.body.dataset.pending === '0'", i + 1);
    CHECK(wait_for(b, expr, 15000));
    CHECK_INT(recorded_seq(), i + 1);
}

static char base2[128];

/* A Chắn match (four seats, dealt hands) loaded with no move yet: the
 * deal of tests/data/chan-chiu-u.txt. */
/* Loads the header of transcript `file` as match `id` (the tool deals
 * it), and points base_out at its scorekeeper's page. */
static void
header_match(const char *file, const char *id, char *base_out, size_t n)
{
    char  path[320], line[2048], cmd[400];
    FILE *in, *out;

    snprintf(path, sizeof(path), "%s/%s.txt", harness_dir, id);
    in = fopen(file, "r");
    out = fopen(path, "w");
    CHECK(in != NULL && out != NULL);
    if (in == NULL || out == NULL) {
        if (in != NULL)
            fclose(in);
        if (out != NULL)
            fclose(out);
        return;
    }
    while (fgets(line, sizeof(line), in) != NULL && line[0] != '1') {
        if (strncmp(line, "match:", 6) == 0)
            fprintf(out, "match: %s\n", id);
        else
            fputs(line, out);
    }
    fclose(in);
    fclose(out);
    snprintf(cmd, sizeof(cmd), "load %s", path);
    CHECK_INT(harness_cli(cmd), 0);
    snprintf(base_out, n, "%s/s/%s", base, id);
}

static char base3[128];

/* The digest of an offline replay of the 36 cards. */
static void
replay_digest(char *out, size_t n)
{
    char  path[320], c[16], cmd[400], line[1 << 14], *p;
    FILE *f;
    int   i;

    out[0] = '\0';
    snprintf(path, sizeof(path), "%s/replay.txt", harness_dir);
    if ((f = fopen(path, "w")) == NULL)
        return;
    fprintf(f, "game: yahchain\nmatch: " MATCH "\nplayers: alice bob\n"
            "mode: 3\n\n");
    for (i = 0; i < NCARDS; i++) {
        card(i, c, sizeof(c));
        fprintf(f, "%d. place %s %s\n", i + 1, i % 2 ? "bob" : "alice", c);
    }
    fclose(f);
    snprintf(cmd, sizeof(cmd), "bin/arbiter replay %s --json", path);
    if ((f = popen(cmd, "r")) == NULL)
        return;
    if (fgets(line, sizeof(line), f) != NULL
        && (p = strstr(line, "\"digest\":\"")) != NULL)
        snprintf(out, n, "%.64s", p + 10);
    pclose(f);
}

int
main(void)
{
    static char resp[1 << 16];
    cdp_t       b;
    char        url[128], got[512], want[80], c[16], cmd[128], *p;
    json_t     *held;
    int         i;
    long        t0;

    if (harness_init("[http]\nlisten = tcp:127.0.0.1:0\n", 150) != 0)
        return 1;
    signal(SIGALRM, on_alarm);
    harness_start();
    port = http_log_port(harness_dir);
    CHECK(port > 0);
    snprintf(base, sizeof(base), "http://127.0.0.1:%d", port);
    CHECK_INT(harness_cli("open --match " MATCH " --game yahchain --players "
                          "alice,bob --option mode=3"), 0);
    if (cdp_start(&b, 1280, 800) != 0) {
        CHECK(!"a headless chromium to test the pages with");
        cdp_stop(&b);
        harness_done(1);
        return TEST_END();
    }

    /* The token is asked once, and never travels in a URL. */
    cdp_step("the token asked");
    snprintf(url, sizeof(url), "%s/s/" MATCH, base);
    CHECK(cdp_open(&b, url) == 0);
    CHECK(wait_for(&b, "document.body.dataset.ready === 'login'", 5000));
    js(&b, "document.getElementById('token').value = '" HARNESS_READER "';"
       " document.getElementById('login').requestSubmit()");
    /* A reader may look but not record: its judge is refused. */
    CHECK(wait_for(&b, "document.body.dataset.ready === '1'", 5000));
    tap_card(&b, 0, "refused");
    CHECK_STR(cdp_eval_str(&b, "document.getElementById('verdict')"
                           ".textContent.slice(0, 24)", got, sizeof(got)),
              "Refused: judge needs a s");
    js(&b, "localStorage.removeItem('arbiter.token')");
    CHECK(cdp_open(&b, url) == 0);
    CHECK(wait_for(&b, "document.body.dataset.ready === 'login'", 5000));
    js(&b, "document.getElementById('token').value = '" HARNESS_SCORER "';"
       " document.getElementById('login').requestSubmit()");
    CHECK(wait_for(&b, "document.body.dataset.ready === '1'", 5000));
    cdp_step("the token kept across a reload");
    CHECK(cdp_open(&b, url) == 0);      /* kept: no login the second time */
    CHECK(wait_for(&b, "document.body.dataset.ready === '1'", 5000));
    CHECK_STR(cdp_eval_str(&b, "document.getElementById('turn').textContent",
                           got, sizeof(got)), "Turn: alice");
    /* A refusal quotes the move as typed: as text (no test failed when
     * the rule's message went in as markup). */
    cdp_step("a refusal quoting markup");
    js(&b, "document.getElementById('text').value = 'place alice K<b>x</b>';"
       " document.getElementById('typed').requestSubmit()");
    CHECK(wait_for(&b, "document.body.dataset.verdict === 'refused'", 10000));
    CHECK_INT(cdp_eval_int(&b, "document.querySelectorAll('#verdict b')"
                           ".length"), 0);
    CHECK(strstr(cdp_eval_str(&b, "document.getElementById('verdict')"
                              ".textContent", got, sizeof(got)),
                 "'K<b>x</b>'") != NULL);
    js(&b, "document.getElementById('text').value = '';"
       " document.getElementById('text').dispatchEvent(new Event('input'))");

    t0 = cdp_now_ms();
    for (i = 0; i < NCARDS; i++) {
        if (i == 10 || i == 15 || i == 20 || i == 25 || i == 30) {
            cut_after_commit(&b, i, i == 10 ? CUT_RESET : i == 15
                             ? CUT_DAMAGED : i == 20 ? CUT_RELOAD
                             : i == 25 ? CUT_BUSY : CUT_SILENT);
            if (test_failed_)
                break;
            continue;
        }
        if (i == 7) {
            /* Another scorer records the card checked here first: the
             * page says so, and records nothing (no test failed when it
             * told it as any refusal). */
            cdp_step("card %d recorded first elsewhere", i + 1);
            tap_card(&b, i, "legal");
            card(i, c, sizeof(c));
            snprintf(cmd, sizeof(cmd), "move --match " MATCH " place %s "
                     "%s", i % 2 ? "bob" : "alice", c);
            CHECK_INT(harness_cli(cmd), 0);
            js(&b, "document.getElementById('record').click()");
            CHECK(wait_for(&b, "document.body.dataset.verdict === "
                           "'refused' && document.body.dataset.pending === "
                           "'0'", 10000));
            CHECK(strstr(cdp_eval_str(&b, "document.getElementById("
                                      "'verdict').textContent", got,
                                      sizeof(got)),
                         ": another scorer recorded first (") != NULL);
            CHECK_INT(recorded_seq(), i + 1);
            continue;
        }
        tap_card(&b, i, "legal");
        if (i == 2) {
            /* The third card completes Sota 1: category and points. */
            cdp_eval_str(&b, "document.getElementById('verdict')"
                         ".textContent", got, sizeof(got));
            CHECK(strstr(got, "Sota 1: BC-") != NULL);
            CHECK(strstr(got, "points for alice") != NULL);
        }
        record(&b, i + 1);
        if (test_failed_) {
            /* Every later card would wait out its own timeouts. */
            fprintf(stderr, "the match stopped at card %d\n", i + 1);
            break;
        }
        if (i == 0) {
            /* The same card again: the rule's message, nothing recorded. */
            tap_card(&b, 0, "refused");
            cdp_eval_str(&b, "document.getElementById('verdict')"
                         ".textContent", got, sizeof(got));
            CHECK(strstr(got, "already played at seq 1") != NULL);
            CHECK_INT(cdp_eval_int(&b, "document.getElementById('record')"
                                   ".disabled ? 1 : 0"), 1);
            CHECK_INT(recorded_seq(), 1);
        }
    }
    cdp_step("the match recorded");
    CHECK(wait_for(&b, "document.body.dataset.seq === '36'", 3000));
    printf("%d cards recorded by clicks in %ld ms (three of them with their "
           "answer lost and resent)\n", NCARDS, cdp_now_ms() - t0);
    CHECK_STR(cdp_eval_str(&b, "document.getElementById('turn').textContent",
                           got, sizeof(got)), "The match is over.");
    CHECK_INT(cdp_eval_int(&b, "document.querySelectorAll('#moves div')"
                           ".length"), NCARDS + 1);

    /* The same cards replayed offline give the same state. */
    CHECK_INT(http_get(port, "/api/m/" MATCH "/state", HARNESS_ARBITER, resp,
                       sizeof(resp)), 200);
    p = strstr(http_body(resp), "\"digest\":\"");
    snprintf(got, sizeof(got), "%.64s", p != NULL ? p + 10 : "");
    replay_digest(want, sizeof(want));
    CHECK(strlen(want) == 64);
    CHECK_STR(got, want);
    CHECK_INT(recorded_seq(), NCARDS);

    /* A verdict is about the move in the field: changed after its check,
     * Record is off (until 2026-12-06 it recorded the move checked). */
    cdp_step("a verdict goes with its move");
    js(&b, "document.getElementById('text').value = 'bob 2S';"
       " document.getElementById('typed').requestSubmit();"
       " document.getElementById('text').value = 'bob 3S';"
       " document.getElementById('text').dispatchEvent("
       "new Event('input'));");
    usleep(500 * 1000);
    CHECK(cdp_eval_int(&b, "document.getElementById('record').disabled ? 1 "
                       ": 0") == 1);
    CHECK_STR(cdp_eval_str(&b, "document.body.dataset.verdict", got,
                           sizeof(got)), "");
    js(&b, "document.getElementById('text').value = '';"
       " document.getElementById('text').dispatchEvent(new Event('input'))");

    /* Undo of this page's last move: a scorer asks (a note).  It asks to
     * be confirmed, naming the move: a double tap is one undo (until
     * 2026-12-06 two quick taps undid the last two moves). */
    cdp_step("undo");
    js(&b, "document.getElementById('undo').click()");
    CHECK_STR(cdp_eval_str(&b, "document.getElementById('undo').dataset"
                           ".armed", got, sizeof(got)), "36");
    /* taps too quick to have read the label confirm nothing (until
     * 2026-12-06 four quick taps undid two moves) */
    js(&b, "document.getElementById('undo').click();"
       " document.getElementById('undo').click()");
    usleep(300 * 1000);
    CHECK_INT(recorded_seq(), NCARDS);      /* nothing sent yet */
    usleep(400 * 1000);
    js(&b, "document.getElementById('undo').click();"
       " document.getElementById('undo').click()");
    CHECK(wait_for(&b, "document.body.dataset.acked === '37'", 5000));
    CHECK(wait_for(&b, "document.querySelector('#moves div').textContent"
                   ".indexOf('37. note undo requested: seq 36') === 0",
                   3000));
    /* the move stands (a request): not asked for again */
    js(&b, "document.getElementById('undo').click()");
    usleep(500 * 1000);
    CHECK_INT(recorded_seq(), NCARDS + 1);
    CHECK_STR(cdp_eval_str(&b, "document.getElementById('verdict')"
                           ".textContent", got, sizeof(got)),
              "The undo of 36 was already requested (seq 37): an arbiter "
              "rules on it.");
    /* two tabs of the page share its storage: what one queued is kept
     * when the other saves (until 2026-12-06 it was written over) */
    js(&b, "localStorage.setItem('arbiter.score." MATCH ".queue', "
       "JSON.stringify([{cid:'other-tab',route:'note',data:{text:'x',"
       "cid:'other-tab'},line:'note x',tries:1}]))");
    js(&b, "document.getElementById('note').value = 'from this tab';"
       " document.getElementById('noteform').requestSubmit()");
    CHECK(wait_for(&b, "document.body.dataset.acked === '38'", 5000));
    CHECK(wait_for(&b, "JSON.parse(localStorage.getItem('arbiter.score."
                   MATCH ".queue')).map(q => q.cid).join() === "
                   "'other-tab'", 3000));
    js(&b, "localStorage.setItem('arbiter.score." MATCH ".queue', '[]')");
    CHECK(cdp_eval_int(&b, "document.body.dataset.pending === '0' ? 1 : 0")
          == 1);
    /* An arbiter voids the move elsewhere: Undo offers the one before
     * (until 2026-12-06 it kept saying 36's undo was requested). */
    cdp_step("a move voided elsewhere");
    CHECK_INT(harness_cli("rule --match " MATCH " void 36 --reason "
                          "'asked from the page'"), 0);
    CHECK(wait_for(&b, "document.querySelector('#moves div').textContent"
                   ".indexOf('39. void 36') === 0", 3000));
    CHECK(wait_for(&b, "document.querySelector('#moves div[data-seq=\"36\"]"
                   "').className === 'void'", 3000));
    js(&b, "document.getElementById('undo').click()");
    CHECK_STR(cdp_eval_str(&b, "document.getElementById('undo').dataset"
                           ".armed || ''", got, sizeof(got)), "35");
    /* ... and amends the one before: Undo offers the one before that
     * (no test failed when only a void took a move off the page's) */
    cdp_step("a move amended elsewhere");
    card(34, c, sizeof(c));
    snprintf(cmd, sizeof(cmd), "rule --match " MATCH " amend 35 place "
             "alice %s --reason 'asked again'", c);
    CHECK_INT(harness_cli(cmd), 0);
    CHECK(wait_for(&b, "document.querySelector('#moves div').textContent"
                   ".indexOf('40. amend 35') === 0", 3000));
    js(&b, "document.getElementById('undo').click()");
    CHECK_STR(cdp_eval_str(&b, "document.getElementById('undo').dataset"
                           ".armed || ''", got, sizeof(got)), "34");
    /* A note recorded elsewhere with markup in it: listed as text (no
     * test failed when the list took the lines as markup). */
    cdp_step("a note with markup");
    CHECK_INT(harness_cli("note --match " MATCH " '<b>bold</b><img src=x "
                          "onerror=window.PWNED=1>'"), 0);
    CHECK(wait_for(&b, "document.querySelector('#moves div').textContent "
                   "=== '41. note <b>bold</b><img src=x "
                   "onerror=window.PWNED=1>'", 3000));
    CHECK_INT(cdp_eval_int(&b, "document.querySelectorAll('#moves b, "
                           "#moves img').length"), 0);
    /* A reader's token (typed after a reload) while a note waits: the
     * note is kept and the token asked for again; the scorer's sends it
     * (no test failed when a 403 dropped the event). */
    cdp_step("a reader's token with a note queued");
    js(&b, "localStorage.setItem('arbiter.token', '" HARNESS_READER "');"
       " localStorage.setItem('arbiter.score." MATCH ".queue', "
       "JSON.stringify([{cid:'web-kept',route:'note',data:{text:'kept',"
       "cid:'web-kept'},line:'note kept',tries:0}]))");
    CHECK(cdp_open(&b, url) == 0);
    CHECK(wait_for(&b, "!document.getElementById('login').hidden && "
                   "document.body.dataset.pending === '1' && document."
                   "getElementById('loginerr').textContent.indexOf('"
                   "The recorder refused the token: ') === 0", 5000));
    js(&b, "document.getElementById('token').value = '" HARNESS_SCORER "';"
       " document.getElementById('login').requestSubmit()");
    CHECK(wait_for(&b, "document.body.dataset.acked === '42' && "
                   "document.body.dataset.pending === '0'", 10000));
    CHECK_INT(recorded_seq(), 42);
    /* An event acknowledged while the page reads the list, after the
     * answer of its last page was written: listed once, in its place
     * (until 2026-12-07 the list read replaced the ack's line, and the
     * move was missing until the next one).  The answer of the list's
     * last page, empty, is held until the ack has been drawn. */
    cdp_step("an ack while the list loads");
    held = cdp_call(&b, "Fetch.enable", json_pack("{s:[{s:s,s:s}]}",
                    "patterns", "urlPattern", "*/api/m/" MATCH
                    "/events?from=43", "requestStage", "Response"), 1,
                    5000);
    CHECK(held != NULL);
    json_decref(held);
    b.catch_method = "Fetch.requestPaused";
    CHECK(cdp_open(&b, url) == 0);
    CHECK(cdp_wait_caught(&b, 5000));
    held = b.caught;
    b.caught = NULL;
    b.catch_method = NULL;
    CHECK_INT(harness_cli("note --match " MATCH " while the list loads"),
              0);
    CHECK(wait_for(&b, "!!document.querySelector('#moves div[data-seq="
                   "\"43\"]')", 3000));
    CHECK_INT(cdp_continue(&b, held), 0);
    json_decref(cdp_call(&b, "Fetch.disable", NULL, 1, 5000));
    CHECK(wait_for(&b, "performance.getEntriesByType('resource').some(e "
                   "=> e.name.endsWith('/events?from=43'))", 3000));
    usleep(200 * 1000);
    CHECK_INT(cdp_eval_int(&b, "[...document.querySelectorAll('#moves "
                           "[data-seq]')].map(d => +d.dataset.seq).every("
                           "(s, k, a) => s === a.length - 1 - k) ? "
                           "document.querySelectorAll('#moves [data-seq]')"
                           ".length : -1"), 44);

    /* A game with hands and verbs: the buttons write the words, the
     * recorder judges them. */
    cdp_step("a Chắn match");
    header_match("tests/data/chan-chiu-u.txt", "C1", base2, sizeof(base2));
    CHECK(cdp_open(&b, base2) == 0);
    CHECK(wait_for(&b, "document.body.dataset.ready === '1'", 5000));
    CHECK(wait_for(&b, "document.querySelectorAll('#pad .card').length === "
                   "20", 5000));
    js(&b, "document.querySelector('#pad [data-verb=\"discard\"]').click();"
       " document.querySelector('#pad [data-card=\"8S\"]').click();");
    CHECK_STR(cdp_eval_str(&b, "document.getElementById('text').value", got,
                           sizeof(got)), "discard an 8S");
    js(&b, "document.getElementById('typed').requestSubmit()");
    CHECK(wait_for(&b, "document.body.dataset.verdict === 'legal'", 10000));
    js(&b, "document.getElementById('record').click()");
    CHECK(wait_for(&b, "document.body.dataset.acked === '1' && "
                   "document.body.dataset.pending === '0'", 10000));
    /* binh's hand, and a card binh does not hold: the rule says so. */
    js(&b, "document.querySelector('#pad [data-player=\"binh\"]').click();"
       " document.querySelector('#pad [data-verb=\"discard\"]').click();");
    CHECK(wait_for(&b, "document.querySelectorAll('#pad .card').length === "
                   "19", 3000));
    js(&b, "document.getElementById('text').value = 'discard binh CC';"
       " document.getElementById('typed').requestSubmit()");
    CHECK(wait_for(&b, "document.body.dataset.verdict === 'refused'", 10000));
    CHECK(wait_for(&b, "document.getElementById('verdict').textContent"
                   ".indexOf('Refused (') === 0", 1000));

    /* Chains, 1 against 1 (until 2026-12-06 the page offered both of a
     * player's hands, had no way to tap a cell, drew no coordinates and
     * told a chain as a YAHchain Sota, "Sota : , 4 points for "). */
    cdp_step("a Chains match");
    header_match("tests/data/chains-1v1-36-square.txt", "K1", base3,
                 sizeof(base3));
    CHECK(cdp_open(&b, base3) == 0);
    CHECK(wait_for(&b, "document.body.dataset.ready === '1'", 5000));
    CHECK(wait_for(&b, "document.querySelectorAll('#pad .card').length === "
                   "9", 5000));
    CHECK_STR(cdp_eval_str(&b, "document.getElementById('turn').textContent",
                           got, sizeof(got)), "Turn: ann (hand 1)");
    CHECK_STR(cdp_eval_str(&b, "[...document.querySelectorAll('#pad .cell')]"
                           ".map(e => e.dataset.cell).join(' ')", got,
                           sizeof(got)), "r0c0");
    /* no verb tapped: a Chains tap is a placement (until 2026-12-06 the
     * text "ann 7♣ r0c0" was refused, "write the move out") */
    js(&b, "document.querySelector('#pad [data-card=\"7\u2663\"]').click();"
       " document.querySelector('#pad [data-cell=\"r0c0\"]').click();");
    CHECK_STR(cdp_eval_str(&b, "document.getElementById('text').value", got,
                           sizeof(got)), "ann 7\u2663 r0c0");
    js(&b, "document.getElementById('typed').requestSubmit()");
    CHECK(wait_for(&b, "document.body.dataset.verdict === 'legal'", 10000));
    js(&b, "document.getElementById('record').click()");
    CHECK(wait_for(&b, "document.body.dataset.acked === '1' && "
                   "document.body.dataset.pending === '0'", 10000));
    /* bob's turn: his first hand; the cells beside the card; the table
     * names its rows and columns and marks r0c0 */
    CHECK(wait_for(&b, "document.getElementById('turn').textContent === "
                   "'Turn: bob (hand 1)' && document.querySelectorAll("
                   "'#pad .cell').length === 4", 5000));
    CHECK_STR(cdp_eval_str(&b, "[...document.querySelectorAll('#pad .cell')]"
                           ".map(e => e.dataset.cell).join(' ')", got,
                           sizeof(got)), "r-1c0 r0c-1 r0c1 r1c0");
    /* the cards come with the hands, asked for after the state (a
     * loaded machine answered them after this check: a test's race) */
    CHECK(wait_for(&b, "document.querySelectorAll('#pad .card').length === "
                   "9", 5000));
    CHECK_STR(cdp_eval_str(&b, "[...document.querySelectorAll('#table "
                           ".coord')].map(e => e.textContent).join(' ')",
                           got, sizeof(got)), "c0 r0");
    CHECK_INT(cdp_eval_int(&b, "document.querySelectorAll('#table "
                           "circle.origin').length"), 1);
    /* the chain bob's card would close, told as a chain */
    js(&b, "document.getElementById('text').value = 'place bob 6S r-1c0';"
       " document.getElementById('typed').requestSubmit()");
    CHECK(wait_for(&b, "document.body.dataset.verdict === 'legal'", 10000));
    CHECK(wait_for(&b, "document.getElementById('verdict').textContent"
                   ".indexOf('Chain of short: 6\u2660 7\u2663 at "
                   "r-1c0\u2013r0c0 (vertical), 4 points') >= 0", 1000));

    /* A phone: 360 px wide, nothing sideways, big targets. */
    /* No such match: said, and the stream not retried for ever. */
    cdp_step("a match that does not exist");
    snprintf(got, sizeof(got), "%s/s/NOPE", base);
    CHECK(cdp_open(&b, got) == 0);
    CHECK(wait_for(&b, "document.getElementById('live').textContent === "
                   "'stopped' && document.body.dataset.verdict === "
                   "'refused'", 5000));

    cdp_step("a phone");
    CHECK(cdp_size(&b, 360, 640) == 0);
    CHECK(cdp_open(&b, url) == 0);
    CHECK(wait_for(&b, "document.body.dataset.ready === '1'", 5000));
    CHECK(cdp_eval_int(&b, "document.documentElement.scrollWidth") <= 360);
    CHECK(cdp_eval_int(&b, "Math.min(...[...document.querySelectorAll("
                       "'button, input')].filter(e => e.offsetParent)"
                       ".map(e => Math.min(e.offsetWidth, e.offsetHeight)))")
          >= 44);
    CHECK(cdp_is_picture(&b, 360, 640, "scorekeeper phone"));

    cdp_step("stopping");
    cdp_stop(&b);
    /* A clean stop: no crash, nothing leaked under ASan. */
    i = harness_stop(SIGTERM);
    CHECK(WIFEXITED(i) && WEXITSTATUS(i) == 0);
    (void)unused;
    harness_done(test_failed_);
    return TEST_END();
}
