/*
 * arbiter key - print the recorder's public checkpoint signing key, the
 * one `arbiter verify --pubkey` wants.
 */
#include <stdio.h>
#include <string.h>

#include "core/ledger/chain.h"
#include "core/err.h"
#include "core/keys.h"
#include "tools/cli.h"
#include "tools/net.h"

#define KEY_DIR_DEFAULT "./var/arbiter"

static void
usage(FILE *f)
{
    fprintf(f,
        "usage: arbiter key [--db DIR]\n\n"
        "Prints the public half of the recorder's Ed25519 checkpoint\n"
        "signing key as 64 hex digits, read from DIR/" ARB_KEY_PUBLIC_FILE
        "\n(default DIR: " KEY_DIR_DEFAULT ").  arbiterd creates the pair\n"
        "on its first start.  Hand this key to whoever verifies your\n"
        "bundles, by a channel of its own (not inside the bundle):\n"
        "  arbiter verify BUNDLE --pubkey KEY\n\n"
        "When DIR/" ARB_KEY_SECRET_FILE " is readable too, the two files are\n"
        "checked to hold the same key.  Exit status: 0 printed, 1 the two\n"
        "files disagree, 2 usage or no key there.\n");
}

int
cmd_key(int argc, char **argv)
{
    unsigned char pk[ARB_PUBKEY_LEN];
    arb_keypair_t kp;
    arb_buf_t     why = ARB_BUF_INIT;
    const char   *dir = KEY_DIR_DEFAULT;
    char          hex[2 * ARB_PUBKEY_LEN + 1];
    int           rc, status;
    const cli_optdef_t opts[] = {
        { "--db", CLI_ARG_STR, &dir },
        { NULL, 0, NULL }
    };
    cli_args_t ar = {
        .cmd = "key",
        .usage = usage,
        .opts = opts,
        .no_words = 1,
    };

    status = cli_args_parse(&ar, argc, argv);
    if (status >= 0)
        return status;
    status = CLI_ERROR;
    rc = arb_keys_load_public(pk, dir, &why);
    if (rc != 0) {
        fprintf(stderr, "arbiter key: %s%s\n", arb_buf_cstr(&why),
                rc == ARB_ENOTFOUND ? " (arbiterd creates the key pair on "
                "its first start)" : "");
        goto done;
    }
    /* Only the operator can read the secret; for anyone else the public
     * file is all there is. */
    rc = arb_keys_load(&kp, dir, &why);
    arb_keypair_clear(&kp);
    if (rc == ARB_ECORRUPT) {
        fprintf(stderr, "arbiter key: %s\n", arb_buf_cstr(&why));
        status = CLI_DIFFERS;
        goto done;
    }
    arb_hex(hex, pk, ARB_PUBKEY_LEN);
    printf("%s\n", hex);
    status = 0;
done:
    arb_buf_free(&why);
    return status;
}
