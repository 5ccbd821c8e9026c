/*
 * verdict_once.h - a refusal names its rule once.
 * Every display prints "<rule>: <message>" (the recorder's answer, replay,
 * diff, the console), so a message that starts with its own rule would show
 * it twice ("Seniority: Seniority: J♥ ...").  The rule tests check this on
 * every refusal they provoke.
 */
#ifndef ARB_TEST_VERDICT_ONCE_H
#define ARB_TEST_VERDICT_ONCE_H

#include <string.h>

#include "core/rules.h"

static inline int
verdict_named_once(const arb_verdict_t *v)
{
    size_t n = strlen(v->rule);

    return v->code == 0 || n == 0
           || strncmp(v->msg, v->rule, n) != 0 || v->msg[n] != ':';
}

#endif
