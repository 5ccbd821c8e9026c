#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/json.h"
#include "core/json_item.h"

void
arb_json_match(arb_buf_t *out, const char *match, const char *game,
               int closed, uint64_t last_seq, const unsigned char *head,
               int64_t created_ms, int64_t last_ms)
{
    char hex[ARB_HASH_HEX], created[32], last[32];

    if (head != NULL)
        arb_hex32(hex, head);
    arb_iso_time(created, created_ms);
    arb_iso_time(last, last_ms);
    arb_buf_puts(out, "{\"match\":");
    arb_json_str(out, match);
    arb_buf_puts(out, ",\"game\":");
    arb_json_str(out, game);
    arb_buf_puts(out, ",\"status\":");
    arb_json_str(out, closed ? "closed" : "open");
    arb_buf_printf(out, ",\"last_seq\":%" PRIu64 ",\"head\":", last_seq);
    /* null where the head is withheld (docs/VIEWS.md) */
    if (head != NULL)
        arb_buf_printf(out, "\"%s\"", hex);
    else
        arb_buf_puts(out, "null");
    arb_buf_printf(out, ",\"created\":\"%s\",\"created_ms\":%" PRId64 ","
                   "\"last\":\"%s\",\"last_ms\":%" PRId64 "}",
                   created, created_ms, last, last_ms);
}
