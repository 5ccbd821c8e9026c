#include <stdlib.h>
#include <string.h>

#include "core/deal.h"
#include "core/err.h"
#include "core/shuffle.h"

int
arb_deal_secret(const arb_deal_t *d, arb_buf_t *out, const char **kind)
{
    size_t i;

    if (d->kind == ARB_DEAL_SEED && d->seed != NULL) {
        arb_buf_puts(out, d->seed);
        *kind = "seed";
    } else if (d->kind == ARB_DEAL_ORDER) {
        for (i = 0; i < d->ncards; i++) {
            if (i > 0)
                arb_buf_putc(out, ' ');
            arb_buf_puts(out, d->cards[i]);
        }
        *kind = "order";
    } else {
        return ARB_EINVAL;
    }
    return arb_buf_cstr(out) == NULL ? ARB_ENOMEM : 0;
}

int
arb_deal_commit(arb_deal_t *d, const char **kind)
{
    arb_buf_t s = ARB_BUF_INIT;
    size_t    i;
    int       rc;

    rc = arb_deal_secret(d, &s, kind);
    if (rc != 0) {
        arb_buf_free(&s);
        return rc;
    }
    arb_seed_hash(d->seed_hash, s.data, s.len);
    arb_buf_free(&s);
    for (i = 0; i < d->ncards; i++)
        free(d->cards[i]);
    free(d->cards);
    d->cards = NULL;
    d->ncards = 0;
    free(d->seed);
    d->seed = NULL;
    d->kind = ARB_DEAL_COMMIT;
    return 0;
}

void
arb_deal_stored_format(arb_buf_t *out, const char *kind, const char *secret)
{
    arb_buf_printf(out, "%s %s", kind, secret);
}

int
arb_deal_stored_parse(const char *stored, char kind[ARB_DEAL_KIND_MAX],
                      const char **secret)
{
    const char *sp = stored != NULL ? strchr(stored, ' ') : NULL;

    if (sp == NULL || (size_t)(sp - stored) >= ARB_DEAL_KIND_MAX)
        return ARB_EINVAL;
    memcpy(kind, stored, (size_t)(sp - stored));
    kind[sp - stored] = '\0';
    *secret = sp + 1;
    return 0;
}

int
arb_deal_check(const unsigned char h[ARB_HASH_LEN], const char *kind,
               const char *secret, arb_verdict_t *v)
{
    unsigned char got[ARB_HASH_LEN];

    if (kind == NULL || secret == NULL
        || (strcmp(kind, "seed") != 0 && strcmp(kind, "order") != 0))
        return arb_verdict(v, ARB_EINVAL, "deal",
                           "a deal is revealed as 'seed <text>' or "
                           "'order <cards...>'");
    arb_seed_hash(got, secret, strlen(secret));
    if (memcmp(got, h, ARB_HASH_LEN) != 0)
        return arb_verdict(v, ARB_ECRYPTO, "deal",
                           "the revealed %s does not match the deal "
                           "committed at open (BLAKE2b-256 differs)", kind);
    return 0;
}

int
arb_deal_reveal(arb_deal_t *d, const char *kind, const char *secret,
                arb_verdict_t *v)
{
    const char *p, *e;
    int         rc;

    if (d->kind != ARB_DEAL_COMMIT)
        return arb_verdict(v, ARB_EINVAL, "deal",
                           "the deal was not committed: nothing to reveal");
    rc = arb_deal_check(d->seed_hash, kind, secret, v);
    if (rc != 0)
        return rc;
    if (strcmp(kind, "seed") == 0) {
        d->seed = strdup(secret);
        if (d->seed == NULL)
            return ARB_ENOMEM;
        d->kind = ARB_DEAL_SEED;
        return 0;
    }
    for (p = secret; *p != '\0'; p = e) {
        char *card;
        while (*p == ' ')
            p++;
        for (e = p; *e != '\0' && *e != ' '; e++)
            ;
        if (e == p)
            break;
        card = strndup(p, (size_t)(e - p));
        if (card == NULL || arb_deal_add_card(d, card) != 0) {
            free(card);
            return ARB_ENOMEM;
        }
        free(card);
    }
    d->kind = ARB_DEAL_ORDER;
    return 0;
}
