/*
 * stream_subjects.c - the stream's subjects and their message counts,
 * read page by page (arb_stream_subjects in proto/stream.h).
 *
 * DESIGN: nats-server 2.9.10 answers a stream info request with a
 * subjects filter in pages of at most 100,000 subjects, saying "total",
 * "offset" and "limit"; the request takes an "offset".  libnats 3.4.1's
 * js_GetStreamInfo does follow the pages, but its JSON parser took 24 s
 * for one list of 100,100 subjects of our form (arbiter.ev.p<n>) on this
 * kind of machine, against under a second for the server to answer.  The
 * fence look before the first write reads this list, so we ask for the
 * pages ourselves and read the "subjects" map of each with the small
 * scanner below: keys and counts only, bounded by the reply's length.
 * A page that lists nothing ends the reading, whatever "total" says (a
 * subject removed meanwhile shortens the list).
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "proto/stream.h"

/* The reply's text from p, not past end: the value of number field
 * `"name":`, or 0 when absent. */
static uint64_t
num_field(const char *p, const char *end, const char *name)
{
    size_t      n = strlen(name);
    const char *q;
    uint64_t    v = 0;

    for (q = p; q + n <= end; q++)
        if (memcmp(q, name, n) == 0)
            break;
    if (q + n > end)
        return 0;
    for (q += n; q < end && *q >= '0' && *q <= '9'; q++)
        v = v * 10 + (uint64_t)(*q - '0');
    return v;
}

/* Where needle starts in [p, end), or NULL. */
static const char *
find(const char *p, const char *end, const char *needle)
{
    size_t n = strlen(needle);

    for (; p + n <= end; p++)
        if (memcmp(p, needle, n) == 0)
            return p;
    return NULL;
}

/* One JSON string at *pp (after its opening quote) into out; escapes of
 * ASCII characters are decoded.  1 when it fits out and is plain ASCII,
 * 0 when it is skipped (too long, other escapes), -1 when malformed.
 * *pp ends past the closing quote. */
static int
json_key(const char **pp, const char *end, char *out, size_t cap)
{
    const char *p = *pp;
    size_t      n = 0;
    int         ok = 1;

    while (p < end && *p != '"') {
        unsigned c = (unsigned char)*p++;

        if (c == '\\') {
            if (p >= end)
                return -1;
            c = (unsigned char)*p++;
            if (c == 'u') {
                char hex[5];
                int  i;

                if (end - p < 4)
                    return -1;
                /* strtoul takes a sign and blanks: four hex digits are
                 * checked here, or "\u+041" passed for 'A' */
                for (i = 0; i < 4; i++)
                    if (!isxdigit((unsigned char)p[i]))
                        return -1;
                memcpy(hex, p, 4);
                hex[4] = '\0';
                c = (unsigned)strtoul(hex, NULL, 16);
                p += 4;
                if (c == 0 || c >= 0x80)
                    ok = 0;
            } else if (c != '"' && c != '\\' && c != '/') {
                ok = 0;
            }
        }
        if (n + 1 < cap)
            out[n++] = (char)c;
        else
            ok = 0;
    }
    if (p >= end)
        return -1;
    out[n] = '\0';
    *pp = p + 1;
    return ok;
}

int
arb_stream_subjects_page(const char *reply, size_t len,
                         arb_stream_subject_cb cb, void *ud, uint64_t *total,
                         uint64_t *listed, arb_buf_t *why)
{
    const char *p = reply, *end = reply + len, *head;
    char        key[512];
    int         rc;

    *listed = 0;
    *total = 0;
    /* The server writes type, total, offset, limit, then config (strings
     * an operator chose), created, state (the subjects, strings any
     * publisher chose): each field is looked for where it belongs, so
     * that no string can pass for it. */
    head = find(p, end, "\"config\":{");
    if (head == NULL)
        head = end;
    if (find(p, head, "\"error\":{") != NULL) {
        jsErrCode jerr = (jsErrCode)num_field(p, head, "\"err_code\":");

        return arb_stream_err(NATS_ERR, jerr, "stream info", why);
    }
    *total = num_field(p, head, "\"total\":");
    if ((p = find(head, end, "\"created\":")) == NULL
        || (p = find(p, end, "\"state\":{")) == NULL)
        goto bad;
    if ((p = find(p, end, "\"subjects\":{")) == NULL)
        return 0;                       /* nothing on the page */
    p += strlen("\"subjects\":{");
    for (;;) {
        uint64_t v = 0;
        int      k;

        while (p < end && (*p == ' ' || *p == ','))
            p++;
        if (p < end && *p == '}')
            return 0;
        if (p >= end || *p != '"')
            break;
        p++;
        if ((k = json_key(&p, end, key, sizeof(key))) < 0)
            break;
        if (p >= end || *p++ != ':' || p >= end || *p < '0' || *p > '9')
            break;
        /* v * 10 + the digit below 2^64 (2^64 was read as 0) */
        for (; p < end && *p >= '0' && *p <= '9'
               && v <= (UINT64_MAX - (uint64_t)(*p - '0')) / 10; p++)
            v = v * 10 + (uint64_t)(*p - '0');
        if (p < end && *p >= '0' && *p <= '9')
            break;                      /* past 2^64 */
        (*listed)++;
        if (k == 1 && (rc = cb(ud, key, v)) != 0)
            return rc;
    }
bad:
    if (why != NULL) {
        why->len = 0;
        arb_buf_puts(why, "nats: stream info: a subjects list we cannot "
                     "read");
    }
    return ARB_EPROTO;
}

int
arb_stream_subjects(arb_stream_t *st, const char *filter,
                    arb_stream_subject_cb cb, void *ud, arb_buf_t *why)
{
    char        api[64 + ARB_STREAM_NAME_MAX], req[600];
    uint64_t    offset = 0, total, listed;
    natsMsg    *reply = NULL;
    natsStatus  s;
    int         rc = 0;

    if (strlen(filter) > 500 || strpbrk(filter, "\"\\") != NULL)
        return ARB_EINVAL;
    snprintf(api, sizeof(api), "$JS.API.STREAM.INFO.%s", st->name);
    for (;;) {
        const char *d;
        int         len;

        snprintf(req, sizeof(req), "{\"subjects_filter\":\"%s\",\"offset\":"
                 "%" PRIu64 "}", filter, offset);
        s = natsConnection_RequestString(&reply, st->nc, api, req,
                                         st->timeout_ms > 0 ? st->timeout_ms
                                                            : 2000);
        if (s != NATS_OK)
            return arb_stream_err(s, 0, "stream info", why);
        d = natsMsg_GetData(reply);
        len = natsMsg_GetDataLength(reply);
        rc = arb_stream_subjects_page(d != NULL ? d : "", d != NULL && len > 0
                                      ? (size_t)len : 0, cb, ud, &total,
                                      &listed, why);
        natsMsg_Destroy(reply);
        reply = NULL;
        if (rc != 0 || listed == 0)
            break;
        offset += listed;
        if (offset >= total)
            break;
    }
    return rc;
}
