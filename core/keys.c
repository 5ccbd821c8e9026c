/*
 * keys.c - the signing key files (see keys.h for the format).
 *
 * DESIGN: a key file is written to a temporary name, fsync'd, then put in
 * place (arb_smallfile_put); the secret with link(2), which fails instead
 * of replacing an existing key, the public half with rename(2), because
 * it can always be derived again from the secret.  Both are then fsync'd
 * through the directory, so a crash leaves either no key or a complete
 * one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "core/ledger/chain.h"
#include "core/err.h"
#include "core/keys.h"
#include "core/smallfile.h"

#define KEY_FILE_MAX 4096           /* far more than a key file needs */

static void
path_of(char *out, size_t n, const char *dir, const char *name)
{
    snprintf(out, n, "%s/%s", dir, name);
}

static int fail(arb_buf_t *why, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Replaces why (when not NULL) with the message; returns rc. */
static int
fail(arb_buf_t *why, int rc, const char *fmt, ...)
{
    va_list ap;
    char    msg[1024];

    if (why != NULL) {
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        arb_buf_free(why);
        arb_buf_puts(why, msg);
    }
    return rc;
}

/* The first word that is not on a '#' line, copied into word[cap]. */
static int
first_word(const char *text, size_t len, char *word, size_t cap)
{
    size_t i = 0, n;

    for (;;) {
        while (i < len && (text[i] == ' ' || text[i] == '\t'
                           || text[i] == '\r' || text[i] == '\n'))
            i++;
        if (i < len && text[i] == '#') {
            while (i < len && text[i] != '\n')
                i++;
            continue;
        }
        break;
    }
    for (n = 0; i + n < len && text[i + n] != ' ' && text[i + n] != '\t'
                && text[i + n] != '\r' && text[i + n] != '\n'; n++)
        ;
    /* A NUL inside the word would cut it short: "<key>\0junk" is not a
     * key file. */
    if (n == 0 || n >= cap || memchr(text + i, '\0', n) != NULL)
        return -1;
    memcpy(word, text + i, n);
    word[n] = '\0';
    return 0;
}

/* Reads a small file; *mode gets its permission bits. */
static int
read_small(const char *path, char *buf, size_t cap, size_t *len,
           mode_t *mode, arb_buf_t *why)
{
    struct stat st;
    ssize_t     r;
    int         fd, e;

    /* O_NONBLOCK: a FIFO named by --pubkey would block open() until a
     * writer came; this way it opens at once and is refused as not a
     * regular file (the flag does nothing to a regular file). */
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        e = errno;
        return fail(why, e == ENOENT ? ARB_ENOTFOUND
                         : e == EACCES ? ARB_EPERM : ARB_EIO,
                    "%s: %s", path, strerror(e));
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return fail(why, ARB_EIO, "%s: not a regular file", path);
    }
    *mode = st.st_mode & 07777;
    *len = 0;
    while (*len < cap) {
        r = read(fd, buf + *len, cap - *len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            e = errno;
            close(fd);
            return fail(why, ARB_EIO, "%s: %s", path, strerror(e));
        }
        if (r == 0)
            break;
        *len += (size_t)r;
    }
    close(fd);
    if (*len == cap)
        return fail(why, ARB_ECORRUPT, "%s: too large for a key file",
                    path);
    return 0;
}

/* Reads the hex key of `path` into out[n]. */
static int
read_hex(const char *path, unsigned char *out, size_t n, mode_t *mode,
         arb_buf_t *why)
{
    char   buf[KEY_FILE_MAX], word[2 * ARB_SECKEY_LEN + 2];
    size_t len = 0;
    int    rc;

    rc = read_small(path, buf, sizeof(buf), &len, mode, why);
    if (rc != 0)
        return rc;
    if (first_word(buf, len, word, sizeof(word)) != 0
        || arb_unhex(out, n, word) != 0) {
        sodium_memzero(buf, sizeof(buf));
        sodium_memzero(word, sizeof(word));
        if (why != NULL) {
            arb_buf_free(why);
            arb_buf_printf(why, "%s: not a key file (expected %zu hex "
                           "digits)", path, 2 * n);
        }
        return ARB_ECORRUPT;
    }
    sodium_memzero(buf, sizeof(buf));
    sodium_memzero(word, sizeof(word));
    return 0;
}

/* Writes text to DIR/name with exactly `mode`, durably (file and name).
 * With `replace` 0 an existing file is kept and ARB_EEXIST returned. */
static int
write_key_file(const char *dir, const char *name, const char *text,
               mode_t mode, int replace, arb_buf_t *why)
{
    char final[4096];

    path_of(final, sizeof(final), dir, name);
    if (arb_smallfile_put(final, text, strlen(text), mode, replace) == 0)
        return 0;
    return fail(why, errno == EEXIST ? ARB_EEXIST : ARB_EIO, "%s: %s",
                final, strerror(errno));
}

static int
write_public(const char *dir, const unsigned char pk[ARB_PUBKEY_LEN],
             arb_buf_t *why)
{
    char text[2 * ARB_PUBKEY_LEN + 2];

    arb_hex(text, pk, ARB_PUBKEY_LEN);
    strcat(text, "\n");
    return write_key_file(dir, ARB_KEY_PUBLIC_FILE, text, 0644, 1, why);
}

int
arb_keys_create(const char *dir, int *created, arb_buf_t *why)
{
    arb_keypair_t kp;
    char          text[2 * ARB_SECKEY_LEN + 2], path[4096];
    struct stat   st;
    int           rc;

    if (created != NULL)
        *created = 0;
    if (arb_crypto_init() != 0)
        return fail(why, ARB_ECRYPTO, "libsodium failed to initialise");
    path_of(path, sizeof(path), dir, ARB_KEY_SECRET_FILE);
    if (stat(path, &st) != 0) {
        if (errno != ENOENT)
            return fail(why, ARB_EIO, "%s: %s", path, strerror(errno));
        path_of(path, sizeof(path), dir, ARB_KEY_PUBLIC_FILE);
        if (stat(path, &st) == 0)
            return fail(why, ARB_EEXIST, "%s exists but %s is missing: "
                        "restore the secret key, or remove the public one "
                        "to make a new pair (bundles signed before will "
                        "then need the old public key)", path,
                        ARB_KEY_SECRET_FILE);
        crypto_sign_keypair(kp.pk, kp.sk);
        arb_hex(text, kp.sk, ARB_SECKEY_LEN);
        strcat(text, "\n");
        rc = write_key_file(dir, ARB_KEY_SECRET_FILE, text, 0600, 0, why);
        sodium_memzero(text, sizeof(text));
        if (rc == 0) {
            rc = write_public(dir, kp.pk, why);
            if (rc == 0 && created != NULL)
                *created = 1;
        } else if (rc == ARB_EEXIST) {
            rc = 0;                 /* another process won the race */
        }
        arb_keypair_clear(&kp);
        return rc;
    }
    path_of(path, sizeof(path), dir, ARB_KEY_PUBLIC_FILE);
    if (stat(path, &st) == 0)
        return 0;
    rc = arb_keys_load(&kp, dir, why);
    if (rc == 0)
        rc = write_public(dir, kp.pk, why);
    arb_keypair_clear(&kp);
    return rc;
}

int
arb_keys_load(arb_keypair_t *kp, const char *dir, arb_buf_t *why)
{
    unsigned char pk[ARB_PUBKEY_LEN], sk[ARB_SECKEY_LEN];
    char          path[4096];
    mode_t        mode;
    int           rc;

    memset(kp, 0, sizeof(*kp));
    if (arb_crypto_init() != 0)
        return fail(why, ARB_ECRYPTO, "libsodium failed to initialise");
    path_of(path, sizeof(path), dir, ARB_KEY_SECRET_FILE);
    rc = read_hex(path, kp->sk, ARB_SECKEY_LEN, &mode, why);
    if (rc != 0)
        goto fail;
    if ((mode & 077) != 0) {
        rc = fail(why, ARB_EPERM, "%s: permissions %04o are too open: only "
                  "its owner may read the signing key (chmod 600)", path,
                  (unsigned)mode);
        goto fail;
    }
    /* The seed is the key; the stored public half must follow from it,
     * or the file was damaged. */
    crypto_sign_seed_keypair(pk, sk, kp->sk);
    if (sodium_memcmp(sk, kp->sk, ARB_SECKEY_LEN) != 0) {
        rc = fail(why, ARB_ECORRUPT, "%s: damaged: the public half does "
                  "not follow from the seed", path);
        goto fail;
    }
    memcpy(kp->pk, pk, ARB_PUBKEY_LEN);
    /* An absent public file has nothing to contradict; one that cannot
     * be read (EIO) or parsed stops the load like the secret would. */
    rc = arb_keys_load_public(pk, dir, why);
    if (rc == ARB_ENOTFOUND) {
        memcpy(pk, kp->pk, ARB_PUBKEY_LEN);
        rc = 0;
    }
    if (rc != 0)
        goto fail;
    if (memcmp(pk, kp->pk, ARB_PUBKEY_LEN) != 0) {
        path_of(path, sizeof(path), dir, ARB_KEY_PUBLIC_FILE);
        rc = fail(why, ARB_ECORRUPT, "%s: does not hold the public half "
                  "of %s", path, ARB_KEY_SECRET_FILE);
        goto fail;
    }
    sodium_memzero(sk, sizeof(sk));
    return 0;

fail:
    sodium_memzero(sk, sizeof(sk));
    arb_keypair_clear(kp);
    return rc;
}

int
arb_keys_load_public(unsigned char pk[ARB_PUBKEY_LEN], const char *dir,
                     arb_buf_t *why)
{
    char   path[4096];
    mode_t mode;

    path_of(path, sizeof(path), dir, ARB_KEY_PUBLIC_FILE);
    return read_hex(path, pk, ARB_PUBKEY_LEN, &mode, why);
}

int
arb_pubkey_parse(unsigned char pk[ARB_PUBKEY_LEN], const char *key,
                 arb_buf_t *why)
{
    mode_t mode;
    int    rc;

    if (key == NULL || *key == '\0')
        return fail(why, ARB_EINVAL, "empty public key");
    if (strlen(key) == 2 * ARB_PUBKEY_LEN
        && arb_unhex(pk, ARB_PUBKEY_LEN, key) == 0)
        return 0;
    rc = read_hex(key, pk, ARB_PUBKEY_LEN, &mode, why);
    if (rc == ARB_ENOTFOUND)
        return fail(why, ARB_EINVAL, "'%s' is neither 64 hex digits nor "
                    "a readable file", key);
    return rc == 0 ? 0 : rc == ARB_ECORRUPT ? ARB_EINVAL : rc;
}

void
arb_keypair_clear(arb_keypair_t *kp)
{
    if (kp != NULL)
        sodium_memzero(kp, sizeof(*kp));
}
