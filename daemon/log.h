/* log.h - levelled logging to stderr: "2026-11-30T10:00:00.123Z info ..." */
#ifndef ARB_LOG_H
#define ARB_LOG_H

enum { ARB_LOG_ERROR = 0, ARB_LOG_WARN, ARB_LOG_INFO, ARB_LOG_DEBUG };

extern int arb_log_level;

int  arb_log_parse_level(const char *s);     /* level or -1 */
void arb_log(int level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
