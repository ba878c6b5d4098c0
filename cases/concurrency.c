// SPDX-License-Identifier: GPL-2.0
/*
 * concurrency: many writers at once, and a forked child.
 *
 * Proves that every event written concurrently arrives exactly once and intact:
 *  - 8 threads, released together by a barrier, each write 1,000 events "T" through
 *    ONE call site (so the site's lazily built metadata is raced too) with
 *    "t": thread number 0..7 and "s": sequence 0..999 -- 8,000 distinct events;
 *  - after case_fork() (fork(), or a second process on Windows), the child writes
 *    "Child" s 0..2 and the parent "Parent" s 0..2.
 * Thread interleaving differs from run to run, so golden/concurrency.json declares
 * {"order": "unordered"}: the decoded events must equal the golden as a multiset (no
 * event lost, duplicated or torn). Names are short on purpose: 8,000 golden lines.
 * Threads never ASSERT (the harness's longjmp is per process, not per thread): each
 * counts its failed writes and the test thread asserts on the counts.
 */
#include <pthread.h>
#include <stdlib.h>

#include "eventheader.h"
#include "case_harness.h"
#include "case_common.h"

#define THREADS    8
#define PER_THREAD 1000

static EH_DEFINE_PROVIDER(mt_provider, "EhconfMt");

static pthread_barrier_t start_line;

struct writer {
    pthread_t thread;
    uint8_t index;
    unsigned failures;
    int first_error;
};

static int write_tick(uint8_t t, uint16_t s)
{
    return EH_WRITE(mt_provider, EH_EVENT("T", EH_LEVEL_VERBOSE, 0), EH_U8("t", t), EH_U16("s", s));
}

static void *writer_main(void *arg)
{
    struct writer *w = arg;

    pthread_barrier_wait(&start_line);
    for (uint16_t s = 0; s < PER_THREAD; s++) {
        int err = write_tick(w->index, s);

        if (err) {
            if (!w->failures)
                w->first_error = err;
            w->failures++;
        }
    }
    return NULL;
}

TEST(threads_8_x_1000)
{
    struct writer w[THREADS];

    ASSERT_EQ(0, eh_provider_register(&mt_provider));
    ASSERT_EQ(0, pthread_barrier_init(&start_line, NULL, THREADS));
    for (unsigned i = 0; i < THREADS; i++) {
        w[i].index = (uint8_t)i;
        w[i].failures = 0;
        w[i].first_error = 0;
        ASSERT_EQ(0, pthread_create(&w[i].thread, NULL, writer_main, &w[i]));
    }
    for (unsigned i = 0; i < THREADS; i++)
        ASSERT_EQ(0, pthread_join(w[i].thread, NULL));
    for (unsigned i = 0; i < THREADS; i++) {
        EXPECT_EQ(0u, w[i].failures)
        {
            TH_LOG("thread %u: %u failed writes, first error %d", i, w[i].failures,
                   w[i].first_error);
        }
    }
    EXPECT_EQ(0, pthread_barrier_destroy(&start_line));
    EXPECT_EQ(0, eh_provider_unregister(&mt_provider));
}

static int write_parent_child(int child, uint16_t s)
{
    if (child)
        return EH_WRITE(mt_provider, EH_EVENT("Child", EH_LEVEL_VERBOSE, 0), EH_U16("s", s));
    return EH_WRITE(mt_provider, EH_EVENT("Parent", EH_LEVEL_VERBOSE, 0), EH_U16("s", s));
}

TEST(fork_child_writes)
{
    unsigned failures = 0;
    case_pid_t pid;

    /* On Windows the child runs this test again from here (case_common.h). */
    ASSERT_EQ(0, eh_provider_register(&mt_provider));
    pid = case_fork();
    ASSERT_NE(-1, pid);
    if (pid == 0) {
        /* The child reports through its exit status only (no harness calls). */
        for (uint16_t s = 0; s < 3; s++)
            if (write_parent_child(1, s))
                failures++;
        _exit(failures ? 1 : 0);
    }
    for (uint16_t s = 0; s < 3; s++)
        EXPECT_EQ(0, write_parent_child(0, s));
    EXPECT_EQ(0, case_wait(pid));
    EXPECT_EQ(0, eh_provider_unregister(&mt_provider));
}

TEST_HARNESS_MAIN
