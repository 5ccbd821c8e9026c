/*
 * fuzz_config.c - arbiterd's configuration and tokens files
 * (daemon/config.c, config/arbiterd.conf) on arbitrary bytes.  The first
 * byte picks the reader: arb_config_load() or arb_config_load_tokens()
 * (the SIGHUP reload, replacing or keeping the tokens already loaded).
 * The rest is the file, handed over as a memfd (no disk, no temp file).
 *
 * Invariants: a refusal names the file and line; a token that loads is
 * what the file documents (a 16..64-character secret, a role, an identity
 * and scorer matches that are valid names, at most 64 matches) and
 * authenticates with its own secret; a failed reload leaves the tokens
 * already loaded as they were.
 *
 * Corpus: tests/fuzz/corpus/config (the shipped config, token files).
 */
#define _GNU_SOURCE             /* memfd_create */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/event.h"
#include "core/ledger/store.h"
#include "daemon/config.h"
#include "daemon/log.h"
#include "tests/fuzz/fuzz.h"

/* A secret longer than 64 characters could never authenticate. */
#define SECRET_MAX 64

static void
check_tokens(const arb_config_t *c)
{
    const arb_token_t *t, *found;
    size_t             i, j, n;

    for (i = 0; i < c->ntokens; i++) {
        t = &c->tokens[i];
        n = strlen(t->secret);
        FUZZ_CHECK(n >= 16 && n <= SECRET_MAX);
        FUZZ_CHECK(t->role >= ARB_ROLE_READER && t->role <= ARB_ROLE_ARBITER);
        FUZZ_CHECK(arb_name_valid(t->identity));
        FUZZ_CHECK(t->nmatches == 0 || t->role == ARB_ROLE_SCORER
                   || t->role == ARB_ROLE_PLAYER);
        FUZZ_CHECK((t->seat != NULL) == (t->role == ARB_ROLE_PLAYER));
        FUZZ_CHECK(t->nmatches <= 64);
        for (j = 0; j < t->nmatches; j++)
            FUZZ_CHECK(arb_name_valid(t->matches[j])
                       && strlen(t->matches[j]) <= ARB_STORE_ID_MAX);
        found = arb_config_auth(c, t->secret, n);
        FUZZ_CHECK(found != NULL && strcmp(found->secret, t->secret) == 0);
    }
}

/* A memfd holding data[0..n), named by path. */
static void
memfile(int *fd, const char *name, const void *data, size_t n,
        char path[64])
{
    if (*fd < 0) {
        *fd = memfd_create(name, 0);
        FUZZ_CHECK(*fd >= 0);
    }
    FUZZ_CHECK(ftruncate(*fd, 0) == 0);
    FUZZ_CHECK(pwrite(*fd, data, n, 0) == (ssize_t)n);
    snprintf(path, 64, "/proc/self/fd/%d", *fd);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char old[] = "token = 0123456789abcdef0123 arbiter chief\n";
    static int        fd = -1, fd_old = -1;
    arb_config_t      c;
    arb_buf_t         why = ARB_BUF_INIT;
    char              path[64], path_old[64];
    int               rc;

    if (size == 0)
        return 0;
    arb_log_level = -1;             /* the loader's warnings are noise here */
    memfile(&fd, "arbiter-fuzz-config", data + 1, size - 1, path);
    arb_config_defaults(&c);
    if (data[0] % 3 == 0) {
        rc = arb_config_load(&c, path, &why);
        if (rc == 0) {
            FUZZ_CHECK(c.nlisten <= ARB_LISTEN_MAX);
            FUZZ_CHECK(c.frame_max >= 1024 && c.outq_max >= 65536);
        }
    } else {
        /* A reload finds tokens already loaded. */
        memfile(&fd_old, "arbiter-fuzz-tokens", old, sizeof(old) - 1,
                path_old);
        FUZZ_CHECK(arb_config_load_tokens(&c, path_old, 1, &why) == 0);
        FUZZ_CHECK(c.ntokens == 1);
        rc = arb_config_load_tokens(&c, path, data[0] % 3 == 1, &why);
        if (rc != 0)
            FUZZ_CHECK(c.ntokens == 1
                       && strcmp(c.tokens[0].identity, "chief") == 0);
    }
    if (rc == 0)
        check_tokens(&c);
    else if (!why.oom)
        FUZZ_CHECK(strstr(arb_buf_cstr(&why), path) != NULL
                   && strstr(arb_buf_cstr(&why), "line ") != NULL);
    arb_config_free(&c);
    arb_buf_free(&why);
    return 0;
}
