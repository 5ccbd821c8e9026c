/*
 * stream_time.h - the times JetStream's API writes ("2026-12-04T22:52:
 * 34.517123456Z": Go's RFC 3339 with up to nine digits of fraction, in
 * UTC), read as nanoseconds since the epoch.  The text comes from a
 * server: every field is checked, and a time past what 64 bits of
 * nanoseconds hold (2262) is refused rather than overflowed.
 */
#ifndef ARB_PROTO_STREAM_TIME_H
#define ARB_PROTO_STREAM_TIME_H

#include <stdint.h>

/* t's time in ns since 1970-01-01T00:00:00Z: 1 ns and up; 0 when t is
 * NULL or not such a time (another layout, another zone than "Z", a
 * field out of range, a day the month lacks, before 1970 or after
 * 2261). */
int64_t arb_stream_time_ns(const char *t);

#endif
