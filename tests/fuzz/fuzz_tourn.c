/*
 * fuzz_tourn.c - a tournament's pairing list and tables (core/tourn.c):
 * the CSV of `arbiter tournament round --pairings FILE` and the
 * "TABLE:MATCH:P1,P2" argument of the director's `round` act, on
 * arbitrary bytes.  The whole input is read as a pairing list, and up to
 * its first NUL as a table.
 *
 * Invariants: a list read has 1..ARB_TOURN_ROWS_MAX rows, each with a
 * round from 1 to 999999, a valid table name and 1..ARB_PLAYERS_MAX valid
 * players none twice, line numbers rising; written back as CSV it reads
 * as the same rows; a refusal says which line (or that there is no
 * table).  A table read, formatted and read again is the same table.
 *
 * Corpus: tests/fuzz/corpus/tourn (pairing lists, table arguments).
 */
#include <stdint.h>
#include <string.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/event.h"
#include "core/limits.h"
#include "core/tourn.h"
#include "tests/fuzz/fuzz.h"

static int
same_table(const arb_tourn_table_t *a, const arb_tourn_table_t *b)
{
    size_t i;

    if (strcmp(a->table, b->table) != 0 || a->nplayers != b->nplayers
        || (a->match == NULL) != (b->match == NULL)
        || (a->match != NULL && strcmp(a->match, b->match) != 0))
        return 0;
    for (i = 0; i < a->nplayers; i++)
        if (strcmp(a->players[i], b->players[i]) != 0)
            return 0;
    return 1;
}

static void
check_players(const arb_tourn_table_t *t)
{
    size_t i, j;

    FUZZ_CHECK(t->nplayers >= 1 && t->nplayers <= ARB_PLAYERS_MAX);
    for (i = 0; i < t->nplayers; i++) {
        FUZZ_CHECK(arb_name_valid(t->players[i]));
        for (j = 0; j < i; j++)
            FUZZ_CHECK(strcmp(t->players[i], t->players[j]) != 0);
    }
}

static void
check_pairing(const char *text, size_t len)
{
    arb_pairing_t p, q;
    arb_buf_t     why = ARB_BUF_INIT, csv = ARB_BUF_INIT;
    size_t        i, k;
    int           rc;

    rc = arb_pairing_parse(&p, text, len, &why);
    if (rc != 0) {
        FUZZ_CHECK(rc == ARB_EINVAL || rc == ARB_ETOOBIG
                   || rc == ARB_ENOMEM);
        FUZZ_CHECK(rc == ARB_ENOMEM || why.oom
                   || strncmp(arb_buf_cstr(&why), "line ", 5) == 0
                   || strncmp(arb_buf_cstr(&why), "no tables", 9) == 0);
        FUZZ_CHECK(p.nrows == 0 && p.rows == NULL);
        arb_buf_free(&why);
        return;
    }
    FUZZ_CHECK(p.nrows >= 1 && p.nrows <= ARB_TOURN_ROWS_MAX);
    for (i = 0; i < p.nrows; i++) {
        FUZZ_CHECK(p.rows[i].round >= 1 && p.rows[i].round <= 999999);
        FUZZ_CHECK(arb_name_valid(p.rows[i].t.table));
        FUZZ_CHECK(p.rows[i].t.match == NULL);
        FUZZ_CHECK(i == 0 || p.rows[i].line > p.rows[i - 1].line);
        check_players(&p.rows[i].t);
        arb_buf_printf(&csv, "%llu,%s", (unsigned long long)p.rows[i].round,
                       p.rows[i].t.table);
        for (k = 0; k < p.rows[i].t.nplayers; k++)
            arb_buf_printf(&csv, ",%s", p.rows[i].t.players[k]);
        arb_buf_puts(&csv, "\n");
    }
    FUZZ_CHECK(!csv.oom);
    FUZZ_CHECK(arb_pairing_parse(&q, csv.data, csv.len, &why) == 0);
    FUZZ_CHECK(q.nrows == p.nrows);
    for (i = 0; i < p.nrows; i++) {
        FUZZ_CHECK(q.rows[i].round == p.rows[i].round);
        FUZZ_CHECK(q.rows[i].line == i + 1);
        FUZZ_CHECK(same_table(&q.rows[i].t, &p.rows[i].t));
    }
    arb_pairing_clear(&q);
    arb_pairing_clear(&p);
    arb_buf_free(&csv);
    arb_buf_free(&why);
}

static void
check_table(const char *text, size_t len)
{
    arb_tourn_table_t t, u;
    arb_verdict_t     v;
    arb_buf_t         s = ARB_BUF_INIT, b = ARB_BUF_INIT;
    int               rc;

    memset(&v, 0, sizeof(v));
    arb_buf_add(&s, text, strnlen(text, len));
    FUZZ_CHECK(!s.oom);
    rc = arb_tourn_table_parse(&t, arb_buf_cstr(&s), &v);
    if (rc != 0) {
        FUZZ_CHECK(rc == ARB_EINVAL || rc == ARB_ENOMEM);
        FUZZ_CHECK(rc == ARB_ENOMEM || v.msg[0] != '\0');
        FUZZ_CHECK(t.table == NULL && t.players == NULL);
        arb_buf_free(&s);
        return;
    }
    FUZZ_CHECK(arb_name_valid(t.table) && arb_name_valid(t.match));
    check_players(&t);
    arb_tourn_table_format(&b, &t);
    FUZZ_CHECK(!b.oom);
    FUZZ_CHECK(arb_tourn_table_parse(&u, arb_buf_cstr(&b), &v) == 0);
    FUZZ_CHECK(same_table(&t, &u));
    arb_tourn_table_clear(&u);
    arb_tourn_table_clear(&t);
    arb_buf_free(&b);
    arb_buf_free(&s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_pairing((const char *)data, size);
    check_table((const char *)data, size);
    return 0;
}
