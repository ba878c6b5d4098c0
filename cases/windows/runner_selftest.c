// SPDX-License-Identifier: GPL-2.0
/*
 * runner_selftest: tests of cases/windows/case_runner.c itself, most of them failing on
 * purpose. harness/kernel/run_wine.py runs it (under wine, or on Windows) and checks each
 * test's verdict and diagnostics against what kselftest_harness.h would report for the
 * same code, so a runner that passed everything, lost a skip reason, kept running after
 * an ASSERT or let a crash or a hang take the whole case down is caught.
 * Not a conformance case: it writes no events.
 */
#include <windows.h>

#include <stdint.h>

#include "eventheader.h"
#include "../case_harness.h"
#include "../case_common.h"

static int g_runs_in_this_process;

TEST(passes)
{
    EXPECT_EQ(1, 1);
    ASSERT_TRUE(1);
    ASSERT_STREQ("same", "same");
}

TEST(expect_fails_and_goes_on)
{
    EXPECT_EQ(1, 2);
    TH_LOG("marker: after the failed EXPECT");
}

TEST(assert_stops_the_test)
{
    ASSERT_EQ(3, 4);
    TH_LOG("marker: after the failed ASSERT");
}

TEST(handler_runs_only_on_failure)
{
    EXPECT_EQ(5, 5)
    {
        TH_LOG("marker: handler of a passing check");
    }
    EXPECT_EQ(5, 6)
    {
        TH_LOG("marker: handler of a failing check");
    }
}

TEST(signed_values_print_signed)
{
    EXPECT_EQ((int64_t)-5, (int64_t)3);
    EXPECT_EQ(UINT64_MAX, (uint64_t)7);
}

TEST(string_check_prints_both)
{
    EXPECT_STREQ("abc", "abd");
}

TEST(dangling_else_keeps_its_meaning)
{
    int taken = 0;

    if (0)
        ASSERT_EQ(1, 2);
    else
        taken = 1;
    ASSERT_EQ(1, taken);
}

TEST(skip_with_reason)
{
    SKIP(return, "reason %d", 42);
    TH_LOG("marker: after SKIP");
}

TEST(crash_is_one_failure)
{
    volatile int *volatile nowhere = NULL; /* volatile: the store cannot be dropped */

    *nowhere = 1;
}

TEST(hang_is_killed)
{
    Sleep(INFINITE);
}

/* Each test starts in a new process: neither sees the other's increment. */
TEST(fresh_process_a)
{
    ASSERT_EQ(1, ++g_runs_in_this_process);
}

TEST(fresh_process_b)
{
    ASSERT_EQ(1, ++g_runs_in_this_process);
}

TEST(fork_returns_child_status)
{
    case_pid_t pid = case_fork();

    ASSERT_NE(-1, pid);
    if (pid == 0)
        _exit(7);
    EXPECT_EQ(7, case_wait(pid));
}

TEST_HARNESS_MAIN
