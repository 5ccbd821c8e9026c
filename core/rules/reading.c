/*
 * reading.c - the edition and the options of a match (reading.h).
 */
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "core/rules/reading.h"

int
arb_rules_edition(const arb_setup_t *s, const char *const *editions, int n,
                  arb_verdict_t *v)
{
    int i;

    if (s->edition == NULL)
        return 0;
    for (i = 0; i < n; i++)
        if (strcmp(s->edition, editions[i]) == 0)
            return i;
    return arb_verdict(v, ARB_EUNSUPP, "open", "edition '%s' is not "
                       "supported: this engine implements %s%s%s%s",
                       s->edition, editions[0],
                       n > 1 ? " and replays records of " : "",
                       n > 1 ? editions[1] : "", n > 2 ? " and older" : "");
}

int
arb_rules_choice(const arb_setup_t *s, const char *key,
                 const char *const *values, int n, int dflt, int *out,
                 arb_verdict_t *v)
{
    const char *o = arb_setup_option(s, key);
    char        list[160];
    size_t      len = 0;
    int         i;

    *out = dflt;
    if (o == NULL)
        return 0;
    for (i = 0; i < n; i++)
        if (strcmp(o, values[i]) == 0) {
            *out = i;
            return 0;
        }
    list[0] = '\0';
    for (i = 0; i < n && len < sizeof(list); i++)
        len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
                                i == 0 ? "" : i == n - 1 ? " or " : ", ",
                                values[i]);
    return arb_verdict(v, ARB_EINVAL, "setup", "%s '%s' is not a reading "
                       "of this rule set: choose %s", key, o, list);
}
