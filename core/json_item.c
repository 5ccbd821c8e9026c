#include "core/json.h"
#include "core/json_item.h"

void
arb_json_match(arb_buf_t *out, const char *match, const char *game,
               int closed, uint64_t last_seq, const unsigned char *head,
               int64_t created_ms, int64_t last_ms)
{
    json_t *o = json_object();
    char    hex[ARB_HASH_HEX], created[32], last[32];
    int     bad = 0;

    if (head != NULL)
        arb_hex32(hex, head);
    arb_iso_time(created, created_ms);
    arb_iso_time(last, last_ms);
    bad |= arb_json_set(o, "match", arb_json_string(match));
    bad |= arb_json_set(o, "game", arb_json_string(game));
    bad |= arb_json_set(o, "status", json_string(closed ? "closed" : "open"));
    bad |= arb_json_set(o, "last_seq", json_integer((json_int_t)last_seq));
    /* null where the head is withheld (docs/VIEWS.md) */
    bad |= arb_json_set(o, "head", head != NULL ? json_string(hex)
                                                : json_null());
    bad |= arb_json_set(o, "created", json_string(created));
    bad |= arb_json_set(o, "created_ms", json_integer(created_ms));
    bad |= arb_json_set(o, "last", json_string(last));
    bad |= arb_json_set(o, "last_ms", json_integer(last_ms));
    if (bad) {
        json_decref(o);
        out->oom = 1;
        return;
    }
    arb_json_put_new(out, o);
}
