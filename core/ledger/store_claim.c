/*
 * store_claim.c - one open handle per store directory per process.
 *
 * LMDB records that an environment's lock file is in use with fcntl
 * locks, and fcntl locks belong to the process, not to a handle.  A
 * second mdb_env_open of the same files in one process is therefore
 * granted the "exclusive" lock that means nobody else has the file, and
 * initialises the reader table again: every reader of the first handle
 * is forgotten, so its writer reuses pages those readers still read (the
 * index writer then found log records missing) and the snapshot the
 * journal's checkpoint pins is no longer protected.  Closing either
 * handle drops the other's locks as well.  LMDB's documentation forbids
 * it ("do not have open an LMDB database twice in the same process");
 * this makes the store refuse it, naming the directory, instead of
 * corrupting readers at random.
 *
 * Claims are keyed by the directory's device and inode (two spellings of
 * one path are one store) and by process id: a child made by fork()
 * inherits the table but not the locks, and may open what its parent has
 * open, as another process may.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/err.h"
#include "core/ledger/store_int.h"

typedef struct claim {
    dev_t         dev;
    ino_t         ino;
    pid_t         pid;
    struct claim *next;
} claim_t;

static pthread_mutex_t claims_lock = PTHREAD_MUTEX_INITIALIZER;
static claim_t        *claims;

static claim_t **
claim_find(dev_t dev, ino_t ino, pid_t pid)
{
    claim_t **p;

    for (p = &claims; *p != NULL; p = &(*p)->next)
        if ((*p)->dev == dev && (*p)->ino == ino && (*p)->pid == pid)
            return p;
    return NULL;
}

int
arb__dir_claim(const struct stat *st, const char *dir, arb_buf_t *why)
{
    claim_t *c;
    pid_t    pid = getpid();
    int      rc = 0;

    pthread_mutex_lock(&claims_lock);
    if (claim_find(st->st_dev, st->st_ino, pid) != NULL) {
        arb__why(why, "%s: this store is already open in this process "
                 "(LMDB allows one handle per store per process; share "
                 "the open handle)", dir);
        rc = ARB_EPERM;
    } else if ((c = malloc(sizeof(*c))) == NULL) {
        rc = ARB_ENOMEM;
    } else {
        c->dev = st->st_dev;
        c->ino = st->st_ino;
        c->pid = pid;
        c->next = claims;
        claims = c;
    }
    pthread_mutex_unlock(&claims_lock);
    return rc;
}

int
arb__dir_claimed(const struct stat *st)
{
    int held;

    pthread_mutex_lock(&claims_lock);
    held = claim_find(st->st_dev, st->st_ino, getpid()) != NULL;
    pthread_mutex_unlock(&claims_lock);
    return held;
}

void
arb__dir_release(const struct stat *st)
{
    claim_t **p, *c;

    pthread_mutex_lock(&claims_lock);
    p = claim_find(st->st_dev, st->st_ino, getpid());
    if (p != NULL) {
        c = *p;
        *p = c->next;
        free(c);
    }
    pthread_mutex_unlock(&claims_lock);
}
