/*
 * log_count.h - how many lines of a test daemon's log (DIR/daemon.log)
 * hold a text: what the tests that spawn arbiterd check its log with.
 */
#ifndef ARB_TESTS_LOG_COUNT_H
#define ARB_TESTS_LOG_COUNT_H

#include <stdio.h>
#include <string.h>

static inline int
test_log_count(const char *dir, const char *text)
{
    char  path[320], line[1024];
    FILE *f;
    int   n = 0;

    snprintf(path, sizeof(path), "%s/daemon.log", dir);
    if ((f = fopen(path, "r")) == NULL)
        return 0;
    while (fgets(line, sizeof(line), f) != NULL)
        n += strstr(line, text) != NULL;
    fclose(f);
    return n;
}

#endif
