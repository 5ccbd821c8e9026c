#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/json.h"
#include "core/json_item.h"
#include "core/transcript.h"

void
arb_hex32(char out[ARB_HASH_HEX], const unsigned char *h)
{
    static const char digits[] = "0123456789abcdef";
    int               i;

    for (i = 0; i < ARB_HASH_LEN; i++) {
        out[2 * i] = digits[h[i] >> 4];
        out[2 * i + 1] = digits[h[i] & 15];
    }
    out[64] = '\0';
}

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

void
arb_event_line(arb_buf_t *out, const arb_event_t *ev)
{
    const arb_setup_t *s = ev->setup;
    size_t             i;

    if (ev->kind != ARB_EV_OPEN || s == NULL) {
        arb_transcript_event_line(out, ev);
        return;
    }
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
}

void
arb_json_event(arb_buf_t *out, const char *match, uint64_t seq,
               int64_t time_ms, const unsigned char hash[ARB_HASH_LEN],
               const arb_event_t *ev)
{
    arb_buf_t line = ARB_BUF_INIT;
    char      hex[ARB_HASH_HEX], iso[32];

    if (hash != NULL)
        arb_hex32(hex, hash);
    arb_iso_time(iso, time_ms);
    arb_event_line(&line, ev);
    arb_buf_putc(out, '{');
    if (match != NULL) {
        arb_buf_puts(out, "\"match\":");
        arb_json_str(out, match);
        arb_buf_putc(out, ',');
    }
    arb_buf_printf(out, "\"seq\":%" PRIu64 ",\"time\":", seq);
    arb_json_str(out, iso);
    arb_buf_printf(out, ",\"time_ms\":%" PRId64 ",\"actor\":", time_ms);
    if (ev->actor != NULL)
        arb_json_str(out, ev->actor);
    else
        arb_buf_puts(out, "null");
    arb_buf_puts(out, ",\"kind\":");
    arb_json_str(out, arb_event_kind_name(ev->kind));
    arb_buf_puts(out, ",\"line\":");
    arb_json_str(out, arb_buf_cstr(&line));
    if (hash != NULL)
        arb_buf_printf(out, ",\"hash\":\"%s\"}", hex);
    else
        arb_buf_puts(out, ",\"hash\":null}");
    if (line.oom)
        out->oom = 1;
    arb_buf_free(&line);
}

void
arb_json_match(arb_buf_t *out, const char *match, const char *game,
               int closed, uint64_t last_seq, const unsigned char *head,
               int64_t created_ms, int64_t last_ms)
{
    char hex[ARB_HASH_HEX], created[32], last[32];

    if (head != NULL)
        arb_hex32(hex, head);
    else
        snprintf(hex, sizeof(hex), "-");
    arb_iso_time(created, created_ms);
    arb_iso_time(last, last_ms);
    arb_buf_puts(out, "{\"match\":");
    arb_json_str(out, match);
    arb_buf_puts(out, ",\"game\":");
    arb_json_str(out, game);
    arb_buf_puts(out, ",\"status\":");
    arb_json_str(out, closed ? "closed" : "open");
    arb_buf_printf(out, ",\"last_seq\":%" PRIu64 ",\"head\":\"%s\","
                   "\"created\":\"%s\",\"created_ms\":%" PRId64 ","
                   "\"last\":\"%s\",\"last_ms\":%" PRId64 "}",
                   last_seq, hex, created, created_ms, last, last_ms);
}
