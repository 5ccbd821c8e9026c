/*
 * replay_text.h - what every rule-set test needs: a match replayed from a
 * transcript held in a string, and its digest and totals.  Header-only
 * because each test is one executable; the functions are inline so a test
 * that uses some of them compiles without unused-function warnings.
 */
#ifndef ARB_TEST_REPLAY_TEXT_H
#define ARB_TEST_REPLAY_TEXT_H

#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "core/match.h"
#include "core/replay.h"
#include "core/transcript.h"

/* Why the last replay_text() refused: the parser's or the rule's message,
 * and the rule's name. */
static char last_msg[400];
static char last_rule[64];

/* The match after event `at` (UINT64_MAX: all), or NULL when the text or
 * an event is refused.  Release with arb_match_free(). */
static inline arb_match_t *
replay_text(const char *text, uint64_t at)
{
    arb_history_t    t;
    arb_buf_t        why = ARB_BUF_INIT;
    arb_match_t     *m = NULL;
    arb_verdict_t    v;
    size_t           bad;
    int              rc;

    memset(&v, 0, sizeof(v));
    last_msg[0] = last_rule[0] = '\0';
    rc = arb_transcript_parse(&t, text, strlen(text), &why);
    if (rc != 0) {
        snprintf(last_msg, sizeof(last_msg), "%s", arb_buf_cstr(&why));
        arb_buf_free(&why);
        return NULL;
    }
    rc = arb_replay(&m, &t.open, t.events, t.nevents, at, &bad, &v);
    snprintf(last_msg, sizeof(last_msg), "%s", v.msg);
    snprintf(last_rule, sizeof(last_rule), "%s", v.rule);
    if (rc != 0) {
        arb_match_free(m);
        m = NULL;
    }
    arb_history_clear(&t);
    arb_buf_free(&why);
    return m;
}

static inline arb_match_t *
open_text(const char *text)
{
    return replay_text(text, UINT64_MAX);
}

static inline void
digest_hex(const arb_match_t *m, char hex[ARB_HASH_HEX])
{
    unsigned char d[ARB_HASH_LEN];
    int           i;

    arb_match_digest(m, d);
    for (i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

/* The total of a player or team, or -1 when there is none of that name. */
static inline int64_t
total_of(const arb_match_t *m, const char *name)
{
    arb_results_t r;
    int64_t       pts = -1;
    size_t        i;

    if (arb_match_results(m, &r) != 0)
        return -1;
    for (i = 0; i < r.ntotals; i++)
        if (strcmp(r.totals[i].name, name) == 0)
            pts = r.totals[i].points;
    arb_results_clear(&r);
    return pts;
}

/* A whole file as a NUL-terminated string (malloc'd), or NULL. */
static inline char *
slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long  n;

    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf != NULL)
        buf[n] = '\0';
    return buf;
}

/* A report's "digest":"<hex>" turned into "digest":null in place: what
 * a viewer who does not see every hand gets of a running match that
 * hides cards (core/view.h arb_view_hides_digest). */
static inline void
digest_to_null(char *s)
{
    char *p = strstr(s, "\"digest\":\"");

    if (p != NULL && strlen(p) >= 10 + 64 + 1 && p[10 + 64] == '"') {
        memcpy(p + 9, "null", 4);
        memmove(p + 13, p + 10 + 64 + 1, strlen(p + 10 + 64 + 1) + 1);
    }
}

/* 1 for the rule sets that hide cards (a deal, concealed moves). */
static inline int
game_hides(const char *game)
{
    return strcmp(game, "chains") == 0 || strcmp(game, "chan") == 0
           || strcmp(game, "tsukurutenten") == 0;
}

#endif
