/*
 * arbiter state / matches / stats - the recorder's reads.
 *
 * DESIGN: `state --json` prints the daemon's own report verbatim (the
 * shape of `arbiter replay --json`).  The text form is `arbiter replay`'s
 * text, made by replaying the match's events here up to the seq the daemon
 * reported, and checked against the daemon's digest: nothing is parsed out
 * of the JSON but two scalars, and a client whose engine disagrees with
 * the daemon says so instead of printing a different state.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/json.h"
#include "core/jsonin.h"
#include "core/mp.h"
#include "tools/cli.h"
#include "tools/net.h"

static void
usage_state(FILE *f)
{
    fprintf(f,
        "usage: arbiter state --match ID [--at N] [--json] "
        "[connection options]\n\n"
        "Prints the match's state as the recorder has committed it: the\n"
        "rulings (when there are), the registration records, each\n"
        "player's total and the state digest,\n"
        "as 'arbiter replay' prints them for a transcript.  The text is\n"
        "this tool's replay of the recorded events, checked against the\n"
        "daemon's digest: a difference is reported, with exit status 1.\n"
        "A running dealt match cannot be replayed here (the recorder keeps\n"
        "its deal until the close): its text is the recorder's own.\n\n"
        "options:\n"
        "  --match ID   the match\n"
        "  --at N       the state after event N\n"
        "  --json       the daemon's JSON report, as 'arbiter replay --json'\n"
        "               prints it\n\n");
    cli_net_usage(f);
    cli_net_usage_status(f);
}

static void
usage_matches(FILE *f)
{
    fprintf(f,
        "usage: arbiter matches [--game G] [--status open|closed] [--json]\n"
        "                       [connection options]\n\n"
        "Lists the recorded matches, one per line:\n"
        "  <match> <game> <open|closed> <last seq> <time of the last "
        "event>\n"
        "or with --json one object per line:\n"
        "  {\"match\",\"game\",\"status\",\"last_seq\",\"head\",\"created\","
        "\"created_ms\",\n"
        "   \"last\",\"last_ms\"}  (times ISO 8601 UTC and Unix ms)\n\n");
    cli_net_usage(f);
    cli_net_usage_status(f);
}

static void
usage_stats(FILE *f)
{
    fprintf(f,
        "usage: arbiter stats [--json] [connection options]\n\n"
        "Prints the recorder's counters ('name value' lines, or one JSON\n"
        "object with --json).  A section's counters (replication, replica)\n"
        "print as 'section.name value', nested objects in JSON; flags as\n"
        "true or false.\n\n");
    cli_net_usage(f);
    cli_net_usage_status(f);
}

/* The digest and seq of a report made by arb_report_json; the digest ""
 * when the recorder withholds it from this viewer (a running match that
 * hides cards: core/view.h arb_view_hides_digest).  0 or -1. */
static int
report_head(const char *json, size_t len, char digest[ARB_HASH_HEX],
            uint64_t *seq)
{
    json_t     *rep = NULL, *js, *jd;
    const char *d;
    int         rc = -1;

    if (arb_json_parse(&rep, json, len, NULL) != 0)
        return -1;
    jd = json_object_get(rep, "digest");
    d = json_is_null(jd) ? "" : json_string_value(jd);
    js = json_object_get(rep, "seq");
    if (d != NULL && (*d == '\0' || strlen(d) == ARB_HASH_HEX - 1)
        && json_is_integer(js) && json_integer_value(js) >= 0) {
        memcpy(digest, d, strlen(d) + 1);
        *seq = (uint64_t)json_integer_value(js);
        rc = 0;
    }
    json_decref(rep);
    return rc;
}

/*
 * A running dealt match: its log holds only the deal's commitment, and
 * the recorder, which keeps the deal, never sends it, so this tool cannot
 * replay the match (until 2026-12-05 `arbiter state` failed so, all
 * through the match, for every dealt game).  The recorder's own text of
 * the same seq is printed instead: records and totals are public, and
 * the digest is there for a viewer who sees every hand.
 */
static int
print_sealed(cli_net_t *n, const char *match, uint64_t seq)
{
    const char *text;
    size_t      len;
    int         status;

    status = cli_net_state_with(n, match, seq, "text");
    if (status != CLI_OK)
        return status;
    if (cli_get_bytes(&n->res.data, "text", &text, &len) != 0) {
        fprintf(stderr, "arbiter state: match %s is judged by the "
                "recorder alone, and its answer has no text of it\n",
                match);
        return CLI_ERROR;
    }
    fwrite(text, 1, len, stdout);
    return CLI_OK;
}

int
cmd_state(int argc, char **argv)
{
    cli_net_t       n;
    arb_history_t   h;
    msgpack_packer *pk;
    const char     *match = NULL, *json;
    char            digest[ARB_HASH_HEX];
    arb_buf_t       why = ARB_BUF_INIT;
    size_t          jlen;
    const char     *at_s = NULL;
    uint64_t        at = 0, seq;
    int             as_json = 0, status;
    const cli_optdef_t opts[] = {
        { "--json", CLI_ARG_FLAG, &as_json },
        { "--match", CLI_ARG_STR, &match },
        /* A string: every number is a seq, none means "no --at". */
        { "--at", CLI_ARG_STR, &at_s },
        { NULL, 0, NULL }
    };
    cli_args_t a = {
        .cmd = "state",
        .usage = usage_state,
        .opts = opts,
        .net = &n,
        .no_words = 1,
    };

    memset(&h, 0, sizeof(h));
    cli_net_init(&n, "state");
    status = cli_args_parse(&a, argc, argv);
    if (status >= 0)
        goto done;
    status = CLI_ERROR;
    if (match == NULL) {
        fprintf(stderr, "arbiter state: --match is required\n");
        usage_state(stderr);
        goto done;
    }
    if (at_s != NULL && cli_parse_u64("state", "--at", at_s, &at) != 0)
        goto done;
    if (cli_net_connect(&n) != 0)
        goto done;
    pk = cli_net_begin(&n, "state", 1 + (at_s != NULL));
    cli_pack_str(pk, "match", match);
    if (at_s != NULL)
        cli_pack_uint(pk, "at", at);
    status = cli_net_call(&n);
    if (status != CLI_OK)
        goto done;
    status = CLI_ERROR;
    if (cli_get_bytes(&n.res.data, "json", &json, &jlen) != 0) {
        fprintf(stderr, "arbiter state: the server's answer has no json\n");
        goto done;
    }
    if (as_json) {
        fwrite(json, 1, jlen, stdout);
        putchar('\n');
        status = CLI_OK;
        goto done;
    }
    if (report_head(json, jlen, digest, &seq) != 0) {
        fprintf(stderr, "arbiter state: the server's report has no digest "
                "or seq\n");
        goto done;
    }
    status = cli_history_from_server(&h, &n, match, seq, &why);
    if (status != CLI_OK || h.nevents != seq) {
        if (status == CLI_OK || why.len > 0)
            fprintf(stderr, "arbiter state: match %s: %s\n", match,
                    why.len > 0 ? arb_buf_cstr(&why)
                    : "the server sent fewer events than its state");
        status = CLI_ERROR;
        goto done;
    }
    if (arb_history_sealed(&h)) {
        status = print_sealed(&n, match, seq);
        goto done;
    }
    if (arb_history_name(&h, "arbiter state: match %s", match) != 0)
        goto done;
    status = cli_replay_print(&h, seq, 0, digest[0] != '\0' ? digest : NULL);
done:
    cli_net_close(&n);
    arb_history_clear(&h);
    arb_buf_free(&why);
    return status;
}

/* A str value as a C string in buf (truncated to fit). */
static const char *
str_of(const msgpack_object *map, const char *key, char *buf, size_t len)
{
    const char *p = "";
    size_t      k;

    if (cli_get_bytes(map, key, &p, &k) != 0) {
        p = "";
        k = 0;
    }
    if (k >= len)
        k = len - 1;
    memcpy(buf, p, k);
    buf[k] = '\0';
    return buf;
}

int
cmd_matches(int argc, char **argv)
{
    cli_net_t             n;
    msgpack_packer       *pk;
    const msgpack_object *list, *m;
    const char           *game = NULL, *st = NULL, *head;
    arb_buf_t             out = ARB_BUF_INIT;
    char                  id[80], g[80], s[16], last[32], after[80];
    size_t                hlen;
    uint64_t              last_seq;
    int64_t               c_ms, l_ms;
    uint32_t              k;
    int                   as_json = 0, status, has_head;
    const cli_optdef_t opts[] = {
        { "--json", CLI_ARG_FLAG, &as_json },
        { "--game", CLI_ARG_STR, &game },
        { "--status", CLI_ARG_STR, &st },
        { NULL, 0, NULL }
    };
    cli_args_t ar = {
        .cmd = "matches",
        .usage = usage_matches,
        .opts = opts,
        .net = &n,
        .no_words = 1,
    };

    cli_net_init(&n, "matches");
    status = cli_args_parse(&ar, argc, argv);
    if (status >= 0)
        return status;
    status = CLI_ERROR;
    if (st != NULL && strcmp(st, "open") != 0 && strcmp(st, "closed") != 0) {
        fprintf(stderr, "arbiter matches: --status open or closed, not "
                "'%s'\n", st);
        return CLI_ERROR;
    }
    if (cli_net_connect(&n) != 0)
        goto done;
    after[0] = '\0';
next_page:      /* the list comes in pages: "after" the last id */
    pk = cli_net_begin(&n, "matches", (game != NULL) + (st != NULL)
                       + (after[0] != 0));
    if (game != NULL)
        cli_pack_str(pk, "game", game);
    if (st != NULL)
        cli_pack_str(pk, "status", st);
    if (after[0] != 0)
        cli_pack_str(pk, "after", after);
    status = cli_net_call(&n);
    if (status != 0)
        goto done;
    list = arb_client_get(&n.res, "matches");
    if (list == NULL || list->type != MSGPACK_OBJECT_ARRAY) {
        fprintf(stderr, "arbiter matches: the server's answer has no "
                "matches\n");
        status = CLI_ERROR;
        goto done;
    }
    for (k = 0; k < list->via.array.size; k++) {
        m = &list->via.array.ptr[k];
        last_seq = 0;
        c_ms = l_ms = 0;
        cli_get_uint(m, "last_seq", &last_seq);
        cli_get_int(m, "created", &c_ms);
        cli_get_int(m, "last", &l_ms);
        arb_iso_time(last, l_ms);
        has_head = cli_get_bytes(m, "head", &head, &hlen) == 0 && hlen == ARB_HASH_LEN;
        str_of(m, "match", id, sizeof(id));
        str_of(m, "game", g, sizeof(g));
        str_of(m, "status", s, sizeof(s));
        out.len = 0;
        if (as_json) {
            arb_json_match(&out, id, g, strcmp(s, "closed") == 0, last_seq,
                           has_head ? (const unsigned char *)head : NULL,
                           c_ms, l_ms);
            arb_buf_putc(&out, '\n');
        } else {
            arb_buf_printf(&out, "%s %s %s %" PRIu64 " %s\n", id, g, s,
                           last_seq, last);
        }
        if (out.oom) {
            fprintf(stderr, "arbiter matches: out of memory\n");
            status = CLI_ERROR;
            goto done;
        }
        fwrite(out.data, 1, out.len, stdout);
    }
    m = arb_client_get(&n.res, "next");
    if (m != NULL && m->type == MSGPACK_OBJECT_STR && m->via.str.size > 0
        && m->via.str.size < sizeof(after)) {
        memcpy(after, m->via.str.ptr, m->via.str.size);
        after[m->via.str.size] = '\0';
        goto next_page;
    }
done:
    cli_net_close(&n);
    arb_buf_free(&out);
    return status;
}

/* Sections nest no deeper than this (the daemon's go one level down). */
#define STATS_DEPTH 4

/*
 * One stats map, whatever counters the daemon has, in its order (the tool
 * need not change when one is added): "prefix.name value" lines into out,
 * or members of js.  Unsigned and signed integers, strings, booleans and
 * nested maps; nil as JSON null and as no line (a section that is off:
 * `replication` without [replicate]; until 2026-12-06 --json dropped the
 * key, so "off" read like "an older daemon"); anything else is skipped.
 * 0 or -1 (out of memory).
 */
static int
stats_put(arb_buf_t *out, json_t *js, const char *prefix,
          const msgpack_object *map, int depth)
{
    char     key[128], val[256];
    uint32_t k;
    int      bad = 0;

    if (map->type != MSGPACK_OBJECT_MAP)
        return 0;
    for (k = 0; k < map->via.map.size; k++) {
        const msgpack_object *ko = &map->via.map.ptr[k].key;
        const msgpack_object *vo = &map->via.map.ptr[k].val;
        json_t               *jv = NULL;

        if (ko->type != MSGPACK_OBJECT_STR || ko->via.str.size >= 64)
            continue;
        snprintf(key, sizeof(key), "%s%s%.*s", prefix, *prefix ? "." : "",
                 (int)ko->via.str.size, ko->via.str.ptr);
        if (depth == 0 && (strcmp(key, "v") == 0 || strcmp(key, "id") == 0
                           || strcmp(key, "ok") == 0))
            continue;
        switch (vo->type) {
        case MSGPACK_OBJECT_POSITIVE_INTEGER:
            snprintf(val, sizeof(val), "%" PRIu64, vo->via.u64);
            if (js != NULL)
                jv = json_integer((json_int_t)vo->via.u64);
            break;
        case MSGPACK_OBJECT_NEGATIVE_INTEGER:
            snprintf(val, sizeof(val), "%" PRId64, vo->via.i64);
            if (js != NULL)
                jv = json_integer((json_int_t)vo->via.i64);
            break;
        case MSGPACK_OBJECT_BOOLEAN:
            snprintf(val, sizeof(val), "%s",
                     vo->via.boolean ? "true" : "false");
            if (js != NULL)
                jv = json_boolean(vo->via.boolean);
            break;
        case MSGPACK_OBJECT_STR:
            snprintf(val, sizeof(val), "%.*s", (int)vo->via.str.size,
                     vo->via.str.ptr);
            if (js != NULL)
                jv = arb_json_string(val);
            break;
        case MSGPACK_OBJECT_NIL:
            if (js == NULL)
                continue;
            jv = json_null();
            break;
        case MSGPACK_OBJECT_MAP:
            if (depth + 1 >= STATS_DEPTH)
                continue;
            if (js == NULL) {
                bad |= stats_put(out, NULL, key, vo, depth + 1);
                continue;
            }
            jv = json_object();
            if (jv == NULL
                || stats_put(NULL, jv, "", vo, depth + 1) != 0) {
                json_decref(jv);
                return -1;
            }
            break;
        default:
            continue;
        }
        if (js != NULL) {
            /* the member's own name: the prefix is the object it is in */
            snprintf(key, sizeof(key), "%.*s", (int)ko->via.str.size,
                     ko->via.str.ptr);
            bad |= arb_json_set(js, key, jv);
        } else {
            arb_buf_printf(out, "%s %s\n", key, val);
        }
    }
    return bad ? -1 : 0;
}

int
cmd_stats(int argc, char **argv)
{
    cli_net_t  n;
    arb_buf_t  out = ARB_BUF_INIT;
    json_t    *js = NULL;
    int        as_json = 0, status;
    const cli_optdef_t opts[] = {
        { "--json", CLI_ARG_FLAG, &as_json },
        { NULL, 0, NULL }
    };
    cli_args_t ar = {
        .cmd = "stats",
        .usage = usage_stats,
        .opts = opts,
        .net = &n,
    };

    cli_net_init(&n, "stats");
    status = cli_args_parse(&ar, argc, argv);
    if (status >= 0)
        return status;
    status = CLI_ERROR;
    if (cli_net_connect(&n) != 0)
        goto done;
    cli_net_begin(&n, "stats", 0);
    status = cli_net_call(&n);
    if (status != 0)
        goto done;
    if (as_json) {
        js = json_object();
        if (js != NULL && stats_put(NULL, js, "", &n.res.data, 0) != 0) {
            json_decref(js);
            js = NULL;
        }
        status = cli_print_json("stats", js);
        goto done;
    }
    if (stats_put(&out, NULL, "", &n.res.data, 0) != 0 || out.oom) {
        fprintf(stderr, "arbiter stats: out of memory\n");
        status = CLI_ERROR;
        goto done;
    }
    fwrite(out.data, 1, out.len, stdout);
done:
    cli_net_close(&n);
    arb_buf_free(&out);
    return status;
}
