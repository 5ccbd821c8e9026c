/*
 * test_replicate_cluster.c - test_replicate.c's case 7 as a binary of its
 * own: a 3-node JetStream cluster (tests/cluster/nats.sh, ports from
 * ARB_NATS_CLUSTER_BASE, default 14600), the stream leader and the
 * recorder killed -9 under load, then a stale leader forced.  It was the
 * last third of test_replicate, which tests/run.sh then ran alone at the
 * end of the suite; apart, the two run side by side (skipped when
 * nats-server is not installed).
 */
#define REPL_CLUSTER_ONLY 1
#include "tests/unit/test_replicate.c"
