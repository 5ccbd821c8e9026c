/*
 * record_line.c - the input side of `arbiter record`.
 *
 * DESIGN: at a terminal the console edits the line itself, in raw mode,
 * instead of leaving it to the terminal's canonical mode or a library.
 * The console prints other consoles' moves while the scorekeeper may be
 * half-way through typing one; only a program that owns the line can clear
 * it, print the news above it and draw it again, so the two never mix on
 * screen.  What is edited is small (a card, a player, a word or two), so
 * the editor is too: insert, delete, cursor moves, ^A ^E ^K ^U ^W, history
 * on the arrows, ^C drops the line, ^D on an empty line ends.  Characters
 * are UTF-8 and each code point is taken to fill one column (true of the
 * suit symbols).  Signals stay ours: ISIG is off, so ^C is a key, and the
 * terminal is restored on every exit path (rec_line_close, atexit).
 * From a pipe or a file the input is read as plain lines, with no echo,
 * prompt or escape sequence.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "core/err.h"
#include "tools/record.h"

/* One terminal per process: kept here so atexit can restore it. */
static struct termios saved_tio;
static int            saved_fd = -1;

static void
restore_tty(void)
{
    if (saved_fd >= 0)
        tcsetattr(saved_fd, TCSADRAIN, &saved_tio);
    saved_fd = -1;
}

int
rec_line_open(rec_line_t *l, int fd, int edit)
{
    static int     registered;
    struct termios t;

    memset(l, 0, sizeof(*l));
    l->fd = fd;
    if (!edit)
        return 0;
    if (tcgetattr(fd, &saved_tio) != 0)
        return 0;               /* not a terminal after all: plain lines */
    t = saved_tio;
    t.c_iflag &= ~(tcflag_t)(BRKINT | ICRNL | INPCK | ISTRIP | IXON);
    t.c_lflag &= ~(tcflag_t)(ECHO | ICANON | IEXTEN | ISIG);
    t.c_cc[VMIN] = 1;
    t.c_cc[VTIME] = 0;
    if (tcsetattr(fd, TCSADRAIN, &t) != 0)
        return ARB_EIO;
    saved_fd = fd;
    if (!registered) {
        atexit(restore_tty);
        registered = 1;
    }
    l->edit = 1;
    l->raw = 1;
    return 0;
}

void
rec_line_close(rec_line_t *l)
{
    size_t i;

    if (l->raw) {
        if (l->shown)
            fputs("\r\n", stdout);
        fflush(stdout);
        restore_tty();
        l->raw = 0;
    }
    for (i = 0; i < l->nhist; i++)
        free(l->hist[i]);
    l->nhist = 0;
}

void
rec_line_set_prompt(rec_line_t *l, const char *prompt)
{
    if (strcmp(l->prompt, prompt) == 0)
        return;
    snprintf(l->prompt, sizeof(l->prompt), "%s", prompt);
    l->dirty = 1;
}

/* Code points in s[0..n): the columns they take. */
static unsigned
columns(const char *s, size_t n)
{
    unsigned c = 0;
    size_t   i;

    for (i = 0; i < n; i++)
        if (((unsigned char)s[i] & 0xc0) != 0x80)
            c++;
    return c;
}

static void
redraw(rec_line_t *l)
{
    unsigned back;

    fputs("\r", stdout);
    fputs(l->prompt, stdout);
    fwrite(l->buf, 1, l->len, stdout);
    fputs("\033[K", stdout);
    back = columns(l->buf + l->cur, l->len - l->cur);
    if (back > 0)
        printf("\033[%uD", back);
    fflush(stdout);
    l->shown = 1;
    l->dirty = 0;
}

void
rec_line_show(rec_line_t *l)
{
    if (l->edit)
        redraw(l);
}

void
rec_line_print(rec_line_t *l, const char *text)
{
    if (l->edit && l->shown)
        fputs("\r\033[K", stdout);
    fputs(text, stdout);
    fputc('\n', stdout);
    if (l->edit && l->shown)
        redraw(l);
    fflush(stdout);
}

void
rec_line_fill(rec_line_t *l)
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
        take = n < REC_LINE_MAX ? n : REC_LINE_MAX;
        memcpy(l->out, l->in, take);
        if (take > 0 && l->out[take - 1] == '\r')
            take--;
        l->out[take] = '\0';
        consume(l, nl != NULL ? n + 1 : n);
        if (nl == NULL && !l->eof)
            l->skipping = 1;    /* the buffer filled up without a newline */
        *line = l->out;
        return 1;
    }
}

/* ---- the editor ------------------------------------------------------- */

static void
set_line(rec_line_t *l, const char *s)
{
    size_t n = strlen(s);

    if (n > sizeof(l->buf) - 1)
        n = sizeof(l->buf) - 1;
    memcpy(l->buf, s, n);
    l->len = l->cur = n;
}

static void
history_add(rec_line_t *l, const char *s)
{
    char *copy;

    if (*s == '\0'
        || (l->nhist > 0 && strcmp(l->hist[l->nhist - 1], s) == 0))
        return;
    copy = strdup(s);
    if (copy == NULL)
        return;                 /* history is a convenience */
    if (l->nhist == REC_HIST_MAX) {
        free(l->hist[0]);
        memmove(l->hist, l->hist + 1, (REC_HIST_MAX - 1) * sizeof(char *));
        l->nhist--;
    }
    l->hist[l->nhist++] = copy;
}

static void
left(rec_line_t *l)
{
    while (l->cur > 0) {
        l->cur--;
        if (((unsigned char)l->buf[l->cur] & 0xc0) != 0x80)
            break;
    }
}

static void
right(rec_line_t *l)
{
    if (l->cur < l->len)
        l->cur++;
    while (l->cur < l->len && ((unsigned char)l->buf[l->cur] & 0xc0) == 0x80)
        l->cur++;
}

static void
cut(rec_line_t *l, size_t from, size_t to)
{
    memmove(l->buf + from, l->buf + to, l->len - to);
    l->len -= to - from;
    l->cur = from;
}

static void
history_move(rec_line_t *l, int up)
{
    if (up && l->hpos > 0)
        set_line(l, l->hist[--l->hpos]);
    else if (!up && l->hpos + 1 < l->nhist)
        set_line(l, l->hist[++l->hpos]);
    else if (!up) {
        l->hpos = l->nhist;
        l->len = l->cur = 0;
    }
}

/* The end of an escape sequence: ESC [ A, ESC O H, ESC [ 3 ~ ... */
static void
escape(rec_line_t *l)
{
    const char *s = l->escbuf;
    size_t      start;

    if (strcmp(s, "[A") == 0 || strcmp(s, "OA") == 0)
        history_move(l, 1);
    else if (strcmp(s, "[B") == 0 || strcmp(s, "OB") == 0)
        history_move(l, 0);
    else if (strcmp(s, "[C") == 0 || strcmp(s, "OC") == 0)
        right(l);
    else if (strcmp(s, "[D") == 0 || strcmp(s, "OD") == 0)
        left(l);
    else if (strcmp(s, "[H") == 0 || strcmp(s, "OH") == 0
             || strcmp(s, "[1~") == 0 || strcmp(s, "[7~") == 0)
        l->cur = 0;
    else if (strcmp(s, "[F") == 0 || strcmp(s, "OF") == 0
             || strcmp(s, "[4~") == 0 || strcmp(s, "[8~") == 0)
        l->cur = l->len;
    else if (strcmp(s, "[3~") == 0 && l->cur < l->len) {
        start = l->cur;
        right(l);
        cut(l, start, l->cur);
    }
}

/* One key.  1 when it ended the line (l->out holds it), -1 at ^D on an
 * empty line, 0 otherwise. */
static int
key(rec_line_t *l, unsigned char c)
{
    size_t start;

    if (l->esc) {
        /* ESC, then '[' or 'O', then parameters up to a final byte. */
        if (l->esclen + 1 < sizeof(l->escbuf))
            l->escbuf[l->esclen++] = (char)c;
        l->escbuf[l->esclen] = '\0';
        if (l->esclen == 1 && c != '[' && c != 'O')
            l->esc = 0;         /* Alt+key: ignored */
        else if (l->esclen > 1 && c >= 0x40 && c <= 0x7e) {
            l->esc = 0;
            escape(l);
        }
        return 0;
    }
    switch (c) {
    case '\r':
    case '\n':
        redraw(l);              /* a pasted line is seen as entered */
        memcpy(l->out, l->buf, l->len);
        l->out[l->len] = '\0';
        history_add(l, l->out);
        l->hpos = l->nhist;
        l->len = l->cur = 0;
        /* The line stays on screen as typed; output goes below it. */
        fputs("\r\n", stdout);
        fflush(stdout);
        l->shown = 0;
        return 1;
    case 1:                     /* ^A */
        l->cur = 0;
        break;
    case 2:                     /* ^B */
        left(l);
        break;
    case 3:                     /* ^C: drop the line */
        fputs("^C\r\n", stdout);
        l->len = l->cur = 0;
        l->hpos = l->nhist;
        break;
    case 4:                     /* ^D: the end, or delete */
        if (l->len == 0) {
            fputs("\r\n", stdout);
            fflush(stdout);
            l->shown = 0;
            l->eof = 1;
            return -1;
        }
        if (l->cur < l->len) {
            start = l->cur;
            right(l);
            cut(l, start, l->cur);
        }
        break;
    case 5:                     /* ^E */
        l->cur = l->len;
        break;
    case 6:                     /* ^F */
        right(l);
        break;
    case 8:                     /* ^H */
    case 127:                   /* backspace */
        if (l->cur > 0) {
            start = l->cur;
            left(l);
            cut(l, l->cur, start);
        }
        break;
    case 11:                    /* ^K */
        l->len = l->cur;
        break;
    case 12:                    /* ^L */
        fputs("\033[H\033[2J", stdout);
        break;
    case 14:                    /* ^N */
        history_move(l, 0);
        break;
    case 16:                    /* ^P */
        history_move(l, 1);
        break;
    case 21:                    /* ^U */
        cut(l, 0, l->cur);
        break;
    case 23:                    /* ^W: the word before the cursor */
        start = l->cur;
        while (l->cur > 0 && l->buf[l->cur - 1] == ' ')
            l->cur--;
        while (l->cur > 0 && l->buf[l->cur - 1] != ' ')
            l->cur--;
        cut(l, l->cur, start);
        break;
    case 27:
        l->esc = 1;
        l->esclen = 0;
        break;
    default:
        if (c < 0x20 || l->len == sizeof(l->buf) - 1)
            break;              /* other controls; a full line */
        memmove(l->buf + l->cur + 1, l->buf + l->cur, l->len - l->cur);
        l->buf[l->cur++] = (char)c;
        l->len++;
    }
    return 0;
}

int
rec_line_next(rec_line_t *l, const char **line)
{
    int rc;

    if (!l->edit)
        return next_plain(l, line);
    if (l->inlen > 0)
        l->dirty = 1;
    while (l->inlen > 0) {
        unsigned char c = (unsigned char)l->in[0];
        consume(l, 1);
        rc = key(l, c);
        if (rc == 1) {
            *line = l->out;
            return 1;
        }
        if (rc < 0)
            return -1;
    }
    if (l->eof)
        return -1;
    if (l->dirty || !l->shown)
        redraw(l);
    return 0;
}
