/*
 * err.h - the one error vocabulary of arbiter.
 *
 * Every fallible function returns 0 or a negative ARB_E* code; arb_strerror()
 * names it.  Rule violations are not errors of the program: a rule set
 * reports them as ARB_EILLEGAL plus a verdict (code + human message), see
 * core/rules.h.
 */
#ifndef ARB_ERR_H
#define ARB_ERR_H

#define ARB_OK          0
#define ARB_ENOMEM    (-1)   /* out of memory */
#define ARB_EINVAL    (-2)   /* bad argument or malformed input */
#define ARB_EILLEGAL  (-3)   /* the move breaks a rule (see the verdict) */
#define ARB_EPROTO    (-4)   /* malformed frame or message */
#define ARB_ETOOBIG   (-5)   /* a limit was exceeded */
#define ARB_EIO       (-6)   /* read/write/fsync failed */
#define ARB_ENOTFOUND (-7)   /* no such match, event or key */
#define ARB_EEXIST    (-8)   /* already exists */
#define ARB_ECONFLICT (-9)   /* expected seq does not match */
#define ARB_EFULL     (-10)  /* storage full */
#define ARB_ESTORE    (-11)  /* storage engine failure */
#define ARB_EPERM     (-12)  /* not allowed for this identity/role */
#define ARB_EOVER     (-13)  /* the match is over */
#define ARB_ECRYPTO   (-14)  /* signature or hash check failed */
#define ARB_EUNSUPP   (-15)  /* unknown game, version or kind */
#define ARB_EAGAIN    (-16)  /* try again later (queue full) */
#define ARB_ECORRUPT  (-17)  /* stored data does not verify */
#define ARB_ESEALED   (-18)  /* a dealt match's hidden cards are not known
                                here (a read replica without its secret) */
#define ARB_E_LAST    (-18)

/* Never NULL; a static string. */
const char *arb_strerror(int rc);

#endif
