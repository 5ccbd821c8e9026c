/*
 * log.c - text or JSON log lines on stderr (log.h).
 *
 * DESIGN: a line is built whole in a stack buffer and leaves with one
 * write(2), so journald or a collector reading the pipe gets whole lines
 * even when a worker thread logs at the same time, and logging never
 * allocates (it must work when memory has run out).  The JSON writer is
 * local and small because a log line may carry any byte (a client's id,
 * an OS message): every string is escaped as RFC 8259 asks and bytes that
 * are not UTF-8 become U+FFFD, so each line always parses.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

/* Length of the valid UTF-8 sequence at p (RFC 3629: no overlongs, no
 * surrogates, nothing past U+10FFFF), or 0. */
static size_t
utf8_len(const unsigned char *p)
{
    if (p[0] < 0x80)
        return 1;
    if (p[0] >= 0xc2 && p[0] <= 0xdf)
        return (p[1] & 0xc0) == 0x80 ? 2 : 0;
    if (p[0] >= 0xe0 && p[0] <= 0xef) {
        if ((p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80 ||
            (p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] > 0x9f))
            return 0;
        return 3;
    }
    if (p[0] >= 0xf0 && p[0] <= 0xf4) {
        if ((p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80 ||
            (p[3] & 0xc0) != 0x80 || (p[0] == 0xf0 && p[1] < 0x90) ||
            (p[0] == 0xf4 && p[1] > 0x8f))
            return 0;
        return 4;
    }
    return 0;
}

/* A JSON string; leaves room for the line's closing characters. */
static void
put_jstr(line_t *l, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    char                 esc[8];
    size_t               k;

    puts_(l, "\"");
    while (*p != '\0' && l->n < sizeof(l->b) - 16) {
        if (*p == '"' || *p == '\\') {
            esc[0] = '\\';
            esc[1] = (char)*p;
            put(l, esc, 2);
            p++;
        } else if (*p < 0x20 || *p == 0x7f) {
            snprintf(esc, sizeof(esc), "\\u%04x", *p);
            puts_(l, *p == '\n' ? "\\n" : *p == '\t' ? "\\t" : esc);
            p++;
        } else if ((k = utf8_len(p)) == 0) {
            puts_(l, "\\ufffd");
            p++;
        } else {
            put(l, (const char *)p, k);
            p += k;
        }
    }
    puts_(l, "\"");
}

static void
put_key(line_t *l, const char *k)
{
    puts_(l, ",\"");
    puts_(l, k);
    puts_(l, "\":");
}

static void
put_u64(line_t *l, uint64_t v, int present)
{
    char num[24];

    if (!present) {
        puts_(l, "null");
        return;
    }
    snprintf(num, sizeof(num), "%llu", (unsigned long long)v);
    puts_(l, num);
}

static void
put_opt_str(line_t *l, const char *s)
{
    if (s == NULL)
        puts_(l, "null");
    else
        put_jstr(l, s);
}

static void
put_time(line_t *l)
{
    struct timespec ts;
    struct tm       tm;
    char            when[32], ms[8];

    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(ms, sizeof(ms), ".%03dZ", (int)(ts.tv_nsec / 1000000) % 1000);
    puts_(l, when);
    puts_(l, ms);
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
emit(int level, const char *event, const arb_log_ctx_t *ctx, const char *msg)
{
    line_t        l;
    arb_log_ctx_t c;
    char          ident[128];
    ssize_t       w;
    size_t        off;

    l.n = 0;
    if (arb_log_format == ARB_LOG_TEXT) {
        put_time(&l);
        puts_(&l, " ");
        puts_(&l, names[level]);
        puts_(&l, " ");
        puts_(&l, msg);
    } else {
        memset(&c, 0, sizeof(c));
        if (ctx != NULL)
            c = *ctx;
        if (event == NULL) {
            event = parse_conn(msg, &c, ident, sizeof(ident));
            if (event == NULL)
                event = classify(msg);
        }
        puts_(&l, "{\"time\":\"");
        put_time(&l);
        puts_(&l, "\",\"level\":\"");
        puts_(&l, names[level]);
        puts_(&l, "\"");
        put_key(&l, "event");
        put_jstr(&l, event);
        put_key(&l, "connection");
        put_u64(&l, c.conn, c.conn != 0);
        put_key(&l, "identity");
        put_opt_str(&l, c.identity);
        put_key(&l, "match");
        put_opt_str(&l, c.match);
        put_key(&l, "seq");
        put_u64(&l, c.seq, c.has_seq);
        put_key(&l, "msg");
        /* the message gives way first when the line is too long */
        if (l.n > sizeof(l.b) - 64)
            puts_(&l, "\"\"");
        else
            put_jstr(&l, msg);
        puts_(&l, "}");
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
