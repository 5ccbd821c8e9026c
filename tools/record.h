/*
 * record.h - the parts of `arbiter record`, the scorekeeper's console for a
 * live match (tools/cmd_record.c):
 *   record_json.c  reading the JSON a rule set's describe() writes;
 *   record_line.c  the input side: a small line editor on a terminal,
 *                  plain lines from a pipe;
 *   record_link.c  the daemon side: two connections, the local replay of
 *                  the match, judging, sending, reconnecting, following;
 *   record_show.c  what is printed: moves, completed Sotas, the state;
 *   record_view.c  the match as shown: the local replay, or the
 *                  recorder's report of a running dealt match.
 *
 * DESIGN: the console keeps its own arb_match_t replayed from the match's
 * events and judges every candidate event on it before anything is sent
 * (apply is atomic, so a refusal leaves it untouched).  A judged event is
 * applied locally "on trust" and sent with `expect` = the last seq the
 * console knows, so the daemon judges it against the very state the console
 * judged; whenever the daemon's answer differs from the local view (another
 * console moved first, a refusal, a lost connection) the console throws
 * its replay away and rebuilds it from the log.  Rebuilding is cheap (a
 * match is a few hundred events) and it keeps one rule: the local match is
 * always a prefix of the log plus at most one event in flight.  A running
 * dealt match, which no client can replay, is the exception: the
 * recorder judges and the console shows its report (record_view.c).
 */
#ifndef ARB_TOOLS_RECORD_H
#define ARB_TOOLS_RECORD_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/claim.h"
#include "core/event.h"
#include "core/jsonin.h"
#include "core/match.h"
#include "proto/frame.h"
#include "tools/net.h"

/* ---- record_line.c ---------------------------------------------------- */

#define REC_LINE_MAX  4096      /* a transcript line's limit too */
#define REC_HIST_MAX  200

typedef struct rec_line {
    int     fd;
    int     edit;               /* a terminal: libedit edits the line */
    int     eof;                /* the input has ended */
    int     active;             /* edit: libedit has the terminal (raw) */
    int     ready;              /* edit: out holds a line not yet taken */
    int     skipping;           /* dropping the rest of an over-long line */
    int     too_long;           /* edit: the line ready is over-long */
    int     veof;               /* the terminal's end-of-input key */
    struct editline *el;        /* edit: libedit's editor and history */
    struct history  *hist;
    char    prompt[256];
    char    in[8192];           /* plain: bytes read, not yet consumed */
    size_t  inlen;
    char    out[REC_LINE_MAX + 1];  /* the line last returned */
} rec_line_t;

/* Reads lines from fd; with edit (fd and stdout are terminals) libedit
 * edits them (history, emacs keys).  0, or ARB_EIO. */
int  rec_line_open(rec_line_t *l, int fd, int edit);
/* Restores the terminal; safe to call twice. */
void rec_line_close(rec_line_t *l);
/* Sets the prompt (edit mode), drawn again at once when it changed. */
void rec_line_set_prompt(rec_line_t *l, const char *prompt);
/* Reads what fd has (call when poll says it is readable): a plain read, or
 * one key for the editor; the end of the input or a read error marks it
 * ended. */
void rec_line_fill(rec_line_t *l);
/* The next complete line from what was read: 1 with *line set (valid until
 * the next call), 0 when more input is needed, -1 when the input has ended
 * (^D on an empty line at a terminal), 2 for a line holding a NUL byte
 * (*line is its text up to the NUL: refuse it), 3 for a line longer
 * than REC_LINE_MAX bytes (*line its head: refuse it, the rest is
 * dropped). */
int  rec_line_next(rec_line_t *l, const char **line);
/* Prints one line of output (text without '\n'), above the prompt in edit
 * mode, and flushes. */
void rec_line_print(rec_line_t *l, const char *text);

/* ---- record_link.c ---------------------------------------------------- */

/* Set by SIGINT, SIGTERM, SIGHUP (tools/cmd_record.c): leave at once. */
extern volatile sig_atomic_t rec_stop;

/* One move this console recorded, for undo. */
typedef struct rec_mine {
    uint64_t seq;
    char    *line;              /* "place alice 4♠" */
    char    *pub;               /* the line as a spectator reads it (a
                                   drawn chip withheld): all an undo
                                   request's note may quote */
} rec_mine_t;

typedef struct rec {
    /* options */
    const char    *match;
    const char    *as;          /* --as PLAYER, or NULL */
    const char    *addr;        /* resolved server address */
    int            follow;      /* print other consoles' events */
    int            interactive;
    unsigned       retry_ms;    /* how long to try to reconnect */
    const char    *drop_ack;    /* test hook: lose the answers to the
                                   appends numbered in this list, "N" or
                                   "N,M,..." ($ARBITER_RECORD_DROP_ACK) */
    char           token[512];  /* resolved once, for reconnecting */

    /* connection A: requests and their answers */
    cli_net_t      net;
    /* connection B: the subscription; read here, frame by frame */
    arb_client_t  *sub;
    arb_frame_reader_t rd;
    int            rd_init;
    char           rbuf[65536];
    int            lost;        /* a connection broke: reconnect first */
    int            fatal;       /* cannot go on: the exit status (1, 2) */

    char           identity[72];
    char           role[16];
    char           cid_prefix[100];
    unsigned long  ncid, nappends;

    arb_match_t   *m;           /* the local replay (NULL when sealed) */
    /* A running dealt match read without its deal (record_view.c): no
     * local replay; the recorder judges, and what is shown is its
     * report. */
    int            sealed;
    arb_event_t    open;        /* sealed: its open (setup, rules) */
    json_t        *view;        /* sealed: the recorder's report */
    arb_claim_t    vres;        /* sealed: its records (with seqs), totals */
    uint64_t      *ruled;       /* sealed: seqs a void or amend targets */
    size_t         nruled, capruled;
    uint64_t       known;       /* the last seq known to be in the log;
                                   UINT64_MAX until the first resync, so
                                   history is not printed as news */
    /* the cid of the event being sent, and where a resync found it */
    const char    *pending_cid;
    uint64_t       pending_seq;

    rec_mine_t    *mine;
    size_t         nmine, capmine;
    /* The last undo requested: the move and the request's seq
     * (REC_UNDO_SENT while its answer is awaited); and while it is, the
     * seq of a decline of that move read meanwhile (a resync reads the
     * log past the request). */
    uint64_t       undo_target, undo_note, undo_declined_at;

    /* what the match looked like before the event being judged, and what
     * that event did ("; Sota 1 complete: ...") */
    arb_buf_t      before;      /* describe() JSON */
    size_t         before_nrec;
    int            before_over;
    arb_buf_t      effect;

    rec_line_t     line;
    int            status;      /* 1 once an input line failed */
} rec_t;

/* Connects both connections, authenticates, replays the match from its
 * events and subscribes.  0, or the exit status (messages printed). */
int  rec_link_open(rec_t *r);
void rec_link_close(rec_t *r);
/* The subscription's fd, or -1 while disconnected. */
int  rec_link_fd(const rec_t *r);
/* Reads and handles what the subscription has: other consoles' events are
 * applied to the local match (and printed when following).  A broken
 * connection sets r->lost. */
void rec_link_pump(rec_t *r);
/* Reconnects after r->lost, retrying for r->retry_ms, then resyncs.  0, or
 * -1 when it gave up (printed). */
int  rec_link_reconnect(rec_t *r);
/* Rebuilds the local match from the log, printing other consoles' events
 * it had not seen when following.  0, or -1: the connection broke
 * (r->lost), or the console cannot go on (r->fatal, printed: no such
 * match, a log this engine does not replay). */
int  rec_link_resync(rec_t *r);
/* Asks the daemon for its state and compares its seq and digest with the
 * local replay's, reading the log again once if they differ.  0 with *same
 * set, or -1 (connection lost or refused). */
int  rec_link_verify(rec_t *r, int *same);

/* The outcome of submitting one event. */
typedef struct rec_ack {
    uint64_t seq;
    int      dup;               /* the daemon had it already (a resend) */
    char     msg[480];          /* why it was refused, "<rule>: <text>" */
} rec_ack_t;

/* Judges ev on the local match and, when legal, appends it with a fresh
 * cid (ev->client_id, owned by ev); after a conflict it resyncs and judges
 * again, after a lost connection it reconnects and resends with the same
 * cid.  0 recorded (ack->seq; r->effect says what it did), 1 refused
 * (ack->msg; nothing recorded), 2 gave up (the connection could not be
 * restored, or the console cannot go on; ack->msg says so). */
int  rec_submit(rec_t *r, arb_event_t *ev, rec_ack_t *ack);

/* ---- record_view.c ---------------------------------------------------- */

/* The match as the console knows it: its local replay, or, sealed, the
 * open and the recorder's report. */
const arb_rules_t *rec_rules(const rec_t *r);
const arb_setup_t *rec_setup(const rec_t *r);
/* describe()'s JSON (a new reference, or NULL). */
json_t *rec_describe(const rec_t *r);
/* The records and totals: *out points at tmp (the local replay's, which
 * the caller clears) or at the report's.  0 or ARB_ENOMEM (tmp zeroed). */
int  rec_results(const rec_t *r, arb_results_t *tmp,
                 const arb_results_t **out);
int  rec_finished(const rec_t *r);
int  rec_closed(const rec_t *r);
/* The digest as hex into out[ARB_HASH_HEX]. */
void rec_digest(const rec_t *r, char *out);
/* Sealed: reads the recorder's report after event `at` into r->view and
 * r->vres.  0, or -1 (the connection broke: r->lost; or printed, the
 * console cannot go on: r->fatal). */
int  rec_view_load(rec_t *r, uint64_t at);
/* Sealed: notes a ruling's target (a void or amend seen in the log), and
 * a note declining this console's undo request (its undo_target). */
int  rec_view_note(rec_t *r, const arb_event_t *ev);
#define REC_UNDO_SENT UINT64_MAX
/* 1 when a ruling of the log targets seq (sealed), or the local replay
 * says it is ruled on. */
int  rec_ruled(const rec_t *r, uint64_t seq);
/* Frees what sealed mode holds and leaves it. */
void rec_view_clear(rec_t *r);

/* ---- record_show.c ---------------------------------------------------- */

/* Remembers the match's position before an event is applied. */
void rec_show_snapshot(rec_t *r);
/* Appends what ev, just applied after rec_show_snapshot(), did: for a
 * yahchain move "; Sota 1 complete: 4♠→5♥→6♦ BC-001 Ladder 15+6 = 21 for
 * alice", a void Sota, the end of the match. */
void rec_show_effect(rec_t *r, arb_buf_t *out, const arb_event_t *ev);
/* "bob placed 5♥ (seq 2)" and the like, for another console's event. */
void rec_show_event(rec_t *r, arb_buf_t *out, const arb_event_t *ev);
/* The prompt: "R1-T7 seq 4 | Sota 2 [5♥] | alice> ". */
void rec_show_prompt(rec_t *r, char *out, size_t len);
/* The state: one line in script mode, a few on a terminal. */
void rec_show_state(rec_t *r, arb_buf_t *out);
/* Prints a line of output (several with embedded '\n'). */
void rec_print(rec_t *r, const char *text);

#endif
