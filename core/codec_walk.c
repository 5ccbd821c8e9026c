/*
 * codec_walk.c - the in-place reader of canonical events.
 *
 * DESIGN: replay reads millions of stored events, nearly all moves, which
 * are canonical by construction; building a msgpack object tree and
 * re-encoding each one to prove it canonical (codec.c) costs several
 * times the event's judging.  This walker reads the bytes once and
 * refuses any form the encoder would not have written (a longer integer or
 * header than needed, a key out of order, a map count that disagrees with
 * the fields), so what it accepts re-encodes to itself by construction.
 * It never words an error: on the first doubt it returns -1 and the full
 * decoder decides.  test_codec checks both readers agree on every input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/codec.h"
#include "core/codec_int.h"
#include "core/limits.h"
#include "core/mp.h"

/* mem, when not NULL, receives the strings and the args array instead
 * of malloc (arb_event_decode_scratch): room for ARGS_ROOM pointers, then
 * the strings with their NULs, never more than twice the event's length
 * (every string has at least a one-byte header). */
typedef struct rd {
    const unsigned char *p, *end;
    char                *mem;
    size_t               used;
} rd_t;

#define ARGS_ROOM 16    /* a fixarray holds 15 at most */

static int
need(const rd_t *r, size_t n)
{
    return (size_t)(r->end - r->p) >= n ? 0 : -1;
}

/* An unsigned integer in its shortest form (msgpack-c's packers). */
static int
rd_uint(rd_t *r, uint64_t *out)
{
    static const uint64_t least[4] = { 0x80, 0x100, 0x10000, 0x100000000u };
    unsigned              c;
    int                   w;

    if (need(r, 1) != 0)
        return -1;
    c = *r->p++;
    if (c <= 0x7f) {
        *out = c;
        return 0;
    }
    if (c < 0xcc || c > 0xcf)
        return -1;
    w = 1 << (c - 0xcc);
    if (need(r, (size_t)w) != 0)
        return -1;
    *out = arb_load_be(r->p, w);
    r->p += w;
    return *out >= least[c - 0xcc] ? 0 : -1;
}

/* A str in its shortest header, within the codec's limits, without NUL
 * and in UTF-8 (arb_mp_str's and arb_event_check's rules). */
static int
rd_str(rd_t *r, const unsigned char **s, size_t *n)
{
    unsigned c;

    if (need(r, 1) != 0)
        return -1;
    c = *r->p++;
    if ((c & 0xe0) == 0xa0) {
        *n = c & 0x1f;
    } else if (c == 0xd9 && need(r, 1) == 0) {
        *n = r->p[0];
        r->p += 1;
        if (*n < 32)
            return -1;
    } else if (c == 0xda && need(r, 2) == 0) {
        *n = (size_t)arb_load_be(r->p, 2);
        r->p += 2;
        if (*n < 256)
            return -1;
    } else {
        return -1;      /* str32 is over ARB_STR_MAX anyway */
    }
    if (*n > ARB_STR_MAX || need(r, *n) != 0
        || !arb_mp_text_valid((const char *)r->p, *n))
        return -1;
    *s = r->p;
    r->p += *n;
    return 0;
}

static char *
dup_str(rd_t *r)
{
    const unsigned char *s;
    size_t               n;
    char                *d;

    if (rd_str(r, &s, &n) != 0)
        return NULL;
    if (r->mem != NULL) {
        d = r->mem + r->used;
        r->used += n + 1;
    } else if ((d = malloc(n + 1)) == NULL) {
        return NULL;
    }
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

/* The keys' lengths (test_codec checks them against arb__ev_keys). */
const unsigned char arb__ev_key_len[EK_N] = { 1, 4, 3, 4, 5, 3, 6, 4, 4, 6,
                                              4, 5 };

/* The key after key number `last`, as a fixstr. */
static int
rd_key(rd_t *r, int last)
{
    const unsigned char *s;
    size_t               n, i;
    int                  k;

    /* A key is a short fixstr of ASCII: no NUL scan, and its length and
     * first byte rule out most candidates before a comparison (a few
     * bytes: a loop, not a call). */
    if (need(r, 1) != 0 || (*r->p & 0xe0) != 0xa0)
        return -1;
    n = *r->p++ & 0x1f;
    if (n == 0 || need(r, n) != 0)
        return -1;
    s = r->p;
    r->p += n;
    for (k = last + 1; k < EK_N; k++) {
        if (arb__ev_key_len[k] != n || arb__ev_keys[k][0] != (char)s[0])
            continue;
        for (i = 1; i < n && arb__ev_keys[k][i] == (char)s[i]; i++)
            ;
        if (i == n)
            return k;
    }
    return -1;
}

static int walk(arb_event_t *ev, const unsigned char *p, size_t len,
                char *mem);

static int
rd_args(rd_t *r, arb_event_t *ev)
{
    unsigned c;
    size_t   n, i;

    if (need(r, 1) != 0)
        return -1;
    c = *r->p++;
    if ((c & 0xf0) != 0x90)
        return -1;      /* 16 and more (array16): the full decoder's */
    n = c & 0x0f;
    if (n == 0 || n > ARB_ARGS_MAX)
        return -1;
    ev->args = r->mem != NULL ? (char **)(void *)r->mem
                              : calloc(n, sizeof(*ev->args));
    if (ev->args == NULL)
        return -1;
    for (i = 0; i < n; i++) {
        ev->args[i] = dup_str(r);
        if (ev->args[i] == NULL)
            return -1;
        ev->nargs++;
    }
    return 0;
}

int
arb__event_walk(arb_event_t *ev, const unsigned char *p, size_t len)
{
    return walk(ev, p, len, NULL);
}

size_t
arb__event_walk_room(size_t len)
{
    return ARGS_ROOM * sizeof(char *) + 2 * len + 1;
}

int
arb__event_walk_in(arb_event_t *ev, const unsigned char *p, size_t len,
                   char *mem)
{
    return walk(ev, p, len, mem);
}

static int
walk(arb_event_t *ev, const unsigned char *p, size_t len, char *mem)
{
    rd_t           r = { p, p + len, mem, ARGS_ROOM * sizeof(char *) };
    const unsigned char *s;
    uint64_t       u;
    size_t         n, i, sn;
    int            k = -1, seen[EK_N] = { 0 };

    memset(ev, 0, sizeof(*ev));
    if (len == 0 || (*r.p & 0xf0) != 0x80)
        goto fail;
    n = *r.p++ & 0x0f;
    for (i = 0; i < n; i++) {
        k = rd_key(&r, k);
        if (k < 0)
            goto fail;
        seen[k] = 1;
        switch (k) {
        case EK_V:
            if (rd_uint(&r, &u) != 0 || u != ARB_EVENT_VERSION)
                goto fail;
            break;
        case EK_KIND:
            if (rd_str(&r, &s, &sn) != 0)
                goto fail;
            ev->kind = arb_event_kind_parse_n((const char *)s, sn);
            if (ev->kind < 0)
                goto fail;
            break;
        case EK_SEQ:
            if (rd_uint(&r, &ev->seq) != 0)
                goto fail;
            break;
        case EK_TIME:
            if (rd_uint(&r, &u) != 0 || u == 0 || u > INT64_MAX)
                goto fail;
            ev->time_ms = (int64_t)u;
            break;
        case EK_ACTOR:
            if ((ev->actor = dup_str(&r)) == NULL)
                goto fail;
            break;
        case EK_CID:
            if ((ev->client_id = dup_str(&r)) == NULL)
                goto fail;
            break;
        case EK_PLAYER:
            if ((ev->player = dup_str(&r)) == NULL)
                goto fail;
            break;
        case EK_VERB:
            if ((ev->verb = dup_str(&r)) == NULL)
                goto fail;
            break;
        case EK_ARGS:
            if (rd_args(&r, ev) != 0)
                goto fail;
            break;
        case EK_TARGET:
            if (rd_uint(&r, &ev->target) != 0)
                goto fail;
            break;
        case EK_TEXT:
            if ((ev->text = dup_str(&r)) == NULL)
                goto fail;
            break;
        default:
            goto fail;      /* a setup: the full decoder's */
        }
    }
    if (r.p != r.end || !seen[EK_V] || !seen[EK_KIND] || !seen[EK_SEQ]
        || seen[EK_TARGET] != arb_event_takes_target(ev->kind)
        || arb__event_check_walked(ev) != 0)
        goto fail;
    return 0;

fail:
    if (mem != NULL)
        memset(ev, 0, sizeof(*ev));     /* nothing of it is allocated */
    else
        arb_event_clear(ev);
    return -1;
}
