/*
 * page_steps.c - a page in a headless Chromium, driven from a shell test:
 * for what only a recorder set up by a script shows (a read replica of a
 * NATS stream, tests/integration/nats_deal.sh).
 *
 *   page_steps URL STEP...
 *
 * Each step, in order:
 *   init:JS      (before the page opens, whatever its place) runs JS in
 *                the page before its own scripts, e.g. to slow its
 *                requests down
 *   wait:EXPR    until the JavaScript expression is true (10 s at most)
 *   print:EXPR   prints its value (a string as it is, else as JSON)
 *   sh:CMD       runs CMD with /bin/sh; it must exit 0
 * A step that fails says which and why on stderr and ends the run with
 * exit status 1; the browser is always stopped.  A missing chromium is a
 * failure, as in the C tests of the pages (tests/browser/cdp.h).
 */
#include "tests/browser/cdp.h"

#define STEP_MS 10000

/* What the steps do not need of cdp.h. */
static void *const unused[] = { (void *)cdp_eval_str, (void *)cdp_eval_int,
                                (void *)cdp_is_picture };

static void
on_alarm(int sig)
{
    (void)sig;
    cdp_kill_now();
    _exit(1);
}

static int
print(cdp_t *b, const char *expr)
{
    json_t *v = cdp_eval(b, expr, STEP_MS);
    char   *s;

    if (v == NULL)
        return -1;
    if (json_is_string(v)) {
        printf("%s\n", json_string_value(v));
    } else {
        s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        printf("%s\n", s != NULL ? s : "?");
        free(s);
    }
    json_decref(v);
    fflush(stdout);
    return 0;
}

/* The init: steps, before the page opens. */
static int
init(cdp_t *b, int argc, char **argv)
{
    json_t *r;
    int     i;

    for (i = 2; i < argc; i++) {
        if (strncmp(argv[i], "init:", 5) != 0)
            continue;
        cdp_step("%s", argv[i]);
        json_decref(cdp_call(b, "Page.enable", NULL, 1, STEP_MS));
        r = cdp_call(b, "Page.addScriptToEvaluateOnNewDocument",
                     json_pack("{s:s}", "source", argv[i] + 5), 1, STEP_MS);
        if (r == NULL) {
            fprintf(stderr, "page_steps: step %d \"%s\": %s\n", i - 1,
                    argv[i], b->err);
            return -1;
        }
        json_decref(r);
    }
    return 0;
}

static int
step(cdp_t *b, const char *s)
{
    int rc;

    cdp_step("%s", s);
    if (strncmp(s, "init:", 5) == 0)
        return 0;               /* done before the page opened */
    if (strncmp(s, "wait:", 5) == 0)
        return cdp_wait(b, s + 5, STEP_MS) >= 0 ? 0 : -1;
    if (strncmp(s, "print:", 6) == 0)
        return print(b, s + 6);
    if (strncmp(s, "sh:", 3) == 0) {
        rc = system(s + 3);
        if (rc != 0)
            snprintf(b->err, sizeof(b->err), "exit status %d", rc);
        return rc == 0 ? 0 : -1;
    }
    snprintf(b->err, sizeof(b->err), "not a step (init:, wait:, print: "
             "or sh:)");
    return -1;
}

int
main(int argc, char **argv)
{
    cdp_t b;
    int   i, rc = 1;

    if (argc < 3) {
        fprintf(stderr, "usage: page_steps URL STEP... (init:JS, "
                "wait:EXPR, print:EXPR, sh:CMD)\n");
        return 2;
    }
    (void)unused;
    signal(SIGALRM, on_alarm);
    alarm((unsigned)(60 + argc * STEP_MS / 1000));
    if (cdp_start(&b, 1280, 800) != 0) {
        fprintf(stderr, "page_steps: no headless chromium to drive\n");
        goto done;
    }
    if (init(&b, argc, argv) != 0)
        goto done;
    if (cdp_open(&b, argv[1]) != 0) {
        fprintf(stderr, "page_steps: %s\n", b.err);
        goto done;
    }
    for (i = 2; i < argc; i++)
        if (step(&b, argv[i]) != 0) {
            fprintf(stderr, "page_steps: step %d \"%s\": %s\n", i - 1,
                    argv[i], b.err);
            goto done;
        }
    rc = 0;
done:
    cdp_stop(&b);
    return rc;
}
