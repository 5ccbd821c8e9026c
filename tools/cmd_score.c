/*
 * arbiter score - classify Blockchain sequences.
 *
 * DESIGN: one line in, one line out, in order, so a spreadsheet or a
 * script can zip the answers back to its rows.  The stdin path reads and
 * writes in large blocks and formats integers by hand because it is meant
 * for millions of lines (see `make bench`).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/card.h"
#include "core/err.h"
#include "core/rules/yahchain_bc.h"
#include "tools/cli.h"

#define IO_BLOCK (1 << 20)

static void
usage(FILE *f)
{
    fprintf(f,
        "usage: arbiter score [--game yahchain] --mode N CARD CARD CARD...\n"
        "       arbiter score [--game yahchain] --mode N -\n"
        "       arbiter score --game GAME --help   (other games)\n\n"
        "Classifies one YAHchain Blockchain (chapter 34) placed in the given\n"
        "order and prints one line:\n"
        "  <CODE> <face_sum> <bonus> <game_points>   e.g. BC-001 15 6 21\n"
        "  VOID                                      no category matches\n"
        "  ERROR <message>                           bad input\n\n"
        "With '-', reads one sequence per line from stdin (cards separated\n"
        "by spaces, commas, → or ->) and writes one answer line per input\n"
        "line, in order.  Exit status: 0 when no line was an ERROR, 1\n"
        "otherwise, 2 for bad usage.\n\n"
        "options:\n"
        "  --mode N   3, 4 or 5 (YCWS-144/N); required\n"
        "cards: <type><suit>, type 2..10 J Q K, suit as ♠ ♥ ♦ ♣ ☀ ☾ ☸ ✿ ❦ ⚙ ☯ ♪,\n"
        "       as a letter S H D C U M W F L G Y N, or as #1..#12.\n");
}

static char *
put_int(char *p, int v)
{
    char tmp[12];
    int  n = 0;

    if (v < 0) {
        *p++ = '-';
        v = -v;
    }
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v > 0);
    while (n > 0)
        *p++ = tmp[--n];
    return p;
}

/* Classifies one line; writes the answer (with '\n') at out, which has at
 * least 512 bytes.  Returns the answer length; *err set on ERROR. */
static size_t
score_line(int mode, const char *s, size_t len, char *out, int *err)
{
    arb_card_t  cards[6];
    size_t      n = 0, i = 0, start, k;
    char        msg[200];
    arb_bc_t    bc;
    char       *p = out;
    int         rc;

    if (cli_line_has_nul(s, len)) {
        snprintf(msg, sizeof(msg), CLI_LINE_NUL);
        goto error;
    }
    while (i < len) {
        /* separators: blank, tab, CR, comma, "→" (E2 86 92), "->" */
        if (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == ',') {
            i++;
            continue;
        }
        if (len - i >= 3 && memcmp(s + i, "\xe2\x86\x92", 3) == 0) {
            i += 3;
            continue;
        }
        if (len - i >= 2 && s[i] == '-' && s[i + 1] == '>') {
            i += 2;
            continue;
        }
        start = i;
        while (i < len && s[i] != ' ' && s[i] != '\t' && s[i] != '\r'
               && s[i] != ',' && !(len - i >= 3
                                   && memcmp(s + i, "\xe2\x86\x92", 3) == 0)
               && !(len - i >= 2 && s[i] == '-' && s[i + 1] == '>'))
            i++;
        if (n == 6) {
            n++;
            break;
        }
        if (arb_card_parse(&cards[n], s + start, i - start, msg,
                           sizeof(msg)) != 0)
            goto error;
        n++;
    }
    if (n == 0) {
        snprintf(msg, sizeof(msg), "no cards on this line");
        goto error;
    }
    if (n > 6) {
        snprintf(msg, sizeof(msg), "mode %d needs exactly %d cards, got "
                 "more than 6 (§34.5)", mode, mode);
        goto error;
    }
    rc = arb_bc_classify(mode, cards, n, &bc, msg, sizeof(msg));
    if (rc < 0)
        goto error;
    if (rc == 1) {
        memcpy(p, "VOID\n", 5);
        return 5;
    }
    k = strlen(bc.code);
    memcpy(p, bc.code, k);
    p += k;
    *p++ = ' ';
    p = put_int(p, bc.face_sum);
    *p++ = ' ';
    p = put_int(p, bc.bonus);
    *p++ = ' ';
    p = put_int(p, bc.points);
    *p++ = '\n';
    return (size_t)(p - out);

error:
    *err = 1;
    return (size_t)snprintf(out, 512, "ERROR %s\n", msg);
}

static int
write_all(const char *p, size_t n)
{
    ssize_t w;

    while (n > 0) {
        w = write(STDOUT_FILENO, p, n);
        if (w < 0) {
            perror("arbiter score: write");
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int
score_stream(int mode)
{
    char   *in, *out;
    size_t  have = 0, olen = 0, i, start;
    ssize_t r;
    int     err = 0, eof = 0, rc = 0;

    in = malloc(IO_BLOCK + 1);
    out = malloc(IO_BLOCK + 512);
    if (in == NULL || out == NULL) {
        fprintf(stderr, "arbiter score: out of memory\n");
        rc = CLI_ERROR;
        goto done;
    }
    while (!eof) {
        r = read(STDIN_FILENO, in + have, IO_BLOCK - have);
        if (r < 0) {
            perror("arbiter score: read");
            rc = CLI_ERROR;
            goto done;
        }
        if (r == 0)
            eof = 1;
        have += (size_t)r;
        start = 0;
        for (i = 0; i < have; i++) {
            if (in[i] != '\n')
                continue;
            olen += score_line(mode, in + start, i - start, out + olen, &err);
            start = i + 1;
            if (olen > IO_BLOCK) {
                if (write_all(out, olen) != 0) {
                    rc = CLI_ERROR;
                    goto done;
                }
                olen = 0;
            }
        }
        if (eof && start < have) {      /* last line without '\n' */
            olen += score_line(mode, in + start, have - start, out + olen,
                               &err);
            start = have;
        }
        if (start == 0 && have == IO_BLOCK) {
            /* A single line filling the whole block is not a sequence. */
            olen += (size_t)snprintf(out + olen, 512,
                                     "ERROR line longer than %d bytes\n",
                                     IO_BLOCK);
            err = 1;
            while (!eof) {      /* skip to the end of that line */
                r = read(STDIN_FILENO, in, IO_BLOCK);
                if (r <= 0) {
                    eof = 1;
                    break;
                }
                char *nl = memchr(in, '\n', (size_t)r);
                if (nl != NULL) {
                    have = (size_t)r - (size_t)(nl + 1 - in);
                    memmove(in, nl + 1, have);
                    break;
                }
            }
            if (eof)
                have = 0;
            continue;
        }
        memmove(in, in + start, have - start);
        have -= start;
    }
    if (write_all(out, olen) != 0)
        rc = CLI_ERROR;
    else
        rc = err ? 1 : 0;
done:
    free(in);
    free(out);
    return rc;
}

/* Other games' scorers (tools/score_<game>.c).  `arbiter score --game G`
 * hands the whole argument list to the game's scorer. */
static const struct {
    const char *game;
    int       (*run)(int, char **);
} other_games[] = {
    { "chains", cmd_score_chains },
    { "tsukurutenten", cmd_score_tsukurutenten },
    { "chan", cmd_score_chan },
    { NULL, NULL }
};

static int cmd_score_yahchain(int argc, char **argv);

/* The value of --game (either spelling), or NULL. */
static const char *
cli_score_game(int argc, char **argv)
{
    int i;

    for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strncmp(argv[i], "--game=", 7) == 0)
            return argv[i] + 7;
        if (strcmp(argv[i], "--game") == 0 && i + 1 < argc)
            return argv[i + 1];
    }
    return NULL;
}

int
cmd_score(int argc, char **argv)
{
    const char *game = cli_score_game(argc, argv);
    size_t      g;

    if (game == NULL || strcmp(game, "yahchain") == 0)
        return cmd_score_yahchain(argc, argv);
    for (g = 0; other_games[g].game != NULL; g++)
        if (strcmp(game, other_games[g].game) == 0)
            return other_games[g].run(argc, argv);
    fprintf(stderr, "arbiter score: unknown game '%s'\n", game);
    return CLI_ERROR;
}

static int
cmd_score_yahchain(int argc, char **argv)
{
    arb_buf_t   line = ARB_BUF_INIT;
    const char *m = NULL, *game = NULL;
    char        out[512];
    int         mode, i, err = 0, status;
    size_t      n;
    const cli_optdef_t opts[] = {
        { "--mode", CLI_ARG_STR, &m },
        { "--game", CLI_ARG_STR, &game },   /* "yahchain": dispatched */
        { NULL, 0, NULL }
    };
    cli_args_t a = { .cmd = "score", .usage = usage, .opts = opts,
                     .dash_words = 1 };

    status = cli_args_parse(&a, argc, argv);
    if (status >= 0)
        return status;
    if (m == NULL) {
        fprintf(stderr, "arbiter score: --mode 3|4|5 is required\n");
        usage(stderr);
        return CLI_ERROR;
    }
    mode = m[strncmp(m, "YCWS-144/", 9) == 0 ? 9 : 0] - '0';
    if (mode < 3 || mode > 5
        || m[strncmp(m, "YCWS-144/", 9) == 0 ? 10 : 1] != '\0') {
        fprintf(stderr, "arbiter score: mode '%s' does not exist: "
                "modes are 3, 4, 5\n", m);
        return CLI_ERROR;
    }
    if (a.npos == 0) {
        fprintf(stderr, "arbiter score: no cards given (or '-' for stdin)\n");
        return CLI_ERROR;
    }
    if (a.npos == 1 && strcmp(a.pos[0], "-") == 0)
        return score_stream(mode);
    for (i = 0; i < a.npos; i++) {
        arb_buf_puts(&line, a.pos[i]);
        arb_buf_putc(&line, ' ');
    }
    if (line.oom) {
        fprintf(stderr, "arbiter score: out of memory\n");
        return CLI_ERROR;
    }
    n = score_line(mode, line.data, line.len, out, &err);
    fwrite(out, 1, n, stdout);
    arb_buf_free(&line);
    return err ? CLI_DIFFERS : CLI_OK;
}
