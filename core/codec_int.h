/*
 * codec_int.h - what the two readers of the canonical event encoding share
 * (codec.c, the full decoder; codec_walk.c, the in-place walker).
 */
#ifndef ARB_CODEC_INT_H
#define ARB_CODEC_INT_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/event.h"

/* Event keys; the order of the table IS the canonical key order. */
enum {
    EK_V, EK_KIND, EK_SEQ, EK_TIME, EK_ACTOR, EK_CID, EK_PLAYER, EK_VERB,
    EK_ARGS, EK_TARGET, EK_TEXT, EK_SETUP, EK_N
};
extern const char *const arb__ev_keys[EK_N];
extern const unsigned char arb__ev_key_len[EK_N];   /* strlen of each */
/* Each key, and each event kind's name, as its fixstr (header, then the
 * bytes) in the low bytes of a word in memory order (arb_load_le64). */
extern const uint64_t arb__ev_key_word[EK_N];
extern const uint64_t arb__ev_kind_word[ARB_EV_KIND_MAX];

/* The setup's, a player's and a deal's keys, in canonical order too, and
 * the deal kinds by their wire names (index = enum arb_deal_kind). */
enum {
    SK_GAME, SK_MATCH, SK_EDITION, SK_ENGINE, SK_TEAMS, SK_PLAYERS,
    SK_OPTIONS, SK_DEAL, SK_N
};
enum { PK_NAME, PK_TEAM, PK_N };
enum { DK_KIND, DK_CARDS, DK_SEED, DK_HASH, DK_N };
#define DEAL_KINDS 4
extern const char *const arb__setup_keys[SK_N];
extern const char *const arb__player_keys[PK_N];
extern const char *const arb__deal_keys[DK_N];
extern const char *const arb__deal_names[DEAL_KINDS];

/* Reads an event straight from its canonical bytes: no
 * msgpack object tree, no re-encoding.  It accepts only bytes that are
 * already canonical (every header in its shortest form, keys in order,
 * fields as arb_event_check() wants them), a subset of what
 * arb_event_decode() accepts, with the same result.  0 with *ev filled
 * (owned as after arb_event_decode), or -1 with *ev cleared: the caller
 * then decodes the slow way, which accepts or words the refusal. */
int arb__event_walk(arb_event_t *ev, const unsigned char *p, size_t len);

/* The same walk with every string and the args array placed in `mem`
 * (arb__event_walk_room(len) bytes, 8-byte aligned) instead of allocated:
 * *ev then points into mem and must not be cleared.  0 or -1 (*ev
 * zeroed); an open is always -1 here (its setup is allocated: read it
 * with arb__event_walk). */
int    arb__event_walk_in(arb_event_t *ev, const unsigned char *p,
                          size_t len, char *mem);
size_t arb__event_walk_room(size_t len);

/* 0 when an event the walker read is one arb_event_check() accepts, else
 * -1: the rules the walker does not apply as it reads (it checks every
 * string's length, NUL bytes and UTF-8, refuses an empty actor, client
 * id, player or verb, and reads at most 15 args), without wording a
 * refusal. */
int arb__event_check_walked(const arb_event_t *ev);

/* The full decoder behind arb_event_decode(): a msgpack object tree,
 * field by field, then a re-encoding compared byte for byte.  Same
 * contract as arb_event_decode(). */
int arb__event_decode_tree(arb_event_t *ev, const char *buf, size_t len,
                           arb_buf_t *why);

#endif
