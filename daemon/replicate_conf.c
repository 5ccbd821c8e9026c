/*
 * replicate_conf.c - the [replicate] section of arbiterd.conf and the
 * ownership of match ids by prefix.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "core/err.h"
#include "daemon/replicate.h"
#include "proto/stream.h"

void
arb_repl_conf_defaults(arb_repl_conf_t *c)
{
    memset(c, 0, sizeof(*c));
    c->mode = ARB_REPL_ASYNC;
    c->max_pending = 4096;
    c->timeout_ms = 2000;
    c->sync_timeout_ms = 5000;
    c->check_s = 60;
    c->check_read = 2000;
}

void
arb_repl_conf_free(arb_repl_conf_t *c)
{
    size_t i, j;

    if (c == NULL)
        return;
    free(c->urls);
    free(c->stream);
    free(c->credentials);
    free(c->recorder);
    free(c->secret_key_file);
    for (i = 0; i < c->nown; i++)
        free(c->own[i]);
    for (i = 0; i < c->npeer; i++) {
        free(c->peer[i].name);
        for (j = 0; j < c->peer[i].nprefix; j++)
            free(c->peer[i].prefix[j]);
    }
    arb_repl_conf_defaults(c);
}

static int
set_str(char **dst, const char *v)
{
    char *s = strdup(v);

    if (s == NULL)
        return ARB_ENOMEM;
    free(*dst);
    *dst = s;
    return 0;
}

static int
parse_uint(const char *v, unsigned long lo, unsigned long hi,
           unsigned long *out)
{
    char         *end;
    unsigned long n;

    if (*v < '0' || *v > '9')
        return -1;
    errno = 0;
    n = strtoul(v, &end, 10);
    if (errno != 0 || *end != '\0' || n < lo || n > hi)
        return -1;
    *out = n;
    return 0;
}

/* A prefix is the start of a match id: 1..64 of the id characters. */
static int
prefix_ok(const char *p)
{
    return arb_stream_id_ok(p);
}

/* Splits v on blanks into prefixes appended to arr (at most max). */
static int
add_prefixes(char **arr, size_t *n, const char *v, const char *key,
             arb_buf_t *why)
{
    char  *copy = strdup(v), *save = NULL, *w;
    int    rc = 0;

    if (copy == NULL)
        return ARB_ENOMEM;
    for (w = strtok_r(copy, " \t,", &save); w != NULL;
         w = strtok_r(NULL, " \t,", &save)) {
        if (!prefix_ok(w) || *n == ARB_REPL_PREFIX_MAX) {
            arb_buf_printf(why, "%s: '%s' is not a match id prefix (1..64 "
                           "of A-Z a-z 0-9 _ . @ + -, at most %d)", key, w,
                           ARB_REPL_PREFIX_MAX);
            rc = ARB_EINVAL;
            break;
        }
        arr[*n] = strdup(w);
        if (arr[*n] == NULL) {
            rc = ARB_ENOMEM;
            break;
        }
        (*n)++;
    }
    free(copy);
    return rc;
}

int
arb_repl_key_check(const char *path, arb_buf_t *why)
{
    unsigned char key[ARB_STREAM_KEY_LEN];
    arb_buf_t     e = ARB_BUF_INIT;
    int           rc;

    /* Read once here, for its faults to stop the start with the line
     * (until 2026-12-06 they stopped it after it listened, status 1);
     * the daemon reads it again where it uses it. */
    rc = arb_stream_key_load(key, path, &e);
    sodium_memzero(key, sizeof(key));
    if (rc != 0)
        arb_buf_printf(why, "secret_key_file: %s", arb_buf_cstr(&e));
    arb_buf_free(&e);
    return rc != 0 ? ARB_EINVAL : 0;
}

int
arb_repl_conf_set(arb_repl_conf_t *c, const char *k, const char *v,
                  arb_buf_t *why)
{
    unsigned long n;
    int           rc;

    /* A URL libnats cannot use, and a credentials file it cannot read,
     * are said here, with the line: libnats took them and retried for
     * good, saying "not reachable" (until 2026-12-06). */
    if (strcmp(k, "urls") == 0 || strcmp(k, "credentials") == 0) {
        arb_buf_t e = ARB_BUF_INIT;

        if ((k[0] == 'u' ? arb_stream_urls_check(v, &e)
                         : arb_stream_creds_check(v, &e)) != 0) {
            arb_buf_printf(why, "%s: %s", k, arb_buf_cstr(&e));
            arb_buf_free(&e);
            return ARB_EINVAL;
        }
        return set_str(k[0] == 'u' ? &c->urls : &c->credentials, v);
    }
    if (strcmp(k, "stream") == 0 || strcmp(k, "recorder") == 0) {
        if (!arb_stream_name_ok(v)) {
            arb_buf_printf(why, "%s: '%s' must be 1..%d of A-Z a-z 0-9 _ -",
                           k, v, ARB_STREAM_NAME_MAX);
            return ARB_EINVAL;
        }
        return set_str(k[0] == 's' ? &c->stream : &c->recorder, v);
    }

    if (strcmp(k, "secret_key_file") == 0) {
        if (arb_repl_key_check(v, why) != 0)
            return ARB_EINVAL;
        return set_str(&c->secret_key_file, v);
    }
    if (strcmp(k, "mode") == 0) {
        if (strcmp(v, "async") == 0)
            c->mode = ARB_REPL_ASYNC;
        else if (strcmp(v, "sync") == 0)
            c->mode = ARB_REPL_SYNC;
        else {
            arb_buf_puts(why, "mode is async or sync");
            return ARB_EINVAL;
        }
        return 0;
    }
    if (strcmp(k, "owns") == 0)
        return add_prefixes(c->own, &c->nown, v, k, why);
    if (strcmp(k, "peer") == 0) {
        /* peer = NAME PREFIX... */
        const char      *sp = v + strcspn(v, " \t");
        arb_repl_peer_t *p;
        char             name[ARB_STREAM_NAME_MAX + 2];
        size_t           len = (size_t)(sp - v);

        if (len == 0 || len > ARB_STREAM_NAME_MAX || *sp == '\0'
            || c->npeer == ARB_REPL_PEER_MAX) {
            arb_buf_printf(why, "peer takes a recorder NAME and its match "
                           "id PREFIXes (at most %d peers)",
                           ARB_REPL_PEER_MAX);
            return ARB_EINVAL;
        }
        memcpy(name, v, len);
        name[len] = '\0';
        if (!arb_stream_name_ok(name)) {
            arb_buf_printf(why, "peer: '%s' is not a recorder name", name);
            return ARB_EINVAL;
        }
        p = &c->peer[c->npeer];
        p->name = strdup(name);
        if (p->name == NULL)
            return ARB_ENOMEM;
        c->npeer++;
        rc = add_prefixes(p->prefix, &p->nprefix, sp, "peer", why);
        if (rc == 0 && p->nprefix == 0) {
            /* only separators after the name: a peer owning nothing
             * is a line cut short, not a recorder to name */
            arb_buf_printf(why, "peer takes a recorder NAME and its match "
                           "id PREFIXes (at most %d peers)",
                           ARB_REPL_PEER_MAX);
            rc = ARB_EINVAL;
        }
        return rc;
    }
#define UINT(name, lo, hi, field) \
    if (strcmp(k, name) == 0) { \
        if (parse_uint(v, lo, hi, &n) != 0) { \
            arb_buf_printf(why, "%s must be a number from %lu to %lu", \
                           name, (unsigned long)(lo), (unsigned long)(hi)); \
            return ARB_EINVAL; \
        } \
        field = n; \
        return 0; \
    }
    UINT("max_pending", 1, 65536, c->max_pending)
    UINT("timeout_ms", 100, 600000, c->timeout_ms)
    UINT("sync_timeout_ms", 100, 600000, c->sync_timeout_ms)
    UINT("max_lag", 0, 100000000, c->max_lag)
    UINT("max_lag_ms", 0, 3600000, c->max_lag_ms)
    UINT("check_interval", 0, 86400, c->check_s)
    UINT("check_read", 0, 100000000, c->check_read)
    UINT("replicas", 0, 5, c->replicas)
#undef UINT
    arb_buf_printf(why, "unknown key '%s' in [replicate]", k);
    return ARB_EINVAL;
}

int
arb_repl_conf_check(const arb_repl_conf_t *c, arb_buf_t *why)
{
    if (c->urls == NULL) {
        if (c->nown > 0 || c->npeer > 0 || c->mode == ARB_REPL_SYNC
            || c->max_lag > 0 || c->max_lag_ms > 0) {
            arb_buf_puts(why, "[replicate]: owns, peer, mode = sync, "
                         "max_lag and max_lag_ms need urls");
            return ARB_EINVAL;
        }
        return 0;
    }
    if (c->recorder == NULL) {
        arb_buf_puts(why, "[replicate]: recorder (this recorder's name) is "
                     "required with urls");
        return ARB_EINVAL;
    }
    if ((c->max_lag > 0 || c->max_lag_ms > 0) && c->mode == ARB_REPL_SYNC) {
        arb_buf_printf(why, "[replicate]: %s bounds mode = async (in sync "
                       "mode every ack waits for the stream)",
                       c->max_lag > 0 ? "max_lag" : "max_lag_ms");
        return ARB_EINVAL;
    }
    return 0;
}

static size_t
match_len(char *const *pre, size_t n, const char *id)
{
    size_t i, best = 0, l;

    for (i = 0; i < n; i++) {
        l = strlen(pre[i]);
        if (l > best && strncmp(id, pre[i], l) == 0)
            best = l;
    }
    return best;
}

const char *
arb_repl_owner(const arb_repl_conf_t *c, const char *id)
{
    const char *owner = "";
    size_t      best, i, l;

    if (c->nown == 0)
        return NULL;
    best = match_len(c->own, c->nown, id);
    if (best > 0)
        owner = NULL;
    for (i = 0; i < c->npeer; i++) {
        l = match_len(c->peer[i].prefix, c->peer[i].nprefix, id);
        if (l > best) {
            best = l;
            owner = c->peer[i].name;
        }
    }
    return owner;
}
