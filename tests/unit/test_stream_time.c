/*
 * test_stream_time.c - JetStream's RFC 3339 times read as ns since the
 * epoch (proto/stream_time.h): the values (computed apart, by another
 * implementation of the calendar), and every malformed or out-of-range
 * time refused as 0, the ones that overflowed int64_t (year 9999) and
 * the ones sscanf + timegm took (a sign, a blank, February 31st) among
 * them.
 */
#include <stddef.h>

#include "proto/stream_time.h"
#include "tests/test.h"

int
main(void)
{
    static const struct { const char *t; long long ns; } ok[] = {
        { "2026-12-04T22:52:34.517123456Z", 1796424754517123456LL },
        { "1970-01-01T00:00:01Z", 1000000000LL },
        { "1970-01-01T00:00:00.000000001Z", 1LL },
        { "2000-02-29T12:00:00.5Z", 951825600500000000LL },
        { "2024-02-29T23:59:59.25Z", 1709251199250000000LL },
        { "2100-03-01T00:00:00Z", 4107542400000000000LL },
        { "2261-12-31T23:59:59.999999999Z", 9214646399999999999LL },
    };
    static const char *const bad[] = {
        "", "2026-12-04T22:52", "2026-12-04T22:52:34",
        "2026-12-04 22:52:34Z", "2026-12-04T22:52:34z",
        "2026-12-04T22:52:34Z ", "2026-12-04T22:52:34+00:00",
        "2026-12-04T22:52:34.Z", "2026-12-04T22:52:34.1234567890Z",
        "2026-12-04T22:52:34.5x", "-999-01-01T00:00:00Z",
        " 202-01-01T00:00:00Z", "+202-01-01T00:00:00Z",
        "2026-1-04T22:52:34Z", "2026-13-01T00:00:00Z",
        "2026-00-10T00:00:00Z", "2026-12-00T00:00:00Z",
        "2026-04-31T00:00:00Z", "2023-02-29T00:00:00Z",
        "2100-02-29T00:00:00Z", "2026-12-04T24:00:00Z",
        "2026-12-04T23:60:00Z", "2026-12-04T23:59:60Z",
        "1969-12-31T23:59:59Z", "1970-01-01T00:00:00Z",
        "2262-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z",
        /* each separator in its place (no test failed when only 'T'
         * was checked) */
        "2026/12-04T22:52:34Z", "2026-12/04T22:52:34Z",
        "2026-12-04T22.52:34Z", "2026-12-04T22:52.34Z",
    };
    size_t i;

    for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
        CHECK_INT(arb_stream_time_ns(ok[i].t), ok[i].ns);
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK_INT(arb_stream_time_ns(bad[i]), 0);
    CHECK_INT(arb_stream_time_ns(NULL), 0);
    return TEST_END();
}
