/*
 * log.c - text or JSON log lines on stderr (log.h).
 *
 * DESIGN: a line is built whole in a stack buffer and leaves with one
 * write(2), so journald or a collector reading the pipe gets whole lines
 * even when a worker thread logs at the same time.  A JSON line is a
 * Jansson object dumped compactly into that buffer (core/json.h: keys in
 * order, bytes that are not UTF-8 become U+FFFD, control characters
 * escaped), so each line parses and never holds a raw newline; a message
 * too long for the buffer is cut until the line fits.  Building the
 * object allocates: when memory has run out the line still leaves, with
 * its time, level and event but the message replaced by "out of memory"
 * (a fixed text that needs no escaping).  A text line is one line too:
 * its message goes through arb_text_clean (core/text.h), so a newline or
 * an escape sequence from outside (a name a client sent, a stream's
 * message) can neither forge a line of its own in the log nor drive the
 * terminal that tails it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/json.h"
#include "core/text.h"
#include "daemon/log.h"

#define LINE_MAX_ 8192

int arb_log_level = ARB_LOG_INFO;
int arb_log_format = ARB_LOG_TEXT;

static const char *const names[] = { "error", "warn", "info", "debug" };
static const char *const formats[] = { "text", "json" };

/* The events of lines logged without one, found from their message
 * (first match wins).  New code names its event with arb_log_ev(); this
 * table keeps the alert events stable for the calls that do not yet. */
static const struct {
    const char *needle;
    const char *event;
} classes[] = {
    { "commit failed", "commit_failed" },
    { "storage full", "storage_full" },
    { "bad token", "auth_failed" },
    { "no auth within", "auth_timeout" },
    { "cannot keep up", "subscriber_cut" },
    { "catch-up read failed", "subscriber_failed" },
    { "bytes pending, over", "client_cut" },
    { "bad frame header", "frame_refused" },
    { "closed mid-frame", "client_truncated" },
    { "tokens not reloaded", "reload_failed" },
    { "tokens loaded", "reload" },
    { "not loopback", "listen_insecure" },
    { "listening on", "listening" },
    { "signing key", "signing_key" },
    { "stopping:", "stopping" },
    { "out of memory", "out_of_memory" },
    { "cannot start", "start_failed" },
    { ": accepted", "conn_accepted" },
    { ": closed", "conn_closed" },
    { ": read:", "conn_error" },
    { ": write:", "conn_error" },
    { "accept:", "accept_failed" },
    { "no tokens", "tokens" },
    { "stale readers cleared", "store_opened" },
    { "connect with:", "hint" },
    { "signal ", "signal" },
};

static int
lookup(const char *const *v, int n, const char *s)
{
    int i;

    for (i = 0; i < n; i++)
        if (strcmp(s, v[i]) == 0)
            return i;
    return -1;
}

int
arb_log_parse_level(const char *s)
{
    return lookup(names, ARB_LOG_DEBUG + 1, s);
}

int
arb_log_parse_format(const char *s)
{
    return lookup(formats, ARB_LOG_JSON + 1, s);
}

typedef struct line {
    char   b[LINE_MAX_];
    size_t n;
} line_t;

static void
put(line_t *l, const char *s, size_t n)
{
    if (n > sizeof(l->b) - 1 - l->n)
        n = sizeof(l->b) - 1 - l->n;
    memcpy(l->b + l->n, s, n);
    l->n += n;
}

static void
puts_(line_t *l, const char *s)
{
    put(l, s, strlen(s));
}

/* Now, as 2026-11-30T10:00:00.123Z. */
static void
now_iso(char when[32])
{
    struct timespec ts;
    struct tm       tm;
    size_t          n;

    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    n = strftime(when, 32, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(when + n, 32 - n, ".%03dZ",
             (int)(ts.tv_nsec / 1000000) % 1000);
}

/* A known number, or null. */
static json_t *
num_or_null(uint64_t v, int present)
{
    return present ? json_integer((json_int_t)v) : json_null();
}

/* The JSON line into l (without its newline): the eight keys of log.h,
 * the message cut until the line fits. */
static void
json_line(line_t *l, int level, const char *event, const arb_log_ctx_t *c,
          const char *when, char *msg)
{
    json_t *o = json_object();
    size_t  n = 0, len = strlen(msg), room = sizeof(l->b) - 1;
    int     bad = 0;

    bad |= arb_json_set(o, "time", json_string(when));
    bad |= arb_json_set(o, "level", json_string(names[level]));
    bad |= arb_json_set(o, "event", arb_json_string(event));
    bad |= arb_json_set(o, "connection", num_or_null(c->conn, c->conn != 0));
    bad |= arb_json_set(o, "identity", arb_json_string_or_null(c->identity));
    bad |= arb_json_set(o, "match", arb_json_string_or_null(c->match));
    bad |= arb_json_set(o, "seq", num_or_null(c->seq, c->has_seq));
    bad |= arb_json_set(o, "msg", arb_json_string(msg));
    /* Every byte cut shortens the line by one at least. */
    while (!bad && (n = json_dumpb(o, l->b, room, JSON_COMPACT)) > room) {
        if (len == 0) {
            bad = 1;        /* too long without any message */
            break;
        }
        len = n - room < len ? len - (n - room) : 0;
        msg[len] = '\0';
        bad |= arb_json_set(o, "msg", arb_json_string(msg));
    }
    json_decref(o);
    if (!bad && n > 0) {
        l->n = n;
        return;
    }
    l->n = 0;
    puts_(l, "{\"time\":\"");
    puts_(l, when);
    puts_(l, "\",\"level\":\"");
    puts_(l, names[level]);
    puts_(l, "\",\"event\":\"");
    puts_(l, strspn(event, "abcdefghijklmnopqrstuvwxyz0123456789_")
             == strlen(event) ? event : "out_of_memory");
    puts_(l, "\",\"connection\":null,\"identity\":null,\"match\":null,"
          "\"seq\":null,\"msg\":\"out of memory\"}");
}

/* "conn N", "conn N (IDENTITY)" or "conn N: IDENTITY as ROLE" (the
 * authentication line, event "auth_ok") at the start of a message. */
static const char *
parse_conn(const char *msg, arb_log_ctx_t *ctx, char *ident, size_t cap)
{
    const char *p, *e;
    char       *end;

    if (strncmp(msg, "conn ", 5) != 0 || msg[5] < '0' || msg[5] > '9')
        return NULL;
    ctx->conn = strtoull(msg + 5, &end, 10);
    if (strncmp(end, " (", 2) == 0) {
        p = end + 2;
        e = strstr(p, "):");
    } else if (strncmp(end, ": ", 2) == 0 && (e = strstr(end + 2, " as "))
               != NULL && strchr(e + 4, ' ') == NULL &&
               memchr(end + 2, ' ', (size_t)(e - end - 2)) == NULL) {
        p = end + 2;
    } else {
        return NULL;
    }
    if (e == NULL || e == p || (size_t)(e - p) >= cap)
        return NULL;
    memcpy(ident, p, (size_t)(e - p));
    ident[e - p] = '\0';
    ctx->identity = ident;
    return e[0] == ' ' ? "auth_ok" : NULL;
}

static const char *
classify(const char *msg)
{
    size_t i;

    for (i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
        if (strstr(msg, classes[i].needle) != NULL)
            return classes[i].event;
    return "message";
}

static void
emit(int level, const char *event, const arb_log_ctx_t *ctx, char *msg)
{
    line_t        l;
    arb_log_ctx_t c;
    char          ident[128], when[32];
    ssize_t       w;
    size_t        off;

    l.n = 0;
    now_iso(when);
    if (arb_log_format == ARB_LOG_TEXT) {
        puts_(&l, when);
        puts_(&l, " ");
        puts_(&l, names[level]);
        puts_(&l, " ");
        /* Into the line's own buffer, after the prefix: cut to fit. */
        arb_text_clean_into(l.b + l.n, sizeof(l.b) - 1 - l.n, msg);
        if (l.b[l.n] == '\0' && msg[0] != '\0')
            puts_(&l, "out of memory");
        else
            l.n += strlen(l.b + l.n);
    } else {
        memset(&c, 0, sizeof(c));
        if (ctx != NULL)
            c = *ctx;
        if (event == NULL) {
            event = parse_conn(msg, &c, ident, sizeof(ident));
            if (event == NULL)
                event = classify(msg);
        }
        json_line(&l, level, event, &c, when, msg);
    }
    l.b[l.n++] = '\n';
    for (off = 0; off < l.n; off += (size_t)w) {
        w = write(STDERR_FILENO, l.b + off, l.n - off);
        if (w <= 0)
            break;      /* nowhere to report a failed log write */
    }
}

static void
vlog(int level, const char *event, const arb_log_ctx_t *ctx, const char *fmt,
     va_list ap)
{
    char msg[LINE_MAX_ / 2];

    if (level > arb_log_level)
        return;
    vsnprintf(msg, sizeof(msg), fmt, ap);
    emit(level, event, ctx, msg);
}

void
arb_log_ev(int level, const char *event, const arb_log_ctx_t *ctx,
           const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vlog(level, event, ctx, fmt, ap);
    va_end(ap);
}

void
arb_log(int level, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vlog(level, NULL, NULL, fmt, ap);
    va_end(ap);
}
