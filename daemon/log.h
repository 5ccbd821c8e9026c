/*
 * log.h - levelled logging to stderr, as text or as one JSON object per
 * line (log_format in arbiterd.conf; docs/OPERATIONS.md lists the events
 * an operator alerts on).
 *
 *   text: 2026-11-30T10:00:00.123Z warn conn 7: bad token
 *   json: {"time":"2026-11-30T10:00:00.123Z","level":"warn",
 *          "event":"auth_failed","connection":7,"identity":null,
 *          "match":null,"seq":null,"msg":"conn 7: bad token"}
 *
 * Every JSON line has all eight keys (null when unknown), is valid UTF-8
 * (bytes that are not become U+FFFD) and is written with one write(2),
 * so lines of concurrent writers never interleave.
 */
#ifndef ARB_LOG_H
#define ARB_LOG_H

#include <stdint.h>

enum { ARB_LOG_ERROR = 0, ARB_LOG_WARN, ARB_LOG_INFO, ARB_LOG_DEBUG };
enum { ARB_LOG_TEXT = 0, ARB_LOG_JSON };

extern int arb_log_level;
extern int arb_log_format;      /* ARB_LOG_TEXT or ARB_LOG_JSON */

int  arb_log_parse_level(const char *s);     /* level or -1 */
int  arb_log_parse_format(const char *s);    /* format or -1 */

/* What a log line is about; zero / NULL fields are unknown. */
typedef struct arb_log_ctx {
    uint64_t    conn;           /* connection number, 0 = none */
    const char *identity;
    const char *match;
    uint64_t    seq;
    int         has_seq;
} arb_log_ctx_t;

/* A line with a stable event name (docs/OPERATIONS.md) and what it is
 * about (ctx may be NULL). */
void arb_log_ev(int level, const char *event, const arb_log_ctx_t *ctx,
                const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A line without an explicit event: in JSON its event is found from the
 * message (see log.c) and a leading "conn N" / "conn N (IDENTITY)" fills
 * connection and identity. */
void arb_log(int level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
