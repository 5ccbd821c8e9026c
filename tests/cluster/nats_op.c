/*
 * nats_op.c - what an operator does to a stream, for the shell tests.
 *
 *   nats_op URLS recreate NAME MS
 *   nats_op URLS publish SUBJECT TEXT
 *   nats_op URLS count STREAM MATCH
 *   nats_op URLS seqs STREAM MATCH
 *   nats_op URLS unfit NAME AGE_S
 *   nats_op URLS window NAME MS
 *   nats_op URLS drop NAME consumers
 *   nats_op URLS delete NAME last|SEQ
 *   nats_op URLS show NAME leader|last
 *
 * recreate deletes stream NAME and creates it again MS milliseconds
 * later with the replica count it had, as arbiter would create it
 * (subjects "arbiter.>", file storage).  This is what docs/SCALE.md tells
 * an operator never to do; the tests do it to show what a recorder and a
 * replica running meanwhile make of it.  publish puts TEXT on SUBJECT
 * through JetStream, as a client that is not arbiter might.  count
 * prints how many messages the stream holds on MATCH's event subject;
 * seqs prints each of them, in stream order, as "STREAM_SEQ SEQ" (its
 * Arbiter-Seq), the subject's last message last.  MATCH written
 * "deal:MATCH" names the match's deal subject instead (seqs then prints
 * SEQ 0).
 * unfit creates stream NAME on "arbiter.>" as arbiter would, but with
 * messages expiring after AGE_S seconds: a stream arbiter must refuse.
 * window creates stream NAME as arbiter would (one replica), with a
 * duplicate window of MS milliseconds instead of two minutes, for a test
 * that must publish again past that window without waiting for it.
 * drop deletes every consumer of stream NAME and prints how many, as the
 * loss of the NATS node that hosted them would leave a reader waiting.
 * delete takes the stream's last message, or the one at stream
 * sequence SEQ, out (a last one's sequence stays the stream's last) and
 * prints its sequence, as an operator removing a message by hand, or a
 * node that lost it, would.  show prints the name of the server that
 * leads stream NAME, for a test that must strike the leader, or the
 * stream's last sequence.
 * Exit status 0 when done; the error on stderr otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/buf.h"
#include "proto/stream.h"
#include "proto/stream_read.h"

/* The subject count and seqs look at: MATCH's event subject, or its
 * deal subject for "deal:MATCH".  0, or 1 with why set. */
static int
subject_of(char *out, size_t cap, const char *arg, arb_buf_t *why)
{
    int kind = ARB_STREAM_EV;

    if (strncmp(arg, "deal:", 5) == 0) {
        kind = ARB_STREAM_DEAL;
        arg += 5;
    }
    if (arb_stream_subject(out, cap, kind, arg) == 0)
        return 0;
    arb_buf_printf(why, "bad match id '%s'", arg);
    return 1;
}

static void
sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

    nanosleep(&ts, NULL);
}

int
main(int argc, char **argv)
{
    arb_stream_conf_t conf;
    arb_stream_t     *st = NULL;
    arb_buf_t         why = ARB_BUF_INIT;
    jsStreamInfo     *si = NULL;
    jsErrCode         jerr = 0;
    natsStatus        s;
    int               replicas = 0, rc = 1;

    if (argc != 5 || (strcmp(argv[2], "recreate") != 0
                      && strcmp(argv[2], "publish") != 0
                      && strcmp(argv[2], "count") != 0
                      && strcmp(argv[2], "seqs") != 0
                      && strcmp(argv[2], "unfit") != 0
                      && strcmp(argv[2], "window") != 0
                      && strcmp(argv[2], "drop") != 0
                      && strcmp(argv[2], "delete") != 0
                      && strcmp(argv[2], "show") != 0)) {
        fprintf(stderr, "usage: nats_op URLS recreate NAME MS\n"
                "       nats_op URLS publish SUBJECT TEXT\n"
                "       nats_op URLS count STREAM MATCH\n"
                "       nats_op URLS seqs STREAM MATCH\n"
                "       nats_op URLS unfit NAME AGE_S\n"
                "       nats_op URLS window NAME MS\n"
                "       nats_op URLS drop NAME consumers\n"
                "       nats_op URLS delete NAME last|SEQ\n"
                "       nats_op URLS show NAME leader|last\n");
        return 2;
    }
    memset(&conf, 0, sizeof(conf));
    conf.urls = argv[1];
    conf.stream = strcmp(argv[2], "publish") != 0 ? argv[3] : NULL;
    conf.client_name = "nats_op";
    if (arb_stream_open(&st, &conf, NULL, NULL, &why) != 0)
        goto done;
    if (strcmp(argv[2], "publish") == 0) {
        jsPubAck *pa = NULL;

        s = js_Publish(&pa, st->js, argv[3], argv[4], (int)strlen(argv[4]),
                       NULL, &jerr);
        jsPubAck_Destroy(pa);
        if (s != NATS_OK) {
            arb_buf_printf(&why, "publish: %s (%d)", natsStatus_GetText(s),
                           (int)jerr);
            goto done;
        }
        rc = 0;
        goto done;
    }
    if (strcmp(argv[2], "unfit") == 0 || strcmp(argv[2], "window") == 0) {
        jsStreamConfig cfg;
        const char    *subj[] = { ARB_STREAM_SUBJECTS };

        jsStreamConfig_Init(&cfg);
        cfg.Name = st->name;
        cfg.Subjects = subj;
        cfg.SubjectsLen = 1;
        cfg.Storage = js_FileStorage;
        if (strcmp(argv[2], "unfit") == 0)
            cfg.MaxAge = (int64_t)atol(argv[4]) * 1000000000;
        else
            cfg.Duplicates = (int64_t)atol(argv[4]) * 1000000;
        s = js_AddStream(&si, st->js, &cfg, NULL, &jerr);
        if (s != NATS_OK) {
            arb_buf_printf(&why, "create: %s (%d)", natsStatus_GetText(s),
                           (int)jerr);
            goto done;
        }
        jsStreamInfo_Destroy(si);
        rc = 0;
        goto done;
    }
    if (strcmp(argv[2], "drop") == 0) {
        jsConsumerNamesList *l = NULL;
        int                  i, n = 0;

        s = js_ConsumerNames(&l, st->js, st->name, NULL, &jerr);
        if (s != NATS_OK) {
            arb_buf_printf(&why, "consumer names: %s (%d)",
                           natsStatus_GetText(s), (int)jerr);
            goto done;
        }
        for (i = 0; i < l->Count; i++)
            n += js_DeleteConsumer(st->js, st->name, l->List[i], NULL,
                                   &jerr) == NATS_OK;
        jsConsumerNamesList_Destroy(l);
        printf("%d\n", n);
        rc = 0;
        goto done;
    }
    if (strcmp(argv[2], "delete") == 0 || strcmp(argv[2], "show") == 0) {
        uint64_t last;

        s = js_GetStreamInfo(&si, st->js, st->name, NULL, &jerr);
        if (s != NATS_OK) {
            arb_buf_printf(&why, "stream info: %s (%d)",
                           natsStatus_GetText(s), (int)jerr);
            goto done;
        }
        if (strcmp(argv[2], "show") == 0
            && strcmp(argv[4], "last") == 0) {
            printf("%llu\n", (unsigned long long)si->State.LastSeq);
            jsStreamInfo_Destroy(si);
            rc = 0;
            goto done;
        }
        if (strcmp(argv[2], "show") == 0) {
            if (si->Cluster != NULL && si->Cluster->Leader != NULL) {
                printf("%s\n", si->Cluster->Leader);
                rc = 0;
            } else {
                arb_buf_printf(&why, "no leader now");
            }
            jsStreamInfo_Destroy(si);
            goto done;
        }
        last = strcmp(argv[4], "last") == 0 ? si->State.LastSeq
               : strtoull(argv[4], NULL, 10);
        jsStreamInfo_Destroy(si);
        s = js_DeleteMsg(st->js, st->name, last, NULL, &jerr);
        if (s != NATS_OK) {
            arb_buf_printf(&why, "delete %llu: %s (%d)",
                           (unsigned long long)last, natsStatus_GetText(s),
                           (int)jerr);
            goto done;
        }
        printf("%llu\n", (unsigned long long)last);
        rc = 0;
        goto done;
    }
    if (strcmp(argv[2], "seqs") == 0) {
        char                 subj[ARB_STREAM_SUBJECT_MAX];
        arb_stream_reader_t *rd = NULL;
        arb_stream_msg_t     m;
        uint64_t             last;

        if (subject_of(subj, sizeof(subj), argv[4], &why) != 0)
            goto done;
        if (arb_stream_last(st, subj, &m, &why) != 0)
            goto done;
        last = m.stream_seq;
        arb_stream_msg_clear(&m);
        if (arb_stream_reader_open(&rd, st, subj, 1, &why) != 0)
            goto done;
        while (arb_stream_reader_next(rd, &m, 5000, &why) == 0) {
            printf("%llu %llu\n", (unsigned long long)m.stream_seq,
                   (unsigned long long)m.seq);
            if (m.stream_seq >= last) {
                rc = 0;
                arb_stream_msg_clear(&m);
                break;
            }
            arb_stream_msg_clear(&m);
        }
        arb_stream_reader_close(rd);
        goto done;
    }
    if (strcmp(argv[2], "count") == 0) {
        char      subj[ARB_STREAM_SUBJECT_MAX];
        jsOptions o;
        uint64_t  n = 0;
        int       i;

        if (subject_of(subj, sizeof(subj), argv[4], &why) != 0)
            goto done;
        jsOptions_Init(&o);
        o.Stream.Info.SubjectsFilter = subj;
        s = js_GetStreamInfo(&si, st->js, st->name, &o, &jerr);
        if (s != NATS_OK) {
            arb_buf_printf(&why, "stream info: %s (%d)",
                           natsStatus_GetText(s), (int)jerr);
            goto done;
        }
        for (i = 0; si->State.Subjects != NULL
                    && i < si->State.Subjects->Count; i++)
            n += si->State.Subjects->List[i].Msgs;
        jsStreamInfo_Destroy(si);
        printf("%llu\n", (unsigned long long)n);
        rc = 0;
        goto done;
    }
    s = js_GetStreamInfo(&si, st->js, st->name, NULL, &jerr);
    if (s != NATS_OK) {
        arb_buf_printf(&why, "stream info: %s (%d)",
                       natsStatus_GetText(s), (int)jerr);
        goto done;
    }
    replicas = (int)si->Config->Replicas;
    jsStreamInfo_Destroy(si);
    s = js_DeleteStream(st->js, st->name, NULL, &jerr);
    if (s != NATS_OK) {
        arb_buf_printf(&why, "delete: %s (%d)", natsStatus_GetText(s),
                       (int)jerr);
        goto done;
    }
    sleep_ms(atol(argv[4]));
    if (arb_stream_ensure(st, replicas, NULL, &why) != 0)
        goto done;
    rc = 0;
done:
    if (rc != 0)
        fprintf(stderr, "nats_op: %s: %s\n", argv[3], arb_buf_cstr(&why));
    arb_stream_close(st);
    arb_buf_free(&why);
    return rc;
}
