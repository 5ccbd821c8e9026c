#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "daemon/log.h"

int arb_log_level = ARB_LOG_INFO;

static const char *const names[] = { "error", "warn", "info", "debug" };

int
arb_log_parse_level(const char *s)
{
    int i;

    for (i = 0; i <= ARB_LOG_DEBUG; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

void
arb_log(int level, const char *fmt, ...)
{
    struct timespec ts;
    struct tm       tm;
    char            when[32];
    va_list         ap;

    if (level > arb_log_level)
        return;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
    fprintf(stderr, "%s.%03ldZ %s ", when, ts.tv_nsec / 1000000,
            names[level]);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}
