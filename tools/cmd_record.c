/*
 * arbiter record - the scorekeeper's console for a live match.
 *
 * DESIGN: one loop over poll(): input lines (a person at a terminal, or a
 * script on stdin) and the match's subscription.  Each input line gives
 * exactly one result line on stdout ("ok seq 5", "refused §34.11.2: ...",
 * "error: ..."), so a script can pair them; other consoles' events are
 * printed only when following (always at a terminal, with --follow from a
 * script, where they start with "# " so they cannot be taken for a
 * result).  Diagnostics of the connection go to stderr in script mode.
 * The parts: record_line.c (input), record_link.c (the daemon, the local
 * replay, exactly-once sending), record_show.c (output); see record.h.
 *
 * Undo is a request, never a rewrite: with an arbiter's token it is a
 * `void` ruling of this console's last move, with a scorer's a note that
 * names the move, for an arbiter to rule on.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "core/board.h"
#include "core/err.h"
#include "core/move_text.h"
#include "core/narrate.h"
#include "core/text.h"
#include "core/transcript.h"
#include "core/view.h"
#include "proto/limits.h"
#include "tools/cli.h"
#include "tools/record.h"

#define RETRY_DEFAULT_S 30
#define WORDS_MAX       (ARB_ARGS_MAX + 2)  /* verb, player, arguments */

volatile sig_atomic_t rec_stop;

enum { LINE_DONE = 0, LINE_QUIT };

static void
usage(FILE *f)
{
    fprintf(f,
        "usage: arbiter record --match ID [--as PLAYER] [--follow]\n"
        "                      [--retry SECONDS] [connection options]\n\n"
        "The scorekeeper's console for a live match: type the cards as they\n"
        "are played; each is judged here against the rules before it is\n"
        "sent (a running dealt match's by the recorder, which alone keeps\n"
        "the deal), so an illegal move is refused with the rule and nothing\n"
        "is recorded.  At a terminal it shows whose turn it is and the\n"
        "active Sota, edits the line (arrows, ^A ^E ^U ^K ^W, history) and\n"
        "follows the other consoles' moves.  From a pipe it reads one\n"
        "command a line and prints one result line for each, without\n"
        "prompts.\n\n"
        "commands:\n"
        "  CARD [@N]              place a card (4♠, 4S or 4#1) for the\n"
        "                         player whose turn it is (or --as PLAYER)\n"
        "  PLAYER CARD [@N]       place it for that player\n"
        "  VERB PLAYER ARG...     any move, written out (place alice 4S)\n"
        "  undo [REASON]          undo this console's last move: an\n"
        "                         arbiter's token voids it; a scorer's\n"
        "                         records a request the arbiter rules on\n"
        "  note TEXT              record a note\n"
        "  state                  the position, results and totals, checked\n"
        "                         against the recorder's digest\n"
        "  help, quit             (end of input quits too)\n\n"
        "results (one line per command; blank and '#' lines give none):\n"
        "  ok seq N[; Sota K complete: 4♠→5♥→6♦ BC-001 Ladder 15+6 = 21 "
        "for alice]\n"
        "  refused RULE: MESSAGE  nothing was recorded\n"
        "  error: MESSAGE         the line was not understood\n\n"
        "options:\n"
        "  --match ID     the match\n"
        "  --as PLAYER    a bare card is this player's (default: the player\n"
        "                 whose turn it is)\n"
        "  --follow       print other consoles' events, as '# bob placed 5♥\n"
        "                 (seq 2)' (always on at a terminal)\n"
        "  --retry S      when the connection is lost, try to reconnect for\n"
        "                 S seconds (default %d); a move whose answer was\n"
        "                 lost is sent again with the same client event id,\n"
        "                 so it is recorded exactly once\n\n",
        RETRY_DEFAULT_S);
    cli_net_usage(f);
    fprintf(f, "\nExit status: 0, 1 when some line was refused or not "
               "understood ('refused'\nor 'error'), or the recorder "
               "refused the console at start (no such\nmatch), 2 when the "
               "console could not start otherwise (connection,\ntoken, a "
               "player not seated) or lost the recorder for good.\n");
}

/* The moves as this match's game takes them: YAHchain's bare cards,
 * Chains' bare card and cell, or every move written out, its game's
 * verbs named (from a pipe too: until 2026-12-06 that line named none,
 * so nothing there told of a verb such as Tsukurutenten's `pass`). */
static void
help(rec_t *r)
{
    const char *const *v = rec_rules(r)->verbs;
    arb_buf_t   b = ARB_BUF_INIT;
    int         bare = arb_narrate_bare_verb(rec_rules(r)) != NULL;
    int         chains = strcmp(rec_setup(r)->game, "chains") == 0;

    if (!r->interactive && (chains || bare)) {
        rec_print(r, chains ? "commands: CARD CELL | PLAYER CARD CELL | VERB "
                  "PLAYER ARG... | undo [REASON] | note TEXT | state | "
                  "help | quit"
                  : "commands: CARD [@N] | PLAYER CARD [@N] | VERB "
                  "PLAYER ARG... | undo [REASON] | note TEXT | state | "
                  "help | quit");
        return;
    }
    if (!r->interactive) {
        arb_buf_puts(&b, "commands: VERB PLAYER ARG... (VERB:");
        for (; v != NULL && *v != NULL; v++)
            arb_buf_printf(&b, " %s", *v);
        arb_buf_puts(&b, ") | undo [REASON] | note TEXT | state | help | "
                     "quit");
        rec_print(r, b.oom ? "commands: out of memory" : arb_buf_cstr(&b));
        arb_buf_free(&b);
        return;
    }
    if (chains)
        rec_print(r,
            "Type a card and its cell to place it from the hand on turn\n"
            "(8♠ r0c0, 8S r0c0; the cell counted from the first card), or\n"
            "say who places it: 'ann 8S r0c0' or 'place ann 8S r0c0'; a\n"
            "pass is written out: 'pass ann'.  Every move is checked here\n"
            "first.");
    else if (bare)
        rec_print(r,
            "Type a card to place it for the player whose turn it is (4♠,\n"
            "4S or 4#1; add @N to name the Sota), or say who places it:\n"
            "'alice 4S' or 'place alice 4S'.  Every move is checked here\n"
            "first.");
    else {
        arb_buf_printf(&b, "Type each move written out: VERB PLAYER ARG...\n"
                       "(%s's verbs:", rec_setup(r)->game);
        for (; v != NULL && *v != NULL; v++)
            arb_buf_printf(&b, "%s %s", v == rec_rules(r)->verbs ? "" : ",",
                           *v);
        arb_buf_printf(&b, "; docs/rules/%s.md).  Every move is checked "
                       "first.", rec_setup(r)->game);
        rec_print(r, b.oom ? "out of memory" : arb_buf_cstr(&b));
        arb_buf_free(&b);
    }
    rec_print(r,
        "  undo [REASON]  undo this console's last move (an arbiter's token\n"
        "                 voids it; a scorer's asks the arbiter to)\n"
        "  note TEXT      record a note\n"
        "  state          the position, the results, the totals\n"
        "  help, quit     (^D quits too)\n"
        "Keys: arrows, ^A ^E ^B ^F move; ^U ^K ^W delete; up/down history;\n"
        "^C drops the line.");
}

static void
on_signal(int sig)
{
    (void)sig;
    rec_stop = 1;
}

/* "<identity>-<8 hex digits>-": unique per console session, so the cids
 * of two consoles (even with one token) never meet. */
static void
make_cid_prefix(rec_t *r)
{
    unsigned char b[4];
    unsigned      x;

    if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b)) {
        x = (unsigned)time(NULL) ^ ((unsigned)getpid() << 16);
        memcpy(b, &x, sizeof(b));
    }
    snprintf(r->cid_prefix, sizeof(r->cid_prefix), "%s-%02x%02x%02x%02x-",
             r->identity[0] ? r->identity : "console", b[0], b[1], b[2],
             b[3]);
}

/* The text after the first word of a line, without leading blanks. */
static const char *
rest_of(const char *line)
{
    while (*line == ' ' || *line == '\t')
        line++;
    while (*line != '\0' && *line != ' ' && *line != '\t')
        line++;
    while (*line == ' ' || *line == '\t')
        line++;
    return line;
}

static int
seated(const rec_t *r, const char *name)
{
    return arb_setup_seat(rec_setup(r), name) >= 0;
}

/* Prints the result line of an input line; bad marks the exit status. */
static void
result(rec_t *r, int bad, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
result(rec_t *r, int bad, const char *fmt, ...)
{
    char    msg[2048];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (bad)
        r->status = CLI_DIFFERS;
    rec_print(r, msg);
}

static int
remember(rec_t *r, uint64_t seq, const arb_event_t *ev)
{
    arb_buf_t   line = ARB_BUF_INIT, pub = ARB_BUF_INIT;
    rec_mine_t *nm;

    if (r->nmine == r->capmine) {
        size_t cap = r->capmine ? r->capmine * 2 : 32;
        nm = realloc(r->mine, cap * sizeof(*nm));
        if (nm == NULL)
            return ARB_ENOMEM;
        r->mine = nm;
        r->capmine = cap;
    }
    arb_transcript_event_line(&line, ev);
    if (arb_view_public_line(&pub, ev, rec_setup(r)) != 0
        || arb_buf_cstr(&line) == NULL || arb_buf_cstr(&pub) == NULL) {
        arb_buf_free(&line);
        arb_buf_free(&pub);
        return ARB_ENOMEM;
    }
    r->mine[r->nmine].seq = seq;
    r->mine[r->nmine].line = line.data;
    r->mine[r->nmine].pub = pub.data;
    r->nmine++;
    return 0;
}

/* Sends ev and prints its one result line; after_ok follows "ok seq N".
 * The seq it was recorded at, or 0 when it was not (or is not known). */
static uint64_t
submit(rec_t *r, arb_event_t *ev, const char *after_ok)
{
    rec_ack_t ack;
    int       rc;

    if (strcmp(r->role, "reader") == 0) {
        result(r, 1, "refused forbidden: %s is a reader: this console "
               "follows the match but cannot record", r->identity);
        return 0;
    }
    rc = rec_submit(r, ev, &ack);
    if (rc == CLI_DIFFERS) {
        result(r, 1, "refused %s", ack.msg);
        return 0;
    }
    if (rc != 0) {
        result(r, 1, "error: %s", ack.msg);
        if (!r->fatal)
            r->fatal = CLI_ERROR;
        return 0;
    }
    if (ev->kind == ARB_EV_MOVE && remember(r, ack.seq, ev) != 0) {
        result(r, 1, "error: out of memory");
        return ack.seq;
    }
    result(r, 0, "ok seq %" PRIu64 "%s%s", ack.seq,
           after_ok != NULL ? after_ok : "", arb_buf_cstr(&r->effect)
           ? arb_buf_cstr(&r->effect) : "");
    return ack.seq;
}

/* The event of a move's words: read against the local replay, or, for a
 * running dealt match (sealed), the setup and the recorder's `turn`. */
static int
move_from_words(rec_t *r, char **w, size_t n, arb_event_t *ev,
                arb_buf_t *why)
{
    json_t *d;
    int     rc;

    if (!r->sealed)
        return arb_move_from_words(r->m, r->as, w, n, ev, why);
    d = rec_describe(r);
    rc = arb_move_from_words_at(rec_rules(r), rec_setup(r),
                                json_string_value(json_object_get(d,
                                                                  "turn")),
                                r->as, w, n, ev, why);
    json_decref(d);
    return rc;
}

/* A move from its words: "VERB PLAYER ARG...", or, where the rule set
 * allows bare moves ("4S [@2]", "alice 4S" in YAHchain), its arguments
 * with or without the player (core/move_text.h). */
static void
do_move(rec_t *r, char **w, size_t n)
{
    arb_event_t ev;
    arb_buf_t   why = ARB_BUF_INIT;

    memset(&ev, 0, sizeof(ev));
    if (move_from_words(r, w, n, &ev, &why) != 0)
        result(r, 1, "error: %s", arb_buf_cstr(&why) ? arb_buf_cstr(&why)
               : "out of memory");
    else
        submit(r, &ev, NULL);
    arb_event_clear(&ev);
    arb_buf_free(&why);
}

static void
do_note(rec_t *r, const char *text)
{
    arb_event_t ev;

    memset(&ev, 0, sizeof(ev));
    if (*text == '\0') {
        result(r, 1, "error: note TEXT: the note is empty");
        return;
    }
    ev.kind = ARB_EV_NOTE;
    ev.text = strdup(text);
    if (ev.text == NULL)
        result(r, 1, "error: out of memory");
    else
        submit(r, &ev, NULL);
    arb_event_clear(&ev);
}

/* undo [REASON]: this console's last move that still stands. */
/* 1 when an undo request of seq stands unanswered in m. */
static int
undo_pending(const arb_match_t *m, uint64_t seq)
{
    const uint64_t *u;
    size_t          i, n = arb_match_undo_requests(m, &u);

    for (i = 0; i < n; i++)
        if (u[i] == seq)
            return 1;
    return 0;
}

static void
do_undo(rec_t *r, const char *reason)
{
    const rec_mine_t *t = NULL;
    arb_event_t       ev;
    arb_buf_t         text = ARB_BUF_INIT, after = ARB_BUF_INIT;
    size_t            i;

    memset(&ev, 0, sizeof(ev));
    for (i = r->nmine; i > 0 && t == NULL; i--)
        if (!rec_ruled(r, r->mine[i - 1].seq))
            t = &r->mine[i - 1];
    if (t == NULL) {
        result(r, 1, "error: nothing to undo: this console has recorded no "
               "move that still stands");
        return;
    }
    if (strcmp(r->role, "arbiter") == 0) {
        ev.kind = ARB_EV_VOID;
        ev.target = t->seq;
        if (*reason != '\0')
            arb_buf_puts(&text, reason);
        else
            arb_buf_printf(&text, "undo at the console of %s", r->identity);
        arb_buf_printf(&after, "; seq %" PRIu64 " (%s) is void", t->seq,
                       t->line);
    } else {
        /* A request an arbiter declined since (a note `undo declined:
         * seq N`) is answered: the move stands, and may be asked about
         * again (until 2026-12-06 "already requested" for good). */
        if (r->undo_target == t->seq && r->m != NULL
            && !undo_pending(r->m, t->seq))
            r->undo_target = 0;
        if (r->undo_target == t->seq) {
            result(r, 1, "error: the undo of seq %" PRIu64 " was already "
                   "requested (seq %" PRIu64 "); an arbiter rules on it: "
                   "arbiter rule --match %s void %" PRIu64 " --reason ...",
                   t->seq, r->undo_note, r->match, t->seq);
            return;
        }
        ev.kind = ARB_EV_NOTE;
        arb_undo_note(&text, t->seq, t->pub);
        if (*reason != '\0')
            arb_buf_printf(&text, ": %s", reason);
        arb_buf_printf(&after, "; undo of seq %" PRIu64 " (%s) requested: "
                       "only an arbiter can void it (arbiter rule --match "
                       "%s void %" PRIu64 " --reason ...)", t->seq, t->line,
                       r->match, t->seq);
    }
    if (arb_buf_cstr(&text) == NULL || arb_buf_cstr(&after) == NULL
        || (ev.text = strdup(text.data)) == NULL) {
        result(r, 1, "error: out of memory");
        goto done;
    }
    {
        /* Requested when the note is recorded, at its own seq: until
         * 2026-12-08 any rise of the known seq counted, and a request
         * refused after a resync that read another console's event was
         * taken as made (in a running dealt match, "already requested"
         * for good).  A decline read before the answer (by the resync
         * of a busy log) answers it: until 2026-12-08 it was missed,
         * and every later undo said "already requested". */
        uint64_t target = t->seq, seq;
        uint64_t was_target = r->undo_target, was_note = r->undo_note;

        if (ev.kind == ARB_EV_NOTE) {
            r->undo_target = target;
            r->undo_note = REC_UNDO_SENT;
            r->undo_declined_at = 0;
        }
        seq = submit(r, &ev, after.data);
        if (ev.kind == ARB_EV_NOTE) {
            r->undo_target = seq == 0 ? was_target
                           : r->undo_declined_at > seq ? 0 : target;
            r->undo_note = seq == 0 ? was_note : seq;
        }
    }
done:
    arb_event_clear(&ev);
    arb_buf_free(&text);
    arb_buf_free(&after);
}

static void
do_state(rec_t *r)
{
    arb_buf_t out = ARB_BUF_INIT;
    int       same = 0;

    if (rec_link_verify(r, &same) != 0) {
        result(r, 1, "error: the recorder did not answer; try again");
        return;
    }
    if (!same) {
        result(r, 1, "error: this console's replay differs from the "
               "recorder's state (digest): report it");
        return;
    }
    rec_show_state(r, &out);
    rec_print(r, arb_buf_cstr(&out) ? arb_buf_cstr(&out) : "");
    arb_buf_free(&out);
}

/* 1, said, when the free text after line's first word (a note's, an
 * undo's reason) holds a tab: a blank between words elsewhere, but the
 * text is recorded as typed and keeps no control character, and the
 * recorder refused it naming a byte of the text, not the line's column. */
static int
text_tab(rec_t *r, const char *line, const char *what)
{
    const char *text = rest_of(line), *tab = strchr(text, '\t');

    if (tab == NULL)
        return 0;
    result(r, 1, "error: a tab in column %zu, inside %s's text (which is "
           "recorded as typed: use spaces): nothing of the line was sent",
           (size_t)(tab - line) + 1, what);
    return 1;
}

/* One input line: LINE_DONE or LINE_QUIT. */
static int
handle(rec_t *r, const char *line)
{
    char   buf[REC_LINE_MAX + 1];
    char  *w[WORDS_MAX + 1];
    size_t n, from, at;
    int    ch;

    snprintf(buf, sizeof(buf), "%s", line);
    /* Not UTF-8: refused here, saying where (the recorder refused it
     * later, naming neither line nor column). */
    if (arb_text_utf8_len(buf, strlen(buf)) < strlen(buf)) {
        result(r, 1, "error: the line is not UTF-8 (column %zu): nothing "
               "of it was sent", arb_text_utf8_len(buf, strlen(buf)) + 1);
        return LINE_DONE;
    }
    /* A control character but a tab (a blank between words): refused
     * here, saying where (the recorder refused a note holding one, naming
     * a byte of the note's text, not the line's column). */
    for (from = 0; (ch = arb_text_control(buf + from, strlen(buf + from),
                                          &at)) == '\t';)
        from += at + 1;
    if (ch >= 0) {
        result(r, 1, "error: a control character (U+%04X) in column %zu: "
               "nothing of the line was sent", (unsigned)ch, from + at + 1);
        return LINE_DONE;
    }
    n = arb_move_words(buf, w, WORDS_MAX + 1);
    if (n == 0 || w[0][0] == '#')
        return LINE_DONE;
    if (n > WORDS_MAX) {
        result(r, 1, "error: too many words (at most %d)",
               WORDS_MAX);
        return LINE_DONE;
    }
    if (n == 1 && (strcmp(w[0], "quit") == 0 || strcmp(w[0], "exit") == 0))
        return LINE_QUIT;
    if (n == 1 && (strcmp(w[0], "help") == 0 || strcmp(w[0], "?") == 0))
        help(r);
    else if (n == 1 && strcmp(w[0], "state") == 0)
        do_state(r);
    else if (strcmp(w[0], "undo") == 0 && !seated(r, "undo")) {
        if (!text_tab(r, line, "the reason"))
            do_undo(r, rest_of(line));
    } else if (strcmp(w[0], "note") == 0 && !seated(r, "note")) {
        if (!text_tab(r, line, "the note"))
            do_note(r, rest_of(line));
    } else
        do_move(r, w, n);
    return LINE_DONE;
}

static void
banner(rec_t *r)
{
    arb_buf_t out = ARB_BUF_INIT;

    arb_buf_printf(&out, "arbiter record: match %s, you are %s (%s)%s%s; "
                   "type help for the commands", r->match, r->identity,
                   r->role, r->as ? ", placing for " : "",
                   r->as ? r->as : "");
    rec_print(r, arb_buf_cstr(&out) ? out.data : "");
    out.len = 0;
    rec_show_state(r, &out);
    rec_print(r, arb_buf_cstr(&out) ? out.data : "");
    arb_buf_free(&out);
}

/* The console's loop: input lines and the subscription.  The status. */
static int
run(rec_t *r)
{
    struct pollfd fds[2];
    const char   *text;
    char          prompt[256];
    int           rc, nfds;

    for (;;) {
        if (rec_stop)
            return r->status;
        if (r->fatal)
            return r->fatal;
        if (r->lost && rec_link_reconnect(r) != 0)
            return r->fatal ? r->fatal : CLI_ERROR;
        if (r->interactive) {
            rec_show_prompt(r, prompt, sizeof(prompt));
            rec_line_set_prompt(&r->line, prompt);
        }
        rc = rec_line_next(&r->line, &text);
        if (rc < 0)
            return r->status;
        if (rc == 2) {
            result(r, 1, "error: " CLI_LINE_NUL);
            continue;
        }
        if (rc == 3) {
            result(r, 1, "error: the line is longer than %d bytes: nothing "
                   "of it was sent", REC_LINE_MAX);
            continue;
        }
        if (rc == 1) {
            /* Other consoles' news first: judge on the latest state. */
            rec_link_pump(r);
            if (handle(r, text) == LINE_QUIT)
                return r->status;
            continue;
        }
        fds[0].fd = r->line.fd;
        fds[0].events = POLLIN;
        fds[0].revents = 0;
        nfds = 1;
        if (rec_link_fd(r) >= 0) {
            fds[1].fd = rec_link_fd(r);
            fds[1].events = POLLIN;
            fds[1].revents = 0;
            nfds = 2;
        }
        if (poll(fds, (nfds_t)nfds, -1) < 0) {
            if (errno == EINTR)
                continue;
            return CLI_ERROR;
        }
        if (nfds == 2 && fds[1].revents != 0)
            rec_link_pump(r);
        if (fds[0].revents != 0)
            rec_line_fill(&r->line);
    }
}

int
cmd_record(int argc, char **argv)
{
    rec_t             r;
    struct sigaction  sa;
    const char       *retry = NULL;
    uint64_t          secs = RETRY_DEFAULT_S;
    size_t            i;
    int               status;
    const cli_optdef_t opts[] = {
        { "--follow", CLI_ARG_FLAG, &r.follow },
        { "--match", CLI_ARG_STR, &r.match },
        { "--as", CLI_ARG_STR, &r.as },
        { "--retry", CLI_ARG_STR, &retry },
        { NULL, 0, NULL }
    };
    cli_args_t ar = {
        .cmd = "record",
        .usage = usage,
        .opts = opts,
        .net = &r.net,
        .no_words = 1,
    };

    memset(&r, 0, sizeof(r));
    cli_net_init(&r.net, "record");
    status = cli_args_parse(&ar, argc, argv);
    if (status >= 0)
        return status;
    status = CLI_ERROR;
    if (r.match == NULL) {
        fprintf(stderr, "arbiter record: --match is required\n");
        usage(stderr);
        return CLI_ERROR;
    }
    if (retry != NULL && cli_parse_u64("record", "--retry", retry,
                                       &secs) != 0)
        return CLI_ERROR;
    if (secs > 86400)
        secs = 86400;
    r.retry_ms = (unsigned)secs * 1000;
    r.addr = r.net.server;
    if (r.addr == NULL)
        r.addr = getenv("ARBITER_SERVER");
    if (r.addr == NULL || *r.addr == '\0')
        r.addr = CLI_SERVER_DEFAULT;
    /* Test hook (tests/integration/record.sh): lose the answer to the Nth
     * append (to each of a list "N,M"), as when the daemon dies between
     * its commit and its ack. */
    r.drop_ack = getenv("ARBITER_RECORD_DROP_ACK");
    r.interactive = isatty(0) && isatty(1);
    if (r.interactive)
        r.follow = 1;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;      /* no SA_RESTART: poll must return */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);

    /* Before the first resync, so that even the catch-up is not taken for
     * other consoles' news. */
    r.known = UINT64_MAX;
    status = rec_link_open(&r);
    if (status != 0)
        goto done;
    make_cid_prefix(&r);
    if (r.as != NULL && !seated(&r, r.as)) {
        fprintf(stderr, "arbiter record: --as %s: not a player of match "
                "%s\n", r.as, r.match);
        status = CLI_ERROR;
        goto done;
    }
    if (rec_line_open(&r.line, 0, r.interactive) != 0) {
        fprintf(stderr, "arbiter record: cannot set up the terminal\n");
        status = CLI_ERROR;
        goto done;
    }
    if (r.interactive)
        banner(&r);
    status = run(&r);
    rec_line_close(&r.line);
done:
    rec_link_close(&r);
    for (i = 0; i < r.nmine; i++) {
        free(r.mine[i].line);
        free(r.mine[i].pub);
    }
    free(r.mine);
    arb_buf_free(&r.before);
    arb_buf_free(&r.effect);
    return status;
}
