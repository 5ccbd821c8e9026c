/*
 * test_web_report.c - `arbiter report --html` in a real browser (headless
 * Chromium through tests/browser/cdp.h): for each of the four games the
 * file opens offline from file://, makes no request, and shows the final
 * state that `arbiter replay --json` prints (seq, totals, records, the
 * game's own pieces of the table); the history slider shows an earlier
 * state; a screenshot is a non-blank picture of the requested size, on a
 * desktop, a phone and as an overlay; a claim's differences are marked on
 * the record and the total they concern; a move text that tries to end
 * the script stays text.
 */
#include <jansson.h>

#include "tests/browser/cdp.h"
#include "tests/test.h"

static char dir[64];

/* Runs a shell command; its exit status. */
static int
run(const char *fmt, const char *a, const char *b)
{
    char cmd[1024];
    int  st;

    snprintf(cmd, sizeof(cmd), fmt, a, b);
    st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static json_t *
load(const char *path)
{
    json_error_t e;
    json_t      *v = json_load_file(path, 0, &e);

    if (v == NULL)
        fprintf(stderr, "%s: %s\n", path, e.text);
    return v;
}

/* "name=points ..." sorted by name, from the replay's totals. */
static void
totals_text(json_t *rep, char *out, size_t len)
{
    const char *names[64], *k;
    json_t     *t = json_object_get(rep, "totals"), *v;
    size_t      n = 0, i, j, off = 0;

    json_object_foreach(t, k, v)
        if (n < 64)
            names[n++] = k;
    for (i = 1; i < n; i++)
        for (j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            const char *x = names[j];
            names[j] = names[j - 1];
            names[j - 1] = x;
        }
    out[0] = '\0';
    for (i = 0; i < n && off < len; i++)
        off += (size_t)snprintf(out + off, len - off, "%s%s=%lld",
                                i ? " " : "", names[i], (long long)
                                json_integer_value(json_object_get(t,
                                                                   names[i])));
}

#define DOM_TOTALS \
    "[...document.querySelectorAll('#totals tr')].map(r => r.dataset.player" \
    " + '=' + r.querySelector('.points').firstChild.textContent).sort()"   \
    ".join(' ')"

/* The game's own pieces, counted in the page and in the replay. */
static void
check_pieces(cdp_t *b, const char *game, json_t *rep)
{
    json_t *s = json_object_get(rep, "state"), *x;
    size_t  i, n = 0;

    if (strcmp(game, "yahchain") == 0) {
        CHECK_INT(cdp_eval_int(b, "document.querySelectorAll('#table .sota').length"),
                  json_array_size(json_object_get(s, "sotas")));
        json_array_foreach(json_object_get(s, "sotas"), i, x)
            n += json_array_size(json_object_get(x, "cards"));
        CHECK_INT(cdp_eval_int(b, "document.querySelectorAll('#table .card').length"),
                  n);
    } else if (strcmp(game, "chains") == 0) {
        CHECK_INT(cdp_eval_int(b, "document.querySelectorAll('#table polyline.chain')"
                      ".length"),
                  json_array_size(json_object_get(rep, "records")));
        json_array_foreach(json_object_get(s, "table"), i, x)
            n++;
        CHECK_INT(cdp_eval_int(b, "document.querySelectorAll('#table .card').length"),
                  n);
    } else {
        /* Tsukurutenten and Chắn: a seat per player, the captured pairs or
         * open sets face up. */
        CHECK_INT(cdp_eval_int(b, "document.querySelectorAll('#table .seat').length"),
                  json_array_size(json_object_get(s, "players")));
        if (strcmp(game, "chan") == 0) {
            json_array_foreach(json_object_get(s, "players"), i, x)
                n += 2 * json_array_size(json_object_get(x, "exposed"));
            CHECK_INT(cdp_eval_int(b, "document.querySelectorAll('#table .pair')"
                          ".length"), n);
        }
    }
}

static const struct {
    const char *file, *name, *game;
} games[] = {
    { "tests/data/yah3-short.txt", "yah", "yahchain" },
    { "tests/data/chains-1v1-36-square.txt", "chains", "chains" },
    { "tests/data/tsuku-simple.txt", "tsuku", "tsukurutenten" },
    { "tests/data/chan-chiu-u.txt", "chan", "chan" },
};

static void
open_page(cdp_t *b, const char *name, const char *query)
{
    char url[256];

    snprintf(url, sizeof(url), "file://%s/%s.html%s", dir, name, query);
    cdp_step("the page %s.html%s", name, query);
    CHECK(cdp_open(b, url) == 0);
    if (cdp_wait(b, "document.body.dataset.ready === '1'", 5000) < 0)
        fprintf(stderr, "%s: %s\n", url, b->err);
}

static void
check_game(cdp_t *b, int g)
{
    char    path[256], want[512], got[512];
    json_t *rep;

    snprintf(path, sizeof(path), "%s/%s", dir, games[g].name);
    CHECK_INT(run("bin/arbiter replay --json %s > %s.json", games[g].file,
                  path), 0);
    CHECK_INT(run("bin/arbiter report --html --out %2$s.html %1$s",
                  games[g].file, path), 0);
    snprintf(path, sizeof(path), "%s/%s.json", dir, games[g].name);
    rep = load(path);
    CHECK(rep != NULL);
    if (rep == NULL)
        return;
    open_page(b, games[g].name, "");
    CHECK_INT(cdp_eval_int(b, "+document.body.dataset.seq"),
              json_integer_value(json_object_get(rep, "seq")));
    CHECK_STR(cdp_eval_str(b, "document.getElementById('game').textContent",
                           got, sizeof(got)), games[g].game);
    totals_text(rep, want, sizeof(want));
    CHECK_STR(cdp_eval_str(b, DOM_TOTALS, got, sizeof(got)), want);
    CHECK_INT(cdp_eval_int(b, "document.querySelectorAll('#results tr[data-record]')"
                  ".length"), json_array_size(json_object_get(rep,
                                                              "records")));
    check_pieces(b, games[g].game, rep);
    /* YAHchain's records name their category (no test failed when a
     * kind of n cards was looked up as one of n - 1) */
    if (g == 0)
        CHECK_STR(cdp_eval_str(b, "(h => [...document.querySelectorAll("
                               "'#results tr[data-record]')].map(r => r"
                               ".cells[h.indexOf('category')].textContent)"
                               ".join())([...document.querySelectorAll("
                               "'#results th')].map(e => e.textContent))",
                               got, sizeof(got)), "Ladder,Triple");
    /* Offline: nothing but the file itself was loaded. */
    CHECK_INT(cdp_eval_int(b, "performance.getEntriesByType('resource').length"), 0);
    CHECK(cdp_is_picture(b, 1280, 800, games[g].name));
    json_decref(rep);
}

/* Runs js (a step of the replay), then the page must show seq want. */
static void
step(cdp_t *b, const char *js, int want)
{
    char expr[64];

    json_decref(cdp_eval(b, js, 5000));
    snprintf(expr, sizeof(expr), "document.body.dataset.seq === '%d'", want);
    if (cdp_wait(b, expr, 3000) < 0)
        fprintf(stderr, "after %s: seq %ld, not %d\n", js,
                (long)cdp_eval_int(b, "+document.body.dataset.seq"), want);
    CHECK_INT(cdp_eval_int(b, "+document.body.dataset.seq"), want);
}

/* The slider at seq 3 shows the table as it stood then. */
static void
check_slider(cdp_t *b)
{
    char    path[256];
    json_t *rep;

    snprintf(path, sizeof(path), "%s/yah3", dir);
    CHECK_INT(run("bin/arbiter replay --json --at 3 %s > %s.json",
                  games[0].file, path), 0);
    snprintf(path, sizeof(path), "%s/yah3.json", dir);
    rep = load(path);
    open_page(b, "yah", "");
    json_decref(cdp_eval(b, "(() => { const s = document.getElementById("
                         "'slider'); s.value = 3; s.dispatchEvent(new Event("
                         "'input')); })()", 5000));
    CHECK(cdp_wait(b, "document.body.dataset.seq === '3'", 3000) >= 0);
    CHECK_INT(cdp_eval_int(b, "+document.getElementById('at').textContent"), 3);
    CHECK_INT(cdp_eval_int(b, "+document.querySelector('#moves .now').dataset.seq"),
              3);
    /* The address is a link to what is shown. */
    CHECK_INT(cdp_eval_int(b, "+new URLSearchParams(location.search).get('at')"), 3);
    if (rep != NULL)
        check_pieces(b, "yahchain", rep);
    /* Seq 3 completes Sota 1 and nothing else: one record. */
    open_page(b, "yah", "?at=3");
    CHECK_INT(cdp_eval_int(b, "+document.body.dataset.seq"), 3);
    if (rep != NULL)
        check_pieces(b, "yahchain", rep);
    CHECK_INT(cdp_eval_int(b, "document.querySelectorAll('#results tr[data-record]')"
                  ".length"), json_array_size(json_object_get(rep,
                                                              "records")));
    json_decref(rep);
    /* The step-through: one event a step, with the buttons and the
     * keys, to the last event and to the first (no test failed when a
     * step stopped one short of either end, or ArrowRight went back). */
    open_page(b, "yah", "?at=7");
    step(b, "document.getElementById('next').click()", 8);
    step(b, "document.getElementById('next').click()", 8);
    step(b, "document.dispatchEvent(new KeyboardEvent('keydown', "
         "{ key: 'ArrowLeft' }))", 7);
    step(b, "document.dispatchEvent(new KeyboardEvent('keydown', "
         "{ key: 'ArrowRight' }))", 8);
    step(b, "document.dispatchEvent(new KeyboardEvent('keydown', "
         "{ key: 'Home' }))", 0);
    step(b, "document.getElementById('next').click()", 1);
    step(b, "document.getElementById('prev').click()", 0);
    step(b, "document.getElementById('prev').click()", 0);
}

/* Every state of every recorded match of the test data draws as a
 * picture (no exception, an <svg>, the game recognised). */
static void
check_every_state(cdp_t *b)
{
    static const char *const more[] = {
        "chains-3v3-52-sum", "chains-seed-match", "chan-dead", "chan-draw",
        "chan-u-chi-tom", "tsuku-extended",
    };
    char   file[128];
    size_t i;

    for (i = 0; i < sizeof(more) / sizeof(more[0]); i++) {
        snprintf(file, sizeof(file), "tests/data/%s.txt", more[i]);
        CHECK_INT(run("bin/arbiter report --html --out %2$s/more.html %1$s",
                      file, dir), 0);
        open_page(b, "more", "");
        CHECK_INT(cdp_eval_int(b, "ARB_DATA.reports.length"),
                  cdp_eval_int(b, "ARB_DATA.events.length"));
        CHECK_INT(cdp_eval_int(b, "ARB_DATA.reports.filter(r => !ARB.table(r, "
                      "ARB_DATA.game).startsWith('<svg')).length"), 0);
        CHECK_INT(cdp_eval_int(b, "ARB_DATA.reports.filter(r => ARB.game(r) !== "
                      "ARB_DATA.game).length"), 0);
    }
}

/* A hand a viewer may see (docs/VIEWS.md: `hand_cards`) is drawn face up,
 * one chip or card per item; without it, the count as backs. */
static void
check_concealed(cdp_t *b)
{
    static const char *const js[2][2] = {
        { "tsuku", "(() => { const r = JSON.parse(JSON.stringify(ARB_DATA"
          ".reports[7])), d = document.createElement('div'), n = () => "
          "d.querySelector('.seat').querySelectorAll('.chip').length; "
          "d.innerHTML = ARB.table(r); const before = n(); "
          "r.state.players[0].hand_cards = ['B1', 'B2', 'R5']; "
          "d.innerHTML = ARB.table(r); return n() - before; })()" },
        { "chan", "(() => { const r = JSON.parse(JSON.stringify(ARB_DATA"
          ".reports[1])), d = document.createElement('div'), n = () => "
          "d.querySelector('.seat').querySelectorAll('.own').length; "
          "r.state.players[0].hand_cards = ['2V', '2V', '5W']; "
          "d.innerHTML = ARB.table(r); return n(); })()" },
    };
    int i;

    for (i = 0; i < 2; i++) {
        open_page(b, js[i][0], "");
        CHECK_INT(cdp_eval_int(b, js[i][1]), 3);
    }
}

/* A claim with a wrong bonus and a wrong total: both marked. */
static void
check_claim(cdp_t *b)
{
    char got[512];

    CHECK_INT(run("sed -e 's/\"bonus\":6/\"bonus\":9/' -e 's/\"bob\":33/"
                  "\"bob\":30/' %s/yah.json > %s/claim.json", dir, dir), 0);
    CHECK_INT(run("bin/arbiter report --html --claim %1$s/claim.json --out "
                  "%1$s/claim.html %2$s", dir, games[0].file), 0);
    open_page(b, "claim", "");
    CHECK_INT(cdp_eval_int(b, "document.querySelectorAll('#results td.diff').length"),
              1);
    CHECK_STR(cdp_eval_str(b, "document.querySelector('#results tr[data-"
                           "record=\"1\"] td.diff span').textContent", got,
                           sizeof(got)), "claimed 9");
    CHECK_STR(cdp_eval_str(b, "document.querySelector('#totals tr[data-"
                           "player=\"bob\"] td.diff span').textContent", got,
                           sizeof(got)), "claimed 30");
    CHECK(strstr(cdp_eval_str(b, "document.getElementById('claim')"
                              ".textContent", got, sizeof(got)),
                 "2 differences") != NULL);
    /* A claimed value with markup and a quote in it is text, in the
     * claim's text and in its cell's tooltip (no test failed when either
     * went in as markup). */
    CHECK_INT(run("sed -e 's/\"owner\":\"alice\"/\"owner\":\"<b>al\\\\"
                  "\"ice<\\/b>\"/' %s/yah.json > %s/claim2.json", dir, dir),
              0);
    CHECK_INT(run("bin/arbiter report --html --claim %1$s/claim2.json --out "
                  "%1$s/claim2.html %2$s", dir, games[0].file), 0);
    open_page(b, "claim2", "");
    CHECK_INT(cdp_eval_int(b, "document.querySelectorAll('#claim b, "
                           "#results b').length"), 0);
    CHECK(strstr(cdp_eval_str(b, "document.getElementById('claim')"
                              ".textContent", got, sizeof(got)),
                 "owner: claimed \"<b>al\\\"ice</b>\"") != NULL);
    CHECK_STR(cdp_eval_str(b, "(d => d.getAttributeNames().join() + ' ' + "
                           "d.title)(document.querySelector('#results "
                           "td.diff'))", got, sizeof(got)),
              "class,title claimed \"<b>al\\\"ice</b>\"");
    /* A record the claim lacks is marked on its own row (no test failed
     * when the mark went to no row). */
    CHECK_INT(run("sed -e 's/\"sota\":2,\"owner\"/\"sota\":5,\"owner\"/' "
                  "%s/yah.json > %s/claim3.json", dir, dir), 0);
    CHECK_INT(run("bin/arbiter report --html --claim %1$s/claim3.json --out "
                  "%1$s/claim3.html %2$s", dir, games[0].file), 0);
    open_page(b, "claim3", "");
    CHECK_STR(cdp_eval_str(b, "[...document.querySelectorAll('#results "
                           "tr.diff')].map(r => r.dataset.record).join()",
                           got, sizeof(got)), "2");
    /* A claim on record without a player's total: that total is marked
     * as claimed by none (no test failed when it said "claimed null"). */
    CHECK_INT(run("sed '$a 9. claim bob -- {\"records\":[],\"totals\":"
                  "{\"alice\":21}}' %s > %s/claimed.txt", games[0].file,
                  dir), 0);
    CHECK_INT(run("bin/arbiter report --html --out %1$s/claimed.html "
                  "%1$s/claimed.txt%2$s", dir, ""), 0);
    open_page(b, "claimed", "");
    CHECK_STR(cdp_eval_str(b, "[...document.querySelectorAll('#totals "
                           "span.diff')].map(e => e.parentNode.parentNode"
                           ".dataset.player + ' ' + e.textContent).join()",
                           got, sizeof(got)), "bob claimed none");
}

/* A note that tries to close the data's script and run its own, then
 * to end its tooltip's attribute and add one; an entity typed in it is
 * shown as typed. */
static void
check_hostile(cdp_t *b)
{
    CHECK_INT(run("sed 's|note scoresheet page 1 ends here|note </script>"
                  "<script>window.PWNED=1</script><!-- \\&lt;b\\&gt; "
                  "\" onmouseover=\"window.PWNED=2\" x=\" and more words, "
                  "enough for a line longer than the list shows of it, "
                  "whole in its tooltip only|' %s > %s/evil.txt",
                  games[0].file, dir), 0);
    CHECK_INT(run("bin/arbiter report --html --out %1$s/evil.html "
                  "%1$s/evil.txt%2$s", dir, ""), 0);
    open_page(b, "evil", "");
    CHECK_INT(cdp_eval_int(b, "typeof window.PWNED === 'undefined' ? 1 : 0"), 1);
    CHECK_INT(cdp_eval_int(b, "document.getElementById('moves').textContent.includes("
                  "'</script><script>window.PWNED=1</script><!--') ? 1 : 0"),
              1);
    CHECK_INT(cdp_eval_int(b, "+document.body.dataset.seq"), 8);
    /* the whole line in the tooltip, no attribute added (no test failed
     * when the tooltip's text went in unescaped) */
    CHECK_INT(cdp_eval_int(b, "(() => { const d = document.querySelector("
                           "'#moves [data-seq=\"7\"]'); return d.title === "
                           "ARB_DATA.events.find(e => e.seq === 7).line && "
                           "!d.hasAttribute('onmouseover') ? 1 : 0; })()"),
              1);
    /* (none when & was left as it was: the list said <b>) */
    CHECK_INT(cdp_eval_int(b, "document.querySelector('#moves [data-seq="
                           "\"7\"] .line').textContent.includes('&lt;b&gt;"
                           " \" onmouseover') ? 1 : 0"), 1);
}

/* A refused event ends the step-through before it, and the page says
 * which event and why; the tool says so with exit status 1. */
static void
check_refused(cdp_t *b)
{
    char got[512];

    CHECK_INT(run("sed 's/^4\\. place bob 7S/4. place alice 7S/' %s > "
                  "%s/refused.txt", games[0].file, dir), 0);
    CHECK_INT(run("bin/arbiter report --html --out %1$s/refused.html "
                  "%1$s/refused.txt 2> /dev/null%2$s", dir, ""), 1);
    open_page(b, "refused", "");
    CHECK_INT(cdp_eval_int(b, "+document.body.dataset.seq"), 3);
    CHECK_INT(cdp_eval_int(b, "+document.getElementById('slider').max"), 3);
    CHECK_INT(cdp_eval_int(b, "document.getElementById('refused').hidden ? 0 : 1"),
              1);
    CHECK(strstr(cdp_eval_str(b, "document.getElementById('refused')"
                              ".textContent", got, sizeof(got)),
                 "event 4 'place alice 7S' is refused (") != NULL);
    /* the last event shown (no test failed when it said one more) */
    CHECK(strstr(got, ".  The table is shown up to event 3.") != NULL);
}

/* The rulings that shaped the state are listed beside it, one undone
 * by a later ruling struck through, a reason as text; a state before
 * the first ruling lists none. */
static void
check_rulings(cdp_t *b)
{
    static const char text[] =
        "game: yahchain\nmatch: R2\nplayers: alice bob\nmode: 3\n\n"
        "1. place alice 4♠ @1\n"
        "2. place bob 6♦ @1\n"
        "3. amend 2 place bob 7♦ @1 -- typo\n"
        "4. amend 2 place bob 8♦ @1 -- typo <b>again</b>\n"
        "5. stands place bob 9♣ @1 -- out of turn\n"
        "6. void 5 -- on reflection\n";
    char  path[256], got[512];
    FILE *f;

    snprintf(path, sizeof(path), "%s/rulings.txt", dir);
    f = fopen(path, "w");
    CHECK(f != NULL);
    if (f == NULL)
        return;
    fputs(text, f);
    fclose(f);
    CHECK_INT(run("bin/arbiter report --html --out %1$s/rulings.html "
                  "%1$s/rulings.txt%2$s", dir, ""), 0);
    open_page(b, "rulings", "");
    CHECK_INT(cdp_eval_int(b, "document.getElementById('rulings-head')"
                           ".hidden ? 0 : 1"), 1);
    CHECK_INT(cdp_eval_int(b, "document.querySelectorAll('#rulings "
                           ".ruling').length"), 4);
    CHECK_STR(cdp_eval_str(b, "[...document.querySelectorAll('#rulings "
                           ".undone')].map(e => e.dataset.seq).join()",
                           got, sizeof(got)), "3,5");
    CHECK_STR(cdp_eval_str(b, "document.querySelector('#rulings "
                           ".ruling').textContent", got, sizeof(got)),
              "3. amend 2 place bob 7♦ @1 — typo (undone at seq 4)");
    CHECK_STR(cdp_eval_str(b, "document.querySelector('#rulings "
                           "[data-seq=\"4\"]').textContent", got,
                           sizeof(got)),
              "4. amend 2 place bob 8♦ @1 — typo <b>again</b>");
    CHECK_INT(cdp_eval_int(b, "document.querySelectorAll('#rulings b')"
                           ".length"), 0);
    open_page(b, "rulings", "?at=2");
    CHECK_INT(cdp_eval_int(b, "document.getElementById('rulings-head')"
                           ".hidden ? 1 : 0"), 1);
    CHECK_INT(cdp_eval_int(b, "document.querySelectorAll('#rulings "
                           ".ruling').length"), 0);
}

/* A phone: the page is as wide as the screen (wide tables scroll inside
 * their box); an overlay: full HD without the controls. */
static void
check_sizes(cdp_t *b)
{
    char got[64];

    CHECK(cdp_size(b, 360, 640) == 0);
    open_page(b, "chan", "");
    CHECK_INT(cdp_eval_int(b, "document.documentElement.scrollWidth"), 360);
    CHECK(cdp_is_picture(b, 360, 640, "phone"));
    CHECK(cdp_size(b, 1920, 1080) == 0);
    open_page(b, "yah", "?overlay=1");
    CHECK_STR(cdp_eval_str(b, "getComputedStyle(document.getElementById("
                           "'history')).display", got, sizeof(got)), "none");
    CHECK(cdp_is_picture(b, 1920, 1080, "overlay"));
}

static void
on_alarm(int sig)
{
    (void)sig;
    cdp_kill_now();
    fprintf(stderr, "timed out; pages in %s\n", dir);
    _exit(1);
}

int
main(void)
{
    cdp_t  b;
    size_t g;

    signal(SIGALRM, on_alarm);
    alarm(120);
    snprintf(dir, sizeof(dir), "/tmp/arbiter-web-XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    CHECK(access("bin/arbiter", X_OK) == 0);
    if (cdp_start(&b, 1280, 800) != 0) {
        CHECK(!"a headless chromium to test the pages with");
        cdp_stop(&b);
        return TEST_END();
    }
    for (g = 0; g < sizeof(games) / sizeof(games[0]); g++)
        check_game(&b, (int)g);
    check_slider(&b);
    check_every_state(&b);
    check_concealed(&b);
    check_claim(&b);
    check_hostile(&b);
    check_rulings(&b);
    check_refused(&b);
    check_sizes(&b);
    cdp_stop(&b);
    if (test_failed_ == 0)
        run("rm -rf %s%s", dir, "");
    else
        fprintf(stderr, "pages kept in %s\n", dir);
    return TEST_END();
}
