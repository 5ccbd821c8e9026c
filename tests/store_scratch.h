/*
 * store_scratch.h - stores in subdirectories of one scratch directory,
 * for the unit tests that make and damage many small stores.  Test-only.
 *
 * The test fills `base` (mkdtemp) before the first use; subdir(name) is
 * its store `name` (a static buffer: one path at a time); rm_store
 * removes every file a store may hold, then the directory.
 */
#ifndef ARB_TEST_STORE_SCRATCH_H
#define ARB_TEST_STORE_SCRATCH_H

#include <stdio.h>
#include <unistd.h>

static char base[64];

static const char *
subdir(const char *name)
{
    static char path[128];

    snprintf(path, sizeof(path), "%s/%s", base, name);
    return path;
}

static void
rm_store(const char *name)
{
    static const char *const f[] = { "data.mdb", "lock.mdb", "index.mdb",
                                     "index.mdb-lock", "wal.0", "wal.1" };
    char                     p[200];
    size_t                   i;

    for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
        snprintf(p, sizeof(p), "%s/%s", subdir(name), f[i]);
        unlink(p);
    }
    rmdir(subdir(name));
}

#endif
