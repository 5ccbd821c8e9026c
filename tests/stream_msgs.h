/*
 * stream_msgs.h - the replicated messages of a match, made from a
 * transcript as the recorder would publish them (canonical bytes, chain),
 * for the tests of the stream readers.  Include once per test program.
 */
#ifndef ARB_TESTS_STREAM_MSGS_H
#define ARB_TESTS_STREAM_MSGS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/codec.h"
#include "core/ledger/chain.h"
#include "core/ledger/history.h"
#include "core/transcript.h"

typedef struct msgs {
    size_t        n;
    unsigned char bytes[16][1024];
    size_t        len[16];
    unsigned char hash[16][ARB_HASH_LEN];
} msgs_t;

/* The canonical bytes and chain of every event of a transcript. */
static void
make(msgs_t *out, const char *text)
{
    arb_history_t h;
    arb_buf_t     b = ARB_BUF_INIT, why = ARB_BUF_INIT;
    unsigned char prev[ARB_HASH_LEN] = { 0 };
    size_t        i;

    memset(&h, 0, sizeof(h));
    memset(out, 0, sizeof(*out));
    if (arb_transcript_parse(&h, text, strlen(text), &why) != 0) {
        fprintf(stderr, "transcript: %s\n", arb_buf_cstr(&why));
        exit(1);
    }
    for (i = 0; i <= h.nevents; i++) {
        arb_event_t *ev = i == 0 ? &h.open : &h.events[i - 1];

        ev->time_ms = 1700000000000 + (int64_t)i;
        b.len = 0;
        if (arb_event_encode(&b, ev) != 0 || b.len > sizeof(out->bytes[0]))
            exit(1);
        memcpy(out->bytes[i], b.data, b.len);
        out->len[i] = b.len;
        arb_chain_next(prev, b.data, b.len, out->hash[i]);
        memcpy(prev, out->hash[i], ARB_HASH_LEN);
    }
    out->n = h.nevents + 1;
    arb_history_clear(&h);
    arb_buf_free(&b);
    arb_buf_free(&why);
}

#endif
