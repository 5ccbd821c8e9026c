/*
 * record_line.c - the input side of `arbiter record`.
 *
 * DESIGN: at a terminal the line is edited by libedit (emacs keys,
 * history on the arrows, ~/.editrc), driven one key at a time from the
 * console's poll loop (EL_UNBUFFERED), because the console prints other
 * consoles' moves while the scorekeeper may be half-way through typing
 * one: a line printed above the prompt clears the prompt's row, prints,
 * and has libedit draw the prompt and the half-typed line again
 * (EL_REFRESH), so the two never mix on screen.  Signals stay ours: ISIG
 * is off while editing, so ^C is a key (it drops the line) and the
 * console's own SIGINT handling is not disturbed; libedit restores the
 * terminal on every exit path (rec_line_close, atexit).
 * From a pipe or a file the input is read as plain lines, with no echo,
 * prompt or escape sequence: one line in, one result line out.
 */
#include <errno.h>
#include <histedit.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <wchar.h>

#include "core/err.h"
#include "tools/cli.h"
#include "tools/record.h"

/* ---- plain lines ------------------------------------------------------ */

static void
fill_plain(rec_line_t *l)
{
    ssize_t r;

    if (l->eof || l->inlen == sizeof(l->in))
        return;
    do
        r = read(l->fd, l->in + l->inlen, sizeof(l->in) - l->inlen);
    while (r < 0 && errno == EINTR);
    if (r <= 0) {
        l->eof = 1;
        return;
    }
    l->inlen += (size_t)r;
}

static void
consume(rec_line_t *l, size_t n)
{
    memmove(l->in, l->in + n, l->inlen - n);
    l->inlen -= n;
}

/* ---- plain lines ------------------------------------------------------ */

static int
next_plain(rec_line_t *l, const char **line)
{
    char  *nl;
    size_t n, take;
    int    too_long;

    for (;;) {
        nl = memchr(l->in, '\n', l->inlen);
        if (nl == NULL && !l->eof && l->inlen < sizeof(l->in))
            return 0;
        if (nl == NULL && l->inlen == 0)
            return -1;          /* ended, nothing left */
        n = nl != NULL ? (size_t)(nl - l->in) : l->inlen;
        if (l->skipping) {
            /* The tail of an over-long line already returned. */
            consume(l, nl != NULL ? n + 1 : n);
            if (nl != NULL)
                l->skipping = 0;
            continue;
        }
        /* Over-long (its CR aside): refused whole, never its head sent
         * (until 2026-12-06 the head was recorded, and answered "ok"). */
        too_long = (nl == NULL && !l->eof)
                   || n - (n > 0 && l->in[n - 1] == '\r') > REC_LINE_MAX;
        take = n < REC_LINE_MAX ? n : REC_LINE_MAX;
        memcpy(l->out, l->in, take);
        if (take > 0 && l->out[take - 1] == '\r')
            take--;
        l->out[take] = '\0';
        consume(l, nl != NULL ? n + 1 : n);
        if (nl == NULL && !l->eof)
            l->skipping = 1;    /* the buffer filled up without a newline */
        *line = l->out;
        if (too_long)
            return 3;
        /* A NUL would cut the line short unseen: say so instead. */
        return cli_line_has_nul(l->out, take) ? 2 : 1;
    }
}

/* ---- the editor (libedit) ---------------------------------------------- */

/* One terminal per process: kept here so atexit and the prompt callback
 * reach it. */
static rec_line_t *editing;

static char *
prompt_cb(EditLine *el)
{
    (void)el;
    return editing != NULL ? editing->prompt : "";
}

/* Enter: the finished line is drawn once more, whole, before the newline,
 * so that a terminal's log (and the screen) shows the line as it was sent,
 * not the keys that made it. */
static unsigned char
enter_cb(EditLine *el, int ch)
{
    const LineInfo *li = el_line(el);
    size_t          n = (size_t)(li->lastchar - li->buffer);

    (void)ch;
    editing->too_long = n > REC_LINE_MAX;
    if (n > REC_LINE_MAX)
        n = REC_LINE_MAX;
    memcpy(editing->out, li->buffer, n);
    editing->out[n] = '\0';
    editing->ready = 1;
    fprintf(stdout, "\r\033[K%s%s\r\n", editing->prompt, editing->out);
    fflush(stdout);
    return CC_NEWLINE;
}

static void
end_editor(void)
{
    if (editing == NULL)
        return;
    el_end(editing->el);            /* restores the terminal */
    history_end(editing->hist);
    editing->el = NULL;
    editing->hist = NULL;
    editing = NULL;
}

int
rec_line_open(rec_line_t *l, int fd, int edit)
{
    static int     registered;
    struct termios t;
    HistEvent      ev;

    memset(l, 0, sizeof(*l));
    l->fd = fd;
    if (!edit || tcgetattr(fd, &t) != 0)
        return 0;               /* not a terminal after all: plain lines */
    l->veof = t.c_cc[VEOF];
    /* libedit measures the prompt and the line in characters: the suits
     * are UTF-8 whatever the environment says, so the editor's character
     * type is UTF-8 (only LC_CTYPE: numbers print as before). */
    if (setlocale(LC_CTYPE, "") == NULL
        || strcmp(nl_langinfo(CODESET), "UTF-8") != 0)
        setlocale(LC_CTYPE, "C.UTF-8");
    l->el = el_init_fd("arbiter", stdin, stdout, stderr, fd, STDOUT_FILENO,
                       STDERR_FILENO);
    l->hist = history_init();
    if (l->el == NULL || l->hist == NULL) {
        if (l->el != NULL)
            el_end(l->el);
        if (l->hist != NULL)
            history_end(l->hist);
        return ARB_EIO;
    }
    editing = l;
    if (!registered) {
        atexit(end_editor);
        registered = 1;
    }
    history(l->hist, &ev, H_SETSIZE, REC_HIST_MAX);
    el_set(l->el, EL_HIST, history, l->hist);
    el_set(l->el, EL_EDITOR, "emacs");
    el_set(l->el, EL_SIGNAL, 0);
    el_set(l->el, EL_PROMPT, prompt_cb);
    el_set(l->el, EL_SETTY, "-d", "-isig", NULL);
    el_set(l->el, EL_BIND, "^C", "em-kill-line", NULL);
    el_set(l->el, EL_BIND, "^W", "ed-delete-prev-word", NULL);
    /* The wide call keeps the two names as given; the narrow one copies
     * them and libedit never frees the copies. */
    el_wset(l->el, EL_ADDFN, L"arbiter-enter", L"send the line", enter_cb);
    el_set(l->el, EL_BIND, "^M", "arbiter-enter", NULL);
    el_set(l->el, EL_BIND, "^J", "arbiter-enter", NULL);
    el_source(l->el, NULL);
    l->edit = 1;                /* editing starts with the first prompt */
    return 0;
}

void
rec_line_close(rec_line_t *l)
{
    if (l->edit && editing == l) {
        if (l->active)
            fputs("\r\n", stdout);
        fflush(stdout);
        end_editor();
    }
    l->edit = 0;
}

/* Clears the prompt's row and has libedit draw the prompt and the line
 * being edited again (its picture of the screen starts over). */
static void
redraw(rec_line_t *l, const char *above)
{
    fputs("\r\033[K", stdout);
    if (above != NULL) {
        fputs(above, stdout);
        fputs("\r\n", stdout);
    }
    fflush(stdout);
    el_set(l->el, EL_REFRESH);
}

void
rec_line_set_prompt(rec_line_t *l, const char *prompt)
{
    int same = strcmp(l->prompt, prompt) == 0;

    snprintf(l->prompt, sizeof(l->prompt), "%s", prompt);
    if (!l->edit)
        return;
    if (!l->active && !l->ready) {
        fflush(stdout);
        el_set(l->el, EL_UNBUFFERED, 1);    /* raw mode, prompt drawn */
        l->active = 1;
    } else if (!same) {
        redraw(l, NULL);
    }
}

void
rec_line_print(rec_line_t *l, const char *text)
{
    if (l->edit && l->active) {
        redraw(l, text);
        return;
    }
    fputs(text, stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

/* One key for libedit.  In unbuffered mode el_gets returns after each key;
 * Enter is ours (enter_cb: the line is in out), and the end of input is
 * the EOF key alone on an empty line. */
static void
fill_edit(rec_line_t *l)
{
    const char *buf;
    HistEvent   ev;
    int         n = 0;

    if (!l->active)
        rec_line_set_prompt(l, l->prompt);
    buf = el_gets(l->el, &n);
    if (l->ready) {
        if (l->out[0] != '\0')
            history(l->hist, &ev, H_ENTER, l->out);
        /* Back to the terminal's own mode, so that the line's results
         * print as plain lines; the prompt comes back (and libedit starts
         * a new line) when the console sets it again. */
        el_set(l->el, EL_UNBUFFERED, 0);
        l->active = 0;
        return;
    }
    if (buf != NULL && n == 1 && (unsigned char)buf[0] == l->veof)
        l->eof = 1;
}

void
rec_line_fill(rec_line_t *l)
{
    if (l->edit)
        fill_edit(l);
    else
        fill_plain(l);
}

int
rec_line_next(rec_line_t *l, const char **line)
{
    if (!l->edit)
        return next_plain(l, line);
    if (l->ready) {
        l->ready = 0;
        *line = l->out;
        return l->too_long ? 3 : 1;
    }
    return l->eof ? -1 : 0;
}
