/*
 * stream_time.c - JetStream's RFC 3339 times (proto/stream_time.h).
 *
 * Not sscanf + timegm: "%4d" takes a sign and leading blanks, timegm
 * takes the 31st of February (and reads the process's notion of time
 * zones), and year 9999 times 10^9 overflows int64_t.  The layout is
 * fixed, so each digit is read where it must be, and the day count is
 * computed here (days from the civil date, proleptic Gregorian).
 */
#include <stddef.h>
#include <stdint.h>

#include "proto/stream_time.h"

/* The number spelt by the n digits at t, or -1 when one is not a digit. */
static int
digits(const char *t, int n)
{
    int v = 0, i;

    for (i = 0; i < n; i++) {
        if (t[i] < '0' || t[i] > '9')
            return -1;
        v = v * 10 + (t[i] - '0');
    }
    return v;
}

static int
leap(int y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* Days from 1970-01-01 to y-m-d (y >= 1970). */
static int64_t
days_from_civil(int y, int m, int d)
{
    static const int before[12] = { 0, 31, 59, 90, 120, 151, 181, 212,
                                    243, 273, 304, 334 };
    int64_t days = 0;
    int     yy;

    /* The whole years from 1970 (at most 291: a time is read at most a
     * few times a second), then the days of y before m-d. */
    for (yy = 1970; yy < y; yy++)
        days += 365 + leap(yy);
    return days + before[m - 1] + (m > 2 && leap(y)) + d - 1;
}

int64_t
arb_stream_time_ns(const char *t)
{
    static const int mdays[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31,
                                   30, 31 };
    int     y, mo, d, h, mi, s, i;
    int64_t frac = 0, scale = 1000000000, ns;

    if (t == NULL)
        return 0;
    for (i = 0; i < 19; i++)
        if (t[i] == '\0')
            return 0;
    if (t[4] != '-' || t[7] != '-' || t[10] != 'T' || t[13] != ':'
        || t[16] != ':')
        return 0;
    y = digits(t, 4);
    mo = digits(t + 5, 2);
    d = digits(t + 8, 2);
    h = digits(t + 11, 2);
    mi = digits(t + 14, 2);
    s = digits(t + 17, 2);
    /* 2262-04-11 is the last day 64 bits of ns reach: the year before is
     * the last one taken whole.  A leap second (:60) is not taken: Go
     * never writes one. */
    if (y < 1970 || y > 2261 || mo < 1 || mo > 12 || d < 1
        || d > mdays[mo - 1] + (mo == 2 && leap(y)) || h < 0 || h > 23
        || mi < 0 || mi > 59 || s < 0 || s > 59)
        return 0;
    t += 19;
    if (*t == '.') {
        for (t++, i = 0; *t >= '0' && *t <= '9'; t++, i++) {
            if (i == 9)
                return 0;
            scale /= 10;
            frac += (*t - '0') * scale;
        }
        if (i == 0)
            return 0;
    }
    if (t[0] != 'Z' || t[1] != '\0')
        return 0;
    ns = ((days_from_civil(y, mo, d) * 24 + h) * 60 + mi) * 60 + s;
    ns = ns * 1000000000 + frac;
    return ns > 0 ? ns : 0;
}
