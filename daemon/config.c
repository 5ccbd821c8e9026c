/*
 * DESIGN: one `key = value` per line, `#` comments, so the file can be
 * diffed and reviewed like the transcripts.  Token lines may also live in a
 * separate file (tokens_file) that SIGHUP re-reads: secrets can then be
 * rotated without a restart and without touching the main config.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "core/err.h"
#include "core/event.h"
#include "core/ledger/store.h"
#include "daemon/config.h"
#include "daemon/log.h"
#include "proto/addr.h"
#include "proto/limits.h"

static const char *const role_names[] = { "reader", "player", "scorer",
                                           "arbiter" };

const char *
arb_role_name(int role)
{
    return role >= 0 && role <= ARB_ROLE_ARBITER ? role_names[role] : "?";
}

void
arb_config_defaults(arb_config_t *c)
{
    memset(c, 0, sizeof(*c));
    c->frame_max = ARB_FRAME_MAX_DEFAULT;
    c->auth_timeout_ms = 5000;
    c->stall_timeout_ms = 60000;
    c->outq_max = 4u << 20;
    c->inq_max = 1024;
    c->batch_max = 8192;
    c->lone_commit = 1;
    c->map_size = 64u << 20;
    c->map_max = 0;
    c->log_level = ARB_LOG_INFO;
    c->log_format = ARB_LOG_TEXT;
    c->storage_warn[0] = 80;
    c->storage_warn[1] = 90;
    c->storage_warn[2] = 95;
    c->nstorage_warn = 3;
    c->storage_reserve = ARB_STORAGE_RESERVE_AUTO;
    arb_repl_conf_defaults(&c->repl);
    c->http.max_conns = 256;
    c->http.header_max = 4096;
    c->http.body_max = 16384;
    c->http.header_timeout_ms = 10000;
    c->http.write_timeout_ms = 30000;
    c->http.stream_max = 1u << 20;
}

int
arb_config_parse_percents(const char *v, unsigned *out, size_t max,
                          size_t *n)
{
    char          *end;
    unsigned long  x;
    size_t         k = 0;

    if (strcmp(v, "off") == 0) {
        *n = 0;
        return 0;
    }
    while (*v != '\0') {
        if (*v == ' ' || *v == '\t' || *v == ',') {
            v++;
            continue;
        }
        if (*v < '0' || *v > '9' || k == max)
            return -1;
        x = strtoul(v, &end, 10);
        if (x < 1 || x > 99 || (k > 0 && x <= out[k - 1]))
            return -1;
        out[k++] = (unsigned)x;
        v = end;
    }
    if (k == 0)
        return -1;
    *n = k;
    return 0;
}

static void
token_clear(arb_token_t *t)
{
    size_t i;

    if (t->secret != NULL)
        sodium_memzero(t->secret, strlen(t->secret));
    free(t->secret);
    free(t->identity);
    free(t->seat);
    for (i = 0; i < t->nmatches; i++)
        free(t->matches[i]);
    free(t->matches);
}

void
arb_config_free(arb_config_t *c)
{
    size_t i;

    if (c == NULL)
        return;
    free(c->data);
    for (i = 0; i < c->nlisten; i++)
        free(c->listen[i]);
    free(c->tokens_file);
    free(c->http.listen);
    free(c->http.metrics_listen);
    for (i = 0; i < c->ntokens; i++)
        token_clear(&c->tokens[i]);
    free(c->tokens);
    arb_repl_conf_free(&c->repl);
    arb_replica_conf_free(&c->replica);
    memset(c, 0, sizeof(*c));
}

static int
parse_size(const char *v, size_t lo, size_t hi, size_t *out)
{
    char              *end;
    unsigned long long n;
    unsigned           shift = 0;

    if (*v == '\0' || *v == '-')
        return -1;
    errno = 0;
    n = strtoull(v, &end, 10);
    if (errno != 0)
        return -1;
    if (*end == 'K' || *end == 'k')
        shift = 10, end++;
    else if (*end == 'M' || *end == 'm')
        shift = 20, end++;
    else if (*end == 'G' || *end == 'g')
        shift = 30, end++;
    /* A suffix that carries the number past 64 bits is out of range,
     * not what is left of it (until 2026-12-08 17179869184G read as 0,
     * and a huge K frame_max as 1K). */
    if (*end != '\0' || n > (ULLONG_MAX >> shift))
        return -1;
    n <<= shift;
    if (n < lo || n > hi)
        return -1;
    *out = (size_t)n;
    return 0;
}

/* t's print: each field NUL-ended, in order, the matches last. */
static void
token_print(arb_token_t *t)
{
    crypto_generichash_state st;
    unsigned char            role = (unsigned char)t->role;
    size_t                   i;

    crypto_generichash_init(&st, NULL, 0, ARB_TOKEN_PRINT);
    crypto_generichash_update(&st, (const unsigned char *)t->secret,
                              strlen(t->secret) + 1);
    crypto_generichash_update(&st, &role, 1);
    crypto_generichash_update(&st, (const unsigned char *)t->identity,
                              strlen(t->identity) + 1);
    if (t->seat != NULL)
        crypto_generichash_update(&st, (const unsigned char *)t->seat,
                                  strlen(t->seat));
    crypto_generichash_update(&st, (const unsigned char *)"", 1);
    for (i = 0; i < t->nmatches; i++)
        crypto_generichash_update(&st, (const unsigned char *)t->matches[i],
                                  strlen(t->matches[i]) + 1);
    crypto_generichash_final(&st, t->print, ARB_TOKEN_PRINT);
}

int
arb_config_holds(const arb_config_t *c,
                 const unsigned char print[ARB_TOKEN_PRINT])
{
    size_t i;

    for (i = 0; i < c->ntokens; i++)
        if (memcmp(c->tokens[i].print, print, ARB_TOKEN_PRINT) == 0)
            return 1;
    return 0;
}

/* token = SECRET ROLE IDENTITY [MATCH ...]
 * token = SECRET player IDENTITY MATCH SEAT */
static int
parse_token(arb_config_t *c, char *v, unsigned line, arb_buf_t *why)
{
    arb_token_t *nt, t;
    char        *w[3 + 64], *save = NULL, *p;
    size_t       n = 0, i;
    int          role = -1;

    for (p = strtok_r(v, " \t", &save); p != NULL && n < 3 + 64;
         p = strtok_r(NULL, " \t", &save))
        w[n++] = p;
    if (n < 3) {
        arb_buf_printf(why, "line %u: token needs SECRET ROLE IDENTITY "
                       "[MATCH...]", line);
        return ARB_EINVAL;
    }
    if (n == 3 + 64 && p != NULL) {
        arb_buf_printf(why, "line %u: a token lists at most 64 matches",
                       line);
        return ARB_EINVAL;
    }
    /* auth compares at most 64 bytes: a longer secret never matches */
    if (strlen(w[0]) < 16 || strlen(w[0]) > 64) {
        arb_buf_printf(why, "line %u: token secret must be 16..64 "
                       "characters", line);
        return ARB_EINVAL;
    }
    /* The identity is stamped as the actor of every event, the matches
     * are match ids: names, or every append would fail to encode. */
    for (i = 2; i < n; i++)
        if (!arb_name_valid(w[i])) {
            arb_buf_printf(why, "line %u: %s '%s' must be 1..64 of A-Z a-z "
                           "0-9 _ . @ + -", line,
                           i == 2 ? "identity"
                           : i == 4 && strcmp(w[1], "player") == 0 ? "seat"
                           : "match", w[i]);
            return ARB_EINVAL;
        }
    for (i = 0; i <= ARB_ROLE_ARBITER; i++)
        if (strcmp(w[1], role_names[i]) == 0)
            role = (int)i;
    if (role < 0) {
        arb_buf_printf(why, "line %u: role '%s' does not exist: reader, "
                       "player, scorer or arbiter", line, w[1]);
        return ARB_EINVAL;
    }
    if (role == ARB_ROLE_PLAYER && n != 5) {
        arb_buf_printf(why, "line %u: a player token names one match and "
                       "one seat: token = SECRET player IDENTITY MATCH "
                       "SEAT", line);
        return ARB_EINVAL;
    }
    if (n > 3 && role != ARB_ROLE_SCORER && role != ARB_ROLE_PLAYER) {
        arb_buf_printf(why, "line %u: only a scorer token lists matches",
                       line);
        return ARB_EINVAL;
    }
    /* A secret names one holder: given twice, the later line won without
     * a word until 2026-12-06 (a reader's secret listed again as an
     * arbiter's was an arbiter's). */
    for (i = 0; i < c->ntokens; i++)
        if (strcmp(c->tokens[i].secret, w[0]) == 0) {
            arb_buf_printf(why, "line %u: this token's secret is line %u's "
                           "too: a secret names one holder", line,
                           c->tokens[i].line);
            return ARB_EINVAL;
        }
    memset(&t, 0, sizeof(t));
    t.line = line;
    t.role = role;
    t.secret = strdup(w[0]);
    t.identity = strdup(w[2]);
    t.matches = calloc(n > 3 ? n - 3 : 1, sizeof(char *));
    if (t.secret == NULL || t.identity == NULL || t.matches == NULL)
        goto oom;
    if (role == ARB_ROLE_PLAYER) {
        /* the seat is a player name, checked like the match id above */
        t.seat = strdup(w[--n]);
        if (t.seat == NULL)
            goto oom;
    }
    for (i = 3; i < n; i++) {
        t.matches[t.nmatches] = strdup(w[i]);
        if (t.matches[t.nmatches] == NULL)
            goto oom;
        t.nmatches++;
    }
    token_print(&t);
    nt = realloc(c->tokens, (c->ntokens + 1) * sizeof(*nt));
    if (nt == NULL)
        goto oom;
    c->tokens = nt;
    c->tokens[c->ntokens++] = t;
    return 0;

oom:
    token_clear(&t);
    return ARB_ENOMEM;
}

/* *to becomes a copy of v (the old one freed): 0, or ARB_ENOMEM said in
 * why (until 2026-12-08 a failed copy of data, listen or tokens_file
 * loaded as the key left out: a listener of NULL, the default data). */
static int
set_str(char **to, const char *v, arb_buf_t *why)
{
    char *d = strdup(v);

    if (d == NULL) {
        arb_buf_puts(why, "out of memory");
        return ARB_ENOMEM;
    }
    free(*to);
    *to = d;
    return 0;
}

static char *
trim(char *s)
{
    char *e;

    while (*s == ' ' || *s == '\t')
        s++;
    e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'
                     || e[-1] == '\n'))
        *--e = '\0';
    return s;
}

/* One key of the [http] section; docs/HTTP.md and config/arbiterd.conf
 * document them.  0 or ARB_EINVAL with the reason in why. */
static int
http_key(arb_http_config_t *h, const char *k, const char *v, arb_buf_t *why)
{
    static const struct {
        const char *name;
        size_t      lo, hi, off;
    } sizes[] = {
        { "max_connections", 1, 65536,
          offsetof(arb_http_config_t, max_conns) },
        /* libh2o itself refuses a request head over 408 KiB (400) */
        { "header_max", 1024, 65536, offsetof(arb_http_config_t, header_max) },
        { "body_max", 0, 1u << 20, offsetof(arb_http_config_t, body_max) },
        { "stream_max", 16384, 1u << 26,
          offsetof(arb_http_config_t, stream_max) },
    };
    size_t i, z;

    if (strcmp(k, "listen") == 0 || strcmp(k, "metrics_listen") == 0) {
        char                  **to = k[0] == 'l' ? &h->listen
                                                 : &h->metrics_listen;
        struct sockaddr_storage ss;
        socklen_t               len;
        arb_buf_t               tmp = ARB_BUF_INIT;

        /* Port 0: any free one, which the log names. */
        if (strncmp(v, "tcp:", 4) != 0
            || arb_tcp_addr_numeric(v, 1, &ss, &len, &tmp) != 0) {
            arb_buf_printf(why, "%s takes tcp:HOST:PORT (a numeric "
                           "address)%s%s", k, tmp.len > 0 ? ": " : "",
                           tmp.len > 0 ? arb_buf_cstr(&tmp) : "");
            arb_buf_free(&tmp);
            return ARB_EINVAL;
        }
        return set_str(to, v, why);
    }
    if (strcmp(k, "public_read") == 0) {
        if (strcmp(v, "true") != 0 && strcmp(v, "false") != 0) {
            arb_buf_printf(why, "public_read is true or false");
            return ARB_EINVAL;
        }
        h->public_read = strcmp(v, "true") == 0;
        return 0;
    }
    if (strcmp(k, "header_timeout_ms") == 0) {
        if (parse_size(v, 100, 600000, &z) != 0) {
            arb_buf_printf(why, "header_timeout_ms must be a number from 100 "
                           "to 600000");
            return ARB_EINVAL;
        }
        h->header_timeout_ms = (unsigned)z;
        return 0;
    }
    if (strcmp(k, "write_timeout_ms") == 0) {
        if (strcmp(v, "0") != 0 && parse_size(v, 500, 600000, &z) != 0) {
            arb_buf_printf(why, "write_timeout_ms must be 0 (off) or a "
                           "number from 500 to 600000");
            return ARB_EINVAL;
        }
        h->write_timeout_ms = strcmp(v, "0") == 0 ? 0 : (unsigned)z;
        return 0;
    }
    for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        if (strcmp(k, sizes[i].name) != 0)
            continue;
        if (parse_size(v, sizes[i].lo, sizes[i].hi, &z) != 0) {
            arb_buf_printf(why, "%s must be a number from %zu to %zu (K/M/G "
                           "suffixes)", k, sizes[i].lo, sizes[i].hi);
            return ARB_EINVAL;
        }
        *(size_t *)(void *)((char *)h + sizes[i].off) = z;
        return 0;
    }
    arb_buf_printf(why, "unknown key '%s'", k);
    return ARB_EINVAL;
}

int
arb_config_listen_check(const char *spec, arb_buf_t *why)
{
    struct sockaddr_un      sa;
    struct sockaddr_storage ss;
    socklen_t               len;

    if (strncmp(spec, "unix:", 5) == 0) {
        if (spec[5] == '\0' || strlen(spec + 5) >= sizeof(sa.sun_path)) {
            arb_buf_printf(why, "'%s': a socket path of 1 to %zu bytes",
                           spec, sizeof(sa.sun_path) - 1);
            return ARB_EINVAL;
        }
        return 0;
    }
    if (strncmp(spec, "tcp:", 4) == 0)
        return arb_tcp_addr_numeric(spec, 0, &ss, &len, why);
    arb_buf_printf(why, "'%s' is neither unix:PATH nor tcp:HOST:PORT", spec);
    return ARB_EINVAL;
}

/* Keys a file may give more than once: each line adds one. */
static int
repeatable(int section, const char *k)
{
    return (section == 0 && (strcmp(k, "token") == 0
                             || strcmp(k, "listen") == 0))
           || (section == 1 && (strcmp(k, "owns") == 0
                                || strcmp(k, "peer") == 0));
}

/* The line of a key (or, with key "", a section header) seen before in
 * this file, recorded as seen at `line` otherwise: 0 when it is new.
 * Until 2026-12-06 the last of two `data` or `[http] listen` lines won
 * without a word (the first address was just not served). */
#define ARB_CONFIG_SEEN_MAX 256
typedef struct {
    int      section;
    char     key[32];
    unsigned line;
} seen_t;

/* The line of key k of section `section` seen, or 0: not given. */
static unsigned
seen_at(const seen_t *seen, size_t n, int section, const char *k)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (seen[i].section == section && strcmp(seen[i].key, k) == 0)
            return seen[i].line;
    return 0;
}

static unsigned
seen_before(seen_t *seen, size_t *n, int section, const char *k,
            unsigned line)
{
    unsigned first = seen_at(seen, *n, section, k);

    if (first != 0)
        return first;
    if (*n < ARB_CONFIG_SEEN_MAX && strlen(k) < sizeof(seen[0].key)) {
        seen[*n].section = section;
        snprintf(seen[*n].key, sizeof(seen[*n].key), "%s", k);
        seen[*n].line = line;
        (*n)++;
    }
    return 0;
}

static int
load(arb_config_t *c, const char *path, int tokens_only, arb_buf_t *why)
{
    static const char *const names[] = { "", "[replicate] ", "[replica] ",
                                         "[http] " };
    FILE    *f;
    char     buf[4096], *k, *v, *eq, *hash;
    unsigned line = 0, first;
    long     at, to;
    int      rc = 0, lvl, section = 0;
    seen_t   seen[ARB_CONFIG_SEEN_MAX];
    size_t   nseen = 0;
    crypto_generichash_state dg;

    f = fopen(path, "r");
    if (f == NULL) {
        arb_buf_printf(why, "%s: %s", path, strerror(errno));
        return ARB_EIO;
    }
    crypto_generichash_init(&dg, NULL, 0, sizeof(c->file_digest));
    at = ftell(f);
    while (fgets(buf, sizeof(buf), f) != NULL) {
        line++;
        /* A NUL ends the line as it is read here, the rest unread: the
         * last line, without a newline after it, passed cut short until
         * 2026-12-08 (the others have their newline after the NUL).  A
         * stream that cannot tell its position is judged below. */
        to = ftell(f);
        if (at >= 0 && to >= 0 && (size_t)(to - at) != strlen(buf)) {
            arb_buf_printf(why, "%s: line %u: holds a NUL byte", path,
                           line);
            rc = ARB_EINVAL;
            break;
        }
        at = to;
        /* A longer line would be read as two. */
        if (strchr(buf, '\n') == NULL && !feof(f)) {
            arb_buf_printf(why, "%s: line %u: longer than %zu bytes (or "
                           "holds a NUL byte)", path, line, sizeof(buf) - 2);
            rc = ARB_EINVAL;
            break;
        }
        hash = strchr(buf, '#');
        if (hash != NULL)
            *hash = '\0';
        k = trim(buf);
        /* A byte-order mark some editors write is no part of a key. */
        if (line == 1 && strncmp(k, "\xef\xbb\xbf", 3) == 0)
            k = trim(k + 3);
        if (*k == '\0')
            continue;
        /* Sections: [replicate] (daemon/replicate.h), [replica]
         * (daemon/replica.h) and [http] (daemon/http.h). */
        if (*k == '[') {
            if (tokens_only) {
                arb_buf_printf(why, "%s: line %u: a tokens file holds only "
                               "'token =' lines", path, line);
                rc = ARB_EINVAL;
                break;
            }
            if (strcmp(k, "[replicate]") == 0) {
                section = 1;
                c->repl_line = line;
            } else if (strcmp(k, "[replica]") == 0) {
                section = 2;
            } else if (strcmp(k, "[http]") == 0) {
                section = 3;
            } else {
                arb_buf_printf(why, "%s: line %u: unknown section %s (the "
                               "sections are [replicate], [replica] and "
                               "[http])",
                               path, line, k);
                rc = ARB_EINVAL;
                break;
            }
            if ((first = seen_before(seen, &nseen, section, "", line))
                != 0) {
                arb_buf_printf(why, "%s: line %u: %s again (first at line "
                               "%u): one section each", path, line, k,
                               first);
                rc = ARB_EINVAL;
                break;
            }
            continue;
        }
        eq = strchr(k, '=');
        if (eq == NULL) {
            arb_buf_printf(why, "%s: line %u: expected 'key = value'", path,
                           line);
            rc = ARB_EINVAL;
            break;
        }
        *eq = '\0';
        k = trim(k);
        v = trim(eq + 1);
        /* An empty value is no default: until 2026-12-06 `data =` stopped
         * the start with "data directory : Success", naming nothing. */
        if (*v == '\0') {
            arb_buf_printf(why, "%s: line %u: %s%s has no value (leave the "
                           "line out for the default)", path, line,
                           names[section], k);
            rc = ARB_EINVAL;
            break;
        }
        if (section != 0 || strcmp(k, "token") != 0) {
            unsigned char sec = (unsigned char)section;

            crypto_generichash_update(&dg, &sec, 1);
            crypto_generichash_update(&dg, (unsigned char *)k,
                                      strlen(k) + 1);
            crypto_generichash_update(&dg, (unsigned char *)v,
                                      strlen(v) + 1);
        }
        if (!repeatable(section, k)
            && (first = seen_before(seen, &nseen, section, k, line)) != 0) {
            arb_buf_printf(why, "%s: line %u: %s%s given again (first at "
                           "line %u)", path, line, names[section], k, first);
            rc = ARB_EINVAL;
            break;
        }
        if (section == 1 || section == 2) {
            arb_buf_t tmp = ARB_BUF_INIT;
            rc = section == 1 ? arb_repl_conf_set(&c->repl, k, v, &tmp)
                              : arb_replica_conf_set(&c->replica, k, v, &tmp);
            if (rc != 0) {
                arb_buf_printf(why, "%s: line %u: %s", path, line,
                               arb_buf_cstr(&tmp));
                arb_buf_free(&tmp);
                break;
            }
            continue;
        }
        if (tokens_only && strcmp(k, "token") != 0) {
            arb_buf_printf(why, "%s: line %u: a tokens file holds only "
                           "'token =' lines", path, line);
            rc = ARB_EINVAL;
            break;
        }
#define SIZE(name, lo, hi, field) \
        else if (strcmp(k, name) == 0) { \
            size_t z_; \
            if (parse_size(v, lo, hi, &z_) != 0) { \
                arb_buf_printf(why, "%s: line %u: %s must be a number from " \
                               "%zu to %zu (K/M/G suffixes)", path, line, \
                               name, (size_t)(lo), (size_t)(hi)); \
                rc = ARB_EINVAL; \
                break; \
            } \
            field = z_; \
        }
        if (section == 3) {
            rc = http_key(&c->http, k, v, why);
            if (rc != 0) {
                arb_buf_t tmp = ARB_BUF_INIT;
                arb_buf_printf(&tmp, "%s: line %u: [http] %s", path, line,
                               arb_buf_cstr(why));
                arb_buf_free(why);
                *why = tmp;
                break;
            }
        } else if (strcmp(k, "token") == 0) {
            rc = parse_token(c, v, line, why);
            if (rc != 0) {
                arb_buf_t tmp = ARB_BUF_INIT;
                arb_buf_printf(&tmp, "%s: %s", path, arb_buf_cstr(why));
                arb_buf_free(why);
                *why = tmp;
                break;
            }
        } else if (strcmp(k, "data") == 0) {
            if ((rc = set_str(&c->data, v, why)) != 0)
                break;
        } else if (strcmp(k, "listen") == 0) {
            arb_buf_t tmp = ARB_BUF_INIT;

            /* Read as the listener reads it (until 2026-12-06 a port 0
             * or 99999, or a host name, passed here and stopped the
             * start as "could not start", exit 1, naming no line). */
            if (c->nlisten == ARB_LISTEN_MAX
                || arb_config_listen_check(v, &tmp) != 0) {
                arb_buf_printf(why, "%s: line %u: listen takes unix:PATH or "
                               "tcp:HOST:PORT (a numeric address, port 1 "
                               "to 65535), at most %d times%s%s", path, line,
                               ARB_LISTEN_MAX, tmp.len > 0 ? ": " : "",
                               tmp.len > 0 ? arb_buf_cstr(&tmp) : "");
                arb_buf_free(&tmp);
                rc = ARB_EINVAL;
                break;
            }
            if ((rc = set_str(&c->listen[c->nlisten], v, why)) != 0)
                break;
            c->nlisten++;
        } else if (strcmp(k, "tokens_file") == 0) {
            if ((rc = set_str(&c->tokens_file, v, why)) != 0)
                break;
        } else if (strcmp(k, "log_level") == 0) {
            lvl = arb_log_parse_level(v);
            if (lvl < 0) {
                arb_buf_printf(why, "%s: line %u: log_level is error, warn, "
                               "info or debug", path, line);
                rc = ARB_EINVAL;
                break;
            }
            c->log_level = lvl;
        } else if (strcmp(k, "log_format") == 0) {
            lvl = arb_log_parse_format(v);
            if (lvl < 0) {
                arb_buf_printf(why, "%s: line %u: log_format is text or "
                               "json", path, line);
                rc = ARB_EINVAL;
                break;
            }
            c->log_format = lvl;
        } else if (strcmp(k, "storage_warn") == 0) {
            if (arb_config_parse_percents(v, c->storage_warn,
                                          ARB_STORAGE_WARN_MAX,
                                          &c->nstorage_warn) != 0) {
                arb_buf_printf(why, "%s: line %u: storage_warn is 'off' or "
                               "up to %d ascending percents from 1 to 99 "
                               "(80 90 95)", path, line,
                               ARB_STORAGE_WARN_MAX);
                rc = ARB_EINVAL;
                break;
            }
        }
        SIZE("frame_max", 1024, 16u << 20, c->frame_max)
        SIZE("auth_timeout_ms", 100, 600000, c->auth_timeout_ms)
        SIZE("stall_timeout_ms", 1000, 3600000, c->stall_timeout_ms)
        SIZE("outq_max", 65536, 1u << 30, c->outq_max)
        SIZE("inq_max", 1, 1u << 20, c->inq_max)
        SIZE("max_connections", 1, 1u << 20, c->max_connections)
        SIZE("batch_max", 1, 1u << 20, c->batch_max)
        SIZE("lone_commit", 0, 1, c->lone_commit)
        SIZE("map_size", 65536, (size_t)1 << 40, c->map_size)
        SIZE("map_max", 65536, (size_t)1 << 40, c->map_max)
        SIZE("storage_reserve", 0, (size_t)1 << 40, c->storage_reserve)
        else {
            arb_buf_printf(why, "%s: line %u: unknown key '%s'", path, line,
                           k);
            rc = ARB_EINVAL;
            break;
        }
#undef SIZE
    }
    /* A read that failed (a directory opens, then reads EISDIR) is no
     * file of no lines: until 2026-12-06 a tokens file replaced by a
     * directory loaded as no tokens on SIGHUP, shutting everyone out. */
    if (rc == 0 && ferror(f)) {
        arb_buf_printf(why, "%s: %s", path, strerror(errno));
        rc = ARB_EIO;
    }
    /* map_max is given (its least is 64K) when it is below map_size: its
     * line is named, as every refusal names one, and map_size's when
     * given (until 2026-12-08 the file alone was).  Without map_max,
     * a map_size over its default is refused here, at its line, not
     * when the store opens (it was, naming no line). */
    if (rc == 0 && !tokens_only && c->map_max != 0
        && c->map_max < c->map_size) {
        first = seen_at(seen, nseen, 0, "map_size");
        arb_buf_printf(why, "%s: line %u: map_max (%zu) is below map_size "
                       "(%zu", path, seen_at(seen, nseen, 0, "map_max"),
                       c->map_max, c->map_size);
        if (first != 0)
            arb_buf_printf(why, ", line %u)", first);
        else
            arb_buf_puts(why, ", the default)");
        rc = ARB_EINVAL;
    } else if (rc == 0 && !tokens_only && c->map_max == 0
               && c->map_size > ARB_STORE_MAP_MAX_DEFAULT) {
        arb_buf_printf(why, "%s: line %u: map_size (%zu) is above map_max "
                       "(%zu, the default): set map_max too", path,
                       seen_at(seen, nseen, 0, "map_size"), c->map_size,
                       (size_t)ARB_STORE_MAP_MAX_DEFAULT);
        rc = ARB_EINVAL;
    }
    fclose(f);
    if (!tokens_only)
        crypto_generichash_final(&dg, c->file_digest,
                                 sizeof(c->file_digest));
    return rc;
}

int
arb_config_load(arb_config_t *c, const char *path, arb_buf_t *why)
{
    int rc = load(c, path, 0, why);

    c->repl.event_max = c->frame_max < ARB_STORE_EVENT_MAX
                        ? c->frame_max : ARB_STORE_EVENT_MAX;
    /* A refusal of [replicate] as a whole names its header's line, as
     * every other refusal names a line (until 2026-12-05 only the file:
     * fuzz_config's check). */
    if (rc == 0 && arb_repl_conf_check(&c->repl, why) != 0) {
        arb_buf_t tmp = ARB_BUF_INIT;
        arb_buf_printf(&tmp, "%s: line %u: %s", path, c->repl_line,
                       arb_buf_cstr(why));
        arb_buf_free(why);
        *why = tmp;
        rc = ARB_EINVAL;
    }
    return rc;
}

int
arb_config_load_tokens(arb_config_t *c, const char *path, int keep,
                       arb_buf_t *why)
{
    arb_config_t tmp;
    arb_token_t *nt;
    size_t       i, base;
    int          rc;

    /* Load into a scratch config so a bad file leaves the old tokens. */
    memset(&tmp, 0, sizeof(tmp));
    rc = load(&tmp, path, 1, why);
    if (rc != 0) {
        arb_config_free(&tmp);
        return rc;
    }
    /* The config file's tokens and this file's: one holder per secret. */
    for (i = 0; keep && i < c->ntokens; i++) {
        size_t j;

        for (j = 0; j < tmp.ntokens; j++)
            if (strcmp(c->tokens[i].secret, tmp.tokens[j].secret) == 0) {
                arb_buf_printf(why, "%s: line %u: this token's secret is "
                               "also given in the configuration file (line "
                               "%u): a secret names one holder", path,
                               tmp.tokens[j].line, c->tokens[i].line);
                arb_config_free(&tmp);
                return ARB_EINVAL;
            }
    }
    /* One allocation before anything changes: failing later would leave
     * c with some tokens lost and tmp's moved ones freed twice. */
    base = keep ? c->ntokens : 0;
    nt = malloc((base + tmp.ntokens + 1) * sizeof(*nt));
    if (nt == NULL) {
        arb_config_free(&tmp);
        arb_buf_printf(why, "%s: out of memory", path);
        return ARB_ENOMEM;
    }
    if (keep && c->ntokens > 0)
        memcpy(nt, c->tokens, c->ntokens * sizeof(*nt));
    for (i = 0; !keep && i < c->ntokens; i++)
        token_clear(&c->tokens[i]);
    if (tmp.ntokens > 0)
        memcpy(nt + base, tmp.tokens, tmp.ntokens * sizeof(*nt));
    free(c->tokens);
    c->tokens = nt;
    c->ntokens = base + tmp.ntokens;
    free(tmp.tokens);
    tmp.tokens = NULL;
    tmp.ntokens = 0;
    arb_config_free(&tmp);
    return 0;
}

const arb_token_t *
arb_config_auth(const arb_config_t *c, const char *secret, size_t len)
{
    const arb_token_t *found = NULL;
    size_t             i, n;
    unsigned char      a[64], b[64];

    if (len == 0 || len > 64)
        return NULL;
    memset(a, 0, sizeof(a));
    memcpy(a, secret, len);
    /* Compare against every token, in constant time per token, so neither
     * the match position nor the prefix length leaks through timing. */
    for (i = 0; i < c->ntokens; i++) {
        n = strlen(c->tokens[i].secret);
        memset(b, 0, sizeof(b));
        memcpy(b, c->tokens[i].secret, n > 64 ? 64 : n);
        if ((sodium_memcmp(a, b, sizeof(a)) == 0) & (n == len))
            found = &c->tokens[i];
    }
    sodium_memzero(a, sizeof(a));
    return found;
}
