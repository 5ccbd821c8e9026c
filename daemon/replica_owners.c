/*
 * replica_owners.c - DATA/replica.owners (daemon/replica_owners.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "daemon/replica_owners.h"
#include "proto/stream.h"

typedef struct owner {
    char   *id;
    char    rec[ARB_STREAM_NAME_MAX + 1];
    size_t  line;
} owner_t;

struct arb_owners {
    owner_t *v;             /* sorted by id, one per id */
    size_t   n, cap;
    FILE    *f;             /* appending */
};

static int
by_id_line(const void *a, const void *b)
{
    const owner_t *x = a, *y = b;
    int            c = strcmp(x->id, y->id);

    if (c != 0)
        return c;
    return x->line < y->line ? -1 : x->line > y->line;
}

/* "MATCH RECORDER" (the newline gone) into the table: 1, 0 when the line
 * is not one, -1 out of memory. */
static int
add_line(arb_owners_t *o, char *line, size_t no)
{
    char *sp = strchr(line, ' ');

    if (sp == NULL)
        return 0;
    *sp = '\0';
    if (!arb_stream_id_ok(line) || !arb_stream_name_ok(sp + 1))
        return 0;
    if (o->n == o->cap) {
        size_t   cap = o->cap ? 2 * o->cap : 256;
        owner_t *v = realloc(o->v, cap * sizeof(*v));

        if (v == NULL)
            return -1;
        o->v = v;
        o->cap = cap;
    }
    if ((o->v[o->n].id = strdup(line)) == NULL)
        return -1;
    snprintf(o->v[o->n].rec, sizeof(o->v[o->n].rec), "%s", sp + 1);
    o->v[o->n++].line = no;
    return 1;
}

/* Reads f line by line; a line too long to be one is skipped whole. */
static int
load(arb_owners_t *o, FILE *f, size_t *skipped)
{
    char   buf[ARB_STREAM_ID_MAX + ARB_STREAM_NAME_MAX + 8];
    size_t no = 0, w, i;
    int    rc, longline = 0;

    while (fgets(buf, sizeof(buf), f) != NULL) {
        size_t len = strlen(buf);

        if (len == 0 || buf[len - 1] != '\n') {
            if (!feof(f)) {
                longline = 1;       /* the rest of it comes next */
                continue;
            }
            (*skipped)++;           /* the last line, cut short */
            break;
        }
        no++;
        if (longline) {
            longline = 0;
            (*skipped)++;
            continue;
        }
        buf[len - 1] = '\0';
        rc = add_line(o, buf, no);
        if (rc < 0)
            return ARB_ENOMEM;
        *skipped += rc == 0;
    }
    if (ferror(f))
        return ARB_EIO;
    /* One entry per match: its last line. */
    qsort(o->v, o->n, sizeof(*o->v), by_id_line);
    for (i = 0, w = 0; i < o->n; i++) {
        if (i + 1 < o->n && strcmp(o->v[i].id, o->v[i + 1].id) == 0) {
            free(o->v[i].id);
            continue;
        }
        o->v[w++] = o->v[i];
    }
    o->n = w;
    return 0;
}

int
arb_owners_open(arb_owners_t **out, const char *path, size_t *skipped,
                arb_buf_t *why)
{
    arb_owners_t *o = calloc(1, sizeof(*o));
    FILE         *f;
    int           rc = 0;

    *out = NULL;
    *skipped = 0;
    if (o == NULL)
        return ARB_ENOMEM;
    f = fopen(path, "r");
    if (f != NULL) {
        rc = load(o, f, skipped);
        if (rc == ARB_EIO)
            arb_buf_printf(why, "%s: %s", path, strerror(errno));
        fclose(f);
    } else if (errno != ENOENT) {
        arb_buf_printf(why, "%s: %s", path, strerror(errno));
        rc = ARB_EIO;
    }
    if (rc == 0 && (o->f = fopen(path, "a")) == NULL) {
        arb_buf_printf(why, "%s: %s", path, strerror(errno));
        rc = ARB_EIO;
    }
    if (rc != 0) {
        arb_owners_free(o);
        return rc;
    }
    *out = o;
    return 0;
}

void
arb_owners_free(arb_owners_t *o)
{
    size_t i;

    if (o == NULL)
        return;
    if (o->f != NULL)
        fclose(o->f);
    for (i = 0; i < o->n; i++)
        free(o->v[i].id);
    free(o->v);
    free(o);
}

const char *
arb_owners_get(const arb_owners_t *o, const char *match_id)
{
    size_t lo = 0, hi;

    if (o == NULL)
        return NULL;
    hi = o->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int    c = strcmp(o->v[mid].id, match_id);

        if (c == 0)
            return o->v[mid].rec;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

void
arb_owners_note(arb_owners_t *o, const char *match_id, const char *recorder,
                int first)
{
    const char *had;

    if (o == NULL || o->f == NULL)
        return;
    had = first ? arb_owners_get(o, match_id) : NULL;
    if (had != NULL && strcmp(had, recorder) == 0)
        return;
    fprintf(o->f, "%s %s\n", match_id, recorder);
}

int
arb_owners_flush(arb_owners_t *o)
{
    if (o == NULL || o->f == NULL)
        return 0;
    return fflush(o->f) == 0 ? 0 : -1;
}

size_t
arb_owners_count(const arb_owners_t *o)
{
    return o == NULL ? 0 : o->n;
}
