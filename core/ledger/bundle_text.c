/*
 * bundle_text.c - the text renderings of an export: JSON lines, the CSV
 * of the registration records, and the transcript.
 *
 * DESIGN: each format is computed from the same raw event bytes the
 * bundle carries, decoded by the one canonical decoder; the CSV replays
 * the events through the rules rather than trusting any stored result, so
 * every export format says what the bundle verifier would derive.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/ledger/bundle_int.h"
#include "core/ledger/chain.h"
#include "core/err.h"
#include "core/json.h"
#include "core/transcript.h"

/* ---- JSON lines ------------------------------------------------------- */

static void
json_strv(arb_buf_t *b, char *const *v, size_t n)
{
    size_t i;

    arb_buf_putc(b, '[');
    for (i = 0; i < n; i++) {
        if (i > 0)
            arb_buf_putc(b, ',');
        arb_json_str(b, v[i]);
    }
    arb_buf_putc(b, ']');
}

static void
json_kv_str(arb_buf_t *b, const char *k, const char *v)
{
    if (v == NULL)
        return;
    arb_buf_printf(b, ",\"%s\":", k);
    arb_json_str(b, v);
}

static void
json_deal(arb_buf_t *b, const arb_deal_t *d)
{
    char hex[ARB_HASH_HEX];

    arb_buf_printf(b, ",\"deal\":{\"kind\":\"%s\"",
                   d->kind == ARB_DEAL_ORDER ? "order"
                   : d->kind == ARB_DEAL_SEED ? "seed" : "commit");
    if (d->kind == ARB_DEAL_ORDER && d->ncards > 0) {
        arb_buf_puts(b, ",\"cards\":");
        json_strv(b, d->cards, d->ncards);
    }
    if (d->kind == ARB_DEAL_SEED)
        json_kv_str(b, "seed", d->seed);
    if (d->kind == ARB_DEAL_SEED || d->kind == ARB_DEAL_COMMIT) {
        arb_hex(hex, d->seed_hash, ARB_HASH_LEN);
        arb_buf_printf(b, ",\"seed_hash\":\"%s\"", hex);
    }
    arb_buf_putc(b, '}');
}

static void
json_setup(arb_buf_t *b, const arb_setup_t *s)
{
    size_t i;

    arb_buf_puts(b, ",\"setup\":{\"game\":");
    arb_json_str(b, s->game);
    json_kv_str(b, "match", s->match_id);
    json_kv_str(b, "edition", s->edition);
    json_kv_str(b, "engine", s->engine);
    if (s->nteams > 0) {
        arb_buf_puts(b, ",\"teams\":");
        json_strv(b, s->teams, s->nteams);
    }
    if (s->nplayers > 0) {
        arb_buf_puts(b, ",\"players\":[");
        for (i = 0; i < s->nplayers; i++) {
            arb_buf_puts(b, i > 0 ? ",{\"name\":" : "{\"name\":");
            arb_json_str(b, s->players[i].name);
            if (s->players[i].team >= 0)
                arb_buf_printf(b, ",\"team\":%d", s->players[i].team);
            arb_buf_putc(b, '}');
        }
        arb_buf_putc(b, ']');
    }
    if (s->noptions > 0) {
        arb_buf_puts(b, ",\"options\":[");
        for (i = 0; i < s->noptions; i++) {
            arb_buf_puts(b, i > 0 ? ",[" : "[");
            arb_json_str(b, s->options[i].key);
            arb_buf_putc(b, ',');
            arb_json_str(b, s->options[i].value);
            arb_buf_putc(b, ']');
        }
        arb_buf_putc(b, ']');
    }
    if (s->deal.kind != ARB_DEAL_NONE)
        json_deal(b, &s->deal);
    arb_buf_putc(b, '}');
}

/* The canonical map of proto/PROTOCOL.md, key for key, as JSON. */
static void
json_event(arb_buf_t *b, const arb_event_t *ev)
{
    arb_buf_printf(b, "{\"v\":1,\"kind\":\"%s\",\"seq\":%" PRIu64,
                   arb_event_kind_name(ev->kind), ev->seq);
    if (ev->time_ms > 0)
        arb_buf_printf(b, ",\"time\":%" PRId64, ev->time_ms);
    json_kv_str(b, "actor", ev->actor);
    json_kv_str(b, "cid", ev->client_id);
    json_kv_str(b, "player", ev->player);
    json_kv_str(b, "verb", ev->verb);
    if (ev->nargs > 0) {
        arb_buf_puts(b, ",\"args\":");
        json_strv(b, ev->args, ev->nargs);
    }
    if (ev->kind == ARB_EV_VOID || ev->kind == ARB_EV_AMEND)
        arb_buf_printf(b, ",\"target\":%" PRIu64, ev->target);
    json_kv_str(b, "text", ev->text);
    if (ev->setup != NULL)
        json_setup(b, ev->setup);
    arb_buf_putc(b, '}');
}

/* Unix ms as "2026-03-01T10:00:00.123Z"; null when unknown. */
static void
json_iso_time(arb_buf_t *b, int64_t ms)
{
    struct tm tm;
    time_t    s;

    if (ms <= 0) {
        arb_buf_puts(b, "null");
        return;
    }
    s = (time_t)(ms / 1000);
    if (gmtime_r(&s, &tm) == NULL) {
        arb_buf_puts(b, "null");
        return;
    }
    arb_buf_printf(b, "\"%04d-%02d-%02dT%02d:%02d:%02d.%03dZ\"",
                   tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                   tm.tm_min, tm.tm_sec, (int)(ms % 1000));
}

int
arb_bundle_jsonl(arb_buf_t *out, const arb_bundle_match_t *m, arb_buf_t *why)
{
    static const unsigned char zero[ARB_HASH_LEN];
    arb_history_t h;
    arb_event_t  *ev;
    char          hex[ARB_HASH_HEX];
    size_t        i;
    int           rc;

    memset(&h, 0, sizeof(h));
    rc = arb_history_from_bundle(&h, m, why);
    if (rc != 0) {
        arb_history_clear(&h);
        return rc;
    }
    for (i = 0; i < m->nevents; i++) {
        const arb_bundle_event_t *e = &m->events[i];
        arb_buf_puts(out, "{\"match\":");
        arb_json_str(out, m->cp.match_id);
        ev = i == 0 ? &h.open : &h.events[i - 1];
        arb_buf_printf(out, ",\"seq\":%" PRIu64 ",\"time\":", e->seq);
        json_iso_time(out, ev->time_ms);
        arb_buf_printf(out, ",\"time_ms\":%" PRId64 ",\"actor\":",
                       ev->time_ms);
        if (ev->actor != NULL)
            arb_json_str(out, ev->actor);
        else
            arb_buf_puts(out, "null");
        arb_buf_printf(out, ",\"kind\":\"%s\",\"body\":",
                       arb_event_kind_name(ev->kind));
        json_event(out, ev);
        arb_hex(hex, i == 0 ? zero : m->events[i - 1].hash, ARB_HASH_LEN);
        arb_buf_printf(out, ",\"prev\":\"%s\"", hex);
        arb_hex(hex, e->hash, ARB_HASH_LEN);
        arb_buf_printf(out, ",\"hash\":\"%s\",\"bytes\":\"", hex);
        if (arb_buf_reserve(out, 2 * e->len + 1) == 0) {
            arb_hex(out->data + out->len, e->bytes, e->len);
            out->len += 2 * e->len;
        }
        arb_buf_puts(out, "\"}\n");
    }
    arb_history_clear(&h);
    return out->oom ? ARB_ENOMEM : 0;
}

/* ---- CSV -------------------------------------------------------------- */

void
arb__bundle_csv_cell(arb_buf_t *b, const char *s, size_t n)
{
    size_t i;

    for (i = 0; i < n && s[i] != ',' && s[i] != '"' && s[i] != '\r'
                && s[i] != '\n'; i++)
        ;
    if (i == n) {
        arb_buf_add(b, s, n);
        return;
    }
    arb_buf_putc(b, '"');
    for (i = 0; i < n; i++) {
        if (s[i] == '"')
            arb_buf_putc(b, '"');
        arb_buf_putc(b, s[i]);
    }
    arb_buf_putc(b, '"');
}

static void
csv_field(arb_buf_t *b, arb_buf_t *tmp, const arb_field_t *f)
{
    size_t i;

    tmp->len = 0;
    if (f->type == ARB_F_INT) {
        arb_buf_printf(tmp, "%" PRId64, f->num);
    } else if (f->type == ARB_F_STR) {
        arb_buf_puts(tmp, f->str ? f->str : "");
    } else {
        for (i = 0; i < f->nlist; i++) {
            if (i > 0)
                arb_buf_putc(tmp, ' ');
            arb_buf_puts(tmp, f->list[i]);
        }
    }
    arb__bundle_csv_cell(b, tmp->len ? tmp->data : "", tmp->len);
}

/* Adds key to the header unless present.  0 or ARB_ENOMEM. */
static int
header_add(const char ***keys, size_t *n, const char *key)
{
    const char **nv;
    size_t       i;

    for (i = 0; i < *n; i++)
        if (strcmp((*keys)[i], key) == 0)
            return 0;
    nv = realloc(*keys, (*n + 1) * sizeof(*nv));
    if (nv == NULL)
        return ARB_ENOMEM;
    nv[(*n)++] = key;
    *keys = nv;
    return 0;
}

static int
match_results(const arb_bundle_match_t *m, arb_results_t *r, arb_buf_t *why)
{
    arb_history_t h;
    arb_match_t  *match = NULL;
    arb_buf_t     msg = ARB_BUF_INIT;
    int           rc;

    memset(&h, 0, sizeof(h));
    rc = arb_history_from_bundle(&h, m, &msg);
    if (rc == 0)
        rc = arb__bundle_replay(&h, &match, &msg);
    if (rc == 0)
        rc = arb_match_results(match, r);
    if (rc != 0 && msg.len > 0) {
        arb_buf_free(why);
        arb_buf_printf(why, "match '%s': %s", m->cp.match_id,
                       arb_buf_cstr(&msg));
    }
    arb_match_free(match);
    arb_history_clear(&h);
    arb_buf_free(&msg);
    return rc;
}

int
arb_bundle_csv(arb_buf_t *out, const arb_bundle_t *b, arb_buf_t *why)
{
    arb_results_t *res;
    const char   **keys = NULL;
    arb_buf_t      tmp = ARB_BUF_INIT;
    size_t         nkeys = 0, i, j, k, f;
    int            rc = 0;

    res = calloc(b->nmatches ? b->nmatches : 1, sizeof(*res));
    if (res == NULL)
        return ARB_ENOMEM;
    for (i = 0; rc == 0 && i < b->nmatches; i++) {
        rc = match_results(&b->matches[i], &res[i], why);
        for (j = 0; rc == 0 && j < res[i].nrecords; j++)
            for (f = 0; rc == 0 && f < res[i].records[j].nfields; f++)
                rc = header_add(&keys, &nkeys,
                                res[i].records[j].fields[f].key);
    }
    if (rc != 0 || nkeys == 0)
        goto done;
    for (k = 0; k < nkeys; k++) {
        if (k > 0)
            arb_buf_putc(out, ',');
        arb__bundle_csv_cell(out, keys[k], strlen(keys[k]));
    }
    arb_buf_puts(out, "\r\n");
    for (i = 0; i < b->nmatches; i++) {
        for (j = 0; j < res[i].nrecords; j++) {
            const arb_record_t *rec = &res[i].records[j];
            for (k = 0; k < nkeys; k++) {
                const arb_field_t *fld = arb_record_get(rec, keys[k]);
                if (k > 0)
                    arb_buf_putc(out, ',');
                if (fld != NULL)
                    csv_field(out, &tmp, fld);
            }
            arb_buf_puts(out, "\r\n");
        }
    }
    rc = out->oom || tmp.oom ? ARB_ENOMEM : 0;
done:
    for (i = 0; i < b->nmatches; i++)
        arb_results_clear(&res[i]);
    free(res);
    free(keys);
    arb_buf_free(&tmp);
    return rc;
}

/* ---- transcript ------------------------------------------------------- */

int
arb_bundle_transcript(arb_buf_t *out, const arb_bundle_match_t *m,
                      arb_buf_t *why)
{
    arb_history_t h;
    int           rc;

    memset(&h, 0, sizeof(h));
    rc = arb_history_from_bundle(&h, m, why);
    if (rc == 0)
        rc = arb_transcript_format(out, &h.open, h.events, h.nevents);
    arb_history_clear(&h);
    return rc;
}
