/*
 * test.h - the tiny harness every test executable uses.
 * CHECK prints file:line and the expression when it fails; TEST_END prints
 * "N passed, N failed" and returns non-zero on any failure.
 */
#ifndef ARB_TEST_H
#define ARB_TEST_H

#include <stdio.h>
#include <string.h>

static int test_passed_, test_failed_;

#define CHECK(expr) do {                                                  \
        if (expr) test_passed_++;                                         \
        else {                                                            \
            test_failed_++;                                               \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n",                  \
                    __FILE__, __LINE__, #expr);                           \
        }                                                                 \
    } while (0)

#define CHECK_STR(a, b) do {                                              \
        const char *a_ = (a), *b_ = (b);                                  \
        if (a_ != NULL && b_ != NULL && strcmp(a_, b_) == 0)              \
            test_passed_++;                                               \
        else {                                                            \
            test_failed_++;                                               \
            fprintf(stderr, "%s:%d: CHECK_STR failed: %s\n"               \
                    "    got:  \"%s\"\n    want: \"%s\"\n",               \
                    __FILE__, __LINE__, #a, a_ ? a_ : "(null)",           \
                    b_ ? b_ : "(null)");                                  \
        }                                                                 \
    } while (0)

#define CHECK_INT(a, b) do {                                              \
        long long a_ = (long long)(a), b_ = (long long)(b);               \
        if (a_ == b_) test_passed_++;                                     \
        else {                                                            \
            test_failed_++;                                               \
            fprintf(stderr, "%s:%d: CHECK_INT failed: %s\n"               \
                    "    got:  %lld\n    want: %lld\n",                   \
                    __FILE__, __LINE__, #a, a_, b_);                      \
        }                                                                 \
    } while (0)

#define TEST_END() (                                                      \
        printf("%s: %d passed, %d failed\n", __FILE__,                    \
               test_passed_, test_failed_),                               \
        test_failed_ != 0)

#endif
