/* SPDX-License-Identifier: GPL-2.0 */
/*
 * case_runner.h: the cases' test API on Windows, where kselftest_harness.h cannot build
 * (it needs fork(), signals, setpgrp() and mmap()).
 *
 * It offers the subset of kselftest_harness.h that cases/ use -- TEST, ASSERT_* and
 * EXPECT_* (with the optional "{ TH_LOG(...); }" failure handler), TH_LOG, SKIP and
 * TEST_HARNESS_MAIN -- with the same meaning and the same TAP output, so one case source
 * builds on both systems and harness/core/ktap.py reads both outputs. It is ehconf's own
 * code, written against the documented behaviour, not a copy of the kernel header.
 *
 * Isolation is kept: like kselftest's fork() per test, every TEST runs in a process of
 * its own (the runner starts itself again with --ehconf-run NAME), so each test starts
 * with nothing registered, a crash fails one test only, and a hung test is killed after
 * EHCONF_CASE_TIMEOUT seconds (default 30, kselftest's default). A failed ASSERT ends
 * that process, so nothing after it runs, as with kselftest's longjmp.
 */
#ifndef EHCONF_CASE_RUNNER_H
#define EHCONF_CASE_RUNNER_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct case_test {
    const char *name;
    void (*fn)(struct case_test *_metadata);
    int line; /* declaration order: constructors do not run in source order on PE */
    struct case_test *next;
    int failed; /* an EXPECT_* failed: the test goes on, and fails at its end */
};

void case_runner_add(struct case_test *t);
int case_runner_main(int argc, char **argv);
/* One failed check: logs "Expected ..." the way kselftest does. */
void case_runner_report(struct case_test *t, const char *file, int line, const char *exp_str,
                        const char *op, const char *seen_str, int exp_signed, uintmax_t exp,
                        int seen_signed, uintmax_t seen);
/* After a failed check and its optional handler: an ASSERT ends the test's process. */
void case_runner_bail(struct case_test *t, int is_assert);
void case_runner_skip(struct case_test *t, const char *reason);

#define TEST(test_name)                                                                            \
    static void case_fn_##test_name(struct case_test *_metadata);                                  \
    static struct case_test case_t_##test_name = {#test_name, case_fn_##test_name, __LINE__, NULL, \
                                                  0};                                              \
    __attribute__((constructor)) static void case_add_##test_name(void)                            \
    {                                                                                              \
        case_runner_add(&case_t_##test_name);                                                      \
    }                                                                                              \
    static void case_fn_##test_name(struct case_test *_metadata __attribute__((unused)))

#define TEST_HARNESS_MAIN                    \
    int main(int argc, char **argv)          \
    {                                        \
        return case_runner_main(argc, argv); \
    }

#define TH_LOG(fmt, ...) \
    fprintf(stderr, "# %s:%d:%s:" fmt "\n", __FILE__, __LINE__, _metadata->name, ##__VA_ARGS__)

/* Reports the skip (the runner prints "ok N name # SKIP reason"), then runs statement. */
#define SKIP(statement, fmt, ...)                                        \
    do {                                                                 \
        char case_reason_[512];                                          \
        snprintf(case_reason_, sizeof case_reason_, fmt, ##__VA_ARGS__); \
        case_runner_skip(_metadata, case_reason_);                       \
        statement;                                                       \
    } while (0)

#define CASE_IS_SIGNED(v) (((__typeof__(v))-1) < (__typeof__(v))1)

/*
 * Both operands are evaluated once. On failure the statement written after the macro
 * (";" or "{ TH_LOG(...); }") runs once, then case_runner_bail() ends the process for
 * an ASSERT. It is one for statement (no if/else), so "if (x) ASSERT_EQ(a, b);" and
 * "if (x) ASSERT_EQ(a, b); else ..." mean what they say.
 */
#define CASE_CHECK(expected, expected_str, seen, seen_str, op, is_assert)                       \
    for (int case_failed_ = __extension__({                                                     \
             __typeof__(expected) case_exp_ = (expected);                                       \
             __typeof__(seen) case_seen_ = (seen);                                              \
             int case_bad_ = !(case_exp_ op case_seen_);                                        \
             if (case_bad_)                                                                     \
                 case_runner_report(_metadata, __FILE__, __LINE__, expected_str, #op, seen_str, \
                                    CASE_IS_SIGNED(case_exp_), (uintmax_t)case_exp_,            \
                                    CASE_IS_SIGNED(case_seen_), (uintmax_t)case_seen_);         \
             case_bad_;                                                                         \
         });                                                                                    \
         case_failed_; case_failed_ = 0, case_runner_bail(_metadata, is_assert))

#define CASE_CHECK_STR(expected, expected_str, seen, seen_str, want_equal, is_assert)      \
    for (int case_failed_ = __extension__({                                                \
             const char *case_exp_ = (expected);                                           \
             const char *case_seen_ = (seen);                                              \
             int case_bad_ = (strcmp(case_exp_, case_seen_) == 0) != (want_equal);         \
             if (case_bad_)                                                                \
                 fprintf(stderr, "# %s:%d:%s:Expected %s ('%s') %s %s ('%s')\n", __FILE__, \
                         __LINE__, _metadata->name, expected_str, case_exp_,               \
                         (want_equal) ? "==" : "!=", seen_str, case_seen_);                \
             case_bad_;                                                                    \
         });                                                                               \
         case_failed_; case_failed_ = 0, case_runner_bail(_metadata, is_assert))

#define ASSERT_EQ(expected, seen)    CASE_CHECK(expected, #expected, seen, #seen, ==, 1)
#define ASSERT_NE(expected, seen)    CASE_CHECK(expected, #expected, seen, #seen, !=, 1)
#define ASSERT_LT(expected, seen)    CASE_CHECK(expected, #expected, seen, #seen, <, 1)
#define ASSERT_LE(expected, seen)    CASE_CHECK(expected, #expected, seen, #seen, <=, 1)
#define ASSERT_GT(expected, seen)    CASE_CHECK(expected, #expected, seen, #seen, >, 1)
#define ASSERT_GE(expected, seen)    CASE_CHECK(expected, #expected, seen, #seen, >=, 1)
#define ASSERT_TRUE(seen)            CASE_CHECK(0, "0", seen, #seen, !=, 1)
#define ASSERT_FALSE(seen)           CASE_CHECK(0, "0", seen, #seen, ==, 1)
#define ASSERT_STREQ(expected, seen) CASE_CHECK_STR(expected, #expected, seen, #seen, 1, 1)
#define ASSERT_STRNE(expected, seen) CASE_CHECK_STR(expected, #expected, seen, #seen, 0, 1)
#define EXPECT_EQ(expected, seen)    CASE_CHECK(expected, #expected, seen, #seen, ==, 0)
#define EXPECT_NE(expected, seen)    CASE_CHECK(expected, #expected, seen, #seen, !=, 0)
#define EXPECT_LT(expected, seen)    CASE_CHECK(expected, #expected, seen, #seen, <, 0)
#define EXPECT_LE(expected, seen)    CASE_CHECK(expected, #expected, seen, #seen, <=, 0)
#define EXPECT_GT(expected, seen)    CASE_CHECK(expected, #expected, seen, #seen, >, 0)
#define EXPECT_GE(expected, seen)    CASE_CHECK(expected, #expected, seen, #seen, >=, 0)
#define EXPECT_TRUE(seen)            CASE_CHECK(0, "0", seen, #seen, !=, 0)
#define EXPECT_FALSE(seen)           CASE_CHECK(0, "0", seen, #seen, ==, 0)
#define EXPECT_STREQ(expected, seen) CASE_CHECK_STR(expected, #expected, seen, #seen, 1, 0)
#define EXPECT_STRNE(expected, seen) CASE_CHECK_STR(expected, #expected, seen, #seen, 0, 0)

#endif /* EHCONF_CASE_RUNNER_H */
