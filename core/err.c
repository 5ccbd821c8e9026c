#include "err.h"

const char *
arb_strerror(int rc)
{
    static const char *const names[] = {
        "ok",
        "out of memory",
        "invalid argument",
        "illegal move",
        "protocol error",
        "limit exceeded",
        "input/output error",
        "not found",
        "already exists",
        "expected seq does not match",
        "storage full",
        "storage engine failure",
        "permission denied",
        "match is over",
        "signature or hash check failed",
        "unsupported",
        "try again later",
        "stored data is corrupt",
        "deal secret not held here",
    };

    if (rc > 0 || rc < ARB_E_LAST)
        return "unknown error";
    return names[-rc];
}
