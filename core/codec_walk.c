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
 * decoder decides.  An open's setup is read too, into allocated memory
 * (through the tree, the 0.7% of events that are opens took a tenth of
 * `replay --db`).  test_codec checks both readers agree on every input.
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
 * the strings with their NULs, never more than the event's length (every
 * string has at least a one-byte header), and 8 bytes past the last one
 * for dup_str's word copies (arb__event_walk_room gives twice that). */
typedef struct rd {
    const unsigned char *p, *end;
    char                *mem;
    size_t               used;
} rd_t;

#define ARGS_ROOM 16    /* a fixarray holds 15 at most */

/*
 * Short strings at once.  The keys and kinds are fixstrs of at most six
 * ASCII bytes, so a key as the encoder writes it (header and bytes) fits
 * in a word, and most values (a player, a verb, a card) fit in the 8
 * bytes after their header.  Where 8 bytes remain, one load and a mask
 * compare or check them; near the end the byte-wise paths do.
 * test_codec checks both tables against arb__ev_keys and the kind names.
 */
#define FIX(n, a, b, c, d, e, f)                                          \
    ((uint64_t)(0xa0 | (n)) | (uint64_t)(a) << 8 | (uint64_t)(b) << 16   \
     | (uint64_t)(c) << 24 | (uint64_t)(d) << 32 | (uint64_t)(e) << 40    \
     | (uint64_t)(f) << 48)
/* The low bytes of a word that a fixstr of n (< 7) bytes covers. */
#define FIX_MASK(n, a, b, c, d, e, f) (~(uint64_t)0 >> (56 - 8 * (n)))
#define FIX_WORD(...) FIX(__VA_ARGS__),
#define FIX_MASKS(...) FIX_MASK(__VA_ARGS__),

/* The keys in canonical order, each as FIX's arguments. */
#define EV_KEYS(X)                                                        \
    X(1, 'v', 0, 0, 0, 0, 0)         X(4, 'k', 'i', 'n', 'd', 0, 0)       \
    X(3, 's', 'e', 'q', 0, 0, 0)     X(4, 't', 'i', 'm', 'e', 0, 0)       \
    X(5, 'a', 'c', 't', 'o', 'r', 0) X(3, 'c', 'i', 'd', 0, 0, 0)         \
    X(6, 'p', 'l', 'a', 'y', 'e', 'r') X(4, 'v', 'e', 'r', 'b', 0, 0)     \
    X(4, 'a', 'r', 'g', 's', 0, 0)   X(6, 't', 'a', 'r', 'g', 'e', 't')   \
    X(4, 't', 'e', 'x', 't', 0, 0)   X(5, 's', 'e', 't', 'u', 'p', 0)

const uint64_t arb__ev_key_word[EK_N] = { EV_KEYS(FIX_WORD) };
static const uint64_t key_mask[EK_N] = { EV_KEYS(FIX_MASKS) };

const uint64_t arb__ev_kind_word[ARB_EV_KIND_MAX] = {
    FIX(4, 'o', 'p', 'e', 'n', 0, 0),   FIX(4, 'm', 'o', 'v', 'e', 0, 0),
    FIX(5, 'c', 'l', 'o', 's', 'e', 0), FIX(4, 'n', 'o', 't', 'e', 0, 0),
    FIX(4, 'v', 'o', 'i', 'd', 0, 0),   FIX(5, 'a', 'm', 'e', 'n', 'd', 0),
    FIX(6, 's', 't', 'a', 'n', 'd', 's'), FIX(5, 'c', 'l', 'a', 'i', 'm', 0)
};

static inline uint64_t
fix_mask(size_t n)
{
    return FIX_MASK(n, 0, 0, 0, 0, 0, 0);
}

/* 1 when the n (<= 8) bytes at the start of w are ASCII without NUL. */
static inline int
word_text(uint64_t w, size_t n)
{
    const uint64_t lo = 0x0101010101010101u, hi = 0x8080808080808080u;
    uint64_t       m = n == 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * n)) - 1;

    /* A borrow reaches byte i only from a zero byte below it, which the
     * mask covers too: no false "valid". */
    return (((w & hi) | ((w - lo) & ~w & hi)) & m) == 0;
}

static int
need(const rd_t *r, size_t n)
{
    return (size_t)(r->end - r->p) >= n ? 0 : -1;
}

/* Inlined whatever the compiler estimates: every field of every event
 * reads a string or an integer, and GCC -O2 called rd_str and rd_uint,
 * their results passed back through memory (inlined, a replayed event
 * takes 2,157 instructions instead of 2,291; cachegrind). */
#define EACH_FIELD static inline __attribute__((always_inline))

/* An unsigned integer in its shortest form (msgpack-c's packers). */
EACH_FIELD int
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
    *out = w == 8 ? arb_load_be64(r->p) : arb_load_be(r->p, (size_t)w);
    r->p += w;
    return *out >= least[c - 0xcc] ? 0 : -1;
}

/* A str in its shortest header, within the codec's limits, without NUL
 * and in UTF-8 (arb_mp_str's and arb_event_check's rules). */
EACH_FIELD int
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
    if (*n > ARB_STR_MAX || need(r, *n) != 0)
        return -1;
    if (!(*n <= 8 && need(r, 8) == 0 && word_text(arb_load_le64(r->p), *n))
        && !arb_mp_text_valid((const char *)r->p, *n))
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
        /* The room has 8 bytes to spare past the last string. */
        if (n <= 8 && (size_t)(r->end - s) >= 8) {
            uint64_t w = arb_load_le64(s);
            memcpy(d, &w, 8);
            d[n] = '\0';
            return d;
        }
    } else if ((d = malloc(n + 1)) == NULL) {
        return NULL;
    }
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

/* A string that must not be empty (an actor, a client id, a player, a
 * verb: arb_event_check's "nonempty" fields). */
static char *
dup_name(rd_t *r)
{
    if (need(r, 1) != 0 || *r->p == 0xa0)
        return NULL;
    return dup_str(r);
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
    if (need(r, 8) == 0) {
        uint64_t w = arb_load_le64(r->p);

        for (k = last + 1; k < EK_N; k++)
            if ((w & key_mask[k]) == arb__ev_key_word[k]) {
                r->p += 1 + arb__ev_key_len[k];
                return k;
            }
        return -1;
    }
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

/* An event kind by its name. */
static int
rd_kind(rd_t *r, int *kind)
{
    const unsigned char *s;
    size_t               n;
    uint64_t             w;
    int                  k;

    if (need(r, 8) == 0) {
        w = arb_load_le64(r->p);
        for (k = 0; k < ARB_EV_KIND_MAX; k++) {
            n = (size_t)(arb__ev_kind_word[k] & 0x1f);
            if ((w & fix_mask(n)) == arb__ev_kind_word[k]) {
                r->p += 1 + n;
                *kind = k;
                return 0;
            }
        }
        return -1;
    }
    if (rd_str(r, &s, &n) != 0)
        return -1;
    *kind = arb_event_kind_parse_n((const char *)s, n);
    return *kind < 0 ? -1 : 0;
}

/* ---- the setup of an open (allocated: mem is NULL) -------------------- */

/* An array header in its shortest form (fixarray, array16) of 1..max
 * elements: an empty list is written by omitting its key. */
static int
rd_arr(rd_t *r, size_t max, size_t *n)
{
    unsigned c;

    if (need(r, 1) != 0)
        return -1;
    c = *r->p++;
    if ((c & 0xf0) == 0x90) {
        *n = c & 0x0f;
    } else if (c == 0xdc && need(r, 2) == 0) {
        *n = (size_t)arb_load_be(r->p, 2);
        r->p += 2;
        if (*n < 16)
            return -1;
    } else {
        return -1;
    }
    return *n == 0 || *n > max ? -1 : 0;
}

/* A fixmap header (every map of an event has fewer than 16 keys). */
static int
rd_map(rd_t *r, size_t *n)
{
    if (need(r, 1) != 0 || (*r->p & 0xf0) != 0x80)
        return -1;
    *n = *r->p++ & 0x0f;
    return 0;
}

/* The key of keys[] after number `last` (the table's order is the
 * canonical one), as a fixstr. */
static int
rd_key_of(rd_t *r, int last, const char *const *keys, int nkeys)
{
    const unsigned char *s;
    size_t               n;
    int                  k;

    if (rd_str(r, &s, &n) != 0)
        return -1;
    for (k = last + 1; k < nkeys; k++)
        if (strlen(keys[k]) == n && memcmp(keys[k], s, n) == 0)
            return k;
    return -1;
}

/* A list of n strings; *count says how many were read (for the clear). */
static int
rd_strv(rd_t *r, size_t max, char ***v, size_t *count)
{
    size_t n, i;

    if (rd_arr(r, max, &n) != 0 || (*v = calloc(n, sizeof(**v))) == NULL)
        return -1;
    for (i = 0; i < n; i++) {
        if (((*v)[i] = dup_str(r)) == NULL)
            return -1;
        (*count)++;
    }
    return 0;
}

static int
rd_players(rd_t *r, arb_setup_t *s)
{
    size_t   n, i, m, j;
    uint64_t team;
    int      k;

    if (rd_arr(r, ARB_PLAYERS_MAX, &n) != 0
        || (s->players = calloc(n, sizeof(*s->players))) == NULL)
        return -1;
    for (i = 0; i < n; i++) {
        if (rd_map(r, &m) != 0 || m == 0 || m > PK_N)
            return -1;
        for (j = 0, k = -1; j < m; j++) {
            k = rd_key_of(r, k, arb__player_keys, PK_N);
            if (k == PK_NAME) {
                if ((s->players[i].name = dup_str(r)) == NULL)
                    return -1;
                s->nplayers++;
                s->players[i].team = -1;
            } else if (k == PK_TEAM && j == 1) {
                /* The teams come before the players. */
                if (rd_uint(r, &team) != 0 || team >= s->nteams)
                    return -1;
                s->players[i].team = (int)team;
            } else {
                return -1;
            }
        }
    }
    return 0;
}

static int
rd_options(rd_t *r, arb_setup_t *s)
{
    size_t n, i;

    if (rd_arr(r, ARB_OPTIONS_MAX, &n) != 0
        || (s->options = calloc(n, sizeof(*s->options))) == NULL)
        return -1;
    for (i = 0; i < n; i++) {
        if (need(r, 1) != 0 || *r->p++ != 0x92)
            return -1;
        s->noptions++;      /* the clear frees both halves either way */
        if ((s->options[i].key = dup_str(r)) == NULL
            || (s->options[i].value = dup_str(r)) == NULL)
            return -1;
    }
    return 0;
}

/* A stored deal: kind "order" with cards, "seed" with seed and seed_hash,
 * "commit" with seed_hash ("none" is written by omitting the deal). */
static int
rd_deal(rd_t *r, arb_deal_t *d)
{
    const unsigned char *s;
    size_t               m, i, n;
    int                  k = -1, hashed = 0;

    if (rd_map(r, &m) != 0 || m < 2)
        return -1;
    for (i = 0; i < m; i++) {
        k = rd_key_of(r, k, arb__deal_keys, DK_N);
        if (k < 0 || (i == 0) != (k == DK_KIND))
            return -1;
        switch (k) {
        case DK_KIND:
            if (rd_str(r, &s, &n) != 0)
                return -1;
            for (d->kind = 1; d->kind < DEAL_KINDS; d->kind++)
                if (strlen(arb__deal_names[d->kind]) == n
                    && memcmp(arb__deal_names[d->kind], s, n) == 0)
                    break;
            if (d->kind == DEAL_KINDS)
                return -1;
            break;
        case DK_CARDS:
            if (rd_strv(r, ARB_DEAL_MAX, &d->cards, &d->ncards) != 0)
                return -1;
            break;
        case DK_SEED:
            if ((d->seed = dup_str(r)) == NULL)
                return -1;
            break;
        default:    /* DK_HASH: bin8 of the hash's length */
            if (need(r, 2 + ARB_HASH_LEN) != 0 || r->p[0] != 0xc4
                || r->p[1] != ARB_HASH_LEN)
                return -1;
            memcpy(d->seed_hash, r->p + 2, ARB_HASH_LEN);
            r->p += 2 + ARB_HASH_LEN;
            hashed = 1;
            break;
        }
    }
    /* check_deal judges cards and seed; an all-zero hash cannot say
     * whether the key was there, so its presence is judged here. */
    return hashed == (d->kind == ARB_DEAL_SEED || d->kind == ARB_DEAL_COMMIT)
           ? 0 : -1;
}

static int
rd_setup(rd_t *r, arb_setup_t *s)
{
    size_t m, i;
    int    k = -1;

    if (rd_map(r, &m) != 0)
        return -1;
    for (i = 0; i < m; i++) {
        k = rd_key_of(r, k, arb__setup_keys, SK_N);
        switch (k) {
        case SK_GAME:
            if ((s->game = dup_str(r)) == NULL)
                return -1;
            break;
        case SK_MATCH:
            if ((s->match_id = dup_str(r)) == NULL)
                return -1;
            break;
        case SK_EDITION:
            if ((s->edition = dup_str(r)) == NULL)
                return -1;
            break;
        case SK_ENGINE:
            if ((s->engine = dup_str(r)) == NULL)
                return -1;
            break;
        case SK_TEAMS:
            if (rd_strv(r, ARB_TEAMS_MAX, &s->teams, &s->nteams) != 0)
                return -1;
            break;
        case SK_PLAYERS:
            if (rd_players(r, s) != 0)
                return -1;
            break;
        case SK_OPTIONS:
            if (rd_options(r, s) != 0)
                return -1;
            break;
        case SK_DEAL:
            if (rd_deal(r, &s->deal) != 0)
                return -1;
            break;
        default:
            return -1;
        }
    }
    /* game and match are required; check_setup judges the rest. */
    return s->game != NULL && s->match_id != NULL ? 0 : -1;
}

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
    return ARGS_ROOM * sizeof(char *) + 2 * len + 8;
}

int
arb__event_walk_in(arb_event_t *ev, const unsigned char *p, size_t len,
                   char *mem)
{
    return walk(ev, p, len, mem);
}

static const arb_event_t no_event;

static int
walk(arb_event_t *ev, const unsigned char *p, size_t len, char *mem)
{
    rd_t           r = { p, p + len, mem, ARGS_ROOM * sizeof(char *) };
    uint64_t       u;
    size_t         n, i;
    unsigned       seen = 0;           /* 1 << k for each key read */
    int            k = -1;

    /* A copy, not memset: compilers may clear 96 bytes with `rep stos`,
     * whose start-up is a tenth of a small event's walk. */
    *ev = no_event;
    if (len == 0 || (*r.p & 0xf0) != 0x80)
        goto fail;
    n = *r.p++ & 0x0f;
    for (i = 0; i < n; i++) {
        k = rd_key(&r, k);
        if (k < 0)
            goto fail;
        seen |= 1u << k;
        switch (k) {
        case EK_V:
            if (rd_uint(&r, &u) != 0 || u != ARB_EVENT_VERSION)
                goto fail;
            break;
        case EK_KIND:
            if (rd_kind(&r, &ev->kind) != 0)
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
            if ((ev->actor = dup_name(&r)) == NULL)
                goto fail;
            break;
        case EK_CID:
            if ((ev->client_id = dup_name(&r)) == NULL)
                goto fail;
            break;
        case EK_PLAYER:
            if ((ev->player = dup_name(&r)) == NULL)
                goto fail;
            break;
        case EK_VERB:
            if ((ev->verb = dup_name(&r)) == NULL)
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
        case EK_SETUP:
            /* Allocated, so never in scratch room: the full decoder's
             * there (an open is one event per match). */
            if (mem != NULL
                || (ev->setup = calloc(1, sizeof(*ev->setup))) == NULL
                || rd_setup(&r, ev->setup) != 0)
                goto fail;
            break;
        default:
            goto fail;
        }
    }
    if (r.p != r.end
        || (~seen & (1u << EK_V | 1u << EK_KIND | 1u << EK_SEQ)) != 0
        || !(seen & 1u << EK_TARGET) != !arb_event_takes_target(ev->kind)
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
