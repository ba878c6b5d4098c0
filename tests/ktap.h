/* SPDX-License-Identifier: MIT */
/*
 * ktap.h: a tiny KTAP producer for ehconf's own unit tests (tests/).
 *
 * The conformance cases use the kernel's kselftest_harness.h; the project's unit
 * tests of lib/ and tools/ use this MIT header instead so they build without the
 * kernel source. Output is KTAP version 1, which harness/kernel/run_unit.py records and the
 * results plugin (harness/core/pytest_plugin.py) turns into one pytest item per test.
 *
 *   static void test_foo(void) { KT_EXPECT_EQ(1 + 1, 2); }
 *   KT_MAIN(KT_CASE(test_foo), KT_CASE(test_bar))
 *
 * A failed expectation prints a "# file:line: ..." diagnostic and marks the
 * current test failed; the test goes on so one run shows every difference.
 */
#ifndef EHCONF_KTAP_H
#define EHCONF_KTAP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kt_case {
    const char *name;
    void (*fn)(void);
};

static int kt_failed_now;
static const char *kt_skip_reason;

__attribute__((format(printf, 1, 2), unused)) static void kt_diag(const char *fmt, ...)
{
    va_list ap;
    fputs("# ", stdout);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
}

__attribute__((unused)) static void kt_fail_at(const char *file, int line, const char *what)
{
    kt_failed_now = 1;
    printf("# %s:%d: %s\n", file, line, what);
}

/* Byte comparison that prints a hex dump of the first difference and its
 * neighbourhood; returns 1 if equal. Marks no test failed, so helpers linked
 * into several tests (tests/<area>/support_*.c) can use it too. */
__attribute__((unused)) static int kt_mem_diff(const char *file, int line, const char *what,
                                               const void *got, size_t got_len, const void *want,
                                               size_t want_len)
{
    const uint8_t *g = got, *w = want;
    size_t n = got_len < want_len ? got_len : want_len, i = 0;
    while (i < n && g[i] == w[i])
        i++;
    if (i == n && got_len == want_len)
        return 1;
    printf("# %s:%d: %s: bytes differ at offset %zu (got %zu bytes, want %zu)\n", file, line, what,
           i, got_len, want_len);
    size_t from = i >= 8 ? i - 8 : 0;
    printf("#   got :");
    for (size_t k = from; k < got_len && k < from + 24; k++)
        printf(k == i ? " [%02x]" : " %02x", g[k]);
    printf("\n#   want:");
    for (size_t k = from; k < want_len && k < from + 24; k++)
        printf(k == i ? " [%02x]" : " %02x", w[k]);
    printf("\n");
    return 0;
}

/* kt_mem_diff that also marks the current test failed. */
__attribute__((unused)) static int kt_mem_eq(const char *file, int line, const char *what,
                                             const void *got, size_t got_len, const void *want,
                                             size_t want_len)
{
    int equal = kt_mem_diff(file, line, what, got, got_len, want, want_len);
    if (!equal)
        kt_failed_now = 1;
    return equal;
}

#define KT_EXPECT(cond)                                         \
    do {                                                        \
        if (!(cond))                                            \
            kt_fail_at(__FILE__, __LINE__, "expected: " #cond); \
    } while (0)

#define KT_EXPECT_EQ(got, want)                                                               \
    do {                                                                                      \
        long long kt_g_ = (long long)(got), kt_w_ = (long long)(want);                        \
        if (kt_g_ != kt_w_) {                                                                 \
            kt_failed_now = 1;                                                                \
            printf("# %s:%d: %s == %lld, want %s == %lld\n", __FILE__, __LINE__, #got, kt_g_, \
                   #want, kt_w_);                                                             \
        }                                                                                     \
    } while (0)

#define KT_EXPECT_STR(got, want)                                                          \
    do {                                                                                  \
        const char *kt_g_ = (got), *kt_w_ = (want);                                       \
        if (!kt_g_ || strcmp(kt_g_, kt_w_) != 0) {                                        \
            kt_failed_now = 1;                                                            \
            printf("# %s:%d: %s\n#   got : %s\n#   want: %s\n", __FILE__, __LINE__, #got, \
                   kt_g_ ? kt_g_ : "(null)", kt_w_);                                      \
        }                                                                                 \
    } while (0)

#define KT_EXPECT_MEM(got, got_len, want, want_len) \
    kt_mem_eq(__FILE__, __LINE__, #got, (got), (got_len), (want), (want_len))

/* Ends the current test as skipped with a one-line reason. */
#define KT_SKIP(reason)            \
    do {                           \
        kt_skip_reason = (reason); \
        return;                    \
    } while (0)

/* Fills buf with "$TMPDIR/name" ($TMPDIR unset or empty: /tmp), a template for mkstemp()
 * or mkdtemp() when name ends in XXXXXX; NULL if it does not fit. Tests never write to a
 * fixed path: several runs (and users) share a machine. */
__attribute__((unused)) static char *kt_tmp_template(char *buf, size_t size, const char *name)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !dir[0])
        dir = "/tmp";
    int n = snprintf(buf, size, "%s/%s", dir, name);
    return n > 0 && (size_t)n < size ? buf : NULL;
}

#define KT_CASE(fn) \
    {               \
#fn, fn     \
    }

__attribute__((unused)) static int kt_run(const struct kt_case *cases, size_t n)
{
    int passed = 0, failed = 0, skipped = 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("KTAP version 1\n1..%zu\n", n);
    for (size_t i = 0; i < n; i++) {
        kt_failed_now = 0;
        kt_skip_reason = NULL;
        cases[i].fn();
        const char *name = cases[i].name;
        if (strncmp(name, "test_", 5) == 0)
            name += 5;
        if (kt_failed_now) {
            printf("not ok %zu %s\n", i + 1, name);
            failed++;
        } else if (kt_skip_reason) {
            printf("ok %zu %s # SKIP %s\n", i + 1, name, kt_skip_reason);
            skipped++;
        } else {
            printf("ok %zu %s\n", i + 1, name);
            passed++;
        }
    }
    printf("# %d passed, %d failed, %d skipped\n", passed, failed, skipped);
    return failed ? 1 : 0;
}

#define KT_MAIN(...)                                                      \
    int main(void)                                                        \
    {                                                                     \
        static const struct kt_case kt_cases_[] = {__VA_ARGS__};          \
        return kt_run(kt_cases_, sizeof kt_cases_ / sizeof kt_cases_[0]); \
    }

#endif /* EHCONF_KTAP_H */
