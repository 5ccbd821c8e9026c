#ifndef ARB_VERSION_H
#define ARB_VERSION_H
/* The engine version pinned in every match header, so a verdict can be
 * reproduced with the engine that gave it. */
#define ARB_VERSION "0.1.0"
#define ARB_ENGINE  "arbiter " ARB_VERSION
#endif
