/*
 * fuzz_bundle.c - the audit bundle reader and verifier
 * (arb_bundle_verify(), docs/BUNDLE.md) on arbitrary bytes, against the
 * public key of a fixed test key pair: the key whose seeds in the corpus
 * verify clean, so mutations reach past the signature into the chain,
 * the decoding and the replay of every match.
 *
 * Invariants: a bundle that verifies has no problem, a good signature and
 * a replayed match for every match; one that does not says why (a
 * file-level error or at least one problem); verifying the same bytes
 * twice gives the same verdict.
 *
 * Corpus: tests/fuzz/corpus/bundle: bundles of real matches of each game,
 * signed with the key pair crypto_sign_seed_keypair() makes from the 32
 * bytes of FUZZ_KEY_SEED (so new seeds can be signed the same way).
 */
#include <stdint.h>
#include <string.h>
#include <sodium.h>

#include "core/err.h"
#include "core/keys.h"
#include "core/ledger/bundle.h"
#include "core/ledger/chain.h"
#include "tests/fuzz/fuzz.h"

#define FUZZ_KEY_SEED "arbiter fuzz corpus signing key!"  /* 32 bytes */

static const unsigned char *
pubkey(void)
{
    static unsigned char pk[ARB_PUBKEY_LEN];
    static int           ready;
    unsigned char        sk[ARB_SECKEY_LEN];

    if (!ready) {
        FUZZ_CHECK(arb_crypto_init() == 0);
        crypto_sign_seed_keypair(pk, sk,
                                 (const unsigned char *)FUZZ_KEY_SEED);
        ready = 1;
    }
    return pk;
}

static void
check_report(int rc, const arb_bundle_report_t *rep)
{
    size_t i;

    if (rc == 0) {
        FUZZ_CHECK(rep->error == NULL && rep->nproblems == 0);
        for (i = 0; i < rep->nmatches; i++)
            FUZZ_CHECK(rep->matches[i].sig_ok && rep->matches[i].m != NULL
                       && rep->matches[i].nproblems == 0
                       && rep->matches[i].count
                          == rep->matches[i].cp_count);
    } else if (rc != ARB_ENOMEM) {
        FUZZ_CHECK(rc == ARB_ECRYPTO);
        FUZZ_CHECK(rep->error != NULL || rep->nproblems > 0);
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    arb_bundle_report_t r1, r2;
    int                 rc1, rc2;

    memset(&r1, 0, sizeof(r1));
    memset(&r2, 0, sizeof(r2));
    rc1 = arb_bundle_verify(data, size, pubkey(), &r1);
    check_report(rc1, &r1);
    rc2 = arb_bundle_verify(data, size, pubkey(), &r2);
    if (rc1 != ARB_ENOMEM && rc2 != ARB_ENOMEM)
        FUZZ_CHECK(rc1 == rc2 && r1.nmatches == r2.nmatches
                   && r1.nproblems == r2.nproblems);
    arb_bundle_report_clear(&r1);
    arb_bundle_report_clear(&r2);
    return 0;
}
