/*
 * cdp.h - a headless Chromium driven through the DevTools protocol, for
 * tests that look at the pages in a real browser.
 *
 * DESIGN: the browser is started with --remote-debugging-pipe: it reads
 * commands on its fd 3 and writes answers and events on its fd 4, each a
 * JSON text ended by a NUL byte, so no WebSocket client is needed.  The
 * browser runs in a process group of its own, which cdp_stop() ends by its
 * id after asking it to close, and its profile is a temporary directory
 * removed with it.  A missing chromium is a failure, never a skip: the
 * tests it would run are the only check of the pages.
 *
 * Include once per test program (the functions are static).  Every call
 * has a timeout; a test that hangs is a failed test.
 *
 *   cdp_t b;
 *   if (cdp_start(&b, 1280, 800) == 0 && cdp_open(&b, "file:///x.html") == 0)
 *       json_t *v = cdp_eval(&b, "document.title", 5000);  (owned, decref)
 *   cdp_stop(&b);
 */
#ifndef ARB_TESTS_CDP_H
#define ARB_TESTS_CDP_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <sodium.h>
#include <zlib.h>

#include "core/buf.h"
#include "core/clock.h"

typedef struct cdp {
    pid_t      pid;             /* the browser, leader of its group */
    int        to;              /* we write commands: its fd 3 */
    int        from;            /* we read answers: its fd 4 */
    char       prof[64];        /* its temporary profile directory */
    char       session[128];    /* the page's session, once attached */
    long       next_id;
    arb_buf_t  in;              /* bytes read, not yet a whole message */
    char       err[256];        /* why the last call failed */
    /* An event to keep: the first one named `catch_method` that arrives
     * while a call waits is stored in `caught` (owned) instead of being
     * dropped; the test takes it and clears it. */
    const char *catch_method;
    json_t     *caught;
} cdp_t;

static long
cdp_now_ms(void)
{
    return (long)arb_clock_ms();
}

/* The browser's program: $CHROMIUM, else chromium on the PATH. */
static const char *
cdp_program(void)
{
    const char *p = getenv("CHROMIUM");

    return p != NULL && *p != '\0' ? p : "chromium";
}

static int
cdp_found(const char *prog)
{
    const char *path = getenv("PATH");
    char        buf[512];
    size_t      n;

    if (strchr(prog, '/') != NULL)
        return access(prog, X_OK) == 0;
    while (path != NULL && *path != '\0') {
        n = strcspn(path, ":");
        snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, prog);
        if (access(buf, X_OK) == 0)
            return 1;
        path += n + (path[n] == ':');
    }
    return 0;
}

static void cdp_stop(cdp_t *c);

/* The browser running, for cdp_kill_now() from a signal handler. */
static volatile pid_t cdp_running = -1;

/* Where the test is, for the message of a timeout: the step the test
 * named last (cdp_step) and the DevTools call waiting for its answer. */
static char                  cdp_step_name[160] = "starting the browser";
static const char *volatile  cdp_waiting;

/* Names the step the test is at; a failed wait and a timeout say it. */
static void
cdp_step(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(cdp_step_name, sizeof(cdp_step_name), fmt, ap);
    va_end(ap);
}

static void
cdp_say(const char *s)
{
    ssize_t w = write(2, s, strlen(s));

    (void)w;
}

/* Kills the running browser's process group at once and says which step
 * hung: for a test's timeout handler (async-signal-safe; the profile
 * stays behind). */
static void
cdp_kill_now(void)
{
    const char *m = cdp_waiting;

    cdp_say("browser test timed out at step: ");
    cdp_say(cdp_step_name);
    if (m != NULL) {
        cdp_say(" (waiting for the browser's answer to ");
        cdp_say(m);
        cdp_say(")");
    }
    cdp_say("\n");
    if (cdp_running > 0)
        kill(-cdp_running, SIGKILL);
}

/* Sends one command (params: a new reference, stolen; may be NULL), to
 * the page when `page`, and waits for its answer.  The result object
 * (new reference), or NULL with c->err set. */
static json_t *
cdp_call(cdp_t *c, const char *method, json_t *params, int page,
         int timeout_ms)
{
    json_t *msg = json_object(), *ans = NULL, *res = NULL;
    char   *text;
    long    id = ++c->next_id, end = cdp_now_ms() + timeout_ms;
    size_t  len, off;

    json_object_set_new(msg, "id", json_integer(id));
    json_object_set_new(msg, "method", json_string(method));
    json_object_set_new(msg, "params", params ? params : json_object());
    if (page)
        json_object_set_new(msg, "sessionId", json_string(c->session));
    text = json_dumps(msg, JSON_COMPACT);
    json_decref(msg);
    if (text == NULL) {
        snprintf(c->err, sizeof(c->err), "%s: out of memory", method);
        return NULL;
    }
    len = strlen(text) + 1;     /* with its NUL: the message's end */
    cdp_waiting = method;
    for (off = 0; off < len; ) {
        ssize_t w = write(c->to, text + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            snprintf(c->err, sizeof(c->err), "%s: write: %s", method,
                     strerror(errno));
            free(text);
            cdp_waiting = NULL;
            return NULL;
        }
        off += (size_t)w;
    }
    free(text);
    for (;;) {
        char          *nul;
        struct pollfd  p = { c->from, POLLIN, 0 };
        char           buf[65536];
        ssize_t        r;
        long           left;

        while (c->in.len > 0
               && (nul = memchr(c->in.data, '\0', c->in.len)) != NULL) {
            size_t n = (size_t)(nul - c->in.data) + 1;
            json_t *m = json_loads(c->in.data, 0, NULL);
            memmove(c->in.data, c->in.data + n, c->in.len - n);
            c->in.len -= n;
            if (m != NULL && json_integer_value(json_object_get(m, "id"))
                == id) {
                ans = m;
                goto answered;
            }
            if (m != NULL && c->catch_method != NULL && c->caught == NULL
                && json_is_string(json_object_get(m, "method"))
                && strcmp(json_string_value(json_object_get(m, "method")),
                          c->catch_method) == 0) {
                c->caught = m;
                continue;
            }
            json_decref(m);     /* an event, or another command's answer */
        }
        left = end - cdp_now_ms();
        if (left <= 0 || poll(&p, 1, (int)left) <= 0) {
            snprintf(c->err, sizeof(c->err), "%s: no answer in %d ms",
                     method, timeout_ms);
            cdp_waiting = NULL;
            return NULL;
        }
        r = read(c->from, buf, sizeof(buf));
        if (r <= 0) {
            snprintf(c->err, sizeof(c->err), "%s: the browser went away",
                     method);
            cdp_waiting = NULL;
            return NULL;
        }
        arb_buf_add(&c->in, buf, (size_t)r);
    }
answered:
    cdp_waiting = NULL;
    res = json_object_get(ans, "result");
    if (res == NULL) {
        char *e = json_dumps(json_object_get(ans, "error"), JSON_COMPACT);
        snprintf(c->err, sizeof(c->err), "%s: %s", method,
                 e != NULL ? e : "no result");
        free(e);
    } else {
        json_incref(res);
    }
    json_decref(ans);
    return res;
}

/* Makes the page's viewport width x height CSS pixels at scale 1 (a
 * phone's when narrower than 600): the size of a screenshot.  0 or -1. */
static int
cdp_size(cdp_t *c, int width, int height)
{
    json_t *r = cdp_call(c, "Emulation.setDeviceMetricsOverride", json_pack(
        "{s:i, s:i, s:i, s:b}", "width", width, "height", height,
        "deviceScaleFactor", 1, "mobile", width < 600), 1, 10000);

    json_decref(r);
    return r != NULL ? 0 : -1;
}

/* Starts the browser with a page of width x height CSS pixels and attaches
 * to that page.  0, or -1 with the reason printed (cdp_stop() still
 * needed). */
static int
cdp_start(cdp_t *c, int width, int height)
{
    const char *prog = cdp_program();
    int         a[2] = { -1, -1 }, b[2] = { -1, -1 };
    json_t     *r, *infos, *t;
    size_t      i, j;
    char        size[64];

    memset(c, 0, sizeof(*c));
    c->pid = -1;
    c->to = c->from = -1;
    if (!cdp_found(prog)) {
        fprintf(stderr, "%s not found: install it (sh .ci/deps)\n", prog);
        return -1;
    }
    snprintf(c->prof, sizeof(c->prof), "/tmp/arbiter-browser-XXXXXX");
    if (mkdtemp(c->prof) == NULL || pipe(a) != 0 || pipe(b) != 0) {
        fprintf(stderr, "cdp: %s\n", strerror(errno));
        c->prof[0] = '\0';
        return -1;
    }
    snprintf(size, sizeof(size), "--window-size=%d,%d", width, height);
    c->pid = fork();
    if (c->pid == 0) {
        char udd[128], log[128];
        int  in, out, fd;

        setpgid(0, 0);
        /* Above 4 first, so that dup2 onto 3 and 4 clobbers nothing. */
        in = fcntl(a[0], F_DUPFD, 10);
        out = fcntl(b[1], F_DUPFD, 10);
        dup2(in, 3);
        dup2(out, 4);
        for (fd = 5; fd < 1024; fd++)
            close(fd);
        snprintf(log, sizeof(log), "%s/browser.log", c->prof);
        fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        snprintf(udd, sizeof(udd), "--user-data-dir=%s", c->prof);
        execlp(prog, prog, "--headless=new", "--no-sandbox",
               "--disable-dev-shm-usage", "--disable-gpu",
               "--remote-debugging-pipe", "--no-first-run",
               "--no-default-browser-check", "--hide-scrollbars",
               "--mute-audio", "--disable-extensions", udd, size,
               "about:blank", (char *)NULL);
        _exit(127);
    }
    close(a[0]);
    close(b[1]);
    c->to = a[1];
    c->from = b[0];
    signal(SIGPIPE, SIG_IGN);
    if (c->pid < 0) {
        fprintf(stderr, "cdp: fork: %s\n", strerror(errno));
        return -1;
    }
    setpgid(c->pid, c->pid);
    cdp_running = c->pid;
    /* The first page appears a moment after start. */
    for (i = 0; i < 100 && c->session[0] == '\0'; i++) {
        r = cdp_call(c, "Target.getTargets", NULL, 0, 20000);
        if (r == NULL) {
            fprintf(stderr, "cdp: %s (log in %s/browser.log)\n", c->err,
                    c->prof);
            return -1;
        }
        infos = json_object_get(r, "targetInfos");
        json_array_foreach(infos, j, t) {
            const char *type = json_string_value(json_object_get(t, "type"));
            json_t     *at;
            if (type == NULL || strcmp(type, "page") != 0)
                continue;
            at = cdp_call(c, "Target.attachToTarget", json_pack(
                "{s:O, s:b}", "targetId", json_object_get(t, "targetId"),
                "flatten", 1), 0, 10000);
            if (at != NULL)
                snprintf(c->session, sizeof(c->session), "%s",
                         json_string_value(json_object_get(at,
                                                           "sessionId")));
            json_decref(at);
            break;
        }
        json_decref(r);
        if (c->session[0] == '\0')
            usleep(100 * 1000);
    }
    if (c->session[0] == '\0') {
        fprintf(stderr, "cdp: no page to attach to\n");
        return -1;
    }
    if (cdp_size(c, width, height) != 0) {
        fprintf(stderr, "cdp: %s\n", c->err);
        return -1;
    }
    return 0;
}

/* Loads url in the page.  0 or -1 (c->err). */
static int
cdp_open(cdp_t *c, const char *url)
{
    json_t *r = cdp_call(c, "Page.navigate", json_pack("{s:s}", "url", url),
                         1, 20000);

    if (r == NULL)
        return -1;
    if (json_object_get(r, "errorText") != NULL) {
        snprintf(c->err, sizeof(c->err), "%.120s: %.120s", url,
                 json_string_value(json_object_get(r, "errorText")));
        json_decref(r);
        return -1;
    }
    json_decref(r);
    return 0;
}

/* The value of a JavaScript expression in the page (promises awaited), a
 * new reference; NULL with c->err when it throws or the call fails. */
static json_t *
cdp_eval(cdp_t *c, const char *expr, int timeout_ms)
{
    json_t *r, *v;

    r = cdp_call(c, "Runtime.evaluate", json_pack("{s:s, s:b, s:b}",
                 "expression", expr, "returnByValue", 1, "awaitPromise", 1),
                 1, timeout_ms);
    if (r == NULL)
        return NULL;
    if (json_object_get(r, "exceptionDetails") != NULL) {
        char *e = json_dumps(json_object_get(r, "exceptionDetails"),
                             JSON_COMPACT);
        snprintf(c->err, sizeof(c->err), "%.200s: %s", expr,
                 e != NULL ? e : "threw");
        free(e);
        json_decref(r);
        return NULL;
    }
    v = json_object_get(json_object_get(r, "result"), "value");
    v = v != NULL ? json_incref(v) : json_null();
    json_decref(r);
    return v;
}

/* The expression's value as a string ("" when not a string), copied to
 * out. */
static const char *
cdp_eval_str(cdp_t *c, const char *expr, char *out, size_t len)
{
    json_t *v = cdp_eval(c, expr, 10000);

    snprintf(out, len, "%s", json_is_string(v) ? json_string_value(v) : "");
    json_decref(v);
    return out;
}

/* The expression's value as an integer; -1 (and the reason printed) when
 * it is not one. */
static long
cdp_eval_int(cdp_t *c, const char *expr)
{
    json_t *v = cdp_eval(c, expr, 10000);
    long    n = json_is_integer(v) ? (long)json_integer_value(v) : -1;

    if (v == NULL)
        fprintf(stderr, "%s\n", c->err);
    json_decref(v);
    return n;
}

/* Polls expr until it is true, for up to timeout_ms.  The time it took in
 * ms, or -1 (c->err says the last failure, or that it stayed false). */
static long
cdp_wait(cdp_t *c, const char *expr, int timeout_ms)
{
    long    start = cdp_now_ms();
    json_t *v;

    for (;;) {
        v = cdp_eval(c, expr, timeout_ms);
        if (json_is_true(v)) {
            json_decref(v);
            return cdp_now_ms() - start;
        }
        json_decref(v);
        if (cdp_now_ms() - start >= timeout_ms) {
            if (v != NULL)
                snprintf(c->err, sizeof(c->err), "%.200s: still false "
                         "after %d ms", expr, timeout_ms);
            fprintf(stderr, "step \"%s\": a wait failed\n", cdp_step_name);
            return -1;
        }
        usleep(20 * 1000);
    }
}

/* Waits up to timeout_ms for the event c->catch_method names to arrive
 * (into c->caught), keeping the connection read meanwhile.  1 when it
 * came, else 0. */
static inline int
cdp_wait_caught(cdp_t *c, int timeout_ms)
{
    long t0;

    for (t0 = cdp_now_ms(); c->caught == NULL
                            && cdp_now_ms() - t0 < timeout_ms; )
        json_decref(cdp_eval(c, "1", 1000));
    return c->caught != NULL;
}

/* Lets go on the request that the Fetch domain's event held (a
 * Fetch.requestPaused, owned: dropped here; NULL is nothing to do).  0,
 * or -1 with c->err. */
static inline int
cdp_continue(cdp_t *c, json_t *held)
{
    json_t *r;

    if (held == NULL)
        return 0;
    r = cdp_call(c, "Fetch.continueRequest", json_pack("{s:O}",
                 "requestId", json_object_get(json_object_get(held,
                 "params"), "requestId")), 1, 5000);
    json_decref(held);
    if (r == NULL)
        return -1;
    json_decref(r);
    return 0;
}

/* A PNG of the page's viewport, decoded from base64 into out.  0 or -1. */
static int
cdp_screenshot(cdp_t *c, arb_buf_t *out)
{
    json_t     *r = cdp_call(c, "Page.captureScreenshot",
                             json_pack("{s:s}", "format", "png"), 1, 20000);
    const char *b64 = json_string_value(json_object_get(r, "data"));
    size_t      n = b64 != NULL ? strlen(b64) : 0, got = 0;

    out->len = 0;
    if (b64 == NULL || arb_buf_reserve(out, n) != 0
        || sodium_base642bin((unsigned char *)out->data, n, b64, n, NULL,
                             &got, NULL, sodium_base64_VARIANT_ORIGINAL)
           != 0) {
        if (r != NULL)
            snprintf(c->err, sizeof(c->err), "captureScreenshot: no PNG");
        json_decref(r);
        return -1;
    }
    out->len = got;
    json_decref(r);
    return 0;
}

/* Ends the browser (asked, then its process group killed by its id),
 * closes the pipes and removes the profile.  NULL-safe, idempotent. */
static void
cdp_stop(cdp_t *c)
{
    char cmd[128];
    int  i, st;

    if (c == NULL)
        return;
    if (c->pid > 0) {
        if (c->to >= 0)
            json_decref(cdp_call(c, "Browser.close", NULL, 0, 2000));
        for (i = 0; i < 50 && waitpid(c->pid, &st, WNOHANG) == 0; i++)
            usleep(20 * 1000);
        kill(-c->pid, SIGKILL);     /* the helpers it leaves, if any */
        waitpid(c->pid, &st, 0);
        c->pid = -1;
        cdp_running = -1;
    }
    if (c->to >= 0)
        close(c->to);
    if (c->from >= 0)
        close(c->from);
    c->to = c->from = -1;
    arb_buf_free(&c->in);
    json_decref(c->caught);
    c->caught = NULL;
    if (c->prof[0] != '\0') {
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", c->prof);
        if (system(cmd) != 0)
            fprintf(stderr, "cdp: could not remove %s\n", c->prof);
        c->prof[0] = '\0';
    }
}

/* ---- a screenshot's pixels --------------------------------------------- */

typedef struct cdp_png {
    unsigned width, height;
    unsigned colours;       /* distinct colours among the pixels sampled */
    unsigned top_pct;       /* the commonest colour's share, in % */
} cdp_png_t;

static unsigned
cdp_be32(const unsigned char *p)
{
    return (unsigned)p[0] << 24 | (unsigned)p[1] << 16 | (unsigned)p[2] << 8
           | p[3];
}

static int
cdp_paeth(int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);

    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* Decodes an 8-bit RGB or RGBA, non-interlaced PNG (what Chromium writes)
 * far enough to measure it: its size, and how many colours a grid of
 * samples has.  0, or -1 for anything else. */
static int
cdp_png_measure(const unsigned char *p, size_t n, cdp_png_t *m)
{
    static const unsigned char sig[8] = { 137, 80, 78, 71, 13, 10, 26, 10 };
    arb_buf_t      z = ARB_BUF_INIT;
    unsigned char *raw = NULL, *prev, *row;
    unsigned       bpp = 0, x, y, k, ncol = 0, counts[4096];
    uint32_t       seen[4096];
    size_t         off = 8, stride = 0;
    uLongf         rawlen = 0;
    int            rc = -1;

    memset(m, 0, sizeof(*m));
    if (n < 33 || memcmp(p, sig, 8) != 0)
        return -1;
    while (off + 12 <= n) {
        unsigned len = cdp_be32(p + off);
        const unsigned char *type = p + off + 4, *d = p + off + 8;
        if (len > n - off - 12)
            goto done;
        if (memcmp(type, "IHDR", 4) == 0 && len >= 13) {
            m->width = cdp_be32(d);
            m->height = cdp_be32(d + 4);
            if (d[8] != 8 || (d[9] != 2 && d[9] != 6) || d[12] != 0
                || m->width == 0 || m->height == 0 || m->width > 8192
                || m->height > 8192)
                goto done;
            bpp = d[9] == 6 ? 4 : 3;
            stride = (size_t)m->width * bpp;
        } else if (memcmp(type, "IDAT", 4) == 0) {
            arb_buf_add(&z, d, len);
        }
        off += (size_t)len + 12;
    }
    if (bpp == 0 || z.oom)
        goto done;
    rawlen = (uLongf)((stride + 1) * m->height);
    raw = malloc(rawlen);
    if (raw == NULL || uncompress(raw, &rawlen, (const Bytef *)z.data,
                                  (uLong)z.len) != Z_OK
        || rawlen != (uLongf)((stride + 1) * m->height))
        goto done;
    /* Unfilter in place: each row's filter byte, then its bytes. */
    for (y = 0, prev = NULL; y < m->height; y++) {
        unsigned char f = raw[y * (stride + 1)];
        row = raw + y * (stride + 1) + 1;
        for (x = 0; x < stride; x++) {
            int a = x >= bpp ? row[x - bpp] : 0, b = prev ? prev[x] : 0,
                c = prev && x >= bpp ? prev[x - bpp] : 0;
            row[x] = (unsigned char)(row[x] + (f == 1 ? a : f == 2 ? b
                     : f == 3 ? (a + b) / 2 : f == 4 ? cdp_paeth(a, b, c)
                     : 0));
        }
        if (f > 4)
            goto done;
        prev = row;
    }
    /* A 64 x 64 grid of samples is plenty to tell a drawing from a blank. */
    for (y = 0; y < 64; y++)
        for (x = 0; x < 64; x++) {
            unsigned char *px = raw + (size_t)(y * m->height / 64)
                                * (stride + 1) + 1
                                + (size_t)(x * m->width / 64) * bpp;
            uint32_t v = (uint32_t)px[0] << 16 | (uint32_t)px[1] << 8
                         | px[2];
            for (k = 0; k < ncol && seen[k] != v; k++)
                ;
            if (k == ncol) {
                seen[ncol] = v;
                counts[ncol++] = 0;
            }
            counts[k]++;
        }
    m->colours = ncol;
    for (k = 0; k < ncol; k++)
        if (counts[k] * 100 / 4096 > m->top_pct)
            m->top_pct = counts[k] * 100 / 4096;
    rc = 0;
done:
    free(raw);
    arb_buf_free(&z);
    return rc;
}

/* 1 when a screenshot of the page is w x h and a drawing: many colours,
 * none covering 90% of it (a blank or failed page is one colour); else 0
 * with what was seen printed, named `what`. */
static int
cdp_is_picture(cdp_t *c, unsigned w, unsigned h, const char *what)
{
    arb_buf_t png = ARB_BUF_INIT;
    cdp_png_t m;
    int       ok;

    ok = cdp_screenshot(c, &png) == 0
         && cdp_png_measure((const unsigned char *)png.data, png.len, &m)
            == 0;
    arb_buf_free(&png);
    if (!ok) {
        fprintf(stderr, "%s: no PNG: %s\n", what, c->err);
        return 0;
    }
    if (m.width != w || m.height != h || m.colours < 8 || m.top_pct >= 90) {
        fprintf(stderr, "%s: %ux%u (want %ux%u), %u colours, commonest "
                "%u%%\n", what, m.width, m.height, w, h, m.colours,
                m.top_pct);
        return 0;
    }
    return 1;
}

#endif
