/*
 * test_leak.c - no hidden card leaves the recorder for a viewer that may
 * not see it (docs/VIEWS.md), through a real daemon.
 *
 * A whole Tsukurutenten match (deals by the header's order and by deal
 * moves, draws that name their chip, an amend of a draw after its end)
 * and a whole Chắn hand are recorded
 * with `arbiter load`, left open, and read back as a reader and as the
 * player of each of two seats: the state at every seq, the events, the
 * pushes of a live all-matches subscription, of a catch-up one per match
 * and of a catch-up all-matches one, the match list and the checkpoint;
 * over HTTP the state at every seq, the events, the list, the
 * all-matches live stream and the match's own live stream (opened right
 * after the open, so its `state` messages cover the whole match, and
 * again with Last-Event-ID: 0, so its acks come from the store), each
 * as the reader and as each player (a player token sees its seat), and a
 * player of the other match, who is a spectator here, as is a player of
 * another match of the same game who has the name of one of its seats.
 * Nothing of tests/leak.h's forbidden set may appear; a player must see
 * its own hand and its own drawn chips.  After the close, every viewer
 * gets every event as recorded.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdint.h>

#include "core/codec.h"
#include "core/deal.h"
#include "core/err.h"
#include "core/ledger/history.h"
#include "core/transcript.h"
#include "tests/daemon_harness.h"
#include "tests/http_client.h"
#include "tests/leak.h"
#include "tests/test.h"

typedef struct game {
    const char *file, *match;
    const char *tok[2];         /* player tokens of seats 0 and 1 */
    int         hides_hashes;   /* the game conceals move arguments */
    const char *namesake;       /* a player of another match of the game,
                                   with the name of seat 0 */
} game_t;

static game_t games[] = {
    { "tests/data/tsuku-simple.txt", "TT-simple-1",
      { "leak-tt-ann-token-0123", "leak-tt-bob-token-0123" }, 1,
      "leak-tt-ann2-token-0123" },
    { "tests/data/chan-u-chi-tom.txt", "CHAN-EX-1",
      { "leak-ch-an-token-01234", "leak-ch-binh-token-0123" }, 0,
      "leak-ch-an2-token-01234" },
};

/* A scorer of the matches under test, and of no other. */
#define OWN_SCORER "leak-own-scorer-token-012"
#define PLAYER_TOKENS \
    "token = leak-tt-ann-token-0123 player tt-ann TT-simple-1 ann\n" \
    "token = leak-tt-bob-token-0123 player tt-bob TT-simple-1 bob\n" \
    "token = leak-ch-an-token-01234 player ch-an CHAN-EX-1 an\n" \
    "token = leak-ch-binh-token-0123 player ch-binh CHAN-EX-1 binh\n" \
    "token = leak-tt-ann2-token-0123 player tt-ann2 TT-simple-2 ann\n" \
    "token = leak-ch-an2-token-01234 player ch-an2 CHAN-EX-2 an\n" \
    "token = " OWN_SCORER " scorer own-sc TT-simple-1 CHAN-EX-1\n" \
    "[http]\nlisten = tcp:127.0.0.1:0\n"

/* The record as the test knows it: the transcript with its deal. */
typedef struct record {
    arb_history_t  h;
    char          *secret;
    unsigned char (*hash)[ARB_HASH_LEN];   /* hash[i] of event seq i + 1 */
} record_t;

static msgpack_unpacked res;

/* A request of n string/uint fields: "s" then key, value; "u" key, value. */
static int
call(arb_client_t *cl, const char *op, const char *fmt, ...)
{
    msgpack_packer *pk;
    arb_buf_t       why = ARB_BUF_INIT;
    va_list         ap;
    size_t          i, n = strlen(fmt);
    int             rc;

    arb_client_begin(cl, &pk, op, n);
    va_start(ap, fmt);
    for (i = 0; i < n; i++) {
        arb_mp_pack_cstr(pk, va_arg(ap, const char *));
        if (fmt[i] == 's')
            arb_mp_pack_cstr(pk, va_arg(ap, const char *));
        else
            msgpack_pack_uint64(pk, va_arg(ap, uint64_t));
    }
    va_end(ap);
    rc = arb_client_call(cl, &res, &why);
    arb_buf_free(&why);
    return rc;
}

/* The whole message just read, re-packed: what went over the wire. */
static void
raw_of(arb_buf_t *out, const msgpack_object *o)
{
    msgpack_packer pk;

    out->len = 0;
    arb_mp_packer_init(&pk, out);
    msgpack_pack_object(&pk, *o);
}

/* Checks one event item {seq, [hash], event} or push against `bad`: its
 * bytes, and its decoded line.  Fills *line with the line. */
static void
check_item(const msgpack_object *item, const leak_set_t *bad,
           const char *who, arb_buf_t *line, uint64_t *seq)
{
    arb_buf_t          raw = ARB_BUF_INIT;
    arb_event_t        ev;
    const char        *bytes;
    size_t             len;
    const leak_item_t *hit;

    raw_of(&raw, item);
    hit = leak_find(bad, raw.data, raw.len);
    if (hit != NULL)
        fprintf(stderr, "%s: an event frame shows %s\n", who, hit->why);
    CHECK(hit == NULL);
    line->len = 0;
    *seq = UINT64_MAX;
    if (arb_mp_get_uint(item, "seq", seq) != 0
        || arb_mp_get_bytes(item, "event", &bytes, &len) != 0
        || arb_event_decode(&ev, bytes, len, NULL) != 0) {
        CHECK(!"an event item without seq or a decodable event");
        arb_buf_free(&raw);
        return;
    }
    leak_event_line(line, &ev);
    hit = leak_find(bad, line->data, line->len);
    if (hit != NULL)
        fprintf(stderr, "%s: seq %llu '%s' shows %s\n", who,
                (unsigned long long)*seq, arb_buf_cstr(line), hit->why);
    CHECK(hit == NULL);
    arb_event_clear(&ev);
    arb_buf_free(&raw);
}

static int
record_load(record_t *r, const game_t *g)
{
    FILE         *f = fopen(g->file, "r");
    char          text[16384];
    size_t        len;
    arb_buf_t     why = ARB_BUF_INIT, sec = ARB_BUF_INIT;
    const char   *kind;
    int           rc;

    memset(r, 0, sizeof(*r));
    if (f == NULL)
        return -1;
    len = fread(text, 1, sizeof(text), f);
    fclose(f);
    rc = arb_transcript_parse(&r->h, text, len, &why);
    if (rc == 0 && arb_deal_secret(&r->h.open.setup->deal, &sec, &kind) == 0)
        r->secret = strdup(arb_buf_cstr(&sec));
    if (rc != 0)
        fprintf(stderr, "%s: %s\n", g->file, arb_buf_cstr(&why));
    arb_buf_free(&why);
    arb_buf_free(&sec);
    return rc;
}

static void
record_free(record_t *r)
{
    arb_history_clear(&r->h);
    free(r->secret);
    free(r->hash);
}

/* The match replayed with its deal after seq `at`. */
static arb_match_t *
replay_at(record_t *r, uint64_t at)
{
    arb_match_t  *m = NULL;
    arb_verdict_t v;
    size_t        bad;

    if (arb_history_replay(&r->h, at, &m, &bad, &v) != 0) {
        arb_match_free(m);
        return NULL;
    }
    return m;
}

static int
forbidden(leak_set_t *s, record_t *r, uint64_t at, const arb_viewer_t *who)
{
    arb_match_t *m = replay_at(r, at);
    int          rc;

    memset(s, 0, sizeof(*s));
    if (m == NULL)
        return -1;
    rc = leak_forbidden(s, m, r->h.events,
                        (const unsigned char (*)[ARB_HASH_LEN])r->hash,
                        r->h.nevents, at, r->secret, who);
    arb_match_free(m);
    return rc;
}

/* The recorded hashes, read as the arbiter. */
static int
read_hashes(record_t *r, const game_t *g)
{
    arb_client_t         *cl = harness_connect(HARNESS_ARBITER);
    const msgpack_object *evs;
    const char           *h;
    size_t                i, hl;
    uint64_t              seq;
    int                   rc = -1;

    r->hash = calloc(r->h.nevents + 1, ARB_HASH_LEN);
    if (cl == NULL || r->hash == NULL
        || call(cl, "events", "s", "match", g->match) != 0
        || (evs = arb_client_get(&res, "events")) == NULL
        || evs->via.array.size != r->h.nevents + 1)
        goto done;
    for (i = 1; i < evs->via.array.size; i++)
        if (arb_mp_get_uint(&evs->via.array.ptr[i], "seq", &seq) != 0
            || seq != i
            || arb_mp_get_bytes(&evs->via.array.ptr[i], "hash", &h, &hl)
            || hl != ARB_HASH_LEN)
            goto done;
        else
            memcpy(r->hash[i - 1], h, ARB_HASH_LEN);
    rc = 0;
done:
    arb_client_close(cl);
    return rc;
}

/* For a seat viewer, whether text (a state report at seq `at`) holds
 * exactly its own hand: 1 yes (2 when the hand is not empty), 0 no;
 * always 1 for any other viewer. */
static int
shows_own_hand(record_t *r, uint64_t at, const arb_viewer_t *who,
               const char *text, size_t len)
{
    arb_match_t *m;
    arb_buf_t    own = ARB_BUF_INIT, want = ARB_BUF_INIT;
    int          ok;

    if (who->kind != ARB_VIEW_SEAT)
        return 1;
    if ((m = replay_at(r, at)) == NULL)
        return 0;
    leak_hand(&own, m, who->seat);
    arb_buf_puts(&want, "\"hand_cards\":");
    arb_buf_add(&want, own.data, own.len);
    ok = own.len > 0 && memmem(text, len, want.data, want.len) != NULL;
    ok += ok && own.len > 2;
    arb_match_free(m);
    arb_buf_free(&own);
    arb_buf_free(&want);
    return ok;
}

/* The state at every seq, as `who` through token `tok`. */
static void
check_states(record_t *r, const game_t *g, const char *tok,
             const arb_viewer_t *who)
{
    arb_client_t         *cl = harness_connect(tok);
    const msgpack_object *js;
    const leak_item_t    *hit;
    leak_set_t            bad;
    uint64_t              at;
    size_t                seen = 0;
    int                   own;

    CHECK(cl != NULL);
    for (at = 0; cl != NULL && at <= r->h.nevents; at++) {
        CHECK_INT(forbidden(&bad, r, at, who), 0);
        CHECK_INT(call(cl, "state", "su", "match", g->match, "at", at), 0);
        js = arb_client_get(&res, "json");
        CHECK(js != NULL && js->type == MSGPACK_OBJECT_STR);
        if (js == NULL || js->type != MSGPACK_OBJECT_STR) {
            leak_set_free(&bad);
            break;
        }
        hit = leak_find(&bad, js->via.str.ptr, js->via.str.size);
        if (hit != NULL)
            fprintf(stderr, "%s state at %llu shows %s\n", g->match,
                    (unsigned long long)at, hit->why);
        CHECK(hit == NULL);
        own = shows_own_hand(r, at, who, js->via.str.ptr, js->via.str.size);
        CHECK(own > 0);
        seen += own == 2;
        leak_set_free(&bad);
    }
    if (who->kind == ARB_VIEW_SEAT)
        CHECK(seen > 0);
    arb_client_close(cl);
}

/* How many of the record's moves `who` sees with every argument. */
static size_t
count_whole_lines(const record_t *r, const arb_viewer_t *who)
{
    const arb_setup_t *setup = r->h.open.setup;
    const arb_rules_t *rules = arb_rules_find(setup->game);
    size_t             i, n = 0;
    int                owner;

    for (i = 0; i < r->h.nevents; i++) {
        const arb_event_t *ev = &r->h.events[i];
        owner = -1;
        if (ev->kind != ARB_EV_MOVE)
            continue;
        if (rules->conceal == NULL
            || rules->conceal(setup, ev, &owner) >= ev->nargs
            || (who->kind == ARB_VIEW_SEAT && owner >= 0
                && (unsigned)owner == who->seat))
            n++;
        else if (who->kind == ARB_VIEW_ALL)
            n++;
    }
    return n;
}

/* The events as `who` gets them: nothing forbidden; every move it may see
 * whole is whole (its own draws included). */
static void
check_events(record_t *r, const game_t *g, const char *tok,
             const arb_viewer_t *who, const leak_set_t *bad)
{
    arb_client_t         *cl = harness_connect(tok);
    const msgpack_object *evs;
    arb_buf_t             line = ARB_BUF_INIT, want = ARB_BUF_INIT;
    uint64_t              seq;
    size_t                i, whole = 0;

    CHECK(cl != NULL);
    if (cl == NULL || call(cl, "events", "s", "match", g->match) != 0
        || (evs = arb_client_get(&res, "events")) == NULL) {
        CHECK(!"events read");
        arb_client_close(cl);
        return;
    }
    /* after the close, the close too */
    CHECK(evs->via.array.size >= r->h.nevents + 1);
    for (i = 0; i < evs->via.array.size; i++) {
        check_item(&evs->via.array.ptr[i], bad, tok, &line, &seq);
        if (seq == 0 || seq > r->h.nevents)
            continue;
        want.len = 0;
        leak_event_line(&want, &r->h.events[seq - 1]);
        whole += r->h.events[seq - 1].kind == ARB_EV_MOVE
                 && strcmp(arb_buf_cstr(&line), arb_buf_cstr(&want)) == 0;
    }
    CHECK_INT(whole, count_whole_lines(r, who));
    arb_buf_free(&line);
    arb_buf_free(&want);
    arb_client_close(cl);
}

/* Reads the pushes of subscription connection cl until seq `last` of the
 * match arrived; each is checked.  Returns how many events of the match;
 * with r, *whole counts the moves pushed whole (as recorded). */
static size_t
drain_whole(arb_client_t *cl, const game_t *g, const leak_set_t *bad,
            const char *who, uint64_t last, const record_t *r,
            size_t *whole)
{
    arb_buf_t             why = ARB_BUF_INIT, line = ARB_BUF_INIT;
    arb_buf_t             want = ARB_BUF_INIT;
    const msgpack_object *m;
    uint64_t              seq;
    size_t                n = 0;

    while (arb_client_read(cl, &res, &why) == 0) {
        m = arb_client_get(&res, "match");
        if (arb_client_get(&res, "push") == NULL || m == NULL
            || m->type != MSGPACK_OBJECT_STR)
            continue;
        if (m->via.str.size != strlen(g->match)
            || memcmp(m->via.str.ptr, g->match, m->via.str.size) != 0)
            continue;
        check_item(&res.data, bad, who, &line, &seq);
        n++;
        if (r != NULL && seq > 0 && seq <= r->h.nevents) {
            want.len = 0;
            leak_event_line(&want, &r->h.events[seq - 1]);
            *whole += r->h.events[seq - 1].kind == ARB_EV_MOVE
                      && strcmp(arb_buf_cstr(&line), arb_buf_cstr(&want))
                         == 0;
        }
        if (seq == last)
            break;
    }
    arb_buf_free(&why);
    arb_buf_free(&line);
    arb_buf_free(&want);
    return n;
}

static size_t
drain(arb_client_t *cl, const game_t *g, const leak_set_t *bad,
      const char *who, uint64_t last)
{
    return drain_whole(cl, g, bad, who, last, NULL, NULL);
}

static void
check_list_and_checkpoint(const game_t *g, const char *tok,
                          const leak_set_t *bad)
{
    arb_client_t      *cl = harness_connect(tok);
    arb_buf_t          raw = ARB_BUF_INIT;
    const leak_item_t *hit = NULL;
    int                rc;

    CHECK(cl != NULL);
    if (cl == NULL)
        return;
    CHECK_INT(call(cl, "matches", ""), 0);
    raw_of(&raw, &res.data);
    hit = leak_find(bad, raw.data, raw.len);
    CHECK(hit == NULL);
    rc = call(cl, "checkpoint", "s", "match", g->match);
    /* a signed head of an open concealing match waits for the close */
    CHECK_INT(rc != 0, g->hides_hashes);
    raw_of(&raw, &res.data);
    hit = leak_find(bad, raw.data, raw.len);
    CHECK(hit == NULL);
    arb_buf_free(&raw);
    arb_client_close(cl);
}

/* What `arbiter CMD --json` prints for token tok: 1 when it holds want. */
static int
cli_shows(const char *tok, const char *cmd, const char *want)
{
    char  line[2048], buf[1200];
    FILE *p;
    int   found = 0;

    snprintf(buf, sizeof(buf), "ARBITER_SERVER=unix:%s ARBITER_TOKEN=%s "
             "bin/arbiter %s --json", harness_sock, tok, cmd);
    if ((p = popen(buf, "r")) == NULL)
        return 0;
    while (fgets(line, sizeof(line), p) != NULL)
        found |= strstr(line, want) != NULL;
    pclose(p);
    return found;
}

/* A player token reads; it writes nothing, and says what it is. */
static void
check_player_writes_nothing(const game_t *g)
{
    arb_client_t         *cl = harness_connect(NULL);
    arb_buf_t             why = ARB_BUF_INIT;
    const msgpack_object *role;
    char                  code[32];

    CHECK(cl != NULL && call(cl, "auth", "s", "token", g->tok[0]) == 0);
    role = arb_client_get(&res, "role");
    CHECK(role != NULL && role->type == MSGPACK_OBJECT_STR
          && role->via.str.size == 6
          && memcmp(role->via.str.ptr, "player", 6) == 0);
    CHECK(cl != NULL && call(cl, "append", "sss", "match", g->match,
                             "kind", "note", "text", "hello") != 0);
    CHECK_STR(arb_client_error_code(&res, code, sizeof(code)), "forbidden");
    arb_buf_free(&why);
    arb_client_close(cl);
}

/* ---- the same over HTTP: a player token sees its seat ------------------ */

static int  http_port;
static char http_resp[1 << 20];

static void
http_clean(const game_t *g, const char *what, const leak_set_t *bad,
           const char *text)
{
    const leak_item_t *hit = leak_find(bad, text, strlen(text));

    if (hit != NULL)
        fprintf(stderr, "%s over HTTP: %s shows %s\n", g->match, what,
                hit->why);
    CHECK(hit == NULL);
}

/* How many of the moves whose arguments a spectator does not see but
 * `who` does the events of body show whole, by their lines; *want: how
 * many there are. */
static size_t
own_lines(const record_t *r, const arb_viewer_t *who, const char *body,
          size_t *want)
{
    const arb_setup_t *setup = r->h.open.setup;
    const arb_rules_t *rules = arb_rules_find(setup->game);
    arb_buf_t          line = ARB_BUF_INIT;
    size_t             i, n = 0;
    int                owner;

    *want = 0;
    for (i = 0; i < r->h.nevents; i++) {
        const arb_event_t *ev = &r->h.events[i];

        owner = -1;
        if (ev->kind != ARB_EV_MOVE || rules->conceal == NULL
            || rules->conceal(setup, ev, &owner) >= ev->nargs
            || who->kind != ARB_VIEW_SEAT || owner < 0
            || (unsigned)owner != who->seat)
            continue;
        ++*want;
        line.len = 0;
        arb_buf_puts(&line, "\"line\":\"");
        leak_event_line(&line, ev);
        arb_buf_puts(&line, "\"");
        n += strstr(body, arb_buf_cstr(&line)) != NULL;
    }
    arb_buf_free(&line);
    return n;
}

/* The state at every seq, the events and the list, as `who` through
 * `tok` over HTTP. */
static void
check_http(record_t *r, const game_t *g, const char *tok,
           const arb_viewer_t *who)
{
    leak_set_t   bad;
    char         path[256];
    const char  *body;
    uint64_t     at;
    size_t       seen = 0, own_want;
    int          own;

    for (at = 0; at <= r->h.nevents; at++) {
        CHECK_INT(forbidden(&bad, r, at, who), 0);
        snprintf(path, sizeof(path), "/api/m/%s/state?at=%llu", g->match,
                 (unsigned long long)at);
        CHECK_INT(http_get(http_port, path, tok, http_resp,
                           sizeof(http_resp)), 200);
        body = http_body(http_resp);
        if (who->kind == ARB_VIEW_PUBLIC)
            CHECK(strstr(body, "hand_cards") == NULL);
        own = shows_own_hand(r, at, who, body, strlen(body));
        CHECK(own > 0);
        seen += own == 2;
        http_clean(g, path, &bad, body);
        leak_set_free(&bad);
    }
    if (who->kind == ARB_VIEW_SEAT)
        CHECK(seen > 0);
    CHECK_INT(forbidden(&bad, r, r->h.nevents, who), 0);
    CHECK(bad.n > 0);
    snprintf(path, sizeof(path), "/api/m/%s/events?from=0&limit=10000",
             g->match);
    CHECK_INT(http_get(http_port, path, tok, http_resp, sizeof(http_resp)),
              200);
    CHECK(strstr(http_resp, "\"line\"") != NULL);
    http_clean(g, path, &bad, http_body(http_resp));
    /* a player's own draws come whole */
    own = (int)own_lines(r, who, http_body(http_resp), &own_want);
    CHECK_INT((size_t)own, own_want);
    CHECK_INT(http_get(http_port, "/api/matches", tok, http_resp,
                       sizeof(http_resp)), 200);
    http_clean(g, "/api/matches", &bad, http_body(http_resp));
    leak_set_free(&bad);
}

/* A player token on a match that is not its own is a spectator there
 * (docs/VIEWS.md): g's state and events as tok, a player of another. */
static void
check_http_stranger(record_t *r, const game_t *g, const char *tok)
{
    arb_viewer_t pub = { ARB_VIEW_PUBLIC, 0 };
    leak_set_t   bad;
    char         path[256];

    CHECK_INT(forbidden(&bad, r, r->h.nevents, &pub), 0);
    snprintf(path, sizeof(path), "/api/m/%s/state", g->match);
    CHECK_INT(http_get(http_port, path, tok, http_resp, sizeof(http_resp)),
              200);
    CHECK(strstr(http_body(http_resp), "hand_cards") == NULL);
    http_clean(g, path, &bad, http_body(http_resp));
    snprintf(path, sizeof(path), "/api/m/%s/events", g->match);
    CHECK_INT(http_get(http_port, path, tok, http_resp, sizeof(http_resp)),
              200);
    http_clean(g, path, &bad, http_body(http_resp));
    leak_set_free(&bad);
}

/* A live stream as `tok` (Bearer): of every match (match NULL; query
 * token, as an EventSource sends it) or of one.  Its connection. */
static int
http_live_open(const char *match, const char *tok)
{
    char req[512];
    int  fd, n;

    if (match != NULL) {
        snprintf(req, sizeof(req), "/api/m/%s/live", match);
        return http_live_connect(http_port, req, tok, NULL);
    }
    fd = http_connect(http_port);
    n = snprintf(req, sizeof(req), "GET /api/live?token=%s HTTP/1.1\r\n"
                 "Host: t\r\n\r\n", tok);
    if (fd >= 0 && http_write_all(fd, req, (size_t)n) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* What the all-matches stream carried: the acks of the whole load. */
static void
http_live_check(int fd, record_t *r, const game_t *g,
                const arb_viewer_t *who)
{
    leak_set_t bad;
    int        closed;

    CHECK(fd >= 0);
    if (fd < 0)
        return;
    http_read(fd, http_resp, sizeof(http_resp), NULL, 1500, &closed);
    close(fd);
    CHECK(strstr(http_resp, "event: ack") != NULL);
    CHECK_INT(forbidden(&bad, r, r->h.nevents, who), 0);
    http_clean(g, "the live stream", &bad, http_resp);
    leak_set_free(&bad);
}

/* What a match's own stream carried, opened right after the open: every
 * `state` message against the oracle at its seq (a player's own hand in
 * it, exactly), every `ack` against the oracle at the end. */
static void
http_match_live_check(int fd, record_t *r, const game_t *g,
                      const arb_viewer_t *who, int resumed)
{
    leak_set_t          bad;
    size_t              n = 0, states = 0, acks = 0, seen = 0;
    char               *p, *end, what[96];
    unsigned long long  id;
    int                 own;

    CHECK(fd >= 0);
    if (fd < 0)
        return;
    CHECK(http_read_sse(fd, http_resp, sizeof(http_resp), &n, "state",
                        r->h.nevents, 3000));
    close(fd);
    CHECK_INT(forbidden(&bad, r, r->h.nevents, who), 0);
    http_clean(g, "a match's live stream", &bad, http_resp);
    leak_set_free(&bad);
    for (p = http_resp; (p = strstr(p, "\nevent: ")) != NULL; p = end + 1) {
        p++;
        if ((end = strstr(p, "\n\n")) == NULL)
            break;
        *end = '\0';
        if (strncmp(p, "event: ack\n", 11) == 0)
            acks++;
        if (strncmp(p, "event: state\nid: ", 17) != 0
            || sscanf(p + 17, "%llu", &id) != 1 || id > r->h.nevents)
            continue;
        states++;
        CHECK_INT(forbidden(&bad, r, id, who), 0);
        snprintf(what, sizeof(what), "the live state at %llu", id);
        http_clean(g, what, &bad, p);
        if (who->kind == ARB_VIEW_PUBLIC)
            CHECK(strstr(p, "hand_cards") == NULL);
        own = shows_own_hand(r, id, who, p, strlen(p));
        CHECK(own > 0);
        seen += own == 2;
        leak_set_free(&bad);
    }
    /* the acks of the whole load; a state after most of them (appends of
     * one batch share one) and after the last; a resume from 0 gets the
     * acks from the store, then one state */
    CHECK_INT(acks, r->h.nevents);
    if (resumed)
        CHECK_INT(states, 1);
    else
        CHECK(states > r->h.nevents / 2);
    if (who->kind == ARB_VIEW_SEAT)
        CHECK(seen > 0);
}

/* A scorer's undo request is a note, which every viewer reads: it names
 * its move as a spectator sees it, never with a withheld chip (until
 * 2026-12-05 it quoted the move as recorded: a draw's chip, a round's
 * whole stock order).  One request for every move, read by a reader. */
static void
check_undo_notes(record_t *r, const game_t *g)
{
    const arb_viewer_t pub = { ARB_VIEW_PUBLIC, 0 };
    leak_set_t         bad;
    char               path[256], body[64];
    const char        *p;
    size_t             i, n = 0, seen = 0;

    snprintf(path, sizeof(path), "/api/m/%s/undo", g->match);
    for (i = 0; i < r->h.nevents; i++) {
        if (r->h.events[i].kind != ARB_EV_MOVE)
            continue;
        snprintf(body, sizeof(body), "{\"seq\":%llu}",
                 (unsigned long long)r->h.events[i].seq);
        CHECK_INT(http_post(http_port, path, HARNESS_SCORER, body,
                            http_resp, sizeof(http_resp)), 200);
        n++;
    }
    CHECK(n > 0);
    CHECK_INT(forbidden(&bad, r, r->h.nevents, &pub), 0);
    snprintf(path, sizeof(path), "/api/m/%s/events?from=%llu&limit=10000",
             g->match, (unsigned long long)r->h.nevents + 1);
    CHECK_INT(http_get(http_port, path, HARNESS_READER, http_resp,
                       sizeof(http_resp)), 200);
    for (p = http_resp; (p = strstr(p, "undo requested: seq ")) != NULL; p++)
        seen++;
    CHECK_INT(seen, n);
    http_clean(g, "the undo requests' notes", &bad, http_body(http_resp));
    leak_set_free(&bad);
}

/* The transcript's head alone (everything before its first event), so
 * the match can be opened before its events are loaded. */
static int
write_head(const game_t *g, char *path, size_t cap)
{
    char  line[4096];
    FILE *in = fopen(g->file, "r"), *out;
    int   rc;

    snprintf(path, cap, "%s/%s.head", harness_dir, g->match);
    if (in == NULL || (out = fopen(path, "w")) == NULL) {
        if (in != NULL)
            fclose(in);
        return -1;
    }
    while (fgets(line, sizeof(line), in) != NULL
           && !(line[0] >= '1' && line[0] <= '9'))
        fputs(line, out);
    fclose(in);
    rc = fclose(out);
    return rc;
}

/* The state digest of g's match as `token` gets it, over the protocol
 * (json and text) and HTTP: withheld (null; the text says so) from a
 * viewer who does not see every hand while the match runs, since anyone
 * holding it could try hands until a replay matched (until 2026-12-06 a
 * Chains player found the other's hands in 31 tries); given to the
 * arbiter, and to everyone after the close. */
static void
check_digest_at(const game_t *g, const char *token, int withheld,
                uint64_t at)
{
    arb_client_t         *cl = harness_connect(token);
    const msgpack_object *o;
    char                  path[128];

    CHECK(cl != NULL
          && (at == UINT64_MAX
              ? call(cl, "state", "su", "match", g->match, "text",
                     (uint64_t)1)
              : call(cl, "state", "suu", "match", g->match, "text",
                     (uint64_t)1, "at", at)) == 0);
    if (cl == NULL)
        return;
    o = arb_client_get(&res, "json");
    CHECK(o != NULL && o->type == MSGPACK_OBJECT_STR);
    if (o != NULL && o->type == MSGPACK_OBJECT_STR)
        CHECK_INT(memmem(o->via.str.ptr, o->via.str.size,
                         "\"digest\":null", 13) != NULL, withheld);
    o = arb_client_get(&res, "text");
    CHECK(o != NULL && o->type == MSGPACK_OBJECT_STR);
    if (o != NULL && o->type == MSGPACK_OBJECT_STR) {
        CHECK_INT(memmem(o->via.str.ptr, o->via.str.size,
                         "\ndigest withheld while the match runs", 37)
                  != NULL, withheld);
        CHECK_INT(memmem(o->via.str.ptr, o->via.str.size, "\ndigest ", 8)
                  != NULL, 1);
    }
    arb_client_close(cl);
    if (at == UINT64_MAX)
        snprintf(path, sizeof(path), "/api/m/%s/state", g->match);
    else
        snprintf(path, sizeof(path), "/api/m/%s/state?at=%llu", g->match,
                 (unsigned long long)at);
    CHECK_INT(http_get(http_port, path, token, http_resp, sizeof(http_resp)),
              200);
    CHECK_INT(strstr(http_body(http_resp), "\"digest\":null") != NULL,
              withheld);
}

static void
check_digest(const game_t *g, const char *token, int withheld)
{
    check_digest_at(g, token, withheld, UINT64_MAX);
}

static void
test_game(const game_t *g)
{
    record_t      r;
    arb_client_t *live[3], *cl;
    const char   *tok[3] = { HARNESS_READER, g->tok[0], g->tok[1] };
    arb_viewer_t  who[3] = { { ARB_VIEW_PUBLIC, 0 }, { ARB_VIEW_SEAT, 0 },
                             { ARB_VIEW_SEAT, 1 } };
    leak_set_t    bad[3];
    char          cmd[1200], head[512];
    size_t        whole;
    int           i, loaded, sse[3] = { -1, -1, -1 },
                  msse[3] = { -1, -1, -1 };

    CHECK_INT(record_load(&r, g), 0);
    CHECK(r.secret != NULL);
    check_player_writes_nothing(g);
    /* live pushes: all-matches subscriptions opened before the load */
    for (i = 0; i < 3; i++) {
        live[i] = harness_connect(tok[i]);
        CHECK(live[i] != NULL
              && call(live[i], "subscribe", "") == 0);
        sse[i] = http_live_open(NULL, tok[i]);
    }
    /* the match opened, its own streams, then its events */
    CHECK_INT(write_head(g, head, sizeof(head)), 0);
    snprintf(cmd, sizeof(cmd), "ARBITER_SERVER=unix:%s ARBITER_TOKEN=%s "
             "bin/arbiter load %s >/dev/null", harness_sock, HARNESS_ARBITER,
             head);
    CHECK_INT(system(cmd), 0);
    for (i = 0; i < 3; i++)
        msse[i] = http_live_open(g->match, tok[i]);
    snprintf(cmd, sizeof(cmd), "ARBITER_SERVER=unix:%s ARBITER_TOKEN=%s "
             "bin/arbiter load %s >/dev/null", harness_sock, HARNESS_ARBITER,
             g->file);
    loaded = system(cmd);
    CHECK_INT(loaded, 0);
    CHECK_INT(read_hashes(&r, g), 0);
    if (loaded != 0 || r.hash == NULL)
        goto done;
    for (i = 0; i < 3; i++) {
        http_live_check(sse[i], &r, g, &who[i]);
        http_match_live_check(msse[i], &r, g, &who[i], 0);
        sse[i] = msse[i] = -1;
        /* a reconnect with Last-Event-ID: 0 gets every ack from the store,
         * through the same viewer */
        snprintf(head, sizeof(head), "/api/m/%s/live", g->match);
        http_match_live_check(http_live_connect(http_port, head, tok[i],
                                                "0"), &r, g, &who[i], 1);
    }
    /* a player of the other game's match sees this one as a spectator,
     * and so does a player of another match of this game who has the
     * name of one of its seats (his token's match is not this one) */
    check_http_stranger(&r, g, games[g == &games[0]].tok[0]);
    check_http_stranger(&r, g, g->namesake);
    {
        arb_viewer_t pub = { ARB_VIEW_PUBLIC, 0 };
        leak_set_t   pbad;

        CHECK_INT(forbidden(&pbad, &r, r.h.nevents, &pub), 0);
        check_events(&r, g, g->namesake, &pub, &pbad);
        leak_set_free(&pbad);
    }
    for (i = 0; i < 3; i++) {
        CHECK_INT(forbidden(&bad[i], &r, r.h.nevents, &who[i]), 0);
        CHECK(bad[i].n > 0);
        /* the live pushes, then a catch-up of the match and of the log;
         * in each a player gets its own draws whole (no test failed when
         * the catch-up of every match showed a player its own match as a
         * spectator sees it) */
        whole = 0;
        CHECK_INT(drain_whole(live[i], g, &bad[i], tok[i], r.h.nevents, &r,
                              &whole), r.h.nevents + 1);
        CHECK_INT(whole, count_whole_lines(&r, &who[i]));
        cl = harness_connect(tok[i]);
        CHECK(cl != NULL && call(cl, "subscribe", "su", "match", g->match,
                                 "from", (uint64_t)0) == 0);
        whole = 0;
        CHECK_INT(drain_whole(cl, g, &bad[i], tok[i], r.h.nevents, &r,
                              &whole), r.h.nevents + 1);
        CHECK_INT(whole, count_whole_lines(&r, &who[i]));
        arb_client_close(cl);
        whole = 0;
        cl = harness_connect(tok[i]);
        CHECK(cl != NULL && call(cl, "subscribe", "u", "from",
                                 (uint64_t)1) == 0);
        whole = 0;
        CHECK_INT(drain_whole(cl, g, &bad[i], tok[i], r.h.nevents, &r,
                              &whole), r.h.nevents + 1);
        CHECK_INT(whole, count_whole_lines(&r, &who[i]));
        arb_client_close(cl);
        check_events(&r, g, tok[i], &who[i], &bad[i]);
        check_states(&r, g, tok[i], &who[i]);
        check_list_and_checkpoint(g, tok[i], &bad[i]);
        check_http(&r, g, tok[i], &who[i]);
        leak_set_free(&bad[i]);
    }
    /* A scorer of another match reads this one as a spectator: it keys
     * in no move here (until 2026-12-05 every scorer read every hand). */
    {
        arb_viewer_t pub = { ARB_VIEW_PUBLIC, 0 };
        leak_set_t   lb;
        arb_buf_t    raw = ARB_BUF_INIT;
        char         path[256];

        CHECK_INT(forbidden(&lb, &r, r.h.nevents, &pub), 0);
        check_events(&r, g, HARNESS_LIMITED, &pub, &lb);
        check_states(&r, g, HARNESS_LIMITED, &pub);
        check_http(&r, g, HARNESS_LIMITED, &pub);
        cl = harness_connect(HARNESS_LIMITED);
        CHECK(cl != NULL && call(cl, "subscribe", "u", "from",
                                 (uint64_t)1) == 0);
        CHECK_INT(drain(cl, g, &lb, HARNESS_LIMITED, r.h.nevents),
                  r.h.nevents + 1);
        arb_client_close(cl);
        /* The feed of every match is read as a reader by a scorer of
         * some matches, this one included, as HTTP's /api/live is
         * (until 2026-12-06 the protocol's showed it this match whole). */
        cl = harness_connect(OWN_SCORER);
        CHECK(cl != NULL && call(cl, "subscribe", "u", "from",
                                 (uint64_t)1) == 0);
        CHECK_INT(drain(cl, g, &lb, OWN_SCORER, r.h.nevents),
                  r.h.nevents + 1);
        arb_client_close(cl);
        /* So is the list of every match, this one's head withheld. */
        cl = harness_connect(OWN_SCORER);
        CHECK(cl != NULL && call(cl, "matches", "") == 0);
        raw_of(&raw, &res.data);
        CHECK(leak_find(&lb, raw.data, raw.len) == NULL);
        arb_client_close(cl);
        snprintf(path, sizeof(path), "/api/m/%s/state?hands=1", g->match);
        CHECK_INT(http_get(http_port, path, HARNESS_LIMITED, http_resp,
                           sizeof(http_resp)), 403);
        /* hands=0 asks for no hand: the viewer's own view */
        snprintf(path, sizeof(path), "/api/m/%s/state?hands=0", g->match);
        CHECK_INT(http_get(http_port, path, HARNESS_LIMITED, http_resp,
                           sizeof(http_resp)), 200);
        CHECK(strstr(http_body(http_resp), "hand_cards") == NULL);
        arb_buf_free(&raw);
        leak_set_free(&lb);
    }
    /* The command line says what it was not given: null, not a guess. */
    snprintf(cmd, sizeof(cmd), "events --match %s", g->match);
    CHECK_INT(cli_shows(HARNESS_READER, cmd, "\"hash\":null"),
              g->hides_hashes);
    CHECK_INT(cli_shows(HARNESS_READER, "matches", "\"head\":null"),
              g->hides_hashes);
    check_undo_notes(&r, g);
    for (i = 0; i < 3; i++)
        check_digest(g, tok[i], 1);
    check_digest(g, HARNESS_ARBITER, 0);
    /* the scorer of this match sees all of it, the digest and the hidden
     * arguments too, over the protocol and HTTP alike */
    check_digest(g, OWN_SCORER, 0);
    {
        arb_viewer_t all = { ARB_VIEW_ALL, 0 };
        leak_set_t   none;

        memset(&none, 0, sizeof(none));
        check_events(&r, g, OWN_SCORER, &all, &none);
    }
    /* After the close every viewer gets every event as recorded. */
    cl = harness_connect(HARNESS_ARBITER);
    CHECK(cl != NULL && call(cl, "append", "ss", "match", g->match, "kind",
                             "close") == 0);
    arb_client_close(cl);
    /* ... at any seq (until 2026-12-07 a state asked at an earlier seq
     * of a closed match withheld it, where its replay was everyone's) */
    for (i = 0; i < 3; i++) {
        check_digest(g, tok[i], 0);
        check_digest_at(g, tok[i], 0, 1);
    }
    {
        arb_viewer_t all = { ARB_VIEW_ALL, 0 };
        leak_set_t   none;

        memset(&none, 0, sizeof(none));
        for (i = 0; i < 3; i++)
            check_events(&r, g, tok[i], &all, &none);
        /* over HTTP too: each reads the events as the arbiter does, byte
         * for byte (nothing read them there after the close) */
        {
            char *whole_ev = malloc(sizeof(http_resp));

            snprintf(cmd, sizeof(cmd), "/api/m/%s/events?from=0&limit=10000",
                     g->match);
            CHECK(whole_ev != NULL);
            CHECK_INT(http_get(http_port, cmd, HARNESS_ARBITER, http_resp,
                               sizeof(http_resp)), 200);
            if (whole_ev != NULL)
                snprintf(whole_ev, sizeof(http_resp), "%s",
                         http_body(http_resp));
            CHECK(whole_ev != NULL
                  && strstr(whole_ev, "\"hash\":null") == NULL);
            for (i = 0; i < 3 && whole_ev != NULL; i++) {
                CHECK_INT(http_get(http_port, cmd, tok[i], http_resp,
                                   sizeof(http_resp)), 200);
                CHECK_STR(http_body(http_resp), whole_ev);
            }
            free(whole_ev);
        }
        /* a resumed feed of every match gets them whole too: each of its
         * acks is seen as its own match is, closed */
        {
            unsigned long long pos = 0;
            const char        *at;
            char               id[32];
            size_t             n = 0;
            int                fd;

            if (http_get(http_port, "/api/stats", HARNESS_READER, http_resp,
                         sizeof(http_resp)) == 200
                && (at = strstr(http_resp, "\"log_pos\":")) != NULL)
                sscanf(at + 10, "%llu", &pos);
            CHECK(pos > 3);
            snprintf(id, sizeof(id), "%llu", pos - 3);
            fd = http_live_connect(http_port, "/api/live", HARNESS_READER,
                                   id);
            CHECK(http_read_sse(fd, http_resp, sizeof(http_resp), &n, "ack",
                                pos, 2000));
            CHECK(strstr(http_resp, "\"hash\":\"") != NULL);
            CHECK(strstr(http_resp, "\"hash\":null") == NULL);
            if (fd >= 0)
                close(fd);
        }
        /* and its subscriptions push them whole: a catch-up of the match
         * and one of every match (the close is seq nevents + 1) */
        for (i = 0; i < 3; i++) {
            whole = 0;
            cl = harness_connect(tok[i]);
            CHECK(cl != NULL && call(cl, "subscribe", "su", "match",
                                     g->match, "from", (uint64_t)0) == 0);
            drain_whole(cl, g, &none, tok[i], r.h.nevents + 1, &r, &whole);
            CHECK_INT(whole, count_whole_lines(&r, &all));
            arb_client_close(cl);
            whole = 0;
            cl = harness_connect(tok[i]);
            CHECK(cl != NULL && call(cl, "subscribe", "u", "from",
                                     (uint64_t)1) == 0);
            drain_whole(cl, g, &none, tok[i], r.h.nevents + 1, &r, &whole);
            CHECK_INT(whole, count_whole_lines(&r, &all));
            arb_client_close(cl);
        }
    }
done:
    for (i = 0; i < 3; i++) {
        if (sse[i] >= 0)
            close(sse[i]);
        if (msse[i] >= 0)
            close(msse[i]);
        arb_client_close(live[i]);
    }
    record_free(&r);
}

/* The Tsukurutenten match gets a ruling on a draw after its end (an
 * amend that names the drawn chip again): a state report lists the
 * rulings with their moves, which must withhold the chip as the draw's
 * own event does (docs/VIEWS.md).  Points games[0] at the copy. */
static int
add_ruling(char *path, size_t cap)
{
    static const char more[] =
        "121. amend 118 draw bob P8 -- the chip named again\n";
    char   text[16384];
    FILE  *f = fopen(games[0].file, "r");
    size_t len;

    if (f == NULL)
        return -1;
    len = fread(text, 1, sizeof(text), f);
    fclose(f);
    snprintf(path, cap, "%s/tsuku-ruled.txt", harness_dir);
    if (len == sizeof(text) || (f = fopen(path, "w")) == NULL)
        return -1;
    fwrite(text, 1, len, f);
    fputs(more, f);
    if (fclose(f) != 0)
        return -1;
    games[0].file = path;
    return 0;
}

int
main(void)
{
    static char ruled[512];
    size_t      i;

    (void)harness_send_raw;     /* every request here is well formed */
    msgpack_unpacked_init(&res);
    if (harness_init(PLAYER_TOKENS, 240) != 0)
        return 1;
    harness_start();
    http_port = http_log_port(harness_dir);
    CHECK(http_port > 0);
    CHECK_INT(add_ruling(ruled, sizeof(ruled)), 0);
    for (i = 0; i < sizeof(games) / sizeof(games[0]); i++)
        test_game(&games[i]);
    msgpack_unpacked_destroy(&res);
    return harness_done(TEST_END());
}
