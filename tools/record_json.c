/*
 * record_json.c - the console reads a rule set's position JSON through the
 * project's one JSON reader (core/jsonin.h); these are its few accessors.
 */
#include <stddef.h>

#include "tools/record.h"

int
rec_json_parse(rec_json_t **out, const char *s, size_t len)
{
    *out = NULL;
    return arb_jv_parse(out, s, len, NULL);
}

void
rec_json_free(rec_json_t *j)
{
    arb_jv_free(j);
}

const rec_json_t *
rec_json_get(const rec_json_t *j, const char *key)
{
    return j != NULL ? arb_jv_get(j, key) : NULL;
}

const char *
rec_json_str(const rec_json_t *j)
{
    return j != NULL && j->type == ARB_JV_STR ? j->str : NULL;
}

long long
rec_json_int(const rec_json_t *j, long long dflt)
{
    return j != NULL && j->type == ARB_JV_INT ? (long long)j->num : dflt;
}
