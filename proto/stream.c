/*
 * stream.c - the JetStream layout: subjects, headers, connecting, the
 * stream's existence and a subject's last message (proto/stream.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <sys/stat.h>

#include <sodium.h>

#include "core/err.h"
#include "core/num.h"
#include "proto/stream.h"

#define ARB_STREAM_TIMEOUT_DEFAULT 2000
#define ARB_STREAM_RECONNECT_MS    250
#define ARB_STREAM_PING_MS         2000

static int
id_char_ok(int c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')
           || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '@'
           || c == '+' || c == '-';
}

int
arb_stream_id_ok(const char *id)
{
    size_t n;

    if (id == NULL)
        return 0;
    for (n = 0; id[n] != '\0'; n++)
        if (n >= ARB_STREAM_ID_MAX || !id_char_ok((unsigned char)id[n]))
            return 0;
    return n > 0;
}

/* One URL of the list, n bytes at u. */
static int
url_check(const char *u, size_t n, arb_buf_t *why)
{
    const char *p, *end = u + n, *at, *host;
    size_t      k;
    unsigned    port = 0;

    /* (A scheme alone names no host, said as such for both: until
     * 2026-12-08 "tls://" was "not a NATS URL".) */
    if (n >= 7 && strncasecmp(u, "nats://", 7) == 0)
        p = u + 7;
    else if (n >= 6 && strncasecmp(u, "tls://", 6) == 0)
        p = u + 6;
    else {
        arb_buf_printf(why, "'%.*s' is not a NATS URL: nats://HOST:PORT "
                       "or tls://HOST:PORT", (int)n, u);
        return ARB_EINVAL;
    }
    at = memchr(p, '@', (size_t)(end - p));
    host = at != NULL ? at + 1 : p;
    if (host < end && *host == '[') {           /* [IPv6] */
        const char *rb = memchr(host, ']', (size_t)(end - host));

        if (rb == NULL || rb == host + 1) {
            arb_buf_printf(why, "'%.*s': a bad IPv6 address", (int)n, u);
            return ARB_EINVAL;
        }
        p = rb + 1;
    } else {
        for (p = host; p < end && *p != ':'; p++)
            if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')
                  || (*p >= '0' && *p <= '9') || *p == '.' || *p == '-'
                  || *p == '_')) {
                arb_buf_printf(why, "'%.*s': '%c' in the host name",
                               (int)n, u, *p);
                return ARB_EINVAL;
            }
        if (p == host) {
            arb_buf_printf(why, "'%.*s' names no host", (int)n, u);
            return ARB_EINVAL;
        }
    }
    if (p == end)
        return 0;
    if (*p != ':' || p + 1 == end) {
        arb_buf_printf(why, "'%.*s': HOST:PORT, nothing after it", (int)n,
                       u);
        return ARB_EINVAL;
    }
    for (k = 1; p + k < end; k++) {
        if (p[k] < '0' || p[k] > '9' || port > 65535) {
            port = 0;
            break;
        }
        port = port * 10 + (unsigned)(p[k] - '0');
    }
    if (port < 1 || port > 65535) {
        arb_buf_printf(why, "'%.*s': the port must be 1..65535", (int)n, u);
        return ARB_EINVAL;
    }
    return 0;
}

int
arb_stream_urls_check(const char *urls, arb_buf_t *why)
{
    const char *p = urls, *q;
    size_t      n;
    int         any = 0;

    while (p != NULL && *p != '\0') {
        q = strchr(p, ',');
        n = q != NULL ? (size_t)(q - p) : strlen(p);
        while (n > 0 && (*p == ' ' || *p == '\t')) {
            p++;
            n--;
        }
        while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
            n--;
        if (n > 0) {
            if (url_check(p, n, why) != 0)
                return ARB_EINVAL;
            any = 1;
        }
        p = q != NULL ? q + 1 : NULL;
    }
    if (!any) {
        arb_buf_puts(why, "give at least one nats://HOST:PORT");
        return ARB_EINVAL;
    }
    return 0;
}

int
arb_stream_creds_check(const char *path, arb_buf_t *why)
{
    struct stat st;
    FILE       *f;

    if (path == NULL || *path == '\0') {
        arb_buf_puts(why, "no credentials file named");
        return ARB_EINVAL;
    }
    if (stat(path, &st) != 0 || (f = fopen(path, "r")) == NULL) {
        arb_buf_printf(why, "%s: %s", path, strerror(errno));
        return ARB_EINVAL;
    }
    fclose(f);
    if (!S_ISREG(st.st_mode)) {
        arb_buf_printf(why, "%s: not a file (NATS credentials)", path);
        return ARB_EINVAL;
    }
    return 0;
}

int
arb_stream_name_ok(const char *s)
{
    size_t n;

    if (s == NULL)
        return 0;
    for (n = 0; s[n] != '\0'; n++) {
        int c = (unsigned char)s[n];

        if (n >= ARB_STREAM_NAME_MAX
            || !((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')
                 || (c >= '0' && c <= '9') || c == '_' || c == '-'))
            return 0;
    }
    return n > 0;
}

int
arb_stream_token_encode(char *out, size_t cap, const char *match_id)
{
    size_t i, o = 0;

    if (!arb_stream_id_ok(match_id))
        return ARB_EINVAL;
    for (i = 0; match_id[i] != '\0'; i++) {
        const char *s = match_id[i] == '.' ? "%2E" : NULL;
        size_t      n = s != NULL ? 3 : 1;

        if (o + n >= cap)
            return ARB_EINVAL;
        if (s != NULL)
            memcpy(out + o, s, 3);
        else
            out[o] = match_id[i];
        o += n;
    }
    if (o >= cap)
        return ARB_EINVAL;
    out[o] = '\0';
    return 0;
}

int
arb_stream_token_decode(char *out, size_t cap, const char *token)
{
    size_t i = 0, o = 0;

    while (token[i] != '\0') {
        char c = token[i];

        if (c == '%') {
            if (strncmp(token + i, "%2E", 3) != 0)
                return ARB_EINVAL;
            c = '.';
            i += 3;
        } else if (c == '.' || !id_char_ok((unsigned char)c)) {
            return ARB_EINVAL;      /* a raw '.' is a separator, not ours */
        } else {
            i++;
        }
        if (o + 1 >= cap || o >= ARB_STREAM_ID_MAX)
            return ARB_EINVAL;
        out[o++] = c;
    }
    if (o == 0 || o >= cap)
        return ARB_EINVAL;
    out[o] = '\0';
    return 0;
}

int
arb_stream_subject(char *out, size_t cap, int kind, const char *match_id)
{
    const char *pre;
    size_t      n;

    if (kind == ARB_STREAM_EV)
        pre = ARB_STREAM_EV_PREFIX;
    else if (kind == ARB_STREAM_DEAL)
        pre = ARB_STREAM_DEAL_PREFIX;
    else
        return ARB_EINVAL;
    n = strlen(pre);
    if (cap <= n)
        return ARB_EINVAL;
    memcpy(out, pre, n);
    return arb_stream_token_encode(out + n, cap - n, match_id);
}

int
arb_stream_subject_parse(const char *subject, char *id_out, size_t id_cap)
{
    static const struct { const char *pre; int kind; } k[] = {
        { ARB_STREAM_EV_PREFIX, ARB_STREAM_EV },
        { ARB_STREAM_DEAL_PREFIX, ARB_STREAM_DEAL },
    };
    size_t i;

    for (i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
        size_t n = strlen(k[i].pre);

        if (strncmp(subject, k[i].pre, n) == 0)
            return arb_stream_token_decode(id_out, id_cap, subject + n) == 0
                   ? k[i].kind : ARB_EINVAL;
    }
    return ARB_EINVAL;
}

int
arb_stream_msgid(char *out, size_t cap, const char *match_id, uint64_t seq)
{
    int n;

    if (!arb_stream_id_ok(match_id))
        return ARB_EINVAL;
    n = snprintf(out, cap, "%s/%" PRIu64, match_id, seq);
    return n < 0 || (size_t)n >= cap ? ARB_EINVAL : 0;
}

int
arb_stream_err(natsStatus s, jsErrCode jerr, const char *what,
               arb_buf_t *why)
{
    int rc;

    if (jerr == JSNoMessageFoundErr || jerr == JSStreamNotFoundErr
        || s == NATS_NOT_FOUND)
        rc = ARB_ENOTFOUND;
    else if (jerr == JSNotEnabledErr || jerr == JSClusterNotAvailErr
             || jerr == JSClusterNotLeaderErr || s == NATS_NO_RESPONDERS
             || s == NATS_TIMEOUT || s == NATS_CONNECTION_CLOSED
             || s == NATS_CONNECTION_DISCONNECTED || s == NATS_NO_SERVER
             || s == NATS_NOT_YET_CONNECTED || s == NATS_STALE_CONNECTION)
        rc = ARB_EAGAIN;
    else if (s == NATS_NO_MEMORY)
        rc = ARB_ENOMEM;
    else
        rc = ARB_EIO;
    if (why != NULL) {
        why->len = 0;
        arb_buf_printf(why, "nats: %s: %s", what, natsStatus_GetText(s));
        if (jerr != 0)
            arb_buf_printf(why, " (JetStream error %d)", (int)jerr);
    }
    return rc;
}

static void
why_set(arb_buf_t *why, const char *msg)
{
    if (why != NULL) {
        why->len = 0;
        arb_buf_puts(why, msg);
    }
}

/* "u1,u2,...": each one a server (natsOptions_SetURL takes one URL). */
static natsStatus
set_servers(natsOptions *o, const char *urls)
{
    char       *copy = strdup(urls), *save = NULL, *w;
    const char *v[16];
    int         n = 0;
    natsStatus  s;

    if (copy == NULL)
        return NATS_NO_MEMORY;
    for (w = strtok_r(copy, ", \t", &save); w != NULL && n < 16;
         w = strtok_r(NULL, ", \t", &save))
        v[n++] = w;
    s = n > 0 ? natsOptions_SetServers(o, v, n) : NATS_INVALID_ARG;
    free(copy);
    return s;
}

int
arb_stream_opts(natsOptions **out, const arb_stream_conf_t *conf,
                arb_buf_t *why)
{
    natsOptions *o = NULL;
    natsStatus   s;
    int64_t      t = conf->timeout_ms > 0 ? conf->timeout_ms
                                          : ARB_STREAM_TIMEOUT_DEFAULT;

    if (conf->urls == NULL || conf->urls[0] == '\0') {
        why_set(why, "replicate: urls is empty");
        return ARB_EINVAL;
    }
    s = natsOptions_Create(&o);
    if (s == NATS_OK)
        s = set_servers(o, conf->urls);
    if (s != NATS_OK) {
        natsOptions_Destroy(o);
        if (why != NULL) {
            why->len = 0;
            arb_buf_printf(why, "replicate: urls \"%s\": %s", conf->urls,
                           natsStatus_GetText(s));
        }
        return s == NATS_NO_MEMORY ? ARB_ENOMEM : ARB_EINVAL;
    }
    if (conf->creds != NULL && conf->creds[0] != '\0') {
        s = natsOptions_SetUserCredentialsFromFiles(o, conf->creds, NULL);
        if (s != NATS_OK) {
            natsOptions_Destroy(o);
            if (why != NULL) {
                why->len = 0;
                arb_buf_printf(why, "replicate: credentials \"%s\": %s",
                               conf->creds, natsStatus_GetText(s));
            }
            return ARB_EINVAL;
        }
    }
    /* Forever, quickly: an outage or an election must end in a resume,
     * never in a closed connection the daemon would have to rebuild. */
    s = natsOptions_SetTimeout(o, t);
    if (s == NATS_OK && conf->client_name != NULL)
        s = natsOptions_SetName(o, conf->client_name);
    if (s == NATS_OK)
        s = natsOptions_SetMaxReconnect(o, -1);
    if (s == NATS_OK)
        s = natsOptions_SetReconnectWait(o, ARB_STREAM_RECONNECT_MS);
    if (s == NATS_OK)
        s = natsOptions_SetAllowReconnect(o, true);
    /* A server that hangs (a stopped process, a network that drops
     * packets) keeps its TCP connection open: with libnats' default
     * pings (every 2 minutes, two unanswered) a recorder connected to it
     * published nothing, and a replica read nothing, for minutes while
     * the other servers were up.  Every ARB_STREAM_PING_MS, three
     * unanswered: another server within about 8 s. */
    if (s == NATS_OK)
        s = natsOptions_SetPingInterval(o, ARB_STREAM_PING_MS);
    if (s == NATS_OK)
        s = natsOptions_SetMaxPingsOut(o, 3);
    if (s != NATS_OK) {
        natsOptions_Destroy(o);
        return arb_stream_err(s, 0, "options", why);
    }
    *out = o;
    return 0;
}

void
arb_stream_close(arb_stream_t *st)
{
    if (st == NULL)
        return;
    jsCtx_Destroy(st->js);
    if (st->nc != NULL) {
        natsConnection_Close(st->nc);
        natsConnection_Destroy(st->nc);
    }
    free(st);
}

int
arb_stream_open(arb_stream_t **out, const arb_stream_conf_t *conf,
                natsOptions *opts, jsOptions *jopts, arb_buf_t *why)
{
    arb_stream_t *st;
    natsOptions  *own = NULL;
    jsOptions     jo;
    const char   *name = conf->stream != NULL ? conf->stream
                                              : ARB_STREAM_NAME_DEFAULT;
    natsStatus    s;
    int           rc;

    *out = NULL;
    if (!arb_stream_name_ok(name)) {
        if (why != NULL) {
            why->len = 0;
            arb_buf_printf(why, "replicate: stream name \"%s\" is not "
                           "1..%d of A-Z a-z 0-9 _ -", name,
                           ARB_STREAM_NAME_MAX);
        }
        return ARB_EINVAL;
    }
    st = calloc(1, sizeof(*st));
    if (st == NULL)
        return ARB_ENOMEM;
    strcpy(st->name, name);
    st->timeout_ms = conf->timeout_ms > 0 ? conf->timeout_ms
                                          : ARB_STREAM_TIMEOUT_DEFAULT;
    if (opts == NULL) {
        rc = arb_stream_opts(&own, conf, why);
        if (rc != 0)
            goto fail;
        opts = own;
    }
    s = natsConnection_Connect(&st->nc, opts);
    if (s == NATS_NOT_YET_CONNECTED)
        s = NATS_OK;            /* a retrying opts: libnats keeps trying */
    if (s != NATS_OK) {
        rc = arb_stream_err(s, 0, "connect", why);
        if (why != NULL)
            arb_buf_printf(why, " (%s)", conf->urls);
        goto fail;
    }
    if (jopts == NULL) {
        jsOptions_Init(&jo);
        jopts = &jo;
    }
    if (jopts->Wait <= 0)
        jopts->Wait = st->timeout_ms;
    s = natsConnection_JetStream(&st->js, st->nc, jopts);
    if (s != NATS_OK) {
        rc = arb_stream_err(s, 0, "jetstream context", why);
        goto fail;
    }
    natsOptions_Destroy(own);
    *out = st;
    return 0;

fail:
    natsOptions_Destroy(own);
    arb_stream_close(st);
    return rc;
}

/* Why an existing stream cannot hold the record, or NULL when it can. */
static const char *
stream_unfit(const jsStreamConfig *c)
{
    int i, subj = 0;

    for (i = 0; i < c->SubjectsLen; i++)
        if (strcmp(c->Subjects[i], ARB_STREAM_SUBJECTS) == 0)
            subj = 1;
    if (!subj)
        return "it does not take the subjects " ARB_STREAM_SUBJECTS;
    if (c->Retention != js_LimitsPolicy)
        return "its retention is not \"limits\" (messages would be "
               "removed once consumed)";
    if (c->MaxAge != 0)
        return "it has a max age (old events would expire)";
    if (c->MaxMsgsPerSubject > 0)
        return "it keeps a limited number of messages per subject";
    if (c->MaxMsgs > 0 || c->MaxBytes > 0)
        return "it has a message or byte limit (events would be "
               "discarded)";
    if (c->Storage != js_FileStorage)
        return "it is kept in memory, not in files";
    return NULL;
}

int
arb_stream_ensure(arb_stream_t *st, int replicas_wanted, int *replicas,
                  arb_buf_t *why)
{
    jsStreamInfo   *si = NULL;
    jsStreamConfig  cfg;
    const char     *subj[] = { ARB_STREAM_SUBJECTS };
    const char     *bad;
    jsErrCode       jerr = 0;
    natsStatus      s;
    int             rc;

    s = js_GetStreamInfo(&si, st->js, st->name, NULL, &jerr);
    if (s == NATS_OK) {
        bad = stream_unfit(si->Config);
        if (bad != NULL) {
            if (why != NULL) {
                why->len = 0;
                arb_buf_printf(why, "stream %s cannot hold the record: %s "
                               "(arbiter never changes or deletes an "
                               "existing stream)", st->name, bad);
            }
            jsStreamInfo_Destroy(si);
            return ARB_EINVAL;
        }
        if (replicas != NULL)
            *replicas = (int)si->Config->Replicas;
        st->max_msg_size = si->Config->MaxMsgSize;
        jsStreamInfo_Destroy(si);
        return 0;
    }
    if (jerr != JSStreamNotFoundErr)
        return arb_stream_err(s, jerr, "stream info", why);
    if (replicas_wanted < 0) {
        if (why != NULL) {
            why->len = 0;
            arb_buf_printf(why, "stream %s does not exist (any more); "
                           "arbiter does not re-create a stream it has "
                           "published to: create it again (or restore it), "
                           "then replication resumes", st->name);
        }
        return ARB_ENOTFOUND;
    }

    jsStreamConfig_Init(&cfg);
    cfg.Name = st->name;
    cfg.Subjects = subj;
    cfg.SubjectsLen = 1;
    cfg.Storage = js_FileStorage;
    cfg.Retention = js_LimitsPolicy;
    cfg.Replicas = replicas_wanted > 0 ? replicas_wanted : 3;
    cfg.DenyDelete = false;     /* the tests purge on purpose */
    jerr = 0;
    s = js_AddStream(&si, st->js, &cfg, NULL, &jerr);
    if (s != NATS_OK && replicas_wanted <= 0
        && (jerr == JSStreamReplicasNotSupportedErr
            || jerr == JSClusterNoPeersErr
            || jerr == JSInsufficientResourcesErr)) {
        cfg.Replicas = 1;       /* a single server: R1 is all there is */
        jerr = 0;
        s = js_AddStream(&si, st->js, &cfg, NULL, &jerr);
    }
    if (s != NATS_OK) {
        rc = arb_stream_err(s, jerr, "create stream", why);
        if (why != NULL)
            arb_buf_printf(why, " (stream %s, %d replicas)", st->name,
                           (int)cfg.Replicas);
        return rc;
    }
    if (replicas != NULL)
        *replicas = (int)si->Config->Replicas;
    st->max_msg_size = si->Config->MaxMsgSize;
    jsStreamInfo_Destroy(si);
    return 0;
}

void
arb_stream_msg_clear(arb_stream_msg_t *m)
{
    if (m == NULL)
        return;
    natsMsg_Destroy(m->msg);
    memset(m, 0, sizeof(*m));
}

/* A header's number: canonical (no leading zero), as the recorder
 * writes it. */
static int
parse_u64(const char *s, uint64_t *out)
{
    if (s == NULL || (s[0] == '0' && s[1] != '\0'))
        return -1;
    return arb_u64_parse(s, strlen(s), out);
}

static int
msg_bad(arb_stream_msg_t *out, arb_buf_t *why, const char *what)
{
    if (why != NULL) {
        why->len = 0;
        /* The stream sequence is the reader's to add: a message parsed
         * does not know it yet. */
        arb_buf_printf(why, "stream message on %s: %s",
                       out->msg != NULL ? natsMsg_GetSubject(out->msg) : "?",
                       what);
    }
    arb_stream_msg_clear(out);
    return ARB_EPROTO;
}

int
arb_stream_msg_parse(arb_stream_msg_t *out, natsMsg *msg, arb_buf_t *why)
{
    const char *v = NULL;
    int         kind;

    memset(out, 0, sizeof(*out));
    out->msg = msg;
    out->stream_seq = natsMsg_GetSequence(msg);
    out->time_ns = natsMsg_GetTime(msg);
    kind = arb_stream_subject_parse(natsMsg_GetSubject(msg), out->match_id,
                                    sizeof(out->match_id));
    if (kind < 0)
        return msg_bad(out, why, "not an arbiter subject");
    out->kind = kind;
    if (natsMsgHeader_Get(msg, ARB_STREAM_HDR_MATCH, &v) != NATS_OK
        || strcmp(v, out->match_id) != 0)
        return msg_bad(out, why, "header " ARB_STREAM_HDR_MATCH
                       " missing or not the subject's match");
    if (natsMsgHeader_Get(msg, ARB_STREAM_HDR_RECORDER, &v) == NATS_OK) {
        if (!arb_stream_name_ok(v))
            return msg_bad(out, why, "header " ARB_STREAM_HDR_RECORDER
                           " is not a recorder name");
        strcpy(out->recorder, v);
    }
    out->bytes = natsMsg_GetData(msg);
    out->len = (size_t)natsMsg_GetDataLength(msg);
    if (kind == ARB_STREAM_DEAL)
        return 0;
    if (natsMsgHeader_Get(msg, ARB_STREAM_HDR_SEQ, &v) != NATS_OK
        || parse_u64(v, &out->seq) != 0)
        return msg_bad(out, why, "header " ARB_STREAM_HDR_SEQ
                       " missing or not a decimal seq");
    if (natsMsgHeader_Get(msg, ARB_STREAM_HDR_HASH, &v) != NATS_OK
        || strlen(v) != 2 * ARB_HASH_LEN
        || sodium_hex2bin(out->hash, ARB_HASH_LEN, v, 2 * ARB_HASH_LEN,
                          NULL, NULL, NULL) != 0)
        return msg_bad(out, why, "header " ARB_STREAM_HDR_HASH
                       " missing or not 64 hex digits");
    if (out->len == 0)
        return msg_bad(out, why, "empty event");
    return 0;
}

int
arb_stream_last(arb_stream_t *st, const char *subject,
                arb_stream_msg_t *out, arb_buf_t *why)
{
    natsMsg   *msg = NULL;
    jsErrCode  jerr = 0;
    natsStatus s;
    uint64_t   sseq;
    int        rc;

    memset(out, 0, sizeof(*out));
    s = js_GetLastMsg(&msg, st->js, st->name, subject, NULL, &jerr);
    if (s != NATS_OK)
        return arb_stream_err(s, jerr, "last message", why);
    sseq = natsMsg_GetSequence(msg);
    rc = arb_stream_msg_parse(out, msg, why);
    if (rc == ARB_EPROTO)
        out->stream_seq = sseq;     /* where the one not ours is */
    return rc;
}

int
arb_stream_deal_last(void *st, const char *match_id, arb_stream_msg_t *out)
{
    char subj[ARB_STREAM_SUBJECT_MAX];

    memset(out, 0, sizeof(*out));
    if (arb_stream_subject(subj, sizeof(subj), ARB_STREAM_DEAL, match_id)
        != 0)
        return ARB_EINVAL;
    return arb_stream_last(st, subj, out, NULL);
}

typedef struct {
    const char *subject;
    uint64_t   *n;
} count_t;

static int
count_cb(void *ud, const char *subject, uint64_t msgs)
{
    count_t *c = ud;

    if (strcmp(subject, c->subject) == 0)
        *c->n = msgs;
    return 0;
}

int
arb_stream_subject_count(arb_stream_t *st, const char *subject,
                         uint64_t *n, arb_buf_t *why)
{
    count_t c = { subject, n };

    *n = 0;
    return arb_stream_subjects(st, subject, count_cb, &c, why);
}

int
arb_stream_settled(arb_stream_t *st, arb_buf_t *why)
{
    return arb_stream_settled_lag(st, NULL, why);
}

int
arb_stream_settled_lag(arb_stream_t *st, int *lagging, arb_buf_t *why)
{
    jsStreamInfo  *si = NULL;
    jsClusterInfo *c;
    jsErrCode      jerr = 0;
    natsStatus     s;
    int            i, rc = 0;

    if (lagging != NULL)
        *lagging = 0;
    s = js_GetStreamInfo(&si, st->js, st->name, NULL, &jerr);
    if (s != NATS_OK)
        return arb_stream_err(s, jerr, "stream info", why);
    c = si->Cluster;
    if (c != NULL && (c->Leader == NULL || c->Leader[0] == '\0')) {
        why_set(why, "nats: stream has no leader (election under way)");
        rc = ARB_EAGAIN;
    }
    for (i = 0; rc == 0 && c != NULL && i < c->ReplicasLen; i++) {
        const jsPeerInfo *p = c->Replicas[i];

        /* An offline replica is not waited for (a node may be down for
         * long; the quorum answers); one catching up is. */
        if (p != NULL && !p->Offline && (!p->Current || p->Lag > 0)) {
            if (why != NULL) {
                why->len = 0;
                arb_buf_printf(why, "nats: replica %s of leader %s is "
                               "catching up (lag %" PRIu64 ")",
                               p->Name != NULL ? p->Name : "?", c->Leader,
                               p->Lag);
            }
            rc = ARB_EAGAIN;
            if (lagging != NULL)
                *lagging = 1;
        }
    }
    jsStreamInfo_Destroy(si);
    return rc;
}

/* A message on subj carrying data with the headers every arbiter message
 * has (message id, match, recorder when named); extra, when not NULL, is
 * a NULL-ended list of further name, value pairs.  0 or ARB_ENOMEM. */
static int
msg_new(natsMsg **out, const char *subj, const void *data, size_t len,
        const char *id, const char *match_id, const char *recorder,
        const char *const *extra)
{
    natsMsg   *m = NULL;
    natsStatus s;

    s = natsMsg_Create(&m, subj, NULL, (const char *)data, (int)len);
    if (s == NATS_OK)
        s = natsMsgHeader_Set(m, ARB_STREAM_HDR_MSGID, id);
    if (s == NATS_OK)
        s = natsMsgHeader_Set(m, ARB_STREAM_HDR_MATCH, match_id);
    for (; s == NATS_OK && extra != NULL && extra[0] != NULL; extra += 2)
        s = natsMsgHeader_Set(m, extra[0], extra[1]);
    if (s == NATS_OK && recorder != NULL && recorder[0] != '\0')
        s = natsMsgHeader_Set(m, ARB_STREAM_HDR_RECORDER, recorder);
    if (s != NATS_OK) {
        natsMsg_Destroy(m);
        return ARB_ENOMEM;
    }
    *out = m;
    return 0;
}

int
arb_stream_ev_msg(natsMsg **out, const char *match_id, uint64_t seq,
                  const unsigned char hash[ARB_HASH_LEN],
                  const char *recorder, const void *bytes, size_t len)
{
    char       subj[ARB_STREAM_SUBJECT_MAX];
    char       id[ARB_STREAM_MSGID_MAX];
    char       num[24];
    char       hex[ARB_HASH_HEX];
    const char *const extra[] = { ARB_STREAM_HDR_SEQ, num,
                                  ARB_STREAM_HDR_HASH, hex, NULL };

    *out = NULL;
    if (arb_stream_subject(subj, sizeof(subj), ARB_STREAM_EV, match_id) != 0
        || arb_stream_msgid(id, sizeof(id), match_id, seq) != 0
        || len > INT32_MAX)
        return ARB_EINVAL;
    snprintf(num, sizeof(num), "%" PRIu64, seq);
    sodium_bin2hex(hex, sizeof(hex), hash, ARB_HASH_LEN);
    return msg_new(out, subj, bytes, len, id, match_id, recorder, extra);
}

int
arb_stream_key_load(unsigned char key[ARB_STREAM_KEY_LEN], const char *path,
                    arb_buf_t *why)
{
    unsigned char b[ARB_STREAM_KEY_LEN + 1];
    struct stat   st;
    size_t        n;
    FILE         *f;

    f = fopen(path, "rb");
    if (f == NULL) {
        if (why != NULL) {
            why->len = 0;
            arb_buf_printf(why, "replication key %s: %s", path,
                           strerror(errno));
        }
        return ARB_EIO;
    }
    if (fstat(fileno(f), &st) != 0 || (st.st_mode & 077) != 0) {
        fclose(f);
        if (why != NULL) {
            why->len = 0;
            arb_buf_printf(why, "replication key %s: readable by group or "
                           "others (chmod 600 it)", path);
        }
        return ARB_EINVAL;
    }
    n = fread(b, 1, sizeof(b), f);
    fclose(f);
    if (n != ARB_STREAM_KEY_LEN) {
        sodium_memzero(b, sizeof(b));
        if (why != NULL) {
            why->len = 0;
            arb_buf_printf(why, "replication key %s: %zu bytes, not %d",
                           path, n, ARB_STREAM_KEY_LEN);
        }
        return ARB_EINVAL;
    }
    memcpy(key, b, ARB_STREAM_KEY_LEN);
    sodium_memzero(b, sizeof(b));
    return 0;
}

int
arb_stream_deal_msg(natsMsg **out, const char *match_id, const char *secret,
                    const unsigned char key[ARB_STREAM_KEY_LEN],
                    const char *recorder)
{
    char           subj[ARB_STREAM_SUBJECT_MAX];
    char           id[ARB_STREAM_MSGID_MAX + 8];
    size_t         len = strlen(secret);
    size_t         n = crypto_secretbox_NONCEBYTES + crypto_secretbox_MACBYTES
                       + len;
    unsigned char *box;
    int            rc;

    *out = NULL;
    if (arb_stream_subject(subj, sizeof(subj), ARB_STREAM_DEAL, match_id)
        != 0 || len > (1u << 20))
        return ARB_EINVAL;
    snprintf(id, sizeof(id), "%s/deal", match_id);
    box = malloc(n);
    if (box == NULL)
        return ARB_ENOMEM;
    randombytes_buf(box, crypto_secretbox_NONCEBYTES);
    crypto_secretbox_easy(box + crypto_secretbox_NONCEBYTES,
                          (const unsigned char *)secret, len, box, key);
    rc = msg_new(out, subj, box, n, id, match_id, recorder, NULL);
    free(box);
    return rc;
}

int
arb_stream_deal_open(arb_buf_t *out, const arb_stream_msg_t *m,
                     const unsigned char key[ARB_STREAM_KEY_LEN],
                     arb_buf_t *why)
{
    const unsigned char *b = m->bytes;
    size_t               hdr = crypto_secretbox_NONCEBYTES
                               + crypto_secretbox_MACBYTES;
    size_t               len;

    if (m->kind != ARB_STREAM_DEAL || m->len < hdr) {
        if (why != NULL) {
            why->len = 0;
            arb_buf_printf(why, "deal of %s: not a sealed secret "
                           "(%zu bytes)", m->match_id, m->len);
        }
        return ARB_EPROTO;
    }
    len = m->len - hdr;
    out->len = 0;
    if (arb_buf_reserve(out, len + 1) != 0)
        return ARB_ENOMEM;
    if (crypto_secretbox_open_easy((unsigned char *)out->data,
                                   b + crypto_secretbox_NONCEBYTES,
                                   m->len - crypto_secretbox_NONCEBYTES, b,
                                   key) != 0) {
        if (why != NULL) {
            why->len = 0;
            arb_buf_printf(why, "deal of %s: does not open under the "
                           "replication key", m->match_id);
        }
        return ARB_ECRYPTO;
    }
    out->len = len;
    out->data[len] = '\0';
    if (memchr(out->data, '\0', len) != NULL) {
        out->len = 0;
        /* The caller names the match's problem with this why. */
        if (why != NULL) {
            why->len = 0;
            arb_buf_printf(why, "deal of %s: the secret holds a NUL byte "
                           "(no secret does)", m->match_id);
        }
        return ARB_EPROTO;
    }
    return 0;
}
