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
#include "core/event_json.h"
#include "core/json.h"
#include "core/transcript.h"

/* ---- JSON lines ------------------------------------------------------- */

static json_t *
strv_value(char *const *v, size_t n)
{
    json_t *a = json_array();
    size_t  i;
    int     bad = 0;

    for (i = 0; i < n; i++)
        bad |= arb_json_add(a, arb_json_string(v[i]));
    return bad ? (json_decref(a), NULL) : a;
}

/* Sets key to the string v unless v is NULL.  0 or -1. */
static int
set_str(json_t *o, const char *key, const char *v)
{
    return v == NULL ? 0 : arb_json_set(o, key, arb_json_string(v));
}

static json_t *
deal_value(const arb_deal_t *d)
{
    json_t *o = json_object();
    char    hex[ARB_HASH_HEX];
    int     bad = 0;

    bad |= arb_json_set(o, "kind", json_string(
                            d->kind == ARB_DEAL_ORDER ? "order"
                            : d->kind == ARB_DEAL_SEED ? "seed" : "commit"));
    if (d->kind == ARB_DEAL_ORDER && d->ncards > 0)
        bad |= arb_json_set(o, "cards", strv_value(d->cards, d->ncards));
    if (d->kind == ARB_DEAL_SEED)
        bad |= set_str(o, "seed", d->seed);
    if (d->kind == ARB_DEAL_SEED || d->kind == ARB_DEAL_COMMIT) {
        arb_hex(hex, d->seed_hash, ARB_HASH_LEN);
        bad |= arb_json_set(o, "seed_hash", json_string(hex));
    }
    return bad ? (json_decref(o), NULL) : o;
}

static json_t *
setup_value(const arb_setup_t *s)
{
    json_t *o = json_object(), *a, *p;
    size_t  i;
    int     bad = 0;

    bad |= arb_json_set(o, "game", arb_json_string(s->game));
    bad |= set_str(o, "match", s->match_id);
    bad |= set_str(o, "edition", s->edition);
    bad |= set_str(o, "engine", s->engine);
    if (s->nteams > 0)
        bad |= arb_json_set(o, "teams", strv_value(s->teams, s->nteams));
    if (s->nplayers > 0) {
        a = json_array();
        for (i = 0; i < s->nplayers; i++) {
            p = json_object();
            bad |= arb_json_set(p, "name", arb_json_string(s->players[i].name));
            if (s->players[i].team >= 0)
                bad |= arb_json_set(p, "team",
                                    json_integer(s->players[i].team));
            bad |= arb_json_add(a, p);
        }
        bad |= arb_json_set(o, "players", a);
    }
    if (s->noptions > 0) {
        a = json_array();
        for (i = 0; i < s->noptions; i++) {
            p = json_array();
            bad |= arb_json_add(p, arb_json_string(s->options[i].key));
            bad |= arb_json_add(p, arb_json_string(s->options[i].value));
            bad |= arb_json_add(a, p);
        }
        bad |= arb_json_set(o, "options", a);
    }
    if (s->deal.kind != ARB_DEAL_NONE)
        bad |= arb_json_set(o, "deal", deal_value(&s->deal));
    return bad ? (json_decref(o), NULL) : o;
}

/* The canonical map of proto/PROTOCOL.md, key for key, as JSON. */
static json_t *
event_value(const arb_event_t *ev)
{
    json_t *o = json_object();
    int     bad = 0;

    bad |= arb_json_set(o, "v", json_integer(1));
    bad |= arb_json_set(o, "kind", json_string(arb_event_kind_name(ev->kind)));
    bad |= arb_json_set(o, "seq", json_integer((json_int_t)ev->seq));
    if (ev->time_ms > 0)
        bad |= arb_json_set(o, "time", json_integer((json_int_t)ev->time_ms));
    bad |= set_str(o, "actor", ev->actor);
    bad |= set_str(o, "cid", ev->client_id);
    bad |= set_str(o, "player", ev->player);
    bad |= set_str(o, "verb", ev->verb);
    if (ev->nargs > 0)
        bad |= arb_json_set(o, "args", strv_value(ev->args, ev->nargs));
    if (ev->kind == ARB_EV_VOID || ev->kind == ARB_EV_AMEND)
        bad |= arb_json_set(o, "target", json_integer((json_int_t)ev->target));
    bad |= set_str(o, "text", ev->text);
    if (ev->setup != NULL)
        bad |= arb_json_set(o, "setup", setup_value(ev->setup));
    return bad ? (json_decref(o), NULL) : o;
}

/* One line of the export: the event with its chain links and bytes. */
json_t *
arb_bundle_jsonl_line(const char *match, const arb_history_rec_t *e,
                      const arb_event_t *ev, const unsigned char *prev)
{
    json_t   *o = json_object();
    arb_buf_t bytes = ARB_BUF_INIT;
    char      iso[32], hex[ARB_HASH_HEX];
    int       bad = 0;

    arb_iso_time(iso, ev->time_ms);
    bad |= arb_json_set(o, "match", arb_json_string(match));
    bad |= arb_json_set(o, "seq", json_integer((json_int_t)e->seq));
    bad |= arb_json_set(o, "time", ev->time_ms > 0 ? json_string(iso)
                                                   : json_null());
    bad |= arb_json_set(o, "time_ms", json_integer((json_int_t)ev->time_ms));
    bad |= arb_json_set(o, "actor", arb_json_string_or_null(ev->actor));
    bad |= arb_json_set(o, "kind", json_string(arb_event_kind_name(ev->kind)));
    bad |= arb_json_set(o, "body", event_value(ev));
    arb_hex(hex, prev, ARB_HASH_LEN);
    bad |= arb_json_set(o, "prev", json_string(hex));
    arb_hex(hex, e->hash, ARB_HASH_LEN);
    bad |= arb_json_set(o, "hash", json_string(hex));
    if (arb_buf_reserve(&bytes, 2 * e->len + 1) == 0) {
        arb_hex(bytes.data, e->bytes, e->len);
        bytes.len = 2 * e->len;
    }
    bad |= arb_json_set(o, "bytes", bytes.oom ? NULL
                                    : json_stringn(bytes.data, bytes.len));
    arb_buf_free(&bytes);
    return bad ? (json_decref(o), NULL) : o;
}

int
arb_bundle_jsonl(arb_buf_t *out, const arb_bundle_t *b, size_t m)
{
    static const unsigned char zero[ARB_HASH_LEN];
    const arb_history_t       *h = &b->matches[m];
    size_t                     i;
    int                        rc = 0;

    for (i = 0; i <= h->nevents && rc == 0; i++) {
        rc = arb_json_put_new(out, arb_bundle_jsonl_line(
                 b->cps[m].match_id, &h->recs[i],
                 i == 0 ? &h->open : &h->events[i - 1],
                 i == 0 ? zero : h->recs[i - 1].hash));
        arb_buf_putc(out, '\n');
    }
    return rc != 0 || out->oom ? ARB_ENOMEM : 0;
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
match_results(arb_history_t *h, const char *match_id, arb_results_t *r,
              arb_buf_t *why)
{
    arb_match_t *match = NULL;
    arb_buf_t    msg = ARB_BUF_INIT;
    int          rc;

    rc = arb__bundle_replay(h, &match, &msg);
    if (rc == 0)
        rc = arb_match_results(match, r);
    if (rc != 0 && msg.len > 0) {
        arb_buf_free(why);
        arb_buf_printf(why, "match '%s': %s", match_id, arb_buf_cstr(&msg));
    }
    arb_match_free(match);
    arb_buf_free(&msg);
    return rc;
}

int
arb_bundle_csv(arb_buf_t *out, arb_bundle_t *b,
               const arb_results_t *const *given, arb_buf_t *why)
{
    arb_results_t        *own;
    const arb_results_t **res;
    const char          **keys = NULL;
    arb_buf_t             tmp = ARB_BUF_INIT;
    size_t                nkeys = 0, i, j, k, f;
    int                   rc = 0;

    own = calloc(b->nmatches ? b->nmatches : 1, sizeof(*own));
    res = calloc(b->nmatches ? b->nmatches : 1, sizeof(*res));
    if (own == NULL || res == NULL) {
        rc = ARB_ENOMEM;
        goto done;
    }
    for (i = 0; rc == 0 && i < b->nmatches; i++) {
        res[i] = given != NULL && given[i] != NULL ? given[i] : &own[i];
        if (res[i] == &own[i])
            rc = match_results(&b->matches[i], b->cps[i].match_id, &own[i],
                               why);
        for (j = 0; rc == 0 && j < res[i]->nrecords; j++)
            for (f = 0; rc == 0 && f < res[i]->records[j].nfields; f++)
                rc = header_add(&keys, &nkeys,
                                res[i]->records[j].fields[f].key);
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
        for (j = 0; j < res[i]->nrecords; j++) {
            const arb_record_t *rec = &res[i]->records[j];
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
    for (i = 0; own != NULL && i < b->nmatches; i++)
        arb_results_clear(&own[i]);
    free(own);
    free(res);
    free(keys);
    arb_buf_free(&tmp);
    return rc;
}

/* ---- transcript ------------------------------------------------------- */

int
arb_bundle_transcript(arb_buf_t *out, const arb_bundle_t *b, size_t m)
{
    const arb_history_t *h = &b->matches[m];

    return arb_transcript_format(out, &h->open, h->events, h->nevents);
}
