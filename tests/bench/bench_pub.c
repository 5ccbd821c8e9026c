/*
 * bench_pub.c - the floor under sync replication: a bare synchronous
 * JetStream publish (js_PublishMsg, one at a time, 60-byte payloads) to a
 * stream of its own, ARBBENCH (subjects "arbbench.>", file storage,
 * R3 on a cluster), created when missing.  Run by cluster.sh in the same
 * run as the recorder's sync mode, so the two p99s compare.
 * Prints "bare R3 publish: N msgs, p50 X us, p99 Y us, max Z us".
 *
 * usage: bench_pub --urls nats://H:P[,..] --secs S [--replicas R]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nats/nats.h>

#include "tests/bench/bench.h"

static int64_t
mono_us(void)
{
    return (int64_t)(arb_clock_ns() / 1000);
}

int
main(int argc, char **argv)
{
    natsConnection *nc = NULL;
    jsCtx          *js = NULL;
    jsStreamConfig  cfg;
    jsStreamInfo   *si = NULL;
    jsErrCode       jerr = 0;
    const char     *urls = NULL, *subj[] = { "arbbench.>" };
    char            payload[60];
    double          secs = 2;
    int64_t        *lat = NULL, t0, end;
    size_t          n = 0, cap = 0;
    int             i, replicas = 3, errors = 0;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--urls") && i + 1 < argc)
            urls = argv[++i];
        else if (!strcmp(argv[i], "--secs") && i + 1 < argc)
            secs = atof(argv[++i]);
        else if (!strcmp(argv[i], "--replicas") && i + 1 < argc)
            replicas = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: bench_pub --urls URLS --secs S "
                    "[--replicas R]\n");
            return 2;
        }
    }
    if (urls == NULL || natsConnection_ConnectTo(&nc, urls) != NATS_OK
        || natsConnection_JetStream(&js, nc, NULL) != NATS_OK) {
        fprintf(stderr, "bench_pub: cannot connect to %s\n",
                urls ? urls : "(no --urls)");
        return 1;
    }
    if (js_GetStreamInfo(&si, js, "ARBBENCH", NULL, &jerr) != NATS_OK) {
        jsStreamConfig_Init(&cfg);
        cfg.Name = "ARBBENCH";
        cfg.Subjects = subj;
        cfg.SubjectsLen = 1;
        cfg.Storage = js_FileStorage;
        cfg.Replicas = replicas;
        if (js_AddStream(&si, js, &cfg, NULL, &jerr) != NATS_OK) {
            fprintf(stderr, "bench_pub: cannot create stream ARBBENCH "
                    "(JetStream error %d)\n", (int)jerr);
            return 1;
        }
    }
    jsStreamInfo_Destroy(si);
    memset(payload, 'x', sizeof(payload));
    end = mono_us() + (int64_t)(secs * 1e6);
    while ((t0 = mono_us()) < end) {
        jsPubAck *pa = NULL;

        if (js_Publish(&pa, js, "arbbench.p", payload, sizeof(payload), NULL,
                       &jerr) != NATS_OK) {
            errors++;
            continue;
        }
        jsPubAck_Destroy(pa);
        if (bench_sample_add(&lat, &n, &cap, mono_us() - t0) != 0)
            break;
    }
    jsCtx_Destroy(js);
    natsConnection_Destroy(nc);
    nats_Close();
    if (n == 0) {
        printf("bare R%d publish: 0 msgs (%d errors)\n", replicas, errors);
        return 1;
    }
    qsort(lat, n, sizeof(*lat), bench_cmp_i64);
    printf("bare R%d publish: %zu msgs, p50 %lld us, p99 %lld us, max %lld "
           "us%s\n", replicas, n, (long long)lat[n / 2],
           (long long)lat[n * 99 / 100], (long long)lat[n - 1],
           errors ? " (some failed)" : "");
    free(lat);
    return 0;
}
