/*
 * event_json.c - see event_json.h.  Written through Jansson (core/json.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/codec.h"
#include "core/err.h"
#include "core/event_json.h"
#include "core/hash.h"
#include "core/json.h"
#include "core/text.h"
#include "core/transcript.h"

void
arb_iso_time(char out[32], int64_t ms)
{
    struct tm tm;
    time_t    s;
    char      tmp[96];      /* what the compiler can prove fits */
    size_t    n;

    if (ms <= 0) {
        snprintf(out, 32, "-");
        return;
    }
    s = (time_t)(ms / 1000);
    if (gmtime_r(&s, &tm) == NULL) {
        snprintf(out, 32, "%" PRId64, ms);
        return;
    }
    snprintf(tmp, sizeof(tmp), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
             tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
             tm.tm_min, tm.tm_sec, (int)(ms % 1000));
    n = strlen(tmp) < 31 ? strlen(tmp) : 31;
    memcpy(out, tmp, n);
    out[n] = '\0';
}

/* ---- reading an ISO 8601 time ----------------------------------------- */

static int
digits(const char **p, int n, int *out)
{
    int i;

    *out = 0;
    for (i = 0; i < n; i++) {
        if ((*p)[i] < '0' || (*p)[i] > '9')
            return -1;
        *out = *out * 10 + ((*p)[i] - '0');
    }
    *p += n;
    return 0;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant). */
static int64_t
days_from_civil(int64_t y, int m, int d)
{
    int64_t  era;
    unsigned yoe, doy, doe;

    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = (unsigned)(y - era * 400);
    doy = (unsigned)((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1);
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

int
arb_iso_time_parse(const char *s, int end, int64_t *out)
{
    static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31,
                                 30, 31 };
    const char *p = s;
    int         y, mo, d, h = 0, mi = 0, sec = 0, ms = 0, tzh = 0, tzm = 0;
    int         sign = 0, has_time = 0, k;

    if (digits(&p, 4, &y) || *p++ != '-' || digits(&p, 2, &mo)
        || *p++ != '-' || digits(&p, 2, &d))
        goto bad;
    if (*p == 'T' || *p == ' ') {
        p++;
        has_time = 1;
        if (digits(&p, 2, &h) || *p++ != ':' || digits(&p, 2, &mi))
            goto bad;
        if (*p == ':') {
            p++;
            if (digits(&p, 2, &sec))
                goto bad;
            if (*p == '.') {
                for (p++, k = 0; k < 3 && *p >= '0' && *p <= '9'; k++, p++)
                    ms = ms * 10 + (*p - '0');
                if (k == 0)
                    goto bad;
                for (; k < 3; k++)
                    ms *= 10;
            }
        }
    }
    if (*p == 'Z') {
        p++;
    } else if (has_time && (*p == '+' || *p == '-')) {
        sign = *p++ == '+' ? 1 : -1;
        if (digits(&p, 2, &tzh) || *p++ != ':' || digits(&p, 2, &tzm)
            || tzh > 23 || tzm > 59)
            goto bad;
    }
    if (*p != '\0' || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1]
        || h > 23 || mi > 59 || sec > 59)
        goto bad;
    *out = ((days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec)
            - sign * (tzh * 3600 + tzm * 60)) * 1000 + ms;
    if (!has_time && end)
        *out += 86400000 - 1;
    return 0;
bad:
    return -1;
}

static void
open_line(arb_buf_t *out, const arb_event_t *ev)
{
    const arb_setup_t *s = ev->setup;
    size_t             i;
    /* The header is several transcript lines; one line keeps the listing
     * one event per line. */
    arb_buf_printf(out, "open game: %s; players:", s->game);
    for (i = 0; i < s->nplayers; i++) {
        arb_buf_printf(out, " %s", s->players[i].name);
        if (s->players[i].team >= 0 && (size_t)s->players[i].team < s->nteams)
            arb_buf_printf(out, ":%s", s->teams[s->players[i].team]);
    }
    for (i = 0; i < s->noptions; i++)
        arb_buf_printf(out, "; %s: %s", s->options[i].key,
                       s->options[i].value);
    if (s->deal.kind != ARB_DEAL_NONE)
        arb_buf_printf(out, "; deal: %s", s->deal.kind == ARB_DEAL_ORDER
                       ? "order" : s->deal.kind == ARB_DEAL_SEED ? "seed"
                       : "commit");
    /* The commitment is public and what a reveal is checked against: the
     * listing shows it as the transcript does (docs/DEAL.md). */
    if (s->deal.kind == ARB_DEAL_COMMIT) {
        char hex[ARB_HASH_HEX];

        arb_hex(hex, s->deal.seed_hash, ARB_HASH_LEN);
        arb_buf_printf(out, " %s", hex);
    }
}

void
arb_event_line(arb_buf_t *out, const arb_event_t *ev)
{
    arb_buf_t line = ARB_BUF_INIT;

    if (ev->kind != ARB_EV_OPEN || ev->setup == NULL) {
        arb_transcript_event_line(out, ev);     /* escaped there */
        return;
    }
    /* Recorded before 2026-12-05, an open's option may hold a control
     * character (core/text.h): the line shows it escaped, never raw. */
    open_line(&line, ev);
    if (line.oom)
        out->oom = 1;
    else
        arb_text_clean(out, line.data, line.len, 0);
    arb_buf_free(&line);
}

int
arb_event_json(arb_buf_t *out, const char *match, uint64_t seq,
               int64_t time_ms, const unsigned char *hash,
               const arb_event_t *ev)
{
    return arb_json_put_new(out, arb_event_json_value(match, seq, time_ms,
                                                      hash, ev)) != 0
           ? ARB_ENOMEM : 0;
}

json_t *
arb_event_json_value(const char *match, uint64_t seq, int64_t time_ms,
                     const unsigned char *hash, const arb_event_t *ev)
{
    arb_buf_t line = ARB_BUF_INIT;
    json_t   *o = json_object();
    char      iso[32], hex[ARB_HASH_HEX];
    int       i, rc = 0;

    arb_iso_time(iso, time_ms);
    arb_event_line(&line, ev);
    if (hash != NULL)
        for (i = 0; i < ARB_HASH_LEN; i++)
            snprintf(hex + 2 * i, 3, "%02x", hash[i]);
    if (match != NULL)
        rc |= arb_json_set(o, "match", arb_json_string(match));
    rc |= arb_json_set(o, "seq", json_integer((json_int_t)seq));
    rc |= arb_json_set(o, "time", arb_json_string(iso));
    rc |= arb_json_set(o, "time_ms", json_integer((json_int_t)time_ms));
    rc |= arb_json_set(o, "actor", arb_json_string_or_null(ev->actor));
    rc |= arb_json_set(o, "kind",
                       arb_json_string(arb_event_kind_name(ev->kind)));
    rc |= arb_json_set(o, "line", arb_json_string(arb_buf_cstr(&line)));
    /* The seq a void or amend rules on, as a number: a page need not
     * parse it out of the line. */
    if (arb_event_takes_target(ev->kind))
        rc |= arb_json_set(o, "target", json_integer((json_int_t)
                                                     ev->target));
    rc |= arb_json_set(o, "hash", hash != NULL ? arb_json_string(hex)
                                               : json_null());
    if (line.oom)
        rc = -1;
    arb_buf_free(&line);
    if (rc != 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}
