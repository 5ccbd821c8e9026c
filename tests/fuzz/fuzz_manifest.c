/*
 * fuzz_manifest.c - a backup's MANIFEST (ops_manifest_read,
 * tools/ops_util.c), the file restore-backup trusts to say which files a
 * backup holds, what each must hash to, and what the store holds.
 *
 * Invariants: a refusal is ARB_ECORRUPT (or ARB_ENOMEM) naming the file,
 * with nothing kept; a manifest read has a format of 1 or 2, a source,
 * at least one file, every path relative, inside the backup (no "..",
 * no control character) and listed once; what the backup writes of it
 * (format 2, with its end line) reads back as the same manifest and
 * writes again byte for byte.  An input of format 2 was read only if it
 * ended with its end line: cut anywhere before it, it is refused.
 *
 * Corpus: tests/fuzz/corpus/manifest (one arbiter backup wrote, the same
 * in format 1, and refusals).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "core/buf.h"
#include "core/err.h"
#include "tests/fuzz/fuzz.h"
#include "tools/ops.h"

static char root[256];

static void
cleanup(void)
{
    char p[320];

    snprintf(p, sizeof(p), "%s/in", root);
    fuzz_rm_dir(p);
    snprintf(p, sizeof(p), "%s/out", root);
    fuzz_rm_dir(p);
    rmdir(root);
}

static void
setup(void)
{
    char p[320];

    FUZZ_CHECK(sodium_init() >= 0);
    snprintf(root, sizeof(root), "%s/arb_fuzzm_XXXXXX",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    FUZZ_CHECK(mkdtemp(root) != NULL);
    snprintf(p, sizeof(p), "%s/in", root);
    FUZZ_CHECK(mkdir(p, 0700) == 0);
    snprintf(p, sizeof(p), "%s/out", root);
    FUZZ_CHECK(mkdir(p, 0700) == 0);
    atexit(cleanup);
}

/* data as DIR/MANIFEST (the one file in DIR). */
static void
put(const char *dir, const void *data, size_t size)
{
    char  p[320];
    FILE *f;

    snprintf(p, sizeof(p), "%s/%s", dir, OPS_MANIFEST);
    unlink(p);
    f = fopen(p, "w");
    FUZZ_CHECK(f != NULL);
    FUZZ_CHECK(size == 0 || fwrite(data, 1, size, f) == size);
    FUZZ_CHECK(fclose(f) == 0);
}

static int
read_in(ops_manifest_t *m, const char *dir, arb_buf_t *why)
{
    char p[320];
    int  rc;

    arb_buf_free(why);
    rc = ops_manifest_read(m, dir, why);
    snprintf(p, sizeof(p), "%s/%s", dir, OPS_MANIFEST);
    if (rc != 0) {
        FUZZ_CHECK(rc == ARB_ECORRUPT || rc == ARB_ENOMEM);
        FUZZ_CHECK(m->nfiles == 0 && m->files == NULL && m->source == NULL
                   && m->started == NULL);
        FUZZ_CHECK(strncmp(arb_buf_cstr(why), p, strlen(p)) == 0);
    }
    return rc;
}

static void
same(const ops_manifest_t *a, const ops_manifest_t *b)
{
    size_t i;

    FUZZ_CHECK(strcmp(a->source, b->source) == 0);
    FUZZ_CHECK((a->started == NULL) == (b->started == NULL));
    FUZZ_CHECK(a->started == NULL || strcmp(a->started, b->started) == 0);
    FUZZ_CHECK(memcmp(&a->sum, &b->sum, sizeof(a->sum)) == 0);
    FUZZ_CHECK(a->nfiles == b->nfiles);
    for (i = 0; i < a->nfiles; i++) {
        FUZZ_CHECK(strcmp(a->files[i].path, b->files[i].path) == 0);
        FUZZ_CHECK(a->files[i].mode == b->files[i].mode);
        FUZZ_CHECK(a->files[i].size == b->files[i].size);
        FUZZ_CHECK(memcmp(a->files[i].hash, b->files[i].hash,
                          ARB_HASH_LEN) == 0);
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ops_manifest_t m, again;
    arb_buf_t      why = ARB_BUF_INIT;
    char           in[320], out[320], p[384];
    unsigned char *w1 = NULL, *w2 = NULL;
    size_t         i, j, n1, n2;
    const char    *s;

    if (root[0] == '\0')
        setup();
    snprintf(in, sizeof(in), "%s/in", root);
    snprintf(out, sizeof(out), "%s/out", root);
    put(in, data, size);
    if (read_in(&m, in, &why) != 0)
        goto done;

    FUZZ_CHECK(m.format == 1 || m.format == 2);
    FUZZ_CHECK(m.source != NULL && m.nfiles >= 1);
    for (i = 0; i < m.nfiles; i++) {
        s = m.files[i].path;
        FUZZ_CHECK(s[0] != '\0' && s[0] != '/' && m.files[i].mode <= 0777);
        FUZZ_CHECK(strcmp(s, "..") != 0 && strncmp(s, "../", 3) != 0);
        FUZZ_CHECK(strstr(s, "/../") == NULL);
        FUZZ_CHECK(strlen(s) < 3 || strcmp(s + strlen(s) - 3, "/..") != 0);
        for (j = 0; s[j] != '\0'; j++)
            FUZZ_CHECK((unsigned char)s[j] >= 0x20);
        for (j = 0; j < i; j++)
            FUZZ_CHECK(strcmp(m.files[j].path, s) != 0);
    }
    /* Format 2 is read only whole: every cut before its end is refused
     * (a few cuts, at line ends, where a cut reads as lines). */
    if (m.format == 2)
        for (i = 0, j = 0; i + 1 < size && j < 8; i++)
            if (data[i] == '\n') {
                put(in, data, i + 1);
                FUZZ_CHECK(read_in(&again, in, &why) != 0);
                j++;
            }

    /* What a backup writes of it reads back the same, and writes again
     * byte for byte. */
    if (m.started != NULL) {
        snprintf(p, sizeof(p), "%s/%s", out, OPS_MANIFEST);
        unlink(p);
        FUZZ_CHECK(ops_manifest_write(&m, out, &why) == 0);
        FUZZ_CHECK(fuzz_read_all(p, &w1, &n1) == 0);
        FUZZ_CHECK(read_in(&again, out, &why) == 0);
        FUZZ_CHECK(again.format == OPS_BACKUP_FORMAT);
        same(&m, &again);
        unlink(p);
        FUZZ_CHECK(ops_manifest_write(&again, out, &why) == 0);
        FUZZ_CHECK(fuzz_read_all(p, &w2, &n2) == 0);
        FUZZ_CHECK(n1 == n2 && memcmp(w1, w2, n1) == 0);
        ops_manifest_free(&again);
    }
    ops_manifest_free(&m);
done:
    free(w1);
    free(w2);
    arb_buf_free(&why);
    return 0;
}
