/*
 * stream.h - the JetStream layout of replicated records (docs/SCALE.md).
 *
 * One stream (default name ARBITER, subjects "arbiter.>") carries every
 * recorder's events: subject arbiter.ev.<token> per match, payload the
 * event's canonical bytes exactly as stored, headers naming the match, its
 * seq, the chain hash h(seq) in lowercase hex and the recorder.  A deal's
 * secret travels sealed on arbiter.deal.<token>.  Match ids may hold '.',
 * the subject separator, so a token is the id with each '.' written "%2E"
 * ('%' never occurs in an id, so the mapping is reversible).
 *
 * DESIGN: the stream is created once when missing and never deleted or
 * re-created by arbiter: nats-server 2.9.10 lost acknowledged messages
 * after a stream was re-created under the same name and its nodes were
 * killed.  Nothing here trusts the stream to be complete; the recorder
 * compares it with its own log (daemon/replicate*.c).
 *
 * libnats must be open (nats_Open, or any connect) before a message is
 * made or parsed here; nats_Close() at exit lets its threads go.
 *
 * Threads: libnats runs its own threads.  These helpers are plain calls
 * that block for at most the configured timeout; the daemon calls them
 * from its replication thread, never from the event loop.
 */
#ifndef ARB_PROTO_STREAM_H
#define ARB_PROTO_STREAM_H

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>

#include <nats/nats.h>

#include "core/buf.h"
#include "core/hash.h"

#define ARB_STREAM_NAME_DEFAULT "ARBITER"
#define ARB_STREAM_SUBJECTS     "arbiter.>"
#define ARB_STREAM_EV_PREFIX    "arbiter.ev."
#define ARB_STREAM_DEAL_PREFIX  "arbiter.deal."

/* A recorder's replication cursor, DATA/ARB_STREAM_CURSOR_FILE (its
 * format: daemon/replicate_cursor.c).  Its first line says every event of
 * the log up to position P is in the stream; `arbiter restore` writes that
 * line alone, since every event it restores came from the stream. */
#define ARB_STREAM_CURSOR_FILE  "replicate.pos"
#define ARB_STREAM_CURSOR_FMT   "published %" PRIu64 "\n"

#define ARB_STREAM_HDR_MSGID    "Nats-Msg-Id"
#define ARB_STREAM_HDR_MATCH    "Arbiter-Match"
#define ARB_STREAM_HDR_SEQ      "Arbiter-Seq"
#define ARB_STREAM_HDR_HASH     "Arbiter-Hash"
#define ARB_STREAM_HDR_RECORDER "Arbiter-Recorder"

/* Match ids are 1..64 bytes (ARB_STORE_ID_MAX); a token may triple them. */
#define ARB_STREAM_ID_MAX       64
#define ARB_STREAM_TOKEN_MAX    (3 * ARB_STREAM_ID_MAX + 1)
/* Longest subject, NUL included: "arbiter.deal." + token. */
#define ARB_STREAM_SUBJECT_MAX  (sizeof(ARB_STREAM_DEAL_PREFIX) + \
                                 ARB_STREAM_TOKEN_MAX)
/* "<match>/<seq>" with a 20-digit seq, NUL included. */
#define ARB_STREAM_MSGID_MAX    (ARB_STREAM_ID_MAX + 1 + 20 + 1)
/* Room for an event message's headers (message id, match, seq, hash,
 * recorder, with their names): a stream's max_msg_size counts them. */
#define ARB_STREAM_HDR_ROOM     1024
/* Stream names and recorder names: 1..32 bytes of [A-Za-z0-9_-]. */
#define ARB_STREAM_NAME_MAX     32

/* What a subject carries. */
enum arb_stream_kind { ARB_STREAM_EV = 1, ARB_STREAM_DEAL = 2 };

/* 1 when id is a valid match id (1..64 bytes of A-Z a-z 0-9 _ . @ + -). */
int  arb_stream_id_ok(const char *id);
/* 1 when s is a valid stream or recorder name. */
int  arb_stream_name_ok(const char *s);
/* Checks a comma-separated list of NATS server URLs before anything
 * connects: each nats:// or tls://, [USER[:PASS]@]HOST[:PORT], the port
 * 1..65535.  0, or ARB_EINVAL with why naming the URL and its fault
 * (libnats would take most of them and retry them for good). */
int  arb_stream_urls_check(const char *urls, arb_buf_t *why);
/* Checks that path is a credentials file this process can read: 0, or
 * ARB_EINVAL with why naming it and the reason (libnats reads it only
 * at each connect, where the reason is lost). */
int  arb_stream_creds_check(const char *path, arb_buf_t *why);

/* The subject token of a match id into out (cap >= ARB_STREAM_TOKEN_MAX
 * always suffices).  0, or ARB_EINVAL for an invalid id / short cap. */
int  arb_stream_token_encode(char *out, size_t cap, const char *match_id);
/* The match id of a token into out (cap >= ARB_STREAM_ID_MAX + 1
 * suffices).  ARB_EINVAL when the token is not one we make. */
int  arb_stream_token_decode(char *out, size_t cap, const char *token);

/* The subject of a match: kind ARB_STREAM_EV or ARB_STREAM_DEAL.
 * 0 or ARB_EINVAL. */
int  arb_stream_subject(char *out, size_t cap, int kind,
                        const char *match_id);
/* The kind of a subject (ARB_STREAM_EV / _DEAL), its match id into
 * id_out (cap id_cap).  ARB_EINVAL for any other subject. */
int  arb_stream_subject_parse(const char *subject, char *id_out,
                              size_t id_cap);

/* "<match>/<seq>", the Nats-Msg-Id of an event.  0 or ARB_EINVAL. */
int  arb_stream_msgid(char *out, size_t cap, const char *match_id,
                      uint64_t seq);

/* How to reach the stream: the [replicate] section of arbiterd.conf.
 * Strings are borrowed for the duration of the calls taking it. */
typedef struct arb_stream_conf {
    const char *urls;        /* "nats://h:p,nats://h2:p2" (required) */
    const char *stream;      /* NULL: ARB_STREAM_NAME_DEFAULT */
    const char *creds;       /* credentials file, or NULL */
    const char *client_name; /* connection name shown by the server; NULL ok */
    int64_t     timeout_ms;  /* connect and API requests; 0: 2000 */
    int         replicas;    /* stream replicas when creating it:
                                0 = 3, or 1 when the server is not
                                clustered */
} arb_stream_conf_t;

/* A connection and its JetStream context.  The fields are public so that
 * callers may use libnats directly; both are owned by the handle. */
typedef struct arb_stream {
    natsConnection *nc;
    jsCtx          *js;
    char            name[ARB_STREAM_NAME_MAX + 1];
    int64_t         timeout_ms;
    int32_t         max_msg_size;   /* the stream's, as arb_stream_ensure
                                       last read it (<= 0: no limit) */
} arb_stream_t;

/*
 * Options for a connection to conf: servers, credentials, name, timeout,
 * and reconnection forever (every 250 ms) including a first connect that
 * fails (the caller is told through its own callbacks, which it may add
 * to *out before arb_stream_open).  *out is the caller's:
 * natsOptions_Destroy().  0 or ARB_EINVAL (why names the key) / ARB_ENOMEM.
 */
int  arb_stream_opts(natsOptions **out, const arb_stream_conf_t *conf,
                     arb_buf_t *why);

/*
 * Connects with opts (NULL: made from conf, and no retry of a failed
 * first connect) and makes the JetStream context with jopts (NULL:
 * defaults; the API wait is conf's timeout).  opts is only read.
 * On success *out owns both; arb_stream_close().  With a retrying opts,
 * a server that is not up yet still gives 0 (libnats goes on trying).
 * ARB_EAGAIN: no server reachable; ARB_EIO other NATS failures.
 */
int  arb_stream_open(arb_stream_t **out, const arb_stream_conf_t *conf,
                     natsOptions *opts, jsOptions *jopts, arb_buf_t *why);
void arb_stream_close(arb_stream_t *st);     /* NULL-safe */

/*
 * Creates the stream when missing (subjects "arbiter.>", file storage,
 * replicas per conf), or checks the one there: it must take "arbiter.>"
 * and keep messages (limits retention, no max age / max msgs per subject
 * that would drop events).  Never deletes, purges or re-creates.
 * *replicas (may be NULL) gets the stream's replica count.
 * replicas_wanted < 0: never create (ARB_ENOTFOUND when missing) -- for a
 * recorder that has published before, whose stream vanishing is an
 * operator's matter: re-creating a name is what lost data in 2.9.10.
 * ARB_EINVAL when the existing stream does not fit (why says which
 * setting); ARB_EAGAIN when JetStream does not answer (no responders,
 * timeout: an election or an outage); ARB_EIO otherwise.
 */
int  arb_stream_ensure(arb_stream_t *st, int replicas_wanted, int *replicas,
                       arb_buf_t *why);

/* One event (or deal) message as read back from the stream. */
typedef struct arb_stream_msg {
    int           kind;                        /* ARB_STREAM_EV / _DEAL */
    char          match_id[ARB_STREAM_ID_MAX + 1];
    uint64_t      seq;                         /* Arbiter-Seq */
    unsigned char hash[ARB_HASH_LEN];          /* Arbiter-Hash */
    char          recorder[ARB_STREAM_NAME_MAX + 1]; /* "" when absent */
    uint64_t      stream_seq;                  /* position in the stream */
    int64_t       time_ns;                     /* stored by the server */
    uint64_t      consumer_seq;                /* the reader's count: 1
                                                  again after libnats made
                                                  its consumer anew */
    const void   *bytes;                       /* payload, inside msg */
    size_t        len;
    natsMsg      *msg;                         /* owned */
} arb_stream_msg_t;

/*
 * Parses a message read from the stream into out, which takes ownership
 * of msg (also on failure: it is destroyed).  Every header is checked:
 * subject and Arbiter-Match agree, the seq is decimal, the hash 64 hex
 * digits (deal messages carry no hash and seq 0).  ARB_EPROTO naming the
 * subject and the bad header, *out cleared (the stream sequence is the
 * caller's to name: arb_stream_reader_next adds it to why,
 * arb_stream_last puts it back in out->stream_seq).  Release with
 * arb_stream_msg_clear.
 */
int  arb_stream_msg_parse(arb_stream_msg_t *out, natsMsg *msg,
                          arb_buf_t *why);
void arb_stream_msg_clear(arb_stream_msg_t *m);   /* NULL-safe */

/*
 * The last message of a subject (js_GetLastMsg: answered by the leader,
 * so it is never stale as a direct get can be), parsed.  ARB_ENOTFOUND
 * when the subject holds nothing; ARB_EAGAIN no responders / timeout;
 * ARB_EPROTO a message we did not write (out->stream_seq says where, the
 * rest is cleared); ARB_EIO otherwise.
 */
int  arb_stream_last(arb_stream_t *st, const char *subject,
                     arb_stream_msg_t *out, arb_buf_t *why);
/* The last deal message of match_id, as arb_stream_last; st is an
 * arb_stream_t (the shape of proto/stream_mirror.h's arb_mirror_deal_fn,
 * for a reader that meets a dealt open without its deal). */
int  arb_stream_deal_last(void *st, const char *match_id,
                          arb_stream_msg_t *out);

/* How many messages the stream holds on one subject (stream info with a
 * subject filter): a cross-check of arb_stream_last, whose "not found" is
 * wrong in nats-server 2.9.10 once a subject's last message was deleted.
 * 0, ARB_EAGAIN, ARB_EIO. */
int  arb_stream_subject_count(arb_stream_t *st, const char *subject,
                              uint64_t *n, arb_buf_t *why);

/* Every subject matching filter (wildcards allowed) the stream holds
 * messages on, with their count, as the server lists them (stream info
 * with a subjects filter, page after page: nats-server 2.9.10 lists at
 * most 100,000 a reply; proto/stream_subjects.c); cb's non-zero return
 * stops and is returned.  A subject that is not plain ASCII or longer
 * than 511 bytes is not one of ours and is skipped.  0, ARB_EAGAIN,
 * ARB_ENOTFOUND (no such stream), ARB_EIO, ARB_EPROTO (a reply we
 * cannot read), ARB_EINVAL (a filter holding '"' or '\'). */
typedef int (*arb_stream_subject_cb)(void *ud, const char *subject,
                                     uint64_t msgs);
int  arb_stream_subjects(arb_stream_t *st, const char *filter,
                         arb_stream_subject_cb cb, void *ud, arb_buf_t *why);

/* One reply of that listing (len bytes of JSON, not NUL-terminated):
 * cb for each entry of its "subjects" map; *total gets the reply's
 * "total", *listed the entries on this page (skipped ones too).  0, cb's
 * stop, ARB_EPROTO (a map we cannot read), or arb_stream_err()'s code
 * for an error reply. */
int  arb_stream_subjects_page(const char *reply, size_t len,
                              arb_stream_subject_cb cb, void *ud,
                              uint64_t *total, uint64_t *listed,
                              arb_buf_t *why);

/*
 * Whether the stream is settled enough to believe an "empty" answer: a
 * leader is known and every online replica is current (not catching up;
 * an offline one is not waited for).
 * Right after an election the new leader can answer "not found" and count
 * nothing for subjects it has not applied yet.  0 (also on a single node);
 * ARB_EAGAIN naming the leaderless state or the lagging replica; ARB_EIO.
 */
int  arb_stream_settled(arb_stream_t *st, arb_buf_t *why);
/* The same; *lagging (not NULL) is set to 1 when a leader is known and a
 * replica catching up is the only doubt, else 0. */
int  arb_stream_settled_lag(arb_stream_t *st, int *lagging, arb_buf_t *why);

/*
 * A new event message: subject of match_id, the headers above
 * (Nats-Msg-Id "<match>/<seq>"), payload a copy of bytes.  The caller
 * owns *out (natsMsg_Destroy, or hand it to a publish that takes it).
 * 0, ARB_EINVAL (bad id), ARB_ENOMEM.
 */
int  arb_stream_ev_msg(natsMsg **out, const char *match_id, uint64_t seq,
                       const unsigned char hash[ARB_HASH_LEN],
                       const char *recorder, const void *bytes, size_t len);

/*
 * Deal secrets.  The replication key is a file of exactly 32 random bytes
 * that only its owner may read (mode 0600 or stricter); the secret is
 * sealed with crypto_secretbox_easy under it, a fresh 24-byte nonce in
 * front.  Nats-Msg-Id of a deal message: "<match>/deal".
 */
#define ARB_STREAM_KEY_LEN 32

/* 0, ARB_EIO (cannot read), ARB_EINVAL (size or mode; why names the file). */
int  arb_stream_key_load(unsigned char key[ARB_STREAM_KEY_LEN],
                         const char *path, arb_buf_t *why);
/* A new deal message of match_id carrying secret (a C string) sealed
 * under key.  The caller owns *out.  0, ARB_EINVAL, ARB_ENOMEM. */
int  arb_stream_deal_msg(natsMsg **out, const char *match_id,
                         const char *secret,
                         const unsigned char key[ARB_STREAM_KEY_LEN],
                         const char *recorder);
/* Opens a parsed deal message into out (NUL-terminated, replacing its
 * content).  ARB_ECRYPTO when it does not open under key (wrong key or
 * altered bytes); ARB_EPROTO when it is too short or not a deal. */
int  arb_stream_deal_open(arb_buf_t *out, const arb_stream_msg_t *m,
                          const unsigned char key[ARB_STREAM_KEY_LEN],
                          arb_buf_t *why);

/*
 * Maps a libnats result to an ARB_E* code and writes
 * "nats: <what>: <text> (JetStream error N)" to why (may be NULL).
 * No responders, "JetStream not enabled" (10076), "temporarily
 * unavailable" (10008, a stream without a leader), "cluster can not
 * handle request" (10009), timeouts and a lost connection give
 * ARB_EAGAIN (retry: an election or an outage); "no message found"
 * (10037) and "stream not found" (10059)
 * ARB_ENOTFOUND; everything else ARB_EIO.
 */
int  arb_stream_err(natsStatus s, jsErrCode jerr, const char *what,
                    arb_buf_t *why);

#endif
