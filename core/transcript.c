/*
 * DESIGN: the grammar is line-based so a person can type a paper
 * scoresheet: `#` starts a comment, tokens are separated by blanks and may
 * be "double-quoted" (\" and \\ escape).  Header keys the format does not
 * know become match options, so a new game needs no parser change.  Every
 * error carries the line number, because the line is what an arbiter can
 * find on paper.  A claim line carries a JSON document after its `--`,
 * kept verbatim like a note's text (JSON has quotes, '#' and long lines
 * of its own), so only the words before the `--` are tokenized.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/claim.h"
#include "core/codec.h"
#include "core/err.h"
#include "core/hash.h"
#include "core/limits.h"
#include "core/num.h"
#include "core/text.h"
#include "core/transcript.h"

/* The limits count what a person writes: words besides the event number,
 * and bytes of text as read (quotes and escapes aside).  A line as
 * written back (numbered, quoted) must read again, so the raw line may
 * be longer: escaping can double it.  The words: a close's reveal of a
 * whole deal order, a card a word as `arbiter open --deal order:` sends
 * it (ARB_DEAL_MAX), with its verb, `--` and a reason of REASON_WORDS
 * (until 2026-12-06 a line held 64 words, and the transcript of a Chắn
 * match so dealt, its close revealing 100 cards, did not read back). */
#define WORDS_MAX    (ARB_DEAL_MAX + 32)
#define TOKENS_MAX   (WORDS_MAX + 1)        /* and the number "N." */
/* A reason may be a whole event text (ARB_STR_MAX), after a move of its
 * own words: an amend's line holds both (until 2026-12-06 the limit was
 * 4096 and such a line did not read back). */
#define LINE_MAX_LEN 8192
#define TEXT_MAX     (LINE_MAX_LEN + 24)    /* and "N. " */
#define LINE_RAW_MAX (2 * TEXT_MAX)

typedef struct toks {
    size_t n;
    char  *v[TOKENS_MAX];
    char   quoted[TOKENS_MAX];     /* a quoted "--" is an argument */
    char   store[TEXT_MAX + TOKENS_MAX];
} toks_t;

/* Splits a line into tokens.  Returns 0, or -1 with a message. */
static int
tokenize(toks_t *t, const char *s, size_t len, char *err, size_t errlen)
{
    size_t i = 0, o = 0;

    t->n = 0;
    if (len > LINE_RAW_MAX) {
        snprintf(err, errlen, "line is longer than %d bytes", LINE_MAX_LEN);
        return -1;
    }
    while (i < len) {
        while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
            i++;
        if (i == len || s[i] == '#')
            break;
        if (t->n == TOKENS_MAX) {
            snprintf(err, errlen, "more than %d words", WORDS_MAX);
            return -1;
        }
        t->quoted[t->n] = s[i] == '"';
        t->v[t->n++] = &t->store[o];
        if (s[i] == '"') {
            for (i++;; i++) {
                if (i == len) {
                    snprintf(err, errlen, "unterminated quoted text");
                    return -1;
                }
                if (s[i] == '"')
                    break;
                if (s[i] == '\\' && i + 1 < len
                    && (s[i + 1] == '"' || s[i + 1] == '\\'))
                    i++;
                if (o == TEXT_MAX)
                    goto long_text;
                t->store[o++] = s[i];
            }
            i++;
            if (i < len && s[i] != ' ' && s[i] != '\t' && s[i] != '\r') {
                snprintf(err, errlen, "text after a closing quote");
                return -1;
            }
        } else {
            while (i < len && s[i] != ' ' && s[i] != '\t' && s[i] != '\r') {
                if (o == TEXT_MAX)
                    goto long_text;
                t->store[o++] = s[i++];
            }
        }
        t->store[o++] = '\0';
    }
    /* The number "N." is the one word beyond WORDS_MAX. */
    if (t->n == TOKENS_MAX) {
        size_t n0 = strlen(t->v[0]);
        if (n0 < 2 || t->v[0][n0 - 1] != '.') {
            snprintf(err, errlen, "more than %d words", WORDS_MAX);
            return -1;
        }
    }
    return 0;

long_text:
    snprintf(err, errlen, "line is longer than %d bytes", LINE_MAX_LEN);
    return -1;
}

static char *
join(char **v, size_t n)
{
    size_t i, len = 1;
    char  *s;

    for (i = 0; i < n; i++)
        len += strlen(v[i]) + 1;
    s = malloc(len);
    if (s == NULL)
        return NULL;
    s[0] = '\0';
    for (i = 0; i < n; i++) {
        /* An empty word ("") joins as nothing: the text is written back
         * with single spaces, and must read back the same. */
        if (v[i][0] == '\0')
            continue;
        if (s[0] != '\0')
            strcat(s, " ");
        strcat(s, v[i]);
    }
    return s;
}

static int
parse_u64(const char *s, uint64_t *out)
{
    return arb_u64_parse(s, strlen(s), out);
}

/* An option whose key is a header's (a tournament's `game` and `deal`),
 * or begins with the prefix, is written `option.KEY:`; the reader takes
 * `option.KEY:` as option KEY.  Until 2026-12-05 such an option was
 * written bare, and a tournament's transcript did not read back (header
 * 'game' given twice). */
#define OPTION_PREFIX "option."

static int
option_prefixed(const char *key)
{
    static const char *const header[] = { "game", "match", "edition",
                                          "engine", "teams", "players",
                                          "deal" };
    size_t i;

    for (i = 0; i < sizeof(header) / sizeof(header[0]); i++)
        if (strcmp(key, header[i]) == 0)
            return 1;
    return strncmp(key, OPTION_PREFIX, strlen(OPTION_PREFIX)) == 0;
}

#define ERR(...) do { arb_buf_printf(why, "line %u: ", line);          \
                      arb_buf_printf(why, __VA_ARGS__); rc = ARB_EINVAL; \
                      goto fail; } while (0)

static int
parse_header(arb_setup_t *s, const char *key, toks_t *t, size_t first,
             unsigned line, arb_buf_t *why)
{
    size_t      i;
    int         rc = 0;
    char       *val = NULL, *colon;
    const char *opt;

    if (t->n <= first)
        ERR("header '%s' has no value", key);
    if (strcmp(key, "game") == 0 || strcmp(key, "match") == 0
        || strcmp(key, "edition") == 0 || strcmp(key, "engine") == 0) {
        char **dst = key[0] == 'g' ? &s->game : key[0] == 'm'
                     ? &s->match_id : key[1] == 'd' ? &s->edition : &s->engine;
        if (*dst != NULL)
            ERR("header '%s' given twice", key);
        if (key[0] != 'e' && t->n != first + 1)
            ERR("header '%s' takes one word", key);
        if (key[0] == 'm' && !arb_name_valid(t->v[first]))
            ERR("match id '%s' must be 1..64 of A-Z a-z 0-9 _ . @ + -",
                t->v[first]);
        *dst = join(&t->v[first], t->n - first);
        if (*dst == NULL)
            return ARB_ENOMEM;
        if (**dst == '\0')
            ERR("header '%s' has no value", key);
        return 0;
    }
    if (strcmp(key, "teams") == 0) {
        if (s->nteams > 0)
            ERR("header 'teams' given twice");
        /* Players name their team, so the teams come first; a later
         * teams line would leave the players without one. */
        if (s->nplayers > 0)
            ERR("header 'teams' must come before 'players'");
        for (i = first; i < t->n; i++) {
            if (!arb_name_valid(t->v[i]))
                ERR("team name '%s' must be 1..64 of A-Z a-z 0-9 _ . @ + -",
                    t->v[i]);
            if (arb_setup_add_team(s, t->v[i]) != 0)
                return ARB_ENOMEM;
        }
        return 0;
    }
    if (strcmp(key, "players") == 0) {
        if (s->nplayers > 0)
            ERR("header 'players' given twice");
        for (i = first; i < t->n; i++) {
            int team = -1;
            size_t k;
            colon = strchr(t->v[i], ':');
            if (colon != NULL) {
                *colon++ = '\0';
                for (k = 0; k < s->nteams; k++)
                    if (strcmp(s->teams[k], colon) == 0)
                        team = (int)k;
                if (team < 0)
                    ERR("player '%s' names team '%s', which the teams "
                        "header does not list", t->v[i], colon);
            } else if (s->nteams > 0) {
                ERR("player '%s' needs a team: write %s:<team>", t->v[i],
                    t->v[i]);
            }
            if (!arb_name_valid(t->v[i]))
                ERR("player name '%s' must be 1..64 of A-Z a-z 0-9 _ . @ + -",
                    t->v[i]);
            if (arb_setup_seat(s, t->v[i]) >= 0)
                ERR("player '%s' listed twice", t->v[i]);
            if (arb_setup_add_player(s, t->v[i], team) != 0)
                return ARB_ENOMEM;
        }
        return 0;
    }
    if (strcmp(key, "deal") == 0) {
        const char *k = t->v[first];
        if (s->deal.kind != ARB_DEAL_NONE || s->deal.seed != NULL)
            ERR("header 'deal' given twice");
        if (strcmp(k, "none") == 0 && t->n == first + 1)
            return 0;
        if (strcmp(k, "seed") == 0 && t->n == first + 2) {
            s->deal.kind = ARB_DEAL_SEED;
            s->deal.seed = strdup(t->v[first + 1]);
            return s->deal.seed == NULL ? ARB_ENOMEM : 0;
        }
        if (strcmp(k, "order") == 0 && t->n > first + 1) {
            s->deal.kind = ARB_DEAL_ORDER;
            for (i = first + 1; i < t->n; i++)
                if (arb_deal_add_card(&s->deal, t->v[i]) != 0)
                    return ARB_ENOMEM;
            return 0;
        }
        /* As a recorder's log has it before the close reveals the deal;
         * each of the 64 a hex digit (until 2026-12-07 "%2x" read "+f",
         * "-1" and "1g" as bytes of another commitment). */
        if (strcmp(k, "commit") == 0 && t->n == first + 2
            && strlen(t->v[first + 1]) == 64) {
            if (arb_unhex(s->deal.seed_hash, ARB_HASH_LEN,
                          t->v[first + 1]) != 0)
                ERR("deal commit: 64 hex digits expected");
            s->deal.kind = ARB_DEAL_COMMIT;
            return 0;
        }
        ERR("deal must be 'none', 'seed <text>', 'order <cards...>' or "
            "'commit <64 hex digits>'");
    }
    opt = key;
    if (strncmp(key, OPTION_PREFIX, strlen(OPTION_PREFIX)) == 0)
        opt = key + strlen(OPTION_PREFIX);
    if (*opt == '\0')
        ERR("header '%s' names no option", key);
    if (arb_setup_option(s, opt) != NULL)
        ERR("header '%s' given twice", key);
    val = join(&t->v[first], t->n - first);
    if (val == NULL)
        return ARB_ENOMEM;
    if (*val == '\0') {
        free(val);
        ERR("header '%s' has no value", key);
    }
    rc = arb_setup_set_option(s, opt, val);
    free(val);
    return rc;

fail:
    return rc;
}

/* `... -- reason`: splits the reason off the tokens. */
static char *
take_reason(toks_t *t, size_t *n)
{
    size_t i;

    for (i = 0; i < t->n; i++)
        if (!t->quoted[i] && strcmp(t->v[i], "--") == 0) {
            *n = i;
            return join(&t->v[i + 1], t->n - i - 1);
        }
    *n = t->n;
    return NULL;
}

/* Where the `--` word of a line starts, or len when it has none. */
static size_t
dashes_at(const char *raw, size_t len)
{
    size_t i;

    for (i = 0; i + 1 < len; i++)
        if (raw[i] == '-' && raw[i + 1] == '-'
            && (i == 0 || raw[i - 1] == ' ' || raw[i - 1] == '\t')
            && (i + 2 == len || raw[i + 2] == ' ' || raw[i + 2] == '\t'
                || raw[i + 2] == '\r'))
            return i;
    return len;
}

/* Where the verb of an event line "[N.] verb ..." ends, when it is
 * `verb`; else 0. */
static size_t
verb_end(const char *p, size_t len, const char *verb)
{
    size_t i = 0, n = strlen(verb);

    while (i < len && (p[i] == ' ' || p[i] == '\t'))
        i++;
    if (i < len && p[i] >= '0' && p[i] <= '9') {
        while (i < len && p[i] >= '0' && p[i] <= '9')
            i++;
        if (i == len || p[i] != '.')
            return 0;
        for (i++; i < len && (p[i] == ' ' || p[i] == '\t'); i++)
            ;
    }
    if (len - i >= n && memcmp(p + i, verb, n) == 0
        && (len - i == n || p[i + n] == ' ' || p[i + n] == '\t'
            || p[i + n] == '\r'))
        return i + n;
    return 0;
}

/* How much of an event line is words: a claim's up to its `--` (the
 * JSON after it is verbatim), a note's up to its verb (its text is
 * verbatim: until 2026-12-06 a note was split into words too, and one
 * with an odd number of '"' or of 64 words did not read back). */
static size_t
words_len(const char *p, size_t len)
{
    size_t at;

    if (verb_end(p, len, "claim") != 0)
        return dashes_at(p, len);
    at = verb_end(p, len, "note");
    return at != 0 ? at : len;
}

/* `claim [<who>] -- <claim JSON>` (docs/CLAIMS.md). */
static int
parse_claim(arb_event_t *ev, toks_t *t, unsigned line, const char *raw,
            size_t rawlen, arb_buf_t *why)
{
    arb_claim_t c;
    arb_buf_t   err = ARB_BUF_INIT;
    size_t      at = dashes_at(raw, rawlen);
    int         rc = 0;

    memset(&c, 0, sizeof(c));
    ev->kind = ARB_EV_CLAIM;
    if (t->n > 2 || at == rawlen)
        ERR("a claim is 'claim [<who>] -- <claim JSON on one line>'");
    if (t->n == 2) {
        if (!arb_name_valid(t->v[1]))
            ERR("'%s' is not a name (1..64 of A-Z a-z 0-9 _ . @ + -)",
                t->v[1]);
        ev->player = strdup(t->v[1]);
        if (ev->player == NULL)
            return ARB_ENOMEM;
    }
    /* Skip to the document, so its columns count from its own start. */
    for (at += 2; at < rawlen && (raw[at] == ' ' || raw[at] == '\t'); at++)
        ;
    rc = arb_claim_parse_json(&c, raw + at, rawlen - at, &err);
    if (rc == ARB_ENOMEM)
        goto done;
    if (rc != 0) {
        arb_buf_printf(why, "line %u: claim: %s", line, arb_buf_cstr(&err));
        rc = ARB_EINVAL;
        goto done;
    }
    rc = arb_claim_to_event(ev, &c);
    /* What the recorder would refuse is refused here too, so a transcript
     * never replays a claim that could not be recorded. */
    if (rc == 0 && (rc = arb_claim_event_fits(ev, &err)) != 0) {
        arb_buf_printf(why, "line %u: claim: %s", line, arb_buf_cstr(&err));
        rc = ARB_EINVAL;
    }
done:
    arb_claim_clear(&c);
    arb_buf_free(&err);
    return rc;

fail:
    return rc;
}

/* What p[0..len) holds when it is one quoted word ("...", with \" and
 * \\ escaped), or NULL (not one; or out of memory). */
static char *
unquote(const char *p, size_t len)
{
    char  *out;
    size_t i, o = 0;

    if (len < 2 || p[0] != '"' || p[len - 1] != '"')
        return NULL;
    out = malloc(len);
    if (out == NULL)
        return NULL;
    for (i = 1; i < len - 1; i++) {
        if (p[i] == '"')
            break;                  /* a quote inside: not one word */
        if (p[i] == '\\' && i + 1 < len - 1
            && (p[i + 1] == '"' || p[i + 1] == '\\'))
            i++;
        out[o++] = p[i];
    }
    if (i < len - 1) {
        free(out);
        return NULL;
    }
    out[o] = '\0';
    return out;
}

static int
parse_event(arb_event_t *ev, toks_t *t, unsigned line, const char *raw,
            size_t rawlen, arb_buf_t *why)
{
    size_t      n, i, base = 0;
    const char *verb = t->v[0];
    int         rc = 0;

    memset(ev, 0, sizeof(*ev));
    if (strcmp(verb, "note") == 0) {
        /* The rest of the line, verbatim but for the blanks at its ends;
         * or, when it is one quoted word, what the quotes hold (how the
         * writer puts a note with blanks at an end, or one that starts
         * with a quote: note_text). */
        size_t      at = verb_end(raw, rawlen, "note");
        const char *p = raw + at;
        size_t      len = rawlen - at;

        while (len > 0 && (*p == ' ' || *p == '\t' || *p == '\r'))
            p++, len--;
        while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t'
                           || p[len - 1] == '\r'))
            len--;
        if (len > 2 * ARB_STR_MAX + 2)
            ERR("a note holds at most %d bytes", ARB_STR_MAX);
        ev->kind = ARB_EV_NOTE;
        ev->text = unquote(p, len);
        if (ev->text == NULL)
            ev->text = strndup(p, len);
        if (ev->text == NULL)
            return ARB_ENOMEM;
        if (strlen(ev->text) > ARB_STR_MAX)
            ERR("a note holds at most %d bytes", ARB_STR_MAX);
        return 0;
    }
    if (strcmp(verb, "claim") == 0)
        return parse_claim(ev, t, line, raw, rawlen, why);
    ev->text = take_reason(t, &n);
    if (strcmp(verb, "close") == 0) {
        /* close [seed <text> | order <cards...>] [-- <reason>]: the close
         * of a dealt match reveals the deal committed at open. */
        ev->kind = ARB_EV_CLOSE;
        if (n == 1)
            return 0;
        if (n == 3 && strcmp(t->v[1], "seed") == 0) {
            if (arb_event_add_arg(ev, "seed") != 0
                || arb_event_add_arg(ev, t->v[2]) != 0)
                return ARB_ENOMEM;
            return 0;
        }
        if (n >= 3 && strcmp(t->v[1], "order") == 0) {
            char *cards = join(&t->v[2], n - 2);
            if (cards == NULL || arb_event_add_arg(ev, "order") != 0
                || arb_event_add_arg(ev, cards) != 0) {
                free(cards);
                return ARB_ENOMEM;
            }
            free(cards);
            return 0;
        }
        ERR("close takes a reveal ('seed <text>' or 'order <cards...>') and "
            "a reason after --, nothing else");
    }
    if (strcmp(verb, "void") == 0 || strcmp(verb, "amend") == 0) {
        ev->kind = verb[0] == 'v' ? ARB_EV_VOID : ARB_EV_AMEND;
        if (n < 2 || parse_u64(t->v[1], &ev->target) != 0)
            ERR("%s needs the seq of the move it rules on: %s <seq> ... -- "
                "<reason>", verb, verb);
        if (ev->target == 0)
            ERR("%s 0: seq 0 is the match's header, not a move", verb);
        if (ev->kind == ARB_EV_VOID && n != 2)
            ERR("void takes only a seq before its reason");
        base = 2;
    } else if (strcmp(verb, "stands") == 0) {
        ev->kind = ARB_EV_STANDS;
        base = 1;
    } else {
        ev->kind = ARB_EV_MOVE;
    }
    if (ev->kind != ARB_EV_MOVE && ev->kind != ARB_EV_CLOSE
        && (ev->text == NULL || ev->text[0] == '\0'))
        ERR("%s is an arbiter's ruling and needs a reason: ... -- <reason>",
            verb);
    if (ev->kind == ARB_EV_MOVE && ev->text != NULL)
        ERR("a move takes no reason ('--'); use a note or a ruling");
    if (ev->kind == ARB_EV_VOID)
        return 0;
    if (n < base + 2)
        ERR("a move is '<verb> <player> <arguments...>'");
    ev->verb = strdup(t->v[base]);
    ev->player = strdup(t->v[base + 1]);
    if (ev->verb == NULL || ev->player == NULL)
        return ARB_ENOMEM;
    if (!arb_name_valid(ev->player))
        ERR("'%s' is not a player name", ev->player);
    for (i = base + 2; i < n; i++)
        if (arb_event_add_arg(ev, t->v[i]) != 0)
            return ARB_ENOMEM;
    return 0;

fail:
    return rc;
}

static int
is_header(const toks_t *t)
{
    size_t len;

    if (t->n == 0)
        return 0;
    len = strlen(t->v[0]);
    return len >= 2 && t->v[0][len - 1] == ':';
}

int
arb_transcript_parse(arb_history_t *t, const char *text, size_t len,
                     arb_buf_t *why)
{
    toks_t       *tk;
    const char   *p = text, *end = text + len, *nl;
    unsigned      line = 0;
    int           rc = 0, in_events = 0;
    char          err[128];
    arb_buf_t     tmp = ARB_BUF_INIT;
    arb_setup_t  *s;

    memset(t, 0, sizeof(*t));
    t->has_open = 1;
    t->open.kind = ARB_EV_OPEN;
    s = t->open.setup = calloc(1, sizeof(*s));
    tk = malloc(sizeof(*tk));
    if (s == NULL || tk == NULL) {
        free(tk);
        return ARB_ENOMEM;
    }

    while (p < end) {
        size_t llen;
        nl = memchr(p, '\n', (size_t)(end - p));
        llen = nl ? (size_t)(nl - p) : (size_t)(end - p);
        line++;
        if (memchr(p, '\0', llen) != NULL)
            ERR("NUL byte in the text");
        /* Printable text only, as in every record (core/text.h); a tab
         * and a CR are blanks between words. */
        tmp.len = 0;
        if (arb_text_line_check(p, llen, 1, &tmp) != 0)
            ERR("%s", arb_buf_cstr(&tmp));
        if (tokenize(tk, p, words_len(p, llen), err, sizeof(err)) != 0)
            ERR("%s", err);
        if (tk->n == 0)
            goto next;
        if (!in_events && is_header(tk)) {
            tk->v[0][strlen(tk->v[0]) - 1] = '\0';
            if (strcmp(tk->v[0], "game") == 0)
                t->open_line = line;
            rc = parse_header(s, tk->v[0], tk, 1, line, why);
            if (rc != 0)
                goto fail;
            goto next;
        }
        if (is_header(tk))
            ERR("header '%.*s' after the first event: headers come first",
                (int)strlen(tk->v[0]) - 1, tk->v[0]);
        if (!in_events) {
            if (s->game == NULL)
                ERR("the header must name the game (game: yahchain)");
            if (s->match_id == NULL)
                ERR("the header must name the match (match: <id>)");
            if (s->nplayers == 0)
                ERR("the header must list the players (players: ...)");
            in_events = 1;
        }
        {
            size_t    first = 0;
            uint64_t  num;
            void     *np;
            size_t    nlen = strlen(tk->v[0]);
            /* "12." numbers the event; it must match its position. */
            if (nlen >= 2 && tk->v[0][nlen - 1] == '.') {
                tk->v[0][nlen - 1] = '\0';
                if (parse_u64(tk->v[0], &num) != 0)
                    ERR("'%s.' is not an event number", tk->v[0]);
                if (num != t->nevents + 1)
                    ERR("event numbered %" PRIu64 " but it is event %zu",
                        num, t->nevents + 1);
                first = 1;
                memmove(&tk->v[0], &tk->v[1], (tk->n - 1) * sizeof(char *));
                memmove(&tk->quoted[0], &tk->quoted[1], tk->n - 1);
                tk->n--;
                if (tk->n == 0)
                    ERR("event number with no event");
            }
            (void)first;
            if (t->nevents == t->cap) {
                /* Doubling: one realloc per event made a long transcript
                 * quadratic. events and lines keep the same capacity. */
                size_t cap = t->cap ? 2 * t->cap : 64;
                np = realloc(t->lines, cap * sizeof(unsigned));
                if (np == NULL)
                    goto oom;
                t->lines = np;
                np = realloc(t->events, cap * sizeof(arb_event_t));
                if (np == NULL)
                    goto oom;
                t->events = np;
                t->cap = cap;
            }
            rc = parse_event(&t->events[t->nevents], tk, line, p, llen, why);
            t->events[t->nevents].seq = t->nevents + 1;
            t->lines[t->nevents] = line;
            t->nevents++;
            if (rc != 0)
                goto fail;
            /* a tab within quotes */
            if (arb_event_check_text(&t->events[t->nevents - 1], &tmp) != 0)
                ERR("%s", arb_buf_cstr(&tmp));
        }
next:
        p = nl ? nl + 1 : end;
    }
    if (s->game == NULL)
        ERR("no header: a transcript starts with 'game: <name>'");
    if (s->match_id == NULL)
        ERR("the header must name the match (match: <id>)");
    if (s->nplayers == 0)
        ERR("the header must list the players (players: ...)");
    if (arb_event_check_text(&t->open, &tmp) != 0) {
        line = t->open_line;
        ERR("%s", arb_buf_cstr(&tmp));
    }
    arb_buf_free(&tmp);
    free(tk);
    return 0;

oom:
    rc = ARB_ENOMEM;
    arb_buf_printf(why, "line %u: out of memory", line);
fail:
    arb_buf_free(&tmp);
    free(tk);
    arb_history_clear(t);
    return rc;
}

/* 1 when s would not read back as the one word it is: empty, blanks, a
 * quote or backslash anywhere, a leading '#', or the word "--". */
static int
needs_quote(const char *s)
{
    const char *p;

    if (*s == '\0' || *s == '#' || strcmp(s, "--") == 0)
        return 1;
    for (p = s; *p; p++)
        if (*p == ' ' || *p == '\t' || *p == '"' || *p == '\\'
            || *p == '\r' || *p == '\n')
            return 1;
    return 0;
}

/* s as one quoted word, then tail inside the quotes; a newline (which no
 * line can hold) is folded to a blank, as in free text. */
static void
put_quoted(arb_buf_t *b, const char *s, const char *tail)
{
    arb_buf_putc(b, '"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            arb_buf_putc(b, '\\');
        arb_buf_putc(b, *s == '\n' ? ' ' : *s);
    }
    arb_buf_puts(b, tail);
    arb_buf_putc(b, '"');
}

/* Writes a token, quoting it when it would not read back as one token. */
static void
put_token(arb_buf_t *b, const char *s)
{
    if (needs_quote(s))
        put_quoted(b, s, "");
    else
        arb_buf_puts(b, s);
}

/* A header key and its colon, as one word. */
static void
put_key(arb_buf_t *b, const char *key)
{
    if (needs_quote(key)) {
        put_quoted(b, key, ":");
    } else {
        arb_buf_puts(b, key);
        arb_buf_putc(b, ':');
    }
}

/* Text read back by joining its words with single blanks (a header value,
 * a reason): written as its words when that join gives it back, else as
 * one quoted word, so quotes, '#', backslashes and runs of blanks
 * survive. */
static void
put_text(arb_buf_t *b, const char *s)
{
    const char *p = s, *sp;
    char        w[LINE_MAX_LEN + 1];
    size_t      n;

    for (;;) {
        sp = strchr(p, ' ');
        n = sp ? (size_t)(sp - p) : strlen(p);
        if (n == 0 || n > LINE_MAX_LEN)
            break;
        memcpy(w, p, n);
        w[n] = '\0';
        if (needs_quote(w))
            break;
        if (sp == NULL) {
            arb_buf_puts(b, s);
            return;
        }
        p = sp + 1;
    }
    put_quoted(b, s, "");
}

static void
put_words(arb_buf_t *b, const char *s)
{
    /* Free text after `--` or `note` is written as is, newlines folded. */
    for (; *s; s++)
        arb_buf_putc(b, *s == '\n' || *s == '\r' ? ' ' : *s);
}

/* A reason after the words of its event: as put_text, but one of many
 * words goes as one quoted word, so that its line keeps within the
 * words a line holds whatever the move before it (until 2026-12-06 a
 * reason of more than 64 words did not read back). */
#define REASON_WORDS 24

static void
put_reason(arb_buf_t *b, const char *s)
{
    const char *p;
    size_t      words = 1;

    for (p = s; *p != '\0'; p++)
        words += *p == ' ';
    if (words > REASON_WORDS)
        put_quoted(b, s, "");
    else
        put_text(b, s);
}

/* A note's text as it reads back (parse_event): as it is, or one quoted
 * word when blanks at an end would be lost or a leading quote would be
 * read as quoting (until 2026-12-06 such notes changed through a
 * transcript). */
static void
note_text(arb_buf_t *b, const char *s)
{
    size_t n = strlen(s);

    if (n > 0 && (s[0] == ' ' || s[0] == '\t' || s[0] == '"'
                  || s[n - 1] == ' ' || s[n - 1] == '\t'))
        put_quoted(b, s, "");
    else
        put_words(b, s);
}

static void
event_line(arb_buf_t *b, const arb_event_t *ev)
{
    size_t i;

    switch (ev->kind) {
    case ARB_EV_NOTE:
        arb_buf_puts(b, "note ");
        note_text(b, ev->text ? ev->text : "");
        return;
    case ARB_EV_CLOSE:
        arb_buf_puts(b, "close");
        if (ev->nargs == 2) {
            arb_buf_putc(b, ' ');
            put_token(b, ev->args[0]);
            arb_buf_putc(b, ' ');
            /* The cards were read as words joined by single blanks: a
             * word holding a blank or a quote (`"K "`) goes back as one
             * quoted word, or it would read back otherwise. */
            if (strcmp(ev->args[0], "order") == 0)
                put_text(b, ev->args[1]);
            else
                put_token(b, ev->args[1]);
        }
        if (ev->text != NULL) {
            arb_buf_puts(b, " -- ");
            put_reason(b, ev->text);
        }
        return;
    case ARB_EV_VOID:
        arb_buf_printf(b, "void %" PRIu64, ev->target);
        break;
    case ARB_EV_AMEND:
        arb_buf_printf(b, "amend %" PRIu64 " ", ev->target);
        break;
    case ARB_EV_STANDS:
        arb_buf_puts(b, "stands ");
        break;
    case ARB_EV_CLAIM:
        arb_buf_puts(b, "claim");
        if (ev->player != NULL) {
            arb_buf_putc(b, ' ');
            put_token(b, ev->player);
        }
        /* The document is the records (args) and {"totals":...} (text)
         * joined: {"records":[...],"totals":{...}}. */
        arb_buf_puts(b, " -- {\"records\":[");
        for (i = 0; i < ev->nargs; i++) {
            if (i > 0)
                arb_buf_putc(b, ',');
            put_words(b, ev->args[i]);
        }
        arb_buf_puts(b, "],");
        if (ev->text != NULL && ev->text[0] == '{')
            put_words(b, ev->text + 1);
        else
            arb_buf_puts(b, "\"totals\":{}}");
        return;
    default:
        break;
    }
    if (ev->kind == ARB_EV_MOVE || ev->kind == ARB_EV_AMEND
        || ev->kind == ARB_EV_STANDS) {
        put_token(b, ev->verb ? ev->verb : "?");
        arb_buf_putc(b, ' ');
        put_token(b, ev->player ? ev->player : "?");
        for (i = 0; i < ev->nargs; i++) {
            arb_buf_putc(b, ' ');
            put_token(b, ev->args[i]);
        }
    }
    if (ev->text != NULL && ev->kind != ARB_EV_MOVE) {
        arb_buf_puts(b, " -- ");
        put_reason(b, ev->text);
    }
}

/* Appends what was written to b from `from` on again, cleaned: a record
 * made before 2026-12-05 may hold a control character, which a
 * transcript (printable text only) shows as \xNN (core/text.h). */
static void
clean_from(arb_buf_t *b, size_t from, int keep_lines)
{
    arb_buf_t raw = ARB_BUF_INIT;

    if (b->oom || arb_text_control(b->data + from, b->len - from, NULL) < 0)
        return;
    arb_buf_add(&raw, b->data + from, b->len - from);
    if (raw.oom) {
        b->oom = 1;
        return;
    }
    b->len = from;
    arb_text_clean(b, raw.data, raw.len, keep_lines);
    arb_buf_free(&raw);
}

void
arb_transcript_event_line(arb_buf_t *b, const arb_event_t *ev)
{
    size_t from = b->len;

    event_line(b, ev);
    clean_from(b, from, 0);
}

int
arb_transcript_format(arb_buf_t *b, const arb_event_t *open,
                      const arb_event_t *events, size_t n)
{
    const arb_setup_t *s = open->setup;
    size_t             i, from = b->len;

    if (s == NULL)
        return ARB_EINVAL;
    arb_buf_puts(b, "game: ");
    put_token(b, s->game);
    arb_buf_puts(b, "\nmatch: ");
    put_token(b, s->match_id);
    if (s->edition) {
        arb_buf_puts(b, "\nedition: ");
        put_text(b, s->edition);
    }
    if (s->engine) {
        arb_buf_puts(b, "\nengine: ");
        put_text(b, s->engine);
    }
    if (s->nteams > 0) {
        arb_buf_puts(b, "\nteams:");
        for (i = 0; i < s->nteams; i++) {
            arb_buf_putc(b, ' ');
            put_token(b, s->teams[i]);
        }
    }
    arb_buf_puts(b, "\nplayers:");
    for (i = 0; i < s->nplayers; i++) {
        arb_buf_putc(b, ' ');
        if (s->players[i].team >= 0
            && (size_t)s->players[i].team < s->nteams) {
            /* name:team is read as one word, so it is quoted (or not) as
             * one: `"--":s` would not read, and `--:s` is no separator. */
            arb_buf_t w = ARB_BUF_INIT;

            arb_buf_printf(&w, "%s:%s", s->players[i].name,
                           s->teams[s->players[i].team]);
            if (w.oom)
                b->oom = 1;
            else
                put_token(b, arb_buf_cstr(&w));
            arb_buf_free(&w);
        } else {
            put_token(b, s->players[i].name);
        }
    }
    for (i = 0; i < s->noptions; i++) {
        arb_buf_t k = ARB_BUF_INIT;

        arb_buf_putc(b, '\n');
        if (option_prefixed(s->options[i].key))
            arb_buf_puts(&k, OPTION_PREFIX);
        arb_buf_puts(&k, s->options[i].key);
        if (k.oom)
            b->oom = 1;
        else
            put_key(b, arb_buf_cstr(&k));
        arb_buf_free(&k);
        arb_buf_putc(b, ' ');
        put_text(b, s->options[i].value);
    }
    if (s->deal.kind == ARB_DEAL_SEED) {
        arb_buf_puts(b, "\ndeal: seed ");
        put_token(b, s->deal.seed ? s->deal.seed : "");
    } else if (s->deal.kind == ARB_DEAL_ORDER) {
        arb_buf_puts(b, "\ndeal: order");
        for (i = 0; i < s->deal.ncards; i++) {
            arb_buf_putc(b, ' ');
            put_token(b, s->deal.cards[i]);
        }
    } else if (s->deal.kind == ARB_DEAL_COMMIT) {
        arb_buf_puts(b, "\ndeal: commit ");
        for (i = 0; i < ARB_HASH_LEN; i++)
            arb_buf_printf(b, "%02x", s->deal.seed_hash[i]);
    }
    arb_buf_puts(b, "\n\n");
    clean_from(b, from, 1);
    for (i = 0; i < n; i++) {
        arb_buf_printf(b, "%zu. ", i + 1);
        arb_transcript_event_line(b, &events[i]);
        arb_buf_putc(b, '\n');
    }
    return b->oom ? ARB_ENOMEM : 0;
}
