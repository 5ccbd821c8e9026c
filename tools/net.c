/*
 * net.c - the client side shared by the subcommands that talk to arbiterd
 * (see net.h).
 *
 * DESIGN: every command goes through cli_net_call, so a refusal always
 * reads "arbiter CMD: code: [rule: ]message" and exits 1, while anything
 * that kept the request from being judged (no socket, bad token, a broken
 * connection) exits 2: a script can tell "the move is illegal" from "try
 * again".
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/err.h"
#include "core/json.h"
#include "core/json_item.h"
#include "core/transcript.h"
#include "core/codec.h"
#include "core/mp.h"
#include "tools/cli.h"
#include "tools/net.h"

void
cli_net_init(cli_net_t *n, const char *cmd)
{
    memset(n, 0, sizeof(*n));
    n->cmd = cmd;
    msgpack_unpacked_init(&n->res);
}

void
cli_net_close(cli_net_t *n)
{
    if (n == NULL)
        return;
    arb_client_close(n->cl);
    n->cl = NULL;
    msgpack_unpacked_destroy(&n->res);
    msgpack_unpacked_init(&n->res);
    memset(n->tokbuf, 0, sizeof(n->tokbuf));
}

int
cli_opt(const char *cmd, const char *opt, int argc, char **argv, int *i,
        const char **val)
{
    size_t k = strlen(opt);

    if (strncmp(argv[*i], opt, k) != 0)
        return 0;
    if (argv[*i][k] == '=') {
        *val = argv[*i] + k + 1;
        return 1;
    }
    if (argv[*i][k] != '\0')
        return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "arbiter %s: %s needs a value\n", cmd, opt);
        return -1;
    }
    *val = argv[++*i];
    return 1;
}

int
cli_net_option(cli_net_t *n, int argc, char **argv, int *i)
{
    int rc;

    if ((rc = cli_opt(n->cmd, "--server", argc, argv, i, &n->server)) != 0
        || (rc = cli_opt(n->cmd, "--token", argc, argv, i, &n->token)) != 0
        || (rc = cli_opt(n->cmd, "--token-file", argc, argv, i,
                         &n->token_file)) != 0)
        return rc;
    return 0;
}

int
cli_net_print_ack(cli_net_t *n, const char *prefix)
{
    const msgpack_object *dup = arb_client_get(&n->res, "dup");
    const char           *hash;
    size_t                hlen;
    uint64_t              seq;
    char                  hex[ARB_HASH_HEX];

    if (arb_mp_get_uint(&n->res.data, "seq", &seq) != 0
        || arb_mp_get_bytes(&n->res.data, "hash", &hash, &hlen) != 0
        || hlen != ARB_HASH_LEN) {
        fprintf(stderr, "arbiter %s: the server's answer has no seq and "
                "hash\n", n->cmd);
        return CLI_ERROR;
    }
    arb_hex32(hex, (const unsigned char *)hash);
    printf("%sseq %" PRIu64 " hash %s%s\n", prefix, seq, hex,
           dup != NULL && dup->type == MSGPACK_OBJECT_BOOLEAN
           && dup->via.boolean ? " (duplicate)" : "");
    return 0;
}

void
cli_net_usage(FILE *f)
{
    fprintf(f,
        "connection:\n"
        "  --server ADDR      unix:PATH, tcp:HOST:PORT or a socket path;\n"
        "                     HOST a name or an address (IPv6 in\n"
        "                     brackets: tcp:[::1]:7411), PORT 1..65535\n"
        "                     (default: $ARBITER_SERVER, else\n"
        "                     " CLI_SERVER_DEFAULT ")\n"
        "  --token T          the access token (default: $ARBITER_TOKEN)\n"
        "  --token-file F     read the token from the first word of F\n"
        "  $ARBITER_TIMEOUT   seconds a connection or a request may wait\n"
        "                     (default %d; 0: for ever)\n",
        CLI_TIMEOUT_DEFAULT);
}

/* $ARBITER_TIMEOUT in ms: 0 and *ms, or -1 printed. */
static int
timeout_ms(const char *cmd, int *ms)
{
    const char *v = getenv("ARBITER_TIMEOUT");
    uint64_t    s;

    *ms = CLI_TIMEOUT_DEFAULT * 1000;
    if (v == NULL || *v == '\0')
        return 0;
    if (cli_parse_u64(cmd, "$ARBITER_TIMEOUT", v, &s) != 0)
        return -1;
    if (s > CLI_TIMEOUT_MAX) {
        fprintf(stderr, "arbiter %s: $ARBITER_TIMEOUT is at most %d s "
                "(0: for ever), not %s\n", cmd, CLI_TIMEOUT_MAX, v);
        return -1;
    }
    *ms = (int)s * 1000;
    return 0;
}

void
cli_net_usage_status(FILE *f)
{
    fprintf(f,
        "\nExit status: 0 done, 1 refused by the server (printed as\n"
        "'arbiter CMD: code: [rule: ]message'), 2 bad usage or a\n"
        "connection, authentication or I/O problem.\n");
}

/* The first word of the token file that is not in a '#' comment line, so
 * a file can say what the token is for. */
static int
read_token_file(cli_net_t *n)
{
    arb_buf_t   b = ARB_BUF_INIT;
    const char *p, *end;
    size_t      len;
    int         status = CLI_ERROR;

    if (cli_read_file(&b, n->token_file) != 0)
        goto done;
    p = arb_buf_cstr(&b);
    if (p == NULL)
        goto done;
    for (;;) {
        while (*p != '\0' && isspace((unsigned char)*p))
            p++;
        if (*p != '#')
            break;
        while (*p != '\0' && *p != '\n')
            p++;
    }
    for (end = p; *end != '\0' && !isspace((unsigned char)*end); end++)
        ;
    len = (size_t)(end - p);
    if (len == 0 || len >= sizeof(n->tokbuf)) {
        fprintf(stderr, "arbiter %s: %s: no token in the file\n", n->cmd,
                n->token_file);
        goto done;
    }
    /* Said here, where the file is known: the request would only say
     * "proto: token: invalid UTF-8". */
    if (!arb_mp_utf8_valid(p, len)) {
        fprintf(stderr, "arbiter %s: %s: the token is not valid UTF-8\n",
                n->cmd, n->token_file);
        goto done;
    }
    memcpy(n->tokbuf, p, len);
    n->tokbuf[len] = '\0';
    n->token = n->tokbuf;
    status = CLI_OK;
done:
    if (b.data != NULL)
        memset(b.data, 0, b.len);
    arb_buf_free(&b);
    return status;
}

int
cli_net_connect(cli_net_t *n)
{
    arb_buf_t   why = ARB_BUF_INIT;
    const char *addr = n->server;
    int         rc, ms, status = CLI_ERROR;

    if (addr == NULL)
        addr = getenv("ARBITER_SERVER");
    if (addr == NULL || *addr == '\0')
        addr = CLI_SERVER_DEFAULT;
    if (n->token_file != NULL && read_token_file(n) != 0)
        return CLI_ERROR;
    if (n->token == NULL)
        n->token = getenv("ARBITER_TOKEN");
    if (n->token == NULL || *n->token == '\0') {
        fprintf(stderr, "arbiter %s: no token: use --token, --token-file or "
                "$ARBITER_TOKEN\n", n->cmd);
        return CLI_ERROR;
    }
    if (timeout_ms(n->cmd, &ms) != 0)
        return CLI_ERROR;
    /* A server that takes the connection and never answers (stopped,
     * wedged, not arbiterd), or a host that never takes it, would hold
     * the tool for ever, or for the system's two minutes. */
    rc = arb_client_dial(&n->cl, addr, ms, &why);
    if (rc != 0) {
        fprintf(stderr, "arbiter %s: %s\n", n->cmd, arb_buf_cstr(&why));
        goto done;
    }
    rc = arb_client_auth(n->cl, n->token, &why);
    if (rc != 0) {
        /* Refused or not, the request was never judged: a setup problem. */
        fprintf(stderr, "arbiter %s: %s%s\n", n->cmd,
                rc == ARB_EINVAL ? "" : "authentication: ",
                arb_buf_cstr(&why));
        arb_client_close(n->cl);
        n->cl = NULL;
        goto done;
    }
    status = CLI_OK;
done:
    arb_buf_free(&why);
    return status;
}

msgpack_packer *
cli_net_begin(cli_net_t *n, const char *op, size_t nfields)
{
    msgpack_packer *pk;

    arb_client_begin(n->cl, &pk, op, nfields);
    return pk;
}

int
cli_net_call(cli_net_t *n)
{
    arb_buf_t why = ARB_BUF_INIT;
    int       rc;

    rc = arb_client_call(n->cl, &n->res, &why);
    if (rc != 0)
        fprintf(stderr, "arbiter %s: %s\n", n->cmd, arb_buf_cstr(&why));
    arb_buf_free(&why);
    return rc == 0 ? 0 : rc == ARB_EINVAL ? 1 : 2;
}

int
cli_net_state_with(cli_net_t *n, const char *match, uint64_t at,
                   const char *extra)
{
    msgpack_packer *pk = cli_net_begin(n, "state", extra != NULL ? 3 : 2);

    cli_pack_str(pk, "match", match);
    cli_pack_uint(pk, "at", at);
    if (extra != NULL)
        cli_pack_uint(pk, extra, 1);
    return cli_net_call(n);
}

int
cli_net_append_call(cli_net_t *n, const cli_append_t *a)
{
    msgpack_packer *pk;
    size_t          nf;

    nf = 2 + (a->cid != NULL) + (a->has_expect != 0) + (a->has_target != 0)
         + (a->text != NULL);
    if (a->nmove >= 2)
        nf += a->nmove > 2 ? 3 : 2;
    pk = cli_net_begin(n, "append", nf);
    arb_mp_pack_kv_str(pk, "match", a->match);
    arb_mp_pack_kv_str(pk, "kind", a->kind);
    if (a->cid != NULL)
        arb_mp_pack_kv_str(pk, "cid", a->cid);
    if (a->has_expect)
        arb_mp_pack_kv_uint(pk, "expect", a->expect);
    if (a->has_target)
        arb_mp_pack_kv_uint(pk, "target", a->target);
    if (a->nmove >= 2) {
        arb_mp_pack_kv_str(pk, "verb", a->move[0]);
        arb_mp_pack_kv_str(pk, "player", a->move[1]);
        /* The codec writes no empty list: a move without args omits it. */
        if (a->nmove > 2)
            arb_mp_pack_kv_strv(pk, "args", a->move + 2, a->nmove - 2);
    }
    if (a->text != NULL)
        arb_mp_pack_kv_str(pk, "text", a->text);
    return cli_net_call(n);
}

int
cli_net_append(cli_net_t *n, const cli_append_t *a)
{
    int rc = cli_net_append_call(n, a);

    return rc != 0 ? rc : cli_net_print_ack(n, "");
}

int
cli_parse_u64(const char *cmd, const char *opt, const char *s, uint64_t *out)
{
    char *end;

    /* strtoull accepts "-1" and " 7": a seq is digits only. */
    if (!isdigit((unsigned char)s[0]))
        goto bad;
    errno = 0;
    *out = strtoull(s, &end, 10);
    if (*end != '\0' || errno != 0)
        goto bad;
    return 0;
bad:
    fprintf(stderr, "arbiter %s: %s wants a number, not '%s'\n", cmd, opt,
            s);
    return -1;
}

/* Events per page: 9 objects each, well under ARB_ELEMS_MAX (8192). */
#define CLI_EVENTS_PAGE 500

int
cli_net_events(cli_net_t *n, const char *match, uint64_t from, uint64_t to,
               char *const *kinds, size_t nkinds, uint64_t since,
               cli_item_cb cb, void *ud)
{
    const msgpack_object *items, *next, *item;
    msgpack_packer       *pk;
    uint64_t              seq, prev = 0;
    uint32_t              i;
    int                   rc;

    for (;;) {
        pk = cli_net_begin(n, "events", 3 + (to != UINT64_MAX)
                           + (nkinds > 0) + (since > 0));
        arb_mp_pack_kv_str(pk, "match", match);
        arb_mp_pack_kv_uint(pk, "from", from);
        /* The client library parses every response under ARB_ELEMS_MAX
         * objects; an item costs 9, so the daemon's default page of 1000
         * would be refused. */
        arb_mp_pack_kv_uint(pk, "limit", CLI_EVENTS_PAGE);
        if (to != UINT64_MAX)
            arb_mp_pack_kv_uint(pk, "to", to);
        if (nkinds > 0)
            arb_mp_pack_kv_strv(pk, "kinds", kinds, nkinds);
        if (since > 0)
            arb_mp_pack_kv_uint(pk, "since", since);
        rc = cli_net_call(n);
        if (rc != 0)
            return rc;
        items = arb_client_get(&n->res, "events");
        next = arb_client_get(&n->res, "next");
        if (items == NULL || items->type != MSGPACK_OBJECT_ARRAY) {
            fprintf(stderr, "arbiter %s: the server's answer has no "
                    "events\n", n->cmd);
            return CLI_ERROR;
        }
        for (i = 0; i < items->via.array.size; i++) {
            /* In order, between from and to, or a listing that looks
             * whole may repeat events or hold others' (the item's own
             * faults are the callback's to name). */
            item = &items->via.array.ptr[i];
            if (arb_mp_get_uint(item, "seq", &seq) == 0
                && (seq < from || seq > to || (i > 0 && seq <= prev))) {
                fprintf(stderr, "arbiter %s: bad answer from server: seq "
                        "%" PRIu64 " %s %" PRIu64 "\n", n->cmd, seq,
                        seq < from ? "in a page asked from seq"
                        : seq > to ? "in a listing asked up to seq"
                        : "after seq", seq < from ? from
                        : seq > to ? to : prev);
                return CLI_ERROR;
            }
            prev = seq;
            rc = cb(ud, item);
            if (rc != 0)
                return rc;
        }
        if (next == NULL || next->type == MSGPACK_OBJECT_NIL)
            return 0;
        if (next->type != MSGPACK_OBJECT_POSITIVE_INTEGER) {
            /* Not the last page either: stopping here would print part
             * of the match as all of it. */
            fprintf(stderr, "arbiter %s: bad answer from server: next: "
                    "expected a seq or nil, got %s\n", n->cmd,
                    arb_mp_type_name(next));
            return CLI_ERROR;
        }
        if (next->via.u64 <= from) {
            /* A page that does not advance would loop for ever. */
            fprintf(stderr, "arbiter %s: the server's next page (%" PRIu64
                    ") does not advance past %" PRIu64 "\n", n->cmd,
                    next->via.u64, from);
            return CLI_ERROR;
        }
        from = next->via.u64;
    }
}

int
cli_event_format(arb_buf_t *out, const msgpack_object *item,
                 const char *match, int json, arb_buf_t *why)
{
    arb_event_t  ev;
    arb_buf_t    line = ARB_BUF_INIT;
    const char  *bytes, *hash;
    size_t       len, hlen;
    uint64_t     seq;
    int64_t      t = 0;
    char         iso[32];
    int          rc;

    memset(&ev, 0, sizeof(ev));
    if (arb_mp_get_uint(item, "seq", &seq) != 0
        || arb_mp_get_bytes(item, "event", &bytes, &len) != 0) {
        arb_buf_printf(why, "an event without seq or event bytes");
        return ARB_EPROTO;
    }
    /* A viewer that may not see a hidden card gets no hashes of an open
     * match (docs/VIEWS.md): `hash` is then absent, never malformed. */
    if (arb_mp_get_bytes(item, "hash", &hash, &hlen) != 0)
        hash = NULL;
    else if (hlen != ARB_HASH_LEN) {
        arb_buf_printf(why, "seq %" PRIu64 ": a hash of %zu bytes", seq,
                       hlen);
        return ARB_EPROTO;
    }
    rc = arb_event_decode(&ev, bytes, len, why);
    if (rc != 0) {
        arb_buf_t tmp = ARB_BUF_INIT;
        arb_buf_printf(&tmp, "seq %" PRIu64 ": %s", seq, arb_buf_cstr(why));
        arb_buf_free(why);
        *why = tmp;
        return rc;
    }
    /* Every item has its time: none was printed as 1970. */
    if (arb_mp_get_int(item, "time", &t) != 0) {
        arb_event_clear(&ev);
        arb_buf_printf(why, "seq %" PRIu64 ": no time, or one that is no "
                       "integer", seq);
        return ARB_EPROTO;
    }
    if (json) {
        rc = arb_event_json(out, match, seq, t, (const unsigned char *)hash,
                            &ev);
    } else {
        arb_iso_time(iso, t);
        arb_event_line(&line, &ev);
        if (line.oom)       /* (an event was printed without its line) */
            rc = ARB_ENOMEM;
        if (match != NULL)
            arb_buf_printf(out, "%s ", match);
        arb_buf_printf(out, "%" PRIu64 " %s %s ", seq, iso,
                       ev.actor != NULL ? ev.actor : "-");
        arb_buf_add(out, line.data, line.len);
    }
    arb_buf_putc(out, '\n');
    arb_buf_free(&line);
    arb_event_clear(&ev);
    if (rc == 0 && out->oom)
        rc = ARB_ENOMEM;
    if (rc != 0)        /* (out of memory: the reason was left empty) */
        arb_buf_printf(why, "seq %" PRIu64 ": %s", seq, arb_strerror(rc));
    return rc;
}
