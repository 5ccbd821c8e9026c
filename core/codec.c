#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <msgpack.h>

#include "core/err.h"
#include "core/codec.h"
#include "core/codec_int.h"
#include "core/limits.h"
#include "core/mp.h"
#include "core/text.h"

/* ---- keys and per-kind rules ------------------------------------------ */

/* The order of these tables IS the canonical key order on the wire. */
/* Shared with codec_walk.c, which reads the same keys in place. */
const char *const arb__ev_keys[EK_N] = {
    "v", "kind", "seq", "time", "actor", "cid", "player", "verb",
    "args", "target", "text", "setup"
};

const char *const arb__setup_keys[SK_N] = {
    "game", "match", "edition", "engine", "teams", "players", "options",
    "deal"
};
const char *const arb__player_keys[PK_N] = { "name", "team" };
const char *const arb__deal_keys[DK_N] = {
    "kind", "cards", "seed", "seed_hash"
};

/* Deal kinds on the wire; ARB_DEAL_NONE is written by omitting "deal". */
const char *const arb__deal_names[DEAL_KINDS] = { "none", "order", "seed",
                                                  "commit" };

/* Which kind-dependent fields each event kind carries. */
enum { F_NO, F_OPT, F_REQ };
enum { KF_PLAYER, KF_VERB, KF_ARGS, KF_TARGET, KF_TEXT, KF_SETUP, KF_N };
/* Each row also as two masks of KF_ bits, for the check every event
 * passes: the fields required (target aside: 0 is a real value, so its
 * absence cannot be seen) and the fields forbidden. */
typedef struct kind_rule {
    unsigned char f[KF_N];
    unsigned char req, no;
} kind_rule_t;
#define KF_BIT(want, x, i) ((x) == (want) ? 1u << (i) : 0u)
#define KF_RULE(p, v, a, t, x, st)                                        \
    { { p, v, a, t, x, st },                                              \
      KF_BIT(F_REQ, p, KF_PLAYER) | KF_BIT(F_REQ, v, KF_VERB)             \
      | KF_BIT(F_REQ, a, KF_ARGS) | KF_BIT(F_REQ, x, KF_TEXT)             \
      | KF_BIT(F_REQ, st, KF_SETUP),                                      \
      KF_BIT(F_NO, p, KF_PLAYER) | KF_BIT(F_NO, v, KF_VERB)               \
      | KF_BIT(F_NO, a, KF_ARGS) | KF_BIT(F_NO, t, KF_TARGET)             \
      | KF_BIT(F_NO, x, KF_TEXT) | KF_BIT(F_NO, st, KF_SETUP) }
static const kind_rule_t kind_fields[ARB_EV_KIND_MAX] = {
    /*                 player verb   args   target text   setup */
    /* open   */  KF_RULE(F_NO,  F_NO,  F_NO,  F_NO,  F_NO,  F_REQ),
    /* move   */  KF_RULE(F_REQ, F_REQ, F_OPT, F_NO,  F_NO,  F_NO ),
    /* close  */  KF_RULE(F_NO,  F_NO,  F_OPT, F_NO,  F_OPT, F_NO ),
    /* note   */  KF_RULE(F_NO,  F_NO,  F_NO,  F_NO,  F_REQ, F_NO ),
    /* void   */  KF_RULE(F_NO,  F_NO,  F_NO,  F_REQ, F_OPT, F_NO ),
    /* amend  */  KF_RULE(F_REQ, F_REQ, F_OPT, F_REQ, F_OPT, F_NO ),
    /* stands */  KF_RULE(F_REQ, F_REQ, F_OPT, F_NO,  F_OPT, F_NO ),
    /* claim  */  KF_RULE(F_OPT, F_NO,  F_OPT, F_NO,  F_REQ, F_NO ),
};
static const char *const kf_names[KF_N] = {
    "player", "verb", "args", "target", "text", "setup"
};

static int
has_target(int kind)
{
    return kind_fields[kind].f[KF_TARGET] != F_NO;
}

int
arb_event_takes_target(int kind)
{
    return kind > 0 && kind < (int)(sizeof(kind_fields)
                                    / sizeof(kind_fields[0]))
           && has_target(kind);
}

size_t
arb_event_args_max(int kind)
{
    return kind == ARB_EV_CLAIM ? ARB_CLAIM_RECORDS_MAX : ARB_ARGS_MAX;
}

static int
hash_is_zero(const unsigned char *h)
{
    size_t i;

    for (i = 0; i < ARB_HASH_LEN; i++)
        if (h[i] != 0)
            return 0;
    return 1;
}

/* ---- checking the struct ---------------------------------------------- */

/* Strings on the wire are names or text: both must survive a round trip
 * through any client, so they are UTF-8 and bounded.  Names must also be
 * non-empty, because an empty name is indistinguishable from a missing one
 * in most clients. */
static int
check_str(const char *s, int nonempty, arb_buf_t *why, const char *path)
{
    size_t n;

    if (s == NULL)
        return arb_mp_fail(why, ARB_EINVAL, "%s: missing", path);
    n = strnlen(s, (size_t)ARB_STR_MAX + 1);
    if (n > ARB_STR_MAX)
        return arb_mp_fail(why, ARB_ETOOBIG,
                           "%s: longer than %d bytes", path, ARB_STR_MAX);
    if (nonempty && n == 0)
        return arb_mp_fail(why, ARB_EINVAL, "%s: empty", path);
    if (!arb_mp_utf8_valid(s, n))
        return arb_mp_fail(why, ARB_EINVAL, "%s: invalid UTF-8", path);
    return 0;
}

static int
check_count(size_t n, size_t max, const void *v, arb_buf_t *why,
            const char *path)
{
    if (n > max)
        return arb_mp_fail(why, ARB_ETOOBIG,
                           "%s: %zu elements, over the limit of %zu", path,
                           n, max);
    if (n > 0 && v == NULL)
        return arb_mp_fail(why, ARB_EINVAL, "%s: count %zu but no array",
                           path, n);
    return 0;
}

static int
check_strv(char *const *v, size_t n, size_t max, int nonempty, int unique,
           arb_buf_t *why, const char *path)
{
    char   p[64];
    size_t i, j;
    int    rc;

    rc = check_count(n, max, v, why, path);
    if (rc != 0)
        return rc;
    for (i = 0; i < n; i++) {
        /* The element's path is formatted only to word a refusal. */
        rc = check_str(v[i], nonempty, NULL, path);
        if (rc != 0) {
            snprintf(p, sizeof(p), "%s[%zu]", path, i);
            return check_str(v[i], nonempty, why, p);
        }
        for (j = 0; unique && j < i; j++)
            if (strcmp(v[i], v[j]) == 0) {
                snprintf(p, sizeof(p), "%s[%zu]", path, i);
                return arb_mp_fail(why, ARB_EINVAL,
                                   "%s: same as %s[%zu]", p, path, j);
            }
    }
    return 0;
}

static int
check_deal(const arb_deal_t *d, arb_buf_t *why, const char *path)
{
    const char *name;
    char        p[64];
    int         rc;

    if (d->kind < 0 || d->kind >= DEAL_KINDS)
        return arb_mp_fail(why, ARB_EINVAL,
                           "%s.kind: unknown kind %d", path,
                           d->kind);
    name = arb__deal_names[d->kind];
    if (d->kind == ARB_DEAL_ORDER) {
        if (d->ncards == 0)
            return arb_mp_fail(why, ARB_EINVAL,
                               "%s.cards: required for kind \"order\"",
                               path);
        snprintf(p, sizeof(p), "%s.cards", path);
        rc = check_strv(d->cards, d->ncards, ARB_DEAL_MAX, 1, 0, why, p);
        if (rc != 0)
            return rc;
    } else if (d->ncards != 0) {
        return arb_mp_fail(why, ARB_EINVAL,
                           "%s.cards: not allowed for kind \"%s\"", path,
                           name);
    }
    if (d->kind == ARB_DEAL_SEED) {
        snprintf(p, sizeof(p), "%s.seed", path);
        rc = check_str(d->seed, 1, why, p);
        if (rc != 0)
            return rc;
    } else if (d->seed != NULL) {
        return arb_mp_fail(why, ARB_EINVAL,
                           "%s.seed: not allowed for kind \"%s\"", path,
                           name);
    }
    /* The hash is a fixed array, so "absent" can only mean all zero. */
    if ((d->kind == ARB_DEAL_NONE || d->kind == ARB_DEAL_ORDER)
        && !hash_is_zero(d->seed_hash))
        return arb_mp_fail(why, ARB_EINVAL,
                           "%s.seed_hash: not allowed for kind \"%s\" "
                           "(must be all zero)", path, name);
    return 0;
}

/* check_str of element i of a list: its path ("...[%zu]...", fmt) is
 * formatted only to word a refusal (the walker checks every open). */
static int
check_str_at(const char *s, int nonempty, arb_buf_t *why, const char *fmt,
             size_t i)
{
    char p[64];

    if (check_str(s, nonempty, NULL, "") == 0)
        return 0;
    snprintf(p, sizeof(p), fmt, i);
    return check_str(s, nonempty, why, p);
}

static int
check_setup(const arb_setup_t *s, arb_buf_t *why)
{
    size_t i, j;
    int    rc;

    rc = check_str(s->game, 1, why, "event.setup.game");
    if (rc == 0)
        rc = check_str(s->match_id, 1, why, "event.setup.match");
    if (rc == 0 && s->edition != NULL)
        rc = check_str(s->edition, 1, why, "event.setup.edition");
    if (rc == 0 && s->engine != NULL)
        rc = check_str(s->engine, 1, why, "event.setup.engine");
    if (rc == 0)
        rc = check_strv(s->teams, s->nteams, ARB_TEAMS_MAX, 1, 1, why,
                        "event.setup.teams");
    if (rc == 0)
        rc = check_count(s->nplayers, ARB_PLAYERS_MAX, s->players, why,
                         "event.setup.players");
    if (rc != 0)
        return rc;
    for (i = 0; i < s->nplayers; i++) {
        rc = check_str_at(s->players[i].name, 1, why,
                          "event.setup.players[%zu].name", i);
        if (rc != 0)
            return rc;
        for (j = 0; j < i; j++)
            if (strcmp(s->players[i].name, s->players[j].name) == 0)
                return arb_mp_fail(why, ARB_EINVAL,
                                   "event.setup.players[%zu].name: same "
                                   "as event.setup.players[%zu]", i, j);
        if (s->players[i].team < -1
            || (s->players[i].team >= 0
                && (size_t)s->players[i].team >= s->nteams))
            return arb_mp_fail(why, ARB_EINVAL,
                               "event.setup.players[%zu].team: %d is not "
                               "-1 or the index of one of %zu teams", i,
                               s->players[i].team, s->nteams);
    }
    rc = check_count(s->noptions, ARB_OPTIONS_MAX, s->options, why,
                     "event.setup.options");
    if (rc != 0)
        return rc;
    for (i = 0; i < s->noptions; i++) {
        rc = check_str_at(s->options[i].key, 1, why,
                          "event.setup.options[%zu][0]", i);
        if (rc != 0)
            return rc;
        if (i > 0 && strcmp(s->options[i - 1].key, s->options[i].key) >= 0)
            return arb_mp_fail(why, ARB_EINVAL,
                               "event.setup.options[%zu][0]: key not after "
                               "the key of options[%zu] (keys must be "
                               "sorted and unique)", i, i - 1);
        rc = check_str_at(s->options[i].value, 0, why,
                          "event.setup.options[%zu][1]", i);
        if (rc != 0)
            return rc;
    }
    return check_deal(&s->deal, why, "event.setup.deal");
}

/* The fields ev's kind requires and forbids (kind_fields). */
static int
check_fields(const arb_event_t *ev, arb_buf_t *why)
{
    const kind_rule_t *k = &kind_fields[ev->kind];
    const unsigned char *rule = k->f;
    unsigned             have;
    int                  f, present;

    /* Every stored event passes here: first the fields as bits against
     * the rule's masks; only a refusal walks them one by one to word it. */
    have = (unsigned)(ev->player != NULL) << KF_PLAYER
           | (unsigned)(ev->verb != NULL) << KF_VERB
           | (unsigned)(ev->nargs > 0) << KF_ARGS
           | (unsigned)(ev->target != 0) << KF_TARGET
           | (unsigned)(ev->text != NULL) << KF_TEXT
           | (unsigned)(ev->setup != NULL) << KF_SETUP;
    if ((k->req & ~have) == 0 && (k->no & have) == 0)
        return 0;
    for (f = 0; f < KF_N; f++) {
        switch (f) {
        case KF_PLAYER: present = ev->player != NULL; break;
        case KF_VERB:   present = ev->verb != NULL; break;
        case KF_ARGS:   present = ev->nargs > 0; break;
        case KF_TARGET: present = ev->target != 0; break;
        case KF_TEXT:   present = ev->text != NULL; break;
        default:        present = ev->setup != NULL; break;
        }
        /* target 0 is a real value (the open event), so only forbid it. */
        if (rule[f] == F_REQ && !present && f != KF_TARGET)
            return arb_mp_fail(why, ARB_EINVAL,
                               "event.%s: required for kind \"%s\"",
                               kf_names[f], arb_event_kind_name(ev->kind));
        if (rule[f] == F_NO && present)
            return arb_mp_fail(why, ARB_EINVAL,
                               "event.%s: not allowed for kind \"%s\"",
                               kf_names[f], arb_event_kind_name(ev->kind));
    }
    return 0;
}

/* Everything of ev but its strings' contents: its kind, seq and time. */
static int
check_frame(const arb_event_t *ev, arb_buf_t *why)
{
    if (ev->kind < 0 || ev->kind >= ARB_EV_KIND_MAX)
        return arb_mp_fail(why, ARB_EINVAL, "event.kind: unknown kind %d",
                           ev->kind);
    if (ev->kind == ARB_EV_OPEN && ev->seq != 0)
        return arb_mp_fail(why, ARB_EINVAL,
                           "event.seq: an open event is seq 0, not %llu",
                           (unsigned long long)ev->seq);
    if (ev->time_ms < 0)
        return arb_mp_fail(why, ARB_EINVAL, "event.time: negative");
    return 0;
}

int
arb__event_check_walked(const arb_event_t *ev)
{
    /* The walker has already refused an empty actor, client id, player or
     * verb, more args than a fixarray holds, and every string's length,
     * NUL bytes and UTF-8; what is left of arb_event_check: */
    if (check_frame(ev, NULL) != 0 || check_fields(ev, NULL) != 0
        || (ev->setup != NULL && check_setup(ev->setup, NULL) != 0))
        return -1;
    return 0;
}

int
arb_event_check_shape(const arb_event_t *ev, arb_buf_t *why)
{
    int rc;

    if ((rc = check_frame(ev, why)) != 0 || (rc = check_fields(ev, why)) != 0)
        return rc;
    if (ev->player != NULL && ev->player[0] == '\0')
        return arb_mp_fail(why, ARB_EINVAL, "event.player: empty");
    if (ev->verb != NULL && ev->verb[0] == '\0')
        return arb_mp_fail(why, ARB_EINVAL, "event.verb: empty");
    return 0;
}

/* One string of a new event: no control character (core/text.h). */
static int
text_ok(const char *s, arb_buf_t *why, const char *path, size_t i)
{
    size_t at;
    int    ch;

    if (s == NULL || (ch = arb_text_control(s, strlen(s), &at)) < 0)
        return 0;
    if (i == (size_t)-1)
        return arb_mp_fail(why, ARB_EINVAL, "%s: a control character "
                           "(U+%04X) at byte %zu: a record holds printable "
                           "text only", path, (unsigned)ch, at);
    return arb_mp_fail(why, ARB_EINVAL, "%s[%zu]: a control character "
                       "(U+%04X) at byte %zu: a record holds printable "
                       "text only", path, i, (unsigned)ch, at);
}

int
arb_event_check_text(const arb_event_t *ev, arb_buf_t *why)
{
    const arb_setup_t *su = ev->setup;
    const size_t       one = (size_t)-1;
    size_t             i;
    int                rc;

    if ((rc = text_ok(ev->client_id, why, "cid", one)) != 0
        || (rc = text_ok(ev->player, why, "player", one)) != 0
        || (rc = text_ok(ev->verb, why, "verb", one)) != 0
        || (rc = text_ok(ev->text, why, "text", one)) != 0)
        return rc;
    for (i = 0; i < ev->nargs; i++)
        if ((rc = text_ok(ev->args[i], why, "args", i)) != 0)
            return rc;
    if (su == NULL)
        return 0;
    if ((rc = text_ok(su->edition, why, "edition", one)) != 0
        || (rc = text_ok(su->engine, why, "engine", one)) != 0)
        return rc;
    for (i = 0; i < su->nplayers; i++)
        if ((rc = text_ok(su->players[i].name, why, "players", i)) != 0)
            return rc;
    for (i = 0; i < su->nteams; i++)
        if ((rc = text_ok(su->teams[i], why, "teams", i)) != 0)
            return rc;
    for (i = 0; i < su->noptions; i++) {
        char path[ARB_STR_MAX + 16];

        if ((rc = text_ok(su->options[i].key, why, "options", one)) != 0)
            return rc;
        snprintf(path, sizeof(path), "options.%s", su->options[i].key);
        if ((rc = text_ok(su->options[i].value, why, path, one)) != 0)
            return rc;
    }
    for (i = 0; i < su->deal.ncards; i++)
        if ((rc = text_ok(su->deal.cards[i], why, "deal.cards", i)) != 0)
            return rc;
    return text_ok(su->deal.seed, why, "deal.seed", one);
}

int
arb_event_check(const arb_event_t *ev, arb_buf_t *why)
{
    int rc;

    if ((rc = check_frame(ev, why)) != 0)
        return rc;
    if (ev->actor != NULL
        && (rc = check_str(ev->actor, 1, why, "event.actor")) != 0)
        return rc;
    if (ev->client_id != NULL
        && (rc = check_str(ev->client_id, 1, why, "event.cid")) != 0)
        return rc;
    if ((rc = check_fields(ev, why)) != 0)
        return rc;
    if (ev->player != NULL
        && (rc = check_str(ev->player, 1, why, "event.player")) != 0)
        return rc;
    if (ev->verb != NULL
        && (rc = check_str(ev->verb, 1, why, "event.verb")) != 0)
        return rc;
    rc = check_strv(ev->args, ev->nargs, arb_event_args_max(ev->kind), 0, 0,
                    why, "event.args");
    if (rc != 0)
        return rc;
    if (ev->text != NULL
        && (rc = check_str(ev->text, 0, why, "event.text")) != 0)
        return rc;
    if (ev->setup != NULL)
        return check_setup(ev->setup, why);
    return 0;
}

/* ---- encoding --------------------------------------------------------- */

/* Packs an event that passed arb_event_check().  msgpack-c's packers
 * already choose the shortest form of every integer, length and header;
 * a failed append only sets out->oom, which the caller checks once. */
static void
pack_deal(msgpack_packer *pk, const arb_deal_t *d)
{
    msgpack_pack_map(pk, d->kind == ARB_DEAL_SEED ? 3 : 2);
    arb_mp_pack_kv_str(pk, "kind", arb__deal_names[d->kind]);
    if (d->kind == ARB_DEAL_ORDER) {
        arb_mp_pack_kv_strv(pk, "cards", d->cards, d->ncards);
    }
    if (d->kind == ARB_DEAL_SEED)
        arb_mp_pack_kv_str(pk, "seed", d->seed);
    if (d->kind == ARB_DEAL_SEED || d->kind == ARB_DEAL_COMMIT) {
        arb_mp_pack_kv_bin(pk, "seed_hash", d->seed_hash, ARB_HASH_LEN);
    }
}

static void
pack_setup(msgpack_packer *pk, const arb_setup_t *s)
{
    size_t i, n;

    n = 2 + (s->edition != NULL) + (s->engine != NULL) + (s->nteams > 0)
        + (s->nplayers > 0) + (s->noptions > 0)
        + (s->deal.kind != ARB_DEAL_NONE);
    msgpack_pack_map(pk, n);
    arb_mp_pack_kv_str(pk, "game", s->game);
    arb_mp_pack_kv_str(pk, "match", s->match_id);
    if (s->edition != NULL)
        arb_mp_pack_kv_str(pk, "edition", s->edition);
    if (s->engine != NULL)
        arb_mp_pack_kv_str(pk, "engine", s->engine);
    if (s->nteams > 0) {
        arb_mp_pack_kv_strv(pk, "teams", s->teams, s->nteams);
    }
    if (s->nplayers > 0) {
        arb_mp_pack_cstr(pk, "players");
        msgpack_pack_array(pk, s->nplayers);
        for (i = 0; i < s->nplayers; i++) {
            msgpack_pack_map(pk, s->players[i].team >= 0 ? 2 : 1);
            arb_mp_pack_kv_str(pk, "name", s->players[i].name);
            if (s->players[i].team >= 0) {
                arb_mp_pack_kv_uint(pk, "team",
                                    (uint64_t)s->players[i].team);
            }
        }
    }
    if (s->noptions > 0) {
        arb_mp_pack_cstr(pk, "options");
        msgpack_pack_array(pk, s->noptions);
        for (i = 0; i < s->noptions; i++) {
            msgpack_pack_array(pk, 2);
            arb_mp_pack_cstr(pk, s->options[i].key);
            arb_mp_pack_cstr(pk, s->options[i].value);
        }
    }
    if (s->deal.kind != ARB_DEAL_NONE) {
        arb_mp_pack_cstr(pk, "deal");
        pack_deal(pk, &s->deal);
    }
}

static void
pack_event(msgpack_packer *pk, const arb_event_t *ev)
{
    size_t n;

    n = 3 + (ev->time_ms != 0) + (ev->actor != NULL)
        + (ev->client_id != NULL) + (ev->player != NULL)
        + (ev->verb != NULL) + (ev->nargs > 0) + has_target(ev->kind)
        + (ev->text != NULL) + (ev->setup != NULL);
    msgpack_pack_map(pk, n);
    arb_mp_pack_kv_uint(pk, "v", ARB_EVENT_VERSION);
    arb_mp_pack_kv_str(pk, "kind", arb_event_kind_name(ev->kind));
    arb_mp_pack_kv_uint(pk, "seq", ev->seq);
    if (ev->time_ms != 0)
        arb_mp_pack_kv_uint(pk, "time", (uint64_t)ev->time_ms);
    if (ev->actor != NULL)
        arb_mp_pack_kv_str(pk, "actor", ev->actor);
    if (ev->client_id != NULL)
        arb_mp_pack_kv_str(pk, "cid", ev->client_id);
    if (ev->player != NULL)
        arb_mp_pack_kv_str(pk, "player", ev->player);
    if (ev->verb != NULL)
        arb_mp_pack_kv_str(pk, "verb", ev->verb);
    if (ev->nargs > 0)
        arb_mp_pack_kv_strv(pk, "args", ev->args, ev->nargs);
    if (has_target(ev->kind))
        arb_mp_pack_kv_uint(pk, "target", ev->target);
    if (ev->text != NULL)
        arb_mp_pack_kv_str(pk, "text", ev->text);
    if (ev->setup != NULL) {
        arb_mp_pack_cstr(pk, "setup");
        pack_setup(pk, ev->setup);
    }
}

/* Packs without checking; restores out->len on failure. */
static int
encode_checked(arb_buf_t *out, const arb_event_t *ev)
{
    msgpack_packer pk;
    size_t         start = out->len;

    arb_mp_packer_init(&pk, out);
    pack_event(&pk, ev);
    if (out->oom)
        goto fail;
    return 0;

fail:
    if (out->len > start)
        out->len = start;
    return ARB_ENOMEM;
}

int
arb_event_encode(arb_buf_t *out, const arb_event_t *ev)
{
    int rc;

    rc = arb_event_check(ev, NULL);
    if (rc != 0)
        return rc;
    return encode_checked(out, ev);
}

/* ---- decoding --------------------------------------------------------- */

/* Reads a non-empty array of at most `max` strs into *v, counting *n up
 * as each string is copied so that a failure leaves a clearable struct.
 * An empty array is refused because the canonical form omits the key. */
static int
parse_strv(const msgpack_object *o, size_t max, char ***v, size_t *n,
           arb_buf_t *why, const char *path)
{
    char     p[64];
    uint32_t i, size;
    int      rc;

    if (o->type != MSGPACK_OBJECT_ARRAY)
        return arb_mp_fail(why, ARB_EPROTO, "%s: expected array, got %s",
                           path, arb_mp_type_name(o));
    size = o->via.array.size;
    if (size == 0)
        return arb_mp_fail(why, ARB_EPROTO,
                           "%s: empty array (omit the key instead)", path);
    if (size > max)
        return arb_mp_fail(why, ARB_ETOOBIG,
                           "%s: %u elements, over the limit of %zu", path,
                           (unsigned)size, max);
    *v = calloc(size, sizeof(**v));
    if (*v == NULL)
        return arb_mp_fail(why, ARB_ENOMEM, "%s: out of memory", path);
    for (i = 0; i < size; i++) {
        snprintf(p, sizeof(p), "%s[%u]", path, (unsigned)i);
        rc = arb_mp_str(&o->via.array.ptr[i], &(*v)[i], why, p);
        if (rc != 0)
            return rc;
        (*n)++;
    }
    return 0;
}

/* A deal map at `path`.  As stored (stated 0): the canonical form, keys
 * in order, any kind.  As a request states it (stated 1, the `open` op):
 * {kind: "seed", seed} or {kind: "order", cards}, keys in any order, and
 * checked whole here because the log will hold only its commitment. */
static int
parse_deal(arb_deal_t *d, const msgpack_object *o, int stated,
           arb_buf_t *why, const char *path)
{
    const msgpack_object *v[DK_N];
    char                 *kind = NULL, p[64];
    int                   rc, k, hashed;

    /* A stated deal has no seed_hash: the key is unknown there. */
    v[DK_HASH] = NULL;
    rc = arb_mp_fields(o, arb__deal_keys, stated ? DK_HASH : DK_N, !stated, v,
                       why, path);
    snprintf(p, sizeof(p), "%s.kind", path);
    if (rc == 0)
        rc = arb_mp_str(v[DK_KIND], &kind, why, p);
    if (rc != 0)
        return rc;
    for (k = 1; k < DEAL_KINDS; k++)
        if (strcmp(kind, arb__deal_names[k]) == 0)
            break;
    free(kind);
    if (stated && k != ARB_DEAL_ORDER && k != ARB_DEAL_SEED)
        return arb_mp_fail(why, ARB_EPROTO, "%s: expected \"seed\" or "
                           "\"order\"", p);
    if (k == DEAL_KINDS)
        return arb_mp_fail(why, ARB_EPROTO, "%s: expected \"order\", "
                           "\"seed\" or \"commit\" (omit deal for none)",
                           p);
    d->kind = k;
    if (v[DK_CARDS] != NULL) {
        snprintf(p, sizeof(p), "%s.cards", path);
        rc = parse_strv(v[DK_CARDS], ARB_DEAL_MAX, &d->cards, &d->ncards,
                        why, p);
        if (rc != 0)
            return rc;
    }
    if (v[DK_SEED] != NULL) {
        snprintf(p, sizeof(p), "%s.seed", path);
        rc = arb_mp_str(v[DK_SEED], &d->seed, why, p);
        if (rc != 0)
            return rc;
    }
    if (stated) {
        rc = check_deal(d, why, path);
        return rc == ARB_EINVAL ? ARB_EPROTO : rc;
    }
    /* An all-zero array cannot say whether the key was there, so the
     * presence rule is enforced here rather than in check_deal(). */
    snprintf(p, sizeof(p), "%s.seed_hash", path);
    hashed = k == ARB_DEAL_SEED || k == ARB_DEAL_COMMIT;
    if (v[DK_HASH] == NULL && hashed)
        return arb_mp_fail(why, ARB_EPROTO, "%s: required for kind \"%s\"",
                           p, arb__deal_names[k]);
    if (v[DK_HASH] != NULL && !hashed)
        return arb_mp_fail(why, ARB_EPROTO, "%s: not allowed for kind "
                           "\"%s\"", p, arb__deal_names[k]);
    if (v[DK_HASH] != NULL) {
        if (v[DK_HASH]->type != MSGPACK_OBJECT_BIN)
            return arb_mp_fail(why, ARB_EPROTO, "%s: expected bin, got %s",
                               p, arb_mp_type_name(v[DK_HASH]));
        if (v[DK_HASH]->via.bin.size != ARB_HASH_LEN)
            return arb_mp_fail(why, ARB_EPROTO, "%s: expected %d bytes, got "
                               "%u", p, ARB_HASH_LEN,
                               (unsigned)v[DK_HASH]->via.bin.size);
        memcpy(d->seed_hash, v[DK_HASH]->via.bin.ptr, ARB_HASH_LEN);
    }
    return 0;
}

int
arb_deal_decode(arb_deal_t *d, const msgpack_object *o, arb_buf_t *why,
                const char *path)
{
    int rc;

    memset(d, 0, sizeof(*d));
    rc = parse_deal(d, o, 1, why, path);
    if (rc != 0) {
        arb_strv_free(d->cards, d->ncards);
        free(d->seed);
        memset(d, 0, sizeof(*d));
    }
    return rc;
}

static int
parse_players(arb_setup_t *s, const msgpack_object *o, arb_buf_t *why)
{
    const msgpack_object *v[PK_N];
    char                  p[64];
    uint64_t              team;
    uint32_t              i, size;
    int                   rc;

    if (o->type != MSGPACK_OBJECT_ARRAY)
        return arb_mp_fail(why, ARB_EPROTO,
                           "event.setup.players: expected array, got %s",
                           arb_mp_type_name(o));
    size = o->via.array.size;
    if (size == 0)
        return arb_mp_fail(why, ARB_EPROTO, "event.setup.players: empty "
                           "array (omit the key instead)");
    if (size > ARB_PLAYERS_MAX)
        return arb_mp_fail(why, ARB_ETOOBIG,
                           "event.setup.players: %u elements, over the "
                           "limit of %d", (unsigned)size, ARB_PLAYERS_MAX);
    s->players = calloc(size, sizeof(*s->players));
    if (s->players == NULL)
        return arb_mp_fail(why, ARB_ENOMEM, "out of memory");
    for (i = 0; i < size; i++) {
        snprintf(p, sizeof(p), "event.setup.players[%u]", (unsigned)i);
        rc = arb_mp_fields(&o->via.array.ptr[i], arb__player_keys, PK_N, 1, v,
                           why, p);
        if (rc != 0)
            return rc;
        snprintf(p, sizeof(p), "event.setup.players[%u].name", (unsigned)i);
        rc = arb_mp_str(v[PK_NAME], &s->players[i].name, why, p);
        if (rc != 0)
            return rc;
        s->nplayers++;
        s->players[i].team = -1;
        if (v[PK_TEAM] != NULL) {
            snprintf(p, sizeof(p), "event.setup.players[%u].team",
                     (unsigned)i);
            rc = arb_mp_uint(v[PK_TEAM], &team, why, p);
            if (rc != 0)
                return rc;
            if (team >= s->nteams)
                return arb_mp_fail(why, ARB_EPROTO,
                                   "%s: %llu is not the index of one of "
                                   "%zu teams", p, (unsigned long long)team,
                                   s->nteams);
            s->players[i].team = (int)team;
        }
    }
    return 0;
}

static int
parse_options(arb_setup_t *s, const msgpack_object *o, arb_buf_t *why)
{
    const msgpack_object *pair;
    char                  p[64];
    uint32_t              i, size;
    int                   rc;

    if (o->type != MSGPACK_OBJECT_ARRAY)
        return arb_mp_fail(why, ARB_EPROTO,
                           "event.setup.options: expected array, got %s",
                           arb_mp_type_name(o));
    size = o->via.array.size;
    if (size == 0)
        return arb_mp_fail(why, ARB_EPROTO, "event.setup.options: empty "
                           "array (omit the key instead)");
    if (size > ARB_OPTIONS_MAX)
        return arb_mp_fail(why, ARB_ETOOBIG,
                           "event.setup.options: %u elements, over the "
                           "limit of %d", (unsigned)size, ARB_OPTIONS_MAX);
    s->options = calloc(size, sizeof(*s->options));
    if (s->options == NULL)
        return arb_mp_fail(why, ARB_ENOMEM, "out of memory");
    for (i = 0; i < size; i++) {
        pair = &o->via.array.ptr[i];
        snprintf(p, sizeof(p), "event.setup.options[%u]", (unsigned)i);
        if (pair->type != MSGPACK_OBJECT_ARRAY || pair->via.array.size != 2)
            return arb_mp_fail(why, ARB_EPROTO,
                               "%s: expected [key, value] array, got %s",
                               p, arb_mp_type_name(pair));
        /* Count the entry first: clearing frees both halves either way. */
        s->noptions++;
        snprintf(p, sizeof(p), "event.setup.options[%u][0]", (unsigned)i);
        rc = arb_mp_str(&pair->via.array.ptr[0], &s->options[i].key, why,
                        p);
        if (rc != 0)
            return rc;
        snprintf(p, sizeof(p), "event.setup.options[%u][1]", (unsigned)i);
        rc = arb_mp_str(&pair->via.array.ptr[1], &s->options[i].value, why,
                        p);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int
parse_setup(arb_setup_t *s, const msgpack_object *o, arb_buf_t *why)
{
    const msgpack_object *v[SK_N];
    int                   rc;

    rc = arb_mp_fields(o, arb__setup_keys, SK_N, 1, v, why, "event.setup");
    if (rc == 0)
        rc = arb_mp_str(v[SK_GAME], &s->game, why, "event.setup.game");
    if (rc == 0)
        rc = arb_mp_str(v[SK_MATCH], &s->match_id, why,
                        "event.setup.match");
    if (rc == 0 && v[SK_EDITION] != NULL)
        rc = arb_mp_str(v[SK_EDITION], &s->edition, why,
                        "event.setup.edition");
    if (rc == 0 && v[SK_ENGINE] != NULL)
        rc = arb_mp_str(v[SK_ENGINE], &s->engine, why,
                        "event.setup.engine");
    if (rc == 0 && v[SK_TEAMS] != NULL)
        rc = parse_strv(v[SK_TEAMS], ARB_TEAMS_MAX, &s->teams, &s->nteams,
                        why, "event.setup.teams");
    if (rc == 0 && v[SK_PLAYERS] != NULL)
        rc = parse_players(s, v[SK_PLAYERS], why);
    if (rc == 0 && v[SK_OPTIONS] != NULL)
        rc = parse_options(s, v[SK_OPTIONS], why);
    if (rc == 0 && v[SK_DEAL] != NULL)
        rc = parse_deal(&s->deal, v[SK_DEAL], 0, why, "event.setup.deal");
    return rc;
}

static int
parse_event(arb_event_t *ev, const msgpack_object *root, arb_buf_t *why)
{
    const msgpack_object *v[EK_N];
    uint64_t              u;
    char                 *kind = NULL;
    int                   rc;

    rc = arb_mp_fields(root, arb__ev_keys, EK_N, 1, v, why, "event");
    if (rc == 0)
        rc = arb_mp_uint(v[EK_V], &u, why, "event.v");
    if (rc != 0)
        return rc;
    if (u != ARB_EVENT_VERSION)
        return arb_mp_fail(why, ARB_EUNSUPP,
                           "event.v: unsupported version %llu",
                           (unsigned long long)u);
    rc = arb_mp_str(v[EK_KIND], &kind, why, "event.kind");
    if (rc != 0)
        return rc;
    ev->kind = arb_event_kind_parse(kind);
    free(kind);
    if (ev->kind < 0)
        return arb_mp_fail(why, ARB_EPROTO, "event.kind: unknown kind");
    rc = arb_mp_uint(v[EK_SEQ], &ev->seq, why, "event.seq");
    if (rc != 0)
        return rc;
    if (v[EK_TIME] != NULL) {
        rc = arb_mp_uint(v[EK_TIME], &u, why, "event.time");
        if (rc != 0)
            return rc;
        if (u == 0 || u > INT64_MAX)
            return arb_mp_fail(why, ARB_EPROTO,
                               "event.time: %llu is out of range (omit the "
                               "key when unknown)", (unsigned long long)u);
        ev->time_ms = (int64_t)u;
    }
    if (v[EK_ACTOR] != NULL
        && (rc = arb_mp_str(v[EK_ACTOR], &ev->actor, why,
                            "event.actor")) != 0)
        return rc;
    if (v[EK_CID] != NULL
        && (rc = arb_mp_str(v[EK_CID], &ev->client_id, why,
                            "event.cid")) != 0)
        return rc;
    if (v[EK_PLAYER] != NULL
        && (rc = arb_mp_str(v[EK_PLAYER], &ev->player, why,
                            "event.player")) != 0)
        return rc;
    if (v[EK_VERB] != NULL
        && (rc = arb_mp_str(v[EK_VERB], &ev->verb, why, "event.verb")) != 0)
        return rc;
    if (v[EK_ARGS] != NULL
        && (rc = parse_strv(v[EK_ARGS], arb_event_args_max(ev->kind),
                            &ev->args, &ev->nargs,
                            why, "event.args")) != 0)
        return rc;
    /* target 0 is a legal value, so presence must be checked on the map. */
    if (v[EK_TARGET] == NULL && has_target(ev->kind))
        return arb_mp_fail(why, ARB_EPROTO,
                           "event.target: required for kind \"%s\"",
                           arb_event_kind_name(ev->kind));
    if (v[EK_TARGET] != NULL && !has_target(ev->kind))
        return arb_mp_fail(why, ARB_EPROTO,
                           "event.target: not allowed for kind \"%s\"",
                           arb_event_kind_name(ev->kind));
    if (v[EK_TARGET] != NULL
        && (rc = arb_mp_uint(v[EK_TARGET], &ev->target, why,
                             "event.target")) != 0)
        return rc;
    if (v[EK_TEXT] != NULL
        && (rc = arb_mp_str(v[EK_TEXT], &ev->text, why, "event.text")) != 0)
        return rc;
    if (v[EK_SETUP] != NULL) {
        ev->setup = calloc(1, sizeof(*ev->setup));
        if (ev->setup == NULL)
            return arb_mp_fail(why, ARB_ENOMEM, "out of memory");
        rc = parse_setup(ev->setup, v[EK_SETUP], why);
    }
    return rc;
}

int
arb_event_decode(arb_event_t *ev, const char *buf, size_t len,
                 arb_buf_t *why)
{
    /* Nearly every stored event is read by the in-place walker; anything
     * it does not accept outright (an open's setup, any irregularity) is
     * judged here, which also words the refusal. */
    if (arb__event_walk(ev, (const unsigned char *)buf, len) == 0)
        return 0;
    return arb__event_decode_tree(ev, buf, len, why);
}

void
arb_event_scratch_free(arb_event_scratch_t *sc)
{
    if (sc == NULL)
        return;
    if (sc->owned)
        arb_event_clear(&sc->ev);
    free(sc->mem);
    memset(sc, 0, sizeof(*sc));
}

int
arb_event_decode_scratch(arb_event_scratch_t *sc, const char *buf,
                         size_t len, arb_buf_t *why, const arb_event_t **out)
{
    size_t need = arb__event_walk_room(len);
    char  *mem;
    int    rc;

    *out = NULL;
    if (sc->owned)
        arb_event_clear(&sc->ev);
    sc->owned = 0;
    /* Grows only past the largest event so far: no allocation per event
     * in a replay, and an event over the limits is the walker's to
     * refuse before it is read (ARB_FRAME_MAX bounds len). */
    if (need > sc->cap) {
        mem = realloc(sc->mem, need);
        if (mem == NULL)
            return arb_mp_fail(why, ARB_ENOMEM, "out of memory");
        sc->mem = mem;
        sc->cap = need;
    }
    if (arb__event_walk_in(&sc->ev, (const unsigned char *)buf, len,
                           sc->mem) != 0) {
        rc = arb__event_decode_tree(&sc->ev, buf, len, why);
        if (rc != 0)
            return rc;
        sc->owned = 1;
    }
    *out = &sc->ev;
    return 0;
}

int
arb__event_decode_tree(arb_event_t *ev, const char *buf, size_t len,
                       arb_buf_t *why)
{
    msgpack_unpacked res;
    arb_buf_t        again = ARB_BUF_INIT;
    size_t           i;
    int              rc;

    memset(ev, 0, sizeof(*ev));
    rc = arb_mp_parse(&res, buf, len, why);
    if (rc != 0)
        goto fail;
    rc = parse_event(ev, &res.data, why);
    if (rc != 0)
        goto fail;
    rc = arb_event_check(ev, why);
    if (rc == ARB_EINVAL)
        rc = ARB_EPROTO;
    if (rc != 0)
        goto fail;
    /* The field rules cannot see how a value was written (a uint8 holding
     * 5, a str8 holding "v", a map16 of 3 entries), so re-encode and
     * demand identical bytes: this makes the canonical form exact. */
    rc = encode_checked(&again, ev);
    if (rc != 0) {
        arb_mp_fail(why, rc, "out of memory");
        goto fail;
    }
    if (again.len != len || memcmp(again.data, buf, len) != 0) {
        for (i = 0; i < len && i < again.len; i++)
            if (again.data[i] != buf[i])
                break;
        rc = arb_mp_fail(why, ARB_EPROTO,
                         "event: not in canonical form (first difference "
                         "at offset %zu)", i);
        goto fail;
    }
    arb_buf_free(&again);
    msgpack_unpacked_destroy(&res);
    return 0;

fail:
    arb_buf_free(&again);
    msgpack_unpacked_destroy(&res);
    arb_event_clear(ev);
    return rc;
}
