/*
 * fuzz_pubkey.c - a public key as people pass it (arb_pubkey_parse,
 * core/keys.c: `verify --pubkey`, replication peers): 64 hex digits, or a
 * file whose first word after '#' lines is.  Byte 0 picks the form: the
 * rest of the input as the argument itself (cut at a NUL, no '/': it may
 * still name a file of the working directory), or as a file's contents
 * (a memfd, named by its /proc path).
 *
 * Invariants: a key read prints back as 64 hex digits that read as the
 * same key, and are the argument or a word of the file (in either case;
 * a NUL right after the digits makes no word); a refusal is ARB_EINVAL,
 * ARB_EIO or ARB_EPERM with a reason.
 *
 * Corpus: tests/fuzz/corpus/pubkey (hex keys, signing.pub files).
 */
#define _GNU_SOURCE             /* memfd_create */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/keys.h"
#include "core/ledger/chain.h"
#include "tests/fuzz/fuzz.h"

#define HEX_LEN (2 * ARB_PUBKEY_LEN)

static int
is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Whether text[0..len) holds hex (either case) as a word of its own. */
static int
has_word(const char *text, size_t len, const char *hex)
{
    size_t i;

    for (i = 0; i + HEX_LEN <= len; i++)
        if ((i == 0 || is_space(text[i - 1]))
            && (i + HEX_LEN == len || is_space(text[i + HEX_LEN]))
            && strncasecmp(text + i, hex, HEX_LEN) == 0)
            return 1;
    return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int    fd = -1;
    unsigned char pk[ARB_PUBKEY_LEN], again[ARB_PUBKEY_LEN];
    char          arg[4096], hex[HEX_LEN + 1];
    arb_buf_t     why = ARB_BUF_INIT;
    size_t        n;
    int           rc, file;

    if (size == 0)
        return 0;
    file = data[0] & 1;
    n = size - 1;
    if (file) {
        if (fd < 0) {
            fd = memfd_create("arbiter-fuzz-pubkey", 0);
            FUZZ_CHECK(fd >= 0);
        }
        FUZZ_CHECK(ftruncate(fd, 0) == 0);
        FUZZ_CHECK(pwrite(fd, data + 1, n, 0) == (ssize_t)n);
        snprintf(arg, sizeof(arg), "/proc/self/fd/%d", fd);
    } else {
        if (n >= sizeof(arg))
            n = sizeof(arg) - 1;
        memcpy(arg, data + 1, n);
        arg[n] = '\0';
        if (strchr(arg, '/') != NULL)
            return 0;           /* a path anywhere: the file form's job */
    }
    rc = arb_pubkey_parse(pk, arg, &why);
    if (rc != 0) {
        FUZZ_CHECK(rc == ARB_EINVAL || rc == ARB_EIO || rc == ARB_EPERM);
        FUZZ_CHECK(why.len > 0);
        arb_buf_free(&why);
        return 0;
    }
    arb_hex(hex, pk, ARB_PUBKEY_LEN);
    FUZZ_CHECK(strlen(hex) == HEX_LEN);
    FUZZ_CHECK(arb_pubkey_parse(again, hex, &why) == 0);
    FUZZ_CHECK(memcmp(pk, again, sizeof(pk)) == 0);
    if (file) {
        FUZZ_CHECK(has_word((const char *)data + 1, size - 1, hex));
    } else if (strlen(arg) == HEX_LEN) {
        FUZZ_CHECK(strcasecmp(arg, hex) == 0);
    }
    arb_buf_free(&why);
    return 0;
}
