/*
 * checkpoint.c - the daemon's signing key and the `checkpoint` answer:
 * {match} -> {match, count, head: bin32, sig: bin64, pubkey: bin32}.
 *
 * DESIGN: a checkpoint is signed over committed state only, and over the
 * same boundary the `events` op pages up to (the store's last seq, capped
 * by what the loop knows is committed), so an exporter that asks for a
 * checkpoint and then reads events 0..count-1 gets exactly the bytes the
 * signature covers -- never an event whose commit is still in flight.
 * The key is loaded once at start-up into the server struct, which owns
 * it, and is wiped at exit (arb_checkpoint_clear).
 */
#include <stdlib.h>
#include <string.h>

#include "core/ledger/bundle.h"
#include "core/ledger/chain.h"
#include "core/err.h"
#include "core/keys.h"
#include "daemon/log.h"
#include "daemon/server.h"
#include "core/mp.h"

int
arb_checkpoint_init(arb_server_t *srv)
{
    const char *data_dir = srv->cfg.data;
    arb_buf_t   why = ARB_BUF_INIT;
    char        hex[2 * ARB_PUBKEY_LEN + 1];
    int         created = 0, rc;

    rc = arb_keys_create(data_dir, &created, &why);
    if (rc == 0)
        rc = arb_keys_load(&srv->signing, data_dir, &why);
    if (rc != 0) {
        arb_keypair_clear(&srv->signing);
        arb_log(ARB_LOG_ERROR, "signing key: %s", arb_buf_cstr(&why));
        arb_buf_free(&why);
        return -1;
    }
    srv->have_key = 1;
    arb_hex(hex, srv->signing.pk, ARB_PUBKEY_LEN);
    arb_log(ARB_LOG_INFO, "%s checkpoint signing key %s (%s/%s)",
            created ? "created" : "loaded", hex, data_dir,
            ARB_KEY_PUBLIC_FILE);
    return 0;
}

void
arb_checkpoint_clear(arb_server_t *srv)
{
    arb_keypair_clear(&srv->signing);
    srv->have_key = 0;
}

typedef struct links {
    unsigned char head[ARB_HASH_LEN];   /* of the last event read */
    uint64_t      n;                    /* events read */
} links_t;

static int
on_link(void *ud, uint64_t seq, int64_t t,
        const unsigned char hash[ARB_HASH_LEN], const void *bytes,
        size_t len)
{
    links_t *x = ud;

    (void)seq, (void)t, (void)bytes, (void)len;
    memcpy(x->head, hash, ARB_HASH_LEN);
    x->n++;
    return 0;
}

void
arb_checkpoint_reply(arb_conn_t *c, uint64_t id, const char *match)
{
    arb_match_info_t info;
    arb_checkpoint_t cp;
    arb_live_t      *l = NULL;
    links_t          lk;
    arb_buf_t        why = ARB_BUF_INIT, b = ARB_BUF_INIT;
    msgpack_packer   pk;
    uint64_t         upto;
    arb_viewer_t     who;
    int              rc;

    if (!c->srv->have_key) {
        arb_reply_error(c, id, "internal", NULL, "no signing key loaded");
        goto done;
    }
    rc = arb_store_match(c->srv->store, match, &info, &why);
    if (rc != 0) {
        arb_reply_error(c, id, arb_reply_code(rc), NULL, "no match '%s'",
                        match);
        goto done;
    }
    who = arb_conn_viewer(c, match, NULL);
    if (arb_view_hides_hashes(info.game, info.closed, &who)) {
        /* The head would check a guess of a chip hidden from this viewer
         * (docs/VIEWS.md): signed heads of such a match wait for its
         * close. */
        arb_reply_error(c, id, "forbidden", NULL, "match '%s' is open and "
                        "its events hide cards from a %s: its checkpoint "
                        "is signed for scorers and arbiters until the "
                        "close", match, arb_role_name(c->role));
        goto done;
    }
    upto = info.last_seq;
    if (arb_live_get(c->srv, match, &l, NULL) == 0 && l->committed < upto)
        upto = l->committed;
    /* Every link up to the head is read and checked: a head is signed
     * only over a chain that holds (a byte changed on the disk was
     * signed over until 2026-12-06). */
    memset(&lk, 0, sizeof(lk));
    rc = arb_store_events(c->srv->store, match, 0, upto, on_link, &lk,
                          &why);
    if (rc == 0 && lk.n != upto + 1)
        rc = ARB_ENOTFOUND;
    if (rc == ARB_ECORRUPT)
        arb_live_corrupt(c->srv, match, &why);
    if (rc != 0) {
        arb_reply_error(c, id, "internal", NULL, "match '%s': seq %llu: %s",
                        match, (unsigned long long)upto,
                        rc != ARB_ENOTFOUND ? arb_buf_cstr(&why)
                                            : "not found");
        goto done;
    }
    memset(&cp, 0, sizeof(cp));
    snprintf(cp.match_id, sizeof(cp.match_id), "%s", match);
    cp.count = upto + 1;
    memcpy(cp.head, lk.head, ARB_HASH_LEN);
    arb_checkpoint_sign(&cp, &c->srv->signing);
    arb_reply_begin(&b, &pk, id, 5);
    arb_mp_pack_kv_str(&pk, "match", cp.match_id);
    arb_mp_pack_kv_uint(&pk, "count", cp.count);
    arb_mp_pack_kv_bin(&pk, "head", cp.head, ARB_HASH_LEN);
    arb_mp_pack_kv_bin(&pk, "sig", cp.sig, ARB_SIG_LEN);
    arb_mp_pack_kv_bin(&pk, "pubkey", cp.pubkey, ARB_PUBKEY_LEN);
    arb_conn_send(c, &b);
done:
    arb_buf_free(&why);
}
